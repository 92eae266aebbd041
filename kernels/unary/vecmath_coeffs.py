#!/usr/bin/env python3
"""Polynomial coefficients of the hand-written vector functions of
unary_vecmath.h, fitted with mpmath's Chebyshev fit (near-minimax) in
50-digit arithmetic (float64 sin/cos: a weighted least-squares fit with
the coefficients rounded in turn, fit_weighted) and printed as C hex-float
literals.

Run: python3 kernels/unary/vecmath_coeffs.py
Each fit prints its degree, interval and the maximum error of the fit
(relative to the function where that is what the kernel needs); the
literals are pasted into unary_vecmath.h by hand.
"""
import struct

import mpmath as mp

mp.mp.dps = 50


def hexf(c):
    return float(c).hex()


def to_f32(c):
    return struct.unpack('f', struct.pack('f', float(c)))[0]


def hexf32(c):
    return to_f32(c).hex() + 'f'


def fit(name, f, lo, hi, deg, rel=None, single=False):
    """single: float32 coefficients (printed with an f suffix)."""
    poly, err = mp.chebyfit(f, [lo, hi], deg + 1, error=True)
    coeffs = list(reversed(poly))  # lowest degree first
    if single:
        coeffs = [mp.mpf(to_f32(c)) for c in coeffs]
    # measured error of the rounded double coefficients, on a dense grid
    worst = mp.mpf(0)
    for i in range(2001):
        x = lo + (hi - lo) * i / 2000
        p = mp.mpf(0)
        for c in reversed(coeffs):
            p = p * x + mp.mpf(float(c))
        ref = f(x)
        e = abs(p - ref)
        if rel is not None:
            e = e / abs(rel(x))
        worst = max(worst, e)
    print('/* %s: degree %d on [%s, %s], max error %.3g */' % (name, deg, mp.nstr(lo, 8), mp.nstr(hi, 8), float(worst)))
    for k, c in enumerate(coeffs):
        print('#define %s_C%d %s' % (name, k, hexf32(c) if single else hexf(c)))
    print()


h = mp.log(2) / 2

# sin r = r + r^3 S(r^2), cos r = 1 - r^2/2 + r^4 C(r^2), |r| <= pi/4
def sin_s(z):
    if z == 0:
        return mp.mpf(-1) / 6
    s = mp.sqrt(z)
    return (mp.sin(s) - s) / (z * s)
def cos_c(z):
    if z == 0:
        return mp.mpf(1) / 24
    return (mp.cos(mp.sqrt(z)) - 1 + z / 2) / (z * z)


# float64 exp: e^r = 1 + (r + r^2 Q(r)), |r| <= ln2/2 (plus the rounding of
# r itself), Q(r) = (e^r - 1 - r) / r^2; the error of Q is scaled by r^2 <= 0.121
def exp_q(r):
    if r == 0:
        return mp.mpf(1) / 2
    return (mp.expm1(r) - r) / (r * r)
hq = h * mp.mpf('1.0001')
fit('NCL_VM_EXP_Q', exp_q, -hq, hq, 10)

# float64 log: m in [0.75, 1.5), f = m - 1, s = f / (2 + f) in [-1/7, 1/5];
# log(1+f) = f - f^2/2 + s (f^2/2 + z P(z)), z = s^2,
# z P(z) = (2 atanh(s) - 2 s) / s (the identity f - f^2/2 + s f^2/2 = 2s);
# the error of P is scaled by |s|^3 <= 0.008
def log_p(z):
    if z == 0:
        return mp.mpf(2) / 3
    t = mp.sqrt(z)
    return (2 * mp.atanh(t) - 2 * t) / (t * z)
fit('NCL_VM_LOG_P', log_p, mp.mpf(0), mp.mpf(0.2) ** 2 * mp.mpf('1.0001'), 7)


def fit_weighted(name, f, c0, hi, deg, weight, result, nodes=200):
    """Least squares on Chebyshev nodes of [0, hi] with the error weighted
    as the kernel needs it (weight(z) * (P(z) - f(z)) is the error relative
    to the result), the coefficients rounded to double one at a time from
    the lowest, the higher ones refitted after each rounding (so that they
    absorb the rounding of the lower ones; c0 is f(0) rounded). result(p, r)
    is the kernel's result from a polynomial value p at r = sqrt(z); the
    printed error is the worst over a grid, in ulps of the double result."""
    with mp.workdps(60):
        zs = [hi * (1 - mp.cos(mp.pi * (i + mp.mpf(0.5)) / nodes)) / 2 for i in range(nodes)]
        ws = [weight(z) for z in zs]
        cs = [mp.mpf(float(c0))]
        while len(cs) < deg + 1:
            k0 = len(cs)
            a = mp.matrix(nodes, deg + 1 - k0)
            b = mp.matrix(nodes, 1)
            for i, z in enumerate(zs):
                b[i] = ws[i] * (f(z) - sum(c * z ** j for j, c in enumerate(cs)))
                for j in range(deg + 1 - k0):
                    a[i, j] = ws[i] * z ** (k0 + j)
            cs.append(mp.mpf(float(mp.qr_solve(a, b)[0][0])))
        worst = mp.mpf(0)
        rmax = mp.sqrt(hi)
        for i in range(1, 3001):
            r = rmax * i / 3000
            z = r * r
            y, ref = result(sum(c * z ** j for j, c in enumerate(cs)), r)
            ulp = mp.mpf(2) ** (mp.floor(mp.log(abs(ref), 2)) - 52)
            worst = max(worst, abs(y - ref) / ulp)
    print('/* %s: degree %d on [0, %s], max error %.2g ulp */' % (name, deg, mp.nstr(hi, 8), float(worst)))
    for k, c in enumerate(cs):
        print('#define %s_C%d %s' % (name, k, hexf(c)))
    print()


# float64 sin/cos (HIGH) of r, |r| <= pi/4 (plus slack): sin r = r + r^3 S,
# cos r = 1 - r^2/2 + r^4 C, S and C of degree 5, the error weighted
# relative to sin r and cos r
z2 = (mp.pi / 4) ** 2 * mp.mpf('1.0001')
fit_weighted('NCL_VM_SIN_S', sin_s, mp.mpf(-1) / 6, z2, 5,
             lambda z: mp.sqrt(z) ** 3 / mp.sin(mp.sqrt(z)),
             lambda p, r: (r + r ** 3 * p, mp.sin(r)))
fit_weighted('NCL_VM_COS_C', cos_c, mp.mpf(1) / 24, z2, 5,
             lambda z: z * z / mp.cos(mp.sqrt(z)),
             lambda p, r: (1 - r * r / 2 + r ** 4 * p, mp.cos(r)))
# float64 sin (FAST) of r, |r| <= pi/2 (plus slack): sin r = r + r^3 P,
# P of degree 7
zp = (mp.pi / 2 * mp.mpf('1.00005')) ** 2
fit_weighted('NCL_VM_SINPI_P', sin_s, mp.mpf(-1) / 6, zp, 7,
             lambda z: mp.sqrt(z) ** 3 / mp.sin(mp.sqrt(z)),
             lambda p, r: (r + r ** 3 * p, mp.sin(r)), nodes=300)

# float32 exp: as float64 (e^r = 1 + r + r^2 Q(r)), |r| <= ln2/2 plus slack,
# float32 coefficients; the error of Q is scaled by r^2 <= 0.121
fit('NCL_VM_EXPF_Q', exp_q, -hq, hq, 4, single=True)

# float32 log: m in [sqrt(1/2), sqrt(2)), f = m - 1 in [-0.293, 0.415];
# log(1+f) = f + f^2 (-1/2 + f P(f)), P(f) = (log1p(f) - f + f^2/2) / f^3;
# the error of P is scaled by |f|^3 <= 0.071, about 0.2 of log1p there
def log1p_p(f):
    if f == 0:
        return mp.mpf(1) / 3
    return (mp.log1p(f) - f + f * f / 2) / (f ** 3)
fit('NCL_VM_LOGF_P', log1p_p, mp.sqrt(mp.mpf(0.5)) - 1 - mp.mpf('1e-4'),
    mp.sqrt(2) - 1 + mp.mpf('1e-4'), 8, single=True)

# float32 sin/cos: S and C of above, |r| <= pi/4 plus slack
fit('NCL_VM_SINF_S', sin_s, mp.mpf(0), z2, 3, single=True)
fit('NCL_VM_COSF_C', cos_c, mp.mpf(0), z2, 3, single=True)
