"""Training parameters: XGBoost's names, aliases, defaults and ranges, checked once.

``parse_params(dict) -> Params`` is the only way parameters enter the engine. Unknown names and
out-of-range values raise ``ValueError`` naming the parameter, the value and what is allowed.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass

from ._dtypes import PARAM
from .objectives import OBJECTIVES as _OBJECTIVE_SPECS
from .objectives import LossParams, check_base_score

OBJECTIVES = tuple(_OBJECTIVE_SPECS)
# How a tree is fit to the gradients: "newton" (XGBoost: second-order, leaf -G/(H+lambda)) or
# "first_order" (Friedman 2001: least squares on -g, then each leaf's value minimises the
# true loss over its rows).
BOOSTING = ("newton", "first_order")
# count:poisson's max_delta_step when the user does not set one (XGBoost's learner).
POISSON_MAX_DELTA_STEP = 0.7
# "auto" is XGBoost's default and means hist, as in XGBoost 3.2.
TREE_METHODS = ("hist", "exact", "approx", "auto")

ALIASES = {
    "learning_rate": "eta",
    "reg_lambda": "lambda",
    "reg_alpha": "alpha",
    "min_split_loss": "gamma",
    "n_jobs": "nthread",
    "random_state": "seed",
}


@dataclass(frozen=True)
class Params:
    """Validated parameters. Float parameters are float32, as XGBoost stores them."""

    objective: str = "reg:squarederror"
    eta: float = 0.3
    reg_lambda: float = 1.0
    alpha: float = 0.0
    gamma: float = 0.0
    max_depth: int = 6
    min_child_weight: float = 1.0
    max_delta_step: float = 0.0
    base_score: float | None = None
    tree_method: str = "hist"
    max_bin: int = 256
    num_class: int = 1
    nthread: int = 0
    seed: int = 0
    verbosity: int = 1
    scale_pos_weight: float = 1.0
    huber_slope: float = 1.0
    tweedie_variance_power: float = 1.5
    subsample: float = 1.0
    colsample_bytree: float = 1.0
    colsample_bylevel: float = 1.0
    colsample_bynode: float = 1.0
    boosting: str = "newton"

    @property
    def multiclass(self) -> bool:
        return _OBJECTIVE_SPECS[self.objective].task == "multiclass"

    @property
    def num_output_group(self) -> int:
        """Trees per round: num_class for multi-class, else 1."""
        return self.num_class if self.multiclass else 1

    @property
    def loss(self) -> LossParams:
        return LossParams(self.scale_pos_weight, self.huber_slope, self.tweedie_variance_power,
                          self.max_delta_step)

    def as_float32(self):
        """(eta, lambda, alpha, gamma, min_child_weight, max_delta_step) as float32 scalars."""
        return tuple(
            PARAM(v)
            for v in (
                self.eta,
                self.reg_lambda,
                self.alpha,
                self.gamma,
                self.min_child_weight,
                self.max_delta_step,
            )
        )

    def to_dict(self) -> dict:
        """The parameters under XGBoost's names (``lambda``, not ``reg_lambda``)."""
        d = asdict(self)
        d["lambda"] = d.pop("reg_lambda")
        if d["base_score"] is None:
            del d["base_score"]
        if not self.multiclass:
            del d["num_class"]
        return d


def _number(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(
            f"Parameter '{name}' = {value!r} is not a number; give a number such as 0.3."
        )
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"Parameter '{name}' = {value!r} must be a finite number.")
    return value


def _integer(name, value):
    number = _number(name, value)
    if number != int(number):
        raise ValueError(f"Parameter '{name}' = {value!r} must be a whole number.")
    return int(number)


def _at_least(name, value, low, what):
    if value < low:
        raise ValueError(f"Parameter '{name}' = {value!r} is out of range: {what}.")
    return value


def parse_params(params: dict | None) -> Params:
    """Check ``params`` (XGBoost names or aliases) and return :class:`Params`.

    Raises ``ValueError`` for an unknown name, a name given twice through an alias, or a
    value outside its range.
    """
    params = dict(params or {})
    canon: dict = {}
    for key, value in params.items():
        if not isinstance(key, str):
            raise ValueError(f"Parameter names must be strings, got {key!r}.")
        name = ALIASES.get(key, key)
        if name in canon:
            raise ValueError(
                f"Parameter '{name}' is given twice (as '{name}' and an alias such as "
                f"'{key}'); give it once."
            )
        canon[name] = value
    known = {
        "objective", "eta", "lambda", "alpha", "gamma", "max_depth", "min_child_weight",
        "max_delta_step", "base_score", "tree_method", "max_bin", "num_class", "nthread",
        "seed", "verbosity", "scale_pos_weight", "huber_slope", "tweedie_variance_power",
        "subsample", "colsample_bytree", "colsample_bylevel", "colsample_bynode", "boosting",
    }
    if "sketch_eps" in canon:
        raise ValueError(
            "Parameter 'sketch_eps' no longer exists in XGBoost 3.2 (it was removed in 2.0); "
            "the sketch's accuracy is set by 'max_bin' (default 256)."
        )
    unknown = sorted(set(canon) - known)
    if unknown:
        raise ValueError(
            f"Unknown parameter {unknown[0]!r} = {canon[unknown[0]]!r}. Known parameters: "
            + ", ".join(sorted(known | set(ALIASES)))
            + "."
        )

    out: dict = {}
    objective = canon.get("objective", "reg:squarederror")
    if objective not in OBJECTIVES:
        raise ValueError(
            f"Parameter 'objective' = {objective!r} is not supported; choose one of "
            + ", ".join(OBJECTIVES)
            + "."
        )
    out["objective"] = objective

    tree_method = canon.get("tree_method", "hist")
    if tree_method not in TREE_METHODS:
        raise ValueError(
            f"Parameter 'tree_method' = {tree_method!r} is not supported; use 'hist' (the "
            "default, histograms of max_bin quantile bins), 'approx' (bins re-sketched every "
            "round, weighted by the hessian) or 'exact' (every distinct value)."
        )
    out["tree_method"] = "hist" if tree_method == "auto" else tree_method
    if "max_bin" in canon:
        out["max_bin"] = _integer("max_bin", canon["max_bin"])
        if not 2 <= out["max_bin"] <= 65535:
            raise ValueError(
                f"Parameter 'max_bin' = {canon['max_bin']!r} is out of range: it must be "
                "between 2 and 65535 (XGBoost's default is 256)."
            )

    for name, field in (("eta", "eta"), ("lambda", "reg_lambda"), ("alpha", "alpha"),
                        ("gamma", "gamma"), ("min_child_weight", "min_child_weight"),
                        ("max_delta_step", "max_delta_step")):
        if name in canon:
            value = _at_least(name, _number(name, canon[name]), 0.0, "it must be >= 0")
            if float(PARAM(value)) == math.inf:
                raise ValueError(f"Parameter '{name}' = {value!r} overflows float32.")
            out[field] = value
    if objective == "count:poisson" and "max_delta_step" not in canon:
        out["max_delta_step"] = POISSON_MAX_DELTA_STEP

    for name in ("subsample", "colsample_bytree", "colsample_bylevel", "colsample_bynode"):
        if name in canon:
            value = _number(name, canon[name])
            if not 0.0 < value <= 1.0:
                raise ValueError(
                    f"Parameter '{name}' = {canon[name]!r} is out of range: it is the fraction "
                    f"of {'rows' if name == 'subsample' else 'columns'} sampled, so it must "
                    "be in (0, 1] (1 uses all)."
                )
            out[name] = value
    for name, what in (("scale_pos_weight", "the weight of the rows labelled 1"),
                       ("huber_slope", "the pseudo-Huber delta: errors beyond it count "
                                       "linearly")):
        if name in canon:
            value = _number(name, canon[name])
            if not value > 0.0:
                raise ValueError(
                    f"Parameter '{name}' = {canon[name]!r} is out of range: it is {what}, so "
                    "it must be > 0."
                )
            out[name] = value
    if "tweedie_variance_power" in canon:
        value = _number("tweedie_variance_power", canon["tweedie_variance_power"])
        if not 1.0 < value < 2.0:
            raise ValueError(
                f"Parameter 'tweedie_variance_power' = {value!r} is out of range: it must be "
                "strictly between 1 (Poisson) and 2 (gamma); 1.5 is the default."
            )
        out["tweedie_variance_power"] = value
    if "boosting" in canon:
        if canon["boosting"] not in BOOSTING:
            raise ValueError(
                f"Parameter 'boosting' = {canon['boosting']!r} is not supported; use 'newton' "
                "(XGBoost: leaves from gradients and hessians) or 'first_order' (Friedman's "
                "gradient boosting: least squares on the negative gradients, then each leaf "
                "minimises the loss)."
            )
        out["boosting"] = canon["boosting"]

    if "max_depth" in canon:
        out["max_depth"] = _integer("max_depth", canon["max_depth"])
        if not 1 <= out["max_depth"] <= 30:
            raise ValueError(
                f"Parameter 'max_depth' = {canon['max_depth']!r} is out of range: depth-wise "
                "growth needs 1 <= max_depth <= 30."
            )

    num_class = canon.get("num_class")
    if _OBJECTIVE_SPECS[objective].task == "multiclass":
        if num_class is None:
            raise ValueError(
                f"Objective '{objective}' needs 'num_class' (the number of classes, >= 2)."
            )
        out["num_class"] = _integer("num_class", num_class)
        _at_least("num_class", out["num_class"], 2, f"{objective} needs at least 2 classes")
    elif num_class not in (None, 1):
        raise ValueError(
            f"Parameter 'num_class' = {num_class!r} only applies to the multi-class objectives "
            "'multi:softprob' and 'multi:softmax'; remove it or change the objective."
        )

    if "base_score" in canon:
        base_score = _number("base_score", canon["base_score"])
        check_base_score(objective, base_score)
        out["base_score"] = base_score

    if "nthread" in canon:
        out["nthread"] = _integer("nthread", canon["nthread"])
        _at_least("nthread", out["nthread"], 0, "it must be >= 0 (0 uses every core)")
    if "seed" in canon:
        out["seed"] = _integer("seed", canon["seed"])
    if "verbosity" in canon:
        out["verbosity"] = _integer("verbosity", canon["verbosity"])
        if not 0 <= out["verbosity"] <= 3:
            raise ValueError(
                f"Parameter 'verbosity' = {canon['verbosity']!r} is out of range: 0 to 3."
            )
    return Params(**out)

