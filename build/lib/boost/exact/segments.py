"""exact's workspace: the sorted entries kept grouped by node (segments), and the tasks.

While a tree grows, every feature's sorted entries are kept grouped by node ("segments"),
so a node's search reads its own entries contiguously; after each level they are
partitioned in place into the children's. An entry is kept as two words in two arrays,
(value, row) and (g, h) (``new_segments``), so that a pass reads only the half it needs.
The features are processed by parallel tasks of one or two features (``_feature_tasks``).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba import njit

from .. import simd
from ..records import STRIP_FIELDS, word_fields
from .columns import SortedColumns
from .splitting import _strips_rows


class Segments(NamedTuple):
    """``grow_exact``'s workspace (``new_segments``): the entries partitioned in place level by
    level, as (value, row) words ``vr`` (views ``vf``, ``vi``) and (g, h) words ``gh`` (view
    ``gf``); the scalar partition's side buffer; each thread's spill buffers; the strips of
    the bounded searches (``records.STRIP_*``); the features of each parallel task; and
    whether the partition splits eight entries a step (``simd.VECTOR_SPLIT``)."""

    vr: np.ndarray
    vf: np.ndarray
    vi: np.ndarray
    gh: np.ndarray
    gf: np.ndarray
    side_buf: np.ndarray
    spill_vr: np.ndarray
    spill_gh: np.ndarray
    strips: np.ndarray
    tasks: np.ndarray
    vector: bool


def _feature_tasks(n_features: int, n_threads: int) -> np.ndarray:
    """The features each parallel task processes, as rows (f1, f2), f2 = -1 for a task of
    one feature: pairs, whose first passes run side by side (``splitting._first_passes``), as
    long as
    every thread still gets the same work. numba's OpenMP layer hands each thread one
    contiguous block of the tasks, so the pairs and the single features are spread evenly
    over the blocks (another order would only balance the threads less well)."""
    n_pairs = 0
    for p in range(n_features // 2, 0, -1):
        if p % n_threads == 0 and (n_features - 2 * p) % n_threads == 0:
            n_pairs = p
            break
    n_single = n_features - 2 * n_pairs
    per_block = (n_pairs + n_single) // n_threads if n_pairs else 0
    tasks = np.full((n_pairs + n_single, 2), -1, dtype=np.int64)
    f = 0
    for t in range(len(tasks)):
        # In a block: its pairs first, then its single features.
        pair = n_pairs > 0 and t % per_block < n_pairs // n_threads
        tasks[t, 0] = f
        if pair:
            tasks[t, 1] = f + 1
        f += 2 if pair else 1
    return tasks


@njit(cache=True, nogil=True, inline="always")
def _task_features(tasks, t):
    """Task t's features f1, f2 and whether it has two; a one-feature task gives f2 = f1,
    whose second segment is then always empty."""
    f1 = tasks[t, 0]
    two = tasks[t, 1] >= 0
    return f1, (tasks[t, 1] if two else f1), two


@njit(cache=True, nogil=True, inline="always")
def _allowed_range(a, b, allowed):
    """The segment [a, b), or an empty one where its feature is not searched."""
    return a, (b if allowed else a)


def new_segments(columns: SortedColumns) -> Segments:
    """``grow_exact``'s workspace for ``columns`` (see ``Segments``).

    An entry is two int64 words in two arrays: (value float32, row int32), packed as in
    ``SortedColumns.root_rv``, and (g float32, h float32). Apart, a pass that needs only one
    half (the partition's side lookup: rows; a first pass: g and h) reads half the bytes,
    and the root's (value, row) words need no copy. The views of their fields are made here,
    not in numba (numba's own view + reshape of an array chosen at run time once gave wrong
    strides). The strips: per feature and scan direction (forward only when some column has
    missing values), rows ``_strip_offset`` on. The tasks: for the threads numba runs now.
    """
    nnz = len(columns.rows)
    longest = int(np.diff(columns.col_ptr).max(initial=0))
    n_directions = 2 if columns.need_forward.any() else 1  # [forward,] backward
    n_features = len(columns.col_ptr) - 1
    strips = np.empty((n_features, n_directions, _strips_rows(longest), STRIP_FIELDS),
                      np.float64)
    n_threads = numba.get_num_threads()
    vr, gh = np.empty(nnz, np.int64), np.empty(nnz, np.int64)
    return Segments(vr, *word_fields(vr), gh, gh.view(np.float32).reshape(nnz, 2),
                    np.empty(0 if simd.VECTOR_SPLIT else nnz, np.uint8),
                    np.empty((n_threads, longest), np.int64),
                    np.empty((n_threads, longest), np.int64), strips,
                    _feature_tasks(n_features, n_threads), simd.VECTOR_SPLIT)
