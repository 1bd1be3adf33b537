"""exact and hist side by side on the same data and γ: exact grows splits and prunes them
bottom-up; hist refuses a split whose gain < γ before growing it."""

from __future__ import annotations

import streamlit as st

from viz.pruning import gamma_counts, gamma_summary
from viz.tree import WIDTH, tree_figure_within

from ..charts import class_picker, show
from ..state import AppState, Shown
from ..training import missing_features, other_model

SLUG = "pruning"
TITLE = "Pruning: exact vs hist"
EXPLAIN = ("Same data, same γ. exact grows every split with a gain and then prunes bottom-up: a "
           "split whose children are both leaves goes when its gain < γ, so a weak split "
           "survives when a strong one below it does. hist (and approx) test gain < γ when "
           "the split is found and refuse it, so nothing below a weak split is ever tried. "
           "Splits can differ too: exact splits halfway between values, hist at bin edges.")


def _methods(config: dict) -> tuple[str, str]:
    """(the method on screen, the other one): approx counts as hist-like."""
    mine = config["tree_method"]
    return mine, "hist" if mine == "exact" else "exact"


def render(state: AppState, shown: Shown) -> None:
    booster, config, r = shown.booster, shown.config, shown.round
    mine, other_method = _methods(config)
    other = other_model(state, {**config, "tree_method": other_method},
                        f"tree_method = {other_method}", "compare exact and hist")
    if other is None:
        return
    if r == 0:
        st.info("Round 0 is the baseline: step to round 1 to compare the two trees.")
        return
    klass = class_picker(shown, "prune_klass")
    gamma = float(booster.params["gamma"])
    if not shown.compact:
        st.caption(EXPLAIN)
    models = {mine: (config, booster), other_method: ({**config, "tree_method": other_method},
                                                      other)}
    order = sorted(models, key=lambda m: m != "exact")  # exact on the left
    for col, method in zip(st.columns(2), order, strict=True):
        with col:
            _side(state, shown, method, *models[method], klass, gamma)


def _side(state: AppState, shown: Shown, method: str, config: dict, model, klass: int,
          gamma: float) -> None:
    r = shown.round
    if r > model.num_boosted_rounds():
        st.info(f"{method} stopped early after round {model.num_boosted_rounds()}.")
        return
    trees = model.trace.trees()
    tree = trees[(trees.Round == r) & (trees.Class == klass)]
    if not shown.compact:  # a lesson's text says it
        st.markdown(f"**{method}**: {gamma_summary(tree, gamma, method)}")
    width = (shown.width or 2 * WIDTH) // 2 - 20  # two trees side by side
    fig = tree_figure_within(tree, shown.height or 10_000, gamma=gamma,
                             title=f"{method}, round {r}: {gamma_counts(tree)}",
                             large=shown.large, width=width,
                             missing_features=missing_features(config, shown.prep.X_train))
    show(fig, f"prune_tree_{method}", state, shown, exact=True)
