"""The trace: invariants of the grown trees, candidate splits against brute force, round views."""

import subprocess
import sys

import numpy as np
import pytest
from datasets import make_data

import boost


@pytest.fixture(scope="module")
def booster():
    X, y = make_data(seed=20, n=400, nan=0.15, objective="binary:logistic")
    return boost.train({"tree_method": "exact", "objective": "binary:logistic", "max_depth": 4,
                        "gamma": 0.8, "min_child_weight": 2}, X, y, 6, evals=[(X, y, "train")])


def test_children_partition_their_parent(booster):
    df = booster.trees_to_dataframe(include_pruned=True)
    for (_, _), tree in df.groupby(["Tree", "Class"]):
        by_id = tree.set_index("Node")
        for node, row in by_id.iterrows():
            if row.Yes is None or row.Feature == "Leaf":
                continue
            kids = by_id[by_id.Parent == node]
            assert len(kids) == 2
            assert kids.SumGrad.sum() == pytest.approx(row.SumGrad, abs=1e-9)
            assert kids.SumHess.sum() == pytest.approx(row.SumHess, rel=1e-12)


def test_similarity_weight_and_value(booster):
    df = booster.trees_to_dataframe(include_pruned=True)
    lam = 1.0
    np.testing.assert_allclose(df.Similarity, df.SumGrad**2 / (df.SumHess + lam), rtol=1e-5)
    expected_w = np.where(df.SumHess < 2, 0.0, -df.SumGrad / (df.SumHess + lam))
    np.testing.assert_allclose(df.Weight, expected_w, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(df.Value, df.Weight * 0.3, rtol=1e-6, atol=1e-8)


def test_pruning_reasons(booster):
    df = booster.trees_to_dataframe(include_pruned=True)
    gamma = df[df.Reason == "gamma"]
    collapsed = gamma[~gamma.Pruned]
    assert len(collapsed) > 0  # this configuration prunes
    assert (collapsed.Gain < 0.8).all() and collapsed.Leaf.all()
    kept_splits = df[(df.Feature != "Leaf") & ~df.Leaf & ~df.Pruned]
    assert (kept_splits.Reason == "").all()
    final = booster.trees_to_dataframe()
    assert not final.Pruned.any()
    assert len(final) == len(df) - df.Pruned.sum()


def _brute_force_candidates(X, g, h, rows, lam):
    """Every (feature, threshold, default_left) partition, gains in float64."""
    out = {}
    G, H = g[rows].sum(), h[rows].sum()
    parent = G * G / (H + lam)
    for f in range(X.shape[1]):
        x = X[rows, f]
        present = ~np.isnan(x)
        values = np.unique(x[present])
        for a, b in zip(values[:-1], values[1:], strict=True):
            thr = np.float32((np.float32(a) + np.float32(b)) * np.float32(0.5))
            goes_left = present & (x < thr)
            for default_left in (False, True):
                left = goes_left | (~present & default_left)
                gl, hl = g[rows][left].sum(), h[rows][left].sum()
                gr, hr = G - gl, H - hl
                gain = gl * gl / (hl + lam) + gr * gr / (hr + lam) - parent
                out[(f, float(thr), default_left)] = gain
    return out


def test_candidates_against_brute_force():
    X, y = make_data(seed=21, n=60, n_features=3, nan=0.2, constant_column=False)
    bst = boost.train({"tree_method": "exact", "max_depth": 2, "min_child_weight": 0}, X, y, 2)
    view = bst.round_view(1)  # gradients the round-2 trees fit
    g = view.grad[:, 0].astype(np.float64)
    h = view.hess[:, 0].astype(np.float64)
    cand = bst.split_candidates(2, 0)
    brute = _brute_force_candidates(bst.data.X, g, h, np.arange(len(y)), 1.0)
    inner = cand[cand.CountLeft.between(1, len(y) - 1)]
    checked = 0
    for row in inner.itertuples():
        key = (bst.feature_names.index(row.Feature), row.Threshold, row.DefaultLeft)
        if key in brute:
            assert row.Gain == pytest.approx(brute[key], rel=1e-4, abs=1e-4)
            checked += 1
    assert checked >= 0.9 * len(inner) and checked > 50
    best = cand[cand.Best].iloc[0]
    tree = bst.trees_to_dataframe(include_pruned=True)
    root = tree[(tree.Round == 2) & (tree.Node == 0)].iloc[0]
    # The dataframe holds XGBoost's %.9g text of the float32 numbers.
    assert best.Feature == root.Feature
    assert np.float32(best.Threshold) == np.float32(root.Split)
    assert np.float32(best.Gain) == np.float32(root.Gain)
    assert best.Gain == cand[cand.Valid].Gain.max()


def test_min_child_weight_marks_candidates_invalid():
    X, y = make_data(seed=22, n=40, n_features=2, objective="binary:logistic",
                     constant_column=False)
    bst = boost.train({"objective": "binary:logistic", "max_depth": 1,
                       "min_child_weight": 3}, X, y, 1)
    cand = bst.split_candidates(1, 0)
    blocked = cand[~cand.Valid]
    assert len(blocked) > 0
    assert ((blocked.SumHessLeft < 3) | (blocked.SumHessRight < 3)).all()
    assert ((cand[cand.Valid].SumHessLeft >= 3) & (cand[cand.Valid].SumHessRight >= 3)).all()


def test_round_views_rebuild_the_margins(booster):
    X = booster.data.X
    for r in range(1, booster.num_boosted_rounds() + 1):
        before, after = booster.round_view(r - 1), booster.round_view(r)
        tree = booster.trees_to_dataframe().query("Round == @r").set_index("Node")
        np.testing.assert_allclose(after.margin[:, 0] - before.margin[:, 0],
                                   tree.Value.loc[after.leaf[:, 0]].to_numpy(), atol=2e-7)
    pair = booster.round_views(3)
    np.testing.assert_array_equal(pair[0].margin, booster.round_view(2).margin)
    np.testing.assert_array_equal(pair[1].margin, booster.round_view(3).margin)
    np.testing.assert_array_equal(pair[1].leaf, booster.round_view(3).leaf)
    last = booster.round_view(booster.num_boosted_rounds())
    np.testing.assert_allclose(last.prediction, booster.predict(X), rtol=1e-6)
    p = last.prediction
    np.testing.assert_allclose(last.grad[:, 0], p - booster.data.y, atol=1e-6)
    np.testing.assert_allclose(last.hess[:, 0], p * (1 - p), rtol=1e-5)


def test_tree_gradients_follow_the_round_and_class_asked():
    # The booster keeps the last tree's gradients (a node's view asks twice): asked in any
    # order, each (round, class) still gets the softmax's g = p - [y = k], h = 2p(1 - p) at
    # the previous round's predictions.
    X, y = make_data(seed=5, n=300, n_features=3, objective="multi:softprob")
    bst = boost.train({"objective": "multi:softprob", "num_class": 3, "max_depth": 2}, X, y, 4)
    for r, k in [(2, 0), (2, 1), (3, 1), (2, 1), (2, 0), (4, 2), (1, 0)]:
        p = bst.round_view(r - 1).prediction[:, k].astype(np.float64)
        g, h, rows = bst.tree_gradients(r, k)
        assert rows is None
        np.testing.assert_allclose(g, p - (bst.data.y == k), atol=1e-6)
        np.testing.assert_allclose(h, 2 * p * (1 - p), rtol=1e-5, atol=1e-7)


def test_loss_history_starts_at_the_baseline(booster):
    history = booster.loss_history()
    assert history.index.tolist() == list(range(7))
    y = booster.data.y.astype(float)
    p0 = y.mean()
    baseline = -np.mean(y * np.log(p0) + (1 - y) * np.log(1 - p0))
    assert history["train"].iloc[0] == pytest.approx(baseline, rel=1e-5)
    assert history["train"].iloc[-1] < history["train"].iloc[0]


def test_trace_is_read_only(booster):
    with pytest.raises(ValueError):
        booster.forest.value[0] = 1.0
    with pytest.raises(ValueError):
        booster.data.X[0, 0] = 1.0


@pytest.mark.parametrize("tree_method", ["exact", "hist"])
def test_training_leaves_the_callers_arrays_alone(tree_method):
    # float32 inputs need no conversion; the Booster must still own (and freeze) a copy (hist:
    # of the rows' bin codes), not make the caller's arrays read-only or keep reading memory
    # the caller may change.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 3)).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.float32)
    w = rng.uniform(0.5, 2.0, 200).astype(np.float32)
    params = {"tree_method": tree_method, "objective": "binary:logistic", "max_depth": 3}
    bst = boost.train(params, X, y, 3, sample_weight=w)
    assert X.flags.writeable and y.flags.writeable and w.flags.writeable
    before = bst.round_view(3).margin.copy()
    X[:] = 0.0
    y[:] = 1.0
    w[:] = 1.0
    np.testing.assert_array_equal(bst.round_view(3).margin, before)
    assert bst.data.y.sum() < 200
    if tree_method == "hist":  # the values are not kept; the changed X is told apart
        with pytest.raises(ValueError, match="not the data this model was trained on"):
            bst.feature_values(0, X)


def test_engine_does_not_import_streamlit_or_plotly():
    code = ("import sys, boost; bad = [m for m in sys.modules if m.split('.')[0] in "
            "('streamlit', 'plotly')]; print(bad); sys.exit(1 if bad else 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
