"""boost.sweep vs one xgboost.train per grid point, in one process, on the same data.

    python benchmarks/bench_sweep.py                 # the issue's two figures
    python benchmarks/bench_sweep.py --repeats 1 --rows 5000
    python benchmarks/bench_sweep.py --smoke         # 1k rows, 10 rounds, 4 + 4 points

Synthetic binary classification, 10k x 10, a validation set of 2k rows; hist, depth 6, 256
bins, 2 threads, 100 rounds. Every contender computes the training and the validation loss
after every round (the sweep's rows hold both).

1. A 20-point 1-D sweep over eta (0.01 to 1, log-spaced): ``boost.sweep`` against 20
   sequential ``xgboost.train`` calls with the same parameters (the DMatrix of the training
   and validation data built once; ``nthread=2`` for each call; also with a DMatrix built per
   call, as a loop over ``XGBClassifier(...).fit`` does) and against 20 sequential
   ``boost.train`` calls. The ratio column and the goal use the DMatrix built once. The
   sweep shares the cuts and the data checks between the points and runs two points at a
   time, one thread each.
2. A 6 x 6 grid (max_depth x min_child_weight) x 100 rounds: the sweep's wall time (goal
   <= 10 s on 2 cores) and 36 xgboost.train calls for the ratio.

Each contender runs ``--repeats`` times, interleaved, and its best time counts (the machine
is shared). Every sweep point's validation losses are checked against XGBoost's.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time

import numpy as np
from common import ROOT, make_data

sys.path.insert(0, str(ROOT))

THREADS = 2
ROUNDS = 100
PARAMS = {"tree_method": "hist", "objective": "binary:logistic", "max_depth": 6,
          "max_bin": 256, "nthread": THREADS}


def _xgb_runs(xgb, dtrain, dvalid, points, data=None):
    """One xgboost.train per point; with ``data`` (X, y, Xv, yv) each call builds its own
    DMatrix first, as a loop of ``XGBClassifier(...).fit(X, y)`` does."""
    results = []
    for point in points:
        if data is not None:
            X, y, Xv, yv = data
            dtrain, dvalid = xgb.DMatrix(X, label=y), xgb.DMatrix(Xv, label=yv)
        result = {}  # the sweep reports both losses every round: XGBoost computes both too
        xgb.train({**PARAMS, **point}, dtrain, ROUNDS, evals=[(dtrain, "train"),
                                                              (dvalid, "valid")],
                  evals_result=result, verbose_eval=False)
        results.append(result["valid"]["logloss"])
    return results


def _points(grid):
    keys = list(grid)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*grid.values())]


def _compare(title, grid, X, y, Xv, yv, repeats, goal_seconds=None, goal_ratio=None):
    import xgboost as xgb

    import boost

    points = _points(grid)
    dtrain, dvalid = xgb.DMatrix(X, label=y), xgb.DMatrix(Xv, label=yv)
    times = {"boost.sweep": [], "xgboost.train x N": [], "  (DMatrix per call)": [],
             "boost.train x N": []}
    frame = ref = None
    for _ in range(repeats):
        t = time.perf_counter()
        frame = boost.sweep(PARAMS, X, y, grid, ROUNDS, evals=[(Xv, yv, "valid")])
        times["boost.sweep"].append(time.perf_counter() - t)
        t = time.perf_counter()
        ref = _xgb_runs(xgb, dtrain, dvalid, points)
        times["xgboost.train x N"].append(time.perf_counter() - t)
        t = time.perf_counter()
        _xgb_runs(xgb, None, None, points, (X, y, Xv, yv))
        times["  (DMatrix per call)"].append(time.perf_counter() - t)
        t = time.perf_counter()
        for point in points:
            boost.train({**PARAMS, **point}, X, y, ROUNDS, evals=[(Xv, yv, "valid")])
        times["boost.train x N"].append(time.perf_counter() - t)
    worst = max(float(np.max(np.abs(frame[frame["point"] == i]["valid-logloss"].to_numpy()
                                     - np.array(r)) / np.array(r)))
                for i, r in enumerate(ref))
    best = {k: min(v) for k, v in times.items()}
    base = best["xgboost.train x N"]
    print(f"\n{title}: {len(points)} points x {ROUNDS} rounds, {X.shape[0]:,} x {X.shape[1]}")
    print(f"  {'':22s} {'best s':>8s} {'vs XGBoost':>11s}")
    for name, seconds in best.items():
        print(f"  {name:22s} {seconds:8.3f} {seconds / base:10.3f}x")
    print(f"  valid-logloss, largest relative difference to XGBoost over every point and "
          f"round: {worst:.2e}")
    if goal_ratio is not None:
        ratio = best["boost.sweep"] / base
        print(f"  goal: sweep <= {goal_ratio}x XGBoost -> {ratio:.3f}x "
              f"{'met' if ratio <= goal_ratio else 'NOT met'}")
    if goal_seconds is not None:
        s = best["boost.sweep"]
        print(f"  goal: sweep <= {goal_seconds} s -> {s:.2f} s "
              f"{'met' if s <= goal_seconds else 'NOT met'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--smoke", action="store_true",
                        help="the smallest run: 1000 rows, 10 rounds, one run each, 4 η "
                             "values and a 2 x 2 grid")
    args = parser.parse_args()
    global ROUNDS
    if args.smoke:
        args.rows, args.repeats, ROUNDS = 1_000, 1, 10
    import boost

    X, y = make_data(args.rows, 10, seed=0)
    Xv, yv = make_data(2_000, 10, seed=1)
    boost.sweep(PARAMS, X, y, {"eta": [0.3]}, 2, evals=[(Xv, yv, "valid")])  # compile first
    etas = [float(v) for v in np.round(np.geomspace(0.01, 1.0, 4 if args.smoke else 20), 4)]
    _compare("1-D sweep over eta", {"eta": etas}, X, y, Xv, yv, args.repeats, goal_ratio=0.5)
    grid = {"max_depth": [1, 2, 3, 4, 6, 8], "min_child_weight": [0.5, 1, 2, 4, 8, 16]}
    if args.smoke:
        grid = {k: v[:2] for k, v in grid.items()}
    _compare(f"{len(grid['max_depth'])} x {len(grid['min_child_weight'])} grid (max_depth x "
             "min_child_weight)", grid, X, y, Xv, yv, args.repeats,
             goal_seconds=10)


if __name__ == "__main__":
    main()
