"""The four-point example (docs/xgboost-rules.md §1), checked by hand (StatQuest's numbers)."""

import numpy as np
import pytest

import boost

BASE = {"tree_method": "exact", "base_score": 0.5, "lambda": 0, "eta": 0.3, "max_depth": 2}


def _node(df, node):
    return df[df.Node == node].iloc[0]


def test_similarities_gains_and_leaves(four_points):
    X, y = four_points
    df = boost.train(BASE, X, y, 1).trees_to_dataframe()
    # residuals at base 0.5: -10.5, 6.5, 7.5, -7.5 -> root similarity (-4)^2 / 4 = 4
    assert _node(df, 0).Similarity == pytest.approx(4.0)
    assert _node(df, 0).Gain == pytest.approx(120.33, abs=0.01)
    assert _node(df, 0).Split == 15.0
    assert _node(df, 2).Gain == pytest.approx(140.17, abs=0.01)
    assert _node(df, 2).Split == 30.0
    leaves = df[df.Feature == "Leaf"].set_index("Node").Value
    np.testing.assert_allclose(leaves.loc[[1, 3, 4]], [-3.15, 2.1, -2.25], rtol=1e-6)
    weights = df.set_index("Node").Weight
    np.testing.assert_allclose(weights.loc[[1, 3, 4]], [-10.5, 7.0, -7.5], rtol=1e-6)


def test_root_candidates(four_points):
    X, y = four_points
    cand = boost.train(BASE, X, y, 1).split_candidates(1, 0).set_index("Threshold")
    assert cand.loc[15.0, "Gain"] == pytest.approx(120.33, abs=0.01)
    assert cand.loc[22.5, "Gain"] == pytest.approx(4.0, abs=1e-5)
    assert cand.loc[30.0, "Gain"] == pytest.approx(56.33, abs=0.01)
    assert cand.loc[15.0, "Best"] and cand.Best.sum() == 1
    assert cand.loc[15.0, "SumGradLeft"] == pytest.approx(10.5)  # g = m - y = 0.5 + 10
    assert cand.loc[15.0, "SimilarityParent"] == pytest.approx(4.0)


def test_right_child_candidates(four_points):
    X, y = four_points
    cand = boost.train(BASE, X, y, 1).split_candidates(1, 2).set_index("Threshold")
    assert cand.loc[30.0, "Gain"] == pytest.approx(140.17, abs=0.01)
    assert cand.loc[22.5, "Gain"] == pytest.approx(28.17, abs=0.01)
    assert cand.loc[30.0, "Best"]


def test_gamma_130_keeps_everything(four_points):
    X, y = four_points
    bst = boost.train({**BASE, "gamma": 130}, X, y, 1)
    df = bst.trees_to_dataframe(include_pruned=True)
    assert not df.Pruned.any()
    assert len(bst.trees_to_dataframe()) == 5  # 140.17 >= 130 protects the root (120.33)


def test_gamma_150_prunes_to_one_leaf(four_points):
    X, y = four_points
    bst = boost.train({**BASE, "gamma": 150}, X, y, 1)
    final = bst.trees_to_dataframe()
    assert len(final) == 1 and final.Feature[0] == "Leaf"
    assert final.Gain[0] == pytest.approx(-0.3)
    grown = bst.trees_to_dataframe(include_pruned=True)
    assert grown.Pruned.tolist() == [False, True, True, True, True]
    assert set(grown.Reason) == {"gamma"}
    np.testing.assert_allclose(bst.predict(X), [0.2] * 4, rtol=1e-6)


def test_lambda_one_similarities(four_points):
    X, y = four_points
    bst = boost.train({**BASE, "lambda": 1}, X, y, 1)
    cand = bst.split_candidates(1, 0).set_index("Threshold")
    # left {-10.5}: 110.25/2 = 55.125; right {6.5, 7.5, -7.5}: 6.5^2/4 = 10.5625
    assert cand.loc[15.0, "SimilarityLeft"] == pytest.approx(55.125)
    assert cand.loc[15.0, "SimilarityRight"] == pytest.approx(10.5625)
    right = bst.split_candidates(1, 2).set_index("Threshold")
    # {6.5, 7.5} -> 14^2/3 = 65.33; {6.5} | {7.5, -7.5} at 22.5 -> 0^2/3 ... and 28.125
    assert right.loc[30.0, "SimilarityLeft"] == pytest.approx(65.333, abs=1e-3)
    assert right.loc[22.5, "SimilarityLeft"] == pytest.approx(42.25 / 2)
    assert right.loc[30.0, "SimilarityRight"] == pytest.approx(28.125)


def test_predictions_and_round_views(four_points):
    X, y = four_points
    bst = boost.train(BASE, X, y, 1)
    np.testing.assert_allclose(bst.predict(X), [-2.65, 2.6, 2.6, -1.75], rtol=1e-6)
    v0, v1 = bst.round_view(0), bst.round_view(1)
    np.testing.assert_allclose(v0.residual, [-10.5, 6.5, 7.5, -7.5])
    np.testing.assert_allclose(v0.grad[:, 0], [10.5, -6.5, -7.5, 7.5])
    assert (v0.leaf == -1).all()
    assert v1.leaf[:, 0].tolist() == [1, 3, 3, 4]
    np.testing.assert_allclose(v1.margin[:, 0] - v0.margin[:, 0], [-3.15, 2.1, 2.1, -2.25],
                               rtol=1e-6)
