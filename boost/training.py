"""The boosting loop: ``train(params, X, y, ...)`` -> ``Booster`` with the full trace.

Round by round (Chen & Guestrin 2016, Alg. 1 with Eq. 6-7): gradients and hessians at the
current float32 margin, one tree per output group, then ``margin += eta * w(leaf)``. The
tree method decides how a tree grows:

* ``exact`` (``boost/exact/``): every distinct value is a candidate; grown, then pruned with
  gamma.
* ``hist`` (``boost/hist/``): the quantile bins of ``sketch.hist_cuts`` (built once); gamma
  stops a split before it is made.
* ``approx``: as hist, but the bins are re-sketched for every tree with weights
  hessian x sample weight (``sketch.sorted_cuts``); objectives with a constant hessian keep
  the first sketch, as XGBoost does.

Each tree is grown on ``targets.tree_gradients``: the objective's (g, h), with h = 1 for
first-order (Friedman) boosting and the rows ``subsample`` left out removed; ``colsample_*``
limits the features each node searches (``sampling``). First-order trees, and XGBoost's
absolute- and quantile-error trees under hist/approx, then get their leaf values from the
loss itself
(``leaves``).

The loss of every evaluation set is recorded after each round, with the baseline (round 0)
first — the training set's only when asked for, as XGBoost computes no metric without
evaluation sets (an evaluation set that is the training data itself is scored from the
loop's own margins); ``early_stopping_rounds`` stops as XGBoost's callback does.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from . import metrics, objectives, ranking, reuse
from ._dtypes import GRAD, INDEX, PARAM, WEIGHT, GrowParams
from .binned import BinnedRows
from .booster import Booster
from .data import any_rows, as_features, as_labels, as_weights, check_training_rows
from .exact import SortedColumns, grow_exact, new_segments
from .hist import HistWorkspace, binned_rows, grow_hist
from .layer import serialized, threads
from .layout import read_only
from .leaves import line_search_leaves, quantile_leaves
from .node_rules import prune
from .params import parse_params
from .records import TreeNodes, new_tree_nodes
from .sampling import ColumnSampler
from .sketch import approx_columns, approx_cuts
from .targets import tree_gradients
from .trace import TrainingData
from .tree import ForestBuilder, add_tree_outputs, checkpoint_every, initial_margin, leaf_of_nodes


def _finish(buf: TreeNodes, n_nodes: int, eta) -> dict:
    """A grown tree's own copy of its node arrays (``records.NODE_FIELDS``; ``is_leaf`` and
    ``removed`` are filled by the caller) with each node's value eta * w."""
    nodes = {name: arr[:n_nodes].copy() for name, arr in zip(buf._fields, buf, strict=True)}
    nodes["value"] = (nodes["weight"] * eta).astype(WEIGHT)
    nodes["is_leaf"] = nodes["left"] == -1
    nodes["removed"] = np.zeros(n_nodes, dtype=np.bool_)
    return nodes


def grow_tree(X, columns, g, h, gp: GrowParams, position, segments, buf: TreeNodes,
              sampler: ColumnSampler, tree_idx: int):
    """Grow and prune one tree on float32 ``g``/``h``; return its node arrays (trimmed).

    ``columns`` (``SortedColumns.arrays()``), ``position``, ``segments``
    (``exact.segments.new_segments``) and ``buf`` are scratch reused across trees; ``sampler`` draws
    each node's features (colsample_*); ``gp`` the training's ``GrowParams``."""
    n_nodes = grow_exact(X, columns, g, h, position, segments, buf, gp, sampler.for_tree(tree_idx))
    nodes = _finish(buf, n_nodes, gp.eta)
    prune(n_nodes, TreeNodes(*(nodes[name] for name in TreeNodes._fields)), gp.gamma,
          nodes["is_leaf"], nodes["removed"])
    return nodes


class _ExactGrower:
    """exact: the presorted columns and the grower's workspace, kept across trees."""

    def __init__(self, X, p, columns: SortedColumns | None = None):
        self.X, self.p, self.gp = X, p, GrowParams.of(p)
        # read-only, shareable: a sweep's, or the last training's on the same rows
        self.columns = reuse.sorted_columns(X) if columns is None else columns
        self.arrays = self.columns.arrays()
        self.position = np.empty(X.shape[0], dtype=INDEX)
        self.segments = new_segments(self.columns)
        self.sampler = ColumnSampler.of(p, X.shape[1])

    def grow(self, g, h, buf, margin, group, tree_idx):
        """Grow and prune one tree (the caller adds its leaves to the margins)."""
        return grow_tree(self.X, self.arrays, g, h, self.gp, self.position, self.segments, buf,
                         self.sampler, tree_idx)

    def leaves(self, nodes):
        """Each training row's leaf in the pruned tree (from where the grower left it)."""
        return leaf_of_nodes(nodes, self.X, self.position)


class _HistGrower:
    """hist and approx: the cuts (per tree for approx) and the binned matrix they imply."""

    def __init__(self, X, w, p, cuts=None):
        self.X, self.w, self.p = X, w, p
        self.ws = None
        self.cuts = None
        self.tree_cuts = []  # the cuts each tree was grown on
        if p.tree_method == "hist" and cuts is None:  # the last training's, on the same rows
            made = reuse.hist_data(X, w, p.max_bin)
            self.dense, self.cuts = made.dense, made.cuts
            self.ws = HistWorkspace(made.records.copy(), made.missing, made.columns)
        else:
            self.dense = not any_rows(X, np.isnan)  # once: approx re-bins every tree
            if p.tree_method == "hist":  # ``cuts``: hist_cuts(X, w, max_bin), already made
                self._set_cuts(cuts)
        # XGBoost's hist sums the root from the bins when nothing is missing (not approx).
        self.root_from_bins = p.tree_method == "hist" and self.dense
        self.columns = approx_columns(X, p.objective) if p.tree_method == "approx" else None
        self.regen = self.columns is not None  # a new sketch every tree
        self.sampler = ColumnSampler.of(p, X.shape[1])

    def _set_cuts(self, cuts):
        self.cuts = cuts
        records, missing, columns = binned_rows(self.X, cuts, self.dense)
        if (self.ws is None or self.ws.records.dtype != records.dtype
                or self.ws.records.shape != records.shape):
            self.ws = HistWorkspace(records, missing, columns)
        else:
            self.ws.set_records(records, missing, columns)

    def grow(self, g, h, buf, margin, group, tree_idx):
        """Grow one tree and add its leaf values to ``margin[:, group]``."""
        if self.p.tree_method == "approx" and (self.regen or self.cuts is None):
            self._set_cuts(approx_cuts(self.X, self.w, h, self.p.max_bin, self.columns))
        n_nodes = grow_hist(self.cuts, self.root_from_bins, g, h, self.p, self.ws, buf, margin,
                            group, self.sampler, tree_idx)
        nodes = _finish(buf, n_nodes, PARAM(self.p.eta))
        self.tree_cuts.append(self.cuts)
        return nodes


def tree_capacity(p, n_samples: int) -> int:
    """The most nodes a tree can have: every leaf holds a row (2n - 1), at most
    2^(max_depth + 1) - 1 with a depth limit and 2·max_leaves - 1 with a leaf limit
    (hist/approx; exact ignores max_leaves, as XGBoost)."""
    cap = 2 * max(n_samples, 1) - 1
    if p.max_depth > 0:
        cap = min(cap, 2 ** (p.max_depth + 1) - 1)
    if p.max_leaves > 0 and p.tree_method != "exact":
        cap = min(cap, 2 * p.max_leaves - 1)
    return cap


def _is_training_set(item, X, y, sample_weight, qid=None) -> bool:
    """An evaluation set that is the training data itself (the same X, y, weights and
    query ids objects): XGBoost's ``evals=[(dtrain, "train")]``, whose loss the boosting
    loop takes from the training margins instead of predicting the rows again."""
    if not isinstance(item, (tuple, list)) or len(item) not in (3, 4, 5):
        return False
    weight = item[3] if len(item) >= 4 else None
    item_qid = item[4] if len(item) == 5 else None
    return item[0] is X and item[1] is y and weight is sample_weight and item_qid is qid


def _check_evals(evals, names, p, train_at=None, train=None):
    """The evaluation sets converted and checked; ``train_at``: the index of the one that is
    the training data, given as ``train`` (X32, y32, w32) unconverted again."""
    checked = []
    seen = set()
    for i, item in enumerate(evals or ()):
        if not isinstance(item, (tuple, list)) or len(item) not in (3, 4, 5):
            raise ValueError(
                f"evals[{i}] must be a tuple (X, y, name), (X, y, name, sample_weight) or "
                f"(X, y, name, sample_weight, qid); got {type(item).__name__}."
            )
        X_e, y_e, name = item[:3]
        if not isinstance(name, str) or not name:
            raise ValueError(f"evals[{i}]: the name must be a non-empty string.")
        if name in seen:
            raise ValueError(
                f"evals[{i}]: the name {name!r} is already used; give each evaluation set "
                "a different name."
            )
        seen.add(name)
        if i == train_at:
            checked.append((name, *train))
            continue
        X32, _ = as_features(X_e, expected_names=names, what=f"evals[{i}] X")
        y32 = as_labels(y_e, X32.shape[0], p.objective, p.num_class, what=f"evals[{i}] y")
        weight = item[3] if len(item) >= 4 else None
        qid = item[4] if len(item) == 5 else None
        w32, queries = _weights_and_queries(p, weight, qid, y32, f"evals[{i}] ")
        checked.append((name, X32, y32, w32, queries))
    return checked


def _weights_and_queries(p, sample_weight, qid, y32, what: str = ""):
    """(per-row float32 weights, ``ranking.Queries`` or None). A ranking objective's
    weights are one per query, as XGBoost takes them with ``qid``; its row weights are what
    XGBoost's quantile sketch reads (``Queries.row_weights``)."""
    n = y32.shape[0]
    if objectives.spec(p.objective).task != "ranking":
        if qid is not None:
            raise ValueError(f"{what}qid (query ids) applies to the ranking objectives "
                             "(rank:ndcg, rank:map, rank:pairwise); remove it or choose one.")
        return as_weights(sample_weight, n, what=f"{what}sample_weight"), None
    weight = None if sample_weight is None else as_weights(
        sample_weight, len(np.asarray(sample_weight).reshape(-1)), what=f"{what}sample_weight")
    queries = ranking.queries_of(qid, n, weight, what=f"{what}qid",
                                 weight_what=f"{what}sample_weight")
    ranking.check_labels(p.objective, np.asarray(y32), p.loss.rank, what=f"{what}y")
    rows = queries.row_weights()
    return (None if rows is None else read_only(np.asarray(rows, dtype=np.float32))), queries


def _check_early_stopping(early_stopping_rounds, eval_sets):
    if early_stopping_rounds is None:
        return None
    if isinstance(early_stopping_rounds, bool) or not isinstance(early_stopping_rounds,
                                                                  numbers.Integral):
        raise ValueError(
            f"early_stopping_rounds = {early_stopping_rounds!r} must be a whole number of "
            "rounds (or None to train every round)."
        )
    if early_stopping_rounds < 1:
        raise ValueError(f"early_stopping_rounds = {early_stopping_rounds} must be >= 1.")
    if not eval_sets:
        raise ValueError(
            "early_stopping_rounds needs at least one evaluation set: pass evals=[(X_valid, "
            "y_valid, 'valid')]; training stops when the last set's loss has not improved "
            "for that many rounds."
        )
    return int(early_stopping_rounds)


class EarlyStopping:
    """XGBoost's EarlyStopping callback: the best round of the last evaluation set's
    metric (strictly smaller is better, strictly larger for the metrics XGBoost maximises:
    ndcg, map), and the stop once ``rounds`` rounds in a row did not improve it."""

    def __init__(self, rounds: int, maximize: bool = False):
        self.rounds = rounds
        self.maximize = maximize
        self.best_iteration = None  # 0-based, as XGBoost's
        self.best_score = None
        self.since = 0

    def update(self, epoch: int, score: float) -> bool:
        """Record round ``epoch`` (0-based); True when training should stop."""
        gain = (score - self.best_score if self.maximize else self.best_score - score
                ) if self.best_score is not None else None
        if gain is None or gain > 0:
            self.best_score, self.best_iteration, self.since = score, epoch, 0
        else:
            self.since += 1
        return self.since >= self.rounds


def _refit_leaves(p, nodes, X32, round_margin, margin, k, y32, w32, active, exact, leaf):
    """Leaf values from the loss (first-order boosting, or XGBoost's adaptive leaves);
    the margins of hist/approx, already advanced by the grower, are recomputed. ``leaf``:
    each row's leaf, when known (exact), else None."""
    first_order = p.boosting == "first_order"
    if not first_order and (exact or not objectives.spec(p.objective).adaptive_leaf):
        return
    if leaf is None:
        leaf = leaf_of_nodes(nodes, X32)
    eta32 = PARAM(p.eta)
    if first_order:
        line_search_leaves(p.objective, p.loss, nodes, leaf, round_margin, k, y32, w32, active,
                           eta32, float(PARAM(p.max_delta_step)))
    else:
        quantile_leaves(nodes, leaf, round_margin[:, k], y32, w32, active, eta32,
                        objectives.leaf_alphas(p.objective, p.loss)[k])
    if not exact:
        margin[:, k] = round_margin[:, k] + nodes["value"][leaf]


def _own(arr, given):
    if arr is not None and isinstance(given, np.ndarray) and np.may_share_memory(arr, given):
        return read_only(arr.copy())
    return arr


@serialized
def train(params: dict, X, y, num_boost_round: int = 10, evals=(), sample_weight=None,
          early_stopping_rounds: int | None = None, *, qid=None, progress=None) -> Booster:
    """Train a gradient-boosted tree model exactly as XGBoost 3.2 (``exact``, ``hist`` or
    ``approx``), or with first-order (Friedman) trees when ``boosting="first_order"``.

    Parameters
    ----------
    params : dict
        XGBoost parameter names and aliases (see ``boost.params``).
    X : ndarray of shape (n_samples, n_features) or DataFrame
        NaN means missing. DataFrame column names become feature names.
    y : array-like of shape (n_samples,)
    num_boost_round : int
        Number of boosting rounds (trees per output group).
    evals : sequence of (X, y, name), (X, y, name, sample_weight) or
            (X, y, name, sample_weight, qid)
        Sets whose loss (weighted, when weights are given) is recorded after every round.
    sample_weight : array-like of shape (n_samples,), optional
        With a ranking objective: one weight per query (shape (n_queries,)), as XGBoost.
    early_stopping_rounds : int, optional
        As XGBoost: stop when the last evaluation set's loss has not improved for this many
        rounds; ``Booster.best_iteration`` / ``best_score`` say where it was best (the trees
        after it are kept, as XGBoost keeps them).
    qid : array-like of shape (n_samples,), optional
        The ranking objectives' query ids, as ``xgb.DMatrix(..., qid=)``: sorted
        (non-decreasing), one per row; without it all rows are one query.
    progress : callable, optional
        ``progress(done, total)`` after each round (as ``sweep``'s): a screen's progress
        bar. An exception raised in it stops training and propagates.

    Returns
    -------
    Booster
        The model and its trace: every tree as grown, what pruning removed and why, and
        the loss of every set per round (round 0 is the baseline).
    """
    p = parse_params(params)
    check_rounds(num_boost_round)
    if p.tree_method == "exact" and (p.grow_policy != "depthwise" or p.max_leaves > 0):
        warnings.warn("grow_policy and max_leaves apply to tree_method 'hist' and 'approx'; "
                      "exact ignores them and grows depth-wise to max_depth, as XGBoost does.",
                      UserWarning, stacklevel=2)
    # hist's trace keeps the bin codes, not the values: no copy of a float32 X is made.
    data = run_data(p, X, y, sample_weight, evals, own_X=p.tree_method != "hist", qid=qid)
    y32, w32, eval_sets = data.y32, data.w32, data.eval_sets
    stopping_rounds = _check_early_stopping(early_stopping_rounds, eval_sets)
    base_score, base_margin = intercept(p, y32, w32, data.queries)
    run = Rounds(p, data, base_margin, num_boost_round,
                 None if stopping_rounds is None else EarlyStopping(stopping_rounds,
                                                                    maximizes(p)),
                 on_round=None if progress is None
                 else (lambda r: progress(len(r.own) - 1, num_boost_round)))
    run.boost()
    trace = _trace(p, run, data)
    for arr in (trace.X, y32, w32, None if trace.binned is None else trace.binned.codes):
        if arr is not None:
            arr.flags.writeable = False  # the trace's data; never the caller's arrays
    stopper = run.stopper
    return Booster(params=p, feature_names=data.names, base_score=base_score,
                   base_margin=base_margin, forest=run.builder.build(), data=trace,
                   history={k: np.array(v) for k, v in run.history.items()},
                   alpha_history=None if run.by_alpha is None else {
                       k: np.array(v) for k, v in run.by_alpha.items()},
                   eval_names=[name for name, *_ in eval_sets],
                   best_iteration=None if stopper is None else stopper.best_iteration,
                   best_score=None if stopper is None else stopper.best_score,
                   train_args={"num_boost_round": num_boost_round,
                               "early_stopping_rounds": stopping_rounds})


def _trace(p, run, data: RunData) -> TrainingData:
    """What the model keeps of its training rows: the values (exact, approx), or hist's
    bin codes, feature by feature, which the grower made for its partition anyway."""
    exact = isinstance(run.grower, _ExactGrower)
    binned = None
    if p.tree_method == "hist":
        binned = BinnedRows(run.grower.ws.columns, run.grower.ws.missing)
    return TrainingData(X=None if binned is not None else data.X32, y=data.y32,
                        weight=data.w32, queries=data.queries,
                        need_forward=run.grower.columns.need_forward if exact else None,
                        tree_cuts=None if exact else run.grower.tree_cuts,
                        root_from_bins=None if exact else run.grower.root_from_bins,
                        checkpoints=run.checkpoints, binned=binned)


def check_rounds(num_boost_round) -> None:
    if isinstance(num_boost_round, bool) or not isinstance(num_boost_round, numbers.Integral):
        raise ValueError(f"num_boost_round = {num_boost_round!r} must be a whole number.")
    if num_boost_round < 0:
        raise ValueError(f"num_boost_round = {num_boost_round} must be >= 0.")


@dataclass(frozen=True)
class RunData:
    """A run's data, converted to float32 and checked once (``sweep`` shares it between
    its grid points): features, their names, labels, weights, the evaluation sets."""

    X32: np.ndarray
    names: list
    y32: np.ndarray
    w32: np.ndarray | None
    eval_sets: list  # (name, X32, y32, w32, queries) per set
    train_at: int | None = None  # the evaluation set that is the training data, if any
    queries: ranking.Queries | None = None  # a ranking objective's query groups


def maximizes(p) -> bool:
    """Whether the objective's metric is better when larger (ndcg, map)."""
    return ranking.maximize(metrics.metric_name(p.objective, p.loss))


def run_data(p, X, y, sample_weight, evals, own_X: bool = True, qid=None) -> RunData:
    """``own_X``: the features will be kept (exact, approx), so they must be the engine's
    own; hist keeps bin codes instead and only reads X while it trains. An evaluation set
    that is the training data (``_is_training_set``) is marked ``train_at``."""
    X32, names = as_features(X)
    check_training_rows(X32.shape[0])
    y32 = as_labels(y, X32.shape[0], p.objective, p.num_class)
    w32, queries = _weights_and_queries(p, sample_weight, qid, y32)
    # The Booster keeps the training data (read-only) for its round views, so it owns a copy
    # wherever the conversion handed back the caller's own memory (float32 input).
    y32, w32 = (_own(arr, given) for arr, given in ((y32, y), (w32, sample_weight)))
    if own_X:
        X32 = _own(X32, X)
    evals = list(evals or ())
    train_at = next((i for i, item in enumerate(evals)
                     if _is_training_set(item, X, y, sample_weight, qid)), None)
    eval_sets = _check_evals(evals, names, p, train_at, (X32, y32, w32, queries))
    if queries is not None:  # the metric's own label check (map: 0/1 labels)
        for i, (_, _, y_e, _, _) in enumerate(eval_sets):
            ranking.check_labels(p.objective, np.asarray(y_e), p.loss.rank,
                                 what=f"evals[{i}] y",
                                 metric=metrics.metric_name(p.objective, p.loss))
    return RunData(X32, names, y32, w32, eval_sets, train_at, queries)


def intercept(p, y32, w32, queries=None):
    """(base_score, its margin): the user's, or estimated as XGBoost 3.2 does."""
    if p.base_score is None:
        base_score = objectives.base_score_estimate(p.objective, y32, w32, p.num_class, p.loss,
                                                    queries)
    else:
        base_score = np.full(p.num_output_group, p.base_score, dtype=np.float32)
    base_margin = objectives.base_margin(p.objective, base_score, p.num_class)
    if not np.all(np.isfinite(base_margin)):
        raise ValueError(
            f"The intercept of {p.objective} is not finite (base_score {base_score.tolist()}): "
            "the labels' mean is 0, and its log is -inf. Set base_score to a small positive "
            "number, or check the target column."
        )
    return base_score, base_margin


class Rounds:
    """The boosting loop: each round's trees (one per class), the margins they move, the
    losses (round 0 is the baseline), margin checkpoints for the round views, early stopping.

    ``make_grower()``, when given, makes the tree grower from work done beforehand (a sweep's
    shared sorted columns or cuts); ``on_round(self)`` is called after every round (its
    trees are ``self.new_trees``) and may raise to stop training.

    The training set's loss is computed (with the gradients, in one pass) only when asked
    for: ``train_metric`` (a 'train' column, as cross-validation and the sweeps report), or
    an evaluation set that is the training data (``data.train_at``), as XGBoost computes no
    metric without evaluation sets."""

    def __init__(self, p, data: RunData, base_margin, num_boost_round, stopper,
                 make_grower=None, on_round=None, train_metric: bool = False):
        self.p, self.X32, self.y32, self.w32 = p, data.X32, data.y32, data.w32
        self.queries = data.queries
        self.eval_sets, self.num_boost_round, self.stopper = (data.eval_sets, num_boost_round,
                                                              stopper)
        self.train_column = train_metric
        self.metered = train_metric or data.train_at is not None
        self.make_grower, self.on_round = make_grower, on_round
        n_samples, n_groups = data.X32.shape[0], p.num_output_group
        self.margin = initial_margin(n_samples, base_margin)
        self.eval_margins = [None if i == data.train_at else initial_margin(X_e.shape[0],
                                                                            base_margin)
                             for i, (_, X_e, *_) in enumerate(data.eval_sets)]
        self.gh_buffers = (np.empty((n_samples, n_groups), dtype=GRAD),
                           np.empty((n_samples, n_groups), dtype=GRAD))
        self.builder = ForestBuilder()
        self.every = checkpoint_every(num_boost_round, n_samples, n_groups)
        self.checkpoints = {}
        self.exact = p.tree_method == "exact"
        self.refit = p.boosting == "first_order" or (objectives.spec(p.objective).adaptive_leaf
                                                     and not self.exact)
        self.grower = None
        # reg:quantileerror: each quantile's own pinball loss per round, by set (the metric
        # is their mean); {name: [array of n_alpha losses per round]}
        self.by_alpha = {} if objectives.spec(p.objective).per_alpha else None

    def loss_of(self, m, y_, w_, q_=None):
        return metrics.metric(self.p.objective, m, y_, w_, self.p.loss, q_)

    def gradients_and_loss(self, iteration: int):
        """Round ``iteration``'s (g, h) (0-based) and the current margin's loss (None when
        nobody asked for it), in one pass."""
        if not self.metered:
            return (*objectives.gradients(self.p.objective, self.margin, self.y32, self.w32,
                                          self.p.loss, self.gh_buffers, self.queries,
                                          iteration), None)
        return metrics.gradients_and_metric(self.p.objective, self.margin, self.y32,
                                               self.w32, self.p.loss, self.gh_buffers,
                                               self.queries, iteration)

    def boost(self) -> None:
        with threads(self.p.nthread):
            for stop in self.steps():
                if stop:
                    break

    def steps(self):
        """The loop a round at a time, for a caller that holds the threads (``layer.threads``)
        and steps several runs together (cross-validation's folds): yields after each round
        whether early stopping ends training."""
        p, X32 = self.p, self.X32
        g, h, train_loss = self.gradients_and_loss(0)
        self.own = [train_loss]  # the training set's loss (None: not computed)
        self.evals = {name: [train_loss if m is None else self.loss_of(m, y_e, w_e, q_e)]
                      for (name, _, y_e, w_e, q_e), m in zip(self.eval_sets, self.eval_margins,
                                                             strict=True)}
        self._record_alphas()
        if self.make_grower is not None:
            self.grower = self.make_grower()
        else:
            self.grower = _ExactGrower(X32, p) if self.exact else _HistGrower(X32, self.w32, p)
        buf = new_tree_nodes(tree_capacity(p, X32.shape[0]))
        for r in range(self.num_boost_round):
            self.grow_round(g, h, buf)
            if r + 1 < self.num_boost_round:
                g, h, train_loss = self.gradients_and_loss(r + 1)
            else:
                train_loss = (self.loss_of(self.margin, self.y32, self.w32, self.queries)
                              if self.metered else None)
            stop = self.record(train_loss)
            if self.on_round is not None:
                self.on_round(self)
            yield stop
            if stop:
                return

    def grow_round(self, g, h, buf) -> None:
        """One tree per class on the round's gradients; the margins move by its leaves."""
        p, margin = self.p, self.margin
        round_margin = margin.copy() if self.refit else None
        first_tree = len(self.builder)
        for k in range(p.num_output_group):
            t = first_tree + k
            gk, hk, active = tree_gradients(p, g[:, k], h[:, k], self.w32, t)
            nodes = self.grower.grow(gk, hk, buf, margin, k, t)
            leaf = self.grower.leaves(nodes) if self.exact else None
            if self.refit:
                _refit_leaves(p, nodes, self.X32, round_margin, margin, k, self.y32, self.w32,
                              active, self.exact, leaf)
            if self.exact:  # (hist/approx advance the margins as they grow)
                margin[:, k] += nodes["value"][leaf]
            self.builder.add(k, nodes)
        self._first_new, self._new_trees = first_tree, None

    @property
    def new_trees(self):
        """The last round's trees as a ``Forest``, built when first read (an evaluation set's
        predictions, a sweep's facts); a plain training never builds one per round."""
        if self._new_trees is None:
            self._new_trees = self.builder.build(self._first_new)
        return self._new_trees

    def _record_alphas(self) -> None:
        """Each quantile's pinball loss at the current margins, for every set of
        ``history`` (reg:quantileerror only)."""
        if self.by_alpha is None:
            return
        sets = ([("train", self.margin, self.y32, self.w32)] if self.train_column else [])
        sets += [(name, self.margin if m is None else m, y_e, w_e)
                 for (name, _, y_e, w_e, _), m in zip(self.eval_sets, self.eval_margins,
                                                      strict=True)]
        for name, m, y_e, w_e in sets:
            self.by_alpha.setdefault(name, []).append(
                metrics.pinball_losses(m, y_e, w_e, self.p.loss))

    @property
    def history(self) -> dict[str, list]:
        """The loss per round of each evaluation set, by its name, and of the training set
        as 'train' when ``train_metric`` asked for it (an evaluation set named 'train'
        takes that name's place)."""
        return {**({"train": self.own} if self.train_column else {}), **self.evals}

    def record(self, train_loss) -> bool:
        """The round's losses and checkpoint; True when early stopping ends training."""
        self.own.append(train_loss)
        done = len(self.own) - 1
        if done % self.every == 0 and done < self.num_boost_round:
            self.checkpoints[done] = self.margin.copy()
            self.checkpoints[done].flags.writeable = False
        for (name, X_e, y_e, w_e, q_e), m in zip(self.eval_sets, self.eval_margins,
                                                 strict=True):
            if m is None:  # the training data: its margins are the loop's own
                self.evals[name].append(train_loss)
                continue
            add_tree_outputs(self.new_trees, X_e, m, 0, self.p.num_output_group)
            self.evals[name].append(self.loss_of(m, y_e, w_e, q_e))
        self._record_alphas()
        last = self.evals[self.eval_sets[-1][0]][-1] if self.eval_sets else None
        return self.stopper is not None and self.stopper.update(done - 1, last)
