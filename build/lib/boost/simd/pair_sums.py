"""Two features' strip sums in one vector (for ``exact.splitting._sum_strips_pair``; ``portable``
has the same in plain numba).

A first pass adds up, entry by entry, the g and h of a strip of each of two segments: four
float64 chains (G and H of each), and keeps the least and largest G. Written as scalar code,
each entry costs a conversion from float32, an addition, a min and a max per chain, and the
core runs out of floating-point ports before the chains' latency binds. Here the four
chains are the four lanes of one vector: an entry of each segment is loaded as two float32
pairs, widened together, added with one instruction, and the min and max follow on the
whole vector (the H lanes' are not used). Each lane performs the same float64 additions in
the same order as the scalar code, so the sums are identical. numba has no vector types,
so the loop is emitted as LLVM IR.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from . import IO_HHI, IO_HI, IO_LO, IO_SUMS
from ._intrinsics import item_ptr

_F32, _F64, _I32, _I64 = ir.FloatType(), ir.DoubleType(), ir.IntType(32), ir.IntType(64)
_PAIR = ir.VectorType(_F32, 2)
_QUAD = ir.VectorType(_F64, 4)


def _entry(context, builder, gf_type, gf, k):
    """Entry k's (g, h) of an (n, 2) float32 array as a <2 x float>."""
    ptr = item_ptr(context, builder, gf_type, gf, builder.mul(k, ir.Constant(_I64, 2)))
    return builder.load(builder.bitcast(ptr, _PAIR.as_pointer()), align=4)


@intrinsic
def pair_strip(typingctx, gf, first1, first2, step, width, io):
    """One full strip of ``width`` entries of each of two segments of ``gf`` ((n, 2)
    float32 (g, h)), from ``first1`` and ``first2`` by ``step`` (+-1): ``io[0:4]`` holds
    the running sums [G1, H1, G2, H2] before the strip and gets them after it; ``io[4:6]``
    gets the least G of each before any of its entries, ``io[6:8]`` the largest, ``io[8:10]``
    H before its last entry (``exact.splitting._sum_strips``' strip statistics)."""
    sig = types.void(gf, first1, first2, step, width, io)

    def codegen(context, builder, signature, args):
        gf_t, _, _, _, _, io_t = signature.args
        gf_a, first1_v, first2_v, step_v, width_v, io_a = args
        io_ptr = builder.bitcast(item_ptr(context, builder, io_t, io_a, ir.Constant(_I64, 0)),
                                 _F64.as_pointer())

        def io_load(i):
            return builder.load(builder.gep(io_ptr, [ir.Constant(_I64, i)]))

        def io_store(i, value):
            builder.store(value, builder.gep(io_ptr, [ir.Constant(_I64, i)]))

        def quad_at(i):
            k1 = builder.add(first1_v, builder.mul(step_v, i))
            k2 = builder.add(first2_v, builder.mul(step_v, i))
            both = builder.shuffle_vector(_entry(context, builder, gf_t, gf_a, k1),
                                          _entry(context, builder, gf_t, gf_a, k2),
                                          ir.Constant(ir.VectorType(_I32, 4), [0, 1, 2, 3]))
            return builder.fpext(both, _QUAD)

        sums = ir.Constant(_QUAD, ir.Undefined)
        for lane in range(4):
            sums = builder.insert_element(sums, io_load(IO_SUMS + lane),
                                          ir.Constant(_I32, lane))
        acc = cgutils.alloca_once_value(builder, sums)
        lo = cgutils.alloca_once_value(builder, sums)
        hi = cgutils.alloca_once_value(builder, sums)
        last = builder.sub(width_v, ir.Constant(_I64, 1))
        with cgutils.for_range(builder, last) as loop:
            now = builder.fadd(builder.load(acc), quad_at(loop.index))
            builder.store(now, acc)
            low = builder.load(lo)
            builder.store(builder.select(builder.fcmp_ordered("<", now, low), now, low), lo)
            high = builder.load(hi)
            builder.store(builder.select(builder.fcmp_ordered(">", now, high), now, high), hi)
        before_last = builder.load(acc)
        after = builder.fadd(before_last, quad_at(last))
        low = builder.load(lo)
        high = builder.load(hi)
        for lane in range(4):
            io_store(IO_SUMS + lane, builder.extract_element(after, ir.Constant(_I32, lane)))
        for j, lane in enumerate((0, 2)):  # the G lanes
            io_store(IO_LO + j, builder.extract_element(low, ir.Constant(_I32, lane)))
            io_store(IO_HI + j, builder.extract_element(high, ir.Constant(_I32, lane)))
            io_store(IO_HHI + j, builder.extract_element(before_last,
                                                         ir.Constant(_I32, lane + 1)))
        return context.get_dummy_value()

    return sig, codegen
