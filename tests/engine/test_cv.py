"""boost.cv and the cross-validated sweep against xgboost.cv: the same folds (XGBoost's draw
from a seed, or folds given), the same table (each fold's training and test loss, their
mean and population standard deviation per round), early stopping on the mean test loss
ending the table at the best round; bad folds get a message."""

import numpy as np
import pytest
import xgboost as xgb
from datasets import make_data

import boost
from boost.cv import kfold


def _binary(n=240, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    X[rng.random((n, 5)) < 0.05] = np.nan
    y = (X[:, 0] + 0.5 * np.nan_to_num(X[:, 1]) + rng.normal(size=n) > 0).astype(float)
    return X, y


def _xgb_cv(params, X, y, rounds, weight=None, **kw):
    return xgb.cv({"nthread": 1, **params}, xgb.DMatrix(X, label=y, weight=weight,
                                                       missing=np.nan), rounds, **kw)


@pytest.mark.parametrize("method", ["exact", "hist", "approx"])
@pytest.mark.parametrize("stopping", [None, 5])
def test_cv_equals_xgboost_cv(method, stopping):
    X, y = _binary()
    params = {"objective": "binary:logistic", "tree_method": method, "max_depth": 3,
              "eta": 0.5}
    ref = _xgb_cv(params, X, y, 60, nfold=4, seed=7, early_stopping_rounds=stopping)
    ours = boost.cv(params, X, y, 60, nfold=4, seed=7, early_stopping_rounds=stopping)
    assert list(ours.columns) == list(ref.columns)  # train-logloss-mean, -std, test-...
    assert len(ours) == len(ref)  # early stopping: both end at the same best round
    if stopping:
        assert len(ours) < 60
    np.testing.assert_allclose(ours.to_numpy(), ref.to_numpy(), rtol=1e-6, atol=1e-9)


def test_cv_regression_with_weights_and_folds_given():
    X, y = make_data(n=200, seed=3)
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    folds = [(np.r_[0:50, 100:200], np.r_[50:100]), (np.r_[0:120], np.r_[120:200]),
             (np.r_[40:200], np.r_[0:40])]
    params = {"tree_method": "hist", "max_depth": 4, "eta": 0.2, "lambda": 2.0}
    ref = _xgb_cv(params, X, y, 25, weight=w, folds=folds)
    ours = boost.cv(params, X, y, 25, folds=folds, sample_weight=w)
    assert list(ours.columns) == ["train-rmse-mean", "train-rmse-std", "test-rmse-mean",
                                  "test-rmse-std"]
    np.testing.assert_allclose(ours.to_numpy(), ref.to_numpy(), rtol=1e-6, atol=1e-9)


def test_the_table_is_mean_and_population_std_of_each_folds_model():
    # by hand: one boost.train per fold, its test loss per round; mean and numpy.std of them
    X, y = _binary(n=150, seed=4)
    params = {"objective": "binary:logistic", "max_depth": 2, "eta": 0.3}
    folds = kfold(len(y), 3, seed=11)
    losses = []
    for train_rows, test_rows in folds:
        bst = boost.train(params, X[train_rows], y[train_rows], 10,
                          evals=[(X[test_rows], y[test_rows], "test")])
        losses.append(bst.evals_result()["test"]["logloss"])
    ours = boost.cv(params, X, y, 10, nfold=3, seed=11)
    np.testing.assert_array_equal(ours["test-logloss-mean"], np.mean(losses, axis=0))
    np.testing.assert_array_equal(ours["test-logloss-std"], np.std(losses, axis=0))


def test_kfold_is_xgboosts_draw():
    folds = kfold(23, 4, seed=5)
    np.random.seed(5)  # noqa: NPY002 (xgboost.training.mknfold's own legacy draw)
    parts = np.array_split(np.random.permutation(23), 4)  # noqa: NPY002
    for k, (train_rows, test_rows) in enumerate(folds):
        np.testing.assert_array_equal(test_rows, parts[k])
        assert sorted(np.r_[train_rows, test_rows]) == list(range(23))


def test_cross_validated_sweep_points_equal_xgboost_cv():
    X, y = _binary(n=200, seed=2)
    params = {"objective": "binary:logistic", "tree_method": "hist", "max_depth": 3}
    etas = [0.05, 0.3, 1.0]
    sweep = boost.sweep(params, X, y, {"eta": etas}, 150, early_stopping_rounds=8, nfold=5,
                        seed=2)
    assert sweep.attrs["nfold"] == 5 and sweep.attrs["evals"] == ["test"]
    for i, eta in enumerate(etas):
        ref = _xgb_cv({**params, "eta": eta}, X, y, 150, nfold=5, seed=2,
                      early_stopping_rounds=8)
        part = sweep[sweep.point == i]
        # the sweep keeps the patience's rounds after the best: xgboost.cv's table is its head
        assert len(part) == len(ref) + 8
        np.testing.assert_allclose(part.iloc[:len(ref)][list(ref.columns)].to_numpy(),
                                   ref.to_numpy(), rtol=1e-6, atol=1e-9)


def test_cross_validated_sweep_facts_are_the_folds_means():
    X, y = _binary(n=120, seed=6)
    params = {"objective": "binary:logistic", "max_depth": 3, "eta": 0.3, "gamma": 0.5}
    sweep = boost.sweep(params, X, y, {"max_depth": [2]}, 4, nfold=3, seed=1)
    leaves = []
    for train_rows, _ in kfold(len(y), 3, seed=1):
        bst = boost.train({**params, "max_depth": 2}, X[train_rows], y[train_rows], 4)
        frame = bst.trees_to_dataframe()
        leaves.append(frame[frame.Feature == "Leaf"].groupby("Tree").size().to_numpy())
    np.testing.assert_allclose(sweep["leaves"], np.mean(leaves, axis=0))


@pytest.mark.parametrize("kwargs,message", [
    ({"nfold": 1}, "nfold = 1 must be a whole number >= 2"),
    ({"nfold": 500}, "more than the 240 rows"),
    ({"folds": [(np.arange(10), np.arange(10, 20))]}, "at least two"),
    ({"folds": [(np.arange(10), np.array([5, 999])), (np.arange(5), np.arange(5, 9))]},
     "outside 0..239"),
    ({"folds": "abc"}, "pairs of row indices"),
])
def test_bad_folds_say_what_is_wrong(kwargs, message):
    X, y = _binary()
    with pytest.raises(ValueError, match=message):
        boost.cv({"max_depth": 2}, X, y, 3, **kwargs)


def test_a_cross_validated_sweep_takes_no_evals():
    X, y = _binary()
    with pytest.raises(ValueError, match="pass no evaluation sets"):
        boost.sweep({}, X, y, {"eta": [0.3]}, 3, evals=[(X, y, "valid")], nfold=3)
