"""``cv``: k-fold cross-validation as ``xgboost.cv`` does it, and the folds' lockstep loop
that ``sweep`` scores each grid point with.

>>> boost.cv({"max_depth": 3, "eta": 0.1}, X, y, 500, nfold=5, early_stopping_rounds=20)
   train-rmse-mean  train-rmse-std  test-rmse-mean  test-rmse-std
0         ...

XGBoost's rules, kept here: the folds are ``numpy.random.seed(seed)`` then
``numpy.random.permutation(n)`` split by ``numpy.array_split`` into ``nfold`` parts (fold k
tests part k and trains on the others), unless ``folds`` gives (train rows, test rows) pairs;
each fold is a model of its own (its own quantile cuts, its own estimated intercept); after
every round each fold's training and test loss is measured and the table holds their mean
and population standard deviation (``numpy.std``); early stopping watches the test loss's
mean and, when it stops, the table ends at the best round. With a ranking objective the
folds are drawn over the queries instead of the rows (xgboost.cv's ``mkgroupfold``): the
queries are permuted and split, and a fold's rows are its queries' rows, query after query
in that order, so no query is split between training and test.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .layer import serialized, threads
from .layout import read_only
from .metrics import metric_name
from .params import parse_params
from .training import (
    EarlyStopping,
    Rounds,
    RunData,
    check_rounds,
    intercept,
    maximizes,
    run_data,
)

TEST = "test"  # the name of each fold's held-out rows, as in xgboost.cv's columns


def kfold(n: int, nfold: int, seed: int = 0, shuffle: bool = True) -> list[tuple]:
    """XGBoost's folds of ``n`` rows: (train rows, test rows) per fold."""
    if isinstance(nfold, bool) or not isinstance(nfold, numbers.Integral) or nfold < 2:
        raise ValueError(f"nfold = {nfold!r} must be a whole number >= 2.")
    if nfold > n:
        raise ValueError(f"nfold = {nfold} is more than the {n} rows: each fold needs a row "
                         "to test on. Use fewer folds.")
    idx = np.random.RandomState(seed).permutation(n) if shuffle else np.arange(n)
    tests = np.array_split(idx, nfold)
    return [(np.concatenate([t for j, t in enumerate(tests) if j != k]), tests[k])
            for k in range(nfold)]


def check_folds(folds, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``folds`` as (train rows, test rows) integer arrays, each a non-empty set of rows of
    the ``n`` given."""
    try:
        pairs = [(np.asarray(a), np.asarray(b)) for a, b in folds]
    except (TypeError, ValueError):
        raise ValueError("folds must be a list of (train rows, test rows) pairs of row "
                         "indices, as xgboost.cv takes them.") from None
    if len(pairs) < 2:
        raise ValueError("folds: give at least two (train rows, test rows) pairs.")
    for k, pair in enumerate(pairs):
        for part, rows in zip(("train", "test"), pair, strict=True):
            if rows.ndim != 1 or not len(rows) or rows.dtype.kind not in "iu":
                raise ValueError(f"folds[{k}]: its {part} rows must be a non-empty list of "
                                 "row numbers.")
            if rows.min() < 0 or rows.max() >= n:
                raise ValueError(f"folds[{k}]: a {part} row is outside 0..{n - 1}.")
    return pairs


def query_folds(n_queries: int, nfold: int, seed: int = 0, shuffle: bool = True
                ) -> list[tuple]:
    """XGBoost's folds of a ranking objective's queries (``mkgroupfold``): (train queries,
    test queries) per fold, each in the order its rows are laid out."""
    if isinstance(nfold, bool) or not isinstance(nfold, numbers.Integral) or nfold < 2:
        raise ValueError(f"nfold = {nfold!r} must be a whole number >= 2.")
    if nfold > n_queries:
        raise ValueError(f"nfold = {nfold} is more than the {n_queries} queries: a ranking "
                         "objective's folds keep whole queries together, and each fold needs "
                         "a query to test on. Use fewer folds.")
    idx = (np.random.RandomState(seed).permutation(n_queries) if shuffle
           else np.arange(n_queries))
    tests = np.array_split(idx, nfold)
    return [(np.concatenate([t for j, t in enumerate(tests) if j != k]), tests[k])
            for k in range(nfold)]


def make_folds(data: RunData, nfold: int, folds, seed: int, shuffle: bool = True) -> list:
    """The folds of ``data`` as xgboost.cv draws them: ``kfold`` over the rows, or
    ``query_folds`` over a ranking objective's queries; ``folds`` (rows) when given."""
    if data.queries is None:
        n = data.X32.shape[0]
        return kfold(n, nfold, seed, shuffle) if folds is None else check_folds(folds, n)
    if data.queries.weight is not None:
        warnings.warn("xgboost.cv trains and scores its folds without the query weights "
                      "(XGBoost 3.2's DMatrix.slice drops per-query weights); these folds "
                      "do the same, so the scores equal xgboost.cv's.", UserWarning,
                      stacklevel=4)
    if folds is not None:
        raise ValueError("folds (rows of each fold) cannot be given with a ranking objective, "
                         "whose folds keep whole queries together; use nfold and seed.")
    return query_folds(data.queries.n_queries, nfold, seed, shuffle)


def fold_data(data: RunData, folds) -> list[RunData]:
    """Each fold's training rows, with its test rows as the one evaluation set (for a
    ranking objective, ``folds`` are ``query_folds``: queries, not rows)."""
    out = []

    def part(a, rows):  # read-only, as the training's own arrays (data.as_features)
        return None if a is None else read_only(a[rows])

    for train_part, test_part in folds:
        if data.queries is None:
            train_rows, test_rows, train_q, test_q = train_part, test_part, None, None
            train_w, test_w = part(data.w32, train_rows), part(data.w32, test_rows)
        else:  # xgboost.cv's folds lose the query weights (DMatrix.slice drops them)
            train_rows, train_q = data.queries.take(train_part)
            test_rows, test_q = data.queries.take(test_part)
            train_q, test_q = train_q._replace(weight=None), test_q._replace(weight=None)
            train_w = test_w = None
        out.append(RunData(part(data.X32, train_rows), data.names, part(data.y32, train_rows),
                           train_w,
                           [(TEST, part(data.X32, test_rows), part(data.y32, test_rows),
                             test_w, test_q)], queries=train_q))
    return out


@dataclass
class FoldScores:
    """The folds' losses, round 0 (the baseline) first: ``train`` and ``test`` arrays of
    shape (rounds + 1, folds); ``best_iteration`` (0-based, as XGBoost's) when early
    stopping stopped the run, else None; ``facts``: ``on_round``'s return per round."""

    train: np.ndarray
    test: np.ndarray
    best_iteration: int | None
    facts: list


def run_folds(p, folds: list[RunData], num_boost_round: int, stopping_rounds: int | None,
              make_grower=None, base_margins=None, on_round=None) -> FoldScores:
    """Train one model per fold in lockstep, a round of every fold at a time, with early
    stopping on the mean test loss (xgboost.cv's). ``make_grower(k)`` and
    ``base_margins[k]``: what fold k's runs share with other runs (a sweep's cuts, its
    intercepts); ``on_round(runs)`` after each round (its result is kept in ``facts``)."""
    runs = []
    for k, data in enumerate(folds):
        base = (base_margins[k] if base_margins is not None
                else intercept(p, data.y32, data.w32, data.queries)[1])
        runs.append(Rounds(p, data, base, num_boost_round, None,
                           make_grower=None if make_grower is None
                           else (lambda k=k: make_grower(k)), train_metric=True))
    stopper = None if stopping_rounds is None else EarlyStopping(stopping_rounds, maximizes(p))
    facts, stopped = [], False
    with threads(p.nthread):
        loops = [run.steps() for run in runs]
        for r in range(num_boost_round):
            for loop in loops:
                next(loop)
            if on_round is not None:
                facts.append(on_round(runs))
            mean = float(np.mean([run.evals[TEST][-1] for run in runs]))
            if stopper is not None and stopper.update(r, mean):
                stopped = True
                break
        for loop in loops:
            loop.close()
    train = np.array([run.own for run in runs], dtype=np.float64).T
    test = np.array([run.evals[TEST] for run in runs], dtype=np.float64).T
    return FoldScores(train, test, stopper.best_iteration if stopped else None, facts)


def table(scores: FoldScores, metric: str, every_round: bool = False) -> pd.DataFrame:
    """xgboost.cv's table: a row per round (the first tree's round is row 0), the mean and
    standard deviation over the folds of the training and the test loss; cut at the best
    round when early stopping stopped the run, unless ``every_round`` (a sweep keeps the
    patience's rounds: finding the best round is its reader's)."""
    stopped = scores.best_iteration is not None and not every_round
    end = scores.best_iteration + 2 if stopped else None  # (row 0:
    columns = {}
    for name, losses in (("train", scores.train), (TEST, scores.test)):
        rounds = losses[1:end]  # the baseline, not a row of xgboost.cv's table)
        columns[f"{name}-{metric}-mean"] = rounds.mean(axis=1)
        columns[f"{name}-{metric}-std"] = rounds.std(axis=1)
    return pd.DataFrame(columns)


@serialized
def cv(params: dict, X, y, num_boost_round: int = 10, *, nfold: int = 3, folds=None,
       seed: int = 0, shuffle: bool = True, early_stopping_rounds: int | None = None,
       sample_weight=None, qid=None) -> pd.DataFrame:
    """Cross-validate ``params`` on (X, y) as ``xgboost.cv`` does; the same table.

    ``nfold`` folds drawn with ``seed`` (XGBoost's draw, so the same folds as
    ``xgboost.cv(..., nfold=nfold, seed=seed)``), or ``folds``: (train rows, test rows)
    pairs. ``early_stopping_rounds``: stop when the mean test loss has not improved for
    this many rounds; the table then ends at the best round. Stratified folds are not
    drawn here: pass them as ``folds`` (scikit-learn's ``StratifiedKFold(...).split``).
    ``qid``: a ranking objective's query ids (as ``xgb.DMatrix(..., qid=)``); its folds are
    drawn over the queries (``query_folds``) and ``sample_weight`` has one weight per
    query."""
    p = parse_params(params)
    check_rounds(num_boost_round)
    data = run_data(p, X, y, sample_weight, (), own_X=False, qid=qid)
    pairs = make_folds(data, nfold, folds, seed, shuffle)
    stopping = check_stopping(early_stopping_rounds)
    scores = run_folds(p, fold_data(data, pairs), num_boost_round, stopping)
    return table(scores, metric_name(p.objective, p.loss))


def check_stopping(early_stopping_rounds) -> int | None:
    """Cross-validation's early stopping: None/0 (off) or a whole number of rounds."""
    if early_stopping_rounds is None or early_stopping_rounds == 0:
        return None
    if (isinstance(early_stopping_rounds, bool)
            or not isinstance(early_stopping_rounds, numbers.Integral)
            or early_stopping_rounds < 0):
        raise ValueError(f"early_stopping_rounds = {early_stopping_rounds!r} must be a "
                         "whole number >= 1 (or None).")
    return int(early_stopping_rounds)
