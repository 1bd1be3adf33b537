"""Grow one hist tree leaf-wise (``grow_policy="lossguide"``): the best waiting leaf first.

XGBoost's ``Driver`` with its ``LossGuide`` order: the searched leaves wait in a priority
queue ordered by their best gain (largest first; on equal gains the smaller node id, i.e.
the older node); each step splits the top leaf, numbers its children with the next two ids,
partitions its rows and searches both children (the smaller-hessian one built from its
rows, the other ``parent - built``), with the kernels and arithmetic of the depth-wise
grower. Growth ends when the queue is empty or its top is refused
(``node_rules.refusal``: no gain, an empty child, below γ, max_leaves reached) — XGBoost
pops one entry and stops there.
"""

from __future__ import annotations

import heapq

import numpy as np

from .. import node_rules as rules
from .._dtypes import REASON_MAX_LEAVES, REASON_NO_GAIN, REASON_NONE
from ..records import SPLIT_BIN, SPLIT_FIELDS, TreeNodes
from .nodes import _decide, _plan_children, grow_root
from .partition import _add_leaf_values, _iota, _partition
from .splitting import _search, drop_unsampled
from .workspace import HistWorkspace


def _queue_children(best, children, depth, nodes, queue, found, cs):
    """Take the searched nodes' best splits: a node whose best gains more than 1e-6 waits in
    the queue (XGBoost's ``Driver::Push``), any other is a leaf now."""
    drop_unsampled(best, cs, depth, children)
    for t, nid in enumerate(children):
        f_best, loss, blocked = rules.best_feature(best, t)
        bt = best[max(f_best, 0), t].copy()
        if nid == 0 or rules.splits(loss):  # the root is pushed whatever its gain
            found[int(nid)] = (f_best, loss, blocked, bt)
            heapq.heappush(queue, (-float(loss), int(nid)))
        else:
            nodes.reason[nid] = rules.leaf_reason(blocked)


def grow_lossguide(data, bins, gp, cs, width: int, root_from_bins: bool, g, h,
                   ws: HistWorkspace, nodes: TreeNodes, margin, group: int) -> int:
    """Grow one tree leaf-wise (see the module). The children of a split are not searched
    when they sit at max_depth (> 0) or the tree has max_leaves leaves. ``grower.grow_hist``
    calls it with the training's records (``ws.fixed``), the tree's column draw and a node
    histogram's width; the result as ``grow_hist``'s."""
    rp = gp.node
    n_features = len(bins.ptrs) - 1
    root_hist = ws.histograms(0, 1, width)
    node_start, node_end, best = grow_root(data, bins, rp, root_from_bins, g, h, nodes,
                                           root_hist)
    rows, spare = data.ids, data.spare
    _iota(rows)
    hists = {0: root_hist[0:1]}  # the histogram of every node that may still split
    queue, found = [], {}  # heap of (-gain, node id); node id -> its best split
    _queue_children(best, np.zeros(1, dtype=np.int64), 0, nodes, queue, found, cs)
    n_nodes, n_leaves = 1, 1
    while queue:
        nid = heapq.heappop(queue)[1]
        f_best, loss, blocked, bt = found.pop(nid)
        d = int(nodes.depth[nid])
        reason = rules.refusal(bt, loss, blocked, d, n_leaves, gp)
        _decide(nodes, nid, f_best, bt, loss, reason, n_nodes, rp)
        if reason != REASON_NONE:
            break
        n_nodes += 2
        n_leaves += 1
        expand = np.array([[nid, 0, f_best, int(bt[SPLIT_BIN])]], dtype=np.int64)
        _partition(data.columns, rows, spare, data.side, expand, nodes.left, nodes.right,
                   nodes.default_left, data.missing, node_start, node_end, data.n_threads)
        a, b = node_start[nid], node_end[nid]
        rows[a:b] = spare[a:b]
        parent_hist = hists.pop(nid)
        if gp.max_depth > 0 and d + 1 >= gp.max_depth:
            continue  # the children are leaves at max_depth: never searched
        if gp.max_leaves > 0 and n_leaves >= gp.max_leaves:
            nodes.reason[n_nodes - 2:n_nodes] = REASON_MAX_LEAVES
            continue
        children, cg, ch, c_rows, b_start, b_end, b_slot, s_slot, p_slot = _plan_children(
            expand, nodes.left, nodes.right, nodes.sum_grad, nodes.sum_hess, node_start,
            node_end)
        pair = np.empty((2, width), dtype=np.complex128)
        best = np.empty((n_features, 2, SPLIT_FIELDS), dtype=np.float64)
        _search(data, rows, True, b_start, b_end, b_slot, parent_hist, p_slot, s_slot, pair, bins,
                cg, ch, c_rows, rp, best)
        hists[int(children[0])], hists[int(children[1])] = pair[0:1], pair[1:2]
        _queue_children(best, children, d + 1, nodes, queue, found, cs)
    for nid, (f_best, loss, blocked, bt) in found.items():  # left waiting when growth ended
        reason = rules.refusal(bt, loss, blocked, int(nodes.depth[nid]), n_leaves, gp)
        _decide(nodes, nid, f_best, bt, loss, REASON_NO_GAIN if reason == REASON_NONE else reason,
                n_nodes, rp)
    _add_leaf_values(rows, np.arange(n_nodes, dtype=np.int64), nodes.left, node_start,
                     node_end, nodes.weight, gp.eta, margin, group)
    return n_nodes
