"""The records of a model's predictions that figures draw: a round's fit (``Fit``), one
model's prediction curve over one feature (``Curve``) and its predictions for given rows
(``Predictions``).

Predictions are XGBoost's (probabilities for classification), float32 as the engine makes
them; the data drawn with them (the rows' features and labels, a grid over a feature) are
the caller's values, as given.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import objectives
from ..tree import leaf_of_rows

GRID = 80  # the surface's mesh: GRID x GRID points
CURVE_POINTS = 400  # points of a prediction curve over one feature
CURVE_PAD = 0.02  # a curve's grid runs this share of the feature's range beyond it
SURFACE_PAD = 0.05  # the mesh's margin around the data, per feature


LABELLED_ROWS = 12  # a curve fit of at most this many rows says each row's residual


def row_residuals(booster, kind: str, y: np.ndarray, predict) -> np.ndarray | None:
    """y − ``predict()`` (the drawn rows' predictions, one round or every round) where a fit
    says each row's residual: a curve of at most ``LABELLED_ROWS`` rows, one output; else
    None (``predict`` not called)."""
    if kind != "curve" or len(y) > LABELLED_ROWS or booster.num_groups != 1:
        return None
    return (y.astype(np.float64) - np.asarray(predict(), dtype=np.float64)).astype(np.float32)


@dataclass(frozen=True)
class Fit:
    """What ``viz.fit.make_fit_figure`` draws for round ``round_idx`` (its previous round
    too). ``kind``: 'curve' (one feature, not multi-class: predictions over a grid of the
    feature, the round's tree alone), 'surface' (two features: predictions over a mesh, the
    leaf of the round's tree at each mesh point) or 'rows' (otherwise: the drawn rows'
    predictions)."""

    kind: str
    objective: str
    round_idx: int
    feature_names: tuple[str, ...]
    rows: np.ndarray  # the rows drawn (indices into the caller's X)
    x: np.ndarray | None  # (len(rows), 1 or 2) their features (curve, surface); None: rows
    y: np.ndarray  # (len(rows),) their labels
    y_range: tuple[float, float]  # label_range of every row (surface colours)
    grid: tuple[np.ndarray, ...]  # curve: (x,); surface: (x, y) axes of the mesh; rows: ()
    now: np.ndarray  # float32 predictions after round_idx: on the grid, the mesh
    # (row-major over (y, x), one column per class for multi-class) or the drawn rows
    before: np.ndarray | None  # after round_idx - 1 (curve, rows); None at round 0, surface
    step: np.ndarray | None  # curve: float32 output (eta * w) of round_idx's tree alone
    leaves: np.ndarray | None  # surface, one output group: int32 leaf of round_idx's tree
    # curve, a handful of rows (``LABELLED_ROWS``), one output: y − prediction of each
    # drawn row after round_idx (what a student computes by hand), else None
    residuals: np.ndarray | None = None


@dataclass(frozen=True)
class Curve:
    """One model's predictions along one feature (one-feature data)."""

    objective: str
    round_idx: int  # the rounds predicted with: the one asked, or the model's last
    x: np.ndarray  # (CURVE_POINTS,) the grid over the feature
    prediction: np.ndarray  # (CURVE_POINTS,) float32


@dataclass(frozen=True)
class Predictions:
    """One model's predictions for the rows asked about."""

    objective: str
    round_idx: int  # the rounds predicted with: the one asked, or the model's last
    prediction: np.ndarray  # (n,) float32, or (n, classes) for multi-class


def predictions_at(booster, X: np.ndarray, round_idx: int) -> np.ndarray:
    """Predictions (probabilities for classification) of the first ``round_idx`` rounds."""
    if round_idx == 0:
        margin = np.tile(booster.base_margin, (len(X), 1)).astype(np.float32)
    else:
        margin = booster.predict(X, output_margin=True, iteration_range=(0, round_idx))
        margin = margin.reshape(len(X), -1)
    return objectives.response(booster.objective, margin)


def curve_grid(x: np.ndarray, pad: bool = True) -> np.ndarray:
    """CURVE_POINTS values over the range of ``x`` (NaN skipped), beyond it by CURVE_PAD of
    the range on both sides when ``pad`` (1 when the range is 0)."""
    lo, hi = np.nanmin(x), np.nanmax(x)
    if not pad:
        return np.linspace(lo, hi, CURVE_POINTS)
    margin = (hi - lo) * CURVE_PAD or 1.0
    return np.linspace(lo - margin, hi + margin, CURVE_POINTS)


def fit_kind(n_features: int, objective: str) -> str:
    """'curve' (one feature, not multi-class), 'surface' (two features) or 'rows'."""
    if n_features == 1 and objectives.spec(objective).task != "multiclass":
        return "curve"
    return "surface" if n_features == 2 else "rows"


def surface_axes(X: np.ndarray, points: int = GRID) -> tuple[np.ndarray, np.ndarray]:
    """The mesh's two axes: ``points`` values per feature over its range (NaN skipped),
    SURFACE_PAD of the range beyond it on both sides."""
    lo, hi = np.nanmin(X, axis=0), np.nanmax(X, axis=0)
    pad = (hi - lo) * SURFACE_PAD
    return (np.linspace(lo[0] - pad[0], hi[0] + pad[0], points),
            np.linspace(lo[1] - pad[1], hi[1] + pad[1], points))


def mesh_points(gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
    """(len(gx) * len(gy), 2): the mesh's points, row-major over (y, x)."""
    return np.array(np.meshgrid(gx, gy)).reshape(2, -1).T


def fit_points(X: np.ndarray, rows: np.ndarray, kind: str, points: int = GRID
               ) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """(the axes drawn, the points predicted at) of a fit of ``kind``: a curve's grid over
    the feature, a surface's mesh (``points`` per axis) or the drawn rows themselves."""
    if kind == "curve":
        axis = curve_grid(X[:, 0])
        return (axis,), axis[:, None]
    if kind == "surface":
        gx, gy = surface_axes(X, points)
        return (gx, gy), mesh_points(gx, gy)
    return (), X[rows]


def label_range(y: np.ndarray) -> tuple[float, float]:
    """The smallest and largest label, missing ones left out; (nan, nan) when every label is
    missing (a model opened with a sample that has no target)."""
    present = y[~np.isnan(y)] if y.dtype.kind == "f" else y
    if not present.size:
        return float("nan"), float("nan")
    return float(present.min()), float(present.max())


def fit(booster, X, y, round_idx: int, rows, grid: int = GRID) -> Fit:
    """``X``, ``y``: the rows the fit is drawn against (the training rows); ``rows``: which
    of them to draw (the grids span every row); ``grid``: the surface's points per axis."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    rows = np.asarray(rows)
    r = int(round_idx)
    names = tuple(booster.feature_names)
    y_range = label_range(y)
    common = {"objective": booster.objective, "round_idx": r, "feature_names": names,
              "rows": rows, "y": y[rows], "y_range": y_range}
    kind = fit_kind(X.shape[1], booster.objective)
    axes, at = fit_points(X, rows, kind, grid)
    x = None if kind == "rows" else X[rows]
    if kind == "curve":
        residuals = row_residuals(booster, kind, y[rows],
                                  lambda: predictions_at(booster, X[rows], r))
        return Fit(kind="curve", x=x, grid=axes, now=predictions_at(booster, at, r),
                   before=predictions_at(booster, at, r - 1) if r > 0 else None,
                   step=booster.tree_output(at, r) if r > 0 else None, leaves=None,
                   residuals=residuals, **common)
    if kind == "surface":
        leaves = None
        if r > 0 and booster.num_groups == 1:  # the round's tree's rectangles, one per leaf
            leaves = leaf_of_rows(booster.forest, np.ascontiguousarray(at, dtype=np.float32),
                                  booster.tree_index(r))
        return Fit(kind="surface", x=x, grid=axes, now=predictions_at(booster, at, r),
                   before=None, step=None, leaves=leaves, **common)
    return Fit(kind="rows", x=x, grid=axes, now=predictions_at(booster, at, r),
               before=predictions_at(booster, at, r - 1) if r > 0 else None, step=None,
               leaves=None, **common)


def curve(booster, X, round_idx: int, pad: bool = True) -> Curve:
    """Predictions after ``round_idx`` rounds (the model's last if it has fewer) along
    ``curve_grid`` of the one feature of ``X``."""
    r = min(int(round_idx), booster.num_boosted_rounds())
    grid = curve_grid(np.asarray(X, dtype=float)[:, 0], pad)
    return Curve(objective=booster.objective, round_idx=r, x=grid,
                 prediction=predictions_at(booster, grid[:, None], r))


def predictions(booster, X, round_idx: int) -> Predictions:
    """Predictions for the rows ``X`` after ``round_idx`` rounds (or the model's last)."""
    r = min(int(round_idx), booster.num_boosted_rounds())
    X = np.asarray(X, dtype=float)
    return Predictions(objective=booster.objective, round_idx=r,
                       prediction=predictions_at(booster, X, r))
