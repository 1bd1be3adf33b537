"""XGBoost 3.2 as the reference oracle: train it with the same parameters and data."""

import numpy as np
import xgboost as xgb


def xgb_train(params, X, y, num_boost_round, sample_weight=None, evals=()):
    # nthread=1: XGBoost's hist sums histograms per thread; one thread is the reference order.
    full = {"nthread": 1, **params}
    dtrain = xgb.DMatrix(X, label=y, weight=sample_weight, missing=np.nan)
    watch = [(xgb.DMatrix(Xe, label=ye, missing=np.nan), name) for Xe, ye, name in evals]
    result = {}
    model = xgb.train(full, dtrain, num_boost_round, evals=watch, evals_result=result,
                      verbose_eval=False)
    return model, result


def xgb_margin(model, X):
    return model.predict(xgb.DMatrix(X, missing=np.nan), output_margin=True)


def xgb_cuts(X, weight=None, max_bin=256):
    """XGBoost hist's quantile cuts of ``X``: (indptr, values) as ``DMatrix.get_quantile_cut``
    gives them after one round."""
    d = xgb.DMatrix(X, label=np.zeros(len(X)), weight=weight, missing=np.nan)
    xgb.train({"tree_method": "hist", "max_bin": max_bin, "nthread": 1}, d, 1)
    return d.get_quantile_cut()
