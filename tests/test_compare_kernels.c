/*
 * test_compare_kernels.c: the Compare loops, reached through NclCompare and
 * the level-2 kernel chains, for all 121 (a, b) dtype pairs and all six ops.
 *
 * Comparisons are exact on the mathematical values, so the expectation is
 * computed here by an independent exact method: every value (integer, float,
 * infinity) is written as sign * m * 2**e with m normalised to 64 bits, and
 * two such numbers compare by exponent, then significand. NumPy is no
 * oracle here: it compares int64 with uint64, and integers with floats,
 * through float64 and gets the edges wrong.
 *
 * Groups. Pinned cases: the edges the contract names (2**63 - 1 as int64 and
 * uint64, 2**53 + 1 against 2**53, NaN). The matrix: for every pair and op,
 * each dtype's edge values (limits, powers of two and their neighbours around
 * 2**7 ... 2**64, +-0, NaN, infinities, denormals, halves) against the
 * other's, as a broadcast (a as a column, b as a row: a stride-0 operand in
 * every row) and as flat cross products in several layouts (contiguous,
 * step 2, step -1, misaligned) with lengths past the vector width; no call
 * may report an FP flag. Registration: every (op, a, b) has a hookable
 * level-2 chain that NclCompare runs.
 */
#include <float.h>
#include "ncl_test.h"

/* ---- exact values ----------------------------------------------------------- */

/* sign * m * 2**e, m normalised so that bit 63 is set (m = 0 for zero). */
typedef struct {
    int nan, inf;   /* inf: -1 or +1 */
    int neg;
    uint64_t m;
    int e;
} exact;

static exact exact_norm(int neg, uint64_t m, int e)
{
    exact x = {0, 0, neg, m, e};
    if (m == 0) { x.neg = 0; x.e = 0; return x; }
    while (!(x.m >> 63)) { x.m <<= 1; x.e--; }
    return x;
}

static exact exact_of_double(double d)
{
    exact x = {0, 0, 0, 0, 0};
    if (isnan(d)) { x.nan = 1; return x; }
    if (isinf(d)) { x.inf = d > 0 ? 1 : -1; return x; }
    int e;
    double f = frexp(fabs(d), &e);          /* d = f * 2**e, f in [0.5, 1) */
    uint64_t m = (uint64_t)ldexp(f, 53);   /* exact: 53 significant bits */
    return exact_norm(signbit(d) != 0, m, e - 53);
}

/* The element of dtype t at p, exactly. */
static exact exact_of(NclDType t, const char *p)
{
    switch (t) {
    case NCL_BOOL: { uint8_t v; memcpy(&v, p, 1); return exact_norm(0, v != 0, 0); }
    case NCL_INT8: { int8_t v; memcpy(&v, p, 1); return exact_norm(v < 0, v < 0 ? 0u - (uint64_t)v : (uint64_t)v, 0); }
    case NCL_INT16: { int16_t v; memcpy(&v, p, 2); return exact_norm(v < 0, v < 0 ? 0u - (uint64_t)v : (uint64_t)v, 0); }
    case NCL_INT32: { int32_t v; memcpy(&v, p, 4); return exact_norm(v < 0, v < 0 ? 0u - (uint64_t)v : (uint64_t)v, 0); }
    case NCL_INT64: { int64_t v; memcpy(&v, p, 8); return exact_norm(v < 0, v < 0 ? 0u - (uint64_t)v : (uint64_t)v, 0); }
    case NCL_UINT8: { uint8_t v; memcpy(&v, p, 1); return exact_norm(0, v, 0); }
    case NCL_UINT16: { uint16_t v; memcpy(&v, p, 2); return exact_norm(0, v, 0); }
    case NCL_UINT32: { uint32_t v; memcpy(&v, p, 4); return exact_norm(0, v, 0); }
    case NCL_UINT64: { uint64_t v; memcpy(&v, p, 8); return exact_norm(0, v, 0); }
    case NCL_FLOAT32: { float v; memcpy(&v, p, 4); return exact_of_double((double)v); }
    default: { double v; memcpy(&v, p, 8); return exact_of_double(v); }
    }
}

/* -1, 0, 1 for x < y, x == y, x > y; 2 when unordered (NaN). */
static int exact_cmp(exact x, exact y)
{
    if (x.nan || y.nan) return 2;
    if (x.inf || y.inf) return x.inf == y.inf ? 0 : (x.inf < y.inf ? -1 : 1);
    if (x.m == 0 && y.m == 0) return 0;
    if (x.m == 0) return y.neg ? 1 : -1;
    if (y.m == 0) return x.neg ? -1 : 1;
    if (x.neg != y.neg) return x.neg ? -1 : 1;
    int mag = x.e != y.e ? (x.e < y.e ? -1 : 1) : x.m != y.m ? (x.m < y.m ? -1 : 1) : 0;
    return x.neg ? -mag : mag;
}

static int op_holds(NclCompareOp op, int c)
{
    switch (op) {
    case NCL_CMP_EQ: return c == 0;
    case NCL_CMP_NE: return c != 0;
    case NCL_CMP_LT: return c == -1;
    case NCL_CMP_LE: return c == -1 || c == 0;
    case NCL_CMP_GT: return c == 1;
    default: return c == 1 || c == 0;
    }
}

static const char *const op_names[] = {"equal", "not_equal", "less", "less_equal", "greater",
                                       "greater_equal"};

/* ---- edge values ------------------------------------------------------------------ */

#define MAX_EDGES 160

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

/* Each dtype's edges as raw elements; returns the count. */
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
        const double specials[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
                                   0.99, -0.99, NAN, -NAN, INFINITY, -INFINITY};
        for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
            put_float(t, buf, &n, specials[i]);
        const double tiny = f32 ? (double)FLT_TRUE_MIN : DBL_TRUE_MIN;
        const double huge = f32 ? (double)FLT_MAX : DBL_MAX;
        const double tiny_norm = f32 ? (double)FLT_MIN : DBL_MIN;
        const double lims[] = {tiny, -tiny, huge, -huge, tiny_norm, -tiny_norm};
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
                    const float h1 = fb + 0.5f, h2 = fb - 0.5f;
                    if ((double)h1 - b == 0.5) put_float(t, buf, &n, (double)h1);
                    if ((double)h2 - b == -0.5) put_float(t, buf, &n, (double)h2);
                    const float p1 = fb + 1.0f;
                    if ((double)p1 - b == 1.0) put_float(t, buf, &n, (double)p1);
                } else {
                    put_float(t, buf, &n, nextafter(b, -INFINITY));
                    put_float(t, buf, &n, b);
                    put_float(t, buf, &n, nextafter(b, INFINITY));
                    if ((b + 0.5) - b == 0.5) put_float(t, buf, &n, b + 0.5);
                    if ((b - 0.5) - b == -0.5) put_float(t, buf, &n, b - 0.5);
                    if ((b + 1.0) - b == 1.0) put_float(t, buf, &n, b + 1.0);
                    if ((b - 1.0) - b == -1.0) put_float(t, buf, &n, b - 1.0);
                }
            }
        return n;
    }
    /* integers: magnitudes around the powers of two, both signs, that fit */
    const int is_signed = t >= NCL_INT8 && t <= NCL_INT64;
    const unsigned bits = (unsigned)NclDTypeSize(t) * 8;
    const uint64_t maxpos = is_signed ? (UINT64_MAX >> (65 - bits)) : (UINT64_MAX >> (64 - bits));
    const uint64_t maxneg = is_signed ? maxpos + 1 : 0;   /* magnitude of the minimum */
    uint64_t mags[64];
    int nm = 0;
    const int pows[] = {1, 7, 8, 15, 16, 24, 31, 32, 53, 63, 64};
    mags[nm++] = 0;
    mags[nm++] = 3;
    for (size_t i = 0; i < sizeof pows / sizeof pows[0]; i++) {
        const uint64_t p = pows[i] == 64 ? 0 : (uint64_t)1 << pows[i];
        mags[nm++] = p - 1;   /* 2**64 - 1 when p wraps to 0 */
        if (p) mags[nm++] = p;
        if (p) mags[nm++] = p + 1;
    }
    for (int i = 0; i < nm; i++)
        for (int s = 0; s < 2; s++) {
            const uint64_t m = mags[i];
            if (s == 0 && m > maxpos) continue;
            if (s == 1 && (m > maxneg || m == 0)) continue;
            const uint64_t raw = s ? 0u - m : m;   /* two's complement pattern */
            switch (t) {
            case NCL_INT8: case NCL_UINT8: { uint8_t v = (uint8_t)raw; put(t, buf, &n, &v); break; }
            case NCL_INT16: case NCL_UINT16: { uint16_t v = (uint16_t)raw; put(t, buf, &n, &v); break; }
            case NCL_INT32: case NCL_UINT32: { uint32_t v = (uint32_t)raw; put(t, buf, &n, &v); break; }
            default: put(t, buf, &n, &raw); break;
            }
        }
    /* the limits themselves */
    const uint64_t hi = maxpos, lo = 0u - maxneg;
    switch (t) {
    case NCL_INT8: case NCL_UINT8: { uint8_t a = (uint8_t)hi, b = (uint8_t)lo; put(t, buf, &n, &a); put(t, buf, &n, &b); break; }
    case NCL_INT16: case NCL_UINT16: { uint16_t a = (uint16_t)hi, b = (uint16_t)lo; put(t, buf, &n, &a); put(t, buf, &n, &b); break; }
    case NCL_INT32: case NCL_UINT32: { uint32_t a = (uint32_t)hi, b = (uint32_t)lo; put(t, buf, &n, &a); put(t, buf, &n, &b); break; }
    default: put(t, buf, &n, &hi); put(t, buf, &n, &lo); break;
    }
    return n;
}

/* A 1-D array of the raw elements. */
static NclArray *array_of(NclDType t, const unsigned char *raw, int n)
{
    NclArray *a = ncl_test_new(t, 1, NCL_DIMS(n));
    memcpy(NclArrayData(a), raw, (size_t)n * NclDTypeSize(t));
    return a;
}

/* Checks out[i, j] (or out[k] for the flat cross product, k = i * nb + j,
   with rows repeated `reps` times) against the exact relation. */
static void check_result(NclCompareOp op, NclDType ta, NclDType tb, const unsigned char *ra,
                         int na, const unsigned char *rb, int nb, const NclArray *out,
                         const char *what)
{
    ck_assert_int_eq(NclArrayDType(out), NCL_BOOL);
    const int64_t n = NclArraySize(out);
    const size_t sa = NclDTypeSize(ta), sb = NclDTypeSize(tb);
    for (int64_t k = 0; k < n; k++) {
        const int64_t cell = k % ((int64_t)na * nb);
        const int i = (int)(cell / nb), j = (int)(cell % nb);
        const exact x = exact_of(ta, (const char *)ra + (size_t)i * sa);
        const exact y = exact_of(tb, (const char *)rb + (size_t)j * sb);
        const int want = op_holds(op, exact_cmp(x, y));
        const int got = (int)ncl_test_get_u(out, k);
        if (got != want) {
            ck_abort_msg("%s(%s, %s) %s: element %lld (a[%d] = %.17g, b[%d] = %.17g): got %d, want %d",
                         op_names[op], NclDTypeName(ta), NclDTypeName(tb), what, (long long)k, i,
                         ncl_test_load_d(ta, (const char *)ra + (size_t)i * sa), j,
                         ncl_test_load_d(tb, (const char *)rb + (size_t)j * sb), got, want);
        }
    }
}

/* ---- pinned cases -------------------------------------------------------------- */

START_TEST(t_pinned)
{
    struct {
        NclCompareOp op;
        NclArray *a, *b;
        int want;
    } cases[] = {
        {NCL_CMP_EQ, ncl_test_arr_int(NCL_INT64, 0, NULL, INT64_MAX), ncl_test_arr_uint(NCL_UINT64, 0, NULL, (uint64_t)INT64_MAX), 1},
        {NCL_CMP_LT, ncl_test_arr_int(NCL_INT64, 0, NULL, -1), ncl_test_arr_uint(NCL_UINT64, 0, NULL, 0), 1},
        {NCL_CMP_LT, ncl_test_arr_int(NCL_INT64, 0, NULL, INT64_MAX), ncl_test_arr_uint(NCL_UINT64, 0, NULL, (uint64_t)1 << 63), 1},
        {NCL_CMP_NE, ncl_test_arr_int(NCL_INT64, 0, NULL, -1), ncl_test_arr_uint(NCL_UINT64, 0, NULL, UINT64_MAX), 1},
        {NCL_CMP_GT, ncl_test_arr_int(NCL_INT64, 0, NULL, ((int64_t)1 << 53) + 1), ncl_test_arr(NCL_FLOAT64, 0, NULL, 9007199254740992.0), 1},
        {NCL_CMP_EQ, ncl_test_arr_int(NCL_INT64, 0, NULL, ((int64_t)1 << 53) + 1), ncl_test_arr(NCL_FLOAT64, 0, NULL, 9007199254740992.0), 0},
        {NCL_CMP_GT, ncl_test_arr_int(NCL_INT32, 0, NULL, (1 << 24) + 1), ncl_test_arr(NCL_FLOAT32, 0, NULL, 16777216.0), 1},
        {NCL_CMP_LT, ncl_test_arr_int(NCL_INT64, 0, NULL, INT64_MAX), ncl_test_arr(NCL_FLOAT64, 0, NULL, 9223372036854775808.0), 1},
        {NCL_CMP_EQ, ncl_test_arr_int(NCL_INT64, 0, NULL, INT64_MIN), ncl_test_arr(NCL_FLOAT64, 0, NULL, -9223372036854775808.0), 1},
        {NCL_CMP_LT, ncl_test_arr_uint(NCL_UINT64, 0, NULL, UINT64_MAX), ncl_test_arr(NCL_FLOAT32, 0, NULL, 18446744073709551616.0), 1},
        {NCL_CMP_GT, ncl_test_arr_uint(NCL_UINT64, 0, NULL, 0), ncl_test_arr(NCL_FLOAT64, 0, NULL, -0.5), 1},
        {NCL_CMP_EQ, ncl_test_arr_uint(NCL_UINT64, 0, NULL, 0), ncl_test_arr(NCL_FLOAT64, 0, NULL, -0.0), 1},
        {NCL_CMP_NE, ncl_test_arr(NCL_FLOAT64, 0, NULL, NAN), ncl_test_arr(NCL_FLOAT64, 0, NULL, NAN), 1},
        {NCL_CMP_LE, ncl_test_arr(NCL_FLOAT32, 0, NULL, NAN), ncl_test_arr_int(NCL_INT64, 0, NULL, 0), 0},
        {NCL_CMP_GE, ncl_test_arr(NCL_BOOL, 0, NULL, 1), ncl_test_arr(NCL_FLOAT64, 0, NULL, 1.0), 1},
        {NCL_CMP_LT, ncl_test_arr(NCL_BOOL, 0, NULL, 0), ncl_test_arr_int(NCL_INT8, 0, NULL, -1), 0},
        {NCL_CMP_GT, ncl_test_arr_uint(NCL_UINT32, 0, NULL, UINT32_MAX), ncl_test_arr_int(NCL_INT32, 0, NULL, -1), 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        NclArray *out = NULL;
        NCL_CHECK_OK(NclCompare(cases[i].op, cases[i].a, cases[i].b, &out, NULL));
        ck_assert_int_eq(NclArrayDType(out), NCL_BOOL);
        ck_assert_msg((int)ncl_test_get_u(out, 0) == cases[i].want, "pinned case %zu (%s %s %s): got %d",
                      i, NclDTypeName(NclArrayDType(cases[i].a)), op_names[cases[i].op],
                      NclDTypeName(NclArrayDType(cases[i].b)), (int)ncl_test_get_u(out, 0));
        ck_assert_msg(NclGetFPErrors() == 0, "pinned case %zu raised FP flags %#x", i, NclGetFPErrors());
        NclArrayRelease(out);
        NclArrayRelease(cases[i].a);
        NclArrayRelease(cases[i].b);
    }
}
END_TEST

/* ---- the matrix ----------------------------------------------------------------- */

/* One (a, b) pair, all six ops: the broadcast form and the flat forms. */
START_TEST(t_matrix)
{
    const NclDType ta = (NclDType)(_i / NCL_NTYPES), tb = (NclDType)(_i % NCL_NTYPES);
    unsigned char ra[MAX_EDGES * 8], rb[MAX_EDGES * 8];
    const int na = edge_values(ta, ra), nb = edge_values(tb, rb);
    const size_t sa = NclDTypeSize(ta), sb = NclDTypeSize(tb);

    /* the cross product, flat, repeated past 1031 elements so that the
       contiguous loops run their vector bodies and tails */
    const int reps = (int)(1031 / ((int64_t)na * nb)) + 1;
    const int64_t nflat = (int64_t)na * nb * reps;
    NclArray *fa = ncl_test_new(ta, 1, NCL_DIMS(nflat)), *fb = ncl_test_new(tb, 1, NCL_DIMS(nflat));
    for (int64_t k = 0; k < nflat; k++) {
        const int64_t cell = k % ((int64_t)na * nb);
        memcpy(ncl_test_ptr(fa, k), ra + (size_t)(cell / nb) * sa, sa);
        memcpy(ncl_test_ptr(fb, k), rb + (size_t)(cell % nb) * sb, sb);
    }
    NclArray *col = NULL, *row = NULL;
    NclArray *va = array_of(ta, ra, na), *vb = array_of(tb, rb, nb);
    NCL_CHECK_OK(NclArrayReshape(va, 2, NCL_DIMS(na, 1), &col));
    NCL_CHECK_OK(NclArrayReshape(vb, 2, NCL_DIMS(1, nb), &row));

    for (int op = 0; op < NCL_COMPARE_NOPS; op++) {
        NclArray *out = NULL;
        NCL_CHECK_OK(NclCompare((NclCompareOp)op, col, row, &out, NULL));
        ck_assert_int_eq(NclArrayNDim(out), 2);
        check_result((NclCompareOp)op, ta, tb, ra, na, rb, nb, out, "broadcast");
        ck_assert_msg(NclGetFPErrors() == 0, "%s(%s, %s) raised FP flags %#x", op_names[op],
                      NclDTypeName(ta), NclDTypeName(tb), NclGetFPErrors());
        NclArrayRelease(out);

        /* b as the column: exercises the other operand's stride 0 */
        NclArray *rowa = NULL, *colb = NULL;
        NCL_CHECK_OK(NclArrayReshape(va, 2, NCL_DIMS(1, na), &rowa));
        NCL_CHECK_OK(NclArrayReshape(vb, 2, NCL_DIMS(nb, 1), &colb));
        out = NULL;
        NCL_CHECK_OK(NclCompare((NclCompareOp)op, rowa, colb, &out, NULL));
        for (int j = 0; j < nb; j++)
            for (int i = 0; i < na; i++) {
                const int want = op_holds((NclCompareOp)op,
                                          exact_cmp(exact_of(ta, (const char *)ra + (size_t)i * sa),
                                                    exact_of(tb, (const char *)rb + (size_t)j * sb)));
                ck_assert_msg((int)ncl_test_get_u(out, (int64_t)j * na + i) == want,
                              "%s(%s, %s) row-broadcast a[%d] b[%d] wrong", op_names[op],
                              NclDTypeName(ta), NclDTypeName(tb), i, j);
            }
        ck_assert_int_eq(NclGetFPErrors(), 0);
        NclArrayRelease(out);
        NclArrayRelease(rowa);
        NclArrayRelease(colb);

        /* both contiguous and aligned: the vector loops' whole bodies */
        out = NULL;
        NCL_CHECK_OK(NclCompare((NclCompareOp)op, fa, fb, &out, NULL));
        check_result((NclCompareOp)op, ta, tb, ra, na, rb, nb, out, "contiguous");
        ck_assert_int_eq(NclGetFPErrors(), 0);
        NclArrayRelease(out);

        const ncl_test_layout layouts[] = {NCL_TEST_C, NCL_TEST_SLICED, NCL_TEST_REVERSED,
                                           NCL_TEST_MISALIGNED};
        for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
            NclArray *la = ncl_test_layout_of(fa, layouts[l]);
            NclArray *lb = ncl_test_layout_of(fb, layouts[(l + 1) % 4]);
            out = NULL;
            NCL_CHECK_OK(NclCompare((NclCompareOp)op, la, lb, &out, NULL));
            check_result((NclCompareOp)op, ta, tb, ra, na, rb, nb, out, ncl_test_layout_name(layouts[l]));
            ck_assert_int_eq(NclGetFPErrors(), 0);
            NclArrayRelease(out);
            /* into a provided output laid out the same way */
            NclArray *zeros = ncl_test_new(NCL_BOOL, 1, NCL_DIMS(nflat));
            NclArray *po = ncl_test_layout_of(zeros, layouts[l]);
            NclArrayRelease(zeros);
            NclArray *got = po;
            NCL_CHECK_OK(NclCompare((NclCompareOp)op, la, lb, &got, NULL));
            ck_assert_ptr_eq(got, po);
            check_result((NclCompareOp)op, ta, tb, ra, na, rb, nb, po, "provided output");
            NclArrayRelease(po);
            NclArrayRelease(la);
            NclArrayRelease(lb);
        }
    }
    NclArrayRelease(col);
    NclArrayRelease(row);
    NclArrayRelease(va);
    NclArrayRelease(vb);
    NclArrayRelease(fa);
    NclArrayRelease(fb);
}
END_TEST

/* Lengths around the vector widths, with a NaN or the int64/uint64 edge in
   the last element (the tail), must match the one-element results. */
START_TEST(t_lengths)
{
    const int64_t lens[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 127, 128, 129, 200};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        const int64_t n = lens[li];
        NclArray *a = ncl_test_new(NCL_INT64, 1, NCL_DIMS(n)), *b = ncl_test_new(NCL_UINT64, 1, NCL_DIMS(n));
        NclArray *f = ncl_test_new(NCL_FLOAT64, 1, NCL_DIMS(n));
        for (int64_t i = 0; i < n; i++) {
            ncl_test_set_i(a, i, i == n - 1 ? -1 : INT64_MAX - i);
            ncl_test_set_u(b, i, i == n - 1 ? UINT64_MAX : (uint64_t)INT64_MAX);
            ncl_test_set_d(f, i, i == n - 1 ? NAN : 0.5 * (double)i);
        }
        for (int op = 0; op < NCL_COMPARE_NOPS; op++) {
            NclArray *o1 = NULL, *o2 = NULL;
            NCL_CHECK_OK(NclCompare((NclCompareOp)op, a, b, &o1, NULL));
            NCL_CHECK_OK(NclCompare((NclCompareOp)op, f, a, &o2, NULL));
            ck_assert_int_eq(NclArraySize(o1), n);
            for (int64_t i = 0; i < n; i++) {
                const int64_t x = i == n - 1 ? -1 : INT64_MAX - i;
                const int c1 = i == n - 1 ? -1 : (i == 0 ? 0 : -1);
                ck_assert_msg((int)ncl_test_get_u(o1, i) == op_holds((NclCompareOp)op, c1),
                              "len %lld %s(int64, uint64) element %lld", (long long)n, op_names[op], (long long)i);
                const double y = 0.5 * (double)i;
                const int c2 = i == n - 1 ? 2 : ((y < (double)x) ? -1 : 1); /* |x| >> y here */
                ck_assert_msg((int)ncl_test_get_u(o2, i) == op_holds((NclCompareOp)op, c2),
                              "len %lld %s(float64, int64) element %lld", (long long)n, op_names[op], (long long)i);
            }
            ck_assert_int_eq(NclGetFPErrors(), 0);
            NclArrayRelease(o1);
            NclArrayRelease(o2);
        }
        NclArrayRelease(a);
        NclArrayRelease(b);
        NclArrayRelease(f);
    }
}
END_TEST

/* ---- registration --------------------------------------------------------------- */

/* The pool's workers may run the chain: the counts are atomic. */
typedef struct {
    NclKernelNode node;
    atomic_int calls, bad;
    int op;
    NclDType sig[3];
} spy_node;

static NclStatus spy_kernel(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                            int64_t n, const int64_t *steps)
{
    spy_node *s = NCL_CONTAINER_OF(self, spy_node, node);
    atomic_fetch_add(&s->calls, 1);
    if (ctx->subsystem != NCL_SUBSYSTEM_COMPARE || ctx->op != s->op || ctx->nin != 2 ||
        ctx->nout != 1 || ctx->signature == NULL || memcmp(ctx->signature, s->sig, sizeof s->sig))
        atomic_fetch_add(&s->bad, 1);
    return NclKernelNext(self, ctx, args, n, steps);
}

/* Every (op, a, b) has its own chain, and NclCompare runs it on the
   operands' own dtypes (no cast first). */
START_TEST(t_registration)
{
    const NclDType ta = (NclDType)(_i / NCL_NTYPES), tb = (NclDType)(_i % NCL_NTYPES);
    NclArray *a = ncl_test_arr(ta, 1, NCL_DIMS(5), 1), *b = ncl_test_arr(tb, 1, NCL_DIMS(5), 0);
    for (int op = 0; op < NCL_COMPARE_NOPS; op++) {
        spy_node s;
        memset(&s, 0, sizeof s);
        s.node.fn = spy_kernel;
        s.node.name = "compare_spy";
        s.op = op;
        s.sig[0] = ta;
        s.sig[1] = tb;
        s.sig[2] = NCL_BOOL;
        NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_COMPARE, op, s.sig, &s.node.list));
        NclArray *out = NULL;
        const NclStatus st = NclCompare((NclCompareOp)op, a, b, &out, NULL);
        NCL_CHECK_OK(NclKernelUnhook(&s.node.list));
        ck_assert_msg(st == NCL_OK, "%s(%s, %s): %s", op_names[op], NclDTypeName(ta),
                      NclDTypeName(tb), NclLastError());
        ck_assert_msg(atomic_load(&s.calls) > 0, "%s(%s, %s) did not run its kernel chain",
                      op_names[op], NclDTypeName(ta), NclDTypeName(tb));
        ck_assert_msg(atomic_load(&s.bad) == 0, "%s(%s, %s): the kernel context names another loop",
                      op_names[op], NclDTypeName(ta), NclDTypeName(tb));
        for (int i = 0; i < 5; i++)
            ck_assert_int_eq((int)ncl_test_get_u(out, i),
                             op_holds((NclCompareOp)op, 1));
        NclArrayRelease(out);
    }
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

static Suite *compare_kernels_suite(void)
{
    Suite *s = suite_create("compare_kernels");
    TCase *tc = tcase_create("compare");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, t_pinned);
    tcase_add_loop_test(tc, t_matrix, 0, NCL_NTYPES * NCL_NTYPES);
    tcase_add_test(tc, t_lengths);
    tcase_add_loop_test(tc, t_registration, 0, NCL_NTYPES * NCL_NTYPES);
    suite_add_tcase(s, tc);
    return s;
}

NCL_TEST_MAIN(compare_kernels_suite)
