"""The lecture as one self-contained HTML file: the round's player (``viz/js/``) with a
model's round trace, or a whole lesson, and Plotly's JavaScript inside the file — it opens
from disk, with no server and no network. The file is written by ``python -m ui.lecture``
(this module only composes the HTML; run as a script, it says so and exits non-zero)."""

from __future__ import annotations

import html
import json
import sys

import plotly.offline

from .page_js import JS_DIR, inline_json, loader

OFFLINE_HOST = JS_DIR / "offline_host.js"

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{style}</style>
<script>{plotly}</script>
</head>
<body><div id="{box}"></div>
<script type="application/json" id="{data_id}">{data}</script>
<script type="module">
{modules}</script></body></html>
"""

_PLAYER_STYLE = ("html, body { margin: 0; background: #fff; } #player { padding: 8px 14px 0 14px; }"
                 " #details { padding: 0 14px 14px 14px; font-family: 'Source Sans Pro', "
                 "Arial, sans-serif; }")
_LESSON_STYLE = """html, body {{ margin: 0; background: #fff; }}
#lesson {{ padding: 8px 14px 0 14px; font-size: {font}px; }}
@media (min-width: 1600px) {{ #lesson {{ font-size: {font_large}px; }} }}"""


def _json(data: dict | str) -> str:
    return inline_json(data if isinstance(data, str) else json.dumps(data, separators=(",", ":")))


def _page(title: str, style: str, box: str, data_id: str, data: dict | str) -> str:
    return _PAGE.format(title=html.escape(title), style=style,
                        plotly=plotly.offline.get_plotlyjs(), box=box, data_id=data_id,
                        data=_json(data), modules=loader(OFFLINE_HOST, export_default=False))


def offline_html(trace: dict | str, title: str = "BoostScope") -> str:
    """The round's player as ONE self-contained HTML file: Plotly.js, the page's modules and
    the round ``trace`` (docs/player.md; a dict or its JSON) inlined; it opens from disk and
    makes no request."""
    return _page(title, _PLAYER_STYLE, "player", "boostscope-trace", trace)


def offline_lesson_html(lesson: dict | str, title: str = "BoostScope lesson") -> str:
    """A whole lesson as ONE self-contained HTML file: Plotly.js, the page's modules (the
    lesson host among them) and the lesson's data (docs/player.md, "The lesson file": its
    distinct traces once each, and steps that refer to them with their round, node, panels
    and texts) inlined; it opens from disk and makes no request."""
    return _page(title, _LESSON_STYLE.format(font=20, font_large=26), "lesson",
                 "boostscope-lesson", lesson)


if __name__ == "__main__":
    print("viz.export writes no file: use python -m ui.lecture (--sample, --table or --lesson, "
          "-o FILE.html)", file=sys.stderr)
    sys.exit(2)
