"""A data sample attached to a model (``Booster.with_data``), with XGBoost 3.2 and hand
computation as oracles: margins and predictions per round equal XGBoost's on the sample;
the sample's gradients are the objective's formulas at those margins; candidate splits
recomputed on the sample equal ``boost.train``'s own trace when the sample is the training
data (the same rows reach the same node with the same G and H), and are labelled as
recomputed on the sample."""

import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from oracle import xgb_train

import boost

METHODS = ["exact", "hist", "approx"]


def _data(n=240, seed=0, classes=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    z = np.nan_to_num(X[:, 0]) - np.nan_to_num(X[:, 1]) ** 2 + rng.normal(size=n) * 0.3
    if classes:
        y = np.digitize(z, np.quantile(z, np.arange(1, classes) / classes)).astype(float)
    else:
        y = (z > 0).astype(float)
    return pd.DataFrame(X, columns=["age", "dose", "weight", "height"]), y


def _xgb_model(X, y, params, rounds=6):
    model, _ = xgb_train(params, X, y, rounds)
    return model, boost.load_model(model.save_raw("ubj"))


def _sigmoid(m):
    return 1.0 / (1.0 + np.exp(-m.astype(np.float64)))


def test_loaded_model_on_sample_margins_equal_xgboost_per_round():
    X, y = _data()
    model, loaded = _xgb_model(X.iloc[:200], y[:200], {"objective": "binary:logistic",
                                                       "max_depth": 3, "eta": 0.4})
    sample = X.iloc[200:]
    on = loaded.with_data(sample, y[200:])
    d = xgb.DMatrix(sample, missing=np.nan)
    np.testing.assert_array_equal(on.round_view(0).margin, loaded.base_margin[None, :]
                                  + np.zeros((len(sample), 1), dtype=np.float32))
    for r in range(1, 7):  # (XGBoost's iteration_range (0, 0) means every tree)
        want = model.predict(d, output_margin=True, iteration_range=(0, r))
        view = on.round_view(r)
        assert view.on_sample
        np.testing.assert_array_equal(view.margin[:, 0].view(np.uint32),
                                      want.astype(np.float32).view(np.uint32))
        np.testing.assert_array_equal(on.predict(sample, iteration_range=(0, r)),
                                      model.predict(d, iteration_range=(0, r)))
        np.testing.assert_array_equal(view.prediction, model.predict(d, iteration_range=(0, r)))
        before, after = on.round_views(r)
        np.testing.assert_array_equal(before.margin, on.round_view(r - 1).margin)
        np.testing.assert_array_equal(after.margin, view.margin)
    # The sample's gradients and residuals: the logistic loss's formulas at those margins.
    m = model.predict(d, output_margin=True, iteration_range=(0, 3))
    p = _sigmoid(m)
    view = on.round_view(3)
    np.testing.assert_allclose(view.grad[:, 0], p - y[200:], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(view.hess[:, 0], p * (1 - p), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(view.residual, y[200:] - p, rtol=1e-6, atol=1e-7)
    g, h, rows = on.tree_gradients(4)
    np.testing.assert_array_equal(g, view.grad[:, 0])
    assert rows is None
    # The sample's loss per round is XGBoost's logloss on those rows.
    got = on.loss_history()
    assert list(got.columns) == ["sample"]
    res = model.eval(xgb.DMatrix(sample, label=y[200:]), "s").split(":")[1]
    assert got["sample"].iloc[-1] == pytest.approx(float(res), abs=1e-6)


@pytest.mark.parametrize("method", METHODS)
def test_candidates_on_the_training_rows_equal_the_trace(method):
    X, y = _data(seed=1)
    params = {"objective": "binary:logistic", "tree_method": method, "max_depth": 3,
              "lambda": 2.0, "min_child_weight": 0.5}
    bst = boost.train(params, X, y, 4, evals=[(X, y, "train")])
    trained_sample = bst.with_data(X, y)
    file_sample = boost.load_model(bst.save_raw("json")).with_data(
        X, y, params={"tree_method": method, "lambda": 2.0, "min_child_weight": 0.5})
    frame = bst.trees_to_dataframe()
    for r in range(1, 5):
        for node in frame[frame.Round == r].Node:
            want = bst.split_candidates(r, int(node))
            assert want.attrs["recomputed_on"] == "training"
            for on in (trained_sample, file_sample):
                got = on.split_candidates(r, int(node))
                assert got.attrs["recomputed_on"] == "sample"
                assert got.RecomputedOnSample.all()
                pd.testing.assert_frame_equal(got.drop(columns="RecomputedOnSample"), want)
    # The trees keep the model's own gain and cover.
    pd.testing.assert_frame_equal(file_sample.trees_to_dataframe()[["Gain", "Cover"]],
                                  bst.trees_to_dataframe()[["Gain", "Cover"]])
    assert trained_sample.loss_history()["sample"].tolist() == bst.loss_history()["train"].tolist()


def test_multiclass_candidates_and_views_on_the_training_rows():
    X, y = _data(seed=2, classes=3)
    params = {"objective": "multi:softprob", "num_class": 3, "max_depth": 2}
    bst = boost.train(params, X, y, 3)
    on = boost.load_model(bst.save_raw()).with_data(X, y)
    for k in range(3):
        pd.testing.assert_frame_equal(
            on.split_candidates(2, 0, k).drop(columns="RecomputedOnSample"),
            bst.split_candidates(2, 0, k))
    np.testing.assert_array_equal(on.round_view(2).grad, bst.round_view(2).grad)
    np.testing.assert_array_equal(on.round_view(2).residual, bst.round_view(2).residual)


def test_candidates_on_another_sample_by_hand():
    """exact on a sample other than the training rows: the root's candidates are every
    threshold between neighbouring sample values, with G and H summed by hand from the
    sample's gradients and the gain from XGBoost's formula."""
    X, y = _data(seed=3)
    model, loaded = _xgb_model(X.iloc[:160], y[:160], {"objective": "binary:logistic",
                                                       "max_depth": 2, "tree_method": "exact"})
    sample, ys = X.iloc[160:], y[160:]
    on = loaded.with_data(sample, ys, params={"tree_method": "exact", "lambda": 1.0})
    cand = on.split_candidates(2, 0)
    p = _sigmoid(model.predict(xgb.DMatrix(sample, missing=np.nan), output_margin=True,
                               iteration_range=(0, 1)))
    g, h = p - ys, p * (1 - p)
    G, H = g.sum(), h.sum()
    x = sample["age"].to_numpy()
    # a threshold between each pair of neighbours, and every present value left of the missing
    assert (cand.Feature == "age").sum() == 2 * len(np.unique(x[~np.isnan(x)]))
    for _, c in cand[cand.Feature == "age"].iloc[::7].iterrows():
        left = x < c.Threshold
        left = left | (np.isnan(x) & c.DefaultLeft)
        gl, hl = g[left].sum(), h[left].sum()
        assert c.SumGradLeft == pytest.approx(gl, rel=1e-5, abs=1e-5)
        assert c.SumHessLeft == pytest.approx(hl, rel=1e-5, abs=1e-5)
        gr, hr = G - gl, H - hl
        gain = gl ** 2 / (hl + 1) + gr ** 2 / (hr + 1) - G ** 2 / (H + 1)
        if c.Valid:
            assert c.Gain == pytest.approx(gain, rel=1e-4, abs=1e-4)
    # The model's own root gain stays in its tree (trained on other rows).
    own = model.trees_to_dataframe()
    assert on.trees_to_dataframe().Gain.iloc[0] == pytest.approx(own.Gain.iloc[0], rel=1e-6)


def test_sample_without_target_predicts_but_needs_y_for_gradients():
    X, y = _data(seed=4)
    _, loaded = _xgb_model(X, y, {"objective": "binary:logistic", "max_depth": 2}, 3)
    on = loaded.with_data(X.iloc[:50])
    view = on.round_view(2)
    np.testing.assert_array_equal(view.prediction, loaded.predict(X.iloc[:50],
                                                                  iteration_range=(0, 2)))
    assert np.isnan(view.grad).all() and np.isnan(view.residual).all()
    for call in (lambda: on.split_candidates(1, 0), lambda: on.tree_gradients(1),
                 on.loss_history):
        with pytest.raises(boost.NoTrainingTrace, match="target"):
            call()


def test_sample_errors_say_what_is_wrong():
    X, y = _data(seed=5)
    _, loaded = _xgb_model(X, y, {"objective": "binary:logistic", "max_depth": 2}, 2)
    with pytest.raises(ValueError, match="dose"):
        loaded.with_data(X.drop(columns="dose"), y)
    with pytest.raises(ValueError, match="eta"):
        loaded.with_data(X, y, params={"eta": 0.1})
    with pytest.raises(ValueError, match="tree_method"):
        loaded.with_data(X, y, params={"tree_method": "gpu"})
    bst = boost.train({"objective": "binary:logistic", "subsample": 0.5}, X, y, 2)
    with pytest.raises(ValueError, match="boost.train"):
        bst.with_data(X, y, params={"lambda": 3.0})
    on = bst.with_data(X, y)
    with pytest.raises(boost.NoTrainingTrace, match="sample"):
        on.rows_used(1)
    with pytest.raises(boost.NoTrainingTrace, match="sample"):
        on.features_used(1)
    assert on.split_candidates(1, 0).Sampled.all()  # no draws on a sample
    assert loaded.with_data(X, y).params["tree_method"] == "hist"  # XGBoost's default


def test_lossguide_candidates_on_the_training_rows_equal_the_trace():
    X, y = _data(seed=6)
    params = {"objective": "binary:logistic", "tree_method": "hist",
              "grow_policy": "lossguide", "max_leaves": 5, "max_depth": 0}
    bst = boost.train(params, X, y, 3)
    on_file = boost.load_model(bst.save_raw()).with_data(X, y)
    frame = bst.trees_to_dataframe()
    for r in range(1, 4):
        for node in frame[frame.Round == r].Node:
            pd.testing.assert_frame_equal(
                on_file.split_candidates(r, int(node)).drop(columns="RecomputedOnSample"),
                bst.split_candidates(r, int(node)))
