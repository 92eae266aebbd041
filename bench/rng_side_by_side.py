#!/usr/bin/python3
"""Times NCLib's RNG next to NumPy's Generator, on the same machine in one
process, and prints the rows of the RNG table of docs/PERFORMANCE.md.

    /usr/bin/python3 bench/rng_side_by_side.py --lib build/release/libncl.so [--repeats 7]
        [--write docs/PERFORMANCE.md]

- Both draw the same values: NCLib's generator is seeded like NumPy's
  (PCG64 from SeedSequence(seed)); each case first checks that the two
  outputs are equal bit for bit, then times.
- NCLib is called through ctypes (about a microsecond a call, under 0.1 %
  of the smallest case) into an output allocated once; NumPy with out=
  where its method has it (random, standard_normal, standard_exponential),
  else as NumPy is called (integers allocates its result; so does NCLib's
  call in that row).
- Samples alternate between the libraries (NCLib, NumPy, NCLib, ...) and
  the figure is the median of --repeats samples of wall time, on one thread
  unless the row says otherwise.
- The store-only loop of a row is numpy's fill of a float64 buffer of n
  elements in the same run: the machine's write bandwidth for that size.
- The counter-mode rows time NCLib's Philox4x32 (a stream of its own, not
  NumPy's: its first values are checked against the Philox4x32-10 block
  function written below) on one thread and on every core, next to
  NumPy's Philox (4x64, another stream) and the store-only loop.
- With --write, the section replaces the one between its markers in the
  file (docs/PERFORMANCE.md), which bench/numpy_side_by_side.py keeps when
  it regenerates the rest.
"""

import argparse
import ctypes
import os
import platform
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'tests', 'diff'))

import ncl_diff as nd  # noqa: E402
import diff_rng as dr  # noqa: E402


def cpu_name():
    """The model name, with the core for the two kinds these figures are
    taken on (a VM may report only "AMD EPYC"): AMD family 25 models
    0x10-0x1f, 0x60-0x7f and 0xa0-0xaf are Zen 4; Intel family 6 model 143
    is Sapphire Rapids, 207 Emerald Rapids."""
    info = {}
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                key, _, value = line.partition(':')
                info.setdefault(key.strip(), value.strip())
    except OSError:
        return platform.processor() or 'unknown CPU'
    name = info.get('model name', platform.processor() or 'unknown CPU')
    try:
        family, model = int(info.get('cpu family', '')), int(info.get('model', ''))
    except ValueError:
        return name
    core = None
    if info.get('vendor_id') == 'AuthenticAMD' and family == 25 and (
            0x10 <= model <= 0x1f or 0x60 <= model <= 0x7f or 0xa0 <= model <= 0xaf):
        core = 'Zen 4'
    elif info.get('vendor_id') == 'GenuineIntel' and family == 6:
        core = {143: 'Sapphire Rapids', 207: 'Emerald Rapids'}.get(model)
    return '%s (%s)' % (name, core) if core else name


class Side:
    """One library's call of one case, with its output buffer."""

    def __init__(self, fn):
        self.fn = fn
        self.samples = []

    def sample(self):
        t0 = time.perf_counter()
        self.fn()
        self.samples.append(time.perf_counter() - t0)


def ncl_call(L, op, g, out_np, dtype=None, a=None, b=None):
    """A closure drawing into out_np (or allocating when out_np is None)."""
    p = dr.RngParams()
    p.size = ctypes.sizeof(dr.RngParams)
    p.dtype = nd.ncl_dtype_code(dtype) if dtype is not None else -1
    p.casting = 3
    n = out_np.size
    shape = (ctypes.c_int64 * 1)(n)
    p.ndim, p.shape = 1, shape
    a = np.asarray(a) if a is not None else None   # kept alive by the closures
    b = np.asarray(b) if b is not None else None
    ha = L.ncl.wrap(a, False) if a is not None else None
    hb = L.ncl.wrap(b, False) if b is not None else None
    hout = L.ncl.wrap(out_np, True)
    fn = L.lib.NclRng
    code = dr.OPS[op]

    def provided():
        o = ctypes.c_void_p(hout.value)
        st = fn(code, g, ha, hb, ctypes.byref(o), ctypes.byref(p))
        if st:
            raise RuntimeError(L.ncl.last_error())

    def allocating():
        o = ctypes.c_void_p()
        st = fn(code, g, ha, hb, ctypes.byref(o), ctypes.byref(p))
        if st:
            raise RuntimeError(L.ncl.last_error())
        L.ncl.release(o)
    provided.keep = allocating.keep = (shape, a, b, ha, hb, hout)
    return provided, allocating


CASES = {
    # name: (NCLib op, dtype, parameters, NumPy call on generator r drawing n into out)
    'random f64': ('random', np.float64, (), lambda r, n, out: r.random(out=out)),
    'standard_normal f64': ('standard_normal', np.float64, (),
                            lambda r, n, out: r.standard_normal(out=out)),
    'standard_exponential f64': ('standard_exponential', np.float64, (),
                                 lambda r, n, out: r.standard_exponential(out=out)),
    'integers uint8 [0, 100)': ('integers', np.uint8, (0, 100),
                                lambda r, n, out: r.integers(0, 100, size=n, dtype=np.uint8)),
}


def run_case(L, name, n, repeats, threads=1):
    """Median seconds of NCLib, NumPy and the store-only loop for one case."""
    op, dt, params, numpy_fn = CASES[name]
    seed = 20261128
    L.lib.NclSetNumThreads(threads)
    # the same values first, from fresh generators
    g = L.gen('PCG64', seed)
    got = L.draw(op, g, n, dt, *params)
    L.lib.NclRngGenFree(g)
    out_n = np.empty(n, dt)
    exp = numpy_fn(np.random.Generator(np.random.PCG64(seed)), n, out_n)
    exp = out_n if exp is None else exp
    if not np.array_equal(got.view(np.uint8), np.asarray(exp).view(np.uint8)):
        raise RuntimeError('%s: NCLib and NumPy disagree' % name)
    g = L.gen('PCG64', seed)
    ref = np.random.Generator(np.random.PCG64(seed))
    out_c = np.empty(n, dt)
    provided, allocating = ncl_call(L, op, g, out_c, dt, *params)
    c = allocating if name.startswith('integers') else provided
    sides = [Side(c), Side(lambda: numpy_fn(ref, n, out_n))]
    out_f = np.empty(n, np.float64)
    fill = Side(lambda: out_f.fill(0.5))
    # The generator's floor: n of its 64-bit words (a float64 case takes
    # one a value, the ziggurats about 1.01) drawn raw into a buffer that
    # stays in cache, a call per CACHED words.
    out_w = np.empty(CACHED, np.uint64)
    raw, _ = ncl_call(L, 'random_raw', g, out_w, np.uint64)

    def words():
        for _ in range(n // CACHED):
            raw()
    floor = Side(words)
    timed = sides + [fill, floor]
    for s in timed:
        s.fn()  # warm up: pages touched, code loaded
    for _ in range(repeats):
        for s in timed:
            s.sample()
    L.lib.NclSetNumThreads(1)
    L.lib.NclRngGenFree(g)
    c, p, f, w = [statistics.median(s.samples) for s in timed]
    return c, p, f, w * n / (n // CACHED * CACHED)


def two_threads(L, n, repeats):
    """Wall time of n standard normals on one and on two threads, and of
    the streaming add of the main report's row 17 is not repeated here."""
    seed = 20261128
    out = np.empty(n, np.float64)
    out.fill(0)
    g = L.gen('PCG64', seed)
    provided, _ = ncl_call(L, 'standard_normal', g, out, np.float64)
    one, two = Side(provided), Side(provided)
    L.lib.NclSetThreadingThreshold.argtypes = [ctypes.c_int64]
    for _ in range(repeats + 1):
        for threads, side in ((1, one), (2, two)):
            # A new thread count rebuilds the pool at the next call; that
            # call is not timed.
            L.lib.NclSetNumThreads(threads)
            side.fn()
            side.sample()
    L.lib.NclSetNumThreads(1)
    L.lib.NclRngGenFree(g)
    return statistics.median(one.samples[1:]), statistics.median(two.samples[1:])


PHILOX4X32 = 5  # NCL_BITGEN_PHILOX4X32
CACHED = 65536  # values a call of the counter-mode compute floor


def philox4x32_block(ctr, key):
    """Random123's Philox4x32-10 of a 128-bit counter and two key words."""
    c = [(ctr >> (32 * i)) & 0xffffffff for i in range(4)]
    k0, k1 = key
    for _ in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & 0xffffffff, (p0 >> 32) ^ c[3] ^ k1, p0 & 0xffffffff]
        k0, k1 = (k0 + 0x9E3779B9) & 0xffffffff, (k1 + 0xBB67AE85) & 0xffffffff
    return c


def counter_mode(L, n, repeats):
    """Median seconds of Philox4x32 random f64 into a given output on one
    thread and on every core, NumPy's Philox random(out=), the store-only
    loop, and the compute floor on one thread and on every core,
    interleaved."""
    key = (20261128, 7)
    L.lib.NclRngGenFromKey.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_uint32), ctypes.c_size_t,
                                       ctypes.c_uint64, ctypes.c_uint64, ctypes.POINTER(ctypes.c_void_p)]
    g = ctypes.c_void_p()
    L.check(L.lib.NclRngGenFromKey(PHILOX4X32, (ctypes.c_uint32 * 2)(*key), 2,
                                   0, 0, ctypes.byref(g)), 'NclRngGenFromKey')
    got = L.draw('random', g, 8, np.float64)
    w = [x for b in range(4) for x in philox4x32_block(b, key)]
    want = [((w[2 * i] | w[2 * i + 1] << 32) >> 11) * 2.0 ** -53 for i in range(8)]
    if list(got) != want:
        raise RuntimeError('Philox4x32: NCLib is not the Philox4x32-10 stream')
    out_c = np.empty(n, np.float64)
    provided, _ = ncl_call(L, 'random', g, out_c, np.float64)
    ref = np.random.Generator(np.random.Philox(20261128))
    out_n = np.empty(n, np.float64)
    out_f = np.empty(n, np.float64)
    # The compute floor: the same n values drawn into a buffer that stays in
    # the cores' L2 caches (512 KiB, a call per 65536 values), so no value
    # goes to memory and the time is the generator's own.
    out_k = np.empty(CACHED, np.float64)
    cached, _ = ncl_call(L, 'random', g, out_k, np.float64)

    def in_cache():
        for _ in range(n // CACHED):
            cached()
    cores = os.cpu_count() or 1
    # (NCLib's thread count, set before the sample is timed; the side)
    sides = [(1, Side(provided)), (cores, Side(provided)), (1, Side(lambda: ref.random(out=out_n))),
             (1, Side(lambda: out_f.fill(0.5))), (1, Side(in_cache)), (cores, Side(in_cache))]
    for threads, s in sides:
        L.lib.NclSetNumThreads(threads)
        s.fn()
    for _ in range(repeats):
        for threads, s in sides:
            L.lib.NclSetNumThreads(threads)
            if threads > 1:
                s.fn()  # rebuilds the pool, untimed
            s.sample()
    L.lib.NclSetNumThreads(1)
    L.lib.NclRngGenFree(g)
    return [statistics.median(s.samples) for _, s in sides] + [cores]


def report(L, repeats):
    lines = ['## RNG: NumPy 1.24 Generator streams (PCG64), side by side', '',
             'Written by `/usr/bin/python3 bench/rng_side_by_side.py --lib <libncl.so> --write '
             'docs/PERFORMANCE.md` (tools/bench.sh runs it); medians of %d interleaved samples '
             'of wall time, one thread unless said, the same values checked bit for bit before '
             'timing. CPU: %s; NumPy %s; %s.' % (repeats, cpu_name(), np.__version__,
                                                time.strftime('%Y-%m-%d')), '',
             '| case | n | NCLib | NumPy | ratio | target | | store-only loop, same buffer size | '
             'n PCG64 words alone (ratio to NumPy) |',
             '|---|---|---|---|---|---|---|---|---|']
    targets = {'random f64': 0.70, 'standard_normal f64': 0.40,
               'integers uint8 [0, 100)': 0.25, 'standard_exponential f64': 0.60}
    for name, target in targets.items():
        for n in (10 ** 6, 10 ** 7):
            c, p, f, w = run_case(L, name, n, repeats)
            lines.append('| %s | %.0e | %.2f ms | %.2f ms | %.2f | <= %.2f | %s | %.2f ms | %s |' % (
                name, n, c * 1e3, p * 1e3, c / p, target,
                'met' if c / p <= target else '**NOT MET**', f * 1e3,
                '%.2f ms (%.2f)' % (w * 1e3, w / p) if name.endswith('f64') else '-'))
            log(lines[-1])
    lines += ['', 'The last column is the generator\'s own floor for the float64 rows, which take '
              'one PCG64 word a value (the ziggurats about 1.01): n raw words drawn into a '
              'buffer that stays in cache (%d words a call), and in brackets its ratio to NumPy\'s '
              'time, the lowest ratio any implementation of these streams can reach on this CPU: '
              'each PCG64 step depends on the one before.' % CACHED, '']
    t1, t2 = two_threads(L, 10 ** 7, repeats)
    lines.append('Two threads against one, standard_normal f64, n = 1e7, output given (wall '
                 'time; the same values and final state on both): 1 thread %.2f ms, 2 threads '
                 '%.2f ms, speedup %.2fx (target >= 1.7x: %s).' % (
                     t1 * 1e3, t2 * 1e3, t1 / t2, 'met' if t1 / t2 >= 1.7 else '**NOT MET**'))
    log(lines[-1])
    lines += ['', '| counter mode (Philox4x32) random f64 | n | NCLib, 1 thread | NCLib, all cores | '
              'NumPy Philox (4x64) | store-only loop | NCLib / store loop, 1 thread | all cores | '
              'compute floor, 1 thread | all cores | target |',
              '|---|---|---|---|---|---|---|---|---|---|---|']
    notes = []
    for n in (10 ** 6, 10 ** 7):
        c1, cn, p, f, k1, kn, cores = counter_mode(L, n, repeats)
        verdict = lambda r: 'met' if r <= 1.5 else '**NOT MET**'  # noqa: E731
        target = ('<= 1.5: 1 thread %s, all cores %s' % (verdict(c1 / f), verdict(cn / f))
                  if n == 10 ** 7 else '(at 1e7)')
        lines.append('| output given | %.0e | %.2f ms | %.2f ms (%d threads) | %.2f ms | %.2f ms | %.2f | '
                     '%.2f | %.2f ms (%.2f) | %.2f ms (%.2f) | %s |' % (
                         n, c1 * 1e3, cn * 1e3, cores, p * 1e3, f * 1e3, c1 / f, cn / f,
                         k1 * 1e3, k1 / f, kn * 1e3, kn / f, target))
        log(lines[-1])
        if n == 10 ** 7:
            for who, k in (('one thread', k1), ('%d threads' % cores, kn)):
                if k / f > 1.5:
                    notes.append('on %s the values alone, never leaving the cache, take %.2f times '
                                 'the store loop: 1.5 is beyond this CPU there' % (who, k / f))
    lines += ['', 'The compute floor draws the same n values into a 512 KiB output that stays in '
              'the L2 caches, a call per %d values: the generator alone, no store reaching '
              'memory; in brackets, its ratio to the store loop. The target cannot be met where '
              'that ratio is above 1.5%s.' % (CACHED, (': ' + '; '.join(notes)) if notes else '')]
    return '\n'.join(lines)


def log(msg):
    print(msg, file=sys.stderr)
    sys.stderr.flush()


BEGIN = '<!-- rng_side_by_side.py: begin -->'
END = '<!-- rng_side_by_side.py: end -->'


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--lib', default=os.environ.get('NCL_LIB'))
    ap.add_argument('--repeats', type=int, default=7)
    ap.add_argument('--write', help='put the section into this Markdown file (between markers)')
    args = ap.parse_args()
    ncl = nd.Ncl(args.lib)
    L = dr.Lib(ncl)
    L.lib.NclSetNumThreads.argtypes = [ctypes.c_int]
    section = BEGIN + '\n' + report(L, args.repeats) + '\n' + END
    print(section)
    if args.write:
        text = open(args.write).read() if os.path.exists(args.write) else ''
        b, e = text.find(BEGIN), text.find(END)
        if 0 <= b < e:
            text = text[:b] + section + text[e + len(END):]
        else:
            text = text.rstrip('\n') + '\n\n' + section + '\n'
        with open(args.write, 'w') as f:
            f.write(text)
        log('wrote %s' % args.write)


if __name__ == '__main__':
    main()
