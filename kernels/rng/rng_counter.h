/*
 * rng_counter.h: the bulk draws of Philox4x32, the counter-based generator
 * (NCL_BITGEN_PHILOX4X32), for the ops that take a fixed number of its
 * 32-bit words per value: RAW (two words a uint64), RANDOM float64 (two)
 * and float32 (one), UNIFORM (two), into a contiguous output. Included by
 * rng_dists.c only, whose kernels for those ops and that generator call
 * rc_kernel; every other case (strided outputs, parameter arrays, the other
 * distributions) draws word by word through rng_state.h.
 *
 * Word j of the stream is lane j % 4 of Philox4x32-10(key, j / 4), so a run
 * of values is made in batches: the blocks a batch's words come from are
 * computed many at a time into an L1 buffer of words in stream order, then
 * turned into values from the word the generator is at, whatever its lane
 * (a float64 after an odd number of float32 reads its two words across two
 * blocks). AVX-512 computes eight blocks a vector: each 64-bit lane holds
 * one block's 32-bit word, so _mm512_mul_epu32 gives a round's 32x32->64
 * products whole, and the round is two multiplies, two shifts and two
 * three-way xors (vpternlogq with the round key) for eight blocks; two such
 * sets run interleaved, since a round's chain of dependent operations is
 * longer than its work. A word's upper 32 bits carry junk from the
 * products, which no multiply reads and the final permutes drop. AVX2
 * does four blocks a vector the same way. Blocks whose counters carry out
 * of the low 32-bit word within a group, short runs and builds without
 * these ISAs compute a block at a time (ncl_philox4x32_block).
 *
 * Every path gives the same words, and values are made from them with
 * exact operations only (a 53-bit or 24-bit integer converted to floating
 * point, a power-of-two scale), as rng_state.h's draws do; UNIFORM is
 * low + range * u, a multiply and an add (-ffp-contract=off, no FMA), as
 * the element loop computes it. So every variant gives the portable bits.
 * The vector conversions read the word buffer as 64-bit integers, which is
 * the stream's order on a little-endian machine only: they are x86 code;
 * the portable conversion assembles each value from its words.
 */
#ifndef NCL_RNG_COUNTER_H
#define NCL_RNG_COUNTER_H

#include "ncl_kernel.h"
#include "rng/rng_state.h"

#if defined(__AVX512F__) && defined(__AVX512DQ__) && (defined(__GNUC__) || defined(__clang__))
#  include <immintrin.h>
#  define RC_AVX512 1
#  define RC_GROUP 16 /* blocks a vector step computes */
#elif defined(__AVX2__) && (defined(__GNUC__) || defined(__clang__))
#  include <immintrin.h>
#  define RC_AVX2 1
#  define RC_GROUP 8
#endif

/* Blocks a batch computes: 256 words, 1 KiB, one ncl_ostream block of
   float64 or float32 values. */
#define RC_BLOCKS 64

/* What a kernel makes of the words. */
enum { RC_RAW, RC_F64, RC_F32, RC_UNIFORM };

/* The generator's position and key while a kernel runs, and the round
   keys the vector code broadcasts. */
typedef struct rc_state {
    ncl_u128 ctr;  /* the block of the next word */
    unsigned lane; /* its lane, 0..3 */
    uint32_t key[2];
#if defined(RC_AVX512)
    __m512i rk[2][10];
#elif defined(RC_AVX2)
    __m256i rk[2][10];
#endif
} rc_state;

NCL_KINLINE void rc_begin(rc_state *s, const NclRngGen *g)
{
    s->ctr = g->s.p32.ctr;
    s->lane = (unsigned)g->s.p32.lane;
    s->key[0] = g->s.p32.key[0];
    s->key[1] = g->s.p32.key[1];
#if defined(RC_AVX512) || defined(RC_AVX2)
    for (int r = 0; r < 10; r++) {
        const uint32_t k0 = s->key[0] + (uint32_t)r * NCL_P32_W0, k1 = s->key[1] + (uint32_t)r * NCL_P32_W1;
#  if defined(RC_AVX512)
        s->rk[0][r] = _mm512_set1_epi64((long long)k0);
        s->rk[1][r] = _mm512_set1_epi64((long long)k1);
#  else
        s->rk[0][r] = _mm256_set1_epi64x((long long)k0);
        s->rk[1][r] = _mm256_set1_epi64x((long long)k1);
#  endif
    }
#endif
}

/* The generator where the kernel left off; a lane past 0 reads the block
   it is in, which the generator keeps. */
NCL_KINLINE void rc_end(const rc_state *s, NclRngGen *g)
{
    g->s.p32.ctr = s->ctr;
    g->s.p32.lane = (int)s->lane;
    if (s->lane) ncl_philox4x32_block(s->ctr, s->key, g->s.p32.buf);
}

#if defined(RC_AVX512)
/* The words of the 16 blocks base .. base + 15 (no carry out of the
   counter's low word among them) into wb[0..64). */
NCL_KINLINE void rc_group(const rc_state *s, ncl_u128 base, uint32_t *wb)
{
    const __m512i m0 = _mm512_set1_epi64(NCL_P32_M0), m1 = _mm512_set1_epi64(NCL_P32_M1);
    __m512i a0 = _mm512_add_epi64(_mm512_set1_epi64((long long)(uint32_t)base),
                                  _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
    __m512i b0 = _mm512_add_epi64(a0, _mm512_set1_epi64(8));
    __m512i a1 = _mm512_set1_epi64((long long)(uint32_t)(base >> 32)), b1 = a1;
    __m512i a2 = _mm512_set1_epi64((long long)(uint32_t)(base >> 64)), b2 = a2;
    __m512i a3 = _mm512_set1_epi64((long long)(uint32_t)(base >> 96)), b3 = a3;
    for (int r = 0; r < 10; r++) {
        const __m512i pa0 = _mm512_mul_epu32(a0, m0), pa1 = _mm512_mul_epu32(a2, m1);
        const __m512i pb0 = _mm512_mul_epu32(b0, m0), pb1 = _mm512_mul_epu32(b2, m1);
        a0 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(pa1, 32), a1, s->rk[0][r], 0x96);
        a2 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(pa0, 32), a3, s->rk[1][r], 0x96);
        b0 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(pb1, 32), b1, s->rk[0][r], 0x96);
        b2 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(pb0, 32), b3, s->rk[1][r], 0x96);
        a1 = pa1;
        a3 = pa0;
        b1 = pb1;
        b3 = pb0;
    }
    /* words 0 and 1 of each block side by side, 2 and 3 likewise, then
       the pairs in block order */
    const __m512i pairs = _mm512_set_epi32(30, 14, 28, 12, 26, 10, 24, 8, 22, 6, 20, 4, 18, 2, 16, 0);
    const __m512i lo4 = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
    const __m512i hi4 = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
    const __m512i a01 = _mm512_permutex2var_epi32(a0, pairs, a1), a23 = _mm512_permutex2var_epi32(a2, pairs, a3);
    const __m512i b01 = _mm512_permutex2var_epi32(b0, pairs, b1), b23 = _mm512_permutex2var_epi32(b2, pairs, b3);
    _mm512_store_si512((void *)wb, _mm512_permutex2var_epi64(a01, lo4, a23));
    _mm512_store_si512((void *)(wb + 16), _mm512_permutex2var_epi64(a01, hi4, a23));
    _mm512_store_si512((void *)(wb + 32), _mm512_permutex2var_epi64(b01, lo4, b23));
    _mm512_store_si512((void *)(wb + 48), _mm512_permutex2var_epi64(b01, hi4, b23));
}
#elif defined(RC_AVX2)
/* The words of the 8 blocks base .. base + 7 (no carry out of the
   counter's low word among them) into wb[0..32). */
NCL_KINLINE void rc_group(const rc_state *s, ncl_u128 base, uint32_t *wb)
{
    const __m256i m0 = _mm256_set1_epi64x(NCL_P32_M0), m1 = _mm256_set1_epi64x(NCL_P32_M1);
    __m256i a0 = _mm256_add_epi64(_mm256_set1_epi64x((long long)(uint32_t)base), _mm256_set_epi64x(3, 2, 1, 0));
    __m256i b0 = _mm256_add_epi64(a0, _mm256_set1_epi64x(4));
    __m256i a1 = _mm256_set1_epi64x((long long)(uint32_t)(base >> 32)), b1 = a1;
    __m256i a2 = _mm256_set1_epi64x((long long)(uint32_t)(base >> 64)), b2 = a2;
    __m256i a3 = _mm256_set1_epi64x((long long)(uint32_t)(base >> 96)), b3 = a3;
    for (int r = 0; r < 10; r++) {
        const __m256i pa0 = _mm256_mul_epu32(a0, m0), pa1 = _mm256_mul_epu32(a2, m1);
        const __m256i pb0 = _mm256_mul_epu32(b0, m0), pb1 = _mm256_mul_epu32(b2, m1);
        a0 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(pa1, 32), a1), s->rk[0][r]);
        a2 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(pa0, 32), a3), s->rk[1][r]);
        b0 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(pb1, 32), b1), s->rk[0][r]);
        b2 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(pb0, 32), b3), s->rk[1][r]);
        a1 = pa1;
        a3 = pa0;
        b1 = pb1;
        b3 = pb0;
    }
    /* words 0 and 1 of each block in one 64-bit lane, 2 and 3 likewise;
       then the lanes in block order */
#  define RC_AVX2_OUT_(c0, c1, c2, c3, dst)                                                     \
    do {                                                                                      \
        const __m256i p01 = _mm256_blend_epi32(c0, _mm256_slli_epi64(c1, 32), 0xAA);           \
        const __m256i p23 = _mm256_blend_epi32(c2, _mm256_slli_epi64(c3, 32), 0xAA);           \
        const __m256i l = _mm256_unpacklo_epi64(p01, p23), h = _mm256_unpackhi_epi64(p01, p23); \
        _mm256_store_si256((__m256i *)(void *)(dst), _mm256_permute2x128_si256(l, h, 0x20));  \
        _mm256_store_si256((__m256i *)(void *)((dst) + 8), _mm256_permute2x128_si256(l, h, 0x31)); \
    } while (0)
    RC_AVX2_OUT_(a0, a1, a2, a3, wb);
    RC_AVX2_OUT_(b0, b1, b2, b3, wb + 16);
#  undef RC_AVX2_OUT_
}
#endif

/* The words of the nb blocks from s->ctr on into wb (wb holds RC_BLOCKS
   blocks): whole vector groups where their counters do not carry out of
   the low word, the rest a block at a time. */
NCL_KINLINE void rc_blocks(const rc_state *s, uint32_t *wb, int nb)
{
    int b = 0;
#if defined(RC_GROUP)
    for (; b + RC_GROUP <= nb; b += RC_GROUP) {
        const ncl_u128 base = s->ctr + (ncl_u128)b;
        if ((uint32_t)base <= UINT32_MAX - (RC_GROUP - 1))
            rc_group(s, base, wb + 4 * b);
        else
            for (int k = 0; k < RC_GROUP; k++) ncl_philox4x32_block(base + (ncl_u128)k, s->key, wb + 4 * (b + k));
    }
#endif
    for (; b < nb; b++) ncl_philox4x32_block(s->ctr + (ncl_u128)b, s->key, wb + 4 * b);
}

/* Value i of a conversion from the words at w: the scalar path, and the
   tails of the vector ones. */
NCL_KINLINE uint64_t rc_u64(const uint32_t *w, int64_t i)
{
    return (uint64_t)w[2 * i] | (uint64_t)w[2 * i + 1] << 32;
}

/* k values of kind `what` from the words at w (two a value, one for
   RC_F32) to d, unaligned. */
NCL_KINLINE void rc_convert(int what, const uint32_t *w, char *d, int64_t k, double A, double R)
{
    int64_t i = 0;
    switch (what) {
    case RC_RAW:
#if defined(RC_AVX512)
        for (; i + 8 <= k; i += 8)
            _mm512_storeu_si512((void *)(d + 8 * i), _mm512_loadu_si512((const void *)(w + 2 * i)));
#elif defined(RC_AVX2)
        for (; i + 4 <= k; i += 4)
            _mm256_storeu_si256((__m256i *)(void *)(d + 8 * i),
                                _mm256_loadu_si256((const __m256i *)(const void *)(w + 2 * i)));
#endif
        for (; i < k; i++) ncl_store_uint64_t(d + 8 * i, rc_u64(w, i));
        break;
    case RC_F32: {
#if defined(RC_AVX512)
        const __m512 sc = _mm512_set1_ps(1.0f / 16777216.0f);
        for (; i + 16 <= k; i += 16) {
            const __m512i x = _mm512_srli_epi32(_mm512_loadu_si512((const void *)(w + i)), 8);
            _mm512_storeu_ps((void *)(d + 4 * i), _mm512_mul_ps(_mm512_cvtepi32_ps(x), sc));
        }
#elif defined(RC_AVX2)
        const __m256 sc = _mm256_set1_ps(1.0f / 16777216.0f);
        for (; i + 8 <= k; i += 8) {
            const __m256i x = _mm256_srli_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(w + i)), 8);
            _mm256_storeu_ps((float *)(void *)(d + 4 * i), _mm256_mul_ps(_mm256_cvtepi32_ps(x), sc));
        }
#endif
        for (; i < k; i++) ncl_store_float(d + 4 * i, (float)(w[i] >> 8) * (1.0f / 16777216.0f));
        break;
    }
    default: { /* RC_F64, RC_UNIFORM: u = (u64 >> 11) * 2^-53, then low + range * u */
        const int uni = what == RC_UNIFORM;
#if defined(RC_AVX512)
        const __m512d sc = _mm512_set1_pd(1.0 / 9007199254740992.0), va = _mm512_set1_pd(A),
                      vr = _mm512_set1_pd(R);
        for (; i + 8 <= k; i += 8) {
            const __m512i x = _mm512_srli_epi64(_mm512_loadu_si512((const void *)(w + 2 * i)), 11);
            __m512d u = _mm512_mul_pd(_mm512_cvtepu64_pd(x), sc);
            if (uni) u = _mm512_add_pd(va, _mm512_mul_pd(vr, u));
            _mm512_storeu_pd((void *)(d + 8 * i), u);
        }
#elif defined(RC_AVX2)
        /* a 53-bit integer v to double exactly: its high 21 bits as
           2^84 + hi 2^32 and its low 32 as 2^52 + lo, both by putting the
           exponent above them, then (that - (2^84 + 2^52)) + that (each
           step exact: every partial result is an integer below 2^53 or a
           multiple of 2^32 below 2^85) */
        const __m256d sc = _mm256_set1_pd(1.0 / 9007199254740992.0), va = _mm256_set1_pd(A),
                      vr = _mm256_set1_pd(R), big = _mm256_set1_pd(0x1.00000001p84); /* 2^84 + 2^52 */
        const __m256i e84 = _mm256_set1_epi64x(0x4530000000000000LL), e52 = _mm256_set1_epi64x(0x4330000000000000LL);
        for (; i + 4 <= k; i += 4) {
            const __m256i v = _mm256_srli_epi64(_mm256_loadu_si256((const __m256i *)(const void *)(w + 2 * i)), 11);
            const __m256d hi = _mm256_castsi256_pd(_mm256_or_si256(_mm256_srli_epi64(v, 32), e84));
            const __m256d lo = _mm256_castsi256_pd(_mm256_blend_epi32(v, e52, 0xAA));
            __m256d u = _mm256_mul_pd(_mm256_add_pd(_mm256_sub_pd(hi, big), lo), sc);
            if (uni) u = _mm256_add_pd(va, _mm256_mul_pd(vr, u));
            _mm256_storeu_pd((double *)(void *)(d + 8 * i), u);
        }
#endif
        for (; i < k; i++) {
            const double u = (double)(rc_u64(w, i) >> 11) * (1.0 / 9007199254740992.0);
            ncl_store_double(d + 8 * i, uni ? A + R * u : u);
        }
        break;
    }
    }
    (void)A;
    (void)R;
}

/* cnt values of kind `what` to the contiguous d, from the position in s,
   which moves past the words they took. */
NCL_KINLINE void rc_fill(rc_state *s, int what, char *d, int64_t cnt, double A, double R)
{
    _Alignas(64) uint32_t wb[4 * RC_BLOCKS];
    const unsigned wpv = what == RC_F32 ? 1 : 2;   /* words a value */
    const int64_t size = what == RC_F32 ? 4 : 8;
    while (cnt > 0) {
        const int64_t want = (int64_t)s->lane + cnt * (int64_t)wpv; /* words from the block's start */
        const int nb = want >= 4 * RC_BLOCKS ? RC_BLOCKS : (int)((want + 3) / 4);
        rc_blocks(s, wb, nb);
        int64_t k = (4 * (int64_t)nb - (int64_t)s->lane) / (int64_t)wpv;
        if (k > cnt) k = cnt;
        rc_convert(what, wb + s->lane, d, k, A, R);
        d += k * size;
        cnt -= k;
        const uint64_t used = s->lane + (uint64_t)k * wpv; /* words from the first block's start */
        s->ctr += (ncl_u128)(used >> 2);
        s->lane = (unsigned)(used & 3);
    }
}

/* The kernel of op `what` for a call whose output is contiguous (UNIFORM:
   with scalar bounds): draws it whole and returns 1; 0 leaves the call to
   the element loop. The output goes through ncl_ostream (streamed when
   large), a segment at a time. */
NCL_KINLINE int rc_kernel(const NclKernelCtx *ctx, char *const *args, int64_t n, const int64_t *steps,
                          int what)
{
    const int uni = what == RC_UNIFORM;
    const int64_t size = what == RC_F32 ? 4 : 8;
    if (uni ? steps[0] != 0 || steps[1] != 0 || steps[2] != size : steps[0] != size) return 0;
    NclRngGen *const g = ((const NclRngKernelAux *)ctx->aux)->gen;
    double A = 0, R = 0;
    if (uni) {
        A = ncl_load_double(args[0]);
        R = ncl_load_double(args[1]) - A;
    }
    rc_state s;
    rc_begin(&s, g);
    NCL_OSTREAM(out_);
    for (ncl_ostream_begin(&out_, ctx, args[uni ? 2 : 0], n, size); ncl_ostream_next(&out_);)
        rc_fill(&s, what, out_.dst, out_.cnt, A, R);
    rc_end(&s, g);
    return 1;
}

#endif /* NCL_RNG_COUNTER_H */
