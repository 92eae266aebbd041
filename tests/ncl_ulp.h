/*
 * ncl_ulp.h: errors in ulps of a float32 or float64 result, for the accuracy
 * test (test_accuracy.c) and the exhaustive float32 sweep (ulp_sweep.c).
 */
#ifndef NCL_ULP_H
#define NCL_ULP_H

#include <float.h>
#include <math.h>
#include "ncl.h"

/* The ulp of the dtype at the magnitude of r (subnormal spacing below the
   smallest normal, the largest binade's spacing above the largest finite). */
static inline long double ulp_at(NclDType t, long double r)
{
    const int mant = t == NCL_FLOAT32 ? FLT_MANT_DIG : DBL_MANT_DIG;
    const int emin = t == NCL_FLOAT32 ? FLT_MIN_EXP : DBL_MIN_EXP;
    const int emax = t == NCL_FLOAT32 ? FLT_MAX_EXP : DBL_MAX_EXP;
    int e;
    (void)frexpl(fabsl(r), &e);
    if (r == 0 || e < emin) e = emin;
    if (e > emax) e = emax;
    return ldexpl(1.0L, e - mant);
}

/* The error of y against the reference r, in ulps; INFINITY where a
   special value is wrong (a NaN, infinity or zero that does not match). */
static inline double ulp_error(NclDType t, long double y, long double r)
{
    if (isnan(r)) return isnan(y) ? 0 : INFINITY;
    if (isnan(y)) return INFINITY;
    const long double big = t == NCL_FLOAT32 ? (long double)FLT_MAX : (long double)DBL_MAX;
    if (isinf(r)) return y == r ? 0 : INFINITY;
    if (r == 0) return (y == 0 && signbit(y) == signbit(r)) ? 0 : INFINITY;
    if (isinf(y)) {
        /* an infinity is right when r rounds to it (beyond the largest
           finite value by at least half its ulp) */
        const long double half = ulp_at(t, big) / 2;
        return (signbit(y) == signbit(r) && fabsl(r) >= big + half) ? 0 : INFINITY;
    }
    return (double)(fabsl(y - r) / ulp_at(t, r));
}

#endif /* NCL_ULP_H */
