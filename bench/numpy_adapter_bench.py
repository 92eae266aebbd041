#!/usr/bin/env python3
"""NumPy with and without the ncl_numpy adapter, interleaved in one process.

Each case is timed in rounds; every round times NumPy's own loops
(uninstall()) and NCLib's (install(), default settings) back to back, and
the figure kept per side is the fastest round, so load from other processes
(which only ever adds time) hits both sides alike.
The machine's bandwidth limit is measured in the same run (np.copyto of
float64 arrays, plain NumPy: 16 bytes moved per element) so the large add
and multiply can be stated as a fraction of it (24 bytes per element).

Usage: PYTHONPATH=<build>/python python3 bench/numpy_adapter_bench.py [--rounds R] [--quick]
Prints a Markdown table.
"""
import argparse
import sys
import time

import numpy as np

import ncl_numpy


def timeit(fn, min_time):
    """Seconds per call over a batch lasting >= min_time."""
    fn()
    reps = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        t = time.perf_counter() - t0
        if t >= min_time:
            return t / reps
        reps = max(reps * 2, int(reps * min_time * 1.2 / max(t, 1e-9)) + 1)


def cases(quick):
    rng = np.random.default_rng(0)
    out = []
    sizes_big = [10**6] if quick else [10**6, 16 * 10**6]
    for n in sizes_big:
        a = rng.standard_normal(n)
        b = rng.standard_normal(n)
        o = np.empty(n)
        out.append((f"exp f64 n={n:.1e}", lambda a=a, o=o: np.exp(a, out=o), n))
        out.append((f"sin f64 n={n:.1e}", lambda a=a, o=o: np.sin(a, out=o), n))
        out.append((f"add f64 n={n:.1e}", lambda a=a, b=b, o=o: np.add(a, b, out=o), n))
        out.append((f"multiply f64 n={n:.1e}", lambda a=a, b=b, o=o: np.multiply(a, b, out=o), n))
    keys = rng.integers(-2**62, 2**62, 10**6)
    out.append(("sort int64 n=1.0e+06", lambda: np.sort(keys), 10**6))
    fkeys = rng.standard_normal(10**6)
    out.append(("sort f64 n=1.0e+06", lambda: np.sort(fkeys), 10**6))
    for n in (8, 100, 1000, 8192, 10**4):
        a = rng.standard_normal(n)
        b = rng.standard_normal(n)
        o = np.empty(n)
        out.append((f"add f64 n={n}", lambda a=a, b=b, o=o: np.add(a, b, out=o), n))
        out.append((f"multiply f64 n={n}", lambda a=a, b=b, o=o: np.multiply(a, b, out=o), n))
        out.append((f"a + b (new array) f64 n={n}", lambda a=a, b=b: a + b, n))
        out.append((f"exp f64 n={n}", lambda a=a, o=o: np.exp(a, out=o), n))
        out.append((f"less f64 n={n}", lambda a=a, b=b: np.less(a, b), n))
        ia = rng.integers(-100, 100, n)
        out.append((f"add int64 n={n}", lambda ia=ia: np.add(ia, ia), n))
        out.append((f"sort f64 n={n}", lambda a=a: np.sort(a), n))
    out.append(("np.empty(8) (allocator)", lambda: np.empty(8), 8))
    out.append(("np.zeros(100) (allocator)", lambda: np.zeros(100), 100))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--min-time", type=float, default=0.02)
    args = ap.parse_args()

    n = 16 * 10**6
    src, dst = np.random.default_rng(1).standard_normal(n), np.empty(n)
    # The bandwidth limit: the faster of NumPy's one-thread copy and a copy
    # split over NCLib's threads (np.positive through the adapter), 16 bytes
    # moved per element.
    ncl_numpy.uninstall()
    copy_1 = min(timeit(lambda: np.copyto(dst, src), 0.2) for _ in range(5))
    ncl_numpy.install()
    copy_t = min(timeit(lambda: np.positive(src, out=dst), 0.2) for _ in range(5))
    ncl_numpy.uninstall()
    bw = 16 * n / min(copy_1, copy_t)
    print(f"bandwidth limit (copy of float64, 16 B/element, n=1.6e7): {bw / 1e9:.2f} GB/s "
          f"(np.copyto {16 * n / copy_1 / 1e9:.2f}, NCLib threads {16 * n / copy_t / 1e9:.2f})")
    print(f"threads: {ncl_numpy.get_num_threads()}, min_elements: {ncl_numpy.status()['min_elements']}")
    print()
    print("| case | NumPy | with ncl_numpy | speed-up |")
    print("|---|---:|---:|---:|")
    for name, fn, n in cases(args.quick):
        plain, hooked = [], []
        for _ in range(args.rounds):
            ncl_numpy.uninstall()
            plain.append(timeit(fn, args.min_time))
            ncl_numpy.install()
            hooked.append(timeit(fn, args.min_time))
        ncl_numpy.uninstall()
        p, h = min(plain), min(hooked)
        extra = ""
        if name.startswith(("add f64 n=1.6", "multiply f64 n=1.6")):
            extra = f" ({24 * n / h / bw * 100:.0f} % of bandwidth limit; NumPy {24 * n / p / bw * 100:.0f} %)"
        unit = 1e6 if p < 1e-3 else 1e3
        u = "us" if unit == 1e6 else "ms"
        print(f"| {name} | {p * unit:.2f} {u} | {h * unit:.2f} {u} | {p / h:.2f}x{extra} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
