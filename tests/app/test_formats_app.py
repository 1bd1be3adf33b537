"""Parquet and Excel uploads in the app (AppTest): a good file is trained on at once; a bad
one gets its message and the previous data and model stay on screen."""

import numpy as np
import pyarrow as pa
import pytest
from apptest import clear_caches, open_app, status  # noqa: F401  (clear_caches: autouse)
from uploads import parquet_bytes, xlsx_bytes

from ui import tables


def _upload(at, name: str, raw: bytes):
    at.get("file_uploader")[0].set_value((name, raw, "application/octet-stream")).run()
    assert not at.exception, at.exception
    return at


def test_uploader_accepts_every_format():
    at = open_app()
    assert set(at.get("file_uploader")[0].proto.type) >= {
        f".{t}" for t in tables.UPLOAD_TYPES}


@pytest.mark.parametrize("name,make", [
    ("d.parquet", lambda x, y: parquet_bytes(pa.table({"x": x, "y": y}))),
    ("d.xlsx", lambda x, y: xlsx_bytes(("Data", [("x", "y"), *zip(x, y, strict=True)]))),
])
def test_good_upload_trains(name, make):
    x = np.round(np.linspace(0, 6, 40), 3)
    y = np.round(np.sin(x), 3)
    at = _upload(open_app(sample="moons"), name, make(x.tolist(), y.tolist()))
    assert not at.error
    assert at.selectbox(key="target").value == "y"
    assert status(at).startswith("Round 0 of 20 — train rmse")
    assert f"**{name}**: 40 rows × 2 columns" in " ".join(c.value for c in at.caption)


def _truncated_parquet() -> bytes:
    raw = parquet_bytes(pa.table({"x": [1.0, 2.0, 3.0], "y": [0.0, 1.0, 0.0]}))
    return raw[:-10]


@pytest.mark.parametrize("name,raw,message", [
    ("t.parquet", _truncated_parquet(), "cut short"),
    ("n.parquet", parquet_bytes(pa.table({"l": pa.array([[1], [2]]), "y": [1.0, 2.0]})),
     "nested"),
    ("e.xlsx", xlsx_bytes(("S", [("x", "y")])), "0 data row"),
    ("old.xls", bytes.fromhex("d0cf11e0a1b11ae1") + bytes(504) + "Workbook".encode("utf-16-le"),
     "old Excel 97–2003 format"),
    ("w.xlsx", xlsx_bytes(("S", [tuple(f"c{i}" for i in range(250)), tuple(range(250))])),
     "250 columns"),
])
def test_bad_uploads_keep_the_previous_data(name, raw, message):
    at = _upload(open_app(sample="moons"), name, raw)
    assert any(message in e.value for e in at.error), [e.value for e in at.error]
    assert "previous data stay loaded" in at.error[0].value
    assert status(at).startswith("Round 0 of 20 — train logloss")  # moons still shown


def test_many_features_fold_into_an_expander():
    wide = "".join(f"x{i}," for i in range(12)) + "y\n" + "\n".join(
        ",".join(str((r * 7 + i) % 5) for i in range(12)) + f",{r % 3}" for r in range(30))
    at = _upload(open_app(sample="moons"), "wide.csv", wide.encode())
    assert [e.label for e in at.expander if e.label.startswith("Features")] == [
        "Features (of 12 columns)"]
    assert len(at.multiselect(key="features").value) == 12
    narrow = _upload(open_app(sample="moons"), "n.csv", b"a,b,y\n1,2,0\n3,4,1\n5,1,0\n")
    assert not [e for e in narrow.expander if e.label.startswith("Features")]


def test_an_upload_that_cannot_train_puts_the_other_datas_model_away():
    from apptest import player_data
    raw = b"name;y\n" + b"\n".join(f"id{i};{i % 2}".encode() for i in range(40))
    at = _upload(open_app(sample="moons"), "ids.csv", raw)
    error = " ".join(e.value for e in at.error)
    assert error.startswith("Cannot train on ids.csv: Text column(s) ['name']")
    assert "They are the only features" in error
    assert "The model of Two moons (2-D, two classes) is not shown (other data)" in error
    assert at.session_state["app"].model.last_good is None
    with pytest.raises(AssertionError, match="no player"):
        player_data(at)  # no stage: nothing of the moons model on screen
    assert not at.info  # (the error says why; no "choose data")
