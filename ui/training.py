"""Training, cached once per (data digest, column choices, parameters), and the on-demand
results the views share (the trees as a table). Owns ``Trained``, the session's part holding
the configuration asked for and the last good model; starts the server's compile of the
engine and reports its step (``boost.runtime`` runs it)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import boost
from boost import runtime
from boost.params import APP_PARAMS, left_to_objective
from boost.runtime import fits_python, python_engine

from . import tables
from .state import AppState, Model

# Live knobs: on data up to this size every parameter change retrains at once (a model of
# the default size trains in a few tens of milliseconds there); larger data waits for Train.
LIVE_ROWS = 5_000
LIVE_FEATURES = 20


class TrainingError(ValueError):
    pass


def is_live(app: AppState) -> bool:
    """Whether the data is small enough for live knobs (no Train button)."""
    data = app.inputs.data
    return (data is not None and len(data.frame) <= LIVE_ROWS
            and len(app.inputs.features) <= LIVE_FEATURES)


def live_text() -> str:
    """The live limit in words, for the sidebar."""
    return f"{LIVE_ROWS:,} rows × {LIVE_FEATURES} features"


def current_config(app: AppState) -> dict:
    """Everything training depends on, as plain values (the cache key): the data's digest,
    the column choices and every app parameter of ``boost.params.PARAMETERS``."""
    inputs = app.inputs
    return config_of(inputs.data.digest, inputs.data.name, inputs.target, inputs.features,
                     inputs.task, inputs.weight or None, inputs.objective, inputs.params())


def config_of(digest: str, name: str, target: str, features, task: str, weight: str | None,
              objective: str, params: dict) -> dict:
    """A training configuration (the cache key) of a table's digest and name, its column
    choices and every app parameter's value: the session's (``current_config``) or the
    offline lecture's (``ui/lecture.py``)."""
    return {"digest": digest, "name": name, "target": target, "features": tuple(features),
            "task": task, "weight": weight, "objective": objective, **params}


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
    """``boost.train``'s evals: the validation rows (with their weights) as "valid"; none
    when the data has no validation rows."""
    if not len(prep.y_valid):
        return []
    if prep.w_valid is not None:
        return [(prep.X_valid, prep.y_valid, "valid", prep.w_valid)]
    return [(prep.X_valid, prep.y_valid, "valid")]


_DATA_KEYS = ("digest", "target", "features", "task", "objective", "weight")


@st.cache_resource(max_entries=16, show_spinner=False)
def prepared(columns: tuple, _frame: pd.DataFrame) -> tables.Prepared:
    """The encoded data, once per (data digest, column choices, task, objective): a live
    knob's change retrains without encoding the table again."""
    digest, target, features, task, objective, weight = columns
    try:
        return tables.prepare(_frame, target, list(features),
                               task=None if task == "auto" else task,
                               objective=None if objective == "auto" else objective,
                               weight=weight)
    except tables.DataError as exc:
        raise TrainingError(str(exc)) from None


@st.cache_resource(max_entries=16, show_spinner=False)
def train_cached(config: dict, _frame: pd.DataFrame, engine: str = "compiled"):
    """Train once per configuration; the result is shared read-only. ``engine``: "compiled",
    or "python" (the same engine as plain Python, bit-equal, while the kernels compile)."""
    prep = prepared(tuple(config[k] for k in _DATA_KEYS), _frame)
    params = engine_params(config, prep)
    evals = eval_sets(prep)
    stopping = config["early_stopping_rounds"] or None
    if stopping and not evals:
        raise TrainingError("early stopping watches the validation set, and data with fewer "
                            "than 10 rows has none; set early_stopping_rounds to 0.")
    module = boost if engine == "compiled" else python_engine()
    try:
        booster = module.train(params, prep.X_train, prep.y_train, config["num_boost_round"],
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
