"""boost.trace: one question per node answered once per model, and the model's cache bounded
in bytes (least recently used answers dropped first)."""

import numpy as np
import pandas as pd
import pytest
from datasets import make_data

import boost
from boost.trace import ByteCache
from boost.trace.cache import size_of


def test_cache_keeps_answers_within_its_bytes_dropping_the_least_recent():
    cache = ByteCache(budget=10_000)
    calls = []

    def block(name, n):
        def compute():
            calls.append(name)
            return np.zeros(n, dtype=np.uint8)
        return compute

    a = cache.get("a", block("a", 4_000))
    assert cache.get("a", block("a", 4_000)) is a and calls == ["a"]  # kept: computed once
    cache.get("b", block("b", 4_000))
    cache.get("a", block("a", 4_000))  # a is now the most recent
    cache.get("c", block("c", 4_000))  # 12,000 bytes > 10,000: b, the least recent, goes
    assert cache.nbytes == 8_000 and len(cache) == 2
    cache.get("a", block("a", 4_000))
    cache.get("b", block("b", 4_000))
    assert calls == ["a", "b", "c", "b"]
    big = cache.get("big", block("big", 20_000))  # larger than the budget: answered, not kept
    assert big.nbytes == 20_000 and cache.nbytes <= 10_000 and "big" not in cache._items


@pytest.mark.parametrize("kept", [False, True])
def test_an_answer_asked_for_while_it_is_computed_is_computed_once(kept):
    """Two threads asking for one answer at once (a click's record and chart both need the
    node's gain curve): one computes, the other waits for that answer; an answer whose
    computing failed is computed again by the thread that waited."""
    import threading

    cache = ByteCache(budget=10_000)
    ask = cache.keep if kept else cache.get
    started, release, calls = threading.Event(), threading.Event(), []

    def slow():
        calls.append(threading.current_thread().name)
        started.set()
        release.wait(5)
        return np.arange(10)

    answers = {}
    first = threading.Thread(target=lambda: answers.setdefault("a", ask("k", slow)), name="a")
    first.start()
    started.wait(5)
    second = threading.Thread(target=lambda: answers.setdefault("b", ask("k", slow)), name="b")
    second.start()
    second.join(0.2)
    assert second.is_alive()  # waiting for the first thread's answer, not computing its own
    release.set()
    first.join(5)
    second.join(5)
    assert calls == ["a"] and answers["a"] is answers["b"]

    failed = threading.Event()

    def fails():
        started.set()
        failed.wait(5)
        raise RuntimeError("no")

    started.clear()
    out = []
    first = threading.Thread(target=lambda: pytest.raises(RuntimeError, ask, "bad", fails))
    first.start()
    started.wait(5)
    second = threading.Thread(target=lambda: out.append(ask("bad", lambda: "again")))
    second.start()
    second.join(0.2)
    failed.set()
    first.join(5)
    second.join(5)
    assert out == ["again"]


def test_size_of_counts_buffers_of_records_and_frames():
    frame = pd.DataFrame({"a": np.zeros(1000), "b": np.zeros(1000, dtype=np.float32)})
    assert size_of(np.zeros((10, 10))) == 800
    assert size_of(frame) >= 12_000
    assert size_of((np.zeros(100), {"x": np.zeros(50)})) >= 1200


@pytest.mark.parametrize("tree_method", ["exact", "hist", "approx"])
def test_node_detail_matches_the_booster_api_and_is_answered_once(tree_method):
    X, y = make_data(seed=3, n=300, nan=0.1)
    bst = boost.train({"tree_method": tree_method, "max_depth": 3, "gamma": 0.5}, X, y, 3)
    detail = bst.trace.node_detail(2, 1, X=X)
    tree = bst.trees_to_dataframe(include_pruned=True)
    row = tree[(tree.Round == 2) & (tree.Node == 1)].iloc[0]
    pd.testing.assert_series_equal(detail.numbers, row, check_names=False)
    # the node's rows: the trace's G and H are their sums
    assert detail.rows.g.sum() == pytest.approx(row.SumGrad, rel=1e-5, abs=1e-5)
    assert detail.rows.h.sum() == pytest.approx(row.SumHess, rel=1e-5)
    np.testing.assert_array_equal(detail.rows.Row, np.flatnonzero(bst.rows_in_node(2, 1)))
    # the summary is the Booster's, and its best the whole table's
    whole = bst.split_candidates(2, 1)
    pd.testing.assert_frame_equal(detail.summary.table, bst.candidate_summary(2, 1).table)
    if whole.Best.any():
        best = whole[whole.Best].iloc[0]
        assert (detail.best.Feature, detail.best.Threshold, detail.best.Gain) == (
            best.Feature, best.Threshold, best.Gain)
    # each curve holds that feature's splitting candidates of the whole table
    for feature in detail.features:
        curve = detail.curves[feature]
        part = whole[(whole.Feature == feature) & (whole.CountLeft > 0) & (whole.CountRight > 0)]
        assert len(curve) == len(part)  # 300 rows: fewer than a screen's points, none thinned
        assert sorted(curve.Gain.dropna()) == pytest.approx(sorted(part.Gain.dropna()))
    assert (detail.bin_ranges is None) == (tree_method == "exact")
    # asked again, by any view: the same answers, not recomputed
    again = bst.trace.node_detail(2, 1, X=X)
    assert again.summary is detail.summary and again.rows is detail.rows
    assert again.curves[detail.features[0]] is detail.curves[detail.features[0]]


def test_node_detail_refuses_a_node_the_tree_does_not_have():
    X, y = make_data(seed=3, n=100)
    bst = boost.train({"max_depth": 1}, X, y, 1)
    with pytest.raises(ValueError, match="is not a node of tree 0"):
        bst.trace.node_detail(1, 7)


def test_kept_answers_are_never_dropped():
    cache = ByteCache(budget=1_000)
    sorted_columns = cache.keep("sorted", lambda: np.zeros(5_000, dtype=np.uint8))  # > budget
    for i in range(5):
        cache.get(i, lambda: np.zeros(600, dtype=np.uint8))  # each drops the one before
    assert cache.keep("sorted", lambda: None) is sorted_columns
    assert cache.nbytes == 5_000 + 600


def test_the_booster_hands_out_copies_of_shared_answers():
    """A model is shared by every session that trained it: what one caller does to an answer
    of the public API must not change what the next caller gets."""
    X, y = make_data(seed=4, n=200)
    bst = boost.train({"tree_method": "hist", "max_depth": 3}, X, y, 2)
    mask = bst.rows_in_node(2, 1)
    expected = mask.copy()
    mask[:] = False
    np.testing.assert_array_equal(bst.rows_in_node(2, 1), expected)
    g, h, _ = bst.tree_gradients(2)
    g0 = g.copy()
    g *= 0
    np.testing.assert_array_equal(bst.tree_gradients(2)[0], g0)
    table = bst.candidate_summary(2, 0).table
    gains = table.Gain.copy()
    table["Gain"] = 0.0
    pd.testing.assert_series_equal(bst.candidate_summary(2, 0).table.Gain, gains)


def test_thin_keeps_each_runs_extremes_the_best_and_the_blocking_edges():
    from boost.trace.nodes import thin
    n = 5000
    x = np.arange(n, dtype=float)
    gain = np.sin(x / 300.0) * 10 + (x % 7)  # wiggles inside every run
    valid = np.ones(n, dtype=bool)
    valid[1200:1300] = False
    best = np.zeros(n, dtype=bool)
    best[4321] = True
    frame = pd.DataFrame({"Threshold": x, "Gain": gain, "Valid": valid, "Best": best})
    kept = thin(frame, points=600)
    assert len(kept) <= 600 + 1 + 4 and kept.Best.sum() == 1  # + the best, 2 edges x 2
    assert {1199, 1200, 1299, 1300} <= set(kept.index)  # where blocking starts and ends
    edges = np.linspace(0, n, 301).astype(int)
    for a, b in zip(edges[:-1], edges[1:], strict=True):  # each run's extremes, by hand
        assert a + int(np.argmax(gain[a:b])) in kept.index
        assert a + int(np.argmin(gain[a:b])) in kept.index
    assert len(thin(frame.head(600))) == 600  # a screen's worth: kept whole


def test_gain_curve_is_the_features_splitting_candidates_by_threshold_each_side_thinned():
    """gain_curve picks positions on the columns and takes the rows once; the same rows, in
    the same order, as filtering and sorting the frame step by step (ties in threshold keep
    the table's order; each default direction thinned on its own)."""
    from boost.trace.nodes import gain_curve, thin
    rng = np.random.default_rng(3)
    n = 4000
    cand = pd.DataFrame({
        "Feature": pd.Categorical(rng.choice(["a", "b"], n)),
        "Threshold": rng.integers(0, 900, n).astype(float),  # many ties
        "DefaultLeft": rng.random(n) < 0.5,
        "CountLeft": rng.integers(0, 5, n), "CountRight": rng.integers(0, 5, n),
        "Gain": rng.normal(size=n), "Valid": rng.random(n) < 0.9})
    cand["Best"] = False
    cand.loc[17, "Best"] = True
    for feature in ("a", "b"):
        part = cand[(cand.Feature == feature) & (cand.CountLeft > 0) & (cand.CountRight > 0)]
        part = part.sort_values("Threshold", kind="stable")
        expected = pd.concat([thin(part[part.DefaultLeft == side]) for side in (True, False)])
        expected = expected.sort_values("Threshold", kind="stable")
        assert len(part[part.DefaultLeft]) > 600  # thinned, both sides
        pd.testing.assert_frame_equal(gain_curve(cand, feature), expected)
