"""numba's threading layer: which one this process got, whether it takes parallel kernels
from several threads at once, and the process-wide lock the engine's calls take when it
does not.

numba runs ``parallel=True`` kernels on one of three layers. OpenMP (``omp``, from the
system's ``libgomp.so.1``) and TBB (``tbb``, the ``tbb`` package) take parallel regions from
any number of threads. The fallback ``workqueue`` does not: two threads launching parallel
kernels at once end the whole process ("Numba workqueue threading layer is terminating:
Concurrent access has been detected"). A server trains, predicts and answers its trace in
each visitor's thread, so on that layer every engine call that may run a parallel kernel
holds ``ENGINE_LOCK`` (``exclusive``): the calls take turns, the process lives. On a
thread-safe layer ``exclusive`` takes nothing.
"""

from __future__ import annotations

import functools
import math
import os
import threading
from contextlib import contextmanager
from pathlib import Path

import numba

SAFE_LAYERS = ("omp", "tbb")
ENGINE_LOCK = threading.RLock()  # re-entrant: an engine call may make another
_LAYER: list[str] = []  # the layer, once known
_LAYER_LOCK = threading.Lock()


def layer() -> str:
    """The threading layer this process's parallel kernels run on ("omp", "tbb",
    "workqueue"), starting numba's threads if nothing has yet; "none" when no layer can
    start, "python" with the JIT off."""
    if _LAYER:
        return _LAYER[0]
    with _LAYER_LOCK:
        if not _LAYER:
            if numba.config.DISABLE_JIT:
                _LAYER.append("python")
            else:
                try:
                    from numba.np.ufunc import parallel

                    parallel._launch_threads()
                    _LAYER.append(numba.threading_layer())
                except Exception:  # no layer could start
                    _LAYER.append("none")
    return _LAYER[0]


def thread_safe() -> bool:
    """Whether parallel kernels may run from several threads at once (plain Python: the
    threads take turns on the GIL)."""
    return layer() in (*SAFE_LAYERS, "python")


@contextmanager
def exclusive():
    """Hold ``ENGINE_LOCK`` for the block where the layer is not thread-safe."""
    if thread_safe():
        yield
    else:
        with ENGINE_LOCK:
            yield


@contextmanager
def threads(nthread: int):
    """Parallel kernels launched from this thread run on ``nthread`` of numba's threads in
    the block (0: all of them), as XGBoost's ``nthread``; numba's count is per calling
    thread, so other threads' calls keep theirs. A click's answer (a node record) takes one:
    on a machine whose cores are busy — the browser drawing the click, another session
    training — a parallel region waits for a core to come free, and OpenMP's waiting
    threads spin on the cores the page needs (docs/player.md, "Serving records")."""
    available = numba.config.NUMBA_NUM_THREADS
    wanted = available if nthread == 0 else min(nthread, available)
    before = numba.get_num_threads()
    if before == wanted:  # (a block inside another of the same count: nothing to set)
        yield
        return
    numba.set_num_threads(wanted)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def serialized(func):
    """``func`` run inside ``exclusive()``: an engine call that may run parallel kernels."""

    @functools.wraps(func)
    def call(*args, **kwargs):
        with exclusive():
            return func(*args, **kwargs)

    return call


def advice() -> str | None:
    """What a server should log when its layer is not thread-safe (None when it is)."""
    name = layer()
    if thread_safe():
        return None
    return (f"numba's threading layer is '{name}', which is not thread-safe: BoostScope's "
            "engine calls take turns (one training, prediction or trace at a time across "
            "all sessions). For parallel, concurrent training install the system's OpenMP "
            "runtime (Debian/Ubuntu: apt-get install libgomp1) or TBB (pip install tbb), "
            "and set NUMBA_THREADING_LAYER=omp (or tbb).")


def cpu_share(cpu_max: str = "/sys/fs/cgroup/cpu.max") -> int:
    """The cores this process may use: its CPU affinity, capped by a container's CPU quota
    (cgroup v2's ``cpu.max``, "quota period" or "max period"), rounded up. numba counts the
    host's cores, so a replica limited to 2 of 16 would start 16 threads a kernel; a
    container's start sets ``NUMBA_NUM_THREADS`` from this (docs/deploy/Dockerfile)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)
    try:
        quota, period = Path(cpu_max).read_text().split()[:2]
        if quota != "max":
            cores = min(cores, max(1, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):  # no cgroup v2 file, or not a quota: the affinity
        pass
    return max(1, cores)
