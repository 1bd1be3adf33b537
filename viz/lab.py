"""The Lab's figures, read from a sweep (``boost.sweep``'s frame: one row per grid point and
round): the loss at each point's best round against one parameter (the overfitting gap
shaded), a heatmap of the validation loss over two parameters, the loss by round of a few
points, and how far each step of the tuning-order guide moved the validation loss.

A point's best round is the first round with its lowest validation loss, the round XGBoost's
early stopping keeps.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from boost.params import BY_NAME

from .theme import PALETTE, TRAIN, VALID, layout

BEST = PALETTE[2]  # the best value: green, as early stopping's round elsewhere
GAP_FILL = "rgba(230, 159, 0, 0.22)"  # the validation colour, light: the overfitting gap
HEATMAP_SCALE = "Cividis"  # colour-blind safe, dark (low loss) to light


def grid_names(sweep: pd.DataFrame) -> list[str]:
    """The swept parameters: the columns between ``point`` and ``round``."""
    columns = list(sweep.columns)
    return columns[columns.index("point") + 1:columns.index("round")]


def metric_columns(sweep: pd.DataFrame) -> tuple[str, str]:
    """(train column, validation column): the first eval set's metric."""
    metric, evals = sweep.attrs["metric"], list(sweep.attrs.get("evals") or [])
    if not evals:
        raise ValueError("The sweep has no validation set: the Lab compares validation "
                         "losses, so it needs data with a validation set.")
    return f"train-{metric}", f"{evals[0]}-{metric}"


def best_rows(sweep: pd.DataFrame) -> pd.DataFrame:
    """One row per grid point: its values, ``round`` (the best round: the first with the
    lowest validation loss), ``train`` and ``valid`` at that round and ``gap`` = valid −
    train. Ordered by point."""
    train, valid = metric_columns(sweep)
    ordered = sweep.sort_values(["point", "round"], kind="stable")
    first_min = ordered.groupby("point", sort=True)[valid].idxmin()  # first of equal minima
    best = ordered.loc[first_min.to_numpy(), ["point", *grid_names(sweep), "round", train,
                                             valid]]
    best = best.rename(columns={train: "train", valid: "valid"}).reset_index(drop=True)
    best["gap"] = best["valid"] - best["train"]
    return best


def label(value) -> str:
    """A parameter value as the Lab writes it: whole numbers plain, others to 3 digits."""
    value = float(value)
    return f"{value:.0f}" if value == int(value) and abs(value) < 1e6 else f"{value:.3g}"


def positions(name: str, values) -> tuple[np.ndarray, str]:
    """Where each value sits on the x axis and the axis type. On a log axis (the parameter
    table's ``scale``) a 0 is drawn one of the values' own steps left of the smallest
    positive value, and labelled 0."""
    x = np.asarray(values, dtype=float)
    if BY_NAME[name].scale != "log" or not (x > 0).any():
        return x, "linear"
    positive = np.unique(x[x > 0])
    step = positive[1] / positive[0] if len(positive) > 1 else 10.0
    return np.where(x > 0, x, positive[0] / step), "log"


def _x_axis(name: str, values) -> dict:
    where, kind = positions(name, values)
    title = name + (" (log scale)" if kind == "log" else "")
    ticks = {"tickvals": list(where), "ticktext": [label(v) for v in values]}
    return {"type": kind, "title": {"text": title}, **ticks}


def make_sweep_figure(best: pd.DataFrame, name: str, metric: str, current=None,
                      large: bool = False, clickable: bool = True) -> go.Figure:
    """1-D: train and validation loss at each value's best round against the value (log x
    where the parameter table says log), the gap between them shaded, the best value
    starred and labelled, the model on screen (``current``, its value) ringed. Every point
    carries its grid point (``customdata``) for a click (``clickable``: the title and hover
    say so)."""
    click = "<br><i>click: load this model</i>" if clickable else ""
    best = best.sort_values(name, kind="stable")
    values = best[name].to_numpy()
    x, _ = positions(name, values)
    hover = [f"{name} = {label(v)}<br>best round {r}<br>train {metric} {t:.5g}<br>"
             f"valid {metric} {v_:.5g}<br>gap {g:.4g}{click}"
             for v, r, t, v_, g in zip(values, best["round"], best["train"], best["valid"],
                                       best["gap"], strict=True)]
    points = best["point"].to_numpy()
    common = {"x": x, "customdata": points, "hovertext": hover,
              "hovertemplate": "%{hovertext}<extra></extra>", "mode": "lines+markers"}
    traces = [
        go.Scatter(y=best["train"].to_numpy(), name="train", **common,
                   line={"color": TRAIN, "width": 3, "dash": "dot"}, marker={"size": 10}),
        go.Scatter(y=best["valid"].to_numpy(), name="validation", fill="tonexty",
                   fillcolor=GAP_FILL, **common, line={"color": VALID, "width": 3},
                   marker={"size": 12}),
        go.Scatter(x=[None], y=[None], mode="markers", name="gap: valid − train",
                   marker={"symbol": "square", "size": 16, "color": GAP_FILL},
                   hoverinfo="skip"),
    ]
    i = int(np.argmin(best["valid"].to_numpy()))  # the first of equal losses: smallest value
    bx, by = float(x[i]), float(best["valid"].iloc[i])
    text = (f"best {name} = {label(values[i])}<br>valid {by:.4g} at round "
            f"{int(best['round'].iloc[i])}")
    traces.append(go.Scatter(x=[bx], y=[by], mode="markers", name="best value",
                             customdata=[points[i]], hovertext=[hover[i]],
                             hovertemplate="%{hovertext}<extra></extra>",
                             marker={"symbol": "star", "size": 24, "color": BEST,
                                     "line": {"width": 1.5, "color": "white"}}))
    if current is not None and np.isclose(values.astype(float), float(current)).any():
        j = int(np.flatnonzero(np.isclose(values.astype(float), float(current)))[0])
        traces.append(go.Scatter(
            x=[x[j]], y=[best["valid"].iloc[j]], mode="markers", name="the model on screen",
            hoverinfo="skip", marker={"symbol": "circle-open", "size": 30,
                                      "color": "#111111", "line": {"width": 2.5}}))
    note = {"x": bx, "y": by, "text": text, "showarrow": True, "arrowhead": 0, "ax": 0,
            "ay": -60, "xref": "x", "yref": "y", "font": {"color": "#111111"},
            "bgcolor": "rgba(255,255,255,0.9)", "bordercolor": BEST, "borderwidth": 1.5}
    if positions(name, values)[1] == "log":
        note["x"] = math.log10(bx)  # annotations on a log axis are placed in log10 units
    return go.Figure(data=traces, layout=layout(
        f"{name}: {metric} at each value's best round"
        + (" — click a point to load it" if clickable else ""), large, height=440,
        ytitle=f"{metric} at the best round", xaxis=_x_axis(name, values),
        annotations=[note], margin={"t": 95},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left",
                "x": 0, "traceorder": "normal"}))


def loss_grid(best: pd.DataFrame, x_name: str, y_name: str) -> pd.DataFrame:
    """The best-round validation loss as a table: one row per ``y_name`` value (ascending),
    one column per ``x_name`` value."""
    return best.pivot_table(index=y_name, columns=x_name, values="valid", aggfunc="first",
                            sort=True)


def make_heatmap_figure(best: pd.DataFrame, x_name: str, y_name: str, metric: str,
                        current: tuple | None = None, large: bool = False,
                        clickable: bool = True) -> go.Figure:
    """2-D: the validation loss at each point's best round, one cell per pair of values
    (its loss written in it; the colours span the lowest loss to the upper quartile, so a
    few very bad cells do not leave the rest one colour), the best cell outlined in green,
    the model on screen (``current``: its (x, y) values) outlined dashed. Click a cell: an
    invisible marker at its centre carries the grid point (``customdata``)."""
    grid = loss_grid(best, x_name, y_name)
    xs, ys = [label(v) for v in grid.columns], [label(v) for v in grid.index]
    z = grid.to_numpy(dtype=float)
    size = 21 if large else 16
    low, high = float(np.nanmin(z)), float(np.nanquantile(z, 0.75))
    cap = high > low and high < float(np.nanmax(z))  # a few bad cells would take the colours
    title = f"valid {metric}" + (f"<br>(lightest: ≥ {high:.3g})" if cap else "")
    heat = go.Heatmap(
        x=xs, y=ys, z=z, text=[[f"{v:.4g}" for v in row] for row in z],
        texttemplate="%{text}", textfont={"size": size}, colorscale=HEATMAP_SCALE,
        zmin=low, zmax=high if cap else None,
        colorbar={"title": {"text": title, "side": "right"}, "thickness": 18},
        hoverinfo="skip", xgap=2, ygap=2)
    where = best.set_index([x_name, y_name])
    cx, cy, hover, points = [], [], [], []
    for (xv, yv), row in where.iterrows():
        cx.append(label(xv))
        cy.append(label(yv))
        points.append(int(row["point"]))
        hover.append(f"{x_name} = {label(xv)}, {y_name} = {label(yv)}<br>valid {metric} "
                     f"{row['valid']:.5g} at round {int(row['round'])}<br>train "
                     f"{row['train']:.5g}"
                     + ("<br><i>click: load this model</i>" if clickable else ""))
    clicks = go.Scatter(x=cx, y=cy, customdata=points, hovertext=hover, mode="markers",
                        hovertemplate="%{hovertext}<extra></extra>", showlegend=False,
                        marker={"size": 44, "symbol": "square", "color": "rgba(0,0,0,0)"})
    i = int(np.argmin(best["valid"].to_numpy()))
    bx, by = label(best[x_name].iloc[i]), label(best[y_name].iloc[i])
    shapes = [_cell(xs.index(bx), ys.index(by), BEST, "solid")]
    if current is not None:
        cur = (label(current[0]), label(current[1]))
        if cur[0] in xs and cur[1] in ys:
            shapes.append(_cell(xs.index(cur[0]), ys.index(cur[1]), "#D55E00", "dash"))
    title = (f"Validation {metric} at each cell's best round — best {x_name} = {bx}, "
             f"{y_name} = {by}: {best['valid'].iloc[i]:.4g}")
    return go.Figure(data=[heat, clicks], layout=layout(
        title, large, height=480, xtitle=x_name, ytitle=y_name, shapes=shapes,
        xaxis={"type": "category", "showgrid": False},
        yaxis={"type": "category", "showgrid": False}, clickmode="event+select"))


def _cell(i: int, j: int, color: str, dash: str) -> dict:
    return {"type": "rect", "xref": "x", "yref": "y", "x0": i - 0.48, "x1": i + 0.48,
            "y0": j - 0.48, "y1": j + 0.48, "line": {"color": color, "width": 5, "dash": dash}}


def make_rounds_figure(sweep: pd.DataFrame, large: bool = False) -> go.Figure:
    """Train (dotted) and validation (solid) loss by round for each grid point, each
    point's best round marked; the best of them starred and labelled."""
    train, valid = metric_columns(sweep)
    names, metric = grid_names(sweep), sweep.attrs["metric"]
    best = best_rows(sweep)
    winner = int(best["point"].iloc[int(np.argmin(best["valid"].to_numpy()))])
    traces = []
    for k, (point, rows) in enumerate(sweep.groupby("point", sort=True)):
        color = PALETTE[k % len(PALETTE)] if best.shape[0] > 1 else VALID
        first = rows.iloc[0]
        what = ", ".join(f"{n} = {label(first[n])}" for n in names)
        traces.append(go.Scatter(x=rows["round"], y=rows[train], mode="lines",
                                 name=f"{what} train", showlegend=False,
                                 line={"color": color, "width": 2, "dash": "dot"},
                                 hovertemplate=f"{what}, round %{{x}}<br>train %{{y:.5g}}"
                                               "<extra></extra>"))
        traces.append(go.Scatter(x=rows["round"], y=rows[valid], mode="lines", name=what,
                                 line={"color": color, "width": 3},
                                 hovertemplate=f"{what}, round %{{x}}<br>valid %{{y:.5g}}"
                                               "<extra></extra>"))
        b = best[best["point"] == point].iloc[0]
        traces.append(go.Scatter(
            x=[b["round"]], y=[b["valid"]], mode="markers", showlegend=False,
            hovertemplate=f"{what}: best round {int(b['round'])}, valid {b['valid']:.5g}"
                          "<extra></extra>",
            marker={"color": color, "size": 22 if point == winner else 12,
                    "symbol": "star" if point == winner else "diamond",
                    "line": {"width": 1.5, "color": "white"}}))
    b = best[best["point"] == winner].iloc[0]
    note = {"x": b["round"], "y": b["valid"], "xref": "x", "yref": "y", "showarrow": True,
            "arrowhead": 0, "ax": 0, "ay": -50, "bgcolor": "rgba(255,255,255,0.9)",
            "text": f"best: round {int(b['round'])}, valid {b['valid']:.4g}",
            "bordercolor": BEST, "borderwidth": 1.5}
    return go.Figure(data=traces, layout=layout(
        f"Loss ({metric}) by round (solid: validation, dotted: train)", large, height=420,
        xtitle="round", ytitle=metric, annotations=[note], margin={"t": 95},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left",
                "x": 0}))


def make_guide_summary_figure(steps: list[tuple[str, float]], metric: str,
                              large: bool = False) -> go.Figure:
    """How far each step of the guide moved the validation loss: ``steps`` is [(step name,
    best validation loss after it)], the first the starting point; a waterfall from it
    through each step's change to the loss of the model found."""
    names = [name for name, _ in steps]
    losses = [loss for _, loss in steps]
    changes = [losses[0]] + [b - a for a, b in zip(losses, losses[1:], strict=False)]
    text = [f"{losses[0]:.4g}"] + [f"{c:+.3g}" for c in changes[1:]] + [f"{losses[-1]:.4g}"]
    bars = go.Waterfall(
        x=[*names, "model found"], y=[*changes, 0],
        measure=["absolute"] + ["relative"] * (len(steps) - 1) + ["total"],
        text=text, textposition="outside", textfont={"size": 21 if large else 16},
        decreasing={"marker": {"color": BEST}}, increasing={"marker": {"color": "#D55E00"}},
        totals={"marker": {"color": VALID}}, connector={"line": {"color": "#999999"}},
        hovertemplate="%{x}: %{text}<extra></extra>")
    low, high = min(losses), max(losses)
    top = high + 0.15 * (abs(high) or 1.0)  # room for the labels above the bars
    return go.Figure(data=[bars], layout=layout(
        f"Validation {metric} after each step of the guide", large, height=420,
        ytitle=f"valid {metric}", showlegend=False,
        yaxis={"range": [min(0.0, low * 1.15), top]}))  # from 0: the bars' true heights
