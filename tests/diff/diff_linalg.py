"""diff_linalg.py: NclLinalg against NumPy 1.24's np.matmul and np.dot, over
the 11 dtypes (and mixed pairs, promoted), shapes (1-d operands, matrices,
stacks that broadcast, 0-size extents, 0-d operands of dot), memory layouts
(C, F, sliced, reversed, misaligned, broadcast) and edge values:

- integers and bool are compared exactly: integer sums wrap as the dtype
  does (min/max values are mixed in), bool is the or of ands;
- floats are compared with a bound fit for a sum of products in whatever
  order the BLAS takes: |got - exact| <= (k + 2) eps sum|a||b|, the exact
  value computed in long double; NaN and infinities (mixed in, with -0.0)
  must come out where the exact value has them;
- provided outputs: of the result's dtype or one it casts to, strided, and
  the very memory of an input (the result is as if the inputs were copied);
- refused calls: summed lengths that differ and stacks that do not
  broadcast, 0-d operands of matmul, an output of another shape, an output
  dtype the casting rule refuses; each leaves the output untouched.

    python3 tests/diff/diff_linalg.py --lib build/libncl.so [--seed N] [--rounds N]
"""

import ctypes
import sys

import numpy as np

import ncl_diff as nd

OPS = ['matmul', 'dot']
NP_FN = {'matmul': np.matmul, 'dot': np.dot}
SAME_KIND = nd.CASTINGS.index("same_kind")


def values(dt, shape, rng):
    """Values of dt: full-range and small integers with min/max mixed in;
    floats of moderate size (sums that cannot overflow in one order and not
    in another) with ±0, ±inf and NaN mixed in."""
    dt = np.dtype(dt)
    n = int(np.prod(shape)) if shape else 1
    if dt.kind == 'f':
        v = np.round(rng.uniform(-10, 10, n) * 8) / 8
        v = np.where(rng.random(n) < 0.5, rng.uniform(-10, 10, n), v)
        if rng.random() < 0.3 and n:
            e = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30])
            k = max(1, n // 16)
            v[rng.integers(0, n, k)] = e[rng.integers(0, e.size, k)]
        return v.astype(dt).reshape(shape)
    return nd.random_values(dt, n, rng).reshape(shape)


def operand(dt, shape, rng):
    """An operand in a random layout (sometimes a broadcast view)."""
    layout = nd.LAYOUTS[int(rng.integers(0, len(nd.LAYOUTS)))]
    if shape and rng.random() < 0.1:
        small = tuple(1 if rng.random() < 0.5 else n for n in shape)
        base = nd.place(values(dt, small, rng), layout)
        return np.broadcast_to(base, shape), layout + '+bcast'
    return nd.place(values(dt, shape, rng), layout), layout


def exact(op, a, b):
    """The product in long double (floats) for the bound and the NaN/inf
    pattern, and the sum of |products| the bound scales with."""
    fa, fb = a.astype(np.longdouble), b.astype(np.longdouble)
    with np.errstate(all='ignore'):
        return NP_FN[op](fa, fb), NP_FN[op](np.abs(fa), np.abs(fb))


def check_float(got, op, a, b, loop, k):
    ref, mag = exact(op, a, b)
    ref, mag = np.asarray(ref), np.asarray(mag)
    if got.shape != ref.shape:
        return 'shape %s, expected %s' % (got.shape, ref.shape)
    g = got.astype(np.longdouble)
    nan = np.isnan(ref)
    if np.any(np.isnan(g) != nan):
        return 'NaN where expected %s got %s' % (ref[np.isnan(g) != nan][:4], g[np.isnan(g) != nan][:4])
    inf = np.isinf(ref) & ~nan
    if np.any(g[inf] != ref[inf]):
        return 'infinity mismatch: expected %s got %s' % (ref[inf][:4], g[inf][:4])
    fin = ~nan & ~inf
    eps = np.finfo(loop).eps
    tiny = np.finfo(loop).tiny
    with np.errstate(all='ignore'):
        bound = (k + 2) * eps * mag[fin] + tiny * (k + 2)
        err = np.abs(g[fin] - ref[fin])
    bad = ~(err <= bound)
    if np.any(bad):
        return 'off by %s > bound %s (expected %s, got %s)' % (
            err[bad][:3], bound[bad][:3], ref[fin][bad][:3], g[fin][bad][:3])
    return None


class Case:
    def __init__(self, op, a, b, loop=None, out=None, dtype=None, casting=SAME_KIND,
                 alias=None, status=nd.OK, note=''):
        self.op, self.a, self.b = op, a, b
        self.loop = np.dtype(loop) if loop is not None else None
        self.out, self.dtype, self.casting = out, dtype, casting
        self.alias = alias   # 'a' / 'b': out is that input's memory
        self.status, self.note = status, note

    def title(self):
        return '%s(%s %s%s, %s %s%s)%s%s%s' % (
            self.op, self.a.dtype, self.a.shape, self.a.strides, self.b.dtype, self.b.shape,
            self.b.strides, '' if self.out is None else ' out=%s%s' % (self.out.dtype, self.out.shape),
            '' if self.dtype is None else ' dtype=%s' % self.dtype,
            (' [%s]' % self.note) if self.note else '')

    def expected(self):
        loop = self.loop
        a = self.a.astype(loop)
        b = self.b.astype(loop)
        with np.errstate(all='ignore'):
            return np.asarray(NP_FN[self.op](a, b)), a, b

    def run(self, ncl):
        lib = ncl.lib
        want, ca, cb = (None, None, None) if self.status != nd.OK else self.expected()
        k = self.a.shape[-1] if self.a.ndim else 1
        before = None if self.out is None else self.out.copy()
        ha = ncl.wrap(self.a, False)
        hb = ncl.wrap(self.b, False)
        ho = ncl.wrap(self.out, True) if self.out is not None else ctypes.c_void_p()
        given = ho.value
        prm = None
        if self.dtype is not None or self.casting != SAME_KIND:
            prm = nd.Params()
            prm.size = ctypes.sizeof(nd.Params)
            prm.dtype = -1 if self.dtype is None else nd.ncl_dtype_code(np.dtype(self.dtype))
            prm.casting = self.casting
            prm = ctypes.byref(prm)
        try:
            st = lib.NclLinalg(OPS.index(self.op), ha, hb, ctypes.byref(ho), prm)
            if st != self.status:
                return 'status %s (%s), expected %s' % (nd.status_name(st), ncl.last_error(),
                                                       nd.status_name(self.status))
            if st != nd.OK:
                if ho.value != given:
                    return 'failed call changed *out'
                if before is not None and not np.array_equal(before, self.out, equal_nan=True):
                    return 'failed call wrote the output'
                return None
            got = self.out.copy() if self.out is not None else ncl.to_numpy(ho)
            if self.out is None and got.dtype != self.loop:
                return 'dtype %s, expected %s' % (got.dtype, self.loop)
            if self.out is not None:
                # what the loop gives, cast to the output's dtype
                if self.out.dtype != self.loop:
                    exp = nd.saturating_astype(want, self.out.dtype)
                    if not np.array_equal(exp, got, equal_nan=True) and self.loop.kind != 'f':
                        return 'cast output: expected %s got %s' % (exp.ravel()[:6], got.ravel()[:6])
                    return None
            if self.loop.kind in 'biu':
                if got.shape != want.shape or not np.array_equal(got, want):
                    return 'expected %s got %s' % (want.ravel()[:8], got.ravel()[:8])
                return None
            return check_float(got, self.op, ca, cb, self.loop, k)
        finally:
            ncl.release(ha)
            ncl.release(hb)
            ncl.release(ho)


def rand_dtype(rng):
    return nd.NP_DTYPES[int(rng.integers(0, len(nd.NP_DTYPES)))]


def matmul_shapes(rng):
    """Shapes of a matmul that NumPy accepts: stacks that broadcast, 1-d
    operands, 0-size extents."""
    def ext():
        return 0 if rng.random() < 0.08 else int(rng.integers(1, 9))
    m, k, n = ext(), ext(), ext()
    nb = int(rng.integers(0, 4))
    batch = tuple(ext() for _ in range(nb))
    ba = tuple(1 if rng.random() < 0.3 else e for e in batch)[int(rng.integers(0, nb + 1)):]
    bb = tuple(1 if rng.random() < 0.3 else e for e in batch)[int(rng.integers(0, nb + 1)):]
    sa = (k,) if rng.random() < 0.15 else ba + (m, k)
    sb = (k,) if rng.random() < 0.15 else bb + (k, n)
    return sa, sb


def dot_shapes(rng):
    def ext():
        return 0 if rng.random() < 0.08 else int(rng.integers(1, 7))
    r = rng.random()
    if r < 0.15:   # a 0-d operand: multiply
        s = tuple(ext() for _ in range(int(rng.integers(0, 4))))
        return ((), s) if rng.random() < 0.5 else (s, ())
    k = ext()
    sa = tuple(ext() for _ in range(int(rng.integers(0, 3)))) + (k,)
    nbd = int(rng.integers(0, 4))
    if nbd == 0:
        sb = (k,)
    else:
        sb = tuple(ext() for _ in range(nbd - 1)) + (k, ext())
    return sa, sb


def generate(rng, rounds):
    for _ in range(400 * rounds):
        op = OPS[int(rng.integers(0, 2))]
        sa, sb = matmul_shapes(rng) if op == 'matmul' else dot_shapes(rng)
        da = rand_dtype(rng)
        db = da if rng.random() < 0.7 else rand_dtype(rng)
        a, la = operand(da, sa, rng)
        b, lb = operand(db, sb, rng)
        loop = np.promote_types(da, db)
        yield Case(op, a, b, loop, note='%s/%s' % (la, lb))

    # every dtype with an edge-heavy square product, 1-d, and a big one (BLAS)
    for dt in nd.NP_DTYPES:
        for op in OPS:
            for sa, sb in [((4, 5), (5, 3)), ((7,), (7,)), ((3, 6), (6,)), ((6,), (6, 2)),
                           ((2, 3, 40), (40, 70)), ((65, 64), (64, 66)), ((0, 3), (3, 4)),
                           ((3, 0), (0, 4))]:
                a, la = operand(dt, sa, rng)
                b, lb = operand(dt, sb, rng)
                yield Case(op, a, b, dt, note='%s/%s' % (la, lb))

    # strided inputs the BLAS cannot take as they are (copied first)
    for dt in (nd.F32, nd.F64, np.dtype('int32')):
        big = values(dt, (12, 20), rng)
        a = big[::2, ::3]      # (6, 7), no unit stride
        b = values(dt, (14, 5), rng)[::-2]
        for op in OPS:
            yield Case(op, a, b, dt, note='strided')
            yield Case(op, b.T, a.T, dt, note='transposed')

    # provided outputs: strided, cast to a wider dtype, and aliasing an input
    for dt in (nd.F64, nd.F32, np.dtype('int16'), np.dtype('bool')):
        for op in OPS:
            a = values(dt, (5, 5), rng)
            b = values(dt, (5, 5), rng)
            yield Case(op, a, b, dt, out=np.zeros((10, 5), dt)[::2], note='strided out')
            yield Case(op, a, b, dt, out=np.zeros((5, 5), dt).T, note='F out')
            a2 = a.copy()
            yield Case(op, a2, b, dt, out=a2, alias='a', note='out is a')
            b2 = b.copy()
            yield Case(op, a, b2, dt, out=b2, alias='b', note='out is b')
            wide = nd.F64 if dt != nd.F64 else nd.F64
            if dt.kind != 'f':
                yield Case(op, a, b, dt, out=np.zeros((5, 5), wide), note='cast out')

    # dtype= and casting
    yield Case('matmul', values('int32', (3, 4), rng), values('int32', (4, 2), rng), 'float64',
               dtype='float64', note='dtype=float64')
    yield Case('matmul', values('float64', (3, 4), rng), values('float64', (4, 2), rng), None,
               dtype='float32', status=nd.OK, note='dtype=float32 same_kind').with_loop('float32')
    yield Case('matmul', values('float64', (3, 4), rng), values('float64', (4, 2), rng), None,
               dtype='int32', status=nd.CASTING, note='dtype=int32 refused')
    yield Case('dot', values('float64', (3, 4), rng), values('float64', (4, 2), rng), 'float64',
               out=np.zeros((3, 2), 'int32'), status=nd.CASTING, note='out int32 refused')

    # refused shapes
    yield Case('matmul', values('float64', (3, 4), rng), values('float64', (5, 2), rng),
               status=nd.SHAPE, out=np.full((3, 2), 7.0), note='k differs')
    yield Case('dot', values('float64', (3, 4), rng), values('float64', (5,), rng),
               status=nd.SHAPE, note='k differs')
    yield Case('matmul', values('int8', (), rng), values('int8', (3,), rng), status=nd.SHAPE,
               note='0-d')
    yield Case('matmul', values('int8', (3,), rng), values('int8', (), rng), status=nd.SHAPE,
               note='0-d')
    yield Case('matmul', values('float64', (2, 3, 4), rng), values('float64', (3, 4, 2), rng),
               status=nd.BROADCAST, note='stacks')
    yield Case('matmul', values('float64', (3, 4), rng), values('float64', (4, 2), rng),
               out=np.full((2, 3), 7.0), status=nd.SHAPE, note='out shape')
    yield Case('dot', values('float64', (3, 4), rng), values('float64', (4, 2), rng),
               out=np.full((3, 2, 1), 7.0), status=nd.SHAPE, note='out shape')


def _with_loop(self, loop):
    self.loop = np.dtype(loop)
    return self


Case.with_loop = _with_loop

if __name__ == '__main__':
    sys.exit(nd.main('diff_linalg', generate, __doc__))
