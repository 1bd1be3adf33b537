"""The engine from several threads at once on numba's ``workqueue`` layer, which is not
thread-safe (without the engine's lock, two threads launching parallel kernels end the
process): trainings, predictions, cross-validation and trace answers running together finish
with the models one-at-a-time runs make. The layer is read when numba starts its threads,
so each case runs in a subprocess."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CONCURRENT = """
import json, threading
import numpy as np
import boost
from boost import layer

rng = np.random.default_rng(0)
X = rng.normal(size=(20_000, 10)); y = X[:, 0] + rng.normal(size=20_000)
params = [{"tree_method": m, "max_depth": d} for m, d in
          (("hist", 5), ("exact", 4), ("approx", 3))]

def work(p):
    bst = boost.train(p, X, y, 15, evals=[(X[:2000], y[:2000], "valid")])
    margins = bst.predict(X, output_margin=True)
    summary = bst.candidate_summary(3, 0).table.Gain.to_numpy()
    folds = boost.cv(p, X[:4000], y[:4000], 5, nfold=3)
    return (bst.get_dump("json"), margins.tobytes(), summary.tobytes(),
            folds.to_numpy().tobytes())

together = {}
def run(i):
    together[i] = work(params[i])
threads = [threading.Thread(target=run, args=(i,)) for i in range(3) for _ in [0]]
threads += [threading.Thread(target=run, args=(i,)) for i in range(3)]  # 6 at once
for t in threads: t.start()
for t in threads: t.join()
alone = [work(p) for p in params]
print(json.dumps({"layer": layer.layer(), "safe": layer.thread_safe(),
                  "advice": layer.advice(),
                  "same": all(together[i] == alone[i] for i in range(3))}))
"""


def _run(threading_layer: str) -> dict:
    import json

    env = {**os.environ, "NUMBA_THREADING_LAYER": threading_layer}
    done = subprocess.run([sys.executable, "-c", CONCURRENT], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]  # workqueue without the lock: aborts
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_concurrent_engine_calls_on_the_workqueue_layer_take_turns():
    out = _run("workqueue")
    assert out["layer"] == "workqueue" and out["safe"] is False
    assert out["same"]  # trees, margins, candidates and cv tables as one at a time
    assert "apt-get install libgomp1" in out["advice"] and "NUMBA_THREADING_LAYER=omp" in out[
        "advice"]


def test_on_openmp_the_engine_runs_concurrently_and_gives_the_same_models():
    out = _run("omp")
    assert out["layer"] == "omp" and out["safe"] is True and out["advice"] is None
    assert out["same"]


def test_cpu_share_is_the_containers_quota_rounded_up(tmp_path):
    from boost.layer import cpu_share

    cores = len(os.sched_getaffinity(0))
    cpu_max = tmp_path / "cpu.max"
    cpu_max.write_text("150000 100000\n")  # 1.5 cores: 2 threads
    assert cpu_share(str(cpu_max)) == min(cores, 2)
    cpu_max.write_text("50000 100000\n")  # half a core: still one thread
    assert cpu_share(str(cpu_max)) == 1
    cpu_max.write_text("max 100000\n")  # no quota: the affinity
    assert cpu_share(str(cpu_max)) == cores
    assert cpu_share(str(tmp_path / "missing")) == cores


def test_a_node_record_is_built_on_one_thread_and_the_count_restored(monkeypatch):
    """A click's answer (``ui.nodes.page_node``/``page_chart``) runs the candidate kernels on
    one of numba's threads (``layer.threads(1)``), and the caller's count is back after."""
    import numba
    import numpy as np

    import boost
    from boost.trace import candidates
    from ui.nodes import page_chart, page_node

    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 4))
    y = X[:, 0] + 0.1 * rng.normal(size=400)
    bst = boost.train({"tree_method": "exact", "max_depth": 2}, X, y, 2)
    seen = []
    for name in ("_summarize", "_enumerate"):
        kernel = getattr(candidates, name)
        monkeypatch.setattr(candidates, name, lambda *a, k=kernel: (
            seen.append(numba.get_num_threads()), k(*a))[1])
    before = numba.get_num_threads()
    record = page_node(bst, X, 2, 0)
    page_chart(bst, 2, 1, 0, record["features"][-1])
    assert seen and set(seen) == {1}
    assert numba.get_num_threads() == before
