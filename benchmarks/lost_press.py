"""The "press that starts no run" of the browser walks, counted: one server, one page of
``?sample=moons``, and the same press made ``--n`` times under ``tests/browser/harness.py``'s
``run_of`` (each with a short ``--timeout``). For every press it records what the page sent,
what the server answered (a run started and finished) and whether the page's
``data-test-script-state`` changed at all (what ``run_of`` waited for before the socket
watch). Not a test: a measurement, run by hand.

    python benchmarks/lost_press.py --n 300                 # the open panel's toggle
    python benchmarks/lost_press.py --n 300 --busy 2        # with two busy loops
    python benchmarks/lost_press.py --n 300 --press slider  # the eta slider, Home and End
    python benchmarks/lost_press.py --smoke                 # 5 presses

Prints, per press kind: presses, presses whose run the page's script state never showed
("state missed": the old ``run_of`` timed out there), presses ``run_of`` saw no run for
("run_of missed"), and any press that sent no frame; ``--log`` gets one JSON line a press.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

import harness  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402


def press(page, kind: str, i: int) -> None:
    if kind == "toggle":
        page.locator(".st-key-open_panel label").first.click()
    else:  # the eta slider: Home, then End, then Home ...
        page.locator('.st-key-p_eta input[type="range"]').focus()
        page.keyboard.press("Home" if i % 2 == 0 else "End")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=300, help="presses")
    ap.add_argument("--timeout", type=int, default=20_000, help="ms run_of waits per press")
    ap.add_argument("--press", choices=["toggle", "slider"], default="toggle")
    ap.add_argument("--busy", type=int, default=0, help="busy Python loops beside (cores)")
    ap.add_argument("--log", type=Path, default=None, help="one JSON line per press")
    ap.add_argument("--smoke", action="store_true", help="the smallest run: 5 presses")
    ap.add_argument("--url", help="a server already running here (else one is started)")
    a = ap.parse_args()
    if a.smoke:
        a.n = 5

    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(a.busy)]
    proc, url = (None, a.url.rstrip("/")) if a.url else harness.start_server()
    log = a.log.open("w") if a.log else None
    state_missed = run_missed = unsent = 0
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=harness.CHROMIUM, headless=True,
                                        args=harness.CHROMIUM_ARGS)
            page = harness.new_page(browser, viewport={"width": 1280, "height": 720})
            page.goto(f"{url}/?sample=moons")
            harness.idle(page)
            harness.charts_drawn(page, timeout=180_000)
            if a.press == "slider":
                page.locator(".st-key-p_eta").scroll_into_view_if_needed()
            for i in range(a.n):
                start = time.perf_counter()
                error = None
                try:
                    with harness.run_of(page, timeout=a.timeout):
                        press(page, a.press, i)
                except AssertionError as e:
                    error = str(e)
                watch = page.evaluate("() => ({runs: window.__bsRuns, ...window.__bsSocket})")
                row = {"i": i, "seconds": round(time.perf_counter() - start, 3),
                       "state_changes": watch["runs"], "sent": watch["sent"],
                       "started": watch["started"], "finished": watch["finished"],
                       "error": error}
                state_missed += watch["runs"] == 0
                run_missed += error is not None
                unsent += watch["sent"] == 0
                if watch["runs"] == 0 or error:
                    row["log"] = watch["log"][-6:]
                    print(json.dumps(row), flush=True)
                if log:
                    log.write(json.dumps(row) + "\n")
                    log.flush()
                if error:
                    harness.idle(page, 60_000)
            browser.close()
    finally:
        if proc:
            harness.stop_server(proc)
        for b in busy:
            b.kill()
            b.wait()
    print(f"{a.press}: {a.n} presses, busy loops {a.busy}: state missed {state_missed}, "
          f"run_of missed {run_missed}, sent nothing {unsent}")


if __name__ == "__main__":
    main()
