"""The engine's runtime: its kernels compiled before they are needed, and plain Python until then.

numba compiles a kernel the first time it runs and caches the machine code on disk
(``cache=True``), after which loading it takes milliseconds; with an empty cache that is
minutes of work. This module keeps a user from waiting for it:

* ``warmup()`` runs each tree method with each objective through training and every trace
  accessor, in ``PARTS``, on tiny data. numba compiles under a lock per process, so on an
  empty cache one process uses one core: ``warmup(processes=n)`` hands the parts to ``n``
  worker processes (``python -m boost.runtime --worker``), which compile in parallel, write
  the shared disk cache and say each kernel they compile (the progress), and then runs every
  part here, where it now only loads. A worker that fails or dies costs nothing but time:
  what it did not compile is compiled here.
* ``python_engine()`` is this package imported a second time with numba's JIT off while its
  modules load, so every kernel in it is the plain Python function it was written as: the
  same code, so the same trees and margins, bit for bit (``NUMBA_DISABLE_JIT=1`` runs the
  engine the same way). It answers small data at once while the kernels compile;
  ``fits_python`` says which data is small enough, and which objectives compute the same in
  both forms.
* ``compile_in_background()``: a server's one warm-up, in a thread, with the long-lived
  objects moved out of the garbage collector's sight (``gc.freeze``); its
  ``BackgroundCompile`` says how far it is and when the engine is ready.
"""

from __future__ import annotations

import gc
import importlib.util
import os
import queue
import re
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numba
import numpy as np
import pandas as pd
from numba.core import event

from . import layer, simd
from .booster import load_model
from .layer import exclusive
from .ranking import PAIR_METHODS, RankParams, query_pairs
from .trace.candidates import exact_thresholds
from .trace.nodes import CURVE_POINTS, thin
from .training import train

# ---------------------------------------------------------------------------- the warm-up
_OBJECTIVES = {"squared error": ("reg:squarederror", {}),
               "logistic": ("binary:logistic", {}),
               "softmax": ("multi:softprob", {"num_class": 3})}


def _data(rows: int = 64):
    """(X with missing values, X without, weights, regression y, class y, 3-class y)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, 3))
    X[::7, 1] = np.nan
    X_dense = rng.normal(size=(rows, 3))
    binary = (X_dense[:, 0] > 0).astype(float)
    return X, X_dense, np.linspace(0.5, 1.5, rows), binary, np.arange(rows) % 3


def _trees(objective: str, method: str) -> None:
    """Train ``method`` with ``objective`` on data with and without missing values and
    weights, then every trace accessor."""
    name, extra = _OBJECTIVES[objective]
    X, X_dense, weight, binary, classes = _data()
    y = classes if name == "multi:softprob" else binary
    for data, w in ((X, weight), (X_dense, None)):
        bst = train({"objective": name, "tree_method": method, "max_depth": 3, **extra},
                    data, y, 2, evals=[(data, y, "valid")], sample_weight=w)
    bst.trees_to_dataframe(include_pruned=True)
    bst.get_dump("text")
    bst.get_score(importance_type="total_gain")
    bst.split_candidates(1, 0)
    bst.trace.rounds(data, y, np.arange(len(y)))  # the page's round trace
    bst.split_candidates(2, 0, features=bst.feature_names[:1])
    bst.trace.gain_curve(2, 0, 0, bst.feature_names[0])  # the node view's one feature
    thin(pd.DataFrame({"Gain": np.arange(2.0 * CURVE_POINTS), "Best": False,
                       "Valid": True}))  # a big node's curve (more points than a chart's)
    bst.candidate_summary(1, 0)
    bst.round_views(1)
    bst.predict(data, output_margin=True)
    bst.tree_outputs(data)
    bst.decision_path(data[0], 1)
    bst.feature_values(0, data)  # hist: the caller's column checked against the codes
    exact_thresholds(data[:, 0])  # the quantile sketch view's


def _model_files() -> None:
    X, _, _, _, classes = _data()
    bst = train({"objective": "multi:softprob", "num_class": 3, "max_depth": 3}, X, classes, 2)
    load_model(bst.save_raw("ubj"))  # a model file: its trees checked and walked
    # hist's leaves re-estimated by absolute error: the file's Newton weights recomputed
    bst = train({"objective": "reg:absoluteerror", "tree_method": "hist", "max_depth": 2}, X,
                classes, 1)
    bst.save_raw("json")


def _sampling(method: str) -> None:
    """The other objectives share the kernels above; sampling and first-order trees add the
    row/column draws and the leaf line search."""
    X = _data()[0]
    counts = np.arange(len(X)) % 4
    bst = train({"objective": "count:poisson", "tree_method": method, "max_depth": 3,
                 "subsample": 0.8, "colsample_bynode": 0.7, "boosting": "first_order"},
                X, counts, 2, evals=[(X, counts, "valid")], early_stopping_rounds=1)
    bst.split_candidates(1, 0)
    bst.round_views(1)


def _ranking() -> None:
    """LambdaMART's pair gradients (topk and mean) and the ranking metrics, with query
    weights and an evaluation set of its own queries; the trees are everyone's."""
    X, _, _, _, grades = _data()
    qid = np.repeat(np.arange(4), 16)
    relevant = (grades == 2).astype(float)
    bst = train({"objective": "rank:ndcg", "tree_method": "exact", "max_depth": 2}, X, grades,
                2, evals=[(X[:32], grades[:32], "valid", None, qid[:32])], qid=qid,
                sample_weight=np.array([1.0, 2.0, 0.5, 1.0]))
    bst.round_views(1)
    bst.split_candidates(1, 0)
    margin = bst.round_view(1).margin[:16, 0]
    for objective, labels in (("rank:ndcg", grades), ("rank:map", relevant),
                              ("rank:pairwise", grades)):  # the Ranking pairs view's walk
        for method in PAIR_METHODS:
            query_pairs(objective, margin, labels[:16], RankParams(pair_method=method), 1, 0, 4)
    train({"objective": "rank:map", "lambdarank_pair_method": "mean", "tree_method": "exact",
           "max_depth": 2}, X, relevant, 2, evals=[(X, relevant, "valid", None, qid)], qid=qid)


def _quantiles() -> None:
    """reg:quantileerror's pinball gradients and metric, several alphas with weights, and
    hist's leaves re-estimated at each alpha; the trees are everyone's."""
    X, _, weight, _, grades = _data()
    y = grades + X[:, 0].clip(-1, 1)
    for method in ("hist", "exact"):
        train({"objective": "reg:quantileerror", "quantile_alpha": [0.1, 0.5, 0.9],
               "tree_method": method, "max_depth": 2}, X, y, 2, evals=[(X, y, "valid")],
              sample_weight=weight)


def _long_columns() -> None:
    """Columns with many more values than the sketch keeps take the sorted (fast) sketch
    path: with 2 bins, 200 rows are enough; zeros of both signs take its exact-order
    fallback."""
    X_long = np.random.default_rng(0).normal(size=(200, 2))
    X_long[:20, 1] = 0.0
    X_long[20:40, 1] = -0.0
    train({"tree_method": "hist", "max_bin": 2, "max_depth": 2}, X_long, X_long[:, 0], 1)


def _bins(round_to: int | None) -> None:
    """Depth-wise and leaf-wise trees of hist and approx on 600 rows whose columns hold more
    distinct values than a byte of bins holds beside the missing code (bin codes of 16 bits:
    every hist kernel a second time), or, rounded to ``round_to`` decimals, fewer (8 bits)."""
    X = np.random.default_rng(1).normal(size=(600, 2))
    X[::9, 0] = np.nan
    if round_to is not None:
        X = np.round(X, round_to)
    y = X[:, 1] + np.nan_to_num(X[:, 0])
    for method in ("hist", "approx"):
        train({"tree_method": method, "max_depth": 3}, X, y, 2)
        train({"tree_method": method, "grow_policy": "lossguide", "max_leaves": 4,
               "max_depth": 0}, X, y, 2, sample_weight=np.ones(len(y)))


def _part(objective: str, method: str) -> tuple[str, Callable[[], None]]:
    return f"{method} trees, {objective}", lambda: _trees(objective, method)


Part = tuple[str, Callable[[], None]]
# Two lanes of parts, one per worker, that compile different kernels: numba compiles each
# kernel signature in the process that first runs it, so two workers running parts that
# share kernels at the same time both compile them (measured on an empty cache with one
# shared queue: 24 kernels, hist's costliest among them, compiled twice; 368 CPU-seconds
# where one process takes about 250). Hist and approx in one lane (16-bit bin codes first,
# then 8-bit ones), exact in the other; only a few small kernels both call (a loss, the
# sketch's sort) are compiled twice.
LANES: tuple[tuple[Part, ...], ...] = (
    (("16-bit bin codes", lambda: _bins(None)),
     *(_part(objective, method) for method in ("hist", "approx") for objective in _OBJECTIVES),
     ("8-bit bin codes, leaf-wise trees", lambda: _bins(1)),
     ("sampling and first-order trees, hist", lambda: _sampling("hist")),
     ("long columns", _long_columns),
     ("quantiles", _quantiles),
     ("model files", _model_files)),
    (*(_part(objective, "exact") for objective in _OBJECTIVES),
     ("sampling and first-order trees, exact", lambda: _sampling("exact")),
     ("ranking", _ranking)),
)
PARTS: dict[str, Callable[[], None]] = dict(part for lane in LANES for part in lane)

Progress = Callable[[int, int, str], None]


def warmup(processes: int | None = None, progress: Progress | None = None,
           nice: int = 0, here: bool = True) -> float:
    """Compile (or load from numba's disk cache) every kernel; return the seconds it took.

    ``processes``: worker processes that compile in parallel first (default: one per core;
    1 compiles here only; none when the cache already holds every kernel).
    ``progress(done, total, label)`` is called as the work goes: with workers, once per
    kernel they compile (``label`` its name), then once per part run here. ``nice``: the
    workers' niceness (a server's warm-up yields to the visitors it answers meanwhile).
    ``here``: run the parts in this process too, loading every kernel (a server's first
    training then loads nothing); False: only when the cache still lacks a kernel after
    the workers (a process that runs no engine code itself: a test run's controller)."""
    with _ONE_AT_A_TIME:  # a second call waits, then finds the cache warm
        return _warmup(processes, progress, nice, here)


_ONE_AT_A_TIME = threading.Lock()


def _warmup(processes: int | None, progress: Progress | None, nice: int,
            here: bool) -> float:
    start = time.perf_counter()
    workers = (os.cpu_count() or 1) if processes is None else processes
    missing = [] if numba.config.DISABLE_JIT else uncached()
    use_workers = workers > 1 and bool(missing)
    total = (len(missing) if use_workers else 0) + len(PARTS)
    done = 0

    def step(label: str) -> None:
        nonlocal done
        done = min(done + 1, total)
        if progress:
            progress(done, total, label)

    if progress:
        progress(0, total, "")
    if use_workers:
        _compile_in_workers(workers, step, {_name(k) for k in missing}, nice)
    done = total - len(PARTS)  # a kernel the workers left is compiled below
    if not here and (numba.config.DISABLE_JIT or not uncached()):  # nothing left to compile
        return time.perf_counter() - start
    for label, run in PARTS.items():
        with exclusive():  # a part runs the kernels it compiles
            run()
        step(label)
    return time.perf_counter() - start


def kernels() -> list:
    """Every numba kernel of the engine that is compiled on its own (the package imports all
    its modules; a kernel inlined into its callers has no machine code of its own)."""
    return [k for k in simd.package_kernels(__package__)
            if k.targetoptions.get("inline") != "always"]


def uncached() -> list:
    """The kernels numba's disk cache holds no current machine code for. (The cache index
    is read through numba's internals; if they change, every kernel is listed and the
    workers only cost their start.)"""
    try:
        return [k for k in kernels() if not k._cache._cache_file._load_index()]
    except Exception:  # noqa: BLE001 - any doubt: compile in workers
        return kernels()


def _name(kernel) -> str:
    """``<module>.<function>``, the module's path inside the package (``hist.histogram._build``)."""
    module = kernel.py_func.__module__.partition(".")[2]
    return f"{module}.{kernel.py_func.__qualname__}"


def _compile_in_workers(n: int, step: Callable[[str], None], wanted: set[str],
                        nice: int = 0) -> int:
    """Run every part once in ``n`` worker processes (one lane of ``LANES`` each),
    calling ``step(name)`` the first time a worker says it compiled a kernel in ``wanted``;
    return how many parts were run."""
    lanes: list[queue.Queue[str]] = [queue.Queue() for _ in range(min(n, len(LANES)))]
    for i, lane in enumerate(LANES):  # more lanes than workers: a worker runs several
        for label, _ in lane:
            lanes[i % len(lanes)].put(label)
    lock = threading.Lock()
    finished = [0]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])}

    def compiled(name: str) -> None:
        with lock:
            if name in wanted:
                wanted.discard(name)
                step(name)

    def serve(todo: queue.Queue[str]) -> None:
        try:
            worker = subprocess.Popen(
                [sys.executable, "-m", __package__ + ".runtime", "--worker", str(nice)], env=env,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True, bufsize=1)
        except OSError:
            return
        with worker:
            while (label := _next(todo)) is not None:
                if not _run_part(worker, label, compiled):
                    break  # the worker died: what is left is compiled by the parent
                with lock:
                    finished[0] += 1
            worker.stdin.close()

    threads = [threading.Thread(target=serve, args=(todo,), name=f"warmup-worker-{i}",
                                daemon=True) for i, todo in enumerate(lanes)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return finished[0]


def _next(todo: queue.Queue) -> str | None:
    try:
        return todo.get_nowait()
    except queue.Empty:
        return None


def _run_part(worker: subprocess.Popen, label: str, compiled: Callable[[str], None]) -> bool:
    """Have ``worker`` run part ``label``, passing on the kernels it compiles; False if the
    worker died."""
    try:
        worker.stdin.write(label + "\n")
        worker.stdin.flush()
        while line := worker.stdout.readline():
            kind, _, rest = line.rstrip("\n").partition(" ")
            if kind == "kernel":
                compiled(rest)
            elif kind in ("done", "failed"):
                return True
    except OSError:
        pass
    return False


class _Compiles(event.Listener):
    """Says each engine kernel a worker compiles: ``kernel <module>.<name>`` on stdout."""

    def on_start(self, ev) -> None:
        pass

    def on_end(self, ev) -> None:
        kernel = ev.data["dispatcher"]
        if kernel.py_func.__module__.startswith(__package__ + "."):
            print("kernel", _name(kernel), flush=True)


def _worker(nice: int) -> None:
    """Run the parts named on stdin, one per line; say each kernel compiled, and answer each
    part with a line when it is done (or failed: the parent then compiles it itself)."""
    os.nice(nice)
    event.register("numba:compile", _Compiles())
    for line in sys.stdin:
        label = line.strip()
        try:
            PARTS[label]()
            print("done", label, flush=True)
        except Exception as exc:  # reported, and compiled again by the parent
            print("failed", label, type(exc).__name__, flush=True)


# ---------------------------------------------------------------------------- cold start
# The plain-Python engine trains about 7,000 (row x feature x round) cells a second on the
# project's 2-core machine (exact or hist, depth up to 6: 300 rows x 2 features in 1.6-1.8 s
# for 20 rounds). Above this many cells it would take longer than waiting for the compile.
PYTHON_CELLS = 12_000
# Objectives whose arithmetic is the same in both forms: + - * / and square roots round the
# same in float32 whichever form computes them. exp and log do not: compiled, they are
# libm's float32 functions; as Python, float64 rounded to float32, which differs in the
# last bit for about 1 input in 1,600 (measured over 20 million: 12,482 for exp). So the
# logistic, softmax, Poisson, gamma, Tweedie and exponential losses wait for the compile.
PYTHON_OBJECTIVES = frozenset({"reg:squarederror", "reg:absoluteerror", "reg:pseudohubererror"})

_TWIN = (__package__ or "boost") + "_python"
_TWIN_LOCK = threading.Lock()


PYTHON_RATE = 7_000  # the plain-Python engine's (row x feature x round) cells a second
# A retrain's time, measured on this engine: a setup over the rows x features (the sorted
# columns, the quantile cuts), then each round the rows x features x levels a tree grows
# through, plus a fixed cost per level (the kernels' calls, the round's bookkeeping: what
# dominates hundreds of rounds on a small table). Measured once per process and tree
# method: 1 and 11 rounds on a large table (the difference is ten rounds) and 1 and 31 on a
# tiny one (the fixed cost); about 150 ms in all.
CALIBRATION = (20_000, 10, 3)  # rows, features, max_depth
TINY = (200, 2)
# Until the kernels are compiled nothing can be measured: rates measured on the project's
# 2-core machine (hist, the slower).
ASSUMED_RATES = (5.1e-8, 1.6e-9, 2.0e-4)
_RATES: dict[str, tuple[float, float, float]] = {}
_RATES_LOCK = threading.Lock()


def _levels(n_rows: int, max_depth: int) -> int:
    """The levels a depth-wise tree grows through (max_depth 0, no limit: as deep as the
    rows allow)."""
    return max_depth if max_depth > 0 else max(1, int(np.log2(max(n_rows, 2))))


def _fastest(params: dict, X, y, rounds: int, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        train(params, X, y, rounds)
        best = min(best, time.perf_counter() - start)
    return best


def _rates(tree_method: str) -> tuple[float, float, float]:
    """(setup seconds per row x feature, round seconds per row x feature x level, round
    seconds per level) of the compiled engine, from the fastest of three runs each."""
    with _RATES_LOCK:
        rates = _RATES.get(tree_method)
        if rates is None:
            rows, features, depth = CALIBRATION
            rng = np.random.default_rng(0)
            params = {"tree_method": tree_method, "max_depth": depth, "nthread": 0}
            X = rng.normal(size=TINY).astype(np.float32)
            y = X[:, 0] + rng.normal(size=TINY[0]).astype(np.float32)
            level = max(_fastest(params, X, y, 31) - _fastest(params, X, y, 1), 0.0) / (30 * depth)
            X = rng.normal(size=(rows, features)).astype(np.float32)
            y = X[:, 0] + rng.normal(size=rows).astype(np.float32)
            one, eleven = _fastest(params, X, y, 1), _fastest(params, X, y, 11)
            per_round = max(eleven - one, 1e-6) / 10
            per_cell = max(per_round - level * depth, per_round / 10) / (rows * features * depth)
            setup = max(one - per_round, 0.0) / (rows * features)
            rates = _RATES[tree_method] = (setup, per_cell, level)
    return rates


def _model_seconds(rates, n_rows, n_features, num_boost_round, max_depth) -> float:
    setup, per_cell, per_level = rates
    cells = max(n_rows, 1) * max(n_features, 1)
    levels = max(num_boost_round, 1) * _levels(n_rows, max_depth)
    return cells * setup + levels * (cells * per_cell + per_level)


# Each real training corrects the measured rates: the ratio of its time to their estimate
# (the calibration is one moment of a machine that may be busy), by tree method.
_SCALE: dict[str, float] = {}
OBSERVED_MIN_S = 0.25  # a quarter of the app's live budget


def python_seconds(n_rows: int, n_features: int, num_boost_round: int) -> float:
    """About how long the plain-Python engine trains this (``PYTHON_RATE``)."""
    return max(n_rows, 1) * max(n_features, 1) * max(num_boost_round, 1) / PYTHON_RATE


def train_seconds(tree_method: str, n_rows: int, n_features: int, num_boost_round: int,
                  max_depth: int, measured: bool = True) -> float:
    """About how long the compiled engine trains this: its rates measured here
    (``_rates``) corrected by the last real training (``observe``), or ``ASSUMED_RATES``
    (``measured`` False: while the kernels compile)."""
    if not measured:
        return _model_seconds(ASSUMED_RATES, n_rows, n_features, num_boost_round, max_depth)
    return (_model_seconds(_rates(tree_method), n_rows, n_features, num_boost_round,
                           max_depth) * _SCALE.get(tree_method, 1.0))


def observe(tree_method: str, n_rows: int, n_features: int, num_boost_round: int,
            max_depth: int, seconds: float) -> None:
    """A training of the compiled engine took ``seconds``: later estimates follow it.
    Trainings under ``OBSERVED_MIN_S`` are not used: they say more about overheads than
    rates (measured: after a few small ones, 60,000 rows x 30 features x 500 rounds was
    estimated at 0.83 s, down at the 0.1 floor of the correction, and went live; it
    takes 2.5 s; the calibration alone said 10 s)."""
    if seconds < OBSERVED_MIN_S or tree_method not in _RATES:
        return
    model = _model_seconds(_RATES[tree_method], n_rows, n_features, num_boost_round, max_depth)
    _SCALE[tree_method] = min(10.0, max(0.1, seconds / model))


def fits_python(objective: str, n_rows: int, n_features: int, num_boost_round: int) -> bool:
    """Whether the plain-Python engine trains this bit-equal to the compiled one and within
    a couple of seconds."""
    return (objective in PYTHON_OBJECTIVES
            and n_rows * max(n_features, 1) * max(num_boost_round, 1) <= PYTHON_CELLS)


def python_engine() -> ModuleType:
    """This package as plain Python: ``python_engine().train(...)`` is ``train`` with no
    compiled kernel, giving the compiled engine's numbers bit for bit. Imported once."""
    with _TWIN_LOCK:
        twin = sys.modules.get(_TWIN)
        if twin is None:
            twin = _import_without_jit()
    return twin


def _import_without_jit() -> ModuleType:
    here = Path(__file__).resolve().parent
    spec = importlib.util.spec_from_file_location(_TWIN, here / "__init__.py",
                                                  submodule_search_locations=[str(here)])
    twin = importlib.util.module_from_spec(spec)
    sys.modules[_TWIN] = twin
    jit_off = numba.config.DISABLE_JIT
    numba.config.DISABLE_JIT = True  # read by numba's decorators (and simd) at import only
    try:
        spec.loader.exec_module(twin)
    except BaseException:
        for name in [m for m in sys.modules if m == _TWIN or m.startswith(_TWIN + ".")]:
            del sys.modules[name]
        raise
    finally:
        numba.config.DISABLE_JIT = jit_off
    # numpy warns of what the kernels do on purpose (uint64 hashes that wrap, a 0/0 gain
    # that is then refused); compiled, nothing warns.
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=re.escape(_TWIN) + r"\.")
    return twin


# ---------------------------------------------------------------------------- in the background
class BackgroundCompile:
    """A process's warm-up in a background thread (``compile_in_background``): its progress,
    ``done`` of ``total`` steps (``warmup``'s), and ``ready`` once every kernel is compiled
    or loaded (or the warm-up failed: a kernel it left is compiled where it is first used)."""

    def __init__(self) -> None:
        self.done, self.total = 0, 0
        self.ready = threading.Event()
        self._lock = threading.Lock()
        self._started = False

    def _progress(self, done: int, total: int, label: str) -> None:
        self.done, self.total = done, total

    def start(self) -> None:
        """Start the warm-up, once (later calls return at once).

        What is loaded now and by the warm-up lives as long as the process: it is moved out
        of the garbage collector's sight (``gc.freeze``) now and when the warm-up ends, so a
        full collection no longer walks the compiled kernels (a few hundred thousand
        objects). Streamlit collects after every script run; over those objects that took
        120 ms of every click, holding the lock the server needs to send the redrawn charts.
        Objects made later are still collected."""
        with self._lock:
            if self._started:
                return
            self._started = True

        def run() -> None:
            try:
                # niced workers: the server answers its visitors first
                warmup(progress=self._progress, nice=10)
            finally:  # a failure shows where the kernel is used, as a training error
                gc.freeze()
                self.ready.set()
                say_layer()

        gc.freeze()
        threading.Thread(target=run, name="boost-warmup", daemon=True).start()


def say_layer() -> None:
    """The server's log: which threading layer numba started, and where it is not
    thread-safe, that engine calls take turns and how to get a layer that is not."""
    print(f"BoostScope: numba threading layer '{layer.layer()}'"
          + ("" if layer.thread_safe() else f" — {layer.advice()}"), file=sys.stderr, flush=True)


_BACKGROUND = BackgroundCompile()  # one per process


def background_compile() -> BackgroundCompile:
    """The process's one background warm-up (``ready`` unset until it has run)."""
    return _BACKGROUND


def compile_in_background() -> BackgroundCompile:
    """Start the process's warm-up in a thread (once: later calls only return it); small data
    trains meanwhile on ``python_engine()``, other data compiles what it needs at once."""
    _BACKGROUND.start()
    return _BACKGROUND


if __name__ == "__main__" and sys.argv[1:2] == ["--worker"]:  # --worker [niceness]
    _worker(nice=int(sys.argv[2]) if sys.argv[2:] else 0)
