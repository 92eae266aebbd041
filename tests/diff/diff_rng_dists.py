"""diff_rng_dists.py: NclRng's distributions against NumPy 1.24's Generator
(the same process), value for value and state for state.

- Every op and result dtype (random_raw; random, standard_normal and
  standard_exponential in float64 and float32; integers in every integer
  dtype and bool; uniform, normal, exponential) from every bit generator,
  started fresh and with a 32-bit half buffered (one float32 drawn first),
  10^6 values of the samplers and 10^5 of the rest: every value bit for
  bit, then the next raw words, so the generator's state after the call is
  NumPy's.
- integers at the edges of Lemire's method and NumPy's special cases:
  ranges 0, 1, 2, 255, 256, 2^16 - 1, 2^32 - 1, 2^32, 2^32 + 1, 2^63,
  2^64 - 1, every dtype's full range, negative lows, endpoint on and off,
  bool; high = 2^64 (2^63 for int64), which a uint64 (int64) bound cannot
  hold, as high - 1 with endpoint.
- Parameters as scalars (NumPy's scalar path) and as arrays (its broadcast
  path, one 32-bit buffer across the elements for the 8- and 16-bit types
  and bool), constant and varying per element, 1-d and broadcast to 2-d
  shapes, of other dtypes (int32 bounds, float32 scales); provided outputs
  that are strided or reversed views (values in C order of the result).
- Edge values: normal scale 0 and inf, loc nan; exponential scale 0 and
  inf; uniform low == high and ranges near the largest double.
- Counts 0, 1, 2, 3, 5 and 1001 for the draws that use 32-bit halves and
  sub-words; a result of shape (2, 0).

    python3 tests/diff/diff_rng_dists.py --lib build/libncl.so [--seed N] [--rounds N]
"""

import ctypes
import sys

import numpy as np

import ncl_diff as nd
from diff_rng import BITGENS, OPS, Lib, RngParams, numpy_gen, same

vp = ctypes.c_void_p
INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
              np.bool_]


def draw(L, op, g, shape, dtype=None, a=None, b=None, endpoint=False, out=None):
    """NclRng(op) into a new array of the given shape, or into out (a NumPy
    view, written in place); returns the values."""
    p = RngParams()
    p.size = ctypes.sizeof(RngParams)
    p.dtype = nd.ncl_dtype_code(np.dtype(dtype)) if dtype is not None else -1
    p.casting = 3
    dims = (ctypes.c_int64 * max(1, len(shape)))(*shape)
    p.ndim = len(shape)
    p.shape = dims
    p.endpoint = int(endpoint)
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


def numpy_draw(ref, op, shape, dtype, a, b, endpoint):
    """What NumPy's Generator method gives for the same call. Parameters
    are passed as NumPy's own scalars when they are 0-d (its scalar path)."""
    def arg(x):
        return x.item() if isinstance(x, np.ndarray) and x.ndim == 0 else x
    a, b = arg(a), arg(b)
    if op == 'random_raw':
        return ref.bit_generator.random_raw(shape)
    if op in ('random', 'standard_normal', 'standard_exponential'):
        return getattr(ref, op)(shape, dtype=dtype)
    if op == 'integers':
        return ref.integers(a, b, size=shape, dtype=dtype, endpoint=endpoint)
    if op == 'exponential':
        return ref.exponential(a, size=shape)
    return getattr(ref, op)(a, b, size=shape)


class Case:
    """One call from a generator in a given state, against NumPy."""

    def __init__(self, kind, seed, op, shape, dtype=None, a=None, b=None, endpoint=False,
                 half=False, out=None, np_high=None, title=''):
        self.kind, self.seed, self.op, self.shape = kind, seed, op, tuple(shape)
        self.dtype, self.a, self.b, self.endpoint, self.half = dtype, a, b, endpoint, half
        self.out = out          # None, 'strided' or 'reversed'
        self.np_high = np_high  # NumPy's exclusive high where NCLib's cannot hold it
        self._title = title

    def title(self):
        def desc(x):
            if x is None:
                return '-'
            x = np.asarray(x)
            return repr(x.item()) if x.ndim == 0 else '%s%s' % (x.dtype, x.shape)
        return '%s(%r)%s %s%s %s a=%s b=%s%s%s%s' % (
            self.kind, self.seed, ' +half' if self.half else '', self.op,
            '' if self.dtype is None else '/' + np.dtype(self.dtype).name, self.shape,
            desc(self.a), desc(self.b), ' endpoint' if self.endpoint else '',
            ' out=' + self.out if self.out else '', ' ' + self._title if self._title else '')

    def run(self, ncl):
        try:
            return self.compare(Lib(ncl))
        except RuntimeError as e:
            return str(e)

    def compare(self, L):
        g = L.gen(self.kind, self.seed)
        ref = numpy_gen(self.kind, self.seed)
        try:
            if self.half:
                why = same(draw(L, 'random', g, (1,), np.float32), ref.random(1, dtype=np.float32),
                           'the float32 draw before')
                if why:
                    return why
            out = None
            if self.out:
                dt = np.dtype(self.dtype if self.dtype is not None else
                              (np.uint64 if self.op == 'random_raw' else
                               np.int64 if self.op == 'integers' else np.float64))
                big = np.zeros(tuple(3 * n for n in self.shape), dt)
                out = (big[tuple(slice(None, None, 3) for _ in self.shape)] if self.out == 'strided'
                       else big[tuple(slice(None, None, -3) for _ in self.shape)])
            got = draw(L, self.op, g, self.shape, self.dtype, self.a, self.b, self.endpoint, out)
            if self.np_high is None:
                exp = numpy_draw(ref, self.op, self.shape, self.dtype, self.a, self.b, self.endpoint)
            else:
                exp = numpy_draw(ref, self.op, self.shape, self.dtype, self.a, self.np_high, False)
            why = same(got, exp, 'values')
            if why:
                return why
            return same(draw(L, 'random_raw', g, (8,)), ref.bit_generator.random_raw(8),
                        'raw words after the call (the state)')
        finally:
            L.lib.NclRngGenFree(g)


def i64(x):
    return np.array(x, np.int64)


def u64(x):
    return np.array(x, np.uint64)


def f64(x):
    return np.array(x, np.float64)


def bounds(dtype, lo, hi):
    """low and high as the arrays NclRng reads for this result dtype."""
    mk = u64 if np.dtype(dtype).kind == 'u' else i64
    return mk(lo), mk(hi)


def int_ranges(dtype):
    """(low, high, endpoint) edge cases valid for the dtype."""
    if dtype == np.bool_:
        return [(0, 2, False), (0, 1, True), (0, 1, False), (1, 2, False), (0, 0, True),
                (1, 1, True)]
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    cases = [(0, 100, False), (0, 1, False), (7, 7, True), (0, 2, False), (0, 255, True),
             (0, 256, True), (0, 0xFFFF, True), (0, 2 ** 32 - 1, True), (0, 2 ** 32, True),
             (0, 2 ** 32 + 1, True), (0, 2 ** 63, True), (0, 2 ** 64 - 1, True), (lo, hi, True),
             (lo, hi, False), (lo + 1, hi, True), (-100, -3, False), (lo, -1, True),
             (-5, 2 ** 40, False), (3, 2 ** 31 + 12345, False)]
    keep = []
    for a, b, ep in cases:
        top = b if ep else b - 1
        if lo <= a <= top <= hi and (a, b, ep) not in keep:
            keep.append((a, b, ep))
    return keep


def main_cases(kind, seed, half):
    big, small = 10 ** 6, 10 ** 5
    yield Case(kind, seed, 'random_raw', (small,), half=half)
    for dt in (np.float64, np.float32):
        yield Case(kind, seed, 'random', (small,), dt, half=half)
        yield Case(kind, seed, 'standard_normal', (big,), dt, half=half)
        yield Case(kind, seed, 'standard_exponential', (big,), dt, half=half)
    yield Case(kind, seed, 'uniform', (small,), None, f64(-3.5), f64(10.25), half=half)
    yield Case(kind, seed, 'normal', (big,), None, f64(2.5), f64(3.0), half=half)
    yield Case(kind, seed, 'exponential', (big,), None, f64(1.7), half=half)
    for dt in INT_DTYPES:
        for lo, hi, ep in int_ranges(dt):
            a, b = bounds(dt, lo, hi)
            yield Case(kind, seed, 'integers', (small // 4 + int(half),), dt, a, b, ep, half=half)


def edge_cases(kind):
    s = 5
    for dt in INT_DTYPES:
        for lo, hi, ep in int_ranges(dt):
            a, b = bounds(dt, lo, hi)
            n = 3001
            # NumPy's broadcast path: the same bounds as arrays
            yield Case(kind, s, 'integers', (n,), dt, np.full(n, a), np.full(n, b), ep)
            yield Case(kind, s, 'integers', (n,), dt, a, b, ep, out='strided')
            yield Case(kind, s, 'integers', (n,), dt, a, b, ep, half=True, out='reversed')
        for n in (0, 1, 2, 3, 5, 1001):
            hi = 1 if dt == np.bool_ else 3
            a, b = bounds(dt, 0, hi)
            yield Case(kind, s, 'integers', (n,), dt, a, b, True, half=n % 2 == 1)
    # high past what the bound's dtype holds: high - 1 with endpoint
    yield Case(kind, s, 'integers', (1001,), np.uint64, u64(0), u64(2 ** 64 - 1), True,
               np_high=2 ** 64, title='NumPy high=2**64 exclusive')
    yield Case(kind, s, 'integers', (1001,), np.int64, i64(-2 ** 63), i64(2 ** 63 - 1), True,
               np_high=2 ** 63, title='NumPy high=2**63 exclusive')
    for n in (0, 1, 2, 3, 5, 1001):
        for op in ('random', 'standard_normal', 'standard_exponential'):
            yield Case(kind, s, op, (n,), np.float32, half=n % 2 == 0)
    for op, dt in (('random', np.float64), ('standard_normal', np.float32),
                   ('standard_exponential', np.float64), ('random_raw', None)):
        yield Case(kind, s, op, (7, 9), dt, out='strided')
        yield Case(kind, s, op, (7, 9), dt, out='reversed', half=True)
    yield Case(kind, s, 'integers', (2, 0), np.uint8, u64(0), u64(5))
    nan, inf = float('nan'), float('inf')
    for a, b in ((0.0, 0.0), (5.0, 0.0), (0.0, inf), (nan, 1.0), (-inf, 2.0)):
        yield Case(kind, s, 'normal', (20001,), None, f64(a), f64(b))
    for a in (0.0, inf, 1e300):
        yield Case(kind, s, 'exponential', (20001,), None, f64(a))
    for a, b in ((1.0, 1.0), (-0.0, -0.0), (-1e308, 7e307), (-1e-300, 1e-300), (3.0, 3.5)):
        yield Case(kind, s, 'uniform', (20001,), None, f64(a), f64(b))


def broadcast_cases(kind, rng, rounds):
    """Parameter arrays varying per element, broadcast to 1-d and 2-d."""
    s = 11
    n = 20001
    lo = rng.uniform(-1e3, 1e3, n)
    span = rng.exponential(10, n) * (rng.random(n) < 0.95)
    yield Case(kind, s, 'uniform', (n,), None, lo, lo + span)
    yield Case(kind, s, 'normal', (n,), None, lo, span)
    yield Case(kind, s, 'exponential', (n,), None, span)
    yield Case(kind, s, 'normal', (n,), None, f64(1.5), span.astype(np.float32),
               title='float32 scales')
    yield Case(kind, s, 'uniform', (4, 5), None, f64([[0.0], [1.0], [-2.0], [7.0]]),
               f64([10.0, 11.0, 12.0, 13.0, 14.0]))
    yield Case(kind, s, 'normal', (3, 4), None, f64([[0.0], [1.0], [-2.0]]), f64(2.0), out='reversed')
    yield Case(kind, s, 'exponential', (6, 2), None, f64([1.0, 0.5]), out='strided')
    for dt in INT_DTYPES:
        if dt == np.bool_:
            a = i64(rng.integers(0, 2, n))
            b = a + 1
        else:
            info = np.iinfo(dt)
            mk = u64 if info.kind == 'u' else i64
            lo_, hi_ = int(info.min), int(info.max)
            bits = rng.integers(0, info.bits + 1, n)
            a_l, b_l = [], []
            for k in range(n):
                low = lo_ + int(rng.integers(0, 2 ** 63)) * 2 % (hi_ - lo_ + 1)
                top = min(hi_, low + (1 << int(bits[k])) - 1 - int(rng.integers(0, 3)))
                if k % 17 == 0:
                    low, top = lo_, hi_
                if top < low:
                    top = low
                a_l.append(low)
                b_l.append(top)
            a, b = mk(a_l), mk(b_l)
        ep = dt != np.bool_
        yield Case(kind, s, 'integers', (len(a),), dt, a, b, ep, half=True)
        # 2-d broadcast: (3, 1) lows against (1, 5) highs, one buffer across
        # the rows
        hi = 2 if dt == np.bool_ else 100
        mk = u64 if np.dtype(dt).kind == 'u' else i64
        yield Case(kind, s, 'integers', (3, 5), dt, mk([[0], [0], [1 if dt == np.bool_ else 7]]),
                   mk([[hi] * 5]))
        yield Case(kind, s, 'integers', (4, 6), dt, mk(0), mk(hi), out='strided')
    yield Case(kind, s, 'integers', (1001,), np.int16, np.zeros(1001, np.int32),
               np.full(1001, 300, np.int32), title='int32 bounds')
    for _ in range(rounds):
        shape = tuple(int(x) for x in rng.integers(1, 40, size=int(rng.integers(1, 4))))
        dt = INT_DTYPES[int(rng.integers(0, len(INT_DTYPES)))]
        hi = 2 if dt == np.bool_ else int(rng.integers(1, min(1000, int(np.iinfo(dt).max) + 1)))
        mk = u64 if np.dtype(dt).kind == 'u' else i64
        yield Case(kind, int(rng.integers(0, 2 ** 63)), 'integers', shape, dt, mk(0), mk(hi),
                   half=bool(rng.integers(0, 2)), out=['strided', 'reversed', None][int(rng.integers(0, 3))])
        loc = f64(rng.normal(size=shape[-1]))
        yield Case(kind, int(rng.integers(0, 2 ** 63)), 'normal', shape, None, loc, f64(0.5))


def generate(rng, rounds):
    for kind in BITGENS:
        for seed in (42, 2 ** 64 + 7):
            for half in (False, True):
                yield from main_cases(kind, seed, half)
        yield from edge_cases(kind)
        yield from broadcast_cases(kind, rng, rounds)


if __name__ == '__main__':
    sys.exit(nd.main('diff_rng_dists', generate, __doc__))
