"""Shared fixtures (the data sets themselves are in datasets.py), and the run's one compile.

A fresh checkout's numba cache is empty, and every process of a test run — the test workers
(pytest-xdist, ``-n 2`` in pyproject.toml), the ``streamlit run`` servers of the browser
walks, the subprocesses that start the engine in another build — would compile the kernels
it uses, several of them the same kernels at the same time. So before any test, the
controlling process compiles every kernel once with ``boost.warmup`` (one worker process
per core) into the shared disk cache, and every later process only loads them."""

import os
import time

import numpy as np
import pytest


@pytest.fixture
def four_points():
    X = np.array([[10.0], [20.0], [25.0], [35.0]])
    y = np.array([-10.0, 7.0, 8.0, -7.0])
    return X, y


def pytest_sessionstart(session):
    """Every engine kernel compiled (or loaded) once, before the tests and their workers
    start (xdist starts its workers after this hook)."""
    if hasattr(session.config, "workerinput"):  # a test worker: the controller did it
        return
    import boost

    start = time.perf_counter()
    boost.warmup(processes=os.cpu_count())
    session.config.stash[WARMUP] = time.perf_counter() - start


WARMUP = pytest.StashKey[float]()


def pytest_terminal_summary(terminalreporter, config):
    if WARMUP in config.stash:
        terminalreporter.write_line(
            f"engine compiled or loaded before the tests: {config.stash[WARMUP]:.1f} s")
