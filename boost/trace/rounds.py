"""Every round of a model at once, for the page's player (``docs/player.md``): what the fit
draws after each round 0..n (``RoundsData``) and each round's tree of one class, as columns
(``RoundTrees``).

Predictions are XGBoost's (probabilities for classification), float32, and equal bit for bit
to ``predict(..., iteration_range=(0, r))`` (``fit.predictions_at``): the margins start at
the base margin and add each tree's leaf values in tree order, in float32, as the engine's
``add_tree_outputs`` does — each tree is walked once for all rounds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from .. import objectives
from .._dtypes import REASON_NAMES
from ..data import as_features
from ..tree import initial_margin, leaf_of_rows
from .fit import (
    fit_kind,
    fit_points,
    label_range,
    middle_output,
    quantile_alphas,
    row_residuals,
)

# The player's mesh: points per axis, coarser than the static fit's ``GRID``. The page holds
# the mesh's predictions (float32) and the round's leaves (uint8) for every round, 5 bytes a
# point: at 80 points per axis, 100 rounds are 4.3 MB in base64; at 40, 1.07 MB for the fit
# alone; at 32, 0.68 MB, which leaves the tree track room within about 1 MB per 100 rounds.
ROUND_GRID = 32

# The tree track's columns (docs/player.md, "The tree track"): name and dtype, in order.
TREE_COLUMNS = (("node", np.int32), ("parent", np.int32), ("yes", np.int32),
                ("no", np.int32), ("missing", np.int32), ("depth", np.int32),
                ("slot", np.float32), ("kind", np.uint8), ("feature", np.int32),
                ("split", np.float32), ("gain", np.float32), ("sum_grad", np.float32),
                ("sum_hess", np.float32), ("similarity", np.float32), ("weight", np.float32),
                ("value", np.float32), ("reason", np.uint8))

# A node's kind (``kind``): what it is in the tree as grown and what pruning did to it.
KIND_SPLIT, KIND_LEAF, KIND_CUT, KIND_REFUSED, KIND_PRUNED_SPLIT, KIND_PRUNED_LEAF = range(6)

REASONS = tuple(REASON_NAMES[i] for i in range(len(REASON_NAMES)))  # ``reason`` indexes it


@dataclass(frozen=True)
class RoundTrees:
    """The trees of class ``class_idx``, rounds 1..n, as grown (pruned nodes included), one
    row per node: round r's rows are ``offsets[r - 1]:offsets[r]``, in node id order."""

    class_idx: int
    groups: int  # trees a round (multi-class: one per class)
    offsets: np.ndarray  # (n + 1,) int32
    columns: dict  # name -> (nodes,) array, TREE_COLUMNS' names and dtypes
    slots: np.ndarray  # (n,) int32: round r's leaf slots (``slot`` runs 0..slots - 1)
    reasons: tuple[str, ...]  # ``reason`` indexes it; "" for a node that stays split


@dataclass(frozen=True)
class RoundsData:
    """What ``viz.fit.make_fit_figure`` draws, after every round 0..n (``Fit``'s fields,
    with a round axis first): ``kind`` by ``fit.fit_kind``. ``now[r]``: predictions after
    round r on the curve's grid, the mesh (row-major over (y, x)) or the drawn rows, one
    column per class for multi-class. ``step[r]`` (curve): round r's tree alone (η·w);
    ``leaves[r]`` (surface, one output group): the leaf of round r's tree at each mesh point.
    Row 0 of ``step`` is 0 and of ``leaves`` -1 (round 0 has no tree)."""

    kind: str
    objective: str
    n_rounds: int
    feature_names: tuple[str, ...]
    rows: np.ndarray  # the rows drawn (indices into the caller's X)
    x: np.ndarray | None  # (len(rows), 1 or 2) their features (curve, surface); None: rows
    y: np.ndarray  # (len(rows),) their labels
    y_range: tuple[float, float]  # label_range of every row's label
    grid: tuple[np.ndarray, ...]  # curve: (x,); surface: (x, y) axes of the mesh; rows: ()
    now: np.ndarray  # (n + 1, points) float32, or (n + 1, points, classes)
    step: np.ndarray | None  # (n + 1, points) float32: curve
    leaves: np.ndarray | None  # (n + 1, points) int32: surface, one output group
    trees: RoundTrees
    residuals: np.ndarray | None = None  # (n + 1, rows) float32: ``Fit.residuals``
    alphas: tuple | None = None  # ``Fit.alphas``: reg:quantileerror's quantile_alpha
    middle: int = 0  # ``Fit.middle``
    # class ``trees.class_idx``'s intercept, where every row starts at round 0: base_score
    # (the response, as XGBoost's parameter) and its margin, the units of the leaves' η·w
    base_score: float | None = None
    base_margin: float | None = None


def rounds(booster, X, y, rows, class_idx: int = 0, points: int = ROUND_GRID) -> RoundsData:
    """Every round's fit against ``X``, ``y`` (``rows``: which to draw; ``points``: the
    surface's per axis) and the trees of class ``class_idx``."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    rows = np.asarray(rows)
    kind = fit_kind(X.shape[1], booster.objective)
    x = None if kind == "rows" else X[rows]
    grid, at = fit_points(X, rows, kind, points)
    now, own, leaves = _staged(booster, at, class_idx)
    residuals = row_residuals(booster, kind, y[rows],
                              lambda: _staged(booster, X[rows], class_idx)[0])
    return RoundsData(
        kind=kind, objective=booster.objective, n_rounds=booster.num_boosted_rounds(),
        feature_names=tuple(booster.feature_names), rows=rows, x=x, y=y[rows],
        y_range=label_range(y), grid=grid, now=now,
        step=own if kind == "curve" else None,
        leaves=leaves if kind == "surface" and booster.num_groups == 1 else None,
        trees=round_trees(booster.trace.trees(), booster.feature_names, booster.num_groups,
                          class_idx), residuals=residuals, alphas=quantile_alphas(booster),
        middle=middle_output(quantile_alphas(booster)),
        base_score=_of_class(booster.base_score, class_idx),
        base_margin=_of_class(booster.base_margin, class_idx))


def _of_class(values, class_idx: int) -> float:
    """Class ``class_idx``'s entry of an intercept (one for every output group, or one)."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    return float(values[min(class_idx, len(values) - 1)])


def _staged(booster, at: np.ndarray, class_idx: int):
    """(predictions after rounds 0..n, class ``class_idx``'s tree output and leaf at each
    point, by round): each tree walked once, its outputs added to the float32 margins in
    tree order."""
    X32, _ = as_features(at, expected_names=booster.feature_names)
    forest, g, n = booster.forest, booster.num_groups, booster.num_boosted_rounds()
    margin = initial_margin(len(X32), booster.base_margin)
    first = objectives.response(booster.objective, margin)
    now = np.empty((n + 1, *first.shape), dtype=np.float32)
    now[0] = first
    own = np.zeros((n + 1, len(X32)), dtype=np.float32)
    leaves = np.full((n + 1, len(X32)), -1, dtype=np.int32)
    for t in range(n * g):
        leaf = leaf_of_rows(forest, X32, t)
        out = forest.value[forest.node_slice(t)][leaf]
        margin[:, forest.tree_group[t]] += out
        r = t // g + 1
        if t % g == class_idx:
            own[r], leaves[r] = out, leaf
        if t % g == g - 1:
            now[r] = objectives.response(booster.objective, margin)
    return now, own, leaves


def round_trees(frame, feature_names, num_groups: int, class_idx: int) -> RoundTrees:
    """``frame``: ``trees_to_dataframe(include_pruned=True)``; its trees of class
    ``class_idx`` as the tree track's columns."""
    part = frame[frame.Class.to_numpy() == class_idx]
    n = int(frame.Tree.max()) // num_groups + 1 if len(frame) else 0
    counts = np.bincount(part.Round.to_numpy() - 1, minlength=n)
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    node = part.Node.to_numpy()
    yes, no, missing = (_child_ids(part[c]) for c in ("Yes", "No", "Missing"))
    has_split = part.Feature.to_numpy() != "Leaf"
    index = {name: i for i, name in enumerate(feature_names)}
    feature = np.array([index.get(f, -1) for f in part.Feature.to_numpy()], dtype=np.int32)
    slot = np.zeros(len(part), dtype=np.float32)
    _slots(offsets, yes.astype(np.int64), no.astype(np.int64), slot)
    reason_of = {name: i for i, name in enumerate(REASONS)}
    columns = {
        "node": node, "parent": part.Parent.to_numpy(), "yes": yes, "no": no,
        "missing": missing, "depth": part.Depth.to_numpy(), "slot": slot,
        "kind": _kinds(has_split, yes >= 0, part.Leaf.to_numpy(), part.Pruned.to_numpy()),
        "feature": feature, "split": np.where(has_split, part.Split.to_numpy(), np.nan),
        "gain": np.where(has_split, part.Gain.to_numpy(), 0.0),
        "sum_grad": part.SumGrad.to_numpy(), "sum_hess": part.SumHess.to_numpy(),
        "similarity": part.Similarity.to_numpy(), "weight": part.Weight.to_numpy(),
        "value": part.Value.to_numpy(),
        "reason": np.array([reason_of[r] for r in part.Reason.to_numpy()]),
    }
    columns = {name: np.ascontiguousarray(columns[name], dtype=dtype)
               for name, dtype in TREE_COLUMNS}
    slots = np.array([int(slot[a:b].max()) + 1 if b > a else 0
                      for a, b in zip(offsets[:-1], offsets[1:], strict=True)], dtype=np.int32)
    return RoundTrees(class_idx=class_idx, groups=num_groups, offsets=offsets,
                      columns=columns, slots=slots, reasons=REASONS)


def _child_ids(column) -> np.ndarray:
    """'T-N' → N; -1 where there is no child (a column of no children at all, as on one
    round of single-leaf trees, is all -1)."""
    ids = [-1 if not isinstance(v, str) else int(v.rpartition("-")[2]) for v in column]
    return np.asarray(ids, dtype=np.int64)


def _kinds(has_split, grown, leaf, pruned) -> np.ndarray:
    """The node kinds (KIND_*) from the frame's columns: a split with children (``grown``),
    a feature without children (refused by γ), a leaf of the final tree, a pruned node."""
    kind = np.full(len(leaf), KIND_LEAF, dtype=np.uint8)
    kind[grown & ~leaf & ~pruned] = KIND_SPLIT
    kind[grown & leaf] = KIND_CUT
    kind[has_split & ~grown & ~pruned] = KIND_REFUSED
    kind[pruned & grown] = KIND_PRUNED_SPLIT
    kind[pruned & ~grown] = KIND_PRUNED_LEAF
    return kind


@njit(cache=True)
def _slots(offsets, yes, no, out):
    """x of every node in leaf slots (``viz.tree_layout.slot_positions``' rule): a tree's
    leaves 0, 1, ... left to right (yes before no), a split at the mean of its children's.
    Children's ids are larger than their parent's, so splits are placed from the last id."""
    for t in range(len(offsets) - 1):
        a, b = offsets[t], offsets[t + 1]
        if b == a:
            continue
        stack = np.empty(b - a, dtype=np.int64)
        top, next_leaf = 1, 0.0
        stack[0] = 0
        while top > 0:  # depth first, yes first: the leaves in order
            top -= 1
            node = stack[top]
            if yes[a + node] < 0:
                out[a + node] = next_leaf
                next_leaf += 1.0
            else:
                stack[top] = no[a + node]
                stack[top + 1] = yes[a + node]
                top += 2
        for node in range(b - a - 1, -1, -1):
            if yes[a + node] >= 0:
                out[a + node] = (out[a + yes[a + node]] + out[a + no[a + node]]) / 2.0
