"""The A/B flow with Streamlit's AppTest: pin, change a parameter, train, compare; the numbers
on screen are each configuration's own ``boost.train`` losses; pins in the URL."""


import pytest
from apptest import charts, clear_caches, open_app  # noqa: F401  (clear_caches: autouse)

import boost
from ui import pins, training, url


def _table(at):
    return next(d.value for d in at.dataframe if "differs from current" in d.value.columns)


def _oracle(config, prep, r):
    """(train, valid) losses after round r of the configuration, from boost.train's
    evals_result (with the training set as an eval set too)."""
    bst = boost.train(training.engine_params(config, prep), prep.X_train, prep.y_train,
                      config["num_boost_round"],
                      evals=[(prep.X_train, prep.y_train, "training rows"),
                             (prep.X_valid, prep.y_valid, "valid")])
    result = bst.evals_result()
    metric = bst.metric_name
    return result["training rows"][metric], result["valid"][metric]


def test_pin_change_eta_train_and_compare_the_losses():
    at = open_app(sample="noisy_1d", round="5")
    first = dict(at.session_state["app"].model.last_good.config)
    at.button(key="side_pin").click().run()
    assert at.session_state["app"].pins.kept == [pins.pin_of(first)]
    at.slider(key="p_eta").set_value(0.1).run()  # live on small data: no Train
    at.button(key="side_compare").click().run()
    assert at.query_params["view"] == "compare" and not at.error and not at.warning
    assert url.read_pin(at.query_params["pin"], 1, []) == pins.pin_of(first)
    state = at.session_state["app"]
    config, prep = state.model.last_good.config, state.model.last_good.prep
    assert config["eta"] == pytest.approx(0.1) and first["eta"] == pytest.approx(0.3)
    table = _table(at).set_index("model")
    assert list(table.index) == ["current", "pin 1"]
    assert table.loc["pin 1", "differs from current"] == "eta 0.3"
    for model, cfg in (("current", config), ("pin 1", first)):
        train, valid = _oracle(cfg, prep, 5)
        row = table.loc[model]
        assert row["at round"] == 5
        assert row["train rmse"] == pytest.approx(train[4], rel=1e-12)
        assert row["valid rmse"] == pytest.approx(valid[4], rel=1e-12)
        assert row["best valid rmse"] == pytest.approx(min(valid), rel=1e-12)
        assert row["best round"] == valid.index(min(valid)) + 1
    assert table.loc["current", "valid rmse"] != table.loc["pin 1", "valid rmse"]
    titles = [f["layout"]["title"]["text"] for f in charts(at)]
    assert "Each model's fit after round 5" in titles
    assert any(t.endswith("current, round 5") for t in titles)
    assert any(t.endswith("pin 1, round 5") for t in titles)

    again = open_app(**at.query_params)  # the shared link reopens the pin and the view
    assert again.session_state["app"].pins.kept == [pins.pin_of(first)]
    assert _table(again).equals(_table(at))


def test_the_trees_of_round_one_differ_only_in_their_leaf_values():
    # The four points with eta 0.3 and a pin at eta 0.6: the same splits; every leaf's η·w
    # doubles (-3.15, 2.1, -2.25 by hand).
    at = open_app(sample="four_points", round="1", view="compare",
                  pin="eta-0.6~lambda-0~max_depth-2~base_score-0.5")
    assert not at.error and not at.warning
    assert any("3 × leaf value moved" in c.value for c in at.caption)
    lines = " ".join(m.value for m in at.markdown)
    for text in (r"η·w \-3\.15 in current, \-6\.3 in pin 1",
                 r"η·w 2\.1 in current, 4\.2 in pin 1"):
        assert text in lines
    specs = charts(at)
    trees = [f for f in specs if "■" in f["layout"]["title"]["text"]]
    rings = [[t for t in f["data"] if t.get("name") == "leaf value moved"] for f in trees]
    assert [len(r[0]["x"]) for r in rings] == [3, 3]


def test_a_fifth_pin_and_a_repeat_are_refused_with_a_message():
    at = open_app(sample="noisy_1d", pin=["eta-0.1", "eta-0.2", "eta-0.4", "eta-0.5"])
    at.button(key="side_pin").click().run()
    assert len(at.session_state["app"].pins.kept) == 4
    assert any("4 models are pinned" in w.value and "remove one" in w.value
               for w in at.warning)
    at.button(key="side_unpin_3").click().run()
    at.button(key="side_pin").click().run()
    at.button(key="side_pin").click().run()
    assert any("already pinned as pin 4" in w.value for w in at.warning)
    assert len(at.query_params["pin"]) == 4


def test_a_pin_that_does_not_apply_to_the_data_says_so():
    # moons is binary: base_score 5 is no probability; the other pin still trains.
    at = open_app(sample="moons", view="compare", round="2",
                  pin=["base_score-5", "max_depth-2"])
    warning = " ".join(w.value for w in at.warning)
    assert "pin 1" in warning and "does not apply to the data on screen" in warning
    assert "base_score" in warning and not at.exception
    assert list(_table(at).model) == ["current", "pin 2"]


def test_remove_a_pin_in_the_view_and_no_pins_explains_how():
    at = open_app(sample="moons", view="compare", round="2", pin="max_depth-2")
    at.button(key="cmp_unpin_0").click().run()
    assert at.session_state["app"].pins.kept == [] and "pin" not in at.query_params
    assert any("Pin model" in i.value for i in at.info)
    assert list(_table(at).model) == ["current"]


def test_pins_are_named_by_their_own_parameters_and_the_current_model_by_its_twin():
    base = {p.name: url.widget_default(p) for p in pins.APP_PARAMS}
    a = {**base, "eta": 0.1}
    b = {**base, "eta": 0.1, "max_depth": 5}
    c = {**base, "eta": 0.5, "max_depth": 5}
    # what differs among the pins, each pin's own values: not its distance from the knobs
    # (eta 0.1 and max_depth 5 are the pins' common values: a pin is named by where it
    # departs from them, or by all that vary where it departs from none)
    assert pins.labels([a, b, c]) == [f"max_depth {base['max_depth']}",
                                      "eta 0.1, max_depth 5", "eta 0.5"]
    assert pins.labels([a, {**base, "eta": 0.6}]) == ["eta 0.1", "eta 0.6"]  # a tie
    # a lone pin: what sets it apart from XGBoost's defaults (the parameter table's), which
    # are not the app's (max_depth 6, 10 rounds, hist)
    assert pins.labels([a]) == ["eta 0.1, max_depth 3, rounds 20, +1 more"]
    assert pins.labels([base]) == ["max_depth 3, rounds 20, tree_method exact"]
    # a parameter of another objective names no pin; of the pin's own, it does where it
    # departs from the app's start (XGBoost has no default alpha: it must be given)
    assert pins.labels([base], objective="reg:squarederror") == pins.labels([base])
    assert pins.labels([base], objective="reg:quantileerror") == pins.labels([base])
    assert pins.labels([{**base, "quantile_alpha": "0.1"}], objective="reg:quantileerror") \
        == ["max_depth 3, rounds 20, tree_method exact, +1 more"]
    assert pins.labels([{**base, "quantile_alpha": "0.1"}]) == pins.labels([base])
    # (a parameter of some objectives only is the app's start: k 32 is XGBoost's topk k)
    xgboost = {p.name: p.start if p.objectives else "" if p.default is None else p.default
               for p in pins.APP_PARAMS}
    assert xgboost["max_depth"] == 6 and pins.labels([xgboost]) == ["XGBoost's defaults"]
    assert pins.labels([{**xgboost, "max_depth": 3}]) == ["max_depth 3"]
    assert pins.labels([a, a]) == ["eta 0.1, max_depth 3, rounds 20, +1 more"] * 2
    config = {**base, "digest": "d", "target": "y"}  # (a model's configuration)
    assert pins.twin({**config, "eta": 0.1, "max_depth": 5}, [a, b, c]) == 2
    assert pins.twin(config, [a, b, c]) is None


def test_pin_change_pin_keeps_the_current_model_in_sight():
    at = open_app(sample="noisy_1d", view="compare", eta="0.3")
    at.button(key="side_pin").click().run()
    at.slider(key="p_eta").set_value(0.6).run()
    at.button(key="side_pin").click().run()
    app = at.session_state["app"]
    assert [p["eta"] for p in app.pins.kept] == [0.3, 0.6]
    sidebar = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert "**pin 1**: eta 0.3" in sidebar and "**pin 2**: eta 0.6" in sidebar
    loss = next(c for c in charts(at) if c["layout"]["title"]["text"].startswith("Loss"))
    names = [t["name"] for t in loss["data"] if t.get("showlegend", True)]
    assert names[-1] == "current (= pin 2)"  # drawn last: over pin 2's same curves
    ranks = {t["name"]: t["legendrank"] for t in loss["data"]}
    assert ranks["current (= pin 2)"] < ranks["pin 1: eta 0.3"] < ranks["pin 2: eta 0.6"]
