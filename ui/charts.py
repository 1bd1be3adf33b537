"""What every chart on the screen shares: Plotly's toolbar settings, the presenter's chart
height and class names."""

from __future__ import annotations

import streamlit as st

from .state import AppState, Shown


def chart_config(state: AppState) -> dict:
    """Plotly's toolbar; the camera button saves PNG or SVG (the sidebar's choice)."""
    return {"displaylogo": False,
            "toImageButtonOptions": {"format": state.export_format or "png", "scale": 2,
                                     "filename": "boostscope"}}


def show(fig, key: str, state: AppState, shown: Shown, **kwargs) -> None:
    """Draw a figure; in a presenter panel at the height the panel leaves."""
    if shown.height:
        fig.layout.height = shown.height
        fig.layout.margin.t = min(fig.layout.margin.t or 70, 60)
    config = {**chart_config(state), **kwargs.pop("config", {})}
    st.plotly_chart(fig, key=key, config=config, **kwargs)


def class_name(shown: Shown, k: int) -> str:
    names = shown.prep.class_names or []
    return names[k] if k < len(names) else str(k)
