"""Gradient descent in function space: the margins F of two training rows, round by round,
the objective's g and h at the current round and the next tree's step (``FunctionSpace``,
drawn by ``viz.function_space``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import objectives


@dataclass(frozen=True)
class FunctionSpace:
    """The numbers both panels draw, for rows ``rows`` and one class."""

    rows: tuple[int, int]
    round_idx: int
    path: np.ndarray  # (round_idx + 1, 2) float32 margins after rounds 0..round_idx
    grad: np.ndarray  # (2,) g at the current margins
    hess: np.ndarray  # (2,) h at the current margins
    step: np.ndarray | None  # (2,) F(r+1) − F(r); None after the last round
    label: np.ndarray  # (2,) the rows' labels
    target: np.ndarray | None  # (2,) the margin where the loss is 0 (identity-link regression)

    @property
    def current(self) -> np.ndarray:
        return self.path[-1]


def function_space(booster, X_rows, y_rows, w_rows, rows: tuple[int, int], round_idx: int,
                   klass: int = 0) -> FunctionSpace:
    """Margins of two rows (``X_rows``: their features) after rounds 0..round_idx from the
    engine's trees, g and h of the objective there, and the next tree's step."""
    n, k_all = booster.num_boosted_rounds(), booster.num_groups
    last = min(round_idx + 1, n)
    outputs = booster.tree_outputs(X_rows, last).reshape(2, last, k_all)
    start = np.broadcast_to(booster.base_margin.astype(np.float32), (2, 1, k_all))
    # float32, tree after tree, as the engine's predictor adds them: (2, last + 1, groups)
    margins = np.cumsum(np.concatenate([start, outputs], axis=1), axis=1, dtype=np.float32)
    y = np.asarray(y_rows, dtype=np.float32)
    w = None if w_rows is None else np.asarray(w_rows, dtype=np.float32)
    g, h = objectives.gradients(booster.objective, np.ascontiguousarray(margins[:, round_idx]),
                                y, w, booster.search_params.loss)
    margins = margins[:, :, klass]
    spec = objectives.spec(booster.objective)
    target = y if spec.task == "regression" and spec.link == "identity" else None
    step = margins[:, round_idx + 1] - margins[:, round_idx] if round_idx < n else None
    return FunctionSpace(rows=tuple(rows), round_idx=round_idx,
                         path=margins[:, :round_idx + 1].T.copy(), grad=g[:, klass].copy(),
                         hess=h[:, klass].copy(), step=step, label=y, target=target)
