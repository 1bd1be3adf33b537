"""The split search: each feature's bins scanned for a node's best split, from its histogram.

The scan of a feature (docs/xgboost-rules.md §1, §3, §6, §8): forward over the bins,
left = bins 0..i, threshold = cut[i], missing right; then, only if the present rows' sums
differ from the node's (exact float64 comparison), backward, right = bins i.., threshold =
cut[i-1] (``min_val`` for i = 0), missing left. Child sums are the scan's sums (the right
side is ``parent - left``), as XGBoost keeps them. All of it is float64 summed in bin order
and float32 gains, so the splits equal XGBoost's; features are processed in parallel and
merged in feature order (``node_rules.best_feature``), so the result does not depend on the
thread count. ``best[f, t]`` holds feature f's best split of node t (``records.SPLIT_*``).

``_evaluate`` scans built histograms; ``_search`` builds a level's children, subtracts
their siblings and scans them in one parallel pass over feature blocks.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .. import node_rules as rules
from ..records import (
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
)
from ..sampling import level_features
from ..split_math import first_index, scan_losses, strip_max
from .binning import feature_block
from .histogram import _build_block, _subtract_range


def fresh_best() -> np.ndarray:
    """A ``scan_feature`` best entry before any candidate (``records.SPLIT_*``)."""
    best = np.zeros(SPLIT_FIELDS, dtype=np.float64)
    best[SPLIT_BLOCKED] = -np.inf
    return best


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
def scan_feature(hh, h0, c0, n, min_val, cut_vals, pg, ph, psim, rp, best, out, scratch, rows):
    """Forward then (if anything is missing) backward scan of one feature's ``n`` bins
    ``hh[h0:h0 + n]``, whose cut values are ``cut_vals[c0:c0 + n]``, for a node with sums
    ``pg, ph`` and similarity ``psim`` (``rp``: ``NodeParams``). Keeps the first strictly
    best loss in ``best`` (float64, ``records.SPLIT_*``). If ``out`` has rows, every
    candidate is written there too (for ``split_candidates``; columns ``records.CAND_*``);
    returns their count.
    ``scratch``: ``scan_scratch(n)`` or larger. ``rows``: the node's row count (at most
    that many bins are non-empty).

    Each direction takes the running sums (sequential), then every bin's loss change at once
    (``split_math.scan_losses``), then the first maximum."""
    compact = out.shape[0] == 0 and 2 * rows < n
    sg, sh, n_out = _scan_direction(hh, h0, c0, n, min_val, cut_vals, True, pg, ph, psim, rp,
                                    best, out, 0, scratch, compact)
    if sg == pg and sh == ph:  # nothing missing: the backward scan would repeat it
        return n_out
    return _scan_direction(hh, h0, c0, n, min_val, cut_vals, False, pg, ph, psim, rp, best, out,
                           n_out, scratch, compact)[2]


@njit(cache=True, nogil=True, inline="always")
def _scan_direction(hh, h0, c0, n, min_val, cut_vals, forward, pg, ph, psim, rp, best, out,
                    n_out, scratch, compact):
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
    scan_losses(k, acc_g, acc_h, every, pg, ph, psim, rp, lv, lb)
    mcw = rp.min_child_weight
    for j in range(n if out.shape[0] > 0 else 0):  # every candidate, for split_candidates
        split_bin, thr = _bin_threshold(j, n, c0, min_val, cut_vals, forward)
        gl, hl, gr, hr = _children(acc_g[j], acc_h[j], pg, ph, forward)
        loss = rules.split_loss_change(gl, hl, gr, hr, psim, rp)
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
def _evaluate(hist, slots, bins, node_g, node_h, node_rows, rp, best):
    """best[f, t] = the best split of feature f for the node whose histogram is
    hist[slots[t]], whose sums are node_g[t], node_h[t] and rows node_rows[t] (``bins``:
    ``binning.Bins``; ``rp``: ``NodeParams``)."""
    ptrs, cut_vals, min_vals, stride = bins  # locals: a parallel loop reads no tuple fields
    for f in prange(ptrs.shape[0] - 1):
        _evaluate_feature(hist, slots, stride, ptrs, cut_vals, min_vals, node_g, node_h,
                          node_rows, rp, best, f)


@njit(cache=True, nogil=True)  # on its own, as histogram._build_block
def _evaluate_feature(hist, slots, stride, ptrs, cut_vals, min_vals, node_g, node_h, node_rows,
                      rp, best, f):
    """``_evaluate`` for feature f."""
    no_out = np.empty((0, CAND_FIELDS), dtype=np.float64)
    scratch = _scan_scratch_jit(ptrs[f + 1] - ptrs[f])
    for t in range(slots.shape[0]):
        bt = best[f, t]
        bt[:] = 0.0
        bt[SPLIT_BLOCKED] = -np.inf
        psim = rules.similarity(node_g[t], node_h[t], rp)
        scan_feature(hist[slots[t]], f * stride, ptrs[f], ptrs[f + 1] - ptrs[f], min_vals[f],
                     cut_vals, node_g[t], node_h[t], psim, rp, bt, no_out, scratch,
                     node_rows[t])


@njit(cache=True, nogil=True, parallel=True)
def _search(data, rows, indexed, starts, ends, b_slot, parent_hist, p_slot, s_slot, hist, bins,
            node_g, node_h, node_rows, rp, best):
    """A level's histograms and best splits in one parallel pass over feature blocks: a
    block's histograms are built (``histogram._build``: the rows ``starts[t]:ends[t]`` of
    ``rows`` into ``hist[b_slot[t]]``; ``data``: ``workspace.HistRows``), its slice of each
    sibling's is ``parent - built`` (``hist[s_slot[t]]``, the parent
    ``parent_hist[p_slot[t]]``) and its features are scanned while they are in cache — the
    arithmetic of ``_build``, ``_subtract_range`` and ``_evaluate``, so the same splits. The
    nodes evaluated are slots 0..len(node_g)-1."""
    slots = np.arange(node_g.shape[0])
    for blk in prange(data.records.shape[0]):
        _search_block(data, rows, indexed, starts, ends, b_slot, parent_hist, p_slot, s_slot,
                      hist, bins, node_g, node_h, node_rows, rp, best, slots, blk)


@njit(cache=True, nogil=True)  # on its own, as histogram._build_block
def _search_block(data, rows, indexed, starts, ends, b_slot, parent_hist, p_slot, s_slot, hist,
                  bins, node_g, node_h, node_rows, rp, best, slots, blk):
    """``_search`` for the block of features ``blk``."""
    records, gh, missing = data.records, data.gh, data.missing
    ptrs, cut_vals, min_vals, stride = bins
    f0, f1 = feature_block(ptrs.shape[0] - 1, records.shape[0], blk)
    _build_block(records[blk], missing, stride, gh[blk], rows, indexed, starts, ends, b_slot,
                 hist, f0, f1)
    for t in range(s_slot.shape[0]):
        _subtract_range(parent_hist[p_slot[t]], hist[b_slot[t]], hist[s_slot[t]],
                        f0 * stride, f1 * stride)
    for f in range(f0, f1):
        _evaluate_feature(hist, slots, stride, ptrs, cut_vals, min_vals, node_g, node_h,
                          node_rows, rp, best, f)


@njit(cache=True, nogil=True)
def drop_unsampled(best, cs, depth, level):
    """Forget the best splits of the features the nodes ``level`` (at ``depth``) may not use:
    the tree's colsample_* draw ``cs`` (``sampling.NodeSampling``; inactive: none)."""
    if not cs.active:
        return
    allowed = np.empty((level.shape[0], best.shape[0]), dtype=np.bool_)
    level_features(cs.key, depth, level, cs.bytree, cs.bylevel, cs.bynode, allowed)
    for t in range(allowed.shape[0]):
        for f in range(allowed.shape[1]):
            if not allowed[t, f]:
                best[f, t, SPLIT_LOSS] = -np.inf
                best[f, t, SPLIT_BLOCKED] = -np.inf
