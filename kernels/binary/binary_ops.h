/*
 * binary_ops.h: the scalar element functions of the Binary subsystem, one
 * static inline function per (op, dtype): ncl_bop_<op>_<suffix>(a, b, fpe).
 * Each returns the output element and may OR NCL_FPE_* bits into *fpe for
 * errors the hardware does not flag itself (integer division by zero,
 * MIN // -1). Float flags are left to the hardware: these functions perform
 * exactly the IEEE operations NumPy 1.24 performs, so the flags the
 * framework collects around a kernel are NumPy's, no more and no fewer;
 * the one exception, float max/min, is explained where they are defined.
 * Bool operands are read as truth values (any non-zero byte is true, as a
 * wrapped foreign buffer may hold) and bool results are always 0 or 1.
 *
 * Every function is defined for every input: integer arithmetic that C
 * leaves undefined (signed overflow, x / 0, MIN / -1, oversized or negative
 * shift counts) is computed in unsigned types or guarded. Kernel loops live
 * in binary_kernels.c; nothing here knows about strides or tables.
 *
 * Instantiation: simple ops are written once per dtype kind as a one-line
 * function macro NCL_BOP_<OP>_<kind>(suffix, T) and stamped out over
 * NCL_DTYPE_LIST; ops with real logic are force-inlined functions on the
 * widest type with the dtype's limits as constant arguments, wrapped by
 * one-line per-dtype functions. Kinds that lack an op (subtract of bool)
 * define no function for it.
 */
#ifndef NCL_BINARY_OPS_H
#define NCL_BINARY_OPS_H

#include <fenv.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include "ncl_kernel.h"

/* Wrapping arithmetic is done in NCL_BOP_W_<s>, an unsigned type at least as
   wide as int, so that neither the operands nor the result are promoted to a
   signed type (uint16_t * uint16_t would be a signed int multiply that can
   overflow). The conversion back to a signed type is modular on every
   compiler we support (implementation-defined in C11, not undefined). */
_Static_assert(sizeof(int) == 4, "wrapping arithmetic assumes a 32-bit int");
#define NCL_BOP_W_i8 uint32_t
#define NCL_BOP_W_i16 uint32_t
#define NCL_BOP_W_i32 uint32_t
#define NCL_BOP_W_i64 uint64_t
#define NCL_BOP_W_u8 uint32_t
#define NCL_BOP_W_u16 uint32_t
#define NCL_BOP_W_u32 uint32_t
#define NCL_BOP_W_u64 uint64_t
/* The unsigned type of the same width: a shift count read as unsigned, so
   that a negative count compares as huge (>= the width) in one test. */
#define NCL_BOP_U_i8 uint8_t
#define NCL_BOP_U_i16 uint16_t
#define NCL_BOP_U_i32 uint32_t
#define NCL_BOP_U_i64 uint64_t
#define NCL_BOP_U_u8 uint8_t
#define NCL_BOP_U_u16 uint16_t
#define NCL_BOP_U_u32 uint32_t
#define NCL_BOP_U_u64 uint64_t
#define NCL_BOP_BITS_i8 8
#define NCL_BOP_BITS_i16 16
#define NCL_BOP_BITS_i32 32
#define NCL_BOP_BITS_i64 64
#define NCL_BOP_BITS_u8 8
#define NCL_BOP_BITS_u16 16
#define NCL_BOP_BITS_u32 32
#define NCL_BOP_BITS_u64 64
#define NCL_BOP_MIN_i8 INT8_MIN
#define NCL_BOP_MIN_i16 INT16_MIN
#define NCL_BOP_MIN_i32 INT32_MIN
#define NCL_BOP_MIN_i64 INT64_MIN

/* ---- add, subtract, multiply ------------------------------------------------
   Integers wrap modulo 2^width. bool: add is logical or, multiply logical
   and (NumPy's ?? loops); subtract has no bool loop. Floats: IEEE. */
#define NCL_BOP_ADD_b(s, T) \
    NCL_KINLINE T ncl_bop_add_##s(T a, T b, int *e) { (void)e; return (T)((a | b) != 0); }
#define NCL_BOP_ADD_i(s, T) \
    NCL_KINLINE T ncl_bop_add_##s(T a, T b, int *e) { (void)e; return (T)((NCL_BOP_W_##s)a + (NCL_BOP_W_##s)b); }
#define NCL_BOP_ADD_u NCL_BOP_ADD_i
#define NCL_BOP_ADD_f(s, T) \
    NCL_KINLINE T ncl_bop_add_##s(T a, T b, int *e) { (void)e; return a + b; }

#define NCL_BOP_SUBTRACT_i(s, T) \
    NCL_KINLINE T ncl_bop_subtract_##s(T a, T b, int *e) { (void)e; return (T)((NCL_BOP_W_##s)a - (NCL_BOP_W_##s)b); }
#define NCL_BOP_SUBTRACT_u NCL_BOP_SUBTRACT_i
#define NCL_BOP_SUBTRACT_f(s, T) \
    NCL_KINLINE T ncl_bop_subtract_##s(T a, T b, int *e) { (void)e; return a - b; }

#define NCL_BOP_MULTIPLY_b(s, T) \
    NCL_KINLINE T ncl_bop_multiply_##s(T a, T b, int *e) { (void)e; return (T)((a != 0) & (b != 0)); }
#define NCL_BOP_MULTIPLY_i(s, T) \
    NCL_KINLINE T ncl_bop_multiply_##s(T a, T b, int *e) { (void)e; return (T)((NCL_BOP_W_##s)a * (NCL_BOP_W_##s)b); }
#define NCL_BOP_MULTIPLY_u NCL_BOP_MULTIPLY_i
#define NCL_BOP_MULTIPLY_f(s, T) \
    NCL_KINLINE T ncl_bop_multiply_##s(T a, T b, int *e) { (void)e; return a * b; }

/* ---- true_divide: floats only (integers resolve to float64 before here). */
NCL_KINLINE float ncl_bop_divide_f32(float a, float b, int *e) { (void)e; return a / b; }
NCL_KINLINE double ncl_bop_divide_f64(double a, double b, int *e) { (void)e; return a / b; }

/* ---- integer floor_divide, remainder, fmod ----------------------------------
   Division by zero gives 0 and raises DIVIDE. floor_divide rounds toward
   -inf; MIN // -1 gives MIN and raises OVERFLOW (the true quotient does not
   fit). remainder takes the sign of the divisor (Python), fmod the sign of
   the dividend (C); both give 0 for x % -1, MIN % -1 included, without
   evaluating the C expression that would trap.
   Signed values of every width are handled in int64_t: min is the dtype's
   minimum, a compile-time constant after inlining. */
NCL_KINLINE int64_t ncl_bop_sfloordiv(int64_t a, int64_t b, int64_t min, int *fpe)
{
    if (b == 0) {
        *fpe |= NCL_FPE_DIVIDE;
        return 0;
    }
    if (b == -1 && a == min) {
        *fpe |= NCL_FPE_OVERFLOW;
        return min;
    }
    const int64_t q = a / b, r = a % b;
    /* C truncates toward zero: step down when the exact quotient was
       negative and not an integer (remainder non-zero, signs differ). */
    return q - (int64_t)(r != 0 && (r ^ b) < 0);
}

NCL_KINLINE int64_t ncl_bop_sremainder(int64_t a, int64_t b, int *fpe)
{
    if (b == 0) {
        *fpe |= NCL_FPE_DIVIDE;
        return 0;
    }
    if (b == -1)
        return 0;
    const int64_t r = a % b;
    /* r and b of opposite signs with |r| < |b|: r + b cannot overflow. */
    return (r != 0 && (r ^ b) < 0) ? r + b : r;
}

NCL_KINLINE int64_t ncl_bop_sfmod(int64_t a, int64_t b, int *fpe)
{
    if (b == 0) {
        *fpe |= NCL_FPE_DIVIDE;
        return 0;
    }
    if (b == -1)
        return 0;
    return a % b;
}

/* Unsigned: floor and truncation agree, and remainder equals fmod. */
NCL_KINLINE uint64_t ncl_bop_udiv(uint64_t a, uint64_t b, int *fpe)
{
    if (b == 0) {
        *fpe |= NCL_FPE_DIVIDE;
        return 0;
    }
    return a / b;
}

NCL_KINLINE uint64_t ncl_bop_umod(uint64_t a, uint64_t b, int *fpe)
{
    if (b == 0) {
        *fpe |= NCL_FPE_DIVIDE;
        return 0;
    }
    return a % b;
}

#define NCL_BOP_FLOOR_DIVIDE_i(s, T) \
    NCL_KINLINE T ncl_bop_floor_divide_##s(T a, T b, int *e) { return (T)ncl_bop_sfloordiv(a, b, NCL_BOP_MIN_##s, e); }
#define NCL_BOP_FLOOR_DIVIDE_u(s, T) \
    NCL_KINLINE T ncl_bop_floor_divide_##s(T a, T b, int *e) { return (T)ncl_bop_udiv(a, b, e); }
#define NCL_BOP_FLOOR_DIVIDE_f(s, T) /* written out below */

#define NCL_BOP_REMAINDER_i(s, T) \
    NCL_KINLINE T ncl_bop_remainder_##s(T a, T b, int *e) { return (T)ncl_bop_sremainder(a, b, e); }
#define NCL_BOP_REMAINDER_u(s, T) \
    NCL_KINLINE T ncl_bop_remainder_##s(T a, T b, int *e) { return (T)ncl_bop_umod(a, b, e); }
#define NCL_BOP_REMAINDER_f(s, T) /* written out below */

#define NCL_BOP_FMOD_i(s, T) \
    NCL_KINLINE T ncl_bop_fmod_##s(T a, T b, int *e) { return (T)ncl_bop_sfmod(a, b, e); }
#define NCL_BOP_FMOD_u(s, T) \
    NCL_KINLINE T ncl_bop_fmod_##s(T a, T b, int *e) { return (T)ncl_bop_umod(a, b, e); }
#define NCL_BOP_FMOD_f(s, T) /* written out below */

/* ---- float floor_divide and remainder: Python's divmod ----------------------
   mod = fmod(a, b) is exact; (a - mod) / b is then very nearly an integer,
   which is stepped down when mod has the wrong sign for a floor and snapped
   to the nearest integer (the division may land just below it). Zeros get
   a sign: the quotient's is that of a / b, the remainder's that of b.
   b == 0: floor_divide is a / b (inf or NaN, flagged DIVIDE or INVALID by
   the hardware), remainder is fmod(a, 0) = NaN (INVALID unless a is NaN).
   a = ±inf: fmod raises INVALID and both results are NaN; a quotient that
   overflows to inf raises OVERFLOW, then INVALID (inf - floor(inf)).
   remainder computes only the modulus, so it raises nothing that the
   quotient alone would (NumPy: remainder(1e308, 1e-308) is silent,
   floor_divide overflows).
   No ordered comparison touches a value that may be NaN: clang if-converts
   such compares into signalling compare instructions, which raise INVALID
   on a quiet NaN, and unlike maximum below these loops cannot simply drop
   INVALID afterwards, as they raise it legitimately. Signs are read with
   signbit(), which also makes the sign test of the NumPy algorithm,
   (b < 0) != (mod < 0), a bit test; for NaN operands its outcome does not
   matter, the result is NaN either way. */
/* x > 0.5 for x >= +0 or NaN (NaN: false), read on the bit pattern, where
   non-negative values order as unsigned integers and every NaN lies above
   +inf. An FP compare would do, but clang if-converts it ahead of any NaN
   test into a signalling compare instruction. */
NCL_KINLINE int ncl_bop_above_half_f64(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u > UINT64_C(0x3fe0000000000000) && u < UINT64_C(0x7ff0000000000000);
}

NCL_KINLINE int ncl_bop_above_half_f32(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u > UINT32_C(0x3f000000) && u < UINT32_C(0x7f800000);
}

NCL_KINLINE double ncl_bop_floor_divide_f64(double a, double b, int *e)
{
    (void)e;
    if (b == 0)
        return a / b;
    const double mod = fmod(a, b);
    double div = (a - mod) / b;
    if (mod != 0 && !signbit(b) != !signbit(mod))
        div -= 1.0;
    if (div == 0)
        return copysign(0.0, a / b);
    double fl = floor(div);
    /* div - fl is in [0, 1), or NaN when div is ±inf (INVALID, as NumPy) */
    if (ncl_bop_above_half_f64(div - fl))
        fl += 1.0;
    return fl;
}

NCL_KINLINE float ncl_bop_floor_divide_f32(float a, float b, int *e)
{
    (void)e;
    if (b == 0)
        return a / b;
    const float mod = fmodf(a, b);
    float div = (a - mod) / b;
    if (mod != 0 && !signbit(b) != !signbit(mod))
        div -= 1.0f;
    if (div == 0)
        return copysignf(0.0f, a / b);
    float fl = floorf(div);
    if (ncl_bop_above_half_f32(div - fl))
        fl += 1.0f;
    return fl;
}

NCL_KINLINE double ncl_bop_remainder_f64(double a, double b, int *e)
{
    (void)e;
    double mod = fmod(a, b);
    if (mod == 0)
        return copysign(0.0, b);
    /* Opposite signs and |mod| < |b|: the sum is exact. */
    if (!signbit(b) != !signbit(mod))
        mod += b;
    return mod;
}

NCL_KINLINE float ncl_bop_remainder_f32(float a, float b, int *e)
{
    (void)e;
    float mod = fmodf(a, b);
    if (mod == 0)
        return copysignf(0.0f, b);
    if (!signbit(b) != !signbit(mod))
        mod += b;
    return mod;
}

/* fmod: C's fmod, exact; NaN and INVALID for b == 0 or a = ±inf. */
NCL_KINLINE float ncl_bop_fmod_f32(float a, float b, int *e) { (void)e; return fmodf(a, b); }
NCL_KINLINE double ncl_bop_fmod_f64(double a, double b, int *e) { (void)e; return fmod(a, b); }

/* ---- power -------------------------------------------------------------------
   Integers: exponentiation by squaring modulo 2^64, truncated to the dtype,
   which is the wrapped exact power (x**0 == 1, 0**0 == 1). A negative
   exponent of a signed type is refused by the framework before any kernel
   runs (the signed kernels check what they receive, see binary_kernels.c);
   here a negative exponent gives 0, so the function is defined everywhere.
   Floats: C pow. */
NCL_KINLINE uint64_t ncl_bop_upow(uint64_t base, uint64_t exp)
{
    uint64_t r = 1;
    while (exp != 0) {
        if (exp & 1u)
            r *= base;
        base *= base;
        exp >>= 1;
    }
    return r;
}

#define NCL_BOP_POWER_i(s, T) \
    NCL_KINLINE T ncl_bop_power_##s(T a, T b, int *e) { (void)e; return b < 0 ? (T)0 : (T)ncl_bop_upow((uint64_t)a, (uint64_t)b); }
#define NCL_BOP_POWER_u(s, T) \
    NCL_KINLINE T ncl_bop_power_##s(T a, T b, int *e) { (void)e; return (T)ncl_bop_upow(a, b); }
#define NCL_BOP_POWER_f(s, T) /* written out below */
NCL_KINLINE float ncl_bop_power_f32(float a, float b, int *e) { (void)e; return powf(a, b); }
NCL_KINLINE double ncl_bop_power_f64(double a, double b, int *e) { (void)e; return pow(a, b); }

/* ---- maximum, minimum, fmax, fmin --------------------------------------------
   bool: max is or, min is and. Integers: the larger/smaller value.
   Floats, as NumPy on x86-64: when a and b compare equal (+0 and -0) the
   result is b, the second operand; maximum/minimum propagate NaN (a if a is
   NaN, else b if b is NaN: the first NaN wins); fmax/fmin ignore a NaN
   operand (the other one; a when both are NaN). No flag is reported.
   The float forms are the hardware's max/min (a > b ? a : b returns b when
   unordered) plus one NaN select, so they vectorise to maxpd + blend; but
   those compares raise INVALID on a quiet NaN, and no source-level guard
   survives the compilers (both see that a compare whose result a NaN
   select discards may take the raw operands). So, like NumPy, the kernels
   running them put the INVALID flag back as they found it: a loop of these
   must be bracketed by ncl_bop_invalid_enter / ncl_bop_invalid_leave. */
NCL_KINLINE int ncl_bop_invalid_enter(void)
{
#ifdef FE_INVALID
    return fetestexcept(FE_INVALID);
#else
    return 0;
#endif
}

NCL_KINLINE void ncl_bop_invalid_leave(int before)
{
#ifdef FE_INVALID
    if (!before && fetestexcept(FE_INVALID))
        feclearexcept(FE_INVALID);
#else
    (void)before;
#endif
}

#define NCL_BOP_MAXIMUM_b(s, T) \
    NCL_KINLINE T ncl_bop_maximum_##s(T a, T b, int *e) { (void)e; return (T)((a | b) != 0); }
#define NCL_BOP_MAXIMUM_i(s, T) \
    NCL_KINLINE T ncl_bop_maximum_##s(T a, T b, int *e) { (void)e; return a > b ? a : b; }
#define NCL_BOP_MAXIMUM_u NCL_BOP_MAXIMUM_i
#define NCL_BOP_MAXIMUM_f(s, T) \
    NCL_KINLINE T ncl_bop_maximum_##s(T a, T b, int *e) { (void)e; return isnan(a) ? a : (a > b ? a : b); }

#define NCL_BOP_MINIMUM_b(s, T) \
    NCL_KINLINE T ncl_bop_minimum_##s(T a, T b, int *e) { (void)e; return (T)((a != 0) & (b != 0)); }
#define NCL_BOP_MINIMUM_i(s, T) \
    NCL_KINLINE T ncl_bop_minimum_##s(T a, T b, int *e) { (void)e; return a < b ? a : b; }
#define NCL_BOP_MINIMUM_u NCL_BOP_MINIMUM_i
#define NCL_BOP_MINIMUM_f(s, T) \
    NCL_KINLINE T ncl_bop_minimum_##s(T a, T b, int *e) { (void)e; return isnan(a) ? a : (a < b ? a : b); }

#define NCL_BOP_FMAX_b(s, T) \
    NCL_KINLINE T ncl_bop_fmax_##s(T a, T b, int *e) { return ncl_bop_maximum_##s(a, b, e); }
#define NCL_BOP_FMAX_i NCL_BOP_FMAX_b
#define NCL_BOP_FMAX_u NCL_BOP_FMAX_b
#define NCL_BOP_FMAX_f(s, T) \
    NCL_KINLINE T ncl_bop_fmax_##s(T a, T b, int *e) { (void)e; return isnan(b) ? a : (a > b ? a : b); }
#define NCL_BOP_FMIN_b(s, T) \
    NCL_KINLINE T ncl_bop_fmin_##s(T a, T b, int *e) { return ncl_bop_minimum_##s(a, b, e); }
#define NCL_BOP_FMIN_i NCL_BOP_FMIN_b
#define NCL_BOP_FMIN_u NCL_BOP_FMIN_b
#define NCL_BOP_FMIN_f(s, T) \
    NCL_KINLINE T ncl_bop_fmin_##s(T a, T b, int *e) { (void)e; return isnan(b) ? a : (a < b ? a : b); }

/* ---- arctan2, hypot, copysign: floats only, C99 semantics ------------------- */
NCL_KINLINE float ncl_bop_arctan2_f32(float a, float b, int *e) { (void)e; return atan2f(a, b); }
NCL_KINLINE double ncl_bop_arctan2_f64(double a, double b, int *e) { (void)e; return atan2(a, b); }
/* hypot(±inf, NaN) is +inf: an infinite side wins over an unknown one. */
NCL_KINLINE float ncl_bop_hypot_f32(float a, float b, int *e) { (void)e; return hypotf(a, b); }
NCL_KINLINE double ncl_bop_hypot_f64(double a, double b, int *e) { (void)e; return hypot(a, b); }
/* The magnitude of a with the sign bit of b, NaNs included; raises nothing. */
NCL_KINLINE float ncl_bop_copysign_f32(float a, float b, int *e) { (void)e; return copysignf(a, b); }
NCL_KINLINE double ncl_bop_copysign_f64(double a, double b, int *e) { (void)e; return copysign(a, b); }

/* ---- bitwise_and, bitwise_or, bitwise_xor: bool and integers ----------------
   On the two's complement representation (C defines &, |, ^ on negative
   values). bool results are normalised to 0/1. */
#define NCL_BOP_BITWISE_AND_b(s, T) \
    NCL_KINLINE T ncl_bop_bitwise_and_##s(T a, T b, int *e) { return ncl_bop_minimum_##s(a, b, e); }
#define NCL_BOP_BITWISE_AND_i(s, T) \
    NCL_KINLINE T ncl_bop_bitwise_and_##s(T a, T b, int *e) { (void)e; return (T)(a & b); }
#define NCL_BOP_BITWISE_AND_u NCL_BOP_BITWISE_AND_i
#define NCL_BOP_BITWISE_OR_b(s, T) \
    NCL_KINLINE T ncl_bop_bitwise_or_##s(T a, T b, int *e) { return ncl_bop_maximum_##s(a, b, e); }
#define NCL_BOP_BITWISE_OR_i(s, T) \
    NCL_KINLINE T ncl_bop_bitwise_or_##s(T a, T b, int *e) { (void)e; return (T)(a | b); }
#define NCL_BOP_BITWISE_OR_u NCL_BOP_BITWISE_OR_i
#define NCL_BOP_BITWISE_XOR_b(s, T) \
    NCL_KINLINE T ncl_bop_bitwise_xor_##s(T a, T b, int *e) { (void)e; return (T)((a != 0) ^ (b != 0)); }
#define NCL_BOP_BITWISE_XOR_i(s, T) \
    NCL_KINLINE T ncl_bop_bitwise_xor_##s(T a, T b, int *e) { (void)e; return (T)(a ^ b); }
#define NCL_BOP_BITWISE_XOR_u NCL_BOP_BITWISE_XOR_i

/* ---- left_shift, right_shift: integers --------------------------------------
   The count is read in the operand's own dtype. A count >= the width, or
   negative, shifts everything out: 0, except that an arithmetic right shift
   of a negative value gives -1 (the sign fills every bit). Left shifts wrap
   (1 << 7 as int8 is -128) and are done unsigned, so they are defined.
   Signed right shift by min(count, width - 1) covers both cases with one
   shift (C11 leaves >> of a negative value implementation-defined; gcc and
   clang shift arithmetically).
   The left shift count is masked to the width although the select already
   discards larger ones: the vectorised loop shifts every lane before it
   selects, and clang without AVX2 forms 2^count through a float
   conversion, which raises INVALID for counts >= 32 and, in 32-bit lanes,
   for 31 as well; there the shift is built from constant shifts instead. */
NCL_KINLINE uint32_t ncl_bop_shl32(uint32_t x, uint32_t n) /* n < 32 */
{
#if defined(__clang__) && !defined(__AVX2__)
    x = (n & 1u) ? x << 1 : x;
    x = (n & 2u) ? x << 2 : x;
    x = (n & 4u) ? x << 4 : x;
    x = (n & 8u) ? x << 8 : x;
    x = (n & 16u) ? x << 16 : x;
    return x;
#else
    return x << n;
#endif
}
NCL_KINLINE uint64_t ncl_bop_shl64(uint64_t x, uint64_t n) { return x << n; } /* n < 64 */
#define NCL_BOP_SHL_(x, n) _Generic((x), uint32_t: ncl_bop_shl32, uint64_t: ncl_bop_shl64)((x), (n))

#define NCL_BOP_LEFT_SHIFT_i(s, T)                                                      \
    NCL_KINLINE T ncl_bop_left_shift_##s(T a, T b, int *e)                              \
    {                                                                                   \
        (void)e;                                                                        \
        const NCL_BOP_U_##s n = (NCL_BOP_U_##s)b;                                       \
        const NCL_BOP_W_##s r = NCL_BOP_SHL_((NCL_BOP_W_##s)a, (NCL_BOP_W_##s)(n & (NCL_BOP_BITS_##s - 1))); \
        return n < NCL_BOP_BITS_##s ? (T)r : (T)0;                                      \
    }
#define NCL_BOP_LEFT_SHIFT_u NCL_BOP_LEFT_SHIFT_i
#define NCL_BOP_RIGHT_SHIFT_i(s, T)                                                     \
    NCL_KINLINE T ncl_bop_right_shift_##s(T a, T b, int *e)                             \
    {                                                                                   \
        (void)e;                                                                        \
        const NCL_BOP_U_##s n = (NCL_BOP_U_##s)b;                                       \
        return (T)(a >> (n < NCL_BOP_BITS_##s ? n : NCL_BOP_BITS_##s - 1));             \
    }
#define NCL_BOP_RIGHT_SHIFT_u(s, T)                                                     \
    NCL_KINLINE T ncl_bop_right_shift_##s(T a, T b, int *e)                             \
    {                                                                                   \
        (void)e;                                                                        \
        return b < NCL_BOP_BITS_##s ? (T)(a >> b) : (T)0;                               \
    }

/* ---- logical_and, logical_or, logical_xor: every dtype, bool result ---------
   Truth is value != 0: NaN is true, -0.0 is false (quiet comparison, no
   flag). */
#define NCL_BOP_LOGICAL_AND_b(s, T) \
    NCL_KINLINE ncl_bool ncl_bop_logical_and_##s(T a, T b, int *e) { (void)e; return (ncl_bool)((a != 0) & (b != 0)); }
#define NCL_BOP_LOGICAL_AND_i NCL_BOP_LOGICAL_AND_b
#define NCL_BOP_LOGICAL_AND_u NCL_BOP_LOGICAL_AND_b
#define NCL_BOP_LOGICAL_AND_f NCL_BOP_LOGICAL_AND_b
#define NCL_BOP_LOGICAL_OR_b(s, T) \
    NCL_KINLINE ncl_bool ncl_bop_logical_or_##s(T a, T b, int *e) { (void)e; return (ncl_bool)((a != 0) | (b != 0)); }
#define NCL_BOP_LOGICAL_OR_i NCL_BOP_LOGICAL_OR_b
#define NCL_BOP_LOGICAL_OR_u NCL_BOP_LOGICAL_OR_b
#define NCL_BOP_LOGICAL_OR_f NCL_BOP_LOGICAL_OR_b
#define NCL_BOP_LOGICAL_XOR_b(s, T) \
    NCL_KINLINE ncl_bool ncl_bop_logical_xor_##s(T a, T b, int *e) { (void)e; return (ncl_bool)((a != 0) ^ (b != 0)); }
#define NCL_BOP_LOGICAL_XOR_i NCL_BOP_LOGICAL_XOR_b
#define NCL_BOP_LOGICAL_XOR_u NCL_BOP_LOGICAL_XOR_b
#define NCL_BOP_LOGICAL_XOR_f NCL_BOP_LOGICAL_XOR_b

/* ---- heaviside, logaddexp, logaddexp2, nextafter: floats only ----------------
   heaviside(a, h): NaN (the default quiet NaN, whatever a's sign) for NaN
   a, h for a == ±0, else 0 or 1 by a's sign; raises nothing.
   logaddexp: NumPy's formula, step for step, so that the bits and the
   flags are its own: a == b (equal infinities included) gives a + ln 2;
   else with d = a - b the larger operand plus log1p(exp(-|d|)). A NaN d
   (a NaN operand, or inf - inf) is returned as it is and raises INVALID,
   as NumPy's ordered compare of it does. logaddexp2 is the same in base 2:
   a + 1 on a tie, log1p scaled by log2(e). NumPy's float32 loops call the
   float functions (expf, log1pf), which is why these do too.
   nextafter: C99's, whose UNDERFLOW for a subnormal or zero result and
   OVERFLOW past the largest float NumPy reports as well. */
NCL_KINLINE double ncl_bop_heaviside_f64(double a, double b, int *e)
{
    (void)e;
    if (isnan(a)) return (double)NAN;
    if (a == 0) return b;
    return signbit(a) ? 0.0 : 1.0;
}

NCL_KINLINE float ncl_bop_heaviside_f32(float a, float b, int *e)
{
    (void)e;
    if (isnan(a)) return NAN;
    if (a == 0) return b;
    return signbit(a) ? 0.0f : 1.0f;
}

#define NCL_BOP_LN2 0.693147180559945309417232121458176568
#define NCL_BOP_LOG2E 1.442695040888963407359924681001892137
NCL_KINLINE double ncl_bop_logaddexp_f64(double a, double b, int *e)
{
    if (a == b) return a + NCL_BOP_LN2;
    const double d = a - b;
    if (isnan(d)) {
        *e |= NCL_FPE_INVALID;
        return d;
    }
    return d > 0 ? a + log1p(exp(-d)) : b + log1p(exp(d));
}

NCL_KINLINE float ncl_bop_logaddexp_f32(float a, float b, int *e)
{
    if (a == b) return a + (float)NCL_BOP_LN2;
    const float d = a - b;
    if (isnan(d)) {
        *e |= NCL_FPE_INVALID;
        return d;
    }
    return d > 0 ? a + log1pf(expf(-d)) : b + log1pf(expf(d));
}

NCL_KINLINE double ncl_bop_logaddexp2_f64(double a, double b, int *e)
{
    if (a == b) return a + 1.0;
    const double d = a - b;
    if (isnan(d)) {
        *e |= NCL_FPE_INVALID;
        return d;
    }
    return d > 0 ? a + NCL_BOP_LOG2E * log1p(exp2(-d)) : b + NCL_BOP_LOG2E * log1p(exp2(d));
}

NCL_KINLINE float ncl_bop_logaddexp2_f32(float a, float b, int *e)
{
    if (a == b) return a + 1.0f;
    const float d = a - b;
    if (isnan(d)) {
        *e |= NCL_FPE_INVALID;
        return d;
    }
    return d > 0 ? a + (float)NCL_BOP_LOG2E * log1pf(exp2f(-d))
                 : b + (float)NCL_BOP_LOG2E * log1pf(exp2f(d));
}

NCL_KINLINE float ncl_bop_nextafter_f32(float a, float b, int *e) { (void)e; return nextafterf(a, b); }
NCL_KINLINE double ncl_bop_nextafter_f64(double a, double b, int *e) { (void)e; return nextafter(a, b); }

/* ---- gcd, lcm: integers ---------------------------------------------------------
   On the magnitudes, taken in uint64_t (exact, |INT64_MIN| included);
   gcd(0, 0) = 0 and lcm is 0 when either operand is. The result is cut to
   the dtype, so gcd(MIN, 0) and gcd(MIN, MIN) wrap to MIN and lcm wraps
   modulo 2^width, as NumPy's (which computes in the unsigned type of at
   least int's width and casts back). gcd is Stein's binary method: shifts
   and subtractions, no division. */
NCL_KINLINE uint64_t ncl_bop_ugcd(uint64_t a, uint64_t b)
{
    if (a == 0) return b;
    if (b == 0) return a;
    const int k = __builtin_ctzll(a | b);
    a >>= __builtin_ctzll(a);
    do {
        b >>= __builtin_ctzll(b);
        if (a > b) {
            const uint64_t t = a;
            a = b;
            b = t;
        }
        b -= a;
    } while (b != 0);
    return a << k;
}

NCL_KINLINE uint64_t ncl_bop_ulcm(uint64_t a, uint64_t b)
{
    const uint64_t g = ncl_bop_ugcd(a, b);
    return g == 0 ? 0 : a / g * b;
}

NCL_KINLINE uint64_t ncl_bop_mag(int64_t a) { return a < 0 ? 0u - (uint64_t)a : (uint64_t)a; }

#define NCL_BOP_GCD_i(s, T) \
    NCL_KINLINE T ncl_bop_gcd_##s(T a, T b, int *e) { (void)e; return (T)ncl_bop_ugcd(ncl_bop_mag(a), ncl_bop_mag(b)); }
#define NCL_BOP_GCD_u(s, T) \
    NCL_KINLINE T ncl_bop_gcd_##s(T a, T b, int *e) { (void)e; return (T)ncl_bop_ugcd(a, b); }
#define NCL_BOP_LCM_i(s, T) \
    NCL_KINLINE T ncl_bop_lcm_##s(T a, T b, int *e) { (void)e; return (T)ncl_bop_ulcm(ncl_bop_mag(a), ncl_bop_mag(b)); }
#define NCL_BOP_LCM_u(s, T) \
    NCL_KINLINE T ncl_bop_lcm_##s(T a, T b, int *e) { (void)e; return (T)ncl_bop_ulcm(a, b); }

/* ---- float_power, ldexp: loops outside the one-dtype pattern --------------------
   float_power has one loop, float64 (every operand is cast there), and is
   C's pow. ldexp(a, n) has four, a float32 or float64 mantissa with an
   int32 or int64 exponent: C's ldexp, exact unless the result overflows
   (OVERFLOW) or lands in the subnormal range inexactly (UNDERFLOW); an
   int64 exponent beyond int's range is clamped to it, which changes no
   result (2^±2^31 overflows or vanishes either way). Their kernels and
   table entries are written out in binary_kernels.c. */
NCL_KINLINE double ncl_bop_float_power_f64(double a, double b, int *e) { (void)e; return pow(a, b); }

NCL_KINLINE int ncl_bop_int_exponent(int64_t n)
{
    return n > INT_MAX ? INT_MAX : n < INT_MIN ? INT_MIN : (int)n;
}
NCL_KINLINE float ncl_bop_ldexp_f32_i32(float a, int32_t n, int *e) { (void)e; return ldexpf(a, n); }
NCL_KINLINE float ncl_bop_ldexp_f32_i64(float a, int64_t n, int *e) { (void)e; return ldexpf(a, ncl_bop_int_exponent(n)); }
NCL_KINLINE double ncl_bop_ldexp_f64_i32(double a, int32_t n, int *e) { (void)e; return ldexp(a, n); }
NCL_KINLINE double ncl_bop_ldexp_f64_i64(double a, int64_t n, int *e) { (void)e; return ldexp(a, ncl_bop_int_exponent(n)); }

/* ---- divmod: two outputs ----------------------------------------------------------
   (floor_divide(a, b), remainder(a, b)), each exactly as that op computes
   it; the flags are the union of theirs, as NumPy's divmod raises them
   (1.0 divmod 0.0: DIVIDE from the quotient, INVALID from the modulus). */
#define NCL_BOP_DIVMOD_i(s, T)                                                          \
    NCL_KINLINE T ncl_bop_divmod_##s(T a, T b, T *r, int *e)                            \
    {                                                                                   \
        *r = ncl_bop_remainder_##s(a, b, e);                                            \
        return ncl_bop_floor_divide_##s(a, b, e);                                       \
    }
#define NCL_BOP_DIVMOD_u NCL_BOP_DIVMOD_i
#define NCL_BOP_DIVMOD_f NCL_BOP_DIVMOD_i

/* Float-only ops and float variants written out above. */
#define NCL_BOP_DIVIDE_f(s, T)
#define NCL_BOP_ARCTAN2_f(s, T)
#define NCL_BOP_HYPOT_f(s, T)
#define NCL_BOP_COPYSIGN_f(s, T)
#define NCL_BOP_HEAVISIDE_f(s, T)
#define NCL_BOP_LOGADDEXP_f(s, T)
#define NCL_BOP_LOGADDEXP2_f(s, T)
#define NCL_BOP_NEXTAFTER_f(s, T)

/* ---- which loops exist -----------------------------------------------------
   X(ENUM, op, OP, set, loop, ...): every Binary op with the dtype kinds it
   has a loop for, exactly NumPy 1.24's ufunc.types over these dtypes, and
   the loop's shape: same = (T, T) -> T, bool = (T, T) -> bool, spow =
   (T, T) -> T whose signed-integer loops also refuse negative exponents,
   fmm = (T, T) -> T whose float loops restore INVALID (binary_kernels.c),
   two = (T, T) -> (T, T). Sets: all = b i u f, num = i u f, flt = f,
   bint = b i u, int = i u, none = loops written out by hand (float_power,
   ldexp). Trailing arguments are passed through to X. */
#define NCL_BOP_OP_LIST(X, ...)                                            \
    X(NCL_ADD, add, ADD, all, same, __VA_ARGS__)                           \
    X(NCL_SUBTRACT, subtract, SUBTRACT, num, same, __VA_ARGS__)            \
    X(NCL_MULTIPLY, multiply, MULTIPLY, all, same, __VA_ARGS__)            \
    X(NCL_DIVIDE, divide, DIVIDE, flt, same, __VA_ARGS__)                  \
    X(NCL_FLOOR_DIVIDE, floor_divide, FLOOR_DIVIDE, num, same, __VA_ARGS__) \
    X(NCL_REMAINDER, remainder, REMAINDER, num, same, __VA_ARGS__)         \
    X(NCL_FMOD, fmod, FMOD, num, same, __VA_ARGS__)                        \
    X(NCL_POWER, power, POWER, num, spow, __VA_ARGS__)                     \
    X(NCL_MAXIMUM, maximum, MAXIMUM, all, fmm, __VA_ARGS__)               \
    X(NCL_MINIMUM, minimum, MINIMUM, all, fmm, __VA_ARGS__)               \
    X(NCL_FMAX, fmax, FMAX, all, fmm, __VA_ARGS__)                        \
    X(NCL_FMIN, fmin, FMIN, all, fmm, __VA_ARGS__)                        \
    X(NCL_ARCTAN2, arctan2, ARCTAN2, flt, same, __VA_ARGS__)               \
    X(NCL_HYPOT, hypot, HYPOT, flt, same, __VA_ARGS__)                     \
    X(NCL_COPYSIGN, copysign, COPYSIGN, flt, same, __VA_ARGS__)            \
    X(NCL_BITWISE_AND, bitwise_and, BITWISE_AND, bint, same, __VA_ARGS__)  \
    X(NCL_BITWISE_OR, bitwise_or, BITWISE_OR, bint, same, __VA_ARGS__)     \
    X(NCL_BITWISE_XOR, bitwise_xor, BITWISE_XOR, bint, same, __VA_ARGS__)  \
    X(NCL_LEFT_SHIFT, left_shift, LEFT_SHIFT, int, same, __VA_ARGS__)      \
    X(NCL_RIGHT_SHIFT, right_shift, RIGHT_SHIFT, int, same, __VA_ARGS__)   \
    X(NCL_LOGICAL_AND, logical_and, LOGICAL_AND, all, bool, __VA_ARGS__)   \
    X(NCL_LOGICAL_OR, logical_or, LOGICAL_OR, all, bool, __VA_ARGS__)      \
    X(NCL_LOGICAL_XOR, logical_xor, LOGICAL_XOR, all, bool, __VA_ARGS__)   \
    X(NCL_HEAVISIDE, heaviside, HEAVISIDE, flt, same, __VA_ARGS__)         \
    X(NCL_LOGADDEXP, logaddexp, LOGADDEXP, flt, same, __VA_ARGS__)         \
    X(NCL_LOGADDEXP2, logaddexp2, LOGADDEXP2, flt, same, __VA_ARGS__)      \
    X(NCL_NEXTAFTER, nextafter, NEXTAFTER, flt, same, __VA_ARGS__)         \
    X(NCL_GCD, gcd, GCD, int, same, __VA_ARGS__)                           \
    X(NCL_LCM, lcm, LCM, int, same, __VA_ARGS__)                           \
    X(NCL_FLOAT_POWER, float_power, FLOAT_POWER, none, same, __VA_ARGS__)  \
    X(NCL_LDEXP, ldexp, LDEXP, none, same, __VA_ARGS__)                    \
    X(NCL_DIVMOD, divmod, DIVMOD, num, two, __VA_ARGS__)

/* NCL_BOP_IF_<set>_<kind>(...) keeps its arguments when the kind is in the
   set and drops them otherwise. */
#define NCL_BOP_KEEP_(...) __VA_ARGS__
#define NCL_BOP_DROP_(...)
#define NCL_BOP_IF_all_b NCL_BOP_KEEP_
#define NCL_BOP_IF_all_i NCL_BOP_KEEP_
#define NCL_BOP_IF_all_u NCL_BOP_KEEP_
#define NCL_BOP_IF_all_f NCL_BOP_KEEP_
#define NCL_BOP_IF_num_b NCL_BOP_DROP_
#define NCL_BOP_IF_num_i NCL_BOP_KEEP_
#define NCL_BOP_IF_num_u NCL_BOP_KEEP_
#define NCL_BOP_IF_num_f NCL_BOP_KEEP_
#define NCL_BOP_IF_flt_b NCL_BOP_DROP_
#define NCL_BOP_IF_flt_i NCL_BOP_DROP_
#define NCL_BOP_IF_flt_u NCL_BOP_DROP_
#define NCL_BOP_IF_flt_f NCL_BOP_KEEP_
#define NCL_BOP_IF_bint_b NCL_BOP_KEEP_
#define NCL_BOP_IF_bint_i NCL_BOP_KEEP_
#define NCL_BOP_IF_bint_u NCL_BOP_KEEP_
#define NCL_BOP_IF_bint_f NCL_BOP_DROP_
#define NCL_BOP_IF_int_b NCL_BOP_DROP_
#define NCL_BOP_IF_int_i NCL_BOP_KEEP_
#define NCL_BOP_IF_int_u NCL_BOP_KEEP_
#define NCL_BOP_IF_int_f NCL_BOP_DROP_
#define NCL_BOP_IF_none_b NCL_BOP_DROP_
#define NCL_BOP_IF_none_i NCL_BOP_DROP_
#define NCL_BOP_IF_none_u NCL_BOP_DROP_
#define NCL_BOP_IF_none_f NCL_BOP_DROP_

/* Stamp the scalar functions: every op of the list, for every dtype whose
   kind is in the op's set. */
#define NCL_BOP_DEFINE_(OPE, op, OP, set, loop, s, T, k) NCL_BOP_IF_##set##_##k(NCL_BOP_##OP##_##k(s, T))
#define NCL_BOP_DTYPE_(E, s, T, name, k) NCL_BOP_OP_LIST(NCL_BOP_DEFINE_, s, T, k)
NCL_DTYPE_LIST(NCL_BOP_DTYPE_)
#undef NCL_BOP_DTYPE_
#undef NCL_BOP_DEFINE_

#endif /* NCL_BINARY_OPS_H */
