"""Parquet files, read by pyarrow with the pandas metadata ignored (no dtype or index is
rebuilt from it; pyarrow does not unpickle Python extension types). Only the columns the
app can use are decoded, under the CSV's limits (``checks.MAX_CELLS``, ``checks.MAX_EXPANDED``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .checks import (
    DATES_NOTE,
    MAX_CELLS,
    MAX_EXPANDED,
    DataError,
    check_columns,
    check_unique,
    damaged,
    name_columns,
    reason,
)

PARQUET_MAGIC = b"PAR1"
NESTED = "nested"  # a list, struct, map or union column: not a feature


def read_parquet(raw: bytes, filename: str) -> tuple[pd.DataFrame, list[str]]:
    """Every column the app can use; which were left out, and why, in the notes. Only the
    kept columns are decoded, text as dictionaries first, so its size is known before it is
    spelled out row by row."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    fix = "Upload the whole file again, or export it again as Parquet."
    if len(raw) < 12 or not raw.endswith(PARQUET_MAGIC):
        raise DataError(f"{filename} is cut short: a Parquet file ends with its footer (the "
                        f"bytes PAR1) and this one does not. {fix}")
    try:  # a parser of untrusted bytes may raise anything: each is a damaged file
        meta = pq.ParquetFile(pa.BufferReader(raw)).metadata
        schema = meta.schema.to_arrow_schema()
    except Exception as exc:  # noqa: BLE001
        raise damaged(filename, "Parquet", exc, fix) from None
    check_columns(len(schema), filename)
    names, made = name_columns(schema.names, lambda i: f"col_{i + 1}")
    check_unique(names, filename)
    _check_size(filename, meta.num_rows, len(schema),
                sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)))
    kinds, keep = {}, []
    for i, field in enumerate(schema):
        why = "index" if field.name.startswith("__index_level_") else _unusable(field.type, pa)
        if why:
            kinds.setdefault(why, []).append(names[i])
        else:
            keep.append(i)
    left_out = kinds.get(NESTED, []) + kinds.get("binary", [])
    if left_out and len(keep) < 2:
        raise DataError(f"{filename} has {len(keep)} column(s) BoostScope can use once the "
                        f"nested or binary column(s) {left_out} are left out; a model needs a "
                        "target and at least one feature. Flatten them into one number or "
                        "text column per field and upload again.")
    text = [schema.names[i] for i in keep if _is_text(schema.field(i).type, pa)]
    try:
        table = pq.ParquetFile(pa.BufferReader(raw), read_dictionary=text).read(
            columns=[schema.names[i] for i in keep], use_pandas_metadata=False)
    except Exception as exc:  # noqa: BLE001
        raise damaged(filename, "Parquet", exc, fix) from None
    _check_size(filename, 0, 0, _text_bytes(table, pa))
    columns = {}
    for i, column in zip(keep, table.columns, strict=True):
        try:
            columns[i] = _arrow_column(column, pa)
        except Exception as exc:  # noqa: BLE001
            raise DataError(f"The column {names[i]!r} of {filename} ({column.type}) could "
                            f"not be read ({reason(exc)}). Convert it to numbers or text, "
                            "or leave it out, and upload again.") from None
        if pa.types.is_dictionary(schema.field(i).type):
            kinds.setdefault("categorical", []).append(names[i])
        elif columns[i][1]:
            kinds.setdefault(columns[i][1], []).append(names[i])
    frame = pd.DataFrame({i: series for i, (series, _) in columns.items()},
                         index=range(table.num_rows))
    frame.columns = [names[i] for i in columns]
    return frame, _parquet_notes(kinds, made)


def _unusable(t, pa) -> str | None:
    """Why a column of Arrow type ``t`` cannot be a feature: 'nested', 'binary' or None."""
    if isinstance(t, pa.BaseExtensionType):
        t = t.storage_type
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_nested(t):
        return NESTED
    if (pa.types.is_binary(t) or pa.types.is_large_binary(t)
            or pa.types.is_fixed_size_binary(t) or pa.types.is_binary_view(t)):
        return "binary"
    return None


def _is_text(t, pa) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def _text_bytes(table, pa) -> int:
    """The bytes the table's text takes once every row holds its own copy."""
    import pyarrow.compute as pc

    total = 0
    for column in table.columns:
        if pa.types.is_dictionary(column.type) and _is_text(column.type.value_type, pa):
            for chunk in column.chunks:
                lengths = pc.binary_length(chunk.dictionary)
                total += pc.sum(pc.take(lengths, chunk.indices)).as_py() or 0
    return total


def _check_size(filename: str, n_rows: int, n_columns: int, n_bytes: int) -> None:
    if n_rows * n_columns > MAX_CELLS:
        raise DataError(f"{filename} has {n_rows:,} rows × {n_columns} columns; the limit is "
                        f"{MAX_CELLS:,} values. Upload a sample of the rows.")
    if n_bytes > MAX_EXPANDED:
        raise DataError(f"{filename} holds {n_bytes / 1e6:,.0f} MB once decompressed; the "
                        f"limit is {MAX_EXPANDED / 1e6:,.0f} MB. Upload a sample of the rows.")


def _arrow_column(column, pa):
    """One Arrow column (not ``_unusable``) as a pandas Series, and what was done to it (a
    key of ``_parquet_notes``, or None)."""
    t = column.type
    if isinstance(t, pa.BaseExtensionType):  # e.g. json, bool8: their plain storage
        column = pa.chunked_array([c.storage for c in column.chunks], type=t.storage_type)
        t = t.storage_type
    types = pa.types
    if types.is_dictionary(t):  # categorical, or text read as a dictionary
        column, t = column.cast(t.value_type), t.value_type
    if types.is_timestamp(t) or types.is_date(t):
        per_day = {"s": 86400, "ms": 86400e3, "us": 86400e6, "ns": 86400e9}
        scale = 1 if types.is_date32(t) else per_day["ms" if types.is_date64(t) else t.unit]
        counts = column.cast(_stored_count(t, pa)).to_numpy(zero_copy_only=False)
        return pd.Series(counts.astype(float) / scale), "dates"
    if types.is_time(t) or types.is_duration(t):
        per_second = {"s": 1, "ms": 1e3, "us": 1e6, "ns": 1e9}[t.unit]
        seconds = column.cast(_stored_count(t, pa)).to_numpy(zero_copy_only=False).astype(float)
        return pd.Series(seconds / per_second), "times"
    if types.is_decimal(t):
        return pd.Series(column.cast(pa.float64()).to_numpy(zero_copy_only=False)), "decimal"
    if types.is_float16(t):
        column = column.cast(pa.float32())
    if types.is_null(t):
        return pd.Series(np.full(len(column), np.nan)), None
    if types.is_boolean(t) and column.null_count:
        return pd.Series(column.cast(pa.float64()).to_numpy(zero_copy_only=False)), None
    return column.to_pandas(), None


def _stored_count(t, pa):
    """The integer type a date, time or duration is stored as (a count of its unit)."""
    return pa.int32() if t.bit_width == 32 else pa.int64()


def _parquet_notes(kinds: dict[str, list[str]], made: list[str]) -> list[str]:
    says = {
        "dates": f"Read the date/time column(s) {{}} {DATES_NOTE}.",
        "times": "Read the time-of-day/duration column(s) {} as seconds.",
        "decimal": "Read the decimal column(s) {} as floating-point numbers.",
        "categorical": "Read the categorical column(s) {} by their values.",
        "index": "Left out {}, the row index pandas stored with the data.",
        NESTED: "Left out the nested column(s) {} (lists, structs and maps are not "
                "features): flatten them into one column per field to use them.",
        "binary": "Left out the binary column(s) {} (raw bytes are not features).",
    }
    notes = ["Read as Parquet."]
    notes += [says[k].format(names) for k, names in kinds.items()]
    if made:
        notes.append(f"Named the column(s) with no name {made}.")
    return notes
