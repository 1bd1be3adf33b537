"""Objectives: gradients and hessians, the intercept (base_score), link and evaluation metric.

Each objective is XGBoost 3.2's, in XGBoost's float32 arithmetic (shared/XGBOOST_SEMANTICS.md
§5, §7). Margins have shape ``(n_samples, n_groups)`` with ``n_groups = num_class`` for
multi-class and 1 otherwise; gradients and hessians have the same shape.

=================  ======================  =======================================
objective          g                       h
=================  ======================  =======================================
reg:squarederror   m - y                   1
binary:logistic    p - y, p = sigmoid(m)   max(p(1 - p), 1e-16)
multi:softprob     p_k - [y = k]           max(2 p_k (1 - p_k), 1e-16)
=================  ======================  =======================================

A sample weight multiplies both g and h.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ._dtypes import GRAD, WEIGHT

_F32_ONE = np.float32(1.0)
_F32_TWO = np.float32(2.0)
_F32_EPS16 = np.float32(1e-16)
_F32_EXP_CAP = np.float32(88.7)
_F32_RT_EPS = np.float32(1e-6)
_F32_TINY = np.float32(np.finfo(np.float32).tiny)  # C++ numeric_limits<float>::min()

# XGBoost's ObjInfo::const_hess: approx keeps its first sketch for these.
CONSTANT_HESSIAN = {
    "reg:squarederror": True,
    "binary:logistic": False,
    "multi:softprob": False,
}

DEFAULT_METRIC = {
    "reg:squarederror": "rmse",
    "binary:logistic": "logloss",
    "multi:softprob": "mlogloss",
}


@njit(cache=True, inline="always")
def sigmoid32(x):
    """XGBoost's float32 sigmoid: 1 / (expf(min(-x, 88.7)) + 1 + 1e-16)."""
    z = -x
    if z > _F32_EXP_CAP:
        z = _F32_EXP_CAP
    denom = math.exp(z) + _F32_ONE + _F32_EPS16
    return _F32_ONE / denom


@njit(cache=True, parallel=True)
def _grad_squared(margin, y, w, g, h):
    for i in prange(y.shape[0]):
        wi = w[i]
        g[i, 0] = (margin[i, 0] - y[i]) * wi
        h[i, 0] = _F32_ONE * wi


@njit(cache=True, parallel=True)
def _grad_logistic(margin, y, w, g, h):
    for i in prange(y.shape[0]):
        wi = w[i]
        p = sigmoid32(margin[i, 0])
        g[i, 0] = (p - y[i]) * wi
        hh = p * (_F32_ONE - p)
        if hh < _F32_EPS16:
            hh = _F32_EPS16
        h[i, 0] = hh * wi


@njit(cache=True, parallel=True)
def _grad_softprob(margin, y, w, g, h):
    n_class = margin.shape[1]
    for i in prange(y.shape[0]):
        # XGBoost seeds the max with FLT_MIN (the smallest positive float), not -inf.
        wmax = _F32_TINY
        for k in range(n_class):
            if margin[i, k] > wmax:
                wmax = margin[i, k]
        wsum = 0.0
        for k in range(n_class):
            wsum += math.exp(margin[i, k] - wmax)
        wsum32 = np.float32(wsum)
        wi = w[i]
        label = y[i]
        for k in range(n_class):
            p = math.exp(margin[i, k] - wmax) / wsum32
            hh = _F32_TWO * p * (_F32_ONE - p) * wi
            if hh < _F32_EPS16:
                hh = _F32_EPS16
            if label == np.float32(k):
                p = p - _F32_ONE
            g[i, k] = p * wi
            h[i, k] = hh


_GRAD_KERNELS = {
    "reg:squarederror": _grad_squared,
    "binary:logistic": _grad_logistic,
    "multi:softprob": _grad_softprob,
}


def gradients(objective: str, margin: np.ndarray, y: np.ndarray, weight: np.ndarray | None):
    """Per-row float32 ``(g, h)``, each of shape ``margin.shape``, at the given margins."""
    n_samples = margin.shape[0]
    w = np.ones(n_samples, dtype=GRAD) if weight is None else weight
    g = np.empty(margin.shape, dtype=GRAD)
    h = np.empty(margin.shape, dtype=GRAD)
    _GRAD_KERNELS[objective](margin, y, w, g, h)
    return g, h


@njit(cache=True)
def _logit32(p):
    # XGBoost's ProbToMargin for logistic: clamp to [1e-6, 1 - 1e-6], then -logf(1/p - 1).
    if p < _F32_RT_EPS:
        p = _F32_RT_EPS
    if p > _F32_ONE - _F32_RT_EPS:
        p = _F32_ONE - _F32_RT_EPS
    return -math.log(_F32_ONE / p - _F32_ONE)


def _sample_mean(y: np.ndarray, weight: np.ndarray | None) -> np.float32:
    # XGBoost accumulates y_i / n (or y_i / sum_w * w_i) in double, row by row.
    # np.cumsum adds left to right, so its last element is the sequential sum.
    if weight is None:
        return np.float32(np.cumsum(y.astype(np.float64) / float(y.shape[0]))[-1])
    sum_w = float(np.cumsum(weight.astype(np.float64))[-1])
    terms = y.astype(np.float64) / sum_w * weight.astype(np.float64)
    return np.float32(np.cumsum(terms)[-1])


def base_score_estimate(objective: str, y, weight, num_class: int) -> np.ndarray:
    """The intercept XGBoost 3.2 estimates when ``base_score`` is not set, in response space
    (probabilities for logistic; for multi-class the per-class log-frequency margins).
    Shape ``(n_groups,)``, float32."""
    if objective in ("reg:squarederror", "binary:logistic"):
        return np.array([_sample_mean(y, weight)], dtype=np.float32)
    # multi:softprob: class frequencies p_k, then log(p_k + 1e-6) - mean_k log(...).
    bins = np.zeros(num_class, dtype=np.float32)
    labels = y.astype(np.int64)
    w = np.ones(y.shape[0], dtype=np.float32) if weight is None else weight
    for k, wk in zip(labels, w, strict=True):
        bins[k] += wk
    sum_w = float(y.shape[0]) if weight is None else float(np.cumsum(w.astype(np.float64))[-1])
    freq = (bins.astype(np.float64) * (1.0 / sum_w)).astype(np.float32)
    logs = np.log((freq + _F32_RT_EPS).astype(np.float64)).astype(np.float32)
    n = np.float32(num_class)
    mean = np.float32(0.0)
    for v in logs:
        mean = np.float32(mean + v / n)
    return (logs - mean).astype(np.float32)


def base_margin(objective: str, base_score, num_class: int) -> np.ndarray:
    """Margin of the intercept, shape ``(n_groups,)`` float32 (link function applied)."""
    groups = num_class if objective == "multi:softprob" else 1
    score = np.broadcast_to(np.asarray(base_score, dtype=np.float32), (groups,))
    if objective == "binary:logistic":
        return np.array([_logit32(np.float32(score[0]))], dtype=WEIGHT)
    return np.array(score, dtype=WEIGHT)


def transform(objective: str, margin: np.ndarray) -> np.ndarray:
    """Predictions from margins: identity, sigmoid, or softmax over classes (float32)."""
    if objective == "reg:squarederror":
        return margin[:, 0].copy()
    if objective == "binary:logistic":
        return _sigmoid_array(margin[:, 0])
    return _softmax_rows(margin)


@njit(cache=True, parallel=True)
def _sigmoid_array(m):
    out = np.empty(m.shape[0], dtype=np.float32)
    for i in prange(m.shape[0]):
        out[i] = sigmoid32(m[i])
    return out


@njit(cache=True, parallel=True)
def _softmax_rows(margin):
    n, k = margin.shape
    out = np.empty((n, k), dtype=np.float32)
    for i in prange(n):
        wmax = margin[i, 0]
        for j in range(1, k):
            if margin[i, j] > wmax:
                wmax = margin[i, j]
        wsum = np.float32(0.0)
        for j in range(k):
            out[i, j] = math.exp(margin[i, j] - wmax)
            wsum += out[i, j]
        for j in range(k):
            out[i, j] = out[i, j] / wsum
    return out


_METRIC_CHUNK = 4096


@njit(cache=True, parallel=True)
def _metric_sums(kind, pred, y, w, use_w):
    """(sum of w * loss_i, sum of w) in float64, summed in fixed chunks so the result does not
    depend on the thread count. kind 0 = squared error, 1 = logloss, 2 = mlogloss."""
    n = y.shape[0]
    n_chunks = (n + _METRIC_CHUNK - 1) // _METRIC_CHUNK
    part = np.zeros((n_chunks, 2))
    eps = 1e-16
    for c in prange(n_chunks):
        a = c * _METRIC_CHUNK
        b = min(n, a + _METRIC_CHUNK)
        s_loss = 0.0
        s_w = 0.0
        for i in range(a, b):
            wi = np.float64(w[i]) if use_w else 1.0
            yi = np.float64(y[i])
            if kind == 0:
                d = np.float64(pred[i, 0]) - yi
                loss = d * d
            elif kind == 1:
                p = min(max(np.float64(pred[i, 0]), eps), 1.0 - eps)
                if yi == 1.0:  # the other term is 0 * finite = 0
                    loss = -math.log(p)
                elif yi == 0.0:
                    loss = -math.log(1.0 - p)
                else:
                    loss = -(yi * math.log(p) + (1.0 - yi) * math.log(1.0 - p))
            else:
                loss = -math.log(max(np.float64(pred[i, np.int64(yi)]), eps))
            s_loss += wi * loss
            s_w += wi
        part[c, 0] = s_loss
        part[c, 1] = s_w
    total = 0.0
    total_w = 0.0
    for c in range(n_chunks):
        total += part[c, 0]
        total_w += part[c, 1]
    return total, total_w


_METRIC_KIND = {"reg:squarederror": 0, "binary:logistic": 1, "multi:softprob": 2}


def metric(objective: str, margin: np.ndarray, y: np.ndarray, weight: np.ndarray | None) -> float:
    """XGBoost's default evaluation metric for the objective (rmse, logloss, mlogloss)."""
    pred = transform(objective, margin)
    if pred.ndim == 1:
        pred = pred[:, None]
    use_w = weight is not None
    w = weight if use_w else np.ones(1, dtype=np.float32)
    total, total_w = _metric_sums(_METRIC_KIND[objective], pred, y, w, use_w)
    if objective == "reg:squarederror":
        return float(math.sqrt(total / total_w))
    return float(total / total_w)
