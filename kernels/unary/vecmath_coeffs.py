#!/usr/bin/env python3
"""Polynomial coefficients of the hand-written vector functions of
unary_vecmath.h, fitted with mpmath's Chebyshev fit (near-minimax) in
50-digit arithmetic (float64 sin/cos: a weighted least-squares fit with
the coefficients rounded in turn, fit_weighted) and printed as C hex-float
literals.

Run: python3 kernels/unary/vecmath_coeffs.py (needs Debian's python3-mpmath)
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

# float64 exp on AVX-512, table-driven: x = (16 k' + j) ln2/16 + r, |r| <=
# ln2/32 (plus the reduction's slack), e^x = 2^k' 2^(j/16) (1 + r + r^2 Q(r));
# the error of Q is scaled by r^2 <= 4.7e-4
# (degree 4 for FAST, about 0.25 ulp; degree 5 for HIGH, below 0.01 ulp)
hq16 = mp.log(2) / 32 * mp.mpf('1.001')
fit('NCL_VM_EXPT_Q', exp_q, -hq16, hq16, 4)
fit('NCL_VM_EXPTH_Q', exp_q, -hq16, hq16, 5)

# float64 log on AVX-512, table-driven: r = m c - 1 with c = 1/m rounded to
# a multiple of 1/16, |r| <= 1.5/32 + rcp14's error < 0.0471;
# log1p(r) = r + r^2 (-1/2 + r P(r)), P(r) = (log1p(r) - r + r^2/2) / r^3;
# the error of P is scaled by |r|^3 <= 1.05e-4 (about |r|^2 of log1p(r))
rt = mp.mpf('0.0471')
fit('NCL_VM_LOGT_P', log1p_p, -rt, rt, 7)


def tables():
    """The AVX-512 tables: 2^(j/16) = T (1 + t) for exp; -log(i/16) = Ch + Cl
    for log, Ch a multiple of 2^-43 (so that e L1 + Ch is exact), at the
    index of i/16's top four mantissa bits (the others unused, 0)."""
    th, tl = [], []
    for j in range(16):
        t = mp.power(2, mp.mpf(j) / 16)
        hi = float(t)
        th.append(hi)
        tl.append(float((t - mp.mpf(hi)) / mp.mpf(hi)))
    print('/* NCL_VM_EXPT_H: 2^(j/16) rounded; NCL_VM_EXPT_L: its relative error */')
    print('#define NCL_VM_EXPT_H ' + ', '.join(hexf(v) for v in th))
    print('#define NCL_VM_EXPT_L ' + ', '.join(hexf(v) for v in tl))
    ch, cl, cf = [0.0] * 16, [0.0] * 16, [0.0] * 16
    for i in range(11, 22):
        c = -mp.log(mp.mpf(i) / 16)
        hi = float(mp.nint(c * 2 ** 43) / 2 ** 43)
        idx = struct.unpack('<Q', struct.pack('<d', i / 16))[0] >> 48 & 15
        ch[idx] = hi
        cl[idx] = float(c - mp.mpf(hi))
        cf[idx] = float(c)
    print('/* NCL_VM_LOGT_H + NCL_VM_LOGT_L: -log(i/16), 11 <= i <= 21, at the top four')
    print('   mantissa bits of i/16; NCL_VM_LOGT_F: the same rounded to double */')
    print('#define NCL_VM_LOGT_H ' + ', '.join(hexf(v) for v in ch))
    print('#define NCL_VM_LOGT_L ' + ', '.join(hexf(v) for v in cl))
    print('#define NCL_VM_LOGT_F ' + ', '.join(hexf(v) for v in cf))
    print()


tables()

# float32 log on AVX-512, with a table: m = getmant(x) in [0.75, 1.5), 16
# intervals named by the top 4 bits of m's mantissa field (width 1/16 on
# [1, 1.5), entries 0..7; width 1/32 on [0.75, 1), entries 8..15; for those
# getexp(x) is one less than x's exponent for m, so their T carries
# + ln2). Each interval's invc has few bits, j/32 below 1 and j/16 above,
# chosen so that r = m invc - 1 stays below 1/16 in magnitude: r is then a
# multiple of 2^-28 below 2^-4, exact, and so is FMA's m invc - 1. invc = 1
# on the three intervals around 1 (m in [0.9375, 1.0625)); elsewhere the
# invc of least |r| whose r has the sign of log(1/invc), or the other sign
# by at most a quarter of |log(1/invc)| (no cancellation in log(1/invc) +
# log(1 + r)). T = ln2 [m < 1] - log(invc) is split into TH, a multiple of
# 2^-15 (so that getexp(x) L1 + TH is exact, L1 = ln2 to 15 bits), and
# TL = the rest.
L1F = mp.nint(mp.log(2) * 2 ** 15) / 2 ** 15
print('/* float32 log table: L1 = ln2 to 15 bits, L2 = the rest */')
print('#define NCL_VM_LOGF_L1 %s' % hexf32(L1F))
print('#define NCL_VM_LOGF_L2 %s' % hexf32(mp.log(2) - L1F))
invc_t, th_t, tl_t = [], [], []
rmin, rmax = mp.mpf(0), mp.mpf(0)
sixteenth = mp.mpf(1) / 16
for i in range(16):
    if i < 8:
        a = 1 + mp.mpf(i) / 16
        b = a + mp.mpf(1) / 16
        cands = [mp.mpf(j) / 32 for j in range(20, 33)]
    else:
        a = mp.mpf(1) / 2 + mp.mpf(i) / 32
        b = a + mp.mpf(1) / 32
        cands = [mp.mpf(j) / 16 for j in range(16, 23)]
    best = (0, mp.mpf(1)) if i in (0, 14, 15) else None
    for iv in ([] if best else cands):
        lo_r, hi_r = a * iv - 1, b * iv - 1
        t = -mp.log(iv)
        opp = max([abs(v) for v in (lo_r, hi_r) if v * t < 0] + [0])
        if lo_r <= -sixteenth or hi_r >= sixteenth or opp > abs(t) / 4:
            continue
        w = max(abs(lo_r), abs(hi_r))
        if best is None or w < best[0]:
            best = (w, iv)
    invc = best[1]
    rmin, rmax = min(rmin, a * invc - 1), max(rmax, b * invc - 1)
    t = -mp.log(invc) + (mp.log(2) if i >= 8 else 0)
    th = mp.nint(t * 2 ** 15) / 2 ** 15
    invc_t.append(hexf32(invc))
    th_t.append(hexf32(th))
    tl_t.append(hexf32(t - th))
for name, tab in (('INVC', invc_t), ('TH', th_t), ('TL', tl_t)):
    print('#define NCL_VM_LOGF_%s \\' % name)
    for j in range(0, 16, 4):
        print('    %s%s' % (', '.join(tab[j:j + 4]), ', \\' if j < 12 else ''))


# log(1 + r) = r + r^2 Q(r) over the r of the table (plus slack); the error
# of Q is scaled by |r| <= 1/16 relative to the result.
def log1p_q(r):
    if r == 0:
        return mp.mpf(-1) / 2
    return (mp.log1p(r) - r) / (r * r)
fit('NCL_VM_LOGF_Q', log1p_q, rmin * mp.mpf('1.01'), rmax * mp.mpf('1.01'), 3, single=True)

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


# pi in three floats for the float32 sin/cos reductions (by pi, pi/2 or
# pi/16, the parts scaled by powers of two): H + M + L, each the rest of pi
# truncated to float, so all three are positive; and 1/pi rounded
def trunc_f32(v):
    e = mp.floor(mp.log(v, 2)) - 23
    return mp.floor(v / mp.mpf(2) ** e) * mp.mpf(2) ** e


pi_h = trunc_f32(mp.pi)
pi_m = trunc_f32(mp.pi - pi_h)
pi_l = trunc_f32(mp.pi - pi_h - pi_m)
print('/* pi = H + M + L, each the rest of pi truncated to float; 1/pi rounded */')
print('#define NCL_VM_PIF_H %s' % hexf32(pi_h))
print('#define NCL_VM_PIF_M %s' % hexf32(pi_m))
print('#define NCL_VM_PIF_L %s' % hexf32(pi_l))
print('#define NCL_VM_INVPIF %s' % hexf32(1 / mp.pi))
print()


# float32 sin/cos on AVX-512, table-driven: nodes j pi/16, j = 0..15 (a node
# j + 16 has -S and -C, which negate the whole result); Sh = sin(j pi/16)
# rounded (-0 at j = 0, so that sin(-0) = -0), -Sl the negated rest of
# sin(j pi/16), Ch = cos(j pi/16) rounded. r = x - n pi/16, |r| <= 0.11
# (pi/32 plus n's rounding slack below 2^18), z = r^2: cos r - 1 =
# z (-1/2 + c4 z) with c4 = C above fitted as a constant on [0, 0.11^2]
# (the error printed is that of cos r, c4's times z^2);
# sin r - r = r z (s3 + s5 z) with Taylor's coefficients rounded (their
# truncation error is below 4e-11 there).
def print_table32(name, vals):
    print('#define %s \\' % name)
    for j in range(0, 16, 4):
        print('    %s%s' % (', '.join(hexf32(v) for v in vals[j:j + 4]), ', \\' if j < 12 else ''))


sh_t, nsl_t, ch_t = [], [], []
for j in range(16):
    s = mp.sinpi(mp.mpf(j) / 16)
    sh = mp.mpf(to_f32(s))
    sh_t.append(-0.0 if j == 0 else sh)
    nsl_t.append(sh - s)
    ch_t.append(mp.cospi(mp.mpf(j) / 16))
print('/* sin(j pi/16), j = 0..15: Sh rounded (-0 at j = 0), -Sl the negated')
print('   rest, Ch = cos(j pi/16) rounded */')
print_table32('NCL_VM_SINF_T_SH', sh_t)
print_table32('NCL_VM_SINF_T_NSL', nsl_t)
print_table32('NCL_VM_SINF_T_CH', ch_t)
print()
fit('NCL_VM_SINF_TC', cos_c, mp.mpf(0), mp.mpf('0.11') ** 2, 0,
    rel=lambda z: 1 / (z * z) if z else mp.inf, single=True)
print('/* NCL_VM_SINF_TS: -1/6 and 1/120 rounded */')
print('#define NCL_VM_SINF_TS_C0 %s' % hexf32(mp.mpf(-1) / 6))
print('#define NCL_VM_SINF_TS_C1 %s' % hexf32(mp.mpf(1) / 120))
