"""The tree drawing, candidate chart and worked arithmetic, on the four-point example."""

import numpy as np
import pandas as pd
import pytest

import boost
from boost.trace.arithmetic import steps_csv, steps_latex, steps_table, worked_arithmetic
from boost.trace.node_record import top_candidates
from boost.trace.nodes import gain_curve
from boost.trace.rounding import rounded
from viz.candidates import make_candidates_figure
from viz.tree import make_tree_figure, tree_positions

X = np.array([[10.0], [20.0], [25.0], [35.0]])
Y = np.array([-10.0, 7.0, 8.0, -7.0])
BASE = {"tree_method": "exact", "base_score": 0.5, "lambda": 0, "eta": 0.3, "max_depth": 2}


def _tree(params):
    bst = boost.train(params, X, Y, 1)
    return bst, bst.trees_to_dataframe(include_pruned=True)


def test_positions_centre_splits_over_their_children():
    _, tree = _tree(BASE)
    pos = tree_positions(tree)
    assert pos[1] == (0.0, -1.0) and pos[3] == (1.0, -2.0) and pos[4] == (2.0, -2.0)
    assert pos[2] == (1.5, -1.0) and pos[0] == (0.75, 0.0)


def test_tree_figure_nodes_and_clickable_ids():
    _, tree = _tree(BASE)
    fig = make_tree_figure(tree, gamma=0.0, selected=2)
    by_name = {t.name: t for t in fig.data if t.name}
    assert list(by_name["split"].customdata) == [0, 2]
    assert list(by_name["leaf"].customdata) == [1, 3, 4]
    assert "f0 < 15<br>gain 120.33" in by_name["split"].text[0]
    assert "η·w \u22123.15" in by_name["leaf"].text[0]
    assert "gain − γ = 120.33" in by_name["split"].hovertext[0]
    assert by_name["selected"].x == (1.5,)
    assert all(t.hoverinfo == "skip" for t in fig.data if t.mode in ("lines", "text"))
    edge_labels = next(t for t in fig.data if t.mode == "text").text
    # Node 0 sends missing values to node 1 ("yes"); node 2 to node 3.
    assert list(edge_labels) == ["yes + missing", "no", "yes + missing", "no"]


def test_pruned_branches_stay_as_ghosts():
    _, tree = _tree({**BASE, "gamma": 150})
    fig = make_tree_figure(tree, gamma=150.0)
    by_name = {t.name: t for t in fig.data if t.name}
    assert "split" not in by_name  # the root became a leaf
    assert list(by_name["leaf"].customdata) == [0]
    assert sorted(by_name["pruned (ghost)"].customdata) == [1, 2, 3, 4]
    assert "removed by pruning" in by_name["pruned (ghost)"].hovertext[0]
    ghost_edges = fig.data[1]
    assert ghost_edges.line.dash == "dot" and len(ghost_edges.x) == 12  # 4 edges x 3


def test_candidates_figure_marks_winner_gamma_and_blocked():
    bst = boost.train({**BASE, "min_child_weight": 2}, X, Y, 1)
    cand = bst.split_candidates(1, 0)
    fig = make_candidates_figure(gain_curve(cand, "f0"), "f0", gamma=4.0)
    names = [t.name for t in fig.data]
    assert "blocked by min_child_weight" in names and "chosen split" in names
    chosen = fig.data[names.index("chosen split")]
    assert chosen.x == (22.5,) and chosen.y[0] == pytest.approx(4.0, abs=1e-5)
    gamma_line = [s for s in fig.layout.shapes if s.type == "line"][0]
    assert gamma_line.y0 == 4.0
    assert any(s.type == "rect" for s in fig.layout.shapes)
    table = top_candidates(cand)
    assert table.iloc[0].Note == "★" and table.iloc[0].Split == "f0 < 22.5"
    assert table.Note.iloc[-1].startswith("blocked")  # min_child_weight 2


def test_worked_arithmetic_numbers():
    bst, tree = _tree({**BASE, "gamma": 130})
    cand = bst.split_candidates(1, 0)
    steps = worked_arithmetic(tree.iloc[0], cand[cand.Best].iloc[0], bst.search_params)
    values = {s.name: s.value for s in steps}
    assert values["similarity"] == pytest.approx(4.0)
    assert values["similarity left"] == pytest.approx(110.25)
    assert values["gain"] == pytest.approx(120.333, abs=1e-3)
    assert values["gain minus gamma"] == pytest.approx(-9.667, abs=1e-3)
    assert values["leaf value"] == pytest.approx(-0.3)
    tex = steps_latex(steps, "round 1, node 0")
    assert tex.startswith("% round 1, node 0\n\\begin{align*}") and "120.33" in tex
    assert list(steps_table(steps).columns) == ["quantity", "value", "latex"]


@pytest.mark.parametrize("params", [
    {**BASE, "gamma": 130},  # a verdict, NaN in "per row"
    {"objective": "binary:logistic", "max_depth": 2, "reg_alpha": 0.5, "max_delta_step": 0.7,
     "min_child_weight": 0},  # a probability, alpha's T(G), a clipped weight
])
def test_steps_csv_is_the_tables_csv(params):
    """The record's CSV download, written without a table, is pandas' CSV of steps_table (the
    oracle), byte for byte, at every node: empty fields, the numbers' digits, quoted LaTeX."""
    rng = np.random.default_rng(3)
    Xr = rng.normal(size=(60, 2))
    yr = (Xr[:, 0] > 0).astype(float) if "objective" in params else Xr[:, 0] * 10 + rng.normal(
        size=60)
    bst = boost.train(params, Xr, yr, 3)
    compared = 0
    for r, node in zip(*bst.trace.trees()[["Round", "Node"]].to_numpy().T, strict=True):
        d = bst.trace.node_detail(int(r), int(node))
        steps = worked_arithmetic(d.numbers, d.best, bst.search_params,
                                  float(bst.base_margin[0]), rows=d.rows)
        assert steps_csv(steps) == steps_table(steps).to_csv(index=False)
        compared += 1
    assert compared >= 9
    assert steps_csv([]) == steps_table([]).to_csv(index=False) == "quantity,value,latex\n"


def test_worked_arithmetic_classification_probability():
    Xc = np.array([[1.0], [2.0], [3.0], [4.0]])
    yc = np.array([0.0, 0.0, 1.0, 1.0])
    bst = boost.train({"objective": "binary:logistic", "base_score": 0.5, "max_depth": 1,
                       "min_child_weight": 0}, Xc, yc, 1)
    tree = bst.trees_to_dataframe(include_pruned=True)
    leaf = tree[tree.Leaf].iloc[0]
    steps = worked_arithmetic(leaf, None, bst.search_params, float(bst.base_margin[0]))
    probability = steps[-1]
    assert probability.name == "log-odds to probability"
    assert probability.value == pytest.approx(1 / (1 + np.exp(-leaf.Value)), rel=1e-6)
    # m on one line, p on the next (one line ran past the app's column and lost p); a
    # negative leaf value in parentheses after the +
    assert r"\\ p &=" in probability.latex
    value = f"{leaf.Value:.6g}"
    assert (f"+ ({value})" if leaf.Value < 0 else f"+ {value}") in probability.latex
    assert "p(1 - p)" in steps[0].latex and "p - y" in steps[0].latex


def test_residual_figure_before_and_after():
    bst = boost.train(BASE, X, Y, 2)
    before, after = bst.round_view(0), bst.round_view(1)
    from viz.residuals import make_residual_figure

    fig = make_residual_figure(before, after, bst.objective)
    rows = fig.data[2]
    np.testing.assert_allclose(rows.x, [-10.5, 6.5, 7.5, -7.5])
    np.testing.assert_allclose(rows.y, [-7.35, 4.4, 5.4, -5.25], rtol=1e-5)
    assert "removed 30.0%" in fig.layout.title.text  # eta = 0.3 with pure leaves


def test_waterfall_adds_up_to_the_margin():
    from viz.residuals import make_waterfall_figure

    Xc, yc = X, (Y > 0).astype(float)
    bst = boost.train({"objective": "binary:logistic", "max_depth": 2, "min_child_weight": 0},
                      Xc, yc, 5)
    fig = make_waterfall_figure(bst.trace.waterfall(Xc[1], 5), label="row 1")
    w = fig.data[0]
    assert list(w.measure) == ["absolute"] + ["relative"] * 5 + ["total"]
    margin = float(bst.predict(Xc[1:2], output_margin=True)[0])
    assert w.y[-1] == pytest.approx(margin, abs=1e-5)
    assert sum(w.y[:-1]) == pytest.approx(margin, abs=1e-5)
    assert f"P(y = 1) = {1 / (1 + np.exp(-margin)):.4g}" in fig.layout.title.text


def test_learning_rate_figure_marks_best_rounds():
    from viz.learning_rate import best_round, make_learning_rate_figure

    boosters = {eta: boost.train({**BASE, "eta": eta}, X, Y, 6,
                                 evals=[(X, Y, "train"), (X, Y, "valid")]) for eta in (0.1, 1.0)}
    histories = {eta: b.loss_history() for eta, b in boosters.items()}
    fig = make_learning_rate_figure(histories, 3, "rmse")
    column, best = best_round(histories[1.0])
    assert column == "valid" and best == int(histories[1.0]["valid"].to_numpy().argmin())
    loss = rounded(histories[1.0]["valid"].iloc[best])  # the rule of every number shown
    assert {t.name for t in fig.data if t.name} >= {
        f"η = 1 valid (best: {loss} at round {best})", "η = 1 train"}
    assert fig.layout.shapes[0].x0 == 3


def test_importance_by_round_ends_at_get_score():
    from viz.importance import make_importance_figure

    bst = boost.train({"max_depth": 2}, np.c_[X, X[::-1]], Y, 4)
    importance = bst.trace.importance_by_round("gain")
    table = importance.table
    final = bst.get_score(importance_type="gain")
    for i, name in enumerate(bst.feature_names):
        assert table[-1, i] == pytest.approx(final.get(name, 0.0), rel=1e-6)
    assert (table[0] == 0).all()
    fig = make_importance_figure(importance, 2)
    assert fig.layout.shapes[0].x0 == 2


def test_decision_path_is_drawn():
    bst, tree = _tree(BASE)
    assert bst.decision_path(X[2], 1) == [0, 2, 3]  # x = 25: right of 15, left of 30
    assert bst.decision_path([np.nan], 1) == [0, 1]  # missing goes to the default (yes)
    fig = make_tree_figure(tree, path=[0, 2, 3])
    line = next(t for t in fig.data if t.name == "the row's path")
    pos = tree_positions(tree)
    # edge by edge: 0 -> 2, then 2 -> 3 (each from below the parent's label)
    assert list(line.x) == [pos[0][0], pos[2][0], None, pos[2][0], pos[3][0], None]


def test_hist_refused_split_is_drawn_as_stubs():
    bst = boost.train({**BASE, "tree_method": "hist", "gamma": 130}, X, Y, 1)
    tree = bst.trees_to_dataframe(include_pruned=True)
    root = tree.iloc[0]
    assert root.Feature == "f0" and root.Split == 20.0 and root.Yes is None
    assert root.Leaf and root.Reason == "gamma" and not root.Pruned
    assert bst.trees_to_dataframe().iloc[0].Feature == "Leaf"  # the model: one leaf
    fig = make_tree_figure(tree, gamma=130)
    stubs = next(t for t in fig.data if t.name == "refused by γ")
    assert len(stubs.x) == 2
    leaf = next(t for t in fig.data if t.name == "leaf")
    assert "split refused" in leaf.hovertext[0]
    steps = worked_arithmetic(root, bst.split_candidates(1, 0).query("Best").iloc[0],
                              bst.search_params)
    assert r"\text{refused: the node stays a leaf}" in steps[-3].latex


def _contrast(hex_colour: str) -> float:
    """WCAG contrast ratio of a colour against white."""
    rgb = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    return 1.05 / (lum + 0.05)


def _labels(fig) -> dict:
    trace = next(t for t in fig.data if t.name == "node labels")
    return dict(zip(trace.customdata, trace.text, strict=True))


def test_ghosts_say_which_gain_gamma_cut_in_readable_grey():
    _, tree = _tree({**BASE, "gamma": 150})
    fig = make_tree_figure(tree, gamma=150.0)
    labels = _labels(fig)
    # the root (pruned to a leaf) and its removed split, node 2: gains 120.33 and 140.17 < 150
    assert labels[0].endswith("<br>f0 < 15<br>gain 120.33 < γ 150")
    assert labels[2] == "f0 < 30<br>gain 140.17 < γ 150"
    trace = next(t for t in fig.data if t.name == "node labels")
    colours = dict(zip(trace.customdata, trace.textfont.color, strict=True))
    assert {colours[n] for n in (1, 2, 3, 4)} == {"#595959"} and colours[0] == "#222222"
    assert _contrast("#595959") >= 4.5
    outlines = [s for s in fig.layout.shapes if s.line.dash == "dash"]
    # dashed outlines around the four ghosts: a square around the split (node 2, x = 1.5)
    assert sorted((s.xanchor, s.type) for s in outlines) == [
        (0.0, "circle"), (1.0, "circle"), (1.5, "rect"), (2.0, "circle")]
    assert trace.textfont.size == 13


def test_hist_refusal_is_labelled_at_label_size():
    bst = boost.train({**BASE, "tree_method": "hist", "gamma": 130}, X, Y, 1)
    tree = bst.trees_to_dataframe(include_pruned=True)
    for large, size in ((False, 13), (True, 16)):
        fig = make_tree_figure(tree, gamma=130, large=large)
        # G = 4, H = 4, λ = 0: w = -1, η·w = -0.3; the refused split and its gain
        assert _labels(fig)[0] == ("w \u22121<br>η·w \u22120.3<br>f0 < 20 refused<br>"
                                   "gain 120.33 < γ 130")
        assert next(t for t in fig.data if t.name == "node labels").textfont.size == size


def test_missing_direction_only_for_features_with_missing_values():
    _, tree = _tree(BASE)
    edges = [t for t in make_tree_figure(tree, missing_features=set()).data
             if t.name == "edge labels"][0]
    assert list(edges.text) == ["yes", "no", "yes", "no"]
    fig = make_tree_figure(tree, missing_features={"f0"})
    assert list(next(t for t in fig.data if t.name == "edge labels").text) == [
        "yes + missing", "no", "yes + missing", "no"]
    split = next(t for t in fig.data if t.name == "split")
    assert "(missing → yes)" in split.hovertext[0]
    split = next(t for t in make_tree_figure(tree, missing_features=set()).data
                 if t.name == "split")
    assert "missing" not in split.hovertext[0]


def test_collapsed_subtree_is_hidden_and_counted():
    _, tree = _tree(BASE)
    fig = make_tree_figure(tree, collapsed=frozenset({2}), selected=3, path=[0, 2, 3])
    by_name = {t.name: t for t in fig.data if t.name}
    assert list(by_name["collapsed (+ hidden)"].customdata) == [2]
    assert list(by_name["split"].customdata) == [0] and list(by_name["leaf"].customdata) == [1]
    assert _labels(fig)[2] == "f0 < 30<br>gain 140.17<br>+ 2 hidden"
    assert "selected" not in by_name  # node 3 is hidden
    assert list(by_name["the row's path"].x) == [0.5, 1.0, None]  # stops at node 2
    # the visible tree uses the room: two leaf slots (nodes 1 and 2) instead of three
    assert by_name["collapsed (+ hidden)"].x == (1.0,) and by_name["leaf"].x == (0.0,)


def test_large_mode_every_text_is_at_least_16px():
    _, tree = _tree({**BASE, "gamma": 150})
    fig = make_tree_figure(tree, gamma=150.0, large=True, title="Tree")
    lay = fig.layout
    assert lay.title.font.size >= 16 and lay.font.size >= 16
    assert lay.legend.font.size >= 16 and lay.hoverlabel.font.size >= 16
    assert all(t.textfont.size >= 16 for t in fig.data if "text" in (t.mode or ""))


@pytest.mark.parametrize("method", ["exact", "hist"])
def test_a_records_chart_is_the_figures_json(method):
    """A node record carries its candidates chart as Plotly's JSON written without building
    the figure (viz.node_page.chart_json): the same JSON as ``go.Figure(...).to_json()`` of
    the one candidates figure, for splits, leaves, blocked candidates (min_child_weight),
    missing values both ways and γ."""
    import json

    from ui.nodes import page_node
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 4)).round(3)
    y = X[:, 0] * 2 + rng.normal(size=3000)
    X[rng.random(X.shape) < 0.1] = np.nan
    bst = boost.train({"tree_method": method, "max_depth": 3, "min_child_weight": 30,
                       "gamma": 2.0}, pd.DataFrame(X, columns=list("abcd")), y, 3)
    seen = 0
    for r in (1, 3):
        for node in bst.trace.trees().query("Round == @r").Node:
            shown = page_node(bst, None, r, int(node))
            record = bst.trace.node_record(r, int(node))
            for feature, curve in record["curves"].items():
                figure = make_candidates_figure(
                    bst.trace.gain_curve(r, int(node), 0, feature), feature, 2.0,
                    refused=record["numbers"]["refused"],
                    parent=float("nan") if curve["s_node"] is None else curve["s_node"])
                assert json.loads(json.dumps(shown["charts"][feature])) == json.loads(
                    figure.to_json())
                seen += 1
    assert seen >= 10
