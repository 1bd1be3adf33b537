"""Training, cached once per (data digest, column choices, parameters), and the on-demand
results the views share (the trees as a table). Owns ``Trained``, the session's part holding
the configuration asked for and the last good model; starts the server's compile of the
engine and reports its step (``boost.runtime`` runs it)."""

from __future__ import annotations

import threading
import time

import pandas as pd
import streamlit as st
from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

import boost
from boost import runtime
from boost.params import APP_PARAMS, BY_NAME, left_to_objective
from boost.runtime import fits_python, python_engine

from . import memory, tables
from .state import AppState, Model

# Live knobs: every parameter change retrains at once when a retrain is estimated to take
# at most LIVE_SECONDS (``boost.runtime.train_seconds``: rows x features x rounds x levels
# at this engine's measured speed); longer ones wait for Train. A retrain estimated over
# PROGRESS_SECONDS shows a progress bar, round by round.
LIVE_SECONDS = 1.0
PROGRESS_SECONDS = 0.5


class TrainingError(ValueError):
    pass


def retrain_seconds(config: dict, frame: pd.DataFrame) -> float | None:
    """About how long training ``config`` takes on this server: the compiled engine's
    measured rates, or while the kernels compile the plain-Python engine's (data it trains)
    or the rates measured where BoostScope is developed; None when the columns cannot be
    prepared (training will say why)."""
    try:
        prep = prepared(tuple(config[k] for k in _DATA_KEYS), frame)
    except TrainingError:
        return None
    rows, features, rounds, depth = _cost_shape(config, prep)
    ready = runtime.background_compile().ready.is_set()
    if not ready and fits_python(prep.objective, rows, features, config["num_boost_round"]):
        return runtime.python_seconds(rows, features, rounds)
    return runtime.train_seconds(config["tree_method"], rows, features, rounds, depth,
                                 measured=ready)


def _cost_shape(config: dict, prep: tables.Prepared) -> tuple[int, int, int, int]:
    """(rows, features, trees, max_depth) a training's time grows with: the validation
    rows are scored every round, a multi-class round grows a tree per class (a quantile
    model one per quantile_alpha)."""
    per_round = prep.num_class if prep.task == "multiclass" else 1
    if BY_NAME["quantile_alpha"].applies(prep.objective):
        per_round = len(str(config.get("quantile_alpha", "")).split(","))
    trees = config["num_boost_round"] * per_round
    return (len(prep.y_train) + len(prep.y_valid), prep.X_train.shape[1], trees,
            config["max_depth"])


def is_live(app: AppState) -> bool:
    """Whether a retrain is quick enough for live knobs (no Train button). Columns that
    cannot be prepared are live: training says at once what is wrong with them."""
    if app.inputs.data is None:
        return False
    seconds = live_estimate(app)
    return seconds is None or seconds <= LIVE_SECONDS


def live_estimate(app: AppState) -> float | None:
    """``retrain_seconds`` of the parameters on screen (None without data)."""
    if app.inputs.data is None or not app.inputs.features:
        return None
    return retrain_seconds(current_config(app), app.inputs.data.frame)


def live_text(seconds: float) -> str:
    """Why the knobs are live or wait for Train, for the sidebar."""
    about = f"about {seconds:.2g} s" if seconds >= 0.01 else "under 0.01 s"
    return f"a retrain here takes {about} (estimated; live up to {LIVE_SECONDS:g} s)"


def current_config(app: AppState) -> dict:
    """Everything training depends on, as plain values (the cache key): the data's digest,
    the column choices and every app parameter of ``boost.params.PARAMETERS``."""
    inputs = app.inputs
    return training_config(inputs.data.digest, inputs.data.name, inputs.target,
                           inputs.features, inputs.task, inputs.weight or None,
                           inputs.objective, inputs.params(), inputs.query or None)


def training_config(digest: str, name: str, target: str, features, task: str,
                    weight: str | None, objective: str, params: dict,
                    query: str | None = None) -> dict:
    """A training configuration (the cache key) of a table's digest and name, its column
    choices and every app parameter's value: the session's (``current_config``) or the
    offline lecture's (``ui/lecture.py``). ``query``: a ranking's query column."""
    return {"digest": digest, "name": name, "target": target, "features": tuple(features),
            "task": task, "weight": weight, "objective": objective, "query": query, **params}


def engine_params(config: dict, prep: tables.Prepared) -> dict:
    """``boost.train``'s params from a configuration: every engine parameter the app shows
    that applies to the objective, plus what the data decides (objective, num_class)."""
    params = {"objective": prep.objective}
    for p in APP_PARAMS:
        if p.train_arg or not p.applies(prep.objective) or p.name == "objective":
            continue
        if left_to_objective(prep.objective, p.name, config[p.name]):
            continue  # count:poisson's max_delta_step 0: the objective's own, as XGBoost's
        params[p.name] = config[p.name]
    if prep.task == "multiclass":
        params["num_class"] = prep.num_class
    text = str(config["base_score"]).strip()
    del params["base_score"]
    if text:
        try:
            params["base_score"] = float(text)
        except ValueError:
            raise TrainingError(f"base_score {text!r} is not a number; leave it empty to "
                                "estimate it from the data.") from None
    return params


def eval_sets(prep: tables.Prepared) -> list:
    """``boost.train``'s evals, as XGBoost's idiom: the training rows themselves as "train"
    (the same objects, so the engine takes their loss from its own margins), then the
    validation rows as "valid" (none when the data has no validation rows); each with its
    weights when the data has them, and its query ids when it is a ranking's."""
    if prep.query:
        sets = [(prep.X_train, prep.y_train, "train", None, prep.qid_train)]
        if len(prep.y_valid):
            sets.append((prep.X_valid, prep.y_valid, "valid", None, prep.qid_valid))
        return sets
    sets = [(prep.X_train, prep.y_train, "train", prep.w_train)]
    if len(prep.y_valid):
        sets.append((prep.X_valid, prep.y_valid, "valid", prep.w_valid))
    return [s[:3] if s[3] is None else s for s in sets]


_DATA_KEYS = ("digest", "target", "features", "task", "objective", "weight", "query")


def prepared(columns: tuple, frame: pd.DataFrame) -> tables.Prepared:
    """The encoded data, once per (data digest, column choices, task, objective): a live
    knob's change retrains without encoding the table again (kept by ``memory.PREPARED``,
    bounded in bytes)."""
    return memory.PREPARED.get(columns, lambda: _prepare(columns, frame))


def _prepare(columns: tuple, frame: pd.DataFrame) -> tables.Prepared:
    digest, target, features, task, objective, weight, query = columns
    try:
        return tables.prepare(frame, target, list(features),
                               task=None if task == "auto" else task,
                               objective=None if objective == "auto" else objective,
                               weight=weight, query=query)
    except tables.DataError as exc:
        raise TrainingError(str(exc)) from None


def train_cached(config: dict, frame: pd.DataFrame, engine: str = "compiled",
                 progress=None):
    """Train once per configuration; the result (booster, prepared data) is shared
    read-only by every session, kept by ``memory.MODELS`` (bounded in bytes). ``engine``:
    "compiled", or "python" (the same engine as plain Python, bit-equal, while the kernels
    compile); ``progress(done, total)`` after each round (not part of the key)."""
    key = (tuple(sorted((k, repr(v)) for k, v in config.items())), engine)
    return memory.MODELS.get(key, lambda: _train(config, frame, engine, progress))


def _train(config: dict, frame: pd.DataFrame, engine: str, progress):
    prep = prepared(tuple(config[k] for k in _DATA_KEYS), frame)
    params = engine_params(config, prep)
    evals = eval_sets(prep)
    stopping = config["early_stopping_rounds"] or None
    if stopping and not len(prep.y_valid):
        raise TrainingError("early stopping watches the validation set, and data with fewer "
                            "than 10 rows has none; set early_stopping_rounds to 0.")
    module = boost if engine == "compiled" else python_engine()
    try:
        start = time.perf_counter()
        booster = module.train(params, prep.X_train, prep.y_train, config["num_boost_round"],
                               evals=evals, early_stopping_rounds=stopping,
                               sample_weight=prep.w_train, progress=progress,
                               qid=prep.qid_train)
        if engine == "compiled":  # the next estimates follow what training really took
            runtime.observe(config["tree_method"], *_cost_shape(config, prep),
                            time.perf_counter() - start)
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


def engine_for(config: dict, frame: pd.DataFrame) -> str:
    """"compiled" once the engine's kernels are compiled (or loaded); until then "python"
    for data the plain-Python engine trains in a moment. Other data trains compiled at once:
    this process compiles the kernels it needs, alongside the workers."""
    if runtime.background_compile().ready.is_set():
        return "compiled"
    prep = prepared(tuple(config[k] for k in _DATA_KEYS), frame)
    if fits_python(prep.objective, len(prep.y_train) + len(prep.y_valid), prep.X_train.shape[1],
                   config["num_boost_round"]):
        return "python"
    return "compiled"


def training_text(engine: str) -> str:
    """What the spinner says while a model trains."""
    if runtime.background_compile().ready.is_set():
        return "Training…"
    if engine == "python":
        return f"Training as plain Python while the engine compiles ({compile_when()})…"
    return "Compiling the engine for this data (first start only, about a minute), then training…"


def trained(app: AppState) -> Model | None:
    """The model of the configuration last asked for; when that one cannot train, the
    reason, and the previous good model if it is of the same data (else None)."""
    part, data = app.model, app.inputs.data
    if part.config is None:
        return None
    try:
        engine = engine_for(part.config, data.frame)
        seconds = retrain_seconds(part.config, data.frame)
        if seconds is not None and seconds > PROGRESS_SECONDS and engine == "compiled":
            booster, prep = _train_with_progress(part.config, data.frame, seconds)
        else:
            with st.spinner(training_text(engine), show_time=True):
                booster, prep = train_cached(part.config, data.frame, engine)
    except TrainingError as exc:
        previous = part.last_good
        if previous is not None and previous.config.get("digest") == part.config.get("digest"):
            st.error(f"Cannot train: {exc} Showing the previous model (these data, the "
                     "settings before).")
            return previous
        # a model of other data would be read as this table's: it is not shown
        st.error(f"Cannot train on {data.name}: {exc}" + (
            f" The model of {previous.config['name']} is not shown (other data); "
            f"{data.name} stays loaded with its columns, and pins are kept."
            if previous is not None else ""))
        part.last_good = None
        return None
    part.last_good = Model(booster, prep, part.config)
    return part.last_good


def _train_with_progress(config: dict, frame: pd.DataFrame, seconds: float):
    """``train_cached`` with a progress bar round by round instead of a faded page, for a
    retrain estimated at ``seconds``. The training runs in a helper thread (this run's
    context attached) and reports its round; this thread draws the bar."""
    done, out = [0, config["num_boost_round"]], {}

    def progress(r: int, total: int) -> None:  # (the helper thread: no Streamlit call)
        done[:] = [r, total]

    def run() -> None:
        try:
            out["model"] = train_cached(config, frame, "compiled", progress)
        except BaseException as exc:  # (raised again in this run's thread)
            out["error"] = exc

    helper = threading.Thread(target=run, name="train", daemon=True)
    add_script_run_ctx(helper, get_script_run_ctx())
    slot = st.empty()
    helper.start()
    try:
        while helper.is_alive():
            r, total = done
            slot.progress(r / max(total, 1), text=f"Training: round {r} of {total} (about "
                                                  f"{seconds:.1f} s in all)…")
            helper.join(timeout=0.1)
    finally:
        slot.empty()
    if "error" in out:
        raise out["error"]
    return out["model"]


def train_other(app: AppState, config: dict):
    """A model the view compares with (same data): None if the data changed meanwhile."""
    data = app.inputs.data
    if data is None or config.get("digest") != data.digest:
        return None
    return train_cached(config, data.frame, engine_for(config, data.frame))[0]


@st.cache_resource(max_entries=16, show_spinner=False)
def missing_features(config: dict, _X: pd.DataFrame) -> frozenset[str]:
    """The training features with any missing value, once per model (the tree names the
    missing values' way only for those)."""
    return frozenset(str(c) for c in _X.columns[_X.isna().any().to_numpy()])


def compile_when() -> str:
    """"first start only", with the server's compile's step once it has begun
    (``boost.runtime.compile_in_background``)."""
    status = runtime.background_compile()
    return "first start only" + (f"; step {status.done} of {status.total}" if status.total else "")


def warm_up_engine() -> None:
    """Once per server, after its first run has drawn its screen: compile (or load from
    numba's disk cache) every engine kernel in the background, so no later click waits for
    a compile; on an empty cache in worker processes, while small data trains as plain
    Python (``boost.runtime.compile_in_background``, which also keeps the engine's objects
    out of the garbage collection Streamlit runs after every script run)."""
    runtime.compile_in_background()


def other_model(state: AppState, config: dict, change: str, purpose: str, where=st):
    """``train_other`` behind a spinner ("Training the same model with <change>…"); None,
    with a message in ``where``, when it cannot train or the data changed meanwhile
    ("Train on the current data to <purpose>.")."""
    with st.spinner(f"Training the same model with {change}…", show_time=True):
        try:
            other = train_other(state, config)
        except TrainingError as exc:
            where.warning(f"Cannot train with {change}: {exc}")
            return None
    if other is None:
        where.info(f"Train on the current data to {purpose}.")
    return other
