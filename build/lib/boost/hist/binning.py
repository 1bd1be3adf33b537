"""Feature values to bins: each row's bin codes, cut into the row records the build reads.

Each feature value is replaced by its bin (``bin_matrix``: uint8 when every feature has at
most 255 bins, else uint16; the largest code means missing): the index of the first cut
above it. The features are cut into one contiguous block per thread (``feature_block``,
``record_blocks``) and each row gets one record per block (``block_records``): the block's
codes, then the row's (g, h), so a histogram build's thread streams only its own bytes
(docs/records.md). ``Bins`` is the cuts as the kernels read them.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from ..data import any_rows
from ..layout import column_major, read_only
from ..sketch import Cuts


class Bins(NamedTuple):
    """The cuts as the kernels read them: feature f's bins are ``ptrs[f]:ptrs[f + 1]`` of
    ``values`` (each bin's upper cut), ``min_vals[f]`` its least value, and a histogram
    holds its bin b at ``f * stride + b`` (``hist_stride``)."""

    ptrs: np.ndarray  # (n_features + 1,) int64
    values: np.ndarray  # float32
    min_vals: np.ndarray  # (n_features,) float32
    stride: int

    @classmethod
    def of(cls, cuts: Cuts) -> Bins:
        return cls(cuts.ptrs, cuts.values, cuts.min_vals, hist_stride(cuts))


def hist_stride(cuts: Cuts) -> int:
    """Histogram slots per feature in the grower's histograms: the most bins of any feature,
    so feature f's bin b sits at ``f * stride + b`` (a few unused slots buy a build with no
    offset table)."""
    return max(1, int(np.diff(cuts.ptrs).max(initial=1)))


def bin_dtype(cuts: Cuts, dense: bool):
    """uint8 when the codes (and, if anything is missing, the missing code) fit in a byte."""
    return np.uint8 if cuts.max_bins <= (256 if dense else 255) else np.uint16


def missing_code(dtype, dense: bool) -> int:
    """The code of a missing value: the dtype's largest value, or -1 (matches no code) for
    data without missing values, where every byte value may be a bin."""
    return -1 if dense else int(np.iinfo(dtype).max)


_BUCKETS = 1024  # per feature: a value's bucket gives a first guess of its bin


@njit(cache=True, nogil=True, parallel=True)
def _bucket_table(ptrs, values, lows, scales, table):
    """table[f, k] = the bin of the bucket's lower end (upper_bound of it among the cuts)."""
    for f in prange(ptrs.shape[0] - 1):
        a = ptrs[f]
        n_cuts = ptrs[f + 1] - a
        b = 0
        for k in range(_BUCKETS):
            edge = lows[f] + k / scales[f]
            while b < n_cuts and values[a + b] <= edge:
                b += 1
            table[f, k] = b


@njit(cache=True, nogil=True, parallel=True)
def _bin_kernel(X, ptrs, values, lows, scales, table, missing, out):
    """Bin of x = index of the first cut > x (upper_bound), clamped to the last bin. The
    bucket table gives a guess that a short walk corrects, so the result is exact whatever
    the guess; the walk is short because cuts are quantiles."""
    n_samples, n_features = X.shape
    for r in prange(n_samples):  # codes beyond n_features stay 0 (padding)
        for f in range(n_features):
            x = X[r, f]
            if math.isnan(x):
                out[r, f] = missing
                continue
            a = ptrs[f]
            n_cuts = ptrs[f + 1] - a
            t = (np.float64(x) - lows[f]) * scales[f]
            k = 0 if t < 0.0 else (_BUCKETS - 1 if t >= _BUCKETS - 1 else np.int64(t))
            b = table[f, k]
            while b > 0 and values[a + b - 1] > x:
                b -= 1
            while b < n_cuts and values[a + b] <= x:
                b += 1
            out[r, f] = min(b, n_cuts - 1)


def bin_matrix(X: np.ndarray, cuts: Cuts, dense: bool | None = None) -> tuple[np.ndarray, int]:
    """Bin codes, shape (n_samples, n_features rounded up to 8 bytes), and the code of a
    missing value. ``dense``: whether X has no NaN, when the caller already knows."""
    X = read_only(X)  # one compiled signature whoever calls (layout.read_only)
    if dense is None:
        dense = not any_rows(X, np.isnan)
    dtype = bin_dtype(cuts, dense)
    per_word = 8 // np.dtype(dtype).itemsize
    width = -(-X.shape[1] // per_word) * per_word
    out = np.zeros((X.shape[0], width), dtype=dtype)
    missing = missing_code(dtype, dense)
    n_features = cuts.n_features
    first = cuts.values[cuts.ptrs[:-1]].astype(np.float64)
    last = cuts.values[cuts.ptrs[1:] - 1].astype(np.float64)
    lows = np.minimum(first, last)
    spans = last - lows
    scales = np.where(np.isfinite(spans) & (spans > 0), _BUCKETS / np.where(spans > 0, spans, 1),
                      0.0)
    scales[~np.isfinite(scales)] = 0.0
    table = np.empty((n_features, _BUCKETS), dtype=np.int64)
    _bucket_table(cuts.ptrs, cuts.values, lows, np.where(scales > 0, scales, np.inf), table)
    _bin_kernel(X, cuts.ptrs, cuts.values, lows, scales, table, missing, out)
    return out, missing


@njit(cache=True, nogil=True, inline="always")
def feature_block(n_features, n_blocks, blk):
    """The features f0:f1 of block ``blk`` (contiguous, as even as they come)."""
    return blk * n_features // n_blocks, (blk + 1) * n_features // n_blocks


def record_blocks(n_features: int) -> int:
    """How many blocks of features the row records are cut into: one per thread."""
    return max(1, min(numba.get_num_threads(), n_features))


def block_records(codes: np.ndarray, n_features: int, n_blocks: int) -> np.ndarray:
    """hist's row records, shape (n_blocks, n_samples, width): for each block of features
    (``feature_block``) and row, the block's codes, padding to 8 bytes, then 8 bytes for the
    row's (g, h) (``records.gh_view``). A histogram build gives each block to one thread,
    which then streams only its own records (at 1M x 28 on 2 threads: 24 bytes a row
    instead of the whole row's 40, ``benchmarks/bench_records.py``)."""
    per_word = 8 // codes.dtype.itemsize
    widest = -(-n_features // n_blocks)  # the blocks' features differ by one at most
    width = -(-widest // per_word) * per_word + per_word
    out = np.zeros((n_blocks, codes.shape[0], width), dtype=codes.dtype)
    _fill_blocks(codes, n_features, out)
    return out


@njit(cache=True, nogil=True, parallel=True)
def _fill_blocks(codes, n_features, out):
    n_blocks = out.shape[0]
    for r in prange(codes.shape[0]):
        for blk in range(n_blocks):
            f0, f1 = feature_block(n_features, n_blocks, blk)
            for j in range(f1 - f0):
                out[blk, r, j] = codes[r, f0 + j]


def binned_rows(X: np.ndarray, cuts: Cuts, dense: bool) -> tuple[np.ndarray, int, np.ndarray]:
    """``X`` binned for the grower: its row records (``block_records``, ``record_blocks``
    blocks), the code of a missing value and the codes feature by feature (the partition's)."""
    codes, missing = bin_matrix(X, cuts, dense=dense)
    n_features = X.shape[1]
    return (block_records(codes, n_features, record_blocks(n_features)), missing,
            column_major(codes, np.arange(n_features)))
