"""A model's rows round by round: their margins, gradients and leaves, which rows and
features each tree used, and the bins they fall in — recomputed from the trees on demand.

Nothing rounds x rows is stored: a round's margins start from the nearest checkpoint and add
a few trees (docs/design.md: the trace). The rows are the training rows, or a data sample
attached to a model (``Booster.with_data``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import binned, objectives, sample
from ..binned import BinnedRows
from ..data import as_features
from ..hist.binning import bin_matrix
from ..layout import column_major, read_only
from ..sampling import ColumnSampler
from ..targets import tree_gradients, tree_rows
from ..tree import add_tree_outputs, initial_margin, leaf_of_rows, rows_in_node


@dataclass(frozen=True)
class TrainingData:
    """The training rows, kept (read-only) so any round can be recomputed on demand: their
    float32 values (exact, approx, a data sample), or for a model trained with hist their
    bin codes (``binned``), which route every row through every tree as the values do."""

    X: np.ndarray | None  # (n_samples, n_features) float32, NaN = missing; None: ``binned``
    y: np.ndarray | None  # (n_samples,) float32; None: a data sample without a target
    weight: np.ndarray | None  # (n_samples,) float32
    need_forward: np.ndarray | None  # exact: (n_features,) bool, the forward scan runs
    tree_cuts: list | None = None  # hist/approx: the sketch.Cuts each tree was grown on
    root_from_bins: bool | None = None  # hist/approx: ``hist.histogram.root_sums``'s rule
    # The training margins after a few rounds ({round: (n_samples, n_groups) float32}), so a
    # round's per-row view adds a few trees instead of all of them.
    checkpoints: dict | None = None
    binned: BinnedRows | None = None  # hist (training rows): the codes under tree_cuts[0]

    @property
    def n_samples(self) -> int:
        return len(self.y) if self.X is None else self.X.shape[0]


@dataclass(frozen=True)
class RoundView:
    """The model's rows after ``round_idx`` rounds (0 = the baseline, before any tree).

    ``margin``, ``grad``, ``hess`` have shape (n_samples, n_groups); ``grad``/``hess`` are
    the objective's, taken at this margin: what the trees of round ``round_idx + 1`` fit
    (``tree_gradients`` adds what a tree changes: h = 1 for first-order boosting, the rows
    ``subsample`` left out).
    ``leaf`` (n_samples, n_groups) is the node id of the leaf each row reaches in the tree(s)
    of round ``round_idx`` (-1 at round 0). ``prediction`` and ``residual`` (y - prediction;
    one-hot(y) - probabilities for multi-class) are 1-D except for multi-class.
    """

    round_idx: int
    margin: np.ndarray
    prediction: np.ndarray
    residual: np.ndarray
    grad: np.ndarray
    hess: np.ndarray
    leaf: np.ndarray
    on_sample: bool = False  # the rows are a data sample attached to the model (with_data)


class NoTrainingTrace(ValueError):
    """A question needs what only training leaves behind (the rows, the losses, the
    training parameters), and the model was read from an XGBoost model file."""


class RowQuestions:
    """Mixed into ``Trace``: ``self.booster`` is the model, ``self.cache`` its answers."""

    # ----------------------------------------------------------------- what is at hand
    def require(self, what: str, rows_only: bool = False, target: bool = False
                ) -> TrainingData:
        """The model's rows, or NoTrainingTrace for a model read from a file. ``rows_only``:
        ``what`` reads only the rows (X, y, weights), which a data sample can stand in for;
        otherwise it needs the training run itself (its parameters, draws, losses).
        ``target``: ``what`` needs y, which a data sample may not have."""
        b = self.booster
        if (b.data is None) if rows_only else (b.source is not None or b.on_sample):
            if b.on_sample:
                raise NoTrainingTrace(
                    f"{what} needs the training run itself (its random draws or its rows), "
                    "which a data sample cannot stand in for.")
            raise NoTrainingTrace(
                f"{what} needs the training run, and this model was read from "
                f"{b.source.name}, which holds only its trees. A loaded model predicts "
                "(predict, staged_margins, tree_output, decision_path) and shows its trees "
                "with their own gain and cover (get_dump, trees_to_dataframe, get_score); "
                "to step through its rounds on a data sample, attach one with "
                "with_data(X, y).")
        if target and b.data.y is None:
            raise NoTrainingTrace(f"{what} needs the sample's target, and the data sample "
                                  "was attached without one: give with_data its y.")
        return b.data

    # ----------------------------------------------------------------- walking the rows
    def _split_bin(self) -> np.ndarray:
        """Binned rows: each node's split bin, found when first needed."""
        b = self.booster
        return self.cache.keep(("split_bins",),
                              lambda: binned.split_bins(b.forest, b.data.tree_cuts))

    def add_outputs(self, margin: np.ndarray, t_begin: int, t_end: int) -> None:
        """Add trees ``t_begin .. t_end - 1`` to the margins of the model's rows: by value,
        or (hist's kept codes) by bin code — the same leaves either way."""
        b = self.booster
        rows = b.data.binned
        if rows is None:
            add_tree_outputs(b.forest, b.data.X, margin, t_begin, t_end)
        else:
            binned.add_tree_outputs(b.forest, rows, self._split_bin(), margin, t_begin, t_end)

    def leaves_of_rows(self, tree_idx: int) -> np.ndarray:
        b = self.booster
        rows = b.data.binned
        if rows is None:
            return leaf_of_rows(b.forest, b.data.X, tree_idx)
        return binned.leaf_of_rows(b.forest, rows, self._split_bin(), tree_idx)

    def in_node(self, tree_idx: int, node_id: int) -> np.ndarray:
        """Bool mask of the rows reaching node ``node_id`` of tree ``tree_idx`` as grown."""
        def compute():
            b = self.booster
            rows = b.data.binned
            if rows is None:
                return rows_in_node(b.forest, b.data.X, tree_idx, node_id)
            return binned.rows_in_node(b.forest, rows, self._split_bin(), tree_idx, node_id)
        return self.cache.get(("in_node", tree_idx, node_id), compute)

    def rows_margin(self, end: int) -> np.ndarray:
        """The margins of the model's rows after ``end`` rounds (a new array), from the
        latest checkpoint at or before it: the same float32 sums in the same order as
        walking every tree."""
        b = self.booster
        g = b.num_groups
        checkpoints = b.data.checkpoints or {}
        start = max((c for c in checkpoints if c <= end), default=0)
        if start > 0:
            margin = checkpoints[start].copy()
        else:
            margin = initial_margin(b.data.n_samples, b.base_margin)
        self.add_outputs(margin, start * g, end * g)
        return margin

    # ----------------------------------------------------------------- rounds
    def round_view(self, r: int) -> RoundView:
        self.require("round_view", rows_only=True)
        return self._view(self.rows_margin(r), r)

    def round_views(self, r: int) -> tuple[RoundView, RoundView]:
        """Round ``r - 1``'s view and round ``r``'s, walking the trees once."""
        self.require("round_views", rows_only=True)
        b = self.booster
        before = self.rows_margin(r - 1)
        after = before.copy()
        self.add_outputs(after, (r - 1) * b.num_groups, r * b.num_groups)
        return self._view(before, r - 1), self._view(after, r)

    def _view(self, margin: np.ndarray, r: int) -> RoundView:
        b = self.booster
        y, w = b.data.y, b.data.weight
        prediction = objectives.response(b.objective, margin)
        if y is None:  # a data sample without a target: margins and predictions only
            grad = hess = np.full(margin.shape, np.nan, dtype=np.float32)
            residual = np.full(prediction.shape, np.nan, dtype=prediction.dtype)
        elif b.num_groups > 1:
            grad, hess = objectives.gradients(b.objective, margin, y, w, b._params.loss)
            onehot = np.zeros_like(prediction)
            onehot[np.arange(len(y)), y.astype(np.int64)] = 1.0
            residual = onehot - prediction
        else:
            grad, hess = objectives.gradients(b.objective, margin, y, w, b._params.loss)
            residual = y - prediction
        leaf = np.full((b.data.n_samples, b.num_groups), -1, dtype=np.int32)
        if r > 0:
            for k in range(b.num_groups):
                leaf[:, k] = self.leaves_of_rows(b.tree_index(r, k))
        return RoundView(round_idx=r, margin=margin, prediction=prediction,
                         residual=residual, grad=grad, hess=hess, leaf=leaf,
                         on_sample=b.on_sample)

    def tree_gradients(self, round_idx: int, class_idx: int = 0):
        """(g, h, rows) the tree of round ``round_idx`` was grown on (see
        ``Booster.tree_gradients``)."""
        b = self.booster
        t = b.tree_index(round_idx, class_idx)
        data = self.require("tree_gradients", rows_only=True, target=True)

        def compute():
            margin = self.rows_margin(round_idx - 1)
            grad, hess = objectives.gradients(b.objective, margin, data.y, data.weight,
                                              b._params.loss)
            return tree_gradients(b.search_params, grad[:, class_idx], hess[:, class_idx],
                                  data.weight, t)
        return self.cache.get(("gradients", t), compute)

    def rows_used(self, round_idx: int, class_idx: int = 0) -> np.ndarray:
        b = self.booster
        n = self.require("rows_used").n_samples
        rows = tree_rows(b._params, b.tree_index(round_idx, class_idx), n)
        return np.ones(n, dtype=bool) if rows is None else rows

    def features_used(self, round_idx: int, node_id: int = 0, class_idx: int = 0
                      ) -> np.ndarray:
        self.require("features_used")
        b = self.booster
        t = b.tree_index(round_idx, class_idx)
        sampler = ColumnSampler.of(b._params, b.num_features)
        if not sampler.active:
            return np.ones(b.num_features, dtype=bool)
        sl = b.forest.node_slice(t)
        if not 0 <= node_id < sl.stop - sl.start:
            raise ValueError(f"node_id = {node_id} is not a node of tree {t}.")
        depth = int(b.forest.depth[sl.start + node_id])
        return sampler.allowed(t, depth, [node_id])[0]

    # ----------------------------------------------------------------- values and bins
    def feature_values(self, f: int, X=None) -> np.ndarray:
        """Feature ``f``'s float32 values of the model's rows (see
        ``Booster.feature_values``)."""
        data = self.require("feature_values", rows_only=True)
        if data.X is not None:
            return data.X[:, f]
        if X is None:
            raise ValueError("this hist model keeps its training rows as bin codes, not their "
                             "values: pass X, the features it was trained on.")
        column = X.iloc[:, [f]] if isinstance(X, pd.DataFrame) else np.asarray(X)[:, [f]]
        values = as_features(column, what=f"X column {f}")[0][:, 0]
        if len(values) != data.n_samples or not binned.codes_match(
                values, data.tree_cuts[0].feature_cuts(f), data.binned.codes[f],
                data.binned.missing):
            raise ValueError(f"X is not the data this model was trained on: its column {f} "
                             "does not fall in the bins the model kept.")
        return values

    def _cuts_key(self, tree_idx: int) -> int:
        """Which set of cuts tree ``tree_idx`` uses, named by the first tree that uses it:
        0 for a model with one set (hist; approx with a constant hessian, which training
        and a sample both sketch once), else the tree's own index (approx re-sketches)."""
        b = self.booster
        p = b.search_params
        if p.tree_method == "hist":
            return 0
        if not b.on_sample:  # training's cuts: trees that share a set share its object
            cuts = b.data.tree_cuts
            return next(i for i in range(tree_idx + 1) if cuts[i] is cuts[tree_idx])
        return 0 if objectives.spec(p.objective).const_hess else tree_idx

    def tree_cuts(self, tree_idx: int, hess=None):
        """The cuts tree ``tree_idx``'s candidates are computed on: training's, or sketched
        on the data sample (hist once; approx per tree, from the tree's hessians, unless the
        objective's hessian is constant), when first asked. ``hess``: the tree's hessians
        when the caller has them already (they are not computed a second time)."""
        b = self.booster
        if not b.on_sample:
            return b.data.tree_cuts[tree_idx]
        p = b.search_params
        key = self._cuts_key(tree_idx)

        def compute():
            h = hess
            if p.tree_method != "approx":
                h = None
            elif key != tree_idx or h is None:  # key 0 stands for every tree
                r, k = divmod(key, b.num_groups)
                h = self.tree_gradients(r + 1, k)[1]
            return sample.sketch(b.data.X, b.data.weight, p, h)
        return self.cache.get(("sample_cuts", key), compute)

    def bins(self, tree_idx: int):
        """Bin codes of the model's rows under the cuts tree ``tree_idx`` was grown on,
        feature by feature, and the missing code: hist's kept codes, else binned once per
        set of cuts."""
        b = self.booster
        if b.data.binned is not None:
            return b.data.binned.codes, b.data.binned.missing
        cuts = self.tree_cuts(tree_idx)

        def compute():
            codes, missing = bin_matrix(b.data.X, cuts)
            return read_only(column_major(codes, np.arange(cuts.n_features))), missing
        return self.cache.get(("bins", self._cuts_key(tree_idx)), compute)

    def cuts(self, round_idx: int | None = None, class_idx: int = 0) -> dict[str, np.ndarray]:
        """Each feature's bin edges (see ``Booster.cuts``)."""
        b = self.booster
        p = b.search_params
        if not b.on_sample:
            self.require("cuts")
        elif p.tree_method == "approx":
            self.require("cuts", rows_only=True, target=True)  # approx sketches by hessians
        if p.tree_method == "exact":
            raise ValueError("tree_method='exact' has no bins: every distinct value is a "
                             "candidate. Train with tree_method='hist' or 'approx'.")
        t = 0 if round_idx is None else b.tree_index(round_idx, class_idx)
        if round_idx is None and p.tree_method == "approx":
            raise ValueError("tree_method='approx' re-sketches its bins for every tree; pass "
                             "round_idx (and class_idx) to say which tree's bins.")
        c = self.tree_cuts(t)
        return {name: c.feature_cuts(i).copy() for i, name in enumerate(b.feature_names)}
