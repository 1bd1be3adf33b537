"""Walking a lesson: its step written into the app's state, and the bar that says the step,
asks the question, reveals the answer and goes Back / Next (← / → on the keyboard)."""

from __future__ import annotations

import string

import streamlit as st

from boost.objectives import OBJECTIVES

from . import sidebar, state, training, url
from .charts import export_button
from .lessons import LESSONS, REGISTRY, setting
from .lessons.facts import Facts
from .samples import BY_KEY
from .state import AppState, Model, Shown

LINE_CHARS = 100  # characters of a lesson's text per line at 1280 px (the type is 22 px)


def start(app: AppState, slug: str) -> None:
    app.lesson, app.step, app.revealed, app.applied = slug, 0, False, None


def leave(app: AppState) -> None:
    """Back to what was on screen before the lesson: data, columns, parameters."""
    saved = app.before_lesson
    app.lesson, app.applied, app.before_lesson = None, None, None
    if saved is None:
        return
    app.data, app.config, app.presets = saved["data"], saved["config"], saved["presets"]
    state.restore_widgets(saved["widgets"])
    app.node = saved["node"]
    app.stop_playing()


def apply(app: AppState) -> None:
    """Write the lesson's current step into the app's state (once per step and reveal),
    before any widget is drawn. Clicking nodes or stepping rounds afterwards is the user's."""
    lesson = LESSONS[app.lesson]
    app.step = min(max(app.step, 0), len(lesson.steps) - 1)
    key = (app.lesson, app.step, app.revealed)
    if app.applied == key:
        return
    if app.before_lesson is None:
        app.before_lesson = {"widgets": state.widget_values(), "data": app.data,
                             "config": app.config, "presets": app.presets, "node": app.node}
    want = setting(lesson, lesson.steps[app.step], app.revealed)
    sample = BY_KEY[want["sample"]]
    if app.data is None or app.sample != sample.key or app.data.name != sample.title:
        app.sample = sample.key
        sidebar.use_sample(app)
    app.target = want["target"] or sample.target
    app.weight, app.task = sidebar.NO_WEIGHT, "auto"
    app.features = list(want["features"] or sidebar.default_features(app))
    objective = want["objective"]
    if objective != "auto":  # the task the objective is for (two rows look binary)
        app.task = OBJECTIVES[objective].task
    app.objective = (objective if objective != "auto"
                     else sidebar.objectives_for(sidebar.resolved_task(app))[0])
    for p in url.APP_PARAMS:
        app.set_param(p.name, want["params"].get(p.name, url.widget_default(p)))
    app.round, app.node = want["round"], want["node"]
    app.stop_playing()
    panels = want["panels"]
    app.left_panel, app.right_panel = panels[0], panels[1] if len(panels) > 1 else ""
    app.config = training.current_config(app)
    app.applied = key


def _next(app: AppState) -> None:
    step = LESSONS[app.lesson].steps[app.step]
    if step.ask and not app.revealed:
        app.revealed = True
    elif app.step < len(LESSONS[app.lesson].steps) - 1:
        app.step, app.revealed = app.step + 1, False


def _back(app: AppState) -> None:
    if app.revealed:
        app.revealed = False
    elif app.step > 0:
        app.step, app.revealed = app.step - 1, False


def _reveal(app: AppState) -> None:
    app.revealed = True


def _said(text: str, numbers: dict) -> str:
    """The step's sentence with the engine's numbers in it (markdown-inert)."""
    fields = {name for _, name, _, _ in string.Formatter().parse(text) if name}
    return text.format(**{k: v for k, v in numbers.items() if k in fields})


def bar(app: AppState, model: Model) -> None:
    """Title and step, Back / Reveal / Next / Exit, the step's text and question."""
    lesson = LESSONS[app.lesson]
    step = lesson.steps[app.step]
    shown = Shown(model.booster, model.prep, model.config, app.round, True)
    try:
        numbers = step.numbers(Facts(app, shown)) if step.numbers else {}
        say = _said(step.say, numbers)
        ask = _said(step.ask, numbers) if step.ask else None
        reveal = _said(step.reveal, numbers) if step.reveal else None
    except Exception as exc:  # a lesson never shows a traceback
        say, ask, reveal = (f"This step's numbers could not be read from the model "
                            f"({type(exc).__name__}: {exc}).", None, None)
    app.said = [say] + ([reveal if app.revealed else ask] if ask else [])
    app.said_lines = sum(-(-len(text) // LINE_CHARS) for text in app.said)
    cols = st.columns([4.2, 1, 1.1, 1, 1, 0.45], vertical_alignment="center")
    n = model.booster.num_boosted_rounds()
    cols[0].markdown(f"**{lesson.title}** · step {app.step + 1} of {len(lesson.steps)} · "
                     f"round {app.round} of {n}")
    cols[1].button("Back", key="lesson_back", on_click=_back, args=(app,), shortcut="Left",
                   icon=":material/chevron_left:", use_container_width=True,
                   disabled=app.step == 0 and not app.revealed)
    cols[2].button("Reveal", key="lesson_reveal", on_click=_reveal, args=(app,),
                   shortcut="Down", use_container_width=True, icon=":material/visibility:",
                   disabled=not ask or app.revealed)
    last = app.step == len(lesson.steps) - 1 and (app.revealed or not ask)
    cols[3].button("Next", key="lesson_next", on_click=_next, args=(app,), shortcut="Right",
                   icon=":material/chevron_right:", icon_position="right", type="primary",
                   use_container_width=True, disabled=last)
    cols[4].button("Exit", key="lesson_exit", on_click=leave, args=(app,), shortcut="Escape",
                   icon=":material/close:", use_container_width=True,
                   help="Leave the lesson: the data and parameters from before come back.")
    with cols[5]:
        export_button(app, f"{lesson.title}, step {app.step + 1}", "export_lesson")
    text = say
    if ask:
        text += "  \n" + (f":material/lightbulb: {reveal}" if app.revealed and reveal
                          else f"**:material/help: {ask}**")
    st.container(key="lesson_say").markdown(text)


def menu(app: AppState) -> None:
    """The lessons, each a button (the README links each as ?lesson=<slug>)."""
    with st.expander(":material/school: Lessons", expanded=False):
        for lesson in REGISTRY:
            st.button(lesson.title, key=f"lesson_{lesson.slug}", on_click=start,
                      args=(app, lesson.slug), help=lesson.blurb, use_container_width=True)
