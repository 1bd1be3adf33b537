"""The panels above the round: the objective's formulas and early stopping's verdict, and
the notes about what the opening link asked for."""

from __future__ import annotations

import streamlit as st

import boost
from boost.params import BY_NAME
from boost.trace.arithmetic import objective_latex

from . import training
from .state import AppState, Model

_BOOSTING = BY_NAME["boosting"]


def link_notes(state: AppState) -> None:
    """One line saying what in the opening URL was corrected, until the model changes."""
    if state.link.notes:
        st.caption(":material/link: The link was corrected: " + "; ".join(state.link.notes)
                   + ".")


def stale_note(state: AppState, model: Model) -> None:
    """Say so when the model on screen is not what the sidebar now describes."""
    if state.inputs.data is None:
        return
    now = training.current_config(state)
    if now == model.config:
        return
    changed = [k for k in now if k != "digest" and now[k] != model.config.get(k)]
    what = ", ".join("data" if k == "name" else k for k in changed) or "the data"
    st.warning(f"**Stale**: the model on screen was trained before you changed {what}. "
               "Press **Train** to train the new setting.", icon=":material/update:")


def engine_note(model: Model) -> None:
    """Say so when the model on screen was trained by the plain-Python engine (small data,
    the first minutes of a fresh server, while the kernels compile)."""
    if model.booster.engine is boost:
        return
    st.caption(f":material/hourglass_top: Trained as plain Python while the engine compiles "
               f"({training.compile_when()}) — the same numbers, bit for bit. "
               "Larger data, other losses and the Lab wait for the compile.")


def objective_panel(model: Model) -> None:
    """The objective's loss, g and h as formulas; the estimated base_score's warning."""
    booster, config = model.booster, model.config
    mode = _BOOSTING.choice_label(config["boosting"])
    with st.expander(f"Objective **{booster.objective}**, {mode} boosting: loss, gradient g, "
                     "hessian h, leaf value"):
        st.caption(f"Labels: {boost.objectives.spec(booster.objective).labels}. m is the "
                   "margin (the sum of base_score's margin and the trees' leaf values).")
        for _, line in objective_latex(booster.objective, booster.params):
            st.latex(line)
    y = booster.data.y
    base = float(booster.base_score[0])
    if (booster.num_groups == 1 and not str(config["base_score"]).strip()
            and not float(y.min()) <= base <= float(y.max())):
        st.warning(f"The estimated base_score {base:.4g} lies outside the target's range "
                   f"[{float(y.min()):.4g}, {float(y.max()):.4g}]. XGBoost estimates it for "
                   f"{booster.objective} with one Newton step from 0, which overshoots when "
                   "the labels are far from 0 relative to the loss's scale (for pseudo-Huber: "
                   "huber_slope). Set base_score (e.g. the median of the target) or a larger "
                   "huber_slope.", icon=":material/warning:")
    early_stopping(model)


def early_stopping(model: Model) -> None:
    booster, config = model.booster, model.config
    if booster.best_iteration is None:
        return
    n = booster.num_boosted_rounds()
    best = booster.best_iteration + 1
    verdict = (f"stopped after round {n}: {config['early_stopping_rounds']} rounds without "
               "improvement" if n < config["num_boost_round"] else
               f"did not stop before round {n}")
    st.caption(f":material/flag: Early stopping: validation {booster.metric_name} was best at "
               f"round {best} ({booster.best_score:.5g}); training {verdict}. As in XGBoost, "
               "the model keeps every round trained.")
