"""The growers' node steps: the root searched, a split made or refused, its children planned.

Both growers (depth-wise, ``grower``; leaf-wise, ``lossguide``) start every tree with
``grow_root``, decide a node with ``_decide`` (``node_rules.refusal`` says why not) and
plan each split's children with ``_plan_children``: the child with the smaller hessian is
built from its rows, its sibling is ``parent - built``, as XGBoost.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import node_rules as rules
from .._dtypes import REASON_GAMMA, REASON_NONE
from ..records import (
    SPLIT_BIN,
    SPLIT_DEFAULT_LEFT,
    SPLIT_FIELDS,
    SPLIT_GL,
    SPLIT_GR,
    SPLIT_HL,
    SPLIT_HR,
    SPLIT_THRESHOLD,
)
from .histogram import _build, _store_gradients, root_sums
from .splitting import _evaluate, _search


@njit(cache=True, nogil=True)
def grow_root(data, bins, rp, root_from_bins, g, h, nodes, hist):
    """What every tree starts from: the gradients ``g, h`` stored in the row records
    (``data``: ``workspace.HistRows``), the root's histogram in ``hist[0]``, its node 0
    (sums as ``histogram.root_sums`` takes them, weight) and each feature's best split of
    it. Returns (node_start, node_end, best): every node's range of row positions (the
    root's: all rows) and ``best`` (n_features, 1, ``records.SPLIT_FIELDS``)."""
    n_samples = g.shape[0]
    n_features = bins.ptrs.shape[0] - 1
    capacity = nodes.left.shape[0]
    node_start = np.zeros(capacity, dtype=np.int64)
    node_end = np.zeros(capacity, dtype=np.int64)
    _store_gradients(g, h, data.gh)
    one = np.zeros(1, dtype=np.int64)
    ends = np.full(1, n_samples, dtype=np.int64)
    if root_from_bins:  # the root's sums come from its histogram: build, then search
        # rows 0..n-1; np.bool_, not a literal False: each literal argument would compile
        # _build and _search once more for it (numba types a literal by its value)
        _build(data.records, data.missing, n_features, bins.stride, data.gh, data.ids,
               np.bool_(False), one, ends, one, hist)
    root_g, root_h = root_sums(hist[0], bins.ptrs, g, h, root_from_bins)
    rules.new_node(nodes, 0, -1, 0, root_g, root_h, rp)
    node_end[0] = n_samples
    best = np.empty((n_features, 1, SPLIT_FIELDS), dtype=np.float64)
    node_g, node_h = np.full(1, root_g), np.full(1, root_h)
    if root_from_bins:
        _evaluate(hist, one, bins, node_g, node_h, ends, rp, best)
    else:  # built and searched in one pass
        none = np.empty(0, dtype=np.int64)
        _search(data, data.ids, np.bool_(False), one, ends, one, hist, none, none, hist, bins,
                node_g, node_h, ends, rp, best)
    return node_start, node_end, best


@njit(cache=True, nogil=True)
def _decide(nodes, nid, f_best, bt, loss, reason, n_nodes, rp):
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
    nodes.weight[nid] = rules.leaf_weight(nodes.sum_grad[nid], nodes.sum_hess[nid], rp)
    d = nodes.depth[nid]
    rules.new_node(nodes, n_nodes, nid, d + 1, g_l, h_l, rp)
    rules.new_node(nodes, n_nodes + 1, nid, d + 1, g_r, h_r, rp)


@njit(cache=True, nogil=True)
def _apply_level(best, level, depth, n_nodes, n_leaves, gp, nodes, expand):
    """Decide every node of the level (``depth``, below max_depth), in id order, from its
    best split (``node_rules.refusal``) and create the children of the expanded ones. Fills
    ``expand`` rows (node, level slot, feature, split bin); returns (number expanded, new
    node count, leaf count)."""
    m = 0
    for t in range(level.shape[0]):
        nid = level[t]
        f_best, loss, blocked = rules.best_feature(best, t)
        bt = best[max(f_best, 0), t]
        reason = rules.refusal(bt, loss, blocked, depth, n_leaves, gp)
        _decide(nodes, nid, f_best, bt, loss, reason, n_nodes, gp.node)
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
    Returns (children ids, their G, their H, their row counts, build start, build end,
    build slot, subtract slot, parent slot)."""
    m = expand.shape[0]
    children = np.empty(2 * m, dtype=np.int64)
    cg = np.empty(2 * m, dtype=np.float64)
    ch = np.empty(2 * m, dtype=np.float64)
    c_rows = np.empty(2 * m, dtype=np.int64)
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
        c_rows[2 * j] = node_end[lc] - node_start[lc]
        c_rows[2 * j + 1] = node_end[rc] - node_start[rc]
        built = rc if rules.builds_right(sum_hess[lc], sum_hess[rc]) else lc
        b_start[j] = node_start[built]
        b_end[j] = node_end[built]
        b_slot[j] = 2 * j + 1 if built == rc else 2 * j
        s_slot[j] = 2 * j if built == rc else 2 * j + 1
        p_slot[j] = expand[j, 1]
    return children, cg, ch, c_rows, b_start, b_end, b_slot, s_slot, p_slot
