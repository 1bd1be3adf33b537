"""grow_policy="lossguide" and max_leaves (hist, approx) against XGBoost 3.2: string-equal
dumps with stats, bit-equal margins; the split order read from node ids; exact's rules."""

import json
import warnings

import numpy as np
import pytest
import xgboost as xgb
from datasets import make_data
from oracle import xgb_margin, xgb_train

import boost
from boost.records import split_step

OBJECTIVES = ["reg:squarederror", "binary:logistic", "multi:softprob"]


def _params(method, objective, **extra):
    params = {"tree_method": method, "objective": objective, "grow_policy": "lossguide",
              "eta": 0.3, **extra}
    if objective == "multi:softprob":
        params["num_class"] = 3
    return params


def _assert_same(ours, ref, *datas):
    assert ours.get_dump("text") == ref.get_dump(dump_format="text", with_stats=True)
    assert ours.get_dump("json") == ref.get_dump(dump_format="json", with_stats=True)
    for data in datas:
        a = ours.predict(data, output_margin=True)
        b = xgb_margin(ref, data)
        assert np.array_equal(a.view(np.uint32), b.view(np.uint32))  # bit-equal margins


@pytest.mark.parametrize("method", ["hist", "approx"])
@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize("max_leaves", [4, 8, 31])
@pytest.mark.parametrize("max_depth", [0, 4, 6])
def test_leaf_wise_trees_are_xgboosts(method, objective, max_leaves, max_depth):
    X, y = make_data(seed=3, nan=0.15, objective=objective)
    X_test, _ = make_data(seed=4, nan=0.15, objective=objective)
    params = _params(method, objective, max_leaves=max_leaves, max_depth=max_depth)
    ours = boost.train(params, X, y, 6)
    ref, _ = xgb_train(params, X, y, 6)
    _assert_same(ours, ref, X, X_test)
    leaves = [t.count("leaf=") for t in ours.get_dump("text")]
    assert max(leaves) <= max_leaves


@pytest.mark.parametrize("method", ["hist", "approx"])
@pytest.mark.parametrize("extra", [
    {"gamma": 2.0, "max_leaves": 16, "max_depth": 0},  # γ ends the growth
    {"min_child_weight": 8.0, "lambda": 0.0, "max_leaves": 12},
    {"alpha": 0.5, "max_delta_step": 0.7, "max_leaves": 0, "max_depth": 5},
    {"max_leaves": 10, "max_depth": 0, "max_bin": 8},  # coarse bins: many equal gains
], ids=["gamma", "mcw-lambda0", "alpha-mds", "ties"])
def test_weights_ties_and_regularisation(method, extra):
    X, y = make_data(seed=5, nan=0.2, ties=True)
    w = np.linspace(0.2, 3.0, len(y))
    params = _params(method, "reg:squarederror", **extra)
    ours = boost.train(params, X, y, 5, sample_weight=w)
    ref, _ = xgb_train(params, X, y, 5, sample_weight=w)
    _assert_same(ours, ref, X)


@pytest.mark.parametrize("method", ["hist", "approx"])
@pytest.mark.parametrize("policy", ["depthwise", "lossguide"])
def test_max_leaves_also_limits_depth_wise_and_no_limit_depth(method, policy):
    X, y = make_data(seed=6, nan=0.1)
    for extra in ({"max_leaves": 5}, {"max_depth": 0}, {"max_depth": 0, "max_leaves": 9}):
        params = _params(method, "reg:squarederror", **extra, grow_policy=policy)
        ours = boost.train(params, X, y, 3)
        ref, _ = xgb_train(params, X, y, 3)
        _assert_same(ours, ref, X)


def test_subsample_replayed_in_xgboost():
    # XGBoost's own draws are not ours: give it our rows (a custom objective that zeroes the
    # left-out rows' g and h, as its sampler does), as tests/engine/test_sampling.py does.
    X, y = make_data(seed=7, nan=0.1)
    y = y.astype(np.float32)  # g = margin - y in float32, as XGBoost's objective computes it
    params = _params("hist", "reg:squarederror", max_leaves=8, max_depth=0, subsample=0.6,
                     seed=3, base_score=0.5)
    ours = boost.train(params, X, y, 5)
    masks = [ours.rows_used(r) for r in range(1, 6)]
    calls = []

    def sampled(predt, dtrain):
        mask = masks[len(calls)]
        calls.append(1)
        return ((predt - y) * mask).astype(np.float32), mask.astype(np.float32)

    ref_params = {k: v for k, v in params.items() if k not in ("subsample", "seed")}
    ref = xgb.train({"nthread": 1, **ref_params}, xgb.DMatrix(X, label=y), 5, obj=sampled)
    assert ours.get_dump() == ref.get_dump(dump_format="json", with_stats=True)


@pytest.mark.parametrize("method", ["hist", "approx"])
def test_colsample_bytree_replayed_in_xgboost(method):
    # One round at a time: XGBoost on the columns our tree drew, from our margin.
    X, y = make_data(seed=8, n_features=6, nan=0.1)
    params = _params(method, "reg:squarederror", max_leaves=6, max_depth=0,
                     colsample_bytree=0.5, seed=11, base_score=0.0)
    ours = boost.train(params, X, y, 3)
    ref_params = {k: v for k, v in params.items() if k not in ("colsample_bytree", "seed")}
    for r in range(1, 4):
        cols = np.flatnonzero(ours.features_used(r))
        d = xgb.DMatrix(X[:, cols], label=y, base_margin=ours.round_view(r - 1).margin[:, 0],
                        feature_names=[ours.feature_names[c] for c in cols])
        ref = xgb.train({"nthread": 1, **ref_params}, d, 1)
        assert ours.get_dump()[r - 1] == ref.get_dump(dump_format="json", with_stats=True)[0]


def test_split_order_is_read_from_node_ids_and_follows_the_gains():
    X, y = make_data(seed=9)
    ours = boost.train(_params("hist", "reg:squarederror", max_leaves=8, max_depth=0), X, y, 1)
    ref, _ = xgb_train(_params("hist", "reg:squarederror", max_leaves=8, max_depth=0), X, y, 1)
    tree = json.loads(ref.save_raw("json"))["learner"]["gradient_booster"]["model"]["trees"][0]
    left = np.array(tree["left_children"])
    step = split_step(left)
    assert sorted(step[step > 0]) == list(range(1, 8))  # 7 splits, 8 leaves
    # Each split was the best gain among the leaves waiting at that step: a later split never
    # gains more than an earlier one unless it is a descendant (its node did not exist yet).
    gains = np.array(tree["loss_changes"])
    order = np.argsort(step)[left[np.argsort(step)] >= 0]
    parents = np.array(tree["parents"])
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            ancestors, n = set(), b
            while n != 0:
                n = parents[n]
                ancestors.add(n)
            assert gains[b] <= gains[a] or a in ancestors
    forest = ours.forest
    assert np.array_equal(split_step(forest.left[:len(left)]), step)


def test_leaf_wise_models_round_trip_through_model_files():
    X, y = make_data(seed=10, nan=0.1)
    params = _params("hist", "reg:squarederror", max_leaves=7, max_depth=0)
    ours = boost.train(params, X, y, 4)
    ref, _ = xgb_train(params, X, y, 4)
    assert json.loads(ours.save_raw("json")) == json.loads(ref.save_raw("json"))
    again = boost.load_model(ours.save_raw("ubj"))
    assert again.get_dump() == ours.get_dump()


def test_exact_grows_depth_wise_and_refuses_unlimited_depth():
    X, y = make_data(seed=11)
    # XGBoost's exact ignores grow_policy and max_leaves; so do we, and say so.
    params = {"tree_method": "exact", "grow_policy": "lossguide", "max_leaves": 4,
              "max_depth": 3}
    with pytest.warns(UserWarning, match="exact ignores"):
        ours = boost.train(params, X, y, 3)
    ref, _ = xgb_train(params, X, y, 3)
    _assert_same(ours, ref, X)
    with pytest.raises(ValueError, match="max_depth' = 0 means no depth limit"):
        boost.train({"tree_method": "exact", "max_depth": 0}, X, y, 1)
    with pytest.raises(xgb.core.XGBoostError, match="unlimited depth"):
        xgb_train({"tree_method": "exact", "max_depth": 0}, X, y, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        boost.train({"tree_method": "exact", "max_depth": 3}, X, y, 1)  # defaults: no warning


def test_bad_values_say_what_is_allowed():
    X, y = make_data(seed=12)
    with pytest.raises(ValueError, match="'lossguide'"):
        boost.train({"grow_policy": "leafwise"}, X, y, 1)
    with pytest.raises(ValueError, match="max_leaves"):
        boost.train({"max_leaves": -1}, X, y, 1)


# ------------------------------------------------------------------ the Growth order view
def _frames(**extra):
    X, y = make_data(seed=13)
    out = {}
    for policy in ("depthwise", "lossguide"):
        model = boost.train({"tree_method": "hist", "grow_policy": policy, **extra}, X, y, 1)
        out[policy] = model.trees_to_dataframe(include_pruned=True)
    return out


def test_growth_replays_the_split_order():
    from viz.growth import growth, growth_figure

    frames = _frames(max_leaves=6, max_depth=0)
    deep, leafy = growth(frames["depthwise"]), growth(frames["lossguide"])
    assert deep.splits == leafy.splits == 5  # both spend the budget of six leaves
    # depth-wise: the splits in id order, never a deeper one before a shallower one
    d = deep.frame[deep.frame.Step > 0].sort_values("Step")
    assert list(d.Node) == sorted(d.Node) and list(d.Depth) == sorted(d.Depth)
    # leaf-wise: each split's gain is the largest among the leaves that existed then
    f = leafy.frame
    for k in range(1, 6):
        row = leafy.split(k)
        waiting = f[(f.Born < k) & ((f.Step == 0) | (f.Step >= k))]
        assert row.Gain == waiting[waiting.Step > 0].Gain.max()
    for k in (0, 3, 5):
        fig = growth_figure({"depth-wise": frames["depthwise"], "leaf-wise": frames["lossguide"]},
                            k)
        numbered = [t for t in fig.data if t.name.startswith("split (")]
        assert [sorted(int(s) for s in t.text) for t in numbered] == [list(range(1, k + 1))] * 2
        leaves = [t for t in fig.data if t.name == "leaf at this step"]
        assert [len(t.x) for t in leaves] == [k + 1] * 2
        assert fig.layout.height <= 560


def test_growth_view_in_the_app():
    from apptest import charts, open_app, player, rest_on

    at = open_app(sample="diabetes", view="growth-order", round="2", tree_method="hist",
                  max_leaves="8", max_depth="0")
    assert not at.error, [e.value for e in at.error]
    assert at.slider(key="growth_step").value == 7
    at.button(key="growth_back").click().run()
    assert at.slider(key="growth_step").value == 6
    specs = charts(at)
    notes = [a["text"] for spec in specs for a in spec["layout"].get("annotations", [])]
    assert sum("6 of 7 splits" in n for n in notes) == 2, notes
    rest_on(at, 3)  # the page rests on another round: its trees replayed in full
    assert player(at)["status"][3].startswith("Round 3 of")
    assert at.slider(key="growth_step").value == 7


PORTABLE = """
import json, sys
import numpy as np
import boost
rng = np.random.default_rng(7)
X = rng.normal(size=(200, 4))
X[rng.random(X.shape) < 0.1] = np.nan
y = np.nan_to_num(X[:, 0]) * 2 - np.nan_to_num(X[:, 1]) ** 2 + rng.normal(size=200)
out = {}
for method in ("hist", "approx"):
    for policy in ("depthwise", "lossguide"):
        bst = boost.train({"tree_method": method, "grow_policy": policy, "max_leaves": 6,
                           "max_depth": 0, "colsample_bynode": 0.8}, X, y, 3)
        margin = np.asarray(bst.predict(X, output_margin=True), np.float32)
        out[method + policy] = [bst.get_dump(), margin.view(np.uint32).tolist()]
"""


def test_leaf_wise_growth_runs_as_python_with_identical_results():
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", PORTABLE + "json.dump(out, sys.stdout)"],
                         cwd=root, capture_output=True, text=True, timeout=1200,
                         env={**os.environ, "PYTHONPATH": str(root), "NUMBA_DISABLE_JIT": "1"})
    assert out.returncode == 0, out.stderr[-3000:]
    namespace = {}
    exec(PORTABLE, namespace)
    assert json.loads(out.stdout) == namespace["out"]
