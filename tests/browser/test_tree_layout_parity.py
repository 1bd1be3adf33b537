"""The tree's layout in the page (viz/js/tree_layout.js, labels.js, format.js) against its
source, viz/tree_layout.py, in Chromium, on golden trees grown by the engine: the page lays
trees out itself (its panel's width, window-scaled fonts, folding to the panel's height), so
each round's nodes, as the page decodes them from a real round trace (trace.js), go through
the page's functions with the inputs Python's ``plan_tree`` gets (width, fonts, margins),
and must come out where Python puts them: the same nodes in the same order, markers, labels
and edge labels at the same x and y, the same texts; every label format and edge format of
every node (``node_text``, ``edge_text``) and its hover text; the same folding to a height as
``viz.tree.tree_figure_within``; every node kind read by its name. One Chromium, one page."""

import base64

import numpy as np
import pandas as pd
import pytest
from datasets import make_data

import boost
from boost.trace.node_record import refused
from boost.trace.rounds import TREE_COLUMNS
from viz.page_js import JS_DIR, loader
from viz.round_trace import KINDS, round_trace, typed
from viz.tree import _hover, tree_figure_within
from viz.tree_layout import edge_text, label_font, marker_size, node_text, plan_tree, tree_margin

ATOL = 1e-9  # px and leaf slots: the same arithmetic in float64 on both sides
HIDDEN = 7  # a "+ N hidden" count the labels are also written with
# (width, large): the tree view's 820 px, a narrow panel (short formats, staggered rows), a
# projector's wide one with its larger fonts
SETTINGS = ((820, False), (360, False), (1460, True))
FOLD = 0.6  # folded to this fraction of the tree's unfolded height
# The trees table's columns the round trace holds as float32 ("sum_grad" is SumGrad)
FLOAT32 = tuple("".join(w.title() for w in name.split("_"))
                for name, dtype in TREE_COLUMNS if dtype is np.float32)


def _long_names(seed):
    X, y = make_data(seed=seed, n=300, n_features=4, constant_column=False)
    names = ["customer_lifetime_value_in_euros", "days since the last purchase of any kind",
             "sensor-x-coordinate-reading-raw-value", "a"]
    return pd.DataFrame(X, columns=names), y


def _full(seed):
    """A line over an even grid, and noise: each split halves its rows, depth 6 is full."""
    rng = np.random.default_rng(seed)
    x = np.linspace(-1.0, 1.0, 512)
    return np.c_[x, rng.normal(size=512)], 3 * x


def _data(seed, n_features, **kw):
    X, y = make_data(seed=seed, n=300, n_features=max(2, n_features), constant_column=False,
                     **kw)
    return X[:, :n_features], y


# name -> (params, data, rounds, classes drawn)
MODELS = {
    "exact_gamma": ({"tree_method": "exact", "max_depth": 5, "gamma": 20.0},
                    lambda: _data(3, 1), 4, 1),
    "hist_gamma": ({"tree_method": "hist", "max_depth": 4, "gamma": 8.0},
                   lambda: _data(3, 4), 3, 1),
    "approx_gamma": ({"tree_method": "approx", "max_depth": 4, "gamma": 8.0},
                     lambda: _data(3, 4), 2, 1),
    "hist_one_feature": ({"tree_method": "hist", "max_depth": 3}, lambda: _data(8, 1), 2, 1),
    "multi": ({"objective": "multi:softprob", "num_class": 3, "tree_method": "hist",
               "max_depth": 3, "gamma": 1.0},
              lambda: _data(7, 3, objective="multi:softprob"), 2, 3),
    "missing_hist": ({"tree_method": "hist", "max_depth": 3}, lambda: _data(6, 3, nan=0.2),
                     2, 1),
    "missing_exact": ({"tree_method": "exact", "max_depth": 3},
                      lambda: _data(9, 2, nan=0.3), 1, 1),
    "full64": ({"tree_method": "exact", "max_depth": 6, "lambda": 0.0}, lambda: _full(4), 1, 1),
    "lossguide": ({"tree_method": "hist", "grow_policy": "lossguide", "max_leaves": 9,
                   "max_depth": 0}, lambda: _data(4, 3), 2, 1),
    "single_leaf": ({"tree_method": "hist", "min_child_weight": 1e6},
                    lambda: _data(3, 3), 1, 1),
    "root_refused": ({"tree_method": "hist", "max_depth": 3, "gamma": 1e6},
                     lambda: _data(3, 3), 1, 1),
    "root_cut": ({"tree_method": "exact", "max_depth": 2, "gamma": 1e6},
                 lambda: _data(3, 2), 1, 1),
    "long_names": ({"tree_method": "hist", "max_depth": 3}, lambda: _long_names(5), 2, 1),
}

# The golden trees: (model, class, round)
GOLDEN = [("exact_gamma", 0, 1), ("exact_gamma", 0, 2), ("exact_gamma", 0, 4),
          ("hist_gamma", 0, 1), ("hist_gamma", 0, 3), ("approx_gamma", 0, 1),
          ("approx_gamma", 0, 2), ("hist_one_feature", 0, 1), ("hist_one_feature", 0, 2),
          ("multi", 0, 1), ("multi", 1, 1), ("multi", 2, 2), ("missing_hist", 0, 1),
          ("missing_hist", 0, 2), ("missing_exact", 0, 1), ("full64", 0, 1),
          ("lossguide", 0, 1), ("lossguide", 0, 2), ("single_leaf", 0, 1),
          ("root_refused", 0, 1), ("root_cut", 0, 1), ("long_names", 0, 1),
          ("long_names", 0, 2)]
# The trees also folded to a height (each builds Plotly figures: a few, to stay cheap)
FOLDED = {("exact_gamma", 0, 1), ("hist_gamma", 0, 1), ("multi", 1, 1), ("missing_hist", 0, 1),
          ("full64", 0, 1), ("lossguide", 0, 1), ("long_names", 0, 1)}


class Model:
    """A trained model: its trees table and one round trace per class drawn."""

    def __init__(self, name):
        params, data, rounds, classes = MODELS[name]
        X, y = data()
        self.booster = boost.train({"eta": 0.3, **params}, X, y, rounds)
        frame = pd.DataFrame(X) if not isinstance(X, pd.DataFrame) else X
        names = list(self.booster.feature_names)
        self.missing = sorted(n for n, col in zip(names, frame.columns, strict=True)
                              if frame[col].isna().any())
        rows = np.arange(len(X))
        self.traces = [round_trace(self.booster.trace.rounds(X, y, rows, k), None, "", None,
                                   self.booster.params, model_key=f"{name}-{k}",
                                   missing_features=self.missing)
                       for k in range(classes)]
        self.gamma = float(self.booster.params["gamma"])

    def tree(self, k, r) -> pd.DataFrame:
        f = self.booster.trace.trees()
        return f[(f.Round == r) & (f.Class == k)]


@pytest.fixture(scope="module")
def models():
    return {}


def _model(models, name) -> Model:
    if name not in models:
        models[name] = Model(name)
    return models[name]


_EXPOSE = "window.parity = Object.assign(window.parity || {{}}, {{ {name}: entry }});"

# A round's nodes as the page decodes them, laid out and labelled by the page's functions
_RUN = """({key, trace, r, settings, folds}) => {
  const P = window.parity;
  window.decoded = window.decoded || {};
  if (trace) window.decoded[key] = P.trace.decodeTrace(trace);
  const tree = window.decoded[key].tree;
  const nodes = P.trace.treeNodes(tree, r, 0);
  const mf = tree.missing_features ?? null;
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const out = { nodes: nodes.map((n) => ({ id: n.id, kind: n.kind, leaf: n.leaf,
    pruned: n.pruned, refused: n.kind === "refused" })) };
  out.texts = nodes.map((n) => [0, 7].flatMap((h) => [0, 1, 2, 3, 4].map(
    (f) => P.labels.nodeText(n, f, tree.gamma, h))));
  out.hover = nodes.map((n) => P.labels.hoverText(n, tree));
  out.edges = nodes.flatMap((n) => nodes.filter((c) => c.parent === n.id).map((c) => [n.id, c.id,
    [mf, null].flatMap((m) => [0, 1].map((f) => P.labels.edgeText(n, c.id, f, m)))]));
  const plain = (plan) => ({
    order: [...plan.label.keys()], x: [...plan.x.entries()], y: [...plan.y.entries()],
    label: [...plan.label.entries()], leaveY: [...plan.leaveY.entries()],
    edgeLabels: plan.edgeLabels, xRange: plan.xRange, slotPx: plan.slotPx,
    marker: plan.marker, height: plan.height, hidden: [...plan.hidden.entries()] });
  const opts = (s) => ({ gamma: tree.gamma, width: s.width, font: s.font, marker: s.marker,
    margin: s.margin, missingFeatures: mf });
  out.plans = settings.map((s) => plain(P.layout.planTree(nodes, new Set(), opts(s))));
  out.folds = folds.map(([s, h]) => plain(P.layout.foldToFit(nodes, opts(s), h)));
  return out;
}"""


@pytest.fixture(scope="module")
def page(browser, tmp_path_factory):
    """One page holding the layout's, the labels' and the trace's modules."""
    scripts = "".join(
        "<script type='module'>" + loader(JS_DIR / f"{module}.js", export_default=False)
        + _EXPOSE.format(name=name) + "</script>"
        for name, module in (("layout", "tree_layout"), ("labels", "labels"),
                             ("trace", "trace")))
    path = tmp_path_factory.mktemp("parity") / "parity.html"
    path.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>"
                    + scripts + "</body></html>", encoding="utf-8")
    page = browser.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    requests = []
    page.on("request", lambda q: requests.append(q.url)
            if not q.url.startswith(("file:", "blob:")) else None)
    page.goto(path.as_uri())
    page.wait_for_function("() => ['layout', 'labels', 'trace'].every("
                           "(k) => window.parity && window.parity[k])")
    page.loaded = set()
    yield page
    assert not requests and not page.errors
    page.close()


def _kind(row) -> str:
    """A node's kind from the trees table (docs/player.md's names)."""
    grown = not pd.isna(row.Yes)
    if row.Pruned:
        return "pruned_split" if grown else "pruned_leaf"
    if row.Feature == "Leaf":
        return "leaf"
    if not grown:
        return "refused"
    return "cut" if row.Leaf else "split"


def _setting(width, large):
    return {"width": width, "font": label_font(large), "marker": marker_size(large),
            "margin": tree_margin(large)}


def _same_plan(js: dict, plan, what: str):
    """The page's plan (JS) is Python's: nodes, order, positions, texts, scales, height."""
    assert js["order"] == list(plan.label), what
    for name, py in (("x", plan.x), ("y", plan.y), ("leaveY", plan.leave_y)):
        got = dict(js[name])
        assert sorted(got) == sorted(py), (what, name)
        np.testing.assert_allclose([got[n] for n in py], list(py.values()), rtol=0, atol=ATOL,
                                   err_msg=f"{what}: {name}")
    got = dict(js["label"])
    assert [got[n][2] for n in plan.label] == [t for _, _, t in plan.label.values()], what
    np.testing.assert_allclose([got[n][:2] for n in plan.label],
                               [v[:2] for v in plan.label.values()], rtol=0, atol=ATOL,
                               err_msg=f"{what}: label positions")
    assert [t for *_, t in js["edgeLabels"]] == [t for *_, t in plan.edge_labels], what
    if plan.edge_labels:
        np.testing.assert_allclose([e[:2] for e in js["edgeLabels"]],
                                   [e[:2] for e in plan.edge_labels], rtol=0, atol=ATOL,
                                   err_msg=f"{what}: edge label positions")
    np.testing.assert_allclose([*js["xRange"], js["slotPx"], js["marker"]],
                               [*plan.x_range, plan.slot_px, plan.marker], rtol=0, atol=ATOL,
                               err_msg=what)
    assert js["height"] == plan.height, what
    assert dict(js["hidden"]) == plan.hidden, what


@pytest.mark.parametrize("golden", GOLDEN, ids=[f"{m}-class{k}-round{r}" for m, k, r in GOLDEN])
def test_the_page_lays_the_tree_out_as_python(page, models, golden):
    name, k, r = golden
    model = _model(models, name)
    tree = model.tree(k, r)
    trace = model.traces[k]
    key = f"{name}-{k}"
    missing = set(trace["tree"]["missing_features"])
    plans = [plan_tree(tree, model.gamma, w, large, frozenset(), missing)
             for w, large in SETTINGS]
    fold_w, fold_large = SETTINGS[0]
    fold_h = int(plans[0].height * FOLD)
    got = page.evaluate(_RUN, {
        "key": key, "trace": None if key in page.loaded else trace, "r": r,
        "settings": [_setting(w, large) for w, large in SETTINGS],
        "folds": [[_setting(fold_w, fold_large), fold_h]] if golden in FOLDED else []})
    page.loaded.add(key)

    # the nodes, their kinds by name, and what the layout reads from a kind
    rows = {int(row.Node): row for row in tree.itertuples(index=False)}
    assert [n["id"] for n in got["nodes"]] == sorted(rows)
    for n in got["nodes"]:
        row = rows[n["id"]]
        assert n["kind"] == _kind(row), n
        assert n["pruned"] == bool(row.Pruned) and n["refused"] == bool(refused(row)), n
        if not row.Pruned:
            assert n["leaf"] == bool(row.Leaf), n

    # every label format, with and without "+ N hidden", and every edge's two formats
    want = [[node_text(rows[n["id"]], f, model.gamma, h) for h in (0, HIDDEN)
             for f in range(5)] for n in got["nodes"]]
    assert got["texts"] == want
    # the hover text's format, on the numbers as the page has them: the trace's float32 (the
    # table's sums are float64; rounded to 6 digits, one G of these trees reads differently)
    stored = [rows[n["id"]]._replace(**{c: float(np.float32(getattr(rows[n["id"]], c)))
                                        for c in FLOAT32 if c in tree}) for n in got["nodes"]]
    assert got["hover"] == [_hover(row, model.gamma, missing) for row in stored]
    edges = [[p, c, [edge_text(rows[p], c, f, m) for m in (missing, None) for f in (0, 1)]]
             for p, c, _ in got["edges"]]
    assert got["edges"] == edges
    n_edges = sum(1 for row in rows.values() if row.Parent >= 0)
    assert len(edges) == n_edges

    # the layout at each width and font, unfolded
    for (w, large), js, plan in zip(SETTINGS, got["plans"], plans, strict=True):
        _same_plan(js, plan, f"{w} px, large={large}")

    # folded ("+ N hidden") to a height, as tree_figure_within folds the figure
    if golden not in FOLDED:
        return
    fig = tree_figure_within(tree, fold_h, gamma=model.gamma, width=fold_w, large=fold_large,
                             missing_features=missing)
    (labels,) = [t for t in fig.data if t.name == "node labels"]
    (js,) = got["folds"]
    assert js["hidden"], "nothing folded"
    assert js["order"] == list(labels.customdata)
    got_labels = dict(js["label"])
    assert [got_labels[n][2] for n in labels.customdata] == list(labels.text)
    np.testing.assert_allclose([got_labels[n][:2] for n in labels.customdata],
                               np.c_[labels.x, labels.y], rtol=0, atol=ATOL)
    assert js["height"] == fig.layout.height


_PERMUTED = """({key, trace, permuted, rounds, setting}) => {
  const P = window.parity;
  window.decoded = window.decoded || {};
  if (trace) window.decoded[key] = P.trace.decodeTrace(trace);
  const other = P.trace.decodeTrace(permuted).tree;
  const tree = window.decoded[key].tree;
  const opts = { gamma: tree.gamma, ...setting, missingFeatures: tree.missing_features };
  const read = (t, r) => {
    const nodes = P.trace.treeNodes(t, r, 0);
    const plan = P.layout.planTree(nodes, new Set(), opts);
    return { nodes: nodes.map((n) => [n.id, n.kind, n.leaf, n.pruned]),
      labels: [...plan.label.entries()], edges: plan.edgeLabels, height: plan.height };
  };
  return rounds.map((r) => [read(tree, r), read(other, r)]);
}"""


def _permuted(trace: dict) -> dict:
    """The trace with its kinds listed in reverse order, each node's code renumbered: the same
    trees, if the page reads kinds by name."""
    track = trace["tree"]
    spec = track["kind"]
    codes = np.frombuffer(base64.b64decode(spec["b64"]), dtype=spec["dtype"])
    kinds = list(reversed(track["kinds"]))
    renumbered = np.array([kinds.index(track["kinds"][c]) for c in codes], dtype=np.uint8)
    return {**trace, "tree": {**track, "kinds": kinds, "kind": typed(renumbered)}}


def test_the_page_reads_kinds_by_name_and_the_golden_trees_hold_each(page, models):
    """Each kind of the trace is in a golden tree; with the kinds listed in another order
    (their codes renumbered) the page decodes the same nodes and lays them out the same."""
    seen, by_trace = set(), {}
    for name, k, r in GOLDEN:
        seen |= {_kind(row) for row in _model(models, name).tree(k, r).itertuples()}
        by_trace.setdefault((name, k), []).append(r)
    assert seen == set(KINDS)
    assert _model(models, "full64").tree(0, 1).Leaf.sum() == 64
    m = _model(models, "missing_hist")  # default directions named on the edges
    assert any("missing" in t for *_, t in plan_tree(
        m.tree(0, 1), m.gamma, 820, False, missing_features=set(m.missing)).edge_labels)
    for (name, k), rounds in by_trace.items():
        key = f"{name}-{k}"
        trace = _model(models, name).traces[k]
        assert trace["tree"]["kinds"] == list(KINDS)
        for plain, permuted in page.evaluate(_PERMUTED, {
                "key": key, "trace": None if key in page.loaded else trace,
                "permuted": _permuted(trace), "rounds": rounds,
                "setting": _setting(*SETTINGS[1])}):
            assert permuted == plain, (name, k)
        page.loaded.add(key)
