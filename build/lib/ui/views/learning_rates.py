"""The same data trained with several learning rates: loss curves with each best round,
and each fit for one-feature data."""

from __future__ import annotations

import streamlit as st

from viz.learning_rate import make_learning_rate_figure, make_learning_rate_fit_figure

from .. import url
from ..charts import show
from ..state import AppState, Shown, ViewKeep
from ..training import train_other

SLUG = "learning-rates"
TITLE = "Learning rates"


def render(state: AppState, shown: Shown) -> None:
    booster, prep, r = shown.booster, shown.prep, shown.round
    text = (state.views.etas if shown.compact else
            st.text_input("Learning rates to compare (η, comma-separated, up to 6)",
                          key=ViewKeep.etas.key))
    etas = url.parse_etas(text)
    if not etas:
        st.warning("Give one or more learning rates between 0.01 and 1, e.g. 0.01, 0.1, 0.3.")
        return
    boosters = {}
    with st.spinner("Training one model per learning rate…", show_time=True):
        for eta in etas:
            other = train_other(state, {**shown.config, "eta": eta})
            if other is None:
                break
            boosters[eta] = other
    if not boosters:
        st.info("Train on the current data to compare learning rates.")
        return
    histories = {eta: b.loss_history() for eta, b in boosters.items()}
    stopped = {eta: b.best_iteration + 1 for eta, b in boosters.items()
               if b.best_iteration is not None}
    figure = make_learning_rate_figure(histories, r, booster.metric_name, shown.large,
                                       stopped=stopped)
    if shown.compact:  # a narrow panel: the legend names each η once (dotted = train)
        figure.for_each_trace(lambda t: t.update(showlegend=False),
                              selector=lambda t: str(t.name).endswith("train"))
        figure.layout.title.text += " (dotted: train)"
    show(figure, "lr_curves", state, shown)
    if shown.compact:
        return
    if stopped:
        st.caption("★ marks the round early stopping kept for each learning rate; each curve "
                   "ends where its training stopped.")
    if prep.X_train.shape[1] == 1 and booster.num_groups == 1:
        X = prep.X_train.to_numpy(dtype=float)
        curves = {eta: b.trace.curve(X, r, pad=False) for eta, b in boosters.items()}
        show(make_learning_rate_fit_figure(curves, X, prep.y_train, r, prep.feature_names[0],
                                           shown.large), "lr_fits", state, shown)
