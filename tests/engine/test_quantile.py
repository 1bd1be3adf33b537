"""reg:quantileerror: one or several quantile_alpha (a tree per quantile per round), with
XGBoost 3.2 as the oracle (string-equal dumps, margins, its base_score and ``quantile``
metric), and the leaf re-estimation and pinball loss checked by hand."""

import json

import numpy as np
import pytest
import xgboost as xgb
from oracle import xgb_margin, xgb_train

import boost
from boost import metrics, objectives

N = 200
ALPHAS = [[0.3], [0.1, 0.5, 0.9]]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(N, 3)).astype(np.float32)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) * 3 + rng.standard_t(2, size=N)).astype(np.float32)
    weight = rng.uniform(0.5, 2.0, size=N).astype(np.float32)
    X_test = rng.normal(size=(80, 3)).astype(np.float32)
    X_test[rng.random(X_test.shape) < 0.1] = np.nan
    y_test = (np.nan_to_num(X_test[:, 0]) * 3 + rng.normal(size=80)).astype(np.float32)
    return X, y, weight, X_test, y_test


@pytest.mark.parametrize("method", ["exact", "hist", "approx"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("alphas", ALPHAS, ids=["1-alpha", "3-alphas"])
def test_identical_to_xgboost(data, alphas, weighted, method):
    X, y, weight, X_test, y_test = data
    sw = weight if weighted else None
    params = {"objective": "reg:quantileerror", "quantile_alpha": alphas,
              "tree_method": method, "max_depth": 3, "eta": 0.3, "gamma": 0.1}
    evals = [(X_test, y_test, "test")]
    ours = boost.train(params, X, y, 6, sample_weight=sw, evals=evals)
    ref, result = xgb_train(params, X, y, 6, sample_weight=sw, evals=evals)
    assert len(ours.get_dump()) == 6 * len(alphas)  # a tree per quantile per round
    assert ours.get_dump("json") == ref.get_dump(dump_format="json", with_stats=True)
    assert ours.get_dump("text") == ref.get_dump(dump_format="text", with_stats=True)
    for Z in (X, X_test):
        margin = ours.predict(Z, output_margin=True)
        assert margin.shape == ((len(Z), 3) if len(alphas) == 3 else (len(Z),))
        assert np.max(np.abs(margin - xgb_margin(ref, Z))) <= 1e-5
        np.testing.assert_allclose(ours.predict(Z), ref.predict(xgb.DMatrix(Z)), atol=1e-5)
    assert ours.metric_name == "quantile"
    np.testing.assert_allclose(ours.evals_result()["test"]["quantile"],
                               result["test"]["quantile"], rtol=1e-5)


def test_base_score_is_each_alphas_quantile_of_y(data):
    X, y, weight, _, _ = data
    alphas = [0.1, 0.5, 0.9]
    for sw in (None, weight):
        ours = boost.train({"objective": "reg:quantileerror", "quantile_alpha": alphas}, X, y,
                           1, sample_weight=sw)
        ref, _ = xgb_train({"objective": "reg:quantileerror", "quantile_alpha": alphas}, X, y,
                           1, sample_weight=sw)
        text = json.loads(ref.save_config())["learner"]["learner_model_param"]["base_score"]
        assert ours.base_score.tolist() == [float(np.float32(v))
                                            for v in text.strip("[]").split(",")]
    # unweighted, by hand: NIST interpolation, (n + 1) alpha - 1 in the sorted labels
    s = np.sort(y.astype(np.float64))
    x = 0.1 * (N + 1) - 1
    k = int(np.floor(x))
    hand = s[k] + (x - k) * (s[k + 1] - s[k])
    assert boost.train({"objective": "reg:quantileerror", "quantile_alpha": 0.1}, X, y,
                       1).base_score[0] == pytest.approx(hand, rel=1e-6)


def test_leaves_are_eta_times_the_residuals_alpha_quantile(data):
    # hist re-estimates each leaf of output k as eta * quantile_{alpha_k}(y - m) over its rows
    # (XGBoost's UpdateTreeLeaf); checked by hand from the trace, weights included.
    X, y, weight, _, _ = data
    alphas = [0.2, 0.7]
    bst = boost.train({"objective": "reg:quantileerror", "quantile_alpha": alphas,
                       "tree_method": "hist", "eta": 0.5, "max_depth": 2}, X, y, 2,
                      sample_weight=weight)
    before = bst.round_view(1).margin
    leaf_of_row = bst.round_view(2).leaf
    frame = bst.trees_to_dataframe()
    for k, alpha in enumerate(alphas):
        leaves = frame[(frame.Tree == 2 + k) & (frame.Feature == "Leaf")]
        assert len(leaves) > 1
        for _, row in leaves.iterrows():
            rows = leaf_of_row[:, k] == row.Node
            r = (y[rows] - before[rows, k]).astype(np.float32)
            order = np.argsort(r, kind="stable")
            cdf = np.cumsum(weight[rows][order].astype(np.float64))
            q = r[order][min(np.searchsorted(cdf, cdf[-1] * alpha), rows.sum() - 1)]
            assert row.Value == pytest.approx(float(q) * 0.5, abs=2e-6)
    # exact keeps the Newton leaves (XGBoost does not re-estimate them): -G/(H + lambda)
    exact = boost.train({"objective": "reg:quantileerror", "quantile_alpha": alphas,
                         "tree_method": "exact", "max_depth": 2}, X, y, 1)
    trees = exact.trees_to_dataframe()
    leaf = trees[trees.Feature == "Leaf"]
    np.testing.assert_allclose(leaf.Weight, -leaf.SumGrad / (leaf.SumHess + 1.0), rtol=1e-5)


def test_gradient_and_pinball_loss_by_hand():
    alphas = (0.1, 0.9)
    loss = objectives.LossParams(quantile_alpha=alphas)
    y = np.array([0.0, 1.0, 2.0, 3.0], dtype=np.float32)
    margin = np.array([[1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0]], dtype=np.float32)
    w = np.array([1.0, 2.0, 1.0, 0.5], dtype=np.float32)
    g, h = objectives.gradients("reg:quantileerror", margin, y, w, loss)
    # m >= y: (1 - alpha) w; m < y: -alpha w; h = w
    np.testing.assert_allclose(g[:, 0], [0.9, 1.8, -0.1, -0.05], rtol=1e-6)
    np.testing.assert_allclose(g[:, 1], [0.1, 0.2, -0.9, -0.45], rtol=1e-6)
    np.testing.assert_array_equal(h, np.repeat(w[:, None], 2, axis=1))
    # pinball: alpha (y - m) above the prediction, (1 - alpha)(m - y) below
    per = metrics.pinball_losses(margin, y, w, loss)
    hand_01 = (0.9 * 1 * 1 + 0 + 0.1 * 1 * 1 + 0.1 * 2 * 0.5) / 4.5
    hand_09 = (0.1 * 1 * 1 + 0 + 0.9 * 1 * 1 + 0.9 * 2 * 0.5) / 4.5
    np.testing.assert_allclose(per, [hand_01, hand_09], rtol=1e-6)
    # XGBoost's metric: the mean over every (row, alpha) pair
    assert metrics.metric("reg:quantileerror", margin, y, w, loss) == pytest.approx(
        (hand_01 + hand_09) / 2, rel=1e-6)


@pytest.mark.parametrize("value,message", [
    (None, "needs 'quantile_alpha'"), ([1.5], "out of range"), ("a, b", "not a list"),
    ([], "empty list")])
def test_bad_quantile_alpha_is_explained(data, value, message):
    X, y, _, _, _ = data
    params = {"objective": "reg:quantileerror"}
    if value is not None:
        params["quantile_alpha"] = value
    with pytest.raises(ValueError, match=message):
        boost.train(params, X, y, 1)


def test_quantile_alpha_as_xgboost_spells_it(data):
    X, y, _, _, _ = data
    a = boost.train({"objective": "reg:quantileerror", "quantile_alpha": "[0.2, 0.8]"}, X, y, 2)
    b = boost.train({"objective": "reg:quantileerror", "quantile_alpha": (0.2, 0.8)}, X, y, 2)
    assert a.get_dump() == b.get_dump() and a.num_groups == 2


def test_cv_and_sweep_report_xgboosts_quantile_metric(data):
    # the 'quantile' metric where the other metrics are: xgboost.cv's table, a sweep's columns
    X, y, weight, X_test, y_test = data
    params = {"objective": "reg:quantileerror", "quantile_alpha": [0.1, 0.5, 0.9],
              "tree_method": "hist", "max_depth": 3}
    ref = xgb.cv({"nthread": 1, **params}, xgb.DMatrix(X, label=y, weight=weight,
                                                       missing=np.nan), 8, nfold=3, seed=5)
    ours = boost.cv(params, X, y, 8, nfold=3, seed=5, sample_weight=weight)
    assert list(ours.columns) == list(ref.columns) == [
        "train-quantile-mean", "train-quantile-std", "test-quantile-mean", "test-quantile-std"]
    np.testing.assert_allclose(ours.to_numpy(), ref.to_numpy(), rtol=1e-5, atol=1e-9)
    frame = boost.sweep(params, X, y, {"eta": [0.1, 0.5]}, 5,
                        evals=[(X_test, y_test, "valid")])
    assert frame.attrs["metric"] == "quantile"
    for i, eta in enumerate([0.1, 0.5]):
        _, result = xgb_train({**params, "eta": eta}, X, y, 5,
                              evals=[(X_test, y_test, "valid")])
        np.testing.assert_allclose(frame[frame["point"] == i]["valid-quantile"],
                                   result["valid"]["quantile"], rtol=1e-5)
