"""Arrays as the kernels take them: column-major copies of row-major matrices (the sketch
reads a feature's values, the hist partition a feature's codes, each contiguously), and
read-only views (``read_only``).

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
    X, idx = read_only(X), np.asarray(features, dtype=np.int64)
    out = np.empty((len(idx), X.shape[0]), dtype=X.dtype)
    if len(idx) and X.shape[0]:
        _transpose(X, idx, out)
    return out


def read_only(a: np.ndarray) -> np.ndarray:
    """``a`` as a read-only view (``a`` itself keeps its flags).

    numba compiles a kernel once per argument types, and a read-only array is a type of its
    own: a kernel called with a training's writable arrays and again with a trace's frozen
    ones is compiled twice (for hist's grower, about a minute each on a fresh checkout).
    The engine hands its read-only inputs to the kernels as read-only views, so one machine
    code serves both."""
    if not a.flags.writeable:
        return a
    view = a.view()
    view.flags.writeable = False
    return view


# What the kernels read as weights when there are none: read-only like every weight array
# (``data.as_weights``), so both cases are one compiled signature.
NO_WEIGHT = read_only(np.ones(1, dtype=np.float32))
