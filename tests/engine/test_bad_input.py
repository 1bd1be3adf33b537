"""Bad data gets a ValueError that says what is wrong; nothing reaches numba."""

import numpy as np
import pandas as pd
import pytest

import boost

X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
y = np.array([0.0, 1.0, 0.0])


@pytest.mark.parametrize("X_bad,y_bad,params,match", [
    (X, y[:2], {}, "2 value\\(s\\) but X has 3 row"),
    (np.empty((0, 2)), np.empty(0), {}, "no rows"),
    (X[:1], y[:1], {}, "at least 2 rows"),
    (np.array([1.0, 2.0, 3.0]), y, {}, "must be 2-D"),
    (np.array([["a", "b"]] * 3), y, {}, "not numbers"),
    (np.array([[1.0, np.inf], [2.0, 3.0], [4.0, 5.0]]), y, {}, "infinite"),
    (np.array([[1e39, 1.0], [2.0, 3.0], [4.0, 5.0]]), y, {}, "too large for float32"),
    (X, np.array([0.0, np.nan, 1.0]), {}, "missing or infinite"),
    (X, np.array([0.0, 2.0, 1.0]), {"objective": "binary:logistic"}, "outside \\[0, 1\\]"),
    (X, np.array([0.0, 3.0, 1.0]), {"objective": "multi:softprob", "num_class": 3},
     "not classes 0..2"),
    (X, np.array([0.0, 0.5, 1.0]), {"objective": "multi:softprob", "num_class": 3},
     "not classes"),
    (X, np.array(["a", "b", "c"]), {}, "not numbers"),
])
def test_bad_data_is_explained(X_bad, y_bad, params, match):
    with pytest.raises(ValueError, match=match):
        boost.train(params, X_bad, y_bad, 1)


def test_non_numeric_dataframe_column_is_named():
    frame = pd.DataFrame({"age": [1.0, 2.0, 3.0], "city": ["a", "b", "c"]})
    with pytest.raises(ValueError, match="non-numeric column\\(s\\) \\['city'\\]"):
        boost.train({}, frame, y, 1)


def test_bool_and_nullable_columns_are_numbers():
    frame = pd.DataFrame({"flag": [True, False, True],
                          "n": pd.array([1, None, 3], dtype="Int64")})
    bst = boost.train({"max_depth": 1}, frame, y, 1)
    assert bst.feature_names == ["flag", "n"]


@pytest.mark.parametrize("weight,match", [
    ([1.0, -1.0, 1.0], "negative"),
    ([0.0, 0.0, 0.0], "zero everywhere"),
    ([1.0, 1.0], "same length"),
])
def test_bad_weights(weight, match):
    with pytest.raises(ValueError, match=match):
        boost.train({}, X, y, 1, sample_weight=np.array(weight))


def test_bad_evals_and_rounds():
    with pytest.raises(ValueError, match="tuple \\(X, y, name\\)"):
        boost.train({}, X, y, 1, evals=[(X, y)])
    with pytest.raises(ValueError, match="1 feature\\(s\\) but the model was trained on 2"):
        boost.train({}, X, y, 1, evals=[(X[:, :1], y, "valid")])
    with pytest.raises(ValueError, match="already used"):
        boost.train({}, X, y, 1, evals=[(X, y, "valid"), (X, y, "valid")])
    with pytest.raises(ValueError, match="num_boost_round"):
        boost.train({}, X, y, -1)


def test_predict_and_trace_arguments_are_checked():
    bst = boost.train({"max_depth": 1}, X, y, 2)
    with pytest.raises(ValueError, match="trained on 2"):
        bst.predict(X[:, :1])
    with pytest.raises(ValueError, match="iteration_range"):
        bst.predict(X, iteration_range=(0, 5))
    with pytest.raises(ValueError, match="round 0 is the baseline"):
        bst.split_candidates(0, 0)
    with pytest.raises(ValueError, match="not a node"):
        bst.split_candidates(1, 99)
    with pytest.raises(ValueError, match="out of range"):
        bst.round_view(3)
    with pytest.raises(ValueError, match="importance_type"):
        bst.get_score("split")
