"""The node arithmetic of XGBoost 3.2: leaf weight, similarity score and split gain.

Chen & Guestrin (2016), Eq. 5-7, in XGBoost's own form (no 1/2, gamma not subtracted) and
XGBoost's own float32/float64 mixture (shared/XGBOOST_SEMANTICS.md §0-§2):

* ``weight(G, H) = -T_alpha(G) / (H + lambda)`` in double, clipped to max_delta_step, then
  float32; 0 when ``H < min_child_weight`` or ``H <= 0``.
* ``similarity(G, H) = f32(T_alpha(G)^2) / f32(H + lambda)`` (float32 division); with
  max_delta_step != 0 XGBoost uses ``-(2 G w + (H + lambda) w^2)`` in float32 instead.
* ``loss_chg = f32(similarity(L) + similarity(R)) - similarity(parent)``.

All functions are numba kernels usable from other kernels and from Python.
"""

import math

import numpy as np
from numba import njit

_F32_ZERO = np.float32(0.0)
_F32_TWO = np.float32(2.0)


@njit(cache=True, inline="always")
def threshold_l1(sum_grad, alpha):
    """Soft threshold T_alpha(G) = sign(G) max(|G| - alpha, 0), in double."""
    if sum_grad > alpha:
        return sum_grad - alpha
    if sum_grad < -alpha:
        return sum_grad + alpha
    return 0.0


@njit(cache=True, inline="always")
def leaf_weight(sum_grad, sum_hess, reg_lambda, alpha, min_child_weight, max_delta_step):
    """Newton leaf weight w (before eta), float32."""
    if sum_hess < min_child_weight or sum_hess <= 0.0:
        return _F32_ZERO
    dw = -threshold_l1(sum_grad, alpha) / (sum_hess + reg_lambda)
    if max_delta_step != 0.0 and abs(dw) > max_delta_step:
        dw = math.copysign(max_delta_step, dw)
    return np.float32(dw)


@njit(cache=True, inline="always")
def similarity(sum_grad, sum_hess, reg_lambda, alpha, min_child_weight, max_delta_step):
    """Similarity score of a node (XGBoost's CalcGain), float32."""
    if sum_hess <= 0.0:
        return _F32_ZERO
    if max_delta_step == 0.0:
        t = threshold_l1(sum_grad, alpha)
        return np.float32(t * t) / np.float32(sum_hess + reg_lambda)
    w = leaf_weight(sum_grad, sum_hess, reg_lambda, alpha, min_child_weight, max_delta_step)
    g32 = np.float32(sum_grad)
    h32 = np.float32(sum_hess)
    return -(_F32_TWO * g32 * w + (h32 + reg_lambda) * (w * w))


@njit(cache=True, inline="always")
def split_loss_change(gl, hl, gr, hr, parent_similarity, reg_lambda, alpha, mcw, mds):
    """Loss change of a split (XGBoost's ``loss_chg``, the dump's ``gain``), float32."""
    total = similarity(gl, hl, reg_lambda, alpha, mcw, mds) + similarity(
        gr, hr, reg_lambda, alpha, mcw, mds
    )
    return total - parent_similarity


@njit(cache=True)
def similarities(sum_grad, sum_hess, reg_lambda, alpha, min_child_weight, max_delta_step):
    """``similarity`` of every node, float32 array."""
    out = np.empty(sum_grad.shape[0], dtype=np.float32)
    for i in range(sum_grad.shape[0]):
        out[i] = similarity(sum_grad[i], sum_hess[i], reg_lambda, alpha, min_child_weight,
                            max_delta_step)
    return out
