"""What the numba intrinsics (``prefetch``, ``compress``, ``pair_sums``) share:
a pointer to an array element and a declared LLVM function, in numba's code generation."""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils

I8 = ir.IntType(8)


def item_ptr(context, builder, array_type, array, index):
    """An i8* to ``array.ravel()[index]`` of a C-contiguous array."""
    ary = context.make_array(array_type)(context, builder, array)
    flat = builder.bitcast(ary.data, I8.as_pointer())
    item = context.get_abi_sizeof(context.get_data_type(array_type.dtype))
    return builder.gep(flat, [builder.mul(index, ir.Constant(index.type, item))])


def function(builder, name, ret, args):
    """The LLVM function ``name`` (an intrinsic), declared in the module being built."""
    return cgutils.get_or_insert_function(builder.module, ir.FunctionType(ret, args), name)
