"""The tree of one round, drawn: every grown node with its numbers, pruned branches as ghosts.

Input is ``Booster.trees_to_dataframe(include_pruned=True)`` restricted to one tree. Nodes are
markers (squares for splits, circles for leaves) carrying their node id in ``customdata``, so
a click selects a node (``st.plotly_chart(on_select=...)``); edges are lines that ignore the
mouse. Nodes that pruning removed stay in place, faded, with the reason in their hover text.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .theme import CURRENT, PALETTE, layout, short

SPLIT = PALETTE[0]
LEAF = PALETTE[2]
GHOST = "#B0B0B0"
LABEL_MAX_NODES = 40  # above this only hover text names the numbers (zoom to read)


def tree_positions(tree: pd.DataFrame) -> dict[int, tuple[float, float]]:
    """x: leaves evenly spaced left to right in-order, a split centred over its children;
    y: minus the depth."""
    nodes = tree.Node.to_numpy().astype(int)
    parents = tree.Parent.to_numpy().astype(int)
    depth = dict(zip(nodes, tree.Depth.to_numpy().astype(int), strict=True))
    kids: dict[int, list[int]] = {int(n): [] for n in nodes}
    for node, parent in zip(nodes, parents, strict=True):
        if parent >= 0:
            kids[int(parent)].append(int(node))
    pos: dict[int, tuple[float, float]] = {}
    next_x = [0.0]

    def place(node: int) -> float:
        children = sorted(kids[node])
        if not children:
            x = next_x[0]
            next_x[0] += 1.0
        else:
            x = float(np.mean([place(c) for c in children]))
        pos[node] = (x, -float(depth[node]))
        return x

    place(0)
    return pos


def _hover(row, gamma: float) -> str:
    lines = [f"<b>node {int(row.Node)}</b> (depth {int(row.Depth)})",
             f"G = {row.SumGrad:.6g}, H (cover) = {row.SumHess:.6g}",
             f"similarity = G²/(H+λ) = {row.Similarity:.6g}",
             f"w = −G/(H+λ) = {row.Weight:.6g}, η·w = {row.Value:.6g}"]
    if row.Feature != "Leaf":
        lines.insert(1, f"split: {row.Feature} < {row.Split:.6g} (missing → "
                        f"{'yes' if row.Missing == row.Yes else 'no'})")
        lines.append(f"gain = {row.Gain:.6g}, gain − γ = {row.Gain - gamma:.6g}")
    if row.Pruned:
        lines.append("<b>removed by pruning</b>: an ancestor's gain < γ")
    elif row.Feature != "Leaf" and row.Yes is None:
        lines.append("<b>split refused</b>: gain < γ, so hist never grew it")
    elif row.Reason:
        lines.append(f"leaf because: {row.Reason}")
    return "<br>".join(lines)


def _label(row, is_leaf: bool) -> str:
    if not is_leaf:
        return f"{row.Feature} < {short(row.Split)}<br>gain {short(row.Gain)}"
    return f"w {short(row.Weight)}<br>η·w {short(row.Value)}"


def make_tree_figure(tree: pd.DataFrame, gamma: float = 0.0, selected: int | None = None,
                     title: str = "", large: bool = False,
                     path: list[int] | None = None) -> go.Figure:
    """Draw one grown tree (rows of a single Tree from trees_to_dataframe(include_pruned=True)).

    A node that pruning turned into a leaf is drawn as a leaf (its former split and gain in
    the hover text) with its removed subtree faded below it; a hist/approx leaf whose split
    gamma refused gets two dashed stubs ("refused by γ"). ``path`` (node ids, root first,
    e.g. Booster.decision_path) is drawn as a thick line: one row's way down the tree.
    """
    if tree.Tree.nunique() != 1:
        raise ValueError("make_tree_figure draws one tree: filter the frame to one Tree.")
    pos = tree_positions(tree)
    show_labels = len(tree) <= LABEL_MAX_NODES
    traces = _edge_traces(tree, pos, show_labels, large)
    stubs = _refused_traces(tree, pos, gamma, show_labels, large)
    traces += stubs
    if path:
        traces.append(go.Scatter(x=[pos[n][0] for n in path], y=[pos[n][1] for n in path],
                                 mode="lines", name="the row's path",
                                 line={"color": CURRENT, "width": 6}, opacity=0.5,
                                 hoverinfo="skip"))
    traces += _node_traces(tree, pos, gamma, show_labels, large)
    if selected is not None and selected in pos:
        x, y = pos[selected]
        traces.append(go.Scatter(x=[x], y=[y], mode="markers", name="selected",
                                 marker={"size": 36 if large else 30, "color": "rgba(0,0,0,0)",
                                         "line": {"width": 3, "color": CURRENT}},
                                 hoverinfo="skip"))
    depth = int(tree.Depth.max())
    height = 180 + 110 * (depth + 1) + (90 if stubs else 0)
    fig = go.Figure(data=traces, layout=layout(
        title, large, height=height,
        xaxis={"visible": False, "showgrid": False,
               "range": [min(x for x, _ in pos.values()) - 1.0,
                         max(x for x, _ in pos.values()) + 1.0]},
        yaxis={"visible": False, "showgrid": False,
               "range": [-depth - (1.6 if stubs else 0.7), 0.45]},
        dragmode="pan", clickmode="event+select", hovermode="closest"))
    fig.update_layout(legend={"itemclick": False, "itemdoubleclick": False})
    return fig


def _edge_traces(tree, pos, show_labels: bool, large: bool) -> list:
    """The edges (pruned ones dotted) and, when labels fit, each edge's yes/no/missing."""
    edge_x, edge_y, ghost_x, ghost_y = [], [], [], []
    label_x, label_y, label_text = [], [], []
    by_node = {int(r.Node): r for r in tree.itertuples(index=False)}
    for node, parent, pruned in zip(tree.Node, tree.Parent, tree.Pruned, strict=True):
        if parent < 0:
            continue
        xs, ys = (ghost_x, ghost_y) if pruned else (edge_x, edge_y)
        (x0, y0), (x1, y1) = pos[int(parent)], pos[int(node)]
        xs += [x0, x1, None]
        ys += [y0, y1, None]
        up = by_node[int(parent)]
        side = "yes" if up.Yes == f"{up.Tree}-{int(node)}" else "no"
        missing = up.Missing == f"{up.Tree}-{int(node)}"
        label_x.append(x0 + (x1 - x0) * 0.55)
        label_y.append(y0 + (y1 - y0) * 0.55)
        label_text.append(side + (" + missing" if missing else ""))
    traces = [
        go.Scatter(x=edge_x, y=edge_y, mode="lines", line={"color": "#888", "width": 2},
                   hoverinfo="skip", showlegend=False, name=""),
        go.Scatter(x=ghost_x, y=ghost_y, mode="lines",
                   line={"color": GHOST, "width": 1.5, "dash": "dot"}, hoverinfo="skip",
                   showlegend=False, name=""),
    ]
    if show_labels:
        traces.append(_annotation(label_x, label_y, label_text, large))
    return traces


def _annotation(x, y, text, large: bool) -> go.Scatter:
    """Small grey text on the tree (edge labels, refusal notes), not clickable."""
    return go.Scatter(x=x, y=y, mode="text", text=text, hoverinfo="skip", showlegend=False,
                      name="", textfont={"size": 12 if large else 10, "color": "#666"})


def _refused_traces(tree, pos, gamma: float, show_labels: bool, large: bool) -> list:
    """hist/approx: each split gamma refused before growing it, as two stubs below the leaf."""
    traces = []
    refused = tree[tree.Leaf & (tree.Feature != "Leaf") & tree.Yes.isna()]
    stub_x, stub_y, tip_x, tip_y, note_x, note_y, notes = [], [], [], [], [], [], []
    for r in refused.itertuples(index=False):
        x0, y0 = pos[int(r.Node)]
        for dx in (-0.3, 0.3):
            stub_x += [x0, x0 + dx, None]
            stub_y += [y0 - 0.5, y0 - 0.85, None]
            tip_x.append(x0 + dx)
            tip_y.append(y0 - 0.8)
        note_x.append(x0)
        note_y.append(y0 - 1.05)
        notes.append(f"{r.Feature} < {short(r.Split)} refused:<br>gain {short(r.Gain)} < "
                     f"γ {short(gamma)}")
    if tip_x:
        traces.append(go.Scatter(x=stub_x, y=stub_y, mode="lines", hoverinfo="skip",
                                 line={"color": GHOST, "width": 1.5, "dash": "dash"},
                                 showlegend=False, name=""))
        traces.append(go.Scatter(x=tip_x, y=tip_y, mode="markers", name="refused by γ",
                                 marker={"color": GHOST, "symbol": "x-thin-open", "size": 14,
                                         "line": {"width": 2, "color": GHOST}},
                                 hoverinfo="skip"))
        if show_labels:
            traces.append(_annotation(note_x, note_y, notes, large))
    return traces


def _node_traces(tree, pos, gamma: float, show_labels: bool, large: bool) -> list:
    """Splits, leaves and pruned ghosts: clickable markers (the node id in customdata)."""
    traces = []
    groups = [
        ("split", (tree.Feature != "Leaf") & ~tree.Leaf & ~tree.Pruned, SPLIT, "square", 1.0),
        ("leaf", tree.Leaf & ~tree.Pruned, LEAF, "circle", 1.0),
        ("pruned (ghost)", tree.Pruned, GHOST, "circle-open", 0.55),
    ]
    for name, mask, color, symbol, opacity in groups:
        part = tree[mask]
        if part.empty:
            continue
        xs = [pos[int(n)][0] for n in part.Node]
        ys = [pos[int(n)][1] for n in part.Node]
        is_leaf = name != "split"
        rows = list(part.itertuples(index=False))
        collapsed = (part.Leaf & (part.Feature != "Leaf")).to_numpy()
        text = [_label(r, is_leaf or c) for r, c in zip(rows, collapsed, strict=True)]
        traces.append(go.Scatter(
            x=xs, y=ys, mode="markers+text" if show_labels else "markers", name=name,
            marker={"color": color, "symbol": symbol, "size": 26 if large else 20,
                    "opacity": opacity, "line": {"width": 1.5, "color": "white"}},
            text=text, textposition="bottom center",
            textfont={"size": 13 if large else 11, "color": GHOST if name.startswith("pruned")
                      else "#222"},
            customdata=part.Node.to_numpy(), hovertext=[_hover(r, gamma) for r in rows],
            hovertemplate="%{hovertext}<extra></extra>"))
    return traces


def selected_node(event) -> int | None:
    """The node id of a click event from ``st.plotly_chart(on_select=...)`` (None if the
    event holds no node, e.g. the selection was cleared by a redraw)."""
    try:
        points = event["selection"]["points"]
    except (KeyError, TypeError):
        return None
    for point in points:
        data = point.get("customdata")
        if isinstance(data, list | tuple):
            data = data[0] if data else None
        if data is not None:
            return int(data)
    return None

