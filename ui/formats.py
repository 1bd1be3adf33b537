"""Parquet and Excel uploads read into a DataFrame, every problem a ``DataError`` saying what
is wrong and how to fix it. The format is told by the file's first bytes; its name only words
the messages.

Nothing in a file is evaluated or unpickled. Parquet is read by pyarrow with the pandas
metadata ignored (no dtype or index is rebuilt from it; pyarrow does not unpickle Python
extension types). Excel is read by openpyxl in read-only mode with ``data_only=True``: a
formula's value is the one the spreadsheet saved, never calculated; macros and external links
are not loaded. The limits are the CSV's (``dataset.MAX_COLUMNS``, ``dataset.MAX_CELLS``), so
no format lets in more than a CSV would.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from xml.etree.ElementTree import iterparse

import numpy as np
import pandas as pd

from .dataset import MAX_CELLS, DataError, check_columns, check_unique, looks_numeric

PARQUET_MAGIC = b"PAR1"
ZIP_MAGIC = b"PK\x03\x04"
OLE2_MAGIC = bytes.fromhex("d0cf11e0a1b11ae1")  # Office 97-2003 files and encrypted OOXML
MAX_EXPANDED = 8 * MAX_CELLS  # bytes once decompressed: MAX_CELLS float64 numbers
EPOCH = dt.datetime(1970, 1, 1)
NESTED = "nested"  # a list, struct, map or union column: not a feature
DATES_NOTE = "as days since 1970-01-01 (UTC; a time of day is a fraction of a day)"


def kind(raw: bytes, filename: str) -> str:
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
    """The table in a Parquet or Excel file and notes on how it was read."""
    if kind_ == "parquet":
        return read_parquet(raw, filename)
    if kind_ == "excel":
        return read_excel(raw, filename)
    raise _ole2_error(raw, filename)


def _reason(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return (text[0][:160] if text else type(exc).__name__)


def _damaged(filename: str, what: str, exc: Exception, fix: str) -> DataError:
    return DataError(f"{filename} could not be read as {what} ({_reason(exc)}): the file is "
                     f"damaged or cut short. {fix}")


def _name_columns(names: list, label) -> tuple[list[str], list[str]]:
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


# --------------------------------------------------------------------------- Parquet
def read_parquet(raw: bytes, filename: str) -> tuple[pd.DataFrame, list[str]]:
    """Every column the app can use; which were left out, and why, in the notes. Only the
    kept columns are decoded, text as dictionaries first, so its size is known before it is
    spelled out row by row."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    fix = "Upload the whole file again, or export it again as Parquet."
    if len(raw) < 12 or not raw.endswith(PARQUET_MAGIC):
        raise DataError(f"{filename} is cut short: a Parquet file ends with its footer (the "
                        f"bytes PAR1) and this one does not. {fix}")
    try:  # a parser of untrusted bytes may raise anything: each is a damaged file
        meta = pq.ParquetFile(pa.BufferReader(raw)).metadata
        schema = meta.schema.to_arrow_schema()
    except Exception as exc:  # noqa: BLE001
        raise _damaged(filename, "Parquet", exc, fix) from None
    check_columns(len(schema), filename)
    names, made = _name_columns(schema.names, lambda i: f"col_{i + 1}")
    check_unique(names, filename)
    _check_size(filename, meta.num_rows, len(schema),
                sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)))
    kinds, keep = {}, []
    for i, field in enumerate(schema):
        why = "index" if field.name.startswith("__index_level_") else _unusable(field.type, pa)
        if why:
            kinds.setdefault(why, []).append(names[i])
        else:
            keep.append(i)
    left_out = kinds.get(NESTED, []) + kinds.get("binary", [])
    if left_out and len(keep) < 2:
        raise DataError(f"{filename} has {len(keep)} column(s) BoostScope can use once the "
                        f"nested or binary column(s) {left_out} are left out; a model needs a "
                        "target and at least one feature. Flatten them into one number or "
                        "text column per field and upload again.")
    text = [schema.names[i] for i in keep if _is_text(schema.field(i).type, pa)]
    try:
        table = pq.ParquetFile(pa.BufferReader(raw), read_dictionary=text).read(
            columns=[schema.names[i] for i in keep], use_pandas_metadata=False)
    except Exception as exc:  # noqa: BLE001
        raise _damaged(filename, "Parquet", exc, fix) from None
    _check_size(filename, 0, 0, _text_bytes(table, pa))
    columns = {}
    for i, column in zip(keep, table.columns, strict=True):
        try:
            columns[i] = _arrow_column(column, pa)
        except Exception as exc:  # noqa: BLE001
            raise DataError(f"The column {names[i]!r} of {filename} ({column.type}) could "
                            f"not be read ({_reason(exc)}). Convert it to numbers or text, "
                            "or leave it out, and upload again.") from None
        if pa.types.is_dictionary(schema.field(i).type):
            kinds.setdefault("categorical", []).append(names[i])
        elif columns[i][1]:
            kinds.setdefault(columns[i][1], []).append(names[i])
    frame = pd.DataFrame({i: series for i, (series, _) in columns.items()},
                         index=range(table.num_rows))
    frame.columns = [names[i] for i in columns]
    return frame, _parquet_notes(kinds, made)


def _unusable(t, pa) -> str | None:
    """Why a column of Arrow type ``t`` cannot be a feature: 'nested', 'binary' or None."""
    if isinstance(t, pa.BaseExtensionType):
        t = t.storage_type
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_nested(t):
        return NESTED
    if (pa.types.is_binary(t) or pa.types.is_large_binary(t)
            or pa.types.is_fixed_size_binary(t) or pa.types.is_binary_view(t)):
        return "binary"
    return None


def _is_text(t, pa) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def _text_bytes(table, pa) -> int:
    """The bytes the table's text takes once every row holds its own copy."""
    import pyarrow.compute as pc

    total = 0
    for column in table.columns:
        if pa.types.is_dictionary(column.type) and _is_text(column.type.value_type, pa):
            for chunk in column.chunks:
                lengths = pc.binary_length(chunk.dictionary)
                total += pc.sum(pc.take(lengths, chunk.indices)).as_py() or 0
    return total


def _check_size(filename: str, n_rows: int, n_columns: int, n_bytes: int) -> None:
    if n_rows * n_columns > MAX_CELLS:
        raise DataError(f"{filename} has {n_rows:,} rows × {n_columns} columns; the limit is "
                        f"{MAX_CELLS:,} values. Upload a sample of the rows.")
    if n_bytes > MAX_EXPANDED:
        raise DataError(f"{filename} holds {n_bytes / 1e6:,.0f} MB once decompressed; the "
                        f"limit is {MAX_EXPANDED / 1e6:,.0f} MB. Upload a sample of the rows.")


def _arrow_column(column, pa):
    """One Arrow column (not ``_unusable``) as a pandas Series, and what was done to it (a
    key of ``_parquet_notes``, or None)."""
    t = column.type
    if isinstance(t, pa.BaseExtensionType):  # e.g. json, bool8: their plain storage
        column = pa.chunked_array([c.storage for c in column.chunks], type=t.storage_type)
        t = t.storage_type
    types = pa.types
    if types.is_dictionary(t):  # categorical, or text read as a dictionary
        column, t = column.cast(t.value_type), t.value_type
    if types.is_timestamp(t) or types.is_date(t):
        per_day = {"s": 86400, "ms": 86400e3, "us": 86400e6, "ns": 86400e9}
        scale = 1 if types.is_date32(t) else per_day["ms" if types.is_date64(t) else t.unit]
        counts = column.cast(_stored_count(t, pa)).to_numpy(zero_copy_only=False)
        return pd.Series(counts.astype(float) / scale), "dates"
    if types.is_time(t) or types.is_duration(t):
        per_second = {"s": 1, "ms": 1e3, "us": 1e6, "ns": 1e9}[t.unit]
        seconds = column.cast(_stored_count(t, pa)).to_numpy(zero_copy_only=False).astype(float)
        return pd.Series(seconds / per_second), "times"
    if types.is_decimal(t):
        return pd.Series(column.cast(pa.float64()).to_numpy(zero_copy_only=False)), "decimal"
    if types.is_float16(t):
        column = column.cast(pa.float32())
    if types.is_null(t):
        return pd.Series(np.full(len(column), np.nan)), None
    if types.is_boolean(t) and column.null_count:
        return pd.Series(column.cast(pa.float64()).to_numpy(zero_copy_only=False)), None
    return column.to_pandas(), None


def _stored_count(t, pa):
    """The integer type a date, time or duration is stored as (a count of its unit)."""
    return pa.int32() if t.bit_width == 32 else pa.int64()


def _parquet_notes(kinds: dict[str, list[str]], made: list[str]) -> list[str]:
    says = {
        "dates": f"Read the date/time column(s) {{}} {DATES_NOTE}.",
        "times": "Read the time-of-day/duration column(s) {} as seconds.",
        "decimal": "Read the decimal column(s) {} as floating-point numbers.",
        "categorical": "Read the categorical column(s) {} by their values.",
        "index": "Left out {}, the row index pandas stored with the data.",
        NESTED: "Left out the nested column(s) {} (lists, structs and maps are not "
                "features): flatten them into one column per field to use them.",
        "binary": "Left out the binary column(s) {} (raw bytes are not features).",
    }
    notes = ["Read as Parquet."]
    notes += [says[k].format(names) for k, names in kinds.items()]
    if made:
        notes.append(f"Named the column(s) with no name {made}.")
    return notes


# --------------------------------------------------------------------------- Excel
def _ole2_error(raw: bytes, filename: str) -> DataError:
    if "EncryptedPackage".encode("utf-16-le") in raw:
        return DataError(f"{filename} is password-protected (encrypted), so it cannot be "
                         "read. Open it in Excel, remove the password (File → Info → Protect "
                         "Workbook → Encrypt with Password, clear it), save and upload again.")
    return DataError(f"{filename} is in the old Excel 97–2003 format (.xls) or another old "
                     "Office format, which BoostScope does not read. Open it in Excel or "
                     "LibreOffice and save it as .xlsx (Excel Workbook) or CSV.")


def _open_zip(raw: bytes, filename: str) -> zipfile.ZipFile:
    fix = "Upload the whole file again, or open it in Excel and save it again as .xlsx."
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
        parts = archive.infolist()
    except Exception as exc:  # noqa: BLE001
        raise _damaged(filename, "an Excel workbook", exc, fix) from None
    names = {p.filename for p in parts}
    if "xl/workbook.xml" not in names:
        other = ("a Word document" if "word/document.xml" in names else
                 "a PowerPoint file" if "ppt/presentation.xml" in names else
                 "an OpenDocument file (.ods)" if "content.xml" in names else "a ZIP archive")
        raise DataError(f"{filename} is {other}, not an Excel workbook (.xlsx). Save the "
                        "table as .xlsx or CSV; if the archive holds a CSV, unzip it and "
                        "upload that.")
    big = max(parts, key=lambda p: p.file_size)
    if big.file_size > MAX_EXPANDED:
        raise DataError(f"{filename}: its part {big.filename} is {big.file_size / 1e6:,.0f} "
                        f"MB once decompressed; the limit is {MAX_EXPANDED / 1e6:,.0f} MB. "
                        "Upload a sample of the rows.")
    return archive


def read_excel(raw: bytes, filename: str) -> tuple[pd.DataFrame, list[str]]:
    """The first visible sheet with data, in tab order (the others are named in a note)."""
    import openpyxl

    archive = _open_zip(raw, filename)
    try:
        book = openpyxl.load_workbook(io.BytesIO(raw), read_only=True, data_only=True,
                                      keep_links=False, keep_vba=False)
    except Exception as exc:  # noqa: BLE001
        raise _damaged(filename, "an Excel workbook", exc,
                       "Open it in Excel or LibreOffice and save it again as .xlsx.") from None
    try:
        chosen, rows, skipped = _first_sheet(book, filename)
        merges, formulas, unsaved = _scan_sheet_xml(archive, chosen._worksheet_path)
    except DataError:
        raise
    except Exception as exc:  # noqa: BLE001  (cells are read lazily: damage shows here too)
        raise _damaged(filename, "an Excel workbook", exc,
                       "Open it in Excel or LibreOffice and save it again as .xlsx.") from None
    finally:
        book.close()
    notes = [f"Read sheet {chosen.title!r} of the Excel workbook (the first visible sheet "
             "with data)" + (f"; not read: {skipped} (to use one, move it first or save it "
                             "as its own file)." if skipped else ".")]
    if formulas:
        notes.append(f"{formulas} cell(s) hold formulas: their values as last saved are used "
                     "(formulas are never calculated here).")
    if unsaved:
        shown = ", ".join(unsaved[:5]) + (", …" if len(unsaved) > 5 else "")
        notes.append(f"{len(unsaved)} formula cell(s) have no saved value ({shown}) and are "
                     "read as missing: open the file in Excel or LibreOffice and save it "
                     "(that stores their values), or paste them as values.")
    return _sheet_frame(rows, merges, notes, filename), notes


def _first_sheet(book, filename: str):
    """The first visible worksheet with a value, its rows, and the other sheets' titles."""
    chosen, rows, skipped = None, [], []
    for sheet in book.worksheets:
        if chosen is None and sheet.sheet_state == "visible":
            rows = _sheet_rows(sheet, filename)
            if rows:
                chosen = sheet
                continue
        skipped.append(sheet.title)
    if chosen is None:
        raise DataError(f"{filename} has no data in any visible sheet: put the table in the "
                        "first sheet, with a header row, and upload again.")
    return chosen, rows, skipped


def _sheet_rows(sheet, filename: str) -> list[list]:
    """The sheet's rows as lists (row i is the sheet's row i + 1), [] when it has no value.
    Stops at the CSV's limits: a row with values in more than MAX_COLUMNS columns, or more
    than MAX_CELLS values."""
    sheet.reset_dimensions()  # a stated size may be wrong (or the whole sheet): read cells
    rows, cells = [], 0
    for values in sheet.iter_rows(values_only=True):
        row = list(values)
        filled = sum(v is not None for v in row)
        check_columns(filled, filename)
        cells += filled
        if cells > MAX_CELLS:
            raise DataError(f"{filename} has more than {MAX_CELLS:,} values; upload a sample "
                            "of the rows.")
        rows.append(row)
    return rows if cells else []


def _scan_sheet_xml(archive: zipfile.ZipFile, path: str):
    """What openpyxl's read-only mode does not say: the merged ranges (0-based, inclusive
    (top, left, bottom, right)), how many cells hold a formula, and the formula cells with
    no saved value. Read with ElementTree over expat (no entities expanded)."""
    from openpyxl.utils import range_boundaries

    merges, formulas, unsaved = [], 0, []
    with archive.open(path) as source:
        for _, element in iterparse(source):
            tag = element.tag.rsplit("}", 1)[-1]
            if tag == "c":
                children = {c.tag.rsplit("}", 1)[-1]: c for c in element}
                if "f" in children:
                    formulas += 1
                    value = children.get("v")
                    if value is None or not (value.text or "").strip():
                        unsaved.append(element.get("r", "?"))
            elif tag == "mergeCell":
                left, top, right, bottom = range_boundaries(element.get("ref"))
                merges.append((top - 1, left - 1, bottom - 1, right - 1))
            elif tag == "row":
                element.clear()
    return merges, formulas, unsaved


def _sheet_frame(rows: list[list], merges, notes: list[str], filename: str) -> pd.DataFrame:
    """The table: merged ranges filled with their first cell's value (as Excel shows them),
    empty rows and columns dropped, the header (one row, or two under a merged header cell)
    made into names, and each column typed."""
    from openpyxl.utils import get_column_letter

    width = max(len(r) for r in rows)
    grid = [r + [None] * (width - len(r)) for r in rows]
    for top, left, bottom, right in merges:
        if top >= len(grid) or left >= width:
            continue
        value = grid[top][left]
        for r in range(top, min(bottom, len(grid) - 1) + 1):
            for c in range(left, min(right, width - 1) + 1):
                grid[r][c] = value
    keep_rows = [i for i, r in enumerate(grid) if any(_present(v) for v in r)]
    keep_cols = [c for c in range(width) if any(_present(grid[i][c]) for i in keep_rows)]
    table = [[grid[i][c] for c in keep_cols] for i in keep_rows]
    letters = [get_column_letter(c + 1) for c in keep_cols]
    depth = _header_depth(table, merges, keep_rows[0], keep_cols)
    if depth == 0:
        names = letters
        notes.append("The first row holds only numbers, so it is data: the columns are named "
                     "by their Excel letters.")
    else:
        joined = [" ".join(dict.fromkeys(str(table[r][c]).strip() for r in range(depth)
                                         if _present(table[r][c])))
                  for c in range(len(keep_cols))]
        names, made = _name_columns(joined, lambda i: letters[i])
        _check_merged_names(names, merges, keep_rows[0], filename)
        if depth > 1:
            notes.append(f"The header has merged cells: its first {depth} rows are joined "
                         f"into the column names ({names[:4]}{' …' if len(names) > 4 else ''}).")
        if made:
            notes.append(f"Columns with no header are named by their Excel letter {made}.")
        merged_data = any(b >= keep_rows[0] + depth for _, _, b, _ in merges)
        if merged_data:
            notes.append("Merged cells in the data take their first cell's value in every "
                         "cell, as Excel shows them.")
    body = table[depth:]
    frame = pd.DataFrame({c: _excel_column([row[c] for row in body], name, notes)
                          for c, name in enumerate(names)}, index=range(len(body)))
    frame.columns = names  # by position: read_table refuses two equal names
    return frame


def _check_merged_names(names: list[str], merges, first_row: int, filename: str) -> None:
    """Two columns named alike by one header cell merged across them: say so."""
    from openpyxl.utils import get_column_letter

    across = [(left, right) for top, left, _, right in merges if top == first_row
              and right > left]
    if across and len(set(names)) < len(names):
        left, right = across[0]
        cells = f"{get_column_letter(left + 1)}{first_row + 1}:{get_column_letter(right + 1)}"
        raise DataError(f"{filename}: the header cell {cells}{first_row + 1} is merged across "
                        "columns, so they would share one name. Unmerge it and give each "
                        "column its own name (or add a row of names under it), then upload "
                        "again.")


def _present(value) -> bool:
    return value is not None and not (isinstance(value, str) and not value.strip())


def _header_depth(table, merges, first_row: int, keep_cols: list[int]) -> int:
    """0 when the first row is data (only numbers); 2 (or as deep as a merged cell in the
    first row reaches) when that row has a cell merged across columns over a row of names;
    else 1."""
    first = [v for v in table[0] if _present(v)]
    if looks_numeric(first) and not any(isinstance(v, str) for v in first):
        return 0
    depth = 1
    for top, left, bottom, right in merges:
        if top != first_row or left not in keep_cols:
            continue
        depth = max(depth, bottom - top + 1)
        if right > left and len(table) > 1:
            under = [table[1][keep_cols.index(c)] for c in range(left, right + 1)
                     if c in keep_cols]
            if all(isinstance(v, str) and not looks_numeric([v]) for v in under):
                depth = max(depth, 2)
    return min(depth, len(table))


ERROR_TEXTS = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A",
               "#GETTING_DATA", "#SPILL!", "#CALC!")


def _excel_column(values: list, name: str, notes: list[str]) -> pd.Series:
    """One column as numbers, booleans, dates (days since 1970) or text, as a CSV column of
    the same cells would be read: numbers stored as text are numbers, a column mixing text
    with numbers is text. Error values (#DIV/0!, #N/A, ...) and blank text are missing."""
    errors = sum(isinstance(v, str) and v.strip() in ERROR_TEXTS for v in values)
    if errors:
        notes.append(f"{errors} error value(s) (#DIV/0!, #N/A, …) in {name!r} are read as "
                     "missing.")
    cells = [None if not _present(v) or (isinstance(v, str) and v.strip() in ERROR_TEXTS)
             else v for v in values]
    present = [v for v in cells if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        if len(present) == len(cells):
            return pd.Series(cells, dtype=bool)
        return pd.Series([np.nan if v is None else float(v) for v in cells])
    if present and all(isinstance(v, dt.date) for v in present):  # datetime is a date
        notes.append(f"Read the date column {name!r} {DATES_NOTE}.")
        return pd.Series([np.nan if v is None else _days(v) for v in cells])
    numbers = [v for v in present if isinstance(v, int | float) and not isinstance(v, bool)]
    text = [v for v in present if isinstance(v, str)]
    if len(numbers) + len(text) == len(present) and (not text or looks_numeric(text)):
        if text:
            notes.append(f"Numbers stored as text in {name!r} are read as numbers.")
        floats = [np.nan if v is None else float(v) for v in cells]
        if not text and len(numbers) == len(cells) and all(isinstance(v, int) for v in numbers):
            return pd.Series(numbers, dtype="int64")
        return pd.Series(floats, dtype="float64")
    return pd.Series([None if v is None else str(v).strip() for v in cells], dtype="str")


def _days(value: dt.date) -> float:
    if not isinstance(value, dt.datetime):
        value = dt.datetime(value.year, value.month, value.day)
    if value.tzinfo is not None:
        value = value.astimezone(dt.UTC).replace(tzinfo=None)
    return (value - EPOCH).total_seconds() / 86400
