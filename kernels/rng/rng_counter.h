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
 * of values starting at a block's first word is made a group of blocks at
 * a time, from the registers the blocks are computed in straight to the
 * values; a run starting mid-block (a float64 after an odd number of
 * float32 reads its two words across two blocks) goes through an L1
 * buffer of words to the next block start, or all the way when it never
 * reaches one. AVX-512 computes eight blocks a vector: each 64-bit lane
 * holds one block's 32-bit word, so _mm512_mul_epu32 gives a round's
 * 32x32->64 products whole, and the round is two multiplies, two shifts
 * and two three-way xors (vpternlogq with the round key) for eight blocks;
 * two such sets run interleaved. A word's upper 32 bits carry junk from
 * the products, which no multiply reads and the final blends drop; the
 * blocks are given to lanes in the order that lets two in-lane unpacks
 * put their words in stream order. AVX2 does four blocks a vector the same
 * way. Blocks whose counters carry out of the low 32-bit word within a
 * group, short runs and builds without these ISAs compute a block at a
 * time (ncl_philox4x32_block).
 *
 * The multiplies bound it: 20 products a block, 10 a float64. On the Zen 4
 * this was measured on (2 vCPUs), the rounds alone take 0.70-0.75 ns a
 * float64's words, a group with its output 0.77-0.87, and float64 values
 * into an L2-sized output 0.93 ns each on one core (AVX2: 1.5 ns); going
 * through the word buffer for every run, as the first version did, cost
 * 1.1 ns (the conversion did not overlap the multiplies).
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

/* ---- values from words --------------------------------------------------------------- */

/* Value i of kind `what` made from the words at w (two a value, the
   first the low half; one for RC_F32), stored at d: the portable path,
   and the tails of the vector ones. */
NCL_KINLINE void rc_value(int what, const uint32_t *w, int64_t i, char *d, double A, double R)
{
    if (what == RC_F32) {
        ncl_store_float(d + 4 * i, (float)(w[i] >> 8) * (1.0f / 16777216.0f));
        return;
    }
    const uint64_t x = (uint64_t)w[2 * i] | (uint64_t)w[2 * i + 1] << 32;
    if (what == RC_RAW) {
        ncl_store_uint64_t(d + 8 * i, x);
        return;
    }
    const double u = (double)(x >> 11) * (1.0 / 9007199254740992.0);
    ncl_store_double(d + 8 * i, what == RC_UNIFORM ? A + R * u : u);
}

#if defined(RC_AVX512)
#  define RC_VBYTES 64
/* The values of the 16 words x (stream order: 8 of two words, 16
   float32) at d, unaligned. */
NCL_KINLINE void rc_emit(int what, __m512i x, char *d, double A, double R)
{
    switch (what) {
    case RC_RAW: _mm512_storeu_si512((void *)d, x); break;
    case RC_F32:
        _mm512_storeu_ps((void *)d, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_srli_epi32(x, 8)),
                                                  _mm512_set1_ps(1.0f / 16777216.0f)));
        break;
    default: {
        __m512d u = _mm512_mul_pd(_mm512_cvtepu64_pd(_mm512_srli_epi64(x, 11)),
                                  _mm512_set1_pd(1.0 / 9007199254740992.0));
        if (what == RC_UNIFORM) u = _mm512_add_pd(_mm512_set1_pd(A), _mm512_mul_pd(_mm512_set1_pd(R), u));
        _mm512_storeu_pd((void *)d, u);
        break;
    }
    }
}
NCL_KINLINE __m512i rc_load(const uint32_t *w) { return _mm512_loadu_si512((const void *)w); }

/* The 16 blocks base .. base + 15 (no carry out of the counter's low word
   among them), as values of kind `what` at d: 64 words, 4 vectors. */
NCL_KINLINE void rc_group(const rc_state *s, ncl_u128 base, int what, char *d, double A, double R)
{
    const __m512i m0 = _mm512_set1_epi64(NCL_P32_M0), m1 = _mm512_set1_epi64(NCL_P32_M1);
    /* lane i holds block i / 2 for even i, 4 + i / 2 for odd: then the
       in-lane unpacks at the end put the blocks in order */
    __m512i a0 = _mm512_add_epi64(_mm512_set1_epi64((long long)(uint32_t)base),
                                  _mm512_set_epi64(7, 3, 6, 2, 5, 1, 4, 0));
    __m512i b0 = _mm512_add_epi64(a0, _mm512_set1_epi64(8));
    __m512i a1 = _mm512_set1_epi64((long long)(uint32_t)(base >> 32)), b1 = a1;
    __m512i a2 = _mm512_set1_epi64((long long)(uint32_t)(base >> 64)), b2 = a2;
    __m512i a3 = _mm512_set1_epi64((long long)(uint32_t)(base >> 96)), b3 = a3;
    /* unrolled: rolled, the loop moved the four words between registers
       each round (0.95 instead of 0.75 ns a float64's words) */
#  pragma GCC unroll 10
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
    /* words 0 and 1 of each block in one 64-bit lane, 2 and 3 likewise;
       unpacking the two puts lanes 0, 2, 4, 6 (blocks 0-3) in the low
       vector and lanes 1, 3, 5, 7 (blocks 4-7) in the high one, in order */
    const __mmask16 odd = 0xAAAA;
    const __m512i a01 = _mm512_mask_blend_epi32(odd, a0, _mm512_slli_epi64(a1, 32));
    const __m512i a23 = _mm512_mask_blend_epi32(odd, a2, _mm512_slli_epi64(a3, 32));
    const __m512i b01 = _mm512_mask_blend_epi32(odd, b0, _mm512_slli_epi64(b1, 32));
    const __m512i b23 = _mm512_mask_blend_epi32(odd, b2, _mm512_slli_epi64(b3, 32));
    rc_emit(what, _mm512_unpacklo_epi64(a01, a23), d, A, R);
    rc_emit(what, _mm512_unpackhi_epi64(a01, a23), d + 64, A, R);
    rc_emit(what, _mm512_unpacklo_epi64(b01, b23), d + 128, A, R);
    rc_emit(what, _mm512_unpackhi_epi64(b01, b23), d + 192, A, R);
}
#elif defined(RC_AVX2)
#  define RC_VBYTES 32
/* The values of the 8 words x (stream order: 4 of two words, 8 float32)
   at d, unaligned. A 53-bit integer v becomes a double exactly without
   AVX-512's conversion: its high 21 bits as 2^84 + hi 2^32 and its low 32
   as 2^52 + lo, both by putting an exponent above them, then (that -
   (2^84 + 2^52)) + that, each step exact (every partial result is an
   integer below 2^53 or a multiple of 2^32 below 2^85). */
NCL_KINLINE void rc_emit(int what, __m256i x, char *d, double A, double R)
{
    switch (what) {
    case RC_RAW: _mm256_storeu_si256((__m256i *)(void *)d, x); break;
    case RC_F32:
        _mm256_storeu_ps((float *)(void *)d, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(x, 8)),
                                                           _mm256_set1_ps(1.0f / 16777216.0f)));
        break;
    default: {
        const __m256i v = _mm256_srli_epi64(x, 11);
        const __m256d hi = _mm256_castsi256_pd(
            _mm256_or_si256(_mm256_srli_epi64(v, 32), _mm256_set1_epi64x(0x4530000000000000LL)));
        const __m256d lo = _mm256_castsi256_pd(_mm256_blend_epi32(v, _mm256_set1_epi64x(0x4330000000000000LL), 0xAA));
        __m256d u = _mm256_mul_pd(_mm256_add_pd(_mm256_sub_pd(hi, _mm256_set1_pd(0x1.00000001p84)), lo),
                                  _mm256_set1_pd(1.0 / 9007199254740992.0));
        if (what == RC_UNIFORM) u = _mm256_add_pd(_mm256_set1_pd(A), _mm256_mul_pd(_mm256_set1_pd(R), u));
        _mm256_storeu_pd((double *)(void *)d, u);
        break;
    }
    }
}
NCL_KINLINE __m256i rc_load(const uint32_t *w) { return _mm256_loadu_si256((const __m256i *)(const void *)w); }

/* The 8 blocks base .. base + 7 (no carry out of the counter's low word
   among them), as values of kind `what` at d: 32 words, 4 vectors. */
NCL_KINLINE void rc_group(const rc_state *s, ncl_u128 base, int what, char *d, double A, double R)
{
    const __m256i m0 = _mm256_set1_epi64x(NCL_P32_M0), m1 = _mm256_set1_epi64x(NCL_P32_M1);
    /* lanes 0-3 hold blocks 0, 2, 1, 3: the in-lane unpacks at the end put
       them in order */
    __m256i a0 = _mm256_add_epi64(_mm256_set1_epi64x((long long)(uint32_t)base), _mm256_set_epi64x(3, 1, 2, 0));
    __m256i b0 = _mm256_add_epi64(a0, _mm256_set1_epi64x(4));
    __m256i a1 = _mm256_set1_epi64x((long long)(uint32_t)(base >> 32)), b1 = a1;
    __m256i a2 = _mm256_set1_epi64x((long long)(uint32_t)(base >> 64)), b2 = a2;
    __m256i a3 = _mm256_set1_epi64x((long long)(uint32_t)(base >> 96)), b3 = a3;
#  pragma GCC unroll 10
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
       unpacking the two gives blocks 0-1 and 2-3 in order */
    const __m256i a01 = _mm256_blend_epi32(a0, _mm256_slli_epi64(a1, 32), 0xAA);
    const __m256i a23 = _mm256_blend_epi32(a2, _mm256_slli_epi64(a3, 32), 0xAA);
    const __m256i b01 = _mm256_blend_epi32(b0, _mm256_slli_epi64(b1, 32), 0xAA);
    const __m256i b23 = _mm256_blend_epi32(b2, _mm256_slli_epi64(b3, 32), 0xAA);
    rc_emit(what, _mm256_unpacklo_epi64(a01, a23), d, A, R);
    rc_emit(what, _mm256_unpackhi_epi64(a01, a23), d + 32, A, R);
    rc_emit(what, _mm256_unpacklo_epi64(b01, b23), d + 64, A, R);
    rc_emit(what, _mm256_unpackhi_epi64(b01, b23), d + 96, A, R);
}
#endif

/* ---- runs of values ------------------------------------------------------------------- */

/* The words of the nb blocks from s->ctr on into wb (room for RC_BLOCKS
   blocks): whole vector groups where their counters do not carry out of
   the low word, the rest a block at a time. */
NCL_KINLINE void rc_blocks(const rc_state *s, uint32_t *wb, int nb)
{
    int b = 0;
#if defined(RC_GROUP)
    for (; b + RC_GROUP <= nb; b += RC_GROUP) {
        const ncl_u128 base = s->ctr + (ncl_u128)b;
        if ((uint32_t)base <= UINT32_MAX - (RC_GROUP - 1))
            rc_group(s, base, RC_RAW, (char *)(wb + 4 * b), 0, 0);
        else
            for (int k = 0; k < RC_GROUP; k++) ncl_philox4x32_block(base + (ncl_u128)k, s->key, wb + 4 * (b + k));
    }
#endif
    for (; b < nb; b++) ncl_philox4x32_block(s->ctr + (ncl_u128)b, s->key, wb + 4 * b);
}

/* k values of kind `what` from the words at w to d. */
NCL_KINLINE void rc_convert(int what, const uint32_t *w, char *d, int64_t k, double A, double R)
{
    int64_t i = 0;
#if defined(RC_GROUP)
    const int wpv = what == RC_F32 ? 1 : 2, per = RC_VBYTES / 4 / wpv; /* values a vector */
    for (; i + per <= k; i += per) rc_emit(what, rc_load(w + i * wpv), d + i * (4 * wpv), A, R);
#endif
    for (; i < k; i++) rc_value(what, w, i, d, A, R);
}

/* cnt values of kind `what` to the contiguous d, from the position in s,
   which moves past the words they took. Where the position is at a
   block's start, whole groups of blocks go straight from the registers to
   d (converting in the same pass lets the conversion's instructions run
   beside the multiplies); elsewhere, and for the tail, a batch of up to
   RC_BLOCKS blocks goes through an L1 buffer of words, from which values
   are read at any lane: a batch that starts mid-block ends at the first
   block start it can, so the groups take over. */
NCL_KINLINE void rc_fill(rc_state *s, int what, char *d, int64_t cnt, double A, double R)
{
    _Alignas(64) uint32_t wb[4 * RC_BLOCKS];
    const unsigned wpv = what == RC_F32 ? 1 : 2;   /* words a value */
    const int64_t size = what == RC_F32 ? 4 : 8;
    while (cnt > 0) {
#if defined(RC_GROUP)
        if (s->lane == 0) {
            const int64_t per = RC_GROUP * 4 / (int64_t)wpv; /* values a group */
            while (cnt >= per && (uint32_t)s->ctr <= UINT32_MAX - (RC_GROUP - 1)) {
                rc_group(s, s->ctr, what, d, A, R);
                s->ctr += RC_GROUP;
                d += per * size;
                cnt -= per;
            }
            if (cnt == 0) break;
        }
#endif
        int64_t want = (int64_t)s->lane + cnt * (int64_t)wpv; /* words from the block's start */
        /* mid-block, go only to the next block start where one is reached
           (any lane for float32, lane 2 for two-word values) */
        if (s->lane != 0 && (wpv == 1 || s->lane == 2) && want > 4) want = 4;
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
