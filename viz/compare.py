"""Several models of the same data side by side (the current one and its pins): loss curves
overlaid, fits overlaid, leaves and Σ|leaf value| per round, and two trees with what differs
marked (``viz.tree_diff``).

Every figure takes its models as an ordered ``{name: ...}`` dict and their colours as
``{name: colour}``, so one model keeps its colour on every chart even when another model is
missing from one of them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from boost import objectives
from boost.trace.fit import Curve, Predictions

from .theme import PALETTE, layout, loss_title, round_marker, sample_rows, scatter_type
from .tree_diff import KINDS, Mark

# The current model, then pin 1..4: Okabe & Ito's blue, orange, green, purple, vermillion.
MODEL_COLORS = (PALETTE[0], PALETTE[1], PALETTE[2], PALETTE[3], PALETTE[5])
# The rings that mark a tree's differences (the tree draws splits blue, leaves green).
MARK_COLORS = {"split": PALETTE[5], "branch": PALETTE[3], "leaf": PALETTE[1]}
OVERLAY_ROWS = 600  # rows per model on a predicted-against-actual overlay


def swatch(color: str) -> str:
    """A coloured square for a title: which model a chart shows."""
    return f"<span style='color:{color}'>■</span>"


def _legend_below() -> dict:
    return {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "x": 0,
            "xanchor": "left"}


def make_loss_overlay_figure(histories: dict[str, pd.DataFrame], colors: dict[str, str],
                             round_idx: int, metric: str, large: bool = False) -> go.Figure:
    """Every model's loss by round (``Booster.loss_history()``): validation solid, train
    dashed, one colour per model, the current round marked. The first model (the current
    one) is drawn over the others, so it stays in sight where a pin's curves are the same;
    the legend keeps the given order."""
    traces = []
    for rank, (name, history) in reversed(list(enumerate(histories.items()))):
        color = colors[name]
        shown = False
        for column, dash in (("valid", "solid"), ("train", "dash")):
            if column not in history.columns:
                continue
            traces.append(go.Scatter(
                x=history.index.to_numpy(), y=history[column].to_numpy(), mode="lines",
                name=name, legendgroup=name, showlegend=not shown, legendrank=rank + 1,
                line={"color": color, "dash": dash, "width": 3 if dash == "solid" else 2},
                hovertemplate=f"{name}, round %{{x}}<br>{column} {metric} = %{{y:.5g}}"
                              "<extra></extra>"))
            shown = True
    valid = any("valid" in h.columns for h in histories.values())  # (say only what is drawn)
    return go.Figure(data=traces, layout=layout(
        f"{loss_title(metric)}: " + ("validation solid, train dashed" if valid else
                                "training rows"), large, height=400,
        xtitle="round (0 = baseline)", ytitle=metric, shapes=[round_marker(round_idx)],
        legend=_legend_below(), margin={"b": 90}))


def leaf_summary(trees: pd.DataFrame) -> pd.DataFrame:
    """Per round (every class together): the final trees' leaves and Σ|leaf value| (η·w),
    from ``trees_to_dataframe(include_pruned=True)``."""
    kept = trees[trees.Leaf & ~trees.Pruned]
    value = np.abs(kept.Value.to_numpy(dtype=float))
    out = pd.DataFrame({"Round": kept.Round.to_numpy(), "abs_value": value}).groupby(
        "Round").abs_value.agg(["size", "sum"]).rename(columns={"size": "leaves",
                                                                "sum": "abs_value"})
    return out.reindex(range(1, int(trees.Round.max()) + 1), fill_value=0)


def make_leaves_figure(summaries: dict[str, pd.DataFrame], colors: dict[str, str],
                       round_idx: int, large: bool = False) -> go.Figure:
    """Two panels: the leaves of each round's tree(s), and their Σ|η·w| (how far the round
    moves the predictions), one line per model."""
    traces = []
    for name, summary in summaries.items():
        rounds = summary.index.to_numpy()
        for column, axis, what in (("leaves", "", "leaves"), ("abs_value", "2", "Σ|η·w|")):
            traces.append(go.Scatter(
                x=rounds, y=summary[column].to_numpy(), mode="lines+markers", name=name,
                legendgroup=name, showlegend=axis == "", xaxis="x" + axis, yaxis="y" + axis,
                line={"color": colors[name], "width": 2.5}, marker={"size": 5},
                hovertemplate=f"{name}, round %{{x}}<br>{what} = %{{y:.5g}}<extra></extra>"))
    axis = {"gridcolor": "#E5E5E5", "zerolinecolor": "#BDBDBD", "automargin": True}
    marker = round_marker(round_idx)
    heads = [{"text": text, "x": x, "xref": "paper", "y": 1.0, "yref": "paper",
              "yanchor": "bottom", "xanchor": "left", "showarrow": False}
             for text, x in (("leaves per round", 0.0), ("Σ|leaf value η·w| per round", 0.56))]
    return go.Figure(data=traces, layout=layout(
        "The trees' size and step", large, height=380, legend=_legend_below(),
        margin={"b": 90, "t": 80},
        xaxis={"domain": [0.0, 0.44], "title": {"text": "round"}},
        yaxis={"rangemode": "tozero"},
        xaxis2={**axis, "domain": [0.56, 1.0], "anchor": "y2", "title": {"text": "round"}},
        yaxis2={**axis, "anchor": "x2", "rangemode": "tozero"},
        shapes=[marker, {**marker, "xref": "x2"}], annotations=heads))


def make_fit_overlay_figure(curves: dict[str, Curve], colors: dict[str, str],
                            X: np.ndarray, y: np.ndarray, round_idx: int, feature: str,
                            large: bool = False) -> go.Figure:
    """One-feature data: each model's prediction after ``round_idx`` rounds (or its last)
    as a line over the data (``booster.trace.curve``)."""
    x = np.asarray(X, dtype=float)[:, 0]
    rows = sample_rows(len(x))
    traces = [scatter_type(len(rows))(
        x=x[rows], y=np.asarray(y)[rows], mode="markers", name="data",
        marker={"color": "#8C8C8C", "size": 7, "opacity": 0.5}, hoverinfo="skip")]
    what = "P(y = 1)" if objectives.spec(next(iter(curves.values())).objective).task \
        == "binary" else "prediction"
    for name, c in curves.items():
        traces.append(go.Scatter(
            x=c.x, y=c.prediction, mode="lines", name=name,
            line={"color": colors[name], "width": 3, "shape": "hv"},
            hovertemplate=f"{feature}=%{{x:.4g}}<br>{what}=%{{y:.4g}}<extra>{name}, round "
                          f"{c.round_idx}</extra>"))
    return go.Figure(data=traces, layout=layout(
        f"Each model's fit after round {round_idx}", large, height=400, xtitle=feature,
        ytitle=what if what != "prediction" else "y", legend=_legend_below(),
        margin={"b": 90}))


def overlay_rows(n: int) -> np.ndarray:
    """The rows (of ``n``) a predicted-against-actual overlay draws: OVERLAY_ROWS at most,
    the same for every model, in order."""
    return np.sort(np.random.default_rng(0).choice(n, min(n, OVERLAY_ROWS), replace=False))


def make_prediction_overlay_figure(predictions: dict[str, Predictions], colors: dict[str, str],
                                   y: np.ndarray, round_idx: int,
                                   large: bool = False) -> go.Figure:
    """More than one feature: on the rows given (``overlay_rows`` of the validation set:
    their labels ``y``, each model's ``booster.trace.predictions``), regression's predicted
    against actual, one colour per model; classification's probability of the true class,
    one box per model."""
    y = np.asarray(y)
    n = len(y)
    task = objectives.spec(next(iter(predictions.values())).objective).task
    traces = []
    for name, p in predictions.items():
        pred = p.prediction
        if task == "regression":
            traces.append(scatter_type(n * len(predictions))(
                x=y, y=pred, mode="markers", name=name,
                marker={"color": colors[name], "size": 6, "opacity": 0.6},
                hovertemplate=f"actual %{{x:.4g}}<br>predicted %{{y:.4g}}<extra>{name}"
                              "</extra>"))
            continue
        proba = pred if pred.ndim == 2 else np.c_[1 - pred, pred]
        true_p = proba[np.arange(n), y.astype(int)]
        traces.append(go.Box(y=true_p, name=name, marker={"color": colors[name], "size": 4},
                             line={"color": colors[name]}, boxpoints="outliers"))
    if task == "regression":
        lo, hi = float(np.min(y)), float(np.max(y))
        traces.append(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="perfect",
                                 line={"color": "#333", "dash": "dot"}, hoverinfo="skip"))
        return go.Figure(data=traces, layout=layout(
            f"Validation rows: predicted against actual after round {round_idx}", large,
            height=400, xtitle="actual", ytitle="predicted", legend=_legend_below(),
            margin={"b": 90}))
    return go.Figure(data=traces, layout=layout(
        f"Validation rows: probability of the true class after round {round_idx}", large,
        height=400, ytitle="P(true class)", yaxis={"range": [0, 1]}, showlegend=False))


def mark_differences(fig: go.Figure, marks: dict[int, Mark], large: bool = False) -> go.Figure:
    """The tree ``fig`` (``viz.tree.make_tree_figure``) with a coloured ring around every
    node in ``marks`` (one legend entry per kind; the hover says what differs) and the
    legend moved under the tree; ``fig`` itself is changed and returned. Nodes hidden in a
    collapsed subtree get no ring."""
    where: dict[int, tuple[float, float]] = {}
    size = 20.0
    for trace in fig.data:
        if trace.mode == "markers" and trace.customdata is not None:
            for node, x, y in zip(trace.customdata, trace.x, trace.y, strict=True):
                where[int(node)] = (x, y)
            size = float(np.max(trace.marker.size))
    rings = []
    for kind, label in KINDS.items():
        shown = [m for m in marks.values() if m.kind == kind and m.node in where]
        if not shown:
            continue
        rings.append(go.Scatter(
            x=[where[m.node][0] for m in shown], y=[where[m.node][1] for m in shown],
            mode="markers", name=label, hovertext=[m.text for m in shown], cliponaxis=False,
            hovertemplate="%{hovertext}<extra></extra>",
            marker={"symbol": "circle-open", "size": size + 14, "color": MARK_COLORS[kind],
                    "line": {"width": 4 if large else 3, "color": MARK_COLORS[kind]}}))
    out = fig.add_traces(rings)  # fig is the caller's fresh figure: no copy (tens of ms)
    # The legend leaves the top for two rows under the tree; the plot area keeps its height
    # in pixels (the tree's y axis is in pixels).
    extra = 64 if large else 54
    top = fig.layout.margin.t or 0
    drop = top - max(48, top - 40)
    out.layout.height = fig.layout.height + extra - drop
    out.layout.margin.b = (fig.layout.margin.b or 0) + extra
    out.layout.margin.t = top - drop
    out.layout.legend.update(_legend_below())
    return out
