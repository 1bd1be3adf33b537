"""The worked example of docs/xgboost-models.md: models trained by XGBoost at scale —
``xgboost.dask`` on a two-worker ``distributed.LocalCluster`` and the scikit-learn
``XGBClassifier`` — saved, opened with ``boost.load_model`` and stepped through round by round.
The oracle is XGBoost itself: margins bit-equal, every round's margins (``iteration_range``)
bit-equal, each node's gain and cover equal to XGBoost's ``trees_to_dataframe``."""

from pathlib import Path

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from distributed import Client, LocalCluster
from xgboost import dask as dxgb

import boost

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"


def _same_rounds(model: boost.Booster, booster, X: pd.DataFrame) -> None:
    """Every round's margins (round 0 = base_score) equal XGBoost's, to the bit, and the
    final predictions too."""
    matrix = xgb.DMatrix(X)
    rounds = 0
    for r, margin in model.staged_margins(X):  # round 0 is base_score alone
        rounds = r
        if r == 0:  # to XGBoost, iteration_range (0, 0) means every round
            continue
        theirs = booster.predict(matrix, output_margin=True, iteration_range=(0, r))
        assert np.array_equal(margin.reshape(theirs.shape), theirs), r
        ours = model.predict(X, output_margin=True, iteration_range=(0, r))
        assert np.array_equal(ours, theirs), r
    assert rounds == booster.num_boosted_rounds()
    assert np.array_equal(model.predict(X), booster.predict(matrix))


def _same_gain_and_cover(model: boost.Booster, booster) -> None:
    assert model.get_dump() == booster.get_dump(dump_format="json", with_stats=True)
    ours = model.trees_to_dataframe()
    theirs = booster.trees_to_dataframe()
    assert list(ours["ID"]) == list(theirs["ID"])
    assert list(ours["Feature"]) == list(theirs["Feature"])
    for column in ("Gain", "Cover", "Split"):
        a, b = ours[column].to_numpy(float), theirs[column].to_numpy(float)
        assert np.array_equal(a, b, equal_nan=True), column


def _tree0(model: boost.Booster) -> list[tuple]:
    """(feature, threshold, gain, cover) of the first tree's first three nodes."""
    frame = model.trees_to_dataframe()
    first = frame[frame["Tree"] == 0].head(3)
    return list(zip(first["Feature"], first["Split"], first["Gain"], first["Cover"],
                    strict=True))


@pytest.mark.parametrize("processes", [False, True], ids=["threads", "processes"])
def test_xgboost_dask_model_on_a_local_cluster(tmp_path, processes):
    frame = pd.read_csv(SAMPLES / "diabetes.csv")
    X = frame.drop(columns="progression")
    params = {"objective": "reg:squarederror", "tree_method": "hist", "max_depth": 3,
              "eta": 0.3}
    # two workers on loopback (threads of this process, or processes), no dashboard
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=processes, protocol="tcp",
                      host="127.0.0.1", dashboard_address=None) as cluster, \
            Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        parts = dd.from_pandas(frame, npartitions=2)
        train = dxgb.DaskDMatrix(client, parts.drop(columns="progression"),
                                 parts["progression"])
        booster = dxgb.train(client, params, train, num_boost_round=20)["booster"]
        dask_margin = dxgb.predict(client, booster, parts.drop(columns="progression"),
                                   output_margin=True).compute()
    path = tmp_path / "dask-model.ubj"
    booster.save_model(path)
    model = boost.load_model(path)
    assert model.feature_names == list(X.columns)
    assert np.array_equal(model.predict(X, output_margin=True), np.asarray(dask_margin))
    _same_rounds(model, booster, X)
    _same_gain_and_cover(model, booster)
    # the figures docs/xgboost-models.md quotes
    margins = [str(m[0, 0]) for _, m in model.staged_margins(X)]  # float32, shortest form
    assert margins[0] == "152.13348" and margins[-1] == "209.80966"
    assert margins[1:3] == ["168.8478", "180.90466"]
    assert [(f, f"{t:.5g}", f"{g:,.0f}" if i == 0 else None, c if i == 0 else None)
            for i, (f, t, g, c) in enumerate(_tree0(model))] == [
        ("s5", "4.6052", "760,690", 442.0), ("bmi", "27", None, None),
        ("bmi", "27.8", None, None)]
    gains = model.get_score("gain")
    assert sorted(gains, key=gains.get, reverse=True)[:2] == ["s5", "bmi"]


def test_xgboost_sklearn_classifier(tmp_path):
    frame = pd.read_csv(SAMPLES / "moons.csv")
    X, y = frame[["x1", "x2"]], frame["label"]
    clf = xgb.XGBClassifier(n_estimators=15, max_depth=3, learning_rate=0.3,
                            tree_method="hist").fit(X, y)
    path = tmp_path / "classifier.json"
    clf.save_model(path)
    model = boost.load_model(path)
    booster = clf.get_booster()
    assert np.array_equal(model.predict(X), clf.predict_proba(X)[:, 1])
    _same_rounds(model, booster, X)
    _same_gain_and_cover(model, booster)
    # the figures docs/xgboost-models.md quotes
    assert f"{model.predict(X)[0]:.7g}" == "0.02545713"
    margins = [float(np.ravel(m)[0]) for _, m in model.staged_margins(X)]
    assert margins[0] == 0.0 and f"{margins[1]:.4f}" == "-0.5727"
    assert f"{margins[-1]:.4f}" == "-3.6450" and len(margins) == 16
    assert [(f, f"{t:.4g}") for f, t, _, _ in _tree0(model)] == [
        ("x2", "0.292"), ("x1", "-0.72"), ("x1", "1.222")]
    _, _, gain, cover = _tree0(model)[0]
    assert f"{gain:.7g}" == "135.2081" and cover == 75.0 == 300 * 0.25
