"""The server's shared memory (``ui.memory``): entries dropped least recently used first
once their bytes pass the kind's budget, the newest kept, each made once however many
sessions ask at once, failures not kept; a model's bytes counted with what its trace keeps."""

import threading
import time

import numpy as np
import pytest

import boost
from ui import memory


@pytest.fixture()
def small(monkeypatch):
    monkeypatch.setitem(memory.BUDGETS, "sweeps", 1)  # 1 MiB
    monkeypatch.delenv(memory.SCALE_VARIABLE, raising=False)
    return memory.Shared("sweeps")


def _mib(n: float) -> np.ndarray:
    return np.zeros(int(n * memory.MIB), dtype=np.uint8)


def test_entries_go_least_recently_used_first_by_bytes(small):
    small.get("a", lambda: _mib(0.4))
    small.get("b", lambda: _mib(0.4))
    assert small.peek("a") is not None  # a used: b is now the oldest
    small.get("c", lambda: _mib(0.4))  # 1.2 MiB > 1 MiB: b goes
    assert small.peek("b") is None and small.peek("a") is not None
    assert small.nbytes() == int(0.4 * memory.MIB) * 2
    small.get("huge", lambda: _mib(3))  # over the budget alone: kept, the rest go
    assert len(small) == 1 and small.peek("huge") is not None


def test_an_entry_is_made_once_for_sessions_asking_at_once(small):
    made = []

    def make():
        made.append(1)
        time.sleep(0.2)
        return _mib(0.1)

    threads = [threading.Thread(target=small.get, args=("k", make)) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert made == [1]


def test_a_failure_is_not_kept(small):
    with pytest.raises(ValueError):
        small.get("k", lambda: (_ for _ in ()).throw(ValueError("no")))
    assert small.peek("k") is None
    assert small.get("k", lambda: _mib(0.1)).nbytes == int(0.1 * memory.MIB)


def test_the_budgets_scale_to_the_servers_figure(monkeypatch):
    monkeypatch.setenv(memory.SCALE_VARIABLE, "800")
    total = sum(memory.BUDGETS.values())
    assert memory.budget("models") == int(800 * 1024 / total * memory.MIB)
    monkeypatch.setenv(memory.SCALE_VARIABLE, "lots")
    assert memory.budget("models") == 1024 * memory.MIB


def test_a_models_bytes_grow_with_what_its_trace_keeps():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5000, 8)).astype(np.float32)
    y = X[:, 0] + rng.normal(size=5000).astype(np.float32)
    bst = boost.train({"tree_method": "exact", "max_depth": 3}, X, y, 5)
    # by hand: the trace keeps X (5000 x 8 float32), y and the trees' arrays at least
    assert bst.nbytes >= X.nbytes + y.nbytes
    before = bst.nbytes
    bst.trace.node_detail(2, 0, 0)
    assert bst.nbytes > before
