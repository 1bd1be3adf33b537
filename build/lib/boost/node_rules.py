"""The rules that decide a node's fate, shared by exact, hist, approx, pruning and the tree.

The arithmetic (weight, similarity, gain) is ``split_math``'s; this module says what it
decides (docs/xgboost-rules.md §1, §3, §4, §8):

* a split is made while growing when its gain (loss change) > 1e-6 (``splits``);
* γ: exact prunes a split whose gain < γ after growing, hist refuses it before
  (``below_gamma``, the same comparison);
* a node that does not split is a leaf for a reason: min_child_weight blocked a split with
  gain, or no split had any (``leaf_reason``); at max_depth it was never searched;
* of the features' best splits the one with the highest gain wins, the lower feature on a tie
  (``best_feature``);
* a row goes right unless x < threshold, or x is missing and the default is left
  (``goes_right``; ``routes_right`` for a value or a bin code, ``bin_goes_left`` for the hist
  grower's codes);
* hist/approx make a node's best split unless it has no gain, an empty child, a gain below γ,
  sits at max_depth or the tree has max_leaves leaves (``refusal``, XGBoost's
  ``ExpandEntry::IsValid``), depth-wise and leaf-wise alike.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._dtypes import (
    REASON_GAMMA,
    REASON_MAX_DEPTH,
    REASON_MAX_LEAVES,
    REASON_MIN_CHILD_WEIGHT,
    REASON_NO_GAIN,
    REASON_NONE,
    RT_EPS,
)
from .records import SPLIT_BLOCKED, SPLIT_HL, SPLIT_HR, SPLIT_LOSS
from .split_math import leaf_weight, similarity, split_loss_change

__all__ = ["below_gamma", "best_feature", "bin_goes_left", "goes_right",
           "leaf_reason", "leaf_weight", "new_node", "prune", "refusal", "routes_right",
           "set_split", "similarity", "split_loss_change", "split_threshold", "splits"]

_F32_ZERO = np.float32(0.0)
_F32_HALF = np.float32(0.5)
F32_NAN = np.float32(np.nan)  # a value's "missing code": equal to nothing (x != x finds it)


@njit(cache=True, nogil=True, inline="always")
def splits(loss_chg):
    """Whether a node splits while growing: its best gain exceeds XGBoost's kRtEps."""
    return loss_chg > RT_EPS


@njit(cache=True, nogil=True, inline="always")
def below_gamma(loss_chg, gamma):
    """γ's test: exact prunes such a split after growing, hist refuses it (== γ keeps it)."""
    return loss_chg < gamma


@njit(cache=True, nogil=True, inline="always")
def leaf_reason(blocked):
    """Why a searched node stays a leaf, from the best gain min_child_weight refused."""
    return REASON_MIN_CHILD_WEIGHT if blocked > RT_EPS else REASON_NO_GAIN


@njit(cache=True, nogil=True)
def refusal(bt, loss, blocked, depth, n_leaves, gp):
    """Why a node's best split (feature row ``bt``, gain ``loss``; ``blocked``: the best gain
    min_child_weight refused) is not made, as XGBoost's ``ExpandEntry::IsValid`` checks it:
    no gain above 1e-6, an empty child, below γ (hist refuses before growing), at max_depth,
    or the tree already has max_leaves leaves (``n_leaves``; ``gp``: ``GrowParams``).
    ``REASON_NONE``: it is made."""
    if not splits(loss):
        return leaf_reason(blocked)
    if bt[SPLIT_HL] == 0.0 or bt[SPLIT_HR] == 0.0:  # XGBoost refuses an empty child
        return REASON_NO_GAIN
    if below_gamma(loss, gp.gamma):
        return REASON_GAMMA
    if gp.max_depth > 0 and depth == gp.max_depth:
        return REASON_MAX_DEPTH
    if gp.max_leaves > 0 and n_leaves == gp.max_leaves:
        return REASON_MAX_LEAVES
    return REASON_NONE


@njit(cache=True, nogil=True, inline="always")
def best_feature(best, t):
    """The feature whose best split (``best[f, t]``) the node takes: the highest gain, the
    lower feature on equal gains (features in ascending order, strict ``>``), and the best
    gain any feature's min_child_weight refused. Returns (feature or -1, gain as float32,
    refused)."""
    f_best = -1
    loss = _F32_ZERO
    blocked = -np.inf
    for f in range(best.shape[0]):
        if best[f, t, SPLIT_LOSS] > loss:
            loss = np.float32(best[f, t, SPLIT_LOSS])
            f_best = f
        if best[f, t, SPLIT_BLOCKED] > blocked:
            blocked = best[f, t, SPLIT_BLOCKED]
    return f_best, loss, blocked


@njit(cache=True, nogil=True, inline="always")
def split_threshold(value, prev):
    """exact's threshold between a scan's ``value`` and the distinct value before it:
    f32((value + prev) * 0.5), or ``prev`` where that rounds to ``value`` (docs/xgboost-rules.md
    §3)."""
    mid = (value + prev) * _F32_HALF
    return prev if mid == value else mid


@njit(cache=True, nogil=True, inline="always")
def routes_right(x, split, default_left, missing):
    """1 if a row goes to the right child, else 0, without a branch (the side is
    unpredictable): right unless x < split, or x is missing and the default is left. ``x`` is
    the row's value (``split`` the threshold, ``missing`` ``F32_NAN``: NaN is missing) or its
    bin code (``split`` the first code that goes right, ``missing`` the code of a missing
    value, above every bin, or -1)."""
    absent = (x != x) | (x == missing)
    return np.uint8(not (x < split)) & np.uint8(not (absent & default_left))


@njit(cache=True, nogil=True, inline="always")
def goes_right(x, threshold, default_left):
    """``routes_right`` for a value (NaN is missing)."""
    return routes_right(x, threshold, default_left, F32_NAN)


@njit(cache=True, nogil=True, inline="always")
def bin_goes_left(code, missing, default_left, split_bin):
    """``goes_right``'s rule for a bin code: left when the code is at most the split's bin,
    or it is the missing code and the default is left."""
    return default_left if code == missing else np.int64(code) <= split_bin


@njit(cache=True, nogil=True, inline="always")
def builds_right(sum_hess_left, sum_hess_right):
    """hist builds the histogram of a split's child with the smaller hessian sum from its rows
    (the left one on a tie) and takes its sibling as the parent's minus it."""
    return sum_hess_right < sum_hess_left


@njit(cache=True, nogil=True, inline="always")
def new_node(nodes, nid, par, d, sum_grad, sum_hess, rp):
    """Node ``nid``, a child of ``par`` at depth d with sums G, H (``rp``:
    ``NodeParams``): a leaf until searched."""
    nodes.parent[nid] = par
    nodes.depth[nid] = d
    nodes.left[nid] = -1
    nodes.right[nid] = -1
    nodes.feature[nid] = -1
    nodes.threshold[nid] = _F32_ZERO
    nodes.default_left[nid] = False
    nodes.loss_chg[nid] = _F32_ZERO
    nodes.sum_grad[nid] = sum_grad
    nodes.sum_hess[nid] = sum_hess
    nodes.weight[nid] = leaf_weight(sum_grad, sum_hess, rp)
    nodes.reason[nid] = REASON_MAX_DEPTH


@njit(cache=True, nogil=True, inline="always")
def set_split(nodes, nid, feature, threshold, default_left, loss_chg, first_child):
    """Node ``nid`` splits on ``feature``; its children are ``first_child`` and the next."""
    nodes.feature[nid] = feature
    nodes.threshold[nid] = threshold
    nodes.default_left[nid] = default_left
    nodes.loss_chg[nid] = loss_chg
    nodes.left[nid] = first_child
    nodes.right[nid] = first_child + 1
    nodes.reason[nid] = REASON_NONE


@njit(cache=True, nogil=True, error_model="numpy")
def prune(n_nodes, nodes, gamma, is_leaf, removed):
    """XGBoost's ``prune`` updater (exact): bottom-up, collapse a split whose two children
    are leaves when its gain is below γ, then test its parent. Fills ``is_leaf`` (leaf of
    the final tree) and ``removed`` (grown, then pruned away)."""
    left, right, parent, reason = nodes.left, nodes.right, nodes.parent, nodes.reason
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
            if not (is_leaf[lc] and is_leaf[rc] and below_gamma(nodes.loss_chg[p], gamma)):
                break
            is_leaf[p] = True
            removed[lc] = True
            removed[rc] = True
            reason[p] = REASON_GAMMA
            reason[lc] = REASON_GAMMA
            reason[rc] = REASON_GAMMA
            cur = p
