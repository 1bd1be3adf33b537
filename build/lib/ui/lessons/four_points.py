"""The classic worked example: four dosages, base_score 0.5, λ = 0, one tree by hand."""

from __future__ import annotations

from .facts import listed
from .steps import Lesson, Step


def _candidates(f):
    return {"sim": f.node(0, r=1).Similarity, "g15": f.gain(0, 15, r=1),
            "g22": f.gain(0, 22.5, r=1), "g30": f.gain(0, 30, r=1),
            "left": f.node(1, r=1).Similarity, "right": f.node(2, r=1).Similarity}


def _lambda(f):
    before = f.other(**{"lambda": 0.0})
    return {"s0": before.node(1).Similarity, "s1": f.node(1).Similarity,
            "g0": before.node(0).Gain, "g1": f.node(0).Gain}


def _leaves(f):
    leaves = f.tree()[f.tree().Leaf]
    return {"w": listed(leaves.Weight), "eta": f.config["eta"], "v": listed(leaves.Value),
            "res": listed(f.residuals(1))}


LESSON = Lesson(
    slug="four-points", title="Four points by hand",
    blurb="One XGBoost tree worked out by hand: similarity, gain, λ, γ and the leaf outputs.",
    sample="four_points",
    params={"base_score": "0.5", "lambda": 0.0, "max_depth": 2, "eta": 0.3, "gamma": 0.0,
            "tree_method": "exact", "num_boost_round": 10},
    steps=(
        Step("Four drug dosages x and how well each worked, y. Every prediction starts at "
             "base_score {base}, so the residuals y − {base} are {res}.",
             round=0, node=0, panels=("fit",),  # (round 1's fit would answer step 2)
             numbers=lambda f: {"base": f.base_score, "res": listed(f.residuals(0))}),
        Step("The root holds all four residuals. Its similarity score is (sum of residuals)² "
             "/ (number of residuals + λ) = {sim}.",
             round=0, node=0, panels=("fit",), numbers=_candidates,
             ask="Three thresholds split the four points. Which one gives the largest gain?",
             reveal="x < 15: gain {g15} (left similarity {left}, right {right}); "
                    "x < 22.5: {g22}; x < 30: {g30}. x < 15 wins: it puts −10.5 "
                    "alone.",
             then={"round": 1, "panels": ("candidates", "node")}),
        Step("The right branch still holds three residuals, so it splits again.",
             round=0, node=2, panels=("fit",),
             numbers=lambda f: {"g": f.node(2, r=1).Gain, "t": f.node(2, r=1).Split},
             ask="Which threshold splits the right branch best?",
             reveal="x < {t}, with gain {g}: 6.5 and 7.5 stay together.",
             then={"round": 1, "panels": ("candidates", "node")}),
        Step("λ = 1 adds 1 to the number of residuals in every similarity: the leaf holding "
             "−10.5 falls from {s0} to {s1}, and the root's gain from {g0} to "
             "{g1}. λ shrinks the similarity of small leaves most.",
             params={"lambda": 1.0}, round=1, node=1, panels=("tree", "node"),
             numbers=_lambda),
        Step("Back to λ = 0. γ is the gain a split must beat to stay: XGBoost prunes from "
             "the bottom, and a split with a surviving split below it stays.",
             round=1, node=0, panels=("tree", "node"),
             numbers=lambda f: {"g0": f.node(0).Gain, "g2": f.node(2).Gain},
             ask="With γ = 130, will the root survive? Its gain is {g0}.",
             reveal="It survives: the split below it has gain {g2} > 130, so it stays, "
                    "and so does its parent.",
             then={"params": {"gamma": 130.0}}),
        Step("Now γ = 150.", params={"gamma": 130.0}, round=1, node=0,
             panels=("tree", "node"),
             numbers=lambda f: {"g0": f.node(0).Gain, "g2": f.node(2).Gain},
             ask="With γ = 150, what is left of the tree?",
             reveal="Only the root, as a leaf: {g2} < 150 prunes the lower split, then "
                    "the root's {g0} < 150 prunes it too. The ghosts show what was grown.",
             then={"params": {"gamma": 150.0}}),
        Step("With γ = 0, each leaf's output is (sum of residuals) / (number + λ): {w}. "
             "Times η = {eta}, the predictions move by {v}, and the new residuals are "
             "{res}.", round=1, node=1, panels=("tree", "residuals"), numbers=_leaves),
        Step("Round 2 grows a new tree on those residuals: same rules, smaller numbers "
             "(root gain {g}).", round=2, node=0, panels=("tree", "node"),
             numbers=lambda f: {"g": f.node(0).Gain}),
    ),
)
