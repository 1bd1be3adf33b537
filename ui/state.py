"""The session's state: one ``AppState`` per browser tab, made of typed parts, one per
capability. Every part is defined here (its methods touch only its own fields), and each is
written only by the module that owns it (others read it, or call that module's functions and
the part's methods); this module imports none of the owners:

=============  ===============  =============  ===============================================
part           class            owner (ui/)    what it holds
=============  ===============  =============  ===============================================
``inputs``     ``Inputs``       sidebar        the data, its columns, task, objective, params
``model``      ``Trained``      training       the configuration asked for, the last good model
``stage``      ``Stage``        stage          the round at rest, the selected node, the view
``views``      ``ViewKeep``     views/*        what each view keeps (tree, growth, sketch, ...)
``lab``        ``LabKeep``      views/lab      the Lab's sweep and the tuning-order guide's step
``presenter``  ``Presenter``    present        presenter mode and its two panels
``screen``     ``Screen``       charts         the lesson's text on screen, the camera's format
``lesson``     ``Walk``         lesson         the lesson walked, its step, what it restores
``pins``       ``Pins``         pins           the pinned models
``opened``     ``Opening``      opened         an XGBoost model file opened on a data sample
``link``       ``Link``         url            what the opening URL asked for
=============  ===============  =============  ===============================================

``ui/session.py`` makes the parts from the opening URL. Values that belong to a widget stay
stored under the widget's key, as Streamlit needs: a part declares them as ``Widget``
attributes, and every key is named once (``Widget`` refuses a key named twice). The
parameters' widgets are ``boost.params.APP_PARAMS``, each under ``param_key``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from boost.params import APP_PARAMS, BY_NAME

from . import tables
from .tables.numbers import NumberReading

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
    """A loaded table: its display name, the digest of its bytes (and of the decimal mark
    it was read with, where that is a choice), the frame, the reader's notes, the columns
    flagged as unusable (name -> why) and how its numbers were read."""

    name: str
    digest: str
    frame: pd.DataFrame
    notes: list[str]
    flags: dict[str, str]
    numbers: NumberReading | None = None  # how its numbers were read (its decimal mark)


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


# --------------------------------------------------------------------------- the parts
@dataclass
class Reader:
    """One uploader's reader: the upload already read (and with which decimal mark) and why
    it failed (None: it did not). Held by ``Inputs`` (the sidebar's data) and by
    ``Opening`` (an opened model's sample); only their owners (``ui/sidebar.py``,
    ``ui/opened.py``) call ``read``."""

    seen: tuple | None = None
    error: str | None = None

    def is_new(self, upload, numbers: str | None = None) -> bool:
        """Whether ``upload`` is a file not read yet (or not with ``numbers``, a decimal
        mark chosen; None: whichever the file was read with)."""
        if upload is None:
            return False
        if self.seen is None or self.seen[0] != upload.file_id:
            return True
        return numbers is not None and numbers != self.seen[1]

    def read(self, upload, flags: bool = True, numbers: str | None = None) -> Data | None:
        """The upload's table the first time this upload is seen (or the first time with
        ``numbers``, the decimal mark the user chose; None: the file's own); None if there
        is none, it was read before, or it cannot be read (``error`` says why). ``flags``:
        find the columns that are poor features."""
        if not self.is_new(upload, numbers):
            return None
        self.seen = (upload.file_id, numbers)
        raw = upload.getvalue()
        try:
            table = tables.read_table(raw, upload.name, numbers)
        except tables.DataError as exc:
            self.error = str(exc)
            return None
        self.error = None
        reading = table.numbers
        if reading is not None and reading.choice:  # read with the file's own: say which
            self.seen = (upload.file_id, reading.style)
        digest = tables.digest(raw if reading is None or not reading.choice  # the choice
                               else raw + f"\0{reading.style}".encode())  # reads it anew
        return Data(upload.name, digest, table.frame, table.notes,
                    tables.column_flags(table.frame) if flags else {}, reading)


@dataclass
class Inputs:
    """What to train on and with: the data, its column choices, the task, the objective and
    every app parameter (the widgets' values). Owned by ``ui/sidebar.py``, the only module
    that writes it (others call its methods)."""

    data: Data | None = None
    presets: dict = field(default_factory=dict)  # the sample's parameters now applied
    upload: Reader = field(default_factory=Reader)  # the sidebar's uploader, read once

    sample = Widget("four_points")
    target = Widget()
    features = Widget([])
    weight = Widget("")  # "": every row counts once
    query = Widget("", key="query_column")  # "": no query column; a column: ranking
    task = Widget("auto")
    objective = Widget("auto", key=param_key("objective"))  # chosen per task
    numbers = Widget(None)  # the upload's decimal mark (tables.numbers.STYLES): None, its own

    def param(self, name: str):
        p = BY_NAME[name]
        value = st.session_state.get(param_key(name), p.start)
        return p.start if value is None else value  # a choice clicked off: the default

    def params(self) -> dict:
        """Every app parameter's current widget value, by name."""
        return {p.name: self.param(p.name) for p in APP_PARAMS}

    def set_param(self, name: str, value) -> None:
        st.session_state[param_key(name)] = value

    def set_params(self, values: dict) -> None:
        for name, value in values.items():
            self.set_param(name, value)

    def saved(self) -> dict:
        """What ``restore`` brings back (the widgets are saved by ``state.widget_values``)."""
        return {"data": self.data, "presets": self.presets}

    def restore(self, saved: dict) -> None:
        self.data, self.presets = saved["data"], saved["presets"]


@dataclass
class Trained:
    """The configuration last asked to train (the cache key; None: nothing asked yet) and
    the last model that trained, shown when the current configuration cannot train. Owned
    by ``ui/training.py``, the only module that writes it (others call its methods)."""

    config: dict | None = None
    last_good: Model | None = None

    def ask(self, config: dict | None) -> None:
        """Train ``config`` (in this run); None: wait for new data."""
        self.config = config

    def forget(self) -> None:
        self.config = None

    def restore(self, config: dict | None) -> None:
        self.config = config


@dataclass
class Stage:
    """The round on screen, the selected node and the view. The page's player
    (``viz/js/player.js``) steps and plays by itself and says the round it rests on; Python
    moves it only through ``goto`` (a link, a lesson step, a model loaded), which the page
    obeys when its token changes. Owned by ``ui/stage.py``, the only module that writes it
    (others call its methods)."""

    round: int = 0  # the round the page rests on (or Python sent it to)
    node: int | None = None  # the selected node of the round's tree (None: the root)
    token: int = 0  # goto's: raised whenever Python moves the page
    # a lesson's open question: the node's arithmetic stops before this step (goto's `stop`)
    stop: str | None = None
    rerun_app: bool = False  # one full run: a pin changed in the compare view (a fragment)
    # redraws the sidebar's list; the Lab loaded a model
    stage_ms: float = 0.0  # what the last round redraw cost the server (bench_app.py)
    view_ms: float = 0.0  # the view's part of it: all a click in the view reruns
    # round traces the page said it holds (by id): sent once, then named by id alone
    held: frozenset = frozenset()
    # the round a model's window of rounds is centred on (a model beyond the trace's budget)
    around: int | None = None
    # a view opened from elsewhere (the sidebar's Compare) is brought into the window: the
    # view and a count of such openings
    scroll_to: tuple[str, int] | None = None

    view = Widget()
    verify = Widget(False)  # "Verify with XGBoost" (ui/verify.py)

    def go_to(self, r: int, node: int | None = None, stop: str | None = None) -> None:
        """Show round ``r`` (and ``node`` selected): the page goes there, Play off; ``stop``:
        a lesson's open question, which ends the node's arithmetic before that step."""
        self.round, self.node, self.stop = r, node, stop
        self.token += 1

    def show_round(self, r: int) -> None:
        self.go_to(r, self.node)

    def rests_on(self, r: int, node: int | None = None) -> None:
        """The round the page's player rests on (and the node clicked there): the page is
        there already, so no ``goto``."""
        self.round = r
        if node is not None:
            self.node = node

    def page_holds(self, trace_id: str, holds: bool = True) -> None:
        """The page has (or, ``holds=False``, has lost) the round trace ``trace_id``."""
        self.held = self.held | {trace_id} if holds else self.held - {trace_id}

    def keep_within(self, n: int) -> None:
        """The round on screen within a model's ``n`` rounds."""
        if self.round > n:
            self.go_to(n, self.node)

    def select(self, node: int | None) -> None:
        self.node = node

    def show_view(self, slug: str, scroll: bool = False) -> None:
        """Show view ``slug``; ``scroll``: bring it into the window (opened from the
        sidebar, away from the view's own choice)."""
        self.view = slug
        if scroll:
            self.scroll_to = (slug, (self.scroll_to or ("", 0))[1] + 1)

    def ask_full_run(self, full: bool = True) -> None:
        """One full run of the app at the next chance (``rerun_if_asked``): a callback in a
        fragment changed what the sidebar shows, or a model to train."""
        self.rerun_app = full


@dataclass
class ViewKeep:
    """What the views keep between runs. Owned by the views (``ui/views/``): each value is
    written only by the view that draws it (the tree, growth, quantile sketch,
    generalisation, learning rates and compare views)."""

    collapsed: frozenset = frozenset()  # nodes of the shown tree whose subtrees are hidden
    collapsed_tree: tuple | None = None  # the tree ``collapsed`` belongs to (model, round, class)
    growth_tree: tuple | None = None  # the trees growth_step replays (model, round, class)

    klass = Widget(0)  # the tree's class (one tree per class per round)
    tree_chart = Widget(event=True)  # the tree's selection event
    etas = Widget("0.01, 0.1, 0.3, 1.0")  # the learning rates view's comparison
    gen_eta = Widget()  # the generalisation view's second η (None: derived from the model's)
    sketch_feature = Widget(0)  # the quantile sketch view's feature (its index)
    growth_step = Widget()  # the growth order view: splits replayed (None: all)
    compare_left = Widget()  # the compare view's two trees (model names)
    compare_right = Widget()

    def class_shown(self, num_groups: int) -> int:
        """The class whose trees are on screen: the one chosen on a multi-class model (0
        when the choice was clicked off), else 0."""
        return (self.klass or 0) if num_groups > 1 else 0


@dataclass
class LabKeep:
    """The Lab's sweep and its tuning-order guide's step. Owned by ``ui/views/lab.py``, the
    only module that writes it."""

    guide: int | None = None  # the tuning-order guide's step on screen (1-based), None: off
    loaded: dict | None = None  # the values a Lab click last loaded (for its note)

    params = Widget([], key="lab_params")  # the one or two parameters swept
    n = Widget(6, key="lab_n")  # values per parameter
    chart = Widget(event=True, key="lab_chart")  # the Lab chart's selection event


@dataclass
class Presenter:
    """Presenter mode and its two panels. Owned by ``ui/present.py``, the only module that
    writes it (others call its methods)."""

    on = Widget(False, key="present")  # presenter mode: no sidebar, projector type, two panels
    left = Widget("fit", key="left_panel")  # its two panels
    right = Widget("tree", key="right_panel")

    def show_panels(self, left: str, right: str) -> None:
        self.left, self.right = left, right


@dataclass
class Screen:
    """What is on screen: the lesson's text and how many lines it takes at 1280 px (the
    panels' height under it; the number it names kept in view); and the camera button's
    format. Owned by ``ui/charts.py``, the only module that writes it (others call its
    methods)."""

    said: list = field(default_factory=list)
    said_lines: int = 2

    export_format = Widget("png")

    def clear(self, said: bool = True) -> None:
        """A new run of the screen: no text yet (unless ``said`` is False)."""
        if said:
            self.said = []

    def say(self, texts: list, lines: int) -> None:
        self.said, self.said_lines = texts, lines


@dataclass
class Walk:
    """The lesson walked, its step, and what to restore when it ends. Owned by
    ``ui/lesson.py``, the only module that writes it."""

    slug: str | None = None  # the lesson being walked, None outside lessons
    step: int = 0  # the lesson's step on screen (0-based)
    revealed: bool = False  # the step's question has been answered
    applied: tuple | None = None  # (lesson, step, revealed) last written into the widgets
    before: dict | None = None  # the widgets and data to restore when the lesson ends


@dataclass
class Pins:
    """The pinned models. Owned by ``ui/pins.py``, the only module that writes it."""

    kept: list = field(default_factory=list)  # pinned models' parameters
    note: str | None = None  # why the last Pin did nothing (at most 4 pins, a repeat)


@dataclass
class Opened:
    """An XGBoost model file opened on a data sample: the file's name, digest and bytes, the
    sample (a table like any upload), its target column ("" for none) and the tree method
    the candidate splits are recomputed with."""

    name: str
    digest: str
    raw: bytes
    sample: Data
    target: str
    tree_method: str


@dataclass
class Opening:
    """The XGBoost model file opened on a data sample, and the sidebar's choices for it.
    Owned by ``ui/opened.py``, the only module that writes it (others call its methods)."""

    file: Opened | None = None  # the model file on screen instead of training
    error: str | None = None  # why the last Open failed (the previous model stays)
    sample: Data | None = None  # the sample uploaded for opening a model (read once)
    reader: Reader = field(default_factory=Reader)  # the sample's uploader

    panel = Widget(False, key="open_panel")  # the sidebar's "Open an XGBoost model" is open
    target = Widget("", key="open_target")  # the sample's target column ("": none)
    method = Widget(BY_NAME["tree_method"].default, key="open_method")  # candidates searched by

    def drop(self) -> None:
        """No model file on screen (new data to train on)."""
        self.file = None


@dataclass
class Link:
    """What a URL asks for, already corrected; ``notes`` says what was corrected. Made by
    ``ui/url.py`` (``read``), the only module that writes it (others call its methods)."""

    params: dict = field(default_factory=dict)  # widget values by parameter name
    objective: str = "auto"  # "auto": the task's default objective
    sample: str | None = None
    target: str | None = None
    weight: str | None = None
    query: str | None = None  # a ranking's query column; NO_QUERY_LINK: none; None: the sample's
    task: str = "auto"
    round: int | None = None
    node: int | None = None
    view: str | None = None
    present: bool = False  # presenter mode (present=1)
    lesson: str | None = None  # a lesson's slug (lesson=four-points)
    step: int | None = None  # the lesson's step, 1-based in the URL, 0-based here
    eta2: float | None = None  # the generalisation view's second learning rate (None: its default)
    pins: list[dict] = field(default_factory=list)  # pinned models' parameters (pin=...)
    lab: list = field(default_factory=list)  # the Lab's swept parameters (lab=eta,gamma)
    lab_n: int | None = None  # values per swept parameter (lab_n=6)
    guide: int | None = None  # the tuning-order guide's step, 1-based (guide=3)
    given: set = field(default_factory=set)  # the parameters the URL set
    notes: list[str] = field(default_factory=list)

    def take_round(self) -> int | None:
        """The round the link asked for, once (then the user's)."""
        r, self.round = self.round, None
        return r

    def take_weight(self) -> str | None:
        """The weight column the link asked for, once."""
        weight, self.weight = self.weight, None
        return weight

    def take_query(self) -> str | None:
        """The query column the link asked for (``url.NO_QUERY_LINK``: none), once."""
        query, self.query = self.query, None
        return query

    def forget_notes(self) -> None:
        """The link's corrections are said until the model changes."""
        self.notes = []


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
