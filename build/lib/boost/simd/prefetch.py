"""A memory prefetch hint for numba kernels (LLVM's ``llvm.prefetch``).

The histogram build and the partition read the rows of a node through their row ids: in
ascending order, but far apart once a node holds a small share of the rows, so every row is a
cache miss the hardware prefetcher does not foresee (it stops at page boundaries). Asking for
the row a few iterations ahead hides that latency, as XGBoost's own kernels do. A prefetch
never faults and changes no result, only timing.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ._intrinsics import I8, function, item_ptr

_READ, _LOCALITY_HIGH, _DATA_CACHE = 0, 3, 1


@intrinsic
def prefetch(typingctx, array, index):
    """Hint that ``array.ravel()[index]`` (a C-contiguous array) will be read soon."""
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        ptr = item_ptr(context, builder, signature.args[0], args[0], args[1])
        i32 = ir.IntType(32)
        fn = function(builder, "llvm.prefetch.p0", ir.VoidType(), [I8.as_pointer(), i32, i32, i32])
        builder.call(fn, [ptr, ir.Constant(i32, _READ), ir.Constant(i32, _LOCALITY_HIGH),
                          ir.Constant(i32, _DATA_CACHE)])
        return context.get_dummy_value()

    return sig, codegen
