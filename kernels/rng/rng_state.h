/*
 * rng_state.h: a bit generator's state (struct NclRngGen, opaque in the
 * public header) and the draws every distribution is made of, one inline
 * function per generator, each NumPy 1.24's step for step:
 *
 *   next_u64     one 64-bit word
 *   next_u32     the low half of a fresh word, its high half kept for the
 *                next 32-bit draw (MT19937 and Philox4x32: their own 32-bit
 *                output)
 *   next_double  (u64 >> 11) * 2^-53 (MT19937: two 32-bit words, 53 bits)
 *   next_float   (u32 >> 8) * 2^-24
 *
 * The distributions are written once over these names and stamped out per
 * generator (NCL_RNG_BITGEN_LIST), so no draw goes through a function
 * pointer. Seeding, skipping ahead, jumping and the state blob are in
 * src/defaults/rng_seed.c. Nothing here allocates or fails.
 */
#ifndef NCL_RNG_STATE_H
#define NCL_RNG_STATE_H

#include <stdint.h>
#include "ncl_kernel.h"

#ifndef __SIZEOF_INT128__
#  error "the RNG needs a 128-bit integer type (gcc and clang have one on 64-bit targets)"
#endif
__extension__ typedef unsigned __int128 ncl_u128;
__extension__ typedef __int128 ncl_i128;

#define NCL_RNG_MAGIC UINT64_C(0x4e434c524e4721) /* "NCLRNG!" while alive */
#define NCL_MT_N 624

struct NclRngGen {
    uint64_t magic; /* NCL_RNG_MAGIC while alive, 0 once freed */
    int kind;       /* NclBitGen */
    int has_u32;    /* a buffered upper half is pending (NumPy's has_uint32) */
    uint32_t u32;   /* that half (NumPy's uinteger) */
    union {
        struct { ncl_u128 state, inc; } pcg;                          /* PCG64, PCG64DXSM */
        struct { uint64_t ctr[4], key[2], buf[4]; int pos; } philox; /* pos 4: buffer used up */
        struct { uint64_t a, b, c, w; } sfc;
        struct { uint32_t key[NCL_MT_N]; int pos; } mt;
        /* Philox4x32: the next word is lane `lane` of block `ctr`; buf holds
           that block when lane > 0 (it is computed when lane 0 is drawn) */
        struct { ncl_u128 ctr; uint32_t key[2], buf[4]; int lane; } p32;
    } s;
};

#define NCL_PCG_MULT (((ncl_u128)2549297995355413924ULL << 64) | 4865540595714422341ULL)
#define NCL_PCG_CHEAP_MULT 0xda942042e4dd58b5ULL

NCL_KINLINE uint64_t ncl_rotr64(uint64_t v, unsigned r) { return (v >> (r & 63)) | (v << ((64 - r) & 63)); }
NCL_KINLINE uint64_t ncl_rotl64(uint64_t v, unsigned r) { return (v << (r & 63)) | (v >> ((64 - r) & 63)); }

/* ---- PCG64: step, then XSL-RR of the new state ---- */
NCL_KINLINE uint64_t ncl_pcg64_next_u64(NclRngGen *g)
{
    ncl_u128 s = g->s.pcg.state * NCL_PCG_MULT + g->s.pcg.inc;
    g->s.pcg.state = s;
    uint64_t hi = (uint64_t)(s >> 64), lo = (uint64_t)s;
    return ncl_rotr64(hi ^ lo, (unsigned)(hi >> 58));
}

/* ---- PCG64DXSM: DXSM of the state before the step, cheap multiplier ---- */
NCL_KINLINE uint64_t ncl_pcg64dxsm_next_u64(NclRngGen *g)
{
    ncl_u128 s = g->s.pcg.state;
    uint64_t hi = (uint64_t)(s >> 64), lo = (uint64_t)s | 1;
    g->s.pcg.state = s * NCL_PCG_CHEAP_MULT + g->s.pcg.inc;
    hi ^= hi >> 32;
    hi *= NCL_PCG_CHEAP_MULT;
    hi ^= hi >> 48;
    hi *= lo;
    return hi;
}

/* ---- Philox 4x64-10: the counter is incremented before each block ---- */
NCL_KINLINE void ncl_philox4x64_block(const uint64_t ctr_in[4], const uint64_t key_in[2], uint64_t out[4])
{
    uint64_t c0 = ctr_in[0], c1 = ctr_in[1], c2 = ctr_in[2], c3 = ctr_in[3];
    uint64_t k0 = key_in[0], k1 = key_in[1];
    for (int r = 0; r < 10; r++) {
        if (r) {
            k0 += 0x9E3779B97F4A7C15ULL;
            k1 += 0xBB67AE8584CAA73BULL;
        }
        ncl_u128 p0 = (ncl_u128)0xD2E7470EE14C6C93ULL * c0;
        ncl_u128 p1 = (ncl_u128)0xCA5A826395121157ULL * c2;
        uint64_t hi0 = (uint64_t)(p0 >> 64), lo0 = (uint64_t)p0;
        uint64_t hi1 = (uint64_t)(p1 >> 64), lo1 = (uint64_t)p1;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

NCL_KINLINE void ncl_philox_ctr_inc(uint64_t ctr[4])
{
    for (int i = 0; i < 4; i++)
        if (++ctr[i]) break;
}

NCL_KINLINE uint64_t ncl_philox_next_u64(NclRngGen *g)
{
    if (g->s.philox.pos < 4) return g->s.philox.buf[g->s.philox.pos++];
    ncl_philox_ctr_inc(g->s.philox.ctr);
    ncl_philox4x64_block(g->s.philox.ctr, g->s.philox.key, g->s.philox.buf);
    g->s.philox.pos = 1;
    return g->s.philox.buf[0];
}

/* ---- SFC64 ---- */
NCL_KINLINE uint64_t ncl_sfc64_next_u64(NclRngGen *g)
{
    uint64_t tmp = g->s.sfc.a + g->s.sfc.b + g->s.sfc.w++;
    g->s.sfc.a = g->s.sfc.b ^ (g->s.sfc.b >> 11);
    g->s.sfc.b = g->s.sfc.c + (g->s.sfc.c << 3);
    g->s.sfc.c = ncl_rotl64(g->s.sfc.c, 24) + tmp;
    return tmp;
}

/* ---- MT19937: 32-bit native; a 64-bit word is two outputs, first high ---- */
static inline void ncl_mt19937_regen(NclRngGen *g)
{
    enum { M = 397 };
    uint32_t *k = g->s.mt.key;
    int i = 0;
#define NCL_MT_TWIST_(a, b, c)                                                 \
    do {                                                                       \
        uint32_t y_ = (k[a] & 0x80000000U) | (k[b] & 0x7fffffffU);             \
        k[a] = k[c] ^ (y_ >> 1) ^ ((0U - (y_ & 1U)) & 0x9908b0dfU);           \
    } while (0)
    for (; i < NCL_MT_N - M; i++) NCL_MT_TWIST_(i, i + 1, i + M);
    for (; i < NCL_MT_N - 1; i++) NCL_MT_TWIST_(i, i + 1, i + M - NCL_MT_N);
    NCL_MT_TWIST_(NCL_MT_N - 1, 0, M - 1);
#undef NCL_MT_TWIST_
    g->s.mt.pos = 0;
}

NCL_KINLINE uint32_t ncl_mt19937_next_u32(NclRngGen *g)
{
    if (g->s.mt.pos >= NCL_MT_N) ncl_mt19937_regen(g);
    uint32_t y = g->s.mt.key[g->s.mt.pos++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
}
NCL_KINLINE uint64_t ncl_mt19937_next_u64(NclRngGen *g)
{
    uint64_t hi = ncl_mt19937_next_u32(g);
    return (hi << 32) | ncl_mt19937_next_u32(g);
}
NCL_KINLINE double ncl_mt19937_next_double(NclRngGen *g)
{
    int32_t a = (int32_t)(ncl_mt19937_next_u32(g) >> 5), b = (int32_t)(ncl_mt19937_next_u32(g) >> 6);
    return (a * 67108864.0 + b) / 9007199254740992.0;
}

/* ---- Philox4x32-10 in counter mode: word j is lane j % 4 of block j / 4 ---- */
#define NCL_P32_M0 0xD2511F53U
#define NCL_P32_M1 0xCD9E8D57U
#define NCL_P32_W0 0x9E3779B9U
#define NCL_P32_W1 0xBB67AE85U

/* Random123's philox4x32 with 10 rounds: the round key is the key plus r
   times the Weyl constants; each round multiplies words 0 and 2 into 64-bit
   products, whose high halves are mixed into the other two words. */
NCL_KINLINE void ncl_philox4x32_block(ncl_u128 ctr, const uint32_t key[2], uint32_t out[4])
{
    uint32_t c0 = (uint32_t)ctr, c1 = (uint32_t)(ctr >> 32), c2 = (uint32_t)(ctr >> 64),
             c3 = (uint32_t)(ctr >> 96);
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; r++) {
        if (r) {
            k0 += NCL_P32_W0;
            k1 += NCL_P32_W1;
        }
        const uint64_t p0 = (uint64_t)NCL_P32_M0 * c0, p1 = (uint64_t)NCL_P32_M1 * c2;
        c0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        c1 = (uint32_t)p1;
        c2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c3 = (uint32_t)p0;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

NCL_KINLINE uint32_t ncl_philox4x32_next_u32(NclRngGen *g)
{
    if (g->s.p32.lane == 0) ncl_philox4x32_block(g->s.p32.ctr, g->s.p32.key, g->s.p32.buf);
    const uint32_t w = g->s.p32.buf[g->s.p32.lane];
    if (++g->s.p32.lane == 4) {
        g->s.p32.lane = 0;
        g->s.p32.ctr++;
    }
    return w;
}
/* Two words, the first the low half. */
NCL_KINLINE uint64_t ncl_philox4x32_next_u64(NclRngGen *g)
{
    const uint64_t lo = ncl_philox4x32_next_u32(g);
    return lo | (uint64_t)ncl_philox4x32_next_u32(g) << 32;
}
NCL_KINLINE double ncl_philox4x32_next_double(NclRngGen *g)
{
    return (double)(ncl_philox4x32_next_u64(g) >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- the 32-bit draw and the doubles of the 64-bit generators ---- */
#define NCL_RNG_DEFINE_U64_FAMILY(name)                                       \
    NCL_KINLINE uint32_t ncl_##name##_next_u32(NclRngGen *g)                  \
    {                                                                         \
        if (g->has_u32) {                                                     \
            g->has_u32 = 0;                                                   \
            return g->u32;                                                    \
        }                                                                     \
        uint64_t w = ncl_##name##_next_u64(g);                                \
        g->has_u32 = 1;                                                       \
        g->u32 = (uint32_t)(w >> 32);                                         \
        return (uint32_t)w;                                                   \
    }                                                                         \
    NCL_KINLINE double ncl_##name##_next_double(NclRngGen *g)                 \
    {                                                                         \
        return (double)(ncl_##name##_next_u64(g) >> 11) * (1.0 / 9007199254740992.0); \
    }
NCL_RNG_DEFINE_U64_FAMILY(pcg64)
NCL_RNG_DEFINE_U64_FAMILY(pcg64dxsm)
NCL_RNG_DEFINE_U64_FAMILY(philox)
NCL_RNG_DEFINE_U64_FAMILY(sfc64)
#undef NCL_RNG_DEFINE_U64_FAMILY

#define NCL_RNG_DEFINE_FLOAT(name)                                            \
    NCL_KINLINE float ncl_##name##_next_float(NclRngGen *g)                   \
    {                                                                         \
        return (float)(ncl_##name##_next_u32(g) >> 8) * (1.0f / 16777216.0f); \
    }
NCL_RNG_DEFINE_FLOAT(pcg64)
NCL_RNG_DEFINE_FLOAT(pcg64dxsm)
NCL_RNG_DEFINE_FLOAT(philox)
NCL_RNG_DEFINE_FLOAT(sfc64)
NCL_RNG_DEFINE_FLOAT(mt19937)
NCL_RNG_DEFINE_FLOAT(philox4x32)
#undef NCL_RNG_DEFINE_FLOAT

/* Every generator, X(NclBitGen value, function prefix): a distribution
   kernel is stamped out once per line. */
#define NCL_RNG_BITGEN_LIST(X)            \
    X(NCL_BITGEN_PCG64, pcg64)            \
    X(NCL_BITGEN_PCG64DXSM, pcg64dxsm)    \
    X(NCL_BITGEN_PHILOX, philox)          \
    X(NCL_BITGEN_SFC64, sfc64)            \
    X(NCL_BITGEN_MT19937, mt19937)        \
    X(NCL_BITGEN_PHILOX4X32, philox4x32)

#endif /* NCL_RNG_STATE_H */
