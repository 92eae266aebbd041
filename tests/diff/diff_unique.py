"""diff_unique.py: the unique ops of NclSortN (unique_values,
unique_counts, unique_inverse, unique_all) against np.unique(a,
return_index, return_inverse, return_counts) of NumPy 1.24 (axis=None,
equal_nan), over the 11 dtypes, shapes of 0 to 3 dimensions (0-size and
0-d included), every memory layout (C, F, sliced, reversed, misaligned),
edge-heavy data (NaN, +-inf, -0.0 and 0.0, integer MIN/MAX, many
repeats), outputs allocated or provided (strided), and the refusals: a
wrong nout, provided outputs of the wrong length, shape or dtype, or
read-only, each leaving the slots and the outputs untouched.

What must hold (ncl/sort.h, NclSortN):
- values: np.unique's values (NaNs one value, last; -0.0 equal to 0.0).
  every op keeps the first occurrence's bits, so the values equal
  a.flat[indices] bit for bit (NumPy's stable path gives the same);
- indices, counts: np.unique's, int64;
- inverse: np.unique's reshaped to a's shape (NumPy 2's rule), int64.

    python3 tests/diff/diff_unique.py --lib build/libncl.so [--seed N] [--rounds N]
"""

import ctypes
import sys

import numpy as np

import ncl_diff as nd

OPS = {'unique_values': (4, 1), 'unique_counts': (5, 2), 'unique_inverse': (6, 2),
       'unique_all': (7, 4)}
KINDS = {'unique_values': ['values'], 'unique_counts': ['values', 'counts'],
         'unique_inverse': ['values', 'inverse'],
         'unique_all': ['values', 'indices', 'inverse', 'counts']}


def oracle(name, a):
    v, idx, inv, cnt = np.unique(a, return_index=True, return_inverse=True,
                                 return_counts=True)
    got = {'values': v, 'indices': idx.astype(np.int64),
           'inverse': inv.astype(np.int64).reshape(a.shape), 'counts': cnt.astype(np.int64)}
    if a.size:
        # the first occurrence's bits (NumPy's stable argsort gives them)
        got['values'] = a.ravel()[got['indices']]
    return [got[k] for k in KINDS[name]]


def same(got, want, zero_sign):
    if got.dtype != want.dtype:
        return 'dtype %s, expected %s' % (got.dtype, want.dtype)
    if got.shape != want.shape:
        return 'shape %s, expected %s' % (got.shape, want.shape)
    g, w = got.ravel(), want.ravel()
    if w.dtype.kind == 'f':
        eq = (g == w) | (np.isnan(g) & np.isnan(w))
        if zero_sign:
            eq &= (np.signbit(g) == np.signbit(w)) | np.isnan(w)
        bad = ~eq
    else:
        bad = g != w
    if not bad.any():
        return None
    i = np.flatnonzero(bad)
    return '%d of %d differ ([%d] got %r expected %r)' % (i.size, g.size, i[0], g[i[0]].item(),
                                                         w[i[0]].item())


class UniqueCase:
    def __init__(self, name, a, provide, rng, note='', bad=None, nout=None):
        self.name, self.a, self.note, self.bad = name, a, note, bad
        self.nout = OPS[name][1] if nout is None else nout
        self.want = oracle(name, a)
        self.status = nd.OK
        self.outs = [None] * 4
        for k, kind in enumerate(KINDS[name]):
            if not provide[k]:
                continue
            w = self.want[k]
            lay = nd.LAYOUTS[int(rng.integers(0, len(nd.LAYOUTS)))]
            self.outs[k] = nd.place(np.full(w.shape, 7, w.dtype), lay)
        if bad is not None:
            k, what = bad
            w = self.want[k]
            if what == 'length':
                self.outs[k] = np.full((w.size + 1,) if w.ndim == 1 else w.shape + (1,), 7,
                                       w.dtype)
                self.status = nd.SHAPE
            elif what == 'dtype':
                self.outs[k] = np.full(w.shape, 7, np.int32 if w.dtype != np.int32 else np.int16)
                self.status = nd.DTYPE
            elif what == 'readonly':
                self.outs[k] = np.full(w.shape, 7, w.dtype)
                self.status = nd.READONLY
        if self.nout != OPS[name][1]:
            self.status = nd.INVALID_ARGUMENT

    def title(self):
        return '%s(%s) out=(%s)%s%s' % (
            self.name, nd.describe(self.a),
            ', '.join('given' if o is not None else 'new' for o in self.outs[:OPS[self.name][1]]),
            ' bad %s' % (self.bad,) if self.bad else '',
            ' [%s]' % self.note if self.note else '')

    def run(self, ncl):
        lib = ncl.lib
        if not getattr(lib.NclSortN, 'argtypes', None):
            vp, i32 = ctypes.c_void_p, ctypes.c_int
            lib.NclSortN.argtypes = [i32, vp, i32, ctypes.POINTER(vp), vp]
        op, nout = OPS[self.name]
        ha = ncl.wrap(self.a, False)
        slots = (ctypes.c_void_p * 4)()
        before = [o.copy() if o is not None else None for o in self.outs]
        for k in range(nout):
            o = self.outs[k]
            writeable = not (self.bad and self.bad[0] == k and self.bad[1] == 'readonly')
            slots[k] = ncl.wrap(o, writeable).value if o is not None else None
        given = [slots[k] for k in range(4)]
        try:
            st = lib.NclSortN(op, ha, self.nout, slots, None)
            if st != self.status:
                return 'status %s, expected %s (%s)' % (nd.status_name(st),
                                                        nd.status_name(self.status),
                                                        ncl.last_error())
            if st != nd.OK:
                if [slots[k] for k in range(4)] != given:
                    return 'a failed call changed the out slots'
                for o, b in zip(self.outs, before):
                    if o is not None and not np.array_equal(o, b):
                        return 'a failed call wrote an output'
                return None
            for k in range(nout):
                if self.outs[k] is not None:
                    if slots[k] != given[k]:
                        return 'output %d: the provided array was replaced' % k
                    got = self.outs[k]
                else:
                    got = ncl.to_numpy(ctypes.c_void_p(slots[k]))
                why = same(got, self.want[k], True)
                if why:
                    return 'output %d (%s): %s' % (k, KINDS[self.name][k], why)
            return None
        finally:
            ncl.release(ha)
            for k in range(4):
                if slots[k]:
                    ncl.release(ctypes.c_void_p(slots[k]))


def data(dt, size, rng):
    """Values with repeats: edges, a few distinct values, or random ones."""
    r = rng.random()
    if r < 0.35:
        pool = nd.edge_values(dt)
        if dt.kind == 'f':
            pool = np.concatenate([pool, np.array([0.0, -0.0, np.nan, -np.nan], dt)])
        return pool[rng.integers(0, pool.size, size)] if pool.size else pool
    if r < 0.7:
        pool = nd.random_values(dt, int(rng.integers(1, 9)), rng)
        return pool[rng.integers(0, pool.size, size)]
    return nd.random_values(dt, size, rng)


def generate(rng, rounds):
    f = np.array([3.0, np.nan, -0.0, 0.0, -np.inf, np.inf, np.nan, -0.0, 1.0, 0.0, 3.0])
    for name in OPS:
        yield UniqueCase(name, f, [False] * 4, rng, '[pin] NaN, inf, zeros')
        yield UniqueCase(name, f[::-1], [False] * 4, rng, '[pin] reversed')
        yield UniqueCase(name, np.array(5.0), [False] * 4, rng, '[pin] 0-d')
        yield UniqueCase(name, np.zeros((2, 0)), [False] * 4, rng, '[pin] empty')
        yield UniqueCase(name, np.zeros((2, 0)), [True] * 4, rng, '[pin] empty, outs given')
        i = np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min, 0, -1, 1,
                      np.iinfo(np.int64).min], np.int64)
        yield UniqueCase(name, i, [False] * 4, rng, '[pin] int64 extremes')
        u = np.array([2 ** 64 - 1, 0, 2 ** 63, 2 ** 63 - 1, 1, 0], np.uint64)
        yield UniqueCase(name, u, [False] * 4, rng, '[pin] uint64 extremes')
        # refusals
        a = np.array([[2, 1, 2], [3, 1, 1]], np.int32)
        nout = OPS[name][1]
        yield UniqueCase(name, a, [False] * 4, rng, 'wrong nout', nout=nout + 1)
        yield UniqueCase(name, a, [False] * 4, rng, 'wrong nout', nout=0)
        for k in range(nout):
            for what in ('length', 'dtype', 'readonly'):
                yield UniqueCase(name, a, rng.random(4) < 0.5, rng, bad=(k, what))
    for name in OPS:
        for dt in nd.NP_DTYPES:
            for _ in range(12 * rounds):
                nd_ = int(rng.integers(0, 4))
                shape = tuple(int(rng.integers(0, 6 if nd_ > 1 else 300))
                              for _ in range(nd_))
                if rng.random() < 0.1:
                    shape = (int(rng.integers(300, 5000)),)
                size = int(np.prod(shape, dtype=np.int64))
                vals = data(dt, size, rng).reshape(shape)
                lay = nd.LAYOUTS[int(rng.integers(0, len(nd.LAYOUTS)))]
                a = nd.place(vals, lay)
                yield UniqueCase(name, a, rng.random(4) < 0.3, rng, 'layout %s' % lay)


if __name__ == '__main__':
    sys.exit(nd.main('diff_unique', generate, __doc__))
