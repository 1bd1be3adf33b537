"""A node's histogram: per bin, the (G, H) sums of its rows, built from them or subtracted.

A histogram is one complex128 per bin (G in .real, H in .imag, so a row adds both with one
16-byte add), feature f's bin b at ``f * stride + b`` (``binning.Bins``). ``_build`` sums
the rows of one or more nodes, a block of features per thread, each row read once for all
its block's features; every bin adds its rows in row order, so the float64 sums are
XGBoost's with ``nthread=1`` whatever the blocking. The sibling of a built child is
``parent - built`` (``_subtract_range``, histogram subtraction, a block of features at a
time in ``splitting._search``). ``root_sums`` is the root's (G, H) as XGBoost takes them.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..simd import prefetch
from .binning import feature_block

_AHEAD = 16  # rows read through row ids are prefetched this many rows ahead
_GROUP = 4  # rows added per step: four independent read-add-writes per feature


@njit(cache=True, nogil=True, inline="always")
def _row_at(rows, indexed, k):
    return np.int64(rows[k]) if indexed else k


@njit(cache=True, nogil=True, inline="always")
def _add_value(hh, j, code, x, dense, missing):
    if dense or code != missing:
        hh[j, code] += x  # g in .real, h in .imag


@njit(cache=True, nogil=True, inline="always")
def _add_rows(bins, gh, rows, indexed, dense, missing, start, end, f0, f1, hh):
    """hh[j, code] += (g, h) of the rows at positions start:end, for the block's features
    f0 + j. Inlined with constant ``indexed`` and ``dense``, so each case gets its own loop.

    Rows go in groups of four: per feature the group's four values are added one after the
    other (so each bin still sums its rows in row order) but their read-add-writes overlap,
    which a loop over one row at a time leaves to chance (measured: 20-30% less time)."""
    width = bins.shape[1]
    n_f = f1 - f0
    k = start
    while k + _GROUP <= end:
        if indexed and k + _AHEAD + _GROUP <= end:
            for i in range(_GROUP):
                prefetch(bins, np.int64(rows[k + _AHEAD + i]) * width)
        r0 = _row_at(rows, indexed, k)
        r1 = _row_at(rows, indexed, k + 1)
        r2 = _row_at(rows, indexed, k + 2)
        r3 = _row_at(rows, indexed, k + 3)
        x0 = np.complex128(gh[r0])  # float32 -> float64 is exact
        x1 = np.complex128(gh[r1])
        x2 = np.complex128(gh[r2])
        x3 = np.complex128(gh[r3])
        c0 = bins[r0, f0:f1]  # slices of the block: the compiler keeps them tight
        c1 = bins[r1, f0:f1]
        c2 = bins[r2, f0:f1]
        c3 = bins[r3, f0:f1]
        for j in range(n_f):
            _add_value(hh, j, c0[j], x0, dense, missing)
            _add_value(hh, j, c1[j], x1, dense, missing)
            _add_value(hh, j, c2[j], x2, dense, missing)
            _add_value(hh, j, c3[j], x3, dense, missing)
        k += _GROUP
    for kk in range(k, end):
        r = _row_at(rows, indexed, kk)
        x = np.complex128(gh[r])
        c = bins[r, f0:f1]
        for j in range(n_f):
            _add_value(hh, j, c[j], x, dense, missing)


@njit(cache=True, nogil=True, parallel=True)
def _build(records, missing, n_features, stride, gh, rows, indexed, starts, ends, slots,
           hist):
    """hist[slots[t]] = the sums of (g, h) of the rows at positions starts[t]:ends[t], per
    bin; a histogram holds feature f's bin b at ``f * stride + b`` (see ``Bins``).

    ``indexed``: the position k holds row ``rows[k]`` of the records and ``gh`` (training
    order); otherwise row k (the root, whose rows are 0..n-1).

    The blocks of ``records`` (``binning.block_records``; ``gh`` their (g, h) slots) are
    processed in parallel; within a block each row is read once for all its features. Every
    bin still accumulates its rows in row order, so the sums do not depend on the
    blocking."""
    n_blocks = records.shape[0]
    for blk in prange(n_blocks):
        f0, f1 = feature_block(n_features, n_blocks, blk)
        _build_block(records[blk], missing, stride, gh[blk], rows, indexed, starts, ends, slots,
                     hist, f0, f1)


# Compiled on its own, not inlined into the parallel loops that call it: numba's analysis of a
# parallel loop grows much faster than its body (inlined here, ``_search`` took about a minute
# to compile per signature); the call per block of features costs nothing measurable.
@njit(cache=True, nogil=True)
def _build_block(own, missing, stride, gh, rows, indexed, starts, ends, slots, hist, f0, f1):
    """``_build`` for the features f0:f1, whose codes are the first f1 - f0 of each of the
    block's records ``own`` (its (g, h): ``gh``)."""
    dense = missing < 0  # no code means missing: no test per value
    n_f = f1 - f0
    for t in range(starts.shape[0]):
        # This block's features as a (feature, bin) matrix: one multiply-add per value.
        hh = hist[slots[t], f0 * stride:f1 * stride].reshape((n_f, stride))
        hh[:, :] = 0.0  # the pool is reused
        a, b = starts[t], ends[t]
        if indexed:
            if dense:
                _add_rows(own, gh, rows, True, True, missing, a, b, 0, n_f, hh)
            else:
                _add_rows(own, gh, rows, True, False, missing, a, b, 0, n_f, hh)
        elif dense:
            _add_rows(own, gh, rows, False, True, missing, a, b, 0, n_f, hh)
        else:
            _add_rows(own, gh, rows, False, False, missing, a, b, 0, n_f, hh)


@njit(cache=True, nogil=True, inline="always")
def _subtract_range(parent, built, sibling, lo, hi):
    """The sibling's bins lo:hi = the parent's minus the built child's."""
    for i in range(lo, hi):
        sibling[i] = parent[i] - built[i]


@njit(cache=True, nogil=True, parallel=True)
def _store_gradients(g, h, gh):
    """Every block's (g, h) slots (``gh``: n_blocks x n_samples) = (g, h)."""
    for r in prange(g.shape[0]):
        x = np.complex64(complex(g[r], h[r]))  # float32 g and h, exactly
        for blk in range(gh.shape[0]):
            gh[blk, r] = x


@njit(cache=True, nogil=True)
def _sequential_sums(g, h):
    sg = np.float64(0.0)
    sh = np.float64(0.0)
    for r in range(g.shape[0]):
        sg += g[r]
        sh += h[r]
    return sg, sh


@njit(cache=True, nogil=True)
def _bin_sums(hh, a, b):
    sg = np.float64(0.0)
    sh = np.float64(0.0)
    for i in range(a, b):
        sg += hh[i].real
        sh += hh[i].imag
    return sg, sh


@njit(cache=True, nogil=True)
def root_sums(root_hist, ptrs, g, h, from_bins):
    """The root's (G, H) as XGBoost's hist takes them: on data without a missing value, the
    sum of feature 0's bins; otherwise every row in order (approx: always the rows)."""
    if from_bins:
        return _bin_sums(root_hist, ptrs[0], ptrs[1])
    return _sequential_sums(g, h)
