"""The sidebar: the data (a sample or an upload, target, features, weights, task, objective)
and the parameters, whose widgets are made from ``boost.params.PARAMETERS`` (live on small
data, applied by a Train button on larger data). Owns ``Inputs``, the session's part that
says what to train on and with: other modules read it, or change it through the functions
here and the part's methods."""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd
import streamlit as st

from boost.objectives import OBJECTIVES as OBJECTIVE_SPECS
from boost.params import APP_PARAMS, BY_NAME, Param

from . import tables, training, url
from .samples import BY_KEY, SAMPLES
from .state import AppState, Data, Inputs, param_key
from .tables.numbers import STYLES

NO_QUERY = ""  # the query column choice "none": not ranking
NO_WEIGHT = ""  # the weight choice "none" (a selectbox shows None as no choice at all)
WEIGHT_HELP = ("A column of sample weights (numbers >= 0): every g and h of a row is "
               "multiplied by its weight, so it counts that many times in G, H and the loss.")
UPLOAD_HELP = ("CSV: comma, semicolon, tab or | separated; UTF-8, UTF-16 or Windows-1252; with "
               "or without a header row. Parquet. Excel (.xlsx): the first visible sheet with "
               "data; formulas give their saved values, never calculated.")
QUERY_HELP = ("Learning to rank: a column saying which query (search, user, list) each row "
              "belongs to. The target is then each row's relevance (0, 1, 2, ...), the "
              "objectives are rank:ndcg, rank:map and rank:pairwise, and the rows are sorted by "
              "query (a query's rows keep their order), as XGBoost's qid needs. The query "
              "column is not a feature.")
TASK_HELP = ("What the target is: inferred from the column, or chosen here. It decides which "
             "objectives (losses) fit.")


class Columns(NamedTuple):
    """The column choices: what ``columns_ui`` returns."""

    target: str
    features: list
    weight: str
    task: str
    objective: str


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


FOLD_FEATURES = 8  # more columns than this: the feature choice folds into an expander


def data_ui(app: AppState) -> Data | None:
    """Sample picker and uploader; keeps the last good table, which it returns."""
    inputs = app.inputs
    st.header("Data")
    st.selectbox("Sample data", [s.key for s in SAMPLES], key=Inputs.sample.key,
                 format_func=lambda k: BY_KEY[k].title, on_change=use_sample, args=(app,),
                 placeholder=f"{inputs.data.name} (your upload)" if inputs.data else None,
                 help="Bundled data sets; sample_data/README.md gives their sources.")
    upload = st.file_uploader("…or upload a table", type=list(tables.UPLOAD_TYPES),
                              key="upload", help=UPLOAD_HELP, on_change=read_upload, args=(app,))
    if upload is not None and inputs.upload.error:
        st.error(inputs.upload.error + " The previous data stay loaded.")
    return inputs.data


def _numbers_chosen(app: AppState) -> None:
    read_upload(app, app.inputs.numbers)


def read_upload(app: AppState, numbers: str | None = None) -> None:
    """Read the uploader's file (before the widgets are drawn: a callback), or read it again
    with the decimal mark ``numbers`` the user chose, keeping the column choices."""
    inputs = app.inputs
    data = inputs.upload.read(st.session_state.get("upload"), numbers=numbers)
    if data is None:
        return
    if numbers is not None:  # the same columns: the user's choices of them stay
        set_data(app, data, target=inputs.target, keep=True)
    else:
        apply_presets(app, {})  # the sample's presets nobody changed end with it
        set_data(app, data, target=None)
        inputs.sample = None  # the data are the upload's: no sample is on screen
    inputs.numbers = data.numbers.style if data.numbers and data.numbers.choice else None


def ensure_data(app: AppState) -> None:
    """The first run opens the link's sample (or the first one)."""
    if app.inputs.data is None:
        use_sample(app, initial=True)


def use_sample(app: AppState, initial: bool = False) -> None:
    if app.inputs.sample is None:  # (the choice cleared: the data on screen stay)
        return
    sample = BY_KEY[app.inputs.sample]
    digest, frame, notes = read_sample(sample.key)
    target = sample.target
    if initial and app.link.target in frame.columns:
        target = app.link.target
    apply_presets(app, sample.params, keep=app.link.given if initial else ())
    set_data(app, Data(sample.title, digest, frame, notes, tables.column_flags(frame)),
             target=target, query=sample.query)


def open_sample(app: AppState, key: str) -> None:
    """Open the bundled sample ``key`` (a lesson's)."""
    app.inputs.sample = key
    use_sample(app)


def apply_presets(app: AppState, presets: dict, keep=()) -> None:
    """The parameters a sample opens with. The previous sample's presets that nobody changed
    go back to their defaults; ``keep``: parameters a shared link set, left as they are."""
    inputs = app.inputs
    for name, value in inputs.presets.items():
        if inputs.param(name) == value and name not in presets:
            inputs.set_param(name, url.widget_default(BY_NAME[name]))
    for name, value in presets.items():
        if name not in keep:
            inputs.set_param(name, value)
    inputs.presets = dict(presets)


def set_data(app: AppState, data: Data, target: str | None, keep: bool = False,
             query: str = "") -> None:
    """New data: reset the column choices *before* their widgets are drawn (``keep``: the
    same table read again, its column choices kept where they still apply; ``query``: a
    ranking sample's query column)."""
    inputs = app.inputs
    features, weight = list(inputs.features), inputs.weight
    query = inputs.query if keep else query
    inputs.data = data
    columns = list(data.frame.columns)
    if not keep:  # a shared link's query column, once (query=none: no query column)
        linked = app.link.take_query()
        if linked == url.NO_QUERY_LINK and linked not in columns:
            query = NO_QUERY
        elif linked in columns:  # (a column the table does not have: the sample's own)
            query = linked
    inputs.target = target if target in columns else tables.default_target(data.frame)
    inputs.query = query if query in columns and query != inputs.target else NO_QUERY
    if not keep:
        weight = app.link.take_weight()  # a shared link's weight, once
    inputs.weight = weight if weight in columns and weight != inputs.target else NO_WEIGHT
    kept = [c for c in features
            if c in columns and c not in (inputs.target, inputs.weight, inputs.query)]
    inputs.features = kept if keep and kept else default_features(inputs)
    app.model.forget()
    app.opened.drop()  # new data to train on closes an opened model file


def set_columns(app: AppState, target: str, features: list | None, task: str,
                objective: str) -> None:
    """Column choices set for the user (a lesson's step): no weights; ``features`` None:
    the default ones; ``objective`` "auto": the task's default."""
    inputs = app.inputs
    inputs.target, inputs.weight, inputs.task = target, NO_WEIGHT, task
    if inputs.query == target:
        inputs.query = NO_QUERY
    inputs.features = list(features or default_features(inputs))
    inputs.objective = (objective if objective != "auto"
                        else objectives_for(resolved_task(inputs))[0])


def default_features(inputs: Inputs) -> list[str]:
    """Every column but the target (and weights) and the flagged ones; if that leaves
    nothing, every column that has values."""
    return feature_columns(inputs.data.frame, inputs.data.flags, inputs.target, inputs.weight,
                           inputs.query)


def feature_columns(frame: pd.DataFrame, flags: dict, target: str, weight: str = NO_WEIGHT,
                    query: str = NO_QUERY) -> list[str]:
    """``default_features`` of a table (``flags``: ``tables.column_flags``), without the
    session (the offline lecture's command line, ``ui/lecture.py``)."""
    target_like = (target, weight, query)
    chosen = [c for c in frame.columns if c not in target_like and c not in flags]
    if not chosen:
        chosen = [c for c in frame.columns
                  if c not in target_like and flags.get(c) != "all values missing"]
    return chosen


def columns_ui(app: AppState) -> Columns:
    """Target, features, weights, task and objective; returns the choices."""
    inputs = app.inputs
    data = inputs.data
    frame, columns = data.frame, list(data.frame.columns)
    st.caption(f"**{data.name}**: {len(frame):,} rows × {len(columns)} columns. "
               + " ".join(data.notes))
    if data.numbers is not None and data.numbers.choice:
        either = data.numbers.either
        st.selectbox("Numbers", list(STYLES), key=Inputs.numbers.key,
                     format_func=STYLES.get, on_change=_numbers_chosen, args=(app,),
                     help="How the file writes its numbers: 1,234.5 or 1.234,5 (most of "
                          "Europe). Read from the file; change it if its numbers came out "
                          "wrong" + (f" — the columns it changes: {', '.join(either[:8])}"
                                     + (" …" if len(either) > 8 else "") if either else "")
                          + ".")
    st.selectbox("Target (what to predict)", columns, key=Inputs.target.key,
                 on_change=_target_changed, args=(inputs,))
    numeric = [c for c in columns if c != inputs.target
               and pd.api.types.is_numeric_dtype(frame[c])]
    if inputs.weight not in [NO_WEIGHT, *numeric]:
        inputs.weight = NO_WEIGHT
    if inputs.query not in columns or inputs.query == inputs.target:
        inputs.query = NO_QUERY
    options = [c for c in columns if c not in (inputs.target, inputs.weight, inputs.query)]
    if len(options) > FOLD_FEATURES:  # thirty chips would push the parameters out of reach
        # (a label that stays: a changed one is a new expander, closed under the pointer)
        with st.expander(f"Features (of {len(options)} columns)"):
            st.multiselect("Features", options, key=Inputs.features.key)
    else:
        st.multiselect("Features", options, key=Inputs.features.key)
    st.selectbox("Sample weights (optional)", [NO_WEIGHT, *numeric], key=Inputs.weight.key,
                 format_func=lambda c: c or "none: every row counts once",
                 on_change=_weight_changed, args=(inputs,), help=WEIGHT_HELP)
    st.selectbox("Query column (learning to rank)",
                 [NO_QUERY, *[c for c in columns if c != inputs.target]],
                 key=Inputs.query.key, format_func=lambda c: c or "none: rows stand alone",
                 on_change=_query_changed, args=(inputs,), help=QUERY_HELP)
    for column, why in data.flags.items():
        if column != inputs.target:
            left_out = column not in inputs.features
            st.caption(f":material/warning: `{column}`: {why}"
                       + (" — left out by default." if left_out else "."))
    if inputs.query:
        st.caption(f"Task: **ranking** — the rows are grouped by `{inputs.query}`.")
    else:
        st.selectbox("Task", url.TASK_CHOICES, key=Inputs.task.key, help=TASK_HELP,
                     format_func=lambda t: url.TASK_LABELS.get(t, t))
    options = objectives_for(resolved_task(inputs))
    if inputs.objective not in options:
        inputs.objective = options[0]
    st.selectbox("Objective", options, key=Inputs.objective.key,
                 help=BY_NAME["objective"].help,
                 format_func=lambda o: o + (" (default)" if o == options[0] else ""))
    return Columns(inputs.target, list(inputs.features), inputs.weight, inputs.task,
                   inputs.objective)


def resolved_task(inputs: Inputs) -> str | None:
    """The task the data will be trained as: ranking with a query column, else the choice,
    or the one read from the target."""
    if inputs.query:
        return "ranking"
    if inputs.task != "auto":
        return inputs.task
    return inferred_task(inputs.data.digest, inputs.target, inputs.data.frame)


@st.cache_data(max_entries=32, show_spinner=False)
def inferred_task(digest: str, target: str, _frame: pd.DataFrame) -> str | None:
    column = _frame[target]
    if column.isna().all() or column.nunique() < 2:
        return None  # training will say what is wrong with the target
    return tables.infer_task(column.dropna())


def _weight_changed(inputs: Inputs) -> None:
    inputs.features = [f for f in inputs.features if f != inputs.weight]


def _target_changed(inputs: Inputs) -> None:
    if inputs.query == inputs.target:
        inputs.query = NO_QUERY
    inputs.features = default_features(inputs)


def _query_changed(inputs: Inputs) -> None:
    inputs.features = [f for f in inputs.features if f != inputs.query] or default_features(inputs)


# --------------------------------------------------------------------------- parameters
def param_widget(p: Param) -> None:
    """The widget of one parameter, as its record says."""
    key, label = param_key(p.name), p.title
    if p.widget == "choice":
        st.segmented_control(label, p.choices, key=key, format_func=p.choice_label,
                             help=p.help)
    elif p.widget == "text":
        st.text_input(label, key=key, placeholder="estimated from the data", help=p.help)
    elif p.widget == "list":
        st.text_input(label, key=key, placeholder=f"e.g. {p.start}", help=p.help)
    else:
        lo, hi = p.app_range
        make = st.slider if p.widget == "slider" else st.number_input
        make(label, p.kind(lo), p.kind(hi), key=key, step=p.kind(p.step), help=p.help)


def params_ui(app: AppState, live: bool) -> tuple[dict, bool]:
    """The parameters (only those the chosen objective uses); returns every parameter's
    value and whether Train was pressed. ``live``: the data is small enough that every
    change retrains at once, so there is no Train button."""
    shown = [p for p in APP_PARAMS if p.applies(app.inputs.objective)]
    st.header("Parameters")
    seconds = training.live_estimate(app)
    if live:
        st.caption(":material/bolt: **Live**: every change retrains at once"
                   + ("" if seconds is None else "; " + training.live_text(seconds)) + ".")
    for p in shown:
        if p.section == "main":
            param_widget(p)
    with st.expander("Sampling and early stopping"):
        for p in shown:
            if p.section == "sampling":
                param_widget(p)
    if live:
        return app.inputs.params(), False
    st.caption(":material/schedule: Changes apply when you press **Train**: "
               + training.live_text(seconds) + ".")
    pressed = st.button("Train", key="train", type="primary", use_container_width=True)
    return app.inputs.params(), pressed
