"""Parameter names, aliases, defaults and ranges."""

import numpy as np
import pytest

import boost
from boost.params import parse_params


def test_defaults_are_xgboosts():
    p = parse_params({})
    assert (p.eta, p.reg_lambda, p.alpha, p.gamma, p.max_depth, p.min_child_weight,
            p.max_delta_step) == (0.3, 1.0, 0.0, 0.0, 6, 1.0, 0.0)
    assert p.objective == "reg:squarederror" and p.base_score is None


def test_aliases():
    p = parse_params({"learning_rate": 0.1, "reg_lambda": 2, "reg_alpha": 0.5,
                      "min_split_loss": 3})
    assert (p.eta, p.reg_lambda, p.alpha, p.gamma) == (0.1, 2.0, 0.5, 3.0)
    with pytest.raises(ValueError, match="given twice"):
        parse_params({"eta": 0.1, "learning_rate": 0.2})


@pytest.mark.parametrize("params,match", [
    ({"etta": 0.1}, "Unknown parameter 'etta'"),
    ({"eta": -0.1}, "'eta' = -0.1 is out of range"),
    ({"lambda": -1}, "'lambda'"),
    ({"gamma": "big"}, "not a number"),
    ({"max_depth": -1}, "max_depth"),
    ({"max_depth": 0, "tree_method": "exact"}, "'max_depth' = 0 means no depth limit"),
    ({"grow_policy": "leafwise"}, "'lossguide'"),
    ({"max_leaves": -2}, "'max_leaves' = -2 is out of range"),
    ({"max_depth": 2.5}, "whole number"),
    ({"min_child_weight": float("nan")}, "finite"),
    ({"objective": "reg:linear"}, "not supported"),
    ({"objective": "multi:softprob"}, "num_class"),
    ({"num_class": 3}, "only applies"),
    ({"objective": "binary:logistic", "base_score": 1.5}, "between 0 and 1"),
    ({"tree_method": "gpu_hist"}, "'tree_method' = 'gpu_hist' is not supported"),
    ({"max_bin": 1}, "'max_bin' = 1 is out of range"),
    ({"max_bin": 300.5}, "whole number"),
    ({"sketch_eps": 0.03}, "no longer exists in XGBoost 3.2"),
    ({"nthread": -1}, "nthread"),
])
def test_bad_parameters_are_named(params, match):
    with pytest.raises(ValueError, match=match):
        parse_params(params)


def test_float_parameters_are_float32_in_the_arithmetic():
    # eta = 0.3 is float32 0.300000012 in XGBoost: a single leaf with w = 1 shows it.
    X = np.array([[0.0], [1.0]])
    y = np.array([1.0, 1.0])
    bst = boost.train({"base_score": 0.0, "lambda": 0, "max_depth": 1}, X, y, 1)
    assert bst.trees_to_dataframe().Value[0] == float(np.float32(np.float32(1.0) *
                                                                 np.float32(0.3)))


def test_tree_method_defaults_and_auto_are_hist_as_in_xgboost():
    assert parse_params({}).tree_method == "hist"
    assert parse_params({"tree_method": "auto"}).tree_method == "hist"
    assert parse_params({}).max_bin == 256
