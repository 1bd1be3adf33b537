"""The stable split of 8 entries by side, in vector instructions (for
``exact.partition._partition``).

numba has no vector intrinsics, so this emits LLVM IR directly: of 8 consecutive entries,
each two 8-byte words ((value, row) and (g, h), see ``exact.segments.new_segments``), look up
each row's side (0 left, 1 right), then write the left ones, in order, at one cursor and the right
ones at the other. LLVM's ``vector.compress`` packs the chosen lanes to the front of a vector
(one ``vpcompressq`` on AVX-512), and a masked store writes only those lanes, so nothing
outside the destination's entries is touched. On a processor without such instructions LLVM
expands the same IR into scalar code, with the same result but slower than the scalar
partition, so the grower uses this only where AVX-512 is there (``VECTOR_SPLIT``).

Against the scalar partition (a pass that looks every side up, then a move with two
cursors), one pass does both, eight entries a step.
"""

from __future__ import annotations

from llvmlite import binding, ir
from numba import types
from numba.core import config
from numba.extending import intrinsic

from . import LANES
from ._intrinsics import I8, function, item_ptr


def _target_has_avx512() -> bool:
    """Whether numba compiles for a processor with AVX-512F: the machine's own, unless
    NUMBA_CPU_NAME / NUMBA_CPU_FEATURES name another target."""
    if config.CPU_FEATURES is not None:
        return "+avx512f" in config.CPU_FEATURES.split(",")
    if config.CPU_NAME is not None and config.CPU_NAME != "host":
        return False  # a named target without its features: assume the plain one
    return bool(binding.get_host_cpu_features().get("avx512f", False))


VECTOR_SPLIT = _target_has_avx512()
_I1, _I32, _I64 = ir.IntType(1), ir.IntType(32), ir.IntType(64)
_WORDS = ir.VectorType(_I64, LANES)
_MASK = ir.VectorType(_I1, LANES)


def _popcount(builder, mask):
    bits = builder.zext(builder.bitcast(mask, I8), _I64)
    return builder.call(function(builder, "llvm.ctpop.i64", _I64, [_I64]), [bits])


def _store_packed(builder, words, mask, dest):
    """Write the lanes of ``words`` that ``mask`` selects, in lane order, from ``dest`` on
    (and nothing else)."""
    compress = function(builder, "llvm.experimental.vector.compress.v8i64", _WORDS,
                         [_WORDS, _MASK, _WORDS])
    packed = builder.call(compress, [words, mask, ir.Constant(_WORDS, ir.Undefined)])
    count = builder.insert_element(ir.Constant(_WORDS, ir.Undefined), _popcount(builder, mask),
                                   ir.Constant(_I32, 0))
    count = builder.shuffle_vector(count, ir.Constant(_WORDS, ir.Undefined),
                                   ir.Constant(ir.VectorType(_I32, LANES), [0] * LANES))
    first = builder.icmp_unsigned("<", ir.Constant(_WORDS, list(range(LANES))), count)
    store = function(builder, "llvm.masked.store.v8i64.p0", ir.VoidType(),
                      [_WORDS, _WORDS.as_pointer(), _I32, _MASK])
    builder.call(store, [packed, builder.bitcast(dest, _WORDS.as_pointer()),
                         ir.Constant(_I32, 8), first])


@intrinsic
def split8(typingctx, vr_in, gh_in, side, vr_left, gh_left, vr_right, gh_right, k, left_at,
           right_at):
    """Entries ``k .. k+7`` of ``vr_in``/``gh_in`` (int64 arrays; a (value, row) word has
    the row in its high 32 bits), split by their row's ``side``: those with side 0 to
    ``vr_left``/``gh_left`` from ``left_at`` on, the others to ``vr_right``/``gh_right``
    from ``right_at`` on, each in their order. The eight are read before anything is
    written, so the left ones may go to the input itself at or below k. Returns how many
    went right."""
    sig = types.int64(vr_in, gh_in, side, vr_left, gh_left, vr_right, gh_right, k, left_at,
                      right_at)

    def codegen(context, builder, signature, args):
        vr_t, gh_t, side_t = signature.args[:3]
        vr_a, gh_a, side_a = args[:3]
        k_v, left_v, right_v = args[7:]
        src = item_ptr(context, builder, vr_t, vr_a, k_v)
        words = builder.load(builder.bitcast(src, _WORDS.as_pointer()), align=8)
        ghs = builder.load(builder.bitcast(item_ptr(context, builder, gh_t, gh_a, k_v),
                                           _WORDS.as_pointer()), align=8)
        # The sides: eight scalar loads (a vector gather is slower here), one bit each.
        rows = builder.bitcast(src, _I32.as_pointer())
        side_base = item_ptr(context, builder, side_t, side_a, ir.Constant(_I64, 0))
        bits = ir.Constant(I8, 0)
        for lane in range(LANES):
            row = builder.load(builder.gep(rows, [ir.Constant(_I64, 2 * lane + 1)]), align=4)
            bit = builder.load(builder.gep(side_base, [builder.zext(row, _I64)]), align=1)
            bits = builder.or_(bits, builder.shl(bit, ir.Constant(I8, lane)))
        right = builder.bitcast(bits, _MASK)
        left = builder.xor(right, ir.Constant(_MASK, [1] * LANES))
        for i, vec in ((3, words), (4, ghs)):
            for j, mask, at in ((i, left, left_v), (i + 2, right, right_v)):
                dest = item_ptr(context, builder, signature.args[j], args[j], at)
                _store_packed(builder, vec, mask, dest)
        return _popcount(builder, right)

    return sig, codegen
