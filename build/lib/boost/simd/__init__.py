"""Vector instructions and LLVM-level hints for the engine's hot loops, behind one switch.

numba has no vector types, so three kernels are written as LLVM IR (``compress``,
``pair_sums``, ``prefetch``). That ties them to numba's LLVM version and the processor, and
nothing written as IR runs as Python. ``portable`` holds the same three in plain numba,
giving identical results (the same float64 additions in the same order; the same stable
split). Which one the engine uses is decided here, once, at import:

- ``BOOST_SIMD=0`` in the environment: portable everywhere;
- ``NUMBA_DISABLE_JIT=1`` (to step through the engine in a debugger): portable, since IR
  cannot run as Python;
- otherwise the LLVM versions, and the partition's 8-entry vector split only where the
  processor has AVX-512 (``VECTOR_SPLIT``).

The engine imports ``split8``, ``pair_strip``, ``prefetch``, ``LANES``, ``IO_*`` and reads
``VECTOR_SPLIT`` from this package only.
"""

from __future__ import annotations

import os
import sys
import types

from numba.core import config
from numba.core.registry import CPUDispatcher

ENABLED = os.environ.get("BOOST_SIMD", "1").strip() != "0" and not config.DISABLE_JIT

LANES = 8  # entries ``split8`` splits per call
# io[...] of ``pair_strip``: [G1, H1, G2, H2], [lo1, lo2], [hi1, hi2], [H1, H2] before the last
IO_SUMS, IO_LO, IO_HI, IO_HHI = 0, 4, 6, 8

# numba's on-disk cache is keyed by each kernel's own source file, not by the kernels it
# inlined: a kernel cached with the LLVM versions inside would be loaded as is by the portable
# build. So the portable build keeps the machine code of the kernels that inline this
# package's functions (``keep_apart``) in a directory of its own; every other kernel compiles
# to the same code in both builds and shares the one cache.
PORTABLE_CACHE = os.path.join(
    config.CACHE_DIR or os.path.join(os.path.dirname(os.path.dirname(__file__)), "__pycache__"),
    "portable")

if ENABLED:
    from .compress import VECTOR_SPLIT, split8
    from .pair_sums import pair_strip
    from .prefetch import prefetch
else:
    from .portable import pair_strip, prefetch, split8

    VECTOR_SPLIT = False

__all__ = ["ENABLED", "IO_HHI", "IO_HI", "IO_LO", "IO_SUMS", "LANES", "PORTABLE_CACHE",
           "VECTOR_SPLIT", "callees", "inlining_kernels", "keep_apart", "package_kernels",
           "pair_strip", "prefetch", "split8"]


def callees(kernel) -> list:
    """What a kernel's code can call: the globals it names, and the named attributes of the
    modules among them (``simd.split8``), nested functions' names included."""
    code, namespace = kernel.py_func.__code__, kernel.py_func.__globals__
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names.update(const.co_names)
    found = []
    for name in names:
        obj = namespace.get(name)
        if isinstance(obj, types.ModuleType):
            found += [vars(obj)[attr] for attr in names if attr in vars(obj)]
        elif obj is not None:
            found.append(obj)
    return found


def package_kernels(package: str = "boost") -> list:
    """Every numba kernel defined in ``package``'s loaded modules, inlined ones included."""
    return [obj for name, module in list(sys.modules.items())
            if name == package or name.startswith(package + ".")
            for obj in vars(module).values()
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == name]


def inlining_kernels(package: str = "boost") -> list:
    """Every kernel of ``package``'s loaded modules that calls one of this package's
    functions (``split8``, ``pair_strip``, ``prefetch``), directly or through other kernels
    (their machine code holds it). Read from each kernel's code, as written."""
    kernels = package_kernels(package)
    calls = {id(k): {id(x) for x in callees(k)} for k in kernels}
    inlined = {id(f) for f in (split8, pair_strip, prefetch)}
    grew = True
    while grew:  # callers of callers, until no kernel is added
        grew = False
        for k in kernels:
            if id(k) not in inlined and calls[id(k)] & inlined:
                inlined.add(id(k))
                grew = True
    return [k for k in kernels if id(k) in inlined]


def keep_apart(kernels: list) -> None:
    """The portable build: ``kernels`` keep their machine code in ``PORTABLE_CACHE``
    (numba chooses a kernel's cache directory when caching is enabled, which this does
    again). Called once, when the engine has imported its modules and before any kernel
    ran. Nothing to do in the vector build, or with the JIT off."""
    if ENABLED or config.DISABLE_JIT:
        return
    saved, config.CACHE_DIR = config.CACHE_DIR, PORTABLE_CACHE
    try:
        for kernel in kernels:
            if kernel.overloads:
                raise RuntimeError(f"{kernel.py_func.__qualname__} ran before its cache was set")
            if type(kernel._cache).__name__ != "NullCache":
                kernel.enable_caching()
    finally:
        config.CACHE_DIR = saved
