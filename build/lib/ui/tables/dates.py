"""Dates written as text in a CSV (``2024-03-15``, ``2024-03-15 08:30``, ``15.03.2024``,
``15/03/2024`` or ``03/15/2024``): read as days since 1970-01-01, as the Excel and Parquet
readers read date cells, so a model can split on them.

A column is read as dates only when every present value is a date of one pattern; slashed
dates are day first when a first part is over 12, month first when a second part is, and
otherwise follow the file's numbers (decimal commas: day first, as Europe writes them)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .checks import DATES_NOTE

_TIME = r"(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?"
PATTERNS = {  # name: (pattern, pandas' format, or None for slashed dates: decided per column)
    "iso": (re.compile(rf"\d{{4}}-\d{{1,2}}-\d{{1,2}}{_TIME}"), "ISO8601"),
    "dotted": (re.compile(rf"\d{{1,2}}\.\d{{1,2}}\.\d{{4}}{_TIME}"), "%d.%m.%Y"),
    "slashed": (re.compile(rf"\d{{1,2}}/\d{{1,2}}/\d{{4}}{_TIME}"), None),
}
EPOCH = pd.Timestamp("1970-01-01")


def _pattern(texts: pd.Series) -> str | None:
    for name, (pattern, _) in PATTERNS.items():
        if texts.map(lambda t, p=pattern: p.fullmatch(t) is not None).all():
            return name
    return None


def _slashed_format(texts: pd.Series, day_first: bool) -> str:
    parts = texts.str.extract(r"^(\d{1,2})/(\d{1,2})/").astype(int)
    if (parts[0] > 12).any():
        day_first = True
    elif (parts[1] > 12).any():
        day_first = False
    return "%d/%m/%Y" if day_first else "%m/%d/%Y"


def as_days(values: pd.Series, day_first: bool = False) -> pd.Series | None:
    """A text column's dates as days since 1970-01-01 (a time of day a fraction of a day),
    or None when it is not a column of dates."""
    texts = values.dropna().astype(str).str.strip()
    texts = texts[texts != ""]
    if texts.empty:
        return None
    name = _pattern(texts)
    if name is None:
        return None
    fmt = PATTERNS[name][1] or _slashed_format(texts, day_first)
    if name != "iso" and texts.str.contains(":").any():
        fmt = "mixed"  # (a time of day after the date)
    kwargs = {"dayfirst": fmt.startswith("%d")} if fmt == "mixed" else {}
    try:
        stamps = pd.to_datetime(values.astype("string").str.strip().replace("", pd.NA),
                                format=fmt, errors="raise", **kwargs)
    except (ValueError, OverflowError):
        return None  # (a 31 February: not a column of dates)
    return ((stamps - EPOCH) / pd.Timedelta(days=1)).astype(np.float64)


def read_dates(frame: pd.DataFrame, day_first: bool = False) -> tuple[pd.DataFrame, list[str]]:
    """``frame`` with each text column of dates read as days since 1970-01-01, and a note."""
    read = {}
    for column in frame.columns:
        if frame[column].dtype.kind in "iufbmM":
            continue
        days = as_days(frame[column], day_first)
        if days is not None:
            read[column] = days
    if not read:
        return frame, []
    names = ", ".join(repr(c) for c in read)
    return frame.assign(**read), [f"Read the date column(s) {names} {DATES_NOTE}."]
