"""Learning to rank against XGBoost 3.2 (rank:ndcg, rank:map, rank:pairwise; topk and mean
pairs; exact, hist, approx; uneven queries, per-query weights; ndcg@k / map@k; cv over
queries), a hand-computed query, C++'s minstd_rand, and the messages for bad input."""

import json

import numpy as np
import pytest
import xgboost as xgb

import boost
from boost import objectives
from boost.params import parse_params
from boost.ranking import _minstd, queries_of

OBJECTIVES = ["rank:ndcg", "rank:map", "rank:pairwise"]
METHODS = ["exact", "hist", "approx"]
PAIRS = ["topk", "mean"]


def _queries(seed: int, n_queries: int, n_features: int = 4):
    """Queries of 1 to 29 documents (uneven, one of a single document), graded labels 0..4,
    10% missing values, a column with heavy ties."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, n_queries)
    sizes[1] = 1
    n = int(sizes.sum())
    X = rng.normal(size=(n, n_features)).astype(np.float32)
    X[:, -1] = np.round(X[:, -1])
    X[rng.random(X.shape) < 0.1] = np.nan
    y = rng.integers(0, 5, n).astype(np.float32)
    qid = np.repeat(np.arange(n_queries) * 3 + 7, sizes)  # ids need not be 0..n-1
    return X, y, qid


@pytest.fixture(scope="module")
def data():
    X, y, qid = _queries(0, 9)
    Xv, yv, qv = _queries(1, 4)
    weight = np.random.default_rng(2).uniform(0.2, 3.0, 9).astype(np.float32)
    return X, y, qid, Xv, yv, qv, weight


def _labels(objective, y):
    return (y > 2).astype(np.float32) if objective == "rank:map" else y


def _both(params, X, y, qid, rounds, weight=None, evals=()):
    """(ours, XGBoost's model, XGBoost's evals_result) on the same queries."""
    ours = boost.train(params, X, y, rounds, qid=qid, sample_weight=weight,
                       evals=[(Xe, ye, name, we, qe) for Xe, ye, name, we, qe in evals])
    result = {}
    ref = xgb.train({"nthread": 1, **params}, xgb.DMatrix(X, y, qid=qid, weight=weight), rounds,
                    evals=[(xgb.DMatrix(Xe, ye, qid=qe, weight=we), name)
                           for Xe, ye, name, we, qe in evals],
                    evals_result=result, verbose_eval=False)
    return ours, ref, result


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("pairs", PAIRS)
@pytest.mark.parametrize("objective", OBJECTIVES)
def test_identical_trees_margins_and_metric(data, objective, pairs, method):
    X, y, qid, Xv, yv, qv, weight = data
    y, yv = _labels(objective, y), _labels(objective, yv)
    params = {"objective": objective, "lambdarank_pair_method": pairs, "tree_method": method,
              "max_depth": 3, "max_bin": 16}
    # every other configuration: per-query weights, a number of pairs of its own, and
    # (for the NDCG objectives) the label itself as the gain
    weighted = (OBJECTIVES.index(objective) + PAIRS.index(pairs) + METHODS.index(method)) % 2
    if weighted:
        params["lambdarank_num_pair_per_sample"] = 3 if pairs == "mean" else 5
        if objective != "rank:map":
            params["ndcg_exp_gain"] = False
    w = weight if weighted else None
    ours, ref, result = _both(params, X, y, qid, 6, w,
                              evals=[(Xv, yv, "valid", np.array([0.5, 1, 2, 1], np.float32), qv)])
    assert ours.get_dump("json") == ref.get_dump(dump_format="json", with_stats=True)
    for rows in (X, Xv):
        margin = ref.predict(xgb.DMatrix(rows), output_margin=True)
        assert np.abs(ours.predict(rows, output_margin=True) - margin).max() <= 1e-5
    (name, curve), = result["valid"].items()
    assert ours.metric_name == name
    assert ours.evals_result()["valid"][name] == pytest.approx(curve, abs=1e-12)
    stated = json.loads(ref.save_config())["learner"]["learner_model_param"]["base_score"]
    assert np.float32(stated.strip("[]")) == ours.base_score[0]  # ~1e-9: rounding noise


@pytest.mark.parametrize("metric", ["ndcg", "ndcg@3", "ndcg@2-", "map", "map@4", "map-"])
def test_metrics_as_xgboost(data, metric):
    """ndcg@k and map@k, with their '-' forms, on queries whose labels are all equal (one
    has nothing relevant) and at round 1, where every document of a query ties."""
    X, y, qid, Xv, yv, qv, _ = data
    yv = yv.copy()
    yv[qv == qv[0]] = 0.0  # a query with nothing relevant: scored 1 (0 with '-')
    objective = "rank:map" if metric.startswith("map") else "rank:ndcg"
    y, yv = _labels(objective, y), _labels(objective, yv)
    ours, _, result = _both({"objective": objective, "eval_metric": metric, "max_depth": 2,
                             "eta": 0.01}, X, y, qid, 3, evals=[(Xv, yv, "valid", None, qv)])
    assert ours.evals_result()["valid"][metric] == pytest.approx(result["valid"][metric],
                                                                 abs=1e-12)


def test_cv_keeps_queries_together(data):
    X, y, qid, *_ = data
    params = {"objective": "rank:ndcg", "tree_method": "hist", "max_depth": 2}
    ours = boost.cv(params, X, y, 6, nfold=3, seed=4, qid=qid, early_stopping_rounds=2)
    ref = xgb.cv({"nthread": 1, **params}, xgb.DMatrix(X, y, qid=qid), 6, nfold=3, seed=4,
                 early_stopping_rounds=2)
    assert list(ours.columns) == list(ref.columns)
    np.testing.assert_allclose(ours.to_numpy(), ref.to_numpy(), rtol=0, atol=1e-12)


def test_saved_model_is_xgboosts(data, tmp_path):
    X, y, qid, *_ = data
    ours = boost.train({"objective": "rank:pairwise", "lambdarank_pair_method": "mean",
                        "lambdarank_num_pair_per_sample": 2}, X, y, 3, qid=qid)
    ours.save_model(tmp_path / "m.json")
    ref = xgb.Booster(model_file=str(tmp_path / "m.json"))
    assert np.array_equal(ref.predict(xgb.DMatrix(X), output_margin=True),
                          ours.predict(X, output_margin=True))
    objective = json.loads(ref.save_config())["learner"]["objective"]
    assert objective["lambdarank_param"]["lambdarank_pair_method"] == "mean"
    assert boost.load_model(tmp_path / "m.json")._params.lambdarank_num_pair_per_sample == 2


def test_one_query_by_hand():
    """Three documents of one query, labels 2, 0, 1, every margin equal (round 1): σ = 1/2,
    so each pair adds ∓|ΔZ|/2 to g and |ΔZ|/2 to h. rank:pairwise (|ΔZ| = 1), topk, no
    normalisation: the best document is in 2 pairs as the better one, the middle label in
    one as each, the worst in 2 as the worse."""
    y = np.array([2.0, 0.0, 1.0], dtype=np.float32)
    p = parse_params({"objective": "rank:pairwise", "lambdarank_normalization": False})
    g, h = objectives.gradients(p.objective, np.zeros((3, 1), np.float32), y, None, p.loss,
                                queries=queries_of(None, 3))
    assert g[:, 0].tolist() == [-1.0, 1.0, 0.0]
    assert h[:, 0].tolist() == [1.0, 1.0, 1.0]
    # NDCG: swapping documents at ranks i, j changes DCG by (2^y_i − 2^y_j)(1/log2(i+2) −
    # 1/log2(j+2)); IDCG = 3 + 1/log2(3) + 0
    p = parse_params({"objective": "rank:ndcg", "lambdarank_normalization": False})
    g, _ = objectives.gradients(p.objective, np.zeros((3, 1), np.float32), y, None, p.loss,
                                queries=queries_of(None, 3))
    idcg = 3.0 + 1.0 / np.log2(3.0)
    d01 = 3.0 * (1.0 - 1.0 / np.log2(3.0)) / idcg  # ranks 0 (y=2) and 1 (y=0)
    d02 = 2.0 * (1.0 - 1.0 / np.log2(4.0)) / idcg  # ranks 0 (y=2) and 2 (y=1)
    d12 = 1.0 * (1.0 / np.log2(3.0) - 1.0 / np.log2(4.0)) / idcg  # ranks 2 (y=1) over 1 (y=0)
    assert g[:, 0] == pytest.approx([-(d01 + d02) / 2, (d01 + d12) / 2, (d02 - d12) / 2],
                                    rel=1e-6)


def test_minstd_rand():
    """C++'s minstd_rand: the 10000th number from the default seed (1) is 399268537, as the
    C++ standard requires of it."""
    state = 1
    for _ in range(10000):
        state = _minstd.py_func(state)
    assert state == 399268537


@pytest.mark.parametrize("call, message", [
    (lambda X, y, q: boost.train({"objective": "rank:ndcg"}, X, y, 1, qid=q[::-1]),
     "sorted in non-decreasing order"),
    (lambda X, y, q: boost.train({"objective": "rank:ndcg"}, X, y, 1, qid=q,
                                 sample_weight=np.ones(len(y))), "one weight per query"),
    (lambda X, y, q: boost.train({"objective": "rank:map"}, X, y, 1, qid=q),
     "binary labels"),
    (lambda X, y, q: boost.train({"objective": "rank:ndcg"}, X, y + 0.5, 1, qid=q),
     "ndcg_exp_gain"),
    (lambda X, y, q: boost.train({"objective": "rank:ndcg", "lambdarank_unbiased": True}, X, y,
                                 1, qid=q), "unbiased"),
    (lambda X, y, q: boost.train({}, X, y, 1, qid=q), "applies to the ranking objectives"),
    (lambda X, y, q: boost.train({"objective": "rank:ndcg", "eval_metric": "ndcg@x"}, X, y, 1,
                                 qid=q), "Unknown ranking metric"),
    (lambda X, y, q: boost.cv({"objective": "rank:ndcg"}, X, y, 1, nfold=100, qid=q),
     "queries"),
])
def test_bad_input_says_what_to_do(data, call, message):
    X, y, qid, *_ = data
    with pytest.raises(ValueError, match=message):
        call(X, y, qid)


def test_the_trace_recomputes_each_rounds_pairs(data):
    """A round view's gradients are the ones its tree was grown on (mean pairs: the draw
    of that round): the root's G and H are their sums."""
    X, y, qid, *_ = data
    bst = boost.train({"objective": "rank:ndcg", "lambdarank_pair_method": "mean",
                       "tree_method": "exact", "max_depth": 2}, X, y, 3, qid=qid)
    trees = bst.trees_to_dataframe()
    roots = trees[trees.Node == 0]
    for r in (1, 2, 3):
        view = bst.round_view(r - 1)
        root = roots[roots.Round == r].iloc[0]
        assert root.SumGrad == pytest.approx(float(np.sum(view.grad[:, 0], dtype=np.float64)),
                                             abs=1e-6)
        assert root.Cover == pytest.approx(float(np.sum(view.hess[:, 0], dtype=np.float64)),
                                           rel=1e-6)


def test_a_sample_with_its_queries(data, tmp_path):
    """XGBoost's own model with a data sample and its qid: the sample's metric per round is
    XGBoost's."""
    X, y, qid, *_ = data
    d = xgb.DMatrix(X, y, qid=qid)
    result = {}
    ref = xgb.train({"objective": "rank:ndcg", "nthread": 1}, d, 3, evals=[(d, "s")],
                    evals_result=result, verbose_eval=False)
    ref.save_model(str(tmp_path / "r.json"))
    seen = boost.load_model(tmp_path / "r.json").with_data(X, y, qid=qid)
    assert seen.loss_history()["sample"].tolist()[1:] == pytest.approx(
        result["s"]["ndcg@32"], abs=1e-12)


def test_two_rows_alone_have_no_ranking_gradient(data):
    from boost.trace.function_space import function_space
    X, y, qid, *_ = data
    bst = boost.train({"objective": "rank:ndcg", "max_depth": 2}, X, y, 1, qid=qid)
    with pytest.raises(ValueError, match="whole query"):
        function_space(bst, X[:2], y[:2], None, (0, 1), 1)
