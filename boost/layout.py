"""Column-major copies of row-major matrices (the sketch reads a feature's values, the hist
partition a feature's codes, each contiguously).

``np.ascontiguousarray(X[:, idx].T)`` walks the matrix one column at a time, reading a whole
cache line for every value it keeps (186 ms for 1M x 28 float32 here); this kernel copies
blocks of rows, all their columns at once, with the rows still in cache, in parallel.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

_ROWS = 2048  # rows per block: a block of a few dozen columns stays in L2


@njit(cache=True, nogil=True, parallel=True)
def _transpose(X, features, out):
    n = X.shape[0]
    for blk in prange((n + _ROWS - 1) // _ROWS):
        a = blk * _ROWS
        b = min(n, a + _ROWS)
        for j in range(features.shape[0]):
            f = features[j]
            for r in range(a, b):
                out[j, r] = X[r, f]


def column_major(X: np.ndarray, features) -> np.ndarray:
    """``X[:, features].T`` as a C-contiguous array."""
    idx = np.asarray(features, dtype=np.int64)
    out = np.empty((len(idx), X.shape[0]), dtype=X.dtype)
    if len(idx) and X.shape[0]:
        _transpose(X, idx, out)
    return out
