"""Shared fixtures (the data sets themselves are in datasets.py)."""

import os

import numpy as np
import pytest


@pytest.fixture
def four_points():
    X = np.array([[10.0], [20.0], [25.0], [35.0]])
    y = np.array([-10.0, 7.0, 8.0, -7.0])
    return X, y


PORTABLE_TEST = "test_fidelity_tests_pass_with_the_portable_kernels"


def pytest_collection_finish(session):
    """Start the portable build's fidelity run (tests/engine/test_portable.py) now, when it is
    among the tests to run, so its minutes of compiling overlap the other tests."""
    for item in session.items:
        if item.name == PORTABLE_TEST and os.environ.get("BOOST_SIMD") != "0":
            item.module.start_portable_run()
            return


def pytest_sessionfinish(session):
    """A portable run still going when the session ends (stopped early: -x, Ctrl-C) is
    stopped with it."""
    for item in getattr(session, "items", ()):  # (none when collecting failed)
        if item.name == PORTABLE_TEST:
            proc = item.module._PORTABLE.get("proc")
            if proc is not None and proc.poll() is None:
                proc.kill()
            return
