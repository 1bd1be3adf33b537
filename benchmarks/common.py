"""What the benchmark scripts share: the synthetic data and numba's compile time."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

_COMPILE_SNIPPET = """
import time
t = time.perf_counter()
import boost
boost.warmup()
print(time.perf_counter() - t)
"""


def make_data(n_samples: int, n_features: int, seed: int = 0):
    """Synthetic binary classification: float32 X (standard normal) and 0/1 labels."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features)).astype(np.float32)
    logit = X[:, 0] + X[:, 1] ** 2 - X[:, 2] * X[:, 3] + 0.5 * rng.normal(size=n_samples)
    return X, (logit > 1.0).astype(np.float32)


def compile_times() -> tuple[float, float]:
    """Seconds to import boost and run ``boost.warmup()`` (every kernel of every tree method)
    in a fresh process: with an empty numba cache, then with the cache that run left."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        runs = []
        for _ in range(2):
            out = subprocess.run([sys.executable, "-c", _COMPILE_SNIPPET], env=env,
                                 capture_output=True, text=True, check=True)
            runs.append(float(out.stdout.strip().splitlines()[-1]))
    return runs[0], runs[1]
