"""BoostScope hist vs XGBoost hist, LightGBM and scikit-learn, in one process, same data.

    python -m pip install -r benchmarks/requirements.txt    # the peers (LightGBM, sklearn)
    python benchmarks/bench_hist.py --table                  # ms per round, 1k .. 1M, both tasks
    python benchmarks/bench_hist.py --profile                # where a round's time goes
    python benchmarks/bench_hist.py --retrain                # one knob move at 10k x 10
    python benchmarks/bench_hist.py                          # 100k x 20 and 1M x 28 in detail
    python benchmarks/bench_hist.py --sizes 100000x20 --rounds 30 --repeats 1
    python benchmarks/bench_hist.py --task regression --sizes 200000x28
    python benchmarks/bench_hist.py --smoke                  # the smallest run of a mode:
    python benchmarks/bench_hist.py --table --profile --retrain --smoke   # seconds, not minutes

A peer that is not installed (LightGBM, scikit-learn) is left out and said so; its columns
print "—".

``--table``: ms per round of BoostScope, XGBoost and LightGBM at 1k x 10, 5k x 10, 10k x 10,
100k x 20 and 1M x 28 (binary and regression; best of ``--repeats`` interleaved runs,
dataset construction included) and BoostScope's ratio to the faster peer. ``--profile``: the
share of each stage of a round at 10k x 10 and 1M x 28 (timers around every kernel, so the
grower's loop runs as Python here, its ``py_func``: compiled, it runs the same kernels without
them).
``--retrain``: a knob move on data already trained on (eta changed, 100 rounds at 10k x 10):
BoostScope with its cuts and binned rows kept, XGBoost on the user's DMatrix already trained
on (its quantised matrix kept), LightGBM on its constructed Dataset.

Synthetic binary classification (``--task regression``: the score it thresholds); 100
rounds, depth 6, eta 0.1, 2 threads, 256 bins (LightGBM and scikit-learn: 255, their
maximum). For each library: wall time of training (including
building its own binned dataset from the float matrix), peak extra memory (the process's
resident-set high-water mark above what it held before, reset before each library through
``/proc/self/clear_refs``), the ratios to XGBoost hist and (memory) to LightGBM; each
library runs ``--repeats`` times, interleaved with the others, and its best time counts (this
machine is shared; one run can be 40% slower than the next). Also: BoostScope vs XGBoost
trees (identical?) and margins, BoostScope's result with 1 vs 2 threads, the latency of one round on
10k rows, the interactivity budget (retrain 100 rounds on 10k x 10; the per-row view of a
round on 100k rows) and numba's compile time (``boost.warmup()``) with a cold and warm cache.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OMP_NUM_THREADS", "2")  # scikit-learn's OpenMP pool, before import

import gc  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from common import ROOT, compile_times, make_data  # noqa: E402

sys.path.insert(0, str(ROOT))

THREADS = 2
ROUNDS = 100
SMOKE = False  # --smoke: the smallest data and one run of each library
TASK = "binary"
# --task: (XGBoost's and BoostScope's objective, LightGBM's, scikit-learn's estimator)
TASKS = {"binary": ("binary:logistic", "binary", "HistGradientBoostingClassifier"),
         "regression": ("reg:squarederror", "regression", "HistGradientBoostingRegressor")}
PARAMS = {"tree_method": "hist", "objective": "binary:logistic", "max_depth": 6, "eta": 0.1,
          "max_bin": 256, "nthread": THREADS}


# ------------------------------------------------------------------ memory
def _rss_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def measure(fn):
    """(seconds, peak extra MiB, result) of ``fn()``."""
    gc.collect()
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # reset VmHWM to the current resident set
    before = _rss_kib("VmRSS")
    start = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - start
    peak = (_rss_kib("VmHWM") - before) / 1024
    return seconds, peak, result


def _cpu() -> str:
    with open("/proc/cpuinfo") as info:
        for line in info:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown CPU"


# ------------------------------------------------------------------ the libraries
def run_boostscope(X, y, rounds, nthread=THREADS):
    import boost

    return boost.train({**PARAMS, "nthread": nthread}, X, y, rounds)


def run_xgboost(X, y, rounds):
    import xgboost as xgb

    dtrain = xgb.DMatrix(X, label=y, nthread=THREADS)
    return xgb.train(PARAMS, dtrain, rounds), dtrain


def run_lightgbm(X, y, rounds):
    import lightgbm as lgb

    params = {"objective": TASKS[TASK][1], "learning_rate": 0.1, "max_depth": 6, "num_leaves": 64,
              "max_bin": 255, "num_threads": THREADS, "min_data_in_leaf": 1,
              "min_sum_hessian_in_leaf": 1.0, "lambda_l2": 1.0, "verbose": -1,
              "deterministic": True, "force_row_wise": True}
    return lgb.train(params, lgb.Dataset(X, label=y), rounds)


def run_sklearn(X, y, rounds):
    import sklearn.ensemble

    estimator = getattr(sklearn.ensemble, TASKS[TASK][2])
    model = estimator(max_iter=rounds, learning_rate=0.1, max_depth=6,
                                           max_leaf_nodes=None, max_bins=255,
                                           early_stopping=False, l2_regularization=1.0,
                                           min_samples_leaf=1)
    return model.fit(X, y)


def warm(X, y) -> None:
    """Every kernel compiled (or loaded from numba's cache) before anything is timed; in
    --smoke only those a small training of ``X`` uses (a cold cache's full warm-up takes
    minutes)."""
    import boost

    if SMOKE:
        run_boostscope(X[:200], y[:200], 2)
    else:
        boost.warmup()


def peers_available(quiet: bool = False) -> list[str]:
    names = []
    for module in ("lightgbm", "sklearn"):
        try:
            __import__(module)
            names.append(module)
        except ImportError:
            if not quiet:
                print(f"({module} is not installed, left out: pip install -r "
                      "benchmarks/requirements.txt)")
    return names


def bench_size(n_samples, n_features, rounds, peers, repeats):
    """Each library ``repeats`` times, interleaved (so a slow spell of a shared machine hits
    all of them alike); the best time and the largest peak memory of each."""

    X, y = make_data(n_samples, n_features, regression=TASK == "regression")
    warm(X, y)
    libraries = [("BoostScope hist", lambda: run_boostscope(X, y, rounds)),
                 ("XGBoost hist", lambda: run_xgboost(X, y, rounds))]
    if "lightgbm" in peers:
        libraries.append(("LightGBM", lambda: run_lightgbm(X, y, rounds)))
    if "sklearn" in peers:
        libraries.append(("scikit-learn HGB", lambda: run_sklearn(X, y, rounds)))
    times = {name: [] for name, _ in libraries}
    peaks = {name: 0.0 for name, _ in libraries}
    results = {}
    for _ in range(repeats):
        for name, fn in libraries:
            t, m, results[name] = measure(fn)
            times[name].append(t)
            peaks[name] = max(peaks[name], m)
    ours, (ref, dtrain) = results["BoostScope hist"], results["XGBoost hist"]
    rows = [(name, times[name], peaks[name]) for name, _ in libraries]
    t_xgb, m_xgb = min(times["XGBoost hist"]), peaks["XGBoost hist"]
    same = ours.get_dump() == ref.get_dump(dump_format="json", with_stats=True)
    diff = float(np.abs(ours.predict(X, output_margin=True)
                        - ref.predict(dtrain, output_margin=True)).max())
    one_thread = run_boostscope(X, y, min(rounds, 20), nthread=1)
    two_threads = run_boostscope(X, y, min(rounds, 20), nthread=2)
    threads_same = one_thread.get_dump() == two_threads.get_dump()
    print(f"\n{n_samples:,} x {n_features}, {PARAMS['objective']}, {rounds} rounds, depth 6, "
          f"eta 0.1, {THREADS} threads; best of {repeats} interleaved runs (all runs in brackets)")
    m_lgb = peaks.get("LightGBM")
    print(f"  {'library':<18} {'time':>8} {'time / XGBoost':>15} {'peak memory':>12} "
          f"{'memory / XGBoost':>17}" + (f" {'memory / LightGBM':>18}" if m_lgb is not None else "")
          + "  runs")

    def ratio(m, ref, width):
        # A later, smaller size may fit in memory the process already holds: no new peak.
        return f"{m / ref:>{width - 1}.2f}x" if ref and ref > 0 else f"{'n/a':>{width}}"

    for name, ts, m in rows:
        t = min(ts)
        runs = " ".join(f"{v:.2f}" for v in ts)
        to_lgb = f" {ratio(m, m_lgb, 18)}" if m_lgb is not None else ""
        print(f"  {name:<18} {t:>7.2f}s {t / t_xgb:>14.2f}x {m:>9.0f} MiB "
              f"{ratio(m, m_xgb, 17)}{to_lgb}  [{runs}]")
    print(f"  BoostScope vs XGBoost: identical trees {same}, max |margin difference| "
          f"{diff:.1e}; 1 vs 2 threads bit-identical: {threads_same}")


def round_latency(peers):
    """One boosting round on 10k rows (what a click on 'train' costs beyond the first)."""
    X, y = make_data(10_000, 10)
    out = []
    for name, fn in (("BoostScope hist", lambda: run_boostscope(X, y, 1)),
                     ("XGBoost hist", lambda: run_xgboost(X, y, 1)),
                     ("LightGBM", lambda: run_lightgbm(X, y, 1)),
                     ("scikit-learn HGB", lambda: run_sklearn(X, y, 1))):
        if name == "LightGBM" and "lightgbm" not in peers:
            continue
        if name == "scikit-learn HGB" and "sklearn" not in peers:
            continue
        fn()
        times = []
        for _ in range(5):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        out.append(f"{name} {1000 * min(times):.1f} ms")
    print("\none round on 10,000 x 10 (best of 5): " + ", ".join(out))


def interactivity():
    import boost

    X, y = make_data(10_000, 10)
    for label, extra in (("", {}), (", first-order", {"boosting": "first_order"}),
                         (", subsample 0.5 + colsample_bynode 0.5",
                          {"subsample": 0.5, "colsample_bynode": 0.5})):
        times = []
        for _ in range(3):
            start = time.perf_counter()
            boost.train({**PARAMS, "nthread": 0, **extra}, X, y, 100)
            times.append(time.perf_counter() - start)
        print(f"interactivity: retrain 100 rounds on 10,000 x 10{label}: {min(times):.2f} s "
              "(budget 1 s)")
    X, y = make_data(100_000, 20)
    bst = boost.train({**PARAMS, "nthread": 0}, X, y, 100)
    for r in (1, 50, 100):
        views = []
        for _ in range(3):
            start = time.perf_counter()
            bst.round_view(r)
            views.append(time.perf_counter() - start)
        print(f"interactivity: per-row view of round {r} on 100,000 rows: "
              f"{1000 * min(views):.0f} ms (budget 50 ms)")


# ------------------------------------------------------------------ the ms-per-round table
TABLE_SIZES = "1000x10,5000x10,10000x10,100000x20,1000000x28"


def _repeats_for(n_samples: int, repeats: int) -> int:
    """More runs where one is short (a small table's run is milliseconds: noise is large)."""
    return repeats if n_samples >= 100_000 or SMOKE else max(repeats, 15)


def round_table(sizes: str, rounds: int, repeats: int, tasks: list[str]) -> None:
    """ms per round of each library at each size and task, and BoostScope / the faster
    peer; then BoostScope's trees against XGBoost's (identical?)."""
    global TASK

    warm(*make_data(200, 5))
    lightgbm = "lightgbm" in peers_available(quiet=True)
    rows = []
    for task in tasks:
        TASK = task
        PARAMS["objective"] = TASKS[task][0]
        for size in sizes.split(","):
            n, f = (int(v) for v in size.split("x"))
            X, y = make_data(n, f, regression=task == "regression")
            runs = {"BoostScope": run_boostscope, "XGBoost": run_xgboost}
            if lightgbm:
                runs["LightGBM"] = run_lightgbm
            times = {name: [] for name in runs}
            for fn in runs.values():
                fn(X, y, rounds)  # warm: first-call costs are not a round's
            for _ in range(_repeats_for(n, repeats)):
                for name, fn in runs.items():
                    gc.collect()
                    time.sleep(0.05)  # the last library's OpenMP threads stop spinning
                    start = time.perf_counter()
                    fn(X, y, rounds)
                    times[name].append(time.perf_counter() - start)
            ms = {name: 1000 * min(ts) / rounds for name, ts in times.items()}
            ours = run_boostscope(X, y, min(rounds, 20))
            ref, _ = run_xgboost(X, y, min(rounds, 20))
            same = ours.get_dump() == ref.get_dump(dump_format="json", with_stats=True)
            rows.append((task, size, ms, same))
            print(f"  {task} {size}: " + ", ".join(f"{k} {v:.3f}" for k, v in ms.items())
                  + f" ms/round; trees identical to XGBoost: {same}", flush=True)
    print(f"\nms per round ({rounds} rounds, depth 6, eta 0.1, {THREADS} threads, 256 bins; "
          "dataset construction included; best of interleaved runs)")
    print("| task | size | BoostScope | XGBoost | LightGBM | ÷ faster peer | trees = XGBoost |")
    print("|---|---|---|---|---|---|---|")
    if not lightgbm:
        print("(LightGBM is not installed: its column is left empty and the faster peer is "
              "XGBoost; pip install -r benchmarks/requirements.txt)")
    for task, size, ms, same in rows:
        peer = min(v for k, v in ms.items() if k != "BoostScope")
        n, f = size.split("x")
        label = f"{int(n) // 1000}k×{f}" if int(n) < 1_000_000 else f"{int(n) // 1_000_000}M×{f}"
        lgb_ms = f"{ms['LightGBM']:.3f}" if "LightGBM" in ms else "—"
        print(f"| {task} | {label} | {ms['BoostScope']:.3f} | {ms['XGBoost']:.3f} | "
              f"{lgb_ms} | {ms['BoostScope'] / peer:.2f} | {same} |")


# ------------------------------------------------------------------ where a round goes
# The kernels the depth-wise grower calls, by module; the grower and its root step are run as
# Python (their py_func: the same loop, the same kernels) so each kernel call can be timed.
# ``_search`` is a level's build, subtraction and split search in one parallel pass.
STAGES = {"grower": ("_apply_level", "_partition", "_plan_children", "_add_leaf_values",
                     "_add_split_leaf_values", "_iota", "_search", "drop_unsampled"),
          "nodes": ("_store_gradients", "_build", "_evaluate", "_search")}
DRIVERS = {"grower": ("_grow_depthwise", "grow_root")}


def stage_profile(size: str, rounds: int) -> None:
    """The share of a round's time in each stage: every kernel of the depth-wise grower
    timed (the grower's loop run as Python, ``_grow_depthwise.py_func``), beside the
    gradients, the tree's records and the rest of the loop."""
    from boost import objectives, training
    from boost.hist import grower, nodes

    n, f = (int(v) for v in size.split("x"))
    X, y = make_data(n, f)
    spent, calls = {}, {}
    modules = {"grower": grower, "nodes": nodes}

    def timed(module, name, label=None):
        fn = getattr(module, name)

        def call(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                key = label or name
                spent[key] = spent.get(key, 0.0) + time.perf_counter() - start
                calls[key] = calls.get(key, 0) + 1
        setattr(module, name, call)
        return fn

    saved = [(modules[m], name, timed(modules[m], name))
             for m, names in STAGES.items() for name in names]
    saved += [(objectives, "gradients", timed(objectives, "gradients")),
              (training, "_finish", timed(training, "_finish", "_finish (tree records)")),
              (training.reuse, "hist_data", timed(training.reuse, "hist_data",
                                                  "hist_data (cuts, binned rows)"))]
    for m, names in DRIVERS.items():
        for name in names:
            fn = getattr(modules[m], name)
            saved.append((modules[m], name, fn))
            setattr(modules[m], name, fn.py_func)
    try:
        run_boostscope(X, y, 3)
        best = None
        for _ in range(1 if SMOKE else 3 if n >= 1_000_000 else 7):
            spent.clear()
            calls.clear()
            start = time.perf_counter()
            run_boostscope(X, y, rounds)
            total = time.perf_counter() - start
            if best is None or total < best[0]:
                best = (total, dict(spent), dict(calls))
    finally:
        for module, name, fn in saved:
            setattr(module, name, fn)
    total, spent, calls = best
    start = time.perf_counter()
    run_boostscope(X, y, rounds)
    one_call = time.perf_counter() - start
    print(f"\nstages of {rounds} rounds on {n:,} x {f} (binary, {THREADS} threads): "
          f"{1000 * total / rounds:.3f} ms a round with the timers (the grower's loop as "
          "Python), "
          f"{1000 * one_call / rounds:.3f} ms a round as trained (one call a tree)")
    print("| stage | ms per round | share | calls per round | µs per call |")
    print("|---|---|---|---|---|")
    for name, sec in sorted(spent.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {1000 * sec / rounds:.3f} | {100 * sec / total:.0f} % | "
              f"{calls[name] / rounds:.1f} | {1e6 * sec / calls[name]:.1f} |")
    rest = total - sum(spent.values())
    print(f"| the rest (Python between them) | {1000 * rest / rounds:.3f} | "
          f"{100 * rest / total:.0f} % | | |")


# ------------------------------------------------------------------ one knob move
def retrain_latency(repeats: int, size: str = "10000x10", rounds: int = 100) -> None:
    """One retrain of ``rounds`` rounds at ``size`` (10k x 10) with eta moved, on data already
    trained on: what the app's live knobs cost."""
    import xgboost as xgb

    import boost

    n, f = (int(v) for v in size.split("x"))
    X, y = make_data(n, f)
    boost.train({**PARAMS, "eta": 0.3}, X, y, rounds)  # the data seen once: its cuts kept
    dtrain = xgb.DMatrix(X, label=y, nthread=THREADS)
    xgb.train({**PARAMS, "eta": 0.3}, dtrain, rounds)  # its quantised matrix built once
    runs = {
        "BoostScope (cuts kept)": lambda eta: boost.train({**PARAMS, "eta": eta}, X, y, rounds),
        "XGBoost (the same DMatrix)": lambda eta: xgb.train({**PARAMS, "eta": eta}, dtrain,
                                                            rounds),
    }
    if "lightgbm" in peers_available():
        import lightgbm as lgb

        dataset = lgb.Dataset(X, label=y, free_raw_data=False,
                              params={"max_bin": 255, "verbose": -1, "min_data_in_leaf": 1,
                                      "feature_pre_filter": False}).construct()
        lgb_params = {"objective": "binary", "learning_rate": 0.3, "max_depth": 6,
                      "num_leaves": 64, "num_threads": THREADS, "min_data_in_leaf": 1,
                      "min_sum_hessian_in_leaf": 1.0, "lambda_l2": 1.0, "verbose": -1,
                      "deterministic": True, "force_row_wise": True}
        runs["LightGBM (the same Dataset)"] = lambda eta: lgb.train(
            {**lgb_params, "learning_rate": eta}, dataset, rounds)
    times = {name: [] for name in runs}
    repeats = repeats if SMOKE else max(repeats, 15)
    for i in range(repeats):
        eta = (0.1, 0.2)[i % 2]  # a knob move every run
        for name, fn in runs.items():
            time.sleep(0.05)  # the last library's OpenMP threads stop spinning
            start = time.perf_counter()
            fn(eta)
            times[name].append(time.perf_counter() - start)
    best = {name: 1000 * min(ts) for name, ts in times.items()}
    xgb_ms = best["XGBoost (the same DMatrix)"]
    print(f"\none retrain at {n:,} x {f}, {rounds} rounds, eta moved (best of {repeats}):")
    for name, ms in best.items():
        print(f"  {name:<28} {ms:7.1f} ms   {ms / xgb_ms:.2f}x XGBoost")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000x20,1000000x28")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--repeats", type=int, default=3,
                        help="interleaved runs per library; the best time is reported")
    parser.add_argument("--skip-compile", action="store_true")
    parser.add_argument("--task", choices=list(TASKS), default="binary",
                        help="binary (binary:logistic) or regression (reg:squarederror)")
    parser.add_argument("--table", action="store_true",
                        help=f"ms per round at {TABLE_SIZES} (or --sizes), binary and "
                             "regression, and the ratio to the faster peer")
    parser.add_argument("--profile", action="store_true",
                        help="the share of each stage of a round at 10k x 10 and 1M x 28")
    parser.add_argument("--retrain", action="store_true",
                        help="one retrain with eta moved at 10k x 10 (cuts kept)")
    parser.add_argument("--smoke", action="store_true",
                        help="the smallest run of the chosen mode: 1000x5 (2000x5 for the "
                             "profile and the retrain), 5 to 10 rounds, one run each, no "
                             "compile timing")
    args = parser.parse_args()
    global TASK, SMOKE
    SMOKE = args.smoke
    if SMOKE:
        args.sizes, args.rounds, args.repeats, args.skip_compile = "1000x5", 5, 1, True
    if args.table or args.profile or args.retrain:
        print(f"CPU: {_cpu()}, {THREADS} threads")
        if args.table:
            sizes = (TABLE_SIZES if args.sizes == parser.get_default("sizes") else
                     args.sizes)
            round_table(sizes, args.rounds, args.repeats, ["binary", "regression"])
        if args.profile:
            for size in ("2000x5",) if SMOKE else ("10000x10", "1000000x28"):
                stage_profile(size, args.rounds)
        if args.retrain:
            retrain_latency(args.repeats, *(("2000x5", 10) if SMOKE else ()))
        return
    TASK = args.task
    PARAMS["objective"] = TASKS[TASK][0]
    if not args.skip_compile:
        cold, warm = compile_times()
        print(f"boost.warmup() (every kernel of every method): cold cache {cold:.1f} s, "
              f"warm cache {warm:.1f} s")
    peers = peers_available()
    for size in args.sizes.split(","):
        n, f = (int(v) for v in size.split("x"))
        bench_size(n, f, args.rounds, peers, args.repeats)
    if SMOKE:
        print("(--smoke: the one-round latency and the interactivity lines are left out)")
        return
    round_latency(peers)
    interactivity()


if __name__ == "__main__":
    main()
