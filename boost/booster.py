"""``Booster``: the trained model, shaped like XGBoost's, and the trace of how it was built."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from . import (
    importance,
    metrics,
    objectives,
    sample,
)
from .data import any_rows, as_features
from .layer import exclusive, serialized
from .params import Params
from .trace import NoTrainingTrace, RoundView, Trace, TrainingData
from .trace.cache import size_of
from .trace.candidates import CandidateSummary
from .tree import Forest, add_tree_outputs, initial_margin, leaf_of_rows, path_of_row
from .xgb import dump, model_file, xgboost_code
from .xgb.model_file import ModelFile, ModelParts


class Booster:
    """A model plus its trace. Created by ``boost.train`` or ``boost.load_model``;
    read-only.

    Rounds are numbered as the app shows them: round 0 is the baseline (the intercept),
    round r >= 1 adds the tree(s) grown in the r-th boosting iteration. ``Tree`` in the
    dumps is XGBoost's 0-based tree index (``(r - 1) * num_class + class`` for multi-class).

    A model read by ``load_model`` (``source`` says from where) has its trees, gains and
    covers but no trace: ``predict``, ``staged_margins``, ``tree_output(s)``,
    ``decision_path``, ``get_dump``, ``trees_to_dataframe`` (the columns only training
    knows — SumGrad, Similarity, Weight, an internal node's Value — are NaN), ``get_score``,
    ``save_model`` work; the round views, candidates, cuts, losses and ``xgboost_code``
    raise ``NoTrainingTrace`` — until a data sample is attached (``with_data``): then the
    round views, gradients, losses and candidates are recomputed on the sample.
    """

    def __init__(self, *, params: Params, feature_names, base_score, base_margin,
                 forest: Forest, data: TrainingData | None, history: dict | None, eval_names,
                 best_iteration: int | None = None, best_score: float | None = None,
                 train_args: dict | None = None, source: ModelFile | None = None,
                 search: Params | None = None, alpha_history: dict | None = None):
        self._params = params
        # A data sample's split search (with_data): its parameters (no random draws); None
        # when ``data`` are the training rows.
        self._search = search
        self.feature_names = list(feature_names)
        self.base_score = base_score
        self.base_margin = base_margin
        self.forest = forest
        self.data = data
        self._history = history
        # reg:quantileerror: {set name: (rounds + 1, n_alpha) pinball loss of each quantile}
        self._alpha_history = alpha_history
        self._eval_names = list(eval_names)
        # Early stopping (as XGBoost's attributes): the 0-based best round and its score.
        self.best_iteration = best_iteration
        self.best_score = best_score
        # boost.train's arguments that are not parameters (num_boost_round, ...).
        self.train_args = dict(train_args or {})
        # The XGBoost model file the model was read from (None: trained by boost.train).
        self.source = source
        # What screens ask of the model (boost/trace/): records, answered once each and
        # kept in one cache bounded in bytes.
        self.trace = Trace(self)

    @property
    def engine(self):
        """The engine package that made this model: ``boost``, or its plain-Python twin
        that trains small data while the kernels compile (``runtime.python_engine``). Work on the
        model's arrays (a view's extra predictions, say) goes through it."""
        return sys.modules[__package__]

    @property
    def on_sample(self) -> bool:
        """Whether ``data`` is a data sample attached by ``with_data`` (the round views and
        candidates are recomputed on it), not the rows the model was trained on."""
        return self._search is not None

    @property
    def search_params(self) -> Params:
        """The parameters the round views and candidates run with: training's, or with a
        data sample attached those of its split search."""
        return self._params if self._search is None else self._search

    def with_data(self, X, y=None, sample_weight=None, params: dict | None = None, *,
                  qid=None) -> Booster:
        """The same model with a data sample attached: its round views, gradients, losses
        and candidate splits are recomputed on the sample's rows (``X`` with the model's
        features; ``y`` optional: without it, only margins and predictions per round).

        The trees keep the model's own gain and cover. ``split_candidates`` on the sample
        are labelled so (column RecomputedOnSample, ``attrs["recomputed_on"] == "sample"``);
        RoundView.on_sample is True; ``loss_history`` gains a ``sample`` column. ``params``
        (a model read from a file only, which does not hold them): the split search's
        tree_method, lambda, alpha, min_child_weight, max_delta_step, max_bin — XGBoost's
        defaults otherwise. The random draws (subsample, colsample_*) are not recomputed:
        ``rows_used`` and ``features_used`` raise NoTrainingTrace. ``qid``: a ranking
        model's query ids of the sample's rows (``sample_weight`` one per query), as
        ``train``'s; without it the sample is one query."""
        search = sample.search_params(self._params, params, self.source is not None)
        X32, y32, w32, queries = sample.rows(X, y, sample_weight, self.feature_names, search,
                                             qid)
        n = self.num_boosted_rounds()
        checkpoints, losses = sample.margins_and_losses(self.forest, self.base_margin, X32,
                                                        y32, w32, search, n, queries)
        data = TrainingData(X=X32, y=y32, weight=w32, queries=queries,
                            need_forward=sample.need_forward(X32, search),
                            root_from_bins=(search.tree_method == "hist"
                                            and not any_rows(X32, np.isnan)),
                            checkpoints=checkpoints)
        history = None
        if losses is not None:
            history = {**(self._history if self.source is None else {}), "sample": losses}
        return Booster(params=self._params, feature_names=self.feature_names,
                       base_score=self.base_score, base_margin=self.base_margin,
                       forest=self.forest, data=data, history=history,
                       eval_names=self._eval_names, best_iteration=self.best_iteration,
                       best_score=self.best_score, train_args=self.train_args,
                       source=self.source, search=search)

    # ----------------------------------------------------------------- model facts
    @property
    def params(self) -> dict:
        """The parameters under XGBoost's names; for a loaded model only those its file
        states (objective, num_class, the objective's own, a base_score that was set).
        With a data sample attached: every parameter its recomputation runs with (the
        model's, the ones given to ``with_data``, XGBoost's defaults; no random draws)."""
        if self._search is not None:
            return self._search.to_dict()
        if self.source is not None:
            return dict(self.source.params)
        return self._params.to_dict()

    @property
    def objective(self) -> str:
        return self._params.objective

    @property
    def num_groups(self) -> int:
        return self._params.num_output_group

    @property
    def nbytes(self) -> int:
        """The bytes this model holds: its trees, what it keeps of its training rows (the
        values or hist's bin codes, margins, losses) and the answers its trace has kept."""
        return (size_of(self.forest) + size_of(self.data) + size_of(self._history)
                + self.trace.cache.nbytes)

    @property
    def num_features(self) -> int:
        return len(self.feature_names)

    def num_boosted_rounds(self) -> int:
        return self.forest.n_trees // self.num_groups

    def _check_round(self, round_idx, allow_zero=True) -> int:
        n = self.num_boosted_rounds()
        low = 0 if allow_zero else 1
        if isinstance(round_idx, bool) or not isinstance(round_idx, (int, np.integer)):
            raise ValueError(f"round_idx = {round_idx!r} must be a whole number.")
        if not low <= round_idx <= n:
            extra = "" if allow_zero else " (round 0 is the baseline and has no tree)"
            raise ValueError(f"round_idx = {round_idx} is out of range: {low}..{n}{extra}.")
        return int(round_idx)

    def _check_class(self, class_idx) -> int:
        if not 0 <= class_idx < self.num_groups:
            raise ValueError(
                f"class_idx = {class_idx} is out of range: 0..{self.num_groups - 1}."
            )
        return int(class_idx)

    # ----------------------------------------------------------------- prediction
    def _margin(self, X32: np.ndarray, begin: int, end: int) -> np.ndarray:
        g = self.num_groups
        margin = initial_margin(X32.shape[0], self.base_margin)
        add_tree_outputs(self.forest, X32, margin, begin * g, end * g)
        return margin

    def feature_values(self, f: int, X=None) -> np.ndarray:
        """Feature ``f``'s float32 values of the model's rows (NaN = missing). A model trained
        with hist keeps its rows' bin codes, not their values: give it ``X``, the features it
        was trained on (array or DataFrame); the column is checked against the kept codes
        (ValueError if it falls in other bins)."""
        return self.trace.feature_values(f, X)

    def rows_in_node(self, round_idx: int, node_id: int, class_idx: int = 0) -> np.ndarray:
        """Bool mask of the model's rows (training's, or a data sample's) that reach node
        ``node_id`` of the grown tree of round ``round_idx`` (pruned or not)."""
        self.trace.require("rows_in_node", rows_only=True)
        # a copy: the trace's answers are shared by every session that trained this model
        return self.trace.in_node(self.tree_index(round_idx, class_idx), int(node_id)).copy()

    def predict(self, X, output_margin: bool = False, iteration_range=(0, 0)) -> np.ndarray:
        """Predictions for ``X`` (as XGBoost's ``Booster.predict``).

        ``iteration_range=(begin, end)`` uses the trees of rounds ``begin+1 .. end``;
        ``(0, 0)`` means all. Shape (n,) or (n, num_class) for multi:softprob;
        multi:softmax gives the class index (float), as XGBoost.
        """
        X32, _ = as_features(X, expected_names=self.feature_names)
        n = self.num_boosted_rounds()
        begin, end = (int(v) for v in iteration_range)
        if (begin, end) == (0, 0):
            end = n
        if not 0 <= begin <= end <= n:
            raise ValueError(
                f"iteration_range = {iteration_range!r} is out of range: need "
                f"0 <= begin <= end <= {n}."
            )
        margin = self._margin(X32, begin, end)
        if output_margin:
            return margin if self.num_groups > 1 else margin[:, 0]
        return objectives.predict_transform(self.objective, margin)

    def staged_margins(self, X):
        """The margins of ``X`` after every round, each tree walked once: yields
        ``(round_idx, margin)`` for round_idx = 0 (the baseline) .. num_boosted_rounds(),
        ``margin`` of shape (n_samples, n_groups) float32, equal bit for bit to
        ``predict(X, output_margin=True, iteration_range=(0, round_idx))`` (the same float32
        sums in the same order). The array is updated in place: copy what you keep."""
        X32, _ = as_features(X, expected_names=self.feature_names)
        g = self.num_groups
        margin = initial_margin(X32.shape[0], self.base_margin)
        yield 0, margin
        for r in range(1, self.num_boosted_rounds() + 1):
            with exclusive():  # (not held while the caller has the round)
                add_tree_outputs(self.forest, X32, margin, (r - 1) * g, r * g)
            yield r, margin

    # ----------------------------------------------------------------- dumps
    def get_dump(self, dump_format: str = "json", with_stats: bool = True) -> list[str]:
        """One string per tree, equal to XGBoost's dump of the same model."""
        return dump.get_dump(self.forest, self.feature_names, dump_format, with_stats)

    def trees_to_dataframe(self, include_pruned: bool = False) -> pd.DataFrame:
        """XGBoost's columns (Tree, Node, ID, Feature, Split, Yes, No, Missing, Gain, Cover,
        Category) plus the trace: Round (1-based), Class, Depth, Parent, SumGrad, SumHess,
        Similarity, Weight (w before eta), Value (eta * w), Leaf (a leaf of the final tree),
        Pruned (removed by pruning) and Reason (why a node is a leaf or was removed).

        With ``include_pruned=True`` the frame shows the trees as grown: the nodes pruning
        removed are included (Pruned=True) and a node that pruning turned into a leaf keeps
        its grown split in Feature/Split/Yes/No/Gain (Leaf=True, Reason='gamma'). With hist
        and approx (pre-pruning) a leaf whose best split gamma refused shows that split in
        Feature/Split/Gain, with no Yes/No (Leaf=True, Reason='gamma').
        """
        return dump.trees_to_dataframe(self.forest, self.feature_names, self._params,
                                       include_pruned)

    def get_score(self, importance_type: str = "weight") -> dict[str, float]:
        """Feature importance as XGBoost's ``get_score``."""
        return importance.get_score(self.forest, self.feature_names, importance_type)

    # ----------------------------------------------------------------- the trace
    def tree_index(self, round_idx: int, class_idx: int = 0) -> int:
        """XGBoost's tree index of the tree grown in round ``round_idx`` (1-based)."""
        r = self._check_round(round_idx, allow_zero=False)
        return (r - 1) * self.num_groups + self._check_class(class_idx)

    def tree_outputs(self, X, round_idx: int | None = None) -> np.ndarray:
        """Each tree's contribution to each row's margin: shape (n_samples, n_trees) for the
        trees of rounds 1..round_idx (all by default), float32 leaf values (eta * w)."""
        X32, _ = as_features(X, expected_names=self.feature_names)
        r = self.num_boosted_rounds() if round_idx is None else self._check_round(round_idx)
        out = np.empty((X32.shape[0], r * self.num_groups), dtype=np.float32)
        for t in range(out.shape[1]):
            out[:, t] = self._tree_output(X32, t)
        return out

    def tree_output(self, X, round_idx: int, class_idx: int = 0) -> np.ndarray:
        """The contribution (eta * w of its leaf) of one tree to each row's margin."""
        X32, _ = as_features(X, expected_names=self.feature_names)
        return self._tree_output(X32, self.tree_index(round_idx, class_idx))

    def _tree_output(self, X32: np.ndarray, tree_idx: int) -> np.ndarray:
        values = self.forest.value[self.forest.node_slice(tree_idx)]
        return values[leaf_of_rows(self.forest, X32, tree_idx)]

    def decision_path(self, x_row, round_idx: int, class_idx: int = 0) -> list[int]:
        """Node ids one row visits in the tree of round ``round_idx`` (1-based), root first,
        down to the leaf of the final (pruned) tree."""
        X32, _ = as_features(np.asarray(x_row, dtype=float).reshape(1, -1),
                             expected_names=self.feature_names)
        return path_of_row(self.forest, X32, self.tree_index(round_idx, class_idx))

    def round_view(self, round_idx: int) -> RoundView:
        """Per-row state of the training data after ``round_idx`` rounds (see RoundView).

        Recomputed from the trees each time; nothing rounds x rows is stored."""
        return self.trace.round_view(self._check_round(round_idx))

    def round_views(self, round_idx: int) -> tuple[RoundView, RoundView]:
        """(round_view(round_idx - 1), round_view(round_idx)), walking the trees once: the
        later margin is the earlier one plus the round's trees."""
        return self.trace.round_views(self._check_round(round_idx, allow_zero=False))

    def split_candidates(self, round_idx: int, node_id: int, class_idx: int = 0,
                         features=None) -> pd.DataFrame:
        """Every candidate split of node ``node_id`` of the tree grown in round
        ``round_idx`` (1-based) for class ``class_idx``, as the search saw it.

        Columns: Feature, Threshold, DefaultLeft, CountLeft, CountRight, SumGradLeft,
        SumHessLeft, SumGradRight, SumHessRight, SimilarityLeft, SimilarityRight,
        SimilarityParent, Gain (XGBoost's loss change), Valid (False when min_child_weight
        blocks it), Best (the split the search chose; for hist/approx also the split gamma
        refused). hist/approx add Bin: the candidates are bins, left = bins 0..Bin.

        ``features``: only these features' candidates (names; exact enumerates only them).
        ``Best`` is the same as in the whole table: on none of them when the node split on
        another feature.

        With a data sample attached (``with_data``) the candidates are recomputed on the
        sample's rows that reach the node and their G, H (hist/approx: bins sketched on the
        sample); Best is then the sample's best, and the table says so: a column
        RecomputedOnSample (True) and ``attrs["recomputed_on"] == "sample"`` (else
        "training").
        """
        return self.trace.candidates(round_idx, node_id, class_idx,
                                     features=self._feature_indices(features))

    def candidate_summary(self, round_idx: int, node_id: int, class_idx: int = 0,
                          top: int = 15) -> CandidateSummary:
        """What a screen shows of ``split_candidates`` without the whole table (at 100k rows
        x 30 features a root has millions of candidates): ``.table`` holds, per feature,
        its best valid candidate, its ``top`` largest valid gains and its first ``top``
        candidates min_child_weight blocks (the same rows, columns and ``Best`` as the whole
        table's); ``.counts`` each feature's number of candidates. exact enumerates the
        candidates without keeping them."""
        if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
            raise ValueError(f"top = {top!r}: give a whole number of candidates >= 1.")
        summary = self.trace.candidate_summary(round_idx, node_id, class_idx, int(top))
        table = summary.table.copy()
        table.attrs = dict(summary.table.attrs)
        return summary._replace(table=table, counts=summary.counts.copy())

    def _feature_indices(self, features) -> np.ndarray | None:
        """Names to ascending column indices (None: every feature)."""
        if features is None:
            return None
        if isinstance(features, str):
            features = [features]
        index = {name: i for i, name in enumerate(self.feature_names)}
        unknown = [f for f in features if f not in index]
        if unknown:
            raise ValueError(f"features {unknown[:5]} are not the model's; its features are "
                             f"{self.feature_names[:10]}.")
        return np.array(sorted({index[f] for f in features}), dtype=np.int64)

    def tree_gradients(self, round_idx: int, class_idx: int = 0):
        """(g, h, rows) the tree of round ``round_idx`` (1-based) was grown on: the
        objective's gradients at the previous round's margins, with h = weight for
        first-order boosting and the rows left out by ``subsample`` zeroed (hist/approx) or
        marked h = -1 (exact). ``rows`` is the bool mask of the rows used, or None (all)."""
        g, h, rows = self.trace.tree_gradients(round_idx, class_idx)
        return g.copy(), h.copy(), None if rows is None else rows.copy()

    def rows_used(self, round_idx: int, class_idx: int = 0) -> np.ndarray:
        """Bool mask of the training rows the tree of round ``round_idx`` was grown on
        (all True unless ``subsample`` < 1). Recomputed from the seed, not stored."""
        return self.trace.rows_used(round_idx, class_idx)

    def features_used(self, round_idx: int, node_id: int = 0, class_idx: int = 0
                      ) -> np.ndarray:
        """Bool mask over the features node ``node_id`` of that tree could split on (all
        True unless a ``colsample_*`` < 1)."""
        return self.trace.features_used(round_idx, node_id, class_idx)

    def cuts(self, round_idx: int | None = None, class_idx: int = 0) -> dict[str, np.ndarray]:
        """The histogram bins of every feature: {feature name: cut values}. A value x is in
        bin i when cut[i-1] <= x < cut[i]; the last cut is a sentinel above every value.
        hist has one set for the whole model; approx re-sketches, so give the round.
        Raises ValueError for exact, which has no bins."""
        return self.trace.cuts(round_idx, class_idx)

    # ----------------------------------------------------------------- losses
    @property
    def metric_name(self) -> str:
        return metrics.metric_name(self.objective, self._params.loss)

    def loss_history(self) -> pd.DataFrame:
        """Loss (XGBoost's default metric) per round, round 0 (the baseline) first; one column
        for the training set ('train') and one per evaluation set; with a data sample
        attached (with a target) a column 'sample' (a loaded model's only column)."""
        if not (self.on_sample and self._history):
            self.trace.require("loss_history", rows_only=self.on_sample, target=True)
        frame = pd.DataFrame(self._history)
        frame.index.name = "round"
        return frame

    def quantile_loss_history(self) -> pd.DataFrame | None:
        """reg:quantileerror: the pinball loss of each quantile per round (round 0 the
        baseline), one column per set and quantile_alpha, named '<set> α=<alpha>' (the
        ``quantile`` metric of ``loss_history`` is their mean over the alphas); None for
        other objectives and for models without their training run."""
        if not self._alpha_history or self.on_sample:
            return None
        alphas = self._params.quantile_alpha
        frame = pd.DataFrame({f"{name} α={a:g}": losses[:, k]
                              for name, losses in self._alpha_history.items()
                              for k, a in enumerate(alphas)})
        frame.index.name = "round"
        return frame

    def evals_result(self) -> dict:
        """XGBoost's ``evals_result`` for the evaluation sets: one value per round."""
        if self.source is not None:
            self.trace.require("evals_result")
        return {name: {self.metric_name: self._history[name][1:].tolist()}
                for name in self._eval_names}

    # ----------------------------------------------------------------- XGBoost
    def _parts(self) -> ModelParts:
        return ModelParts(params=self._params, feature_names=self.feature_names,
                          base_score=self.base_score, base_margin=self.base_margin,
                          forest=self.forest, best_iteration=self.best_iteration,
                          best_score=self.best_score, file=self.source)

    def save_model(self, fname) -> None:
        """Write the model as XGBoost 3.2 does: ``.json`` (JSON) or ``.ubj`` (UBJSON).
        ``xgboost.Booster(model_file=fname)`` predicts the same margins, bit for bit. Feature
        names f0, f1, ... (a model trained on an array) are not written, as XGBoost does
        not write them."""
        model_file.write_model(fname, self._parts())

    def save_raw(self, raw_format: str = "ubj") -> bytearray:
        """The bytes ``save_model`` writes: ``raw_format`` 'json' or 'ubj' (as XGBoost's)."""
        return bytearray(model_file.model_bytes(self._parts(), raw_format))

    def xgboost_code(self) -> str:
        """Python source that retrains this model with ``xgboost.train``: its parameters
        and rounds, and a function ``retrain(X, y, sample_weight=None, evals=())`` that,
        given the rows this model was trained on, returns XGBoost's Booster with the same
        trees (string-equal dumps)."""
        if self.source is not None:
            raise NoTrainingTrace(
                f"xgboost_code needs the training parameters (eta, max_depth, ...), and a "
                f"model file ({self.source.name}) does not hold them. Train the model with "
                "boost.train to get the code that retrains it.")
        return xgboost_code.retrain_code(self._params, self.feature_names, self.train_args)


def load_model(fname) -> Booster:
    """Read an XGBoost model file (what ``xgboost.Booster.save_model`` writes, JSON or
    UBJSON, XGBoost >= 1.0): ``fname`` is a path, bytes or a binary file object. The model
    predicts XGBoost's margins bit for bit and shows its trees; it has no training trace
    (see ``Booster``). Raises ValueError for what BoostScope cannot show (dart, gblinear,
    categorical splits, vector leaves, unknown objectives) and for unreadable files."""
    parts = model_file.read_model(fname)
    return Booster(params=parts.params, feature_names=parts.feature_names,
                   base_score=parts.base_score, base_margin=parts.base_margin,
                   forest=parts.forest, data=None, history=None, eval_names=(),
                   best_iteration=parts.best_iteration, best_score=parts.best_score,
                   source=parts.file)


# The methods that run the engine's kernels, each an engine call that holds the engine's
# lock where numba's threading layer is not thread-safe (``boost.layer``).
for _name in ("with_data", "feature_values", "rows_in_node", "predict", "tree_outputs",
              "tree_output", "decision_path", "round_view", "round_views", "split_candidates",
              "candidate_summary", "tree_gradients", "rows_used", "features_used", "cuts"):
    setattr(Booster, _name, serialized(getattr(Booster, _name)))
del _name
