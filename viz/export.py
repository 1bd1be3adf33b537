"""The lecture as one self-contained HTML file: the round's player (``viz/player.js``)
with a model's round trace, or a whole lesson (``viz/lesson_player.js``), and Plotly's
JavaScript inside the file — it opens from disk, with no server and no network."""

from __future__ import annotations

import html
import json
from pathlib import Path

import plotly.offline

PLAYER_JS = Path(__file__).with_name("player.js")

_OFFLINE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>html, body {{ margin: 0; background: #fff; }} #player {{ padding: 8px 14px 0 14px; }}</style>
<script>{plotly}</script>
</head>
<body><div id="player"></div>
<script type="application/json" id="boostscope-trace">{trace}</script>
<script type="module">
{player}
// The offline host: the page's reports are kept (nothing to tell; no server)
window.boostscopePlayer.reports = [];
mount(document.getElementById("player"),
      JSON.parse(document.getElementById("boostscope-trace").textContent),
      {{report: (name, value) => window.boostscopePlayer.reports.push({{name, value}})}});
</script></body></html>
"""


def _json(data: dict | str) -> str:
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    # "<" occurs only inside JSON strings, where \\u003c means the same: no "</script>" or
    # "<!--" can end the script element early
    return text.replace("<", "\\u003c")


def _module(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if "</script" in text.lower():
        raise ValueError(f"viz/{path.name} holds '</script': it cannot be inlined")
    return text


def offline_html(trace: dict | str, title: str = "BoostScope") -> str:
    """The round's player as ONE self-contained HTML file: Plotly.js, ``viz/player.js`` and
    the round ``trace`` (docs/player.md; a dict or its JSON) inlined; it opens from disk and
    makes no request."""
    return _OFFLINE.format(title=html.escape(title), plotly=plotly.offline.get_plotlyjs(),
                           trace=_json(trace), player=_module(PLAYER_JS))


LESSON_JS = Path(__file__).with_name("lesson_player.js")

_LESSON = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>html, body {{ margin: 0; background: #fff; }}
#lesson {{ padding: 8px 14px 0 14px; font-size: {font}px; }}
@media (min-width: 1600px) {{ #lesson {{ font-size: {font_large}px; }} }}</style>
<script>{plotly}</script>
</head>
<body><div id="lesson"></div>
<script type="application/json" id="boostscope-lesson">{lesson}</script>
<script type="module">
{player}
{lesson_player}
// The offline host: the page's reports are kept (nothing to tell; no server)
window.boostscopePlayer.reports = [];
mountLesson(document.getElementById("lesson"),
            JSON.parse(document.getElementById("boostscope-lesson").textContent),
            {{mount, report: (name, value) =>
              window.boostscopePlayer.reports.push({{name, value}})}});
</script></body></html>
"""


def offline_lesson_html(lesson: dict | str, title: str = "BoostScope lesson") -> str:
    """A whole lesson as ONE self-contained HTML file: Plotly.js, ``viz/player.js``, the
    lesson host ``viz/lesson_player.js`` and the lesson's data (docs/player.md, "The lesson
    file": its distinct traces once each, and steps that refer to them with their round,
    node, panels and texts) inlined; it opens from disk and makes no request."""
    return _LESSON.format(title=html.escape(title), plotly=plotly.offline.get_plotlyjs(),
                          lesson=_json(lesson), player=_module(PLAYER_JS),
                          lesson_player=_module(LESSON_JS), font=20, font_large=26)
