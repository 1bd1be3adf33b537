"""A hist model's training rows as bin codes: what its trace keeps instead of the floats.

Every split of a hist tree is on a cut value: ``x < cut[b]`` sends left exactly the rows whose
bin is at most ``b`` (a value's bin is the number of cuts <= it, ``hist.binning.bin_matrix``), and a
missing value has its own code. So the codes the grower builds anyway route every training
row through every tree as the float values would — round views, margins, a node's rows and
its histogram — at a quarter of the floats' memory (uint8 codes; uint16 past 256 bins). The
walks are ``tree``'s, on the codes: ``x < cut[b]`` is ``code < b + 1``, and the missing code
(the dtype's largest) is above every bin, as NaN is less than no threshold.

A split's bin is not stored in the forest: ``split_bins`` finds it from the threshold among
the tree's cuts (``b`` with ``cut[b] == threshold``; -1 for a backward scan's first candidate,
whose threshold is the feature's ``min_val`` below every value: no present value goes left).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from . import tree


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


def _walk_args(rows: BinnedRows, split_bin) -> dict:
    """``tree``'s walks on bin codes: row r's code of feature f at ``[r, f]`` (the codes
    transposed, no copy), each split's first code that goes right (its bin + 1) and the
    missing code, which is above every bin (or -1), as ``node_rules.routes_right`` needs."""
    return {"split": split_bin + np.int32(1), "missing": rows.missing}


def add_tree_outputs(forest, rows: BinnedRows, split_bin, margin, t_begin: int, t_end: int):
    """``tree.add_tree_outputs`` for binned rows: the same leaves, the same float32 sums."""
    tree.add_tree_outputs(forest, rows.codes.T, margin, t_begin, t_end,
                          **_walk_args(rows, split_bin))


def leaf_of_rows(forest, rows: BinnedRows, split_bin, tree_idx: int) -> np.ndarray:
    """``tree.leaf_of_rows`` for binned rows."""
    return tree.leaf_of_rows(forest, rows.codes.T, tree_idx, **_walk_args(rows, split_bin))


def rows_in_node(forest, rows: BinnedRows, split_bin, tree_idx: int, node_id: int):
    """``tree.rows_in_node`` for binned rows."""
    return tree.rows_in_node(forest, rows.codes.T, tree_idx, node_id,
                             **_walk_args(rows, split_bin))
