"""A/B: the current model beside its pinned models (ui/pins.py), on the same data: the
numbers, loss curves overlaid, fits overlaid, the same round's two trees with what differs
marked, and each round's leaves and Σ|leaf value|."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from viz.compare import (
    MODEL_COLORS,
    leaf_summary,
    make_fit_overlay_figure,
    make_leaves_figure,
    make_loss_overlay_figure,
    make_prediction_overlay_figure,
    mark_differences,
    overlay_rows,
    swatch,
)
from viz.tree import tree_figure_within
from viz.tree_diff import KINDS, diff_trees

from .. import pins, url
from ..charts import class_picker, show
from ..state import AppState, Shown, ViewKeep
from ..training import TrainingError, missing_features

SLUG = pins.VIEW
TITLE = "Compare pins"
HALF_WIDTH = 400  # px: each of the two trees in a 1280 px window with the sidebar open
TREE_HEIGHT = 560  # px: taller trees fold their deepest levels
HOW = ("**Pin model** keeps its parameters; change anything (η, max_depth, γ, …; on data "
       "over the live limit, then press **Train**), and each pin is trained on the same data "
       "and columns and drawn beside the current model in its own colour. Pins are in the "
       "address bar: a shared link reopens them.")


@dataclass(frozen=True)
class Entry:
    """One model of the comparison: ``index`` 0 is the current model, i the i-th pin."""

    index: int
    name: str  # "current", "pin 1", ...
    legend: str  # the name and what differs: "pin 1: eta 0.1"
    config: dict
    booster: object

    @property
    def color(self) -> str:
        return MODEL_COLORS[self.index % len(MODEL_COLORS)]


def render(state: AppState, shown: Shown) -> None:
    if not shown.compact:
        st.caption("Each pin keeps a model's parameters and is trained on the data and columns "
                   "on screen; every chart gives a model the same colour.")
        pins.pins_ui(state, "cmp", in_fragment=True)
    entries = _entries(state, shown)
    colors = {e.legend: e.color for e in entries}
    booster, r = shown.booster, shown.round
    histories = {e.legend: e.booster.loss_history() for e in entries}
    show(make_loss_overlay_figure(histories, colors, r, booster.metric_name, shown.large),
         "cmp_pin_loss", state, shown)
    if shown.compact:  # a presenter panel: the loss curves alone
        return
    if len(entries) == 1:
        st.info(HOW, icon=":material/push_pin:")
    summaries = {e.legend: leaf_summary(e.booster.trace.trees()) for e in entries}
    st.dataframe(numbers(entries, summaries, r, shown.config), hide_index=True,
                 key="cmp_pin_numbers")
    if len(entries) > 1:
        _fits(state, shown, entries, colors)
        _trees(state, shown, entries)
    show(make_leaves_figure(summaries, colors, r, shown.large), "cmp_pin_leaves", state, shown)


def _entries(state: AppState, shown: Shown) -> list[Entry]:
    """The current model and every pin that trains on the data on screen (each pin that
    cannot is said, once)."""
    twin = pins.twin(shown.config, state.pins.kept)  # (drawn over it: named so)
    entries = [Entry(0, pins.CURRENT, pins.CURRENT if twin is None
                     else f"{pins.CURRENT} (= {pins.name(twin)})", shown.config, shown.booster)]
    said = pins.labels(state.pins.kept, objective=shown.config.get("objective"))
    with st.spinner("Training the pinned models…", show_time=True):
        for i, pin in enumerate(state.pins.kept, 1):
            text = said[i - 1]
            try:
                model = pins.train_pin(state, pin, shown.config)
            except TrainingError as exc:
                st.warning(f"**{pins.name(i)}** ({text}) does not apply to the data on "
                           f"screen: {exc} Remove it (×) or change the data back.",
                           icon=":material/push_pin:")
                continue
            if model is None:
                st.info("The data changed since the model on screen was trained: press "
                        "**Train** (or wait for it to train) to compare the pins on the new "
                        "data.")
                return entries[:1]
            entries.append(Entry(i, pins.name(i), f"{pins.name(i)}: {text}",
                                 pins.pin_config(pin, shown.config), model))
    return entries


def numbers(entries: list[Entry], summaries: dict, r: int, config: dict) -> pd.DataFrame:
    """One row per model: what differs, its rounds, the losses at the round on screen (or
    its last), its best validation round, the leaves of that round."""
    rows = []
    for e in entries:
        booster, history = e.booster, e.booster.loss_history()
        metric = booster.metric_name
        at = min(r, booster.num_boosted_rounds())
        row = {"model": e.name,
               "differs from current": "—" if e.index == 0 else pins.label(
                   pins.pin_of(e.config), config, limit=8),
               "rounds": booster.num_boosted_rounds(), "at round": at}
        for column in history.columns:
            row[f"{column} {metric}"] = float(history[column].iloc[at])
        if "valid" in history.columns:
            best = int(history["valid"].to_numpy().argmin())
            row[f"best valid {metric}"] = float(history["valid"].iloc[best])
            row["best round"] = best
        summary = summaries[e.legend]
        row["leaves"] = int(summary.leaves.get(at, 0))
        row["Σ|η·w|"] = float(summary.abs_value.get(at, 0.0))
        rows.append(row)
    return pd.DataFrame(rows)


def _fits(state: AppState, shown: Shown, entries: list[Entry], colors: dict) -> None:
    prep = shown.prep
    boosters = {e.legend: e.booster for e in entries}
    if prep.X_train.shape[1] == 1 and shown.booster.num_groups == 1:
        X = prep.X_train.to_numpy(dtype=float)
        curves = {name: b.trace.curve(X, shown.round) for name, b in boosters.items()}
        fig = make_fit_overlay_figure(curves, colors, X, prep.y_train, shown.round,
                                      prep.feature_names[0], shown.large)
    else:
        X, y = ((prep.X_valid, prep.y_valid) if len(prep.y_valid)
                else (prep.X_train, prep.y_train))
        rows = overlay_rows(len(y))
        X = X.to_numpy(dtype=float)[rows]
        predictions = {name: b.trace.predictions(X, shown.round)
                       for name, b in boosters.items()}
        fig = make_prediction_overlay_figure(predictions, colors, np.asarray(y)[rows],
                                             shown.round, shown.large)
    show(fig, "cmp_pin_fit", state, shown)


def _pick(state: AppState, names: list[str], shown: Shown) -> tuple[str, str, int]:
    """The two models whose trees are drawn, and the class (multi-class)."""
    if state.views.compare_left not in names:
        state.views.compare_left = names[0]
    if state.views.compare_right not in names:
        state.views.compare_right = names[1]
    cols = st.columns(3 if shown.booster.num_groups > 1 else 2)
    left = cols[0].selectbox("Left tree", names, key=ViewKeep.compare_left.key)
    right = cols[1].selectbox("Right tree", names, key=ViewKeep.compare_right.key)
    klass = class_picker(shown, "cmp_pin_klass", where=cols[-1])  # the third, if any
    return left, right, klass


def _trees(state: AppState, shown: Shown, entries: list[Entry]) -> None:
    """The round's tree of two models side by side, what differs ringed and listed."""
    r = shown.round
    st.markdown(f"##### The trees of round {r}, side by side")
    by_name = {e.name: e for e in entries}
    left, right, klass = _pick(state, list(by_name), shown)
    if r == 0:
        st.info("Round 0 is the baseline: step to round 1 to compare the trees.")
        return
    pair = [by_name[left], by_name[right]]
    trees = []
    for e in pair:
        if r > e.booster.num_boosted_rounds():
            st.info(f"{e.name} has {e.booster.num_boosted_rounds()} rounds: step back to "
                    "compare its trees.")
            return
        frame = e.booster.trace.trees()
        trees.append(frame[(frame.Round == r) & (frame.Class == klass)])
    diff = diff_trees(trees[0], trees[1], (left, right))
    _say_diff(diff, left, right)
    sides = zip(("left", "right"), st.columns(2), pair, trees, (diff.a, diff.b), strict=True)
    for side, col, e, tree, marks in sides:
        with col:
            fig = tree_figure_within(
                tree, TREE_HEIGHT, gamma=float(e.booster.params["gamma"]),
                title=f"{swatch(e.color)} {e.name}, round {r}", large=shown.large,
                width=HALF_WIDTH, missing_features=missing_features(e.config,
                                                                    shown.prep.X_train))
            show(mark_differences(fig, marks, shown.large), f"cmp_pin_tree_{side}", state,
                 shown, exact=True)


def _say_diff(diff, left: str, right: str) -> None:
    if left == right:
        st.caption("The same model on both sides: choose another one for the right tree.")
        return
    if diff.same:
        st.caption(f"The two trees are the same: every split, and every leaf value to 1e-6 "
                   f"(relative), of {left} is {right}'s.")
        return
    counts = ", ".join(f"{n} × {KINDS[k]}" for k in KINDS if (n := diff.count(k)))
    st.caption(f"Ringed on both trees (hover a ring for the numbers): {counts}.")
    with st.expander(f"What differs ({len(diff.items)})"):
        st.markdown("\n".join(f"- {url.shown(line, 400)}" for line in diff.lines[:40]))
        if len(diff.items) > 40:
            st.caption(f"… and {len(diff.items) - 40} more.")
