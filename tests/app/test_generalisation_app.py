"""The generalisation view in the app (AppTest): opened from a link on a binary, a regression
and a multi-class sample, the numbers it says equal those of the two models trained here with
``boost.train`` (the view's plumbing: the right models, round and second η), the second η read
from and written to the link, and the view in a presenter panel."""


import numpy as np
from apptest import chart, charts, open_app, player

import boost
from ui import tables
from ui.training import engine_params


def _models(at, eta2):
    """The model on screen and the second-η model, trained here from the app's data."""
    app = at.session_state["app"]
    config = app.model.config
    prep = tables.prepare(app.inputs.data.frame, config["target"], list(config["features"]),
                           task=None if config["task"] == "auto" else config["task"])
    params = engine_params(config, prep)
    evals = [(prep.X_train, prep.y_train, "train"), (prep.X_valid, prep.y_valid, "valid")]
    stopping = config["early_stopping_rounds"] or None
    return prep, [boost.train({**params, "eta": eta}, prep.X_train, prep.y_train,
                              config["num_boost_round"], evals=evals,
                              early_stopping_rounds=stopping)
                  for eta in (config["eta"], eta2)]


def _reading(at) -> str:
    texts = [m.value for m in at.markdown if "train–validation gap" in m.value]
    assert len(texts) == 1, [m.value for m in at.markdown]
    return texts[0]


def _chart(at, key: str) -> dict:
    """The layout of the chart drawn under ``key``."""
    return chart(at, key)["layout"]


def _gap(booster, r) -> float:
    loss = booster.loss_history()
    return float(loss["valid"].iloc[r] - loss["train"].iloc[r])


def test_binary_sample_says_the_models_numbers():
    at = open_app(sample="moons", view="generalisation", round="10")
    assert not at.error
    assert at.number_input(key="gen_eta").value == 0.05  # against η = 0.3: the small one
    prep, (fast, slow) = _models(at, 0.05)
    text = _reading(at)
    assert f"is {_gap(fast, 10):.3g} with η = 0.3 but {_gap(slow, 10):.3g} with η = 0.05" in text
    titles = " ".join(a.get("text", "") for a in _chart(at, "gen_margins")["annotations"])
    for eta, booster in ((0.3, fast), (0.05, slow)):
        shares, means = [], []
        for X, y in ((prep.X_train, prep.y_train), (prep.X_valid, prep.y_valid)):
            margin = booster.predict(X, output_margin=True, iteration_range=(0, 10))
            score = np.where(y > 0.5, margin, -margin).astype(np.float64)
            shares.append(np.mean(score < 0))
            means.append(np.mean(score))
        assert (f"<b>η = {eta:g}</b>: misclassified {shares[0]:.1%} train, {shares[1]:.1%} "
                "valid") in titles
        pair = (f"mean y·margin {means[0]:.3g} against {means[1]:.3g})",
                f"({means[0]:.3g} and {means[1]:.3g})",
                f"{means[0]:.3g} and {means[1]:.3g} with η = {eta:g}")
        assert any(p.replace("-", "−") in text for p in pair), (pair, text)
    step = np.mean(np.abs(fast.predict(prep.X_train, output_margin=True, iteration_range=(0, 10))
                          - fast.predict(prep.X_train, output_margin=True,
                                         iteration_range=(0, 9))))
    assert f"margin by {step:.3g} on average with η = 0.3" in text
    assert at.query_params["eta2"] == "0.05" and at.query_params["view"] == "generalisation"


def test_regression_sample_with_the_second_eta_from_the_link():
    at = open_app(sample="noisy_1d", view="generalisation", round="15", eta2="0.1")
    assert not at.error
    assert at.number_input(key="gen_eta").value == 0.1
    prep, (model, other) = _models(at, 0.1)
    text = _reading(at)
    assert f"{_gap(model, 15):.3g} with η = 0.3" in text
    assert f"{_gap(other, 15):.3g} with η = 0.1" in text
    residual = prep.y_train - model.predict(prep.X_train, iteration_range=(0, 15))
    assert f"{np.median(np.abs(residual)):.3g}" in text
    assert any("residual y − prediction" in c.value for c in at.caption)
    at.number_input(key="gen_eta").set_value(0.02).run()
    assert "with η = 0.02" in _reading(at) and at.query_params["eta2"] == "0.02"
    at.number_input(key="gen_eta").set_value(0.3).run()
    assert any("The second η is the model's own (0.3)" in i.value for i in at.info)


def test_a_hostile_second_eta_is_clamped_and_said():
    at = open_app(sample="moons", view="generalisation", round="3", eta2="7")
    assert any("eta2=7 is outside 0.01 to 1: using 1" in str(c.value)
               for c in [*at.caption, *at.warning, *at.markdown, *at.info])
    assert "with η = 1" in _reading(at)


def test_early_stopping_ends_the_two_models_apart():
    at = open_app(sample="moons", view="generalisation", round="60", rounds="200",
                  early_stopping_rounds="5", eta="0.5")
    _, (fast, slow) = _models(at, 0.05)
    n_fast, n_slow = fast.num_boosted_rounds(), slow.num_boosted_rounds()
    assert n_fast < n_slow < 200
    assert any(f"early stopping ended them apart (η = 0.5 after {n_fast}, η = 0.05 after "
               f"{n_slow})" in c.value for c in at.caption)
    assert _reading(at).startswith(f"By round {n_fast} the train–validation gap")
    assert f"{_gap(fast, n_fast):.3g} with η = 0.5" in _reading(at)


def test_multiclass_sample_shows_the_true_class_margin():
    at = open_app(sample="three_blobs", view="generalisation", round="5")
    assert not at.error
    assert any("true class's margin minus the best other class's" in c.value
               for c in at.caption)
    assert "mean margin over the best other class" in _reading(at)
    titles = [a.get("text", "") for a in _chart(at, "gen_margins")["annotations"]]
    assert sum("misclassified" in t for t in titles) == 2


def test_the_view_in_a_presenter_panel_draws_its_chart_only():
    at = open_app(sample="moons", present="1", round="6")
    at.session_state["right_panel"] = "generalisation"
    at.run()
    assert not at.exception and not at.error
    assert not [m for m in at.markdown if "train–validation gap" in m.value]
    assert not at.number_input  # no widgets of its own in a panel
    drawn = charts(at)
    assert len(drawn) == 1  # the margins (the fit is the player's)
    assert player(at)["panels"] == ["fit"]
