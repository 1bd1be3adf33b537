"""viz.round_trace.round_trace: the page recreates round r from the template figure, the arrays
and the patches exactly as make_fit_figure / make_loss_figure draw round r (checked here with
a Python copy of the page's patching), and the tree track holds each round's nodes."""

import base64
import copy
import json

import numpy as np
import pytest

import boost
from boost.trace.rounding import rounded
from boost.trace.rounds import ROUND_GRID
from viz.fit import make_fit_figure
from viz.loss import loss_line, make_loss_figure
from viz.round_trace import _figure, round_trace, window
from viz.tree_layout import slot_positions

CASES = {  # objective, features, extra params
    "curve": ("reg:squarederror", 1, {}),
    "binary curve": ("binary:logistic", 1, {}),
    "surface": ("reg:squarederror", 2, {}),
    "multiclass surface": ("multi:softprob", 2, {"num_class": 3}),
    "rows": ("reg:squarederror", 4, {}),
    "binary rows": ("binary:logistic", 4, {}),
    "multiclass rows": ("multi:softprob", 4, {"num_class": 3}),
    # several quantiles: a line (markers) per alpha, the surface of the middle one
    "quantile band": ("reg:quantileerror", 1, {"quantile_alpha": [0.1, 0.5, 0.9]}),
    "quantile surface": ("reg:quantileerror", 2, {"quantile_alpha": [0.1, 0.5, 0.9]}),
    "quantile rows": ("reg:quantileerror", 4, {"quantile_alpha": [0.2, 0.8]}),
}
ROUNDS = 7


def _model(case, method="hist", rounds=ROUNDS):
    objective, n_features, extra = CASES[case]
    rng = np.random.default_rng(1)
    X = rng.normal(size=(700, n_features))
    signal = X[:, 0] + 0.5 * X[:, -1]
    if objective.startswith("multi"):
        y = np.digitize(signal, [-0.5, 0.5]).astype(float)
    elif objective.startswith("binary"):
        y = (signal + rng.normal(size=700) * 0.5 > 0).astype(float)
    else:
        y = signal + rng.normal(size=700) * 0.3
    params = {"objective": objective, "tree_method": method, "max_depth": 3, "gamma": 0.3,
              **extra}
    Xv, yv = X[:100], y[:100]
    model = boost.train(params, X, y, rounds, evals=[(X, y, "train"), (Xv, yv, "valid")])
    return model, X, y, np.sort(rng.choice(700, 500, replace=False))


def decode(array: dict) -> np.ndarray:
    raw = base64.b64decode(array["b64"])
    return np.frombuffer(raw, dtype=np.dtype(array["dtype"]).newbyteorder("<")
                         ).reshape(array["shape"])


def _set(tree, path: str, value) -> None:
    *head, last = path.split(".")
    for key in head:
        tree = tree[int(key)] if isinstance(tree, list) else tree.setdefault(key, {})
    if isinstance(tree, list):
        tree[int(last)] = value
    else:
        tree[last] = value


def apply_patches(chart: dict, r: int, n: int) -> dict:
    """The page's rule (docs/player.md) in Python: the figure of round ``r``."""
    fig = copy.deepcopy(chart["figure"])
    for patch in chart["patches"]:
        if patch.get("round"):
            value = r + patch.get("offset", 0)
        else:
            spec = chart["arrays"][patch["array"]]
            row = r + patch["offset"] - spec["first"]
            if row < 0:  # before the array's first round: the trace is hidden there
                continue
            value = decode(spec)[row].tolist()
        _set(fig, patch["path"], [value] if patch.get("list") else value)
    for text in chart["texts"]:
        template = text.get("at0") if r == 0 and "at0" in text else text["template"]
        value = (template.replace("{r-1}", str(r - 1)).replace("{r}", str(r))
                 .replace("{n}", str(n)))
        _set(fig, text["path"], value)
    for shown in chart["shown"]:
        _set(fig, shown["path"], r >= shown["from"])
    return fig


def _values(value):
    """Plotly's own typed arrays ({"dtype", "bdata"[, "shape"]}) as lists; else as is."""
    if isinstance(value, dict) and "bdata" in value:
        a = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            a = a.reshape([int(v) for v in str(value["shape"]).split(",")])
        return a.tolist()
    return value


def _visible(fig: dict) -> list[dict]:
    return [t for t in fig["data"] if t.get("visible", True) is not False]


def _same_data(got: dict, want: dict) -> None:
    g, w = _visible(got), _visible(want)
    assert [t["type"] for t in g] == [t["type"] for t in w]
    for a, b in zip(g, w, strict=True):
        for key in ("x", "y", "z", "name", "hovertemplate"):
            if key in b:
                got_value, want_value = _values(a[key]), _values(b[key])
                if isinstance(want_value, str):
                    assert got_value == want_value, key
                else:  # numbers equal (a leaf id may come as 7 where Plotly has 7.0)
                    np.testing.assert_array_equal(got_value, want_value, err_msg=key)
                    assert np.shape(got_value) == np.shape(want_value)
        if "contours" in b:
            assert a["contours"] == b["contours"]
    assert got["layout"]["title"] == want["layout"]["title"]


@pytest.mark.parametrize("case", list(CASES))
def test_patched_fit_is_the_rounds_figure(case):
    model, X, y, rows = _model(case)
    data = model.trace.rounds(X, y, rows)
    trace = round_trace(data, model.loss_history(), model.metric_name, None, model.params)
    assert trace["window"] == [0, ROUNDS]
    for r in range(ROUNDS + 1):
        want = _figure(make_fit_figure(model.trace.fit(X, y, r, rows, grid=ROUND_GRID)))
        got = apply_patches(trace["fit"], r, ROUNDS)
        _same_data(got, want)
        if "yaxis2" in got["layout"]:  # the tree's own axis (classification), from round 1
            assert got["layout"]["yaxis2"].get("visible") == (r >= 1)
            if r:
                assert got["layout"]["yaxis2"]["title"] == want["layout"]["yaxis2"]["title"]


@pytest.mark.parametrize("case", ["rows", "quantile rows"])
def test_patched_loss_is_the_rounds_figure(case):
    model, X, y, rows = _model(case)
    history = model.loss_history()
    quantiles = model.quantile_loss_history()
    trace = round_trace(model.trace.rounds(X, y, rows), history, model.metric_name, None,
                        model.params, quantiles=quantiles)
    assert list(history.columns) == ["train", "valid"]
    for r in range(ROUNDS + 1):
        want = _figure(make_loss_figure(history, r, model.metric_name, quantiles=quantiles))
        got = apply_patches(trace["loss"], r, ROUNDS)
        _same_data(got, want)
        assert got["layout"]["shapes"] == want["layout"]["shapes"]
        assert trace["status"][r] == (f"Round {r} of {ROUNDS} — "
                                      f"{loss_line(history, model.metric_name, r)}")
    if quantiles is not None:  # each alpha's own line, drawn whole
        assert [t["name"] for t in trace["loss"]["figure"]["data"][4:]] == [
            "train α=0.2", "train α=0.8", "valid α=0.2", "valid α=0.8"]
        return
    # each loss by the one rule of numbers a reader sees (a lesson's text writes the same)
    assert trace["status"][3] == (f"Round 3 of {ROUNDS} — train rmse "
                                  f"{rounded(history.train[3])}, valid rmse "
                                  f"{rounded(history.valid[3])}")


@pytest.mark.parametrize("method", ["exact", "hist"])
def test_tree_track_is_each_rounds_tree(method):
    model, X, y, rows = _model("rows", method)
    trace = round_trace(model.trace.rounds(X, y, rows), model.loss_history(),
                        model.metric_name, None, model.params)
    track = trace["tree"]
    offsets = decode(track["offsets"])
    assert len(offsets) == ROUNDS + 2 and offsets[1] == 0  # round 0 has no tree
    frame = model.trees_to_dataframe(include_pruned=True)
    for r in range(1, ROUNDS + 1):
        part = frame[frame.Tree == r - 1]
        a, b = offsets[r], offsets[r + 1]
        np.testing.assert_array_equal(decode(track["node"])[a:b], part.Node)
        np.testing.assert_array_equal(decode(track["gain"])[a:b],
                                      np.where(part.Feature == "Leaf", 0, part.Gain)
                                      .astype(np.float32))
        pos = slot_positions(part)
        np.testing.assert_array_equal(decode(track["slot"])[a:b],
                                      [pos[n][0] for n in part.Node])
        assert decode(track["slots"])[r] == max(x for x, _ in pos.values()) + 1
    assert (track["gamma"], track["lambda"], track["eta"]) == (0.3, 1.0, 0.3)
    assert track["features"] == model.feature_names


def test_a_large_model_holds_a_window_that_recreates_its_rounds():
    model, X, y, rows = _model("curve", rounds=40)
    data = model.trace.rounds(X, y, rows)
    full = round_trace(data, model.loss_history(), model.metric_name, None, model.params)
    size = len(json.dumps(full))
    budget = size // 4
    trace = round_trace(data, model.loss_history(), model.metric_name, None, model.params,
                        round_idx=30, budget=budget)
    lo, hi = trace["window"]
    assert (lo, hi) == window(data, 30, budget) and 0 < lo < 30 < hi < 40
    assert len(json.dumps(trace)) < size / 2
    assert trace["fit"]["arrays"]["now"]["first"] == lo - 1  # the window's "before" too
    assert decode(trace["fit"]["arrays"]["now"]).shape[0] == hi - lo + 2
    for r in (lo, 30, hi):
        want = _figure(make_fit_figure(model.trace.fit(X, y, r, rows, grid=ROUND_GRID)))
        _same_data(apply_patches(trace["fit"], r, 40), want)
    track = trace["tree"]
    offsets = decode(track["offsets"])
    frame = model.trees_to_dataframe(include_pruned=True)
    assert len(offsets) == hi - lo + 2
    np.testing.assert_array_equal(decode(track["node"])[offsets[30 - lo]:offsets[31 - lo]],
                                  frame[frame.Tree == 29].Node)
    assert trace["id"] != full["id"]


def test_typed_arrays_are_little_endian_base64():
    from viz.round_trace import typed
    a = np.array([[1.5, -2.0]], dtype=np.float32)
    enc = typed(a, first=3)
    assert enc == {"dtype": "float32", "shape": [1, 2], "first": 3,
                   "b64": base64.b64encode(b"\x00\x00\xc0\x3f\x00\x00\x00\xc0").decode()}
