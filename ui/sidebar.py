"""The sidebar: the data (a sample or an upload, target, features, weights, task, objective)
and the parameters, whose widgets are made from ``boost.params.PARAMETERS`` (live on small
data, applied by a Train button on larger data)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from boost.objectives import OBJECTIVES as OBJECTIVE_SPECS
from boost.params import BY_NAME, Param

from . import tables, training, url
from .samples import BY_KEY, SAMPLES
from .state import AppState, Data

NO_WEIGHT = ""  # the weight choice "none" (a selectbox shows None as no choice at all)
WEIGHT_HELP = ("A column of sample weights (numbers >= 0): every g and h of a row is "
               "multiplied by its weight, so it counts that many times in G, H and the loss.")
UPLOAD_HELP = ("CSV: comma, semicolon, tab or | separated; UTF-8, UTF-16 or Windows-1252; with "
               "or without a header row. Parquet. Excel (.xlsx): the first visible sheet with "
               "data; formulas give their saved values, never calculated.")
TASK_HELP = ("What the target is: inferred from the column, or chosen here. It decides which "
             "objectives (losses) fit.")


def objectives_for(task: str | None) -> tuple[str, ...]:
    """The objectives that fit a task, the task's default first (the order of the spec)."""
    fitting = tuple(n for n, o in OBJECTIVE_SPECS.items() if o.task == task)
    return fitting or tuple(OBJECTIVE_SPECS)


# --------------------------------------------------------------------------- data
@st.cache_data(max_entries=8, show_spinner=False)
def read_sample(key: str) -> tuple[str, pd.DataFrame, list[str]]:
    raw = BY_KEY[key].path.read_bytes()
    table = tables.read_table(raw, BY_KEY[key].file)
    return tables.digest(raw), table.frame, table.notes


def data_ui(state: AppState) -> None:
    """Sample picker and uploader; keeps the last good table."""
    st.header("Data")
    st.selectbox("Sample data", [s.key for s in SAMPLES], key=AppState.sample.key,
                 format_func=lambda k: BY_KEY[k].title, on_change=use_sample, args=(state,),
                 help="Bundled data sets; sample_data/README.md gives their sources.")
    upload = st.file_uploader("…or upload a table", type=list(tables.UPLOAD_TYPES),
                              key="upload", help=UPLOAD_HELP)
    if upload is not None and state.upload_id != upload.file_id:
        state.upload_id = upload.file_id  # read each upload once, not per rerun
        raw = upload.getvalue()
        try:
            table = tables.read_table(raw, upload.name)
        except tables.DataError as exc:
            state.upload_error = str(exc)
        else:
            state.upload_error = None
            apply_presets(state, {})  # the sample's presets nobody changed end with it
            set_data(state, Data(upload.name, tables.digest(raw), table.frame, table.notes,
                                 tables.column_flags(table.frame)), target=None)
    if upload is not None and state.upload_error:
        st.error(state.upload_error + " The previous data stay loaded.")


def ensure_data(state: AppState) -> None:
    """The first run opens the link's sample (or the first one)."""
    if state.data is None:
        use_sample(state, initial=True)


def use_sample(state: AppState, initial: bool = False) -> None:
    sample = BY_KEY[state.sample]
    digest, frame, notes = read_sample(sample.key)
    target = sample.target
    if initial and state.link.target in frame.columns:
        target = state.link.target
    apply_presets(state, sample.params, keep=state.link.given if initial else ())
    set_data(state, Data(sample.title, digest, frame, notes, tables.column_flags(frame)),
             target=target)


def apply_presets(state: AppState, presets: dict, keep=()) -> None:
    """The parameters a sample opens with. The previous sample's presets that nobody changed
    go back to their defaults; ``keep``: parameters a shared link set, left as they are."""
    for name, value in state.presets.items():
        if state.param(name) == value and name not in presets:
            state.set_param(name, url.widget_default(BY_NAME[name]))
    for name, value in presets.items():
        if name not in keep:
            state.set_param(name, value)
    state.presets = dict(presets)


def set_data(state: AppState, data: Data, target: str | None) -> None:
    """New data: reset the column choices *before* their widgets are drawn."""
    state.data = data
    columns = list(data.frame.columns)
    state.target = target if target in columns else tables.default_target(data.frame)
    weight, state.link.weight = state.link.weight, None  # a shared link's weight, once
    state.weight = weight if weight in columns and weight != state.target else NO_WEIGHT
    state.features = default_features(state)
    state.config = None
    state.stop_playing()
    state.opened = None  # new data to train on closes an opened model file


def default_features(state: AppState) -> list[str]:
    """Every column but the target (and weights) and the flagged ones; if that leaves
    nothing, every column that has values."""
    frame, flags = state.data.frame, state.data.flags
    target_like = (state.target, state.weight)
    chosen = [c for c in frame.columns if c not in target_like and c not in flags]
    if not chosen:
        chosen = [c for c in frame.columns
                  if c not in target_like and flags.get(c) != "all values missing"]
    return chosen


def columns_ui(state: AppState) -> None:
    data = state.data
    frame, columns = data.frame, list(data.frame.columns)
    st.caption(f"**{data.name}**: {len(frame):,} rows × {len(columns)} columns. "
               + " ".join(data.notes))
    st.selectbox("Target (what to predict)", columns, key=AppState.target.key,
                 on_change=_target_changed, args=(state,))
    numeric = [c for c in columns if c != state.target
               and pd.api.types.is_numeric_dtype(frame[c])]
    if state.weight not in [NO_WEIGHT, *numeric]:
        state.weight = NO_WEIGHT
    st.multiselect("Features", [c for c in columns if c not in (state.target, state.weight)],
                   key=AppState.features.key)
    st.selectbox("Sample weights (optional)", [NO_WEIGHT, *numeric], key=AppState.weight.key,
                 format_func=lambda c: c or "none: every row counts once",
                 on_change=_weight_changed, args=(state,), help=WEIGHT_HELP)
    for column, why in data.flags.items():
        if column != state.target:
            left_out = column not in state.features
            st.caption(f":material/warning: `{column}`: {why}"
                       + (" — left out by default." if left_out else "."))
    st.selectbox("Task", url.TASK_CHOICES, key=AppState.task.key, help=TASK_HELP,
                 format_func=lambda t: url.TASK_LABELS.get(t, t))
    options = objectives_for(resolved_task(state))
    if state.objective not in options:
        state.objective = options[0]
    st.selectbox("Objective", options, key=AppState.objective.key,
                 help=BY_NAME["objective"].help,
                 format_func=lambda o: o + (" (default)" if o == options[0] else ""))


def resolved_task(state: AppState) -> str | None:
    """The task the data will be trained as: the choice, or the one read from the target."""
    if state.task != "auto":
        return state.task
    return inferred_task(state.data.digest, state.target, state.data.frame)


@st.cache_data(max_entries=32, show_spinner=False)
def inferred_task(digest: str, target: str, _frame: pd.DataFrame) -> str | None:
    column = _frame[target]
    if column.isna().all() or column.nunique() < 2:
        return None  # training will say what is wrong with the target
    return tables.infer_task(column.dropna())


def _weight_changed(state: AppState) -> None:
    state.features = [f for f in state.features if f != state.weight]


def _target_changed(state: AppState) -> None:
    state.features = default_features(state)


# --------------------------------------------------------------------------- parameters
def param_widget(state: AppState, p: Param) -> None:
    """The widget of one parameter, as its record says."""
    key, label = state.param_key(p.name), p.title
    if p.widget == "choice":
        st.segmented_control(label, p.choices, key=key, format_func=p.choice_label,
                             help=p.help)
    elif p.widget == "text":
        st.text_input(label, key=key, placeholder="estimated from the data", help=p.help)
    else:
        lo, hi = p.app_range
        make = st.slider if p.widget == "slider" else st.number_input
        make(label, p.kind(lo), p.kind(hi), key=key, step=p.kind(p.step), help=p.help)


def params_ui(state: AppState, live: bool) -> bool:
    """The parameters (only those the chosen objective uses); returns True when Train was
    pressed. ``live``: the data is small enough that every change retrains at once, so
    there is no Train button."""
    shown = [p for p in url.APP_PARAMS if p.applies(state.objective)]
    st.header("Parameters")
    if live:
        st.caption(f":material/bolt: **Live**: every change retrains and redraws at once "
                   f"(data up to {training.live_text()}).")
    for p in shown:
        if p.section == "main":
            param_widget(state, p)
    with st.expander("Sampling and early stopping"):
        for p in shown:
            if p.section == "sampling":
                param_widget(state, p)
    if live:
        return False
    st.caption(f":material/schedule: Data over {training.live_text()}: changes apply when "
               "you press **Train**.")
    return st.button("Train", key="train", type="primary", use_container_width=True)
