"""The node arithmetic shared by the growers: the vectorised loss changes and the strip bound
that lets the exact search skip strips, checked position by position against the scalar
``split_loss_change`` (XGBoost's formula, itself checked against XGBoost elsewhere)."""

import numpy as np
import pytest

from boost._dtypes import NodeParams
from boost.split_math import scan_losses, similarity, split_loss_change, strip_bound

F32 = np.float32
# (lambda, alpha, min_child_weight)
CASES = [(1.0, 0.0, 1.0), (0.0, 0.0, 0.0), (5.0, 0.5, 0.0), (1.0, 3.0, 10.0), (0.0, 0.2, 1.0)]


def _stretch(rng, m, lam):
    """Running sums of m positions of a scan (h >= 0, so H never decreases) and a parent."""
    g = rng.normal(size=m) * rng.choice([0.01, 1.0, 100.0])
    h = rng.random(m) * rng.choice([0.0, 0.25, 1.0])
    g0, h0 = rng.normal() * 50, rng.random() * 30 * (rng.random() < 0.8)
    sg = g0 + np.concatenate([[0.0], np.cumsum(g)[:-1]])
    sh = h0 + np.concatenate([[0.0], np.cumsum(h)[:-1]])
    pg = sg[-1] + rng.normal() * 50
    ph = sh[-1] + rng.random() * 30 * (rng.random() < 0.8)
    return sg, sh, pg, ph


@pytest.mark.parametrize("lam, alpha, mcw", CASES)
def test_scan_losses_equal_split_loss_change(lam, alpha, mcw):
    rng = np.random.default_rng(0)
    rp = NodeParams(F32(lam), F32(alpha), F32(mcw), F32(0))
    for _ in range(50):
        sg, sh, pg, ph = _stretch(rng, 64, lam)
        psim = similarity(pg, ph, rp)
        valid = np.empty(64, np.float32)
        refused = np.empty(64, np.float32)
        scan_losses(64, sg, sh, np.ones(64, np.bool_), pg, ph, psim, rp, valid, refused)
        for i in range(64):
            loss = split_loss_change(sg[i], sh[i], pg - sg[i], ph - sh[i], psim, rp)
            heavy = sh[i] >= mcw and ph - sh[i] >= mcw
            assert (valid[i] if heavy else refused[i]) == loss or not np.isfinite(loss)


@pytest.mark.parametrize("lam, alpha, mcw", CASES)
def test_strip_bound_is_never_below_a_loss_it_bounds(lam, alpha, mcw):
    rng = np.random.default_rng(1)
    rp = NodeParams(F32(lam), F32(alpha), F32(mcw), F32(0))
    tight = 0
    for _ in range(400):
        m = int(rng.integers(1, 80))
        sg, sh, pg, ph = _stretch(rng, m, lam)
        psim = similarity(pg, ph, rp)
        losses = np.array([split_loss_change(sg[i], sh[i], pg - sg[i], ph - sh[i], psim, rp)
                           for i in range(m)], dtype=np.float32)
        bound = strip_bound(sg.min(), sg.max(), sh[0], sh[-1], pg, ph, psim, rp)
        finite = losses[np.isfinite(losses)]
        assert finite.size == 0 or bound >= finite.max()
        if m == 1 and np.isfinite(bound) and sh[0] > 0 and ph - sh[0] > 0:
            # one position: the bound is that position's loss change, bit for bit
            assert bound == losses[0]
            tight += 1
    assert tight > 0


def test_strip_bound_gives_up_without_a_positive_denominator():
    # lambda 0 and nothing scanned yet: H + lambda is 0, nothing can be bounded
    rp = NodeParams(F32(0.0), F32(0.0), F32(0.0), F32(0.0))
    inf = strip_bound(-1.0, 2.0, 0.0, 3.0, 5.0, 10.0, F32(1.0), rp)
    assert inf == np.inf
    # the other side empty: the parent's H minus the scanned H is 0
    assert strip_bound(-1.0, 2.0, 1.0, 10.0, 5.0, 10.0, F32(1.0), rp) == np.inf
