"""Classification: log-odds, g = p − y, h = p(1 − p), leaf −G/(H + λ); then softmax."""

from __future__ import annotations

from .steps import Lesson, Step


def _start(f):
    view = f.booster.round_view(0)
    return {"m": float(view.margin[0, 0]), "p": float(view.prediction[0]),
            "h": float(view.hess[0, 0])}


def _leaf(f):
    leaf = f.node(1)
    lam = f.config["lambda"]
    return {"G": leaf.SumGrad, "H": leaf.SumHess, "lam": lam, "w": leaf.Weight,
            "v": leaf.Value, "eta": f.config["eta"]}


def _later(f):
    return {"r": f.shown.round, "t": f.loss("train"), "v": f.loss("valid")}


def _softmax(f):
    return {"k": f.booster.num_groups, "trees": f.booster.num_groups * f.shown.round}


LESSON = Lesson(
    slug="classification", title="Classification: log-odds and softmax",
    blurb="Boosting log-odds: g = p − y, h = p(1 − p), leaf −G/(H + λ), the probability "
          "after each round; then K trees per round with softmax.",
    sample="moons",
    params={"max_depth": 1, "eta": 0.3, "tree_method": "exact", "lambda": 1.0,
            "num_boost_round": 50},
    steps=(
        Step("Classification boosts the log-odds m; p = 1 / (1 + e^−m). Every row starts "
             "at margin {m}, p = {p}. The gradient is g = p − y and the hessian "
             "h = p(1 − p) = {h} for every row at the start.",
             round=1, node=0, panels=("fit", "node"), numbers=_start),
        Step("The left leaf of round 1 holds G = {G} and H = {H}.", round=1, node=1,
             panels=("fit",), numbers=_leaf,
             ask="What is its value w = −G/(H + λ), with λ = {lam}?",
             reveal="w = {w}; times η = {eta}, the leaf adds {v} to the log-odds of "
                    "its rows.",
             then={"panels": ("tree", "node")}),
        Step("After {r} rounds of one-split trees the probabilities follow the moons: "
             "training log-loss {t}, validation {v}.", round=20,
             panels=("fit", "loss"), numbers=_later),
        Step("Three classes: softmax turns K = {k} margins into probabilities, and every "
             "round grows K trees, one per class, each fit to g = p_k − y_k ({trees} trees "
             "after this round). The tree drawn is one class's: its title names it.",
             sample="three_blobs", params={"max_depth": 2}, round=3, node=0,
             panels=("fit", "tree"), numbers=_softmax),
    ),
)
