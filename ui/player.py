"""The round's player in the app: ``viz/player.js`` as a components-v2 component. The page
steps, scrubs and plays by itself; Python hears of the round only at rest (docs/player.md)."""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path

import streamlit.components.v2 as components_v2

from .charts import _plotly_url

PLAYER_JS = Path(__file__).resolve().parents[1] / "viz" / "player.js"
_PLAYER = components_v2.component("boostscope_player", js=PLAYER_JS.read_text(encoding="utf-8"),
                                  isolate_styles=False)

# The trace's JSON without its goto, per trace id: a rerun that only moves the stage (a new
# goto) re-sends the same text instead of serialising the arrays again.
_BODIES: OrderedDict[str, str] = OrderedDict()
_KEEP = 4


def trace_json(trace: dict) -> str:
    """``trace`` as JSON text; everything but ``goto`` is serialised once per trace id."""
    key = str(trace["id"])
    body = _BODIES.get(key)
    if body is None:
        body = json.dumps({k: v for k, v in trace.items() if k != "goto"},
                          separators=(",", ":"))
        _BODIES[key] = body
        while len(_BODIES) > _KEEP:
            _BODIES.popitem(last=False)
    _BODIES.move_to_end(key)
    goto = json.dumps(trace.get("goto"), separators=(",", ":"))
    return f'{body[:-1]},"goto":{goto}}}'


def player(trace: dict, key: str, on_round=None, on_node=None):
    """Draw the round's player for ``trace`` (``viz.player.round_trace``). ``on_round`` is
    called when the page comes to rest on a round, ``on_node`` when a node is clicked; read
    the value in ``st.session_state[key]`` (``["round"]``: ``{"round": r}``, ``["node"]``:
    ``{"round": r, "node": id}``)."""
    callbacks = {}
    if on_round is not None:
        callbacks["on_round_change"] = on_round
    if on_node is not None:
        callbacks["on_node_change"] = on_node
    return _PLAYER(key=key, data={"trace": trace_json(trace), "plotly": _plotly_url()},
                   **callbacks)
