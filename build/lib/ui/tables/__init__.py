"""Reading a user's table and turning it into model inputs, with a clear message for every
problem. No Streamlit here (tests/test_layers.py checks it): every function is testable on
its own.

- ``checks``: the limits, ``DataError`` and the checks every format shares;
- ``csv_file``, ``parquet_file``, ``excel_file``: one reader per format;
- ``numbers``: numbers written with decimal commas or thousands separators (CSV, Excel text);
- ``dates``: a CSV's dates written as text, read as days since 1970-01-01;
- ``read``: ``read_table(raw, filename)``, which tells the format by its first bytes;
- ``columns``: poor features, the likely target, the task a target looks like;
- ``prepare``: ``prepare(frame, target, features, ...)``, the engine's inputs.

The modules import one way (checks, numbers, dates <- the readers <- read; columns <- prepare).
"""

from .checks import MAX_BYTES, MAX_COLUMNS, DataError, digest
from .columns import column_flags, default_target, infer_task
from .prepare import TASKS, Prepared, prepare
from .read import UPLOAD_TYPES, Table, read_table

__all__ = ["MAX_BYTES", "MAX_COLUMNS", "TASKS", "UPLOAD_TYPES", "DataError", "Prepared",
           "Table", "column_flags", "default_target", "digest", "infer_task", "prepare",
           "read_table"]
