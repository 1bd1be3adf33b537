"""Parquet and Excel uploads (ui/tables/parquet_file.py and excel_file.py, through
tables.read_table): the values read are the ones written (pyarrow and openpyxl write the
files), and every bad file is a DataError that says what is wrong and what to do."""

import datetime as dt
import decimal
import io
import zipfile

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from uploads import parquet_bytes, with_saved_values, xlsx_bytes  # noqa: F401

from ui import tables


def read(raw: bytes, name: str) -> tables.Table:
    return tables.read_table(raw, name)


# --------------------------------------------------------------------------- Parquet
def test_parquet_types_are_read_as_numbers_and_text():
    n = 4
    table = pa.table({
        "x": pa.array([1.5, None, 3.0, 4.0]),
        "k": pa.array([1, 2, None, 4], pa.int64()),
        "flag": pa.array([True, False, True, True]),
        "city": pa.array(["a", "b", None, "a"]).dictionary_encode(),
        "when": pa.array([dt.datetime(1970, 1, 2, 12), dt.datetime(2024, 1, 1), None,
                          dt.datetime(1969, 12, 31)], pa.timestamp("us", tz="UTC")),
        "day": pa.array([dt.date(1970, 1, 11), None, dt.date(2000, 1, 1), dt.date(1970, 1, 1)]),
        "price": pa.array([decimal.Decimal("1.25"), decimal.Decimal("-3.50"), None,
                           decimal.Decimal("0.10")], pa.decimal128(6, 2)),
        "y": pa.array([0.0, 1.0, 0.0, 1.0]),
    })
    t = read(parquet_bytes(table), "d.parquet")
    f = t.frame
    assert list(f.columns) == ["x", "k", "flag", "city", "when", "day", "price", "y"]
    assert f.shape == (n, 8)
    assert np.array_equal(f["x"], [1.5, np.nan, 3.0, 4.0], equal_nan=True)
    assert np.array_equal(f["k"], [1.0, 2.0, np.nan, 4.0], equal_nan=True)
    assert f["flag"].dtype == bool
    assert list(f["city"].astype(object).where(f["city"].notna(), None)) == ["a", "b", None, "a"]
    assert np.array_equal(f["when"], [1.5, 19723.0, np.nan, -1.0], equal_nan=True)
    assert np.array_equal(f["day"], [10.0, np.nan, 10957.0, 0.0], equal_nan=True)
    assert np.array_equal(f["price"], [1.25, -3.5, np.nan, 0.1], equal_nan=True)
    notes = " ".join(t.notes)
    assert "date/time column(s) ['when', 'day'] as days since 1970-01-01" in notes
    assert "decimal column(s) ['price']" in notes and "categorical column(s) ['city']" in notes


def test_parquet_extension_half_float_null_time_and_duration_columns():
    table = pa.table({
        "j": pa.array(['{"a":1}', '{"a":2}', '{"a":1}'], pa.json_()),
        "id": pa.ExtensionArray.from_storage(pa.uuid(), pa.array([bytes(16)] * 3, pa.binary(16))),
        "b8": pa.ExtensionArray.from_storage(pa.bool8(), pa.array([1, 0, 1], pa.int8())),
        "h": pa.array([1.5, 2.5, 3.5], pa.float16()),
        "n": pa.nulls(3),
        "tm": pa.array([3600, 7200, None], pa.time32("s")),
        "d": pa.array([1_500_000, None, 5], pa.duration("us")),
        "y": [1.0, 2.0, 3.0],
    })
    t = read(parquet_bytes(table), "e.parquet")
    f = t.frame
    assert list(f.columns) == ["j", "b8", "h", "n", "tm", "d", "y"]
    assert list(f["j"]) == ['{"a":1}', '{"a":2}', '{"a":1}'] and list(f["b8"]) == [1, 0, 1]
    assert np.array_equal(f["h"], [1.5, 2.5, 3.5]) and f["n"].isna().all()
    assert np.array_equal(f["tm"], [3600.0, 7200.0, np.nan], equal_nan=True)
    assert np.array_equal(f["d"], [1.5, np.nan, 5e-6], equal_nan=True)
    notes = " ".join(t.notes)
    assert "binary column(s) ['id']" in notes and "['tm', 'd'] as seconds" in notes


def test_parquet_nested_and_binary_columns_are_left_out_with_a_note():
    table = pa.table({
        "tags": pa.array([[1, 2], [], None, [3]]),
        "where": pa.array([{"lat": 1.0, "lon": 2.0}] * 4),
        "blob": pa.array([b"\x00", b"\x01", b"", None]),
        "x": [1.0, 2.0, 3.0, 4.0], "y": [0.0, 1.0, 1.0, 0.0],
    })
    t = read(parquet_bytes(table), "d.parquet")
    assert list(t.frame.columns) == ["x", "y"]
    notes = " ".join(t.notes)
    assert "nested column(s) ['tags', 'where']" in notes and "flatten" in notes
    assert "binary column(s) ['blob']" in notes


def test_pandas_index_is_not_a_column():
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [1, 0, 1]}, index=[10, 20, 30])
    raw = parquet_bytes(pa.Table.from_pandas(frame))
    t = read(raw, "d.parquet")
    assert list(t.frame.columns) == ["x", "y"]
    assert list(t.frame["y"]) == [1, 0, 1]


def _wide(n: int) -> pa.Table:
    return pa.table({f"c{i}": [1.0, 2.0] for i in range(n)})


@pytest.mark.parametrize("table,match", [
    (pa.table({"x": pa.array([], pa.float64()), "y": pa.array([], pa.float64())}),
     "0 data row"),
    (pa.table({"x": [1.0, 2.0, 3.0]}), "single column"),
    (_wide(tables.MAX_COLUMNS + 1), f"{tables.MAX_COLUMNS + 1} columns; the limit is "
                                     f"{tables.MAX_COLUMNS}"),
    (pa.table({"tags": pa.array([[1], [2]]), "y": [1.0, 2.0]}),
     "1 column\\(s\\) BoostScope can use once the nested"),
])
def test_bad_parquet_tables_are_explained(table, match):
    with pytest.raises(tables.DataError, match=match):
        read(parquet_bytes(table), "d.parquet")


def test_duplicate_parquet_names_are_refused():
    table = pa.Table.from_arrays([pa.array([1.0, 2.0]), pa.array([3.0, 4.0])], names=["a", "a"])
    with pytest.raises(tables.DataError, match="two columns named 'a'"):
        read(parquet_bytes(table), "d.parquet")


def test_corrupt_and_truncated_parquet():
    raw = parquet_bytes(pa.table({"x": np.arange(100.0), "y": np.arange(100.0) % 2}))
    with pytest.raises(tables.DataError, match="cut short.*footer"):
        read(raw[: len(raw) // 2], "d.parquet")
    with pytest.raises(tables.DataError, match="not a Parquet file"):
        read(b"x,y\n1,2\n3,4\n", "d.parquet")
    # the footer's length field pointing past the start of the file
    bad = raw[:-8] + (len(raw) * 2).to_bytes(4, "little") + b"PAR1"
    with pytest.raises(tables.DataError, match="could not be read as Parquet.*damaged"):
        read(bad, "d.parquet")


def _flip_each(raw: bytes, name: str, positions, mask: int) -> set[str]:
    """Each of ``positions``' bytes flipped in turn (XOR ``mask``): what became of each
    damaged file, "read" or "refused" (a DataError); any other error escapes the test."""
    outcomes = set()
    for i in positions:
        try:
            read(raw[:i] + bytes([raw[i] ^ mask]) + raw[i + 1:], name)
            outcomes.add("read")
        except tables.DataError:
            outcomes.add("refused")
    return outcomes


def test_damaged_parquet_never_escapes_as_another_error():
    """Every third byte of a small file's data pages and footer overwritten in turn: each
    file is read or refused with a DataError (a parser on hostile bytes may raise
    anything)."""
    raw = parquet_bytes(pa.table({"x": [1.0, 2.0, 3.0], "s": ["a", "b", "c"]}),
                        compression="snappy")
    assert "refused" in _flip_each(raw, "d.parquet", range(4, len(raw) - 4, 3), 0xFF)


def test_parquet_over_the_value_limit_is_refused(monkeypatch):
    from ui.tables import parquet_file

    monkeypatch.setattr(parquet_file, "MAX_CELLS", 9)
    with pytest.raises(tables.DataError, match="5 rows × 2 columns; the limit is 9 values"):
        read(parquet_bytes(pa.table({"x": np.arange(5.0), "y": np.arange(5.0)})), "d.parquet")


def test_decompressed_size_is_checked_before_decompressing(monkeypatch):
    from ui.tables import excel_file, parquet_file

    monkeypatch.setattr(parquet_file, "MAX_EXPANDED", 1000)
    monkeypatch.setattr(excel_file, "MAX_EXPANDED", 1000)
    column = np.zeros(1000)  # 8 kB of float64, a few bytes compressed
    with pytest.raises(tables.DataError, match="once decompressed; the limit is 0 MB"):
        read(parquet_bytes(pa.table({"x": column, "y": column}), use_dictionary=False),
             "z.parquet")
    rows = [("x", "y")] + [(0, 0)] * 200
    with pytest.raises(tables.DataError, match="sheet1.xml is 0 MB once decompressed"):
        read(xlsx_bytes(("S", rows)), "z.xlsx")


def test_repeated_text_is_measured_as_spelled_out(monkeypatch):
    """One 600-character value stored once (a dictionary) but spelled out in every row:
    3 rows (1,800 bytes) are read, 4 rows (2,400) are over a 2,000-byte limit."""
    from ui.tables import parquet_file

    monkeypatch.setattr(parquet_file, "MAX_EXPANDED", 2000)
    for n, ok in ((3, True), (4, False)):
        raw = parquet_bytes(pa.table({"s": ["a" * 600] * n, "y": np.arange(n, dtype=float)}))
        if ok:
            assert read(raw, "t.parquet").frame["s"].str.len().tolist() == [600] * n
        else:
            with pytest.raises(tables.DataError, match="holds 0 MB once decompressed"):
                read(raw, "t.parquet")


# --------------------------------------------------------------------------- Excel
def test_xlsx_first_visible_sheet_with_data_is_read():
    raw = xlsx_bytes(("Hidden", [("a", "b"), (1, 2), (3, 4)]),
                     ("Empty", []),
                     ("Data", [("x", "when", "y"), (1.5, dt.datetime(1970, 1, 3, 6), "no"),
                               (2, dt.datetime(2000, 1, 1), "yes"), (3, None, "no")]),
                     ("Later", [("p", "q"), (1, 2), (3, 4)]), hidden=("Hidden",))
    t = read(raw, "book.xlsx")
    f = t.frame
    assert list(f.columns) == ["x", "when", "y"] and len(f) == 3
    assert np.array_equal(f["x"], [1.5, 2.0, 3.0])
    assert np.array_equal(f["when"], [2.25, 10957.0, np.nan], equal_nan=True)
    assert list(f["y"]) == ["no", "yes", "no"]
    notes = " ".join(t.notes)
    assert "sheet 'Data'" in notes and "not read: ['Hidden', 'Empty', 'Later']" in notes
    assert "date column 'when'" in notes


def test_xlsx_merged_header_cells_name_the_columns_below():
    rows = [("Size", None, "Weight", "y"), ("cm", "inch", None, None)]
    rows += [(i, i / 2.54, 10 + i, i % 2) for i in range(6)]
    raw = xlsx_bytes(("S", rows), merges=("A1:B1", "C1:C2", "D1:D2"))
    t = read(raw, "m.xlsx")
    assert list(t.frame.columns) == ["Size cm", "Size inch", "Weight", "y"]
    assert len(t.frame) == 6 and list(t.frame["Weight"]) == [10, 11, 12, 13, 14, 15]
    assert "first 2 rows are joined" in " ".join(t.notes)


def test_xlsx_merged_cells_in_the_data_take_their_first_value():
    rows = [("group", "x", "y"), ("a", 1, 0), (None, 2, 1), (None, 3, 0), ("b", 4, 1)]
    t = read(xlsx_bytes(("S", rows), merges=("A2:A4",)), "m.xlsx")
    assert list(t.frame["group"]) == ["a", "a", "a", "b"]
    assert "Merged cells in the data" in " ".join(t.notes)


def test_xlsx_formulas_use_saved_values_and_say_which_have_none():
    rows = [("x", "double", "y")] + [(i, f"=A{i + 2}*2", i % 2) for i in range(4)]
    raw = xlsx_bytes(("S", rows))
    saved = with_saved_values(raw, {"B2": "0", "B3": "2"})
    t = read(saved, "f.xlsx")
    assert np.array_equal(t.frame["double"], [0.0, 2.0, np.nan, np.nan], equal_nan=True)
    notes = " ".join(t.notes)
    assert "4 cell(s) hold formulas" in notes and "never calculated" in notes
    assert "2 formula cell(s) have no saved value (B4, B5)" in notes


def test_xlsx_errors_numbers_as_text_and_no_header():
    rows = [("x", "n", "y"), (1, "#DIV/0!", "1"), (2, 5, "2"), (3, 6, " 3 ")]
    t = read(xlsx_bytes(("S", rows)), "e.xlsx")
    assert np.array_equal(t.frame["n"], [np.nan, 5.0, 6.0], equal_nan=True)
    assert np.array_equal(t.frame["y"], [1.0, 2.0, 3.0])
    notes = " ".join(t.notes)
    assert "1 error value(s)" in notes and "Numbers stored as text in 'y'" in notes
    headless = read(xlsx_bytes(("S", [(None, None, None), (None, 1, 2), (None, 3, 4)])),
                    "h.xlsx")
    assert list(headless.frame.columns) == ["B", "C"] and len(headless.frame) == 2


@pytest.mark.parametrize("rows,match", [
    ([("x", "y")], "0 data row"),
    ([("x",), (1,), (2,)], "single column.*add the columns"),
    ([tuple(f"c{i}" for i in range(tables.MAX_COLUMNS + 1)), tuple(range(201))],
     f"{tables.MAX_COLUMNS + 1} columns; the limit is {tables.MAX_COLUMNS}"),
    ([("a", "a"), (1, 2), (3, 4)], "two columns named 'a'"),
    ([], "no data in any visible sheet"),
])
def test_bad_workbooks_are_explained(rows, match):
    with pytest.raises(tables.DataError, match=match):
        read(xlsx_bytes(("S", rows)), "b.xlsx")


def test_header_cell_merged_over_data_is_explained():
    raw = xlsx_bytes(("S", [("Size", None, "y"), (1, 2, 3), (4, 5, 6)]), merges=("A1:B1",))
    with pytest.raises(tables.DataError, match="header cell A1:B1 is merged.*Unmerge it"):
        read(raw, "m.xlsx")


def test_damaged_xls_and_protected_files_are_explained():
    raw = xlsx_bytes(("S", [("x", "y"), (1, 2), (3, 4)]))
    with pytest.raises(tables.DataError, match="could not be read as an Excel workbook"):
        read(raw[: len(raw) - 200], "t.xlsx")
    with pytest.raises(tables.DataError, match="not an Excel workbook"):
        read(b"x,y\n1,2\n3,4\n", "t.xlsx")
    ole2 = bytes.fromhex("d0cf11e0a1b11ae1") + bytes(504)
    with pytest.raises(tables.DataError, match="old Excel 97–2003 format.*save it as .xlsx"):
        read(ole2 + "Workbook".encode("utf-16-le"), "old.xls")
    with pytest.raises(tables.DataError, match="password-protected.*remove the password"):
        read(ole2 + "EncryptedPackage".encode("utf-16-le"), "secret.xlsx")
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("data.csv", "x,y\n1,2\n")
    with pytest.raises(tables.DataError, match="a ZIP archive, not an Excel.*unzip it"):
        read(archive.getvalue(), "data.xlsx")


def test_damaged_workbook_never_escapes_as_another_error():
    """Bytes of a workbook overwritten in turn (headers, compressed XML, the directory):
    each file is read or refused with a DataError."""
    raw = xlsx_bytes(("S", [("x", "y")] + [(i, i % 2) for i in range(20)]))
    assert _flip_each(raw, "d.xlsx", range(0, len(raw), 97), 0x5A) == {"read", "refused"}
