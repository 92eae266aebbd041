/*
 * test_item_format.c: NclArrayGetItem / NclArraySetItem (every dtype,
 * negative indices, strided and reversed views, every refusal) and
 * NclArrayFormat (fixed cases whose text is NumPy 1.24's repr(), and the
 * buffer-size protocol). tests/diff/diff_format.py sweeps the formatting
 * against NumPy itself.
 */
#include "ncl_test.h"

/* ---- get / set ---------------------------------------------------------------------- */

/* Every dtype: a (2, 3) array of 0..5, each element read back by index
   (positive and negative), then overwritten and checked in place. */
START_TEST(item_every_dtype)
{
    for (int t = 0; t < NCL_NTYPES; t++) {
        const NclDType dt = (NclDType)t;
        const size_t w = NclDTypeSize(dt);
        NclArray *a = ncl_test_arr(dt, 2, NCL_DIMS(2, 3), 0, 1, 0, 1, 1, 0);
        if (dt != NCL_BOOL)
            for (int64_t k = 0; k < 6; k++) ncl_test_set_d(a, k, (double)k);
        for (int64_t i = 0; i < 2; i++)
            for (int64_t j = 0; j < 3; j++) {
                unsigned char got[8], neg[8];
                memset(got, 0xa5, sizeof got);
                NCL_CHECK_OK(NclArrayGetItem(a, (const int64_t[]){i, j}, got));
                ck_assert_msg(memcmp(got, ncl_test_ptr(a, i * 3 + j), w) == 0,
                              "%s: element (%lld, %lld) differs", NclDTypeName(dt),
                              (long long)i, (long long)j);
                for (size_t b = w; b < sizeof got; b++) ck_assert_uint_eq(got[b], 0xa5);
                NCL_CHECK_OK(NclArrayGetItem(a, (const int64_t[]){i - 2, j - 3}, neg));
                ck_assert_msg(memcmp(got, neg, w) == 0, "%s: negative index differs",
                              NclDTypeName(dt));
            }
        /* element 1 holds 1 (true for bool): write it at (1, -1), the last */
        unsigned char one[8];
        memcpy(one, ncl_test_ptr(a, 1), w);
        NCL_CHECK_OK(NclArraySetItem(a, NCL_DIMS(1, -1), one));
        ck_assert(ncl_test_get_d(a, 5) == 1.0);
        ck_assert(ncl_test_get_d(a, 4) == (dt == NCL_BOOL ? 1.0 : 4.0));
        NclArrayRelease(a);
    }
}
END_TEST

/* Extreme values of the wide types come back bit for bit. */
START_TEST(item_extremes)
{
    NclArray *a = ncl_test_arr_int(NCL_INT64, 1, NCL_DIMS(2), INT64_MIN, INT64_MAX);
    int64_t v;
    NCL_CHECK_OK(NclArrayGetItem(a, NCL_DIMS(0), &v));
    ck_assert(v == INT64_MIN);
    NCL_CHECK_OK(NclArrayGetItem(a, NCL_DIMS(-1), &v));
    ck_assert(v == INT64_MAX);
    NclArrayRelease(a);
    a = ncl_test_arr_uint(NCL_UINT64, 1, NCL_DIMS(1), UINT64_MAX);
    uint64_t u = 0;
    NCL_CHECK_OK(NclArrayGetItem(a, NCL_DIMS(0), &u));
    ck_assert(u == UINT64_MAX);
    NclArrayRelease(a);
    double d = -0.0, nan = NAN, back;
    a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 1, 2);
    NCL_CHECK_OK(NclArraySetItem(a, NCL_DIMS(0), &d));
    NCL_CHECK_OK(NclArraySetItem(a, NCL_DIMS(1), &nan));
    NCL_CHECK_OK(NclArrayGetItem(a, NCL_DIMS(0), &back));
    ck_assert(back == 0 && signbit(back));
    NCL_CHECK_OK(NclArrayGetItem(a, NCL_DIMS(1), &back));
    ck_assert(isnan(back));
    NclArrayRelease(a);
}
END_TEST

/* A 0-d array takes a NULL index, and ignores an index pointer it is given. */
START_TEST(item_zero_d)
{
    NclArray *a = ncl_test_arr(NCL_INT16, 0, NULL, 7);
    int16_t v = 0, w = -3;
    NCL_CHECK_OK(NclArrayGetItem(a, NULL, &v));
    ck_assert_int_eq(v, 7);
    NCL_CHECK_OK(NclArraySetItem(a, NULL, &w));
    NCL_CHECK_OK(NclArrayGetItem(a, NCL_DIMS(99), &v));
    ck_assert_int_eq(v, -3);
    NclArrayRelease(a);
}
END_TEST

/* Views: a step-2 slice, a reversed slice and a transpose of a (3, 4)
   int32 array of 0..11 read and write the base's elements. */
START_TEST(item_views)
{
    NclArray *a = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(3, 4), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    NclArray *v = NULL, *r = NULL, *t = NULL;
    /* a[::2, 1::2] -> [[1, 3], [9, 11]] */
    NCL_CHECK_OK(NclArraySlice(a, NCL_DIMS(INT64_MIN, 1), NULL, NCL_DIMS(2, 2), &v));
    /* a[::-1, ::-3] -> [[11, 8], [7, 4], [3, 0]] */
    NCL_CHECK_OK(NclArraySlice(a, NULL, NULL, NCL_DIMS(-1, -3), &r));
    NCL_CHECK_OK(NclArrayTranspose(a, NULL, &t));
    int32_t x;
    NCL_CHECK_OK(NclArrayGetItem(v, NCL_DIMS(1, 0), &x));
    ck_assert_int_eq(x, 9);
    NCL_CHECK_OK(NclArrayGetItem(v, NCL_DIMS(-2, -1), &x));
    ck_assert_int_eq(x, 3);
    NCL_CHECK_OK(NclArrayGetItem(r, NCL_DIMS(0, 0), &x));
    ck_assert_int_eq(x, 11);
    NCL_CHECK_OK(NclArrayGetItem(r, NCL_DIMS(1, 1), &x));
    ck_assert_int_eq(x, 4);
    NCL_CHECK_OK(NclArrayGetItem(r, NCL_DIMS(-1, -1), &x));
    ck_assert_int_eq(x, 0);
    NCL_CHECK_OK(NclArrayGetItem(t, NCL_DIMS(3, 1), &x));
    ck_assert_int_eq(x, 7);
    x = 100;
    NCL_CHECK_OK(NclArraySetItem(r, NCL_DIMS(2, 0), &x));   /* a[0, 3] */
    ck_assert_int_eq(ncl_test_get_i(a, 3), 100);
    x = 200;
    NCL_CHECK_OK(NclArraySetItem(t, NCL_DIMS(-1, -1), &x)); /* a[2, 3] */
    ck_assert_int_eq(ncl_test_get_i(a, 11), 200);
    x = 300;
    NCL_CHECK_OK(NclArraySetItem(v, NCL_DIMS(1, 0), &x));   /* a[2, 1] */
    ck_assert_int_eq(ncl_test_get_i(a, 9), 300);
    /* the value may live in the array itself */
    NCL_CHECK_OK(NclArraySetItem(a, NCL_DIMS(0, 0), ncl_test_ptr(a, 11)));
    ck_assert_int_eq(ncl_test_get_i(a, 0), 200);
    NclArrayRelease(v);
    NclArrayRelease(r);
    NclArrayRelease(t);
    NclArrayRelease(a);
}
END_TEST

START_TEST(item_refusals)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT32, 2, NCL_DIMS(3, 3), 1, 2, 3, 4, 5, 6, 7, 8, 9);
    float v = 42.0f;
    NCL_CHECK_STATUS(NclArrayGetItem(NULL, NCL_DIMS(0, 0), &v), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclArraySetItem(NULL, NCL_DIMS(0, 0), &v), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclArrayGetItem(a, NCL_DIMS(0, 0), NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclArraySetItem(a, NCL_DIMS(0, 0), NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclArrayGetItem(a, NULL, &v), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclArraySetItem(a, NULL, &v), NCL_ERR_INVALID_ARGUMENT);
    ck_assert(v == 42.0f);

    /* out of bounds, NumPy's words, value untouched */
    NCL_CHECK_STATUS(NclArrayGetItem(a, NCL_DIMS(3, 0), &v), NCL_ERR_INDEX);
    NCL_CHECK_MESSAGE_HAS("index 3 is out of bounds for axis 0 with size 3");
    NCL_CHECK_STATUS(NclArrayGetItem(a, NCL_DIMS(0, -4), &v), NCL_ERR_INDEX);
    NCL_CHECK_MESSAGE_HAS("index -4 is out of bounds for axis 1 with size 3");
    NCL_CHECK_STATUS(NclArrayGetItem(a, NCL_DIMS(INT64_MIN, 0), &v), NCL_ERR_INDEX);
    NCL_CHECK_STATUS(NclArrayGetItem(a, NCL_DIMS(0, INT64_MAX), &v), NCL_ERR_INDEX);
    ck_assert(v == 42.0f);
    NCL_CHECK_STATUS(NclArraySetItem(a, NCL_DIMS(1, 5), &v), NCL_ERR_INDEX);
    NCL_CHECK_MESSAGE_HAS("index 5 is out of bounds for axis 1 with size 3");
    for (int64_t k = 0; k < 9; k++) ck_assert(ncl_test_get_d(a, k) == (double)(k + 1));

    /* an empty axis has no index at all */
    NclArray *e = ncl_test_new(NCL_INT8, 2, NCL_DIMS(2, 0));
    NCL_CHECK_STATUS(NclArrayGetItem(e, NCL_DIMS(0, 0), &v), NCL_ERR_INDEX);
    NCL_CHECK_MESSAGE_HAS("index 0 is out of bounds for axis 1 with size 0");
    NclArrayRelease(e);

    /* read-only: wrapped without WRITEABLE, and a broadcast view */
    float data[3] = {1, 2, 3};
    NclArray *ro = NULL, *b = NULL;
    NCL_CHECK_OK(NclFromData(NCL_FLOAT32, 1, NCL_DIMS(3), NULL, data, 0, NULL, NULL, &ro));
    NCL_CHECK_OK(NclArrayGetItem(ro, NCL_DIMS(2), &v));
    ck_assert(v == 3.0f);
    NCL_CHECK_STATUS(NclArraySetItem(ro, NCL_DIMS(0), &v), NCL_ERR_READONLY);
    NCL_CHECK_MESSAGE_HAS("read-only");
    /* read-only is refused before the index is looked at, as NumPy does */
    NCL_CHECK_STATUS(NclArraySetItem(ro, NCL_DIMS(7), &v), NCL_ERR_READONLY);
    ck_assert(data[0] == 1.0f);
    NCL_CHECK_OK(NclArrayBroadcastTo(a, 3, NCL_DIMS(2, 3, 3), &b));
    NCL_CHECK_STATUS(NclArraySetItem(b, NCL_DIMS(1, 1, 1), &v), NCL_ERR_READONLY);
    NCL_CHECK_OK(NclArrayGetItem(b, NCL_DIMS(1, -1, -1), &v));
    ck_assert(v == 9.0f);
    NclArrayRelease(b);
    NclArrayRelease(ro);

    /* device memory: neither direction touches it */
    NclArray *dev = NULL;
    NCL_CHECK_OK(NclFromDataKind(NCL_FLOAT32, 1, NCL_DIMS(3), NULL, data, NCL_ARRAY_WRITEABLE,
                                 NULL, NULL, NCL_MEM_DEVICE, 2, &dev));
    v = 42.0f;
    NCL_CHECK_STATUS(NclArrayGetItem(dev, NCL_DIMS(0), &v), NCL_ERR_DEVICE_MEMORY);
    ck_assert(v == 42.0f);
    NCL_CHECK_STATUS(NclArraySetItem(dev, NCL_DIMS(0), &v), NCL_ERR_DEVICE_MEMORY);
    ck_assert(data[0] == 1.0f);
    size_t len = 0;
    NCL_CHECK_STATUS(NclArrayFormat(dev, NULL, 0, &len), NCL_ERR_DEVICE_MEMORY);
    NclArrayRelease(dev);

    /* something that is not an array */
    static uint64_t fake[32];
    NCL_CHECK_STATUS(NclArrayGetItem((const NclArray *)(void *)fake, NCL_DIMS(0, 0), &v),
                     NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("not an NclArray");
    NCL_CHECK_STATUS(NclArraySetItem((NclArray *)(void *)fake, NCL_DIMS(0, 0), &v),
                     NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclArrayFormat((const NclArray *)(void *)fake, NULL, 0, &len),
                     NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("not an NclArray");
    NclArrayRelease(a);
}
END_TEST

/* ---- format ----------------------------------------------------------------------- */

/* The text of a, checked against NumPy's, through the size query first. */
static void check_format(const NclArray *a, const char *want)
{
    size_t len = 999999;
    NCL_CHECK_STATUS(NclArrayFormat(a, NULL, 0, &len), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(len, strlen(want));
    char *buf = malloc(len + 1);
    ck_assert_ptr_nonnull(buf);
    size_t len2 = 0;
    NCL_CHECK_OK(NclArrayFormat(a, buf, len + 1, &len2));
    ck_assert_uint_eq(len2, len);
    ck_assert_msg(strcmp(buf, want) == 0, "got\n%s\nexpected\n%s", buf, want);
    free(buf);
}

START_TEST(format_fixed)
{
    NclArray *a;
    a = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 2), 1, 2, 3, 4);
    check_format(a, "array([[1, 2],\n       [3, 4]], dtype=int32)");
    NclArrayRelease(a);
    a = ncl_test_arr(NCL_INT8, 0, NULL, 5);
    check_format(a, "array(5, dtype=int8)");
    NclArrayRelease(a);
    a = ncl_test_new(NCL_FLOAT64, 1, NCL_DIMS(0));
    check_format(a, "array([], dtype=float64)");
    NclArrayRelease(a);
    a = ncl_test_new(NCL_INT64, 2, NCL_DIMS(0, 3));
    check_format(a, "array([], shape=(0, 3), dtype=int64)");
    NclArrayRelease(a);
    a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(4), 1.5, 2.25, NAN, -INFINITY);
    check_format(a, "array([1.5 , 2.25,  nan, -inf])");
    NclArrayRelease(a);
    a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 1e10, -2e-20);
    check_format(a, "array([ 1.e+10, -2.e-20])");
    NclArrayRelease(a);
    a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 0.1, 1.0 / 3);
    check_format(a, "array([0.1       , 0.33333333])");
    NclArrayRelease(a);
    a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 5e-324, 1.7976931348623157e308);
    check_format(a, "array([4.94065646e-324, 1.79769313e+308])");
    NclArrayRelease(a);
    a = ncl_test_arr(NCL_FLOAT64, 0, NULL, -0.0);
    check_format(a, "array(-0.)");
    NclArrayRelease(a);
    a = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(2), 1, 0);
    check_format(a, "array([ True, False])");
    NclArrayRelease(a);
    a = ncl_test_arr(NCL_BOOL, 0, NULL, 1);
    check_format(a, "array(True)");
    NclArrayRelease(a);
    a = ncl_test_arr(NCL_FLOAT32, 1, NCL_DIMS(1), 0.1);
    check_format(a, "array([0.1], dtype=float32)");
    NclArrayRelease(a);
    /* float32 from 1e7: the integer part is exact, not the unique digits */
    a = ncl_test_arr(NCL_FLOAT32, 1, NCL_DIMS(1), 73491192);
    check_format(a, "array([73491192.], dtype=float32)");
    NclArrayRelease(a);
    /* 2**-96: the shortest digits are not the correctly rounded ones */
    a = ncl_test_arr(NCL_FLOAT32, 1, NCL_DIMS(1), 0x1p-96);
    check_format(a, "array([1.2621775e-29], dtype=float32)");
    NclArrayRelease(a);
    /* e notation pads with the exact value's digits, not zeros */
    a = ncl_test_arr(NCL_FLOAT32, 1, NCL_DIMS(3), 1e-5, 1, 0.1);
    check_format(a, "array([1.e-05, 1.e+00, 1.e-01], dtype=float32)");
    NclArrayRelease(a);
    a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 1e-5, 1.23456);
    check_format(a, "array([1.00000e-05, 1.23456e+00])");
    NclArrayRelease(a);
    /* rows that wrap at 75 columns */
    a = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(2, 20));
    for (int64_t k = 0; k < 40; k++) ncl_test_set_d(a, k, 1.5 * (double)k);
    check_format(a, "array([[ 0. ,  1.5,  3. ,  4.5,  6. ,  7.5,  9. , 10.5, 12. , 13.5, 15. ,\n"
                    "        16.5, 18. , 19.5, 21. , 22.5, 24. , 25.5, 27. , 28.5],\n"
                    "       [30. , 31.5, 33. , 34.5, 36. , 37.5, 39. , 40.5, 42. , 43.5, 45. ,\n"
                    "        46.5, 48. , 49.5, 51. , 52.5, 54. , 55.5, 57. , 58.5]])");
    NclArrayRelease(a);
    a = ncl_test_arr_int(NCL_INT64, 1, NCL_DIMS(2), INT64_MIN, INT64_MAX);
    check_format(a, "array([-9223372036854775808,  9223372036854775807])");
    NclArrayRelease(a);
    a = ncl_test_arr_uint(NCL_UINT64, 1, NCL_DIMS(1), UINT64_MAX);
    check_format(a, "array([18446744073709551615], dtype=uint64)");
    NclArrayRelease(a);
}
END_TEST

/* Views format their own elements: a reversed slice, and a transposed,
   reversed, stepped 3-d view. */
START_TEST(format_views)
{
    NclArray *a = ncl_test_arr(NCL_INT16, 1, NCL_DIMS(4), 1, 2, 3, 4), *v = NULL;
    NCL_CHECK_OK(NclArraySlice(a, NULL, NULL, NCL_DIMS(-1), &v));
    check_format(v, "array([4, 3, 2, 1], dtype=int16)");
    NclArrayRelease(v);
    NclArrayRelease(a);
    /* np.arange(30.).reshape(2, 3, 5)[:, ::-1, ::2] */
    a = ncl_test_new(NCL_FLOAT64, 3, NCL_DIMS(2, 3, 5));
    for (int64_t k = 0; k < 30; k++) ncl_test_set_d(a, k, (double)k);
    NCL_CHECK_OK(NclArraySlice(a, NULL, NULL, NCL_DIMS(1, -1, 2), &v));
    check_format(v, "array([[[10., 12., 14.],\n        [ 5.,  7.,  9.],\n        [ 0.,  2.,  4.]],"
                    "\n\n       [[25., 27., 29.],\n        [20., 22., 24.],\n"
                    "        [15., 17., 19.]]])");
    NclArrayRelease(v);
    NclArrayRelease(a);
}
END_TEST

/* More than 1000 elements: three at each end. */
START_TEST(format_summary)
{
    NclArray *a = ncl_test_new(NCL_INT64, 1, NCL_DIMS(2000));
    for (int64_t k = 0; k < 2000; k++) ncl_test_set_i(a, k, k);
    check_format(a, "array([   0,    1,    2, ..., 1997, 1998, 1999])");
    NclArrayRelease(a);
    a = ncl_test_new(NCL_INT64, 1, NCL_DIMS(1000));
    for (int64_t k = 0; k < 1000; k++) ncl_test_set_i(a, k, k);
    size_t len = 0;
    NCL_CHECK_STATUS(NclArrayFormat(a, NULL, 0, &len), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_msg(len > 4000, "1000 elements are not summarised (%zu characters)", len);
    NclArrayRelease(a);
}
END_TEST

/* The size protocol: nothing is written unless all of it fits. */
START_TEST(format_buffer_protocol)
{
    NclArray *a = ncl_test_arr(NCL_UINT8, 1, NCL_DIMS(3), 1, 2, 3);
    const char *want = "array([1, 2, 3], dtype=uint8)";
    const size_t n = strlen(want);
    char buf[64];
    size_t len = 0;
    NCL_CHECK_STATUS(NclArrayFormat(a, NULL, 0, &len), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(len, n);
    char needs[32];
    snprintf(needs, sizeof needs, "needs %zu", n + 1);
    NCL_CHECK_MESSAGE_HAS(needs);
    /* one byte short (no room for the NUL): untouched */
    memset(buf, 'x', sizeof buf);
    len = 0;
    NCL_CHECK_STATUS(NclArrayFormat(a, buf, n, &len), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(len, n);
    for (size_t i = 0; i < sizeof buf; i++) ck_assert_int_eq(buf[i], 'x');
    NCL_CHECK_STATUS(NclArrayFormat(a, buf, 1, NULL), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(buf[0], 'x');
    /* exactly enough */
    len = 0;
    NCL_CHECK_OK(NclArrayFormat(a, buf, n + 1, &len));
    ck_assert_uint_eq(len, n);
    ck_assert_str_eq(buf, want);
    ck_assert_int_eq(buf[n + 1], 'x');
    /* len may be NULL */
    NCL_CHECK_OK(NclArrayFormat(a, buf, sizeof buf, NULL));
    ck_assert_str_eq(buf, want);
    /* refusals */
    NCL_CHECK_STATUS(NclArrayFormat(NULL, buf, sizeof buf, &len), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclArrayFormat(a, NULL, 8, &len), NCL_ERR_INVALID_ARGUMENT);
    NclArrayRelease(a);
}
END_TEST

/* The master table reaches the three functions. */
START_TEST(item_format_api_table)
{
    const NclApi *api = NclGetApi();
    ck_assert(api->ArrayGetItem == NclArrayGetItem);
    ck_assert(api->ArraySetItem == NclArraySetItem);
    ck_assert(api->ArrayFormat == NclArrayFormat);
}
END_TEST

static Suite *item_format_suite(void)
{
    Suite *s = suite_create("item_format");
    TCase *tc = ncl_test_tcase(s, "item");
    tcase_add_test(tc, item_every_dtype);
    tcase_add_test(tc, item_extremes);
    tcase_add_test(tc, item_zero_d);
    tcase_add_test(tc, item_views);
    tcase_add_test(tc, item_refusals);
    tc = ncl_test_tcase(s, "format");
    tcase_add_test(tc, format_fixed);
    tcase_add_test(tc, format_views);
    tcase_add_test(tc, format_summary);
    tcase_add_test(tc, format_buffer_protocol);
    tcase_add_test(tc, item_format_api_table);
    return s;
}

NCL_TEST_MAIN(item_format_suite)
