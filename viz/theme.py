"""One theme for every figure: colour-blind-safe colours and projector-readable type."""

from __future__ import annotations

import re

import numpy as np
import plotly.graph_objects as go

from boost.metrics import higher_is_better
from boost.trace.rounding import rounded

# Okabe & Ito (2008), safe for the common colour-vision deficiencies.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#000000"]
TRAIN = PALETTE[0]
VALID = PALETTE[1]
CURRENT = PALETTE[5]
PREVIOUS = "#7F7F7F"
DIVERGING = [[0.0, "#0072B2"], [0.5, "#F7F7F7"], [1.0, "#D55E00"]]

# A legend under the plot, at the figure's bottom edge (the margin below the plot holds it
# and the x axis's title): in a half-width column, a legend on top runs into the title.
BELOW = {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "xanchor": "left",
         "x": 0}

BASE_FONT = 15
LARGE_FONT = 21


def layout(title: str, large: bool = False, height: int = 420, xtitle: str = "",
           ytitle: str = "", **extra) -> dict:
    """The shared layout as a dict: white background, large readable type, legend on top.

    Figures are built in one ``go.Figure(data=traces, layout=layout(...))`` call: Plotly's
    incremental ``add_trace``/``update_layout`` (and assigning a template, which deep-copies
    it) cost tens of milliseconds per figure, too slow for stepping.
    """
    size = LARGE_FONT if large else BASE_FONT
    axis = {"gridcolor": "#E5E5E5", "zerolinecolor": "#BDBDBD", "linecolor": "#BDBDBD",
            "automargin": True}
    out = {
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "title": {"text": title, "font": {"size": size + 3}, "x": 0.0, "xanchor": "left"},
        "font": {"size": size, "family": "Source Sans Pro, Arial, sans-serif",
                 "color": "#111111"},  # high contrast on white (a projector washes grey out)
        "height": height + (80 if large else 0),
        "margin": {"l": 60, "r": 20, "t": 70, "b": 55},
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right",
                   "x": 1.0},
        "hoverlabel": {"font": {"size": size}},
        "xaxis": {**axis, "title": {"text": xtitle}},
        "yaxis": {**axis, "title": {"text": ytitle}},
    }
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


def loss_title(metric: str) -> str:
    """A loss chart's name for its metric: 'Loss (rmse)', or for a metric that rises as the
    model improves (ndcg@k, map@k, auc) the metric itself, 'ndcg@32 (higher is better)'."""
    return f"{metric} (higher is better)" if higher_is_better(metric) else f"Loss ({metric})"


def short(x: float) -> str:
    """A number for a label, as a reader sees every number (boost/trace/rounding.py's rule:
    27,910, 120.33, 0.0123)."""
    return rounded(x)


def minus(text: str) -> str:
    """A number's text with its sign as the typographic minus (−) of a label's formula."""
    return "\u2212" + text[1:] if text.startswith("-") else text


def signs(text: str) -> str:
    """A label's negative numbers with the typographic minus, as the lessons write them
    ("w −0.427", "x < −3"); a hyphen in a name ("age-5") or an exponent (1e-05) stays."""
    return _NEGATIVE.sub("\u2212", text)


_NEGATIVE = re.compile(r"(?<![\w.])-(?=\.?\d)")


def threshold(x: float, digits: int = 4) -> str:
    """A split's threshold: a value of the data, not a computed number, so it keeps the
    digits that tell it from its neighbours (``digits`` significant; from 1,000 on, in a
    label, whole and thousands separated): 1.4525, not 1.45."""
    if x != x:  # NaN
        return "n/a"
    return f"{x:,.0f}" if digits <= 4 and abs(x) >= 1000 else f"{x:.{digits}g}"


# Points drawn per scatter; more rows are sampled (the model uses every row). SVG redraw time
# grows with the points (about 0.07 ms a point in headless Chromium): the fit's two clouds of
# 1000 took 104-158 ms to redraw, of 500 67-87 ms, and a step at 100k x 30 went from a median
# of 627 to 569 ms. Every sample dataset has fewer rows, so it is drawn whole. They stay SVG:
# Chromium re-creates a WebGL chart's context at every redraw, and a step at 100k x 30 redrew
# in 677 ms with 1000 SVG points against 821 ms with 3000 WebGL ones.
MAX_POINTS = 500
WEBGL_ABOVE = 1500  # SVG scatter gets slow in the browser above a few thousand points


def sample_rows(n: int, seed: int = 0) -> np.ndarray:
    """Indices of at most MAX_POINTS rows (all rows when there are fewer), sorted."""
    if n <= MAX_POINTS:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, MAX_POINTS, replace=False))


def scatter_type(n_points: int):
    """go.Scattergl for many points, go.Scatter otherwise."""
    return go.Scattergl if n_points > WEBGL_ABOVE else go.Scatter


def round_marker(round_idx: int) -> dict:
    """The dotted vertical line that marks the current round on a by-round chart."""
    return {"type": "line", "x0": round_idx, "x1": round_idx, "xref": "x", "y0": 0, "y1": 1,
            "yref": "paper", "line": {"color": CURRENT, "width": 2, "dash": "dot"}}


def best_round_marks(best_round: int, label: str) -> tuple[dict, dict]:
    """(shape, annotation): the round early stopping kept, as a dashed green line with a
    label at the top of the plot."""
    shape = {"type": "line", "x0": best_round, "x1": best_round, "xref": "x", "y0": 0,
             "y1": 1, "yref": "paper", "line": {"color": PALETTE[2], "width": 2,
                                                "dash": "dash"}}
    note = {"x": best_round, "xref": "x", "y": 1.0, "yref": "paper", "text": label,
            "showarrow": False, "xanchor": "left", "yanchor": "top", "xshift": 4,
            "font": {"color": PALETTE[2]}, "bgcolor": "rgba(255,255,255,0.85)"}
    return shape, note
