"""hist's cut points (XGBoost's weighted quantile sketch) against exact's candidate
thresholds (halfway between neighbouring values), for one feature."""

from __future__ import annotations

import numpy as np
import streamlit as st

import boost
from boost.trace.sketch import SketchData
from viz.sketch import counts_line, make_sketch_figure

from ..charts import class_name, show
from ..state import AppState, Shown, ViewKeep

SLUG = "quantile-sketch"
TITLE = "Quantile sketch"
CAPTIONS = {
    "hist": "hist sketches each feature once, before round 1, weighting every row by its "
            "sample weight (1 without a weight column): its cuts are plain quantiles of the "
            "values, about equal steps of the green curve.",
    "approx": "approx sketches again before every tree, weighting each row by its hessian h "
              "(times its sample weight): the cuts of round {t}'s tree crowd where h is large "
              "(big markers) and thin out where the model is already sure (small h).",
    "exact": "The model on screen is exact, which has no bins: the tall lines are the cuts "
             "hist would use on this data with max_bin {max_bin} (the same sketch, computed "
             "here).",
}
NOTE_H = (" Marker size: h = p(1−p) at round {r}; XGBoost's hist sketch does not use it, "
          "approx does (switch tree_method to approx to see its cuts follow h).")


@st.cache_resource(max_entries=32, show_spinner=False)
def _sketch(config: dict, _booster: boost.Booster, _X, f: int, r: int, klass: int
            ) -> SketchData:
    """The sketch record, once per (model, feature, round, class); ``_X`` the training
    features."""
    return _booster.trace.sketch(f, r, klass, _X)


def render(state: AppState, shown: Shown) -> None:
    booster, r = shown.booster, shown.round
    method = shown.config["tree_method"]
    names = booster.feature_names
    f, klass = state.views.sketch_feature, 0
    if f >= len(names):
        f = state.views.sketch_feature = 0
    if not shown.compact:  # a presenter panel keeps the choices made outside it
        left, right = st.columns(2)
        f = left.selectbox("Feature", range(len(names)), format_func=lambda i: names[i],
                           key=ViewKeep.sketch_feature.key)
    if booster.num_groups > 1 and not shown.compact:
        klass = right.selectbox("Class (its hessian)", list(range(booster.num_groups)),
                                key="sketch_klass",
                                format_func=lambda k: f"{k}: {class_name(shown, k)}")
    d = _sketch(shown.config, booster, shown.prep.X_train, int(f), r, klass)
    if not np.isfinite(d.values).any():
        st.info(f"{names[f]} has no values in the training rows.")
        return
    shown_method = "approx" if d.tree else "hist"
    if not shown.compact:  # a lesson's text says the counts
        counts = counts_line(len(d.thresholds), len(d.cuts), d.max_bin, shown_method)
        st.markdown(f"**{counts}**")
    title = (f"{names[f]}: approx's cuts for round {d.tree}'s tree" if d.tree
             else f"{names[f]}: hist's cuts and exact's thresholds")
    show(make_sketch_figure(d.values, d.thresholds, d.cuts, names[f], shown.large,
                            weight=d.weight, size_by=d.size_by, title=title,
                            method=shown_method, hist_cuts=d.hist_cuts, max_bin=d.max_bin),
         "sketch_chart",
         state, shown)
    if shown.compact:
        return
    caption = CAPTIONS[method].format(t=d.tree, max_bin=d.max_bin)
    if d.size_by is not None and method != "approx":
        caption += NOTE_H.format(r=r)
    if len(d.cuts) == len(d.thresholds):
        caption += (" With fewer distinct values than max_bin the cuts are the values "
                    "themselves (all but the smallest): x < v splits the same rows as exact's "
                    "threshold just below v.")
    st.caption(caption + " A value x falls in bin i when cut i−1 ≤ x < cut i; the last cut "
               "(above every value) is not drawn.")
