"""The parameter table: one record per parameter, and everything derived from it.

Each :class:`Param` holds every fact about one parameter: XGBoost's name and aliases, its
type, default, valid range, choices, the help text with the formula it enters, which tree
methods and objectives use it, and how the app shows it (widget, range, step, URL key).
The engine's validation (``parse_params``), the :class:`Params` record, the app's form, its
URL and its training cache key are all derived from ``PARAMETERS``; nothing else lists
parameter names, ranges or defaults. Adding a parameter is one record here (plus the engine
code that uses it); docs/parameters.md walks through it.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, make_dataclass, replace
from typing import NamedTuple

import numpy as np

from ._dtypes import PARAM
from .objectives import OBJECTIVES as _OBJECTIVE_SPECS
from .objectives import LossParams, check_base_score
from .ranking import PAIR_METHODS, RankParams, parse_metric


@dataclass(frozen=True)
class Param:
    """Every fact about one parameter.

    ``low``/``high`` are the engine's valid range (``None``: unbounded; ``*_open``: the bound
    itself is not allowed). ``app_range`` is the part of it the app's widget offers; a URL
    value outside it is clamped into it. ``widget`` is ``None`` for parameters the app sets
    itself (``num_class``, ``nthread``, ...).
    """

    name: str  # XGBoost's name; also the URL key unless ``url_key`` is set
    kind: type  # float, int, str or bool
    default: object  # XGBoost's default (None: not set, e.g. base_score is estimated)
    help: str  # what it does, with the formula it enters (the app's tooltip)
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    range_note: str = ""  # why the range is what it is, for error messages
    choices: tuple = ()  # allowed values of a str parameter
    choice_labels: tuple = ()  # how the app names each choice (same order)
    value_aliases: tuple = ()  # (alias, value) pairs, e.g. tree_method "auto" -> "hist"
    parse: object = None  # a str parameter without choices: value -> value, or ValueError
    aliases: tuple = ()  # other names XGBoost accepts (learning_rate for eta)
    attr: str = ""  # the field of Params, where the name is a Python keyword
    float32: bool = False  # stored as float32, as XGBoost stores it (checked for overflow)
    train_arg: bool = False  # an argument of boost.train, not an entry of params
    several: bool = False  # a list of values (a number alone is a list of one), as XGBoost's
    xgboost: bool = True  # False: BoostScope's own, XGBoost has no such parameter
    # Where it applies (empty: everywhere). The form shows it only where it applies.
    tree_methods: tuple = ()
    objectives: tuple = ()
    # The app.
    widget: str | None = None  # "slider", "number", "choice", "text", "list" or None
    label: str = ""
    app_range: tuple | None = None
    step: float | None = None
    app_default: object = "xgboost"  # the app's own default where it differs from XGBoost's
    section: str = "main"  # "main" or "sampling" (an expander of the form)
    url_key: str = ""
    # The Lab's sweeps (empty scale: not swept): the values are spread evenly on this scale
    # ("log" or "linear") over ``lab_range``; ``lab_zero``: 0 first, then the log spread.
    scale: str = ""
    lab_range: tuple | None = None
    lab_zero: bool = False

    @property
    def field(self) -> str:
        return self.attr or self.name

    @property
    def key(self) -> str:
        """The URL key."""
        return self.url_key or self.name

    @property
    def start(self):
        """The app's default."""
        return self.default if self.app_default == "xgboost" else self.app_default

    @property
    def title(self) -> str:
        """The widget's label: the name, and where it applies if not everywhere."""
        text = self.label or self.name
        return f"{text} ({', '.join(self.tree_methods)})" if self.tree_methods else text

    def choice_label(self, value) -> str:
        """How the app names one of the choices (the choice itself when it has no label)."""
        labels = self.choice_labels or self.choices
        return str(labels[self.choices.index(value)])

    def applies(self, objective: str | None) -> bool:
        """Whether the objective uses it (``tree_methods`` is only said in the label: the
        form shows max_bin while exact is chosen, since the method may change with it)."""
        return not self.objectives or objective in self.objectives

    def range_text(self) -> str:
        """The valid range in words, e.g. 'in (0, 1]' or '>= 0'."""
        lo, hi = self.low, self.high
        if lo is not None and hi is not None:
            if self.kind is int:
                return f"between {lo:g} and {hi:g}"
            return (f"in {'(' if self.low_open else '['}{lo:g}, {hi:g}"
                    f"{')' if self.high_open else ']'}")
        if lo is not None:
            return f"{'>' if self.low_open else '>='} {lo:g}"
        if hi is not None:
            return f"{'<' if self.high_open else '<='} {hi:g}"
        return "any number"

    def contains(self, value: float) -> bool:
        lo, hi = self.low, self.high
        return ((lo is None or (value > lo if self.low_open else value >= lo))
                and (hi is None or (value < hi if self.high_open else value <= hi)))


def _by_task(task: str) -> tuple:
    return tuple(name for name, o in _OBJECTIVE_SPECS.items() if o.task == task)


_FRACTION = "it is a fraction, so it must be in (0, 1] (1 uses all)"

PARAMETERS: tuple[Param, ...] = (
    Param("objective", str, "reg:squarederror", choices=tuple(_OBJECTIVE_SPECS),
          help="The loss the trees descend. Its gradient g and hessian h are what every tree "
               "fits (the formulas are under 'Objective' above the charts)."),
    Param("boosting", str, "newton", choices=("newton", "first_order"), xgboost=False,
          choice_labels=("Newton (XGBoost)", "First-order (Friedman)"), widget="choice",
          label="Boosting",
          help="Newton (XGBoost): splits scored by G²/(H + λ) with the hessian, leaf "
               "w = −G/(H + λ). First-order (Friedman 2001): the tree is a least-squares fit "
               "to −g (h ≡ 1), then each leaf gets the value that minimises the loss over its "
               "rows (one Newton step towards it for the log-loss and exponential losses). "
               "The 'Newton vs first-order' view trains both."),
    Param("eta", float, 0.3, low=0.0, aliases=("learning_rate",), float32=True,
          widget="slider", label="eta (learning rate)", app_range=(0.01, 1.0), step=0.01,
          scale="log", lab_range=(0.01, 1.0),
          help="Learning rate η: every leaf value is η·w, so each round moves the prediction "
               "only part of the way. Smaller η needs more rounds."),
    Param("lambda", float, 1.0, low=0.0, aliases=("reg_lambda",), attr="reg_lambda",
          float32=True, widget="number", app_range=(0.0, 100.0), step=0.5,
          scale="log", lab_range=(0.01, 100.0), lab_zero=True,
          help="L2 regularisation λ: leaf weight w = −G / (H + λ), similarity = G² / (H + λ). "
               "Larger λ shrinks leaves and gains."),
    Param("gamma", float, 0.0, low=0.0, aliases=("min_split_loss",), float32=True,
          widget="number", app_range=(0.0, 1000.0), step=1.0,
          scale="log", lab_range=(0.01, 100.0), lab_zero=True,
          help="γ (min_split_loss), compared with gain = sim(L) + sim(R) − sim(parent). exact "
               "grows the tree, then prunes bottom-up every split with gain < γ (a parent "
               "survives if a split below it is kept). hist and approx refuse a split with "
               "gain < γ before growing it, so nothing below it is ever tried."),
    Param("max_depth", int, 6, low=0, high=30,
          range_note="0 means no limit, which only hist and approx allow",
          widget="slider", app_range=(0, 10), step=1, app_default=3,
          scale="linear", lab_range=(1, 10),
          help="Maximum depth of each tree (the root is depth 0). 0: no limit (hist and "
               "approx only, usually with max_leaves; exact needs a limit)."),
    Param("min_child_weight", float, 1.0, low=0.0, float32=True, widget="number",
          app_range=(0.0, 100.0), step=0.5, scale="log", lab_range=(0.1, 100.0),
          lab_zero=True,
          help="A split is allowed only if both children have hessian sum H ≥ "
               "min_child_weight (H = number of rows for squared error, Σ p(1−p) for "
               "logistic)."),
    Param("alpha", float, 0.0, low=0.0, aliases=("reg_alpha",), float32=True,
          widget="number", app_range=(0.0, 100.0), step=0.5, scale="log",
          lab_range=(0.01, 100.0), lab_zero=True,
          help="L1 regularisation α: G is soft-thresholded, T_α(G) = sign(G)·max(|G| − α, 0), "
               "in w = −T_α(G)/(H + λ) and similarity = T_α(G)²/(H + λ)."),
    Param("max_delta_step", float, 0.0, low=0.0, float32=True, widget="number",
          app_range=(0.0, 10.0), step=0.1,
          help="Caps |w| (before η); 0 means no cap (count:poisson then uses XGBoost's "
               f"{dict(_OBJECTIVE_SPECS['count:poisson'].defaults)['max_delta_step']:g}, "
               "in its hessian and as the cap)."),
    Param("base_score", float, None, widget="text", app_range=(-1e9, 1e9),
          help="The starting prediction (round 0). Empty: estimated from the data as XGBoost "
               "3.2 does (mean of y; class frequencies for classification)."),
    Param("num_boost_round", int, 10, low=0, train_arg=True, widget="number", label="rounds",
          url_key="rounds", app_range=(1, 500), step=1, app_default=20,
          help="Number of boosting rounds (trees per class)."),
    Param("tree_method", str, "hist", choices=("hist", "approx", "exact"),
          value_aliases=(("auto", "hist"),), widget="choice", app_default="exact",
          range_note="use 'hist' (the default, histograms of max_bin quantile bins), 'approx' "
                     "(bins re-sketched every round, weighted by the hessian) or 'exact' "
                     "(every distinct value)",
          help="How split candidates are found. exact: every distinct value (thresholds "
               "halfway between neighbours), then γ-pruning. hist (XGBoost's default): each "
               "feature cut into at most max_bin quantile bins once, thresholds are bin "
               "edges, γ stops splits before they are made. approx: like hist, but the bins "
               "are re-cut for every tree, weighted by the hessian."),
    Param("max_bin", int, 256, low=2, high=65535, tree_methods=("hist", "approx"),
          widget="number", app_range=(2, 1024), step=1,
          help="hist/approx: at most this many bins per feature (XGBoost's default 256). "
               "Fewer bins, fewer candidate thresholds."),
    Param("grow_policy", str, "depthwise", choices=("depthwise", "lossguide"),
          tree_methods=("hist", "approx"), widget="choice",
          choice_labels=("depth-wise (level by level)", "loss-guided (best leaf first)"),
          range_note="use 'depthwise' (split every node of a depth, then the next depth) or "
                     "'lossguide' (split the leaf with the largest gain first, as LightGBM)",
          help="hist/approx: the order nodes are split in. depthwise (XGBoost's default): "
               "every node of a depth, then the next depth. lossguide: always the leaf whose "
               "best split gains most (ties: the older node), until max_leaves leaves, or "
               "until no leaf's split gains more than γ. exact ignores it and grows "
               "depth-wise, as XGBoost does. The 'Growth order' view replays both."),
    Param("max_leaves", int, 0, low=0, high=2**31 - 1, tree_methods=("hist", "approx"),
          widget="number", app_range=(0, 1024), step=1,
          help="hist/approx: at most this many leaves per tree (0: no limit). A split that "
               "would make one more leaf than this is not made; with lossguide the splits "
               "kept are those with the largest gains. exact ignores it, as XGBoost does."),
    Param("huber_slope", float, 1.0, low=0.0, low_open=True,
          objectives=("reg:pseudohubererror",), widget="number", label="huber_slope (δ)",
          app_range=(0.001, 1000.0), step=0.5,
          range_note="it is the pseudo-Huber delta: errors beyond it count linearly",
          help="δ of the pseudo-Huber loss: errors well below δ count quadratically, well "
               "above it linearly."),
    Param("tweedie_variance_power", float, 1.5, low=1.0, high=2.0, low_open=True,
          high_open=True, objectives=("reg:tweedie",), widget="number",
          label="tweedie_variance_power (ρ)", app_range=(1.01, 1.99), step=0.05,
          range_note="between 1 (Poisson) and 2 (gamma); 1.5 is the default",
          help="ρ of the Tweedie loss, between 1 (Poisson-like) and 2 (gamma-like)."),
    Param("quantile_alpha", float, None, low=0.0, high=1.0, several=True,
          objectives=tuple(n for n, o in _OBJECTIVE_SPECS.items() if o.per_alpha),
          widget="list", label="quantile_alpha (α, one or a list)", app_range=(0.0, 1.0),
          app_default="0.05,0.5,0.95",
          range_note="each is a quantile, e.g. [0.05, 0.5, 0.95] for a 90% band and the "
                     "median",
          help="The quantile(s) α of reg:quantileerror, one number or a list: each gets its "
               "own tree every round, fitted to the pinball loss ρ_α(y − m), and (hist, "
               "approx) each leaf is then re-set to the α-quantile of its rows' residuals."),
    Param("scale_pos_weight", float, 1.0, low=0.0, low_open=True,
          objectives=_by_task("binary"), widget="number", app_range=(0.001, 1000.0), step=0.5,
          range_note="it is the weight of the rows labelled 1",
          help="Weight of the rows labelled 1 (e.g. negatives / positives for imbalanced "
               "classes)."),
    Param("lambdarank_pair_method", str, "topk", choices=PAIR_METHODS,
          objectives=_by_task("ranking"), widget="choice",
          choice_labels=("topk (top k × all below)", "mean (random partners)"),
          range_note="use 'topk' (each of the top k documents by score paired with every "
                     "document below it) or 'mean' (each document paired with "
                     "lambdarank_num_pair_per_sample documents of other labels, drawn at "
                     "random)",
          help="Which pairs of a query's documents make the λ-gradients. topk: each of the "
               "lambdarank_num_pair_per_sample best-scored documents with every document "
               "below it (NDCG@k's pairs). mean: every document with that many random "
               "documents of another label (a fresh draw each round)."),
    Param("lambdarank_num_pair_per_sample", int, None, low=1, high=2**32 - 2,
          objectives=_by_task("ranking"), label="lambdarank_num_pair_per_sample (k)",
          widget="number", app_range=(1, 64), step=1, app_default=32,
          help="topk: the k of the top documents that are paired (not set: 32, and the "
               "default metric is ndcg@32). mean: the random partners per document (not set: "
               "1; the app always sets it, starting at 32)."),
    Param("ndcg_exp_gain", bool, True, objectives=("rank:ndcg", "rank:pairwise"),
          choices=(True, False), widget="choice",
          choice_labels=("2^y − 1 (relevance degrees 0..31)", "y"),
          help="NDCG's gain of a document with label y: 2^y − 1 (true, XGBoost's default: "
               "labels must be whole numbers 0..31) or y itself (false)."),
    Param("lambdarank_normalization", bool, True, objectives=_by_task("ranking"),
          choices=(True, False), choice_labels=("true", "false"), widget="choice",
          help="Normalise each query's gradients: topk by log2(1 + Σ|2λ|)/Σ|2λ|, mean by "
               "1/lambdarank_num_pair_per_sample."),
    Param("lambdarank_score_normalization", bool, True, objectives=_by_task("ranking"),
          choices=(True, False), choice_labels=("true", "false"), widget="choice",
          help="Divide each pair's |ΔZ| by |s_i − s_j| + 0.01 (their score difference), "
               "unless all of the query's documents have the same score."),
    Param("lambdarank_unbiased", bool, False, objectives=_by_task("ranking"),
          range_note="BoostScope has no unbiased LambdaMART (position-bias estimation from "
                     "clicks); leave it false",
          help="Unbiased LambdaMART (click data with position bias): not in BoostScope, "
               "which keeps XGBoost's default, false."),
    Param("lambdarank_bias_norm", float, 1.0, low=0.0, objectives=_by_task("ranking"),
          help="Unbiased LambdaMART's Lp regularisation of the position bias; without "
               "lambdarank_unbiased (BoostScope has none) it has no effect."),
    Param("eval_metric", str, None, objectives=_by_task("ranking"),
          parse=lambda name: parse_metric(name).name,
          help="The ranking metric the evaluation sets are scored with (and early stopping "
               "watches): ndcg@k or map@k, the mean over queries of NDCG or average precision "
               "of the top k documents by score; ndcg and map without @k stop at 32, as "
               "XGBoost. Not set: the objective's own (ndcg@k of the topk pairs' k; for mean, "
               "ndcg of the whole list; map@k / map for rank:map)."),
    Param("subsample", float, 1.0, low=0.0, high=1.0, low_open=True, range_note=_FRACTION,
          widget="slider", label="subsample (rows per tree)", app_range=(0.05, 1.0),
          step=0.05, section="sampling", scale="linear", lab_range=(0.4, 1.0),
          help="Fraction of rows each tree is grown on (a fresh random draw per tree; the "
               "left-out rows are drawn hollow in the residual view)."),
    Param("colsample_bytree", float, 1.0, low=0.0, high=1.0, low_open=True,
          range_note=_FRACTION, widget="slider", app_range=(0.05, 1.0), step=0.05,
          section="sampling", scale="linear", lab_range=(0.4, 1.0),
          help="Fraction of the features each tree may use."),
    Param("colsample_bylevel", float, 1.0, low=0.0, high=1.0, low_open=True,
          range_note=_FRACTION, widget="slider", app_range=(0.05, 1.0), step=0.05,
          section="sampling", help="Fraction of the tree's features each depth may use."),
    Param("colsample_bynode", float, 1.0, low=0.0, high=1.0, low_open=True,
          range_note=_FRACTION, widget="slider", app_range=(0.05, 1.0), step=0.05,
          section="sampling", help="Fraction of the depth's features each node may use."),
    Param("seed", int, 0, aliases=("random_state",), widget="number",
          app_range=(0, 2**31 - 1), step=1, section="sampling",
          help="Random seed of the row and column draws: the same seed gives the same "
               "model."),
    Param("early_stopping_rounds", int, 0, low=0, train_arg=True, widget="number",
          label="early_stopping_rounds (0 = off)", app_range=(0, 500), step=1,
          section="sampling",
          help="Stop when the validation loss has not improved for this many rounds (0 = "
               "train every round). The best round is marked on the loss curves."),
    Param("num_class", int, 1, low=2, help="Number of classes (multi-class objectives)."),
    Param("nthread", int, 0, low=0, aliases=("n_jobs",), range_note="0 uses every core",
          help="Threads used to train (0: every core)."),
    Param("verbosity", int, 1, low=0, high=3, help="XGBoost's log level (0 to 3)."),
)
BY_NAME: dict[str, Param] = {p.name: p for p in PARAMETERS}
ALIASES: dict[str, str] = {a: p.name for p in PARAMETERS for a in p.aliases}
# Removed from XGBoost: named with what replaces them, so an old script gets a useful message.
REMOVED = {
    "sketch_eps": "Parameter 'sketch_eps' no longer exists in XGBoost 3.2 (it was removed in "
                  "2.0); the sketch's accuracy is set by 'max_bin' (default 256).",
}
OBJECTIVES = BY_NAME["objective"].choices
TREE_METHODS = BY_NAME["tree_method"].choices
BOOSTING = BY_NAME["boosting"].choices
# The parameters the app shows (a widget each): kept in the session and in the URL.
APP_PARAMS: tuple[Param, ...] = tuple(p for p in PARAMETERS if p.widget)
SWEEPABLE = tuple(p for p in PARAMETERS if p.scale)  # the parameters the Lab can sweep


def capped(p: Param, top=None) -> Param:
    """``p`` with its Lab range ending at ``top`` (what the data can support; None: as it
    is), never below the range's start."""
    if top is None or p.lab_range is None:
        return p
    lo, hi = p.lab_range
    return replace(p, lab_range=(lo, max(lo, min(hi, top))))


def sweep_grid(p: Param, n: int, include=(), top=None) -> list:
    """A sweep's values of ``p``, ascending: ``sweep_values`` over its ``lab_range`` (up to
    ``top`` when given: what the data can support), with the values of ``include`` (the
    value on screen, XGBoost's default) added, so the grid holds the models a student
    compares against."""
    p = capped(p, top)
    spread = sweep_values(p, n)
    extra = {p.kind(v) for v in include if v is not None and (p.low is None or v >= p.low)}

    def at(v):  # where a value sits on the parameter's scale (0 left of a log scale's values)
        return math.log10(v) if p.scale == "log" and v > 0 else float(v)

    steps = [at(b) - at(a) for a, b in zip(spread, spread[1:], strict=False) if a > 0 or
             p.scale != "log"]
    near = min(steps) / 4 if steps else 0.0
    # a spread value next to one included (0.316 beside the 0.3 on screen) reads as a
    # duplicate and crowds the axis: the included one stands for it
    kept = [v for v in spread if not any(v != e and (v > 0) == (e > 0) and abs(at(v) - at(e))
                                         < near for e in extra)]
    return sorted(set(kept) | extra)


def max_depth_for(rows: int) -> int:
    """The deepest max_depth ``rows`` training rows can fill: a tree of depth d has 2^d
    leaves, so deeper than log2(rows) leaves a row or less per leaf."""
    return max(1, int(math.floor(math.log2(max(2, rows)))))


def sweep_values(p: Param, n: int) -> list:
    """``n`` values of ``p`` for a sweep, spread evenly on its ``scale`` over its
    ``lab_range`` (``lab_zero``: 0, then ``n - 1`` values spread on the log scale). Floats
    are rounded to 3 significant digits; whole-number parameters are rounded and kept
    unique, so they may give fewer than ``n`` values."""
    if not p.scale or p.lab_range is None:
        raise ValueError(f"Parameter '{p.name}' cannot be swept in the Lab.")
    n = max(1, int(n))
    lo, hi = p.lab_range
    spread = n - 1 if p.lab_zero else n
    if spread < 1:
        raw = []
    elif p.scale == "log":
        raw = [math.sqrt(lo * hi)] if spread == 1 else list(np.geomspace(lo, hi, spread))
    else:
        raw = [(lo + hi) / 2] if spread == 1 else list(np.linspace(lo, hi, spread))
    raw = ([0.0] if p.lab_zero else []) + raw
    if p.kind is int:
        values = [int(math.floor(v + 0.5)) for v in raw]
    else:
        values = [float(f"{v:.3g}") for v in raw]
    return list(dict.fromkeys(values))
_ENGINE = tuple(p for p in PARAMETERS if not p.train_arg)


# The parameters a node's candidate split search reads (besides the objective's own): what a
# data sample attached to a model (``Booster.with_data``) may set for its recomputed
# candidates; XGBoost's defaults otherwise (a model file does not hold them).
SEARCH = ("tree_method", "lambda", "alpha", "min_child_weight", "max_delta_step", "max_bin")
# Random draws: a sample's rows are not the training rows, so a sample never draws.
DRAWS = ("subsample", "colsample_bytree", "colsample_bylevel", "colsample_bynode")


class Float32Params(NamedTuple):
    """The float parameters the trees' arithmetic takes, as float32 as XGBoost stores them
    (``Params.as_float32``; fields named as ``Params``'s). ``_dtypes.NodeParams`` is the
    part a node's arithmetic takes."""

    eta: np.float32
    reg_lambda: np.float32
    alpha: np.float32
    gamma: np.float32
    min_child_weight: np.float32
    max_delta_step: np.float32


def _params_methods():
    def multiclass(self) -> bool:
        return _OBJECTIVE_SPECS[self.objective].task == "multiclass"

    def num_output_group(self) -> int:
        """Trees per round: num_class for multi-class, one per quantile_alpha for
        reg:quantileerror, else 1."""
        if _OBJECTIVE_SPECS[self.objective].per_alpha:
            return len(self.quantile_alpha)
        return self.num_class if self.multiclass else 1

    def loss(self) -> LossParams:
        rank = None
        if _OBJECTIVE_SPECS[self.objective].task == "ranking":
            rank = RankParams(self.lambdarank_pair_method, self.lambdarank_num_pair_per_sample,
                              self.ndcg_exp_gain, self.lambdarank_normalization,
                              self.lambdarank_score_normalization, self.eval_metric)
        return LossParams(self.scale_pos_weight, self.huber_slope,
                          self.tweedie_variance_power, self.max_delta_step,
                          tuple(self.quantile_alpha or (0.5,)), rank)

    def as_float32(self) -> Float32Params:
        """The float parameters the arithmetic takes, as float32, by name."""
        return Float32Params(*(PARAM(getattr(self, name)) for name in Float32Params._fields))

    def to_dict(self) -> dict:
        """The parameters under XGBoost's names (``lambda``, not ``reg_lambda``)."""
        d = {p.name: getattr(self, p.field) for p in _ENGINE}
        for name in ("base_score", "lambdarank_num_pair_per_sample", "eval_metric"):
            if d[name] is None:
                del d[name]
        if d["quantile_alpha"] is None:
            del d["quantile_alpha"]
        else:
            d["quantile_alpha"] = list(d["quantile_alpha"])
        if not self.multiclass:
            del d["num_class"]
        return d

    return {"multiclass": property(multiclass), "num_output_group": property(num_output_group),
            "loss": property(loss), "as_float32": as_float32, "to_dict": to_dict,
            "__doc__": "Validated parameters (one field per engine record of PARAMETERS). "
                       "Float parameters are float32 in the arithmetic, as XGBoost stores "
                       "them."}


Params = make_dataclass(
    "Params",
    [(p.field, object, field(default=p.default)) for p in _ENGINE],
    frozen=True, namespace=_params_methods(),
)
Params.__module__ = __name__


def _number(p: Param, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(
            f"Parameter '{p.name}' = {value!r} is not a number; give a number such as "
            f"{p.default if p.default is not None else 0.5}."
        )
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"Parameter '{p.name}' = {value!r} must be a finite number.")
    return value


def _several(p: Param, value) -> tuple:
    """A list parameter's values as a tuple, each checked: a number, a sequence of numbers,
    or text such as '[0.05, 0.5, 0.95]' or '0.05, 0.5' (XGBoost accepts the same)."""
    if isinstance(value, str):
        text = value.strip().removeprefix("[").removesuffix("]")
        items = []
        for part in text.split(","):
            try:
                items.append(float(part))
            except ValueError:
                raise ValueError(f"Parameter '{p.name}' = {value!r} is not a list of numbers; "
                                 "give numbers separated by commas, e.g. '0.05, 0.5, "
                                 "0.95'.") from None
    elif isinstance(value, (list, tuple, np.ndarray)):
        items = list(np.asarray(value, dtype=object).reshape(-1))
    else:
        items = [value]
    if not items:
        raise ValueError(f"Parameter '{p.name}' is an empty list; give at least one value, "
                         "e.g. [0.5].")
    return tuple(check_value(replace(p, several=False), v) for v in items)


def check_value(p: Param, value):
    """``value`` as the parameter's type, or ValueError saying what is wrong and what is
    allowed. Objective-dependent rules (base_score, num_class) are checked by parse_params."""
    if p.several:
        return _several(p, value)
    if p.kind is bool:
        text = str(value).strip().lower() if isinstance(value, (str, numbers.Integral)) else None
        if text not in ("true", "false", "1", "0"):
            raise ValueError(f"Parameter '{p.name}' = {value!r} must be true or false.")
        value = text in ("true", "1")
        if p.range_note and value != p.default:
            raise ValueError(f"Parameter '{p.name}' = {value!r} is not supported: "
                             f"{p.range_note}.")
        return value
    if p.kind is str and p.parse is not None:
        if not isinstance(value, str):
            raise ValueError(f"Parameter '{p.name}' = {value!r} must be a string.")
        return p.parse(value)
    if p.kind is str:
        value = dict(p.value_aliases).get(value, value)
        if value not in p.choices:
            allowed = p.range_note or "choose one of " + ", ".join(p.choices)
            raise ValueError(f"Parameter '{p.name}' = {value!r} is not supported; {allowed}.")
        return value
    number = _number(p, value)
    if p.kind is int:
        if number != int(number):
            raise ValueError(f"Parameter '{p.name}' = {value!r} must be a whole number.")
        number = int(number)
    if not p.contains(number):
        why = f" ({p.range_note})" if p.range_note and p.kind is not str else ""
        raise ValueError(f"Parameter '{p.name}' = {value!r} is out of range: it must be "
                         f"{p.range_text()}{why}.")
    if p.float32 and float(PARAM(number)) == math.inf:
        raise ValueError(f"Parameter '{p.name}' = {value!r} overflows float32.")
    return number


def canonical(params: dict | None) -> dict:
    """``params`` under XGBoost's names (aliases resolved); ValueError for unknown names or
    a name given twice."""
    out: dict = {}
    for key, value in dict(params or {}).items():
        if not isinstance(key, str):
            raise ValueError(f"Parameter names must be strings, got {key!r}.")
        if key in REMOVED:
            raise ValueError(REMOVED[key])
        name = ALIASES.get(key, key)
        if name in out:
            raise ValueError(f"Parameter '{name}' is given twice (as '{name}' and an alias "
                             f"such as '{key}'); give it once.")
        p = BY_NAME.get(name)
        if p is None or p.train_arg:
            known = sorted([q.name for q in _ENGINE] + list(ALIASES))
            raise ValueError(f"Unknown parameter {key!r} = {value!r}. Known parameters: "
                             + ", ".join(known) + ".")
        out[name] = value
    return out


def parse_params(params: dict | None) -> Params:
    """Check ``params`` (XGBoost names or aliases) and return :class:`Params`.

    Raises ``ValueError`` for an unknown name, a name given twice through an alias, or a
    value outside its range.
    """
    given = canonical(params)
    objective = check_value(BY_NAME["objective"], given.get("objective", "reg:squarederror"))
    multiclass = _OBJECTIVE_SPECS[objective].task == "multiclass"
    out = {}
    for name, value in given.items():
        p = BY_NAME[name]
        if name == "num_class":
            if not multiclass and value not in (None, 1):
                raise ValueError(
                    f"Parameter 'num_class' = {value!r} only applies to the multi-class "
                    "objectives 'multi:softprob' and 'multi:softmax'; remove it or change the "
                    "objective.")
            if not multiclass:
                continue
        if p.several and value is None:  # not given
            continue
        if name == "base_score" and value is not None:
            check_base_score(objective, _number(p, value))
            out[p.field] = float(value)
            continue
        out[p.field] = check_value(p, value)
    if _OBJECTIVE_SPECS[objective].per_alpha and out.get("quantile_alpha") is None:
        raise ValueError(f"Objective '{objective}' needs 'quantile_alpha': the quantile to "
                         "predict, in [0, 1], or a list of them (e.g. [0.05, 0.5, 0.95]; one "
                         "tree per quantile every round).")
    if multiclass and "num_class" not in out:
        raise ValueError(f"Objective '{objective}' needs 'num_class' (the number of classes, "
                         ">= 2).")
    if (_OBJECTIVE_SPECS[objective].task == "ranking"
            and out.get("boosting", "newton") == "first_order"):
        raise ValueError(f"boosting 'first_order' needs a loss per row, and {objective} has "
                         "none (its gradients come from pairs of documents); use Newton "
                         "boosting.")
    if out.get("max_depth") == 0 and out.get("tree_method", "hist") == "exact":
        raise ValueError("Parameter 'max_depth' = 0 means no depth limit, which tree_method "
                         "'exact' does not support (XGBoost refuses it too); set max_depth "
                         ">= 1, or use tree_method 'hist' or 'approx'.")
    for name, value in _OBJECTIVE_SPECS[objective].defaults:  # count:poisson's max_delta_step
        if name not in given:
            out[BY_NAME[name].field] = value
    return Params(**out)


def left_to_objective(objective: str, name: str, value) -> bool:
    """Whether a form's ``value`` of parameter ``name`` stands for "not given" under
    ``objective``: the parameter's own default where the objective sets another one when it
    is not given (the app's max_delta_step 0 under count:poisson: XGBoost's 0.7, in its
    hessian and as the cap)."""
    return name in dict(_OBJECTIVE_SPECS[objective].defaults) and value == BY_NAME[name].default
