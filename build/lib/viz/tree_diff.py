"""What differs between two trees of the same round: another split, a branch only one of them
grew (or kept), a leaf whose value moved.

Input is two trees from ``trees_to_dataframe(include_pruned=True)`` (the rows of one Tree
each). Node ids are the growth order, so the same place in two trees can carry different ids;
nodes are matched by their place instead: the path from the root (yes = ``L``, no = ``R``);
the texts name a place by its node ids. A node's children are compared only while both trees
split it the same way (the same feature, threshold and missing-value direction): below
another split the rows are not the same rows, and every node there would differ. Splits are
compared exactly; leaf values move when they differ by more than ``tol`` relative (float32
rounding is about 6e-8).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .theme import short

# The kinds of difference, as the figures' legends name them.
KINDS = {"split": "another split", "branch": "a branch only one has", "leaf": "leaf value moved"}


@dataclass(frozen=True)
class Mark:
    """One node's difference: its kind (a key of KINDS) and what differs, in words."""

    node: int
    kind: str
    text: str


@dataclass(frozen=True)
class TreeDiff:
    """The marks of each tree (node id -> Mark) and every difference once, as (kind, text)
    in the order found (top down)."""

    a: dict
    b: dict
    items: tuple[tuple[str, str], ...]

    @property
    def same(self) -> bool:
        return not self.items

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(text for _, text in self.items)

    def count(self, kind: str) -> int:
        return sum(1 for k, _ in self.items if k == kind)


def _child(ref) -> int | None:
    """The node id in a Yes/No reference such as '3-7' (None when there is none)."""
    if not isinstance(ref, str) or "-" not in ref:
        return None
    return int(ref.rsplit("-", 1)[1])


def node_paths(tree: pd.DataFrame) -> dict[str, object]:
    """Each node's row by its path from the root ('' the root, then L for yes, R for no)."""
    rows = {int(r.Node): r for r in tree.itertuples(index=False)}
    paths: dict[str, object] = {}
    todo = [(0, "")] if 0 in rows else []
    while todo:
        node, path = todo.pop()
        row = rows[node]
        paths[path] = row
        for side, ref in (("L", row.Yes), ("R", row.No)):
            child = _child(ref)
            if child is not None and child in rows:
                todo.append((child, path + side))
    return paths


def _state(row) -> str | None:
    """'split' (a split of the final tree), 'leaf' (a leaf of it) or 'ghost' (removed)."""
    if row is None:
        return None
    if row.Pruned:
        return "ghost"
    return "leaf" if row.Leaf else "split"


def _test(row, other=None) -> str:
    """'x < 15': the threshold in 4 digits, or in 7 when ``other``'s test reads the same in
    4 but is not the same."""
    text = f"{row.Feature} < {short(float(row.Split))}"
    if other is not None and text == _test(other) and float(row.Split) != float(other.Split):
        text = f"{row.Feature} < {float(row.Split):.7g}"
    return text


def _missing_way(row) -> str:
    return "yes" if row.Missing == row.Yes else "no"


def _why_leaf(row) -> str:
    """Why a node is not a split in its tree, in a few words."""
    if row is None:
        return "not grown (its parent is a leaf)"
    if row.Pruned:
        return "removed with its pruned parent"
    if row.Feature != "Leaf":
        if pd.isna(row.Yes):
            return f"a leaf: γ refused {_test(row)} (gain {short(float(row.Gain))})"
        return f"a leaf: γ pruned {_test(row)} (gain {short(float(row.Gain))})"
    reason = {"max_depth": "at max_depth", "no positive gain": "no split gained",
              "min_child_weight": "min_child_weight blocked its splits",
              "max_leaves": "the tree had max_leaves leaves"}.get(str(row.Reason))
    return "a leaf" + (f" ({reason})" if reason else "")


def _where(ra, rb, names: tuple[str, str]) -> str:
    """'node 4', or 'node 4 in A, node 6 in B' where the same place has other ids."""
    ids = [(name, int(r.Node)) for name, r in zip(names, (ra, rb), strict=True)
           if r is not None]
    if len({node for _, node in ids}) == 1:
        return "the root" if ids[0][1] == 0 else f"node {ids[0][1]}"
    return ", ".join(f"node {node} in {name}" for name, node in ids)


def diff_trees(a: pd.DataFrame, b: pd.DataFrame, names: tuple[str, str] = ("A", "B"),
               tol: float = 1e-6) -> TreeDiff:
    """The differences of tree ``b`` from tree ``a`` (each the rows of one tree of
    ``trees_to_dataframe(include_pruned=True)``); ``names`` name them in the texts."""
    pa, pb = node_paths(a), node_paths(b)
    marks_a: dict[int, Mark] = {}
    marks_b: dict[int, Mark] = {}
    items: list[tuple[str, str]] = []
    na, nb = names

    def mark(kind: str, text: str, ra, rb) -> None:
        items.append((kind, text))
        if ra is not None:
            marks_a[int(ra.Node)] = Mark(int(ra.Node), kind, text)
        if rb is not None:
            marks_b[int(rb.Node)] = Mark(int(rb.Node), kind, text)

    todo = [""]
    while todo:
        path = todo.pop(0)
        ra, rb = pa.get(path), pb.get(path)
        sa, sb = _state(ra), _state(rb)
        where = _where(ra, rb, names)
        if sa == "split" and sb == "split":
            if ra.Feature != rb.Feature or float(ra.Split) != float(rb.Split):
                mark("split", f"At {where}: {na} splits {_test(ra, rb)}, {nb} "
                              f"{_test(rb, ra)}.", ra, rb)
            elif _missing_way(ra) != _missing_way(rb):
                mark("split", f"At {where} ({_test(ra)}): missing values go "
                              f"{_missing_way(ra)} in {na}, {_missing_way(rb)} in {nb}.", ra, rb)
            else:
                todo += [path + "L", path + "R"]
        elif sa == "split" or sb == "split":
            if sa == "split":
                text = f"At {where}: {na} splits {_test(ra)}; in {nb} it is {_why_leaf(rb)}."
            else:
                text = f"At {where}: {nb} splits {_test(rb)}; in {na} it is {_why_leaf(ra)}."
            mark("branch", text, ra, rb)
        elif sa == "leaf" and sb == "leaf":
            va, vb = float(ra.Value), float(rb.Value)
            if not np.isclose(va, vb, rtol=tol, atol=0.0):
                mark("leaf", f"Leaf {where}: η·w {short(va)} in {na}, {short(vb)} in {nb} "
                             f"(Δ {short(vb - va)}).", ra, rb)
    return TreeDiff(marks_a, marks_b, tuple(items))
