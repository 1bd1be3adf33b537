"""Loss curves (train and validation) with the current round marked."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from .theme import CURRENT, PALETTE, TRAIN, VALID, style


def make_loss_figure(history: pd.DataFrame, round_idx: int, metric: str,
                     large: bool = False) -> go.Figure:
    """``history``: Booster.loss_history() (index = round, 0 = baseline)."""
    fig = go.Figure()
    colors = {"train": TRAIN, "valid": VALID}
    for i, name in enumerate(history.columns):
        color = colors.get(name, PALETTE[(i + 2) % len(PALETTE)])
        fig.add_trace(go.Scatter(
            x=history.index, y=history[name], mode="lines", name=name,
            line={"color": color, "width": 3},
            hovertemplate=f"round %{{x}}<br>{name} {metric} = %{{y:.5g}}<extra></extra>"))
        fig.add_trace(go.Scatter(
            x=[round_idx], y=[history[name].iloc[round_idx]], mode="markers",
            showlegend=False, marker={"color": color, "size": 12,
                                      "line": {"width": 2, "color": "white"}},
            hovertemplate=f"round {round_idx}<br>{name} = %{{y:.5g}}<extra></extra>"))
    fig.add_vline(x=round_idx, line={"color": CURRENT, "width": 2, "dash": "dot"})
    style(fig, f"Loss ({metric}) by round", large, height=360)
    fig.update_xaxes(title="round (0 = baseline)")
    fig.update_yaxes(title=metric)
    return fig
