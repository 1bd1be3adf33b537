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
from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from . import node_rules as rules
from . import simd
from ._dtypes import RT_EPS
from .radix import stable_argsort
from .records import (
    SPLIT_BLOCKED,
    SPLIT_DEFAULT_LEFT,
    SPLIT_EXACT,
    SPLIT_LOSS,
    SPLIT_THRESHOLD,
    STRIP_BOUND,
    STRIP_FIELDS,
    STRIP_G0,
    STRIP_GHI,
    STRIP_GLO,
    STRIP_H0,
    STRIP_HHI,
    WORD_G,
    WORD_H,
    WORD_ROW,
    WORD_VALUE,
    pack_words,
    word_fields,
)
from .sampling import level_features
from .simd import IO_HHI, IO_HI, IO_LO, IO_SUMS, LANES, pair_strip, prefetch, split8
from .split_math import first_index, scan_losses, strip_bound, strip_max

# Index casts for hot loops: numba turns a signed index i into ``i + len if i < 0`` (a
# compare and a select per access, which can halve a loop's speed); an unsigned one is used
# as is. Only for indices known to be >= 0.
_U = np.uint64
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
        self.col_ptr, self.rows, self.values, self.need_forward = sort_columns(X)
        # (value, row) words (records.WORD_*): the root segments of every tree.
        self.root_rv = pack_words(self.values, self.rows)

    def arrays(self) -> Columns:
        """The arrays as ``grow_exact`` takes them."""
        return Columns(self.col_ptr, self.rows, self.root_rv, *word_fields(self.root_rv),
                       self.need_forward)


@njit(cache=True, nogil=True, parallel=True, error_model="numpy")
def sort_columns(X):
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
_AHEAD = 1024  # entries (8 KiB of each array) the partition prefetches ahead


@njit(cache=True, nogil=True, inline="always")
def _strip_sums(vf, gf, first, step, m, at_start, sg, sh, scratch):
    """Fill the strip's c_g, c_h (the scanned side's sums before each of its m entries,
    continuing from ``sg, sh``) and c_candidate; return the sums after the strip.

    An entry starts a candidate where the value changes, and not while the scanned hessian
    is exactly 0 (XGBoost's "first hit" rule); that test is independent per entry, so it runs
    as a loop of its own that the compiler vectorises, as does ``scan_losses``."""
    c_g, c_h, c_candidate, _, _, c_v = scratch
    c_v[0] = np.float32(0.0) if at_start else vf[_U(first - step), WORD_VALUE]  # the entry before
    for i in range(m):  # the only sequential loop
        k = _U(first + step * i)
        c_v[i + 1] = vf[k, WORD_VALUE]
        c_g[i] = sg
        c_h[i] = sh
        sg += gf[k, WORD_G]
        sh += gf[k, WORD_H]
    for i in range(m):
        c_candidate[i] = (c_h[i] != 0.0) & (c_v[i + 1] != c_v[i])
    return sg, sh


@njit(cache=True, nogil=True, inline="always")
def _strip_losses(m, parent_g, parent_h, parent_sim, reg_lambda, alpha, mcw, mds, scratch):
    """The loss change at each of the strip's entries (``scan_losses``); returns the best
    valid one and the best one min_child_weight refused (both -inf if none)."""
    c_g, c_h, c_candidate, c_loss, c_blocked, _ = scratch
    scan_losses(m, c_g, c_h, c_candidate, parent_g, parent_h, parent_sim, reg_lambda, alpha,
                mcw, mds, c_loss, c_blocked)
    top = strip_max(m, c_loss)
    refused = strip_max(m, c_blocked) if mcw > 0.0 else _NEG_INF32
    return top, refused


@njit(cache=True, nogil=True, inline="always")
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
        strips[s, STRIP_G0] = sg
        strips[s, STRIP_H0] = sh
        lo = sg
        hi = sg
        for i in range(m - 1):
            k = _U(first + step * i)
            sg += gf[k, WORD_G]
            sh += gf[k, WORD_H]
            lo = min(lo, sg)
            hi = max(hi, sg)
        strips[s, STRIP_GLO] = lo
        strips[s, STRIP_GHI] = hi
        strips[s, STRIP_HHI] = sh
        k = _U(first + step * (m - 1))
        sg += gf[k, WORD_G]
        sh += gf[k, WORD_H]
    return sg, sh


@njit(cache=True, nogil=True, inline="always")
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
        strips1[s, STRIP_G0] = io[IO_SUMS]
        strips1[s, STRIP_H0] = io[IO_SUMS + 1]
        strips2[s, STRIP_G0] = io[IO_SUMS + 2]
        strips2[s, STRIP_H0] = io[IO_SUMS + 3]
        pair_strip(gf, a1 + start if forward else b1 - 1 - start,
                   a2 + start if forward else b2 - 1 - start, step, width, io)
        strips1[s, STRIP_GLO] = io[IO_LO]
        strips1[s, STRIP_GHI] = io[IO_HI]
        strips1[s, STRIP_HHI] = io[IO_HHI]
        strips2[s, STRIP_GLO] = io[IO_LO + 1]
        strips2[s, STRIP_GHI] = io[IO_HI + 1]
        strips2[s, STRIP_HHI] = io[IO_HHI + 1]
    sg1, sh1 = _sum_strips(gf, a1, b1, forward, width, full, n_strips1, strips1,
                           io[IO_SUMS], io[IO_SUMS + 1])
    sg2, sh2 = _sum_strips(gf, a2, b2, forward, width, full, n_strips2, strips2,
                           io[IO_SUMS + 2], io[IO_SUMS + 3])
    return sg1, sh1, sg2, sh2


@njit(cache=True, nogil=True, inline="always")
def _bounded(n, mds):
    """Whether a segment of n entries is searched with strip bounds (``strip_bound`` needs
    max_delta_step 0; short segments gain nothing)."""
    return mds == 0.0 and n >= BOUND_MIN


@njit(cache=True, nogil=True, inline="always")
def _strip_width(n):
    return 32 if n < _BOUND_WIDE else 64


@njit(cache=True, nogil=True, inline="always")
def _strip_offset(a):
    """The first row of ``strips`` for a bounded segment starting ``a`` entries into its
    feature: bounded segments are >= BOUND_MIN long, so their ceil(n / 32) strips and one
    totals row never reach the next one's offset."""
    return a // 32 + 2 * (a // BOUND_MIN)


def _strips_rows(max_entries: int) -> int:
    """Rows of a feature's ``strips`` array for up to ``max_entries`` entries."""
    return max_entries // 32 + 2 * (max_entries // BOUND_MIN) + 3


@njit(cache=True, nogil=True, inline="always")
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
    strips[n_strips, STRIP_G0] = total_g
    strips[n_strips, STRIP_H0] = total_h
    top_s = 0
    for s in range(n_strips):
        strips[s, STRIP_BOUND] = strip_bound(strips[s, STRIP_GLO], strips[s, STRIP_GHI],
                                          strips[s, STRIP_H0], strips[s, STRIP_HHI], parent_g,
                                          parent_h, parent_sim, reg_lambda, alpha)
        if strips[s, STRIP_BOUND] > strips[top_s, STRIP_BOUND]:
            top_s = s
    start = top_s * width
    first = a + start if forward else b - 1 - start
    m = min(width, n - start)
    _strip_sums(vf, gf, first, step, m, top_s == 0, strips[top_s, STRIP_G0],
                strips[top_s, STRIP_H0], scratch)
    return _strip_losses(m, parent_g, parent_h, parent_sim, reg_lambda, alpha, mcw, mds,
                         scratch)[0]


@njit(cache=True, nogil=True, error_model="numpy")
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


@njit(cache=True, nogil=True, inline="always")
def _skip_strip(strips, s, floor, parent_h, mcw):
    """Whether the search may skip bounded strip s: its bound is below a loss the node
    reaches, and min_child_weight refuses none of its positions (``blocked`` must see them)."""
    return (strips[s, STRIP_BOUND] < floor and strips[s, STRIP_H0] >= mcw
            and parent_h - strips[s, STRIP_HHI] >= mcw)


@njit(cache=True, nogil=True, error_model="numpy")
def _scan_segment(vf, gf, a, b, forward, parent_g, parent_h, parent_sim, reg_lambda, alpha,
                  mcw, mds, floor, strips, scratch, best):
    """Search one node's entries ``[a, b)`` of one feature in one direction (``vf[k]``:
    entry k's value and row, ``gf[k]`` its g and h; see ``new_segments``).

    ``best`` (``records.SPLIT_*``: loss, threshold, default_left, blocked) is updated in
    place: the loss only when strictly larger (the first of equal gains in scan order
    wins), ``blocked`` with the best loss change min_child_weight refused. The segment is
    processed in strips: sums (sequential), losses (vectorised), the strip's first maximum.

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
    best_loss = best[SPLIT_LOSS]
    blocked = best[SPLIT_BLOCKED]
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
            _strip_sums(vf, gf, first, step, m, s == 0, strips[s, STRIP_G0], strips[s, STRIP_H0],
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
            best_v = vf[k, WORD_VALUE]
            best_prev = vf[k - step, WORD_VALUE]  # a candidate is never the scan's first entry
            found = True
        blocked = max(blocked, refused)
    if bounded:
        sg = strips[n_strips, STRIP_G0]
        sh = strips[n_strips, STRIP_H0]
    best[SPLIT_BLOCKED] = blocked
    if found:
        best[SPLIT_LOSS] = best_loss
        best[SPLIT_THRESHOLD] = rules.split_threshold(best_v, best_prev)
        best[SPLIT_DEFAULT_LEFT] = 0.0 if forward else 1.0
    if n > 0:
        last = vf[b - 1, WORD_VALUE] if forward else vf[a, WORD_VALUE]  # the scan's last value
        _one_sided(last, sg, sh, forward, parent_g, parent_h, parent_sim, reg_lambda, alpha,
                   mcw, mds, best)


@njit(cache=True, nogil=True, inline="always")
def _one_sided(last, sg, sh, forward, parent_g, parent_h, parent_sim, reg_lambda, alpha, mcw,
               mds, best):
    """The scan's last candidate: every present value on one side (sums ``sg, sh``), the
    missing rows on the other, with a threshold just past ``last`` (docs/xgboost-rules.md
    §3)."""
    rest_h = parent_h - sh
    if not (sh >= mcw and rest_h >= mcw):
        return
    loss = rules.split_loss_change(sg, sh, parent_g - sg, rest_h, parent_sim, reg_lambda, alpha,
                             mcw, mds)
    if loss > best[SPLIT_LOSS] and not math.isinf(loss):
        gap = abs(last) + RT_EPS
        best[SPLIT_LOSS] = loss
        best[SPLIT_THRESHOLD] = last + gap if forward else last - gap
        best[SPLIT_DEFAULT_LEFT] = 0.0 if forward else 1.0


def _new_scratch():
    """Work arrays of ``_scan_segment`` and ``_bound_finish`` (one strip's worth)."""
    return (np.empty(CHUNK, np.float64), np.empty(CHUNK, np.float64),
            np.empty(CHUNK, np.bool_), np.empty(CHUNK, np.float32),
            np.empty(CHUNK, np.float32), np.empty(CHUNK + 1, np.float32))


_new_scratch_jit = njit(cache=True)(_new_scratch)


@njit(cache=True, nogil=True)
def _level_setup(d, start, end, nodes, rp, n_features, cs):
    """The similarity of each node ``start..end-1`` of level d, and the features each may
    search (all, or ``sampling.level_features``'s draw)."""
    lam, alpha, mcw, mds = rp
    parent_sim = np.empty(end - start, dtype=np.float32)
    for li in range(end - start):
        parent_sim[li] = rules.similarity(nodes.sum_grad[start + li], nodes.sum_hess[start + li],
                                    lam, alpha, mcw, mds)
    allowed = np.ones((end - start, n_features), dtype=np.bool_)
    if cs.active:
        level_features(cs.key, d, np.arange(start, end), cs.bytree, cs.bylevel, cs.bynode,
                       allowed)
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


@njit(cache=True, nogil=True, inline="always")
def _task_features(tasks, t):
    """Task t's features f1, f2 and whether it has two; a one-feature task gives f2 = f1,
    whose second segment is then always empty."""
    f1 = tasks[t, 0]
    two = tasks[t, 1] >= 0
    return f1, (tasks[t, 1] if two else f1), two


@njit(cache=True, nogil=True, inline="always")
def _allowed_range(a, b, allowed):
    """The segment [a, b), or an empty one where its feature is not searched."""
    return a, (b if allowed else a)


@njit(cache=True, nogil=True, inline="always")
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
            s0 = side[_U(vi_in[_U(k), WORD_ROW])]
            s1 = side[_U(vi_in[_U(k + 1), WORD_ROW])]
            s2 = side[_U(vi_in[_U(k + 2), WORD_ROW])]
            s3 = side[_U(vi_in[_U(k + 3), WORD_ROW])]
            side_buf[_U(k)] = s0
            side_buf[_U(k + 1)] = s1
            side_buf[_U(k + 2)] = s2
            side_buf[_U(k + 3)] = s3
            k += 4
        for j in range(k, b):
            side_buf[_U(j)] = side[_U(vi_in[_U(j), WORD_ROW])]
        k = a
    for j in range(k, b):
        sd = np.int64(side_buf[_U(j)] if not vector else side[_U(vi_in[_U(j), WORD_ROW])])
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


# ------------------------------------------------------------------ the grower, level by level
class Columns(NamedTuple):
    """``SortedColumns``' arrays, as the kernels take them."""

    col_ptr: np.ndarray  # (n_features + 1,) int64: feature f's entries are col_ptr[f]:col_ptr[f+1]
    rows: np.ndarray  # int32 row of each entry, by ascending value (ties by row)
    root_rv: np.ndarray  # int64 (value, row) words of the entries (records.WORD_*)
    root_vf: np.ndarray  # their (n, 2) float32 view
    root_vi: np.ndarray  # their (n, 2) int32 view
    need_forward: np.ndarray  # bool per feature: the forward scan runs


class Segments(NamedTuple):
    """``grow_exact``'s workspace (``new_segments``): the entries partitioned in place level by
    level, as (value, row) words ``vr`` (views ``vf``, ``vi``) and (g, h) words ``gh`` (view
    ``gf``); the scalar partition's side buffer; each thread's spill buffers; the strips of
    the bounded searches (``records.STRIP_*``); the features of each parallel task; and
    whether the partition splits eight entries a step (``simd.VECTOR_SPLIT``)."""

    vr: np.ndarray
    vf: np.ndarray
    vi: np.ndarray
    gh: np.ndarray
    gf: np.ndarray
    side_buf: np.ndarray
    spill_vr: np.ndarray
    spill_gh: np.ndarray
    strips: np.ndarray
    tasks: np.ndarray
    vector: bool


class NodeSampling(NamedTuple):
    """The tree's colsample_* draw (``sampling.level_features``); ``active`` False: none."""

    key: np.uint64
    bytree: float
    bylevel: float
    bynode: float
    active: bool


@njit(cache=True, nogil=True, parallel=True, error_model="numpy")
def _root(X, cols, g, h, position, seg, nodes, rp, cs):
    """Level 0: the root's sums over the rows with h >= 0 (the others take no part, as in
    XGBoost), every feature's root segment (the sorted entries with each row's (g, h)) and
    its first passes. Returns (spans, tops, similarities, allowed features, whether rows
    were left out)."""
    lam, alpha, mcw, mds = rp
    n_samples, n_features = X.shape
    root_g = np.float64(0.0)
    root_h = np.float64(0.0)
    any_negative = n_samples < 0  # False, typed as a plain bool (see grow_exact)
    for r in range(n_samples):  # row order, like XGBoost's sums
        if h[r] < 0:
            position[r] = -1
            any_negative = True
        else:
            position[r] = 0
            root_g += g[r]
            root_h += h[r]
    rules.new_node(nodes, 0, -1, 0, root_g, root_h, lam, alpha, mcw, mds)
    gh_row = np.empty(n_samples, dtype=np.int64)  # each row's (g, h) word: one load a gather
    gh_row_f = gh_row.view(np.float32).reshape(n_samples, 2)
    for r in prange(n_samples):
        gh_row_f[r, WORD_G] = g[r]
        gh_row_f[r, WORD_H] = h[r]
    zero = np.int64(0)
    parent_sim, allowed = _level_setup(zero, zero, zero + 1, nodes, rp, n_features, cs)
    span = np.empty((n_features, 1, 2), dtype=np.int64)
    tops = np.full((n_features, 1, 2), _NEG_INF32, dtype=np.float32)
    vf_in = seg.vf if any_negative else cols.root_vf
    for t in prange(len(seg.tasks)):
        for j in range(2):
            f = seg.tasks[t, j]
            if f >= 0:
                span[f, 0, 0] = cols.col_ptr[f]
                span[f, 0, 1] = _fill_root(cols, seg, position, gh_row, f, any_negative)
        f1, f2, two = _task_features(seg.tasks, t)
        a1, b1 = _allowed_range(span[f1, 0, 0], span[f1, 0, 1], allowed[0, f1])
        a2, b2 = _allowed_range(span[f2, 0, 0], span[f2, 0, 1], allowed[0, f2] and two)
        _first_passes(vf_in, seg.gf, a1, b1, a2, b2, cols.need_forward[f1],
                      cols.need_forward[f2], root_g, root_h, parent_sim[0], lam, alpha, mcw, mds,
                      seg.strips[f1, :, _strip_offset(a1 - cols.col_ptr[f1]):],
                      seg.strips[f2, :, _strip_offset(a2 - cols.col_ptr[f2]):], tops[f1, 0],
                      tops[f2, 0], _new_scratch_jit())
    return span, tops, parent_sim, allowed, any_negative


@njit(cache=True, nogil=True)
def _fill_root(cols, seg, position, gh_row, f, any_negative):
    """Feature f's root segment: its entries' (g, h) words (and, when rows are left out,
    their (value, row) words, the left-out rows dropped). Returns the segment's end."""
    out = cols.col_ptr[f]
    if any_negative:
        for k in range(cols.col_ptr[f], cols.col_ptr[f + 1]):
            r = cols.rows[k]
            if position[r] == 0:
                seg.vr[out] = cols.root_rv[k]
                seg.gh[out] = gh_row[r]
                out += 1
        return out
    for k in range(cols.col_ptr[f], cols.col_ptr[f + 1]):
        seg.gh[_U(k)] = gh_row[_U(cols.rows[_U(k)])]
    return cols.col_ptr[f + 1]


@njit(cache=True, nogil=True, parallel=True, error_model="numpy")
def _best_splits(vf_in, cols, seg, nodes, rp, level_start, span, tops, parent_sim, allowed):
    """Each feature's best split for each node of the level: ``best[f, li]``
    (``records.SPLIT_*``, the first SPLIT_EXACT fields). The best of the first passes over
    every feature is a loss the node reaches: the searches skip strips bounded below it."""
    lam, alpha, mcw, mds = rp
    n_features, n_level = span.shape[0], span.shape[1]
    best = np.zeros((n_features, n_level, SPLIT_EXACT), dtype=np.float32)
    best[:, :, SPLIT_BLOCKED] = _NEG_INF32
    floor = np.full(n_level, _NEG_INF32, dtype=np.float32)
    for li in range(n_level):
        for f in range(n_features):
            floor[li] = max(floor[li], max(tops[f, li, 0], tops[f, li, 1]))
    for f in prange(n_features):
        scratch = _new_scratch_jit()
        for li in range(n_level):
            a, b = span[f, li, 0], span[f, li, 1]
            if b <= a or not allowed[li, f]:
                continue
            nid = level_start + li
            off = _strip_offset(a - cols.col_ptr[f])
            for di in range(2):
                if di == 0 and not cols.need_forward[f]:
                    continue
                slot = di + seg.strips.shape[1] - 2  # no forward slot when unused
                _scan_segment(vf_in, seg.gf, a, b, di == 0, nodes.sum_grad[nid],
                              nodes.sum_hess[nid], parent_sim[li], lam, alpha, mcw, mds, floor[li],
                              seg.strips[f, slot, off:], scratch, best[f, li])
    return best


@njit(cache=True, nogil=True, error_model="numpy")
def _apply_level(best, nodes, rp, level_start, level_end, n_nodes, d):
    """Record each node of the level (``node_rules``): it splits on the best feature when
    the gain exceeds 1e-6, its children get the next ids; otherwise it is a leaf and says
    why. γ plays no part here: exact prunes after growing. Returns the new node count."""
    lam, alpha, mcw, mds = rp
    for li in range(level_end - level_start):
        nid = level_start + li
        f_best, loss, blocked = rules.best_feature(best, li)
        nodes.loss_chg[nid] = loss
        if not rules.splits(loss):
            nodes.reason[nid] = rules.leaf_reason(blocked)
            continue
        rules.set_split(nodes, nid, f_best, best[f_best, li, SPLIT_THRESHOLD],
                  best[f_best, li, SPLIT_DEFAULT_LEFT] != 0.0, loss, n_nodes)
        for c in range(n_nodes, n_nodes + 2):  # sums and weights follow the routing
            rules.new_node(nodes, c, nid, d + 1, 0.0, 0.0, lam, alpha, mcw, mds)
        n_nodes += 2
    return n_nodes


@njit(cache=True, nogil=True, parallel=True, error_model="numpy")
def _route(X, g, h, position, side, nodes, rp, level_start, level_end, n_nodes):
    """Move each row of a node that split to its child (``node_rules.goes_right``, no branch:
    the side is unpredictable) and note its side; then the children's G and H, added in row
    order like XGBoost's, and their weights."""
    lam, alpha, mcw, mds = rp
    # The node arrays as locals: numba's parallel loops drop writes made through a tuple's
    # field (kernels called from them do not), so no loop here writes ``nodes.*`` directly.
    left, feature, threshold, default_left = (nodes.left, nodes.feature, nodes.threshold,
                                              nodes.default_left)
    sum_grad, sum_hess, weight = nodes.sum_grad, nodes.sum_hess, nodes.weight
    for r in prange(X.shape[0]):
        nid = position[r]
        if nid < level_start:
            continue
        nu = _U(nid)
        if left[nu] == -1:
            continue  # a leaf: the row stays there
        go_right = rules.goes_right(X[r, _U(feature[nu])], threshold[nu], default_left[nu])
        side[r] = go_right
        position[r] = left[nu] + np.int32(go_right)
    for r in range(X.shape[0]):
        nid = position[r]
        if nid >= level_end:
            sum_grad[_U(nid)] += g[r]
            sum_hess[_U(nid)] += h[r]
    for nid in range(level_end, n_nodes):
        weight[nid] = rules.leaf_weight(sum_grad[nid], sum_hess[nid], lam, alpha, mcw, mds)


@njit(cache=True, nogil=True, parallel=True, error_model="numpy")
def _partition_level(cols, seg, vr_in, vi_in, side, nodes, rp, cs, level_start, level_end,
                     n_nodes, span, d):
    """Partition every feature's segments into the children's, in place (``_partition``),
    then the children's first passes, while their entries are in the cache. Parallel
    blocks of tasks, one per thread (``_feature_tasks``), so a thread's spill buffer stays
    its own. Returns the next level's (spans, tops, similarities, allowed features)."""
    n_features = span.shape[0]
    new_span = np.empty((n_features, n_nodes - level_end, 2), dtype=np.int64)
    parent_sim, allowed = _level_setup(d + 1, level_end, n_nodes, nodes, rp, n_features, cs)
    tops = np.full((n_features, n_nodes - level_end, 2), _NEG_INF32, dtype=np.float32)
    n_blocks = len(seg.spill_vr)
    for blk in prange(n_blocks):
        scratch = _new_scratch_jit()
        for task in range(blk * len(seg.tasks) // n_blocks,
                          (blk + 1) * len(seg.tasks) // n_blocks):
            for li in range(span.shape[1]):
                nid = level_start + li
                if nodes.left[nid] != -1:
                    _split_node(cols, seg, vr_in, vi_in, side, nodes, rp, task, np.int64(blk), li,
                                nodes.left[nid] - level_end, level_end, span, new_span,
                                parent_sim, allowed, tops, scratch)
    return new_span, tops, parent_sim, allowed


@njit(cache=True, nogil=True)
def _split_node(cols, seg, vr_in, vi_in, side, nodes, rp, task, blk, li, cl, level_end, span,
                new_span, parent_sim, allowed, tops, scratch):
    """A task's two features, node ``li`` of the level: partition each segment into the
    children ``cl`` and ``cl + 1`` (of the next level), then both children's first passes."""
    lam, alpha, mcw, mds = rp
    f1, f2, two = _task_features(seg.tasks, task)
    a1, b1 = span[f1, li, 0], span[f1, li, 1]
    split1 = _partition(vi_in, vr_in, seg.vr, seg.gh, side, seg.side_buf, seg.vector, a1, b1,
                        seg.spill_vr[blk], seg.spill_gh[blk])
    a2 = span[f2, li, 0]
    b2 = span[f2, li, 1] if two else a2  # one-feature task: an empty segment
    split2 = a2
    if two:
        split2 = _partition(vi_in, vr_in, seg.vr, seg.gh, side, seg.side_buf, seg.vector, a2,
                            b2, seg.spill_vr[blk], seg.spill_gh[blk])
    _child_spans(new_span, f1, cl, a1, split1, b1)
    if two:
        _child_spans(new_span, f2, cl, a2, split2, b2)
    for c in range(2):
        ci = cl + c
        c_a1, c_b1 = _allowed_range(a1 if c == 0 else split1, split1 if c == 0 else b1,
                                    allowed[ci, f1])
        c_a2, c_b2 = _allowed_range(a2 if c == 0 else split2, split2 if c == 0 else b2,
                                    allowed[ci, f2])
        _first_passes(seg.vf, seg.gf, c_a1, c_b1, c_a2, c_b2, cols.need_forward[f1],
                      cols.need_forward[f2], nodes.sum_grad[level_end + ci],
                      nodes.sum_hess[level_end + ci], parent_sim[ci], lam, alpha, mcw, mds,
                      seg.strips[f1, :, _strip_offset(c_a1 - cols.col_ptr[f1]):],
                      seg.strips[f2, :, _strip_offset(c_a2 - cols.col_ptr[f2]):],
                      tops[f1, ci], tops[f2, ci], scratch)


@njit(cache=True, nogil=True, inline="always")
def _child_spans(new_span, f, cl, a, split, b):
    new_span[f, cl, 0] = a
    new_span[f, cl, 1] = split
    new_span[f, cl + 1, 0] = split
    new_span[f, cl + 1, 1] = b


@njit(cache=True, nogil=True, error_model="numpy")
def grow_exact(X, cols, g, h, position, seg, nodes, rp, cs, max_depth):
    """Grow one tree into ``nodes`` (capacity >= the nodes grown) and return the count.

    Level by level: the root (``_root``), then per level each feature's best split of each
    node (``_best_splits``), the decisions (``_apply_level``), the rows routed to the
    children and summed (``_route``), and the segments partitioned for the next level
    (``_partition_level``). ``position`` (n_samples, int32) ends as the leaf of the grown tree
    each row reaches (-1 for a row whose hessian is negative). ``rp`` is
    ``node_rules.NodeParams``; ``cs`` the tree's ``NodeSampling``.
    """
    span, tops, parent_sim, allowed, any_negative = _root(X, cols, g, h, position, seg, nodes,
                                                          rp, cs)
    # The root's (value, row) words are the sorted columns' own unless rows were left out.
    vr_in = seg.vr if any_negative else cols.root_rv
    vf_in = seg.vf if any_negative else cols.root_vf
    vi_in = seg.vi if any_negative else cols.root_vi
    side = np.zeros(X.shape[0], dtype=np.uint8)  # each row's child: 0 left, 1 right
    # np.int64, not the literals 1, 0, 1: numba types a call on each type a variable passes
    # through while it infers types, so literals would compile every callee twice.
    n_nodes, level_start, level_end = np.int64(1), np.int64(0), np.int64(1)
    for d in range(max_depth):
        best = _best_splits(vf_in, cols, seg, nodes, rp, level_start, span, tops, parent_sim,
                            allowed)
        grown = _apply_level(best, nodes, rp, level_start, level_end, n_nodes, d)
        if grown == n_nodes:
            break
        n_nodes = grown
        _route(X, g, h, position, side, nodes, rp, level_start, level_end, n_nodes)
        if d == max_depth - 1:
            break
        span, tops, parent_sim, allowed = _partition_level(
            cols, seg, vr_in, vi_in, side, nodes, rp, cs, level_start, level_end, n_nodes,
            span, d)
        vr_in, vf_in, vi_in = seg.vr, seg.vf, seg.vi
        level_start, level_end = level_end, n_nodes
    return n_nodes


def new_segments(columns: SortedColumns) -> Segments:
    """``grow_exact``'s workspace for ``columns`` (see ``Segments``).

    An entry is two int64 words in two arrays: (value float32, row int32), packed as in
    ``SortedColumns.root_rv``, and (g float32, h float32). Apart, a pass that needs only one
    half (the partition's side lookup: rows; a first pass: g and h) reads half the bytes,
    and the root's (value, row) words need no copy. The views of their fields are made here,
    not in numba (numba's own view + reshape of an array chosen at run time once gave wrong
    strides). The strips: per feature and scan direction (forward only when some column has
    missing values), rows ``_strip_offset`` on. The tasks: for the threads numba runs now.
    """
    nnz = len(columns.rows)
    longest = int(np.diff(columns.col_ptr).max(initial=0))
    n_directions = 2 if columns.need_forward.any() else 1  # [forward,] backward
    n_features = len(columns.col_ptr) - 1
    strips = np.empty((n_features, n_directions, _strips_rows(longest), STRIP_FIELDS),
                      np.float64)
    n_threads = numba.get_num_threads()
    vr, gh = np.empty(nnz, np.int64), np.empty(nnz, np.int64)
    return Segments(vr, *word_fields(vr), gh, gh.view(np.float32).reshape(nnz, 2),
                    np.empty(0 if simd.VECTOR_SPLIT else nnz, np.uint8),
                    np.empty((n_threads, longest), np.int64),
                    np.empty((n_threads, longest), np.int64), strips,
                    _feature_tasks(n_features, n_threads), simd.VECTOR_SPLIT)
