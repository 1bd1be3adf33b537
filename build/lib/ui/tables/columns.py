"""What a table's columns suggest: poor features (``column_flags``), the likely target
(``default_target``) and the task a target column looks like (``infer_task``)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

MAX_CATEGORIES = 30  # a text column with more levels is treated as an identifier


def column_flags(frame: pd.DataFrame) -> dict[str, str]:
    """Columns that are poor features: constant, all missing, or identifier-like."""
    flags = {}
    n = len(frame)
    for name in frame.columns:
        col = frame[name]
        present = col.dropna()
        if present.empty:
            flags[name] = "all values missing"
        elif present.nunique() == 1:
            flags[name] = "constant"
        elif n >= 20 and present.nunique() == len(present) and (
            not pd.api.types.is_float_dtype(col) or _is_integer_valued(present)
        ) and (not pd.api.types.is_numeric_dtype(col) or _is_sequence(present)):
            flags[name] = "looks like an identifier (a different value in every row)"
        elif (not pd.api.types.is_numeric_dtype(col) and present.nunique() > MAX_CATEGORIES):
            flags[name] = f"text with {present.nunique()} different values (too many to encode)"
    return flags


# default_target: names that say "this is the target", and names of identifier columns
TARGET_NAMES = ("target", "label", "labels", "class", "y", "survived", "outcome", "price",
                "species", "response", "result", "churn", "default", "progression", "quality",
                "diagnosis", "salary", "income", "grade", "score", "category")
_ID_NAME = re.compile(r"(^|[_\s.-])(id|idx|index|name|ticket|uuid|key)$", re.IGNORECASE)
_CAMEL_ID = re.compile(r"[a-z](Id|ID|Name)$")  # PassengerId, userID, FullName
MAX_TARGET_LEVELS = 20  # a text column with more levels is not a default target
ID_MIN_ROWS = 10  # "a different value in every row" says little about fewer rows


def _can_be_target(name: str, col: pd.Series) -> bool:
    """Not an identifier (by name, or a different text or a counter in every row), not text
    with many levels, and at least two values."""
    present = col.dropna()
    levels = present.nunique()
    if levels < 2 or _ID_NAME.search(name) or _CAMEL_ID.search(name):
        return False
    numeric = pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)
    # one value per row: text, or whole numbers counting up (0, 1, 2, ...; whole numbers
    # that are merely all different, as prices can be, stay candidates)
    if (len(present) >= ID_MIN_ROWS and levels == len(present)
            and (not numeric or (_is_integer_valued(present) and _is_sequence(present)))):
        return False
    return numeric or (levels <= MAX_TARGET_LEVELS and levels <= 0.5 * len(present))


def default_target(frame: pd.DataFrame) -> str:
    """The column an upload most likely wants to predict: among the columns that can be a
    target (``_can_be_target``), the first named like one (``TARGET_NAMES``: Survived,
    label, price, ...), else the last; the last column when none can."""
    names = [str(c) for c in frame.columns]
    fit = [c for c, name in zip(frame.columns, names, strict=True)
           if _can_be_target(name, frame[c])]
    named = [c for c in fit if str(c).strip().lower() in TARGET_NAMES]
    return (named or fit or list(frame.columns))[0 if named else -1]


def _is_integer_valued(s: pd.Series) -> bool:
    return bool(np.all(np.asarray(s, dtype=float) == np.round(np.asarray(s, dtype=float))))


def _is_sequence(s: pd.Series) -> bool:
    v = np.sort(np.asarray(s, dtype=float))
    return bool(np.all(np.diff(v) == 1))


def infer_task(y: pd.Series) -> str:
    """'regression', 'binary' or 'multiclass' (``boost.objectives``' task names) from the
    target column."""
    present = y.dropna()
    levels = present.nunique()
    if not pd.api.types.is_numeric_dtype(present) or pd.api.types.is_bool_dtype(present):
        return "binary" if levels == 2 else "multiclass"
    if levels == 2:
        return "binary"
    # Small non-negative integer codes with several rows per code look like classes.
    if (levels <= 10 and _is_integer_valued(present) and present.min() >= 0
            and len(present) >= 5 * levels):
        return "multiclass"
    return "regression"
