#!/usr/bin/env python3
"""Polynomial coefficients of the hand-written vector functions of
unary_vecmath.h, fitted with mpmath's Chebyshev fit (near-minimax) in
50-digit arithmetic and printed as C hex-float literals.

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

# float64 sin/cos of r, |r| <= pi/4 (plus the reduction's slack), with the
# S and C of above: the error of S is scaled by
# r^2 <= 0.62, that of C by r^4 <= 0.38
z2 = (mp.pi / 4) ** 2 * mp.mpf('1.0001')
fit('NCL_VM_SIN_S', sin_s, mp.mpf(0), z2, 6)
fit('NCL_VM_COS_C', cos_c, mp.mpf(0), z2, 6)

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

# float32 sin/cos of the fast tier: one reduction by pi, r = x - n pi in
# [-pi/2, pi/2] plus the slack of n's rounding in float (up to 0.025 for
# |x| < 2^18, cos's n taken from x/pi - 1/2), sin r = r P(r^2) with
# P(z) = sin(sqrt z) / sqrt z in [0.63, 1]: the error of P is relative
def sin_p(z):
    if z == 0:
        return mp.mpf(1)
    s = mp.sqrt(z)
    return mp.sin(s) / s
fit('NCL_VM_SINF_P', sin_p, mp.mpf(0), (mp.pi / 2 + mp.mpf('0.03')) ** 2, 4, rel=sin_p, single=True)
