"""The grower's workspace: the binned rows and the scratch a training reuses from tree to tree.

Each row is one record per block of features: the block's bin codes then the row's (g, h)
in the last 8 bytes (``binning.block_records``), so a histogram build reads one place per
row; the records stay in training order and are read through row ids. Also: the row ids in
node order (two buffers: a level reads one and partitions into the other), the codes column
by column (the partition's decisions) and two pools of histograms. (Moving the records into
node order as well was slower on 1M x 28: the partition's traffic grows tenfold, the build
saves little.)
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from .._dtypes import GrowParams
from ..records import gh_view
from ..sketch import Cuts
from .binning import Bins


class HistRows(NamedTuple):
    """The training rows and their scratch as the kernels take them
    (``HistWorkspace.fixed``)."""

    records: np.ndarray  # (n_blocks, n_samples, width) uint8/uint16: ``binning.block_records``
    gh: np.ndarray  # (n_blocks, n_samples) complex64: the records' (g, h) slots
    missing: int  # the code of a missing value (-1: nothing is missing)
    columns: np.ndarray  # (n_features, n_samples): the codes feature by feature
    side: np.ndarray  # (n_samples,) bool: the partition's sides
    ids: np.ndarray  # (n_samples,) int32: row ids in node order, one buffer...
    spare: np.ndarray  # ... and the other
    n_threads: int  # the threads the partition cuts its work for (fixed while a training runs)


def _read_only(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a``: the kernels see one array type whether the codes are the
    reuse cache's (read-only) or fresh, so they are compiled once."""
    view = a.view()
    view.flags.writeable = False
    return view


class HistWorkspace:
    """Scratch reused across trees (see the module): ``fixed`` gives the grower's records."""

    def __init__(self, records: np.ndarray, missing: int, columns: np.ndarray):
        n_samples = records.shape[1]
        self.records = records
        self.missing = missing
        self.gh = gh_view(records)
        self.columns = _read_only(columns)
        self.side = np.empty(n_samples, dtype=np.bool_)
        self._rows = [np.empty(n_samples, dtype=np.int32) for _ in range(2)]
        self._hist = [np.empty((0, 0), dtype=np.complex128) for _ in range(2)]
        self._fixed = None  # (key, (HistRows, Bins, GrowParams)), see fixed

    def set_records(self, records: np.ndarray, missing: int, columns: np.ndarray) -> None:
        """New records of the same shape (approx re-sketches every tree)."""
        self.records, self.missing, self.gh = records, missing, gh_view(records)
        self.columns = _read_only(columns)

    def fixed(self, cuts: Cuts, p) -> tuple[HistRows, Bins, GrowParams]:
        """What the grower takes that stays the same from tree to tree of one training: the
        rows (``HistRows``), the cuts (``binning.Bins``) and the parameters
        (``GrowParams``), worked out once per cuts, parameters and records (a new sketch or
        new records ask again)."""
        key = (cuts, p, self.records)
        if self._fixed is None or any(a is not b for a, b in zip(key, self._fixed[0],
                                                                 strict=True)):
            rows = HistRows(self.records, self.gh, self.missing, self.columns, self.side,
                            *self._rows, numba.get_num_threads())
            self._fixed = (key, (rows, Bins.of(cuts), GrowParams.of(p)))
        return self._fixed[1]

    def histograms(self, i: int, n_slots: int, width: int) -> np.ndarray:
        """Histogram pool ``i`` with at least ``n_slots`` slots, kept across levels and trees
        (fresh arrays would page-fault on every first write); a build clears what it fills
        and a subtraction overwrites the rest."""
        pool = self._hist[i]
        if pool.shape[1] != width:  # approx: a new sketch, a new histogram width
            pool = np.empty((max(n_slots, pool.shape[0]), width), dtype=np.complex128)
            self._hist[i] = pool
        elif pool.shape[0] < n_slots:
            pool = np.empty((max(n_slots, 2 * pool.shape[0]), width), dtype=np.complex128)
            self._hist[i] = pool
        return pool

    def keep_histograms(self, pool0: np.ndarray, pool1: np.ndarray) -> None:
        """The two pools a tree ended with (a level wider than the pools grew one)."""
        self._hist = [pool0, pool1]
