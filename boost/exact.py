"""The exact greedy tree grower (XGBoost's ``grow_colmaker``), level by level.

Each feature's present values are sorted once per training run (``SortedColumns``). While a
tree grows, every feature's sorted entries are kept grouped by node ("segments"), so a node's
search reads its own entries contiguously; after each level the segments are partitioned
stably, in place, into the children's segments. A node therefore accumulates its rows in the
same order as XGBoost's column scan (ascending value, ties by row index), which keeps the
float64 sums, and so every gain, bit-identical.

Scan order and tie-breaking follow docs/xgboost-rules.md §3, §6 and §8::

    sorted entries of feature f in node n:  v0 <= v1 <= ... <= vk   (missing rows not listed)
    forward  (only if the column has missing values and is not constant):
        left = scanned rows, right = the rest incl. missing      -> default_left = False
    backward (always):
        right = scanned rows, left = the rest incl. missing      -> default_left = True
    candidate at every change of value: threshold = f32((a + b) * 0.5)
    after the scan: everything present on one side, missing on the other

Each scan runs in passes over strips of the segment: prefix sums (the only sequential pass),
then which entries start a candidate and the loss change at each (independent, so the
compiler vectorises them), then the first maximum. Long segments are searched in two rounds
(``_first_passes``, then ``_scan_segment``): first only their sums, which bound every loss
in a strip, and the strip most likely to win; then only the strips whose bound reaches the
best loss any feature found for the node. The bounds are exact, not estimates, so the trees
are the same as a search of every entry gives; most strips of most features are skipped. A
segment's first pass runs as soon as its entries are written (the root's by the fill, a
child's by the partition), while they are still in the cache (3-5 ms a tree less at
100k x 20 than a pass of its own over a level), and two features' first passes run side by
side (``_feature_tasks``, ``_sum_strips_pair``): their four chains of additions are the
lanes of one vector (``simd.pair_sums``).

An entry is kept as two words in two arrays, (value, row) and (g, h) (``new_segments``), so
that a pass reads only the half it needs. The partition is in place and prefetches its input;
with AVX-512 it splits eight entries a step (``simd.compress``). The hot loops index through
``_U`` casts, and routing a row is branchless. Features are processed in parallel
(``prange``) and the per-feature bests are merged in feature order, so the result does not
depend on the thread count.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit, prange

from . import simd
from ._dtypes import (
    REASON_GAMMA,
    REASON_MAX_DEPTH,
    REASON_MIN_CHILD_WEIGHT,
    REASON_NO_GAIN,
    REASON_NONE,
    RT_EPS,
)
from .radix import stable_argsort
from .sampling import level_features
from .simd import IO_HHI, IO_HI, IO_LO, IO_SUMS, LANES, pair_strip, prefetch, split8
from .split_math import (
    first_index,
    leaf_weight,
    scan_losses,
    similarity,
    split_loss_change,
    strip_bound,
    strip_max,
)

# Index casts for hot loops: numba turns a signed index i into ``i + len if i < 0`` (a
# compare and a select per access, which can halve a loop's speed); an unsigned one is used
# as is. Only for indices known to be >= 0.
_U = np.uint64
_F32_HALF = np.float32(0.5)
_F32_ZERO = np.float32(0.0)
_NEG_INF32 = np.float32(-np.inf)


class SortedColumns:
    """Each feature's present values in ascending order, CSC-style.

    ``rows[col_ptr[f]:col_ptr[f+1]]`` are the row indices of feature f sorted by value
    (ties by row index) and ``values[...]`` their float32 values. ``need_forward[f]`` says
    whether XGBoost runs the forward (missing -> right) scan: the column has a missing value
    and its present values are not all equal.
    """

    def __init__(self, X: np.ndarray):
        self.col_ptr, self.rows, self.values, self.need_forward = _sort_columns(X)
        # (value, row) packed as in ``new_segments``: the root segments of every tree.
        self.root_rv = np.empty(len(self.rows), dtype=np.int64)
        packed = self.root_rv.view(np.float32).reshape(-1, 2)
        packed[:, 0] = self.values
        packed.view(np.int32)[:, 1] = self.rows


@njit(cache=True, parallel=True, error_model="numpy")
def _sort_columns(X):
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


CHUNK = 256  # entries per strip of a plain scan: a strip's sums and losses stay in L1
BOUND_MIN = 512  # segments at least this long are searched with strip bounds
_BOUND_WIDE = 8192  # bound strips are 32 entries wide below this length, 64 from it
_E_VALUE, _E_ROW = 0, 1  # fields of an entry's (value, row) word (``new_segments``)
_E_G, _E_H = 0, 1  # fields of its (g, h) word
_AHEAD = 1024  # entries (8 KiB of each array) the partition prefetches ahead
# strips[s, :] of a bounded scan
_S_G0, _S_H0, _S_GLO, _S_GHI, _S_HHI, _S_BOUND = range(6)


@njit(cache=True, inline="always")
def _strip_sums(vf, gf, first, step, m, at_start, sg, sh, scratch):
    """Fill the strip's c_g, c_h (the scanned side's sums before each of its m entries,
    continuing from ``sg, sh``) and c_candidate; return the sums after the strip.

    An entry starts a candidate where the value changes, and not while the scanned hessian
    is exactly 0 (XGBoost's "first hit" rule); that test is independent per entry, so it runs
    as a loop of its own that the compiler vectorises, as does ``scan_losses``."""
    c_g, c_h, c_candidate, _, _, c_v = scratch
    c_v[0] = np.float32(0.0) if at_start else vf[_U(first - step), _E_VALUE]  # the entry before
    for i in range(m):  # the only sequential loop
        k = _U(first + step * i)
        c_v[i + 1] = vf[k, _E_VALUE]
        c_g[i] = sg
        c_h[i] = sh
        sg += gf[k, _E_G]
        sh += gf[k, _E_H]
    for i in range(m):
        c_candidate[i] = (c_h[i] != 0.0) & (c_v[i + 1] != c_v[i])
    return sg, sh


@njit(cache=True, inline="always")
def _strip_losses(m, parent_g, parent_h, parent_sim, reg_lambda, alpha, mcw, mds, scratch):
    """The loss change at each of the strip's entries (``scan_losses``); returns the best
    valid one and the best one min_child_weight refused (both -inf if none)."""
    c_g, c_h, c_candidate, c_loss, c_blocked, _ = scratch
    scan_losses(m, c_g, c_h, c_candidate, parent_g, parent_h, parent_sim, reg_lambda, alpha,
                mcw, mds, c_loss, c_blocked)
    top = strip_max(m, c_loss)
    refused = strip_max(m, c_blocked) if mcw > 0.0 else _NEG_INF32
    return top, refused


@njit(cache=True, inline="always")
def _sum_strips(gf, a, b, forward, width, s0, n_strips, strips, sg, sh):
    """First pass of a bounded scan, sums only, from strip s0 on (``sg, sh``: the scanned
    sums before it): per strip the scanned sums before its first entry, the least and
    largest G before any of its entries and H before its last (the largest: every h >= 0
    here). Returns the totals."""
    n = b - a
    step = 1 if forward else -1
    for s in range(s0, n_strips):
        start = s * width
        m = min(width, n - start)
        first = a + start if forward else b - 1 - start
        strips[s, _S_G0] = sg
        strips[s, _S_H0] = sh
        lo = sg
        hi = sg
        for i in range(m - 1):
            k = _U(first + step * i)
            sg += gf[k, _E_G]
            sh += gf[k, _E_H]
            lo = min(lo, sg)
            hi = max(hi, sg)
        strips[s, _S_GLO] = lo
        strips[s, _S_GHI] = hi
        strips[s, _S_HHI] = sh
        k = _U(first + step * (m - 1))
        sg += gf[k, _E_G]
        sh += gf[k, _E_H]
    return sg, sh


@njit(cache=True, inline="always")
def _sum_strips_pair(gf, a1, b1, a2, b2, forward, width, n_strips1, n_strips2, strips1,
                     strips2, io):
    """``_sum_strips`` of two segments with the same strip width: the strips both hold in
    full in one loop whose four chains (G and H of each) are the lanes of one vector
    (``simd.pair_strip``; ``io`` its work array), then the rest of each alone. The
    sums are those of two separate passes, addition for addition. Returns both totals."""
    step = 1 if forward else -1
    io[IO_SUMS:IO_SUMS + 4] = 0.0
    full = min(b1 - a1, b2 - a2) // width
    for s in range(full):
        start = s * width
        strips1[s, _S_G0] = io[IO_SUMS]
        strips1[s, _S_H0] = io[IO_SUMS + 1]
        strips2[s, _S_G0] = io[IO_SUMS + 2]
        strips2[s, _S_H0] = io[IO_SUMS + 3]
        pair_strip(gf, a1 + start if forward else b1 - 1 - start,
                   a2 + start if forward else b2 - 1 - start, step, width, io)
        strips1[s, _S_GLO] = io[IO_LO]
        strips1[s, _S_GHI] = io[IO_HI]
        strips1[s, _S_HHI] = io[IO_HHI]
        strips2[s, _S_GLO] = io[IO_LO + 1]
        strips2[s, _S_GHI] = io[IO_HI + 1]
        strips2[s, _S_HHI] = io[IO_HHI + 1]
    sg1, sh1 = _sum_strips(gf, a1, b1, forward, width, full, n_strips1, strips1,
                           io[IO_SUMS], io[IO_SUMS + 1])
    sg2, sh2 = _sum_strips(gf, a2, b2, forward, width, full, n_strips2, strips2,
                           io[IO_SUMS + 2], io[IO_SUMS + 3])
    return sg1, sh1, sg2, sh2


@njit(cache=True, inline="always")
def _bounded(n, mds):
    """Whether a segment of n entries is searched with strip bounds (``strip_bound`` needs
    max_delta_step 0; short segments gain nothing)."""
    return mds == 0.0 and n >= BOUND_MIN


@njit(cache=True, inline="always")
def _strip_width(n):
    return 32 if n < _BOUND_WIDE else 64


@njit(cache=True, inline="always")
def _strip_offset(a):
    """The first row of ``strips`` for a bounded segment starting ``a`` entries into its
    feature: bounded segments are >= BOUND_MIN long, so their ceil(n / 32) strips and one
    totals row never reach the next one's offset."""
    return a // 32 + 2 * (a // BOUND_MIN)


def _strips_rows(max_entries: int) -> int:
    """Rows of a feature's ``strips`` array for up to ``max_entries`` entries."""
    return max_entries // 32 + 2 * (max_entries // BOUND_MIN) + 3


@njit(cache=True, inline="always")
def _bound_finish(vf, gf, a, b, forward, total_g, total_h, parent_g, parent_h, parent_sim,
                  reg_lambda, alpha, mcw, mds, strips, scratch):
    """The rest of a first pass once ``strips`` hold the sums (``_sum_strips``) of the
    segment ``[a, b)``: its totals row, each strip's bound, and the search of the strip
    with the highest bound. Returns the best valid loss change found there (a loss the
    node can reach: a floor for every search of the node), -inf if none."""
    n = b - a
    step = 1 if forward else -1
    width = _strip_width(n)
    n_strips = (n + width - 1) // width
    strips[n_strips, _S_G0] = total_g
    strips[n_strips, _S_H0] = total_h
    top_s = 0
    for s in range(n_strips):
        strips[s, _S_BOUND] = strip_bound(strips[s, _S_GLO], strips[s, _S_GHI],
                                          strips[s, _S_H0], strips[s, _S_HHI], parent_g,
                                          parent_h, parent_sim, reg_lambda, alpha)
        if strips[s, _S_BOUND] > strips[top_s, _S_BOUND]:
            top_s = s
    start = top_s * width
    first = a + start if forward else b - 1 - start
    m = min(width, n - start)
    _strip_sums(vf, gf, first, step, m, top_s == 0, strips[top_s, _S_G0],
                strips[top_s, _S_H0], scratch)
    return _strip_losses(m, parent_g, parent_h, parent_sim, reg_lambda, alpha, mcw, mds,
                         scratch)[0]


@njit(cache=True, error_model="numpy")
def _first_passes(vf, gf, a1, b1, a2, b2, need_forward1, need_forward2, parent_g, parent_h,
                  parent_sim, reg_lambda, alpha, mcw, mds, strips1, strips2, tops1, tops2,
                  scratch):
    """First pass of a bounded search (see ``_scan_segment``) of one node's segments
    ``[a1, b1)`` and ``[a2, b2)`` of two features (an empty one is left out), in each
    direction its feature is scanned: the sums per strip (into ``strips1[slot]`` and
    ``strips2[slot]``, slot 0 forward if any, then backward), their bounds and the search
    of the strip with the highest bound. ``tops1[di]``, ``tops2[di]`` (0 forward, 1
    backward) get ``_bound_finish``'s results; -inf is left where there is no first pass
    (short segments, directions not scanned). Segments with the same strip width are
    summed side by side (``_sum_strips_pair``)."""
    n1 = b1 - a1
    n2 = b2 - a2
    width1 = _strip_width(n1)
    width2 = _strip_width(n2)
    for di in range(2):
        forward = di == 0
        do1 = _bounded(n1, mds) and (need_forward1 or not forward)
        do2 = _bounded(n2, mds) and (need_forward2 or not forward)
        if not (do1 or do2):
            continue
        slot = di + strips1.shape[0] - 2  # no forward slot when unused
        ns1 = (n1 + width1 - 1) // width1
        ns2 = (n2 + width2 - 1) // width2
        if do1 and do2 and width1 == width2:
            sg1, sh1, sg2, sh2 = _sum_strips_pair(gf, a1, b1, a2, b2, forward, width1, ns1,
                                                  ns2, strips1[slot], strips2[slot],
                                                  scratch[0])
        else:
            sg1 = sh1 = sg2 = sh2 = 0.0
            if do1:
                sg1, sh1 = _sum_strips(gf, a1, b1, forward, width1, 0, ns1, strips1[slot],
                                       0.0, 0.0)
            if do2:
                sg2, sh2 = _sum_strips(gf, a2, b2, forward, width2, 0, ns2, strips2[slot],
                                       0.0, 0.0)
        if do1:
            tops1[di] = _bound_finish(vf, gf, a1, b1, forward, sg1, sh1, parent_g, parent_h,
                                      parent_sim, reg_lambda, alpha, mcw, mds, strips1[slot],
                                      scratch)
        if do2:
            tops2[di] = _bound_finish(vf, gf, a2, b2, forward, sg2, sh2, parent_g, parent_h,
                                      parent_sim, reg_lambda, alpha, mcw, mds, strips2[slot],
                                      scratch)


@njit(cache=True, inline="always")
def _skip_strip(strips, s, floor, parent_h, mcw):
    """Whether the search may skip bounded strip s: its bound is below a loss the node
    reaches, and min_child_weight refuses none of its positions (``blocked`` must see them)."""
    return (strips[s, _S_BOUND] < floor and strips[s, _S_H0] >= mcw
            and parent_h - strips[s, _S_HHI] >= mcw)


@njit(cache=True, error_model="numpy")
def _scan_segment(vf, gf, a, b, forward, parent_g, parent_h, parent_sim, reg_lambda, alpha,
                  mcw, mds, floor, strips, scratch, best):
    """Search one node's entries ``[a, b)`` of one feature in one direction (``vf[k]``:
    entry k's value and row, ``gf[k]`` its g and h; see ``new_segments``).

    ``best`` = [loss, threshold, default_left, blocked] is updated in place: the loss only
    when strictly larger (the first of equal gains in scan order wins), ``blocked`` with the
    best loss change that min_child_weight refused. The segment is processed in strips:
    sums (sequential), losses (vectorised), then the strip's first maximum.

    A bounded segment (``_bounded``) has had its first pass (``_first_passes`` into
    ``strips``), and ``floor`` is a loss change some candidate of the node reaches (the best
    of the first passes over every feature). A strip whose bound is below the floor cannot
    hold the node's best split, so it is skipped — unless min_child_weight refuses one of
    its positions (``blocked`` must see them). The bound is never below a loss it bounds
    (``split_math.strip_bound``), so the node's split is the one a search of every strip
    finds; a feature that cannot win may keep a lower ``best`` than its full search would.
    """
    n = b - a
    step = 1 if forward else -1
    bounded = _bounded(n, mds)
    width = _strip_width(n) if bounded else CHUNK
    n_strips = (n + width - 1) // width
    best_loss = best[0]
    blocked = best[3]
    best_v = np.float32(0.0)
    best_prev = np.float32(0.0)
    found = False
    sg = np.float64(0.0)
    sh = np.float64(0.0)
    s = 0
    while s < n_strips:
        start = s * width
        first = a + start if forward else b - 1 - start
        if bounded:
            if _skip_strip(strips, s, max(floor, best_loss), parent_h, mcw):
                s += 1
                continue
            # Consecutive strips to search go through the steps below together (fewer, longer
            # vector loops), up to CHUNK entries.
            e = s + 1
            while (e < n_strips and (e + 1 - s) * width <= CHUNK
                   and not _skip_strip(strips, e, max(floor, best_loss), parent_h, mcw)):
                e += 1
            m = min((e - s) * width, n - start)
            _strip_sums(vf, gf, first, step, m, s == 0, strips[s, _S_G0], strips[s, _S_H0],
                        scratch)
        else:
            e = s + 1
            m = min(width, n - start)
            sg, sh = _strip_sums(vf, gf, first, step, m, s == 0, sg, sh, scratch)
        s = e
        top, refused = _strip_losses(m, parent_g, parent_h, parent_sim, reg_lambda, alpha, mcw,
                                     mds, scratch)
        if top > best_loss:  # rare: the first entry of the strip's maximum
            k = first + step * first_index(m, scratch[3], top)
            best_loss = top
            best_v = vf[k, _E_VALUE]
            best_prev = vf[k - step, _E_VALUE]  # a candidate is never the scan's first entry
            found = True
        blocked = max(blocked, refused)
    if bounded:
        sg = strips[n_strips, _S_G0]
        sh = strips[n_strips, _S_H0]
    best[3] = blocked
    if found:
        mid = (best_v + best_prev) * _F32_HALF
        best[0] = best_loss
        best[1] = best_prev if mid == best_v else mid
        best[2] = 0.0 if forward else 1.0
    # Everything present on one side, the missing rows on the other.
    rest_h = parent_h - sh
    if n > 0 and sh >= mcw and rest_h >= mcw:
        prev = vf[b - 1, _E_VALUE] if forward else vf[a, _E_VALUE]  # the scan's last value
        loss = split_loss_change(sg, sh, parent_g - sg, rest_h, parent_sim, reg_lambda, alpha,
                                 mcw, mds)
        if loss > best[0] and not math.isinf(loss):
            gap = abs(prev) + RT_EPS
            best[0] = loss
            best[1] = prev + gap if forward else prev - gap
            best[2] = 0.0 if forward else 1.0


def _new_scratch():
    """Work arrays of ``_scan_segment`` and ``_bound_finish`` (one strip's worth)."""
    return (np.empty(CHUNK, np.float64), np.empty(CHUNK, np.float64),
            np.empty(CHUNK, np.bool_), np.empty(CHUNK, np.float32),
            np.empty(CHUNK, np.float32), np.empty(CHUNK + 1, np.float32))


_new_scratch_jit = njit(cache=True)(_new_scratch)


@njit(cache=True)
def _level_setup(d, start, end, sum_grad, sum_hess, reg_lambda, alpha, mcw, mds, n_features,
                 col_key, bytree, bylevel, bynode, colsample):
    """The similarity of each node ``start..end-1`` of level d, and the features each may
    search (all, or ``sampling.level_features``'s draw)."""
    parent_sim = np.empty(end - start, dtype=np.float32)
    for li in range(end - start):
        parent_sim[li] = similarity(sum_grad[start + li], sum_hess[start + li], reg_lambda,
                                    alpha, mcw, mds)
    allowed = np.ones((end - start, n_features), dtype=np.bool_)
    if colsample:
        level_features(col_key, d, np.arange(start, end), bytree, bylevel, bynode, allowed)
    return parent_sim, allowed


def _feature_tasks(n_features: int, n_threads: int) -> np.ndarray:
    """The features each parallel task processes, as rows (f1, f2), f2 = -1 for a task of
    one feature: pairs, whose first passes run side by side (``_first_passes``), as long as
    every thread still gets the same work. numba's OpenMP layer hands each thread one
    contiguous block of the tasks, so the pairs and the single features are spread evenly
    over the blocks (another order would only balance the threads less well)."""
    n_pairs = 0
    for p in range(n_features // 2, 0, -1):
        if p % n_threads == 0 and (n_features - 2 * p) % n_threads == 0:
            n_pairs = p
            break
    n_single = n_features - 2 * n_pairs
    per_block = (n_pairs + n_single) // n_threads if n_pairs else 0
    tasks = np.full((n_pairs + n_single, 2), -1, dtype=np.int64)
    f = 0
    for t in range(len(tasks)):
        # In a block: its pairs first, then its single features.
        pair = n_pairs > 0 and t % per_block < n_pairs // n_threads
        tasks[t, 0] = f
        if pair:
            tasks[t, 1] = f + 1
        f += 2 if pair else 1
    return tasks


@njit(cache=True, inline="always")
def _task_features(tasks, t):
    """Task t's features f1, f2 and whether it has two; a one-feature task gives f2 = f1,
    whose second segment is then always empty."""
    f1 = tasks[t, 0]
    two = tasks[t, 1] >= 0
    return f1, (tasks[t, 1] if two else f1), two


@njit(cache=True, inline="always")
def _allowed_range(a, b, allowed):
    """The segment [a, b), or an empty one where its feature is not searched."""
    return a, (b if allowed else a)


@njit(cache=True, inline="always")
def _partition(vi_in, vr_in, vr, gh, side, side_buf, vector, a, b, spill_vr, spill_gh):
    """Partition the entries ``[a, b)`` stably by their row's ``side``, in place: the left
    ones move down within the range as they are read, the right ones go to the spill
    buffers and then after the left ones. Returns where the right side starts.

    The (value, row) words are read from ``vr_in`` (the root's own words, or ``vr``) and
    written to ``vr``; the (g, h) words stay in ``gh``. No branch depends on the
    (unpredictable) side. With ``vector`` (``simd.VECTOR_SPLIT``) eight entries a step
    go through ``simd.split8``, the last few one by one. Otherwise every side is looked
    up first into ``side_buf`` (which keeps those loads off the cursors' chain, four
    independent loads a step), then each entry is written at both cursors and only its
    side's advances (a left entry's spill is overwritten by the next; a right entry's write
    at the left cursor lands on an entry already read, later overwritten)."""
    n_left = 0
    n_right = 0
    k = a
    last = len(vr_in) - 1
    if vector:
        while k + LANES <= b:
            # The hardware prefetcher does not keep up with these streams: ask for the
            # lines _AHEAD entries on.
            prefetch(vr_in, min(k + _AHEAD, last))
            prefetch(gh, min(k + _AHEAD, last))
            sent_right = split8(vr_in, gh, side, vr, gh, spill_vr, spill_gh, k, a + n_left,
                                n_right)
            n_left += LANES - sent_right
            n_right += sent_right
            k += LANES
    else:
        while k + 4 <= b:
            if (k - a) % 8 == 0:  # a line of each array
                prefetch(vr_in, min(k + _AHEAD, last))
                prefetch(gh, min(k + _AHEAD, last))
            s0 = side[_U(vi_in[_U(k), _E_ROW])]
            s1 = side[_U(vi_in[_U(k + 1), _E_ROW])]
            s2 = side[_U(vi_in[_U(k + 2), _E_ROW])]
            s3 = side[_U(vi_in[_U(k + 3), _E_ROW])]
            side_buf[_U(k)] = s0
            side_buf[_U(k + 1)] = s1
            side_buf[_U(k + 2)] = s2
            side_buf[_U(k + 3)] = s3
            k += 4
        for j in range(k, b):
            side_buf[_U(j)] = side[_U(vi_in[_U(j), _E_ROW])]
        k = a
    for j in range(k, b):
        sd = np.int64(side_buf[_U(j)] if not vector else side[_U(vi_in[_U(j), _E_ROW])])
        word = vr_in[_U(j)]
        pair = gh[_U(j)]
        vr[_U(a + n_left)] = word
        gh[_U(a + n_left)] = pair
        spill_vr[_U(n_right)] = word
        spill_gh[_U(n_right)] = pair
        n_left += 1 - sd
        n_right += sd
    split = a + n_left
    for i in range(n_right):
        vr[_U(split + i)] = spill_vr[_U(i)]
        gh[_U(split + i)] = spill_gh[_U(i)]
    return split


@njit(cache=True, parallel=True, error_model="numpy")
def grow_exact(X, col_ptr, rows, root_rv, need_forward, g, h, eta, reg_lambda, alpha, mcw,
               mds, max_depth, position, seg, parent, left, right, depth, feature, threshold,
               default_left, loss_chg, sum_grad, sum_hess, weight, reason, col_key, bytree,
               bylevel, bynode, colsample):
    """Grow one tree; fill the node arrays (capacity >= nodes grown) and return the count.

    ``position`` (n_samples, int32) ends as the leaf of the grown tree each row reaches (-1
    for a row whose hessian is negative: XGBoost leaves such rows out of the search). ``seg`` is a
    ``Segments`` workspace (see ``new_segments``); ``col_ptr`` to ``need_forward`` are
    ``SortedColumns``' arrays. With ``colsample`` each node searches only the features
    ``sampling.level_features(col_key, ...)`` draws for it.
    """
    vr, vf, vi, gh, gf, root_vf, root_vi, side_buf, spill_vr, spill_gh, strips, tasks, vector = seg
    n_samples, n_features = X.shape
    root_g = np.float64(0.0)
    root_h = np.float64(0.0)
    for r in range(n_samples):
        if h[r] < 0:
            position[r] = -1
        else:
            position[r] = 0
            root_g += g[r]
            root_h += h[r]
    parent[0] = -1
    depth[0] = 0
    sum_grad[0] = root_g
    sum_hess[0] = root_h
    weight[0] = leaf_weight(root_g, root_h, reg_lambda, alpha, mcw, mds)
    # Root segments: each feature's sorted entries, rows with h < 0 dropped.
    any_negative = False
    for r in range(n_samples):
        if position[r] < 0:
            any_negative = True
            break
    # Node li's entries of feature f are [span[f, li, 0], span[f, li, 1]) of ``vr``/``gh``.
    # (One array per level, not two: numba's array analysis mixed up the shapes of two
    # arrays reassigned in the level loop and indexed one with the other's strides.)
    span = np.empty((n_features, 1, 2), dtype=np.int64)
    side = np.zeros(n_samples, dtype=np.uint8)  # 0 = left child, 1 = right child
    # Each row's (g, h) packed in one int64, so the gather below is one load per entry.
    gh_row = np.empty(n_samples, dtype=np.int64)
    gh_row_f = gh_row.view(np.float32).reshape(n_samples, 2)
    for r in prange(n_samples):
        gh_row_f[r, 0] = g[r]
        gh_row_f[r, 1] = h[r]
    # The level's node similarities, features allowed, and each segment's first pass (see
    # ``_scan_segment``): for the root right after its feature's entries are written, for the
    # other levels while the partition writes their segments: while they are in the cache.
    parent_sim, allowed = _level_setup(0, 0, 1, sum_grad, sum_hess, reg_lambda, alpha, mcw, mds,
                                       n_features, col_key, bytree, bylevel, bynode, colsample)
    tops = np.full((n_features, 1, 2), _NEG_INF32, dtype=np.float32)
    # The root's (value, row) words are the sorted columns' own (``root_rv``) unless rows
    # are left out; its (g, h) words are gathered by row.
    vr_in = vr if any_negative else root_rv
    vf_in = vf if any_negative else root_vf
    vi_in = vi if any_negative else root_vi
    for t in prange(len(tasks)):
        for j in range(2):
            f = tasks[t, j]
            if f < 0:
                continue
            out = col_ptr[f]
            if any_negative:
                for k in range(col_ptr[f], col_ptr[f + 1]):
                    r = rows[k]
                    if position[r] == 0:
                        vr[out] = root_rv[k]
                        gh[out] = gh_row[r]
                        out += 1
            else:
                for k in range(col_ptr[f], col_ptr[f + 1]):
                    gh[_U(k)] = gh_row[_U(rows[_U(k)])]
                out = col_ptr[f + 1]
            span[f, 0, 0] = col_ptr[f]
            span[f, 0, 1] = out
        f1, f2, two = _task_features(tasks, t)
        a1, b1 = _allowed_range(span[f1, 0, 0], span[f1, 0, 1], allowed[0, f1])
        a2, b2 = _allowed_range(span[f2, 0, 0], span[f2, 0, 1], allowed[0, f2] and two)
        _first_passes(vf_in, gf, a1, b1, a2, b2, need_forward[f1], need_forward[f2],
                      sum_grad[0], sum_hess[0], parent_sim[0], reg_lambda, alpha, mcw, mds,
                      strips[f1, :, _strip_offset(a1 - col_ptr[f1]):],
                      strips[f2, :, _strip_offset(a2 - col_ptr[f2]):], tops[f1, 0], tops[f2, 0],
                      _new_scratch_jit())
    n_nodes = 1
    level_start = 0
    level_end = 1
    for d in range(max_depth):
        n_level = level_end - level_start
        # best[f, li] = [loss, threshold, default_left, blocked]
        best = np.zeros((n_features, n_level, 4), dtype=np.float32)
        best[:, :, 3] = _NEG_INF32
        # Each first pass's best, in its strip of highest bound, is a loss its node reaches;
        # the best of them over every feature is the node's floor. The searches skip the
        # strips whose bound is below it.
        floor = np.full(n_level, _NEG_INF32, dtype=np.float32)
        for li in range(n_level):
            for f in range(n_features):
                floor[li] = max(floor[li], max(tops[f, li, 0], tops[f, li, 1]))
        for f in prange(n_features):
            scratch = _new_scratch_jit()
            for li in range(n_level):
                a = span[f, li, 0]
                b = span[f, li, 1]
                if b <= a or not allowed[li, f]:
                    continue
                nid = level_start + li
                off = _strip_offset(a - col_ptr[f])
                for di in range(2):
                    if di == 0 and not need_forward[f]:
                        continue
                    slot = di + strips.shape[1] - 2  # no forward slot when unused
                    _scan_segment(vf_in, gf, a, b, di == 0, sum_grad[nid], sum_hess[nid],
                                  parent_sim[li], reg_lambda, alpha, mcw, mds, floor[li],
                                  strips[f, slot, off:], scratch, best[f, li])
        any_split = False
        for li in range(n_level):
            nid = level_start + li
            best_loss = _F32_ZERO
            best_f = -1
            blocked = _NEG_INF32
            for f in range(n_features):  # ascending: on equal gains the lower feature wins
                if best[f, li, 0] > best_loss:
                    best_loss = best[f, li, 0]
                    best_f = f
                if best[f, li, 3] > blocked:
                    blocked = best[f, li, 3]
            loss_chg[nid] = best_loss
            if best_loss > RT_EPS:
                any_split = True
                feature[nid] = best_f
                threshold[nid] = best[best_f, li, 1]
                default_left[nid] = best[best_f, li, 2] != 0.0
                left[nid] = n_nodes
                right[nid] = n_nodes + 1
                for c in (n_nodes, n_nodes + 1):
                    parent[c] = nid
                    depth[c] = d + 1
                    left[c] = -1
                    right[c] = -1
                    threshold[c] = _F32_ZERO
                    default_left[c] = False
                    sum_grad[c] = 0.0
                    sum_hess[c] = 0.0
                    loss_chg[c] = _F32_ZERO
                    reason[c] = REASON_MAX_DEPTH
                n_nodes += 2
                reason[nid] = REASON_NONE
            else:
                left[nid] = -1
                right[nid] = -1
                feature[nid] = -1
                threshold[nid] = _F32_ZERO
                default_left[nid] = False
                reason[nid] = REASON_MIN_CHILD_WEIGHT if blocked > RT_EPS else REASON_NO_GAIN
        if not any_split:
            break
        for r in prange(n_samples):
            nid = position[r]
            if nid < level_start:
                continue
            nu = _U(nid)
            if left[nu] == -1:
                continue  # a leaf: the row stays there
            x = X[r, _U(feature[nu])]
            # Right unless x < threshold, or x is missing and the default is left; without
            # branches, which the random outcome would mispredict (half the routing time).
            go_right = (np.uint8(not (x < threshold[nu]))
                        & np.uint8(not (math.isnan(x) & default_left[nu])))
            side[r] = go_right
            position[r] = left[nu] + np.int32(go_right)
        for r in range(n_samples):  # row order, like XGBoost's single-thread sums
            nid = position[r]
            if nid >= level_end:
                sum_grad[_U(nid)] += g[r]
                sum_hess[_U(nid)] += h[r]
        for nid in range(level_end, n_nodes):
            weight[nid] = leaf_weight(sum_grad[nid], sum_hess[nid], reg_lambda, alpha, mcw, mds)
            feature[nid] = -1
        if d == max_depth - 1:
            break
        # Partition every feature's segments into the children's, in place (``_partition``),
        # a task's two features node by node, then the children's first passes of both side
        # by side. Parallel blocks of tasks, one per thread (``_feature_tasks``), so that a
        # thread's spill buffer stays its own and in its cache.
        n_next = n_nodes - level_end
        new_span = np.empty((n_features, n_next, 2), dtype=np.int64)
        parent_sim, allowed = _level_setup(d + 1, level_end, n_nodes, sum_grad, sum_hess,
                                           reg_lambda, alpha, mcw, mds, n_features, col_key,
                                           bytree, bylevel, bynode, colsample)
        tops = np.full((n_features, n_next, 2), _NEG_INF32, dtype=np.float32)
        n_blocks = len(spill_vr)
        for blk in prange(n_blocks):
            scratch = _new_scratch_jit()
            for task in range(blk * len(tasks) // n_blocks,
                              (blk + 1) * len(tasks) // n_blocks):
                f1, f2, two = _task_features(tasks, task)
                for li in range(n_level):
                    nid = level_start + li
                    if left[nid] == -1:
                        continue
                    cl = left[nid] - level_end  # the children's indices in the next level
                    cr = cl + 1
                    a1 = span[f1, li, 0]
                    b1 = span[f1, li, 1]
                    split1 = _partition(vi_in, vr_in, vr, gh, side, side_buf, vector, a1, b1,
                                        spill_vr[blk], spill_gh[blk])
                    new_span[f1, cl, 0] = a1
                    new_span[f1, cl, 1] = split1
                    new_span[f1, cr, 0] = split1
                    new_span[f1, cr, 1] = b1
                    a2 = span[f2, li, 0]
                    b2 = span[f2, li, 1] if two else a2  # one-feature task: an empty segment
                    split2 = a2
                    if two:
                        split2 = _partition(vi_in, vr_in, vr, gh, side, side_buf, vector, a2,
                                            b2, spill_vr[blk], spill_gh[blk])
                        new_span[f2, cl, 0] = a2
                        new_span[f2, cl, 1] = split2
                        new_span[f2, cr, 0] = split2
                        new_span[f2, cr, 1] = b2
                    for c in range(2):  # the children's first passes, on entries just written
                        ci = cl + c
                        c_a1, c_b1 = _allowed_range(a1 if c == 0 else split1,
                                                    split1 if c == 0 else b1, allowed[ci, f1])
                        c_a2, c_b2 = _allowed_range(a2 if c == 0 else split2,
                                                    split2 if c == 0 else b2, allowed[ci, f2])
                        _first_passes(vf, gf, c_a1, c_b1, c_a2, c_b2, need_forward[f1],
                                      need_forward[f2], sum_grad[level_end + ci],
                                      sum_hess[level_end + ci], parent_sim[ci], reg_lambda,
                                      alpha, mcw, mds,
                                      strips[f1, :, _strip_offset(c_a1 - col_ptr[f1]):],
                                      strips[f2, :, _strip_offset(c_a2 - col_ptr[f2]):],
                                      tops[f1, ci], tops[f2, ci], scratch)
        vr_in = vr
        vf_in = vf
        vi_in = vi
        span = new_span
        level_start = level_end
        level_end = n_nodes
    return n_nodes


def new_segments(columns: SortedColumns):
    """Workspace of ``grow_exact``: a copy of the sorted entries (partitioned in place, level
    by level), a side buffer (the scalar partition's), each thread's spill buffers
    (``_partition``), and per feature and scan direction the strips of its bounded segments
    (``_first_passes``; rows ``_strip_offset`` on; the forward direction only when some
    column has missing values).

    An entry is two int64 words in two arrays: (value float32, row int32), packed as in
    ``SortedColumns.root_rv``, and (g float32, h float32). Apart, a pass that needs only one
    half (the partition's side lookup: rows; a first pass: g and h) reads half the bytes,
    and the root's (value, row) words need no copy. The copy comes with the views of its
    fields, ``vf[k, _E_VALUE]``, ``vi[k, _E_ROW]``, ``gf[k, _E_G]``, ``gf[k, _E_H]`` (made
    here, not in numba: numba's own view + reshape of an array chosen at run time once gave
    wrong strides in a variant of ``grow_exact``), and so do the root's words.
    Last, the features of each parallel task (``_feature_tasks``, for the number of threads
    numba runs now), and whether the partition runs in vector instructions
    (``simd.VECTOR_SPLIT``).
    """
    nnz = len(columns.rows)
    longest = int(np.diff(columns.col_ptr).max(initial=0))
    n_strips = _strips_rows(longest)
    n_directions = 2 if columns.need_forward.any() else 1  # [forward,] backward
    strips = np.empty((len(columns.col_ptr) - 1, n_directions, n_strips, 6), np.float64)
    n_threads = numba.get_num_threads()
    tasks = _feature_tasks(len(columns.col_ptr) - 1, n_threads)
    vr, gh = np.empty(nnz, np.int64), np.empty(nnz, np.int64)
    side_buf = np.empty(0 if simd.VECTOR_SPLIT else nnz, np.uint8)
    return (vr, *_word_fields(vr), gh, gh.view(np.float32).reshape(nnz, 2),
            *_word_fields(columns.root_rv), side_buf,
            np.empty((n_threads, longest), np.int64), np.empty((n_threads, longest), np.int64),
            strips, tasks, simd.VECTOR_SPLIT)


def _word_fields(vr: np.ndarray):
    """(value, row) words as (n, 2) float32 and int32 arrays."""
    return vr.view(np.float32).reshape(-1, 2), vr.view(np.int32).reshape(-1, 2)


@njit(cache=True, error_model="numpy")
def prune(n_nodes, parent, left, right, loss_chg, gamma, is_leaf, removed, reason):
    """XGBoost's ``prune`` updater: bottom-up, collapse a split whose two children are
    leaves when its loss change < gamma; repeat on its parent (docs/xgboost-rules.md §1).
    Fills ``is_leaf`` (leaf of the final tree) and ``removed`` (grown, then pruned away)."""
    for nid in range(n_nodes):
        is_leaf[nid] = left[nid] == -1
        removed[nid] = False
    for nid in range(n_nodes):
        if not is_leaf[nid] or removed[nid]:
            continue
        cur = nid
        while cur != 0:
            p = parent[cur]
            lc = left[p]
            rc = right[p]
            if is_leaf[lc] and is_leaf[rc] and loss_chg[p] < gamma:
                is_leaf[p] = True
                removed[lc] = True
                removed[rc] = True
                reason[p] = REASON_GAMMA
                reason[lc] = REASON_GAMMA
                reason[rc] = REASON_GAMMA
                cur = p
            else:
                break
