"""diff_manip.py: NclManip against NumPy 1.24: concatenate, stack, repeat,
tile, flip and diff over the 11 dtypes (mixed dtypes for the joins), shapes
of 0 to 4 dimensions with 0-size extents, every axis (negative too, none
given), inputs in every memory layout (Fortran order, sliced, reversed,
misaligned, broadcast), edge values (NaN, +-inf, -0.0, integer MIN/MAX),
provided outputs in any layout, outputs overlapping an input, and refused
calls.

What must hold (ncl/manip.h):
- the result equals NumPy's bit for bit (NaN where NumPy has NaN, the sign
  of zero kept), with NumPy's dtype: np.result_type of the joined arrays or
  dtype=, the array's for repeat, tile and flip, subtract's (not_equal for
  bool) for diff, whose integers wrap as NumPy's do;
- one difference, on purpose: concatenate with axis=None types a 0-d input
  by its dtype (NumPy 2's rule), where NumPy 1.24 types it by its value;
  the oracle makes those inputs 1-d;
- axis out of range is NCL_ERR_AXIS, arrays that do not join NCL_ERR_SHAPE
  with the offending input's index in the message, negative repeats and a
  wrong count NCL_ERR_INVALID_ARGUMENT, a disallowed cast NCL_ERR_CASTING;
  a refused call leaves a provided output untouched.

    python3 tests/diff/diff_manip.py --lib build/libncl.so [--seed N] [--rounds N]
"""

import ctypes
import sys

import numpy as np

import ncl_diff as nd

OK, INVALID, SHAPE, CASTING, AXIS = 0, 1, 3, 6, 7
OPS = ['concatenate', 'stack', 'repeat', 'tile', 'flip', 'diff']
CASTINGS = ['no', 'equiv', 'safe', 'same_kind', 'unsafe']



def same(got, exp):
    """Bitwise-equal results: dtype, shape, values; NaN equal to NaN and
    the sign of zero kept."""
    if got.dtype != exp.dtype:
        return 'dtype %s, expected %s' % (got.dtype, exp.dtype)
    if got.shape != exp.shape:
        return 'shape %s, expected %s' % (got.shape, exp.shape)
    if got.dtype.kind == 'f':
        gn, en = np.isnan(got), np.isnan(exp)
        bad = (gn != en) | (~en & ((got != exp) | (np.signbit(got) != np.signbit(exp))))
    else:
        bad = got != exp
    if bad.any():
        i = tuple(int(x) for x in np.argwhere(bad)[0])
        return 'at %s: %r, expected %r' % (i, got[i], exp[i])
    return None


class Case:
    """One NclManip call: op, its inputs (None for an absent prepend or
    append), params, a provided output (or None), and what NumPy says:
    (status, array or None, text the message must contain)."""

    def __init__(self, op, inputs, expect, axes=None, dtype=None, casting=3, repeats=None,
                 n=1, out=None, note=''):
        self.op, self.inputs, self.expect = op, inputs, expect
        self.axes, self.dtype, self.casting = axes, dtype, casting
        self.repeats, self.n, self.out, self.note = repeats, n, out, note

    def title(self):
        ins = ', '.join('None' if a is None else '%s%s' % (a.dtype, a.shape) for a in self.inputs)
        return '%s(%s) axes=%s dtype=%s casting=%s repeats=%s n=%d out=%s %s' % (
            self.op, ins, self.axes, self.dtype, CASTINGS[self.casting], self.repeats, self.n,
            None if self.out is None else '%s%s' % (self.out.dtype, self.out.shape), self.note)

    def run(self, ncl):
        lib = ncl.lib
        fn = lib.NclManip
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                       ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(nd.Params)]
        handles = [None if a is None else ncl.wrap(a, False) for a in self.inputs]
        arr = (ctypes.c_void_p * max(1, len(handles)))(
            *[h.value if h is not None else None for h in handles])
        p = nd.Params()
        p.size = ctypes.sizeof(nd.Params)
        p.dtype = -1 if self.dtype is None else nd.ncl_dtype_code(np.dtype(self.dtype))
        p.casting = self.casting
        keep = []
        if self.axes is not None:
            ax = (ctypes.c_int * max(1, len(self.axes)))(*self.axes)
            keep.append(ax)
            p.axes = ctypes.cast(ax, ctypes.c_void_p)
            p.naxes = len(self.axes)
        if self.repeats is not None:
            rp = (ctypes.c_int64 * max(1, len(self.repeats)))(*self.repeats)
            keep.append(rp)
            p.repeats = ctypes.cast(rp, ctypes.c_void_p) if len(self.repeats) else None
            p.nrepeats = len(self.repeats)
        p.n = self.n
        out = ctypes.c_void_p()
        given = None
        before = None
        if self.out is not None:
            given = ncl.wrap(self.out, True)
            out = ctypes.c_void_p(given.value)
            before = self.out.copy()
        st = fn(OPS.index(self.op), len(self.inputs), arr, ctypes.byref(out), ctypes.byref(p))
        msg = ncl.last_error()
        try:
            status, exp, text = self.expect
            if st != status:
                return 'status %s, expected %s (%s)' % (nd.status_name(st), nd.status_name(status),
                                                        msg)
            if st != OK:
                if text and text not in msg:
                    return 'message %r lacks %r' % (msg, text)
                if self.out is not None and not np.array_equal(
                        self.out.view(np.uint8), before.view(np.uint8)):
                    return 'a refused call wrote its output'
                if out.value != (given.value if given is not None else None):
                    return '*out changed on failure'
                return None
            if self.out is not None:
                if out.value != given.value:
                    return 'the provided output was replaced'
                got = np.array(self.out, copy=True)
                exp = exp.astype(self.out.dtype) if exp.dtype != self.out.dtype else exp
            else:
                got = ncl.to_numpy(out)
            return same(got, exp)
        finally:
            if self.out is None:
                ncl.release(out)
            ncl.release(given)
            for h in handles:
                ncl.release(h)


# ---- oracles ----------------------------------------------------------------------

def numpy_call(op, inputs, axes, dtype, casting, repeats, n):
    """(status, result) from NumPy for a call NumPy accepts, else raises."""
    a = inputs[0]
    kw = {}
    with np.errstate(all='ignore'):
        if op in ('concatenate', 'stack') and dtype is not None:
            # NumPy checks the rule, NCLib's float -> integer cast saturates
            # (ncl_diff.saturating_astype): the inputs are cast here
            ins = [nd.no_value_based(x) for x in inputs] if op == 'concatenate' else inputs
            np.result_type(*ins)
            for x in ins:
                if not np.can_cast(x.dtype, dtype, CASTINGS[casting]):
                    raise TypeError('cast')
            ins = [nd.saturating_astype(np.asarray(x), np.dtype(dtype)) for x in inputs]
            inputs, dtype = ins, None
        if op == 'concatenate':
            ax = None if axes is None else axes[0]
            ins = [nd.no_value_based(x) if ax is None else x for x in inputs]
            return np.concatenate(ins, axis=ax, casting=CASTINGS[casting])
        if op == 'stack':
            return np.stack(inputs, axis=0 if axes is None else axes[0],
                            casting=CASTINGS[casting])
        if op == 'repeat':
            r = repeats[0] if len(repeats) == 1 else np.array(repeats)
            return np.repeat(a, r, axis=None if axes is None else axes[0])
        if op == 'tile':
            return np.tile(a, tuple(repeats))
        if op == 'flip':
            return np.array(np.flip(a, axis=None if axes is None else tuple(axes)), copy=True)
        kw = {}
        if len(inputs) > 1 and inputs[1] is not None:
            kw['prepend'] = inputs[1]
        if len(inputs) > 2 and inputs[2] is not None:
            kw['append'] = inputs[2]
        return np.array(np.diff(a, n=n, axis=-1 if axes is None else axes[0], **kw), copy=True)


# ---- generation --------------------------------------------------------------------

DTS = [np.dtype(d) for d in nd.DTYPES] if hasattr(nd, 'DTYPES') else None


def dtypes():
    return [np.dtype(x) for x in ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16',
                                  'uint32', 'uint64', 'float32', 'float64']]


def operand(dt, shape, rng):
    x, _ = nd.random_operand(dt, shape, rng)
    return x


def gen_case(op, rng, all_dt):
    dt = all_dt[int(rng.integers(0, len(all_dt)))]
    shape = nd.random_shape(rng, maxnd=4, maxext=5)
    kwargs = {}
    if op in ('concatenate', 'stack'):
        k = int(rng.integers(1, 5))
        mixed = rng.random() < 0.3
        dts = [all_dt[int(rng.integers(0, len(all_dt)))] if mixed else dt for _ in range(k)]
        if op == 'stack':
            ins = [operand(d, shape, rng) for d in dts]
            nd1 = len(shape) + 1
            axes = None if rng.random() < 0.2 else [int(rng.integers(-nd1, nd1))]
        elif rng.random() < 0.25 or not shape:
            ins = [operand(d, nd.random_shape(rng, maxnd=3, maxext=4), rng) for d in dts]
            axes = None
        else:
            ax = int(rng.integers(0, len(shape)))
            ins = []
            for d in dts:
                s = list(shape)
                s[ax] = int(rng.integers(0, 4))
                ins.append(operand(d, tuple(s), rng))
            axes = [ax - len(shape) if rng.random() < 0.3 else ax]
        if rng.random() < 0.2:
            kwargs['dtype'] = all_dt[int(rng.integers(1, len(all_dt)))]
            kwargs['casting'] = int(rng.integers(2, 5))
        return ins, axes, kwargs
    a = operand(dt, shape, rng)
    nd0 = len(shape)
    if op == 'repeat':
        axes = None if rng.random() < 0.3 or nd0 == 0 else [int(rng.integers(-nd0, nd0))]
        length = a.size if axes is None else shape[axes[0]]
        if rng.random() < 0.5 or length == 0:
            reps = [int(rng.integers(0, 4))]
        else:
            reps = [int(x) for x in rng.integers(0, 4, length)]
        kwargs['repeats'] = reps
        return [a], axes, kwargs
    if op == 'tile':
        kwargs['repeats'] = [int(x) for x in rng.integers(0, 4, int(rng.integers(0, 5)))]
        return [a], None, kwargs
    if op == 'flip':
        if rng.random() < 0.3 or nd0 == 0:
            axes = None
        else:
            axes = [int(x) for x in rng.permutation(nd0)[:int(rng.integers(0, nd0 + 1))]]
            axes = [x - nd0 if rng.random() < 0.3 else x for x in axes]
        return [a], axes, kwargs
    # diff
    if nd0 == 0:
        a = operand(dt, (int(rng.integers(0, 6)),), rng)
        nd0 = 1
    axes = None if rng.random() < 0.4 else [int(rng.integers(-nd0, nd0))]
    kwargs['n'] = int(rng.integers(0, 4))
    ins = [a]
    if rng.random() < 0.3:
        ax = -1 if axes is None else axes[0]
        pre = app = None
        for which in range(2):
            if rng.random() < 0.6:
                d2 = all_dt[int(rng.integers(0, len(all_dt)))] if rng.random() < 0.3 else a.dtype
                if rng.random() < 0.5:
                    e = operand(d2, (), rng)
                else:
                    s = list(a.shape)
                    s[ax] = int(rng.integers(0, 3))
                    e = operand(d2, tuple(s), rng)
                if which == 0:
                    pre = e
                else:
                    app = e
        ins = [a, pre] if app is None else [a, pre, app]
    return ins, axes, kwargs


def expected(op, ins, axes, kwargs):
    try:
        r = numpy_call(op, ins, axes, kwargs.get('dtype'), kwargs.get('casting', 3),
                       kwargs.get('repeats'), kwargs.get('n', 1))
        return (OK, np.asarray(r), None)
    except np.AxisError:
        return (AXIS, None, 'axis')
    except TypeError:
        return (CASTING, None, 'cast')
    except ValueError as e:
        return (SHAPE, None, None) if 'negative' not in str(e) else (INVALID, None, 'negative')


def generate(rng, rounds):
    all_dt = dtypes()
    for _ in range(300 * rounds):
        for op in OPS:
            ins, axes, kwargs = gen_case(op, rng, all_dt)
            exp = expected(op, ins, axes, kwargs)
            if exp[0] != OK:
                continue
            yield Case(op, ins, exp, axes=axes, **kwargs)
            # the same call into a provided output in another layout
            if exp[1].size and rng.random() < 0.3 and 'dtype' not in kwargs:
                out = nd.place(np.zeros(exp[1].shape, exp[1].dtype),
                               nd.LAYOUTS[int(rng.integers(0, len(nd.LAYOUTS)))])
                yield Case(op, ins, exp, axes=axes, out=out, note='provided', **kwargs)

    # edge values through every op, every dtype
    for dt in all_dt:
        e = nd.edge_values(dt)
        for op in OPS:
            kw = {}
            ins = [e]
            axes = None
            if op in ('concatenate', 'stack'):
                ins = [e, e[::-1]]
                axes = [0]
            elif op in ('repeat', 'tile'):
                kw['repeats'] = [2]
            elif op == 'diff':
                kw['n'] = 2
            yield Case(op, ins, expected(op, ins, axes, kw), axes=axes, note='edges', **kw)

    # outputs overlapping an input: the second half of a buffer whose first
    # half is the input
    for dt in all_dt:
        buf = nd.random_values(dt, 24, rng)
        a = buf[:8]
        for op, kw, axes, nout in (('concatenate', {}, [0], 16), ('flip', {}, None, 8),
                                   ('repeat', {'repeats': [2]}, None, 16),
                                   ('tile', {'repeats': [2]}, None, 16),
                                   ('diff', {'n': 1}, None, 7)):
            ins = [a, a] if op == 'concatenate' else [a]
            b = buf.copy()
            ins = [b[:8], b[:8]] if op == 'concatenate' else [b[:8]]
            exp = expected(op, [x.copy() for x in ins], axes, kw)
            out = b[3:3 + nout]
            yield Case(op, ins, exp, axes=axes, out=out, note='overlap', **kw)

    # refusals, each naming its input
    f = np.zeros((2, 3))
    yield Case('concatenate', [f, np.zeros((2, 2)), np.zeros((3, 3))],
               (SHAPE, None, 'input 2 has size 3'), axes=[1])
    yield Case('concatenate', [f, np.zeros(3)], (SHAPE, None, 'input 1 has 1 dimension'), axes=[0])
    yield Case('concatenate', [f, f], (AXIS, None, 'axis 2'), axes=[2])
    yield Case('stack', [f, f, np.zeros((3, 2))], (SHAPE, None, 'input 2 has shape'))
    yield Case('stack', [f, f], (AXIS, None, 'axis -4'), axes=[-4])
    yield Case('concatenate', [f, f], (CASTING, None, 'input 0'), axes=[0], dtype='int32')
    yield Case('repeat', [f], (INVALID, None, 'negative'), repeats=[-1])
    yield Case('repeat', [f], (INVALID, None, 'nrepeats'), repeats=[1, 2], axes=[1])
    yield Case('tile', [f], (INVALID, None, 'negative'), repeats=[2, -1])
    yield Case('flip', [f], (AXIS, None, 'repeated axis'), axes=[1, -1])
    yield Case('diff', [f], (INVALID, None, 'non-negative'), n=-1)
    yield Case('diff', [np.zeros(())], (SHAPE, None, 'at least one dimensional'))
    yield Case('flip', [f], (SHAPE, None, 'shape'), out=np.zeros((3, 2)))


if __name__ == '__main__':
    sys.exit(nd.main('diff_manip', generate, __doc__))
