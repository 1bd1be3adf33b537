"""Every script in benchmarks/ runs: each in its smallest mode (``--smoke``: the smallest data,
the fewest repeats) as a subprocess, and each printed its table — its header and at least one
row with measured numbers (and the ratio, where the script prints one). What is checked is
that the script still works against today's engine and page, not its figures: a smoke run's
times are not measurements anyone should quote.

The scripts run a few at a time (most of a browser script's time is waiting on the page).
The module spends about 225 CPU seconds (Chromium, the servers, the scripts): 7 min 12 s of
wall time on this project's 2 cores while other work kept their load average at 9-17. One
``streamlit run app.py`` is started for the module (``harness.start_server``) and given to the
scripts that can use it (``--url``; ``bench_replica.py`` measures it); the others start their
own: a fresh clone's (``bench_cold.py``), one with a short session TTL (``bench_load.py``),
the bare page (``bench_app.py``'s floor). ``bench_notebook.py`` starts a Jupyter server of
its own, with the notebook browser test's code (tests/browser/jupyter_pages.py; about 2.6 s
until it answers): that test's server is in another test worker (a file stays on one) and
serves kernels that do not import benchmarks/. The cases that drive Chromium carry the
``browser`` marker. A peer that is not installed (LightGBM) is left out by the script, which
says so."""

import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(ROOT / "tests" / "browser"))

import harness  # noqa: E402

NUM = r"[-+]?\d[\d,]*(?:\.\d+)?"
BROWSER = pytest.mark.browser

# case: (script, arguments, the lines its output must hold (regular expressions), marks).
# The longest first: they start first.
CASES = {
    "bench_app": ("bench_app.py", ["--smoke"], [
        rf"a 16 MB read {NUM} ms at once, {NUM} ms after 1 s idle",
        r"case\s+measure\s+new ms med / p95",
        rf"1k exact 1280x720\s+step \(→\)\s+{NUM} / {NUM}",
        rf"1k exact 1280x720\s+step out of round 0\s+{NUM} / {NUM}",
        rf"1k exact 1280x720\s+charts after the status line \(opening\)\s+{NUM}",
        rf"1k exact 1280x720\s+node click: details\s+{NUM} / {NUM}",
        rf"1k exact 1280x720\s+node click: details, pointer rested\s+{NUM} / {NUM}",
        rf"1k exact 1280x720\s+node click: details, prefetched\s+{NUM} / {NUM}",
        rf"bare page, 1 chart\s+median\s+{NUM} ms, p95\s+{NUM} ms"], BROWSER),
    "bench_load": ("bench_load.py", ["--smoke"], [
        rf"1 sessions opened at once: first chart min {NUM} s, median {NUM} s",
        rf"server memory: before {NUM} MiB; all 1 open and idle {NUM} MiB \({NUM} MiB per",
        rf"session A's step, alone \(2 steps\): median {NUM} ms"], BROWSER),
    "bench_live": ("bench_live.py", ["--smoke"], [
        r"knob\s+median ms\s+max ms\s+goal ms",
        rf"eta\s+{NUM}\s+{NUM}\s+300",
        rf"all\s+{NUM}\s+{NUM}\s+300\s+\(\d+ of 3 within the goal\)",
        rf"training alone: boost.train {NUM} ms, xgboost.train {NUM} ms \(ratio {NUM}×\)"],
        BROWSER),
    "bench_player_offline": ("bench_player_offline.py", ["--smoke"], [
        rf"1280x720 before\s+step median\s+{NUM}\s+p95\s+{NUM}",
        rf"1280x720 after\s+step median\s+{NUM}\s+p95\s+{NUM}",
        rf"play 20/s:\s+{NUM}–\s*{NUM} rounds/s"], BROWSER),
    "bench_notebook": ("bench_notebook.py", ["--smoke"], [
        r"node click in the notebook widget, 1,000 rows",
        rf"cold \(kernel builds the record\)\s+n= 2\s+median\s+{NUM} ms",
        rf"held \(prefetched\)\s+n= 2\s+median\s+{NUM} ms",
        r"requests to other hosts: none"], BROWSER),
    "bench_cold": ("bench_cold.py", ["--smoke"], [
        r"\| step \| empty cache \| warm cache \|",
        rf"\| page opened to the first chart \| {NUM} s \|",
        rf"\| `streamlit run app.py` to its health check \| {NUM} s \|"], BROWSER),
    "bench_load_trainers": ("bench_load.py", ["--trainers", "2", "--smoke"], [
        rf"2 scripted sessions at once, each uploading its own 1,000 × 10 table .*: {NUM} s",
        rf"server memory: before {NUM} MiB, peak {NUM} MiB, after {NUM} MiB; sessions with "
        r"an error: 0",
        rf"session A's step, alone \(2 steps\): median {NUM} ms"], BROWSER),
    "bench_replica": ("bench_replica.py", ["--smoke"], [
        rf"idle: {NUM} MiB",
        rf"session 1: first chart {NUM} s",
        rf"2 session\(s\): {NUM} MiB \({NUM} over idle\), {NUM} MiB per session"], BROWSER),
    "lost_press": ("lost_press.py", ["--smoke"], [
        r"toggle: 5 presses, busy loops 0: state missed \d+, run_of missed \d+, "
        r"sent nothing \d+"], BROWSER),
    "bench_hist_modes": ("bench_hist.py", ["--table", "--profile", "--retrain", "--smoke"], [
        r"\| task \| size \| BoostScope \| XGBoost \| LightGBM \| ÷ faster peer \|",
        rf"\| binary \| 1k×5 \| {NUM} \| {NUM} \| (?:{NUM}|—) \| {NUM} \| True \|",
        rf"\| regression \| 1k×5 \| {NUM} \| {NUM} \| (?:{NUM}|—) \| {NUM} \| True \|",
        r"\| stage \| ms per round \| share \|",
        rf"BoostScope \(cuts kept\)\s+{NUM} ms\s+{NUM}x XGBoost"], ()),
    "bench_hist": ("bench_hist.py", ["--smoke"], [
        r"library\s+time\s+time / XGBoost\s+peak memory",
        rf"BoostScope hist\s+{NUM}s\s+{NUM}x\s+{NUM} MiB",
        r"identical trees True"], ()),
    "bench_sweep": ("bench_sweep.py", ["--smoke"], [
        r"best s\s+vs XGBoost",
        rf"boost\.sweep\s+{NUM}\s+{NUM}x",
        rf"largest relative difference to XGBoost over every point and round: {NUM}"], ()),
    "bench_exact": ("bench_exact.py", ["--smoke"], [
        r"data\s+BoostScope\s+XGBoost\s+XGB/BS",
        rf"1000x5\s+{NUM}s\s+{NUM}s\s+{NUM}x\s+\S+\s+True",
        rf"split_candidates of the root, 2,000 x 5: {NUM} candidates"], ()),
    "bench_records": ("bench_records.py", ["--smoke"], [
        r"\| depth \| nodes built \|",
        rf"\| 3 \| 4 \| {NUM} \| {NUM} \|"], ()),
    "bench_round_trace": ("bench_round_trace.py", ["--smoke"], [
        r"case\s+kind\s+train s\s+trees s",
        rf"1k x 5 hist\s+rows\s+{NUM}\s+{NUM}\s+{NUM}\s+{NUM}\s+{NUM}\s+{NUM}",
        rf"1k x 2 hist\s+surface\s+{NUM}"], ()),
    "bench_live_estimates": ("bench_live.py", ["--estimates", "--smoke"], [
        r"method\s+estimate s\s+boost s\s+est/real",
        rf"442 × 10 × 20, 3\s+exact\s+{NUM}\s+{NUM}\s+{NUM}\s+{NUM}\s+(yes|Train)"], ()),
    "ab_engine": ("ab_engine.py", ["--smoke"], [
        r"A = HEAD, B = this checkout; 1 trainings each; plain Python",
        rf"B: median {NUM} s",
        rf"B / A = {NUM} \(medians\); same trees: True"], ()),
}
# the cases that use the module's server (the others start their own: a fresh clone's, one
# with its own session TTL, the bare page's, or none)
ON_THE_SERVER = ("bench_replica", "bench_live", "bench_app", "lost_press")
AT_ONCE = 3  # scripts running together
TIMEOUT_S = 300  # a bound on a hung script, not a measurement
STOP_S = 30  # for a stopped script to stop its servers


def _run(name: str, extra: list[str]) -> subprocess.CompletedProcess:
    script, args, _, _ = CASES[name]
    start = time.monotonic()
    command = [sys.executable, str(BENCH / script), *args, *extra]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
        done = subprocess.CompletedProcess(command, proc.returncode, out, err)
    except subprocess.TimeoutExpired:  # what it printed says how far it got
        proc.terminate()  # SIGTERM: the script stops the servers it started (common.py)
        try:
            out, err = proc.communicate(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        done = subprocess.CompletedProcess(command, f"stopped after {TIMEOUT_S} s", out, err)
    done.seconds = time.monotonic() - start  # reported, not asserted
    return done


@pytest.fixture(scope="module")
def runs(request):
    """The selected cases, started together (``AT_ONCE`` at a time): name -> a future of its
    finished process."""
    chosen = [item.callspec.params["name"] for item in request.session.items
              if item.module is request.module and hasattr(item, "callspec")]
    server = None
    if set(chosen) & set(ON_THE_SERVER):
        server = harness.start_server()
    extra = {name: [] for name in chosen}
    if server:
        for name in set(chosen) & set(ON_THE_SERVER):
            extra[name] = ["--url", server[1]]
        if "bench_replica" in extra:
            extra["bench_replica"] += ["--pid", str(server[0].pid)]
    pool = ThreadPoolExecutor(max_workers=AT_ONCE)
    yield {name: pool.submit(_run, name, extra[name]) for name in chosen}
    pool.shutdown(wait=True, cancel_futures=True)
    if server:
        harness.stop_server(server[0])


@pytest.mark.parametrize("name", [pytest.param(name, marks=case[3]) for name, case in
                                  CASES.items()])
def test_benchmark_prints_its_table(runs, name):
    done = runs[name].result()
    out = done.stdout
    print(f"{name}: {done.seconds:.0f} s, load average {os.getloadavg()[0]:.1f}")
    assert done.returncode == 0, f"exit {done.returncode}\n{out[-3000:]}\n{done.stderr[-3000:]}"
    missing = [line for line in CASES[name][2] if not re.search(line, out)]
    assert not missing, f"not printed: {missing}\n--- stdout:\n{out[-4000:]}"


def test_every_script_has_a_case():
    """A new benchmark script gets its smoke case here (bare_page.py is bench_app's page,
    common.py and scripted.py are what the scripts share)."""
    scripts = {p.name for p in BENCH.glob("*.py")} - {"bare_page.py", "common.py",
                                                       "scripted.py"}
    assert scripts == {case[0] for case in CASES.values()}
