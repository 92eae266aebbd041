/*
 * compare_simd.h: the AVX-512 loop of the contiguous compares between
 * 64-bit operands (float64 with float64, int64 and uint64 in any pairing),
 * included by compare_loops.c after its REL_* relations.
 *
 * Eight compares of eight lanes give 64 mask bits, which become 64 bools in
 * one masked byte move and one store. GCC's own vectorisation of the
 * element loop widens each mask to 64-bit lanes and narrows them back with
 * four permutes and two down-conversions per 64 elements, which made the
 * exact int64-vs-uint64 loops (two compares per vector there) cost up to
 * 1.2x the int64 ones in cache.
 *
 * int64 x against uint64 y compares the mathematical values with one
 * unsigned compare of a clamped x, since a negative x is below every y:
 *   x <  y  is  max(x, -1) + 1 <= y   (0 <= y for negative x; x + 1 fits)
 *   x <= y  is  max(x, 0) <= y
 *   x >  y  is  max(x, 0) > y         (0 > y is false)
 *   x >= y  is  max(x, -1) + 1 > y
 *   x == y  is  ((x ^ y) | (x & 2**63)) == 0.
 * Float compares use the quiet predicates; NaN makes every relation but NE
 * false, as the element loop does. CS_HAVE_SIMD is 1 where this exists.
 */
#ifndef NCL_COMPARE_SIMD_H
#define NCL_COMPARE_SIMD_H

#if defined(__AVX512F__) && defined(__AVX512BW__)
#  include <immintrin.h>
#  define CS_HAVE_SIMD 1

/* Whether the loop below covers the pair (dtypes a, b). */
NCL_KINLINE int cs_covers(int ea, int eb)
{
    const int fa = ea == NCL_FLOAT64, fb = eb == NCL_FLOAT64;
    const int ia = ea == NCL_INT64 || ea == NCL_UINT64, ib = eb == NCL_INT64 || eb == NCL_UINT64;
    return (fa && fb) || (ia && ib);
}

/* int64 x rel uint64 y on eight lanes, as above; ne negates REL_EQ. */
NCL_KINLINE __mmask8 cs_i64_u64(int rel, int ne, __m512i x, __m512i y)
{
    const __m512i m1 = _mm512_set1_epi64(-1);
    switch (rel) {
    case REL_LT:
        return _mm512_cmple_epu64_mask(_mm512_sub_epi64(_mm512_max_epi64(x, m1), m1), y);
    case REL_LE:
        return _mm512_cmple_epu64_mask(_mm512_max_epi64(x, _mm512_setzero_si512()), y);
    case REL_GT:
        return _mm512_cmpgt_epu64_mask(_mm512_max_epi64(x, _mm512_setzero_si512()), y);
    case REL_GE:
        return _mm512_cmpgt_epu64_mask(_mm512_sub_epi64(_mm512_max_epi64(x, m1), m1), y);
    default: {
        const __m512i d = _mm512_or_si512(_mm512_xor_si512(x, y),
                                          _mm512_and_si512(x, _mm512_set1_epi64(INT64_MIN)));
        return ne ? _mm512_test_epi64_mask(d, d) : _mm512_testn_epi64_mask(d, d);
    }
    }
}

/* a[0..8) rel b[0..8) of dtypes ea, eb (covered ones); ne negates REL_EQ. */
NCL_KINLINE __mmask8 cs_mask8(int rel, int ne, int ea, int eb, const char *pa, const char *pb)
{
    if (ea == NCL_FLOAT64) {
        const __m512d x = _mm512_loadu_pd(pa), y = _mm512_loadu_pd(pb);
        switch (rel) {
        case REL_LT: return _mm512_cmp_pd_mask(x, y, _CMP_LT_OQ);
        case REL_LE: return _mm512_cmp_pd_mask(x, y, _CMP_LE_OQ);
        case REL_GT: return _mm512_cmp_pd_mask(x, y, _CMP_GT_OQ);
        case REL_GE: return _mm512_cmp_pd_mask(x, y, _CMP_GE_OQ);
        default:
            return ne ? _mm512_cmp_pd_mask(x, y, _CMP_NEQ_UQ) : _mm512_cmp_pd_mask(x, y, _CMP_EQ_OQ);
        }
    }
    const __m512i x = _mm512_loadu_si512(pa), y = _mm512_loadu_si512(pb);
    if (ea == NCL_INT64 && eb == NCL_UINT64) return cs_i64_u64(rel, ne, x, y);
    if (ea == NCL_UINT64 && eb == NCL_INT64) return cs_i64_u64(rel_mirror(rel), ne, y, x);
    /* the predicates must be literal constants (clang) */
#  define CS_INT_REL_(S)                                                  \
        switch (rel) {                                                    \
        case REL_LT: return _mm512_cmplt_##S##_mask(x, y);                \
        case REL_LE: return _mm512_cmple_##S##_mask(x, y);                \
        case REL_GT: return _mm512_cmpgt_##S##_mask(x, y);                \
        case REL_GE: return _mm512_cmpge_##S##_mask(x, y);                \
        default:                                                          \
            return ne ? _mm512_cmpneq_##S##_mask(x, y) : _mm512_cmpeq_##S##_mask(x, y); \
        }
    if (ea == NCL_INT64) { CS_INT_REL_(epi64) }
    CS_INT_REL_(epu64)
#  undef CS_INT_REL_
}

/* a[0..64) rel b[0..64) as 64 bools. */
NCL_KINLINE __m512i cs_bools64(int rel, int ne, int ea, int eb, const char *a, const char *b)
{
    __mmask8 m[8];
    for (int j = 0; j < 8; j++)
        m[j] = cs_mask8(rel, ne, ea, eb, a + 64 * j, b + 64 * j);
    const __mmask32 lo =
        _mm512_kunpackw(_mm512_kunpackb(m[3], m[2]), _mm512_kunpackb(m[1], m[0]));
    const __mmask32 hi =
        _mm512_kunpackw(_mm512_kunpackb(m[7], m[6]), _mm512_kunpackb(m[5], m[4]));
    return _mm512_maskz_mov_epi8(_mm512_kunpackd(hi, lo), _mm512_set1_epi8(1));
}

/* The first results of a rel b (contiguous 8-byte elements, bool output)
   into o, all but fewer than 64; returns how many it wrote. An output of at
   the size ncl_stream_pays (ncl_kernel.h) is stored from its first 64-byte
   boundary on with non-temporal stores, so its lines are not read for
   ownership; the head before that boundary takes the masked part of one
   plain group (its other compares are done again by the aligned groups,
   same inputs, same results). */
NCL_KINLINE int64_t cs_contig(int rel, int ne, int ea, int eb, const char *a, const char *b,
                              char *o, int64_t n, const NclKernelCtx *ctx)
{
    int64_t i = 0;
    if (ncl_stream_pays(ctx, n, -1)) {
        const int64_t head = (int64_t)((64 - ((uintptr_t)o & 63)) & 63);
        if (head)
            _mm512_mask_storeu_epi8(o, ((__mmask64)1 << head) - 1,
                                    cs_bools64(rel, ne, ea, eb, a, b));
        for (i = head; i + 64 <= n; i += 64)
            _mm512_stream_si512((void *)(o + i), cs_bools64(rel, ne, ea, eb, a + i * 8, b + i * 8));
        _mm_sfence();
        return i;
    }
    for (; i + 64 <= n; i += 64)
        _mm512_storeu_si512(o + i, cs_bools64(rel, ne, ea, eb, a + i * 8, b + i * 8));
    return i;
}

#endif /* __AVX512F__ && __AVX512BW__ */

#endif /* NCL_COMPARE_SIMD_H */
