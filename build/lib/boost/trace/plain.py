"""JSON values from what the trace and its figures hold: numpy arrays, scalars and pandas
Series as Python lists and numbers, NaN and ±infinity as None (JSON has neither, and the
page's JSON.parse refuses them). One function for every record the page reads: the round
trace's figures (``viz.round_trace``) and the node record (``node_record``)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def plain(value):
    """``value`` as JSON values (dicts, lists, str, bool, int, float, None)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (np.ndarray, pd.Series)):
        a = np.asarray(value)
        if a.dtype.kind in "biu":  # every value a JSON number already
            return a.tolist()
        if a.dtype.kind == "f":  # (a node's gain curves: thousands of numbers a record)
            out = a.astype(object)
            out[~np.isfinite(a)] = None
            return out.tolist()
        return plain(a.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, (bool, int, str)):
        return value
    return None if pd.isna(value) else str(value)
