"""Gradients and hessians against finite differences of each objective's loss."""

import numpy as np
import pytest

from boost import metrics, objectives


def _loss(objective, margin, y):
    """Per-row loss in float64 (the functions XGBoost's g and h differentiate)."""
    if objective == "reg:squarederror":
        return 0.5 * (margin[:, 0] - y) ** 2
    if objective == "binary:logistic":
        p = 1.0 / (1.0 + np.exp(-margin[:, 0]))
        return -(y * np.log(p) + (1 - y) * np.log(1 - p))
    shifted = margin - margin.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -log_p[np.arange(len(y)), y.astype(int)]


@pytest.mark.parametrize("objective,groups", [("reg:squarederror", 1),
                                              ("binary:logistic", 1),
                                              ("multi:softprob", 3)])
def test_gradients_match_finite_differences(objective, groups):
    rng = np.random.default_rng(0)
    n = 200
    margin = rng.normal(size=(n, groups)).astype(np.float32)
    if objective == "reg:squarederror":
        y = rng.normal(size=n).astype(np.float32)
    elif objective == "binary:logistic":
        y = (rng.random(n) < 0.4).astype(np.float32)
    else:
        y = rng.integers(0, groups, n).astype(np.float32)
    g, h = objectives.gradients(objective, margin, y, None)
    eps = 1e-4
    m64 = margin.astype(np.float64)
    for k in range(groups):
        step = np.zeros_like(m64)
        step[:, k] = eps
        up, mid, down = (_loss(objective, m64 + step, y), _loss(objective, m64, y),
                         _loss(objective, m64 - step, y))
        fd_g = (up - down) / (2 * eps)
        fd_h = (up - 2 * mid + down) / eps**2
        np.testing.assert_allclose(g[:, k], fd_g, atol=1e-4)
        # XGBoost's softmax hessian is 2 p (1 - p): twice the diagonal of the true hessian.
        factor = 2.0 if objective == "multi:softprob" else 1.0
        np.testing.assert_allclose(h[:, k], factor * fd_h, atol=2e-3)


def test_sample_weight_scales_g_and_h():
    margin = np.array([[0.3], [-1.2], [2.0]], dtype=np.float32)
    y = np.array([1, 0, 1], dtype=np.float32)
    w = np.array([2.0, 0.5, 3.0], dtype=np.float32)
    g1, h1 = objectives.gradients("binary:logistic", margin, y, None)
    gw, hw = objectives.gradients("binary:logistic", margin, y, w)
    np.testing.assert_allclose(gw[:, 0], g1[:, 0] * w, rtol=1e-6)
    np.testing.assert_allclose(hw[:, 0], h1[:, 0] * w, rtol=1e-6)


def test_logistic_hessian_floor():
    margin = np.array([[100.0], [-100.0]], dtype=np.float32)
    _, h = objectives.gradients("binary:logistic", margin, np.array([1, 0], np.float32), None)
    assert (h >= np.float32(1e-16)).all()


def test_metrics_by_hand():
    y = np.array([1.0, 0.0], dtype=np.float32)
    margin = np.array([[0.0], [0.0]], dtype=np.float32)
    assert metrics.metric("binary:logistic", margin, y, None) == pytest.approx(np.log(2))
    assert metrics.metric("reg:squarederror", margin, y, None) == pytest.approx(np.sqrt(0.5))
    three = np.zeros((2, 3), dtype=np.float32)
    assert metrics.metric("multi:softprob", three, y, None) == pytest.approx(np.log(3))
