"""Verify with XGBoost: train XGBoost 3.2 with the model's parameters on the same rows and
compare — how many trees are string-equal (``get_dump`` with stats) and the largest margin
difference over the training and validation rows — shown as a badge beside the model.

XGBoost is optional: the toggle appears only when it can be imported. The parameters are the
ones ``Booster.xgboost_code()`` writes (read from its source as literals, never executed),
with one thread, XGBoost's reference order of summing histograms. Run once per model
configuration (cached).
"""

from __future__ import annotations

import ast
import importlib.util
from dataclasses import dataclass

import numpy as np
import streamlit as st

from .opened import is_opened
from .state import Model
from .training import eval_sets


def available() -> bool:
    """Whether XGBoost can be imported (an optional dependency)."""
    return importlib.util.find_spec("xgboost") is not None


@dataclass(frozen=True)
class Verdict:
    version: str
    identical: int  # trees whose dumps are string-equal
    trees: int
    max_delta: float  # largest |margin difference| over the training and validation rows
    note: str = ""  # what the comparison could not do, or why trees differ

    @property
    def exact(self) -> bool:
        return self.identical == self.trees and self.max_delta == 0.0

    def label(self) -> str:
        return (f"XGBoost {self.version}: {self.identical} of {self.trees} trees identical, "
                f"max |Δmargin| {self.max_delta:.3g}")


def _literal(code: str, name: str):
    """The value assigned to ``name`` in ``code`` (a literal: read, not executed)."""
    for node in ast.parse(code).body:
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == name):
            return ast.literal_eval(node.value)
    raise ValueError(f"{name} is not in the retraining code.")


@st.cache_resource(max_entries=16, show_spinner=False)
def verify(config: dict, _booster, _prep) -> Verdict | str:
    """XGBoost trained as ``xgboost_code`` says, compared with the model; a string says why
    it cannot be (no XGBoost code retrains the model)."""
    import xgboost as xgb

    try:
        code = _booster.xgboost_code()
    except ValueError as exc:
        return str(exc)
    params = {**_literal(code, "PARAMS"), "nthread": 1}
    names = _literal(code, "FEATURE_NAMES")

    def matrix(X, y=None, w=None, qid=None):
        return xgb.DMatrix(X.to_numpy(dtype=float), label=y, weight=w, missing=np.nan,
                           feature_names=names, qid=qid)

    watch = [(matrix(e[0], e[1], *e[3:]), e[2]) for e in eval_sets(_prep)]
    args = _booster.train_args
    model = xgb.train(params, matrix(_prep.X_train, _prep.y_train, _prep.w_train, _prep.qid_train),
                      num_boost_round=args["num_boost_round"], evals=watch,
                      early_stopping_rounds=args.get("early_stopping_rounds"),
                      verbose_eval=False)
    ours, theirs = _booster.get_dump("json"), model.get_dump(dump_format="json",
                                                              with_stats=True)
    identical = sum(a == b for a, b in zip(ours, theirs, strict=False))
    delta = 0.0
    for X in (_prep.X_train, _prep.X_valid):
        if len(X):
            a = _booster.predict(X.to_numpy(dtype=float), output_margin=True)
            b = model.predict(matrix(X), output_margin=True)
            delta = max(delta, float(np.max(np.abs(a.astype(np.float64) - b))))
    note = ""
    if len(ours) != len(theirs):
        note = f"XGBoost grew {len(theirs)} trees, BoostScope {len(ours)}."
    elif "own generator" in code:
        note = ("subsample / colsample_* < 1: XGBoost draws other rows and features than "
                "BoostScope, so the trees differ.")
    return Verdict(xgb.__version__, identical, len(ours), delta, note)


def badge(model: Model, key: str) -> None:
    """The toggle (under ``key``) and, when on, the badge (for a model BoostScope trained)."""
    if not available() or is_opened(model.config):
        return
    if not st.toggle("Verify with XGBoost", key=key,
                     help="Train XGBoost with the same parameters on the same rows and "
                          "compare: string-equal trees, the largest margin difference."):
        return
    with st.spinner("Training XGBoost…"):
        verdict = verify(model.config, model.booster, model.prep)
    if isinstance(verdict, str):
        st.badge(f"XGBoost: {verdict}", icon=":material/block:", color="gray")
        return
    st.badge(verdict.label(), icon=":material/verified:" if verdict.exact else ":material/info:",
             color="green" if verdict.exact else "orange")
    if verdict.note:
        st.caption(verdict.note)
