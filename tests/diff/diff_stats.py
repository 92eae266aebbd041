"""diff_stats.py: NclReduce's std, var and nan-aware reductions against
NumPy 1.24 (np.std, np.var, np.nansum, np.nanprod, np.nanmean, np.nanmin,
np.nanmax, np.nanargmin, np.nanargmax, np.nanstd, np.nanvar, np.nancumsum,
np.nancumprod) over the 11 dtypes, shapes (0-d, empty, long enough to span
several reduction chunks), axes (none given, one, negative, tuples),
keepdims, where=, ddof, dtype=, memory layouts (C, Fortran, sliced,
reversed) and NaN, ±inf and ±0 placed anywhere.

What must hold:
- the result dtype is NumPy's (var/std of bool and integers float64; a
  nan-aware op of bool or integers is its plain op);
- integer results, min/max (the sign of a zero left open), argmin/argmax
  are exact; NaN and inf results are NumPy's;
- float results where every sum is exact in both libraries (small integer
  values; for std/var a reduced count that is a power of two, so the mean
  and the differences are exact too) are NumPy's bits; otherwise they are
  held to a bound: |r - numpy| <= 64 u (|numpy| + scale), u the unit
  roundoff of the dtype, scale the mean of the squares (std/var) or the
  sum of the magnitudes (sums, means, products' magnitude);
- the same float data in C, Fortran, sliced and reversed layouts give
  bitwise identical results (a NaN's sign and payload aside);
- refusals with nothing written, in a provided output as well: a variance
  whose count - ddof is <= 0 for some output (NumPy warns and gives inf or
  NaN), nanargmin/nanargmax of an all-NaN slice (NumPy's ValueError), all
  NCL_ERR_INVALID_ARGUMENT; nanmin/nanmax/nanmean of an all-NaN slice give
  NaN and raise INVALID (NumPy's RuntimeWarning).

    python3 tests/diff/diff_stats.py --lib build/libncl.so [--seed N] [--rounds N]
"""

import ctypes
import warnings

import numpy as np

import ncl_diff as nd

OPS = ['std', 'var', 'nansum', 'nanprod', 'nanmean', 'nanmin', 'nanmax', 'nanargmin',
       'nanargmax', 'nanstd', 'nanvar', 'nancumsum', 'nancumprod']
OP_CODE = {name: 12 + i for i, name in enumerate(OPS)}
VARIANCE = {'std', 'var', 'nanstd', 'nanvar'}
ONE_AXIS = {'nanargmin', 'nanargmax', 'nancumsum', 'nancumprod'}
CUMULATIVE = {'nancumsum', 'nancumprod'}
NO_WHERE = ONE_AXIS          # NumPy 1.24 takes no where= for these
EXTREME = {'nanmin', 'nanmax'}
TAKES_DTYPE = {'std', 'var', 'nanstd', 'nanvar', 'nansum', 'nanprod', 'nanmean',
               'nancumsum', 'nancumprod'}



def numpy_call(op, a, axes, keepdims, where, ddof, dtype):
    """NumPy's answer: (status, result, raised INVALID)."""
    fn = getattr(np, op)
    kw = {}
    if op in ONE_AXIS:
        if axes is not None:
            kw['axis'] = axes[0]
    else:
        kw['axis'] = None if axes is None else tuple(axes)
    if op not in CUMULATIVE:
        kw['keepdims'] = keepdims
    if where is not None:
        kw['where'] = where
    if op in VARIANCE:
        kw['ddof'] = ddof
    if dtype is not None:
        kw['dtype'] = dtype
    if op in EXTREME and where is not None:
        # NumPy wants initial= with where=; NCLib refuses only an output
        # that selects nothing: NaN where masked out, then no mask
        del kw['where']
        if not np.all(np.any(np.broadcast_to(where, a.shape), axis=kw['axis'])):
            return nd.INVALID_ARGUMENT, None, False
        a = np.where(where, a, np.nan) if a.dtype.kind == 'f' else a
        if a.dtype.kind != 'f':
            kw['where'] = where
            if a.dtype.kind == 'b':
                kw['initial'] = op == 'nanmin'
            else:
                info = np.iinfo(a.dtype)
                kw['initial'] = info.max if op == 'nanmin' else info.min
    if op in VARIANCE:
        cnt = np.ones(a.shape, bool) if where is None else np.broadcast_to(where, a.shape)
        if op.startswith('nan') and a.dtype.kind == 'f':
            cnt = cnt & ~np.isnan(a)
        c = np.sum(cnt, axis=kw['axis'], dtype=np.int64)
        if np.size(c) and np.any(np.asarray(c) - ddof <= 0):
            return nd.INVALID_ARGUMENT, None, False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        with np.errstate(all='ignore'):
            try:
                r = fn(a, **kw)
            except ValueError:
                return nd.INVALID_ARGUMENT, None, False
    invalid = any(issubclass(w.category, RuntimeWarning) for w in caught)
    return nd.OK, np.asarray(r), invalid


def exact_data(op, a, axes, where):
    """Whether every sum both libraries compute is exact here: integer
    values, and for a variance a power-of-two count without a mask."""
    if a.dtype.kind != 'f':
        if a.size and np.max(np.abs(a.astype(np.float64))) > 2 ** 10:
            return False
        return op not in VARIANCE or exact_count(a, axes, where)
    fin = a[np.isfinite(a)]
    if fin.size and (np.any(fin != np.round(fin)) or np.max(np.abs(fin)) > 2 ** 10):
        return False
    if op in VARIANCE:
        return exact_count(a, axes, where) and not np.any(np.isnan(a))
    return True


def exact_count(a, axes, where):
    """A power-of-two count small enough that the squared differences
    (of values below 2**10, about a mean with log2(n) fraction bits) and
    their sum fit the float dtype's significand."""
    if where is not None:
        return False
    red = range(a.ndim) if axes is None else [x % a.ndim for x in axes]
    n = int(np.prod([a.shape[i] for i in red], dtype=np.int64))
    top = 16 if a.dtype == np.float32 else 4096
    return 0 < n <= top and n & (n - 1) == 0


class Case:
    def __init__(self, op, a, axes, keepdims, where, ddof, dtype, layout, provide):
        self.op, self.a, self.axes, self.keepdims = op, a, axes, keepdims
        self.where, self.ddof, self.dtype = where, ddof, dtype
        self.layout, self.provide = layout, provide

    def title(self):
        return '%s(%s %s %s, axes=%s, keepdims=%d, where=%s, ddof=%d, dtype=%s%s)' % (
            self.op, self.a.dtype, self.a.shape, self.layout, self.axes, self.keepdims,
            None if self.where is None else self.where.shape, self.ddof, self.dtype,
            ', out' if self.provide else '')

    def call(self, ncl, a, out=None):
        """(status, result or None, FP flags, message)."""
        handles = []
        try:
            ah = ncl.wrap(a, False)
            handles.append(ah)
            wh = ncl.wrap(self.where, False) if self.where is not None else None
            if wh is not None:
                handles.append(wh)
            oh = ncl.wrap(out, True) if out is not None else None
            if oh is not None:
                handles.append(oh)
            axes = None
            if self.axes is not None:
                axes = (ctypes.c_int * max(1, len(self.axes)))(*self.axes)
            prm = nd.Params(ctypes.sizeof(nd.Params), wh.value if wh is not None else None,
                         -1 if self.dtype is None else nd.ncl_dtype_code(np.dtype(self.dtype)),
                         3, ctypes.cast(axes, ctypes.c_void_p) if axes is not None else None,
                         0 if self.axes is None else len(self.axes), int(self.keepdims), None,
                         0, 0, 0, None, 0, self.ddof)
            res = ctypes.c_void_p(oh.value if oh is not None else None)
            st = ncl.lib.NclReduce(OP_CODE[self.op], ah, ctypes.byref(res),
                                   ctypes.cast(ctypes.byref(prm), ctypes.POINTER(nd.Params)))
            flags = ncl.lib.NclGetFPErrors()
            msg = ncl.last_error() if st != nd.OK else ''
            if res.value and (oh is None or res.value != oh.value):
                handles.append(res)
            if st != nd.OK:
                if (oh is None and res.value) or (oh is not None and res.value != oh.value):
                    return st, None, flags, '*out changed on failure'
                return st, None, flags, msg or 'no message'
            got = out.copy() if oh is not None else ncl.to_numpy(res)
            return st, got, flags, ''
        finally:
            for h in handles:
                ncl.release(h)

    def run(self, ncl):
        a = self.a
        st_np, exp, invalid = numpy_call(self.op, a, self.axes, self.keepdims, self.where,
                                         self.ddof, self.dtype)
        out = None
        if self.provide and exp is not None:
            out = np.full(exp.shape, 7, exp.dtype)
        elif self.provide:
            shape = nd_shape(self)
            out = np.full(shape, 7, rdtype(self.op, a.dtype, self.dtype)) if shape else None
        before = None if out is None else out.copy()
        st, got, flags, msg = self.call(ncl, nd.place(a, self.layout) if self.layout else a, out)
        if st != st_np:
            return 'status %s (%s), NumPy: %s' % (nd.status_name(st), msg,
                                                 nd.status_name(st_np))
        if st != nd.OK:
            if msg == '*out changed on failure' or msg == 'no message':
                return msg
            if out is not None and out.tobytes() != before.tobytes():
                return 'a provided output was written on failure'
            return None
        if got.dtype != exp.dtype:
            return 'dtype %s, NumPy %s' % (got.dtype, exp.dtype)
        if got.shape != exp.shape:
            return 'shape %s, NumPy %s' % (got.shape, exp.shape)
        why = compare(self, got, exp)
        if why:
            return why
        if invalid and self.op in ('nanmin', 'nanmax', 'nanmean') and \
                np.any(np.isnan(exp)) and not flags & nd.FPE_INVALID:
            return 'NaN from an all-NaN slice without INVALID (flags 0x%x)' % flags
        if a.dtype.kind == 'f' and a.ndim >= 1 and a.size > 0:
            for lay in ('F', 'sliced', 'reversed'):
                st2, got2, _, msg2 = self.call(ncl, nd.place(a, lay))
                if st2 != nd.OK or not same_bits(got2, got):
                    return 'layout %s gives other bits (%s): %r, %r' % (lay, msg2, got2, got)
        return None


def same_bits(x, y):
    """Bitwise equal, a NaN's sign and payload aside (the order in which
    vector and scalar code meet two NaNs decides which one comes out)."""
    if x.dtype.kind != 'f':
        return x.tobytes() == y.tobytes()
    nx, ny = np.isnan(x), np.isnan(y)
    return np.array_equal(nx, ny) and x[~nx].tobytes() == y[~ny].tobytes()


def nd_shape(case):
    a = case.a
    if case.op in CUMULATIVE:
        return a.shape if case.axes is not None else (a.size,)
    red = range(a.ndim) if case.axes is None else [x % a.ndim for x in case.axes]
    return tuple(1 if i in red else n for i, n in enumerate(a.shape)
                 if case.keepdims or i not in red)


def rdtype(op, adt, dtype):
    if op in ('nanargmin', 'nanargmax'):
        return np.int64
    if dtype is not None:
        return dtype
    if op in VARIANCE or op == 'nanmean':
        return adt if adt.kind == 'f' else np.float64
    if op in ('nansum', 'nanprod', 'nancumsum', 'nancumprod'):
        return adt if adt.kind == 'f' else np.uint64 if adt.kind == 'u' else np.int64
    return adt


def compare(case, got, exp):
    g, e = got.ravel(), exp.ravel()
    if got.dtype.kind != 'f':
        return None if np.array_equal(g, e) else 'got %s, NumPy %s' % (got, exp)
    same_nan = np.isnan(g) == np.isnan(e)
    if not np.all(same_nan):
        return 'NaN placement: got %s, NumPy %s' % (got, exp)
    fin = ~np.isnan(e)
    gf, ef = g[fin], e[fin]
    if case.op in EXTREME or case.op in ('nanargmin', 'nanargmax'):
        return None if np.array_equal(gf, ef) else 'got %s, NumPy %s' % (got, exp)
    if exact_data(case.op, case.a, case.axes, case.where) and case.dtype is None:
        bad = (gf != ef) | ((np.signbit(gf) != np.signbit(ef)) & (ef != 0))
        if np.any(bad):
            return 'not NumPy\'s bits: got %r, NumPy %r' % (gf[bad][:4], ef[bad][:4])
        return None
    inf = np.isinf(ef)
    if np.any(gf[inf] != ef[inf]):
        return 'inf: got %s, NumPy %s' % (got, exp)
    # the unit roundoff of what was computed with (NumPy's nanvar keeps the
    # differences in the input's float dtype whatever dtype= says), times
    # the depth of a summation tree
    u = np.finfo(got.dtype).eps / 2
    if case.op in VARIANCE and case.a.dtype.kind == 'f':
        u = max(u, np.finfo(case.a.dtype).eps / 2)
    u *= 1 + np.log2(max(2, case.a.size))
    scale = tolerance_scale(case, exp.shape)
    err = np.abs(gf[~inf].astype(np.float64) - ef[~inf].astype(np.float64))
    lim = 64 * u * (np.abs(ef[~inf].astype(np.float64)) + scale.ravel()[fin][~inf])
    if np.any(err > lim):
        k = np.argmax(err - lim)
        return 'got %r, NumPy %r: error %.3g above %.3g' % (gf[~inf][k], ef[~inf][k], err[k],
                                                            lim[k])
    return None


def tolerance_scale(case, shape):
    """Per output: the size of what was summed (the mean square for a
    variance, its root for std; the sum of magnitudes for sums)."""
    a = case.a.astype(np.float64)
    a = np.where(np.isfinite(a), a, 0)
    if case.op in CUMULATIVE:
        ax = None if case.axes is None else case.axes[0]
        s = np.cumsum(np.abs(a.ravel() if ax is None else a), axis=0 if ax is None else ax)
        return np.broadcast_to(s, shape) if case.op == 'nancumsum' else np.zeros(shape) + 1e300
    kw = dict(axis=None if case.axes is None else tuple(case.axes), keepdims=case.keepdims)
    if case.where is not None:
        kw['where'] = case.where
    if case.op in VARIANCE:
        ms = np.sum(a * a, **kw) / max(1, 1)
        ms = ms / np.maximum(1, np.sum(np.ones_like(a), **kw) - case.ddof)
        return np.broadcast_to(np.sqrt(ms) if 'std' in case.op else 4 * ms, shape)
    if case.op == 'nanprod':
        return np.zeros(shape)
    s = np.sum(np.abs(a), **kw)
    if case.op == 'nanmean':
        s = s / np.maximum(1, np.sum(np.ones_like(a), **kw))
    return np.broadcast_to(s, shape)


# ---- generators -----------------------------------------------------------------

def values(dt, n, rng, exact, special):
    dt = np.dtype(dt)
    if dt.kind == 'b':
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind in 'iu':
        if rng.random() < 0.2 and n:
            v = nd.random_values(dt, n, rng)
            return v
        lo = 0 if dt.kind == 'u' else -9
        return rng.integers(lo, 10, n).astype(dt)
    if exact:
        v = rng.integers(-9, 10, n).astype(dt)
    else:
        v = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4) + rng.integers(-5, 6)).astype(dt)
    if special and n:
        k = rng.integers(1, max(2, n // 3 + 1))
        pos = rng.integers(0, n, k)
        pick = rng.choice([np.nan, np.nan, np.nan, np.inf, -np.inf, 0.0, -0.0], k)
        v[pos] = pick.astype(dt)
    return v


def random_axes(op, ndim, rng):
    if op in ONE_AXIS:
        if ndim == 0 or rng.random() < 0.3:
            return None
        return [int(rng.integers(-ndim, ndim))]
    r = rng.random()
    if r < 0.25 or ndim == 0:
        return None
    k = int(rng.integers(1, ndim + 1))
    ax = [int(x) for x in rng.permutation(ndim)[:k]]
    return [x - ndim if rng.random() < 0.3 else x for x in ax]


def generate(rng, rounds):
    dts = nd.DTYPES
    shapes = [(), (0,), (1,), (5,), (8,), (4, 0), (3, 4), (2, 3, 4), (4, 2, 8), (1, 7, 1),
              (2100,), (3, 1500), (4096, 2)]
    for _ in range(rounds):
        # every op over every dtype and shape, at random settings
        for op in OPS:
            for dt in dts:
                for shape in shapes:
                    for _rep in range(2):
                        yield make_case(op, dt, shape, rng)
        # all-NaN slices, and NaN with ddof at the edge
        for op in OPS:
            for dt in ('float32', 'float64'):
                a = np.full((3, 4), np.nan, dt)
                a[0] = np.arange(4)
                a[2, 1] = 5
                for axes in (None, [0], [1], [-1]):
                    for ddof in ((0, 1, 2, -1) if op in VARIANCE else (0,)):
                        yield Case(op, a, axes, False, None, ddof, None, None,
                                   rng.random() < 0.5)
        # NumPy's nanargmin sees a NaN as +inf (nanargmax: -inf): ties with
        # an infinity go to the first
        for op in OPS:
            for dt in ('float32', 'float64'):
                a = np.array([[np.nan, np.inf, np.nan], [np.nan, -np.inf, 2.0],
                              [-np.inf, np.nan, np.inf]], dt)
                for axes in (None, [0], [1]):
                    yield Case(op, a, axes, False, None, 0, None, None, False)


def make_case(op, dt, shape, rng):
    n = int(np.prod(shape, dtype=np.int64))
    exact = rng.random() < 0.5
    a = values(dt, n, rng, exact, rng.random() < 0.6).reshape(shape)
    if op in ('nanprod', 'nancumprod') and n > 16 and a.dtype.kind == 'f':
        # no partial product may overflow or underflow: order would decide
        # between 0, inf and NaN
        fin = np.isfinite(a)
        a[fin] = (1 + np.clip(a[fin], -9, 9) / 1024).astype(a.dtype)
    axes = random_axes(op, len(shape), rng)
    keepdims = op not in CUMULATIVE and rng.random() < 0.3
    where = None
    if op not in NO_WHERE and shape and rng.random() < 0.3:
        wshape = shape if rng.random() < 0.7 else shape[1:]
        where = np.asarray(rng.random(wshape) < 0.8)
    ddof = int(rng.choice([0, 0, 1, 2, -1])) if op in VARIANCE else 0
    dtype = None
    if op in TAKES_DTYPE and rng.random() < 0.15:
        dtype = 'float64' if np.dtype(dt).kind != 'f' or rng.random() < 0.5 else 'float32'
        if op in ('nansum', 'nanprod', 'nancumsum', 'nancumprod') and np.dtype(dt).kind != 'f':
            dtype = None      # integer results wrap: left to diff_reduce
    layout = rng.choice(['C', 'F', 'sliced', 'reversed']) if shape else None
    return Case(op, a, axes, keepdims, where, ddof, dtype, layout, rng.random() < 0.25)


if __name__ == '__main__':
    raise SystemExit(nd.main('diff_stats', generate, __doc__.splitlines()[0]))
