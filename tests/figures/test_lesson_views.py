"""The lesson views' numbers (issue 19): function space, pruning, quantile sketch, checked
against XGBoost (the oracle) or against arithmetic done here by hand."""

import numpy as np
import pytest
import xgboost as xgb
from datasets import make_data
from oracle import xgb_cuts, xgb_train

import boost
from boost.trace.rounding import rounded
from viz.function_space import function_space_table, make_function_space_figure
from viz.pruning import gamma_summary, read_gamma
from viz.sketch import make_sketch_figure

THREE_X = np.array([[1.0, 5.0], [2.0, 3.0], [3.0, 4.0]])
THREE_Y = np.array([3.0, -1.0, 2.0])
PARAMS = {"tree_method": "exact", "base_score": 0.5, "lambda": 0, "eta": 0.3, "max_depth": 2,
          "min_child_weight": 0}
ROUNDS = 4
NAMES = ("row 0", "row 2")


def _arrow(fig, prefix):
    trace = next(t for t in fig.data if t.name.startswith(prefix))
    return np.array([trace.x[0], trace.y[0]]), np.array([trace.x[1], trace.y[1]])


def _oracle_margins(model, X, r):
    """XGBoost's margins after rounds 1..r (r = 0: the base score)."""
    if r == 0:
        return np.full(len(X), PARAMS["base_score"], dtype=np.float32)
    return model.predict(xgb.DMatrix(X), output_margin=True, iteration_range=(0, r))


@pytest.mark.parametrize("r", range(ROUNDS + 1))
def test_function_space_arrows_are_xgboost_margins(r):
    bst = boost.train(PARAMS, THREE_X, THREE_Y, ROUNDS)
    ref, _ = xgb_train(PARAMS, THREE_X, THREE_Y, ROUNDS)
    rows = [0, 2]
    fs = bst.trace.function_space(THREE_X[rows], THREE_Y[rows], None, (0, 2), r)
    for i in range(r + 1):  # the path: F after every round, bit for bit
        np.testing.assert_array_equal(fs.path[i], _oracle_margins(ref, THREE_X[rows], i))
    here = _oracle_margins(ref, THREE_X[rows], r)
    fig = make_function_space_figure(fs, NAMES)
    start, end = _arrow(fig, "−g")
    g = here - THREE_Y[rows].astype(np.float32)  # squared error: g = F − y, h = 1
    np.testing.assert_array_equal(start, here)
    np.testing.assert_array_equal(end, here - g)
    np.testing.assert_allclose(end, THREE_Y[rows], rtol=1e-6)  # −g from F lands on y
    np.testing.assert_array_equal(fs.hess, [1.0, 1.0])
    target = next(t for t in fig.data if t.name == "y (loss 0)")
    assert (target.x[0], target.y[0]) == (3.0, 2.0)
    steps = [t for t in fig.data if t.name.startswith("tree ")]
    if r == ROUNDS:
        assert fs.step is None and not steps
        return
    after = _oracle_margins(ref, THREE_X[rows], r + 1)
    np.testing.assert_array_equal(fs.step, after - here)  # the tree's step = F(r+1) − F(r)
    start, end = _arrow(fig, f"tree {r + 1}")
    np.testing.assert_array_equal(start, here)
    np.testing.assert_allclose(end, after, rtol=1e-6)
    # = η·w of each row's leaf, up to float32 rounding of F(r) + η·w
    np.testing.assert_allclose(bst.tree_output(THREE_X[rows], r + 1), fs.step, rtol=1e-6)


def test_function_space_newton_step_is_minus_g_over_h_for_logistic():
    y = np.array([1.0, 0.0, 1.0])
    params = {**PARAMS, "objective": "binary:logistic"}
    bst = boost.train(params, THREE_X, y, 3)
    ref, _ = xgb_train(params, THREE_X, y, 3)
    rows = [0, 1]
    r = 2
    fs = bst.trace.function_space(THREE_X[rows], y[rows], None, (0, 1), r)
    m = _oracle_margins(ref, THREE_X[rows], r)
    np.testing.assert_array_equal(fs.current, m)
    p = 1.0 / (1.0 + np.exp(-m.astype(float)))  # by hand, in float64
    g, h = p - y[rows], p * (1 - p)
    np.testing.assert_allclose(fs.grad, g, rtol=1e-5)
    np.testing.assert_allclose(fs.hess, h, rtol=1e-5)
    fig = make_function_space_figure(fs, NAMES, newton=True)
    assert not any(t.name and t.name.startswith("F after") for t in fig.data)
    start, end = _arrow(fig, "−g/h")
    np.testing.assert_allclose(end - start, -g / h, rtol=1e-5)
    start, end = _arrow(fig, "−g (")
    np.testing.assert_allclose(end - start, -g, rtol=1e-5)
    table = function_space_table(fs, NAMES)
    np.testing.assert_allclose(table.loc["−g/h"], -g / h, rtol=1e-5)
    assert list(table.columns) == list(NAMES)
    assert "y (loss 0)" not in [t.name for t in fig.data]  # no finite target for the log-loss


FOUR_X = np.array([[10.0], [20.0], [25.0], [35.0]])
FOUR_Y = np.array([-10.0, 7.0, 8.0, -7.0])
FOUR = {"base_score": 0.5, "lambda": 0, "eta": 0.3, "max_depth": 2}


def _tree(method, gamma):
    bst = boost.train({**FOUR, "tree_method": method, "gamma": gamma}, FOUR_X, FOUR_Y, 1)
    return bst.trees_to_dataframe(include_pruned=True)


def _xgb_splits(gamma, method="exact"):
    model, _ = xgb_train({**FOUR, "tree_method": method, "gamma": gamma}, FOUR_X, FOUR_Y, 1)
    frame = model.trees_to_dataframe()
    return sorted(round(float(g), 2) for g in frame.Gain[frame.Feature != "Leaf"])


def test_pruning_gamma_130_exact_keeps_the_weak_root_hist_refuses_it():
    exact = read_gamma(_tree("exact", 130))
    # root x < 15: gain 120.33 < 130, but its child x < 30 (gain 140.17) survives, so the
    # root is not a split over two leaves and stays.
    assert [(s.node, round(s.gain, 2)) for s in exact.kept] == [(0, 120.33), (2, 140.17)]
    assert exact.pruned == () and exact.refused == ()
    assert _xgb_splits(130) == [120.33, 140.17]
    text = gamma_summary(_tree("exact", 130), 130)
    assert text.startswith("grew 2 splits; γ = 130 pruned none; kept 1 below γ")
    assert "kept 1 below γ" in text and "gain 120.33 < 130" in text
    hist = read_gamma(_tree("hist", 130))
    assert hist.grown == 0 and _xgb_splits(130, "hist") == []  # XGBoost's hist: one leaf
    assert [(s.node, round(s.gain, 2)) for s in hist.refused] == [(0, 120.33)]
    assert gamma_summary(_tree("hist", 130), 130, "hist") == (
        "refused 1 split before growing it (f0 < 20: gain 120.33 < 130)")


def test_pruning_gamma_150_prunes_everything():
    exact = read_gamma(_tree("exact", 150))
    assert exact.kept == () and exact.refused == ()
    assert sorted(round(s.gain, 2) for s in exact.pruned) == [120.33, 140.17]
    assert _xgb_splits(150) == []  # XGBoost's tree is a single leaf
    assert gamma_summary(_tree("exact", 150), 150) == (
        "grew 2 splits, then γ = 150 pruned 2 (f0 < 15: gain 120.33 < 150; "
        "f0 < 30: gain 140.17 < 150)")
    assert read_gamma(_tree("hist", 150)).refused[0].node == 0


def test_pruning_gamma_0_keeps_every_split():
    for method in ("exact", "hist"):
        g = read_gamma(_tree(method, 0))
        assert len(g.kept) == 2 and g.pruned == () and g.refused == ()
        verb = "pruned" if method == "exact" else "refused"
        assert gamma_summary(_tree(method, 0), 0, method) == f"grew 2 splits; γ = 0 {verb} none"


@pytest.mark.parametrize("method", ["hist", "exact"])
def test_sketch_cuts_are_xgboost_cuts(method):
    X, y = make_data(seed=3, n=400, n_features=2, objective="binary:logistic",
                     constant_column=False)
    bst = boost.train({"tree_method": method, "max_bin": 16, "objective": "binary:logistic",
                       "max_depth": 2}, X, y, 3)
    indptr, values = xgb_cuts(np.asarray(X, dtype=np.float32), max_bin=16)
    for f in range(2):
        d = bst.trace.sketch(f, 2, X=X)  # hist keeps bin codes: the values come from X
        np.testing.assert_array_equal(d.values, np.asarray(X[:, f], dtype=np.float32))
        np.testing.assert_array_equal(d.cuts, values[indptr[f] + 1:indptr[f + 1] - 1])
        assert len(d.cuts) == 15 and d.max_bin == 16
        fig = make_sketch_figure(d.values, d.thresholds, d.cuts, f"f{f}", size_by=d.size_by)
        cuts_trace = next(t for t in fig.data if t.name.startswith("hist's cut points"))
        drawn = np.array([x for x in cuts_trace.x if x is not None])
        np.testing.assert_array_equal(np.unique(drawn), d.cuts.astype(float))
        assert cuts_trace.name == "hist's cut points (15)"
        # the legend says max_bin and the rows (the lesson's steps 1 and 2 name them)
        named = make_sketch_figure(d.values, d.thresholds, d.cuts, f"f{f}", max_bin=d.max_bin)
        assert {t.name for t in named.data} >= {"hist's cut points (15; max_bin 16)",
                                                "training values (400)"}
        # h = p(1 − p) at round 2, from the round's margins
        p = bst.predict(X, iteration_range=(0, 2)).astype(float)
        np.testing.assert_allclose(d.size_by, p * (1 - p), rtol=1e-5)


def test_exact_thresholds_are_the_root_candidates():
    X, y = make_data(seed=4, n=300, n_features=2, ties=True, constant_column=False)
    bst = boost.train({"tree_method": "exact", "max_depth": 2}, X, y, 1)
    cand = bst.split_candidates(1, 0)
    for f in range(2):
        d = bst.trace.sketch(f, 0)
        mine = cand[cand.Feature == f"f{f}"].Threshold.to_numpy(dtype=np.float32)
        np.testing.assert_array_equal(np.sort(mine), d.thresholds)
        assert len(d.thresholds) == len(np.unique(X[:, f])) - 1


def test_approx_sketch_uses_the_next_trees_cuts_and_hessians():
    X, y = make_data(seed=5, n=600, n_features=2, objective="binary:logistic",
                     constant_column=False)
    bst = boost.train({"tree_method": "approx", "max_bin": 8, "objective": "binary:logistic",
                       "max_depth": 2}, X, y, 3)
    d = bst.trace.sketch(0, 1)
    assert d.tree == 2
    np.testing.assert_array_equal(d.cuts, bst.cuts(2)["f0"][:-1])
    p = bst.predict(X, iteration_range=(0, 1)).astype(float)
    np.testing.assert_allclose(d.size_by, p * (1 - p), rtol=1e-5)


LESSON_VIEWS = ("function-space", "pruning", "quantile-sketch")


@pytest.mark.parametrize("method", ["hist", "approx", "exact"])
def test_lesson_views_render_with_every_tree_method(method):
    from apptest import open_app as _app  # the app under Streamlit's AppTest

    # multi-class with missing values (penguins), binary (moons), regression at the last
    # round (four_points: no next tree) and round 0
    for sample, r in (("penguins", "3"), ("moons", "20"), ("four_points", "0")):
        for view in LESSON_VIEWS:
            at = _app(sample=sample, round=r, view=view, tree_method=method, gamma="2")
            assert not at.error, (sample, view, [e.value for e in at.error])
            assert at.query_params["view"] == view


def test_pruning_view_reads_gamma_on_screen():
    from apptest import open_app as _app

    at = _app(sample="four_points", round="1", view="pruning", base_score="0.5",
              max_depth="2", gamma="130", **{"lambda": "0"})
    text = [m.value for m in at.markdown if m.value.startswith("**")]
    assert text == [
        "**exact**: grew 2 splits; γ = 130 pruned none; kept 1 below γ because a split under it "
        "survives (x < 15: gain 120.33 < 130)",
        "**hist**: refused 1 split before growing it (x < 20: gain 120.33 < 130)"]


def _font_sizes(fig) -> list[float]:
    """Every text size of a figure: layout, title, legend and axes (what is not set inherits
    the layout's font: the app draws figures with their own theme) and the traces' text."""
    lay = fig.layout
    sizes = [lay.font.size] + [
        lay.font.size if s is None else s
        for s in (lay.title.font.size, lay.legend.font.size, lay.xaxis.tickfont.size,
                  lay.yaxis.tickfont.size, lay.xaxis.title.font.size, lay.yaxis.title.font.size)]
    for t in fig.data:
        font = getattr(t, "textfont", None)
        if font is not None and font.size is not None and getattr(t, "text", None) is not None:
            sizes.append(font.size)
    assert None not in sizes, sizes
    return sizes


def test_lesson_figures_use_projector_type_when_large():
    bst = boost.train({**PARAMS, "objective": "binary:logistic"}, THREE_X, [1.0, 0.0, 1.0], 3)
    fs = bst.trace.function_space(THREE_X[:2], [1.0, 0.0], None, (0, 1), 1)
    X, y = make_data(seed=6, n=200, n_features=2, objective="binary:logistic",
                     constant_column=False)
    d = boost.train({"max_bin": 16, "objective": "binary:logistic"}, X, y, 2).trace.sketch(
        0, 1, X=X)
    figures = [make_function_space_figure(fs, NAMES, large=True),
               make_function_space_figure(fs, NAMES, large=True, newton=True),
               make_sketch_figure(d.values, d.thresholds, d.cuts, "f0", large=True,
                                  size_by=d.size_by)]
    for fig in figures:
        assert min(_font_sizes(fig)) >= 16, fig.layout.title.text


def test_function_space_skips_the_newton_arrow_where_h_is_zero():
    bst = boost.train({**PARAMS, "objective": "binary:logistic"}, THREE_X, [1.0, 0.0, 1.0], 2,
                      sample_weight=[1.0, 0.0, 1.0])
    fs = bst.trace.function_space(THREE_X[:2], [1.0, 0.0], [1.0, 0.0], (0, 1), 1)
    assert fs.hess[1] == 0
    names = [t.name for t in make_function_space_figure(fs, NAMES, newton=True).data]
    assert not [n for n in names if n.startswith("−g/h")], names
    # −g's legend says where it points, by the rounding rule (a typographic minus)
    minus = [f"{rounded(-g)}".replace("-", "−") for g in fs.grad]
    assert f"−g (negative gradient) = ({minus[0]}, {minus[1]})" in names, names
    assert np.isnan(function_space_table(fs, NAMES).loc["−g/h", "row 2"])


def test_the_newton_arrow_says_its_step():
    """At p = 0.5 (base_score 0.5, round 0) −g = y − p = ±0.5 and h = p(1 − p) = 0.25, so
    −g/h = ±2 by hand; the legend says it as it says −g."""
    bst = boost.train({**PARAMS, "objective": "binary:logistic"}, THREE_X, [1.0, 0.0, 1.0], 2)
    fs = bst.trace.function_space(THREE_X[:2], [1.0, 0.0], None, (0, 1), 0)
    names = [t.name for t in make_function_space_figure(fs, NAMES, newton=True).data]
    assert "−g (negative gradient) = (0.5, −0.5)" in names, names
    assert "−g/h (Newton step) = (2, −2)" in names, names
