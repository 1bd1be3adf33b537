"""Builds the round trace: everything the page's player (``viz/js/``) needs to draw the fit,
the loss curves and the tree of any round without the server (``docs/player.md``).

Charts are drawn once by the static screens' own functions (``make_fit_figure``,
``make_loss_figure``) at a template round; what changes with the round is given as arrays by
round and patches that put a round's row of them into the figure. Only the tokens ``{r}``,
``{r-1}`` and ``{n}`` of a text template are replaced (``%{x}`` and the like are Plotly's).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping

import numpy as np
import pandas as pd

from boost import objectives
from boost.trace.fit import Fit
from boost.trace.plain import plain
from boost.trace.rounds import (
    KIND_CUT,
    KIND_LEAF,
    KIND_PRUNED_LEAF,
    KIND_PRUNED_SPLIT,
    KIND_REFUSED,
    KIND_SPLIT,
    TREE_COLUMNS,
    RoundsData,
)

from .fit import RESIDUAL_LABEL, alpha_text, make_fit_figure
from .loss import loss_line, make_loss_figure
from .tree import STYLE as TREE_STYLE

VERSION = 1
BUDGET_BYTES = 8 * 2**20  # a trace beyond this holds a window of rounds around the asked one
SPEEDS = (1, 2, 5, 10, 20, 30)  # rounds per second
SPEED = 5
PANELS = ("fit", "loss", "tree")
# The tree track's ``kinds``: a node's ``kind`` code indexes it, and the page reads the names
KINDS = tuple(name for _, name in sorted({
    KIND_SPLIT: "split", KIND_LEAF: "leaf", KIND_CUT: "cut", KIND_REFUSED: "refused",
    KIND_PRUNED_SPLIT: "pruned_split", KIND_PRUNED_LEAF: "pruned_leaf"}.items()))


# ----------------------------------------------------------------------------- encoding
def typed(values: np.ndarray, first: int | None = None) -> dict:
    """A typed array (docs/player.md): dtype, shape and the little-endian bytes in base64;
    ``first``: the round of row 0, for an array by round."""
    a = np.ascontiguousarray(values)
    out = {"dtype": a.dtype.name, "shape": list(a.shape),
           "b64": base64.b64encode(a.astype(a.dtype.newbyteorder("<")).tobytes()).decode()}
    if first is not None:
        out["first"] = int(first)
    return out


def _figure(fig) -> dict:
    js = plain(fig.to_plotly_json())
    return {"data": js["data"], "layout": js["layout"]}


def _get(tree, path: str):
    for key in path.split("."):
        tree = tree[int(key)] if isinstance(tree, list) else tree[key]
    return tree


def _templated(template: dict, zero: dict | None, path: str, old: str, new: str) -> dict:
    """The text at ``path`` of the template round's figure with ``old`` (its round) made
    ``new`` (a token); ``at0``: the text there in round 0's figure, when it differs."""
    text = _get(template, path)
    if old not in text:
        raise ValueError(f"{path}: {old!r} not in {text!r}")
    out = {"path": path, "template": text.replace(old, new)}
    if zero is not None:
        try:
            at0 = _get(zero, path)
        except (KeyError, IndexError):
            return out
        if at0 != out["template"].replace("{r}", "0"):
            out["at0"] = at0
    return out


def _narrow(values: np.ndarray) -> np.ndarray:
    """An int32 column as int16 when every value fits (a tree's ids, depths and features
    nearly always do): the page reads the dtype."""
    if values.dtype != np.int32:
        return values
    small = np.iinfo(np.int16)
    fits = len(values) == 0 or small.min <= values.min() and values.max() <= small.max
    return values.astype(np.int16) if fits else values


# ----------------------------------------------------------------------------- the window
def _round_bytes(data: RoundsData) -> float:
    """Bytes of one round in the trace (base64 is 4/3 of the bytes)."""
    per = sum(a[0].nbytes for a in (data.now, data.step, data.leaves) if a is not None)
    per += sum(np.dtype(t).itemsize for _, t in TREE_COLUMNS) * (  # at most: int32 ids
        len(data.trees.columns["node"]) / max(1, data.n_rounds))
    return per * 4 / 3


def window(data: RoundsData, around: int, budget: int | None = None) -> tuple[int, int]:
    """[lo, hi]: every round when the trace fits ``budget`` (``BUDGET_BYTES``), else as many
    as fit, centred on ``around``."""
    n = data.n_rounds
    budget = BUDGET_BYTES if budget is None else budget
    k = max(1, int(budget // _round_bytes(data)))
    if k > n:
        return 0, n
    lo = min(max(0, around - k // 2), n + 1 - k)
    return lo, lo + k - 1


# ----------------------------------------------------------------------------- the fit
def fit_at(data: RoundsData, r: int) -> Fit:
    """The ``Fit`` record of round ``r``, read from the rounds' record."""
    return Fit(kind=data.kind, objective=data.objective, round_idx=r,
               feature_names=data.feature_names, rows=data.rows, x=data.x, y=data.y,
               y_range=data.y_range, grid=data.grid, now=data.now[r],
               before=data.now[r - 1] if r > 0 and data.kind != "surface" else None,
               step=data.step[r] if r > 0 and data.step is not None else None,
               leaves=data.leaves[r] if r > 0 and data.leaves is not None else None,
               residuals=None if data.residuals is None else data.residuals[r],
               alphas=data.alphas, middle=data.middle)


def _fit_chart(data: RoundsData, lo: int, hi: int, class_names, large: bool) -> dict:
    t = 1 if data.n_rounds >= 1 else 0
    template = _figure(make_fit_figure(fit_at(data, t), class_names, large))
    zero = _figure(make_fit_figure(fit_at(data, 0), class_names, large)) if t else None
    first = max(lo - 1, 0)  # "before" reads the round before the window's first
    chart = {"figure": template, "arrays": {}, "patches": [], "texts": [], "shown": []}
    parts = {"curve": _curve_parts, "surface": _surface_parts, "rows": _rows_parts}
    parts[data.kind](chart, data, slice(first, hi + 1), first, t, zero)
    return chart


def _text(chart, zero, path, old, new):
    chart["texts"].append(_templated(chart["figure"], zero, path, old, new))


def _band_parts(chart, data, rows, first, t, zero) -> None:
    """Several quantiles over one feature (``viz.fit._band_1d``): each alpha's line of
    round r - 1 and of round r from its own array; names and hovers say the rounds."""
    k = data.now.shape[2]
    for j in range(k):
        chart["arrays"][f"now_{j}"] = typed(np.ascontiguousarray(data.now[rows][:, :, j]),
                                            first)
    _text(chart, zero, "layout.title.text", f"round {t}", "round {r}")
    if t == 0:
        chart["patches"] += [{"path": f"data.{1 + j}.y", "array": f"now_{j}", "offset": 0}
                             for j in range(k)]
        return
    for j in range(k):
        before, now = 1 + j, 1 + k + j
        chart["patches"] += [{"path": f"data.{before}.y", "array": f"now_{j}", "offset": -1},
                             {"path": f"data.{now}.y", "array": f"now_{j}", "offset": 0}]
        for i, old, new in ((before, "round 0", "round {r-1}"), (now, "round 1", "round {r}")):
            _text(chart, None, f"data.{i}.name", old, new)
            _text(chart, None, f"data.{i}.hovertemplate", old, new)
        if zero is not None:  # round 0's lines (its figure's traces 1..k) say base_score
            for text in chart["texts"]:
                if text["path"] == f"data.{now}.name":
                    text["at0"] = zero["data"][1 + j]["name"]
        chart["shown"].append({"path": f"data.{before}.visible", "from": 1})


def _curve_parts(chart, data, rows, first, t, zero) -> None:
    if data.now.ndim == 3:  # several quantiles
        _band_parts(chart, data, rows, first, t, zero)
        return
    chart["arrays"]["now"] = typed(data.now[rows], first)
    _text(chart, zero, "layout.title.text", f"round {t}", "round {r}")
    if data.residuals is not None:  # each row's residual, written as the figure writes it
        chart["arrays"]["residuals"] = typed(data.residuals[rows], first)
        i = [trace.get("name") for trace in chart["figure"]["data"]].index("residuals")
        chart["patches"].append({"path": f"data.{i}.text", "array": "residuals",
                                 "offset": 0, "label": RESIDUAL_LABEL})
    if t == 0:
        chart["patches"].append({"path": "data.1.y", "array": "now", "offset": 0})
        return
    chart["arrays"]["step"] = typed(data.step[rows], first)
    classify = objectives.spec(data.objective).task == "binary"
    chart["patches"] += [{"path": "data.1.y", "array": "now", "offset": -1},
                         {"path": "data.2.y", "array": "now", "offset": 0},
                         {"path": "data.3.y", "array": "step", "offset": 0}]
    for i, old, new in ((1, "round 0", "round {r-1}"), (2, "round 1", "round {r}"),
                        (3, "tree 1", "tree {r}")):
        _text(chart, None, f"data.{i}.name", old, new)
        _text(chart, None, f"data.{i}.hovertemplate", old, new)
    if zero is not None:  # round 0's line (its figure's second trace) says base_score
        for text in chart["texts"]:
            if text["path"] == "data.2.name" and zero["data"][1]["name"] != "after round 0":
                text["at0"] = zero["data"][1]["name"]
    chart["shown"] += [{"path": "data.1.visible", "from": 1},
                       {"path": "data.3.visible", "from": 1}]
    if classify:
        _text(chart, None, "layout.yaxis2.title.text", "tree 1", "tree {r}")
        chart["shown"].append({"path": "layout.yaxis2.visible", "from": 1})


def _surface_parts(chart, data, rows, first, t, zero) -> None:
    shape = (-1, len(data.grid[1]), len(data.grid[0]))
    now = data.now[rows]
    if now.ndim == 3 and objectives.spec(data.objective).task == "regression":
        now = now[:, :, data.middle]  # several quantiles: as make_fit_figure
    if now.ndim == 3:  # multi-class: the class with the largest probability
        chart["arrays"]["now"] = typed(now.argmax(axis=2).astype(np.uint8).reshape(shape),
                                       first)
    else:
        chart["arrays"]["now"] = typed(now.reshape(shape), first)
    chart["patches"].append({"path": "data.0.z", "array": "now", "offset": 0})
    _text(chart, zero, "layout.title.text", f"round {t}", "round {r}")
    if data.leaves is None or t == 0:
        return
    leaves = data.leaves[rows]
    k = len(chart["figure"]["data"]) - 1  # the leaves' contour is the last trace
    small = leaves.max(initial=0) < 256
    chart["arrays"]["leaves"] = typed(leaves.astype(np.uint8 if small else np.int32)
                                      .reshape(shape), first)
    # the contour's levels: between every two leaf ids (make_fit_figure's start and end)
    chart["arrays"]["leaf_start"] = typed(leaves.min(axis=1).astype(float) + 0.5, first)
    chart["arrays"]["leaf_end"] = typed(leaves.max(axis=1).astype(float), first)
    chart["patches"] += [{"path": f"data.{k}.z", "array": "leaves", "offset": 0},
                         {"path": f"data.{k}.contours.start", "array": "leaf_start",
                          "offset": 0},
                         {"path": f"data.{k}.contours.end", "array": "leaf_end", "offset": 0}]
    _text(chart, None, f"data.{k}.name", "tree 1", "tree {r}")
    chart["shown"].append({"path": f"data.{k}.visible", "from": 1})


def _rows_parts(chart, data, rows, first, t, zero) -> None:
    now = data.now[rows]
    if objectives.spec(data.objective).task == "regression":
        _regression_rows(chart, data, now, first, t, zero)
        return
    if objectives.spec(data.objective).task == "ranking":  # each grade's scores: a box
        for k, grade in enumerate(np.unique(data.y)):
            chart["arrays"][f"grade_{k}"] = typed(now[:, data.y == grade], first)
            chart["patches"].append({"path": f"data.{k}.y", "array": f"grade_{k}",
                                     "offset": 0})
        _text(chart, zero, "layout.title.text", f"round {t}", "round {r}")
        return
    # the probability each row's own class gets: its box's points
    proba = now if now.ndim == 3 else np.stack([1 - now, now], axis=2)
    true_p = proba[:, np.arange(len(data.y)), data.y.astype(int)]
    for c in range(proba.shape[2]):
        chart["arrays"][f"class_{c}"] = typed(true_p[:, data.y == c], first)
        chart["patches"].append({"path": f"data.{c}.y", "array": f"class_{c}", "offset": 0})
    _text(chart, zero, "layout.title.text", f"round {t}", "round {r}")


def _band_rows(chart, data, now, first, t, zero) -> None:
    """Several quantiles against actual (``viz.fit._band_many``)."""
    k = now.shape[2]
    for j in range(k):
        chart["arrays"][f"now_{j}"] = typed(np.ascontiguousarray(now[:, :, j]), first)
    _text(chart, zero, "layout.title.text", f"round {t}", "round {r}")
    if t == 0:
        chart["patches"] += [{"path": f"data.{j}.y", "array": f"now_{j}", "offset": 0}
                             for j in range(k)]
        return
    flat = now.reshape(len(now), -1)
    lo = np.minimum(flat.min(axis=1), np.r_[flat[:1].min(), flat[:-1].min(axis=1)])
    hi = np.maximum(flat.max(axis=1), np.r_[flat[:1].max(), flat[:-1].max(axis=1)])
    ends = np.stack([np.minimum(lo, data.y.min()), np.maximum(hi, data.y.max())], axis=1)
    chart["arrays"]["diagonal"] = typed(ends.astype(np.float64), first)
    for j in range(k):
        chart["patches"] += [{"path": f"data.{j}.y", "array": f"now_{j}", "offset": -1},
                             {"path": f"data.{k + j}.y", "array": f"now_{j}", "offset": 0}]
        _text(chart, None, f"data.{j}.name", "round 0", "round {r-1}")
        _text(chart, None, f"data.{k + j}.name", "round 1", "round {r}")
        chart["shown"].append({"path": f"data.{j}.visible", "from": 1})
    chart["patches"] += [{"path": f"data.{2 * k}.x", "array": "diagonal", "offset": 0},
                         {"path": f"data.{2 * k}.y", "array": "diagonal", "offset": 0}]


def _regression_rows(chart, data, now, first, t, zero) -> None:
    if now.ndim == 3:
        _band_rows(chart, data, now, first, t, zero)
        return
    chart["arrays"]["now"] = typed(now, first)
    _text(chart, zero, "layout.title.text", f"round {t}", "round {r}")
    if t == 0:
        chart["patches"] += [{"path": "data.0.y", "array": "now", "offset": 0}]
        return
    # the diagonal spans the drawn labels and both rounds' predictions (make_fit_figure's;
    # round 0's, its own predictions only: the first row is taken with itself)
    lo = np.minimum(now.min(axis=1), np.r_[now[:1].min(), now[:-1].min(axis=1)])
    hi = np.maximum(now.max(axis=1), np.r_[now[:1].max(), now[:-1].max(axis=1)])
    ends = np.stack([np.minimum(lo, data.y.min()), np.maximum(hi, data.y.max())], axis=1)
    chart["arrays"]["diagonal"] = typed(ends.astype(np.float64), first)
    chart["patches"] += [{"path": "data.0.y", "array": "now", "offset": -1},
                         {"path": "data.1.y", "array": "now", "offset": 0},
                         {"path": "data.2.x", "array": "diagonal", "offset": 0},
                         {"path": "data.2.y", "array": "diagonal", "offset": 0}]
    _text(chart, None, "data.0.name", "round 0", "round {r-1}")
    _text(chart, None, "data.1.name", "round 1", "round {r}")
    chart["shown"].append({"path": "data.0.visible", "from": 1})


# ----------------------------------------------------------------------------- the loss
def _loss_chart(history: pd.DataFrame, metric: str, t: int, large: bool,
                best_round: int | None, quantiles: pd.DataFrame | None = None) -> dict:
    fig = _figure(make_loss_figure(history, t, metric, large, best_round, quantiles))
    chart = {"figure": fig, "arrays": {}, "patches": [], "texts": [], "shown": []}
    for i, name in enumerate(history.columns):
        key = f"loss_{i}"
        chart["arrays"][key] = typed(history[name].to_numpy(dtype=np.float64), 0)
        marker = 2 * i + 1  # each column: its line, then its round's marker
        chart["patches"] += [{"path": f"data.{marker}.x", "round": True, "list": True},
                             {"path": f"data.{marker}.y", "array": key, "offset": 0,
                              "list": True}]
        _text(chart, None, f"data.{marker}.hovertemplate", f"round {t}", "round {r}")
    chart["patches"] += [{"path": "layout.shapes.0.x0", "round": True},
                         {"path": "layout.shapes.0.x1", "round": True}]
    return chart


# ----------------------------------------------------------------------------- the tree
def _tree_track(data: RoundsData, lo: int, hi: int, params: Mapping,
                missing_features, class_names=None) -> dict:
    trees = data.trees
    by_round = np.r_[0, trees.offsets]  # round r's rows: by_round[r] .. by_round[r + 1]
    a, b = int(by_round[lo]), int(by_round[hi + 1])
    track = {name: typed(_narrow(trees.columns[name][a:b])) for name, _ in TREE_COLUMNS}
    track["offsets"] = typed((by_round[lo:hi + 2] - a).astype(np.int32))
    track["slots"] = typed(np.r_[0, trees.slots].astype(np.int32)[lo:hi + 1], lo)
    track.update(features=list(data.feature_names), reasons=list(trees.reasons),
                 kinds=list(KINDS), class_idx=trees.class_idx, gamma=float(params["gamma"]),
                 missing_features=sorted(missing_features), style=dict(TREE_STYLE))
    track["lambda"], track["eta"] = float(params["lambda"]), float(params["eta"])
    # round 0's panel says where every row starts (no tree yet)
    track["base_score"], track["base_margin"] = data.base_score, data.base_margin
    # multi-class: K trees a round, and the track holds one class's (its title says which)
    track["groups"] = int(trees.groups)
    track["class_name"] = (str(class_names[trees.class_idx])
                           if trees.groups > 1 and class_names is not None
                           and trees.class_idx < len(class_names) else None)
    if data.alphas and trees.groups > 1:  # several quantiles: the track's is its alpha
        track["group_label"] = alpha_text(data.alphas[trees.class_idx])
    return track


# ----------------------------------------------------------------------------- the trace
def round_trace(data: RoundsData, history: pd.DataFrame | None, metric: str,
                class_names, params: Mapping, *, model_key: str = "", round_idx: int = 0,
                node: int | None = None, token: int = 0, large: bool = False,
                fill: bool = False, panels=PANELS, best_round: int | None = None,
                missing_features=(), around: int | None = None,
                budget: int | None = None, quantiles: pd.DataFrame | None = None) -> dict:
    """The trace of docs/player.md. ``data``: ``trace.rounds``' record; ``history``: the
    loss history (None without a target); ``params``: the model's (eta, lambda, gamma);
    ``round_idx``/``node``/``token``: where the page goes (``goto``); ``around``: the round
    the window is centred on when the model is beyond ``budget`` (``round_idx`` by
    default); ``quantiles``: each quantile's pinball loss by round
    (``Booster.quantile_loss_history``), drawn in the loss chart."""
    n = data.n_rounds
    lo, hi = window(data, round_idx if around is None else around, budget)
    t = 1 if n >= 1 else 0
    trace = {
        "version": VERSION, "rounds": n, "window": [lo, hi],
        "status": [f"Round {r} of {n} — {loss_line(history, metric, r)}"
                   for r in range(n + 1)],
        "large": large, "fill": fill, "panels": list(panels),
        # without a target there is nothing to fit against (a model file's sample without
        # its label column): the tree and the status only
        "fit": None if history is None else _fit_chart(data, lo, hi, class_names, large),
        "loss": None if history is None else _loss_chart(history, metric, t, large,
                                                         best_round, quantiles),
        "tree": _tree_track(data, lo, hi, params, missing_features, class_names),
        "speeds": list(SPEEDS), "speed": SPEED,
    }
    body = json.dumps(trace, sort_keys=True).encode()
    trace["id"] = f"{model_key}:{hashlib.blake2b(body, digest_size=12).hexdigest()}"
    trace["goto"] = {"round": int(round_idx), "node": node, "token": token}
    return trace
