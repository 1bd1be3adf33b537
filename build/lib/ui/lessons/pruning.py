"""exact grows, then prunes with γ; hist refuses a split below γ before growing it."""

from __future__ import annotations

from .steps import Lesson, Step


def _both(f):
    hist = f.other(tree_method="hist")
    grown = [f.other(gamma=0.0), f.other(tree_method="hist", gamma=0.0)]  # every split
    return {"g0": f.node(0).Gain, "g2": f.node(2).Gain, "h0": hist.node(0).Gain,
            "e0": grown[0].node(0).Split, "e2": grown[0].node(2).Split,
            "t0": grown[1].node(0).Split, "t2": grown[1].node(2).Split}


def _noisy(f):
    exact, hist = f.gamma(), f.other(tree_method="hist").gamma()
    ends = ("Both end with {k} split{s}" if len(exact.kept) == len(hist.kept)
            else "exact ends with {k} split{s}, hist with {h}")
    return {"grown": exact.grown, "pruned": len(exact.pruned), "refused": len(hist.refused),
            "gamma": f.config["gamma"],
            "ends": ends.format(k=len(exact.kept), h=len(hist.kept),
                                s="" if len(exact.kept) == 1 else "s")}


LESSON = Lesson(
    slug="pruning", title="Pruning: exact vs hist",
    blurb="The same data and γ: exact grows the tree and prunes it bottom-up; hist refuses "
          "a split whose gain is below γ before growing it.",
    sample="four_points",
    params={"base_score": "0.5", "lambda": 0.0, "max_depth": 2, "eta": 0.3,
            "tree_method": "exact", "num_boost_round": 10},
    steps=(
        Step("With γ = 0 both methods split the four points the same way. exact writes a "
             "threshold halfway between two values (x < {e0}, then x < {e2}), hist the "
             "cut where the next value's bin starts (x < {t0}, then x < {t2}): the same "
             "rows go each way. The root splits with gain {g0}, its right child with "
             "{g2}.",
             params={"gamma": 0.0}, round=1, panels=("pruning",), numbers=_both),
        Step("γ = 130 lies between the two gains.", params={"gamma": 0.0}, round=1,
             panels=("pruning",), numbers=_both,
             ask="What does each method do with γ = 130?",
             reveal="exact keeps all: the lower split's {g2} > 130 protects the root's "
                    "{g0}. hist refuses the root ({h0} < 130) before growing its "
                    "children: one leaf.",
             then={"params": {"gamma": 130.0}}),
        Step("On 200 noisy points, round 5, γ = {gamma}: exact grew {grown} splits and "
             "pruned {pruned} of them (drawn as ghosts); hist refused {refused} before growing "
             "(a leaf that keeps the split it declined). {ends}; each removed split shows "
             "its gain against γ.",
             sample="noisy_1d", params={"gamma": 20.0, "max_depth": 2, "lambda": 1.0,
                                        "base_score": ""},
             round=5, panels=("pruning",), numbers=_noisy),
    ),
)
