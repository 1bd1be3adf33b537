"""The engine on a fresh machine: plain Python for small data while the kernels compile.

numba compiles each kernel the first time it runs and keeps the machine code on disk
(``cache=True``); with an empty cache that takes minutes, and a server that has just started
would keep its first visitor waiting. ``python_engine()`` is this package imported a second
time with numba's JIT off while its modules load, so every kernel in it is the plain Python
function it was written as: the same code, so the same trees and margins, bit for bit
(``NUMBA_DISABLE_JIT=1`` runs the engine the same way). It answers small data at once while
``warmup(processes=n)`` compiles the real kernels in worker processes; ``fits_python``
says which data is small enough, and which objectives compute the same in both forms.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import threading
import warnings
from pathlib import Path
from types import ModuleType

import numba

# The plain-Python engine trains about 7,000 (row x feature x round) cells a second on the
# project's 2-core machine (exact or hist, depth up to 6: 300 rows x 2 features in 1.6-1.8 s
# for 20 rounds). Above this many cells it would take longer than waiting for the compile.
PYTHON_CELLS = 12_000
# Objectives whose arithmetic is the same in both forms: + - * / and square roots round the
# same in float32 whichever form computes them. exp and log do not: compiled, they are
# libm's float32 functions; as Python, float64 rounded to float32, which differs in the
# last bit for about 1 input in 1,600 (measured over 20 million: 12,482 for exp). So the
# logistic, softmax, Poisson, gamma, Tweedie and exponential losses wait for the compile.
PYTHON_OBJECTIVES = frozenset({"reg:squarederror", "reg:absoluteerror", "reg:pseudohubererror"})

_NAME = (__package__ or "boost") + "_python"
_LOCK = threading.Lock()


def fits_python(objective: str, n_rows: int, n_features: int, num_boost_round: int) -> bool:
    """Whether the plain-Python engine trains this bit-equal to the compiled one and within
    a couple of seconds."""
    return (objective in PYTHON_OBJECTIVES
            and n_rows * max(n_features, 1) * max(num_boost_round, 1) <= PYTHON_CELLS)


def python_engine() -> ModuleType:
    """This package as plain Python: ``python_engine().train(...)`` is ``train`` with no
    compiled kernel, giving the compiled engine's numbers bit for bit. Imported once."""
    with _LOCK:
        twin = sys.modules.get(_NAME)
        if twin is None:
            twin = _import_without_jit()
    return twin


def _import_without_jit() -> ModuleType:
    here = Path(__file__).resolve().parent
    spec = importlib.util.spec_from_file_location(_NAME, here / "__init__.py",
                                                  submodule_search_locations=[str(here)])
    twin = importlib.util.module_from_spec(spec)
    sys.modules[_NAME] = twin
    jit_off = numba.config.DISABLE_JIT
    numba.config.DISABLE_JIT = True  # read by numba's decorators (and simd) at import only
    try:
        spec.loader.exec_module(twin)
    except BaseException:
        for name in [m for m in sys.modules if m == _NAME or m.startswith(_NAME + ".")]:
            del sys.modules[name]
        raise
    finally:
        numba.config.DISABLE_JIT = jit_off
    # numpy warns of what the kernels do on purpose (uint64 hashes that wrap, a 0/0 gain
    # that is then refused); compiled, nothing warns.
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=re.escape(_NAME) + r"\.")
    return twin
