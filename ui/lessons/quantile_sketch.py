"""hist's cut points vs exact's thresholds; approx's hessian-weighted quantiles."""

from __future__ import annotations

import numpy as np

from . import Lesson, Step


def _exact(f):
    x = f.booster.data.X[:, 0]
    return {"n": len(np.unique(x[~np.isnan(x)])) - 1, "rows": len(x)}


def _cuts(f):
    r = f.shown.round if f.config["tree_method"] == "approx" else None
    cuts = f.booster.cuts(r)["amount"]
    return {"n": len(cuts) - 1, "bins": f.config["max_bin"]}


def _approx(f):
    """approx's cuts for the next tree (sketched with the hessians after this round) against
    hist's (the last cut is a sentinel above every value)."""
    t = min(f.shown.round + 1, f.booster.num_boosted_rounds())
    approx = f.booster.cuts(t)["amount"][:-1]
    hist = f.other(tree_method="hist").booster.cuts()["amount"][:-1]
    h = f.booster.round_view(t - 1).hess[:, 0]
    return {"t": t, "n": len(approx), "hmin": float(h.min()), "hmax": float(h.max()),
            "top": float(approx.max()), "hist_top": float(hist.max())}


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
             "h = p(1 − p). For round {t}'s tree h runs from {hmin:.2g} (rows the model is sure "
             "about) to {hmax:.2g} (unsure), so its {n} cut points move towards the unsure "
             "rows: the largest is {top:.3g}, hist's {hist_top:.3g}.",
             params={"tree_method": "approx"}, round=5, panels=("quantile-sketch",),
             numbers=_approx),
    ),
)
