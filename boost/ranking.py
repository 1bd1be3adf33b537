"""Learning to rank: query groups, LambdaMART's pair gradients and the ranking metrics, as
XGBoost 3.2 computes them (``rank:ndcg``, ``rank:map``, ``rank:pairwise``; ``ndcg@k``,
``map@k``; docs/xgboost-rules.md §13).

Rows belong to queries (``qid``, sorted, as ``xgb.DMatrix(..., qid=)`` takes it); a
query's documents are ranked by their margins, and the gradient of a document is a sum over
the pairs it is in (Burges 2010, "From RankNet to LambdaRank to LambdaMART"): for a pair
with labels y_i > y_j and margins s_i, s_j,

    λ_ij = (σ(s_i − s_j) − 1)·|ΔZ_ij|,   h_ij = 2·max(σ(1 − σ), 1e−16)·|ΔZ_ij|

where ΔZ is what swapping the two documents changes in NDCG (``rank:ndcg``), in MAP
(``rank:map``) or 1 (``rank:pairwise``), divided by |s_i − s_j| + 0.01 when
``lambdarank_score_normalization`` (unless every document of the query has the same
margin). The document ranked higher by its label gets +λ_ij, the other −λ_ij; both get
h_ij. Which pairs: ``topk`` pairs each of the top ``lambdarank_num_pair_per_sample``
documents (by margin) with every document below it; ``mean`` draws that many partners per
document, from the documents of other labels, with C++'s ``minstd_rand`` seeded per round
and query (reproduced here with libstdc++'s ``uniform_int_distribution``). A query's
gradients are then normalised (``lambdarank_normalization``) and multiplied by the query's
weight times n_queries / Σ weights (each factor rounded to float32).

Each query is independent, so the kernels run the queries in parallel and the result does
not depend on the thread count.
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ._dtypes import GRAD
from .layout import read_only
from .metrics import higher_is_better
from .objectives import sigmoid32

# What the parameters say (``RankParams``).
TOPK, MEAN = 0, 1
PAIR_METHODS = ("topk", "mean")
NOT_SET = 2**32 - 1  # XGBoost's position_t max: no truncation (the whole list)
DEFAULT_K = 32  # topk's pairs per document (and the metrics' k) when not set
DEFAULT_MEAN_PAIRS = 1  # mean's pairs per document when not set
MAX_REL = 31  # the largest label 2^rel - 1 takes

# Objective kernels (``_lambdas``' ``kind``).
_NDCG, _MAP, _PAIRWISE = 0, 1, 2
KIND = {"rank:ndcg": _NDCG, "rank:map": _MAP, "rank:pairwise": _PAIRWISE}

_EPS64 = 1e-16
_RT_EPS = 1e-6  # XGBoost's kRtEps (labels' tests)
_MINSTD_M = 2147483647
_MINSTD_A = 48271


class Queries(NamedTuple):
    """The query groups of a set of rows: ``group_ptr`` (n_queries + 1,) int64, the rows
    of query q are ``group_ptr[q]:group_ptr[q + 1]``; ``weight`` (n_queries,) float32, one
    weight per query as XGBoost takes them with ``qid``, or None."""

    group_ptr: np.ndarray
    weight: np.ndarray | None = None

    @property
    def n_queries(self) -> int:
        return self.group_ptr.shape[0] - 1

    def row_weights(self) -> np.ndarray | None:
        """The per-row weights XGBoost's quantile sketch reads (hist, and approx's
        hessian x weight): ``detail::UnrollGroupWeights``, which moves a row to the next
        query's weight only after that query's first row, so the first row of every query
        but the first carries the weight of the query before it. With one row per query
        the query weights are the row weights as they are."""
        if self.weight is None:
            return None
        gp = self.group_ptr
        n = int(gp[-1])
        if self.n_queries == n:
            return self.weight
        # row i carries the weight of the queries whose start lies before it: its own,
        # except at a query's first row, which still carries the query before
        return self.weight[np.searchsorted(gp[1:], np.arange(n), side="left")]

    def take(self, queries: np.ndarray) -> tuple[np.ndarray, Queries]:
        """(rows, their Queries): the rows of ``queries`` (query numbers, in that order), as
        ``xgboost.cv`` slices a fold."""
        gp = self.group_ptr
        sizes = np.diff(gp)[queries]
        rows = (np.concatenate([np.arange(gp[q], gp[q + 1]) for q in queries])
                if len(queries) else np.zeros(0, dtype=np.int64))
        ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        w = None if self.weight is None else np.ascontiguousarray(self.weight[queries])
        return rows, Queries(ptr, w)


@dataclass(frozen=True)
class RankParams:
    """XGBoost's LambdaRankParam as the objective uses it (``num_pair``: resolved from
    ``lambdarank_num_pair_per_sample``, None meaning XGBoost's default for the method)."""

    pair_method: str = "topk"
    num_pair_per_sample: int | None = None
    ndcg_exp_gain: bool = True
    normalization: bool = True
    score_normalization: bool = True
    eval_metric: str | None = None  # the metric asked for (``parse_metric``), else the default

    @property
    def num_pair(self) -> int:
        if self.num_pair_per_sample is not None:
            return int(self.num_pair_per_sample)
        return DEFAULT_K if self.pair_method == "topk" else DEFAULT_MEAN_PAIRS

    @property
    def topk(self) -> int:
        """How far down a list the objective's NDCG looks: the pairs' k for topk, else the
        whole list."""
        return self.num_pair if self.pair_method == "topk" else NOT_SET


# ------------------------------------------------------------------ query groups
def queries_of(qid, n_samples: int, weight=None, what: str = "qid",
               weight_what: str = "sample_weight") -> Queries:
    """``qid`` (one query id per row, sorted, as XGBoost requires) and the optional weights
    (one per query) as :class:`Queries`; ``qid=None``: all rows are one query."""
    if qid is None:
        ptr = np.array([0, n_samples], dtype=np.int64)
    else:
        arr = np.asarray(qid.to_numpy() if hasattr(qid, "to_numpy") else qid)
        if arr.ndim != 1 or arr.shape[0] != n_samples:
            raise ValueError(f"{what} must have one query id per row: got {arr.shape} for "
                             f"{n_samples} rows.")
        if arr.dtype.kind not in "iuf" or (arr.dtype.kind == "f" and (
                not np.isfinite(arr).all() or (arr != np.round(arr)).any())):
            raise ValueError(f"{what} must be whole numbers (one query id per row); encode the "
                             "query column as integers (for example with pandas.factorize).")
        arr = arr.astype(np.int64)
        if n_samples and (np.diff(arr) < 0).any():
            raise ValueError(f"{what} must be sorted in non-decreasing order along with the data "
                             "(as XGBoost requires): sort the rows by query id first, e.g. "
                             "df.sort_values(qid_column, kind='stable').")
        starts = np.flatnonzero(np.diff(arr)) + 1
        ptr = np.concatenate([[0], starts, [n_samples]]).astype(np.int64)
    if weight is None:
        return Queries(ptr)
    w = np.asarray(weight, dtype=np.float64).reshape(-1)
    n_q = ptr.shape[0] - 1
    if w.shape[0] != n_q:
        raise ValueError(f"{weight_what} has {w.shape[0]} value(s), but a ranking objective takes "
                         f"one weight per query and there are {n_q} queries (as XGBoost: with "
                         "qid, weights are per query, not per row).")
    if not np.isfinite(w).all() or (w < 0).any() or not (w > 0).any():
        raise ValueError(f"{weight_what}: the query weights must be finite, >= 0 and not all "
                         "zero.")
    return Queries(ptr, w.astype(np.float32))


def check_labels(objective: str, y: np.ndarray, rp: RankParams, what: str = "y",
                 metric: str | None = None) -> None:
    """XGBoost's label checks: NDCG with the exponential gain takes relevance degrees 0..31
    (whole numbers), MAP takes 0/1 labels; ``metric``: a metric's own check."""
    needs_ndcg = objective == "rank:ndcg" if metric is None else metric.startswith("ndcg")
    needs_map = objective == "rank:map" if metric is None else metric.startswith("map")
    name = metric or objective
    if needs_ndcg and rp.ndcg_exp_gain:
        bad = (np.abs(np.floor(y) - y) > _RT_EPS) | (y < 0)
        if bad.any():
            raise ValueError(f"{what} has labels that are not relevance degrees (e.g. "
                             f"{np.unique(y[bad])[:5].tolist()}), but {name} with "
                             "ndcg_exp_gain (gain 2^y − 1) needs whole numbers >= 0. Recode "
                             "the labels, or set ndcg_exp_gain to false (gain y).")
        if (y.astype(np.uint32) > MAX_REL).any():
            raise ValueError(f"{what} has relevance degrees above {MAX_REL}, the largest "
                             f"2^y − 1 can take with ndcg_exp_gain; set ndcg_exp_gain to "
                             "false to use the label itself as the gain.")
    if needs_map:
        binary = (np.abs(y - 1.0) < _RT_EPS) | (np.abs(y) < _RT_EPS)
        if not binary.all():
            raise ValueError(f"{what} has labels other than 0 and 1 (e.g. "
                             f"{np.unique(y[~binary])[:5].tolist()}), but {name} can only be "
                             "used with binary labels (relevant or not). Use rank:ndcg for "
                             "graded relevance.")


# ------------------------------------------------------------------ shared kernels
@njit(cache=True, nogil=True)
def _rank_desc(pred):
    """Stable argsort, largest first (XGBoost's ArgSort with std::greater: ties keep their
    order in the list)."""
    neg = np.empty(pred.shape[0], dtype=np.float64)
    for i in range(pred.shape[0]):
        neg[i] = -np.float64(pred[i])
    return np.argsort(neg, kind="mergesort")


@njit(cache=True, nogil=True, inline="always")
def _gain(label, exp_gain):
    if exp_gain:
        return np.float64((np.int64(1) << np.int64(np.uint32(label))) - 1)
    return np.float64(label)


@njit(cache=True, nogil=True)
def _discounts(n):
    out = np.empty(max(n, 1), dtype=np.float64)
    for i in range(out.shape[0]):
        out[i] = 1.0 / math.log2(np.float64(i) + 2.0)
    return out


@njit(cache=True, nogil=True, parallel=True)
def _inv_idcg(y, group_ptr, topk, exp_gain, discount):
    """1 / IDCG@topk of each query (0 where the IDCG is 0: no relevant document)."""
    n_groups = group_ptr.shape[0] - 1
    out = np.empty(n_groups, dtype=np.float64)
    for q in prange(n_groups):
        a, b = group_ptr[q], group_ptr[q + 1]
        order = _rank_desc(y[a:b])
        idcg = 0.0
        for i in range(min(b - a, topk)):
            idcg += discount[i] * _gain(y[a + order[i]], exp_gain)
        out[q] = 0.0 if idcg == 0.0 else 1.0 / idcg
    return out


# ------------------------------------------------------------------ minstd_rand
@njit(cache=True, nogil=True, inline="always")
def _minstd(state):
    return (state * _MINSTD_A) % _MINSTD_M


@njit(cache=True, nogil=True, inline="always")
def _uniform_int(state, high):
    """libstdc++'s uniform_int_distribution(0, high) on minstd_rand (range 1..2^31 − 2):
    draw until below the largest multiple of (high + 1), then divide. (new state, value)"""
    urng_range = _MINSTD_M - 2
    if high == urng_range:
        state = _minstd(state)
        return state, state - 1
    erange = high + 1
    scaling = urng_range // erange
    past = erange * scaling
    state = _minstd(state)
    ret = state - 1
    while ret >= past:
        state = _minstd(state)
        ret = state - 1
    return state, ret // scaling


# ------------------------------------------------------------------ the objective
@njit(cache=True, nogil=True, inline="always")
def _delta(kind, y_high, y_low, rank_high, rank_low, inv_idcg, discount, exp_gain, n_rel,
           acc):
    """|ΔZ| of swapping two documents at model ranks ``rank_high`` (the better label) and
    ``rank_low``: ΔNDCG, ΔMAP (Burges 2010; XGBoost's DeltaNDCG, DeltaMAP) or 1."""
    if kind == _NDCG:
        gh = _gain(y_high, exp_gain)
        gl = _gain(y_low, exp_gain)
        dh = discount[rank_high]
        dl = discount[rank_low]
        original = gh * dh + gl * dl
        changed = gl * dh + gh * dl
        return abs((original - changed) * inv_idcg)
    if kind == _MAP:
        if rank_high > rank_low:
            rank_high, rank_low = rank_low, rank_high
            y_high, y_low = y_low, y_high
        r_h = np.float64(rank_high) + 1.0
        r_l = np.float64(rank_low) + 1.0
        n_total = n_rel[n_rel.shape[0] - 1]
        m = n_rel[rank_low]
        n = n_rel[rank_high]
        b = acc[rank_low - 1] - acc[rank_high]
        if y_high < y_low:
            d = (m / r_l - (n + 1.0) / r_h - b) / n_total
        else:
            d = (n / r_h - m / r_l + b) / n_total
        return abs(d)
    return 1.0


@njit(cache=True, nogil=True, inline="always")
def _pair(kind, i, j, pred, y, rank, inv_idcg, discount, exp_gain, n_rel, acc, score_norm,
          g, h):
    """Add the λ-gradient of the pair at model ranks i, j to g and h (nothing when their
    labels are equal); returns −2·λ of the higher document, for the normalisation."""
    rank_high, rank_low = i, j
    if y[rank[i]] == y[rank[j]]:
        return 0.0
    if y[rank[i]] < y[rank[j]]:
        rank_high, rank_low = j, i
    idx_high = rank[rank_high]
    idx_low = rank[rank_low]
    best = pred[rank[0]]
    worst = pred[rank[rank.shape[0] - 1]]
    s_high = pred[idx_high]
    s_low = pred[idx_low]
    delta_score = np.float64(abs(s_high - s_low))
    sig = np.float64(sigmoid32(s_high - s_low))
    delta_metric = _delta(kind, y[idx_high], y[idx_low], rank_high, rank_low, inv_idcg,
                          discount, exp_gain, n_rel, acc)
    if score_norm and best != worst:
        delta_metric /= delta_score + 0.01
    lam = np.float32((sig - 1.0) * delta_metric)
    hess = np.float32(max(sig * (1.0 - sig), _EPS64) * delta_metric * 2.0)
    g[idx_high] += lam
    h[idx_high] += hess
    g[idx_low] += -lam
    h[idx_low] += hess
    return -2.0 * np.float64(lam)


@njit(cache=True, nogil=True)
def _query_lambdas(kind, pred, y, w, w_norm, q, n_groups, iteration, mean, num_pair,
                   exp_gain, normalization, score_norm, inv_idcg, discount, g, h):
    """One query's g and h (``g``, ``h``: its rows, zeroed here)."""
    cnt = pred.shape[0]
    for i in range(cnt):
        g[i] = np.float32(0.0)
        h[i] = np.float32(0.0)
    if cnt == 0:
        return
    rank = _rank_desc(pred)
    n_rel = np.zeros(1)
    acc = np.zeros(1)
    if kind == _MAP:  # relevant documents and Σ y_k / k down the model's list
        n_rel = np.empty(cnt)
        acc = np.empty(cnt)
        n_rel[0] = np.float64(y[rank[0]])
        acc[0] = np.float64(y[rank[0]]) / 1.0
        for k in range(1, cnt):
            n_rel[k] = n_rel[k - 1] + np.float64(y[rank[k]])
            acc[k] = acc[k - 1] + np.float64(y[rank[k]]) / np.float64(k + 1)
    sum_lambda = 0.0
    if not mean:
        for i in range(min(cnt, num_pair)):
            for j in range(i + 1, cnt):
                sum_lambda += _pair(kind, i, j, pred, y, rank, inv_idcg, discount, exp_gain,
                                    n_rel, acc, score_norm, g, h)
    else:
        seed = ((iteration + 1) * n_groups + q) & 0xFFFFFFFF
        state = seed % _MINSTD_M
        if state == 0:
            state = 1
        # the model's list reordered by label, best first (ties keep the model's order)
        ranked_y = np.empty(cnt, dtype=np.float32)
        for k in range(cnt):
            ranked_y[k] = y[rank[k]]
        by_label = _rank_desc(ranked_y)
        i = 0
        while i < cnt:
            j = i + 1
            while j < cnt and ranked_y[by_label[i]] == ranked_y[by_label[j]]:
                j += 1
            n_lefts = i
            n_rights = cnt - j
            if n_lefts + n_rights > 0:
                for _ in range(num_pair):
                    for pair_idx in range(i, j):
                        state, r = _uniform_int(state, n_lefts + n_rights - 1)
                        if r >= n_lefts:
                            r = r - i + j
                        sum_lambda += _pair(kind, by_label[pair_idx], by_label[r], pred, y,
                                            rank, inv_idcg, discount, exp_gain, n_rel, acc,
                                            score_norm, g, h)
            i = j
    if normalization:
        norm = 1.0
        if mean:
            norm = 1.0 / np.float64(num_pair)
        elif sum_lambda > 0.0:
            norm = math.log2(1.0 + sum_lambda) / sum_lambda
        if norm != 1.0:  # (GradientPair's operator* takes a float)
            norm32 = np.float32(norm)
            for k in range(cnt):
                g[k] = g[k] * norm32
                h[k] = h[k] * norm32
    w_norm32 = np.float32(w_norm)
    for k in range(cnt):
        g[k] = g[k] * w * w_norm32
        h[k] = h[k] * w * w_norm32


@njit(cache=True, nogil=True, parallel=True)
def _lambdas(kind, margin, y, group_ptr, weight, use_w, w_norm, iteration, mean, num_pair,
             exp_gain, normalization, score_norm, inv_idcg, discount, g, h):
    n_groups = group_ptr.shape[0] - 1
    for q in prange(n_groups):
        a, b = group_ptr[q], group_ptr[q + 1]
        wq = weight[q] if use_w else np.float32(1.0)
        _query_lambdas(kind, margin[a:b, 0], y[a:b], wq, w_norm, q, n_groups, iteration,
                       mean, num_pair, exp_gain, normalization, score_norm,
                       inv_idcg[q] if kind == _NDCG else 0.0, discount, g[a:b, 0], h[a:b, 0])


def _weight_norm(queries: Queries) -> float:
    """n_queries / Σ query weights (summed in double, query by query; 1 without weights)."""
    if queries.weight is None:
        return 1.0
    return queries.n_queries / float(np.cumsum(queries.weight.astype(np.float64))[-1])


def _group_sizes_max(queries: Queries) -> int:
    return int(np.diff(queries.group_ptr).max()) if queries.n_queries else 0


class _ObjectiveCache:
    """What XGBoost's NDCG cache holds for one set of rows (1/IDCG per query, the
    discounts), computed once per (labels, queries, parameters). Shared by the threads of a
    sweep (its folds are different rows): a few entries under a lock; each entry keeps its
    labels and queries alive, so the ids in its key cannot be reused."""

    _SIZE = 16

    def __init__(self):
        self._entries = {}
        self._lock = threading.Lock()

    def get(self, y, queries, rp):
        key = (id(y), id(queries.group_ptr), rp.topk, rp.ndcg_exp_gain)
        with self._lock:
            entry = self._entries.get(key)
        if entry is None:
            discount = _discounts(_group_sizes_max(queries))
            inv = _inv_idcg(y, queries.group_ptr, np.int64(min(rp.topk, 2**62)),
                            rp.ndcg_exp_gain, discount)
            entry = (inv, discount, y, queries.group_ptr)
            with self._lock:
                if len(self._entries) >= self._SIZE:
                    self._entries.pop(next(iter(self._entries)))
                self._entries[key] = entry
        return entry[:2]


_CACHE = _ObjectiveCache()


def gradients(objective: str, margin: np.ndarray, y: np.ndarray, queries: Queries,
              rp: RankParams, iteration: int, out) -> tuple[np.ndarray, np.ndarray]:
    """LambdaMART's per-document (g, h), float32 of shape ``margin.shape`` (n, 1), at the
    margins of round ``iteration`` (0-based: the round whose tree they grow)."""
    kind = KIND[objective]
    g, h = out
    if kind == _NDCG:
        inv_idcg, discount = _CACHE.get(y, queries, rp)
    else:
        inv_idcg, discount = np.zeros(1), _discounts(1)
    use_w = queries.weight is not None
    w = queries.weight if use_w else np.ones(1, dtype=np.float32)
    _lambdas(kind, margin, y, queries.group_ptr, w, use_w, _weight_norm(queries),
             np.int64(iteration), rp.pair_method == "mean", np.int64(rp.num_pair),
             rp.ndcg_exp_gain, rp.normalization, rp.score_normalization, inv_idcg, discount,
             g, h)
    return g, h


def intercept(objective: str, y: np.ndarray, queries: Queries, rp: RankParams) -> np.float32:
    """XGBoost's FitIntercept for the ranking objectives: one Newton step from margin 0,
    −Σg / max(Σh, 1e−6), the sums in double row by row. (Every pair adds +λ and −λ, so the
    step is a rounding error's size: the intercept is ~0.)"""
    n = y.shape[0]
    out = np.empty((n, 1), dtype=GRAD), np.empty((n, 1), dtype=GRAD)
    g, h = gradients(objective, read_only(np.zeros((n, 1), dtype=np.float32)), y, queries, rp,
                     0, out)
    sum_g = float(np.cumsum(g[:, 0].astype(np.float64))[-1])
    sum_h = float(np.cumsum(h[:, 0].astype(np.float64))[-1])
    return np.float32(-sum_g / max(sum_h, 1e-6))


# ------------------------------------------------------------------ metrics
_METRIC = re.compile(r"^(ndcg|map)(?:@(\d+))?(-)?$")


@dataclass(frozen=True)
class RankMetric:
    """A ranking metric: ``ndcg`` or ``map`` down to position ``topk`` (``NOT_SET``: the
    whole list); ``minus``: a query with nothing relevant scores 0 instead of 1."""

    name: str  # as XGBoost names it: ndcg@32, map, ndcg@5-
    kind: str  # "ndcg" or "map"
    topk: int
    minus: bool
    exp_gain: bool = True


def parse_metric(name: str, exp_gain: bool = True) -> RankMetric:
    """A metric named as XGBoost's ``eval_metric`` (``ndcg``, ``ndcg@5``, ``map@10``,
    ``ndcg-``...). Without ``@k`` XGBoost's own metric looks down to position 32 (its
    LambdaRankParam's default k); the objectives' default metrics say their k."""
    m = _METRIC.match(name or "")
    if m is None:
        raise ValueError(f"Unknown ranking metric {name!r}: use ndcg, map, ndcg@k or map@k "
                         "(k a whole number >= 1), optionally ending in '-'.")
    kind, k, minus = m.group(1), m.group(2), bool(m.group(3))
    topk = DEFAULT_K if k is None else int(k)
    if topk < 1:
        raise ValueError(f"Metric {name!r}: k must be >= 1.")
    return RankMetric(name, kind, topk, minus, exp_gain)


def default_metric(objective: str, rp: RankParams) -> RankMetric:
    """The metric the evaluation sets are scored with: ``eval_metric`` when given, else the
    objective's default as XGBoost 3.2 sets it: ndcg (map for rank:map) at the pairs' k for
    topk (``ndcg@32``), without k for mean; rank:ndcg and rank:pairwise hand their own
    parameters to the metric (so mean's ``ndcg`` covers the whole list), rank:map does not
    (its ``map`` stops at 32, as a ``map`` asked for by name)."""
    if rp.eval_metric is not None:
        return parse_metric(rp.eval_metric, rp.ndcg_exp_gain)
    kind = "map" if objective == "rank:map" else "ndcg"
    if rp.pair_method == "topk":
        return RankMetric(f"{kind}@{rp.num_pair}", kind, rp.num_pair, False, rp.ndcg_exp_gain)
    topk = DEFAULT_K if kind == "map" else rp.topk
    return RankMetric(kind, kind, topk, False, rp.ndcg_exp_gain)


@njit(cache=True, nogil=True, parallel=True)
def _ndcg_per_query(margin, y, group_ptr, topk, exp_gain, minus, inv_idcg, discount, weight,
                    use_w):
    """Each query's NDCG@topk times its weight, except that a query with nothing relevant
    scores 1 (0 with ``minus``) unweighted, as XGBoost's EvalNDCG."""
    n_groups = group_ptr.shape[0] - 1
    out = np.empty(n_groups, dtype=np.float64)
    for q in prange(n_groups):
        a, b = group_ptr[q], group_ptr[q + 1]
        if inv_idcg[q] <= 0.0:
            out[q] = 0.0 if minus else 1.0
            continue
        order = _rank_desc(margin[a:b, 0])
        s = 0.0
        for i in range(min(b - a, topk)):
            s += discount[i] * _gain(y[a + order[i]], exp_gain) * inv_idcg[q]
        out[q] = s * np.float64(weight[q]) if use_w else s
    return out


@njit(cache=True, nogil=True, parallel=True)
def _map_per_query(margin, y, group_ptr, topk, minus):
    """Each query's average precision down to topk (1, or 0 with ``minus``, when nothing is
    relevant), as XGBoost's EvalMAPScore."""
    n_groups = group_ptr.shape[0] - 1
    out = np.empty(n_groups, dtype=np.float64)
    for q in prange(n_groups):
        a, b = group_ptr[q], group_ptr[q + 1]
        order = _rank_desc(margin[a:b, 0])
        n = min(b - a, topk)
        hits = 0.0
        s = 0.0
        for i in range(n):
            p = np.float64(y[a + order[i]])
            hits += p
            s += hits / np.float64(i + 1) * p
        for i in range(n, b - a):
            hits += np.float64(y[a + order[i]])
        if hits > 0.0:
            s /= min(hits, np.float64(topk))
        else:
            s = 0.0 if minus else 1.0
        out[q] = s
    return out


def per_query(metric: RankMetric, margin: np.ndarray, y: np.ndarray, queries: Queries,
              weighted: bool = False) -> np.ndarray:
    """Each query's score, float64 (n_queries,); ``weighted``: what XGBoost sums (the
    score times the query's weight, see ``_ndcg_per_query``)."""
    topk = np.int64(min(metric.topk, 2**62))
    use_w = weighted and queries.weight is not None
    if metric.kind == "ndcg":
        discount = _discounts(_group_sizes_max(queries))
        inv = _inv_idcg(y, queries.group_ptr, topk, metric.exp_gain, discount)
        return _ndcg_per_query(margin, y, queries.group_ptr, topk, metric.exp_gain,
                               metric.minus, inv, discount,
                               queries.weight if use_w else np.ones(1, dtype=np.float32), use_w)
    scores = _map_per_query(margin, y, queries.group_ptr, topk, metric.minus)
    return scores * queries.weight.astype(np.float64) if use_w else scores


def metric(metric: RankMetric, margin: np.ndarray, y: np.ndarray, queries: Queries) -> float:
    """XGBoost's value of the metric: the queries' weighted scores summed query by query,
    divided by the weights' sum (the number of queries without weights), capped at 1."""
    total = float(np.cumsum(per_query(metric, margin, y, queries, weighted=True))[-1])
    sum_w = (float(queries.n_queries) if queries.weight is None
             else float(np.cumsum(queries.weight.astype(np.float64))[-1]))
    score = total / sum_w if sum_w > 0.0 else total
    return min(1.0, score)


def maximize(metric_name: str) -> bool:
    """Whether early stopping keeps the largest value (``metrics.higher_is_better``)."""
    return higher_is_better(metric_name)


# ------------------------------------------------------------------ one query's pairs
def _pairs_walked(pred, y, rank, rp: RankParams, iteration: int, query: int,
                  n_queries: int) -> list[tuple[int, int]]:
    """The pairs (as model ranks i, j) ``_query_lambdas`` walks, in its order: topk's every
    pair of the top k with a document below; mean's draws, the same generator seeded the
    same way (round ``iteration``, 0-based; the query's place ``query`` of ``n_queries``)."""
    cnt = pred.shape[0]
    if rp.pair_method != "mean":
        return [(i, j) for i in range(min(cnt, rp.num_pair)) for j in range(i + 1, cnt)]
    seed = ((iteration + 1) * n_queries + query) & 0xFFFFFFFF
    state = seed % _MINSTD_M or 1
    ranked_y = y[rank]
    by_label = _rank_desc(ranked_y)
    out = []
    i = 0
    while i < cnt:
        j = i + 1
        while j < cnt and ranked_y[by_label[i]] == ranked_y[by_label[j]]:
            j += 1
        n_lefts, n_rights = i, cnt - j
        if n_lefts + n_rights > 0:
            for _ in range(rp.num_pair):
                for pair_idx in range(i, j):
                    state, r = _uniform_int(state, n_lefts + n_rights - 1)
                    if r >= n_lefts:
                        r = r - i + j
                    out.append((int(by_label[pair_idx]), int(by_label[r])))
        i = j
    return out


def query_pairs(objective: str, margin, y, rp: RankParams, iteration: int = 0,
                query: int = 0, n_queries: int = 1) -> dict:
    """The λ-gradients of one query's pairs at the margins ``margin`` (float32, the query's
    rows), pair by pair as ``_query_lambdas`` walks them (topk's pairs; mean's random draws
    of round ``iteration``, 0-based, for the query's place ``query`` among ``n_queries``
    training queries, which seed them). For each pair with different labels: ``high`` and
    ``low`` (row indices in the query, ``high`` the better label), its ``lam`` (g of
    ``high``; ``low`` gets −lam) and ``hess``, ``delta`` (|ΔZ|, before score
    normalisation) and ``sig`` (σ(s_high − s_low)). ``norm``: the query's normalisation
    (topk: log2(1 + Σ|2λ|)/Σ|2λ|; mean: 1/pairs per document; 1 without it), ``g`` and
    ``h`` the rows' sums over their pairs × norm, in float32 and the objective's order:
    the query's gradients (unweighted)."""
    kind = KIND[objective]
    pred = np.ascontiguousarray(margin, dtype=np.float32).reshape(-1)
    y = np.ascontiguousarray(y, dtype=np.float32).reshape(-1)
    cnt = pred.shape[0]
    discount = _discounts(cnt)
    inv_idcg = 0.0
    if kind == _NDCG:
        inv_idcg = float(_inv_idcg(y, np.array([0, cnt], dtype=np.int64), rp.topk,
                                   rp.ndcg_exp_gain, discount)[0])
    rank = _rank_desc(pred)
    n_rel, acc = np.zeros(1), np.zeros(1)
    if kind == _MAP:
        ranked = y[rank].astype(np.float64)
        n_rel = np.cumsum(ranked)
        acc = np.cumsum(ranked / np.arange(1, cnt + 1))
    high, low, lams, hess, deltas, sigs = [], [], [], [], [], []
    total = 0.0
    g, h = np.zeros(cnt, dtype=np.float32), np.zeros(cnt, dtype=np.float32)
    sum_g, sum_h = np.zeros(cnt, dtype=np.float32), np.zeros(cnt, dtype=np.float32)
    for i, j in _pairs_walked(pred, y, rank, rp, iteration, query, n_queries):
        if y[rank[i]] == y[rank[j]]:
            continue
        g[:] = 0.0
        h[:] = 0.0
        total += _pair(kind, i, j, pred, y, rank, inv_idcg, discount, rp.ndcg_exp_gain,
                       n_rel, acc, rp.score_normalization, g, h)
        rh, rl = (i, j) if y[rank[i]] > y[rank[j]] else (j, i)
        a, b = rank[rh], rank[rl]
        high.append(int(a))
        low.append(int(b))
        lams.append(g[a])
        hess.append(h[a])
        sigs.append(float(sigmoid32(pred[a] - pred[b])))
        deltas.append(float(_delta(kind, y[a], y[b], rh, rl, inv_idcg, discount,
                                   rp.ndcg_exp_gain, n_rel, acc)))
        sum_g[a] += g[a]
        sum_g[b] += g[b]
        sum_h[a] += h[a]
        sum_h[b] += h[b]
    norm = 1.0
    if rp.normalization:
        if rp.pair_method == "mean":
            norm = 1.0 / rp.num_pair
        elif total > 0.0:
            norm = math.log2(1.0 + total) / total
    norm32 = np.float32(norm)
    if norm != 1.0:
        sum_g, sum_h = sum_g * norm32, sum_h * norm32
    return {"high": np.array(high, dtype=np.int64), "low": np.array(low, dtype=np.int64),
            "lam": np.array(lams, dtype=np.float32), "hess": np.array(hess, dtype=np.float32),
            "delta": np.array(deltas), "sig": np.array(sigs), "norm": norm32, "rank": rank,
            "g": sum_g, "h": sum_h}
