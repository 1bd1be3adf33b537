"""What the benchmark scripts share: the synthetic data, numba's compile time, the app's
server and Debian's Chromium."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"  # Debian's (never a browser Playwright downloads)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium(playwright):
    """Debian's Chromium, headless, launched by a ``sync_playwright()`` handle."""
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                      args=CHROMIUM_ARGS)


def serve(port: int, timeout: float = 60.0, *, cwd: Path = ROOT,
          env: dict | None = None) -> subprocess.Popen:
    """``streamlit run app.py`` in ``cwd`` on 127.0.0.1:``port``, once its health check
    answers, in a process group of its own (``stop`` ends it with the engine's compile
    workers). Stops with a message if the server exits (e.g. the port is taken) or does not
    answer."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false"],
        cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the Streamlit server exited (code {proc.returncode}); is port "
                             f"{port} taken?")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
            return proc
        except OSError:
            time.sleep(0.05)
    stop(proc)
    raise SystemExit(f"the Streamlit server did not answer within {timeout:.0f} s")


def stop(proc: subprocess.Popen) -> None:
    """End a ``serve``d server and every process it started."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(proc.pid, signal.SIGKILL)

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


def compile_times(repo: Path = ROOT, cache: Path | None = None) -> tuple[float, float]:
    """Seconds to import boost and run ``boost.warmup()`` (every kernel of every tree method)
    in a fresh process: with an empty numba cache (``cache``, default a temporary one), then
    with the cache that run left."""
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "NUMBA_CACHE_DIR": str(cache or scratch), "PYTHONPATH": str(repo)}
        runs = []
        for _ in range(2):
            out = subprocess.run([sys.executable, "-c", _COMPILE_SNIPPET], env=env,
                                 capture_output=True, text=True, check=True)
            runs.append(float(out.stdout.strip().splitlines()[-1]))
    return runs[0], runs[1]
