"""The Lab and the tuning-order guide: the sweep values the parameter table derives, the
figures read from a sweep (checked against boost.train point by point), the guide's carried
values against a direct boost.train loop, links to a guide step, hostile Lab links."""

import base64
import math

import numpy as np
import pandas as pd
import pytest
import streamlit as st
import xgboost as xgb
from apptest import chart, charts, clear_caches, open_app  # noqa: F401

import boost
from boost.cv import kfold
from boost.params import BY_NAME, SWEEPABLE, check_value, max_depth_for, sweep_grid, sweep_values
from ui import guide, memory, sweeps, url
from ui.samples import BY_KEY
from ui.tables import prepare, read_table
from ui.views import VIEWS
from viz.lab import (
    headline,
    loss_grid,
    make_guide_summary_figure,
    make_heatmap_figure,
    make_rounds_figure,
    make_sweep_figure,
    positions,
    verdict_text,
)

BASE = {"max_depth": 3, "tree_method": "exact"}


@pytest.fixture(scope="module")
def data():
    """noisy_1d prepared as the app prepares it: 160 training and 40 validation rows."""
    table = read_table(BY_KEY["noisy_1d"].path.read_bytes(), "noisy_1d.csv")
    return prepare(table.frame, "y", ["x"])


def _evals(prep):
    return [(prep.X_train, prep.y_train, "train"), (prep.X_valid, prep.y_valid, "valid")]


def _direct(prep, params: dict, rounds: int, stopping=None) -> tuple[int, float, float]:
    """(best round, valid, train) of one boost.train: the first lowest validation loss."""
    bst = boost.train(params, prep.X_train, prep.y_train, rounds, evals=_evals(prep),
                      early_stopping_rounds=stopping)
    valid = np.asarray(bst.evals_result()["valid"][bst.metric_name])
    r = int(np.argmin(valid)) + 1
    return r, float(valid[r - 1]), float(bst.loss_history()["train"].iloc[r])


# --------------------------------------------------------------------------- values
def test_sweep_values_spread_on_the_tables_scale():
    eta = BY_NAME["eta"]
    assert eta.scale == "log"
    lo, hi = eta.lab_range
    assert sweep_values(eta, 5) == [float(f"{v:.3g}") for v in np.geomspace(lo, hi, 5)]
    assert sweep_values(eta, 5) == [0.01, 0.0316, 0.1, 0.316, 1.0]
    gamma = BY_NAME["gamma"]  # 0, then the log spread
    assert sweep_values(gamma, 6) == [0.0, 0.01, 0.1, 1.0, 10.0, 100.0]
    sub = BY_NAME["subsample"]
    assert sweep_values(sub, 4) == [0.4, 0.6, 0.8, 1.0]
    depth = BY_NAME["max_depth"]  # whole numbers, rounded half up, unique
    assert sweep_values(depth, 5) == [1, 3, 6, 8, 10]
    assert sweep_values(depth, 30) == list(range(1, 11))
    assert all(type(v) is int for v in sweep_values(depth, 7))
    with pytest.raises(ValueError, match="cannot be swept"):
        sweep_values(BY_NAME["seed"], 3)


@pytest.mark.parametrize("p", SWEEPABLE, ids=lambda p: p.name)
def test_every_sweep_value_is_valid_and_inside_the_widget(p):
    lo, hi = p.app_range
    for n in (1, 2, 3, 6, 12):
        values = sweep_values(p, n)
        assert values == sorted(set(values)) and 1 <= len(values) <= n
        for v in values:
            assert lo <= v <= hi and check_value(p, v) == v
    assert (sweep_values(p, 6)[0] == 0) == p.lab_zero


# --------------------------------------------------------------------------- figures
@pytest.fixture(scope="module")
def sweep_2d(data):
    grid = {"max_depth": [1, 2, 4], "min_child_weight": [0.0, 5.0, 40.0]}
    return boost.sweep(BASE, data.X_train, data.y_train, grid, 15, evals=_evals(data)), grid


def test_best_rows_are_each_points_first_lowest_validation_loss(data, sweep_2d):
    sweep, grid = sweep_2d
    best = boost.judge(sweep).points
    assert best["se"].isna().all()  # one validation set: no standard error
    assert len(best) == 9 and list(best["point"]) == list(range(9))
    for _, row in best.iterrows():
        point = {"max_depth": int(row["max_depth"]),
                 "min_child_weight": float(row["min_child_weight"])}
        r, valid, train = _direct(data, {**BASE, **point}, 15)
        assert (row["round"], row["valid"], row["train"]) == (r, valid, train)
        assert row["gap"] == valid - train


def test_heatmap_cells_are_the_sweeps_minima_and_the_best_is_outlined(sweep_2d):
    sweep, grid = sweep_2d
    fig = make_heatmap_figure(boost.judge(sweep), "max_depth", "min_child_weight",
                              current=(2, 5.0))
    heat, clicks, marks = fig.data
    minima = sweep.groupby(["min_child_weight", "max_depth"])["valid-rmse"].min()
    still = boost.judge(sweep).points.set_index(["min_child_weight", "max_depth"])["still"]
    assert still.any() and not still.all()  # 15 rounds: some points were still improving
    marked = {(round(x - 0.36), round(y - 0.26)) for x, y in zip(marks.x, marks.y, strict=True)}
    for j, mcw in enumerate(grid["min_child_weight"]):
        for i, depth in enumerate(grid["max_depth"]):
            assert heat.z[j][i] == minima[(mcw, depth)]
            assert heat.text[j][i] == f"{minima[(mcw, depth)]:.4g}"
            last = sweep[(sweep.max_depth == depth) & (sweep.min_child_weight == mcw)]
            improving = last["valid-rmse"].iloc[-1] == minima[(mcw, depth)]
            assert still[(mcw, depth)] == improving
            assert ((i, j) in marked) == improving  # ▼ in the cell's corner
    assert list(heat.x) == ["1", "2", "4"] and list(heat.y) == ["0", "5", "40"]
    assert heat.textfont.size >= 16
    assert heat.zmin == minima.min() and heat.zmax == pytest.approx(np.quantile(minima, 0.75))
    (mcw, depth) = minima.idxmin()
    best, current = fig.layout.shapes
    assert (best.x0 + best.x1) / 2 == pytest.approx(grid["max_depth"].index(depth))
    assert (best.y0 + best.y1) / 2 == pytest.approx(grid["min_child_weight"].index(mcw))
    assert ((current.x0 + current.x1) / 2, (current.y0 + current.y1) / 2) == (1, 1)
    assert current.line.dash == "dash"
    assert sorted(clicks.customdata) == list(range(9))  # every cell can be clicked
    table = loss_grid(boost.judge(sweep).points, "max_depth", "min_child_weight")
    assert np.array_equal(table.to_numpy(), np.asarray(heat.z))


def test_sweep_figure_shades_the_gap_marks_the_best_and_uses_the_tables_scale(data):
    grid = {"eta": sweep_values(BY_NAME["eta"], 5)}
    sweep = boost.sweep(BASE, data.X_train, data.y_train, grid, 20, evals=_evals(data))
    v = boost.judge(sweep)
    best = v.points
    fig = make_sweep_figure(v, "eta", current=0.1)
    train, valid, gap = fig.data[:3]
    assert train.name == "train" and valid.name == "validation"
    assert valid.fill == "tonexty" and valid.fillcolor == gap.marker.color  # train to valid
    assert fig.layout.xaxis.type == "log"
    assert list(fig.layout.xaxis.ticktext) == ["0.01", "0.0316", "0.1", "0.316", "1"]
    star = next(t for t in fig.data if t.name == "winner")
    i = int(np.argmin(best["valid"]))
    assert star.y[0] == best["valid"].min() and star.x[0] == grid["eta"][i]
    assert star.customdata[0] == best["point"].iloc[i]
    note = fig.layout.annotations[0]
    assert f"eta = {grid['eta'][i]:.3g} wins" in note.text
    assert note.x == pytest.approx(math.log10(grid["eta"][i]))  # log axis: log10 units
    ring = next(t for t in fig.data if t.name == "the model on screen")
    assert ring.y[0] == best.loc[best["eta"] == 0.1, "valid"].iloc[0]
    depth = make_sweep_figure(boost.judge(sweep_2d_like(data)), "max_depth")
    assert depth.layout.xaxis.type == "linear"


def sweep_2d_like(data):
    return boost.sweep(BASE, data.X_train, data.y_train, {"max_depth": [1, 2, 5]}, 10,
                       evals=_evals(data))


def test_zero_on_a_log_axis_sits_one_step_left_and_reads_0():
    x, kind = positions("gamma", [0.0, 0.01, 0.1, 1.0])
    assert kind == "log" and list(x) == [0.001, 0.01, 0.1, 1.0]
    assert positions("max_depth", [1, 2])[1] == "linear"


def test_rounds_figure_stars_the_best_round(data):
    sweep = boost.sweep(BASE, data.X_train, data.y_train, {"eta": [0.3, 0.1]}, 40,
                        evals=_evals(data))
    fig = make_rounds_figure(sweep, boost.judge(sweep))
    star = next(t for t in fig.data if t.marker.symbol == "star")
    best = min((_direct(data, {**BASE, "eta": e}, 40) for e in (0.3, 0.1)),
               key=lambda b: b[1])
    assert (star.x[0], star.y[0]) == (best[0], best[1])


def test_guide_summary_walks_from_the_first_loss_to_the_last():
    fig = make_guide_summary_figure([("1. rounds", 0.5), ("2. depth", 0.4), ("3. gamma", 0.4)],
                                    "rmse")
    bars = fig.data[0]
    assert list(bars.measure) == ["absolute", "relative", "relative", "total"]
    assert list(bars.x)[-1] == "model found"
    assert bars.y[0] == 0.5 and bars.y[1] == pytest.approx(-0.1) and bars.y[2] == 0
    assert list(bars.text) == ["0.5", "-0.1", "+0", "0.4"]


# --------------------------------------------------------------------------- the guide
def test_guide_carries_each_steps_best_as_a_direct_train_loop_finds_it(data):
    """Oracle: every step's grid trained point by point with boost.train; the best is the
    lowest validation loss at its best round (the carried-in values on a tie)."""
    params = {"tree_method": "exact"}

    def run(i, grid, rounds, fixed):
        return boost.sweep({**params, **fixed}, data.X_train, data.y_train, grid, rounds,
                           evals=_evals(data), early_stopping_rounds=sweeps.PATIENCE)

    walked = guide.walk(run, len(guide.STEPS))
    carried = guide.start_values()
    for i, outcome in enumerate(walked):
        grid, n = guide.plan(i, carried)
        assert grid == outcome.grid and n == outcome.rounds == guide.MAX_ROUNDS
        for name in grid:  # the value carried in is always among the candidates
            assert carried[name] in grid[name]
        names = list(grid)
        scored = []
        for values in pd.MultiIndex.from_product(list(grid.values())):
            values = values if isinstance(values, tuple) else (values,)
            point = dict(zip(names, values, strict=True))
            r, valid, _ = _direct(data, {**params, **carried, **point}, n, sweeps.PATIENCE)
            scored.append((valid, point != {k: carried[k] for k in names}, r, point))
        valid, _, r, point = min(scored, key=lambda s: (s[0], s[1]))
        assert outcome.found == point and outcome.valid == valid and outcome.round == r
        carried = {**carried, **point}
        assert outcome.carried == carried
    losses = [o.valid for o in walked]
    assert all(b <= a for a, b in zip(losses, losses[1:], strict=False))
    final = guide.final_params(walked)
    assert final["num_boost_round"] == walked[-1].round
    r, valid, _ = _direct(data, {**params, **{k: final[k] for k in guide.TUNED}},
                          final["num_boost_round"])
    assert valid == walked[-1].valid  # the model found has the loss the guide reports


def test_the_guides_depth_grid_ends_where_a_folds_rows_do():
    """A tree of depth d has 2^d leaves: on a small table the guide's max_depth grid stops
    at the depth a fold's training rows can fill (the value carried in stays)."""
    from types import SimpleNamespace

    from ui.views.lab import depth_top

    carried = guide.start_values()
    full, _ = guide.plan(1, carried)
    assert full["max_depth"] == [1, 3, 6, 8, 10]  # 5 values over 1..10 (3 is carried)
    small, _ = guide.plan(1, carried, {"max_depth": 2})
    assert small["max_depth"] == [1, 2, carried["max_depth"]] == [1, 2, 3]
    assert small["min_child_weight"] == full["min_child_weight"]
    # 40 training rows, 5 folds: each fold trains on 32, which depth 5 fills (2^5 = 32)
    shown = SimpleNamespace(prep=SimpleNamespace(y_train=np.zeros(40)))
    assert sweeps.folds_for(40) == 5 and depth_top(shown) == 5
    grid, _ = guide.plan(1, carried, {"max_depth": depth_top(shown)})
    assert max(grid["max_depth"]) == 5


def test_lower_etas_start_with_the_carried_eta_and_stop_at_the_widgets_low():
    assert guide.lower_etas(0.3) == [0.3, 0.15, 0.06, 0.03]
    assert guide.lower_etas(0.05) == [0.05, 0.025, 0.01]


# --------------------------------------------------------------------------- links
def _read(query):
    return url.read(query, ["moons"], list(VIEWS), (), (), guide_steps=len(guide.STEPS))


@pytest.mark.parametrize("text, guide_step, note", [
    ("3", 3, False), ("1", 1, False), ("6", 6, False), ("0", 1, True), ("99", 6, True),
    ("-4", 1, True), ("2.7", 2, True), ("nan", None, True), ("x<script>", None, True),
    ("1e308", 6, True), ("", None, True)])
def test_hostile_guide_steps_are_clamped_with_a_note(text, guide_step, note):
    link = _read({"guide": text})
    assert link.guide == guide_step
    assert bool(link.notes) == note
    assert all("<script>" not in n for n in link.notes)


@pytest.mark.parametrize("text, names", [
    ("eta", ["eta"]), ("max_depth,min_child_weight", ["max_depth", "min_child_weight"]),
    ("eta,eta", ["eta"]), ("eta,gamma,lambda", ["eta", "gamma"]), ("seed", []),
    ("nope,<b>x</b>", []), (",,", []), ("ETA", []), (" gamma ", ["gamma"])])
def test_hostile_lab_parameters_keep_only_sweepable_names(text, names):
    link = _read({"lab": text})
    assert link.lab == names
    dropped = [p.strip() for p in text.split(",") if p.strip()]
    assert bool(link.notes) == (len(dropped) != len(names))
    assert all("<b>" not in n for n in link.notes)


@pytest.mark.parametrize("text, n", [("6", 6), ("1", 2), ("1000", 12), ("abc", None),
                                     ("-1e9", 2), ("inf", 12)])
def test_hostile_lab_counts_are_clamped(text, n):
    assert _read({"lab_n": text}).lab_n == n


# --------------------------------------------------------------------------- the app
def _step_text(at) -> str:
    texts = [m.value for m in at.markdown if m.value.startswith("####")
             or " — validation " in m.value]
    return "\n".join(texts)


def test_a_link_to_guide_step_3_shows_what_walking_steps_1_to_3_shows():
    walked = open_app(sample="moons", view="lab", guide="1")
    for _ in range(2):
        walked.button(key="guide_next").click().run()
        assert not walked.exception
    text = _step_text(walked)
    assert "step 3 of 6" in text and (" wins**" in text or "**Kept: gamma = " in text
                                      or "**Lowest: gamma = " in text)
    assert "± " in text  # moons' 160 training rows: scored by 5-fold cross-validation
    assert "paired, 5 folds" in text  # the verdict with its numbers
    # every step trains its points to early stopping: still improving only at the budget
    assert "Still improving" not in text
    opened = open_app(sample="moons", view="lab", guide="3")
    assert _step_text(opened) == text
    assert opened.query_params["guide"] == ["3"] or opened.query_params["guide"] == "3"


def test_the_lab_runs_a_sweep_from_a_link_and_says_what_it_swept():
    at = open_app(sample="noisy_1d", view="lab", lab="max_depth", lab_n="3")
    assert "Press **Run the sweep**" in " ".join(i.value for i in at.info)
    at.button(key="lab_run").click().run()
    assert not at.exception and not at.error
    captions = " ".join(c.value for c in at.caption)
    # 1..7 (160 training rows, 128 a fold: 2^7 leaves fill them), spread over 3 values,
    # with the value on screen (the app's 3) and XGBoost's default (6)
    assert max_depth_for(128) == 7
    assert "**max_depth** (linear scale): 1, 3, 4, 6, 7" in captions
    assert "5-fold cross-validation" in captions and "up to 500 rounds" in captions
    assert "overfitting gap" in captions


def test_the_lab_says_so_when_the_data_has_no_validation_rows():
    at = open_app(sample="four_points", view="lab")
    assert any("no validation rows" in w.value for w in at.warning)


@pytest.mark.parametrize("key", ["round", "node", "step", "guide", "lab_n"])
@pytest.mark.parametrize("text", ["inf", "-inf", "1e400"])
def test_infinite_whole_numbers_in_a_link_are_clamped_not_raised(key, text):
    link = _read({key: text})
    assert link.notes and key in link.notes[0]


def test_in_a_presenter_panel_the_lab_draws_only_its_chart():
    at = open_app(sample="moons", view="lab", guide="2", present="1")
    before = len(charts(at))
    at.session_state["right_panel"] = "lab"
    at.run()
    assert not at.exception and not at.error
    assert len(charts(at)) == before + 1  # the step's heatmap, nothing else
    assert not [m for m in at.markdown if "Tuning-order guide" in m.value]
    assert "guide_next" not in [b.key for b in at.button]  # no navigation in a panel


# --------------------------------------------------------------------------- honest verdicts
def _cv_sweep(losses: dict, rounds: int = 1, name: str = "eta") -> pd.DataFrame:
    """A cross-validated sweep's frame built by hand: {value of ``name``: its per-fold test
    losses}, each point's loss the same at every round (its best round is round 1)."""
    rows = []
    for i, (value, folds) in enumerate(losses.items()):
        folds = np.asarray(folds, dtype=float)
        for r in range(1, rounds + 1):
            rows.append({"point": i, name: value, "round": r, "train-logloss-mean": 0.0,
                         "train-logloss-std": 0.0, "test-logloss-mean": folds.mean(),
                         "test-logloss-std": folds.std(),
                         **{f"test-logloss-fold{k}": f for k, f in enumerate(folds)}})
    frame = pd.DataFrame(rows)
    frame.attrs.update(metric="logloss", evals=["test"], nfold=len(folds))
    return frame


BASE_FOLDS = [0.10, 0.20, 0.30, 0.40, 0.50]  # a hard fold is hard for every point


def test_a_point_worse_on_every_fold_loses_although_the_folds_spread_is_wide():
    # by hand: eta 0.1 minus eta 0.3, fold by fold, d = [.01, .03, .02, .02, .02]: mean 0.02,
    # sample std sqrt((.01² + .01²) / 4) = 0.007071, standard error 0.007071 / sqrt(5) =
    # 0.003162 < 0.02: eta 0.3 wins, though each point's fold std (0.14) dwarfs 0.02
    better = BASE_FOLDS
    worse = [f + d for f, d in zip(better, [0.01, 0.03, 0.02, 0.02, 0.02], strict=True)]
    v = boost.judge(_cv_sweep({0.1: worse, 0.3: better}))
    assert (v.best, v.close, v.winner, v.nfold) == (1, (1,), 1, 5)
    assert v.points["diff"].iloc[0] == pytest.approx(0.02, abs=1e-12)
    assert v.points["se"].iloc[0] == pytest.approx(math.sqrt(0.0002 / 4) / math.sqrt(5))
    assert v.points["spread"].iloc[1] == pytest.approx(np.std(better))
    said = verdict_text(v)
    assert said.startswith("**eta = 0.3 wins** — logloss 0.3 at round 1 (mean of 5 folds)")
    assert "the closest, eta = 0.1, by +0.02 ± 0.0032" in said
    assert headline(v) == "eta = 0.3 wins: 0.3 (paired, 5 folds); next eta = 0.1, +0.02 ± 0.0032"
    fig = make_sweep_figure(v, "eta")
    star = next(t for t in fig.data if t.name == "winner")
    assert star.x[0] == 0.3 and star.y[0] == pytest.approx(0.3)
    assert "eta = 0.3 wins" in fig.layout.annotations[0].text
    assert "next: +0.02 ± 0.0032<br>(paired, 5 folds)" in fig.layout.annotations[0].text


def test_no_winner_when_the_paired_difference_is_within_one_standard_error():
    # by hand: d = [-.03, .05, .01, -.02, .09]: mean 0.02, deviations [-.05, .03, -.01,
    # -.04, .07], sample std sqrt(.01 / 4) = 0.05, standard error 0.05 / sqrt(5) = 0.02236
    # >= 0.02: tied. eta 1 is worse by 0.3 on every fold (standard error 0): not tied.
    noisy = [f + d for f, d in zip(BASE_FOLDS, [-0.03, 0.05, 0.01, -0.02, 0.09], strict=True)]
    v = boost.judge(_cv_sweep({0.01: noisy, 0.3: BASE_FOLDS,
                               1.0: [f + 0.3 for f in BASE_FOLDS]}))
    assert (v.best, v.close, v.winner) == (1, (0, 1), None)
    assert v.points["se"].iloc[0] == pytest.approx(0.05 / math.sqrt(5))
    assert v.points["se"].iloc[2] == pytest.approx(0.0, abs=1e-12)
    said = verdict_text(v)
    assert said.startswith("**No clear winner**: 2 of 3 points are within one standard "
                           "error of the lowest, eta = 0.3 (logloss 0.3 at round 1)")
    assert "eta = 0.01 +0.02 ± 0.022" in said and "eta = 1 " not in said
    assert headline(v) == ("No clear winner: 2 of 3 within one standard error of the lowest "
                           "(paired, 5 folds)")
    fig = make_sweep_figure(v, "eta")
    assert not [t for t in fig.data if t.name == "winner"]  # no star
    ring = next(t for t in fig.data if t.name.startswith("within one standard error"))
    assert sorted(ring.x) == [0.01, 0.3]
    assert "no clear winner" in fig.layout.annotations[0].text
    heat = make_heatmap_figure(boost.judge(_two_d(noisy)), "eta", "lam")
    assert [s.line.dash for s in heat.layout.shapes] == ["dot", "dot"]
    assert "No clear winner: 2 of 2 within one standard error" in heat.layout.title.text


def _two_d(noisy):
    frame = _cv_sweep({0.01: noisy, 0.3: BASE_FOLDS})
    frame.insert(2, "lam", 1.0)
    frame.attrs.update(metric="logloss", evals=["test"], nfold=5)
    return frame


def test_a_point_still_improving_is_marked_and_its_crown_says_so(data):
    # 8 rounds at eta 0.01: every round lowers the loss, so the best is the last trained
    sweep = boost.sweep(BASE, data.X_train, data.y_train, {"eta": [0.01, 1.0]}, 8,
                        evals=_evals(data), early_stopping_rounds=3)
    v = boost.judge(sweep)
    best = v.points
    small = best[best.eta == 0.01].iloc[0]
    assert small["round"] == small["trained"] == 8 and small["still"]
    assert not best[best.eta == 1.0].iloc[0]["still"]  # stopped by early stopping
    fig = make_sweep_figure(v, "eta")
    mark = next(t for t in fig.data if t.name == "still improving at its last round")
    assert list(mark.y) == [small["valid"]]
    only = boost.judge(sweep[sweep.eta == 0.01])
    assert "still improving at round 8" in verdict_text(only)
    assert "(the only value tried)" in verdict_text(only)


def test_grids_hold_the_value_on_screen_and_xgboosts_default():
    eta, depth = BY_NAME["eta"], BY_NAME["max_depth"]
    assert sweep_grid(eta, 6, include=(0.05, eta.default)) == [
        0.01, 0.0251, 0.05, 0.0631, 0.158, 0.3, 0.398, 1.0]
    assert sweep_grid(depth, 6, include=(3, 6), top=max_depth_for(364)) == list(range(1, 9))
    assert max_depth_for(364) == 8 and max_depth_for(10) == 3


def test_the_guide_keeps_the_carried_values_within_one_standard_error():
    # gamma 1's folds are gamma 0's minus d, d = [-.03, .05, .01, -.02, .09]: gamma 1 has
    # the lowest mean, the carried gamma 0 is above it by 0.02 ± 0.02236 (mean ± standard
    # error, by hand as above): tied, so gamma 0 stays. 0.02 lower on every fold (standard
    # error 0): replaced
    tied = [f - d for f, d in zip(BASE_FOLDS, [-0.03, 0.05, 0.01, -0.02, 0.09], strict=True)]
    sweep = _cv_sweep({0.0: BASE_FOLDS, 1.0: tied}, name="gamma")
    found, r, valid = guide.best_point(boost.judge(sweep), {"gamma": 0.0})
    assert found == {"gamma": 0.0} and (r, valid) == (1, pytest.approx(0.3))
    clear = _cv_sweep({0.0: BASE_FOLDS, 1.0: [f - 0.02 for f in BASE_FOLDS]}, name="gamma")
    assert guide.best_point(boost.judge(clear), {"gamma": 0.0})[0] == {"gamma": 1.0}


def _typed(values) -> np.ndarray:
    """A figure JSON's array: a list, or Plotly's typed array (base64 of its bytes)."""
    if isinstance(values, dict):
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
    return np.asarray(values)


def test_the_labs_cross_validated_points_equal_xgboost_cv():
    at = open_app(sample="noisy_1d", view="lab", lab="eta", lab_n="2")
    at.button(key="lab_run").click().run()
    assert not at.exception and not at.error
    fig = chart(at, "lab_chart")
    valid = next(t for t in fig["data"] if t["name"].startswith("validation"))
    means, stds = _typed(valid["y"]), _typed(valid["error_y"]["array"])
    table = read_table(BY_KEY["noisy_1d"].path.read_bytes(), "noisy_1d.csv")
    prep = prepare(table.frame, "y", ["x"])
    folds = kfold(len(prep.y_train), sweeps.NFOLD, seed=0)
    etas = [0.01, 0.3, 1.0]  # 2 values over 0.01..1, and 0.3: on screen and the default
    assert len(means) == len(etas)
    params = {"max_depth": 3, "tree_method": "exact", "nthread": 1}  # the app's defaults
    for eta, mean, std in zip(etas, means, stds, strict=True):
        ref = xgb.cv({**params, "eta": eta}, xgb.DMatrix(prep.X_train, label=prep.y_train),
                     sweeps.BUDGET, folds=folds, early_stopping_rounds=sweeps.PATIENCE)
        i = int(np.argmin(ref["test-rmse-mean"]))
        assert mean == pytest.approx(ref["test-rmse-mean"].iloc[i], rel=1e-6)
        assert std == pytest.approx(ref["test-rmse-std"].iloc[i], rel=1e-5, abs=1e-9)


def test_a_clicked_points_values_are_its_parameters_alone(data):
    # a click loads the point's values into the sidebar: the scores beside them (spread,
    # trained, still, ...) are not parameters (loading them once raised a KeyError)
    for kwargs in ({"evals": _evals(data)}, {"nfold": 3}):
        sweep = boost.sweep(BASE, data.X_train, data.y_train,
                            {"max_depth": [1, 2], "eta": [0.3]}, 3, **kwargs)
        assert boost.judge(sweep).names == ["max_depth", "eta"]


def test_the_lab_sweeps_on_the_dask_cluster_its_variable_names(monkeypatch):
    # a scheduler with two worker processes; the Lab's sweep runs there, says so, and draws
    # the numbers the server's own threads give
    from distributed import LocalCluster

    local = open_app(sample="noisy_1d", view="lab", lab="max_depth", lab_n="3")
    local.button(key="lab_run").click().run()
    here = chart(local, "lab_chart")
    memory.SWEEPS.clear()  # the sweep ran here: run it again there
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        monkeypatch.setenv(sweeps.DASK_SCHEDULER, cluster.scheduler_address)
        at = open_app(sample="noisy_1d", view="lab", lab="max_depth", lab_n="3")
        at.button(key="lab_run").click().run()
        assert not at.exception and not at.error
        said = " ".join(c.value for c in at.caption)
        assert f"Sweeps run on the Dask cluster at {cluster.scheduler_address}" in said
        assert chart(at, "lab_chart")["data"] == here["data"]
    memory.SWEEPS.clear()
    st.cache_resource.clear()  # (the client of the closed cluster)
    monkeypatch.setenv(sweeps.DASK_SCHEDULER, "tcp://127.0.0.1:9")  # nothing listens there
    at = open_app(sample="noisy_1d", view="lab", lab="max_depth", lab_n="3")
    at.button(key="lab_run").click().run()
    assert not at.exception
    assert any("cannot be reached" in w.value and "sweeping on this server" in w.value
               for w in at.warning)


def test_a_sweep_run_in_the_lab_is_the_one_a_presenter_panel_shows():
    # presenter mode draws no sidebar, so the objective stays "auto" there: the sweep is
    # keyed by the objective the data resolved, and the panel finds the Lab's sweep
    at = open_app(sample="moons", view="lab", lab="max_depth,eta", lab_n="3")
    at.button(key="lab_run").click().run()
    drawn = chart(at, "lab_chart")
    shown = open_app(sample="moons", view="lab", lab="max_depth,eta", lab_n="3", present="1")
    shown.session_state["right_panel"] = "lab"
    shown.run()
    assert not shown.exception
    panel = chart(shown, "lab_chart")["data"][0]  # the heatmap, in projector type
    assert panel["z"] == drawn["data"][0]["z"] and panel["text"] == drawn["data"][0]["text"]
    fresh = open_app(sample="moons", view="lab", lab="gamma", lab_n="3", present="1")
    fresh.session_state["right_panel"] = "lab"
    fresh.run()  # no sweep yet: said, not a blank panel
    assert any("No sweep of gamma on this model yet" in i.value for i in fresh.info)


# --------------------------------------------------------------------------- paired verdicts
def _paired_by_xgboost(X, y, params: dict, name: str, values: list) -> tuple:
    """Oracle: each value cross-validated by xgboost.cv on XGBoost's folds (seed 0) with
    the Lab's early stopping (its length is the best round), each fold retrained by
    xgboost.train to that round for its own test loss; then by hand, against the lowest
    mean: the paired differences' mean and standard error (sample std / sqrt(folds)).
    Returns (best rounds, mean losses, differences, standard errors, index of the lowest)."""
    folds = kfold(len(y), sweeps.NFOLD, seed=0)
    rounds, losses = [], []
    for value in values:
        p = {**params, name: value, "nthread": 1}
        ref = xgb.cv(p, xgb.DMatrix(X, label=y), sweeps.BUDGET, folds=folds,
                     early_stopping_rounds=sweeps.PATIENCE)
        rounds.append(len(ref))
        each = []
        for train, test in folds:
            result = {}
            xgb.train(p, xgb.DMatrix(X[train], label=y[train]), len(ref),
                      evals=[(xgb.DMatrix(X[test], label=y[test]), "test")],
                      evals_result=result, verbose_eval=False)
            each.append(next(iter(result["test"].values()))[-1])
        losses.append(each)
    losses = np.asarray(losses)
    best = int(np.argmin(losses.mean(axis=1)))
    d = losses - losses[best]
    return (rounds, losses.mean(axis=1), d.mean(axis=1),
            d.std(axis=1, ddof=1) / math.sqrt(losses.shape[1]), best)


def _judged_as_xgboost(X, y, params: dict, name: str, values: list):
    """boost.judge of the Lab's sweep of ``values``, checked point by point against the
    oracle's numbers; returns (the verdict, the oracle's)."""
    sweep = boost.sweep(params, X, y, {name: values}, sweeps.BUDGET,
                        early_stopping_rounds=sweeps.PATIENCE, nfold=sweeps.NFOLD)
    v = boost.judge(sweep)
    rounds, means, diffs, ses, best = oracle = _paired_by_xgboost(X, y, params, name, values)
    assert list(v.points["round"]) == rounds and v.best == best
    assert np.allclose(v.points["valid"], means, rtol=1e-6)
    assert np.allclose(v.points["diff"], diffs, rtol=1e-4, atol=1e-7)
    assert np.allclose(v.points["se"], ses, rtol=1e-4, atol=1e-7)
    return v, oracle


def test_a_table_where_one_value_is_clearly_better_names_it():
    # y = 10 where x1 and x2 have opposite signs (XOR): stumps (max_depth 1) add one
    # feature at a time and cannot express it, depth 2 can
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (200, 2))
    y = 10.0 * ((X[:, 0] > 0) ^ (X[:, 1] > 0)) + rng.normal(0, 0.5, 200)
    v, (_, _, diffs, ses, best) = _judged_as_xgboost(X, y, {"tree_method": "exact"},
                                                     "max_depth", [1, 2])
    assert best == 1 and diffs[0] > ses[0]  # the oracle's verdict: depth 2, clearly
    assert v.winner == 1 and v.close == (1,)
    said = verdict_text(v)
    assert said.startswith("**max_depth = 2 wins**")
    assert f"the closest, max_depth = 1, by +{diffs[0]:.3g} ± {ses[0]:.2g}" in said


def test_a_table_where_no_value_is_better_says_no_clear_winner():
    # y = 3 where x1 > 0, plus noise: one split on x1 is the whole signal, so depth 1 and
    # depth 2 differ by noise the folds cannot tell from 0
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (200, 2))
    y = 3.0 * (X[:, 0] > 0) + rng.normal(0, 1, 200)
    v, (_, _, diffs, ses, best) = _judged_as_xgboost(X, y, {"tree_method": "exact"},
                                                     "max_depth", [1, 2])
    other = 1 - best
    assert diffs[other] <= ses[other]  # the oracle's verdict: tied
    assert v.winner is None and v.close == (0, 1)
    assert verdict_text(v).startswith("**No clear winner**: 2 of 2 points are within one "
                                      "standard error of the lowest")
    assert f"max_depth = {other + 1} +{diffs[other]:.3g} ± {ses[other]:.2g}" in verdict_text(v)


def test_the_lab_on_breast_cancer_names_the_winner_the_paired_comparison_finds():
    from sklearn.datasets import load_breast_cancer

    frame = load_breast_cancer(as_frame=True).frame.rename(columns={"target": "benign"})
    raw = frame.to_csv(index=False).encode()
    at = open_app(view="lab", lab="max_depth", lab_n="3")
    at.get("file_uploader")[0].set_value(("breast_cancer.csv", raw, "text/csv")).run()
    assert not at.exception and at.selectbox(key="target").value == "benign"
    at.button(key="lab_run").click().run()
    assert not at.exception and not at.error
    prep = prepare(read_table(raw, "breast_cancer.csv").frame, "benign",
                   [c for c in frame.columns if c != "benign"])
    # the Lab's grid: 3 values over 1..8 (364 rows a fold), the app's 3 and XGBoost's 6
    depths = sweep_grid(BY_NAME["max_depth"], 3, include=(3, 6), top=max_depth_for(364))
    assert len(prep.y_train) == 455 and depths == [1, 3, 5, 6, 8]
    captions = " ".join(c.value for c in at.caption)
    assert "**max_depth** (linear scale): 1, 3, 5, 6, 8" in captions
    params = {"max_depth": 3, "tree_method": "exact", "objective": "binary:logistic"}
    rounds, means, diffs, ses, best = _paired_by_xgboost(
        prep.X_train.to_numpy(float), prep.y_train, params, "max_depth", depths)
    close = [j for j in range(len(depths)) if diffs[j] <= ses[j]]
    assert close == [best] and depths[best] == 1  # by hand: one clear winner, stumps
    said = " ".join(m.value for m in at.markdown)
    assert f"**max_depth = 1 wins** — logloss {means[best]:.4g} at round {rounds[best]}" in said
    j = min((k for k in range(len(depths)) if k != best), key=lambda k: diffs[k] / ses[k])
    assert (f"the closest, max_depth = {depths[j]}, by +{diffs[j]:.3g} ± {ses[j]:.2g}"
            in said.replace("\\", ""))
    note = chart(at, "lab_chart")["layout"]["annotations"][0]["text"]
    assert "max_depth = 1 wins" in note and "(paired, 5 folds)" in note
