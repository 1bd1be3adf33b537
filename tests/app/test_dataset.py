"""Reading and preparing user data (no Streamlit)."""

import numpy as np
import pandas as pd
import pytest

from ui import tables


def test_semicolon_latin1_with_header():
    raw = "größe;gewicht;ziel\n1,5;2;0\n2,5;3;1\n3,5;4;1\n".encode("cp1252")
    table = tables.read_table(raw, "d.csv")
    assert list(table.frame.columns) == ["größe", "gewicht", "ziel"]
    assert "semicolons" in table.notes[0] and "Windows-1252" in table.notes[0]


def test_tab_utf16_without_header():
    raw = "1\t2\t3\n4\t5\t6\n7\t8\t9\n".encode("utf-16")
    frame = tables.read_table(raw, "d.tsv").frame
    assert list(frame.columns) == ["col_1", "col_2", "col_3"]
    assert frame.shape == (3, 3) and frame.iloc[2, 2] == 9


@pytest.mark.parametrize("raw,match", [
    (b"", "empty"),
    (b"   \n\n", "empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
    (b"a,b\n1,2\n", "1 data row"),
    (b"a\n1\n2\n3\n", "single column"),
    ((",".join(f"c{i}" for i in range(300)) + "\n" + ",".join("1" * 300) + "\n"
      + ",".join("2" * 300) + "\n").encode(), "300 columns"),
    (b"a,a\n1,2\n3,4\n", "two columns named"),
])
def test_bad_files_are_explained(raw, match):
    with pytest.raises(tables.DataError, match=match):
        tables.read_table(raw, "d.csv")


def test_flags_constant_id_and_empty_columns():
    n = 30
    frame = pd.DataFrame({"id": np.arange(n), "const": 1.0, "empty": np.nan,
                          "x": np.random.default_rng(0).normal(size=n), "y": np.arange(n) % 2})
    flags = tables.column_flags(frame)
    assert set(flags) == {"id", "const", "empty"}


@pytest.mark.parametrize("values,task", [
    ([0.5, 1.2, 3.3, 4.1, 2.2, 9.9], "regression"),
    ([0, 1, 0, 1, 1, 0], "binary"),
    (["a", "b", "c", "a", "b", "c"], "multiclass"),
    ([-10, 7, 8, -7], "regression"),
    ([0, 1, 2] * 10, "multiclass"),
    (["yes", "no", "yes"], "binary"),
])
def test_infer_task(values, task):
    assert tables.infer_task(pd.Series(values)) == task


def test_prepare_one_hot_split_and_notes():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"city": rng.choice(["a", "b", None], 50), "x": rng.normal(size=50),
                          "y": rng.choice(["cat", "dog"], 50)})
    frame.loc[3, "y"] = None
    prep = tables.prepare(frame, "y", ["city", "x"])
    assert prep.task == "binary" and prep.class_names == ["cat", "dog"]
    assert prep.feature_names == ["x", "city=a", "city=b"]
    assert len(prep.y_train) + len(prep.y_valid) == 49
    assert len(prep.y_valid) == 10
    assert any("One-hot" in n for n in prep.notes) and any("Dropped 1" in n for n in prep.notes)
    again = tables.prepare(frame, "y", ["city", "x"])
    np.testing.assert_array_equal(prep.y_valid, again.y_valid)  # the split is seeded


@pytest.mark.parametrize("frame,target,task,match", [
    (pd.DataFrame({"x": [1, 2, 3], "y": [5, 5, 5]}), "y", None, "same value in every row"),
    (pd.DataFrame({"x": [1, 2, 3, 4], "y": [0, 1, 2, 1]}), "y", "binary", "exactly 2"),
    (pd.DataFrame({"x": [1, 2, 3], "y": ["a", "b", "a"]}), "y", "regression", "holds text"),
    (pd.DataFrame({"x": [np.nan] * 3, "y": [1.0, 2.0, 3.0]}), "y", None, "No usable"),
])
def test_prepare_refuses_what_cannot_be_trained(frame, target, task, match):
    with pytest.raises(tables.DataError, match=match):
        tables.prepare(frame, target, ["x"], task=task)


def test_files_over_the_size_limit_are_refused(monkeypatch):
    from ui.tables import read

    monkeypatch.setattr(read, "MAX_BYTES", 1000)
    raw = ("x,y\n" + "\n".join(f"{i},{i}" for i in range(500))).encode()
    with pytest.raises(tables.DataError, match="the limit is"):
        tables.read_table(raw, "big.csv")


def _titanic(n=40):
    """A frame shaped like Kaggle's Titanic training file."""
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "PassengerId": np.arange(1, n + 1),
        "Survived": rng.integers(0, 2, n),
        "Pclass": rng.integers(1, 4, n),
        "Name": [f"Passenger {i}, Mr. X" for i in range(n)],
        "Sex": rng.choice(["male", "female"], n),
        "Age": np.where(rng.random(n) < 0.2, np.nan, rng.uniform(1, 70, n).round()),
        "SibSp": rng.integers(0, 3, n),
        "Parch": rng.integers(0, 3, n),
        "Ticket": [f"A/5 {21171 + i}" for i in range(n)],
        "Fare": rng.uniform(5, 80, n).round(2),
        "Cabin": [f"C{i}" if i % 4 == 0 else None for i in range(n)],
        "Embarked": rng.choice(["S", "C", "Q"], n),
    })


def test_default_target_of_titanic_is_survived():
    frame = _titanic()
    assert tables.default_target(frame) == "Survived"
    # without a column named like a target: the last one that can be a target
    assert tables.default_target(frame.drop(columns="Survived")) == "Embarked"


@pytest.mark.parametrize("last, values", [
    ("id", lambda n: np.arange(n)),  # an identifier by name and by values
    ("row_index", lambda n: np.arange(n) * 3 + 7),  # by name
    ("CustomerID", lambda n: np.arange(n) + 1000),  # camel case
    ("code", lambda n: np.random.default_rng(1).permutation(n) + 500),  # a shuffled counter
    ("uuid_text", lambda n: [f"u-{i:04x}" for i in range(n)]),  # text, one per row
    ("comment", lambda n: [f"note {i % 25}" for i in range(n)]),  # text, 25 levels
    ("constant", lambda n: np.ones(n)),  # nothing to learn
])
def test_default_target_skips_identifiers_and_free_text(last, values):
    n = 60
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"size": rng.normal(size=n), "weight": rng.normal(size=n),
                          "amount": rng.normal(size=n).round(1)})
    frame[last] = values(n)
    assert tables.default_target(frame) == "amount"


def test_default_target_prefers_target_names_and_falls_back_to_the_last_column():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"label": rng.integers(0, 2, 30), "x": rng.normal(size=30),
                          "z": rng.normal(size=30)})
    assert tables.default_target(frame) == "label"
    # a text target with few levels qualifies; a numeric one with decimals is not an id
    frame = pd.DataFrame({"x": rng.normal(size=30), "Class": rng.choice(["a", "b", "c"], 30)})
    assert tables.default_target(frame) == "Class"
    ids = pd.DataFrame({"ID": np.arange(30), "Name": [f"n{i}" for i in range(30)]})
    assert tables.default_target(ids) == "Name"  # nothing qualifies: the last column
    # whole numbers that differ in every row but do not count up can be a target
    frame = pd.DataFrame({"x": rng.normal(size=30), "amount": np.arange(30) * 7 % 31 * 2})
    assert tables.default_target(frame) == "amount"
    # a hand example of four rows (every value different) is not judged by uniqueness
    assert tables.default_target(pd.DataFrame({"x": [10, 20, 25, 35],
                                                "y": [-10, 7, 8, -7]})) == "y"


def test_default_target_of_every_bundled_sample_is_its_target():
    from ui.samples import SAMPLES
    for sample in SAMPLES:
        frame = tables.read_table(sample.path.read_bytes(), sample.file).frame
        assert tables.default_target(frame) == sample.target, sample.key
