"""The exact grower's partition (``exact._partition``), vector and scalar, against NumPy's
stable partition: every entry lands at its side's cursor, in order, and nothing outside the
destination range is written."""

import numpy as np
import pytest

from boost._compress import LANES
from boost.exact import _partition, _word_fields


def _entries(rng, n_rows, n):
    vr = np.empty(n, np.int64)
    vf, vi = _word_fields(vr)
    vf[:, 0] = rng.normal(size=n)
    vi[:, 1] = rng.integers(0, n_rows, size=n)
    gh = rng.integers(-(2 ** 62), 2 ** 62, size=n)
    return vr, vi, gh


@pytest.mark.parametrize("vector", [True, False])
def test_partition_is_numpy_stable_partition(vector):
    rng = np.random.default_rng(5)
    n_rows = 300
    for n in [0, 1, LANES - 1, LANES, LANES + 1, 3 * LANES + 5, 250]:
        for p_right in (0.0, 0.3, 1.0):
            side = (rng.random(n_rows) < p_right).astype(np.uint8)
            pad = 11  # entries before and after the ranges, which must stay as they are
            vr, vi, gh = _entries(rng, n_rows, n + 2 * pad)
            vr_out = np.full_like(vr, -7)
            gh_out = np.full_like(gh, -7)
            side_buf = np.zeros(len(vr), np.uint8)
            a, b, out = pad, pad + n, pad - 3
            right = side[vi[a:b, 1]] == 1
            split = _partition(vi, vr, gh, vr_out, gh_out, side, side_buf, vector, a, b, out,
                               int(right.sum()))
            assert split == out + int((~right).sum())
            order = np.concatenate([np.flatnonzero(~right), np.flatnonzero(right)]) + a
            np.testing.assert_array_equal(vr_out[out:out + n], vr[order])
            np.testing.assert_array_equal(gh_out[out:out + n], gh[order])
            untouched = np.ones(len(vr), bool)
            untouched[out:out + n] = False
            assert (vr_out[untouched] == -7).all() and (gh_out[untouched] == -7).all()
