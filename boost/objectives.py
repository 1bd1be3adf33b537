"""Objectives: gradients and hessians, the intercept (base_score), link and prediction.

Each objective XGBoost has is XGBoost 3.2's, in XGBoost's float32 arithmetic
(docs/xgboost-rules.md §5, §7). ``binary:exponential`` is BoostScope's own: AdaBoost
as boosting with the exponential loss (Friedman, Hastie & Tibshirani 2000). Margins have
shape ``(n_samples, n_groups)`` with ``n_groups = num_class`` for multi-class and 1
otherwise; gradients and hessians have the same shape.

A sample weight multiplies both g and h; so does ``scale_pos_weight`` for rows labelled 1
in the objectives where XGBoost applies it (``Objective.scale_pos_weight``). Each
objective's default evaluation metric (``Objective.metric``) is computed by ``boost.metrics``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from ._dtypes import GRAD, WEIGHT
from .layout import NO_WEIGHT, read_only

_F32_ONE = np.float32(1.0)
_F32_TWO = np.float32(2.0)
_F32_ZERO = np.float32(0.0)
_F32_EPS16 = np.float32(1e-16)
_F32_EXP_CAP = np.float32(88.7)
_F32_RT_EPS = np.float32(1e-6)
_F32_TINY = np.float32(np.finfo(np.float32).tiny)  # C++ numeric_limits<float>::min()

# Gradient kernels (``_grad_elementwise``'s ``kind``).
_SQUARED, _LOGISTIC, _PSEUDOHUBER, _POISSON, _GAMMA, _TWEEDIE, _ABSOLUTE, _EXPONENTIAL = range(8)
_SOFTMAX = 8
_RANK = 9  # LambdaMART (``boost.ranking``): a query's documents together, not row by row
_QUANTILE = 10  # its own kernel too: one output per quantile_alpha


@dataclass(frozen=True)
class LabelRule:
    """The labels an objective accepts, as ``data.as_labels`` checks them: numbers from
    ``low`` to ``high`` (``low_open``: ``low`` itself refused; ``whole``: whole numbers only;
    ``classes``: the classes 0..num_class-1), and what its message says of the others."""

    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    whole: bool = False
    classes: bool = False
    refused: str = ""  # what the refused labels are, "{top}" the highest class
    advice: str = ""  # what to do about them

    def refuses(self, y: np.ndarray, num_class: int) -> np.ndarray:
        """Which of the labels ``y`` (float64) this rule refuses."""
        high = num_class - 1 if self.classes else self.high
        bad = (y <= self.low if self.low_open else y < self.low) | (y > high)
        return bad | (y != np.round(y)) if self.whole or self.classes else bad

    def message(self, what: str, objective: str, accepts: str, bad: list, num_class: int
                ) -> str:
        refused = self.refused.format(top=num_class - 1)
        return (f"{what} has {refused} (e.g. {bad}), but {objective} needs {accepts}. "
                f"{self.advice}")


ANY_NUMBER = LabelRule()
_BINARY = LabelRule(low=0.0, high=1.0, refused="values outside [0, 1]",
                    advice="Recode the classes as 0 and 1, or use objective 'multi:softprob' "
                           "for more than two classes, or 'reg:squarederror' for a numeric "
                           "target.")
_CLASSES = LabelRule(low=0.0, classes=True, refused="labels that are not classes 0..{top}",
                     advice="Recode the classes (for example with pandas.factorize) or set "
                            "num_class.")
_NOT_NEGATIVE = LabelRule(low=0.0, refused="negative values",
                          advice="Use 'reg:squarederror' or 'reg:pseudohubererror' for a target "
                                 "that can be negative.")


@dataclass(frozen=True)
class Objective:
    """What the engine and the app need to know about one objective."""

    name: str
    task: str  # "regression", "binary", "multiclass" or "ranking"
    kernel: int
    link: str  # margin -> prediction: identity, sigmoid, exp, softmax, half_sigmoid
    metric: str  # XGBoost's default evaluation metric ("tweedie-nloglik" gets "@rho")
    const_hess: bool  # XGBoost's ObjInfo::const_hess (approx keeps its first sketch)
    labels: str  # which labels the objective accepts, for messages
    loss: str  # LaTeX: the loss l(y, m) of one row at margin m
    grad: str  # LaTeX: g = dl/dm
    hess: str  # LaTeX: h as XGBoost uses it
    scale_pos_weight: bool = False  # label-1 rows are weighted by scale_pos_weight
    adaptive_leaf: bool = False  # hist/approx replace leaf values by a quantile (MAE)
    per_alpha: bool = False  # one output (a tree per round) per quantile_alpha
    xgboost: bool = True  # False: BoostScope's own (no XGBoost oracle)
    label_rule: LabelRule = ANY_NUMBER  # the labels checked before training (``labels``)
    # Parameters whose default the objective sets itself when they are not given (XGBoost's
    # learner), as (name, value) pairs of ``params.PARAMETERS``.
    defaults: tuple = ()
    # XGBoost's model file: the object under ``learner.objective`` that holds the
    # objective's own parameters, and their names (parameters of ``params.PARAMETERS``).
    config: tuple = ("reg_loss_param", ("scale_pos_weight",))


_P = r"p = \sigma(m) = 1/(1 + e^{-m})"
# LambdaMART (boost.ranking): the pairs (i, j) of one query's documents with different
# labels; σ_ij = σ(m of the better-labelled − m of the other), |ΔZ_ij| what swapping the two
# changes in NDCG or MAP (1 for pairwise), divided by |m_i − m_j| + 0.01 (XGBoost's
# lambdarank_score_normalization). "DZ" is replaced by each objective's ΔZ.
_RANK_LOSS = (r"\sum_{(i, j):\, y_i > y_j} DZ\,\log\left(1 + e^{-(m_i - m_j)}\right)")
_RANK_GRAD = (r"\sum_{j:\, y_j \ne y_i} \operatorname{sign}(y_j - y_i)\,(1 - \sigma_{ij})\,DZ")
_RANK_HESS = r"\sum_{j:\, y_j \ne y_i} 2\,\sigma_{ij}(1 - \sigma_{ij})\,DZ"
_RANK_CONFIG = ("lambdarank_param", ("lambdarank_bias_norm", "lambdarank_normalization",
                                     "lambdarank_num_pair_per_sample", "lambdarank_pair_method",
                                     "lambdarank_score_normalization", "lambdarank_unbiased",
                                     "ndcg_exp_gain"))
OBJECTIVES: dict[str, Objective] = {o.name: o for o in (
    Objective("reg:squarederror", "regression", _SQUARED, "identity", "rmse", True,
              "any number", r"\tfrac12 (y - m)^2", r"m - y", r"1", scale_pos_weight=True),
    Objective("reg:pseudohubererror", "regression", _PSEUDOHUBER, "identity", "mphe", False,
              "any number",
              r"\delta^2\left(\sqrt{1 + ((m - y)/\delta)^2} - 1\right)",
              r"\frac{z}{\sqrt{1 + z^2/\delta^2}},\; z = m - y",
              r"\frac{\delta^2}{(\delta^2 + z^2)\sqrt{1 + z^2/\delta^2}}",
              config=("pseudo_huber_param", ("huber_slope",))),
    Objective("reg:absoluteerror", "regression", _ABSOLUTE, "identity", "mae", True,
              "any number", r"|y - m|", r"\operatorname{sign}(m - y)", r"1",
              adaptive_leaf=True, config=()),
    Objective("reg:quantileerror", "regression", _QUANTILE, "identity", "quantile", True,
              "any number",
              r"\rho_\alpha(y - m) = \max(\alpha (y - m),\; (\alpha - 1)(y - m))",
              r"1 - \alpha \text{ if } m \ge y, \text{ else } -\alpha", r"1",
              adaptive_leaf=True, per_alpha=True,
              config=("quantile_loss_param", ("quantile_alpha",))),
    Objective("count:poisson", "regression", _POISSON, "exp", "poisson-nloglik", False,
              "counts >= 0", r"e^{m} - y\,m", r"e^{m} - y",
              r"e^{m + \text{max\_delta\_step}}", label_rule=_NOT_NEGATIVE,
              defaults=(("max_delta_step", 0.7),),
              config=("poisson_regression_param", ("max_delta_step",))),
    Objective("reg:gamma", "regression", _GAMMA, "exp", "gamma-deviance", False,
              "positive numbers", r"y\,e^{-m} + m", r"1 - y\,e^{-m}", r"y\,e^{-m}",
              scale_pos_weight=True,
              label_rule=LabelRule(low=0.0, low_open=True, refused="values <= 0",
                                   advice="Use 'reg:tweedie' when the target has zeros, or "
                                          "'reg:squarederror' for any number.")),
    Objective("reg:tweedie", "regression", _TWEEDIE, "exp", "tweedie-nloglik", False,
              "numbers >= 0",
              r"-\frac{y\,e^{(1-\rho)m}}{1-\rho} + \frac{e^{(2-\rho)m}}{2-\rho}",
              r"-y\,e^{(1-\rho)m} + e^{(2-\rho)m}",
              r"-y(1-\rho)e^{(1-\rho)m} + (2-\rho)e^{(2-\rho)m}", label_rule=_NOT_NEGATIVE,
              config=("tweedie_regression_param", ("tweedie_variance_power",))),
    Objective("binary:logistic", "binary", _LOGISTIC, "sigmoid", "logloss", False,
              "0/1 (or probabilities)", r"-y\log p - (1-y)\log(1-p),\; " + _P, r"p - y",
              r"p(1 - p)", scale_pos_weight=True, label_rule=_BINARY),
    Objective("binary:logitraw", "binary", _LOGISTIC, "identity", "logloss", False,
              "0/1 (or probabilities)", r"-y\log p - (1-y)\log(1-p),\; " + _P, r"p - y",
              r"p(1 - p)", scale_pos_weight=True, label_rule=_BINARY),
    Objective("binary:exponential", "binary", _EXPONENTIAL, "half_sigmoid", "exponential",
              False, "0/1", r"e^{-\tilde y m},\; \tilde y = 2y - 1",
              r"-\tilde y\,e^{-\tilde y m}", r"e^{-\tilde y m}", scale_pos_weight=True,
              xgboost=False, config=(),
              label_rule=LabelRule(low=0.0, high=1.0, whole=True,
                                   refused="labels that are not exactly 0 or 1",
                                   advice="AdaBoost's loss takes two classes: recode them as 0 "
                                          "and 1.")),
    Objective("multi:softprob", "multiclass", _SOFTMAX, "softmax", "mlogloss", False,
              "classes 0..num_class-1", r"-\log p_{y},\; p_k = e^{m_k}/\sum_j e^{m_j}",
              r"p_k - [y = k]", r"2\,p_k(1 - p_k)", label_rule=_CLASSES,
              config=("softmax_multiclass_param", ("num_class",))),
    Objective("multi:softmax", "multiclass", _SOFTMAX, "softmax", "mlogloss", False,
              "classes 0..num_class-1", r"-\log p_{y},\; p_k = e^{m_k}/\sum_j e^{m_j}",
              r"p_k - [y = k]", r"2\,p_k(1 - p_k)", label_rule=_CLASSES,
              config=("softmax_multiclass_param", ("num_class",))),
    *(Objective(name, "ranking", _RANK, "identity", metric, False, labels,
                *((f.replace("DZ", dz) if dz else f.replace(r"DZ\,", "").replace(r"\,DZ", ""))
                  for f in (_RANK_LOSS, _RANK_GRAD, _RANK_HESS)),
                config=_RANK_CONFIG)
      for name, metric, labels, dz in (
          ("rank:ndcg", "ndcg", "relevance degrees 0, 1, 2, ... per query",
           r"|\Delta \mathrm{NDCG}_{ij}|"),
          ("rank:map", "map", "0/1 relevance per query", r"|\Delta \mathrm{MAP}_{ij}|"),
          ("rank:pairwise", "ndcg", "relevance per query (any numbers)", r""))),
)}


def spec(objective: str) -> Objective:
    return OBJECTIVES[objective]


@dataclass(frozen=True)
class LossParams:
    """The objective's own parameters (XGBoost names), float32 as XGBoost stores them."""

    scale_pos_weight: float = 1.0
    huber_slope: float = 1.0
    tweedie_variance_power: float = 1.5
    max_delta_step: float = 0.0  # count:poisson's hessian is e^(m + max_delta_step)
    quantile_alpha: tuple = (0.5,)  # reg:quantileerror's quantiles, one output each
    # The ranking objectives' (``boost.ranking.RankParams``; None: not ranking).
    rank: object = None


def leaf_alphas(objective: str, loss: LossParams) -> tuple:
    """The quantile each output's leaves are re-estimated at (XGBoost's UpdateTreeLeaf):
    quantile_alpha for reg:quantileerror, the median for reg:absoluteerror; as float32
    values widened to double, as XGBoost passes its float alphas to ``common::Quantile``."""
    alphas = loss.quantile_alpha if OBJECTIVES[objective].per_alpha else (0.5,)
    return tuple(float(np.float32(a)) for a in alphas)


_DEFAULT_LOSS = LossParams()


@njit(cache=True, nogil=True, inline="always")
def sigmoid32(x):
    """XGBoost's float32 sigmoid: 1 / (expf(min(-x, 88.7)) + 1 + 1e-16)."""
    z = -x
    if z > _F32_EXP_CAP:
        z = _F32_EXP_CAP
    denom = math.exp(z) + _F32_ONE + _F32_EPS16
    return _F32_ONE / denom


# Link codes of the kernels (``metrics._LINK_CODE``); _LINK_NONE: no prediction at hand.
_LINK_NONE, _LINK_IDENTITY, _LINK_SIGMOID, _LINK_EXP, _LINK_HALF_SIGMOID, _LINK_SOFTMAX = \
    range(-1, 5)


@njit(cache=True, nogil=True, inline="always")
def _grad_row(kind, m, yi, slope, rho, mds, link, pred):
    """(g, h) of one row at margin ``m`` before its weight. ``pred`` is the prediction at m
    when ``link`` is the objective's link (_LINK_SIGMOID, _LINK_EXP): the gradient reuses it
    (the same float32 function of m), else ``link`` is _LINK_NONE and it is computed here."""
    if kind == _SQUARED:
        gi = m - yi
        hi = _F32_ONE
    elif kind == _LOGISTIC:
        p = pred if link == _LINK_SIGMOID else sigmoid32(m)
        gi = p - yi
        hi = p * (_F32_ONE - p)
        if hi < _F32_EPS16:
            hi = _F32_EPS16
    elif kind == _PSEUDOHUBER:
        z = m - yi
        scale_sqrt = math.sqrt(_F32_ONE + z * z / (slope * slope))
        gi = z / scale_sqrt
        scale = slope * slope + z * z
        hi = slope * slope / (scale * scale_sqrt)
    elif kind == _POISSON:
        gi = (pred if link == _LINK_EXP else math.exp(m)) - yi
        hi = math.exp(m + mds)
    elif kind == _GAMMA:
        p = pred if link == _LINK_EXP else math.exp(m)
        gi = _F32_ONE - yi / p
        hi = yi / p
    elif kind == _TWEEDIE:
        a = _F32_ONE - rho
        b = _F32_TWO - rho
        gi = -yi * math.exp(a * m) + math.exp(b * m)
        hi = -yi * a * math.exp(a * m) + b * math.exp(b * m)
    elif kind == _ABSOLUTE:
        d = m - yi
        s = _F32_ZERO
        if d > _F32_ZERO:
            s = _F32_ONE
        elif d < _F32_ZERO:
            s = -_F32_ONE
        gi = s  # XGBoost: sign * w and w, the same as s * w and 1 * w
        hi = _F32_ONE
    else:  # _EXPONENTIAL
        t = _F32_TWO * yi - _F32_ONE
        z = -t * m
        if z > _F32_EXP_CAP:
            z = _F32_EXP_CAP
        e = math.exp(z)
        gi = -t * e
        hi = e
    return gi, hi


@njit(cache=True, nogil=True, parallel=True)
def _grad_elementwise(kind, margin, y, w, use_w, spw, use_spw, slope, rho, mds, g, h):
    for i in prange(y.shape[0]):
        wi = w[i] if use_w else _F32_ONE
        yi = y[i]
        if use_spw and yi == _F32_ONE:
            wi = wi * spw
        gi, hi = _grad_row(kind, margin[i, 0], yi, slope, rho, mds, _LINK_NONE, _F32_ZERO)
        g[i, 0] = gi * wi
        h[i, 0] = hi * wi


@njit(cache=True, nogil=True, parallel=True)
def _grad_quantile(margin, y, w, use_w, alphas, g, h):
    """reg:quantileerror, column k at quantile alphas[k]: g = (1 - alpha) w where m >= y, else
    -alpha w; h = w (XGBoost's: the pinball loss has no second derivative)."""
    for i in prange(y.shape[0]):
        wi = w[i] if use_w else _F32_ONE
        for k in range(margin.shape[1]):
            if margin[i, k] - y[i] >= _F32_ZERO:
                g[i, k] = (_F32_ONE - alphas[k]) * wi
            else:
                g[i, k] = -alphas[k] * wi
            h[i, k] = wi


@njit(cache=True, nogil=True, parallel=True)
def _grad_softprob(margin, y, w, use_w, g, h):
    n_class = margin.shape[1]
    for i in prange(y.shape[0]):
        # XGBoost seeds the max with FLT_MIN (the smallest positive float), not -inf.
        wmax = _F32_TINY
        for k in range(n_class):
            if margin[i, k] > wmax:
                wmax = margin[i, k]
        wsum = np.float64(0.0)
        for k in range(n_class):
            wsum += math.exp(margin[i, k] - wmax)
        wsum32 = np.float32(wsum)
        wi = w[i] if use_w else _F32_ONE
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


def _inputs(margin, y, weight):
    """What the kernels read, as read-only views whoever the caller (one compiled signature:
    ``layout.read_only``), the weights' stand-in when there are none, and whether there are."""
    use_w = weight is not None
    return read_only(margin), read_only(y), read_only(weight) if use_w else NO_WEIGHT, use_w


def _alphas32(loss: LossParams) -> np.ndarray:
    return np.array(loss.quantile_alpha, dtype=np.float32)


def _queries(queries, y):
    """The rows' query groups: one query of all rows when none are given, as XGBoost."""
    if queries is not None:
        return queries
    from .ranking import Queries
    return Queries(np.array([0, y.shape[0]], dtype=np.int64))


def gradients(objective: str, margin: np.ndarray, y: np.ndarray, weight: np.ndarray | None,
              loss: LossParams = _DEFAULT_LOSS, out=None, queries=None, iteration: int = 0):
    """Per-row float32 ``(g, h)``, each of shape ``margin.shape``, at the given margins
    (``out``: a pair to write into, as ``metrics.gradients_and_metric``'s). The ranking
    objectives take the rows' ``queries`` (``boost.ranking.Queries``, whose weights are the
    queries'; ``weight`` is then unused) and the round ``iteration`` (0-based), which seeds
    the ``mean`` pairs' draws."""
    o = OBJECTIVES[objective]
    margin, y, w, use_w = _inputs(margin, y, weight)
    if out is None:
        out = np.empty(margin.shape, dtype=GRAD), np.empty(margin.shape, dtype=GRAD)
    g, h = out
    if o.kernel == _RANK:
        from . import ranking  # it builds on this module's sigmoid
        return ranking.gradients(objective, margin, y, _queries(queries, y), loss.rank,
                                 iteration, out)
    if o.kernel == _SOFTMAX:
        _grad_softprob(margin, y, w, use_w, g, h)
    elif o.kernel == _QUANTILE:
        _grad_quantile(margin, y, w, use_w, _alphas32(loss), g, h)
    else:
        spw = np.float32(loss.scale_pos_weight)
        _grad_elementwise(o.kernel, margin, y, w, use_w, spw,
                          o.scale_pos_weight and spw != _F32_ONE,
                          np.float32(loss.huber_slope), np.float32(loss.tweedie_variance_power),
                          np.float32(loss.max_delta_step), g, h)
    return g, h


# ---------------------------------------------------------------------------- the intercept
@njit(cache=True, nogil=True)
def _logit32(p):
    # XGBoost's ProbToMargin for logistic: clamp to [1e-6, 1 - 1e-6], then -logf(1/p - 1).
    if p < _F32_RT_EPS:
        p = _F32_RT_EPS
    if p > _F32_ONE - _F32_RT_EPS:
        p = _F32_ONE - _F32_RT_EPS
    return -math.log(_F32_ONE / p - _F32_ONE)


@njit(cache=True, nogil=True)
def _log32(x):
    return math.log(x)


def _sample_mean(y: np.ndarray, weight: np.ndarray | None) -> np.float32:
    # XGBoost accumulates y_i / n (or y_i / sum_w * w_i) in double, row by row.
    # np.cumsum adds left to right, so its last element is the sequential sum.
    if weight is None:
        return np.float32(np.cumsum(y.astype(np.float64) / float(y.shape[0]))[-1])
    sum_w = float(np.cumsum(weight.astype(np.float64))[-1])
    terms = y.astype(np.float64) / sum_w * weight.astype(np.float64)
    return np.float32(np.cumsum(terms)[-1])


def quantile(values: np.ndarray, alpha: float, weight: np.ndarray | None = None) -> np.float32:
    """XGBoost's ``common::Quantile`` (NIST linear interpolation, float32 values) or, with
    weights, ``common::WeightedQuantile`` (step function over the float32 weight cdf)."""
    n = values.shape[0]
    if n == 0:
        return np.float32(np.nan)
    order = np.argsort(values, kind="stable")
    v = values[order]
    if weight is not None:
        cdf = np.cumsum(weight[order].astype(np.float32), dtype=np.float32)
        thresh = np.float32(float(cdf[-1]) * alpha)
        idx = min(int(np.searchsorted(cdf, thresh, side="left")), n - 1)
        return np.float32(v[idx])
    nf = float(n)
    if alpha <= 1.0 / (nf + 1.0):
        return np.float32(v[0])
    if alpha >= nf / (nf + 1.0):
        return np.float32(v[-1])
    x = alpha * (nf + 1.0)
    k = math.floor(x) - 1.0
    d = (x - 1.0) - k
    v0, v1 = v[int(k)], v[int(k) + 1]
    return np.float32(float(v0) + d * float(np.float32(v1 - v0)))


def _fit_stump(objective: str, y, weight, loss: LossParams) -> np.float32:
    """XGBoost's FitIntercept: one Newton step from margin 0, -sum g / max(sum h, 1e-6) in
    double (summed row by row), then the objective's prediction transform."""
    g, h = gradients(objective, np.zeros((y.shape[0], 1), dtype=np.float32), y, weight, loss)
    sum_g = float(np.cumsum(g[:, 0].astype(np.float64))[-1])
    sum_h = float(np.cumsum(h[:, 0].astype(np.float64))[-1])
    step = np.float32(-sum_g / max(sum_h, 1e-6))
    return transform(objective, np.array([[step]], dtype=np.float32))[0]


def base_score_estimate(objective: str, y, weight, num_class: int,
                        loss: LossParams = _DEFAULT_LOSS, queries=None) -> np.ndarray:
    """The intercept XGBoost 3.2 estimates when ``base_score`` is not set, in response space
    (probabilities for logistic; for multi-class the per-class log-frequency margins).
    Shape ``(n_groups,)``, float32."""
    o = OBJECTIVES[objective]
    if o.task == "multiclass":
        return _class_log_frequencies(y, weight, num_class)
    if o.kernel == _RANK:
        from . import ranking
        return np.array([ranking.intercept(objective, read_only(y), _queries(queries, y),
                                           loss.rank)], dtype=np.float32)
    if o.per_alpha:
        # XGBoost's InitEstimation: the (weighted) alpha-quantile of y, one per alpha.
        return np.array([quantile(y, a, weight) for a in leaf_alphas(objective, loss)],
                        dtype=np.float32)
    if objective == "reg:absoluteerror":
        # The (weighted) median, then XGBoost's "weighted average": * sum_w / sum_w in float.
        sum_w = float(y.shape[0]) if weight is None else float(
            np.cumsum(weight.astype(np.float64))[-1])
        q = quantile(y, 0.5, weight)
        return np.array([np.float32(float(np.float32(float(q) * sum_w)) / sum_w)],
                        dtype=np.float32)
    if objective == "binary:exponential":
        # The optimal constant of the exponential loss, 0.5 logit(weighted mean of y),
        # stored as that mean (the link is p = sigmoid(2m)).
        return np.array([_sample_mean(y, weight)], dtype=np.float32)
    spw_newton = o.scale_pos_weight and abs(np.float32(loss.scale_pos_weight) - 1.0) > 1e-6
    if objective == "reg:pseudohubererror" or spw_newton:
        return np.array([_fit_stump(objective, y, weight, loss)], dtype=np.float32)
    return np.array([_sample_mean(y, weight)], dtype=np.float32)


def _class_log_frequencies(y, weight, num_class):
    # Class frequencies p_k, then log(p_k + 1e-6) - mean_k log(...).
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


def check_base_score(objective: str, base_score: float) -> None:
    """Raise ValueError when a user-set base_score is outside the objective's response."""
    link = OBJECTIVES[objective].link
    if link in ("sigmoid", "half_sigmoid") and not 0.0 < base_score < 1.0:
        raise ValueError(
            f"Parameter 'base_score' = {base_score!r} is out of range: {objective} needs a "
            "probability strictly between 0 and 1 (0.5 means margin 0)."
        )
    if link == "exp" and not base_score > 0.0:
        raise ValueError(
            f"Parameter 'base_score' = {base_score!r} is out of range: {objective} predicts "
            "a positive mean (margin = log(base_score)), so base_score must be > 0."
        )


def base_margin(objective: str, base_score, num_class: int) -> np.ndarray:
    """Margin of the intercept, shape ``(n_groups,)`` float32 (link function applied)."""
    o = OBJECTIVES[objective]
    score = np.asarray(base_score, dtype=np.float32).reshape(-1)
    groups = num_class if o.task == "multiclass" else score.shape[0] if o.per_alpha else 1
    score = np.broadcast_to(score, (groups,))
    if o.link == "sigmoid":
        return np.array([_logit32(np.float32(score[0]))], dtype=WEIGHT)
    if o.link == "half_sigmoid":
        return np.array([np.float32(0.5) * _logit32(np.float32(score[0]))], dtype=WEIGHT)
    if o.link == "exp":
        return np.array([_log32(np.float32(score[0]))], dtype=WEIGHT)
    return np.array(score, dtype=WEIGHT)


# ---------------------------------------------------------------------------- predictions
def transform(objective: str, margin: np.ndarray) -> np.ndarray:
    """Predictions in response space (float32): identity, sigmoid, exp, or class
    probabilities (softmax) for both multi-class objectives."""
    link = OBJECTIVES[objective].link
    if link == "identity":  # one column per quantile_alpha for reg:quantileerror
        return margin[:, 0].copy() if margin.shape[1] == 1 else margin.copy()
    if link == "sigmoid":
        return _sigmoid_array(margin[:, 0], _F32_ONE)
    if link == "half_sigmoid":
        return _sigmoid_array(margin[:, 0], _F32_TWO)
    if link == "exp":
        return _exp_array(margin[:, 0])
    return _softmax_rows(margin)


def response(objective: str, margin: np.ndarray) -> np.ndarray:
    """What the app plots as the prediction: P(y = 1) for every binary objective (logitraw's
    margin through the sigmoid too), class probabilities, or the regression mean."""
    o = OBJECTIVES[objective]
    if o.task == "binary":
        scale = _F32_TWO if o.link == "half_sigmoid" else _F32_ONE
        return _sigmoid_array(margin[:, 0], scale)
    return transform(objective, margin)


def predict_transform(objective: str, margin: np.ndarray) -> np.ndarray:
    """What XGBoost's ``predict`` returns: ``transform`` except for ``multi:softmax``,
    which returns the class with the largest margin (the first on ties) as float32."""
    if objective == "multi:softmax":
        return np.argmax(margin, axis=1).astype(np.float32)
    return transform(objective, margin)


@njit(cache=True, nogil=True, parallel=True)
def _sigmoid_array(m, scale):
    out = np.empty(m.shape[0], dtype=np.float32)
    for i in prange(m.shape[0]):
        out[i] = sigmoid32(scale * m[i])
    return out


@njit(cache=True, nogil=True, parallel=True)
def _exp_array(m):
    out = np.empty(m.shape[0], dtype=np.float32)
    for i in prange(m.shape[0]):
        out[i] = math.exp(m[i])
    return out


@njit(cache=True, nogil=True, inline="always")
def _softmax_scale(margin, i):
    """(max, sum of exp(m - max)) of row i, float32: p_j = exp(m_j - max) / sum. As
    XGBoost's Softmax, the float32 exps are summed in double, then rounded once."""
    wmax = margin[i, 0]
    for j in range(1, margin.shape[1]):
        if margin[i, j] > wmax:
            wmax = margin[i, j]
    wsum = np.float64(0.0)
    for j in range(margin.shape[1]):
        wsum += math.exp(margin[i, j] - wmax)
    return wmax, np.float32(wsum)


@njit(cache=True, nogil=True, parallel=True)
def _softmax_rows(margin):
    n, k = margin.shape
    out = np.empty((n, k), dtype=np.float32)
    for i in prange(n):
        wmax, wsum = _softmax_scale(margin, i)
        for j in range(k):
            out[i, j] = math.exp(margin[i, j] - wmax) / wsum
    return out
