"""BoostScope: watch gradient boosting think, round by round.

The screen: a sidebar with the data (a sample or an upload, target, features, task) and the
parameters (a form with a Train button); the main area with the transport controls and, for
the current round, the fit, the loss curves and one of the views (``ui/views``).
"""

from __future__ import annotations

import streamlit as st

from ui import panels, sidebar, stage, state, training, url
from ui.samples import SAMPLES
from ui.views import LEGACY, VIEWS


def session() -> state.AppState:
    """The session's state, made once from the opening link."""
    samples = [s.key for s in SAMPLES]
    link = url.read(st.query_params, samples, list(VIEWS), LEGACY)
    return state.start(link, sample=link.sample or samples[0])


def sidebar_ui(app: state.AppState) -> bool:
    """Data, columns, parameters and display settings; True when Train was pressed."""
    with st.sidebar:
        st.title(":material/forest: BoostScope")
        sidebar.data_ui(app)
        sidebar.columns_ui(app)
        pressed = sidebar.params_ui(app)
        st.toggle("Large text (projector)", key=state.AppState.large.key)
        st.segmented_control("Chart download format (camera button)", ["png", "svg"],
                             key=state.AppState.export_format.key)
    return pressed


def open_round(app: state.AppState, model: state.Model) -> None:
    """The round a shared link asked for (once), kept within the model's rounds."""
    n = model.booster.num_boosted_rounds()
    if app.link.round is not None:
        app.round, app.link.round = min(n, app.link.round), None
    if app.round > n:
        app.round = n


def main() -> None:
    st.set_page_config(page_title="BoostScope", page_icon=":material/forest:", layout="wide")
    training.warm_up_engine()
    app = session()
    pressed = sidebar_ui(app)
    if pressed or (app.config is None and app.data is not None):
        app.config = training.current_config(app)
    if pressed:
        app.link.notes = []  # the link's corrections are said until the next Train
    panels.link_notes(app)
    model = training.trained(app)
    if model is None:
        st.info("Choose data and press **Train**.")
        return
    open_round(app, model)
    for note in model.prep.notes:
        st.caption(":material/info: " + note)
    panels.objective_panel(model)
    interval = float(app.speed) if app.playing else None
    st.fragment(stage.round_stage, run_every=interval)(app, model)


main()
