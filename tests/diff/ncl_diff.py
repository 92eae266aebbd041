"""ncl_diff.py: the shared half of NCLib's NumPy differential suite.

It holds the ctypes binding of libncl.so (public API only), the oracles that
say what a call must return (NumPy itself, exact Python arithmetic for
comparisons, NCLib's saturating float->int casts, long double references for
transcendental functions), the generators of values, shapes and memory
layouts, the runner that checks one case against the library, and the
writer of the replay corpus that tests/test_diff_replay.c reads.

A case is an op, its input arrays (NumPy views over any memory, possibly
aliasing each other or the output), an optional provided output, where mask,
dtype and casting, and what must come back: a status, an array (compared
exactly or within some ulps), and FP flags. Cases are computed by the
oracles alone, so the corpus can be written without the library.
"""

import argparse
import ctypes
import operator
import os
import sys
import time

import numpy as np

# ---- the contract's numbering ----------------------------------------------

DTYPES = ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16',
          'uint32', 'uint64', 'float32', 'float64']
NP_DTYPES = [np.dtype(n) for n in DTYPES]
F16, F32, F64 = np.dtype('float16'), np.dtype('float32'), np.dtype('float64')
LD = np.longdouble

BINARY_OPS = ['add', 'subtract', 'multiply', 'true_divide', 'floor_divide',
              'remainder', 'fmod', 'power', 'maximum', 'minimum', 'fmax',
              'fmin', 'arctan2', 'hypot', 'copysign', 'bitwise_and',
              'bitwise_or', 'bitwise_xor', 'left_shift', 'right_shift',
              'logical_and', 'logical_or', 'logical_xor', 'heaviside',
              'logaddexp', 'logaddexp2', 'nextafter', 'gcd', 'lcm',
              'float_power', 'ldexp']
UNARY_OPS = ['negative', 'positive', 'absolute', 'sign', 'square',
             'reciprocal', 'sqrt', 'cbrt', 'exp', 'exp2', 'expm1', 'log',
             'log2', 'log10', 'log1p', 'sin', 'cos', 'tan', 'arcsin',
             'arccos', 'arctan', 'sinh', 'cosh', 'tanh', 'arcsinh',
             'arccosh', 'arctanh', 'floor', 'ceil', 'trunc', 'rint',
             'invert', 'logical_not', 'deg2rad', 'rad2deg', 'spacing',
             'conjugate', 'fabs']
COMPARE_OPS = ['equal', 'not_equal', 'less', 'less_equal', 'greater',
               'greater_equal']
ISUNARY_OPS = ['isnan', 'isinf', 'isfinite', 'signbit']
CONVERT_OPS = ['astype', 'copyto']
TERNARY_OPS = ['where', 'clip', 'fma']
REDUCE_OPS = ['sum', 'prod', 'min', 'max', 'any', 'all', 'argmin', 'argmax',
              'mean', 'count_nonzero', 'cumsum', 'cumprod']
SORT_OPS = ['sort', 'argsort', 'partition', 'argpartition']
MASK_OPS = ['compress', 'put', 'nonzero', 'take']
CASTINGS = ['no', 'equiv', 'safe', 'same_kind', 'unsafe']
SORT_DEFAULT, SORT_STABLE = 0, 1

OPS = {'binary': BINARY_OPS, 'unary': UNARY_OPS, 'compare': COMPARE_OPS,
       'isunary': ISUNARY_OPS, 'convert': CONVERT_OPS, 'ternary': TERNARY_OPS,
       'reduce': REDUCE_OPS, 'sort': SORT_OPS, 'mask': MASK_OPS}
NARGS = {'binary': 2, 'compare': 2, 'unary': 1, 'isunary': 1, 'convert': 1,
         'ternary': 3, 'reduce': 1, 'sort': 1, 'mask': 2}

OK, INVALID_ARGUMENT, NO_MEMORY, SHAPE, BROADCAST, DTYPE, CASTING, AXIS, READONLY = range(9)
UNSUPPORTED, INDEX = 11, 13
STATUS_NAMES = ['OK', 'INVALID_ARGUMENT', 'NO_MEMORY', 'SHAPE', 'BROADCAST',
                'DTYPE', 'CASTING', 'AXIS', 'READONLY', 'FLOATING_POINT',
                'DEVICE_MEMORY', 'UNSUPPORTED', 'HOOK', 'INDEX']
FPE_DIVIDE, FPE_OVERFLOW, FPE_UNDERFLOW, FPE_INVALID = 1, 2, 4, 8
WRITEABLE = 16

# Float ops whose result is within 1 ulp of the exact value, not exact.
TRANSCENDENTAL = {'cbrt', 'exp', 'exp2', 'expm1', 'log', 'log2', 'log10',
                  'log1p', 'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan',
                  'sinh', 'cosh', 'tanh', 'arcsinh', 'arccosh', 'arctanh',
                  'power', 'arctan2', 'hypot'}
# SPEC section 7 bounds the Unary transcendental functions by 1 ulp; it names
# no bound for power, arctan2 and hypot, which get 2 (glibc's atan2f is off
# by 1.2 ulp at (8, 15)).
BINARY_ULP = 2
# The sign of a zero result of these is not part of NumPy's contract (which
# of two equal operands comes back is left open), so -0.0 and 0.0 are not
# told apart for them.
ZERO_SIGN_FREE = {'maximum', 'minimum', 'fmax', 'fmin'}


def status_name(s):
    return STATUS_NAMES[s] if 0 <= s < len(STATUS_NAMES) else 'status %d' % s


def ncl_dtype_code(dt):
    return DTYPES.index(np.dtype(dt).name)


def ncl_result_dtype(dt):
    """NCLib has no float16: where NumPy answers float16, NCLib says float32."""
    dt = np.dtype(dt)
    return F32 if dt == F16 else dt


# ---- the library -------------------------------------------------------------

class Params(ctypes.Structure):
    """NclParams, every field (include/ncl/params.h); size = sizeof(Params).
    A zeroed one differs from NCL_PARAMS_INIT only in n (DIFF's order),
    which Manip callers set."""
    _fields_ = [('size', ctypes.c_uint32), ('where', ctypes.c_void_p),
                ('dtype', ctypes.c_int), ('casting', ctypes.c_int),
                ('axes', ctypes.c_void_p), ('naxes', ctypes.c_int),
                ('keepdims', ctypes.c_int), ('initial', ctypes.c_void_p),
                ('kind', ctypes.c_int), ('kth', ctypes.c_int64),
                ('ndim', ctypes.c_int), ('shape', ctypes.POINTER(ctypes.c_int64)),
                ('endpoint', ctypes.c_int), ('ddof', ctypes.c_int64),
                ('side', ctypes.c_int), ('sorter', ctypes.c_void_p),
                ('repeats', ctypes.c_void_p), ('nrepeats', ctypes.c_int64),
                ('n', ctypes.c_int64)]


class Ncl:
    """libncl.so through ctypes. Each NumPy array handed to the library is
    wrapped zero-copy with NclFromData (its data pointer, shape and byte
    strides, negative and zero ones included)."""

    def __init__(self, path):
        # a bare file name would make dlopen search the system paths
        if os.path.exists(path):
            path = os.path.abspath(path)
        self.lib = lib = ctypes.CDLL(path)
        vp, i32, i64p = ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_int64)
        pp = ctypes.POINTER(ctypes.c_void_p)
        prm = ctypes.POINTER(Params)
        sig = {
            'NclFromData': (i32, [i32, i32, i64p, i64p, vp, ctypes.c_uint32, vp, vp, pp]),
            'NclArrayRelease': (None, [vp]),
            'NclArrayNDim': (i32, [vp]),
            'NclArrayShape': (i64p, [vp]),
            'NclArrayStrides': (i64p, [vp]),
            'NclArrayDType': (i32, [vp]),
            'NclArrayData': (vp, [vp]),
            'NclBinary': (i32, [i32, vp, vp, pp, prm]),
            'NclCompare': (i32, [i32, vp, vp, pp, prm]),
            'NclUnary': (i32, [i32, vp, pp, prm]),
            'NclIsUnary': (i32, [i32, vp, pp, prm]),
            'NclConvert': (i32, [i32, vp, pp, prm]),
            'NclGetFPErrors': (i32, []),
            'NclLastError': (ctypes.c_char_p, []),
            'NclCanCast': (i32, [i32, i32, i32]),
            'NclPromoteTypes': (i32, [i32, i32]),
            'NclGetApi': (vp, []),
            'NclSetAccuracy': (i32, [i32]),
            'NclTernary': (i32, [i32, vp, vp, vp, pp, prm]),
            'NclReduce': (i32, [i32, vp, pp, prm]),
            'NclSort': (i32, [i32, vp, pp, prm]),
            'NclMask': (i32, [i32, vp, vp, pp, prm]),
        }
        for name, (res, args) in sig.items():
            fn = getattr(lib, name)
            fn.restype = res
            fn.argtypes = args
        if not lib.NclGetApi():
            raise RuntimeError('NclGetApi returned NULL')
        self.entry = {'binary': lib.NclBinary, 'compare': lib.NclCompare,
                      'unary': lib.NclUnary, 'isunary': lib.NclIsUnary,
                      'convert': lib.NclConvert, 'ternary': lib.NclTernary,
                      'reduce': lib.NclReduce, 'sort': lib.NclSort, 'mask': lib.NclMask}

    def wrap(self, arr, writeable):
        nd = arr.ndim
        shape = (ctypes.c_int64 * nd)(*arr.shape) if nd else None
        strides = (ctypes.c_int64 * nd)(*arr.strides) if nd else None
        out = ctypes.c_void_p()
        st = self.lib.NclFromData(ncl_dtype_code(arr.dtype), nd, shape, strides,
                                  ctypes.c_void_p(arr.ctypes.data),
                                  WRITEABLE if writeable else 0, None, None,
                                  ctypes.byref(out))
        if st != OK:
            raise RuntimeError('NclFromData(%s, shape %s, strides %s) -> %s: %s' % (
                arr.dtype, arr.shape, arr.strides, status_name(st), self.last_error()))
        return out

    def release(self, h):
        if h is not None and h.value:
            self.lib.NclArrayRelease(h)

    def last_error(self):
        m = self.lib.NclLastError()
        return m.decode('utf-8', 'replace') if m else ''

    def to_numpy(self, h):
        """A copy of the library's array h, read through its own strides."""
        lib = self.lib
        nd = lib.NclArrayNDim(h)
        code = lib.NclArrayDType(h)
        if not 0 <= code < len(DTYPES):
            raise RuntimeError('result has invalid dtype code %d' % code)
        dt = NP_DTYPES[code]
        shape = tuple(lib.NclArrayShape(h)[i] for i in range(nd))
        strides = tuple(lib.NclArrayStrides(h)[i] for i in range(nd))
        if any(s == 0 for s in shape):
            return np.empty(shape, dt)
        lo = sum(min(0, (n - 1) * s) for n, s in zip(shape, strides))
        hi = sum(max(0, (n - 1) * s) for n, s in zip(shape, strides)) + dt.itemsize
        base = lib.NclArrayData(h)
        buf = (ctypes.c_char * (hi - lo)).from_address(base + lo)
        view = np.ndarray(shape, dt, buffer=buf, offset=-lo, strides=strides)
        return view.copy()


# ---- oracles ------------------------------------------------------------------

def contiguous(x):
    """A C-contiguous copy that keeps 0-d arrays 0-d (np.ascontiguousarray
    makes them 1-d)."""
    return np.array(x, order='C', copy=True)


def no_value_based(x):
    """x as a contiguous operand NumPy types by its dtype alone: a 0-d array
    becomes a 1-element 1-d one (reshape the result back)."""
    x = contiguous(x)
    return x.reshape(1) if x.ndim == 0 else x


def quiet(fn, *args):
    with np.errstate(all='ignore'):
        return fn(*args)


def numpy_flags(fn):
    """The FP flags NumPy raises for fn(): its error callback gets the same
    bit numbering as NCL_FPE_*."""
    got = [0]

    def cb(kind, flag):
        got[0] |= flag
    old = np.seterrcall(cb)
    try:
        with np.errstate(all='call'):
            fn()
    finally:
        np.seterrcall(old)
    return got[0]


def saturating_astype(a, to):
    """NCLib's cast: as NumPy's astype, except float -> integer, which
    truncates and then saturates (NaN -> 0, beyond the range -> the nearest
    limit) where NumPy's C cast is undefined."""
    a = np.asarray(a)
    to = np.dtype(to)
    if a.dtype.kind == 'f' and to.kind in 'iu':
        info = np.iinfo(to)
        t = np.trunc(a.astype(F64))       # float32 -> float64 is exact
        lim = float(2 ** (info.bits - 1 if to.kind == 'i' else info.bits))
        lo = -lim if to.kind == 'i' else 0.0
        nan = np.isnan(t)
        low = t < lo
        high = t >= lim                   # 2**63 itself is out of int64 range
        safe = np.where(nan | low | high, 0.0, t)
        r = quiet(safe.astype, to)
        r = np.where(low, info.min, r).astype(to)
        r = np.where(high, info.max, r).astype(to)
        return r
    return quiet(a.astype, to)


def float_to_int_invalid(a, to):
    """Whether NCLib's cast of a to to must raise INVALID."""
    a = np.asarray(a)
    to = np.dtype(to)
    if a.dtype.kind != 'f' or to.kind not in 'iu' or a.size == 0:
        return False
    info = np.iinfo(to)
    t = np.trunc(a.astype(F64))
    lim = float(2 ** (info.bits - 1 if to.kind == 'i' else info.bits))
    lo = -lim if to.kind == 'i' else 0.0
    return bool(np.any(np.isnan(t) | (t < lo) | (t >= lim)))


class Expect:
    """What a call must give: status, and when OK the result's dtype and
    values, the ulps allowed, and whether -0.0 must equal -0.0 exactly.
    exact, when set, is the long double value the result approximates:
    the ulps are then measured against it, not against its rounding.

    Where the result is not one fixed array (an unstable argsort, a
    partition, a float sum held to an accuracy bound), check is a function
    of the result (a NumPy array) returning None or what is wrong; value
    then gives only the dtype and shape, checked first. statuses, when set,
    is the set of statuses the contract allows (it leaves the choice open),
    status being the one the corpus records."""

    def __init__(self, status, value=None, ulp=0, signed_zero=True, exact=None, check=None,
                 statuses=None):
        self.status = status
        self.value = value
        self.ulp = ulp
        self.signed_zero = signed_zero
        self.exact = exact
        self.check = check
        self.statuses = statuses


def oracle_ufunc(name, inputs):
    """NumPy's answer for a ufunc over array inputs, mapped to NCLib: a
    float16 result is computed in float32 instead; transcendental float
    results come from a long double evaluation (exact to well under an ulp)
    and may be 1 ulp off; integer reciprocal of 0 is 0 (NumPy's value there
    is a C undefined cast). 0-d operands are given to NumPy as 1-element
    arrays: NumPy 1.24 still applies value-based casting to them, NCLib
    (NEP 50) does not."""
    f = getattr(np, name)
    shape = np.broadcast_shapes(*[np.shape(x) for x in inputs])
    inputs = [no_value_based(x) for x in inputs]
    try:
        r = quiet(f, *inputs)
    except TypeError:
        return Expect(DTYPE)
    except ValueError:
        return Expect(INVALID_ARGUMENT)
    rdt = ncl_result_dtype(r.dtype)
    ulp = 0
    exact = None
    if rdt.kind == 'f' and name in TRANSCENDENTAL:
        # the loop runs in the result dtype: cast the inputs there first (an
        # int64 operand of a float64 loop is rounded), then evaluate exactly
        wide = [x.astype(rdt).astype(LD) for x in inputs]
        exact = quiet(f, *wide)
        r = quiet(exact.astype, rdt)
        ulp = 1 if len(inputs) == 1 else BINARY_ULP
    elif r.dtype == F16:
        # (ldexp's exponent keeps its integer dtype)
        r = quiet(f, *[x if name == 'ldexp' and i == 1 else x.astype(F32)
                       for i, x in enumerate(inputs)])
        assert r.dtype == F32, (name, r.dtype)
    if name == 'reciprocal' and rdt.kind in 'iu':
        r = np.where(inputs[0] == 0, 0, r).astype(rdt)
    return Expect(OK, np.asarray(r, dtype=rdt).reshape(shape), ulp, name not in ZERO_SIGN_FREE,
                  None if exact is None else np.asarray(exact).reshape(shape))


_CMP = {'equal': operator.eq, 'not_equal': operator.ne, 'less': operator.lt,
        'less_equal': operator.le, 'greater': operator.gt,
        'greater_equal': operator.ge}


def oracle_compare(name, a, b):
    """Exact comparison of the mathematical values: Python compares int with
    float exactly, and NaN is unequal to everything."""
    x, y = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    fn = _CMP[name]
    vals = [fn(p, q) for p, q in zip(x.ravel().tolist(), y.ravel().tolist())]
    return Expect(OK, np.array(vals, dtype=bool).reshape(x.shape))


# ncl/isunary.h says SIGNBIT is for floats only (NCL_ERR_DTYPE otherwise),
# "as in NumPy"; NumPy 1.24 accepts integers and bools (cast to float), and
# so does the library. The suite follows NumPy; set True for the header.
SIGNBIT_FLOATS_ONLY = False


def oracle_isunary(name, a):
    a = contiguous(a)
    if name == 'signbit' and SIGNBIT_FLOATS_ONLY and a.dtype.kind != 'f':
        return Expect(DTYPE)
    return Expect(OK, quiet(getattr(np, name), a).astype(bool))


def with_out_where(base, out=None, where=None, casting=3):
    """The expectation of a call with a provided output (of any dtype,
    under casting) and a where mask, from base, the expectation of the
    plain call: a refused cast is NCL_ERR_CASTING, an output shape the
    result does not broadcast to NCL_ERR_SHAPE; masked-out elements keep the output's values,
    or are zero in an allocated result. None when the two cannot be told
    apart exactly (a cast of a result known only within some ulps)."""
    if base.status != OK:
        return base
    res = base.value
    exact = base.exact
    if out is not None:
        if not np.can_cast(res.dtype, out.dtype, CASTINGS[casting]):
            return Expect(CASTING)
        try:
            fits = np.broadcast_shapes(res.shape, out.shape) == out.shape
        except ValueError:
            fits = False
        if not fits:
            return Expect(SHAPE)
        if base.ulp and out.dtype != res.dtype:
            return None
        # as NumPy's: the operands are broadcast to a larger output
        res = np.broadcast_to(res, out.shape)
        if exact is not None:
            exact = np.broadcast_to(exact, out.shape)
        val = saturating_astype(res, out.dtype)
        if where is not None:
            keep = np.broadcast_to(where, out.shape)
            val = np.where(keep, val, out)
            if exact is not None:
                exact = np.where(keep, exact, val.astype(LD))
        return Expect(OK, np.asarray(val, dtype=out.dtype), base.ulp, base.signed_zero, exact)
    if where is not None:
        keep = np.broadcast_to(where, res.shape)
        res = np.where(keep, res, np.zeros((), res.dtype)).astype(res.dtype)
        if exact is not None:
            exact = np.where(keep, exact, 0)
    return Expect(OK, res, base.ulp, base.signed_zero, exact)


# ---- values -------------------------------------------------------------------

def edge_values(dt):
    dt = np.dtype(dt)
    if dt.kind == 'b':
        return np.array([False, True])
    if dt.kind in 'iu':
        i = np.iinfo(dt)
        v = [i.min, i.min + 1, 0, 1, 2, 3, i.max - 1, i.max, i.max // 2, i.max // 2 + 1]
        if dt.kind == 'i':
            v += [-1, -2, -3]
        return np.array(v, dtype=dt)
    fi = np.finfo(dt)
    v = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5,
         3.0, -7.0, float(fi.smallest_subnormal), -float(fi.smallest_subnormal),
         float(fi.tiny), float(fi.max), -float(fi.max), 2.0 ** 24 + 2, 2.0 ** 31,
         -2.0 ** 31, 2.0 ** 53, 2.0 ** 63, -2.0 ** 63, 2.0 ** 64, 255.5, -128.5,
         65536.0, 1e-30, 4294967296.0]
    return quiet(np.array(v, dtype=F64).astype, dt)


# Value ranges where each unary function is interesting, and extra ranges
# for the second operand of some binary ops.
UNARY_DOMAIN = {'arcsin': (-1, 1), 'arccos': (-1, 1), 'arctanh': (-1, 1),
                'arccosh': (1, 40), 'log': (0, 50), 'log2': (0, 50),
                'log10': (0, 50), 'log1p': (-1, 50), 'sqrt': (0, 100),
                'exp': (-100, 100), 'exp2': (-150, 150), 'expm1': (-5, 5),
                'sinh': (-90, 90), 'cosh': (-90, 90), 'tanh': (-10, 10),
                'sin': (-30, 30), 'cos': (-30, 30), 'tan': (-10, 10),
                'cbrt': (-1000, 1000), 'arcsinh': (-1000, 1000),
                'arctan': (-100, 100)}


def random_values(dt, n, rng, lo=None, hi=None, edges=True, nonneg=False, small=False):
    """n values of dt: a mix of full-range and small integers, or of
    uniform, wide-magnitude and half-integer floats, with edge values mixed
    in at random places (unless edges is False)."""
    dt = np.dtype(dt)
    if dt.kind == 'b':
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind in 'iu':
        i = np.iinfo(dt)
        mn, mx = (0 if nonneg else i.min), i.max
        if lo is not None:
            mn, mx = max(mn, int(lo)), min(mx, int(hi))
        full = rng.integers(mn, mx, n, dtype=dt, endpoint=True)
        sm = rng.integers(max(mn, -20), min(mx, 20), n, endpoint=True).astype(dt)
        v = sm if small or lo is not None else np.where(rng.random(n) < 0.5, full, sm)
        if edges:
            e = edge_values(dt)
            if nonneg:
                e = e[e >= 0]
            if lo is not None:
                e = e[(e >= lo) & (e <= hi)]
            v = sprinkle(v, e, rng)
        return v.astype(dt)
    big = 300 if dt == F64 else 36
    uni = rng.uniform(-10 if lo is None else lo, 10 if hi is None else hi, n)
    mag = np.where(rng.random(n) < 0.5, -1.0, 1.0) * 10.0 ** rng.uniform(-big - 8, big, n)
    half = np.round(rng.uniform(-12, 12, n) * 2) / 2
    pick = rng.random(n)
    if lo is not None or small:
        v = np.where(pick < 0.8, uni, np.where(pick < 0.9, mag, half))
    else:
        v = np.where(pick < 0.4, uni, np.where(pick < 0.7, mag, half))
    if nonneg:
        v = np.abs(v)
    v = quiet(v.astype, dt)
    if edges:
        e = edge_values(dt)
        if nonneg:
            e = e[~(e < 0)]
        v = sprinkle(v, e, rng)
    return v


def sprinkle(v, extra, rng):
    """Puts random picks of extra at about an eighth of v's places."""
    v = v.copy()
    if v.size and extra.size:
        k = max(1, v.size // 8)
        at = rng.integers(0, v.size, k)
        v[at] = extra[rng.integers(0, extra.size, k)]
    return v


def operand_kw(op, dt, role):
    """Value ranges that make an op interesting: shift counts around the
    width, small non-negative integer exponents."""
    dt = np.dtype(dt)
    if role == 1 and dt.kind in 'iu':
        if op in ('left_shift', 'right_shift'):
            return dict(lo=-3, hi=dt.itemsize * 8 + 3)
        if op == 'power':
            return dict(nonneg=True, small=True)
    if role == 1 and dt.kind == 'f' and op == 'power':
        return dict(small=True)
    return {}


# ---- shapes and layouts ----------------------------------------------------------

LAYOUTS = ['C', 'F', 'sliced', 'reversed', 'misaligned']


def random_shape(rng, maxnd=4, maxext=7, zero_p=0.08):
    nd = int(rng.integers(0, maxnd + 1))
    return tuple(0 if rng.random() < zero_p else int(rng.integers(1, maxext + 1))
                 for _ in range(nd))


def operand_shape(out_shape, rng):
    """A shape that broadcasts to out_shape: some leading axes dropped, some
    extents set to 1."""
    nd = len(out_shape)
    drop = int(rng.integers(0, nd + 1)) if rng.random() < 0.4 else 0
    return tuple(1 if rng.random() < 0.3 else n for n in out_shape[drop:])


def place(values, layout):
    """values (any array) copied into a new array of the given memory layout."""
    v = np.asarray(values)
    shape, dt = v.shape, v.dtype
    if layout == 'C' or (v.ndim == 0 and layout != 'misaligned'):
        return np.array(v, copy=True)
    if layout == 'F':
        return np.array(v, order='F', copy=True)
    if layout == 'sliced':
        big = np.zeros(tuple(2 * n for n in shape), dt)
        r = big[tuple(slice(None, None, 2) for _ in shape)]
        r[...] = v
        return r
    if layout == 'reversed':
        rev = tuple(slice(None, None, -1) for _ in shape)
        return np.ascontiguousarray(v[rev])[rev]
    if layout == 'misaligned':
        buf = np.zeros(v.nbytes + 1, np.uint8)
        r = np.ndarray(shape, dt, buffer=buf, offset=1)
        r[...] = v
        return r
    raise ValueError(layout)


def random_operand(dt, shape, rng, layout=None, bcast_p=0.15, **kw):
    """An operand of the given shape in a random layout; sometimes a
    broadcast view (zero strides) of a smaller array."""
    layout = layout or LAYOUTS[int(rng.integers(0, len(LAYOUTS)))]
    if shape and rng.random() < bcast_p:
        small = tuple(1 if rng.random() < 0.5 else n for n in shape)
        base = place(random_values(dt, int(np.prod(small)), rng, **kw).reshape(small), layout)
        return np.broadcast_to(base, shape), layout + '+bcast'
    vals = random_values(dt, int(np.prod(shape)), rng, **kw).reshape(shape)
    return place(vals, layout), layout


def describe(arr):
    if arr is None:
        return 'NULL'
    return '%s%s strides %s' % (arr.dtype, list(arr.shape), list(arr.strides))


# ---- cases -----------------------------------------------------------------------

class Check:
    """A check that is not one call with arrays (NclCanCast against
    np.can_cast, say): fn(ncl) returns None or what went wrong."""

    def __init__(self, title, fn):
        self._title = title
        self.run = fn

    def title(self):
        return self._title


class Case:
    """One call and its expected outcome (see the module comment)."""

    def __init__(self, kind, opname, inputs, expect, out=None, where=None,
                 dtype=None, casting=None, fpe=None, note='', params=None, accuracy=None,
                 axes=None, keepdims=False, initial=None, sort_kind=0, kth=0,
                 out_writeable=True):
        self.kind = kind
        self.opname = opname
        self.op = OPS[kind].index(opname)
        self.inputs = inputs
        self.expect = expect
        self.out = out
        self.where = where
        self.dtype = dtype
        self.casting = casting
        self.fpe = fpe
        self.note = note
        self.accuracy = accuracy      # NclSetAccuracy tier for this call
        # Reduce, Sort, Mask: axes (a tuple, None = NULL), keepdims, initial
        # (a NumPy scalar of the result dtype, None = NULL), kind, kth
        self.axes = None if axes is None else tuple(int(x) for x in axes)
        self.keepdims = bool(keepdims)
        self.initial = initial
        self.sort_kind = sort_kind
        self.kth = int(kth)
        self.out_writeable = out_writeable
        # pass NULL params when nothing is set, unless asked otherwise
        self.params = params if params is not None else (
            where is not None or dtype is not None or casting is not None or
            axes is not None or keepdims or initial is not None or sort_kind != 0 or kth != 0)

    def title(self):
        ins = ', '.join(describe(x) for x in self.inputs)
        extra = []
        if self.out is not None:
            extra.append('out=' + describe(self.out))
        if self.where is not None:
            extra.append('where=' + describe(self.where))
        if self.dtype is not None:
            extra.append('dtype=%s' % np.dtype(self.dtype))
        if self.casting is not None:
            extra.append('casting=%s' % CASTINGS[self.casting])
        if self.accuracy:
            extra.append('accuracy=FAST')
        if self.axes is not None:
            extra.append('axes=%s' % (list(self.axes),))
        if self.keepdims:
            extra.append('keepdims')
        if self.initial is not None:
            extra.append('initial=%r' % (self.initial.item(),))
        if self.sort_kind:
            extra.append('stable')
        if self.kth:
            extra.append('kth=%d' % self.kth)
        if not self.out_writeable:
            extra.append('out read-only')
        if self.note:
            extra.append(self.note)
        return '%s(%s)(%s)%s' % (self.kind, self.opname, ins,
                                 ' [' + '; '.join(extra) + ']' if extra else '')


def ulp_steps(got, exp):
    """Representable values between got and exp (same float dtype), with -0
    and +0 one point; both NaN gives 0, one NaN a huge number."""
    dt = exp.dtype
    ut = np.uint32 if dt == F32 else np.uint64
    sign = ut(1) << ut(dt.itemsize * 8 - 1)

    def key(x):
        u = np.ascontiguousarray(x).view(ut).astype(np.uint64)
        s = np.uint64(sign)
        return np.where(u & s, s - (u & ~s), s + u)
    kg, ke = key(got), key(exp)
    d = np.where(kg > ke, kg - ke, ke - kg)
    gn, en = np.isnan(got), np.isnan(exp)
    d = np.where(gn & en, np.uint64(0), d)
    d = np.where(gn != en, np.uint64(2 ** 63), d)
    return d


def ulp_error(got, exact, dt):
    """|got - exact| in units of the last place of dt at exact (the ulp of
    the largest finite value beyond it); 0 where got is exact's rounding
    (infinities included) or both are NaN, inf where only one is NaN."""
    g = got.astype(LD)
    e = exact.astype(LD)
    r = quiet(e.astype, dt)
    fi = np.finfo(dt)
    top = fi.max - np.nextafter(fi.max, dt.type(0))
    sp = np.where(np.isinf(r), top, quiet(np.spacing, np.abs(np.where(np.isinf(r), 0, r))))
    sp = np.where(np.isinf(sp), top, sp)
    sp = np.maximum(sp, fi.smallest_subnormal).astype(LD)
    err = quiet(lambda: np.abs(g - e) / sp)
    err = np.where(got == r, 0, err)
    gn, en = np.isnan(got), np.isnan(e)
    err = np.where(gn & en, 0, err)
    err = np.where(gn != en, np.inf, err)
    return np.where(np.isnan(err), np.inf, err)


def compare_values(got, exp):
    """None when got matches the expectation exp (shape, dtype, values),
    else why not."""
    ev = exp.value
    if got.dtype != ev.dtype:
        return 'dtype %s, expected %s' % (got.dtype, ev.dtype)
    if got.shape != ev.shape:
        return 'shape %s, expected %s' % (got.shape, ev.shape)
    if exp.check is not None:
        return exp.check(got)
    if got.size == 0:
        return None
    g, e = got.ravel(), np.ascontiguousarray(ev).ravel()
    if e.dtype.kind == 'f':
        if exp.exact is not None:
            # a real-valued error against the long double value, with room
            # for that value's own error (2**-11 ulp of float64 at most)
            bad = ulp_error(g, exp.exact.ravel(), e.dtype) > exp.ulp * (1 + 2.0 ** -9)
        else:
            bad = ulp_steps(g, e) > exp.ulp
        if exp.signed_zero:
            bad |= (g == 0) & (e == 0) & (np.signbit(g) != np.signbit(e))
    else:
        bad = g != e
    if not bad.any():
        return None
    idx = np.flatnonzero(bad)
    shown = ', '.join('[%d] got %r expected %r' % (i, g[i].item(), e[i].item())
                      for i in idx[:4])
    return '%d of %d elements differ (%s%s)' % (idx.size, g.size, shown,
                                                ', ...' if idx.size > 4 else '')


def run_case(ncl, case):
    """Runs case through the library; returns None on success, else a
    message saying what went wrong."""
    handles = []
    try:
        ins = [ncl.wrap(x, False) if x is not None else ctypes.c_void_p() for x in case.inputs]
        handles += ins
        outh = None
        before = None
        if case.out is not None:
            before = case.out.copy()
            outh = ncl.wrap(case.out, case.out_writeable)
            handles.append(outh)
        wh = None
        if case.where is not None:
            wh = ncl.wrap(case.where, False)
            handles.append(wh)
        prm = None
        if case.params:
            prm, keep = make_params(case, wh)
        out = ctypes.c_void_p(outh.value if outh is not None else None)
        if case.accuracy:
            ncl.lib.NclSetAccuracy(case.accuracy)
        try:
            st = ncl.entry[case.kind](case.op, *ins, ctypes.byref(out),
                                      ctypes.byref(prm) if prm is not None else None)
            flags = ncl.lib.NclGetFPErrors()
        finally:
            if case.accuracy:
                ncl.lib.NclSetAccuracy(0)
        msg = ncl.last_error() if st != OK else ''
        if out.value and (outh is None or out.value != outh.value):
            handles.append(out)
        exp = case.expect
        allowed = exp.statuses if exp.statuses else (exp.status,)
        if st not in allowed:
            return 'status %s, expected %s (message: %s)' % (
                status_name(st), ' or '.join(status_name(x) for x in allowed), msg)
        if st != OK:
            if not msg:
                return 'failed with %s but NclLastError() is empty' % status_name(st)
            if outh is None and out.value:
                return '*out was set on failure'
            if outh is not None and out.value != outh.value:
                return '*out was changed on failure'
            if before is not None and st != INVALID_ARGUMENT and \
                    before.tobytes() != case.out.tobytes():
                return 'provided output was modified on failure'
            return None
        if outh is not None:
            if out.value != outh.value:
                return '*out no longer points at the provided output'
            got = case.out
        else:
            if not out.value:
                return 'status OK but *out is NULL'
            got = ncl.to_numpy(out)
        why = compare_values(np.asarray(got), exp)
        if why:
            return why
        if case.fpe is not None:
            need, forbid = case.fpe
            if (flags & need) != need or (flags & forbid):
                return 'FP flags 0x%x, expected all of 0x%x and none of 0x%x' % (
                    flags, need, forbid)
        return None
    except Exception as e:      # a broken binding or result is one failed case
        return 'exception: %r' % (e,)
    finally:
        for h in handles:
            ncl.release(h)


def make_params(case, wh):
    """The NclParams of a case, and the ctypes objects it points into
    (kept alive by the caller for the call's duration)."""
    axes = None
    if case.axes is not None:
        axes = (ctypes.c_int * max(1, len(case.axes)))(*case.axes)
    initial = None
    if case.initial is not None:
        raw = np.asarray(case.initial).tobytes()
        initial = ctypes.create_string_buffer(raw, len(raw))
    prm = Params(ctypes.sizeof(Params), wh.value if wh is not None else None,
                 -1 if case.dtype is None else ncl_dtype_code(case.dtype),
                 3 if case.casting is None else case.casting,
                 ctypes.cast(axes, ctypes.c_void_p) if axes is not None else None,
                 0 if case.axes is None else len(case.axes), int(case.keepdims),
                 ctypes.cast(initial, ctypes.c_void_p) if initial is not None else None,
                 case.sort_kind, case.kth)
    return prm, (axes, initial)


def call(ncl, case):
    """Makes case's call (its expectation is not looked at) and returns
    (status, a copy of the result or None, the message on failure): for
    checks that compare several calls with each other."""
    handles = []
    try:
        ins = [ncl.wrap(x, False) if x is not None else ctypes.c_void_p() for x in case.inputs]
        handles += ins
        outh = ncl.wrap(case.out, case.out_writeable) if case.out is not None else None
        if outh is not None:
            handles.append(outh)
        wh = ncl.wrap(case.where, False) if case.where is not None else None
        if wh is not None:
            handles.append(wh)
        prm, keep = make_params(case, wh) if case.params else (None, None)
        out = ctypes.c_void_p(outh.value if outh is not None else None)
        st = ncl.entry[case.kind](case.op, *ins, ctypes.byref(out),
                                  ctypes.byref(prm) if prm is not None else None)
        if out.value and (outh is None or out.value != outh.value):
            handles.append(out)
        if st != OK:
            return st, None, ncl.last_error()
        got = case.out.copy() if outh is not None else ncl.to_numpy(out)
        return st, got, ''
    finally:
        for h in handles:
            ncl.release(h)


# ---- the replay corpus ------------------------------------------------------------

def _extent(arr):
    lo = sum(min(0, (n - 1) * s) for n, s in zip(arr.shape, arr.strides))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(arr.shape, arr.strides)) + arr.itemsize
    if arr.size == 0:
        lo, hi = 0, 0
    a = arr.ctypes.data
    return a + lo, a + hi


def replayable(case, max_ulp=1 << 20):
    """Whether the C replayer can check case: one status, a writeable
    output, and a fixed result (or, for accuracy-checked results, their
    replay form within max_ulp ulps)."""
    exp = case.expect
    if exp.statuses is not None or not case.out_writeable:
        return False
    if exp.status == OK and exp.check is not None:
        replay = getattr(exp, 'replay', None)
        return replay is not None and replay()[1] <= max_ulp
    return True


def corpus_entry(case):
    """The case as text lines for tests/test_diff_replay.c (format documented
    in tests/diff/README.md)."""
    roles = [('in%d' % i, x) for i, x in enumerate(case.inputs) if x is not None]
    if case.out is not None:
        roles.append(('out', case.out))
    if case.where is not None:
        roles.append(('where', case.where))
    # arrays whose memory overlaps share one buffer, so aliasing replays;
    # an empty array gets an empty buffer of its own
    spans = sorted((_extent(arr) + (i,) for i, (_, arr) in enumerate(roles)),
                   key=lambda t: t[0])
    groups = []
    for lo, hi, i in spans:
        if hi > lo and groups and groups[-1][1] > lo:
            g = groups[-1]
            g[1] = max(g[1], hi)
            g[2].append(i)
        elif hi > lo:
            groups.append([lo, hi, [i]])
        else:
            groups.insert(0, [lo, lo, [i]])
    exp = case.expect
    value, ulp = exp.value, exp.ulp + (exp.exact is not None)
    if exp.status == OK and exp.check is not None:
        value, ulp = exp.replay()
    fneed, fforbid = case.fpe if case.fpe is not None else (0, 0)
    lines = ['case %s %d %d %d %d %d %d %d %d %d %d %d' % (
        case.kind, case.op, -1 if case.dtype is None else ncl_dtype_code(case.dtype),
        -1 if case.casting is None else case.casting, int(case.params),
        # the replay compares with the rounded reference only, which may
        # itself be one step off the exact value: one more step of room
        exp.status, ulp, int(exp.signed_zero), fneed, fforbid,
        len(groups), case.accuracy or 0)]
    lines.append('# ' + case.title())
    if case.axes is not None or case.keepdims or case.initial is not None or \
            case.sort_kind or case.kth:
        ini = '-1 -' if case.initial is None else '%d %s' % (
            ncl_dtype_code(case.initial.dtype), np.asarray(case.initial).tobytes().hex())
        axes = [-1] if case.axes is None else [len(case.axes)] + list(case.axes)
        lines.append('params %s %d %d %d %s' % (' '.join(str(x) for x in axes),
                                                int(case.keepdims), case.sort_kind, case.kth,
                                                ini))
    owner = {}
    for b, (lo, hi, members) in enumerate(groups):
        data = ctypes.string_at(lo, hi - lo)
        # modulo 16, NumPy's allocation alignment: what an element's own
        # misalignment depends on, and the same on every run
        lines.append('buf %d %d %d %s' % (b, hi - lo, lo % 16, data.hex() or '-'))
        for m in members:
            owner[m] = (b, lo)
    for i, (role, arr) in enumerate(roles):
        b, lo = owner[i]
        first = arr.ctypes.data - lo if arr.size else 0
        lines.append('arr %s %d %d %d %s %s' % (
            role, ncl_dtype_code(arr.dtype), b, first, arr.ndim,
            ' '.join(str(x) for x in list(arr.shape) + list(arr.strides))))
    if exp.status == OK:
        v = contiguous(value)
        lines.append('expect %d %d %s %s' % (
            ncl_dtype_code(v.dtype), v.ndim, ' '.join(str(x) for x in v.shape),
            v.tobytes().hex() or '-'))
    lines.append('end')
    return '\n'.join(lines) + '\n'


# ---- the command line ---------------------------------------------------------------

def parse_args(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument('--lib', default=os.environ.get('NCL_LIB'),
                   help='path of libncl.so (default: $NCL_LIB)')
    p.add_argument('--seed', type=int, default=int(os.environ.get('NCL_DIFF_SEED', '12345')))
    p.add_argument('--rounds', type=int, default=int(os.environ.get('NCL_DIFF_ROUNDS', '1')),
                   help='multiplies the number of random cases')
    p.add_argument('--show', type=int, default=25, help='failures printed in full')
    p.add_argument('-k', dest='filter', default=None,
                   help='only cases whose title contains this text')
    return p.parse_args()


def main(name, generate, description=''):
    """Runs every case that generate(rng, rounds) yields and prints the
    summary line; the exit status is 1 on any failure."""
    args = parse_args(description or name)
    if not args.lib:
        print('%s: no library: pass --lib or set NCL_LIB' % name)
        return 2
    ncl = Ncl(args.lib)
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    passed = failed = 0
    for case in generate(rng, args.rounds):
        if args.filter and args.filter not in case.title():
            continue
        why = case.run(ncl) if hasattr(case, 'run') else run_case(ncl, case)
        if why is None:
            passed += 1
            continue
        failed += 1
        if failed <= args.show:
            print('FAIL %s\n     %s' % (case.title(), why))
    print('%s: %d passed, %d failed (seed %d, rounds %d, %.1f s)' % (
        name, passed, failed, args.seed, args.rounds, time.time() - t0))
    sys.stdout.flush()
    return 1 if failed else 0
