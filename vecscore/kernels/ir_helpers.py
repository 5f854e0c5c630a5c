"""The kernels' pieces written in LLVM IR (numba intrinsics): imported only where numba compiles kernels.

The kernel modules name these through :func:`vecscore._jit.ir_helper`, so that importing a kernel module, and
calling kernels from a built module (:mod:`vecscore.built`), never imports numba or llvmlite; numba's
activation (:func:`vecscore._jit.activate`) and a build put the objects defined here in their place.  Each has
a twin written as a plain loop or in plain Python in the module that uses it (the fast path off, or
``NUMBA_DISABLE_JIT``), which the tests compare it with.
"""
from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

__all__ = ["voidptr", "range_bits", "load_word", "prefetch", "pair_eq_bits32", "pair_eq_bits64", "fetch_add",
           "group_gp", "group_add_gp", "bitcast_float", "bitcast_bits", "borrow"]


# ---------------------------------------------------------------------------
# Memory by address, byte classes 64 at a time, the work counter (vecscore.kernels.swar)


@intrinsic
def voidptr(typingctx, addr):
    """The int64 ``addr`` as a ``void *`` (for :func:`numba.carray`)."""
    sig = types.voidptr(types.int64)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return sig, codegen


def _splat(builder, vec, x):
    """LLVM IR: the vector of type ``vec`` with ``x`` in every lane."""
    one = builder.insert_element(ir.Constant(vec, ir.Undefined), x, ir.Constant(ir.IntType(32), 0))
    zeros = ir.Constant(ir.VectorType(ir.IntType(32), vec.count), [0] * vec.count)
    return builder.shuffle_vector(one, ir.Constant(vec, ir.Undefined), zeros)


@intrinsic
def range_bits(typingctx, addr, lo, hi):
    sig = types.uint64(types.int64, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        i8 = ir.IntType(8)
        vec = ir.VectorType(i8, 64)
        block = builder.load(builder.inttoptr(args[0], vec.as_pointer()), align=1)
        lo = _splat(builder, vec, builder.trunc(args[1], i8))
        span = _splat(builder, vec, builder.trunc(builder.sub(args[2], args[1]), i8))
        inside = builder.icmp_unsigned("<=", builder.sub(block, lo), span)
        return builder.bitcast(inside, ir.IntType(64))

    return sig, codegen


@intrinsic
def load_word(typingctx, addr):
    sig = types.uint64(types.int64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        return builder.load(builder.inttoptr(args[0], i64.as_pointer()), align=1)

    return sig, codegen


@intrinsic
def prefetch(typingctx, addr):
    sig = types.void(types.int64)

    def codegen(context, builder, signature, args):
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [builder.inttoptr(args[0], i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


def _pair_eq_codegen(width):
    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        vec = ir.VectorType(i64, width)
        wa = builder.load(builder.inttoptr(args[0], vec.as_pointer()), align=8)
        wb = builder.load(builder.inttoptr(args[1], vec.as_pointer()), align=8)
        eq_a = builder.icmp_signed("==", wa, _splat(builder, vec, args[2]))
        both = builder.and_(eq_a, builder.icmp_signed("==", wb, _splat(builder, vec, args[3])))
        bits = builder.bitcast(both, ir.IntType(width))
        return builder.zext(bits, i64) if width < 64 else bits

    return codegen


@intrinsic
def pair_eq_bits32(typingctx, addr_a, addr_b, a, b):
    return types.uint64(types.int64, types.int64, types.int64, types.int64), _pair_eq_codegen(32)


@intrinsic
def pair_eq_bits64(typingctx, addr_a, addr_b, a, b):
    return types.uint64(types.int64, types.int64, types.int64, types.int64), _pair_eq_codegen(64)


@intrinsic
def fetch_add(typingctx, addr, value):
    """Atomically add ``value`` to the int64 at ``addr``; the value before."""
    sig = types.int64(types.int64, types.int64)

    def codegen(context, builder, signature, args):
        ptr = builder.inttoptr(args[0], ir.IntType(64).as_pointer())
        return builder.atomic_rmw("add", ptr, args[1], "monotonic")

    return sig, codegen


# ---------------------------------------------------------------------------
# The bit-parallel LCS, 8 words at a time (vecscore.kernels.lcs)


def _vec8(builder, addr):
    vec = ir.VectorType(ir.IntType(64), 8)
    return builder.load(builder.inttoptr(addr, vec.as_pointer()), align=8)


_ONES8 = [0xFFFFFFFFFFFFFFFF] * 8


def _gp_bits(builder, v, m):
    """IR: the generate (bits 0-7) and propagate (bits 8-15) bits of ``v + (v & m)``, 8 words."""
    i64 = ir.IntType(64)
    s = builder.add(v, builder.and_(v, m))
    ones = ir.Constant(ir.VectorType(i64, 8), _ONES8)
    g = builder.zext(builder.bitcast(builder.icmp_unsigned("<", s, v), ir.IntType(8)), i64)
    p = builder.zext(builder.bitcast(builder.icmp_unsigned("==", s, ones), ir.IntType(8)), i64)
    return builder.or_(g, builder.shl(p, i64(8)))


@intrinsic
def group_gp(typingctx, vaddr, maddr):
    sig = types.uint64(types.int64, types.int64)

    def codegen(context, builder, signature, args):
        return _gp_bits(builder, _vec8(builder, args[0]), _vec8(builder, args[1]))

    return sig, codegen


@intrinsic
def group_add_gp(typingctx, vaddr, maddr, carries, naddr):
    sig = types.uint64(types.int64, types.int64, types.uint64, types.int64)

    def codegen(context, builder, signature, args):
        vec = ir.VectorType(ir.IntType(64), 8)
        v = _vec8(builder, args[0])
        u = builder.and_(v, _vec8(builder, args[1]))
        bits = builder.bitcast(builder.trunc(args[2], ir.IntType(8)), ir.VectorType(ir.IntType(1), 8))
        out = builder.or_(builder.add(builder.add(v, u), builder.zext(bits, vec)),
                          builder.and_(v, builder.xor(u, ir.Constant(vec, _ONES8))))
        builder.store(out, builder.inttoptr(args[0], vec.as_pointer()), align=8)
        return _gp_bits(builder, out, _vec8(builder, args[3]))

    return sig, codegen


# ---------------------------------------------------------------------------
# Float bits (vecscore.kernels.wlcs)


@intrinsic
def bitcast_float(typingctx, bits):
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


@intrinsic
def bitcast_bits(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(types.float64), codegen




# ---------------------------------------------------------------------------
# Arrays without reference counting (the per-pair kernels)


@intrinsic
def borrow(typingctx, arr):
    """``arr`` itself with no owner (``meminfo`` and ``parent`` null): views taken of it and arrays passed on
    from it are not reference-counted, which removes the atomic increments and decrements numba otherwise
    makes for every per-pair view.  Only for arrays the caller keeps alive for the whole call, that the kernel
    neither returns nor stores."""
    if not isinstance(arr, types.Array):
        return None
    sig = arr(arr)

    def codegen(context, builder, signature, args):
        src = context.make_array(signature.args[0])(context, builder, value=args[0])
        out = context.make_array(signature.return_type)(context, builder)
        for name in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(out, name, getattr(src, name))
        out.meminfo = cgutils.get_null_value(out.meminfo.type)
        out.parent = cgutils.get_null_value(out.parent.type)
        return out._getvalue()

    return sig, codegen
