"""exact's split search: one node's sorted entries of one feature scanned for its best split.

Each scan runs in passes over strips of the segment: prefix sums (the only sequential pass),
then which entries start a candidate and the loss change at each (independent, so the
compiler vectorises them), then the first maximum. Long segments are searched in two rounds
(``_first_passes``, then ``_scan_segment``): first only their sums, which bound every loss
in a strip, and the strip most likely to win; then only the strips whose bound reaches the
best loss any feature found for the node. The bounds are exact, not estimates, so the trees
are the same as a search of every entry gives; most strips of most features are skipped. Two
features' first passes run side by side (``_sum_strips_pair``): their four chains of
additions are the lanes of one vector (``simd.pair_sums``).

Scan order and tie-breaking follow docs/xgboost-rules.md §3, §6 and §8::

    sorted entries of feature f in node n:  v0 <= v1 <= ... <= vk   (missing rows not listed)
    forward  (only if the column has missing values and is not constant):
        left = scanned rows, right = the rest incl. missing      -> default_left = False
    backward (always):
        right = scanned rows, left = the rest incl. missing      -> default_left = True
    candidate at every change of value: threshold = f32((a + b) * 0.5)
    after the scan: everything present on one side, missing on the other
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import node_rules as rules
from .._dtypes import RT_EPS
from ..records import (
    SPLIT_BLOCKED,
    SPLIT_DEFAULT_LEFT,
    SPLIT_LOSS,
    SPLIT_THRESHOLD,
    STRIP_BOUND,
    STRIP_G0,
    STRIP_GHI,
    STRIP_GLO,
    STRIP_H0,
    STRIP_HHI,
    WORD_G,
    WORD_H,
    WORD_VALUE,
)
from ..simd import IO_HHI, IO_HI, IO_LO, IO_SUMS, pair_strip
from ..split_math import first_index, scan_losses, strip_bound, strip_max

# Index casts for hot loops (every exact kernel's): numba turns a signed index i into
# ``i + len if i < 0`` (a compare and a select per access, which can halve a loop's speed);
# an unsigned one is used as is. Only for indices known to be >= 0.
_U = np.uint64
_NEG_INF32 = np.float32(-np.inf)

CHUNK = 256  # entries per strip of a plain scan: a strip's sums and losses stay in L1
BOUND_MIN = 512  # segments at least this long are searched with strip bounds
_BOUND_WIDE = 8192  # bound strips are 32 entries wide below this length, 64 from it


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
def _strip_losses(m, parent_g, parent_h, parent_sim, rp, scratch):
    """The loss change at each of the strip's entries (``scan_losses``); returns the best
    valid one and the best one min_child_weight refused (both -inf if none)."""
    c_g, c_h, c_candidate, c_loss, c_blocked, _ = scratch
    scan_losses(m, c_g, c_h, c_candidate, parent_g, parent_h, parent_sim, rp, c_loss, c_blocked)
    top = strip_max(m, c_loss)
    refused = strip_max(m, c_blocked) if rp.min_child_weight > 0.0 else _NEG_INF32
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
def _bounded(n, rp):
    """Whether a segment of n entries is searched with strip bounds (``strip_bound`` needs
    max_delta_step 0; short segments gain nothing)."""
    return rp.max_delta_step == 0.0 and n >= BOUND_MIN


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
def _bound_finish(vf, gf, a, b, forward, total_g, total_h, parent_g, parent_h, parent_sim, rp,
                  strips, scratch):
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
                                          parent_h, parent_sim, rp)
        if strips[s, STRIP_BOUND] > strips[top_s, STRIP_BOUND]:
            top_s = s
    start = top_s * width
    first = a + start if forward else b - 1 - start
    m = min(width, n - start)
    _strip_sums(vf, gf, first, step, m, top_s == 0, strips[top_s, STRIP_G0],
                strips[top_s, STRIP_H0], scratch)
    return _strip_losses(m, parent_g, parent_h, parent_sim, rp, scratch)[0]


@njit(cache=True, nogil=True, error_model="numpy")
def _first_passes(vf, gf, a1, b1, a2, b2, need_forward1, need_forward2, parent_g, parent_h,
                  parent_sim, rp, strips1, strips2, tops1, tops2, scratch):
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
        do1 = _bounded(n1, rp) and (need_forward1 or not forward)
        do2 = _bounded(n2, rp) and (need_forward2 or not forward)
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
                                      parent_sim, rp, strips1[slot], scratch)
        if do2:
            tops2[di] = _bound_finish(vf, gf, a2, b2, forward, sg2, sh2, parent_g, parent_h,
                                      parent_sim, rp, strips2[slot], scratch)


@njit(cache=True, nogil=True, inline="always")
def _skip_strip(strips, s, floor, parent_h, mcw):
    """Whether the search may skip bounded strip s: its bound is below a loss the node
    reaches, and min_child_weight refuses none of its positions (``blocked`` must see them)."""
    return (strips[s, STRIP_BOUND] < floor and strips[s, STRIP_H0] >= mcw
            and parent_h - strips[s, STRIP_HHI] >= mcw)


@njit(cache=True, nogil=True, error_model="numpy")
def _scan_segment(vf, gf, a, b, forward, parent_g, parent_h, parent_sim, rp, floor, strips,
                  scratch, best):
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
    bounded = _bounded(n, rp)
    mcw = rp.min_child_weight
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
        top, refused = _strip_losses(m, parent_g, parent_h, parent_sim, rp, scratch)
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
        _one_sided(last, sg, sh, forward, parent_g, parent_h, parent_sim, rp, best)


@njit(cache=True, nogil=True, inline="always")
def _one_sided(last, sg, sh, forward, parent_g, parent_h, parent_sim, rp, best):
    """The scan's last candidate: every present value on one side (sums ``sg, sh``), the
    missing rows on the other, with a threshold just past ``last`` (docs/xgboost-rules.md
    §3)."""
    rest_h = parent_h - sh
    mcw = rp.min_child_weight
    if not (sh >= mcw and rest_h >= mcw):
        return
    loss = rules.split_loss_change(sg, sh, parent_g - sg, rest_h, parent_sim, rp)
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
