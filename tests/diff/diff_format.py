"""diff_format.py: NclArrayFormat against NumPy's repr() under the default
print options, character for character.

A seeded sweep over the 11 dtypes and shapes: 0-d, empty ((0,), (0, 3),
(3, 0), (2, 0, 4)), 1-d to 4-d of random extents, long rows that wrap, and
summarised arrays of more than 1000 elements; in C, Fortran, sliced,
reversed (negative strides), misaligned and broadcast (zero strides)
layouts. Values: integers across their whole range with min and max,
booleans, and floats drawn in styles that steer NumPy's choices: whole
numbers, few decimals, values needing all 17 digits, random bit patterns
(subnormals included), powers of two, magnitudes spread wide enough to switch to
scientific notation, values at the switch points (1e8, 1e-4, a ratio of
1000), and NaN, +-inf, +-0 sprinkled in. Also checks the length the size
query reports and that the exact capacity is enough.

    python3 tests/diff/diff_format.py --lib build/libncl.so [--seed N] [--rounds N]
"""

import ctypes
import sys

import numpy as np

import ncl_diff as nd

EMPTY_SHAPES = [(0,), (0, 3), (3, 0), (2, 0, 4), (0, 0)]
SUMMARY_SHAPES = [(1001,), (2000,), (40, 30), (12, 10, 10), (7, 8, 9, 3), (1, 1001),
                  (1001, 1), (3, 400), (500, 3), (2, 2, 2, 200)]
FLOAT_STYLES = ['whole', 'decimals', 'unit', 'digits17', 'bits', 'wide', 'tiny', 'huge',
                'edge', 'near1e8', 'near1e-4', 'ratio1000', 'round8', 'special', 'neg',
                'mixed_nonfinite', 'all_nonfinite', 'zeros', 'pow2', 'pow2_mixed']


def setup(ncl):
    f = ncl.lib.NclArrayFormat
    f.restype = ctypes.c_int
    f.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                  ctypes.POINTER(ctypes.c_size_t)]
    return f


def ncl_format(ncl, a):
    """NclArrayFormat's text for a, or an error string starting with '!'."""
    if not hasattr(ncl, 'fmt'):
        ncl.fmt = setup(ncl)
    f = ncl.fmt
    h = ncl.wrap(a, False)
    try:
        n = ctypes.c_size_t(12345)
        st = f(h, None, 0, ctypes.byref(n))
        if st != nd.INVALID_ARGUMENT:
            return '!size query returned %s: %s' % (nd.status_name(st), ncl.last_error())
        need = n.value
        buf = ctypes.create_string_buffer(b'\x7f' * (need + 8))
        st = f(h, buf, need, ctypes.byref(n))
        if st != nd.INVALID_ARGUMENT or buf.raw[0] != 0x7f:
            return '!cap = length: %s, buffer touched: %r' % (nd.status_name(st), buf.raw[:4])
        st = f(h, buf, need + 1, ctypes.byref(n))
        if st != nd.OK:
            return '!format returned %s: %s' % (nd.status_name(st), ncl.last_error())
        if n.value != need or buf.raw[need] != 0 or buf.raw[need + 1] != 0x7f:
            return '!length %d after a size query of %d' % (n.value, need)
        return buf.raw[:need].decode('ascii', 'replace')
    finally:
        ncl.release(h)


# ---- values -----------------------------------------------------------------------

def int_values(dt, n, rng):
    info = np.iinfo(dt)
    style = int(rng.integers(0, 4))
    if style == 0:      # the whole range
        v = rng.integers(info.min, info.max, size=n, dtype=dt, endpoint=True)
    elif style == 1:    # small
        lo = max(info.min, -20)
        v = rng.integers(lo, 21, size=n).astype(dt)
    elif style == 2:    # one magnitude
        hi = min(info.max, 10 ** int(rng.integers(1, 19)))
        lo = max(info.min, -hi)
        v = rng.integers(lo, hi, size=n, dtype=dt, endpoint=True)
    else:               # the limits mixed in
        v = rng.integers(max(info.min, -1000), min(info.max, 1000), size=n, dtype=dt)
    v = np.array(v, dtype=dt)
    if n and rng.random() < 0.5:
        k = int(rng.integers(1, 4))
        idx = rng.integers(0, n, size=k)
        v[idx] = rng.choice(np.array([info.min, info.max, 0], dtype=dt), size=k)
    return v


def float_values(dt, n, rng, style):
    f32 = dt == np.float32
    if style == 'whole':
        v = rng.integers(-10 ** int(rng.integers(1, 8)), 10 ** int(rng.integers(1, 8)),
                         size=n).astype(np.float64)
    elif style == 'decimals':
        v = np.round(rng.uniform(-1000, 1000, n), int(rng.integers(0, 6)))
    elif style == 'unit':
        v = rng.random(n)
    elif style == 'digits17':
        # random doubles mostly need 16 or 17 digits
        v = rng.random(n) * 10.0 ** int(rng.integers(-3, 7))
    elif style == 'bits':
        if f32:
            v = rng.integers(0, 2 ** 32, size=n, dtype=np.uint64).astype(np.uint32).view(np.float32)
        else:
            v = rng.integers(0, 2 ** 64, size=n, dtype=np.uint64).view(np.float64)
        return np.array(v, dtype=dt)
    elif style == 'wide':
        lo, hi = sorted(rng.integers(-320 if not f32 else -45, 309 if not f32 else 39, size=2))
        with np.errstate(over='ignore'):
            v = 10.0 ** rng.uniform(lo, hi + 1, n) * rng.choice([-1.0, 1.0], n)
    elif style == 'tiny':
        v = rng.random(n) * 10.0 ** int(rng.integers(-40 if f32 else -320, -3))
    elif style == 'huge':
        v = rng.random(n) * 10.0 ** int(rng.integers(7, 38 if f32 else 308))
    elif style == 'edge':
        fi = np.finfo(dt)
        pool = [0.0, -0.0, 1.0, -1.0, float(fi.max), -float(fi.max), float(fi.tiny),
                float(fi.tiny) * 2 ** -3, float(np.nextafter(dt.type(0), dt.type(1))), float(fi.eps),
                0.1, 0.2, 0.3, 0.1 + 0.2, 1 / 3, 1.0000000000000002, 1e16, 1e-5,
                123456789.0, 9007199254740993.0]
        v = np.array(pool)[rng.integers(0, len(pool), n)]
    elif style == 'near1e8':
        v = np.array([99999999.0, 99999999.5, 1e8, 99999998.0, 1e8 - 1e-7,
                      100000000.5, 5.0, 0.5])[rng.integers(0, 8, n)]
    elif style == 'near1e-4':
        v = np.array([1e-4, 1.0001e-4, 9.999e-5, float(np.float32(1e-4)), 0.0001000000001,
                      0.5, 0.1])[rng.integers(0, 7, n)]
    elif style == 'ratio1000':
        base = float(rng.uniform(0.001, 100))
        v = np.array([base, base * 1000, base * 1000 * (1 + 1e-9), base * 999.999,
                      base * 1000.0001, base * 2])[rng.integers(0, 6, n)]
    elif style == 'round8':
        v = np.array([0.123456785, 0.123456775, 1.000000005, 2.5e-8 + 1, 0.99999999,
                      0.999999995, 9.999999995, 12345.678901234, 1.5, 0.000123456789])[
            rng.integers(0, 10, n)]
    elif style == 'special':
        v = rng.random(n) * 100
        m = rng.random(n) < 0.3
        v[m] = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0])[rng.integers(0, 5, int(m.sum()))]
    elif style == 'neg':
        v = -rng.random(n) * 10.0 ** int(rng.integers(-2, 9))
    elif style == 'mixed_nonfinite':
        v = 10.0 ** rng.uniform(-6, 10, n)
        m = rng.random(n) < 0.2
        v[m] = np.array([np.nan, np.inf, -np.inf])[rng.integers(0, 3, int(m.sum()))]
    elif style == 'all_nonfinite':
        v = np.array([np.nan, np.inf, -np.inf, -np.nan])[
            rng.integers(0, int(rng.integers(1, 5)), n)]
    elif style in ('pow2', 'pow2_mixed'):
        # below a power of two the next float is twice as close as above:
        # the shortest digits need not be the correctly rounded ones
        lo, hi = (-149, 127) if f32 else (-1074, 1023)
        v = np.ldexp(rng.choice([-1.0, 1.0], n), rng.integers(lo, hi + 1, n))
        if style == 'pow2_mixed':
            m = rng.random(n) < 0.5
            v[m] = v[m] * rng.uniform(0.5, 2, int(m.sum()))
    elif style == 'zeros':
        v = np.array([0.0, -0.0])[rng.integers(0, 2, n)]
    else:
        raise ValueError(style)
    with np.errstate(over='ignore', under='ignore', invalid='ignore'):
        return np.asarray(v, dtype=np.float64).astype(dt)


def values(dt, n, rng):
    if dt.kind == 'b':
        return np.asarray(rng.random(n) < rng.random(), dtype=bool), 'bool'
    if dt.kind in 'iu':
        return int_values(dt, n, rng), 'int'
    style = FLOAT_STYLES[int(rng.integers(0, len(FLOAT_STYLES)))]
    return float_values(dt, n, rng, style), style


def make_array(dt, shape, rng):
    """An array of shape in a random layout, and a note naming how it was
    made."""
    n = int(np.prod(shape)) if shape else 1
    v, style = values(dt, n, rng)
    v = v.reshape(shape)
    layout = nd.LAYOUTS[int(rng.integers(0, len(nd.LAYOUTS)))]
    if shape and n and rng.random() < 0.1:
        small = tuple(1 if rng.random() < 0.5 else k for k in shape)
        base = nd.place(v[tuple(slice(0, k) for k in small)], layout)
        return np.broadcast_to(base, shape), '%s %s+bcast' % (style, layout)
    return nd.place(v, layout), '%s %s' % (style, layout)


def random_shape(rng):
    r = rng.random()
    if r < 0.06:
        return ()
    if r < 0.10:
        return EMPTY_SHAPES[int(rng.integers(0, len(EMPTY_SHAPES)))]
    if r < 0.18:
        return SUMMARY_SHAPES[int(rng.integers(0, len(SUMMARY_SHAPES)))]
    if r < 0.30:
        return (int(rng.integers(8, 120)),)
    nd_ = int(rng.integers(1, 5))
    return tuple(int(rng.integers(1, 8)) for _ in range(nd_))


def check(a, note):
    title = '%s%s %s strides %s' % (a.dtype, list(a.shape), note, list(a.strides))

    def run(ncl):
        want = repr(a)
        got = ncl_format(ncl, a)
        if got == want:
            return None
        i = next((k for k in range(min(len(got), len(want))) if got[k] != want[k]),
                 min(len(got), len(want)))
        return ('first difference at character %d\n--- NumPy:\n%s\n--- NCLib:\n%s' %
                (i, want, got))
    return nd.Check(title, run)


def generate(rng, rounds):
    for _ in range(rounds):
        # every dtype at the fixed shapes
        for dt in nd.NP_DTYPES:
            for shape in [()] + EMPTY_SHAPES + SUMMARY_SHAPES[:3]:
                a, note = make_array(dt, shape, rng)
                yield check(a, note)
            # every float style at least a few times
            if dt.kind == 'f':
                for style in FLOAT_STYLES:
                    for shape in [(), (int(rng.integers(1, 12)),), (3, 4), (1200,)]:
                        n = int(np.prod(shape)) if shape else 1
                        v = float_values(dt, n, rng, style).reshape(shape)
                        yield check(nd.place(v, 'C'), style + ' C')
        # the random sweep
        for _ in range(3000):
            dt = nd.NP_DTYPES[int(rng.integers(0, len(nd.NP_DTYPES)))]
            a, note = make_array(dt, random_shape(rng), rng)
            yield check(a, note)


if __name__ == '__main__':
    sys.exit(nd.main('diff_format', generate, __doc__))
