"""The page's modules (viz/js/, viz.page_js) in Chromium: the Plotly internals that
plotly_patch.js relies on are there in the packaged plotly.min.js, and a player taken off the
page takes its window listeners and its ResizeObserver with it. Plus the modules' hygiene,
read from the files: one list, one job a file, imports only from the list, one global."""

import re

import numpy as np
import pandas as pd
import pytest
from datasets import make_data
from harness import module_page

import boost
from viz.page_js import JS_DIR, MODULES, loader
from viz.round_trace import round_trace

ROOT = JS_DIR.parents[1]


_page = module_page


# ------------------------------------------------------------------ Plotly's internals
_CHART = """async () => {
  const gd = document.getElementById('chart');
  const x = [0, 1, 2, 3, 4];
  await Plotly.react(gd, [
    {type: 'scatter', mode: 'markers', x, y: [1, 3, 2, 5, 4], name: 'data'},
    {type: 'scatter', mode: 'lines', x, y: [2, 3.1, 2.4, 3.9, 3], name: 'round 1'},
    {type: 'scatter', mode: 'lines', x, y: [0, 1, -1, 2, 2], name: 'tree 1', line: {shape: 'hv'},
     fill: 'tozeroy'},
  ], {title: {text: 'Fit after round 1'}, width: 600, height: 400, showlegend: true,
      shapes: [{type: 'line', xref: 'x', yref: 'paper', x0: 2, x1: 2, y0: 0, y1: 1}]});
  return window.patch.internalsMissing(gd);
}"""


def test_plotly_internals_are_where_plotly_patch_reads_them(browser, tmp_path):
    """A Plotly upgrade that moves any private field or SVG path plotly_patch.js relies on
    (gd._fullLayout and its _size and axes' c2p/_offset, gd._fullData, gd.calcdata, the nodes'
    __data__, the paths Plotly writes) fails here, naming it."""
    page = _page(browser, tmp_path, JS_DIR / "plotly_patch.js", "window.patch = entry;",
                 "<div id='chart'></div>")
    assert page.evaluate(_CHART) == []
    # and the check can fail: a chart whose internals are taken away is named for it
    missing = page.evaluate("""() => { const gd = document.getElementById('chart');
        gd.calcdata = undefined; delete gd._fullData;
        return window.patch.internalsMissing(gd); }""")
    assert "gd.calcdata" in missing and any("_fullData" in m for m in missing)
    assert not page.errors


# --------------------------------------------------------- a player removed from the page
@pytest.fixture(scope="module")
def trace():
    X, y = make_data(seed=5, n=120, n_features=2, constant_column=False)
    model = boost.train({"max_depth": 3, "eta": 0.3}, X, y, 6, evals=[(X, y, "train")])
    data = model.trace.rounds(X, y, np.arange(len(X)))
    return round_trace(data, model.loss_history(), model.metric_name, None, model.params,
                       model_key="m")


def _added(now: dict, before: dict) -> dict:
    """The listener types whose count changed, and by how much."""
    diff = {k: now.get(k, 0) - before.get(k, 0) for k in {*now, *before}}
    return {k: v for k, v in diff.items() if v}


def _window_listeners(page) -> dict:
    """The window's event listeners by type, as Chromium's DevTools count them."""
    cdp = page.context.new_cdp_session(page)
    win = cdp.send("Runtime.evaluate", {"expression": "window"})["result"]["objectId"]
    listeners = cdp.send("DOMDebugger.getEventListeners", {"objectId": win})["listeners"]
    out = {}
    for item in listeners:
        out[item["type"]] = out.get(item["type"], 0) + 1
    return out


_DRAWN = ("(n) => window.boostscopePlayer.players.length === n && window.boostscopePlayer"
          ".players.every(p => !p.drawing && p.root.querySelector('.bsp-tree-svg'))")


def test_a_removed_player_takes_its_listeners_and_observer(browser, trace, tmp_path):
    import json
    body = ("<div id='a'></div><div id='b'></div><div id='c'></div>"
            f"<script type='application/json' id='trace'>{json.dumps(trace)}</script>")
    page = _page(browser, tmp_path, JS_DIR / "streamlit_host.js",
                 "window.host = entry; window.player = await import(urls['player.js']);", body)
    before = _window_listeners(page)
    page.evaluate("""() => { const t = JSON.parse(document.getElementById('trace').textContent);
        for (const id of ['a', 'b']) window.player.mount(document.getElementById(id), t); }""")
    page.wait_for_function(_DRAWN, arg=2)
    two = _window_listeners(page)
    assert _added(two, before) == {"keydown": 2, "keyup": 2, "resize": 2}
    # a player whose element leaves the page (a rerun dropping it): gone, with its listeners
    page.evaluate("() => { window.removed = document.getElementById('a').boostscopePlayer;"
                  " document.getElementById('a').remove(); }")
    page.wait_for_function("() => window.boostscopePlayer.players.length === 1")
    assert page.evaluate("() => window.removed.destroyed") is True
    one = _window_listeners(page)
    assert _added(one, before) == {"keydown": 1, "keyup": 1, "resize": 1}
    # its observer is disconnected: growing the removed root lays nothing out again
    page.evaluate("""() => { window.boostscopePlayer.drawn.length = 0;
        document.body.appendChild(window.removed.root);
        window.removed.root.style.width = '700px'; }""")
    page.wait_for_timeout(300)
    assert page.evaluate("() => window.boostscopePlayer.drawn.length") == 0
    # the Streamlit host's clean-up (Streamlit calls it when the component leaves the page)
    cleanup = """() => { const t = document.getElementById('trace').textContent;
        window.cleanup = window.host.default({parentElement: document.getElementById('c'),
          setTriggerValue: () => {}, data: {id: JSON.parse(t).id, trace: t, goto: null,
          keys: true, plotly: ''}}); }"""
    page.evaluate(cleanup)
    page.wait_for_function(_DRAWN, arg=2)
    page.evaluate("() => { window.cleanup(); window.player.unmount(document.getElementById('b'));"
                  " }")
    assert page.evaluate("() => window.boostscopePlayer.players.length") == 0
    after = _window_listeners(page)
    assert _added(after, before) == {}
    assert page.evaluate("() => document.querySelectorAll('.bsp').length") == 1  # the moved one
    assert not page.errors


# ------------------------------------------------------------------------- the files
def test_one_list_names_every_module_and_each_stays_small():
    assert sorted(MODULES) == sorted(p.name for p in JS_DIR.glob("*.js"))
    assert len(set(MODULES)) == len(MODULES)
    for path in JS_DIR.glob("*.js"):
        lines = path.read_text(encoding="utf-8").count("\n")
        assert lines <= 800, (path.name, lines)
        assert path.read_text(encoding="utf-8").startswith("// "), path.name  # says its job


def test_every_host_loads_its_imports_from_the_list():
    """viz.page_js.loader refuses an import of a file outside MODULES or listed after the
    importer; every host the app and the offline files load passes."""
    for entry in (JS_DIR / "streamlit_host.js", JS_DIR / "offline_host.js",
                  ROOT / "ui" / "chart.js", ROOT / "ui" / "node_details.js"):
        assert "const modules" in loader(entry)


def test_one_global():
    """No module or component sets or reads a window property of its own but the documented
    window.boostscopePlayer (viz/js/registry.js); window.Plotly is Plotly.js's."""
    allowed = {"boostscopePlayer", "Plotly", "addEventListener", "removeEventListener",
               "dispatchEvent", "innerWidth", "innerHeight", "scrollY"}
    used = {}
    for path in [*JS_DIR.glob("*.js"), *(ROOT / "ui").glob("*.js")]:
        for name in re.findall(r"\bwindow\.(\w+)", path.read_text(encoding="utf-8")):
            if name not in allowed:
                used.setdefault(path.name, set()).add(name)
    assert not used, used


# --------------------------------------------------------------- the one rounding rule
# Values on every branch of boost/trace/rounding.py's rule: the four points' gains and
# similarities, ties on the binary value (55.125 is one, 2.675 lies below one), a carry into
# the next digit (999.996, 0.99999, 9.996e-06), thousands, tiny and huge values, signs.
ROUNDED_VALUES = [120.33333587646484, 14.083333333333334, 110.25, 4.0, 55.125, -10.5, 7.0,
                  -3.1500000953674316, 2.1, -2.25, 84.8, 0.30000001192092896, 140.16666,
                  0.0123456, 0.5, 0.125, -0.0625, 0.99999, 999.996, 1234.56, 27910.3,
                  -123456.7, 1e12, 2.675, 1.005, 5.96e-08, -9.996e-06, 0.00012345, 1e-300,
                  0.0, -0.0, float("nan"), float("inf"), float("-inf")]


def test_the_page_rounds_every_number_as_python_does(browser, tmp_path):
    """format.js's ``rounded`` writes each value as boost.trace.rounding.rounded does (the
    tree's labels and the node's box in the page, the lesson's text and the arithmetic in
    Python), including random values over many magnitudes."""
    from boost.trace.rounding import rounded

    rng = np.random.default_rng(8)
    values = ROUNDED_VALUES + list(rng.standard_normal(300) * 10.0 ** rng.integers(-7, 8, 300))
    page = _page(browser, tmp_path, JS_DIR / "format.js", "window.rounded = entry.rounded;")
    got = page.evaluate("(xs) => xs.map((x) => window.rounded(x))", [float(v) for v in values])
    want = [rounded(v) for v in values]
    assert got[:len(ROUNDED_VALUES)] == want[:len(ROUNDED_VALUES)]
    assert got == want
    assert not page.errors
    page.close()


def test_the_nodes_tables_write_minus_signs_as_the_lessons_do(browser, tmp_path):
    """node_view.js's ``tableElement`` on a node record's tables (its splits' labels written
    by Python with hyphen-minus: "f0 < -0.5"): every cell as viz.theme.signs writes its text
    (the lessons' rule) — a number's minus sign typographic, a name's hyphen ("age-5") and an
    exponent's (1e-05) kept."""
    from viz.theme import signs

    rng = np.random.default_rng(4)
    X = pd.DataFrame({"age-5": rng.normal(size=200), "tiny": rng.normal(size=200) * 1e-5})
    y = X["age-5"] * 3 - X["tiny"] * 1e5 + rng.normal(size=200)
    bst = boost.train({"max_depth": 2, "tree_method": "exact"}, X, y, 2)
    record = bst.trace.node_record(1, 0, X=X)
    labels = [row[0] for row in record["top"]["rows"]]
    assert any(re.search(r"< -\d", t) for t in labels), labels  # (the case this is about)
    page = _page(browser, tmp_path, JS_DIR / "node_view.js", "window.nodeView = entry;")
    got = page.evaluate("""(table) => [...window.nodeView.tableElement(table)
        .querySelectorAll('tbody tr')].map((tr) => tr.cells[0].textContent)""", record["top"])
    assert got == [signs(t) for t in labels]
    assert any("\u2212" in t for t in got) and any("age-5" in t for t in got)
    assert not page.errors
    page.close()
