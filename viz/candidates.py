"""Every candidate split of the selected node: gain against threshold for one feature."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .theme import BELOW, CURRENT, PALETTE, layout, short

BLOCKED = "#9E9E9E"
MARKED = 150  # candidates a series draws with markers; more are a line (a marker each is
# a blur at that density, and thousands of them slow the page's redraw at every click)
LABELLED = 10  # candidates a series labels with their gains (a handful, as the four points'
# three: the numbers a student compares; more would cover the curve)
# a gain curve's columns the chart reads, and those its hover shows (in customdata's order)
_HOVER = ("SumGradLeft", "SumHessLeft", "SumGradRight", "SumHessRight", "CountLeft",
          "CountRight")
_COLUMNS = ("Threshold", "Gain", "DefaultLeft", "Valid", "Best") + _HOVER


def make_candidates_figure(curve: pd.DataFrame, feature: str, gamma: float = 0.0,
                           large: bool = False, refused: bool = False,
                           parent: float | None = None) -> go.Figure:
    """The candidates chart (``candidates_spec``) as a figure."""
    return go.Figure(candidates_spec(curve, feature, gamma, large, refused, parent))


def candidates_spec(curve: pd.DataFrame, feature: str, gamma: float = 0.0,
                    large: bool = False, refused: bool = False,
                    parent: float | None = None) -> dict:
    """The candidates chart as Plotly's ``{"data": traces, "layout": layout}`` of plain dicts
    and arrays (what ``go.Figure`` takes; a node's record carries it without building one:
    ``viz.node_page.chart_json``). ``curve``: the node's gain curve of ``feature``
    (``NodeDetail.curves[feature]``): the gain of every threshold, one series per default
    direction (missing → left / right), min_child_weight-blocked ones grey with their range
    shaded, the chosen split starred, and the γ line; the x range frames the valid
    thresholds. Candidates that put every row on one side (hist's last bin edge, for one)
    split nothing and are not in the curve (the table keeps them). ``refused``: the best
    split was refused by γ before growing it (hist, approx), and is labelled so.
    ``parent``: the node's similarity the gains are measured from (default: the curve's
    ``SimilarityParent``)."""
    # the curve's columns once, as arrays: a chart is drawn at every node click, and a
    # frame filtered a dozen times cost milliseconds of pandas a chart
    c = {name: curve[name].to_numpy() for name in _COLUMNS}
    threshold, gain, default_left, ok = c["Threshold"], c["Gain"], c["DefaultLeft"], c["Valid"]
    traces = []
    shapes = []
    directions = sorted(set(default_left.tolist()), reverse=True)
    # both directions scored: each says at how many thresholds it had the larger gain, while
    # a marker a candidate can be counted (a thinned side, over boost.trace.nodes.CURVE_POINTS
    # candidates, keeps at least CURVE_POINTS // 2 > MARKED: its count would be the points')
    sides = [default_left == d for d in directions]
    whole = all(side.sum() <= MARKED for side in sides)
    thresholds, *won = (_won(threshold, gain, default_left) if len(directions) == 2 and whole
                        else (0, 0, 0))
    for i, (direction, side) in enumerate(zip(directions, sides, strict=True)):
        name = "missing → left (yes)" if direction else "missing → right (no)"
        if thresholds:
            name += f", better at {won[0 if direction else 1]} of {thresholds}"
        if len(directions) == 1:
            name = "candidates"
        valid = side & ok
        n_valid = int(valid.sum())
        # a marker a candidate while they can be told apart; a handful each say their gain,
        # by the rule of every number a reader sees (as the tree and the arithmetic)
        few = n_valid <= LABELLED
        labels = ({"text": [short(g) for g in gain[valid]], "textposition": "top center",
                   "textfont": {"color": PALETTE[i]}, "cliponaxis": False} if few else {})
        traces.append(dict(
            type="scatter", x=threshold[valid], y=gain[valid],
            mode="lines+markers+text" if few else "lines+markers" if n_valid <= MARKED
            else "lines", **labels,
            name=name, line={"color": PALETTE[i], "width": 2}, marker={"size": 7},
            customdata=np.c_[tuple(c[k][valid] for k in _HOVER)],
            hovertemplate=(f"{feature} < %{{x:.6g}}<br>gain %{{y:.6g}}<br>"
                           "left: G %{customdata[0]:.5g}, H %{customdata[1]:.5g}, "
                           "n %{customdata[4]}<br>right: G %{customdata[2]:.5g}, "
                           "H %{customdata[3]:.5g}, n %{customdata[5]}<extra></extra>")))
        blocked = side & ~ok
        if blocked.any():
            traces.append(dict(
                type="scatter", x=threshold[blocked], y=gain[blocked],
                mode="markers",
                name="blocked by min_child_weight", showlegend=i == 0,
                marker={"color": BLOCKED, "symbol": "x", "size": 8},
                hovertemplate=f"{feature} < %{{x:.6g}}<br>gain %{{y:.6g}}<br>blocked: a child "
                              "has H < min_child_weight<extra></extra>"))
            for lo, hi in _runs(threshold[side], ~ok[side]):
                shapes.append({"type": "rect", "xref": "x", "yref": "paper", "x0": lo,
                               "x1": hi, "y0": 0, "y1": 1, "fillcolor": BLOCKED,
                               "opacity": 0.15, "line": {"width": 0}, "layer": "below"})
    best = c["Best"]
    if best.any():
        traces.append(dict(
            type="scatter", x=threshold[best], y=gain[best], mode="markers",
            name="best split, refused by γ" if refused else "chosen split",
            marker={"color": CURRENT, "symbol": "star", "size": 20,
                    "line": {"width": 1, "color": "white"}},
            hovertemplate=("refused" if refused else "chosen")
            + f": {feature} < %{{x:.6g}}<br>gain %{{y:.6g}}<extra></extra>"))
    shapes.append({"type": "line", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "y0": gamma,
                   "y1": gamma, "line": {"color": CURRENT, "dash": "dash", "width": 2}})
    if parent is None:
        parent = float(curve.SimilarityParent.iloc[0]) if len(curve) else float("nan")
    # S_L + S_R of every candidate: the size of the numbers the parent is compared with
    scale = float(np.fmax.reduce(np.abs(gain + parent))) if len(curve) else 0
    if abs(parent) < 1e-6 * scale:  # float noise of a parent whose G is about 0: say 0
        parent = 0.0
    note = {"xref": "paper", "x": 1.0, "xanchor": "right", "yref": "y", "y": gamma,
            "yanchor": "bottom", "text": f"γ = {gamma:g}", "showarrow": False,
            "font": {"color": CURRENT}}
    valid = threshold[ok]
    frame = {}
    if len(valid) >= 2 and valid[-1] > valid[0]:
        # Frame the valid thresholds: the blocked "every present value on one side" ones sit
        # at sentinel thresholds (about twice the largest value) and would squash the peak.
        pad = 0.05 * (valid[-1] - valid[0])
        frame = {"range": [float(valid[0] - pad), float(valid[-1] + pad)]}
    return dict(data=traces, layout=layout(
        f"Gain of every split on {feature}", large, height=440,
        xtitle=f"threshold: {feature} < it goes left",  # short: a half-width column cut it
        ytitle=f"gain = S_L + S_R − {short(parent)}", shapes=shapes, annotations=[note],
        # four entries would wrap over the title on top; placed a fixed distance under the
        # plot they ran into the x axis's title in a half-width column: at the bottom edge
        legend=BELOW, margin={"b": 150}, xaxis=frame))


def directions_won(curve: pd.DataFrame) -> tuple[int, int, int]:
    """(thresholds, won by missing → left, won by missing → right) of a gain curve
    (``gain_curve``, not thinned): at each threshold the default direction with the larger
    gain (on a tie, the first in the curve; a NaN gain loses), as the candidates chart's
    legend counts them."""
    return _won(curve.Threshold.to_numpy(), curve.Gain.to_numpy(), curve.DefaultLeft.to_numpy())


def _won(threshold: np.ndarray, gain: np.ndarray, default_left: np.ndarray
         ) -> tuple[int, int, int]:
    """``directions_won`` of a curve's columns."""
    gain = np.asarray(gain, dtype=float)
    missing = np.isnan(gain)
    # largest gain first, NaN last, ties in the curve's order
    order = np.lexsort((np.arange(len(gain)), -np.where(missing, 0.0, gain), missing))
    _, first = np.unique(threshold[order], return_index=True)
    left = int(np.count_nonzero(default_left[order][first]))
    return len(first), left, len(first) - left


def _runs(x: np.ndarray, mask: np.ndarray) -> list[tuple[float, float]]:
    """Contiguous ranges of x where mask holds (x sorted), widened to half the neighbours'
    spacing so a single blocked threshold still shows."""
    runs, start = [], None
    for i, m in enumerate(mask):
        if m and start is None:
            start = i
        if (not m or i == len(mask) - 1) and start is not None:
            end = i if m else i - 1
            lo = x[start] - (x[start] - x[start - 1]) / 2 if start > 0 else x[start]
            hi = x[end] + (x[end + 1] - x[end]) / 2 if end + 1 < len(x) else x[end]
            runs.append((float(lo), float(hi)))
            start = None
    return runs
