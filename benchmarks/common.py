"""What the benchmark scripts share: the synthetic data, numba's compile time, the app's
server and its memory, Debian's Chromium and what the page shows (the first chart, a redraw)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

CHROMIUM = "/usr/bin/chromium"  # Debian's (never a browser Playwright downloads)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def _stopped(signum, frame) -> None:
    raise SystemExit(f"stopped by signal {signum}")


# A benchmark stopped by SIGTERM (tests/test_benchmarks.py's time limit) runs its ``finally``
# blocks, so the servers it started in process groups of their own (the app's, Jupyter's)
# stop with it instead of loading the machine for the rest of the run.
signal.signal(signal.SIGTERM, _stopped)


def chromium(playwright):
    """Debian's Chromium, headless, launched by a ``sync_playwright()`` handle (by an
    ``async_playwright()`` one: a coroutine to await)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                      args=CHROMIUM_ARGS)


def serve(port: int, timeout: float = 60.0, *, cwd: Path = ROOT, env: dict | None = None,
          options: tuple = ()) -> subprocess.Popen:
    """``streamlit run app.py`` in ``cwd`` on 127.0.0.1:``port``, once its health check
    answers, in a process group of its own (``stop`` ends it with the engine's compile
    workers). Stops with a message if the server exits (e.g. the port is taken) or does not
    answer. ``options``: more of Streamlit's command-line options (``"--server.x", "v"``)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false", *options],
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


@contextmanager
def served(port: int, url: str | None = None, timeout: float = 60.0):
    """The app's base URL: ``url`` (a server already running on this machine: ``--url``), or
    a ``serve``d one on ``port``, stopped when the block ends."""
    if url:
        if not is_loopback(urllib.parse.urlparse(url).hostname or ""):
            raise SystemExit(f"--url must be a loopback address, not {url!r}")
        yield url.rstrip("/")
        return
    proc = serve(port, timeout)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


def stop(proc: subprocess.Popen) -> None:
    """End a ``serve``d server and every process it started."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(proc.pid, signal.SIGKILL)


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine (the benchmarks never load another server)."""
    return host == "localhost" or host.startswith("127.") or host == "::1"


def process_tree(pid: int) -> list[int]:
    """``pid`` and every process under it (that is still running)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue  # it ended meanwhile
        found.append(p)
    return found


def rss_mib(pid: int) -> float:
    """Resident memory (VmRSS) of process ``pid`` and every process under it, in MiB."""
    total = 0
    for p in process_tree(pid):
        try:
            status = Path(f"/proc/{p}/status").read_text()
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += next((int(line.split()[1]) for line in status.splitlines()
                       if line.startswith("VmRSS:")), 0)
    return total / 1024


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) used by process ``pid`` and the processes under it now."""
    total = 0
    for p in process_tree(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


# A session's first chart: the first Plotly chart the page has drawn.
FIRST_CHART = ".js-plotly-plot .main-svg"
# Installed in the page: the moment the browser takes the key press or click (the change), the
# script's start and end as the server said them (the socket watch, ``WATCH_SOCKET``, which
# must be in the page before it loads: ``context.add_init_script``), and the first
# animation frame at which the page's player shows something new: its status line (the round
# and its losses) or its loss or fit chart's data (read from the page: the player's
# ``[data-testid="boostscope-player"]`` and its panels' classes). A change that leaves the
# model as it was (e.g. a larger min_child_weight no leaf was near) redraws nothing: its
# update is done when the rerun ends. Arm it (``window.probe.arm()``) before each change.
PLAYER = '[data-testid="boostscope-player"]'
sys.path.insert(0, str(ROOT / "tests" / "browser"))
from harness import NO_RUN, WATCH_SOCKET  # noqa: E402, F401 - the browser walks' own

PROBE = """() => {
    const player = () => [...document.querySelectorAll('PLAYER')].filter(p => p.isConnected)
        .at(-1);
    const charts = () => {
        const root = player();
        if (!root) return '';
        const status = root.querySelector('.bsp-status')?.textContent ?? '';
        return status + '|' + ['loss', 'fit'].map(k => {
            const plot = root.querySelector(`.bsp-${k} .js-plotly-plot`);
            return plot && plot.data ? JSON.stringify(plot.data.map(t => [t.x, t.y])) : '';
        }).join('|');
    };
    const probe = window.probe = {armed: false};
    probe.arm = () => Object.assign(probe, {armed: true, before: charts(), change: null,
                                           running: null, done: null, charts: null});
    const mark = () => {
        if (!probe.armed || probe.change !== null) return;
        probe.change = performance.now();
        // a change made while a run goes on is taken by that run (Streamlit restarts it with
        // the new values without saying "running" again)
        probe.busy = !!window.__bsSocket?.running;
    };
    document.addEventListener('keydown', mark, true);
    document.addEventListener('pointerdown', mark, true);
    // the run's start and end as the server said them (the socket watch, WATCH_SOCKET, in
    // the page before it loaded): the page's script-state attribute can batch a short run
    // away entirely on a busy machine
    const after = (t, what) => (window.__bsSocket?.log ?? [])
        .find(([at, said]) => at >= t && said === what)?.[0] ?? null;
    const frame = () => {
        if (probe.armed && probe.change !== null) {
            if (probe.running === null)
                probe.running = probe.busy ? probe.change : after(probe.change, 'running');
            if (probe.running !== null && probe.done === null)
                probe.done = after(probe.running, 'notRunning');
            if (probe.charts === null && charts() !== probe.before)
                probe.charts = performance.now();
        }
        requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
}""".replace("PLAYER", PLAYER)
FINISHED = "() => window.probe.charts !== null || window.probe.done !== null"


def updated(probe: dict) -> float:
    """From the change to the redrawn chart (to the rerun's end if nothing was redrawn), ms."""
    end = probe["charts"] if probe["charts"] is not None else probe["done"]
    return end - probe["change"]

_COMPILE_SNIPPET = """
import time
t = time.perf_counter()
import boost
boost.warmup()
print(time.perf_counter() - t)
"""


def make_data(n_samples: int, n_features: int, seed: int = 0, regression: bool = False):
    """Synthetic binary classification: float32 X (standard normal) and 0/1 labels (with
    ``regression``: the noisy score the labels threshold, as the target)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features)).astype(np.float32)
    logit = X[:, 0] + X[:, 1] ** 2 - X[:, 2] * X[:, 3] + 0.5 * rng.normal(size=n_samples)
    if regression:
        return X, logit.astype(np.float32)
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


# Installed in the page: from the browser taking a key press or click (the change) to the
# last change of the page it caused (any element added, removed or altered: Streamlit's
# rerun and Plotly's redraw), once the script has finished and the page has been still for
# ``quiet`` ms. Arm it (``window.settle.arm()``) before each change; ``window.settle.result``
# is then {change, last, done} (ms, the page's clock) or null while it is not still.
SETTLE = """() => {
    const settle = window.settle = {armed: false, result: null};
    const state = () => document.querySelector('[data-testid="stApp"]')
        ?.getAttribute('data-test-script-state');
    settle.arm = () => Object.assign(settle, {armed: true, change: null, last: null,
                                              done: null, result: null});
    const mark = () => { if (settle.armed && settle.change === null)
                             settle.change = performance.now(); };
    document.addEventListener('keydown', mark, true);
    document.addEventListener('pointerdown', mark, true);
    new MutationObserver(() => { if (settle.armed && settle.change !== null)
                                     settle.last = performance.now(); })
        .observe(document.body, {subtree: true, childList: true, attributes: true,
                                 characterData: true});
    const tick = () => {
        if (settle.armed && settle.change !== null) {
            const now = performance.now();
            if (settle.done === null && state() === 'notRunning' && settle.last !== null
                && settle.last > settle.change) settle.done = now;
            if (settle.done !== null && now - Math.max(settle.last, settle.done) > QUIET) {
                settle.result = {change: settle.change, last: settle.last, done: settle.done};
                settle.armed = false;
            }
        }
        requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
}"""


def settle_script(quiet_ms: int = 700) -> str:
    """``SETTLE`` with its stillness window."""
    return SETTLE.replace("QUIET", str(quiet_ms))
