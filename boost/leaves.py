"""Leaf values re-estimated from the loss itself, once a tree's structure is fixed.

Two users, one mechanism (group the rows by leaf, compute one number per leaf):

* XGBoost's adaptive leaves (``reg:absoluteerror`` with hist or approx): each leaf becomes
  ``eta * quantile_0.5(y - m)`` over its rows, with XGBoost's float32 arithmetic
  (``objectives.quantile``; shared/XGBOOST_SEMANTICS.md §7). exact keeps the Newton leaves.
* First-order gradient boosting (Friedman 2001, "TreeBoost"): the tree is a least-squares
  fit to the negative gradients; then each leaf gets the value ``v`` that minimises the
  objective's own loss ``sum_i w_i l(y_i, m_i + v)`` over its rows, times eta. Closed forms
  where they exist (mean, median, the log-link ratios, AdaBoost's half log-odds), Friedman's
  single Newton step for the logistic and multi-class losses, and bisection on the
  derivative for the pseudo-Huber loss. ``max_delta_step`` > 0 clips ``v`` as it clips a
  Newton weight; an unbounded optimum (a leaf of all-zero Poisson counts) stops at
  +-``MAX_STEP`` on the margin scale.
"""

from __future__ import annotations

import math

import numpy as np

from . import objectives
from ._dtypes import WEIGHT

MAX_STEP = 30.0
_BISECTIONS = 200


def rows_by_leaf(leaf: np.ndarray, active: np.ndarray | None):
    """[(leaf id, rows in row order)] for the leaves that hold active rows."""
    rows = np.arange(leaf.shape[0]) if active is None else np.nonzero(active)[0]
    ids = leaf[rows]
    order = np.argsort(ids, kind="stable")
    rows, ids = rows[order], ids[order]
    bounds = np.flatnonzero(np.diff(ids)) + 1
    return [(int(part_ids[0]), part) for part_ids, part in
            zip(np.split(ids, bounds), np.split(rows, bounds), strict=True) if len(part)]


def _set_leaf(nodes: dict, nid: int, weight, eta32) -> None:
    nodes["weight"][nid] = WEIGHT(weight)
    nodes["value"][nid] = WEIGHT(WEIGHT(weight) * eta32)


def quantile_leaves(nodes: dict, leaf, margin_k, y, weight, active, eta32) -> None:
    """XGBoost's UpdateTreeLeaf for reg:absoluteerror: leaf = eta * median(y - m)."""
    filled = set()
    for nid, rows in rows_by_leaf(leaf, active):
        resid = (y[rows] - margin_k[rows]).astype(np.float32)
        q = objectives.quantile(resid, 0.5, None if weight is None else weight[rows])
        _set_leaf(nodes, nid, q, eta32)
        filled.add(nid)
    for nid in np.flatnonzero(nodes["is_leaf"]):
        if int(nid) not in filled:  # no rows: XGBoost multiplies the old value by eta again
            _set_leaf(nodes, int(nid), nodes["value"][nid], eta32)


def _pseudohuber_step(r, w, slope):
    """argmin_v sum w * slope^2 (sqrt(1 + ((r - v)/slope)^2) - 1): the derivative is
    increasing in v and changes sign inside [min r, max r]."""
    lo, hi = float(r.min()), float(r.max())
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        z = (r - mid) / slope
        deriv = -float(np.sum(w * slope * z / np.sqrt(1.0 + z * z)))
        if deriv > 0.0:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-12 * max(1.0, abs(mid)):
            break
    return 0.5 * (lo + hi)


def _log_ratio(num, den, scale=1.0):
    if num <= 0.0:
        return -MAX_STEP
    if den <= 0.0:
        return MAX_STEP
    return scale * math.log(num / den)


def line_search_value(objective: str, loss: objectives.LossParams, margin_rows, y, w, k: int
                      ) -> float:
    """The value v minimising the objective's loss over one leaf's rows (float64).

    ``margin_rows`` (n, n_groups) are the rows' margins before the tree, ``k`` the class of
    the tree (multi-class)."""
    m = margin_rows[:, k].astype(np.float64)
    y64 = y.astype(np.float64)
    w64 = w.astype(np.float64)
    o = objectives.spec(objective)
    if o.task == "multiclass":
        # Friedman (2001, Alg. 6): (K-1)/K * sum r / sum |r|(1 - |r|), r = [y = k] - p_k.
        p = objectives.transform(objective, margin_rows).astype(np.float64)[:, k]
        r = (y64 == k) - p
        den = float(np.sum(w64 * np.abs(r) * (1.0 - np.abs(r))))
        n_class = margin_rows.shape[1]
        return 0.0 if den <= 0.0 else (n_class - 1) / n_class * float(np.sum(w64 * r)) / den
    if objective == "reg:squarederror":
        # The weighted mean residual, summed as XGBoost sums -G/H: float32 g = (m - y) w
        # added row by row in double (so with lambda = 0 it is XGBoost's leaf to the bit).
        g = ((margin_rows[:, k] - y) * w).astype(np.float64)
        return -float(np.cumsum(g)[-1]) / float(np.cumsum(w64)[-1])
    if objective == "reg:absoluteerror":
        return float(objectives.quantile((y - margin_rows[:, k]).astype(np.float32), 0.5,
                                         None if np.all(w == 1) else w))
    if objective == "reg:pseudohubererror":
        return _pseudohuber_step(y64 - m, w64, float(np.float32(loss.huber_slope)))
    if o.link in ("sigmoid",) or objective == "binary:logitraw":
        # Friedman's one Newton step for the log-loss: sum (y - p) / sum p (1 - p).
        p = 1.0 / (1.0 + np.exp(-m))
        den = float(np.sum(w64 * p * (1.0 - p)))
        return 0.0 if den <= 0.0 else float(np.sum(w64 * (y64 - p))) / den
    if objective == "binary:exponential":
        # AdaBoost's step: 0.5 log(sum_{y=1} w e^{-m} / sum_{y=0} w e^{m}).
        pos = float(np.sum(w64 * (y64 == 1) * np.exp(-m)))
        neg = float(np.sum(w64 * (y64 == 0) * np.exp(m)))
        return _log_ratio(pos, neg, 0.5)
    if objective == "count:poisson":
        return _log_ratio(float(np.sum(w64 * y64)), float(np.sum(w64 * np.exp(m))))
    if objective == "reg:gamma":
        return _log_ratio(float(np.sum(w64 * y64 * np.exp(-m))), float(np.sum(w64)))
    if objective == "reg:tweedie":
        rho = float(np.float32(loss.tweedie_variance_power))
        return _log_ratio(float(np.sum(w64 * y64 * np.exp((1.0 - rho) * m))),
                          float(np.sum(w64 * np.exp((2.0 - rho) * m))))
    raise ValueError(f"no line search for objective {objective!r}")


def line_search_leaves(objective: str, loss: objectives.LossParams, nodes: dict, leaf, margin,
                       k: int, y, weight, active, eta32, max_delta_step: float) -> None:
    """First-order boosting: every leaf with rows gets its loss-minimising value."""
    for nid, rows in rows_by_leaf(leaf, active):
        w = np.ones(len(rows), dtype=np.float32) if weight is None else weight[rows]
        if not np.any(w > 0):
            continue
        v = line_search_value(objective, loss, margin[rows], y[rows], w, k)
        v = min(max(v, -MAX_STEP), MAX_STEP)
        if max_delta_step > 0.0:
            v = min(max(v, -max_delta_step), max_delta_step)
        _set_leaf(nodes, nid, v, eta32)
