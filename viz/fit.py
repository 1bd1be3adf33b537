"""The fit at round r next to round r-1: a curve (1 feature), a surface (2 features), or
predicted against actual (more features), drawn from the model's ``Fit`` record
(``booster.trace.fit``)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from boost import objectives
from boost.trace.fit import Fit

from .theme import BELOW, CURRENT, DIVERGING, PALETTE, PREVIOUS, layout, minus, scatter_type, short


def _task(fit) -> str:
    return objectives.spec(fit.objective).task


def make_fit_figure(fit: Fit, class_names: list[str] | None = None,
                    large: bool = False) -> go.Figure:
    """The model after ``fit.round_idx`` rounds against the data (and after the round
    before)."""
    if fit.kind == "curve" and fit.now.ndim == 2:  # several quantiles: one line each
        return _band_1d(fit, large)
    if fit.kind == "curve":
        return _fit_1d(fit, large)
    if fit.kind == "surface":
        return _fit_2d(fit, class_names, large)
    return _fit_many(fit, class_names, large)


def _label(class_names, c) -> str:
    return class_names[c] if class_names else str(c)


# beside a row: its residual (the page fills it in too); no-break spaces keep it off the
# marker on either side (SVG would collapse plain ones); a negative one's sign is the
# typographic minus of the label's "y − ŷ" and of the lessons' texts
RESIDUAL_LABEL = "\u00a0\u00a0y − ŷ = {}\u00a0\u00a0"


def residual_label(value: float) -> str:
    """A row's residual beside it, by the rule of every number a reader sees (the page
    writes a round's labels the same way: ``RESIDUAL_LABEL`` and viz/js/format.js
    ``rounded``)."""
    return RESIDUAL_LABEL.format(minus(short(value)))


def alpha_text(alpha: float) -> str:
    """How a quantile is named beside its line: 'α = 0.05'."""
    return f"α = {alpha:g}"


def alpha_color(k: int) -> str:
    """The colour of output k's quantile (fit and loss alike)."""
    return PALETTE[(k + 1) % len(PALETTE)]


def _band_1d(fit: Fit, large: bool) -> go.Figure:
    """Several quantiles over one feature: each alpha's prediction line after round r (the
    band between them shaded), dashed after round r - 1. Traces: the data, then (from
    round 1) the k lines of round r - 1, then the k lines of round r — the places the
    player's patches name (``viz.round_trace``)."""
    r, name, grid = fit.round_idx, fit.feature_names[0], fit.grid[0]
    x = fit.x[:, 0]
    present = ~np.isnan(x)
    traces = [scatter_type(len(fit.rows))(
        x=x[present], y=fit.y[present], mode="markers", name="data",
        marker={"color": PALETTE[0], "size": 8, "opacity": 0.65},
        hovertemplate=f"{name}=%{{x}}<br>y=%{{y}}<extra>data</extra>")]
    alphas = fit.alphas or tuple(range(fit.now.shape[1]))
    if r > 0:
        for k, a in enumerate(alphas):
            traces.append(go.Scatter(
                x=grid, y=fit.before[:, k], mode="lines", showlegend=False,
                name=f"{alpha_text(a)}, after round {r - 1}",
                line={"color": alpha_color(k), "width": 1.5, "dash": "dash", "shape": "hv"},
                hovertemplate=f"{name}=%{{x:.4g}}<br>q=%{{y:.4g}}<extra>{alpha_text(a)}, "
                              f"round {r - 1}</extra>"))
    for k, a in enumerate(alphas):
        base = f": base_score {minus(short(float(fit.now[0, k])))}" if r == 0 else ""
        traces.append(go.Scatter(
            x=grid, y=fit.now[:, k], mode="lines", name=f"{alpha_text(a)}, after round {r}"
                                                        f"{base}",
            line={"color": alpha_color(k), "width": 3, "shape": "hv"},
            fill="tonexty" if k else None, fillcolor="rgba(213,94,0,0.08)",
            hovertemplate=f"{name}=%{{x:.4g}}<br>q=%{{y:.4g}}<extra>{alpha_text(a)}, "
                          f"round {r}</extra>"))
    title = f"Quantiles after round {r}" + (" (baseline)" if r == 0 else "")
    return go.Figure(data=traces, layout=layout(
        title, large, xtitle=name, ytitle="y", legend=BELOW, margin={"b": 100}))


def _fit_1d(fit: Fit, large: bool) -> go.Figure:
    r, name, grid = fit.round_idx, fit.feature_names[0], fit.grid[0]
    x = fit.x[:, 0]
    present = ~np.isnan(x)
    classify = _task(fit) == "binary"
    what = "P(y = 1)" if classify else "prediction"
    traces = [scatter_type(len(fit.rows))(
        x=x[present], y=fit.y[present], mode="markers", name="data",
        marker={"color": PALETTE[0], "size": 8, "opacity": 0.65},
        hovertemplate=f"{name}=%{{x}}<br>y=%{{y}}<extra>data</extra>")]
    if r > 0:
        traces.append(go.Scatter(
            x=grid, y=fit.before, mode="lines",
            name=f"after round {r - 1}",
            line={"color": PREVIOUS, "width": 2, "dash": "dash", "shape": "hv"},
            hovertemplate=f"{name}=%{{x:.4g}}<br>{what}=%{{y:.4g}}<extra>round {r - 1}</extra>"))
    # round 0: every prediction is base_score (the baseline line says it)
    baseline = (f": base_score {minus(short(float(fit.now[0])))}" if r == 0 and len(fit.now)
                else "")
    traces.append(go.Scatter(
        x=grid, y=fit.now, mode="lines", name=f"after round {r}{baseline}",
        line={"color": CURRENT, "width": 3, "shape": "hv"},
        hovertemplate=f"{name}=%{{x:.4g}}<br>{what}=%{{y:.4g}}<extra>round {r}</extra>"))
    extra = {}
    if r > 0:
        # The round's own tree: its leaf values eta*w as a step function of x (log-odds on a
        # second axis for classification).
        traces.append(go.Scatter(
            x=grid, y=fit.step, mode="lines", name=f"tree {r} alone (η·w)",
            line={"color": PALETTE[2], "width": 2, "shape": "hv"}, fill="tozeroy",
            fillcolor="rgba(0,158,115,0.12)", yaxis="y2" if classify else "y",
            hovertemplate=f"{name}=%{{x:.4g}}<br>η·w=%{{y:.4g}}<extra>tree {r}</extra>"))
        if classify:
            extra["yaxis2"] = {"overlaying": "y", "side": "right", "showgrid": False,
                               "title": {"text": f"tree {r} output (log-odds)"}}
    if fit.residuals is not None:  # a handful of rows: each says its residual (last: the
        # traces above keep their places, which the player's patches name)
        traces.append(go.Scatter(
            x=x[present], y=fit.y[present], mode="text", name="residuals",
            text=[residual_label(v) for v in fit.residuals[present]],
            # beside the point, on the side with room (the right third: its left)
            textposition=np.where(x[present] > np.nanmin(x) + 0.66 * np.ptp(x[present]),
                                  "middle left", "middle right").tolist(),
            textfont={"color": PALETTE[0]}, cliponaxis=False,
            showlegend=False, hoverinfo="skip"))
    quantile = f" ({alpha_text(fit.alphas[0])})" if fit.alphas else ""
    title = f"Fit{quantile} after round {r}" + (" (baseline)" if r == 0 else "")
    # four entries from round 1: on top, in a half-width column at 720p, they ran into the title
    return go.Figure(data=traces, layout=layout(
        title, large, xtitle=name, ytitle="y / P(y = 1)" if classify else "y", legend=BELOW,
        margin={"b": 100}, **extra))


def _fit_2d(fit: Fit, class_names, large: bool) -> go.Figure:
    r, names, (gx, gy), pred = fit.round_idx, fit.feature_names, fit.grid, fit.now
    X, y = fit.x, fit.y
    shape = (len(gy), len(gx))
    hover = f"{names[0]}=%{{x:.3g}}<br>{names[1]}=%{{y:.3g}}"
    traces = []
    if _task(fit) == "multiclass":
        k = pred.shape[1]
        scale = [[i / max(1, k - 1), PALETTE[i % len(PALETTE)]] for i in range(k)]
        traces.append(go.Heatmap(x=gx, y=gy, z=pred.argmax(axis=1).reshape(shape),
                                 colorscale=scale, opacity=0.35, showscale=False, zmin=0,
                                 zmax=k - 1, hovertemplate=hover + "<br>predicted class "
                                 "%{z}<extra></extra>"))
        for c in range(k):
            sel = y == c
            traces.append(go.Scatter(x=X[sel, 0], y=X[sel, 1], mode="markers",
                                     name=_label(class_names, c),
                                     marker={"color": PALETTE[c % len(PALETTE)], "size": 8,
                                             "line": {"width": 1, "color": "white"}}))
        title = f"Predicted class after round {r}"
    else:
        classify = _task(fit) == "binary"
        quantile = ""
        if pred.ndim == 2:  # several quantiles: the middle one's surface
            k = fit.middle
            pred, quantile = pred[:, k], f" ({alpha_text(fit.alphas[k])})"
        traces.append(go.Heatmap(
            x=gx, y=gy, z=pred.reshape(shape), colorscale=DIVERGING, opacity=0.75,
            zmin=0 if classify else fit.y_range[0],
            zmax=1 if classify else fit.y_range[1],
            colorbar={"title": {"text": "P(y=1)" if classify else "prediction",
                                "side": "right"}},
            hovertemplate=hover + "<br>prediction=%{z:.3g}<extra></extra>"))
        if classify:
            for c in (0, 1):
                sel = y == c
                traces.append(go.Scatter(
                    x=X[sel, 0], y=X[sel, 1], mode="markers",
                    name=f"y = {_label(class_names, c)}",
                    marker={"color": PALETTE[0] if c == 0 else PALETTE[5], "size": 8,
                            "symbol": "circle" if c else "x",
                            "line": {"width": 1, "color": "white"}}))
        else:
            traces += _rows_drawn(X, y, names)
        title = f"Prediction surface{quantile} after round {r}"
    if fit.leaves is not None:
        # The round's tree partitions the plane into rectangles, one per leaf.
        z = fit.leaves.reshape(shape).astype(float)
        traces.append(go.Contour(
            x=gx, y=gy, z=z, contours={"coloring": "none", "start": z.min() + 0.5,
                                       "end": z.max(), "size": 1.0},
            line={"color": "#222", "width": 1.5}, showscale=False, hoverinfo="skip",
            name=f"tree {r}'s leaves", showlegend=True))
    # the colour bar takes the right: the legend goes under the plot, clear of the title
    return go.Figure(data=traces, layout=layout(
        title, large, height=520, xtitle=names[0], ytitle=names[1],
        legend=BELOW, margin={"b": 100}))


def _rows_drawn(X: np.ndarray, y: np.ndarray, names) -> list:
    """The rows over a regression's surface, coloured by y. Rows missing a feature have no
    place in the plane: the legend counts them and says their mean y beside the drawn
    rows' (by the rounding rule), a legend entry without points."""
    lost = np.isnan(X).any(axis=1)
    name = "data"
    if lost.any():
        name = f"data: {int((~lost).sum())} rows, mean y {short(np.mean(y[~lost]))}"
    traces = [go.Scatter(x=X[~lost, 0], y=X[~lost, 1], mode="markers", name=name,
                         marker={"color": y[~lost], "colorscale": DIVERGING, "size": 8,
                                 "line": {"width": 1, "color": "#333"}, "showscale": False})]
    if lost.any():
        which = " or ".join(n for n, gone in zip(names, np.isnan(X).any(axis=0), strict=True)
                            if gone)
        traces.append(go.Scatter(
            x=[None], y=[None], mode="markers", hoverinfo="skip",
            name=f"{int(lost.sum())} of {len(X)} rows without {which}, not drawn: mean y "
                 f"{short(np.mean(y[lost]))}",
            marker={"color": "rgba(0,0,0,0)", "size": 8, "line": {"width": 1.5,
                                                                   "color": "#333"}}))
    return traces


def _band_many(fit: Fit, large: bool) -> go.Figure:
    """Several quantiles, more than two features: each alpha's predictions against the
    actual y after round r (round r - 1's fainter), and the diagonal. Traces: (from round
    1) the k quantiles of round r - 1, the k of round r, the diagonal."""
    r, y, now, n = fit.round_idx, fit.y, fit.now, len(fit.rows)
    traces = []
    drawn = [y, now.ravel()]
    if r > 0:
        drawn.append(fit.before.ravel())
        for k, a in enumerate(fit.alphas):
            traces.append(scatter_type(n)(
                x=y, y=fit.before[:, k], mode="markers", showlegend=False,
                name=f"{alpha_text(a)}, after round {r - 1}",
                marker={"color": alpha_color(k), "size": 5, "opacity": 0.25}))
    for k, a in enumerate(fit.alphas):
        traces.append(scatter_type(n)(
            x=y, y=now[:, k], mode="markers", name=f"{alpha_text(a)}, after round {r}",
            marker={"color": alpha_color(k), "size": 6, "opacity": 0.75},
            hovertemplate="actual %{x:.4g}<br>predicted %{y:.4g}<extra>"
                          f"{alpha_text(a)}</extra>"))
    traces.append(_diagonal(drawn, "y = prediction"))
    return go.Figure(data=traces, layout=layout(
        f"Quantiles against actual after round {r}", large, xtitle="actual",
        ytitle="predicted quantile", legend=BELOW, margin={"b": 100}))


def _diagonal(drawn, name: str) -> go.Scatter:
    """y = x across what is drawn (a row left out of the sample does not widen it)."""
    lo = float(min(np.min(v) for v in drawn))
    hi = float(max(np.max(v) for v in drawn))
    return go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name=name,
                      line={"color": "#333", "dash": "dot"}, hoverinfo="skip")


def _fit_many(fit: Fit, class_names, large: bool) -> go.Figure:
    r, y, now, n = fit.round_idx, fit.y, fit.now, len(fit.rows)
    traces = []
    if _task(fit) == "regression" and now.ndim == 2:
        return _band_many(fit, large)
    if _task(fit) == "regression":
        drawn = [y, now]
        if r > 0:
            drawn.append(fit.before)
            traces.append(scatter_type(n)(
                x=y, y=drawn[-1], mode="markers", name=f"after round {r - 1}",
                marker={"color": PREVIOUS, "size": 6, "opacity": 0.4}))
        traces.append(scatter_type(n)(
            x=y, y=now, mode="markers", name=f"after round {r}",
            marker={"color": CURRENT, "size": 7, "opacity": 0.75},
            hovertemplate="actual %{x:.4g}<br>predicted %{y:.4g}<extra></extra>"))
        traces.append(_diagonal(drawn, "perfect"))
        return go.Figure(data=traces, layout=layout(
            f"Predicted against actual after round {r}", large, xtitle="actual",
            ytitle="predicted", legend=BELOW, margin={"b": 100}))
    if _task(fit) == "ranking":
        return _fit_ranking(fit, large)
    proba = now if now.ndim == 2 else np.c_[1 - now, now]
    true_p = proba[np.arange(n), y.astype(int)]
    for c in range(proba.shape[1]):
        sel = y == c
        color = PALETTE[c % len(PALETTE)]
        traces.append(go.Box(y=true_p[sel], name=_label(class_names, c), boxpoints="all",
                             jitter=0.4, pointpos=0, marker={"color": color, "size": 5},
                             line={"color": color}))
    return go.Figure(data=traces, layout=layout(
        f"Probability given to the true class after round {r}", large, xtitle="true class",
        ytitle="P(true class)", yaxis={"range": [0, 1]}, showlegend=False))


def _fit_ranking(fit: Fit, large: bool) -> go.Figure:
    """A ranking model's scores by relevance degree: a good ranker scores the more relevant
    documents higher (only the order within a query counts, so the boxes overlap)."""
    r, y, now = fit.round_idx, fit.y, fit.now
    traces = []
    for k, grade in enumerate(np.unique(y)):
        sel = y == grade
        color = PALETTE[k % len(PALETTE)]
        traces.append(go.Box(y=now[sel], name=f"relevance {short(grade)}", boxpoints="all",
                             jitter=0.4, pointpos=0, marker={"color": color, "size": 5},
                             line={"color": color}))
    return go.Figure(data=traces, layout=layout(
        f"Scores by relevance after round {r}", large, xtitle="relevance",
        ytitle="score (margin)", showlegend=False))
