"""Feature importance (XGBoost's get_score) as it evolves through the rounds."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from boost.trace.figures import ImportanceByRound

from .theme import PALETTE, layout, round_marker

MAX_FEATURES = 8


def make_importance_figure(importance: ImportanceByRound, round_idx: int,
                           large: bool = False) -> go.Figure:
    """The importance of each feature (the top MAX_FEATURES after the last round) round by
    round (``booster.trace.importance_by_round``)."""
    table, importance_type = importance.table, importance.importance_type
    names = importance.feature_names
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
