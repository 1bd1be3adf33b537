"""Live knobs: from moving a parameter to the redrawn chart, in the browser.

    python benchmarks/bench_live.py [--rows 5000] [--features 20] [--repeats 5]
    python benchmarks/bench_live.py --estimates   # the live decision's estimate vs training
    python benchmarks/bench_live.py --smoke       # 500 x 5, one move of 3 knobs (seconds)

1. Writes a regression table (5,000 rows × 20 features by default), starts
   ``streamlit run app.py`` and opens it in Debian's Chromium at 1280×720 (Playwright), at
   round 20 of the app's default model, and uploads the table.
2. For each live knob (the sidebar's sliders and number inputs for η, λ, γ, α, max_depth,
   min_child_weight and the number of rounds) moves it one step — a slider by an arrow key,
   a number by its + or − button, alternately up and down — and times, in the page, from
   the browser taking the key press or click to the first animation frame at which the
   page's player (``[data-testid="boostscope-player"]``) shows the new model: its status
   line's losses or its loss or fit chart's data (``common.PROBE``; or, when the step leaves
   the model as it was, to the end of the rerun). That is the change's whole path: the
   browser, Streamlit's rerun, the training, the figures and Plotly's redraw. Also printed:
   the change to the script's start and the script's run, as the page sees them. The goal
   is 300 ms.
3. In the same run, on the same table and model: ``boost.train`` alone (the training's share
   of the path) and ``xgboost.train`` with the same parameters, for comparison.

``--estimates``: what decides whether the knobs are live — ``boost.runtime.train_seconds``,
at rates measured here as a server measures them — beside ``boost.train`` timed on the same
shapes (exact and hist), their ratio, and ``xgboost.train`` for scale.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from common import FINISHED, NO_RUN, PLAYER, PROBE, ROOT, WATCH_SOCKET, chromium, served, updated

sys.path.insert(0, str(ROOT))
GOAL_MS = 300


def table(rows: int, features: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, features)).round(3)
    y = (np.sin(X[:, 0]) * 3 + X[:, 1] * X[:, 2] + rng.normal(scale=0.5, size=rows)).round(3)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(features)])
    frame["y"] = y
    return frame


KNOBS = ("eta", "lambda", "gamma", "alpha", "max_depth", "min_child_weight",
         "num_boost_round")
SMOKE_KNOBS = ("eta", "max_depth", "num_boost_round")  # a slider of each kind, a number


def knobs(names=None):
    """(parameter, its widget) of the live knobs (``names``, default all), from the
    parameter table."""
    from boost.params import BY_NAME

    names = names or KNOBS
    return [(name, BY_NAME[name].widget) for name in names]


def move(page, name: str, widget: str, up: bool) -> None:
    """One step of a knob, as a user makes it."""
    box = page.locator(f".st-key-p_{name}")
    if widget == "slider":
        box.locator('input[type="range"]').focus()
        page.keyboard.press("ArrowRight" if up else "ArrowLeft")
    else:
        box.get_by_test_id("stNumberInputStepUp" if up else "stNumberInputStepDown").click()


def browser_ms(csv: Path, port: int, repeats: int, names=None, warm_up: bool = True,
               url: str | None = None) -> dict[str, list[dict]]:
    """Each knob's moves: the page's timestamps (ms) of the change, the script's start and
    end, and the redrawn charts (None: the model did not change)."""
    from playwright.sync_api import sync_playwright

    with served(port, url) as base, sync_playwright() as p:
        browser = chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.add_init_script(WATCH_SOCKET)  # the probe's runs (``common.PROBE``)
        page.goto(f"{base}/?round=20&gamma=1&alpha=1")
        page.wait_for_selector(f"{PLAYER} .bsp-loss .js-plotly-plot", timeout=180_000)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(csv)
        page.get_by_text(f"{csv.name}").first.wait_for(timeout=60_000)
        page.wait_for_selector('[data-testid="stCaptionContainer"] >> text=Live',
                               timeout=60_000)
        page.wait_for_function(NO_RUN, timeout=60_000)
        page.evaluate(PROBE)
        times = {}
        for name, widget in knobs(names):
            page.locator(f".st-key-p_{name}").scroll_into_view_if_needed()
            times[name] = []
            first = 1 if warm_up else 0  # the first move is a warm-up, not counted
            for i in range(repeats + first):
                page.evaluate("() => window.probe.arm()")
                move(page, name, widget, up=i % 2 == 0)
                try:
                    page.wait_for_function(FINISHED, timeout=30_000)
                except Exception:
                    page.screenshot(path="bench_live_failed.png")
                    raise SystemExit(f"moving {name} did not redraw within 30 s; the "
                                     "screen is in bench_live_failed.png") from None
                page.wait_for_function("() => window.probe.done !== null",
                                       timeout=30_000)  # the rest of the run
                page.wait_for_timeout(200)
                probe = page.evaluate("() => window.probe")
                if i >= first:
                    times[name].append(probe)
        browser.close()
    return times


def engine_ms(frame: pd.DataFrame, repeats: int) -> tuple[float, float]:
    """boost.train and xgboost.train of the app's default model on the table's training
    rows (the app's 80 %), best of ``repeats``."""
    import xgboost as xgb

    import boost
    from ui import tables

    prep = tables.prepare(frame, "y", [c for c in frame.columns if c != "y"])
    params = {"eta": 0.3, "max_depth": 3, "tree_method": "exact", "gamma": 1.0, "alpha": 1.0}
    X, y = prep.X_train.to_numpy(np.float32), prep.y_train
    Xv, yv = prep.X_valid.to_numpy(np.float32), prep.y_valid
    boost.train(params, X, y, 20, evals=[(Xv, yv, "valid")])  # load the kernels, untimed
    ours, theirs = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        boost.train(params, X, y, 20, evals=[(Xv, yv, "valid")])
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        train, valid = xgb.DMatrix(X, label=y), xgb.DMatrix(Xv, label=yv)
        xgb.train({**params, "nthread": 2}, train, 20, evals=[(train, "train"),
                                                              (valid, "valid")],
                  verbose_eval=False)
        theirs.append(time.perf_counter() - start)
    return min(ours) * 1000, min(theirs) * 1000


SHAPES = [  # rows, features, rounds, max_depth: the samples' sizes up to 100k x 30
    (442, 10, 20, 3), (569, 30, 20, 3), (569, 30, 200, 6), (5_000, 20, 20, 3),
    (20_000, 30, 100, 6), (40_000, 10, 500, 6), (100_000, 30, 20, 3), (100_000, 30, 20, 6)]


def estimates(repeats: int, shapes=SHAPES) -> None:
    """The live decision's estimate (``boost.runtime.train_seconds``, its rates measured
    here as the server measures them) against ``boost.train`` timed (best of ``repeats``,
    with a validation set of a quarter of the rows, as the app's 80/20), and
    ``xgboost.train`` on the same data for scale."""
    import xgboost as xgb

    import boost
    from boost import runtime
    from ui.training import LIVE_SECONDS

    boost.warmup()
    print(f"Retrain estimate vs measured (live up to {LIVE_SECONDS:g} s); exact and hist")
    print(f"{'rows × features × rounds, depth':<34}{'method':>7}{'estimate s':>12}"
          f"{'boost s':>9}{'est/real':>9}{'xgboost s':>11}  live")
    rng = np.random.default_rng(0)
    for rows, features, rounds, depth in shapes:
        X = rng.normal(size=(rows, features)).astype(np.float32)
        y = X[:, 0] + rng.normal(size=rows).astype(np.float32)
        cut = rows * 4 // 5
        for method in ("exact", "hist"):
            params = {"tree_method": method, "max_depth": depth}
            est = runtime.train_seconds(method, rows, features, rounds, depth)
            ours, theirs = [], []
            for _ in range(repeats):
                start = time.perf_counter()
                boost.train(params, X[:cut], y[:cut], rounds, evals=[(X[cut:], y[cut:], "v")])
                ours.append(time.perf_counter() - start)
                start = time.perf_counter()
                dtrain, dvalid = xgb.DMatrix(X[:cut], label=y[:cut]), xgb.DMatrix(X[cut:],
                                                                                 label=y[cut:])
                xgb.train({**params, "nthread": 2}, dtrain, rounds, evals=[(dvalid, "v")],
                          verbose_eval=False)
                theirs.append(time.perf_counter() - start)
            real = min(ours)
            print(f"{f'{rows:,} × {features} × {rounds}, {depth}':<34}{method:>7}{est:>12.3f}"
                  f"{real:>9.3f}{est / real:>9.2f}{min(theirs):>11.3f}  "
                  f"{'yes' if est <= LIVE_SECONDS else 'Train'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--estimates", action="store_true",
                        help="only the retrain estimate against measured training (no browser)")
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--port", type=int, default=8767)
    parser.add_argument("--url", help="a server already running here (else one is started)")
    parser.add_argument("--smoke", action="store_true",
                        help="the smallest run: 500 x 5, one move of eta, max_depth and the "
                             "rounds (no warm-up move), 1 training each")
    args = parser.parse_args()
    if args.smoke:
        args.rows, args.features, args.repeats = 500, 5, 1
    if args.estimates:
        estimates(min(args.repeats, 3), SHAPES[:2] if args.smoke else SHAPES)
        return
    frame = table(args.rows, args.features)
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / f"live_{args.rows}x{args.features}.csv"
        frame.to_csv(csv, index=False)
        times = browser_ms(csv, args.port, args.repeats,
                           *((SMOKE_KNOBS, False) if args.smoke else ()), url=args.url)
    ours, theirs = engine_ms(frame, args.repeats)
    one, five, _ = os.getloadavg()
    print(f"Live knobs on {args.rows:,} rows × {args.features} features (the app's default "
          f"model, 20 rounds, depth 3, exact), 1280×720 Chromium, {args.repeats} moves each; "
          f"{time.strftime('%Y-%m-%d %H:%M')}, load average {one:.2f} / {five:.2f} (1 / 5 "
          f"min) on {os.cpu_count()} cores")
    print(f"{'knob':<18}{'median ms':>10}{'max ms':>9}{'goal ms':>9}   median: change → "
          "script start, script run")
    every = []
    for name, probes in times.items():
        ms = [updated(p) for p in probes]
        every += ms
        # a short run can pass without the page's script state ever saying "running"
        seen = [p for p in probes if p["running"] is not None and p["done"] is not None]
        start = statistics.median(p["running"] - p["change"] for p in seen) if seen else None
        run = statistics.median(p["done"] - p["running"] for p in seen) if seen else None
        print(f"{name:<18}{statistics.median(ms):>10.0f}{max(ms):>9.0f}{GOAL_MS:>9}   "
              + (f"{start:.0f}, {run:.0f}" if seen else "(the run's start not seen)"))
    print(f"{'all':<18}{statistics.median(every):>10.0f}{max(every):>9.0f}{GOAL_MS:>9}   "
          f"({sum(t <= GOAL_MS for t in every)} of {len(every)} within the goal)")
    print(f"training alone: boost.train {ours:.0f} ms, xgboost.train {theirs:.0f} ms "
          f"(ratio {ours / theirs:.2f}×)")


if __name__ == "__main__":
    main()
