"""Capacity of one server: many browser sessions at once, the server's memory, and stepping
while another session trains a large model.

    python benchmarks/bench_load.py [--sessions 20] [--rows 100000] [--rounds 300]
    python benchmarks/bench_load.py --trainers 50     # A steps while 50 sessions train
    python benchmarks/bench_load.py --smoke           # 1 session, 2,000 x 5, 20 rounds, 2
                                                      # steps, no wait for the release
    python benchmarks/bench_load.py --trainers 2 --smoke

Starts ``streamlit run app.py`` on 127.0.0.1 and drives it from Debian's Chromium
(Playwright, one browser, a browser context per session: its own cookies and socket, as a
separate student's browser). Loopback only; at most 20 sessions, each given at most
``--timeout`` seconds for its first chart, the whole run at most ``--cap`` seconds; the server
is stopped at the end whatever happens.

1. **Warm-up.** One session opens and closes: the first loads the engine's compiled kernels
   (once per server; ``bench_replica.py`` shows that cost). The memory then is the "before".
2. **Sessions at once** (``--waves`` times). ``--sessions`` sessions open the app at the
   same moment (the opening sample); each one's first-chart time is from ``page.goto`` to
   its first drawn Plotly chart. The server's memory (VmRSS of the process and any
   children) is sampled every 0.2 s in a thread for the peak; the sessions close, and after
   ``--settle`` seconds the memory is read again ("after"). Also printed: the CPU seconds
   the server and the browsers used meanwhile (both on this machine's cores).
3. **Stepping while another session trains.** Session A, on the opening sample, presses
   Step round after round; each step is timed in the page from the click to the end of the
   run the page asks for once the player rests (the player draws the step at once; that
   run redraws the view and the URL: the server's share; ``common.PROBE``). First alone,
   then while session B uploads a ``--rows`` × ``--features`` CSV and trains ``--rounds``
   rounds on it (``--tree-method``, depth ``--depth``); the delay is the loaded steps'
   median minus the baseline's. The goal: at most 1 s.
``--trainers N`` replaces phases 2 and 3: session A steps alone, then while N scripted
sessions (``benchmarks/scripted.py``: Streamlit's protocol over its WebSocket and its upload
endpoint, no browser) each open the app, upload their own ``--trainer-rows`` × 10 table and
train on it, all at once: A's step delay, the server's peak memory, the sessions with an
error (an exception, an error box, or an upload the app did not read).

4. **Released**, after phase 2 and again after phase 3: once the closed sessions' time to
   live (``--ttl``, the server's ``server.disconnectedSessionTTL``: Streamlit keeps a closed
   tab's session that long for a reconnect; 120 s by default, 10 s here to keep the run
   short) and two of the app's sweeps (``ui/housekeeping.py``) have passed, the server's
   memory and what Streamlit says it holds: connected sessions and uploaded bytes (B's
   upload must be gone). Memory Python frees is not always returned to the system at once,
   and B's model stays in the app's training cache (shared, bounded in bytes), so the
   resident memory after B is not the "before".
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import pandas as pd
from common import (
    FIRST_CHART,
    NO_RUN,
    PLAYER,
    PROBE,
    ROOT,
    WATCH_SOCKET,
    chromium,
    cpu_s,
    make_data,
    rss_mib,
    serve,
    stop,
)

sys.path.insert(0, str(ROOT))
from ui.housekeeping import EVERY_S  # noqa: E402

MAX_SESSIONS = 20
GOAL_DELAY_MS = 1000
VIEWPORT = {"width": 1280, "height": 720}


class PeakMemory:
    """The server's memory, sampled every ``every`` seconds in a thread until stopped."""

    def __init__(self, pid: int, every: float = 0.2):
        self.pid, self.every, self.peak = pid, every, rss_mib(pid)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(self.every):
            self.peak = max(self.peak, rss_mib(self.pid))

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak


def held(base: str) -> tuple[int, float]:
    """Streamlit's own count (``/_stcore/metrics``): (connected sessions, MiB of uploaded
    files the server holds)."""
    text = urllib.request.urlopen(f"{base}/_stcore/metrics", timeout=10).read().decode()
    sessions, uploads = 0, 0.0
    for line in text.splitlines():
        if line.startswith("active_sessions "):
            sessions = int(float(line.split()[1]))
        elif line.startswith('cache_memory_bytes{cache_type="UploadedFileManager"'):
            uploads += float(line.split()[1]) / 2**20
    return sessions, uploads


async def open_session(browser, url: str, timeout_s: float):
    """A new browser context on ``url``: (context, page, seconds to its first chart)."""
    context = await browser.new_context(viewport=VIEWPORT)
    await context.add_init_script(WATCH_SOCKET)  # the probe's runs (``common.PROBE``)
    page = await context.new_page()
    start = time.perf_counter()
    await page.goto(url, timeout=timeout_s * 1000)
    await page.locator(FIRST_CHART).first.wait_for(state="visible", timeout=timeout_s * 1000)
    return context, page, time.perf_counter() - start


async def settled(page, timeout_s: float) -> None:
    """The page's script run is over (nothing more coming from the server)."""
    await page.wait_for_function(NO_RUN, timeout=timeout_s * 1000)


async def at_once(browser, url: str, n: int, pid: int, settle: float, timeout_s: float):
    """Phase 2: ``n`` sessions opened together: (first-chart seconds, MiB with all open and
    idle, peak MiB, MiB after they closed)."""
    sampler = PeakMemory(pid)
    try:
        server, browsers, start = cpu_s(pid), cpu_s(os.getpid()), time.perf_counter()
        opened = await asyncio.gather(*(open_session(browser, url, timeout_s)
                                        for _ in range(n)))
        await asyncio.gather(*(settled(page, timeout_s) for _, page, _ in opened))
        print(f"  CPU used in the {time.perf_counter() - start:.1f} s until every session's "
              f"run ended: the server {cpu_s(pid) - server:.1f} s, the browsers (and this "
              f"script) {cpu_s(os.getpid()) - browsers:.1f} s, on {os.cpu_count()} cores")
        await asyncio.sleep(settle)  # the sessions open and idle
        idle = rss_mib(pid)
        await asyncio.gather(*(context.close() for context, _, _ in opened))
        await asyncio.sleep(settle)
    finally:
        peak = sampler.stop()
    return [seconds for _, _, seconds in opened], idle, peak, rss_mib(pid)


async def step(page, timeout_s: float) -> tuple[float, float]:
    """Press the player's Step once: (when it was pressed, perf_counter s; ms to the end of
    the run the page asks for at rest, which redraws the view and the URL: the server's
    share under load, plus the player's ~300 ms wait for rest)."""
    await page.evaluate("() => window.probe.arm()")
    pressed = time.perf_counter()
    await page.locator('.bsp-bar button[data-act="step"]').click()
    # the player draws the step at once (the probe's ``charts``); the run at rest ends later
    try:
        await page.wait_for_function("() => window.probe.done !== null",
                                     timeout=timeout_s * 1000)
    except Exception as error:  # say what the page saw: the probe and the player's status
        seen = await page.evaluate(f"() => [window.probe, document.querySelector("
                                   f"'{PLAYER} .bsp-status')?.textContent]")
        raise type(error)(f"{error.message.splitlines()[0]} (the page saw {seen})") from None
    await settled(page, timeout_s)
    probe = await page.evaluate("() => window.probe")
    return pressed, probe["done"] - probe["change"]


async def upload_and_train(page, csv: Path, rows: int, timeout_s: float) -> tuple[float, float]:
    """Session B uploads ``csv`` and trains on it: (start, end), perf_counter seconds."""
    start = time.perf_counter()
    await page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(csv)
    # the caption naming the new data shows in the run that trains on it; that run's end:
    await page.get_by_text(f"{rows:,} rows").first.wait_for(timeout=timeout_s * 1000)
    await settled(page, timeout_s)
    return start, time.perf_counter()


async def stepping(browser, base: str, csv: Path, args) -> tuple[list, list, float]:
    """Phase 3: session A's step times (ms) alone and while B trains; B's training seconds."""
    a_url = f"{base}/?rounds=500&round=0"  # rounds enough to step through both phases
    b_url = f"{base}/?rounds={args.rounds}&tree_method={args.tree_method}&max_depth={args.depth}"
    a_context, a, _ = await open_session(browser, a_url, args.timeout)
    b_context, b, _ = await open_session(browser, b_url, args.timeout)
    await asyncio.gather(settled(a, args.timeout), settled(b, args.timeout))
    await a.evaluate(PROBE)
    await step(a, args.timeout)  # a warm-up step, not counted
    alone = [ms for _, ms in [await step(a, args.timeout) for _ in range(args.steps)]]
    training = asyncio.create_task(upload_and_train(b, csv, args.rows, args.timeout))
    loaded = []
    while not training.done() and len(loaded) < 400:
        loaded.append(await step(a, args.timeout))
    start, end = await training
    during = [ms for pressed, ms in loaded if start <= pressed <= end]
    await a_context.close()
    await b_context.close()
    return alone, during, end - start


async def released(browser, base: str, pid: int, args) -> str:
    """What the server still holds once the closed sessions' TTL and two of the app's sweeps
    (``ui/housekeeping.py``) have passed and one more visitor has come and gone (a
    disconnect is when Streamlit drops the expired sessions)."""
    wait = args.ttl + 2 * EVERY_S + 5
    await asyncio.sleep(wait)
    context, _, _ = await open_session(browser, base, args.timeout)
    await context.close()
    await asyncio.sleep(args.settle)
    sessions, uploads = held(base)
    return (f"{wait + args.settle:.0f} s after they closed: {rss_mib(pid):.0f} MiB "
            f"(Streamlit holds {sessions} connected sessions and {uploads:.1f} MiB of "
            "uploads)")


async def run(args, csv: Path) -> None:
    from playwright.async_api import async_playwright

    proc = serve(args.port, options=("--server.disconnectedSessionTTL", str(args.ttl)))
    base = f"http://127.0.0.1:{args.port}"
    try:
        idle = rss_mib(proc.pid)
        async with async_playwright() as p:
            browser = await chromium(p)
            context, _, first = await open_session(browser, base, args.timeout)
            await asyncio.sleep(args.settle)  # the engine's background warm-up
            await context.close()
            await asyncio.sleep(args.settle)
            before = rss_mib(proc.pid)
            print(f"server idle {idle:.0f} MiB; a first session (loads the engine): first "
                  f"chart {first:.1f} s; after it closed: {before:.0f} MiB (the 'before')")
            for wave in range(0 if args.trainers else args.waves):  # is what a wave left reused?
                if args.waves > 1:
                    print(f"wave {wave + 1} of {args.waves}:")
                seconds, *memory = await at_once(browser, base, args.sessions, proc.pid,
                                                 args.settle, args.timeout)
                report_sessions(args, seconds, before, *memory)
                if not args.smoke:
                    print(f"  the {args.sessions} sessions released: "
                          + await released(browser, base, proc.pid, args))
            if args.trainers:
                await trainers(browser, base, proc.pid, args)
                await browser.close()
                return
            if args.no_stepping:
                return
            alone, during, train_s = await stepping(browser, base, csv, args)
            sessions, uploads = held(base)
            report_stepping(args, alone, during, train_s, rss_mib(proc.pid), uploads)
            if args.smoke:
                print("(--smoke: what the server releases after the sessions' TTL is not "
                      "waited for)")
            else:
                print("  sessions A and B released: "
                      + await released(browser, base, proc.pid, args))
            await browser.close()
    finally:
        stop(proc)


def report_sessions(args, seconds: list, before: float, open_: float, peak: float,
                    after: float) -> None:
    n = args.sessions
    print(f"{n} sessions opened at once: first chart min {min(seconds):.1f} s, median "
          f"{statistics.median(seconds):.1f} s, max {max(seconds):.1f} s")
    print(f"server memory: before {before:.0f} MiB; all {n} open and idle {open_:.0f} MiB "
          f"({(open_ - before) / n:.1f} MiB per session); peak {peak:.0f} MiB "
          f"({(peak - before) / n:.1f} MiB per session); {args.settle:.0f} s after all closed "
          f"{after:.0f} MiB ({after - before:+.0f} MiB)")


def report_stepping(args, alone: list, during: list, train_s: float, memory: float,
                    uploads: float) -> None:
    print(f"session B: upload and training of {args.rows:,} × {args.features} "
          f"({args.tree_method}, {args.rounds} rounds, depth {args.depth}): {train_s:.1f} s; "
          f"server memory then {memory:.0f} MiB, {uploads:.1f} MiB of it B's upload")
    if not during:
        print("session A: no step fell inside B's training (make it longer: --rounds)")
        return
    report_delay(alone, during, "B trains")


def report_delay(alone: list, during: list, what: str) -> None:
    """Session A's step alone and while ``what``, and the delay against the goal."""
    if not during:
        print(f"session A: no step fell inside the time {what}")
        return
    base, loaded = statistics.median(alone), statistics.median(during)
    print(f"session A's step, alone ({len(alone)} steps): median {base:.0f} ms, max "
          f"{max(alone):.0f} ms")
    print(f"session A's step while {what} ({len(during)} steps): median {loaded:.0f} ms, "
          f"max {max(during):.0f} ms")
    print(f"delay: median {loaded - base:+.0f} ms, worst {max(during) - base:+.0f} ms "
          f"(goal ≤ {GOAL_DELAY_MS} ms)")


def own_table(i: int, rows: int, features: int) -> bytes:
    """Scripted session ``i``'s CSV: its own seed, so its own model."""
    X, y = make_data(rows, features, seed=1000 + i)
    frame = pd.DataFrame(X.round(3), columns=[f"x{j}" for j in range(features)])
    frame["y"] = y.astype(int)
    return frame.to_csv(index=False).encode()


def scripted_session(base: str, i: int, rows: int, features: int) -> dict:
    """One scripted session (``scripted.Session``: Streamlit's protocol without a browser):
    it opens the app, uploads its own table and trains on it. Its seconds and errors."""
    from scripted import Session

    data = own_table(i, rows, features)
    start = time.perf_counter()
    try:
        session = Session(base, "round=20")
        session.run()
        session.upload(f"session{i}.csv", data)
        read = any(f"{rows:,} rows" in t for t in session.texts)
        errors = list(session.errors) + ([] if read else ["the upload was not read"])
        session.close()
    except Exception as exc:  # a session that failed is counted, not hidden
        errors = [f"{type(exc).__name__}: {exc}"]
    return {"seconds": time.perf_counter() - start, "errors": errors,
            "end": time.perf_counter()}


async def trainers(browser, base: str, pid: int, args) -> None:
    """``--trainers N``: session A (a browser) steps alone, then while N scripted sessions
    each upload their own ``--trainer-rows`` × 10 table and train on it, all at once: A's
    step delay, the server's peak memory, the sessions that errored."""
    a_context, a, _ = await open_session(browser, f"{base}/?rounds=500&round=0", args.timeout)
    await settled(a, args.timeout)
    await a.evaluate(PROBE)
    await step(a, args.timeout)  # a warm-up step, not counted
    alone = [ms for _, ms in [await step(a, args.timeout) for _ in range(args.steps)]]
    before = rss_mib(pid)
    sampler = PeakMemory(pid)
    loop = asyncio.get_running_loop()
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=args.trainers)
    start = time.perf_counter()
    jobs = [loop.run_in_executor(pool, scripted_session, base, i, args.trainer_rows, 10)
            for i in range(args.trainers)]
    together = asyncio.gather(*jobs)
    loaded = []
    while not together.done() and len(loaded) < 400:
        loaded.append(await step(a, args.timeout))
    results = await together
    end = max(r["end"] for r in results)
    peak = sampler.stop()
    pool.shutdown()
    during = [ms for pressed, ms in loaded if start <= pressed <= end]
    await a_context.close()
    failed = [(i, r["errors"]) for i, r in enumerate(results) if r["errors"]]
    seconds = [r["seconds"] for r in results]
    print(f"{args.trainers} scripted sessions at once, each uploading its own "
          f"{args.trainer_rows:,} × 10 table and training the app's default model on it: "
          f"{end - start:.0f} s in all; each min {min(seconds):.1f} s, median "
          f"{statistics.median(seconds):.1f} s, max {max(seconds):.1f} s")
    print(f"server memory: before {before:.0f} MiB, peak {peak:.0f} MiB, after "
          f"{rss_mib(pid):.0f} MiB; sessions with an error: {len(failed)}"
          + (f" {failed[:3]}" if failed else ""))
    report_delay(alone, during, f"the {args.trainers} train")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trainers", type=int, default=0, help="instead of phases 2-3: "
                        "session A steps while N scripted sessions (no browser) each upload "
                        "their own table and train, all at once")
    parser.add_argument("--trainer-rows", type=int, default=20_000)
    parser.add_argument("--sessions", type=int, default=MAX_SESSIONS)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--tree-method", default="hist", choices=("hist", "approx", "exact"))
    parser.add_argument("--waves", type=int, default=1, help="phase 2 this many times "
                        "(at most 3)")
    parser.add_argument("--no-stepping", action="store_true", help="leave out phase 3")
    parser.add_argument("--steps", type=int, default=10, help="session A's steps alone")
    parser.add_argument("--settle", type=float, default=10.0, help="seconds to let the server "
                        "settle before reading its memory")
    parser.add_argument("--ttl", type=int, default=10, help="the server's "
                        "disconnectedSessionTTL, s (Streamlit's default is 120)")
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds per session")
    parser.add_argument("--cap", type=float, default=900.0, help="seconds for the whole run")
    parser.add_argument("--port", type=int, default=8771)
    parser.add_argument("--smoke", action="store_true", help="the smallest run: 1 session, "
                        "B trains 2,000 x 5 for 20 rounds of depth 3, A steps twice, 1 s to "
                        "settle, the release not waited for; --trainers N: 1,000 rows each")
    args = parser.parse_args()
    if args.smoke:
        args.sessions, args.rows, args.features, args.rounds, args.depth = 1, 2_000, 5, 20, 3
        args.steps, args.settle, args.trainer_rows, args.timeout = 2, 1.0, 1_000, 120.0
    if not 1 <= args.sessions <= MAX_SESSIONS:
        raise SystemExit(f"--sessions: from 1 to {MAX_SESSIONS}")
    if not 1 <= args.waves <= 3:
        raise SystemExit("--waves: from 1 to 3")
    X, y = make_data(args.rows, args.features)
    frame = pd.DataFrame(X.round(3), columns=[f"x{i}" for i in range(args.features)])
    frame["y"] = y.astype(int)
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / f"load_{args.rows}x{args.features}.csv"
        frame.to_csv(csv, index=False)
        from playwright.async_api import TimeoutError as PageTimeout

        try:
            asyncio.run(asyncio.wait_for(run(args, csv), args.cap))
        except TimeoutError:
            raise SystemExit(f"stopped: the run took over --cap {args.cap:.0f} s") from None
        except PageTimeout as exc:
            raise SystemExit(f"stopped: a page did not answer within --timeout "
                             f"{args.timeout:.0f} s ({exc.message.splitlines()[0]})") from None


if __name__ == "__main__":
    main()
