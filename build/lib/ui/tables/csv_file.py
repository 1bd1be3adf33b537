"""CSV/TSV text: its encoding, delimiter and header detected."""

from __future__ import annotations

import csv
import io

import pandas as pd

from .checks import DataError, check_unique, looks_numeric
from .dates import read_dates
from .numbers import COMMA, NumberReading, read_styled

DELIMITERS = [",", ";", "\t", "|"]


def _decode(raw: bytes) -> tuple[str, str]:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16"), "UTF-16"
    if raw.startswith(b"\xef\xbb\xbf"):
        return raw[3:].decode("utf-8"), "UTF-8 (with BOM)"
    if b"\x00" in raw[:4096]:
        raise DataError(
            "This file looks binary (it contains NUL bytes), not a text table. Export it as "
            "CSV (comma- or semicolon-separated text) and upload that."
        )
    try:
        return raw.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace"), "Windows-1252"


def _sniff_delimiter(text: str) -> str:
    sample = "\n".join(text.splitlines()[:50])
    try:
        return csv.Sniffer().sniff(sample, delimiters="".join(DELIMITERS)).delimiter
    except csv.Error:
        counts = {d: sample.count(d) for d in DELIMITERS}
        best = max(counts, key=counts.get)
        return best if counts[best] else ","


def read_csv(raw: bytes, filename: str, numbers: str | None = None
             ) -> tuple[pd.DataFrame, list[str], NumberReading]:
    """The table, notes on how it was read, and how its numbers were read (``numbers``: the
    user's choice of decimal mark, else the file's own, ``numbers.read_styled``)."""
    text, encoding = _decode(raw)
    delimiter = _sniff_delimiter(text)
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        raise DataError(f"{filename} has no rows of data.")
    has_header = not looks_numeric(rows[0])
    notes = [f"Read as {encoding}, separated by {_delimiter_name(delimiter)}"
             + ("" if has_header else ", with no header row (columns named col_1, col_2, ...)")
             + "."]

    def read(**kwargs) -> pd.DataFrame:
        try:
            frame = pd.read_csv(io.StringIO(text), sep=delimiter,
                                header=0 if has_header else None, skip_blank_lines=True,
                                engine="python", **kwargs)
        except (pd.errors.ParserError, ValueError) as exc:
            raise DataError(
                f"{filename} could not be read as a table ({exc}). Check that every row has "
                "the same number of separators."
            ) from None
        if not has_header:
            frame.columns = [f"col_{i + 1}" for i in range(frame.shape[1])]
        frame.columns = [str(c).strip() for c in frame.columns]
        return frame
    frame = read()
    if has_header:  # pandas renames a repeated name ("a.1"): check the header as written
        check_unique([c.strip() for c in rows[0]], filename)
    frame, reading = read_styled(frame, read(dtype=str), delimiter, numbers)
    if reading.note():
        notes.append(reading.note())
    frame, said = read_dates(frame, day_first=reading.style == COMMA)
    return frame, notes + said, reading


def _delimiter_name(d: str) -> str:
    return {",": "commas", ";": "semicolons", "\t": "tabs", "|": "vertical bars"}[d]
