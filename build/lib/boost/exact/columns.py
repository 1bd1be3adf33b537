"""exact's input: each feature's present values sorted once per training (``SortedColumns``).

A feature's rows are sorted by value, ties by row index — the order XGBoost's column scan
reads them, so every float64 sum of a node is added in XGBoost's order. The root segments
of every tree are these entries, as (value, row) words (``records.WORD_*``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ..layout import read_only
from ..radix import stable_argsort
from ..records import pack_words, word_fields


class SortedColumns:
    """Each feature's present values in ascending order, CSC-style.

    ``rows[col_ptr[f]:col_ptr[f+1]]`` are the row indices of feature f sorted by value
    (ties by row index) and ``values[...]`` their float32 values. ``need_forward[f]`` says
    whether XGBoost runs the forward (missing -> right) scan: the column has a missing value
    and its present values are not all equal.
    """

    def __init__(self, X: np.ndarray):
        self.col_ptr, self.rows, self.values, self.need_forward = sort_columns(read_only(X))
        # (value, row) words (records.WORD_*): the root segments of every tree.
        self.root_rv = pack_words(self.values, self.rows)

    def arrays(self) -> Columns:
        """The arrays as ``grower.grow_exact`` takes them."""
        return Columns(self.col_ptr, self.rows, self.root_rv, *word_fields(self.root_rv),
                       self.need_forward)


@njit(cache=True, nogil=True, parallel=True, error_model="numpy")
def sort_columns(X):
    """(col_ptr, rows, values, need_forward) of ``SortedColumns``, from X (float32)."""
    n_samples, n_features = X.shape
    counts = np.zeros(n_features, dtype=np.int64)
    for f in prange(n_features):
        c = 0
        for i in range(n_samples):
            if not math.isnan(X[i, f]):
                c += 1
        counts[f] = c
    col_ptr = np.zeros(n_features + 1, dtype=np.int64)
    for f in range(n_features):
        col_ptr[f + 1] = col_ptr[f] + counts[f]
    rows = np.empty(col_ptr[-1], dtype=np.int32)
    values = np.empty(col_ptr[-1], dtype=np.float32)
    need_forward = np.zeros(n_features, dtype=np.bool_)
    for f in prange(n_features):
        present = np.empty(counts[f], dtype=np.int32)
        c = 0
        for i in range(n_samples):
            if not math.isnan(X[i, f]):
                present[c] = i
                c += 1
        order = stable_argsort(X[present, f])  # ties by row index
        start = col_ptr[f]
        for j in range(counts[f]):
            r = present[order[j]]
            rows[start + j] = r
            values[start + j] = X[r, f]
        k = counts[f]
        indicator = k != 0 and values[start] == values[start + k - 1]
        need_forward[f] = k < n_samples and not indicator
    return col_ptr, rows, values, need_forward


class Columns(NamedTuple):
    """``SortedColumns``' arrays, as the kernels take them."""

    col_ptr: np.ndarray  # (n_features + 1,) int64: feature f's entries are col_ptr[f]:col_ptr[f+1]
    rows: np.ndarray  # int32 row of each entry, by ascending value (ties by row)
    root_rv: np.ndarray  # int64 (value, row) words of the entries (records.WORD_*)
    root_vf: np.ndarray  # their (n, 2) float32 view
    root_vi: np.ndarray  # their (n, 2) int32 view
    need_forward: np.ndarray  # bool per feature: the forward scan runs


