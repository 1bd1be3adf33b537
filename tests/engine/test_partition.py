"""The exact grower's partition (``exact.partition._partition``), vector and scalar, against
NumPy's stable partition: in place, the left entries first and then the right ones, each in
their order, and nothing outside the range written."""

import numpy as np
import pytest

from boost.exact.partition import _partition
from boost.records import word_fields as _word_fields
from boost.simd import LANES


def _entries(rng, n_rows, n):
    vr = np.empty(n, np.int64)
    vf, vi = _word_fields(vr)
    vf[:, 0] = rng.normal(size=n)
    vi[:, 1] = rng.integers(0, n_rows, size=n)
    gh = rng.integers(-(2 ** 62), 2 ** 62, size=n)
    return vr, vi, gh


@pytest.mark.parametrize("vector", [True, False])
@pytest.mark.parametrize("from_root", [True, False])
def test_partition_is_numpy_stable_partition(vector, from_root):
    # from_root: the (value, row) words are read from another array (the root's), as at
    # level 0; else in place.
    rng = np.random.default_rng(5)
    n_rows = 300
    for n in [0, 1, LANES - 1, LANES, LANES + 1, 3 * LANES + 5, 250]:
        for p_right in (0.0, 0.3, 1.0):
            side = (rng.random(n_rows) < p_right).astype(np.uint8)
            pad = 11  # entries before and after the range, which must stay as they are
            vr_in, vi_in, gh = _entries(rng, n_rows, n + 2 * pad)
            vr = np.full_like(vr_in, -7) if from_root else vr_in.copy()
            vr_before, gh_before = vr.copy(), gh.copy()
            a, b = pad, pad + n
            right = side[vi_in[a:b, 1]] == 1
            order = np.concatenate([np.flatnonzero(~right), np.flatnonzero(right)]) + a
            expected_vr, expected_gh = vr_in[order], gh[order]
            spill = np.full((2, n), -9, np.int64)
            split = _partition(vi_in if from_root else _word_fields(vr)[1], vr_in if from_root
                               else vr, vr, gh, side, np.zeros(len(vr), np.uint8), vector, a,
                               b, spill[0], spill[1])
            assert split == a + int((~right).sum())
            np.testing.assert_array_equal(vr[a:b], expected_vr)
            np.testing.assert_array_equal(gh[a:b], expected_gh)
            outside = np.ones(len(vr), bool)
            outside[a:b] = False
            np.testing.assert_array_equal(vr[outside], vr_before[outside])
            np.testing.assert_array_equal(gh[outside], gh_before[outside])
