"""One theme for every figure: colour-blind-safe colours and projector-readable type."""

from __future__ import annotations

# Okabe & Ito (2008), safe for the common colour-vision deficiencies.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#000000"]
TRAIN = PALETTE[0]
VALID = PALETTE[1]
CURRENT = PALETTE[5]
PREVIOUS = "#7F7F7F"
DIVERGING = [[0.0, "#0072B2"], [0.5, "#F7F7F7"], [1.0, "#D55E00"]]

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
        "font": {"size": size, "family": "Source Sans Pro, Arial, sans-serif"},
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


def short(x: float) -> str:
    """A number for a label: thousands separated (27,910), else 4 significant digits."""
    if x != x:  # NaN
        return "n/a"
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"
