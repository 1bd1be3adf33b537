"""The rows of split nodes partitioned to their children, and leaf values added to the margins.

A node's rows are a range of row ids in node order (``rows[node_start[n]:node_end[n]]``);
a split partitions its range stably into its children's (left first, each in ascending row
order), reading each row's side from the split feature's codes. A leaf adds η·w to the
margins of its rows (float32, as XGBoost's prediction cache); at the last level the split
nodes' rows get their children's values without a partition.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .. import node_rules as rules

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
def _iota(out):
    """out[k] = k: the root's rows."""
    for k in prange(out.shape[0]):
        out[k] = k
