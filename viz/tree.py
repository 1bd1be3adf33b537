"""The tree of one round, drawn: every grown node with its numbers, pruned branches as ghosts.

Input is ``Booster.trees_to_dataframe(include_pruned=True)`` restricted to one tree. Nodes are
markers (squares for splits, circles for leaves) carrying their node id in ``customdata``, so
a click selects a node; edges and labels ignore the mouse.
Nodes that pruning removed stay in place as dashed grey ghosts, with the gain that γ cut.
Every node has a label; ``viz.tree_layout`` shortens and staggers them to fit the width, and
the hover text keeps the full numbers. Subtrees can be collapsed (``collapsed``).
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from boost.trace.node_record import refused

from .theme import CURRENT, PALETTE, layout, short, signs, threshold
from .tree_layout import Plan, label_font, plan_tree, slot_positions

SPLIT = PALETTE[0]
LEAF = PALETTE[2]
GHOST = "#767676"  # pruned nodes, refused stubs: 4.5:1 on white
GHOST_TEXT = "#595959"  # their labels: 7:1 on white
TEXT = "#222222"
EDGE = "#888"
EDGE_TEXT = "#555555"
PRUNED = "#E3E3E3"  # a pruned node's fill
# The tree's colours by role, for the page's player too (its round trace carries them)
STYLE = {"split": SPLIT, "leaf": LEAF, "pruned": PRUNED, "ghost": GHOST, "ghost_text": GHOST_TEXT,
         "text": TEXT, "edge": EDGE, "edge_text": EDGE_TEXT, "current": CURRENT}
HALO = "1px 1px 1px #fff, -1px -1px 1px #fff, 1px -1px 1px #fff, -1px 1px 1px #fff"
# px: the tree view's chart in a 1280 px window with the sidebar open (1200 without it, 1460
# at 1920 px); the chart stretches to its column, so labels laid out for 820 px fit wider.
WIDTH = 820


def tree_positions(tree: pd.DataFrame) -> dict[int, tuple[float, float]]:
    """x: leaves evenly spaced left to right in-order, a split centred over its children;
    y: minus the depth."""
    return slot_positions(tree)


def _hover(row, gamma: float, missing_features=None) -> str:
    n = short
    lines = [f"<b>node {int(row.Node)}</b> (depth {int(row.Depth)})",
             f"G = {n(row.SumGrad)}, H (cover) = {n(row.SumHess)}",
             f"similarity = G²/(H+λ) = {n(row.Similarity)}",
             f"w = −G/(H+λ) = {n(row.Weight)}, η·w = {n(row.Value)}"]
    if row.Feature != "Leaf":
        missing = ""
        if not pd.isna(row.Yes) and (missing_features is None
                                    or row.Feature in missing_features):
            missing = f" (missing → {'yes' if row.Missing == row.Yes else 'no'})"
        lines.insert(1, f"split: {row.Feature} < {threshold(row.Split, 6)}{missing}")
        lines.append(f"gain = {n(row.Gain)}, gain − γ = {n(row.Gain - gamma)}")
    if row.Pruned:
        lines.append("<b>removed by pruning</b>: an ancestor's gain < γ")
    elif row.Feature != "Leaf" and pd.isna(row.Yes):
        lines.append("<b>split refused</b>: gain < γ, so hist never grew it")
    elif row.Reason:
        lines.append(f"leaf because: {row.Reason}")
    return signs("<br>".join(lines))


def make_tree_figure(tree: pd.DataFrame, gamma: float = 0.0, selected: int | None = None,
                     title: str = "", large: bool = False, path: list[int] | None = None,
                     width: int = WIDTH, collapsed=frozenset(),
                     missing_features: set[str] | None = None) -> go.Figure:
    """Draw one grown tree (rows of a single Tree from trees_to_dataframe(include_pruned=True)).

    A node that pruning turned into a leaf is drawn as a leaf (its former split and gain in
    its label) with its removed subtree as ghosts below it; a hist/approx leaf whose split
    gamma refused gets two dashed stubs. ``path`` (node ids, root first, e.g.
    Booster.decision_path) is drawn as a thick line: one row's way down the tree. The labels
    fit ``width`` px; ``collapsed`` node ids hide their subtrees ("+ N hidden");
    ``missing_features`` (None: every feature) are the features whose missing values' way
    is worth naming.
    """
    if tree.Tree.nunique() != 1:
        raise ValueError("make_tree_figure draws one tree: filter the frame to one Tree.")
    plan = plan_tree(tree, gamma, width, large, frozenset(collapsed), missing_features)
    traces = _edge_traces(plan)
    traces += _refused_traces(plan, large)
    if path:
        traces.append(_path_trace(plan, path))
    traces += _node_traces(plan, gamma, missing_features)
    traces += _label_traces(plan, large)
    if selected is not None and selected in plan.y:
        traces.append(go.Scatter(x=[plan.x[selected]], y=[plan.y[selected]], mode="markers",
                                 name="selected", showlegend=False, hoverinfo="skip",
                                 marker={"size": plan.marker + 8,
                                         "color": "rgba(0,0,0,0)",
                                         "line": {"width": 2.5, "color": CURRENT}}))
    fig_layout = layout(
        title, large, width=width, margin=plan.margin,
        xaxis={"visible": False, "showgrid": False, "range": list(plan.x_range),
               "fixedrange": False},
        yaxis={"visible": False, "showgrid": False, "range": list(plan.y_range)},
        shapes=_ghost_outlines(plan),
        legend={"x": 0.0, "xanchor": "left", "y": 1.0, "yanchor": "bottom",
                "font": {"size": label_font(large) + 2},
                "itemclick": False, "itemdoubleclick": False,
                "itemsizing": "constant"},
        dragmode="pan", clickmode="event+select", hovermode="closest")
    fig_layout["height"] = plan.height  # exact: the y axis is in pixels
    fig_layout["title"].update(y=1.0, yref="container", yanchor="top", pad={"t": 10})
    return go.Figure(data=traces, layout=fig_layout)


def _path_trace(plan: Plan, path: list[int]) -> go.Scatter:
    """One row's way down: each edge it takes, from below the parent's label to the child."""
    shown = [n for n in path if n in plan.y]  # nodes in a collapsed subtree are hidden
    xs, ys = [], []
    for parent, child in zip(shown, shown[1:], strict=False):
        xs += [plan.x[parent], plan.x[child], None]
        ys += [plan.leave_y[parent], plan.y[child], None]
    return go.Scatter(x=xs, y=ys, mode="lines", name="the row's path", hoverinfo="skip",
                      line={"color": CURRENT, "width": 6}, opacity=0.5)


def _edge_traces(plan: Plan) -> list:
    """The edges, from below the parent's label to the child's marker (pruned ones dotted)."""
    edge_x, edge_y, ghost_x, ghost_y = [], [], [], []
    r = plan.marker / 2
    f = plan.frame
    for node, parent, pruned in zip(f.Node.astype(int), f.Parent.astype(int), f.Pruned,
                                    strict=True):
        if parent < 0:
            continue
        xs, ys = (ghost_x, ghost_y) if pruned else (edge_x, edge_y)
        xs += [plan.x[parent], plan.x[node], None]
        ys += [plan.leave_y[parent], plan.y[node] + r, None]
    return [
        go.Scatter(x=edge_x, y=edge_y, mode="lines", line={"color": EDGE, "width": 2},
                   hoverinfo="skip", showlegend=False, name=""),
        go.Scatter(x=ghost_x, y=ghost_y, mode="lines",
                   line={"color": GHOST, "width": 1.5, "dash": "dot"}, hoverinfo="skip",
                   showlegend=False, name=""),
    ]


def _label_traces(plan: Plan, large: bool) -> list:
    """The edges' labels and every node's label (ghosts in dark grey), not clickable."""
    font = label_font(large)
    nodes = list(plan.label)
    ghost = set(plan.frame.Node[plan.frame.Pruned].astype(int))
    traces = []
    if plan.edge_labels:
        xs, ys, texts = zip(*plan.edge_labels, strict=True)
        traces.append(go.Scatter(x=xs, y=ys, mode="text", text=texts, name="edge labels",
                                 hoverinfo="skip", showlegend=False, cliponaxis=False,
                                 textfont={"size": font, "color": EDGE_TEXT,
                                           "shadow": HALO}))
    traces.append(go.Scatter(
        x=[plan.label[n][0] for n in nodes], y=[plan.label[n][1] for n in nodes],
        text=[plan.label[n][2] for n in nodes], customdata=nodes, mode="text",
        name="node labels", hoverinfo="skip", showlegend=False, cliponaxis=False,
        textposition="middle center",
        textfont={"size": font, "shadow": HALO,
                  "color": [GHOST_TEXT if n in ghost else TEXT for n in nodes]}))
    return traces


def _refused_traces(plan: Plan, large: bool) -> list:
    """hist/approx: each split gamma refused before growing it, as two dashed stubs with a
    cross below the leaf's label (the label says ``gain … < γ …``)."""
    f = plan.frame
    declined = f[refused(f)].Node.astype(int)
    stub_x, stub_y, tip_x, tip_y = [], [], [], []
    dx = min(0.3, 18 / plan.slot_px)
    for node in declined:
        x0, y0 = plan.x[node], plan.leave_y[node]
        for side in (-dx, dx):
            stub_x += [x0, x0 + side, None]
            stub_y += [y0, y0 - 22, None]
            tip_x.append(x0 + side)
            tip_y.append(y0 - 22)
    if not tip_x:
        return []
    return [go.Scatter(x=stub_x, y=stub_y, mode="lines", hoverinfo="skip", showlegend=False,
                       line={"color": GHOST, "width": 1.5, "dash": "dot"}, name=""),
            go.Scatter(x=tip_x, y=tip_y, mode="markers", name="refused by γ",
                       hoverinfo="skip",
                       marker={"color": GHOST, "symbol": "x-thin-open",
                               "size": 16 if large else 12,
                               "line": {"width": 2, "color": GHOST}})]


def _ghost_outlines(plan: Plan) -> list[dict]:
    """A dashed outline (squares for splits, circles for leaves) around each pruned node."""
    r = plan.marker / 2 + 1
    f = plan.frame[plan.frame.Pruned]
    return [{"type": "rect" if feature != "Leaf" else "circle", "xref": "x", "yref": "y",
             "xsizemode": "pixel", "ysizemode": "pixel", "xanchor": plan.x[int(node)],
             "yanchor": plan.y[int(node)], "x0": -r, "x1": r, "y0": -r, "y1": r,
             "line": {"color": GHOST_TEXT, "width": 1.5, "dash": "dash"}, "layer": "above"}
            for node, feature in zip(f.Node, f.Feature, strict=True)]


def _node_traces(plan: Plan, gamma: float, missing_features) -> list:
    """Splits, leaves and pruned ghosts: clickable markers (the node id in customdata); a
    collapsed split is a square with a cross (its label says how many nodes it hides)."""
    f = plan.frame
    traces = []
    folded = f.Node.astype(int).isin(plan.hidden)
    groups = [
        ("split", (f.Feature != "Leaf") & ~f.Leaf & ~f.Pruned & ~folded, SPLIT, "square"),
        ("collapsed (+ hidden)", folded & ~f.Pruned, SPLIT, "square-cross"),
        ("leaf", f.Leaf & ~f.Pruned & ~folded, LEAF, "circle"),
        ("pruned (ghost)", f.Pruned, PRUNED, "circle"),  # squares for splits
    ]
    size = plan.marker
    for name, mask, color, symbol in groups:
        part = f[mask]
        if part.empty:
            continue
        nodes = part.Node.astype(int).to_numpy()
        rows = list(part.itertuples(index=False))
        if name.startswith("pruned"):
            symbol = ["square" if r.Feature != "Leaf" else "circle" for r in rows]
        elif name.startswith("collapsed"):  # a node pruned to a leaf keeps its ghosts below
            color = [LEAF if r.Leaf else SPLIT for r in rows]
            symbol = ["circle-cross" if r.Leaf else "square-cross" for r in rows]
        traces.append(go.Scatter(
            x=[plan.x[n] for n in nodes], y=[plan.y[n] for n in nodes], mode="markers",
            name=name, customdata=nodes, text=[plan.label[n][2] for n in nodes],
            marker={"color": color, "symbol": symbol, "size": size,
                    "line": {"width": 1.5, "color": "white"}},
            hovertext=[_hover(r, gamma, missing_features) for r in rows],
            hovertemplate="%{hovertext}<extra></extra>"))
    return traces


def tree_figure_within(tree: pd.DataFrame, height: float, collapsed=frozenset(),
                       **kwargs) -> go.Figure:
    """``make_tree_figure`` no taller than ``height`` px: the deepest levels are folded
    ("+ N hidden") until it fits (the root always shows)."""
    collapsed = frozenset(collapsed)
    level = int(tree.Depth.max()) - 1  # the deepest nodes that can have children
    while True:
        fig = make_tree_figure(tree, collapsed=collapsed, **kwargs)
        if fig.layout.height <= height or level < 0:
            return fig
        collapsed |= frozenset(tree.Node[(tree.Depth == level) & ~tree.Leaf])
        level -= 1
