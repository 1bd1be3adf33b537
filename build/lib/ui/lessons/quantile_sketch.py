"""hist's cut points vs exact's thresholds; approx's hessian-weighted quantiles."""

from __future__ import annotations

from .steps import Lesson, Step

# The lesson's numbers are those of the quantile-sketch panel beside them (the model's
# booster.trace.sketch, drawn by viz.sketch): the one feature, ``amount``, exact's
# thresholds, and the cut points without the sentinel.


def _sketch(f):
    return f.booster.trace.sketch(0, f.shown.round, X=f.shown.prep.X_train)


def _exact(f):
    d = _sketch(f)
    return {"n": len(d.thresholds), "rows": len(d.values)}


def _cuts(f):
    return {"n": len(_sketch(f).cuts), "bins": f.config["max_bin"]}


def _approx(f):
    """approx's cuts for the next tree (sketched with the hessians after this round) against
    hist's of the same values (the panel draws both largest)."""
    d = _sketch(f)
    return {"t": d.tree, "n": len(d.cuts), "hmin": float(d.size_by.min()),
            "hmax": float(d.size_by.max()), "top": float(d.cuts.max()),
            "hist_top": float(d.hist_cuts.max())}


LESSON = Lesson(
    slug="quantile-sketch", title="The quantile sketch",
    blurb="Where hist and approx put their candidate splits: quantiles of the data, and for "
          "approx quantiles weighted by the hessian.",
    sample="rare_events",
    params={"max_depth": 3, "eta": 0.3, "max_bin": 16, "num_boost_round": 20,
            "lambda": 1.0},
    steps=(
        Step("exact tries a split between every two neighbouring distinct values: {n} "
             "thresholds for {rows} amounts.", params={"tree_method": "exact"}, round=1,
             panels=("quantile-sketch",), numbers=_exact),
        Step("hist sorts each feature once, before training, into at most max_bin = {bins} "
             "bins at quantiles of the data: {n} candidate cut points, the same for every "
             "tree.", params={"tree_method": "hist"}, round=1,
             panels=("quantile-sketch",), numbers=_cuts),
        Step("approx re-sketches before every tree, weighting each row by its hessian "
             "h = p(1 − p). For round {t}'s tree h runs from {hmin} (rows the model is sure "
             "about) to {hmax} (unsure), so its {n} cut points move towards the unsure "
             "rows: the largest is {top}, hist's {hist_top}.",
             params={"tree_method": "approx"}, round=5, panels=("quantile-sketch",),
             numbers=_approx),
    ),
)
