"""Dates written as text in a CSV (ui/tables/dates.py) read as days since 1970-01-01, as the
Excel and Parquet readers read date cells; each value checked against Python's datetime."""

import datetime as dt

import pytest

from ui import tables


def _days(*args) -> float:
    return (dt.datetime(*args) - dt.datetime(1970, 1, 1)).total_seconds() / 86400


@pytest.mark.parametrize("texts,sep,want", [
    (["2024-03-15", "2023-12-31"], ",", [_days(2024, 3, 15), _days(2023, 12, 31)]),
    (["2024-03-15 08:30", "2024-03-16T12:00:30"], ",",
     [_days(2024, 3, 15, 8, 30), _days(2024, 3, 16, 12, 0, 30)]),
    (["15.03.2024", "01.02.2024"], ";", [_days(2024, 3, 15), _days(2024, 2, 1)]),
    (["13/01/2024", "01/02/2024"], ",", [_days(2024, 1, 13), _days(2024, 2, 1)]),  # day 13
    (["01/13/2024", "02/01/2024"], ",", [_days(2024, 1, 13), _days(2024, 2, 1)]),  # month 1
    (["01/02/2024", "03/04/2024"], ",", [_days(2024, 1, 2), _days(2024, 3, 4)]),  # US file
])
def test_a_date_column_reads_as_days_since_1970(texts, sep, want):
    raw = f"d{sep}y\n" + "".join(f"{t}{sep}{i}\n" for i, t in enumerate(texts))
    table = tables.read_table(raw.encode(), "d.csv")
    assert table.frame.d.tolist() == pytest.approx(want)
    assert "Read the date column(s) 'd' as days since 1970-01-01" in " ".join(table.notes)


def test_ambiguous_slashed_dates_follow_the_files_decimal_mark():
    raw = b"d;v;y\n01/02/2024;1,5;0\n03/04/2024;2,5;1\n"  # European: day first
    assert tables.read_table(raw, "d.csv").frame.d.tolist() == pytest.approx(
        [_days(2024, 2, 1), _days(2024, 4, 3)])


@pytest.mark.parametrize("texts", [["2024-02-31", "2024-03-01"], ["2024-03-15", "soon"],
                                   ["15.03.24", "16.03.24"], ["1/2", "3/4"]])
def test_what_is_not_a_column_of_dates_stays_text(texts):
    raw = "d,y\n" + "".join(f"{t},{i}\n" for i, t in enumerate(texts))
    table = tables.read_table(raw.encode(), "d.csv")
    assert table.frame.d.dtype.kind not in "f"
    assert not any("date column" in n for n in table.notes)
