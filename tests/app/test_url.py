"""Links: every parameter of the table with hostile values, read without an exception, the
value clamped into the widget's range (or the default) and the correction said."""

import math

import pytest
import streamlit as st
from apptest import APP, RUN_TIMEOUT
from streamlit.testing.v1 import AppTest

from boost.params import APP_PARAMS, PARAMETERS
from ui import memory, url
from ui.views import LEGACY, VIEWS

HOSTILE = ("0", "-1", "1e308", "-1e308", "nan", "inf", "-inf", "", "text", "0x10", "1_0",
           "<img src=x onerror=alert(1)>", "__import__('os').system('true')", "[1]", " 3 ")


def edges(p):
    """The range's ends and the values just outside them."""
    if p.kind is bool:
        return ("true", "false", "TRUE", "yes")
    if p.kind is str:
        return (*p.choices, p.choices[0].upper(), "auto")
    lo, hi = p.app_range
    tiny = 1 if p.kind is int else 1e-9 * max(1.0, abs(hi))
    return tuple(str(v) for v in (lo, hi, lo - tiny, hi + tiny))


def _listed(text):
    """A list parameter's text as its numbers (None: not a list of numbers)."""
    try:
        values = [float(v) for v in text.strip().strip("[]").split(",")]
    except ValueError:
        return None
    return None if any(v != v for v in values) else values


def expected(p, text):
    """What the widget should show for ``text``, worked out independently of url.py."""
    if p.several:
        values = _listed(text)
        if values is None:
            return p.start
        lo, hi = p.app_range
        return ",".join(f"{min(max(v, lo), hi):g}" for v in values)
    if p.kind is bool:
        return {"true": True, "1": True, "false": False, "0": False}.get(text.lower(), p.start)
    if p.kind is str:
        text = dict(p.value_aliases).get(text, text)
        return text if text in p.choices else p.start
    if p.widget == "text" and text.strip().lower() in ("", "auto"):
        return ""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if math.isnan(value):
        return "" if p.start is None else p.start
    lo, hi = p.app_range
    value = min(max(value, lo), hi)
    value = round(value) if p.kind is int else value
    return f"{value:g}" if p.widget == "text" else value


def _literal(p, text):
    """What ``text`` says, as the parameter's type (None: nothing it can be)."""
    if p.several:
        return _listed(text)
    if p.kind is bool:
        return {"true": True, "1": True, "false": False, "0": False}.get(text.lower())
    if p.kind is str:
        return dict(p.value_aliases).get(text, text)
    if p.widget == "text" and text.strip().lower() in ("", "auto"):
        return "estimated"
    try:
        return float(text)
    except ValueError:
        return None


@pytest.mark.parametrize("p", APP_PARAMS, ids=lambda p: p.name)
def test_every_parameter_reads_every_hostile_value(p):
    for text in HOSTILE + edges(p):
        value, note = url.read_param(p, text)
        assert value == expected(p, text), text
        if not p.choices and p.widget not in ("text", "list"):
            lo, hi = p.app_range
            assert lo <= value <= hi and type(value) is p.kind
        if _literal(p, text) != _literal(p, str(value)):
            assert note and p.key in note, (text, value, note)
        else:
            assert note is None, (text, note)
        if note:
            assert "<" not in note.replace("\\<", "")  # quoted inert


def test_app_ranges_lie_inside_the_engine_ranges_and_defaults_are_valid():
    for p in PARAMETERS:
        if p.kind is str and p.parse is not None:  # free text (eval_metric): None or parsed
            assert p.default is None or p.parse(p.default) == p.default
            continue
        if p.kind is str:
            assert p.default in p.choices and p.start in p.choices
            continue
        if p.kind is bool:
            assert p.default in (True, False) and p.start in (True, False)
            continue
        if p.app_range is not None:
            lo, hi = p.app_range
            assert p.contains(lo) and p.contains(hi), p.name
            if p.several:  # a list: each of its values
                assert all(lo <= float(v) <= hi for v in p.start.split(",")), p.name
            elif p.start is not None:
                assert lo <= p.start <= hi, p.name
        if p.default is not None and p.name != "num_class":
            assert p.contains(p.default), p.name


def test_view_links_by_slug_and_by_old_number():
    link = url.read({"view": "importance"}, [], list(VIEWS), LEGACY)
    assert link.view == "importance" and not link.notes
    assert url.read({"view": "3"}, [], list(VIEWS), LEGACY).view == "importance"
    for bad in ("99", "-1", "tree<script>", ""):
        link = url.read({"view": bad}, [], list(VIEWS), LEGACY)
        assert link.view is None and link.notes


def test_unknown_names_are_ignored_and_round_and_node_are_clamped():
    link = url.read({"etta": "1", "round": "1e308", "node": "-5", "sample": "<b>x</b>"},
                    ["moons"], list(VIEWS), LEGACY)
    assert link.round == 100_000 and link.node == 0 and link.sample is None
    assert len(link.notes) == 3 and all("<" not in n.replace("\\<", "") for n in link.notes)


@pytest.fixture(autouse=True)
def clear_caches():
    st.cache_data.clear()
    st.cache_resource.clear()
    memory.clear()
    yield


def _widget(at, p):
    key = f"p_{p.name}"
    for kind in ("slider", "number_input", "segmented_control", "text_input"):
        found = [w for w in getattr(at, kind) if w.key == key]
        if found:
            return found[0].value
    return at.session_state[key]  # the objective does not use it: not on the form


@pytest.mark.parametrize("kind", ["low", "high", "below", "above", *HOSTILE])
def test_the_app_opens_every_hostile_link(kind):
    """The whole table at once: every parameter set to one kind of value in one link."""
    query = {"sample": "four_points", "round": "1", "node": "0", "view": "tree"}
    for p in APP_PARAMS:
        ends = dict(zip(("low", "high", "below", "above"), edges(p), strict=False))
        query[p.key] = ends.get(kind, kind) if not p.choices else kind
    query["no_such_parameter"] = "1"
    at = AppTest.from_file(APP, default_timeout=RUN_TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    for p in APP_PARAMS:
        want = expected(p, query[p.key])
        got = _widget(at, p)
        assert got == (pytest.approx(want) if isinstance(want, float) else want), p.name
    corrected = [c.value for c in at.caption if c.value.startswith(":material/link:")]
    assert len(corrected) <= 1


# --------------------------------------------------------------------------- pins
def _pins_at(kind):
    """A pin with every parameter at one end of its range (or its last choice)."""
    pin = url.pin_defaults()
    for p in APP_PARAMS:
        if p.choices:  # text and true/false choices
            pin[p.name] = p.choices[-1 if kind == "high" else 0]
        elif p.widget == "text":
            pin[p.name] = "-2.5" if kind == "low" else ""
        elif p.several:
            pin[p.name] = "0,0.5" if kind == "low" else "1"
        else:
            pin[p.name] = p.kind(p.app_range[0 if kind == "low" else 1])
    return pin


@pytest.mark.parametrize("pin", [url.pin_defaults(), _pins_at("low"), _pins_at("high"),
                                 {**url.pin_defaults(), "eta": 0.1, "max_depth": 5}],
                         ids=["defaults", "low", "high", "eta-depth"])
def test_a_pin_survives_its_url(pin):
    text = url.write_pin(pin)
    notes = []
    assert url.read_pin(text, 1, notes) == pin and notes == []
    assert "&" not in text and "=" not in text and "#" not in text
    link = url.read({"pin": [text, url.write_pin(url.pin_defaults())]}, [], list(VIEWS),
                    LEGACY)
    assert link.pins[0] == pin and not link.notes


def test_a_pin_is_short_and_readable():
    assert url.write_pin({**url.pin_defaults(), "eta": 0.1, "max_depth": 5}) == \
        "eta-0.1~max_depth-5"
    assert url.write_pin({**url.pin_defaults(), "num_boost_round": 50, "base_score": "-3"}) \
        == "base_score--3~rounds-50"
    assert url.write_pin(url.pin_defaults()) == url.PIN_SAME
    assert url.write({"pin": ["eta-0.1", "gamma-5"], "view": "compare", "none": []}) == \
        {"pin": ["eta-0.1", "gamma-5"], "view": "compare"}


@pytest.mark.parametrize("text", HOSTILE + ("eta", "eta-", "-0.1", "~~~", "eta-0.1~eta-0.2",
                                            "objective-reg:gamma", "x" * 10_000,
                                            "~".join(["eta-0.5"] * 500)))
def test_hostile_pins_are_read_by_the_table_and_never_raise(text):
    notes = []
    pin = url.read_pin(text, 2, notes)
    assert set(pin) == set(url.pin_defaults())
    for p in APP_PARAMS:
        if p.choices:
            assert pin[p.name] in p.choices and type(pin[p.name]) is p.kind
        elif p.several:
            lo, hi = p.app_range
            assert all(lo <= float(v) <= hi for v in pin[p.name].split(","))
        elif p.widget != "text":
            lo, hi = p.app_range
            assert lo <= pin[p.name] <= hi and type(pin[p.name]) is p.kind
    assert all(n.startswith("pin 2: ") and "<" not in n.replace("\\<", "") for n in notes)
    if "~" in text:
        return
    for p in APP_PARAMS:  # each parameter with the hostile value: read as a link's
        notes = []
        value, note = url.read_param(p, text)
        assert url.read_pin(f"{p.key}-{text}", 1, notes)[p.name] == value
        assert notes == ([] if note is None else [f"pin 1: {note}"])


def test_at_most_four_pins_each_once():
    notes = []
    pins = url.read_pins(["eta-0.1", "eta-0.1", "eta-0.2", "eta-0.3", "eta-0.4", "eta-0.5",
                          "eta-0.6"], notes)
    assert [p["eta"] for p in pins] == [0.1, 0.2, 0.3, 0.4]
    assert notes == ["pin: at most 4 pins are kept, the last 2 ignored"]
    notes = []
    assert len(url.read_pins(["eta-0.1"] * 10_000, notes)) == 1 and len(notes) == 1


@pytest.mark.parametrize("pins", [["eta-abc~gamma-1e308", "<script>alert(1)</script>"],
                                  ["max_depth-99"] * 7, ["eta-0.5"], [""]])
def test_the_app_opens_hostile_pin_links(pins):
    at = AppTest.from_file(APP, default_timeout=RUN_TIMEOUT)
    at.query_params.update({"sample": "four_points", "view": "compare", "round": "1",
                            "pin": pins})
    at.run()
    assert not at.exception, at.exception
    state = at.session_state["app"]
    assert 1 <= len(state.pins.kept) <= url.MAX_PINS
    written = at.query_params["pin"]
    written = [written] if isinstance(written, str) else written
    assert [url.read_pin(t, 1, []) for t in written] == state.pins.kept


def test_a_hostile_pin_says_at_most_three_corrections():
    notes = []
    pin = url.read_pin("eta-x~gamma-nan~max_depth-99~lambda--1~seed-s~a~b", 2, notes)
    assert pin["max_depth"] == 10 and pin["lambda"] == 0 and pin["eta"] == 0.3
    assert notes[:3] == ["pin 2: eta=x is not a number: using 0.3",
                         "pin 2: gamma=nan is not a number: using 0",
                         "pin 2: max_depth=99 is outside 0 to 10: using 10"]
    assert notes[3:] == ["pin 2: 4 more corrections"]


# --------------------------------------------------------------------------- query column
def _query_link(at) -> dict:
    return {k: at.query_params[k] for k in ("sample", "query", "objective")
            if k in at.query_params}


def test_a_ranking_links_query_column_opens_the_ranking_again():
    from apptest import open_app

    at = open_app(sample="three_queries", objective="rank:pairwise")
    model = at.session_state["app"].model.last_good
    assert model.prep.task == "ranking" and model.booster.objective == "rank:pairwise"
    link = _query_link(at)
    assert link == {"sample": "three_queries", "query": "query", "objective": "rank:pairwise"}
    again = open_app(**dict(at.query_params))
    assert again.session_state["app"].model.last_good.booster.objective == "rank:pairwise"
    assert again.selectbox(key="query_column").value == "query"
    # the query column set to none: the link says so, and opens the same table as regression
    at.selectbox(key="query_column").set_value("").run()
    assert at.query_params["query"] == url.NO_QUERY_LINK
    plain = open_app(**dict(at.query_params))
    assert plain.selectbox(key="query_column").value == ""
    assert plain.session_state["app"].model.last_good.prep.task != "ranking"
    # a column the table does not have: the sample's own query column, no exception
    bogus = open_app(sample="three_queries", query="<b>nope</b>")
    assert bogus.selectbox(key="query_column").value == "query" and not bogus.error
