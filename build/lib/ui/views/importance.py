"""Feature importance through the rounds (XGBoost's get_score types)."""

from __future__ import annotations

import streamlit as st

from viz.importance import make_importance_figure

from ..charts import show
from ..state import AppState, Shown

SLUG = "importance"
TITLE = "Feature importance"
ON_SAMPLE = True  # works on a model file opened with a data sample (the trees alone)
KINDS = ("gain", "weight", "cover", "total_gain", "total_cover")


def render(state: AppState, shown: Shown) -> None:
    kind = (None if shown.compact else
            st.segmented_control("Importance", KINDS, default=KINDS[0], key="importance_type"))
    importance = shown.booster.trace.importance_by_round(kind or KINDS[0])
    show(make_importance_figure(importance, shown.round, large=shown.large), "importance",
         state, shown)
