/*
 * test_accuracy.c: the worst error, in ulps of the result dtype, of every
 * transcendental Unary function, float32 and float64, in both accuracy
 * tiers (SPEC §7: NCL_ACCURACY_HIGH within 1 ulp, NCL_ACCURACY_FAST within
 * 4), on the kernel variant this process runs (ctest runs the suite again
 * with lower variants through NCL_DISABLE_CPU_FEATURES).
 *
 * Inputs: an edge list (zeros of both signs, subnormals, the smallest and
 * largest normals, the overflow and underflow thresholds of exp/exp2/sinh/
 * cosh and their neighbours, the domain boundaries ±1, multiples of pi/2 up
 * to huge arguments, ±inf, NaNs) and 100000 random values with a fixed seed,
 * log-uniform over the function's domain and uniform over its core range;
 * float32 exp, log, sin and cos also a sample of about 2^17 bit patterns
 * spread evenly over all 2^32 (ulp_sweep.c reads the full set).
 * The reference is the long double libm function (the x87 64-bit mantissa,
 * 11 bits more than float64), rounded to nothing: the error is measured
 * against the long double value. Special results are exact: a NaN, an
 * infinity or a zero of the reference must come out as exactly that value,
 * sign included.
 *
 * The worst error of each function, dtype and tier goes to stdout, one
 * line per function, for the documentation (ctest -V shows it).
 */
#include <math.h>
#include "ncl_test.h"
#include "ncl_ulp.h"

typedef long double (*ref_fn)(long double);

typedef struct {
    NclUnaryOp op;
    const char *name;
    ref_fn ref;
    /* log-uniform magnitudes 2^emin .. 2^emax (clamped to the dtype), signs
       allowed, and a uniform core range [lo, hi] */
    int emin, emax, neg;
    double lo, hi;
} fn_info;

static const fn_info fns[] = {
    {NCL_EXP, "exp", expl, -40, 10, 1, -20, 20},
    {NCL_EXP2, "exp2", exp2l, -40, 11, 1, -30, 30},
    {NCL_EXPM1, "expm1", expm1l, -40, 10, 1, -3, 3},
    {NCL_LOG, "log", logl, -1100, 1100, 0, 0.25, 4},
    {NCL_LOG2, "log2", log2l, -1100, 1100, 0, 0.25, 4},
    {NCL_LOG10, "log10", log10l, -1100, 1100, 0, 0.25, 4},
    {NCL_LOG1P, "log1p", log1pl, -1100, 1100, 1, -1, 3},
    {NCL_SIN, "sin", sinl, -40, 1100, 1, -10, 10},
    {NCL_COS, "cos", cosl, -40, 1100, 1, -10, 10},
    {NCL_TAN, "tan", tanl, -40, 1100, 1, -10, 10},
    {NCL_ARCSIN, "arcsin", asinl, -40, 0, 1, -1, 1},
    {NCL_ARCCOS, "arccos", acosl, -40, 0, 1, -1, 1},
    {NCL_ARCTAN, "arctan", atanl, -40, 1100, 1, -4, 4},
    {NCL_SINH, "sinh", sinhl, -40, 10, 1, -20, 20},
    {NCL_COSH, "cosh", coshl, -40, 10, 1, -20, 20},
    {NCL_TANH, "tanh", tanhl, -40, 6, 1, -5, 5},
    {NCL_ARCSINH, "arcsinh", asinhl, -40, 1100, 1, -5, 5},
    {NCL_ARCCOSH, "arccosh", acoshl, 0, 1100, 0, 1, 5},
    {NCL_ARCTANH, "arctanh", atanhl, -40, 0, 1, -1, 1},
    {NCL_CBRT, "cbrt", cbrtl, -1100, 1100, 1, -10, 10},
};
/* float32 exp, log, sin and cos (NCLib's own vector code on AVX2 and
   AVX-512) also take every NDENSE_STEP-th bit pattern, about 2^17 inputs
   spread over every binade of both signs, NaNs and infinities included.
   Under an emulator, whose long double reference is software quad
   precision, both parts take an eighth of the points (ncl_test_emulated);
   the edge values stay whole. */
enum { NFNS = sizeof fns / sizeof fns[0], NRANDOM = 100000, NDENSE_STEP = 32749 };
enum { NRANDOM_EMULATED = NRANDOM / 8, NDENSE_STEP_EMULATED = 262103 /* a prime */ };
static int dense_f32(const fn_info *f)
{
    return f->op == NCL_EXP || f->op == NCL_LOG || f->op == NCL_SIN || f->op == NCL_COS;
}

/* ---- inputs ------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64: fixed seed, same sequence everywhere */
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}
static double rng_unit(uint64_t *s) { return (double)(rng_next(s) >> 11) * 0x1p-53; }

/* The edge values, as doubles (each is also taken as float, rounded). */
static int edge_values(NclDType t, double *v)
{
    int n = 0;
    const double pi_2 = 1.5707963267948966;
    static const double base[] = {
        0.0, 1.0, 2.0, 0.5, 3.0, 10.0, 1e-5, 1e-10, 1e-20, 1e-30, 1e-38, 1e-300, 1e-310, 4.9e-324,
        1e-45, 1e-40, 1e10, 1e20, 1e22, 1e30, 1e38, 3e38, 1e100, 1e300, 1.7976931348623157e308,
        3.4028234663852886e38, 1.1754943508222875e-38, 2.2250738585072014e-308,
        /* exp, sinh, cosh overflow; exp underflow to subnormal and to zero */
        709.782712893384, 709.0, 709.7, 710.0, 710.4758600739439, 710.5, 88.72283935546875,
        88.7228, 89.0, 89.2, 89.41598629223294, 89.5, 708.3964185322641, 745.1332191019411,
        745.2, 87.33654475, 103.972077, 104.0, 1024.0, 1023.99, 1074.0, 1075.0, 128.0, 127.99,
        149.0, 150.0, 126.0, 1022.0, 1022.5,
        /* tanh saturation, arcsinh/arccosh of huge values, log1p near -1 */
        19.06, 22.0, 9.01, 0x1p511, 0x1p512, 0x1p63, 0x1p64, 1e307, 1e308, 0.9999999, 0.999999999999,
        /* trig: near multiples of pi/2 and huge arguments */
        0x1p30, 0x1p52, 0x1p53, 0x1p1023, 1e6, 105414350.0, 1.5707963267948966, 3.141592653589793,
        6.283185307179586, 4.71238898038469, 3.1415927410125732, 1.5707963705062866,
        /* the worst float32 inputs of the vector exp, log, sin, cos over all
           2^32 inputs (ulp_sweep): first as found for the earlier kernels
           (sin's and cos's are still the AVX2 variant's), then the AVX-512
           variant's */
        -0x1.5eb9d6p+6, 0x1.69afdap-1, 0x1.f687dap+1, 0x1.ab93c2p+3,
        -0x1.86ed5ep+5, 0x1.1e217ap+0, 0x1.c5c1eap+17, 0x1.da1b76p+17,
        /* and of the fast tier's float32 sin and cos */
        0x1.9efc18p+12, 0x1.c0dffep-13,
    };
    const int nb = (int)(sizeof base / sizeof base[0]);
    for (int i = 0; i < nb; i++) {
        const double x = base[i];
        v[n++] = x;
        v[n++] = -x;
        /* and the neighbours, in the dtype */
        if (t == NCL_FLOAT32) {
            const float f = (float)x;
            v[n++] = nextafterf(f, INFINITY);
            v[n++] = nextafterf(f, 0);
            v[n++] = -(double)nextafterf(f, INFINITY);
        } else {
            v[n++] = nextafter(x, INFINITY);
            v[n++] = nextafter(x, 0);
            v[n++] = -nextafter(x, INFINITY);
        }
    }
    for (int k = 1; k <= 64; k++) v[n++] = k * pi_2;
    for (int k = 1; k <= 20; k++) v[n++] = ldexp(pi_2, 3 * k) + k;
    v[n++] = INFINITY;
    v[n++] = -INFINITY;
    v[n++] = NAN;
    v[n++] = -NAN;
    return n;
}

enum { MAX_EDGES = 1024 };

/* The inputs of function f in dtype t: edges, random values, then for
   dense_f32 functions the float32 bit patterns. */
static NclArray *make_inputs(const fn_info *f, NclDType t, int64_t *n_edges)
{
    double ev[MAX_EDGES];
    const int ne = edge_values(t, ev);
    const int emulated = ncl_test_emulated();
    const int64_t nrandom = emulated ? NRANDOM_EMULATED : NRANDOM;
    const int64_t step = emulated ? NDENSE_STEP_EMULATED : NDENSE_STEP;
    const int64_t nd = t == NCL_FLOAT32 && dense_f32(f) ? (INT64_C(1) << 32) / step + 1 : 0;
    const int64_t n = ne + nrandom + nd;
    NclArray *a = ncl_test_new(t, 1, NCL_DIMS(n));
    for (int i = 0; i < ne; i++) ncl_test_set_d(a, i, ev[i]);
    const int dt_emin = t == NCL_FLOAT32 ? -149 : -1074, dt_emax = t == NCL_FLOAT32 ? 127 : 1023;
    const int emin = f->emin < dt_emin ? dt_emin : f->emin, emax = f->emax > dt_emax ? dt_emax : f->emax;
    uint64_t s = UINT64_C(0x5eed0acc) + (uint64_t)f->op * 7919u + (t == NCL_FLOAT32);
    for (int64_t i = 0; i < nrandom; i++) {
        double x;
        if (i % 2 == 0) {
            const double e = emin + (emax - emin + 1) * rng_unit(&s);
            x = exp2(e);
            if (f->neg && (rng_next(&s) & 1)) x = -x;
        } else {
            x = f->lo + (f->hi - f->lo) * rng_unit(&s);
        }
        ncl_test_set_d(a, ne + i, x);
    }
    for (int64_t i = 0; i < nd; i++) {
        const uint32_t b = (uint32_t)(i * step);
        float x;
        memcpy(&x, &b, sizeof x);
        memcpy(ncl_test_ptr(a, ne + nrandom + i), &x, sizeof x);
    }
    *n_edges = ne;
    return a;
}

/* ---- the sweep ------------------------------------------------------------------ */

typedef struct {
    double worst;
    double at;
} result;

/* Function f over dtype t in the given tier: the worst error and its input. */
static result sweep(const fn_info *f, NclDType t, NclAccuracy tier, const NclArray *a,
                    const long double *ref)
{
    NclArray *out = NULL;
    NCL_CHECK_OK(NclSetAccuracy(tier));
    NCL_CHECK_OK(NclUnary(f->op, a, &out, NULL));
    NCL_CHECK_OK(NclSetAccuracy(NCL_ACCURACY_HIGH));
    result r = {0, 0};
    const int64_t n = NclArraySize(a);
    for (int64_t i = 0; i < n; i++) {
        const long double y = (long double)ncl_test_get_d(out, i);
        const double e = ulp_error(t, y, ref[i]);
        if (e > r.worst || (isnan(e) && !isnan(r.worst))) {
            r.worst = e;
            r.at = ncl_test_get_d(a, i);
        }
    }
    /* the same values through a strided view (the gathered path) give the
       same bits */
    NclArray *base = ncl_test_new(t, 1, NCL_DIMS(2 * n)), *view = NULL, *out2 = NULL;
    int64_t start = 1;
    NCL_CHECK_OK(NclArraySlice(base, &start, NCL_DIMS(INT64_MIN), NCL_DIMS(2), &view));
    ncl_test_copy_elements(view, a);
    NCL_CHECK_OK(NclSetAccuracy(tier));
    NCL_CHECK_OK(NclUnary(f->op, view, &out2, NULL));
    NCL_CHECK_OK(NclSetAccuracy(NCL_ACCURACY_HIGH));
    const size_t sz = NclDTypeSize(t);
    for (int64_t i = 0; i < n; i++)
        ck_assert_msg(memcmp(ncl_test_ptr(out, i), ncl_test_ptr(out2, i), sz) == 0,
                      "%s(%s) of %.17g: strided result differs from contiguous", f->name,
                      NclDTypeName(t), ncl_test_get_d(a, i));
    NclArrayRelease(out2);
    NclArrayRelease(view);
    NclArrayRelease(base);
    NclArrayRelease(out);
    return r;
}

/* One row of the table per function: the worst error of each dtype and
   tier, printed before the bounds are asserted, so a failing run still
   shows the whole row. */
START_TEST(t_accuracy)
{
    const fn_info *f = &fns[_i];
    result r[2][2]; /* [float32, float64][high, fast] */
    for (int k = 0; k < 2; k++) {
        const NclDType t = k ? NCL_FLOAT64 : NCL_FLOAT32;
        int64_t ne;
        NclArray *a = make_inputs(f, t, &ne);
        const int64_t n = NclArraySize(a);
        long double *ref = malloc((size_t)n * sizeof *ref);
        ck_assert_ptr_nonnull(ref);
        for (int64_t i = 0; i < n; i++) ref[i] = f->ref((long double)ncl_test_get_d(a, i));
        for (int tier = 0; tier < 2; tier++)
            r[k][tier] = sweep(f, t, tier ? NCL_ACCURACY_FAST : NCL_ACCURACY_HIGH, a, ref);
        free(ref);
        NclArrayRelease(a);
    }
    printf("%-8s  float32 high %6.3f  fast %6.3f   float64 high %6.3f  fast %6.3f  (ulp)\n",
           f->name, r[0][0].worst, r[0][1].worst, r[1][0].worst, r[1][1].worst);
    /* NCL_ACCURACY_WORST=1 adds the input of each worst error */
    if (getenv("NCL_ACCURACY_WORST"))
        printf("          at %.9g %.9g   %.17g %.17g\n", r[0][0].at, r[0][1].at, r[1][0].at, r[1][1].at);
    fflush(stdout);
    for (int k = 0; k < 2; k++)
        for (int tier = 0; tier < 2; tier++) {
            /* the reference's own error is below 2^-10 ulp of float64 */
            const double bound = tier ? 4.0 : 1.0;
            ck_assert_msg(r[k][tier].worst <= bound + 1.0 / 1024, "%s(%s) %s tier: %.3f ulp at %.17g",
                          f->name, k ? "float64" : "float32", tier ? "fast" : "high", r[k][tier].worst,
                          r[k][tier].at);
        }
}
END_TEST

static Suite *accuracy_suite(void)
{
    Suite *s = suite_create("accuracy");
    TCase *tc = ncl_test_tcase(s, "worst ulp");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, t_accuracy, 0, NFNS);
    return s;
}

NCL_TEST_MAIN(accuracy_suite)
