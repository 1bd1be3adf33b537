"""The Lab's figures, read from a sweep (``boost.sweep``'s frame: one row per grid point and
round): the loss at each point's best round against one parameter (the overfitting gap
shaded), a heatmap of the validation loss over two parameters, the loss by round of a few
points, and how far each step of the tuning-order guide moved the validation loss.

The figures draw a verdict (``boost.judge``: each point's best round — the first round with
its lowest validation loss, the round XGBoost's early stopping keeps — and the paired
one-standard-error rule); they compute neither.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from boost.params import BY_NAME

from .theme import BELOW, PALETTE, TRAIN, VALID, layout, loss_title

BEST = PALETTE[2]  # the best value: green, as early stopping's round elsewhere
GAP_FILL = "rgba(230, 159, 0, 0.22)"  # the validation colour, light: the overfitting gap
HEATMAP_SCALE = "Cividis"  # colour-blind safe, dark (low loss) to light


def loss_text(valid: float, spread: float, digits: int = 4) -> str:
    """A point's validation loss as the Lab writes it: with ± its fold standard deviation
    when it was cross-validated."""
    return f"{valid:.{digits}g}" + (f" ± {spread:.2g}" if spread > 0 else "")


def diff_text(v, j: int) -> str:
    """Row j's paired difference from the best: '+0.0108 ± 0.006' (mean ± standard error;
    without folds the difference alone)."""
    row = v.points.iloc[j]
    se = "" if v.nfold is None else f" ± {row['se']:.2g}"
    return f"+{row['diff']:.3g}{se}"


def point_text(best: pd.DataFrame, i: int, names: list[str]) -> str:
    """``max_depth = 3, eta = 0.1`` for row i of a verdict's points."""
    return ", ".join(f"{n} = {label(best[n].iloc[i])}" for n in names)


def paired_text(v) -> str:
    """How the verdict compared the points: 'paired, 5 folds' or 'one validation set'."""
    return f"paired, {v.nfold} folds" if v.nfold else "one validation set"


def headline(v) -> str:
    """The verdict in one short line, with its numbers (a chart's note or title): 'max_depth
    = 1 wins: 0.1098 (paired, 5 folds); next max_depth = 6, +0.0108 ± 0.006' or 'No clear
    winner: 4 of 5 within one standard error of the lowest (paired, 5 folds)'."""
    best, names = v.points, v.names
    if v.winner is None:
        return (f"No clear winner: {len(v.close)} of {len(best)} within one standard error "
                f"of the lowest ({paired_text(v)})")
    head = f"{point_text(best, v.best, names)} wins: {best['valid'].iloc[v.best]:.4g}"
    j = v.nearest()
    if j is None:
        return head
    return f"{head} ({paired_text(v)}); next {point_text(best, j, names)}, {diff_text(v, j)}"


def verdict_text(v, marked: str = "ringed", most: int = 4) -> str:
    """The sentence under a sweep's chart, a student can trust: the winner and by how much
    the nearest other point is worse (its paired difference ± standard error), or why there
    is none (the points within one standard error and their differences); a best point
    still improving at the last round said as such."""
    best, names, metric = v.points, v.names, v.metric
    row = best.iloc[v.best]
    loss = loss_text(row["valid"], row["spread"])
    still = (f" It was still improving at round {int(row['trained'])}, the last trained: "
             "more rounds could lower it further." if row["still"] else "")
    if len(best) == 1:
        return (f"{point_text(best, 0, names)} (the only value tried): {metric} {loss} at "
                f"round {int(row['round'])}." + still)
    at = f"{metric} {row['valid']:.4g} at round {int(row['round'])}"
    if v.nfold is None:
        j = v.nearest()
        if v.winner is None:
            return (f"No clear winner: {len(v.close)} of {len(best)} points have the lowest "
                    f"loss ({at}) on the validation rows ({marked})." + still)
        return (f"**Best: {point_text(best, v.best, names)}** — {at}; the next lowest, "
                f"{point_text(best, j, names)}, is {diff_text(v, j)} higher on the "
                "validation rows (one validation set: no standard error to weigh the "
                "difference by)." + still)
    rule = (f"each point's loss minus the best's, fold by fold over the {v.nfold} folds: mean "
            "± its standard error")
    if v.winner is not None:
        j = v.nearest()
        return (f"**{point_text(best, v.best, names)} wins** — {at} (mean of {v.nfold} "
                f"folds). Every other point is worse by more than one standard error of its "
                f"paired difference ({rule}); the closest, {point_text(best, j, names)}, by "
                f"{diff_text(v, j)}." + still)
    others = sorted((j for j in v.close if j != v.best), key=lambda j: best["diff"].iloc[j])
    listed = "; ".join(f"{point_text(best, j, names)} {diff_text(v, j)}"
                       for j in others[:most])
    more = f"; +{len(others) - most} more" if len(others) > most else ""
    return (f"**No clear winner**: {len(v.close)} of {len(best)} points are within one "
            f"standard error of the lowest, {point_text(best, v.best, names)} ({at}). Their "
            f"paired differences from it ({rule}): {listed}{more} — the folds cannot tell "
            f"them apart ({marked})." + still)


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


def _versus(v, j: int) -> str:
    """Row j's hover line against the best: its paired difference, or 'the lowest'."""
    if j == v.best:
        return "<br>the lowest loss"
    return f"<br>vs the lowest: {diff_text(v, j)} ({paired_text(v)})"


def make_sweep_figure(v, name: str, current=None, large: bool = False,
                      clickable: bool = True) -> go.Figure:
    """1-D: train and validation loss at each value's best round against the value (log x
    where the parameter table says log), the gap between them shaded, the winner starred
    and labelled (or the values tied with the lowest ringed), the model on screen
    (``current``, its value) ringed. ``v``: the sweep's verdict (``boost.judge``). Every
    point carries its grid point (``customdata``) for a click (``clickable``: the title and
    hover say so)."""
    click = "<br><i>click: load this model</i>" if clickable else ""
    metric = v.metric
    order = np.argsort(v.points[name].to_numpy(dtype=float), kind="stable")
    at = {int(o): k for k, o in enumerate(order)}  # the verdict's row -> its place on x
    best = v.points.iloc[order].reset_index(drop=True)
    values = best[name].to_numpy()
    x, _ = positions(name, values)
    crossed = bool(best["spread"].gt(0).any())
    hover = [f"{name} = {label(val)}<br>best round {r}" + (" (still improving)" if s_ else "")
             + f"<br>train {metric} {t:.5g}<br>valid {metric} {loss_text(v_, sd, 5)}"
             + _versus(v, int(o)) + f"<br>gap {g:.4g}{click}"
             for val, r, s_, t, v_, sd, g, o in zip(values, best["round"], best["still"],
                                                    best["train"], best["valid"],
                                                    best["spread"], best["gap"], order,
                                                    strict=True)]
    points = best["point"].to_numpy()
    common = {"x": x, "customdata": points, "hovertext": hover,
              "hovertemplate": "%{hovertext}<extra></extra>", "mode": "lines+markers"}
    bars = ({"error_y": {"type": "data", "array": best["spread"].to_numpy(), "color": VALID,
                         "thickness": 1.5, "width": 6}} if crossed else {})
    traces = [
        go.Scatter(y=best["train"].to_numpy(), name="train", **common,
                   line={"color": TRAIN, "width": 3, "dash": "dot"}, marker={"size": 10}),
        go.Scatter(y=best["valid"].to_numpy(),
                   name="validation ± fold std" if crossed else "validation", fill="tonexty",
                   fillcolor=GAP_FILL, **common, **bars, line={"color": VALID, "width": 3},
                   marker={"size": 12}),
        go.Scatter(x=[None], y=[None], mode="markers", name="gap: valid − train",
                   marker={"symbol": "square", "size": 16, "color": GAP_FILL},
                   hoverinfo="skip"),
    ]
    still = np.flatnonzero(best["still"].to_numpy())
    if len(still):
        traces.append(go.Scatter(
            x=x[still], y=best["valid"].to_numpy()[still], mode="markers",
            name="still improving at its last round", hoverinfo="skip",
            marker={"symbol": "triangle-down", "size": 16, "color": "#111111",
                    "line": {"width": 1, "color": "white"}}))
    i = at[v.best]
    bx, by = float(x[i]), float(best["valid"].iloc[i])
    if v.winner is not None:
        j = v.nearest()
        text = (f"{name} = {label(values[i])} wins<br>valid {by:.4g} at round "
                f"{int(best['round'].iloc[i])}"
                + ("" if j is None else f"<br>next: {diff_text(v, j)}<br>({paired_text(v)})")
                + ("<br>still improving" if best["still"].iloc[i] else ""))
        traces.append(go.Scatter(x=[bx], y=[by], mode="markers", name="winner",
                                 customdata=[points[i]], hovertext=[hover[i]],
                                 hovertemplate="%{hovertext}<extra></extra>",
                                 marker={"symbol": "star", "size": 24, "color": BEST,
                                         "line": {"width": 1.5, "color": "white"}}))
    else:
        close = [at[j] for j in v.close]
        text = (f"no clear winner:<br>{len(close)} of {len(best)} within one standard<br>"
                f"error of the lowest ({paired_text(v)})")
        traces.append(go.Scatter(
            x=x[close], y=best["valid"].to_numpy()[close], mode="markers",
            name="within one standard error of the lowest (no winner)", hoverinfo="skip",
            marker={"symbol": "circle-open", "size": 22, "color": BEST,
                    "line": {"width": 3}}))
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
        # six entries wrap into rows over the title on top: under the plot
        annotations=[note], legend={**BELOW, "traceorder": "normal"}, margin={"b": 170}))


def loss_grid(best: pd.DataFrame, x_name: str, y_name: str) -> pd.DataFrame:
    """The best-round validation loss as a table: one row per ``y_name`` value (ascending),
    one column per ``x_name`` value."""
    return best.pivot_table(index=y_name, columns=x_name, values="valid", aggfunc="first",
                            sort=True)


def make_heatmap_figure(v, x_name: str, y_name: str, current: tuple | None = None,
                        large: bool = False, clickable: bool = True) -> go.Figure:
    """2-D: the validation loss at each point's best round, one cell per pair of values
    (its loss written in it; the colours span the lowest loss to the upper quartile, so a
    few very bad cells do not leave the rest one colour), the winner's cell outlined in
    green (or, without one, the cells tied with the lowest dotted), the model on screen
    (``current``: its (x, y) values) outlined dashed. ``v``: the sweep's verdict
    (``boost.judge``). Click a cell: an invisible marker at its centre carries the grid
    point (``customdata``)."""
    best, metric = v.points, v.metric
    grid = loss_grid(best, x_name, y_name)
    xs, ys = [label(v) for v in grid.columns], [label(v) for v in grid.index]
    z = grid.to_numpy(dtype=float)
    still = best.pivot_table(index=y_name, columns=x_name, values="still", aggfunc="first",
                             sort=True).to_numpy(dtype=bool)
    size = (21 if len(xs) <= 4 else 18) if large else 16  # a number must fit its cell
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
    for k, ((xv, yv), row) in enumerate(where.iterrows()):
        cx.append(label(xv))
        cy.append(label(yv))
        points.append(int(row["point"]))
        hover.append(f"{x_name} = {label(xv)}, {y_name} = {label(yv)}<br>valid {metric} "
                     f"{loss_text(row['valid'], row['spread'], 5)} at round "
                     f"{int(row['round'])}"
                     + (" (▼ still improving: its last round)" if row["still"] else "")
                     + f"<br>train {row['train']:.5g}" + _versus(v, k)
                     + ("<br><i>click: load this model</i>" if clickable else ""))
    clicks = go.Scatter(x=cx, y=cy, customdata=points, hovertext=hover, mode="markers",
                        hovertemplate="%{hovertext}<extra></extra>", showlegend=False,
                        marker={"size": 44, "symbol": "square", "color": "rgba(0,0,0,0)"})
    # still improving: ▼ in the cell's top right corner, on hidden linear axes over the
    # categories (text beside the loss would not fit a narrow cell)
    rows, cols = np.nonzero(still)
    marks = go.Scatter(x=cols + 0.36, y=rows + 0.26, mode="markers", name="still improving",
                       hoverinfo="skip", showlegend=False, xaxis="x2", yaxis="y2",
                       marker={"symbol": "triangle-down", "size": 11, "color": "#111111",
                               "line": {"width": 1, "color": "white"}})
    shapes = []
    for i in v.close:  # the winner solid; without one, every cell tied with the lowest dotted
        bx, by = label(best[x_name].iloc[i]), label(best[y_name].iloc[i])
        shapes.append(_cell(xs.index(bx), ys.index(by), BEST, "solid", 5)
                      if v.winner is not None else
                      _cell(xs.index(bx), ys.index(by), BEST, "dot", 2.5, inset=0.4))
    if current is not None:
        cur = (label(current[0]), label(current[1]))
        if cur[0] in xs and cur[1] in ys:
            shapes.append(_cell(xs.index(cur[0]), ys.index(cur[1]), "#D55E00", "dash"))
    row = best.iloc[v.best]
    # two short lines: a presenter's half-width panel holds about 45 characters a line
    title = (f"Valid {metric} at each cell's best round (▼ still improving)<br>"
             + (f"Wins: {x_name} = {label(row[x_name])}, {y_name} = {label(row[y_name])}: "
                f"{row['valid']:.4g}" if v.winner is not None
                else f"No clear winner: {len(v.close)} of {len(best)} within one standard "
                     "error"))
    return go.Figure(data=[heat, clicks, marks], layout=layout(
        title, large, height=480, xtitle=x_name, ytitle=y_name, shapes=shapes,
        # the ranges fixed to the cells (the click markers would pad them) and shared with
        # the marks' hidden axes
        xaxis={"type": "category", "showgrid": False, "range": [-0.5, len(xs) - 0.5]},
        yaxis={"type": "category", "showgrid": False, "range": [-0.5, len(ys) - 0.5]},
        clickmode="event+select",
        margin={"t": 95},
        xaxis2={"overlaying": "x", "range": [-0.5, len(xs) - 0.5], "visible": False},
        yaxis2={"overlaying": "y", "range": [-0.5, len(ys) - 0.5], "visible": False}))


def _cell(i: int, j: int, color: str, dash: str, width: float = 5,
          inset: float = 0.48) -> dict:
    return {"type": "rect", "xref": "x", "yref": "y", "x0": i - inset, "x1": i + inset,
            "y0": j - inset, "y1": j + inset,
            "line": {"color": color, "width": width, "dash": dash}}


def make_rounds_figure(sweep: pd.DataFrame, v, large: bool = False) -> go.Figure:
    """Train (dotted) and validation (solid) loss by round for each grid point of
    ``sweep``, each point's best round marked; the winner of its verdict ``v``
    (``boost.judge(sweep)``) starred, the lowest labelled."""
    train, valid = v.columns
    names, metric, best = v.names, v.metric, v.points
    winner = int(best["point"].iloc[v.best]) if v.winner is not None else None
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
    b = best.iloc[v.best]
    what = "its best" if len(best) == 1 else "best" if v.winner is not None else "lowest"
    note = {"x": b["round"], "y": b["valid"], "xref": "x", "yref": "y", "showarrow": True,
            "arrowhead": 0, "ax": 0, "ay": -50, "bgcolor": "rgba(255,255,255,0.9)",
            "text": f"{what}: round {int(b['round'])}, valid {b['valid']:.4g}"
                    + (f" (no clear winner: {len(v.close)} of {len(best)} within one "
                       "standard error)" if v.winner is None else "")
                    + (" — still improving" if b["still"] else ""),
            "bordercolor": BEST, "borderwidth": 1.5}
    return go.Figure(data=traces, layout=layout(
        f"{loss_title(metric)} by round (solid: validation, dotted: train)", large, height=420,
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
