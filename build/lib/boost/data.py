"""Input checking: features, labels and sample weights into the engine's float32 arrays
(read-only views: ``layout.read_only``).

Every problem a user can make with their data is caught here, before any numba kernel runs,
and reported as a ``ValueError`` that says what is wrong and how to fix it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._dtypes import FEATURE
from .layout import read_only
from .objectives import OBJECTIVES

MIN_ROWS = 2


def default_names(n_features: int) -> list[str]:
    """XGBoost's names for the columns of an array without names: f0, f1, ..."""
    return [f"f{i}" for i in range(n_features)]


def _non_numeric_columns(frame: pd.DataFrame) -> list[str]:
    bad = []
    for name, dtype in frame.dtypes.items():
        if pd.api.types.is_bool_dtype(dtype):
            continue
        if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_complex_dtype(dtype):
            bad.append(str(name))
    return bad


def as_features(X, expected_names: list[str] | None = None, what: str = "X"):
    """Return ``(X32, feature_names)``: a C-contiguous float32 array (NaN = missing).

    ``X`` is a 2-D numpy array or a pandas DataFrame (its column names become feature names;
    a numpy array gets ``f0, f1, ...``). ``expected_names`` checks an evaluation set against
    the training features.
    """
    if isinstance(X, pd.DataFrame):
        if X.shape[1] == 0:
            raise ValueError(f"{what} has no columns: choose at least one feature column.")
        bad = _non_numeric_columns(X)
        if bad:
            raise ValueError(
                f"{what} has non-numeric column(s) {bad[:5]}: the engine needs numbers. "
                "Encode them (for example with pandas.get_dummies) or drop them."
            )
        names = [str(c) for c in X.columns]
        if len(set(names)) != len(names):
            raise ValueError(f"{what} has duplicate column names; rename them to be unique.")
        values = X.astype("float64").to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        if isinstance(X, pd.Series):
            raise ValueError(
                f"{what} is a single Series; pass a DataFrame (X.to_frame()) with one column "
                "per feature."
            )
        try:
            values = np.asarray(X)
        except Exception as exc:  # ragged lists and the like
            raise ValueError(f"{what} could not be read as a 2-D array: {exc}") from None
        if values.ndim != 2:
            hint = " Reshape it with X.reshape(-1, 1)." if values.ndim == 1 else ""
            raise ValueError(
                f"{what} must be 2-D (rows x features); got {values.ndim} dimension(s).{hint}"
            )
        if values.dtype == object or not (
            np.issubdtype(values.dtype, np.number) or values.dtype == bool
        ) or np.issubdtype(values.dtype, np.complexfloating):
            raise ValueError(
                f"{what} has dtype {values.dtype}, not numbers. Convert it to a float array "
                "(non-numeric columns need encoding first)."
            )
        names = default_names(values.shape[1])
    n_samples, n_features = values.shape
    if n_samples == 0:
        raise ValueError(f"{what} has no rows: there is nothing to train on or predict.")
    if n_features == 0:
        raise ValueError(f"{what} has no columns: choose at least one feature column.")
    if expected_names is not None:
        if n_features != len(expected_names):
            raise ValueError(
                f"{what} has {n_features} feature(s) but the model was trained on "
                f"{len(expected_names)}; give the same columns in the same order."
            )
        if isinstance(X, pd.DataFrame) and names != list(expected_names):
            raise ValueError(
                f"{what}'s columns {names[:5]} differ from the training features "
                f"{list(expected_names)[:5]}; give the same columns in the same order."
            )
        names = list(expected_names)
    with np.errstate(over="ignore", invalid="ignore"):
        X32 = np.ascontiguousarray(values, dtype=FEATURE)
    if any_rows(X32, np.isinf):
        bad = np.isinf(X32)
        col = int(np.nonzero(bad.any(axis=0))[0][0])
        raw_inf = np.isinf(np.asarray(values[:, col], dtype=np.float64)).any()
        cause = "infinite values" if raw_inf else "values too large for float32 (|x| > 3.4e38)"
        raise ValueError(
            f"{what} column {names[col]!r} has {int(bad[:, col].sum())} {cause}. Replace "
            "them with NaN (treated as missing) or with finite values."
        )
    return read_only(X32), names


_BLOCK_ROWS = 1 << 16


def any_rows(X: np.ndarray, test) -> bool:
    """Whether ``test`` (np.isinf, np.isnan) holds for any value of ``X``, a block of rows
    at a time: no bool mask of the whole matrix (27 MiB at 1M x 28) is made."""
    return any(bool(test(X[a:a + _BLOCK_ROWS]).any()) for a in range(0, X.shape[0], _BLOCK_ROWS))


def _as_vector(v, n_samples: int, what: str) -> np.ndarray:
    if isinstance(v, (pd.Series, pd.Index)):
        if not pd.api.types.is_numeric_dtype(v.dtype) and not pd.api.types.is_bool_dtype(v.dtype):
            raise ValueError(
                f"{what} has dtype {v.dtype}, not numbers. Encode the labels as numbers "
                "(for classes: 0, 1, ..., num_class - 1)."
            )
        v = v.astype("float64").to_numpy(dtype=np.float64, na_value=np.nan)
    elif isinstance(v, pd.DataFrame):
        if v.shape[1] != 1:
            raise ValueError(f"{what} must be one column; got {v.shape[1]}.")
        return _as_vector(v.iloc[:, 0], n_samples, what)
    arr = np.asarray(v)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise ValueError(f"{what} must be 1-D with one value per row; got shape {arr.shape}.")
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise ValueError(
            f"{what} has dtype {arr.dtype}, not numbers. Encode the labels as numbers "
            "(for classes: 0, 1, ..., num_class - 1)."
        )
    if arr.shape[0] != n_samples:
        raise ValueError(
            f"{what} has {arr.shape[0]} value(s) but X has {n_samples} row(s); they must "
            "have the same length."
        )
    arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        k = int((~np.isfinite(arr)).sum())
        raise ValueError(
            f"{what} has {k} missing or infinite value(s); drop those rows or fill them."
        )
    return arr


def as_labels(y, n_samples: int, objective: str, num_class: int, what: str = "y") -> np.ndarray:
    """Float32 labels checked against the objective's ``label_rule`` (objectives.py)."""
    arr = _as_vector(y, n_samples, what)
    spec = OBJECTIVES[objective]
    refused = spec.label_rule.refuses(arr, num_class)
    if refused.any():
        bad = np.unique(arr[refused])[:5].tolist()
        raise ValueError(spec.label_rule.message(what, objective, spec.labels, bad, num_class))
    with np.errstate(over="ignore"):
        y32 = arr.astype(np.float32)
    if np.isinf(y32).any():
        raise ValueError(f"{what} has values too large for float32 (|y| > 3.4e38).")
    return read_only(y32)


def as_weights(sample_weight, n_samples: int, what: str = "sample_weight"):
    """Float32 sample weights (``None`` stays ``None``): finite, >= 0, not all zero."""
    if sample_weight is None:
        return None
    arr = _as_vector(sample_weight, n_samples, what)
    if (arr < 0).any():
        raise ValueError(f"{what} has negative values; weights must be >= 0.")
    if not (arr > 0).any():
        raise ValueError(f"{what} is zero everywhere; at least one row needs a positive weight.")
    return read_only(arr.astype(np.float32))


def check_training_rows(n_samples: int) -> None:
    if n_samples < MIN_ROWS:
        raise ValueError(
            f"Training needs at least {MIN_ROWS} rows; got {n_samples}. A tree cannot split a "
            "single row: add more data."
        )
