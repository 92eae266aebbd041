"""diff_searchsorted.py: NclMask(searchsorted) against np.searchsorted of
NumPy 1.24: a 1-D sorted array of each of the 11 dtypes (NCLib's NaN-last
order, with repeats, NaN, +-inf, -0.0 and 0.0, integer MIN/MAX), in every
memory layout (C, sliced, reversed, misaligned), values v of any dtype
(compared in the common dtype, np.result_type) and shape (0-d, 0-size,
strided), both sides, with and without a sorter (any integer dtype, a
shuffled a), keys sorted and random, outputs allocated or provided; and the
refusals: a not 1-D, a sorter of the wrong length or with an entry out of
range, a side that is neither, an output of the wrong dtype or shape, or
read-only, each leaving the output untouched.

    python3 tests/diff/diff_searchsorted.py --lib build/libncl.so [--seed N] [--rounds N]
"""

import ctypes
import sys

import numpy as np

import ncl_diff as nd

SEARCHSORTED = len(nd.MASK_OPS)



def ncl_sorted(x):
    """x in NCLib's (and NumPy's) order."""
    return np.sort(x, kind='stable')


class SearchCase:
    def __init__(self, a, v, side, sorter=None, out=None, out_writeable=True, status=nd.OK,
                 note=''):
        self.a, self.v, self.side, self.sorter = np.asarray(a), np.asarray(v), side, sorter
        self.out, self.out_writeable, self.status, self.note = out, out_writeable, status, note
        self.want = None
        if status == nd.OK:
            with np.errstate(all='ignore'):
                s = None if sorter is None else sorter.astype(np.intp)
                self.want = np.asarray(np.searchsorted(a, v, 'left' if side == 0 else 'right',
                                                       sorter=s)).astype(np.int64)

    def title(self):
        return 'searchsorted(a=%s, v=%s, side=%d%s%s)%s' % (
            nd.describe(self.a), nd.describe(np.asarray(self.v)), self.side,
            ', sorter %s' % self.sorter.dtype if self.sorter is not None else '',
            ', out given' if self.out is not None else '',
            ' [%s]' % self.note if self.note else '')

    def run(self, ncl):
        v = np.asarray(self.v)
        ha, hv = ncl.wrap(self.a, False), ncl.wrap(v, False)
        hs = ncl.wrap(self.sorter, False) if self.sorter is not None else None
        ho = ncl.wrap(self.out, self.out_writeable) if self.out is not None else None
        before = self.out.copy() if self.out is not None else None
        prm = nd.Params()
        prm.size = ctypes.sizeof(nd.Params)
        prm.dtype, prm.casting, prm.kth = -1, 3, 0
        prm.side = self.side
        prm.sorter = hs.value if hs is not None else None
        out = ctypes.c_void_p(ho.value if ho is not None else None)
        fn = ncl.lib.NclMask
        try:
            st = fn.__call__(SEARCHSORTED, ha, hv, ctypes.byref(out),
                             ctypes.cast(ctypes.pointer(prm), ctypes.POINTER(nd.Params)))
            if st != self.status:
                return 'status %s, expected %s (%s)' % (nd.status_name(st),
                                                        nd.status_name(self.status),
                                                        ncl.last_error())
            if st != nd.OK:
                if self.out is not None and not np.array_equal(self.out, before):
                    return 'a refused call wrote the output'
                if out.value != (ho.value if ho is not None else None):
                    return 'a refused call changed *out'
                return None
            if ho is not None:
                if out.value != ho.value:
                    return 'the provided output was replaced'
                got = self.out
            else:
                got = ncl.to_numpy(out)
            if got.dtype != np.int64 or got.shape != self.want.shape:
                return 'got %s %s, expected int64 %s' % (got.dtype, got.shape, self.want.shape)
            bad = got != self.want
            if bad.any():
                i = np.flatnonzero(bad.ravel())[0]
                return '%d of %d differ ([%d] v=%r: got %d expected %d)' % (
                    bad.sum(), bad.size, i, v.ravel()[i].item(), got.ravel()[i],
                    self.want.ravel()[i])
            return None
        finally:
            for h in (ha, hv, hs):
                ncl.release(h)
            if out.value and (ho is None or out.value != ho.value):
                ncl.release(out)
            ncl.release(ho)


def values(dt, n, rng):
    """With repeats and, often, the edge values."""
    if rng.random() < 0.5:
        pool = nd.edge_values(dt)
        if dt.kind == 'f':
            pool = np.concatenate([pool, np.array([0.0, -0.0, np.nan, 1.5, -2.0], dt)])
        extra = nd.random_values(dt, 4, rng)
        pool = np.concatenate([pool, extra]).astype(dt)
        return pool[rng.integers(0, pool.size, n)]
    return nd.random_values(dt, n, rng)


def generate(rng, rounds):
    f = ncl_sorted(np.array([3.0, np.nan, -0.0, 0.0, -np.inf, np.inf, np.nan, 1.0, 1.0]))
    keys = np.array([np.nan, -np.inf, -0.0, 0.0, 1.0, 2.0, np.inf, -5.0, 3.0])
    for side in (0, 1):
        yield SearchCase(f, keys, side, note='[pin] NaN, inf, zeros')
        yield SearchCase(f, np.sort(keys), side, note='[pin] sorted keys')
        yield SearchCase(f[:0], keys, side, note='[pin] empty a')
        yield SearchCase(f, keys[:0].reshape(0, 3), side, note='[pin] no keys')
        yield SearchCase(f, np.float64(1.0), side, note='[pin] 0-d v')
        i = np.array([np.iinfo(np.int64).min, -1, 0, 0, 5, np.iinfo(np.int64).max], np.int64)
        yield SearchCase(i, i[::-1].copy(), side, note='[pin] int64 extremes')
        u = np.array([0, 1, 2 ** 63, 2 ** 64 - 1], np.uint64)
        yield SearchCase(u, u, side, note='[pin] uint64 extremes')
        yield SearchCase(u, np.array([-1, 3], np.int64), side, note='[pin] uint64 with int64 keys')
        yield SearchCase(np.array([1, 2, 3], np.int8), np.array([2.5, -0.5, 300.0]), side,
                         note='[pin] int8 a, float64 keys')
    # refusals
    a = np.array([1.0, 2.0, 3.0])
    v = np.array([2.0, 0.5])
    yield SearchCase(a.reshape(3, 1), v, 0, status=nd.SHAPE, note='a 2-D')
    yield SearchCase(np.float64(1.0), v, 0, status=nd.SHAPE, note='a 0-d')
    yield SearchCase(a, v, 2, status=nd.INVALID_ARGUMENT, note='side 2')
    yield SearchCase(a, v, 0, sorter=np.array([0, 1], np.int64), status=nd.SHAPE,
                     note='sorter too short', out=np.full(2, 7, np.int64))
    yield SearchCase(a, v, 0, sorter=np.array([[0, 1, 2]], np.int64), status=nd.SHAPE,
                     note='sorter 2-D')
    for bad in (3, -1):
        yield SearchCase(a, v, 1, sorter=np.array([0, bad, 2], np.int32), status=nd.INDEX,
                         note='sorter entry %d' % bad, out=np.full(2, 7, np.int64))
    yield SearchCase(a, v, 0, sorter=np.array([0.0, 1.0, 2.0]), status=nd.DTYPE,
                     note='float sorter')
    yield SearchCase(a, v, 0, out=np.full(2, 7, np.int32), status=nd.DTYPE, note='int32 out')
    yield SearchCase(a, v, 0, out=np.full(3, 7, np.int64), status=nd.SHAPE, note='out shape')
    yield SearchCase(a, v, 0, out=np.full(2, 7, np.int64), out_writeable=False,
                     status=nd.READONLY, note='read-only out')
    # random
    for dt in nd.NP_DTYPES:
        for _ in range(10 * rounds):
            r = rng.random()
            n = int(rng.integers(0, 40)) if r < 0.5 else int(rng.integers(40, 3000))
            srt = ncl_sorted(values(dt, n, rng))
            vdt = dt if rng.random() < 0.7 else nd.NP_DTYPES[int(rng.integers(0, 11))]
            shape = nd.random_shape(rng, maxnd=3, maxext=9)
            m = int(np.prod(shape, dtype=np.int64))
            if rng.random() < 0.4:
                kv = values(vdt, m, rng)
            else:   # keys drawn from a itself, with neighbours
                kv = srt[rng.integers(0, max(n, 1), m)] if n else values(vdt, m, rng)
                kv = kv.astype(vdt) if np.can_cast(kv.dtype, vdt) else values(vdt, m, rng)
            if rng.random() < 0.3:
                kv = ncl_sorted(kv.ravel())
            kv = kv.reshape(shape)
            lay = ['C', 'sliced', 'reversed', 'misaligned'][int(rng.integers(0, 4))]
            side = int(rng.integers(0, 2))
            sorter = None
            a_in = nd.place(srt, lay)
            if rng.random() < 0.3:
                perm = rng.permutation(n)
                shuffled = srt[perm]
                order = np.argsort(perm, kind='stable')   # shuffled[order] == srt
                sdt = ['int64', 'int32', 'uint16', 'int8'][int(rng.integers(0, 4))]
                if n >= np.iinfo(sdt).max:
                    sdt = 'int64'
                sorter = nd.place(order.astype(sdt), lay)
                a_in = nd.place(shuffled, lay)
            vl = nd.LAYOUTS[int(rng.integers(0, len(nd.LAYOUTS)))]
            out = None
            if rng.random() < 0.3:
                out = nd.place(np.full(shape, 7, np.int64), nd.LAYOUTS[int(rng.integers(0, 5))])
            yield SearchCase(a_in, nd.place(kv, vl), side, sorter=sorter, out=out,
                             note='a %s, v %s' % (lay, vl))


if __name__ == '__main__':
    sys.exit(nd.main('diff_searchsorted', generate, __doc__))
