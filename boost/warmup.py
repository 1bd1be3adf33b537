"""Compile every numba kernel once, on tiny data, so the first real request is fast.

numba compiles a kernel the first time it runs (about a minute for the whole engine on a
fresh machine) and caches the machine code on disk (``cache=True``), after which loading is
about a second. ``warmup()`` runs each tree method with each objective through training and
every trace accessor, so an app can pay that cost once at start-up rather than on the first
click.
"""

from __future__ import annotations

import time

import numpy as np

from .booster import load_model
from .training import train


def warmup() -> float:
    """Run every kernel once on tiny data; return the seconds it took."""
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(64, 3))
    X[::7, 1] = np.nan
    X_dense = rng.normal(size=(64, 3))
    for objective, extra in (("reg:squarederror", {}), ("binary:logistic", {}),
                             ("multi:softprob", {"num_class": 3})):
        if objective == "multi:softprob":
            y = np.arange(64) % 3
        else:
            y = (X_dense[:, 0] > 0).astype(float)
        for method in ("exact", "hist", "approx"):
            for data in (X, X_dense):
                weight = np.linspace(0.5, 1.5, 64) if data is X else None
                bst = train({"objective": objective, "tree_method": method, "max_depth": 3,
                             **extra}, data, y, 2, evals=[(data, y, "valid")],
                            sample_weight=weight)
            bst.trees_to_dataframe(include_pruned=True)
            bst.get_dump("text")
            bst.get_score(importance_type="total_gain")
            bst.split_candidates(1, 0)
            bst.split_candidates(2, 0)
            bst.round_views(1)
            bst.predict(data, output_margin=True)
            bst.tree_outputs(data)
            bst.decision_path(data[0], 1)
    load_model(bst.save_raw("ubj"))  # a model file: its trees checked and walked
    # The other objectives share the kernels above; sampling and first-order trees add the
    # row/column draws and the leaf line search.
    counts = np.arange(64) % 4
    for method in ("exact", "hist"):
        bst = train({"objective": "count:poisson", "tree_method": method, "max_depth": 3,
                     "subsample": 0.8, "colsample_bynode": 0.7, "boosting": "first_order"},
                    X, counts, 2, evals=[(X, counts, "valid")], early_stopping_rounds=1)
        bst.split_candidates(1, 0)
        bst.round_views(1)
    # Columns with many more values than the sketch keeps take the sorted (fast) sketch path:
    # with 2 bins, 200 rows are enough.
    X_long = rng.normal(size=(200, 2))
    train({"tree_method": "hist", "max_bin": 2, "max_depth": 2}, X_long, X_long[:, 0], 1)
    return time.perf_counter() - start
