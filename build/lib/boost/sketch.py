"""Histogram cut points: XGBoost 3.2's weighted quantile sketch, reproduced to the bit.

The XGBoost paper (Chen & Guestrin 2016, §3.3 and appendix) makes approximate split finding
scale with a *weighted quantile sketch*: a summary of each feature that keeps, for a few
values v, bounds on the total weight below v (``rmin``) and up to v (``rmax``), small enough
to build in one pass and mergeable. The cut points of the histogram are read off it.

Two sketches, as in XGBoost (docs/xgboost-rules.md §10):

* ``hist`` (``hist_cuts``): values pushed in row order into a queue that is sorted and
  summarised when full, summaries merged level by level (WQSummary: ``_combine`` then
  ``_prune``), weights = sample weights (1 without). Built once per training set. Below about
  8k rows per feature the summary is exact, and the cuts are every distinct value but the
  smallest.
* ``approx`` (``sorted_cuts``): values pushed in ascending order with weights
  hessian x sample weight into a streaming quantile (SortedQuantile), pruned with
  WXQSummary's big-chunk-preserving rule. Re-built every round.

A summary is a float32 array of shape (capacity, 4) with columns rmin, rmax, wmin, value and
a separate size; all rank arithmetic is float32, as XGBoost's ``WQSummary<float, float>``.

Cuts of feature f are ``values[ptrs[f]:ptrs[f+1]]``: ascending, the last one a sentinel
above every value. Bin of x = index of the first cut > x (clamped to the last bin);
``min_vals[f]`` is below every value and is the threshold that sends every present value
right.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange

from . import objectives
from .layout import NO_WEIGHT, column_major, read_only
from .stdsort import std_sort

RMIN, RMAX, WMIN, VALUE = 0, 1, 2, 3
_F32_TWO = np.float32(2.0)
_K_FACTOR = 8  # XGBoost's kFactor: intermediate summaries keep 8 x max_bin entries


@dataclass(frozen=True)
class Cuts:
    """Per-feature histogram cut points (XGBoost's ``HistogramCuts``)."""

    ptrs: np.ndarray  # (n_features + 1,) int64
    values: np.ndarray  # float32, ascending per feature, last = sentinel
    min_vals: np.ndarray  # (n_features,) float32

    def __post_init__(self):
        # Read-only whoever made them (a kernel is compiled once per argument type, and a
        # read-only array is a type of its own: see layout.read_only).
        for name in ("ptrs", "values", "min_vals"):
            object.__setattr__(self, name, read_only(getattr(self, name)))

    @property
    def n_features(self) -> int:
        return len(self.ptrs) - 1

    def feature_cuts(self, f: int) -> np.ndarray:
        return self.values[self.ptrs[f]:self.ptrs[f + 1]]

    @property
    def max_bins(self) -> int:
        return int(np.max(np.diff(self.ptrs))) if self.n_features else 0


# ------------------------------------------------------------------ summary primitives
@njit(cache=True, nogil=True)
def _limit_size(maxn, eps):
    """XGBoost's LimitSizeLevel: the size of each level's summary."""
    nlevel = 1
    while True:
        limit = int(math.ceil(nlevel / eps)) + 1
        limit = min(maxn, limit)
        if (1 << nlevel) * limit >= maxn:
            return limit
        nlevel += 1


@njit(cache=True, nogil=True)
def _copy(src, n, dst):
    for i in range(n):
        for c in range(4):
            dst[i, c] = src[i, c]
    return n


@njit(cache=True, nogil=True, inline="always")
def _nearer(src, i, dx2):
    """Of entries i and i+1, the one whose rank is nearer the target ``dx2 / 2``."""
    return i if dx2 < (src[i, RMIN] + src[i, WMIN]) + (src[i + 1, RMAX] - src[i + 1, WMIN]) \
        else i + 1


@njit(cache=True, nogil=True, inline="always")
def _append(dst, size, src, j):
    """dst[size] = src[j]; returns the new size. (The prunes keep their state in plain
    locals: a helper returning (size, last kept) as a tuple made them 5x slower.)"""
    for c in range(4):
        dst[size, c] = src[j, c]
    return size + 1


@njit(cache=True, nogil=True)
def _prune(src, n_src, maxsize, dst):
    """WQSummary::SetPrune: keep ``maxsize`` entries nearest to evenly spaced ranks."""
    if n_src <= maxsize:
        return _copy(src, n_src, dst)
    begin = src[0, RMAX]
    rng = src[n_src - 1, RMIN] - src[0, RMAX]
    n = maxsize - 1
    nf = np.float32(n)
    size = _append(dst, 0, src, 0)
    i = 1
    lastidx = 0
    for k in range(1, n):
        dx2 = _F32_TWO * ((np.float32(k) * rng) / nf + begin)
        while i < n_src - 1 and dx2 >= src[i + 1, RMAX] + src[i + 1, RMIN]:
            i += 1
        if i == n_src - 1:
            break
        j = _nearer(src, i, dx2)
        if j != lastidx:  # not the entry just kept
            size = _append(dst, size, src, j)
            lastidx = j
    if lastidx != n_src - 1:
        size = _append(dst, size, src, n_src - 1)
    return size


@njit(cache=True, nogil=True)
def _put(dst, k, rmin, rmax, wmin, value):
    dst[k, RMIN] = rmin
    dst[k, RMAX] = rmax
    dst[k, WMIN] = wmin
    dst[k, VALUE] = value


@njit(cache=True, nogil=True)
def _combine(a, na, b, nb, dst):
    """WQSummary::SetCombine: merge two summaries, then repair rounding (FixError)."""
    if na == 0:
        return _copy(b, nb, dst)
    if nb == 0:
        return _copy(a, na, dst)
    ia = 0
    ib = 0
    aprev_rmin = np.float32(0.0)
    bprev_rmin = np.float32(0.0)
    k = 0
    while ia < na and ib < nb:
        if a[ia, VALUE] == b[ib, VALUE]:
            _put(dst, k, a[ia, RMIN] + b[ib, RMIN], a[ia, RMAX] + b[ib, RMAX],
                 a[ia, WMIN] + b[ib, WMIN], a[ia, VALUE])
            aprev_rmin = a[ia, RMIN] + a[ia, WMIN]
            bprev_rmin = b[ib, RMIN] + b[ib, WMIN]
            ia += 1
            ib += 1
        elif a[ia, VALUE] < b[ib, VALUE]:
            _put(dst, k, a[ia, RMIN] + bprev_rmin, a[ia, RMAX] + (b[ib, RMAX] - b[ib, WMIN]),
                 a[ia, WMIN], a[ia, VALUE])
            aprev_rmin = a[ia, RMIN] + a[ia, WMIN]
            ia += 1
        else:
            _put(dst, k, b[ib, RMIN] + aprev_rmin, b[ib, RMAX] + (a[ia, RMAX] - a[ia, WMIN]),
                 b[ib, WMIN], b[ib, VALUE])
            bprev_rmin = b[ib, RMIN] + b[ib, WMIN]
            ib += 1
        k += 1
    if ia < na:
        brmax = b[nb - 1, RMAX]
        while ia < na:
            _put(dst, k, a[ia, RMIN] + bprev_rmin, a[ia, RMAX] + brmax, a[ia, WMIN],
                 a[ia, VALUE])
            ia += 1
            k += 1
    if ib < nb:
        armax = a[na - 1, RMAX]
        while ib < nb:
            _put(dst, k, b[ib, RMIN] + aprev_rmin, b[ib, RMAX] + armax, b[ib, WMIN],
                 b[ib, VALUE])
            ib += 1
            k += 1
    # FixError
    prev_rmin = np.float32(0.0)
    prev_rmax = np.float32(0.0)
    for i in range(k):
        if dst[i, RMIN] < prev_rmin:
            dst[i, RMIN] = prev_rmin
        else:
            prev_rmin = dst[i, RMIN]
        if dst[i, RMAX] < prev_rmax:
            dst[i, RMAX] = prev_rmax
        rmin_next = dst[i, RMIN] + dst[i, WMIN]
        if dst[i, RMAX] < rmin_next:
            dst[i, RMAX] = rmin_next
        prev_rmax = dst[i, RMAX]
    return k


@njit(cache=True, nogil=True)
def _prune_wx(src, n_src, maxsize, dst):
    """WXQSummary::SetPrune: like ``_prune`` but entries heavier than a chunk always stay."""
    if n_src <= maxsize:
        return _copy(src, n_src, dst)
    begin = src[0, RMAX]
    n = maxsize - 2
    nbig = 0
    rng = src[n_src - 1, RMIN] - begin
    if rng == 0.0 or maxsize <= 2:
        for c in range(4):
            dst[0, c] = src[0, c]
            dst[1, c] = src[n_src - 1, c]
        return 2
    rng = max(rng, np.float32(1e-3))
    chunk = _F32_TWO * rng / np.float32(n)
    mrange = np.float32(0.0)
    bid = 0
    for i in range(1, n_src - 1):
        if src[i, RMIN] + src[i, WMIN] > (src[i, RMAX] - src[i, WMIN]) + chunk:
            if bid != i - 1:
                mrange += (src[i, RMAX] - src[i, WMIN]) - (src[bid, RMIN] + src[bid, WMIN])
            bid = i
            nbig += 1
    if bid != n_src - 2:
        mrange += (src[n_src - 1, RMAX] - src[n_src - 1, WMIN]) - (
            src[bid, RMIN] + src[bid, WMIN])
    size = _append(dst, 0, src, 0)
    n = n - nbig
    nf = np.float32(n)
    bid = 0
    k = 1
    lastidx = 0
    for end in range(1, n_src):
        is_big = src[end, RMIN] + src[end, WMIN] > (src[end, RMAX] - src[end, WMIN]) + chunk
        if end == n_src - 1 or is_big:
            if bid != end - 1:
                i = bid
                maxdx2 = (src[end, RMAX] - src[end, WMIN]) * _F32_TWO
                while k < n:
                    dx2 = _F32_TWO * ((np.float32(k) * mrange) / nf + begin)
                    if dx2 >= maxdx2:
                        break
                    while i < end and dx2 >= src[i + 1, RMAX] + src[i + 1, RMIN]:
                        i += 1
                    if i == end:
                        break
                    j = _nearer(src, i, dx2)
                    if j != lastidx:  # not the entry just kept
                        size = _append(dst, size, src, j)
                        lastidx = j
                    k += 1
            if lastidx != end:
                size = _append(dst, size, src, end)
                lastidx = end
            bid = end
            begin += (src[bid, RMIN] + src[bid, WMIN]) - (src[bid, RMAX] - src[bid, WMIN])
    return size


@njit(cache=True, nogil=True)
def _prune_any(src, n_src, maxsize, dst, wx):
    if wx:
        return _prune_wx(src, n_src, maxsize, dst)
    return _prune(src, n_src, maxsize, dst)


# ------------------------------------------------------------------ the level structure
@njit(cache=True, nogil=True)
def _push_temp(temp, n_temp, levels, level_size, limit, wx):
    """QuantileSketchTemplate::PushTemp: carry a summary up the levels (binary counter)."""
    scratch = levels[0]
    for lv in range(1, levels.shape[0]):
        if level_size[lv] == 0:
            level_size[lv] = _prune_any(temp, n_temp, limit, levels[lv], wx)
            return
        level_size[0] = _prune_any(temp, n_temp, limit, scratch, wx)
        n_temp = _combine(scratch, level_size[0], levels[lv], level_size[lv], temp)
        if n_temp > limit:
            level_size[lv] = 0
        else:
            level_size[lv] = _copy(temp, n_temp, levels[lv])
            return
    raise RuntimeError("quantile sketch: out of levels")


@njit(cache=True, nogil=True)
def _queue_summary(qv, qw, qtail, out):
    """Queue::MakeSummary: sort the queued values (as std::sort does, see ``stdsort``), merge
    equal ones keeping the first, exact ranks."""
    std_sort(qv, qw, qtail)
    size = 0
    wsum = np.float32(0.0)
    i = 0
    while i < qtail:
        v = qv[i]
        w = qw[i]
        j = i + 1
        while j < qtail and qv[j] == v:
            w += qw[j]
            j += 1
        _put(out, size, wsum, wsum + w, w, v)
        size += 1
        wsum += w
        i = j
    return size


@njit(cache=True, nogil=True)
def _final_summary(levels, level_size, n_levels_used, out, n_out, limit, wx):
    """GetSummary once the levels are in use: fold every level into one summary."""
    level_size[0] = _prune_any(out, n_out, limit, levels[0], wx)
    for lv in range(1, n_levels_used):
        if level_size[lv] == 0:
            continue
        if level_size[0] == 0:
            level_size[0] = _copy(levels[lv], level_size[lv], levels[0])
        else:
            n_out = _combine(levels[0], level_size[0], levels[lv], level_size[lv], out)
            level_size[0] = _prune_any(out, n_out, limit, levels[0], wx)
    return _copy(levels[0], level_size[0], out)


def _n_levels(maxn, limit):
    n = 1
    while (1 << n) * limit < maxn:
        n += 1
    return n + 2


@njit(cache=True, nogil=True)
def _feature_summary_rows(col, w, use_w, limit, n_levels, out):
    """HostSketchContainer for one feature: push present values in row order (zero weights
    skipped), return the final summary size in ``out``."""
    qcap = 2 * limit
    qv = np.empty(qcap, dtype=np.float32)
    qw = np.empty(qcap, dtype=np.float32)
    qtail = 0
    levels = np.zeros((n_levels, limit, 4), dtype=np.float32)
    level_size = np.zeros(n_levels, dtype=np.int64)
    temp = np.empty((qcap, 4), dtype=np.float32)
    used = False
    one = np.float32(1.0)
    for r in range(col.shape[0]):
        x = col[r]
        if math.isnan(x):
            continue
        wr = w[r] if use_w else one
        if wr == 0.0:
            continue
        if qtail == qcap and qv[qtail - 1] != x:
            n_temp = _queue_summary(qv, qw, qtail, temp)
            qtail = 0
            _push_temp(temp, n_temp, levels, level_size, limit, np.bool_(False))
            used = True
        if qtail == 0 or qv[qtail - 1] != x:
            qv[qtail] = x
            qw[qtail] = wr
            qtail += 1
        else:
            qw[qtail - 1] += wr
    n_out = _queue_summary(qv, qw, qtail, out)
    if used:
        return _final_summary(levels, level_size, n_levels, out, n_out, limit,
                              np.bool_(False))
    if n_out > limit:
        n_out = _prune(out.copy(), n_out, limit, out)
    return n_out


@njit(cache=True, nogil=True)
def _feature_summary_sorted(values, w, sum_total, max_bin, limit, n_levels, out):
    """SortedSketchContainer for one feature: ``values`` ascending with weights ``w``
    (SortedQuantile::Push/Finalize, then the WXQ levels); final summary into ``out``."""
    temp = np.empty((max(2 * limit, max_bin + 1), 4), dtype=np.float32)
    size = 0
    next_goal = -1.0
    rmin = np.float64(0.0)
    wmin = np.float64(0.0)
    last = np.float32(0.0)
    for k in range(values.shape[0]):
        fvalue = values[k]
        wk = w[k]
        if next_goal == -1.0:
            next_goal = np.float64(0.0)
            last = fvalue
            wmin = np.float64(wk)
            continue
        if last != fvalue:
            rmax = rmin + wmin
            if rmax >= next_goal and size != max_bin:
                if size == 0 or last > temp[size - 1, VALUE]:
                    _put(temp, size, np.float32(rmin), np.float32(rmax), np.float32(wmin), last)
                    size += 1
                if size == max_bin:
                    next_goal = sum_total * 2.0 + np.float64(np.float32(1e-5))
                else:
                    next_goal = np.float64(np.float32(size * sum_total / max_bin))
            rmin = rmax
            wmin = np.float64(wk)
            last = fvalue
        else:
            wmin += wk
    rmax = rmin + wmin
    if size == 0 or last > temp[size - 1, VALUE]:
        _put(temp, size, np.float32(rmin), np.float32(rmax), np.float32(wmin), last)
        size += 1
    levels = np.zeros((n_levels, limit, 4), dtype=np.float32)
    level_size = np.zeros(n_levels, dtype=np.int64)
    _push_temp(temp, size, levels, level_size, limit, np.bool_(True))
    # np.int64/np.bool_, not literals: numba would compile each callee for them alone
    return _final_summary(levels, level_size, n_levels, out, np.int64(0), limit,
                          np.bool_(True))


@njit(cache=True, nogil=True)
def _cuts_from_summary(summary, n, column_size, max_bin, out_vals, wx):
    """MakeCuts for one feature: prune to 8 x max_bin, then to max_bin + 1, read the cuts.

    Returns (number of cuts written, min_val)."""
    if column_size == 0:
        min_val = np.float32(1e-5)
        last = np.float64(min_val)
        out_vals[0] = np.float32(last + (abs(last) + np.float64(np.float32(1e-5))))
        return 1, min_val
    inter = min(column_size, max_bin * _K_FACTOR)
    reduced = np.empty((max(n, inter) + 1, 4), dtype=np.float32)
    n_red = _prune_any(summary, n, inter, reduced, wx)
    max_num_bins = min(inter, max_bin)
    final = np.empty((max_num_bins + 1 + n_red, 4), dtype=np.float32)
    n_fin = _prune_any(reduced, n_red, max_num_bins + 1, final, wx)
    eps5 = np.float64(np.float32(1e-5))
    mval = np.float64(final[0, VALUE])
    min_val = np.float32(mval - abs(mval) - eps5)
    required = min(n_fin, max_num_bins)
    k = 0
    for i in range(1, required):
        cpt = final[i, VALUE]
        if i == 1 or cpt > out_vals[k - 1]:
            out_vals[k] = cpt
            k += 1
    last = np.float64(final[n_fin - 1, VALUE]) if n_fin > 0 else np.float64(min_val)
    out_vals[k] = np.float32(last + (abs(last) + eps5))
    return k + 1, min_val


@njit(cache=True, nogil=True, parallel=True)
def _hist_cuts_kernel(X, w, use_w, max_bin, limits, n_levels, skip, out_vals, out_n, out_min):
    n_features = X.shape[1]
    for f in prange(n_features):
        if skip[f]:
            continue
        col = np.ascontiguousarray(X[:, f])
        column_size = 0
        for r in range(col.shape[0]):
            if not math.isnan(col[r]):
                column_size += 1
        limit = limits[f]
        summary = np.empty((2 * limit + 1, 4), dtype=np.float32)
        n = 0
        if column_size > 0:
            n = _feature_summary_rows(col, w, use_w, limit, n_levels[f], summary)
        k, mv = _cuts_from_summary(summary, n, column_size, max_bin, out_vals[f],
                                   np.bool_(False))
        out_n[f] = k
        out_min[f] = mv


# ------------------------------------------------------------------ unweighted, large columns
# Without sample weights every weight is 1, so equal values are interchangeable except for
# the sign of zero: the queue's chunks can be sorted with numpy's (much faster) sort, and only
# a chunk holding both -0.0 and +0.0 needs std::sort's exact order.
@njit(cache=True, nogil=True)
def _chunk_bounds(col, qcap):
    """Where the queue of capacity ``qcap`` is flushed while pushing ``col`` in order (equal
    neighbours share an entry, NaN skipped): the start of every chunk after the first."""
    out = np.empty(col.shape[0] // qcap + 2, dtype=np.int64)
    n_out = 0
    qtail = 0
    last = np.float32(0.0)
    for r in range(col.shape[0]):
        x = col[r]
        if math.isnan(x):
            continue
        if qtail == qcap and last != x:
            out[n_out] = r
            n_out += 1
            qtail = 0
        if qtail == 0 or last != x:
            qtail += 1
        last = x
    return out[:n_out]


@njit(cache=True, nogil=True)
def _counted_summary(s, out):
    """The exact summary of sorted unit-weight values (MakeSummary after the sort)."""
    size = 0
    wsum = np.float32(0.0)
    i = 0
    n = s.shape[0]
    while i < n:
        j = i + 1
        while j < n and s[j] == s[i]:
            j += 1
        w = np.float32(j - i)
        _put(out, size, wsum, wsum + w, w, s[i])
        size += 1
        wsum += w
        i = j
    return size


@njit(cache=True, nogil=True)
def _chunk_queue_summary(col, a, b, out):
    """Fallback for a chunk with both signed zeros: the queue exactly as XGBoost fills it
    (equal neighbours merged), sorted by ``std_sort``."""
    qv = np.empty(b - a, dtype=np.float32)
    qw = np.empty(b - a, dtype=np.float32)
    qtail = 0
    for r in range(a, b):
        x = col[r]
        if math.isnan(x):
            continue
        if qtail == 0 or qv[qtail - 1] != x:
            qv[qtail] = x
            qw[qtail] = 1.0
            qtail += 1
        else:
            qw[qtail - 1] += 1.0
    return _queue_summary(qv, qw, qtail, out)


def _chunk_summary(col, a, b, out) -> int:
    values = col[a:b]
    values = values[~np.isnan(values)]
    negative_zero = np.signbit(values) & (values == 0)
    if negative_zero.any():
        if negative_zero.sum() < np.count_nonzero(values == 0):  # both signs: exact order
            return int(_chunk_queue_summary(col, a, b, out))
        values = np.sort(values)
        values[values == 0] = -0.0  # numpy's vectorised sort may drop the sign of zero
    else:
        values = np.sort(values)
    return int(_counted_summary(values, out))


def _unweighted_feature(col, limit, n_levels, column_size, max_bin, out_vals):
    """HostSketchContainer for one unweighted column, chunks sorted with numpy."""
    bounds = [0, *_chunk_bounds(col, 2 * limit).tolist(), col.shape[0]]
    levels = np.zeros((n_levels, limit, 4), dtype=np.float32)
    level_size = np.zeros(n_levels, dtype=np.int64)
    temp = np.empty((2 * limit, 4), dtype=np.float32)
    for a, b in zip(bounds[:-2], bounds[1:-1], strict=True):
        n_temp = _chunk_summary(col, a, b, temp)
        _push_temp(temp, n_temp, levels, level_size, limit, False)
    out = np.empty((2 * limit + 1, 4), dtype=np.float32)
    n_out = _chunk_summary(col, bounds[-2], bounds[-1], out)
    n = _final_summary(levels, level_size, n_levels, out, n_out, limit, False)
    return _cuts_from_summary(out, n, column_size, max_bin, out_vals, False)


def _eps_limit(column_size: int, eps: float) -> int:
    return int(_limit_size(max(column_size, 1), eps))


def _pack(out_vals, out_n, out_min) -> Cuts:
    ptrs = np.zeros(len(out_n) + 1, dtype=np.int64)
    np.cumsum(out_n, out=ptrs[1:])
    values = np.concatenate([out_vals[f, :out_n[f]] for f in range(len(out_n))]).astype(
        np.float32)
    return Cuts(ptrs=ptrs, values=values, min_vals=out_min.astype(np.float32))


@njit(cache=True, nogil=True, parallel=True)
def _present_counts(X):
    """Values that are not NaN, per column (no temporary mask of the whole matrix)."""
    n, n_features = X.shape
    n_blocks = (n + 4095) // 4096
    part = np.zeros((n_blocks, n_features), dtype=np.int64)
    for blk in prange(n_blocks):
        for r in range(blk * 4096, min(n, blk * 4096 + 4096)):
            for f in range(n_features):
                if not math.isnan(X[r, f]):
                    part[blk, f] += 1
    return part.sum(axis=0)


def hist_cuts(X: np.ndarray, weight: np.ndarray | None, max_bin: int) -> Cuts:
    """Cut points of ``tree_method='hist'``: the sketch weighted by sample weights (1 if
    none), pushed in row order, NaN skipped."""
    X = read_only(X)  # one compiled signature whoever calls (layout.read_only)
    n_samples, n_features = X.shape
    counts = _present_counts(X)
    limits = np.empty(n_features, dtype=np.int64)
    n_levels = np.empty(n_features, dtype=np.int64)
    for f in range(n_features):
        n_bins = max(min(max_bin, int(counts[f])), 1)
        eps = 1.0 / float(np.float32(n_bins) * np.float32(_K_FACTOR))
        limits[f] = _eps_limit(int(counts[f]), eps)
        n_levels[f] = _n_levels(max(int(counts[f]), 1), int(limits[f]))
    out_vals = np.empty((n_features, max_bin + 1), dtype=np.float32)
    out_n = np.empty(n_features, dtype=np.int64)
    out_min = np.empty(n_features, dtype=np.float32)
    use_w = weight is not None
    w = read_only(weight) if use_w else NO_WEIGHT
    # Columns that fill the queue more than once and carry no weights: numpy sorts them.
    fast = (~np.full(n_features, use_w)) & (counts > 2 * limits)
    _hist_cuts_kernel(X, w, use_w, max_bin, limits, n_levels, fast, out_vals, out_n, out_min)
    todo = np.nonzero(fast)[0]
    if not len(todo):
        return _pack(out_vals, out_n, out_min)
    # numpy's sort and these kernels release the GIL: one thread per core, per feature (one
    # pool for the call: starting threads costs about as much as a small table's sketch).
    with ThreadPoolExecutor(max_workers=numba.get_num_threads()) as pool:
        # Half the columns at a time: a column-major copy of them all would double X's
        # memory (each copy reads all of X once; the grower's records and codes take more).
        for batch in np.array_split(todo, min(2, len(todo))):
            _sorted_sketch(X, batch, limits, n_levels, counts, max_bin, out_vals, out_n,
                           out_min, pool)
    return _pack(out_vals, out_n, out_min)


def _sorted_sketch(X, features, limits, n_levels, counts, max_bin, out_vals, out_n, out_min,
                   pool):
    """``hist_cuts``'s sorted path for ``features``, from a column-major copy of them that
    is freed on return; the features run in ``pool``."""
    columns = column_major(X, features)

    def one(i):
        f = features[i]
        out_n[f], out_min[f] = _unweighted_feature(
            columns[i], int(limits[f]), int(n_levels[f]), int(counts[f]), max_bin, out_vals[f])

    list(pool.map(one, range(len(features))))



@njit(cache=True, nogil=True, parallel=True)
def _sorted_cuts_kernel(col_ptr, rows, values, weights, max_bin, limits, n_levels, out_vals,
                        out_n, out_min):
    n_features = col_ptr.shape[0] - 1
    for f in prange(n_features):
        a = col_ptr[f]
        b = col_ptr[f + 1]
        column_size = b - a
        limit = limits[f]
        summary = np.empty((2 * limit + max_bin + 1, 4), dtype=np.float32)
        n = 0
        if column_size > 0:
            w = np.empty(column_size, dtype=np.float32)
            sum_total = np.float64(0.0)
            for k in range(a, b):
                w[k - a] = weights[rows[k]]
                sum_total += w[k - a]
            n = _feature_summary_sorted(values[a:b], w, sum_total, max_bin, limit,
                                        n_levels[f], summary)
        k, mv = _cuts_from_summary(summary, n, column_size, max_bin, out_vals[f],
                                   np.bool_(True))
        out_n[f] = k
        out_min[f] = mv


@njit(cache=True, nogil=True, parallel=True)
def _std_sorted_kernel(X, col_ptr, rows, values):
    for f in prange(X.shape[1]):
        k = col_ptr[f]
        for r in range(X.shape[0]):
            x = X[r, f]
            if not math.isnan(x):
                values[k] = x
                rows[k] = r
                k += 1
        a = col_ptr[f]
        std_sort(values[a:k], rows[a:k], k - a)


def std_sorted_columns(X: np.ndarray):
    """Each feature's present values sorted as XGBoost's sorted column page is: the column in
    row order, then ``std::sort`` by value (so equal values keep libstdc++'s order).
    Returns (col_ptr, rows, values)."""
    X = read_only(X)  # one compiled signature whoever calls (layout.read_only)
    counts = _present_counts(X)
    col_ptr = np.zeros(X.shape[1] + 1, dtype=np.int64)
    np.cumsum(counts, out=col_ptr[1:])
    rows = np.empty(col_ptr[-1], dtype=np.int32)
    values = np.empty(col_ptr[-1], dtype=np.float32)
    _std_sorted_kernel(X, col_ptr, rows, values)
    return col_ptr, rows, values


def sorted_cuts(col_ptr, rows, values, weights: np.ndarray, max_bin: int) -> Cuts:
    """Cut points of ``tree_method='approx'`` for one round: each feature's present values in
    ascending order (``std_sorted_columns``) weighted by ``weights`` (hessian x sample
    weight)."""
    n_features = len(col_ptr) - 1
    eps = 2.0 / max_bin
    limits = np.empty(n_features, dtype=np.int64)
    n_levels = np.empty(n_features, dtype=np.int64)
    for f in range(n_features):
        size = int(col_ptr[f + 1] - col_ptr[f])
        limits[f] = _eps_limit(size, eps)
        n_levels[f] = _n_levels(max(size, 1), int(limits[f]))
    out_vals = np.empty((n_features, max_bin + 1), dtype=np.float32)
    out_n = np.empty(n_features, dtype=np.int64)
    out_min = np.empty(n_features, dtype=np.float32)
    _sorted_cuts_kernel(col_ptr, rows, values, weights.astype(np.float32), max_bin, limits,
                        n_levels, out_vals, out_n, out_min)
    return _pack(out_vals, out_n, out_min)


def approx_columns(X: np.ndarray, objective: str):
    """What approx sketches each tree from: with an objective whose hessian changes every
    round, the columns sorted once (``std_sorted_columns``), re-sketched per tree as XGBoost
    does from its sorted page; with a constant hessian (the weights never change), None: the
    row-order sketch, made once."""
    return None if objectives.spec(objective).const_hess else std_sorted_columns(X)


def approx_cuts(X: np.ndarray, weight: np.ndarray | None, hess: np.ndarray, max_bin: int,
                columns) -> Cuts:
    """approx's cuts for one tree: the sketch weighted by hessian x sample weight, from the
    sorted ``columns`` (``approx_columns``) or, when None, in row order."""
    weights = hess if weight is None else (hess * weight).astype(np.float32)
    if columns is None:
        return hist_cuts(X, weights, max_bin)
    return sorted_cuts(*columns, weights, max_bin)
