/*
 * rng_rejection.c: the RNG kernels whose number of words per value varies:
 * standard_normal, normal, standard_exponential and exponential (the
 * ziggurats), standard_gamma, gamma, beta, Poisson, binomial, and the swap
 * indices of shuffle and permutation, for every bit generator. Their
 * values come from data-dependent branches and scalar exp/log calls that
 * wider vectors do not speed up (the AVX2 and AVX-512 builds of these
 * kernels measured no faster than the baseline's), so this source is
 * compiled once, in the baseline, and every level's table lists these
 * kernels (NCL_KERNEL_TABLE_ONCE_LIST). The draws and the loops are
 * rng_draws.h's.
 */
#ifdef NCL_ISA_SUFFIX
#  error "rng_rejection.c is compiled once: keep it in NCL_KERNEL_ONCE_SRC (CMakeLists.txt)"
#endif
#include "rng/rng_draws.h"
#include "rng/rng_zig_tables.h"

/* ---- ziggurat: standard normal and exponential -------------------------------- */

/* Each sampler is a fast path, inline in the kernel's loop (99 % of values
   end there), and the rest (the tail, the wedge test, and the retry with a
   fresh word when the wedge rejects) in a separate function working on
   the generator in memory: the kernel writes its working copy back before
   calling it and reloads it after, so no generator state is live across
   the call and the loop keeps the state in registers (with the slow path
   inline, its calls to exp and log1p made gcc keep the PCG64 state on the
   stack, one store and reload per draw: 2.7 instead of 2.0 ns a value). */

/* Standard normal, float64 (random_standard_normal): one 64-bit word per
   try, bits 0-7 the layer, bit 8 the sign, bits 9-60 the 52-bit uniform.
   *x gets the try's value (the sign flipped as a bit, the same value as
   NumPy's x = -x, -0 included); true when it is accepted. */
NCL_KINLINE int rng_zig_normal_try(uint64_t r, int *idx, uint64_t *rabs, double *x)
{
    *idx = (int)(r & 0xff);
    r >>= 8;
    *rabs = (r >> 1) & 0x000fffffffffffffULL;
    double v = (double)(int64_t)*rabs * ncl_zig_wi_f64[*idx];
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    bits ^= (r & 1) << 63;
    memcpy(x, &bits, sizeof bits);
    return *rabs < ncl_zig_ki_f64[*idx];
}

NCL_KINLINE double rng_zig_normal_slow(NclRngGen *g, const rng_gdraws D, int idx, uint64_t rabs, double x)
{
    for (;;) {
        if (idx == 0) {
            for (;;) {
                const double xx = -NCL_ZIG_NOR_INV_R * log1p(-D.f64(g));
                const double yy = -log1p(-D.f64(g));
                if (yy + yy > xx * xx)
                    return ((rabs >> 8) & 0x1) ? -(NCL_ZIG_NOR_R + xx) : NCL_ZIG_NOR_R + xx;
            }
        }
        if (((ncl_zig_fi_f64[idx - 1] - ncl_zig_fi_f64[idx]) * D.f64(g) + ncl_zig_fi_f64[idx]) <
            exp(-0.5 * x * x))
            return x;
        if (rng_zig_normal_try(D.u64(g), &idx, &rabs, &x)) return x;
    }
}

/* The same in float32 (random_standard_normal_f): one 32-bit draw per try;
   the wedge compares a float with a double exp, as NumPy's does. */
NCL_KINLINE int rng_zig_normal_try_f(uint32_t r, int *idx, uint32_t *rabs, float *x)
{
    *idx = (int)(r & 0xff);
    *rabs = (r >> 9) & 0x0007fffff;
    float v = (float)(int32_t)*rabs * ncl_zig_wi_f32[*idx];
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    bits ^= ((r >> 8) & 0x1) << 31;
    memcpy(x, &bits, sizeof bits);
    return *rabs < ncl_zig_ki_f32[*idx];
}

NCL_KINLINE float rng_zig_normal_slow_f(NclRngGen *g, const rng_gdraws D, int idx, uint32_t rabs, float x)
{
    for (;;) {
        if (idx == 0) {
            for (;;) {
                const float xx = -NCL_ZIG_NOR_INV_R_F * log1pf(-D.f32(g));
                const float yy = -log1pf(-D.f32(g));
                if (yy + yy > xx * xx)
                    return ((rabs >> 8) & 0x1) ? -(NCL_ZIG_NOR_R_F + xx) : NCL_ZIG_NOR_R_F + xx;
            }
        }
        if (((ncl_zig_fi_f32[idx - 1] - ncl_zig_fi_f32[idx]) * D.f32(g) + ncl_zig_fi_f32[idx]) <
            exp(-0.5 * x * x))
            return x;
        if (rng_zig_normal_try_f(D.u32(g), &idx, &rabs, &x)) return x;
    }
}

/* Standard exponential, float64 (random_standard_exponential): the word's
   low 3 bits unused, then 8 bits of layer and a 53-bit uniform. */
NCL_KINLINE int rng_zig_exp_try(uint64_t ri, int *idx, double *x)
{
    ri >>= 3;
    *idx = (int)(ri & 0xff);
    ri >>= 8;
    *x = (double)(int64_t)ri * ncl_zig_we_f64[*idx];
    return ri < ncl_zig_ke_f64[*idx];
}

NCL_KINLINE double rng_zig_exp_slow(NclRngGen *g, const rng_gdraws D, int idx, double x)
{
    for (;;) {
        if (idx == 0) return NCL_ZIG_EXP_R - log1p(-D.f64(g));
        if ((ncl_zig_fe_f64[idx - 1] - ncl_zig_fe_f64[idx]) * D.f64(g) + ncl_zig_fe_f64[idx] < exp(-x))
            return x;
        if (rng_zig_exp_try(D.u64(g), &idx, &x)) return x;
    }
}

/* The same in float32 (random_standard_exponential_f). */
NCL_KINLINE int rng_zig_exp_try_f(uint32_t ri, int *idx, float *x)
{
    ri >>= 1;
    *idx = (int)(ri & 0xff);
    ri >>= 8;
    *x = (float)(int32_t)ri * ncl_zig_we_f32[*idx];
    return ri < ncl_zig_ke_f32[*idx];
}

NCL_KINLINE float rng_zig_exp_slow_f(NclRngGen *g, const rng_gdraws D, int idx, float x)
{
    for (;;) {
        if (idx == 0) return NCL_ZIG_EXP_R_F - log1pf(-D.f32(g));
        if ((ncl_zig_fe_f32[idx - 1] - ncl_zig_fe_f32[idx]) * D.f32(g) + ncl_zig_fe_f32[idx] < expf(-x))
            return x;
        if (rng_zig_exp_try_f(D.u32(g), &idx, &x)) return x;
    }
}

/* One value of each, drawn from the working copy w of generator g. */
NCL_KINLINE double rng_std_normal_f64(rng_work *w, const rng_draws D)
{
    int idx;
    uint64_t rabs;
    double x;
    if (RNG_LIKELY(rng_zig_normal_try(D.u64(w), &idx, &rabs, &x))) return x;
    rng_end(w, D.kind);
    x = D.normal_slow(w->g, idx, rabs, x);
    rng_begin(w, w->g, D.kind);
    return x;
}

NCL_KINLINE float rng_std_normal_f32(rng_work *w, const rng_draws D)
{
    int idx;
    uint32_t rabs;
    float x;
    if (RNG_LIKELY(rng_zig_normal_try_f(D.u32(w), &idx, &rabs, &x))) return x;
    rng_end(w, D.kind);
    x = D.normal_slow_f(w->g, idx, rabs, x);
    rng_begin(w, w->g, D.kind);
    return x;
}

NCL_KINLINE double rng_std_exp_f64(rng_work *w, const rng_draws D)
{
    int idx;
    double x;
    if (RNG_LIKELY(rng_zig_exp_try(D.u64(w), &idx, &x))) return x;
    rng_end(w, D.kind);
    x = D.exp_slow(w->g, idx, x);
    rng_begin(w, w->g, D.kind);
    return x;
}

NCL_KINLINE float rng_std_exp_f32(rng_work *w, const rng_draws D)
{
    int idx;
    float x;
    if (RNG_LIKELY(rng_zig_exp_try_f(D.u32(w), &idx, &x))) return x;
    rng_end(w, D.kind);
    x = D.exp_slow_f(w->g, idx, x);
    rng_begin(w, w->g, D.kind);
    return x;
}

/* The slow paths of each generator, and its full set of draws. */
#if defined(__GNUC__) || defined(__clang__)
#  define RNG_NOINLINE __attribute__((noinline, cold))
#else
#  define RNG_NOINLINE
#endif
#define RNG_SLOW_(value, prefix)                                                          \
    static RNG_NOINLINE double rng_normal_slow_##prefix(NclRngGen *g, int idx, uint64_t rabs, \
                                                        double x)                         \
    {                                                                                     \
        return rng_zig_normal_slow(g, RNG_GDRAWS(prefix), idx, rabs, x);       \
    }                                                                                     \
    static RNG_NOINLINE float rng_normal_slow_f_##prefix(NclRngGen *g, int idx, uint32_t rabs, \
                                                         float x)                         \
    {                                                                                     \
        return rng_zig_normal_slow_f(g, RNG_GDRAWS(prefix), idx, rabs, x);     \
    }                                                                                     \
    static RNG_NOINLINE double rng_exp_slow_##prefix(NclRngGen *g, int idx, double x)     \
    {                                                                                     \
        return rng_zig_exp_slow(g, RNG_GDRAWS(prefix), idx, x);                \
    }                                                                                     \
    static RNG_NOINLINE float rng_exp_slow_f_##prefix(NclRngGen *g, int idx, float x)     \
    {                                                                                     \
        return rng_zig_exp_slow_f(g, RNG_GDRAWS(prefix), idx, x);              \
    }
NCL_RNG_BITGEN_LIST(RNG_SLOW_)
#define RNG_DRAWS(value, prefix)                                                          \
    RNG_DRAWS_OF(value, prefix, rng_normal_slow_##prefix, rng_normal_slow_f_##prefix,     \
                 rng_exp_slow_##prefix, rng_exp_slow_f_##prefix)

/* ---- the kernels ---------------------------------------------------------------------- */

NCL_KINLINE NclStatus rng_k_std_normal_f64(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                           const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    RNG_FILL0(double, rng_std_normal_f64(w, D));
    RNG_GEN_END(D);
    return NCL_OK;
}

NCL_KINLINE NclStatus rng_k_std_normal_f32(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                           const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    RNG_FILL0(float, rng_std_normal_f32(w, D));
    RNG_GEN_END(D);
    return NCL_OK;
}

NCL_KINLINE NclStatus rng_k_std_exp_f64(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                        const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    RNG_FILL0(double, rng_std_exp_f64(w, D));
    RNG_GEN_END(D);
    return NCL_OK;
}

NCL_KINLINE NclStatus rng_k_std_exp_f32(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                        const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    RNG_FILL0(float, rng_std_exp_f32(w, D));
    RNG_GEN_END(D);
    return NCL_OK;
}

/* normal(loc, scale) = loc + scale * standard normal (random_normal). */
NCL_KINLINE NclStatus rng_k_normal(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                   const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    RNG_FILL2((void)0, A + B * rng_std_normal_f64(w, D));
    RNG_GEN_END(D);
    return NCL_OK;
}

/* exponential(scale) = scale * standard exponential (random_exponential). */
NCL_KINLINE NclStatus rng_k_exponential(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                        const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    RNG_FILL1(A * rng_std_exp_f64(w, D));
    RNG_GEN_END(D);
    return NCL_OK;
}

/* ---- gamma, beta, Poisson, binomial, shuffle ------------------------------------------- */

/* Written over rng_draws.h's draws and loop macros and the ziggurats above
   (see each header). */
#include "rng/rng_gamma.h"
#include "rng/rng_discrete.h"

/* ---- stamping and the table ------------------------------------------------------------ */

/* Every kernel of generator (value, prefix):
   X(value, prefix, op, name, implementation, nargs, sig...). */
#define RNG_KERNEL_LIST(X, v, p)                                                            \
    X(v, p, NCL_RNG_STANDARD_NORMAL, standard_normal_f64, rng_k_std_normal_f64, 1,          \
      NCL_FLOAT64)                                                                          \
    X(v, p, NCL_RNG_STANDARD_NORMAL, standard_normal_f32, rng_k_std_normal_f32, 1,          \
      NCL_FLOAT32)                                                                          \
    X(v, p, NCL_RNG_NORMAL, normal_f64, rng_k_normal, 3, NCL_FLOAT64, NCL_FLOAT64,          \
      NCL_FLOAT64)                                                                          \
    X(v, p, NCL_RNG_STANDARD_EXPONENTIAL, standard_exponential_f64, rng_k_std_exp_f64, 1,   \
      NCL_FLOAT64)                                                                          \
    X(v, p, NCL_RNG_STANDARD_EXPONENTIAL, standard_exponential_f32, rng_k_std_exp_f32, 1,   \
      NCL_FLOAT32)                                                                          \
    X(v, p, NCL_RNG_EXPONENTIAL, exponential_f64, rng_k_exponential, 2, NCL_FLOAT64,        \
      NCL_FLOAT64)                                                                          \
    X(v, p, NCL_RNG_STANDARD_GAMMA, standard_gamma_f64, rng_k_std_gamma_f64, 2, NCL_FLOAT64, \
      NCL_FLOAT64)                                                                          \
    X(v, p, NCL_RNG_STANDARD_GAMMA, standard_gamma_f32, rng_k_std_gamma_f32, 2, NCL_FLOAT64, \
      NCL_FLOAT32)                                                                          \
    X(v, p, NCL_RNG_GAMMA, gamma_f64, rng_k_gamma, 3, NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64) \
    X(v, p, NCL_RNG_BETA, beta_f64, rng_k_beta, 3, NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64)    \
    X(v, p, NCL_RNG_POISSON, poisson_i64, rng_k_poisson, 2, NCL_FLOAT64, NCL_INT64)          \
    X(v, p, NCL_RNG_BINOMIAL, binomial_i64, rng_k_binomial, 3, NCL_INT64, NCL_FLOAT64,       \
      NCL_INT64)                                                                            \
    X(v, p, NCL_RNG_SHUFFLE, shuffle_idx, rng_k_shuffle_idx, 1, NCL_INT64)                   \
    X(v, p, NCL_RNG_PERMUTATION, permutation_idx, rng_k_shuffle_idx, 1, NCL_INT64)

#define RNG_KERNELS_(value, prefix) RNG_KERNEL_LIST(RNG_KERNEL_, value, prefix)
NCL_RNG_BITGEN_LIST(RNG_KERNELS_)
#define RNG_ENTRIES_(value, prefix) RNG_KERNEL_LIST(RNG_ENTRY_, value, prefix)

const ncl_kernel_entry ncl_k_rng_rejection_table[] = {NCL_RNG_BITGEN_LIST(RNG_ENTRIES_)};
const size_t ncl_k_rng_rejection_count =
    sizeof ncl_k_rng_rejection_table / sizeof ncl_k_rng_rejection_table[0];
