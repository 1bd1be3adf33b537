"""The session's state made once per browser tab from the opening URL: every part of
``ui.state.AppState`` from the module that owns it, with what the link asked for."""

from __future__ import annotations

from . import state
from .state import (
    Inputs,
    LabKeep,
    Link,
    Opening,
    Pins,
    Presenter,
    Screen,
    Stage,
    Trained,
    ViewKeep,
    Walk,
)


def start(link: Link, sample: str) -> state.AppState:
    """The session's state: made from the opening URL (``link``) on the first run; later
    runs keep it and the widgets' values."""
    app = state.current()
    if app is not None:
        state.keep_widgets()
        return app
    app = state.keep(state.AppState(
        link=link, inputs=Inputs(), model=Trained(), stage=Stage(node=link.node),
        views=ViewKeep(), lab=LabKeep(guide=link.guide), presenter=Presenter(), screen=Screen(),
        lesson=Walk(slug=link.lesson, step=(link.step or 0) if link.lesson else 0),
        pins=Pins(kept=list(link.pins)), opened=Opening()))
    # the widgets the link sets, under their keys before any is drawn
    app.inputs.sample = sample
    app.inputs.set_params(link.params)
    app.inputs.task, app.inputs.objective = link.task, link.objective
    app.stage.view = link.view
    app.presenter.on = link.present
    app.views.gen_eta = link.eta2
    if link.lab:
        app.lab.params = list(link.lab)
    if link.lab_n is not None:
        app.lab.n = link.lab_n
    return app
