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
FIDELITY = [f"tests/engine/test_{name}.py" for name in
            ("vs_xgboost", "hist", "four_point", "partition", "pair_sums", "trace")]
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
    assert {"exact.grow_exact", "hist._build", "hist._grow_depthwise"} <= apart
    assert not any(name.startswith(("objectives.", "split_math.")) for name in apart)
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


@pytest.mark.skipif(os.environ.get("BOOST_SIMD") == "0", reason="already the portable run")
def test_fidelity_tests_pass_with_the_portable_kernels():
    """The fidelity tests pass with the portable kernels (BOOST_SIMD=0), in a subprocess (the
    switch is read at import). It compiles only the kernels the build keeps apart; the others
    load from the cache the run's warm-up filled (tests/conftest.py)."""
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-n", "0", *FIDELITY], cwd=ROOT, capture_output=True,
                         text=True, timeout=1500, env={**os.environ, "BOOST_SIMD": "0"})
    text = (out.stdout + out.stderr).strip()
    summary = text.splitlines()[-1] if text else ""
    assert out.returncode == 0, text[-4000:]
    assert " passed" in summary and "failed" not in summary, summary
    print("BOOST_SIMD=0:", summary)


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
