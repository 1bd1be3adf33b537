"""Reading a user's table and turning it into model inputs, with a clear message for every
problem. No Streamlit here: every function is testable on its own.

``read_table(raw, filename)`` reads a CSV/TSV (detecting its encoding, delimiter and header),
a Parquet file or an Excel workbook (``ui/formats.py``), all under the same limits and checks;
``prepare(frame, target, features, ...)`` infers the task, one-hot encodes text columns and
splits train/validation with a fixed seed.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from boost.data import as_labels
from boost.objectives import OBJECTIVES

MAX_BYTES = 50 * 1024 * 1024
MAX_COLUMNS = 200
MAX_CELLS = MAX_BYTES // 2  # the most values a CSV of MAX_BYTES holds ("1," each)
UPLOAD_TYPES = ("csv", "tsv", "txt", "parquet", "xlsx", "xls")  # .xls: to say what to do
MAX_CATEGORIES = 30  # a text column with more levels is treated as an identifier
DELIMITERS = [",", ";", "\t", "|"]
# The app's task names and the engine's (``boost.objectives``' ``task``): one differs.
ENGINE_TASK = {"regression": "regression", "binary": "binary", "multi-class": "multiclass"}
APP_TASK = {engine: app for app, engine in ENGINE_TASK.items()}
TASKS = {"regression": "reg:squarederror", "binary": "binary:logistic",
         "multi-class": "multi:softprob"}


class DataError(ValueError):
    """A problem with the user's data, worded for the user."""


def digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _decode(raw: bytes) -> tuple[str, str]:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16"), "UTF-16"
    if raw.startswith(b"\xef\xbb\xbf"):
        return raw[3:].decode("utf-8"), "UTF-8 (with BOM)"
    if b"\x00" in raw[:4096]:
        raise DataError(
            "This file looks binary (it contains NUL bytes), not a text table. Export it as "
            "CSV (comma- or semicolon-separated text) and upload that."
        )
    try:
        return raw.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace"), "Windows-1252"


def _sniff_delimiter(text: str) -> str:
    sample = "\n".join(text.splitlines()[:50])
    try:
        return csv.Sniffer().sniff(sample, delimiters="".join(DELIMITERS)).delimiter
    except csv.Error:
        counts = {d: sample.count(d) for d in DELIMITERS}
        best = max(counts, key=counts.get)
        return best if counts[best] else ","


def looks_numeric(values) -> bool:
    ok = 0
    for v in values:
        try:
            float(str(v).strip())
            ok += 1
        except ValueError:
            pass
    return ok == len(values) and ok > 0


@dataclass
class Table:
    frame: pd.DataFrame
    notes: list[str] = field(default_factory=list)


def read_table(raw: bytes, filename: str = "data.csv") -> Table:
    """Parse an uploaded CSV/TSV, Parquet file or Excel workbook (told by its first bytes).
    Raises ``DataError`` with what is wrong and how to fix it."""
    if not raw or not raw.strip():
        raise DataError(f"{filename} is empty: upload a CSV with a header row and data rows.")
    if len(raw) > MAX_BYTES:
        raise DataError(
            f"{filename} is {len(raw) / 1e6:.0f} MB; the limit is {MAX_BYTES / 1e6:.0f} MB. "
            "Upload a sample of the rows."
        )
    from . import formats  # pyarrow and openpyxl are loaded only for their files

    kind = formats.kind(raw, filename)
    if kind == "csv":
        frame, notes = _read_csv(raw, filename)
        one_column = "if the file uses another separator, save it with commas."
    else:
        frame, notes = formats.read(kind, raw, filename)
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
    return Table(frame=frame, notes=notes)


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


def _read_csv(raw: bytes, filename: str) -> tuple[pd.DataFrame, list[str]]:
    text, encoding = _decode(raw)
    delimiter = _sniff_delimiter(text)
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        raise DataError(f"{filename} has no rows of data.")
    has_header = not looks_numeric(rows[0])
    notes = [f"Read as {encoding}, separated by {_delimiter_name(delimiter)}"
             + ("" if has_header else ", with no header row (columns named col_1, col_2, ...)")
             + "."]
    try:
        frame = pd.read_csv(io.StringIO(text), sep=delimiter, header=0 if has_header else None,
                            skip_blank_lines=True, engine="python")
    except (pd.errors.ParserError, ValueError) as exc:
        raise DataError(
            f"{filename} could not be read as a table ({exc}). Check that every row has the "
            "same number of separators."
        ) from None
    if not has_header:
        frame.columns = [f"col_{i + 1}" for i in range(frame.shape[1])]
    frame.columns = [str(c).strip() for c in frame.columns]
    if has_header:  # pandas renames a repeated name ("a.1"): check the header as written
        check_unique([c.strip() for c in rows[0]], filename)
    return frame, notes


def _delimiter_name(d: str) -> str:
    return {",": "commas", ";": "semicolons", "\t": "tabs", "|": "vertical bars"}[d]


def column_flags(frame: pd.DataFrame) -> dict[str, str]:
    """Columns that are poor features: constant, all missing, or identifier-like."""
    flags = {}
    n = len(frame)
    for name in frame.columns:
        col = frame[name]
        present = col.dropna()
        if present.empty:
            flags[name] = "all values missing"
        elif present.nunique() == 1:
            flags[name] = "constant"
        elif n >= 20 and present.nunique() == len(present) and (
            not pd.api.types.is_float_dtype(col) or _is_integer_valued(present)
        ) and (not pd.api.types.is_numeric_dtype(col) or _is_sequence(present)):
            flags[name] = "looks like an identifier (a different value in every row)"
        elif (not pd.api.types.is_numeric_dtype(col) and present.nunique() > MAX_CATEGORIES):
            flags[name] = f"text with {present.nunique()} different values (too many to encode)"
    return flags


# default_target: names that say "this is the target", and names of identifier columns
TARGET_NAMES = ("target", "label", "labels", "class", "y", "survived", "outcome", "price",
                "species", "response", "result", "churn", "default", "progression", "quality",
                "diagnosis", "salary", "income", "grade", "score", "category")
_ID_NAME = re.compile(r"(^|[_\s.-])(id|idx|index|name|ticket|uuid|key)$", re.IGNORECASE)
_CAMEL_ID = re.compile(r"[a-z](Id|ID|Name)$")  # PassengerId, userID, FullName
MAX_TARGET_LEVELS = 20  # a text column with more levels is not a default target
ID_MIN_ROWS = 10  # "a different value in every row" says little about fewer rows


def _can_be_target(name: str, col: pd.Series) -> bool:
    """Not an identifier (by name, or a different text or a counter in every row), not text
    with many levels, and at least two values."""
    present = col.dropna()
    levels = present.nunique()
    if levels < 2 or _ID_NAME.search(name) or _CAMEL_ID.search(name):
        return False
    numeric = pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)
    # one value per row: text, or whole numbers counting up (0, 1, 2, ...; whole numbers
    # that are merely all different, as prices can be, stay candidates)
    if (len(present) >= ID_MIN_ROWS and levels == len(present)
            and (not numeric or (_is_integer_valued(present) and _is_sequence(present)))):
        return False
    return numeric or (levels <= MAX_TARGET_LEVELS and levels <= 0.5 * len(present))


def default_target(frame: pd.DataFrame) -> str:
    """The column an upload most likely wants to predict: among the columns that can be a
    target (``_can_be_target``), the first named like one (``TARGET_NAMES``: Survived,
    label, price, ...), else the last; the last column when none can."""
    names = [str(c) for c in frame.columns]
    fit = [c for c, name in zip(frame.columns, names, strict=True)
           if _can_be_target(name, frame[c])]
    named = [c for c in fit if str(c).strip().lower() in TARGET_NAMES]
    return (named or fit or list(frame.columns))[0 if named else -1]


def _is_integer_valued(s: pd.Series) -> bool:
    return bool(np.all(np.asarray(s, dtype=float) == np.round(np.asarray(s, dtype=float))))


def _is_sequence(s: pd.Series) -> bool:
    v = np.sort(np.asarray(s, dtype=float))
    return bool(np.all(np.diff(v) == 1))


def infer_task(y: pd.Series) -> str:
    """'regression', 'binary' or 'multi-class' from the target column."""
    present = y.dropna()
    levels = present.nunique()
    if not pd.api.types.is_numeric_dtype(present) or pd.api.types.is_bool_dtype(present):
        return "binary" if levels == 2 else "multi-class"
    if levels == 2:
        return "binary"
    # Small non-negative integer codes with several rows per code look like classes.
    if (levels <= 10 and _is_integer_valued(present) and present.min() >= 0
            and len(present) >= 5 * levels):
        return "multi-class"
    return "regression"


def _checked_weights(data: pd.DataFrame, weight: str, notes: list[str]) -> pd.DataFrame:
    """The rows with a usable weight; a DataError when the column cannot be weights."""
    column = data[weight]
    if not pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        raise DataError(f"The weight column {weight!r} is not numeric; sample weights are "
                        "numbers >= 0 (how much each row counts). Choose another column or none.")
    values = column.to_numpy(dtype=float)
    if (values < 0).any() or np.isinf(values).any():
        bad = np.unique(values[(values < 0) | np.isinf(values)])[:3].tolist()
        raise DataError(f"The weight column {weight!r} has values {bad}; sample weights must be "
                        "finite and >= 0.")
    missing = np.isnan(values)
    if missing.all():
        raise DataError(f"The weight column {weight!r} has no values.")
    if missing.any():
        notes.append(f"Dropped {int(missing.sum())} row(s) with no weight in {weight!r}.")
        data = data.loc[~missing]
    return data


def _objective_for(task: str, objective: str | None, target: str, y: np.ndarray,
                   num_class: int) -> str:
    """The objective to train with, checked against the task and the target's values."""
    if objective is None:
        return TASKS[task]
    spec = OBJECTIVES.get(objective)
    if spec is None or spec.task != ENGINE_TASK[task]:
        raise DataError(
            f"The objective {objective!r} does not fit the {task} task of the target "
            f"{target!r}. Choose one of the {task} objectives, or change the task."
        )
    try:
        as_labels(y, len(y), objective, num_class, what=f"The target {target!r}")
    except ValueError as exc:
        raise DataError(str(exc)) from None
    return objective


@dataclass
class Prepared:
    """Model inputs: numeric X (NaN = missing), encoded y, and what the user should know."""

    X_train: pd.DataFrame
    y_train: np.ndarray
    X_valid: pd.DataFrame
    y_valid: np.ndarray
    task: str
    objective: str
    num_class: int
    class_names: list[str]
    feature_names: list[str]
    raw_features: list[str]
    notes: list[str]
    w_train: np.ndarray | None = None  # sample weights (a weight column), None = unweighted
    w_valid: np.ndarray | None = None


def prepare(frame: pd.DataFrame, target: str, features: list[str], task: str | None = None,
            valid_fraction: float = 0.2, seed: int = 0, objective: str | None = None,
            weight: str | None = None) -> Prepared:
    """Encode ``features`` and ``target`` for the engine; raises ``DataError``.

    ``objective`` (an engine objective name) must suit the task; None means the task's
    default (``TASKS``). ``weight`` names a column of sample weights (numbers >= 0)."""
    if target not in frame.columns:
        raise DataError(f"The target column {target!r} is not in the data.")
    features = [f for f in features if f not in (target, weight)]
    if not features:
        raise DataError("Choose at least one feature column (other than the target).")
    notes = []
    data = frame[features + [target] + ([weight] if weight else [])]
    if weight:
        data = _checked_weights(data, weight, notes)
    missing_target = data[target].isna()
    if missing_target.all():
        raise DataError(f"The target {target!r} has no values.")
    if missing_target.any():
        notes.append(f"Dropped {int(missing_target.sum())} row(s) with no value for the target.")
        data = data.loc[~missing_target]
    y_raw = data[target]
    if y_raw.nunique() < 2:
        raise DataError(
            f"The target {target!r} has the same value in every row; there is nothing to learn. "
            "Choose another target."
        )
    y, task, num_class, class_names = _encode_target(y_raw, target, task)
    objective = _objective_for(task, objective, target, y, num_class)
    X, dropped = _encode_features(data[features], notes)
    n = len(X)
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    n_valid = int(round(n * valid_fraction)) if n >= 10 else 0
    valid_idx, train_idx = np.sort(order[:n_valid]), np.sort(order[n_valid:])
    if n_valid == 0:
        notes.append("Fewer than 10 rows: every row is used for training (no validation set).")
    w = data[weight].to_numpy(dtype=float) if weight else None
    if w is not None:
        if not (w[train_idx] > 0).any():
            raise DataError(f"Every training row has weight 0 in {weight!r}; at least one row "
                            "needs a positive weight.")
        if n_valid and not (w[valid_idx] > 0).any():
            w_valid_ok = False
            notes.append(f"Every validation row has weight 0 in {weight!r}: the validation "
                         "loss is unweighted.")
        else:
            w_valid_ok = True
    return Prepared(
        w_train=None if w is None else w[train_idx],
        w_valid=None if w is None or not w_valid_ok or not n_valid else w[valid_idx],
        X_train=X.iloc[train_idx].reset_index(drop=True), y_train=y[train_idx],
        X_valid=X.iloc[valid_idx].reset_index(drop=True), y_valid=y[valid_idx],
        task=task, objective=objective, num_class=num_class, class_names=class_names,
        feature_names=list(X.columns), raw_features=[c for c in features if c not in dropped],
        notes=notes,
    )


def _encode_target(y_raw: pd.Series, target: str, task: str | None):
    """(y as floats, the task, the number of classes, the class names) for the target."""
    inferred = infer_task(y_raw)
    task = task or inferred
    if task not in TASKS:
        raise DataError(f"Unknown task {task!r}; choose regression, binary or multi-class.")
    class_names: list[str] = []
    if task == "regression":
        if not pd.api.types.is_numeric_dtype(y_raw) or pd.api.types.is_bool_dtype(y_raw):
            raise DataError(
                f"The target {target!r} holds text, so it cannot be a regression target. "
                "Choose the binary or multi-class task, or a numeric target."
            )
        y = y_raw.to_numpy(dtype=float)
        num_class = 1
    else:
        codes, uniques = pd.factorize(y_raw, sort=True)
        class_names = [str(u) for u in uniques]
        num_class = len(uniques)
        if task == "binary" and num_class != 2:
            raise DataError(
                f"The target {target!r} has {num_class} different values, but the binary task "
                "needs exactly 2. Choose the multi-class task (or regression for a number)."
            )
        if task == "multi-class" and num_class > 50:
            raise DataError(
                f"The target {target!r} has {num_class} classes; BoostScope shows at most 50. "
                "Is it really a class label? Choose regression for a numeric target."
            )
        y = codes.astype(float)
    return y, task, num_class, class_names


def _encode_features(X: pd.DataFrame, notes: list[str]):
    """The features as floats (text one-hot encoded, infinities missing) and the columns
    dropped for having no values; what was done is added to ``notes``."""
    dropped = [c for c in X.columns if X[c].isna().all()]
    if dropped:
        notes.append(f"Ignored {dropped} (every value missing).")
        X = X.drop(columns=dropped)
    text_cols = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])
                 and not pd.api.types.is_bool_dtype(X[c])]
    too_many = [c for c in text_cols if X[c].nunique() > MAX_CATEGORIES]
    if too_many:
        raise DataError(
            f"Text column(s) {too_many} have more than {MAX_CATEGORIES} different values; "
            "one-hot encoding them would add too many columns. Remove them from the features."
        )
    if text_cols:
        X = pd.get_dummies(X, columns=text_cols, prefix_sep="=", dummy_na=False, dtype=float)
        notes.append(f"One-hot encoded the text column(s) {text_cols} (one 0/1 column per "
                     "value; a missing value gives 0 in all of them).")
    X = X.astype(float)
    if X.shape[1] == 0:
        raise DataError("No usable feature columns are left; choose other features.")
    inf = np.isinf(X.to_numpy())
    if inf.any():
        X = X.mask(np.isinf(X))
        notes.append(f"Treated {int(inf.sum())} infinite value(s) as missing.")
    return X, dropped
