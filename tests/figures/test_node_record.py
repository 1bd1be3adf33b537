"""The node record (boost/trace/node_record.py, docs/player.md): one JSON-able dict of
everything a screen shows of a node. Its numbers are checked against the four-point example
worked by hand (DESIGN's: root similarity 4, x < 15 with gain 120.33 from 110.25 and
14.083, leaves −10.5 / 7 / −7.5 and η·w −3.15 / 2.1 / −2.25), its tables against the
trace's own answers, and its reasons against γ's rules for exact and hist."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from datasets import make_data

import boost
from boost.trace.node_record import CURVE_COLUMNS, best_per_feature, top_candidates

X = np.array([[10.0], [20.0], [25.0], [35.0]])
Y = np.array([-10.0, 7.0, 8.0, -7.0])
BASE = {"tree_method": "exact", "base_score": 0.5, "lambda": 0, "eta": 0.3, "max_depth": 2}


def _json(record: dict) -> dict:
    """The record through JSON and back (strict: no NaN or infinity)."""
    return json.loads(json.dumps(record, allow_nan=False))


def test_the_four_points_root_by_hand():
    bst = boost.train(BASE, X, Y, 1)
    record = _json(bst.trace.node_record(1, 0))
    assert (record["version"], record["round"], record["node"], record["class"]) == (1, 1, 0, 0)
    n = record["numbers"]
    # g = m - y at m = 0.5: 10.5, -6.5, -7.5, 7.5; G = 4, H = 4, similarity 4² / 4 = 4
    assert (n["sum_grad"], n["sum_hess"], n["similarity"]) == (4, 4, 4)
    assert (n["feature"], n["split"], n["default"], n["leaf"]) == ("f0", 15, "yes", False)
    assert record["why"] == ""
    best = record["best"]
    assert (best["g_left"], best["h_left"], best["g_right"], best["h_right"]) == (10.5, 1, -6.5, 3)
    assert best["s_left"] == 110.25 and best["s_right"] == pytest.approx(6.5 ** 2 / 3, rel=1e-6)
    assert best["gain"] == pytest.approx(110.25 + 6.5 ** 2 / 3 - 4, rel=1e-6)  # 120.333
    steps = {s["name"]: s for s in record["arithmetic"]}
    assert steps["similarity left"]["numbers"] == {"G": 10.5, "H": 1, "lambda": 0, "S": 110.25}
    assert steps["gain"]["formula"] == r"\text{gain} = S_L + S_R - S_{node}"
    assert steps["gain"]["numbers"]["gain"] == pytest.approx(120.3333, rel=1e-6)
    assert "110.25 + 14.08 - 4" in steps["gain"]["latex"]
    assert steps["gain minus gamma"]["verdict"] == "kept"
    assert steps["residuals"]["value"] is None  # a step that lists: no one value
    # the three candidates 15, 22.5, 30 (gains 120.33, 4, 56.33), best first
    top = record["top"]
    assert top["columns"][:2] == ["Split", "Gain"]
    assert [row[0] for row in top["rows"]] == ["f0 < 15", "f0 < 30", "f0 < 22.5"]
    assert [row[1] for row in top["rows"]] == pytest.approx([120.3333, 56.3333, 4], rel=1e-5)
    assert record["per_feature"]["rows"][0][:2] == ["f0", "f0 < 15"]
    curve = record["curves"]["f0"]
    assert set(curve) == set(CURVE_COLUMNS.values()) | {"s_node"} and curve["s_node"] == 4
    assert curve["threshold"] == [15, 22.5, 30] and curve["best"] == [True, False, False]
    assert record["n_rows"] == 4 and [r[0] for r in record["rows"]["rows"]] == [0, 1, 2, 3]


def test_the_four_points_leaves_and_their_values():
    bst = boost.train(BASE, X, Y, 1)
    values = {}
    for node in range(5):
        record = _json(bst.trace.node_record(1, node))
        if record["numbers"]["leaf"]:
            steps = {s["name"]: s["numbers"] for s in record["arithmetic"]}
            values[node] = (steps["leaf weight"]["w"], steps["leaf value"]["value"])
            assert record["why"].startswith("a leaf")
    # by hand: x < 15 → −10.5; x < 30 of the rest → (6.5 + 7.5) / 2 = 7; else −7.5; η = 0.3
    got = [v for pair in sorted(values.values()) for v in pair]
    assert got == pytest.approx([-10.5, -3.15, -7.5, -2.25, 7.0, 2.1], rel=1e-6)


@pytest.mark.parametrize("method,gamma,why", [
    # γ = 150 prunes both of exact's splits (140.17 and 120.33 are below it): the root is
    # left a leaf
    ("exact", 150.0, "a leaf: its split was grown, then pruned: its gain is below γ = 150"),
    # hist decides before growing: the root's best (120.33) is refused at γ = 130
    ("hist", 130.0, "a leaf: its best split's gain is below γ = 130, so it was refused"),
])
def test_why_a_node_is_not_split(method, gamma, why):
    bst = boost.train({**BASE, "tree_method": method, "gamma": gamma}, X, Y, 1)
    record = _json(bst.trace.node_record(1, 0))
    assert record["why"].startswith(why)
    steps = {s["name"]: s for s in record["arithmetic"]}
    verdict = "pruned, unless a split below it is kept" if method == "exact" else (
        "refused: the node stays a leaf")
    assert steps["gain minus gamma"]["verdict"] == verdict
    assert steps["gain minus gamma"]["numbers"]["gamma"] == gamma


def test_a_pruned_node_says_so():
    bst = boost.train({**BASE, "gamma": 150.0}, X, Y, 1)
    record = _json(bst.trace.node_record(1, 2))  # x < 30 (gain 140.17), pruned away
    assert record["numbers"]["pruned"] and record["why"].startswith("pruned: its gain")


def test_a_leaf_at_max_depth_says_so():
    bst = boost.train({**BASE, "max_depth": 1}, X, Y, 1)
    record = _json(bst.trace.node_record(1, 2))
    assert record["why"] == "a leaf: it sits at max_depth = 1, so it was never searched"


def test_a_hist_node_with_missing_values_and_colsample_is_the_traces_answers():
    """The record's tables are the trace's own (split_candidates, node_detail), on hist with
    missing values and column sampling; a bin's values in the split labels."""
    Xm, y = make_data(seed=4, n=400, n_features=5, nan=0.1)
    bst = boost.train({"tree_method": "hist", "max_depth": 3, "colsample_bynode": 0.6,
                       "seed": 3}, Xm, y, 3)
    tree = bst.trees_to_dataframe(include_pruned=True)
    split = tree[(tree.Round == 2) & (tree.Feature != "Leaf")].iloc[1]
    node = int(split.Node)
    record = _json(bst.trace.node_record(2, node, X=Xm))
    detail = bst.trace.node_detail(2, node, X=Xm)
    table = detail.summary.table
    expected = best_per_feature(table, detail.bin_ranges, counts=detail.summary.counts)
    assert record["per_feature"]["columns"] == expected.columns.tolist()
    assert len(record["per_feature"]["rows"]) == len(expected)
    for row, (_, want) in zip(record["per_feature"]["rows"], expected.iterrows(), strict=True):
        assert row[:2] == [want.Feature, want["Best split"]]
        assert (row[2] is None and math.isnan(want.Gain)) or row[2] == pytest.approx(want.Gain)
    top = top_candidates(table, ranges=detail.bin_ranges)
    assert [r[0] for r in record["top"]["rows"]] == top.Split.tolist()
    assert "(bin [" in record["top"]["rows"][0][0]
    assert 0 < len(record["drawn"]) < len(record["features"])  # colsample drew a few
    best = record["best"]
    assert best["feature"] == split.Feature and best["threshold"] == pytest.approx(split.Split)
    assert best["gain"] == pytest.approx(float(split.Gain), rel=1e-5)
    # the chosen feature's curve: the trace's gain curve, column by column
    curve = detail.curves[split.Feature]
    got = record["curves"][split.Feature]
    for column, name in CURVE_COLUMNS.items():
        want = curve[column].to_numpy()
        assert len(got[name]) == len(want)
        if want.dtype.kind == "f":
            np.testing.assert_array_equal(
                np.array([np.nan if v is None else v for v in got[name]]), want)
        else:
            assert got[name] == want.tolist()
    # G and H of the node: the sum of its rows' g and h
    rows = pd.DataFrame(record["rows"]["rows"], columns=record["rows"]["columns"])
    if record["n_rows"] <= len(rows):
        assert rows.g.sum() == pytest.approx(record["numbers"]["sum_grad"], rel=1e-4, abs=1e-4)


def test_a_model_file_on_a_sample_has_no_training_arithmetic(tmp_path):
    bst = boost.train(BASE, X, Y, 1)
    path = tmp_path / "m.json"
    bst.save_model(path)
    opened = boost.load_model(path).with_data(X, Y)
    record = _json(opened.trace.node_record(1, 0))
    assert record["on_sample"] and record["arithmetic"] == [] and record["rows"] is None
    assert record["numbers"]["gain"] == pytest.approx(120.3333, rel=1e-6)
