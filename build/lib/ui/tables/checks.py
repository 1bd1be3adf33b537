"""What every format shares: the limits (no format lets in more than a CSV of ``MAX_BYTES``
would), ``DataError`` (a problem worded for the user) and the checks and helpers the readers
have in common."""

from __future__ import annotations

import hashlib

MAX_BYTES = 50 * 1024 * 1024
MAX_COLUMNS = 200
MAX_CELLS = MAX_BYTES // 2  # the most values a CSV of MAX_BYTES holds ("1," each)
MAX_EXPANDED = 8 * MAX_CELLS  # bytes once decompressed: MAX_CELLS float64 numbers
DATES_NOTE = "as days since 1970-01-01 (UTC; a time of day is a fraction of a day)"


class DataError(ValueError):
    """A problem with the user's data, worded for the user."""


def digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def looks_numeric(values) -> bool:
    ok = 0
    for v in values:
        try:
            float(str(v).strip())
            ok += 1
        except ValueError:
            pass
    return ok == len(values) and ok > 0


def check_unique(names: list[str], filename: str) -> None:
    """Every format's rule: no two columns with one name."""
    dups = [c for i, c in enumerate(names) if c in names[:i]]
    if dups:
        raise DataError(f"{filename} has two columns named {dups[0]!r}; rename one of them.")


def check_columns(n_columns: int, filename: str) -> None:
    """The column limit of every format."""
    if n_columns > MAX_COLUMNS:
        raise DataError(
            f"{filename} has {n_columns} columns; the limit is {MAX_COLUMNS}. Keep the "
            "columns you want to model and upload again."
        )


def reason(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return (text[0][:160] if text else type(exc).__name__)


def damaged(filename: str, what: str, exc: Exception, fix: str) -> DataError:
    return DataError(f"{filename} could not be read as {what} ({reason(exc)}): the file is "
                     f"damaged or cut short. {fix}")


def name_columns(names: list, label) -> tuple[list[str], list[str]]:
    """Column names as text; an empty one is named by ``label(i)``. Returns the names and
    those it made up."""
    out, made = [], []
    for i, name in enumerate(names):
        text = "" if name is None else str(name).strip()
        if not text:
            text = label(i)
            made.append(text)
        out.append(text)
    return out, made
