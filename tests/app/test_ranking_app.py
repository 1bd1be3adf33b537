"""Learning to rank in the app: a query column makes the task ranking; the model the app
trains equals XGBoost 3.2's on the same sorted rows and queries (the oracle)."""

import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from apptest import clear_caches, open_app, status  # noqa: F401  (clear_caches: autouse)

import boost
from ui import tables, training
from ui.samples import DATA_DIR
from ui.views.ranking import query_round


def _xgboost_of(model):
    """XGBoost 3.2 trained as the app's model: its parameters, its sorted rows and qid."""
    prep, config = model.prep, model.config
    params = {**training.engine_params(config, prep), "nthread": 1}
    del params["boosting"]  # BoostScope's own (Newton is XGBoost's)

    def matrix(X, y, qid):
        return xgb.DMatrix(X.to_numpy(dtype=float), label=y, qid=qid, missing=np.nan)

    dtrain = matrix(prep.X_train, prep.y_train, prep.qid_train)
    watch = [(dtrain, "train"), (matrix(prep.X_valid, prep.y_valid, prep.qid_valid), "valid")]
    result = {}
    theirs = xgb.train(params, dtrain, config["num_boost_round"], evals=watch,
                       evals_result=result, verbose_eval=False)
    return theirs, result


def _assert_equals_xgboost(model):
    theirs, result = _xgboost_of(model)
    ours = model.booster
    margin = ours.predict(model.prep.X_train, output_margin=True)
    expected = theirs.predict(xgb.DMatrix(model.prep.X_train.to_numpy(dtype=float),
                                          missing=np.nan), output_margin=True)
    np.testing.assert_array_equal(margin, expected)
    for name in ("train", "valid"):
        (metric, values), = result[name].items()
        np.testing.assert_allclose(ours.evals_result()[name][metric], values, rtol=1e-6)


def test_the_ranking_sample_trains_as_xgboost_for_each_objective():
    at = open_app(sample="search_queries", round="3")
    assert at.selectbox(key="query_column").value == "query"
    assert "query" not in at.multiselect(key="features").value
    objective = at.selectbox(key="p_objective")
    assert list(objective.options) == ["rank:ndcg (default)", "rank:map", "rank:pairwise"]
    assert status(at).startswith("Round 3 of 20 — train ndcg@32")
    labels = [w.label for w in at.get("selectbox") + at.get("segmented_control")
              + at.get("number_input") + at.get("text_input") + at.get("slider")]
    assert any("lambdarank_pair_method" in str(label) for label in labels)
    model = at.session_state["app"].model.last_good
    assert model.prep.query == "query" and model.booster.objective == "rank:ndcg"
    _assert_equals_xgboost(model)
    at.selectbox(key="p_objective").set_value("rank:pairwise").run()
    assert not at.exception and not at.error
    model = at.session_state["app"].model.last_good
    assert model.booster.objective == "rank:pairwise"
    _assert_equals_xgboost(model)
    at.segmented_control(key="p_lambdarank_pair_method").set_value("mean").run()
    at.number_input(key="p_lambdarank_num_pair_per_sample").set_value(3).run()
    assert not at.exception and not at.error
    model = at.session_state["app"].model.last_good
    assert model.booster.params["lambdarank_pair_method"] == "mean"
    _assert_equals_xgboost(model)


def test_an_unsorted_upload_is_sorted_by_query():
    rng = np.random.default_rng(7)
    n = 90
    frame = pd.DataFrame({"q": rng.choice(["beta", "alpha", "gamma", "delta", "eps", "zeta"], n),
                          "a": rng.normal(size=n).round(3), "b": rng.uniform(size=n).round(3)})
    frame["rel"] = np.clip(np.round(frame.a + rng.normal(scale=0.5, size=n)) + 1, 0, 3)
    at = open_app()
    at.get("file_uploader")[0].set_value(
        ("ranks.csv", frame.to_csv(index=False).encode(), "text/csv")).run()
    at.selectbox(key="target").set_value("rel").run()
    at.selectbox(key="query_column").set_value("q").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    model = at.session_state["app"].model.last_good
    assert model.booster.objective == "rank:ndcg"
    assert any("Sorted the rows by 'q'" in note for note in model.prep.notes)
    assert (np.diff(model.prep.qid_train) >= 0).all()
    # a query's rows in the file's order: alpha's rows first, as they came
    alpha = frame[frame.q == "alpha"]
    held = 0 in set(model.prep.qid_valid)
    rows = model.prep.X_valid if held else model.prep.X_train
    qid = model.prep.qid_valid if held else model.prep.qid_train
    np.testing.assert_array_equal(rows[qid == 0].a.to_numpy(), alpha.a.to_numpy())
    _assert_equals_xgboost(model)


@pytest.mark.parametrize("target,message", [("q", "also the target"),
                                            ("name", "holds text")])
def test_a_query_column_that_cannot_rank_is_explained(target, message):
    frame = pd.DataFrame({"q": [1, 1, 2, 2], "x": [1.0, 2, 3, 4], "name": list("abcd")})
    with pytest.raises(tables.DataError, match=message):
        tables.prepare(frame, target, ["x"], query="q")


# --------------------------------------------------------------------------- the view
@pytest.fixture(scope="module")
def ranked():
    frame = pd.read_csv(DATA_DIR / "search_queries.csv")
    prep = tables.prepare(frame, "relevance", ["text_match", "age_days", "visits", "words"],
                          query="query")
    models = {objective: boost.train({"objective": objective}, prep.X_train, prep.y_train, 3,
                                     qid=prep.qid_train)
              for objective in ("rank:ndcg", "rank:pairwise")}
    # mean's pairs: a random draw per round and query, which the view draws again
    models["mean"] = boost.train({"objective": "rank:ndcg", "lambdarank_pair_method": "mean",
                                  "lambdarank_num_pair_per_sample": 2}, prep.X_train,
                                 prep.y_train, 3, qid=prep.qid_train)
    return models, prep


@pytest.mark.parametrize("objective", ["rank:ndcg", "rank:pairwise", "mean"])
def test_the_views_pairs_add_up_to_the_gradients_the_tree_was_grown_on(ranked, objective):
    boosters, prep = ranked
    booster = boosters[objective]
    for query in (0, 7, int(prep.qid_train.max())):
        if query not in prep.qid_train:
            continue
        for r in (1, 2, 3):
            data = query_round(booster, prep, query, r)
            g = np.zeros(len(data["rows"]), dtype=np.float32)
            for a, b, lam in zip(data["high"], data["low"], data["lam"], strict=True):
                g[a] += lam  # in the objective's order, as it adds them
                g[b] += -lam
            expected = booster.round_view(r - 1).grad[data["rows"], 0]
            np.testing.assert_array_equal(g * data["norm"], expected)
            np.testing.assert_array_equal(data["g"], expected)


def test_a_pairs_lambda_at_round_1_by_hand(ranked):
    """Round 1: every score is the baseline, so σ(0) = 1/2, the list keeps the file's
    order (a stable sort of ties) and score normalisation is off (best = worst score):
    λ = (1/2 − 1)·|ΔNDCG| with ΔNDCG = (2^y_h − 2^y_l)(1/log2(2 + i_h) − 1/log2(2 + i_l))
    / IDCG@32."""
    boosters, prep = ranked
    data = query_round(boosters["rank:ndcg"], prep, 0, 1)
    y = data["y"]
    ideal = np.sort(y)[::-1][:32]
    idcg = np.sum((2.0 ** ideal - 1) / np.log2(np.arange(len(ideal)) + 2))
    for a, b, lam in list(zip(data["high"], data["low"], data["lam"], strict=True))[:20]:
        delta = abs((2.0 ** y[a] - 2.0 ** y[b]) * (1 / np.log2(a + 2) - 1 / np.log2(b + 2)))
        assert lam == pytest.approx(-0.5 * delta / idcg, rel=1e-6)
    assert np.all(data["before"] == data["before"][0])


def test_the_ranking_view_draws_a_query(ranked):
    at = open_app(sample="search_queries", round="2", view="ranking")
    assert not at.exception and not at.error, [e.value for e in at.error]
    picker = at.selectbox(key="rank_query")
    assert len(picker.options) == len(np.unique(
        at.session_state["app"].model.last_good.prep.qid_train))
    picker.select_index(1).run()
    assert not at.exception and not at.error
    assert any("pairs of documents with different relevance" in c.value for c in at.caption)


def test_the_ranking_view_draws_means_pairs():
    at = open_app(sample="search_queries", round="2", view="ranking",
                  lambdarank_pair_method="mean")
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert not [i.value for i in at.info if "cannot be shown" in i.value]
    assert any("this round's random draw" in c.value for c in at.caption)


def test_rank_map_on_graded_relevance_says_which_target_and_what_to_do():
    frame = pd.DataFrame({"q": [1, 1, 1, 2, 2, 2], "x": [1.0, 2, 3, 4, 5, 6],
                          "rel": [0, 2, 1, 0, 1, 3]})
    with pytest.raises(tables.DataError, match="The target 'rel' has labels other than 0 and 1"
                                               ".*Use rank:ndcg"):
        tables.prepare(frame, "rel", ["x"], query="q", objective="rank:map")
    binary = frame.assign(rel=(frame.rel > 0).astype(int))
    assert tables.prepare(binary, "rel", ["x"], query="q", objective="rank:map").objective \
        == "rank:map"


@pytest.mark.parametrize("view", ["newton-vs-first-order", "function-space"])
def test_views_that_follow_rows_say_why_they_do_not_apply_to_ranking(view):
    at = open_app(sample="three_queries", round="1", view=view)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("Ranking pairs view" in i.value for i in at.info), [i.value for i in at.info]
