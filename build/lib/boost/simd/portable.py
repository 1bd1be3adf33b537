"""The three LLVM kernels of ``boost.simd`` in plain numba: the same results, no vector
instructions, and runnable as Python under ``NUMBA_DISABLE_JIT=1``."""

from __future__ import annotations

import numpy as np
from numba import njit

_ROW_SHIFT = np.int64(32)  # a (value, row) word holds the row in its high 32 bits
_LOW32 = np.int64(0xFFFFFFFF)


@njit(cache=True, nogil=True, inline="always")
def prefetch(array, index):
    """A hint only: nothing to do without LLVM's prefetch."""


@njit(cache=True, nogil=True, inline="always")
def split8(vr_in, gh_in, side, vr_left, gh_left, vr_right, gh_right, k, left_at, right_at):
    """Entries ``k .. k+7`` split by their row's side, left ones (side 0) from ``left_at``
    on, right ones from ``right_at`` on, each in order; returns how many went right. One by
    one in order: a left entry is written at or below the one being read, so the output may
    be the input itself."""
    n_right = 0
    for i in range(8):
        word = vr_in[k + i]
        gh = gh_in[k + i]
        if side[(word >> _ROW_SHIFT) & _LOW32] != 0:
            vr_right[right_at + n_right] = word
            gh_right[right_at + n_right] = gh
            n_right += 1
        else:
            vr_left[left_at + i - n_right] = word
            gh_left[left_at + i - n_right] = gh
    return n_right


@njit(cache=True, nogil=True, inline="always")
def pair_strip(gf, first1, first2, step, width, io):
    """One full strip of ``width`` entries of each of two segments of ``gf`` ((n, 2) float32
    (g, h)), from ``first1``/``first2`` by ``step``: ``io[0:4]`` the running [G1, H1, G2, H2]
    before and after, ``io[4:6]`` the least G of each before any of its entries, ``io[6:8]``
    the largest, ``io[8:10]`` H before the last entry."""
    g1, h1, g2, h2 = io[0], io[1], io[2], io[3]
    lo1, hi1, lo2, hi2 = g1, g1, g2, g2
    for i in range(width - 1):
        k1 = first1 + step * i
        k2 = first2 + step * i
        g1 += np.float64(gf[k1, 0])
        h1 += np.float64(gf[k1, 1])
        g2 += np.float64(gf[k2, 0])
        h2 += np.float64(gf[k2, 1])
        lo1, hi1 = (g1 if g1 < lo1 else lo1), (g1 if g1 > hi1 else hi1)
        lo2, hi2 = (g2 if g2 < lo2 else lo2), (g2 if g2 > hi2 else hi2)
    io[8], io[9] = h1, h2
    k1 = first1 + step * (width - 1)
    k2 = first2 + step * (width - 1)
    io[0] = g1 + np.float64(gf[k1, 0])
    io[1] = h1 + np.float64(gf[k1, 1])
    io[2] = g2 + np.float64(gf[k2, 0])
    io[3] = h2 + np.float64(gf[k2, 1])
    io[4], io[5], io[6], io[7] = lo1, lo2, hi1, hi2
