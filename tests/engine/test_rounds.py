"""Trace.rounds: every round's predictions, equal bit for bit to XGBoost 3.2's
``predict(..., iteration_range=(0, r))``, and each round's tree as the tree track's columns."""

import numpy as np
import pytest
import xgboost as xgb

import boost
from boost.trace.fit import predictions_at
from boost.trace.rounds import (
    KIND_CUT,
    KIND_LEAF,
    KIND_PRUNED_LEAF,
    KIND_PRUNED_SPLIT,
    KIND_REFUSED,
    KIND_SPLIT,
    ROUND_GRID,
)
from tests.oracle import xgb_train

CASES = {  # objective, features, extra params
    "regression": ("reg:squarederror", 3, {}),
    "binary": ("binary:logistic", 3, {}),
    "multiclass": ("multi:softprob", 3, {"num_class": 3}),
    "curve": ("reg:squarederror", 1, {}),
    "binary curve": ("binary:logistic", 1, {}),
    "surface": ("binary:logistic", 2, {}),
    "multiclass surface": ("multi:softprob", 2, {"num_class": 3}),
}


def _data(objective, n_features, seed=0, n=600):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    X[rng.random(X.shape) < 0.05] = np.nan
    signal = np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, -1])
    if objective.startswith("multi"):
        y = np.digitize(signal, [-0.5, 0.5]).astype(float)
    elif objective.startswith("binary"):
        y = (signal + rng.normal(size=n) * 0.5 > 0).astype(float)
    else:
        y = signal + rng.normal(size=n) * 0.3
    return X, y


def _model(case, method, rounds=12):
    objective, n_features, extra = CASES[case]
    X, y = _data(objective, n_features)
    params = {"objective": objective, "tree_method": method, "max_depth": 4, "gamma": 0.5,
              "eta": 0.4, **extra}
    return params, X, y, boost.train(params, X, y, rounds)


def _points(data):
    if data.kind == "curve":
        return data.grid[0][:, None]
    if data.kind == "surface":
        gx, gy = data.grid
        return np.array(np.meshgrid(gx, gy)).reshape(2, -1).T
    return None


@pytest.mark.parametrize("method", ["exact", "hist"])
@pytest.mark.parametrize("case", list(CASES))
def test_every_round_equals_xgboost(case, method):
    params, X, y, model = _model(case, method)
    rows = np.arange(0, len(X), 3)
    data = model.trace.rounds(X, y, rows)
    at = _points(data)
    at = X[rows] if at is None else at
    ref, _ = xgb_train(params, X, y, model.num_boosted_rounds())
    d = xgb.DMatrix(at, missing=np.nan)
    assert data.now.shape[0] == model.num_boosted_rounds() + 1
    np.testing.assert_array_equal(data.now[0], predictions_at(model, at, 0))
    for r in range(1, model.num_boosted_rounds() + 1):
        expected = ref.predict(d, iteration_range=(0, r))
        np.testing.assert_array_equal(data.now[r], expected.reshape(data.now[r].shape),
                                      err_msg=f"round {r}")


@pytest.mark.parametrize("case", ["curve", "binary curve", "surface"])
def test_the_rounds_own_tree_equals_the_fits(case):
    _, X, y, model = _model(case, "hist")
    rows = np.arange(len(X))
    data = model.trace.rounds(X, y, rows)
    for r in range(model.num_boosted_rounds() + 1):
        fit = model.trace.fit(X, y, r, rows, grid=ROUND_GRID)
        np.testing.assert_array_equal(data.now[r], fit.now)
        if data.kind == "curve":
            expected = fit.step if r else np.zeros_like(data.step[0])
            np.testing.assert_array_equal(data.step[r], expected)
        else:
            expected = fit.leaves if r else np.full_like(data.leaves[0], -1)
            np.testing.assert_array_equal(data.leaves[r], expected)
    assert model.trace.rounds(X, y, rows) is data  # cached once per model and data


@pytest.mark.parametrize("method", ["exact", "hist"])
def test_tree_columns_are_the_frames(method):
    params, X, y, model = _model("multiclass", method)
    frame = model.trees_to_dataframe(include_pruned=True)
    for klass in range(3):
        trees = model.trace.rounds(X, y, np.arange(10), class_idx=klass).trees
        cols = trees.columns
        assert {len(v) for v in cols.values()} == {trees.offsets[-1]}
        for r in (1, 5, model.num_boosted_rounds()):
            part = frame[frame.Tree == (r - 1) * 3 + klass].reset_index(drop=True)
            a, b = trees.offsets[r - 1], trees.offsets[r]
            np.testing.assert_array_equal(cols["node"][a:b], part.Node)
            np.testing.assert_array_equal(cols["parent"][a:b], part.Parent)
            yes = [int(v.split("-")[1]) if isinstance(v, str) else -1 for v in part.Yes]
            missing = [int(v.split("-")[1]) if isinstance(v, str) else -1 for v in part.Missing]
            np.testing.assert_array_equal(cols["yes"][a:b], yes)
            np.testing.assert_array_equal(cols["missing"][a:b], missing)
            np.testing.assert_array_equal(cols["value"][a:b], part.Value.astype(np.float32))
            np.testing.assert_array_equal(cols["sum_hess"][a:b], part.SumHess.astype(np.float32))
            names = [model.feature_names[f] if f >= 0 else "Leaf" for f in cols["feature"][a:b]]
            np.testing.assert_array_equal(names, part.Feature)
            reasons = [trees.reasons[i] for i in cols["reason"][a:b]]
            np.testing.assert_array_equal(reasons, part.Reason)
            leaves = np.sum(cols["yes"][a:b] < 0)
            assert trees.slots[r - 1] == leaves


def _expected_kind(row) -> int:
    """docs/player.md's kinds, read row by row from the frame (viz.pruning's reading)."""
    has_split, grown = row.Feature != "Leaf", isinstance(row.Yes, str)
    if row.Pruned:
        return KIND_PRUNED_SPLIT if grown else KIND_PRUNED_LEAF
    if grown:
        return KIND_CUT if row.Leaf else KIND_SPLIT
    return KIND_REFUSED if has_split else KIND_LEAF


@pytest.mark.parametrize("method", ["exact", "hist"])
def test_node_kinds(method):
    params, X, y, model = _model("regression", method)
    frame = model.trees_to_dataframe(include_pruned=True)
    kinds = model.trace.rounds(X, y, np.arange(10)).trees.columns["kind"]
    expected = [_expected_kind(row) for row in frame.itertuples()]
    np.testing.assert_array_equal(kinds, expected)
    # γ = 0.5 did something: exact prunes (cut and ghosts), hist refuses
    found = set(kinds.tolist())
    assert ({KIND_CUT, KIND_PRUNED_LEAF} <= found) if method == "exact" else KIND_REFUSED in found


def test_a_model_of_single_leaf_trees_has_no_children():
    # γ = 130 refuses the four points' only split under hist: every tree is its root leaf
    X = np.array([[10.0], [20.0], [25.0], [35.0]])
    y = np.array([-10.0, 7.0, 8.0, -7.0])
    booster = boost.train({"tree_method": "hist", "gamma": 130, "max_depth": 2, "lambda": 0,
                           "base_score": 0.5}, X, y, 3)
    trees = booster.trace.rounds(X, y, np.arange(4)).trees
    assert list(np.diff(trees.offsets)) == [1, 1, 1]
    for column in ("yes", "no", "missing"):
        assert list(trees.columns[column]) == [-1, -1, -1]
    assert list(trees.columns["kind"]) == [3, 3, 3]  # each a leaf whose split γ refused
