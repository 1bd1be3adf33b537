"""The exact greedy tree grower (XGBoost's ``grow_colmaker``), level by level.

Each feature's present values are sorted once per training run (``SortedColumns``). While a
tree grows, every feature's sorted entries are kept grouped by node ("segments"), so a node's
search reads its own entries contiguously; after each level the segments are partitioned
stably into the children's segments. A node therefore accumulates its rows in the same order
as XGBoost's column scan (ascending value, ties by row index), which keeps the float64 sums,
and so every gain, bit-identical.

Scan order and tie-breaking follow shared/XGBOOST_SEMANTICS.md §3, §6 and §8::

    sorted entries of feature f in node n:  v0 <= v1 <= ... <= vk   (missing rows not listed)
    forward  (only if the column has missing values and is not constant):
        left = scanned rows, right = the rest incl. missing      -> default_left = False
    backward (always):
        right = scanned rows, left = the rest incl. missing      -> default_left = True
    candidate at every change of value: threshold = f32((a + b) * 0.5)
    after the scan: everything present on one side, missing on the other

Each scan runs in three passes over the segment: prefix sums (sequential), loss changes of
every boundary (independent, so the compiler vectorises them), then the first maximum.
Features are processed in parallel (``prange``) and the per-feature bests are merged in
feature order, so the result does not depend on the thread count.
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
_POS_INF32 = np.float32(np.inf)


class SortedColumns:
    """Each feature's present values in ascending order, CSC-style.

    ``rows[col_ptr[f]:col_ptr[f+1]]`` are the row indices of feature f sorted by value
    (ties by row index) and ``values[...]`` their float32 values. ``need_forward[f]`` says
    whether XGBoost runs the forward (missing -> right) scan: the column has a missing value
    and its present values are not all equal.
    """

    def __init__(self, X: np.ndarray):
        self.col_ptr, self.rows, self.values, self.need_forward = _sort_columns(X)


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


@njit(cache=True, inline="always", error_model="numpy")
def _similarity0(sum_grad, sum_hess, reg_lambda, alpha):
    # split_math.similarity for max_delta_step == 0, branch-free so it vectorises:
    # T_alpha(G)^2 == max(|G| - alpha, 0)^2 exactly.
    t = max(abs(sum_grad) - alpha, 0.0)
    s = np.float32(t * t) / np.float32(sum_hess + reg_lambda)
    return s if sum_hess > 0.0 else _F32_ZERO


@njit(cache=True, error_model="numpy")
def _losses0(n, forward, vals, buf_g, buf_h, parent_g, parent_h, parent_sim, reg_lambda,
             alpha, mcw, out_valid, out_blocked):
    """Loss change at every boundary of a segment, max_delta_step = 0; written by hand as
    one flat loop from 0 so that LLVM vectorises it (the guard H <= 0 -> similarity 0 and
    the masks are selects). ``out_valid[j]`` is -inf where entry j starts no valid
    boundary; ``out_blocked[j]`` where min_child_weight did not refuse one."""
    for i in range(n - 1):
        j = i + 1 if forward else i
        o = i if forward else i + 1  # the neighbour already scanned
        sg = buf_g[j]
        sh = buf_h[j]
        rg = parent_g - sg
        rh = parent_h - sh
        t1 = max(abs(sg) - alpha, 0.0)
        t2 = max(abs(rg) - alpha, 0.0)
        s1 = np.float32(t1 * t1) / np.float32(sh + reg_lambda)
        s2 = np.float32(t2 * t2) / np.float32(rh + reg_lambda)
        s1 = s1 if sh > 0.0 else _F32_ZERO
        s2 = s2 if rh > 0.0 else _F32_ZERO
        loss = (s1 + s2) - parent_sim
        boundary = (sh != 0.0) & (vals[j] != vals[o])
        heavy = (sh >= mcw) & (rh >= mcw)
        out_valid[j] = loss if boundary & heavy & (loss != _POS_INF32) else _NEG_INF32
        out_blocked[j] = loss if boundary & ~heavy else _NEG_INF32


@njit(cache=True, error_model="numpy")
def _losses(n, forward, vals, buf_g, buf_h, parent_g, parent_h, parent_sim, reg_lambda,
            alpha, mcw, mds, out_valid, out_blocked):
    # The general case (max_delta_step != 0), same masks as _losses0.
    for i in range(n - 1):
        j = i + 1 if forward else i
        o = i if forward else i + 1
        sh = buf_h[j]
        rh = parent_h - sh
        loss = split_loss_change(buf_g[j], sh, parent_g - buf_g[j], rh, parent_sim,
                                 reg_lambda, alpha, mcw, mds)
        boundary = (sh != 0.0) & (vals[j] != vals[o])
        heavy = (sh >= mcw) & (rh >= mcw)
        out_valid[j] = loss if boundary & heavy & (loss != _POS_INF32) else _NEG_INF32
        out_blocked[j] = loss if boundary & ~heavy else _NEG_INF32


@njit(cache=True, error_model="numpy")
def _scan_segment(vals, gs, hs, forward, parent_g, parent_h, parent_sim, reg_lambda, alpha,
                  mcw, mds, buf_g, buf_h, buf_loss, buf_blocked, best):
    """Search one node's entries of one feature (all arrays are the node's slices) in one
    direction.

    ``best`` = [loss, threshold, default_left, blocked] is updated in place: the loss only
    when strictly larger (the first of equal gains in scan order wins), ``blocked`` with the
    best loss change that min_child_weight refused.
    """
    n = vals.shape[0]
    # Pass 1: the scanned side's sums before each entry, accumulated in scan order.
    # XGBoost's "first hit" rule (no candidate while the scanned hessian is exactly 0) is
    # applied by the masks of pass 2.
    sg = 0.0
    sh = 0.0
    for i in range(n):
        j = i if forward else n - 1 - i
        buf_g[j] = sg
        buf_h[j] = sh
        sg += gs[j]
        sh += hs[j]
    # Pass 2: every boundary's loss change, masked.
    if mds == 0.0:
        _losses0(n, forward, vals, buf_g, buf_h, parent_g, parent_h, parent_sim, reg_lambda,
                 alpha, mcw, buf_loss, buf_blocked)
    else:
        _losses(n, forward, vals, buf_g, buf_h, parent_g, parent_h, parent_sim, reg_lambda,
                alpha, mcw, mds, buf_loss, buf_blocked)
    # Pass 3: the first maximum in scan order.
    best_j = -1
    best_loss = best[0]
    for i in range(n - 1):
        j = i + 1 if forward else n - 2 - i
        if buf_loss[j] > best_loss:
            best_loss = buf_loss[j]
            best_j = j
    if mcw > 0.0:
        blocked = best[3]
        for i in range(n - 1):
            j = i + 1 if forward else i
            blocked = max(blocked, buf_blocked[j])
        best[3] = blocked
    if best_j >= 0:
        v = vals[best_j]
        last = vals[best_j - 1] if forward else vals[best_j + 1]
        mid = (v + last) * _F32_HALF
        best[0] = best_loss
        best[1] = last if mid == v else mid
        best[2] = 0.0 if forward else 1.0
    # Everything present on one side, the missing rows on the other.
    rest_h = parent_h - sh
    if sh >= mcw and rest_h >= mcw:
        loss = split_loss_change(sg, sh, parent_g - sg, rest_h, parent_sim, reg_lambda, alpha,
                                 mcw, mds)
        if loss > best[0] and not math.isinf(loss):
            last = vals[n - 1] if forward else vals[0]
            gap = abs(last) + RT_EPS
            best[0] = loss
            best[1] = last + gap if forward else last - gap
            best[2] = 0.0 if forward else 1.0


@njit(cache=True, parallel=True, error_model="numpy")
def grow_exact(X, col_ptr, rows, values, need_forward, g, h, eta, reg_lambda, alpha, mcw, mds,
               max_depth, position, seg, parent, left, right, depth, feature, threshold,
               default_left, loss_chg, sum_grad, sum_hess, weight, reason):
    """Grow one tree; fill the node arrays (capacity >= nodes grown) and return the count.

    ``position`` (n_samples, int32) is scratch: the node of each row, -1 once its node is a
    leaf (or when its hessian is negative, as XGBoost ignores such rows). ``seg`` is a
    ``Segments`` workspace (see ``new_segments``).
    """
    (rows_a, vals_a, g_a, h_a, rows_b, vals_b, g_b, h_b, buf_g, buf_h, buf_loss, buf_blocked,
     side_buf) = seg
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
    # Root segments: each feature's sorted entries, rows with h < 0 dropped.
    any_negative = False
    for r in range(n_samples):
        if position[r] < 0:
            any_negative = True
            break
    ptr = np.empty((n_features, 2), dtype=np.int64)
    side = np.zeros(n_samples, dtype=np.uint8)  # 0 = left child, 1 = right child
    for f in prange(n_features):
        out = col_ptr[f]
        for k in range(col_ptr[f], col_ptr[f + 1]):
            r = rows[k]
            if any_negative and position[r] != 0:
                continue
            rows_a[out] = r
            vals_a[out] = values[k]
            g_a[out] = g[r]
            h_a[out] = h[r]
            out += 1
        ptr[f, 0] = col_ptr[f]
        ptr[f, 1] = out
    n_nodes = 1
    level_start = 0
    level_end = 1
    for d in range(max_depth):
        n_level = level_end - level_start
        parent_sim = np.empty(n_level, dtype=np.float32)
        for li in range(n_level):
            nid = level_start + li
            parent_sim[li] = similarity(sum_grad[nid], sum_hess[nid], reg_lambda, alpha, mcw,
                                        mds)
        # best[f, li] = [loss, threshold, default_left, blocked]
        best = np.zeros((n_features, n_level, 4), dtype=np.float32)
        best[:, :, 3] = _NEG_INF32
        for f in prange(n_features):
            for li in range(n_level):
                a = ptr[f, li]
                b = ptr[f, li + 1]
                if b <= a:
                    continue
                nid = level_start + li
                for forward in (True, False):
                    if forward and not need_forward[f]:
                        continue
                    _scan_segment(vals_a[a:b], g_a[a:b], h_a[a:b], forward, sum_grad[nid],
                                  sum_hess[nid], parent_sim[li], reg_lambda, alpha, mcw, mds,
                                  buf_g[a:b], buf_h[a:b], buf_loss[a:b], buf_blocked[a:b],
                                  best[f, li])
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
            if left[nid] == -1:
                position[r] = -1
                continue
            x = X[r, feature[nid]]
            if math.isnan(x):
                go_left = default_left[nid]
            else:
                go_left = x < threshold[nid]
            side[r] = 0 if go_left else 1
            position[r] = left[nid] + np.int32(side[r])
        for r in range(n_samples):  # row order, like XGBoost's single-thread sums
            nid = position[r]
            if nid >= level_end:
                sum_grad[nid] += g[r]
                sum_hess[nid] += h[r]
        for nid in range(level_end, n_nodes):
            weight[nid] = leaf_weight(sum_grad[nid], sum_hess[nid], reg_lambda, alpha, mcw, mds)
            feature[nid] = -1
        if d == max_depth - 1:
            break
        # Partition every feature's segments into the children's, stably and without
        # branches on the (unpredictable) side: count the left rows, then write each entry
        # at the cursor of its side.
        n_next = n_nodes - level_end
        new_ptr = np.empty((n_features, n_next + 1), dtype=np.int64)
        for f in prange(n_features):
            out = col_ptr[f]
            for li in range(n_level):
                nid = level_start + li
                if left[nid] == -1:
                    continue
                a = ptr[f, li]
                b = ptr[f, li + 1]
                n_right = 0
                for k in range(a, b):  # gather the sides first: keeps loads off the chain
                    sd = side[rows_a[k]]
                    side_buf[k] = sd
                    n_right += sd
                cursor_left = out
                cursor_right = out + (b - a) - n_right
                new_ptr[f, left[nid] - level_end] = cursor_left
                new_ptr[f, left[nid] + 1 - level_end] = cursor_right
                for k in range(a, b):
                    sd = np.int64(side_buf[k])
                    dst = cursor_right if sd else cursor_left
                    cursor_left += 1 - sd
                    cursor_right += sd
                    rows_b[dst] = rows_a[k]
                    vals_b[dst] = vals_a[k]
                    g_b[dst] = g_a[k]
                    h_b[dst] = h_a[k]
                out += b - a
            new_ptr[f, n_next] = out
        rows_a, rows_b = rows_b, rows_a
        vals_a, vals_b = vals_b, vals_a
        g_a, g_b = g_b, g_a
        h_a, h_b = h_b, h_a
        ptr = new_ptr
        level_start = level_end
        level_end = n_nodes
    return n_nodes


def new_segments(columns: SortedColumns):
    """Workspace of ``grow_exact``: two copies of (rows, values, g, h) per sorted entry
    (segments are partitioned from one into the other), the scan buffers and a side buffer."""
    nnz = len(columns.rows)
    return (np.empty(nnz, np.int32), np.empty(nnz, np.float32), np.empty(nnz, np.float32),
            np.empty(nnz, np.float32), np.empty(nnz, np.int32), np.empty(nnz, np.float32),
            np.empty(nnz, np.float32), np.empty(nnz, np.float32), np.empty(nnz, np.float64),
            np.empty(nnz, np.float64), np.empty(nnz, np.float32), np.empty(nnz, np.float32),
            np.empty(nnz, np.uint8))


@njit(cache=True, error_model="numpy")
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
