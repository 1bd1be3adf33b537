"""The round's player (viz/js/) in Chromium, from the offline file (file://, no server):
a real round trace (viz.round_trace.round_trace) stepped with the keys and played; the figure's
numbers are the trace's, the tree's labels are viz.tree_layout.node_text's, a node's click is
reported, and the page asks the network for nothing."""

import base64
import json
from types import SimpleNamespace

import numpy as np
import pytest
from datasets import make_data
from harness import ROOT, SHOTS, SMALLEST_FONT, open_file, presses_in_one_go
from playwright.sync_api import expect

import boost
from boost.trace.rounding import rounded
from boost.trace.rounds import ROUND_GRID
from viz.export import offline_html
from viz.fit import make_fit_figure
from viz.page_js import JS_DIR, loader
from viz.round_trace import _round_bytes, round_trace
from viz.tree_layout import node_text

ROUNDS = 30
READY = ("() => window.boostscopePlayer?.drawn.length > 0"
         " && !!document.querySelector('.bsp-tree .bsp-tree-svg')")
STATUS = ".bsp-status"


def _decode(spec: dict) -> np.ndarray:
    raw = base64.b64decode(spec["b64"])
    return np.frombuffer(raw, dtype=np.dtype(spec["dtype"]).newbyteorder("<")).reshape(
        spec["shape"])


def _model(method: str, n_features: int, gamma: float, classes: int = 0):
    X, y = make_data(seed=3, n=300, n_features=max(2, n_features), constant_column=False)
    X = X[:, :n_features]
    params = {"tree_method": method, "max_depth": 4, "gamma": gamma, "eta": 0.3}
    if classes:
        y = np.digitize(y, np.quantile(y, np.linspace(0, 1, classes + 1)[1:-1]))
        params.update(objective="multi:softprob", num_class=classes)
    model = boost.train(params, X, y, ROUNDS, evals=[(X, y, "train"), (X[::3], y[::3], "valid")])
    rows = np.arange(len(X))
    data = model.trace.rounds(X, y, rows)
    trace = round_trace(data, model.loss_history(), model.metric_name, None, model.params,
                        model_key=method, fill=True, large=True)
    return SimpleNamespace(model=model, X=X, y=y, rows=rows, trace=trace)


@pytest.fixture(scope="module")
def exact():
    """One feature (the fit is a curve), exact with γ: splits pruned to leaves and ghosts."""
    return _model("exact", 1, gamma=8.0)


@pytest.fixture(scope="module")
def hist():
    """Four features, hist with γ: splits refused before they were grown."""
    return _model("hist", 4, gamma=8.0)


@pytest.fixture(scope="module")
def surface():
    """Two features: the fit is a surface."""
    return _model("hist", 2, gamma=0.0)


@pytest.fixture(scope="module")
def multiclass():
    """Three classes on four features."""
    return _model("hist", 4, gamma=0.0, classes=3)


def _open(browser, case, tmp_path, name, width=1280, height=720):
    path = tmp_path / f"{name}.html"
    path.write_text(offline_html(case.trace, "BoostScope test"), encoding="utf-8")
    return open_file(browser, path, READY, width, height, timeout=20_000)


def _at_rest(page):
    """Every draw done and the round reported (~300 ms after the last step)."""
    page.wait_for_function("() => !window.boostscopePlayer.players[0].drawing")
    page.wait_for_timeout(450)


def _reports(page, name=None):
    reports = page.evaluate("() => window.boostscopePlayer.reports")
    return [r for r in reports if name is None or r["name"] == name]


def _row(track: dict, arrays: dict, j: int) -> SimpleNamespace:
    """Node j of the tree track as a row of trees_to_dataframe(include_pruned=True)."""
    kind, f = track["kinds"][int(arrays["kind"][j])], int(arrays["feature"][j])
    return SimpleNamespace(
        Feature=track["features"][f] if f >= 0 else "Leaf",
        Leaf=kind in ("leaf", "cut", "refused", "pruned_leaf"),
        Pruned=kind.startswith("pruned"),
        Yes=float(arrays["yes"][j]) if arrays["yes"][j] >= 0 else np.nan,
        Gain=float(arrays["gain"][j]), Split=float(arrays["split"][j]),
        Value=float(arrays["value"][j]), Weight=float(arrays["weight"][j]))


def _expected_labels(trace: dict, r: int, fmt: int) -> list[dict]:
    track = trace["tree"]
    arrays = {k: _decode(track[k]) for k in ("kind", "feature", "yes", "gain", "split", "value",
                                             "weight", "node", "offsets")}
    lo = trace["window"][0]
    a, b = arrays["offsets"][r - lo], arrays["offsets"][r - lo + 1]
    return [{"node": int(arrays["node"][j]),
             "text": node_text(_row(track, arrays, j), fmt, track["gamma"])}
            for j in range(a, b)]


def test_keys_step_and_the_figure_is_the_rounds(browser, exact, tmp_path):
    page = _open(browser, exact, tmp_path, "keys")
    presses_in_one_go(page, "ArrowRight", 10)  # (one by one, a busy machine rests between)
    _at_rest(page)
    assert page.inner_text(STATUS).startswith(f"Round 10 of {ROUNDS}")
    # ten steps, one report, at rest
    assert _reports(page) == [{"name": "round", "value": {"round": 10}}]
    timings = page.evaluate("() => window.boostscopePlayer.timings")
    assert len([t for t in timings if t["gesture"] == "step"]) == 10
    # the fit is make_fit_figure's of round 10
    m = exact
    want = make_fit_figure(m.model.trace.fit(m.X, m.y, 10, m.rows, grid=ROUND_GRID))
    got = page.evaluate("""() => document.querySelector('.bsp-fit .js-plotly-plot').data.map(
        t => ({name: t.name, y: Array.from(t.y ?? []), visible: t.visible}))""")
    for k in (1, 2, 3):  # round 9, round 10, tree 10 alone
        assert got[k]["name"] == want.data[k].name
        np.testing.assert_array_equal(np.float32(got[k]["y"]), np.float32(want.data[k].y))
    title = page.evaluate("() => document.querySelector('.bsp-fit .js-plotly-plot')"
                          ".layout.title.text")
    assert title == want.layout.title.text == "Fit after round 10"
    # the loss chart's marker sits on round 10's loss
    history = m.model.loss_history()
    marker = page.evaluate("() => document.querySelector('.bsp-loss .js-plotly-plot').data[1]")
    assert marker["x"] == [10]
    assert np.isclose(marker["y"][0], history.iloc[10, 0])
    assert page.evaluate("() => document.querySelector('input[type=range]').value") == "10"
    assert not page.errors
    assert all(u.startswith(("file:", "data:")) for u in page.requests), page.requests


def test_home_end_space_and_play_to_the_end(browser, exact, tmp_path):
    page = _open(browser, exact, tmp_path, "play")
    page.keyboard.press("End")
    _at_rest(page)
    assert page.inner_text(STATUS).startswith(f"Round {ROUNDS} of")
    page.keyboard.press("Home")
    _at_rest(page)
    assert page.inner_text(STATUS).startswith("Round 0 of")
    # the speed chosen in its dropdown; the keys still step afterwards
    page.select_option(".bsp-bar select", "30")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    _at_rest(page)
    assert page.inner_text(STATUS).startswith("Round 0 of")
    page.evaluate("() => { window.boostscopePlayer.drawn = []; "
                  "window.boostscopePlayer.reports.length = 0; }")
    page.keyboard.press("Space")
    page.wait_for_function("() => !window.boostscopePlayer.players[0].playing", timeout=20_000)
    _at_rest(page)
    drawn = page.evaluate("() => window.boostscopePlayer.drawn")
    assert drawn[-1] == ROUNDS
    # every round drawn, in order, none skipped (a round may be drawn twice, never jumped)
    steps = np.diff(drawn)
    assert set(steps.tolist()) <= {0, 1}, drawn
    assert sorted(set(drawn)) == list(range(drawn[0], ROUNDS + 1)) and drawn[0] <= 1
    assert page.inner_text(STATUS).startswith(f"Round {ROUNDS} of")
    assert _reports(page) == [{"name": "round", "value": {"round": ROUNDS}}]
    # Space pauses a Play
    page.keyboard.press("Home")
    page.keyboard.press("Space")
    page.wait_for_timeout(150)
    page.keyboard.press("Space")
    _at_rest(page)
    assert not page.evaluate("() => window.boostscopePlayer.players[0].playing")
    stopped = page.evaluate("() => window.boostscopePlayer.players[0].r")
    assert 0 < stopped < ROUNDS
    assert _reports(page)[-1] == {"name": "round", "value": {"round": stopped}}
    assert not page.errors
    assert all(u.startswith(("file:", "data:")) for u in page.requests), page.requests


# Names as spreadsheets have them: two lines broken after a space or "_", or cut with "…"
LONG_NAMES = ["worst concave points", "flipper_length_mm_and_more_words",
              "abcdefghijklmnopqrstuvwxyz0123456789", "x"]


@pytest.mark.parametrize("which", ["exact", "hist", "long names"])
def test_tree_labels_are_node_text(browser, which, request, tmp_path):
    case = request.getfixturevalue("exact" if which == "exact" else "hist")
    if which == "long names":
        tree = {**case.trace["tree"], "features": LONG_NAMES}
        case = SimpleNamespace(trace={**case.trace, "tree": tree})
    names = case.trace["tree"]["kinds"]
    kinds = {names[k] for k in _decode(case.trace["tree"]["kind"]).tolist()}
    # the models hold what γ does: ghosts and cuts (exact), refused splits (hist)
    assert kinds >= ({"split", "leaf", "cut", "pruned_split", "pruned_leaf"} if which == "exact"
                     else {"split", "leaf", "refused"})
    page = _open(browser, case, tmp_path, which.replace(" ", "_"))
    got = page.evaluate("""(n) => { const out = [];
        for (let r = 1; r <= n; r++) for (let f = 0; f <= 4; f++)
          out.push(window.boostscopePlayer.labels(r, f));
        return out; }""", ROUNDS)
    want = [_expected_labels(case.trace, r, f) for r in range(1, ROUNDS + 1) for f in range(5)]
    assert got == want
    assert not page.errors


def test_a_node_click_is_reported_and_shown(browser, exact, tmp_path):
    page = _open(browser, exact, tmp_path, "click")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    _at_rest(page)
    box = page.evaluate("() => window.boostscopePlayer.nodeCenter(0)")
    page.mouse.click(box["x"], box["y"])
    info = page.locator(".bsp-tree .bsp-info")
    info.wait_for(state="visible")
    assert _reports(page, "node") == [{"name": "node", "value": {"round": 3, "node": 0}}]
    track = exact.trace["tree"]
    start = int(_decode(track["offsets"])[3])
    g = float(_decode(track["sum_grad"])[start])
    gain = float(_decode(track["gain"])[start])
    text = info.inner_text()
    assert "node 0 (depth 0)" in text
    assert f"G = {rounded(g)}" in text and f"gain = {rounded(gain)}" in text
    # the selection ring is drawn, and follows the node to the next round
    page.keyboard.press("ArrowRight")
    _at_rest(page)
    assert "node 0" in info.inner_text()
    ring = page.locator(".bsp-tree .bsp-selected")
    expect(ring).to_have_count(1)
    center = page.evaluate("() => window.boostscopePlayer.nodeCenter(0)")
    ring_box = ring.bounding_box()
    assert abs(ring_box["x"] + ring_box["width"] / 2 - center["x"]) < 1.5
    assert abs(ring_box["y"] + ring_box["height"] / 2 - center["y"]) < 1.5
    # another node of the same tree, then none (the box's close button): the ring is moved in
    # place, and the tree is what a fresh draw of it with that selection writes
    for press in ("() => window.boostscopePlayer.nodeCenter(1)", None):
        page.evaluate("() => { window.treeSvg = document.querySelector('.bsp-tree svg'); }")
        if press:
            c = page.evaluate(press)
            page.mouse.click(c["x"], c["y"])
        else:
            page.locator(".bsp-tree .bsp-info button").click()
        _at_rest(page)
        in_place, fresh, svg_kept = page.evaluate(_TREE_AFRESH)
        assert svg_kept, "the tree was drawn anew, not its ring moved"
        assert in_place == fresh
    expect(ring).to_have_count(0)
    expect(info).to_be_hidden()
    assert not page.errors


# The tree panel as drawn in place, then drawn afresh (its round and selection); and whether
# the in-place one was still the SVG element before the press (window.treeSvg).
_TREE_AFRESH = """() => {
    const p = window.boostscopePlayer.players[0];
    const t = p.panels.find((x) => x.name === 'tree');
    const svg = t.plot.querySelector('svg');
    const kept = svg === window.treeSvg;
    const inPlace = t.plot.innerHTML;
    t.drawnKey = null;
    t.treeKey = null;
    t.draw(p.r, p.layoutKey);
    return [inPlace, t.plot.innerHTML, kept];
}"""


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_screenshots(browser, exact, tmp_path, size):
    width, height = size
    page = _open(browser, exact, tmp_path, f"shot{width}", width, height)
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    _at_rest(page)
    box = page.evaluate("() => window.boostscopePlayer.nodeCenter(1)")
    page.mouse.click(box["x"], box["y"])
    _at_rest(page)
    page.mouse.move(2, height - 2)
    page.wait_for_timeout(400)
    smallest, text = page.evaluate(SMALLEST_FONT)
    assert smallest >= 16, f"{smallest} px: {text!r}"  # `large` at 1280x720
    out = SHOTS / "player"
    out.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out / f"player_{width}x{height}.png"))
    # the player fills the window and nothing of it reaches out; the clicked node's details
    # (from the file's records) follow below it
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    player, details = page.evaluate("""() => [
        document.querySelector('[data-testid="boostscope-player"]').getBoundingClientRect(),
        document.querySelector('[data-testid="boostscope-node"]').getBoundingClientRect()]""")
    assert player["bottom"] <= height + 1 and details["top"] >= player["bottom"] - 1
    # (this file holds the rounds alone, no node records: the node says where to see them)
    expect(page.locator('[data-testid="boostscope-node"]')).to_contain_text(
        "open the model in the app")
    assert not page.errors


# [left, top, right, bottom] of the tree panel, its title and each line of round 0's note
# ([text, font px, box]); the player's label font; and whether the transport's controls sit
# in one line inside the bar (every control's top above the first one's bottom), with the
# slider's width
ROUND0 = """() => {
  const p = window.boostscopePlayer.players[0];
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const tree = p.root.querySelector('.bsp-tree');
  const notes = [...tree.querySelectorAll('text.bsp-note')].map(
    (t) => [t.textContent, parseFloat(t.getAttribute('font-size')), box(t)]);
  return {panel: box(tree), title: box(tree.querySelector('text.bsp-title')), notes,
          label: p.fonts.label};
}"""
BAR_LINE = """() => {
  const p = window.boostscopePlayer.players[0];
  const bar = p.root.querySelector('.bsp-bar').getBoundingClientRect();
  const kids = [...p.root.querySelectorAll('.bsp-bar > *')].map((c) => c.getBoundingClientRect());
  return {oneLine: kids.every((r) => r.top < kids[0].bottom - 1),
          inside: kids.every((r) => r.left >= bar.left - 1 && r.right <= bar.right + 1),
          slider: p.slider.getBoundingClientRect().width, width: bar.width,
          font: parseFloat(p.root.style.fontSize)};
}"""


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (3840, 2160)])
def test_round_0_and_the_transport_at_a_projectors_sizes(browser, exact, tmp_path, size):
    """Round 0's tree panel, which has no tree, says where every row starts (the model's
    base_score by the rule of every number shown) and what → does, centred in the panel at
    the labels' size or larger (it was a title over an empty box). The transport stays one
    line, full width and at half width beside a lesson's text (at 3840×2160 the speed list
    wrapped to a second line: the type grows with the window, not with the player)."""
    width, height = size
    page = _open(browser, exact, tmp_path, f"round0_{width}", width, height)
    _at_rest(page)
    assert page.inner_text(STATUS).startswith(f"Round 0 of {ROUNDS}")
    got = page.evaluate(ROUND0)
    texts = [text for text, _, _ in got["notes"]]
    base = rounded(float(exact.model.base_score[0])).replace("-", "\u2212")
    assert f"base_score = {base}" in texts, texts
    assert any(t.startswith("→ or Step grows round 1's tree") for t in texts), texts
    left, top, right, bottom = got["panel"]
    lines = [b for _, _, b in got["notes"]]
    for text, px, (x0, y0, x1, y1) in got["notes"]:
        assert px >= got["label"], (text, px, got["label"])
        assert x0 >= left and x1 <= right and y0 >= got["title"][3] and y1 <= bottom, text
        assert abs((x0 + x1) / 2 - (left + right) / 2) <= 2, text  # centred across
    middle = (min(t for _, t, _, _ in lines) + max(b for _, _, _, b in lines)) / 2
    assert abs(middle - (got["title"][3] + bottom) / 2) <= 0.05 * (bottom - top)
    out = SHOTS / "player"
    out.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out / f"round0_{width}x{height}.png"))
    # the transport: the window's width, then half of it (a lesson's player: its tree beside
    # the lesson's own chart)
    for share in (1, 0.48):
        if share < 1:
            page.evaluate("""(t) => { const p = window.boostscopePlayer.players[0];
                p.load({...t, id: `${t.id}:tree`, panels: ['tree']}, null); }""", exact.trace)
        page.evaluate("(s) => { window.boostscopePlayer.players[0].element.style.width ="
                      " `${s * 100}%`; }", share)
        page.wait_for_function("(w) => Math.abs(window.boostscopePlayer.players[0].root"
                               ".clientWidth - w) < 40", arg=share * width - 28)
        _at_rest(page)
        bar = page.evaluate(BAR_LINE)
        assert bar["oneLine"] and bar["inside"], (share, bar)
        assert bar["slider"] >= 5 * bar["font"], (share, bar)  # a slider a hand can drag
    page.screenshot(path=str(out / f"half_{width}x{height}.png"))
    assert not page.errors


# ------------------------------------------------------------------- the host's reruns
_PLOTS = "[...document.querySelectorAll('.bsp-panel .js-plotly-plot')]"
_COUNT_DRAWS = f"""() => {{ window.plotDraws = 0;
    for (const gd of {_PLOTS}) gd.on('plotly_afterplot', () => window.plotDraws++); }}"""


def test_a_new_trace_at_the_same_size_is_laid_out_and_drawn(browser, exact, hist, tmp_path):
    """An upload's new model: a second trace in the same window (layout() once returned
    early, the new panels had no size and the tree's draw threw)."""
    page = _open(browser, exact, tmp_path, "second")
    page.evaluate("""(trace) => { const p = window.boostscopePlayer.players[0];
        window.boostscopePlayer.drawn.length = 0; p.load(trace, null); }""", hist.trace)
    page.wait_for_function("() => window.boostscopePlayer.drawn.length > 0"
                           " && !window.boostscopePlayer.players[0].drawing")
    page.keyboard.press("ArrowRight")  # round 0 has no tree
    _at_rest(page)
    sizes = page.evaluate("() => window.boostscopePlayer.players[0].panels.map("
                          "p => [p.name, p.size?.width ?? null])")
    assert [n for n, _ in sizes] == ["fit", "loss", "tree"] and all(w for _, w in sizes), sizes
    labels = page.locator(".bsp-tree text.bsp-label")
    assert labels.count() == len(page.evaluate("() => window.boostscopePlayer.labels(1, 0)"))
    assert page.evaluate("() => window.boostscopePlayer.players[0].trace.id") == hist.trace["id"]
    assert not page.errors


def test_a_rerun_with_the_same_trace_and_token_redraws_nothing(browser, exact, tmp_path):
    """The host's fragment reruns (a node click, a rest report): the same trace and goto
    token are sent again, and nothing is drawn again."""
    page = _open(browser, exact, tmp_path, "rerun")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    _at_rest(page)
    page.evaluate(_COUNT_DRAWS)
    drawn = page.evaluate("() => window.boostscopePlayer.drawn.length")
    page.evaluate("(trace) => window.boostscopePlayer.players[0].load(trace, null)",
                  exact.trace)  # the same id and token as the page opened with
    page.wait_for_timeout(600)
    assert page.evaluate("() => window.plotDraws") == 0
    assert page.evaluate("() => window.boostscopePlayer.drawn.length") == drawn
    assert page.inner_text(STATUS).startswith("Round 3 of")  # not pulled back to the goto
    # a new token is obeyed (and drawn)
    page.evaluate("""(trace) => window.boostscopePlayer.players[0].load(
        {...trace, goto: {round: 5, node: null, token: 99}}, null)""", exact.trace)
    _at_rest(page)
    assert page.inner_text(STATUS).startswith("Round 5 of")
    assert page.evaluate("() => window.boostscopePlayer.drawn.length") > drawn
    assert page.locator(".bsp-tree .bsp-title").text_content() == "Tree of round 5"
    assert not page.errors


def test_hidden_then_shown_again_without_errors(browser, exact, tmp_path):
    """A player hidden (a tab switched) while the window resizes: no draw or resize of a
    plot that is not displayed; shown again, it is laid out at the new size."""
    page = _open(browser, exact, tmp_path, "hidden")
    page.evaluate("() => { window.boostscopePlayer.players[0].root.style.display = 'none'; }")
    page.set_viewport_size({"width": 1100, "height": 700})
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(500)
    page.evaluate("() => { window.boostscopePlayer.players[0].root.style.display = ''; }")
    page.wait_for_timeout(300)
    _at_rest(page)
    width = page.evaluate("() => Number(document.querySelector('.bsp-tree .bsp-tree-svg')"
                          ".getAttribute('width'))")
    assert width == page.evaluate("() => window.boostscopePlayer.players[0].panels.find("
                                  "p => p.name === 'tree').size.width")
    assert page.inner_text(STATUS).startswith("Round 1 of")
    assert not page.errors


def test_a_hidden_chart_is_not_resized(browser, tmp_path):
    """ui/chart.js (the app's charts): its ResizeObserver fires when the chart is hidden or
    removed; Plotly's resize of a plot not displayed throws ("Resize must be passed a
    displayed plot div element")."""
    import plotly.offline

    # ui/chart.js as the app loads it (with the page modules it imports); `entry` is the
    # loader's binding of chart.js's namespace
    chart_js = loader(ROOT / "ui" / "chart.js", export_default=False)
    path = tmp_path / "chart.html"
    path.write_text("<!DOCTYPE html><html><body><div id='host'></div><script>"
                    + plotly.offline.get_plotlyjs() + "</script><script type='module'>"
                    + chart_js + "window.chartComponent = entry.default;\n"
                    + "</script></body></html>", encoding="utf-8")
    page = browser.new_page(viewport={"width": 900, "height": 600})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(path.as_uri())
    page.wait_for_function("() => !!window.chartComponent")
    page.evaluate("""() => window.chartComponent({parentElement: document.getElementById('host'),
        setTriggerValue: () => {}, data: {height: 300, plotly: '', config: {}, select: false,
        figure: JSON.stringify({data: [{type: 'scatter', y: [1, 3, 2]}], layout: {}})}})""")
    page.wait_for_function("() => !!document.querySelector('.boostscope-chart .main-svg')")
    page.evaluate("() => { document.getElementById('host').style.display = 'none'; }")
    page.wait_for_timeout(300)
    page.evaluate("() => { document.getElementById('host').style.display = '';"
                  " document.getElementById('host').style.width = '500px'; }")
    page.wait_for_timeout(300)
    page.evaluate("() => document.getElementById('host').remove()")
    page.wait_for_timeout(300)
    assert not errors


# Every round drawn in place (Plotly's SVG moved: ``plotly_patch.moveInPlace``) against the
# same round's figure drawn afresh (the chart purged, then Plotly.newPlot of the player's
# figure for the round, with the axes and margins the player froze at this size):
# the points, lines and fills Plotly wrote, the shapes, the texts, the traces' data, and
# every legend text inside its legend. Returns [round, panel, what differs] of each miss.
_FRAME_TRUTH = r"""async (args) => {
  // Every round drawn in place, then the same round drawn afresh (Plotly.purge, then the
  // player's first draw at this size): what Plotly wrote must be the same.
  const [first, last] = args;
  const p = window.boostscopePlayer.players[0];
  const rest = () => new Promise((done) => {
    const check = () => (p.drawing || p.dirty ? requestAnimationFrame(check) : done());
    requestAnimationFrame(check);
  });
  const svg = () => {
    const out = {};
    for (const panel of p.panels) {
      if (panel.name === 'tree') continue;
      const gd = panel.plot;
      out[panel.name] = {
        traces: [...gd.querySelectorAll('.scatterlayer .trace')].map((g) =>
          [...g.querySelectorAll('path.point')].map((e) => e.getAttribute('transform'))
            .concat([...g.querySelectorAll('path.js-line, path.js-fill, path.js-tonext')]
              .map((e) => e.getAttribute('class') + ' ' + e.getAttribute('d')))),
        shapes: [...gd.querySelectorAll('.shapelayer path')].map((e) => e.getAttribute('d')),
        // (a title and a legend drawn in another order are the same picture)
        texts: [...gd.querySelectorAll('.legendtext, .gtitle, .xtitle, .ytitle')]
          .map((e) => e.textContent).sort(),
        data: gd.data.map((t) => [t.name, Array.from(t.x ?? []), Array.from(t.y ?? [])]),
        // each legend text inside the legend's box (not cut by its clip)
        legend: [...gd.querySelectorAll('.legend')].map((leg) => {
          const bg = leg.querySelector('.bg').getBoundingClientRect();
          return [...leg.querySelectorAll('.legendtext')].every((t) => {
            const r = t.getBoundingClientRect();
            return r.right <= bg.right + 1 && r.left >= bg.left - 1;
          });
        }),
      };
    }
    return out;
  };
  // Two drawings' strings the same but for coordinates within half a pixel (the first round
  // out of round 0 is Plotly.react's, which keeps the legend's earlier push on the margins:
  // about 0.1 px off a new plot; a stale or wrong shape is off by many pixels).
  const NUM = /-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/g;
  const close = (a, b) => {
    if (typeof a !== 'string' || typeof b !== 'string') {
      return Array.isArray(a) && Array.isArray(b) ? a.length === b.length
        && a.every((x, i) => close(x, b[i])) : JSON.stringify(a) === JSON.stringify(b);
    }
    const na = a.match(NUM) || [], nb = b.match(NUM) || [];
    return a.replace(NUM, '#') === b.replace(NUM, '#') && na.length === nb.length
      && na.every((x, i) => Math.abs(Number(x) - Number(nb[i])) <= 0.5);
  };
  const wrong = [];
  // the step out of round 0: a chart with a trace shown from round 1 on has drawn round 1
  // ahead at rest (chart_panel.drawAhead), and the step swaps it in; counted
  const showsAt1 = (x) => (x.chart?.spec.shown || []).some((s) => s.from === 1);
  let [ahead, swapped] = [p.panels.filter(showsAt1).length, 0];
  for (let r = first; r <= last; r++) {
    if (r === 1 && first === 0) {
      for (let k = 0; k < 200 && p.panels.some((x) => showsAt1(x) && !x.ahead); k++) {
        await new Promise((done) => setTimeout(done, 25));
      }
      const before = p.panels.map((x) => x.plot);
      p.go(r, null, 'trace');
      await rest();
      swapped = p.panels.filter((x, i) => showsAt1(x) && x.plot !== before[i]).length;
    }
    p.go(r, null, 'trace');
    await rest();
    const inPlace = svg();
    for (const panel of p.panels) {  // the same figure, its axes and margins as frozen
      if (panel.name === 'tree') continue;
      window.Plotly.purge(panel.plot);
      await window.Plotly.newPlot(panel.plot, panel.figure.data, panel.figure.layout,
                                  {displaylogo: false, responsive: false});
    }
    const fresh = svg();
    for (const name of Object.keys(fresh)) {
      for (const part of Object.keys(fresh[name])) {
        const same = ['traces', 'shapes'].includes(part)
          ? close(inPlace[name][part], fresh[name][part])
          : JSON.stringify(inPlace[name][part]) === JSON.stringify(fresh[name][part]);
        if (!same) {
          wrong.push([r, name, part]);
        }
      }
      if (fresh[name].legend.some((ok) => !ok) || inPlace[name].legend.some((ok) => !ok)) {
        wrong.push([r, name, 'legend cut']);
      }
    }
  }
  return { wrong, ahead, swapped };
}"""


@pytest.mark.parametrize("which", ["exact", "hist", "multiclass", "surface"])
def test_every_round_drawn_in_place_is_a_fresh_draw(browser, which, request, tmp_path):
    """Frame truth: a curve with its band (exact, one feature), rows (hist, four features),
    a surface (two features), three classes, and the loss chart beside each, stepped through
    every round in place and compared with a fresh draw of each round."""
    case = request.getfixturevalue(which)
    page = _open(browser, case, tmp_path, f"truth-{which}")
    truth = page.evaluate(_FRAME_TRUTH, [0, ROUNDS])
    assert truth["wrong"] == [], truth["wrong"][:20]
    # every chart that shows a trace from round 1 on stepped out of round 0 by its drawing ahead
    assert truth["swapped"] == truth["ahead"], truth
    if which in ("multiclass", "surface"):  # the check reads a curve's or rows' one y a point
        page.close()
        return
    # hover reads the round's values: Plotly's calcdata moved with the points in place
    page.keyboard.press("ArrowLeft")
    _at_rest(page)
    assert page.evaluate("() => window.boostscopePlayer.drawMs.fit") is not None
    same = page.evaluate("""() => {
        const gd = document.querySelector('.bsp-fit .js-plotly-plot');
        return gd.calcdata.every(cd => cd.every((d, k) => {
          const y = gd.data[cd[0].trace.index].y; return !y || !ArrayBuffer.isView(y)
            || Object.is(Math.fround(d.y), Math.fround(y[k]))
            || (isNaN(d.y) && isNaN(y[k])); })); }""")
    assert same
    assert not page.errors
    page.close()


# ------------------------------------------------------------------ windows of rounds
# A host that sends the window of rounds around a round the page reports outside its own
# (as the app does for a model beyond the trace's budget), a moment later.
_WINDOWS_HOST = """
window.boostscopePlayer.reports = [];
const all = JSON.parse(document.getElementById("windows").textContent);
const host = document.getElementById("player");
const report = (name, value) => {
  window.boostscopePlayer.reports.push({name, value});
  const next = all.find(t => t.window[0] <= value.round && value.round <= t.window[1]);
  if (name === "round" && next.id !== host.boostscopePlayer.trace.id) {
    setTimeout(() => mount(host, next, {fetches: true, report}), 150);
  }
};
mount(host, all[0], {fetches: true, report});
"""


def test_rounds_beyond_the_window_are_asked_for_and_drawn(browser, exact, tmp_path):
    m = exact
    data = m.model.trace.rounds(m.X, m.y, m.rows)
    budget = 10.5 * _round_bytes(data)  # ten rounds a trace
    traces = [round_trace(data, m.model.loss_history(), m.model.metric_name, None,
                          m.model.params, model_key="w", fill=True, large=True, around=a,
                          budget=budget) for a in (0, 10, 20, 30)]
    assert [t["window"] for t in traces] == [[0, 9], [5, 14], [15, 24], [21, 30]]
    html = offline_html(traces[0], "windows")
    start = html.index('<script type="module">') + len('<script type="module">')
    host = loader(JS_DIR / "player.js", export_default=False) + "const { mount } = entry;\n"
    html = (html[:start] + host + _WINDOWS_HOST + html[html.index("</script></body>"):]).replace(
        '<body><div id="player"></div>', '<body><div id="player"></div>'
        f'<script type="application/json" id="windows">{json.dumps(traces)}</script>')
    path = tmp_path / "windows.html"
    path.write_text(html, encoding="utf-8")
    page = open_file(browser, path, READY, 1280, 720, timeout=20_000)
    player = "window.boostscopePlayer.players[0]"
    assert page.evaluate(f"() => [{player}.slider.min, {player}.slider.max]") == ["0", "30"]
    # End: round 30 is outside [0, 9]; the page asks at once and draws it when it comes
    page.keyboard.press("End")
    page.wait_for_function(f"() => {player}.trace.window[1] === 30 && !{player}.drawing")
    _at_rest(page)
    assert page.inner_text(STATUS).startswith(f"Round 30 of {ROUNDS}")
    assert page.text_content(".bsp-tree .bsp-title") == "Tree of round 30"
    assert _reports(page) == [{"name": "round", "value": {"round": 30}}]
    # Play from round 3 runs through every window without skipping a round
    page.evaluate(f"() => {player}.go(3, null, 'trace')")
    # (round 3 is outside [21, 30]: drawn once its window has come, however long that takes)
    page.wait_for_function(f"() => {player}.fetching === null && {player}.trace.window[0] === 0"
                           f" && !{player}.drawing && window.boostscopePlayer.drawn.at(-1) === 3")
    _at_rest(page)
    page.evaluate("() => { window.boostscopePlayer.drawn.length = 0; }")
    page.select_option(".bsp-bar select", "30")
    page.keyboard.press("Space")
    page.wait_for_function(f"() => !{player}.playing", timeout=60_000)
    _at_rest(page)
    drawn = page.evaluate("() => window.boostscopePlayer.drawn")
    assert drawn == list(range(4, ROUNDS + 1)), drawn
    assert not page.evaluate(f"() => {player}.root.classList.contains('bsp-loading')")
    assert not page.errors
