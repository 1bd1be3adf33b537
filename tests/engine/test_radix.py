"""The radix argsort against NumPy's stable argsort (the oracle), on the value patterns the
exact grower meets: continuous, heavy ties, signed zeros, infinities, subnormals."""

import numpy as np
import pytest

from boost.radix import stable_argsort


def _patterns(rng, n):
    yield rng.normal(size=n).astype(np.float32)
    yield rng.integers(-3, 4, size=n).astype(np.float32)  # ties everywhere
    zeros = np.where(rng.random(n) < 0.5, np.float32(-0.0), np.float32(0.0)).astype(np.float32)
    zeros[: n // 3] = rng.normal(size=n // 3)
    yield zeros  # -0.0 == 0.0: ordered by position, not by sign bit
    wide = (rng.normal(size=n) * 1e30).astype(np.float32)
    wide[::7] = np.inf
    wide[::11] = -np.inf
    wide[::13] = np.float32(1e-45)
    wide[::17] = np.float32(-1e-45)
    yield wide
    yield np.full(n, 2.5, dtype=np.float32)  # one value: every digit pass is skipped


@pytest.mark.parametrize("n", [0, 1, 2, 17, 2048, 70_000])
def test_matches_numpy_stable_argsort(n):
    rng = np.random.default_rng(n)
    for values in _patterns(rng, n):
        np.testing.assert_array_equal(stable_argsort(values),
                                      np.argsort(values, kind="stable"))


def test_negative_zero_ties_with_positive_zero():
    values = np.array([0.0, -0.0, -1.0, 0.0, -0.0], dtype=np.float32)
    assert stable_argsort(values).tolist() == [2, 0, 1, 3, 4]
