/*
 * rng_dists.c: the RNG kernels that draw a fixed number of words per value:
 * raw, random (float64, float32), uniform and integers (every integer
 * dtype and bool), for every bit generator. Compiled once per
 * instruction-set level: the bounded integers of 8 and 16 bits and the
 * counter-based Philox4x32's bulk draws (rng_counter.h) run several times
 * faster with wide vectors. The draws and the loops are rng_draws.h's.
 *
 * INTEGERS: NumPy's scalar-bound path (random_bounded_<type>_fill) and its
 * array-bound path (random_buffered_bounded_<type> per element, one 32-bit
 * buffer across the elements) draw the same words for the same bounds, so
 * one per-element routine serves both, the sub-word buffer of the 8- and
 * 16-bit types and bool living across the elements of one kernel call; it
 * is dropped at the end of the call, as NumPy drops it at the end of one
 * integers() call (the caller must therefore give a whole call to one
 * kernel invocation for those types).
 */
#include "rng/rng_draws.h"
#include "rng/rng_counter.h"

/* No normal or exponential is drawn here: no ziggurat slow paths. */
#define RNG_DRAWS(value, prefix) RNG_DRAWS_OF(value, prefix, NULL, NULL, NULL, NULL)

/* ---- uniform and raw ---------------------------------------------------------------- */

/* random_raw: NumPy's next_raw is the 64-bit word, but MT19937's is one
   32-bit output widened. */
NCL_KINLINE uint64_t rng_raw(rng_work *w, const rng_draws D)
{
    return D.kind == NCL_BITGEN_MT19937 ? (uint64_t)D.u32(w) : D.u64(w);
}

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
            rng_halves_used(w, D.kind, x);
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
            rng_halves_used(w, D.kind, x);
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

/* ---- the kernels ---------------------------------------------------------------------- */

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
      NCL_FLOAT64)

#define RNG_KERNELS_(value, prefix) RNG_KERNEL_LIST(RNG_KERNEL_, value, prefix)
NCL_RNG_BITGEN_LIST(RNG_KERNELS_)
#define RNG_ENTRIES_(value, prefix) RNG_KERNEL_LIST(RNG_ENTRY_, value, prefix)

const ncl_kernel_entry ncl_k_rng_table[] = {NCL_RNG_BITGEN_LIST(RNG_ENTRIES_)};
const size_t ncl_k_rng_count = sizeof ncl_k_rng_table / sizeof ncl_k_rng_table[0];
