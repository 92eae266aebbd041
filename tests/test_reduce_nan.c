/*
 * test_reduce_nan.c: NclReduce's STD and VAR and the nan-aware reductions
 * (NANSUM ... NANCUMPROD) with exact expected values: ddof (negative too),
 * axes, keepdims, where=, NaN placements and all-NaN slices, the result
 * dtypes, integer inputs (the plain op), the refusals (count - ddof <= 0,
 * an all-NaN nanargmin/nanargmax, initial= or a non-float dtype= where the
 * op takes none) with an untouched output, the INVALID flag of an all-NaN
 * nanmin/nanmax/nanmean, and layout and thread-count independence of the
 * float results.
 *
 * Values are small integers with power-of-two counts where a mean is
 * involved, so every sum, mean and square is exact and the expected values
 * need no tolerance.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "ncl_test.h"

static NclArray *red(NclReduceOp op, const NclArray *a, const NclParams *p)
{
    NclArray *r = NULL;
    NclStatus s = NclReduce(op, a, &r, p);
    ck_assert_msg(s == NCL_OK, "NclReduce(%d) returned %s: %s", (int)op, NclStatusString(s),
                  NclLastError());
    ck_assert_ptr_nonnull(r);
    return r;
}

/* op over one axis (or all with ax = NULL), ddof d, checked against want[]. */
static void check_vals(NclReduceOp op, const NclArray *a, const int *ax, int64_t d,
                       const double *want, int64_t n)
{
    NclParams p = NCL_PARAMS_INIT;
    p.axes = ax;
    p.naxes = ax ? 1 : 0;
    p.ddof = d;
    NclArray *r = red(op, a, &p);
    ck_assert_int_eq(NclArraySize(r), n);
    for (int64_t i = 0; i < n; i++) {
        const double g = ncl_test_get_d(r, i);
        ck_assert_msg(isnan(want[i]) ? isnan(g) : g == want[i],
                      "op %d element %lld: got %.17g, want %.17g", (int)op, (long long)i, g,
                      want[i]);
    }
    NclArrayRelease(r);
}

#define CHECK_REFUSED(call, status, o)                                      \
    do {                                                                    \
        NclArray *o_in_ = (o);                                              \
        const uint64_t h_ = o_in_ ? ncl_test_hash(o_in_) : 0;               \
        NCL_CHECK_STATUS(call, status);                                     \
        NCL_CHECK_MESSAGE_HAS("NclReduce(");                                \
        if (o_in_) ck_assert_uint_eq(ncl_test_hash(o_in_), h_);             \
    } while (0)

START_TEST(t_var_std_values)
{
    static const NclDType dts[] = {NCL_FLOAT32, NCL_FLOAT64};
    for (int k = 0; k < 2; k++) {
        NclArray *a = ncl_test_arr(dts[k], 1, NCL_DIMS(4), 1, 2, 3, 4);
        check_vals(NCL_VAR, a, NULL, 0, (const double[]){1.25}, 1);
        check_vals(NCL_VAR, a, NULL, 1, (const double[]){(double)(dts[k] == NCL_FLOAT32
                                                                     ? 5.0f / 3.0f : 5.0 / 3.0)},
                   1);
        check_vals(NCL_VAR, a, NULL, -1, (const double[]){1.0}, 1);
        check_vals(NCL_STD, a, NULL, 0,
                   (const double[]){dts[k] == NCL_FLOAT32 ? (double)sqrtf(1.25f) : sqrt(1.25)}, 1);
        NclArray *r = red(NCL_STD, a, NULL);
        ck_assert_int_eq(NclArrayDType(r), dts[k]);
        NclArrayRelease(r);
        NclArrayRelease(a);
    }
    /* integers and bool: float64 */
    NclArray *i = ncl_test_arr_int(NCL_INT32, 2, NCL_DIMS(2, 4), 1, 2, 3, 4, -8, 0, 0, 0);
    NclArray *r = red(NCL_VAR, i, NULL);
    ck_assert_int_eq(NclArrayDType(r), NCL_FLOAT64);
    NclArrayRelease(r);
    const int ax1 = 1, ax0 = 0;
    check_vals(NCL_VAR, i, &ax1, 0, (const double[]){1.25, 12.0}, 2);
    check_vals(NCL_NANVAR, i, &ax0, 0, (const double[]){20.25, 1.0, 2.25, 4.0}, 4);
    NclArray *b = ncl_test_arr_int(NCL_BOOL, 1, NCL_DIMS(4), 1, 0, 0, 0);
    check_vals(NCL_VAR, b, NULL, 0, (const double[]){0.1875}, 1);
    NclArrayRelease(b);
    /* keepdims and several axes */
    NclParams p = NCL_PARAMS_INIT;
    const int both[] = {1, 0};
    p.axes = both;
    p.naxes = 2;
    p.keepdims = 1;
    r = red(NCL_VAR, i, &p);
    ck_assert_int_eq(NclArrayNDim(r), 2);
    ck_assert_int_eq(NclArrayShape(r)[0], 1);
    ck_assert_int_eq(NclArrayShape(r)[1], 1);
    /* mean 0.25; squares 0.5625 3.0625 7.5625 14.0625 68.0625 0.0625 x3 */
    ck_assert_double_eq(ncl_test_get_d(r, 0), 93.5 / 8);
    NclArrayRelease(r);
    /* a dtype: float32 of int32 */
    p.keepdims = 0;
    p.dtype = NCL_FLOAT32;
    r = red(NCL_STD, i, &p);
    ck_assert_int_eq(NclArrayDType(r), NCL_FLOAT32);
    ck_assert_float_eq((float)ncl_test_get_d(r, 0), sqrtf(93.5f / 8));
    NclArrayRelease(r);
    NclArrayRelease(i);
}
END_TEST

START_TEST(t_var_where_and_ddof)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 4), 1, 2, 3, 100, 5, 5, 9, 9);
    NclArray *w = ncl_test_arr_int(NCL_BOOL, 2, NCL_DIMS(2, 4), 1, 1, 0, 0, 1, 1, 1, 1);
    NclParams p = NCL_PARAMS_INIT;
    const int ax1 = 1;
    p.axes = &ax1;
    p.naxes = 1;
    p.where = w;
    NclArray *r = red(NCL_VAR, a, &p);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 0.25);
    ck_assert_double_eq(ncl_test_get_d(r, 1), 4.0);
    NclArrayRelease(r);
    /* ddof 2 leaves row 0 a divisor of 0: refused, output untouched */
    p.ddof = 2;
    NclArray *o = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), -7, -7);
    CHECK_REFUSED(NclReduce(NCL_VAR, a, &o, &p), NCL_ERR_INVALID_ARGUMENT, o);
    NCL_CHECK_MESSAGE_HAS("ddof");
    ck_assert_double_eq(ncl_test_get_d(o, 1), -7);
    r = NULL;
    CHECK_REFUSED(NclReduce(NCL_STD, a, &r, &p), NCL_ERR_INVALID_ARGUMENT, NULL);
    ck_assert_ptr_null(r);
    /* ddof 1 is fine */
    p.ddof = 1;
    NCL_CHECK_OK(NclReduce(NCL_VAR, a, &o, &p));
    ck_assert_double_eq(ncl_test_get_d(o, 0), 0.5);
    ck_assert_double_eq(ncl_test_get_d(o, 1), 16.0 / 3);
    /* ddof >= n, and the empty reduction */
    p.where = NULL;
    p.ddof = 4;
    CHECK_REFUSED(NclReduce(NCL_VAR, a, &o, &p), NCL_ERR_INVALID_ARGUMENT, o);
    NclArray *e = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(2, 0));
    p.ddof = 0;
    r = NULL;
    CHECK_REFUSED(NclReduce(NCL_VAR, e, &r, &p), NCL_ERR_INVALID_ARGUMENT, NULL);
    /* a negative ddof gives the empty reduction a divisor */
    p.ddof = -2;
    r = red(NCL_VAR, e, &p);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 0.0);
    NclArrayRelease(r);
    /* no output element: nothing to refuse */
    const int ax0 = 0;
    p.axes = &ax0;
    p.ddof = 5;
    r = red(NCL_VAR, e, &p);
    ck_assert_int_eq(NclArraySize(r), 0);
    NclArrayRelease(r);
    NclArrayRelease(e);
    NclArrayRelease(o);
    NclArrayRelease(w);
    NclArrayRelease(a);
}
END_TEST

START_TEST(t_nan_sums)
{
    static const NclDType dts[] = {NCL_FLOAT32, NCL_FLOAT64};
    for (int k = 0; k < 2; k++) {
        NclArray *a = ncl_test_arr(dts[k], 2, NCL_DIMS(3, 4), 1, NAN, 2, 3, NAN, NAN, NAN, NAN,
                                   -0.0, NAN, 4, 4);
        const int ax1 = 1;
        check_vals(NCL_NANSUM, a, &ax1, 0, (const double[]){6, 0, 8}, 3);
        check_vals(NCL_NANPROD, a, &ax1, 0, (const double[]){6, 1, -0.0}, 3);
        check_vals(NCL_NANSUM, a, NULL, 0, (const double[]){14}, 1);
        NclArray *r = red(NCL_NANSUM, a, &(NclParams){.size = sizeof(NclParams),
                                                      .dtype = NCL_DTYPE_DEFAULT,
                                                      .casting = NCL_CASTING_SAME_KIND,
                                                      .axes = &ax1, .naxes = 1});
        ck_assert_int_eq(signbit(ncl_test_get_d(r, 1)), 0); /* NumPy's +0 for NaNs */
        NclArrayRelease(r);
        /* nanmean: row 1 all NaN is NaN, with INVALID */
        r = red(NCL_NANMEAN, a, &(NclParams){.size = sizeof(NclParams),
                                             .dtype = NCL_DTYPE_DEFAULT,
                                             .casting = NCL_CASTING_SAME_KIND,
                                             .axes = &ax1, .naxes = 1});
        ck_assert(NclGetFPErrors() & NCL_FPE_INVALID);
        ck_assert_double_eq(ncl_test_get_d(r, 0), 2.0);
        ck_assert(isnan(ncl_test_get_d(r, 1)));
        ck_assert_double_eq(ncl_test_get_d(r, 2),
                            dts[k] == NCL_FLOAT32 ? (double)(float)(8.0 / 3) : 8.0 / 3);
        NclArrayRelease(r);
        const int ax0 = 0;
        check_vals(NCL_NANMEAN, a, &ax0, 0, (const double[]){0.5, NAN, 3, 3.5}, 4);
        /* accumulations */
        check_vals(NCL_NANCUMSUM, a, &ax1, 0,
                   (const double[]){1, 1, 3, 6, 0, 0, 0, 0, -0.0, 0, 4, 8}, 12);
        check_vals(NCL_NANCUMPROD, a, &ax1, 0,
                   (const double[]){1, 1, 2, 6, 1, 1, 1, 1, -0.0, -0.0, -0.0, -0.0}, 12);
        check_vals(NCL_NANCUMSUM, a, NULL, 0,
                   (const double[]){1, 1, 3, 6, 6, 6, 6, 6, 6, 6, 10, 14}, 12);
        r = red(NCL_NANCUMSUM, a, &(NclParams){.size = sizeof(NclParams),
                                               .dtype = NCL_DTYPE_DEFAULT,
                                               .casting = NCL_CASTING_SAME_KIND,
                                               .axes = &ax1, .naxes = 1});
        ck_assert_int_eq(signbit(ncl_test_get_d(r, 9)), 0); /* -0.0 + (NaN -> +0) */
        NclArrayRelease(r);
        NclArrayRelease(a);
    }
    /* integers: the plain op, NumPy's dtypes */
    NclArray *i = ncl_test_arr_int(NCL_INT8, 1, NCL_DIMS(3), 100, 100, -1);
    NclArray *r = red(NCL_NANSUM, i, NULL);
    ck_assert_int_eq(NclArrayDType(r), NCL_INT64);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 199);
    NclArrayRelease(r);
    r = red(NCL_NANMIN, i, NULL);
    ck_assert_int_eq(NclArrayDType(r), NCL_INT8);
    ck_assert_double_eq(ncl_test_get_d(r, 0), -1);
    NclArrayRelease(r);
    r = red(NCL_NANMEAN, i, NULL);
    ck_assert_int_eq(NclArrayDType(r), NCL_FLOAT64);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 199.0 / 3);
    NclArrayRelease(r);
    r = red(NCL_NANCUMPROD, i, NULL);
    ck_assert_int_eq(NclArrayDType(r), NCL_INT64);
    ck_assert_double_eq(ncl_test_get_d(r, 2), -10000);
    NclArrayRelease(r);
    NclArrayRelease(i);
}
END_TEST

START_TEST(t_nan_extremes)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(3, 4), NAN, 3, 1, 1, NAN, NAN, NAN, NAN,
                               NAN, INFINITY, NAN, -INFINITY);
    const int ax1 = 1;
    NclParams p = NCL_PARAMS_INIT;
    p.axes = &ax1;
    p.naxes = 1;
    NclArray *r = red(NCL_NANMIN, a, &p);
    ck_assert(NclGetFPErrors() & NCL_FPE_INVALID);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 1);
    ck_assert(isnan(ncl_test_get_d(r, 1)));
    ck_assert_double_eq(ncl_test_get_d(r, 2), -INFINITY);
    NclArrayRelease(r);
    r = red(NCL_NANMAX, a, &p);
    ck_assert(NclGetFPErrors() & NCL_FPE_INVALID);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 3);
    ck_assert(isnan(ncl_test_get_d(r, 1)));
    ck_assert_double_eq(ncl_test_get_d(r, 2), INFINITY);
    NclArrayRelease(r);
    /* initial= stands in for the all-NaN slice: no NaN, no flag */
    const double init = 0.5;
    p.initial = &init;
    r = red(NCL_NANMIN, a, &p);
    ck_assert_int_eq(NclGetFPErrors() & NCL_FPE_INVALID, 0);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 0.5);
    ck_assert_double_eq(ncl_test_get_d(r, 1), 0.5);
    NclArrayRelease(r);
    p.initial = NULL;
    /* rows with numbers only: no flag */
    const int ax0 = 0;
    NclArray *b = ncl_test_arr(NCL_FLOAT32, 1, NCL_DIMS(4), NAN, 2, -0.0, NAN);
    r = red(NCL_NANMAX, b, NULL);
    ck_assert_int_eq(NclGetFPErrors() & NCL_FPE_INVALID, 0);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 2);
    NclArrayRelease(r);
    /* a where mask that selects nothing for an output: refused, as MIN */
    NclArray *w = ncl_test_arr_int(NCL_BOOL, 1, NCL_DIMS(4), 0, 0, 0, 0);
    p.axes = &ax0;
    p.where = w;
    NclArray *o = ncl_test_arr(NCL_FLOAT32, 0, NULL, 9);
    CHECK_REFUSED(NclReduce(NCL_NANMIN, b, &o, &p), NCL_ERR_INVALID_ARGUMENT, o);
    NclArrayRelease(o);
    NclArrayRelease(w);
    p.where = NULL;

    /* nanargmin/nanargmax: first extreme of the numbers; NaN counts as
       +inf (-inf), so ties with an infinity go to the NaN if it is first */
    p.axes = &ax1;
    NclArray *c = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 4), NAN, 3, 1, 1, NAN, INFINITY, 5,
                               INFINITY);
    r = red(NCL_NANARGMIN, c, &p);
    ck_assert_int_eq(NclArrayDType(r), NCL_INT64);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 2);
    ck_assert_double_eq(ncl_test_get_d(r, 1), 2);
    NclArrayRelease(r);
    r = red(NCL_NANARGMAX, c, &p);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 1);
    ck_assert_double_eq(ncl_test_get_d(r, 1), 1);
    NclArrayRelease(r);
    NclArray *d = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), NAN, INFINITY, NAN);
    r = red(NCL_NANARGMIN, d, NULL);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 0);
    NclArrayRelease(r);
    r = red(NCL_NANARGMAX, d, NULL);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 1);
    NclArrayRelease(r);
    /* an all-NaN slice: refused, nothing written */
    NclArray *oi = ncl_test_arr_int(NCL_INT64, 1, NCL_DIMS(3), 7, 7, 7);
    CHECK_REFUSED(NclReduce(NCL_NANARGMAX, a, &oi, &p), NCL_ERR_INVALID_ARGUMENT, oi);
    NCL_CHECK_MESSAGE_HAS("all-NaN");
    r = NULL;
    CHECK_REFUSED(NclReduce(NCL_NANARGMIN, a, &r, &p), NCL_ERR_INVALID_ARGUMENT, NULL);
    ck_assert_ptr_null(r);
    /* integers: argmin as it is */
    NclArray *i = ncl_test_arr_int(NCL_UINT16, 1, NCL_DIMS(4), 5, 1, 9, 1);
    r = red(NCL_NANARGMIN, i, NULL);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 1);
    NclArrayRelease(r);
    NclArrayRelease(i);
    NclArrayRelease(oi);
    NclArrayRelease(d);
    NclArrayRelease(c);
    NclArrayRelease(b);
    NclArrayRelease(a);
}
END_TEST

START_TEST(t_nan_variance)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(3, 4), 1, NAN, 3, NAN, 4, 4, 8, 8, 2,
                               NAN, NAN, NAN);
    const int ax1 = 1;
    check_vals(NCL_NANVAR, a, &ax1, 0, (const double[]){1, 4, 0}, 3);
    check_vals(NCL_NANSTD, a, &ax1, 0, (const double[]){1, 2, 0}, 3);
    check_vals(NCL_NANVAR, a, &ax1, -1, (const double[]){2.0 / 3, 16.0 / 5, 0}, 3);
    /* the plain VAR sees the NaNs */
    check_vals(NCL_VAR, a, &ax1, 0, (const double[]){NAN, 4, NAN}, 3);
    /* ddof 1: row 2 has one number, a divisor of 0: refused */
    NclParams p = NCL_PARAMS_INIT;
    p.axes = &ax1;
    p.naxes = 1;
    p.ddof = 1;
    NclArray *o = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), 7, 7, 7);
    CHECK_REFUSED(NclReduce(NCL_NANVAR, a, &o, &p), NCL_ERR_INVALID_ARGUMENT, o);
    NCL_CHECK_MESSAGE_HAS("non-NaN");
    /* all NaN: refused even with ddof 0 */
    NclArray *n = ncl_test_arr(NCL_FLOAT32, 1, NCL_DIMS(2), NAN, NAN);
    NclArray *r = NULL;
    CHECK_REFUSED(NclReduce(NCL_NANSTD, n, &r, NULL), NCL_ERR_INVALID_ARGUMENT, NULL);
    ck_assert_ptr_null(r);
    /* with where= */
    NclArray *w = ncl_test_arr_int(NCL_BOOL, 1, NCL_DIMS(4), 1, 0, 1, 0);
    p.ddof = 0;
    p.where = w;
    r = red(NCL_NANVAR, a, &p);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 1);
    ck_assert_double_eq(ncl_test_get_d(r, 1), 4);
    ck_assert_double_eq(ncl_test_get_d(r, 2), 0);
    NclArrayRelease(r);
    NclArrayRelease(w);
    NclArrayRelease(n);
    NclArrayRelease(o);
    NclArrayRelease(a);
}
END_TEST

START_TEST(t_refusals)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(4), 1, 2, 3, 4);
    NclParams p = NCL_PARAMS_INIT;
    const double init = 0;
    p.initial = &init;
    static const NclReduceOp no_initial[] = {NCL_STD, NCL_VAR, NCL_NANMEAN, NCL_NANARGMIN,
                                             NCL_NANARGMAX, NCL_NANSTD, NCL_NANVAR,
                                             NCL_NANCUMSUM, NCL_NANCUMPROD};
    for (size_t k = 0; k < sizeof no_initial / sizeof no_initial[0]; k++) {
        NclArray *r = NULL;
        CHECK_REFUSED(NclReduce(no_initial[k], a, &r, &p), NCL_ERR_INVALID_ARGUMENT, NULL);
        NCL_CHECK_MESSAGE_HAS("initial");
        ck_assert_ptr_null(r);
    }
    p.initial = NULL;
    /* integer dtype= for a variance */
    p.dtype = NCL_INT64;
    NclArray *r = NULL;
    CHECK_REFUSED(NclReduce(NCL_VAR, a, &r, &p), NCL_ERR_DTYPE, NULL);
    NCL_CHECK_MESSAGE_HAS("var");
    p.dtype = NCL_DTYPE_DEFAULT;
    /* where= for the accumulations */
    NclArray *w = ncl_test_arr_int(NCL_BOOL, 1, NCL_DIMS(4), 1, 1, 1, 1);
    p.where = w;
    CHECK_REFUSED(NclReduce(NCL_NANCUMSUM, a, &r, &p), NCL_ERR_INVALID_ARGUMENT, NULL);
    p.where = NULL;
    /* one axis for the arg and cumulative ones */
    const int two[] = {0, 0};
    p.axes = two;
    p.naxes = 2;
    CHECK_REFUSED(NclReduce(NCL_NANARGMIN, a, &r, &p), NCL_ERR_AXIS, NULL);
    /* a provided output of the wrong shape */
    NclArray *o = ncl_test_new(NCL_FLOAT64, 1, NCL_DIMS(2));
    CHECK_REFUSED(NclReduce(NCL_STD, a, &o, NULL), NCL_ERR_SHAPE, o);
    ck_assert_ptr_null(r);
    NclArrayRelease(o);
    NclArrayRelease(w);
    NclArrayRelease(a);
}
END_TEST

/* The float results depend on the values only: C, Fortran and reversed
   layouts (direct and gathered paths) give the same bits. */
START_TEST(t_layouts_bitwise)
{
    const int64_t m = 37, n = 1100;
    NclArray *a = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(37, 1100));
    uint64_t seed = 5;
    ncl_test_fill_random(a, &seed, 1000);
    for (int64_t i = 0; i < m * n; i += 7) ncl_test_set_d(a, i, i % 3 ? 0.1 * (double)i : NAN);
    static const NclReduceOp ops[] = {NCL_STD, NCL_VAR, NCL_NANSUM, NCL_NANMEAN, NCL_NANMIN,
                                      NCL_NANARGMAX, NCL_NANSTD, NCL_NANVAR, NCL_NANCUMSUM};
    NclArray *f = ncl_test_layout_of(a, NCL_TEST_F);
    NclArray *rv = ncl_test_layout_of(a, NCL_TEST_REVERSED);
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        for (int ax = -1; ax < 2; ax++) { /* -1: all axes (C direct, F gathered) */
            NclParams p = NCL_PARAMS_INIT;
            p.axes = ax < 0 ? NULL : &ax;
            p.naxes = ax < 0 ? 0 : 1;
            p.ddof = 1;
            NclArray *r0 = red(ops[k], a, &p), *r1 = red(ops[k], f, &p),
                     *r2 = red(ops[k], rv, &p);
            ck_assert_msg(ncl_test_hash(r0) == ncl_test_hash(r1) &&
                          ncl_test_hash(r0) == ncl_test_hash(r2),
                          "op %d axis %d: layouts differ", (int)ops[k], ax);
            NclArrayRelease(r0);
            NclArrayRelease(r1);
            NclArrayRelease(r2);
        }
    NclArrayRelease(rv);
    NclArrayRelease(f);
    NclArrayRelease(a);
}
END_TEST

/* The same bits from one thread and from several (small arrays split
   too): over outputs, and one long sequence split into groups. */
START_TEST(t_threads_bitwise)
{
    NclArray *a = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(3, 5000));
    uint64_t seed = 9;
    ncl_test_fill_random(a, &seed, 100);
    for (int64_t i = 0; i < 15000; i += 13) ncl_test_set_d(a, i, NAN);
    ncl_test_set_d(a, 7, INFINITY);
    static const NclReduceOp ops[] = {NCL_STD, NCL_NANSUM, NCL_NANMEAN, NCL_NANMIN,
                                      NCL_NANMAX, NCL_NANARGMIN, NCL_NANARGMAX, NCL_NANVAR,
                                      NCL_NANCUMPROD};
    const int64_t before = NclGetThreadingThreshold();
    const int nt = NclGetNumThreads();
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        for (int ax = -1; ax < 2; ax++) {
            NclParams p = NCL_PARAMS_INIT;
            p.axes = ax < 0 ? NULL : &ax;
            p.naxes = ax < 0 ? 0 : 1;
            NCL_CHECK_OK(NclSetNumThreads(1));
            NclArray *r1 = red(ops[k], a, &p);
            NCL_CHECK_OK(NclSetNumThreads(2));
            NCL_CHECK_OK(NclSetThreadingThreshold(1));
            NclArray *r2 = red(ops[k], a, &p);
            NCL_CHECK_OK(NclSetThreadingThreshold(before));
            ck_assert_msg(ncl_test_hash(r1) == ncl_test_hash(r2), "op %d axis %d: threads differ",
                          (int)ops[k], ax);
            NclArrayRelease(r1);
            NclArrayRelease(r2);
        }
    NCL_CHECK_OK(NclSetNumThreads(nt));
    NclArrayRelease(a);
}
END_TEST

static Suite *reduce_nan_suite(void)
{
    Suite *s = suite_create("reduce_nan");
    TCase *tc = ncl_test_tcase(s, "values");
    tcase_add_test(tc, t_var_std_values);
    tcase_add_test(tc, t_var_where_and_ddof);
    tcase_add_test(tc, t_nan_sums);
    tcase_add_test(tc, t_nan_extremes);
    tcase_add_test(tc, t_nan_variance);
    tc = ncl_test_tcase(s, "contract");
    tcase_add_test(tc, t_refusals);
    tcase_add_test(tc, t_layouts_bitwise);
    tcase_add_test(tc, t_threads_bitwise);
    return s;
}

NCL_TEST_MAIN(reduce_nan_suite)
