"""The round on screen: the transport controls, the round's fit and loss, the chosen view
and the shareable URL. Re-run alone (a Streamlit fragment) when stepping or playing. Owns
``Stage``, the session's part holding the round, playback, the selected node and the view:
other modules read it and change it through its methods."""

from __future__ import annotations

import time
from urllib.parse import parse_qs

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

import boost
from viz.fit import make_fit_figure
from viz.loss import loss_line, make_loss_figure
from viz.theme import sample_rows

from . import downloads, url, verify
from .charts import export_button, show
from .opened import is_opened
from .state import AppState, Model, Shown, Stage
from .views import DEFAULT, VIEWS

SPEEDS = (0.25, 0.5, 1.0, 2.0)  # seconds per round while playing


def _browser_round() -> int | None:
    """The round in the address bar of the browser that sent this run's request (the URL
    ``url.share`` writes at the end of each run): which run's page the browser had drawn."""
    ctx = get_script_run_ctx()
    found = parse_qs(ctx.query_string if ctx else "").get("round", [])
    return int(found[0]) if found and found[0].isdigit() else None


def _keep_pressed_round(state: Stage) -> None:
    """The round a press set, until the browser shows it. Every request carries the round
    slider as the browser has it: one sent before the browser drew a press's round (an
    upload finishing just after a Step, a second Step, a click in the view) carries the
    round from before the press, which Streamlit applies over the press's round. While the
    browser's address bar does not show the press's round, the slider at a round the
    browser may still show (the round before the first of the presses, or one they showed
    on the way) is that echo, not a move; any other value is the user's. No time is
    involved: an echo can come any time later, a move any time sooner."""
    if state.pressed is None:
        return
    if not state.writes_url:  # no URL to confirm a round by (presenter, lesson, model file)
        state.pressed = None  # (and closing it sets round 0 itself)
        return
    earlier, after = state.pressed
    if _browser_round() == after:  # the browser has drawn the press's round
        state.pressed = None
    elif state.round in earlier:  # an echo
        state.round = after
    elif state.round != after:  # the slider moved
        state.pressed = None


def _press_round(state: Stage, value) -> None:
    """A press of Step, Back, First or Last: ``value(round)`` is the round it shows, from
    the last press's round if the browser pressed before drawing it; Play goes on from it."""
    _keep_pressed_round(state)
    earlier = (state.round,) if state.pressed is None else (*state.pressed[0], state.round)
    state.round = value(state.round)
    state.pressed = (earlier, state.round) if state.writes_url else None
    state.played_round = None


def _step(state: Stage, delta: int, n: int) -> None:
    _press_round(state, lambda r: int(min(n, max(0, r + delta))))


def _jump(state: Stage, value: int) -> None:
    _press_round(state, lambda _: value)


HOLD_S = 1.5  # after Play stops, requests the browser sent before it knew keep that round


# Play and Pause are two buttons (keys "play" and "pause"), drawn one at a time: a press
# says which one the browser showed. Streamlit can deliver one press twice while Play's timer
# reruns the fragment (seen in Chromium, by click and by the Space key: a pause, then ~0.2 s
# later the same press again, which had started Play again); a press of Play while playing
# or of Pause while paused is such a repeat (or a press the browser sent before it drew the
# other button) and does nothing, however soon or late it comes. A real press is never
# dropped: pressing Play plays, pressing Pause pauses.
def _play(state: Stage, n: int) -> None:
    if state.playing:
        state.repeated = True  # its run is no tick (``advance``)
        return
    state.playing = True
    state.played_at = state.played_round = None
    state.pressed = None  # Play owns the round now
    if state.round >= n:
        state.round = 0
    state.rerun_app = True  # the fragment's timer is set on a full run only


def _pause(state: Stage, n: int) -> None:
    if not state.playing:
        return
    _stop(state, state.round if state.played_round is None else state.played_round,
          time.monotonic())
    state.rerun_app = True  # a full run: the fragment's timer off


def _stop(state: Stage, r: int, now: float) -> None:
    """Stop Play on round r, the one on screen: requests the browser sent before it saw the
    stop carry its slider, a round or more behind while it was busy redrawing (that had set
    the lesson back a round at every pause); ``advance`` holds r for ``HOLD_S``."""
    state.playing = False
    state.round = state.played_round = r
    state.played_at, state.stopped_at = None, now
    state.pressed = None


def _speed_changed(state: Stage) -> None:
    state.played_at = None
    if state.playing:
        state.rerun_app = True


def transport_ui(app: AppState, n: int, cols=None, labels: bool = True) -> None:
    """First, back, play/pause, step, last and the speed (in ``cols``: six columns; without
    labels: icons only). Play and the speed ask for one full run, which is when Streamlit
    reads the fragment's timer."""
    state = app.stage
    # what the buttons' presses will find: only the round's own stage writes the URL (not
    # the presenter's or a lesson's, nor an opened model file's)
    state.writes_url = (app.opened.file is None and not app.presenter.on
                        and app.lesson.slug is None)
    cols = cols or st.columns([1.25, 1.15, 1.3, 1.15, 1.15, 1.6])
    wide = {"use_container_width": True}

    def label(text: str) -> str:
        return text if labels else ""

    def tip(text: str) -> str | None:  # icons alone get a tooltip (a labelled button is clear)
        return None if labels else text

    cols[0].button(label("First"), key="first", on_click=_jump, args=(state, 0),
                   shortcut="Home", icon=":material/first_page:", help=tip("First round (Home)"),
                   **wide)
    cols[1].button(label("Back"), key="step_back", on_click=_step, args=(state, -1, n),
                   shortcut="Left", icon=":material/chevron_left:", help=tip("Back (←)"), **wide)
    cols[2].button(label("Pause" if state.playing else "Play"),
                   key="pause" if state.playing else "play",
                   on_click=_pause if state.playing else _play, args=(state, n),
                   shortcut="Space", type="primary",
                   icon=":material/pause:" if state.playing else ":material/play_arrow:",
                   help=tip("Play / pause (Space)"), **wide)
    cols[3].button(label("Step"), key="step_forward", on_click=_step, args=(state, 1, n),
                   shortcut="Right", icon=":material/chevron_right:", icon_position="right",
                   help=tip("Step (→)"), **wide)
    cols[4].button(label("Last"), key="last", on_click=_jump, args=(state, n),
                   shortcut="End", icon=":material/last_page:", icon_position="right",
                   help=tip("Last round (End)"), **wide)
    cols[5].select_slider("Speed", options=SPEEDS, key=Stage.speed.key,
                          on_change=_speed_changed, args=(state,),
                          format_func=lambda s: f"{s:g} s / round", label_visibility="collapsed")
    rerun_if_asked(state)


def rerun_if_asked(state: Stage) -> None:
    """One full run when a callback asked for it (Play, the speed, a pin, the Lab loading
    a model): a fragment's rerun does not retrain or reset the timer."""
    if state.rerun_app:
        state.rerun_app = False
        st.rerun(scope="app")


def round_stage(state: AppState, model: Model) -> None:
    """Everything that follows the current round; never a traceback on a lecturer's screen."""
    start = time.perf_counter()
    _guarded(state, _round_stage, model)
    state.stage.stage_ms = (time.perf_counter() - start) * 1000


def _guarded(state: AppState, draw, *args) -> None:
    try:
        draw(state, *args)
    except Exception as exc:
        state.stage.playing = False
        st.error(f"This round could not be drawn ({type(exc).__name__}: {exc}). Step to "
                 "another round or choose other columns; the trained model is kept.")


def view_stage(state: AppState, shown: Shown) -> None:
    """The chosen view and the shareable URL: a fragment inside the round's, so a click in
    the view (a tree node, a feature) redraws the view alone, not the fit, the loss and the
    controls above it."""
    start = time.perf_counter()
    _guarded(state, _view_stage, shown)
    state.stage.view_ms = (time.perf_counter() - start) * 1000


def _view_stage(state: AppState, shown: Shown) -> None:
    rerun_if_asked(state.stage)  # a callback in the view (the Lab, a pin) changed the model
    _keep_pressed_round(state.stage)  # a click in the view can carry the slider from before a press
    render_view(state, shown, VIEWS[state.stage.view or DEFAULT])  # only the chosen view runs
    if state.stage.writes_url:  # an uploaded model file cannot be reopened from a link
        url.share(state, shown.config, DEFAULT)


def advance(state: Stage, n: int) -> None:
    """While playing, the rounds the speed says have passed since the last one (one a tick
    while the screen keeps up; a redraw slower than the speed skips rounds rather than
    slowing the lesson down); at the end, stop. A press of Play or of the speed asks for a
    full run (Play's timer is set there) before any tick: ticking first, then again in that
    run, showed two rounds at once."""
    rerun_if_asked(state)
    _keep_pressed_round(state)
    if not state.playing:
        state.repeated = False
        held = (state.played_round is not None and state.stopped_at is not None
                and time.monotonic() - state.stopped_at < HOLD_S)
        if held:  # just stopped: the browser's slider may not have caught up yet
            state.round = state.played_round
        else:
            state.played_at = state.played_round = None
        return
    # Play owns the round: a busy browser asks for the next tick with the slider still at an
    # earlier round (its echo would set the lesson back)
    current = state.round if state.played_round is None else state.played_round
    if current >= n:
        _stop(state, current, time.monotonic())
        st.rerun(scope="app")
    if state.repeated:  # the run of a repeated press (``_play``) is no tick
        state.repeated = False
        state.round = current
        return
    now, speed = time.monotonic(), float(state.speed)
    due = 1 if state.played_at is None else max(1, int((now - state.played_at) / speed))
    # the clock keeps the fraction of a round a late tick leaves, never credit from an early one
    state.played_at = now if state.played_at is None else min(now, state.played_at + due * speed)
    state.round = state.played_round = min(n, current + due)
    state.pressed = None  # Play's round from here


def _round_stage(state: AppState, model: Model) -> None:
    booster, prep = model.booster, model.prep
    n = booster.num_boosted_rounds()
    state.screen.clear()
    transport_ui(state, n)
    advance(state.stage, n)
    st.slider("Round", 0, n, key=Stage.round.key, help="Round 0 is the baseline "
              "(base_score); round r adds the r-th tree(s). Keys: ← → step, Space plays, "
              "Home/End jump.")
    shown = Shown(booster, prep, model.config, state.stage.round, False)
    head, badge = st.columns([1.5, 1.3], vertical_alignment="center")
    head.markdown(f"#### Round {shown.round} of {n} — {losses(booster, shown.round)}")
    with badge:
        verify.badge(model, Stage.verify.key)
    left, right = st.columns([1.15, 1])
    with left:
        fit_chart(state, shown)
    with right:
        loss_chart(state, shown)
    if state.stage.view not in VIEWS:
        state.stage.view = DEFAULT
    st.segmented_control("View", list(VIEWS), key=Stage.view.key,
                         format_func=lambda slug: VIEWS[slug].TITLE,
                         label_visibility="collapsed")
    st.fragment(view_stage)(state, shown)
    cols = st.columns([1.35, 1, 1, 1.35])
    with cols[0]:
        export_button(state, f"BoostScope: {model.config['name']}, round {shown.round}",
                      "export_screen", label="Export this screen (HTML)")
    downloads.buttons(model, cols[1:])


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
    try:
        view.render(state, shown)
    except boost.NoTrainingTrace as exc:
        st.info(str(exc), icon=":material/info:")


def losses(booster, r: int) -> str:
    """'train rmse 1.23, valid rmse 1.45' after round r ('sample rmse ...' on a data
    sample)."""
    try:
        history = booster.loss_history()
    except boost.NoTrainingTrace:
        history = None
    return loss_line(history, booster.metric_name, r)


def fit_chart(state: AppState, shown: Shown) -> None:
    prep = shown.prep
    if shown.booster.data.y is None:
        st.info("The fit compares predictions with the target; the sample was opened without "
                "one. Choose its target column and open the model again.")
        return
    X = prep.X_train.to_numpy(dtype=float)
    fit = shown.booster.trace.fit(X, prep.y_train, shown.round, sample_rows(len(X)))
    show(make_fit_figure(fit, class_names=prep.class_names, large=shown.large), "fit", state,
         shown)


def loss_chart(state: AppState, shown: Shown) -> None:
    booster = shown.booster
    if booster.data.y is None:
        st.info("The loss per round needs the sample's target.")
        return
    best = None if booster.best_iteration is None else booster.best_iteration + 1
    show(make_loss_figure(booster.loss_history(), shown.round, booster.metric_name,
                          large=shown.large, best_round=best), "loss", state, shown)
