"""The page's player (``viz/js/``; its Streamlit host, ``streamlit_host.js``) as a
Streamlit component: it draws the fit, the loss curves and the tree of any round from the
model's round trace (docs/player.md), steps and plays in the page, and reruns the app's round
stage only at rest (the round it rests on, a node clicked). Also the button that saves the
same player as one offline file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import streamlit as st
import streamlit.components.v2 as components_v2

from viz.export import offline_html
from viz.page_js import JS_DIR, loader

from . import memory, url
from .charts import plotly_url
from .guard import guarded
from .state import AppState, Shown

# The host's module with what it imports (viz.page_js.MODULES), made ES modules in the page
_PLAYER = components_v2.component("boostscope_player", js=loader(JS_DIR / "streamlit_host.js"),
                                  isolate_styles=False)
# An element with nothing to show: its container takes no room (no gap in the column)
_NODE_CLICKS = components_v2.component(
    "boostscope_node_clicks", js=loader(Path(__file__).with_name("node_clicks.js")),
    css=".st-key-node_clicks { display: none; }", isolate_styles=False)
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


def player(trace: dict, key: str, on_round: Callable[[int], None],
           on_node: Callable[[int, int], None], keys: bool = True, held: bool = False,
           on_held: Callable[[str, bool], None] = lambda trace_id, holds: None,
           nodes: str | None = None) -> None:
    """Draw the player for ``trace``; ``on_round(r)`` when it comes to rest on round r,
    ``on_node(r, node)`` when a node of round r's tree is clicked (each is followed by a
    rerun of the enclosing fragment). ``keys``: the page's ← → Space Home End step it (a
    lesson keeps ← → for its own steps).

    ``held``: the page said it holds this trace, so it is named by its id alone (a rerun at
    rest or after a node click does not send the model's every round again). The page says
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
        if isinstance(v.get("round"), int):
            on_round(v["round"])

    def clicked() -> None:
        v = report("node")
        if isinstance(v.get("node"), int):
            on_node(int(v.get("round", 0)), v["node"])

    def needed() -> None:
        v = _trigger(key, "need")
        if isinstance(v.get("id"), str):
            on_held(v["id"], False)

    _PLAYER(key=key, data={"id": trace["id"], "trace": None if held else _text(trace),
                           "goto": trace["goto"], "keys": keys, "plotly": plotly_url(),
                           "nodes": nodes},
            on_round_change=rested, on_node_change=clicked, on_need_change=needed)


def node_part(state: AppState, shown: Shown, view: str, draw: Callable[[], None]) -> None:
    """``draw`` (a view's node part: the selected node's candidates and worked arithmetic)
    as a fragment of its own. While it is on the page, the player sends a click on a node of
    its round here, so the click reruns this part alone (and writes the URL), not the stage
    around it; ``view``: the view's slug (for the URL)."""
    st.fragment(_node_part)(state, shown, view, draw)


def _node_part(state: AppState, shown: Shown, view: str, draw: Callable[[], None]) -> None:
    def clicked() -> None:
        value = _trigger("node_clicks", "node")
        if isinstance(value.get("node"), int):
            state.stage.rests_on(shown.round, value["node"])

    _NODE_CLICKS(key="node_clicks", data={"round": int(shown.round)}, on_node_change=clicked)
    # a fragment's exception stops at the fragment: the stage's own guard never sees it
    guarded(draw, "This node", "Click another node or step to another round")
    if url.writes(state):
        url.share(state, shown.config, view)


def offline_button(trace: dict, title: str, key: str,
                   label: str = "Download for offline") -> None:
    """Download the player with this trace as one HTML file: every round, every node's
    numbers, the same keys; no server and no network needed."""
    st.download_button(label, lambda: offline_html(trace, title),
                       file_name="boostscope-lecture.html", mime="text/html", key=key,
                       icon=":material/download:", on_click="ignore",
                       help="One HTML file with this model's every round (fit, loss, tree and "
                            "each node's numbers) and the same keys: it opens from disk, with "
                            "no server and no network (a lecture hall with weak Wi-Fi).")
