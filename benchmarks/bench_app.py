"""How fast the app answers: the first chart after ``streamlit run``, and every click on
10,000 and 100,000 rows x 30 features, exact and hist.

    python benchmarks/bench_app.py [--sizes 10000x30,100000x30] [--methods exact,hist]

1. Starts ``streamlit run app.py`` and opens it in Debian's Chromium (Playwright); prints the
   seconds from the server's start to the first drawn Plotly chart (numba's cache warm).
2. For each size and tree method, on an uploaded table (20 rounds, depth 3): a step, a
   round-slider move, a view switch, a node click (first visit: its candidates computed;
   second: cached) and Play at 0.5 s a round —
   - the server's share: the fragment's own time in Streamlit's AppTest (the round's; for a
     node click the view's, which is all such a click reruns);
   - in Chromium at 1280x720: from the key press or click to the page's last change
     (``common.SETTLE``), Play as the time between the rounds on screen.
   The goal is 150 ms; lines say how many moves met it.
   Then what a step costs whatever Streamlit does: how many of the page's charts a step
   re-creates (a new chart element, not an update of the old one), and the time Plotly alone
   takes to redraw that step's figures (the ones the page drew, taken from it) from one round
   to the next on a page with nothing else (Plotly.js from the plotly package).
3. The learning-rate comparison's training (4 etas x 200 rounds, 10,000 rows).
4. ``--floor``: the same browser measure on a bare Streamlit page (``bare_page.py``: a Step
   button in a fragment, a heading and 0, 1 or 3 small Plotly charts that change at every step):
   what Streamlit and Plotly cost per click on this machine whatever the app does.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
from common import FIRST_CHART, ROOT, chromium, serve, settle_script, stop

sys.path.insert(0, str(ROOT))


def first_chart_seconds(port: int = 8765) -> float:
    """From ``streamlit run`` to the first drawn chart, with the browser already open (as a
    lecturer's would be)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = chromium(p)
        page = browser.new_page()
        start = time.perf_counter()
        proc = serve(port, timeout=300)
        try:
            page.goto(f"http://127.0.0.1:{port}/?sample=noisy_1d")
            page.wait_for_selector(FIRST_CHART, timeout=120_000)
            elapsed = time.perf_counter() - start
        finally:
            stop(proc)
            browser.close()
    return elapsed


def server_latencies(n_rows: int, n_features: int, method: str,
                     repeats: int = 5) -> dict[str, list[float]]:
    """The server's share of each interaction, in Streamlit's AppTest on the same table as
    ``browser_latencies``: the round fragment's own time (``Stage.stage_ms``: a step, a
    round or a view change reruns that fragment), for a node click the view's fragment inside
    it (``Stage.view_ms``: all a click in the view reruns)."""
    import io

    from streamlit.testing.v1 import AppTest


    csv = io.StringIO()
    wide_csv(csv, n_rows, n_features)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params["tree_method"] = method
    at.run()
    at.get("file_uploader")[0].set_value(("wide.csv", csv.getvalue().encode(), "text/csv")).run()
    app = at.session_state["app"]
    assert app.model.config["tree_method"] == method, app.model.config["tree_method"]
    out = {"step": [], "round slider": [], "view switch": []}
    for _ in range(repeats):
        at.button(key="step_forward").click().run()
        out["step"].append(at.session_state["app"].stage.stage_ms)
    for r in range(repeats):
        at.slider(key="round").set_value(2 + (r * 7) % 15).run()
        out["round slider"].append(at.session_state["app"].stage.stage_ms)
    for _ in range(repeats):
        for slug in ("residuals", "tree"):
            at.session_state["app"].stage.view = slug
            at.run()
            out["view switch"].append(at.session_state["app"].stage.stage_ms)
    at.slider(key="round").set_value(1).run()
    for visit in ("node click, first visit", "node click, second visit"):
        out[visit] = []
        for node in range(repeats):
            at.session_state["app"].stage.node = node
            at.run()
            out[visit].append(at.session_state["app"].stage.view_ms)  # a click reruns the view
    assert not at.exception
    return out


def wide_csv(path, n_rows: int, n_features: int) -> None:
    """A regression table: ``n_features`` standard normal columns (4 decimals) and y."""
    import pandas as pd

    rng = np.random.default_rng(1)
    X = rng.normal(size=(n_rows, n_features))
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + rng.normal(scale=0.5, size=n_rows)
    pd.DataFrame(X, columns=[f"x{i}" for i in range(n_features)]).assign(y=y).to_csv(
        path, index=False, float_format="%.4f")


def upload(page, csv, n_rows: int, n_columns: int) -> None:
    """Upload ``csv`` and wait for its model's first screen."""
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(csv))
    page.get_by_text(f"{n_rows:,} rows × {n_columns} columns").first.wait_for(timeout=300_000)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=600_000)
    page.wait_for_selector(".st-key-fit .js-plotly-plot", timeout=300_000)
    page.wait_for_timeout(2000)


def _timed(page, act) -> float:
    """ms from the key press or click ``act`` makes to the last change it caused on the
    page (``common.SETTLE``)."""
    page.evaluate("() => window.settle.arm()")
    act()
    page.wait_for_function("() => window.settle.result !== null", timeout=120_000)
    result = page.evaluate("() => window.settle.result")
    return result["last"] - result["change"]


def _click(page, box) -> None:
    """Click the middle of ``box``, then move the pointer off the chart (a pointer resting on
    a node would keep Plotly's hover label changing the page)."""
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.move(5, 715)


def _tree_points(page):
    """The tree chart's node markers (split and leaf markers; not the labels)."""
    return page.locator(".st-key-tree_chart .scatterlayer .trace path.point")


# The page's charts as Plotly holds them, with each one's size; each chart element is tagged
# the first time it is seen, so a later call can count the ones that are new.
_CHARTS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => {
    const box = gd.getBoundingClientRect();
    const seen = gd.__seen === true;
    gd.__seen = true;
    return {seen, width: box.width, height: box.height,
            data: JSON.parse(JSON.stringify(gd.data)),
            layout: JSON.parse(JSON.stringify(gd.layout))};
})"""
# Plotly.react of every figure from one state to the other and back, until the frame after it
# is painted: ms per redraw.
_REACT = """async ([before, after, repeats]) => {
    const painted = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
    const config = {displayModeBar: false};
    for (let i = 0; i < before.length; i++)
        await Plotly.newPlot('chart' + i, before[i].data, before[i].layout, config);
    const out = [];
    for (let k = 0; k < repeats; k++) {
        const figures = k % 2 ? before : after;
        const t0 = performance.now();
        for (let i = 0; i < figures.length; i++)
            await Plotly.react('chart' + i, figures[i].data, figures[i].layout, config);
        await painted();
        out.push(performance.now() - t0);
    }
    return out;
}"""


def step_cost(browser, page, repeats: int) -> tuple[int, int, list[float]]:
    """A step (→) on ``page``: (charts on the page, how many of them it re-created, ms
    Plotly alone takes to redraw its figures on a bare page in ``browser``)."""
    from ui.charts import PLOTLY_JS

    before = page.evaluate(_CHARTS)
    _timed(page, lambda: page.keyboard.press("ArrowRight"))
    after = page.evaluate(_CHARTS)
    if len(before) != len(after):
        raise SystemExit("a step changed the number of charts; cannot compare them")
    bare = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        bare.set_content("".join(f'<div id="chart{i}" style="width:{f["width"]}px;'
                                 f'height:{f["height"]}px"></div>' for i, f in enumerate(after)))
        bare.add_script_tag(path=str(PLOTLY_JS))  # the app's own Plotly.js
        ms = bare.evaluate(_REACT, [before, after, repeats])
    finally:
        bare.close()
    return len(after), sum(not f["seen"] for f in after), ms


def browser_latencies(n_rows: int, n_features: int, method: str, port: int = 8766,
                      repeats: int = 5) -> dict[str, list[float]]:
    """In Chromium at 1280x720, on an uploaded ``n_rows`` x ``n_features`` table trained with
    ``method`` (the app's other defaults: 20 rounds, depth 3): ms from the key press or click
    to the page's last change for a step (→), a round-slider move (its thumb, →), a view
    switch (Residuals and gradients, then back to Tree and splits), a node click (a node's
    first visit, then a second) and Play (the time between rounds at 0.5 s per round)."""
    import tempfile
    from pathlib import Path

    from playwright.sync_api import sync_playwright

    from ui.views import VIEWS

    out = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        csv = Path(tmp) / f"wide_{n_rows}x{n_features}.csv"
        wide_csv(csv, n_rows, n_features)
        proc = serve(port, timeout=300)
        browser = chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(f"http://127.0.0.1:{port}/?tree_method={method}")
            page.wait_for_selector(FIRST_CHART, timeout=180_000)
            upload(page, csv, n_rows, n_features + 1)
            page.evaluate(settle_script())
            page.evaluate("() => document.activeElement?.blur()")  # keys to the page
            out["step"] = [_timed(page, lambda: page.keyboard.press("ArrowRight"))
                           for _ in range(repeats)]
            charts, remade, plotly_ms = step_cost(browser, page, repeats)
            out["charts a step re-creates"] = [remade, charts]
            out["Plotly alone, per step"] = plotly_ms
            thumb = page.locator('.st-key-round input[type="range"]')
            out["round slider"] = []
            for _ in range(repeats):
                thumb.focus()
                out["round slider"].append(_timed(page, lambda: page.keyboard.press(
                    "ArrowRight")))
            view = page.locator(".st-key-view")
            out["view switch"] = []
            for _ in range(repeats):
                for slug in ("residuals", "tree"):
                    button = view.get_by_role("radio", name=VIEWS[slug].TITLE, exact=True)
                    out["view switch"].append(_timed(page, button.click))
            for visit in ("node click, first visit", "node click, second visit"):
                out[visit] = []
                for i in range(min(repeats, _tree_points(page).count())):
                    point = _tree_points(page).nth(i)
                    point.scroll_into_view_if_needed()
                    box = point.bounding_box()
                    out[visit].append(_timed(page, lambda b=box: _click(page, b)))
            pace, redraws = _play_pace(page)
            out["play at 500 ms a round"] = [pace]
            out["play, ms between redraws"] = [redraws]
            assert page.get_by_test_id("stException").count() == 0
        finally:
            browser.close()
            stop(proc)
    return out


def floor_latencies(port: int = 8767, repeats: int = 8) -> dict[str, list[float]]:
    """ms from the click on the bare page's Step button to the page's last change, with no
    chart, one and three (``bare_page.py``), in Chromium at 1280x720."""
    import shutil
    import tempfile
    from pathlib import Path

    from playwright.sync_api import sync_playwright

    out = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        shutil.copy(Path(__file__).with_name("bare_page.py"), Path(tmp) / "app.py")
        proc = serve(port, timeout=120, cwd=Path(tmp))
        browser = chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            for charts in (0, 1, 3):
                page.goto(f"http://127.0.0.1:{port}/?charts={charts}")
                page.get_by_text("Step 0").wait_for(timeout=60_000)
                page.wait_for_timeout(1000)
                page.evaluate(settle_script())
                button = page.get_by_role("button", name="Step")
                name = (f"bare page, {charts} chart{'s' if charts > 1 else ''}" if charts
                        else "bare page, text only")
                out[name] = [_timed(page, button.click) for _ in range(repeats)]
        finally:
            browser.close()
            stop(proc)
    return out


def _play_pace(page, seconds: float = 6.0) -> tuple[float, float]:
    """Play at 0.5 s a round from round 0 for about ``seconds``: (ms of wall time per round
    shown, ms between successive redraws on screen). A redraw slower than the speed skips
    rounds (``stage.advance``), so the first holds the speed while the second may not."""
    page.locator(".st-key-first button").click()
    page.wait_for_function("() => [...document.querySelectorAll('h4')].some(h => "
                           "/Round 0 of/.test(h.innerText))", timeout=30_000)
    speed = page.locator('.st-key-speed input[type="range"]')
    speed.focus()
    page.keyboard.press("ArrowLeft")  # the default 1 s a round -> 0.5 s
    page.wait_for_function("() => document.querySelector('.st-key-speed').innerText"
                           ".includes('0.5 s')", timeout=30_000)
    page.wait_for_timeout(1500)
    page.evaluate("""() => { window.ticks = []; let last = -1;
        const watch = () => { const h = [...document.querySelectorAll('h4')]
            .find(e => /Round \\d+ of/.test(e.innerText));
          const r = h ? +h.innerText.match(/Round (\\d+)/)[1] : -1;
          if (r !== last) { window.ticks.push([performance.now(), r]); last = r; }
          requestAnimationFrame(watch); };
        requestAnimationFrame(watch); }""")
    page.locator(".st-key-play button").click()
    page.wait_for_timeout(seconds * 1000)
    page.locator(".st-key-pause button").click()  # Pause is its own button (ui.stage)
    ticks = [t for t in page.evaluate("() => window.ticks") if t[1] > 0][1:]  # after the 1st
    (t0, r0), (t1, r1) = ticks[0], ticks[-1]
    gaps = [b[0] - a[0] for a, b in zip(ticks, ticks[1:], strict=False)]
    return (t1 - t0) / max(1, r1 - r0), statistics.median(gaps)


def learning_rate_seconds(n_rows: int = 10_000, rounds: int = 200) -> float:
    """Four models (eta 0.01, 0.1, 0.3, 1.0), 200 rounds each, on 10k rows, app defaults."""
    import boost

    rng = np.random.default_rng(2)
    X = rng.normal(size=(n_rows, 4))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + rng.normal(scale=0.3, size=n_rows)
    boost.train({"max_depth": 3}, X[:100], y[:100], 2)
    t = time.perf_counter()
    for eta in (0.01, 0.1, 0.3, 1.0):
        boost.train({"eta": eta, "max_depth": 3}, X, y, rounds, evals=[(X[:2000], y[:2000],
                                                                        "valid")])
    return time.perf_counter() - t


GOAL_MS = 150


def _line(name: str, ms: list[float]) -> str:
    return (f"  {name:<26} median {statistics.median(ms):6.0f} ms, max {max(ms):6.0f} ms  "
            f"({sum(t <= GOAL_MS for t in ms)} of {len(ms)} within {GOAL_MS} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000x30,100000x30")
    parser.add_argument("--methods", default="exact,hist")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-first-chart", action="store_true")
    parser.add_argument("--floor", action="store_true",
                        help="only the bare Streamlit page's clicks (bare_page.py)")
    args = parser.parse_args()
    if args.floor:
        print("a bare Streamlit page in Chromium at 1280x720, click to last change:")
        for name, ms in floor_latencies().items():
            print(_line(name, ms))
        return
    if not args.skip_first_chart:
        print(f"first chart after `streamlit run` (warm cache): {first_chart_seconds():.1f} s")
    for size in args.sizes.split(","):
        n, f = (int(v) for v in size.split("x"))
        for method in args.methods.split(","):
            print(f"\n{n:,} rows x {f} features, {method} (20 rounds, depth 3), 1280x720:")
            print(" the server's share (the fragment's run, AppTest):")
            for name, ms in server_latencies(n, f, method, args.repeats).items():
                print(_line(name, ms))
            print(" in Chromium, from the key press or click to the page's last change:")
            for name, ms in browser_latencies(n, f, method, repeats=args.repeats).items():
                if name.startswith("play"):
                    print(f"  {name:<26} {ms[0]:6.0f} ms")
                elif name.startswith("charts"):
                    print(f"  {name:<26} {ms[0]} of {ms[1]}")
                else:
                    print(_line(name, ms))
    print(f"\nlearning-rate comparison, 4 etas x 200 rounds on 10,000 rows: "
          f"{learning_rate_seconds():.2f} s")


if __name__ == "__main__":
    main()
