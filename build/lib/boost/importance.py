"""Feature importance as XGBoost's ``get_score``: weight, gain, cover, total_gain, total_cover.

Summed over the split nodes of the final (pruned) trees in float32, tree by tree and node by
node, and averaged per split for ``gain`` and ``cover``, as XGBoost does.
"""

from __future__ import annotations

import numpy as np

from .tree import Forest

IMPORTANCE_TYPES = ("weight", "gain", "cover", "total_gain", "total_cover")


def get_score(forest: Forest, names, importance_type: str = "weight",
              tree_range: tuple[int, int] | None = None) -> dict[str, float]:
    """``{feature name: score}`` for the features used in at least one split."""
    if importance_type not in IMPORTANCE_TYPES:
        raise ValueError(
            f"importance_type = {importance_type!r}: use one of {', '.join(IMPORTANCE_TYPES)}."
        )
    begin, end = tree_range if tree_range is not None else (0, forest.n_trees)
    lo, hi = int(forest.tree_ptr[begin]), int(forest.tree_ptr[end])
    split = ~forest.is_leaf[lo:hi] & ~forest.removed[lo:hi]
    feats = forest.feature[lo:hi][split]
    counts = np.bincount(feats, minlength=len(names))
    if importance_type == "weight":
        return {names[f]: float(counts[f]) for f in range(len(names)) if counts[f] > 0}
    stat = forest.loss_chg if "gain" in importance_type else forest.sum_hess
    values = np.asarray(stat[lo:hi][split], dtype=np.float32)
    totals = np.zeros(len(names), dtype=np.float32)
    for f, v in zip(feats, values, strict=True):  # float32, in node order, like XGBoost
        totals[f] = np.float32(totals[f] + v)
    if importance_type in ("gain", "cover"):
        totals = (totals / np.maximum(np.float32(1.0), counts.astype(np.float32))
                  ).astype(np.float32)
    return {names[f]: float(totals[f]) for f in range(len(names)) if counts[f] > 0}
