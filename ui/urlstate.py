"""The view a lecturer can share: plain values in the URL, parsed defensively.

Nothing from the URL is evaluated or unpickled: every value is parsed as a number or checked
against a fixed list, and anything else is ignored (the default is used).
"""

from __future__ import annotations

import math

# name -> (type, default, low, high); the parameter form's widgets use the same names.
PARAMS = {
    "eta": (float, 0.3, 0.0, 1.0),
    "lambda": (float, 1.0, 0.0, 100.0),
    "gamma": (float, 0.0, 0.0, 1000.0),
    "max_depth": (int, 3, 1, 10),
    "min_child_weight": (float, 1.0, 0.0, 100.0),
    "alpha": (float, 0.0, 0.0, 100.0),
    "max_delta_step": (float, 0.0, 0.0, 10.0),
    "rounds": (int, 20, 1, 500),
    "max_bin": (int, 256, 2, 1024),
    "subsample": (float, 1.0, 0.01, 1.0),
    "colsample_bytree": (float, 1.0, 0.01, 1.0),
    "colsample_bylevel": (float, 1.0, 0.01, 1.0),
    "colsample_bynode": (float, 1.0, 0.01, 1.0),
    "seed": (int, 0, 0, 2**31 - 1),
    "early_stopping_rounds": (int, 0, 0, 500),  # 0 = off
    "scale_pos_weight": (float, 1.0, 0.001, 1000.0),
    "huber_slope": (float, 1.0, 0.001, 1000.0),
    "tweedie_variance_power": (float, 1.5, 1.01, 1.99),
}
# Objectives by task; the first is the task's default. "auto" picks it.
OBJECTIVES = {
    "regression": ("reg:squarederror", "reg:pseudohubererror", "reg:absoluteerror",
                   "count:poisson", "reg:gamma", "reg:tweedie"),
    "binary": ("binary:logistic", "binary:logitraw", "binary:exponential"),
    "multi-class": ("multi:softprob", "multi:softmax"),
}
ALL_OBJECTIVES = tuple(o for group in OBJECTIVES.values() for o in group)
# Newton (XGBoost) or first-order (Friedman) trees: the engine's ``boosting`` parameter.
BOOSTING = {"newton": "Newton (XGBoost)", "first_order": "First-order (Friedman)"}
# The app's default is exact (every distinct value a candidate, midpoint thresholds, pruning
# after growing: the algorithm of the XGBoost paper's §3.1); XGBoost's own default is hist.
TREE_METHODS = ("exact", "hist", "approx")
TASK_CHOICES = ("auto", "regression", "binary", "multi-class")
VIEWS = ("Tree and splits", "Residuals and gradients", "Learning rates", "Feature importance",
         "Newton vs first-order")


def parse_number(text, kind, default, low, high):
    try:
        value = float(str(text))
    except (TypeError, ValueError):
        return default
    if not math.isfinite(value) or value < low or value > high:
        return default
    if kind is int:
        if value != int(value):
            return default
        return int(value)
    return value


def read(query: dict, samples: list[str]) -> dict:
    """Defaults overridden by valid values from ``query`` (a mapping of strings)."""
    out = {name: spec[1] for name, spec in PARAMS.items()}
    for name, (kind, default, low, high) in PARAMS.items():
        if name in query:
            out[name] = parse_number(query[name], kind, default, low, high)
    out["sample"] = query.get("sample") if query.get("sample") in samples else None
    out["task"] = query.get("task") if query.get("task") in TASK_CHOICES else "auto"
    method = query.get("tree_method")
    out["tree_method"] = method if method in TREE_METHODS else TREE_METHODS[0]
    objective = query.get("objective")
    out["objective"] = objective if objective in ALL_OBJECTIVES else "auto"
    boosting = query.get("boosting")
    out["boosting"] = boosting if boosting in BOOSTING else "newton"
    base = query.get("base_score")
    out["base_score"] = None
    if base not in (None, "", "auto"):
        value = parse_number(base, float, None, -1e9, 1e9)
        out["base_score"] = value
    out["target"] = query.get("target")
    out["weight"] = query.get("weight")  # a column name, checked against the data
    out["round"] = parse_number(query.get("round"), int, None, 0, 10_000)
    out["node"] = parse_number(query.get("node"), int, None, 0, 100_000)
    out["view"] = VIEWS[parse_number(query.get("view"), int, 0, 0, len(VIEWS) - 1)]
    return out


def write(state: dict) -> dict:
    """Plain string values for ``st.query_params``."""
    out = {}
    for key, value in state.items():
        if value is None:
            continue
        out[key] = f"{value:g}" if isinstance(value, float) else str(value)
    return out


def parse_etas(text: str, limit: int = 6) -> list[float]:
    """Learning rates from the user's text: numbers in (0, 1], unique, at most ``limit``."""
    values: list[float] = []
    for part in str(text).replace(";", ",").split(","):
        value = parse_number(part.strip(), float, None, 0.0, 1.0)
        if value and value not in values:
            values.append(value)
    return values[:limit]
