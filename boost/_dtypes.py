"""Number types of the engine, in one place, with the reason for each.

XGBoost 3.2 is reproduced bit for bit only if every quantity has the type XGBoost gives it
(docs/xgboost-rules.md §0):

* features are float32 and every comparison ``x < threshold`` is made in float32;
* per-row gradients and hessians are float32, computed from the float32 margin;
* node sums G and H are float64, accumulated row by row;
* parameters (eta, lambda, alpha, gamma, min_child_weight, max_delta_step) are float32;
* leaf weights and leaf values are float32, and so is the margin that trees add up into.
"""

import numpy as np

FEATURE = np.float32  # X, thresholds
GRAD = np.float32  # per-row g and h
SUM = np.float64  # node sums G and H
PARAM = np.float32  # eta, lambda, alpha, gamma, min_child_weight, max_delta_step
WEIGHT = np.float32  # leaf weights, leaf values, margins
INDEX = np.int32  # node ids, row indices, feature indices

# XGBoost's kRtEps: a split is made only if its loss change exceeds it.
RT_EPS = np.float32(1e-6)

# Why a node is a leaf, or why it was removed (``Reason`` in trees_to_dataframe).
REASON_NONE = 0  # an internal node that stays split
REASON_MAX_DEPTH = 1  # the node sits at max_depth and was never searched
REASON_NO_GAIN = 2  # no candidate split had a loss change above 1e-6
REASON_MIN_CHILD_WEIGHT = 3  # a split with positive gain existed but min_child_weight blocked it
REASON_GAMMA = 4  # pruned: loss change < gamma (the node itself or an ancestor collapsed)
REASON_MAX_LEAVES = 5  # the tree had max_leaves leaves: not split (or never searched)

REASON_NAMES = {
    REASON_NONE: "",
    REASON_MAX_DEPTH: "max_depth",
    REASON_NO_GAIN: "no positive gain",
    REASON_MIN_CHILD_WEIGHT: "min_child_weight",
    REASON_GAMMA: "gamma",
    REASON_MAX_LEAVES: "max_leaves",
}
