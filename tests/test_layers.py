"""The layers import one way: app -> ui -> viz -> boost. boost never imports streamlit,
plotly, viz or ui; viz never imports streamlit or ui (read from every module's imports)."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {"boost": {"streamlit", "plotly", "viz", "ui"}, "viz": {"streamlit", "ui"},
             "ui": {"app"}}


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
