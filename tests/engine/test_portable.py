"""The engine without its LLVM kernels: ``BOOST_SIMD=0`` (portable numba everywhere) and
``NUMBA_DISABLE_JIT=1`` (the engine as plain Python, for a debugger) give the same trees and
margins, bit for bit, as the compiled engine with vector instructions.

Both switches are read when the engine is imported, so each runs in a subprocess."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import boost
from boost import simd

ROOT = Path(__file__).resolve().parents[2]
# The models of the NUMBA_DISABLE_JIT test: the four-point example and 200 seeded rows.
MODELS = """
import json, sys
import numpy as np
import boost

def data():
    four = (np.array([[10.0], [20.0], [25.0], [35.0]]), np.array([-10.0, 7.0, 8.0, -7.0]))
    rng = np.random.default_rng(7)
    X = rng.normal(size=(200, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:, 3] = np.round(X[:, 3])  # ties
    y = np.nan_to_num(X[:, 0]) * 2 - np.nan_to_num(X[:, 1]) ** 2 + rng.normal(size=200)
    return {"four_points": four, "rows200": (X, y)}

def models():
    out = {}
    for name, (X, y) in data().items():
        for method in ("exact", "hist", "approx"):
            params = {"tree_method": method, "max_depth": 3, "eta": 0.3}
            if name == "four_points":
                params.update({"base_score": 0.5, "lambda": 0, "max_depth": 2})
            bst = boost.train(params, X, y, 3)
            margin = bst.predict(X, output_margin=True)
            bits = np.asarray(margin, np.float32).view(np.uint32).tolist()
            out[f"{name}/{method}"] = {"dump": bst.get_dump(with_stats=True), "margin": bits}
    return out
"""


def _run(code: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=1200,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env})


def _start(code: str, **env) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT), **env})


def _finish(run: subprocess.Popen):
    """The JSON a ``_start``-ed process printed (it must exit 0)."""
    out, err = run.communicate(timeout=1200)
    assert run.returncode == 0, err[-3000:]
    return json.loads(out)


# The models of the BOOST_SIMD=0 test: each kernel the portable build keeps apart runs (the
# growers of exact, hist and approx, depth-wise and leaf-wise, the histogram build), on rows
# with missing values, ties, weights and three classes. Every other kernel is the same
# machine code in both builds (one cache), and the vector build's models are XGBoost's
# (test_vs_xgboost.py and the other fidelity tests), so equal bits here are XGBoost's too.
PORTABLE = MODELS + """
from boost import simd

CONFIGS = {
    "exact/weights": {"tree_method": "exact", "max_depth": 3},
    "hist/gamma": {"tree_method": "hist", "max_depth": 4, "gamma": 0.5},
    "approx": {"tree_method": "approx", "max_depth": 3, "lambda": 2.0},
    "hist/lossguide": {"tree_method": "hist", "grow_policy": "lossguide", "max_leaves": 6,
                       "max_depth": 0},
    "exact/softprob": {"tree_method": "exact", "objective": "multi:softprob", "num_class": 3,
                       "max_depth": 2},
    "hist/softprob": {"tree_method": "hist", "objective": "multi:softprob", "num_class": 3,
                      "max_depth": 2},
}

def portable_models(names=None):
    X, y = data()["rows200"]
    weight = np.linspace(0.5, 1.5, len(y))
    classes = np.digitize(np.nan_to_num(X[:, 2]), [-0.5, 0.5])
    out = {}
    for name, params in CONFIGS.items():
        if names is not None and name not in names:
            continue
        target = classes if "softprob" in name else y
        bst = boost.train({"eta": 0.3, **params}, X, target, 3,
                          sample_weight=weight if "weights" in name else None)
        margin = bst.predict(X, output_margin=True)
        bits = np.asarray(margin, np.float32).view(np.uint32).ravel().tolist()
        out[name] = {"dump": bst.get_dump(with_stats=True), "margin": bits}
    return out

def not_run():
    # a kernel ran if it was compiled or loaded here, or a kernel that ran calls it (a kernel
    # loaded from the cache holds its callees' machine code: they are never compiled)
    apart = simd.inlining_kernels()
    ran = [k for k in apart if k.signatures]
    for k in ran:
        ran += [c for c in simd.callees(k) if c in apart and c not in ran]
    return sorted(k.py_func.__qualname__ for k in apart if k not in ran)
"""


# The two groups of configurations grown in two processes at once: exact's kept-apart kernels
# and hist's compile apart, so the compile takes about half as long on two cores.
GROUPS = (["exact/weights", "exact/softprob"],
          ["hist/gamma", "approx", "hist/lossguide", "hist/softprob"])


@pytest.mark.skipif(os.environ.get("BOOST_SIMD") == "0", reason="already the portable build")
def test_the_portable_kernels_grow_the_same_trees():
    """BOOST_SIMD=0 (subprocesses: the switch is read at import) grows the vector build's
    trees and margins, bit for bit, and runs every kernel it keeps apart. It compiles only
    those; the others load from the cache the run's warm-up filled (tests/conftest.py)."""
    runs = [_start(PORTABLE + f"\njson.dump([portable_models({names!r}), not_run()], sys.stdout)",
                   BOOST_SIMD="0") for names in GROUPS]
    results = [_finish(run) for run in runs]
    portable = {key: model for models, _ in results for key, model in models.items()}
    # every kernel of the portable build's own ran in one of the two processes
    assert set.intersection(*(set(not_run) for _, not_run in results)) == set()
    namespace = {}
    exec(PORTABLE, namespace)  # the same models, vector build, in this process
    vector = namespace["portable_models"]()
    assert set(portable) == set(vector) == set(namespace["CONFIGS"])
    for key, model in vector.items():
        assert portable[key]["dump"] == model["dump"], key
        assert portable[key]["margin"] == model["margin"], key


def test_boost_simd_0_selects_the_portable_kernels():
    code = ("import boost, boost.simd as s; "
            "print(s.ENABLED, s.VECTOR_SPLIT, s.split8.__module__)")
    out = _run(code, BOOST_SIMD="0")
    assert out.returncode == 0, out.stderr
    enabled, vector, module = out.stdout.split()
    assert (enabled, vector, module) == ("False", "False", "boost.simd.portable")
    default = _run("import boost.simd as s; print(s.ENABLED)")
    assert default.stdout.strip() == "True"


# Each kernel's module.name and cache directory, in the build the subprocess was started with.
CACHES = """
import json, sys
import boost
from boost import runtime, simd
apart = {id(k) for k in simd.inlining_kernels()}
json.dump({runtime._name(k): [k._cache._cache_path, id(k) in apart] for k in runtime.kernels()},
          sys.stdout)
"""


def test_only_kernels_that_inline_the_switch_keep_a_cache_of_their_own():
    """The portable build shares numba's disk cache with the vector build except for the
    kernels whose machine code holds a switched kernel: a fresh checkout compiles those
    twice, not the whole engine."""
    vector = json.loads(_run(CACHES).stdout)
    portable = json.loads(_run(CACHES, BOOST_SIMD="0").stdout)
    assert set(vector) == set(portable)
    apart = {name for name, (path, inlines) in portable.items() if inlines}
    # the growers and the histogram build call the switched kernels; the losses do not
    assert {"exact.grower.grow_exact", "hist.histogram._build",
            "hist.grower._grow_depthwise"} <= apart
    assert not any(name.startswith(("objectives.", "metrics.", "split_math.")) for name in apart)
    for name, (path, _) in portable.items():
        moved = path != vector[name][0]
        assert moved == (name in apart), name
        assert (Path(path).is_relative_to(simd.PORTABLE_CACHE)) == (name in apart), name


def test_engine_runs_as_python_with_identical_results():
    out = _run(MODELS + "\njson.dump(models(), sys.stdout)", NUMBA_DISABLE_JIT="1")
    assert out.returncode == 0, out.stderr[-3000:]
    as_python = json.loads(out.stdout)
    namespace = {}
    exec(MODELS, namespace)  # the same models, compiled, in this process
    compiled = namespace["models"]()
    assert set(as_python) == set(compiled) and len(compiled) == 6
    for key, model in compiled.items():
        assert as_python[key]["dump"] == model["dump"], key
        assert as_python[key]["margin"] == model["margin"], key


def test_this_process_uses_the_switch_it_was_started_with():
    expected = os.environ.get("BOOST_SIMD", "1").strip() != "0"
    assert boost.simd.ENABLED == expected
    assert np.array([boost.simd.LANES]).item() == 8


SWEEP = MODELS + """
def sweep():
    X, y = data()["rows200"]
    frame = boost.sweep({"max_depth": 3}, X, y, {"tree_method": ["exact", "hist"],
                                                 "eta": [0.1, 0.3]}, 3, evals=[(X, y, "again")])
    return frame.to_dict(orient="list")
"""


def test_sweep_runs_as_python_with_identical_results():
    # The sweep's threads run plain Python under NUMBA_DISABLE_JIT: the same rows, bit for bit.
    out = _run(SWEEP + "\njson.dump(sweep(), sys.stdout)", NUMBA_DISABLE_JIT="1")
    assert out.returncode == 0, out.stderr[-3000:]
    namespace = {}
    exec(SWEEP, namespace)
    compiled = namespace["sweep"]()
    assert json.loads(out.stdout) == json.loads(json.dumps(compiled))
    assert len(compiled["point"]) == 12
