"""Residuals or gradients of every row before and after the round, and one row's
prediction built tree by tree (a waterfall from base_score)."""

from __future__ import annotations

import streamlit as st

from viz.residuals import make_residual_figure, make_waterfall_figure

from ..charts import show
from ..state import AppState, Shown

SLUG = "residuals"
TITLE = "Residuals and gradients"
ON_SAMPLE = True  # works on a model file opened with a data sample (the sample's rows)


def render(state: AppState, shown: Shown) -> None:
    booster, prep, r = shown.booster, shown.prep, shown.round
    if r == 0:
        st.info("Step to round 1 or later to see what each round's tree did to the rows.")
        return
    if booster.data.y is None:
        st.info("Residuals and gradients need the sample's target: choose its column under "
                "*Open an XGBoost model* and open the model again.")
        return
    klass = state.views.class_shown(booster.num_groups)
    before, after = booster.round_views(r)
    used = booster.rows_used(r, klass) if booster.params["subsample"] < 1 else None
    figure = make_residual_figure(before, after, booster.objective, klass, shown.large,
                                  used=used)
    if shown.compact:  # a presenter panel: the residuals alone
        show(figure, "residuals", state, shown)
        return
    left, right = st.columns(2)
    with left:
        show(figure, "residuals", state, shown)
    with right:
        n = len(prep.y_train)
        rows = "sample" if booster.on_sample else "training set"
        row = st.number_input(f"Row ({rows})", 0, n - 1, 0, key="waterfall_row",
                              help="Follow one row from base_score through every tree.")
        waterfall = booster.trace.waterfall(prep.X_train.iloc[[row]].to_numpy(), r, klass)
        show(make_waterfall_figure(waterfall, label=f"row {row}", large=shown.large),
             "waterfall", state, shown)
