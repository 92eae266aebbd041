#!/usr/bin/env python3
"""Differential test of the ncl_numpy adapter, in one process: every loop the
adapter replaces, computed by NumPy's own loops and then with NCLib's under
NumPy, over layouts (contiguous, strided, negative, zero-stride scalar,
in-place, where=, casting buffers, reduce, accumulate, large enough to split
over threads)
and the edge values of each dtype (+-0, +-inf, NaN, subnormals, integer
min/max, MIN // -1, shifts >= the width).

IEEE-exact operations must give the same bytes; transcendental ones must
agree within ULP_BOUND ulp (NCLib <= 1 ulp, NumPy's own bounds are in
numpy/core/tests/data/umath-validation-set-*). Warnings (errstate 'warn')
and exceptions (errstate 'raise', integer power by a negative exponent) must
be the same for every operation.

Exit status 0 when everything agrees, 1 otherwise (each mismatch printed).
Usage: diff_adapter.py [--quick] (needs ncl_numpy on PYTHONPATH).
"""
import itertools
import sys
import warnings

import numpy as np

import ncl_numpy

ULP_BOUND = 4
NAN_PAYLOAD = []
# Results that are not correctly rounded in either library: compared in ulp.
INEXACT = {
    "power", "arctan2", "hypot", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10",
    "log1p", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
    "arcsinh", "arccosh", "arctanh",
}


def edge_values(dt):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return np.array([False, True, True, False, True], dtype=dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        bits = dt.itemsize * 8
        vals = [0, 1, 2, 3, 7, bits - 1, bits, bits + 1, 64, 100, info.max, info.max - 1,
                info.min, info.min + 1]
        if dt.kind == "i":
            vals += [-1, -2, -3, -7, -bits, -(bits + 1)]
        return np.array([v for v in vals if info.min <= v <= info.max], dtype=dt)
    fi = np.finfo(dt)
    tiny_sub = fi.smallest_subnormal
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.0, 3.0, 7.0, 0.1, 1e-3, 100.0,
            np.pi, -np.pi, 1e10, -1e10, np.inf, -np.inf, np.nan, -np.nan,
            tiny_sub, -tiny_sub, tiny_sub * 3, fi.tiny, -fi.tiny, fi.tiny / 2, fi.max, -fi.max,
            fi.max / 2, fi.eps, 710.0, -745.0, 89.0, -104.0, 2.0 ** 60, 0.9999999]
    return np.array(vals, dtype=dt)


def random_values(dt, n, rng):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(int(info.min), -1000), min(int(info.max), 1000)
        return rng.integers(lo, hi + 1, n).astype(dt)
    return (rng.standard_normal(n) * 10).astype(dt)


def capture(fn):
    """Result bytes (or None), warnings and exception of fn() under
    errstate(all='warn')."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with np.errstate(all="warn"):
            try:
                r = fn()
                exc = None
            except Exception as e:  # noqa: BLE001 - compared, not handled
                r = None
                exc = f"{type(e).__name__}: {e}"
    warns = sorted({f"{x.category.__name__}: {x.message}" for x in w})
    return r, warns, exc


def capture_raise(fn):
    with np.errstate(all="raise"):
        try:
            fn()
            return None
        except Exception as e:  # noqa: BLE001
            return f"{type(e).__name__}: {e}"


def cases(uf, types, quick):
    """(layout name, zero-argument function returning an ndarray) pairs."""
    nin, nout = uf.nin, uf.nout
    dt_in = np.dtype(types[0])
    dt_outs = [np.dtype(c) for c in types[nin:]]
    dt_out = dt_outs[0]
    rng = np.random.default_rng(abs(hash((uf.__name__, types))) % (2 ** 32))
    e = edge_values(dt_in)
    if nin == 2:
        a0, b0 = (np.array(x, dtype=dt_in) for x in zip(*itertools.product(e, e)))
    else:
        a0 = np.concatenate([e, random_values(dt_in, 61, rng)])
        b0 = None
    extra = random_values(dt_in, 37, rng)
    a0 = np.concatenate([a0, extra])
    if b0 is not None:
        b0 = np.concatenate([b0, random_values(dt_in, 37, rng)])
    n = a0.size

    def call(*ops, **kw):
        return uf(*ops, **kw)

    out = []
    ins = [a0] if nin == 1 else [a0, b0]
    out.append(("contiguous", lambda: call(*[x.copy() for x in ins])))
    out.append(("strided", lambda: call(*[np.repeat(x, 2)[::2] for x in ins])))
    out.append(("negative", lambda: call(*[x[::-1].copy()[::-1] for x in ins])))
    if nin == 2:
        out.append(("scalar-right", lambda: call(a0, np.array(b0[5], dtype=dt_in))))
        out.append(("scalar-left", lambda: call(np.array(a0[n // 3], dtype=dt_in), b0)))
    else:
        out.append(("scalar", lambda: call(np.array(a0[7], dtype=dt_in))))
    def outs_with(first):
        """The out= of a call whose first output is first (the second of an
        op of two outputs a fresh array), and what the call returns."""
        rest = tuple(np.zeros(n, dtype=d) for d in dt_outs[1:])
        return ((first,) + rest if rest else first), (first,) + rest

    if dt_out == dt_in:
        def inplace():
            x = a0.copy()
            o, r = outs_with(x)
            call(x, *ins[1:], out=o)
            return r
        out.append(("in-place", inplace))
        if nin == 2:
            def inplace_right():
                y = b0.copy()
                o, r = outs_with(y)
                call(a0, y, out=o)
                return r
            out.append(("in-place-right", inplace_right))
    # Operands of another dtype, cast by NumPy in buffers of 8192 elements.
    other = np.float32 if dt_in == np.float64 else np.float64
    sig = tuple(np.dtype(c) for c in types)
    out.append(("buffered-cast", lambda: call(*[np.resize(x, 20000).astype(other) for x in ins],
                                             signature=sig, casting="unsafe")))
    mask = (np.arange(n) % 7) < 4

    def masked():
        o, r = outs_with(np.zeros(n, dtype=dt_out))
        call(*ins, out=o, where=mask)
        return r
    out.append(("where", masked))
    if nin == 2 and nout == 1 and dt_out == dt_in:
        out.append(("reduce", lambda: uf.reduce(a0)))
        out.append(("reduce-axis0", lambda: uf.reduce(np.resize(a0, (n // 4 * 4,)).reshape(-1, 4), axis=0)))
        out.append(("accumulate", lambda: uf.accumulate(a0)))
    if not quick:
        big = np.resize(a0, 70001)
        if nin == 2:
            bigb = np.resize(b0[::-1], 70001)
            out.append(("large", lambda: call(big, bigb)))
        else:
            out.append(("large", lambda: call(big)))
    return out


def same(name, x, y):
    """True when x and y agree: the same bytes, except that a NaN may differ
    from a NaN in sign and payload (IEEE 754 leaves open which NaN operand
    propagates; such cases are counted in NAN_PAYLOAD and printed), and
    that INEXACT functions may differ by ULP_BOUND ulp."""
    if x is None or y is None:
        return x is y
    if isinstance(x, tuple) or isinstance(y, tuple):
        # The results of an op of two outputs, compared one by one.
        return (isinstance(x, tuple) and isinstance(y, tuple) and len(x) == len(y) and
                all(same(name, xi, yi) for xi, yi in zip(x, y)))
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.dtype.kind != "f":
        return x.tobytes() == y.tobytes()
    xn, yn = np.isnan(x), np.isnan(y)
    if not np.array_equal(xn, yn):
        return False
    if name not in INEXACT:
        if x[~xn].tobytes() != y[~yn].tobytes():
            return False
        if x[xn].tobytes() != y[yn].tobytes():
            NAN_PAYLOAD.append(name)
        return True
    xf, yf = x[~xn], y[~yn]
    fin = np.isfinite(xf) & np.isfinite(yf)
    if not np.array_equal(xf[~fin], yf[~fin]):
        return False
    xs, ys = xf[fin], yf[fin]
    # |x - y| in units of the spacing at the larger magnitude.
    with np.errstate(all="ignore"):
        gap = np.abs(xs.astype(np.float64) - ys.astype(np.float64))
        unit = np.spacing(np.maximum(np.abs(xs), np.abs(ys))).astype(np.float64)
    return bool(np.all(gap <= ULP_BOUND * unit))


def run_all(quick):
    results = []
    for name, types, _dtype, _c, _f in ncl_numpy.loops():
        uf = getattr(np, name)
        for layout, fn in cases(uf, types, quick):
            r, w, exc = capture(fn)
            raised = capture_raise(fn) if layout in ("contiguous", "scalar-right", "reduce") else None
            results.append(((name, types, layout), r, w, exc, raised))
    return results


def main():
    quick = "--quick" in sys.argv
    ncl_numpy.uninstall()
    before = ncl_numpy._core._pointers()
    plain = run_all(quick)
    ncl_numpy.install(memory=False)
    ncl_numpy.set_min_elements(0)
    st0 = ncl_numpy.status()
    hooked = run_all(quick)
    st1 = ncl_numpy.status()
    ncl_numpy.uninstall()
    bad = 0
    if ncl_numpy._core._pointers() != before:
        print("FAIL: uninstall did not restore every loop and sort pointer")
        bad += 1
    nw = 0
    for (key, r0, w0, e0, x0), (_k, r1, w1, e1, x1) in zip(plain, hooked):
        name = key[0]
        problems = []
        if not same(name, r0, r1):
            problems.append("results differ")
        if e0 != e1:
            problems.append(f"exception {e0!r} vs {e1!r}")
        if w0 != w1:
            # The underflow flag of a transcendental function near a tiny
            # result is each library's own (NumPy ignores underflow by
            # default); any other flag must match.
            if name in INEXACT and [x for x in w0 if "underflow" not in x] == \
                    [x for x in w1 if "underflow" not in x]:
                nw += 1
                if "--verbose" in sys.argv:
                    print("note", key, f"warnings {w0} vs {w1}")
            else:
                problems.append(f"warnings {w0} vs {w1}")
        if x0 != x1 and not (name in INEXACT and "underflow" in f"{x0}{x1}"):
            problems.append(f"errstate(all='raise') {x0!r} vs {x1!r}")
        if problems:
            bad += 1
            if bad <= 60:
                print("FAIL", key, "; ".join(problems))
                if r0 is not None and r1 is not None and "results differ" in problems:
                    if isinstance(r0, tuple):  # the first output that differs
                        r0, r1 = next(((x, y) for x, y in zip(r0, r1) if not same(name, x, y)),
                                      (r0[0], r1[0]))
                    r0a, r1a = np.asarray(r0).ravel(), np.asarray(r1).ravel()
                    if r0a.shape == r1a.shape:
                        idx = [i for i in range(r0a.size) if r0a[i:i+1].tobytes() != r1a[i:i+1].tobytes()][:4]
                        print("     at", idx, "numpy", r0a[idx], "ncl", r1a[idx])
    ncl_calls = st1["loop_calls_ncl"] - st0["loop_calls_ncl"]
    nloops = len(ncl_numpy.loops())
    print(f"diff_adapter: {nloops} replaced loops, {len(plain)} cases, {ncl_calls} loop calls ran "
          f"NCLib, {bad} mismatches, {nw} underflow-only warning differences on inexact "
          f"functions, {len(NAN_PAYLOAD)} results with another NaN sign/payload "
          f"({', '.join(sorted(set(NAN_PAYLOAD)))})")
    if ncl_calls == 0:
        print("FAIL: no call went through NCLib")
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
