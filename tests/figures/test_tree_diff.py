"""viz.tree_diff: hand-made trees with one known difference each, and engine trees whose
differences follow from the parameters (the four-point example's numbers by hand)."""

import numpy as np
import pandas as pd
import pytest

import boost
from viz.compare import leaf_summary, mark_differences
from viz.tree import make_tree_figure
from viz.tree_diff import diff_trees, node_paths

COLUMNS = ["Tree", "Node", "ID", "Feature", "Split", "Yes", "No", "Missing", "Gain", "Leaf",
           "Pruned", "Reason", "Value"]


def node(n, feature="Leaf", split=np.nan, yes=None, no=None, missing="yes", gain=0.0,
         leaf=None, pruned=False, reason="", value=0.0):
    """One row of trees_to_dataframe(include_pruned=True) for tree 0."""
    leaf = feature == "Leaf" if leaf is None else leaf
    ref = {"yes": yes, "no": no}.get(missing)
    return [0, n, f"0-{n}", feature, split, None if yes is None else f"0-{yes}",
            None if no is None else f"0-{no}", None if ref is None else f"0-{ref}", gain, leaf,
            pruned, reason, value]


def tree(*rows):
    return pd.DataFrame([list(r) for r in rows], columns=COLUMNS)


def base():
    """Root x < 15 (yes: leaf 1, no: node 2 = x < 30 with leaves 3 and 4)."""
    return [node(0, "x", 15.0, 1, 2, gain=120.0),
            node(1, value=-3.15, reason="no positive gain"),
            node(2, "x", 30.0, 3, 4, gain=140.0),
            node(3, value=2.1, reason="max_depth"),
            node(4, value=-2.25, reason="max_depth")]


def test_identical_trees_have_no_marks():
    d = diff_trees(tree(*base()), tree(*base()))
    assert d.same and d.a == {} and d.b == {} and d.lines == ()


def test_a_changed_threshold_is_another_split_and_hides_what_lies_below():
    rows = base()
    rows[2] = node(2, "x", 32.5, 3, 4, gain=140.0)
    rows[3] = node(3, value=9.9)  # below another split: not compared
    d = diff_trees(tree(*base()), tree(*rows), ("current", "pin 1"))
    assert list(d.a) == [2] and list(d.b) == [2]
    assert d.a[2].kind == "split" and d.count("split") == 1 and len(d.items) == 1
    assert d.lines[0] == "At node 2: current splits x < 30, pin 1 x < 32.5."


def test_a_threshold_that_differs_beyond_four_digits_is_said_in_seven():
    rows = base()
    rows[0] = node(0, "x", 15.00001, 1, 2, gain=120.0)
    d = diff_trees(tree(*base()), tree(*rows))
    assert d.lines == ("At the root: A splits x < 15, B x < 15.00001.",)


def test_another_feature_and_another_missing_direction_are_other_splits():
    rows = base()
    rows[0] = node(0, "z", 15.0, 1, 2)
    assert diff_trees(tree(*base()), tree(*rows)).count("split") == 1
    rows = base()
    rows[2] = node(2, "x", 30.0, 3, 4, missing="no")
    d = diff_trees(tree(*base()), tree(*rows))
    assert d.lines == ("At node 2 (x < 30): missing values go yes in A, no in B.",)


def test_a_pruned_branch_is_marked_on_both_trees():
    pruned = base()
    pruned[2] = node(2, "x", 30.0, 3, 4, gain=14.0, leaf=True, reason="gamma", value=0.65)
    pruned[3] = node(3, value=2.1, pruned=True, reason="gamma")
    pruned[4] = node(4, value=-2.25, pruned=True, reason="gamma")
    d = diff_trees(tree(*base()), tree(*pruned))
    assert list(d.a) == [2] and list(d.b) == [2] and d.b[2].kind == "branch"
    assert d.lines == ("At node 2: A splits x < 30; in B it is a leaf: γ pruned x < 30 "
                       "(gain 14).",)
    back = diff_trees(tree(*pruned), tree(*base()))
    assert back.lines == ("At node 2: B splits x < 30; in A it is a leaf: γ pruned x < 30 "
                          "(gain 14).",)


def test_a_moved_leaf_value_is_marked_with_its_change():
    rows = base()
    rows[4] = node(4, value=-2.0, reason="max_depth")
    d = diff_trees(tree(*base()), tree(*rows))
    assert list(d.a) == [4] and d.a[4].kind == "leaf"
    assert d.lines == ("Leaf node 4: η·w -2.25 in A, -2 in B (Δ 0.25).",)
    rows[4] = node(4, value=-2.25 * (1 + 1e-8))  # float32 rounding, not a move
    assert diff_trees(tree(*base()), tree(*rows)).same


def test_nodes_are_matched_by_place_not_by_id():
    """The same tree grown in another order: node 2's children are 5 and 6 in B."""
    rows = base()[:3]
    rows[2] = node(2, "x", 30.0, 5, 6, gain=140.0)
    rows += [node(5, value=2.1), node(6, value=-2.0)]
    paths = node_paths(tree(*rows))
    assert {p: int(r.Node) for p, r in paths.items()} == {"": 0, "L": 1, "R": 2, "RL": 5,
                                                          "RR": 6}
    d = diff_trees(tree(*base()), tree(*rows))
    assert d.a[4].kind == "leaf" and d.b[6].kind == "leaf"
    assert d.lines == ("Leaf node 4 in A, node 6 in B: η·w -2.25 in A, -2 in B (Δ 0.25).",)


FOUR_X = np.array([[10.0], [20.0], [25.0], [35.0]])
FOUR_Y = np.array([-10.0, 7.0, 8.0, -7.0])
FOUR = {"base_score": 0.5, "lambda": 0, "max_depth": 2, "tree_method": "exact"}


def four_point_tree(**params):
    bst = boost.train({**FOUR, **params}, FOUR_X, FOUR_Y, 1)
    return bst.trees_to_dataframe(include_pruned=True)


def test_engine_trees_the_same_parameters_are_the_same_tree():
    assert diff_trees(four_point_tree(eta=0.3), four_point_tree(eta=0.3)).same


def test_engine_trees_eta_moves_every_leaf_by_its_own_factor():
    # The classic example by hand: w = -G/H = -10.5, 7, -7.5; eta scales η·w.
    d = diff_trees(four_point_tree(eta=0.3), four_point_tree(eta=0.6))
    assert d.count("leaf") == 3 and len(d.items) == 3
    assert set(d.lines) == {"Leaf node 1: η·w -3.15 in A, -6.3 in B (Δ -3.15).",
                            "Leaf node 3: η·w 2.1 in A, 4.2 in B (Δ 2.1).",
                            "Leaf node 4: η·w -2.25 in A, -4.5 in B (Δ -2.25)."}


def test_engine_trees_gamma_150_prunes_the_whole_tree_and_hist_refuses_it():
    # gains 120.33 (root) and 140.17 (node 2): γ = 150 prunes both under exact; under hist
    # γ = 130 refuses the root's split before growing it.
    pruned = diff_trees(four_point_tree(), four_point_tree(gamma=150))
    assert pruned.lines == ("At the root: A splits f0 < 15; in B it is a leaf: γ pruned "
                            "f0 < 15 (gain 120.33).",)
    refused = diff_trees(four_point_tree(), four_point_tree(gamma=130, tree_method="hist"))
    assert refused.lines == ("At the root: A splits f0 < 15; in B it is a leaf: γ refused "
                             "f0 < 20 (gain 120.33).",)
    kept = diff_trees(four_point_tree(), four_point_tree(gamma=130))
    assert kept.same  # 140.17 >= 130 protects the root under exact


def test_engine_trees_a_deeper_tree_adds_branches_below_the_same_splits():
    # Round 1 of both grows from the same base_score: depth-wise growth makes the same
    # first two levels, and max_depth 3 splits each depth-2 leaf once more.
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 3))
    y = X[:, 0] * 2 - X[:, 1] ** 2 + rng.normal(size=400) * 0.1
    shallow, deep = (boost.train({"max_depth": d, "tree_method": "exact"}, X, y, 1)
                     .trees_to_dataframe(include_pruned=True) for d in (2, 3))
    d = diff_trees(shallow, deep)
    assert len(d.items) == d.count("branch") == int(shallow.Leaf.sum()) == 4
    assert all(line.startswith("At node") and "B splits" in line and "(at max_depth)" in line
               for line in d.lines)
    assert set(d.a) == set(shallow.Node[shallow.Leaf]) == set(d.b)


@pytest.mark.parametrize("large", [False, True])
def test_rings_sit_on_the_marked_nodes_and_keep_the_tree_in_pixels(large):
    a, b = four_point_tree(eta=0.3), four_point_tree(eta=0.6)
    d = diff_trees(a, b)
    fig = make_tree_figure(b, title="B", large=large, width=400)
    nodes = next(t for t in fig.data if t.name == "leaf")
    plot = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    marked = mark_differences(fig, d.b, large)
    ring = next(t for t in marked.data if t.name == "leaf value moved")
    assert sorted(zip(ring.x, ring.y, strict=True)) == sorted(zip(nodes.x, nodes.y, strict=True))
    assert list(ring.hovertext) == [d.b[int(n)].text for n in nodes.customdata]
    assert marked.layout.height - marked.layout.margin.t - marked.layout.margin.b == plot
    assert marked.layout.legend.yref == "container" and marked.layout.legend.y == 0


def test_leaf_summary_counts_the_final_leaves_and_their_absolute_values():
    frame = pd.concat([four_point_tree(eta=0.3).assign(Round=1),
                       four_point_tree(gamma=150).assign(Round=2, Tree=1)])
    summary = leaf_summary(frame)
    assert list(summary.leaves) == [3, 1]  # γ = 150 prunes the tree to its root
    assert summary.abs_value.iloc[0] == pytest.approx(3.15 + 2.1 + 2.25)
    assert summary.abs_value.iloc[1] == pytest.approx(0.3)  # the root: 0.3 · (−G/H) = −0.3
