"""The screen as one self-contained HTML file: its text and its charts, interactive, with
Plotly's JavaScript inside the file (no server, no internet), laid out for a 1920×1080
slide."""

from __future__ import annotations

import html
import json
from pathlib import Path

import plotly.graph_objects as go
import plotly.offline

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<script>{plotly}</script>
<style>
body {{ font-family: "Source Sans Pro", Arial, sans-serif; margin: 24px 32px; color: #000;
       font-size: 24px; max-width: 1856px; }}
h1 {{ font-size: 32px; margin: 0 0 8px 0; }}
p {{ margin: 4px 0 12px 0; line-height: 1.35; }}
.charts {{ display: grid; grid-template-columns: repeat({columns}, 1fr); gap: 16px; }}
</style></head>
<body><h1>{title}</h1>{text}<div class="charts">{charts}</div></body></html>
"""


def screen_html(title: str, paragraphs: list[str], figures: list[go.Figure],
                height: int = 760) -> str:
    """One HTML page: ``title``, the ``paragraphs`` (plain text) and the ``figures`` side by
    side (up to two per row), each ``height`` pixels tall."""
    charts = []
    for fig in figures:
        fig = go.Figure(fig)  # a copy: the screen's figure keeps its own height
        fig.update_layout(height=height, width=None, autosize=True)
        charts.append(fig.to_html(full_html=False, include_plotlyjs=False,
                                  config={"displaylogo": False, "responsive": True}))
    text = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs if p)
    return _PAGE.format(title=html.escape(title), plotly=plotly.offline.get_plotlyjs(),
                        columns=max(1, min(2, len(figures))), text=text,
                        charts="".join(charts))


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
