/*
 * reduce_dd.h: the compensated (double-double) additions at the top of the
 * float sum tree (ncl/reduce.h): a value is a pair (hi, lo) whose exact sum
 * is what has been added so far, hi being that sum rounded. The tree's
 * lowest levels add in plain float arithmetic, where partial sums are
 * small; its top levels, where every rounding would cost an ulp of the
 * whole sum, add with error-free transformations, which is what makes NCLib's
 * sums more accurate than pairwise summation on any data.
 *
 * Pure arithmetic on values, shared by the kernels and by the framework's
 * gathered path (src/defaults/reduce.c), which must combine chunk values
 * exactly as the kernels do. Defined for double (f64) and float (f32). Every
 * rule here depends on values only, never on where they came from.
 */
#ifndef NCL_REDUCE_DD_H
#define NCL_REDUCE_DD_H

#include <float.h>
#include <math.h>

/* Magnitudes up to this add compensated: 64 of them cannot overflow, so no
   step of a compensated addition overflows or meets an infinity (and none
   raises a flag a plain sum would not). Anything larger, or not finite,
   adds plainly and drops the low part. */
#define NCL_DD_LIM_F64 (DBL_MAX / 64)
#define NCL_DD_LIM_F32 (FLT_MAX / 64)

typedef struct ncl_dd_f64 { double hi, lo; } ncl_dd_f64;
typedef struct ncl_dd_f32 { float hi, lo; } ncl_dd_f32;

/* a + b: Knuth's TwoSum of the high parts, the low parts and its error
   added together, then renormalised by a second TwoSum (not Fast2Sum: when
   the high parts cancel, the low part can be the larger one). islessequal
   is a quiet compare: a NaN takes the plain branch without raising
   INVALID. */
#define NCL_DD_ADD_BODY_(T, LIM)                                                \
    if (islessequal(fabs((double)a.hi), (double)(LIM)) &&                       \
        islessequal(fabs((double)b.hi), (double)(LIM))) {                       \
        const T s = a.hi + b.hi;                                                \
        const T bb = s - a.hi;                                                  \
        const T e = (a.hi - (s - bb)) + (b.hi - bb);                            \
        const T t = e + (a.lo + b.lo);                                          \
        if (t == 0) { /* exact: keep s, whose zero may be -0.0 */               \
            r.hi = s;                                                           \
            r.lo = 0;                                                           \
        } else {                                                                \
            r.hi = s + t;                                                       \
            const T tt = r.hi - s;                                              \
            r.lo = (s - (r.hi - tt)) + (t - tt);                                \
        }                                                                       \
    } else {                                                                    \
        r.hi = a.hi + b.hi;                                                     \
        r.lo = 0;                                                               \
    }

static inline ncl_dd_f64 ncl_dd_add_f64(ncl_dd_f64 a, ncl_dd_f64 b)
{
    ncl_dd_f64 r;
    NCL_DD_ADD_BODY_(double, NCL_DD_LIM_F64)
    return r;
}

static inline ncl_dd_f32 ncl_dd_add_f32(ncl_dd_f32 a, ncl_dd_f32 b)
{
    ncl_dd_f32 r;
    NCL_DD_ADD_BODY_(float, NCL_DD_LIM_F32)
    return r;
}

#undef NCL_DD_ADD_BODY_

#endif /* NCL_REDUCE_DD_H */
