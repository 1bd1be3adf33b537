"""XGBoost 3.2 as the oracle, for exact, hist and approx: identical trees, dumps, margins."""

import json

import numpy as np
import pandas as pd
import pytest
from datasets import make_data
from oracle import xgb_margin, xgb_train

import boost

OBJECTIVES = ["reg:squarederror", "binary:logistic", "multi:softprob"]
METHODS = ["exact", "hist", "approx"]

# (lambda, alpha, gamma, min_child_weight, max_delta_step, max_depth, nan, ties, base_score)
SWEEP = [
    (1, 0, 0, 1, 0, 3, 0.0, False, None),
    (0, 0, 0, 0, 0, 4, 0.0, False, None),  # lambda 0 and min_child_weight 0
    (1, 0.5, 0.5, 1, 0, 6, 0.15, False, None),  # alpha, NaN
    (1, 0, 2.0, 5, 0, 5, 0.3, True, None),  # gamma that prunes, ties, NaN-heavy
    (2, 1, 0, 0, 0.7, 4, 0.1, True, 0.5),  # max_delta_step with alpha, base_score set
    (1, 0, 0, 10, 0, 8, 0.0, True, None),  # large min_child_weight, depth 8
    (0.5, 0, 1, 1, 0, 1, 0.5, False, 0.3),  # stumps, half missing
    (1, 0, 0, 1, 0, 2, 0.0, True, None),  # heavy ties
]


def _params(objective, case, method):
    lam, alpha, gamma, mcw, mds, depth, _, _, base_score = case
    params = {"tree_method": method, "objective": objective, "eta": 0.3, "reg_lambda": lam,
              "alpha": alpha,
              "gamma": gamma, "min_child_weight": mcw, "max_delta_step": mds,
              "max_depth": depth}
    if objective == "multi:softprob":
        params["num_class"] = 3
    if base_score is not None:
        params["base_score"] = base_score
    return params


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize("case", SWEEP, ids=[f"case{i}" for i in range(len(SWEEP))])
def test_identical_trees_and_margins(objective, case, method):
    nan, ties = case[6], case[7]
    X, y = make_data(seed=1, nan=nan, ties=ties, objective=objective)
    X_test, _ = make_data(seed=2, nan=nan, ties=ties, objective=objective)
    params = _params(objective, case, method)
    ours = boost.train(params, X, y, 8)
    ref, _ = xgb_train(params, X, y, 8)
    assert ours.get_dump("json") == ref.get_dump(dump_format="json", with_stats=True)
    assert ours.get_dump("text") == ref.get_dump(dump_format="text", with_stats=True)
    for data in (X, X_test):
        diff = np.abs(ours.predict(data, output_margin=True) - xgb_margin(ref, data))
        assert diff.max() <= 1e-6


# Long columns: exact searches segments of >= 512 entries by strip bounds (32- and 64-entry
# strips, the latter from 8192 entries), hist/approx use the multi-level sketch.
LONG_SWEEP = [SWEEP[0], SWEEP[1], SWEEP[2], SWEEP[3], SWEEP[5]]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("case", LONG_SWEEP, ids=[f"case{i}" for i in range(len(LONG_SWEEP))])
def test_identical_trees_on_long_columns(case, method):
    nan, ties = case[6], case[7]
    X, y = make_data(seed=14, n=12000, nan=nan, ties=ties, objective="binary:logistic")
    params = _params("binary:logistic", case, method)
    ours = boost.train(params, X, y, 6)
    ref, _ = xgb_train(params, X, y, 6)
    assert ours.get_dump("json") == ref.get_dump(dump_format="json", with_stats=True)
    diff = np.abs(ours.predict(X, output_margin=True) - xgb_margin(ref, X))
    assert diff.max() <= 1e-6


@pytest.mark.parametrize("nthread", [1, 2])
def test_identical_trees_when_features_are_searched_in_pairs(nthread):
    # exact runs two features' first passes side by side when the threads stay balanced:
    # 10 features give 5 pairs on 1 thread, 4 pairs and 2 single features on 2 (5 features,
    # as in the tests above, give single ones only). Missing rates differ by column (none in
    # column 0), so the two segments of a pair differ in length and in the directions
    # scanned.
    rng = np.random.default_rng(21)
    X = rng.normal(size=(9000, 10))
    for j in range(1, 10):
        X[rng.random(len(X)) < 0.04 * j, j] = np.nan
    y = (X[:, 0] + np.nan_to_num(X[:, 3]) * np.nan_to_num(X[:, 5]) > 0.2).astype(float)
    params = {"tree_method": "exact", "objective": "binary:logistic", "max_depth": 5,
              "nthread": nthread}
    ours = boost.train(params, X, y, 4)
    ref, _ = xgb_train(params, X, y, 4)
    assert ours.get_dump("json") == ref.get_dump(dump_format="json", with_stats=True)
    diff = np.abs(ours.predict(X, output_margin=True) - xgb_margin(ref, X))
    assert diff.max() <= 1e-6


@pytest.mark.parametrize("vector", [True, False])
def test_identical_trees_with_either_partition(vector, monkeypatch):
    # exact partitions a node's entries eight at a time in vector instructions where the
    # processor has AVX-512 (boost.simd.compress), else one by one; each must give XGBoost's
    # trees. Missing rates differ by column, so the entry counts per feature and child (which
    # the partition is given in advance) differ too (test_sampling's subsample test covers
    # rows in no segment, whose h < 0).
    monkeypatch.setattr("boost.simd.VECTOR_SPLIT", vector)
    rng = np.random.default_rng(22)
    X = rng.normal(size=(3001, 7))
    for j in range(7):
        X[rng.random(len(X)) < 0.05 * j, j] = np.nan
    y = (np.nan_to_num(X[:, 1]) - X[:, 0] * np.nan_to_num(X[:, 4]) > 0.1).astype(float)
    params = {"tree_method": "exact", "objective": "binary:logistic", "max_depth": 6}
    ours = boost.train(params, X, y, 3)
    ref, _ = xgb_train(params, X, y, 3)
    assert ours.get_dump("json") == ref.get_dump(dump_format="json", with_stats=True)
    diff = np.abs(ours.predict(X, output_margin=True) - xgb_margin(ref, X))
    assert diff.max() <= 1e-6


@pytest.mark.parametrize("method", METHODS)
def test_dump_without_stats_and_with_feature_names(method):
    X, y = make_data(seed=3, nan=0.2)
    frame = pd.DataFrame(X, columns=["age", "income", "my score", "x3", "const"])
    params = {"max_depth": 3, "tree_method": method}
    ours = boost.train(params, frame, y, 3)
    ref, _ = xgb_train(params, frame, y, 3)
    assert ours.get_dump("json", with_stats=False) == ref.get_dump(dump_format="json")
    assert ours.get_dump("text", with_stats=False) == ref.get_dump(dump_format="text")
    assert ours.feature_names == ["age", "income", "my score", "x3", "const"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("objective", OBJECTIVES)
def test_trees_to_dataframe_matches(objective, method):
    X, y = make_data(seed=4, nan=0.1, objective=objective)
    params = {"objective": objective, "max_depth": 4, "gamma": 1.0, "tree_method": method}
    if objective == "multi:softprob":
        params["num_class"] = 3
    ours = boost.train(params, X, y, 5).trees_to_dataframe()
    ref = xgb_train(params, X, y, 5)[0].trees_to_dataframe()
    cols = ["Tree", "Node", "ID", "Feature", "Split", "Yes", "No", "Missing", "Gain", "Cover"]
    pd.testing.assert_frame_equal(ours[cols].astype(object), ref[cols].astype(object))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("importance_type", ["weight", "gain", "cover", "total_gain",
                                             "total_cover"])
def test_get_score_matches(importance_type, method):
    X, y = make_data(seed=5, objective="binary:logistic", nan=0.1)
    params = {"objective": "binary:logistic", "max_depth": 4, "gamma": 0.5, "tree_method": method}
    ours = boost.train(params, X, y, 10).get_score(importance_type=importance_type)
    ref = xgb_train(params, X, y, 10)[0].get_score(importance_type=importance_type)
    assert ours.keys() == ref.keys()
    for key, value in ref.items():
        assert ours[key] == pytest.approx(value, rel=1e-6)


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_eval_losses_match(objective):
    X, y = make_data(seed=6, objective=objective)
    X_val, y_val = make_data(seed=7, objective=objective)
    params = {"objective": objective, "max_depth": 3}
    if objective == "multi:softprob":
        params["num_class"] = 3
    ours = boost.train(params, X, y, 6, evals=[(X, y, "train"), (X_val, y_val, "valid")])
    _, ref = xgb_train(params, X, y, 6, evals=[(X, y, "train"), (X_val, y_val, "valid")])
    metric = ours.metric_name
    np.testing.assert_allclose(ours.evals_result()["valid"][metric], ref["valid"][metric],
                               rtol=1e-5)
    history = ours.loss_history()
    assert len(history) == 7  # round 0 (baseline) + 6 rounds
    np.testing.assert_allclose(history["train"].to_numpy()[1:], ref["train"][metric], rtol=1e-5)


@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize("weighted", [False, True])
def test_estimated_base_score_matches(objective, weighted):
    X, y = make_data(seed=8, objective=objective)
    weight = np.random.default_rng(0).uniform(0.5, 2.0, len(y)) if weighted else None
    params = {"objective": objective, "max_depth": 2}
    if objective == "multi:softprob":
        params["num_class"] = 3
    # XGBoost estimates the intercept at its first boosting round.
    ours = boost.train(params, X, y, 1, sample_weight=weight)
    ref, _ = xgb_train(params, X, y, 1, sample_weight=weight)
    config = json.loads(ref.save_config())["learner"]["learner_model_param"]["base_score"]
    ref_score = np.array(json.loads(config), dtype=np.float32).reshape(-1)
    np.testing.assert_array_equal(ours.base_score, ref_score)
    margin = ours.predict(X, output_margin=True)
    np.testing.assert_allclose(margin, xgb_margin(ref, X), atol=1e-6)


@pytest.mark.parametrize("method", METHODS)
def test_sample_weights_give_identical_trees(method):
    X, y = make_data(seed=9, nan=0.1, objective="binary:logistic")
    weight = np.random.default_rng(1).uniform(0.0, 3.0, len(y))
    params = {"objective": "binary:logistic", "max_depth": 4, "min_child_weight": 0.5,
              "tree_method": method}
    ours = boost.train(params, X, y, 5, sample_weight=weight)
    ref, _ = xgb_train(params, X, y, 5, sample_weight=weight)
    assert ours.get_dump() == ref.get_dump(dump_format="json", with_stats=True)


def test_multiclass_tree_layout():
    X, y = make_data(seed=10, objective="multi:softprob", num_class=4)
    params = {"objective": "multi:softprob", "num_class": 4, "max_depth": 2}
    bst = boost.train(params, X, y, 3)
    df = bst.trees_to_dataframe()
    assert sorted(df.Tree.unique()) == list(range(12))
    first = df.groupby("Tree").first()
    assert (first.Class.to_numpy() == np.tile(np.arange(4), 3)).all()
    assert (first.Round.to_numpy() == np.repeat([1, 2, 3], 4)).all()
    proba = bst.predict(X)
    assert proba.shape == (len(y), 4)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-6)


def test_iteration_range_matches():
    X, y = make_data(seed=11)
    ours = boost.train({"max_depth": 3}, X, y, 6)  # both default to hist
    ref, _ = xgb_train({"max_depth": 3}, X, y, 6)
    import xgboost as xgb

    for begin, end in [(0, 3), (2, 5), (0, 6)]:
        expected = ref.predict(xgb.DMatrix(X), iteration_range=(begin, end), output_margin=True)
        got = ours.predict(X, iteration_range=(begin, end), output_margin=True)
        np.testing.assert_allclose(got, expected, atol=1e-6)


@pytest.mark.parametrize("method", METHODS)
def test_results_do_not_depend_on_threads(method):
    X, y = make_data(seed=12, n=40000, n_features=8, nan=0.1, objective="binary:logistic")
    params = {"objective": "binary:logistic", "max_depth": 6, "tree_method": method}
    one = boost.train({**params, "nthread": 1}, X, y, 5)
    two = boost.train({**params, "nthread": 2}, X, y, 5)
    assert one.get_dump() == two.get_dump()
    np.testing.assert_array_equal(one.predict(X), two.predict(X))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("case", ["all_nan_column", "two_rows", "one_class_only",
                                  "zero_weights", "huge_values"])
def test_edge_cases_match(case, method):
    rng = np.random.default_rng(13)
    X = rng.normal(size=(60, 3))
    y = X[:, 0] * 2 + rng.normal(size=60)
    params = {"max_depth": 3, "min_child_weight": 0.5, "tree_method": method}
    weight = None
    if case == "all_nan_column":
        X[:, 1] = np.nan
    elif case == "two_rows":
        X, y = X[:2], y[:2]
    elif case == "one_class_only":
        params["objective"] = "binary:logistic"
        y = np.zeros(60)
    elif case == "zero_weights":
        weight = rng.uniform(0, 2, 60)
        weight[::3] = 0.0
    elif case == "huge_values":
        X = X * 1e30
    ours = boost.train(params, X, y, 4, sample_weight=weight)
    ref, _ = xgb_train(params, X, y, 4, sample_weight=weight)
    assert ours.get_dump() == ref.get_dump(dump_format="json", with_stats=True)
    diff = np.abs(ours.predict(X, output_margin=True) - xgb_margin(ref, X))
    assert diff.max() <= 1e-6


def test_the_training_metric_only_when_asked_for(monkeypatch):
    # As XGBoost: no evaluation set, no metric; the training data passed as one ("train")
    # gets its loss from the training margins, equal to XGBoost's and to predicting it again.
    X, y = make_data(seed=5, objective="binary:logistic")
    params = {"objective": "binary:logistic", "tree_method": "hist", "max_depth": 3}
    asked = boost.train(params, X, y, 5, evals=[(X, y, "train")])
    again = boost.train(params, X, y, 5, evals=[(X.copy(), y.copy(), "train")])
    _, ref = xgb_train(params, X, y, 5, evals=[(X, y, "train")])
    np.testing.assert_allclose(asked.evals_result()["train"]["logloss"], ref["train"]["logloss"],
                               rtol=1e-6)
    np.testing.assert_allclose(asked.loss_history()["train"], again.loss_history()["train"],
                               rtol=1e-12)

    def no_metric(*args, **kwargs):
        raise AssertionError("a metric was computed that nobody asked for")

    from boost import metrics
    monkeypatch.setattr(metrics, "gradients_and_metric", no_metric)
    monkeypatch.setattr(metrics, "metric", no_metric)
    bare = boost.train(params, X, y, 5)
    assert bare.get_dump() == asked.get_dump()
    assert bare.evals_result() == {} and bare.loss_history().empty
