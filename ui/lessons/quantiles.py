"""Quantiles: the pinball loss's gradients only say above or below, so XGBoost re-estimates
each leaf as a quantile of its rows' residuals (hist, approx); exact keeps the Newton step."""

from __future__ import annotations

from .steps import Lesson, Step


def _start(f):
    low, mid, high = (float(v) for v in f.booster.base_score)
    return {"q1": low, "q2": mid, "q3": high}


def _leaf(f):
    leaf = f.node(1)  # a leaf of the first stump of alpha = 0.1 (output 0)
    return {"G": leaf.SumGrad, "H": leaf.SumHess, "w": leaf.Weight, "v": leaf.Value}


def _later(f):
    return {"r": f.shown.round, "t": f.loss("train"), "v": f.loss("valid")}


QUANTILE = "reg:quantileerror"

LESSON = Lesson(
    slug="quantiles", title="Quantiles: why the leaf is re-estimated",
    blurb="Three quantiles, three trees a round. The pinball loss's gradient only says "
          "whether a row is above or below the line, so XGBoost re-sets each leaf to a "
          "quantile of its rows' residuals.",
    sample="noisy_1d",
    params={"quantile_alpha": "0.1,0.5,0.9", "max_depth": 1, "eta": 0.3,
            "tree_method": "hist", "lambda": 1.0, "num_boost_round": 30, "base_score": ""},
    steps=(
        Step("reg:quantileerror with quantile_alpha 0.1, 0.5 and 0.9: three outputs, each "
             "with its own tree every round. Before any tree each line is its α-quantile "
             "of y: {q1}, {q2} and {q3}.",
             objective=QUANTILE, round=0, panels=("fit", "loss"), numbers=_start),
        Step("A row above the α = 0.1 line has g = −α, a row below it g = 1 − α, and h = 1 "
             "for both: the gradient says which side, never how far. The first tree of "
             "α = 0.1 puts {H} rows in leaf 1: G = {G}, H = {H}.",
             objective=QUANTILE, round=1, node=1, panels=("tree", "node"), numbers=_leaf,
             ask="Newton's step −G/(H + λ) only counts rows on each side. What does XGBoost "
                 "put in the leaf?",
             reveal="It re-estimates the leaf: w is the 0.1-quantile of its rows' "
                    "residuals y − m, {w}, and the leaf adds η·w = {v} to their line."),
        Step("tree_method exact does not re-estimate (XGBoost's exact updater gives no row "
             "positions back): the same leaf keeps the Newton step, w = −G/(H + λ) = {w}, "
             "η·w = {v}.",
             objective=QUANTILE, params={"tree_method": "exact"}, round=1, node=1,
             panels=("tree", "node"), numbers=_leaf),
        Step("After {r} rounds the three lines make a band around the data. XGBoost's "
             "quantile metric, the pinball loss averaged over the three α, is {t} on the "
             "training rows and {v} on the validation rows; the loss chart draws each α's "
             "own.",
             objective=QUANTILE, round=30, panels=("fit", "loss"), numbers=_later),
    ),
)
