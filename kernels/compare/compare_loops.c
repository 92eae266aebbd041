/*
 * compare_loops.c: the built-in Compare kernels: EQ, NE, LT, LE, GT, GE for
 * every ordered pair of the eleven dtypes (726 kernels), writing bool.
 *
 * The framework calls these on the operands' own dtypes, never casting
 * first, so each loop compares the mathematical values exactly: int64
 * against uint64, any integer against any float (2**53 + 1 as int64 is
 * greater than 2**53 as float64), bool as 0 and 1. NaN is unordered: NE is
 * true, every other relation false. A comparison raises no floating-point
 * flag, as in NumPy. Nothing here converts a float to an integer outside the
 * integer's range.
 *
 * Layout: plain relations of one C type; the exact mixed-kind helpers; one
 * relation function per dtype pair choosing its method at compile time from
 * the kinds and sizes; then the loops. GT and GE run the LT and LE loops of
 * the swapped pair, which halves the code without costing a cycle.
 */
#include "ncl_kernel.h"
#include "convert/dtype_pairs.h"
#include "convert/float_to_uint64.h"

#include <fenv.h>
/* On x86-64 all float and double arithmetic is SSE, so MXCSR holds every
   flag a loop here can raise. */
#if defined(__x86_64__) && defined(__SSE2__)
#  include <xmmintrin.h>
#  define CMP_USE_MXCSR 1
#endif

/* The relation a kernel asks for; a compile-time constant everywhere. */
enum { REL_LT, REL_LE, REL_EQ, REL_GT, REL_GE };

/* b R a, for the relation R that makes it equivalent to a rel b. */
NCL_KINLINE int rel_mirror(int rel)
{
    return rel == REL_LT ? REL_GT : rel == REL_LE ? REL_GE : rel == REL_GT ? REL_LT
         : rel == REL_GE ? REL_LE : REL_EQ;
}

#include "compare/compare_simd.h"

/* Two values of one C type: the C operators are exact, and on floats NaN
   makes every relation but NE false. Same-dtype loops reduce to these, so
   they vectorise as a single compare per element. */
#define CMP_DEFINE_PLAIN(E, s, T, name, kind)                                    \
    NCL_KINLINE int plain_##s(T x, T y, int rel)                                 \
    {                                                                            \
        return rel == REL_LT ? x < y : rel == REL_LE ? x <= y : rel == REL_EQ ? x == y \
             : rel == REL_GT ? x > y : x >= y;                                   \
    }
NCL_DTYPE_LIST(CMP_DEFINE_PLAIN)
#undef CMP_DEFINE_PLAIN

/* a (int64) rel b (uint64). When b's top bit is set, b >= 2**63 exceeds every
   int64; otherwise b read as int64 is b itself. Both forms below are
   lane-wise and branch-free, so the loop vectorises like an int64 compare
   plus one operation; which extra operation is cheapest depends on the
   ISA (measured, n = 16384, against the int64-vs-int64 loop):
   - a select on b's sign: with AVX2 that is one blend keyed by b's sign
     bit itself (clang finds it: 1.01x; gcc 1.20x);
   - with AVX-512's unsigned compares, (a < 0) | ((uint64)a < b) is two
     compares and a mask or (gcc 1.07x, clang 1.01x). */
NCL_KINLINE int exact_i64_u64(int64_t a, uint64_t b, int rel)
{
#if defined(__AVX512F__)
    const uint64_t au = (uint64_t)a;
    const int neg = a < 0;
    switch (rel) {
    case REL_LT: return neg | (au < b);
    case REL_LE: return neg | (au <= b);
    case REL_EQ: return !neg & (au == b);
    case REL_GT: return !neg & (au > b);
    default:     return !neg & (au >= b);
    }
#else
    int64_t bs; /* b's pattern as int64: well defined, unlike the conversion */
    memcpy(&bs, &b, sizeof bs);
    switch (rel) {
    case REL_LT: return bs < 0 ? 1 : a < bs;
    case REL_LE: return bs < 0 ? 1 : a <= bs;
    case REL_EQ: return bs < 0 ? 0 : a == bs;
    case REL_GT: return bs < 0 ? 0 : a > bs;
    default:     return bs < 0 ? 0 : a >= bs;
    }
#endif
}

/* a (int64) rel b (float64), exact for every value. b is compared in the
   integer domain: beyond [-2**63, 2**63) it is beyond every int64; inside,
   b = bi + fr with bi = trunc(b) an int64 (the conversion is always in
   range: out-of-range and NaN lanes convert 0.0 instead) and fr its
   fractional part, computed exactly (bi is a double, and b - trunc(b) is
   representable). Then a rel b is decided by a vs bi, ties by the sign of
   fr. NaN lands in none of the three ranges, so only NE holds. */
NCL_KINLINE int exact_i64_f64(int64_t a, double b, int rel)
{
    const int hi = b >= 0x1p63, lo = b < -0x1p63;
    const int inr = (b >= -0x1p63) & (b < 0x1p63);
    const double bs = inr ? b : 0.0;
    const int64_t bi = (int64_t)bs;
    const double fr = bs - (double)bi;
    switch (rel) {
    case REL_LT: return hi | (inr & ((a < bi) | ((a == bi) & (fr > 0.0))));
    case REL_LE: return hi | (inr & ((a < bi) | ((a == bi) & (fr >= 0.0))));
    case REL_EQ: return inr & (a == bi) & (fr == 0.0);
    case REL_GT: return lo | (inr & ((a > bi) | ((a == bi) & (fr < 0.0))));
    default:     return lo | (inr & ((a > bi) | ((a == bi) & (fr <= 0.0))));
    }
}

/* a (uint64) rel b (float64): the same method over [0, 2**64). Negative b
   (-0.0 is not negative) is below every uint64, so in-range b is never
   negative and fr is never below zero. */
NCL_KINLINE int exact_u64_f64(uint64_t a, double b, int rel)
{
    const int hi = b >= 0x1p64, lo = b < 0.0;
    const int inr = (b >= 0.0) & (b < 0x1p64);
    const double bs = inr ? b : 0.0;
    const uint64_t bu = ncl_f64_to_u64_in_range(bs);
    const double fr = bs - (double)bu;
    switch (rel) {
    case REL_LT: return hi | (inr & ((a < bu) | ((a == bu) & (fr > 0.0))));
    case REL_LE: return hi | (inr & ((a < bu) | ((a == bu) & (fr >= 0.0))));
    case REL_EQ: return inr & (a == bu) & (fr == 0.0);
    case REL_GT: return lo | (inr & ((a > bu) | ((a == bu) & (fr < 0.0))));
    default:     return lo | (inr & ((a > bu) | ((a == bu) & (fr <= 0.0))));
    }
}

/* How one mixed pair (different dtypes) compares, by kinds (bool is read
   as 0/1 and joins the unsigned kind). Each line picks, from constant sizes,
   a domain in which both values are exact:
   - integers of one signedness, and bool against anything integer: int64
     or uint64 hold both;
   - signed against unsigned: int64 holds both unless the unsigned is 64
     bits wide, which takes the exact helper;
   - integer against float: an integer of up to 16 bits is exact in float32,
     up to 32 bits in float64; a 64-bit one takes the exact helper, with a
     float32 operand widened to float64 (exact);
   - float32 against float64: float64. */
#define CMP_MIX_uu(Ta, Tb, a, b, rel) plain_u64((uint64_t)(a), (uint64_t)(b), rel)
#define CMP_MIX_ii(Ta, Tb, a, b, rel) plain_i64((int64_t)(a), (int64_t)(b), rel)
#define CMP_MIX_iu(Ta, Tb, a, b, rel)                                            \
    (sizeof(Tb) < 8 ? plain_i64((int64_t)(a), (int64_t)(b), rel)                 \
                    : exact_i64_u64((int64_t)(a), (uint64_t)(b), rel))
#define CMP_MIX_ui(Ta, Tb, a, b, rel)                                            \
    (sizeof(Ta) < 8 ? plain_i64((int64_t)(a), (int64_t)(b), rel)                 \
                    : exact_i64_u64((int64_t)(b), (uint64_t)(a), rel_mirror(rel)))
#define CMP_INT_FLOAT_(Ti, Tf, x, y, rel, big_fn, Tbig)                          \
    (sizeof(Ti) <= 2 && sizeof(Tf) == 4 ? plain_f32((float)(x), (float)(y), rel) \
     : sizeof(Ti) <= 4                  ? plain_f64((double)(x), (double)(y), rel) \
                                        : big_fn((Tbig)(x), (double)(y), rel))
#define CMP_MIX_if(Ta, Tb, a, b, rel) CMP_INT_FLOAT_(Ta, Tb, a, b, rel, exact_i64_f64, int64_t)
#define CMP_MIX_uf(Ta, Tb, a, b, rel) CMP_INT_FLOAT_(Ta, Tb, a, b, rel, exact_u64_f64, uint64_t)
#define CMP_MIX_fi(Ta, Tb, a, b, rel) CMP_INT_FLOAT_(Tb, Ta, b, a, rel_mirror(rel), exact_i64_f64, int64_t)
#define CMP_MIX_fu(Ta, Tb, a, b, rel) CMP_INT_FLOAT_(Tb, Ta, b, a, rel_mirror(rel), exact_u64_f64, uint64_t)
#define CMP_MIX_ff(Ta, Tb, a, b, rel) plain_f64((double)(a), (double)(b), rel)

/* Kind letters of the pair list, as the kinds above see them. */
#define CMP_KIND_b u
#define CMP_KIND_i i
#define CMP_KIND_u u
#define CMP_KIND_f f
#define CMP_MIX_(ka, kb) CMP_MIX_CAT_(ka, kb)
#define CMP_MIX_CAT_(ka, kb) CMP_MIX_##ka##kb
/* Stored bools may hold any nonzero byte for true, as NumPy reads them. */
#define CMP_NORM_b(x) ((ncl_bool)((x) != 0))
#define CMP_NORM_i(x) (x)
#define CMP_NORM_u(x) (x)
#define CMP_NORM_f(x) (x)
/* Whether a value of the kind is NaN (quietly). */
#define CMP_ISNAN_b(x) 0
#define CMP_ISNAN_i(x) 0
#define CMP_ISNAN_u(x) 0
#define CMP_ISNAN_f(x) isnan(x)
/* Whether a pair's loop executes floating-point compares. */
#define CMP_FLOATS_b 0
#define CMP_FLOATS_i 0
#define CMP_FLOATS_u 0
#define CMP_FLOATS_f 1

/* The exact relation of one pair and its four scalar ops. */
#define CMP_DEFINE_SCALARS(Ea, sa, Ta, ka, Eb, sb, Tb, kb)                                \
    NCL_KINLINE int rel_##sa##_##sb(Ta a, Tb b, int rel)                                  \
    {                                                                                     \
        const Ta x = CMP_NORM_##ka(a);                                                    \
        const Tb y = CMP_NORM_##kb(b);                                                    \
        return Ea == Eb ? plain_##sa(x, (Ta)y, rel)                                       \
                        : CMP_MIX_(CMP_KIND_##ka, CMP_KIND_##kb)(Ta, Tb, x, y, rel);      \
    }                                                                                     \
    NCL_KINLINE ncl_bool eq_##sa##_##sb(Ta a, Tb b, int *fpe)                             \
    { (void)fpe; return (ncl_bool)rel_##sa##_##sb(a, b, REL_EQ); }                        \
    NCL_KINLINE ncl_bool ne_##sa##_##sb(Ta a, Tb b, int *fpe)                             \
    { (void)fpe; return (ncl_bool)!rel_##sa##_##sb(a, b, REL_EQ); }                       \
    NCL_KINLINE ncl_bool lt_##sa##_##sb(Ta a, Tb b, int *fpe)                             \
    { (void)fpe; return (ncl_bool)rel_##sa##_##sb(a, b, REL_LT); }                        \
    NCL_KINLINE ncl_bool le_##sa##_##sb(Ta a, Tb b, int *fpe)                             \
    { (void)fpe; return (ncl_bool)rel_##sa##_##sb(a, b, REL_LE); }
NCL_DTYPE_PAIR_LIST(CMP_DEFINE_SCALARS)
#undef CMP_DEFINE_SCALARS

/* ---- the loops ------------------------------------------------------------ */

/* Compilers vectorise float compares with the signalling predicates (SSE's
   cmpltpd, and isless() alike), which raise INVALID on a quiet NaN where the
   scalar quiet compare would not. A comparison must raise nothing, so a
   float loop reads the INVALID flag before and clears it afterwards if the
   loop set it: two status-register reads per call, instead of giving up
   the one-instruction vector compare. Flags raised before the loop stay. */
#ifdef CMP_USE_MXCSR
NCL_KINLINE int fp_invalid_raised(void) { return (int)(_mm_getcsr() & 0x1u); }
NCL_KINLINE void fp_invalid_clear(void) { _mm_setcsr(_mm_getcsr() & ~0x1u); }
#else
NCL_KINLINE int fp_invalid_raised(void) { return fetestexcept(FE_INVALID) != 0; }
NCL_KINLINE void fp_invalid_clear(void) { feclearexcept(FE_INVALID); }
#endif

/* Keeps the loop's stores (and the compares feeding them) before the
   second status read. */
#if defined(__GNUC__) || defined(__clang__)
#  define CMP_BARRIER() __asm__ __volatile__("" ::: "memory")
#else
#  define CMP_BARRIER() ((void)0)
#endif

/* The vector loop of compare_simd.h where it covers the pair and the
   operands are contiguous, the element loop for the rest. ne: the relation
   is NE (rel is then REL_EQ). */
NCL_KINLINE NclStatus run_loop(int rel, int ne, int ea, int eb, NclKernelFn loop,
                               NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                               int64_t n, const int64_t *steps)
{
#ifdef CS_HAVE_SIMD
    if (cs_covers(ea, eb) && steps[0] == 8 && steps[1] == 8 && steps[2] == 1) {
        const int64_t done = cs_contig(rel, ne, ea, eb, args[0], args[1], args[2], n, ctx);
        if (done == n) return NCL_OK;
        char *const rest[3] = {args[0] + done * 8, args[1] + done * 8, args[2] + done};
        return loop(self, ctx, rest, n - done, steps);
    }
#else
    (void)rel, (void)ne, (void)ea, (void)eb;
#endif
    return loop(self, ctx, args, n, steps);
}

NCL_KINLINE NclStatus run_quiet(int floats, int rel, int ne, int ea, int eb, NclKernelFn loop,
                                NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                                int64_t n, const int64_t *steps)
{
    if (!floats)
        return run_loop(rel, ne, ea, eb, loop, self, ctx, args, n, steps);
    const int before = fp_invalid_raised();
    CMP_BARRIER();
    const NclStatus s = run_loop(rel, ne, ea, eb, loop, self, ctx, args, n, steps);
    CMP_BARRIER();
    if (!before && fp_invalid_raised())
        fp_invalid_clear();
    return s;
}

/* a > b is b < a: the LT loop of the swapped pair, operands exchanged. */
NCL_KINLINE NclStatus run_swapped(NclKernelFn loop, NclKernelNode *self, const NclKernelCtx *ctx,
                                  char *const *args, int64_t n, const int64_t *steps)
{
    char *const sargs[3] = {args[1], args[0], args[2]};
    const int64_t ssteps[3] = {steps[1], steps[0], steps[2]};
    return loop(self, ctx, sargs, n, ssteps);
}

/* Every kernel, declared: a kernel may run another pair's (below). */
#define CMP_DECLARE_(op, sa, sb)                                                      \
    static NclStatus k_##op##_##sa##_##sb(NclKernelNode *self, const NclKernelCtx *ctx, \
                                          char *const *args, int64_t n, const int64_t *steps);
#define CMP_DECLARE(Ea, sa, Ta, ka, Eb, sb, Tb, kb)                                   \
    CMP_DECLARE_(eq, sa, sb) CMP_DECLARE_(ne, sa, sb) CMP_DECLARE_(lt, sa, sb)       \
    CMP_DECLARE_(le, sa, sb) CMP_DECLARE_(gt, sa, sb) CMP_DECLARE_(ge, sa, sb)
NCL_DTYPE_PAIR_LIST(CMP_DECLARE)
#undef CMP_DECLARE
#undef CMP_DECLARE_

/* ---- one operand a scalar ------------------------------------------------
   With a stride-0 operand of another dtype than the array's, x rel y for
   every element x of the array is decided by one y: either it holds for
   none or for all of them, or it is x rel' y' for a y' of x's dtype, which
   the array's own same-dtype kernel then runs (its scalar-operand loop, a
   single compare per element). So the mixed pairs have no scalar-operand
   loops of their own: 110 pairs times four relations of them took about
   two thirds of this file's compile time, and were slower than the
   same-dtype loop they now become (an int8 array against an int64 scalar
   widened every element to 64 bits; an int64 array against a float64
   scalar ran the exact conversion per element).

   The fold, for x of dtype X and y of another dtype, with the exact
   relations above:
   - y NaN: no x relates to it but by NE;
   - X integer: y becomes an integer t (y itself for an integer; for a
     float, x < y is x < ceil(y), x <= y is x <= floor(y), likewise for > and
     >=, and x == y needs y whole); t below X's range or above it decides
     every x alike, inside it t is exactly an X;
   - X float: y' = y rounded to X. If y' == y exactly, the relation is kept;
     else no x equals y, and with lo < y < hi the neighbours of y in X
     (infinities included), x < y and x <= y are x <= lo, x > y and x >= y
     are x >= hi; NaN elements still fail all but NE.
   Only the rounding of a float64 y to float32 can raise a flag NCLib
   reports (overflow, underflow); the flags are put back as they were. */

/* The relation as a kernel of the pair asks for it: rel, and ne (NE is
   REL_EQ with ne set). What a fold gives: all false, all true, or compare. */
enum { FOLD_NONE = 0, FOLD_ALL = 1, FOLD_CMP = 2 };

NCL_KINLINE int fold_const(int rel, int ne, int below)
{
    /* y below every x: x > y, x >= y and x != y hold; above: <, <=, != */
    if (rel == REL_EQ) return ne ? FOLD_ALL : FOLD_NONE;
    const int greater = rel == REL_GT || rel == REL_GE;
    return greater == below ? FOLD_ALL : FOLD_NONE;
}

/* The float next to x towards +infinity (x not NaN, not +inf), and towards
   -infinity, from the bits: no flag, no libm. */
NCL_KINLINE float next_up_f32(float x)
{
    if (x == 0.0f) return 0x1p-149f;
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    u = x > 0.0f ? u + 1 : u - 1;
    memcpy(&x, &u, sizeof u);
    return x;
}
NCL_KINLINE double next_up_f64(double x)
{
    if (x == 0.0) return 0x1p-1074;
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    u = x > 0.0 ? u + 1 : u - 1;
    memcpy(&x, &u, sizeof u);
    return x;
}
NCL_KINLINE float next_down_f32(float x) { return -next_up_f32(-x); }
NCL_KINLINE double next_down_f64(double x) { return -next_up_f64(-x); }

/* The range of each integer dtype, for the fold (bool: 0 and 1). */
#define CMP_MIN_b 0
#define CMP_MAX_b 1
#define CMP_MIN_i8 INT8_MIN
#define CMP_MAX_i8 INT8_MAX
#define CMP_MIN_i16 INT16_MIN
#define CMP_MAX_i16 INT16_MAX
#define CMP_MIN_i32 INT32_MIN
#define CMP_MAX_i32 INT32_MAX
#define CMP_MIN_i64 INT64_MIN
#define CMP_MAX_i64 INT64_MAX
#define CMP_MIN_u8 0
#define CMP_MAX_u8 UINT8_MAX
#define CMP_MIN_u16 0
#define CMP_MAX_u16 UINT16_MAX
#define CMP_MIN_u32 0
#define CMP_MAX_u32 UINT32_MAX
#define CMP_MIN_u64 0
#define CMP_MAX_u64 UINT64_MAX

/* Rounding a float64 to float32 may raise overflow or underflow; the
   float32 folds keep the flags as they were. */
#ifdef CMP_USE_MXCSR
typedef unsigned int fold_flags;
NCL_KINLINE fold_flags fold_flags_save(void) { return _mm_getcsr(); }
NCL_KINLINE void fold_flags_restore(fold_flags f)
{
    if (_mm_getcsr() != f) _mm_setcsr(f);
}
#else
typedef fexcept_t fold_flags;
NCL_KINLINE fold_flags fold_flags_save(void)
{
    fexcept_t f;
    fegetexceptflag(&f, FE_ALL_EXCEPT);
    return f;
}
NCL_KINLINE void fold_flags_restore(fold_flags f) { fesetexceptflag(&f, FE_ALL_EXCEPT); }
#endif

/* fold_<sx>_<sy>(y, rel, ne, &y', &rel'): x rel y for every x of dtype sx,
   as above. Defined for every pair; only those of two dtypes are used. */
#define CMP_DEFINE_FOLD(Ex, sx, Tx, kx, Ey, sy, Ty, ky) CMP_DEFINE_FOLD_##kx(sx, Tx, sy, Ty, ky)
#define CMP_DEFINE_FOLD_b CMP_DEFINE_FOLD_INT
#define CMP_DEFINE_FOLD_i CMP_DEFINE_FOLD_INT
#define CMP_DEFINE_FOLD_u CMP_DEFINE_FOLD_INT
#define CMP_DEFINE_FOLD_f CMP_DEFINE_FOLD_FLOAT
#define CMP_DEFINE_FOLD_INT(sx, Tx, sy, Ty, ky)                                         \
    NCL_KINLINE int fold_##sx##_##sy(Ty y0, int rel, int ne, Tx *yx, int *rel2)         \
    {                                                                                   \
        const Ty y = CMP_NORM_##ky(y0);                                                 \
        *rel2 = rel;                                                                    \
        if (CMP_ISNAN_##ky(y)) return ne ? FOLD_ALL : FOLD_NONE;                        \
        double t = 0.0; /* a float y: the whole number standing for it */             \
        if (CMP_FLOATS_##ky) {                                                          \
            const double d = (double)y, fl = floor(d);                                  \
            if (rel == REL_EQ && fl != d) return ne ? FOLD_ALL : FOLD_NONE;             \
            t = rel == REL_LT || rel == REL_GE ? ceil(d) : fl;                          \
        }                                                                               \
        const Tx lo = (Tx)CMP_MIN_##sx, hi = (Tx)CMP_MAX_##sx;                         \
        if (CMP_FLOATS_##ky ? rel_f64_##sx(t, lo, REL_LT) : rel_##sy##_##sx(y, lo, REL_LT)) \
            return fold_const(rel, ne, 1);                                              \
        if (CMP_FLOATS_##ky ? rel_f64_##sx(t, hi, REL_GT) : rel_##sy##_##sx(y, hi, REL_GT)) \
            return fold_const(rel, ne, 0);                                              \
        *yx = CMP_FLOATS_##ky ? (Tx)t : (Tx)y; /* in range and whole: exact */          \
        return FOLD_CMP;                                                                \
    }
#define CMP_DEFINE_FOLD_FLOAT(sx, Tx, sy, Ty, ky)                                       \
    NCL_KINLINE int fold_##sx##_##sy(Ty y0, int rel, int ne, Tx *yx, int *rel2)         \
    {                                                                                   \
        const Ty y = CMP_NORM_##ky(y0);                                                 \
        *rel2 = rel;                                                                    \
        if (CMP_ISNAN_##ky(y)) return ne ? FOLD_ALL : FOLD_NONE;                        \
        Tx r;                                                                           \
        if (CMP_FLOATS_##ky && sizeof(Tx) < sizeof(Ty)) {                               \
            /* the volatile copies keep the rounding between save and restore */        \
            const fold_flags saved = fold_flags_save();                                 \
            const volatile Ty vy = y;                                                   \
            volatile Tx vr = (Tx)vy;                                                    \
            r = vr;                                                                     \
            fold_flags_restore(saved);                                                  \
        } else {                                                                        \
            r = (Tx)y;                                                                  \
        }                                                                               \
        *yx = r;                                                                        \
        if (rel_##sx##_##sy(r, y, REL_EQ)) return FOLD_CMP;                             \
        if (rel == REL_EQ) return ne ? FOLD_ALL : FOLD_NONE;                            \
        const int r_below = rel_##sx##_##sy(r, y, REL_LT);                              \
        if (rel == REL_LT || rel == REL_LE) {                                           \
            *yx = r_below ? r : next_down_##sx(r);                                      \
            *rel2 = REL_LE;                                                             \
        } else {                                                                        \
            *yx = r_below ? next_up_##sx(r) : r;                                        \
            *rel2 = REL_GE;                                                             \
        }                                                                               \
        return FOLD_CMP;                                                                \
    }
NCL_DTYPE_PAIR_LIST(CMP_DEFINE_FOLD)
#undef CMP_DEFINE_FOLD
#undef CMP_DEFINE_FOLD_b
#undef CMP_DEFINE_FOLD_i
#undef CMP_DEFINE_FOLD_u
#undef CMP_DEFINE_FOLD_f
#undef CMP_DEFINE_FOLD_INT
#undef CMP_DEFINE_FOLD_FLOAT

/* n bools of value v at op, step os. */
static NclStatus fill_bools(char *op, int64_t os, int64_t n, int v)
{
    if (os == 1) {
        memset(op, v, (size_t)n);
    } else {
        for (int64_t i = 0; i < n; i++, op += os) *op = (char)v;
    }
    return NCL_OK;
}

/* x[i] rel y for the array x of dtype s (step xs) and one y of that dtype,
   by the same-dtype kernel of the relation. */
#define CMP_DEFINE_SAME_SCALAR(E, s, T, name, kind)                                     \
    static NclStatus same_scalar_##s(int rel, int ne, NclKernelNode *self,                \
                                     const NclKernelCtx *ctx, char *x, int64_t xs, T y,   \
                                     char *op, int64_t os, int64_t n)                     \
    {                                                                                     \
        char *const args[3] = {x, (char *)&y, op};                                        \
        const int64_t steps[3] = {xs, 0, os};                                             \
        switch (rel) {                                                                    \
        case REL_LT: return k_lt_##s##_##s(self, ctx, args, n, steps);                    \
        case REL_LE: return k_le_##s##_##s(self, ctx, args, n, steps);                    \
        case REL_GT: return k_gt_##s##_##s(self, ctx, args, n, steps);                    \
        case REL_GE: return k_ge_##s##_##s(self, ctx, args, n, steps);                    \
        default:                                                                          \
            return ne ? k_ne_##s##_##s(self, ctx, args, n, steps)                         \
                      : k_eq_##s##_##s(self, ctx, args, n, steps);                        \
        }                                                                                 \
    }
NCL_DTYPE_LIST(CMP_DEFINE_SAME_SCALAR)
#undef CMP_DEFINE_SAME_SCALAR

/* A mixed pair's kernel with b (then a) a scalar; rel, ne: the kernel's
   relation of a to b. */
#define CMP_DEFINE_SCALAR_CASES(Ea, sa, Ta, ka, Eb, sb, Tb, kb)                           \
    NCL_KINLINE NclStatus scalar_b_##sa##_##sb(int rel, int ne, NclKernelNode *self,      \
                                               const NclKernelCtx *ctx, char *const *args, \
                                               int64_t n, const int64_t *steps)           \
    {                                                                                     \
        Ta y = 0;                                                                         \
        int rel2;                                                                         \
        const int f = fold_##sa##_##sb(ncl_load_##Tb(args[1]), rel, ne, &y, &rel2);       \
        if (f != FOLD_CMP) return fill_bools(args[2], steps[2], n, f);                    \
        return same_scalar_##sa(rel2, ne, self, ctx, args[0], steps[0], y, args[2],       \
                                steps[2], n);                                             \
    }                                                                                     \
    NCL_KINLINE NclStatus scalar_a_##sa##_##sb(int rel, int ne, NclKernelNode *self,      \
                                               const NclKernelCtx *ctx, char *const *args, \
                                               int64_t n, const int64_t *steps)           \
    {                                                                                     \
        Tb y = 0;                                                                         \
        int rel2;                                                                         \
        const int f =                                                                     \
            fold_##sb##_##sa(ncl_load_##Ta(args[0]), rel_mirror(rel), ne, &y, &rel2);     \
        if (f != FOLD_CMP) return fill_bools(args[2], steps[2], n, f);                    \
        return same_scalar_##sb(rel2, ne, self, ctx, args[1], steps[1], y, args[2],       \
                                steps[2], n);                                             \
    }
NCL_DTYPE_PAIR_LIST(CMP_DEFINE_SCALAR_CASES)
#undef CMP_DEFINE_SCALAR_CASES

/* The element loop of a pair of two dtypes: NCL_DEFINE_BINARY_KERNEL
   without its scalar-operand cases (the same contiguous, a[::2] and strided
   loops, so the same machine code for them). A version of these loops
   without GCC's runtime overlap test (ivdep; an overlapping output is the
   same elements) and with the scalar tail kept a loop compiled a third
   faster but measured up to 1.2x slower for n <= 1000; not kept. */
#define CMP_DEFINE_MIXED_LOOP(fname, TA, TB, OPFN)                                      \
    static NclStatus fname(NclKernelNode *self, const NclKernelCtx *ctx,                \
                           char *const *args, int64_t n, const int64_t *steps)          \
    {                                                                                   \
        (void)self;                                                                     \
        int fpe = 0;                                                                    \
        const char *ap = args[0], *bp = args[1];                                        \
        char *op = args[2];                                                             \
        const int64_t as = steps[0], bs = steps[1], os = steps[2];                      \
        NCL_OSTREAM(out_);                                                              \
        if (as == (int64_t)sizeof(TA) && bs == (int64_t)sizeof(TB) && os == 1) {       \
            for (ncl_ostream_begin(&out_, ctx, op, n, 1); ncl_ostream_next(&out_);) {   \
                char *const d_ = out_.dst;                                              \
                const char *const x_ = ap + out_.i0 * (int64_t)sizeof(TA);              \
                const char *const y_ = bp + out_.i0 * (int64_t)sizeof(TB);              \
                const int64_t c_ = out_.cnt;                                            \
                for (int64_t i = 0; i < c_; i++)                                        \
                    ncl_store_ncl_bool(d_ + i,                                          \
                                       OPFN(ncl_load_##TA(x_ + i * (int64_t)sizeof(TA)), \
                                            ncl_load_##TB(y_ + i * (int64_t)sizeof(TB)), &fpe)); \
            }                                                                           \
        } else if (sizeof(TA) == 8 && as == 16 && bs == (int64_t)sizeof(TB) && os == 1) { \
            for (ncl_ostream_begin(&out_, ctx, op, n, 1); ncl_ostream_next(&out_);) {   \
                char *const d_ = out_.dst;                                              \
                const char *const x_ = ap + out_.i0 * 16;                               \
                const char *const y_ = bp + out_.i0 * (int64_t)sizeof(TB);              \
                const int64_t c_ = out_.cnt;                                            \
                for (int64_t i = 0; i < c_; i++)                                        \
                    ncl_store_ncl_bool(d_ + i,                                          \
                                       OPFN(ncl_load_##TA(x_ + i * 16),                 \
                                            ncl_load_##TB(y_ + i * (int64_t)sizeof(TB)), &fpe)); \
            }                                                                           \
        } else if (sizeof(TB) == 8 && bs == 16 && as == (int64_t)sizeof(TA) && os == 1) { \
            for (ncl_ostream_begin(&out_, ctx, op, n, 1); ncl_ostream_next(&out_);) {   \
                char *const d_ = out_.dst;                                              \
                const char *const x_ = ap + out_.i0 * (int64_t)sizeof(TA);              \
                const char *const y_ = bp + out_.i0 * 16;                               \
                const int64_t c_ = out_.cnt;                                            \
                for (int64_t i = 0; i < c_; i++)                                        \
                    ncl_store_ncl_bool(d_ + i,                                          \
                                       OPFN(ncl_load_##TA(x_ + i * (int64_t)sizeof(TA)), \
                                            ncl_load_##TB(y_ + i * 16), &fpe));         \
            }                                                                           \
        } else {                                                                        \
            for (int64_t i = 0; i < n; i++, ap += as, bp += bs, op += os)               \
                ncl_store_ncl_bool(op, OPFN(ncl_load_##TA(ap), ncl_load_##TB(bp), &fpe)); \
        }                                                                               \
        if (fpe) *ctx->fpe |= fpe;                                                      \
        return NCL_OK;                                                                  \
    }

/* ---- the kernels ----------------------------------------------------------
   A dtype with itself: the element loop with its scalar-operand cases.
   Two dtypes: the scalar cases above, and an element loop without them;
   EQ and NE of (b, a) with b after a in the dtype order are those of (a, b),
   operands exchanged (the relations are symmetric), which leaves three
   quarters of the mixed loops. GT and GE of any pair run the LT and LE
   loops of the swapped pair. Which form a pair takes is a constant; the
   loops a pair does not use are never referenced, and not compiled. */

/* The relation of each loop, and whether it is NE. */
#define CMP_REL_eq REL_EQ, 0
#define CMP_REL_ne REL_EQ, 1
#define CMP_REL_lt REL_LT, 0
#define CMP_REL_le REL_LE, 0
#define CMP_DEFINE_LOOP_(op, Ea, sa, Ta, ka, Eb, sb, Tb, kb)                                 \
    NCL_DEFINE_BINARY_KERNEL(loop_##op##_##sa##_##sb, Ta, Tb, ncl_bool, op##_##sa##_##sb)     \
    CMP_DEFINE_MIXED_LOOP(mloop_##op##_##sa##_##sb, Ta, Tb, op##_##sa##_##sb)                 \
    static NclStatus k_##op##_##sa##_##sb(NclKernelNode *self, const NclKernelCtx *ctx,       \
                                          char *const *args, int64_t n, const int64_t *steps) \
    {                                                                                        \
        const int floats = CMP_FLOATS_##ka | CMP_FLOATS_##kb;                                \
        if (Ea == Eb)                                                                        \
            return run_quiet(floats, CMP_REL_##op, Ea, Eb, loop_##op##_##sa##_##sb, self,    \
                             ctx, args, n, steps);                                           \
        if (CMP_IS_SYMMETRIC_##op && Ea > Eb)                                                \
            return run_swapped(k_##op##_##sb##_##sa, self, ctx, args, n, steps);            \
        if (steps[1] == 0)                                                                   \
            return scalar_b_##sa##_##sb(CMP_REL_##op, self, ctx, args, n, steps);           \
        if (steps[0] == 0)                                                                   \
            return scalar_a_##sa##_##sb(CMP_REL_##op, self, ctx, args, n, steps);           \
        return run_quiet(floats, CMP_REL_##op, Ea, Eb, mloop_##op##_##sa##_##sb, self, ctx,  \
                         args, n, steps);                                                    \
    }
#define CMP_IS_SYMMETRIC_eq 1
#define CMP_IS_SYMMETRIC_ne 1
#define CMP_IS_SYMMETRIC_lt 0
#define CMP_IS_SYMMETRIC_le 0
#define CMP_DEFINE_LOOPS(Ea, sa, Ta, ka, Eb, sb, Tb, kb)  \
    CMP_DEFINE_LOOP_(eq, Ea, sa, Ta, ka, Eb, sb, Tb, kb)  \
    CMP_DEFINE_LOOP_(ne, Ea, sa, Ta, ka, Eb, sb, Tb, kb)  \
    CMP_DEFINE_LOOP_(lt, Ea, sa, Ta, ka, Eb, sb, Tb, kb)  \
    CMP_DEFINE_LOOP_(le, Ea, sa, Ta, ka, Eb, sb, Tb, kb)
NCL_DTYPE_PAIR_LIST(CMP_DEFINE_LOOPS)
#undef CMP_DEFINE_LOOPS
#undef CMP_DEFINE_LOOP_
#undef CMP_IS_SYMMETRIC_eq
#undef CMP_IS_SYMMETRIC_ne
#undef CMP_IS_SYMMETRIC_lt
#undef CMP_IS_SYMMETRIC_le
#undef CMP_REL_eq
#undef CMP_REL_ne
#undef CMP_REL_lt
#undef CMP_REL_le

#define CMP_DEFINE_SWAPPED_(op, base, sa, sb)                                           \
    static NclStatus k_##op##_##sa##_##sb(NclKernelNode *self, const NclKernelCtx *ctx,  \
                                          char *const *args, int64_t n, const int64_t *steps) \
    {                                                                                   \
        return run_swapped(k_##base##_##sb##_##sa, self, ctx, args, n, steps);          \
    }
#define CMP_DEFINE_SWAPPED(Ea, sa, Ta, ka, Eb, sb, Tb, kb) \
    CMP_DEFINE_SWAPPED_(gt, lt, sa, sb)                    \
    CMP_DEFINE_SWAPPED_(ge, le, sa, sb)
NCL_DTYPE_PAIR_LIST(CMP_DEFINE_SWAPPED)
#undef CMP_DEFINE_SWAPPED
#undef CMP_DEFINE_SWAPPED_

/* ---- registration ------------------------------------------------------- */

#define CMP_ENTRY_(OP, op, Ea, sa, Eb, sb)                                           \
    {NCL_SUBSYSTEM_COMPARE, 3, OP, {Ea, Eb, NCL_BOOL, 0}, k_##op##_##sa##_##sb,      \
     "ncl_k_" #op "_" #sa "_" #sb},
#define CMP_ENTRIES(Ea, sa, Ta, ka, Eb, sb, Tb, kb) \
    CMP_ENTRY_(NCL_CMP_EQ, eq, Ea, sa, Eb, sb)      \
    CMP_ENTRY_(NCL_CMP_NE, ne, Ea, sa, Eb, sb)      \
    CMP_ENTRY_(NCL_CMP_LT, lt, Ea, sa, Eb, sb)      \
    CMP_ENTRY_(NCL_CMP_LE, le, Ea, sa, Eb, sb)      \
    CMP_ENTRY_(NCL_CMP_GT, gt, Ea, sa, Eb, sb)      \
    CMP_ENTRY_(NCL_CMP_GE, ge, Ea, sa, Eb, sb)

const ncl_kernel_entry ncl_k_compare_table[] = {NCL_DTYPE_PAIR_LIST(CMP_ENTRIES)};
const size_t ncl_k_compare_count = sizeof ncl_k_compare_table / sizeof ncl_k_compare_table[0];

_Static_assert(sizeof ncl_k_compare_table / sizeof ncl_k_compare_table[0] ==
                   (size_t)NCL_NTYPES * NCL_NTYPES * NCL_COMPARE_NOPS,
               "one compare kernel per (op, dtype, dtype)");
#undef CMP_ENTRIES
#undef CMP_ENTRY_
