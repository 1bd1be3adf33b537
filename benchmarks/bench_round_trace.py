"""The round trace's size and build time (docs/player.md).

For each case: train (depth 6, 100 rounds, binary:logistic, 2 threads), then time
``trace.rounds`` (every round's fit on ``sample_rows``' 500 drawn rows or the surface's
mesh, and the trees as the tree track's columns; the trees' table, kept once a model, is
built first and timed apart) and ``viz.round_trace.round_trace``, and print the trace's JSON size,
in all and per 100 rounds, with its window.

    python benchmarks/bench_round_trace.py                  # 10k and 100k x 30, a surface
    python benchmarks/bench_round_trace.py --sizes 10000x30 --methods hist
    python benchmarks/bench_round_trace.py --smoke          # 1k x 5 and 1k x 2, 5 rounds
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from common import ROOT, make_data

sys.path.insert(0, str(ROOT))

PARAMS = {"objective": "binary:logistic", "max_depth": 6, "eta": 0.1, "nthread": 2}


def bench(n_samples: int, n_features: int, method: str, rounds: int) -> dict:
    import boost
    from viz.round_trace import round_trace
    from viz.theme import sample_rows

    X, y = make_data(n_samples, max(n_features, 4))
    X = X[:, :n_features]
    start = time.perf_counter()
    model = boost.train({**PARAMS, "tree_method": method}, X, y, rounds)
    train_s = time.perf_counter() - start
    start = time.perf_counter()
    model.trace.trees()
    trees_s = time.perf_counter() - start
    start = time.perf_counter()
    data = model.trace.rounds(X, y, sample_rows(len(X)))
    rounds_s = time.perf_counter() - start
    start = time.perf_counter()
    trace = round_trace(data, model.loss_history(), model.metric_name, None, model.params,
                        model_key="bench")
    text = json.dumps(trace)
    trace_s = time.perf_counter() - start
    parts = {k: len(json.dumps(trace[k])) for k in ("fit", "loss", "tree")}
    return {"case": f"{n_samples // 1000}k x {n_features} {method}", "kind": data.kind,
            "train_s": train_s, "trees_s": trees_s, "rounds_s": rounds_s,
            "trace_s": trace_s, "bytes": len(text),
            "per100": len(text) * 100 / rounds, "window": trace["window"],
            "nodes": len(data.trees.columns["node"]), **parts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000x30,100000x30")
    parser.add_argument("--methods", default="hist,exact")
    parser.add_argument("--surface", default="10000x2", help="a 2-feature case ('' for none)")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--smoke", action="store_true",
                        help="the smallest run: 1000x5 hist and exact, 1000x2, 5 rounds")
    args = parser.parse_args()
    if args.smoke:
        args.sizes, args.surface, args.rounds = "1000x5", "1000x2", 5
    cases = [(*map(int, s.split("x")), m) for s in args.sizes.split(",")
             for m in args.methods.split(",")]
    if args.surface:
        cases.append((*map(int, args.surface.split("x")), "hist"))
    bench(2000, 4, "hist", 3)  # numba's compile, not measured
    print(f"{'case':<20}{'kind':<9}{'train s':>8}{'trees s':>8}{'rounds s':>9}{'trace s':>8}"
          f"{'nodes':>7}{'MB':>7}{'MB/100r':>8}{'fit MB':>7}{'tree MB':>8}  window")
    for n, f, method in cases:
        r = bench(n, f, method, args.rounds)
        print(f"{r['case']:<20}{r['kind']:<9}{r['train_s']:>8.2f}{r['trees_s']:>8.2f}"
              f"{r['rounds_s']:>9.3f}{r['trace_s']:>8.3f}{r['nodes']:>7}"
              f"{r['bytes'] / 1e6:>7.2f}{r['per100'] / 1e6:>8.2f}{r['fit'] / 1e6:>7.2f}"
              f"{r['tree'] / 1e6:>8.2f}  {r['window']}", flush=True)


if __name__ == "__main__":
    main()
