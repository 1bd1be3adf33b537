"""Loss curves (train and validation) with the current round marked."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from .theme import PALETTE, TRAIN, VALID, layout, round_marker


def make_loss_figure(history: pd.DataFrame, round_idx: int, metric: str,
                     large: bool = False) -> go.Figure:
    """``history``: Booster.loss_history() (index = round, 0 = baseline)."""
    colors = {"train": TRAIN, "valid": VALID}
    traces = []
    for i, name in enumerate(history.columns):
        color = colors.get(name, PALETTE[(i + 2) % len(PALETTE)])
        traces.append(go.Scatter(
            x=history.index.to_numpy(), y=history[name].to_numpy(), mode="lines", name=name,
            line={"color": color, "width": 3},
            hovertemplate=f"round %{{x}}<br>{name} {metric} = %{{y:.5g}}<extra></extra>"))
        traces.append(go.Scatter(
            x=[round_idx], y=[history[name].iloc[round_idx]], mode="markers",
            showlegend=False, marker={"color": color, "size": 12,
                                      "line": {"width": 2, "color": "white"}},
            hovertemplate=f"round {round_idx}<br>{name} = %{{y:.5g}}<extra></extra>"))
    return go.Figure(data=traces, layout=layout(
        f"Loss ({metric}) by round", large, height=360, xtitle="round (0 = baseline)",
        ytitle=metric, shapes=[round_marker(round_idx)]))
