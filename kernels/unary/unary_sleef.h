/*
 * unary_sleef.h: the float32/float64 transcendental loops of the Unary
 * subsystem on SLEEF's vector functions, one loop per (op, dtype), choosing
 * SLEEF's 1-ulp (u10) or 3.5-ulp (u35) function from the caller's accuracy
 * tier (ctx->accuracy: NCL_ACCURACY_HIGH <= 1 ulp, NCL_ACCURACY_FAST <= 4).
 *
 * The vector width is the one this object is compiled for: AVX-512 (8
 * doubles, 16 floats), AVX2 + FMA (4, 8) or SSE2 (2, 4), each calling
 * SLEEF's function for exactly that ISA (never SLEEF's own dispatcher: the
 * variant was chosen when NCLib loaded). Without SSE2 (non-x86 builds) this
 * header defines nothing and unary.c keeps the scalar libm loops.
 *
 * FP flags. SLEEF raises no flag on purpose, and its intermediate steps
 * raise spurious ones (an overflowing intermediate, an invalid compare on a
 * NaN lane). So a loop here saves MXCSR on entry and puts it back on exit,
 * and reports through ctx->fpe what the function's IEEE semantics say,
 * computed from each input and its result with integer tests:
 *   INVALID    a NaN result from a non-NaN input (domain errors)
 *   DIVIDE     an infinite result from a finite input, for the functions
 *              with poles (log*, log1p, arctanh)
 *   OVERFLOW   an infinite result from a finite input, for the growing
 *              functions (exp*, sinh, cosh)
 *   UNDERFLOW  a non-zero subnormal result (all are inexact, except exp2
 *              of an integer, which is exact and raises nothing, as glibc),
 *              and a zero result of exp/exp2 from a finite input.
 * NaN inputs raise nothing, signalling or quiet (NumPy's rule).
 *
 * Accuracy. SLEEF's bounds hold on a documented domain; outside it some
 * functions saturate early (sinh/cosh give inf a little below the overflow
 * threshold, arcsinh/arccosh/log1p of huge arguments give inf). Each
 * function lists the |x| ranges where SLEEF is not trusted, and those lanes
 * are recomputed with the scalar function of unary_ops.h (within 1 ulp,
 * the same in both tiers), so no result depends on where it sits in a
 * vector, and the whole range meets the tier's bound. tests/test_accuracy.c
 * measures every function over edge and random inputs in both tiers.
 *
 * Layout. Contiguous aligned operands are read and written in place; any
 * other stride, or a misaligned pointer, is gathered into a stack block,
 * computed, and scattered. The last partial vector of a block is padded
 * with a copy of a real element, so a lane never sees an invented value.
 * Vectors are grouped from the start of each thread's range, and ranges
 * start on multiples of 64 elements, so a vector holds the same elements
 * whatever the layout or the thread count. That matters: some of SLEEF's
 * functions are not lane by lane (tan moves other lanes by an ulp when one
 * lane takes its slow reduction), so only NCLib's own functions, which
 * are, may let the output's address shift the grouping (streaming, below).
 */
#ifndef NCL_UNARY_SLEEF_H
#define NCL_UNARY_SLEEF_H

#include "unary_ops.h"

#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#  define NCL_UNARY_SLEEF 1
#else
#  define NCL_UNARY_SLEEF 0
#endif

#if NCL_UNARY_SLEEF

#include <fenv.h>
#include <immintrin.h>
#include <sleef.h>

/* ---- the vector layer: one set of names per ISA ---------------------------- */
#if defined(__AVX512F__)
typedef __m512d ncl_sv_f64;
typedef __m512 ncl_sv_f32;
#  define NCL_SV_N_f64 8
#  define NCL_SV_N_f32 16
#  define NCL_SV_LOAD_f64(p) _mm512_loadu_pd(p)
#  define NCL_SV_LOAD_f32(p) _mm512_loadu_ps(p)
#  define NCL_SV_STORE_f64(p, v) _mm512_storeu_pd((p), (v))
#  define NCL_SV_STORE_f32(p, v) _mm512_storeu_ps((p), (v))
#  define NCL_SV_STREAM_f64(p, v) _mm512_stream_pd((p), (v))
#  define NCL_SV_STREAM_f32(p, v) _mm512_stream_ps((p), (v))
#  define NCL_SV_FN_f64(fn, u) Sleef_##fn##d8_##u##avx512f
#  define NCL_SV_FN_f32(fn, u) Sleef_##fn##f16_##u##avx512f
#elif defined(__AVX2__) && defined(__FMA__)
typedef __m256d ncl_sv_f64;
typedef __m256 ncl_sv_f32;
#  define NCL_SV_N_f64 4
#  define NCL_SV_N_f32 8
#  define NCL_SV_LOAD_f64(p) _mm256_loadu_pd(p)
#  define NCL_SV_LOAD_f32(p) _mm256_loadu_ps(p)
#  define NCL_SV_STORE_f64(p, v) _mm256_storeu_pd((p), (v))
#  define NCL_SV_STORE_f32(p, v) _mm256_storeu_ps((p), (v))
#  define NCL_SV_STREAM_f64(p, v) _mm256_stream_pd((p), (v))
#  define NCL_SV_STREAM_f32(p, v) _mm256_stream_ps((p), (v))
#  define NCL_SV_FN_f64(fn, u) Sleef_##fn##d4_##u##avx2
#  define NCL_SV_FN_f32(fn, u) Sleef_##fn##f8_##u##avx2
#else
typedef __m128d ncl_sv_f64;
typedef __m128 ncl_sv_f32;
#  define NCL_SV_N_f64 2
#  define NCL_SV_N_f32 4
#  define NCL_SV_LOAD_f64(p) _mm_loadu_pd(p)
#  define NCL_SV_LOAD_f32(p) _mm_loadu_ps(p)
#  define NCL_SV_STORE_f64(p, v) _mm_storeu_pd((p), (v))
#  define NCL_SV_STORE_f32(p, v) _mm_storeu_ps((p), (v))
#  define NCL_SV_STREAM_f64(p, v) _mm_stream_pd((p), (v))
#  define NCL_SV_STREAM_f32(p, v) _mm_stream_ps((p), (v))
#  define NCL_SV_FN_f64(fn, u) Sleef_##fn##d2_##u##sse2
#  define NCL_SV_FN_f32(fn, u) Sleef_##fn##f4_##u##sse2
#endif

/* A SLEEF function of this width. Taken from a declaration: sleef.h
   declares the return types const, which a plain function pointer type
   would not match. */
typedef __typeof__(&NCL_SV_FN_f64(exp, u10)) ncl_sv_fn_f64;
typedef __typeof__(&NCL_SV_FN_f32(exp, u10)) ncl_sv_fn_f32;
/* NCLib's own vector functions (unary_vecmath.h), which take SLEEF's place
   where the table below names one. */
typedef ncl_sv_f64 (*ncl_vm_fn_f64)(ncl_sv_f64);
typedef ncl_sv_f32 (*ncl_vm_fn_f32)(ncl_sv_f32);
/* An own function may also come in two stages, f(x) = fb(fa(x)), where fa
   leaves its work in up to three vectors: the loop then runs software-
   pipelined, fa two vectors ahead of fb (see NCL_SV_DEFINE_RUN). */
typedef struct ncl_vm_mid_f64 {
    ncl_sv_f64 v[3];
} ncl_vm_mid_f64;
typedef struct ncl_vm_mid_f32 {
    ncl_sv_f32 v[3];
} ncl_vm_mid_f32;
typedef ncl_vm_mid_f64 (*ncl_vm_fa_f64)(ncl_sv_f64);
typedef ncl_vm_mid_f32 (*ncl_vm_fa_f32)(ncl_sv_f32);
typedef ncl_sv_f64 (*ncl_vm_fb_f64)(ncl_vm_mid_f64);
typedef ncl_sv_f32 (*ncl_vm_fb_f32)(ncl_vm_mid_f32);
#include "unary_vecmath.h"

/* Elements per block: the stack buffers of a gathered block (2 x 4 KiB).
   A block read and written in place needs no buffer and is longer (16 KiB
   of float32 or 32 KiB of float64, input and output), so that the fixed
   costs of a block (the flag test, a pipelined loop's fill and drain)
   count less; the flag pass, when one runs, still finds it in L1 or L2. */
#define NCL_SV_BLOCK 512
#define NCL_SV_BLOCK_DIRECT 2048

/* How a function's results map to FP flags, and where SLEEF is not used. */
enum {
    NCL_SV_ZERO_UNDERFLOWS = 1, /* a zero result from a finite input underflowed (exp, exp2) */
    NCL_SV_EXACT_INTEGERS = 2,  /* subnormal results of integer inputs are exact (exp2) */
    NCL_SV_SUBNORMAL_SCALAR = 4 /* subnormal inputs take the scalar function: f(x) rounds to x
                                   there, where SLEEF flushes some results to 0 (NCLib's own
                                   functions give x themselves: their runs skip the range) */
};
typedef struct ncl_sv_desc {
    int inf_flag;          /* the flag of an infinite result from a finite input, or 0 */
    int rules;             /* NCL_SV_* */
    /* |x| bit patterns in [lo, hi] (per range) are computed by the scalar
       function; an empty range has lo > hi. The first range is the
       function's own, the second the subnormals (NCL_SV_SUBNORMAL_SCALAR,
       SLEEF's functions only). */
    uint64_t fix_lo[2], fix_hi[2];
    /* The window: bit patterns of |x| (of x itself where win_raw) in
       [win_lo, win_lo + win_w) all give results that raise no flag, and lie
       outside every fix range (win_w 0: no window). The AVX-512 loop then
       tests only that each block's inputs lie there; a block with one
       outside takes the exact pass. */
    uint64_t win_lo, win_w;
    int win_raw;
} ncl_sv_desc;

/* Bit patterns and their classes; A is the pattern without its sign. */
#define NCL_SV_ABS_f64 UINT64_C(0x7fffffffffffffff)
#define NCL_SV_INF_f64 UINT64_C(0x7ff0000000000000)
#define NCL_SV_MIN_f64 UINT64_C(0x0010000000000000)
#define NCL_SV_ABS_f32 UINT32_C(0x7fffffff)
#define NCL_SV_INF_f32 UINT32_C(0x7f800000)
#define NCL_SV_MIN_f32 UINT32_C(0x00800000)

/* The flags of a block of m results y of inputs x (both contiguous), given
   whether some result is a NaN from a non-NaN input (inv), an infinity
   (inf), a zero (zero) from a finite input, or a non-zero subnormal (sub). */
#define NCL_SV_DEFINE_COMPOSE(sfx, T)                                                         \
    NCL_KINLINE int ncl_sv_compose_##sfx(const char *x, const char *y, int64_t m,              \
                                         const ncl_sv_desc *d, int inv, int inf, int sub,      \
                                         int zero)                                             \
    {                                                                                         \
        int f = (inv ? NCL_FPE_INVALID : 0) | (inf ? d->inf_flag : 0);                        \
        if (sub && (d->rules & NCL_SV_EXACT_INTEGERS)) {                                      \
            /* exp2: only a subnormal result of a non-integer input is inexact */           \
            sub = 0;                                                                          \
            for (int64_t i = 0; i < m; i++) {                                                 \
                T xv, yv;                                                                     \
                memcpy(&xv, x + i * (int64_t)sizeof(T), sizeof xv);                           \
                memcpy(&yv, y + i * (int64_t)sizeof(T), sizeof yv);                           \
                sub |= yv != 0 && fabs(yv) < (T)NCL_SV_TINY_##sfx && xv != rint(xv);          \
            }                                                                                 \
        }                                                                                     \
        if (sub || (zero && (d->rules & NCL_SV_ZERO_UNDERFLOWS))) f |= NCL_FPE_UNDERFLOW;     \
        return f;                                                                             \
    }

/* The flags of m results y of inputs x (both contiguous, any alignment),
   and in *fix whether some input lies in a range SLEEF is not trusted on.
   Branch-free integer tests the compiler vectorises; OR-reduced. */
#define NCL_SV_DEFINE_FLAGS(sfx, T, U)                                                      \
    NCL_KINLINE int ncl_sv_flags_##sfx(const char *x, const char *y, int64_t m,              \
                                      const ncl_sv_desc *d, int *fix)                       \
    {                                                                                       \
        U inv = 0, inf = 0, sub = 0, zero = 0, fx = 0;                                      \
        const U lo0 = (U)d->fix_lo[0], w0 = (U)(d->fix_hi[0] - d->fix_lo[0]);               \
        const U lo1 = (U)d->fix_lo[1], w1 = (U)(d->fix_hi[1] - d->fix_lo[1]);               \
        const int use0 = d->fix_lo[0] <= d->fix_hi[0], use1 = d->fix_lo[1] <= d->fix_hi[1]; \
        for (int64_t i = 0; i < m; i++) {                                                   \
            U bx, by;                                                                       \
            memcpy(&bx, x + i * (int64_t)sizeof(U), sizeof bx);                             \
            memcpy(&by, y + i * (int64_t)sizeof(U), sizeof by);                             \
            const U ax = bx & NCL_SV_ABS_##sfx, ay = by & NCL_SV_ABS_##sfx;                 \
            const U xnan = ax > NCL_SV_INF_##sfx, xfin = ax < NCL_SV_INF_##sfx;             \
            inv |= (ay > NCL_SV_INF_##sfx) & !xnan;                                         \
            inf |= (ay == NCL_SV_INF_##sfx) & xfin;                                         \
            sub |= (U)(ay - 1u) < (U)(NCL_SV_MIN_##sfx - 1u);                               \
            zero |= (ay == 0) & xfin;                                                       \
            fx |= ((U)(ax - lo0) <= w0) & (U)use0;                                          \
            fx |= ((U)(ax - lo1) <= w1) & (U)use1;                                          \
        }                                                                                   \
        *fix = fx != 0;                                                                     \
        return ncl_sv_compose_##sfx(x, y, m, d, inv != 0, inf != 0, sub != 0, zero != 0);   \
    }
#define NCL_SV_TINY_f64 DBL_MIN
#define NCL_SV_TINY_f32 FLT_MIN
NCL_SV_DEFINE_COMPOSE(f64, double)
NCL_SV_DEFINE_COMPOSE(f32, float)
NCL_SV_DEFINE_FLAGS(f64, double, uint64_t)
NCL_SV_DEFINE_FLAGS(f32, float, uint32_t)
#undef NCL_SV_DEFINE_FLAGS
#undef NCL_SV_DEFINE_COMPOSE

/* In the AVX2 and AVX-512 builds the loop does not pass over each block a
   second time: while each vector's inputs and results are still in
   registers it notes whether some result is special (a NaN, an infinity, a
   zero or a subnormal: the only results that raise a flag) and whether some
   input lies in an untrusted range. A block whose results are all finite and
   normal raises nothing; only a block with a special result takes the exact
   pass above (ncl_sv_flags_) to find out which flags. That costs one class
   test per vector where the former per-class masks cost six (measured in
   bench/notes.md, row 11).
   Accumulators: a mask of lanes (AVX-512) or a vector of lane masks (AVX2).
   "Untrusted" is kept as its complement on AVX2, lanes outside every range
   so far, which its signed compares give in one step. */
#if defined(__AVX512F__) && defined(__AVX512DQ__)
typedef struct ncl_sv_vacc {
    unsigned spec, fx;
    __m512i win; /* the largest (|x| or x) - win_lo, as unsigned numbers */
} ncl_sv_vacc;
#  define NCL_SV_VACC_INIT {0, 0, {0, 0, 0, 0, 0, 0, 0, 0}}
/* fpclass categories 0xBF: QNaN, SNaN, zeros, infinities, subnormals */
#  define NCL_SV_SPECIAL_f64(y) ((unsigned)_mm512_fpclass_pd_mask((y), 0xBF))
#  define NCL_SV_SPECIAL_f32(y) ((unsigned)_mm512_fpclass_ps_mask((y), 0xBF))
/* v's bit pattern minus lo, as unsigned numbers */
#  define NCL_SV_OFF_f64(v, lo) _mm512_sub_epi64(_mm512_castpd_si512(v), _mm512_set1_epi64((long long)(lo)))
#  define NCL_SV_OFF_f32(v, lo) _mm512_sub_epi32(_mm512_castps_si512(v), _mm512_set1_epi32((int)(lo)))
/* lanes whose |x| bit pattern lies in [lo, lo + w] */
#  define NCL_SV_INRANGE_f64(x, lo, w) \
    ((unsigned)_mm512_cmple_epu64_mask(NCL_SV_OFF_f64(_mm512_abs_pd(x), lo), _mm512_set1_epi64((long long)(w))))
#  define NCL_SV_INRANGE_f32(x, lo, w) \
    ((unsigned)_mm512_cmple_epu32_mask(NCL_SV_OFF_f32(_mm512_abs_ps(x), lo), _mm512_set1_epi32((int)(w))))
/* With a window, three integer operations per vector that run beside the
   floating-point ones (and, subtract, unsigned max) in place of a class
   test and a range compare, which take floating-point slots (bench/notes.md,
   row 11). */
#  define NCL_SV_WINMAX_f64(a, x, d) \
    _mm512_max_epu64((a), NCL_SV_OFF_f64((d)->win_raw ? (x) : _mm512_abs_pd(x), (d)->win_lo))
#  define NCL_SV_WINMAX_f32(a, x, d) \
    _mm512_max_epu32((a), NCL_SV_OFF_f32((d)->win_raw ? (x) : _mm512_abs_ps(x), (d)->win_lo))
#  define NCL_SV_WINOUT_f64(a, w) (_mm512_cmpge_epu64_mask((a), _mm512_set1_epi64((long long)(w))) != 0)
#  define NCL_SV_WINOUT_f32(a, w) (_mm512_cmpge_epu32_mask((a), _mm512_set1_epi32((int)(w))) != 0)
/* The two-stage loop needs the window: its vectors' flags come from their
   inputs alone, noted as each is read */
#  define NCL_SV_PIPELINE 1
#  define NCL_SV_VWIN(sfx, xv) (vacc.win = NCL_SV_WINMAX_##sfx(vacc.win, (xv), d))
#  define NCL_SV_DEFINE_VCLASS(sfx, U)                                                       \
    NCL_KINLINE void ncl_sv_vclass_##sfx(ncl_sv_##sfx x, ncl_sv_##sfx y, const ncl_sv_desc *d, \
                                         ncl_sv_vacc *a)                                     \
    {                                                                                        \
        if (d->win_w) {                                                                      \
            a->win = NCL_SV_WINMAX_##sfx(a->win, x, d);                                      \
            return;                                                                          \
        }                                                                                    \
        a->spec |= NCL_SV_SPECIAL_##sfx(y);                                                  \
        for (int r = 0; r < 2; r++)                                                          \
            if (d->fix_lo[r] <= d->fix_hi[r])                                                \
                a->fx |= NCL_SV_INRANGE_##sfx(x, (U)d->fix_lo[r], (U)(d->fix_hi[r] - d->fix_lo[r])); \
    }
/* Whether some input is untrusted, and whether some result is special;
   an input outside the window may be either, which the exact pass tells */
#  define NCL_SV_VACC_FIX(a) ((a).fx != 0)
#  define NCL_SV_VACC_SPEC(sfx, a, d) ((a).spec != 0 || ((d)->win_w && NCL_SV_WINOUT_##sfx((a).win, (d)->win_w)))
#elif defined(__AVX2__) && defined(__FMA__)
typedef struct ncl_sv_vacc {
    __m256i spec, out;
} ncl_sv_vacc;
#  define NCL_SV_VACC_INIT {_mm256_setzero_si256(), _mm256_set1_epi32(-1)}
/* |v|'s bits b, and whether b - lo > w as unsigned numbers: b - lo + MIN >
   w + MIN as signed ones (b, lo and w are below 2^(bits - 1)) */
#  define NCL_SV_ABSBITS_f64(v) _mm256_castpd_si256(_mm256_andnot_pd(_mm256_set1_pd(-0.0), (v)))
#  define NCL_SV_ABSBITS_f32(v) _mm256_castps_si256(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), (v)))
#  define NCL_SV_OUTSIDE_f64(b, lo, w)                                                     \
    _mm256_cmpgt_epi64(_mm256_add_epi64((b), _mm256_set1_epi64x((long long)(INT64_MIN - (lo)))), \
                       _mm256_set1_epi64x((long long)(INT64_MIN + (w))))
#  define NCL_SV_OUTSIDE_f32(b, lo, w)                                                     \
    _mm256_cmpgt_epi32(_mm256_add_epi32((b), _mm256_set1_epi32((int)(INT32_MIN - (lo)))),  \
                       _mm256_set1_epi32((int)(INT32_MIN + (w))))
/* special results: |y|'s bits outside [MIN, INF - 1], the normal numbers */
#  define NCL_SV_DEFINE_VCLASS(sfx, U)                                                       \
    NCL_KINLINE void ncl_sv_vclass_##sfx(ncl_sv_##sfx x, ncl_sv_##sfx y, const ncl_sv_desc *d, \
                                         ncl_sv_vacc *a)                                     \
    {                                                                                        \
        a->spec = _mm256_or_si256(a->spec, NCL_SV_OUTSIDE_##sfx(NCL_SV_ABSBITS_##sfx(y),      \
                                                                NCL_SV_MIN_##sfx,            \
                                                                NCL_SV_INF_##sfx - 1u - NCL_SV_MIN_##sfx)); \
        const __m256i b = NCL_SV_ABSBITS_##sfx(x);                                           \
        for (int r = 0; r < 2; r++)                                                          \
            if (d->fix_lo[r] <= d->fix_hi[r])                                                \
                a->out = _mm256_and_si256(a->out, NCL_SV_OUTSIDE_##sfx(b, (U)d->fix_lo[r],   \
                                                                       (U)(d->fix_hi[r] - d->fix_lo[r]))); \
    }
#  define NCL_SV_VACC_FIX(a) (!_mm256_testc_si256((a).out, _mm256_set1_epi32(-1)))
#  define NCL_SV_VACC_SPEC(sfx, a, d) (!_mm256_testz_si256((a).spec, (a).spec))
#endif

#ifdef NCL_SV_VACC_INIT
NCL_SV_DEFINE_VCLASS(f64, uint64_t)
NCL_SV_DEFINE_VCLASS(f32, uint32_t)
#  undef NCL_SV_DEFINE_VCLASS
/* The flags of the block just computed, and in *fix whether some input is
   untrusted (the caller then recomputes those lanes and the flags); the
   accumulator starts again for the next block. */
#  define NCL_SV_DEFINE_VFLAGS(sfx)                                                          \
    NCL_KINLINE int ncl_sv_vflags_##sfx(const char *x, const char *y, int64_t m,              \
                                        const ncl_sv_desc *d, ncl_sv_vacc *a, int *fix)      \
    {                                                                                        \
        int f = 0;                                                                           \
        *fix = NCL_SV_VACC_FIX(*a);                                                          \
        if (!*fix && NCL_SV_VACC_SPEC(sfx, *a, d)) f = ncl_sv_flags_##sfx(x, y, m, d, fix);  \
        *a = (ncl_sv_vacc)NCL_SV_VACC_INIT;                                                  \
        return f;                                                                            \
    }
NCL_SV_DEFINE_VFLAGS(f64)
NCL_SV_DEFINE_VFLAGS(f32)
#  undef NCL_SV_DEFINE_VFLAGS
#  define NCL_SV_VACC_DECL ncl_sv_vacc vacc = NCL_SV_VACC_INIT
#  define NCL_SV_VACC(sfx, xv, yv) ncl_sv_vclass_##sfx((xv), (yv), d, &vacc)
#  define NCL_SV_BLOCK_FLAGS(sfx, x, y, m, fix) ncl_sv_vflags_##sfx((x), (y), (m), d, &vacc, (fix))
#else
#  define NCL_SV_VACC_DECL (void)0
#  define NCL_SV_VACC(sfx, xv, yv) (void)0
#  define NCL_SV_BLOCK_FLAGS(sfx, x, y, m, fix) ncl_sv_flags_##sfx((x), (y), (m), d, (fix))
#endif
#ifndef NCL_SV_PIPELINE
#  define NCL_SV_PIPELINE 0
#  define NCL_SV_VWIN(sfx, xv) (void)(xv)
#endif

/* Where a contiguous output of n elements, written in place, is streamed
   (ncl_stream_head: the elements before its first 64-byte boundary, or -1),
   counting the input's bytes (as many) in the call's footprint. The result
   vectors then go out with non-temporal stores straight from registers,
   once the output reaches a 64-byte boundary (the first block ends there);
   the blocks' flag pass and fix-up read and write them back as before (a
   core sees its own streamed stores), and one sfence ends the call. Only
   NCLib's own functions stream: they are lane by lane, where some of
   SLEEF's reduce a whole vector the slow way when one lane needs it (tan:
   other lanes move by an ulp), so the vectors' grouping, which the first
   block shifts, must not matter. (Through an L1 block instead, the extra
   copy cost more than it saved: bench/notes.md row 11.) */
#ifdef NCL_STREAM_STORES
#  define NCL_SV_STREAM_HEAD(ctx, op, n, S) ncl_stream_head((ctx), (op), (n), (S), (n) * (S))
#else
#  define NCL_SV_STREAM_HEAD(ctx, op, n, S) ((int64_t)-1)
#endif

/* One result vector to p: streamed or stored. */
#define NCL_SV_PUT(sfx, T, p, yv, stream)                            \
    do {                                                             \
        if (stream)                                                  \
            NCL_SV_STREAM_##sfx((T *)(void *)(p), (yv));             \
        else                                                         \
            NCL_SV_STORE_##sfx((T *)(void *)(p), (yv));              \
    } while (0)

/* The two-stage loop over the whole vectors of a block (at least three)
   from element i on: pa of vector k + 2 comes before pb of vector k, three
   steps a turn so that the states need no copies. Inside NCL_SV_DEFINE_RUN
   (its block xp, yp, m, W, S and stages pa, pb). (With the stream test
   taken out of the loop, gcc spilled a register there: no faster.) */
#define NCL_SV_PIPE_A(sfx, T, st, k)                                                          \
    do {                                                                                      \
        const ncl_sv_##sfx xk_ = NCL_SV_LOAD_##sfx((const T *)(const void *)(xp + (k) * S));  \
        NCL_SV_VWIN(sfx, xk_);                                                                \
        (st) = pa(xk_);                                                                       \
    } while (0)
#define NCL_SV_PIPE_B(sfx, T, st, k, stream) NCL_SV_PUT(sfx, T, yp + (k) * S, pb(st), stream)
#define NCL_SV_PIPE_LOOP(sfx, T, stream)                                                       \
    do {                                                                                      \
        ncl_vm_mid_##sfx s0, s1, s2;                                                          \
        NCL_SV_PIPE_A(sfx, T, s0, i);                                                         \
        NCL_SV_PIPE_A(sfx, T, s1, i + W);                                                     \
        for (; i + 5 * W <= m; i += 3 * W) {                                                  \
            NCL_SV_PIPE_A(sfx, T, s2, i + 2 * W);                                             \
            NCL_SV_PIPE_B(sfx, T, s0, i, stream);                                             \
            NCL_SV_PIPE_A(sfx, T, s0, i + 3 * W);                                             \
            NCL_SV_PIPE_B(sfx, T, s1, i + W, stream);                                         \
            NCL_SV_PIPE_A(sfx, T, s1, i + 4 * W);                                             \
            NCL_SV_PIPE_B(sfx, T, s2, i + 2 * W, stream);                                     \
        }                                                                                     \
        for (; i + 3 * W <= m; i += W) {                                                      \
            NCL_SV_PIPE_A(sfx, T, s2, i + 2 * W);                                             \
            NCL_SV_PIPE_B(sfx, T, s0, i, stream);                                             \
            s0 = s1;                                                                          \
            s1 = s2;                                                                          \
        }                                                                                     \
        NCL_SV_PIPE_B(sfx, T, s0, i, stream);                                                 \
        NCL_SV_PIPE_B(sfx, T, s1, i + W, stream);                                             \
        i += 2 * W;                                                                           \
    } while (0)

/* The loop: vector function F (SLEEF's v, out of line, or NCLib's own
   function o, inlined into its kernel so that o is called directly) over
   the vectors, scalar function s on the lanes the vector function is not
   trusted on, flags from the results.
   An own function given in two stages (pa, pb) runs software-pipelined
   over a block's whole vectors where the loop keeps an input window (the
   AVX-512 build, a desc with a window: a vector's flags then need only its
   input): pa of vector i + 2 comes before pb of vector i in program order.
   PIPE is 0 for SLEEF's runs, so that the branch folds away there. The same operations then run faster
   (float32 sin HIGH on AVX-512: 16.4 -> 14.9 cycles a vector, bench/notes.md
   row 11): the core's schedulers hold the next vectors' reductions, ready to
   run, instead of the current ones' long dependence chains waiting on each
   other. The results are the same bits: each lane still gets pb(pa(x)). */
#define NCL_SV_DEFINE_RUN(name, sfx, T, U, ATTR, FT, F, STREAM, PIPE)                          \
    ATTR NclStatus name##_##sfx(const NclKernelCtx *ctx, char *const *args, int64_t n,         \
                                const int64_t *steps, FT F, ncl_vm_fa_##sfx pa,                \
                                ncl_vm_fb_##sfx pb, T (*s)(T, int *), const ncl_sv_desc *d)    \
    {                                                                                          \
        enum { W = NCL_SV_N_##sfx, B = NCL_SV_BLOCK, S = (int)sizeof(T) };                      \
        T xb[NCL_SV_BLOCK], yb[NCL_SV_BLOCK];                                                   \
        const char *ip = args[0];                                                               \
        char *op = args[1];                                                                     \
        const int64_t is = steps[0], os = steps[1];                                             \
        /* read in place when contiguous and aligned; write in place too unless the          \
           output is the input (the flags need the inputs after the results exist) */       \
        const int in_direct = is == S && ((uintptr_t)ip % S) == 0;                              \
        const int out_direct = os == S && ((uintptr_t)op % S) == 0 && !(in_direct && op == ip); \
        const unsigned int csr = _mm_getcsr();                                                  \
        int fpe = 0;                                                                            \
        NCL_SV_VACC_DECL;                                                                       \
        const int64_t head = (STREAM) && out_direct ? NCL_SV_STREAM_HEAD(ctx, op, n, S) : -1;  \
        const int nt = head >= 0;                                                               \
        /* blocks in place are longer: fewer drains of a pipelined loop */                  \
        const int64_t bm = in_direct && out_direct ? NCL_SV_BLOCK_DIRECT : B;                   \
        const int64_t first = head > 0 ? head : bm;                                             \
        for (int64_t done = 0, m; done < n; done += m) {                                        \
            m = done ? bm : first;                                                              \
            if (m > n - done) m = n - done;                                                     \
            const char *xp;                                                                     \
            char *yp;                                                                           \
            if (in_direct) {                                                                    \
                xp = ip + done * S;                                                             \
            } else {                                                                            \
                const char *p = ip + done * is;                                                 \
                for (int64_t i = 0; i < m; i++, p += is) memcpy(&xb[i], p, S);                  \
                xp = (const char *)xb;                                                          \
            }                                                                                   \
            yp = out_direct ? op + done * S : (char *)yb;                                       \
            const int stream = nt && ((uintptr_t)yp & 63) == 0;                                 \
            int64_t i = 0;                                                                      \
            if ((PIPE) && NCL_SV_PIPELINE && pa && d->win_w && m >= 3 * W) {                    \
                NCL_SV_PIPE_LOOP(sfx, T, stream);                                               \
            }                                                                                   \
            for (; i + W <= m; i += W) {                                                        \
                const ncl_sv_##sfx xv = NCL_SV_LOAD_##sfx((const T *)(const void *)(xp + i * S));  \
                const ncl_sv_##sfx yv = F(xv);                                                  \
                NCL_SV_PUT(sfx, T, yp + i * S, yv, stream);                                     \
                NCL_SV_VACC(sfx, xv, yv);                                                       \
            }                                                                                   \
            if (i < m) {                                                                        \
                T tx[W], ty[W];                                                                 \
                for (int k = 0; k < W; k++) memcpy(&tx[k], xp + (i + (k < m - i ? k : 0)) * S, S); \
                const ncl_sv_##sfx xv = NCL_SV_LOAD_##sfx(tx);                                  \
                const ncl_sv_##sfx yv = F(xv);                                                  \
                NCL_SV_STORE_##sfx(ty, yv);                                                     \
                NCL_SV_VACC(sfx, xv, yv);                                                       \
                memcpy(yp + i * S, ty, (size_t)(m - i) * S);                                    \
            }                                                                                   \
            int fix;                                                                            \
            int f = NCL_SV_BLOCK_FLAGS(sfx, xp, yp, m, &fix);                                   \
            if (fix) {                                                                          \
                ncl_sv_fixup_##sfx(xp, yp, m, s, d);                                            \
                f = ncl_sv_flags_##sfx(xp, yp, m, d, &fix);                                     \
            }                                                                                   \
            fpe |= f;                                                                           \
            if (!out_direct) {                                                                  \
                if (os == S) {                                                                  \
                    memcpy(op + done * S, yb, (size_t)m * S);                                   \
                } else {                                                                        \
                    char *p = op + done * os;                                                   \
                    for (int64_t k = 0; k < m; k++, p += os) memcpy(p, &yb[k], S);              \
                }                                                                               \
            }                                                                                   \
        }                                                                                       \
        if (nt) _mm_sfence();                                                                   \
        _mm_setcsr(csr);                                                                        \
        if (fpe) *ctx->fpe |= fpe;                                                              \
        return NCL_OK;                                                                          \
    }

/* Recomputes, with the scalar function, the results of the inputs in the
   untrusted ranges. The scalar functions may run on the x87 (long double
   evaluations), whose status word MXCSR does not cover: its environment is
   put back as it was. Their flags are not taken; the caller recomputes the
   flags from the results. Rare: only inputs near a function's limits. */
#define NCL_SV_DEFINE_FIXUP(sfx, T, U)                                                       \
    static void ncl_sv_fixup_##sfx(const char *x, char *y, int64_t m, T (*s)(T, int *),       \
                                   const ncl_sv_desc *d)                                      \
    {                                                                                         \
        fenv_t env;                                                                           \
        fegetenv(&env);                                                                       \
        for (int64_t i = 0; i < m; i++) {                                                     \
            U bx;                                                                             \
            T xv;                                                                             \
            memcpy(&bx, x + i * (int64_t)sizeof(U), sizeof bx);                               \
            const U ax = bx & NCL_SV_ABS_##sfx;                                               \
            int hit = 0;                                                                      \
            for (int r = 0; r < 2; r++)                                                       \
                hit |= d->fix_lo[r] <= d->fix_hi[r] && ax >= (U)d->fix_lo[r] && ax <= (U)d->fix_hi[r]; \
            if (!hit) continue;                                                               \
            int e = 0;                                                                        \
            memcpy(&xv, &bx, sizeof xv);                                                      \
            const T yv = s(xv, &e);                                                           \
            memcpy(y + i * (int64_t)sizeof(T), &yv, sizeof yv);                               \
        }                                                                                     \
        fesetenv(&env);                                                                       \
    }
NCL_SV_DEFINE_FIXUP(f64, double, uint64_t)
NCL_SV_DEFINE_FIXUP(f32, float, uint32_t)
#undef NCL_SV_DEFINE_FIXUP
NCL_SV_DEFINE_RUN(ncl_sv_run, f64, double, uint64_t, static, ncl_sv_fn_f64, v, 0, 0)
NCL_SV_DEFINE_RUN(ncl_sv_run, f32, float, uint32_t, static, ncl_sv_fn_f32, v, 0, 0)
NCL_SV_DEFINE_RUN(ncl_sv_run_own, f64, double, uint64_t, NCL_KINLINE, ncl_vm_fn_f64, o, 1, 1)
NCL_SV_DEFINE_RUN(ncl_sv_run_own, f32, float, uint32_t, NCL_KINLINE, ncl_vm_fn_f32, o, 1, 1)
#undef NCL_SV_DEFINE_RUN
#undef NCL_SV_PIPE_LOOP
#undef NCL_SV_PIPE_B
#undef NCL_SV_PIPE_A
#undef NCL_SV_PUT

/* The tier's own function when there is one, else its SLEEF function; o is
   a constant in each kernel, so the test folds away. */
#define NCL_SV_DEFINE_PICK(sfx, T)                                                                \
    NCL_KINLINE NclStatus ncl_sv_pick_##sfx(const NclKernelCtx *ctx, char *const *args, int64_t n, \
                                            const int64_t *steps, ncl_sv_fn_##sfx v,             \
                                            ncl_vm_fn_##sfx o, ncl_vm_fa_##sfx pa,               \
                                            ncl_vm_fb_##sfx pb, T (*s)(T, int *),                \
                                            const ncl_sv_desc *d, const ncl_sv_desc *od)         \
    {                                                                                             \
        if (o) return ncl_sv_run_own_##sfx(ctx, args, n, steps, o, pa, pb, s, od);                \
        return ncl_sv_run_##sfx(ctx, args, n, steps, v, 0, 0, s, d);                              \
    }
NCL_SV_DEFINE_PICK(f64, double)
NCL_SV_DEFINE_PICK(f32, float)
#undef NCL_SV_DEFINE_PICK

/* ---- the functions ----------------------------------------------------------
   X(op, SLEEF name, the fast tier's variant, inf flag, rules, f64 fix range,
   f32 fix range); a fix range is lo, hi on |x|'s bit pattern, NONE empty.
   SLEEF 3.5 has only u10 for exp, expm1, log10, log1p, arcsinh, arccosh,
   arctanh: the fast tier uses it too. */
#define NCL_SV_NONE_ 1, 0
/* exp (f64): SLEEF gives inf from 709.7827111 on, a little short of the
   true threshold 709.782712893384. */
#define NCL_SV_EXP_FIX_f64 UINT64_C(0x4086280000000000), UINT64_C(0x40862e51eb851eb8) /* 709, 709.79 */
/* sinh/cosh: SLEEF's bound holds for |x| <= 709 (f64) / 88 (f32); above it
   saturates to inf early, short of the true overflow thresholds
   710.4758600739439 / 89.41598629223294. */
#define NCL_SV_SINH_FIX_f64 UINT64_C(0x4086280000000000), UINT64_C(0x4086340000000000) /* 709, 710.5 */
#define NCL_SV_SINH_FIX_f32 UINT32_C(0x42b00000), UINT32_C(0x42b30000)                 /* 88, 89.5 */
/* arcsinh/arccosh: SLEEF is exact only below 2^511 (f64) / 2^63 (f32). */
#define NCL_SV_AH_FIX_f64 UINT64_C(0x5fe0000000000000), UINT64_C(0x7fefffffffffffff)
#define NCL_SV_AH_FIX_f32 UINT32_C(0x5f000000), UINT32_C(0x7f7fffff)
/* log1p: SLEEF's bound holds below 1e307 (f64) / 1e38 (f32). */
#define NCL_SV_L1P_FIX_f64 UINT64_C(0x7fac7b1f3cac7433), UINT64_C(0x7fefffffffffffff)
#define NCL_SV_L1P_FIX_f32 UINT32_C(0x7e967699), UINT32_C(0x7f7fffff)

#define NCL_SV_SUB_ NCL_SV_SUBNORMAL_SCALAR
/* own64, own32: NCLib's vector functions of that dtype (unary_vecmath.h)
   for the HIGH and the FAST tier, 0 for SLEEF's (NCL_SV_SLEEF_ both), the
   HIGH function's two stages (0, 0 for none), and their window (win_lo,
   win_w, win_raw of the desc; 0, 0, 0 for none). */
#define NCL_SV_SLEEF_ 0, 0, 0, 0, 0, 0, 0
#define NCL_SV_OPS(X)                                                                            \
    X(exp, exp, u10, NCL_FPE_OVERFLOW, NCL_SV_ZERO_UNDERFLOWS, NCL_VM_OWN_exp_f64, NCL_VM_OWN_exp_f32,   \
      NCL_VM_EXP_FIX_f64, NCL_SV_NONE_)                                                            \
    X(exp2, exp2, u35, NCL_FPE_OVERFLOW, NCL_SV_ZERO_UNDERFLOWS | NCL_SV_EXACT_INTEGERS,           \
      NCL_SV_SLEEF_, NCL_SV_SLEEF_, NCL_SV_NONE_, NCL_SV_NONE_)                                    \
    X(expm1, expm1, u10, NCL_FPE_OVERFLOW, NCL_SV_SUB_, NCL_SV_SLEEF_, NCL_SV_SLEEF_, NCL_SV_NONE_, \
      NCL_SV_NONE_)                                                                                \
    X(log, log, u35, NCL_FPE_DIVIDE, 0, NCL_VM_OWN_log_f64, NCL_VM_OWN_log_f32, NCL_SV_NONE_,            \
      NCL_SV_NONE_)                                                                                \
    X(log2, log2, u35, NCL_FPE_DIVIDE, 0, NCL_SV_SLEEF_, NCL_SV_SLEEF_, NCL_SV_NONE_, NCL_SV_NONE_) \
    X(log10, log10, u10, NCL_FPE_DIVIDE, 0, NCL_SV_SLEEF_, NCL_SV_SLEEF_, NCL_SV_NONE_,             \
      NCL_SV_NONE_)                                                                                \
    X(log1p, log1p, u10, NCL_FPE_DIVIDE, NCL_SV_SUB_, NCL_SV_SLEEF_, NCL_SV_SLEEF_,                 \
      NCL_SV_L1P_FIX_f64, NCL_SV_L1P_FIX_f32)                                                      \
    X(sin, sin, u35, 0, NCL_SV_SUB_, NCL_VM_OWN_sin_f64, NCL_VM_OWN_sin_f32, NCL_VM_TRIG_FIX_f64,  \
      NCL_VM_TRIG_FIX_f32)                                                                         \
    X(cos, cos, u35, 0, 0, NCL_VM_OWN_cos_f64, NCL_VM_OWN_cos_f32, NCL_VM_TRIG_FIX_f64,             \
      NCL_VM_TRIG_FIX_f32)                                                                         \
    X(tan, tan, u35, 0, NCL_SV_SUB_, NCL_SV_SLEEF_, NCL_SV_SLEEF_, NCL_SV_NONE_, NCL_SV_NONE_)     \
    X(arcsin, asin, u35, 0, NCL_SV_SUB_, NCL_SV_SLEEF_, NCL_SV_SLEEF_, NCL_SV_NONE_, NCL_SV_NONE_) \
    X(arccos, acos, u35, 0, 0, NCL_SV_SLEEF_, NCL_SV_SLEEF_, NCL_SV_NONE_, NCL_SV_NONE_)           \
    X(arctan, atan, u35, 0, NCL_SV_SUB_, NCL_SV_SLEEF_, NCL_SV_SLEEF_, NCL_SV_NONE_, NCL_SV_NONE_) \
    X(sinh, sinh, u35, NCL_FPE_OVERFLOW, NCL_SV_SUB_, NCL_SV_SLEEF_, NCL_SV_SLEEF_,                 \
      NCL_SV_SINH_FIX_f64, NCL_SV_SINH_FIX_f32)                                                    \
    X(cosh, cosh, u35, NCL_FPE_OVERFLOW, 0, NCL_SV_SLEEF_, NCL_SV_SLEEF_, NCL_SV_SINH_FIX_f64,      \
      NCL_SV_SINH_FIX_f32)                                                                         \
    X(tanh, tanh, u35, 0, NCL_SV_SUB_, NCL_SV_SLEEF_, NCL_SV_SLEEF_, NCL_SV_NONE_, NCL_SV_NONE_)   \
    X(arcsinh, asinh, u10, 0, NCL_SV_SUB_, NCL_SV_SLEEF_, NCL_SV_SLEEF_, NCL_SV_AH_FIX_f64,         \
      NCL_SV_AH_FIX_f32)                                                                           \
    X(arccosh, acosh, u10, 0, 0, NCL_SV_SLEEF_, NCL_SV_SLEEF_, NCL_SV_AH_FIX_f64, NCL_SV_AH_FIX_f32) \
    X(arctanh, atanh, u10, NCL_FPE_DIVIDE, NCL_SV_SUB_, NCL_SV_SLEEF_, NCL_SV_SLEEF_, NCL_SV_NONE_, \
      NCL_SV_NONE_)                                                                                \
    X(cbrt, cbrt, u35, 0, NCL_SV_SUB_, NCL_SV_SLEEF_, NCL_SV_SLEEF_, NCL_SV_NONE_, NCL_SV_NONE_)

/* ncl_k_<op>_<sfx>: the kernel of each (op, dtype), on the tier's own
   function (desc od: no subnormal range, the vector gives f(x) = x there,
   which tests/test_unary_kernels.c checks over every float32 subnormal) or
   else its SLEEF function (desc d). */
#define NCL_SV_KERNEL_(op, fn, fast, infl, rules, sfx, ownh, ownf, pah, pbh, wlo, ww, wraw, flo, \
                       fhi)                                                                    \
    static const ncl_sv_desc ncl_sv_desc_##op##_##sfx = {                                      \
        infl, rules, {flo, 1}, {fhi, (rules) & NCL_SV_SUBNORMAL_SCALAR ? NCL_SV_MIN_##sfx - 1u : 0}, \
        0, 0, 0};                                                                              \
    static const ncl_sv_desc ncl_sv_odesc_##op##_##sfx = {infl, rules, {flo, 1}, {fhi, 0}, wlo, ww, wraw}; \
    static NclStatus ncl_k_##op##_##sfx(NclKernelNode *self, const NclKernelCtx *ctx,          \
                                        char *const *args, int64_t n, const int64_t *steps)    \
    {                                                                                          \
        (void)self;                                                                            \
        if (ctx->accuracy == NCL_ACCURACY_FAST)                                                \
            return ncl_sv_pick_##sfx(ctx, args, n, steps, NCL_SV_FN_##sfx(fn, fast), ownf, 0,  \
                                     0, op_##op##_##sfx, &ncl_sv_desc_##op##_##sfx,            \
                                     &ncl_sv_odesc_##op##_##sfx);                              \
        return ncl_sv_pick_##sfx(ctx, args, n, steps, NCL_SV_FN_##sfx(fn, u10), ownh, pah,     \
                                 pbh, op_##op##_##sfx, &ncl_sv_desc_##op##_##sfx,              \
                                 &ncl_sv_odesc_##op##_##sfx);                                  \
    }
#define NCL_SV_KERNEL2_(op, fn, fast, infl, rules, sfx, ...) NCL_SV_KERNEL_(op, fn, fast, infl, rules, sfx, __VA_ARGS__)
#define NCL_SV_KERNELS_(op, fn, fast, infl, rules, own64, own32, r64, r32) \
    NCL_SV_KERNEL2_(op, fn, fast, infl, rules, f64, own64, r64)            \
    NCL_SV_KERNEL2_(op, fn, fast, infl, rules, f32, own32, r32)
NCL_SV_OPS(NCL_SV_KERNELS_)
#undef NCL_SV_KERNELS_
#undef NCL_SV_KERNEL2_
#undef NCL_SV_KERNEL_

#endif /* NCL_UNARY_SLEEF */
#endif /* NCL_UNARY_SLEEF_H */
