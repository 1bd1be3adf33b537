"""BoostScope: watch gradient boosting think, round by round.

The screen: a sidebar with the lessons, the data (a sample or an upload, target, features,
task) and the parameters (live on small data: every change retrains; on larger data a Train
button applies them); the main area with the transport
controls and, for the current round, the fit, the loss curves and one of the views
(``ui/views``). Presenter mode (``?present=1``) and lessons (``?lesson=<slug>``) drop the
sidebar and show two panels in projector type (``ui/present.py``, ``ui/lesson.py``).

``streamlit run app.py`` serves this file's ``app`` (``st.App``, at the end): the server
imports it once, with pandas, Plotly and the engine, before it answers, and adds the app's
own routes (``ui/routes.py``: node records without a script run); each session's run
executes it as the script that draws the screen.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui import (
    charts,
    guide,
    housekeeping,
    lecture,
    lesson,
    opened,
    panels,
    pins,
    present,
    routes,
    session,
    sidebar,
    stage,
    state,
    training,
    url,
)
from ui.lessons import LESSONS
from ui.samples import SAMPLES
from ui.views import LEGACY, VIEWS

# The tab's icon from the project (a ":material/...:" icon is fetched from a public font
# host: a lecture hall may have no network).
ICON = str(Path(__file__).parent / "ui" / "icon.png")


def session_state() -> state.AppState:
    """The session's state, made once from the opening link."""
    samples = [s.key for s in SAMPLES]
    link = url.read(st.query_params, samples, list(VIEWS), LEGACY, list(LESSONS),
                    guide_steps=len(guide.STEPS))
    return session.start(link, sample=link.sample or samples[0])


def sidebar_ui(app: state.AppState) -> bool:
    """Lessons, presenter mode, data, columns, parameters; True when Train was pressed (on
    data too large for live knobs)."""
    with st.sidebar:
        st.title(":material/forest: BoostScope")
        present.toggle_ui()
        lesson.menu(app)
        sidebar.data_ui(app)
        if opened.sidebar_ui(app) is not None:  # an opened model file: nothing to train
            return False
        sidebar.columns_ui(app)
        _, pressed = sidebar.params_ui(app, training.is_live(app))
        pins.pins_ui(app, "side")
        charts.format_ui()
    return pressed


def open_round(app: state.AppState, model: state.Model) -> None:
    """The round a shared link asked for (once), kept within the model's rounds."""
    n = model.booster.num_boosted_rounds()
    asked = app.link.take_round()
    if asked is not None:
        app.stage.show_round(min(n, asked))
    app.stage.keep_within(n)


def main() -> None:
    housekeeping.start()  # once per server: closed tabs' uploads released
    opening = st.query_params
    presenting = opening.get("present") == "1" or "lesson" in opening
    st.set_page_config(page_title="BoostScope", page_icon=ICON, layout="wide",
                       initial_sidebar_state="collapsed" if presenting else "auto")
    st.empty()  # the same first slot on every run (the round's stage keeps its place: show())
    try:
        show()
    finally:  # the engine compiles (or loads) once this first screen is drawn
        training.warm_up_engine()


def show() -> None:
    """The screen: the sidebar, the notes and the round's stage. Streamlit's id of a
    fragment includes its position on the page: with a note more or fewer above the stage
    (a new upload's, the engine's), a full run gave the stage a new id, and a press made on
    the page before it reran no fragment (the press was lost from the screen). Everything
    above the stage is in one container, so the stage is always in the same place."""
    app = session_state()
    with st.container():
        shown = above_stage(app)
    if shown is not None:
        presenting, model = shown
        draw = present.present_stage if presenting else stage.round_stage
        st.fragment(draw)(app, model)


def above_stage(app: state.AppState) -> tuple[bool, state.Model] | None:
    """The sidebar and the notes over the stage; (presenting, the model) to draw the stage
    with, None when there is nothing to train."""
    sidebar.ensure_data(app)
    if app.lesson.slug:
        lesson.apply(app)
    presenting = app.presenter.on or app.lesson.slug is not None
    present.style(presenting)
    pressed = False if presenting else sidebar_ui(app)
    asked = app.model.config
    if app.inputs.data is not None and (pressed or training.is_live(app) or asked is None):
        wanted = training.current_config(app)
        if asked is not None and wanted != asked:
            app.link.forget_notes()  # the link's corrections are said until the model changes
        app.model.ask(wanted)
    panels.link_notes(app)
    model = opened.model(app) or training.trained(app)
    if model is None:
        if app.model.config is None:  # (else training said why it could not)
            st.info("Choose data to train on.")
        return None
    open_round(app, model)
    if app.opened.file is not None:
        if not presenting:
            opened.panel(model)
    elif not presenting:
        if not training.is_live(app):
            panels.stale_note(app, model)
        panels.engine_note(model)
        for note in model.prep.notes:
            st.caption(":material/info: " + note)
        panels.objective_panel(model)
    if app.lesson.slug:
        lesson.bar(app, model, offline=lecture.lesson_button)
    return presenting, model


if __name__ == "__main__":  # a session's run of this script
    main()
else:  # `streamlit run app.py` imports this file to serve it: Streamlit's app and our routes
    app = st.App(__file__, routes=routes.routes(), middleware=routes.middleware())
