"""An XGBoost model opened from its file and stepped through on a data sample.

The model file (what XGBoost's ``save_model`` writes, ``.json`` or ``.ubj``) is read by
``boost.load_model``; the sample (a table read like any upload, with a column per model
feature and optionally the target) is attached with ``Booster.with_data``: the trees keep
the model's own gain and cover, and the round views, gradients, the sample's loss and the
candidate splits are recomputed on the sample. Opened once per (model digest, sample digest,
target, tree method); a bad file or a sample without the model's features gets a message
saying what is wrong and the previous model stays on screen. Owns ``Opening``, the session's
part holding the opened model file and the sample it is stepped through on.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import boost
from boost.objectives import OBJECTIVES
from boost.params import BY_NAME

from . import tables
from .state import AppState, Data, Model, Opened, Opening

OPENED = "opened"  # the config key that marks an opened model file

METHODS = BY_NAME["tree_method"].choices  # what the candidates are recomputed with
MODEL_TYPES = ["json", "ubj"]
NOTE = ("candidate splits recomputed on the sample: the trees show the model's own gain and "
        "cover (from its training rows); G, H, residuals, gradients and every candidate's gain "
        "are the sample's")


class OpenError(ValueError):
    pass


def _features(booster, frame: pd.DataFrame, target: str) -> list[str]:
    """The sample's columns for the model's features: by name; for a model trained on an
    array (features f0, f1, ...), the sample's other columns in order."""
    names = booster.feature_names
    if all(n in frame.columns for n in names):
        return list(names)
    others = [c for c in frame.columns if c != target]
    unnamed = names == [f"f{i}" for i in range(len(names))]
    if unnamed and len(others) == len(names):
        return others
    absent = [str(n) for n in names if n not in frame.columns]
    listed = ", ".join(absent[:8]) + (", …" if len(absent) > 8 else "")
    why = (f" A model trained on an array (features f0, f1, …) takes the sample's columns "
           f"other than the target in order: {len(names)} are needed, the sample has "
           f"{len(others)}." if unnamed else
           f" The model's features are {', '.join(map(str, names[:12]))}"
           + (", …" if len(names) > 12 else "") + ".")
    raise OpenError(f"The data sample lacks the model's feature(s) {listed}: it needs a column "
                    f"for each, named as in the model.{why}")


def _numbers(frame: pd.DataFrame, columns: list[str], what: str) -> pd.DataFrame:
    text = [c for c in columns if not pd.api.types.is_numeric_dtype(frame[c])]
    if text:
        raise OpenError(f"The sample's {what} column(s) {', '.join(map(str, text))} hold text; "
                        "an XGBoost model reads numbers (encode them as the model was trained).")
    out = frame[columns].astype(float)
    return out.mask(np.isinf(out))


@st.cache_resource(max_entries=8, show_spinner=False)
def open_cached(key: tuple, _raw: bytes, _frame: pd.DataFrame):
    """(booster with the sample attached, prepared data) once per (model digest, sample
    digest, target, tree method); OpenError saying what is wrong."""
    name, _, _, target, method = key
    try:
        loaded = boost.load_model(_raw)
    except ValueError as exc:
        raise OpenError(str(exc).replace("the model", name, 1)) from None
    features = _features(loaded, _frame, target)
    X = _numbers(_frame, features, "feature")
    X.columns = loaded.feature_names
    notes, y = [], None
    if target:
        y_col = _numbers(_frame, [target], "target")[target]
        keep = y_col.notna().to_numpy()
        if not keep.any():
            raise OpenError(f"The target {target!r} has no values; choose another column or "
                            "none.")
        if not keep.all():
            notes.append(f"Dropped {int((~keep).sum())} row(s) with no value for the target.")
            X = X.loc[keep].reset_index(drop=True)
        y = y_col.to_numpy()[keep]
    try:
        booster = loaded.with_data(X, y, params={"tree_method": method})
    except ValueError as exc:
        raise OpenError(f"The sample does not fit the model: {exc}") from None
    spec = OBJECTIVES[booster.objective]
    n_class = booster.num_groups
    prep = tables.Prepared(
        X_train=X, y_train=np.full(len(X), np.nan) if y is None else y.astype(float),
        X_valid=X.iloc[:0], y_valid=np.empty(0), task=spec.task,
        objective=booster.objective, num_class=n_class,
        class_names=[str(k) for k in range(n_class)] if n_class > 1 else [],
        feature_names=list(X.columns), raw_features=features, notes=notes)
    return booster, prep


def key(opened: Opened) -> tuple:
    return (opened.name, opened.digest, opened.sample.digest, opened.target,
            opened.tree_method)


def config(opened: Opened, booster) -> dict:
    """The opened model's configuration: the cache key of its views, and what they read."""
    return {"name": f"{opened.name} on {opened.sample.name}", "model": opened.digest,
            "digest": opened.sample.digest, "target": opened.target or None,
            "tree_method": opened.tree_method, "boosting": "newton", OPENED: True,
            "objective": booster.objective}


def model(state: AppState) -> Model | None:
    """The opened model on screen (it opened before, so it opens again, from the cache or
    the kept bytes); None, with the reason kept, if it no longer does."""
    opened = state.opened.file
    if opened is None:
        return None
    try:
        booster, prep = open_cached(key(opened), opened.raw, opened.sample.frame)
    except OpenError as exc:
        state.opened.file, state.opened.error = None, str(exc)
        return None
    return Model(booster, prep, config(opened, booster))


def try_open(state: AppState, name: str, raw: bytes, sample: Data, target: str,
             method: str) -> None:
    """Open a model file on a sample: on success it is the model on screen (round 0), else
    ``state.opened.error`` says why and the previous model stays."""
    opened = Opened(name, tables.digest(raw), raw, sample, target, method)
    try:
        with st.spinner("Opening the model…"):
            open_cached(key(opened), raw, sample.frame)
    except OpenError as exc:
        state.opened.error = str(exc)
        return
    state.opened.error = None
    state.opened.file = opened
    state.stage.go_to(0)


def close(state: AppState) -> None:
    """Back to training on the data in the sidebar."""
    state.opened.file = None
    state.stage.go_to(0)


def is_opened(config: dict) -> bool:
    """Whether the model of ``config`` (``Model.config``, ``Shown.config``) is an opened
    XGBoost model file, not a model BoostScope trained."""
    return bool(config.get(OPENED))


def sidebar_ui(state: AppState) -> Opened | None:
    """'Open an XGBoost model': the model file, the data sample, its target, the tree method
    the candidates are recomputed with; Open, and Close when one is open. Returns the model
    file on screen (None: train on the sidebar's data)."""
    # A toggle, not an expander: the uploaders exist only while it is on (an expander's
    # content is on the page even when closed, beside the data's own uploader).
    if state.opened.file is not None:
        state.opened.panel = True
    if not st.toggle("Open an XGBoost model", key=Opening.panel.key,
                     help="Step through a model XGBoost trained (its .json or .ubj file) on "
                          "a data sample."):
        return state.opened.file
    with st.container(border=True):
        st.caption("A model XGBoost saved (`save_model`: .json or .ubj) and a table of rows with "
                   "a column per model feature (named as in the model) and, optionally, the "
                   "target: step through its rounds on the sample.")
        upload = st.file_uploader("XGBoost model file", type=MODEL_TYPES, key="open_model_file")
        sample = st.file_uploader("Data sample (CSV, Parquet or Excel)",
                                  type=list(tables.UPLOAD_TYPES), key="open_sample_file")
        _read_sample(state.opened, sample)
        columns = list(state.opened.sample.frame.columns) if state.opened.sample and sample else []
        if state.opened.target not in ["", *columns]:
            state.opened.target = ""
        st.selectbox("Target in the sample (optional)", ["", *columns],
                     key=Opening.target.key,
                     format_func=lambda c: c or "none: predictions only",
                     help="With the target, the fit, the sample's loss, residuals, gradients "
                          "and candidate splits are shown per round.")
        st.segmented_control("Candidates searched as", METHODS, key=Opening.method.key,
                             help="A model file does not say its tree method; the candidate "
                                  "splits are recomputed on the sample with this one (hist: "
                                  "XGBoost's default).")
        ready = upload is not None and bool(columns)
        if st.button("Open the model", key="open_model", icon=":material/folder_open:",
                     disabled=not ready, type="primary", use_container_width=True):
            try_open(state, upload.name, upload.getvalue(), state.opened.sample,
                     state.opened.target, state.opened.method or Opening.method.default)
        if state.opened.error:
            st.error(state.opened.error + (" The previous model stays on screen."
                                         if state.opened.file else ""))
        if state.opened.file is not None:
            st.button("Close the model (train on the data again)", key="close_model",
                      icon=":material/close:", on_click=close, args=(state,),
                      use_container_width=True)
    return state.opened.file


def _read_sample(opening: Opening, upload) -> None:
    """The sample, read once per upload; a bad one says why (kept in ``error``)."""
    if not opening.reader.is_new(upload):
        return
    sample = opening.reader.read(upload, flags=False)
    opening.error = opening.reader.error
    if sample is not None:
        opening.sample = sample


def panel(model: Model) -> None:
    """Above the stage: what is on screen, and the note that candidates are recomputed."""
    booster = model.booster
    n = booster.data.n_samples
    target = model.config["target"]
    st.info(f"**Opened XGBoost model** {model.config['name']}: {booster.num_boosted_rounds()} "
            f"rounds, objective {booster.objective}, {n:,} sample rows"
            + (f", target `{target}`" if target else ", no target (predictions only)")
            + f". :material/science: **{NOTE.capitalize()}** (searched as "
            f"{model.config['tree_method']}).", icon=":material/folder_open:")
    for note in model.prep.notes:
        st.caption(":material/info: " + note)
