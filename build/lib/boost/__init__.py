"""BoostScope's engine: gradient-boosted trees that reproduce XGBoost 3.2, with a full trace.

>>> import boost
>>> bst = boost.train({"max_depth": 2, "eta": 0.3}, X, y, num_boost_round=10)
>>> boost.sweep({"max_depth": 2}, X, y, {"eta": [0.1, 0.3]}, 100, evals=[(Xv, yv, "valid")])
>>> boost.cv({"max_depth": 2}, X, y, 100, nfold=5, early_stopping_rounds=20)  # xgboost.cv
>>> bst.predict(X); bst.trees_to_dataframe(include_pruned=True); bst.split_candidates(1, 0)
>>> bst.save_model("model.json"); boost.load_model("model.json").predict(X)
>>> boost.load_model("model.json").with_data(X, y).split_candidates(1, 0)  # on a sample
>>> boost.warmup()  # every kernel compiled (or loaded from numba's cache) on tiny data

The engine's modules sit in this package (docs/design.md, "Module map"), the two tree growers
as packages of their own, one module a step: ``boost.exact`` (exact) and ``boost.hist``
(hist and approx). Around them, ``boost.xgb`` holds XGBoost's own formats (model files,
dumps, the Python that retrains a model), ``boost.trace`` what a trained model answers about
its rounds and nodes, ``boost.runtime`` the compile (``warmup``, in worker processes or in
the background) and the plain-Python engine that answers while it runs, ``boost.simd`` the
LLVM-level kernels of the hot loops.
"""

from . import simd  # first: it decides which kernels the engine compiles
from .booster import Booster, load_model
from .cv import cv
from .runtime import warmup
from .sweep import SweepCancelled, sweep
from .trace import NoTrainingTrace, RoundView
from .training import train

# The portable build's kernels that inline the LLVM kernels' replacements keep their own cache
# (boost.simd.keep_apart); every module with kernels is imported by now.
simd.keep_apart(simd.inlining_kernels(__name__))

__all__ = ["Booster", "NoTrainingTrace", "RoundView", "SweepCancelled", "cv", "load_model", "simd",
           "sweep", "train", "warmup"]
