"""libstdc++'s ``std::sort`` (introsort), step for step, on (value, weight) pairs.

XGBoost's quantile sketch sorts its input queue with ``std::sort`` and then keeps, of equal
values, the one that comes first and the weights summed in that order. Equal is not
identical: -0.0 == 0.0, so which zero becomes a cut, and the float32 sum of equal values'
weights, depend on the order ``std::sort`` leaves equal elements in. That order is an
implementation detail of GCC's libstdc++ (the library XGBoost's Linux wheels are built
with), reproduced here: median-of-three quicksort down to 16 elements, heapsort past
2·log2(n) levels, then insertion sort. The comparison is ``a.value < b.value`` only.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_THRESHOLD = 16


@njit(cache=True, nogil=True, inline="always")
def _swap(v, w, i, j):
    v[i], v[j] = v[j], v[i]
    w[i], w[j] = w[j], w[i]


@njit(cache=True, nogil=True)
def _move_median_to_first(v, w, result, a, b, c):
    if v[a] < v[b]:
        if v[b] < v[c]:
            _swap(v, w, result, b)
        elif v[a] < v[c]:
            _swap(v, w, result, c)
        else:
            _swap(v, w, result, a)
    elif v[a] < v[c]:
        _swap(v, w, result, a)
    elif v[b] < v[c]:
        _swap(v, w, result, c)
    else:
        _swap(v, w, result, b)


@njit(cache=True, nogil=True)
def _unguarded_partition(v, w, first, last, pivot):
    while True:
        while v[first] < v[pivot]:
            first += 1
        last -= 1
        while v[pivot] < v[last]:
            last -= 1
        if not first < last:
            return first
        _swap(v, w, first, last)
        first += 1


@njit(cache=True, nogil=True)
def _adjust_heap(v, w, first, hole, length, val, wt):
    top = hole
    second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if v[first + second] < v[first + second - 1]:
            second -= 1
        v[first + hole] = v[first + second]
        w[first + hole] = w[first + second]
        hole = second
    if (length & 1) == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        v[first + hole] = v[first + second - 1]
        w[first + hole] = w[first + second - 1]
        hole = second - 1
    parent = (hole - 1) // 2
    while hole > top and v[first + parent] < val:
        v[first + hole] = v[first + parent]
        w[first + hole] = w[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    v[first + hole] = val
    w[first + hole] = wt


@njit(cache=True, nogil=True)
def _heap_sort(v, w, first, last):
    length = last - first
    if length >= 2:
        parent = (length - 2) // 2
        while True:
            _adjust_heap(v, w, first, parent, length, v[first + parent], w[first + parent])
            if parent == 0:
                break
            parent -= 1
    while last - first > 1:
        last -= 1
        val, wt = v[last], w[last]
        v[last], w[last] = v[first], w[first]
        _adjust_heap(v, w, first, 0, last - first, val, wt)


@njit(cache=True, nogil=True)
def _introsort_loop(v, w, first, last, depth_limit):
    """libstdc++'s recursion (recurse on the right part, loop on the left) with an explicit
    stack: the parts are disjoint, so the order they are sorted in does not change the
    result, and numba's on-disk cache does not handle recursive functions."""
    stack = [(first, last, depth_limit)]
    while len(stack) > 0:
        first, last, depth_limit = stack.pop()
        while last - first > _THRESHOLD:
            if depth_limit == 0:
                _heap_sort(v, w, first, last)
                break
            depth_limit -= 1
            mid = first + (last - first) // 2
            _move_median_to_first(v, w, first, first + 1, mid, last - 1)
            cut = _unguarded_partition(v, w, first + 1, last, first)
            stack.append((cut, last, depth_limit))
            last = cut


@njit(cache=True, nogil=True)
def _linear_insert(v, w, last):
    val, wt = v[last], w[last]
    nxt = last - 1
    while val < v[nxt]:
        v[last], w[last] = v[nxt], w[nxt]
        last = nxt
        nxt -= 1
    v[last], w[last] = val, wt


@njit(cache=True, nogil=True)
def _insertion_sort(v, w, first, last):
    if first == last:
        return
    for i in range(first + 1, last):
        if v[i] < v[first]:
            val, wt = v[i], w[i]
            for k in range(i, first, -1):
                v[k], w[k] = v[k - 1], w[k - 1]
            v[first], w[first] = val, wt
        else:
            _linear_insert(v, w, i)


@njit(cache=True, nogil=True)
def std_sort(v, w, n):
    """Sort ``v[:n]`` ascending in place, moving ``w`` along, exactly as ``std::sort``."""
    if n < 2:
        return
    lg = 0
    while (1 << (lg + 1)) <= n:
        lg += 1
    first = np.int64(0)  # not the literal 0: numba would compile the callee for it alone
    _introsort_loop(v, w, first, n, 2 * lg)
    if n > _THRESHOLD:
        _insertion_sort(v, w, first, np.int64(_THRESHOLD))
        for i in range(_THRESHOLD, n):
            _linear_insert(v, w, i)
    else:
        _insertion_sort(v, w, first, n)
