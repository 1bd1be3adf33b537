"""Grow one exact tree (XGBoost's ``grow_colmaker``), level by level, in one compiled call.

The root (``_root``: its sums and every feature's root segment), then per level each
feature's best split of each node (``_best_splits``), the decisions (``_apply_level``), the
rows routed to the children and summed (``partition._route``), and the segments partitioned
for the next level (``_partition_level``). A segment's first pass (``splitting``) runs as
soon as its entries are written (the root's by the fill, a child's by the partition), while
they are still in the cache (3-5 ms a tree less at 100k x 20 than a pass of its own over a
level). γ plays no part while growing: exact prunes afterwards
(``node_rules.prune``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .. import node_rules as rules
from ..records import (
    SPLIT_BLOCKED,
    SPLIT_DEFAULT_LEFT,
    SPLIT_EXACT,
    SPLIT_THRESHOLD,
    WORD_G,
    WORD_H,
)
from ..sampling import level_features
from .partition import _partition, _route
from .segments import _allowed_range, _task_features
from .splitting import (
    _NEG_INF32,
    _U,
    _first_passes,
    _new_scratch_jit,
    _scan_segment,
    _strip_offset,
)


@njit(cache=True, nogil=True)
def _level_setup(d, start, end, nodes, rp, n_features, cs):
    """The similarity of each node ``start..end-1`` of level d, and the features each may
    search (all, or ``sampling.level_features``'s draw)."""
    parent_sim = np.empty(end - start, dtype=np.float32)
    for li in range(end - start):
        parent_sim[li] = rules.similarity(nodes.sum_grad[start + li], nodes.sum_hess[start + li],
                                          rp)
    allowed = np.ones((end - start, n_features), dtype=np.bool_)
    if cs.active:
        level_features(cs.key, d, np.arange(start, end), cs.bytree, cs.bylevel, cs.bynode,
                       allowed)
    return parent_sim, allowed


@njit(cache=True, nogil=True, parallel=True, error_model="numpy")
def _root(X, cols, g, h, position, seg, nodes, rp, cs):
    """Level 0: the root's sums over the rows with h >= 0 (the others take no part, as in
    XGBoost), every feature's root segment (the sorted entries with each row's (g, h)) and
    its first passes. Returns (spans, tops, similarities, allowed features, whether rows
    were left out)."""
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
    rules.new_node(nodes, 0, -1, 0, root_g, root_h, rp)
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
                      cols.need_forward[f2], root_g, root_h, parent_sim[0], rp,
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
                              nodes.sum_hess[nid], parent_sim[li], rp, floor[li],
                              seg.strips[f, slot, off:], scratch, best[f, li])
    return best


@njit(cache=True, nogil=True, error_model="numpy")
def _apply_level(best, nodes, rp, level_start, level_end, n_nodes, d):
    """Record each node of the level (``node_rules``): it splits on the best feature when
    the gain exceeds 1e-6, its children get the next ids; otherwise it is a leaf and says
    why. γ plays no part here: exact prunes after growing. Returns the new node count."""
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
            rules.new_node(nodes, c, nid, d + 1, 0.0, 0.0, rp)
        n_nodes += 2
    return n_nodes


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
                      nodes.sum_hess[level_end + ci], parent_sim[ci], rp,
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
def grow_exact(X, cols, g, h, position, seg, nodes, gp, cs):
    """Grow one tree into ``nodes`` (capacity >= the nodes grown) and return the count.

    Level by level to ``gp.max_depth`` (``GrowParams``; exact takes no other field but
    ``gp.node``): the root (``_root``), then per level each feature's best split of each
    node (``_best_splits``), the decisions (``_apply_level``), the rows routed to the
    children and summed (``partition._route``), and the segments partitioned for the next
    level (``_partition_level``). ``cols``: ``SortedColumns.arrays()``; ``seg``:
    ``segments.new_segments``; ``position`` (n_samples, int32) ends as the leaf of the grown
    tree each row reaches (-1 for a row whose hessian is negative); ``cs``: the tree's
    ``sampling.NodeSampling``.
    """
    rp = gp.node
    max_depth = gp.max_depth
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


