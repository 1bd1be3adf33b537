"""What the AppTest files share: the app's path, opening it from a link, clean caches, the
charts on the page."""

import json
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from ui import memory, served
from ui.nodes import page_node
from ui.views import DEFAULT

APP = str(Path(__file__).resolve().parents[1] / "app.py")


RUN_TIMEOUT = 600  # s a script run may take: a busy machine compiling the engine takes minutes


@pytest.fixture(autouse=True)
def clear_caches():
    """Streamlit's caches are per process: each test starts without the last one's models."""
    st.cache_data.clear()
    st.cache_resource.clear()
    memory.clear()
    yield


def open_app(**query) -> AppTest:
    """The app opened with ``query`` as its URL's values, run once, without an exception."""
    at = AppTest.from_file(APP, default_timeout=RUN_TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def player_data(at) -> dict:
    """What the page's player was sent: the trace's id, its JSON (None when the page holds
    it), ``goto`` and ``keys``."""
    for element in at.get("bidi_component"):
        if element.proto.component_name == "boostscope_player":
            return json.loads(element.proto.json)
    raise AssertionError("no player on the page")


def player(at) -> dict:
    """The round trace the page's player draws, with its ``goto`` and ``keys`` (a trace the
    page holds, named by id, is the one sent before)."""
    data = player_data(at)
    text = data["trace"] if data["trace"] is not None else memory.TRACES.peek(data["id"])
    return {**json.loads(text), "goto": data["goto"], "keys": data["keys"]}


def status(at) -> str:
    """The player's status line at the round the app holds ("Round r of n — train rmse
    ..."): what the page shows at rest."""
    return player(at)["status"][at.session_state["app"].stage.round]


def node_record(at, node: int | None = None) -> dict:
    """A node of the round on screen as the page gets it from the app's node route
    (``ui.routes.page_node``, by the model id and class the page was given): ``node``, else
    the one the tree view shows (the stage's, the root until one is selected)."""
    query = parse_qs(urlparse(player_data(at)["nodes"]).query)
    booster, X = served.lookup(query["model"][0])
    stage = at.session_state["app"].stage
    klass = int(query.get("class", ["0"])[0])
    if node is None:
        nodes = booster.trace.trees()
        tree = nodes[(nodes.Round == stage.round) & (nodes.Class == klass)]
        node = stage.node if stage.node in set(tree.Node) else 0
    return page_node(booster, X, stage.round, node, klass)


def node_table(at, node: int | None = None) -> pd.DataFrame:
    """The node's best candidates as the page's table shows them (``node_record``)."""
    top = node_record(at, node)["top"]
    return pd.DataFrame(top["rows"], columns=top["columns"])


def formulas(at) -> str:
    """Every formula on the screen: ``st.latex`` blocks, markdown with ``$...$``, and, in the
    tree view past round 0, the selected node's worked arithmetic the page draws from its
    record."""
    out = [x.value for x in at.latex] + [m.value for m in at.markdown if "$" in m.value]
    stage = at.session_state["app"].stage
    if (stage.view or DEFAULT) == "tree" and stage.round >= 1:
        out += [s["latex"] for s in node_record(at)["arithmetic"]]
    return " ".join(out)


def rest_on(at, r: int, node: int | None = None) -> AppTest:
    """What the page's player does when it comes to rest on round ``r`` (or a node of it is
    clicked): the round (and node) back in the app's stage, and a run."""
    at.session_state["app"].stage.rests_on(r, node)
    return at.run()


def _chart_elements(at) -> list:
    """The chart components on the page, in page order (``ui.charts.show`` draws each)."""
    return [c for c in at.get("bidi_component") if c.proto.component_name == "boostscope_chart"]


def charts(at) -> list[dict]:
    """The figures of the charts on the page, in page order (each component's data holds its
    figure's JSON)."""
    return [json.loads(json.loads(c.proto.json)["figure"]) for c in _chart_elements(at)]


def chart(at, key: str) -> dict:
    """The figure of the chart drawn under ``key``."""
    for element in _chart_elements(at):
        if element.proto.id.endswith(key):
            return json.loads(json.loads(element.proto.json)["figure"])
    raise AssertionError(f"no chart {key}")
