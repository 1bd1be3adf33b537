"""Numbers written the way a spreadsheet exported them: ``1,234.5`` (decimal point, commas
between thousands) or ``1.234,5`` (decimal comma, points or spaces between thousands, as
most of Europe writes them).

A CSV reader leaves a column of ``10,38`` as text and reads ``1.234`` as one and a bit.
``read_styled`` reads each column the way its own text reads as numbers (``reads_as``); a
column that reads both ways ("1,234": a thousand and more, or one and a bit) takes the
file's way (``file_style``: the way most of its other columns read; semicolons between
cells tip a tie towards decimal commas) or the user's choice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

POINT = "point"  # 1,234.5
COMMA = "comma"  # 1.234,5 (or 1 234,5)
STYLES = {POINT: "decimal point (1,234.5)", COMMA: "decimal comma (1.234,5)"}

_EXP = r"(?:[eE][+-]?\d+)?"
_SPACES = "\u00a0\u202f "  # a space, a no-break space, a narrow no-break space (French)
_PATTERNS = {
    POINT: re.compile(rf"[+-]?(?:\d{{1,3}}(?:,\d{{3}})+|\d*)(?:\.\d+|\.)?{_EXP}"),
    COMMA: re.compile(rf"[+-]?(?:\d{{1,3}}(?:\.\d{{3}})+|\d{{1,3}}(?:[{_SPACES}]\d{{3}})+|\d*)"
                      rf"(?:,\d+|,)?{_EXP}"),
}
_THOUSANDS = {POINT: ",", COMMA: "." + _SPACES}


def _has_digit(text: str) -> bool:
    return any(c.isdigit() for c in text)


def reads_as(values: pd.Series, style: str) -> bool:
    """Whether every present value of a text column is a number written ``style``'s way."""
    pattern = _PATTERNS[style]
    texts = values.dropna().astype(str).str.strip()
    texts = texts[texts != ""]
    return len(texts) > 0 and all(pattern.fullmatch(t) and _has_digit(t) for t in texts)


def parse(values: pd.Series, style: str) -> pd.Series:
    """The column's numbers read ``style``'s way (float64; blanks are missing)."""
    texts = values.astype("string").str.strip()
    for mark in _THOUSANDS[style]:
        texts = texts.str.replace(mark, "", regex=False)
    if style == COMMA:
        texts = texts.str.replace(",", ".", regex=False)
    texts = texts.mask(texts == "")
    return pd.to_numeric(texts, errors="coerce").astype(np.float64)


def _dotted(values: pd.Series) -> bool:
    return values.astype(str).str.contains(".", regex=False).any()


def _ways(text: pd.DataFrame) -> dict[str, tuple[bool, bool]]:
    """{column: (reads with decimal points, reads with decimal commas)}, each column's text
    matched once for the file's way, its reading and the choice."""
    return {c: (reads_as(text[c], POINT), reads_as(text[c], COMMA)) for c in text.columns}


def file_style(text: pd.DataFrame, delimiter: str | None = None, ways=None) -> str:
    """The way the file writes its numbers: the way more of its unambiguous columns read
    (decimal points counted only where a column holds one); on a tie, decimal commas in a
    semicolon-separated file (a European export), else decimal points."""
    ways = ways or _ways(text)
    commas = sum(comma and not point for point, comma in ways.values())
    points = sum(point and not comma and _dotted(text[c]) for c, (point, comma) in ways.items())
    if commas != points:
        return COMMA if commas > points else POINT
    return COMMA if delimiter == ";" else POINT


def read_numbers(frame: pd.DataFrame, text: pd.DataFrame, style: str, ways=None
                 ) -> tuple[pd.DataFrame, dict[str, str]]:
    """``frame`` (as read, numbers in decimal points) with the columns ``style`` changes
    read again from ``text`` (the same table, every cell as written), and {column: the way
    it was read} for those. A text column that reads as numbers is read the way it reads
    (``style`` when both); with ``style`` = ``COMMA``, a number column whose every value
    also reads with decimal commas ("1.234": a thousand and more) is read that way."""
    ways = ways or _ways(text)
    styles = {}
    for column in frame.columns:
        point, comma = ways[column]
        if frame[column].dtype.kind in "iufb":  # pandas read it with decimal points
            if style == COMMA and comma and _dotted(text[column]):
                styles[column] = COMMA
        elif point or comma:
            styles[column] = style if point and comma else POINT if point else COMMA
    if not styles:
        return frame, {}
    out = frame.copy()
    for column, way in styles.items():
        out[column] = parse(text[column], way)
    return out, styles


def both_ways(text: pd.DataFrame, ways=None) -> list[str]:
    """The columns whose numbers read either way and differ ("1,234" is 1234 or 1.234):
    where the choice of style matters."""
    ways = ways or _ways(text)
    return [c for c, (point, comma) in ways.items()
            if point and comma and text[c].astype(str).str.contains("[.,]").any()]


@dataclass(frozen=True)
class NumberReading:
    """How a table's numbers were read: ``style``, the way taken where a column reads both
    ways (the file's, or the user's choice); ``columns``, {column: the way} for each column
    read from its text; ``either``, the columns that read both ways (where the choice
    matters)."""

    style: str
    columns: dict[str, str]
    either: tuple[str, ...]

    @property
    def choice(self) -> bool:
        """Whether the user is offered the choice: a column reads both ways (a column that
        reads one way only is read that way whatever the choice)."""
        return bool(self.either)

    def note(self) -> str | None:
        """What was read with decimal commas, for the notes under the upload."""
        commas = [c for c, way in self.columns.items() if way == COMMA]
        if not commas:
            return None
        listed = ", ".join(commas[:5]) + (f" and {len(commas) - 5} more" if len(commas) > 5
                                           else "")
        return (f"Numbers with {STYLES[COMMA]} in {len(commas)} column"
                f"{'s' if len(commas) > 1 else ''}: {listed}.")


def read_styled(frame: pd.DataFrame, text: pd.DataFrame, delimiter: str | None = None,
                style: str | None = None) -> tuple[pd.DataFrame, NumberReading]:
    """``read_numbers`` with the file's own way (``file_style``) unless ``style`` is
    given (the user's choice)."""
    ways = _ways(text)
    style = style if style in STYLES else file_style(text, delimiter, ways)
    out, columns = read_numbers(frame, text, style, ways)
    return out, NumberReading(style, columns, tuple(both_ways(text, ways)))
