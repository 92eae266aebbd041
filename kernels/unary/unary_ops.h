/*
 * unary_ops.h: the scalar element functions of the Unary subsystem, one
 * static inline function per (op, dtype), named op_<op>_<sfx>(x, &fpe), each
 * with its edge semantics beside it. unary.c stamps them into strided loops.
 *
 * One function per (op, dtype) is deliberate: a faster implementation of a
 * single pair (a SLEEF vector exp for f64, say) replaces that pair's entry
 * without touching the others. Semantics follow NumPy 1.24 on x86-64, made
 * defined where C is not: integer arithmetic wraps (it is done in the
 * unsigned type of the same width), nothing here has undefined behaviour.
 *
 * FP flags of float ops are raised by the hardware or libm and collected by
 * the framework around the loop; these functions neither clear nor add any.
 * Integer ops report through *fpe (only integer reciprocal of 0 does).
 * Compute only: no framework calls, no state.
 */
#ifndef NCL_UNARY_OPS_H
#define NCL_UNARY_OPS_H

#include <float.h>
#include <limits.h>
#include "ncl_kernel.h"

/* Square and negation below rely on uint32_t not promoting to signed int. */
_Static_assert(INT_MAX <= 0x7fffffff, "int wider than 32 bits");

/* Integer dtypes: X(sfx, T, U) with U the unsigned type of T's width. */
#define NCL_UNARY_SINT_NARROW_LIST(X) X(i8, int8_t, uint8_t) X(i16, int16_t, uint16_t) X(i32, int32_t, uint32_t)
#define NCL_UNARY_UINT_NARROW_LIST(X) X(u8, uint8_t, uint8_t) X(u16, uint16_t, uint16_t) X(u32, uint32_t, uint32_t)
#define NCL_UNARY_SINT_LIST(X) NCL_UNARY_SINT_NARROW_LIST(X) X(i64, int64_t, uint64_t)
#define NCL_UNARY_UINT_LIST(X) NCL_UNARY_UINT_NARROW_LIST(X) X(u64, uint64_t, uint64_t)
#define NCL_UNARY_INT_LIST(X) NCL_UNARY_SINT_LIST(X) NCL_UNARY_UINT_LIST(X)

/* ==== integers ============================================================ */
/* Conversions from U back to a signed T are modulo 2^bits (what gcc and
   clang define), which is exactly two's complement wrapping.
   Where a 64-bit op is written with shifts and masks instead of compares,
   it is because SSE2 has no 64-bit compare: the compare forms do not
   vectorise on baseline x86-64, these do. */

/* 1 when u != 0, else 0: either u or -u has its top bit set. */
NCL_KINLINE uint64_t ncl_nonzero64(uint64_t u) { return (u | (0u - u)) >> 63; }

/* positive: x. */
#define DEF_(sfx, T, U) NCL_KINLINE T op_positive_##sfx(T x, int *fpe) { (void)fpe; return x; }
NCL_UNARY_INT_LIST(DEF_)
#undef DEF_

/* negative: -x modulo 2^bits, so negative(MIN) is MIN and an unsigned x
   gives 2^bits - x (NumPy). */
#define DEF_(sfx, T, U) \
    NCL_KINLINE T op_negative_##sfx(T x, int *fpe) { (void)fpe; return (T)(U)(0u - (U)x); }
NCL_UNARY_INT_LIST(DEF_)
#undef DEF_

/* absolute: |x|; absolute(MIN) wraps to MIN (NumPy); unsigned: x.
   (x ^ m) - m with m = all ones for negative x: branch-free, and unlike
   x < 0 ? -x : x it vectorises for int64 on SSE2, which has no 64-bit
   compare. */
#define DEF_(sfx, T, U)                                                        \
    NCL_KINLINE T op_absolute_##sfx(T x, int *fpe)                             \
    { (void)fpe; U m = (U)(0u - ((U)x >> (sizeof(T) * CHAR_BIT - 1))); return (T)(U)(((U)x ^ m) - m); }
NCL_UNARY_SINT_LIST(DEF_)
#undef DEF_
#define DEF_(sfx, T, U) NCL_KINLINE T op_absolute_##sfx(T x, int *fpe) { (void)fpe; return x; }
NCL_UNARY_UINT_LIST(DEF_)
#undef DEF_

/* sign: -1, 0 or +1 (unsigned: 0 or 1). */
#define DEF_(sfx, T, U) \
    NCL_KINLINE T op_sign_##sfx(T x, int *fpe) { (void)fpe; return (T)((x > 0) - (x < 0)); }
NCL_UNARY_SINT_NARROW_LIST(DEF_)
#undef DEF_
#define DEF_(sfx, T, U) NCL_KINLINE T op_sign_##sfx(T x, int *fpe) { (void)fpe; return (T)(x != 0); }
NCL_UNARY_UINT_NARROW_LIST(DEF_)
#undef DEF_
/* nonzero - 2 * negative, modulo 2^64. */
NCL_KINLINE int64_t op_sign_i64(int64_t x, int *fpe)
{ (void)fpe; return (int64_t)(ncl_nonzero64((uint64_t)x) - 2u * ((uint64_t)x >> 63)); }
NCL_KINLINE uint64_t op_sign_u64(uint64_t x, int *fpe) { (void)fpe; return ncl_nonzero64(x); }

/* square: x*x modulo 2^bits. The 1u makes the product unsigned int at
   least: uint16 * uint16 alone would promote to int and overflow. */
#define DEF_(sfx, T, U) \
    NCL_KINLINE T op_square_##sfx(T x, int *fpe) { (void)fpe; return (T)(U)((U)x * 1u * (U)x); }
NCL_UNARY_INT_LIST(DEF_)
#undef DEF_

/* reciprocal: 1/x truncated toward zero: 1 -> 1, -1 -> -1, |x| >= 2 -> 0,
   as NumPy. x == 0 gives 0 and raises DIVIDE. NumPy 1.24 computes 1.0/x in
   double and converts back, so for 0 it raises DIVIDE and INVALID and
   stores whatever the conversion of inf gives (MIN for int32/int64, 0 for
   the others); we deliberately give 0 for every dtype and raise DIVIDE only,
   the rule integer division by zero follows. */
#define DEF_(sfx, T, U)                                                       \
    NCL_KINLINE T op_reciprocal_##sfx(T x, int *fpe)                          \
    { *fpe |= x == 0 ? NCL_FPE_DIVIDE : 0; return (T)(x == 1 || x == -1 ? x : 0); }
NCL_UNARY_SINT_NARROW_LIST(DEF_)
#undef DEF_
#define DEF_(sfx, T, U)                                                       \
    NCL_KINLINE T op_reciprocal_##sfx(T x, int *fpe)                          \
    { *fpe |= x == 0 ? NCL_FPE_DIVIDE : 0; return (T)(x == 1); }
NCL_UNARY_UINT_NARROW_LIST(DEF_)
#undef DEF_
/* x + 1 is 0 or 2 exactly for x = -1 or 1, so (x + 1) & ~2 is 0 just then. */
NCL_KINLINE int64_t op_reciprocal_i64(int64_t x, int *fpe)
{
    const uint64_t u = (uint64_t)x;
    *fpe |= (int)(1u - ncl_nonzero64(u)) * NCL_FPE_DIVIDE;
    return (int64_t)(u & (ncl_nonzero64((u + 1u) & ~(uint64_t)2) - 1u));
}
NCL_KINLINE uint64_t op_reciprocal_u64(uint64_t x, int *fpe)
{
    *fpe |= (int)(1u - ncl_nonzero64(x)) * NCL_FPE_DIVIDE;
    return 1u - ncl_nonzero64(x ^ 1u);
}

/* invert: bitwise not (two's complement ~x; the result always fits T). */
#define DEF_(sfx, T, U) NCL_KINLINE T op_invert_##sfx(T x, int *fpe) { (void)fpe; return (T)~x; }
NCL_UNARY_INT_LIST(DEF_)
#undef DEF_

/* ==== bool ================================================================ */
/* Any non-zero byte reads as true; results are always 0 or 1. */

/* absolute(bool): x as 0/1 (NumPy has this loop). */
NCL_KINLINE ncl_bool op_absolute_b(ncl_bool x, int *fpe) { (void)fpe; return (ncl_bool)(x != 0); }
/* invert(bool): logical not, as NumPy (~True is False, not 254). */
NCL_KINLINE ncl_bool op_invert_b(ncl_bool x, int *fpe) { (void)fpe; return (ncl_bool)(x == 0); }

/* ==== logical_not: every dtype -> bool ==================================== */
/* x == 0: true for 0 and ±0.0, false for NaN (NaN is truthy, as in NumPy).
   == is a quiet comparison: no INVALID for a quiet NaN. The 64-bit dtypes
   test the two 32-bit halves instead: SSE2 has no 64-bit compare, and the
   halves let the loop vectorise there. */
NCL_KINLINE int ncl_zero64(uint64_t u) { return ((uint32_t)(u >> 32) | (uint32_t)u) == 0; }
#define DEF_(sfx, T) \
    NCL_KINLINE ncl_bool op_logical_not_##sfx(T x, int *fpe) { (void)fpe; return (ncl_bool)(x == 0); }
DEF_(b, ncl_bool) DEF_(i8, int8_t) DEF_(i16, int16_t) DEF_(i32, int32_t)
DEF_(u8, uint8_t) DEF_(u16, uint16_t) DEF_(u32, uint32_t) DEF_(f32, float)
#undef DEF_
NCL_KINLINE ncl_bool op_logical_not_i64(int64_t x, int *fpe) { (void)fpe; return (ncl_bool)ncl_zero64((uint64_t)x); }
NCL_KINLINE ncl_bool op_logical_not_u64(uint64_t x, int *fpe) { (void)fpe; return (ncl_bool)ncl_zero64(x); }
NCL_KINLINE ncl_bool op_logical_not_f64(double x, int *fpe)
{
    uint64_t b;
    (void)fpe;
    memcpy(&b, &x, sizeof b);
    return (ncl_bool)ncl_zero64(b & 0x7fffffffffffffffu);
}

/* ==== floats ============================================================== */
/* X(sfx, T, F) with F the libm suffix (f for float, nothing for double). */
#define NCL_UNARY_FLOAT_LIST(X) X(f32, float, f) X(f64, double, )

/* The bit patterns, for the ops below that are exact bit manipulations:
   integer operations raise no FP flag whatever the input, and unlike FP
   compares they never make gcc branch (it will not if-convert, and so not
   vectorise, a branch around FP arithmetic that may trap). */
NCL_KINLINE uint32_t bits_f32(float x) { uint32_t u; memcpy(&u, &x, sizeof u); return u; }
NCL_KINLINE float float_f32(uint32_t u) { float x; memcpy(&x, &u, sizeof x); return x; }
NCL_KINLINE uint64_t bits_f64(double x) { uint64_t u; memcpy(&u, &x, sizeof u); return u; }
NCL_KINLINE double float_f64(uint64_t u) { double x; memcpy(&x, &u, sizeof x); return x; }
/* All ones when a < b, else 0; a and b below 2^31 (2^63). */
NCL_KINLINE uint32_t lt_mask32(uint32_t a, uint32_t b) { return 0u - ((a - b) >> 31); }
NCL_KINLINE uint64_t lt_mask64(uint64_t a, uint64_t b) { return 0u - ((a - b) >> 63); }

/* positive: x unchanged (-0.0 and NaN payloads kept). */
#define DEF_(sfx, T, F) NCL_KINLINE T op_positive_##sfx(T x, int *fpe) { (void)fpe; return x; }
NCL_UNARY_FLOAT_LIST(DEF_)
#undef DEF_

/* negative: flips the sign bit, NaN included (NumPy: -nan); no flags. */
#define DEF_(sfx, T, F) NCL_KINLINE T op_negative_##sfx(T x, int *fpe) { (void)fpe; return -x; }
NCL_UNARY_FLOAT_LIST(DEF_)
#undef DEF_

/* absolute: clears the sign bit, NaN included (NumPy: nan); no flags. */
#define DEF_(sfx, T, F) NCL_KINLINE T op_absolute_##sfx(T x, int *fpe) { (void)fpe; return fabs##F(x); }
NCL_UNARY_FLOAT_LIST(DEF_)
#undef DEF_

/* sign: -1.0 or +1.0; +0.0 for ±0.0 (NumPy: sign(-0.0) is +0.0); a NaN
   comes back as itself, payload and sign kept, with no flag (NumPy returns
   its input NaN and raises nothing). Done on the bits: a = |x| as bits is
   non-zero for x != 0 and above inf's pattern for NaN. */
NCL_KINLINE float op_sign_f32(float x, int *fpe)
{
    const uint32_t b = bits_f32(x), a = b & 0x7fffffffu;
    const uint32_t nonzero = lt_mask32(0u, a), nan = lt_mask32(0x7f800000u, a);
    const uint32_t one = 0x3f800000u | (b & 0x80000000u);
    (void)fpe;
    return float_f32((b & nan) | (one & nonzero & ~nan));
}
NCL_KINLINE double op_sign_f64(double x, int *fpe)
{
    const uint64_t b = bits_f64(x), a = b & 0x7fffffffffffffffu;
    const uint64_t nonzero = lt_mask64(0u, a), nan = lt_mask64(0x7ff0000000000000u, a);
    const uint64_t one = 0x3ff0000000000000u | (b & 0x8000000000000000u);
    (void)fpe;
    return float_f64((b & nan) | (one & nonzero & ~nan));
}

/* square: x*x; OVERFLOW / UNDERFLOW from the hardware. */
#define DEF_(sfx, T, F) NCL_KINLINE T op_square_##sfx(T x, int *fpe) { (void)fpe; return x * x; }
NCL_UNARY_FLOAT_LIST(DEF_)
#undef DEF_

/* reciprocal: 1/x; ±0 gives ±inf with DIVIDE, a denormal can give inf with
   OVERFLOW (hardware flags). */
#define DEF_(sfx, T, F) NCL_KINLINE T op_reciprocal_##sfx(T x, int *fpe) { (void)fpe; return (T)1 / x; }
NCL_UNARY_FLOAT_LIST(DEF_)
#undef DEF_

/* ---- floor, ceil, trunc, rint -------------------------------------------- */
/* Exact; ±0, ±inf and NaN come back unchanged, -0.0 stays -0.0 (and
   ceil(-0.5) is -0.0); rint rounds half to even; no flags but INEXACT,
   which NCLib does not report.

   Where the ISA has a rounding instruction (SSE4.1, AArch64, ...) the
   compiler inlines libm's rint & co. as one vector instruction. Baseline
   x86-64 (SSE2) has none and the compiler would call libm per element; and
   gcc vectorises floor/ceil/trunc (not rint) only under -fno-trapping-math,
   which NCLib cannot use (it lets the compiler add or drop FP flags). In
   those cases the rounding is done branch-free here, so that it vectorises:
   - lanes with |x| >= 2^p (p = mantissa bits: already integers), inf and
     NaN are found on the exponent bits and masked to 0 for the arithmetic,
     then take x + 0 at the end: that is x itself (a quiet NaN passes
     without a flag) except that a signalling NaN is quieted with INVALID,
     as by a rounding instruction;
   - rint: for |x| < 2^p, (x + c) - c with c = copysign(2^p, x) is x rounded
     to an integer (in the current rounding mode, as rint);
   - floor/ceil step r by one where rint went the wrong way, found with no
     comparison: 0.5 - copysign(0.5, d) is 1 for d < 0 and 0 for d >= +0
     (d = x - r or r - x, exact; "+ 0.0" turns the -0.0 of -0.0 - +0.0
     into +0.0); trunc is floor(|x|) with x's sign;
   - copysign(r, x) last gives zero results the sign of x. */
#if defined(__SSE2_MATH__) && !defined(__SSE4_1__)
#  define NCL_UNARY_RINT_BY_BITS 1
#else
#  define NCL_UNARY_RINT_BY_BITS 0
#endif
#if defined(__SSE2_MATH__) && (!defined(__SSE4_1__) || !defined(__clang__))
#  define NCL_UNARY_FLOOR_BY_BITS 1
#else
#  define NCL_UNARY_FLOOR_BY_BITS 0
#endif

enum { ROUND_RINT, ROUND_FLOOR, ROUND_CEIL, ROUND_TRUNC };

/* mode is a constant at every call, so each op keeps only its own lines. */
NCL_KINLINE float round_bits_f32(float x, int mode)
{
    const uint32_t b = bits_f32(x);
    const uint32_t small = lt_mask32((b >> 23) & 0xffu, 127u + 23u); /* |x| < 2^23 */
    const float xk = float_f32(b & small);
    const float in = mode == ROUND_TRUNC ? fabsf(xk) : xk;
    const float c = copysignf(0x1p23f, in);
    float r = (in + c) - c;
    if (mode == ROUND_FLOOR || mode == ROUND_TRUNC)
        r -= 0.5f - copysignf(0.5f, (in - r) + 0.0f);
    else if (mode == ROUND_CEIL)
        r += 0.5f - copysignf(0.5f, (r - in) + 0.0f);
    r = copysignf(r, xk);
    return float_f32((bits_f32(r) & small) | (bits_f32(x + 0.0f) & ~small));
}

NCL_KINLINE double round_bits_f64(double x, int mode)
{
    const uint64_t b = bits_f64(x);
    const uint64_t small = lt_mask64((b >> 52) & 0x7ffu, 1023u + 52u); /* |x| < 2^52 */
    const double xk = float_f64(b & small);
    const double in = mode == ROUND_TRUNC ? fabs(xk) : xk;
    const double c = copysign(0x1p52, in);
    double r = (in + c) - c;
    if (mode == ROUND_FLOOR || mode == ROUND_TRUNC)
        r -= 0.5 - copysign(0.5, (in - r) + 0.0);
    else if (mode == ROUND_CEIL)
        r += 0.5 - copysign(0.5, (r - in) + 0.0);
    r = copysign(r, xk);
    return float_f64((bits_f64(r) & small) | (bits_f64(x + 0.0) & ~small));
}

#if NCL_UNARY_FLOOR_BY_BITS
#  define DEF_(sfx, T, F)                                                                           \
    NCL_KINLINE T op_floor_##sfx(T x, int *fpe) { (void)fpe; return round_bits_##sfx(x, ROUND_FLOOR); } \
    NCL_KINLINE T op_ceil_##sfx(T x, int *fpe) { (void)fpe; return round_bits_##sfx(x, ROUND_CEIL); }   \
    NCL_KINLINE T op_trunc_##sfx(T x, int *fpe) { (void)fpe; return round_bits_##sfx(x, ROUND_TRUNC); }
#else
#  define DEF_(sfx, T, F)                                                                 \
    NCL_KINLINE T op_floor_##sfx(T x, int *fpe) { (void)fpe; return floor##F(x); }      \
    NCL_KINLINE T op_ceil_##sfx(T x, int *fpe) { (void)fpe; return ceil##F(x); }        \
    NCL_KINLINE T op_trunc_##sfx(T x, int *fpe) { (void)fpe; return trunc##F(x); }
#endif
NCL_UNARY_FLOAT_LIST(DEF_)
#undef DEF_
#if NCL_UNARY_RINT_BY_BITS
#  define DEF_(sfx, T, F) \
    NCL_KINLINE T op_rint_##sfx(T x, int *fpe) { (void)fpe; return round_bits_##sfx(x, ROUND_RINT); }
#else
#  define DEF_(sfx, T, F) NCL_KINLINE T op_rint_##sfx(T x, int *fpe) { (void)fpe; return rint##F(x); }
#endif
NCL_UNARY_FLOAT_LIST(DEF_)
#undef DEF_

/* ---- deg2rad, rad2deg, spacing, conjugate, fabs --------------------------- */
/* deg2rad, rad2deg: one rounded multiply by NumPy's constant: pi/180 and
   180/pi rounded to double for float64; for float32 the quotient of the
   float constants, which for 180/pi is an ulp below (float)(180/pi). */
NCL_KINLINE float op_deg2rad_f32(float x, int *fpe) { (void)fpe; return x * 0x1.1df46ap-6f; }
NCL_KINLINE double op_deg2rad_f64(double x, int *fpe) { (void)fpe; return x * 0x1.1df46a2529d39p-6; }
NCL_KINLINE float op_rad2deg_f32(float x, int *fpe) { (void)fpe; return x * 0x1.ca5dcp+5f; }
NCL_KINLINE double op_rad2deg_f64(double x, int *fpe) { (void)fpe; return x * 0x1.ca5dc1a63c1f8p+5; }

/* spacing: the next float away from zero minus x, so negative for x < 0;
   ±0 gives the least positive subnormal and ±inf gives NaN, neither with a
   flag; NaN gives NaN. nextafter raises UNDERFLOW where its result is
   subnormal and OVERFLOW past the largest float, NumPy's flags in the same
   cases. */
NCL_KINLINE float op_spacing_f32(float x, int *fpe)
{
    (void)fpe;
    if (isinf(x)) return NAN;
    if (x == 0) return 0x1p-149f;
    return nextafterf(x, copysignf(INFINITY, x)) - x;
}

NCL_KINLINE double op_spacing_f64(double x, int *fpe)
{
    (void)fpe;
    if (isinf(x)) return (double)NAN;
    if (x == 0) return 0x1p-1074;
    return nextafter(x, copysign((double)INFINITY, x)) - x;
}

/* conjugate: x itself for every real dtype (NumPy has no bool loop). */
#define DEF_(sfx, T, U) NCL_KINLINE T op_conjugate_##sfx(T x, int *fpe) { return op_positive_##sfx(x, fpe); }
NCL_UNARY_INT_LIST(DEF_)
#undef DEF_
#define DEF_(sfx, T, F) NCL_KINLINE T op_conjugate_##sfx(T x, int *fpe) { return op_positive_##sfx(x, fpe); }
NCL_UNARY_FLOAT_LIST(DEF_)
#undef DEF_

/* fabs: absolute's float loops under C's name (NumPy has no integer one). */
#define DEF_(sfx, T, F) NCL_KINLINE T op_fabs_##sfx(T x, int *fpe) { return op_absolute_##sfx(x, fpe); }
NCL_UNARY_FLOAT_LIST(DEF_)
#undef DEF_

/* ---- frexp, modf: two outputs -------------------------------------------- */
/* frexp: x = m * 2^e with 0.5 <= |m| < 1, m exact; ±0, ±inf and NaN come
   back as they are with e = 0 (NumPy's values; C leaves e unspecified for
   inf and NaN). modf: the fractional part, with x's sign (-0.0 for a
   negative integer), and the integral part; ±inf gives (±0, ±inf), NaN
   gives NaN twice. Both exact, neither raises a flag. */
NCL_KINLINE float op_frexp_f32(float x, int32_t *e, int *fpe)
{
    (void)fpe;
    int k = 0;
    const float m = isfinite(x) ? frexpf(x, &k) : x;
    *e = k;
    return m;
}

NCL_KINLINE double op_frexp_f64(double x, int32_t *e, int *fpe)
{
    (void)fpe;
    int k = 0;
    const double m = isfinite(x) ? frexp(x, &k) : x;
    *e = k;
    return m;
}

NCL_KINLINE float op_modf_f32(float x, float *ip, int *fpe) { (void)fpe; return modff(x, ip); }
NCL_KINLINE double op_modf_f64(double x, double *ip, int *fpe) { (void)fpe; return modf(x, ip); }

/* ---- the libm functions: one line per (op, dtype) ------------------------- */
/* SPEC: within 1 ulp of the exact result. glibc 2.36's float functions are
   not all that close (measured: tanhf 2.2 ulp, log10f 1.8, sinhf 1.5,
   acoshf/asinhf/atanhf 1.4, coshf 1.3), so float32 evaluates in double and
   rounds once: a 53-bit result within a few double ulps rounds to within
   0.5 float ulp + 2^-28. Only sqrtf (exact) and the float functions that
   are themselves within 0.55 ulp (expf, exp2f, logf, log2f, sinf, cosf)
   are used directly, for speed. The double->float conversion raises
   OVERFLOW / UNDERFLOW where the float result overflows or is tiny and
   inexact, so the flags are those of a float computation.
   float64 uses glibc's double functions, except the eight that glibc
   gives only within 2-4 ulp (measured: cbrt 2.8, tanh 1.8, sinh 1.7, log10
   1.5, acosh 1.5, atanh 1.4, asinh 1.3; cosh is documented at 2): those
   evaluate in long double and round once wherever long double is wider,
   within 0.5 + 2^-11 ulp (glibc's long double functions are within 3 of
   their own ulps): the x87 64-bit-mantissa format on x86, IEEE binary128 on
   aarch64 and s390x (measured on aarch64 with the double functions: cbrt
   3.1, tanh 2.0, sinh, arctanh and arccosh 1.6, log10 1.6, arcsinh 1.5).
   The x87 raises their flags in its own status word, which the framework
   does not sample: there the loops of these eight (ncl_k_*_f64 in unary.c,
   NCL_UNARY_F64_VIA_X87) collect and restore the FP environment
   themselves. Where long double is double, these eight use the double
   functions.
   exp2 of an integer in the subnormal range is an exact power of two,
   which some libms (glibc 2.36 on aarch64) still flag as UNDERFLOW; it is
   made by ldexp, exactly and without a flag.
   Where the target has SIMD, unary.c runs SLEEF's vector functions instead
   (unary_sleef.h) and these scalar functions only for the inputs SLEEF is
   not trusted on; elsewhere they are the loops.
   Edges, as C99 Annex F and NumPy: sqrt(x<0), log*(x<0), arcsin/arccos(|x|>1),
   arccosh(x<1), arctanh(|x|>1), sin/cos/tan(±inf) -> NaN + INVALID;
   log*(±0) -> -inf + DIVIDE, log1p(-1) and arctanh(±1) -> ±inf + DIVIDE;
   exp & co. and sinh/cosh of large x -> inf + OVERFLOW, tiny results raise
   UNDERFLOW; ±0 maps to ±0 wherever f(0) = 0; NaN in gives NaN out, quietly.
   X(op, sfx, T, function) */
#define NCL_UNARY_LIBM_LIST(X)                                                     \
    X(sqrt, f32, float, sqrtf)       X(sqrt, f64, double, sqrt)                    \
    X(cbrt, f32, float, cbrt_dd)     X(cbrt, f64, double, cbrt_ld)                 \
    X(exp, f32, float, expf)         X(exp, f64, double, exp)                      \
    X(exp2, f32, float, exp2f)       X(exp2, f64, double, exp2_exact)              \
    X(expm1, f32, float, expm1_dd)   X(expm1, f64, double, expm1)                  \
    X(log, f32, float, logf)         X(log, f64, double, log)                      \
    X(log2, f32, float, log2f)       X(log2, f64, double, log2)                    \
    X(log10, f32, float, log10_dd)   X(log10, f64, double, log10_ld)               \
    X(log1p, f32, float, log1p_dd)   X(log1p, f64, double, log1p)                  \
    X(sin, f32, float, sinf)         X(sin, f64, double, sin)                      \
    X(cos, f32, float, cosf)         X(cos, f64, double, cos)                      \
    X(tan, f32, float, tan_dd)       X(tan, f64, double, tan)                      \
    X(arcsin, f32, float, asin_dd)   X(arcsin, f64, double, asin)                  \
    X(arccos, f32, float, acos_dd)   X(arccos, f64, double, acos)                  \
    X(arctan, f32, float, atan_dd)   X(arctan, f64, double, atan)                  \
    X(sinh, f32, float, sinh_dd)     X(sinh, f64, double, sinh_ld)                 \
    X(cosh, f32, float, cosh_dd)     X(cosh, f64, double, cosh_ld)                 \
    X(tanh, f32, float, tanh_dd)     X(tanh, f64, double, tanh_ld)                 \
    X(arcsinh, f32, float, asinh_dd) X(arcsinh, f64, double, asinh_ld)             \
    X(arccosh, f32, float, acosh_dd) X(arccosh, f64, double, acosh_ld)             \
    X(arctanh, f32, float, atanh_dd) X(arctanh, f64, double, atanh_ld)

#if LDBL_MANT_DIG == 64 || LDBL_MANT_DIG == 113
#  define NCL_UNARY_F64_VIA_X87 (LDBL_MANT_DIG == 64)
#  define DEF_LD_(fn) NCL_KINLINE double fn##_ld(double x) { return (double)fn##l((long double)x); }
#else
#  define NCL_UNARY_F64_VIA_X87 0
#  define DEF_LD_(fn) NCL_KINLINE double fn##_ld(double x) { return fn(x); }
#endif
DEF_LD_(cbrt) DEF_LD_(log10) DEF_LD_(sinh) DEF_LD_(cosh)
DEF_LD_(tanh) DEF_LD_(asinh) DEF_LD_(acosh) DEF_LD_(atanh)
#undef DEF_LD_

NCL_KINLINE double exp2_exact(double x)
{
    if (isgreaterequal(x, -1074.0) && isless(x, -1022.0) && x == (double)(int)x) return ldexp(1.0, (int)x);
    return exp2(x);
}

/* fn_dd(x): the float function evaluated in double, rounded once. A result
   in float's subnormal range can be exact in double (atanh of a float
   subnormal is the input), so the conversion would not flag it; but none of
   these functions is exact there (only f(0) = 0 is, and 0 is not tiny), so
   such a result is tiny and inexact: UNDERFLOW, raised by arithmetic (the
   framework samples the FP unit's own flags). */
NCL_KINLINE float tiny_flagged(float r)
{
    if (r != 0.0f && isless(fabsf(r), FLT_MIN)) { /* quiet: r may be NaN */
        volatile float t = FLT_MIN;
        t = t * t;
    }
    return r;
}
#define DEF_DD_(fn) NCL_KINLINE float fn##_dd(float x) { return tiny_flagged((float)fn((double)x)); }
DEF_DD_(cbrt) DEF_DD_(expm1) DEF_DD_(log10) DEF_DD_(log1p) DEF_DD_(tan)
DEF_DD_(asin) DEF_DD_(acos) DEF_DD_(atan) DEF_DD_(sinh) DEF_DD_(cosh)
DEF_DD_(tanh) DEF_DD_(asinh) DEF_DD_(acosh) DEF_DD_(atanh)
#undef DEF_DD_

#define DEF_(op, sfx, T, fn) NCL_KINLINE T op_##op##_##sfx(T x, int *fpe) { (void)fpe; return fn(x); }
NCL_UNARY_LIBM_LIST(DEF_)
#undef DEF_

#endif /* NCL_UNARY_OPS_H */
