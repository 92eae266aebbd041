"""diff_rng_more.py: NclRng's gamma, beta, Poisson and binomial, shuffle
and permutation against NumPy 1.24's Generator (the same process), value
for value and state for state, from every bit generator.

- standard_gamma (float64 and float32), gamma, beta, poisson, binomial at
  three seeds each, 10^5 values a case, started fresh and with a 32-bit
  half buffered (one float32 drawn first): shapes below, at and above 1
  (and 0, where nothing is drawn), beta with both parameters <= 1
  (Johnk's), one above, both above; lam 0, 3, 9.99, 10, 100, 10^6;
  binomial n 0, 1, 10, 100, 10^6 with p 0, 0.3, 0.5, 0.7, 1 (inversion,
  BTPE and the flip for p > 0.5); then the next raw words, so the state
  after the call is NumPy's.
- Parameters as scalars (NumPy's scalar path) and as arrays varying per
  element (its broadcast path: binomial's set-up redone as (n, p)
  changes), broadcast to 2-d, into strided and reversed outputs; NaN
  shapes, scales and beta parameters, which NumPy accepts.
- shuffle (in place) and permutation (a copy; a 0-d integer is arange)
  of 1-d and 2-d arrays along axis 0, 1 and -1, of every dtype, contiguous,
  strided and reversed; lengths 0, 1, 2, 3, 1000 and one of 2^16 + 1;
  empty arrays (shuffle draws nothing, permutation draws over the axis).

    python3 tests/diff/diff_rng_more.py --lib build/libncl.so [--seed N] [--rounds N]
"""

import ctypes
import sys

import numpy as np

import ncl_diff as nd
from diff_rng import BITGENS, OPS, Lib, RngParams, numpy_gen, same

vp = ctypes.c_void_p
SEEDS = (42, 12345, 2 ** 64 + 7)
ALL_DTYPES = [np.dtype(n) for n in nd.DTYPES]


def ncl_call(L, op, g, a=None, b=None, out=None, shape=None, dtype=None, axis=None):
    """NclRng(op); out a NumPy array written in place (returned as a copy),
    else the new array's values."""
    p = RngParams()
    p.size = ctypes.sizeof(RngParams)
    p.dtype = nd.ncl_dtype_code(np.dtype(dtype)) if dtype is not None else -1
    p.casting = 3
    if shape is not None:
        dims = (ctypes.c_int64 * max(1, len(shape)))(*shape)
        p.ndim = len(shape)
        p.shape = dims
    if axis is not None:
        ax = (ctypes.c_int * 1)(axis)
        p.axes = ctypes.cast(ax, vp)
        p.naxes = 1
    ha = L.ncl.wrap(a, False) if a is not None else None
    hb = L.ncl.wrap(b, False) if b is not None else None
    h = L.ncl.wrap(out, True) if out is not None else vp()
    st = L.lib.NclRng(OPS[op], g, ha, hb, ctypes.byref(h), ctypes.byref(p))
    L.ncl.release(ha)
    L.ncl.release(hb)
    try:
        L.check(st, 'NclRng(%s)' % op)
        return out.copy() if out is not None else L.ncl.to_numpy(h)
    finally:
        L.ncl.release(h)


def numpy_call(ref, op, a, b, shape, dtype):
    def arg(x):
        return x.item() if isinstance(x, np.ndarray) and x.ndim == 0 else x
    a, b = arg(a), arg(b)
    if op == 'standard_gamma':
        return ref.standard_gamma(a, size=shape, dtype=dtype or np.float64)
    if op == 'gamma':
        return ref.gamma(a, 1.0 if b is None else b, size=shape)
    if op == 'poisson':
        return ref.poisson(1.0 if a is None else a, size=shape)
    return getattr(ref, op)(a, b, size=shape)


class Case:
    """One call from a generator in a given state, then the state."""

    def __init__(self, kind, seed, op, shape=None, dtype=None, a=None, b=None, half=False,
                 out=None, x=None, axis=None, title=''):
        self.kind, self.seed, self.op, self.shape, self.dtype = kind, seed, op, shape, dtype
        self.a, self.b, self.half, self.out = a, b, half, out
        self.x, self.axis, self._title = x, axis, title

    def title(self):
        def desc(v):
            if v is None:
                return '-'
            v = np.asarray(v)
            return repr(v.item()) if v.ndim == 0 else '%s%s' % (v.dtype, v.shape)
        return '%s(%r)%s %s%s %s a=%s b=%s x=%s axis=%s%s%s' % (
            self.kind, self.seed, ' +half' if self.half else '', self.op,
            '' if self.dtype is None else '/' + np.dtype(self.dtype).name, self.shape,
            desc(self.a), desc(self.b), desc(self.x), self.axis,
            ' out=' + self.out if self.out else '', ' ' + self._title if self._title else '')

    def run(self, ncl):
        try:
            return self.compare(Lib(ncl))
        except RuntimeError as e:
            return str(e)

    def view(self, arr):
        """arr as the layout asked for: a copy, strided or reversed."""
        if self.out is None:
            return arr.copy()
        big = np.zeros(tuple(3 * n for n in arr.shape), arr.dtype)
        sl = tuple(slice(None, None, 3 if self.out == 'strided' else -3) for _ in arr.shape)
        v = big[sl]
        v[...] = arr
        return v

    def compare(self, L):
        g = L.gen(self.kind, self.seed)
        ref = numpy_gen(self.kind, self.seed)
        try:
            if self.half:
                why = same(ncl_call(L, 'random', g, shape=(1,), dtype=np.float32),
                           ref.random(1, dtype=np.float32), 'the float32 draw before')
                if why:
                    return why
            if self.op == 'shuffle':
                mine = self.view(self.x)
                got = ncl_call(L, 'shuffle', g, out=mine, axis=self.axis)
                exp = self.x.copy()
                ref.shuffle(exp, axis=0 if self.axis is None else self.axis)
            elif self.op == 'permutation':
                x = self.x if self.x.ndim == 0 else self.view(self.x)
                got = ncl_call(L, 'permutation', g, a=x, axis=self.axis)
                exp = ref.permutation(self.x.item() if self.x.ndim == 0 else self.x,
                                      axis=0 if self.axis is None else self.axis)
            else:
                out = None
                if self.out:
                    dt = np.dtype(self.dtype or (np.int64 if self.op in ('poisson', 'binomial')
                                                 else np.float64))
                    out = self.view(np.zeros(self.shape, dt))
                got = ncl_call(L, self.op, g, self.a, self.b, out, self.shape, self.dtype)
                exp = numpy_call(ref, self.op, self.a, self.b, self.shape, self.dtype)
            why = same(np.ascontiguousarray(got), np.ascontiguousarray(exp), 'values')
            if why:
                return why
            return same(ncl_call(L, 'random_raw', g, shape=(8,)), ref.bit_generator.random_raw(8),
                        'raw words after the call (the state)')
        finally:
            L.lib.NclRngGenFree(g)


def f64(x):
    return np.array(x, np.float64)


def i64(x):
    return np.array(x, np.int64)


def dist_cases(kind):
    big = 10 ** 5
    for seed in SEEDS:
        for half in (False, True):
            for sh in (0.0, 0.05, 0.5, 0.999, 1.0, 1.5, 3.0, 100.0):
                for dt in (np.float64, np.float32):
                    yield Case(kind, seed, 'standard_gamma', (big,), dt, f64(sh), half=half)
            for sh, sc in ((0.3, 2.0), (1.0, 0.5), (7.5, 3.0)):
                yield Case(kind, seed, 'gamma', (big,), None, f64(sh), f64(sc), half=half)
            for a, b in ((0.5, 0.5), (0.1, 1.0), (1.0, 1.0), (0.5, 2.0), (3.0, 0.7), (2.0, 5.0)):
                yield Case(kind, seed, 'beta', (big,), None, f64(a), f64(b), half=half)
            for lam in (0.0, 3.0, 9.99, 10.0, 100.0, 1e6):
                yield Case(kind, seed, 'poisson', (big,), None, f64(lam), half=half)
            for n in (0, 1, 10, 100, 10 ** 6):
                for p in (0.0, 0.3, 0.5, 0.7, 1.0):
                    yield Case(kind, seed, 'binomial', (big,), None, i64(n), f64(p), half=half)


def edge_cases(kind, rng):
    s = 7
    n = 20001
    nan = float('nan')
    yield Case(kind, s, 'standard_gamma', (101,), None, f64(nan))
    yield Case(kind, s, 'standard_gamma', (101,), np.float32, f64(nan))
    yield Case(kind, s, 'gamma', (101,), None, f64(2.0), f64(nan))
    yield Case(kind, s, 'beta', (101,), None, f64(nan), f64(0.5))
    yield Case(kind, s, 'standard_gamma', (3,), None, f64(1e-300))
    yield Case(kind, s, 'poisson', (1001,), None, None, title='default lam')
    yield Case(kind, s, 'poisson', (5,), None, f64(9.2e18))
    yield Case(kind, s, 'binomial', (1001,), None, i64(2 ** 62), f64(0.25))
    yield Case(kind, s, 'binomial', (1001,), None, np.array(31, np.int8), np.array(0.9, np.float32))
    # array parameters, varying per element
    shp = rng.choice([0.0, 0.2, 1.0, 2.5, 40.0], n)
    yield Case(kind, s, 'standard_gamma', (n,), None, shp)
    yield Case(kind, s, 'standard_gamma', (n,), np.float32, shp.astype(np.float32))
    yield Case(kind, s, 'gamma', (n,), None, shp, rng.exponential(2.0, n))
    yield Case(kind, s, 'beta', (n,), None, rng.choice([0.3, 1.0, 4.0], n), rng.choice([0.6, 2.0], n))
    yield Case(kind, s, 'poisson', (n,), None, rng.choice([0.0, 2.0, 10.0, 55.5, 1e5], n))
    yield Case(kind, s, 'binomial', (n,), None, rng.choice([0, 3, 40, 1000, 10 ** 7], n).astype(np.int64),
               rng.choice([0.0, 0.1, 0.5, 0.6, 0.97, 1.0], n))
    yield Case(kind, s, 'binomial', (n,), None, i64(500), np.repeat(f64([0.2, 0.8]), n // 2 + 1)[:n],
               title='runs of one (n, p)')
    # broadcast to 2-d, provided outputs
    yield Case(kind, s, 'gamma', (4, 5), None, f64([[0.5], [1.0], [2.0], [9.0]]), f64([1, 2, 3, 4, 5]),
               out='strided')
    yield Case(kind, s, 'beta', (3, 4), None, f64([[0.5], [2.0], [0.9]]), f64(0.8), out='reversed')
    yield Case(kind, s, 'poisson', (6, 7), None, f64([1.0, 20.0, 0.0, 5.0, 12.0, 3.0, 100.0]),
               out='reversed')
    yield Case(kind, s, 'binomial', (3, 5), None, i64([[10], [100], [1000]]),
               f64([0.1, 0.4, 0.5, 0.6, 0.9]), out='strided')
    yield Case(kind, s, 'standard_gamma', (9, 3), np.float32, f64(0.7), out='reversed', half=True)
    yield Case(kind, s, 'poisson', (2, 0), None, f64(5.0))


def shuffle_cases(kind, rng):
    for seed in SEEDS:
        for n in (0, 1, 2, 3, 1000):
            for dt in ALL_DTYPES:
                x = (np.arange(n) % 251).astype(dt)
                yield Case(kind, seed, 'shuffle', x=x)
                yield Case(kind, seed, 'permutation', x=x, half=n == 3)
            yield Case(kind, seed, 'permutation', x=np.array(n, np.int64))
        yield Case(kind, seed, 'permutation', x=np.array(-3, np.int32))
        yield Case(kind, seed, 'permutation', x=np.array(2 ** 16 + 1, np.uint32), half=True)
        yield Case(kind, seed, 'shuffle', x=np.arange(70001, dtype=np.float64), out='reversed')
        for dt in ALL_DTYPES:
            x = (rng.integers(0, 100, (13, 7))).astype(dt)
            for axis in (None, 1, -1, -2):
                for out in (None, 'strided', 'reversed'):
                    yield Case(kind, seed, 'shuffle', x=x, axis=axis, out=out)
                    yield Case(kind, seed, 'permutation', x=x, axis=axis, out=out)
        x3 = rng.normal(size=(4, 5, 6))
        for axis in (0, 1, 2):
            yield Case(kind, seed, 'shuffle', x=x3, axis=axis, out='strided')
            yield Case(kind, seed, 'permutation', x=x3, axis=axis)
        for shp, axis in (((5, 0), 0), ((0, 5), 1), ((5, 0), 1), ((1, 9), 0)):
            e = np.zeros(shp)
            yield Case(kind, seed, 'shuffle', x=e, axis=axis)
            yield Case(kind, seed, 'permutation', x=e, axis=axis)


def generate(rng, rounds):
    OPS.update({'standard_gamma': 8, 'gamma': 9, 'beta': 10, 'poisson': 11, 'binomial': 12,
                'shuffle': 13, 'permutation': 14})
    for kind in BITGENS:
        yield from dist_cases(kind)
        yield from edge_cases(kind, rng)
        yield from shuffle_cases(kind, rng)


if __name__ == '__main__':
    sys.exit(nd.main('diff_rng_more', generate, __doc__))
