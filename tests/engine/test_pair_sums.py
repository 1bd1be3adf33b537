"""The first pass's strip sums of two segments side by side
(``exact.splitting._sum_strips_pair``, four chains in one vector: ``simd.pair_strip``) against
each segment summed alone by ``exact.splitting._sum_strips``: the same float64 sums, addition
for addition, and the same least and largest G of every strip."""

import numpy as np
import pytest
from numba import njit

from boost.exact.splitting import _sum_strips, _sum_strips_pair
from boost.simd import IO_HHI, IO_HI, IO_LO, IO_SUMS, portable
from boost.simd.pair_sums import pair_strip as vector_pair_strip


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


@njit
def _vector_strip(gf, first1, first2, step, width, io):
    vector_pair_strip(gf, first1, first2, step, width, io)


@njit
def _portable_strip(gf, first1, first2, step, width, io):
    portable.pair_strip(gf, first1, first2, step, width, io)


@pytest.mark.parametrize("step", [1, -1])
def test_vector_and_portable_strips_agree_with_a_hand_loop(step):
    rng = np.random.default_rng(11)
    gf = np.empty((300, 2), np.float32)
    gf[:, 0] = rng.normal(size=300) * 10.0 ** rng.integers(-3, 4, size=300)
    gf[:, 1] = rng.random(300)
    width, first1, first2 = 64, (10 if step == 1 else 73), (150 if step == 1 else 213)
    start = np.array([1.5, 2.0, -3.0, 0.25] + [0.0] * 6)
    results = []
    for kernel in (_vector_strip, _portable_strip):
        io = start.copy()
        kernel(gf, first1, first2, step, width, io)
        results.append(io)
    np.testing.assert_array_equal(results[0], results[1])
    for j, first in enumerate((first1, first2)):
        g, h = start[2 * j], start[2 * j + 1]
        lo = hi = g
        for i in range(width):
            if i == width - 1:
                assert results[1][IO_HHI + j] == h
            g += float(gf[first + step * i, 0])
            h += float(gf[first + step * i, 1])
            if i < width - 1:
                lo, hi = min(lo, g), max(hi, g)
        assert (results[1][IO_SUMS + 2 * j], results[1][IO_SUMS + 2 * j + 1]) == (g, h)
        assert (results[1][IO_LO + j], results[1][IO_HI + j]) == (lo, hi)
