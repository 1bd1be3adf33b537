"""boost.sweep: every grid point's losses per round equal XGBoost's evals_result() for the
same parameters (and boost.train's, bit for bit); the per-round model facts equal what
XGBoost's own trees say; bad grids, cancellation and progress behave as documented."""

import threading

import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from datasets import make_data

import boost

OBJECTIVES = {"reg:squarederror": "rmse", "binary:logistic": "logloss"}


def _xgb(params, X, y, rounds, X_val, y_val, early_stopping_rounds=None):
    """XGBoost's evals_result() and its booster (nthread=1: the reference order)."""
    result = {}
    model = xgb.train({"nthread": 1, **params}, xgb.DMatrix(X, label=y, missing=np.nan), rounds,
                      evals=[(xgb.DMatrix(X, label=y, missing=np.nan), "train"),
                             (xgb.DMatrix(X_val, label=y_val, missing=np.nan), "valid")],
                      evals_result=result, early_stopping_rounds=early_stopping_rounds,
                      verbose_eval=False)
    return result, model


def _xgb_facts(model) -> pd.DataFrame:
    """Leaves, Σ|leaf value| and depth reached per round, read from XGBoost's own trees."""
    rows = []
    for dump in model.get_dump(dump_format="text"):
        lines = dump.splitlines()
        leaves = [ln for ln in lines if "leaf=" in ln]
        values = [abs(float(ln.split("leaf=")[1].split(",")[0])) for ln in leaves]
        depths = [len(ln) - len(ln.lstrip("\t")) for ln in leaves]
        rows.append((len(leaves), sum(values), max(depths)))
    return pd.DataFrame(rows, columns=["leaves", "sum_abs_leaf", "depth"])


@pytest.mark.parametrize("method", ["exact", "hist"])
@pytest.mark.parametrize("objective", list(OBJECTIVES))
def test_sweep_losses_and_facts_equal_xgboost(method, objective):
    X, y = make_data(seed=11, n=400, nan=0.05, objective=objective)
    X_val, y_val = make_data(seed=12, n=200, nan=0.05, objective=objective)
    params = {"objective": objective, "tree_method": method, "max_depth": 4}
    grid = {"eta": [0.1, 0.5], "gamma": [0.0, 2.0]}
    frame = boost.sweep(params, X, y, grid, 12, evals=[(X_val, y_val, "valid")])
    metric = OBJECTIVES[objective]
    assert list(frame.columns) == ["point", "eta", "gamma", "round", f"train-{metric}",
                                   f"valid-{metric}", "leaves", "pruned", "sum_abs_leaf",
                                   "depth"]
    assert frame.attrs == {"metric": metric, "evals": ["valid"]}
    points = [(0.1, 0.0), (0.1, 2.0), (0.5, 0.0), (0.5, 2.0)]  # first key slowest
    for i, (eta, gamma) in enumerate(points):
        rows = frame[frame["point"] == i]
        assert (rows["eta"] == eta).all() and (rows["gamma"] == gamma).all()
        assert rows["round"].tolist() == list(range(1, 13))
        ref, model = _xgb({**params, "eta": eta, "gamma": gamma}, X, y, 12, X_val, y_val)
        for name in ("train", "valid"):
            np.testing.assert_allclose(rows[f"{name}-{metric}"], ref[name][metric], rtol=1e-5)
        facts = _xgb_facts(model)
        assert rows["leaves"].tolist() == facts["leaves"].tolist()
        assert rows["depth"].tolist() == facts["depth"].tolist()
        np.testing.assert_allclose(rows["sum_abs_leaf"], facts["sum_abs_leaf"], rtol=1e-5)


@pytest.mark.parametrize("method", ["exact", "hist"])
@pytest.mark.parametrize("objective", list(OBJECTIVES))
def test_sweep_early_stopping_equals_xgboost(method, objective):
    # eta 1 overfits this small set quickly: the points stop at different rounds.
    X, y = make_data(seed=13, n=300, objective=objective)
    X_val, y_val = make_data(seed=14, n=150, objective=objective)
    params = {"objective": objective, "tree_method": method}
    grid = {"eta": [0.05, 1.0], "max_depth": [2, 6]}
    frame = boost.sweep(params, X, y, grid, 60, evals=[(X_val, y_val, "valid")],
                        early_stopping_rounds=4)
    metric = OBJECTIVES[objective]
    lengths = set()
    for i, (eta, depth) in enumerate([(0.05, 2), (0.05, 6), (1.0, 2), (1.0, 6)]):
        rows = frame[frame["point"] == i]
        point = {**params, "eta": eta, "max_depth": depth}
        ref, model = _xgb(point, X, y, 60, X_val, y_val, early_stopping_rounds=4)
        assert len(rows) == len(ref["valid"][metric]) == model.num_boosted_rounds()
        np.testing.assert_allclose(rows[f"valid-{metric}"], ref["valid"][metric], rtol=1e-5)
        best = int(np.argmin(rows[f"valid-{metric}"].to_numpy()))
        assert best == model.best_iteration
        lengths.add(len(rows))
    assert len(lengths) > 1  # the stops differ: the test sees per-point stopping


@pytest.mark.parametrize("method", ["exact", "hist", "approx"])
def test_sweep_is_train_bit_for_bit(method):
    X, y = make_data(seed=15, n=300, nan=0.1, objective="binary:logistic")
    X_val, y_val = make_data(seed=16, n=100, nan=0.1, objective="binary:logistic")
    params = {"objective": "binary:logistic", "tree_method": method, "subsample": 0.8,
              "colsample_bynode": 0.7}
    grid = {"max_depth": [2, 5], "min_child_weight": [0.5, 4.0], "lambda": [0.0, 3.0]}
    frame = boost.sweep(params, X, y, grid, 8, evals=[(X_val, y_val, "valid")],
                        sample_weight=np.linspace(0.5, 2.0, len(y)))
    assert frame["point"].nunique() == 8
    for _, rows in frame.groupby("point"):
        point = {k: rows[k].iloc[0] for k in grid}
        w = np.linspace(0.5, 2.0, len(y))
        bst = boost.train({**params, **point}, X, y, 8,
                          evals=[(X, y, "train", w), (X_val, y_val, "valid")], sample_weight=w)
        result = bst.evals_result()
        assert rows["valid-logloss"].tolist() == result["valid"]["logloss"]
        assert rows["train-logloss"].tolist() == bst.loss_history()["train"].tolist()[1:]
        trees = bst.trees_to_dataframe(include_pruned=True)
        for r, row in zip(range(8), rows.itertuples(), strict=True):
            tree = trees[trees["Tree"] == r]
            kept = tree[~tree["Pruned"]]
            assert row.leaves == int(kept["Leaf"].sum())
            assert row.pruned == len(tree) - len(kept)


def test_sweep_counts_pruned_nodes():
    # exact grows then prunes: a large gamma removes nodes, and the sweep counts them.
    X, y = make_data(seed=17, n=200)
    frame = boost.sweep({"tree_method": "exact", "max_depth": 4}, X, y,
                        {"gamma": [0.0, 30.0]}, 3)
    pruned = frame.groupby("point")["pruned"].sum()
    assert pruned[0] == 0 and pruned[1] > 0
    bst = boost.train({"tree_method": "exact", "max_depth": 4, "gamma": 30.0}, X, y, 3)
    removed = bst.trees_to_dataframe(include_pruned=True)
    assert pruned[1] == len(removed) - len(bst.trees_to_dataframe())


@pytest.mark.parametrize("grid,message", [
    ({}, "non-empty dict"),
    ({"colour": [1]}, "not a parameter"),
    ({"eta": []}, "is empty"),
    ({"eta": 0.3}, "must be a list"),
    ({"eta": [0.3], "learning_rate": [0.1]}, "same parameter"),
    ({"num_boost_round": [10, 20]}, "cannot be swept"),
    ({"objective": ["binary:logistic"]}, "cannot be swept"),
    ({"max_depth": [3, -1]}, "grid point {'max_depth': -1}"),
])
def test_bad_grids_say_what_is_wrong(grid, message):
    X, y = make_data(seed=18, n=50)
    with pytest.raises(ValueError, match=message.replace("{", r"\{").replace("}", r"\}")):
        boost.sweep({}, X, y, grid, 3)


def test_progress_reports_each_point_and_can_stop_the_sweep():
    X, y = make_data(seed=19, n=200)
    seen = []
    frame = boost.sweep({}, X, y, {"eta": [0.1, 0.2, 0.3]}, 4,
                        progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (3, 3) and all(total == 3 for _, total in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert len(frame) == 12

    class Interrupted(Exception):
        pass

    def interrupt(done, total):
        raise Interrupted

    with pytest.raises(Interrupted):
        boost.sweep({}, X, y, {"eta": [0.1] * 6}, 200, progress=interrupt)


def test_cancel_event_stops_the_sweep():
    X, y = make_data(seed=20, n=2000, n_features=8)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(boost.SweepCancelled):
        boost.sweep({"tree_method": "exact"}, X, y, {"eta": [0.1, 0.2, 0.3, 0.4]}, 500,
                    cancel=cancel)


def test_multiple_eval_sets_and_weights_are_named_as_evals_result():
    X, y = make_data(seed=21, n=200)
    A, a = make_data(seed=22, n=80)
    B, b = make_data(seed=23, n=80)
    frame = boost.sweep({"objective": "reg:absoluteerror"}, X, y, {"eta": [0.3]}, 5,
                        evals=[(A, a, "a"), (B, b, "b", np.full(80, 2.0))])
    assert [c for c in frame.columns if c.endswith("-mae")] == ["train-mae", "a-mae", "b-mae"]
    bst = boost.train({"objective": "reg:absoluteerror", "eta": 0.3}, X, y, 5,
                      evals=[(A, a, "a"), (B, b, "b", np.full(80, 2.0))])
    assert frame["b-mae"].tolist() == bst.evals_result()["b"]["mae"]


@pytest.mark.parametrize("method", ["exact", "hist"])
def test_the_xgboost_idiom_evals_named_train_equals_xgboost(method):
    # evals=[(X, y, "train"), (X_val, y_val, "valid")]: XGBoost's own examples' line
    X, y = make_data(seed=13, n=300, nan=0.05, objective="binary:logistic")
    X_val, y_val = make_data(seed=14, n=150, nan=0.05, objective="binary:logistic")
    params = {"objective": "binary:logistic", "tree_method": method, "max_depth": 3}
    evals = [(X, y, "train"), (X_val, y_val, "valid")]
    ours = boost.train(params, X, y, 10, evals=evals)
    ref, _ = _xgb(params, X, y, 10, X_val, y_val)
    assert list(ours.evals_result()) == ["train", "valid"]
    for name in ("train", "valid"):
        np.testing.assert_allclose(ours.evals_result()[name]["logloss"], ref[name]["logloss"],
                                   rtol=1e-5)
    assert list(ours.loss_history().columns) == ["train", "valid"]
    frame = boost.sweep(params, X, y, {"eta": [0.3, 0.5]}, 10, evals=evals)
    assert list(frame.columns[3:5]) == ["train-logloss", "valid-logloss"]
    assert frame.attrs["evals"] == ["train", "valid"]
    first = frame[frame["point"] == 0]
    np.testing.assert_allclose(first["train-logloss"], ref["train"]["logloss"], rtol=1e-5)
    np.testing.assert_allclose(first["valid-logloss"], ref["valid"]["logloss"], rtol=1e-5)


def test_a_sweep_on_a_dask_cluster_of_processes_equals_the_thread_pools_and_xgboost():
    # the points trained in two worker processes (the shared preparation scattered to them
    # once): the frame equals the local thread pool's value for value, and XGBoost's
    from distributed import Client, LocalCluster

    X, y = make_data(seed=21, n=400, nan=0.05)
    X_val, y_val = make_data(seed=22, n=200, nan=0.05)
    params = {"tree_method": "hist", "max_depth": 3}
    grid = {"eta": [0.1, 0.5], "lambda": [0.0, 2.0]}
    here = boost.sweep(params, X, y, grid, 10, evals=[(X_val, y_val, "valid")])
    done = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        there = boost.sweep(params, X, y, grid, 10, evals=[(X_val, y_val, "valid")],
                            executor=client.get_executor(),
                            progress=lambda d, n: done.append((d, n)))
        crossed = boost.sweep(params, X, y, grid, 10, nfold=3, executor=client.get_executor())
        # cancelled after the first point finished: the sweep stops with SweepCancelled
        stop = threading.Event()
        with pytest.raises(boost.SweepCancelled):
            boost.sweep(params, X, y, {"eta": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]}, 200,
                        evals=[(X_val, y_val, "valid")], executor=client.get_executor(),
                        progress=lambda d, n: stop.set(), cancel=stop)
    pd.testing.assert_frame_equal(there, here)
    assert done[-1] == (4, 4)
    pd.testing.assert_frame_equal(crossed, boost.sweep(params, X, y, grid, 10, nfold=3))
    for i, (eta, lam) in enumerate([(0.1, 0.0), (0.1, 2.0), (0.5, 0.0), (0.5, 2.0)]):
        ref, _ = _xgb({**params, "eta": eta, "lambda": lam}, X, y, 10, X_val, y_val)
        rows = there[there["point"] == i]
        np.testing.assert_allclose(rows["valid-rmse"], ref["valid"]["rmse"], rtol=1e-5)
