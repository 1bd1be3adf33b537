"""BoostScope exact vs XGBoost exact, in one process on the same data.

Prints wall time of 100 rounds (depth 6, eta 0.1, 2 threads, binary:logistic) for each
data size — the best of ``--repeats`` runs of each library, interleaved (the machine is
shared) —, the ratio XGBoost / BoostScope, the largest margin difference (the two must
agree), and numba's compile time with a cold and a warm on-disk cache. Then the time of
``split_candidates`` for the root of a model on ``--candidates`` data (100k x 30: every
candidate split of 30 features, about 3 million rows of table; the first call also sorts the
training rows once).

    python benchmarks/bench_exact.py                 # 10k x 10 and 100k x 20
    python benchmarks/bench_exact.py --sizes 10000x10 --rounds 20
    python benchmarks/bench_exact.py --smoke         # 1k x 5, 5 rounds, no compile (seconds)
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from common import ROOT, compile_times, make_data

sys.path.insert(0, str(ROOT))

PARAMS = {"tree_method": "exact", "objective": "binary:logistic", "max_depth": 6, "eta": 0.1,
          "nthread": 2}


def bench(n_samples: int, n_features: int, rounds: int, repeats: int) -> dict:
    import xgboost as xgb

    import boost

    X, y = make_data(n_samples, n_features)
    boost.train(PARAMS, X[:200], y[:200], 2)  # compile (or load from cache) first
    t_ours, t_xgb = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        ours = boost.train(PARAMS, X, y, rounds)
        t_ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        dtrain = xgb.DMatrix(X, label=y)
        ref = xgb.train(PARAMS, dtrain, rounds)
        t_xgb.append(time.perf_counter() - t)
    diff = np.abs(ours.predict(X, output_margin=True)
                  - ref.predict(dtrain, output_margin=True)).max()
    same = ours.get_dump() == ref.get_dump(dump_format="json", with_stats=True)
    return {"size": f"{n_samples}x{n_features}", "boostscope_s": min(t_ours),
            "xgboost_s": min(t_xgb), "ratio": min(t_xgb) / min(t_ours),
            "max_margin_diff": float(diff), "identical_trees": same,
            "runs": " ".join(f"{a:.2f}/{b:.2f}" for a, b in zip(t_ours, t_xgb, strict=True))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000x10,100000x20")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3,
                        help="interleaved runs per library; the best time is reported")
    parser.add_argument("--skip-compile", action="store_true")
    parser.add_argument("--candidates", default="100000x30",
                        help="data for split_candidates' timing (empty: skip)")
    parser.add_argument("--smoke", action="store_true", help="the smallest run: 1000x5, "
                        "5 rounds, one run each, no compile timing, candidates on 2000x5")
    args = parser.parse_args()
    if args.smoke:
        args.sizes, args.rounds, args.repeats = "1000x5", 5, 1
        args.skip_compile, args.candidates = True, "2000x5"
        print("--smoke: compile times skipped (a cold cache takes minutes)")
    if not args.skip_compile:
        cold, warm = compile_times()
        print(f"compile + first run of every kernel: cold cache {cold:.1f} s, "
              f"warm cache {warm:.1f} s")
    print(f"{'data':>12} {'BoostScope':>11} {'XGBoost':>9} {'XGB/BS':>7} "
          f"{'max|dmargin|':>13} {'same trees':>10}  runs (BoostScope/XGBoost)")
    for size in args.sizes.split(","):
        n, f = (int(v) for v in size.split("x"))
        r = bench(n, f, args.rounds, args.repeats)
        print(f"{r['size']:>12} {r['boostscope_s']:>10.2f}s {r['xgboost_s']:>8.2f}s "
              f"{r['ratio']:>6.2f}x {r['max_margin_diff']:>13.2e} {str(r['identical_trees']):>10}"
              f"  [{r['runs']}]")
    if args.candidates:
        n, f = (int(v) for v in args.candidates.split("x"))
        first, times, rows = candidates_times(n, f)
        print(f"split_candidates of the root, {n:,} x {f}: {rows:,} candidates; first call "
              f"{first * 1000:.0f} ms (sorts the rows once), then "
              + ", ".join(f"{t * 1000:.0f}" for t in times) + " ms")


def candidates_times(n_samples: int, n_features: int, repeats: int = 5):
    """(the first call's seconds, the next calls', the table's rows) for the root of each
    round of a 6-round exact model."""
    import boost

    X, y = make_data(n_samples, n_features)
    bst = boost.train(PARAMS, X, y, repeats + 1)
    start = time.perf_counter()
    bst.split_candidates(1, 0)
    first = time.perf_counter() - start
    times = []
    for r in range(2, repeats + 2):
        start = time.perf_counter()
        table = bst.split_candidates(r, 0)
        times.append(time.perf_counter() - start)
    return first, times, len(table)


if __name__ == "__main__":
    main()
