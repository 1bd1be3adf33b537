"""Row and column subsampling: ``subsample``, ``colsample_bytree``/``bylevel``/``bynode``.

Every draw is a pure function of (``seed``, tree index, depth, node, row or feature): a
counter-based generator (SplitMix64 finaliser over the key) instead of a stateful stream.
Training and the trace therefore agree without storing anything: the rows and columns a
tree used are recomputed on demand, for any round, in any order.

* ``subsample``: each row is kept for the tree with probability ``subsample`` (a coin flip
  per row, as XGBoost's Bernoulli sampler; the count varies from tree to tree).
* ``colsample_*``: as XGBoost, a tree draws ``max(1, int(colsample_bytree * n_features))``
  features; each depth draws ``int(colsample_bylevel * |tree set|)`` of the tree's; each
  node draws ``int(colsample_bynode * |level set|)`` of its level's (at least one each),
  without replacement.

XGBoost's own random streams (``std::mt19937`` with its per-thread seeding) are not
reproduced: with sampling on, trees match XGBoost's only when XGBoost is given the same
rows and columns (see tests/engine/test_sampling.py).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_ROW_SALT = np.uint64(0x52F0A1C3)
_COL_SALT = np.uint64(0xC01A5A3F)
_TO_UNIT = 1.0 / 18446744073709551616.0  # 2**-64


@njit(cache=True, nogil=True, inline="always")
def _mix(x):
    x = (x ^ (x >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


@njit(cache=True, nogil=True, inline="always")
def _key(a, b):
    return _mix(a + _GOLDEN * (b + np.uint64(1)))


@njit(cache=True, nogil=True)
def _tree_key(seed, tree_idx):
    return _key(_mix(seed), tree_idx)


def tree_key(seed: int, tree_idx: int) -> np.uint64:
    """The key of one tree's draws (any integer seed)."""
    return np.uint64(_tree_key(np.uint64(seed % (1 << 64)), np.uint64(tree_idx)))


@njit(cache=True, nogil=True, parallel=True)
def _row_mask(key, n, ratio, out):
    k = _key(key, _ROW_SALT)
    for r in prange(n):
        out[r] = np.float64(_key(k, np.uint64(r))) * _TO_UNIT < ratio


def row_mask(seed: int, tree_idx: int, n_samples: int, subsample: float) -> np.ndarray:
    """The rows tree ``tree_idx`` is grown on (bool, shape (n_samples,))."""
    out = np.empty(n_samples, dtype=np.bool_)
    _row_mask(tree_key(seed, tree_idx), n_samples, float(subsample), out)
    return out


@njit(cache=True, nogil=True)
def _draw(key, parent, ratio, out):
    """``out`` = a subset of ``parent`` (bool per feature) of ``max(1, int(ratio * n))``
    features: those with the smallest hash under ``key``."""
    n_features = parent.shape[0]
    n = 0
    for f in range(n_features):
        n += parent[f]
    take = max(1, int(ratio * n))
    if take >= n:
        out[:] = parent
        return
    u = np.empty(n_features, dtype=np.uint64)
    for f in range(n_features):
        u[f] = _key(key, np.uint64(f)) if parent[f] else np.uint64(0xFFFFFFFFFFFFFFFF)
    order = np.argsort(u)
    out[:] = False
    for i in range(take):
        out[order[i]] = True


@njit(cache=True, nogil=True)
def level_features(key, depth, nodes, bytree, bylevel, bynode, out):
    """``out[i, f]``: feature f may split node ``nodes[i]`` (all at ``depth``)."""
    base = _key(key, _COL_SALT)
    n_features = out.shape[1]
    tree_set = np.empty(n_features, dtype=np.bool_)
    _draw(base, np.ones(n_features, dtype=np.bool_), bytree, tree_set)
    level_set = np.empty_like(tree_set)
    _draw(_key(base, np.uint64(depth + 1)), tree_set, bylevel, level_set)
    for i in range(nodes.shape[0]):
        _draw(_key(_key(base, np.uint64(depth + 1)), np.uint64(nodes[i] + 1)), level_set,
              bynode, out[i])


class NodeSampling(NamedTuple):
    """One tree's colsample_* draw as the growers' kernels take it (``level_features``'s
    arguments); ``active`` False: every node searches every feature."""

    key: np.uint64
    bytree: float
    bylevel: float
    bynode: float
    active: bool


NO_SAMPLING = NodeSampling(np.uint64(0), 1.0, 1.0, 1.0, False)


class ColumnSampler:
    """The colsample_* draws of one model; ``None``-like (``active`` False) when all are 1."""

    def __init__(self, seed: int, n_features: int, bytree: float, bylevel: float,
                 bynode: float):
        self.seed = seed
        self.n_features = n_features
        self.bytree = float(bytree)
        self.bylevel = float(bylevel)
        self.bynode = float(bynode)
        self.active = bool(min(bytree, bylevel, bynode) < 1.0)

    @classmethod
    def of(cls, p, n_features: int) -> ColumnSampler:
        """The sampler of a model with parameters ``p`` (``params.Params``)."""
        return cls(p.seed, n_features, p.colsample_bytree, p.colsample_bylevel,
                   p.colsample_bynode)

    def for_tree(self, tree_idx: int) -> NodeSampling:
        """Tree ``tree_idx``'s draw, for a grower's kernels."""
        if not self.active:
            return NO_SAMPLING
        return NodeSampling(tree_key(self.seed, tree_idx), self.bytree, self.bylevel,
                            self.bynode, True)

    def allowed(self, tree_idx: int, depth: int, nodes) -> np.ndarray:
        """(len(nodes), n_features) bool: the features each node of ``depth`` may use."""
        nodes = np.asarray(nodes, dtype=np.int64).reshape(-1)
        out = np.empty((len(nodes), self.n_features), dtype=np.bool_)
        level_features(tree_key(self.seed, tree_idx), depth, nodes, self.bytree, self.bylevel,
                       self.bynode, out)
        return out


def tree_sampling(sampler: ColumnSampler | None, tree_idx: int) -> NodeSampling:
    """Tree ``tree_idx``'s draw of ``sampler`` (none without one)."""
    return NO_SAMPLING if sampler is None else sampler.for_tree(tree_idx)
