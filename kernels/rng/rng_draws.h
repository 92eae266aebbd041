/*
 * rng_draws.h: what every RNG kernel is made of: a generator's working
 * copy (rng_work) and its draws, the draws of every generator as one
 * constant struct (rng_draws), and the loops that fill an output run.
 * Included by the two kernel sources, rng_dists.c (the distributions of a
 * fixed number of words per value, compiled once per instruction-set
 * level) and rng_rejection.c (those whose words per value vary: the
 * ziggurats, gamma, beta, Poisson, binomial and shuffle, compiled once).
 *
 * Every distribution is written once, as a force-inlined function taking
 * the generator's draws as constant function pointers (rng_draws), and
 * stamped out per generator from NCL_RNG_BITGEN_LIST: after inlining, no
 * draw goes through a pointer. A kernel draws from a working copy of the
 * generator's state (rng_work) and writes it back once at the end; the
 * ziggurats' rare paths run out of line on the generator itself.
 *
 * Each kernel draws exactly the words NumPy 1.24.2's Generator draws for
 * the same call, in the same order, and computes each value with the same
 * arithmetic (numpy/random/src/distributions/distributions.c and
 * _bounded_integers.pyx.in at v1.24.2), so values and the generator's
 * final state are NumPy's bit for bit. Exactness rests on: the same
 * tables (rng_zig_tables.h), the C library's exp, expf, log1p and log1pf
 * where NumPy calls them (npy_log1p is log1p), no contraction into FMA
 * (kernels are built with -ffp-contract=off), and the evaluation order of
 * NumPy's expressions, which the code keeps operation for operation.
 * Parameters come validated (src/defaults/rng.c); kernels trust them.
 */
#ifndef NCL_RNG_DRAWS_H
#define NCL_RNG_DRAWS_H

#include <stddef.h>
#include "ncl_kernel.h"
#include "rng/rng_state.h"

#if defined(__GNUC__) || defined(__clang__)
#  define RNG_LIKELY(x) __builtin_expect(!!(x), 1)
#  define RNG_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#  define RNG_LIKELY(x) (x)
#  define RNG_UNLIKELY(x) (x)
#endif

/* ---- the draws of one generator ------------------------------------------------ */

/* A kernel draws from a working copy of the generator's state held in
   locals, which the compiler keeps in registers (an output store through
   char * could otherwise alias the generator, and the state would be
   reloaded and stored once per draw), and writes it back at the end.
   PCG64 and PCG64DXSM keep their 128-bit state and increment as 64-bit
   halves and step by halves (rng_state.h's steps, the same arithmetic):
   with unsigned __int128 values, gcc kept the state, or the product of
   its low half, on the stack in every loop with more than a few other
   values live, a store and a reload in the chain of dependent steps (2.7
   instead of 2.0 ns per exponential). A step costs about 5 cycles of
   dependent multiplies and adds, which bounds every PCG64 kernel (1.9 ns
   a word on the 2.6 GHz Zen 4 this was measured on); making words ahead
   in blocks as two interleaved chains (s[k+2] = M^2 s[k] + (M + 1) inc),
   with the states kept to find where a kernel stopped, was no faster:
   the multiplier is busy either way.
   Philox, SFC64 and Philox4x32 work on a copy of their NclRngGen;
   MT19937 on the generator itself (its 2.5 KiB state lives in memory
   either way). */
typedef struct rng_work {
    NclRngGen *g;    /* the generator */
    NclRngGen *gw;   /* what rng_state.h's draws work on: &copy, or g */
    uint64_t slo, shi, ilo, ihi; /* PCG kinds: state and increment */
    int has_u32;     /* PCG kinds: the buffered upper half */
    uint32_t u32;
    NclRngGen copy;  /* Philox, SFC64, Philox4x32 */
} rng_work;

NCL_KINLINE void rng_begin(rng_work *w, NclRngGen *g, int kind)
{
    w->g = g;
    w->gw = g;
    switch (kind) {
    case NCL_BITGEN_PCG64:
    case NCL_BITGEN_PCG64DXSM:
        w->slo = (uint64_t)g->s.pcg.state;
        w->shi = (uint64_t)(g->s.pcg.state >> 64);
        w->ilo = (uint64_t)g->s.pcg.inc;
        w->ihi = (uint64_t)(g->s.pcg.inc >> 64);
        w->has_u32 = g->has_u32;
        w->u32 = g->u32;
        break;
    case NCL_BITGEN_PHILOX:
    case NCL_BITGEN_SFC64:
    case NCL_BITGEN_PHILOX4X32:
        w->copy.magic = g->magic;
        w->copy.kind = g->kind;
        w->copy.has_u32 = g->has_u32;
        w->copy.u32 = g->u32;
        if (kind == NCL_BITGEN_PHILOX)
            w->copy.s.philox = g->s.philox;
        else if (kind == NCL_BITGEN_PHILOX4X32)
            w->copy.s.p32 = g->s.p32;
        else
            w->copy.s.sfc = g->s.sfc;
        w->gw = &w->copy;
        break;
    default: break;
    }
}

NCL_KINLINE void rng_end(rng_work *w, int kind)
{
    NclRngGen *const g = w->g;
    switch (kind) {
    case NCL_BITGEN_PCG64:
    case NCL_BITGEN_PCG64DXSM:
        g->s.pcg.state = ((ncl_u128)w->shi << 64) | w->slo;
        g->has_u32 = w->has_u32;
        g->u32 = w->u32;
        break;
    case NCL_BITGEN_PHILOX:
    case NCL_BITGEN_SFC64:
    case NCL_BITGEN_PHILOX4X32:
        g->has_u32 = w->copy.has_u32;
        g->u32 = w->copy.u32;
        if (kind == NCL_BITGEN_PHILOX)
            g->s.philox = w->copy.s.philox;
        else if (kind == NCL_BITGEN_PHILOX4X32)
            g->s.p32 = w->copy.s.p32;
        else
            g->s.sfc = w->copy.s.sfc;
        break;
    default: break;
    }
}

/* s = s * m + inc modulo 2^128, m = (mhi << 64) | mlo. */
NCL_KINLINE void rng_pcg_step(rng_work *w, uint64_t mlo, uint64_t mhi)
{
    const uint64_t phi = (uint64_t)(((ncl_u128)w->slo * mlo) >> 64);
    const uint64_t hi = phi + w->shi * mlo + w->slo * mhi;
    const uint64_t lo = w->slo * mlo + w->ilo;
    w->shi = hi + w->ihi + (lo < w->ilo);
    w->slo = lo;
}

#define RNG_IS_PCG(kind) ((kind) == NCL_BITGEN_PCG64 || (kind) == NCL_BITGEN_PCG64DXSM)

/* A PCG kind's 64-bit draw: PCG64 steps, then takes XSL-RR of the new
   state; PCG64DXSM takes DXSM of the state before its step, which uses
   the cheap multiplier. */
NCL_KINLINE uint64_t rng_pcg_u64(rng_work *w, int kind)
{
    if (kind == NCL_BITGEN_PCG64) {
        rng_pcg_step(w, (uint64_t)NCL_PCG_MULT, (uint64_t)(NCL_PCG_MULT >> 64));
        return ncl_rotr64(w->shi ^ w->slo, (unsigned)(w->shi >> 58));
    }
    uint64_t hi = w->shi;
    const uint64_t lo = w->slo | 1;
    rng_pcg_step(w, NCL_PCG_CHEAP_MULT, 0);
    hi ^= hi >> 32;
    hi *= NCL_PCG_CHEAP_MULT;
    hi ^= hi >> 48;
    hi *= lo;
    return hi;
}

/* The low half of a fresh word, its high half kept for the next call. */
NCL_KINLINE uint32_t rng_pcg_u32(rng_work *w, int kind)
{
    if (w->has_u32) {
        w->has_u32 = 0;
        return w->u32;
    }
    const uint64_t x = rng_pcg_u64(w, kind);
    w->has_u32 = 1;
    w->u32 = (uint32_t)(x >> 32);
    return (uint32_t)x;
}

/* Each generator's draws on its working copy: the PCG kinds' above,
   rng_state.h's on w->gw for the others. */
#define RNG_W_DRAWS_(value, prefix)                                                       \
    NCL_KINLINE uint64_t rng_w_##prefix##_u64(rng_work *w)                                \
    {                                                                                     \
        return RNG_IS_PCG(value) ? rng_pcg_u64(w, value) : ncl_##prefix##_next_u64(w->gw); \
    }                                                                                     \
    NCL_KINLINE uint32_t rng_w_##prefix##_u32(rng_work *w)                                \
    {                                                                                     \
        return RNG_IS_PCG(value) ? rng_pcg_u32(w, value) : ncl_##prefix##_next_u32(w->gw); \
    }                                                                                     \
    NCL_KINLINE double rng_w_##prefix##_f64(rng_work *w)                                  \
    {                                                                                     \
        if (!RNG_IS_PCG(value)) return ncl_##prefix##_next_double(w->gw);                \
        return (double)(int64_t)(rng_pcg_u64(w, value) >> 11) * (1.0 / 9007199254740992.0); \
    }                                                                                     \
    NCL_KINLINE float rng_w_##prefix##_f32(rng_work *w)                                   \
    {                                                                                     \
        if (!RNG_IS_PCG(value)) return ncl_##prefix##_next_float(w->gw);                  \
        return (float)(int32_t)(rng_pcg_u32(w, value) >> 8) * (1.0f / 16777216.0f);       \
    }
NCL_RNG_BITGEN_LIST(RNG_W_DRAWS_)

/* Whether the generator's 64-bit word is its next two 32-bit draws, low
   half first, when no half is pending (NumPy's 64-bit generators, and
   Philox4x32, whose 64-bit draw is its next two words, low first): then a
   loop that wants two 32-bit draws may take one word. Not MT19937 (its
   word is two outputs, first high) nor a generator not listed here. */
#define RNG_WORD_IS_TWO_HALVES(kind)                                                      \
    (RNG_IS_PCG(kind) || (kind) == NCL_BITGEN_PHILOX || (kind) == NCL_BITGEN_SFC64 ||     \
     (kind) == NCL_BITGEN_PHILOX4X32)

/* A generator's draws: on the working copy for the kernels' loops, and
   rng_state.h's own on the generator for the out-of-line slow paths. */
typedef struct rng_gdraws {
    uint64_t (*u64)(NclRngGen *);
    uint32_t (*u32)(NclRngGen *);
    double (*f64)(NclRngGen *);
    float (*f32)(NclRngGen *);
} rng_gdraws;
#define RNG_GDRAWS(prefix)                                                                \
    ((rng_gdraws){ncl_##prefix##_next_u64, ncl_##prefix##_next_u32,                       \
                  ncl_##prefix##_next_double, ncl_##prefix##_next_float})

typedef struct rng_draws {
    int kind; /* NclBitGen */
    uint64_t (*u64)(rng_work *);
    uint32_t (*u32)(rng_work *);
    double (*f64)(rng_work *);
    float (*f32)(rng_work *);
    /* The ziggurats past their fast path (rng_zig_*_slow), out of line. */
    double (*normal_slow)(NclRngGen *, int, uint64_t, double);
    float (*normal_slow_f)(NclRngGen *, int, uint32_t, float);
    double (*exp_slow)(NclRngGen *, int, double);
    float (*exp_slow_f)(NclRngGen *, int, float);
} rng_draws;

#define RNG_GEN_BEGIN(D, ctx)                                                             \
    rng_work work_;                                                                       \
    rng_work *const w = &work_;                                                           \
    rng_begin(w, ((const NclRngKernelAux *)(ctx)->aux)->gen, (D).kind)
#define RNG_GEN_END(D) rng_end(w, (D).kind)

/* Whether a buffered upper half is pending (NumPy's has_uint32; a
   generator whose 32-bit draws are its own outputs, as MT19937's, never
   has one). */
NCL_KINLINE int rng_half_pending(const rng_work *w, int kind)
{
    if (RNG_IS_PCG(kind)) return w->has_u32;
    return w->gw->has_u32;
}

/* After both halves of a fresh word x were taken as two 32-bit draws at
   once: the generator keeps x's upper half as the last one drawn (NumPy's
   uinteger, which two next_uint32 calls leave set, has_uint32 0). */
NCL_KINLINE void rng_halves_used(rng_work *w, int kind, uint64_t x)
{
    if (RNG_IS_PCG(kind)) w->u32 = (uint32_t)(x >> 32);
    else if (kind != NCL_BITGEN_PHILOX4X32) w->gw->u32 = (uint32_t)(x >> 32);
}

/* A generator's draws (value, prefix: its NCL_RNG_BITGEN_LIST line) with
   the ziggurats' slow paths given (rng_rejection.c) or NULL (rng_dists.c,
   which draws no normal or exponential). */
#define RNG_DRAWS_OF(value, prefix, normal_slow, normal_slow_f, exp_slow, exp_slow_f)     \
    ((rng_draws){(value), rng_w_##prefix##_u64, rng_w_##prefix##_u32, rng_w_##prefix##_f64, \
                 rng_w_##prefix##_f32, normal_slow, normal_slow_f, exp_slow, exp_slow_f})

/* ---- the kernels' loops -------------------------------------------------------------- */

/* The output run of n elements of type T at OP, byte step OS: each is
   EXPR (of the working copy w), in order; a contiguous output through
   ncl_ostream. */
#define RNG_FILL(T, OP, OS, EXPR)                                                         \
    do {                                                                                  \
        char *o_ = (OP);                                                                  \
        const int64_t s_ = (OS);                                                          \
        if (s_ == (int64_t)sizeof(T)) {                                                   \
            NCL_OSTREAM(out_);                                                            \
            for (ncl_ostream_begin(&out_, ctx, o_, n, (int64_t)sizeof(T));                \
                 ncl_ostream_next(&out_);) {                                              \
                char *const d_ = out_.dst;                                                \
                const int64_t c_ = out_.cnt;                                              \
                for (int64_t i_ = 0; i_ < c_; i_++)                                       \
                    ncl_store_##T(d_ + i_ * (int64_t)sizeof(T), (EXPR));                  \
            }                                                                             \
        } else {                                                                          \
            for (int64_t i_ = 0; i_ < n; i_++, o_ += s_) ncl_store_##T(o_, (EXPR));       \
        }                                                                                 \
    } while (0)

/* A parameterless op. */
#define RNG_FILL0(T, EXPR) RNG_FILL(T, args[0], steps[0], EXPR)

/* A float64 op of one parameter A, read as float64: a scalar one is read
   once and the run is RNG_FILL's. */
#define RNG_FILL1(EXPR)                                                                   \
    do {                                                                                  \
        const char *ap_ = args[0];                                                        \
        char *op_ = args[1];                                                              \
        const int64_t as_ = steps[0], os_ = steps[1];                                     \
        if (as_ == 0) {                                                                   \
            const double A = ncl_load_double(ap_);                                        \
            RNG_FILL(double, op_, os_, EXPR);                                             \
        } else {                                                                          \
            for (int64_t i_ = 0; i_ < n; i_++, ap_ += as_, op_ += os_) {                  \
                const double A = ncl_load_double(ap_);                                    \
                ncl_store_double(op_, (EXPR));                                            \
            }                                                                             \
        }                                                                                 \
    } while (0)

/* The same with two parameters A and B, and PREP, a declaration made from
   them once per pair. */
#define RNG_FILL2(PREP, EXPR)                                                             \
    do {                                                                                  \
        const char *ap_ = args[0], *bp_ = args[1];                                        \
        char *op_ = args[2];                                                              \
        const int64_t as_ = steps[0], bs_ = steps[1], os_ = steps[2];                     \
        if (as_ == 0 && bs_ == 0) {                                                       \
            const double A = ncl_load_double(ap_), B = ncl_load_double(bp_);              \
            PREP;                                                                         \
            RNG_FILL(double, op_, os_, EXPR);                                             \
        } else {                                                                          \
            for (int64_t i_ = 0; i_ < n; i_++, ap_ += as_, bp_ += bs_, op_ += os_) {      \
                const double A = ncl_load_double(ap_), B = ncl_load_double(bp_);          \
                PREP;                                                                     \
                ncl_store_double(op_, (EXPR));                                            \
            }                                                                             \
        }                                                                                 \
    } while (0)

/* Stamps kernel ncl_k_rng_<name>_<prefix> of generator (value, prefix) from
   its implementation: the X of a source's kernel list
   X(value, prefix, op, name, implementation, nargs, sig...), with
   RNG_ENTRY_ making its table entry. */
#define RNG_KERNEL_(value, prefix, op, name, impl, nargs, ...)                              \
    static NclStatus ncl_k_rng_##name##_##prefix(NclKernelNode *self, const NclKernelCtx *ctx, \
                                                 char *const *args, int64_t n,             \
                                                 const int64_t *steps)                     \
    {                                                                                       \
        (void)self;                                                                         \
        return impl(ctx, args, n, steps, RNG_DRAWS(value, prefix));                         \
    }
#define RNG_ENTRY_(value, prefix, op, name, impl, nargs, ...)                               \
    {NCL_SUBSYSTEM_RNG, nargs, NCL_RNG_KERNEL_OP(op, value), {__VA_ARGS__},                 \
     ncl_k_rng_##name##_##prefix, "ncl_k_rng_" #name "_" #prefix},

#endif /* NCL_RNG_DRAWS_H */
