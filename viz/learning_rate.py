"""Several learning rates trained on the same data: loss curves overlaid, the current round
marked and each eta's best validation round noted; for 1-D data, each eta's fit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from boost.trace.fit import Curve

from .theme import PALETTE, layout, loss_title, round_marker, short


def best_round(history: pd.DataFrame) -> tuple[str, int]:
    """(column, round) of the lowest loss of the validation set (train if there is none)."""
    column = "valid" if "valid" in history.columns else "train"
    return column, int(history[column].to_numpy().argmin())


def make_learning_rate_figure(histories: dict[float, pd.DataFrame], round_idx: int,
                              metric: str, large: bool = False,
                              stopped: dict[float, int] | None = None) -> go.Figure:
    """``stopped``: {eta: best round (1-based)} for the models early stopping ended; their
    best round is then the one early stopping kept, and the curve ends where it stopped."""
    traces = []
    stopped = stopped or {}
    for i, (eta, history) in enumerate(sorted(histories.items())):
        color = PALETTE[i % len(PALETTE)]
        best_column, best = best_round(history)
        if eta in stopped:
            best = stopped[eta]
        value = float(history[best_column].iloc[best])
        for column, dash in (("train", "dot"), ("valid", "solid")):
            if column not in history.columns:
                continue
            # the best round's loss too, by the rule of every number a reader sees
            name = f"η = {eta:g} {column}" + (f" (best: {short(value)} at round {best})"
                                               if column == best_column else "")
            traces.append(go.Scatter(
                x=history.index.to_numpy(), y=history[column].to_numpy(), mode="lines",
                name=name, line={"color": color, "dash": dash, "width": 2.5},
                hovertemplate=f"η = {eta:g}, round %{{x}}<br>{column} {metric} = %{{y:.5g}}"
                              "<extra></extra>"))
        how = (f"early stopping kept round {best}, stopped at {history.index[-1]}"
               if eta in stopped else f"best {best_column} round {best}")
        traces.append(go.Scatter(x=[best], y=[value], mode="markers", showlegend=False,
                                 marker={"color": color, "size": 13,
                                         "symbol": "star" if eta in stopped else "diamond"},
                                 hovertemplate=f"η = {eta:g}: {how}, {metric} {value:.5g}"
                                               "<extra></extra>"))
    return go.Figure(data=traces, layout=layout(
        f"{loss_title(metric)} for each learning rate",  # the legend says solid/dotted
        large, height=440, xtitle="round (0 = baseline)", ytitle=metric,
        shapes=[round_marker(round_idx)], legend={"orientation": "v", "x": 1.02, "xanchor": "left",
                                         "y": 1.0, "yanchor": "top"}))


def make_learning_rate_fit_figure(curves: dict[float, Curve], X: np.ndarray,
                                  y: np.ndarray, round_idx: int, feature: str,
                                  large: bool = False) -> go.Figure:
    """1-D data: each eta's prediction curve after ``round_idx`` rounds over the data
    (``booster.trace.curve(X, round_idx, pad=False)``)."""
    x = np.asarray(X, dtype=float)[:, 0]
    traces = [go.Scatter(x=x, y=y, mode="markers", name="data",
                         marker={"color": "#777", "size": 7, "opacity": 0.5})]
    for i, (eta, c) in enumerate(sorted(curves.items())):
        traces.append(go.Scatter(x=c.x, y=c.prediction,
                                 mode="lines", name=f"η = {eta:g}",
                                 line={"color": PALETTE[i % len(PALETTE)], "width": 3,
                                       "shape": "hv"}))
    return go.Figure(data=traces, layout=layout(
        f"Each learning rate's fit after round {round_idx}", large, xtitle=feature,
        ytitle="prediction"))
