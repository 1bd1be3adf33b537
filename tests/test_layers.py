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


def _is_type_checking(test: ast.expr) -> bool:
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _module_level(tree: ast.Module) -> list[ast.stmt]:
    """The statements at module level, with those inside ``if TYPE_CHECKING:`` (an import
    there is one for the type checker, and a circle all the same); not those in functions."""
    out = []
    for node in tree.body:
        out.append(node)
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            out += node.body
    return out


def test_the_circle_checker_sees_type_checking_imports():
    tree = ast.parse("from typing import TYPE_CHECKING\nimport typing\nfrom . import a\n"
                     "if TYPE_CHECKING:\n    from .b import B\n"
                     "if typing.TYPE_CHECKING:\n    from .c import C\n"
                     "def f():\n    from .d import D\n")
    found = {n.module or n.names[0].name for n in _module_level(tree)
             if isinstance(n, ast.ImportFrom) and n.level}
    assert found == {"a", "b", "c"}


def _module_imports(path: Path, package: str) -> set[str]:
    """The modules of ``package`` that ``path`` imports (relative imports at module level,
    those inside ``if TYPE_CHECKING:`` too; not those inside functions, which run later)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    here = list(parts[:-1])  # the package: "." from a module and from its __init__
    self_name = ".".join(parts).removesuffix(".__init__")
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
               for p in (ROOT / package).rglob("*.py")}
    out = set()
    for node in _module_level(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom) or node.level == 0:
            continue
        base = here[:len(here) - node.level + 1]
        if node.module:
            base = base + node.module.split(".")
            out.add(".".join(base))
        # ``from . import name``: the module ``name``, or else the package that defines it
        out |= {".".join(base + [alias.name]) if ".".join(base + [alias.name]) in modules
                else ".".join(base) for alias in node.names}
    return {m for m in out if m in modules and m.startswith(package) and m != self_name}


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


# --------------------------------------------------------------------------- viz is pure
# viz draws records (issue "One trace, one state"): it asks the model nothing. The engine is
# asked through ``booster.trace`` in ui/, and the answer (a record) is handed to viz.
ALLOWED_FROM_BOOST = {"boost.params", "boost.objectives", "boost.metrics", "boost.records",
                      "boost.trace"}
FACT_FUNCTIONS = {"boost.objectives": {"spec"},
                  "boost.metrics": {"metric_name", "higher_is_better"},
                  "boost.params": set()}
# Rules that read a record and ask the engine nothing (a refused split is a leaf that keeps
# the split it declined; a record's values as JSON's; a number as a reader sees it): viz may
# take them from boost.trace as it takes record types.
RECORD_RULES = {"boost.trace.node_record": {"refused"}, "boost.trace.plain": {"plain"},
                "boost.trace.rounding": {"rounded"}}
# What a viz module may take from ``from boost import ...``: the fact/record modules and
# the record types the package exports.
BOOST_EXPORTS = {"params", "objectives", "metrics", "records", "trace", "RoundView"}


def _engine_calls() -> set[str]:
    """The public methods of Booster and of Trace (the questions): calling one is asking the
    engine."""
    import inspect

    import boost
    from boost.trace import Trace

    return {name for cls in (boost.Booster, Trace)
            for name, value in inspect.getmembers(cls, inspect.isfunction)
            if not name.startswith("_")}


def _module_of(node: ast.ImportFrom) -> str:
    return node.module if node.level == 0 else ""


def _allowed_boost_module(module: str) -> bool:
    return module in ALLOWED_FROM_BOOST or module.startswith("boost.trace.")


def _fact_violation(module: str, name: str) -> str | None:
    """Whether ``name`` of fact module ``module`` is an engine computation (a function that
    is not a fact), or, from boost.trace's modules, anything but a record type or a
    constant."""
    import dataclasses
    import importlib
    import inspect

    mod = importlib.import_module(module)
    value = getattr(mod, name, None)
    if value is None:
        return f"{module}.{name} does not exist"
    if module.startswith("boost.trace"):
        if dataclasses.is_dataclass(value) or name.isupper() \
                or name in RECORD_RULES.get(module, ()):
            return None
        return f"{module}.{name} is not a record type"
    if module in FACT_FUNCTIONS and callable(value) and not inspect.isclass(value) \
            and name not in FACT_FUNCTIONS[module]:
        return f"{module}.{name} computes (only facts: {sorted(FACT_FUNCTIONS[module])})"
    return None


def viz_violations(source: str, engine_calls: set[str]) -> list[str]:
    """What in one viz module's ``source`` reaches the engine: (a) an attribute named
    ``engine``; (b) a call of a Booster or Trace method, by name; (c) an import from boost
    outside the fact and record modules, or of a computation from them (a non-fact function
    of boost.objectives, boost.metrics or boost.params, anything but records from
    boost.trace)."""
    out = []
    modules = {}  # local name -> boost module it stands for
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] != "boost":
                    continue
                if alias.name == "boost" or not _allowed_boost_module(alias.name):
                    out.append(f"line {node.lineno}: import {alias.name}")
                elif alias.asname:
                    modules[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            module = _module_of(node)
            if module.split(".")[0] != "boost":
                continue
            for alias in node.names:
                local = alias.asname or alias.name
                if module == "boost":
                    if alias.name not in BOOST_EXPORTS:
                        out.append(f"line {node.lineno}: from boost import {alias.name}")
                    elif alias.name in {"params", "objectives", "metrics", "records", "trace"}:
                        modules[local] = f"boost.{alias.name}"
                elif not _allowed_boost_module(module):
                    out.append(f"line {node.lineno}: from {module} import {alias.name}")
                else:
                    bad = _fact_violation(module, alias.name)
                    if bad:
                        out.append(f"line {node.lineno}: from {module} import {alias.name}: "
                                   f"{bad}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if node.attr == "engine":
                out.append(f"line {node.lineno}: .engine")
            elif isinstance(node.value, ast.Name) and node.value.id in modules:
                bad = _fact_violation(modules[node.value.id], node.attr)
                if bad:
                    out.append(f"line {node.lineno}: {node.value.id}.{node.attr}: {bad}")
        elif isinstance(node, ast.Call):
            func = node.func
            name = (func.attr if isinstance(func, ast.Attribute)
                    else func.id if isinstance(func, ast.Name) else None)
            if name in engine_calls:
                out.append(f"line {node.lineno}: calls {name}()")
    return sorted(set(out), key=lambda v: int(v.split()[1].rstrip(":")))


def test_viz_receives_records_only():
    calls = _engine_calls()
    found = {}
    for path in sorted((ROOT / "viz").glob("*.py")):
        bad = viz_violations(path.read_text(), calls)
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    assert not found, found


def test_the_purity_checker_sees_engine_calls():
    calls = _engine_calls()
    assert {"predict", "staged_margins", "tree_outputs", "round_view", "cuts", "get_score",
            "fit", "sketch", "function_space"} <= calls
    assert "engine" not in calls and "objective" not in calls  # properties, not calls
    sample = "\n".join([
        "from boost import Booster, objectives",
        "from boost.params import BY_NAME, parse_params",
        "from boost.importance import get_score",
        "from boost.trace.fit import Fit, predictions_at",
        "import boost.objectives as o",
        "t = objectives.spec('reg:squarederror').task",
        "p = objectives.response('binary:logistic', m)",
        "q = o.gradients",
        "m = booster.engine.tree",
        "v = booster.predict(X)",
        "w = trace.sketch(0, 1)",
        "from boost.metrics import higher_is_better, metric",
    ])
    assert viz_violations(sample, calls) == [
        "line 1: from boost import Booster",
        "line 2: from boost.params import parse_params: boost.params.parse_params computes "
        "(only facts: [])",
        "line 3: from boost.importance import get_score",
        "line 4: from boost.trace.fit import predictions_at: boost.trace.fit.predictions_at "
        "is not a record type",
        "line 7: objectives.response: boost.objectives.response computes (only facts: "
        "['spec'])",
        "line 8: o.gradients: boost.objectives.gradients computes (only facts: ['spec'])",
        "line 9: .engine",
        "line 10: calls predict()",
        "line 11: calls sketch()",
        "line 12: from boost.metrics import metric: boost.metrics.metric computes (only facts: "
        "['higher_is_better', 'metric_name'])",
    ]
