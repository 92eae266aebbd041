/*
 * convert_loops.c: the built-in Convert kernels (NCL_CONVERT_ASTYPE), one
 * loop per ordered (from, to) pair of the eleven dtypes, identity included.
 * The framework runs them for astype and copyto and, block by block, for
 * the casts buffered inside every other subsystem.
 *
 * Element semantics (NumPy's, made defined where C is not):
 * - to bool: value != 0 (NaN is true); from bool: 0 or 1;
 * - integer to integer: modular, two's complement wrap, computed through
 *   unsigned arithmetic (no implementation-defined conversion);
 * - integer to float, float64 to float32: the C conversion, rounding to
 *   nearest (float64 -> float32 overflow gives inf and raises the hardware
 *   OVERFLOW flag, as NumPy 1.24 warns too);
 * - float to integer: SATURATING and the same on every CPU: truncation
 *   toward zero when the result is in range; NaN gives 0; values beyond the
 *   range (infinities included) give the nearest limit (negative to unsigned:
 *   0); NaN and out-of-range raise NCL_FPE_INVALID. Here NCLib differs from
 *   NumPy, whose out-of-range (and NaN) result is whatever the CPU's
 *   conversion instruction gives: on x86 the "integer indefinite" pattern
 *   (INT64_MIN for int64, and its low bits for narrower targets), on ARM
 *   saturation. -0.5 to unsigned truncates to 0, in range, and raises
 *   nothing.
 * - identity: a copy of the bytes.
 */
#include "ncl_kernel.h"
#include "convert/dtype_pairs.h"
#include "convert/float_to_uint64.h"

/* ---- element conversions --------------------------------------------------- */

/* Integer targets' limits, by suffix. */
#define CVT_MIN_i8 INT8_MIN
#define CVT_MIN_i16 INT16_MIN
#define CVT_MIN_i32 INT32_MIN
#define CVT_MIN_i64 INT64_MIN
#define CVT_MIN_u8 0
#define CVT_MIN_u16 0
#define CVT_MIN_u32 0
#define CVT_MIN_u64 0
#define CVT_MAX_i8 INT8_MAX
#define CVT_MAX_i16 INT16_MAX
#define CVT_MAX_i32 INT32_MAX
#define CVT_MAX_i64 INT64_MAX
#define CVT_MAX_u8 UINT8_MAX
#define CVT_MAX_u16 UINT16_MAX
#define CVT_MAX_u32 UINT32_MAX
#define CVT_MAX_u64 UINT64_MAX

/* The low bits of v as each integer type: unsigned targets by C's modular
   conversion; signed ones by reading the unsigned pattern of their width
   (C leaves the out-of-range signed conversion to the implementation). The
   copy compiles to nothing. */
#define CVT_DEFINE_WRAP(s, T, TU)                                   \
    NCL_KINLINE T wrap_##s(uint64_t v)                              \
    {                                                               \
        const TU u = (TU)v;                                         \
        T r;                                                        \
        memcpy(&r, &u, sizeof r);                                   \
        return r;                                                   \
    }
CVT_DEFINE_WRAP(i8, int8_t, uint8_t)
CVT_DEFINE_WRAP(i16, int16_t, uint16_t)
CVT_DEFINE_WRAP(i32, int32_t, uint32_t)
CVT_DEFINE_WRAP(i64, int64_t, uint64_t)
CVT_DEFINE_WRAP(u8, uint8_t, uint8_t)
CVT_DEFINE_WRAP(u16, uint16_t, uint16_t)
CVT_DEFINE_WRAP(u32, uint32_t, uint32_t)
CVT_DEFINE_WRAP(u64, uint64_t, uint64_t)
#undef CVT_DEFINE_WRAP

/* Where x (float32 or float64) lands against an integer range [tmin, tmax]
   given as hi = tmax + 1 and lo = tmin, both exact in the float type: hi is
   a power of two, lo is 0 or minus a power of two. trunc(x) is in range
   exactly when x < hi and x > tmin - 1. tmin - 1 is exact when tmin has
   fewer bits than the significand (int8, int16 in float32; int32 in
   float64; -1 for unsigned); otherwise it rounds to tmin, and no float lies
   strictly between tmin - 1 and tmin, so x >= tmin is the exact test.
   Or-ing both tests is right in both cases. NaN is in none of the three
   classes. The compares are the plain, signalling ones: they raise the
   hardware INVALID only for NaN, which raises INVALID here anyway. */
#define CVT_DEFINE_RANGE(sf, TF)                                                 \
    NCL_KINLINE int sat_in_##sf(TF x, TF hi, TF lo)                              \
    {                                                                            \
        return (x < hi) & ((x >= lo) | (x > lo - (TF)1));                        \
    }                                                                            \
    NCL_KINLINE int sat_over_##sf(TF x, TF hi) { return x >= hi; }               \
    NCL_KINLINE int sat_under_##sf(TF x, TF lo)                                  \
    {                                                                            \
        return (x < lo) & (x <= lo - (TF)1);                                     \
    }
CVT_DEFINE_RANGE(f32, float)
CVT_DEFINE_RANGE(f64, double)
#undef CVT_DEFINE_RANGE

/* tmax + 1 of integer target st in float type TF, built as twice a power of
   two so that no rounding of tmax itself enters. */
#define CVT_HI_(TF, st) ((TF)((CVT_MAX_##st) / 2 + 1) * (TF)2)

/* trunc(v) as integer target st, for v (of float type sf) known in range. */
#define CVT_TRUNC_i8(sf, T, v) ((T)(v))
#define CVT_TRUNC_i16(sf, T, v) ((T)(v))
#define CVT_TRUNC_i32(sf, T, v) ((T)(v))
#define CVT_TRUNC_i64(sf, T, v) ((T)(v))
#define CVT_TRUNC_u8(sf, T, v) ((T)(v))
#define CVT_TRUNC_u16(sf, T, v) ((T)(v))
#define CVT_TRUNC_u32(sf, T, v) ((T)(v))
#define CVT_TRUNC_u64(sf, T, v) ncl_##sf##_to_u64_in_range(v)

/* Saturating float -> integer. Every lane converts an in-range value (1 for
   the others), so no lane executes an out-of-range conversion: no undefined
   behaviour, no hardware flag, and the loop is branch-free (compares and
   selects), so it vectorises. Written as a chain of single selects on the
   compares themselves, and with the flag read back from the integers (r
   differs from conv exactly where x was NaN or out of range: no limit, and
   not 0, equals 1): in the forms tried, other spellings (nested selects,
   flags kept in variables, a reduction fed by the float compares) made
   GCC thread branches around the conversion, which then cannot be
   vectorised. */
#define CVT_SATURATE_(sa, Ta, sb, Tb)                                                   \
    NCL_KINLINE Tb cvt_##sa##_##sb(Ta x, int *fpe)                                      \
    {                                                                                   \
        const Ta hi = CVT_HI_(Ta, sb), lo = (Ta)(CVT_MIN_##sb);                         \
        const int inr = sat_in_##sa(x, hi, lo);                                         \
        const Tb conv = CVT_TRUNC_##sb(sa, Tb, inr ? x : (Ta)1);                        \
        Tb r = inr ? conv : (Tb)0;                                                      \
        r = sat_over_##sa(x, hi) ? (Tb)(CVT_MAX_##sb) : r;                              \
        r = sat_under_##sa(x, lo) ? (Tb)(CVT_MIN_##sb) : r;                             \
        *fpe |= (r != conv) * NCL_FPE_INVALID;                                          \
        return r;                                                                       \
    }

/* x != 0, by source. A 64-bit pattern is folded to 32 bits first (zero
   exactly when the pattern is), which baseline SSE2, lacking 64-bit
   compares, vectorises; float64 drops its sign bit first (-0.0 is zero,
   NaN is not). */
NCL_KINLINE ncl_bool nonzero_bits64(uint64_t u)
{
    return ((uint32_t)(u >> 32) | (uint32_t)u) != 0;
}
NCL_KINLINE ncl_bool nonzero_f64(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return nonzero_bits64(u & ~((uint64_t)1 << 63));
}
#define CVT_NONZERO_b(x) ((x) != 0)
#define CVT_NONZERO_i8(x) ((x) != 0)
#define CVT_NONZERO_i16(x) ((x) != 0)
#define CVT_NONZERO_i32(x) ((x) != 0)
#define CVT_NONZERO_i64(x) nonzero_bits64((uint64_t)(x))
#define CVT_NONZERO_u8(x) ((x) != 0)
#define CVT_NONZERO_u16(x) ((x) != 0)
#define CVT_NONZERO_u32(x) ((x) != 0)
#define CVT_NONZERO_u64(x) nonzero_bits64(x)
#define CVT_NONZERO_f32(x) ((x) != 0)
#define CVT_NONZERO_f64(x) nonzero_f64(x)

/* A stored bool as 0 or 1 (any nonzero byte is true, as NumPy reads it),
   by arithmetic rather than a compare: GCC does not vectorise a compare
   feeding the widening int -> float64 conversion at baseline (bool ->
   float64 only; for the other targets the compare is the faster form). */
NCL_KINLINE uint32_t bool_01(ncl_bool x) { return (0u - (uint32_t)x) >> 31; }

/* The element conversion of each (from kind, to kind). Bool sources are
   read as 0/1 whatever nonzero byte they hold. */
#define CVT_SCALAR_(sa, Ta, sb, Tb, expr)                                               \
    NCL_KINLINE Tb cvt_##sa##_##sb(Ta x, int *fpe) { (void)fpe; return expr; }
#define CVT_TRUTH_(sa, Ta, sb, Tb) CVT_SCALAR_(sa, Ta, sb, Tb, (Tb)CVT_NONZERO_##sa(x))
#define CVT_BOOL_FLOAT_(sa, Ta, sb, Tb)                                                 \
    CVT_SCALAR_(sa, Ta, sb, Tb, sizeof(Tb) == 8 ? (Tb)(int32_t)bool_01(x) : (Tb)(x != 0))
#define CVT_WRAP_(sa, Ta, sb, Tb) CVT_SCALAR_(sa, Ta, sb, Tb, wrap_##sb((uint64_t)x))
#define CVT_C_(sa, Ta, sb, Tb) CVT_SCALAR_(sa, Ta, sb, Tb, (Tb)x)
#define CVT_KINDS_bb CVT_TRUTH_
#define CVT_KINDS_bi CVT_TRUTH_
#define CVT_KINDS_bu CVT_TRUTH_
#define CVT_KINDS_bf CVT_BOOL_FLOAT_
#define CVT_KINDS_ib CVT_TRUTH_
#define CVT_KINDS_ub CVT_TRUTH_
#define CVT_KINDS_fb CVT_TRUTH_
#define CVT_KINDS_ii CVT_WRAP_
#define CVT_KINDS_iu CVT_WRAP_
#define CVT_KINDS_ui CVT_WRAP_
#define CVT_KINDS_uu CVT_WRAP_
#define CVT_KINDS_if CVT_C_
#define CVT_KINDS_uf CVT_C_
#define CVT_KINDS_ff CVT_C_
#define CVT_KINDS_fi CVT_SATURATE_
#define CVT_KINDS_fu CVT_SATURATE_

#define CVT_DEFINE_SCALAR(Ea, sa, Ta, ka, Eb, sb, Tb, kb) CVT_KINDS_##ka##kb(sa, Ta, sb, Tb)
NCL_DTYPE_PAIR_LIST(CVT_DEFINE_SCALAR)
#undef CVT_DEFINE_SCALAR

/* ---- the loops ------------------------------------------------------------ */

/* Identity: a copy of the bytes (no float register sees them, so a
   signalling NaN stays as it was). Contiguous rows are one memmove; the
   output is either disjoint from the input or the very same elements. */
NCL_KINLINE NclStatus copy_elements(char *const *args, int64_t n, const int64_t *steps, size_t size)
{
    const char *ip = args[0];
    char *op = args[1];
    const int64_t is = steps[0], os = steps[1];
    if (is == (int64_t)size && os == (int64_t)size) {
        if (op != ip && n > 0)
            memmove(op, ip, (size_t)n * size);
        return NCL_OK;
    }
    for (int64_t i = 0; i < n; i++, ip += is, op += os)
        memmove(op, ip, size);
    return NCL_OK;
}

/* Contiguous float64 -> int32 with vector instructions (AVX2 and AVX-512
   builds). GCC vectorises the scalar form above only with a mask shuffle
   per vector, at half NumPy's speed. The same result bit for bit, and the
   same flags, as the scalar form.

   The fast path converts first: the hardware truncation is exact for every
   in-range lane and gives INT32_MIN (the "integer indefinite") for NaN and
   out-of-range ones, so a vector none of whose lanes came out as INT32_MIN
   is done. A vector with such a lane (a true INT32_MIN, from x in
   (-2**31 - 1, -2**31], or a NaN or out-of-range input) is redone exactly
   by cvt_f64_i32_exact4. Flags: the fast conversion raises the hardware
   INVALID exactly for the NaN and out-of-range lanes, and the exact path
   reports NCL_FPE_INVALID for those same lanes, so the call's flags are
   those of the scalar form, which reports INVALID for them too (and lets
   its signalling compare raise the hardware INVALID for a NaN).

   Two 256-bit loads per step, tested once: measured faster than one, and
   than 512-bit loads in the AVX-512 build (NumPy's buffers sit 16 bytes off
   a cache line, so every 512-bit load spans two lines). */
#if defined(__AVX2__)
#  include <immintrin.h>
#  define CVT_HAVE_F64_I32_SIMD 1

/* Four lanes by NCLib's rule whatever they hold: NaN lanes zeroed, the
   others clamped to [INT32_MIN, INT32_MAX] as doubles, then truncated (an
   in-range lane keeps its value: the clamp moves only values whose
   truncation is the limit anyway). The range test is the signalling
   compare pair of sat_in_f64; it reports NCL_FPE_INVALID when a lane is
   NaN or out of range. */
static __m128i cvt_f64_i32_exact4(__m256d x, int *fpe)
{
    const __m256d hi = _mm256_set1_pd(0x1p31), below = _mm256_set1_pd(-0x1p31 - 1.0);
    const __m256d lo = _mm256_set1_pd(-0x1p31), top = _mm256_set1_pd(2147483647.0);
    const __m256d inr = _mm256_and_pd(_mm256_cmp_pd(x, hi, _CMP_LT_OS),
                                      _mm256_cmp_pd(x, below, _CMP_GT_OS));
    if (_mm256_movemask_pd(inr) != 0xF) *fpe |= NCL_FPE_INVALID;
    const __m256d x0 = _mm256_andnot_pd(_mm256_cmp_pd(x, x, _CMP_UNORD_Q), x);
    return _mm256_cvttpd_epi32(_mm256_min_pd(_mm256_max_pd(x0, lo), top));
}

/* 1 when a lane of r (or of s) is INT32_MIN. */
NCL_KINLINE int cvt_any_indefinite(__m128i r, __m128i s)
{
    const __m128i m = _mm_set1_epi32(INT32_MIN);
    const __m128i e = _mm_or_si128(_mm_cmpeq_epi32(r, m), _mm_cmpeq_epi32(s, m));
    return !_mm_testz_si128(e, e);
}

/* Eight lanes, four in x and four in y: the fast truncation, both halves
   redone exactly when a lane came out as INT32_MIN. */
NCL_KINLINE void cvt_f64_i32_8(__m256d x, __m256d y, __m128i *r, __m128i *s, int *fpe)
{
    *r = _mm256_cvttpd_epi32(x);
    *s = _mm256_cvttpd_epi32(y);
    if (__builtin_expect(cvt_any_indefinite(*r, *s), 0)) {
        *r = cvt_f64_i32_exact4(x, fpe);
        *s = cvt_f64_i32_exact4(y, fpe);
    }
}

NCL_KINLINE int64_t cvt_f64_i32_vec(const char *ip, char *op, int64_t n, int *fpe)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256d x, y;
        memcpy(&x, ip + i * 8, sizeof x);
        memcpy(&y, ip + i * 8 + 32, sizeof y);
        __m128i r, s;
        cvt_f64_i32_8(x, y, &r, &s, fpe);
        memcpy(op + i * 4, &r, sizeof r);
        memcpy(op + i * 4 + 16, &s, sizeof s);
    }
    if (i + 4 <= n) {
        __m256d x;
        memcpy(&x, ip + i * 8, sizeof x);
        __m128i r = _mm256_cvttpd_epi32(x);
        if (__builtin_expect(cvt_any_indefinite(r, r), 0)) r = cvt_f64_i32_exact4(x, fpe);
        memcpy(op + i * 4, &r, sizeof r);
        i += 4;
    }
    return i;
}

#  if defined(__AVX512F__) && defined(__AVX512VL__)
#    define CVT_HAVE_F64_I32_ALIGNED 1
/* Output written in aligned 32-byte pieces from an input read in aligned
   32-byte pieces (ip 64-byte aligned, op 4-byte aligned): each step
   converts 8 doubles into one vector v of 8 results, which belong q lanes
   past the start of a 32-byte piece when op is 4q bytes past one; the
   piece is then the last q lanes of the previous v and the first 8 - q of
   this one (one two-register permute), stored aligned. The first piece
   leaves out its q lanes before op and the last keeps only them (masked
   stores). 256-bit vectors: 512-bit ones measured slower at 1e6 (the
   input from the L3). Same values and flags as cvt_f64_i32_vec. Returns
   the elements done (a multiple of 8). */
static int64_t cvt_f64_i32_aligned(const char *ip, char *op, int64_t n, int *fpe)
{
    const unsigned q = (unsigned)(((uintptr_t)op & 31) / 4);
    const __m256i idx = _mm256_add_epi32(_mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0),
                                         _mm256_set1_epi32((int)(8 - q)));
    char *piece = op - 4 * (int64_t)q;
    __m256i prev = _mm256_setzero_si256();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8, piece += 32) {
        const __m256d x = _mm256_load_pd((const double *)(const void *)(ip + i * 8));
        const __m256d y = _mm256_load_pd((const double *)(const void *)(ip + i * 8 + 32));
        __m128i r, s;
        cvt_f64_i32_8(x, y, &r, &s, fpe);
        const __m256i v = _mm256_inserti128_si256(_mm256_castsi128_si256(r), s, 1);
        const __m256i w = _mm256_permutex2var_epi32(prev, idx, v);
        if (i == 0)
            _mm256_mask_storeu_epi32(piece, (__mmask8)(0xFFu << q), w);
        else
            _mm256_store_si256((__m256i *)(void *)piece, w);
        prev = v;
    }
    if (q && i > 0)
        _mm256_mask_storeu_epi32(piece, (__mmask8)((1u << q) - 1u),
                                 _mm256_permutex2var_epi32(prev, idx, prev));
    return i;
}
#  endif
#endif

/* Contiguous float64 -> int32: the vector loop where there is one, the
   scalar kernel for the rest, into the output segments of ncl_ostream
   (streaming stores when the output and the whole footprint are large).
   In the AVX-512 build a segment written in place reads its input from
   the first 64-byte boundary on (the elements before it go to the scalar
   kernel) and writes aligned 32-byte pieces of output
   (cvt_f64_i32_aligned): at NumPy's placement, 16 bytes past a line, every
   second load of cvt_f64_i32_vec spans two lines, and a head alone cannot
   align both sides when input and output sit at the same offset
   (bench/notes.md, row 14). Blocks streamed through the buffer keep
   cvt_f64_i32_vec: a head in each 256-element block would cost more than
   it saves. */
NCL_KINLINE NclStatus astype_f64_i32_contig(NclKernelNode *self, const NclKernelCtx *ctx,
                                            char *const *args, int64_t n, const int64_t *steps,
                                            NclKernelFn scalar)
{
#ifdef CVT_HAVE_F64_I32_SIMD
    int fpe = 0;
    NclStatus st = NCL_OK;
    NCL_OSTREAM(out);
    for (ncl_ostream_begin_fp(&out, ctx, args[1], n, 4, n * 8); ncl_ostream_next(&out);) {
        char *const ip = args[0] + out.i0 * 8;
        int64_t head = 0, done;
#  ifdef CVT_HAVE_F64_I32_ALIGNED
        const int64_t h = ncl_line_head(ip, 8);
        if (ncl_ostream_in_place(&out) && h >= 0 && out.cnt - h >= 64 &&
            (uintptr_t)out.dst % 4 == 0) {
            head = h;
            done = head + cvt_f64_i32_aligned(ip + head * 8, out.dst + head * 4, out.cnt - head, &fpe);
        } else
#  endif
            done = cvt_f64_i32_vec(ip, out.dst, out.cnt, &fpe);
        if (head > 0) {
            char *const first[2] = {ip, out.dst};
            const NclStatus s = scalar(self, ctx, first, head, steps);
            if (s != NCL_OK) st = s;
        }
        if (done < out.cnt) {
            char *const rest[2] = {ip + done * 8, out.dst + done * 4};
            const NclStatus s = scalar(self, ctx, rest, out.cnt - done, steps);
            if (s != NCL_OK) st = s;
        }
    }
    if (fpe) *ctx->fpe |= fpe;
    return st;
#else
    return scalar(self, ctx, args, n, steps);
#endif
}

#define CVT_DEFINE_LOOP(Ea, sa, Ta, ka, Eb, sb, Tb, kb)                                     \
    NCL_DEFINE_UNARY_KERNEL_FP(loop_astype_##sa##_##sb, Ta, Tb, cvt_##sa##_##sb)            \
    static NclStatus k_astype_##sa##_##sb(NclKernelNode *self, const NclKernelCtx *ctx,      \
                                          char *const *args, int64_t n, const int64_t *steps) \
    {                                                                                       \
        if (Ea == Eb)                                                                       \
            return copy_elements(args, n, steps, sizeof(Ta));                               \
        if (Ea == NCL_FLOAT64 && Eb == NCL_INT32 && steps[0] == 8 && steps[1] == 4)         \
            return astype_f64_i32_contig(self, ctx, args, n, steps, loop_astype_##sa##_##sb); \
        return loop_astype_##sa##_##sb(self, ctx, args, n, steps);                          \
    }
NCL_DTYPE_PAIR_LIST(CVT_DEFINE_LOOP)
#undef CVT_DEFINE_LOOP

/* ---- registration ------------------------------------------------------- */

#define CVT_ENTRY(Ea, sa, Ta, ka, Eb, sb, Tb, kb)                                     \
    {NCL_SUBSYSTEM_CONVERT, 2, NCL_CONVERT_ASTYPE, {Ea, Eb, 0, 0},                    \
     k_astype_##sa##_##sb, "ncl_k_astype_" #sa "_" #sb},
const ncl_kernel_entry ncl_k_convert_table[] = {NCL_DTYPE_PAIR_LIST(CVT_ENTRY)};
const size_t ncl_k_convert_count = sizeof ncl_k_convert_table / sizeof ncl_k_convert_table[0];
#undef CVT_ENTRY

_Static_assert(sizeof ncl_k_convert_table / sizeof ncl_k_convert_table[0] ==
                   (size_t)NCL_NTYPES * NCL_NTYPES,
               "one convert kernel per (from, to) dtype pair");
