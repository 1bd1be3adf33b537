"""Growth order: one round's tree grown depth-wise and leaf-wise, replayed split by split.

XGBoost numbers a tree's nodes in the order it makes them (the k-th split's children get
ids 2k − 1 and 2k, ``boost.records.split_step``), so the order is read from the node ids of
``trees_to_dataframe`` and nothing else is needed. ``growth_figure`` draws two trees side by
side after their first k splits: each split made so far is a square with its number, the
k-th one ringed; the leaves of that moment are circles; the nodes still to come are faint,
at the places they will take, so the two policies can be compared before they finish.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from boost.records import split_step

from .theme import CURRENT, PALETTE, layout, short
from .tree_layout import slot_positions

SPLIT = PALETTE[0]
LEAF = PALETTE[2]
FUTURE = "#C8C8C8"
EDGE = "#8C8C8C"
TEXT = "#222222"


@dataclass(frozen=True)
class Growth:
    """One tree's nodes with the step that split each (0: a leaf of the finished tree) and
    the step that made it (its parent's; 0 for the root), and where each is drawn."""

    frame: pd.DataFrame  # the tree's rows, with columns Step and Born added
    x: dict
    y: dict

    @property
    def splits(self) -> int:
        return int((self.frame.Step > 0).sum())

    def at(self, k: int) -> pd.DataFrame:
        """The nodes that exist after the first ``k`` splits."""
        return self.frame[self.frame.Born <= k]

    def leaves_at(self, k: int) -> int:
        return min(k, self.splits) + 1

    def split(self, k: int):
        """The row of the k-th split (None if the tree made fewer)."""
        rows = self.frame[self.frame.Step == k]
        return None if k < 1 or rows.empty else rows.iloc[0]


def _child_id(text) -> int:
    """A child's node id from trees_to_dataframe's 'Tree-Node' text; -1 for none."""
    return -1 if pd.isna(text) else int(str(text).rsplit("-", 1)[1])


def growth(tree: pd.DataFrame) -> Growth:
    """``Growth`` of one tree (rows of a single Tree of ``trees_to_dataframe``; nodes that
    pruning removed are left out: they are not in the model)."""
    f = tree[~tree.Pruned].copy() if "Pruned" in tree else tree.copy()
    left = np.array([_child_id(v) for v in f.Yes], dtype=np.int64)
    left[f.Leaf.to_numpy(bool)] = -1  # a split pruning collapsed is a leaf of the model
    f["Step"] = split_step(left)
    step_of = dict(zip(f.Node.astype(int), f.Step.astype(int), strict=True))
    f["Born"] = [0 if p < 0 else step_of.get(int(p), 0) for p in f.Parent.astype(int)]
    pos = slot_positions(f)
    return Growth(f, {n: xy[0] for n, xy in pos.items()}, {n: xy[1] for n, xy in pos.items()})


def describe(g: Growth, k: int) -> str:
    """The tree after ``k`` splits: how many it made and its leaves; on a second line the
    k-th split (feature, threshold, depth, gain)."""
    done = min(k, g.splits)
    text = f"{done} of {g.splits} splits, {g.leaves_at(k)} leaves"
    row = g.split(k)
    if row is not None:
        text += (f"<br>split {k}: {row.Feature} < {short(row.Split)}, depth {int(row.Depth)}, "
                 f"gain {short(row.Gain)}")
    elif k > g.splits:
        text += "<br>(finished)"
    return text


def _edges(g: Growth, nodes, xaxis: str, yaxis: str, color: str, dash: str, name: str):
    xs, ys = [], []
    for node, parent in zip(nodes.Node.astype(int), nodes.Parent.astype(int), strict=True):
        if parent >= 0:
            xs += [g.x[parent], g.x[node], None]
            ys += [g.y[parent], g.y[node], None]
    return go.Scatter(x=xs, y=ys, mode="lines", hoverinfo="skip", showlegend=False, name=name,
                      xaxis=xaxis, yaxis=yaxis, line={"color": color, "width": 1.5,
                                                      "dash": dash})


def _hover(row, k: int) -> str:
    lines = [f"<b>node {int(row.Node)}</b> (depth {int(row.Depth)}), cover {short(row.Cover)}"]
    if row.Step > 0:
        lines.append(f"split {int(row.Step)}: {row.Feature} < {short(row.Split)}, "
                     f"gain {short(row.Gain)}")
        if row.Step > k:
            lines.append("still a leaf at this step")
    else:
        lines.append(f"leaf of the finished tree, value {short(row.Value)}")
    return "<br>".join(lines)


def _markers(g: Growth, k: int, xaxis: str, yaxis: str, large: bool, first: bool) -> list:
    f = g.frame
    size = 30 if large else 24
    now = f.Born <= k
    done = now & (f.Step > 0) & (f.Step <= k)
    groups = [("not made yet", ~now, FUTURE, "circle", size * 0.55),
              ("leaf at this step", now & ~done, LEAF, "circle", size),
              ("split (its number: the order)", done, SPLIT, "square", size)]
    traces = []
    for name, mask, color, symbol, s in groups:
        part = f[mask]
        nodes = part.Node.astype(int).to_list()
        text = [str(int(v)) for v in part.Step] if symbol == "square" else None
        traces.append(go.Scatter(
            x=[g.x[n] for n in nodes], y=[g.y[n] for n in nodes], xaxis=xaxis, yaxis=yaxis,
            mode="markers+text" if text else "markers", text=text, name=name,
            legendgroup=name, showlegend=first, customdata=nodes,
            textfont={"color": "white", "size": 16 if large else 13},
            marker={"color": color, "symbol": symbol, "size": s,
                    "line": {"width": 1.5, "color": "white"}},
            hovertext=[_hover(r, k) for r in part.itertuples(index=False)],
            hovertemplate="%{hovertext}<extra></extra>"))
    row = g.split(k)
    if row is not None:
        n = int(row.Node)
        traces.append(go.Scatter(
            x=[g.x[n]], y=[g.y[n]], xaxis=xaxis, yaxis=yaxis, mode="markers",
            name=f"split {k}", legendgroup="now", showlegend=first, hoverinfo="skip",
            marker={"size": size + 10, "color": "rgba(0,0,0,0)", "symbol": "square",
                    "line": {"width": 3, "color": CURRENT}}))
    return traces


def growth_figure(trees: dict[str, pd.DataFrame], k: int, large: bool = False,
                  height: int | None = None, title: str = "") -> go.Figure:
    """The trees (name -> rows of one Tree of ``trees_to_dataframe``) side by side after
    their first ``k`` splits (k beyond a tree's splits shows it finished)."""
    grown = {name: growth(tree) for name, tree in trees.items()}
    depth = max(int(g.frame.Depth.max()) for g in grown.values())
    n = len(grown)
    gap = 0.06
    span = (1 - gap * (n - 1)) / n
    traces, axes, notes = [], {}, []
    for i, (name, g) in enumerate(grown.items()):
        sx = "" if i == 0 else str(i + 1)
        xaxis, yaxis = f"x{sx}", f"y{sx}"
        traces += [_edges(g, g.frame[g.frame.Born > k], xaxis, yaxis, FUTURE, "dot", "to come"),
                   _edges(g, g.at(k), xaxis, yaxis, EDGE, "solid", "edges")]
        traces += _markers(g, k, xaxis, yaxis, large, i == 0)
        lo, hi = i * (span + gap), i * (span + gap) + span
        width = max(g.x.values()) if g.x else 0
        axes[f"xaxis{sx}"] = {"domain": [lo, hi], "visible": False, "anchor": yaxis,
                              "range": [-0.6, width + 0.6], "fixedrange": True}
        axes[f"yaxis{sx}"] = {"visible": False, "anchor": xaxis, "range": [-depth - 0.5, 0.6],
                              "fixedrange": True}
        notes.append({"text": f"<b>{name}</b><br>{describe(g, k)}", "x": (lo + hi) / 2,
                      "y": 1.0, "xref": "paper", "yref": "paper", "yanchor": "bottom",
                      "xanchor": "center", "showarrow": False, "align": "center",
                      "font": {"size": 17 if large else 13, "color": TEXT}})
    fig_height = height or min(560, 170 + 65 * (depth + 1))
    fig_layout = layout(title, large, height=fig_height, annotations=notes,
                        margin={"l": 10, "r": 10, "t": 120 if large else 100, "b": 40},
                        legend={"orientation": "h", "x": 0.5, "xanchor": "center", "y": -0.02,
                                "yanchor": "top"},
                        hovermode="closest", **axes)
    fig_layout["height"] = fig_height
    return go.Figure(data=traces, layout=fig_layout)
