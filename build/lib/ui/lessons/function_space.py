"""Gradient descent in function space, on two rows: F is a point, each tree a step."""

from __future__ import annotations

import numpy as np

from .steps import Lesson, Step


def _start(f):
    y = f.booster.data.y
    return {"y1": y[0], "y2": y[1], "f1": f.margins(0)[0], "f2": f.margins(0)[1]}


def _step(f):
    a, b = f.margins(0), f.margins(1)
    return {"a1": a[0], "a2": a[1], "b1": b[0], "b2": b[1], "eta": f.config["eta"]}


def _many(f):
    y = f.booster.data.y
    return {"gap5": float(np.abs(y - f.margins(5)).max()),
            "gap20": float(np.abs(y - f.margins(20)).max())}


def _logistic(f):
    view = f.booster.round_view(0)
    g, h = view.grad[:, 0], view.hess[:, 0]
    return {"p": float(view.prediction[0]), "g1": float(-g[0]), "g2": float(-g[1]),
            "h": float(h[0]), "n1": float(-g[0] / h[0]), "n2": float(-g[1] / h[1])}


LESSON = Lesson(
    slug="function-space", title="Gradient descent in function space",
    blurb="Two rows, so the predictions are a point in the plane: each tree is a step "
          "along the negative gradient; Newton's step divides by h.",
    sample="two_points",
    params={"lambda": 0.0, "max_depth": 1, "eta": 0.3, "tree_method": "exact",
            "num_boost_round": 20, "base_score": "0"},
    steps=(
        Step("Two rows, so the model's predictions F = (F₁, F₂) are a point in the plane. "
             "They start at base_score: ({f1}, {f2}); the targets are y = ({y1}, "
             "{y2}).", objective="reg:squarederror", features=("x",), round=0,
             panels=("function-space", "fit"), numbers=_start),
        Step("For squared error the negative gradient −g = y − F points from F straight at "
             "the targets. Round 1's tree moves F by η·w, a step along −g: from ({a1}, "
             "{a2}) to ({b1}, {b2}).",
             objective="reg:squarederror", features=("x",), round=1,
             panels=("function-space", "fit"),
             numbers=_step),
        Step("Each round repeats: a new gradient at the new F, a new tree along it.",
             objective="reg:squarederror", features=("x",), round=5,
             panels=("function-space", "loss"),
             numbers=_many,
             ask="How close to y will F be after 20 rounds?",
             reveal="Each round removes η = 30% of what is left: the largest gap is {gap5} "
                    "after 5 rounds and {gap20} after 20.",
             then={"round": 20}),
        Step("For the log-loss the targets are 0/1 and F is the log-odds. At p = {p}, "
             "−g = y − p is ({g1}, {g2}) but h = p(1 − p) = {h}: Newton's step "
             "−g/h = ({n1}, {n2}): 1/h times the gradient, which grows where p nears 0 "
             "or 1 and the loss flattens. XGBoost's leaves take −G/(H + λ), the Newton step "
             "(min_child_weight 0: each leaf's H is only {h}).",
             target="clicked", features=("x",), objective="binary:logistic",
             params={"base_score": "", "min_child_weight": 0.0}, round=1,
             panels=("function-space", "node"), node=0,
             numbers=_logistic),
    ),
)
