"""The first pass's strip sums of two segments side by side (``exact._sum_strips_pair``,
four chains in one vector: ``_pair_sums.pair_strip``) against each segment summed alone by
``exact._sum_strips``: the same float64 sums, addition for addition, and the same least and
largest G of every strip."""

import numpy as np
import pytest

from boost.exact import _sum_strips, _sum_strips_pair


@pytest.mark.parametrize("forward", [True, False])
@pytest.mark.parametrize("width", [32, 64])
def test_pair_sums_equal_two_single_passes(forward, width):
    rng = np.random.default_rng(3)
    n1, n2 = 7 * width + 5, 4 * width  # the first has strips the second does not
    gf = np.empty((n1 + n2 + 9, 2), np.float32)
    gf[:, 0] = rng.normal(size=len(gf)) * 10.0 ** rng.integers(-3, 4, size=len(gf))
    gf[:, 1] = rng.random(len(gf))
    a1, b1 = 4, 4 + n1
    a2, b2 = b1 + 5, b1 + 5 + n2
    ns1, ns2 = -(-n1 // width), -(-n2 // width)
    pair1, pair2 = np.zeros((ns1 + 1, 6)), np.zeros((ns2 + 1, 6))
    totals = _sum_strips_pair(gf, a1, b1, a2, b2, forward, width, ns1, ns2, pair1, pair2,
                              np.zeros(16))
    alone1, alone2 = np.zeros((ns1 + 1, 6)), np.zeros((ns2 + 1, 6))
    t1 = _sum_strips(gf, a1, b1, forward, width, 0, ns1, alone1, 0.0, 0.0)
    t2 = _sum_strips(gf, a2, b2, forward, width, 0, ns2, alone2, 0.0, 0.0)
    assert totals == (*t1, *t2)
    np.testing.assert_array_equal(pair1, alone1)
    np.testing.assert_array_equal(pair2, alone2)
    # and a hand sum of the first segment's G in scan order
    order = range(a1, b1) if forward else range(b1 - 1, a1 - 1, -1)
    g = 0.0
    for k in order:
        g += float(gf[k, 0])
    assert totals[0] == g
