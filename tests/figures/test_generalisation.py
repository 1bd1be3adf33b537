"""The generalisation view's numbers against XGBoost 3.2: each round's margins (staged, one
walk of the trees), the scores they give, their distributions, the step sizes (from XGBoost's
own leaf values) and the train–validation gaps (its ``evals_result``); the reading's two
sentences on constructed cases; the second η read from a link."""

import numpy as np
import pytest
import xgboost as xgb
from oracle import xgb_margin, xgb_train

import boost
from boost.trace.margins import TAILS
from ui import url
from viz import generalisation as gen

ROUNDS = 12


def _data(task: str, n: int = 320, seed: int = 3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[rng.random(X.shape) < 0.05] = np.nan  # missing values take the default direction
    signal = 1.5 * np.nan_to_num(X[:, 0]) - np.nan_to_num(X[:, 1]) ** 2
    if task == "regression":
        y = signal + rng.normal(scale=0.8, size=n)
    elif task == "binary":
        y = (signal + rng.normal(scale=1.0, size=n) > -0.5).astype(float)
    else:
        y = np.digitize(signal + rng.normal(scale=0.7, size=n), [-1.0, 0.5]).astype(float)
    cut = int(0.8 * n)
    return X[:cut], y[:cut], X[cut:], y[cut:]


PARAMS = {
    "regression": {"objective": "reg:squarederror", "tree_method": "exact", "max_depth": 3},
    "binary": {"objective": "binary:logistic", "tree_method": "hist", "max_depth": 3},
    "multiclass": {"objective": "multi:softprob", "num_class": 3, "tree_method": "hist",
                   "max_depth": 2},
}


def _xgb_scores(task, margin, y):
    """The score worked out here from XGBoost's margins (independently of viz)."""
    if task == "regression":
        return y - margin.astype(np.float64)
    if task == "binary":
        return (2 * y - 1) * margin.astype(np.float64)
    m = margin.astype(np.float64)
    true = m[np.arange(len(y)), y.astype(int)]
    other = np.where(np.eye(3, dtype=bool)[y.astype(int)], -np.inf, m).max(axis=1)
    return true - other


def _xgb_steps(model, X, rounds, groups):
    """mean |leaf value| of each round's trees over the rows, from XGBoost's tree table."""
    frame = model.trees_to_dataframe()
    value = {(t, n): v for t, n, v in zip(frame.Tree, frame.Node, frame.Gain, strict=True)}
    leaves = model.predict(xgb.DMatrix(X, missing=np.nan), pred_leaf=True).astype(int)
    leaves = leaves.reshape(len(X), -1)
    out = []
    for r in range(1, rounds + 1):
        trees = range((r - 1) * groups, r * groups)
        out.append(np.mean([[abs(value[(t, leaves[i, t])]) for t in trees]
                            for i in range(len(X))]))
    return np.array(out)


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
def test_summary_and_histograms_match_xgboost(task):
    Xt, yt, Xv, yv = _data(task)
    params = {**PARAMS[task], "eta": 0.3}
    bst = boost.train(params, Xt, yt, ROUNDS, evals=[(Xt, yt, "train"), (Xv, yv, "valid")])
    model, result = xgb_train(params, Xt, yt, ROUNDS, evals=[(Xt, yt, "train"), (Xv, yv,
                                                                                  "valid")])
    sets = {"train": (Xt, yt), "valid": (Xv, yv)}
    summary = bst.trace.margin_summary(sets)
    edges = gen.common_edges([summary])
    hist = bst.trace.margin_histograms(sets, edges).percent
    assert summary.rounds == ROUNDS and summary.task == task
    for r in range(1, ROUNDS + 1):
        for name, (X, y) in sets.items():
            margin = model.predict(xgb.DMatrix(X, missing=np.nan), output_margin=True,
                                   iteration_range=(0, r))
            s = _xgb_scores(task, margin, y)
            lo, hi = np.quantile(s, TAILS)
            assert summary.low[name][r] == lo and summary.high[name][r] == hi
            typical = np.median(np.abs(s)) if task == "regression" else np.mean(s < 0)
            assert summary.typical[name][r] == typical
            centre = np.median(np.abs(s)) if task == "regression" else np.mean(s)
            assert summary.centre[name][r] == centre
            counts = np.histogram(np.clip(s, edges[0], edges[-1]), bins=edges)[0]
            np.testing.assert_array_equal(hist[name][r], 100.0 * counts / len(y))
    groups = 3 if task == "multiclass" else 1
    np.testing.assert_allclose(summary.step[1:], _xgb_steps(model, Xt, ROUNDS, groups),
                               rtol=1e-5)
    metric = summary.metric
    gap = np.array(result["valid"][metric]) - np.array(result["train"][metric])
    loss = summary.loss
    np.testing.assert_allclose((loss["valid"] - loss["train"]).to_numpy()[1:], gap,
                               rtol=1e-5, atol=1e-7)


def test_staged_margins_are_predicts_bit_for_bit():
    Xt, yt, Xv, _ = _data("multiclass")
    bst = boost.train({**PARAMS["multiclass"], "eta": 0.5}, Xt, yt, ROUNDS)
    model, _ = xgb_train({**PARAMS["multiclass"], "eta": 0.5}, Xt, yt, ROUNDS)
    seen = []
    for r, margin in bst.staged_margins(Xv):
        seen.append(r)
        if r == 0:
            np.testing.assert_array_equal(margin, np.tile(bst.base_margin, (len(Xv), 1)))
            continue
        np.testing.assert_array_equal(
            margin, bst.predict(Xv, output_margin=True, iteration_range=(0, r)))
        np.testing.assert_array_equal(
            margin, model.predict(xgb.DMatrix(Xv, missing=np.nan), output_margin=True,
                                  iteration_range=(0, r)))
    assert seen == list(range(ROUNDS + 1))
    assert np.array_equal(margin, xgb_margin(model, Xv))


def test_edges_cover_every_round_and_put_zero_on_an_edge():
    Xt, yt, Xv, yv = _data("binary")
    sets = {"train": (Xt, yt), "valid": (Xv, yv)}
    fast = boost.train({**PARAMS["binary"], "eta": 1.0}, Xt, yt, ROUNDS).trace.margin_summary(
        sets)
    slow = boost.train({**PARAMS["binary"], "eta": 0.05}, Xt, yt, ROUNDS).trace.margin_summary(
        sets)
    edges = gen.common_edges([fast, slow], bins=40)
    assert edges[0] <= min(fast.low["train"].min(), slow.low["valid"].min())
    assert edges[-1] >= max(fast.high["train"].max(), slow.high["valid"].max())
    assert 0.0 in edges and 40 <= len(edges) - 1 <= 42
    # eta 1 moves the margins much further than eta 0.05: its tails are wider
    assert fast.high["train"][-1] - fast.low["train"][-1] > \
        3 * (slow.high["train"][-1] - slow.low["train"][-1])


def _facts(eta, gap, valid, step, centre_train, centre_valid, task="binary", r=30,
           typical=(0.05, 0.1)):
    return gen.Facts(eta=eta, task=task, metric="logloss" if task != "regression" else "rmse",
                     round=r, train=valid - gap, valid=valid, gap=gap, step=step,
                     typical_train=typical[0], typical_valid=typical[1],
                     centre_train=centre_train, centre_valid=centre_valid)


def test_reading_when_small_steps_keep_the_gap_small():
    big = _facts(0.3, gap=0.41, valid=0.52, step=0.21, centre_train=3.1, centre_valid=2.2)
    small = _facts(0.05, gap=0.08, valid=0.39, step=0.04, centre_train=1.3, centre_valid=1.25)
    text = gen.reading(big, small, 30)
    assert text.count(". ") == 1 and text.endswith(".")  # two sentences
    assert ("By round 30 the train–validation gap (logloss, validation − train) is 0.41 with "
            "η = 0.3 but 0.08 with η = 0.05, and η = 0.05 also has the lower validation "
            "logloss (0.39 against 0.52).") in text
    assert ("Round 30's trees move a training row's margin by 0.21 on average with η = 0.3, "
            "by 0.04 with η = 0.05") in text
    assert "η = 0.3 has fitted its training rows further ahead of its validation rows " \
           "(mean y·margin 3.1 against 2.2) than η = 0.05 (1.3 and 1.25): big steps" in text
    assert gen.reading(small, big, 30) == text  # the order of the two does not matter
    even = _facts(0.3, gap=0.41, valid=0.52, step=0.21, centre_train=4.07, centre_valid=4.13)
    assert ("and neither has pushed its training rows ahead of its validation rows (mean "
            "y·margin, train and validation: 4.07 and 4.13 with η = 0.3, 1.3 and 1.25 with "
            "η = 0.05).") in gen.reading(even, small, 30)
    level = _facts(0.05, gap=0.08, valid=0.39, step=0.04, centre_train=2.1, centre_valid=1.22)
    assert ("the validation rows trail the training rows by about as much with both "
            "(mean y·margin, train and validation: 3.1 and 2.2 with η = 0.3, 2.1 and 1.22 "
            "with η = 0.05).") in gen.reading(big, level, 30)


def test_reading_changes_direction_when_the_data_says_otherwise():
    big = _facts(0.5, gap=0.05, valid=2.0, step=0.3, centre_train=1.9, centre_valid=2.0,
                 task="regression")
    small = _facts(0.02, gap=0.9, valid=2.4, step=0.5, centre_train=0.6, centre_valid=1.5,
                   task="regression")
    text = gen.reading(big, small, 30)
    assert "is 0.9 with η = 0.02 but 0.05 with η = 0.5, and η = 0.5 also has the lower " \
           "validation rmse (2 against 2.4)." in text
    assert "(η = 0.5 took its big steps early)" in text
    assert "η = 0.02 has fitted its training rows further ahead of its validation rows " \
           "(median |residual| 0.6 against 1.5) than η = 0.5 (1.9 and 2)" in text
    assert "it is the smaller η whose training rows run ahead" in text
    assert "big steps fit" not in text


def test_reading_calls_a_small_gap_with_a_higher_loss_underfitting():
    big = _facts(0.3, gap=0.09, valid=0.21, step=0.17, centre_train=2.5, centre_valid=2.2)
    small = _facts(0.05, gap=0.018, valid=0.47, step=0.056, centre_train=0.7, centre_valid=0.7)
    text = gen.reading(big, small, 10)
    assert "yet η = 0.05's validation logloss is higher (0.47 against 0.21): its small gap " \
           "means it has not fitted much yet" in text
    same = _facts(0.05, gap=0.018, valid=0.215, step=0.056, centre_train=0.7, centre_valid=0.7)
    assert "with about the same validation logloss (0.215 and 0.21)" in gen.reading(big, same,
                                                                                     10)
    even = _facts(0.05, gap=0.0905, valid=0.3, step=0.05, centre_train=1, centre_valid=0.7)
    assert "is about the same for both: 0.09 with η = 0.3 and 0.0905 with η = 0.05" in \
        gen.reading(big, even, 10)


def test_reading_at_round_zero_and_without_validation():
    a = _facts(0.3, gap=0.01, valid=0.69, step=None, centre_train=0.4, centre_valid=0.4, r=0)
    b = _facts(0.05, gap=0.01, valid=0.69, step=None, centre_train=0.4, centre_valid=0.4, r=0)
    assert gen.reading(a, b, 0).startswith("Round 0 is the baseline")
    lone = [gen.Facts(eta, "regression", "rmse", 3, train, None, None, step, typ, None, typ,
                      None)
            for eta, train, step, typ in ((0.3, 4.0, 1.68, 3.8), (0.05, 7.35, 0.38, 6.79))]
    text = gen.reading(*lone, 3)
    assert "training rmse is 4 with η = 0.3 and 7.35 with η = 0.05; there is no validation" \
           in text
    assert "median |residual| of training rows: 3.8 with η = 0.3, 6.79 with η = 0.05." in text


@pytest.mark.parametrize(("text", "value", "note"), [
    ("0.1", 0.1, None), ("1", 1.0, None), ("7", 1.0, "eta2=7 is outside 0.01 to 1: using 1"),
    ("-3", 0.01, "using 0.01"), ("inf", 1.0, "using 1"), ("nan", None, "not a number"),
    ("abc", None, "not a number"), ("<b>x</b>", None, "not a number"), ("", None, "not a"),
])
def test_second_eta_from_a_link(text, value, note):
    link = url.read({"eta2": text}, ["moons"], ["generalisation"], ())
    assert link.eta2 == value
    if note is None:
        assert link.notes == []
    else:
        assert len(link.notes) == 1 and note in link.notes[0]
    assert url.read({}, ["moons"], ["generalisation"], ()).eta2 is None
