"""The app's state: one typed object per browser session, and the only code that touches
``st.session_state``.

``AppState`` holds what the app remembers between reruns (the data, the configuration to
train, the last good model, playback). Values that belong to a widget (the target, the
round, each parameter, ...) stay stored under the widget's key, as Streamlit needs, but are
read and written through ``AppState``'s typed attributes, so every key is named here once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from boost.params import BY_NAME

from . import url

_KEY = "app"


def param_key(name: str) -> str:
    """The widget key of a parameter (``p_eta``)."""
    return f"p_{name}"


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
class Opened:
    """An XGBoost model file opened on a data sample (ui/opened.py): the file's name,
    digest and bytes, the sample (a table like any upload), its target column ("" for none)
    and the tree method the candidate splits are recomputed with."""

    name: str
    digest: str
    raw: bytes
    sample: Data
    target: str
    tree_method: str


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


class _Widget:
    """An attribute stored under a widget's key (the attribute's name)."""

    def __init__(self, default=None, key: str | None = None):
        self.default = default
        self.key = key

    def __set_name__(self, owner, name):
        self.key = self.key or name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return st.session_state.get(self.key, self.default)

    def __set__(self, obj, value):
        st.session_state[self.key] = value


@dataclass
class AppState:
    data: Data | None = None
    config: dict | None = None  # the configuration last asked to train (the cache key)
    last_good: Model | None = None  # shown when the current configuration cannot train
    upload_id: str | None = None  # the upload already read (each upload is read once)
    upload_error: str | None = None
    link: url.Link = field(default_factory=url.Link)  # what the opening URL asked for
    node: int | None = None  # the selected node of the round's tree
    collapsed: frozenset = frozenset()  # nodes of the shown tree whose subtrees are hidden
    collapsed_tree: tuple | None = None  # the tree ``collapsed`` belongs to (model, round, class)
    playing: bool = False
    played_at: float | None = None  # Play's clock: when the round on screen was due
    played_round: int | None = None  # the round Play showed last (the slider may lag it)
    pressed: tuple | None = None  # a Step/Back/First/Last press's (rounds the browser may
    # still show, round it set), until the browser shows it (stage._keep_pressed_round)
    repeated: bool = False  # this run carries a repeated Play press: not a tick
    stopped_at: float | None = None  # when Play stopped (stage.advance holds its round)
    rerun_app: bool = False  # one full run: Play and the speed set the timer; a pin changed
    # in the compare view (a fragment) redraws the sidebar's list
    stage_ms: float = 0.0  # what the last round redraw cost the server (bench_app.py)
    view_ms: float = 0.0  # the view's part of it: all a click in the view reruns
    presets: dict = field(default_factory=dict)  # the sample's parameters now applied
    lesson: str | None = None  # the lesson being walked (its slug), None outside lessons
    step: int = 0  # the lesson's step on screen (0-based)
    revealed: bool = False  # the step's question has been answered
    applied: tuple | None = None  # (lesson, step, revealed) last written into the widgets
    before_lesson: dict | None = None  # the widgets and data to restore when the lesson ends
    figures: dict = field(default_factory=dict)  # the charts on screen, for the HTML export
    said: list = field(default_factory=list)  # the lesson's text on screen, for the export
    said_lines: int = 2  # how many lines that text takes at 1280 px
    pins: list = field(default_factory=list)  # pinned models' parameters (ui/pins.py)
    pin_note: str | None = None  # why the last Pin did nothing (at most 4 pins, a repeat)
    guide: int | None = None  # the tuning-order guide's step on screen (1-based), None: off
    lab_loaded: dict | None = None  # the values a Lab click last loaded (for its note)
    growth_tree: tuple | None = None  # the trees growth_step replays (model, round, class)
    opened: Opened | None = None  # an XGBoost model file on screen instead of training
    open_error: str | None = None  # why the last Open failed (the previous model stays)
    open_sample: Data | None = None  # the sample uploaded for opening a model (read once)
    open_sample_id: str | None = None

    # Widget values, under the widgets' keys.
    sample = _Widget("four_points")
    target = _Widget()
    features = _Widget([])
    weight = _Widget("")  # "": every row counts once
    task = _Widget("auto")
    objective = _Widget("auto", key=param_key("objective"))  # chosen per task
    round = _Widget(0)
    view = _Widget()
    speed = _Widget(1.0)
    present = _Widget(False)  # presenter mode: no sidebar, projector type, two panels
    left_panel = _Widget("fit")  # presenter mode's two panels
    right_panel = _Widget("tree")
    export_format = _Widget("png")
    etas = _Widget("0.01, 0.1, 0.3, 1.0")  # the learning rates view's comparison
    gen_eta = _Widget()  # the generalisation view's second η (None: derived from the model's)
    sketch_feature = _Widget(0)  # the quantile sketch view's feature (its index)
    growth_step = _Widget()  # the growth order view: splits replayed (None: all)
    klass = _Widget(0)
    tree_chart = _Widget()  # the tree's selection event
    compare_left = _Widget()  # the compare view's two trees (model names)
    compare_right = _Widget()
    lab_params = _Widget([])  # the Lab: the one or two parameters swept
    lab_n = _Widget(6)  # the Lab: values per parameter
    lab_chart = _Widget()  # the Lab chart's selection event
    open_panel = _Widget(False)  # the sidebar's "Open an XGBoost model" section is open
    open_target = _Widget("")  # opening a model: the sample's target column ("": none)
    open_method = _Widget("hist")  # opening a model: the tree method candidates are searched by
    verify = _Widget(False)  # "Verify with XGBoost" (ui/verify.py)

    param_key = staticmethod(param_key)

    def param(self, name: str):
        p = BY_NAME[name]
        value = st.session_state.get(self.param_key(name), p.start)
        return p.start if value is None else value  # a choice clicked off: the default

    def stop_playing(self) -> None:
        """Play off, holding no round of it (the caller says which round to show)."""
        self.playing, self.played_round = False, None

    def set_param(self, name: str, value) -> None:
        st.session_state[self.param_key(name)] = value

    def params(self) -> dict:
        """Every app parameter's current widget value, by name."""
        return {p.name: self.param(p.name) for p in url.APP_PARAMS}


def current() -> AppState | None:
    return st.session_state.get(_KEY)


def _widget_keys() -> set[str]:
    keys = {w.key for w in vars(AppState).values() if isinstance(w, _Widget)}
    return keys | {param_key(p.name) for p in url.APP_PARAMS}


def start(link: url.Link, sample: str) -> AppState:
    """The session's state, made once from the opening URL (``link``)."""
    state = current()
    if state is not None:
        # Streamlit forgets a widget's value in a run that does not draw the widget (the
        # sidebar in presenter mode): written back here, the values outlive such runs.
        for key in _widget_keys() & set(st.session_state.keys()):
            if key not in (AppState.tree_chart.key, AppState.lab_chart.key):  # events
                st.session_state[key] = st.session_state[key]
        return state
    state = AppState(link=link, node=link.node)
    st.session_state[_KEY] = state
    for widget in vars(AppState).values():  # widgets start at their defaults, not Streamlit's
        if isinstance(widget, _Widget) and widget.default is not None:
            st.session_state.setdefault(widget.key, widget.default)
    state.sample = sample
    for name, value in link.params.items():
        state.set_param(name, value)
    state.task = link.task
    state.objective = link.objective
    state.view = link.view
    state.present = link.present
    state.gen_eta = link.eta2
    state.pins = list(link.pins)
    if link.lesson is not None:
        state.lesson, state.step = link.lesson, link.step or 0
    state.guide = link.guide
    if link.lab:
        state.lab_params = list(link.lab)
    if link.lab_n is not None:
        state.lab_n = link.lab_n
    return state


def widget_values() -> dict:
    """Every widget value of the session, by key (what a lesson saves and restores)."""
    keys = _widget_keys() - {AppState.tree_chart.key, AppState.lab_chart.key}
    return {k: st.session_state[k] for k in keys if k in st.session_state}


def restore_widgets(values: dict) -> None:
    for key, value in values.items():
        st.session_state[key] = value
