"""``prepare(frame, target, features, ...)``: a table turned into model inputs: the task
inferred or checked, text columns one-hot encoded, train/validation split with a fixed seed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from boost.data import as_labels
from boost.objectives import OBJECTIVES
from boost.ranking import RankParams, check_labels

from .checks import DataError
from .columns import MAX_CATEGORIES, infer_task

TASKS = {"regression": "reg:squarederror", "binary": "binary:logistic",
         "multiclass": "multi:softprob"}
RANKING = "rank:ndcg"  # the ranking task's default objective (a query column makes it ranking)


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
        return RANKING if task == "ranking" else TASKS[task]
    spec = OBJECTIVES.get(objective)
    if spec is None or spec.task != task:
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
    # Ranking: the query column and each row's query (codes 0, 1, ... in the order of the
    # column's sorted values; rows sorted by it, as XGBoost's qid must be); None otherwise.
    query: str | None = None
    qid_train: np.ndarray | None = None
    qid_valid: np.ndarray | None = None


def prepare(frame: pd.DataFrame, target: str, features: list[str], task: str | None = None,
            valid_fraction: float = 0.2, seed: int = 0, objective: str | None = None,
            weight: str | None = None, query: str | None = None) -> Prepared:
    """Encode ``features`` and ``target`` for the engine; raises ``DataError``.

    ``objective`` (an engine objective name) must suit the task; None means the task's
    default (``TASKS``). ``weight`` names a column of sample weights (numbers >= 0).
    ``query`` names a column of query ids: the task is then ranking (learning to rank, the
    target a relevance degree per row), the rows are sorted by query (stably: a query's rows
    keep their order), and the validation rows are whole queries."""
    if query:
        return _prepare_ranking(frame, target, features, valid_fraction, seed, objective,
                                weight, query)
    if target not in frame.columns:
        raise DataError(f"The target column {target!r} is not in the data.")
    features = [f for f in features if f not in (target, weight)]
    if not features:
        raise DataError("Choose at least one feature column (other than the target).")
    notes = []
    data = frame[features + [target] + ([weight] if weight else [])]
    if weight:
        data = _checked_weights(data, weight, notes)
    data = _without_missing(data, target, notes, f"The target {target!r} has no values.",
                            "Dropped {n} row(s) with no value for the target.")
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


def _without_missing(data: pd.DataFrame, column: str, notes: list, empty: str,
                     dropped: str) -> pd.DataFrame:
    """``data`` without its rows that have no value in ``column`` (``dropped``, its ``{n}``
    the count, said in ``notes``); a DataError ``empty`` when no row has one."""
    missing = data[column].isna()
    if missing.all():
        raise DataError(empty)
    if missing.any():
        notes.append(dropped.format(n=int(missing.sum())))
        data = data.loc[~missing]
    return data


def _prepare_ranking(frame: pd.DataFrame, target: str, features: list[str],
                     valid_fraction: float, seed: int, objective: str | None,
                     weight: str | None, query: str) -> Prepared:
    """``prepare`` with a query column: rows sorted by query, whole queries held out."""
    if query not in frame.columns:
        raise DataError(f"The query column {query!r} is not in the data.")
    if query == target:
        raise DataError(f"The query column {query!r} is also the target; choose the column "
                        "of relevance degrees as the target.")
    features = [f for f in features if f not in (target, weight, query)]
    if not features:
        raise DataError("Choose at least one feature column (other than the target and the "
                        "query column).")
    if weight:
        raise DataError("Sample weights with a query column: XGBoost weighs whole queries "
                        "(one weight per query), which BoostScope's app does not offer yet. "
                        "Choose no weight column.")
    notes = []
    data = frame[features + [target, query]]
    for column, what in ((target, "relevance"), (query, "query")):
        data = _without_missing(data, column, notes,
                                f"The {what} column {column!r} has no values.",
                                f"Dropped {{n}} row(s) with no {what} in {column!r}.")
    y_raw = data[target]
    if not pd.api.types.is_numeric_dtype(y_raw) or pd.api.types.is_bool_dtype(y_raw):
        raise DataError(f"The target {target!r} holds text; a ranking target is a relevance "
                        "degree per row (0, 1, 2, ...). Choose a numeric target, or no query "
                        "column.")
    codes, _ = pd.factorize(data[query], sort=True)
    order = np.argsort(codes, kind="stable")
    if (np.diff(codes) < 0).any():
        notes.append(f"Sorted the rows by {query!r} (a query's rows together, in their order), "
                     "as XGBoost's qid needs.")
    data, codes = data.iloc[order], codes[order]
    y = data[target].to_numpy(dtype=float)
    if np.unique(y).size < 2:
        raise DataError(f"The target {target!r} has the same value in every row; there is "
                        "nothing to rank. Choose another target.")
    objective = _objective_for("ranking", objective, target, y, 1)
    if objective == "rank:map":  # (rank:ndcg's degrees depend on ndcg_exp_gain: the engine's)
        try:
            check_labels(objective, y, RankParams(), what=f"The target {target!r}")
        except ValueError as exc:
            raise DataError(str(exc)) from None
    X, dropped = _encode_features(data[features], notes)
    n_queries = int(codes.max()) + 1
    rng = np.random.default_rng(seed)
    n_valid = int(round(n_queries * valid_fraction)) if n_queries >= 5 else 0
    held = np.zeros(n_queries, bool)
    held[rng.permutation(n_queries)[:n_valid]] = True
    valid_idx, train_idx = np.flatnonzero(held[codes]), np.flatnonzero(~held[codes])
    if n_valid == 0:
        notes.append("Fewer than 5 queries: every query is used for training (no validation "
                     "set).")
    return Prepared(
        X_train=X.iloc[train_idx].reset_index(drop=True), y_train=y[train_idx],
        X_valid=X.iloc[valid_idx].reset_index(drop=True), y_valid=y[valid_idx],
        task="ranking", objective=objective, num_class=1, class_names=[],
        feature_names=list(X.columns), raw_features=[c for c in features if c not in dropped],
        notes=notes, query=query, qid_train=codes[train_idx], qid_valid=codes[valid_idx])


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
        if task == "multiclass" and num_class > 50:
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
        rest = [c for c in X.columns if c not in too_many]
        raise DataError(
            f"Text column(s) {too_many} have more than {MAX_CATEGORIES} different values; "
            "one-hot encoding them would add too many columns. "
            + ("Remove them from the features." if rest else
               "They are the only features: the table needs a column of numbers (or of "
               "fewer kinds of text) to learn from. If its numbers came out as text, check "
               "their decimal mark and separators.")
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
