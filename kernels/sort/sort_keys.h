/*
 * sort_keys.h: order-preserving integer keys for every dtype, so that all
 * sort kernels compare unsigned integers: no floating-point compare, no FP
 * flags, NaN handled once here.
 *
 * Two transforms of an element's bits u (as an unsigned integer of the
 * item's width):
 *   bkey  a bijection: sorting bkeys and mapping them back with binv gives
 *         exactly the input's bits, permuted. Order: -inf < ... < -0.0 <
 *         +0.0 < ... < +inf < NaNs (all NaNs, either sign, ordered by
 *         payload). It refines NumPy's order, so any bkey-sorted sequence is
 *         NumPy-sorted; but equal elements with different bits (-0.0 and
 *         +0.0, NaNs with different payloads) are not ties for it, which a
 *         stable sort must take care of (canon below).
 *   ckey  NumPy's equality classes exactly: -0.0 and +0.0 get one key, every
 *         NaN the greatest key. Not invertible: for index sorts only.
 * Integers: signed ones flip the sign bit, unsigned ones and bool are their
 * own keys. Floats: a negative value's bits are complemented, a positive
 * one's sign bit set (the classic total order); for bkey the non-NaN range
 * is then moved down by the mantissa mask to free room above +inf for both
 * signs of NaN.
 */
#ifndef NCL_SORT_KEYS_H
#define NCL_SORT_KEYS_H

#include "ncl_kernel.h"
#include "sort_kernel.h"

/* w bytes at p as an unsigned integer; and back (w constant after inlining). */
NCL_KINLINE uint64_t sk_load(const char *p, int w)
{
    switch (w) {
    case 1: { uint8_t v; memcpy(&v, p, 1); return v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

NCL_KINLINE void sk_store(char *p, uint64_t x, int w)
{
    switch (w) {
    case 1: { uint8_t v = (uint8_t)x; memcpy(p, &v, 1); return; }
    case 2: { uint16_t v = (uint16_t)x; memcpy(p, &v, 2); return; }
    case 4: { uint32_t v = (uint32_t)x; memcpy(p, &v, 4); return; }
    default: memcpy(p, &x, 8); return;
    }
}

NCL_KINLINE uint64_t sk_max(int w) { return w == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * w)) - 1; }
NCL_KINLINE uint64_t sk_sign(int w) { return (uint64_t)1 << (8 * w - 1); }
NCL_KINLINE int sk_is_float(NclDType dt) { return dt == NCL_FLOAT32 || dt == NCL_FLOAT64; }
NCL_KINLINE int sk_is_signed(NclDType dt)
{
    return dt == NCL_INT8 || dt == NCL_INT16 || dt == NCL_INT32 || dt == NCL_INT64;
}

/* IEEE constants of the float of width w (4 or 8): the bits of +inf, the
   mantissa mask, and the bkeys around the specials. */
NCL_KINLINE uint64_t sk_inf(int w) { return w == 4 ? 0x7F800000u : UINT64_C(0x7FF0000000000000); }
NCL_KINLINE uint64_t sk_mant(int w) { return w == 4 ? 0x007FFFFFu : UINT64_C(0x000FFFFFFFFFFFFF); }
/* bkey of +inf; every NaN's bkey is above it. */
NCL_KINLINE uint64_t sk_kinf(int w) { return sk_max(w) - 2 * sk_mant(w); }
/* bkey of -0.0; +0.0's is one more. */
NCL_KINLINE uint64_t sk_kneg0(int w) { return sk_sign(w) - 1 - sk_mant(w); }

NCL_KINLINE uint64_t sk_bkey(uint64_t u, NclDType dt)
{
    const int w = ncl_sort_width(dt);
    if (sk_is_signed(dt)) return u ^ sk_sign(w);
    if (!sk_is_float(dt)) return u;
    const uint64_t sign = sk_sign(w), inf = sk_inf(w), mant = sk_mant(w), max = sk_max(w);
    const uint64_t neg = u & sign, a = u & ~sign;
    if (__builtin_expect(a > inf, 0)) /* NaN: positive ones just above +inf, negative ones above those */
        return sk_kinf(w) + (a - inf) + (neg ? mant : 0);
    /* negative: complement (u ^ max); positive: set the sign (u ^ sign).
       Written as a mask, as the sign of random data defeats a branch. */
    const uint64_t flip = sign | (max & ((uint64_t)0 - (neg >> (8 * w - 1))));
    return (u ^ flip) - mant;
}

NCL_KINLINE uint64_t sk_binv(uint64_t k, NclDType dt)
{
    const int w = ncl_sort_width(dt);
    if (sk_is_signed(dt)) return k ^ sk_sign(w);
    if (!sk_is_float(dt)) return k;
    const uint64_t sign = sk_sign(w), inf = sk_inf(w), mant = sk_mant(w), max = sk_max(w);
    if (__builtin_expect(k > sk_kinf(w), 0)) {
        const uint64_t m = k - sk_kinf(w);
        return m > mant ? sign | (inf + (m - mant)) : inf + m;
    }
    /* sign set: clear it (t ^ sign); clear: complement (t ^ max) */
    const uint64_t t = k + mant;
    const uint64_t flip = sign | (max & ((t >> (8 * w - 1)) - 1));
    return t ^ flip;
}

NCL_KINLINE uint64_t sk_ckey(uint64_t u, NclDType dt)
{
    const int w = ncl_sort_width(dt);
    if (sk_is_signed(dt)) return u ^ sk_sign(w);
    if (!sk_is_float(dt)) return u;
    const uint64_t sign = sk_sign(w), a = u & ~sign;
    if (__builtin_expect(a > sk_inf(w), 0)) return sk_max(w);
    if (a == 0) return sign;
    const uint64_t flip = sign | (sk_max(w) & ((uint64_t)0 - ((u & sign) >> (8 * w - 1))));
    return u ^ flip;
}

/* Compare modes of the comparison sorts: plain unsigned order of the
   records, or float bkeys of width 4 / 8 compared by their NumPy equality
   class (what a stable sort of values needs). */
enum { SK_PLAIN = 0, SK_CANON4 = 4, SK_CANON8 = 8 };

/* The representative of bkey k's equality class (w the float's width):
   -0.0 joins +0.0, every NaN joins the first NaN key. Monotone. */
NCL_KINLINE uint64_t sk_canon(uint64_t k, int w)
{
    if (k == sk_kneg0(w)) return k + 1;
    if (k > sk_kinf(w)) return sk_kinf(w) + 1;
    return k;
}

#endif /* NCL_SORT_KEYS_H */
