"""Loss curves (train and validation) with the current round marked."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from .theme import (
    BELOW,
    PALETTE,
    TRAIN,
    VALID,
    best_round_marks,
    layout,
    loss_title,
    round_marker,
    short,
)

NO_TARGET = "no target in the sample: predictions only"


def loss_line(history: pd.DataFrame | None, metric: str, round_idx: int) -> str:
    """'train rmse 1.23, valid rmse 1.45' after round ``round_idx`` ('sample rmse ...' on a
    data sample), each loss as a reader sees every number (``short``: a lesson's text says
    the same 0.738); ``history`` None (no target): NO_TARGET."""
    if history is None:
        return NO_TARGET
    return ", ".join(f"{name} {metric} {short(history[name].iloc[round_idx])}"
                     for name in history.columns)


QUANTILE_DASHES = ("dot", "dash", "dashdot", "longdash", "longdashdot")


def _set_color(name: str, i: int) -> str:
    return {"train": TRAIN, "valid": VALID}.get(name, PALETTE[(i + 2) % len(PALETTE)])


def make_loss_figure(history: pd.DataFrame, round_idx: int, metric: str,
                     large: bool = False, best_round: int | None = None,
                     quantiles: pd.DataFrame | None = None) -> go.Figure:
    """``history``: Booster.loss_history() (index = round, 0 = baseline). ``best_round``
    (1-based, Booster.best_iteration + 1): where early stopping found the best validation
    loss; training went on ``early_stopping_rounds`` more rounds and stopped.
    ``quantiles`` (reg:quantileerror, ``Booster.quantile_loss_history()``): each quantile's
    own pinball loss, drawn thinner in its set's colour, one dash per alpha, after the
    sets' lines and markers (whose places the player's patches name)."""
    traces = []
    for i, name in enumerate(history.columns):
        color = _set_color(name, i)
        traces.append(go.Scatter(
            x=history.index.to_numpy(), y=history[name].to_numpy(), mode="lines", name=name,
            line={"color": color, "width": 3},
            hovertemplate=f"round %{{x}}<br>{name} {metric} = %{{y:.5g}}<extra></extra>"))
        traces.append(go.Scatter(
            x=[round_idx], y=[history[name].iloc[round_idx]], mode="markers",
            showlegend=False, cliponaxis=False,  # whole at the last round, on the axis edge
            marker={"color": color, "size": 12,
                                      "line": {"width": 2, "color": "white"}},
            hovertemplate=f"round {round_idx}<br>{name} = %{{y:.5g}}<extra></extra>"))
    sets = list(history.columns)
    for column in ([] if quantiles is None else quantiles.columns):
        name, _, alpha = column.partition(" α=")
        k = [c for c in quantiles.columns if c.startswith(f"{name} α=")].index(column)
        traces.append(go.Scatter(
            x=quantiles.index.to_numpy(), y=quantiles[column].to_numpy(), mode="lines",
            name=column, line={"color": _set_color(name, sets.index(name) if name in sets
                                                   else len(sets)), "width": 1.5,
                               "dash": QUANTILE_DASHES[k % len(QUANTILE_DASHES)]},
            hovertemplate=f"round %{{x}}<br>{name} pinball loss at α = {alpha}: "
                          "%{y:.5g}<extra></extra>"))
    shapes, notes = [round_marker(round_idx)], []
    if best_round is not None:
        shape, note = best_round_marks(best_round, f"best: round {best_round}<br>"
                                                   f"stopped at {history.index[-1]}")
        shapes.append(shape)
        notes.append(note)
    if quantiles is None:
        return go.Figure(data=traces, layout=layout(
            f"{loss_title(metric)} by round", large, height=360, xtitle="round (0 = baseline)",
            ytitle=metric, shapes=shapes, annotations=notes))
    # a set's line and one per alpha: the legend goes under the plot, clear of the title
    return go.Figure(data=traces, layout=layout(
        "Pinball loss by round (solid: the mean over α)", large, height=360,
        xtitle="round (0 = baseline)", ytitle=metric, shapes=shapes, annotations=notes,
        legend=BELOW, margin={"b": 110}))


def make_loss_comparison_figure(histories: dict[str, pd.DataFrame], round_idx: int,
                                metric: str, large: bool = False) -> go.Figure:
    """Several models' loss curves on one chart: one colour per model, solid validation,
    dotted train; the current round marked."""
    traces = []
    for i, (label, history) in enumerate(histories.items()):
        color = PALETTE[i % len(PALETTE)]
        for column, dash in (("train", "dot"), ("valid", "solid")):
            if column not in history.columns:
                continue
            traces.append(go.Scatter(
                x=history.index.to_numpy(), y=history[column].to_numpy(), mode="lines",
                name=f"{label}: {column}", line={"color": color, "dash": dash, "width": 3},
                hovertemplate=f"{label}, round %{{x}}<br>{column} {metric} = %{{y:.5g}}"
                              "<extra></extra>"))
            if round_idx <= history.index[-1]:
                traces.append(go.Scatter(
                    x=[round_idx], y=[history[column].iloc[round_idx]], mode="markers",
                    showlegend=False, cliponaxis=False, marker={"color": color, "size": 11,
                                              "line": {"width": 2, "color": "white"}},
                    hoverinfo="skip"))
    valid = any("valid" in h.columns for h in histories.values())  # (say only what is drawn)
    key = " (solid: validation, dotted: train)" if valid else " (training rows)"
    return go.Figure(data=traces, layout=layout(
        f"{loss_title(metric)} by round{key}", large, height=380,
        xtitle="round (0 = baseline)", ytitle=metric, shapes=[round_marker(round_idx)],
        legend={"orientation": "h", "yanchor": "top", "y": -0.22, "xanchor": "left", "x": 0}))
