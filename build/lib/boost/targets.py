"""The gradient pairs one tree is grown on, from the objective's per-row g and h.

* ``boosting="first_order"`` (Friedman): the tree is a least-squares fit to -g, i.e. the
  split search runs with h = 1 (the sample weight when there is one).
* ``subsample`` < 1: the rows left out of the tree (``sampling.row_mask``) contribute
  nothing. As in XGBoost, hist and approx zero their (g, h), exact drops them (XGBoost's
  exact ignores rows whose hessian is negative; we mark them so).

Training and the trace (``Booster.split_candidates``) both call ``tree_gradients``, so what
the app shows is what the tree saw.
"""

from __future__ import annotations

import numpy as np

from ._dtypes import GRAD
from .sampling import row_mask


def tree_rows(p, tree_idx: int, n_samples: int) -> np.ndarray | None:
    """The rows tree ``tree_idx`` is grown on (bool mask), or None when all are."""
    if p.subsample >= 1.0:
        return None
    return row_mask(p.seed, tree_idx, n_samples, p.subsample)


def tree_gradients(p, g: np.ndarray, h: np.ndarray, weight: np.ndarray | None,
                   tree_idx: int):
    """(g, h, active) for tree ``tree_idx``; ``active`` is the row mask or None (all)."""
    g = np.ascontiguousarray(g, dtype=GRAD)
    if p.boosting == "first_order":
        # a copy (weights are read-only): one compiled grower for both kinds of trees
        h = np.ones(g.shape[0], dtype=GRAD) if weight is None else weight.astype(GRAD)
    else:
        h = np.ascontiguousarray(h, dtype=GRAD)
    active = tree_rows(p, tree_idx, g.shape[0])
    if active is None:
        return g, h, None
    g = np.where(active, g, GRAD(0.0))
    h = np.where(active, h, GRAD(-1.0) if p.tree_method == "exact" else GRAD(0.0))
    return g, h, active
