"""``judge``: what a sweep (``boost.sweep``'s frame) can say about its points — each point's
best round, and whether one point is better than the others or the folds cannot tell.

>>> v = boost.judge(boost.sweep(params, X, y, {"eta": [0.1, 0.3, 1.0]}, 500,
...                             early_stopping_rounds=20, nfold=5))
>>> v.points.iloc[v.winner] if v.winner is not None else v.points.iloc[list(v.close)]

A point's best round is the first round with its lowest validation loss (the round XGBoost's
early stopping keeps); a cross-validated point's loss there is the folds' mean.

The rule (the one-standard-error rule, paired): every point was trained on the same k folds,
so each point is compared with the best point (the lowest mean loss) fold by fold. For point
j and fold f, d_f = loss_j,f − loss_best,f, each at its point's own best round. The point's
difference from the best is the mean of d over the folds (≥ 0: the mean difference is the
difference of the means), its standard error ``se = std(d) / sqrt(k)`` with ``std`` the
sample standard deviation (divisor k − 1). A point whose difference is within one standard
error of 0 (``diff <= se``) is tied with the best; the best is the winner when no other point
is tied with it. Pairing removes what the folds share (a hard fold is hard for every point),
which the folds' own standard deviation of the losses does not.

Scored on one validation set (no folds), there is nothing to estimate a standard error
from: the lowest loss wins, unless another point's loss equals it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

# the per-fold test loss columns of a cross-validated sweep: test-<metric>-fold<k>, k from 0
FOLD = "fold"
SCORES = ("round", "train", "valid", "gap", "spread", "trained", "still", "diff", "se")


@dataclass(frozen=True)
class Verdict:
    """A sweep judged. ``points``: one row per grid point, ordered by point, with ``point``,
    the grid's values and ``SCORES``: ``round`` (the best round), ``train`` and ``valid``
    (the losses there; cross-validated: the folds' means), ``gap`` = valid − train,
    ``spread`` (the folds' standard deviation of the test loss at that round, as xgboost.cv;
    0 on one validation set), ``trained`` (rounds trained), ``still`` (the best round is the
    last trained: more rounds could lower the loss), ``diff`` (the mean paired difference
    from the best point's loss; 0 for the best) and ``se`` (its standard error; NaN without
    folds). ``best``: the row with the lowest loss (the first of equal ones); ``close``: the
    rows tied with it (``diff <= se``), the best included; ``winner``: ``best`` when it is
    alone in ``close``, else None; ``nfold``: the folds paired on (None: one validation
    set); ``metric``: the loss's name; ``columns``: the sweep's (train, validation) loss
    columns the points were read from."""

    points: pd.DataFrame
    best: int
    close: tuple[int, ...]
    winner: int | None
    nfold: int | None
    metric: str
    columns: tuple[str, str]

    @property
    def names(self) -> list[str]:
        """The swept parameters."""
        return [c for c in self.points.columns if c != "point" and c not in SCORES]

    def nearest(self) -> int | None:
        """The row closest to the best by its difference in standard errors (the runner-up
        the rule judged; the smallest diff without folds), None for a single point."""
        others = [j for j in range(len(self.points)) if j != self.best]
        if not others:
            return None
        diff = self.points["diff"].to_numpy(dtype=float)
        se = self.points["se"].to_numpy(dtype=float)
        if self.nfold is None:
            return min(others, key=lambda j: diff[j])
        return min(others, key=lambda j: (diff[j] / se[j] if se[j] > 0
                                          else 0.0 if diff[j] == 0 else math.inf, diff[j]))


def loss_columns(sweep: pd.DataFrame) -> tuple[str, str]:
    """(train column, validation column): the last eval set's metric other than the
    training rows' ('train'), as early stopping watches the last; of a cross-validated
    sweep, the folds' mean training and test loss."""
    metric = sweep.attrs["metric"]
    evals = [name for name in sweep.attrs.get("evals") or [] if name != "train"]
    if not evals:
        raise ValueError("The sweep has no validation set: judging its points compares "
                         "validation losses, so it needs evals or nfold.")
    mean = "-mean" if sweep.attrs.get("nfold") else ""
    return f"train-{metric}{mean}", f"{evals[-1]}-{metric}{mean}"


def fold_columns(sweep: pd.DataFrame) -> list[str]:
    """The per-fold test loss columns of a cross-validated sweep ([] without folds)."""
    nfold = sweep.attrs.get("nfold")
    if not nfold:
        return []
    _, valid = loss_columns(sweep)
    return [f"{valid.removesuffix('-mean')}-{FOLD}{k}" for k in range(nfold)]


def paired(losses: np.ndarray, best: int) -> tuple[np.ndarray, np.ndarray]:
    """(mean difference, its standard error) of each row of ``losses`` (points × folds)
    from row ``best``, fold by fold: d = losses[j] − losses[best], mean(d) and
    std(d, ddof=1) / sqrt(k)."""
    d = losses - losses[best]
    k = losses.shape[1]
    return d.mean(axis=1), d.std(axis=1, ddof=1) / math.sqrt(k)


def judge(sweep: pd.DataFrame) -> Verdict:
    """Each point's best round and the paired one-standard-error verdict (module doc)."""
    train, valid = loss_columns(sweep)
    folds = fold_columns(sweep)
    ordered = sweep.sort_values(["point", "round"], kind="stable")
    first_min = ordered.groupby("point", sort=True)[valid].idxmin()  # first of equal minima
    std = valid.removesuffix("-mean") + "-std"
    names = list(sweep.columns)
    names = names[names.index("point") + 1:names.index("round")]
    keep = ["point", *names, "round", train, valid]
    rows = ordered.loc[first_min.to_numpy()]
    points = rows[keep].rename(columns={train: "train", valid: "valid"}).reset_index(drop=True)
    points["spread"] = rows[std].to_numpy() if std in sweep else 0.0
    points["gap"] = points["valid"] - points["train"]
    points["trained"] = ordered.groupby("point", sort=True)["round"].max().to_numpy()
    points["still"] = points["round"] == points["trained"]
    losses = points["valid"].to_numpy(dtype=float)
    best = int(np.argmin(losses))  # the first of equal losses
    if folds:
        diff, se = paired(rows[folds].to_numpy(dtype=float), best)
        close = diff <= se
    else:
        diff, se = losses - losses[best], np.full(len(losses), np.nan)
        close = diff <= 0
    points["diff"], points["se"] = diff, se
    close_rows = tuple(int(j) for j in np.flatnonzero(close))
    return Verdict(points, best, close_rows, best if close_rows == (best,) else None,
                   len(folds) or None, sweep.attrs["metric"], (train, valid))
