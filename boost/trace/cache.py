"""One model's answers, kept least-recently-used within a budget of bytes.

A trained model is shared by every browser session that trains the same data and parameters,
so its cache is guarded by a lock. An answer is computed outside the lock, once: a thread
that asks for an answer another is computing waits for it (a node click asks for the node's
record and its chart at once, and both need the node's gain curve; two threads computing it
side by side took the two cores the page was drawing on). An answer larger than the whole
budget is returned and not kept. ``keep`` holds what every later answer is
built from (exact's sorted columns, the binned rows' split bins, the trees' table): computed
once a model and never dropped, whatever its size, as the model's own arrays are.

Answers are shared: callers read them and never write into them (``Booster``'s public
methods hand out copies).
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

import numpy as np
import pandas as pd

from ..layer import exclusive

BUDGET = 64 * 2**20  # bytes per model: an exact root's sorted columns at 100k x 30 are 24 MiB


_SCALARS = (float, int, str, bool, type(None))
_SAMPLE = 16  # a longer list is sized from its first 16 items (every item walked cost ~20%
#               of a node record's time: its gain curves and tables are thousands of numbers)


def size_of(value, _depth: int = 0) -> int:
    """The bytes an answer holds: arrays and frames by their buffers, records and containers
    by their parts (up to six levels deep), anything else by ``sys.getsizeof``."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, pd.DataFrame):
        return value.index.nbytes + sum(_column_bytes(c) for _, c in value.items())
    if isinstance(value, pd.Series):
        return value.index.nbytes + _column_bytes(value)
    if _depth > 5:  # (a round trace: trace, chart, arrays, array, its base64 text)
        return sys.getsizeof(value)
    if isinstance(value, dict):
        return sum(size_of(v, _depth + 1) for v in value.values()) + sys.getsizeof(value)
    if isinstance(value, (tuple, list)):
        if len(value) > _SAMPLE:  # a record's column or rows: sized from its first items
            part = value[:_SAMPLE]
            items = size_of(part, _depth) - sys.getsizeof(part)
            return sys.getsizeof(value) + items * len(value) // _SAMPLE
        if all(isinstance(v, _SCALARS) for v in value):  # a record's columns: numbers
            return sum(map(sys.getsizeof, value)) + sys.getsizeof(value)
        return sum(size_of(v, _depth + 1) for v in value) + sys.getsizeof(value)
    fields = getattr(value, "__dataclass_fields__", None)
    if fields is not None:
        return sum(size_of(getattr(value, f), _depth + 1) for f in fields)
    return sys.getsizeof(value)


def _column_bytes(column: pd.Series) -> int:
    """A column's buffers (text in Arrow's: its bytes; a categorical's codes and categories);
    Python objects each by its size (``memory_usage(deep=True)``, which for every column
    cost ~0.05 ms: a millisecond a frame, several a node click)."""
    if column.dtype == object:
        return int(column.memory_usage(index=False, deep=True))
    return int(column.array.nbytes)


class ByteCache:
    """``get(key, compute)``: the kept answer for ``key``, or ``compute()``'s, kept."""

    def __init__(self, budget: int = BUDGET) -> None:
        self.budget = budget
        self._items: OrderedDict[Hashable, tuple[object, int]] = OrderedDict()
        self._kept: dict[Hashable, tuple[object, int]] = {}
        self._bytes = 0  # the dropped-first answers' bytes (what the budget bounds)
        self._lock = threading.Lock()
        self._computing: dict[Hashable, threading.Event] = {}  # keys a thread is computing

    @property
    def nbytes(self) -> int:
        """Every answer's bytes, kept ones included."""
        return self._bytes + sum(size for _, size in self._kept.values())

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Hashable, compute: Callable[[], object]):
        return self._once(key, self._hit, lambda: self._put(key, _run(compute)))

    def _hit(self, key: Hashable):
        """``(answer,)`` kept for ``key`` (made the most recent), or None; under the lock."""
        hit = self._items.get(key)
        if hit is None:
            return None
        self._items.move_to_end(key)
        return hit[:1]

    def _once(self, key: Hashable, held: Callable, make: Callable[[], object]):
        """``held(key)``'s answer, or ``make()``'s, made by one thread at a time: a thread that
        asks while another makes it waits for that answer (and makes it itself if the other
        failed, or its answer was not kept)."""
        with self._lock:
            hit = held(key)
            if hit is not None:
                return hit[0]
            other = self._computing.get(key)
            if other is None:
                self._computing[key] = mine = threading.Event()
        if other is not None:
            other.wait()
            with self._lock:
                hit = held(key)
            return hit[0] if hit is not None else make()
        try:
            return make()
        finally:
            with self._lock:
                del self._computing[key]
            mine.set()

    def _put(self, key: Hashable, value):
        """``value`` kept as ``key``'s answer, within the budget (one larger than the whole
        budget is not kept); the answer kept for ``key``."""
        size = size_of(value)
        if size > self.budget:
            return value
        with self._lock:
            if key in self._items:
                return self._items[key][0]
            self._items[key] = (value, size)
            self._bytes += size
            while self._bytes > self.budget:
                _, (_, dropped) = self._items.popitem(last=False)
                self._bytes -= dropped
        return value

    def clear(self) -> None:
        """Drop every answer (kept ones too)."""
        with self._lock:
            self._items.clear()
            self._kept.clear()
            self._bytes = 0

    def keep(self, key: Hashable, compute: Callable[[], object]):
        """The answer for ``key``, computed once and never dropped (a thread that asks while
        another computes it waits for that answer)."""
        def make():
            value = _run(compute)
            with self._lock:
                return self._kept.setdefault(key, (value, size_of(value)))[0]
        return self._once(key, self._kept.get, make)


def _run(compute: Callable[[], object]):
    with exclusive():  # (an answer may run parallel kernels)
        return compute()
