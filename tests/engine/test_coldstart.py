"""The engine on a fresh machine: the plain-Python twin that answers small data while the
kernels compile (bit-equal to the compiled engine), and the warm-up's worker processes."""

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numba.core.registry import CPUDispatcher

import boost
from boost import runtime
from boost.runtime import PYTHON_CELLS, PYTHON_OBJECTIVES, fits_python, python_engine

ROOT = Path(__file__).resolve().parents[2]


def _data(objective):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 3))
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:, 2] = np.round(X[:, 2])  # ties
    z = np.nan_to_num(X[:, 0]) - np.nan_to_num(X[:, 1]) ** 2
    return X, 3 * z + rng.normal(size=80)


def _bits(a):
    return np.asarray(a, np.float32).view(np.uint32)


def test_the_twin_is_the_same_code_without_the_jit():
    twin = python_engine()
    assert twin is python_engine()  # imported once
    assert twin.__name__ == "boost_python"
    assert isinstance(boost.exact.grow_exact, CPUDispatcher)
    assert not isinstance(twin.exact.grow_exact, CPUDispatcher)
    compiled = boost.exact.grow_exact.py_func
    assert twin.exact.grow_exact.__code__.co_filename == compiled.__code__.co_filename
    assert not twin.simd.ENABLED  # the LLVM-level kernels have no Python form


@pytest.mark.parametrize("method", ["exact", "hist", "approx"])
@pytest.mark.parametrize("objective", sorted(PYTHON_OBJECTIVES))
@pytest.mark.parametrize("boosting", ["newton", "first_order"])
def test_the_twin_trains_the_compiled_engines_model_bit_for_bit(method, objective, boosting):
    X, y = _data(objective)
    params = {"objective": objective, "tree_method": method, "max_depth": 3, "eta": 0.3,
              "gamma": 0.2, "boosting": boosting, "subsample": 0.9, "colsample_bynode": 0.7}
    compiled = boost.train(params, X, y, 4, evals=[(X, y, "valid")])
    plain = python_engine().train(params, X, y, 4, evals=[(X, y, "valid")])
    plain_candidates = plain.split_candidates(2, 0)
    plain_margin = plain.predict(X, output_margin=True)
    assert plain.engine is python_engine() and compiled.engine is boost
    assert plain.get_dump(with_stats=True) == compiled.get_dump(with_stats=True)
    assert np.array_equal(_bits(plain_margin), _bits(compiled.predict(X, output_margin=True)))
    assert plain.evals_result() == compiled.evals_result()
    pd.testing.assert_frame_equal(plain_candidates, compiled.split_candidates(2, 0))
    pd.testing.assert_frame_equal(plain.trees_to_dataframe(include_pruned=True),
                                  compiled.trees_to_dataframe(include_pruned=True))


def test_exp_differs_in_the_last_bit_as_python():
    """Why the other objectives wait: libm's float32 exp (what the compiled kernels call)
    against float64 exp rounded to float32 (what the same line computes as Python)."""
    x = np.random.default_rng(0).uniform(-88, 88, 200_000).astype(np.float32)
    compiled = boost.objectives._exp_array(x)
    python = np.exp(x.astype(np.float64)).astype(np.float32)
    assert 0 < np.count_nonzero(_bits(compiled) != _bits(python)) < len(x) // 500


def test_small_data_is_what_the_twin_trains():
    squared = "reg:squarederror"
    assert fits_python(squared, 4, 1, 20)  # the four-point example
    assert fits_python(squared, 200, 1, 20)  # the noisy sine
    assert not fits_python(squared, 442, 10, 20)  # diabetes waits for the compile
    assert not fits_python("binary:logistic", 4, 1, 20)  # exp
    assert fits_python(squared, PYTHON_CELLS, 1, 1)
    assert not fits_python(squared, PYTHON_CELLS + 1, 1, 1)


def test_every_kernel_is_compiled_by_the_warmup():
    boost.warmup(processes=1)
    kernels = runtime.kernels()
    assert len(kernels) > 90
    assert {k.py_func.__qualname__ for k in kernels} >= {"grow_exact", "_build", "_leaves"}
    # Each has machine code in numba's disk cache (a kernel no part reaches would not).
    assert [runtime._name(k) for k in runtime.uncached()] == []


def test_a_warm_cache_loads_here_without_workers():
    seen = []
    boost.warmup(processes=2, progress=lambda done, total, label: seen.append((done, total)))
    total = len(runtime.PARTS)
    assert seen[0] == (0, total) and seen[-1] == (total, total)


def test_here_false_leaves_a_warm_cache_alone():
    """A test run's controller fills the cache and runs no part itself when it holds every
    kernel (tests/conftest.py: its workers load them)."""
    seen = []
    boost.warmup(processes=2, here=False,
                 progress=lambda done, total, label: seen.append((done, total, label)))
    assert runtime.uncached() == []
    assert seen == [(0, len(runtime.PARTS), "")]


# Each kernel's index file in numba's cache, as this process finds it and as a process with
# NUMBA_CACHE_DIR=<argv[1]> would.
_CACHE_FILES = """
import json, os, sys
from numba.core import config
import boost
from boost import runtime
print(json.dumps({runtime._name(k): k._cache._cache_file._index_path
                  for k in runtime.kernels()}))
"""


def _cache_without(tmp_path, left_out: set[str]) -> Path:
    """A numba cache directory holding this checkout's machine code (warmed by the run's
    warm-up) for every kernel but ``left_out``: a worker started on it compiles those only."""
    def index_paths(**env):
        out = subprocess.run([sys.executable, "-c", _CACHE_FILES], cwd=ROOT, text=True,
                             capture_output=True, timeout=300, env={**os.environ, **env})
        assert out.returncode == 0, out.stderr[-2000:]
        return json.loads(out.stdout.splitlines()[-1])

    here = index_paths()
    there = index_paths(NUMBA_CACHE_DIR=str(tmp_path))
    for name, index in here.items():
        if name in left_out or not Path(index).exists():
            continue
        stem = Path(index).name.removesuffix(".nbi")  # its data files: <stem>.<n>.nbc
        target = Path(there[name]).parent
        target.mkdir(parents=True, exist_ok=True)
        for file in Path(index).parent.glob(stem + ".*"):
            shutil.copy2(file, target / file.name)
    return tmp_path


def test_a_worker_says_each_kernel_it_compiles(tmp_path):
    """The worker protocol, on a cache that lacks one kernel: a part per line in; out, a line
    per engine kernel compiled (the progress), then "done <part>" (or "failed <part>
    <error>")."""
    left_out = {"sketch._chunk_queue_summary"}
    cache = _cache_without(tmp_path, left_out)
    worker = subprocess.run([sys.executable, "-m", "boost.runtime", "--worker"], cwd=ROOT,
                            input="long columns\nno such part\n", capture_output=True,
                            text=True, timeout=900,
                            env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    lines = worker.stdout.splitlines()
    assert lines[-2:] == ["done long columns", "failed no such part KeyError"]
    compiled = {line.split()[1] for line in lines[:-2]}
    assert all(line.startswith("kernel ") for line in lines[:-2])
    assert "sketch._chunk_queue_summary" in compiled
    assert compiled <= left_out  # what the cache held was loaded, not compiled again
    for name in compiled:  # only the engine's, named as the parent counts them
        module, _, function = name.rpartition(".")
        assert hasattr(importlib.import_module("boost." + module), function)


def test_workers_run_every_part_once():
    steps = []
    assert runtime._compile_in_workers(2, steps.append, set()) == len(runtime.PARTS)
    assert steps == []  # a warm cache: nothing compiled


def test_the_twins_model_answers_its_screens_with_its_own_package():
    # booster.trace is the model's package's (boost/trace/ imports relatively): the twin's
    # model asks the twin's objectives and trees, bit for bit the compiled engine's answer.
    X, y = _data("reg:squarederror")
    X = X[:, :1]
    plain = python_engine().train({"max_depth": 3}, X, y, 3)
    compiled = boost.train({"max_depth": 3}, X, y, 3)
    assert type(plain.trace).__module__ == "boost_python.trace"
    assert type(plain.trace.fit(X, y, 2, np.arange(len(y)))).__module__ == "boost_python.trace.fit"
    a = plain.trace.fit(X, y, 2, np.arange(len(y)))
    b = compiled.trace.fit(X, y, 2, np.arange(len(y)))
    for field in ("now", "before", "step"):
        assert np.array_equal(_bits(getattr(a, field)), _bits(getattr(b, field))), field
    np.testing.assert_array_equal(a.grid[0], b.grid[0])
