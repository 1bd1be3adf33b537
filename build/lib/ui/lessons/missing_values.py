"""Missing values: the default direction each node learns, and where a missing row goes."""

from __future__ import annotations

import numpy as np

from viz.candidates import directions_won

from .steps import Lesson, Step


def _income(f):
    return f.booster.feature_values(0, f.shown.prep.X_train)


def _counts(f):
    return {"missing": int(np.isnan(_income(f)).sum()), "n": f.booster.data.n_samples}


def _direction(f):
    root = f.node(0)
    side = "left (yes)" if root.Missing == root.Yes else "right (no)"
    return {"feature": root.Feature, "t": root.Split, "side": side, "gain": root.Gain}


def _table(f):
    """Per threshold on earnings, the direction of the better of its two scans, counted on
    the root's gain curve as the candidates chart's legend counts them."""
    curve = f.booster.trace.gain_curve(f.shown.round, 0, 0, "earnings")
    n, left, right = directions_won(curve)
    return {"n": n, "left": left, "right": right}


def _spend(f):
    y = f.booster.data.y
    hidden = np.isnan(_income(f))
    return {"hidden": float(y[hidden].mean()), "known": float(y[~hidden].mean())}


LESSON = Lesson(
    slug="missing-values", title="Missing values",
    blurb="A feature with missing values: each split learns a default direction, and every "
          "missing row follows it.",
    sample="missing_income",
    params={"max_depth": 2, "eta": 0.3, "tree_method": "exact", "lambda": 1.0,
            "num_boost_round": 20},
    steps=(
        Step("{missing} of the {n} shoppers did not report an income. XGBoost needs no "
             "imputation: at every split it tries sending the missing rows left and then "
             "right, and keeps the better side as the node's default direction.",
             round=1, node=0, panels=("fit",), numbers=_counts),
        Step("The shoppers without an income spend {hidden} on average, the others "
             "{known}.", round=1, node=0, panels=("fit",),
             numbers=lambda f: {**_spend(f), **_direction(f)},
             ask="At the root, which way will the missing incomes go?",
             reveal="The root splits on {feature} < {t} and sends missing values "
                    "{side}: that choice gave the larger gain, {gain}.",
             then={"panels": ("tree", "candidates")}),
        Step("Every candidate threshold on earnings was scored both ways; of its {n} "
             "thresholds, {left} did better with the missing rows on the left and {right} on "
             "the right.",
             round=1, node=0, panels=("candidates", "node"), numbers=_table),
        Step("hist learns default directions the same way, over bins: a missing value has "
             "no bin, and each split's default side is again the one with the larger gain "
             "({gain} at the root).", params={"tree_method": "hist"}, round=1, node=0,
             panels=("tree", "node"), numbers=_direction),
    ),
)
