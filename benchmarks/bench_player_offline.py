"""The round's player in the offline file (viz/export.py: offline_html, no server), two
versions of the page's code (viz/, as each git ref's viz/export.py builds the file) side by
side in ONE run, interleaved (A B A B ...) so a shared machine's load falls on both alike.

    python benchmarks/bench_player_offline.py                  # HEAD~ vs the work tree
    python benchmarks/bench_player_offline.py --before REF --rounds 20 --rows 10000
    python benchmarks/bench_player_offline.py --viewports 1280x720 --repeats 3
    python benchmarks/bench_player_offline.py --smoke    # HEAD vs the work tree, 1k x 30,
                                                         # 5 rounds, 1280x720, 3 moves (seconds)

The model: ``--rows`` x 30 standard normal features (bench_app.py's ``wide_csv`` table),
exact, depth 3, ``--rounds`` rounds, the app's drawn rows (``viz.theme.sample_rows``), the
trace as the app builds it for the offline file (``fill``, ``large``). Per version and
viewport (Debian's Chromium, headless): → pressed 20 times 250 ms apart (each step's draw
alone), the slider set to 20 random rounds 250 ms apart, and Play at 20 and 30 rounds/s from
the first round to the last. Figures are the page's own timings
(``window.boostscopePlayer.timings``: the event's timeStamp to the frame after the draw) and,
when the player records them, ``drawMs`` (per chart, ms of the last draws).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import ROOT, chromium

sys.path.insert(0, str(ROOT))

# what the trace is built by (a cached trace from other code may lack what the page reads)
TRACE_CODE = ("viz/round_trace.py", "viz/tree.py", "boost/trace/rounds.py", "viz/fit.py",
              "viz/loss.py")
READY = ("() => window.boostscopePlayer?.drawn.length > 0"
         " && !!document.querySelector('.bsp-tree .bsp-tree-svg, .bsp-tree .main-svg')")
IDLE = "() => { const p = window.boostscopePlayer.players[0]; return !p.drawing && !p.playing; }"


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f}/{five:.2f} (1/5 min, {os.cpu_count()} cores)"


def p95(ms):
    s = sorted(ms)
    return s[max(0, -(-95 * len(s) // 100) - 1)]


def build_trace(rows: int, rounds: int) -> dict:
    import numpy as np

    import boost
    from viz.round_trace import round_trace
    from viz.theme import sample_rows

    rng = np.random.default_rng(1)
    X = np.round(rng.normal(size=(rows, 30)), 4)
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + rng.normal(scale=0.5, size=rows)
    model = boost.train({"tree_method": "exact", "max_depth": 3, "eta": 0.3}, X, y, rounds,
                        evals=[(X[::5], y[::5], "valid")])
    data = model.trace.rounds(X, y, sample_rows(len(X)))
    return round_trace(data, model.loss_history(), model.metric_name, None, model.params,
                       model_key="bench", fill=True, large=True)


def page_for(ref: str | None, trace: dict, out: Path) -> Path:
    """The offline file of ``trace`` as viz/export.py at git ``ref`` writes it (None: the work
    tree): that ref's viz/ is extracted beside ``out`` and run in a subprocess."""
    src = ROOT
    if ref is not None:
        src = out.with_suffix("")
        src.mkdir()
        viz = subprocess.run(["git", "archive", ref, "viz"], cwd=ROOT, check=True,
                             capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=viz, check=True)
    data = out.with_suffix(".json")
    data.write_text(json.dumps(trace), encoding="utf-8")
    code = ("import json, sys; from viz.export import offline_html; open(sys.argv[2], 'w', "
            "encoding='utf-8').write(offline_html(json.load(open(sys.argv[1])), 'bench'))")
    subprocess.run([sys.executable, "-c", code, str(data), str(out)], cwd=src, check=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    return out


def measure(browser, html: Path, size, seed: int, moves: int = 20) -> dict:
    w, h = size
    page = browser.new_page(viewport={"width": w, "height": h})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(html.as_uri())
    page.wait_for_function(READY, timeout=60_000)
    page.wait_for_timeout(500)
    reg = "window.boostscopePlayer"
    out = {}

    def clear():
        page.evaluate(f"() => {{ {reg}.timings.length = 0; {reg}.drawn.length = 0; }}")

    def rest():
        page.wait_for_function(IDLE, timeout=60_000)
        page.wait_for_timeout(350)

    hi = page.evaluate("() => window.boostscopePlayer.players[0].hi")
    page.keyboard.press("Home")
    rest()
    clear()
    draw_ms = []
    for _ in range(min(moves, hi)):
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(250)
        draw_ms.append(page.evaluate("() => window.boostscopePlayer.drawMs ?? null"))
    rest()
    out["step"] = [g["ms"] for g in page.evaluate(f"() => {reg}.timings")]
    out["drawMs"] = [d for d in draw_ms if d]
    clear()
    rng = random.Random(seed)
    r = page.evaluate("() => window.boostscopePlayer.players[0].r")
    for _ in range(moves):
        r = rng.choice([x for x in range(0, hi + 1) if x != r])
        page.evaluate("""(r) => { const s = window.boostscopePlayer.players[0].slider;
            s.value = r; s.dispatchEvent(new Event('input', {bubbles: true})); }""", r)
        page.wait_for_timeout(250)
    rest()
    out["slider"] = [g["ms"] for g in page.evaluate(f"() => {reg}.timings")]
    for speed in (20, 30):
        page.select_option(".bsp-bar select", str(speed))
        page.keyboard.press("Home")
        rest()
        clear()
        page.keyboard.press("Space")
        page.wait_for_function("() => !window.boostscopePlayer.players[0].playing",
                               timeout=120_000)
        rest()
        ticks = [g for g in page.evaluate(f"() => {reg}.timings") if g["gesture"] == "tick"]
        drawn = page.evaluate(f"() => {reg}.drawn")
        at = [g["start"] + g["ms"] for g in ticks]
        gaps = [b - a for a, b in zip(at, at[1:], strict=False)]
        rate = (len(at) - 1) * 1000 / (at[-1] - at[0]) if len(at) > 1 else 0.0
        skipped = sum(max(0, b - a - 1) for a, b in zip(drawn, drawn[1:], strict=False))
        out[f"play{speed}"] = {"gaps": gaps, "rate": rate, "skipped": skipped}
    out["errors"] = errors
    page.close()
    return out


def summary(ms):
    return f"median {statistics.median(ms):6.1f}  p95 {p95(ms):6.1f}" if ms else "—"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="HEAD~", help="git ref of the old viz/")
    parser.add_argument("--after", default=None, help="git ref of the new (the work tree)")
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--viewports", default="1280x720,1920x1080")
    parser.add_argument("--repeats", type=int, default=2, help="A/B pairs per viewport")
    parser.add_argument("--moves", type=int, default=20, help="steps and slider moves a page")
    parser.add_argument("--smoke", action="store_true", help="the smallest run: HEAD against "
                        "the work tree, 1000 x 30, 5 rounds, 1280x720, one pair, 3 moves")
    args = parser.parse_args()
    if args.smoke:
        args.before, args.rows, args.rounds = "HEAD", 1_000, 5
        args.viewports, args.repeats, args.moves = "1280x720", 1, 3
    from playwright.sync_api import sync_playwright

    print(f"bench_player_offline.py {' '.join(sys.argv[1:])}  ({load()})", flush=True)
    # the model is the same at every run (seeded): trained once per version of the trace's code
    code = hashlib.sha256(b"".join((ROOT / f).read_bytes() for f in TRACE_CODE)).hexdigest()[:12]
    cache = Path(tempfile.gettempdir()) / (
        f"bench_player_offline_{args.rows}x{args.rounds}_{code}.json")
    if cache.exists():
        trace = json.loads(cache.read_text())
    else:
        trace = build_trace(args.rows, args.rounds)
        cache.write_text(json.dumps(trace))
    versions = {"before": args.before, "after": args.after}
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.viewports.split(",")]
    results = {(v, s): [] for v in versions for s in sizes}
    loads = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        pages = {v: page_for(ref, trace, Path(tmp) / f"{v}.html") for v, ref in versions.items()}
        browser = chromium(p)
        for size in sizes:
            for i in range(args.repeats):
                order = list(versions) if i % 2 == 0 else list(versions)[::-1]
                for v in order:
                    results[(v, size)].append(measure(browser, pages[v], size, seed=i,
                                                      moves=args.moves))
                    loads.append(os.getloadavg()[0])
                    print(f"  {v} {size[0]}x{size[1]} #{i + 1} done ({load()})", flush=True)
        browser.close()
    print(f"\n{args.rows:,} rows x 30, {args.rounds} rounds, exact depth 3; ms from the event "
          "to the frame after the draw; 1-min load during the run "
          f"{min(loads):.2f}–{max(loads):.2f}")
    for size in sizes:
        for v in versions:
            runs = results[(v, size)]

            def cat(k, runs=runs):
                return [x for r in runs for x in r[k]]

            print(f"{size[0]}x{size[1]} {v:<6}  step {summary(cat('step'))} | slider "
                  f"{summary(cat('slider'))}")
            for speed in (20, 30):
                plays = [r[f"play{speed}"] for r in runs]
                gaps = [g for pl in plays for g in pl["gaps"]]
                print(f"    play {speed}/s: {min(pl['rate'] for pl in plays):5.1f}–"
                      f"{max(pl['rate'] for pl in plays):5.1f} rounds/s, gap {summary(gaps)}, "
                      f"skipped {sum(pl['skipped'] for pl in plays)}")
            draws = [d for r in runs for d in r["drawMs"]]
            if draws:
                keys = sorted({k for d in draws for k in d})
                print("    drawMs (steps) " + ", ".join(
                    f"{k} {statistics.median([d[k] for d in draws if k in d]):.1f}"
                    for k in keys))
            errs = {e for r in runs for e in r["errors"]}
            if errs:
                print(f"    page errors: {sorted(errs)[:3]}")


if __name__ == "__main__":
    main()
