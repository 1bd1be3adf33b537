"""Grow one hist tree: depth-wise here (one compiled call a tree), leaf-wise in ``lossguide``.

Depth-wise, per level (``_grow_depthwise``):

1. every node whose best split is valid is expanded, in id order — valid means loss_chg >
   1e-6, both children have H != 0, loss_chg >= gamma (**pre-pruning**: a refused node stays
   a leaf with Reason "gamma", its best split kept for the trace), depth < max_depth (0: no
   limit) and fewer than max_leaves leaves so far (``node_rules.refusal``); with column
   sampling, each node first forgets the features it did not draw;
2. the rows of the expanded nodes are partitioned stably (rows stay in ascending order);
3. if the children may still split, the child with the smaller H gets its histogram built
   from its rows and its sibling's is ``parent - built`` (histogram subtraction), and every
   child's splits are evaluated — one parallel pass over feature blocks
   (``splitting._search``);
4. at the last level (max_depth, or max_leaves reached) the children are leaves: each row
   only gets its leaf's value.

Every case — column sampling, no depth limit, levels wider than the histogram pools
allocated up front — is this one compiled loop, with no Python between the kernels.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._dtypes import REASON_MAX_LEAVES
from ..records import SPLIT_FIELDS, TreeNodes
from ..sampling import ColumnSampler, tree_sampling
from ..sketch import Cuts
from .lossguide import grow_lossguide
from .nodes import _apply_level, _plan_children, grow_root
from .partition import _add_leaf_values, _add_split_leaf_values, _iota, _partition
from .splitting import _search, drop_unsampled
from .workspace import HistWorkspace

_POOL_BYTES = 64 << 20  # the most two level histogram pools take before a tree needs them


def _level_slots(p, n_samples: int, width: int) -> int:
    """The histograms each of the two level pools holds before the tree: the children of
    the last level searched (depth max_depth - 1; at most one per row, a valid split leaves
    rows on both sides), within ``_POOL_BYTES``. A wider level grows its pool
    (``_grow_depthwise``), and the workspace keeps it for the next trees."""
    slots = min(2 ** max(p.max_depth - 1, 0), n_samples)
    return max(1, min(slots, _POOL_BYTES // (2 * 16 * max(width, 1))))


def grow_hist(cuts: Cuts, root_from_bins: bool, g, h, p, ws: HistWorkspace, nodes: TreeNodes,
              margin, group: int, columns: ColumnSampler | None = None, tree_idx: int = 0) -> int:
    """Grow one tree on float32 ``g``/``h`` in the order ``p.grow_policy`` says (depth-wise
    here, ``lossguide.grow_lossguide`` for lossguide); fill ``nodes``, add the tree's leaf
    values to ``margin[:, group]`` and return the node count. ``root_from_bins``: the
    root's sums come from its histogram (``histogram.root_sums``). With an active
    ``columns`` sampler each node searches only its drawn features."""
    data, bins, gp = ws.fixed(cuts, p)
    cs = tree_sampling(columns, tree_idx)
    width = (len(bins.ptrs) - 1) * bins.stride  # a node's histogram: every feature's bins
    if p.grow_policy == "lossguide":
        return grow_lossguide(data, bins, gp, cs, width, root_from_bins, g, h, ws, nodes,
                              margin, group)
    slots = _level_slots(p, g.shape[0], width)
    n_nodes, pool0, pool1 = _grow_depthwise(
        data, bins, gp, cs, ws.histograms(0, slots, width), ws.histograms(1, slots, width),
        root_from_bins, g, h, nodes, margin, group)
    ws.keep_histograms(pool0, pool1)
    return n_nodes


@njit(cache=True, nogil=True)
def _grow_depthwise(data, bins, gp, cs, pool0, pool1, root_from_bins, g, h, nodes, margin,
                    group):
    """The depth-wise tree (this module's steps 1-4) in one compiled call: the root
    (``nodes.grow_root``), then per level drop the features not drawn, decide, add the
    leaves' values, partition, and build, subtract and evaluate the children.

    ``data``: ``workspace.HistRows``; ``bins``: ``binning.Bins``; ``gp``: ``GrowParams``;
    ``cs``: the tree's ``sampling.NodeSampling``. ``pool0``/``pool1`` hold a level's
    histograms, one level's children in one, their parents in the other; a level with more
    children than a pool holds gets a larger pool. Returns (node count, the two pools)."""
    rp = gp.node
    n_threads = data.n_threads
    n_features = bins.ptrs.shape[0] - 1
    node_start, node_end, best = grow_root(data, bins, rp, root_from_bins, g, h, nodes, pool0)
    hist, other = pool0, pool1
    rows, spare = data.spare, data.ids
    _iota(rows)
    level = np.zeros(1, dtype=np.int64)  # nodes of the current depth, in id order
    # np.int64, not literals: a literal would type every callee once more
    n_nodes, n_leaves, d = np.int64(1), np.int64(1), np.int64(0)
    while True:
        drop_unsampled(best, cs, d, level)
        expand = np.empty((level.shape[0], 4), dtype=np.int64)
        m, n_nodes, n_leaves = _apply_level(best, level, d, n_nodes, n_leaves, gp, nodes, expand)
        expand = expand[:m]
        _add_leaf_values(rows, level, nodes.left, node_start, node_end, nodes.weight, gp.eta,
                         margin, group)
        if m == 0:
            break
        full = gp.max_leaves > 0 and n_leaves >= gp.max_leaves
        if full or (gp.max_depth > 0 and d + 1 >= gp.max_depth):
            # The children are leaves (at max_depth, or no leaf may be added): no search.
            if full:
                nodes.reason[n_nodes - 2 * m:n_nodes] = REASON_MAX_LEAVES
            _add_split_leaf_values(data.columns, rows, expand, nodes.left, nodes.right,
                                   nodes.default_left, data.missing, node_start, node_end,
                                   nodes.weight, gp.eta, margin, group, n_threads)
            break
        _partition(data.columns, rows, spare, data.side, expand, nodes.left, nodes.right,
                   nodes.default_left, data.missing, node_start, node_end, n_threads)
        rows, spare = spare, rows
        children, cg, ch, c_rows, b_start, b_end, b_slot, s_slot, p_slot = _plan_children(
            expand, nodes.left, nodes.right, nodes.sum_grad, nodes.sum_hess, node_start,
            node_end)
        if other.shape[0] < 2 * m:  # a wider level than the pool holds
            other = np.empty((max(2 * m, 2 * other.shape[0]), hist.shape[1]),
                             dtype=np.complex128)
        best = np.empty((n_features, 2 * m, SPLIT_FIELDS), dtype=np.float64)
        # np.bool_, not a literal: the same compiled _search as the root's and lossguide's
        _search(data, rows, np.bool_(True), b_start, b_end, b_slot, hist, p_slot, s_slot, other,
                bins, cg, ch, c_rows, rp, best)
        hist, other = other, hist
        level = children
        d += 1
    return n_nodes, hist, other
