"""The same data with η = 1, 0.3 and 0.1: why many small steps generalise."""

from __future__ import annotations

from viz.learning_rate import best_round

from ..state import ViewKeep
from ..url import parse_etas
from .facts import said
from .steps import Lesson, Step


def _at(f):
    return {"t": f.loss("train"), "v": f.loss("valid"), "r": f.shown.round}


def _race(f):
    """Each η of the learning-rates chart (its default list, as the lesson's panel shows it)
    at its best validation round (the chart's: ``viz.learning_rate.best_round``, its
    legend names the round and the loss), and the lowest."""
    race = []
    for eta in parse_etas(ViewKeep.etas.default):
        other = f.other(eta=eta)
        _, best = best_round(other.booster.loss_history())
        race.append((eta, other.loss("valid", best), best))
    winner = min(race, key=lambda item: item[1])
    return {"n": COUNTS.get(len(race), str(len(race))).capitalize(),
            "race": "; ".join(f"η = {said(eta)}: {said(loss)} (round {r})"
                              for eta, loss, r in race),
            "winner": f"η = {said(winner[0])}"}


COUNTS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


LESSON = Lesson(
    slug="learning-rate", title="Learning rate: many small steps",
    blurb="η = 1, 0.3 and 0.1 on the same noisy data: fits, validation curves, and why "
          "shrinking each tree generalises.",
    sample="noisy_1d",
    params={"max_depth": 3, "num_boost_round": 100, "tree_method": "exact", "lambda": 1.0},
    steps=(
        Step("η = 1: every tree's full step. After {r} rounds the training loss is {t} "
             "and the validation loss {v}: the fit already chases the noise.",
             params={"eta": 1.0}, round=5, panels=("fit", "loss"), numbers=_at),
        Step("η = 0.3, XGBoost's default: after {r} rounds training {t}, validation "
             "{v}.", params={"eta": 0.3}, round=5, panels=("fit", "loss"), numbers=_at),
        Step("η = 0.1: each tree moves the fit a tenth of the way. After {r} rounds "
             "training {t}, validation {v}: still far from the data.",
             params={"eta": 0.1}, round=5, panels=("fit", "loss"), numbers=_at),
        Step("{n} learning rates, 100 rounds each.", params={"eta": 0.3}, round=100,
             panels=("fit", "loss"), numbers=_race,
             ask="Which η reaches the lowest validation loss?",
             reveal="{winner}, at its best round. {race}.",
             then={"panels": ("learning-rates", "fit")}),
        Step("Why small steps generalise: each tree is fit to residuals that are part "
             "signal, part noise. A small η keeps only a little of each tree, so the noise "
             "one tree fits is averaged away by the next ones, while the signal they share "
             "adds up. The price is more rounds.", params={"eta": 0.1}, round=100,
             panels=("learning-rates", "loss")),
    ),
)
