"""The histogram tree grower (XGBoost's ``grow_quantile_histmaker``), depth-wise
(``grow_hist``, below) or leaf-wise (``grow_lossguide``: one split at a time, the waiting
leaf with the largest gain first; the same kernels and arithmetic).

Each feature value is replaced by its bin (``bin_matrix``: uint8 when every feature has at
most 255 bins, else uint16; the largest code means missing). A node's search reads only its
histogram: per bin, the float64 sums of g and h of the node's rows, stored as one complex128
(G in .real, H in .imag, so a row adds both with one 16-byte add). Per level:

1. every node whose best split is valid is expanded, in id order — valid means loss_chg >
   1e-6, both children have H != 0, loss_chg >= gamma (**pre-pruning**: a refused node stays
   a leaf with Reason "gamma", its best split kept for the trace), depth < max_depth (0: no
   limit) and fewer than max_leaves leaves so far (``node_rules.refusal``);
2. the rows of the expanded nodes are partitioned stably (rows stay in ascending order);
3. if the children may still split, the child with the smaller H gets its histogram built
   from its rows and its sibling's is ``parent - built`` (histogram subtraction);
4. every child's splits are evaluated from its histogram.

The scan of a feature (docs/xgboost-rules.md §1, §3, §6, §8): forward over the bins,
left = bins 0..i, threshold = cut[i], missing right; then, only if the present rows' sums
differ from the node's (exact float64 comparison), backward, right = bins i.., threshold =
cut[i-1] (``min_val`` for i = 0), missing left. Child sums are the scan's sums (the right
side is ``parent - left``), as XGBoost keeps them. All of it is float64 summed in row order
and float32 gains, so the trees equal XGBoost's with ``nthread=1``; features are processed
in parallel and merged in feature order, so the result does not depend on the thread count.
"""

from __future__ import annotations

import heapq
import math

import numba
import numpy as np
from numba import njit, prange

from . import node_rules as rules
from ._dtypes import REASON_GAMMA, REASON_MAX_LEAVES, REASON_NO_GAIN, REASON_NONE
from .data import any_rows
from .layout import column_major
from .records import (
    CAND_BIN,
    CAND_DEFAULT_LEFT,
    CAND_FIELDS,
    CAND_GL,
    CAND_GR,
    CAND_HL,
    CAND_HR,
    CAND_LOSS,
    CAND_THRESHOLD,
    CAND_VALID,
    SPLIT_BIN,
    SPLIT_BLOCKED,
    SPLIT_DEFAULT_LEFT,
    SPLIT_FIELDS,
    SPLIT_GL,
    SPLIT_GR,
    SPLIT_HL,
    SPLIT_HR,
    SPLIT_LOSS,
    SPLIT_THRESHOLD,
    TreeNodes,
    gh_view,
)
from .sampling import ColumnSampler
from .simd import prefetch
from .sketch import Cuts
from .split_math import first_index, scan_losses, strip_max

_F32_ZERO = np.float32(0.0)
_NEG_INF32 = np.float32(-np.inf)



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


# ------------------------------------------------------------------ kernels
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
    bin; a histogram holds feature f's bin b at ``f * stride + b`` (see ``hist_stride``).

    ``indexed``: the position k holds row ``rows[k]`` of the records and ``gh`` (training
    order); otherwise row k (the root, whose rows are 0..n-1).

    The blocks of ``records`` (``block_records``; ``gh`` their (g, h) slots) are processed in
    parallel; within a block each row is read once for all its features. Every bin still
    accumulates its rows in row order, so the sums do not depend on the blocking."""
    n_blocks = records.shape[0]
    for blk in prange(n_blocks):
        f0, f1 = feature_block(n_features, n_blocks, blk)
        _build_block(records[blk], missing, stride, gh[blk], rows, indexed, starts, ends, slots,
                     hist, f0, f1)


@njit(cache=True, nogil=True, inline="always")
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


@njit(cache=True, nogil=True, parallel=True)
def _subtract(hist_parent, parent_slots, hist, built_slots, sub_slots):
    for t in prange(sub_slots.shape[0]):
        _subtract_range(hist_parent[parent_slots[t]], hist[built_slots[t]], hist[sub_slots[t]],
                        0, hist.shape[1])


@njit(cache=True, nogil=True, inline="always")
def _subtract_range(parent, built, sibling, lo, hi):
    """The sibling's bins lo:hi = the parent's minus the built child's."""
    for i in range(lo, hi):
        sibling[i] = parent[i] - built[i]


@njit(cache=True, nogil=True)
def _record(best, loss, thr, dl, split_bin, gl, hl, gr, hr):
    best[SPLIT_LOSS] = loss
    best[SPLIT_THRESHOLD] = thr
    best[SPLIT_DEFAULT_LEFT] = 1.0 if dl else 0.0
    best[SPLIT_BIN] = split_bin
    best[SPLIT_GL] = gl
    best[SPLIT_HL] = hl
    best[SPLIT_GR] = gr
    best[SPLIT_HR] = hr


@njit(cache=True, nogil=True, inline="always")
def _write_candidate(out, n, split_bin, default_left, gl, hl, gr, hr, loss, valid, thr):
    out[n, CAND_BIN] = split_bin
    out[n, CAND_DEFAULT_LEFT] = 1.0 if default_left else 0.0
    out[n, CAND_GL], out[n, CAND_HL], out[n, CAND_GR], out[n, CAND_HR] = gl, hl, gr, hr
    out[n, CAND_LOSS] = loss
    out[n, CAND_VALID] = 1.0 if valid else 0.0
    out[n, CAND_THRESHOLD] = thr
    return n + 1


def scan_scratch(n_bins: int):
    """Work arrays of ``scan_feature`` for up to ``n_bins`` bins of a feature."""
    return (np.empty(n_bins, np.float64), np.empty(n_bins, np.float64),
            np.ones(n_bins, np.bool_), np.empty(n_bins, np.float32),
            np.empty(n_bins, np.float32), np.empty(n_bins, np.int64))


_scan_scratch_jit = njit(cache=True)(scan_scratch)


@njit(cache=True, nogil=True, error_model="numpy")
def scan_feature(hh, h0, c0, n, min_val, cut_vals, pg, ph, psim, reg_lambda, alpha, mcw, mds,
                 best, out, scratch, rows):
    """Forward then (if anything is missing) backward scan of one feature's ``n`` bins
    ``hh[h0:h0 + n]``, whose cut values are ``cut_vals[c0:c0 + n]``. Keeps the first strictly
    best loss in ``best`` (float64, ``records.SPLIT_*``). If ``out`` has rows, every candidate is
    written there too (for ``split_candidates``; columns ``records.CAND_*``); returns their
    count.
    ``scratch``: ``scan_scratch(n)`` or larger. ``rows``: the node's row count (at most
    that many bins are non-empty).

    Each direction takes the running sums (sequential), then every bin's loss change at once
    (``split_math.scan_losses``), then the first maximum."""
    compact = out.shape[0] == 0 and 2 * rows < n
    sg, sh, n_out = _scan_direction(hh, h0, c0, n, min_val, cut_vals, True, pg, ph, psim,
                                    reg_lambda, alpha, mcw, mds, best, out, 0, scratch, compact)
    if sg == pg and sh == ph:  # nothing missing: the backward scan would repeat it
        return n_out
    return _scan_direction(hh, h0, c0, n, min_val, cut_vals, False, pg, ph, psim, reg_lambda,
                           alpha, mcw, mds, best, out, n_out, scratch, compact)[2]


@njit(cache=True, nogil=True, inline="always")
def _scan_direction(hh, h0, c0, n, min_val, cut_vals, forward, pg, ph, psim, reg_lambda, alpha,
                    mcw, mds, best, out, n_out, scratch, compact):
    """One scan of ``scan_feature``. Forward: the left child is bins 0..j (threshold
    cut[j], missing right); backward: the right child is bins i..n-1 (threshold cut[i - 1],
    or min_val for i = 0; missing left). Returns the scanned sums and the candidate count.

    ``compact`` (a node with fewer rows than half the bins): a position whose bin is empty
    (G = H = 0) is skipped, its sums, and so its loss, repeating the position before it,
    which a first strict maximum never picks and a maximum of blocked losses does not need;
    the losses, most of a scan's time, are computed only at the kept positions (``at[k]``:
    the k-th kept position). Where most bins hold rows, finding them costs more than it
    saves."""
    acc_g, acc_h, every, lv, lb, at = scratch
    sg = np.float64(0.0)
    sh = np.float64(0.0)
    if compact:  # position 0 and the non-empty bins, without a branch
        at[0] = 0
        k = 1
        for j in range(1, n):
            b = h0 + j if forward else h0 + n - 1 - j
            at[k] = j
            k += (hh[b].real != 0.0) | (hh[b].imag != 0.0)
    else:
        k = n
    for i in range(k):  # the running sums (the skipped bins add nothing)
        j = at[i] if compact else i
        b = h0 + j if forward else h0 + n - 1 - j
        sg += hh[b].real
        sh += hh[b].imag
        acc_g[i] = sg
        acc_h[i] = sh
    if n == 0:
        return sg, sh, n_out
    scan_losses(k, acc_g, acc_h, every, pg, ph, psim, reg_lambda, alpha, mcw, mds, lv, lb)
    for j in range(n if out.shape[0] > 0 else 0):  # every candidate, for split_candidates
        split_bin, thr = _bin_threshold(j, n, c0, min_val, cut_vals, forward)
        gl, hl, gr, hr = _children(acc_g[j], acc_h[j], pg, ph, forward)
        loss = rules.split_loss_change(gl, hl, gr, hr, psim, reg_lambda, alpha, mcw, mds)
        n_out = _write_candidate(out, n_out, split_bin, not forward, gl, hl, gr, hr, loss,
                                 hl >= mcw and hr >= mcw, thr)
    top = strip_max(k, lv)
    if top > best[SPLIT_LOSS]:
        i = first_index(k, lv, top)
        split_bin, thr = _bin_threshold(at[i] if compact else i, n, c0, min_val, cut_vals,
                                        forward)
        gl, hl, gr, hr = _children(acc_g[i], acc_h[i], pg, ph, forward)
        _record(best, top, thr, not forward, split_bin, gl, hl, gr, hr)
    best[SPLIT_BLOCKED] = max(best[SPLIT_BLOCKED], strip_max(k, lb))
    return sg, sh, n_out


@njit(cache=True, nogil=True, inline="always")
def _bin_threshold(j, n, c0, min_val, cut_vals, forward):
    """Position j of a scan as (the split's bin: the left child's last, its threshold)."""
    if forward:
        return j, cut_vals[c0 + j]
    i = n - 1 - j  # right = bins i..n-1
    return i - 1, (min_val if i == 0 else cut_vals[c0 + i - 1])


@njit(cache=True, nogil=True, inline="always")
def _children(acc_g, acc_h, pg, ph, forward):
    """(G_L, H_L, G_R, H_R) from the scanned side's sums."""
    if forward:
        return acc_g, acc_h, pg - acc_g, ph - acc_h
    return pg - acc_g, ph - acc_h, acc_g, acc_h


@njit(cache=True, nogil=True, parallel=True)
def _evaluate(hist, slots, stride, ptrs, cut_vals, min_vals, node_g, node_h, node_rows,
              reg_lambda, alpha, mcw, mds, best):
    """best[f, t] = the best split of feature f for the node whose histogram is
    hist[slots[t]], whose sums are node_g[t], node_h[t] and rows node_rows[t]."""
    for f in prange(ptrs.shape[0] - 1):
        _evaluate_feature(hist, slots, stride, ptrs, cut_vals, min_vals, node_g, node_h,
                          node_rows, reg_lambda, alpha, mcw, mds, best, f)


@njit(cache=True, nogil=True, inline="always")
def _evaluate_feature(hist, slots, stride, ptrs, cut_vals, min_vals, node_g, node_h, node_rows,
                      reg_lambda, alpha, mcw, mds, best, f):
    """``_evaluate`` for feature f."""
    no_out = np.empty((0, CAND_FIELDS), dtype=np.float64)
    scratch = _scan_scratch_jit(ptrs[f + 1] - ptrs[f])
    for t in range(slots.shape[0]):
        bt = best[f, t]
        bt[:] = 0.0
        bt[SPLIT_BLOCKED] = -np.inf
        psim = rules.similarity(node_g[t], node_h[t], reg_lambda, alpha, mcw, mds)
        scan_feature(hist[slots[t]], f * stride, ptrs[f], ptrs[f + 1] - ptrs[f], min_vals[f],
                     cut_vals, node_g[t], node_h[t], psim, reg_lambda, alpha, mcw, mds, bt,
                     no_out, scratch, node_rows[t])


@njit(cache=True, nogil=True, parallel=True)
def _search(records, missing, stride, gh, rows, indexed, starts, ends, b_slot, parent_hist,
            p_slot, s_slot, hist, ptrs, cut_vals, min_vals, node_g, node_h, node_rows,
            reg_lambda, alpha, mcw, mds, best):
    """``_build``, ``_subtract`` and ``_evaluate`` in one parallel pass over feature blocks:
    a block's histograms are built, its slice of each sibling's is ``parent - built`` and
    its features are scanned while they are in cache (the same arithmetic, so the same
    splits). The nodes evaluated are slots 0..len(node_g)-1."""
    n_features = ptrs.shape[0] - 1
    n_blocks = records.shape[0]
    slots = np.arange(node_g.shape[0])
    for blk in prange(n_blocks):
        f0, f1 = feature_block(n_features, n_blocks, blk)
        _build_block(records[blk], missing, stride, gh[blk], rows, indexed, starts, ends, b_slot,
                     hist, f0, f1)
        for t in range(s_slot.shape[0]):
            _subtract_range(parent_hist[p_slot[t]], hist[b_slot[t]], hist[s_slot[t]],
                            f0 * stride, f1 * stride)
        for f in range(f0, f1):
            _evaluate_feature(hist, slots, stride, ptrs, cut_vals, min_vals, node_g, node_h,
                              node_rows, reg_lambda, alpha, mcw, mds, best, f)


_CHUNK = 16384  # the most rows of one task of the partition
_MIN_CHUNK = 2048  # the fewest: a smaller task costs more to hand out than its rows


@njit(cache=True, nogil=True)
def _chunks(expand, node_start, node_end, n_threads):
    """The expanded nodes' row ranges (starts, ends) cut into chunks of ``size`` rows
    (about four per thread over the level, within _MIN_CHUNK.._CHUNK): chunk_ptr[t]:
    chunk_ptr[t + 1] are node t's chunks, owner[c] the node of chunk c."""
    m = expand.shape[0]
    starts = np.empty(m, dtype=np.int64)
    ends = np.empty(m, dtype=np.int64)
    total = 0
    for t in range(m):
        starts[t] = node_start[expand[t, 0]]
        ends[t] = node_end[expand[t, 0]]
        total += ends[t] - starts[t]
    want = (total + 4 * n_threads - 1) // (4 * n_threads)
    size = min(_CHUNK, max(_MIN_CHUNK, want))
    chunk_ptr = np.zeros(m + 1, dtype=np.int64)
    for t in range(m):
        chunk_ptr[t + 1] = chunk_ptr[t] + max(1, (ends[t] - starts[t] + size - 1) // size)
    owner = np.empty(chunk_ptr[m], dtype=np.int64)
    for t in range(m):
        for c in range(chunk_ptr[t], chunk_ptr[t + 1]):
            owner[c] = t
    return starts, ends, chunk_ptr, owner, size


@njit(cache=True, nogil=True, parallel=True)
def _partition(columns, rows, out_rows, side, expand, left, right, default_left, missing,
               node_start, node_end, n_threads):
    """Stable partition of each node's row ids into ``out_rows``: left child first, then
    right, each in ascending row order (the records stay in training order; the histogram
    build reads them through the ids). Which side a row goes to is read from ``columns``
    (the split feature's codes, contiguous, in training order) through its id.
    ``expand`` rows are (node, level slot, feature, split bin); the children's ranges are
    written to ``node_start``/``node_end``.

    Each node's range is cut into chunks handled in parallel: decide and count, then write
    each chunk's rows at offsets from the counts of the chunks before it."""
    m = expand.shape[0]
    starts, ends, chunk_ptr, owner, size = _chunks(expand, node_start, node_end, n_threads)
    n_chunks = chunk_ptr[m]
    n_l = np.zeros(n_chunks, dtype=np.int64)
    for c in prange(n_chunks):
        t = owner[c]
        a = starts[t] + (c - chunk_ptr[t]) * size
        b = min(ends[t], a + size)
        sb = expand[t, 3]
        dl = default_left[expand[t, 0]]
        cnt = 0
        col = columns[expand[t, 2]]
        for k in range(a, b):
            go = rules.bin_goes_left(col[rows[k]], missing, dl, sb)
            side[k] = go
            cnt += go
        n_l[c] = cnt
    off_l = np.empty(n_chunks, dtype=np.int64)
    off_r = np.empty(n_chunks, dtype=np.int64)
    for t in range(m):
        total = 0
        for c in range(chunk_ptr[t], chunk_ptr[t + 1]):
            total += n_l[c]
        nid = expand[t, 0]
        node_start[left[nid]] = starts[t]
        node_end[left[nid]] = starts[t] + total
        node_start[right[nid]] = starts[t] + total
        node_end[right[nid]] = ends[t]
        li = starts[t]
        ri = starts[t] + total
        for c in range(chunk_ptr[t], chunk_ptr[t + 1]):
            a = starts[t] + (c - chunk_ptr[t]) * size
            b = min(ends[t], a + size)
            off_l[c] = li
            off_r[c] = ri
            li += n_l[c]
            ri += (b - a) - n_l[c]
    for c in prange(n_chunks):
        t = owner[c]
        a = starts[t] + (c - chunk_ptr[t]) * size
        b = min(ends[t], a + size)
        li = off_l[c]
        ri = off_r[c]
        for k in range(a, b):
            s = np.int64(side[k])  # arithmetic select: the side is unpredictable
            j = ri + s * (li - ri)
            li += s
            ri += 1 - s
            out_rows[j] = rows[k]


@njit(cache=True, nogil=True, parallel=True)
def _add_split_leaf_values(columns, rows, expand, left, right, default_left, missing,
                           node_start, node_end, weight, eta, margin, group, n_threads):
    """The last level: the children of the expanded nodes are leaves, so each row only needs
    its leaf's value, margin[r, group] += eta * w (no partition)."""
    starts, ends, chunk_ptr, owner, size = _chunks(expand, node_start, node_end, n_threads)
    for c in prange(chunk_ptr[expand.shape[0]]):
        t = owner[c]
        a = starts[t] + (c - chunk_ptr[t]) * size
        b = min(ends[t], a + size)
        nid = expand[t, 0]
        v_left = weight[left[nid]] * eta
        v_right = weight[right[nid]] * eta
        sb = expand[t, 3]
        dl = default_left[nid]
        col = columns[expand[t, 2]]
        for k in range(a, b):
            r = rows[k]
            margin[r, group] += v_left if rules.bin_goes_left(col[r], missing, dl, sb) else v_right


@njit(cache=True, nogil=True, parallel=True)
def _add_leaf_values(rows, nodes, left, node_start, node_end, weight, eta, margin, group):
    """margin[r, group] += eta * w of the leaf holding row r, for the nodes in ``nodes`` that
    are leaves (float32, as XGBoost's prediction cache)."""
    for t in prange(nodes.shape[0]):
        nid = nodes[t]
        if left[nid] != -1:
            continue
        v = weight[nid] * eta
        for k in range(node_start[nid], node_end[nid]):
            margin[rows[k], group] += v


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
def _drop_features(best, allowed):
    """Forget the best splits of the features a node may not use (colsample_*)."""
    for t in range(allowed.shape[0]):
        for f in range(allowed.shape[1]):
            if not allowed[t, f]:
                best[f, t, SPLIT_LOSS] = -np.inf
                best[f, t, SPLIT_BLOCKED] = -np.inf


@njit(cache=True, nogil=True)
def _decide(nodes, nid, f_best, bt, loss, reason, n_nodes, reg_lambda, alpha, mcw, mds):
    """Apply the decision on node ``nid``: split it (``reason`` is ``REASON_NONE``; its
    children get ids ``n_nodes`` and ``n_nodes + 1``) or make it a leaf. A leaf γ refused
    keeps its best split (feature, threshold, gain) for the trace."""
    if reason != REASON_NONE and reason != REASON_GAMMA:
        nodes.reason[nid] = reason
        return
    rules.set_split(nodes, nid, f_best, bt[SPLIT_THRESHOLD], bt[SPLIT_DEFAULT_LEFT] != 0.0,
                    loss, n_nodes)
    if reason != REASON_NONE:  # refused: the search is kept, the children are not
        nodes.left[nid] = -1
        nodes.right[nid] = -1
        nodes.reason[nid] = reason
        return
    g_l, h_l, g_r, h_r = bt[SPLIT_GL], bt[SPLIT_HL], bt[SPLIT_GR], bt[SPLIT_HR]
    nodes.sum_grad[nid] = g_l + g_r  # XGBoost's cover of a split node: L + R
    nodes.sum_hess[nid] = h_l + h_r
    nodes.weight[nid] = rules.leaf_weight(nodes.sum_grad[nid], nodes.sum_hess[nid], reg_lambda,
                                          alpha, mcw, mds)
    d = nodes.depth[nid]
    rules.new_node(nodes, n_nodes, nid, d + 1, g_l, h_l, reg_lambda, alpha, mcw, mds)
    rules.new_node(nodes, n_nodes + 1, nid, d + 1, g_r, h_r, reg_lambda, alpha, mcw, mds)


@njit(cache=True, nogil=True)
def _apply_level(best, level, n_nodes, n_leaves, gamma, reg_lambda, alpha, mcw, mds,
                 max_leaves, nodes, expand):
    """Decide every node of the level, in id order, from its best split (``node_rules.refusal``; the
    level is below max_depth) and create the children of the expanded ones. Fills ``expand``
    rows (node, level slot, feature, split bin); returns (number expanded, new node count,
    leaf count)."""
    m = 0
    for t in range(level.shape[0]):
        nid = level[t]
        f_best, loss, blocked = rules.best_feature(best, t)
        bt = best[max(f_best, 0), t]
        reason = rules.refusal(bt, loss, blocked, gamma, 0, 0, n_leaves, max_leaves)
        _decide(nodes, nid, f_best, bt, loss, reason, n_nodes, reg_lambda, alpha, mcw, mds)
        if reason != REASON_NONE:
            continue
        n_nodes += 2
        n_leaves += 1
        expand[m, 0] = nid
        expand[m, 1] = t
        expand[m, 2] = f_best
        expand[m, 3] = np.int64(bt[SPLIT_BIN])
        m += 1
    return m, n_nodes, n_leaves


@njit(cache=True, nogil=True)
def _plan_children(expand, left, right, sum_grad, sum_hess, node_start, node_end):
    """For each expanded node: the child to build (the one with the smaller hessian, as
    XGBoost) and the one to get by subtraction, as slots 2j / 2j + 1 of the next level.
    Returns (children ids, their G, their H, build start, build end, build slot,
    subtract slot, parent slot)."""
    m = expand.shape[0]
    children = np.empty(2 * m, dtype=np.int64)
    cg = np.empty(2 * m, dtype=np.float64)
    ch = np.empty(2 * m, dtype=np.float64)
    b_start = np.empty(m, dtype=np.int64)
    b_end = np.empty(m, dtype=np.int64)
    b_slot = np.empty(m, dtype=np.int64)
    s_slot = np.empty(m, dtype=np.int64)
    p_slot = np.empty(m, dtype=np.int64)
    for j in range(m):
        nid = expand[j, 0]
        lc = left[nid]
        rc = right[nid]
        children[2 * j] = lc
        children[2 * j + 1] = rc
        cg[2 * j], ch[2 * j] = sum_grad[lc], sum_hess[lc]
        cg[2 * j + 1], ch[2 * j + 1] = sum_grad[rc], sum_hess[rc]
        built = rc if sum_hess[rc] < sum_hess[lc] else lc
        b_start[j] = node_start[built]
        b_end[j] = node_end[built]
        b_slot[j] = 2 * j + 1 if built == rc else 2 * j
        s_slot[j] = 2 * j if built == rc else 2 * j + 1
        p_slot[j] = expand[j, 1]
    return children, cg, ch, b_start, b_end, b_slot, s_slot, p_slot


def hist_stride(cuts: Cuts) -> int:
    """Histogram slots per feature in the grower's histograms: the most bins of any feature,
    so feature f's bin b sits at ``f * stride + b`` (a few unused slots buy a build with no
    offset table)."""
    return max(1, int(np.diff(cuts.ptrs).max(initial=1)))


@njit(cache=True, nogil=True)
def root_sums(root_hist, ptrs, g, h, from_bins):
    """The root's (G, H) as XGBoost's hist takes them: on data without a missing value, the
    sum of feature 0's bins; otherwise every row in order (approx: always the rows)."""
    if from_bins:
        return _bin_sums(root_hist, ptrs[0], ptrs[1])
    return _sequential_sums(g, h)


def _fresh_best() -> np.ndarray:
    """A ``scan_feature`` best entry before any candidate (``records.SPLIT_*``)."""
    best = np.zeros(SPLIT_FIELDS, dtype=np.float64)
    best[SPLIT_BLOCKED] = -np.inf
    return best


def record_blocks(n_features: int) -> int:
    """How many blocks of features the row records are cut into: one per thread."""
    return max(1, min(numba.get_num_threads(), n_features))


def binned_rows(X: np.ndarray, cuts: Cuts, dense: bool) -> tuple[np.ndarray, int, np.ndarray]:
    """``X`` binned for the grower: its row records (``block_records``, ``record_blocks``
    blocks), the code of a missing value and the codes feature by feature (the partition's)."""
    codes, missing = bin_matrix(X, cuts, dense=dense)
    n_features = X.shape[1]
    return (block_records(codes, n_features, record_blocks(n_features)), missing,
            column_major(codes, np.arange(n_features)))


class HistWorkspace:
    """Scratch reused across trees.

    Each row is one record per block of features: the block's bin codes then the row's
    (g, h) in the last 8 bytes (``block_records``), so a histogram build reads one place per
    row; the records stay in training order and are read through row ids. Also: the row ids
    in node order (two buffers: a level reads one and partitions into the other) and the
    codes column by column, for the partition's decisions. (Moving the records into node
    order as well was slower on 1M x 28: the partition's traffic grows tenfold, the build
    saves little.)"""

    def __init__(self, records: np.ndarray, missing: int, n_features: int, columns: np.ndarray):
        n_samples = records.shape[1]
        self.records = records
        self.missing = missing
        self.gh = gh_view(records)
        self.n_features = n_features
        self.columns = columns
        self.side = np.empty(n_samples, dtype=np.bool_)
        self._rows = [np.empty(n_samples, dtype=np.int32) for _ in range(2)]
        self._hist = [np.empty((0, 0), dtype=np.complex128) for _ in range(2)]
        self._fixed = None  # (key, rows, _depthwise_args), see depthwise_args

    def set_records(self, records: np.ndarray, missing: int, columns: np.ndarray) -> None:
        """New records of the same shape (approx re-sketches every tree)."""
        self.records, self.missing, self.gh = records, missing, gh_view(records)
        self.columns = columns

    def histograms(self, i: int, n_slots: int, width: int) -> np.ndarray:
        """Histogram pool ``i`` with at least ``n_slots`` slots, kept across levels and trees
        (fresh arrays would page-fault on every first write); ``_build`` clears what it
        fills and ``_subtract`` overwrites the rest."""
        pool = self._hist[i]
        if pool.shape[1] != width:  # approx: a new sketch, a new histogram width
            pool = np.empty((max(n_slots, pool.shape[0]), width), dtype=np.complex128)
            self._hist[i] = pool
        elif pool.shape[0] < n_slots:
            pool = np.empty((max(n_slots, 2 * pool.shape[0]), width), dtype=np.complex128)
            self._hist[i] = pool
        return pool

    def depthwise_args(self, cuts: Cuts, p, columns, n_samples: int) -> tuple | None:
        """``_depthwise_args``, worked out once per cuts, parameters and column sampler (the
        thread count is fixed while a training runs; a new sketch or new records ask
        again)."""
        key = (cuts, p, columns, self.records)
        if (self._fixed is None or self._fixed[1] != n_samples
                or any(a is not b for a, b in zip(key, self._fixed[0], strict=True))):
            self._fixed = (key, n_samples, _depthwise_args(cuts, p, self, columns, n_samples))
        return self._fixed[2]

    def buffer(self, i: int) -> np.ndarray:
        """Row-id work buffer ``i``."""
        return self._rows[i]

    def root_rows(self, i: int) -> np.ndarray:
        """Work buffer ``i`` holding the root's rows 0..n-1 (written per tree: a third
        buffer kept for them would cost 4 MB per million rows)."""
        _iota(self._rows[i])
        return self._rows[i]


@njit(cache=True, nogil=True, parallel=True)
def _iota(out):
    for k in prange(out.shape[0]):
        out[k] = k


class _Root:
    """What every tree starts from: the gradients stored in the records, the root's
    histogram, node and best split per feature."""

    def __init__(self, cuts: Cuts, root_from_bins: bool, g, h, p, ws: HistWorkspace,
                 nodes: TreeNodes):
        rp = rules.NodeParams.of(p)
        reg_lambda, alpha, mcw, mds = (rp.reg_lambda, rp.alpha, rp.min_child_weight,
                                       rp.max_delta_step)
        ptrs = cuts.ptrs
        self.n_features = len(ptrs) - 1
        self.stride = hist_stride(cuts)
        self.width = self.n_features * self.stride
        n_samples = g.shape[0]
        capacity = len(nodes.left)
        self.node_start = np.zeros(capacity, dtype=np.int64)
        self.node_end = np.zeros(capacity, dtype=np.int64)
        _store_gradients(g, h, ws.gh)
        self.hist = ws.histograms(0, 1, self.width)
        one = np.zeros(1, dtype=np.int64)
        _build(ws.records, ws.missing, self.n_features, self.stride, ws.gh, ws.buffer(0), False,
               one, np.array([n_samples]), one, self.hist)  # rows 0..n-1
        root_g, root_h = root_sums(self.hist[0], ptrs, g, h, root_from_bins)
        rules.new_node(nodes, 0, -1, 0, root_g, root_h, reg_lambda, alpha, mcw, mds)
        self.node_end[0] = n_samples
        self.best = np.empty((self.n_features, 1, SPLIT_FIELDS), dtype=np.float64)
        _evaluate(self.hist, one, self.stride, ptrs, cuts.values, cuts.min_vals,
                  np.array([root_g]), np.array([root_h]), np.array([n_samples]), reg_lambda,
                  alpha, mcw, mds, self.best)


_FUSED_BYTES = 64 << 20  # the most two level histograms may take for the one-call grower


def _level_slots(p, n_samples: int) -> int:
    """The most histograms a depth-wise level builds: children of the last level searched
    (depth max_depth - 1), at most one per row (a valid split leaves rows on both sides)."""
    return max(1, min(2 ** max(p.max_depth - 1, 0), n_samples))


def grow_hist(cuts: Cuts, root_from_bins: bool, g, h, p, ws: HistWorkspace, nodes: TreeNodes,
              margin, group: int, columns: ColumnSampler | None = None, tree_idx: int = 0) -> int:
    """Grow one tree on float32 ``g``/``h`` in the order ``p.grow_policy`` says (depth-wise
    here, ``grow_lossguide`` for lossguide); fill ``nodes``, add the tree's leaf values to
    ``margin[:, group]`` and return the node count.
    With an active ``columns`` sampler each node searches only its drawn features.

    A depth-wise tree with a depth limit and no column sampling grows in one compiled call
    (``_grow_depthwise``: the same kernels in the same order, no Python between them);
    otherwise the levels are driven from here."""
    if p.grow_policy == "lossguide":
        return grow_lossguide(cuts, root_from_bins, g, h, p, ws, nodes, margin, group, columns,
                              tree_idx)
    fixed = ws.depthwise_args(cuts, p, columns, g.shape[0])
    if fixed is not None:
        return _grow_depthwise(*fixed, root_from_bins, g, h, nodes, margin, group)
    return _grow_levels(cuts, root_from_bins, g, h, p, ws, nodes, margin, group, columns,
                        tree_idx)


def _depthwise_args(cuts: Cuts, p, ws: HistWorkspace, columns: ColumnSampler | None,
                    n_samples: int) -> tuple | None:
    """The arguments of ``_grow_depthwise`` that stay the same from tree to tree of one
    training, or None when the tree grows level by level (``_grow_levels``: column sampling,
    no depth limit, or level histograms over ``_FUSED_BYTES``)."""
    stride = hist_stride(cuts)
    width = (len(cuts.ptrs) - 1) * stride
    slots = _level_slots(p, n_samples)
    if (p.max_depth <= 0 or (columns is not None and columns.active)
            or 2 * slots * width * 16 > _FUSED_BYTES):
        return None
    f32 = p.as_float32()
    n_threads = numba.get_num_threads()
    return (ws.records, ws.missing, ws.gh, ws.columns, ws.side, ws.buffer(0), ws.buffer(1),
            ws.histograms(0, slots, width), ws.histograms(1, slots, width), stride, cuts.ptrs,
            cuts.values, cuts.min_vals, f32.eta, f32.gamma, f32.reg_lambda, f32.alpha,
            f32.min_child_weight, f32.max_delta_step, p.max_depth, p.max_leaves, n_threads)


@njit(cache=True, nogil=True)
def _grow_depthwise(records, missing, gh, columns, side, buf0, buf1, pool0, pool1, stride, ptrs,
                    cut_vals, min_vals, eta, gamma, reg_lambda, alpha, mcw, mds, max_depth,
                    max_leaves, n_threads, root_from_bins, g, h, nodes, margin, group):
    """``_grow_levels`` (depth limit > 0, no column sampling) as one compiled call: the
    root, then per level decide, add the leaves' values, partition, build the smaller
    children, subtract, evaluate. ``pool0``/``pool1`` hold a level's histograms
    (``_level_slots`` each). The arguments before ``root_from_bins`` are
    ``_depthwise_args``."""
    n_samples = g.shape[0]
    n_features = ptrs.shape[0] - 1
    capacity = nodes.left.shape[0]
    node_start = np.zeros(capacity, dtype=np.int64)
    node_end = np.zeros(capacity, dtype=np.int64)
    _store_gradients(g, h, gh)
    one = np.zeros(1, dtype=np.int64)
    ends = np.full(1, n_samples, dtype=np.int64)
    if root_from_bins:  # the root's sums come from its histogram: build, then search
        _build(records, missing, n_features, stride, gh, buf0, False, one, ends, one, pool0)
    root_g, root_h = root_sums(pool0[0], ptrs, g, h, root_from_bins)
    rules.new_node(nodes, 0, -1, 0, root_g, root_h, reg_lambda, alpha, mcw, mds)
    node_end[0] = n_samples
    best = np.empty((n_features, 1, SPLIT_FIELDS), dtype=np.float64)
    none = np.empty(0, dtype=np.int64)
    if root_from_bins:
        _evaluate(pool0, one, stride, ptrs, cut_vals, min_vals, np.full(1, root_g),
                  np.full(1, root_h), ends, reg_lambda, alpha, mcw, mds, best)
    else:
        _search(records, missing, stride, gh, buf0, False, one, ends, one, pool0, none, none,
                pool0, ptrs, cut_vals, min_vals, np.full(1, root_g),
                np.full(1, root_h), ends, reg_lambda, alpha, mcw, mds, best)
    hist, other = pool0, pool1
    rows, spare = buf1, buf0
    _iota(rows)
    level = np.zeros(1, dtype=np.int64)
    n_nodes, n_leaves, d = 1, 1, 0
    while True:
        expand = np.empty((level.shape[0], 4), dtype=np.int64)
        m, n_nodes, n_leaves = _apply_level(best, level, n_nodes, n_leaves, gamma, reg_lambda,
                                            alpha, mcw, mds, max_leaves, nodes, expand)
        expand = expand[:m]
        _add_leaf_values(rows, level, nodes.left, node_start, node_end, nodes.weight, eta,
                         margin, group)
        if m == 0:
            break
        full = max_leaves > 0 and n_leaves >= max_leaves
        if full or d + 1 >= max_depth:  # the children are leaves: no search
            if full:
                nodes.reason[n_nodes - 2 * m:n_nodes] = REASON_MAX_LEAVES
            _add_split_leaf_values(columns, rows, expand, nodes.left, nodes.right,
                                   nodes.default_left, missing, node_start, node_end,
                                   nodes.weight, eta, margin, group, n_threads)
            break
        _partition(columns, rows, spare, side, expand, nodes.left, nodes.right,
                   nodes.default_left, missing, node_start, node_end, n_threads)
        rows, spare = spare, rows
        children, cg, ch, b_start, b_end, b_slot, s_slot, p_slot = _plan_children(
            expand, nodes.left, nodes.right, nodes.sum_grad, nodes.sum_hess, node_start,
            node_end)
        best = np.empty((n_features, 2 * m, SPLIT_FIELDS), dtype=np.float64)
        _search(records, missing, stride, gh, rows, True, b_start, b_end, b_slot, hist, p_slot,
                s_slot, other, ptrs, cut_vals, min_vals, cg, ch,
                node_end[children] - node_start[children], reg_lambda, alpha, mcw, mds, best)
        hist, other = other, hist
        level = children
        d += 1
    return n_nodes


def _grow_levels(cuts: Cuts, root_from_bins: bool, g, h, p, ws: HistWorkspace, nodes: TreeNodes,
                 margin, group: int, columns: ColumnSampler | None, tree_idx: int) -> int:
    """``grow_hist``'s depth-wise loop driven from Python (column sampling draws each level's
    features here; no depth limit sizes the histograms as the levels come)."""
    f32 = p.as_float32()
    eta, gamma = f32.eta, f32.gamma
    reg_lambda, alpha, mcw, mds = (f32.reg_lambda, f32.alpha, f32.min_child_weight,
                                   f32.max_delta_step)
    missing = ws.missing
    ptrs, cut_vals, min_vals = cuts.ptrs, cuts.values, cuts.min_vals
    root = _Root(cuts, root_from_bins, g, h, p, ws, nodes)
    n_features, stride, width = root.n_features, root.stride, root.width
    node_start, node_end, hist, best = root.node_start, root.node_end, root.hist, root.best
    left, right, sum_grad, sum_hess, weight = (nodes.left, nodes.right, nodes.sum_grad,
                                               nodes.sum_hess, nodes.weight)
    rows = ws.root_rows(1)
    spare = 0  # the work buffer the next partition writes into
    pool = 1
    level = np.zeros(1, dtype=np.int64)  # nodes of the current depth, in id order
    n_nodes = 1
    n_leaves = 1
    d = 0
    while True:
        if columns is not None and columns.active:
            _drop_features(best, columns.allowed(tree_idx, d, level))
        expand = np.empty((len(level), 4), dtype=np.int64)
        m, n_nodes, n_leaves = _apply_level(best, level, n_nodes, n_leaves, gamma, reg_lambda,
                                            alpha, mcw, mds, p.max_leaves, nodes, expand)
        expand = expand[:m]
        _add_leaf_values(rows, level, left, node_start, node_end, weight, eta, margin, group)
        if m == 0:
            break
        full = p.max_leaves > 0 and n_leaves >= p.max_leaves
        if full or (p.max_depth > 0 and d + 1 >= p.max_depth):
            # The children are leaves (at max_depth, or no leaf may be added): no search.
            if full:
                nodes.reason[n_nodes - 2 * m:n_nodes] = REASON_MAX_LEAVES
            _add_split_leaf_values(ws.columns, rows, expand, left, right,
                                   nodes.default_left, missing, node_start, node_end, weight,
                                   eta, margin, group, numba.get_num_threads())
            break
        nxt = ws.buffer(spare)
        _partition(ws.columns, rows, nxt, ws.side, expand, left, right,
                   nodes.default_left, missing, node_start, node_end, numba.get_num_threads())
        rows, spare = nxt, 1 - spare
        children, cg, ch, b_start, b_end, b_slot, s_slot, p_slot = _plan_children(
            expand, left, right, sum_grad, sum_hess, node_start, node_end)
        child_hist = ws.histograms(pool, 2 * m, width)
        pool = 1 - pool
        _build(ws.records, missing, n_features, stride, ws.gh, rows, True, b_start, b_end, b_slot,
               child_hist)
        _subtract(hist, p_slot, child_hist, b_slot, s_slot)
        hist = child_hist
        best = np.empty((n_features, 2 * m, SPLIT_FIELDS), dtype=np.float64)
        _evaluate(hist, np.arange(2 * m, dtype=np.int64), stride, ptrs, cut_vals, min_vals, cg,
                  ch, node_end[children] - node_start[children], reg_lambda, alpha, mcw, mds,
                  best)
        level = children
        d += 1
    return n_nodes


def _queue_children(best, children, depth, nodes, queue, found, columns, tree_idx,
                    reg_lambda, alpha, mcw, mds):
    """Take the searched nodes' best splits: a node whose best gains more than 1e-6 waits in
    the queue (XGBoost's ``Driver::Push``), any other is a leaf now."""
    if columns is not None and columns.active:
        _drop_features(best, columns.allowed(tree_idx, depth, children))
    for t, nid in enumerate(children):
        f_best, loss, blocked = rules.best_feature(best, t)
        bt = best[max(f_best, 0), t].copy()
        if nid == 0 or rules.splits(loss):  # the root is pushed whatever its gain
            found[int(nid)] = (f_best, loss, blocked, bt)
            heapq.heappush(queue, (-float(loss), int(nid)))
        else:
            nodes.reason[nid] = rules.leaf_reason(blocked)


def grow_lossguide(cuts: Cuts, root_from_bins: bool, g, h, p, ws: HistWorkspace,
                   nodes: TreeNodes, margin, group: int, columns: ColumnSampler | None = None,
                   tree_idx: int = 0) -> int:
    """Grow one tree leaf-wise (``grow_policy="lossguide"``), as XGBoost's ``Driver``: the
    searched leaves wait in a priority queue ordered by their best gain (largest first; on
    equal gains the smaller node id, i.e. the older node); each step splits the top leaf,
    numbers its children with the next two ids, partitions its rows and searches both
    children (the smaller-hessian one built from its rows, the other ``parent - built``).
    Growth ends when the queue is empty or its top is refused (``node_rules.refusal``: no gain, an
    empty child, below γ, max_leaves reached) — XGBoost pops one entry and stops there. The
    children of a split are not searched when they sit at max_depth (> 0) or the tree has
    max_leaves leaves. Same arguments and result as ``grow_hist``."""
    f32 = p.as_float32()
    eta, gamma = f32.eta, f32.gamma
    reg_lambda, alpha, mcw, mds = (f32.reg_lambda, f32.alpha, f32.min_child_weight,
                                   f32.max_delta_step)
    ptrs, missing = cuts.ptrs, ws.missing
    root = _Root(cuts, root_from_bins, g, h, p, ws, nodes)
    node_start, node_end = root.node_start, root.node_end
    rows = ws.root_rows(0)
    spare = ws.buffer(1)
    hists = {0: root.hist[0:1]}  # the histogram of every node that may still split
    queue, found = [], {}  # heap of (-gain, node id); node id -> its best split
    _queue_children(root.best, np.zeros(1, dtype=np.int64), 0, nodes, queue, found, columns,
                    tree_idx, reg_lambda, alpha, mcw, mds)
    n_nodes, n_leaves = 1, 1
    while queue:
        nid = heapq.heappop(queue)[1]
        f_best, loss, blocked, bt = found.pop(nid)
        d = int(nodes.depth[nid])
        reason = rules.refusal(bt, loss, blocked, gamma, d, p.max_depth, n_leaves, p.max_leaves)
        _decide(nodes, nid, f_best, bt, loss, reason, n_nodes, reg_lambda, alpha, mcw, mds)
        if reason != REASON_NONE:
            break
        n_nodes += 2
        n_leaves += 1
        expand = np.array([[nid, 0, f_best, int(bt[SPLIT_BIN])]], dtype=np.int64)
        _partition(ws.columns, rows, spare, ws.side, expand, nodes.left, nodes.right,
                   nodes.default_left, missing, node_start, node_end, numba.get_num_threads())
        a, b = node_start[nid], node_end[nid]
        rows[a:b] = spare[a:b]
        parent_hist = hists.pop(nid)
        if p.max_depth > 0 and d + 1 >= p.max_depth:
            continue  # the children are leaves at max_depth: never searched
        if p.max_leaves > 0 and n_leaves >= p.max_leaves:
            nodes.reason[n_nodes - 2:n_nodes] = REASON_MAX_LEAVES
            continue
        children, cg, ch, b_start, b_end, b_slot, s_slot, p_slot = _plan_children(
            expand, nodes.left, nodes.right, nodes.sum_grad, nodes.sum_hess, node_start,
            node_end)
        pair = np.empty((2, root.width), dtype=np.complex128)
        _build(ws.records, missing, root.n_features, root.stride, ws.gh, rows, True, b_start, b_end,
               b_slot, pair)
        _subtract(parent_hist, p_slot, pair, b_slot, s_slot)
        best = np.empty((root.n_features, 2, SPLIT_FIELDS), dtype=np.float64)
        _evaluate(pair, np.arange(2, dtype=np.int64), root.stride, ptrs, cuts.values,
                  cuts.min_vals, cg, ch, node_end[children] - node_start[children], reg_lambda,
                  alpha, mcw, mds, best)
        hists[int(children[0])], hists[int(children[1])] = pair[0:1], pair[1:2]
        _queue_children(best, children, d + 1, nodes, queue, found, columns, tree_idx,
                        reg_lambda, alpha, mcw, mds)
    for nid, (f_best, loss, blocked, bt) in found.items():  # left waiting when growth ended
        reason = rules.refusal(bt, loss, blocked, gamma, int(nodes.depth[nid]), p.max_depth,
                          n_leaves, p.max_leaves)
        _decide(nodes, nid, f_best, bt, loss, REASON_NO_GAIN if reason == REASON_NONE else reason,
                n_nodes, reg_lambda, alpha, mcw, mds)
    _add_leaf_values(rows, np.arange(n_nodes, dtype=np.int64), nodes.left, node_start,
                     node_end, nodes.weight, eta, margin, group)
    return n_nodes


# ------------------------------------------------------------------ one node, on demand
@njit(cache=True, nogil=True, parallel=True)
def _node_hist(codes, missing, ptrs, g, h, mask, out, counts):
    """Histogram (and row count per bin) of the rows with ``mask`` set; ``codes`` feature by
    feature. Each bin belongs to one feature and adds its rows in row order, so the features
    run in parallel and every sum is the row-order sum."""
    for f in prange(ptrs.shape[0] - 1):
        col = codes[f]
        a = ptrs[f]
        for r in range(col.shape[0]):
            b = col[r]
            if mask[r] and b != missing:
                out[a + b] += complex(np.float64(g[r]), np.float64(h[r]))
                counts[a + b] += 1


def node_histogram(codes, missing, cuts: Cuts, g, h, path_masks, path_sides, path_features,
                   root_from_bins: bool, params) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Replay the histogram and sums the grower had for the last node of a root-to-node path.
    ``codes``: the rows' bin codes feature by feature, shape (n_features, n_samples).

    ``path_masks[i]`` are the rows of the i-th node on the path (root first),
    ``path_sides[i]`` whether node i+1 is the left child of node i and ``path_features[i]``
    the feature node i split on. Along the path a child's histogram is built from its rows
    when it is the child with the smaller hessian and is ``parent - sibling`` otherwise; its
    sums are the parent's best scan sums on that feature — as in ``grow_hist``, so the
    result is bit-identical to what the search saw.

    Returns (histogram (total_bins,) complex: G in .real, H in .imag; row counts per bin;
    G; H) of the last node."""
    rp = rules.NodeParams.of(params)
    reg_lambda, alpha, mcw, mds = (rp.reg_lambda, rp.alpha, rp.min_child_weight,
                                   rp.max_delta_step)
    ptrs, total_bins = cuts.ptrs, int(cuts.ptrs[-1])

    def build(mask):
        out = np.zeros(total_bins, dtype=np.complex128)
        cnt = np.zeros(total_bins, dtype=np.int64)
        _node_hist(codes, missing, ptrs, g, h, mask, out, cnt)
        return out, cnt

    hist, counts = build(path_masks[0])
    pg, ph = root_sums(hist, ptrs, g, h, root_from_bins)
    no_out = np.empty((0, CAND_FIELDS), dtype=np.float64)
    for i in range(len(path_masks) - 1):
        f = path_features[i]
        best = _fresh_best()
        psim = rules.similarity(pg, ph, reg_lambda, alpha, mcw, mds)
        n_bins = ptrs[f + 1] - ptrs[f]
        scan_feature(hist, ptrs[f], ptrs[f], n_bins, cuts.min_vals[f], cuts.values, pg, ph, psim,
                     reg_lambda, alpha, mcw, mds, best, no_out, scan_scratch(n_bins), n_bins)
        is_left = path_sides[i]
        child, parent_mask = path_masks[i + 1], path_masks[i]
        built_right = best[SPLIT_HR] < best[SPLIT_HL]
        if built_right != is_left:  # this child was built from its rows
            hist, counts = build(child)
        else:  # this child was the parent minus its built sibling
            sibling, _ = build(parent_mask & ~child)
            hist = hist - sibling
            _, counts = build(child)
        pg, ph = (best[SPLIT_GL], best[SPLIT_HL]) if is_left else (best[SPLIT_GR], best[SPLIT_HR])
    return hist, counts, pg, ph


def node_candidates(hist, cuts: Cuts, pg, ph, params) -> tuple[np.ndarray, np.ndarray, float]:
    """Every candidate of every feature as the search enumerates them (feature ascending,
    forward bins then backward bins): each one's feature, its row of ``records.CAND_*``
    columns, and the node's similarity."""
    rp = rules.NodeParams.of(params)
    reg_lambda, alpha, mcw, mds = (rp.reg_lambda, rp.alpha, rp.min_child_weight,
                                   rp.max_delta_step)
    psim = rules.similarity(pg, ph, reg_lambda, alpha, mcw, mds)
    features, tables = [], []
    for f in range(cuts.n_features):
        a, b = int(cuts.ptrs[f]), int(cuts.ptrs[f + 1])
        out = np.empty((2 * (b - a), CAND_FIELDS), dtype=np.float64)
        best = _fresh_best()
        n = scan_feature(hist, a, a, b - a, cuts.min_vals[f], cuts.values, pg, ph, psim,
                         reg_lambda, alpha, mcw, mds, best, out, scan_scratch(b - a), b - a)
        features.append(np.full(n, f, dtype=np.int64))
        tables.append(out[:n])
    return np.concatenate(features), np.concatenate(tables), float(psim)
