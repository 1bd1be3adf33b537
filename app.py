"""BoostScope: watch gradient boosting think, round by round.

The screen: a sidebar with the data (a sample or an upload, target, features, task) and the
parameters (a form with a Train button); the main area with the transport controls and, for
the current round, the fit, the loss curves and the round's tree.
"""

from __future__ import annotations

import threading
import time

import pandas as pd
import streamlit as st

import boost
from ui import dataset, urlstate
from ui.samples import BY_KEY, SAMPLES
from viz.arithmetic import objective_latex, steps_latex, steps_table, worked_arithmetic
from viz.candidates import make_candidates_figure, top_candidates
from viz.fit import make_fit_figure
from viz.importance import make_importance_figure
from viz.learning_rate import make_learning_rate_figure, make_learning_rate_fit_figure
from viz.loss import make_loss_comparison_figure, make_loss_figure
from viz.residuals import make_residual_figure, make_waterfall_figure
from viz.tree import make_tree_figure, selected_node

VIEWS = list(urlstate.VIEWS)
HELP = {
    "eta": "Learning rate η: every leaf value is η·w, so each round moves the prediction only "
           "part of the way. Smaller η needs more rounds.",
    "lambda": "L2 regularisation λ: leaf weight w = −G / (H + λ), similarity = G² / (H + λ). "
              "Larger λ shrinks leaves and gains.",
    "gamma": "γ (min_split_loss), compared with gain = sim(L) + sim(R) − sim(parent). exact "
             "grows the tree, then prunes bottom-up every split with gain < γ (a parent "
             "survives if a split below it is kept). hist and approx refuse a split with "
             "gain < γ before growing it, so nothing below it is ever tried.",
    "tree_method": "How split candidates are found. exact: every distinct value (thresholds "
                   "halfway between neighbours), then γ-pruning. hist (XGBoost's default): "
                   "each feature cut into at most max_bin quantile bins once, thresholds are "
                   "bin edges, γ stops splits before they are made. approx: like hist, but "
                   "the bins are re-cut for every tree, weighted by the hessian.",
    "max_bin": "hist/approx: at most this many bins per feature (XGBoost's default 256). "
               "Fewer bins, fewer candidate thresholds.",
    "max_depth": "Maximum depth of each tree (the root is depth 0).",
    "min_child_weight": "A split is allowed only if both children have hessian sum H ≥ "
                        "min_child_weight (H = number of rows for squared error, Σ p(1−p) for "
                        "logistic).",
    "alpha": "L1 regularisation α: G is soft-thresholded, T_α(G) = sign(G)·max(|G| − α, 0), "
             "in w = −T_α(G)/(H + λ) and similarity = T_α(G)²/(H + λ).",
    "max_delta_step": "Caps |w| (before η); 0 means no cap (count:poisson then uses "
                      "XGBoost's 0.7, in its hessian and as the cap).",
    "base_score": "The starting prediction (round 0). Empty: estimated from the data as "
                  "XGBoost 3.2 does (mean of y; class frequencies for classification).",
    "rounds": "Number of boosting rounds (trees per class).",
    "task": "What the target is: inferred from the column, or chosen here. It decides "
            "which objectives (losses) fit.",
    "objective": "The loss the trees descend. Its gradient g and hessian h are what every "
                 "tree fits (the formulas are under 'Objective' above the charts).",
    "boosting": "Newton (XGBoost): splits scored by G²/(H + λ) with the hessian, leaf "
                "w = −G/(H + λ). First-order (Friedman 2001): the tree is a least-squares fit "
                "to −g (h ≡ 1), then each leaf gets the value that minimises the loss over "
                "its rows (one Newton step towards it for the log-loss and exponential "
                "losses). The 'Newton vs first-order' view trains both.",
    "subsample": "Fraction of rows each tree is grown on (a fresh random draw per tree; "
                 "the left-out rows are drawn hollow in the residual view).",
    "colsample_bytree": "Fraction of the features each tree may use.",
    "colsample_bylevel": "Fraction of the tree's features each depth may use.",
    "colsample_bynode": "Fraction of the depth's features each node may use.",
    "seed": "Random seed of the row and column draws: the same seed gives the same model.",
    "early_stopping_rounds": "Stop when the validation loss has not improved for this many "
                             "rounds (0 = train every round). The best round is marked on "
                             "the loss curves.",
    "weight": "A column of sample weights (numbers >= 0): every g and h of a row is "
              "multiplied by its weight, so it counts that many times in G, H and the loss.",
    "scale_pos_weight": "Weight of the rows labelled 1 (e.g. negatives / positives for "
                        "imbalanced classes).",
    "huber_slope": "δ of the pseudo-Huber loss: errors well below δ count quadratically, "
                   "well above it linearly.",
    "tweedie_variance_power": "ρ of the Tweedie loss, between 1 (Poisson-like) and 2 "
                              "(gamma-like).",
}


# --------------------------------------------------------------------------- state
def init_state() -> None:
    """Session defaults, once per session: from the URL if it carries a shared view."""
    if "init" in st.session_state:
        return
    url = urlstate.read(dict(st.query_params), [s.key for s in SAMPLES])
    st.session_state.init = True
    st.session_state.sample = url["sample"] or "four_points"
    for name in urlstate.PARAMS:
        st.session_state[f"p_{name}"] = url[name]
    st.session_state.p_base_score = "" if url["base_score"] is None else f"{url['base_score']:g}"
    st.session_state.task = url["task"]
    st.session_state.p_tree_method = url["tree_method"]
    st.session_state.p_objective = url["objective"]
    st.session_state.p_boosting = url["boosting"]
    st.session_state.url_target = url["target"]
    st.session_state.url_weight = url["weight"]
    st.session_state.url_round = url["round"]
    st.session_state.node = url["node"]
    st.session_state.view = url["view"]
    st.session_state.playing = False
    st.session_state.speed = 1.0
    st.session_state.data = None  # the last good table: (name, digest, DataFrame, notes)
    st.session_state.config = None  # the last trained configuration


# --------------------------------------------------------------------------- data
@st.cache_data(max_entries=8, show_spinner=False)
def read_sample(key: str) -> tuple[str, pd.DataFrame, list[str]]:
    raw = BY_KEY[key].path.read_bytes()
    table = dataset.read_table(raw, BY_KEY[key].file)
    return dataset.digest(raw), table.frame, table.notes


def data_ui() -> None:
    """Sample picker and uploader; keeps the last good table in session state."""
    st.header("Data")
    keys = [s.key for s in SAMPLES]
    st.selectbox("Sample data", keys, key="sample", format_func=lambda k: BY_KEY[k].title,
                 help="Bundled data sets; sample_data/README.md gives their sources.",
                 on_change=_use_sample)
    upload = st.file_uploader("…or upload a CSV", type=["csv", "tsv", "txt"], key="upload",
                              help="Comma, semicolon, tab or | separated; UTF-8, UTF-16 or "
                                   "Windows-1252; with or without a header row.")
    if upload is not None and st.session_state.get("upload_id") != upload.file_id:
        st.session_state.upload_id = upload.file_id  # read each upload once, not per rerun
        raw = upload.getvalue()
        try:
            table = dataset.read_table(raw, upload.name)
        except dataset.DataError as exc:
            st.session_state.upload_error = str(exc)
        else:
            st.session_state.upload_error = None
            _set_data(upload.name, dataset.digest(raw), table.frame, table.notes, target=None)
    if upload is not None:
        if st.session_state.get("upload_error"):
            st.error(st.session_state.upload_error + " The previous data stay loaded.")
    if st.session_state.data is None:
        _use_sample(initial=True)


def _use_sample(initial: bool = False) -> None:
    sample = BY_KEY[st.session_state.sample]
    d, frame, notes = read_sample(sample.key)
    target = sample.target
    if initial and st.session_state.get("url_target") in frame.columns:
        target = st.session_state.url_target
    _set_data(sample.title, d, frame, notes, target=target)


def _set_data(name, digest, frame, notes, target) -> None:
    """New data: reset the column choices *before* their widgets are drawn."""
    st.session_state.data = (name, digest, frame, notes)
    st.session_state.flags = dataset.column_flags(frame)  # once per data set, not per rerun
    columns = list(frame.columns)
    st.session_state.target = target if target in columns else columns[-1]
    weight = st.session_state.pop("url_weight", None)  # a shared link's weight column, once
    st.session_state.weight = weight if weight in columns and weight != target else None
    st.session_state.features = default_features(frame, st.session_state.target)
    st.session_state.config = None
    st.session_state.playing = False


def default_features(frame: pd.DataFrame, target: str) -> list[str]:
    """Every column but the target (and weights) and the flagged ones; if that leaves
    nothing, every column that has values."""
    flags = st.session_state.flags
    target_like = (target, st.session_state.get("weight"))
    chosen = [c for c in frame.columns if c not in target_like and c not in flags]
    if not chosen:
        chosen = [c for c in frame.columns
                  if c not in target_like and flags.get(c) != "all values missing"]
    return chosen


def columns_ui() -> None:
    name, _, frame, notes = st.session_state.data
    columns = list(frame.columns)
    st.caption(f"**{name}**: {len(frame):,} rows × {len(columns)} columns. " + " ".join(notes))
    st.selectbox("Target (what to predict)", columns, key="target", on_change=_target_changed)
    flags = st.session_state.flags
    numeric = [c for c in columns if c != st.session_state.target
               and pd.api.types.is_numeric_dtype(frame[c])]
    if st.session_state.get("weight") not in [None, *numeric]:
        st.session_state.weight = None
    st.multiselect("Features", [c for c in columns if c not in (st.session_state.target,
                                                                st.session_state.weight)],
                   key="features")
    st.selectbox("Sample weights (optional)", [None, *numeric], key="weight",
                 format_func=lambda c: "none: every row counts once" if c is None else c,
                 on_change=_weight_changed, help=HELP["weight"])
    for column, why in flags.items():
        if column != st.session_state.target:
            left_out = column not in st.session_state.features
            st.caption(f":material/warning: `{column}`: {why}"
                       + (" — left out by default." if left_out else "."))
    st.selectbox("Task", urlstate.TASK_CHOICES, key="task", help=HELP["task"])
    task = resolved_task()
    options = urlstate.OBJECTIVES.get(task, urlstate.ALL_OBJECTIVES)
    if st.session_state.get("p_objective") not in options:
        st.session_state.p_objective = options[0]
    st.selectbox("Objective", options, key="p_objective", help=HELP["objective"],
                 format_func=lambda o: o + (" (default)" if o == options[0] else ""))


def resolved_task() -> str | None:
    """The task the data will be trained as: the choice, or the one read from the target."""
    if st.session_state.task != "auto":
        return st.session_state.task
    name, digest, frame, _ = st.session_state.data
    return inferred_task(digest, st.session_state.target, frame)


@st.cache_data(max_entries=32, show_spinner=False)
def inferred_task(digest: str, target: str, _frame: pd.DataFrame) -> str | None:
    column = _frame[target]
    if column.isna().all() or column.nunique() < 2:
        return None  # training will say what is wrong with the target
    return dataset.infer_task(column.dropna())


def _weight_changed() -> None:
    weight = st.session_state.weight
    st.session_state.features = [f for f in st.session_state.features if f != weight]


def _target_changed() -> None:
    st.session_state.features = default_features(st.session_state.data[2],
                                                 st.session_state.target)


# --------------------------------------------------------------------------- parameters
def params_ui() -> bool:
    """The parameter form; returns True when Train was pressed."""
    with st.form("params", border=False):
        st.header("Parameters")
        st.segmented_control("Boosting", list(urlstate.BOOSTING), key="p_boosting",
                             format_func=urlstate.BOOSTING.get, help=HELP["boosting"])
        st.slider("eta (learning rate)", 0.01, 1.0, key="p_eta", step=0.01, help=HELP["eta"])
        st.number_input("lambda", 0.0, 100.0, key="p_lambda", step=0.5, help=HELP["lambda"])
        st.number_input("gamma", 0.0, 1000.0, key="p_gamma", step=1.0, help=HELP["gamma"])
        st.slider("max_depth", 1, 10, key="p_max_depth", help=HELP["max_depth"])
        st.number_input("min_child_weight", 0.0, 100.0, key="p_min_child_weight", step=0.5,
                        help=HELP["min_child_weight"])
        st.number_input("alpha", 0.0, 100.0, key="p_alpha", step=0.5, help=HELP["alpha"])
        st.number_input("max_delta_step", 0.0, 10.0, key="p_max_delta_step", step=0.1,
                        help=HELP["max_delta_step"])
        st.text_input("base_score", key="p_base_score", placeholder="estimated from the data",
                      help=HELP["base_score"])
        st.number_input("rounds", 1, 500, key="p_rounds", step=1, help=HELP["rounds"])
        st.segmented_control("tree_method", urlstate.TREE_METHODS, key="p_tree_method",
                             help=HELP["tree_method"])
        st.number_input("max_bin (hist, approx)", 2, 1024, key="p_max_bin", step=1,
                        help=HELP["max_bin"])
        objective_params_ui()
        with st.expander("Sampling and early stopping"):
            st.slider("subsample (rows per tree)", 0.05, 1.0, key="p_subsample", step=0.05,
                      help=HELP["subsample"])
            for name in ("colsample_bytree", "colsample_bylevel", "colsample_bynode"):
                st.slider(name, 0.05, 1.0, key=f"p_{name}", step=0.05, help=HELP[name])
            st.number_input("seed", 0, 2**31 - 1, key="p_seed", step=1, help=HELP["seed"])
            st.number_input("early_stopping_rounds (0 = off)", 0, 500,
                            key="p_early_stopping_rounds", step=1,
                            help=HELP["early_stopping_rounds"])
        return st.form_submit_button("Train", key="train", type="primary",
                                     use_container_width=True)


def objective_params_ui() -> None:
    """The chosen objective's own parameters (the objective is picked outside the form, so
    the form shows only what applies)."""
    objective = st.session_state.get("p_objective")
    if objective == "reg:pseudohubererror":
        st.number_input("huber_slope (δ)", 0.001, 1000.0, key="p_huber_slope", step=0.5,
                        help=HELP["huber_slope"])
    elif objective == "reg:tweedie":
        st.number_input("tweedie_variance_power (ρ)", 1.01, 1.99, key="p_tweedie_variance_power",
                        step=0.05, help=HELP["tweedie_variance_power"])
    elif objective in urlstate.OBJECTIVES["binary"]:
        st.number_input("scale_pos_weight", 0.001, 1000.0, key="p_scale_pos_weight", step=0.5,
                        help=HELP["scale_pos_weight"])


def current_config() -> dict:
    """Everything training depends on, as plain values (the cache key)."""
    name, digest, _, _ = st.session_state.data
    return {
        "digest": digest, "name": name, "target": st.session_state.target,
        "features": tuple(st.session_state.features), "task": st.session_state.task,
        "weight": st.session_state.get("weight"),
        **{k: st.session_state[f"p_{k}"] for k in urlstate.PARAMS},
        "base_score": st.session_state.p_base_score.strip(),
        "tree_method": st.session_state.p_tree_method or urlstate.TREE_METHODS[0],
        "objective": st.session_state.p_objective,
        "boosting": st.session_state.p_boosting or "newton",
    }


# --------------------------------------------------------------------------- training
class TrainingError(ValueError):
    pass


@st.cache_resource(max_entries=16, show_spinner=False)
def train_cached(config: dict, _frame: pd.DataFrame):
    """Train once per (data digest, choices, parameters); the result is shared read-only."""
    task = None if config["task"] == "auto" else config["task"]
    try:
        prep = dataset.prepare(_frame, config["target"], list(config["features"]), task=task,
                               objective=config["objective"], weight=config["weight"])
    except dataset.DataError as exc:
        raise TrainingError(str(exc)) from None
    params = {"objective": prep.objective, "boosting": config["boosting"],
              **{k: config[k] for k in ("eta", "lambda", "gamma", "max_depth",
                                        "min_child_weight", "alpha", "max_delta_step",
                                        "tree_method", "max_bin", "subsample",
                                        "colsample_bytree", "colsample_bylevel",
                                        "colsample_bynode", "seed")}}
    if prep.objective == "count:poisson" and not config["max_delta_step"]:
        del params["max_delta_step"]  # XGBoost's 0.7 for Poisson, as when it is not given
    own = {"reg:pseudohubererror": "huber_slope", "reg:tweedie": "tweedie_variance_power"}
    if prep.objective in own:
        params[own[prep.objective]] = config[own[prep.objective]]
    if prep.task == "binary":
        params["scale_pos_weight"] = config["scale_pos_weight"]
    if prep.task == "multi-class":
        params["num_class"] = prep.num_class
    if config["base_score"]:
        try:
            params["base_score"] = float(config["base_score"])
        except ValueError:
            raise TrainingError(
                f"base_score {config['base_score']!r} is not a number; leave it empty to "
                "estimate it from the data.") from None
    evals = [(prep.X_valid, prep.y_valid, "valid", prep.w_valid) if prep.w_valid is not None
             else (prep.X_valid, prep.y_valid, "valid")] if len(prep.y_valid) else []
    stopping = config["early_stopping_rounds"] or None
    if stopping and not evals:
        raise TrainingError("early stopping watches the validation set, and data with fewer "
                            "than 10 rows has none; set early_stopping_rounds to 0.")
    try:
        booster = boost.train(params, prep.X_train, prep.y_train, config["rounds"],
                              evals=evals, early_stopping_rounds=stopping,
                              sample_weight=prep.w_train)
    except ValueError as exc:
        raise TrainingError(str(exc)) from None
    except MemoryError:
        raise TrainingError(
            "there is not enough memory to train on this data with these settings; use fewer "
            "rows or features, or a smaller max_depth or max_bin.") from None
    except Exception as exc:  # never a traceback on screen: say what failed, keep the model
        raise TrainingError(
            f"the engine failed ({type(exc).__name__}: {exc}). This is a bug in BoostScope; "
            "the data and the parameters in the address bar reproduce it.") from None
    return booster, prep


@st.cache_resource(max_entries=16, show_spinner=False)
def tree_frame(config: dict, _booster: boost.Booster) -> pd.DataFrame:
    """The trees of the model trained with ``config``, as grown
    (``trees_to_dataframe(include_pruned=True)``): built once per model, sliced per step."""
    return _booster.trees_to_dataframe(include_pruned=True)


def trained_model():
    """(booster, prepared data, the configuration that trained it) for the last trained
    configuration; the previous good model (and the reason) when that one cannot train."""
    config = st.session_state.config
    if config is None:
        return None
    frame = st.session_state.data[2]
    try:
        with st.spinner("Training…", show_time=True):
            booster, prep = train_cached(config, frame)
    except TrainingError as exc:
        previous = st.session_state.get("last_good_model")
        st.error(f"Cannot train: {exc}" + (" Showing the previous model." if previous else ""))
        return previous
    st.session_state.last_good_model = (booster, prep, config)
    return booster, prep, config


# --------------------------------------------------------------------------- stepping
def _step(delta: int, n: int) -> None:
    st.session_state["round"] = int(min(n, max(0, st.session_state.get("round", 0) + delta)))


def _jump(value: int) -> None:
    st.session_state["round"] = value


def _toggle_play(n: int) -> None:
    playing = not st.session_state.playing
    if playing and st.session_state.get("round", 0) >= n:
        st.session_state["round"] = 0
    st.session_state.playing = playing
    st.session_state.rerun_app = True  # the fragment's timer is set on a full run only


def _speed_changed() -> None:
    if st.session_state.playing:
        st.session_state.rerun_app = True


def transport_ui(n: int) -> None:
    """First, back, play/pause, step, last and the speed. They live in the round fragment,
    so a step reruns only the fragment; Play and the speed ask for one full run, which is
    when Streamlit reads the fragment's timer."""
    cols = st.columns([1.25, 1.15, 1.3, 1.15, 1.15, 1.6])
    playing = st.session_state.playing
    cols[0].button("First", key="first", on_click=_jump, args=(0,), shortcut="Home",
                   icon=":material/first_page:", use_container_width=True)
    cols[1].button("Back", key="step_back", on_click=_step, args=(-1, n), shortcut="Left",
                   icon=":material/chevron_left:", use_container_width=True)
    cols[2].button("Pause" if playing else "Play", key="play", on_click=_toggle_play,
                   args=(n,), shortcut="Space", type="primary", use_container_width=True,
                   icon=":material/pause:" if playing else ":material/play_arrow:")
    cols[3].button("Step", key="step_forward", on_click=_step, args=(1, n), shortcut="Right",
                   icon=":material/chevron_right:", icon_position="right",
                   use_container_width=True)
    cols[4].button("Last", key="last", on_click=_jump, args=(n,), shortcut="End",
                   icon=":material/last_page:", icon_position="right",
                   use_container_width=True)
    cols[5].select_slider("Speed", options=[0.25, 0.5, 1.0, 2.0], key="speed",
                          on_change=_speed_changed, format_func=lambda s: f"{s:g} s / round",
                          label_visibility="collapsed")
    if st.session_state.pop("rerun_app", False):
        st.rerun(scope="app")


def round_stage(booster: boost.Booster, prep: dataset.Prepared, config: dict) -> None:
    """Everything that follows the current round; re-run alone while playing."""
    start = time.perf_counter()
    try:
        _round_stage(booster, prep, config)
    except Exception as exc:  # never a traceback on a lecturer's screen
        st.session_state.playing = False
        st.error(f"This round could not be drawn ({type(exc).__name__}: {exc}). Step to "
                 "another round or choose other columns; the trained model is kept.")
    # What a step costs the server (benchmarks/bench_app.py reads it).
    st.session_state.stage_ms = (time.perf_counter() - start) * 1000


def _round_stage(booster: boost.Booster, prep: dataset.Prepared, config: dict) -> None:
    n = booster.num_boosted_rounds()
    transport_ui(n)
    if st.session_state.playing:
        if st.session_state.get("round", 0) >= n:
            st.session_state.playing = False
            st.rerun(scope="app")
        else:
            st.session_state["round"] = st.session_state.get("round", 0) + 1
    st.slider("Round", 0, n, key="round", help="Round 0 is the baseline (base_score); round r "
              "adds the r-th tree(s). Keys: ← → step, Space plays, Home/End jump.")
    r = st.session_state["round"]
    history = booster.loss_history()
    losses = ", ".join(f"{name} {booster.metric_name} {history[name].iloc[r]:.4g}"
                       for name in history.columns)
    st.markdown(f"#### Round {r} of {n} — {losses}")
    X_train = prep.X_train.to_numpy(dtype=float)
    large = st.session_state.get("large", False)
    left, right = st.columns([1.15, 1])
    with left:
        st.plotly_chart(make_fit_figure(booster, X_train, prep.y_train, r,
                                        class_names=prep.class_names, large=large),
                        key="fit", config=chart_config())
    with right:
        best = None if booster.best_iteration is None else booster.best_iteration + 1
        st.plotly_chart(make_loss_figure(history, r, booster.metric_name, large=large,
                                         best_round=best),
                        key="loss", config=chart_config())
    # One view at a time (only the chosen one is computed, so stepping stays fast).
    view = st.segmented_control("View", VIEWS, key="view", label_visibility="collapsed")
    view = view or VIEWS[0]
    if view == VIEWS[0]:
        tree_table(booster, prep, config, r)
    elif view == VIEWS[1]:
        residuals_view(booster, prep, r, large)
    elif view == VIEWS[2]:
        learning_rate_view(booster, prep, config, r, large)
    elif view == VIEWS[4]:
        comparison_view(booster, prep, config, r, large)
    else:
        kind = st.segmented_control("Importance", ["gain", "weight", "cover", "total_gain",
                                                   "total_cover"], default="gain",
                                    key="importance_type")
        st.plotly_chart(make_importance_figure(booster, kind or "gain", r, large=large),
                        key="importance", config=chart_config())
    share_url(config)


def chart_config() -> dict:
    """Plotly's toolbar settings; the camera button saves PNG or SVG (sidebar choice)."""
    fmt = st.session_state.get("export_format", "png")
    return {"displaylogo": False,
            "toImageButtonOptions": {"format": fmt, "scale": 2, "filename": "boostscope"}}


def residuals_view(booster: boost.Booster, prep: dataset.Prepared, r: int, large: bool) -> None:
    if r == 0:
        st.info("Step to round 1 or later to see what each round's tree did to the rows.")
        return
    klass = st.session_state.get("klass", 0) if booster.num_groups > 1 else 0
    before, after = booster.round_views(r)
    used = booster.rows_used(r, klass) if booster.params["subsample"] < 1 else None
    left, right = st.columns(2)
    with left:
        st.plotly_chart(make_residual_figure(before, after, booster.objective, klass, large,
                                             used=used),
                        key="residuals", config=chart_config())
    with right:
        n = len(prep.y_train)
        row = st.number_input("Row (training set)", 0, n - 1, 0, key="waterfall_row",
                              help="Follow one row from base_score through every tree.")
        st.plotly_chart(make_waterfall_figure(booster, prep.X_train.iloc[[row]].to_numpy(),
                                              r, klass, label=f"row {row}", large=large),
                        key="waterfall", config=chart_config())


def learning_rate_view(booster, prep, config, r, large) -> None:
    text = st.text_input("Learning rates to compare (η, comma-separated, up to 6)",
                         value="0.01, 0.1, 0.3, 1.0", key="etas")
    etas = urlstate.parse_etas(text)
    if not etas:
        st.warning("Give one or more learning rates between 0 and 1, e.g. 0.01, 0.1, 0.3.")
        return
    frame = st.session_state.data[2] if st.session_state.data else None
    boosters = {}
    with st.spinner("Training one model per learning rate…", show_time=True):
        for eta in etas:
            if frame is None or config.get("digest") != st.session_state.data[1]:
                break
            boosters[eta] = train_cached({**config, "eta": eta}, frame)[0]
    if not boosters:
        st.info("Train on the current data to compare learning rates.")
        return
    histories = {eta: b.loss_history() for eta, b in boosters.items()}
    stopped = {eta: b.best_iteration + 1 for eta, b in boosters.items()
               if b.best_iteration is not None}
    st.plotly_chart(make_learning_rate_figure(histories, r, booster.metric_name, large,
                                              stopped=stopped),
                    key="lr_curves", config=chart_config())
    if stopped:
        st.caption("★ marks the round early stopping kept for each learning rate; each curve "
                   "ends where its training stopped.")
    if prep.X_train.shape[1] == 1 and booster.num_groups == 1:
        st.plotly_chart(make_learning_rate_fit_figure(
            boosters, prep.X_train.to_numpy(dtype=float), prep.y_train, r,
            prep.feature_names[0], large), key="lr_fits", config=chart_config())


def tree_table(booster: boost.Booster, prep: dataset.Prepared, config: dict, r: int) -> None:
    """The round's tree (click a node), the selected node's candidates and arithmetic, and
    the tree as a table."""
    if r == 0:
        st.info(f"Round 0 is the baseline: every row starts at base_score "
                f"{', '.join(f'{v:.4g}' for v in booster.base_score)} "
                "(margin " + ", ".join(f"{v:.4g}" for v in booster.base_margin) + ").")
        return
    frame = tree_frame(config, booster)
    df = frame[frame.Round == r]
    klass = 0
    if booster.num_groups > 1:
        klass = st.selectbox("Class (one tree per class per round)",
                             list(range(booster.num_groups)), key="klass",
                             format_func=lambda k: f"{k}: {_class_name(k)}")
    tree = df[df.Class == klass]
    gamma = float(booster.params["gamma"])
    sampling_caption(booster, r, klass)
    node = st.session_state.get("node")
    if node not in set(tree.Node):
        node = None
    follow = st.columns([1, 2])[0].number_input(
        "Follow a row through the tree", 0, len(prep.y_train) - 1, value=None,
        key="follow_row", placeholder="row of the training set",
        help="Draws the path of one training row from the root to its leaf.")
    path = (booster.decision_path(prep.X_train.iloc[follow].to_numpy(), r, klass)
            if follow is not None else None)
    st.plotly_chart(make_tree_figure(tree, gamma, node, title=f"Tree of round {r}"
                                     + (f", class {klass}" if booster.num_groups > 1 else "")
                                     + " — click a node",
                                     large=st.session_state.get("large", False), path=path),
                    key="tree_chart", on_select=_node_clicked, selection_mode="points",
                    config={**chart_config(), "scrollZoom": True})
    if node is None:
        st.caption("Click a node of the tree to see every candidate split it had and its "
                   "arithmetic. " + ("Faded nodes were grown and then removed by γ-pruning."
                                     if config["tree_method"] == "exact" else
                                     "Dashed stubs mark splits γ refused before growing them."))
    else:
        node_detail(booster, config, tree, r, node, klass)
    with st.expander(f"Tree of round {r} as a table (XGBoost's trees_to_dataframe + trace)"):
        columns = ["Class", "Node", "Depth", "Feature", "Split", "Yes", "No", "Missing",
                   "Gain", "Cover", "SumGrad", "SumHess", "Similarity", "Weight", "Value",
                   "Leaf", "Pruned", "Reason"]
        if booster.num_groups == 1:
            columns.remove("Class")
        st.caption("Gain is XGBoost's loss change of a split; for leaves it holds the leaf "
                   "value η·w, as in XGBoost. Rows with Pruned = True were removed by pruning.")
        st.dataframe(df[columns], hide_index=True)


def sampling_caption(booster: boost.Booster, r: int, klass: int) -> None:
    """Which rows and features the round's tree could use (subsample, colsample_*)."""
    p = booster.params
    parts = []
    if p["subsample"] < 1:
        used = booster.rows_used(r, klass)
        parts.append(f"grown on **{int(used.sum()):,} of {len(used):,} rows** (subsample "
                     f"{p['subsample']:g}; the others are hollow in the residual view)")
    if p["colsample_bytree"] < 1:
        # the tree's set is the root's set when only bytree samples; show the root's draw
        drawn = booster.features_used(r, 0, klass)
        names = [n for n, u in zip(booster.feature_names, drawn, strict=True) if u]
        parts.append("features drawn for the root: " + ", ".join(f"`{n}`" for n in names))
    if parts:
        st.caption(f"Round {r}'s tree was " + "; ".join(parts) + ".")


def _class_name(k: int) -> str:
    model = st.session_state.get("last_good_model")
    names = model[1].class_names if model else []
    return names[k] if k < len(names) else str(k)


def _node_clicked() -> None:
    node = selected_node(st.session_state.tree_chart)
    if node is not None:  # an empty event (the selection was cleared by a redraw) keeps it
        st.session_state.node = node


@st.cache_resource(max_entries=64, show_spinner=False)
def node_candidates(config: dict, _booster: boost.Booster, r: int, node: int,
                    klass: int) -> pd.DataFrame:
    """split_candidates of one node, once per (model, round, node, class)."""
    return _booster.split_candidates(r, node, klass)


def node_detail(booster: boost.Booster, config: dict, tree: pd.DataFrame, r: int, node: int,
                klass: int) -> None:
    row = tree[tree.Node == node].iloc[0]
    cand = node_candidates(config, booster, r, node, klass)
    best = cand[cand.Best]
    drawn = set(cand.Feature[cand.Sampled])
    left, right = st.columns([1, 1.1])
    with left:
        features = list(dict.fromkeys(cand.Feature)) or booster.feature_names
        default = best.Feature.iloc[0] if len(best) else features[0]
        feature = st.selectbox("Feature", features, index=features.index(default),
                               key=f"cand_feature_{r}_{klass}_{node}",
                               format_func=lambda f: f if f in drawn else f"{f} (not drawn)")
        if len(drawn) < len(features):
            st.caption(f"colsample: this node could split only on {len(drawn)} of "
                       f"{len(features)} features; the others' candidates are shown but could "
                       "not be chosen.")
        refused = bool(row.Leaf and row.Feature != "Leaf" and row.Yes is None)
        st.plotly_chart(make_candidates_figure(cand, feature, float(booster.params["gamma"]),
                                               large=st.session_state.get("large", False),
                                               refused=refused),
                        key="cand_chart", config=chart_config())
    with right:
        st.markdown(f"**Node {node}, worked out**")
        steps = worked_arithmetic(row, best.iloc[0] if len(best) else None, booster.params,
                                  booster.objective, float(booster.base_margin[klass]))
        for step in steps:
            st.latex(step.latex)
        title = f"BoostScope round {r}, node {node}"
        a, b = st.columns(2)
        a.download_button("LaTeX", steps_latex(steps, title), f"round{r}_node{node}.tex",
                          icon=":material/download:", key="dl_tex")
        b.download_button("CSV", steps_table(steps).to_csv(index=False),
                          f"round{r}_node{node}.csv", icon=":material/download:", key="dl_csv")
    drawn_note = (f"; listed: the {len(drawn)} features this node drew" if len(drawn) < len(
        set(cand.Feature)) else "")
    st.markdown(f"**Best candidate splits of node {node}** ({len(cand)} in all{drawn_note}; "
                "G, H and similarity of both children)")
    st.dataframe(top_candidates(cand), hide_index=True)


# --------------------------------------------------------------------------- the screen
@st.cache_resource(show_spinner=False)
def warm_up_engine() -> threading.Thread:
    """Once per server: compile (or load from numba's disk cache) every engine kernel in the
    background, so switching tree method or objective later does not stall a click."""
    thread = threading.Thread(target=boost.warmup, name="boost-warmup", daemon=True)
    thread.start()
    return thread


def main() -> None:
    st.set_page_config(page_title="BoostScope", page_icon=":material/forest:", layout="wide")
    warm_up_engine()
    init_state()
    with st.sidebar:
        st.title(":material/forest: BoostScope")
        data_ui()
        columns_ui()
        pressed = params_ui()
        st.toggle("Large text (projector)", key="large")
        st.segmented_control("Chart download format (camera button)", ["png", "svg"],
                             key="export_format", default="png")
    if pressed or (st.session_state.config is None and st.session_state.data is not None):
        st.session_state.config = current_config()
    model = trained_model()
    if model is None:
        st.info("Choose data and press **Train**.")
        return
    booster, prep, config = model
    n = booster.num_boosted_rounds()
    if st.session_state.get("url_round") is not None:
        st.session_state["round"] = min(n, st.session_state.url_round)
        st.session_state.url_round = None
    if st.session_state.get("round", 0) > n:
        st.session_state["round"] = n
    for note in prep.notes:
        st.caption(":material/info: " + note)
    objective_panel(booster, config)
    interval = float(st.session_state.get("speed", 1.0))
    fragment = st.fragment(round_stage, run_every=interval if st.session_state.playing else None)
    fragment(booster, prep, config)


def objective_panel(booster: boost.Booster, config: dict) -> None:
    """The objective's loss, g and h as formulas, and early stopping's verdict."""
    mode = urlstate.BOOSTING[config["boosting"]]
    with st.expander(f"Objective **{booster.objective}** ({mode}): loss, gradient g, "
                     "hessian h, leaf value"):
        st.caption(f"Labels: {boost.objectives.spec(booster.objective).labels}. m is the "
                   "margin (the sum of base_score's margin and the trees' leaf values).")
        for _, line in objective_latex(booster.objective, booster.params):
            st.latex(line)
    y = booster.data.y
    base = float(booster.base_score[0])
    if (booster.num_groups == 1 and not config["base_score"]
            and not float(y.min()) <= base <= float(y.max())):
        st.warning(f"The estimated base_score {base:.4g} lies outside the target's range "
                   f"[{float(y.min()):.4g}, {float(y.max()):.4g}]. XGBoost estimates it for "
                   f"{booster.objective} with one Newton step from 0, which overshoots when "
                   "the labels are far from 0 relative to the loss's scale (for pseudo-Huber: "
                   "huber_slope). Set base_score (e.g. the median of the target) or a larger "
                   "huber_slope.", icon=":material/warning:")
    if booster.best_iteration is not None:
        n = booster.num_boosted_rounds()
        best = booster.best_iteration + 1
        verdict = (f"stopped after round {n}: {config['early_stopping_rounds']} rounds "
                   "without improvement" if n < config["rounds"] else
                   f"did not stop before round {n}")
        st.caption(f":material/flag: Early stopping: validation {booster.metric_name} was "
                   f"best at round {best} ({booster.best_score:.5g}); training {verdict}. As "
                   "in XGBoost, the model keeps every round trained.")


def comparison_view(booster: boost.Booster, prep: dataset.Prepared, config: dict, r: int,
                    large: bool) -> None:
    """The same data and parameters, Newton and first-order, side by side."""
    frame = st.session_state.data[2] if st.session_state.data else None
    if frame is None or config.get("digest") != st.session_state.data[1]:
        st.info("Train on the current data to compare Newton and first-order boosting.")
        return
    models = {}
    with st.spinner("Training the other kind of boosting…", show_time=True):
        for mode in urlstate.BOOSTING:
            other = {**config, "boosting": mode}
            models[mode] = booster if mode == config["boosting"] else train_cached(other,
                                                                                   frame)[0]
    labels = urlstate.BOOSTING
    st.plotly_chart(make_loss_comparison_figure(
        {labels[m]: b.loss_history() for m, b in models.items()}, r, booster.metric_name,
        large), key="cmp_loss", config=chart_config())
    if r == 0:
        st.info("Step to round 1: both start from the same baseline; from round 1 on, "
                "compare their trees.")
        return
    klass = 0
    if booster.num_groups > 1:
        klass = st.selectbox("Class", list(range(booster.num_groups)), key="cmp_klass",
                             format_func=lambda k: f"{k}: {_class_name(k)}")
    st.caption("Both trees of round 1 fit the gradients of the same baseline: the difference "
               "is only how they use them. Newton scores splits by G²/(H + λ) and sets "
               "w = −G/(H + λ); first-order fits −g by least squares (H counts rows) and then "
               "gives each leaf the value that minimises the loss (or one Newton step towards "
               "it). After round 1 the models "
               "have different margins, so their gradients differ too.")
    columns = st.columns(2)
    for col, (mode, model) in zip(columns, models.items(), strict=True):
        with col:
            n = model.num_boosted_rounds()
            if r > n:
                st.info(f"{labels[mode]} stopped early after round {n}.")
                continue
            trees = tree_frame({**config, "boosting": mode}, model)
            tree = trees[(trees.Round == r) & (trees.Class == klass)]
            st.plotly_chart(make_tree_figure(tree, float(model.params["gamma"]), None,
                                             title=f"{labels[mode]}, round {r}", large=large),
                            key=f"cmp_tree_{mode}", config=chart_config())
            leaves = tree[tree.Leaf & ~tree.Pruned][["Node", "SumGrad", "SumHess", "Weight",
                                                     "Value"]]
            st.dataframe(leaves.rename(columns={"SumGrad": "G", "SumHess": "H (cover)",
                                                "Weight": "w", "Value": "η·w"}),
                         hide_index=True)


def share_url(config: dict) -> None:
    state = {"sample": st.session_state.sample if config["name"] in
             {s.title for s in SAMPLES} else None,
             "target": config["target"], "task": config["task"], "weight": config["weight"],
             **{k: config[k] for k in urlstate.PARAMS},
             "base_score": config["base_score"] or None,
             "tree_method": config["tree_method"],
             "objective": config["objective"], "boosting": config["boosting"],
             "round": st.session_state.get("round", 0),
             "view": VIEWS.index(st.session_state.get("view") or VIEWS[0]),
             "node": st.session_state.get("node")}
    st.query_params.from_dict(urlstate.write(state))


main()
