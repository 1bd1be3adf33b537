"""The node record as the page draws it: ``boost.trace.node_record``'s record with each gain
curve made the candidates chart (``viz.candidates``, the one figure of it). The page draws
the chart, the tables and the formulas from it in every host (the app's node route, the
offline files). docs/player.md, "The node record"."""

from __future__ import annotations

import json

import pandas as pd

from boost.trace.node_record import CURVE_COLUMNS

from .candidates import make_candidates_figure

_COLUMNS = {name: column for column, name in CURVE_COLUMNS.items()}


def curve_frame(curve: dict) -> pd.DataFrame:
    """A record's gain curve as the frame ``make_candidates_figure`` reads."""
    frame = pd.DataFrame({column: curve[name] for name, column in _COLUMNS.items()})
    for column in ("DefaultLeft", "Valid", "Best"):
        frame[column] = frame[column].astype(bool)
    return frame.astype({c: float for c in ("Threshold", "Gain")})


def page_record(record: dict, gamma: float, large: bool = False) -> dict:
    """``record`` with ``charts`` ({feature: the candidates chart, Plotly's JSON}) in place
    of ``curves``: the page draws the chart, whose traces hold the curve's numbers."""
    refused = bool(record["numbers"].get("refused"))
    charts = {}
    for feature, curve in record["curves"].items():
        parent = curve["s_node"]
        figure = make_candidates_figure(curve_frame(curve), feature, gamma, large=large,
                                        refused=refused,
                                        parent=float("nan") if parent is None else parent)
        charts[feature] = json.loads(figure.to_json())
    return {**{k: v for k, v in record.items() if k != "curves"}, "charts": charts}
