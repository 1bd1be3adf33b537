"""The records figures draw that are not a node's: a round's fit, a model's curve and
predictions, two rows in function space, one row's waterfall, a feature's sketch, the
margins of training and validation rows, feature importance round by round.

Each question is a method of ``FigureQuestions`` (``booster.trace.<question>(...)``) and
returns a frozen record, defined in the module that builds it (``fit``, ``function_space``,
``margins``, ``sketch``, or here)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from .. import objectives
from ..importance import get_score
from .fit import GRID, Curve, Fit, Predictions
from .fit import curve as _curve
from .fit import fit as _fit
from .fit import predictions as _predictions
from .function_space import FunctionSpace
from .function_space import function_space as _function_space
from .margins import Histograms, Summary
from .margins import histograms as _histograms
from .margins import summary as _summary
from .rounds import ROUND_GRID, RoundsData
from .rounds import rounds as _rounds
from .sketch import SketchData
from .sketch import sketch as _sketch


@dataclass(frozen=True)
class Waterfall:
    """One row's margin for one class: base_score, then each tree's output, rounds
    1..round_idx."""

    objective: str
    round_idx: int
    class_idx: int
    base: float  # the class's base margin
    contrib: np.ndarray  # (round_idx,) float32: each round's tree's output (eta * w)
    margin: float  # base + the contributions, summed in float64
    probability: float | None  # binary: P(y = 1) at that margin; None otherwise


@dataclass(frozen=True)
class ImportanceByRound:
    """XGBoost's ``get_score`` of the trees of rounds 1..k, for every k."""

    importance_type: str
    feature_names: tuple[str, ...]
    table: np.ndarray  # (rounds + 1, features): row k the trees of rounds 1..k (row 0 = 0)


def _digest(values) -> tuple:
    """A key for an array's content: its shape, dtype and a hash of its bytes."""
    a = np.ascontiguousarray(np.asarray(values))
    return a.shape, str(a.dtype), hashlib.blake2b(a.view(np.uint8).ravel(),
                                                  digest_size=16).hexdigest()


class FigureQuestions:
    """Mixed into ``Trace``: ``self.booster`` is the model asked."""

    def fit(self, X, y, round_idx: int, rows, grid: int = GRID) -> Fit:
        """The fit after ``round_idx`` rounds (and the one before) against ``X``, ``y``;
        ``rows``: the rows to draw (``viz.theme.sample_rows``); ``grid``: the surface's
        points per axis."""
        return _fit(self.booster, X, y, round_idx, rows, grid)

    def rounds(self, X, y, rows, class_idx: int = 0, grid: int = ROUND_GRID) -> RoundsData:
        """The fit after every round (``fit``'s, for the page's player) and the trees of
        class ``class_idx``, once per model and data drawn."""
        key = ("rounds", _digest(X), _digest(y), _digest(rows), int(class_idx), int(grid))
        return self.cache.get(key, lambda: _rounds(self.booster, X, y, rows, class_idx, grid))

    def curve(self, X, round_idx: int, pad: bool = True) -> Curve:
        """One-feature ``X``: the predictions along a grid over the feature (beyond its
        range when ``pad``), after ``round_idx`` rounds or the model's last."""
        return _curve(self.booster, X, round_idx, pad)

    def predictions(self, X, round_idx: int) -> Predictions:
        """The predictions for ``X`` after ``round_idx`` rounds or the model's last."""
        return _predictions(self.booster, X, round_idx)

    def function_space(self, X_rows, y_rows, w_rows, rows: tuple[int, int], round_idx: int,
                       klass: int = 0) -> FunctionSpace:
        """Two rows' margins after rounds 0..round_idx, g and h there, the next step."""
        return _function_space(self.booster, X_rows, y_rows, w_rows, rows, round_idx, klass)

    def waterfall(self, x_row, round_idx: int, klass: int = 0) -> Waterfall:
        """One row (``x_row``: its features) from base_score through every tree of class
        ``klass`` of rounds 1..round_idx."""
        b = self.booster
        outputs = b.tree_outputs(np.asarray(x_row, dtype=float).reshape(1, -1), round_idx)[0]
        contrib = outputs[klass::b.num_groups]
        base = float(b.base_margin[klass])
        total = base + float(np.sum(contrib.astype(np.float64)))
        p = None
        if objectives.spec(b.objective).task == "binary":
            margin = np.array([[total]], np.float32)
            p = float(objectives.response(b.objective, margin)[0])
        return Waterfall(objective=b.objective, round_idx=round_idx, class_idx=klass,
                         base=base, contrib=contrib, margin=total, probability=p)

    def sketch(self, f: int, round_idx: int, klass: int = 0, X=None) -> SketchData:
        """Feature ``f``'s training values, exact's thresholds and the model's cuts."""
        return _sketch(self.booster, f, round_idx, klass, X)

    def margin_summary(self, sets: dict) -> Summary:
        """``sets``: {'train': (X, y), 'valid': (X, y)}: their scores' summary, by round."""
        return _summary(self.booster, sets)

    def margin_histograms(self, sets: dict, edges) -> Histograms:
        """The sets' scores counted in the bars of ``edges``, by round."""
        return _histograms(self.booster, sets, edges)

    def importance_by_round(self, importance_type: str) -> ImportanceByRound:
        """Feature importance (``importance_type`` of ``get_score``) after every round."""
        b = self.booster

        def compute():  # every round's get_score: once a model, whatever round is on screen
            names = b.feature_names
            n = b.num_boosted_rounds()
            table = np.zeros((n + 1, len(names)))
            for k in range(1, n + 1):
                score = get_score(b.forest, names, importance_type, (0, k * b.num_groups))
                table[k] = [score.get(f, 0.0) for f in names]
            return ImportanceByRound(importance_type=importance_type,
                                     feature_names=tuple(names), table=table)
        return self.cache.get(("importance", importance_type), compute)
