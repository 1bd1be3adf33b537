"""BoostScope in a Jupyter notebook: ``show(model, X, y)`` returns a widget (anywidget) that
hosts the page's player (``viz/js/player.js``, through ``viz/js/notebook_host.js``) for a
BoostScope ``Booster``, an XGBoost ``Booster`` or an XGBoost scikit-learn model, on the data
given (docs/notebook.md)::

    from ui.notebook import show
    w = show(model, X, y)            # the last cell's value: the stage, inline
    w.round, w.node                  # where the page rests (set by the page, at rest)
    w.goto(3, node=1)                # move it
    w.save_html("lecture.html")      # the offline file of what it shows

The page steps, scrubs and plays by itself; it tells the kernel only the round (and node)
it rests on. A node's record (``ui.nodes.page_node``, as the app's node route answers) and
Plotly.js (from the plotly package) go to the page as the widget's own messages: no server
but the kernel. Streamlit-free: a notebook imports nothing of the app's screen.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.offline

import boost
from viz.export import offline_html
from viz.page_js import JS_DIR, loader
from viz.round_trace import round_trace
from viz.theme import sample_rows

from .nodes import model_records, page_chart, page_node

try:  # the widget's one extra requirement (pyproject.toml), and what it brings
    import anywidget
    import traitlets
except ModuleNotFoundError as missing:
    if missing.name not in ("anywidget", "traitlets"):  # anywidget there, a part of it not
        raise
    raise ModuleNotFoundError(
        "ui.notebook needs anywidget, the widget's extra requirement, which is not installed "
        "here: install BoostScope with its notebook extra, `python -m pip install "
        "\".[notebook]\"` in a BoostScope checkout (docs/notebook.md, \"Installing\")",
        name="anywidget") from missing

# anywidget's ES module: notebook_host.js with every module it imports, made ES modules in
# the page (viz.page_js.loader): no build step, no request
ESM = loader(JS_DIR / "notebook_host.js")
# the XGBoost parameters a model's candidates are recomputed with (boost.params.SEARCH), as
# XGBoost's saved configuration holds them
_CONFIG_SEARCH = ("lambda", "alpha", "min_child_weight", "max_delta_step", "max_bin")


class ShowError(ValueError):
    """What ``show`` cannot show, in a sentence that says how to fix it."""


# ----------------------------------------------------------------------------- the model
def _xgboost_booster(model):
    """An XGBoost Booster of ``model`` (an XGBoost Booster or scikit-learn model), else
    None; xgboost is imported only if the caller has imported it."""
    xgb = sys.modules.get("xgboost")
    if xgb is None:
        return None
    if isinstance(model, xgb.Booster):
        return model
    if isinstance(model, xgb.XGBModel):
        try:
            return model.get_booster()
        except Exception:  # XGBoost's NotFittedError
            raise ShowError(f"This {type(model).__name__} is not fitted yet: call "
                            "model.fit(X, y) first, then show(model, X, y).") from None
    return None


def _search_params(bst) -> dict:
    """The split search's parameters of an XGBoost Booster (its saved configuration): the
    candidates of a node are recomputed with the model's own tree_method, lambda, ..."""
    gb = json.loads(bst.save_config())["learner"]["gradient_booster"]
    train = gb.get("tree_train_param", {})
    method = gb.get("gbtree_train_param", {}).get("tree_method", "hist")
    out = {"tree_method": "hist" if method == "auto" else method}
    for name in _CONFIG_SEARCH:
        if name in train:
            out[name] = int(float(train[name])) if name == "max_bin" else float(train[name])
    return out


def read_model(model) -> tuple[boost.Booster, dict | None, str]:
    """(the BoostScope Booster of ``model``, the search parameters of an XGBoost model, where
    it came from). An XGBoost model is read through ``boost.load_model`` from the bytes its
    Booster saves (UBJSON): the same trees, predicting XGBoost's margins bit for bit."""
    if isinstance(model, boost.Booster):
        return model, None, "BoostScope"
    bst = _xgboost_booster(model)
    if bst is None:
        raise ShowError(f"show() takes a BoostScope Booster (boost.train), an xgboost.Booster "
                        f"or an XGBoost scikit-learn model (XGBRegressor, XGBClassifier, ...), "
                        f"not {type(model).__module__}.{type(model).__name__}.")
    try:
        loaded = boost.load_model(bytes(bst.save_raw("ubj")))
    except ValueError as exc:
        raise ShowError(f"BoostScope cannot show this XGBoost model: {exc}") from None
    return loaded, _search_params(bst), "XGBoost"


def _features(booster: boost.Booster, X) -> pd.DataFrame:
    """The model's features of ``X`` (a DataFrame by column name, extra columns ignored; an
    array, or a DataFrame for a model trained on an array, by position), named as in the
    model; float."""
    names = list(booster.feature_names)
    unnamed = names == [f"f{i}" for i in range(len(names))]
    if isinstance(X, pd.DataFrame) and not (unnamed and not set(names) <= set(X.columns)):
        absent = [str(n) for n in names if n not in X.columns]
        if absent:
            listed = ", ".join(absent[:8]) + (", …" if len(absent) > 8 else "")
            raise ShowError(f"X lacks the model's feature(s) {listed}: give a DataFrame with a "
                            f"column for each of the model's {len(names)} features, named as "
                            f"in the model ({', '.join(map(str, names[:12]))}"
                            f"{', …' if len(names) > 12 else ''}).")
        X = X[names]
    else:
        if isinstance(X, pd.DataFrame):
            X = X.to_numpy()
        X = np.asarray(X)
        if X.ndim != 2:
            raise ShowError(f"X must be a table (rows × features): it has {X.ndim} "
                            "dimension(s).")
        if X.shape[1] != len(names):
            raise ShowError(f"X has {X.shape[1]} column(s); the model has {len(names)} "
                            f"features ({', '.join(map(str, names[:12]))}"
                            f"{', …' if len(names) > 12 else ''}): give one column per "
                            "feature, in the model's order.")
        X = pd.DataFrame(X, columns=names)
    bad = [str(c) for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    if bad:
        raise ShowError(f"X's column(s) {', '.join(bad[:8])} hold text; the model reads "
                        "numbers (encode them as the model was trained).")
    if len(X) == 0:
        raise ShowError("X has no rows; give at least one row.")
    return X.astype(float)


def _trained_on(booster: boost.Booster, X: pd.DataFrame, y) -> bool:
    """Whether ``X``, ``y`` are the rows a ``boost.train`` model was trained on (its training
    trace, with each node's worked arithmetic, is then what is shown)."""
    d = booster.data
    if booster.source is not None or booster.on_sample or d is None or d.y is None:
        return False
    if len(X) != d.n_samples:
        return False
    if y is not None and not np.array_equal(np.asarray(y, dtype=np.float32).ravel(), d.y,
                                            equal_nan=True):
        return False
    if d.X is not None:
        return np.array_equal(X.to_numpy(np.float32), d.X, equal_nan=True)
    try:  # hist keeps bin codes: the values must fall in the bins it was trained on
        for f in range(booster.num_features):
            booster.feature_values(f, X)
    except ValueError:
        return False
    return True


def _on(booster, X, y, params, what: str) -> boost.Booster:
    try:
        return booster.with_data(X, y, params=params)
    except ValueError as exc:
        raise ShowError(f"{what} does not fit the model: {exc}") from None


def model_on_data(model, X, y=None, evals=None):
    """(the Booster whose trace is shown, its features of X as a DataFrame, the loss
    history with the evaluation sets' columns or None, where the model came from)."""
    booster, params, origin = read_model(model)
    if booster.num_boosted_rounds() == 0:
        raise ShowError("This model has no trees (0 boosting rounds): train it for at least one "
                        "round.")
    Xf = _features(booster, X)
    if y is not None and len(np.asarray(y).ravel()) != len(Xf):
        raise ShowError(f"y has {len(np.asarray(y).ravel())} values and X {len(Xf)} rows: give "
                        "one label per row.")
    shown = booster if _trained_on(booster, Xf, y) else _on(booster, Xf, y, params, "The data")
    history = shown.loss_history() if shown.data.y is not None else None
    if history is not None and history.columns.empty:  # trained without evals: X, y's loss
        history = _on(booster, Xf, y, params, "The data").loss_history().rename(
            columns={"sample": "train"})
    for i, ev in enumerate(evals or ()):
        if not isinstance(ev, (tuple, list)) or len(ev) != 3:
            raise ShowError(f"evals[{i}] must be a tuple (X, y, name), as boost.train's evals.")
        Xe, ye, name = ev
        if history is None:
            raise ShowError("evals need y: without the labels of X there is no loss to "
                            "compare them with.")
        if name in history.columns:
            raise ShowError(f"evals[{i}]'s name {name!r} is taken ({', '.join(history.columns)}): "
                            "give another.")
        on = _on(booster, _features(booster, Xe), ye, params, f"evals[{i}] ({name!r})")
        history[str(name)] = on.loss_history()["sample"].to_numpy()
    return shown, Xf, history, origin


def model_trace(booster: boost.Booster, X: pd.DataFrame, history: pd.DataFrame | None,
                klass: int, key: str, round_idx: int, node: int | None, token: int) -> dict:
    """The round trace of ``booster`` on its rows ``X`` (docs/player.md): fit, loss and tree,
    every round, the page's own type (not the projector's)."""
    y = booster.data.y if booster.data.y is not None else np.full(len(X), np.nan)
    classes = booster.num_groups
    data = booster.trace.rounds(X.to_numpy(float), y, sample_rows(len(X)), klass)
    best = None if booster.best_iteration is None else booster.best_iteration + 1
    return round_trace(data, history, booster.metric_name,
                       [str(k) for k in range(classes)] if classes > 1 else [],
                       booster.params, model_key=key, round_idx=round_idx, node=node,
                       token=token, best_round=best,
                       missing_features=frozenset(str(c) for c in X.columns[X.isna().any()]))


# ----------------------------------------------------------------------------- the widget
class Stage(anywidget.AnyWidget):
    """The page's player in a notebook. ``round`` and ``node``: where the page rests (the
    page sets them ~300 ms after the last step, scrub, Play tick or node click; nothing is
    sent while it steps or plays). ``goto(round, node)`` moves it; ``save_html(path)``
    writes the offline file of what it shows. ``booster``: the model shown (a BoostScope
    Booster; an XGBoost model's as read, on the data given)."""

    _esm = ESM
    _trace = traitlets.Unicode("").tag(sync=True)
    _goto = traitlets.Dict().tag(sync=True)
    round = traitlets.Int(0).tag(sync=True)
    node = traitlets.Int(None, allow_none=True).tag(sync=True)

    def __init__(self, booster: boost.Booster, X: pd.DataFrame, history, klass: int,
                 origin: str, round_idx: int, node: int | None):
        self.booster, self.X, self.klass, self.origin = booster, X, klass, origin
        self._history = history
        self._token = 1
        trace = model_trace(booster, X, history, klass, f"nb{id(self):x}", round_idx, node,
                            self._token)
        self._trace_dict = trace
        super().__init__(_trace=json.dumps({k: v for k, v in trace.items() if k != "goto"}),
                         _goto=trace["goto"], round=round_idx, node=node)
        self.on_msg(self._answer)

    @property
    def rounds(self) -> int:
        return self.booster.num_boosted_rounds()

    def _nodes(self, r: int) -> list[int]:
        trees = self.booster.trace.trees()
        return sorted(int(n) for n in trees.Node[(trees.Round == r) & (trees.Class == self.klass)])

    def goto(self, round: int, node: int | None = None) -> None:  # noqa: A002 (the page's word)
        """Move the page to ``round`` (0 .. rounds), with ``node`` of its tree selected."""
        n = self.rounds
        if isinstance(round, bool) or not isinstance(round, (int, np.integer)) \
                or not 0 <= round <= n:
            raise ShowError(f"round must be a whole number from 0 to {n}, not {round!r}.")
        if node is not None:
            nodes = self._nodes(int(round))
            if isinstance(node, bool) or not isinstance(node, (int, np.integer)) \
                    or int(node) not in nodes:
                raise ShowError(f"node {node!r} is not a node of round {round}'s tree"
                                + (f" (its nodes are 0 to {max(nodes)})." if nodes
                                   else ": round 0 is the baseline, with no tree."))
            node = int(node)
        self._token += 1
        self._goto = {"round": int(round), "node": node, "token": self._token}
        self.round, self.node = int(round), node

    def html(self, title: str | None = None) -> str:
        """The offline file of what the widget shows (viz.export.offline_html): every round,
        the records of its nodes up to ``ui.nodes.BUDGET``, at the round and node the page
        rests on."""
        records = model_records(self.booster, self.X, self.klass)
        trace = {**self._trace_dict, "fill": True, "records": records,
                 "goto": {"round": int(self.round), "node": self.node, "token": 0}}
        return offline_html(trace, title or f"BoostScope: {self.origin} model")

    def save_html(self, path, title: str | None = None) -> Path:
        """Write ``html()`` to ``path`` (one file: it opens from disk with no server and no
        network); returns the path."""
        path = Path(path)
        path.write_text(self.html(title), encoding="utf-8")
        return path

    # the page's questions: a node's record, one feature's chart, Plotly.js
    def _answer(self, _widget, content, _buffers) -> None:
        if not isinstance(content, dict) or "id" not in content:
            return
        kind, ask_id = content.get("kind"), content["id"]
        try:
            if kind == "plotly":
                self.send({"kind": kind, "id": ask_id},
                          buffers=[plotly.offline.get_plotlyjs().encode()])
                return
            r, node = int(content["round"]), int(content["node"])
            if not 1 <= r <= self.rounds:
                raise ValueError(f"round {r} is not a round with a tree: this model has rounds "
                                 f"1 to {self.rounds}")
            feature = content.get("feature")
            if kind == "node":
                answer = {"record": {**page_node(self.booster, self.X, r, node, self.klass,
                                                 feature), "csv": False}}
            elif kind == "chart":
                answer = {"chart": {"round": r, "node": node, "class": self.klass,
                                    "feature": feature,
                                    "chart": page_chart(self.booster, r, node, self.klass,
                                                        feature)}}
            else:
                raise ValueError(f"unknown question {kind!r}")
        except Exception as exc:  # the page shows the sentence, never a traceback
            answer = {"error": str(exc) or type(exc).__name__}
        self.send({"kind": kind, "id": ask_id, **answer})

    def __repr__(self) -> str:
        return (f"<BoostScope stage: {self.origin} model, {self.rounds} rounds, "
                f"{len(self.X)} rows; round {self.round}, node {self.node}>")


def show(model, X, y=None, *, evals=None, round: int | None = None,  # noqa: A002
         class_idx: int = 0) -> Stage:
    """The stage of ``model`` on ``X`` (and ``y``) in the notebook: fit, loss curves and
    tree of every round, stepped, scrubbed and played in the page; a node clicked shows its
    details. ``model``: a BoostScope ``Booster``, an ``xgboost.Booster`` or an XGBoost
    scikit-learn model. ``X``: a DataFrame with the model's features by name (or an array,
    one column per feature in order); ``y`` its labels (without them: the trees and
    predictions, no fit or loss). ``evals``: ``[(X, y, name), ...]``, more loss curves.
    ``round``: where the stage starts (default: the last round). ``class_idx``: a
    multi-class model's class whose trees are drawn.

    A BoostScope model shown on the rows it was trained on shows its training trace; any
    other model or data is shown on the data given (``Booster.with_data``: the trees keep
    their own gain and cover, the rows' G, H and candidates are recomputed on X). Raises
    ShowError (a ValueError) for what cannot be shown, saying why."""
    booster, Xf, history, origin = model_on_data(model, X, y, evals)
    n = booster.num_boosted_rounds()
    if isinstance(class_idx, bool) or not isinstance(class_idx, (int, np.integer)) \
            or not 0 <= class_idx < booster.num_groups:
        raise ShowError(f"class_idx must be a class of this model, 0 to "
                        f"{booster.num_groups - 1}, not {class_idx!r}.")
    r = n if round is None else round
    if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or not 0 <= r <= n:
        raise ShowError(f"round must be a whole number from 0 to {n}, not {round!r}.")
    return Stage(booster, Xf, history, int(class_idx), origin, int(r), None)
