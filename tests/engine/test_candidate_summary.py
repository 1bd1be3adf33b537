"""Booster.candidate_summary and split_candidates(features=...): what the node view draws
without building a node's whole candidate table. Oracle: the whole table
(``split_candidates``, itself checked against XGBoost and brute force elsewhere), summarised
here by hand in pandas."""

import numpy as np
import pandas as pd
import pytest

import boost

TOP = 4


def _data(n=600, f=5, seed=0, missing=True):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, f)).round(2)  # ties: several rows per value
    if missing:
        X[rng.random((n, f)) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) * 2 - np.nan_to_num(X[:, 1]) + rng.normal(scale=0.3, size=n)
    return X, y


def _by_hand(whole: pd.DataFrame, top: int) -> pd.DataFrame:
    """Per feature: the first of its largest finite valid gains, its ``top`` largest valid
    gains (the earlier of equals first), its first ``top`` blocked candidates."""
    keep = []
    for _, part in whole.groupby("Feature", sort=False, observed=True):
        valid = part[part.Valid & part.Gain.notna()]
        finite = valid[np.isfinite(valid.Gain)]
        if len(finite):
            keep.append(finite.Gain.idxmax())
        keep += list(valid.sort_values("Gain", ascending=False, kind="stable").index[:top])
        keep += list(part[~part.Valid].index[:top])
    return whole.loc[sorted(set(keep))].reset_index(drop=True)


CASES = [
    ("exact", {}),
    ("exact", {"min_child_weight": 30}),  # many blocked candidates
    ("exact", {"colsample_bynode": 0.6, "seed": 3}),
    ("hist", {"max_bin": 32}),
    ("hist", {"min_child_weight": 30, "max_bin": 64}),
    ("approx", {"colsample_bytree": 0.6, "seed": 1}),
]


@pytest.mark.parametrize(("method", "extra"), CASES)
def test_summary_is_the_whole_tables_picks(method, extra):
    X, y = _data()
    bst = boost.train({"tree_method": method, "max_depth": 3, **extra}, X, y, 3)
    tree = bst.trees_to_dataframe(include_pruned=True)
    for r in (1, 3):
        for node in tree[tree.Round == r].Node.tolist()[:5]:
            whole = bst.split_candidates(r, node)
            summary = bst.candidate_summary(r, node, top=TOP)
            pd.testing.assert_frame_equal(summary.table, _by_hand(whole, TOP))
            counts = whole.Feature.value_counts(sort=False)
            assert summary.counts.index.tolist() == bst.feature_names
            assert summary.counts.tolist() == [int(counts.get(n, 0))
                                               for n in bst.feature_names]
            assert summary.table.Best.sum() == whole.Best.sum()  # the node's split is kept


@pytest.mark.parametrize(("method", "extra"), CASES)
def test_features_restrict_the_table_and_keep_best(method, extra):
    X, y = _data(seed=1)
    bst = boost.train({"tree_method": method, "max_depth": 3, **extra}, X, y, 2)
    for node in (0, 1, 2):
        whole = bst.split_candidates(2, node)
        for names in (["f1"], ["f0", "f3"], bst.feature_names):
            part = bst.split_candidates(2, node, features=list(reversed(names)))
            expected = whole[whole.Feature.isin(names)].reset_index(drop=True)
            pd.testing.assert_frame_equal(part, expected)


def test_summary_of_a_big_root_keeps_few_rows():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(20_000, 6)).round(3)
    y = X[:, 0] - X[:, 1] + rng.normal(scale=0.3, size=20_000)
    bst = boost.train({"tree_method": "exact", "max_depth": 2}, X, y, 1)
    summary = bst.candidate_summary(1, 0, top=15)
    assert summary.counts.sum() > 10_000  # thousands of candidates a feature
    assert len(summary.table) <= 6 * 31
    whole = bst.split_candidates(1, 0)
    best = whole[whole.Best].iloc[0]
    chosen = summary.table[summary.table.Best].iloc[0]
    assert (chosen.Feature, chosen.Threshold, chosen.Gain) == (best.Feature, best.Threshold,
                                                               best.Gain)
    # a feature's gain curve, made of its kept rows alone: the whole table's, thinned
    from boost.trace.nodes import gain_curve
    for feature in ("f0", "f3"):
        curve = bst.trace.gain_curve(1, 0, 0, feature)
        assert 500 < len(curve) < summary.counts[feature] / 3  # thinned: thousands of them
        expected = gain_curve(whole.assign(Feature=whole.Feature), feature)
        pd.testing.assert_frame_equal(curve.reset_index(drop=True),
                                      expected.reset_index(drop=True), check_categorical=False)


def test_bad_arguments_say_what_to_give():
    X, y = _data(n=100)
    bst = boost.train({"tree_method": "exact", "max_depth": 2}, X, y, 1)
    with pytest.raises(ValueError, match="not the model's"):
        bst.split_candidates(1, 0, features=["nope"])
    with pytest.raises(ValueError, match="whole number"):
        bst.candidate_summary(1, 0, top=0)


@pytest.mark.parametrize("top", [1, 3, 15])
def test_pick_keeps_the_earlier_of_equal_gains(top):
    """``_pick`` on gains with many ties, rising runs (every candidate enters its buffer) and
    -inf/inf/NaN, against the rule by hand: the first of the largest finite valid gains,
    the ``top`` largest valid gains (the earlier of equals), the first ``top`` blocked."""
    from boost.trace.candidates import _pick

    rng = np.random.default_rng(top)
    loss = np.r_[rng.integers(0, 6, 300), np.arange(200), rng.integers(0, 3, 100)].astype(
        np.float32)  # the gains' dtype in a summary (no other kernel to compile)
    loss[rng.choice(len(loss), 12, replace=False)] = [-np.inf] * 4 + [np.inf] * 4 + [np.nan] * 4
    valid = rng.random(len(loss)) < 0.8
    picked = np.zeros(len(loss), dtype=bool)
    _pick(loss, valid, np.int64(0), np.int64(len(loss)), np.int64(top), picked)
    part = pd.DataFrame({"Gain": loss, "Valid": valid})
    shown = part[part.Valid & part.Gain.notna()]
    finite = shown[np.isfinite(shown.Gain)]
    keep = {finite.Gain.idxmax()}
    keep |= set(shown.sort_values("Gain", ascending=False, kind="stable").index[:top])
    keep |= set(part[~part.Valid].index[:top])
    assert set(np.flatnonzero(picked)) == keep
