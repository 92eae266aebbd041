"""diff_rng.py: NCLib's seed sequences, bit generators and streams against
NumPy's numpy.random (the same process, NumPy 1.24).

- SeedSequence: generate_state for entropy of one word and many (big
  integers as their little-endian 32-bit words, sequences concatenated),
  with and without spawn keys; spawn, twice, from the same parent.
- Every bit generator from three seeds: 10^6 raw words through
  NclRng(RANDOM_RAW) against random_raw, and NumPy's shipped reference
  files numpy/random/tests/data/<generator>-testset-{1,2}.csv.
- Mixed call sequences from one generator (float32 and uint8 draws that
  leave a 32-bit half buffered, then float64, normal and raw draws), every
  value bit for bit, then the next raw words: the state after each call is
  NumPy's.
- advance and jumped where NumPy has them; the state blob: saved, drawn
  from, restored, drawn from again; a blob of another generator refused.

The _threads variant of this test runs with two threads and a threading
threshold of 1, so every splittable call is split.

    python3 tests/diff/diff_rng.py --lib build/libncl.so [--seed N] [--rounds N]
"""

import ctypes
import os
import sys

import numpy as np

import ncl_diff as nd

R = np.random
BITGENS = ['PCG64', 'PCG64DXSM', 'Philox', 'SFC64', 'MT19937']
OPS = {'random_raw': 0, 'random': 1, 'integers': 2, 'uniform': 3, 'standard_normal': 4,
       'normal': 5, 'standard_exponential': 6, 'exponential': 7}
DATA = os.path.join(os.path.dirname(R.__file__), 'tests', 'data')
vp, sz, u64 = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint64
u32p = ctypes.POINTER(ctypes.c_uint32)
pp = ctypes.POINTER(ctypes.c_void_p)


RngParams = nd.Params  # ndim, shape, endpoint: RNG's fields


def bind(lib):
    sig = {
        'NclSeedSequenceCreate': (ctypes.c_int, [u32p, sz, u32p, sz, pp]),
        'NclSeedSequenceGenerateState': (ctypes.c_int, [vp, u32p, sz]),
        'NclSeedSequenceSpawn': (ctypes.c_int, [vp, sz, pp]),
        'NclSeedSequenceFree': (None, [vp]),
        'NclRngGenCreate': (ctypes.c_int, [ctypes.c_int, vp, pp]),
        'NclRngGenFree': (None, [vp]),
        'NclRngGenAdvance': (ctypes.c_int, [vp, u64, u64]),
        'NclRngGenJumped': (ctypes.c_int, [vp, u64, pp]),
        'NclRngGenGetState': (ctypes.c_int, [vp, vp, sz, ctypes.POINTER(sz)]),
        'NclRngGenSetState': (ctypes.c_int, [vp, vp, sz]),
        'NclRng': (ctypes.c_int, [ctypes.c_int, vp, vp, vp, pp, ctypes.POINTER(RngParams)]),
    }
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args


def words(x):
    """NumPy's 32-bit words of a seed: an int's little-endian limbs (0 is
    [0]), a sequence's concatenated."""
    if isinstance(x, (list, tuple)):
        return [w for v in x for w in words(v)]
    out = []
    while True:
        out.append(x & 0xffffffff)
        x >>= 32
        if not x:
            return out


def u32_array(ws):
    return (ctypes.c_uint32 * max(1, len(ws)))(*ws) if ws else None


class Lib:
    def __init__(self, ncl):
        self.ncl = ncl
        self.lib = ncl.lib
        bind(self.lib)

    def check(self, st, what):
        if st != nd.OK:
            raise RuntimeError('%s -> %s: %s' % (what, nd.status_name(st), self.ncl.last_error()))

    def seedseq(self, entropy, spawn_key=()):
        ent, key = words(entropy), list(spawn_key)
        h = vp()
        self.check(self.lib.NclSeedSequenceCreate(u32_array(ent), len(ent), u32_array(key),
                                                  len(key), ctypes.byref(h)), 'NclSeedSequenceCreate')
        return h

    def generate_state(self, ss, n):
        buf = (ctypes.c_uint32 * n)()
        self.check(self.lib.NclSeedSequenceGenerateState(ss, buf, n), 'generate_state')
        return np.frombuffer(buf, np.uint32).copy()

    def gen(self, kind, entropy):
        ss = self.seedseq(entropy)
        g = vp()
        self.check(self.lib.NclRngGenCreate(BITGENS.index(kind), ss, ctypes.byref(g)),
                   'NclRngGenCreate(%s)' % kind)
        self.lib.NclSeedSequenceFree(ss)
        return g

    def draw(self, op, g, n, dtype=None, a=None, b=None, endpoint=False):
        p = RngParams()
        p.size = ctypes.sizeof(RngParams)
        p.dtype = nd.ncl_dtype_code(np.dtype(dtype)) if dtype is not None else -1
        p.casting = 3
        shape = (ctypes.c_int64 * 1)(n)
        p.ndim = 1
        p.shape = shape
        p.endpoint = int(endpoint)
        a = np.asarray(a) if a is not None else None   # kept alive through the call
        b = np.asarray(b) if b is not None else None
        ha = self.ncl.wrap(a, False) if a is not None else None
        hb = self.ncl.wrap(b, False) if b is not None else None
        out = vp()
        st = self.lib.NclRng(OPS[op], g, ha, hb, ctypes.byref(out), ctypes.byref(p))
        self.ncl.release(ha)
        self.ncl.release(hb)
        self.check(st, 'NclRng(%s)' % op)
        r = self.ncl.to_numpy(out)
        self.ncl.release(out)
        return r

    def state(self, g):
        n = sz()
        self.check(self.lib.NclRngGenGetState(g, None, 0, ctypes.byref(n)), 'GetState size')
        buf = ctypes.create_string_buffer(n.value)
        self.check(self.lib.NclRngGenGetState(g, buf, n.value, ctypes.byref(n)), 'GetState')
        return buf.raw


def numpy_gen(kind, seed):
    return R.Generator(getattr(R, kind)(seed))


def same(got, exp, what):
    got, exp = np.asarray(got), np.asarray(exp)
    if got.dtype != exp.dtype or got.shape != exp.shape:
        return '%s: got %s %s, NumPy %s %s' % (what, got.dtype, got.shape, exp.dtype, exp.shape)
    gb = got.view(np.uint8).reshape(got.size, -1) if got.size else got
    eb = exp.view(np.uint8).reshape(exp.size, -1) if exp.size else exp
    bad = np.nonzero((gb != eb).any(axis=1))[0] if got.size else []
    if len(bad):
        i = bad[0]
        return '%s: %d of %d differ, first at %d: %r vs NumPy %r' % (
            what, len(bad), got.size, i, got.flat[i], exp.flat[i])
    return None


class Case:
    def __init__(self, title, fn):
        self._title = title
        self.fn = fn

    def title(self):
        return self._title

    def run(self, ncl):
        return self.fn(Lib(ncl))


# ---- cases ---------------------------------------------------------------------------------

SEEDS = [0, 42, 2 ** 64 + 7]
ENTROPIES = [0, 1, 42, 12345, 2 ** 32, 2 ** 64 + 7, 2 ** 128 - 1, [1, 2, 3, 4, 5, 6],
             [2 ** 40, 0, 9]]


def seedseq_case(entropy, key):
    def fn(L):
        ss = L.seedseq(entropy, key)
        try:
            ref = R.SeedSequence(entropy, spawn_key=key)
            for n in (1, 4, 8, 624):
                why = same(L.generate_state(ss, n), ref.generate_state(n, np.uint32),
                           'generate_state(%d)' % n)
                if why:
                    return why
            # two spawns: the second continues the children's count
            for count in (3, 2):
                kids = (vp * count)()
                L.check(L.lib.NclSeedSequenceSpawn(ss, count, kids), 'spawn')
                refs = ref.spawn(count)
                for i in range(count):
                    why = same(L.generate_state(vp(kids[i]), 8), refs[i].generate_state(8, np.uint32),
                               'child %d of spawn(%d)' % (i, count))
                    L.lib.NclSeedSequenceFree(kids[i])
                    if why:
                        return why
        finally:
            L.lib.NclSeedSequenceFree(ss)
        return None
    return Case('SeedSequence(%r, spawn_key=%r)' % (entropy, key), fn)


def raw_case(kind, seed, n):
    def fn(L):
        g = L.gen(kind, seed)
        try:
            got = L.draw('random_raw', g, n)
            exp = numpy_gen(kind, seed).bit_generator.random_raw(n)
            return same(got, exp, 'random_raw(%d)' % n)
        finally:
            L.lib.NclRngGenFree(g)
    return Case('%s(%r) raw x %d' % (kind, seed, n), fn)


def csv_case(kind, idx):
    path = os.path.join(DATA, '%s-testset-%d.csv' % (kind.lower(), idx))

    def fn(L):
        if not os.path.exists(path):
            return 'NumPy reference file %s is missing' % path
        with open(path) as f:
            seed = [int(s.strip(), 0) for s in f.readline().split(',')[1:]]
            data = [int(line.split(',')[-1].strip(), 0) for line in f]
        g = L.gen(kind, seed[0] if len(seed) == 1 else seed)
        try:
            got = L.draw('random_raw', g, len(data))
            return same(got, np.array(data, np.uint64), os.path.basename(path))
        finally:
            L.lib.NclRngGenFree(g)
    return Case('%s reference file %d' % (kind, idx), fn)


# (method, kwargs for NumPy, op, kwargs for NclRng)
STEPS = [
    ('random', dict(dtype=np.float32), 'random', dict(dtype=np.float32)),
    ('integers', dict(low=0, high=100, dtype=np.uint8), 'integers', dict(dtype=np.uint8, a=0, b=100)),
    ('random', dict(), 'random', dict(dtype=np.float64)),
    ('standard_normal', dict(dtype=np.float32), 'standard_normal', dict(dtype=np.float32)),
    ('integers', dict(low=-3, high=2 ** 40), 'integers', dict(a=-3, b=2 ** 40)),
    ('standard_normal', dict(), 'standard_normal', dict()),
    ('integers', dict(low=0, high=2, dtype=bool), 'integers', dict(dtype=bool, a=0, b=2)),
    ('standard_exponential', dict(dtype=np.float32), 'standard_exponential', dict(dtype=np.float32)),
    ('uniform', dict(low=-2.0, high=3.0), 'uniform', dict(a=-2.0, b=3.0)),
    ('normal', dict(loc=1.0, scale=2.0), 'normal', dict(a=1.0, b=2.0)),
    ('exponential', dict(scale=3.0), 'exponential', dict(a=3.0)),
    ('integers', dict(low=5, high=1000, dtype=np.int16), 'integers', dict(dtype=np.int16, a=5, b=1000)),
    ('standard_exponential', dict(), 'standard_exponential', dict()),
    ('integers', dict(low=-5, high=1000), 'integers', dict(a=-5, b=1000)),
    ('integers', dict(low=0, high=77, dtype=np.int32), 'integers', dict(dtype=np.int32, a=0, b=77)),
]


def half_of(L, g):
    """The blob's buffered-half fields: (has_uint32, uinteger)."""
    blob = L.state(g)
    return int.from_bytes(blob[16:20], 'little'), int.from_bytes(blob[20:24], 'little')


def sequence_case(kind, seed, counts):
    def fn(L):
        g = L.gen(kind, seed)
        ref = numpy_gen(kind, seed)
        try:
            for i, (meth, kw, op, nkw) in enumerate(STEPS):
                n = counts[i % len(counts)]
                exp = getattr(ref, meth)(size=n, **kw)
                got = L.draw(op, g, n, **nkw)
                why = same(got, exp, 'step %d %s(%s) x %d' % (i, meth, kw, n))
                if why:
                    return why
                st = ref.bit_generator.state
                if 'has_uint32' in st and half_of(L, g) != (st['has_uint32'], st['uinteger']):
                    return 'step %d %s(%s) x %d: the buffered half is %r, NumPy\'s %r' % (
                        i, meth, kw, n, half_of(L, g), (st['has_uint32'], st['uinteger']))
            return same(L.draw('random_raw', g, 8), ref.bit_generator.random_raw(8),
                        'raw words after the sequence')
        finally:
            L.lib.NclRngGenFree(g)
    return Case('%s(%r) mixed sequence %s' % (kind, seed, counts), fn)


def advance_case(kind, delta):
    def fn(L):
        g = L.gen(kind, 7)
        ref = getattr(R, kind)(7)
        try:
            ref.random_raw(3)
            L.draw('random_raw', g, 3)
            ref.advance(delta)
            L.check(L.lib.NclRngGenAdvance(g, delta & (2 ** 64 - 1), delta >> 64), 'advance')
            return same(L.draw('random_raw', g, 64), ref.random_raw(64), 'after advance(%d)' % delta)
        finally:
            L.lib.NclRngGenFree(g)
    return Case('%s advance(%d)' % (kind, delta), fn)


def jumped_case(kind, jumps):
    def fn(L):
        g = L.gen(kind, 11)
        j = vp()
        try:
            L.draw('random', g, 3, dtype=np.float32)   # leaves a half buffered
            ref = getattr(R, kind)(11)
            R.Generator(ref).random(3, dtype=np.float32)
            L.check(L.lib.NclRngGenJumped(g, jumps, ctypes.byref(j)), 'jumped')
            refj = ref.jumped(jumps)
            why = same(L.draw('random', j, 5, dtype=np.float32),
                       R.Generator(refj).random(5, dtype=np.float32), 'jumped(%d)' % jumps)
            return why or same(L.draw('random_raw', j, 64), refj.random_raw(64), 'raw after jumped')
        finally:
            L.lib.NclRngGenFree(g)
            L.lib.NclRngGenFree(j)
    return Case('%s jumped(%d)' % (kind, jumps), fn)


def state_case(kind):
    def fn(L):
        g = L.gen(kind, 99)
        other = L.gen(BITGENS[(BITGENS.index(kind) + 1) % len(BITGENS)], 99)
        try:
            L.draw('random', g, 1001, dtype=np.float32)     # a buffered half in the state
            blob = L.state(g)
            first = L.draw('standard_normal', g, 777)
            buf = ctypes.create_string_buffer(blob, len(blob))
            L.check(L.lib.NclRngGenSetState(g, buf, len(blob)), 'SetState')
            why = same(L.draw('standard_normal', g, 777), first, 'after the state was restored')
            if why:
                return why
            st = L.lib.NclRngGenSetState(other, buf, len(blob))
            if st != nd.DTYPE:
                return "another generator's blob gave %s, not DTYPE" % nd.status_name(st)
            bad = bytearray(blob)
            bad[0] ^= 1
            st = L.lib.NclRngGenSetState(g, (ctypes.c_char * len(bad)).from_buffer(bad), len(bad))
            if st != nd.INVALID_ARGUMENT:
                return 'a blob without the magic gave %s' % nd.status_name(st)
            return None
        finally:
            L.lib.NclRngGenFree(g)
            L.lib.NclRngGenFree(other)
    return Case('%s state blob' % kind, fn)


def generate(rng, rounds):
    for e in ENTROPIES:
        for key in ((), (0,), (3, 7)):
            yield seedseq_case(e, key)
    for kind in BITGENS:
        for idx in (1, 2):
            yield csv_case(kind, idx)
        for seed in SEEDS:
            yield raw_case(kind, seed, 10 ** 6)
            yield sequence_case(kind, seed, [1, 1001, 4096, 3, 10 ** 5])
        for _ in range(rounds):
            counts = [int(c) for c in rng.integers(0, 3000, size=5)]
            yield sequence_case(kind, int(rng.integers(0, 2 ** 63)), counts)
        yield state_case(kind)
    for kind in ('PCG64', 'PCG64DXSM', 'Philox'):
        for delta in (0, 1, 5, 2 ** 64 + 3, 2 ** 127 + 12345):
            yield advance_case(kind, delta)
    for kind in ('PCG64', 'PCG64DXSM', 'Philox', 'MT19937'):
        for jumps in (1, 3):
            yield jumped_case(kind, jumps)


if __name__ == '__main__':
    sys.exit(nd.main('diff_rng', generate, __doc__))
