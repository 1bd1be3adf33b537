"""``Booster.xgboost_code``: Python source that retrains a BoostScope model with ``xgboost.train``.

The source is made from the parameter table: every parameter XGBoost has (``Param.xgboost``)
that applies to the model's objective and tree method goes into ``PARAMS`` under XGBoost's
name with the model's value, and ``boost.train``'s own arguments (``Param.train_arg``:
``num_boost_round``, ``early_stopping_rounds``) become ``xgboost.train``'s keyword
arguments of the same names. Given the rows BoostScope trained on, XGBoost then grows the
same trees (tests/engine/test_model_io.py runs the source and compares the dumps).
"""

from __future__ import annotations

from .. import objectives
from ..data import default_names
from ..params import BY_NAME, PARAMETERS
from ..sampling import ColumnSampler

_CODE = '''"""Retrain a BoostScope model with XGBoost: the same parameters and rounds.

Given the rows BoostScope trained on (X, y and any sample weights, NaN for missing values;
for early stopping the same evaluation sets, the last one watched), xgboost.train grows the
same trees, bit for bit. Written by BoostScope's Booster.xgboost_code() for xgboost 3.2.
{caveats}"""

import numpy as np
import xgboost as xgb

PARAMS = {{
{params}
}}
FEATURE_NAMES = {names}


def retrain(X, y, sample_weight=None, evals=()):
    """xgboost.train on X (rows x {n_features} features) and y. ``evals``: (X, y, name) or
    (X, y, name, sample_weight) tuples, as boost.train takes them."""

    def matrix(X, y, weight=None):
        return xgb.DMatrix(X, label=y, weight=weight, missing=np.nan,
                           feature_names=FEATURE_NAMES)

    watch = [(matrix(e[0], e[1], e[3] if len(e) > 3 else None), e[2]) for e in evals]
    return xgb.train(PARAMS, matrix(X, y, sample_weight), evals=watch, verbose_eval=False,
                     {train_args})


# model = retrain(X, y)
# model.save_model("model.json")
'''

_SAMPLING = ("\nBoostScope draws the rows and features of subsample and colsample_* with its "
             "own generator,\nnot XGBoost's: with them below 1, XGBoost grows other (similar) "
             "trees from the same seed.\n")
_UNNAMED = ("\nThe feature names contain '[', ']' or '<', which XGBoost refuses: the "
            "features go by position.\n")


def _xgboost_accepts(names) -> bool:
    return not any(c in name for name in names for c in "[]<")


def retrain_code(params, feature_names, train_args: dict) -> str:
    """The source of a module whose ``retrain(X, y, sample_weight=None, evals=())`` trains
    XGBoost with ``params`` (a ``Params``) and ``train_args`` (``boost.train``'s
    ``num_boost_round`` and ``early_stopping_rounds``)."""
    boosting = BY_NAME["boosting"]
    if params.boosting != boosting.default:
        raise ValueError(f"boosting = {params.boosting!r} is BoostScope's own (first-order "
                         "trees): XGBoost grows Newton trees only, so no XGBoost code "
                         "retrains this model.")
    if not objectives.spec(params.objective).xgboost:
        raise ValueError(f"Objective '{params.objective}' is BoostScope's own: XGBoost has "
                         "no such objective, so no XGBoost code retrains this model.")
    values = params.to_dict()
    lines = [f"    {p.name!r}: {values[p.name]!r},"
             for p in PARAMETERS
             if p.xgboost and not p.train_arg and p.name in values
             and p.applies(params.objective)
             and (not p.tree_methods or params.tree_method in p.tree_methods)]
    args = ", ".join(f"{p.name}={train_args.get(p.name)!r}" for p in PARAMETERS if p.train_arg)
    names = list(feature_names)
    unnamed = names == default_names(len(names))
    caveats = ""
    if params.subsample < 1.0 or ColumnSampler.of(params, len(names)).active:
        caveats += _SAMPLING
    if not _xgboost_accepts(names):
        caveats += _UNNAMED
    named = not unnamed and _xgboost_accepts(names)
    return _CODE.format(caveats=caveats, params="\n".join(lines),
                        names=repr(names) if named else "None", n_features=len(names),
                        train_args=args)
