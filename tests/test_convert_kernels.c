/*
 * test_convert_kernels.c: the Convert (cast) loops, reached through
 * NclConvert and the level-2 kernel chains, for all 121 (from, to) pairs.
 *
 * Expectations are computed here, independently of the kernels:
 * - to bool: value != 0 (NaN is true); bool sources read as 0/1;
 * - integer to integer: the low bits (two's complement wrap);
 * - to a float: C's correctly rounded conversion of the source value;
 * - float to integer: saturating: trunc(x) when it is in range, decided by
 *   an exact comparison of trunc(x) with the limits (sign, exponent,
 *   significand; no conversion outside the range is ever executed here);
 *   NaN gives 0, beyond the range the nearest limit; both raise INVALID.
 *   NCLib differs from NumPy here on purpose: NumPy's out-of-range result is
 *   whatever the CPU's conversion instruction gives.
 *
 * Groups. Pinned cases named by the contract (2**63 as float64 to int64,
 * 2147483520.0f / 2147483648.0f to int32, -0.5 to uint8 without a flag,
 * 2**64 to uint64). The matrix: every pair over its source dtype's edge
 * values (limits, powers of two and their neighbours from 2**7 to 2**64,
 * halves, +-0, NaN, infinities, denormals), one element at a time (so each
 * element's FP flags are checked exactly) and as whole arrays in several
 * layouts (contiguous, step 2, step -1, misaligned, a broadcast stride-0
 * input, strided provided outputs) with lengths past the vector width.
 * Registration: every pair has a hookable chain that NclConvert runs.
 */
#include <float.h>
#include "ncl_test.h"

/* ---- edge values (as in test_compare_kernels.c) ----------------------------------- */

#define MAX_EDGES 256

static void put(NclDType t, unsigned char *buf, int *n, const void *v)
{
    const size_t sz = NclDTypeSize(t);
    for (int i = 0; i < *n; i++)
        if (!memcmp(buf + (size_t)i * sz, v, sz)) return;
    ck_assert_int_lt(*n, MAX_EDGES);
    memcpy(buf + (size_t)(*n)++ * sz, v, sz);
}

static void put_float(NclDType t, unsigned char *buf, int *n, double d)
{
    if (t == NCL_FLOAT32) {
        float f = (float)d;
        put(t, buf, n, &f);
    } else {
        put(t, buf, n, &d);
    }
}

static int edge_values(NclDType t, unsigned char *buf)
{
    int n = 0;
    if (t == NCL_BOOL) {
        const uint8_t f = 0, tr = 1;
        put(t, buf, &n, &f);
        put(t, buf, &n, &tr);
        return n;
    }
    if (t == NCL_FLOAT32 || t == NCL_FLOAT64) {
        const int f32 = t == NCL_FLOAT32;
        const double specials[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.99, -0.99, 1.5, -1.5,
                                   2.5, -2.5, 127.5, -128.5, 255.5, -1.0 - 1e-9, NAN, -NAN,
                                   INFINITY, -INFINITY, 1e30, -1e30, 3e38, 1e300, -1e300};
        for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
            if (!(f32 && fabs(specials[i]) > FLT_MAX && !isinf(specials[i])))
                put_float(t, buf, &n, specials[i]);
        const double tiny = f32 ? (double)FLT_TRUE_MIN : DBL_TRUE_MIN;
        const double huge = f32 ? (double)FLT_MAX : DBL_MAX;
        const double lims[] = {tiny, -tiny, huge, -huge};
        for (size_t i = 0; i < sizeof lims / sizeof lims[0]; i++) put_float(t, buf, &n, lims[i]);
        const int pows[] = {7, 8, 15, 16, 24, 31, 32, 53, 63, 64};
        for (size_t i = 0; i < sizeof pows / sizeof pows[0]; i++)
            for (int s = -1; s <= 1; s += 2) {
                const double b = s * ldexp(1.0, pows[i]);
                if (f32) {
                    const float fb = (float)b;
                    put_float(t, buf, &n, (double)nextafterf(fb, -INFINITY));
                    put_float(t, buf, &n, (double)fb);
                    put_float(t, buf, &n, (double)nextafterf(fb, INFINITY));
                    for (double d = -1.5; d <= 1.5; d += 0.5) {
                        const float h = (float)(b + d);
                        if ((double)h - b == d) put_float(t, buf, &n, (double)h);
                    }
                } else {
                    put_float(t, buf, &n, nextafter(b, -INFINITY));
                    put_float(t, buf, &n, b);
                    put_float(t, buf, &n, nextafter(b, INFINITY));
                    for (double d = -1.5; d <= 1.5; d += 0.5)
                        if ((b + d) - b == d) put_float(t, buf, &n, b + d);
                }
            }
        return n;
    }
    const int is_signed = t >= NCL_INT8 && t <= NCL_INT64;
    const unsigned bits = (unsigned)NclDTypeSize(t) * 8;
    const uint64_t maxpos = is_signed ? (UINT64_MAX >> (65 - bits)) : (UINT64_MAX >> (64 - bits));
    const uint64_t maxneg = is_signed ? maxpos + 1 : 0;
    uint64_t mags[64];
    int nm = 0;
    const int pows[] = {1, 7, 8, 15, 16, 24, 31, 32, 53, 63, 64};
    mags[nm++] = 0;
    mags[nm++] = 3;
    mags[nm++] = 1000;
    for (size_t i = 0; i < sizeof pows / sizeof pows[0]; i++) {
        const uint64_t p = pows[i] == 64 ? 0 : (uint64_t)1 << pows[i];
        mags[nm++] = p - 1;
        if (p) mags[nm++] = p;
        if (p) mags[nm++] = p + 1;
    }
    for (int i = 0; i < nm; i++)
        for (int s = 0; s < 2; s++) {
            const uint64_t m = mags[i];
            if (s == 0 && m > maxpos) continue;
            if (s == 1 && (m > maxneg || m == 0)) continue;
            const uint64_t raw = s ? 0u - m : m;
            switch (t) {
            case NCL_INT8: case NCL_UINT8: { uint8_t v = (uint8_t)raw; put(t, buf, &n, &v); break; }
            case NCL_INT16: case NCL_UINT16: { uint16_t v = (uint16_t)raw; put(t, buf, &n, &v); break; }
            case NCL_INT32: case NCL_UINT32: { uint32_t v = (uint32_t)raw; put(t, buf, &n, &v); break; }
            default: put(t, buf, &n, &raw); break;
            }
        }
    return n;
}

/* ---- the expected conversion ----------------------------------------------------- */

static int is_float(NclDType t) { return t == NCL_FLOAT32 || t == NCL_FLOAT64; }
static int is_signed_int(NclDType t) { return t >= NCL_INT8 && t <= NCL_INT64; }

/* The element's bit pattern, zero-extended. */
static uint64_t raw_bits(NclDType t, const void *p) { return ncl_test_load_bits(p, NclDTypeSize(t)); }

static uint64_t bits_f32(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static uint64_t bits_f64(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static double load_float(NclDType t, const void *p)
{
    if (t == NCL_FLOAT32) { float f; memcpy(&f, p, 4); return (double)f; }
    double d;
    memcpy(&d, p, 8);
    return d;
}

/* An integer source as (negative, magnitude); bool as 0/1. */
static void load_int(NclDType t, const void *p, int *neg, uint64_t *mag)
{
    const uint64_t raw = raw_bits(t, p);
    const unsigned bits = (unsigned)NclDTypeSize(t) * 8;
    if (t == NCL_BOOL) { *neg = 0; *mag = raw != 0; return; }
    if (is_signed_int(t) && (raw >> (bits - 1))) {
        *neg = 1;
        *mag = (bits == 64 ? 0 : ((uint64_t)1 << bits)) - raw;  /* 2**bits - raw */
        return;
    }
    *neg = 0;
    *mag = raw;
}

/* Compares |t| (an integral double, finite) with the magnitude m exactly:
   -1, 0, 1. Doubles of 2**64 and more exceed every uint64. */
static int cmp_mag(double t, uint64_t m)
{
    if (t >= 18446744073709551616.0) return 1;
    const uint64_t tm = (uint64_t)t;   /* exact: t is integral and below 2**64 */
    return tm < m ? -1 : tm > m;
}

/* What the cast of the element at p from `from` to `to` must give: the
   output pattern in *want (zero-extended), whether it is NaN (*nan; then
   only NaN-ness is compared) and whether INVALID is raised. */
static void expect(NclDType from, NclDType to, const void *p, uint64_t *want, int *nan, int *invalid)
{
    *nan = 0;
    *invalid = 0;
    const unsigned tbits = (unsigned)NclDTypeSize(to) * 8;
    const uint64_t tmask = tbits == 64 ? UINT64_MAX : (((uint64_t)1 << tbits) - 1);
    if (from == to) { *want = raw_bits(from, p); return; }
    if (to == NCL_BOOL) {
        *want = is_float(from) ? load_float(from, p) != 0.0 : raw_bits(from, p) != 0;
        return;
    }
    if (is_float(to)) {
        double dv;
        if (is_float(from)) {
            dv = load_float(from, p);
            if (isnan(dv)) { *nan = 1; *want = 0; return; }
        } else {
            int neg;
            uint64_t mag;
            load_int(from, p, &neg, &mag);
            if (to == NCL_FLOAT32) {
                /* one rounding, from the exact integer, as C does */
                *want = bits_f32(neg ? -(float)mag : (float)mag);
                return;
            }
            dv = neg ? -(double)mag : (double)mag;
        }
        *want = to == NCL_FLOAT32 ? bits_f32((float)dv) : bits_f64(dv);
        return;
    }
    /* integer target */
    const uint64_t maxpos = is_signed_int(to) ? (UINT64_MAX >> (65 - tbits)) : tmask;
    const uint64_t maxneg = is_signed_int(to) ? maxpos + 1 : 0;
    if (!is_float(from)) {
        int neg;
        uint64_t mag;
        load_int(from, p, &neg, &mag);
        *want = (neg ? 0u - mag : mag) & tmask;
        return;
    }
    const double x = load_float(from, p);
    if (isnan(x)) { *want = 0; *invalid = 1; return; }
    const double t = isinf(x) ? x : trunc(x);
    const int neg = t < 0;
    if (isinf(t) || cmp_mag(fabs(t), neg ? maxneg : maxpos) > 0) {
        *invalid = 1;
        *want = (neg ? 0u - maxneg : maxpos) & tmask;
        return;
    }
    const uint64_t mag = (uint64_t)fabs(t);
    *want = (neg ? 0u - mag : mag) & tmask;
}

/* Checks element k of out against the cast of src element k. */
static void check_element(NclDType from, NclDType to, const void *src, const NclArray *out,
                          int64_t k, const char *what)
{
    uint64_t want;
    int nan, invalid;
    expect(from, to, src, &want, &nan, &invalid);
    const void *g = ncl_test_ptr(out, k);
    if (nan) {
        ck_assert_msg(isnan(load_float(to, g)), "astype %s -> %s %s element %lld: want NaN",
                      NclDTypeName(from), NclDTypeName(to), what, (long long)k);
        return;
    }
    const uint64_t got = raw_bits(to, g);
    ck_assert_msg(got == want,
                  "astype %s -> %s %s element %lld (input bits %#llx): got bits %#llx, want %#llx",
                  NclDTypeName(from), NclDTypeName(to), what, (long long)k,
                  (unsigned long long)raw_bits(from, src), (unsigned long long)got,
                  (unsigned long long)want);
}

static NclParams cast_to(NclDType to)
{
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = to;
    p.casting = NCL_CASTING_UNSAFE;
    return p;
}

/* The FP categories a single element's cast may report besides INVALID:
   float64 -> float32 overflows to inf and underflows like C's conversion. */
static int extra_flags_allowed(NclDType from, NclDType to)
{
    return from == NCL_FLOAT64 && to == NCL_FLOAT32 ? NCL_FPE_OVERFLOW | NCL_FPE_UNDERFLOW : 0;
}

/* ---- pinned ------------------------------------------------------------------------ */

START_TEST(t_pinned)
{
    struct {
        NclDType from, to;
        double x;
        int64_t want_i;
        uint64_t want_u;
        int invalid;
    } cases[] = {
        {NCL_FLOAT64, NCL_INT64, 9223372036854775807.0, INT64_MAX, 0, 1},  /* that is 2**63 */
        {NCL_FLOAT64, NCL_INT64, -9223372036854775808.0, INT64_MIN, 0, 0},
        {NCL_FLOAT64, NCL_INT64, 9223372036854774784.0, INT64_C(9223372036854774784), 0, 0},
        {NCL_FLOAT32, NCL_INT32, 2147483520.0, 2147483520, 0, 0},
        {NCL_FLOAT32, NCL_INT32, 2147483648.0, INT32_MAX, 0, 1},
        {NCL_FLOAT32, NCL_INT32, -2147483648.0, INT32_MIN, 0, 0},
        {NCL_FLOAT64, NCL_INT32, -2147483648.9, INT32_MIN, 0, 0},
        {NCL_FLOAT64, NCL_INT32, -2147483649.0, INT32_MIN, 0, 1},
        {NCL_FLOAT64, NCL_INT8, -128.99, -128, 0, 0},
        {NCL_FLOAT64, NCL_INT8, 127.99, 127, 0, 0},
        {NCL_FLOAT64, NCL_INT8, 128.0, 127, 0, 1},
        {NCL_FLOAT64, NCL_UINT8, -0.5, 0, 0, 0},
        {NCL_FLOAT64, NCL_UINT8, -1.0, 0, 0, 1},
        {NCL_FLOAT64, NCL_UINT8, 255.9, 255, 0, 0},
        {NCL_FLOAT64, NCL_UINT64, 18446744073709551616.0, 0, UINT64_MAX, 1},
        {NCL_FLOAT64, NCL_UINT64, 18446744073709549568.0, 0, UINT64_C(18446744073709549568), 0},
        {NCL_FLOAT32, NCL_UINT64, 9223372036854775808.0, 0, UINT64_C(9223372036854775808), 0},
        {NCL_FLOAT64, NCL_UINT32, -INFINITY, 0, 0, 1},
        {NCL_FLOAT64, NCL_INT16, INFINITY, INT16_MAX, 0, 1},
        {NCL_FLOAT32, NCL_INT64, NAN, 0, 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        NclArray *a = ncl_test_arr(cases[i].from, 1, NCL_DIMS(1), cases[i].x), *out = NULL;
        NclParams p = cast_to(cases[i].to);
        NCL_CHECK_OK(NclConvert(NCL_CONVERT_ASTYPE, a, &out, &p));
        if (cases[i].to == NCL_UINT64)
            ck_assert_msg(ncl_test_get_u(out, 0) == cases[i].want_u, "pinned case %zu: got %llu", i,
                          (unsigned long long)ncl_test_get_u(out, 0));
        else
            ck_assert_msg(ncl_test_get_i(out, 0) == cases[i].want_i, "pinned case %zu: got %lld", i,
                          (long long)ncl_test_get_i(out, 0));
        ck_assert_msg(NclGetFPErrors() == (cases[i].invalid ? NCL_FPE_INVALID : 0),
                      "pinned case %zu: flags %#x", i, NclGetFPErrors());
        NclArrayRelease(out);
        NclArrayRelease(a);
    }
    /* RAISE mode turns the INVALID of a saturated element into an error,
       after the output is written */
    NCL_CHECK_OK(NclSetErrMode(NCL_FPE_INVALID, NCL_ERRMODE_RAISE));
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 1.5, 1e10), *out = ncl_test_new(NCL_INT32, 1, NCL_DIMS(2));
    NclArray *o = out;
    NclParams pc = NCL_PARAMS_INIT;
    pc.casting = NCL_CASTING_UNSAFE;
    NCL_CHECK_STATUS(NclConvert(NCL_CONVERT_COPYTO, a, &o, &pc), NCL_ERR_FLOATING_POINT);
    ck_assert_int_eq(ncl_test_get_i(out, 0), 1);
    ck_assert_int_eq(ncl_test_get_i(out, 1), INT32_MAX);
    NCL_CHECK_OK(NclSetErrMode(NCL_FPE_INVALID, NCL_ERRMODE_IGNORE));
    NclArrayRelease(a);
    NclArrayRelease(out);
}
END_TEST

/* ---- the matrix ------------------------------------------------------------------------ */

START_TEST(t_matrix)
{
    const NclDType from = (NclDType)(_i / NCL_NTYPES), to = (NclDType)(_i % NCL_NTYPES);
    unsigned char raw[MAX_EDGES * 8];
    const int n = edge_values(from, raw);
    const size_t sz = NclDTypeSize(from);
    NclParams p = cast_to(to);

    /* one element at a time: values and that element's flags */
    int any_invalid = 0;
    for (int k = 0; k < n; k++) {
        NclArray *a = ncl_test_new(from, 0, NULL), *out = NULL;
        memcpy(NclArrayData(a), raw + (size_t)k * sz, sz);
        NCL_CHECK_OK(NclConvert(NCL_CONVERT_ASTYPE, a, &out, &p));
        ck_assert_int_eq(NclArrayDType(out), to);
        check_element(from, to, raw + (size_t)k * sz, out, 0, "0-d");
        uint64_t want;
        int nan, invalid;
        expect(from, to, raw + (size_t)k * sz, &want, &nan, &invalid);
        any_invalid |= invalid;
        const int flags = NclGetFPErrors();
        ck_assert_msg((flags & NCL_FPE_INVALID) == (invalid ? NCL_FPE_INVALID : 0) ||
                          (invalid == 0 && is_float(from) && is_float(to) && nan),
                      "astype %s -> %s of input bits %#llx: flags %#x, INVALID expected %d",
                      NclDTypeName(from), NclDTypeName(to),
                      (unsigned long long)raw_bits(from, raw + (size_t)k * sz), flags, invalid);
        ck_assert_msg((flags & ~NCL_FPE_INVALID & ~extra_flags_allowed(from, to)) == 0,
                      "astype %s -> %s of input bits %#llx raised flags %#x", NclDTypeName(from),
                      NclDTypeName(to), (unsigned long long)raw_bits(from, raw + (size_t)k * sz), flags);
        if (from == NCL_FLOAT64 && to == NCL_FLOAT32 && !nan) {
            const double x = load_float(from, raw + (size_t)k * sz);
            ck_assert_int_eq(!!(flags & NCL_FPE_OVERFLOW), !isinf(x) && fabs(x) > FLT_MAX &&
                                                             isinf((float)x));
        }
        NclArrayRelease(out);
        NclArrayRelease(a);
    }

    /* whole arrays, repeated past 1031 elements, in several layouts */
    const int reps = 1031 / n + 1;
    const int64_t nflat = (int64_t)n * reps;
    NclArray *flat = ncl_test_new(from, 1, NCL_DIMS(nflat));
    for (int64_t k = 0; k < nflat; k++) memcpy(ncl_test_ptr(flat, k), raw + (size_t)(k % n) * sz, sz);
    const ncl_test_layout layouts[] = {NCL_TEST_C, NCL_TEST_SLICED, NCL_TEST_REVERSED, NCL_TEST_MISALIGNED};
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
        NclArray *a = ncl_test_layout_of(flat, layouts[l]), *out = NULL;
        NCL_CHECK_OK(NclConvert(NCL_CONVERT_ASTYPE, a, &out, &p));
        for (int64_t k = 0; k < nflat; k++)
            check_element(from, to, raw + (size_t)(k % n) * sz, out, k, ncl_test_layout_name(layouts[l]));
        ck_assert_int_eq(NclGetFPErrors() & NCL_FPE_INVALID, any_invalid ? NCL_FPE_INVALID : 0);
        NclArrayRelease(out);
        /* copyto into an output laid out another way */
        NclArray *zeros = ncl_test_new(to, 1, NCL_DIMS(nflat));
        NclArray *dst = ncl_test_layout_of(zeros, layouts[(l + 1) % 4]), *o = dst;
        NclArrayRelease(zeros);
        NclParams pc = NCL_PARAMS_INIT;
        pc.casting = NCL_CASTING_UNSAFE;
        NCL_CHECK_OK(NclConvert(NCL_CONVERT_COPYTO, a, &o, &pc));
        ck_assert_ptr_eq(o, dst);
        for (int64_t k = 0; k < nflat; k++)
            check_element(from, to, raw + (size_t)(k % n) * sz, dst, k, "copyto");
        NclArrayRelease(dst);
        NclArrayRelease(a);
    }
    NclArrayRelease(flat);

    /* a broadcast (stride 0) input: each value copied to 9 places */
    for (int k = 0; k < n; k++) {
        NclArray *one = ncl_test_new(from, 1, NCL_DIMS(1));
        memcpy(NclArrayData(one), raw + (size_t)k * sz, sz);
        NclArray *b = ncl_test_broadcast(one, 1, NCL_DIMS(9));
        NclArray *dst = ncl_test_new(to, 1, NCL_DIMS(9)), *o = dst;
        NclParams pc = NCL_PARAMS_INIT;
        pc.casting = NCL_CASTING_UNSAFE;
        NCL_CHECK_OK(NclConvert(NCL_CONVERT_COPYTO, b, &o, &pc));
        for (int64_t r = 0; r < 9; r++) check_element(from, to, raw + (size_t)k * sz, dst, r, "broadcast");
        NclArrayRelease(dst);
        NclArrayRelease(b);
        NclArrayRelease(one);
    }
}
END_TEST

/* Lengths around the vector widths, the invalid element last (in the tail). */
START_TEST(t_lengths)
{
    const int64_t lens[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65};
    const NclDType targets[] = {NCL_INT8, NCL_INT32, NCL_INT64, NCL_UINT16, NCL_UINT64};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
        for (size_t ti = 0; ti < sizeof targets / sizeof targets[0]; ti++)
            for (int f = 0; f < 2; f++) {
                const int64_t n = lens[li];
                const NclDType from = f ? NCL_FLOAT64 : NCL_FLOAT32;
                NclArray *a = ncl_test_new(from, 1, NCL_DIMS(n)), *out = NULL;
                for (int64_t i = 0; i < n; i++) ncl_test_set_d(a, i, i == n - 1 ? 1e30 : (double)i * 0.75);
                NclParams p = cast_to(targets[ti]);
                NCL_CHECK_OK(NclConvert(NCL_CONVERT_ASTYPE, a, &out, &p));
                for (int64_t i = 0; i < n; i++)
                    check_element(from, targets[ti], ncl_test_ptr(a, i), out, i, "lengths");
                ck_assert_int_eq(NclGetFPErrors(), n ? NCL_FPE_INVALID : 0);
                NclArrayRelease(out);
                NclArrayRelease(a);
            }
}
END_TEST

/* Contiguous float64 -> int32 converts whole vectors first and redoes exactly those
   holding a lane that came out as INT32_MIN: a true INT32_MIN (from
   (-2**31 - 1, -2**31]) or a NaN or out-of-range input. Each such value alone at
   every position of arrays of every length up to three vector steps (so in the
   paired step, the single one and the scalar tail), also beside a true INT32_MIN
   in the same step; values and flags checked exactly. */
START_TEST(t_f64_i32_lanes)
{
    const double special[] = {-2147483648.0, -2147483648.5, nextafter(-2147483649.0, 0.0),
                              -2147483649.0, 2147483647.0, 2147483647.75, 2147483648.0,
                              -2147483647.0, -0.0, NAN, -NAN, INFINITY, -INFINITY, 1e300,
                              -1e300, 0x1p-1074};
    for (size_t si = 0; si < sizeof special / sizeof special[0]; si++)
        for (int64_t n = 1; n <= 25; n++)
            for (int64_t at = 0; at < n; at++)
                for (int beside = 0; beside < 2; beside++) {
                    NclArray *a = ncl_test_new(NCL_FLOAT64, 1, NCL_DIMS(n)), *out = NULL;
                    for (int64_t i = 0; i < n; i++)
                        ncl_test_set_d(a, i, (i % 2 ? -1.0 : 1.0) * ((double)i * 7e7 + 0.5));
                    if (beside) ncl_test_set_d(a, (at + 3) % n, -2147483648.0);
                    ncl_test_set_d(a, at, special[si]);
                    uint64_t want;
                    int nan, invalid;
                    expect(NCL_FLOAT64, NCL_INT32, ncl_test_ptr(a, at), &want, &nan, &invalid);
                    NclParams p = cast_to(NCL_INT32);
                    NCL_CHECK_OK(NclConvert(NCL_CONVERT_ASTYPE, a, &out, &p));
                    for (int64_t i = 0; i < n; i++)
                        check_element(NCL_FLOAT64, NCL_INT32, ncl_test_ptr(a, i), out, i, "lanes");
                    ck_assert_msg(NclGetFPErrors() == (invalid ? NCL_FPE_INVALID : 0),
                                  "special %zu at %lld of %lld: flags %#x", si, (long long)at,
                                  (long long)n, NclGetFPErrors());
                    NclArrayRelease(out);
                    NclArrayRelease(a);
                }
}
END_TEST

/* Contiguous float64 -> int32 written in place reads its input from the first
   64-byte boundary on and writes aligned 32-byte pieces of output, the results
   moved across lanes in registers (AVX-512 build; the other builds run the
   same checks on their loops). Every pair of input (8-byte steps) and output
   (4-byte steps) offsets within a line, lengths around the line multiples, and
   a special value in the scalar head, the first and the last output lines, the
   middle and the scalar tail; the elements around the output must stay
   untouched. Values and flags exact. */
START_TEST(t_f64_i32_aligned)
{
    const double special[] = {NAN, INFINITY, -INFINITY, 3e9, -3e9, -2147483648.0, -2147483648.9,
                              2147483647.9, -0.0};
    const int64_t lens[] = {64, 71, 79, 80, 81, 96, 127, 143, 200};
    const int64_t nsp = (int64_t)(sizeof special / sizeof special[0]);
    int64_t round = 0;
    for (size_t in_off = 0; in_off < 64; in_off += 8)
        for (size_t out_off = 0; out_off < 64; out_off += 4)
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                const int64_t n = lens[li];
                const int64_t where[] = {-1, 0, 5, 8, 15, 16, n / 2, n - 17, n - 9, n - 1};
                for (size_t wi = 0; wi < sizeof where / sizeof where[0]; wi++, round++) {
                    NclArray *a = ncl_test_new_offset(NCL_FLOAT64, 1, NCL_DIMS(n), in_off);
                    NclArray *box = ncl_test_new_offset(NCL_INT32, 1, NCL_DIMS(n + 32), out_off);
                    int32_t *b = (int32_t *)NclArrayData(box);
                    for (int64_t i = 0; i < n + 32; i++) b[i] = 0x5a5a5a5a;
                    NclArray *out = NULL;
                    const int64_t sh = 16, stop = sh + n;
                    NCL_CHECK_OK(NclArraySlice(box, &sh, &stop, NULL, &out));
                    for (int64_t i = 0; i < n; i++)
                        ncl_test_set_d(a, i, (i % 3 ? -1.0 : 1.0) * ((double)i * 1e7 + 0.75));
                    int invalid = 0;
                    if (where[wi] >= 0) {
                        ncl_test_set_d(a, where[wi], special[round % nsp]);
                        uint64_t want;
                        int nan;
                        expect(NCL_FLOAT64, NCL_INT32, ncl_test_ptr(a, where[wi]), &want, &nan, &invalid);
                    }
                    NclParams p = cast_to(NCL_INT32);
                    NclArray *o = out;
                    NCL_CHECK_OK(NclConvert(NCL_CONVERT_ASTYPE, a, &o, &p));
                    ck_assert_ptr_eq(o, out);
                    for (int64_t i = 0; i < n; i++)
                        check_element(NCL_FLOAT64, NCL_INT32, ncl_test_ptr(a, i), out, i, "aligned");
                    for (int64_t i = 0; i < sh; i++) {
                        ck_assert_int_eq(b[i], 0x5a5a5a5a);
                        ck_assert_int_eq(b[sh + n + i], 0x5a5a5a5a);
                    }
                    ck_assert_msg(NclGetFPErrors() == (invalid ? NCL_FPE_INVALID : 0),
                                  "offsets %zu/%zu, n %lld, special at %lld: flags %#x", in_off,
                                  out_off, (long long)n, (long long)where[wi], NclGetFPErrors());
                    NclArrayRelease(out);
                    NclArrayRelease(box);
                    NclArrayRelease(a);
                }
            }
}
END_TEST

/* ---- registration ------------------------------------------------------------------- */

/* The pool's workers may run the chain: the counts are atomic. */
typedef struct {
    NclKernelNode node;
    atomic_int calls, bad;
    NclDType sig[2];
} spy_node;

static NclStatus spy_kernel(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                            int64_t n, const int64_t *steps)
{
    spy_node *s = NCL_CONTAINER_OF(self, spy_node, node);
    atomic_fetch_add(&s->calls, 1);
    if (ctx->subsystem != NCL_SUBSYSTEM_CONVERT || ctx->op != NCL_CONVERT_ASTYPE ||
        ctx->signature == NULL || memcmp(ctx->signature, s->sig, sizeof s->sig))
        atomic_fetch_add(&s->bad, 1);
    return NclKernelNext(self, ctx, args, n, steps);
}

START_TEST(t_registration)
{
    const NclDType from = (NclDType)(_i / NCL_NTYPES), to = (NclDType)(_i % NCL_NTYPES);
    spy_node s;
    memset(&s, 0, sizeof s);
    s.node.fn = spy_kernel;
    s.node.name = "convert_spy";
    s.sig[0] = from;
    s.sig[1] = to;
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_ASTYPE, s.sig, &s.node.list));
    NclArray *a = ncl_test_arr(from, 1, NCL_DIMS(5), 1), *out = NULL;
    NclParams p = cast_to(to);
    const NclStatus st = NclConvert(NCL_CONVERT_ASTYPE, a, &out, &p);
    NCL_CHECK_OK(NclKernelUnhook(&s.node.list));
    ck_assert_msg(st == NCL_OK, "astype %s -> %s: %s", NclDTypeName(from), NclDTypeName(to), NclLastError());
    ck_assert_msg(atomic_load(&s.calls) > 0, "astype %s -> %s did not run its kernel chain",
                  NclDTypeName(from), NclDTypeName(to));
    ck_assert_int_eq(atomic_load(&s.bad), 0);
    for (int i = 0; i < 5; i++) ck_assert(ncl_test_get_d(out, i) == 1.0);
    NclArrayRelease(out);
    NclArrayRelease(a);
}
END_TEST

static Suite *convert_kernels_suite(void)
{
    Suite *s = suite_create("convert_kernels");
    TCase *tc = tcase_create("convert");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, t_pinned);
    tcase_add_loop_test(tc, t_matrix, 0, NCL_NTYPES * NCL_NTYPES);
    tcase_add_test(tc, t_lengths);
    tcase_add_test(tc, t_f64_i32_lanes);
    tcase_add_test(tc, t_f64_i32_aligned);
    tcase_add_loop_test(tc, t_registration, 0, NCL_NTYPES * NCL_NTYPES);
    suite_add_tcase(s, tc);
    return s;
}

NCL_TEST_MAIN(convert_kernels_suite)
