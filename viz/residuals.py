"""What one round did to every row: residuals (or gradients) before and after its tree, and
one row's prediction built up tree by tree (a waterfall from base_score)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from boost import Booster, RoundView

from .theme import CURRENT, PALETTE, PREVIOUS, layout, sample_rows, scatter_type


def make_residual_figure(before: RoundView, after: RoundView, objective: str,
                         class_idx: int = 0, large: bool = False) -> go.Figure:
    """Each row's residual y - prediction (regression) or gradient g = p - y (classification)
    before round r's tree (x) and after it (y). On the diagonal the round changed nothing; on
    the zero line it removed the whole residual."""
    r = after.round_idx
    n = before.margin.shape[0]
    rows = sample_rows(n)
    if objective == "reg:squarederror":
        x, y = before.residual[rows], after.residual[rows]
        what = "residual y − ŷ"
    else:
        x, y = before.grad[rows, class_idx], after.grad[rows, class_idx]
        what = "gradient g = p − y" + (f" (class {class_idx})" if before.grad.shape[1] > 1
                                       else "")
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
        scatter(x=x, y=y, mode="markers", name="rows", marker={"color": CURRENT, "size": 8,
                                                               "opacity": 0.7},
                customdata=np.c_[rows, hess],
                hovertemplate=(f"row %{{customdata[0]}}<br>before round {r}: %{{x:.5g}}<br>"
                               f"after: %{{y:.5g}}<br>h = %{{customdata[1]:.4g}}"
                               "<extra></extra>")),
    ]
    return go.Figure(data=traces, layout=layout(
        f"Round {r} removed {removed:.1%} of the total |{what.split(' ')[0]}|", large,
        xtitle=f"{what} before round {r}", ytitle=f"after round {r}"))


def make_waterfall_figure(booster: Booster, x_row: np.ndarray, round_idx: int,
                          class_idx: int = 0, label: str = "row",
                          large: bool = False) -> go.Figure:
    """One row's margin from base_score through every tree's contribution (rounds 1..r);
    for classification the final log-odds is also given as a probability."""
    contrib = booster.tree_outputs(np.asarray(x_row, dtype=float).reshape(1, -1), round_idx)[0]
    groups = booster.num_groups
    contrib = contrib[class_idx::groups]
    base = float(booster.base_margin[class_idx])
    total = base + float(np.sum(contrib.astype(np.float64)))
    names = ["base_score"] + [f"tree {k}" for k in range(1, len(contrib) + 1)] + ["margin"]
    values = [base] + contrib.astype(float).tolist() + [total]
    measure = ["absolute"] + ["relative"] * len(contrib) + ["total"]
    title = f"{label.capitalize()}: base_score + each tree, rounds 1–{round_idx}"
    if booster.objective == "binary:logistic":
        title += f"<br><sup>log-odds {total:.4g} → p = {1 / (1 + np.exp(-total)):.4g}</sup>"
    elif booster.objective == "multi:softprob":
        title += f"<br><sup>class {class_idx} log-odds {total:.4g}</sup>"
    fig = go.Figure(data=[go.Waterfall(
        x=names, y=values, measure=measure, connector={"line": {"color": "#BBB"}},
        increasing={"marker": {"color": PALETTE[0]}},
        decreasing={"marker": {"color": PALETTE[5]}},
        totals={"marker": {"color": "#555"}},
        hovertemplate="%{x}: %{y:.5g}<extra></extra>")],
        layout=layout(title, large, height=380, ytitle="margin",
                      xaxis={"tickangle": -45 if len(names) > 12 else 0}))
    return fig
