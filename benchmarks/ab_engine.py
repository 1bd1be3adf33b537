"""A/B of the engine itself: this checkout against another commit, on the same data, in one run.

Each side trains in its own process (both packages are called ``boost``), alternating A, B,
A, B, ... so that the machine's drift hits both alike; each process trains ``--trains``
models after a warm-up and reports each one's time. Prints the medians and min/max per side,
the ratio B / A, and whether the two sides' dumps are string-equal (they must be).

    python benchmarks/ab_engine.py --base 8238eb7                  # exact, 100k x 20
    python benchmarks/ab_engine.py --base HEAD~3 --method hist --size 200000x28
    python benchmarks/ab_engine.py --smoke      # HEAD against itself, 300 x 4, 3 rounds, one
                                                # pair, as plain Python (NUMBA_DISABLE_JIT=1:
                                                # the other commit's checkout has no compiled
                                                # cache, and compiling it takes minutes)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import ROOT

_SIDE = """
import json, sys, time, hashlib
sys.path.insert(0, {root!r}); sys.path.insert(0, {bench!r})
import boost
from common import make_data
X, y = make_data({n}, {f})
params = {{"tree_method": {method!r}, "objective": "binary:logistic", "max_depth": 6,
          "eta": 0.1, "nthread": 2}}
boost.train(params, X[:2000], y[:2000], 2)  # compile or load the kernels
times = []
for _ in range({trains}):
    t = time.perf_counter()
    bst = boost.train(params, X, y, {rounds})
    times.append(time.perf_counter() - t)
digest = hashlib.sha256("".join(bst.get_dump()).encode()).hexdigest()
print(json.dumps({{"times": times, "dump": digest}}))
"""


def side(root: Path, args, n: int, f: int) -> dict:
    code = _SIDE.format(root=str(root), bench=str(ROOT / "benchmarks"), n=n, f=f,
                        method=args.method, trains=args.trains, rounds=args.rounds)
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"} if args.smoke else None
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=root, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="the commit to compare against (A)")
    parser.add_argument("--method", default="exact")
    parser.add_argument("--size", default="100000x20")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--trains", type=int, default=3, help="models per process")
    parser.add_argument("--pairs", type=int, default=3, help="A, B process pairs")
    parser.add_argument("--smoke", action="store_true", help="the smallest run: --base HEAD "
                        "(unless given), 300 x 4, 3 rounds, one training a side, as plain "
                        "Python (the script's path, not the engine's speed)")
    args = parser.parse_args()
    if args.smoke:
        args.base = args.base or "HEAD"
        args.size, args.rounds, args.trains, args.pairs = "300x4", 3, 1, 1
    if not args.base:
        parser.error("--base is required")
    n, f = (int(v) for v in args.size.split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(base),
                        args.base], check=True)
        try:
            runs = {"A": [], "B": []}
            dumps = set()
            for _ in range(args.pairs):
                for name, root in (("A", base), ("B", ROOT)):
                    result = side(root, args, n, f)
                    runs[name] += result["times"]
                    dumps.add(result["dump"])
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(base)], check=True)
    print(f"{args.method} {n} x {f}, {args.rounds} rounds, depth 6, 2 threads; "
          f"A = {args.base}, B = this checkout; {len(runs['A'])} trainings each"
          + ("; plain Python (NUMBA_DISABLE_JIT=1, --smoke)" if args.smoke else ""))
    for name in ("A", "B"):
        t = runs[name]
        print(f"  {name}: median {statistics.median(t):.3f} s (min {min(t):.3f}, "
              f"max {max(t):.3f})  [{' '.join(f'{x:.2f}' for x in t)}]")
    ratio = statistics.median(runs["B"]) / statistics.median(runs["A"])
    print(f"  B / A = {ratio:.3f} (medians); same trees: {len(dumps) == 1}")


if __name__ == "__main__":
    main()
