"""Where the tree's nodes and labels go, so that no two labels overlap at a given width.

x is counted in leaf slots (the visible leaves are 0, 1, ... left to right, a split centred
over its children); y in pixels below the top of the plot area (drawn as negative numbers).
Each depth is a band: the node markers, then their labels below them, in one row or in
staggered rows (alternate nodes one row lower). Between two bands a gap holds the edges and,
when they fit, the edges' yes/no/missing labels.

The rule that shortens labels is deterministic: per band, the richest label format whose
labels fit side by side is taken, in the order of ``ORDER`` (format, rows): fewer lines,
shorter numbers and feature names truncated with "…" first, then staggered rows. The last
format always fits with enough rows, so every node has a label. Widths are estimated as
``CHAR_WIDTH`` x font size per character and heights as ``LINE_HEIGHT`` x font size per line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from boost.trace.node_record import refused

from .theme import short, signs, threshold

CHAR_WIDTH = 0.6
LINE_HEIGHT = 1.2
GAP = 6  # px kept free between two labels side by side
ORDER = [(0, 1), (1, 1), (2, 1), (1, 2), (2, 2), (3, 1), (3, 2), (3, 3), (4, 1), (4, 2),
         (4, 3)]
LAST_FORMAT = 4


def label_font(large: bool) -> int:
    """Node, edge and refusal labels: 16 px on a projector, 13 px otherwise."""
    return 16 if large else 13


def marker_size(large: bool) -> int:
    return 26 if large else 20


def text_size(text: str, font: float) -> tuple[float, float]:
    """(width, height) in px of a label (lines separated by <br>), as estimated."""
    lines = text.split("<br>")
    return (max(len(line) for line in lines) * CHAR_WIDTH * font,
            len(lines) * LINE_HEIGHT * font)


def num(x: float, digits: int) -> str:
    """A number in at most about ``digits`` significant digits: ``short`` for 4, else 28k,
    1.2M, 123, -3.2, 0.012."""
    if digits >= 4 or x != x:
        return short(x)
    a = abs(x)
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if a >= div:
            return f"{x / div:.{digits}g}{suffix}"
    if a >= 10 ** digits:
        return f"{x:.0f}"
    return f"{x:.{digits}g}"


def trunc(name: str, n: int) -> str:
    return name if len(name) <= n else name[:n - 1] + "…"


def visible_tree(tree: pd.DataFrame, collapsed=frozenset()) -> tuple[pd.DataFrame, dict]:
    """(the rows still drawn, {collapsed node: how many nodes it hides}): the descendants of
    the nodes in ``collapsed`` are hidden."""
    nodes = tree.Node.to_numpy().astype(int)
    parent = dict(zip(nodes, tree.Parent.to_numpy().astype(int), strict=True))
    hidden_by: dict[int, int] = {}
    keep = []
    for node in nodes:
        up, top = parent[node], None
        while up >= 0:
            if up in collapsed:
                top = up  # the highest collapsed ancestor hides the node
            up = parent.get(up, -1)
        keep.append(top is None)
        if top is not None:
            hidden_by[top] = hidden_by.get(top, 0) + 1
    return tree[np.array(keep, dtype=bool)], hidden_by


def slot_positions(tree: pd.DataFrame) -> dict[int, tuple[float, float]]:
    """x: leaves evenly spaced left to right in-order, a split centred over its children;
    y: minus the depth."""
    nodes = tree.Node.to_numpy().astype(int)
    depth = dict(zip(nodes, tree.Depth.to_numpy().astype(int), strict=True))
    kids: dict[int, list[int]] = {int(n): [] for n in nodes}
    for node, parent in zip(nodes, tree.Parent.to_numpy().astype(int), strict=True):
        if parent >= 0 and parent in kids:
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


def _gain_line(row, gamma: float, fmt: int) -> str:
    digits = (4, 3, 2, 2, 2)[fmt]
    gain = num(row.Gain, digits)
    below = bool(row.Pruned or row.Leaf) and row.Gain < gamma  # why the node was cut
    if fmt >= 3:
        return f"{gain} < γ" if below else ""
    return f"gain {gain} < γ {num(gamma, digits)}" if below else f"gain {gain}"


def name_lines(name: str, width: int) -> list[str]:
    """A feature's name in at most two lines of ``width`` characters, broken after a space,
    "_" or "-" in the line's second half where there is one, "…" only past two lines."""
    if len(name) <= width:
        return [name]
    k = next((k for k in range(width, width // 2 - 1, -1) if name[k - 1] in " _-"), width)
    return [name[:k].rstrip(" "), trunc(name[k:].lstrip(" "), width)]


def _split_line(row, fmt: int) -> str:
    """The split's test; in the two richest formats a long name takes two lines."""
    width, digits = ((18, 4), (10, 3), (6, 2), (4, 2), (4, 0))[fmt]
    feature = str(row.Feature)
    if fmt == LAST_FORMAT:  # the feature only: the threshold is in the hover text
        return trunc(feature, width)
    cut = threshold(row.Split) if digits >= 4 else num(row.Split, digits)
    if fmt >= 2:
        return f"{trunc(feature, width)}<{cut}"
    return "<br>".join(name_lines(feature, width)) + f" < {cut}"


def node_text(row, fmt: int, gamma: float, hidden: int = 0) -> str:
    """A node's label in format ``fmt`` (0 richest .. LAST_FORMAT sparsest), lines joined
    by <br>. Splits: their test and gain; leaves: their value η·w (w too in format 0); a node
    cut by γ (a pruned ghost, an exact split pruned to a leaf, hist's refused split) also
    says ``gain … < γ …``; a collapsed node says how many nodes it hides."""
    split = row.Feature != "Leaf" and not row.Leaf
    if split:
        lines = [_split_line(row, fmt), _gain_line(row, gamma, fmt)]
    else:
        value = row.Value
        lines = [[f"w {short(row.Weight)}", f"η·w {short(value)}"], [f"η·w {num(value, 3)}"],
                 [num(value, 3)], [num(value, 2)], [num(value, 2)]][fmt]
        if row.Feature != "Leaf":  # pruned to a leaf, or hist refused the split
            refused = " refused" if pd.isna(row.Yes) and fmt == 0 else ""
            lines += ([_split_line(row, fmt) + refused] if fmt < 2 else [])
            lines.append(_gain_line(row, gamma, fmt))
    if hidden:
        lines.append(f"+ {hidden} hidden" if fmt < 2 else f"+{hidden}")
    return signs("<br>".join(line for line in lines if line))


def _fits(px: list[float], widths: list[float], rows: int, lo: float, hi: float) -> bool:
    """Labels centred at px (sorted) fit in ``rows`` staggered rows between the walls."""
    if any(p - w / 2 < lo or p + w / 2 > hi for p, w in zip(px, widths, strict=True)):
        return False
    return all(px[j] - px[i] >= (widths[i] + widths[j]) / 2 + GAP
               for i in range(len(px)) for j in (i + rows,) if j < len(px))


def choose_format(px: list[float], texts, font: float, lo: float, hi: float):
    """(format, rows, labels) of one band: the first of ORDER that fits; else the last
    format in as many rows as it takes. ``texts(fmt)`` gives the band's labels."""
    for fmt, rows in ORDER:
        labels = texts(fmt)
        if _fits(px, [text_size(t, font)[0] for t in labels], rows, lo, hi):
            return fmt, rows, labels
    labels = texts(LAST_FORMAT)
    widths = [text_size(t, font)[0] for t in labels]
    rows = ORDER[-1][1] + 1
    while rows < len(px) and not _fits(px, widths, rows, lo, hi):
        rows += 1
    return LAST_FORMAT, rows, labels


@dataclass
class Plan:
    """The tree laid out at one width: everything the figure draws, in data coordinates
    (x in leaf slots, y = minus pixels below the plot's top)."""

    frame: pd.DataFrame  # the visible rows
    x: dict[int, float]
    y: dict[int, float]  # marker centres
    label: dict[int, tuple[float, float, str]]  # node -> (x, y of the text's centre, text)
    leave_y: dict[int, float]  # where a node's edges leave it (below its label)
    edge_labels: list[tuple[float, float, str]] = field(default_factory=list)
    hidden: dict[int, int] = field(default_factory=dict)
    x_range: tuple[float, float] = (0.0, 1.0)
    y_range: tuple[float, float] = (-1.0, 0.0)
    width: int = 1200
    height: int = 400
    margin: dict = field(default_factory=dict)
    slot_px: float = 1.0
    marker: float = 20.0  # marker size, px (smaller when the leaves are close)


def tree_margin(large: bool) -> dict:
    """Room for the title and, under it, the legend; thin sides (the labels keep clear of
    the plot's edges themselves)."""
    return {"l": 12, "r": 12, "t": 112 if large else 92, "b": 8}


def _x_scale(n_slots: int, plot_w: float, pad: float) -> tuple[float, float]:
    """(px per leaf slot, x of the plot's left edge): ``pad`` px outside the outer leaves."""
    if n_slots <= 1:
        return plot_w / 2, -1.0
    s = (plot_w - 2 * pad) / (n_slots - 1)
    return s, -pad / s


def _band_labels(rows: dict, pos: dict, hidden: dict, gamma: float, font: float, s: float,
                 x_lo: float, walls: tuple[float, float]) -> dict:
    """Per depth: (nodes left to right, staggered rows, their labels)."""
    bands = {}
    for depth in sorted({int(-y) for _, y in pos.values()}):
        nodes = sorted((n for n, (_, y) in pos.items() if -y == depth), key=lambda n: pos[n][0])
        px = [(pos[n][0] - x_lo) * s for n in nodes]

        def texts(fmt, nodes=nodes):
            return [node_text(rows[n], fmt, gamma, hidden.get(n, 0)) for n in nodes]

        _, k, labels = choose_format(px, texts, font, *walls)
        bands[depth] = (nodes, k, labels)
    return bands


def edge_text(parent, child: int, fmt: int, missing_features) -> str:
    """An edge's label: "yes"/"no" (+ missing when missing values go that way and the
    feature has any, or ``missing_features`` is None); format 1: only "missing"."""
    side = "yes" if parent.Yes == f"{parent.Tree}-{child}" else "no"
    missing = (parent.Missing == f"{parent.Tree}-{child}"
               and (missing_features is None or parent.Feature in missing_features))
    if fmt == 0:
        return side + (" + missing" if missing else "")
    return "missing" if missing else ""


def _edge_labels(edges: list, fmt: int, font: float, s: float, x_lo: float, plot_w: float,
                 missing_features):
    """[(x, text)] of one gap's edges in format ``fmt`` if they all fit side by side, else
    None. ``edges``: (parent row, child, x where the edge crosses the gap's middle)."""
    placed = sorted((x, edge_text(p, c, fmt, missing_features)) for p, c, x in edges)
    placed = [(x, t) for x, t in placed if t]
    px = [(x - x_lo) * s for x, _ in placed]
    widths = [text_size(t, font)[0] for _, t in placed]
    return placed if _fits(px, widths, 1, 0.0, plot_w) else None


def plan_tree(tree: pd.DataFrame, gamma: float, width: int, large: bool,
              collapsed=frozenset(), missing_features=None) -> Plan:
    """Lay the tree out at ``width`` px (see the module's docstring)."""
    frame, hidden = visible_tree(tree, collapsed)
    pos = slot_positions(frame)
    font = label_font(large)
    margin = tree_margin(large)
    plot_w = width - margin["l"] - margin["r"]
    n_slots = int(round(max(x for x, _ in pos.values()))) + 1
    rows = {int(row.Node): row for row in frame.itertuples(index=False)}
    pad = 2.0 * font
    s, x_lo = _x_scale(n_slots, plot_w, pad)
    bands = _band_labels(rows, pos, hidden, gamma, font, s, x_lo, (-np.inf, np.inf))
    last = n_slots - 1
    for nodes, _, labels in bands.values():  # room outside the outer leaves for the labels
        for node, text in zip(nodes, labels, strict=True):
            reach = min(pos[node][0], last - pos[node][0]) * s
            pad = max(pad, text_size(text, font)[0] / 2 - reach + 2)
    s, x_lo = _x_scale(n_slots, plot_w, min(pad, plot_w / 4))
    bands = _band_labels(rows, pos, hidden, gamma, font, s, x_lo, (0.0, plot_w))
    plan = Plan(frame=frame, x={n: p[0] for n, p in pos.items()}, y={}, label={}, leave_y={},
                hidden=hidden, x_range=(x_lo, x_lo + plot_w / s), width=width,
                margin=margin, slot_px=s, marker=float(np.clip(s - 2, 8, marker_size(large))))
    r = plan.marker / 2
    kids: dict[int, list[int]] = {}
    for node, parent in zip(frame.Node.astype(int), frame.Parent.astype(int), strict=True):
        kids.setdefault(int(parent), []).append(int(node))
    stubs = {int(n) for n in frame.Node[refused(frame)]}
    top = 4.0
    for depth in sorted(bands):
        nodes, k, labels = bands[depth]
        bottom = _place_band(plan, nodes, k, labels, top, r, font)
        gap = 34.0 if any(n in stubs for n in nodes) else 0.0
        if any(n in kids for n in nodes):
            gap = _place_edge_labels(plan, rows, kids, nodes, bottom, font, missing_features)
        top = bottom + gap
    plan.height = int(np.ceil(top + 4 + margin["t"] + margin["b"]))
    plan.y_range = (-(plan.height - margin["t"] - margin["b"]), 0.0)
    return plan


def _place_band(plan: Plan, nodes: list, k: int, labels: list, top: float, r: float,
                font: float) -> float:
    """Markers at ``top`` + r, labels in ``k`` staggered rows below; the band's bottom."""
    row_h = max(text_size(t, font)[1] for t in labels) + 2
    label_top = top + 2 * r + 6  # room for the selection ring around the marker
    for i, (node, text) in enumerate(zip(nodes, labels, strict=True)):
        plan.y[node] = -(top + r)
        upper = label_top + (i % k) * row_h
        h = text_size(text, font)[1]
        plan.label[node] = (plan.x[node], -(upper + h / 2), text)
        plan.leave_y[node] = -(upper + h + 2)
    return label_top + k * row_h + 2


def _place_edge_labels(plan: Plan, rows: dict, kids: dict, nodes: list, bottom: float,
                       font: float, missing_features) -> float:
    """The gap below a band: the edges' labels in its middle, all of format 0 ("yes",
    "no + missing"), else only the "missing" ones, else none; returns the gap's height."""
    tall, low = LINE_HEIGHT * font + 18, 34.0
    plot_w = plan.width - plan.margin["l"] - plan.margin["r"]
    mid, child_top = bottom + tall / 2, bottom + tall
    edges = []
    for node in nodes:
        x0, y0 = plan.x[node], -plan.leave_y[node]
        for child in kids.get(node, []):
            t = (mid - y0) / (child_top - y0)
            edges.append((rows[node], child, x0 + (plan.x[child] - x0) * t))
    for fmt in (0, 1):
        placed = _edge_labels(edges, fmt, font, plan.slot_px, plan.x_range[0], plot_w,
                              missing_features)
        if placed:
            plan.edge_labels += [(x, -mid, text) for x, text in placed]
            return tall
    return low


def default_collapsed(tree: pd.DataFrame, max_leaves: int = 64) -> frozenset:
    """The nodes to collapse so that at most ``max_leaves`` leaves are drawn: the splits of
    the deepest level first, then the level above, ... (empty when the tree is small)."""
    collapsed: frozenset = frozenset()
    while True:
        shown, _ = visible_tree(tree, collapsed)
        kids = set(shown.Parent.astype(int))
        n_leaves = int((~shown.Node.astype(int).isin(kids)).sum())
        if n_leaves <= max_leaves:
            return collapsed
        splits = shown[shown.Node.astype(int).isin(kids)]
        deepest = int(splits.Depth.max())
        collapsed |= frozenset(int(n) for n in splits.Node[splits.Depth == deepest])
