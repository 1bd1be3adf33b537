"""Evaluation metrics: each objective's default metric as XGBoost 3.2 computes it.

A metric is the weighted mean of XGBoost's float32 row losses (EvalRow), summed in float64 in
fixed chunks of rows so the value does not depend on the thread count; rmse takes its root,
gamma-deviance twice it, ``quantile`` the mean over the alphas (``pinball_losses`` gives each
alpha's own), the ranking objectives their NDCG or MAP (``boost.ranking``). Training needs the
metric and the next round's gradients at the same margins: ``gradients_and_metric`` computes
both in one pass over the rows. The objectives themselves (gradients, links, base_score) are
``boost.objectives``'; this module reads them and is not read by it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ._dtypes import GRAD
from .layout import read_only
from .objectives import (
    _DEFAULT_LOSS,
    _F32_ONE,
    _F32_RT_EPS,
    _F32_TWO,
    _F32_ZERO,
    _LINK_EXP,
    _LINK_HALF_SIGMOID,
    _LINK_IDENTITY,
    _LINK_SIGMOID,
    _LINK_SOFTMAX,
    _LOGISTIC,
    _QUANTILE,
    _RANK,
    _SOFTMAX,
    _SQUARED,
    OBJECTIVES,
    LossParams,
    _alphas32,
    _grad_row,
    _inputs,
    _queries,
    _softmax_scale,
    gradients,
    sigmoid32,
)

_METRIC_CHUNK = 4096
_M_RMSE, _M_LOGLOSS, _M_MLOGLOSS, _M_MAE, _M_MPHE, _M_POISSON, _M_GAMMA_DEV, _M_TWEEDIE, \
    _M_EXP, _M_QUANTILE = range(10)
_METRIC_KIND = {"rmse": _M_RMSE, "logloss": _M_LOGLOSS, "mlogloss": _M_MLOGLOSS, "mae": _M_MAE,
                "mphe": _M_MPHE, "poisson-nloglik": _M_POISSON,
                "gamma-deviance": _M_GAMMA_DEV, "tweedie-nloglik": _M_TWEEDIE,
                "exponential": _M_EXP, "quantile": _M_QUANTILE}


_LINK_CODE = {"identity": _LINK_IDENTITY, "sigmoid": _LINK_SIGMOID, "exp": _LINK_EXP,
              "half_sigmoid": _LINK_HALF_SIGMOID, "softmax": _LINK_SOFTMAX}
_F32_METRIC_EPS = np.float32(1e-16)


@njit(cache=True, nogil=True, inline="always")
def _row_prediction(link, margin, i):
    """XGBoost's PredTransform of row i (one output), in float32."""
    m = margin[i, 0]
    if link == _LINK_SIGMOID:
        return sigmoid32(m)
    if link == _LINK_EXP:
        return math.exp(m)
    if link == _LINK_HALF_SIGMOID:
        return sigmoid32(_F32_TWO * m)
    return m


@njit(cache=True, nogil=True, inline="always")
def _true_class_probability(margin, i, label):
    """Softmax probability of the row's class, as ``_softmax_rows`` computes it."""
    wmax, wsum = _softmax_scale(margin, i)
    return math.exp(margin[i, label] - wmax) / wsum


@njit(cache=True, nogil=True, inline="always")
def _row_loss(kind, margin, i, yi, p, slope, rho):
    """XGBoost's metric row loss (EvalRow) of row i, float32; ``p`` is the row's prediction
    (``_row_prediction``; unused by mlogloss, which reads the margins)."""
    eps = _F32_METRIC_EPS
    one = _F32_ONE
    if kind == _M_MLOGLOSS:
        p = _true_class_probability(margin, i, np.int64(yi))
        loss = -math.log(max(p, eps))
    else:
        if kind == _M_RMSE:
            d = yi - p
            loss = d * d
        elif kind == _M_LOGLOSS:
            # XGBoost's xlogy: x log y is 0 when x = 0; logitraw's raw margin may
            # leave [0, 1], then the log's argument is floored at 1e-16.
            loss = np.float32(0.0)
            if yi != np.float32(0.0):
                loss = loss - yi * math.log(max(p, eps))
            if one - yi != np.float32(0.0):
                loss = loss - (one - yi) * math.log(max(one - p, eps))
        elif kind == _M_MAE:
            loss = abs(yi - p)
        elif kind == _M_MPHE:
            r = (yi - p) / slope
            loss = slope * slope * (math.sqrt(one + r * r) - one)
        elif kind == _M_POISSON:
            py = max(p, eps)
            loss = np.float32(math.lgamma(yi + one)) + py - math.log(py) * yi
        elif kind == _M_GAMMA_DEV:
            pp = p + _F32_RT_EPS
            yy = yi + _F32_RT_EPS
            loss = math.log(pp / yy) + yy / pp - one
        elif kind == _M_TWEEDIE:
            lp = math.log(p)
            loss = (-(yi * math.exp((one - rho) * lp) / (one - rho))
                    + math.exp((_F32_TWO - rho) * lp) / (_F32_TWO - rho))
        else:  # exponential: e^(-(2y-1) m)
            loss = math.exp(-(_F32_TWO * yi - one) * margin[i, 0])
    return loss


@njit(cache=True, nogil=True, parallel=True)
def _metric_sums(kind, link, margin, y, w, use_w, slope, rho):
    """(sum of w * loss_i, sum of w) in float64, summed in fixed chunks so the result does not
    depend on the thread count. Each row's loss is XGBoost's metric row loss (EvalRow), in
    float32 as XGBoost computes it, straight from the margin (no prediction array)."""
    n = y.shape[0]
    n_chunks = (n + _METRIC_CHUNK - 1) // _METRIC_CHUNK
    part = np.zeros((n_chunks, 2))
    for c in prange(n_chunks):
        a = c * _METRIC_CHUNK
        b = min(n, a + _METRIC_CHUNK)
        s_loss = np.float64(0.0)
        s_w = np.float64(0.0)
        for i in range(a, b):
            wi = w[i] if use_w else _F32_ONE
            p = _F32_ZERO if kind == _M_MLOGLOSS else _row_prediction(link, margin, i)
            loss = _row_loss(kind, margin, i, y[i], p, slope, rho)
            s_loss += np.float64(np.float32(loss) * wi)
            s_w += np.float64(wi)
        part[c, 0] = s_loss
        part[c, 1] = s_w
    return _chunk_totals(part)


@njit(cache=True, nogil=True, inline="always")
def _grad_metric_rows(kind, mkind, link, margin, y, w, use_w, spw, use_spw, slope, rho, mds, g,
                      h, a, b):
    s_loss = np.float64(0.0)
    s_w = np.float64(0.0)
    for i in range(a, b):
        wi = w[i] if use_w else _F32_ONE
        yi = y[i]
        p = _row_prediction(link, margin, i)
        loss = _row_loss(mkind, margin, i, yi, p, slope, rho)
        s_loss += np.float64(np.float32(loss) * wi)
        s_w += np.float64(wi)
        if use_spw and yi == _F32_ONE:
            wi = wi * spw
        gi, hi = _grad_row(kind, margin[i, 0], yi, slope, rho, mds, link, p)
        g[i, 0] = gi * wi
        h[i, 0] = hi * wi
    return s_loss, s_w


@njit(cache=True, nogil=True, parallel=True)
def _grad_and_metric_sums(kind, mkind, link, margin, y, w, use_w, spw, use_spw, slope, rho,
                          mds, g, h):
    """``_grad_elementwise`` and ``_metric_sums`` at the same margins in one pass: each row's
    prediction is computed once and serves both (bit-identical to the two kernels). The two
    most used objectives get loops of their own, with the other objectives' branches folded
    away (the row loop is inlined with constant codes)."""
    n = y.shape[0]
    n_chunks = (n + _METRIC_CHUNK - 1) // _METRIC_CHUNK
    part = np.zeros((n_chunks, 2))
    for c in prange(n_chunks):
        a = c * _METRIC_CHUNK
        part[c, 0], part[c, 1] = _grad_metric_chunk(kind, mkind, link, margin, y, w, use_w,
                                                     spw, use_spw, slope, rho, mds, g, h, a,
                                                     min(n, a + _METRIC_CHUNK))
    return _chunk_totals(part)


# Compiled on its own, not inlined into the parallel loop: numba's analysis of a parallel loop
# grows much faster than its body (three inlined copies of the row loop: 11 s a compile).
@njit(cache=True, nogil=True)
def _grad_metric_chunk(kind, mkind, link, margin, y, w, use_w, spw, use_spw, slope, rho, mds,
                       g, h, a, b):
    """``_grad_and_metric_sums`` over the rows a:b: (the metric's sum, its weight)."""
    if kind == _LOGISTIC and mkind == _M_LOGLOSS and link == _LINK_SIGMOID:
        return _grad_metric_rows(_LOGISTIC, _M_LOGLOSS, _LINK_SIGMOID, margin, y, w, use_w,
                                 spw, use_spw, slope, rho, mds, g, h, a, b)
    if kind == _SQUARED and mkind == _M_RMSE and link == _LINK_IDENTITY:
        return _grad_metric_rows(_SQUARED, _M_RMSE, _LINK_IDENTITY, margin, y, w, use_w, spw,
                                 use_spw, slope, rho, mds, g, h, a, b)
    return _grad_metric_rows(kind, mkind, link, margin, y, w, use_w, spw, use_spw, slope, rho,
                             mds, g, h, a, b)


@njit(cache=True, nogil=True)
def _chunk_totals(part):
    total = np.float64(0.0)
    total_w = np.float64(0.0)
    for c in range(part.shape[0]):
        total += part[c, 0]
        total_w += part[c, 1]
    return total, total_w


@njit(cache=True, nogil=True, parallel=True)
def _pinball_sums(margin, y, w, use_w, alphas):
    """Per output k: (sum of w * pinball loss at alphas[k], sum of w) in float64, in fixed
    chunks. XGBoost's row loss, in float32: d = y - m; alpha d where d >= 0, else
    (alpha - 1) d, written as alpha s d - (1 - alpha)(1 - s) d with s = [d >= 0]."""
    n, n_out = margin.shape
    n_chunks = (n + _METRIC_CHUNK - 1) // _METRIC_CHUNK
    part = np.zeros((n_chunks, n_out, 2))
    for c in prange(n_chunks):
        for i in range(c * _METRIC_CHUNK, min(n, (c + 1) * _METRIC_CHUNK)):
            wi = w[i] if use_w else _F32_ONE
            for k in range(n_out):
                a = alphas[k]
                d = y[i] - margin[i, k]
                s = _F32_ONE if d >= _F32_ZERO else _F32_ZERO
                loss = a * s * d - (_F32_ONE - a) * (_F32_ONE - s) * d
                part[c, k, 0] += np.float64(np.float32(loss) * wi)
                part[c, k, 1] += np.float64(wi)
    out = np.zeros((n_out, 2))
    for c in range(n_chunks):
        for k in range(n_out):
            out[k, 0] += part[c, k, 0]
            out[k, 1] += part[c, k, 1]
    return out


def pinball_losses(margin: np.ndarray, y: np.ndarray, weight: np.ndarray | None,
                   loss: LossParams) -> np.ndarray:
    """The weighted mean pinball loss of each output (one per quantile_alpha), float64:
    what XGBoost's ``quantile`` metric averages over the alphas."""
    margin, y, w, use_w = _inputs(margin, y, weight)
    sums = _pinball_sums(margin, y, w, use_w, _alphas32(loss))
    return sums[:, 0] / sums[:, 1]


def higher_is_better(metric_name: str) -> bool:
    """Whether a metric rises as the model improves, so early stopping keeps its largest
    value (XGBoost's callback: the metrics named ndcg…, map…, auc…, pre…)."""
    return metric_name.startswith(("ndcg", "map", "auc", "pre"))


def metric_name(objective: str, loss: LossParams = _DEFAULT_LOSS) -> str:
    """XGBoost's default evaluation metric for the objective, as it names it."""
    if OBJECTIVES[objective].kernel == _RANK:
        from .ranking import default_metric
        return default_metric(objective, loss.rank).name
    name = OBJECTIVES[objective].metric
    if name == "tweedie-nloglik":
        return f"{name}@{float(np.float32(loss.tweedie_variance_power)):g}"
    return name


def metric(objective: str, margin: np.ndarray, y: np.ndarray, weight: np.ndarray | None,
           loss: LossParams = _DEFAULT_LOSS, queries=None) -> float:
    """The objective's default evaluation metric (weighted mean of the row losses; root of
    it for rmse, twice it for gamma-deviance; a ranking objective's NDCG or MAP over the
    ``queries``), as XGBoost computes it."""
    o = OBJECTIVES[objective]
    if o.kernel == _RANK:
        from . import ranking
        return ranking.metric(ranking.default_metric(objective, loss.rank), read_only(margin),
                              read_only(y), _queries(queries, y))
    margin, y, w, use_w = _inputs(margin, y, weight)
    kind = _METRIC_KIND[o.metric]
    if kind == _M_QUANTILE:  # every (row, alpha) pair one term of the mean, as XGBoost
        sums = _pinball_sums(margin, y, w, use_w, _alphas32(loss))
        return float(sums[:, 0].sum() / sums[:, 1].sum())
    total, total_w = _metric_sums(kind, _LINK_CODE[o.link], margin, y, w, use_w,
                                  np.float32(loss.huber_slope),
                                  np.float32(loss.tweedie_variance_power))
    return _metric_value(kind, total, total_w)


def _metric_value(kind: int, total: float, total_w: float) -> float:
    if kind == _M_RMSE:
        return float(math.sqrt(total / total_w))
    if kind == _M_GAMMA_DEV:
        return float(2.0 * total / total_w)
    return float(total / total_w)


def gradients_and_metric(objective: str, margin: np.ndarray, y: np.ndarray,
                         weight: np.ndarray | None, loss: LossParams = _DEFAULT_LOSS, out=None,
                         queries=None, iteration: int = 0):
    """``(*gradients(...), metric(...))`` at the same margins, in one pass over the rows where
    the objective is elementwise (training needs both after every round). ``out``: a (g, h)
    pair of float32 arrays shaped like ``margin`` to write into (training reuses one pair:
    fresh arrays of a million rows cost page faults every round)."""
    o = OBJECTIVES[objective]
    if o.kernel == _RANK:
        return (*gradients(objective, margin, y, weight, loss, out, queries, iteration),
                metric(objective, margin, y, weight, loss, queries))
    if o.kernel in (_SOFTMAX, _QUANTILE):
        return (*gradients(objective, margin, y, weight, loss, out),
                metric(objective, margin, y, weight, loss))
    margin, y, w, use_w = _inputs(margin, y, weight)
    if out is None:
        out = np.empty(margin.shape, dtype=GRAD), np.empty(margin.shape, dtype=GRAD)
    g, h = out
    spw = np.float32(loss.scale_pos_weight)
    kind = _METRIC_KIND[o.metric]
    total, total_w = _grad_and_metric_sums(
        o.kernel, kind, _LINK_CODE[o.link], margin, y, w, use_w, spw,
        o.scale_pos_weight and spw != _F32_ONE, np.float32(loss.huber_slope),
        np.float32(loss.tweedie_variance_power), np.float32(loss.max_delta_step), g, h)
    return g, h, _metric_value(kind, total, total_w)
