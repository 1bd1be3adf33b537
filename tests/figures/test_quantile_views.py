"""reg:quantileerror's views: the fit draws one line per quantile_alpha (the band between
them), each at the model's own predictions; the loss view draws each alpha's pinball loss,
equal to a hand computation, and their mean is XGBoost's ``quantile`` metric; the tree
track and the formula card name the alpha."""

import numpy as np
import pytest

import boost
from boost.trace.arithmetic import objective_latex
from boost.trace.rounds import ROUND_GRID
from viz.fit import make_fit_figure
from viz.loss import make_loss_figure
from viz.round_trace import round_trace

ALPHAS = [0.1, 0.5, 0.9]


@pytest.fixture(scope="module")
def model():
    rng = np.random.default_rng(5)
    X = rng.uniform(-3, 3, size=(150, 1))
    y = 2 * X[:, 0] + rng.normal(size=150) * (0.5 + np.abs(X[:, 0]))
    bst = boost.train({"objective": "reg:quantileerror", "quantile_alpha": ALPHAS,
                       "tree_method": "hist", "max_depth": 2}, X, y, 4,
                      evals=[(X, y, "train")])
    return bst, X, y


def test_the_fit_draws_a_line_per_alpha_at_the_models_predictions(model):
    bst, X, y = model
    rows = np.arange(len(X))
    fit = bst.trace.fit(X, y, 3, rows, grid=ROUND_GRID)
    fig = make_fit_figure(fit)
    lines = [t for t in fig.data if t.mode == "lines"]
    assert [t.name for t in lines[3:]] == [f"α = {a:g}, after round 3" for a in ALPHAS]
    grid = fit.grid[0][:, None]
    now = bst.predict(grid, iteration_range=(0, 3))
    before = bst.predict(grid, iteration_range=(0, 2))
    for k in range(3):
        np.testing.assert_array_equal(lines[3 + k].y, now[:, k])
        np.testing.assert_array_equal(lines[k].y, before[:, k])
    assert lines[4].fill == "tonexty"  # the band between neighbouring quantiles
    base = make_fit_figure(bst.trace.fit(X, y, 0, rows))
    assert [t.name.split(": ")[1] for t in base.data[1:]] == [
        f"base_score {v:.3g}".replace("-", "\u2212") for v in bst.base_score]


def test_each_alphas_pinball_loss_by_hand_and_their_mean_is_the_metric(model):
    bst, X, y = model
    per = bst.quantile_loss_history()
    assert list(per.columns) == [f"train α={a:g}" for a in ALPHAS]
    for r in (0, 2, 4):
        m = bst.predict(X, iteration_range=(0, r)) if r else np.tile(bst.base_score, (len(X), 1))
        d = y[:, None] - m.astype(np.float64)
        hand = np.mean(np.maximum(np.array(ALPHAS) * d, (np.array(ALPHAS) - 1) * d), axis=0)
        np.testing.assert_allclose(per.iloc[r], hand, rtol=1e-5)
        assert bst.loss_history().train[r] == pytest.approx(hand.mean(), rel=1e-6)
    fig = make_loss_figure(bst.loss_history(), 2, bst.metric_name, quantiles=per)
    drawn = {t.name: t.y for t in fig.data if t.mode == "lines"}
    for column in per.columns:
        np.testing.assert_array_equal(drawn[column], per[column])


def test_the_tree_track_and_formula_card_name_the_alpha(model):
    bst, X, y = model
    trace = round_trace(bst.trace.rounds(X, y, np.arange(len(X)), 2), bst.loss_history(),
                        bst.metric_name, None, bst.params)
    assert trace["tree"]["group_label"] == "α = 0.9" and trace["tree"]["groups"] == 3
    card = dict(objective_latex(bst.objective, bst.params))
    assert r"\operatorname{quantile}_{\alpha}" in card["leaf"]
    assert "0.1,\\ 0.5,\\ 0.9" in card["quantiles"]
