"""Opening an XGBoost model in the app (AppTest, no browser): a model file made here with
XGBoost and a CSV sample; stepping its rounds on the sample with the sample's loss, the tree
with the model's gain and cover and the candidates recomputed on the sample; the views that
need the training run say so; bad files and samples keep the previous model; the model on
screen as downloads; Verify with XGBoost on a trained model."""

import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from apptest import (  # noqa: F401  (clear_caches: autouse)
    clear_caches,
    node_record,
    open_app,
    player,
    rest_on,
    status,
)

import boost

ROUNDS = 5




def _model_and_sample(fmt="ubj"):
    """An XGBoost binary model on 3 named features and a CSV sample of other rows (with
    an extra column and the target)."""
    rng = np.random.default_rng(7)
    X = pd.DataFrame(rng.normal(size=(300, 3)), columns=["age", "dose", "bmi"])
    y = ((X.age + X.dose ** 2 + rng.normal(size=300) * 0.3) > 1).astype(int)
    model = xgb.train({"objective": "binary:logistic", "max_depth": 3, "eta": 0.5,
                       "nthread": 1}, xgb.DMatrix(X.iloc[:200], label=y[:200]), ROUNDS)
    sample = X.iloc[200:].assign(note="x", outcome=y[200:])
    return model, bytes(model.save_raw(fmt)), sample, X.iloc[200:], y[200:]


def _open(at, raw, sample: pd.DataFrame, target="outcome", name="model.ubj"):
    if not at.toggle(key="open_panel").value:
        at.toggle(key="open_panel").set_value(True).run()
    uploaders = at.get("file_uploader")
    uploaders[1].set_value((name, raw, "application/octet-stream"))
    uploaders[2].set_value(("sample.csv", sample.to_csv(index=False).encode(), "text/csv"))
    at.run()
    at.selectbox(key="open_target").set_value(target).run()
    at.button(key="open_model").click().run()
    assert not at.exception, at.exception
    return at


def test_open_a_model_and_step_it_on_the_sample():
    model, raw, sample, X, y = _model_and_sample()
    at = _open(open_app(sample="noisy_1d"), raw, sample)
    assert not at.error
    info = " ".join(i.value for i in at.info)
    assert "Opened XGBoost model" in info and "recomputed on the sample" in info
    assert status(at).startswith(f"Round 0 of {ROUNDS} — sample logloss")
    rest_on(at, 2)
    assert player(at)["rounds"] == ROUNDS
    # the sample's loss at round 2 is XGBoost's logloss of the first two trees on the sample
    p = model.predict(xgb.DMatrix(X), iteration_range=(0, 2))
    logloss = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
    shown = float(status(at).split("sample logloss ")[1])
    assert shown == pytest.approx(logloss, rel=1e-3)
    # the tree of round 2 with the model's own gain (the table under the tree)
    table = next(d.value for d in at.dataframe if "Gain" in d.value.columns
                 and "Cover" in d.value.columns)
    ref = model.trees_to_dataframe()
    ref = ref[ref.Tree == 1]
    np.testing.assert_allclose(table.Gain.to_numpy(), ref.Gain.to_numpy(), rtol=1e-6)
    np.testing.assert_allclose(table.Cover.to_numpy(), ref.Cover.to_numpy(), rtol=1e-6)
    # a node: the model's numbers beside the sample's, candidates labelled as the sample's
    at.session_state["app"].stage.node = 0
    at.run()
    record = node_record(at)  # what the page draws: the sample's candidates, no arithmetic
    assert record["on_sample"] and record["arithmetic"] == [] and record["node"] == 0
    best = record["best"]
    assert best["n_left"] + best["n_right"] == len(sample)  # every sample row reaches the root
    # residuals on the sample; a view that needs the training run says so
    at.segmented_control(key="view").set_value("residuals").run()
    assert not at.exception and not at.error
    at.segmented_control(key="view").set_value("learning-rates").run()
    assert any("needs the training run" in i.value for i in at.info)
    # the opened model as XGBoost files (the same document XGBoost would write)
    booster = at.session_state["app"].opened.file
    assert booster is not None and boost.load_model(booster.raw).num_boosted_rounds() == ROUNDS
    # Close: back to training on the sidebar's data
    at.button(key="close_model").click().run()
    assert "train rmse" in status(at)
    assert status(at).startswith("Round 0 of")  # closing starts at round 0
    assert player(at)["goto"]["round"] == 0


def test_sample_without_target_shows_predictions_only():
    _, raw, sample, _, _ = _model_and_sample("json")
    at = _open(open_app(sample="noisy_1d"), raw, sample, target="", name="m.json")
    assert "predictions only" in status(at)
    assert player(at)["fit"] is None and player(at)["tree"] is not None
    rest_on(at, ROUNDS)
    assert not at.exception and not at.error
    at.segmented_control(key="view").set_value("residuals").run()
    assert any("need the sample's target" in i.value for i in at.info)


@pytest.mark.parametrize("bad, message", [
    (b"\x00\x01garbage", "neither JSON nor UBJSON"),
    (b'{"learner": {}}', "not an XGBoost model"),
])
def test_bad_model_files_keep_the_previous_model(bad, message):
    _, _, sample, _, _ = _model_and_sample()
    at = _open(open_app(sample="noisy_1d"), bad, sample, name="bad.json")
    assert any(message in e.value and "bad.json" in e.value for e in at.error), \
        [e.value for e in at.error]
    assert "train rmse" in status(at)  # the trained model stays


def test_sample_missing_a_feature_is_explained_and_an_opened_model_stays():
    _, raw, sample, _, _ = _model_and_sample()
    at = _open(open_app(sample="noisy_1d"), raw, sample)
    assert "sample logloss" in status(at)
    at.get("file_uploader")[2].set_value(
        ("less.csv", sample.drop(columns="dose").to_csv(index=False).encode(), "text/csv"))
    at.run()
    at.selectbox(key="open_target").set_value("outcome").run()
    at.button(key="open_model").click().run()
    error = " ".join(e.value for e in at.error)
    assert "lacks the model's feature(s) dose" in error and "previous model stays" in error
    assert "sample logloss" in status(at)


def test_downloads_give_xgboost_the_model_on_screen():
    at = open_app(sample="noisy_1d", rounds="4")
    labels = [b.label for b in at.get("download_button")]
    assert {"XGBoost .json", "XGBoost .ubj", "Retrain in XGBoost (.py)"} <= set(
        labels)
    booster = at.session_state["app"].model.last_good.booster
    ref = xgb.Booster(model_file=bytearray(booster.save_raw("ubj")))
    X = at.session_state["app"].model.last_good.prep.X_train.to_numpy()
    np.testing.assert_array_equal(
        ref.predict(xgb.DMatrix(X, feature_names=booster.feature_names), output_margin=True),
        booster.predict(X, output_margin=True))


def test_verify_with_xgboost_shows_the_badge():
    at = open_app(sample="noisy_1d", rounds="8", max_depth="3")
    at.toggle(key="verify").set_value(True).run()
    assert not at.exception
    badge = " ".join(m.value for m in at.markdown if "badge" in m.value)
    assert "XGBoost 3.2" in badge and "8 of 8 trees identical, max |Δmargin| 0" in badge
    at.slider(key="p_eta").set_value(0.1).run()  # another model: verified again
    badge = " ".join(m.value for m in at.markdown if "badge" in m.value)
    assert "8 of 8 trees identical" in badge


@pytest.mark.parametrize("objective, method", [("reg:squarederror", "exact"),
                                               ("multi:softprob", "approx"),
                                               ("reg:quantileerror", "hist")])
def test_other_objectives_and_methods_step_to_the_last_round(objective, method):
    """A regression, a 3-class and a 3-quantile model (trained on an array: features f0, f1,
    f2, matched to the sample's columns by position), candidates searched as exact, approx
    and hist."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(240, 3))
    z = X[:, 0] - X[:, 1] ** 2
    y = np.digitize(z, [-1, 0]) if objective.startswith("multi") else z
    params = {"objective": objective, "max_depth": 2, "nthread": 1}
    if objective.startswith("multi"):
        params["num_class"] = 3
    if objective == "reg:quantileerror":
        params["quantile_alpha"] = [0.1, 0.5, 0.9]
    model = xgb.train(params, xgb.DMatrix(X[:160], label=y[:160]), 3)
    sample = pd.DataFrame(X[160:], columns=["a", "b", "c"]).assign(target=y[160:])
    at = open_app(sample="noisy_1d")
    at.toggle(key="open_panel").set_value(True).run()
    at.segmented_control(key="open_method").set_value(method).run()
    at = _open(at, bytes(model.save_raw("json")), sample, target="target", name="m.json")
    assert not at.error, [e.value for e in at.error]
    rest_on(at, 3, node=0)
    assert not at.exception and not at.error
    assert node_record(at)["on_sample"]
    booster = at.session_state["app"].opened.file
    assert booster.tree_method == method
    at.segmented_control(key="view").set_value("residuals").run()
    at.segmented_control(key="view").set_value("importance").run()
    assert not at.exception and not at.error


def test_presenter_mode_on_an_opened_model():
    _, raw, sample, _, _ = _model_and_sample()
    at = _open(open_app(sample="noisy_1d"), raw, sample)
    rest_on(at, 1, node=0)
    at.toggle(key="present").set_value(True).run()
    for left, right in (("fit", "tree"), ("node", "candidates"), ("loss", "pruning")):
        at.selectbox(key="left_panel").set_value(left).run()
        at.selectbox(key="right_panel").set_value(right).run()
        assert not at.exception and not at.error, (left, right, [e.value for e in at.error])
        if left == "node":  # the page's panels, from the sample's record
            assert player(at)["panels"] == ["node", "candidates"]
            assert node_record(at)["on_sample"]
    assert any("needs the training run" in i.value for i in at.info)  # pruning
