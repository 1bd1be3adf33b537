"""Presenter mode (``?present=1``): no sidebar, projector type everywhere, a large round
counter, the transport on the keyboard and two panels side by side that fit a 1280×720
projector without scrolling. Lessons use the same arrangement. Number keys 1-9 put a
panel on the right. Owns ``Presenter``, the session's part saying whether presenter mode
is on and which two panels it shows."""

from __future__ import annotations

import streamlit as st

from . import stage
from .charts import export_button
from .state import AppState, Model, Presenter, Shown
from .views import REGISTRY
from .views import tree as tree_view

# Everything is at least 16 px at 20 px per rem (Streamlit sizes its text in rem; its
# smallest, captions and widget labels, are 0.8-0.875 rem), the header and sidebar are
# gone and the page's padding shrinks to what a projector needs.
CSS = """
<style>
html { font-size: 20px !important; }
header[data-testid="stHeader"], section[data-testid="stSidebar"],
[data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"]
  { display: none !important; }
[data-testid="stMainBlockContainer"], .block-container
  { padding: 0.4rem 1rem 0.6rem 1rem !important; max-width: 100% !important; }
[data-testid="stApp"] { color: #000; }
.st-key-round_counter p { font-size: 1.75rem !important; font-weight: 700; line-height: 1.1;
  margin: 0; white-space: nowrap; }
.st-key-lesson_say p { font-size: 1.1rem; line-height: 1.35; margin-bottom: 0.2rem; }
[data-testid="stCaptionContainer"], [data-testid="stWidgetLabel"] p,
[data-testid="stTooltipHoverTarget"] { font-size: max(0.85rem, 16px) !important; }
.st-key-panel_keys { position: absolute !important; left: -10000px; top: 0; width: 1px;
  height: 1px; overflow: hidden; }
</style>
"""
HEIGHT = 560  # the panels' height at 1280×720 (presenter bar above)
WIDTH = 1240  # what the two panels share at 1280 px
LESSON_TOP, LESSON_LINE = 112, 31  # px above a lesson's text, and per line of it (1280 px)


def lesson_height(lines: int) -> int:
    """The panels' height under a lesson's bar and ``lines`` lines of text, at 1280×720."""
    return max(360, 720 - LESSON_TOP - LESSON_LINE * lines - 14)


# The panels a presenter slot can show: title and drawing function (state, shown).
PANELS = {
    "fit": ("Fit", stage.fit_chart),
    "tree": ("Tree", tree_view.tree_panel),
    "node": ("Arithmetic", tree_view.node_panel),
    "candidates": ("Candidates", tree_view.candidates_panel),
    "loss": ("Loss", stage.loss_chart),
    **{view.SLUG: (view.TITLE, lambda state, shown, v=view: stage.render_view(state, shown, v))
       for view in REGISTRY if view is not tree_view},
}


# Outside presenter mode only the empty band above the first line goes (6 rem by default).
NORMAL_CSS = """
<style>
[data-testid="stMainBlockContainer"], .block-container { padding-top: 2.2rem !important; }
</style>
"""


def toggle_ui() -> bool:
    """The sidebar's switch into presenter mode; returns whether it is on."""
    return st.toggle("Presenter mode (projector)", key=Presenter.on.key,
                     help="No sidebar, large type, the fit, the tree and the node's "
                          "arithmetic on one 1280×720 screen; keys ← → Space Home End and 1–9.")


def style(presenting: bool) -> None:
    st.html(CSS if presenting else NORMAL_CSS)


def _put_right(state: AppState, slug: str) -> None:
    state.presenter.right = slug


def _leave(state: AppState) -> None:
    state.presenter.on = False


def _counter(state: AppState, n: int) -> None:
    st.container(key="round_counter").markdown(f"Round {state.stage.round} / {n}")


def presenter_bar(state: AppState, n: int) -> None:
    """The round counter, the transport (icons), the two panels' choices and Exit."""
    cols = st.columns([2.1, 0.95, 0.8, 1.05, 0.8, 0.9, 1.0, 1.55, 1.55, 0.45, 0.45],
                      vertical_alignment="center")
    with cols[0]:
        _counter(state, n)
    stage.transport_ui(state, n, cols=cols[1:7], labels=False)
    names = list(PANELS)
    title = {slug: f"{i + 1 if i < 9 else ' '} · {PANELS[slug][0]}"
             for i, slug in enumerate(names)}
    cols[7].selectbox("Left panel", names, key=Presenter.left.key,
                      format_func=title.get, label_visibility="collapsed")
    cols[8].selectbox("Right panel", ["", *names], key=Presenter.right.key,
                      format_func=lambda s: title.get(s, "— (left panel full width)"),
                      label_visibility="collapsed")
    cols[9].button("", key="leave_present", icon=":material/close_fullscreen:",
                   on_click=_leave, args=(state,), help="Leave presenter mode",
                   use_container_width=True)
    with cols[10]:
        export_button(state, f"BoostScope, round {state.stage.round}", "export_present")


def panels(state: AppState, model: Model, height: int) -> None:
    """The two panels side by side (or the left one across the screen)."""
    chosen = [s for s in (state.presenter.left, state.presenter.right) if s in PANELS]
    if not chosen:
        chosen = ["fit"]
    shown = Shown(model.booster, model.prep, model.config, state.stage.round, True,
                  height=height, compact=True, width=(WIDTH - 20 * len(chosen)) // len(chosen))
    cols = st.columns(len(chosen)) if len(chosen) > 1 else [st.container()]
    for col, slug in zip(cols, chosen, strict=True):
        with col:
            PANELS[slug][1](state, shown)


def keys(state: AppState) -> None:
    """Number keys put a panel on the right: buttons with shortcuts, drawn off-screen (the
    panel choices show the numbers)."""
    with st.container(key="panel_keys"):
        for i, slug in enumerate(list(PANELS)[:9]):
            st.button(f"{i + 1} {PANELS[slug][0]}", key=f"panel_key_{i + 1}",
                      shortcut=str(i + 1), on_click=_put_right, args=(state, slug))


def present_stage(state: AppState, model: Model) -> None:
    """The presenter's screen (a fragment: stepping reruns only this)."""
    n = model.booster.num_boosted_rounds()
    state.screen.clear(said=not state.lesson.slug)
    try:
        if state.lesson.slug:  # the lesson's bar is drawn by the app: a step reruns everything
            height = lesson_height(state.screen.said_lines)
        else:
            stage.advance(state.stage, n)
            presenter_bar(state, n)
            height = HEIGHT
        panels(state, model, height)
        keys(state)
    except Exception as exc:  # never a traceback on a lecturer's screen
        state.stage.stop_playing()
        st.error(f"This screen could not be drawn ({type(exc).__name__}: {exc}). Step to "
                 "another round or panel; the trained model is kept.")
