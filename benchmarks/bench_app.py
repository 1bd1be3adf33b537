"""How fast the app answers: first chart after ``streamlit run`` and one step on 100k rows.

    python benchmarks/bench_app.py

1. Starts ``streamlit run app.py`` and opens it in Debian's Chromium (Playwright); prints the
   seconds from the server's start to the first drawn Plotly chart (numba's cache warm).
2. Uploads a 100,000-row CSV in Streamlit's AppTest, trains once, then prints the
   server-side time of a step: the round fragment's own time (a step in the browser reruns
   only that fragment) and AppTest's whole-script rerun.
3. Round and node changes with every view, and the learning-rate comparison's training.
4. Node clicks on 100,000 rows x 30 features (exact: about 3 million candidate splits at the
   root): the round fragment's time for a node's first visit and for a second one.
"""

from __future__ import annotations

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


def step_milliseconds(n_rows: int = 100_000) -> tuple[float, float, float]:
    from streamlit.testing.v1 import AppTest

    rng = np.random.default_rng(0)
    x1, x2, x3 = rng.normal(size=(3, n_rows))
    y = np.sin(x1) + x2 * x3 + rng.normal(scale=0.3, size=n_rows)
    csv = "x1,x2,x3,y\n" + "\n".join(f"{a:.4f},{b:.4f},{c:.4f},{d:.4f}"
                                     for a, b, c, d in zip(x1, x2, x3, y, strict=True))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    t = time.perf_counter()
    at.get("file_uploader")[0].set_value(("big.csv", csv.encode(), "text/csv")).run()
    train_s = time.perf_counter() - t
    forward, back, stage = [], [], []
    for _ in range(10):
        t = time.perf_counter()
        at.button(key="step_forward").click().run()
        forward.append((time.perf_counter() - t) * 1000)
        stage.append(at.session_state["app"].stage_ms)
    for _ in range(10):
        t = time.perf_counter()
        at.button(key="step_back").click().run()
        back.append((time.perf_counter() - t) * 1000)
        stage.append(at.session_state["app"].stage_ms)
    assert not at.exception
    return (train_s, statistics.median(forward), statistics.median(back),
            statistics.median(stage))


def round_and_node_milliseconds(n_rows: int = 100_000) -> tuple[float, float]:
    """Server-side time of moving the round slider and of selecting another node, with
    every view on screen (median of 8 each)."""
    from streamlit.testing.v1 import AppTest

    rng = np.random.default_rng(1)
    x1, x2 = rng.normal(size=(2, n_rows))
    label = (x1 * x2 + rng.normal(scale=0.5, size=n_rows) > 0).astype(int)
    csv = "x1,x2,label\n" + "\n".join(f"{a:.4f},{b:.4f},{c}"
                                       for a, b, c in zip(x1, x2, label, strict=True))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    at.get("file_uploader")[0].set_value(("big2d.csv", csv.encode(), "text/csv")).run()
    at.slider(key="round").set_value(1).run()
    rounds, nodes, round_stage, node_stage = [], [], [], []
    for r in range(2, 10):
        t = time.perf_counter()
        at.slider(key="round").set_value(r).run()
        rounds.append((time.perf_counter() - t) * 1000)
        round_stage.append(at.session_state["app"].stage_ms)
    for node in range(8):
        at.session_state["app"].node = node % 7
        t = time.perf_counter()
        at.run()
        nodes.append((time.perf_counter() - t) * 1000)
        node_stage.append(at.session_state["app"].stage_ms)
    assert not at.exception
    return tuple(statistics.median(v) for v in (round_stage, node_stage, rounds, nodes))


def node_click_milliseconds(n_rows: int = 100_000, n_features: int = 30):
    """The round fragment's time for clicking nodes 0..5 of round 1's tree, first visits,
    then the same nodes again (their candidates cached), on ``n_rows`` x ``n_features``."""
    import io

    import pandas as pd
    from streamlit.testing.v1 import AppTest

    rng = np.random.default_rng(1)
    X = rng.normal(size=(n_rows, n_features))
    y = X[:, 0] * X[:, 1] + rng.normal(scale=0.5, size=n_rows)
    csv = io.StringIO()
    pd.DataFrame(X, columns=[f"x{i}" for i in range(n_features)]).assign(y=y).to_csv(
        csv, index=False, float_format="%.4f")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    at.get("file_uploader")[0].set_value(("wide.csv", csv.getvalue().encode(), "text/csv")).run()
    at.slider(key="round").set_value(1).run()
    visits = []
    for _ in range(2):
        times = []
        for node in range(6):
            at.session_state["app"].node = node
            at.run()
            times.append(at.session_state["app"].stage_ms)
        visits.append(times)
    assert not at.exception
    return visits


def wide_csv(path, n_rows: int, n_features: int) -> None:
    """A regression table: ``n_features`` standard normal columns (4 decimals) and y."""
    import pandas as pd

    rng = np.random.default_rng(1)
    X = rng.normal(size=(n_rows, n_features))
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + rng.normal(scale=0.5, size=n_rows)
    pd.DataFrame(X, columns=[f"x{i}" for i in range(n_features)]).assign(y=y).to_csv(
        path, index=False, float_format="%.4f")


def _timed(page, act) -> float:
    """ms from the key press or click ``act`` makes to the last change it caused on the
    page (``common.SETTLE``)."""
    page.evaluate("() => window.settle.arm()")
    act()
    page.wait_for_function("() => window.settle.result !== null", timeout=120_000)
    result = page.evaluate("() => window.settle.result")
    return result["last"] - result["change"]


def _round_heading(page) -> str:
    return page.locator("h4").filter(has_text="Round ").first.inner_text()


def _tree_points(page):
    """The tree chart's node markers (split and leaf markers; not the labels)."""
    return page.locator(".st-key-tree_chart .scatterlayer .trace path.point")


def browser_latencies(n_rows: int, n_features: int, method: str, port: int = 8766,
                      repeats: int = 5) -> dict[str, list[float]]:
    """In Chromium at 1280x720, on an uploaded ``n_rows`` x ``n_features`` table trained with
    ``method`` (the app's other defaults: 20 rounds, depth 3): ms from the key press or click
    to the page's last change for a step (→), a round-slider move (its thumb, →), a view
    switch (Residuals and gradients, then back to Tree and splits), a node click (a node's first visit,
    then a second) and Play (the time between rounds at 0.5 s per round)."""
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
            page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(csv))
            page.get_by_text(csv.name).first.wait_for(timeout=120_000)
            page.wait_for_function(
                "() => [...document.querySelectorAll('h4')].some(h => /Round 0 of/"
                ".test(h.innerText))", timeout=600_000)
            page.wait_for_timeout(2000)
            page.evaluate(settle_script())
            page.evaluate("() => document.activeElement?.blur()")  # keys to the page
            out["step"] = [_timed(page, lambda: page.keyboard.press("ArrowRight"))
                           for _ in range(repeats)]
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
                    out[visit].append(_timed(page, lambda b=box: page.mouse.click(
                        b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)))
            out["play, ms a round at 500"] = _play_intervals(page)
            assert page.get_by_test_id("stException").count() == 0
        finally:
            browser.close()
            stop(proc)
    return out


def _play_intervals(page, rounds: int = 8) -> list[float]:
    """Play at 0.5 s a round from round 0: ms between the heading's successive rounds."""
    page.locator(".st-key-first button").click()
    page.wait_for_function("() => [...document.querySelectorAll('h4')].some(h => "
                           "/Round 0 of/.test(h.innerText))", timeout=30_000)
    speed = page.locator('.st-key-speed input[type="range"]')
    speed.focus()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")  # 0.25 -> 0.5 s a round
    page.wait_for_timeout(1500)
    page.evaluate("""() => { window.ticks = []; let last = '';
        const watch = () => { const h = [...document.querySelectorAll('h4')]
            .find(e => /Round \\d+ of/.test(e.innerText));
          const text = h ? h.innerText.match(/Round \\d+/)[0] : '';
          if (text !== last) { window.ticks.push(performance.now()); last = text; }
          requestAnimationFrame(watch); };
        requestAnimationFrame(watch); }""")
    page.locator(".st-key-play button").click()
    page.wait_for_function(f"() => window.ticks.length > {rounds + 1}", timeout=120_000)
    page.locator(".st-key-play button").click()  # pause
    ticks = page.evaluate("() => window.ticks")[1:]
    return [b - a for a, b in zip(ticks[1:], ticks[2:], strict=False)]


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


def main() -> None:
    print(f"first chart after `streamlit run` (warm cache): {first_chart_seconds():.1f} s")
    train_s, fwd, back, stage = step_milliseconds()
    print(f"100,000 rows x 3 features: upload + parse + train 20 rounds {train_s:.1f} s; "
          f"a step reruns the round fragment in {stage:.0f} ms (what the browser waits for); "
          f"a whole-script rerun through AppTest: forward {fwd:.0f} ms, back {back:.0f} ms "
          "(medians of 10)")
    round_ms, node_ms, round_all, node_all = round_and_node_milliseconds()
    print(f"100,000 rows x 2 features (surface, tree, candidates): the round fragment redraws "
          f"in {round_ms:.0f} ms for a new round and {node_ms:.0f} ms for a new node "
          f"(whole-script AppTest reruns: {round_all:.0f} ms, {node_all:.0f} ms)")
    first, again = node_click_milliseconds()
    print("100,000 rows x 30 features (exact), round 1's nodes 0-5: the round fragment redraws "
          "in " + ", ".join(f"{t:.0f}" for t in first) + " ms on a first click, "
          + ", ".join(f"{t:.0f}" for t in again) + " ms on a second")
    print(f"learning-rate comparison, 4 etas x 200 rounds on 10,000 rows: "
          f"{learning_rate_seconds():.2f} s")


if __name__ == "__main__":
    main()
