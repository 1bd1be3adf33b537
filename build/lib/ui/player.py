"""The page's player (``viz/js/``; its Streamlit host, ``streamlit_host.js``) as a
Streamlit component: it draws the fit, the loss curves and the tree of any round from the
model's round trace (docs/player.md), steps and plays in the page, draws a clicked node's
details from the node route, and reruns the app's round stage only at rest (the round it
rests on, and the node selected there). Also the button that saves the same player as one
offline file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import streamlit as st
import streamlit.components.v2 as components_v2

from viz.export import offline_html
from viz.page_js import JS_DIR, loader

from . import memory
from .charts import plotly_url
from .nodes import model_records

# The host's module with what it imports (viz.page_js.MODULES), made ES modules in the page
_PLAYER = components_v2.component("boostscope_player", js=loader(JS_DIR / "streamlit_host.js"),
                                  isolate_styles=False)
# Where the player draws the selected node's details (the tree view's node part)
_NODE_DETAILS = components_v2.component(
    "boostscope_node_details", js=loader(Path(__file__).with_name("node_details.js")),
    isolate_styles=False)
def _text(trace: dict) -> str:
    """The trace as JSON without ``goto`` (which changes while the trace does not),
    serialised once per trace, not at every rerun (``memory.TRACES``)."""
    return memory.TRACES.get(trace["id"], lambda: json.dumps(
        {k: v for k, v in trace.items() if k != "goto"}))


def _trigger(key: str, name: str) -> dict:
    """The value the page sent with trigger ``name`` of component ``key`` (an empty dict for
    none, or for anything but a JSON object: the page's values are checked, not trusted)."""
    value = (st.session_state.get(key) or {}).get(name)
    return value if isinstance(value, dict) else {}


def player(trace: dict, key: str, on_round: Callable[[int, int | None], None],
           keys: bool = True, held: bool = False,
           on_held: Callable[[str, bool], None] = lambda trace_id, holds: None,
           nodes: str | None = None) -> None:
    """Draw the player for ``trace``; ``on_round(r, node)`` when it comes to rest on round
    r, with the node selected there (followed by a rerun of the enclosing fragment); a
    click on a node sends nothing (the page draws its details from the node route).
    ``keys``: the page's ← → Space Home End step it (a lesson keeps ← → for its own steps).

    ``held``: the page said it holds this trace, so it is named by its id alone (a rerun at
    rest does not send the model's every round again). The page says
    so with each report (``on_held(id, True)``) and asks again for a trace it does not hold
    (``on_held(id, False)``, then a rerun sends it). ``nodes``: the URL of the model's node
    records (``ui.routes.node_url``), for the page to ask."""

    def report(name: str) -> dict:
        value = _trigger(key, name)
        if isinstance(value.get("holds"), str):
            on_held(value["holds"], True)
        return value

    def rested() -> None:
        v = report("round")
        node = v.get("node")
        if isinstance(v.get("round"), int):
            on_round(v["round"], node if type(node) is int and node >= 0 else None)

    def needed() -> None:
        v = _trigger(key, "need")
        if isinstance(v.get("id"), str):
            on_held(v["id"], False)

    _PLAYER(key=key, data={"id": trace["id"], "trace": None if held else _text(trace),
                           "goto": trace["goto"], "keys": keys, "plotly": plotly_url(),
                           "nodes": nodes},
            on_round_change=rested, on_need_change=needed)


def node_details() -> None:
    """The place where the page's player draws the selected node's details (its chart, its
    worked arithmetic, its tables: ``viz/js/node_view.js``) — the tree view's node part,
    drawn in the page from the node's record, with no script run per click."""
    _NODE_DETAILS(key="node_details", data={})


def offline_button(trace: dict, model, klass: int, key: str,
                   label: str = "Download for offline") -> None:
    """Download the player with this trace (of ``model``, class ``klass``) as one HTML
    file: every round, the node records of its rounds up to ``ui.nodes.BUDGET``, the same
    keys; no server and no network needed."""
    def page() -> str:
        records = model_records(model.booster, model.prep.X_train, klass)
        return offline_html({**trace, "records": records}, model.config["name"])

    st.download_button(label, page, file_name="boostscope-lecture.html", mime="text/html",
                       key=key, icon=":material/download:", on_click="ignore",
                       help="One HTML file with this model's every round (fit, loss, tree and "
                            "each node's numbers, its nodes' arithmetic and candidates while "
                            "they fit) and the same keys: it opens from disk, with no server "
                            "and no network (a lecture hall with weak Wi-Fi).")
