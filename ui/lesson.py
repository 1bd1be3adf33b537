"""Walking a lesson: its step written into the app's state, and the bar that says the step,
asks the question, reveals the answer and goes Back / Next (← / → on the keyboard). Owns
``Walk``, the session's part saying which lesson is walked, its step, and what to restore
when it ends."""

from __future__ import annotations

import string

import numpy as np
import streamlit as st

from boost.objectives import OBJECTIVES
from boost.params import APP_PARAMS

from . import sidebar, state, training, url
from .lessons import LESSONS, REGISTRY
from .lessons.facts import Facts, said
from .lessons.steps import Step, setting
from .samples import BY_KEY
from .state import AppState, Model, Shown
from .training import train_other

LINE_CHARS = 120  # characters of a lesson's text per line at 1280 px (the type is 22 px; a
# line holds 125-135 of them, measured on the pruning lesson)


def start(app: AppState, slug: str) -> None:
    app.lesson.slug, app.lesson.step, app.lesson.revealed, app.lesson.applied = (slug, 0, False,
                                                                                  None)


def leave(app: AppState) -> None:
    """Back to what was on screen before the lesson: data, columns, parameters."""
    saved = app.lesson.before
    app.lesson.slug, app.lesson.applied, app.lesson.before = None, None, None
    if saved is None:
        return
    app.inputs.restore(saved["inputs"])
    app.model.restore(saved["config"])
    state.restore_widgets(saved["widgets"])
    # a goto (not a bare selection): the page forgets an open question's stop with it
    app.stage.go_to(app.stage.round, saved["node"])


def apply(app: AppState) -> None:
    """Write the lesson's current step into the app's state (once per step and reveal),
    before any widget is drawn. Clicking nodes or stepping rounds afterwards is the user's."""
    lesson = LESSONS[app.lesson.slug]
    app.lesson.step = min(max(app.lesson.step, 0), len(lesson.steps) - 1)
    key = (app.lesson.slug, app.lesson.step, app.lesson.revealed)
    if app.lesson.applied == key:
        return
    if app.lesson.before is None:
        app.lesson.before = {"widgets": state.widget_values(), "inputs": app.inputs.saved(),
                             "config": app.model.config, "node": app.stage.node}
    want = setting(lesson, lesson.steps[app.lesson.step], app.lesson.revealed)
    sample = BY_KEY[want["sample"]]
    data = app.inputs.data
    if data is None or app.inputs.sample != sample.key or data.name != sample.title:
        sidebar.open_sample(app, sample.key)
    app.inputs.query = sample.query  # a ranking sample's queries (none for the others)
    objective = want["objective"]
    # the task the objective is for (two rows look binary)
    task = OBJECTIVES[objective].task if objective != "auto" else "auto"
    sidebar.set_columns(app, want["target"] or sample.target, want["features"], task, objective)
    app.inputs.set_params({p.name: want["params"].get(p.name, url.widget_default(p))
                           for p in APP_PARAMS})
    app.stage.go_to(want["round"], want["node"], want["stop"])
    panels = want["panels"]
    app.presenter.show_panels(panels[0], panels[1] if len(panels) > 1 else "")
    app.model.ask(training.current_config(app))
    app.lesson.applied = key


def _next(app: AppState) -> None:
    step = LESSONS[app.lesson.slug].steps[app.lesson.step]
    if step.ask and not app.lesson.revealed:
        app.lesson.revealed = True
    elif app.lesson.step < len(LESSONS[app.lesson.slug].steps) - 1:
        app.lesson.step, app.lesson.revealed = app.lesson.step + 1, False


def _back(app: AppState) -> None:
    if app.lesson.revealed:
        app.lesson.revealed = False
    elif app.lesson.step > 0:
        app.lesson.step, app.lesson.revealed = app.lesson.step - 1, False


def _reveal(app: AppState) -> None:
    app.lesson.revealed = True


class _Said(string.Formatter):
    """A field without a format spec that holds a float is written by the one rule of
    numbers a reader sees (``facts.said``); the rest as ``str.format`` writes it."""

    def format_field(self, value, format_spec):
        if not format_spec and isinstance(value, (float, np.floating)):
            return said(value)
        return super().format_field(value, format_spec)


def _said(text: str, numbers: dict) -> str:
    """The step's sentence with the engine's numbers in it (markdown-inert)."""
    fields = {name for _, name, _, _ in string.Formatter().parse(text) if name}
    return _Said().format(text, **{k: v for k, v in numbers.items() if k in fields})


def step_texts(step: Step, facts: Facts) -> tuple[str, str | None, str | None]:
    """The step's text, question and reveal with the engine's numbers of ``facts`` (the
    model on screen) in them; a lesson never shows a traceback."""
    try:
        numbers = step.numbers(facts) if step.numbers else {}
        say = _said(step.say, numbers)
        ask = _said(step.ask, numbers) if step.ask else None
        reveal = _said(step.reveal, numbers) if step.reveal else None
    except Exception as exc:
        say, ask, reveal = (f"This step's numbers could not be read from the model "
                            f"({type(exc).__name__}: {exc}).", None, None)
    return say, ask, reveal


def bar(app: AppState, model: Model, offline=None) -> None:
    """Title and step, Back / Reveal / Next / Exit, the download of the whole lesson for
    offline (``offline(slug, key)`` draws it), the step's text and question."""
    lesson = LESSONS[app.lesson.slug]
    step = lesson.steps[app.lesson.step]
    shown = Shown(model.booster, model.prep, model.config, app.stage.round, True)
    say, ask, reveal = step_texts(step, Facts(shown, lambda config: train_other(app, config)))
    said = [say] + ([reveal if app.lesson.revealed else ask] if ask else [])
    app.screen.say(said, sum(-(-len(text) // LINE_CHARS) for text in said))
    cols = st.columns([4.2, 1, 1.1, 1, 1, 0.45], vertical_alignment="center")
    n = model.booster.num_boosted_rounds()
    cols[0].container(key="lesson_title").markdown(
        f"**{lesson.title}** · step {app.lesson.step + 1} of {len(lesson.steps)} · "
        f"round {app.stage.round} of {n}")
    cols[1].button("Back", key="lesson_back", on_click=_back, args=(app,), shortcut="Left",
                   icon=":material/chevron_left:", use_container_width=True,
                   disabled=app.lesson.step == 0 and not app.lesson.revealed)
    cols[2].button("Reveal", key="lesson_reveal", on_click=_reveal, args=(app,),
                   shortcut="Down", use_container_width=True, icon=":material/visibility:",
                   disabled=not ask or app.lesson.revealed)
    last = app.lesson.step == len(lesson.steps) - 1 and (app.lesson.revealed or not ask)
    cols[3].button("Next", key="lesson_next", on_click=_next, args=(app,), shortcut="Right",
                   icon=":material/chevron_right:", icon_position="right", type="primary",
                   use_container_width=True, disabled=last)
    cols[4].button("Exit", key="lesson_exit", on_click=leave, args=(app,), shortcut="Escape",
                   icon=":material/close:", use_container_width=True,
                   help="Leave the lesson: the data and parameters from before come back.")
    if offline is not None:
        with cols[5]:
            offline(lesson.slug, "offline_lesson")
    text = say
    if ask:
        text += "  \n" + (f":material/lightbulb: {reveal}" if app.lesson.revealed and reveal
                          else f"**:material/help: {ask}**")
    st.container(key="lesson_say").markdown(text)


def menu(app: AppState) -> None:
    """The lessons, each a button (the README links each as ?lesson=<slug>)."""
    with st.expander(":material/school: Lessons", expanded=False):
        for lesson in REGISTRY:
            st.button(lesson.title, key=f"lesson_{lesson.slug}", on_click=start,
                      args=(app, lesson.slug), help=lesson.blurb, use_container_width=True)
