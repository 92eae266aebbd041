"""diff_weak.py: weak scalars (NclWeakScalar) against NumPy's NEP 50
promotion (NumPy 1.24 under np._set_promotion_state('weak'), which is
NumPy 2's): every Binary op with an array of each dtype and a weak int or
float on either side, and clip with weak bounds: the result dtype
(float16 read as float32), the values, and the refusals: a weak integer
out of bounds for the loop (OverflowError, NCL_ERR_CASTING), no loop
(TypeError, NCL_ERR_DTYPE), an integer power with a negative exponent
(ValueError, NCL_ERR_INVALID_ARGUMENT).

    python3 tests/diff/diff_weak.py --lib build/libncl.so [--seed N] [--rounds N]
"""

import ctypes
import sys
import warnings

import numpy as np

import ncl_diff as nd

# Python scalars and the C dtype NclWeakScalar holds each in.
SCALARS = [3, -1, 0, 1000, -129, 70000, 2 ** 31, -(2 ** 40), 2 ** 63, 2 ** 64 - 1,
           2.5, -0.0, 1e300, float('nan'), float('inf')]
WEAK_INT64, WEAK_UINT64, WEAK_FLOAT64 = 4, 8, 10   # NCL_INT64, NCL_UINT64, NCL_FLOAT64


def weak_handle(ncl, v):
    lib = ncl.lib
    if not getattr(lib.NclWeakScalar, 'argtypes', None):
        lib.NclWeakScalar.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
    if isinstance(v, float):
        code, val = WEAK_FLOAT64, ctypes.c_double(v)
    elif v >= 2 ** 63:
        code, val = WEAK_UINT64, ctypes.c_uint64(v)
    else:
        code, val = WEAK_INT64, ctypes.c_int64(v)
    h = ctypes.c_void_p()
    st = lib.NclWeakScalar(code, ctypes.byref(val), ctypes.byref(h))
    if st != nd.OK:
        raise RuntimeError('NclWeakScalar: %s' % ncl.last_error())
    return h


def oracle(fn, args):
    """NumPy's answer under weak promotion, as (status, array)."""
    try:
        with np.errstate(all='ignore'), warnings.catch_warnings():
            warnings.simplefilter('ignore')
            r = fn(*args)
            if np.asarray(r).dtype == nd.F16:
                # NCLib's float32 for NumPy's float16: the arrays cast, a weak
                # int mantissa given as float32 (ldexp's exponent kept)
                def f32(i, a):
                    if fn is np.ldexp and i == 1:
                        return a
                    if isinstance(a, np.ndarray):
                        return a.astype(nd.F32)
                    return np.float32(a) if fn is np.ldexp else a
                r = fn(*[f32(i, a) for i, a in enumerate(args)])
    except OverflowError:
        return nd.CASTING, None
    except TypeError:
        return nd.DTYPE, None
    except ValueError:
        return nd.INVALID_ARGUMENT, None
    return nd.OK, np.asarray(r)


class WeakCase:
    def __init__(self, kind, name, op, args, note=''):
        self.kind, self.name, self.op, self.args, self.note = kind, name, op, args, note
        old = np._get_promotion_state()
        np._set_promotion_state('weak')
        try:
            # the ufunc itself: np.clip's wrapper treats NaN bounds and huge
            # Python ints its own way
            self.status, self.want = oracle(getattr(np.core.umath, name), args)
        finally:
            np._set_promotion_state(old)

    def title(self):
        return '%s(%s)%s' % (self.name, ', '.join(
            nd.describe(a) if isinstance(a, np.ndarray) else 'weak %r' % a for a in self.args),
            ' [%s]' % self.note if self.note else '')

    def run(self, ncl):
        hs = [ncl.wrap(a, False) if isinstance(a, np.ndarray) else weak_handle(ncl, a)
              for a in self.args]
        out = ctypes.c_void_p()
        try:
            if self.kind == 'binary':
                st = ncl.lib.NclBinary(self.op, hs[0], hs[1], ctypes.byref(out), None)
            else:
                st = ncl.lib.NclTernary(self.op, hs[0], hs[1], hs[2], ctypes.byref(out), None)
            if st != self.status:
                return 'status %s, expected %s (%s)' % (nd.status_name(st),
                                                        nd.status_name(self.status),
                                                        ncl.last_error())
            if st != nd.OK:
                return None if not out.value else 'a failed call set *out'
            got = ncl.to_numpy(out)
            want = self.want.astype(nd.ncl_result_dtype(self.want.dtype))
            if got.dtype != want.dtype:
                return 'dtype %s, expected %s' % (got.dtype, want.dtype)
            if got.shape != want.shape:
                return 'shape %s, expected %s' % (got.shape, want.shape)
            ulp = nd.BINARY_ULP if self.name in nd.TRANSCENDENTAL else 0
            e = nd.Expect(nd.OK, want, ulp, self.name not in nd.ZERO_SIGN_FREE)
            return nd.compare_values(got, e)
        finally:
            for h in hs:
                ncl.release(h)
            ncl.release(out)


def generate(rng, rounds):
    for k, name in enumerate(nd.BINARY_OPS):
        for dt in nd.NP_DTYPES:
            for v in SCALARS:
                for _ in range(rounds):
                    a = nd.random_values(dt, int(rng.integers(1, 24)), rng,
                                         **nd.operand_kw(name, dt, 0))
                    yield WeakCase('binary', name, k, [a, v])
                    b = nd.random_values(dt, int(rng.integers(1, 24)), rng,
                                         **nd.operand_kw(name, dt, 1))
                    yield WeakCase('binary', name, k, [v, b])
    # clip, a ufunc, with a weak bound on either side (np.where is not a
    # ufunc and NumPy 1.24 types its scalars the old way even in the weak
    # state; test_weak.c holds NCLib's where to the NEP 50 rule)
    for dt in nd.NP_DTYPES:
        for v in SCALARS:
            a = nd.random_values(dt, 9, rng)
            yield WeakCase('ternary', 'clip', 1, [a, v, np.asarray(a.max())])
            yield WeakCase('ternary', 'clip', 1, [a, np.asarray(a.min()), v])


if __name__ == '__main__':
    sys.exit(nd.main('diff_weak', generate, __doc__))
