/*
 * rng_dists.c: the built-in RNG kernels, one per (distribution, bit
 * generator, result dtype), each drawing exactly the words NumPy 1.24.2's
 * Generator draws for the same call, in the same order, and computing each
 * value with the same arithmetic (numpy/random/src/distributions/
 * distributions.c and _bounded_integers.pyx.in at v1.24.2), so values and
 * the generator's final state are NumPy's bit for bit.
 *
 * Every distribution is written once, as a force-inlined function taking
 * the generator's draws as constant function pointers (rng_draws), and
 * stamped out per generator from NCL_RNG_BITGEN_LIST: after inlining, no
 * draw goes through a pointer. A kernel draws from a working copy of the
 * generator's state (rng_work) and writes it back once at the end; the
 * ziggurats' rare paths run out of line on the generator itself.
 *
 * Exactness rests on: the same tables (rng_zig_tables.h), the C library's
 * exp, expf, log1p and log1pf where NumPy calls them (npy_log1p is
 * log1p), no contraction into FMA (kernels are built with
 * -ffp-contract=off), and the evaluation order of NumPy's expressions,
 * which the code below keeps operation for operation.
 *
 * Parameters come validated (src/defaults/rng.c); kernels trust them.
 * INTEGERS: NumPy's scalar-bound path (random_bounded_<type>_fill) and its
 * array-bound path (random_buffered_bounded_<type> per element, one 32-bit
 * buffer across the elements) draw the same words for the same bounds, so
 * one per-element routine serves both, the sub-word buffer of the 8- and
 * 16-bit types and bool living across the elements of one kernel call; it
 * is dropped at the end of the call, as NumPy drops it at the end of one
 * integers() call (the caller must therefore give a whole call to one
 * kernel invocation for those types).
 */
#include <stddef.h>
#include "ncl_kernel.h"
#include "rng/rng_state.h"
#include "rng/rng_zig_tables.h"
#include "rng/rng_counter.h"

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

/* ---- uniform and raw ---------------------------------------------------------------- */

/* random_raw: NumPy's next_raw is the 64-bit word, but MT19937's is one
   32-bit output widened. */
NCL_KINLINE uint64_t rng_raw(rng_work *w, const rng_draws D)
{
    return D.kind == NCL_BITGEN_MT19937 ? (uint64_t)D.u32(w) : D.u64(w);
}

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
    ((rng_draws){(value), rng_w_##prefix##_u64, rng_w_##prefix##_u32, rng_w_##prefix##_f64, \
                 rng_w_##prefix##_f32,                                                    \
                 rng_normal_slow_##prefix, rng_normal_slow_f_##prefix, rng_exp_slow_##prefix, \
                 rng_exp_slow_f_##prefix})

/* ---- bounded integers (Lemire's method, NumPy's masked=False) ------------------- */

/* The buffer of the 8- and 16-bit types and bool: sub-words of one 32-bit
   draw, low first (NumPy's buf and bcnt). */
typedef struct rng_sub {
    uint32_t buf;
    int cnt; /* sub-words left after the current one */
} rng_sub;

NCL_KINLINE uint8_t rng_sub_u8(rng_work *w, const rng_draws D, rng_sub *b)
{
    if (!b->cnt) {
        b->buf = D.u32(w);
        b->cnt = 3;
    } else {
        b->buf >>= 8;
        b->cnt--;
    }
    return (uint8_t)b->buf;
}

NCL_KINLINE uint16_t rng_sub_u16(rng_work *w, const rng_draws D, rng_sub *b)
{
    if (!b->cnt) {
        b->buf = D.u32(w);
        b->cnt = 1;
    } else {
        b->buf >>= 16;
        b->cnt--;
    }
    return (uint16_t)b->buf;
}

/* One value in [off, off + rng] of each width, NumPy's
   random_bounded_uint64 and random_buffered_bounded_uint{32,16,8,bool}.
   Lemire: m = draw * (rng + 1), the value is m's high half, and a draw
   whose low half falls below (2^bits - (rng + 1)) mod (rng + 1) is
   redrawn. NumPy computes that threshold only when the low half is below
   rng + 1 (an upper bound of it); so does this, which draws nothing
   differently and saves the division. */
NCL_KINLINE uint64_t rng_bounded_u64(rng_work *w, const rng_draws D, uint64_t off, uint64_t rng)
{
    if (rng == 0) return off;
    if (rng <= 0xFFFFFFFFULL) {
        if (rng == 0xFFFFFFFFULL) return off + (uint64_t)D.u32(w);
        const uint32_t excl = (uint32_t)rng + 1;
        uint64_t m = (uint64_t)D.u32(w) * excl;
        uint32_t left = (uint32_t)m;
        if (RNG_UNLIKELY(left < excl)) {
            const uint32_t thr = (UINT32_MAX - (uint32_t)rng) % excl;
            while (left < thr) {
                m = (uint64_t)D.u32(w) * excl;
                left = (uint32_t)m;
            }
        }
        return off + (m >> 32);
    }
    if (rng == UINT64_MAX) return off + D.u64(w);
    const uint64_t excl = rng + 1;
    ncl_u128 m = (ncl_u128)D.u64(w) * excl;
    uint64_t left = (uint64_t)m;
    if (RNG_UNLIKELY(left < excl)) {
        const uint64_t thr = (UINT64_MAX - rng) % excl;
        while (left < thr) {
            m = (ncl_u128)D.u64(w) * excl;
            left = (uint64_t)m;
        }
    }
    return off + (uint64_t)(m >> 64);
}

NCL_KINLINE uint32_t rng_bounded_u32(rng_work *w, const rng_draws D, uint32_t off, uint32_t rng)
{
    if (rng == 0) return off;
    if (rng == 0xFFFFFFFFU) return off + D.u32(w);
    const uint32_t excl = rng + 1;
    uint64_t m = (uint64_t)D.u32(w) * excl;
    uint32_t left = (uint32_t)m;
    if (RNG_UNLIKELY(left < excl)) {
        const uint32_t thr = (UINT32_MAX - rng) % excl;
        while (left < thr) {
            m = (uint64_t)D.u32(w) * excl;
            left = (uint32_t)m;
        }
    }
    return off + (uint32_t)(m >> 32);
}

NCL_KINLINE uint16_t rng_bounded_u16(rng_work *w, const rng_draws D, rng_sub *b, uint16_t off,
                                     uint16_t rng)
{
    if (rng == 0) return off;
    if (rng == 0xFFFF) return (uint16_t)(off + rng_sub_u16(w, D, b));
    const uint16_t excl = (uint16_t)(rng + 1);
    uint32_t m = (uint32_t)rng_sub_u16(w, D, b) * excl;
    uint16_t left = (uint16_t)m;
    if (left < excl) {
        const uint16_t thr = (uint16_t)((UINT16_MAX - rng) % excl);
        while (left < thr) {
            m = (uint32_t)rng_sub_u16(w, D, b) * excl;
            left = (uint16_t)m;
        }
    }
    return (uint16_t)(off + (m >> 16));
}

NCL_KINLINE uint8_t rng_bounded_u8(rng_work *w, const rng_draws D, rng_sub *b, uint8_t off,
                                   uint8_t rng)
{
    if (rng == 0) return off;
    if (rng == 0xFF) return (uint8_t)(off + rng_sub_u8(w, D, b));
    const uint8_t excl = (uint8_t)(rng + 1);
    uint16_t m = (uint16_t)(rng_sub_u8(w, D, b) * excl);
    uint8_t left = (uint8_t)m;
    if (left < excl) {
        const uint8_t thr = (uint8_t)((UINT8_MAX - rng) % excl);
        while (left < thr) {
            m = (uint16_t)(rng_sub_u8(w, D, b) * excl);
            left = (uint8_t)m;
        }
    }
    return (uint8_t)(off + (m >> 8));
}

/* bool: rng is 0 or 1, and 1 only with off 0; one bit a value. */
NCL_KINLINE ncl_bool rng_bounded_bool(rng_work *w, const rng_draws D, rng_sub *b, uint8_t off,
                                      uint8_t rng)
{
    if (rng == 0) return off;
    if (!b->cnt) {
        b->buf = D.u32(w);
        b->cnt = 31;
    } else {
        b->buf >>= 1;
        b->cnt--;
    }
    return (ncl_bool)(b->buf & 1);
}

/* Contiguous runs with scalar bounds. Where the buffer is empty and at
   least a whole 32-bit draw's values are still wanted, the draw is taken
   at once and its sub-words turned into values without branches: each
   sub-word's value is stored at the next free place, which advances only
   when the sub-word is accepted (a rejected one is overwritten by the
   next). NumPy would take the same sub-words in the same order, since it
   still wants at least one value after each of them. The buffer is then
   empty again. With no 32-bit half pending (and a generator of 64-bit
   words), two draws are one word, low half first: its 8 bytes at once
   (1.0 instead of 1.5 ns a uint8). */
#if defined(__AVX512F__) && defined(__BMI2__) && defined(__x86_64__)
#  include <immintrin.h>
#  define RNG_U8_WORD8 1
/* The eight bytes of x as uint8 values: stored packed at dst (8 bytes
   written, the accepted values first), returns how many were accepted.
   The products and tests are one SSE2 vector; pext packs the accepted
   bytes (0.5 instead of 1.4 ns a value). pext is fast on every CPU this
   variant runs on (Intel since Skylake-X, AMD since Zen 4); it is
   microcoded on Zen 1 and 2 (hundreds of cycles), which run the AVX2
   variant, so that one keeps the scalar loop. */
NCL_KINLINE int rng_u8_word8(uint64_t x, uint8_t off, unsigned excl, unsigned thr, uint8_t *dst)
{
    const __m128i z = _mm_setzero_si128(), low = _mm_set1_epi16(0xff);
    const __m128i m = _mm_mullo_epi16(_mm_unpacklo_epi8(_mm_cvtsi64_si128((long long)x), z),
                                      _mm_set1_epi16((short)excl));
    const __m128i v = _mm_and_si128(_mm_add_epi16(_mm_srli_epi16(m, 8), _mm_set1_epi16(off)), low);
    const __m128i ok = _mm_cmpgt_epi16(_mm_and_si128(m, low), _mm_set1_epi16((short)((int)thr - 1)));
    const unsigned mask = (unsigned)_mm_movemask_epi8(_mm_packs_epi16(ok, z));
    const uint64_t vals = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(v, z));
    const uint64_t packed = _pext_u64(vals, _pdep_u64(mask, 0x0101010101010101ULL) * 0xFF);
    memcpy(dst, &packed, sizeof packed);
    return __builtin_popcount(mask);
}
#endif

#define RNG_U8_SUB_(x, k)                                                                 \
    do {                                                                                  \
        const unsigned m_ = (unsigned)(((x) >> (8 * (k))) & 0xff) * excl;                 \
        d[j] = (uint8_t)(off + (m_ >> 8));                                                \
        j += (m_ & 0xff) >= thr;                                                          \
    } while (0)

NCL_KINLINE void rng_run_u8(rng_work *w, const rng_draws D, rng_sub *b, uint8_t off, uint8_t rng,
                            uint8_t *d, int64_t cnt)
{
    int64_t j = 0;
    if (rng == 0) {
        for (; j < cnt; j++) d[j] = off;
        return;
    }
    const unsigned excl = (unsigned)rng + 1; /* 256 for the full range */
    const unsigned thr = rng == 0xFF ? 0 : (UINT8_MAX - rng) % excl;
    while (j < cnt) {
        if (b->cnt == 0 && RNG_WORD_IS_TWO_HALVES(D.kind) && !rng_half_pending(w, D.kind) &&
            cnt - j >= 8) {
            const uint64_t x = D.u64(w);
#ifdef RNG_U8_WORD8
            j += rng_u8_word8(x, off, excl, thr, d + j);
#else
            for (int k = 0; k < 8; k++) RNG_U8_SUB_(x, k);
#endif
        } else if (b->cnt == 0 && cnt - j >= 4) {
            const uint32_t x = D.u32(w);
            for (int k = 0; k < 4; k++) RNG_U8_SUB_(x, k);
        } else {
            d[j++] = rng_bounded_u8(w, D, b, off, rng);
        }
    }
}
#undef RNG_U8_SUB_

NCL_KINLINE void rng_run_u16(rng_work *w, const rng_draws D, rng_sub *b, uint16_t off,
                             uint16_t rng, char *d, int64_t cnt)
{
    int64_t j = 0;
    if (rng == 0) {
        for (; j < cnt; j++) ncl_store_uint16_t(d + 2 * j, off);
        return;
    }
    const uint32_t excl = (uint32_t)rng + 1;
    const uint32_t thr = rng == 0xFFFF ? 0 : (UINT16_MAX - rng) % excl;
    while (j < cnt) {
        if (b->cnt == 0 && cnt - j >= 2) {
            const uint32_t x = D.u32(w);
            for (int k = 0; k < 2; k++) {
                const uint32_t m = ((x >> (16 * k)) & 0xffff) * excl;
                ncl_store_uint16_t(d + 2 * j, (uint16_t)(off + (m >> 16)));
                j += (m & 0xffff) >= thr;
            }
        } else {
            ncl_store_uint16_t(d + 2 * j, rng_bounded_u16(w, D, b, off, rng));
            j++;
        }
    }
}

/* 32-bit values, Lemire on the generator's 32-bit draws, with scalar
   bounds: a 64-bit word gives two draws (low half first), so where no
   half is pending and two values are still wanted, both halves are taken
   and kept or rejected without branches as above. rng < 2^32 - 1 or the
   full 32-bit range; the value is off + m / 2^32 in the caller's width. */
NCL_KINLINE void rng_run_u32(rng_work *w, const rng_draws D, uint64_t off, uint32_t rng, char *d,
                             int64_t size, int64_t cnt)
{
    const uint64_t excl = (uint64_t)rng + 1; /* 2^32 for the full range */
    const uint32_t thr = rng == 0xFFFFFFFFU ? 0 : (UINT32_MAX - rng) % (uint32_t)excl;
    int64_t j = 0;
#define RNG_PUT_(v)                                                                       \
    do {                                                                                  \
        if (size == 8)                                                                    \
            ncl_store_uint64_t(d + 8 * j, (v));                                           \
        else                                                                              \
            ncl_store_uint32_t(d + 4 * j, (uint32_t)(v));                                 \
    } while (0)
    while (j < cnt) {
        if (RNG_WORD_IS_TWO_HALVES(D.kind) && !rng_half_pending(w, D.kind) && cnt - j >= 2) {
            const uint64_t x = D.u64(w);
            const uint64_t m0 = (x & 0xFFFFFFFFU) * excl, m1 = (x >> 32) * excl;
            RNG_PUT_(off + (m0 >> 32));
            j += (uint32_t)m0 >= thr;
            RNG_PUT_(off + (m1 >> 32));
            j += (uint32_t)m1 >= thr;
        } else {
            uint64_t m = (uint64_t)D.u32(w) * excl;
            while ((uint32_t)m < thr) m = (uint64_t)D.u32(w) * excl;
            RNG_PUT_(off + (m >> 32));
            j++;
        }
    }
#undef RNG_PUT_
}

NCL_KINLINE void rng_run_bool(rng_work *w, const rng_draws D, rng_sub *b, uint8_t off, uint8_t rng,
                              uint8_t *d, int64_t cnt)
{
    int64_t j = 0;
    if (rng == 0) {
        for (; j < cnt; j++) d[j] = off;
        return;
    }
    while (j < cnt) {
        if (b->cnt == 0 && cnt - j >= 32) {
            const uint32_t x = D.u32(w);
            for (int k = 0; k < 32; k++) d[j + k] = (uint8_t)((x >> k) & 1);
            j += 32;
        } else {
            d[j++] = rng_bounded_bool(w, D, b, off, rng);
        }
    }
}

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

NCL_KINLINE NclStatus rng_k_raw(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                const int64_t *steps, const rng_draws D)
{
    if (D.kind == NCL_BITGEN_PHILOX4X32 && rc_kernel(ctx, args, n, steps, RC_RAW)) return NCL_OK;
    RNG_GEN_BEGIN(D, ctx);
    RNG_FILL0(uint64_t, rng_raw(w, D));
    RNG_GEN_END(D);
    return NCL_OK;
}

NCL_KINLINE NclStatus rng_k_random_f64(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                       const int64_t *steps, const rng_draws D)
{
    if (D.kind == NCL_BITGEN_PHILOX4X32 && rc_kernel(ctx, args, n, steps, RC_F64)) return NCL_OK;
    RNG_GEN_BEGIN(D, ctx);
    RNG_FILL0(double, D.f64(w));
    RNG_GEN_END(D);
    return NCL_OK;
}

NCL_KINLINE NclStatus rng_k_random_f32(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                       const int64_t *steps, const rng_draws D)
{
    if (D.kind == NCL_BITGEN_PHILOX4X32 && rc_kernel(ctx, args, n, steps, RC_F32)) return NCL_OK;
    RNG_GEN_BEGIN(D, ctx);
    RNG_FILL0(float, D.f32(w));
    RNG_GEN_END(D);
    return NCL_OK;
}

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

/* uniform(low, high): NumPy takes range = high - low (once for scalar
   bounds, per element for arrays: the same double) and returns
   low + range * U (random_uniform). */
NCL_KINLINE NclStatus rng_k_uniform(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                    const int64_t *steps, const rng_draws D)
{
    if (D.kind == NCL_BITGEN_PHILOX4X32 && rc_kernel(ctx, args, n, steps, RC_UNIFORM)) return NCL_OK;
    RNG_GEN_BEGIN(D, ctx);
    RNG_FILL2(const double R = B - A, A + R * D.f64(w));
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

/* integers: low and high as 64-bit words (int64 or uint64, the same
   arithmetic modulo 2^64); NumPy draws on [low, high - !endpoint], as
   off = low and rng = high - !endpoint - low in the result's width. */
#define RNG_INT_BOUNDS(UT)                                                                \
    const uint64_t lo_ = ncl_load_uint64_t(lp_), hi_ = ncl_load_uint64_t(hp_);            \
    const UT off = (UT)lo_;                                                               \
    const UT rng = (UT)(hi_ - (uint64_t)!endpoint - lo_)

#define RNG_INT_LOOP(UT, RUN, ONE)                                                        \
    do {                                                                                  \
        const char *lp_ = args[0], *hp_ = args[1];                                        \
        char *op_ = args[2];                                                              \
        const int64_t ls_ = steps[0], hs_ = steps[1], os_ = steps[2];                     \
        const int endpoint = ((const NclRngKernelAux *)ctx->aux)->endpoint;               \
        rng_sub sb_ = {0, 0};                                                             \
        rng_sub *const b = &sb_;                                                          \
        (void)b;                                                                          \
        if (ls_ == 0 && hs_ == 0 && os_ == (int64_t)sizeof(UT)) {                         \
            RNG_INT_BOUNDS(UT);                                                           \
            NCL_OSTREAM(out_);                                                            \
            for (ncl_ostream_begin(&out_, ctx, op_, n, (int64_t)sizeof(UT));              \
                 ncl_ostream_next(&out_);) {                                              \
                char *const d_ = out_.dst;                                                \
                const int64_t c_ = out_.cnt;                                              \
                RUN;                                                                      \
            }                                                                             \
        } else {                                                                          \
            for (int64_t i_ = 0; i_ < n; i_++, lp_ += ls_, hp_ += hs_, op_ += os_) {      \
                RNG_INT_BOUNDS(UT);                                                       \
                ncl_store_##UT(op_, (ONE));                                               \
            }                                                                             \
        }                                                                                 \
    } while (0)

NCL_KINLINE NclStatus rng_k_int_w64(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                    const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    RNG_INT_LOOP(uint64_t,
                 if (rng != 0 && rng <= 0xFFFFFFFFU) rng_run_u32(w, D, off, (uint32_t)rng, d_, 8, c_);
                 else for (int64_t i_ = 0; i_ < c_; i_++)
                     ncl_store_uint64_t(d_ + 8 * i_, rng_bounded_u64(w, D, off, rng)),
                 rng_bounded_u64(w, D, off, rng));
    RNG_GEN_END(D);
    return NCL_OK;
}

NCL_KINLINE NclStatus rng_k_int_w32(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                    const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    RNG_INT_LOOP(uint32_t,
                 if (rng != 0) rng_run_u32(w, D, off, rng, d_, 4, c_);
                 else for (int64_t i_ = 0; i_ < c_; i_++) ncl_store_uint32_t(d_ + 4 * i_, off),
                 rng_bounded_u32(w, D, off, rng));
    RNG_GEN_END(D);
    return NCL_OK;
}

NCL_KINLINE NclStatus rng_k_int_w16(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                    const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    RNG_INT_LOOP(uint16_t, rng_run_u16(w, D, b, off, rng, d_, c_),
                 rng_bounded_u16(w, D, b, off, rng));
    RNG_GEN_END(D);
    return NCL_OK;
}

NCL_KINLINE NclStatus rng_k_int_w8(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                   const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    RNG_INT_LOOP(uint8_t, rng_run_u8(w, D, b, off, rng, (uint8_t *)d_, c_),
                 rng_bounded_u8(w, D, b, off, rng));
    RNG_GEN_END(D);
    return NCL_OK;
}

NCL_KINLINE NclStatus rng_k_int_bool(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                     const int64_t *steps, const rng_draws D)
{
    RNG_GEN_BEGIN(D, ctx);
    RNG_INT_LOOP(uint8_t, rng_run_bool(w, D, b, off, rng, (uint8_t *)d_, c_),
                 rng_bounded_bool(w, D, b, off, rng));
    RNG_GEN_END(D);
    return NCL_OK;
}

/* ---- gamma, beta, Poisson, binomial, shuffle ------------------------------------------- */

/* Written over this file's draws and loop macros (see each header). */
#include "rng/rng_gamma.h"
#include "rng/rng_discrete.h"

/* ---- stamping and the table ------------------------------------------------------------ */

/* Every kernel of generator (value, prefix):
   X(value, prefix, op, name, implementation, nargs, sig...). */
#define RNG_KERNEL_LIST(X, v, p)                                                            \
    X(v, p, NCL_RNG_RAW, raw_u64, rng_k_raw, 1, NCL_UINT64)                                 \
    X(v, p, NCL_RNG_RANDOM, random_f64, rng_k_random_f64, 1, NCL_FLOAT64)                   \
    X(v, p, NCL_RNG_RANDOM, random_f32, rng_k_random_f32, 1, NCL_FLOAT32)                   \
    X(v, p, NCL_RNG_INTEGERS, integers_i8, rng_k_int_w8, 3, NCL_INT64, NCL_INT64, NCL_INT8) \
    X(v, p, NCL_RNG_INTEGERS, integers_i16, rng_k_int_w16, 3, NCL_INT64, NCL_INT64,         \
      NCL_INT16)                                                                            \
    X(v, p, NCL_RNG_INTEGERS, integers_i32, rng_k_int_w32, 3, NCL_INT64, NCL_INT64,         \
      NCL_INT32)                                                                            \
    X(v, p, NCL_RNG_INTEGERS, integers_i64, rng_k_int_w64, 3, NCL_INT64, NCL_INT64,         \
      NCL_INT64)                                                                            \
    X(v, p, NCL_RNG_INTEGERS, integers_u8, rng_k_int_w8, 3, NCL_UINT64, NCL_UINT64,         \
      NCL_UINT8)                                                                            \
    X(v, p, NCL_RNG_INTEGERS, integers_u16, rng_k_int_w16, 3, NCL_UINT64, NCL_UINT64,       \
      NCL_UINT16)                                                                           \
    X(v, p, NCL_RNG_INTEGERS, integers_u32, rng_k_int_w32, 3, NCL_UINT64, NCL_UINT64,       \
      NCL_UINT32)                                                                           \
    X(v, p, NCL_RNG_INTEGERS, integers_u64, rng_k_int_w64, 3, NCL_UINT64, NCL_UINT64,       \
      NCL_UINT64)                                                                           \
    X(v, p, NCL_RNG_INTEGERS, integers_b, rng_k_int_bool, 3, NCL_INT64, NCL_INT64, NCL_BOOL) \
    X(v, p, NCL_RNG_UNIFORM, uniform_f64, rng_k_uniform, 3, NCL_FLOAT64, NCL_FLOAT64,       \
      NCL_FLOAT64)                                                                          \
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

#define RNG_KERNEL_(value, prefix, op, name, impl, nargs, ...)                              \
    static NclStatus ncl_k_rng_##name##_##prefix(NclKernelNode *self, const NclKernelCtx *ctx, \
                                                 char *const *args, int64_t n,             \
                                                 const int64_t *steps)                     \
    {                                                                                       \
        (void)self;                                                                         \
        return impl(ctx, args, n, steps, RNG_DRAWS(value, prefix));                         \
    }
#define RNG_KERNELS_(value, prefix) RNG_KERNEL_LIST(RNG_KERNEL_, value, prefix)
NCL_RNG_BITGEN_LIST(RNG_KERNELS_)

#define RNG_ENTRY_(value, prefix, op, name, impl, nargs, ...)                               \
    {NCL_SUBSYSTEM_RNG, nargs, NCL_RNG_KERNEL_OP(op, value), {__VA_ARGS__},                 \
     ncl_k_rng_##name##_##prefix, "ncl_k_rng_" #name "_" #prefix},
#define RNG_ENTRIES_(value, prefix) RNG_KERNEL_LIST(RNG_ENTRY_, value, prefix)

const ncl_kernel_entry ncl_k_rng_table[] = {NCL_RNG_BITGEN_LIST(RNG_ENTRIES_)};
const size_t ncl_k_rng_count = sizeof ncl_k_rng_table / sizeof ncl_k_rng_table[0];
