"""ui.notebook without a browser: ``show`` reads a BoostScope model and XGBoost's models (a
Booster and a scikit-learn model, through ``boost.load_model``: the same margins as XGBoost,
bit for bit, and the same trees as BoostScope's own model of the same data); the widget's
answers to the page are the app's records; ``goto`` and ``save_html``; bad input is a
ShowError saying what is wrong. The example notebook (examples/notebook.ipynb) runs in a
kernel (nbclient) and shows two widgets. (In JupyterLab and Chromium:
tests/browser/test_notebook_browser.py.)"""

import importlib
import json
import os
import sys

import nbclient
import nbformat
import numpy as np
import pandas as pd
import pytest
import xgboost

import boost
from ui.nodes import page_chart, page_node
from ui.notebook import ShowError, Stage, show
from ui.samples import BY_KEY

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARAMS = {"max_depth": 3, "eta": 0.3, "tree_method": "exact"}
ROUNDS = 6


@pytest.fixture(scope="module")
def data():
    frame = pd.read_csv(BY_KEY["diabetes"].path)
    return frame.drop(columns="progression"), frame["progression"]


@pytest.fixture(scope="module")
def models(data):
    X, y = data
    bst = boost.train(PARAMS, X, y, num_boost_round=ROUNDS)
    xgb = xgboost.XGBRegressor(n_estimators=ROUNDS, max_depth=3, learning_rate=0.3,
                               tree_method="exact").fit(X, y)
    return bst, xgb


def _answers(widget: Stage, *questions):
    sent = []
    widget.send = lambda content, buffers=None: sent.append((content, buffers))
    for q in questions:
        widget._answer(widget, q, [])
    return sent


def test_boostscope_model_on_its_training_rows_shows_its_training_trace(data, models):
    X, y = data
    w = show(models[0], X, y, round=2)
    assert w.booster is models[0] and not w.booster.on_sample
    trace = json.loads(w._trace)
    assert trace["rounds"] == ROUNDS and trace["status"][2].startswith(f"Round 2 of {ROUNDS}")
    assert w._goto["round"] == 2 and w.round == 2 and w.node is None
    # other rows: the same trees, shown on the data given
    other = show(models[0], X[:200], y[:200])
    assert other.booster.on_sample and other.round == ROUNDS
    # trained without evals: the status and the loss chart say the loss on the rows given,
    # XGBoost's rmse of its predictions round by round
    assert "train rmse" in trace["status"][2]
    oracle = xgboost.train({**PARAMS, "eval_metric": "rmse"}, xgboost.DMatrix(X, y), ROUNDS,
                           evals=[(xgboost.DMatrix(X, y), "train")], evals_result=(res := {}))
    assert oracle.num_boosted_rounds() == ROUNDS
    np.testing.assert_allclose(w._history["train"].to_numpy()[1:], res["train"]["rmse"],
                               rtol=1e-5)


@pytest.mark.parametrize("kind", ["sklearn", "booster"])
def test_xgboost_models_are_read_bit_for_bit(data, models, kind):
    X, y = data
    model = models[1] if kind == "sklearn" else models[1].get_booster()
    w = show(model, X, y)
    margins = models[1].get_booster().predict(xgboost.DMatrix(X), output_margin=True)
    assert np.array_equal(w.booster.predict(X, output_margin=True), margins)
    # the same data and parameters: XGBoost's trees are BoostScope's (exact: gains, covers)
    ours = models[0].trees_to_dataframe()[["Tree", "Node", "Feature", "Split", "Gain", "Cover"]]
    theirs = w.booster.trees_to_dataframe()[ours.columns]
    pd.testing.assert_frame_equal(ours.reset_index(drop=True), theirs.reset_index(drop=True))
    assert w.booster.params["tree_method"] == "exact"  # XGBoost's config read for the search


def test_the_page_gets_the_apps_records_over_messages(data, models):
    X, y = data
    w = show(models[1], X, y, evals=[(X[:100], y[:100], "first 100")])
    trace = json.loads(w._trace)
    assert ", first 100 rmse " in trace["status"][1]
    sent = _answers(w, {"kind": "node", "id": 1, "round": 2, "node": 1},
                    {"kind": "chart", "id": 2, "round": 2, "node": 0, "feature": "bmi"},
                    {"kind": "node", "id": 3, "round": 0, "node": 0},
                    {"kind": "node", "id": 4, "round": 1, "node": 99},
                    {"kind": "plotly", "id": 5})
    (node, _), (chart, _), (zero, _), (missing, _), (plotly, buffers) = sent
    assert node["id"] == 1 and node["record"] == {**page_node(w.booster, w.X, 2, 1), "csv": False}
    assert chart["chart"]["chart"] == page_chart(w.booster, 2, 0, 0, "bmi")
    assert zero["error"].startswith("round 0 is not a round with a tree")
    assert "not a node of tree 0" in missing["error"]
    assert plotly["id"] == 5 and buffers[0].startswith(b"/**") and len(buffers[0]) > 10**6


def test_goto_and_the_offline_file(tmp_path, data, models):
    X, y = data
    w = show(models[0], X, y)
    w.goto(3, node=2)
    assert (w.round, w.node) == (3, 2) and w._goto == {"round": 3, "node": 2, "token": 2}
    for bad in [(ROUNDS + 1, None), (0, 0), (2, 99), (1.5, None)]:
        with pytest.raises(ShowError):
            w.goto(*bad)
    path = w.save_html(tmp_path / "lecture.html")
    page = path.read_text()
    trace = json.loads(page.split('id="boostscope-trace">', 1)[1].split("</script>", 1)[0])
    assert trace["goto"]["round"] == 3 and trace["goto"]["node"] == 2
    assert "3:2" in trace["records"]


def test_bad_input_says_what_is_wrong(data, models):
    X, y = data
    bst, xgb = models
    cases = [
        (lambda: show(xgb, X.drop(columns="bmi"), y), "X lacks the model's feature(s) bmi"),
        (lambda: show(bst, X.to_numpy()[:, :4], y), "X has 4 column(s); the model has 10"),
        (lambda: show(xgb, X, y[:10]), "y has 10 values and X 442 rows"),
        (lambda: show(xgboost.XGBRegressor(), X, y), "is not fitted yet"),
        (lambda: show(xgboost.train({}, xgboost.DMatrix(X, y), 0), X, y), "has no trees"),
        (lambda: show(xgboost.XGBRegressor(n_estimators=2).fit(X, np.c_[y, y]), X, y),
         "several targets"),
        (lambda: show("model.json", X, y), "show() takes a BoostScope Booster"),
        (lambda: show(bst, X, y, round=99), "round must be a whole number from 0 to 6"),
        (lambda: show(bst, X, y, evals=[(X, y)]), "must be a tuple (X, y, name)"),
        (lambda: show(bst, X.assign(bmi="x"), y), "hold text"),
    ]
    for call, said in cases:
        with pytest.raises(ShowError) as caught:
            call()
        assert said in str(caught.value), (said, str(caught.value))


def test_without_anywidget_the_import_says_how_to_install_it(monkeypatch):
    """``pip install .`` without the notebook extra: ui.notebook's import names the extra."""
    monkeypatch.setitem(sys.modules, "anywidget", None)  # an import of it fails, as if absent
    monkeypatch.delitem(sys.modules, "ui.notebook")
    with pytest.raises(ModuleNotFoundError) as caught:
        importlib.import_module("ui.notebook")
    assert caught.value.name == "anywidget"
    assert 'python -m pip install ".[notebook]"' in str(caught.value)


def test_the_example_notebook_runs(tmp_path):
    """examples/notebook.ipynb in a kernel, as CI runs it: every cell, two widgets shown,
    the offline file written."""
    nb = nbformat.read(os.path.join(ROOT, "examples", "notebook.ipynb"), as_version=4)
    env_path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = ROOT + (os.pathsep + env_path if env_path else "")
    try:
        nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": str(tmp_path)}}).execute()
    finally:
        os.environ["PYTHONPATH"] = env_path
    views = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
             if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert len(views) == 2
    assert (tmp_path / "diabetes-lecture.html").stat().st_size > 10**6
    rounds = [o["data"]["text/plain"] for o in nb.cells[-2].outputs]
    assert rounds == ["(5, 1)"]
