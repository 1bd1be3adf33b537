"""A round trace built by hand to docs/player.md (version 1), for the player's browser tests
until ``viz.player.round_trace`` exists: a 1-D regression's fit, its loss curves and the tree
track of every round."""

from __future__ import annotations

import base64
import json

import numpy as np
import plotly.io

from viz.fit import make_fit_figure
from viz.loss import make_loss_figure
from viz.tree_layout import slot_positions

KINDS = {"split": 0, "leaf": 1, "cut": 2, "refused": 3, "ghost_split": 4, "ghost_leaf": 5}


def typed(a, dtype) -> dict:
    a = np.ascontiguousarray(a, dtype=dtype)
    return {"dtype": np.dtype(dtype).name, "shape": list(a.shape),
            "b64": base64.b64encode(a.astype(a.dtype.newbyteorder("<")).tobytes()).decode()}


def _kind(row) -> int:
    if row.Pruned:
        return 4 if row.Feature != "Leaf" else 5
    if row.Feature == "Leaf":
        return 1 if row.Leaf else 0
    if row.Leaf:
        return 3 if row.Yes != row.Yes or row.Yes is None else 2
    return 0


def _child(ref) -> int:
    return -1 if ref is None or ref != ref else int(str(ref).split("-")[1])


def tree_track(booster, gamma, lam, eta) -> dict:
    frame = booster.trees_to_dataframe(include_pruned=True)
    features = list(booster.feature_names)
    reasons = [""] + sorted({str(r) for r in frame.Reason if r})
    cols = {k: [] for k in ("node", "parent", "yes", "no", "missing", "depth", "slot", "kind",
                            "feature", "split", "gain", "sum_grad", "sum_hess", "similarity",
                            "weight", "value", "reason")}
    offsets, slots = [0, 0], [0]
    n = booster.num_boosted_rounds()
    for r in range(1, n + 1):
        tree = frame[frame.Tree == r - 1]
        pos = slot_positions(tree)
        for row in tree.itertuples(index=False):
            cols["node"].append(int(row.Node))
            cols["parent"].append(int(row.Parent))
            cols["yes"].append(_child(row.Yes))
            cols["no"].append(_child(row.No))
            cols["missing"].append(_child(row.Missing))
            cols["depth"].append(int(row.Depth))
            cols["slot"].append(pos[int(row.Node)][0])
            cols["kind"].append(_kind(row))
            cols["feature"].append(features.index(row.Feature) if row.Feature != "Leaf" else -1)
            cols["split"].append(row.Split if row.Split == row.Split else 0.0)
            cols["gain"].append(row.Gain if row.Gain == row.Gain else 0.0)
            cols["sum_grad"].append(row.SumGrad)
            cols["sum_hess"].append(row.SumHess)
            cols["similarity"].append(row.Similarity)
            cols["weight"].append(row.Weight)
            cols["value"].append(row.Value)
            cols["reason"].append(reasons.index(str(row.Reason)) if row.Reason else 0)
        offsets.append(len(cols["node"]))
        slots.append(int(round(max(x for x, _ in pos.values()))) + 1)
    dtypes = {"slot": "float32", "kind": "uint8", "reason": "uint8", "split": "float32",
              "gain": "float32", "sum_grad": "float32", "sum_hess": "float32",
              "similarity": "float32", "weight": "float32", "value": "float32"}
    track = {k: typed(v, dtypes.get(k, "int32")) for k, v in cols.items()}
    track.update(offsets=typed(offsets, "int32"), slots=typed(slots, "int32"),
                 features=features, reasons=reasons, gamma=gamma, **{"lambda": lam},
                 eta=eta, missing_features=[])
    return track


def contract_trace(booster, X, y, params, large=False, fill=True) -> dict:
    n = booster.num_boosted_rounds()
    rows = np.arange(len(X))
    fits = [booster.trace.fit(X, y, r, rows) for r in range(n + 1)]
    fig = make_fit_figure(fits[1], large=large)
    now = np.stack([f.now.reshape(-1) for f in fits])
    step = np.stack([np.zeros_like(now[0])] + [f.step for f in fits[1:]])
    fit_chart = {
        "figure": json.loads(plotly.io.to_json(fig, validate=False)),
        "arrays": {"now": typed(now, "float32"), "step": typed(step, "float32")},
        "patches": [{"path": "data.2.y", "array": "now", "offset": 0},
                    {"path": "data.1.y", "array": "now", "offset": -1},
                    {"path": "data.3.y", "array": "step", "offset": 0}],
        "texts": [{"path": "layout.title.text", "template": "Fit after round {r}",
                   "at0": "Fit after round 0 (baseline)"},
                  {"path": "data.1.name", "template": "after round {r-1}"},
                  {"path": "data.2.name", "template": "after round {r}"},
                  {"path": "data.3.name", "template": "tree {r} alone (η·w)"}],
        "shown": [{"path": "data.1.visible", "from": 1}, {"path": "data.3.visible", "from": 1}]}
    history = booster.loss_history()
    metric = "rmse"
    loss = make_loss_figure(history, 1, metric, large=large)
    cols = list(history.columns)
    arrays = {f"loss_{c}": dict(typed(history[c].to_numpy(), "float32"), whole=True)
              for c in cols}
    loss_chart = {
        "figure": json.loads(plotly.io.to_json(loss, validate=False)),
        "arrays": arrays,
        "patches": [p for i, c in enumerate(cols) for p in (
            {"path": f"data.{2 * i + 1}.x", "round": True, "list": True},
            {"path": f"data.{2 * i + 1}.y", "array": f"loss_{c}", "offset": 0, "list": True})]
        + [{"path": "layout.shapes.0.x0", "round": True},
           {"path": "layout.shapes.0.x1", "round": True}],
        "texts": [], "shown": []}
    status = []
    for r in range(n + 1):
        parts = ", ".join(f"{c} {metric} {history[c].iloc[r]:.4g}" for c in cols)
        status.append(f"Round {r} of {n} — {parts}")
    return {"version": 1, "id": f"dev-{n}-{len(X)}-{int(large)}", "rounds": n,
            "window": [0, n], "goto": {"round": 0, "node": None, "token": 0},
            "status": status, "large": large, "fill": fill,
            "panels": ["fit", "loss", "tree"], "fit": fit_chart, "loss": loss_chart,
            "tree": tree_track(booster, params.get("gamma", 0.0),
                               params.get("lambda", 1.0), params.get("eta", 0.3)),
            "speeds": [1, 2, 5, 10, 20, 30], "speed": 5}
