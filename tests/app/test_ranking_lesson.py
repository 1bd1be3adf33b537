"""The ranking lesson's numbers against two oracles: XGBoost 3.2 (the model the lesson shows
is XGBoost's, margin for margin, round by round) and a hand computation of LambdaMART's pairs
at XGBoost's margins (λ = (σ(s₊ − s₋) − 1)·|ΔNDCG|, a document's g = Σ ±λ × log2(1 +
Σ|2λ|)/Σ|2λ|). The lesson's model is trained once for the module, as the offline lecture
trains it (the app's configuration of the lesson's sample, columns and parameters)."""

import json
import math

import numpy as np
import pytest
import xgboost as xgb

from boost.params import APP_PARAMS
from ui import lecture, training, url
from ui.lessons import LESSONS
from ui.lessons import ranking as lesson
from ui.lessons.facts import Facts, said
from ui.lessons.steps import setting
from ui.samples import BY_KEY
from ui.state import Shown

LESSON = LESSONS["ranking"]


@pytest.fixture(scope="module")
def lessons_model():
    """(the lesson's model, XGBoost 3.2's of the same rows, queries and parameters)."""
    table = lecture.sample_table(LESSON.sample)
    want = setting(LESSON, LESSON.steps[0], False)
    params = {p.name: want["params"].get(p.name, url.widget_default(p)) for p in APP_PARAMS}
    config = lecture.table_config(table, params, BY_KEY[LESSON.sample].target, None,
                                  want["objective"], BY_KEY[LESSON.sample].query)
    model = lecture.train(config, table)
    prep = model.prep
    theirs = {**training.engine_params(config, prep), "nthread": 1}
    del theirs["boosting"]  # BoostScope's own (Newton is XGBoost's)
    dtrain = xgb.DMatrix(prep.X_train.to_numpy(dtype=float), label=prep.y_train,
                         qid=prep.qid_train)
    bst = xgb.train(theirs, dtrain, config["num_boost_round"])
    return model, bst, dtrain


def _facts(model, r: int) -> Facts:
    shown = Shown(model.booster, model.prep, model.config, r, True)
    return Facts(shown, lambda config: None)


def _margins(bst, dtrain, r: int) -> np.ndarray:
    """XGBoost's margins after r >= 1 rounds."""
    return bst.predict(dtrain, output_margin=True, iteration_range=(0, r))


def _base(bst) -> float:
    """XGBoost's base score: every margin before the first tree."""
    config = json.loads(bst.save_config())
    return float(config["learner"]["learner_model_param"]["base_score"].strip("[]"))


def _by_hand(s: np.ndarray, y: np.ndarray) -> dict:
    """LambdaMART's topk pairs of one query by hand (k = 32 covers every document): each
    pair with different relevance, by positions in the list by score (ties in the table's
    order), λ = (σ(s₊ − s₋) − 1)·|ΔNDCG| (score normalisation off), and each document's g."""
    order = np.argsort(-s, kind="stable")
    position = np.empty(len(s), int)
    position[order] = np.arange(1, len(s) + 1)
    ideal = np.sort(y)[::-1]
    idcg = sum((2 ** v - 1) / math.log2(1 + i) for i, v in enumerate(ideal, start=1))
    pairs = {}
    for i in range(len(s)):
        for j in range(len(s)):
            if y[i] > y[j]:
                delta = abs((2 ** y[i] - 2 ** y[j]) * (1 / math.log2(1 + position[i])
                                                     - 1 / math.log2(1 + position[j]))) / idcg
                sig = 1 / (1 + math.exp(-(s[i] - s[j])))
                pairs[(i, j)] = {"delta": delta, "sig": sig, "lam": (sig - 1) * delta}
    total = sum(2 * abs(p["lam"]) for p in pairs.values())
    norm = math.log2(1 + total) / total
    g = np.zeros(len(s))
    for (i, j), p in pairs.items():
        g[i] += p["lam"]
        g[j] -= p["lam"]
    return {"pairs": pairs, "norm": norm, "g": g * norm, "position": position}


def test_the_lessons_model_is_xgboosts(lessons_model):
    model, bst, dtrain = lessons_model
    assert model.booster.objective == "rank:ndcg"
    assert model.prep.qid_train.tolist() == [0] * 4 + [1] * 5 + [2] * 4  # three queries
    for r in range(1, model.booster.num_boosted_rounds() + 1):
        ours = model.booster.round_view(r).margin[:, 0]
        np.testing.assert_allclose(ours, _margins(bst, dtrain, r), rtol=0, atol=1e-6)


@pytest.mark.parametrize("r", [1, 2, 10])
def test_each_pairs_lambda_and_each_documents_g_by_hand(lessons_model, r):
    """At XGBoost's margins after round r − 1, the pairs of round r's tree by hand equal the
    view's (the engine's), and the view's g are the g the engine grew the tree on."""
    model, bst, dtrain = lessons_model
    data = _facts(model, r).pairs()
    rows = data["rows"]
    s = (np.full(len(rows), _base(bst)) if r == 1
         else _margins(bst, dtrain, r - 1)[rows]).astype(np.float64)
    hand = _by_hand(s, data["y"])
    assert len(data["lam"]) == len(hand["pairs"])
    for hi, lo, lam, delta, sig in zip(data["high"], data["low"], data["lam"], data["delta"],
                                       data["sig"], strict=True):
        p = hand["pairs"][(hi, lo)]
        assert delta == pytest.approx(p["delta"], rel=1e-9)
        assert sig == pytest.approx(p["sig"], rel=1e-5)
        assert lam == pytest.approx(p["lam"], rel=1e-5, abs=1e-7)
    assert float(data["norm"]) == pytest.approx(hand["norm"], rel=1e-5)
    np.testing.assert_allclose(data["g"], hand["g"], rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(data["g"], model.booster.round_view(r - 1).grad[rows, 0])


def test_the_lessons_sentences_say_the_hand_numbers(lessons_model):
    model, bst, dtrain = lessons_model
    at1 = _by_hand(np.zeros(4), model.prep.y_train[:4])
    # step 3: the largest |λ| of round 1 (tied scores: σ(0) = 1/2), named and worked out
    (hi, lo), top = max(at1["pairs"].items(), key=lambda kv: abs(kv[1]["lam"]))
    named = lesson._by_hand(_facts(model, 1))
    assert (named["hi"], named["lo"]) == (f"d{hi + 1}", f"d{lo + 1}") == ("d2", "d1")
    assert (named["p_hi"], named["p_lo"]) == (at1["position"][hi], at1["position"][lo])
    assert said(named["sig"]) == "0.5"
    for key in ("dn", "lam"):
        assert said(named[key]) == said({"dn": top["delta"], "lam": top["lam"]}[key])
    assert said(named["lam"]) == said(-0.5 * top["delta"])
    # step 4: d2's g, the sum of its pairs' λ times the normalisation; in its leaf's rows
    g = lesson._g(_facts(model, 1))
    assert g["d"] == "d2" and said(g["g"]) == said(at1["g"][1])
    assert said(g["norm"]) == said(at1["norm"])
    assert g["count"] == sum(1 for pair in at1["pairs"] if 1 in pair)
    assert g["leaf"] == lesson.LEAF == LESSON.steps[3].node
    leaf_rows = model.booster.rows_in_node(1, lesson.LEAF)
    assert 1 in leaf_rows  # row 1 of the table: query #1's d2
    # step 5: after round 1 the list is in relevance order; round 2's largest |λ| by hand
    after1 = _margins(bst, dtrain, 1)[:4].astype(np.float64)
    hand2 = _by_hand(after1, model.prep.y_train[:4])
    (hi, lo), top2 = max(hand2["pairs"].items(), key=lambda kv: abs(kv[1]["lam"]))
    step5 = lesson._round2(_facts(model, 2))
    assert step5["pair"] == f"d{hi + 1} › d{lo + 1}"
    assert said(step5["lam"]) == said(top2["lam"]) and said(step5["sig"]) == said(top2["sig"])
    ranked = np.argsort(-after1, kind="stable")
    assert step5["order"] == " › ".join(f"d{d + 1}" for d in ranked)
    assert list(np.diff(model.prep.y_train[:4][ranked]) <= 0) == [True] * 3  # in order
    # step 6: every query in order (NDCG 1), and the pairs' λ smaller than at the start
    last = lesson._later(_facts(model, 10))
    assert last["ndcg"] == pytest.approx(1.0) and last["metric"] == "ndcg@32"
    m, y, q = _margins(bst, dtrain, 10), model.prep.y_train, model.prep.qid_train
    for query in range(3):
        mine = q == query
        assert (np.diff(y[mine][np.argsort(-m[mine], kind="stable")]) <= 0).all()
    assert abs(last["lam"]) < abs(top["lam"]) and last["sig"] > 0.5


def test_the_offline_lesson_builds_with_its_queries():
    data = lecture.lesson_data("ranking")
    assert len(data["steps"]) == len(LESSON.steps)
    for step in data["steps"]:
        assert "could not be read" not in step["say"], step["say"]
        assert "ranking" in step["at"]["app_panels"]  # the view is the app's ("in the app")
    assert "d2 › d4" in data["steps"][4]["revealed"]["reveal"]


def test_the_views_tables_say_the_pairs_and_the_documents(lessons_model):
    """The figure the lesson shows: the pairs table, largest |λ| first, with |ΔNDCG|, σ and
    λ as the text says them; the documents table with each document's g (the engine's)."""
    from viz.ranking import make_ranking_figure

    model, _, _ = lessons_model
    data = _facts(model, 1).pairs()
    fig = make_ranking_figure(data["before"], data["after"], data["y"], data["high"],
                              data["low"], data["lam"], float(data["norm"]), 1, large=True,
                              delta=data["delta"], sig=data["sig"], g=data["g"])
    pairs, docs = (t for t in fig.data if t.type == "table")
    order = np.argsort(-np.abs(data["lam"]), kind="stable")
    cells = pairs.cells.values
    assert list(cells[0]) == [f"d{data['high'][p] + 1} › d{data['low'][p] + 1}" for p in order]
    assert list(cells[1]) == [said(data["delta"][p]) for p in order]
    assert list(cells[3]) == [said(data["lam"][p]) for p in order]
    assert list(docs.cells.values[2]) == [said(v) for v in data["g"]]
    assert docs.header.values[2] == f"g = Σ ±λ × {said(float(data['norm']))}"
    # bold by the font: a header with markup is measured by Plotly, through a presenter
    # panel's CSS scale (it grew at 4K and cut the tables' last rows)
    assert pairs.header.font.weight == docs.header.font.weight == "bold"
    assert not any("<" in v for v in (*pairs.header.values, *docs.header.values))
    # the two tables share the height without overlapping
    assert docs.domain.y[1] < pairs.domain.y[0]
