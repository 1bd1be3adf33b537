"""Numbers as spreadsheets export them (ui/tables/numbers.py): decimal commas and thousands
separators read per column, the file's own way for columns that read both ways, and the
user's choice; each value checked against the number written by hand."""

import numpy as np
import pandas as pd
import pytest

from ui import tables
from ui.tables.numbers import COMMA, POINT, reads_as


@pytest.mark.parametrize("text,style,value", [
    ("10,38", COMMA, 10.38), ("1.234,5", COMMA, 1234.5), ("-1.234.567,25", COMMA, -1234567.25),
    ("1\u00a0234,5", COMMA, 1234.5), ("1 234", COMMA, 1234.0), ("12", COMMA, 12.0),
    ("1,234.5", POINT, 1234.5), ("-0.5", POINT, -0.5), ("1,234,567", POINT, 1234567.0),
    ("2.5e3", POINT, 2500.0), ("2,5e3", COMMA, 2500.0),
])
def test_a_value_reads_as_written(text, style, value):
    frame = pd.DataFrame({"x": [text, text], "y": ["1", "2"]})
    assert reads_as(frame.x, style)
    table = tables.read_table(frame.to_csv(index=False, sep=";").encode(), "t.csv",
                              numbers=style)
    assert table.frame.x.tolist() == [value, value]


@pytest.mark.parametrize("text", ["1,23,4", "12,3456.7", "1.2.3", "abc", "1,5 kg", "--1"])
def test_text_that_is_no_number_stays_text(text):
    assert not reads_as(pd.Series([text]), POINT) or not reads_as(pd.Series([text]), COMMA)
    raw = f"x;y\n{text};1\n{text};2\n".encode()
    frame = tables.read_table(raw, "t.csv").frame
    assert not pd.api.types.is_numeric_dtype(frame.x)


EUROPEAN = (b"mean radius;area;texture;count;weight;diagnosis\n"
            b"17,99;1.001,0;10,38;3;1.234;1\n"
            b"20,57;1.326,0;17,77;12;2.500;1\n"
            b"11,42;386,1;20,38;7;1.000;0\n"
            b"12,45;1.234;14,1;5;3.250;0\n")


def test_a_european_table_reads_as_numbers_with_its_note():
    table = tables.read_table(EUROPEAN, "eu.csv")
    f = table.frame
    assert f["mean radius"].tolist() == [17.99, 20.57, 11.42, 12.45]
    assert f["area"].tolist() == [1001.0, 1326.0, 386.1, 1234.0]
    assert f["texture"].tolist() == [10.38, 17.77, 20.38, 14.1]
    assert f["count"].tolist() == [3, 12, 7, 5] and f["count"].dtype.kind == "i"
    assert f["weight"].tolist() == [1234.0, 2500.0, 1000.0, 3250.0]  # the file's way
    assert table.numbers.style == COMMA and table.numbers.either == ("weight",)
    assert ("Numbers with decimal comma (1.234,5) in 4 columns: mean radius, area, texture, "
            "weight.") in table.notes


def test_a_column_that_reads_both_ways_follows_the_file_and_the_choice():
    # "1.234" alone is a thousand and more in Europe and one and a bit elsewhere
    raw = b"a;b;y\n1,5;1.234;1\n2,25;2.500;0\n"
    own = tables.read_table(raw, "t.csv")
    assert own.numbers.either == ("b",) and own.numbers.style == COMMA
    assert own.frame.b.tolist() == [1234.0, 2500.0]
    chosen = tables.read_table(raw, "t.csv", numbers=POINT)
    assert chosen.frame.b.tolist() == [1.234, 2.5]
    assert chosen.frame.a.tolist() == [1.5, 2.25]  # reads only one way: kept
    us = tables.read_table(b"a,b,y\n1.5,\"1,234\",1\n2.25,\"2,500\",0\n", "t.csv")
    assert us.numbers.style == POINT and us.frame.b.tolist() == [1234.0, 2500.0]
    assert not tables.read_table(b"a,y\n1.5,1\n2.5,0\n", "t.csv").numbers.choice


def test_numbers_typed_into_excel_text_cells():
    from uploads import xlsx_bytes
    raw = xlsx_bytes(("S", [("x", "n", "y"), ("10,38", 1.5, 1), ("1.234,5", 2.25, 0)]))
    table = tables.read_table(raw, "t.xlsx")
    assert table.frame.x.tolist() == [10.38, 1234.5]
    assert table.frame.n.tolist() == [1.5, 2.25]  # a number cell is a number
    assert np.issubdtype(table.frame.x.dtype, np.floating)


def test_the_app_reads_a_european_upload_and_the_choice_keeps_the_columns():
    from apptest import open_app, status
    at = open_app(sample="moons")
    at.get("file_uploader")[0].set_value(("eu.csv", EUROPEAN, "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.selectbox(key="target").value == "diagnosis"
    assert set(at.multiselect(key="features").value) == {"mean radius", "area", "texture",
                                                         "count", "weight"}
    sample = at.selectbox(key="sample")  # no sample on screen: the upload is named
    assert sample.value is None and sample.proto.placeholder == "eu.csv (your upload)"
    numbers = at.selectbox(key="numbers")
    assert numbers.value == COMMA
    assert any("decimal comma (1.234,5) in 4 columns" in c.value for c in at.caption)
    assert "train logloss" in status(at)
    app = at.session_state["app"]
    assert app.model.last_good.prep.X_train.shape[1] == 5
    at.multiselect(key="features").set_value(["area", "weight"]).run()
    numbers.set_value(POINT).run()  # "1.234" is one and a bit now; the features chosen stay
    assert not at.exception
    assert at.multiselect(key="features").value == ["area", "weight"]
    assert app.inputs.data.frame["weight"].tolist() == [1.234, 2.5, 1.0, 3.25]
    assert app.inputs.data.frame["area"].tolist()[3] == 1234.0  # reads one way only
    trained = app.model.last_good.prep.X_train["weight"].to_numpy()  # trained on the new values
    assert set(np.round(trained, 3)) <= {1.234, 2.5, 1.0, 3.25} and len(trained)
    assert at.selectbox(key="numbers").value == POINT
