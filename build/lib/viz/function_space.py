"""Gradient descent in function space: the margins F of two training rows as a point.

Boosting moves the vector of margins F = (F(row a), F(row b), ...) one tree at a time. In
the plane of two rows the path F(0), F(1), ... is drawn with the negative gradient −g at the
current round and the step the next tree took (F(r+1) − F(r) = η·w of each row's leaf); for
a loss whose hessian varies (logistic), the Newton step −g/h that XGBoost's leaves aim at.
The numbers are the model's ``FunctionSpace`` record (``booster.trace.function_space``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from boost.trace.function_space import FunctionSpace

from .theme import PALETTE, PREVIOUS, layout, short

GRADIENT = PALETTE[0]
STEP = PALETTE[5]
NEWTON = PALETTE[3]
TARGET = PALETTE[2]
HERE = PALETTE[7]
MAX_ROUND_LABELS = 12  # round numbers written next to the path up to this many rounds


def _arrow(start, end, name: str, color: str, large: bool, dash: str = "solid",
           width: float = 3.5, opacity: float = 1.0) -> go.Scatter:
    """A line from ``start`` to ``end`` with an arrow head at the end (in the legend)."""
    head = (22 if large else 18) + 2 * (width - 3.5)
    return go.Scatter(
        x=[float(start[0]), float(end[0])], y=[float(start[1]), float(end[1])],
        mode="lines+markers", name=name, line={"color": color, "width": width, "dash": dash},
        marker={"symbol": "arrow", "angleref": "previous", "size": [0, head], "color": color},
        opacity=opacity,
        hovertemplate=f"{name}<br>to (%{{x:.4g}}, %{{y:.4g}})<extra></extra>")


def _path_traces(fs: FunctionSpace, large: bool) -> list:
    rounds = np.arange(len(fs.path))
    few = len(rounds) <= MAX_ROUND_LABELS
    text = [str(r) if few or r in (0, rounds[-1]) else "" for r in rounds]
    traces = [go.Scatter(x=fs.path[:, 0], y=fs.path[:, 1], mode="lines+markers+text",
                         name="F after rounds 0..r", text=text, textposition="top left",
                         textfont={"size": 16 if large else 13, "color": PREVIOUS},
                         line={"color": PREVIOUS, "width": 2},
                         marker={"size": 9 if large else 7, "color": PREVIOUS},
                         customdata=rounds,
                         hovertemplate="round %{customdata}: F = (%{x:.4g}, %{y:.4g})"
                                       "<extra></extra>")]
    if fs.target is not None:
        traces.append(go.Scatter(x=[fs.target[0]], y=[fs.target[1]], mode="markers",
                                 name="y (loss 0)", hovertemplate="y = (%{x:.4g}, %{y:.4g})"
                                                                  "<extra></extra>",
                                 marker={"symbol": "star", "size": 22 if large else 18,
                                         "color": TARGET}, opacity=0.7))
    return traces


def make_function_space_figure(fs: FunctionSpace, names: tuple[str, str], large: bool = False,
                               newton: bool = False) -> go.Figure:
    """The plane (F(row a), F(row b)) with equal scales, so directions are true.

    ``newton=False``: the path of F, y when it is a point, −g and the next tree's step.
    ``newton=True``: only the current point, with −g, −g/h and the tree's step.
    """
    here = fs.current
    traces = [] if newton else _path_traces(fs, large)
    # −g wide and pale underneath, so the tree's step stays visible where it follows −g; the
    # legend says −g and the current F as points of the plane (the rounding rule's numbers)
    traces.append(_arrow(here, here - fs.grad, f"−g (negative gradient) = {_point(-fs.grad)}",
                         GRADIENT, large, width=8, opacity=0.45))
    if newton and np.all(fs.hess > 0):
        traces.append(_arrow(here, here + newton_step(fs), "−g/h (Newton step)", NEWTON,
                             large, dash="dash"))
    if fs.step is not None:
        traces.append(_arrow(here, here + fs.step, f"tree {fs.round_idx + 1}'s step η·w",
                             STEP, large))
    traces.append(go.Scatter(x=[here[0]], y=[here[1]], mode="markers",
                             name=f"F({fs.round_idx}) = {_point(here)}",
                             marker={"size": 16 if large else 13, "color": HERE,
                                     "line": {"width": 2, "color": "white"}},
                             hovertemplate="F = (%{x:.4g}, %{y:.4g})<extra></extra>"))
    title = (f"Gradient vs Newton step at round {fs.round_idx}" if newton
             else f"F in function space, round {fs.round_idx}")
    return go.Figure(data=traces, layout=layout(
        title, large, height=480, xtitle=f"F({names[0]})",
        ytitle=f"F({names[1]})",
        yaxis={"scaleanchor": "x", "scaleratio": 1},
        legend={"orientation": "h", "yanchor": "top", "y": -0.3 if large else -0.2,
                "xanchor": "left", "x": 0.0},
        margin={"b": 200 if large else 100}))


def _point(v) -> str:
    """A point of the plane as a reader sees it: (0.9, −0.3)."""
    return f"({short(v[0])}, {short(v[1])})".replace("-", "−")


def newton_step(fs: FunctionSpace) -> np.ndarray:
    """−g/h per row (NaN where h = 0: a row of weight 0 has no Newton step)."""
    return np.divide(-fs.grad, fs.hess, out=np.full(2, np.nan, dtype=np.float32),
                     where=fs.hess > 0)


def function_space_table(fs: FunctionSpace, names: tuple[str, str]) -> pd.DataFrame:
    """The numbers behind the arrows: one line per quantity, one column per row."""
    lines = {"y": fs.label, f"F({fs.round_idx})": fs.current, "g": fs.grad, "h": fs.hess,
             "−g": -fs.grad, "−g/h": newton_step(fs)}
    if fs.step is not None:
        lines[f"tree {fs.round_idx + 1}: η·w"] = fs.step
    return pd.DataFrame({name: [float(v[i]) for v in lines.values()]
                         for i, name in enumerate(names)}, index=list(lines))


def describe_step(fs: FunctionSpace) -> str:
    """The angle between −g and the tree's step, in words."""
    if fs.step is None:
        return "This is the last round: no tree follows."
    a, b = -fs.grad.astype(float), fs.step.astype(float)
    norm = np.linalg.norm(a) * np.linalg.norm(b)
    if norm == 0:
        return "The gradient or the step is zero here."
    angle = np.degrees(np.arccos(np.clip(a @ b / norm, -1.0, 1.0)))
    return (f"The tree's step is {short(angle)}° from −g and "
            f"{short(np.linalg.norm(b) / np.linalg.norm(a))}× as long.")
