"""Memory of one served replica: idle, then with browser sessions open (memory per session).

    python benchmarks/bench_replica.py --url http://127.0.0.1:8501 --pid PID
    python benchmarks/bench_replica.py --url http://127.0.0.1:8080 --container NAME
    python benchmarks/bench_replica.py --url URL --pid PID --smoke   # 1 and 2 sessions, 1 s

Opens sessions one after another in Debian's Chromium (Playwright), each in a browser context
of its own (its own cookies, as a separate student's browser), waits until its first Plotly
chart is drawn, and after each count in ``--sessions`` prints the replica's memory (the first
session also loads the engine's compiled kernels, once per replica; the sessions after it
show what a session costs): the
resident set of ``--pid`` (a ``streamlit run`` on this machine), or what ``docker stats``
says of ``--container``. Then it closes them all and prints the memory once more. It also
prints the cookies a session got, so through the compose file's proxy the sticky cookie
(``boostscope_replica``) shows. Loopback addresses only; at most 20 sessions, each given at
most 120 s for its first chart.
"""

from __future__ import annotations

import argparse
import subprocess
import time
import urllib.parse
from pathlib import Path

from common import FIRST_CHART, chromium, is_loopback, rss_mib

MAX_SESSIONS = 20
SETTLE_S = 5.0  # after the last chart: let the server finish the run and collect garbage


def memory_mib(pid: int | None, container: str | None) -> float:
    """The replica's memory in MiB: VmRSS of ``pid`` (and its children), or docker stats'
    usage of ``container``."""
    if pid is not None:
        if not Path(f"/proc/{pid}").exists():
            raise SystemExit(f"no process {pid}")
        return rss_mib(pid)
    out = subprocess.run(["docker", "stats", "--no-stream", "--format", "{{.MemUsage}}",
                          container], capture_output=True, text=True, check=True).stdout
    used = out.split("/")[0].strip()  # "312.4MiB / 23.4GiB"
    units = {"KiB": 1 / 1024, "MiB": 1.0, "GiB": 1024.0, "kB": 1 / 1024, "MB": 1.0, "GB": 1024.0}
    for unit, scale in units.items():
        if used.endswith(unit):
            return float(used[: -len(unit)]) * scale
    return float(used.rstrip("B")) / 2**20


def open_session(browser, url: str) -> tuple[object, float, list[str]]:
    """A new browser context on ``url``: (context, seconds to its first chart, cookie names)."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    start = time.perf_counter()
    page.goto(url)
    page.locator(FIRST_CHART).first.wait_for(state="visible", timeout=120_000)
    seconds = time.perf_counter() - start
    return context, seconds, sorted(c["name"] for c in context.cookies())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--pid", type=int)
    who.add_argument("--container")
    parser.add_argument("--sessions", default="1,5", help="counts to measure at, e.g. 1,5")
    parser.add_argument("--smoke", action="store_true",
                        help="the smallest run: 1 and 2 sessions, 1 s to settle")
    args = parser.parse_args()
    global SETTLE_S
    if args.smoke:
        args.sessions, SETTLE_S = "1,2", 1.0
    host = urllib.parse.urlparse(args.url).hostname or ""
    if not is_loopback(host):
        raise SystemExit(f"--url must be a loopback address, not {host!r}")
    counts = sorted({int(c) for c in args.sessions.split(",")})
    if not counts or counts[0] < 1 or counts[-1] > MAX_SESSIONS:
        raise SystemExit(f"--sessions: counts from 1 to {MAX_SESSIONS}")

    from playwright.sync_api import sync_playwright

    idle = memory_mib(args.pid, args.container)
    print(f"idle: {idle:.0f} MiB")
    with sync_playwright() as p:
        browser = chromium(p)
        contexts = []
        first = None  # the memory with one session: the engine's kernels are loaded by then
        for count in counts:
            while len(contexts) < count:
                context, seconds, cookies = open_session(browser, args.url)
                contexts.append(context)
                print(f"session {len(contexts)}: first chart {seconds:.1f} s, "
                      f"cookies {', '.join(cookies) or '(none)'}")
            time.sleep(SETTLE_S)
            used = memory_mib(args.pid, args.container)
            if first is None and count == 1:
                first = used
            extra = (f", {(used - first) / (count - 1):.1f} MiB per session after the first"
                     if first is not None and count > 1 else "")
            print(f"{count} session(s): {used:.0f} MiB ({used - idle:+.0f} over idle){extra}")
        for context in contexts:
            context.close()
        browser.close()
    time.sleep(SETTLE_S)
    print(f"all closed: {memory_mib(args.pid, args.container):.0f} MiB "
          "(Streamlit drops a session's state a while after its socket closes)")


if __name__ == "__main__":
    main()
