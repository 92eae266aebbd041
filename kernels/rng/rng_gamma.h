/*
 * rng_gamma.h: the gamma family of the RNG kernels, standard gamma
 * (float64 and float32), gamma and beta, as NumPy 1.24.2's Generator draws
 * them (distributions.c: random_standard_gamma, random_standard_gamma_f,
 * random_gamma, random_beta).
 *
 * Part of rng_rejection.c, which includes it after the ziggurats (the
 * draws and loop macros, rng_work, rng_draws and RNG_FILL*, are
 * rng_draws.h's); nothing else may include it. The kernels are stamped
 * there, once per generator.
 *
 * Methods: shape 1 is the standard exponential (ziggurat) and shape 0 is 0
 * without a draw; shape < 1 is the Johnk-like rejection of one uniform and
 * one exponential per try; shape > 1 (and NaN) is Marsaglia and Tsang's
 * squeeze over the ziggurat normal, the normal redrawn while 1 + c X <= 0.
 * Beta with both parameters <= 1 is Johnk's, two uniforms per try; else
 * Ga / (Ga + Gb), a's gamma drawn first. Every value takes NumPy's draws in
 * NumPy's order and its arithmetic operation for operation: pow, log and
 * sqrt (powf, logf, sqrtf in float32) of the C library, no contraction
 * (-ffp-contract=off), the same association of every sum and product.
 */
#ifndef NCL_RNG_GAMMA_H
#define NCL_RNG_GAMMA_H

#include <math.h>

/* Standard gamma of `shape`, float64. A NaN shape takes the Marsaglia
   branch, whose value is NaN once a try passes the squeeze (NumPy's). */
NCL_KINLINE double rng_std_gamma_f64(rng_work *w, const rng_draws D, double shape)
{
    if (shape == 1.0) return rng_std_exp_f64(w, D);
    if (shape == 0.0) return 0.0;
    if (shape < 1.0) {
        const double inv = 1.0 / shape;
        for (;;) {
            const double u = D.f64(w);
            const double e = rng_std_exp_f64(w, D);
            if (u <= 1.0 - shape) {
                const double x = pow(u, inv);
                if (x <= e) return x;
            } else {
                const double y = -log((1 - u) / shape);
                const double x = pow(1.0 - shape + shape * y, inv);
                if (x <= e + y) return x;
            }
        }
    }
    const double b = shape - 1.0 / 3.0;
    const double c = 1.0 / sqrt(9 * b);
    for (;;) {
        double x, v;
        do {
            x = rng_std_normal_f64(w, D);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        const double u = D.f64(w);
        if (u < 1.0 - 0.0331 * (x * x) * (x * x)) return b * v;
        /* log(0) is -inf, which accepts: NumPy's too */
        if (log(u) < 0.5 * x * x + b * (1.0 - v + log(v))) return b * v;
    }
}

/* The same in float32 arithmetic, over the float32 ziggurats and 32-bit
   uniforms (random_standard_gamma_f); shape is the caller's rounded to
   float32. */
NCL_KINLINE float rng_std_gamma_f32(rng_work *w, const rng_draws D, float shape)
{
    if (shape == 1.0f) return rng_std_exp_f32(w, D);
    if (shape == 0.0f) return 0.0f;
    if (shape < 1.0f) {
        const float inv = 1.0f / shape;
        for (;;) {
            const float u = D.f32(w);
            const float e = rng_std_exp_f32(w, D);
            if (u <= 1.0f - shape) {
                const float x = powf(u, inv);
                if (x <= e) return x;
            } else {
                const float y = -logf((1.0f - u) / shape);
                const float x = powf(1.0f - shape + shape * y, inv);
                if (x <= e + y) return x;
            }
        }
    }
    const float b = shape - 1.0f / 3.0f;
    const float c = 1.0f / sqrtf(9.0f * b);
    for (;;) {
        float x, v;
        do {
            x = rng_std_normal_f32(w, D);
            v = 1.0f + c * x;
        } while (v <= 0.0f);
        v = v * v * v;
        const float u = D.f32(w);
        if (u < 1.0f - 0.0331f * (x * x) * (x * x)) return b * v;
        if (logf(u) < 0.5f * x * x + b * (1.0f - v + logf(v))) return b * v;
    }
}

/* Beta(a, b), random_beta. Johnk's method rejects X + Y > 1 and X + Y == 0
   (both uniforms 0); NumPy's log-space branch for an X + Y that is not
   positive can then never run, and is kept for the letter of it. */
NCL_KINLINE double rng_beta(rng_work *w, const rng_draws D, double a, double b)
{
    if (a <= 1.0 && b <= 1.0) {
        const double ia = 1.0 / a, ib = 1.0 / b;
        for (;;) {
            const double u = D.f64(w);
            const double v = D.f64(w);
            const double x = pow(u, ia);
            const double y = pow(v, ib);
            const double s = x + y;
            if (s <= 1.0 && s > 0.0) {
                if (x + y > 0) return x / s;
                double lx = log(u) / a, ly = log(v) / b;
                const double lm = lx > ly ? lx : ly;
                lx -= lm;
                ly -= lm;
                return exp(lx - log(exp(lx) + exp(ly)));
            }
        }
    }
    const double ga = rng_std_gamma_f64(w, D, a);
    const double gb = rng_std_gamma_f64(w, D, b);
    return ga / (ga + gb);
}

/* One float32 parameter A (read as float64, used rounded to float32) to
   float32 values. */
#define RNG_FILL1_F32(EXPR)                                                               \
    do {                                                                                  \
        const char *ap_ = args[0];                                                        \
        char *op_ = args[1];                                                              \
        const int64_t as_ = steps[0], os_ = steps[1];                                     \
        if (as_ == 0) {                                                                   \
            const float A = (float)ncl_load_double(ap_);                                  \
            RNG_FILL(float, op_, os_, EXPR);                                              \
        } else {                                                                          \
            for (int64_t i_ = 0; i_ < n; i_++, ap_ += as_, op_ += os_) {                  \
                const float A = (float)ncl_load_double(ap_);                              \
                ncl_store_float(op_, (EXPR));                                             \
            }                                                                             \
        }                                                                                 \
    } while (0)

NCL_KINLINE NclStatus rng_k_std_gamma_f64(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                          const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    RNG_FILL1(rng_std_gamma_f64(w, D, A));
    RNG_GEN_END(D);
    return NCL_OK;
}

NCL_KINLINE NclStatus rng_k_std_gamma_f32(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                          const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    RNG_FILL1_F32(rng_std_gamma_f32(w, D, A));
    RNG_GEN_END(D);
    return NCL_OK;
}

/* gamma(shape, scale) = scale * standard gamma (random_gamma). */
NCL_KINLINE NclStatus rng_k_gamma(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                  const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    RNG_FILL2((void)0, B * rng_std_gamma_f64(w, D, A));
    RNG_GEN_END(D);
    return NCL_OK;
}

NCL_KINLINE NclStatus rng_k_beta(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                 const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    RNG_FILL2((void)0, rng_beta(w, D, A, B));
    RNG_GEN_END(D);
    return NCL_OK;
}

#endif /* NCL_RNG_GAMMA_H */
