"""A hist model's training rows as bin codes: what its trace keeps instead of the floats.

Every split of a hist tree is on a cut value: ``x < cut[b]`` sends left exactly the rows whose
bin is at most ``b`` (a value's bin is the number of cuts <= it, ``hist.bin_matrix``), and a
missing value has its own code. So the codes the grower builds anyway route every training
row through every tree as the float values would — round views, margins, a node's rows and
its histogram — at a quarter of the floats' memory (uint8 codes; uint16 past 256 bins).

A split's bin is not stored in the forest: ``split_bins`` finds it from the threshold among
the tree's cuts (``b`` with ``cut[b] == threshold``; -1 for a backward scan's first candidate,
whose threshold is the feature's ``min_val`` below every value: no present value goes left).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from .node_rules import bin_goes_left


@dataclass(frozen=True)
class BinnedRows:
    """Bin codes of the training rows, feature by feature: ``codes[f, r]`` (uint8/uint16),
    ``missing`` the code of a missing value (-1 when nothing is missing)."""

    codes: np.ndarray
    missing: int

    @property
    def n_samples(self) -> int:
        return self.codes.shape[1]


@njit(cache=True, nogil=True)
def codes_match(values, cuts, codes, missing) -> bool:
    """Whether each of a feature's float32 ``values`` falls in the bin its code says: the
    bin of x is the number of ``cuts`` <= x, at most the last; NaN has ``missing``. Each
    value is compared with its own bin's two cuts (no search over the cuts)."""
    last = cuts.shape[0] - 1
    for r in range(values.shape[0]):
        v = values[r]
        c = np.int64(codes[r])
        if math.isnan(v):
            if c != missing:
                return False
        elif c == missing or c > last:
            return False
        elif (c > 0 and v < cuts[c - 1]) or (c < last and v >= cuts[c]):
            return False
    return True


def split_bins(forest, tree_cuts: list) -> np.ndarray:
    """Each forest node's split bin (int32; -1 for leaves and for a threshold below every
    cut). Raises ValueError if a threshold is not one of its tree's cuts (not a hist tree)."""
    out = np.full(len(forest.left), -1, dtype=np.int32)
    split = forest.feature >= 0
    owner = np.repeat(np.arange(forest.n_trees), np.diff(forest.tree_ptr))
    for cuts in {id(c): c for c in tree_cuts}.values():
        trees = np.array([t for t, c in enumerate(tree_cuts) if c is cuts])
        nodes = np.nonzero(split & np.isin(owner, trees))[0]
        for f in np.unique(forest.feature[nodes]):
            at = nodes[forest.feature[nodes] == f]
            values, thr = cuts.feature_cuts(int(f)), forest.threshold[at]
            b = np.searchsorted(values, thr, side="right") - 1
            ok = np.where(b >= 0, values[np.maximum(b, 0)] == thr, thr <= values[0])
            if not ok.all():
                raise ValueError("a split threshold is not a cut value: the rows cannot be "
                                 "routed by their bins")
            out[at] = b
    return out


@njit(cache=True, nogil=True, inline="always")
def _walk(codes, missing, r, off, left, feature, split_bin, default_left, stop):
    """The node of the tree at ``off`` where row r stops (``stop``: is_leaf, say)."""
    node = 0
    while not stop[off + node]:
        i = off + node
        go_left = bin_goes_left(codes[feature[i], r], missing, default_left[i], split_bin[i])
        node = left[i] + np.int32(not go_left)
    return node


_ROW_BLOCK = 64


@njit(cache=True, nogil=True, parallel=True)
def _add_trees(codes, missing, tree_ptr, tree_group, left, feature, split_bin, default_left,
               is_leaf, value, t_begin, t_end, margin):
    # As tree._add_trees: blocks of rows, each row adding its trees in tree order (float32).
    n = codes.shape[1]
    for blk in prange((n + _ROW_BLOCK - 1) // _ROW_BLOCK):
        r0 = blk * _ROW_BLOCK
        r1 = min(n, r0 + _ROW_BLOCK)
        for t in range(t_begin, t_end):
            off = tree_ptr[t]
            k = tree_group[t]
            for r in range(r0, r1):
                node = _walk(codes, missing, r, off, left, feature, split_bin, default_left,
                             is_leaf)
                margin[r, k] += value[off + node]


@njit(cache=True, nogil=True, parallel=True)
def _leaves(codes, missing, off, left, feature, split_bin, default_left, is_leaf, out):
    for r in prange(codes.shape[1]):
        out[r] = _walk(codes, missing, r, off, left, feature, split_bin, default_left, is_leaf)


@njit(cache=True, nogil=True, parallel=True)
def _passes_through(codes, missing, off, left, feature, split_bin, default_left, depth, node,
                    out):
    # Walk the *grown* tree down to the node's depth and test whether we arrive at it.
    for r in prange(codes.shape[1]):
        cur = 0
        for _ in range(depth[off + node]):
            i = off + cur
            if left[i] == -1:
                break
            go_left = bin_goes_left(codes[feature[i], r], missing, default_left[i],
                                    split_bin[i])
            cur = left[i] + np.int32(not go_left)
        out[r] = cur == node


def add_tree_outputs(forest, rows: BinnedRows, split_bin, margin, t_begin: int, t_end: int):
    """``tree.add_tree_outputs`` for binned rows: the same leaves, the same float32 sums."""
    if t_end > t_begin:
        _add_trees(rows.codes, rows.missing, forest.tree_ptr, forest.tree_group, forest.left,
                   forest.feature, split_bin, forest.default_left, forest.is_leaf,
                   forest.value, t_begin, t_end, margin)


def leaf_of_rows(forest, rows: BinnedRows, split_bin, tree_idx: int) -> np.ndarray:
    """``tree.leaf_of_rows`` for binned rows."""
    out = np.empty(rows.n_samples, dtype=np.int32)
    _leaves(rows.codes, rows.missing, int(forest.tree_ptr[tree_idx]), forest.left,
            forest.feature, split_bin, forest.default_left, forest.is_leaf, out)
    return out


def rows_in_node(forest, rows: BinnedRows, split_bin, tree_idx: int, node_id: int):
    """``tree.rows_in_node`` for binned rows."""
    out = np.empty(rows.n_samples, dtype=np.bool_)
    _passes_through(rows.codes, rows.missing, int(forest.tree_ptr[tree_idx]), forest.left,
                    forest.feature, split_bin, forest.default_left, forest.depth, node_id, out)
    return out
