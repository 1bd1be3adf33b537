"""A stable argsort of float32 values by least-significant-digit radix sort.

The exact grower sorts every feature's present values once per training run, ties by row
index (docs/xgboost-rules.md §3). ``np.argsort(kind="mergesort")`` does that in
O(n log n) comparisons; three counting passes over 11-bit digits of an order-preserving
integer key do it in O(n), several times faster on columns of 10^5 values and more.

The key maps a float32's bits to a uint32 whose unsigned order is the float order: positive
numbers get the sign bit set, negative numbers are bit-inverted. -0.0 is keyed as +0.0 (they
compare equal, so their order is by position, as in a stable comparison sort). NaN must not
occur (the callers leave missing values out).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_BITS = 11
_BUCKETS = 1 << _BITS
_PASSES = 3  # 3 * 11 >= 32


@njit(cache=True, nogil=True, inline="always")
def _key(bits):
    """The order-preserving key of a float32's bits (see the module's docstring)."""
    if bits == np.uint32(0x80000000):  # -0.0
        bits = np.uint32(0)
    if bits & np.uint32(0x80000000):
        return ~bits
    return bits | np.uint32(0x80000000)


@njit(cache=True, nogil=True)
def stable_argsort(values):
    """Indices that sort the float32 ``values`` ascending, equal values in index order
    (as ``np.argsort(values, kind="stable")``), as int64."""
    n = len(values)
    bits = np.ascontiguousarray(values).view(np.uint32)
    keys = np.empty(n, dtype=np.uint32)
    for i in range(n):
        keys[i] = _key(bits[i])
    order = np.arange(n)
    spare = np.empty(n, dtype=np.int64)
    spare_keys = np.empty(n, dtype=np.uint32)
    count = np.empty(_BUCKETS, dtype=np.int64)
    for p in range(_PASSES):
        shift = np.uint32(p * _BITS)
        count[:] = 0
        for i in range(n):
            count[(keys[i] >> shift) & np.uint32(_BUCKETS - 1)] += 1
        if count.max() == n:  # every key has the same digit: this pass changes nothing
            continue
        total = 0
        for d in range(_BUCKETS):
            c = count[d]
            count[d] = total
            total += c
        for i in range(n):
            d = (keys[i] >> shift) & np.uint32(_BUCKETS - 1)
            dst = count[d]
            count[d] = dst + 1
            spare[dst] = order[i]
            spare_keys[dst] = keys[i]
        order, spare = spare, order
        keys, spare_keys = spare_keys, keys
    return order
