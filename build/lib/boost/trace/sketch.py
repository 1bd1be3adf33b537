"""One feature's candidate splits: exact's thresholds against hist's (or approx's) cut
points (``SketchData``, drawn by ``viz.sketch``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import sketch as quantile_sketch
from . import candidates


@dataclass(frozen=True)
class SketchData:
    """One feature's training values and both methods' candidates."""

    values: np.ndarray  # the training rows' values (float32, NaN = missing)
    thresholds: np.ndarray  # exact's candidate thresholds
    cuts: np.ndarray  # hist's (or approx's) cut points, without the sentinel
    weight: np.ndarray | None  # what the sketch weighted each row by (None: 1 each)
    size_by: np.ndarray | None  # each row's hessian h, for the marker size
    max_bin: int
    tree: int | None  # approx: the tree (round) whose cuts these are
    hist_cuts: np.ndarray | None = None  # approx: hist's cuts of the same values, to compare


def sketch(booster, f: int, round_idx: int, klass: int = 0, X=None) -> SketchData:
    """Feature ``f`` of the training rows, exact's thresholds and the cuts: the model's own
    (hist; approx: the next tree's, sketched with the hessians of ``round_idx``), or for
    exact the cuts hist would make with the model's max_bin. ``size_by``: the hessian the
    approx sketch weighted by, or for classification h at ``round_idx``. ``X``: the training
    features, which a hist model does not keep (``Booster.feature_values``)."""
    values, w = booster.feature_values(f, X), booster.data.weight
    method, max_bin = booster.params["tree_method"], int(booster.params["max_bin"])
    name, n = booster.feature_names[f], booster.num_boosted_rounds()
    weight, size_by, tree = w, None, None
    if method == "approx":
        tree = max(1, min(round_idx + 1, n))
        size_by = booster.tree_gradients(tree, klass)[1]
        cuts = booster.cuts(tree, klass)[name]
        weight = size_by if w is None else size_by * w  # as training weights the sketch
    elif method == "hist":
        cuts = booster.cuts()[name]
    else:
        cuts = _hist_cuts(values, w, max_bin)
    if size_by is None and booster.objective.startswith(("binary:", "multi:")):
        size_by = booster.round_view(round_idx).hess[:, klass]
    thresholds = candidates.exact_thresholds(values)
    return SketchData(values=values, thresholds=thresholds, cuts=cuts[:-1], weight=weight,
                      size_by=size_by, max_bin=max_bin, tree=tree,
                      hist_cuts=_hist_cuts(values, w, max_bin)[:-1] if tree else None)


def _hist_cuts(values: np.ndarray, w, max_bin: int) -> np.ndarray:
    """The cuts hist makes of one feature's values (its sentinel last)."""
    return quantile_sketch.hist_cuts(np.ascontiguousarray(values[:, None]), w,
                                     max_bin).feature_cuts(0)
