"""Why do many small steps generalise? The model's η against a second η on the same data and
rounds: where the rows' margins sit round by round (train and validation), the size of each
round's step, the train–validation gap, and two sentences reading them."""

from __future__ import annotations

import numpy as np
import streamlit as st

from boost.params import BY_NAME
from viz.generalisation import (
    Side,
    common_edges,
    facts,
    make_gap_figure,
    make_margins_figure,
    make_steps_figure,
    reading,
)

from .. import url
from ..charts import show
from ..state import AppState, Shown, ViewKeep
from ..training import other_model

SLUG = url.ETA2_VIEW
TITLE = "Why it generalises"
ETA = BY_NAME["eta"]
EXPLAIN = {
    "binary": "Each row at its y·margin (y = +1 or −1): right of 0 the model is on the right "
              "side. Bars: training rows; outline: validation rows.",
    "multiclass": "Each row at its true class's margin minus the best other class's: right of "
                  "0 the true class wins. Bars: training rows; outline: validation rows.",
    "regression": "Each row at its residual y − prediction: 0 is an exact fit. Bars: training "
                  "rows; outline: validation rows.",
}


def second_eta(eta: float) -> float:
    """The second η a view opens with: a small one against a large η, and the other way."""
    return 0.05 if eta > 0.1 else 0.3


def _sets(prep) -> dict:
    sets = {"train": (prep.X_train, prep.y_train)}
    if len(prep.y_valid):
        sets["valid"] = (prep.X_valid, prep.y_valid)
    return sets


@st.cache_resource(max_entries=16, show_spinner=False)
def _summary(config: dict, _booster, _prep):
    """One walk of the model's trees over its rows, once per model."""
    return _booster.trace.margin_summary(_sets(_prep))


@st.cache_resource(max_entries=16, show_spinner=False)
def _histograms(config: dict, edges: tuple, _booster, _prep) -> dict:
    """Every round's histograms on ``edges``, once per (model, edges)."""
    return _booster.trace.margin_histograms(_sets(_prep), np.array(edges)).percent


def _controls(state: AppState, eta: float) -> None:
    st.number_input("Compare with η =", *ETA.app_range, step=ETA.step, format="%g",
                    key=ViewKeep.gen_eta.key,
                    help="A second learning rate, trained on the same data, split and number "
                         "of rounds (kept in the link as eta2). " + ETA.help)


def _rounds_note(config: dict, boosters: dict) -> str:
    """How many rounds the two models had (early stopping can end them apart)."""
    asked = config["num_boost_round"]
    model, second = (f"η = {eta:g}" for eta in boosters)
    ended = {eta: b.num_boosted_rounds() for eta, b in boosters.items()}
    if all(n == asked for n in ended.values()):
        return (f"The model ({model}) and {second}, both {asked} rounds: a small η needs more "
                "rounds to fit as much.")
    stops = ", ".join(f"η = {eta:g} after {n}" for eta, n in ended.items())
    return (f"The model ({model}) and {second}, up to {asked} rounds; early stopping ended "
            f"them apart ({stops}): a model's last round stands in for the rounds after it.")


def render(state: AppState, shown: Shown) -> None:
    booster, prep, config, r = shown.booster, shown.prep, shown.config, shown.round
    if prep.task == "ranking":
        st.info("This view scores each row on its own (its loss and error per row); a "
                "ranking's NDCG or MAP is a query's, not a row's. Its train and valid "
                f"{booster.metric_name} per round are in the loss chart.")
        return
    eta = float(config["eta"])
    if state.views.gen_eta is None:  # before the widget: its first value
        state.views.gen_eta = second_eta(eta)
    left = right = st.container()
    if not shown.compact:
        left, right = st.columns([1, 4.2], vertical_alignment="top")
        with left:
            _controls(state, eta)
    eta2 = float(state.views.gen_eta)
    if eta2 == eta:
        right.info(f"The second η is the model's own ({eta:g}): choose another to compare.")
        return
    config2 = {**config, "eta": eta2}
    other = other_model(state, config2, f"η = {eta2:g}", "compare two learning rates", right)
    if other is None:
        return
    with st.spinner("Reading the margins of every round…", show_time=True):
        summaries = [_summary(config, booster, prep), _summary(config2, other, prep)]
        edges = tuple(float(e) for e in common_edges(summaries))
        sides = [Side(eta, summaries[0], _histograms(config, edges, booster, prep)),
                 Side(eta2, summaries[1], _histograms(config2, edges, other, prep))]
    margins = make_margins_figure(sides, np.array(edges), r, shown.large)
    if shown.compact:  # its own margins (two rows of titles), the panel's height
        margins.layout.height = shown.height
        show(margins, "gen_margins", state, shown, exact=True)
        return
    with right:
        st.markdown(reading(facts(sides[0], r), facts(sides[1], r), r))
        st.caption(_rounds_note(config, {eta: booster, eta2: other}))
    show(margins, "gen_margins", state, shown)
    st.caption(EXPLAIN[sides[0].summary.task] + " The first and last bars also hold the few "
               "rows beyond them.")
    steps, gap = st.columns(2)
    with steps:
        show(make_steps_figure(sides, r, shown.large), "gen_steps", state, shown)
    with gap:
        if "valid" in summaries[0].loss.columns:
            show(make_gap_figure(sides, r, shown.large), "gen_gap", state, shown)
        else:
            st.info("No validation set (fewer than 10 rows): no train–validation gap.")
