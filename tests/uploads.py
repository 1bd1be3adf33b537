"""Upload files built in memory for the tests: Parquet tables (pyarrow) and workbooks
(openpyxl), with formula cells given the saved value Excel would store."""

import io
import re
import zipfile

import openpyxl
import pyarrow as pa
import pyarrow.parquet as pq


def parquet_bytes(table: pa.Table, **kw) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, **kw)
    return sink.getvalue()


def xlsx_bytes(*sheets, merges=(), hidden=()) -> bytes:
    """A workbook with one sheet per (title, rows); ``merges`` are ranges of the first."""
    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, rows in sheets:
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(list(row))
        if title in hidden:
            sheet.sheet_state = "hidden"
    for ref in merges:
        book.worksheets[0].merge_cells(ref)
    sink = io.BytesIO()
    book.save(sink)
    return sink.getvalue()


def with_saved_values(raw: bytes, values: dict[str, str]) -> bytes:
    """The workbook with the formula cells named in ``values`` given a saved value, as Excel
    stores it (openpyxl writes formulas with none)."""
    source = zipfile.ZipFile(io.BytesIO(raw))
    sink = io.BytesIO()
    with zipfile.ZipFile(sink, "w") as out:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":
                text = data.decode()
                for ref, value in values.items():
                    text = re.sub(f'(<c r="{ref}"[^>]*><f>[^<]*</f>)<v ?/>',
                                  rf"\1<v>{value}</v>", text)
                data = text.encode()
            out.writestr(item, data)
    return sink.getvalue()
