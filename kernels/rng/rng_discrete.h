/*
 * rng_discrete.h: the RNG kernels with integer values, Poisson and
 * binomial, and the index draws of shuffle and permutation, as NumPy
 * 1.24.2's Generator draws them (distributions.c: random_poisson,
 * random_binomial, random_interval; _generator.pyx: shuffle).
 *
 * Part of rng_rejection.c, which includes it after rng_draws.h's draws and
 * loop macros; nothing else may include it. The kernels are stamped there,
 * once per generator.
 *
 * Poisson: lam 0 is 0 without a draw; lam < 10 multiplies uniforms until
 * the product falls to exp(-lam); lam >= 10 is Hoermann's transformed
 * rejection (PTRS, 1993) with NumPy's log-gamma (SPECFUN's series).
 * Binomial: n 0 or p 0 is 0 without a draw; p > 0.5 draws n - X(n, 1 - p);
 * n p <= 30 is inversion, else Kachitvichyanukul and Schmeiser's BTPE.
 * NumPy keeps the set-up of both (binomial_t) in the Generator and redoes
 * it when (n, p) changes; it is a pure function of (n, p), so it changes
 * speed only, never a value or a draw: here it lives for one kernel call
 * and is not part of the generator's state. Casts of out-of-range doubles
 * to int64 (a floor of -inf when a uniform is exactly 0.5 away) are x86's
 * cvttsd2si, INT64_MIN, as in NumPy's build, and are rejected as there.
 */
#ifndef NCL_RNG_DISCRETE_H
#define NCL_RNG_DISCRETE_H

#include <math.h>
#include <stdlib.h>

/* ---- Poisson ----------------------------------------------------------------------- */

NCL_KINLINE int64_t rng_poisson_mult(rng_work *w, const rng_draws D, double lam)
{
    const double limit = exp(-lam);
    double prod = 1.0;
    int64_t k = 0;
    for (;;) {
        prod *= D.f64(w);
        if (!(prod > limit)) return k;
        k++;
    }
}

/* log Gamma(x) for x >= 1 (random_loggam): shifted up to 7, the asymptotic
   series, then shifted back one log at a time. */
NCL_KINLINE double rng_loggam(double x)
{
    static const double coef[10] = {8.333333333333333e-02,  -2.777777777777778e-03,
                                    7.936507936507937e-04,  -5.952380952380952e-04,
                                    8.417508417508418e-04,  -1.917526917526918e-03,
                                    6.410256410256410e-03,  -2.955065359477124e-02,
                                    1.796443723688307e-01,  -1.39243221690590e+00};
    if (x == 1.0 || x == 2.0) return 0.0;
    const int64_t shift = x < 7.0 ? (int64_t)(7 - x) : 0;
    double x0 = x + (double)shift;
    const double r2 = (1.0 / x0) * (1.0 / x0);
    double s = coef[9];
    for (int k = 8; k >= 0; k--) {
        s *= r2;
        s += coef[k];
    }
    const double log_2pi = 1.8378770664093453e+00;
    double gl = s / x0 + 0.5 * log_2pi + (x0 - 0.5) * log(x0) - x0;
    for (int64_t k = 1; k <= shift; k++) {
        gl -= log(x0 - 1.0);
        x0 -= 1.0;
    }
    return gl;
}

NCL_KINLINE int64_t rng_poisson_ptrs(rng_work *w, const rng_draws D, double lam)
{
    const double slam = sqrt(lam), loglam = log(lam);
    const double b = 0.931 + 2.53 * slam;
    const double a = -0.059 + 0.02483 * b;
    const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
    const double vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
        const double u = D.f64(w) - 0.5;
        const double v = D.f64(w);
        const double us = 0.5 - fabs(u);
        const int64_t k = (int64_t)floor((2 * a / us + b) * u + lam + 0.43);
        if (us >= 0.07 && v <= vr) return k;
        if (k < 0 || (us < 0.013 && v > us)) continue;
        /* log(0) of v is -inf, which accepts */
        if (log(v) + log(inv_alpha) - log(a / (us * us) + b) <=
            -lam + (double)k * loglam - rng_loggam((double)(k + 1)))
            return k;
    }
}

NCL_KINLINE int64_t rng_poisson(rng_work *w, const rng_draws D, double lam)
{
    if (lam >= 10) return rng_poisson_ptrs(w, D, lam);
    if (lam == 0) return 0;
    return rng_poisson_mult(w, D, lam);
}

/* ---- binomial ------------------------------------------------------------------------ */

/* The set-up of the last (n, p) drawn, for p <= 0.5 (the flipped p when
   the caller's is above). */
typedef struct rng_binom {
    int64_t n;
    double p;
    int valid;
    int btpe;
    /* inversion */
    double q, qn;
    int64_t bound;
    /* BTPE */
    double r, fm, p1, xm, xl, xr, c, laml, lamr, p2, p3, p4;
    int64_t m;
} rng_binom;

NCL_KINLINE void rng_binom_setup(rng_binom *s, int64_t n, double p, int btpe)
{
    s->n = n;
    s->p = p;
    s->valid = 1;
    s->btpe = btpe;
    if (!btpe) {
        s->q = 1.0 - p;
        s->qn = exp((double)n * log(s->q));
        const double np = (double)n * p;
        const double lim = np + 10.0 * sqrt(np * s->q + 1);
        s->bound = (int64_t)((double)n < lim ? (double)n : lim);
        return;
    }
    s->r = p < 1.0 - p ? p : 1.0 - p;
    s->q = 1.0 - s->r;
    s->fm = (double)n * s->r + s->r;
    s->m = (int64_t)floor(s->fm);
    s->p1 = floor(2.195 * sqrt((double)n * s->r * s->q) - 4.6 * s->q) + 0.5;
    s->xm = (double)s->m + 0.5;
    s->xl = s->xm - s->p1;
    s->xr = s->xm + s->p1;
    s->c = 0.134 + 20.5 / (15.3 + (double)s->m);
    double a = (s->fm - s->xl) / (s->fm - s->xl * s->r);
    s->laml = a * (1.0 + a / 2.0);
    a = (s->xr - s->fm) / (s->xr * s->q);
    s->lamr = a * (1.0 + a / 2.0);
    s->p2 = s->p1 * (1.0 + 2.0 * s->c);
    s->p3 = s->p2 + s->c / s->laml;
    s->p4 = s->p3 + s->c / s->lamr;
}

NCL_KINLINE int64_t rng_binom_inversion(rng_work *w, const rng_draws D, const rng_binom *s)
{
    const int64_t n = s->n;
    const double p = s->p, q = s->q;
    int64_t x = 0;
    double px = s->qn;
    double u = D.f64(w);
    while (u > px) {
        x++;
        if (x > s->bound) {
            x = 0;
            px = s->qn;
            u = D.f64(w);
        } else {
            u -= px;
            px = ((double)(n - x + 1) * p * px) / ((double)x * q);
        }
    }
    return x;
}

/* Stirling's correction term of BTPE's final test for one of its four
   arguments (x and x^2). */
NCL_KINLINE double rng_btpe_corr(double x, double x2)
{
    return (13680. - (462. - (132. - (99. - 140. / x2) / x2) / x2) / x2) / x / 166320.;
}

NCL_KINLINE int64_t rng_binom_btpe(rng_work *w, const rng_draws D, const rng_binom *s)
{
    const int64_t n = s->n, m = s->m;
    const double r = s->r, q = s->q, p1 = s->p1, xm = s->xm, xl = s->xl, xr = s->xr, c = s->c;
    const double laml = s->laml, lamr = s->lamr, p2 = s->p2, p3 = s->p3, p4 = s->p4;
    for (;;) {
        const double nrq = (double)n * r * q;
        const double u = D.f64(w) * p4;
        double v = D.f64(w);
        int64_t y;
        if (u <= p1) return (int64_t)floor(xm - p1 * v + u); /* the triangle */
        if (u <= p2) {                                         /* the parallelograms */
            const double x = xl + (u - p1) / c;
            v = v * c + 1.0 - fabs((double)m - x + 0.5) / p1;
            if (v > 1.0) continue;
            y = (int64_t)floor(x);
        } else if (u <= p3) { /* the left tail */
            y = (int64_t)floor(xl + log(v) / laml);
            if (y < 0 || v == 0.0) continue;
            v = v * (u - p2) * laml;
        } else { /* the right tail */
            y = (int64_t)floor(xr - log(v) / lamr);
            if (y > n || v == 0.0) continue;
            v = v * (u - p3) * lamr;
        }
        const int64_t k = llabs(y - m);
        if (!(k > 20 && k < nrq / 2.0 - 1)) {
            /* the explicit ratio f(y) / f(m) */
            const double sr = r / q, a = sr * (double)(n + 1);
            double f = 1.0;
            if (m < y)
                for (int64_t i = m + 1; i <= y; i++) f *= (a / (double)i - sr);
            else if (m > y)
                for (int64_t i = y + 1; i <= m; i++) f /= (a / (double)i - sr);
            if (v > f) continue;
            return y;
        }
        /* the squeeze on log f(y) / f(m), then Stirling's bound; -k * k is
           an int64 product, as NumPy's */
        const double kd = (double)k;
        const double rho = (kd / nrq) * ((kd * (kd / 3.0 + 0.625) + 0.16666666666666666) / nrq + 0.5);
        const double t = (double)(int64_t)((uint64_t)-k * (uint64_t)k) / (2 * nrq);
        const double A = log(v);
        if (A < t - rho) return y;
        if (A > t + rho) continue;
        const double x1 = (double)(y + 1), f1 = (double)(m + 1), z = (double)(n + 1 - m),
                     wv = (double)(n - y + 1);
        if (A > xm * log(f1 / x1) + ((double)(n - m) + 0.5) * log(z / wv) +
                    (double)(y - m) * log(wv * r / (x1 * q)) + rng_btpe_corr(f1, f1 * f1) +
                    rng_btpe_corr(z, z * z) + rng_btpe_corr(x1, x1 * x1) +
                    rng_btpe_corr(wv, wv * wv))
            continue;
        return y;
    }
}

/* One binomial value (random_binomial), s the set-up cache. */
NCL_KINLINE int64_t rng_binomial(rng_work *w, const rng_draws D, rng_binom *s, int64_t n, double p)
{
    if (n == 0 || p == 0.0f) return 0;
    const int flip = !(p <= 0.5);
    const double pp = flip ? 1.0 - p : p;
    const int btpe = !(pp * (double)n <= 30.0);
    if (!s->valid || s->n != n || s->p != pp || s->btpe != btpe) rng_binom_setup(s, n, pp, btpe);
    const int64_t x = btpe ? rng_binom_btpe(w, D, s) : rng_binom_inversion(w, D, s);
    return flip ? n - x : x;
}

/* ---- the index draws of shuffle ---------------------------------------------------- */

/* Uniform on [0, max] by masked rejection (random_interval): 32-bit draws
   while max fits in 32 bits, else 64-bit ones. */
NCL_KINLINE uint64_t rng_interval(rng_work *w, const rng_draws D, uint64_t max)
{
    if (max == 0) return 0;
    uint64_t mask = max;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    uint64_t v;
    if (max <= 0xFFFFFFFFULL) {
        do v = D.u32(w) & mask; while (v > max);
    } else {
        do v = D.u64(w) & mask; while (v > max);
    }
    return v;
}

/* ---- the kernels ---------------------------------------------------------------------- */

/* poisson(lam): float64 lam, int64 values. */
NCL_KINLINE NclStatus rng_k_poisson(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                    const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    const char *ap = args[0];
    char *op = args[1];
    const int64_t as = steps[0], os = steps[1];
    if (as == 0) {
        const double lam = ncl_load_double(ap);
        RNG_FILL(int64_t, op, os, rng_poisson(w, D, lam));
    } else {
        for (int64_t i = 0; i < n; i++, ap += as, op += os)
            ncl_store_int64_t(op, rng_poisson(w, D, ncl_load_double(ap)));
    }
    RNG_GEN_END(D);
    return NCL_OK;
}

/* binomial(n, p): int64 n, float64 p, int64 values. */
NCL_KINLINE NclStatus rng_k_binomial(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                     const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    rng_binom s = {.valid = 0};
    const char *np_ = args[0], *pp = args[1];
    char *op = args[2];
    const int64_t ns = steps[0], ps = steps[1], os = steps[2];
    if (ns == 0 && ps == 0) {
        const int64_t nn = ncl_load_int64_t(np_);
        const double p = ncl_load_double(pp);
        RNG_FILL(int64_t, op, os, rng_binomial(w, D, &s, nn, p));
    } else {
        for (int64_t i = 0; i < n; i++, np_ += ns, pp += ps, op += os)
            ncl_store_int64_t(op, rng_binomial(w, D, &s, ncl_load_int64_t(np_), ncl_load_double(pp)));
    }
    RNG_GEN_END(D);
    return NCL_OK;
}

/* The swaps of a Fisher-Yates shuffle of n + 1 positions, from the last
   down: value k is j for i = n - k, uniform on [0, i]. The caller swaps
   positions i and j in that order. */
NCL_KINLINE NclStatus rng_k_shuffle_idx(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                        const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    char *op = args[0];
    const int64_t os = steps[0];
    for (int64_t k = 0; k < n; k++, op += os)
        ncl_store_int64_t(op, (int64_t)rng_interval(w, D, (uint64_t)(n - k)));
    RNG_GEN_END(D);
    return NCL_OK;
}

#endif /* NCL_RNG_DISCRETE_H */
