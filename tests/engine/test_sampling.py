"""subsample and colsample_*: reproducible, recorded in the trace, and the trees are XGBoost's
when XGBoost is given the same rows and columns (a custom objective zeroes the left-out rows,
as XGBoost's own sampler does; a column subset trains one round at a time)."""

import numpy as np
import pytest
import xgboost as xgb
from oracle import xgb_margin

import boost
from boost import objectives

N = 400


def _data(seed=0, n=N, n_features=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features)).astype(np.float32)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) * 2 - np.nan_to_num(X[:, 3]) + rng.normal(size=n)).astype(
        np.float32)
    return X, y


@pytest.mark.parametrize("method", ["exact", "hist", "approx"])
def test_subsample_replayed_in_xgboost(method):
    X, y = _data()
    params = {"tree_method": method, "subsample": 0.6, "seed": 7, "max_depth": 4, "eta": 0.3,
              "base_score": 0.5}
    ours = boost.train(params, X, y, 6)
    masks = [ours.rows_used(r) for r in range(1, 7)]
    assert all(0.45 < m.mean() < 0.75 for m in masks)
    assert len({m.tobytes() for m in masks}) == 6  # a fresh draw per tree
    calls = []

    def sampled_squared_error(predt, dtrain):
        mask = masks[len(calls)]
        calls.append(1)
        g = (predt - y) * mask
        # XGBoost's own sampler: hist/approx zero the pair, exact drops the row (h < 0).
        h = np.where(mask, 1.0, -1.0 if method == "exact" else 0.0)
        return g.astype(np.float32), h.astype(np.float32)

    ref_params = {k: v for k, v in params.items() if k not in ("subsample", "seed")}
    ref = xgb.train({"nthread": 1, **ref_params}, xgb.DMatrix(X, label=y), 6,
                    obj=sampled_squared_error)
    assert ours.get_dump() == ref.get_dump(dump_format="json", with_stats=True)
    assert np.max(np.abs(ours.predict(X, output_margin=True) - xgb_margin(ref, X))) <= 1e-6


def test_same_seed_same_model_other_seed_other_rows():
    X, y = _data()
    params = {"subsample": 0.5, "colsample_bynode": 0.5, "seed": 3}
    a = boost.train(params, X, y, 5)
    b = boost.train(params, X, y, 5)
    c = boost.train({**params, "seed": 4}, X, y, 5)
    assert a.get_dump() == b.get_dump()
    assert not np.array_equal(a.rows_used(1), c.rows_used(1))


def test_colsample_bytree_replayed_in_xgboost():
    # One round at a time: XGBoost on the columns our tree drew, from our margin.
    X, y = _data()
    params = {"tree_method": "exact", "colsample_bytree": 0.5, "seed": 11, "max_depth": 3,
              "eta": 0.3, "base_score": 0.0}
    ours = boost.train(params, X, y, 4)
    names = ours.feature_names
    for r in range(1, 5):
        used = ours.features_used(r)
        assert used.sum() == 3
        cols = np.flatnonzero(used)
        margin = ours.round_view(r - 1).margin[:, 0]
        d = xgb.DMatrix(X[:, cols], label=y, base_margin=margin,
                        feature_names=[names[c] for c in cols])
        ref = xgb.train({"nthread": 1, "tree_method": "exact", "max_depth": 3, "eta": 0.3},
                        d, 1)
        assert ours.get_dump()[r - 1] == ref.get_dump(dump_format="json", with_stats=True)[0]


@pytest.mark.parametrize("method", ["exact", "hist"])
@pytest.mark.parametrize("ratios", [{"colsample_bylevel": 0.5}, {"colsample_bynode": 0.4},
                                    {"colsample_bytree": 0.8, "colsample_bynode": 0.5}])
def test_every_split_uses_a_drawn_feature_and_is_the_best_of_them(method, ratios):
    X, y = _data()
    bst = boost.train({"tree_method": method, "seed": 5, "max_depth": 3, **ratios}, X, y, 3)
    _assert_splits_are_the_best_drawn(bst, X, ratios)


@pytest.mark.parametrize("nthread", [1, 2])
def test_bounded_search_of_drawn_features_in_pairs(nthread):
    # Long enough for exact's strip-bounded search; 10 features run as pairs of features
    # (with 2 threads also single ones), and a node may draw one feature of a pair only.
    X, y = _data(n=5000, n_features=10)
    ratios = {"colsample_bynode": 0.5}
    bst = boost.train({"tree_method": "exact", "seed": 3, "max_depth": 3, "nthread": nthread,
                       **ratios}, X, y, 3)
    _assert_splits_are_the_best_drawn(bst, X, ratios)


def _assert_splits_are_the_best_drawn(bst, X, ratios):
    frame = bst.trees_to_dataframe()
    n_features = X.shape[1]
    for _, node in frame[frame.Feature != "Leaf"].iterrows():
        used = bst.features_used(int(node.Round), int(node.Node))
        expected_size = n_features
        for key in ("colsample_bytree", "colsample_bylevel", "colsample_bynode"):
            expected_size = max(1, int(ratios.get(key, 1.0) * expected_size))
        assert used.sum() == expected_size
        assert used[bst.feature_names.index(node.Feature)]
        cand = bst.split_candidates(int(node.Round), int(node.Node))
        best = cand[cand.Best]
        assert len(best) == 1 and best.Feature.iloc[0] == node.Feature
        assert best.Threshold.iloc[0] == pytest.approx(node.Split, rel=1e-7)
        # nothing better among the drawn features; the undrawn ones may beat it
        ok = cand.Valid & cand.Sampled
        assert cand.Gain[ok].max() == pytest.approx(best.Gain.iloc[0], rel=1e-7)
        assert set(cand.Feature[cand.Sampled]) == {bst.feature_names[i]
                                                   for i in np.flatnonzero(used)}


@pytest.mark.parametrize("method", ["exact", "hist"])
def test_candidates_use_the_sampled_rows(method):
    X, y = _data()
    bst = boost.train({"tree_method": method, "subsample": 0.5, "seed": 2, "max_depth": 2},
                      X, y, 2)
    g, h, rows = bst.tree_gradients(2)
    cand = bst.split_candidates(2, 0)
    root = bst.trees_to_dataframe().query("Tree == 1 and Node == 0").iloc[0]
    assert root.Cover == pytest.approx(float(rows.sum()))  # squared error: h = 1 per row
    assert (cand.CountLeft + cand.CountRight == rows.sum()).all()
    margin = bst.round_view(1).margin
    g_all, _ = objectives.gradients("reg:squarederror", margin, y, None)
    assert float(root.SumGrad) == pytest.approx(float(g_all[rows, 0].astype(np.float64).sum()),
                                                rel=1e-9, abs=1e-9)
