"""The fit at round r next to round r-1: a curve (1 feature), a surface (2 features), or
predicted against actual (more features)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from boost import Booster, objectives

from .theme import CURRENT, DIVERGING, PALETTE, PREVIOUS, style

GRID = 80
MAX_POINTS = 5000  # drawn points; more are sampled (the fit uses every row)


def _sample(n: int, seed: int = 0) -> np.ndarray:
    if n <= MAX_POINTS:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, MAX_POINTS, replace=False))


def predictions_at(booster: Booster, X: np.ndarray, round_idx: int) -> np.ndarray:
    """Predictions (probabilities for classification) of the first ``round_idx`` rounds."""
    if round_idx == 0:
        return objectives.transform(booster.objective,
                                    np.tile(booster.base_margin, (len(X), 1)).astype(np.float32))
    return booster.predict(X, iteration_range=(0, round_idx))


def make_fit_figure(booster: Booster, X: np.ndarray, y: np.ndarray, round_idx: int,
                    class_names: list[str] | None = None, large: bool = False) -> go.Figure:
    """The model after ``round_idx`` rounds against the data (and after ``round_idx - 1``)."""
    X = np.asarray(X, dtype=float)
    names = booster.feature_names
    if X.shape[1] == 1:
        return _fit_1d(booster, X, y, round_idx, names[0], large)
    if X.shape[1] == 2:
        return _fit_2d(booster, X, y, round_idx, names, class_names, large)
    return _fit_many(booster, X, y, round_idx, class_names, large)


def _fit_1d(booster, X, y, r, name, large):
    rows = _sample(len(X))
    x = X[:, 0]
    present = ~np.isnan(x)
    lo, hi = np.nanmin(x), np.nanmax(x)
    pad = (hi - lo) * 0.02 or 1.0
    grid = np.linspace(lo - pad, hi + pad, 400)[:, None]
    fig = go.Figure()
    classify = booster.objective != "reg:squarederror"
    if booster.objective == "multi:softprob":
        now = predictions_at(booster, grid, r)
        for k in range(now.shape[1]):
            fig.add_trace(go.Scatter(x=grid[:, 0], y=now[:, k], mode="lines",
                                     name=f"P(class {k}) after round {r}",
                                     line={"color": PALETTE[k % len(PALETTE)], "width": 3}))
        fig.add_trace(go.Scatter(x=x[rows][present[rows]], y=y[rows][present[rows]] / max(
            1, now.shape[1] - 1), mode="markers", name="data (class / (K-1))",
            marker={"color": "#444", "size": 7, "opacity": 0.6}))
        return style(fig, f"Fit after round {r}", large).update_xaxes(title=name)
    fig.add_trace(go.Scatter(x=x[rows][present[rows]], y=y[rows][present[rows]],
                             mode="markers", name="data",
                             marker={"color": PALETTE[0], "size": 8, "opacity": 0.65},
                             hovertemplate=f"{name}=%{{x}}<br>y=%{{y}}<extra>data</extra>"))
    if r > 0:
        prev = predictions_at(booster, grid, r - 1)
        fig.add_trace(go.Scatter(x=grid[:, 0], y=prev, mode="lines",
                                 name=f"after round {r - 1}",
                                 line={"color": PREVIOUS, "width": 2, "dash": "dash",
                                       "shape": "hv"}))
    now = predictions_at(booster, grid, r)
    label = "P(y = 1)" if classify else "prediction"
    fig.add_trace(go.Scatter(x=grid[:, 0], y=now, mode="lines", name=f"after round {r}",
                             line={"color": CURRENT, "width": 3, "shape": "hv"},
                             hovertemplate=f"{name}=%{{x:.4g}}<br>{label}=%{{y:.4g}}<extra></extra>"))
    style(fig, f"Fit after round {r}" + (" (baseline)" if r == 0 else ""), large)
    fig.update_xaxes(title=name)
    fig.update_yaxes(title="y" if not classify else "y / P(y = 1)")
    return fig


def _fit_2d(booster, X, y, r, names, class_names, large):
    rows = _sample(len(X))
    lo = np.nanmin(X, axis=0)
    hi = np.nanmax(X, axis=0)
    pad = (hi - lo) * 0.05
    gx = np.linspace(lo[0] - pad[0], hi[0] + pad[0], GRID)
    gy = np.linspace(lo[1] - pad[1], hi[1] + pad[1], GRID)
    mesh = np.array(np.meshgrid(gx, gy)).reshape(2, -1).T
    pred = predictions_at(booster, mesh, r)
    fig = go.Figure()
    if booster.objective == "multi:softprob":
        z = pred.argmax(axis=1).reshape(GRID, GRID)
        k = pred.shape[1]
        scale = [[i / max(1, k - 1), PALETTE[i % len(PALETTE)]] for i in range(k)]
        fig.add_trace(go.Heatmap(x=gx, y=gy, z=z, colorscale=scale, opacity=0.35,
                                 showscale=False, zmin=0, zmax=k - 1, hoverinfo="skip"))
        for c in range(k):
            sel = rows[y[rows] == c]
            label = class_names[c] if class_names else str(c)
            fig.add_trace(go.Scatter(x=X[sel, 0], y=X[sel, 1], mode="markers", name=label,
                                     marker={"color": PALETTE[c % len(PALETTE)], "size": 8,
                                             "line": {"width": 1, "color": "white"}}))
    else:
        classify = booster.objective == "binary:logistic"
        z = pred.reshape(GRID, GRID)
        fig.add_trace(go.Heatmap(
            x=gx, y=gy, z=z, colorscale=DIVERGING, opacity=0.75,
            zmin=0 if classify else float(np.nanmin(y)),
            zmax=1 if classify else float(np.nanmax(y)),
            colorbar={"title": {"text": "P(y=1)" if classify else "prediction",
                                "side": "right"}},
            hovertemplate=f"{names[0]}=%{{x:.3g}}<br>{names[1]}=%{{y:.3g}}<br>"
                          "prediction=%{z:.3g}<extra></extra>"))
        if classify:
            for c in (0, 1):
                sel = rows[y[rows] == c]
                label = class_names[c] if class_names else str(c)
                fig.add_trace(go.Scatter(x=X[sel, 0], y=X[sel, 1], mode="markers",
                                         name=f"y = {label}",
                                         marker={"color": PALETTE[0] if c == 0 else PALETTE[5],
                                                 "size": 8, "symbol": "circle" if c else "x",
                                                 "line": {"width": 1, "color": "white"}}))
        else:
            fig.add_trace(go.Scatter(x=X[rows, 0], y=X[rows, 1], mode="markers", name="data",
                                     marker={"color": y[rows], "colorscale": DIVERGING,
                                             "size": 8, "line": {"width": 1, "color": "#333"},
                                             "showscale": False}))
    style(fig, f"Prediction surface after round {r}", large, height=480)
    fig.update_xaxes(title=names[0])
    fig.update_yaxes(title=names[1])
    return fig


def _fit_many(booster, X, y, r, class_names, large):
    rows = _sample(len(X))
    now = predictions_at(booster, X[rows], r)
    fig = go.Figure()
    if booster.objective == "reg:squarederror":
        if r > 0:
            prev = predictions_at(booster, X[rows], r - 1)
            fig.add_trace(go.Scatter(x=y[rows], y=prev, mode="markers",
                                     name=f"after round {r - 1}",
                                     marker={"color": PREVIOUS, "size": 6, "opacity": 0.4}))
        fig.add_trace(go.Scatter(x=y[rows], y=now, mode="markers", name=f"after round {r}",
                                 marker={"color": CURRENT, "size": 7, "opacity": 0.75}))
        lo, hi = float(np.min(y)), float(np.max(y))
        fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="perfect",
                                 line={"color": "#333", "dash": "dot"}, hoverinfo="skip"))
        style(fig, f"Predicted against actual after round {r}", large)
        fig.update_xaxes(title="actual")
        fig.update_yaxes(title="predicted")
        return fig
    proba = now if now.ndim == 2 else np.c_[1 - now, now]
    true_p = proba[np.arange(len(rows)), y[rows].astype(int)]
    for c in range(proba.shape[1]):
        sel = y[rows] == c
        label = class_names[c] if class_names else str(c)
        fig.add_trace(go.Box(y=true_p[sel], name=label, boxpoints="all", jitter=0.4,
                             pointpos=0, marker={"color": PALETTE[c % len(PALETTE)], "size": 5},
                             line={"color": PALETTE[c % len(PALETTE)]}))
    style(fig, f"Probability given to the true class after round {r}", large)
    fig.update_yaxes(title="P(true class)", range=[0, 1])
    fig.update_xaxes(title="true class")
    return fig
