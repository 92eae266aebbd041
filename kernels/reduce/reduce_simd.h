/*
 * reduce_simd.h: hand-written vector forms of the hottest reductions, for
 * the AVX2 and AVX-512 builds of the kernels (cmake/NclIsa.cmake). Each
 * computes bit for bit what the portable code computes:
 *
 *   rs_chunk_sum_f64/f32  one full chunk (NCL_REDUCE_CHUNK contiguous
 *       elements of the accumulator's own dtype) of the sum tree of
 *       reduce_tree.h: the same blocks, lanes, pairings and compensated
 *       fold, with the lanes in vector registers. GCC leaves the portable
 *       form's lane arrays in memory and its fold scalar, which made the sum
 *       run at half the speed of the loads. 256-bit vectors in the AVX-512
 *       build too: measured as fast in cache and in DRAM as 512-bit ones
 *       (Zen 4), with one form less to keep bit-identical.
 *   rs_group_sums_f64  groups of four full chunks: the same trees, with
 *       the folds of one chunk run between the loads of the next; data 8,
 *       16 or 24 bytes off the 32-byte grid is read with aligned loads,
 *       the lanes rotated.
 *   rs_mm_raw_*  the raw extreme of min/max (reduce_elem.h's mm_raw): a
 *       vector max/min with a separate unordered test, since the hardware
 *       max is not NaN-sticky, from the first 64-byte boundary on (the
 *       elements before it go with the tail). Its result only has to be
 *       some NaN when a NaN is present (the caller rescans for the first
 *       one) and carries no sign-of-zero promise (the caller rescans for
 *       the last zero).
 *
 * RS_HAVE_SIMD is 1 where these exist; the portable build defines nothing
 * here. Operands may sit at any address; the loads are unaligned, and
 * nothing outside the operand is read.
 */
#ifndef NCL_REDUCE_SIMD_H
#define NCL_REDUCE_SIMD_H

#if defined(__AVX2__) && defined(__FMA__)
#  include <immintrin.h>
#  include "reduce/reduce_dd.h"
#  define RS_HAVE_SIMD 1

_Static_assert(NCL_REDUCE_LANES == 16 && NCL_REDUCE_BLOCK == 128 && NCL_REDUCE_CHUNK == 1024,
               "the vector sum tree is written for 16 lanes, 128-element blocks and "
               "1024-element chunks");

/* Unaligned vector loads through memcpy: no pointer to double or float is
   ever formed from a possibly misaligned address. */
static inline __m256d rs_ld_pd256(const char *p) { __m256d v; memcpy(&v, p, sizeof v); return v; }
static inline __m256 rs_ld_ps256(const char *p) { __m256 v; memcpy(&v, p, sizeof v); return v; }

/* Keeps the loads of a chunk in address order. Left alone, GCC schedules a
   chunk's sixteen lane vectors chain by chain, reading the even cache
   lines of all eight blocks before the odd ones, out of order; the
   hardware prefetchers then lose the stream and a sum of data in DRAM ran
   at half the speed of a plain read (measured on Zen 4). An empty asm
   with a memory clobber costs nothing at run time. */
#  if defined(__GNUC__) || defined(__clang__)
#    define RS_IN_ORDER() __asm__ __volatile__("" ::: "memory")
#  else
#    define RS_IN_ORDER() ((void)0)
#  endif

/* ---- compensated additions, lane-wise ------------------------------------- */

/* ncl_dd_add_* on every lane at once. A lane whose high parts are not both
   within the limit adds plainly (hi = a.hi + b.hi, lo = 0), as the scalar
   form does; its compensated steps run on zeros instead, so they raise no
   flag the scalar code would not. */
#  define RS_DD_ADD_(name, V, T, SUF, LIM)                                       \
      static inline void name(V ahi, V alo, V bhi, V blo, V *rhi, V *rlo)               \
      {                                                                                 \
          const V zero = _mm##SUF##_setzero_##T();                                      \
          const V sign = _mm##SUF##_set1_##T(-0.0f);                                    \
          const V lim = _mm##SUF##_set1_##T(LIM);                                       \
          const V ok = _mm##SUF##_and_##T(                                              \
              _mm##SUF##_cmp_##T(_mm##SUF##_andnot_##T(sign, ahi), lim, _CMP_LE_OQ),    \
              _mm##SUF##_cmp_##T(_mm##SUF##_andnot_##T(sign, bhi), lim, _CMP_LE_OQ));   \
          const V ah = _mm##SUF##_and_##T(ok, ahi), bh = _mm##SUF##_and_##T(ok, bhi);   \
          const V al = _mm##SUF##_and_##T(ok, alo), bl = _mm##SUF##_and_##T(ok, blo);   \
          const V s = _mm##SUF##_add_##T(ah, bh);                                       \
          const V bb = _mm##SUF##_sub_##T(s, ah);                                       \
          const V e = _mm##SUF##_add_##T(_mm##SUF##_sub_##T(ah, _mm##SUF##_sub_##T(s, bb)), \
                                         _mm##SUF##_sub_##T(bh, bb));                   \
          const V t = _mm##SUF##_add_##T(e, _mm##SUF##_add_##T(al, bl));                \
          const V h2 = _mm##SUF##_add_##T(s, t);                                        \
          const V tt = _mm##SUF##_sub_##T(h2, s);                                       \
          const V l2 = _mm##SUF##_add_##T(_mm##SUF##_sub_##T(s, _mm##SUF##_sub_##T(h2, tt)), \
                                          _mm##SUF##_sub_##T(t, tt));                   \
          /* compensated and inexact: (hi, lo) = (h2, l2); otherwise the plain  \
             sum, which equals s wherever ok holds */                           \
          const V use = _mm##SUF##_andnot_##T(_mm##SUF##_cmp_##T(t, zero, _CMP_EQ_OQ), ok); \
          *rhi = _mm##SUF##_blendv_##T(_mm##SUF##_add_##T(ahi, bhi), h2, use);          \
          *rlo = _mm##SUF##_and_##T(use, l2);                                           \
      }
RS_DD_ADD_(rs_dd_add_pd256, __m256d, pd, 256, NCL_DD_LIM_F64)
RS_DD_ADD_(rs_dd_add_pd128, __m128d, pd, , NCL_DD_LIM_F64)
RS_DD_ADD_(rs_dd_add_ps256, __m256, ps, 256, NCL_DD_LIM_F32)
RS_DD_ADD_(rs_dd_add_ps128, __m128, ps, , NCL_DD_LIM_F32)
#  undef RS_DD_ADD_

/* ---- float64 ------------------------------------------------------------------ */

/* The first two levels of a chunk's fold (h = 8, then h = 4; reduce_tree.h's
   fold), compensated: q0..q3 hold lanes 0-3, 4-7, 8-11, 12-15; (*h, *l) get
   lanes 0-3. */
static inline void rs_fold4_f64(const __m256d *q, __m256d *h, __m256d *l)
{
    const __m256d z = _mm256_setzero_pd();
    __m256d h0, l0, h1, l1;
    rs_dd_add_pd256(q[0], z, q[2], z, &h0, &l0); /* h = 8: lanes 0-3 and 4-7 */
    rs_dd_add_pd256(q[1], z, q[3], z, &h1, &l1);
    rs_dd_add_pd256(h0, l0, h1, l1, h, l);       /* h = 4 */
}

/* The 16 lanes of a chunk folded by halving (lane j takes lane j + h), all
   compensated: the vector form of reduce_tree.h's fold. */
static inline double rs_fold_f64(const __m256d *q)
{
    __m256d h, l;
    rs_fold4_f64(q, &h, &l);
    __m128d h2, l2;
    rs_dd_add_pd128(_mm256_castpd256_pd128(h), _mm256_castpd256_pd128(l),
                    _mm256_extractf128_pd(h, 1), _mm256_extractf128_pd(l, 1), &h2, &l2);
    const ncl_dd_f64 a = {_mm_cvtsd_f64(h2), _mm_cvtsd_f64(l2)};
    const ncl_dd_f64 b = {_mm_cvtsd_f64(_mm_unpackhi_pd(h2, h2)),
                          _mm_cvtsd_f64(_mm_unpackhi_pd(l2, l2))};
    return ncl_dd_add_f64(a, b).hi; /* h = 1 */
}

static inline void rs_block_f64(const char *p, __m256d *v)
{
    for (int j = 0; j < 4; j++) v[j] = _mm256_set1_pd(-0.0);
    for (int t = 0; t < 8; t++) {
        for (int j = 0; j < 4; j++) v[j] = _mm256_add_pd(v[j], rs_ld_pd256(p + t * 128 + j * 32));
        RS_IN_ORDER();
    }
}

/* Quarter k of a chunk at p: blocks 2k and 2k + 1, combined lane-wise. */
static inline void rs_quarter_f64(const char *p, int k, __m256d *q)
{
    __m256d a[4], b[4];
    rs_block_f64(p + k * 2048, a);
    rs_block_f64(p + k * 2048 + 1024, b);
    for (int j = 0; j < 4; j++) q[j] = _mm256_add_pd(a[j], b[j]);
}

/* The chunk's lane vector from its four quarters (blocks 0-1 + 2-3, 4-5 + 6-7,
   then those two). */
static inline void rs_lanes_f64(__m256d (*q)[4], __m256d *r)
{
    for (int j = 0; j < 4; j++)
        r[j] = _mm256_add_pd(_mm256_add_pd(q[0][j], q[1][j]), _mm256_add_pd(q[2][j], q[3][j]));
}

static inline double rs_chunk_sum_f64(const char *p)
{
    __m256d q[4][4], r[4];
    for (int k = 0; k < 4; k++) rs_quarter_f64(p, k, q[k]);
    rs_lanes_f64(q, r);
    return rs_fold_f64(r);
}

/* ---- float64, four chunks at a time ---------------------------------------- */

/* Four full chunks starting at a chunk index that is a multiple of four
   form the subtree (c0 + c1) + (c2 + c3) of the sequence's binary counter.
   Computed together, the last two levels of their folds run one chunk per
   lane, and no fold waits at the end of its own chunk: a chunk's fold runs
   between the loads of the next chunk, a group's last levels between those
   of the next group. A fold left at the end of its chunk is a chain of
   dependent additions that filled the out-of-order window and stalled the
   next chunk's loads: a sum of 1e6 float64 ran 20 % slower than the bare
   reads (measured on Zen 4). Every lane sees the same operations as in
   rs_fold_f64 and reduce_tree.h's combine, so the values are the same bits. */

/* x0..x3 as rows of a 4x4 matrix, transposed into t0..t3. */
static inline void rs_transpose_pd256(const __m256d *x, __m256d *t)
{
    const __m256d a0 = _mm256_unpacklo_pd(x[0], x[1]), a1 = _mm256_unpackhi_pd(x[0], x[1]);
    const __m256d b0 = _mm256_unpacklo_pd(x[2], x[3]), b1 = _mm256_unpackhi_pd(x[2], x[3]);
    t[0] = _mm256_permute2f128_pd(a0, b0, 0x20);
    t[1] = _mm256_permute2f128_pd(a1, b1, 0x20);
    t[2] = _mm256_permute2f128_pd(a0, b0, 0x31);
    t[3] = _mm256_permute2f128_pd(a1, b1, 0x31);
}

/* A group's last fold levels, first half: from the 4-lane folds (h, l) of
   its four chunks to level h = 2, one chunk per lane (u: lanes 0 and 1). */
static inline void rs_group_a_f64(const __m256d *h, const __m256d *l, __m256d *u)
{
    __m256d th[4], tl[4];
    rs_transpose_pd256(h, th);
    rs_transpose_pd256(l, tl);
    rs_dd_add_pd256(th[0], tl[0], th[2], tl[2], &u[0], &u[1]);
    rs_dd_add_pd256(th[1], tl[1], th[3], tl[3], &u[2], &u[3]);
}

/* Second half: level h = 1 gives the four chunk values (high parts), then
   (c0 + c1) and (c2 + c3) in one pair of lanes, then their sum. */
static inline ncl_dd_f64 rs_group_b_f64(const __m256d *u)
{
    const __m128d z = _mm_setzero_pd();
    __m256d vh, vl;
    rs_dd_add_pd256(u[0], u[1], u[2], u[3], &vh, &vl);
    const __m256d even = _mm256_permute4x64_pd(vh, 0x08); /* c0, c2 */
    const __m256d odd = _mm256_permute4x64_pd(vh, 0x0d);  /* c1, c3 */
    __m128d ph, pl;
    rs_dd_add_pd128(_mm256_castpd256_pd128(even), z, _mm256_castpd256_pd128(odd), z, &ph, &pl);
    const ncl_dd_f64 a = {_mm_cvtsd_f64(ph), _mm_cvtsd_f64(pl)};
    const ncl_dd_f64 b = {_mm_cvtsd_f64(_mm_unpackhi_pd(ph, ph)),
                          _mm_cvtsd_f64(_mm_unpackhi_pd(pl, pl))};
    return ncl_dd_add_f64(a, b);
}

/* ---- float64 on the 32-byte grid ------------------------------------------ */

/* float64 data 8, 16 or 24 bytes past a 32-byte boundary (NumPy's
   allocations sit 16 bytes past a 64-byte line) splits every second or
   every 256-bit load across two cache lines: the four-chunk sums of 1e6
   float64 ran 98 us there against 87 us on aligned data (Zen 4). Read on
   the grid, the same elements come in aligned loads. With o the data's
   offset in elements (1..3) and a = 4 - o, a row of 16 elements is read as
   three aligned vectors holding lanes a..a+3, a+4..a+7 and a+8..a+11, and
   one that straddles into the next row: positions 0..o-1 hold lanes
   a+12..15 of its row, positions o..3 lanes 0..a-1 of the next. Each
   accumulator keeps fixed lanes in rotated order. The straddling one
   starts a block with the upper positions of the vector before its first
   row and ends it with the lower positions of its last one, the other
   positions -0.0, which adds exactly and raises nothing. Every lane thus
   sees the additions of rs_block_f64 in the same order; a chunk's lanes
   are put back in order before its fold. Nothing outside the data is
   read: the straddling vectors at its two ends are copied in. */
typedef struct rs_grid_f64 {
    __m256d up;    /* positions o..3 */
    __m256d low;   /* positions 0..o-1 */
    __m256d first; /* positions 0..a-1 */
    __m256i rot;   /* vpermps indices taking position (i + o) mod 4 to i */
    int64_t o, a;
} rs_grid_f64;

static inline rs_grid_f64 rs_grid_make_f64(int64_t o)
{
    rs_grid_f64 g;
    const __m256i pos = _mm256_setr_epi64x(0, 1, 2, 3);
    const __m256i low = _mm256_cmpgt_epi64(_mm256_set1_epi64x(o), pos);
    g.low = _mm256_castsi256_pd(low);
    g.up = _mm256_castsi256_pd(_mm256_xor_si256(low, _mm256_set1_epi64x(-1)));
    g.first = _mm256_castsi256_pd(_mm256_cmpgt_epi64(_mm256_set1_epi64x(4 - o), pos));
    int32_t idx[8];
    for (int i = 0; i < 8; i++) idx[i] = (int32_t)(2 * ((i / 2 + o) & 3) + (i & 1));
    memcpy(&g.rot, idx, sizeof idx);
    g.o = o;
    g.a = 4 - o;
    return g;
}

/* The block at p (as rs_block_f64). *edge holds the straddling vector before
   its first row and gets the one after its last row, read from tail when
   tail is not NULL (the block ends the data). */
static inline void rs_block_grid_f64(const char *p, const rs_grid_f64 *g, __m256d *edge,
                                     const char *tail, __m256d *v)
{
    const __m256d nz = _mm256_set1_pd(-0.0);
    const char *q = p + g->a * 8;
    v[0] = v[1] = v[2] = nz;
    v[3] = _mm256_add_pd(nz, _mm256_blendv_pd(nz, *edge, g->up));
    for (int t = 0; t < 8; t++) {
        v[0] = _mm256_add_pd(v[0], rs_ld_pd256(q + t * 128));
        v[1] = _mm256_add_pd(v[1], rs_ld_pd256(q + t * 128 + 32));
        v[2] = _mm256_add_pd(v[2], rs_ld_pd256(q + t * 128 + 64));
        if (t < 7) {
            v[3] = _mm256_add_pd(v[3], rs_ld_pd256(q + t * 128 + 96));
        } else {
            *edge = rs_ld_pd256(tail ? tail : q + t * 128 + 96);
            v[3] = _mm256_add_pd(v[3], _mm256_blendv_pd(nz, *edge, g->low));
        }
        RS_IN_ORDER();
    }
}

/* As rs_quarter_f64; tail as in rs_block_grid_f64, for the second block. */
static inline void rs_quarter_grid_f64(const char *p, int k, const rs_grid_f64 *g,
                                       __m256d *edge, const char *tail, __m256d *q)
{
    __m256d a[4], b[4];
    rs_block_grid_f64(p + k * 2048, g, edge, NULL, a);
    rs_block_grid_f64(p + k * 2048 + 1024, g, edge, tail, b);
    for (int j = 0; j < 4; j++) q[j] = _mm256_add_pd(a[j], b[j]);
}

/* A chunk's lane vectors read on the grid, put back in lane order: lanes
   4j..4j+3 are positions o..3 of vector j - 1 (mod 4) and 0..o-1 of
   vector j. */
static inline void rs_unrotate_f64(const rs_grid_f64 *g, __m256d *r)
{
    __m256d t[4];
    for (int j = 0; j < 4; j++)
        t[j] = _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(r[j]), g->rot));
    for (int j = 0; j < 4; j++) r[j] = _mm256_blendv_pd(t[j], t[(j + 3) & 3], g->first);
}

/* Most groups one rs_group_sums_f64 call computes: its caller's buffer. */
#  define RS_GROUPS_MAX 16

/* rs_group_sums_f64, read on the grid g, or with plain loads where g is
   NULL (a constant in each caller). */
NCL_KINLINE void rs_group_sums_on_f64(const char *p, int64_t ng, ncl_dd_f64 *val,
                                      const rs_grid_f64 *grid)
{
    __m256d h[4], l[4], r[4], q[4][4], u[4];
    __m256d h0 = _mm256_setzero_pd(), l0 = h0, h1 = h0, l1 = h0;
    const __m256d z = h0;
    __m256d edge = z;
    double tail[4] = {-0.0, -0.0, -0.0, -0.0};
    if (grid) {
        double head[4] = {-0.0, -0.0, -0.0, -0.0};
        memcpy(head + grid->o, p, (size_t)grid->a * 8);
        memcpy(&edge, head, sizeof edge);
        memcpy(tail, p + ng * 32768 - grid->o * 8, (size_t)grid->o * 8);
    }
    for (int j = 0; j < 4; j++) r[j] = u[j] = z;
    for (int64_t g = 0; g < ng; g++) {
        for (int c = 0; c < 4; c++) {
            const char *cp = p + (g * 4 + c) * 8192;
            const char *end = g == ng - 1 && c == 3 ? (const char *)tail : NULL;
#  define RS_QUARTER_(k)                                                        \
            do {                                                                \
                if (grid)                                                       \
                    rs_quarter_grid_f64(cp, k, grid, &edge, k == 3 ? end : NULL, q[k]); \
                else                                                            \
                    rs_quarter_f64(cp, k, q[k]);                                \
            } while (0)
            /* the previous chunk's fold, between this chunk's quarters */
            const int prev = g > 0 || c > 0, slot = (c + 3) & 3;
            RS_QUARTER_(0);
            if (prev) rs_dd_add_pd256(r[0], z, r[2], z, &h0, &l0);
            RS_QUARTER_(1);
            if (prev) rs_dd_add_pd256(r[1], z, r[3], z, &h1, &l1);
            RS_QUARTER_(2);
            if (prev) rs_dd_add_pd256(h0, l0, h1, l1, &h[slot], &l[slot]);
            RS_QUARTER_(3);
#  undef RS_QUARTER_
            /* the previous group's last levels, across this group's first
               two chunks */
            if (c == 0 && g > 0) rs_group_a_f64(h, l, u);
            rs_lanes_f64(q, r);
            if (grid) rs_unrotate_f64(grid, r);
            if (c == 1 && g > 0) val[g - 1] = rs_group_b_f64(u);
        }
    }
    rs_fold4_f64(r, &h[3], &l[3]);
    rs_group_a_f64(h, l, u);
    val[ng - 1] = rs_group_b_f64(u);
}

/* The values of ng (1 <= ng <= RS_GROUPS_MAX) consecutive groups of four
   full contiguous chunks at p, into val[0 .. ng). */
static inline void rs_group_sums_f64(const char *p, int64_t ng, ncl_dd_f64 *val)
{
    const uintptr_t off = (uintptr_t)p & 31;
    if (off != 0 && off % 8 == 0) {
        const rs_grid_f64 g = rs_grid_make_f64((int64_t)(off / 8));
        rs_group_sums_on_f64(p, ng, val, &g);
    } else {
        rs_group_sums_on_f64(p, ng, val, NULL);
    }
}

/* ---- float32 ------------------------------------------------------------------ */

/* The 16 lanes folded: q0 holds lanes 0-7, q1 lanes 8-15. */
static inline float rs_fold_f32(__m256 q0, __m256 q1)
{
    const __m256 z8 = _mm256_setzero_ps();
    const __m128 z = _mm_setzero_ps();
    __m256 h, l;
    rs_dd_add_ps256(q0, z8, q1, z8, &h, &l); /* h = 8 */
    __m128 h4, l4, h2, l2;
    rs_dd_add_ps128(_mm256_castps256_ps128(h), _mm256_castps256_ps128(l),
                    _mm256_extractf128_ps(h, 1), _mm256_extractf128_ps(l, 1), &h4, &l4);
    /* h = 2 on lanes 0-1 against 2-3; the upper lanes are zeros, which add
       without a flag */
    rs_dd_add_ps128(_mm_movelh_ps(h4, z), _mm_movelh_ps(l4, z), _mm_movehl_ps(z, h4),
                    _mm_movehl_ps(z, l4), &h2, &l2);
    const ncl_dd_f32 a = {_mm_cvtss_f32(h2), _mm_cvtss_f32(l2)};
    const ncl_dd_f32 b = {_mm_cvtss_f32(_mm_shuffle_ps(h2, h2, 1)),
                          _mm_cvtss_f32(_mm_shuffle_ps(l2, l2, 1))};
    return ncl_dd_add_f32(a, b).hi; /* h = 1 */
}

static inline void rs_block_f32(const char *p, __m256 *v0, __m256 *v1)
{
    __m256 a = _mm256_set1_ps(-0.0f), b = a;
    for (int t = 0; t < 8; t++) {
        a = _mm256_add_ps(a, rs_ld_ps256(p + t * 64));
        b = _mm256_add_ps(b, rs_ld_ps256(p + t * 64 + 32));
        RS_IN_ORDER();
    }
    *v0 = a;
    *v1 = b;
}

static inline float rs_chunk_sum_f32(const char *p)
{
    __m256 q0[4], q1[4];
    for (int k = 0; k < 4; k++) {
        __m256 a0, a1, b0, b1;
        rs_block_f32(p + k * 1024, &a0, &a1);
        rs_block_f32(p + k * 1024 + 512, &b0, &b1);
        q0[k] = _mm256_add_ps(a0, b0);
        q1[k] = _mm256_add_ps(a1, b1);
    }
    return rs_fold_f32(_mm256_add_ps(_mm256_add_ps(q0[0], q0[1]), _mm256_add_ps(q0[2], q0[3])),
                       _mm256_add_ps(_mm256_add_ps(q1[0], q1[1]), _mm256_add_ps(q1[2], q1[3])));
}


/* ---- min / max ------------------------------------------------------------------ */

/* Elements before the first 64-byte boundary at p (ncl_line_head), at most
   n, none when p is not element-aligned: the scans start their vector loop
   there, so that no load splits across two cache lines, and take these
   elements with the tail. On NumPy's arrays (16 bytes past a line) the
   split loads made the max of 1e6 float64 15 % slower than on aligned data
   (Zen 4). */
static inline int64_t rs_head(const char *p, int64_t n, int64_t size)
{
    const int64_t h = ncl_line_head(p, size);
    return h < 0 ? 0 : h < n ? h : n;
}

/* The vector max/min instructions return their second operand when either
   is NaN, so they are not NaN-sticky: NaNs are looked for separately, with
   a quiet unordered compare of two loads at once. The INVALID flag the
   hardware max raises on a NaN is put back by the kernel that runs this. */
#  if defined(__AVX512F__)
#    define RS_VPD_ __m512d
#    define RS_VPS_ __m512
#    define RS_MM_BODY_(T, V, SUF, ID)                                                      \
        const int64_t w = (int64_t)(64 / sizeof(T));                                        \
        const V id = _mm512_set1_##SUF(ID);                                                 \
        V m0 = id, m1 = id, m2 = id, m3 = id;                                               \
        __mmask16 nan = 0;                                                                  \
        const int64_t head = rs_head(p, n, (int64_t)sizeof(T));                             \
        int64_t i = head;                                                                   \
        for (; i + 4 * w <= n; i += 4 * w) {                                                \
            const char *q = p + i * (int64_t)sizeof(T);                                     \
            const V x0 = _mm512_loadu_##SUF(q), x1 = _mm512_loadu_##SUF(q + 64);            \
            const V x2 = _mm512_loadu_##SUF(q + 128), x3 = _mm512_loadu_##SUF(q + 192);     \
            nan |= (__mmask16)(_mm512_cmp_##SUF##_mask(x0, x1, _CMP_UNORD_Q) |              \
                               _mm512_cmp_##SUF##_mask(x2, x3, _CMP_UNORD_Q));              \
            if (is_max) {                                                                   \
                m0 = _mm512_max_##SUF(m0, x0); m1 = _mm512_max_##SUF(m1, x1);               \
                m2 = _mm512_max_##SUF(m2, x2); m3 = _mm512_max_##SUF(m3, x3);               \
            } else {                                                                        \
                m0 = _mm512_min_##SUF(m0, x0); m1 = _mm512_min_##SUF(m1, x1);               \
                m2 = _mm512_min_##SUF(m2, x2); m3 = _mm512_min_##SUF(m3, x3);               \
            }                                                                               \
        }                                                                                   \
        T lanes[4 * 64 / sizeof(T)];                                                        \
        _mm512_storeu_##SUF(lanes, m0); _mm512_storeu_##SUF(lanes + w, m1);                 \
        _mm512_storeu_##SUF(lanes + 2 * w, m2); _mm512_storeu_##SUF(lanes + 3 * w, m3);
#  else
#    define RS_VPD_ __m256d
#    define RS_VPS_ __m256
#    define RS_MM_BODY_(T, V, SUF, ID)                                                      \
        const int64_t w = (int64_t)(32 / sizeof(T));                                        \
        const V id = _mm256_set1_##SUF(ID);                                                 \
        V m0 = id, m1 = id, m2 = id, m3 = id, nanv = _mm256_setzero_##SUF();                \
        const int64_t head = rs_head(p, n, (int64_t)sizeof(T));                             \
        int64_t i = head;                                                                   \
        for (; i + 4 * w <= n; i += 4 * w) {                                                \
            const char *q = p + i * (int64_t)sizeof(T);                                     \
            V x0, x1, x2, x3;                                                               \
            memcpy(&x0, q, 32); memcpy(&x1, q + 32, 32);                                    \
            memcpy(&x2, q + 64, 32); memcpy(&x3, q + 96, 32);                               \
            nanv = _mm256_or_##SUF(nanv, _mm256_or_##SUF(_mm256_cmp_##SUF(x0, x1, _CMP_UNORD_Q), \
                                                         _mm256_cmp_##SUF(x2, x3, _CMP_UNORD_Q))); \
            if (is_max) {                                                                   \
                m0 = _mm256_max_##SUF(m0, x0); m1 = _mm256_max_##SUF(m1, x1);               \
                m2 = _mm256_max_##SUF(m2, x2); m3 = _mm256_max_##SUF(m3, x3);               \
            } else {                                                                        \
                m0 = _mm256_min_##SUF(m0, x0); m1 = _mm256_min_##SUF(m1, x1);               \
                m2 = _mm256_min_##SUF(m2, x2); m3 = _mm256_min_##SUF(m3, x3);               \
            }                                                                               \
        }                                                                                   \
        const int nan = _mm256_movemask_##SUF(nanv);                                        \
        T lanes[4 * 32 / sizeof(T)];                                                        \
        memcpy(lanes, &m0, 32); memcpy(lanes + w, &m1, 32);                                 \
        memcpy(lanes + 2 * w, &m2, 32); memcpy(lanes + 3 * w, &m3, 32);
#  endif

/* One element of the head or the tail, as the vector loop takes it. */
#  define RS_MM_STEP_(T, k)                                                                 \
      {                                                                                     \
          T x;                                                                              \
          memcpy(&x, p + (k) * (int64_t)sizeof(T), sizeof x);                               \
          if (x != x) return x;                                                             \
          r = (is_max ? x > r : x < r) ? x : r;                                             \
      }

/* The raw extreme of n contiguous elements at p (reduce_elem.h's mm_raw):
   NaN if any element is NaN, otherwise the max (is_max) or min, the sign
   of a zero result unspecified. */
#  define RS_MM_RAW_(sfx, T, V, SUF, INF)                                                   \
      static inline T rs_mm_raw_##sfx(const char *p, int64_t n, int is_max)                 \
      {                                                                                     \
          RS_MM_BODY_(T, V, SUF, is_max ? -(INF) : (INF))                                   \
          if (nan) return (T)NAN;                                                           \
          T r = lanes[0];                                                                   \
          for (int64_t j = 1; j < 4 * w; j++)                                               \
              r = (is_max ? lanes[j] > r : lanes[j] < r) ? lanes[j] : r;                    \
          for (int64_t j = 0; j < head; j++) RS_MM_STEP_(T, j)                              \
          for (; i < n; i++) RS_MM_STEP_(T, i)                                              \
          return r;                                                                         \
      }
RS_MM_RAW_(f64, double, RS_VPD_, pd, (double)INFINITY)
RS_MM_RAW_(f32, float, RS_VPS_, ps, INFINITY)
#  undef RS_MM_RAW_
#  undef RS_MM_STEP_
#  undef RS_MM_BODY_
#  undef RS_VPD_
#  undef RS_VPS_

#endif /* __AVX2__ && __FMA__ */

#endif /* NCL_REDUCE_SIMD_H */
