"""Growth order: the round's tree grown depth-wise and leaf-wise on the same data, replayed
split by split (``viz/growth.py``). The other policy's model comes from ``other_model``."""

from __future__ import annotations

import streamlit as st

from boost.params import BY_NAME
from viz.growth import growth, growth_figure

from ..charts import class_picker, show
from ..state import AppState, Shown
from ..training import other_model

SLUG = "growth-order"
TITLE = "Growth order"
CONTROLS = 100  # px: the slider and the step buttons above the chart
_POLICY = BY_NAME["grow_policy"]
EXPLAIN = ("Same data, same parameters, two orders. Depth-wise (XGBoost's default) splits "
           "every node of a depth before going deeper. Leaf-wise (grow_policy = lossguide, as "
           "LightGBM) always splits the leaf whose best split gains most, wherever it is, so "
           "with a leaf budget (max_leaves) it spends the splits where the loss falls most "
           "and grows deep, lopsided trees. Numbers are the order of the splits; faint nodes "
           "are still to come.")


def _configs(config: dict) -> dict:
    """Each policy's configuration: the model's own, with exact replaced by hist (exact
    grows depth-wise only)."""
    base = {**config, "tree_method": "hist"} if config["tree_method"] == "exact" else config
    return {policy: {**base, "grow_policy": policy} for policy in _POLICY.choices}


def _step(state: AppState, delta: int, total: int) -> None:
    k = state.views.growth_step if state.views.growth_step is not None else total
    state.views.growth_step = min(max(k + delta, 0), total)


def render(state: AppState, shown: Shown) -> None:
    booster, config, r = shown.booster, shown.config, shown.round
    models = {}
    for policy, cfg in _configs(config).items():
        model = booster if cfg == config else other_model(
            state, cfg, f"grow_policy = {policy}", "compare the two growth orders")
        if model is None:
            return
        models[policy] = (cfg, model)
    if r == 0:
        st.info("Round 0 is the baseline: step to round 1 to see the trees grow.")
        return
    if any(r > m.num_boosted_rounds() for _, m in models.values()):
        st.info("One of the two models stopped early before this round.")
        return
    klass = class_picker(shown, "growth_klass")
    trees = {}
    for policy, (_, model) in models.items():
        frame = model.trace.trees()
        trees[_POLICY.choice_label(policy)] = frame[(frame.Round == r) & (frame.Class == klass)]
    total = max(growth(tree).splits for tree in trees.values())
    if total == 0:
        st.info("Neither tree split in this round: both are a single leaf.")
        return
    if state.views.growth_tree != shown.tree_key(klass):  # other trees: the replay starts complete
        state.views.growth_tree, state.views.growth_step = shown.tree_key(klass), None
    if state.views.growth_step is None or state.views.growth_step > total:
        state.views.growth_step = total
    back, slider, forward = st.columns([1, 8, 1], vertical_alignment="bottom")
    back.button("◀", key="growth_back", on_click=_step, args=(state, -1, total),
                help="One split back", use_container_width=True)
    slider.slider("Splits made (replay both trees)", 0, total, key="growth_step")
    forward.button("▶", key="growth_forward", on_click=_step, args=(state, 1, total),
                   help="One split more", use_container_width=True)
    k = int(state.views.growth_step)
    height = shown.height - CONTROLS if shown.height else None  # a panel holds the controls
    show(growth_figure(trees, k, shown.large, height), "growth_chart", state, shown, exact=True)
    if shown.compact:
        return
    notes = [EXPLAIN]
    if config["tree_method"] == "exact":
        notes.append("exact grows depth-wise only: both trees here are hist trees with the "
                     "model's other parameters.")
    if not int(config.get("max_leaves") or 0):
        notes.append("With no max_leaves both orders make the same splits in the end; set "
                     "max_leaves (and max_depth 0) to see leaf-wise spend a budget differently.")
    st.caption(" ".join(notes))
