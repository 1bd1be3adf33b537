"""Figures, asserted on their data and layout (not pixels)."""

import numpy as np
import pytest
from datasets import make_data

import boost
from viz.fit import make_fit_figure
from viz.loss import make_loss_figure
from viz.theme import MAX_POINTS, sample_rows


def _fit_figure(bst, X, y, r, **kwargs):
    """The fit figure as the app draws it: the model's Fit record of the sampled rows."""
    return make_fit_figure(bst.trace.fit(X, y, r, sample_rows(len(X))), **kwargs)


@pytest.fixture(scope="module")
def four():
    X = np.array([[10.0], [20.0], [25.0], [35.0]])
    y = np.array([-10.0, 7.0, 8.0, -7.0])
    return X, y, boost.train({"base_score": 0.5, "lambda": 0, "max_depth": 2}, X, y, 2,
                             evals=[(X, y, "train")])


def test_one_feature_fit_shows_data_previous_and_current(four):
    X, y, bst = four
    fig = _fit_figure(bst, X, y, 1)
    names = [t.name for t in fig.data]
    assert names == ["data", "after round 0", "after round 1", "tree 1 alone (η·w)",
                     "residuals"]
    np.testing.assert_array_equal(fig.data[0].y, y)
    # The current curve is the model's prediction at round 1: the four-point leaves.
    curve = fig.data[2]
    at = {float(x): float(v) for x, v in zip(curve.x, curve.y, strict=True)}
    nearest = min(at, key=lambda x: abs(x - 10.0))
    assert at[nearest] == pytest.approx(0.5 - 3.15, abs=1e-5)
    assert np.allclose(fig.data[1].y, 0.5)  # round 0 = base_score
    step = fig.data[3]  # the round's tree alone: its leaf values eta * w
    assert set(np.round(np.asarray(step.y, dtype=float), 5)) == {-3.15, 2.1, -2.25}
    assert fig.layout.title.text == "Fit after round 1"


def test_predicted_against_actual_draws_a_sample_and_its_diagonal():
    # 3000 rows, one far outlier: 500 sampled rows are drawn (the model uses all), their
    # predictions are the model's, and the diagonal spans what is drawn, not the outlier.
    X, y = make_data(seed=2, n=3000, n_features=4, constant_column=False)
    y[np.argmax(y)] = 1000.0
    bst = boost.train({"max_depth": 2}, X, y, 3)
    fig = _fit_figure(bst, X, y, 2)
    previous, now, diagonal = fig.data
    assert len(now.x) == len(previous.x) == MAX_POINTS
    rows = sample_rows(len(X))
    np.testing.assert_array_equal(now.x, y[rows])
    np.testing.assert_allclose(now.y, bst.predict(X[rows], iteration_range=(0, 2)), rtol=1e-6)
    np.testing.assert_allclose(previous.y, bst.predict(X[rows], iteration_range=(0, 1)),
                               rtol=1e-6)
    drawn = np.concatenate([np.asarray(t, dtype=float) for t in (now.x, now.y, previous.y)])
    assert list(diagonal.x) == list(diagonal.y) == [drawn.min(), drawn.max()]
    assert 1000.0 not in set(now.x)  # (the outlier is not in this sample)


def test_baseline_has_no_previous_curve(four):
    X, y, bst = four
    fig = _fit_figure(bst, X, y, 0)
    assert [t.name for t in fig.data] == ["data", "after round 0: base_score 0.5",
                                          "residuals"]
    assert "baseline" in fig.layout.title.text
    # a negative base_score (the mean of y, -0.5) is written with the typographic minus
    below = boost.train({"lambda": 0, "max_depth": 2}, X, y, 1)
    assert _fit_figure(below, X, y, 0).data[1].name == "after round 0: base_score \u22120.5"


@pytest.mark.parametrize("r", [0, 1, 2])
def test_a_handful_of_rows_each_say_their_residual(four, r):
    """Four points: beside each, y − ŷ after round r, against XGBoost's own predictions
    (base_score 0.5 at round 0: −10.5, 6.5, 7.5, −7.5 by hand), written by the rounding
    rule, in the player's trace as in the figure."""
    import xgboost as xgb

    from boost.trace.rounding import rounded
    from viz.fit import RESIDUAL_LABEL
    from viz.round_trace import fit_at
    X, y, bst = four
    oracle = xgb.train({"base_score": 0.5, "lambda": 0, "max_depth": 2}, xgb.DMatrix(X, y), 2)
    want = y - (oracle.predict(xgb.DMatrix(X), iteration_range=(0, r)) if r else 0.5)
    if r == 0:
        assert want.tolist() == [-10.5, 6.5, 7.5, -7.5]
    fig = _fit_figure(bst, X, y, r)
    labels = [t for t in fig.data if t.name == "residuals"][0]
    # (a negative one's sign the typographic minus of "y − ŷ")
    assert list(labels.text) == [RESIDUAL_LABEL.format(("\u2212" if v < 0 else "")
                                                       + rounded(abs(v))) for v in want]
    if r == 0:
        assert [t.split("= ")[1].strip() for t in labels.text] == ["−10.5", "6.5", "7.5", "−7.5"]
    shown = fit_at(bst.trace.rounds(X, y, sample_rows(len(X))), r)
    np.testing.assert_allclose(shown.residuals, want, rtol=1e-6)


def test_two_feature_classification_surface():
    X, y = make_data(seed=1, n=200, n_features=2, objective="binary:logistic",
                     constant_column=False)
    bst = boost.train({"objective": "binary:logistic", "max_depth": 3}, X, y, 5)
    fig = _fit_figure(bst, X, y, 5, class_names=["no", "yes"])
    heat = fig.data[0]
    assert heat.type == "heatmap" and heat.zmin == 0 and heat.zmax == 1
    grid = np.array(np.meshgrid(heat.x, heat.y)).reshape(2, -1).T
    np.testing.assert_allclose(np.asarray(heat.z).ravel(), bst.predict(grid), rtol=1e-6)
    assert [t.name for t in fig.data[1:]] == ["y = no", "y = yes", "tree 5's leaves"]
    leaves = bst.trees_to_dataframe().query("Round == 5 and Feature == 'Leaf'")
    assert len(np.unique(np.asarray(fig.data[3].z))) == len(leaves)


def test_many_features_regression_is_predicted_against_actual():
    X, y = make_data(seed=2, n=150)
    bst = boost.train({"max_depth": 3}, X, y, 4)
    fig = _fit_figure(bst, X, y, 4)
    current = next(t for t in fig.data if t.name == "after round 4")
    np.testing.assert_allclose(current.y, bst.predict(X), rtol=1e-6)
    np.testing.assert_array_equal(current.x, y)
    assert fig.layout.xaxis.title.text == "actual"


def test_multiclass_true_class_probability():
    X, y = make_data(seed=3, n=150, objective="multi:softprob")
    bst = boost.train({"objective": "multi:softprob", "num_class": 3, "max_depth": 2}, X, y, 3)
    fig = _fit_figure(bst, X, y, 3, class_names=["a", "b", "c"])
    assert [t.name for t in fig.data] == ["a", "b", "c"]
    proba = bst.trace.predictions(X, 3).prediction
    expected = proba[y == 0, 0]
    np.testing.assert_allclose(np.sort(fig.data[0].y), np.sort(expected), rtol=1e-6)


def test_loss_figure_marks_the_round(four):
    _, _, bst = four
    history = bst.loss_history()
    fig = make_loss_figure(history, 1, bst.metric_name)
    line, marker = fig.data[0], fig.data[1]
    np.testing.assert_allclose(line.y, history["train"])
    assert list(marker.x) == [1] and marker.y[0] == pytest.approx(history["train"][1])
    assert fig.layout.shapes[0].x0 == 1
    assert fig.layout.yaxis.title.text == "rmse"
    assert fig.layout.title.text == "Loss (rmse) by round"


def test_a_metric_that_rises_is_named_as_itself():
    """ndcg@k, map@k and auc rise as the model improves: the chart says the metric and that
    higher is better, not 'Loss' (XGBoost's early stopping keeps their largest value)."""
    import pandas as pd

    history = pd.DataFrame({"train": [0.6, 0.8, 0.9]})
    for metric in ("ndcg@32", "map@5", "auc"):
        title = make_loss_figure(history, 1, metric).layout.title.text
        assert title == f"{metric} (higher is better) by round"
    assert make_loss_figure(history, 1, "logloss").layout.title.text.startswith("Loss (")


def _stopped_model():
    X, y = make_data(seed=3, n=400, n_features=4)
    Xv, yv = make_data(seed=4, n=200, n_features=4)
    return boost.train({"eta": 0.8, "max_depth": 6}, X, y, 300, evals=[(Xv, yv, "valid")],
                       early_stopping_rounds=3)


def test_loss_figure_marks_where_early_stopping_kept_the_model():
    bst = _stopped_model()
    n = bst.num_boosted_rounds()
    best = bst.best_iteration + 1
    assert n == best + 3  # three rounds without improvement, then the stop
    history = bst.loss_history()
    assert history["valid"].iloc[best] == pytest.approx(bst.best_score)
    assert history["valid"].iloc[1:].min() == history["valid"].iloc[best]
    fig = make_loss_figure(history, 2, bst.metric_name, best_round=best)
    lines = [s for s in fig.layout.shapes if s.line.dash == "dash"]
    assert len(lines) == 1 and lines[0].x0 == best
    assert fig.layout.annotations[0].text == f"best: round {best}<br>stopped at {n}"


def test_comparison_figure_has_both_models_and_stays_within_each_history():
    from viz.loss import make_loss_comparison_figure

    X, y = make_data(seed=1, n=300, n_features=3, objective="binary:logistic")
    models = {m: boost.train({"objective": "binary:logistic", "boosting": m}, X, y, 5,
                             evals=[(X, y, "train"), (X, y, "valid")])
              for m in ("newton", "first_order")}
    fig = make_loss_comparison_figure({m: b.loss_history() for m, b in models.items()}, 6,
                                      "logloss")
    names = [t.name for t in fig.data if t.name]
    assert names == ["newton: train", "newton: valid", "first_order: train",
                     "first_order: valid"]
    # round 6 is past both histories (5 rounds): no current-round markers are drawn
    assert all(t.mode == "lines" for t in fig.data)
    first = next(t for t in fig.data if t.name == "first_order: train")
    np.testing.assert_allclose(first.y, models["first_order"].loss_history()["train"])


def test_learning_rate_figure_stars_the_early_stopping_round():
    from viz.learning_rate import make_learning_rate_figure

    bst = _stopped_model()
    fig = make_learning_rate_figure({0.8: bst.loss_history()}, 1, bst.metric_name,
                                    stopped={0.8: bst.best_iteration + 1})
    star = next(t for t in fig.data if t.mode == "markers")
    assert star.marker.symbol == "star" and star.x[0] == bst.best_iteration + 1


def test_at_least_raises_every_font_of_a_figure():
    import plotly.graph_objects as go

    from ui.charts import at_least

    fig = go.Figure(
        [go.Scatter(x=[1], y=[2], text=["a"], textfont={"size": [9, 20]}),
         go.Scatter(x=[1], y=[2], text=["b"], textfont={"size": 11},
                    marker={"colorbar": {"tickfont": {"size": 10}}, "color": [1]})],
        layout={"annotations": [{"text": "γ", "font": {"size": 9}}],
                "xaxis": {"tickfont": {"size": 12}}, "yaxis2": {"title": {"font": {"size": 8}}},
                "legend": {"font": {"size": 13}}, "title": {"text": "t", "font": {"size": 30}}})
    at_least(fig, 16)
    assert list(fig.data[0].textfont.size) == [16, 20]
    assert fig.data[1].textfont.size == 16 and fig.data[1].marker.colorbar.tickfont.size == 16
    assert fig.layout.annotations[0].font.size == 16
    assert fig.layout.xaxis.tickfont.size == 16 and fig.layout.yaxis2.title.font.size == 16
    assert fig.layout.legend.font.size == 16 and fig.layout.font.size == 16
    assert fig.layout.title.font.size == 30  # larger sizes stay


def test_the_loss_comparison_title_promises_a_validation_curve_only_when_drawn():
    import pandas as pd

    from viz.loss import make_loss_comparison_figure
    train = pd.DataFrame({"train": [0.7, 0.5, 0.4]})
    both = train.assign(valid=[0.72, 0.6, 0.55])
    only = make_loss_comparison_figure({"newton": train, "first order": train}, 1, "logloss")
    assert only.layout.title.text.endswith("(training rows)")
    assert {t.name for t in only.data if t.name} == {"newton: train", "first order: train"}
    drawn = make_loss_comparison_figure({"newton": both}, 1, "logloss")
    assert drawn.layout.title.text.endswith("(solid: validation, dotted: train)")
    assert [t.line.dash for t in drawn.data if t.name] == ["dot", "solid"]
