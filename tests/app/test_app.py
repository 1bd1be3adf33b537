"""The app's flows with Streamlit's AppTest (no browser)."""


import json

import numpy as np
import pytest
from apptest import (  # noqa: F401  (clear_caches: autouse)
    APP,
    charts,
    clear_caches,
    formulas,
    node_record,
    node_table,
    open_app,
    player,
    player_data,
    rest_on,
    status,
)

from boost import runtime
from ui import training
from ui.views import LEGACY, VIEWS

_app = open_app




def test_sample_opens_at_the_baseline():
    at = _app()
    assert status(at).startswith("Round 0 of 20")
    assert at.selectbox(key="target").value == "y"
    trace = player(at)
    assert trace["rounds"] == 20 and trace["goto"]["round"] == 0
    assert trace["fit"] is not None and trace["loss"] is not None and trace["tree"] is not None
    assert not at.error


def test_a_trace_the_page_holds_is_named_not_sent_again():
    at = _app()
    sent = player_data(at)
    assert isinstance(sent["trace"], str) and json.loads(sent["trace"])["id"] == sent["id"]
    # the page reports (a round at rest) saying it holds the trace: later runs name it
    at.session_state["app"].stage.page_holds(sent["id"])
    rest_on(at, 3)
    again = player_data(at)
    assert again["trace"] is None and again["id"] == sent["id"]
    assert again["goto"]["token"] == sent["goto"]["token"]  # at rest: the page is there already
    assert player(at)["rounds"] == 20
    # a page that lost it (asked with "need"): the next run sends it again
    at.session_state["app"].stage.page_holds(sent["id"], False)
    assert player_data(at.run())["trace"] == sent["trace"]
    # another model is another trace: sent whole, whatever the page held
    at.session_state["app"].stage.page_holds(sent["id"])
    at.slider(key="p_eta").set_value(0.05).run()
    other = player_data(at)
    assert other["id"] != sent["id"] and isinstance(other["trace"], str)


def test_a_model_beyond_the_budget_is_sent_in_windows_that_follow_the_page(monkeypatch):
    import viz.round_trace
    from boost.trace.cache import ByteCache
    from ui.stage import _rounds
    from viz.round_trace import _round_bytes

    at = _app(rounds="60")
    model = at.session_state["app"].model.last_good
    data = _rounds(model, 0)
    monkeypatch.setattr(viz.round_trace, "BUDGET_BYTES", 10.5 * _round_bytes(data))  # 10 rounds
    model.booster.trace.cache = ByteCache()  # (its windows were found with the old budget)
    at.run()
    first = player(at)
    assert first["window"] == [0, 9] and first["rounds"] == 60
    # a rest inside the window: the same trace
    assert player(rest_on(at, 7))["id"] == first["id"]
    # the page reports a round outside it (at once): the window around that round
    moved = player(rest_on(at, 41))
    assert moved["window"] == [36, 45] and moved["id"] != first["id"]
    assert moved["goto"]["token"] == first["goto"]["token"]  # the page is there already
    # and it stays while the page rests inside it
    assert player(rest_on(at, 44))["id"] == moved["id"]
    assert player(rest_on(at, 60))["window"] == [51, 60]


def test_rounds_at_rest_never_retrain(monkeypatch):
    import boost
    from ui import training

    # the compiled engine from the start: the one retrain that may otherwise come is the
    # compiled engine's, once its kernels are ready, of a model the plain-Python engine
    # trained meanwhile (on a busy machine, during this test)
    monkeypatch.setattr(training, "engine_for", lambda config, frame: "compiled")
    at = _app(sample="noisy_1d")

    calls = []
    original = boost.train
    monkeypatch.setattr(boost, "train", lambda *a, **k: calls.append(1) or original(*a, **k))
    token = player(at)["goto"]["token"]
    rest_on(at, 2)  # the page stepped twice and came to rest
    assert status(at).startswith("Round 2 of 20 — train rmse")
    assert at.query_params["round"] == "2"
    rest_on(at, 1, node=0)
    assert at.query_params["round"] == "1" and at.query_params["node"] == "0"
    rest_on(at, 20)
    assert at.query_params["round"] == "20"
    assert calls == []
    # the page's own rounds never send it back: goto's token is unchanged
    assert player(at)["goto"]["token"] == token


def _loss(at) -> float:
    """The training loss the status line says (after the metric's name)."""
    return float(status(at).split("train rmse ")[1].split(",")[0])


def test_live_knobs_retrain_at_once():
    at = _app(sample="noisy_1d", round="20")
    before = _loss(at)
    assert not [b for b in at.button if b.key == "train"]  # small data: no Train button
    at.slider(key="p_eta").set_value(0.05).run()
    slower = _loss(at)
    assert slower > before  # a smaller step fits less in 20 rounds
    assert at.query_params["eta"] == "0.05" and not at.warning
    at.slider(key="p_max_depth").set_value(1).run()
    assert _loss(at) > slower  # stumps fit less than depth-6 trees
    assert at.session_state["app"].model.last_good.config["max_depth"] == 1


def test_a_slow_retrain_waits_for_train(monkeypatch):
    # the budget below any retrain's estimate: every change waits for Train (a real table
    # over the budget: tests/browser/test_live_browser.py)
    monkeypatch.setattr(training, "LIVE_SECONDS", 1e-9)
    at = _app(round="20")
    n = 500
    raw = "x,z,y\n" + "\n".join(f"{i % 97},{i % 13},{(i % 97) * 0.5 + i % 7}" for i in range(n))
    at.get("file_uploader")[0].set_value(("big.csv", raw.encode(), "text/csv")).run()
    before = _loss(at)  # new data trains once with the current parameters
    at.slider(key="p_eta").set_value(0.05).run()
    assert _loss(at) == before  # a change waits for Train
    assert any("Stale" in w.value and "eta" in w.value for w in at.warning)
    at.button(key="train").click().run()
    assert _loss(at) > before and not at.warning
    assert at.session_state["app"].model.last_good.config["eta"] == 0.05
    assert any("Changes apply when you press **Train**: a retrain here takes" in c.value
               for c in at.caption)


def test_live_is_decided_by_the_estimated_retrain_time(monkeypatch):
    # by hand: with measured rates (setup 2e-8 s a row x feature; each round 1e-9 s a row x
    # feature x level and 1e-5 s a level), 455 rows x 30 features x 20 rounds at depth 3:
    # 13,650 x 2e-8 + 20 x 3 x (13,650 x 1e-9 + 1e-5) = 0.000273 + 0.001419 = 0.001692 s
    monkeypatch.setitem(runtime._RATES, "exact", (2e-8, 1e-9, 1e-5))
    monkeypatch.setattr(runtime, "_SCALE", {})
    assert runtime.train_seconds("exact", 455, 30, 20, 3) == pytest.approx(0.001692)
    assert runtime.train_seconds("exact", 1024, 1, 1, 0) == pytest.approx(
        1024 * 2e-8 + 10 * (1024 * 1e-9 + 1e-5))  # max_depth 0: as deep as log2(rows)
    # a real training twice as slow as the estimate: later estimates follow it
    big = runtime.train_seconds("exact", 45_500, 30, 200, 3)
    runtime.observe("exact", 45_500, 30, 200, 3, seconds=2 * big)
    assert runtime.train_seconds("exact", 455, 30, 20, 3) == pytest.approx(2 * 0.001692)
    runtime.observe("exact", 455, 30, 20, 3, seconds=0.01)  # under 50 ms: not a rate
    assert runtime.train_seconds("exact", 455, 30, 20, 3) == pytest.approx(2 * 0.001692)
    monkeypatch.setattr(runtime, "_SCALE", {})
    assert "about 0.12 s" in training.live_text(0.1234)
    assert "under 0.01 s" in training.live_text(0.001)
    at = _app(sample="moons")
    app = at.session_state["app"]
    rows = len(app.model.last_good.prep.y_train) + len(app.model.last_good.prep.y_valid)
    ready = runtime.background_compile().ready.is_set()
    expected = runtime.train_seconds("exact", rows, 2, 20, 3, measured=ready)
    assert training.retrain_seconds(app.model.config, app.inputs.data.frame) == pytest.approx(
        expected)
    assert any("**Live**" in c.value for c in at.caption)
    monkeypatch.setitem(runtime._RATES, "exact", (1.0, 1.0, 1.0))  # a very slow server
    monkeypatch.setattr(runtime, "ASSUMED_RATES", (1.0, 1.0, 1.0))
    at.slider(key="p_eta").set_value(0.05).run()
    assert at.button(key="train") and any("a retrain here takes about" in c.value
                                          and "live up to 1 s" in c.value for c in at.caption)


def test_url_restores_the_view():
    at = _app(sample="moons", eta="0.1", max_depth="2", rounds="7", round="4")
    assert at.selectbox(key="sample").value == "moons"
    assert player(at)["goto"]["round"] == 4
    assert status(at).startswith("Round 4 of 7 — train logloss")
    assert at.slider(key="p_eta").value == pytest.approx(0.1)


def test_upload_semicolon_csv():
    at = _app()
    raw = "a;b;target\n" + "\n".join(f"{i};{i % 7};{(i * 3) % 11}" for i in range(60))
    at.get("file_uploader")[0].set_value(("mine.csv", raw.encode(), "text/csv")).run()
    assert not at.exception
    assert at.selectbox(key="target").value == "target"
    assert status(at).startswith("Round 0 of 20 — train rmse")


@pytest.mark.parametrize("raw,message", [
    (b"", "empty"),
    (b"\x00\x01\x02\x03binary", "binary"),
    (b"x,y\n1,2\n", "1 data row"),
    (b"x|y|z\n" + b"".join(b"%d|%d|%d\n" % (i, i % 3, i * i % 7) for i in range(12)),
     None),  # another delimiter is detected, not an error
    (b"only\n1\n2\n", "single column"),
    ((",".join(f"c{i}" for i in range(250)) + "\n" + ",".join("1" * 250) + "\n"
      + ",".join("2" * 250) + "\n").encode(), "250 columns"),
])
def test_bad_uploads_keep_the_previous_data(raw, message):
    at = _app(sample="moons")
    at.get("file_uploader")[0].set_value(("bad.csv", raw, "text/csv")).run()
    assert not at.exception
    if message is None:
        assert not at.error
        return
    assert any(message in e.value for e in at.error)
    assert "previous data stay loaded" in at.error[0].value
    assert status(at).startswith("Round 0 of 20 — train logloss")  # moons still shown


def test_target_that_does_not_fit_the_task_keeps_the_previous_model():
    at = _app(sample="three_blobs")
    at.selectbox(key="task").set_value("binary").run()
    assert any("exactly 2" in e.value for e in at.error)
    assert status(at).startswith("Round 0 of 20 — train mlogloss")


def test_constant_target_is_explained():
    at = _app()
    raw = "x,y\n" + "\n".join(f"{i * 0.37 % 5},5" for i in range(20))
    at.get("file_uploader")[0].set_value(("c.csv", raw.encode(), "text/csv")).run()
    assert at.selectbox(key="target").value == "x"  # default_target passes over a constant
    at.selectbox(key="target").set_value("y").run()
    assert any("same value in every row" in e.value for e in at.error)
    assert not at.exception


def test_all_missing_and_id_columns_are_flagged():
    at = _app()
    rows = "\n".join(f"{i},,{i % 3},{i * 0.5}" for i in range(30))
    raw = ("id,empty,group,y\n" + rows).encode()
    at.get("file_uploader")[0].set_value(("f.csv", raw, "text/csv")).run()
    captions = " ".join(c.value for c in at.caption)
    assert "`id`: looks like an identifier" in captions
    assert "`empty`: all values missing" in captions
    assert at.multiselect(key="features").value == ["group"]
    assert not at.error


def test_selected_node_shows_its_candidates():
    at = _app(sample="four_points", round="1", node="0", base_score="0.5", max_depth="2",
              **{"lambda": "0"})
    table = node_table(at)  # the page draws it from the node route's record
    best = table[table.Note == "★"].iloc[0]
    latex = formulas(at)
    assert "= 120.33" in latex and r"\eta \cdot w" in latex
    assert best.Split == "x < 15" and best.Gain == pytest.approx(120.33, abs=0.01)
    assert at.query_params["node"] == "0"


@pytest.mark.parametrize("view", list(VIEWS))
def test_every_view_renders_for_every_sample(view):
    for sample in ("four_points", "moons", "three_blobs", "diabetes", "penguins"):
        at = _app(sample=sample, round="3", node="0", view=view, lab="max_depth", lab_n="3")
        if view == "lab" and sample != "four_points":  # its chart follows Run (four points
            at.button(key="lab_run").click().run()    # has no validation rows: a warning)
        assert not at.error, (sample, [e.value for e in at.error])
        assert at.query_params["view"] == view
        if view == "tree":  # its candidates chart: the page's, from the node route's record
            record = node_record(at)
            assert list(record["charts"]) == [record["best"]["feature"]], sample
        elif view == "ranking":  # a ranking model's (tests/app/test_ranking_app.py)
            assert any("choose a query column" in i.value for i in at.info), sample
        elif (view, sample) != ("lab", "four_points"):
            assert len(charts(at)) >= 1  # the view's chart (the player draws fit and loss)


@pytest.mark.parametrize("number,slug", list(enumerate(LEGACY)))
def test_old_numeric_view_links_open_the_view_they_opened(number, slug):
    at = _app(sample="moons", round="1", view=str(number))
    assert at.segmented_control(key="view").value == slug
    assert at.query_params["view"] == slug


def test_hist_refuses_the_split_exact_keeps():
    # docs/xgboost-rules.md §1: gamma = 130 keeps the four-point tree under exact (140.17
    # protects the root) but hist never splits the root (120.33 < 130): one leaf, the refused
    # split shown.
    common = {"sample": "four_points", "round": "1", "node": "0", "base_score": "0.5",
              "max_depth": "2", "lambda": "0", "gamma": "130"}
    exact = _app(**common, tree_method="exact")
    hist = _app(**common, tree_method="hist")
    assert exact.query_params["tree_method"] == "exact"
    assert hist.segmented_control(key="p_tree_method").value == "hist"
    tables = {"exact": node_table(exact), "hist": node_table(hist)}
    assert tables["exact"][tables["exact"].Note == "★"].iloc[0].Split == "x < 15"
    refused = tables["hist"][tables["hist"].Note == "★ refused"].iloc[0]
    assert refused.Split == "x < 20 (bin [10])"
    assert refused.Gain == pytest.approx(120.33, abs=0.01)
    latex = formulas(hist)
    assert r"\text{refused: the node stays a leaf}" in latex
    # no node in the link: the root is selected, and its refusal is said
    overview = _app(**{k: v for k, v in common.items() if k != "node"}, tree_method="hist")
    assert (node_table(overview).Note == "★ refused").sum() == 1


def test_collapse_and_expand_the_selected_node():
    at = _app(sample="four_points", round="1", node="2", base_score="0.5", max_depth="2",
              **{"lambda": "0"})
    at.number_input(key="follow_row").set_value(0).run()  # the row's way, on a Python tree

    def tree_traces(at):
        spec = next(f for f in _figures(at) if any(t.get("name") == "node labels"
                                                   for t in f["data"]))
        return {t["name"]: t for t in spec["data"] if t.get("name")}

    assert "collapsed (+ hidden)" not in tree_traces(at)
    assert len(tree_traces(at)["node labels"]["text"]) == 5
    at.button(key="tree_collapse").click().run()
    traces = tree_traces(at)
    assert traces["collapsed (+ hidden)"]["text"] == ["x < 30<br>gain 140.17<br>+ 2 hidden"]
    assert len(traces["node labels"]["text"]) == 3  # nodes 3 and 4 hidden
    assert at.button(key="tree_expand").label == "Expand node 2"
    at.button(key="tree_expand_all").click().run()
    assert len(tree_traces(at)["node labels"]["text"]) == 5
    assert "collapsed (+ hidden)" not in tree_traces(at)


def test_a_tree_over_64_leaves_starts_collapsed():
    at = _app(sample="diabetes", max_depth="8", round="1", view="tree")
    at.number_input(key="follow_row").set_value(0).run()  # the row's way, on a Python tree
    note = next(c.value for c in at.caption if "collapsed (⊞)" in c.value)
    assert "levels below depth 6 are collapsed" in note
    assert at.button(key="tree_expand_all").label == "Expand all"


def test_max_bin_reaches_the_engine():
    at = _app(sample="noisy_1d", tree_method="hist", max_bin="8", round="1", node="0")
    table = node_table(at)
    assert len(table) <= 2 * 8  # forward candidates over at most 8 bins (no missing values)
    assert at.number_input(key="p_max_bin").value == 8


@pytest.mark.parametrize("method", ["hist", "approx"])
def test_every_view_renders_with_bins(method):
    # Multi-class with missing values (penguins) and without (three_blobs): approx re-sketches
    # every tree of every class.
    for sample in ("three_blobs", "penguins", "diabetes"):
        for view in list(VIEWS)[:4]:
            at = _app(sample=sample, round="3", node="1", view=view, tree_method=method,
                      gamma="2")
            assert not at.error, (sample, view, [e.value for e in at.error])
            assert at.query_params["tree_method"] == method


def _figures(at) -> list[dict]:
    return charts(at)


def test_objective_from_the_url_trains_and_shows_its_formulas():
    at = _app(sample="diabetes", objective="count:poisson", round="2")
    assert "poisson-nloglik" in status(at)
    assert at.selectbox(key="p_objective").value == "count:poisson"
    latex = formulas(at)
    assert "e^{m} - y" in latex and r"e^{m + \text{max\_delta\_step}}" in latex
    assert at.query_params["objective"] == "count:poisson"
    assert not at.error


def test_objective_that_does_not_fit_the_target_is_explained():
    at = _app(sample="noisy_1d", objective="count:poisson")
    assert any("negative values" in e.value and "count:poisson" in e.value for e in at.error)
    assert not at.exception


def test_early_stopping_is_marked_on_the_loss_curve():
    at = _app(sample="diabetes", rounds="300", eta="0.5", early_stopping_rounds="3")
    line = status(at)
    n = int(line.split(" of ")[1].split(" ")[0])
    assert n < 300
    assert any("Early stopping" in c.value for c in at.caption)
    loss = player(at)["loss"]["figure"]
    notes = [a["text"] for a in loss["layout"].get("annotations", [])]
    assert any(t.startswith("best: round") and f"stopped at {n}" in t for t in notes)


def test_newton_and_first_order_side_by_side():
    at = _app(sample="moons", round="1", view="4", max_depth="2")
    titles = [f["layout"]["title"]["text"] for f in _figures(at)]
    assert "Newton (XGBoost), round 1" in titles
    assert "First-order (Friedman), round 1" in titles
    assert any(t.startswith("Loss (logloss) by round (solid") for t in titles)
    leaf_tables = [d.value for d in at.dataframe if "η·w" in d.value.columns]
    assert len(leaf_tables) == 2
    assert not at.error


def test_subsample_draws_the_left_out_rows_and_first_order_says_least_squares():
    at = _app(sample="diabetes", round="2", view="1", subsample="0.5", boosting="first_order")
    residual = next(f for f in _figures(at) if "removed" in f["layout"]["title"]["text"])
    names = [t.get("name") for t in residual["data"]]
    assert "rows left out (subsample)" in names and "rows the tree was grown on" in names
    latex = formulas(at)
    assert "least squares" in latex
    assert at.segmented_control(key="p_boosting").value == "first_order"


def test_exponential_loss_with_scale_pos_weight():
    at = _app(sample="moons", objective="binary:exponential", scale_pos_weight="2",
              round="3", view="0", node="0")
    assert "exponential" in status(at)
    assert at.number_input(key="p_scale_pos_weight").value == 2.0
    assert not at.error


def test_weight_column_weights_the_rows():
    at = _app()
    rows = "\n".join(f"{i % 17},{1 + i % 3},{(i % 17) * 0.5 + (i % 5)}" for i in range(60))
    at.get("file_uploader")[0].set_value(("w.csv", f"x,w,y\n{rows}".encode(),
                                          "text/csv")).run()
    at.selectbox(key="weight").set_value("w").run()
    assert at.multiselect(key="features").value == ["x"]
    rest_on(at, 1)
    tree = next(d.value for d in at.dataframe if "Cover" in d.value.columns)
    weights = [1 + i % 3 for i in range(60)]
    # the root's cover (squared error: H = sum of weights) over the 48 training rows
    order = np.random.default_rng(0).permutation(60)
    train = np.sort(order[12:])
    assert tree.Cover.iloc[0] == pytest.approx(sum(weights[i] for i in train))
    assert not at.error


def test_negative_weights_are_explained():
    at = _app()
    raw = "x,w,y\n" + "\n".join(f"{i * 7 % 11},{-1 if i == 3 else 1},{i * 2}" for i in range(30))
    at.get("file_uploader")[0].set_value(("n.csv", raw.encode(), "text/csv")).run()
    at.selectbox(key="weight").set_value("w").run()
    assert any("weight column 'w'" in e.value and ">= 0" in e.value for e in at.error)
    assert not at.exception
