"""Shared fixtures (the data sets themselves are in datasets.py), and the run's one compile.

A fresh checkout's numba cache is empty, and every process of a test run — the test workers
(pytest-xdist, ``-n 3`` in pyproject.toml), the ``streamlit run`` servers of the browser
walks, the subprocesses that start the engine in another build — would compile the kernels
it uses, several of them the same kernels at the same time. So before any test, the
controlling process compiles every kernel once with ``boost.warmup`` (one worker process
per core) into the shared disk cache, and every later process only loads them."""

import os
import time

# OpenMP's threads (numba's parallel kernels, XGBoost) wait for work by spinning. A test run
# has more of them than cores (two test workers, the servers, subprocesses), and a spinning
# thread holds a core another process needs: a retrain of 500 rounds took minutes instead of
# seconds. Waiting threads sleep instead (the numbers are the same; only the waiting changes);
# set before any OpenMP runtime loads, and inherited by every process the run starts.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import numpy as np
import pytest
from numba.core import event


@pytest.fixture
def four_points():
    X = np.array([[10.0], [20.0], [25.0], [35.0]])
    y = np.array([-10.0, 7.0, 8.0, -7.0])
    return X, y


WARMUP = pytest.StashKey[float]()
COMPILED = "engine kernels compiled during the tests"  # what each process counted


class _Compiles(event.Listener):
    """Counts the engine's compiles in this process (numba's ``numba:compile`` event): after
    the warm-up, each is a kernel signature the warm-up's parts do not reach."""

    def __init__(self):
        self.count, self.seconds, self._depth, self._start = 0, 0.0, 0, 0.0
        self.slowest: list[tuple[float, str]] = []  # (seconds, kernel) of the top-level ones

    def on_start(self, ev):
        if self._depth == 0:
            self._start = time.perf_counter()
        self._depth += 1

    def on_end(self, ev):
        self._depth -= 1
        func = ev.data["dispatcher"].py_func
        if func.__module__.startswith("boost."):
            self.count += 1
        if self._depth == 0:
            seconds = time.perf_counter() - self._start
            self.seconds += seconds
            test = os.environ.get("PYTEST_CURRENT_TEST", "").partition(" ")[0]
            self.slowest = sorted([*self.slowest, (seconds, f"{test}: {func.__module__}."
                                   f"{func.__qualname__}{ev.data.get('args', '')}")])[-5:]


_COMPILES = _Compiles()


# The modules that take the longest (measured with --durations on a fresh clone, a busy
# machine: test_portable 235 s, mostly its compile of the portable build; the benchmarks'
# smokes 200 s; the player's walks; the lessons'; the notebook widget's walk, whose notebook
# run in JupyterLab and then in Notebook 7 took 30 s and 35 s at a load average of 11),
# started first. Each file stays on one worker (--dist loadfile), and a long one started
# near the end runs on alone while the other workers wait for it; longest first, they
# finish together.
LONGEST_FIRST = ("engine/test_portable.py", "test_benchmarks.py", "browser/test_player.py",
                 "browser/test_lessons_browser.py", "browser/test_offline.py",
                 "browser/test_lab_browser.py", "browser/test_live_browser.py",
                 "browser/test_notebook_browser.py")


def pytest_collection_modifyitems(items):
    """Every worker collects in the same order, so the reordering is the same in each."""
    here = os.path.dirname(__file__)
    rank = {os.path.join(here, name): i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(str(item.path), len(rank)))  # stable: the rest keep
    # their order


def pytest_sessionstart(session):
    """Every engine kernel compiled (or loaded) once, before the tests and their workers
    start (xdist starts its workers after this hook); then every compile counted."""
    if not hasattr(session.config, "workerinput"):  # the controller (or a run without workers)
        import boost

        session.config.get_terminal_writer().line("compiling the engine before the tests…")
        start = time.perf_counter()
        # with test workers this process runs no test: the disk cache is all it fills
        # (loading every kernel here too took about 10 s)
        workers = getattr(session.config.option, "numprocesses", None)
        boost.warmup(processes=os.cpu_count(), here=not workers)
        session.config.stash[WARMUP] = time.perf_counter() - start
    event.register("numba:compile", _COMPILES)


def pytest_sessionfinish(session):
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput[COMPILED] = (_COMPILES.count, _COMPILES.seconds,
                                                 _COMPILES.slowest)


def pytest_testnodedown(node, error):
    count, seconds, slowest = getattr(node, "workeroutput", {}).get(COMPILED, (0, 0.0, []))
    _COMPILES.count += count
    _COMPILES.seconds += seconds
    _COMPILES.slowest = sorted([*_COMPILES.slowest, *map(tuple, slowest)])[-5:]


def pytest_terminal_summary(terminalreporter, config):
    if WARMUP in config.stash:
        terminalreporter.write_line(
            f"engine compiled or loaded before the tests: {config.stash[WARMUP]:.1f} s; "
            f"{COMPILED}: {_COMPILES.count} ({_COMPILES.seconds:.1f} s)")
        for seconds, kernel in reversed(_COMPILES.slowest):
            terminalreporter.write_line(f"  {seconds:6.1f} s  {kernel[:300]}")
