"""The node arithmetic of XGBoost 3.2: leaf weight, similarity score and split gain.

Chen & Guestrin (2016), Eq. 5-7, in XGBoost's own form (no 1/2, gamma not subtracted) and
XGBoost's own float32/float64 mixture (docs/xgboost-rules.md §0-§2):

* ``weight(G, H) = -T_alpha(G) / (H + lambda)`` in double, clipped to max_delta_step, then
  float32; 0 when ``H < min_child_weight`` or ``H <= 0``.
* ``similarity(G, H) = f32(T_alpha(G)^2) / f32(H + lambda)`` (float32 division); with
  max_delta_step != 0 XGBoost uses ``-(2 G w + (H + lambda) w^2)`` in float32 instead.
* ``loss_chg = f32(similarity(L) + similarity(R)) - similarity(parent)``.

All functions are numba kernels usable from other kernels and from Python. The parameters
come as one record, ``rp`` (``_dtypes.NodeParams``: λ, α, min_child_weight,
max_delta_step, float32).
"""

import math

import numpy as np
from numba import njit

_F32_ZERO = np.float32(0.0)
_F32_TWO = np.float32(2.0)


@njit(cache=True, nogil=True, inline="always")
def threshold_l1(sum_grad, alpha):
    """Soft threshold T_alpha(G) = sign(G) max(|G| - alpha, 0), in double."""
    if sum_grad > alpha:
        return sum_grad - alpha
    if sum_grad < -alpha:
        return sum_grad + alpha
    return 0.0


@njit(cache=True, nogil=True, inline="always")
def leaf_weight(sum_grad, sum_hess, rp):
    """Newton leaf weight w (before eta), float32."""
    reg_lambda, alpha, min_child_weight, max_delta_step = rp
    if sum_hess < min_child_weight or sum_hess <= 0.0:
        return _F32_ZERO
    dw = -threshold_l1(sum_grad, alpha) / (sum_hess + reg_lambda)
    if max_delta_step != 0.0 and abs(dw) > max_delta_step:
        dw = math.copysign(max_delta_step, dw)
    return np.float32(dw)


@njit(cache=True, nogil=True, inline="always")
def similarity(sum_grad, sum_hess, rp):
    """Similarity score of a node (XGBoost's CalcGain), float32."""
    reg_lambda, alpha, max_delta_step = rp.reg_lambda, rp.alpha, rp.max_delta_step
    if sum_hess <= 0.0:
        return _F32_ZERO
    if max_delta_step == 0.0:
        t = threshold_l1(sum_grad, alpha)
        return np.float32(t * t) / np.float32(sum_hess + reg_lambda)
    w = leaf_weight(sum_grad, sum_hess, rp)
    g32 = np.float32(sum_grad)
    h32 = np.float32(sum_hess)
    return -(_F32_TWO * g32 * w + (h32 + reg_lambda) * (w * w))


@njit(cache=True, nogil=True, inline="always")
def split_loss_change(gl, hl, gr, hr, parent_similarity, rp):
    """Loss change of a split (XGBoost's ``loss_chg``, the dump's ``gain``), float32."""
    total = similarity(gl, hl, rp) + similarity(gr, hr, rp)
    return total - parent_similarity


@njit(cache=True, nogil=True)
def similarities(sum_grad, sum_hess, rp):
    """``similarity`` of every node (or candidate: millions at a big root), float32 array;
    one thread: a loop of a few ns a value (3 million in ~6 ms) costs less than starting
    threads for a node's few thousand candidates, the usual call."""
    out = np.empty(sum_grad.shape[0], dtype=np.float32)
    for i in range(sum_grad.shape[0]):
        out[i] = similarity(sum_grad[i], sum_hess[i], rp)
    return out


@njit(cache=True, nogil=True)
def leaf_weights(sum_grad, sum_hess, rp):
    """``leaf_weight`` of every node, float32 array."""
    out = np.empty(sum_grad.shape[0], dtype=np.float32)
    for i in range(sum_grad.shape[0]):
        out[i] = leaf_weight(sum_grad[i], sum_hess[i], rp)
    return out


# ------------------------------------------------------------------ every boundary of a scan
# A split search scans a node's entries (exact) or bins (hist) in order, keeping the scanned
# side's running sums; the sums are sequential (float64, in XGBoost's order), but the loss
# change at each position is independent of the others. The kernels below take the running
# sums of a stretch of positions and compute every loss change in one flat loop of selects,
# which LLVM turns into SIMD code; the caller then looks for the first maximum.
_F32_NEG_INF = np.float32(-np.inf)
_F32_POS_INF = np.float32(np.inf)


@njit(cache=True, nogil=True, inline="always")
def heavy(s_h, r_h, mcw):
    """Whether both children of a split weigh at least min_child_weight (else it is blocked);
    a select, no branch."""
    return (s_h >= mcw) & (r_h >= mcw)


@njit(cache=True, nogil=True, inline="always")
def _sort_loss(i, loss, candidate, s_h, r_h, mcw, out_valid, out_blocked):
    # Selects only (no branch), so the loops that call it vectorise.
    heavy_ = heavy(s_h, r_h, mcw)
    out_valid[i] = loss if candidate & heavy_ & (loss < _F32_POS_INF) else _F32_NEG_INF
    out_blocked[i] = loss if candidate & ~heavy_ & (loss == loss) else _F32_NEG_INF


@njit(cache=True, nogil=True, inline="always")
def _loss_no_mds(s_g, s_h, r_g, r_h, psim, reg_lambda, alpha):
    # ``split_loss_change`` with max_delta_step 0, as selects (no branch)
    t1 = max(abs(s_g) - alpha, 0.0)  # T_alpha(G)^2 == max(|G| - alpha, 0)^2 exactly
    t2 = max(abs(r_g) - alpha, 0.0)
    s1 = np.float32(t1 * t1) / np.float32(s_h + reg_lambda)
    s2 = np.float32(t2 * t2) / np.float32(r_h + reg_lambda)
    s1 = s1 if s_h > 0.0 else _F32_ZERO
    s2 = s2 if r_h > 0.0 else _F32_ZERO
    return (s1 + s2) - psim  # float32 addition commutes: the sides' order is free


@njit(cache=True, nogil=True, error_model="numpy")
def _losses_no_mds(m, sg, sh, candidate, pg, ph, psim, rp, out_valid, out_blocked):
    reg_lambda, alpha, mcw = rp.reg_lambda, rp.alpha, rp.min_child_weight
    for i in range(m):
        s_h = sh[i]
        r_h = ph - s_h
        loss = _loss_no_mds(sg[i], s_h, pg - sg[i], r_h, psim, reg_lambda, alpha)
        _sort_loss(i, loss, candidate[i], s_h, r_h, mcw, out_valid, out_blocked)


@njit(cache=True, nogil=True, error_model="numpy")
def loss_changes(m, sg, sh, pg, ph, psim, rp, out):
    """``split_loss_change`` of the splits at positions 0..m-1 of a scan whose scanned side
    has sums ``sg[i]``, ``sh[i]`` (the other side: the parent ``pg, ph`` minus them), bit for
    bit, into ``out`` (float32), every one kept (``scan_losses`` masks them for a search);
    without max_delta_step one loop of selects, vectorised."""
    if rp.max_delta_step == 0.0:
        reg_lambda, alpha = rp.reg_lambda, rp.alpha
        for i in range(m):
            out[i] = _loss_no_mds(sg[i], sh[i], pg - sg[i], ph - sh[i], psim, reg_lambda, alpha)
    else:
        for i in range(m):
            out[i] = split_loss_change(sg[i], sh[i], pg - sg[i], ph - sh[i], psim, rp)


@njit(cache=True, nogil=True, inline="always")
def strip_bound(g_lo, g_hi, h_lo, h_hi, pg, ph, psim, rp):
    """An upper bound of ``_losses_no_mds`` at every position of a stretch whose scanned sums
    lie in [g_lo, g_hi] x [h_lo, h_hi] (max_delta_step 0), or +inf when it cannot bound them.

    It takes each side's largest |G| and smallest H + lambda through the losses' own float
    operations; every one of them (subtraction, abs, max, product, rounding to float32,
    division by a positive number, addition) is monotone, so no loss in the stretch exceeds
    the result. Exact, not approximate: a caller may skip a stretch whose bound is below a
    loss it has already seen."""
    reg_lambda, alpha = rp.reg_lambda, rp.alpha
    t1 = max(max(abs(g_lo), abs(g_hi)) - alpha, 0.0)
    t2 = max(max(abs(pg - g_lo), abs(pg - g_hi)) - alpha, 0.0)
    d1 = np.float32(h_lo + reg_lambda)
    d2 = np.float32((ph - h_hi) + reg_lambda)
    if not (d1 > 0.0 and d2 > 0.0):
        return _F32_POS_INF
    return (np.float32(t1 * t1) / d1 + np.float32(t2 * t2) / d2) - psim


@njit(cache=True, nogil=True, error_model="numpy")
def _losses_mds(m, sg, sh, candidate, pg, ph, psim, rp, out_valid, out_blocked):
    mcw = rp.min_child_weight
    for i in range(m):
        s_h = sh[i]
        r_h = ph - s_h
        loss = split_loss_change(sg[i], s_h, pg - sg[i], r_h, psim, rp)
        _sort_loss(i, loss, candidate[i], s_h, r_h, mcw, out_valid, out_blocked)


@njit(cache=True, nogil=True, error_model="numpy")
def scan_losses(m, sg, sh, candidate, pg, ph, psim, rp, out_valid, out_blocked):
    """Loss change at positions 0..m-1 of a scan whose scanned side has running sums
    ``sg[i]``, ``sh[i]`` (the other side is the parent ``pg, ph`` minus them), equal to
    ``split_loss_change`` bit for bit. ``out_valid[i]``: the loss where ``candidate[i]`` and
    both sides weigh >= min_child_weight and it is finite, else -inf. ``out_blocked[i]``: the
    loss where min_child_weight refused a candidate (and it is not NaN), else -inf."""
    if rp.max_delta_step == 0.0:
        _losses_no_mds(m, sg, sh, candidate, pg, ph, psim, rp, out_valid, out_blocked)
    else:
        _losses_mds(m, sg, sh, candidate, pg, ph, psim, rp, out_valid, out_blocked)


@njit(cache=True, nogil=True, error_model="numpy", fastmath={"nnan", "nsz", "reassoc"})
def strip_max(m, values):
    """Maximum of ``values[:m]`` (m >= 1), vectorised. Its inputs never hold NaN (``scan_losses``
    turns NaN and +inf into -inf), so the fast-math flags cannot change the result."""
    out = values[0]
    for i in range(1, m):
        out = max(out, values[i])
    return out


@njit(cache=True, nogil=True)
def first_index(m, values, top):
    """The first i < m with ``values[i] == top``: the position a sequential scan keeping the
    first strict improvement ends on."""
    for i in range(m):
        if values[i] == top:
            return i
    return -1
