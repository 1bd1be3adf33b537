"""The margins of the training and validation rows, round by round, as the generalisation
view reads them (``Summary``, ``Histograms``; drawn by ``viz.generalisation``).

A row's *score* is what the margin distribution shows: classification y·margin with y = ±1
(multi-class: the true class's margin minus the best other class's), negative = on the wrong
side; regression the residual y − prediction, 0 = fitted exactly. ``summary`` and
``histograms`` each walk the model's trees once over the rows (``Booster.staged_margins``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import objectives

TAILS = (0.005, 0.995)  # the histogram's range: these quantiles over every round (the rest
# of the rows are counted in the end bars)


@dataclass(frozen=True)
class Summary:
    """One model's rounds, 0 (the baseline) .. ``rounds``, computed in one walk of its trees.

    ``step[r]``: mean |η·f_r(x)| over the training rows (and classes) — how far round r moved
    a margin (``step[0]`` is NaN). Per set ('train', 'valid' when there is one):
    ``low``/``high`` the score's TAILS quantiles, ``typical`` the share of rows with a
    negative score (classification) or the median |residual| (regression), ``centre`` the
    mean score (classification: the misclassified rows' tails pull it down) or the median
    |residual| (regression)."""

    task: str
    rounds: int
    step: np.ndarray
    low: dict
    high: dict
    typical: dict
    centre: dict
    loss: pd.DataFrame  # Booster.loss_history(): 'train' and 'valid' by round
    metric: str


@dataclass(frozen=True)
class Histograms:
    """Per set, (rounds + 1, len(edges) - 1): the % of the set's rows in each bar, round by
    round; rows beyond the edges count in the end bars."""

    edges: np.ndarray
    percent: dict


def scores(booster, margin: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each row's score (float64) at ``margin`` (n_samples, n_groups)."""
    kind = objectives.spec(booster.objective).task
    if kind == "regression":
        response = objectives.response(booster.objective, margin)
        return (y - response).astype(np.float64)
    if kind == "binary":
        return np.where(y > 0.5, 1.0, -1.0) * margin[:, 0].astype(np.float64)
    rows, label = np.arange(len(y)), y.astype(np.int64)
    true = margin[rows, label].astype(np.float64)
    others = margin.astype(np.float64)
    others[rows, label] = -np.inf
    return true - others.max(axis=1)


def _walk(booster, sets: dict):
    """Yields (round, {set: scores}, margin of the training rows)."""
    walks = {name: booster.staged_margins(X) for name, (X, _) in sets.items()}
    for steps in zip(*walks.values(), strict=True):
        r = steps[0][0]
        margins = {name: m for name, (_, m) in zip(walks, steps, strict=True)}
        yield r, {name: scores(booster, margins[name], sets[name][1]) for name in sets}, \
            margins["train"]


def summary(booster, sets: dict) -> Summary:
    """``sets``: {'train': (X, y), 'valid': (X, y)} ('valid' left out when empty)."""
    n = booster.num_boosted_rounds() + 1
    kind = objectives.spec(booster.objective).task
    step = np.full(n, np.nan)
    low = {name: np.empty(n) for name in sets}
    high = {name: np.empty(n) for name in sets}
    typical = {name: np.empty(n) for name in sets}
    centre = {name: np.empty(n) for name in sets}
    previous = None
    for r, score, margin in _walk(booster, sets):
        if previous is not None:
            step[r] = float(np.mean(np.abs(margin.astype(np.float64) - previous)))
        previous = margin.astype(np.float64)
        for name, s in score.items():
            low[name][r], high[name][r] = np.quantile(s, TAILS)
            if kind == "regression":
                typical[name][r] = centre[name][r] = np.median(np.abs(s))
            else:
                typical[name][r], centre[name][r] = np.mean(s < 0), np.mean(s)
    return Summary(kind, n - 1, step, low, high, typical, centre, booster.loss_history(),
                   booster.metric_name)


def histograms(booster, sets: dict, edges: np.ndarray) -> Histograms:
    """The % of each set's rows in each bar of ``edges``, round by round."""
    edges = np.asarray(edges)
    n = booster.num_boosted_rounds() + 1
    out = {name: np.empty((n, len(edges) - 1)) for name in sets}
    inside = np.nextafter(edges[-1], edges[0])
    for r, score, _ in _walk(booster, sets):
        for name, s in score.items():
            counts, _ = np.histogram(np.clip(s, edges[0], inside), bins=edges)
            out[name][r] = 100.0 * counts / len(s)
    return Histograms(edges=edges, percent=out)
