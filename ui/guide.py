"""The tuning-order guide: XGBoost's classic order of tuning walked on the user's data, each
step a sweep (``ui/sweeps.py``) whose best values are carried into the next.

1. a high η (XGBoost's default 0.3): the number of rounds; 2. max_depth and
min_child_weight; 3. gamma; 4. subsample and colsample_bytree; 5. alpha and lambda; 6. lower
η, the rounds re-tuned. The tuned parameters start from the app's defaults; everything else
(data, columns, objective, tree method, seed, ...) is the model on screen's. Every step
trains each of its points to early stopping (up to ``MAX_ROUNDS``), so each is judged at its
own best round and "still improving" means the budget ran out. Each step's grid holds the
values carried into it (the same model the step before kept, so the same loss): no step
makes the validation loss worse; a value the paired comparison cannot tell from the lowest
loss (``boost.judge``: within one standard error) does not replace the one carried in. The
sweeps are deterministic and cached, so a link to a step (``?view=lab&guide=3``) shows the
same numbers again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

import boost
from boost.params import BY_NAME, capped, sweep_values
from viz.lab import label

from .sweeps import BUDGET

HIGH_ETA = BY_NAME["eta"].default  # step 1's "high" learning rate: XGBoost's default, 0.3
MAX_ROUNDS = BUDGET  # every step: the most rounds a point trains (early stopping first)
LOWER = (1, 2, 5, 10)  # step 6 tries η / each (1: the η carried in)


@dataclass(frozen=True)
class Step:
    short: str  # its name in the summary chart
    title: str
    why: str  # what it tunes and why, for the step's screen
    counts: tuple = ()  # (parameter, number of values) of its grid; () for the η steps


STEPS = (
    Step("1. rounds", "A high η: find the number of rounds",
         f"With a high learning rate (η = {HIGH_ETA:g}) few rounds are needed, so every later "
         "step is quick. Early stopping finds the round after which the validation loss "
         "stops falling; every step trains each of its models to early stopping the same "
         "way, so each is judged at its own best round."),
    Step("2. depth", "max_depth and min_child_weight",
         "They decide how complex each tree may be and have the largest effect: deep trees "
         "with small leaves fit the training rows, shallow ones generalise.",
         (("max_depth", 5), ("min_child_weight", 5))),
    Step("3. gamma", "gamma (min_split_loss)",
         "γ removes splits whose gain does not pay for the extra leaf; with the tree size "
         "chosen, it trims the splits that only fit noise.", (("gamma", 6),)),
    Step("4. sampling", "subsample and colsample_bytree",
         "Each tree sees a random part of the rows and features, so the trees differ and "
         "their errors average out.", (("subsample", 4), ("colsample_bytree", 4))),
    Step("5. α and λ", "alpha and lambda",
         "L1 and L2 penalties shrink the leaf values: the last, gentle regularisation.",
         (("alpha", 4), ("lambda", 4))),
    Step("6. lower η", "A lower η, the rounds re-tuned",
         "Smaller steps with more trees usually generalise a little better; early stopping "
         "finds the new number of rounds."),
)
TUNED = ("eta", "max_depth", "min_child_weight", "gamma", "subsample", "colsample_bytree",
         "alpha", "lambda")


@dataclass(frozen=True)
class Outcome:
    """One step walked: its grid and rounds, the sweep and its verdict (``boost.judge``),
    the values kept (by name), the kept point's best round and validation loss, every tuned
    value after it, and whether the kept values are the ones carried in (``stayed``)."""

    grid: dict
    rounds: int
    sweep: pd.DataFrame
    verdict: boost.Verdict
    found: dict
    round: int
    valid: float
    carried: dict
    stayed: bool


def start_values() -> dict:
    """The tuned parameters before step 1: the app's defaults."""
    return {name: BY_NAME[name].start for name in TUNED}


def lower_etas(eta: float) -> list[float]:
    """Step 6's learning rates: η carried in, η/2, η/5, η/10 (at least the widget's
    smallest η)."""
    low = BY_NAME["eta"].app_range[0]
    return sorted({max(low, float(f"{eta / k:.3g}")) for k in LOWER}, reverse=True)


def plan(i: int, carried: dict, tops: dict | None = None) -> tuple[dict, int]:
    """Step ``i``'s (0-based) grid and rounds (every step: up to ``MAX_ROUNDS``, stopped
    early), given the values carried into it; ``tops``: the largest value of a parameter
    the data can support (max_depth: ``max_depth_for`` a fold's rows), its grid's end."""
    if i == 0:
        return {"eta": [HIGH_ETA]}, MAX_ROUNDS
    if i == len(STEPS) - 1:
        return {"eta": lower_etas(carried["eta"])}, MAX_ROUNDS
    tops = tops or {}
    grid = {name: sorted(set(sweep_values(capped(BY_NAME[name], tops.get(name)), n))
                         | {carried[name]})
            for name, n in STEPS[i].counts}
    return grid, MAX_ROUNDS


def best_point(v: boost.Verdict, carried: dict) -> tuple[dict, int, float]:
    """(values, best round, validation loss) of the point a step's sweep, judged (``v``:
    ``boost.judge``), keeps: the carried-in values while they are tied with the lowest loss
    (within one standard error of the paired difference — a value the folds cannot tell
    from the best does not replace them), else the lowest."""
    best, names = v.points, v.names
    close = best.iloc[list(v.close)]
    kept = close[np.logical_and.reduce([np.isclose(close[n].astype(float), float(carried[n]))
                                        for n in names])]
    row = (kept if len(kept) else best.iloc[[v.best]]).iloc[0]
    found = {n: BY_NAME[n].kind(row[n]) for n in names}
    return found, int(row["round"]), float(row["valid"])


def walk(run: Callable[[int, dict, int, dict], pd.DataFrame], steps: int,
         tops: dict | None = None) -> list[Outcome]:
    """The first ``steps`` steps. ``run(i, grid, rounds, fixed)`` sweeps ``grid`` with
    the parameters ``fixed`` and early stopping (``sweeps.PATIENCE``); ``tops``: ``plan``'s."""
    carried, out = start_values(), []
    for i in range(steps):
        grid, n = plan(i, carried, tops)
        sweep = run(i, grid, n, dict(carried))
        v = boost.judge(sweep)
        found, best_round, valid = best_point(v, carried)
        stayed = all(np.isclose(float(found[k]), float(carried[k])) for k in found)
        carried = {**carried, **found}
        out.append(Outcome(grid, n, sweep, v, found, best_round, valid, dict(carried),
                           stayed))
    return out


def final_params(outcomes: list[Outcome]) -> dict:
    """The model the guide found, as app parameters: every tuned value, the rounds of step
    6's best η, early stopping off (the rounds are already the best)."""
    return {**outcomes[-1].carried, "num_boost_round": outcomes[-1].round,
            "early_stopping_rounds": 0}


def found_text(outcome: Outcome) -> str:
    return ", ".join(f"{name} = {label(value)}" for name, value in outcome.found.items())
