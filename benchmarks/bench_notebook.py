"""A node click in the notebook widget (ui/notebook.py) at 10,000 rows, in JupyterLab 4 (or
Notebook 7: ``--host notebook7``) and Debian's Chromium: the page's own timing
(``window.boostscopePlayer.timings``, gesture "node": from the press to the first frame after
the node's details show its record). Two kinds of click: **cold** (the page's prefetch off,
the record asked of the kernel and built there for the first time: the engine's candidates
and the record's chart) and **held** (the page at rest on the round first, its prefetch
having asked the kernel for every node).

    python benchmarks/bench_notebook.py [--rows 10000] [--features 10] [--depth 4] [--rounds 20]
    python benchmarks/bench_notebook.py --smoke   # the script works (1,000 rows)

Prints each kind's median, 90th percentile and max over the clicks (ms). Every request to
another host is blocked; the script says if any was tried.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from common import ROOT, chromium
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(ROOT / "tests" / "browser"))
import jupyter_pages  # noqa: E402 - the browser test's own Jupyter driving
from harness import LOCAL  # noqa: E402 - what is on this machine (every other host blocked)

PLAYER = "document.querySelector('[data-testid=boostscope-widget] .bsw-player').boostscopePlayer"


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
    ap.add_argument("--host", choices=list(jupyter_pages.HOSTS), default="lab",
                    help="the front end the notebook is opened in (default: JupyterLab 4)")
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
        proc = jupyter_pages.start(tmp, args.port, [ROOT, ROOT / "benchmarks"])
        step("the Jupyter server answers")
        blocked = []
        try:
            with sync_playwright() as p:
                browser = chromium(p)
                page = browser.new_page(viewport={"width": 1280, "height": 720})
                page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(LOCAL)
                           else (blocked.append(r.request.url), r.abort()))
                # cold clicks first: the page asks for a record only when a node is clicked
                page.add_init_script(
                    "window.boostscopePlayer = {prefetch: false, restAsk: false};")
                jupyter_pages.open_notebook(page, f"http://127.0.0.1:{args.port}", "bench.ipynb",
                                            args.host)
                step("the notebook is open")
                jupyter_pages.run_all(
                    page, "document.querySelector('[data-testid=boostscope-widget] "
                          f".bsp-tree-svg') && !{PLAYER}.drawing")
                step("its cells ran and the widget drew")
                page.locator(".bsp-status").click()
                page.locator(".bsp-tree").scroll_into_view_if_needed()
                cold, held = [], []
                for r in range(2, 2 + visits):
                    page.keyboard.press("ArrowRight")
                    page.wait_for_timeout(500)
                    ids = page.evaluate(f"() => {PLAYER}.roundNodes({PLAYER}.r).map(n => n.id)")
                    cold += clicks(page, r, ids[:args.clicks])
                step(f"{len(cold)} cold clicks")
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
            jupyter_pages.stop(proc)
    print(f"node click in the notebook widget, {args.rows:,} rows x {args.features} features, "
          f"exact, max_depth {args.depth}, {jupyter_pages.HOST_NAMES[args.host]}, "
          "Chromium 1280x720")
    for name, ms in (("cold (kernel builds the record)", cold), ("held (prefetched)", held)):
        ms = sorted(ms)
        p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
        print(f"  {name:32s} n={len(ms):2d}  median {statistics.median(ms):6.0f} ms  "
              f"p90 {p90:6.0f} ms  max {ms[-1]:6.0f} ms")
    print("requests to other hosts:", blocked or "none")


def step(what: str) -> None:
    """Where the run is, on stderr at once: a run stopped by a time limit says how far it got."""
    print(f"[{time.strftime('%H:%M:%S')}] {what}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
