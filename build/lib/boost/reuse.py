"""What a retrain on the same rows takes from the training before it.

A knob such as eta, lambda or gamma changes the trees but not what they are grown from: hist's
cut points and the binned rows depend only on the rows, their weights and ``max_bin``; exact's
sorted columns only on the rows. Each is kept here, keyed by a digest of the bytes it was made
from (so a changed array is a new key, never a stale answer), in one byte-bounded cache
(``BUDGET``, least recently used first out; a larger entry is used once and not kept).
What is kept is read-only and shared; the binned rows, whose last bytes the grower
overwrites with each tree's gradients, are copied for every training.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from .data import any_rows
from .exact import SortedColumns
from .hist import binned_rows, record_blocks
from .sketch import Cuts, hist_cuts
from .trace.cache import ByteCache

BUDGET = 80 * 2**20  # bytes: 1M x 28's binned rows and codes (65 MiB) fit; a server's other
# caches (ui/memory.py) leave this much of 2 GiB


def digest(*arrays) -> bytes:
    """A digest of the arrays' dtypes, shapes and bytes (None counts as an absent array)."""
    out = hashlib.sha1()
    for a in arrays:
        if a is None:
            out.update(b"-")
            continue
        a = np.ascontiguousarray(a)
        out.update(f"{a.dtype.str}{a.shape}".encode())
        out.update(memoryview(a).cast("B"))
    return out.digest()


@dataclass(frozen=True)
class HistData:
    """hist's view of a table: its cuts, whether nothing is missing, the binned rows (the
    grower's block records, ``hist.binning.binned_rows``, for the thread count of the key; a
    template to copy) and the codes feature by feature."""

    cuts: Cuts
    dense: bool
    records: np.ndarray
    missing: int
    columns: np.ndarray


_CACHE = ByteCache(BUDGET)


def hist_data(X: np.ndarray, weight: np.ndarray | None, max_bin: int) -> HistData:
    """``X``'s cuts and binned rows for ``max_bin`` (weights: the sketch's), made once."""
    return _CACHE.get(("hist", digest(X, weight), max_bin, record_blocks(X.shape[1])),
                      lambda: _hist_data(X, weight, max_bin))


def _hist_data(X, weight, max_bin) -> HistData:
    dense = not any_rows(X, np.isnan)
    cuts = hist_cuts(X, weight, max_bin)
    records, missing, columns = binned_rows(X, cuts, dense)
    for a in (records, columns, cuts.ptrs, cuts.values, cuts.min_vals):
        a.flags.writeable = False
    return HistData(cuts, dense, records, missing, columns)


def sorted_columns(X: np.ndarray) -> SortedColumns:
    """exact's sorted columns of ``X``, made once."""
    return _CACHE.get(("exact", digest(X)), lambda: SortedColumns(X))


def clear() -> None:
    """Forget everything kept (a benchmark's cold start)."""
    _CACHE.clear()
