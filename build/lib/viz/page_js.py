"""The page's JavaScript: ONE list of its ES modules (``viz/js/``), in dependency order, and
the script that loads a host's module with everything it imports, as real ES modules, in a
page with no server of ours (docs/player.md, "The page's modules").

A host gets one script (a Streamlit components-v2 ``js=`` string, the offline file's
``<script type="module">``, or a notebook widget's ES module, anywidget's ``_esm``). It holds
each module's source and, in the page, makes each a ``blob:`` URL, its relative imports
(``from "./format.js"``) pointed at the URLs of the modules made before it, then imports the
host's module. Each file keeps its own scope and
imports what it uses; nothing is found by pasting files into one scope.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

JS_DIR = Path(__file__).with_name("js")

# Every module of viz/js, each after the modules it imports.
MODULES = (
    "format.js",  # Python's number formats
    "labels.js",  # a node's label, edge label and hover text, and their size estimate
    "trace.js",  # the round trace decoded; a round's nodes
    "tree_layout.js",  # where nodes and labels go (viz/tree_layout.py's rules)
    "tree_svg.js",  # the tree as SVG markup
    "dom.js",  # element helpers: make one, is a key its own, is it displayed
    "registry.js",  # window.boostscopePlayer: what tests and benchmarks read
    "plotly_load.js",  # Plotly.js loaded once per page
    "plotly_patch.js",  # every use of Plotly's private internals
    "chart_panel.js",  # a chart panel: its figure at round r, drawn
    "tex.js",  # LaTeX formulas as MathML
    "node_view.js",  # a node drawn from its record: arithmetic, candidates chart, tables
    "tree_panel.js",  # the tree panel: drawn, hovered, a node selected
    "panel_grid.js",  # the panels' grid areas and sizes
    "player_style.js",  # the player's CSS and icons
    "player.js",  # the player: transport, keys, Play, the draw loop, layout
    "streamlit_host.js",  # the app's host (ui/player.py)
    "lesson_host.js",  # the offline lesson's host
    "offline_host.js",  # the offline files' host (viz/export.py)
    "notebook_host.js",  # the notebook widget's host (ui/notebook.py)
)

# An import or re-export of a relative specifier: `import {a} from "./x.js";`, `import "./x.js";`
_IMPORT = re.compile(r'^\s*(?:import|export)\b[^;"]*?(?:\bfrom\s*)?"(\.\.?/[^"]+)"', re.M)


def _deps(path: Path) -> list[tuple[str, str]]:
    """(specifier, module name) of each relative import of ``path``; every one must be a
    module of ``MODULES``."""
    out = []
    for spec in _IMPORT.findall(path.read_text(encoding="utf-8")):
        target = (path.parent / spec).resolve()
        if target.parent != JS_DIR.resolve() or target.name not in MODULES:
            raise ValueError(f"{path.name} imports {spec!r}: not a module of viz.page_js.MODULES")
        out.append((spec, target.name))
    return out


@cache
def _order(entry: Path) -> tuple[Path, ...]:
    """``entry`` and every module it imports, directly or not, each after its imports."""
    needed, todo = set(), [entry]
    while todo:
        path = todo.pop()
        for _, name in _deps(path):
            if name not in needed:
                needed.add(name)
                todo.append(JS_DIR / name)
    order = [JS_DIR / name for name in MODULES if name in needed]
    if entry.resolve().parent != JS_DIR.resolve() or entry.name not in needed:
        order.append(entry)
    done = set()
    for path in order:
        late = {name for _, name in _deps(path)} - done
        if late:
            raise ValueError(f"{path.name} imports {sorted(late)}, listed after it in MODULES")
        done.add(path.name)
    return tuple(order)


def inline_json(text: str) -> str:
    """JSON text safe inside an HTML ``<script>`` element: "<" occurs only inside JSON
    strings, where ``\\u003c`` means the same, so no "</script>" or "<!--" can end the
    element early."""
    return text.replace("<", "\\u003c")


def loader(entry: Path, *, export_default: bool = True) -> str:
    """The script that loads ``entry`` (a module of viz/js, or another file whose relative
    imports name modules of viz/js, e.g. ui/chart.js) with what it imports, as ES modules made
    in the page; ``export_default``: the script's default export is ``entry``'s (what
    Streamlit's components v2 calls). Tests read the script's top-level ``urls`` and
    ``entry``."""
    modules = []
    for path in _order(Path(entry)):
        text = path.read_text(encoding="utf-8")
        modules.append([path.name, f"{text}\n//# sourceURL=boostscope/{path.name}\n",
                        _deps(path)])
    data = inline_json(json.dumps(modules, ensure_ascii=False))  # inlinable in an HTML page
    tail = "export default entry.default;\n" if export_default else ""
    return (
        "// BoostScope's page modules (viz/page_js.py): each made a blob: URL, its relative\n"
        "// imports pointed at the URLs made before it, then the host's module imported.\n"
        f"const modules = {data};\n"
        "const urls = {};\n"
        "for (const [name, source, deps] of modules) {\n"
        "  let text = source;\n"
        "  for (const [spec, dep] of deps) {\n"
        "    text = text.split(`\"${spec}\"`).join(JSON.stringify(urls[dep]));\n"
        "  }\n"
        "  urls[name] = URL.createObjectURL(new Blob([text], { type: \"text/javascript\" }));\n"
        "}\n"
        "const entry = await import(urls[modules[modules.length - 1][0]]);\n"
        + tail)
