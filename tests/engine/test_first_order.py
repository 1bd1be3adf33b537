"""First-order (Friedman) gradient boosting: the tree is a least-squares fit to -g (XGBoost
with h = 1 as the oracle for the structure), each leaf minimises the true loss (checked by
the loss's derivative and by hand), and the trace, dumps and views work as for Newton."""

import numpy as np
import pytest
import xgboost as xgb

import boost
from boost import objectives

N = 300


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, 4)).astype(np.float32)
    X[rng.random(X.shape) < 0.05] = np.nan
    b = np.nan_to_num(X)
    return X, {
        "reg": (b[:, 0] * 3 + rng.standard_t(2, size=N)).astype(np.float32),
        "count": rng.poisson(np.exp(b[:, 1])).astype(np.float32),
        "positive": (rng.gamma(2.0, np.exp(b[:, 1])) + 0.01).astype(np.float32),
        "binary": (b[:, 0] + rng.normal(size=N) > 0).astype(np.float32),
        "class3": rng.integers(0, 3, N).astype(np.float32),
    }


CASES = [("reg:squarederror", "reg", {}), ("reg:absoluteerror", "reg", {}),
         ("reg:pseudohubererror", "reg", {"huber_slope": 2.0}), ("count:poisson", "count",
                                                                  {"max_delta_step": 0}),
         ("reg:gamma", "positive", {}), ("reg:tweedie", "count", {}),
         ("binary:logistic", "binary", {}), ("binary:exponential", "binary", {}),
         ("multi:softprob", "class3", {"num_class": 3})]


# Friedman's one Newton step instead of the exact minimiser (infinite on a pure leaf).
NEWTON_STEP = ("binary:logistic", "binary:exponential", "multi:softprob")


def _total_loss(objective, loss, m, y, w):
    """sum w * l(y, m) in float64 (the loss the leaf value minimises)."""
    m = m.astype(np.float64)
    y = y.astype(np.float64)
    if objective == "reg:squarederror":
        row = 0.5 * (y - m) ** 2
    elif objective == "reg:absoluteerror":
        row = np.abs(y - m)
    elif objective == "reg:pseudohubererror":
        d = loss.huber_slope
        row = d * d * (np.sqrt(1 + ((y - m) / d) ** 2) - 1)
    elif objective == "count:poisson":
        row = np.exp(m) - y * m
    elif objective == "reg:gamma":
        row = y * np.exp(-m) + m
    elif objective == "reg:tweedie":
        rho = loss.tweedie_variance_power
        row = -y * np.exp((1 - rho) * m) / (1 - rho) + np.exp((2 - rho) * m) / (2 - rho)
    elif objective == "binary:exponential":
        row = np.exp(-(2 * y - 1) * m)
    else:
        raise AssertionError(objective)
    return float(np.sum(w * row))


@pytest.mark.parametrize("method", ["exact", "hist"])
@pytest.mark.parametrize("objective,label,extra", CASES, ids=[c[0] for c in CASES])
def test_tree_is_least_squares_on_the_negative_gradient(objective, label, extra, method):
    # The first tree's splits equal XGBoost's fit to (g, h = 1) at the same margin.
    X, labels = _data()
    y = labels[label]
    params = {"objective": objective, "tree_method": method, "boosting": "first_order",
              "max_depth": 3, "eta": 0.5, "lambda": 1.0, **extra}
    ours = boost.train(params, X, y, 1)
    g, _ = objectives.gradients(objective, ours.round_view(0).margin, y, None,
                                boost.params.parse_params(params).loss)

    def least_squares_on_g(predt, dtrain):
        return g.reshape(predt.shape), np.ones(predt.shape, dtype=np.float32)

    n_class = extra.get("num_class", 1)
    ref_params = {"tree_method": method, "max_depth": 3, "eta": 0.5, "lambda": 1.0,
                  "nthread": 1, "base_score": 0.0}
    if n_class > 1:
        ref_params.update(num_class=n_class, objective="multi:softprob")
    ref = xgb.train(ref_params, xgb.DMatrix(X, label=y), 1, obj=least_squares_on_g)
    cols = ["Tree", "Node", "Feature", "Split", "Yes", "No", "Missing", "Gain", "Cover"]
    a = ours.trees_to_dataframe()[cols].reset_index(drop=True)
    b = ref.trees_to_dataframe()[cols].reset_index(drop=True)
    assert a.Feature.tolist() == b.Feature.tolist()
    internal = a.Feature != "Leaf"
    np.testing.assert_array_equal(a.Split[internal].to_numpy(), b.Split[internal].to_numpy())
    np.testing.assert_allclose(a.Gain[internal], b.Gain[internal], rtol=1e-6)
    np.testing.assert_allclose(a.Cover, b.Cover, rtol=1e-9)


@pytest.mark.parametrize("objective,label,extra",
                         [c for c in CASES if c[0] not in NEWTON_STEP],
                         ids=[c[0] for c in CASES if c[0] not in NEWTON_STEP])
def test_each_leaf_minimises_the_loss(objective, label, extra):
    X, labels = _data()
    y = labels[label]
    w = np.random.default_rng(1).uniform(0.5, 2, N).astype(np.float32)
    params = {"objective": objective, "boosting": "first_order", "max_depth": 3, "eta": 0.3,
              **extra}
    bst = boost.train(params, X, y, 3, sample_weight=w)
    loss = boost.params.parse_params(params).loss
    for r in (1, 3):
        before, after = bst.round_views(r)
        frame = bst.trees_to_dataframe()
        leaves = frame[(frame.Round == r) & (frame.Feature == "Leaf")]
        for _, leaf in leaves.iterrows():
            rows = after.leaf[:, 0] == leaf.Node
            m = before.margin[rows, 0].astype(np.float64)
            v = float(leaf.Weight)

            def total(step, m=m, rows=rows):
                return _total_loss(objective, loss, m + step, y[rows], w[rows])

            step = 1e-3 * max(1.0, abs(v))
            assert total(v) <= total(v + step) + 1e-9
            assert total(v) <= total(v - step) + 1e-9


def test_logistic_leaf_is_friedmans_newton_step_and_squared_error_is_the_mean():
    X, labels = _data()
    for objective, label in (("binary:logistic", "binary"), ("reg:squarederror", "reg"),
                             ("binary:exponential", "binary")):
        y = labels[label]
        bst = boost.train({"objective": objective, "boosting": "first_order", "max_depth": 2,
                           "eta": 0.1}, X, y, 2)
        before, after = bst.round_views(2)
        frame = bst.trees_to_dataframe()
        for _, leaf in frame[(frame.Round == 2) & (frame.Feature == "Leaf")].iterrows():
            rows = after.leaf[:, 0] == leaf.Node
            m = before.margin[rows, 0].astype(np.float64)
            if objective == "binary:logistic":
                p = 1 / (1 + np.exp(-m))
                expected = np.sum(y[rows] - p) / np.sum(p * (1 - p))
            elif objective == "binary:exponential":
                t = 2.0 * y[rows] - 1
                expected = np.sum(t * np.exp(-t * m)) / np.sum(np.exp(-t * m))
            else:
                expected = np.mean(y[rows] - m)
            assert leaf.Weight == pytest.approx(expected, rel=1e-5, abs=1e-6)
            assert leaf.Value == pytest.approx(np.float32(leaf.Weight) * np.float32(0.1),
                                               rel=1e-6)


def test_multiclass_leaf_is_friedmans_formula():
    X, labels = _data()
    y = labels["class3"]
    bst = boost.train({"objective": "multi:softprob", "num_class": 3,
                       "boosting": "first_order", "max_depth": 2}, X, y, 1)
    view = bst.round_view(1)
    p = bst.round_view(0).prediction.astype(np.float64)
    frame = bst.trees_to_dataframe()
    for k in range(3):
        for _, leaf in frame[(frame.Class == k) & (frame.Feature == "Leaf")].iterrows():
            rows = view.leaf[:, k] == leaf.Node
            r = (y[rows] == k) - p[rows, k]
            expected = 2 / 3 * r.sum() / np.sum(np.abs(r) * (1 - np.abs(r)))
            assert leaf.Weight == pytest.approx(expected, rel=1e-5)


def test_squared_error_first_order_with_lambda_zero_is_xgboost():
    # h = 1 already, and the mean of the residuals is -G/H: Newton and Friedman coincide.
    X, labels = _data()
    y = labels["reg"]
    params = {"lambda": 0.0, "max_depth": 4, "eta": 0.3, "tree_method": "exact"}
    first = boost.train({**params, "boosting": "first_order"}, X, y, 5)
    ref = xgb.train({"nthread": 1, **params}, xgb.DMatrix(X, label=y), 5)
    assert first.get_dump() == ref.get_dump(dump_format="json", with_stats=True)


def test_first_order_loss_decreases_and_views_work():
    X, labels = _data()
    y = labels["count"]
    bst = boost.train({"objective": "count:poisson", "boosting": "first_order"}, X, y, 20,
                      evals=[(X, y, "train")])
    train = bst.loss_history()["train"].to_numpy()
    assert (np.diff(train) < 1e-9).all()
    g, h, rows = bst.tree_gradients(5)
    assert rows is None and (h == 1).all()
    cand = bst.split_candidates(5, 0)
    assert cand.Best.sum() == 1


def test_pure_leaves_stay_bounded():
    # Two separable moons: deep first-order trees have leaves of one class only, where the
    # exact minimiser of the logistic or exponential loss is infinite. Friedman's Newton step
    # keeps |w| <= 1 (exponential) and the validation loss finite and near the train loss.
    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 2)).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.float32)
    X_valid = rng.normal(size=(200, 2)).astype(np.float32)
    y_valid = (X_valid[:, 0] > 0).astype(np.float32)
    bst = boost.train({"objective": "binary:exponential", "boosting": "first_order",
                       "max_depth": 4}, X, y, 20, evals=[(X_valid, y_valid, "valid")])
    frame = bst.trees_to_dataframe()
    assert frame[frame.Feature == "Leaf"].Weight.abs().max() <= 1.0
    history = bst.loss_history()
    assert history["valid"].iloc[-1] < history["valid"].iloc[0] < 1.01
