"""What one round did to every row: residuals (or gradients) before and after its tree, and
one row's prediction built up tree by tree (a waterfall from base_score)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from boost import RoundView, objectives
from boost.trace.arithmetic import ALL_ROWS
from boost.trace.figures import Waterfall

from .theme import CURRENT, PALETTE, PREVIOUS, layout, sample_rows, scatter_type, short


def make_residual_figure(before: RoundView, after: RoundView, objective: str,
                         class_idx: int = 0, large: bool = False,
                         used: np.ndarray | None = None) -> go.Figure:
    """Each row's residual y - prediction (regression) or gradient g (classification)
    before round r's tree (x) and after it (y). On the diagonal the round changed nothing; on
    the zero line it removed the whole residual. ``used``: the rows the tree was grown on
    (subsample); the others are drawn hollow."""
    r = after.round_idx
    n = before.margin.shape[0]
    rows = sample_rows(n)
    if objectives.spec(objective).task == "regression":
        x, y = before.residual[rows], after.residual[rows]
        what = "residual y − ŷ"
    else:
        x, y = before.grad[rows, class_idx], after.grad[rows, class_idx]
        what = "gradient g" + (f" (class {class_idx})" if before.grad.shape[1] > 1 else "")
    hess = before.hess[rows, class_idx]
    removed = 1.0 - np.abs(y).sum() / max(np.abs(x).sum(), 1e-300)
    lo = float(min(x.min(), y.min(), 0.0))
    hi = float(max(x.max(), y.max(), 0.0))
    scatter = scatter_type(len(rows))
    traces = [
        go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="unchanged (y = x)",
                   line={"color": PREVIOUS, "dash": "dot"}, hoverinfo="skip"),
        go.Scatter(x=[lo, hi], y=[0, 0], mode="lines", name="fully removed",
                   line={"color": PALETTE[2], "dash": "dash"}, hoverinfo="skip"),
    ]
    in_tree = np.ones(len(rows), dtype=bool) if used is None else used[rows]
    hover = (f"row %{{customdata[0]}}<br>before round {r}: %{{x:.5g}}<br>"
             f"after: %{{y:.5g}}<br>h = %{{customdata[1]:.4g}}")
    for keep, name, marker in (
            (in_tree, "rows" if used is None else "rows the tree was grown on",
             {"color": CURRENT, "size": 8, "opacity": 0.7}),
            (~in_tree, "rows left out (subsample)",
             {"color": "rgba(0,0,0,0)", "size": 8, "line": {"color": PREVIOUS, "width": 1.5}})):
        if keep.any():
            # a handful of rows (as the worked arithmetic lists them all): each says its
            # residual after the round, as the lesson's text and the tree write numbers
            few = len(rows) <= ALL_ROWS
            traces.append(scatter(x=x[keep], y=y[keep], mode="markers+text" if few else "markers",
                                  name=name, marker=marker,
                                  text=[short(v) for v in y[keep]] if few else None,
                                  textposition="top center", cliponaxis=False,
                                  customdata=np.c_[rows[keep], hess[keep]],
                                  hovertemplate=hover + "<extra></extra>"))
    return go.Figure(data=traces, layout=layout(
        f"Round {r} removed {removed:.1%} of the total |{what.split(' ')[0]}|", large,
        xtitle=f"{what} before round {r}", ytitle=f"after round {r}", height=470,
        # below the plot: four entries on top would wrap over the title
        legend={"orientation": "h", "yanchor": "top", "y": -0.2, "xanchor": "left", "x": 0},
        margin={"b": 110}))


def make_waterfall_figure(w: Waterfall, label: str = "row",
                          large: bool = False) -> go.Figure:
    """One row's margin from base_score through every tree's contribution (rounds 1..r),
    from its ``Waterfall`` record (``booster.trace.waterfall``); for classification the
    final log-odds is also given as a probability."""
    contrib, base, total, round_idx = w.contrib, w.base, w.margin, w.round_idx
    names = ["base_score"] + [f"tree {k}" for k in range(1, len(contrib) + 1)] + ["margin"]
    values = [base] + contrib.astype(float).tolist() + [total]
    measure = ["absolute"] + ["relative"] * len(contrib) + ["total"]
    title = f"{label.capitalize()}: base_score + each tree, rounds 1–{round_idx}"
    o = objectives.spec(w.objective)
    if o.task == "binary":
        title += f"<br><sup>margin {total:.4g} → P(y = 1) = {w.probability:.4g}</sup>"
    elif o.task == "multiclass":
        title += f"<br><sup>class {w.class_idx} log-odds {total:.4g}</sup>"
    elif o.link == "exp":
        title += f"<br><sup>log-mean {total:.4g} → mean = e^m = {np.exp(total):.4g}</sup>"
    fig = go.Figure(data=[go.Waterfall(
        x=names, y=values, measure=measure, connector={"line": {"color": "#BBB"}},
        increasing={"marker": {"color": PALETTE[0]}},
        decreasing={"marker": {"color": PALETTE[5]}},
        totals={"marker": {"color": "#555"}},
        hovertemplate="%{x}: %{y:.5g}<extra></extra>")],
        layout=layout(title, large, height=380, ytitle="margin",
                      xaxis={"tickangle": -45 if len(names) > 12 else 0}))
    return fig
