"""Tree arrays and prediction: every grown tree, flat, plus the kernels that walk them.

A ``Forest`` stores all trees of a model in parallel flat arrays (one entry per grown node,
pruned ones included); tree ``t`` occupies ``tree_ptr[t]:tree_ptr[t+1]`` and node ids are
local to the tree, as in XGBoost's dump. ``is_leaf`` marks the leaves of the *final* (pruned)
tree and ``removed`` the nodes that pruning deleted; prediction follows ``is_leaf``, so the
grown structure and the model are one set of arrays.
"""

from __future__ import annotations

from dataclasses import fields, make_dataclass

import numpy as np
from numba import njit, prange

from ._dtypes import WEIGHT
from .layout import read_only
from .node_rules import F32_NAN, routes_right
from .records import NODE_FIELDS


def _forest_methods():
    def n_trees(self) -> int:
        return len(self.tree_ptr) - 1

    def node_slice(self, tree_idx: int) -> slice:
        return slice(int(self.tree_ptr[tree_idx]), int(self.tree_ptr[tree_idx + 1]))

    return {"n_trees": property(n_trees), "node_slice": node_slice,
            "__doc__": "Every tree of a model: ``tree_ptr`` (n_trees + 1,) int64, ``tree_group`` "
                       "(n_trees,) int32 (each tree's class), then one flat array per node "
                       "field (``records.NODE_FIELDS``: the grown record ``TreeNodes`` plus "
                       "value, is_leaf, removed)."}


# The node fields come from ``records``: the layout is defined there once.
Forest = make_dataclass(
    "Forest", [("tree_ptr", np.ndarray), ("tree_group", np.ndarray),
               *((name, np.ndarray) for name in NODE_FIELDS)],
    frozen=True, namespace=_forest_methods())
Forest.__module__ = __name__


class ForestBuilder:
    """Collects trees while training; ``build()`` returns a read-only ``Forest``."""

    def __init__(self):
        self._trees: list[dict] = []
        self._groups: list[int] = []

    def add(self, group: int, nodes: dict) -> None:
        self._trees.append(nodes)
        self._groups.append(group)

    def __len__(self) -> int:
        return len(self._trees)

    def build(self, first: int = 0) -> Forest:
        """A Forest of the trees added so far, from tree ``first`` on."""
        trees = self._trees[first:]
        sizes = [len(t["parent"]) for t in trees]
        tree_ptr = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=tree_ptr[1:])
        arrays = {}
        for name in NODE_FIELDS:
            parts = [t[name] for t in trees]
            arrays[name] = np.concatenate(parts) if parts else np.empty(0)
        forest = Forest(tree_ptr=tree_ptr,
                        tree_group=np.array(self._groups[first:], dtype=np.int32), **arrays)
        for f in fields(forest):
            getattr(forest, f.name).flags.writeable = False
        return forest


# The walks. A row is routed by one rule (``node_rules.routes_right``) on ``data[r, f]``: its
# values (``X``, ``split`` the thresholds, ``missing`` F32_NAN) or, for a hist model's
# training rows, its bin codes (``binned``: the codes transposed, ``split`` each node's
# first code that goes right, ``missing`` the code of a missing value). Each kernel is
# compiled once for each.


@njit(cache=True, nogil=True, inline="always")
def _child(data, r, i, left, feature, split, default_left, missing):
    """The child of node i (global index) that row r goes to. Children are stored side by
    side (right = left + 1), so it is ``left + routes_right``, without a branch on the data."""
    return left[i] + np.int32(routes_right(data[r, feature[i]], split[i], default_left[i],
                                           missing))


@njit(cache=True, nogil=True, inline="always")
def _walk(data, missing, r, off, left, feature, split, default_left, stop):
    """The node of the tree at ``off`` where row r stops (``stop``: is_leaf, say)."""
    node = 0
    while not stop[off + node]:
        node = _child(data, r, off + node, left, feature, split, default_left, missing)
    return node


_ROW_BLOCK = 64


@njit(cache=True, nogil=True, parallel=True)
def _add_trees(data, missing, tree_ptr, tree_group, left, feature, split, default_left, is_leaf,
               value, t_begin, t_end, margin):
    # Blocks of rows, trees in order within each row: the walks of a block are independent,
    # so the processor overlaps them; each row still adds its trees in tree order.
    n = data.shape[0]
    n_blocks = (n + _ROW_BLOCK - 1) // _ROW_BLOCK
    for blk in prange(n_blocks):
        r0 = blk * _ROW_BLOCK
        r1 = min(n, r0 + _ROW_BLOCK)
        for t in range(t_begin, t_end):
            off = tree_ptr[t]
            k = tree_group[t]
            for r in range(r0, r1):
                node = _walk(data, missing, r, off, left, feature, split, default_left,
                             is_leaf)
                margin[r, k] += value[off + node]


@njit(cache=True, nogil=True, parallel=True)
def _leaves_from_positions(X, position, parent, removed, left, feature, threshold, default_left,
                           is_leaf, out):
    for r in prange(X.shape[0]):
        node = position[r]
        if node < 0:  # not routed by the grower: walk the tree
            node = _walk(X, F32_NAN, r, 0, left, feature, threshold, default_left, is_leaf)
        while removed[node]:  # pruned away: its row is in the ancestor that became a leaf
            node = parent[node]
        out[r] = node


@njit(cache=True, nogil=True, parallel=True)
def _leaves(data, missing, off, left, feature, split, default_left, is_leaf, out):
    for r in prange(data.shape[0]):
        out[r] = _walk(data, missing, r, off, left, feature, split, default_left, is_leaf)


@njit(cache=True, nogil=True, parallel=True)
def _passes_through(data, missing, off, left, feature, split, default_left, depth, node, out):
    # Walk the *grown* tree down to the node's depth and test whether we arrive at it.
    target_depth = depth[off + node]
    for r in prange(data.shape[0]):
        cur = 0
        for _ in range(target_depth):
            if left[off + cur] == -1:
                break
            cur = _child(data, r, off + cur, left, feature, split, default_left, missing)
        out[r] = cur == node


def _walked(X: np.ndarray, forest: Forest, split) -> tuple[np.ndarray, np.ndarray]:
    """The rows and the thresholds (the forest's, or ``split`` for bin codes) as read-only
    views, whoever the caller: one compiled signature of each walking kernel
    (``layout.read_only``)."""
    return read_only(X), read_only(forest.threshold if split is None else split)


def add_tree_outputs(forest: Forest, X: np.ndarray, margin: np.ndarray, t_begin: int,
                     t_end: int, split=None, missing=F32_NAN) -> None:
    """``margin[r, group(t)] += value of the leaf of row r in tree t`` for t in [begin, end),
    in tree order and float32, as XGBoost's predictor adds them. (``split``, ``missing``:
    ``X`` is bin codes, see above; by default values and the thresholds.)"""
    if t_end > t_begin:
        X, threshold = _walked(X, forest, split)
        _add_trees(X, missing, forest.tree_ptr, forest.tree_group, forest.left, forest.feature,
                   threshold, forest.default_left,
                   forest.is_leaf, forest.value, t_begin, t_end, margin)


def leaf_of_rows(forest: Forest, X: np.ndarray, tree_idx: int, split=None,
                 missing=F32_NAN) -> np.ndarray:
    """Node id (within the tree) of the final leaf each row reaches, int32."""
    out = np.empty(X.shape[0], dtype=np.int32)
    X, threshold = _walked(X, forest, split)
    _leaves(X, missing, int(forest.tree_ptr[tree_idx]), forest.left, forest.feature,
            threshold, forest.default_left, forest.is_leaf,
            out)
    return out


@njit(cache=True, nogil=True)
def _path(x, off, left, feature, threshold, default_left, is_leaf, out):
    node = 0
    n = 0
    out[n] = 0
    while not is_leaf[off + node]:
        node = _child(x, 0, off + node, left, feature, threshold, default_left, F32_NAN)
        n += 1
        out[n] = node
    return n + 1


def path_of_row(forest: Forest, x32: np.ndarray, tree_idx: int) -> list[int]:
    """Node ids (root first) a single row (shape (1, n_features), float32) visits down to
    the final leaf of tree ``tree_idx``."""
    out = np.empty(int(forest.depth.max(initial=0)) + 1, dtype=np.int32)
    n = _path(x32, int(forest.tree_ptr[tree_idx]), forest.left, forest.feature,
              forest.threshold, forest.default_left, forest.is_leaf, out)
    return out[:n].tolist()


def rows_in_node(forest: Forest, X: np.ndarray, tree_idx: int, node_id: int, split=None,
                 missing=F32_NAN) -> np.ndarray:
    """Boolean mask of the rows that reach ``node_id`` of the grown tree (pruned or not)."""
    out = np.empty(X.shape[0], dtype=np.bool_)
    X, threshold = _walked(X, forest, split)
    _passes_through(X, missing, int(forest.tree_ptr[tree_idx]), forest.left, forest.feature,
                    threshold, forest.default_left,
                    forest.depth, node_id, out)
    return out


# Margins kept for round views: at most this many, and at most this many bytes. They only
# save time (a view adds the trees after the nearest one), so they stay small beside the rows
# the model keeps: a million rows keep 3 or 4, 100k rows all 16 (docs/design.md: the trace).
_MAX_CHECKPOINTS = 16
_CHECKPOINT_BYTES = 16 << 20


def checkpoint_every(rounds: int, n_samples: int, n_groups: int) -> int:
    """Spacing of margin checkpoints (training's, a data sample's): about 16 over the
    rounds, fewer if they would be large."""
    every = max(1, -(-rounds // _MAX_CHECKPOINTS))
    size = n_samples * n_groups * 4
    while (rounds // every) * size > _CHECKPOINT_BYTES and every < rounds:
        every *= 2
    return every


def initial_margin(n_samples: int, base_margin: np.ndarray) -> np.ndarray:
    """``(n_samples, n_groups)`` float32 margins filled with the intercept."""
    return np.tile(base_margin.astype(WEIGHT), (n_samples, 1))


def leaf_of_nodes(nodes: dict, X: np.ndarray, position: np.ndarray | None = None) -> np.ndarray:
    """``leaf_of_rows`` for one tree still held as node arrays (while training). With
    ``position``, the exact grower's leaf of each row in the grown tree (-1: unknown), only
    the rows it does not know are walked; the others are mapped through pruning."""
    X, out = read_only(X), np.empty(X.shape[0], dtype=np.int32)
    if position is not None:
        _leaves_from_positions(X, position, nodes["parent"], nodes["removed"], nodes["left"],
                               nodes["feature"], nodes["threshold"], nodes["default_left"],
                               nodes["is_leaf"], out)
        return out
    # read-only as a built forest's arrays (leaf_of_rows): one compiled signature
    _leaves(X, F32_NAN, 0, *(read_only(nodes[k]) for k in (
        "left", "feature", "threshold", "default_left", "is_leaf")), out)
    return out
