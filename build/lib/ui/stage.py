"""The round on screen: the page's player (``viz/js/player.js``: the transport, the round's
fit, loss curves and tree, stepped and played in the page), then the chosen view and the
shareable URL, which follow the round the player rests on. Owns ``Stage``, the session's
part holding the round, the selected node and the view: other modules read it and change
it through its methods."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import streamlit as st

import boost
from viz.round_trace import PANELS, round_trace, window
from viz.theme import sample_rows

from . import downloads, routes, url, verify
from .guard import guarded, lacks
from .opened import is_opened
from .player import offline_button, player
from .state import AppState, Model, Shown, Stage, ViewKeep
from .training import missing_features
from .views import DEFAULT, VIEWS

# An element with nothing to show (its container takes no room): it scrolls the view in
_SCROLL_TO = st.components.v2.component(
    "boostscope_scroll_to", js=Path(__file__).with_name("scroll_to.js").read_text(),
    css=".st-key-scroll_to { display: none; }", isolate_styles=False)


def rerun_if_asked(state: Stage) -> None:
    """One full run when a callback asked for it (a pin, the Lab loading a model): a
    fragment's rerun does not retrain."""
    if state.rerun_app:
        state.rerun_app = False
        st.rerun(scope="app")


def round_stage(state: AppState, model: Model) -> None:
    """Everything that follows the current round; never a traceback on a lecturer's screen."""
    start = time.perf_counter()
    _guarded(state, _round_stage, model)
    state.stage.stage_ms = (time.perf_counter() - start) * 1000


def _guarded(state: AppState, draw, *args) -> None:
    guarded(lambda: draw(state, *args), "This round",
            "Step to another round or choose other columns")


def view_stage(state: AppState, shown: Shown) -> None:
    """The chosen view and the shareable URL: a fragment inside the round's, so a click in
    the view (a tree node, a feature) redraws the view alone, not the fit, the loss and the
    controls above it."""
    start = time.perf_counter()
    _guarded(state, _view_stage, shown)
    state.stage.view_ms = (time.perf_counter() - start) * 1000


def _view_stage(state: AppState, shown: Shown) -> None:
    rerun_if_asked(state.stage)  # a callback in the view (the Lab, a pin) changed the model
    render_view(state, shown, VIEWS[state.stage.view or DEFAULT])  # only the chosen view runs
    if url.writes(state):
        url.share(state, shown.config, DEFAULT)


def _round_stage(state: AppState, model: Model) -> None:
    booster, prep = model.booster, model.prep
    state.screen.clear()
    klass = class_choice(state, booster, prep.class_names)
    trace = stage_trace(state, model, klass)
    player_ui(state, trace, model)
    shown = Shown(booster, prep, model.config, state.stage.round, False)
    with st.container(horizontal=True, vertical_alignment="center"):
        verify.badge(model, Stage.verify.key)
        offline_button(trace, model, klass, "offline_stage")
    if state.stage.view not in VIEWS:
        state.stage.view = DEFAULT
    st.segmented_control("View", list(VIEWS), key=Stage.view.key,
                         format_func=lambda slug: VIEWS[slug].TITLE,
                         label_visibility="collapsed")
    st.fragment(view_stage)(state, shown)
    downloads.buttons(model, st.columns(3))


def player_ui(state: AppState, trace: dict, model: Model) -> None:
    """The page's player for ``trace`` (of ``model``): the round it rests on and the node
    selected there come back into ``Stage``; the page asks the app's node route for the
    model's node records (of the class shown)."""
    player(trace, "player", on_round=state.stage.rests_on,
           keys=state.lesson.slug is None, held=trace["id"] in state.stage.held,
           on_held=state.stage.page_holds,
           nodes=routes.node_url(model.booster, model.prep.X_train,
                                 state.views.class_shown(model.booster.num_groups)))


def class_choice(state: AppState, booster, class_names) -> int:
    """The class whose trees the stage draws (multi-class: one tree per class per round)."""
    if booster.num_groups == 1:
        return 0
    names = class_names or [str(k) for k in range(booster.num_groups)]
    st.segmented_control("Class (one tree per class per round)",
                         list(range(booster.num_groups)), key=ViewKeep.klass.key,
                         format_func=lambda k: f"{k}: {names[k]}")
    return state.views.class_shown(booster.num_groups)


def stage_trace(state: AppState, model: Model, klass: int, large: bool = False,
                fill: bool = False, panels=PANELS) -> dict:
    """The round trace of the model on screen (docs/player.md) with where the page should
    be (``goto``: the stage's round, node and token). A model beyond the trace's budget is
    sent as a window of rounds; the window moves only when the page asks for a round outside
    it (it reports that round at once), so rests inside it send nothing new."""
    stage = state.stage
    around = stage.round if stage.around is None else stage.around
    lo, hi = trace_window(model, klass, around)
    if not lo <= stage.round <= hi:
        around = stage.round
    stage.around = around
    return {**model_trace(model, klass, large, fill, panels, around),
            "goto": {"round": int(stage.round), "node": stage.node, "token": stage.token}}


def _rounds(model: Model, klass: int):
    """Every round's fit of the drawn rows and the trees of class ``klass`` (the model's
    trace keeps it)."""
    booster, prep = model.booster, model.prep
    X = prep.X_train.to_numpy(dtype=float)
    # without a target (a model file's sample) the trace holds the trees alone
    y = prep.y_train if booster.data.y is not None else np.full(len(X), np.nan)
    return booster.trace.rounds(X, y, sample_rows(len(X)), klass)


def trace_window(model: Model, klass: int = 0, around: int = 0) -> tuple[int, int]:
    """The rounds a trace centred on ``around`` holds: all of them within the budget. Kept
    in the model's cache: every run of the stage asks, and the rounds' record it is read
    from is found by hashing the training rows (tens of ms at 100k rows)."""
    return model.booster.trace.cache.get(("trace window", klass, int(around)),
                                         lambda: window(_rounds(model, klass), around))


def model_trace(model: Model, klass: int = 0, large: bool = False, fill: bool = False,
                panels=PANELS, around: int = 0) -> dict:
    """A model's round trace, built once per model, window and what it draws (kept in the
    model's own cache, which every session showing the model shares); its ``goto`` is
    round 0."""
    lo, hi = trace_window(model, klass, around)
    key = ("player trace", klass, large, fill, tuple(panels), lo, hi)
    return model.booster.trace.cache.get(
        key, lambda: _model_trace(model, klass, large, fill, panels, around))


def _model_trace(model: Model, klass: int, large: bool, fill: bool, panels,
                 around: int) -> dict:
    booster, prep = model.booster, model.prep
    target = booster.data.y is not None
    best = None if booster.best_iteration is None else booster.best_iteration + 1
    return round_trace(_rounds(model, klass), booster.loss_history() if target else None,
                       booster.metric_name, prep.class_names, booster.params,
                       model_key=model.config.get("digest", ""), large=large, fill=fill,
                       panels=panels, best_round=best, around=around,
                       missing_features=missing_features(model.config, prep.X_train))


def render_view(state: AppState, shown: Shown, view) -> None:
    """The chosen view; on an opened model file, what it needs the training run for."""
    if is_opened(shown.config) and not getattr(view, "ON_SAMPLE", False):
        st.info(f"**{view.TITLE}** needs the training run (its parameters, rows or other "
                "models), which an XGBoost model file does not hold. On an opened model, "
                "choose " + ", ".join(f"*{v.TITLE}*" for v in VIEWS.values()
                                      if getattr(v, "ON_SAMPLE", False))
                + "; train a model in BoostScope (close the opened one) for this view.",
                icon=":material/info:")
        return
    asked = state.stage.scroll_to
    if asked is not None and asked[0] == view.SLUG:
        _SCROLL_TO(key="scroll_to", data={"token": asked[1]})
    try:
        view.render(state, shown)
    except boost.NoTrainingTrace as exc:
        lacks(exc)
