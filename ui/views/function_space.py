"""Gradient descent in function space: two rows' margins as a point, the negative gradient
and the step the next tree takes; for a loss with a varying hessian, −g against −g/h."""

from __future__ import annotations

import numpy as np
import streamlit as st

from boost import objectives
from viz.function_space import (
    describe_step,
    function_space_table,
    make_function_space_figure,
)

from ..charts import class_picker, show
from ..state import AppState, Shown

SLUG = "function-space"
TITLE = "Function space"
EXPLAIN = ("Each axis is one training row's margin F. The grey path is F after each round; "
           "the wide blue arrow is −g, the direction that lowers the loss fastest at F(r), and "
           "the red arrow is what round r+1's tree added (η·w of each row's leaf). With a leaf "
           "per row it follows −g (−g/h, shortened by η and λ); a leaf shared with other rows "
           "averages their gradients, so one row's step can stray from its own −g.")
EXPLAIN_NEWTON = ("With the log-loss h = p(1−p) differs between rows, so XGBoost's leaves "
                  "aim at −g/h (dashed pink, a Newton step), not −g: each row's gradient is "
                  "scaled by 1/h ≥ 4, most where p is near 0 or 1 (small h, a flat loss).")


def _rows(y) -> tuple[int, int] | None:
    n = len(y)
    if n < 2:
        return None
    if n == 2:
        return 0, 1
    other = np.flatnonzero(y != y[0])  # start with two rows of different labels
    a, b = st.columns(2)
    row_a = a.number_input("Row a (x axis)", 0, n - 1, 0, key="fs_row_a")
    row_b = b.number_input("Row b (y axis)", 0, n - 1, int(other[0]) if len(other) else 1,
                           key="fs_row_b")
    return int(row_a), int(row_b)


def render(state: AppState, shown: Shown) -> None:
    booster, prep = shown.booster, shown.prep
    if objectives.spec(booster.objective).task == "ranking":
        st.info("This view moves two rows' margins, each by its own gradient; a ranking "
                f"document's g ({booster.objective}) is a sum over the pairs of its whole "
                "query, so two rows alone have none of their own. The Ranking pairs view "
                "shows where each document's g comes from.")
        return
    r = min(shown.round, booster.num_boosted_rounds())
    rows = _rows(prep.y_train)
    if rows is None:
        st.info("Function space needs at least two training rows.")
        return
    if rows[0] == rows[1]:
        st.warning("Pick two different rows: each one is an axis.")
        return
    klass = class_picker(shown, "fs_klass", "Class (its margins)")
    idx = list(rows)
    w = None if prep.w_train is None else prep.w_train[idx]
    fs = booster.trace.function_space(prep.X_train.iloc[idx], prep.y_train[idx], w, rows, r,
                                      klass)
    names = (f"row {rows[0]}", f"row {rows[1]}")
    newton = not objectives.spec(booster.objective).const_hess
    if shown.compact:  # a presenter panel: the one picture that teaches (Newton's if h varies)
        show(make_function_space_figure(fs, names, shown.large, newton=newton), "fs_path",
             state, shown)
        return
    st.caption(EXPLAIN + (f" With {len(prep.y_train)} training rows this is a projection: "
                          "the other rows' margins move too." if len(prep.y_train) > 2 else ""))
    left, right = st.columns(2)  # half width: equal scales keep the plane square-ish
    with left:
        show(make_function_space_figure(fs, names, shown.large), "fs_path", state, shown)
    with right:
        if newton:
            show(make_function_space_figure(fs, names, shown.large, newton=True), "fs_newton",
                 state, shown)
        else:
            _numbers(fs, names)
    if newton:
        st.caption(EXPLAIN_NEWTON)
        _numbers(fs, names)


def _numbers(fs, names) -> None:
    st.markdown(describe_step(fs))
    st.dataframe(function_space_table(fs, names).rename_axis("").reset_index(), hide_index=True)
