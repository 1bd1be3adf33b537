"""BoostScope's engine: gradient-boosted trees that reproduce XGBoost 3.2, with a full trace.

>>> import boost
>>> bst = boost.train({"max_depth": 2, "eta": 0.3}, X, y, num_boost_round=10)
>>> boost.sweep({"max_depth": 2}, X, y, {"eta": [0.1, 0.3]}, 100, evals=[(Xv, yv, "valid")])
>>> bst.predict(X); bst.trees_to_dataframe(include_pruned=True); bst.split_candidates(1, 0)
>>> bst.save_model("model.json"); boost.load_model("model.json").predict(X)
>>> boost.load_model("model.json").with_data(X, y).split_candidates(1, 0)  # on a sample
"""

from . import simd  # first: it decides which kernels the engine compiles, and their cache
from .booster import Booster, load_model
from .sweep import SweepCancelled, sweep
from .trace import NoTrainingTrace, RoundView
from .training import train
from .warmup import warmup

__all__ = ["Booster", "NoTrainingTrace", "RoundView", "SweepCancelled", "load_model", "simd",
           "sweep", "train", "warmup"]
