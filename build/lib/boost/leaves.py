"""Leaf values re-estimated from the loss itself, once a tree's structure is fixed.

Two users, one mechanism (group the rows by leaf, compute one number per leaf):

* XGBoost's adaptive leaves (``reg:absoluteerror`` with hist or approx): each leaf becomes
  ``eta * quantile_0.5(y - m)`` over its rows, with XGBoost's float32 arithmetic
  (``objectives.quantile``; docs/xgboost-rules.md §7). exact keeps the Newton leaves.
* First-order gradient boosting (Friedman 2001, "TreeBoost"): the tree is a least-squares
  fit to the negative gradients; then each leaf gets the value ``v`` that minimises the
  objective's own loss ``sum_i w_i l(y_i, m_i + v)`` over its rows, times eta. Closed forms
  where they exist (mean, median, the log-link ratios), Friedman's single Newton step for
  the logistic, exponential and multi-class losses (their exact minimisers are infinite on
  a leaf whose rows are all one class), and bisection on the
  derivative for the pseudo-Huber loss. ``max_delta_step`` > 0 clips ``v`` as it clips a
  Newton weight; an unbounded optimum (a leaf of all-zero Poisson counts) stops at
  +-``MAX_STEP`` on the margin scale.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from . import objectives
from ._dtypes import WEIGHT
from .layout import NO_WEIGHT

MAX_STEP = 30.0
_BISECTIONS = 200

# Line-search kinds (``_line_search``'s ``kind``).
_LS_SQUARED, _LS_LOGISTIC, _LS_EXPONENTIAL, _LS_POISSON, _LS_GAMMA, _LS_TWEEDIE, \
    _LS_PSEUDOHUBER, _LS_MULTICLASS = range(8)
_LS_KIND = {
    "reg:squarederror": _LS_SQUARED,
    "binary:logistic": _LS_LOGISTIC,
    "binary:logitraw": _LS_LOGISTIC,
    "binary:exponential": _LS_EXPONENTIAL,
    "count:poisson": _LS_POISSON,
    "reg:gamma": _LS_GAMMA,
    "reg:tweedie": _LS_TWEEDIE,
    "reg:pseudohubererror": _LS_PSEUDOHUBER,
    "multi:softprob": _LS_MULTICLASS,
    "multi:softmax": _LS_MULTICLASS,
}


@njit(cache=True, nogil=True)
def _group_rows(leaf, active, use_active, n_nodes):
    """Rows grouped by leaf, each group in row order: ``order[starts[j]:starts[j + 1]]`` are
    the (active) rows of node j."""
    starts = np.zeros(n_nodes + 1, dtype=np.int64)
    for r in range(leaf.shape[0]):
        if use_active and not active[r]:
            continue
        starts[leaf[r] + 1] += 1
    for j in range(n_nodes):
        starts[j + 1] += starts[j]
    cursor = starts[:-1].copy()
    order = np.empty(starts[n_nodes], dtype=np.int64)
    for r in range(leaf.shape[0]):
        if use_active and not active[r]:
            continue
        order[cursor[leaf[r]]] = r
        cursor[leaf[r]] += 1
    return order, starts


def rows_by_leaf(leaf: np.ndarray, active: np.ndarray | None):
    """[(leaf id, rows in row order)] for the leaves that hold active rows."""
    n_nodes = int(leaf.max(initial=-1)) + 1
    order, starts = _group_rows(leaf, np.ones(1, np.bool_) if active is None else active,
                                active is not None, n_nodes)
    return [(j, order[starts[j]:starts[j + 1]]) for j in range(n_nodes)
            if starts[j + 1] > starts[j]]


def _set_leaf(nodes: dict, nid: int, weight, eta32) -> None:
    nodes["weight"][nid] = WEIGHT(weight)
    nodes["value"][nid] = WEIGHT(WEIGHT(weight) * eta32)


def _median_residuals(leaf, margin_k, y, weight, active) -> dict[int, tuple]:
    """{leaf id: (median of y - m over its rows, the rows' weights or None)}, with XGBoost's
    Quantile / WeightedQuantile arithmetic."""
    out = {}
    for nid, rows in rows_by_leaf(leaf, active):
        w = None if weight is None else weight[rows]
        resid = (y[rows] - margin_k[rows]).astype(np.float32)
        out[nid] = (objectives.quantile(resid, 0.5, w), w)
    return out


def quantile_leaves(nodes: dict, leaf, margin_k, y, weight, active, eta32) -> None:
    """XGBoost's UpdateTreeLeaf for reg:absoluteerror: leaf = eta * median(y - m)."""
    medians = _median_residuals(leaf, margin_k, y, weight, active)
    for nid, (q, _) in medians.items():
        _set_leaf(nodes, nid, q, eta32)
    filled = set(medians)
    for nid in np.flatnonzero(nodes["is_leaf"]):
        if int(nid) not in filled:  # no rows: XGBoost multiplies the old value by eta again
            _set_leaf(nodes, int(nid), nodes["value"][nid], eta32)


@njit(cache=True, nogil=True)
def _log_ratio(num, den, scale):
    if num <= 0.0:
        return -MAX_STEP
    if den <= 0.0:
        return MAX_STEP
    return scale * math.log(num / den)


@njit(cache=True, nogil=True)
def _pseudohuber_step(rows, resid, w, slope):
    """argmin_v sum w slope^2 (sqrt(1 + ((r - v)/slope)^2) - 1): the derivative is increasing
    in v and changes sign inside [min r, max r]; bisection on it."""
    lo = np.inf
    hi = -np.inf
    for i in rows:
        lo = min(lo, resid[i])
        hi = max(hi, resid[i])
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        deriv = np.float64(0.0)
        for i in rows:
            z = (resid[i] - mid) / slope
            deriv -= w[i] * slope * z / math.sqrt(1.0 + z * z)
        if deriv > 0.0:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-12 * max(1.0, abs(mid)):
            break
    return 0.5 * (lo + hi)


@njit(cache=True, nogil=True)
def _line_search(kind, margin, prob, k, y, w, use_w, order, starts, slope, rho, out, found):
    """``out[j]``: the loss-minimising step of leaf j over its rows (float64); ``prob`` holds
    the class probabilities for the multi-class step."""
    n_class = margin.shape[1]
    resid = np.empty(0)
    if kind == _LS_PSEUDOHUBER:
        resid = np.empty(y.shape[0])
        for r in order:
            resid[r] = np.float64(y[r]) - np.float64(margin[r, k])
    ww = np.ones(y.shape[0]) if not use_w else w.astype(np.float64)
    for j in range(starts.shape[0] - 1):
        a, b = starts[j], starts[j + 1]
        found[j] = False
        if b <= a:
            continue
        rows = order[a:b]
        total_w = np.float64(0.0)
        for r in rows:
            total_w += ww[r]
        if total_w <= 0.0:
            continue
        found[j] = True
        if kind == _LS_SQUARED:
            # The weighted mean residual, summed as XGBoost sums -G/H: float32
            # g = (m - y) w added row by row in double (with lambda = 0, XGBoost's leaf).
            sg = np.float64(0.0)
            sw = np.float64(0.0)
            for r in rows:
                g32 = (margin[r, k] - y[r]) * (w[r] if use_w else np.float32(1.0))
                sg += np.float64(g32)
                sw += ww[r]
            out[j] = -sg / sw
        elif kind == _LS_LOGISTIC:
            # Friedman's one Newton step for the log-loss: sum (y - p) / sum p (1 - p).
            num = np.float64(0.0)
            den = np.float64(0.0)
            for r in rows:
                p = 1.0 / (1.0 + math.exp(-np.float64(margin[r, k])))
                num += ww[r] * (np.float64(y[r]) - p)
                den += ww[r] * p * (1.0 - p)
            out[j] = 0.0 if den <= 0.0 else num / den
        elif kind == _LS_MULTICLASS:
            # Friedman (2001, Alg. 6): (K-1)/K sum r / sum |r|(1 - |r|), r = [y = k] - p_k.
            num = np.float64(0.0)
            den = np.float64(0.0)
            for r in rows:
                res = (1.0 if y[r] == k else 0.0) - np.float64(prob[r, k])
                num += ww[r] * res
                den += ww[r] * abs(res) * (1.0 - abs(res))
            out[j] = 0.0 if den <= 0.0 else (n_class - 1) / n_class * num / den
        elif kind == _LS_EXPONENTIAL:
            # Friedman's one Newton step, sum t e^{-t m} / sum e^{-t m} with t = 2y - 1 (as
            # scikit-learn's exponential loss). The exact minimiser, AdaBoost's
            # 0.5 log(sum_{y=1} w e^{-m} / sum_{y=0} w e^{m}), is infinite on a pure leaf.
            num = np.float64(0.0)
            den = np.float64(0.0)
            for r in rows:
                t = 2.0 * np.float64(y[r]) - 1.0
                e = math.exp(-t * np.float64(margin[r, k]))
                num += ww[r] * t * e
                den += ww[r] * e
            out[j] = 0.0 if den <= 0.0 else num / den
        elif kind == _LS_PSEUDOHUBER:
            out[j] = _pseudohuber_step(rows, resid, ww, slope)
        else:  # the log-link losses: closed forms
            num = np.float64(0.0)
            den = np.float64(0.0)
            for r in rows:
                m = np.float64(margin[r, k])
                yr = np.float64(y[r])
                if kind == _LS_POISSON:  # log(sum w y / sum w e^m)
                    num += ww[r] * yr
                    den += ww[r] * math.exp(m)
                elif kind == _LS_GAMMA:  # log(sum w y e^-m / sum w)
                    num += ww[r] * yr * math.exp(-m)
                    den += ww[r]
                else:  # tweedie: log(sum w y e^((1-rho)m) / sum w e^((2-rho)m))
                    num += ww[r] * yr * math.exp((1.0 - rho) * m)
                    den += ww[r] * math.exp((2.0 - rho) * m)
            out[j] = _log_ratio(num, den, 1.0)


def line_search_steps(objective: str, loss: objectives.LossParams, leaf, margin, k: int, y,
                      weight, active) -> dict[int, float]:
    """{leaf id: the value v minimising the loss over the leaf's rows} (float64), for the
    leaves with rows of positive weight. ``margin`` (n, n_groups) is before the tree."""
    n_nodes = int(leaf.max(initial=-1)) + 1
    use_active = active is not None
    if objective == "reg:absoluteerror":
        return {nid: float(q) for nid, (q, w) in
                _median_residuals(leaf, margin[:, k], y, weight, active).items()
                if w is None or np.any(w > 0)}
    order, starts = _group_rows(leaf, active if use_active else np.ones(1, np.bool_),
                                use_active, n_nodes)
    kind = _LS_KIND[objective]
    prob = (objectives.transform(objective, margin) if kind == _LS_MULTICLASS
            else np.empty((0, 0), dtype=np.float32))
    values = np.zeros(n_nodes)
    found = np.zeros(n_nodes, dtype=np.bool_)
    _line_search(kind, margin, prob, k, y, NO_WEIGHT if weight is None else weight,
                 weight is not None, order, starts, float(np.float32(loss.huber_slope)),
                 float(np.float32(loss.tweedie_variance_power)), values, found)
    return {int(j): float(values[j]) for j in np.flatnonzero(found)}


def line_search_leaves(objective: str, loss: objectives.LossParams, nodes: dict, leaf, margin,
                       k: int, y, weight, active, eta32, max_delta_step: float) -> None:
    """First-order boosting: every leaf with rows gets its loss-minimising value."""
    for nid, v in line_search_steps(objective, loss, leaf, margin, k, y, weight,
                                    active).items():
        v = min(max(v, -MAX_STEP), MAX_STEP)
        if max_delta_step > 0.0:
            v = min(max(v, -max_delta_step), max_delta_step)
        _set_leaf(nodes, nid, v, eta32)
