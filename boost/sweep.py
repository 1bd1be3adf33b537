"""``sweep``: train one model per point of a parameter grid, round by round, in one call.

>>> boost.sweep({"max_depth": 3}, X, y, {"eta": [0.1, 0.3], "gamma": [0, 1]}, 100,
...             evals=[(X_valid, y_valid, "valid")])

Each grid point trains exactly as ``train({**params, **point}, ...)`` would (the same loop,
``training.Rounds``), so its losses are ``train``'s ``evals_result()`` — and XGBoost's. What
the points share is done once: the data's conversion and checks, the sorted columns of
``exact``, the quantile cuts of ``hist`` (per ``max_bin``) and the intercept (per objective
and base_score). The points then run in parallel threads (the kernels release the GIL), each
with its share of the cores.

The result is one row per (grid point, round): the point's values, the losses named as in
``evals_result()`` (``train-rmse``, ``valid-rmse``), and facts of the round's trees — the
leaves they end with, the nodes pruning removed, the sum of |leaf value| and the depth
reached — which say *how* a parameter changes the model, not only how well it scores.
"""

from __future__ import annotations

import itertools
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import replace

import numba
import numpy as np
import pandas as pd

from .cv import TEST, check_stopping, fold_data, make_folds, run_folds, table
from .exact import SortedColumns
from .judge import FOLD
from .layer import serialized, thread_safe
from .metrics import metric_name
from .params import BY_NAME, parse_params
from .sketch import hist_cuts
from .training import (
    EarlyStopping,
    Rounds,
    _check_early_stopping,
    _ExactGrower,
    _HistGrower,
    check_rounds,
    intercept,
    maximizes,
    run_data,
)

FACTS = ("leaves", "pruned", "sum_abs_leaf", "depth")  # the per-round model facts' columns
# What a grid cannot vary: the data's meaning (labels are checked per objective) and the
# threads, which the sweep assigns itself.
_FIXED = ("objective", "num_class", "nthread")


class SweepCancelled(Exception):
    """The sweep was cancelled (its ``cancel`` event was set) before it finished."""


def _points(grid) -> list[dict]:
    """The grid's product, first key slowest, after checking its names and lists."""
    if not isinstance(grid, dict) or not grid:
        raise ValueError("grid must be a non-empty dict mapping parameter names to lists of "
                         "values, e.g. {'eta': [0.1, 0.3]}.")
    canonical = {}
    for name, values in grid.items():
        record = next((p for p in BY_NAME.values() if name == p.name or name in p.aliases),
                      None)
        if record is None:
            raise ValueError(f"grid: {name!r} is not a parameter BoostScope knows.")
        if record.train_arg or record.name in _FIXED:
            raise ValueError(f"grid: {name!r} cannot be swept (it is an argument of sweep "
                             "itself or fixed for the whole sweep); pass it once instead.")
        if record.name in canonical:
            raise ValueError(f"grid: {name!r} and {canonical[record.name]!r} are the same "
                             "parameter.")
        canonical[record.name] = name
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise ValueError(f"grid[{name!r}] must be a list of values; got {values!r}.")
        if len(list(values)) == 0:
            raise ValueError(f"grid[{name!r}] is empty: give at least one value.")
    keys = list(grid)
    return [dict(zip(keys, combo, strict=True))
            for combo in itertools.product(*(list(grid[k]) for k in keys))]


def _round_facts(forest) -> tuple[int, int, float, int]:
    """(leaves, pruned, sum |leaf value|, depth reached) of one round's trees."""
    leaf = forest.is_leaf & ~forest.removed
    depth = int(forest.depth[leaf].max()) if leaf.any() else 0
    return (int(leaf.sum()), int(forest.removed.sum()),
            float(np.abs(forest.value[leaf].astype(np.float64)).sum()), depth)


class _Shared:
    """What the grid points share: the data, and the growers' work that depends on the data
    alone (made once, before the threads start, then only read)."""

    def __init__(self, data, configs):
        self.data = data
        self.columns = None
        self.cuts = {}
        self.intercepts = {}
        X32, w32 = data.X32, data.w32
        for p in configs:
            if p.tree_method == "exact" and self.columns is None:
                self.columns = SortedColumns(X32)
            if p.tree_method == "hist" and p.max_bin not in self.cuts:
                self.cuts[p.max_bin] = hist_cuts(X32, w32, p.max_bin)
            key = (p.base_score, p.loss)
            if key not in self.intercepts:
                self.intercepts[key] = intercept(p, data.y32, w32, data.queries)

    def grower(self, p):
        data = self.data
        if p.tree_method == "exact":
            return _ExactGrower(data.X32, p, self.columns)
        return _HistGrower(data.X32, data.w32, p, self.cuts.get(p.max_bin))


@serialized
def _train_point(shared: _Shared, p, num_boost_round, stopping_rounds, stop: threading.Event):
    """One grid point's losses per round (round 0 first) and its trees' facts per round."""
    facts = []

    def on_round(run):
        facts.append(_round_facts(run.new_trees))
        if stop.is_set():
            raise SweepCancelled

    _, base_margin = shared.intercepts[(p.base_score, p.loss)]
    run = Rounds(p, shared.data, base_margin, num_boost_round,
                 None if stopping_rounds is None else EarlyStopping(stopping_rounds,
                                                                    maximizes(p)),
                 make_grower=lambda: shared.grower(p), on_round=on_round, train_metric=True)
    run.boost()
    return run.history, facts


@serialized
def _train_point_cv(shared: list[_Shared], p, num_boost_round, stopping_rounds,
                    stop: threading.Event):
    """One grid point scored by cross-validation: (the folds' losses per round, the means
    over the folds of the trees' facts per round)."""

    def on_round(runs):
        if stop.is_set():
            raise SweepCancelled
        return tuple(np.mean([_round_facts(run.new_trees) for run in runs], axis=0))

    scores = run_folds(p, [s.data for s in shared], num_boost_round, stopping_rounds,
                       make_grower=lambda k: shared[k].grower(p),
                       base_margins=[s.intercepts[(p.base_score, p.loss)][1] for s in shared],
                       on_round=on_round)
    return scores, scores.facts


def _frame_cv(points, results, metric, nfold) -> pd.DataFrame:
    """The cross-validated sweep's rows: per (point, round) the mean and standard deviation
    over the folds of the training and test loss (``cv.table``: xgboost.cv's columns),
    then each fold's test loss (``test-<metric>-fold0``, ...: what ``judge`` pairs the
    points on), every round trained (early stopping's patience included: the best round is
    the table's to find)."""
    parts = []
    for i, (point, (scores, facts)) in enumerate(zip(points, results, strict=True)):
        losses = table(scores, metric, every_round=True)
        part = pd.DataFrame({"point": i, **point, "round": np.arange(1, len(facts) + 1)})
        each = pd.DataFrame(scores.test[1:], columns=[f"{TEST}-{metric}-{FOLD}{k}"
                                                      for k in range(nfold)])
        parts.append(pd.concat([part, losses, each, pd.DataFrame(facts, columns=list(FACTS))],
                               axis=1))
    frame = pd.concat(parts, ignore_index=True)
    frame.attrs.update(metric=metric, evals=["test"], nfold=nfold)
    return frame


def _frame(points, results, metric, eval_names) -> pd.DataFrame:
    keys = list(points[0])
    names = list(dict.fromkeys(["train", *eval_names]))  # (an evaluation set named "train"
    rows = []                                              # is the training set's column)
    for i, (point, (history, facts)) in enumerate(zip(points, results, strict=True)):
        for r, fact in enumerate(facts, start=1):
            losses = [history[name][r] for name in names]
            rows.append((i, *(point[k] for k in keys), r, *losses, *fact))
    columns = ["point", *keys, "round", *(f"{name}-{metric}" for name in names), *FACTS]
    frame = pd.DataFrame(rows, columns=columns)
    frame.attrs["metric"] = metric
    frame.attrs["evals"] = list(eval_names)
    return frame


def _workers(n_points: int, nthread: int) -> tuple[int, int]:
    """(parallel points, threads per point) for ``nthread`` threads in all (0: every core)."""
    available = numba.config.NUMBA_NUM_THREADS
    total = available if nthread == 0 else min(nthread, available)
    workers = max(1, min(n_points, total)) if thread_safe() else 1
    return workers, max(1, total // workers)


class _NeverStopped:
    """What a point trained by another process reads for "stop" (an Event does not cross
    processes; a cancelled sweep cancels its points' futures instead)."""

    @staticmethod
    def is_set() -> bool:
        return False


def _sent_once(executor, shared):
    """``shared`` as the executor's points will receive it: a Dask client's executor gets it
    scattered to every worker once (the points then name it); any other executor gets the
    object itself (a thread pool shares it; a process pool pickles it with each point)."""
    client = getattr(executor, "_client", None)
    if client is not None and hasattr(client, "scatter"):
        return client.scatter(shared, broadcast=True, hash=False)
    return shared


def sweep(params: dict, X, y, grid: dict, num_boost_round: int, evals=(),
          early_stopping_rounds: int | None = None, sample_weight=None, *,
          nfold: int | None = None, folds=None, seed: int = 0, executor=None, progress=None,
          cancel=None, qid=None) -> pd.DataFrame:
    """Train every point of ``grid`` (a dict of parameter -> list of values, swept as their
    product) on the same data; one row per (point, round).

    Parameters are those of ``train``; ``grid``'s values override ``params``. ``progress(done,
    total)`` is called (in the caller's thread) after each point finishes; an exception raised
    in it stops the sweep and propagates. ``cancel``: an object with ``is_set()`` (a
    ``threading.Event``); once set, the sweep stops and raises :class:`SweepCancelled`.

    ``executor``: a ``concurrent.futures`` executor to train the points on, such as a Dask
    cluster's (``distributed.Client(...).get_executor()``: the shared preparation is sent
    to its workers once); by default a thread pool here, as many points at once as the
    cores allow. Progress counts finished points wherever they ran; cancelling cancels the
    points not yet finished (a point running in another process runs to its end unseen).

    ``nfold`` (or ``folds``): score every point by k-fold cross-validation as
    ``boost.cv`` / ``xgboost.cv`` do, on the same folds for every point (drawn with
    ``seed``, XGBoost's draw); early stopping then watches the mean test loss, and
    ``evals`` must be empty (each fold tests on its own held-out rows).

    ``qid``: a ranking objective's query ids, as ``train``'s (cross-validated: the folds
    keep whole queries, as ``boost.cv``'s).

    Returns
    -------
    DataFrame
        Columns ``point`` (0-based, the grid's product order, first key slowest), one per
        grid key, ``round`` (1-based), ``train-<metric>`` and ``<name>-<metric>`` per
        evaluation set (as ``evals_result()``), then ``leaves``, ``pruned``,
        ``sum_abs_leaf`` and ``depth`` of the round's trees (summed over classes; depth is
        the deepest). With early stopping a point has rows up to the round it stopped at.
        ``attrs["metric"]`` is the metric's name, ``attrs["evals"]`` the evaluation sets'.
        Cross-validated: ``train-<metric>-mean``, ``-std`` and ``test-<metric>-mean``,
        ``-std`` over the folds instead of the losses, then ``test-<metric>-fold0`` ...
        (each fold's test loss: the points are paired on them, ``boost.judge``), every
        round each point trained (``attrs["nfold"]``: the folds; the facts are the folds'
        means).
    """
    points = _points(grid)
    base = parse_params(params)
    configs = []
    for point in points:
        try:
            configs.append(parse_params({**params, **point}))
        except ValueError as exc:
            raise ValueError(f"grid point {point}: {exc}") from None
    check_rounds(num_boost_round)
    crossed = nfold is not None or folds is not None
    if crossed and len(evals):
        raise ValueError("evals: a cross-validated sweep tests every point on each fold's "
                         "held-out rows; pass no evaluation sets with nfold or folds.")
    data = run_data(base, X, y, sample_weight, evals, own_X=False,  # read during the call only
                    qid=qid)
    workers, per_point = _workers(len(points), base.nthread)
    configs = [replace(p, nthread=per_point) for p in configs]
    if crossed:
        pairs = make_folds(data, nfold, folds, seed)
        stopping_rounds = check_stopping(early_stopping_rounds)
        shared = [_Shared(part, configs) for part in fold_data(data, pairs)]
        train_point = _train_point_cv
    else:
        stopping_rounds = _check_early_stopping(early_stopping_rounds, data.eval_sets)
        shared, train_point = _Shared(data, configs), _train_point
    stop = threading.Event()
    results = [None] * len(points)
    own = executor is None
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sweep") if own else executor
    if not own:
        configs = [replace(p, nthread=base.nthread) for p in configs]  # each worker's cores
    sent, told = (shared, stop) if own else (_sent_once(pool, shared), _NeverStopped())
    try:
        futures = {pool.submit(train_point, sent, p, num_boost_round, stopping_rounds, told): i
                   for i, p in enumerate(configs)}
        try:
            _collect(futures, results, progress, cancel, stop)
        except BaseException:
            stop.set()  # the running points stop at their next round; the rest never start
            for future in futures:
                future.cancel()
            raise
    finally:
        if own:
            pool.shutdown(wait=True)
    metric = metric_name(base.objective, base.loss)
    if crossed:
        return _frame_cv(points, results, metric, len(shared))
    return _frame(points, results, metric, [name for name, *_ in data.eval_sets])


def _collect(futures, results, progress, cancel, stop) -> None:
    """Wait for the points in the caller's thread: progress, cancellation, first error."""
    pending = set(futures)
    while pending:
        done, pending = wait(pending, timeout=0.05, return_when=FIRST_COMPLETED)
        if cancel is not None and cancel.is_set():
            stop.set()
            raise SweepCancelled("the sweep was cancelled.")
        for future in done:
            results[futures[future]] = future.result()  # a point's error is the sweep's
        if done and progress is not None:
            progress(len(futures) - len(pending), len(futures))
