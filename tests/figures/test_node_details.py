"""What the node detail shows a lecturer: the node's rows in G and H, the best split of each
feature, the candidate table's columns and hist's bins as value ranges. Numbers are checked
against hand computations on the four-point example and against split_candidates."""

import math

import numpy as np
import pandas as pd
import pytest

import boost
from boost.trace.arithmetic import worked_arithmetic
from boost.trace.node_record import best_per_feature, split_labels, top_candidates
from boost.trace.nodes import bin_value_ranges, sorted_present
from boost.trace.rounding import rounded

X = np.array([[10.0], [20.0], [25.0], [35.0]])
Y = np.array([-10.0, 7.0, 8.0, -7.0])
BASE = {"tree_method": "exact", "base_score": 0.5, "lambda": 0, "eta": 0.3, "max_depth": 2}


def _node(bst, r, node, klass=0):
    tree = bst.trees_to_dataframe(include_pruned=True)
    return tree[(tree.Round == r) & (tree.Node == node) & (tree.Class == klass)].iloc[0]


def _steps(bst, r, node, klass=0):
    detail = bst.trace.node_detail(r, node, klass)
    pd.testing.assert_series_equal(detail.numbers, _node(bst, r, node, klass),
                                   check_names=False)
    steps = worked_arithmetic(detail.numbers, None, bst.search_params,
                              float(bst.base_margin[klass]), rows=detail.rows)
    return detail.rows, {s.name: s for s in steps}


def test_root_of_round_one_lists_the_residuals_and_their_g():
    bst = boost.train(BASE, X, Y, 2)
    rows, steps = _steps(bst, 1, 0)
    # m = 0.5 everywhere: residuals y - m, g = m - y, h = 1
    assert rows.Row.tolist() == [0, 1, 2, 3]
    assert (rows.y - rows.m).tolist() == [-10.5, 6.5, 7.5, -7.5]
    assert rows.g.tolist() == [10.5, -6.5, -7.5, 7.5] and rows.h.tolist() == [1, 1, 1, 1]
    assert r"y_i - m_i: \\ &{-10.5},\ 6.5,\ 7.5,\ {-7.5}\end" in steps["residuals"].latex
    assert r"\sum_i (m - y)" in steps["G"].latex
    assert "= 10.5 + (-6.5) + (-7.5) + 7.5" in steps["G"].latex
    assert steps["G"].latex.endswith(r"&= 4\end{aligned}") and steps["G"].value == 4
    assert "= 1 + 1 + 1 + 1" in steps["H (cover)"].latex and steps["H (cover)"].value == 4
    assert steps["similarity"].value == pytest.approx(4.0)  # 4² / (4 + 0)


def test_rows_of_a_round_two_node_start_from_round_one_margins():
    bst = boost.train(BASE, X, Y, 2)
    # Round 1 (by hand): x < 15 → w = -10.5, η·w = -3.15; x < 30 → w = (6.5 + 7.5) / 2 = 7,
    # 2.1; else -7.5, -2.25. Margins after it: -2.65, 2.6, 2.6, -1.75.
    m = np.array([0.5 - 3.15, 0.5 + 2.1, 0.5 + 2.1, 0.5 - 2.25])
    rows, steps = _steps(bst, 2, 0)
    np.testing.assert_allclose(rows.m, m, rtol=1e-6)
    np.testing.assert_allclose(rows.g, m - Y, rtol=1e-6)  # 7.35, -4.4, -5.4, 5.25
    assert steps["G"].value == pytest.approx(2.8, abs=1e-5)
    assert "7.35 + (-4.4) + (-5.4) + 5.25" in steps["G"].latex
    # its "no" child (XGBoost's ID "tree-node") holds the rest of them
    child = int(_node(bst, 2, 0).No.split("-")[1])
    rows, _ = _steps(bst, 2, child)
    assert rows.g.sum() == pytest.approx(_node(bst, 2, child).SumGrad, abs=1e-5)


def test_logistic_rows_list_p_minus_y_and_p_one_minus_p():
    Xc = np.array([[1.0], [2.0], [3.0], [4.0]])
    yc = np.array([0.0, 0.0, 1.0, 1.0])
    bst = boost.train({"objective": "binary:logistic", "base_score": 0.5, "max_depth": 1,
                       "min_child_weight": 0}, Xc, yc, 2)
    # Round 1 by hand: p = 0.5, g = p - y = ±0.5, h = 0.25; x < 2.5: G_L = 1, H_L = 0.5,
    # w = -1 / (0.5 + 1) = -2/3, η·w = -0.2 (right +0.2). Round 2: p = σ(∓0.2).
    p_low = 1 / (1 + math.exp(0.2))
    p = np.array([p_low, p_low, 1 - p_low, 1 - p_low])
    rows, steps = _steps(bst, 2, 0)
    np.testing.assert_allclose(rows.g, p - yc, rtol=1e-6)  # 0.450166, ..., -0.450166
    np.testing.assert_allclose(rows.h, p * (1 - p), rtol=1e-6)  # 0.247517
    assert r"\sum_i (p - y)" in steps["G"].latex
    assert "0.45 + 0.45 + (-0.45) + (-0.45)" in steps["G"].latex
    assert r"\sum_i p(1 - p)" in steps["H (cover)"].latex
    assert steps["H (cover)"].value == pytest.approx(4 * p_low * (1 - p_low), rel=1e-6)
    assert "residuals" not in steps  # p - y is g itself


def test_a_big_node_lists_the_first_rows_and_the_count():
    rng = np.random.default_rng(3)
    Xb = rng.normal(size=(40, 2))
    yb = Xb[:, 0] * 2 + rng.normal(size=40)
    bst = boost.train({"tree_method": "hist", "max_depth": 2}, Xb, yb, 2)
    rows, steps = _steps(bst, 2, 0)
    assert len(rows) == 40
    terms = [f"({rounded(x)})" if x < 0 else rounded(x) for x in rows.g[:4]]
    assert " + ".join(terms) + r" \\ &\quad + \dots\ (40\ \text{rows})" in steps["G"].latex
    assert rows.g.sum() == pytest.approx(_node(bst, 2, 0).SumGrad, rel=1e-5)


@pytest.mark.parametrize("params", [
    {"tree_method": "hist", "subsample": 0.5, "max_depth": 3},
    {"tree_method": "exact", "subsample": 0.6, "max_depth": 3, "boosting": "first_order"},
    {"tree_method": "approx", "objective": "multi:softprob", "num_class": 3, "max_depth": 2},
])
def test_node_rows_sum_to_the_nodes_g_and_h(params):
    """The listed rows are the node's: their g and h add up to the trace's SumGrad/SumHess
    (subsample leaves rows out; first-order boosting fits h = 1; multi-class per class)."""
    rng = np.random.default_rng(7)
    Xs = rng.normal(size=(120, 3))
    ys = (rng.integers(0, 3, 120) if "num_class" in params else Xs[:, 0] + rng.normal(size=120))
    bst = boost.train(params, Xs, ys.astype(float), 3)
    klass = 2 if "num_class" in params else 0
    tree = bst.trees_to_dataframe(include_pruned=True)
    for _, node in tree[(tree.Round == 3) & (tree.Class == klass)].iterrows():
        rows = bst.trace.node_rows(3, int(node.Node), klass)
        assert rows.g.sum() == pytest.approx(node.SumGrad, rel=1e-4, abs=1e-4)
        assert rows.h.sum() == pytest.approx(node.SumHess, rel=1e-4, abs=1e-4)
    if "subsample" in params:
        assert len(bst.trace.node_rows(3, 0)) == int(bst.rows_used(3).sum()) < 120


def test_best_split_per_feature_on_the_four_points():
    bst = boost.train(BASE, X, Y, 1)
    summary = best_per_feature(bst.split_candidates(1, 0))
    assert summary.columns.tolist() == ["Feature", "Best split", "Gain", "Candidates", "Chosen"]
    assert len(summary) == 1
    top = summary.iloc[0]
    # left {-10.5}: 10.5² / 1 = 110.25; right {6.5, 7.5, -7.5}: 6.5² / 3; root 4² / 4 = 4
    assert top["Best split"] == "f0 < 15" and top.Chosen == "★"
    assert top.Gain == pytest.approx(110.25 + 6.5 ** 2 / 3 - 4, rel=1e-6)  # 120.333
    assert top.Candidates == 3  # 15, 22.5, 30


def test_best_split_per_feature_is_each_features_largest_valid_gain():
    rng = np.random.default_rng(1)
    X2 = rng.normal(size=(60, 2))
    y2 = X2[:, 0] - 0.5 * X2[:, 1] ** 2 + 0.1 * rng.normal(size=60)
    bst = boost.train({"tree_method": "exact", "max_depth": 2, "min_child_weight": 3}, X2,
                      y2, 2)
    cand = bst.split_candidates(2, 0)
    summary = best_per_feature(cand).set_index("Feature")
    valid = cand[cand.Valid]
    for feature, part in valid.groupby("Feature"):
        top = part.loc[part.Gain.idxmax()]
        assert summary.loc[feature, "Gain"] == top.Gain
        assert summary.loc[feature, "Best split"] == f"{feature} < {top.Threshold:.6g}"
        assert summary.loc[feature, "Candidates"] == (cand.Feature == feature).sum()
    assert summary.Gain.is_monotonic_decreasing
    chosen = cand[cand.Best].iloc[0]
    assert summary.Chosen.tolist().count("★") == 1
    assert summary.loc[chosen.Feature].Chosen == "★"
    assert summary.Gain.max() == chosen.Gain


def test_colsample_marks_the_features_a_node_could_not_use():
    rng = np.random.default_rng(2)
    X4 = rng.normal(size=(80, 4))
    bst = boost.train({"tree_method": "exact", "colsample_bytree": 0.5, "max_depth": 2},
                      X4, X4[:, 0] + X4[:, 3], 1)
    cand = bst.split_candidates(1, 0)
    summary = best_per_feature(cand, refused=False).set_index("Feature")
    drawn = bst.features_used(1, 0)
    assert summary.Drawn.tolist() == [bool(drawn[bst.feature_names.index(f)])
                                      for f in summary.index]
    assert not summary[~summary.Drawn].Chosen.any()


def test_candidate_table_puts_gain_after_the_split():
    bst = boost.train(BASE, X, Y, 1)
    table = top_candidates(bst.split_candidates(1, 0))
    assert table.columns.tolist() == ["Split", "Gain", "Missing", "G left", "H left", "G right",
                                      "H right", "S left", "S right", "Note"]
    assert table.Note.tolist() == ["★", "", ""]
    assert top_candidates(bst.split_candidates(1, 0), refused=True).Note[0] == "★ refused"
    assert table.Split.tolist() == ["f0 < 15", "f0 < 30", "f0 < 22.5"]
    assert table.Gain.iloc[0] == pytest.approx(120.333, abs=1e-3)
    assert table[["G left", "H left", "S left", "S right"]].iloc[0].tolist() == pytest.approx(
        [10.5, 1, 110.25, 6.5 ** 2 / 3])


def test_bin_value_ranges_by_hand():
    values = sorted_present(np.array([5.0, 2.0, np.nan, 1.0, 8.0, 2.0, 3.0], dtype=np.float32))
    lo, hi = bin_value_ranges(values, np.array([2.0, 4.0, 4.5, 9.0], dtype=np.float32))
    # bin 0: x < 2 → {1}; bin 1: [2, 4) → {2, 2, 3}; bin 2: [4, 4.5) → none; [4.5, 9) → {5, 8}
    np.testing.assert_array_equal(lo, [1.0, 2.0, np.nan, 5.0])
    np.testing.assert_array_equal(hi, [1.0, 3.0, np.nan, 8.0])
    cand = pd.DataFrame({"Feature": ["x"] * 4, "Threshold": [2.0, 4.0, 4.5, 9.0],
                         "Bin": [0, 1, 2, 3]})
    assert split_labels(cand, {"x": (lo, hi)}) == [
        "x < 2 (bin [1])", "x < 4 (bin [2, 3])", "x < 4.5 (bin empty)", "x < 9 (bin [5, 8])"]
    assert split_labels(cand) == ["x < 2", "x < 4", "x < 4.5", "x < 9"]


def test_hist_candidates_show_their_bins_values():
    rng = np.random.default_rng(5)
    Xh = np.round(rng.normal(size=(200, 2)) * 10) / 10
    bst = boost.train({"tree_method": "hist", "max_bin": 8, "max_depth": 2}, Xh,
                      Xh[:, 0] + rng.normal(size=200), 1)
    cuts = bst.cuts()
    ranges = {f: bin_value_ranges(sorted_present(bst.feature_values(i, Xh)), cuts[f])
              for i, f in enumerate(bst.feature_names)}
    detail = bst.trace.node_detail(1, 0, X=Xh)  # what the node view reads
    assert detail.bin_ranges.keys() == ranges.keys()
    for f in ranges:
        np.testing.assert_array_equal(np.stack(detail.bin_ranges[f]), np.stack(ranges[f]))
    assert bst.trace.node_detail(1, 0).bin_ranges is None  # hist keeps codes, not values
    cand = bst.split_candidates(1, 0)
    labels = split_labels(cand, ranges)
    x32 = Xh.astype(np.float32)
    for (_, c), label in zip(cand.iterrows(), labels, strict=True):
        f = bst.feature_names.index(c.Feature)
        cut = cuts[c.Feature]
        assert c.Threshold == cut[c.Bin]  # the threshold is the bin's upper cut
        low = cut[c.Bin - 1] if c.Bin > 0 else -np.inf
        inside = x32[(x32[:, f] >= low) & (x32[:, f] < cut[c.Bin]), f]  # by brute force
        text = (f"[{inside.min():.6g}]" if inside.min() == inside.max()
                else f"[{inside.min():.6g}, {inside.max():.6g}]")
        assert label == f"{c.Feature} < {c.Threshold:.6g} (bin {text})"
    summary = best_per_feature(cand, ranges)
    chosen = summary[summary.Chosen == "★"].iloc[0]
    assert chosen["Best split"] == labels[int(np.nonzero(cand.Best.to_numpy())[0][0])]


def test_long_numbers_put_the_result_on_its_own_line():
    short = {s.name: s.latex for s in _steps(boost.train(BASE, X, Y, 1), 1, 0)[1].values()}
    assert short["leaf value"] == r"\eta \cdot w = 0.3 \times (-1) = -0.3"  # one line
    # y x 1000: the same tree, every sum a million times larger (gain 120,333,336)
    bst = boost.train(BASE, X, Y * 1000, 1)
    cand = bst.split_candidates(1, 0)
    steps = {s.name: s.latex for s in worked_arithmetic(
        _node(bst, 1, 0), cand[cand.Best].iloc[0], bst.search_params)}
    assert steps["gain"].endswith(r" \\ &= 120{,}333{,}336\end{aligned}")
    assert steps["leaf weight"] == r"w = -\frac{G}{H + \lambda} = -\frac{2{,}002}{4 + 0} = -500.5"
