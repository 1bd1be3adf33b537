"""exact's partitions: rows routed to the split nodes' children, segments split in place.

Each feature's segments are partitioned stably, in place, into the children's.

``_route`` moves each row of a split node to its child (branch-free: the side is
unpredictable) and sums the children's G and H in row order, as XGBoost. ``_partition``
splits one segment by its rows' sides, keeping each side in sorted order, so a child's
entries stay in the order XGBoost's column scan reads them. It prefetches its input; with
AVX-512 it splits eight entries a step (``simd.compress``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .. import node_rules as rules
from ..records import WORD_ROW
from ..simd import LANES, prefetch, split8
from .splitting import _U

_AHEAD = 1024  # entries (8 KiB of each array) the partition prefetches ahead


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



@njit(cache=True, nogil=True, parallel=True, error_model="numpy")
def _route(X, g, h, position, side, nodes, rp, level_start, level_end, n_nodes):
    """Move each row of a node that split to its child (``node_rules.goes_right``, no branch:
    the side is unpredictable) and note its side; then the children's G and H, added in row
    order like XGBoost's, and their weights."""
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
        weight[nid] = rules.leaf_weight(sum_grad[nid], sum_hess[nid], rp)

