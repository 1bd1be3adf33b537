"""The exact greedy tree grower (XGBoost's ``grow_colmaker``), level by level.

Each feature's present values are sorted once per training run (``SortedColumns``). At each
depth every feature is scanned once over all its rows; a row contributes to the node it sits in
(``position``), so all nodes of a level are searched in one pass per feature, as XGBoost does.
Features are scanned in parallel (``prange``); each feature keeps its own best split per node
and the bests are merged in feature order, so the result does not depend on the thread count.

Scan order and tie-breaking follow shared/XGBOOST_SEMANTICS.md §3, §6 and §8::

    sorted column of feature f:   v0 <= v1 <= ... <= vk         (missing rows are not listed)
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
from numba import njit, prange

from ._dtypes import (
    REASON_GAMMA,
    REASON_MAX_DEPTH,
    REASON_MIN_CHILD_WEIGHT,
    REASON_NO_GAIN,
    REASON_NONE,
    RT_EPS,
)
from .split_math import leaf_weight, similarity, split_loss_change

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


@njit(cache=True, parallel=True)
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
        order = np.argsort(X[present, f], kind="mergesort")  # stable: ties by row index
        start = col_ptr[f]
        for j in range(counts[f]):
            r = present[order[j]]
            rows[start + j] = r
            values[start + j] = X[r, f]
        k = counts[f]
        indicator = k != 0 and values[start] == values[start + k - 1]
        need_forward[f] = k < n_samples and not indicator
    return col_ptr, rows, values, need_forward


@njit(cache=True)
def _scan(begin, end, step, rows, values, position, g, h, level_start, n_level,
          parent_g, parent_h, parent_sim, reg_lambda, alpha, mcw, mds,
          best_loss, best_thr, best_left, blocked):
    """One directional scan of feature f over the rows of every node of the level.

    Updates this feature's best split per node (strict ``>``: the first of equal gains wins)
    and the best loss change that min_child_weight blocked.
    """
    forward = step == 1
    scan_g = np.zeros(n_level, dtype=np.float64)
    scan_h = np.zeros(n_level, dtype=np.float64)
    last = np.zeros(n_level, dtype=np.float32)
    k = begin
    while k != end:
        r = rows[k]
        li = position[r] - level_start
        if li >= 0:
            v = values[k]
            if scan_h[li] == 0.0:  # XGBoost's "first hit" test: the scanned side is empty
                scan_g[li] += g[r]
                scan_h[li] += h[r]
                last[li] = v
            else:
                if v != last[li]:
                    rest_g = parent_g[li] - scan_g[li]
                    rest_h = parent_h[li] - scan_h[li]
                    if forward:
                        loss = split_loss_change(scan_g[li], scan_h[li], rest_g, rest_h,
                                                 parent_sim[li], reg_lambda, alpha, mcw, mds)
                    else:
                        loss = split_loss_change(rest_g, rest_h, scan_g[li], scan_h[li],
                                                 parent_sim[li], reg_lambda, alpha, mcw, mds)
                    if scan_h[li] >= mcw and rest_h >= mcw:
                        if not math.isinf(loss) and loss > best_loss[li]:
                            mid = (v + last[li]) * _F32_HALF
                            best_loss[li] = loss
                            best_thr[li] = last[li] if mid == v else mid
                            best_left[li] = not forward
                    elif loss > blocked[li]:
                        blocked[li] = loss
                scan_g[li] += g[r]
                scan_h[li] += h[r]
                last[li] = v
        k += step
    # Every present value on one side, the missing rows on the other.
    for li in range(n_level):
        rest_g = parent_g[li] - scan_g[li]
        rest_h = parent_h[li] - scan_h[li]
        if scan_h[li] >= mcw and rest_h >= mcw:
            gap = abs(last[li]) + RT_EPS
            if forward:
                loss = split_loss_change(scan_g[li], scan_h[li], rest_g, rest_h,
                                         parent_sim[li], reg_lambda, alpha, mcw, mds)
                thr = last[li] + gap
            else:
                loss = split_loss_change(rest_g, rest_h, scan_g[li], scan_h[li],
                                         parent_sim[li], reg_lambda, alpha, mcw, mds)
                thr = last[li] - gap
            if not math.isinf(loss) and loss > best_loss[li]:
                best_loss[li] = loss
                best_thr[li] = thr
                best_left[li] = not forward


@njit(cache=True, parallel=True)
def grow_exact(X, col_ptr, rows, values, need_forward, g, h, eta, reg_lambda, alpha, mcw, mds,
               max_depth, position, parent, left, right, depth, feature, threshold,
               default_left, loss_chg, sum_grad, sum_hess, weight, reason):
    """Grow one tree; fill the node arrays (capacity >= nodes grown) and return the count.

    ``position`` (n_samples, int32) is scratch: the node of each row, -1 once its node is
    a leaf (or when its hessian is negative, as XGBoost ignores such rows).
    """
    n_samples, n_features = X.shape
    root_g = 0.0
    root_h = 0.0
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
    n_nodes = 1
    level_start = 0
    level_end = 1
    for d in range(max_depth):
        n_level = level_end - level_start
        parent_g = sum_grad[level_start:level_end].copy()
        parent_h = sum_hess[level_start:level_end].copy()
        parent_sim = np.empty(n_level, dtype=np.float32)
        for li in range(n_level):
            parent_sim[li] = similarity(parent_g[li], parent_h[li], reg_lambda, alpha, mcw, mds)
        f_loss = np.zeros((n_features, n_level), dtype=np.float32)
        f_thr = np.zeros((n_features, n_level), dtype=np.float32)
        f_left = np.zeros((n_features, n_level), dtype=np.bool_)
        f_blocked = np.full((n_features, n_level), _NEG_INF32, dtype=np.float32)
        for f in prange(n_features):
            begin = col_ptr[f]
            end = col_ptr[f + 1]
            if need_forward[f]:
                _scan(begin, end, 1, rows, values, position, g, h, level_start, n_level,
                      parent_g, parent_h, parent_sim, reg_lambda, alpha, mcw, mds,
                      f_loss[f], f_thr[f], f_left[f], f_blocked[f])
            _scan(end - 1, begin - 1, -1, rows, values, position, g, h, level_start,
                  n_level, parent_g, parent_h, parent_sim, reg_lambda, alpha, mcw, mds,
                  f_loss[f], f_thr[f], f_left[f], f_blocked[f])
        any_split = False
        for li in range(n_level):
            nid = level_start + li
            best = _F32_ZERO
            best_f = -1
            blocked = _NEG_INF32
            for f in range(n_features):  # ascending: on equal gains the lower feature wins
                if f_loss[f, li] > best:
                    best = f_loss[f, li]
                    best_f = f
                if f_blocked[f, li] > blocked:
                    blocked = f_blocked[f, li]
            loss_chg[nid] = best
            if best > RT_EPS:
                any_split = True
                feature[nid] = best_f
                threshold[nid] = f_thr[best_f, li]
                default_left[nid] = f_left[best_f, li]
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
            if left[nid] == -1:
                position[r] = -1
                continue
            x = X[r, feature[nid]]
            if math.isnan(x):
                position[r] = left[nid] if default_left[nid] else right[nid]
            elif x < threshold[nid]:
                position[r] = left[nid]
            else:
                position[r] = right[nid]
        for r in range(n_samples):  # row order, like XGBoost's single-thread sums
            nid = position[r]
            if nid >= level_end:
                sum_grad[nid] += g[r]
                sum_hess[nid] += h[r]
        for nid in range(level_end, n_nodes):
            weight[nid] = leaf_weight(sum_grad[nid], sum_hess[nid], reg_lambda, alpha, mcw, mds)
            feature[nid] = -1
        level_start = level_end
        level_end = n_nodes
    return n_nodes


@njit(cache=True)
def prune(n_nodes, parent, left, right, loss_chg, gamma, is_leaf, removed, reason):
    """XGBoost's ``prune`` updater: bottom-up, collapse a split whose two children are
    leaves when its loss change < gamma; repeat on its parent (shared/XGBOOST_SEMANTICS.md §1).
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
