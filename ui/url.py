"""The view a lecturer can share: plain values in the URL, read defensively (``read``) and
written back (``share``); the only module that reads or writes the URL.

Nothing from the URL is evaluated or unpickled. Every parameter is read by its record in
``boost.params.PARAMETERS``: a number outside the app's range is clamped into it, a choice
that does not exist falls back to the default, and each such correction becomes a note the
page shows in one line. No URL can raise.
"""

from __future__ import annotations

import math

import streamlit as st

from boost.params import APP_PARAMS, BY_NAME, SWEEPABLE, Param

from .samples import BY_KEY
from .state import AppState, Link
from .tables import TASKS

# The tasks, by boost.objectives' names ("auto": read from the target column); a user reads
# "multi-class", and links from before the names were one said it too.
TASK_CHOICES = ("auto", *TASKS)
TASK_LABELS = {"multiclass": "multi-class"}
_OLD_TASKS = {label: task for task, label in TASK_LABELS.items()}  # old links
_OBJECTIVE = BY_NAME["objective"]
NO_QUERY_LINK = "none"  # query=none: no query column (a ranking sample opened as regression)
_MAX_ROUND = 100_000
_MAX_NODE = 2**31 - 1
MAX_PINS = 4  # models the compare view shows beside the current one
PIN_SAME = "defaults"  # a pin whose parameters are all the app's defaults
_PIN_KEYS = {p.key: p for p in APP_PARAMS}
# The Lab: the parameters it can sweep (those with a widget) and how many values each.
LAB_PARAMS: tuple[str, ...] = tuple(p.name for p in SWEEPABLE if p.widget)
LAB_COUNTS = (2, 12)
# The views whose own values the URL keeps (their SLUG): the Lab (lab, lab_n, guide) and
# the generalisation view (its second learning rate, eta2).
LAB_VIEW = "lab"
ETA2_VIEW = "generalisation"



def widget_default(p: Param):
    """A parameter's widget value before anyone touches it (text widgets hold '')."""
    return "" if p.widget == "text" and p.start is None else p.start


def shown(text, limit: int = 24) -> str:
    """A URL value as it can be quoted on the page: short, markdown and HTML inert."""
    text = str(text)
    text = text if len(text) <= limit else text[:limit] + "…"
    return "".join("\\" + c if c in "\\`*_{}[]()<>#+-.!|~$&" else c for c in text)


def _bounds(p: Param) -> str:
    lo, hi = p.app_range
    return f"{lo:g} to {hi:g}"


def read_param(p: Param, text) -> tuple[object, str | None]:
    """The widget value for the URL's ``text`` of parameter ``p``, and a note if corrected."""
    start = p.start
    if p.several:  # a list (quantile_alpha): numbers separated by commas, each clamped
        return _read_list(p, text)
    if p.kind is bool:
        value = {"true": True, "1": True, "false": False, "0": False}.get(str(text).lower())
        if value is None:
            return start, f"{p.key}={shown(text)} is not true or false: using {start}"
        return value, None
    if p.kind is str:
        value = dict(p.value_aliases).get(text, text)
        if value in p.choices:
            return value, None
        return start, f"{p.key}={shown(text)} is not one of {', '.join(p.choices)}: using {start}"
    if p.widget == "text":  # base_score: empty or "auto" means estimated
        if str(text).strip().lower() in ("", "auto"):
            return "", None
    try:
        value = float(str(text).strip())
    except ValueError:
        value = math.nan
    if math.isnan(value):
        default = "estimated" if start is None else f"{start:g}"
        return ("" if start is None else start,
                f"{p.key}={shown(text)} is not a number: using {default}")
    lo, hi = p.app_range
    clamped = min(max(value, lo), hi)
    if p.kind is int:
        clamped = int(math.floor(clamped + 0.5))
    note = None
    if clamped != value:
        note = f"{p.key}={shown(text)} is outside {_bounds(p)}: using {clamped:g}"
    if p.widget == "text":
        return f"{clamped:g}", note
    return clamped, note


def _read_list(p: Param, text) -> tuple[str, str | None]:
    """A list parameter's widget text for the URL's ``text``: its numbers clamped into
    ``app_range``, written '0.05,0.5,0.95'; the app's default when it is not a list of
    numbers."""
    parts = str(text).strip().removeprefix("[").removesuffix("]").split(",")
    try:
        values = [float(s) for s in parts]
    except ValueError:
        values = []
    if not values or any(math.isnan(v) for v in values):
        return p.start, (f"{p.key}={shown(text)} is not a list of numbers such as "
                         f"{p.start}: using {p.start}")
    lo, hi = p.app_range
    clamped = [min(max(v, lo), hi) for v in values]
    out = ",".join(f"{v:g}" for v in clamped)
    if clamped != values:
        return out, f"{p.key}={shown(text)} is outside {_bounds(p)}: using {out}"
    return out, None


def _number(query, key: str, notes: list, ignored: str) -> float | None:
    """The query's value of ``key`` as a float (inf allowed); None, with a note ending in
    ``ignored``, when it is not a number."""
    text = query[key]
    try:
        value = float(str(text).strip())
    except ValueError:
        value = math.nan
    if math.isnan(value):
        notes.append(f"{key}={shown(text)} is not a number: {ignored}")
        return None
    return value


def _whole(query, key: str, low: int, high: int, notes: list) -> int | None:
    if key not in query or (value := _number(query, key, notes, "ignored")) is None:
        return None
    clamped = int(math.floor(min(max(value, low), high)))  # clamped first: inf too
    if clamped != value:
        notes.append(f"{key}={shown(query[key])} is outside {low} to {high}: using {clamped}")
    return clamped


def read_eta2(query, notes: list) -> float | None:
    """The generalisation view's second learning rate (``eta2``), clamped into eta's range."""
    if "eta2" not in query or (value := _number(query, "eta2", notes,
                                                "using the view's default")) is None:
        return None
    lo, hi = BY_NAME["eta"].app_range
    clamped = min(max(value, lo), hi)
    if clamped != value:
        notes.append(f"eta2={shown(query['eta2'])} is outside {_bounds(BY_NAME['eta'])}: using "
                     f"{clamped:g}")
    return clamped


def _choice(query, key: str, allowed, notes: list, why: str) -> str | None:
    """The query's value of ``key`` if allowed; else None (and a note if it was given)."""
    value = query.get(key)
    if value is not None and value not in allowed:
        notes.append(f"{key}={shown(value)} {why}")
        return None
    return value


def _lab(query, notes: list) -> list[str]:
    """The Lab's parameters from ``lab=eta,gamma``: known sweepable names, each once, at
    most two; anything else is left out with a note."""
    if "lab" not in query:
        return []
    names, dropped = [], []
    for part in str(query["lab"]).split(","):
        name = part.strip()
        if name in LAB_PARAMS and name not in names and len(names) < 2:
            names.append(name)
        elif name:
            dropped.append(name)
    if dropped:
        notes.append(f"lab={shown(query['lab'], 40)}: the Lab sweeps one or two of "
                     f"{', '.join(LAB_PARAMS)}; left out {shown(', '.join(dropped), 30)}")
    return names


def read(query, samples, views, legacy_views, lessons=(), guide_steps: int = 0) -> Link:
    """The link in ``query`` (a mapping of strings). ``samples``: the sample keys;
    ``views``: the view slugs; ``legacy_views``: the slugs old numeric links meant;
    ``lessons``: the lesson slugs; ``guide_steps``: the tuning-order guide's steps."""
    link = Link()
    for p in APP_PARAMS:
        link.params[p.name] = widget_default(p)
        if p.key in query:
            link.params[p.name], note = read_param(p, query[p.key])
            link.given.add(p.name)
            if note:
                link.notes.append(note)
    objective = query.get(_OBJECTIVE.key)
    if objective is not None and objective != "auto":
        if objective in _OBJECTIVE.choices:
            link.objective = objective
        else:
            link.notes.append(f"objective={shown(objective)} is not an objective BoostScope "
                              "knows: using the task's default")
    link.sample = _choice(query, "sample", samples, link.notes, "is not a bundled sample")
    task = _OLD_TASKS.get(query.get("task"), query.get("task"))
    link.task = _choice({"task": task}, "task", TASK_CHOICES, link.notes,
                        "is not one of " + ", ".join(TASK_CHOICES)) or link.task
    link.target = query.get("target")
    link.weight = query.get("weight")  # column names: checked against the data
    link.query = query.get("query")
    link.round = _whole(query, "round", 0, _MAX_ROUND, link.notes)
    link.node = _whole(query, "node", 0, _MAX_NODE, link.notes)
    present = _choice(query, "present", ("0", "1"), link.notes, "is not 0 or 1")
    link.present = present == "1"
    link.lesson = _choice(query, "lesson", lessons, link.notes,
                          "is not one of the lessons (" + ", ".join(lessons) + ")")
    step = _whole(query, "step", 1, _MAX_ROUND, link.notes)
    link.step = None if step is None else step - 1
    link.eta2 = read_eta2(query, link.notes)
    link.pins = read_pins(_every(query, "pin"), link.notes)
    link.lab = _lab(query, link.notes)
    link.lab_n = _whole(query, "lab_n", *LAB_COUNTS, link.notes)
    if guide_steps:
        link.guide = _whole(query, "guide", 1, guide_steps, link.notes)
    view = query.get("view")
    if view is not None:
        if view in views:
            link.view = view
        elif view.strip().isdigit() and int(view) < len(legacy_views):
            link.view = legacy_views[int(view)]  # links from before views had names
        else:
            link.notes.append(f"view={shown(view)} is not one of {', '.join(views)}")
    return link


def writes(app: AppState) -> bool:
    """Whether the screen's round and view go into the URL: not in presenter mode or a
    lesson (their own links), nor on an opened model file (which a link cannot reopen)."""
    return app.opened.file is None and not app.presenter.on and app.lesson.slug is None


def share(app: AppState, config: dict, default_view: str) -> None:
    """Write the URL that reproduces the screen: sample, columns, parameters, round, view,
    node, presenter mode, lesson step, pins, and the Lab's or the generalisation view's own
    values. ``default_view``: the view shown when the URL names none."""
    inputs, stage, view = app.inputs, app.stage, app.stage.view or default_view
    sample = (inputs.sample if inputs.sample and config["name"] == BY_KEY[inputs.sample].title
              else None)
    values = {"sample": sample, "target": config["target"], "task": config["task"],
              "weight": config["weight"], "objective": config["objective"],
              # the query column (none said only where the sample would open with one)
              "query": config.get("query") or (NO_QUERY_LINK if sample and BY_KEY[sample].query
                                               else None)}
    values.update({p.key: config[p.name] for p in APP_PARAMS})
    lesson = app.lesson.slug
    values.update({"round": stage.round, "view": view, "node": stage.node,
                   "present": 1 if app.presenter.on else None, "lesson": lesson,
                   "step": None if lesson is None else app.lesson.step + 1,
                   "eta2": app.views.gen_eta if view == ETA2_VIEW else None,
                   "pin": [write_pin(pin) for pin in app.pins.kept]})
    if view == LAB_VIEW:
        values.update({"lab": ",".join(app.lab.params) or None, "lab_n": app.lab.n,
                       "guide": app.lab.guide})
    st.query_params.from_dict(write(values))


def _plain(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value:g}" if isinstance(value, float) else str(value)


def write(values: dict) -> dict:
    """Plain string values for ``st.query_params`` (``None`` and empty values left out; a
    list becomes a repeated key)."""
    out = {}
    for key, value in values.items():
        if value is None or value == "" or (isinstance(value, list) and not value):
            continue
        out[key] = [_plain(v) for v in value] if isinstance(value, list) else _plain(value)
    return out


# --------------------------------------------------------------------------- pins
# A pin is every app parameter's value (a dict by name, as Inputs.params()); in the URL it
# is one ``pin`` key per pin holding the values that differ from the app's defaults as
# ``key-value`` items joined by ``~`` (``pin=eta-0.1~max_depth-5``): keys never hold "-",
# numbers and choices never hold "~", and both are left as they are in a URL.
def pin_defaults() -> dict:
    return {p.name: widget_default(p) for p in APP_PARAMS}


def write_pin(pin: dict) -> str:
    """``pin`` as the text of one ``pin`` URL value."""
    defaults = pin_defaults()
    items = [f"{p.key}-{_plain(pin[p.name])}" for p in APP_PARAMS
             if p.name in pin and pin[p.name] != defaults[p.name]]
    return "~".join(items) or PIN_SAME


def read_pin(text, number: int, notes: list, most: int = 3) -> dict:
    """The pin in one URL value, every item read by its parameter's record (clamped, or the
    default); what was corrected or ignored is noted as ``pin <number>: ...`` (at most
    ``most`` notes a pin, then how many more)."""
    pin = pin_defaults()
    items = str(text).split("~")
    said: list[str] = []
    for item in items[:len(APP_PARAMS)]:
        if item.strip() in ("", PIN_SAME):
            continue
        key, dash, value = item.partition("-")
        p = _PIN_KEYS.get(key.strip())
        if p is None or not dash:
            said.append(f"{shown(item)} is not a parameter-value pair such as eta-0.1: "
                        "ignored")
            continue
        pin[p.name], note = read_param(p, value)
        if note:
            said.append(note)
    if len(items) > len(APP_PARAMS):
        said.append("more items than there are parameters: the rest ignored")
    notes += [f"pin {number}: {note}" for note in said[:most]]
    if len(said) > most:
        notes.append(f"pin {number}: {len(said) - most} more corrections")
    return pin


def read_pins(values: list, notes: list) -> list[dict]:
    """The pins in the URL's ``pin`` values: at most MAX_PINS, each once (notes name a pin
    by its place in the link)."""
    pins: list[dict] = []
    for i, text in enumerate(values):
        if len(pins) == MAX_PINS or i == 4 * MAX_PINS:
            notes.append(f"pin: at most {MAX_PINS} pins are kept, the last "
                         f"{len(values) - i} ignored")
            break
        pin = read_pin(text, i + 1, notes)
        if pin not in pins:
            pins.append(pin)
    return pins


def _every(query, key: str) -> list:
    """Every value of a repeated URL key (``st.query_params.get_all``; a plain mapping holds
    one string or a list)."""
    if hasattr(query, "get_all"):
        return list(query.get_all(key))
    value = query.get(key)
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def parse_etas(text: str, limit: int = 6) -> list[float]:
    """Learning rates from the user's text: numbers in the eta widget's range, unique, at
    most ``limit``."""
    lo, hi = BY_NAME["eta"].app_range
    values: list[float] = []
    for part in str(text).replace(";", ",").split(","):
        try:
            value = float(part.strip())
        except ValueError:
            continue
        if lo <= value <= hi and value not in values:
            values.append(value)
    return values[:limit]
