"""The objectives beyond the first three, scale_pos_weight and early stopping: XGBoost 3.2 as
the oracle (identical dumps, margins, metrics), finite differences for g and h, clear errors."""

import numpy as np
import pytest
import xgboost as xgb
from oracle import xgb_margin, xgb_train

import boost
from boost import objectives

N = 300


def _data(seed=0, nan=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, 4)).astype(np.float32)
    X[rng.random(X.shape) < nan] = np.nan
    base = np.nan_to_num(X)
    labels = {
        "reg": (base[:, 0] * 3 + rng.standard_t(2, size=N)).astype(np.float32),
        "count": rng.poisson(np.exp(base[:, 1])).astype(np.float32),
        "positive": (rng.gamma(2.0, np.exp(base[:, 1])) + 0.01).astype(np.float32),
        "binary": (base[:, 0] + rng.normal(size=N) > 0).astype(np.float32),
        "class3": rng.integers(0, 3, N).astype(np.float32),
    }
    weight = rng.uniform(0.5, 2.0, size=N).astype(np.float32)
    return X, labels, weight


XGB_CASES = [
    ("reg:pseudohubererror", "reg", {}),
    ("reg:pseudohubererror", "reg", {"huber_slope": 2.5}),
    ("reg:absoluteerror", "reg", {}),
    ("count:poisson", "count", {}),
    ("count:poisson", "count", {"max_delta_step": 0}),
    ("reg:gamma", "positive", {}),
    ("reg:tweedie", "count", {}),
    ("reg:tweedie", "count", {"tweedie_variance_power": 1.8}),
    ("binary:logitraw", "binary", {}),
    ("multi:softmax", "class3", {"num_class": 3}),
    ("binary:logistic", "binary", {"scale_pos_weight": 3.0}),
    ("binary:logitraw", "binary", {"scale_pos_weight": 0.5}),
    ("reg:squarederror", "binary", {"scale_pos_weight": 2.0}),
    ("reg:gamma", "positive", {"base_score": 2.0}),
]


@pytest.mark.parametrize("method", ["exact", "hist", "approx"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("objective,label,extra", XGB_CASES,
                         ids=[f"{o}-{'-'.join(map(str, e.values()))}" for o, _, e in XGB_CASES])
def test_identical_to_xgboost(objective, label, extra, method, weighted):
    X, labels, weight = _data()
    y = labels[label]
    sw = weight if weighted else None
    params = {"objective": objective, "tree_method": method, "max_depth": 4, "eta": 0.3,
              "lambda": 1.0, "gamma": 0.2, **extra}
    X_test = _data(seed=1)[0]
    ours = boost.train(params, X, y, 8, sample_weight=sw, evals=[(X_test, y, "test")])
    ref, result = xgb_train(params, X, y, 8, sample_weight=sw, evals=[(X_test, y, "test")])
    assert ours.get_dump("json") == ref.get_dump(dump_format="json", with_stats=True)
    for Z in (X, X_test):
        assert np.max(np.abs(ours.predict(Z, output_margin=True) - xgb_margin(ref, Z))) <= 1e-6
        np.testing.assert_allclose(ours.predict(Z), ref.predict(xgb.DMatrix(Z)), rtol=1e-6,
                                   atol=1e-6)
    assert list(ours.evals_result()["test"]) == list(result["test"])
    np.testing.assert_allclose(ours.evals_result()["test"][ours.metric_name],
                               result["test"][ours.metric_name], rtol=1e-5)


def test_absoluteerror_leaves_are_eta_times_the_median_residual():
    # hist re-estimates each leaf as eta * median(y - m) over its rows (XGBoost's
    # UpdateTreeLeaf); checked by hand from the trace, not only against XGBoost.
    X, labels, _ = _data(nan=0.0)
    y = labels["reg"]
    bst = boost.train({"objective": "reg:absoluteerror", "tree_method": "hist", "eta": 0.5,
                       "max_depth": 2}, X, y, 2)
    before = bst.round_view(1).margin[:, 0]
    frame = bst.trees_to_dataframe()
    leaves = frame[(frame.Tree == 1) & (frame.Feature == "Leaf")]
    leaf_of_row = bst.round_view(2).leaf[:, 0]
    for _, row in leaves.iterrows():
        rows = leaf_of_row == row.Node
        expected = np.float32(np.median(y[rows] - before[rows]) * np.float32(0.5))
        assert row.Value == pytest.approx(float(expected), abs=2e-6)


def _loss64(objective, m, y, slope=1.0, rho=1.5):
    """Per-row loss in float64; its derivatives are what g and h are."""
    if objective == "reg:pseudohubererror":
        return slope**2 * (np.sqrt(1 + ((m - y) / slope) ** 2) - 1)
    if objective == "reg:absoluteerror":
        return np.abs(m - y)
    if objective == "count:poisson":
        return np.exp(m) - y * m
    if objective == "reg:gamma":
        return y * np.exp(-m) + m
    if objective == "reg:tweedie":
        return -y * np.exp((1 - rho) * m) / (1 - rho) + np.exp((2 - rho) * m) / (2 - rho)
    if objective == "binary:logitraw":
        return np.logaddexp(0, m) - y * m
    if objective == "binary:exponential":
        return np.exp(-(2 * y - 1) * m)
    raise AssertionError(objective)


@pytest.mark.parametrize("objective,label,loss_kw,h_factor", [
    ("reg:pseudohubererror", "reg", {"huber_slope": 1.7}, 1.0),
    ("reg:absoluteerror", "reg", {}, None),  # XGBoost's h is the weight, not |.|'' = 0
    ("count:poisson", "count", {"max_delta_step": 0.7}, np.exp(0.7)),  # h = e^(m + mds)
    ("reg:gamma", "positive", {}, 1.0),
    ("reg:tweedie", "count", {"tweedie_variance_power": 1.3}, 1.0),
    ("binary:logitraw", "binary", {}, 1.0),
    ("binary:exponential", "binary", {}, 1.0),
])
def test_gradients_match_finite_differences(objective, label, loss_kw, h_factor):
    _, labels, _ = _data()
    y = labels[label]
    rng = np.random.default_rng(3)
    margin = rng.normal(scale=0.8, size=(N, 1)).astype(np.float32)
    loss = objectives.LossParams(**loss_kw)
    g, h = objectives.gradients(objective, margin, y, None, loss)
    m = margin[:, 0].astype(np.float64)
    y64 = y.astype(np.float64)
    kw = {"slope": loss.huber_slope, "rho": loss.tweedie_variance_power}
    eps = 1e-4
    up, mid, down = (_loss64(objective, m + eps, y64, **kw), _loss64(objective, m, y64, **kw),
                     _loss64(objective, m - eps, y64, **kw))
    smooth = np.abs(m - y64) > 1e-3  # |m - y| has no derivative at 0
    np.testing.assert_allclose(g[smooth, 0], ((up - down) / (2 * eps))[smooth], rtol=2e-3,
                               atol=2e-4)
    if h_factor is None:
        assert (h == 1).all()
    else:
        np.testing.assert_allclose(h[:, 0], h_factor * (up - 2 * mid + down) / eps**2,
                                   rtol=5e-3, atol=5e-3)


def test_scale_pos_weight_scales_the_positive_rows():
    margin = np.array([[0.3], [-1.2], [2.0]], dtype=np.float32)
    y = np.array([1, 0, 1], dtype=np.float32)
    plain = objectives.gradients("binary:logistic", margin, y, None)
    scaled = objectives.gradients("binary:logistic", margin, y, None,
                                  objectives.LossParams(scale_pos_weight=4.0))
    for a, b in zip(plain, scaled, strict=True):
        np.testing.assert_array_equal(b[:, 0], a[:, 0] * np.array([4, 1, 4], np.float32))


def test_exponential_loss_is_adaboost():
    # AdaBoost's first step by hand: with margins 0, the optimal constant is
    # 0.5 log(sum of positive weights / sum of negative weights), and the prediction is
    # p = sigmoid(2 m).
    y = np.array([1, 1, 1, 0], dtype=np.float32)
    X = np.arange(4, dtype=np.float32).reshape(-1, 1)
    bst = boost.train({"objective": "binary:exponential", "max_depth": 1, "eta": 1.0,
                       "lambda": 0.0, "min_child_weight": 0}, X, y, 0, evals=[(X, y, "train")])
    assert bst.base_margin[0] == pytest.approx(0.5 * np.log(3), rel=1e-6)
    assert bst.predict(X)[0] == pytest.approx(0.75, rel=1e-6)
    assert bst.metric_name == "exponential"
    # exp(-m) for the three positives, exp(m) for the negative: 4 * sqrt(3)/4... averaged.
    expected = (3 * np.exp(-0.5 * np.log(3)) + np.exp(0.5 * np.log(3))) / 4
    assert bst.loss_history()["train"][0] == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("params,y,match", [
    ({"objective": "count:poisson"}, [1, -1, 2], "negative values"),
    ({"objective": "reg:tweedie"}, [1, -1, 2], "negative values"),
    ({"objective": "reg:gamma"}, [1, 0, 2], "values <= 0"),
    ({"objective": "binary:exponential"}, [1, 0.5, 0], "exactly 0 or 1"),
    ({"objective": "binary:logitraw"}, [1, 2, 0], "outside \\[0, 1\\]"),
    ({"objective": "multi:softmax", "num_class": 2}, [0, 1, 2], "not classes 0..1"),
    ({"objective": "reg:pseudohubererror", "huber_slope": 0}, [1, 2, 3], "huber_slope"),
    ({"objective": "reg:tweedie", "tweedie_variance_power": 2.0}, [1, 2, 3], "between 1"),
    ({"subsample": 0}, [1, 2, 3], "subsample"),
    ({"colsample_bynode": 1.5}, [1, 2, 3], "colsample_bynode"),
    ({"scale_pos_weight": -1}, [1, 2, 3], "scale_pos_weight"),
    ({"boosting": "adaboost"}, [1, 2, 3], "first_order"),
    ({"objective": "multi:softmax"}, [0, 1, 2], "num_class"),
    ({"objective": "reg:gamma", "base_score": 0}, [1, 2, 3], "base_score"),
    ({"objective": "count:poisson"}, [0, 0, 0], "not finite"),
])
def test_bad_combinations_are_explained(params, y, match):
    X = np.arange(3, dtype=np.float32).reshape(-1, 1)
    with pytest.raises(ValueError, match=match):
        boost.train(params, X, np.array(y, dtype=np.float32), 2)


def test_poisson_sets_max_delta_step():
    assert boost.train({"objective": "count:poisson"}, np.zeros((3, 1)), [1, 2, 3], 0
                       ).params["max_delta_step"] == pytest.approx(0.7)


@pytest.mark.parametrize("objective,label,extra", [
    ("reg:squarederror", "reg", {}),
    ("binary:logistic", "binary", {}),
    ("count:poisson", "count", {}),
    ("multi:softprob", "class3", {"num_class": 3}),
])
def test_early_stopping_matches_xgboost(objective, label, extra):
    X, labels, _ = _data()
    X_valid, labels_valid, _ = _data(seed=5)
    y, y_valid = labels[label], labels_valid[label]
    params = {"objective": objective, "eta": 0.5, "max_depth": 5, "tree_method": "hist",
              **extra}
    evals = [(X, y, "train_again"), (X_valid, y_valid, "valid")]
    ours = boost.train(params, X, y, 200, evals=evals, early_stopping_rounds=4)
    ref = xgb.train({"nthread": 1, **params}, xgb.DMatrix(X, label=y), 200,
                    evals=[(xgb.DMatrix(Xe, label=ye), n) for Xe, ye, n in evals],
                    early_stopping_rounds=4, verbose_eval=False)
    assert ours.best_iteration == ref.best_iteration
    assert ours.best_score == pytest.approx(ref.best_score, rel=1e-6)
    assert ours.num_boosted_rounds() == ref.num_boosted_rounds() < 200
    assert ours.get_dump() == ref.get_dump(dump_format="json", with_stats=True)


def test_early_stopping_needs_an_eval_set():
    with pytest.raises(ValueError, match="evaluation set"):
        boost.train({}, np.arange(6.0).reshape(-1, 1), np.arange(6.0), 5,
                    early_stopping_rounds=2)


def test_weighted_evaluation_set_matches_xgboost():
    X, labels, weight = _data()
    y = labels["count"]
    params = {"objective": "count:poisson", "max_depth": 3}
    ours = boost.train(params, X, y, 5, evals=[(X, y, "w", weight)])
    ref_result = {}
    xgb.train({"nthread": 1, **params}, xgb.DMatrix(X, label=y), 5,
              evals=[(xgb.DMatrix(X, label=y, weight=weight), "w")], evals_result=ref_result,
              verbose_eval=False)
    np.testing.assert_allclose(ours.evals_result()["w"]["poisson-nloglik"],
                               ref_result["w"]["poisson-nloglik"], rtol=1e-6)
