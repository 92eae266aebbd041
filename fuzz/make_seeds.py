#!/usr/bin/env python3
"""make_seeds.py: writes fuzz/corpus/seed-*, the seed inputs of ncl_fuzz.

Each seed is a short program in the byte language that fuzz/ncl_fuzz.c
decodes (one opcode byte, then what that opcode reads); the helpers below
spell the same layout, so a change to the decoder is a change here too.
Together the seeds reach every subsystem, every kind of view, the hostile
shapes, hooks of both levels and the error modes, which gives libFuzzer a
corpus to mutate from instead of having to find the opcodes itself.

Usage: python3 fuzz/make_seeds.py [output directory]   (default: fuzz/corpus)
Reproducers of bugs found by fuzzing live beside the seeds as repro-*; this
script never touches them.
"""
import os
import struct
import sys

# dtype numbers of the contract
BOOL, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64 = range(11)
# subsystem selectors of op_call (opcode 8 + which)
CONVERT, COMPARE, ISUNARY, UNARY, BINARY, TERNARY, REDUCE, SORT, MASK = range(9)
NULL_SLOT = 255


def wrap(dtype, shape, strides=None, offset=0, writeable=True):
    """op_wrap: an array over the pool; strides None = C order (explicit)."""
    b = bytes([0, dtype, len(shape), 1 if writeable else 0])
    b += bytes(shape)
    if strides is None:
        b += bytes([3] * len(shape))  # kind 3: C order from this axis down
    else:
        for kind, arg in strides:
            b += bytes([kind]) + (bytes([arg & 0xFF]) if kind in (1, 2) else b"")
    return b + struct.pack("<H", offset)


def params(where=None, dtype=None, casting=None, axes=None, keepdims=None, initial=None,
           kind=None, kth=None, size=None):
    flags = 0
    body = b""
    if where is not None:
        flags |= 1
        body += bytes([where])
    if dtype is not None:
        flags |= 2
        body += bytes([dtype & 0xFF])
    if casting is not None:
        flags |= 4
        body += bytes([casting + 1])
    if axes is not None:
        flags |= 8
        # the decoder reads (int8)byte % 6, and bytes from 250 up as INT32 edges
        body += bytes([len(axes)]) + bytes((a if a >= 0 else a - 6) & 0xFF for a in axes) + bytes([0, 0])
    if keepdims is not None:
        flags |= 16
        body += bytes([keepdims])
    if initial is not None:
        flags |= 32
        body += initial.ljust(16, b"\0")[:16]
    if kind is not None or kth is not None:
        flags |= 64
        body += bytes([(kind or 0) + 1, 0, (kth or 0) & 0xFF])
    if size is not None:
        flags |= 128
        body += bytes([size])
    return bytes([flags]) + body


def call(which, op, a=0, b=1, c=2, out=None, p=None, null_params=False):
    """op_call: out None = allocate, else a slot index the result goes into."""
    o = 0 if out is None else 128 + out
    return (bytes([8 + which, a, b, c, o, op, 0]) + (p if p is not None else params())
            + bytes([3 if null_params else 0]))


def hostile(kind, via=0):
    return (bytes([2, kind, 1, 1, 1, 1, 1]) + (b"\0" if kind < 4 else b"") + bytes([via])
            + (b"\0" if via == 1 else b""))


def create(op, dtype=F64, ndim=1, shape=(4, 1, 1, 1), order=0, value=b"\0" * 8,
           start=1, stop=6, step=1, num=10, endpoint=2, k=0, src=0):
    # reals table indices: 0:0 1:1 2:-1 3:2.5 4:-3.25 5:7 6:100 7:1e300
    # 8:-1e300 9:inf 10:-inf 11:nan 12:0.1 13:1e-300 14:1024 15:-0.0
    b = bytes([3, op, dtype & 0xFF, ndim])
    for s in shape:
        b += bytes([s, 0])
    b += bytes([order]) + value.ljust(8, b"\0")[:8] + bytes([1])
    b += bytes([start, stop, step])
    b += bytes([0, num + 2])  # num: small path
    b += bytes([endpoint, 0, k & 0xFF]) + bytes([src, 0])
    return b


def view(kind, slot, body):
    return bytes([4, slot, kind]) + body


def hook(what, sub, j=0, extra=b""):
    return bytes([6, what, sub, j]) + extra


def misc(kind, body=b""):
    return bytes([7, kind]) + body


F64_DATA = struct.pack("<8d", 1.5, -2.0, 3.25, float("nan"), 0.0, -0.0, float("inf"), 7.0)


def seeds():
    s = {}
    two_f64 = wrap(F64, [4]) + wrap(F64, [4], offset=32)
    s["binary_add"] = two_f64 + call(BINARY, 0)
    s["binary_ops_int"] = (wrap(I32, [3, 2]) + wrap(I32, [2]) + call(BINARY, 4) + call(BINARY, 5)
                           + call(BINARY, 18) + call(BINARY, 7))
    s["binary_inplace"] = two_f64 + call(BINARY, 2, a=0, b=1, out=0)
    s["binary_overlap"] = (wrap(F64, [8]) + wrap(F64, [8], offset=8)
                           + call(BINARY, 0, a=0, b=1, out=1))
    s["binary_where"] = (two_f64 + wrap(BOOL, [4], offset=64)
                         + call(BINARY, 1, out=0, p=params(where=2)))
    s["binary_casting"] = (wrap(I64, [4]) + wrap(F32, [4]) + wrap(I16, [4], offset=100)
                           + call(BINARY, 0, out=2, p=params(casting=0))
                           + call(BINARY, 0, out=2, p=params(casting=4, dtype=F32)))
    s["binary_strided"] = (wrap(F32, [3, 4], strides=[(1, 8), (1, -1)], offset=200)
                           + wrap(F32, [4], strides=[(0, 0)]) + call(BINARY, 9))
    s["binary_misaligned"] = (wrap(F64, [5], strides=[(2, 3)], offset=1)
                              + wrap(F64, [5], offset=3) + call(BINARY, 3))
    s["compare"] = (wrap(I64, [4]) + wrap(U64, [4], offset=40) + call(COMPARE, 0)
                    + call(COMPARE, 2) + wrap(F64, [1]) + call(COMPARE, 5, a=0, b=2))
    s["isunary"] = wrap(F64, [8]) + call(ISUNARY, 0) + call(ISUNARY, 3)
    s["unary"] = (wrap(F64, [8]) + call(UNARY, 6) + call(UNARY, 11) + wrap(I8, [6], offset=9)
                  + call(UNARY, 31, a=1) + call(UNARY, 2, a=1, out=1))
    s["unary_fast"] = misc(2, b"\x01") + wrap(F32, [16]) + call(UNARY, 8) + call(UNARY, 15)
    s["convert_astype"] = (wrap(F64, [2, 3]) + call(CONVERT, 0, p=params(dtype=I8, casting=4))
                           + call(CONVERT, 0, p=params(dtype=I8)))
    s["convert_copyto"] = (wrap(I32, [4]) + wrap(F32, [2, 4], offset=64)
                           + call(CONVERT, 1, a=0, out=1, p=params(casting=4)))
    s["ternary"] = (wrap(BOOL, [4]) + wrap(F64, [4], offset=16) + wrap(F64, [1], offset=80)
                    + call(TERNARY, 0) + call(TERNARY, 1, a=1, b=2, c=1) + call(TERNARY, 2, a=1, b=1, c=2))
    s["reduce_axes"] = (wrap(F64, [3, 4]) + call(REDUCE, 0, p=params(axes=[1], keepdims=1))
                        + call(REDUCE, 8, p=params(axes=[0, -1]))
                        + call(REDUCE, 6, p=params(axes=[1])))
    s["reduce_where_initial"] = (wrap(I32, [2, 3]) + wrap(BOOL, [3], offset=50)
                                 + call(REDUCE, 2, p=params(where=1, initial=struct.pack("<i", 5)))
                                 + call(REDUCE, 3, p=params(where=1)))
    s["reduce_cum"] = (wrap(U8, [5]) + call(REDUCE, 10) + call(REDUCE, 11, p=params(dtype=F32))
                       + call(REDUCE, 9) + call(REDUCE, 4) + call(REDUCE, 5))
    s["reduce_bad_axes"] = (wrap(F32, [2, 2]) + call(REDUCE, 0, p=params(axes=[0, 0]))
                            + call(REDUCE, 0, p=params(axes=[5])) + call(REDUCE, 6, p=params(axes=[0, 1])))
    s["sort"] = (wrap(F64, [2, 4]) + call(SORT, 0) + call(SORT, 1, p=params(kind=1))
                 + call(SORT, 2, p=params(kth=2)) + call(SORT, 3, p=params(axes=[0], kth=1)))
    s["sort_bad"] = (wrap(I16, [6]) + call(SORT, 2, p=params(kth=8))
                     + call(SORT, 0, p=params(axes=[0, 0])) + call(SORT, 0, p=params(kind=2)))
    s["mask_compress"] = wrap(F32, [4]) + wrap(BOOL, [4], offset=20) + call(MASK, 0)
    s["mask_put"] = (wrap(BOOL, [4]) + wrap(I64, [1], offset=40) + wrap(I64, [4], offset=64)
                     + call(MASK, 1, a=0, b=1, out=2))
    s["mask_nonzero_take"] = (wrap(I8, [2, 3]) + wrap(I64, [2], offset=30) + call(MASK, 2, b=NULL_SLOT)
                              + call(MASK, 3, a=0, b=1, p=params(axes=[1])))
    s["hostile_shapes"] = b"".join(hostile(k, v) for k in range(6) for v in range(3))
    s["huge_zero_stride"] = (bytes([5, 40, 1, 1, F64])
                             + view(0, 0, bytes([0, 0, 0, 5, 0, 1, 255, 0, 0, 0, 2, 0, 1, 255, 7]))
                             + call(UNARY, 0, a=1))
    s["create"] = b"".join(create(op) for op in range(8)) + create(4, start=0, stop=14, step=12)
    s["create_hostile"] = (create(4, start=1, stop=9, step=0) + create(4, start=11, stop=1, step=1)
                           + create(5, num=255 - 2) + create(6, ndim=2, k=250)
                           + create(3, dtype=I8, value=b"\x7f") + create(8))
    s["views"] = (wrap(I32, [3, 4])
                  + view(0, 0, bytes([0, 0, 0, 2, 0, 1, 255, 0, 0, 0, 4, 0, 2, 255, 7]))
                  + view(1, 0, bytes([1, 40])) + view(2, 0, bytes([2, 5, 0, 0]))
                  + view(3, 0, bytes([3, 2, 3, 4, 0])) + view(4, 1, b"") + call(BINARY, 0, a=1, b=2))
    s["views_bad"] = (wrap(F64, [2, 3]) + view(1, 0, bytes([0, 5, 9])) + view(2, 0, bytes([2, 5, 5, 17]))
                      + view(3, 0, bytes([1, 4, 0]))
                      + view(0, 0, bytes([0, 0, 0, 0, 0, 0, 255]) * 2 + bytes([4])))
    s["hooks_l1"] = (two_f64 + hook(0, 5) + hook(1, 5, 1, bytes([1, 0])) + call(BINARY, 0)
                     + hook(4, 5) + call(BINARY, 0) + hook(2, 5, 1) + call(BINARY, 0))
    s["hooks_all"] = (wrap(F64, [4]) + b"".join(hook(0, sub) for sub in range(13))
                      + call(UNARY, 0) + call(REDUCE, 0) + call(SORT, 0) + misc(5, b"\x00\x40")
                      + hook(7, 0))
    s["hooks_l2"] = (two_f64 + hook(5, 0, 0, bytes([0, 0, 2, 0x80, 9, 9, 9, 9])) + call(BINARY, 0)
                     + hook(6, 0, 0, bytes([0, 2])) + call(BINARY, 0) + call(BINARY, 0))
    s["hooks_l2_deferred"] = (two_f64 + hook(5, 0, 1, bytes([1, 0, 2, 0x80, 9, 9, 9, 9]))
                              + call(BINARY, 0) + hook(6, 0, 1, bytes([1, 1])) + call(BINARY, 0))
    s["errmode"] = (misc(0, bytes([15, 1])) + wrap(F64, [4]) + wrap(F64, [4], offset=32)
                    + call(BINARY, 3) + misc(0, bytes([15, 2])) + misc(1, b"\x01") + call(UNARY, 11))
    # RAISE for INVALID, then a copy to int32 of [nan, 0, -0, inf] (F64_DATA[3:7],
    # appended below): refused, and the copy it made released
    head, tail = misc(0, bytes([8, 1])), create(7, dtype=I32, src=0)
    nan_at = len(head) + len(wrap(F64, [4])) + len(tail) + 3 * 8
    s["create_copy_raise"] = head + wrap(F64, [4], offset=nan_at) + tail
    s["ledger_info"] = (misc(3, b"\x01") + wrap(I64, [4]) + call(UNARY, 0) + misc(4, b"\x40")
                        + misc(4, b"\x00") + misc(5, b"\x10\x00") + misc(3, b"\x00"))
    s["params_size"] = (two_f64 + call(BINARY, 0, p=params(size=0)) + call(BINARY, 0, p=params(size=1))
                        + call(BINARY, 0, null_params=True))
    s["null_operands"] = (wrap(F64, [2]) + call(BINARY, 0, a=NULL_SLOT) + call(UNARY, 0, a=NULL_SLOT)
                          + call(MASK, 0, a=0, b=NULL_SLOT))
    s["zero_dim"] = (bytes([0, F64, 0, 1]) + struct.pack("<H", 8) + wrap(F64, [0, 3])
                     + call(BINARY, 0) + call(REDUCE, 2) + call(REDUCE, 0) + call(SORT, 0, a=1))
    for name in list(s):
        s[name] = s[name] + F64_DATA
    return s


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        if f.startswith("seed-"):
            os.remove(os.path.join(out, f))
    for name, data in sorted(seeds().items()):
        with open(os.path.join(out, "seed-" + name), "wb") as f:
            f.write(data)
    print(f"{len(seeds())} seeds in {out}")


if __name__ == "__main__":
    main()
