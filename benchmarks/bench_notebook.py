"""A node click in the notebook widget (ui/notebook.py) at 10,000 rows, in JupyterLab 4 and
Debian's Chromium: the page's own timing (``window.boostscopePlayer.timings``, gesture
"node": from the press to the first frame after the node's details show its record). Two
kinds of click: **cold** (the page's prefetch off, the record asked of the kernel and built
there for the first time: the engine's candidates and the record's chart) and **held** (the
page at rest on the round first, its prefetch having asked the kernel for every node).

    python benchmarks/bench_notebook.py [--rows 10000] [--features 10] [--depth 4] [--rounds 20]
    python benchmarks/bench_notebook.py --smoke   # the script works (1,000 rows)

Prints each kind's median, 90th percentile and max over the clicks (ms). Every request to
another host is blocked; the script says if any was tried.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import nbformat
from common import ROOT, chromium
from playwright.sync_api import sync_playwright

LOCAL = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")
PLAYER = "document.querySelector('[data-testid=boostscope-widget] .bsw-player').boostscopePlayer"


def lab(tmp: Path, port: int) -> subprocess.Popen:
    """JupyterLab on 127.0.0.1:``port`` serving ``tmp/work``, its settings in ``tmp``, kernels
    importing this checkout."""
    settings = tmp / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'benchmarks'}",
           "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"), "JUPYTER_CONFIG_DIR": str(tmp / "cfg"),
           "JUPYTER_DATA_DIR": str(tmp / "data")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--allow-root", "--no-browser",
         f"--ServerApp.port={port}", "--ServerApp.ip=127.0.0.1", "--ServerApp.token=",
         "--ServerApp.password=", f"--ServerApp.root_dir={tmp / 'work'}",
         f"--LabApp.user_settings_dir={tmp / 'settings'}",
         f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 180
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=2)
            return proc
        except OSError:
            time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGKILL)
    raise SystemExit("JupyterLab did not start")


def run_all(page, drawn: str, timeout_s: float = 900) -> None:
    """Every cell run, then wait until ``drawn`` (a JS expression) holds. JupyterLab asks which
    kernel to start when it opened the notebook before it had the list of kernels (a busy
    machine): the notebook's own, Python 3, is the dialog's choice."""
    deadline = time.time() + timeout_s
    # the first code cell run until it has its number (a run asked for while the kernel is
    # still starting is lost), then every cell from there in turn (Shift+Enter: run, next)
    first = page.locator(".jp-Notebook .jp-CodeCell").first.locator(".jp-InputPrompt")
    while not re.search(r"\[\d+\]", first.text_content()):
        if "*" not in first.text_content():
            first.click()  # command mode on this cell
            page.keyboard.press("Control+Enter")
        dialog = page.locator(".jp-Dialog .jp-mod-accept")
        if dialog.count():
            dialog.click()
        if time.time() > deadline:
            raise TimeoutError(f"the kernel did not run a cell in {timeout_s:.0f} s")
        page.wait_for_timeout(2000)
    first.click()
    for _ in range(page.locator(".jp-Notebook .jp-Cell").count()):
        page.keyboard.press("Shift+Enter")
    while not page.evaluate(f"() => !!({drawn})"):
        dialog = page.locator(".jp-Dialog .jp-mod-accept")
        if dialog.count():
            dialog.click()
        if time.time() > deadline:
            raise TimeoutError(f"the notebook did not show its widgets in {timeout_s:.0f} s")
        page.wait_for_timeout(500)


def notebook(rows: int, features: int, depth: int, rounds: int) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(f"""import pandas as pd
import boost
from common import make_data
from ui.notebook import show
X, y = make_data({rows}, {features}, regression=True)
X = pd.DataFrame(X, columns=[f"x{{i}}" for i in range({features})])
bst = boost.train({{"max_depth": {depth}, "eta": 0.3, "tree_method": "exact"}}, X, y, {rounds})
w = show(bst, X, y, round=1)
w""")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    return nb


def clicks(page, r: int, nodes: list[int]) -> list[float]:
    """Step to round ``r`` (→ from the round before), click each of ``nodes``: the ms of
    each click's timing."""
    out = []
    for node in nodes:
        n = page.evaluate("() => window.boostscopePlayer.timings.filter(t => t.gesture === "
                          "'node').length")
        box = page.evaluate(f"(id) => window.boostscopePlayer.nodeCenter(id, {PLAYER})", node)
        page.mouse.click(box["x"], box["y"])
        page.wait_for_function(f"() => window.boostscopePlayer.timings.filter(t => t.gesture "
                               f"=== 'node').length > {n}", timeout=120_000)
        out.append(page.evaluate("() => window.boostscopePlayer.timings.filter(t => "
                                 "t.gesture === 'node').at(-1).ms"))
        page.wait_for_timeout(150)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--features", type=int, default=10)
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--port", type=int, default=8941)
    ap.add_argument("--clicks", type=int, default=7, help="nodes clicked a round")
    ap.add_argument("--smoke", action="store_true",
                    help="the smallest run (1,000 rows, 2 clicks a kind): the script works")
    args = ap.parse_args()
    visits = 3
    if args.smoke:
        args.rows, args.depth, args.rounds, args.clicks, visits = 1000, 2, 8, 2, 1
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "work").mkdir()
        nbformat.write(notebook(args.rows, args.features, args.depth, args.rounds),
                       tmp / "work" / "bench.ipynb")
        proc = lab(tmp, args.port)
        blocked = []
        try:
            with sync_playwright() as p:
                browser = chromium(p)
                page = browser.new_page(viewport={"width": 1280, "height": 720})
                page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(LOCAL)
                           else (blocked.append(r.request.url), r.abort()))
                # cold clicks first: the page asks for a record only when a node is clicked
                page.add_init_script("window.boostscopePlayer = {prefetch: false};")
                page.goto(f"http://127.0.0.1:{args.port}/lab/tree/bench.ipynb")
                page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
                run_all(page, "document.querySelector('[data-testid=boostscope-widget] "
                        f".bsp-tree-svg') && !{PLAYER}.drawing")
                page.locator(".bsp-status").click()
                page.locator(".bsp-tree").scroll_into_view_if_needed()
                cold, held = [], []
                for r in range(2, 2 + visits):
                    page.keyboard.press("ArrowRight")
                    page.wait_for_timeout(500)
                    ids = page.evaluate(f"() => {PLAYER}.roundNodes({PLAYER}.r).map(n => n.id)")
                    cold += clicks(page, r, ids[:args.clicks])
                page.evaluate("() => { window.boostscopePlayer.prefetch = true; }")
                for r in range(2 + visits, 2 + 2 * visits):
                    page.keyboard.press("ArrowRight")
                    ids = page.evaluate(f"() => {PLAYER}.roundNodes({PLAYER}.r).map(n => n.id)")
                    page.wait_for_function(
                        f"(ids) => ids.every(id => window.boostscopePlayer.holdsRecord("
                        f"{PLAYER}.r, id, {PLAYER}))", arg=ids[:args.clicks], timeout=300_000)
                    held += clicks(page, r, ids[:args.clicks])
                browser.close()
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=20)
    print(f"node click in the notebook widget, {args.rows:,} rows x {args.features} features, "
          f"exact, max_depth {args.depth}, JupyterLab 4, Chromium 1280x720")
    for name, ms in (("cold (kernel builds the record)", cold), ("held (prefetched)", held)):
        ms = sorted(ms)
        p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
        print(f"  {name:32s} n={len(ms):2d}  median {statistics.median(ms):6.0f} ms  "
              f"p90 {p90:6.0f} ms  max {ms[-1]:6.0f} ms")
    print("requests to other hosts:", blocked or "none")


if __name__ == "__main__":
    main()
