"""The node record as the page draws it: ``boost.trace.node_record``'s record with each gain
curve made the candidates chart (``viz.candidates``, the one figure of it), as Plotly's JSON.
The page draws the chart, the tables and the formulas from it in every host (the app's node
route, the offline files). docs/player.md, "The node record"."""

from __future__ import annotations

import functools
import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from _plotly_utils.utils import to_typed_array_spec

from .candidates import candidates_spec


@functools.cache
def _template() -> dict:
    """The layout template Plotly writes into every figure's JSON (its default's), once."""
    return json.loads(go.Figure().to_json())["layout"]["template"]


def _typed(value):
    """``value`` with its arrays written as Plotly's typed arrays (base64), as ``to_json``
    writes them."""
    if isinstance(value, np.ndarray):  # (an empty one, or one Plotly.js has no type for:
        typed = to_typed_array_spec(value)  # a list)
        return typed.tolist() if isinstance(typed, np.ndarray) else typed
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return value


def chart_json(spec: dict) -> dict:
    """A chart's ``{"data", "layout"}`` (``candidates_spec``) as ``go.Figure(spec).to_json()``
    would write it, without building the figure (that validates every property: 5-13 ms a
    chart, paid at every node click): tests hold the two equal."""
    return {"data": _typed(spec["data"]),
            "layout": {**_typed(spec["layout"]), "template": _template()}}


def curve_chart(curve: pd.DataFrame, feature: str, gamma: float, refused: bool,
                large: bool = False) -> dict:
    """The candidates chart of ``feature`` from its gain curve (``NodeDetail.curves``), as
    Plotly's JSON; its gains are measured from the curve's ``SimilarityParent``."""
    parent = float(curve.SimilarityParent.iloc[0]) if len(curve) else float("nan")
    return chart_json(candidates_spec(curve, feature, gamma, large=large, refused=refused,
                                      parent=parent))


def page_record(record: dict, chart) -> dict:
    """``record`` with ``charts`` ({feature: ``chart(feature)``, the candidates chart as
    Plotly's JSON}) in place of ``curves``: the page draws the chart, whose traces hold the
    curve's numbers."""
    return {**{k: v for k, v in record.items() if k != "curves"},
            "charts": {feature: chart(feature) for feature in record["curves"]}}
