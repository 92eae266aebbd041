"""diff_two_outputs.py: the ops of two outputs against NumPy: frexp and modf
through NclUnaryN, divmod through NclBinaryN, over every dtype (divmod: all
121 dtype pairs): both results' dtypes (NumPy's, float16 read as float32;
frexp's exponent is int32), their values bit for bit (zeros by sign, NaN as
NaN), NCL_ERR_DTYPE where NumPy has no loop, on edge values and on random
broadcast shapes in random memory layouts, with the outputs allocated or
provided (in random layouts, any dtype the result casts to safely).

    python3 tests/diff/diff_two_outputs.py --lib build/libncl.so [--seed N] [--rounds N]
"""

import ctypes
import sys

import numpy as np

import ncl_diff as nd

# The ops of two outputs follow the one-output ops in each enum.
UNARY = {'frexp': len(nd.UNARY_OPS), 'modf': len(nd.UNARY_OPS) + 1}
BINARY = {'divmod': len(nd.BINARY_OPS)}


def oracle(name, inputs):
    """NumPy's two results, float16 ones computed in float32 instead, or the
    status NCLib must return."""
    f = getattr(np, name)
    shape = np.broadcast_shapes(*[np.shape(x) for x in inputs])
    inputs = [nd.no_value_based(x) for x in inputs]
    try:
        r = nd.quiet(f, *inputs)
    except TypeError:
        return nd.DTYPE, None
    if r[0].dtype == nd.F16:
        r = nd.quiet(f, *[x.astype(nd.F32) for x in inputs])
    return nd.OK, [np.asarray(v).reshape(shape) for v in r]


def same(got, want):
    """None when got equals want bit for bit but for NaN payloads."""
    if got.dtype != want.dtype:
        return 'dtype %s, expected %s' % (got.dtype, want.dtype)
    if got.shape != want.shape:
        return 'shape %s, expected %s' % (got.shape, want.shape)
    g, w = got.ravel(), want.ravel()
    if w.dtype.kind == 'f':
        bad = ~((g == w) & (np.signbit(g) == np.signbit(w)) | (np.isnan(g) & np.isnan(w)))
    else:
        bad = g != w
    if not bad.any():
        return None
    i = np.flatnonzero(bad)
    return '%d of %d differ ([%d] got %r expected %r)' % (i.size, g.size, i[0], g[i[0]].item(),
                                                         w[i[0]].item())


class TwoOutCase:
    def __init__(self, name, inputs, provide, rng, note=''):
        self.name, self.inputs, self.note = name, inputs, note
        self.status, self.want = oracle(name, inputs)
        self.outs = [None, None]
        if self.status == nd.OK:
            for k in range(2):
                if provide[k]:
                    w = self.want[k]
                    dt = w.dtype
                    # sometimes a wider dtype the result casts to safely
                    if dt.kind == 'f' and dt.itemsize == 4 and rng.random() < 0.3:
                        dt = nd.F64
                    elif dt.kind in 'iu' and dt.itemsize < 8 and rng.random() < 0.3:
                        dt = np.dtype(dt.kind + '8')
                    lay = nd.LAYOUTS[int(rng.integers(0, len(nd.LAYOUTS)))]
                    self.outs[k] = nd.place(np.zeros(w.shape, dt), lay)

    def title(self):
        return '%s(%s)%s%s' % (self.name, ', '.join(nd.describe(x) for x in self.inputs),
                               ' out=(%s)' % ', '.join('given' if o is not None else 'new'
                                                        for o in self.outs),
                               ' [%s]' % self.note if self.note else '')

    def run(self, ncl):
        lib = ncl.lib
        if not getattr(lib.NclUnaryN, 'argtypes', None):
            vp, i32 = ctypes.c_void_p, ctypes.c_int
            lib.NclUnaryN.argtypes = [i32, vp, i32, ctypes.POINTER(vp), vp]
            lib.NclBinaryN.argtypes = [i32, vp, vp, i32, ctypes.POINTER(vp), vp]
        hs = [ncl.wrap(np.asarray(x), False) for x in self.inputs]
        slots = (ctypes.c_void_p * 2)()
        for k in range(2):
            slots[k] = ncl.wrap(self.outs[k], True).value if self.outs[k] is not None else None
        given = [slots[0], slots[1]]
        try:
            if self.name in UNARY:
                st = lib.NclUnaryN(UNARY[self.name], hs[0], 2, slots, None)
            else:
                st = lib.NclBinaryN(BINARY[self.name], hs[0], hs[1], 2, slots, None)
            if st != self.status:
                return 'status %s, expected %s (%s)' % (nd.status_name(st),
                                                        nd.status_name(self.status),
                                                        ncl.last_error())
            if st != nd.OK:
                if [slots[0], slots[1]] != given:
                    return 'a failed call changed the out slots'
                return None
            for k in range(2):
                if self.outs[k] is not None:
                    if slots[k] != given[k]:
                        return 'output %d: the provided array was replaced' % k
                    got = self.outs[k]
                    why = same(got, self.want[k].astype(got.dtype))
                else:
                    got = ncl.to_numpy(ctypes.c_void_p(slots[k]))
                    why = same(got, self.want[k].astype(nd.ncl_result_dtype(self.want[k].dtype)))
                if why:
                    return 'output %d: %s' % (k, why)
            return None
        finally:
            for h in hs:
                ncl.release(h)
            for k in range(2):
                if slots[k]:
                    ncl.release(ctypes.c_void_p(slots[k]))


def generate(rng, rounds):
    for name in UNARY:
        for dt in nd.NP_DTYPES:
            yield TwoOutCase(name, [nd.edge_values(dt)], [False, False], rng, 'edges')
            yield TwoOutCase(name, [nd.edge_values(dt)], [True, True], rng, 'edges')
            for _ in range(4 * rounds):
                a = nd.random_values(dt, int(rng.integers(0, 48)), rng)
                yield TwoOutCase(name, [a], rng.random(2) < 0.4, rng)
                shape = nd.random_shape(rng)
                a, la = nd.random_operand(dt, shape, rng)
                yield TwoOutCase(name, [a], rng.random(2) < 0.5, rng, 'layout %s' % la)
    for da in nd.NP_DTYPES:
        for db in nd.NP_DTYPES:
            ea, eb = nd.edge_values(da), nd.edge_values(db)
            a, b = np.repeat(ea, eb.size), np.tile(eb, ea.size)
            yield TwoOutCase('divmod', [a, b], rng.random(2) < 0.5, rng, 'edges x edges')
            for _ in range(rounds):
                n = int(rng.integers(0, 48))
                a, b = nd.random_values(da, n, rng), nd.random_values(db, n, rng)
                yield TwoOutCase('divmod', [a, b], rng.random(2) < 0.4, rng)
                shape = nd.random_shape(rng)
                a, la = nd.random_operand(da, nd.operand_shape(shape, rng), rng)
                b, lb = nd.random_operand(db, nd.operand_shape(shape, rng), rng)
                yield TwoOutCase('divmod', [a, b], rng.random(2) < 0.5, rng,
                                 'layouts %s/%s' % (la, lb))


if __name__ == '__main__':
    sys.exit(nd.main('diff_two_outputs', generate, __doc__))
