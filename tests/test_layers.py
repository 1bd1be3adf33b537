"""The layers import one way: app -> ui -> viz -> boost. boost never imports streamlit,
plotly, viz or ui; viz never imports streamlit or ui; ui/tables (reading and preparing
tables) imports neither streamlit, plotly, viz nor the rest of ui (read from every module's
imports)."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {"boost": {"streamlit", "plotly", "viz", "ui"}, "viz": {"streamlit", "ui"},
             "ui": {"app"}, "ui/tables": {"streamlit", "plotly", "viz", "ui", "app"}}


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layers_import_one_way(layer):
    files = sorted((ROOT / layer).rglob("*.py"))
    assert files
    for path in files:
        bad = _imports(path) & FORBIDDEN[layer]
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_the_checker_sees_imports(tmp_path):
    sample = tmp_path / "m.py"
    sample.write_text("import streamlit as st\nfrom plotly import graph_objects\nfrom . import x\n")
    assert _imports(sample) == {"streamlit", "plotly"}


def test_every_chart_is_drawn_by_charts_show():
    # st.plotly_chart re-creates a chart whose figure changed (docs/design.md, "What a redraw
    # costs the browser"): every chart goes through ui.charts.show, which redraws in place.
    calls = []
    for path in [ROOT / "app.py", *sorted((ROOT / "ui").rglob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "plotly_chart":
                calls.append(str(path.relative_to(ROOT)))
    assert calls == []


def _module_imports(path: Path, package: str) -> set[str]:
    """The modules of ``package`` that ``path`` imports when it is loaded (relative imports
    at module level; those inside functions or ``if TYPE_CHECKING`` run later or never)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    here = list(parts[:-1])  # the package: "." from a module and from its __init__
    out = set()
    for node in ast.parse(path.read_text()).body:
        if not isinstance(node, ast.ImportFrom) or node.level == 0:
            continue
        base = here[:len(here) - node.level + 1]
        if node.module:
            base = base + node.module.split(".")
            out.add(".".join(base))
        else:
            out |= {".".join(base + [alias.name]) for alias in node.names}
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
               for p in (ROOT / package).rglob("*.py")}
    return {m for m in out if m in modules and m.startswith(package)}


def test_ui_tables_reads_tables_without_the_rest_of_ui():
    for path in sorted((ROOT / "ui" / "tables").rglob("*.py")):
        others = {m for m in _module_imports(path, "ui") if not m.startswith("ui.tables")}
        assert not others, f"{path.relative_to(ROOT)} imports {sorted(others)}"


def test_ui_has_no_import_circles():
    graph = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"):
             _module_imports(p, "ui") for p in sorted((ROOT / "ui").rglob("*.py"))}
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            cycle = path[path.index(module):] + [module]
            raise AssertionError("import circle: " + " -> ".join(cycle))
        if module in done:
            return
        for other in graph.get(module, ()):
            visit(other, path + [module])
        done.add(module)

    for module in graph:
        visit(module, [])
