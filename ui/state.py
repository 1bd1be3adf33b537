"""The session's state: one ``AppState`` per browser tab, made of typed parts, one per
capability, each written only by the module that owns it (others read it, or call that
module's functions and the part's methods):

==============  =====================  ====================================================
part            class (owner)          what it holds
==============  =====================  ====================================================
``inputs``      ``sidebar.Inputs``     the data, its columns, task, objective, parameters
``model``       ``training.Trained``   the configuration asked for, the last good model
``stage``       ``stage.Stage``        the round, playback, the selected node, the view
``views``       ``views.keep.ViewKeep``  what each view keeps (tree, growth, sketch, ...)
``lab``         ``views.keep.LabKeep``   the Lab's sweep and the tuning-order guide's step
``presenter``   ``present.Presenter``  presenter mode and its two panels
``screen``      ``charts.Screen``      the charts and text on screen (the HTML export)
``lesson``      ``lesson.Walk``        the lesson walked, its step, what it restores
``pins``        ``pins.Pins``          the pinned models
``opened``      ``opened.Opening``     an XGBoost model file opened on a data sample
``link``        ``url.Link``           what the opening URL asked for
==============  =====================  ====================================================

``ui/session.py`` makes the parts from the opening URL. Values that belong to a widget stay
stored under the widget's key, as Streamlit needs: a part declares them as ``Widget``
attributes, and every key is named there once (``Widget`` refuses a key named twice).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from .url import APP_PARAMS

if TYPE_CHECKING:
    from .charts import Screen
    from .lesson import Walk
    from .opened import Opening
    from .pins import Pins
    from .present import Presenter
    from .sidebar import Inputs
    from .stage import Stage
    from .training import Trained
    from .url import Link
    from .views.keep import LabKeep, ViewKeep

_KEY = "app"
WIDGETS: dict[str, Widget] = {}  # every widget value kept in the session, by key


def param_key(name: str) -> str:
    """The widget key of a parameter (``p_eta``)."""
    return f"p_{name}"


class Widget:
    """A part's attribute stored under a widget's key (by default the attribute's name).
    ``event``: a chart's selection event, which is not kept across runs."""

    def __init__(self, default=None, key: str | None = None, event: bool = False):
        self.default, self.key, self.event = default, key, event

    def __set_name__(self, owner, name):
        self.key = self.key or name
        if self.key in WIDGETS and WIDGETS[self.key] is not self:
            raise ValueError(f"the widget key {self.key!r} is named twice")
        WIDGETS[self.key] = self

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return st.session_state.get(self.key, self.default)

    def __set__(self, obj, value):
        st.session_state[self.key] = value


@dataclass
class Data:
    """A loaded table: its display name, the digest of its bytes, the frame, the reader's
    notes and the columns flagged as unusable (name -> why)."""

    name: str
    digest: str
    frame: pd.DataFrame
    notes: list[str]
    flags: dict[str, str]


@dataclass
class Model:
    """A trained model with the prepared data and the configuration that trained it."""

    booster: object
    prep: object
    config: dict


@dataclass(frozen=True)
class Shown:
    """What every view draws from: the model on screen and the current round. ``large``:
    projector type; ``height``: the chart height a presenter slot leaves (None: the
    figure's own); ``compact``: draw only the view's main chart (presenter slots)."""

    booster: object
    prep: object
    config: dict
    round: int
    large: bool
    height: int | None = None
    compact: bool = False
    width: int | None = None  # the panel's width in px (presenter slots)

    def tree_key(self, klass: int) -> tuple:
        """Which tree is on screen (model, round, class): what a view keeps per tree (the
        collapsed nodes, the growth replay) starts again when it changes."""
        return (tuple(sorted((k, str(v)) for k, v in self.config.items())), self.round, klass)


@dataclass
class AppState:
    """The session's parts (the table above)."""

    link: Link
    inputs: Inputs
    model: Trained
    stage: Stage
    views: ViewKeep
    lab: LabKeep
    presenter: Presenter
    screen: Screen
    lesson: Walk
    pins: Pins
    opened: Opening


def current() -> AppState | None:
    return st.session_state.get(_KEY)


def keep(app: AppState) -> AppState:
    """The session's state from now on; widgets start at their defaults, not Streamlit's."""
    st.session_state[_KEY] = app
    for widget in WIDGETS.values():
        if widget.default is not None:
            st.session_state.setdefault(widget.key, widget.default)
    return app


def _kept_keys() -> set[str]:
    return ({k for k, w in WIDGETS.items() if not w.event}
            | {param_key(p.name) for p in APP_PARAMS})


def keep_widgets() -> None:
    """Streamlit forgets a widget's value in a run that does not draw the widget (the
    sidebar in presenter mode): written back here, the values outlive such runs."""
    for key in _kept_keys() & set(st.session_state.keys()):
        st.session_state[key] = st.session_state[key]


def widget_values() -> dict:
    """Every widget value of the session, by key (what a lesson saves and restores)."""
    return {k: st.session_state[k] for k in _kept_keys() if k in st.session_state}


def restore_widgets(values: dict) -> None:
    for key, value in values.items():
        st.session_state[key] = value
