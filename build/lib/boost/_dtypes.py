"""Number types of the engine, in one place, with the reason for each.

XGBoost 3.2 is reproduced bit for bit only if every quantity has the type XGBoost gives it
(docs/xgboost-rules.md §0):

* features are float32 and every comparison ``x < threshold`` is made in float32;
* per-row gradients and hessians are float32, computed from the float32 margin;
* node sums G and H are float64, accumulated row by row;
* parameters (eta, lambda, alpha, gamma, min_child_weight, max_delta_step) are float32;
* leaf weights and leaf values are float32, and so is the margin that trees add up into.

The kernels take the parameters as two records defined here: ``NodeParams`` (what a node's
arithmetic takes, ``rp``) and ``GrowParams`` (what a grower decides with, ``gp``).
"""

from __future__ import annotations

from typing import NamedTuple

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


class NodeParams(NamedTuple):
    """The float32 parameters a node's arithmetic takes (``split_math``: leaf weight,
    similarity, gain), as one record: ``rp`` in every kernel."""

    reg_lambda: np.float32
    alpha: np.float32
    min_child_weight: np.float32
    max_delta_step: np.float32

    @classmethod
    def of(cls, params) -> NodeParams:
        """From ``params.Params`` (its ``as_float32()`` fields of the same names)."""
        f32 = params.as_float32()
        return cls(*(getattr(f32, name) for name in cls._fields))


class GrowParams(NamedTuple):
    """What a grower decides with (``gp``): η (a leaf's value is η·w), γ (hist refuses a
    split whose gain is below it), max_depth and max_leaves (0: no limit) and the node
    arithmetic's ``NodeParams``."""

    eta: np.float32
    gamma: np.float32
    max_depth: np.int64
    max_leaves: np.int64
    node: NodeParams

    @classmethod
    def of(cls, params) -> GrowParams:
        """From ``params.Params``."""
        f32 = params.as_float32()
        return cls(f32.eta, f32.gamma, np.int64(params.max_depth), np.int64(params.max_leaves),
                   NodeParams.of(params))
