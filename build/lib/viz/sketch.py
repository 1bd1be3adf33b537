"""hist's cut points against exact's candidate thresholds, for one feature.

The training values are a rug (marker size: the weight each row carries, e.g. the hessian
h); above them the share of the total weight below each value climbs from 0 to 1. exact
tries a threshold between every two neighbouring distinct values (thin ticks); hist cuts the
feature at quantiles of that weight (tall lines): the cuts sit at about equal steps of the
climbing curve, denser where the weight is.

The numbers are the model's ``SketchData`` record (``booster.trace.sketch``).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .theme import PALETTE, layout, sample_rows, short

VALUES = PALETTE[0]
EXACT = "#9A9A9A"
CUTS = PALETTE[5]
CURVE = PALETTE[2]
MAX_TICKS = 1500  # exact's thresholds drawn at most (every k-th beyond); counts stay exact
RUG = -0.12  # the rug's height under the curve
TICK = (-0.3, -0.22)  # exact's thresholds, below the rug


def _vlines(xs: np.ndarray, y0: float, y1: float) -> tuple[list, list]:
    """Vertical segments at ``xs`` as one trace's x, y (None between segments)."""
    x = np.repeat(np.asarray(xs, dtype=float), 3).astype(object)
    y = np.tile(np.array([y0, y1, None], dtype=object), len(xs))
    x[2::3] = None
    return list(x), list(y)


def _thin(xs: np.ndarray) -> np.ndarray:
    step = max(1, int(np.ceil(len(xs) / MAX_TICKS)))
    return xs[::step]


def _rug_and_curve(values: np.ndarray, weight: np.ndarray | None, size_by: np.ndarray | None,
                   large: bool) -> list:
    rows = sample_rows(len(values))
    v = np.asarray(values, dtype=float)[rows]
    present = ~np.isnan(v)
    v = v[present]
    w = np.ones_like(v) if weight is None else np.asarray(weight, dtype=float)[rows][present]
    order = np.argsort(v, kind="stable")
    share = np.cumsum(w[order]) / max(float(w.sum()), 1e-300)
    name, sizes, custom = f"training values ({short(len(values))})", 8 if large else 6, None
    hover = "x = %{x:.6g}<extra></extra>"
    if size_by is not None:
        s = np.asarray(size_by, dtype=float)[rows][present]
        lo, hi = (float(s.min()), float(s.max())) if len(s) else (0.0, 0.0)
        hover, custom = "x = %{x:.6g}<br>h = %{customdata:.4g}<extra></extra>", s
        if hi > lo * 1.001:  # from lo (small) to hi (large): the range is in the legend
            sizes = list(4 + 14 * (s - lo) / (hi - lo))
            name = (f"training values ({short(len(values))}; size: h from {short(lo)} to "
                    f"{short(hi)})")
    jitter = np.random.default_rng(0).uniform(-0.03, 0.03, len(v))
    return [
        go.Scatter(x=v[order], y=share, mode="lines", line={"color": CURVE, "width": 2,
                                                            "shape": "hv"},
                   name="share of weight below x",
                   hovertemplate="x = %{x:.6g}: %{y:.3f} of the weight<extra></extra>"),
        go.Scatter(x=v, y=RUG + jitter, mode="markers", name=name,
                   marker={"size": sizes, "color": VALUES, "opacity": 0.5}, customdata=custom,
                   hovertemplate=hover),
    ]


def make_sketch_figure(values: np.ndarray, thresholds: np.ndarray, cuts: np.ndarray,
                       feature: str, large: bool = False, weight: np.ndarray | None = None,
                       size_by: np.ndarray | None = None, title: str = "",
                       method: str = "hist", hist_cuts: np.ndarray | None = None,
                       max_bin: int | None = None) -> go.Figure:
    """One feature: the values (rug; marker size ``size_by``), the share of ``weight`` below
    each value, exact's ``thresholds`` as short ticks and hist's ``cuts`` (without the
    sentinel) as tall lines (``method``: whose cuts, for the legend with ``max_bin``), the
    largest one named; the legend counts the rows;
    ``hist_cuts`` (approx: hist's cuts of the same values) adds hist's largest cut, dashed,
    named too. Rows are sampled for drawing (viz.theme.sample_rows)."""
    ex, ey = _vlines(_thin(np.asarray(thresholds)), *TICK)
    cx, cy = _vlines(np.asarray(cuts), TICK[0], 1.0)
    traces = [
        go.Scatter(x=cx, y=cy, mode="lines", name=f"{method}'s cut points ({len(cuts)}"
                   + (f"; max_bin {max_bin})" if max_bin else ")"),
                   line={"color": CUTS, "width": 1.5}, opacity=0.8,
                   hovertemplate="cut %{x:.6g}<extra></extra>"),
        go.Scatter(x=ex, y=ey, mode="lines",
                   name=f"exact's thresholds ({len(thresholds)})",
                   line={"color": EXACT, "width": 1}, hoverinfo="skip"),
        *_rug_and_curve(values, weight, size_by, large),
    ]
    notes = []  # the largest cut of each method, named (a lesson compares them)
    for who, xs, dash, anchor in ((method, cuts, "solid", "left"),
                                  ("hist", hist_cuts, "dash", "right")):
        if xs is None or not len(xs):
            continue
        top = float(np.max(xs))
        notes.append({"x": top, "y": 1.0, "xref": "x", "yref": "y", "yanchor": "bottom",
                      "xanchor": anchor, "showarrow": False, "font": {"color": CUTS},
                      "text": f"{who}'s largest cut {short(top)}"})
        if dash == "dash":
            traces.append(go.Scatter(x=[top, top], y=[TICK[0], 1.0], mode="lines",
                                     name=f"hist's largest cut ({short(top)})",
                                     line={"color": CUTS, "width": 2, "dash": "dash"},
                                     hovertemplate="hist's largest cut %{x:.6g}<extra></extra>"))
    return go.Figure(data=traces, layout=layout(
        title or f"{feature}: candidate thresholds", large, height=460,
        xtitle=feature,
        ytitle="share of weight below x",
        yaxis={"range": [-0.34, 1.04], "tickvals": [0, 0.25, 0.5, 0.75, 1.0],
               "zeroline": False},
        # at the figure's foot, whatever its height (under the plot, at a share of the
        # plot's height, a taller panel pushed its second row out of the figure)
        legend={"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0.0,
                "xanchor": "left", "x": 0.0},
        margin={"b": 170 if large else 105}, hovermode="closest", annotations=notes))


def counts_line(n_thresholds: int, n_cuts: int, max_bin: int, method: str = "hist") -> str:
    return (f"exact: {n_thresholds:,} candidate thresholds, {method}: {n_cuts:,} cut points "
            f"(max_bin {max_bin})")

