/*
 * test_create.c: the Create subsystem: every op, its edge cases (0-d and
 * empty arrays, negative steps, empty ranges, endpoint handling, diagonals
 * out of range), parameter validation, and that the convenience
 * constructors go through the Create hook chain. Expected values are
 * NumPy 1.24's.
 */
#include "ncl_test.h"

static const NclDType all_dtypes[] = {NCL_BOOL, NCL_INT8, NCL_INT16, NCL_INT32, NCL_INT64,
                                      NCL_UINT8, NCL_UINT16, NCL_UINT32, NCL_UINT64,
                                      NCL_FLOAT32, NCL_FLOAT64};
#define NDT ((int)(sizeof all_dtypes / sizeof all_dtypes[0]))

static void check_1d(const NclArray *a, NclDType dt, const double *vals, int64_t n)
{
    ck_assert_int_eq(NclArrayDType(a), dt);
    ck_assert_int_eq(NclArrayNDim(a), 1);
    ck_assert_int_eq(NclArrayShape(a)[0], n);
    for (int64_t i = 0; i < n; i++) {
        double got = ncl_test_get_d(a, i);
        ck_assert_msg(got == vals[i] || (got != got && vals[i] != vals[i]),
                      "%s element %lld: got %.17g, expected %.17g", NclDTypeName(dt),
                      (long long)i, got, vals[i]);
    }
}
#define DV(...) ((const double[]){__VA_ARGS__}), NCL_TEST_COUNT_(double, __VA_ARGS__)

static NclStatus create(NclCreateOp op, NclCreateParams *p, NclArray **out)
{
    return NclCreate(op, p, out);
}

/* ---- empty, zeros, ones, full --------------------------------------------------------- */

START_TEST(empty_shapes_and_orders)
{
    NclArray *a = NULL;
    NCL_CHECK_OK(NclEmpty(NCL_DTYPE_DEFAULT, 2, NCL_DIMS(3, 4), &a));
    ck_assert_int_eq(NclArrayDType(a), NCL_FLOAT64);
    ck_assert_int_eq(NclArrayStrides(a)[0], 32);
    ck_assert_int_eq(NclArrayStrides(a)[1], 8);
    ck_assert_uint_eq(NclArrayFlags(a), NCL_ARRAY_C_CONTIGUOUS | NCL_ARRAY_OWNDATA |
                                         NCL_ARRAY_ALIGNED | NCL_ARRAY_WRITEABLE);
    ck_assert_str_eq(NclArrayHandlerName(a), "ncl_default");
    NclArrayRelease(a);

    NclCreateParams p = NCL_CREATE_PARAMS_INIT;
    p.dtype = NCL_INT16;
    p.ndim = 3;
    p.shape = NCL_DIMS(2, 3, 4);
    p.order = NCL_ORDER_F;
    NCL_CHECK_OK(create(NCL_CREATE_EMPTY, &p, &a));
    ck_assert_int_eq(NclArrayStrides(a)[0], 2);
    ck_assert_int_eq(NclArrayStrides(a)[1], 4);
    ck_assert_int_eq(NclArrayStrides(a)[2], 12);
    ck_assert_uint_eq(NclArrayFlags(a) & 3, NCL_ARRAY_F_CONTIGUOUS);
    NclArrayRelease(a);

    /* 0-d: one element */
    NCL_CHECK_OK(NclEmpty(NCL_UINT8, 0, NULL, &a));
    ck_assert_int_eq(NclArrayNDim(a), 0);
    ck_assert_int_eq(NclArraySize(a), 1);
    ck_assert_ptr_nonnull(NclArrayData(a));
    NclArrayRelease(a);

    /* empty: strides as NumPy (a zero extent counts as one) */
    NCL_CHECK_OK(NclEmpty(NCL_INT32, 3, NCL_DIMS(2, 0, 3), &a));
    ck_assert_int_eq(NclArraySize(a), 0);
    ck_assert_int_eq(NclArrayStrides(a)[0], 12);
    ck_assert_int_eq(NclArrayStrides(a)[1], 12);
    ck_assert_int_eq(NclArrayStrides(a)[2], 4);
    ck_assert_uint_eq(NclArrayFlags(a) & 3, 3);
    ck_assert_ptr_nonnull(NclArrayData(a));
    NclArrayRelease(a);
}
END_TEST

START_TEST(zeros_ones_full_every_dtype)
{
    for (int k = 0; k < NDT; k++) {
        const NclDType dt = all_dtypes[k];
        NclArray *z = NULL, *o = NULL, *f = NULL;
        NCL_CHECK_OK(NclZeros(dt, 2, NCL_DIMS(5, 7), &z));
        NCL_CHECK_OK(NclOnes(dt, 2, NCL_DIMS(5, 7), &o));
        unsigned char val[8];
        memset(val, 0, sizeof val);
        switch (dt) {
        case NCL_FLOAT32: { float v = -2.5f; memcpy(val, &v, 4); break; }
        case NCL_FLOAT64: { double v = -2.5; memcpy(val, &v, 8); break; }
        case NCL_BOOL: val[0] = 1; break;
        default: memset(val, 0x81, 8); break; /* high bit set in every byte */
        }
        NCL_CHECK_OK(NclFull(dt, 2, NCL_DIMS(5, 7), val, &f));
        for (int64_t i = 0; i < 35; i++) {
            ck_assert(ncl_test_get_d(z, i) == 0.0);
            ck_assert(ncl_test_get_d(o, i) == 1.0);
            ck_assert_msg(memcmp(ncl_test_ptr(f, i), val, NclDTypeSize(dt)) == 0,
                          "%s full element %lld", NclDTypeName(dt), (long long)i);
        }
        NclArrayRelease(z);
        NclArrayRelease(o);
        NclArrayRelease(f);
    }
}
END_TEST

START_TEST(zeros_large_and_recycled)
{
    /* a recycled small block and a large fresh one must both read as zero */
    for (int round = 0; round < 3; round++) {
        NclArray *a = NULL, *z = NULL;
        NCL_CHECK_OK(NclFull(NCL_UINT8, 1, NCL_DIMS(1000), "\xff", &a));
        NclArrayRelease(a);
        NCL_CHECK_OK(NclZeros(NCL_UINT8, 1, NCL_DIMS(1000), &z));
        for (int64_t i = 0; i < 1000; i++) ck_assert_int_eq(ncl_test_get_i(z, i), 0);
        NclArrayRelease(z);
    }
    NclArray *big = NULL;
    NCL_CHECK_OK(NclZeros(NCL_INT64, 2, NCL_DIMS(1024, 1024), &big));
    for (int64_t i = 0; i < 1024 * 1024; i += 511) ck_assert_int_eq(ncl_test_get_i(big, i), 0);
    NclArrayRelease(big);
}
END_TEST

START_TEST(full_bool_normalised_and_0d)
{
    NclArray *a = NULL;
    NCL_CHECK_OK(NclFull(NCL_BOOL, 1, NCL_DIMS(3), "\x07", &a));
    for (int64_t i = 0; i < 3; i++) ck_assert_int_eq(*(uint8_t *)ncl_test_ptr(a, i), 1);
    NclArrayRelease(a);
    int64_t v = INT64_MIN;
    NCL_CHECK_OK(NclFull(NCL_INT64, 0, NULL, &v, &a));
    ck_assert_int_eq(ncl_test_get_i(a, 0), INT64_MIN);
    NclArrayRelease(a);
    NCL_CHECK_OK(NclOnes(NCL_FLOAT32, 1, NCL_DIMS(0), &a));
    ck_assert_int_eq(NclArraySize(a), 0);
    NclArrayRelease(a);
}
END_TEST

/* ---- arange --------------------------------------------------------------------------------- */

START_TEST(arange_float)
{
    NclArray *a = NULL;
    /* np.arange(10.0, -3.0, -0.37): 36 elements, start + i*((start+step)-start) */
    NCL_CHECK_OK(NclArange(NCL_FLOAT64, 10.0, -3.0, -0.37, &a));
    ck_assert_int_eq(NclArraySize(a), 36);
    const double d = (10.0 + -0.37) - 10.0;
    for (int64_t i = 2; i < 36; i++) ck_assert(ncl_test_get_d(a, i) == 10.0 + (double)i * d);
    ck_assert(ncl_test_get_d(a, 1) == 10.0 + -0.37);
    ck_assert(ncl_test_get_d(a, 33) == -2.209999999999974);
    ck_assert(ncl_test_get_d(a, 35) == -2.9499999999999726);
    NclArrayRelease(a);

    /* np.arange(-5.5, 3.2, 0.77, dtype=np.float32): computed in float32 */
    NCL_CHECK_OK(NclArange(NCL_FLOAT32, -5.5, 3.2, 0.77, &a));
    check_1d(a, NCL_FLOAT32,
             DV(-5.5, -4.730000019073486, -3.9600000381469727, -3.190000057220459,
                -2.4200000762939453, -1.6500000953674316, -0.880000114440918,
                -0.1100001335144043, 0.6599998474121094, 1.429999828338623, 2.1999998092651367,
                2.969999313354492));
    NclArrayRelease(a);

    /* default dtype is float64 */
    NCL_CHECK_OK(NclArange(NCL_DTYPE_DEFAULT, 0, 3, 1, &a));
    check_1d(a, NCL_FLOAT64, DV(0, 1, 2));
    NclArrayRelease(a);
}
END_TEST

START_TEST(arange_int_and_bool)
{
    NclArray *a = NULL;
    NCL_CHECK_OK(NclArange(NCL_INT64, 0.5, 5, 1.5, &a)); /* NumPy: [0, 2, 4] */
    check_1d(a, NCL_INT64, DV(0, 2, 4));
    NclArrayRelease(a);
    NCL_CHECK_OK(NclArange(NCL_INT32, 2.5, -4.0, -1.5, &a));
    check_1d(a, NCL_INT32, DV(2, 1, 0, -1, -2));
    NclArrayRelease(a);
    NCL_CHECK_OK(NclArange(NCL_INT8, 1, 9, 2, &a));
    check_1d(a, NCL_INT8, DV(1, 3, 5, 7));
    NclArrayRelease(a);
    /* the fill wraps in the dtype, as NumPy's */
    NCL_CHECK_OK(NclArange(NCL_UINT8, 250, 262, 3, &a));
    check_1d(a, NCL_UINT8, DV(250, 253, 0, 3));
    NclArrayRelease(a);
    /* out-of-range first elements saturate (NaN-free, defined) */
    NCL_CHECK_OK(NclArange(NCL_UINT8, -3, 3, 1, &a));
    check_1d(a, NCL_UINT8, DV(0, 0, 0, 0, 0, 0));
    NclArrayRelease(a);
    NCL_CHECK_OK(NclArange(NCL_INT64, 1e19, 1e19 + 4096, 2048, &a));
    check_1d(a, NCL_INT64, DV(9223372036854775807.0, 9223372036854775807.0));
    NclArrayRelease(a);
    NCL_CHECK_OK(NclArange(NCL_UINT64, 0, 4, 1, &a));
    check_1d(a, NCL_UINT64, DV(0, 1, 2, 3));
    NclArrayRelease(a);

    NCL_CHECK_OK(NclArange(NCL_BOOL, 0, 2, 1, &a));
    check_1d(a, NCL_BOOL, DV(0, 1));
    NclArrayRelease(a);
    NCL_CHECK_OK(NclArange(NCL_BOOL, 0, 1, 1, &a));
    check_1d(a, NCL_BOOL, DV(0));
    NclArrayRelease(a);
    a = NULL;
    NCL_CHECK_STATUS(NclArange(NCL_BOOL, 0, 3, 1, &a), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("bool");
    ck_assert_ptr_null(a);
}
END_TEST

START_TEST(arange_edges)
{
    NclArray *a = NULL;
    /* empty ranges */
    NCL_CHECK_OK(NclArange(NCL_FLOAT64, 5, 0, 1, &a));
    ck_assert_int_eq(NclArraySize(a), 0);
    ck_assert_int_eq(NclArrayNDim(a), 1);
    NclArrayRelease(a);
    NCL_CHECK_OK(NclArange(NCL_INT32, 0, 5, -1, &a));
    ck_assert_int_eq(NclArraySize(a), 0);
    NclArrayRelease(a);
    NCL_CHECK_OK(NclArange(NCL_INT32, 3, 3, 1, &a));
    ck_assert_int_eq(NclArraySize(a), 0);
    NclArrayRelease(a);
    /* the quotient underflows: NumPy gives one element or none by its sign */
    NCL_CHECK_OK(NclArange(NCL_FLOAT64, 0, 1e-320, 1e300, &a));
    check_1d(a, NCL_FLOAT64, DV(0));
    NclArrayRelease(a);
    NCL_CHECK_OK(NclArange(NCL_FLOAT64, 0, -1e-320, 1e300, &a));
    ck_assert_int_eq(NclArraySize(a), 0);
    NclArrayRelease(a);
    /* start + step overflows to inf: the first element is still start */
    NCL_CHECK_OK(NclArange(NCL_FLOAT64, 1.5e308, 1.7e308, 1.0e308, &a));
    ck_assert_int_eq(NclArraySize(a), 1);
    ck_assert(ncl_test_get_d(a, 0) == 1.5e308);
    NclArrayRelease(a);

    a = NULL;
    NCL_CHECK_STATUS(NclArange(NCL_FLOAT64, 0, 1, 0, &a), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("step");
    NCL_CHECK_STATUS(NclArange(NCL_FLOAT64, 0, INFINITY, 1, &a), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclArange(NCL_FLOAT64, NAN, 1, 1, &a), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclArange(NCL_FLOAT64, 0, 1, NAN, &a), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclArange(NCL_FLOAT64, 0, 1e300, 1e-300, &a), NCL_ERR_SHAPE);
    NCL_CHECK_STATUS(NclArange(NCL_FLOAT64, -1e308, 1e308, 1, &a), NCL_ERR_SHAPE);
    /* fits int64 elements but not int64 bytes */
    NCL_CHECK_STATUS(NclArange(NCL_FLOAT64, 0, 4e18, 1, &a), NCL_ERR_SHAPE);
    ck_assert_ptr_null(a);
}
END_TEST

/* ---- linspace ------------------------------------------------------------------------------- */

static NclStatus linspace(NclDType dt, double start, double stop, int64_t num, int endpoint,
                          NclArray **out)
{
    NclCreateParams p = NCL_CREATE_PARAMS_INIT;
    p.dtype = dt;
    p.start = start;
    p.stop = stop;
    p.num = num;
    p.endpoint = endpoint;
    return NclCreate(NCL_CREATE_LINSPACE, &p, out);
}

START_TEST(linspace_cases)
{
    NclArray *a = NULL;
    NCL_CHECK_OK(linspace(NCL_DTYPE_DEFAULT, 2, 3, 5, 1, &a));
    check_1d(a, NCL_FLOAT64, DV(2.0, 2.25, 2.5, 2.75, 3.0));
    NclArrayRelease(a);
    NCL_CHECK_OK(linspace(NCL_FLOAT64, 2, 3, 5, 0, &a));
    check_1d(a, NCL_FLOAT64, DV(2.0, 2.2, 2.4, 2.6, 2.8));
    NclArrayRelease(a);
    NCL_CHECK_OK(linspace(NCL_FLOAT64, 0, 1, 7, 1, &a));
    check_1d(a, NCL_FLOAT64, DV(0.0, 0.16666666666666666, 0.3333333333333333, 0.5,
                                0.6666666666666666, 0.8333333333333333, 1.0));
    NclArrayRelease(a);
    /* the default params: num 50, endpoint on */
    NclCreateParams p = NCL_CREATE_PARAMS_INIT;
    p.stop = 49;
    NCL_CHECK_OK(NclCreate(NCL_CREATE_LINSPACE, &p, &a));
    ck_assert_int_eq(NclArraySize(a), 50);
    ck_assert(ncl_test_get_d(a, 17) == 17.0);
    NclArrayRelease(a);

    /* integer dtypes take the floor */
    NCL_CHECK_OK(linspace(NCL_INT8, -1, 1, 5, 1, &a));
    check_1d(a, NCL_INT8, DV(-1, -1, 0, 0, 1));
    NclArrayRelease(a);
    NCL_CHECK_OK(linspace(NCL_UINT16, 0, 10, 4, 1, &a));
    check_1d(a, NCL_UINT16, DV(0, 3, 6, 10));
    NclArrayRelease(a);
    NCL_CHECK_OK(linspace(NCL_BOOL, 0, 1, 3, 1, &a));
    check_1d(a, NCL_BOOL, DV(0, 1, 1));
    NclArrayRelease(a);
    NCL_CHECK_OK(linspace(NCL_FLOAT32, 0, 1, 4, 1, &a));
    check_1d(a, NCL_FLOAT32, DV(0.0, 0.3333333432674408, 0.6666666865348816, 1.0));
    NclArrayRelease(a);
}
END_TEST

START_TEST(linspace_edges)
{
    NclArray *a = NULL;
    NCL_CHECK_OK(linspace(NCL_FLOAT64, 0, 1, 0, 1, &a));
    ck_assert_int_eq(NclArraySize(a), 0);
    NclArrayRelease(a);
    NCL_CHECK_OK(linspace(NCL_FLOAT64, 2, 3, 1, 1, &a));
    check_1d(a, NCL_FLOAT64, DV(2.0));
    NclArrayRelease(a);
    NCL_CHECK_OK(linspace(NCL_FLOAT64, 0, 1, 1, 0, &a));
    check_1d(a, NCL_FLOAT64, DV(0.0));
    NclArrayRelease(a);
    NCL_CHECK_OK(linspace(NCL_FLOAT64, 3, 1, 2, 0, &a));
    check_1d(a, NCL_FLOAT64, DV(3.0, 2.0));
    NclArrayRelease(a);
    NCL_CHECK_OK(linspace(NCL_FLOAT64, 5, 5, 3, 1, &a));
    check_1d(a, NCL_FLOAT64, DV(5.0, 5.0, 5.0));
    NclArrayRelease(a);
    /* NumPy: linspace(0, inf, 1) is [nan] (0 * inf) */
    NCL_CHECK_OK(linspace(NCL_FLOAT64, 0, INFINITY, 1, 1, &a));
    check_1d(a, NCL_FLOAT64, DV(NAN));
    NclArrayRelease(a);
    /* the step underflows to zero: NumPy divides first, then multiplies */
    NCL_CHECK_OK(linspace(NCL_FLOAT64, 0, 5e-324, 4, 1, &a));
    check_1d(a, NCL_FLOAT64, DV(0.0, 0.0, 5e-324, 5e-324));
    NclArrayRelease(a);
    NCL_CHECK_OK(linspace(NCL_FLOAT64, 0, 1e-310, 4, 1, &a));
    check_1d(a, NCL_FLOAT64, DV(0.0, 3.333333333333e-311, 6.6666666666663e-311, 1e-310));
    NclArrayRelease(a);
    /* NaN into an integer dtype is 0, not undefined */
    NCL_CHECK_OK(linspace(NCL_INT32, NAN, 1, 3, 1, &a));
    check_1d(a, NCL_INT32, DV(0, 0, 1));
    NclArrayRelease(a);
    a = NULL;
    NCL_CHECK_STATUS(linspace(NCL_FLOAT64, 0, 1, -1, 1, &a), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("num");
    ck_assert_ptr_null(a);
}
END_TEST

/* ---- eye ------------------------------------------------------------------------------------ */

static NclStatus eye(NclDType dt, int ndim, const int64_t *shape, int64_t k, NclOrder order,
                     NclArray **out)
{
    NclCreateParams p = NCL_CREATE_PARAMS_INIT;
    p.dtype = dt;
    p.ndim = ndim;
    p.shape = shape;
    p.k = k;
    p.order = order;
    return NclCreate(NCL_CREATE_EYE, &p, out);
}

START_TEST(eye_cases)
{
    NclArray *a = NULL;
    NCL_CHECK_OK(eye(NCL_INT32, 2, NCL_DIMS(3, 4), 1, NCL_ORDER_C, &a));
    ck_assert_int_eq(NclArrayDType(a), NCL_INT32);
    static const double e341[] = {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (int64_t i = 0; i < 12; i++) ck_assert(ncl_test_get_d(a, i) == e341[i]);
    NclArrayRelease(a);
    /* F order: same values, F strides */
    NCL_CHECK_OK(eye(NCL_INT32, 2, NCL_DIMS(3, 4), 1, NCL_ORDER_F, &a));
    ck_assert_int_eq(NclArrayStrides(a)[0], 4);
    ck_assert_int_eq(NclArrayStrides(a)[1], 12);
    for (int64_t i = 0; i < 12; i++) ck_assert(ncl_test_get_d(a, i) == e341[i]);
    NclArrayRelease(a);
    NCL_CHECK_OK(eye(NCL_FLOAT64, 2, NCL_DIMS(3, 2), -1, NCL_ORDER_C, &a));
    static const double e32m1[] = {0, 0, 1, 0, 0, 1};
    for (int64_t i = 0; i < 6; i++) ck_assert(ncl_test_get_d(a, i) == e32m1[i]);
    NclArrayRelease(a);
    NCL_CHECK_OK(eye(NCL_FLOAT64, 2, NCL_DIMS(4, 3), -2, NCL_ORDER_F, &a));
    static const double e43m2[] = {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0};
    for (int64_t i = 0; i < 12; i++) ck_assert(ncl_test_get_d(a, i) == e43m2[i]);
    NclArrayRelease(a);
    /* square from ndim 1, default dtype; bool */
    NCL_CHECK_OK(eye(NCL_DTYPE_DEFAULT, 1, NCL_DIMS(3), 0, NCL_ORDER_C, &a));
    ck_assert_int_eq(NclArrayDType(a), NCL_FLOAT64);
    ck_assert_int_eq(NclArrayNDim(a), 2);
    for (int64_t i = 0; i < 9; i++) ck_assert(ncl_test_get_d(a, i) == (i % 4 == 0));
    NclArrayRelease(a);
    NCL_CHECK_OK(eye(NCL_BOOL, 1, NCL_DIMS(2), 0, NCL_ORDER_C, &a));
    ck_assert_int_eq(*(uint8_t *)ncl_test_ptr(a, 3), 1);
    NclArrayRelease(a);
    /* diagonals outside the matrix: all zeros, no overflow for extreme k */
    const int64_t ks[] = {2, 5, -3, INT64_MAX, INT64_MIN, INT64_MIN + 1};
    for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
        NCL_CHECK_OK(eye(NCL_INT8, 2, NCL_DIMS(3, 2), ks[j], NCL_ORDER_C, &a));
        for (int64_t i = 0; i < 6; i++) ck_assert_int_eq(ncl_test_get_i(a, i), 0);
        NclArrayRelease(a);
    }
    /* empty */
    NCL_CHECK_OK(eye(NCL_INT8, 2, NCL_DIMS(0, 3), 0, NCL_ORDER_C, &a));
    ck_assert_int_eq(NclArraySize(a), 0);
    NclArrayRelease(a);
    a = NULL;
    NCL_CHECK_STATUS(eye(NCL_INT8, 3, NCL_DIMS(2, 2, 2), 0, NCL_ORDER_C, &a),
                     NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(eye(NCL_INT8, 0, NULL, 0, NCL_ORDER_C, &a), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(eye(NCL_INT8, 2, NCL_DIMS(-1, 2), 0, NCL_ORDER_C, &a), NCL_ERR_SHAPE);
    ck_assert_ptr_null(a);
}
END_TEST

/* ---- copy ----------------------------------------------------------------------------------- */

START_TEST(copy_cases)
{
    NclArray *src = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(3, 4), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    NclArray *v = NULL, *c = NULL;
    /* a strided, reversed view */
    NCL_CHECK_OK(NclArraySlice(src, NCL_DIMS(INT64_MIN, INT64_MIN), NULL, NCL_DIMS(-1, 2), &v));
    NCL_CHECK_OK(NclCopy(v, &c));
    ck_assert_int_eq(NclArrayDType(c), NCL_INT32);
    ck_assert_uint_eq(NclArrayFlags(c) & (NCL_ARRAY_C_CONTIGUOUS | NCL_ARRAY_OWNDATA),
                      NCL_ARRAY_C_CONTIGUOUS | NCL_ARRAY_OWNDATA);
    ck_assert_ptr_ne(NclArrayData(c), NclArrayData(src));
    static const int64_t want[] = {8, 10, 4, 6, 0, 2};
    for (int64_t i = 0; i < 6; i++) ck_assert_int_eq(ncl_test_get_i(c, i), want[i]);
    NclArrayRelease(c);

    /* F order */
    NclCreateParams p = NCL_CREATE_PARAMS_INIT;
    p.src = v;
    p.order = NCL_ORDER_F;
    NCL_CHECK_OK(NclCreate(NCL_CREATE_COPY, &p, &c));
    ck_assert_uint_eq(NclArrayFlags(c) & 3, NCL_ARRAY_F_CONTIGUOUS);
    for (int64_t i = 0; i < 6; i++) ck_assert_int_eq(ncl_test_get_i(c, i), want[i]);
    NclArrayRelease(c);

    /* 0-d and empty */
    NclArray *z = NULL;
    NCL_CHECK_OK(NclFull(NCL_FLOAT32, 0, NULL, &(float){3.5f}, &z));
    NCL_CHECK_OK(NclCopy(z, &c));
    ck_assert_int_eq(NclArrayNDim(c), 0);
    ck_assert(ncl_test_get_d(c, 0) == 3.5);
    NclArrayRelease(c);
    NclArrayRelease(z);
    NCL_CHECK_OK(NclEmpty(NCL_INT8, 2, NCL_DIMS(0, 4), &z));
    NCL_CHECK_OK(NclCopy(z, &c));
    ck_assert_int_eq(NclArraySize(c), 0);
    ck_assert_int_eq(NclArrayShape(c)[1], 4);
    NclArrayRelease(c);
    NclArrayRelease(z);

    c = NULL;
    NCL_CHECK_STATUS(NclCopy(NULL, &c), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(c);
    NclArrayRelease(v);
    NclArrayRelease(src);
}
END_TEST

START_TEST(copy_with_dtype)
{
    NclArray *src = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(4), -1.5, 0.5, 2.75, 300.0);
    NclCreateParams p = NCL_CREATE_PARAMS_INIT;
    p.src = src;
    p.dtype = NCL_INT16;
    NclArray *c = NULL;
    NCL_CHECK_OK(NclCreate(NCL_CREATE_COPY, &p, &c));
    check_1d(c, NCL_INT16, DV(-1, 0, 2, 300));
    NclArrayRelease(c);
    NclArrayRelease(src);
}
END_TEST

static int copy_callbacks;

static void count_callback(int category, const char *where, void *user)
{
    (void)user;
    ck_assert_int_eq(category, NCL_FPE_INVALID);
    ck_assert_str_eq(where, "NclCreate(copy)");
    copy_callbacks++;
}

static NclStatus counting_hook(NclHook *self, NclCreateOp op, const NclCreateParams *p,
                               NclArray **out);

/* A copy whose cast raises INVALID (NaN to an integer dtype) in RAISE mode
   fails as NclConvert does: *out untouched and the array it allocated
   released, in either order and with a pass-through hook in front of the
   default. In CALL mode the copy succeeds, NaN converted to 0. */
START_TEST(copy_with_dtype_raise)
{
    NclArray *src = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 3), 1, NAN, 3, 4, 5, 6);
    NclArray *const sentinel = (NclArray *)(uintptr_t)0x77;
    NclHook node;
    memset(&node, 0, sizeof node);
    node.name = "test_create_pass";
    node.fn.create = counting_hook;
    for (int hooked = 0; hooked < 2; hooked++) {
        if (hooked) NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_CREATE, &node.list));
        for (int order = NCL_ORDER_C; order <= NCL_ORDER_F; order++) {
            NclCreateParams p = NCL_CREATE_PARAMS_INIT;
            p.src = src;
            p.dtype = NCL_INT32;
            p.order = (NclOrder)order;
            NclArray *out = sentinel;
            ncl_test_alloc t;
            NCL_CHECK_OK(NclSetErrMode(NCL_FPE_INVALID, NCL_ERRMODE_RAISE));
            ncl_test_alloc_install(&t, 0, 0);
            NclStatus s = NclCreate(NCL_CREATE_COPY, &p, &out);
            ncl_test_alloc_uninstall(&t);
            NCL_CHECK_OK(NclSetErrMode(NCL_FPE_ALL, NCL_ERRMODE_IGNORE));
            ck_assert_msg(s == NCL_ERR_FLOATING_POINT, "hooked %d, order %d: %s (%s)", hooked,
                          order, NclStatusString(s), NclLastError());
            NCL_CHECK_MESSAGE_HAS("NclCreate(copy): floating-point error");
            ck_assert_int_eq(NclGetFPErrors(), NCL_FPE_INVALID);
            NCL_CHECK_NO_LEAK(&t);
            ck_assert_ptr_eq(out, sentinel);
        }
        if (hooked) NCL_CHECK_OK(NclApiUnhook(&node.list));
    }

    NclCreateParams p = NCL_CREATE_PARAMS_INIT;
    p.src = src;
    p.dtype = NCL_INT32;
    NclArray *c = NULL;
    copy_callbacks = 0;
    NclSetErrCallback(count_callback, NULL);
    NCL_CHECK_OK(NclSetErrMode(NCL_FPE_INVALID, NCL_ERRMODE_CALL));
    NclStatus s = NclCreate(NCL_CREATE_COPY, &p, &c);
    NCL_CHECK_OK(NclSetErrMode(NCL_FPE_ALL, NCL_ERRMODE_IGNORE));
    NclSetErrCallback(NULL, NULL);
    ck_assert_int_eq(s, NCL_OK);
    ck_assert_int_eq(copy_callbacks, 1);
    ck_assert_int_eq(ncl_test_get_i(c, 1), 0);
    ck_assert_int_eq(ncl_test_get_i(c, 5), 6);
    NclArrayRelease(c);
    NclArrayRelease(src);
}
END_TEST

/* ---- validation ------------------------------------------------------------------------------- */

START_TEST(params_validation)
{
    NclArray *out = (NclArray *)(uintptr_t)0x77;
    NclArray *const sentinel = out;
    NclCreateParams p = NCL_CREATE_PARAMS_INIT;
    p.ndim = 1;
    p.shape = NCL_DIMS(3);
    NCL_CHECK_STATUS(NclCreate(NCL_CREATE_EMPTY, NULL, &out), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("NclCreate(empty)");
    NCL_CHECK_STATUS(NclCreate(NCL_CREATE_EMPTY, &p, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclCreate(NCL_CREATE_NOPS, &p, &out), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclCreate((NclCreateOp)-1, &p, &out), NCL_ERR_INVALID_ARGUMENT);

    /* a shorter (older) struct is fine for ops that do not read past it */
    p.size = (uint32_t)offsetof(NclCreateParams, value);
    NclArray *a = NULL;
    NCL_CHECK_OK(NclCreate(NCL_CREATE_ZEROS, &p, &a));
    NclArrayRelease(a);
    NCL_CHECK_STATUS(NclCreate(NCL_CREATE_FULL, &p, &out), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("size");
    NCL_CHECK_STATUS(NclCreate(NCL_CREATE_COPY, &p, &out), NCL_ERR_INVALID_ARGUMENT);
    p.size = 0;
    NCL_CHECK_STATUS(NclCreate(NCL_CREATE_EMPTY, &p, &out), NCL_ERR_INVALID_ARGUMENT);
    p.size = sizeof p;

    p.dtype = (NclDType)NCL_NTYPES;
    NCL_CHECK_STATUS(NclCreate(NCL_CREATE_EMPTY, &p, &out), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("dtype");
    p.dtype = NCL_DTYPE_DEFAULT;
    p.order = (NclOrder)2;
    NCL_CHECK_STATUS(NclCreate(NCL_CREATE_ONES, &p, &out), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("order");
    p.order = NCL_ORDER_C;
    NCL_CHECK_STATUS(NclCreate(NCL_CREATE_FULL, &p, &out), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("value");

    NCL_CHECK_STATUS(NclEmpty(NCL_FLOAT64, 1, NULL, &out), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclEmpty(NCL_FLOAT64, -1, NCL_DIMS(1), &out), NCL_ERR_SHAPE);
    NCL_CHECK_STATUS(NclEmpty(NCL_FLOAT64, 65, NCL_DIMS(1), &out), NCL_ERR_SHAPE);
    NCL_CHECK_STATUS(NclZeros(NCL_FLOAT64, 2, NCL_DIMS(2, -3), &out), NCL_ERR_SHAPE);
    NCL_CHECK_MESSAGE_HAS("(2,-3)");
    NCL_CHECK_STATUS(NclOnes(NCL_FLOAT64, 2, NCL_DIMS(1LL << 62, 4), &out), NCL_ERR_SHAPE);
    NCL_CHECK_STATUS(NclOnes(NCL_FLOAT64, 2, NCL_DIMS(1LL << 61, 0), &out), NCL_ERR_SHAPE);
    NCL_CHECK_STATUS(NclEmpty(NCL_INT8, 3, NCL_DIMS(0, 1LL << 62, 4), &out), NCL_ERR_SHAPE);
    NCL_CHECK_STATUS(NclFull(NCL_INT8, 1, NCL_DIMS(2), NULL, &out), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_eq(out, sentinel);
}
END_TEST

/* ---- fault injection ---------------------------------------------------------------------------- */

START_TEST(fault_injection_every_op)
{
    /* fail allocation k of each call, k = 1.. until the call needs fewer */
    NclArray *src = NULL, *view = NULL;
    NCL_CHECK_OK(NclArange(NCL_INT32, 0, 2000, 1, &src));
    NclArray *src2 = NULL;
    NCL_CHECK_OK(NclArrayReshape(src, 2, NCL_DIMS(40, 50), &src2));
    NCL_CHECK_OK(NclArrayTranspose(src2, NULL, &view)); /* strided source */
    for (int op = 0; op < NCL_CREATE_NOPS; op++) {
        for (long k = 1; k <= 6; k++) {
            NclCreateParams p = NCL_CREATE_PARAMS_INIT;
            p.dtype = op == NCL_CREATE_COPY ? NCL_FLOAT32 : NCL_INT16;
            p.ndim = 2;
            p.shape = NCL_DIMS(30, 40);
            p.value = "\x01\x02";
            p.stop = 100;
            p.num = 77;
            p.src = view;
            ncl_test_alloc t;
            NclArray *out = (NclArray *)(uintptr_t)0x5;
            ncl_test_alloc_install(&t, k, 0);
            NclStatus s = NclCreate((NclCreateOp)op, &p, &out);
            ncl_test_alloc_uninstall(&t);
            if (s == NCL_OK) {
                ck_assert_str_eq(NclArrayHandlerName(out), "ncl_test_alloc");
                NclArrayRelease(out);
            } else {
                ck_assert_msg(s == NCL_ERR_NO_MEMORY, "op %d, k %ld: %s (%s)", op, k,
                              NclStatusString(s), NclLastError());
                ck_assert_ptr_eq(out, (NclArray *)(uintptr_t)0x5);
            }
            NCL_CHECK_NO_LEAK(&t);
            if (atomic_load(&t.calls) < k) break; /* nothing left to fail */
        }
    }
    NclArrayRelease(view);
    NclArrayRelease(src2);
    NclArrayRelease(src);
}
END_TEST

/* ---- the convenience constructors go through the hook chain ----------------------------------- */

static int hook_calls[NCL_CREATE_NOPS];

static NclStatus counting_hook(NclHook *self, NclCreateOp op, const NclCreateParams *p,
                               NclArray **out)
{
    if ((unsigned)op < NCL_CREATE_NOPS) hook_calls[op]++;
    return NclCreateNext(self, op, p, out);
}

START_TEST(constructors_use_chain)
{
    NclHook node;
    memset(&node, 0, sizeof node);
    node.name = "test_create_counter";
    node.fn.create = counting_hook;
    memset(hook_calls, 0, sizeof hook_calls);
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_CREATE, &node.list));
    NclArray *a[6] = {NULL};
    NCL_CHECK_OK(NclEmpty(NCL_INT8, 1, NCL_DIMS(2), &a[0]));
    NCL_CHECK_OK(NclZeros(NCL_INT8, 1, NCL_DIMS(2), &a[1]));
    NCL_CHECK_OK(NclOnes(NCL_INT8, 1, NCL_DIMS(2), &a[2]));
    NCL_CHECK_OK(NclFull(NCL_INT8, 1, NCL_DIMS(2), "\x05", &a[3]));
    NCL_CHECK_OK(NclArange(NCL_INT8, 0, 2, 1, &a[4]));
    NCL_CHECK_OK(NclCopy(a[4], &a[5]));
    NCL_CHECK_OK(NclApiUnhook(&node.list));
    for (int i = 0; i < 6; i++) NclArrayRelease(a[i]);
    for (int op = NCL_CREATE_EMPTY; op <= NCL_CREATE_ARANGE; op++)
        ck_assert_msg(hook_calls[op] == 1, "op %d seen %d times", op, hook_calls[op]);
    ck_assert_int_eq(hook_calls[NCL_CREATE_LINSPACE], 0);
    ck_assert_int_eq(hook_calls[NCL_CREATE_EYE], 0);
    ck_assert_int_eq(hook_calls[NCL_CREATE_COPY], 1);
}
END_TEST

static Suite *create_suite(void)
{
    Suite *s = suite_create("create");
    TCase *tc = ncl_test_tcase(s, "fill");
    tcase_add_test(tc, empty_shapes_and_orders);
    tcase_add_test(tc, zeros_ones_full_every_dtype);
    tcase_add_test(tc, zeros_large_and_recycled);
    tcase_add_test(tc, full_bool_normalised_and_0d);
    tc = ncl_test_tcase(s, "ranges");
    tcase_add_test(tc, arange_float);
    tcase_add_test(tc, arange_int_and_bool);
    tcase_add_test(tc, arange_edges);
    tcase_add_test(tc, linspace_cases);
    tcase_add_test(tc, linspace_edges);
    tcase_add_test(tc, eye_cases);
    tc = ncl_test_tcase(s, "copy");
    tcase_add_test(tc, copy_cases);
    tcase_add_test(tc, copy_with_dtype);
    tcase_add_test(tc, copy_with_dtype_raise);
    tc = ncl_test_tcase(s, "api");
    tcase_add_test(tc, params_validation);
    tcase_add_test(tc, constructors_use_chain);
    tcase_add_test(tc, fault_injection_every_op);
    return s;
}

NCL_TEST_MAIN(create_suite)
