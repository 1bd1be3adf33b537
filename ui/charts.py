"""What every chart on the screen shares: Plotly's toolbar settings, the presenter's chart
height, class names, and the chart element that is updated in place."""

from __future__ import annotations

from pathlib import Path

import plotly
import plotly.io
import streamlit as st
import streamlit.components.v2 as components_v2

from boost.trace.fit import quantile_alphas
from viz.fit import alpha_text
from viz.page_js import loader

from . import routes
from .state import AppState, Screen, Shown

SLIDE = {"width": 1920, "height": 1080, "scale": 1}  # a presenter's camera button: one slide
DEFAULT_HEIGHT = 450  # px, Plotly's (and st.plotly_chart's) when a figure sets none

# A chart kept on the page and updated in place (ui/chart.js): Streamlit 1.67 draws a changed
# st.plotly_chart from nothing, so a step redrew every chart (docs/design.md).
_CHART = components_v2.component("boostscope_chart",
                                 js=loader(Path(__file__).with_name("chart.js")),
                                 isolate_styles=False)


def format_ui() -> str:
    """The camera button's format (the sidebar's choice)."""
    return st.segmented_control("Chart download format (camera button)", ["png", "svg"],
                                key=Screen.export_format.key)


def plotly_url() -> str:
    """Where the page loads Plotly.js from: the app's own route (``ui.routes``)."""
    return routes.path(routes.PLOTLY)


def chart_config(state: AppState) -> dict:
    """Plotly's toolbar; the camera button saves PNG or SVG (the sidebar's choice), in
    presenter mode and lessons as a 1920×1080 PNG."""
    if state.presenter.on or state.lesson.slug:
        return {"displaylogo": False,
                "toImageButtonOptions": {"format": "png", "filename": "boostscope", **SLIDE}}
    return {"displaylogo": False,
            "toImageButtonOptions": {"format": state.screen.export_format or "png", "scale": 2,
                                     "filename": "boostscope"}}


def at_least(fig, size: int) -> None:
    """No text of ``fig`` under ``size`` px: every font size set below it is raised (the
    layout's, titles, ticks, legend, hover, annotations and the traces' text)."""
    def raise_font(font) -> None:
        if font is not None and font.size is not None and font.size < size:
            font.size = size

    layout = fig.layout
    if layout.font.size is None or layout.font.size < size:
        layout.font.size = size
    for font in (layout.title.font, layout.legend.font, layout.hoverlabel.font):
        raise_font(font)
    for axis in [layout[name] for name in layout if name.startswith(("xaxis", "yaxis"))]:
        raise_font(axis.tickfont)
        raise_font(axis.title.font)
    for note in layout.annotations:
        raise_font(note.font)
    for trace in fig.data:
        for name in ("textfont", "insidetextfont", "outsidetextfont"):
            if name in trace:
                font = trace[name]
                if font.size is not None and not isinstance(font.size, (int, float)):
                    font.size = [max(s, size) for s in font.size]
                else:
                    raise_font(font)
        if "marker" in trace and "colorbar" in trace.marker:
            raise_font(trace.marker.colorbar.tickfont)


def show(fig, key: str, state: AppState, shown: Shown, exact: bool = False,
         on_select=None, config: dict | None = None) -> None:
    """Draw a figure; in a presenter panel at the height the panel leaves, no text under
    16 px. ``exact``: the figure's size and margins are part of its layout (the tree's y axis
    is in pixels) and stay as they are. ``on_select``: called when a point is clicked (read
    the clicked id with ``clicked_id(st.session_state[key])``); ``config``: more of Plotly's config.
    The chart stays on the page across reruns and is redrawn in place (ui/chart.js)."""
    if shown.large:
        at_least(fig, 16)
    if shown.compact and not exact and fig.layout.showlegend is not False:
        # a presenter panel is narrow: the legend goes under the plot, not over the title
        fig.layout.legend.update(orientation="h", yref="container", y=0, yanchor="bottom",
                                 x=0, xanchor="left")
        entries = sum(1 for t in fig.data  # (a table has no legend entry)
                      if getattr(t, "showlegend", False) is not False and t.name)
        rows = -(-entries // max(1, (shown.width or 600) // 260))  # about 260 px an entry
        fig.layout.margin.b = max(fig.layout.margin.b or 0, 70 + 30 * rows)
    if shown.height and not exact:
        fig.layout.height = shown.height
        fig.layout.margin.t = min(fig.layout.margin.t or 70, 60)
    config = {**chart_config(state), **(config or {})}
    _CHART(key=key, data={"figure": plotly.io.to_json(fig, validate=False),
                          "config": {**config, "responsive": True},
                          "height": fig.layout.height or DEFAULT_HEIGHT,
                          "panel": bool(shown.large and shown.height), "exact": exact,
                          "plotly": plotly_url(),
                          "select": on_select is not None},
           **({"on_select_change": on_select} if on_select else {}))


def clicked_id(event) -> int | None:
    """The id a clicked point carries (its first ``customdata``: a tree's node, a Lab cell's
    index) in a selection event; None if the event holds none."""
    try:
        points = event["select"]["selection"]["points"]
    except (KeyError, TypeError):
        return None
    for point in points:
        data = point.get("customdata")
        if isinstance(data, list | tuple):
            data = data[0] if data else None
        if data is not None:
            return int(data)
    return None


def class_name(shown: Shown, k: int) -> str:
    names = shown.prep.class_names or []
    return names[k] if k < len(names) else str(k)


def class_picker(shown: Shown, key: str, label: str = "Class", where=st) -> int:
    """The class whose trees a view draws: 0, or the one chosen (in ``where``) when there
    are several."""
    if shown.booster.num_groups == 1:
        return 0
    alphas = quantile_alphas(shown.booster)
    if alphas is not None:  # several quantiles: one tree per alpha
        return where.selectbox("Quantile" if label == "Class" else label,
                               list(range(shown.booster.num_groups)), key=key,
                               format_func=lambda k: alpha_text(alphas[k]))
    return where.selectbox(label, list(range(shown.booster.num_groups)), key=key,
                           format_func=lambda k: f"{k}: {class_name(shown, k)}")
