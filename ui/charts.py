"""What every chart on the screen shares: Plotly's toolbar settings and class names."""

from __future__ import annotations

from .state import AppState, Shown


def chart_config(state: AppState) -> dict:
    """Plotly's toolbar; the camera button saves PNG or SVG (the sidebar's choice)."""
    return {"displaylogo": False,
            "toImageButtonOptions": {"format": state.export_format or "png", "scale": 2,
                                     "filename": "boostscope"}}


def class_name(shown: Shown, k: int) -> str:
    names = shown.prep.class_names or []
    return names[k] if k < len(names) else str(k)
