"""Feature importance (XGBoost's get_score) as it evolves through the rounds."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from boost import Booster
from boost.importance import get_score

from .theme import PALETTE, layout, round_marker

MAX_FEATURES = 8


def importance_by_round(booster: Booster, importance_type: str) -> np.ndarray:
    """(rounds + 1, n_features): importance of the trees of rounds 1..k, row k (row 0 = 0)."""
    names = booster.feature_names
    n = booster.num_boosted_rounds()
    out = np.zeros((n + 1, len(names)))
    for k in range(1, n + 1):
        score = get_score(booster.forest, names, importance_type, (0, k * booster.num_groups))
        out[k] = [score.get(f, 0.0) for f in names]
    return out


def make_importance_figure(booster: Booster, importance_type: str, round_idx: int,
                           large: bool = False) -> go.Figure:
    table = importance_by_round(booster, importance_type)
    names = booster.feature_names
    top = np.argsort(-table[-1])[:MAX_FEATURES]
    rounds = np.arange(table.shape[0])
    traces = [go.Scatter(x=rounds, y=table[:, f], mode="lines", name=names[f],
                         line={"color": PALETTE[i % len(PALETTE)], "width": 2.5},
                         hovertemplate=f"{names[f]}: %{{y:.5g}} after round %{{x}}"
                                       "<extra></extra>")
              for i, f in enumerate(top)]
    return go.Figure(data=traces, layout=layout(
        f"Feature importance ({importance_type}) of the trees so far", large, height=380,
        xtitle="round", ytitle=importance_type, shapes=[round_marker(round_idx)],
        legend={"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1.0, "yanchor": "top"}))
