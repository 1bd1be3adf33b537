"""Record layouts: every array whose columns or bytes mean something, named once.

docs/records.md draws each layout and says why it is so. The growers, pruning, the forest
and the candidates read these records by these names only.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._dtypes import FEATURE, INDEX, REASON_MAX_DEPTH, SUM, WEIGHT


class TreeNodes(NamedTuple):
    """The node record of a tree being grown: one array per field, indexed by node id
    (ids in expansion order: children of n get the next two). numba takes the tuple as one
    argument and reads ``nodes.left[i]`` as fast as a bare array."""

    parent: np.ndarray  # int32, -1 at the root
    left: np.ndarray  # int32, -1 when the grown node is a leaf; right = left + 1
    right: np.ndarray  # int32
    depth: np.ndarray  # int32
    feature: np.ndarray  # int32, -1 for leaves
    threshold: np.ndarray  # float32: x < threshold goes left ("yes")
    default_left: np.ndarray  # bool: where a missing x goes
    loss_chg: np.ndarray  # float32: the split's gain (XGBoost's loss_chg); 0 if never split
    sum_grad: np.ndarray  # float64 G
    sum_hess: np.ndarray  # float64 H (the cover)
    weight: np.ndarray  # float32 Newton weight w, before eta
    reason: np.ndarray  # int8: why a leaf is a leaf, or why it was removed (REASON_*)


_NODE_DTYPES = (INDEX, INDEX, INDEX, INDEX, INDEX, FEATURE, np.bool_, np.float32, SUM, SUM,
                WEIGHT, np.int8)
# What a finished tree adds to its grown nodes (``Forest``'s other per-node arrays).
FINISHED_FIELDS = ("value", "is_leaf", "removed")  # eta * w; leaf of the final tree; pruned
NODE_FIELDS = TreeNodes._fields + FINISHED_FIELDS


def split_step(left: np.ndarray) -> np.ndarray:
    """The step at which each node was split (1 for the root's split, 2 for the next, ...;
    0 for a leaf of the grown tree). Not stored: the k-th split gives its children ids
    2k - 1 and 2k (XGBoost's ``RegTree::ExpandNode``), so it is read from ``left``. Holds for
    every policy and method (depth-wise expands a depth's nodes in id order) and for trees
    loaded from XGBoost's files."""
    left = np.asarray(left)
    return np.where(left >= 0, (left.astype(np.int64) + 1) // 2, 0)


def new_tree_nodes(capacity: int) -> TreeNodes:
    """Node arrays for up to ``capacity`` nodes: children start as never-searched leaves."""
    nodes = TreeNodes(*(np.zeros(capacity, dtype=t) for t in _NODE_DTYPES))
    nodes.reason[:] = REASON_MAX_DEPTH
    return nodes


# A node's best split per feature (``best[f, node, :]``) while a level is searched. exact
# keeps the first SPLIT_EXACT fields (float32); hist all SPLIT_FIELDS (float64).
(SPLIT_LOSS, SPLIT_THRESHOLD, SPLIT_DEFAULT_LEFT, SPLIT_BLOCKED, SPLIT_BIN, SPLIT_GL, SPLIT_HL,
 SPLIT_GR, SPLIT_HR) = range(9)
SPLIT_EXACT = 4
SPLIT_FIELDS = 9

# One candidate split of a node (hist's on-demand candidates: the ``out`` of
# ``hist.splitting.scan_feature``).
(CAND_BIN, CAND_DEFAULT_LEFT, CAND_GL, CAND_HL, CAND_GR, CAND_HR, CAND_LOSS, CAND_VALID,
 CAND_THRESHOLD) = range(9)
CAND_FIELDS = 9

# exact's sorted entries: two int64 words each, in two arrays (``exact.segments.new_segments``).
# The (value, row) word seen as two float32 / two int32 halves, and the (g, h) word as two
# float32: ``vf[k, WORD_VALUE]``, ``vi[k, WORD_ROW]``, ``gf[k, WORD_G]``, ``gf[k, WORD_H]``.
WORD_VALUE, WORD_ROW = 0, 1
WORD_G, WORD_H = 0, 1


def word_fields(words: np.ndarray):
    """(value, row) words as (n, 2) float32 and (n, 2) int32 views."""
    return words.view(np.float32).reshape(-1, 2), words.view(np.int32).reshape(-1, 2)


def pack_words(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """(value, row) words of float32 ``values`` and int32 ``rows``."""
    words = np.empty(len(values), dtype=np.int64)
    vf, vi = word_fields(words)
    vf[:, WORD_VALUE] = values
    vi[:, WORD_ROW] = rows
    return words


# A strip of a bounded exact search (``strips[s, :]``): the scanned sums before the strip,
# the least and largest G before any of its entries, H before its last, and its bound.
STRIP_G0, STRIP_H0, STRIP_GLO, STRIP_GHI, STRIP_HHI, STRIP_BOUND = range(6)
STRIP_FIELDS = 6

# hist's row record (one per block of features, ``hist.binning.block_records``): the block's
# bin codes, then the row's (g, h) as float32 in the last 8 bytes; a histogram bin is one
# complex128: G in the real part, H in the imaginary part.
GH_BYTES = 8


def gh_view(records: np.ndarray) -> np.ndarray:
    """The (g, h) slot of every row record, as complex64 (float32 g, h): shape
    (n_blocks, n_samples) for ``hist.binning.block_records``."""
    return records.view(np.complex64)[..., -1]
