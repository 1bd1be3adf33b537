"""The histogram build's record layout, level by level: per-block records (the engine's,
``hist.binning.block_records``: each thread's features and a copy of (g, h) in records of
their own, 24 bytes a row at 28 features on 2 threads, so a thread streams only what it
adds) against the shared row records the engine used before (one record per row, every
feature's code then (g, h), 40 bytes at 28 features, read through row ids by both threads),
and against per-block records padded to 32 bytes (two a cache line, none straddling two).

A level is simulated at depth d: 2^d nodes with rows drawn at random, half of them built (as
subtraction leaves the other half), row ids ascending within a node. The histograms of every
layout are checked equal; the time is the best of ``--repeats`` builds, the layouts
interleaved.

    python benchmarks/bench_records.py                 # 1M x 28, 2 threads
    python benchmarks/bench_records.py --size 100000x20
    python benchmarks/bench_records.py --smoke         # 20k x 8, depths 1 and 3, 2 builds
"""

from __future__ import annotations

import argparse
import sys
import time

import numba
import numpy as np
from common import ROOT, make_data
from numba import njit, prange

sys.path.insert(0, str(ROOT))

from boost.hist import histogram  # noqa: E402
from boost.hist.binning import (  # noqa: E402
    bin_matrix,
    block_records,
    feature_block,
    hist_stride,
    record_blocks,
)
from boost.hist.histogram import _add_rows, _build, _store_gradients  # noqa: E402
from boost.records import gh_view  # noqa: E402
from boost.sketch import hist_cuts  # noqa: E402


def shared_records(codes, gh):
    """The former layout: every feature's code, then (g, h) in the row's last 8 bytes."""
    per_word = 8 // codes.dtype.itemsize
    out = np.zeros((codes.shape[0], codes.shape[1] + per_word), dtype=codes.dtype)
    out[:, :codes.shape[1]] = codes
    out.view(np.complex64)[:, -1] = gh
    return out


def padded_blocks(blocks, row_bytes):
    """``blocks`` (``hist.binning.block_records``) with each record padded to ``row_bytes``."""
    width = row_bytes // blocks.dtype.itemsize
    out = np.zeros(blocks.shape[:2] + (width,), dtype=blocks.dtype)
    codes = blocks.shape[2] - 8 // blocks.dtype.itemsize
    out[:, :, :codes] = blocks[:, :, :codes]
    out.view(np.complex64)[..., -1] = gh_view(blocks)
    return out


@njit(parallel=True, nogil=True)
def _build_shared(bins, missing, n_features, stride, gh, rows, starts, ends, slots, out,
                  n_blocks):
    """The former build: each thread reads its features' codes from the shared records."""
    for b in prange(n_blocks):
        f0, f1 = feature_block(n_features, n_blocks, b)
        for t in range(starts.shape[0]):
            hh = out[slots[t], f0 * stride:f1 * stride].reshape((f1 - f0, stride))
            hh[:, :] = 0.0
            _add_rows(bins, gh, rows, True, missing < 0, missing, starts[t], ends[t], f0, f1,
                      hh)


THREADS = 2  # as bench_hist.py


def _build_level(layout, records, gh, missing, f, stride, level, out, n_blocks) -> float:
    """Build the level's histograms into ``out``; returns the seconds it took."""
    rows, starts, ends, slots = level
    start = time.perf_counter()
    if layout == "shared":
        _build_shared(records, missing, f, stride, gh, rows, starts, ends, slots, out, n_blocks)
    else:
        _build(records, missing, f, stride, gh, rows, True, starts, ends, slots, out)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="1000000x28")
    parser.add_argument("--depths", default="1,3,5")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--smoke", action="store_true",
                        help="the smallest run: 20000x8, depths 1 and 3, 2 builds each")
    args = parser.parse_args()
    if args.smoke:
        args.size, args.depths, args.repeats = "20000x8", "1,3", 2
    n, f = (int(v) for v in args.size.split("x"))
    numba.set_num_threads(THREADS)
    X, _ = make_data(n, f)
    rng = np.random.default_rng(1)
    cuts = hist_cuts(X, None, 256)
    codes, missing = bin_matrix(X, cuts)
    gh = (rng.normal(size=n) + 1j * rng.uniform(0.1, 0.3, n)).astype(np.complex64)
    n_blocks = record_blocks(f)  # one per thread, as the engine cuts them
    stride = hist_stride(cuts)
    blocks = block_records(codes, f, n_blocks)
    _store_gradients(gh.real.copy(), gh.imag.copy(), gh_view(blocks))
    shared = shared_records(codes, gh)
    item = codes.dtype.itemsize
    layouts = {f"shared ({shared.shape[1] * item} B)": ("shared", shared, gh),
               f"per block ({blocks.shape[2] * item} B)": ("blocks", blocks, gh_view(blocks))}
    if blocks.shape[2] * item < 32:
        padded = padded_blocks(blocks, 32)
        layouts["per block (32 B)"] = ("blocks", padded, gh_view(padded))
    print(f"histogram build of one level, {n:,} x {f}, {n_blocks} blocks, {THREADS} threads "
          f"(best of {args.repeats} interleaved, ms); `_AHEAD` = {histogram._AHEAD} rows "
          "prefetched")
    print("| depth | nodes built | " + " | ".join(layouts) + " |")
    print("|---|---|" + "---|" * len(layouts))
    for depth in (int(d) for d in args.depths.split(",")):
        k = 2 ** depth
        node = rng.integers(0, k, n)
        rows = np.argsort(node, kind="stable").astype(np.int32)
        counts = np.bincount(node, minlength=k)
        first = np.concatenate([[0], np.cumsum(counts)[:-1]])
        built = np.arange(0, k, 2)
        starts = first[built].astype(np.int64)
        ends = (first + counts)[built].astype(np.int64)
        slots = np.arange(len(built), dtype=np.int64)
        level = (rows, starts, ends, slots)
        out = np.empty((len(built), f * stride), dtype=np.complex128)
        best = dict.fromkeys(layouts, np.inf)
        reference = None
        for name, (layout, records, slots_gh) in layouts.items():  # compiled; the same sums
            _build_level(layout, records, slots_gh, missing, f, stride, level, out, n_blocks)
            if reference is None:
                reference = out.copy()
            elif not np.array_equal(reference, out):
                raise SystemExit(f"{name}: the histograms differ from the shared layout's")
        for _ in range(args.repeats):  # interleaved, so the machine's drift hits all alike
            for name, (layout, records, slots_gh) in layouts.items():
                best[name] = min(best[name], _build_level(layout, records, slots_gh, missing, f,
                                                          stride, level, out, n_blocks))
        cells = [f"{1000 * t:.2f}" for t in best.values()]
        print(f"| {depth} | {len(built)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
