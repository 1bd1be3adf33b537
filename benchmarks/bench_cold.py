"""Cold start as a new user meets it: a fresh clone, an empty numba cache, the first chart.

    python benchmarks/bench_cold.py            # clones this repository's HEAD
    python benchmarks/bench_cold.py --here     # the working tree as it is
    python benchmarks/bench_cold.py --smoke    # the app's cold first chart only (seconds):
                                               # no warm-up timing, no warm app

Step by step, cold (empty numba cache) and warm (the cache the cold run left):

1. ``import boost`` and ``boost.warmup()`` (every kernel; on an empty cache in one worker
   process per core) in a fresh process;
2. the app (``streamlit run app.py`` in the clone, as the README says): server start to its
   health check, then page open to the first drawn chart in Debian's Chromium at 1280×720.
   While the page loads, what it says is read every 0.25 s; the longest stretch with neither
   a chart nor a message saying what it is doing is printed.

Loopback only; each wait is bounded (a first chart in 300 s, a warm-up in 900 s).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import FIRST_CHART, ROOT, chromium, compile_times, serve, stop

# What the page shows while it works: the app's first line, Streamlit's spinner and status,
# progress bars and notes.
STATUS = ('[data-testid="stCaptionContainer"]:has-text("Starting BoostScope"), '
          '[data-testid="stSpinner"], [data-testid="stStatusWidget"], '
          '[data-testid="stProgress"], [data-testid="stAlert"]')


def first_chart(url: str, timeout: float = 300.0) -> tuple[float, float, list[str]]:
    """(seconds from opening ``url`` to its first drawn chart, the longest silent stretch,
    the distinct messages shown meanwhile)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = chromium(pw)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        start = time.perf_counter()
        page.goto(url)
        seen: list[str] = []
        last_said = start
        silent = 0.0
        while time.perf_counter() - start < timeout:
            now = time.perf_counter()
            if page.locator(FIRST_CHART).count():
                silent = max(silent, now - last_said)
                browser.close()
                return now - start, silent, seen
            texts = [t.strip() for t in page.locator(STATUS).all_inner_texts() if t.strip()]
            if texts:
                last_said = now
                for text in texts:
                    line = " ".join(text.split())[:120]
                    if line not in seen:
                        seen.append(line)
            silent = max(silent, now - last_said)
            page.wait_for_timeout(250)
        browser.close()
    raise SystemExit(f"no chart within {timeout:.0f} s")


def app_times(repo: Path, cache: Path, port: int) -> tuple[float, float, float, list[str]]:
    """(server start to health, page to first chart, longest silent stretch, messages)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    start = time.perf_counter()
    proc = serve(port, timeout=120, cwd=repo, env=env)
    health = time.perf_counter() - start
    try:
        chart, silent, seen = first_chart(f"http://127.0.0.1:{port}/")
    finally:
        stop(proc)
    return health, chart, silent, seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--here", action="store_true", help="the working tree, not a clone")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--smoke", action="store_true", help="only the app with an empty "
                        "cache (its first chart comes from the plain-Python engine): "
                        "boost.warmup() cold and warm and the warm app are left out")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="boostscope-cold-"))
    skipped = "— (--smoke)"
    try:
        repo = ROOT
        if not args.here:
            repo = work / "clone"
            subprocess.run(["git", "clone", "-q", str(ROOT), str(repo)], check=True)
        print(f"{os.cpu_count()} cores; {'working tree' if args.here else 'fresh clone'}",
              flush=True)
        cold = app_times(repo, work / "numba-cache-app", args.port)
        for text in cold[3]:
            print(f"    the page said: {text}")
        warmup, warm = (skipped, skipped), (skipped, skipped)
        if not args.smoke:
            time.sleep(2)  # the cold server's compile workers end with it
            cache = work / "numba-cache"
            warmup = tuple(f"{s:.1f} s" for s in compile_times(repo, cache))
            warm = tuple(f"{s:.1f} s" for s in app_times(repo, cache, args.port)[:2])
        print("| step | empty cache | warm cache |")
        print("|---|---|---|")
        print(f"| `streamlit run app.py` to its health check | {cold[0]:.1f} s | {warm[0]} |")
        print(f"| page opened to the first chart | {cold[1]:.1f} s | {warm[1]} |")
        print(f"| longest stretch the page says nothing | {cold[2]:.1f} s | |")
        print(f"| `boost.warmup()` in a new process, `import boost` included | {warmup[0]} | "
              f"{warmup[1]} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
