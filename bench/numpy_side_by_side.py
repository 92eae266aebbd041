#!/usr/bin/python3
"""Times NCLib next to NumPy for every row of BENCHMARKS.md and writes docs/PERFORMANCE.md.

Run it with /usr/bin/python3 (Debian's NumPy 1.24); tools/bench.sh builds
libncl.so, the helper library and the google-benchmark binaries, then calls
this script.

How the figures are made:

- libncl.so is loaded with ctypes into this process, next to NumPy. Every
  case makes its inputs (and, where the call takes one, its output) as NumPy
  arrays and wraps the same buffers as NclArrays (NclFromData, zero-copy),
  so both libraries read and write the same memory.
- NCLib is timed by libncl_bench_helper.so, which runs the call k times in a
  C loop: one ctypes call per sample, so the foreign-function cost of ctypes
  (about a microsecond) is not charged to NCLib. NumPy is timed from Python,
  which is how NumPy is called; the call overhead from C (row 3) comes from
  google-benchmark (bench_binary), where no Python is involved.
- Each case calibrates k per side to samples of at least --min-time seconds,
  warms both sides up, then takes --repeats samples per side interleaved
  (NCLib, NumPy, NCLib, NumPy, ...); the figure is the median.
- Samples are process CPU time (both sides run on one thread, and CPU time
  does not count the moments another process held the core on this shared
  machine). Row 17 compares NCLib with one and two threads and uses wall
  time, as CPU time would add the threads up; its DRAM-bound case is
  sampled together with the streaming add of row 2 on one and on two
  threads, the machine's own limit for that speedup.
- Ratios are NCLib time / NumPy time (lower is better), except where a row
  says otherwise (rows 2, 3 and 17).

A target not met stays in the report as NOT MET; bench/notes.md (by row)
says what was tried, and the report quotes it under each such row.
"""

import argparse
import ctypes
import datetime
import json
import math
import operator
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

SIZES = (64000, 1000000, 16000000)
BIG = 16000000
STREAM_N = 16 * 1024 * 1024

# ---- the contract's numbering (include/ncl/*.h) ------------------------------

DTYPES = ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16',
          'uint32', 'uint64', 'float32', 'float64']
SHORT = {'float32': 'f32', 'float64': 'f64', 'int32': 'i32', 'int64': 'i64',
         'uint64': 'u64', 'bool': 'bool'}
ADD, SUBTRACT, MULTIPLY = 0, 1, 2
CMP_OPS = ['equal', 'not_equal', 'less', 'less_equal', 'greater', 'greater_equal']
CMP_PY = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]
CMP_GT = 4
UNARY = {'sqrt': 6, 'exp': 8, 'log': 11, 'sin': 15}
ACCURACY_HIGH, ACCURACY_FAST = 0, 1
CONVERT_ASTYPE = 0
WHERE = 0
SUM, MIN, MAX = 0, 2, 3
STD, VAR, NANSUM, NANMEAN, NANMIN, NANMAX, NANARGMAX, NANSTD = 12, 13, 14, 16, 17, 18, 20, 21
SORT, ARGSORT = 0, 1
UNIQUE_VALUES, UNIQUE_ALL = 4, 7
SORT_DEFAULT, SORT_STABLE = 0, 1
MASK_COMPRESS = 0
SEARCHSORTED = 4
CASTING_SAME_KIND, CASTING_UNSAFE = 3, 4
DTYPE_DEFAULT = -1
WRITEABLE = 16
KIND = {'binary': 0, 'compare': 1, 'unary': 2, 'convert': 3, 'ternary': 4,
        'reduce': 5, 'sort': 6, 'mask': 7, 'linalg': 8, 'sortn': 9}
MATMUL = 0
CLOCK_CPU, CLOCK_WALL = 0, 1
HELPER_ABI = 3

# BENCHMARKS.md's targets, one line per row, for the section headings.
ROW_TITLES = {
    1: 'add / subtract / multiply, contiguous, output given',
    2: 'the 1.6e7 cases of row 1 as a fraction of the streaming-store bandwidth limit',
    3: 'call overhead from C (f64 add, output given) and an empty level-1 hook',
    4: 'add with an allocated output, n = 1.6e7',
    5: 'strided input `a[::2]`, f64 add, output given',
    6: 'broadcasting `(n/1000, 1000) + (1000,)` and `(1000, n/1000) + (1000, 1)`, f64',
    7: '`a > b` into a given bool output',
    8: 'int64 against uint64, the six comparisons, into a given bool output',
    9: 'mixed add int32 + float64 -> float64, output given',
    10: 'sum f64 / f32 / i64, min, max (whole array, 0-d result)',
    11: 'exp, log, sin, f32 and f64, output given, both accuracy tiers',
    12: 'sqrt f32 / f64, output given',
    13: '`where(c, a, b)` f64 and `a[mask]` at 50 % density (results allocated)',
    14: 'casts f64 -> i32 and i64 -> f32 into a given output',
    15: 'sort of 1e6 random values (result allocated)',
    16: 'argsort of 1e6 random values, and stable sort',
    17: 'two threads against NCLib\'s own one thread, same run (wall time)',
    18: 'matmul, float64 and float32 1000 x 1000, and 10000 stacked 8 x 8 (output given)',
    19: 'std, var and the nan-aware reductions at 1e6 (whole array, 0-d result)',
    20: 'unique and searchsorted of 1e6 values (results allocated)',
}
ROW_TARGETS = {
    1: '≤ 1.00 in cache; ≤ 0.85 (floats) and ≤ 1.00 (ints) at 1.6e7',
    2: '≥ 85 % (NumPy reaches ≈ 70 %)',
    3: '≤ 30 ns / ≤ 0.15 µs per call; an empty pass-through hook adds ≤ 5 ns',
    4: '≤ 1.00 (≤ 0.70 with buffer reuse)',
    5: '≤ 0.90',
    6: '≤ 1.00',
    7: '≤ 1.00',
    8: 'exact, and ≤ 0.35 (≤ 1.1× NCLib\'s own int64-vs-int64 compare)',
    9: '≤ 0.65',
    10: 'sum f64 ≤ 0.50 in cache, ≤ 1.05 at 1.6e7, accuracy ≥ pairwise; min/max ≤ 1.00',
    11: 'default (≤ 1 ulp): f32 ≤ 0.60, f64 ≤ 1.60; NCL_ACCURACY_FAST: f64 ≤ 1.00',
    12: '≤ 0.55',
    13: '≤ 0.25; ≤ 0.20',
    14: '≤ 1.00; ≤ 0.30 in cache, ≤ 0.80 at 1.6e7',
    15: '64-bit ≤ 0.20; 32-bit ≤ 0.80 (stretch ≤ 0.30)',
    16: '≤ 0.50',
    17: '≥ 1.7× for compute-bound ops and cache-resident sizes; ≥ 1.1× DRAM-bound',
    18: '1000 x 1000 float64 ≤ 1.20 on the same BLAS',
    19: '≤ 1.00 (no slower than NumPy)',
    20: '≤ 1.00',
}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---- the libraries -------------------------------------------------------------

class Params(ctypes.Structure):
    _fields_ = [('size', ctypes.c_uint32), ('where', ctypes.c_void_p),
                ('dtype', ctypes.c_int), ('casting', ctypes.c_int),
                ('axes', ctypes.c_void_p), ('naxes', ctypes.c_int),
                ('keepdims', ctypes.c_int), ('initial', ctypes.c_void_p),
                ('kind', ctypes.c_int), ('kth', ctypes.c_int64)]


class Call(ctypes.Structure):
    """NclbCall of bench/ncl_bench_helper.h."""
    _fields_ = [('kind', ctypes.c_int32), ('op', ctypes.c_int32),
                ('a', ctypes.c_void_p), ('b', ctypes.c_void_p), ('c', ctypes.c_void_p),
                ('out', ctypes.c_void_p), ('dtype', ctypes.c_int32),
                ('casting', ctypes.c_int32), ('sort_kind', ctypes.c_int32),
                ('accuracy', ctypes.c_int32), ('keep_outputs', ctypes.c_int32),
                ('side', ctypes.c_int32)]


class Result(ctypes.Structure):
    _fields_ = [('ns_per_call', ctypes.c_double), ('faults_per_call', ctypes.c_double)]


class NclError(RuntimeError):
    pass


class Ncl:
    """libncl.so and libncl_bench_helper.so through ctypes."""

    def __init__(self, libdir):
        vp, i32, i64 = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64
        self.lib = lib = ctypes.CDLL(os.path.join(libdir, 'libncl.so'), mode=ctypes.RTLD_GLOBAL)
        self.helper = helper = ctypes.CDLL(os.path.join(libdir, 'bench', 'libncl_bench_helper.so'))
        lib.NclFromData.restype = i32
        lib.NclFromData.argtypes = [i32, i32, ctypes.POINTER(i64), ctypes.POINTER(i64), vp,
                                    ctypes.c_uint32, vp, vp, ctypes.POINTER(vp)]
        lib.NclArrayRelease.argtypes = [vp]
        lib.NclArrayRelease.restype = None
        lib.NclLastError.restype = ctypes.c_char_p
        lib.NclInfo.restype = i32
        lib.NclInfo.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]
        helper.nclb_time.restype = i32
        helper.nclb_time.argtypes = [ctypes.POINTER(Call), i64, i32, ctypes.POINTER(Result)]
        for fn in (helper.nclb_stream_add, helper.nclb_plain_add):
            fn.restype = i32
            fn.argtypes = [vp, vp, vp, i64, i64, i32, ctypes.POINTER(ctypes.c_double)]
        helper.nclb_stream_add2.restype = i32
        helper.nclb_stream_add2.argtypes = [vp, vp, vp, i64, i64, ctypes.POINTER(ctypes.c_double)]
        if helper.nclb_abi_version() != HELPER_ABI:
            raise NclError('libncl_bench_helper.so has ABI %d, this script expects %d'
                           % (helper.nclb_abi_version(), HELPER_ABI))
        # The thread pool is optional: without it, row 17 says so.
        self.set_threads = getattr(lib, 'NclSetNumThreads', None)
        if self.set_threads is not None:
            self.set_threads.restype = i32
            self.set_threads.argtypes = [i32]
            self.check(self.set_threads(1), 'NclSetNumThreads(1)')
        self.handles = []

    def last_error(self):
        m = self.lib.NclLastError()
        return m.decode('utf-8', 'replace') if m else ''

    def check(self, status, what):
        if status != 0:
            raise NclError('%s: status %d: %s' % (what, status, self.last_error()))

    def wrap(self, arr, writeable=False):
        """A zero-copy NclArray over a NumPy array's buffer (kept until release_all)."""
        nd = arr.ndim
        shape = (ctypes.c_int64 * max(nd, 1))(*arr.shape)
        strides = (ctypes.c_int64 * max(nd, 1))(*arr.strides)
        out = ctypes.c_void_p()
        self.check(self.lib.NclFromData(DTYPES.index(arr.dtype.name), nd, shape, strides,
                                        ctypes.c_void_p(arr.ctypes.data),
                                        WRITEABLE if writeable else 0, None, None,
                                        ctypes.byref(out)),
                   'NclFromData(%s %s)' % (arr.dtype, arr.shape))
        self.handles.append(out)
        return out.value

    def release_all(self):
        for h in self.handles:
            self.lib.NclArrayRelease(h)
        self.handles = []

    def info(self):
        needed = ctypes.c_size_t(0)
        self.lib.NclInfo(None, 0, ctypes.byref(needed))
        buf = ctypes.create_string_buffer(needed.value + 1)
        if self.lib.NclInfo(buf, len(buf), ctypes.byref(needed)) != 0:
            return {}
        try:
            return json.loads(buf.value.decode('utf-8', 'replace'))
        except ValueError:
            return {}

    def call(self, kind, op, a=None, b=None, c=None, out=None, dtype=DTYPE_DEFAULT,
             casting=CASTING_SAME_KIND, sort_kind=SORT_DEFAULT, accuracy=-1, keep=False,
             side=0):
        """An NclbCall over arrays given as NumPy arrays (wrapped here)."""
        wr = lambda x, w=False: self.wrap(x, w) if x is not None else None
        return Call(KIND[kind], op, wr(a), wr(b), wr(c), wr(out, True), dtype, casting,
                    sort_kind, accuracy, 1 if keep else 0, side)

    def sampler(self, call, clock=CLOCK_CPU, before=None):
        """fn(k) -> ns per call, timed in C; fn.faults holds the last faults per call."""
        res = Result()

        def run(k):
            if before is not None:
                before()
            self.check(self.helper.nclb_time(ctypes.byref(call), k, clock, ctypes.byref(res)),
                       'NCLib call (kind %d, op %d)' % (call.kind, call.op))
            run.faults = res.faults_per_call
            return res.ns_per_call
        run.faults = 0.0
        return run


def numpy_sampler(fn, clock=CLOCK_CPU):
    """fn(k) -> ns per call of the NumPy statement fn, called from Python."""
    timer = time.process_time if clock == CLOCK_CPU else time.perf_counter

    def run(k):
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        t0 = timer()
        for _ in range(k):
            fn()
        t1 = timer()
        run.faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0) / k
        return (t1 - t0) / k * 1e9
    run.faults = 0.0
    return run


# ---- measuring ---------------------------------------------------------------------

class Measure:
    def __init__(self, repeats, min_time, max_calls_kept=8):
        self.repeats = repeats
        self.min_time = min_time
        self.max_calls_kept = max_calls_kept

    def run(self, samplers, caps=None):
        """Medians (ns per call) of interleaved samples of each sampler."""
        ks = []
        for i, f in enumerate(samplers):
            f(1)  # warm-up: first touch of pages, lazy initialisation
            t = f(1)
            k = max(1, min(int(self.min_time * 1e9 / max(t, 1.0)), 10 ** 7))
            if caps is not None and caps[i] is not None:
                k = min(k, caps[i])
            if k > 1:
                f(max(1, k // 4))  # warm the caches and branch predictors at this k
            ks.append(k)
        samples = [[] for _ in samplers]
        for _ in range(self.repeats):
            for i, f in enumerate(samplers):
                samples[i].append(f(ks[i]))
        return [statistics.median(s) for s in samples]


def fmt_ns(ns):
    if ns is None:
        return '—'
    if ns >= 1e6:
        return '%.3g ms' % (ns / 1e6)
    if ns >= 1e3:
        return '%.3g µs' % (ns / 1e3)
    return '%.3g ns' % ns


def fmt_n(n):
    return {64000: '6.4e4', 1000000: '1e6', 16000000: '1.6e7', 16: '16', 1000: '1000'}.get(n, str(n))


class Report:
    """Rows of the PERFORMANCE.md tables, by BENCHMARKS.md row number."""

    def __init__(self):
        self.rows = {}
        self.extra = {}

    def add(self, row, case, ncl, numpy, ratio, target, met, note=''):
        self.rows.setdefault(row, []).append(
            dict(case=case, ncl=ncl, numpy=numpy, ratio=ratio, target=target, met=met, note=note))
        verdict = {True: 'met', False: 'NOT MET', None: '-'}[met]
        log('  #%-2d %-48s %12s %12s %8s  %s' % (row, case, ncl, numpy, ratio, verdict))

    def ratio_row(self, row, case, t_ncl, t_np, limit, note='', limit_text=None):
        ratio = t_ncl / t_np
        met = None if limit is None else ratio <= limit
        target = limit_text or ('—' if limit is None else '≤ %.2f' % limit)
        self.add(row, case, fmt_ns(t_ncl), fmt_ns(t_np), '%.2f' % ratio, target, met, note)
        return ratio

    def note(self, row, text):
        self.extra.setdefault(row, []).append(text)


# ---- data ------------------------------------------------------------------------

class Data:
    """Random inputs from fixed seeds, cached by name until clear()."""

    def __init__(self, np):
        self.np = np
        self.cache = {}

    def clear(self):
        self.cache = {}

    def get(self, dtype, n, kind='default', seed=0):
        key = (dtype, n, kind, seed)
        if key not in self.cache:
            self.cache[key] = self.make(dtype, n, kind, seed)
        return self.cache[key]

    def make(self, dtype, n, kind, seed):
        np = self.np
        rng = np.random.default_rng(1000 + seed)
        dt = np.dtype(dtype)
        if kind == 'mask':
            return rng.random(n) < 0.5
        if kind == 'full':  # integers over their whole range
            info = np.iinfo(dt)
            return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        if kind == 'exp':
            return rng.uniform(-20, 20, n).astype(dt)
        if kind == 'log':
            return rng.uniform(1e-3, 1e3, n).astype(dt)
        if kind == 'sin':
            return rng.uniform(-100, 100, n).astype(dt)
        if kind == 'cast':  # in range of int32, so NumPy's cast is defined
            return rng.uniform(-1e9, 1e9, n).astype(dt)
        if dt.kind == 'f':
            return rng.uniform(-1e3, 1e3, n).astype(dt)
        return rng.integers(-10 ** 6, 10 ** 6, n, dtype=dt)


# ---- the rows ----------------------------------------------------------------------

class Bench:
    def __init__(self, args, np):
        self.np = np
        self.args = args
        self.ncl = Ncl(args.build_dir)
        self.m = Measure(args.repeats, args.min_time)
        self.data = Data(np)
        self.rep = Report()
        self.big_add = {}  # row 1's 1.6e7 medians, for row 2
        self.skip = set(args.skip_rows or ())

    def pair(self, call, np_fn, caps=None):
        """(NCLib ns, NumPy ns, NCLib sampler, NumPy sampler) for one case."""
        fn = self.ncl.sampler(call)
        fp = numpy_sampler(np_fn)
        t_ncl, t_np = self.m.run([fn, fp], caps)
        return t_ncl, t_np, fn, fp

    def done_case(self):
        self.ncl.release_all()

    def failed(self, row, case, err):
        """A case NCLib refused: the report says so, and the run goes on."""
        self.rep.add(row, case, 'failed', '—', '—', ROW_TARGETS[row] if row != 17 else '—', False,
                     str(err).replace('|', '/'))

    def bandwidth_sampler(self, fn, a, b, c, *clock):
        """fn(k) -> ns per pass of the helper's bandwidth kernel fn over
        a, b -> c; clock is its clock argument where it takes one."""
        res = ctypes.c_double()
        ptrs = (a.ctypes.data, b.ctypes.data, c.ctypes.data)

        def run(k):
            self.ncl.check(fn(*ptrs, len(c), k, *clock, ctypes.byref(res)), 'bandwidth kernel')
            return res.value
        return run

    def stream_samplers(self):
        """Samplers of the bandwidth kernels (streaming, plain stores) over
        buffers made once; row 1 interleaves the streaming one with its
        1.6e7 cases so that the limit and the case see the same machine."""
        if getattr(self, '_stream', None) is None:
            np = self.np
            n = STREAM_N
            a, b, c = np.full(n, 1.0), np.full(n, 2.0), np.zeros(n)
            h = self.ncl.helper
            self._stream = (self.bandwidth_sampler(h.nclb_stream_add, a, b, c, CLOCK_CPU),
                            self.bandwidth_sampler(h.nclb_plain_add, a, b, c, CLOCK_CPU),
                            (a, b, c))
        return self._stream[:2]

    def stream_add_threads(self, a, b, c):
        """Samplers (wall time) of the streaming add over a, b -> c on one
        thread and on two (row 17's limit for a DRAM-bound add)."""
        h = self.ncl.helper
        return [self.bandwidth_sampler(h.nclb_stream_add, a, b, c, CLOCK_WALL),
                self.bandwidth_sampler(h.nclb_stream_add2, a, b, c)]

    def row01(self):
        np = self.np
        ufuncs = [('add', ADD, np.add), ('subtract', SUBTRACT, np.subtract),
                  ('multiply', MULTIPLY, np.multiply)]
        for n in SIZES:
            for dt in ('float32', 'float64', 'int32', 'int64'):
                a, b = self.data.get(dt, n, seed=1), self.data.get(dt, n, seed=2)
                c = np.empty(n, dt)
                for name, op, uf in ufuncs:
                    call = self.ncl.call('binary', op, a, b, out=c)
                    if n == BIG:
                        t_ncl, t_np, t_lim = self.m.run([self.ncl.sampler(call),
                                                         numpy_sampler(lambda: uf(a, b, out=c)),
                                                         self.stream_samplers()[0]])
                    else:
                        t_ncl, t_np, _, _ = self.pair(call, lambda: uf(a, b, out=c))
                    self.done_case()
                    if n == BIG:
                        limit = 0.85 if dt.startswith('float') else 1.00
                        self.big_add[(name, dt)] = (t_ncl, t_np, c.itemsize * 3, t_lim)
                    else:
                        limit = 1.00
                    self.rep.ratio_row(1, '%s %s, n = %s' % (name, SHORT[dt], fmt_n(n)),
                                       t_ncl, t_np, limit)
            self.data.clear()

    def row02(self):
        """The bandwidth limit, in the same run, and row 1's 1.6e7 cases against it."""
        n = STREAM_N
        h = self.ncl.helper
        t_stream, t_plain = self.m.run(list(self.stream_samplers()))
        width = h.nclb_stream_has_nt_stores()
        self.stream = dict(ns=t_stream, gbs=n * 24 / t_stream, plain_gbs=n * 24 / t_plain,
                           width=width)
        self.rep.note(2, 'Limit measured in this run: `c = a + b` over 16M doubles (384 MiB '
                      'moved per pass) with %s: **%.1f GB/s** (%.3f ns per element). The same '
                      'loop with plain stores: %.1f GB/s. Each case below has its own limit, '
                      'from streaming-kernel samples interleaved with its own (the machine\'s '
                      'bandwidth changes with the load): its bytes (two inputs read, one '
                      'output written) at that rate; the figure is limit time ÷ measured time. '
                      'A figure above 100 %% means this streaming kernel (128-bit stores, '
                      'baseline build) was slower than the library\'s plain-store loop at that '
                      'moment: the limit is a measurement, not a bound.'
                      % ('%d-bit non-temporal stores' % width if width else
                         'plain stores (this build has no streaming stores)',
                         self.stream['gbs'], t_stream / n, self.stream['plain_gbs']))
        self._stream = None
        for (name, dt), (t_ncl, t_np, bpe, t_lim) in sorted(self.big_add.items()):
            limit_t = BIG * bpe * t_lim / (STREAM_N * 24)
            f_ncl, f_np = limit_t / t_ncl, limit_t / t_np
            met = f_ncl >= 0.85
            self.rep.add(2, '%s %s, n = 1.6e7' % (name, SHORT[dt]),
                         '%s (%.0f %%, %.1f GB/s)' % (fmt_ns(t_ncl), 100 * f_ncl, BIG * bpe / t_ncl),
                         '%s (%.0f %%)' % (fmt_ns(t_np), 100 * f_np), '%.0f %%' % (100 * f_ncl),
                         '≥ 85 %', met)
        if not self.big_add:
            self.rep.note(2, 'Row 1 did not run, so there are no 1.6e7 cases to compare.')

    def row03(self):
        """Call overhead and hooks: google-benchmark (C), NumPy from Python for scale."""
        np = self.np
        binary = os.path.join(self.args.build_dir, 'bench', 'bench_binary')
        if not os.path.exists(binary):
            self.rep.add(3, 'bench_binary not built', '—', '—', '—', ROW_TARGETS[3], False)
            return
        # Random interleaving makes the hook cases alternate with the plain
        # one instead of running one after the other.
        cmd = [binary, '--benchmark_format=json', '--benchmark_repetitions=%d' % self.args.repeats,
               '--benchmark_min_time=%g' % max(self.args.min_time, 0.05),
               '--benchmark_enable_random_interleaving=true']
        env = dict(os.environ, NCL_NUM_THREADS='1')
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, check=False)
        if proc.returncode != 0:
            raise NclError('%s failed (%d): %s' % (binary, proc.returncode, proc.stderr[-2000:]))
        unit = {'ns': 1.0, 'us': 1e3, 'ms': 1e6, 's': 1e9}
        samples = {}
        for b in json.loads(proc.stdout)['benchmarks']:
            if b.get('run_type') != 'iteration':
                continue
            if b.get('error_occurred'):
                raise NclError('%s: %s' % (b['name'], b.get('error_message')))
            samples.setdefault(b.get('run_name', b['name']), []).append(
                b['cpu_time'] * unit[b.get('time_unit', 'ns')])
        med = {k: statistics.median(v) for k, v in samples.items()}
        for n, limit in ((16, 30.0), (1000, 150.0)):
            a = np.arange(n, dtype=np.float64)
            b = np.arange(1, n + 1, dtype=np.float64)
            c = np.empty(n)
            t_np = self.m.run([numpy_sampler(lambda: np.add(a, b, out=c))])[0]
            t = med['add_f64_out/%d' % n]
            self.rep.add(3, 'f64 add, n = %d, per call (C)' % n, fmt_ns(t),
                         '%s (from Python)' % fmt_ns(t_np), '%.2f' % (t / t_np),
                         '≤ %s per call' % fmt_ns(limit), t <= limit)
        base = med['add_f64_hooks/0']
        for k in (1, 4):
            t = med['add_f64_hooks/%d' % k]
            per = (t - base) / k
            self.rep.add(3, 'f64 add n = 16 with %d empty hook%s' % (k, 's' if k > 1 else ''),
                         '%s (%+.2f ns per hook)' % (fmt_ns(t), per), '—',
                         '—', '≤ 5 ns per hook', per <= 5.0)
        self.rep.note(3, 'From google-benchmark (bench_binary, %d repetitions, random '
                      'interleaving, median CPU time); NCLib with hooks is compared with NCLib '
                      'without (%s per call). NumPy is timed from Python for scale only; '
                      'its ratio is not a target.' % (self.args.repeats, fmt_ns(base)))

    def row04(self):
        np = self.np
        n = BIG
        for dt in ('float64', 'float32', 'int32', 'int64'):
            a, b = self.data.get(dt, n, seed=1), self.data.get(dt, n, seed=2)
            fresh = self.ncl.call('binary', ADD, a, b, keep=True)
            reuse = self.ncl.call('binary', ADD, a, b)
            f_fresh, f_reuse = self.ncl.sampler(fresh), self.ncl.sampler(reuse)
            f_np = numpy_sampler(lambda: np.add(a, b))
            # keep=True holds every result of a sample: at most 8 (1 GiB of f64).
            t_fresh, t_reuse, t_np = self.m.run([f_fresh, f_reuse, f_np], [8, None, None])
            self.done_case()
            self.rep.ratio_row(4, 'add %s, output allocated, no reuse possible' % SHORT[dt],
                               t_fresh, t_np, 1.00,
                               note='%.0f page faults per call (NumPy %.0f)'
                               % (f_fresh.faults, f_np.faults))
            # Fresh pages fault once per page (4 KiB, or 2 MiB with huge
            # pages): a reused buffer faults far less than a fresh one.
            hit = f_reuse.faults < max(1.0, 0.1 * f_fresh.faults)
            self.rep.ratio_row(4, 'add %s, output allocated, freed and allocated again'
                               % SHORT[dt], t_reuse, t_np, 0.70,
                               note='%.0f page faults per call: the reuse cache was %s'
                               % (f_reuse.faults, 'hit' if hit else 'NOT hit'))
            self.data.clear()
        self.rep.note(4, '"No reuse possible": every result of a sample stays alive until the '
                      'sample ends, so each call gets a buffer no earlier call released. '
                      '"Freed and allocated again": each result is released before the next '
                      'call, as NumPy\'s temporaries are, so the allocator may reuse it. NumPy '
                      'is `np.add(a, b)` in both rows. Page faults per call tell whether the '
                      'output pages were fresh.')

    def row05(self):
        np = self.np
        for n in SIZES:
            a2 = self.data.get('float64', 2 * n, seed=1)
            av = a2[::2]
            b = self.data.get('float64', n, seed=2)
            c = np.empty(n)
            call = self.ncl.call('binary', ADD, av, b, out=c)
            t_ncl, t_np, _, _ = self.pair(call, lambda: np.add(av, b, out=c))
            self.done_case()
            self.rep.ratio_row(5, 'add(a[::2], b) f64, n = %s' % fmt_n(n), t_ncl, t_np, 0.90)
            self.data.clear()

    def row06(self):
        np = self.np
        for n in SIZES:
            m = n // 1000
            a = self.data.get('float64', n, seed=1)
            for label, ash, bsh in (('(n/1000, 1000) + (1000,)', (m, 1000), (1000,)),
                                    ('(1000, n/1000) + (1000, 1)', (1000, m), (1000, 1))):
                av = a.reshape(ash)
                bv = self.data.get('float64', 1000, seed=2).reshape(bsh)
                c = np.empty(ash)
                call = self.ncl.call('binary', ADD, av, bv, out=c)
                t_ncl, t_np, _, _ = self.pair(call, lambda: np.add(av, bv, out=c))
                self.done_case()
                self.rep.ratio_row(6, '%s, n = %s' % (label, fmt_n(n)), t_ncl, t_np, 1.00)
            self.data.clear()

    def row07(self):
        np = self.np
        for n in SIZES:
            for dt in ('float64', 'int64'):
                a, b = self.data.get(dt, n, seed=1), self.data.get(dt, n, seed=2)
                c = np.empty(n, bool)
                call = self.ncl.call('compare', CMP_GT, a, b, out=c)
                t_ncl, t_np, _, _ = self.pair(call, lambda: np.greater(a, b, out=c))
                self.done_case()
                self.rep.ratio_row(7, 'a > b %s, n = %s' % (SHORT[dt], fmt_n(n)), t_ncl, t_np,
                                   1.00)
            self.data.clear()

    def row08_inputs(self, n):
        """int64 and uint64 operands where the sign and the low bits matter:
        a quarter of the pairs equal, a quarter one apart above 2**53 (where
        float64 cannot tell them apart), the rest over the whole ranges."""
        np = self.np
        rng = np.random.default_rng(8)
        a = rng.integers(-2 ** 63, 2 ** 63 - 1, n, dtype=np.int64, endpoint=True)
        b = rng.integers(0, 2 ** 64 - 1, n, dtype=np.uint64, endpoint=True)
        q = n // 4
        big = rng.integers(2 ** 60, 2 ** 62, q, dtype=np.int64)
        a[:q] = big
        b[:q] = big.astype(np.uint64)
        a[q:2 * q] = big
        b[q:2 * q] = big.astype(np.uint64) + np.uint64(1)
        perm = rng.permutation(n)
        return a[perm], b[perm], b[perm].astype(np.int64)  # the last: int64 with the same bits

    def row08(self):
        np = self.np
        ufuncs = [np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal]
        for n in SIZES:
            a, b, b_i64 = self.row08_inputs(n)
            c = np.empty(n, bool)
            rng = np.random.default_rng(88)
            idx = np.arange(n) if n <= 64000 else rng.choice(n, 100000, replace=False)
            ai, bi = a[idx].tolist(), b[idx].tolist()  # Python ints: exact
            for op, (name, pyop, uf) in enumerate(zip(CMP_OPS, CMP_PY, ufuncs)):
                call = self.ncl.call('compare', op, a, b, out=c)
                call_ii = self.ncl.call('compare', op, a, b_i64, out=c)
                f_ncl, f_ii = self.ncl.sampler(call), self.ncl.sampler(call_ii)
                f_np = numpy_sampler(lambda: uf(a, b, out=c))
                t_ncl, t_np, t_ii = self.m.run([f_ncl, f_np, f_ii])
                # Exactness: NCLib's result against Python's integers.
                f_ncl(1)
                got = c[idx].tolist()
                want = [pyop(x, y) for x, y in zip(ai, bi)]
                wrong = sum(g != w for g, w in zip(got, want))
                np_wrong = sum(g != w for g, w in zip(uf(a[idx], b[idx]).tolist(), want))
                self.done_case()
                ratio, own = t_ncl / t_np, t_ncl / t_ii
                met = wrong == 0 and ratio <= 0.35 and own <= 1.1
                self.rep.add(8, '%s i64 vs u64, n = %s' % (name, fmt_n(n)), fmt_ns(t_ncl),
                             fmt_ns(t_np), '%.2f (%.2f× i64-i64)' % (ratio, own),
                             '≤ 0.35, ≤ 1.1× own, exact', met,
                             '%s; NCLib i64-vs-i64 %s; %d checked, NCLib wrong on %d, NumPy '
                             'on %d' % ('exact' if wrong == 0 else 'NOT EXACT', fmt_ns(t_ii),
                                        len(idx), wrong, np_wrong))

    def row09(self):
        np = self.np
        for n in SIZES:
            a = self.data.get('int32', n, seed=1)
            b = self.data.get('float64', n, seed=2)
            c = np.empty(n)
            call = self.ncl.call('binary', ADD, a, b, out=c)
            t_ncl, t_np, _, _ = self.pair(call, lambda: np.add(a, b, out=c))
            self.done_case()
            self.rep.ratio_row(9, 'i32 + f64 -> f64, n = %s' % fmt_n(n), t_ncl, t_np, 0.65)
            self.data.clear()

    def ncl_reduce_value(self, op, a, out):
        call = self.ncl.call('reduce', op, a, out=out)
        self.ncl.sampler(call)(1)
        self.done_case()
        return out[()]

    def row10(self):
        np = self.np
        funcs = {SUM: np.sum, MIN: np.min, MAX: np.max}
        names = {SUM: 'sum', MIN: 'min', MAX: 'max'}
        for n in SIZES:
            for dt in ('float64', 'float32', 'int64'):
                a = self.data.get(dt, n, seed=1)
                for op in (SUM, MIN, MAX):
                    out = np.empty((), dt)
                    call = self.ncl.call('reduce', op, a, out=out)
                    fn = funcs[op]
                    t_ncl, t_np, _, _ = self.pair(call, lambda: fn(a))
                    self.done_case()
                    if op == SUM and dt == 'float64':
                        limit = 1.05 if n == BIG else 0.50
                    elif op == SUM:
                        limit = None  # BENCHMARKS.md sets no target for these sums
                    else:
                        limit = 1.00
                    self.rep.ratio_row(10, '%s %s, n = %s' % (names[op], SHORT[dt], fmt_n(n)),
                                       t_ncl, t_np, limit,
                                       note='' if limit is not None else 'no target; shown')
            self.data.clear()
        # Accuracy against math.fsum (the exact sum, rounded once): two
        # families, sums that cancel (standard normal) and sums over wide
        # magnitudes of both signs, at 1e6 and 1.6e7. "As accurate as
        # pairwise" is a statement about error bounds, not about every
        # single sum (either method can be luckier on one array), so the
        # target is met when NCLib's median and largest errors are at most
        # NumPy's (pairwise) ones; the note counts the arrays where NCLib was
        # worse than both pairwise and one ulp of the exact sum.
        rng = np.random.default_rng(10)
        for dt in ('float64', 'float32'):
            eps = float(np.finfo(dt).eps)
            e_ncl, e_np, bad = [], [], 0
            trials = 0
            for family in ('normal', 'wide'):
                for n in (1000000,) * 5 + (BIG,):
                    x = rng.standard_normal(n)
                    if family == 'wide':
                        x *= 10.0 ** rng.uniform(-6, 6, n)
                    x = x.astype(dt)
                    xs = x.astype(np.float64).tolist()
                    exact = math.fsum(xs)
                    scale = math.fsum(map(abs, xs)) * eps / 2  # u times the sum of magnitudes
                    del xs
                    got = float(self.ncl_reduce_value(SUM, x, np.empty((), dt)))
                    pairwise = float(np.sum(x))
                    ulp = abs(float(np.spacing(np.array(exact).astype(dt))))
                    err, err_np = abs(got - exact), abs(pairwise - exact)
                    bad += err > max(err_np, ulp)
                    trials += 1
                    e_ncl.append(err / scale)
                    e_np.append(err_np / scale)
                    del x
            self.rep.add(10, 'accuracy: sum %s, %d arrays (1e6 and 1.6e7)' % (SHORT[dt], trials),
                         'median %.2g, max %.2g' % (statistics.median(e_ncl), max(e_ncl)),
                         'median %.2g, max %.2g (pairwise)' % (statistics.median(e_np), max(e_np)),
                         '—', '≥ pairwise', statistics.median(e_ncl) <= statistics.median(e_np)
                         and max(e_ncl) <= max(e_np),
                         'errors in units of u × (sum of magnitudes); worse than both pairwise '
                         'and one ulp on %d of %d' % (bad, trials))

    def row11(self):
        np = self.np
        for n in SIZES:
            for fname in ('exp', 'log', 'sin'):
                uf = getattr(np, fname)
                for dt in ('float32', 'float64'):
                    a = self.data.get(dt, n, fname, seed=1)
                    c = np.empty(n, dt)
                    for acc, acc_name in ((ACCURACY_HIGH, 'HIGH'), (ACCURACY_FAST, 'FAST')):
                        call = self.ncl.call('unary', UNARY[fname], a, out=c, accuracy=acc)
                        t_ncl, t_np, _, _ = self.pair(call, lambda: uf(a, out=c))
                        self.done_case()
                        if dt == 'float32':
                            limit, text = 0.60, None
                            if acc == ACCURACY_FAST:
                                text = '≤ 0.60 (as default)'
                        else:
                            limit = 1.60 if acc == ACCURACY_HIGH else 1.00
                            text = None
                        self.rep.ratio_row(11, '%s %s %s, n = %s' % (fname, SHORT[dt], acc_name,
                                                                     fmt_n(n)),
                                           t_ncl, t_np, limit, limit_text=text)
            self.data.clear()
        self.rep.note(11, 'Inputs: exp on [-20, 20], log on [1e-3, 1e3], sin on [-100, 100], '
                      'uniform. HIGH is NCL_ACCURACY_HIGH (≤ 1 ulp, the default), FAST is '
                      'NCL_ACCURACY_FAST (≤ 4 ulp), set with NclSetAccuracy for the timed loop. '
                      'BENCHMARKS.md names no FAST target for f32; the default one is shown.')

    def row12(self):
        np = self.np
        for n in SIZES:
            for dt in ('float32', 'float64'):
                a = self.data.get(dt, n, 'log', seed=1)
                c = np.empty(n, dt)
                call = self.ncl.call('unary', UNARY['sqrt'], a, out=c)
                t_ncl, t_np, _, _ = self.pair(call, lambda: np.sqrt(a, out=c))
                self.done_case()
                self.rep.ratio_row(12, 'sqrt %s, n = %s' % (SHORT[dt], fmt_n(n)), t_ncl, t_np,
                                   0.55)
            self.data.clear()

    def row13(self):
        np = self.np
        for n in SIZES:
            cond = self.data.get('bool', n, 'mask', seed=3)
            a, b = self.data.get('float64', n, seed=1), self.data.get('float64', n, seed=2)
            call = self.ncl.call('ternary', WHERE, cond, a, b)
            t_ncl, t_np, _, _ = self.pair(call, lambda: np.where(cond, a, b))
            self.done_case()
            self.rep.ratio_row(13, 'where(c, a, b) f64, n = %s' % fmt_n(n), t_ncl, t_np, 0.25)
            call = self.ncl.call('mask', MASK_COMPRESS, a, cond)
            t_ncl, t_np, _, _ = self.pair(call, lambda: a[cond])
            self.done_case()
            self.rep.ratio_row(13, 'a[mask] f64 50 %% true, n = %s' % fmt_n(n), t_ncl, t_np, 0.20)
            self.data.clear()

    def row14(self):
        np = self.np
        for n in SIZES:
            for src, dst in (('float64', 'int32'), ('int64', 'float32')):
                a = self.data.get(src, n, 'cast', seed=1)
                c = np.empty(n, dst)
                call = self.ncl.call('convert', CONVERT_ASTYPE, a, out=c,
                                     dtype=DTYPES.index(dst), casting=CASTING_UNSAFE)
                t_ncl, t_np, _, _ = self.pair(
                    call, lambda: np.copyto(c, a, casting='unsafe'))
                self.done_case()
                if src == 'float64':
                    limit = 1.00
                else:
                    limit = 0.80 if n == BIG else 0.30
                self.rep.ratio_row(14, '%s -> %s, n = %s' % (SHORT[src], SHORT[dst], fmt_n(n)),
                                   t_ncl, t_np, limit)
            self.data.clear()
        self.rep.note(14, 'Both sides write a given output: NCLib NclConvert(ASTYPE, unsafe '
                      'casting), NumPy `np.copyto(out, a, casting="unsafe")`. f64 values are '
                      'in int32\'s range (NumPy leaves out-of-range casts undefined).')

    def sort_rows(self, row, variants):
        np = self.np
        n = 1000000
        for dt in ('int32', 'int64', 'float32', 'float64'):
            a = self.data.get(dt, n, 'full' if dt.startswith('int') else 'cast', seed=1)
            for label, op, kind, np_fn, limit, text in variants(dt):
                case = '%s %s, n = 1e6' % (label, SHORT[dt])
                try:
                    call = self.ncl.call('sort', op, a, sort_kind=kind)
                    t_ncl, t_np, _, _ = self.pair(call, lambda: np_fn(a))
                except NclError as e:
                    self.failed(row, case, e)
                    continue
                finally:
                    self.done_case()
                self.rep.ratio_row(row, case, t_ncl, t_np, limit, limit_text=text)
        self.data.clear()

    def row15(self):
        np = self.np

        def variants(dt):
            if dt.endswith('64'):
                return [('sort', SORT, SORT_DEFAULT, np.sort, 0.20, None)]
            return [('sort', SORT, SORT_DEFAULT, np.sort, 0.80, '≤ 0.80 (stretch ≤ 0.30)')]
        self.sort_rows(15, variants)
        self.rep.note(15, 'Integers over their whole range, floats uniform on [-1e9, 1e9]; both '
                      'sides return a new sorted array.')

    def row16(self):
        np = self.np
        self.sort_rows(16, lambda dt: [
            ('argsort', ARGSORT, SORT_DEFAULT, np.argsort, 0.50, None),
            ('stable sort', SORT, SORT_STABLE, lambda x: np.sort(x, kind='stable'), 0.50, None)])

    def row20(self):
        """unique_values / unique_all (np.unique, return_index, return_inverse,
        return_counts) of 1e6 values with repeats, and searchsorted of 1e6 keys
        (random, and sorted) in a sorted a of 1e6."""
        np = self.np
        n = 1000000
        rng = np.random.default_rng(18)
        unique_ops = (('unique_values', UNIQUE_VALUES, lambda x: np.unique(x)),
                      ('unique_all', UNIQUE_ALL,
                       lambda x: np.unique(x, return_index=True, return_inverse=True,
                                           return_counts=True)))
        for dt in ('int64', 'float64'):
            # about 1e5 distinct values, each about ten times
            a = rng.integers(0, n // 10, n).astype(dt)
            if dt == 'float64':
                a = a * 0.5 - 1e4
            for label, op, np_fn in unique_ops:
                case = '%s %s, n = 1e6' % (label, SHORT[dt])
                try:
                    call = self.ncl.call('sortn', op, a)
                    t_ncl, t_np, _, _ = self.pair(call, lambda: np_fn(a))
                except NclError as e:
                    self.failed(20, case, e)
                    continue
                finally:
                    self.done_case()
                self.rep.ratio_row(20, case, t_ncl, t_np, 1.0)
        for dt in ('int64', 'float64'):
            srt = np.sort(rng.integers(-2 ** 40, 2 ** 40, n).astype(dt))
            keys = rng.integers(-2 ** 40, 2 ** 40, n).astype(dt)
            for label, v in (('random keys', keys), ('sorted keys', np.sort(keys))):
                case = 'searchsorted %s, %s, n = 1e6' % (SHORT[dt], label)
                try:
                    call = self.ncl.call('mask', SEARCHSORTED, srt, v)
                    t_ncl, t_np, _, _ = self.pair(call, lambda: np.searchsorted(srt, v))
                except NclError as e:
                    self.failed(20, case, e)
                    continue
                finally:
                    self.done_case()
                self.rep.ratio_row(20, case, t_ncl, t_np, 1.0)
        self.rep.note(20, 'unique: integers drawn from [0, 1e5) (float64: the same halved and '
                      'shifted), so about ten repeats each; NCLib NclSortN, NumPy `np.unique` '
                      '(unique_all: with return_index, return_inverse and return_counts). '
                      'searchsorted: a sorted array of 1e6 values drawn from ±2**40, 1e6 keys '
                      'from the same range, in random order and sorted; left side.')

    def row17(self):
        np = self.np
        ncl = self.ncl
        cases = [('exp f64, n = 1e6', 1.7, 'unary', UNARY['exp'], 1000000, 'exp'),
                 ('sin f64, n = 1e6', 1.7, 'unary', UNARY['sin'], 1000000, 'sin'),
                 ('sort f64, n = 1e6', 1.7, 'sort', SORT, 1000000, 'cast'),
                 ('add f64, n = 1e6 (cache-resident)', 1.7, 'binary', ADD, 1000000, 'default'),
                 ('add f64, n = 1.6e7 (DRAM-bound)', 1.1, 'binary', ADD, BIG, 'default')]
        if ncl.set_threads is None:
            for label, limit, *_ in cases:
                self.rep.add(17, label, 'pool not built', '—', '—', '≥ %.1f×' % limit, None,
                             'libncl.so has no NclSetNumThreads')
            return
        limit_note = None
        for label, limit, kind, op, n, dkind in cases:
            a = self.data.get('float64', n, dkind, seed=1)
            b = self.data.get('float64', n, seed=2)
            c = np.empty(n)
            if kind == 'unary':
                call = ncl.call(kind, op, a, out=c)
            elif kind == 'sort':
                call = ncl.call(kind, op, a)
            else:
                call = ncl.call(kind, op, a, b, out=c)
            f1 = ncl.sampler(call, CLOCK_WALL, lambda: ncl.check(ncl.set_threads(1), 'threads'))
            f2 = ncl.sampler(call, CLOCK_WALL, lambda: ncl.check(ncl.set_threads(2), 'threads'))
            if n == BIG:
                t1, t2, l1, l2 = self.m.run([f1, f2] + self.stream_add_threads(a, b, c))
            else:
                t1, t2 = self.m.run([f1, f2])
            ncl.check(ncl.set_threads(1), 'NclSetNumThreads(1)')
            self.done_case()
            speedup = t1 / t2
            self.rep.add(17, label, '%s (2 threads)' % fmt_ns(t2), '%s (1 thread)' % fmt_ns(t1),
                         '%.2f×' % speedup, '≥ %.1f×' % limit, speedup >= limit)
            if n == BIG:
                limit_note = ('The machine\'s own limit for the DRAM-bound add, sampled with '
                              'it on the same buffers (wall time): the streaming `c = a + b` of '
                              'row 2 alone, %s on one thread, %s split across two (helper '
                              'threads, each pass started together): **%.2f×**. NCLib\'s two-'
                              'thread add took %.0f %% of that two-thread time, its one-thread '
                              'add %.0f %% of the one-thread time.'
                              % (fmt_ns(l1), fmt_ns(l2), l1 / l2, 100 * t2 / l2, 100 * t1 / l1))
            self.data.clear()
        self.rep.note(17, 'Both columns are NCLib (NclSetNumThreads(1) / (2) before each sample, '
                      'default threading threshold); the "ratio" is the speedup, 1-thread time ÷ '
                      '2-thread time. Wall time: on this shared 2-core machine another process on '
                      'the second core lowers the speedup.')
        if limit_note:
            self.rep.note(17, limit_note)

    def row18(self):
        np = self.np
        cases = [('matmul f64, 1000 x 1000', 'float64', (1000, 1000), (1000, 1000), 1.20),
                 ('matmul f32, 1000 x 1000', 'float32', (1000, 1000), (1000, 1000), None),
                 ('matmul f64, (10000, 8, 8) @ (10000, 8, 8)', 'float64', (10000, 8, 8),
                  (10000, 8, 8), None),
                 ('matmul f32, (10000, 8, 8) @ (10000, 8, 8)', 'float32', (10000, 8, 8),
                  (10000, 8, 8), None)]
        for label, dt, sa, sb, limit in cases:
            a = self.data.get(dt, int(np.prod(sa)), seed=1).reshape(sa)
            b = self.data.get(dt, int(np.prod(sb)), seed=2).reshape(sb)
            c = np.empty(np.broadcast_shapes(sa[:-2], sb[:-2]) + (sa[-2], sb[-1]), dt)
            try:
                call = self.ncl.call('linalg', MATMUL, a, b, out=c)
                t_ncl, t_np, _, _ = self.pair(call, lambda: np.matmul(a, b, out=c))
            except NclError as e:
                self.failed(18, label, e)
                continue
            finally:
                self.done_case()
            self.rep.ratio_row(18, label, t_ncl, t_np, limit)
            self.data.clear()
        self.rep.note(18, 'Both sides write a given C-contiguous output from C-contiguous '
                      'inputs, values uniform on [-1e3, 1e3]. NCLib calls the BLAS it was '
                      'built with (NclInfo\'s "blas"), NumPy the libblas.so.3 alternative '
                      '(OpenBLAS here); both on one BLAS thread (OPENBLAS_NUM_THREADS=1), so '
                      'CPU time compares like with like. The stacked 8 x 8 case measures the '
                      'cost per product: both sides call the BLAS once per matrix.')
    def row19(self):
        """The new reductions of the whole array at 1e6, f64 and f32: std
        and var on uniform data, the nan-aware ones with 1 % NaN placed at
        random (NumPy's nan-functions copy and mask; NCLib marks the NaNs in
        its gathered chunks)."""
        np = self.np
        n = 1000000
        cases = [('std', STD, np.std), ('var', VAR, np.var), ('nansum', NANSUM, np.nansum),
                 ('nanmean', NANMEAN, np.nanmean), ('nanmin', NANMIN, np.nanmin),
                 ('nanmax', NANMAX, np.nanmax), ('nanargmax', NANARGMAX, np.nanargmax),
                 ('nanstd', NANSTD, np.nanstd)]
        for dt in ('float64', 'float32'):
            a = self.data.get(dt, n, seed=19)
            with_nan = a.copy()
            rng = np.random.default_rng(19)
            with_nan[rng.integers(0, n, n // 100)] = np.nan
            for name, op, fn in cases:
                x = with_nan if name.startswith('nan') else a
                out = np.empty((), np.int64 if name == 'nanargmax' else dt)
                call = self.ncl.call('reduce', op, x, out=out)
                t_ncl, t_np, _, _ = self.pair(call, lambda: fn(x))
                self.done_case()
                self.rep.ratio_row(19, '%s %s, n = %s' % (name, SHORT[dt], fmt_n(n)), t_ncl, t_np,
                                   1.00)
            self.data.clear()


# ---- the report ----------------------------------------------------------------------

def sh(cmd, cwd=None):
    try:
        return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              universal_newlines=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ''


def cpu_ticks():
    """(steal, total) jiffies of all CPUs, from /proc/stat (zeros elsewhere)."""
    try:
        with open('/proc/stat') as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    # user nice system idle iowait irq softirq steal [guest guest_nice]:
    # guest time is already counted in user.
    return (fields[7] if len(fields) > 7 else 0), sum(fields[:8])


def machine_description():
    fields = {}
    for line in sh(['lscpu']).splitlines():
        key, _, value = line.partition(':')
        fields[key.strip()] = value.strip()
    model = fields.get('Model name', platform.processor() or 'unknown CPU')
    try:
        cores = int(fields['Core(s) per socket']) * int(fields.get('Socket(s)', '1'))
    except (KeyError, ValueError):
        cores = None
    text = model
    if cores:
        text += ', %d core%s' % (cores, '' if cores == 1 else 's')
    if os.cpu_count():
        text += ' (%d hardware threads)' % os.cpu_count()
    flags = fields.get('Flags', '').split()
    wanted = [f for f in flags if f in ('sse4_2', 'avx', 'avx2', 'fma') or f.startswith('avx512')]
    return text, ' '.join(wanted) or 'none of sse4_2/avx/avx2/avx512'


def compiler_description(build_dir):
    cache = os.path.join(build_dir, 'CMakeCache.txt')
    compiler, build_type = '', ''
    if os.path.exists(cache):
        with open(cache) as f:
            for line in f:
                if line.startswith('CMAKE_C_COMPILER:'):
                    compiler = line.split('=', 1)[1].strip()
                elif line.startswith('CMAKE_BUILD_TYPE:'):
                    build_type = line.split('=', 1)[1].strip()
    version = sh([compiler, '--version']).splitlines()[0] if compiler else ''
    return version or 'unknown compiler', build_type or 'unknown'


def read_notes(path):
    """bench/notes.md: '## <row>' headings, each followed by its text."""
    notes, row = {}, None
    if not os.path.exists(path):
        return notes
    with open(path) as f:
        for line in f:
            m = re.match(r'^##\s+(\d+)\b', line)
            if m:
                row = int(m.group(1))
                notes[row] = []
            elif row is not None:
                notes[row].append(line.rstrip('\n'))
    return {k: '\n'.join(v).strip() for k, v in notes.items()}


def gbench_summary(path):
    """One line about the brief google-benchmark run of bench_rows, if any."""
    if not path or not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            data = json.load(f)
    except ValueError:
        return 'the JSON output could not be read'
    ran = skipped = 0
    reasons = set()
    for b in data.get('benchmarks', []):
        if b.get('error_occurred'):
            skipped += 1
            reasons.add(b.get('error_message', '?'))
        else:
            ran += 1
    text = '%d cases ran' % ran
    if skipped:
        text += ', %d skipped (%s)' % (skipped, '; '.join(sorted(reasons)))
    return text


# The markers around the RNG's section of the report (bench/rng_side_by_side.py).
RNG_BEGIN = '<!-- rng_side_by_side.py: begin -->'
RNG_END = '<!-- rng_side_by_side.py: end -->'


def write_report(bench, args, header, notes, gbench):
    rep = bench.rep
    out = ['# NCLib performance', '',
           'Generated by `tools/bench.sh` (bench/numpy_side_by_side.py); do not edit by hand. '
           'Targets are those of BENCHMARKS.md; ratios are NCLib time ÷ NumPy time (lower is '
           'better) unless a row says otherwise. A target not met is marked **NOT MET**, '
           'with what was tried (bench/notes.md).', '',
           '| | |', '|---|---|']
    for k, v in header:
        out.append('| %s | %s |' % (k, v))
    out.append('')
    total = met = 0
    failing = []
    for row in sorted(ROW_TITLES):
        items = rep.rows.get(row)
        if not items and row not in rep.extra:
            continue
        out.append('## %d. %s' % (row, ROW_TITLES[row]))
        out.append('')
        out.append('Target: %s.' % ROW_TARGETS[row])
        out.append('')
        for text in rep.extra.get(row, []):
            out.append(text)
            out.append('')
        if items:
            has_notes = any(i['note'] for i in items)
            out.append('| case | NCLib | NumPy | ratio | target | |' + (' note |' if has_notes else ''))
            out.append('|---|---|---|---|---|---|' + ('---|' if has_notes else ''))
            for i in items:
                verdict = {True: 'met', False: '**NOT MET**', None: ''}[i['met']]
                line = '| %s | %s | %s | %s | %s | %s |' % (i['case'], i['ncl'], i['numpy'],
                                                           i['ratio'], i['target'], verdict)
                if has_notes:
                    line += ' %s |' % i['note']
                out.append(line)
                if i['met'] is not None:
                    total += 1
                    met += bool(i['met'])
            out.append('')
        if items and any(i['met'] is False for i in items):
            failing.append(row)
            text = ' '.join((notes.get(row) or 'nothing recorded yet.').split())
            out.append('> **What was tried** (bench/notes.md): %s' % text)
            out.append('')
    out.append('## Summary')
    out.append('')
    out.append('%d of %d targeted cases met. Rows with a case NOT MET: %s.'
               % (met, total, ', '.join('#%d' % r for r in failing) or 'none'))
    if gbench:
        out.append('')
        out.append('google-benchmark cases (bench_rows, brief run by tools/bench.sh): %s.' % gbench)
    return '\n'.join(out) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--build-dir', required=True,
                    help='CMake build directory holding libncl.so and bench/')
    ap.add_argument('--output', help='write the Markdown report here (else stdout only)')
    ap.add_argument('--repeats', type=int, default=7, help='samples per side per case (>= 7)')
    ap.add_argument('--min-time', type=float, default=0.03, help='seconds per sample (at least)')
    ap.add_argument('--rows', type=int, nargs='*', help='only these rows (default: all)')
    ap.add_argument('--skip-rows', type=int, nargs='*', help='leave these rows out')
    ap.add_argument('--gbench-json', help='JSON of the brief bench_rows run, summarised')
    ap.add_argument('--command', help='the command line to print in the report')
    ap.add_argument('--commit', help='what to print as the commit measured (default: git '
                    'describe --always --dirty of this checkout)')
    args = ap.parse_args()
    if args.repeats < 7:
        ap.error('--repeats must be at least 7')
    # Before the library is loaded: single-threaded unless a row says otherwise,
    # the BLAS under NumPy and NCLib's matmul included.
    os.environ['NCL_NUM_THREADS'] = '1'
    os.environ['OPENBLAS_NUM_THREADS'] = '1'

    import numpy as np

    started = time.time()
    load_before = os.getloadavg()
    ticks_before = cpu_ticks()
    bench = Bench(args, np)
    rows = args.rows or sorted(ROW_TITLES)
    if 2 in rows and 1 not in rows:
        rows = [1] + rows  # row 2 is row 1's big cases against the limit
    for row in rows:
        if row in bench.skip:
            continue
        log('row %d: %s' % (row, ROW_TITLES[row]))
        try:
            getattr(bench, 'row%02d' % row)()
        except NclError as e:
            # The cases measured before the failure stay in the report.
            bench.failed(row, 'the rest of row %d' % row, e)
        bench.done_case()
        bench.data.clear()
    load_after = os.getloadavg()
    ticks_after = cpu_ticks()
    elapsed = time.time() - started
    total_ticks = ticks_after[1] - ticks_before[1]
    steal = 100.0 * (ticks_after[0] - ticks_before[0]) / total_ticks if total_ticks else 0.0

    machine, flags = machine_description()
    compiler, build_type = compiler_description(args.build_dir)
    info = bench.ncl.info()
    isa = info.get('isa')
    if isinstance(isa, (dict, list)):
        isa = json.dumps(isa)
    commit = args.commit or sh(['git', 'describe', '--always', '--dirty'], cwd=REPO) or 'unknown'
    header = [
        ('machine', machine),
        ('CPU flags (subset)', flags),
        ('NCLib commit', '`%s`' % commit),
        ('date', datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')),
        ('NCLib build', '%s, %s' % (build_type, compiler)),
        ('ISA variant NCLib chose', '`%s`' % isa if isa else 'not reported (NclInfo has no "isa")'),
        ('threads', 'one (NCL_NUM_THREADS=1%s), except row 17'
         % (', NclSetNumThreads(1)' if bench.ncl.set_threads else '; no thread pool in this '
            'build')),
        ('NumPy', '%s on Python %s, single-threaded' % (np.__version__, platform.python_version())),
        ('method', '%d interleaved samples per side (NCLib, NumPy, ...) of ≥ %g s after a '
         'warm-up; medians of process CPU time (row 17: wall time)'
         % (args.repeats, args.min_time)),
        ('load average (1, 5, 15 min)', 'start %.2f %.2f %.2f; end %.2f %.2f %.2f'
         % (load_before + load_after)),
        ('CPU time stolen by the hypervisor during the run', '%.1f %% (/proc/stat; a guest\'s '
         'CPU-time clocks still run while its vCPU is descheduled, so steal inflates both sides)'
         % steal),
        ('duration of the side-by-side run', '%.0f s' % elapsed),
        ('command', '`%s`' % (args.command or ' '.join([sys.executable] + sys.argv))),
    ]
    text = write_report(bench, args, header, read_notes(os.path.join(HERE, 'notes.md')),
                        gbench_summary(args.gbench_json))
    print(text)
    if args.output:
        # The RNG's section is written by bench/rng_side_by_side.py; it stays.
        kept = ''
        if os.path.exists(args.output):
            with open(args.output) as f:
                old = f.read()
            begin, end = old.find(RNG_BEGIN), old.find(RNG_END)
            if 0 <= begin < end:
                kept = '\n' + old[begin:end + len(RNG_END)] + '\n'
        with open(args.output, 'w') as f:
            f.write(text + kept)
        log('wrote %s' % args.output)


if __name__ == '__main__':
    main()
