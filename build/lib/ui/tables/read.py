"""``read_table(raw, filename)``: an upload's table, its format told by its first bytes (the
name only words the messages), read under the same limits and checks whatever the format."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from . import excel_file, parquet_file
from .checks import MAX_BYTES, DataError, check_columns, check_unique
from .csv_file import read_csv
from .excel_file import OLE2_MAGIC, ZIP_MAGIC
from .numbers import NumberReading, read_styled
from .parquet_file import PARQUET_MAGIC

UPLOAD_TYPES = ("csv", "tsv", "txt", "parquet", "xlsx", "xls")  # .xls: to say what to do


@dataclass
class Table:
    """A table as read, notes on how, and how its numbers were read (CSV and Excel: the
    decimal mark, ``numbers.NumberReading``; None for Parquet, whose columns are typed)."""

    frame: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    numbers: NumberReading | None = None


def kind_of(raw: bytes, filename: str) -> str:
    """'parquet', 'excel', 'ole2' (an old .xls or a password-protected workbook) or 'csv'
    (anything else: the CSV reader explains what it cannot read)."""
    if raw[:4] == PARQUET_MAGIC:
        return "parquet"
    if raw[:4] == ZIP_MAGIC:
        return "excel"
    if raw[:8] == OLE2_MAGIC:
        return "ole2"
    suffix = filename.lower().rsplit(".", 1)[-1]
    if suffix == "parquet":
        raise DataError(f"{filename} is not a Parquet file (a Parquet file starts with the "
                        "bytes PAR1): it is damaged or another format renamed. Export it "
                        "again as Parquet, or upload it as CSV.")
    if suffix in ("xlsx", "xls"):
        raise DataError(f"{filename} is not an Excel workbook (an .xlsx file is a ZIP "
                        "archive): it is damaged or another format renamed. Open it in "
                        "Excel or LibreOffice and save it as .xlsx or CSV.")
    return "csv"


def read(kind_: str, raw: bytes, filename: str) -> tuple[pd.DataFrame, list[str]]:
    """The table in a Parquet or Excel file and notes on how it was read (pyarrow and
    openpyxl are imported only when such a file is read)."""
    if kind_ == "parquet":
        return parquet_file.read_parquet(raw, filename)
    if kind_ == "excel":
        return excel_file.read_excel(raw, filename)
    raise excel_file.ole2_error(raw, filename)


def read_table(raw: bytes, filename: str = "data.csv", numbers: str | None = None) -> Table:
    """Parse an uploaded CSV/TSV, Parquet file or Excel workbook (told by its first bytes).
    ``numbers``: the decimal mark the user chose (``numbers.STYLES``), else the file's own.
    Raises ``DataError`` with what is wrong and how to fix it."""
    if not raw or not raw.strip():
        raise DataError(f"{filename} is empty: upload a CSV with a header row and data rows.")
    if len(raw) > MAX_BYTES:
        raise DataError(
            f"{filename} is {len(raw) / 1e6:.0f} MB; the limit is {MAX_BYTES / 1e6:.0f} MB. "
            "Upload a sample of the rows."
        )
    kind = kind_of(raw, filename)
    reading = None
    if kind == "csv":
        frame, notes, reading = read_csv(raw, filename, numbers)
        one_column = "if the file uses another separator, save it with commas."
    else:
        frame, notes = read(kind, raw, filename)
        one_column = "add the columns you want to model and upload again."
    check_columns(frame.shape[1], filename)
    if frame.shape[1] < 2:
        raise DataError(
            f"{filename} has {'a single column' if frame.shape[1] else 'no usable columns'}. "
            f"A model needs a target and at least one feature; {one_column}"
        )
    if len(frame) < 2:
        raise DataError(f"{filename} has {len(frame)} data row(s); training needs at least 2.")
    check_unique(list(frame.columns), filename)
    if kind == "excel":  # numbers typed into text cells ("10,38"); number cells are typed
        texts = [c for c in frame.columns if frame[c].dtype.kind not in "iufbmM"]
        read_, reading = read_styled(frame[texts], frame[texts].astype(object), style=numbers)
        frame = frame.assign(**{c: read_[c] for c in reading.columns})
        notes += [reading.note()] if reading.note() else []
    return Table(frame=frame, notes=notes, numbers=reading)
