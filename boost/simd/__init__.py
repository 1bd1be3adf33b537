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

from numba.core import config

ENABLED = os.environ.get("BOOST_SIMD", "1").strip() != "0" and not config.DISABLE_JIT

LANES = 8  # entries ``split8`` splits per call
# io[...] of ``pair_strip``: [G1, H1, G2, H2], [lo1, lo2], [hi1, hi2], [H1, H2] before the last
IO_SUMS, IO_LO, IO_HI, IO_HHI = 0, 4, 6, 8

if not ENABLED and not config.DISABLE_JIT:
    # numba's on-disk cache is keyed by each kernel's own source file, not by the kernels it
    # inlined: a kernel cached with the LLVM versions inside would be loaded as is. So the
    # portable build keeps its machine code in a directory of its own.
    _default = os.path.join(os.path.dirname(os.path.dirname(__file__)), "__pycache__")
    config.CACHE_DIR = os.path.join(config.CACHE_DIR or _default, "portable")

if ENABLED:
    from .compress import VECTOR_SPLIT, split8
    from .pair_sums import pair_strip
    from .prefetch import prefetch
else:
    from .portable import pair_strip, prefetch, split8

    VECTOR_SPLIT = False

__all__ = ["ENABLED", "IO_HHI", "IO_HI", "IO_LO", "IO_SUMS", "LANES", "VECTOR_SPLIT",
           "pair_strip", "prefetch", "split8"]
