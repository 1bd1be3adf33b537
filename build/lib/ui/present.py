"""Presenter mode (``?present=1``): no sidebar, projector type everywhere and two panels
side by side, laid out from the window's size (1280×720 up to 3840×2160). The fit, the loss,
the tree, the node's arithmetic and its candidates are the page's player's
(``viz/js/player.js``: it steps, plays and owns the keys ← → Space Home End); the other
views are drawn here for the round the player rests on. Number keys 1-9 put a panel on
the right. Lessons use the same arrangement. Owns ``Presenter``, the session's part saying
whether presenter mode is on and which two panels it shows."""

from __future__ import annotations

import streamlit as st

from . import stage
from .player import offline_button
from .state import AppState, Model, Presenter, Shown
from .views import REGISTRY
from .views import tree as tree_view

# Everything is at least 16 px at 20 px per rem (Streamlit sizes its text in rem; its
# smallest, captions and widget labels, are 0.8-0.875 rem), and the rem grows with the
# window (20 px at 1280 px wide, 30 px at 1920, 48 px from 3072); the header and sidebar
# are gone and the page's padding shrinks to what a projector needs.
CSS = """
<style>
html { font-size: clamp(20px, 1.5625vw, 48px) !important; }
header[data-testid="stHeader"], section[data-testid="stSidebar"],
[data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"]
  { display: none !important; }
[data-testid="stMainBlockContainer"], .block-container
  { padding: 0.4rem 1rem 0.6rem 1rem !important; max-width: 100% !important; }
[data-testid="stApp"] { color: #000; }
/* the presenter's bar: one compact row in the player's type (its font is the player's
   status line's, 17 px at 1280×720 scaled by min(width/1280, height/720): viz/js/player.js
   layout), its controls one line of that type high (Streamlit's are 2.5rem, and the rem
   grows with the width too: they made the bar as tall as a two-line one), and 0.25rem
   under it, not the page's 1rem: at every size the bar takes less height than the
   player's own transport, and the panels keep their share of the window */
.st-key-presenter_bar { font-size: max(16px, min(1.328125vw, 2.3611vh)); }
[data-testid="stLayoutWrapper"]:has(> .st-key-presenter_bar) { margin-bottom: -0.75rem; }
.st-key-presenter_bar [data-testid="stMarkdownContainer"], .st-key-presenter_bar p,
.st-key-presenter_bar input, .st-key-presenter_bar button
  { font-size: inherit !important; line-height: 1.25 !important; }
.st-key-presenter_bar [role="group"] { min-height: 0 !important; height: auto !important; }
.st-key-presenter_bar input { padding: 2px 0.5em !important; }
.st-key-presenter_bar button { min-height: 0 !important; padding: 2px 0.5em !important; }
.st-key-presenter_bar svg { width: 1em; height: 1em; }
.st-key-presenter_bar [data-testid="stIconMaterial"] { font-size: 1.2em !important; }
.st-key-lesson_say p { font-size: 1.1rem; line-height: 1.35; margin-bottom: 0.2rem; }
[data-testid="stCaptionContainer"], [data-testid="stWidgetLabel"] p,
[data-testid="stTooltipHoverTarget"] { font-size: max(0.85rem, 16px) !important; }
.st-key-panel_keys { position: absolute !important; left: -10000px; top: 0; width: 1px;
  height: 1px; overflow: hidden; }
</style>
"""
HEIGHT = 560  # the panels' height at 1280×720 (presenter bar above); they scale with it
WIDTH = 1240  # what the two panels share at 1280 px
LESSON_TOP, LESSON_LINE = 96, 31  # px above a lesson's text, and per line of it (1280 px;
# measured: the lesson's bar ends at 60 px, each line of its text takes 30-31)
TRANSPORT = 80  # px the player's status and transport take over panels of its own (1280 px)


def lesson_height(lines: int) -> int:
    """The panels' height under a lesson's bar and ``lines`` lines of text, at 1280×720."""
    return max(360, 720 - LESSON_TOP - LESSON_LINE * lines - 14)


# The panels a presenter slot can show: title and drawing function (state, shown); the
# player's panels are drawn in the page (``PLAYER_PANELS``: the round's fit, loss and tree,
# the selected node's worked arithmetic and candidates, from its record), the others here.
PANELS = {
    "fit": ("Fit", None),
    "tree": ("Tree", None),
    "node": ("Arithmetic", None),
    "candidates": ("Candidates", None),
    "loss": ("Loss", None),
    **{view.SLUG: (view.TITLE, lambda state, shown, v=view: stage.render_view(state, shown, v))
       for view in REGISTRY if view is not tree_view},
}
PLAYER_PANELS = tuple(slug for slug, (_, draw) in PANELS.items() if draw is None)


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


def presenter_bar(state: AppState, model: Model, trace: dict) -> None:
    """The two panels' choices, the offline file and Exit (the round and its transport are
    the player's)."""
    cols = st.container(key="presenter_bar").columns([3.2, 1.55, 1.55, 0.5, 0.5],
                                                      vertical_alignment="center")
    cols[0].markdown(f"**{model.config['name']}**")
    names = list(PANELS)
    title = {slug: f"{i + 1 if i < 9 else ' '} · {PANELS[slug][0]}"
             for i, slug in enumerate(names)}
    cols[1].selectbox("Left panel", names, key=Presenter.left.key,
                      format_func=title.get, label_visibility="collapsed")
    cols[2].selectbox("Right panel", ["", *names], key=Presenter.right.key,
                      format_func=lambda s: title.get(s, "— (left panel full width)"),
                      label_visibility="collapsed")
    with cols[3]:
        offline_button(trace, model, state.views.class_shown(model.booster.num_groups),
                       "offline_present", label="")
    cols[4].button("", key="leave_present", icon=":material/close_fullscreen:",
                   on_click=_leave, args=(state,), help="Leave presenter mode",
                   use_container_width=True)


def chosen_panels(state: AppState) -> list[str]:
    """The left and right panels (the left alone when the right is empty)."""
    chosen = [s for s in (state.presenter.left, state.presenter.right) if s in PANELS]
    return chosen or ["fit"]


def panels(state: AppState, model: Model, chosen: list[str], trace: dict,
           height: int) -> None:
    """The chosen panels side by side, in their order: the player's (one player draws
    them, with the transport over them) and the others, drawn here for the round the
    player rests on. With none of the player's, its transport stands over the panels."""
    here = [slug for slug in chosen if slug not in PLAYER_PANELS]
    if not here:  # the player draws them all
        stage.player_ui(state, trace, model)
        return
    if len(here) == len(chosen):  # its transport alone over the panels: they are lower
        stage.player_ui(state, trace, model)
        height -= TRANSPORT
    shown = Shown(model.booster, model.prep, model.config, state.stage.round, True,
                  height=height, compact=True, width=(WIDTH - 20 * len(chosen)) // len(chosen))
    for col, slug in zip(st.columns(len(chosen)), chosen, strict=True):
        with col:
            if slug in here:
                PANELS[slug][1](state, shown)
            else:
                stage.player_ui(state, trace, model)


def keys(state: AppState) -> None:
    """Number keys put a panel on the right: buttons with shortcuts, drawn off-screen (the
    panel choices show the numbers)."""
    with st.container(key="panel_keys"):
        for i, slug in enumerate(list(PANELS)[:9]):
            st.button(f"{i + 1} {PANELS[slug][0]}", key=f"panel_key_{i + 1}",
                      shortcut=str(i + 1), on_click=_put_right, args=(state, slug))


def present_stage(state: AppState, model: Model) -> None:
    """The presenter's screen (a fragment: the player's round at rest reruns only this)."""
    state.screen.clear(said=not state.lesson.slug)
    try:
        chosen = chosen_panels(state)
        klass = state.views.class_shown(model.booster.num_groups)
        trace = stage.stage_trace(state, model, klass, large=True, fill=True,
                                  panels=[s for s in chosen if s in PLAYER_PANELS])
        if state.lesson.slug:  # the lesson's bar is drawn by the app
            height = lesson_height(state.screen.said_lines)
        else:
            presenter_bar(state, model, trace)
            height = HEIGHT
        panels(state, model, chosen, trace, height)
        keys(state)
    except Exception as exc:  # never a traceback on a lecturer's screen
        st.error(f"This screen could not be drawn ({type(exc).__name__}: {exc}). Step to "
                 "another round or panel; the trained model is kept.")
