"""The Lab: one or two parameters swept on the model's data (``boost.sweep``) — the loss at
each value's best round with the overfitting gap (1-D), or a heatmap of the validation loss
(2-D); a click loads that model into every view. And the tuning-order guide (``ui/guide.py``),
one step per screen (``?view=lab&guide=3``)."""

from __future__ import annotations

import numpy as np
import streamlit as st

import boost
from boost.params import BY_NAME, max_depth_for, sweep_grid
from viz.lab import (
    diff_text,
    headline,
    label,
    loss_text,
    make_guide_summary_figure,
    make_heatmap_figure,
    make_rounds_figure,
    make_sweep_figure,
    paired_text,
    point_text,
    verdict_text,
)

from .. import guide, sweeps, training, url
from ..charts import clicked_id, show
from ..state import AppState, LabKeep, Shown

SLUG = url.LAB_VIEW
TITLE = "Lab"
NO_VALID = ("The Lab compares validation losses, and this data has no validation rows (fewer "
            "than 10 rows: every row trains). Load a sample or a file with at least 10 rows.")


def render(state: AppState, shown: Shown) -> None:
    if not len(shown.prep.y_valid):
        st.warning(NO_VALID, icon=":material/science:")
        return
    if state.lab.guide:
        guide_ui(state, shown)
    else:
        lab_ui(state, shown)


# --------------------------------------------------------------------------- sweeps
def choices(shown: Shown) -> list[str]:
    """The sweepable parameters that apply to the model's objective."""
    objective = shown.booster.objective
    return [n for n in url.LAB_PARAMS if BY_NAME[n].applies(objective)]


def lab_ui(state: AppState, shown: Shown) -> None:
    """Choose, run, draw; in a presenter panel only the last sweep's chart."""
    options = choices(shown)
    state.lab.params = [n for n in state.lab.params if n in options]
    if not shown.compact:
        left, mid, right = st.columns([3, 1.2, 1.6], vertical_alignment="bottom")
        left.multiselect("Parameters to sweep (one: a curve; two: a heatmap)", options,
                         key=LabKeep.params.key, max_selections=2,
                         placeholder="Choose one or two parameters")
        mid.number_input("Values each", *url.LAB_COUNTS, key=LabKeep.n.key, step=1)
        right.button("Tuning-order guide", key="guide_open", icon=":material/route:",
                     on_click=_set_guide, args=(state, 1), use_container_width=True,
                     help="XGBoost's classic tuning order, six sweeps on your data.")
    names = list(state.lab.params)
    if not names:
        st.info("Choose one parameter (train and validation loss against its value) or two "
                "(a heatmap of the validation loss), then **Run the sweep**.")
        return
    grid = {n: lab_grid(shown, n, state.lab.n) for n in names}
    req = sweeps.request(shown, grid)
    if not shown.compact:
        _grid_caption(shown, grid)
        if st.button("Run the sweep", key="lab_run", type="primary",
                     icon=":material/play_arrow:"):
            try:
                sweeps.run(req, shown, "Sweeping")
            except sweeps.SweepError as exc:
                st.error(f"Cannot sweep: {exc}")
                return
    sweep = sweeps.cached(req)
    if sweep is None:
        st.info("Press **Run the sweep** to train these models." if not shown.compact else
                "No sweep of " + " × ".join(names) + " on this model yet: run it in the Lab "
                "view (presenter mode off), then show it here.")
        return
    sweep_chart(state, shown, sweep, names)


def lab_grid(shown: Shown, name: str, n: int) -> list:
    """``n`` values of ``name`` over its Lab range, with the value on screen and XGBoost's
    default; max_depth no deeper than the training rows can fill (per fold when the sweep
    cross-validates)."""
    p = BY_NAME[name]
    return sweep_grid(p, n, include=(shown.config.get(name), p.default),
                      top=depth_top(shown) if name == "max_depth" else None)


def depth_top(shown: Shown) -> int:
    """The deepest max_depth the training rows can fill, per fold when the sweep
    cross-validates (a fold trains on the others' rows)."""
    rows = len(shown.prep.y_train)
    nfold = sweeps.folds_for(rows)
    if nfold:
        rows -= -(-rows // nfold)
    return max_depth_for(rows)


def scoring(nfold: int | None) -> str:
    """How a sweep's points are scored, for its caption."""
    budget = (f"up to {sweeps.BUDGET} rounds each, stopped {sweeps.PATIENCE} rounds after "
              "its loss last improved")
    if nfold:
        return (f"{budget}; each point scored by {nfold}-fold cross-validation on the "
                "training rows (the same folds for every point: mean ± standard deviation "
                "over the folds, as xgboost.cv), at its best round, and compared with the "
                "lowest fold by fold (a tie within one standard error of the paired "
                "difference)")
    return f"{budget}; each point scored on the validation rows at its best round"


def _grid_caption(shown: Shown, grid: dict) -> None:
    models = 1
    for values in grid.values():
        models *= len(values)
    lines = [f"**{n}** ({BY_NAME[n].scale} scale): " + ", ".join(label(v) for v in values)
             for n, values in grid.items()]
    nfold = sweeps.folds_for(len(shown.prep.y_train))
    st.caption(" · ".join(lines) + f" — {models} models, " + scoring(nfold) + "; the other "
               "parameters as in the sidebar (the grid holds the value on screen and "
               "XGBoost's default).")


def sweep_chart(state: AppState, shown: Shown, sweep, names: list[str]) -> None:
    """The 1-D curve or the 2-D heatmap; a click loads that point's parameters."""
    v = boost.judge(sweep)
    current = [shown.config[n] for n in names]
    if len(names) == 1:
        fig = make_sweep_figure(v, names[0], current[0], shown.large)
    else:
        fig = make_heatmap_figure(v, names[0], names[1], tuple(current), shown.large)
    show(fig, LabKeep.chart.key, state, shown, on_select=lambda: _clicked(state, v))
    if shown.compact:
        return
    st.markdown(verdict_text(v, "ringed" if len(names) == 1 else "dotted"))
    if state.lab.loaded and all(shown.config.get(n) == v for n, v in state.lab.loaded.items()):
        what = ", ".join(f"{n} = {label(v)}" for n, v in state.lab.loaded.items())
        st.success(f"Loaded {what}: the fit, the loss and every view now show this model "
                   "(the sidebar and the address bar have its parameters).",
                   icon=":material/check_circle:")
    st.caption("Best round: the first round with the lowest validation loss (where XGBoost's "
               "early stopping would stop); ▼: still improving at the last round it "
               "trained, so not yet judged fairly. " + (
                   "The shaded band is the overfitting gap, validation − train; the black "
                   "ring, the model on screen." if len(names) == 1
                   else "Green outline: the winner (dotted: within one standard error of the "
                   "lowest, no winner); dashed: the model on screen.") + " Click a "
               + ("point" if len(names) == 1 else "cell") + " to load that model.")


def _clicked(state: AppState, v: boost.Verdict) -> None:
    point = clicked_id(state.lab.chart)
    rows = v.points[v.points["point"] == point]
    if point is None or rows.empty:  # an event without a point: nothing to load
        return
    load(state, {n: rows.iloc[0][n] for n in v.names})


def load(state: AppState, values: dict) -> None:
    """Set the app's parameters to ``values`` and train them (a full rerun): every view
    then shows that model. Called from a widget's callback."""
    values = {n: BY_NAME[n].kind(v) for n, v in values.items()}
    for name, value in values.items():
        state.inputs.set_param(name, value)
    state.model.ask(training.current_config(state))
    state.lab.loaded = values
    state.stage.ask_full_run()  # the model trains in the app's run, not the view's fragment


# --------------------------------------------------------------------------- the guide
def _set_guide(state: AppState, step: int | None) -> None:
    state.lab.guide = step


def guide_ui(state: AppState, shown: Shown) -> None:
    """The guide's step on screen: what it tunes and why, its sweep, the best values; the
    last step also the model found and how far each step moved the validation loss."""
    i = min(state.lab.guide, len(guide.STEPS)) - 1
    step = guide.STEPS[i]

    def run(k: int, grid: dict, rounds: int, fixed: dict):
        req = sweeps.request(shown, grid, rounds, sweeps.PATIENCE, fixed)
        return sweeps.run(req, shown, f"Step {k + 1}: {guide.STEPS[k].title}")

    if not shown.compact:
        st.markdown(f"#### Tuning-order guide — step {i + 1} of {len(guide.STEPS)}: "
                    f"{step.title}")
        st.markdown(step.why)
        _guide_nav(state, i)
    try:
        outcomes = guide.walk(run, i + 1, {"max_depth": depth_top(shown)})
    except sweeps.SweepError as exc:
        st.error(f"Cannot run this step: {exc}")
        return
    here = outcomes[-1]
    metric = here.sweep.attrs["metric"]
    if not shown.compact:  # the finding first: the chart below shows where it comes from
        st.markdown(finding(here, metric) + _moved(outcomes, metric))
    show(_step_figure(here, shown), f"guide_{i}", state, shown)
    if not shown.compact and i == len(guide.STEPS) - 1:
        _guide_end(state, outcomes, metric, shown)


def finding(outcome, metric: str) -> str:
    """What a guide step found, never a "best" out of one value or out of values the folds
    cannot tell apart: the only value tried, the values kept (with the paired comparison
    that kept them), or the winner (by how much the next is worse)."""
    v = outcome.verdict
    best = v.points
    k = int(np.flatnonzero(best["round"].eq(outcome.round)
                           & best["valid"].eq(outcome.valid))[0])
    row = best.iloc[k]
    loss = loss_text(row["valid"], row["spread"], 5)
    found = guide.found_text(outcome)
    said = ""
    if len(best) == 1:
        head = f"**{found}** (the only value this step tries)"
    elif v.winner is not None:
        head = f"**{found} wins**"
        j = v.nearest()
        said = (f" The next, {point_text(best, j, v.names)}: {diff_text(v, j)} "
                f"({paired_text(v)}: the mean ± standard error of its loss minus the "
                "winner's, fold by fold).")
    else:
        head = f"**Kept: {found}**" if outcome.stayed else f"**Lowest: {found}**"
        why = ("the values carried in are among them, so they stay" if outcome.stayed else
               "the values carried in are not among them, so the lowest replaces them")
        said = f" {headline(v)}: {why}."
    still = "" if not row["still"] else (
        f" Still improving at round {int(row['trained'])}, the most a point trains: more "
        "rounds could lower it.")
    return f"{head} — validation {metric} {loss} at round {outcome.round}." + said + still


def _step_figure(outcome, shown: Shown):
    names = list(outcome.grid)
    v = outcome.verdict
    if names == ["eta"]:  # steps 1 and 6: the loss by round, the rounds are what they tune
        return make_rounds_figure(outcome.sweep, v, shown.large)
    if len(names) == 1:
        return make_sweep_figure(v, names[0], None, shown.large, clickable=False)
    return make_heatmap_figure(v, names[0], names[1], None, shown.large, clickable=False)


def _moved(outcomes, metric: str) -> str:
    if len(outcomes) < 2:
        return (f" At η = {guide.HIGH_ETA:g} the loss stopped falling after "
                f"{outcomes[0].round} rounds; every step trains its models to early stopping "
                "like this.")
    before, after = outcomes[-2].valid, outcomes[-1].valid
    return f" Step {len(outcomes) - 1} ended at {before:.5g} ({after - before:+.3g})."


def _guide_nav(state: AppState, i: int) -> None:
    back, forward, leave, _ = st.columns([1, 1, 1.3, 3])
    back.button("Back", key="guide_back", icon=":material/chevron_left:", disabled=i == 0,
                on_click=_set_guide, args=(state, i), use_container_width=True)
    forward.button("Next step", key="guide_next", icon=":material/chevron_right:",
                   disabled=i == len(guide.STEPS) - 1, on_click=_set_guide,
                   args=(state, i + 2), type="primary", use_container_width=True)
    leave.button("Leave the guide", key="guide_leave", icon=":material/close:",
                 on_click=_set_guide, args=(state, None), use_container_width=True)


def _guide_end(state: AppState, outcomes, metric: str, shown: Shown) -> None:
    steps = [(s.short, o.valid) for s, o in zip(guide.STEPS, outcomes, strict=True)]
    show(make_guide_summary_figure(steps, metric, shown.large), "guide_summary", state, shown)
    final = guide.final_params(outcomes)
    st.markdown("**The model found:** " + ", ".join(f"{n} = {label(v)}"
                                                    for n, v in final.items()))
    if all(shown.config.get(n) == v for n, v in final.items()):
        st.success("This model is loaded: the fit, the loss and every view show it (the "
                   "sidebar and the address bar have its parameters).",
                   icon=":material/check_circle:")
    else:
        st.button("Load this model", key="guide_load", type="primary",
                  icon=":material/download:", on_click=load, args=(state, final))
