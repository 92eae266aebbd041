#!/usr/bin/python3
"""Times NclManip(NCL_CONCATENATE) of two 1e6 float64 arrays next to
np.concatenate, the result allocated and into a given output, and prints
one Markdown row per case.

    NCL_NUM_THREADS=1 /usr/bin/python3 bench/manip_side_by_side.py build/release/libncl.so

Both libraries read the same buffers (NclFromData wraps NumPy's arrays).
Samples are process CPU time (wall time with --wall, for more than one
thread), taken interleaved (NCLib, NumPy, NCLib, ...); the figure is the
median, the ratio NCLib time / NumPy time (lower is better). One ctypes
call is one NclManip call: its cost (about a microsecond) is under 0.2 % of
a 1e6-element concatenation, so no C loop is needed here.
"""

import argparse
import ctypes
import statistics
import time

import numpy as np


class Params(ctypes.Structure):
    _fields_ = [('size', ctypes.c_uint32), ('where', ctypes.c_void_p),
                ('dtype', ctypes.c_int), ('casting', ctypes.c_int),
                ('axes', ctypes.c_void_p), ('naxes', ctypes.c_int),
                ('keepdims', ctypes.c_int), ('initial', ctypes.c_void_p),
                ('kind', ctypes.c_int), ('kth', ctypes.c_int64),
                ('ndim', ctypes.c_int), ('shape', ctypes.c_void_p),
                ('endpoint', ctypes.c_int), ('ddof', ctypes.c_int64),
                ('side', ctypes.c_int), ('sorter', ctypes.c_void_p),
                ('repeats', ctypes.c_void_p), ('nrepeats', ctypes.c_int64),
                ('n', ctypes.c_int64)]


CONCATENATE, FLOAT64, WRITEABLE = 0, 10, 16


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('lib')
    ap.add_argument('--n', type=float, default=1e6)
    ap.add_argument('--repeats', type=int, default=31)
    ap.add_argument('--wall', action='store_true')
    args = ap.parse_args()
    lib = ctypes.CDLL(args.lib)
    vp, pp = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)
    lib.NclManip.argtypes = [ctypes.c_int, ctypes.c_int, vp, pp, ctypes.POINTER(Params)]
    lib.NclFromData.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int64),
                                ctypes.POINTER(ctypes.c_int64), vp, ctypes.c_uint32, vp, vp, pp]
    lib.NclArrayRelease.argtypes = [vp]
    clock = time.perf_counter_ns if args.wall else time.process_time_ns
    n = int(args.n)
    rng = np.random.default_rng(1)
    a, b, o = rng.random(n), rng.random(n), np.empty(2 * n)

    def wrap(x, flags):
        h = vp()
        shape = (ctypes.c_int64 * 1)(x.shape[0])
        assert lib.NclFromData(FLOAT64, 1, shape, None, vp(x.ctypes.data), flags, None, None,
                               ctypes.byref(h)) == 0
        return h
    ha, hb, ho = wrap(a, 0), wrap(b, 0), wrap(o, WRITEABLE)
    ins = (vp * 2)(ha.value, hb.value)
    p = Params(size=ctypes.sizeof(Params), dtype=-1, casting=3, n=1)
    axis = (ctypes.c_int * 1)(0)
    p.axes, p.naxes = ctypes.cast(axis, vp), 1

    def ncl_alloc():
        r = vp()
        assert lib.NclManip(CONCATENATE, 2, ins, ctypes.byref(r), ctypes.byref(p)) == 0
        lib.NclArrayRelease(r)

    def ncl_out():
        r = vp(ho.value)
        assert lib.NclManip(CONCATENATE, 2, ins, ctypes.byref(r), ctypes.byref(p)) == 0

    cases = [('allocated', ncl_alloc, lambda: np.concatenate([a, b])),
             ('out given', ncl_out, lambda: np.concatenate([a, b], out=o))]
    print('| case | NCLib | NumPy | NCLib / NumPy |')
    print('|---|---|---|---|')
    for name, f_ncl, f_np in cases:
        for f in (f_ncl, f_np, f_ncl, f_np):
            f()
        t_ncl, t_np = [], []
        for _ in range(args.repeats):
            for f, t in ((f_ncl, t_ncl), (f_np, t_np)):
                t0 = clock()
                f()
                t.append(clock() - t0)
        m_ncl, m_np = statistics.median(t_ncl), statistics.median(t_np)
        print('| concatenate 2 x %g float64, %s | %.0f µs | %.0f µs | %.2f |' % (
            args.n, name, m_ncl / 1e3, m_np / 1e3, m_ncl / m_np))
    for h in (ha, hb, ho):
        lib.NclArrayRelease(h)


if __name__ == '__main__':
    main()
