"""Excel workbooks (.xlsx), read by openpyxl in read-only mode with ``data_only=True``: a
formula's value is the one the spreadsheet saved, never calculated; macros and external
links are not loaded. Old .xls and encrypted workbooks are refused with what to do.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from xml.etree.ElementTree import iterparse

import numpy as np
import pandas as pd

from .checks import (
    DATES_NOTE,
    MAX_CELLS,
    MAX_EXPANDED,
    DataError,
    check_columns,
    damaged,
    looks_numeric,
    name_columns,
)

ZIP_MAGIC = b"PK\x03\x04"
OLE2_MAGIC = bytes.fromhex("d0cf11e0a1b11ae1")  # Office 97-2003 files and encrypted OOXML
EPOCH = dt.datetime(1970, 1, 1)


def ole2_error(raw: bytes, filename: str) -> DataError:
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
        raise damaged(filename, "an Excel workbook", exc, fix) from None
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
        raise damaged(filename, "an Excel workbook", exc,
                       "Open it in Excel or LibreOffice and save it again as .xlsx.") from None
    try:
        chosen, rows, skipped = _first_sheet(book, filename)
        merges, formulas, unsaved = _scan_sheet_xml(archive, chosen._worksheet_path)
    except DataError:
        raise
    except Exception as exc:  # noqa: BLE001  (cells are read lazily: damage shows here too)
        raise damaged(filename, "an Excel workbook", exc,
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
        names, made = name_columns(joined, lambda i: letters[i])
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
