"""hist and approx: cut points equal to XGBoost's sketch, pre-pruning, bin candidates."""

import numpy as np
import pandas as pd
import pytest
from datasets import make_data
from oracle import xgb_cuts, xgb_margin, xgb_train

import boost
from boost.binned import codes_match
from boost.data import as_features
from boost.hist.binning import bin_matrix
from boost.sketch import hist_cuts
from boost.trace.node_record import refused

FOUR_X = np.array([[10.0], [20.0], [25.0], [35.0]])
FOUR_Y = np.array([-10.0, 7.0, 8.0, -7.0])
HIST = {"tree_method": "hist", "base_score": 0.5, "lambda": 0, "eta": 0.3, "max_depth": 2}


def _data(kind, rng):
    if kind == "multi_level":  # > 8k rows and > max_bin distinct values: the merged levels
        return rng.normal(size=(30000, 3)).astype(np.float32)
    if kind == "duplicates":
        return np.round(rng.normal(size=(50000, 2)) * 20) / 20
    if kind == "integers":
        return rng.integers(0, 400, size=(5000, 2)).astype(np.float64)
    if kind == "nan":
        X = rng.normal(size=(20000, 3))
        X[rng.random(X.shape) < 0.2] = np.nan
        return X
    if kind == "signed_zeros":  # -0.0 == 0.0: which one is the cut follows std::sort
        return np.round(rng.normal(size=(20000, 2)) * 2) / 2 * rng.choice([-1.0, 1.0], (20000, 2))
    return rng.exponential(size=(200000, 1)) ** 3  # skewed, four levels of merging


@pytest.mark.parametrize("kind", ["multi_level", "duplicates", "integers", "nan",
                                  "signed_zeros", "large_skewed"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("max_bin", [256, 16])
def test_cut_points_equal_xgboost(kind, weighted, max_bin):
    rng = np.random.default_rng(0)
    X = _data(kind, rng)
    weight = rng.uniform(0, 3, len(X)).astype(np.float32) if weighted else None
    if weighted:
        weight[::7] = 0.0  # zero weights are skipped by the sketch
    indptr, values = xgb_cuts(X, weight, max_bin)
    cuts = hist_cuts(X.astype(np.float32), weight, max_bin)
    for f in range(X.shape[1]):
        expected = values[indptr[f]:indptr[f + 1]]
        got = np.r_[cuts.min_vals[f], cuts.feature_cuts(f)]
        np.testing.assert_array_equal(got, expected)
        assert (np.signbit(got) == np.signbit(expected)).all()
    assert cuts.max_bins <= max_bin


def test_small_data_cuts_are_the_distinct_values():
    # docs/xgboost-rules.md §10: {10, 20, 20, 25, 35} -> [20, 25, 35, 70.00001].
    X = np.array([[10.0], [20.0], [20.0], [25.0], [35.0]], dtype=np.float32)
    cuts = hist_cuts(X, None, 256)
    np.testing.assert_array_equal(cuts.feature_cuts(0),
                                  np.float32([20, 25, 35, np.float32(70.00001)]))
    assert cuts.min_vals[0] == np.float32(-1e-05)
    bins, missing = bin_matrix(np.array([[10], [20], [24.9], [35], [np.nan]], np.float32), cuts)
    assert bins[:, 0].tolist() == [0, 1, 1, 3, missing]


def test_four_points_hist_thresholds_are_cut_values():
    # The four-point example (docs/xgboost-rules.md §1) under hist: f0<20 (not 15), right
    # child f0<35, same gains.
    df = boost.train(HIST, FOUR_X, FOUR_Y, 1).trees_to_dataframe().set_index("Node")
    assert df.loc[0, "Split"] == 20.0 and df.loc[2, "Split"] == 35.0
    assert df.loc[0, "Gain"] == pytest.approx(120.333336, abs=1e-5)
    assert df.loc[2, "Gain"] == pytest.approx(140.166672, abs=1e-5)
    assert df.loc[[1, 3, 4], "Value"].tolist() == pytest.approx([-3.15, 2.1, -2.25], abs=1e-6)
    assert df.loc[0, "Missing"] == "0-2"  # no missing value seen: missing goes right


@pytest.mark.parametrize("gamma", [130, 150])
def test_gamma_pre_prunes_and_keeps_the_refused_split(gamma):
    # exact keeps the whole tree at gamma=130 (140.17 protects the root); hist never splits
    # the root because 120.33 < 130, and leaves one leaf -0.3 (prediction 0.2).
    bst = boost.train({**HIST, "gamma": gamma}, FOUR_X, FOUR_Y, 1)
    df = bst.trees_to_dataframe()
    assert len(df) == 1
    root = df.iloc[0]
    assert root.Feature == "Leaf" and root.Reason == "gamma"
    assert root.Value == pytest.approx(-0.3, abs=1e-7)
    np.testing.assert_allclose(bst.predict(FOUR_X), 0.2, atol=1e-6)
    cand = bst.split_candidates(1, 0)
    refused = cand[cand.Best].iloc[0]
    assert refused.Threshold == 20.0 and refused.Gain == pytest.approx(120.333336, abs=1e-5)
    assert bst.forest.feature[0] == 0 and bst.forest.loss_chg[0] == np.float32(refused.Gain)


def test_gamma_equal_to_the_gain_keeps_the_split():
    bst = boost.train({**HIST, "gamma": float(np.float32(120.333336))}, FOUR_X, FOUR_Y, 1)
    assert len(bst.trees_to_dataframe()) == 5


@pytest.mark.parametrize("method", ["hist", "approx"])
def test_bin_candidates_against_brute_force(method):
    X, y = make_data(seed=23, n=300, n_features=3, nan=0.2, objective="binary:logistic")
    bst = boost.train({"tree_method": method, "objective": "binary:logistic", "max_depth": 3,
                       "max_bin": 16, "min_child_weight": 0}, X, y, 2)
    view = bst.round_view(1)
    g = view.grad[:, 0].astype(np.float64)
    h = view.hess[:, 0].astype(np.float64)
    X32 = as_features(X)[0]  # hist keeps bin codes, not the values: route by the values here
    tree = bst.trees_to_dataframe().query("Round == 2").set_index("Node")
    for node in (0, 1, 2):
        by_value = boost.tree.rows_in_node(bst.forest, X32, bst.tree_index(2), node)
        np.testing.assert_array_equal(bst.rows_in_node(2, node), by_value)
        rows = np.nonzero(by_value)[0]
        cand = bst.split_candidates(2, node)
        G, H = g[rows].sum(), h[rows].sum()
        for row in cand.itertuples():
            x = X32[rows, bst.feature_names.index(row.Feature)]
            left = np.where(np.isnan(x), row.DefaultLeft, x < np.float32(row.Threshold))
            assert row.CountLeft == left.sum()
            gl, hl = g[rows][left].sum(), h[rows][left].sum()
            assert row.SumGradLeft == pytest.approx(gl, abs=1e-9)
            assert row.SumHessLeft == pytest.approx(hl, abs=1e-9)
            if hl > 1e-9 and H - hl > 1e-9:
                expected = gl**2 / (hl + 1) + (G - gl) ** 2 / (H - hl + 1) - G**2 / (H + 1)
                assert row.Gain == pytest.approx(expected, rel=1e-4, abs=1e-4)
        if node in tree.index and tree.loc[node, "Feature"] != "Leaf":
            best = cand[cand.Best].iloc[0]
            assert best.Feature == tree.loc[node, "Feature"]
            assert np.float32(best.Threshold) == np.float32(tree.loc[node, "Split"])
            assert np.float32(best.Gain) == np.float32(tree.loc[node, "Gain"])


@pytest.mark.parametrize("method", ["hist", "approx"])
def test_a_nodes_histogram_replayed_from_its_parents_in_any_order(method):
    """A node's histogram is replayed one level at a time from its parent's and kept per node
    (``NodeQuestions._histogram``): asked root first or deepest first, every node of a
    depth-4 tree (subsample leaving rows out, missing values) has the same candidates, and
    every split's best candidate is the grower's split, its gain bit for bit."""
    X, y = make_data(seed=31, n=2000, n_features=4, nan=0.1, objective="binary:logistic")
    params = {"tree_method": method, "objective": "binary:logistic", "max_depth": 4,
              "max_bin": 32, "subsample": 0.8, "seed": 5}
    root_first, deepest_first = (boost.train(params, X, y, 2) for _ in range(2))
    frame = root_first.trees_to_dataframe()
    nodes = [(int(r), int(n)) for r, n in zip(frame.Round, frame.Node, strict=True)]
    assert frame.Depth.max() == 4
    asked = {k: root_first.split_candidates(*k) for k in nodes}
    for k in sorted(nodes, key=lambda k: -int(frame.Depth[frame.Round.eq(k[0])
                                                             & frame.Node.eq(k[1])].iloc[0])):
        assert deepest_first.split_candidates(*k).equals(asked[k]), k
    for row in frame[frame.Feature != "Leaf"].itertuples():
        cand = asked[(int(row.Round), int(row.Node))]
        best = cand[cand.Best].iloc[0]
        assert best.Feature == row.Feature
        assert np.float32(best.Threshold) == np.float32(row.Split)
        assert np.float32(best.Gain) == np.float32(row.Gain)


@pytest.mark.parametrize("method", ["hist", "approx"])
def test_a_features_candidates_alone_are_the_whole_tables(method):
    """A chart's feature is scanned alone from the node's kept histogram
    (``NodeQuestions._bin_table`` with ``features``): for every node of two trees (subsample,
    missing values, colsample_bynode, a γ that refuses splits) and every feature, alone and
    in pairs, the table is the whole table's rows of those features — Best included."""
    X, y = make_data(seed=32, n=1500, n_features=4, nan=0.1)
    params = {"tree_method": method, "max_depth": 4, "max_bin": 16, "subsample": 0.8,
              "colsample_bynode": 0.5, "gamma": 150.0, "seed": 7}
    bst = boost.train(params, X, y, 2)
    frame = bst.trees_to_dataframe()
    names = bst.feature_names
    assert refused(bst.trace.trees()).any()  # (a leaf that keeps the split γ refused)
    for r, n in zip(frame.Round, frame.Node, strict=True):
        whole = bst.split_candidates(int(r), int(n))
        for some in [[f] for f in names] + [names[:2], names[1::2]]:
            alone = bst.split_candidates(int(r), int(n), features=some)
            want = whole[whole.Feature.isin(some)].reset_index(drop=True)
            pd.testing.assert_frame_equal(alone, want, check_exact=True)


def test_approx_resketches_with_hessian_weights():
    X, y = make_data(seed=24, n=3000, n_features=2, objective="binary:logistic")
    bst = boost.train({"tree_method": "approx", "objective": "binary:logistic",
                       "max_depth": 3, "max_bin": 32}, X, y, 3)
    first, third = bst.cuts(1), bst.cuts(3)
    assert any(not np.array_equal(first[k], third[k]) for k in first)
    ref, _ = xgb_train({"tree_method": "approx", "objective": "binary:logistic",
                        "max_depth": 3, "max_bin": 32}, X, y, 3)
    assert bst.get_dump() == ref.get_dump(dump_format="json", with_stats=True)
    with pytest.raises(ValueError, match="pass round_idx"):
        bst.cuts()


def test_hist_cuts_accessor_and_exact_has_none():
    X, y = make_data(seed=25, n=500)
    bst = boost.train({"max_depth": 2}, X, y, 2)
    indptr, values = xgb_cuts(as_features(X)[0])
    for f, (name, cut) in enumerate(bst.cuts().items()):
        np.testing.assert_array_equal(cut, values[indptr[f] + 1:indptr[f + 1]])
        assert name == bst.feature_names[f]
    with pytest.raises(ValueError, match="no bins"):
        boost.train({"tree_method": "exact", "max_depth": 2}, X, y, 1).cuts()


def test_large_data_many_rounds_match():
    # 20k rows x 4 with NaN and weights: the multi-level sketch, uint16 bins (256 bins plus
    # the missing code), partitions over many levels.
    rng = np.random.default_rng(26)
    X = rng.normal(size=(20000, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) ** 2 + rng.normal(size=20000) > 1)
    weight = rng.uniform(0.2, 2.0, 20000)
    params = {"objective": "binary:logistic", "max_depth": 7, "eta": 0.2, "gamma": 0.5}
    ours = boost.train(params, X, y, 12, sample_weight=weight)
    ref, _ = xgb_train(params, X, y, 12, sample_weight=weight)
    assert ours.get_dump() == ref.get_dump(dump_format="json", with_stats=True)
    assert np.abs(ours.predict(X, output_margin=True) - xgb_margin(ref, X)).max() <= 1e-6


def test_approx_workspace_stays_small_when_the_bins_change():
    # approx re-sketches every tree, so the histogram width changes from tree to tree; the
    # reused histogram pools must be resized to what a tree needs, not grow without bound.
    X, y = make_data(seed=28, n=600, n_features=4, nan=0.1, objective="multi:softprob")
    params = {"tree_method": "approx", "objective": "multi:softprob", "num_class": 3,
              "max_depth": 4}
    ours = boost.train(params, X, y, 30)
    ref, _ = xgb_train(params, X, y, 30)
    assert ours.get_dump() == ref.get_dump(dump_format="json", with_stats=True)
    widths = {int(c.ptrs[-1]) for c in ours.data.tree_cuts}
    assert len(widths) > 1  # the width did change


@pytest.mark.parametrize("extra", [
    {"nan": 0.2}, {"nan": 0.0}, {"nan": 0.1, "max_bin": 300},
    {"nan": 0.1, "grow_policy": "lossguide", "max_leaves": 9, "max_depth": 0},
    {"nan": 0.1, "objective": "multi:softprob", "num_class": 3, "subsample": 0.7},
])
def test_hist_rows_are_routed_by_their_bins(extra):
    # hist keeps the bin codes, not the values: every per-row fact recomputed from them
    # equals the one walked by value (predict on the float rows), bit for bit.
    extra = dict(extra)
    nan = extra.pop("nan")
    objective = extra.setdefault("objective", "binary:logistic")
    X, y = make_data(seed=31, n=3000, n_features=4, nan=nan, ties=True, objective=objective)
    X[:, 2] = np.arange(len(X))  # many distinct values: uint16 codes when max_bin > 256
    bst = boost.train({"tree_method": "hist", "max_depth": 4, **extra}, X, y, 12)
    assert bst.data.X is None and bst.data.binned.codes.shape == (4, len(y))
    with pytest.raises(ValueError):  # the trace's codes are read-only
        bst.data.binned.codes[0, 0] = 1
    if "max_bin" in extra:  # codes past 255
        assert bst.data.binned.codes.dtype == np.uint16 and bst.data.binned.codes.max() > 256
    X32 = as_features(X)[0]
    for r in (1, 5, 12):
        view = bst.round_view(r)
        margin = bst.predict(X, output_margin=True, iteration_range=(0, r))
        np.testing.assert_array_equal(view.margin, margin.reshape(view.margin.shape))
        for k in range(bst.num_groups):
            t = bst.tree_index(r, k)
            np.testing.assert_array_equal(view.leaf[:, k], boost.tree.leaf_of_rows(
                bst.forest, X32, t))
            for node in range(int(bst.forest.node_slice(t).stop - bst.forest.node_slice(t).start)):
                np.testing.assert_array_equal(
                    bst.rows_in_node(r, node, k),
                    boost.tree.rows_in_node(bst.forest, X32, t, node))
    np.testing.assert_array_equal(bst.feature_values(2, X), X32[:, 2])
    if "subsample" not in extra:  # (the draws are BoostScope's own)
        ref, _ = xgb_train({"tree_method": "hist", "max_depth": 4, **extra}, X, y, 12)
        assert bst.get_dump() == ref.get_dump(dump_format="json", with_stats=True)


@pytest.mark.parametrize("dense", [True, False])
def test_codes_match_is_the_binning_rule(dense):
    """``binned.codes_match`` (a value against its own bin's two cuts) says the same as
    binning the values again by search: values on a cut, beyond the last, NaN, and every
    single code changed by one."""
    rng = np.random.default_rng(5)
    cuts = np.sort(rng.choice(np.arange(-50, 50, dtype=np.float32) / 4, 12, replace=False))
    values = np.r_[cuts, cuts - np.float32(0.1), np.float32(99.0), np.float32(-99.0),
                   rng.normal(size=200).astype(np.float32) * 10].astype(np.float32)
    if not dense:
        values[::9] = np.nan
    missing = -1 if dense else 255
    codes = np.minimum(np.searchsorted(cuts, values, side="right"), len(cuts) - 1)
    codes[np.isnan(values)] = missing
    codes = codes.astype(np.uint8 if not dense else np.int64)
    assert codes_match(values, cuts, codes, missing)
    for r in range(len(values)):
        for delta in (-1, 1):
            changed = codes.copy()
            changed[r] = (int(codes[r]) + delta) % 256 if not dense else codes[r] + delta
            assert not codes_match(values, cuts, changed, missing), (r, delta)


@pytest.mark.parametrize("seed", range(6))
def test_a_scan_skipping_empty_bins_picks_the_same_split(seed):
    # For a node with few rows the grower's scan computes losses only at non-empty bins;
    # asked for every candidate
    # (``out``) it computes them at every position, as XGBoost enumerates them (the trees
    # equal XGBoost's elsewhere in this file). Both must record the same best split, the
    # same largest blocked loss - on bins mostly empty, with ties and min_child_weight.
    from boost._dtypes import NodeParams
    from boost.hist.splitting import fresh_best, scan_feature, scan_scratch
    from boost.records import CAND_FIELDS, CAND_HL, CAND_HR, CAND_VALID
    from boost.split_math import similarity

    rng = np.random.default_rng(seed)
    n = 64
    g = np.where(rng.random(n) < 0.7, 0.0, rng.normal(size=n).round(2))  # most bins empty
    h = np.where(g != 0.0, rng.integers(1, 4, n) * 0.25, 0.0)
    g[[5, 9, 12]] = [0.5, -0.5, 0.0]  # equal-valued bins, and one whose G is zero
    h[[5, 9, 12]] = 0.25
    hist = g + 1j * h
    cut_vals = np.sort(rng.normal(size=n)).astype(np.float32)
    cut_vals.setflags(write=False)  # read-only, as the engine's cuts (boost.layout.read_only)
    missing = seed % 2 == 1  # rows outside the bins: the backward scan runs too
    pg, ph = 0.0, 0.0
    for gb, hb in zip(g, h, strict=True):  # in bin order, as the scan sums them
        pg, ph = pg + gb, ph + hb
    pg, ph = pg + (1.3 if missing else 0.0), ph + (2.0 if missing else 0.0)
    for mcw in (0.0, 0.6):
        # float32 parameters, as the engine's: the kernel the run's warm-up compiled is tested
        rp = NodeParams(*np.float32([1.0, 0.0, mcw, 0.0]))
        psim = similarity(pg, ph, rp)
        skipping, every = fresh_best(), fresh_best()
        scan_feature(hist, 0, 0, n, np.float32(-9), cut_vals, pg, ph, psim, rp, skipping,
                     np.empty((0, CAND_FIELDS)), scan_scratch(n), 1)  # (few rows)
        out = np.empty((2 * n, CAND_FIELDS))
        count = scan_feature(hist, 0, 0, n, np.float32(-9), cut_vals, pg, ph, psim, rp, every,
                             out, scan_scratch(n), n)
        assert count == (2 * n if missing else n)
        np.testing.assert_array_equal(skipping, every)
        blocked = out[:count, CAND_VALID] == 0
        assert blocked.any() == (mcw > 0)  # the case min_child_weight blocks is exercised
        assert (np.minimum(out[:count, CAND_HL], out[:count, CAND_HR]) > 0).sum() > 1


def test_a_retrain_on_the_same_rows_reuses_the_cuts_and_bins(monkeypatch):
    # A knob move (eta) finds the rows' cuts and binned rows kept; changed rows, or another
    # max_bin, are a new key; the trees are those of a training with nothing kept (and
    # XGBoost's).
    from boost import reuse

    X, y = make_data(seed=9, n=500, nan=0.1)
    reuse.clear()
    made = []
    real = reuse._hist_data
    monkeypatch.setattr(reuse, "_hist_data", lambda *args: made.append(args[2]) or real(*args))
    boost.train({"tree_method": "hist", "eta": 0.3}, X, y, 3)
    moved = boost.train({"tree_method": "hist", "eta": 0.1}, X, y, 3)
    assert made == [256]
    changed = X.copy()
    changed[0, 0] += 1.0
    boost.train({"tree_method": "hist"}, changed, y, 3)
    boost.train({"tree_method": "hist", "max_bin": 64}, X, y, 3)
    assert made == [256, 256, 64]
    reuse.clear()
    fresh = boost.train({"tree_method": "hist", "eta": 0.1}, X, y, 3)
    assert fresh.get_dump() == moved.get_dump()
    assert moved.get_dump() == xgb_train({"tree_method": "hist", "eta": 0.1}, X, y, 3)[
        0].get_dump(dump_format="json", with_stats=True)


@pytest.mark.parametrize("case", ["dense", "nan_weights", "multiclass_leaves", "no_depth_limit",
                                  "column_sampling"])
def test_one_depthwise_grower_grows_every_case(case, monkeypatch):
    # Every depth-wise tree grows in one compiled call (build, subtract and evaluate fused per
    # feature block): with missing values (the root summed from the rows, not the bins, and
    # backward scans), zero weights (bins whose sums are 0), gamma, min_child_weight,
    # max_leaves, several classes, no depth limit and column sampling. Its level histogram
    # pools grow when a level needs more (here from one slot: _POOL_BYTES 0), and the same
    # loop run as Python (its py_func: what bench_hist.py --profile times) grows the same
    # trees. Without column sampling (whose draws are not XGBoost's) they are XGBoost's.
    from boost.hist import grower

    rng = np.random.default_rng(44)
    n = 3000
    X = rng.normal(size=(n, 7))
    weight = None
    params = {"tree_method": "hist", "max_depth": 6, "eta": 0.3}
    y = X[:, 0] - X[:, 1] ** 2 + rng.normal(size=n)
    if case == "nan_weights":
        X[rng.random(X.shape) < 0.15] = np.nan
        y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 2]) > 0).astype(float)
        weight = np.where(rng.random(n) < 0.1, 0.0, rng.uniform(0.5, 2.0, n))
        params.update(objective="binary:logistic", gamma=0.3, min_child_weight=2)
    elif case == "multiclass_leaves":
        y = np.digitize(X[:, 0] + 0.5 * X[:, 3], [-0.7, 0.0, 0.7]).astype(float)
        params.update(objective="multi:softprob", num_class=4, max_leaves=12)
    elif case == "no_depth_limit":
        params.update(max_depth=0, max_leaves=40)
    elif case == "column_sampling":
        params.update(colsample_bylevel=0.8, colsample_bynode=0.6, subsample=0.8)
    one_call = boost.train(params, X, y, 6, sample_weight=weight)
    monkeypatch.setattr(grower, "_POOL_BYTES", 0)
    grown_pools = boost.train(params, X, y, 6, sample_weight=weight)
    monkeypatch.setattr(grower, "_grow_depthwise",
                        getattr(grower._grow_depthwise, "py_func", grower._grow_depthwise))
    as_python = boost.train(params, X, y, 6, sample_weight=weight)
    for other in (grown_pools, as_python):
        assert one_call.get_dump(with_stats=True) == other.get_dump(with_stats=True)
        assert np.array_equal(one_call.predict(X, output_margin=True),
                              other.predict(X, output_margin=True))
    if case != "column_sampling":
        ref, _ = xgb_train(params, X, y, 6, sample_weight=weight)
        assert one_call.get_dump() == ref.get_dump(dump_format="json", with_stats=True)
