/*
 * test_fuzz_cases.c: the calls fuzz/ncl_fuzz found wrong, each as a Check
 * case (the input that found it is in fuzz/corpus). The undefined-behaviour
 * ones only fail in sanitizer builds, which is where the fuzz target runs;
 * elsewhere they still pin the results.
 */
#include "ncl_test.h"

/* Reductions without a where mask once advanced a null mask pointer by
   zero (fuzz/corpus/seed-reduce_cum). */
START_TEST(test_reduce_without_where)
{
    NclArray *a = ncl_test_arr(NCL_UINT8, 1, NCL_DIMS(5), 1, 2, 0, 4, 5), *r = NULL;
    NCL_CHECK_OK(NclReduce(NCL_CUMSUM, a, &r, NULL));
    ck_assert_uint_eq(ncl_test_get_u(r, 4), 12);
    NclArrayRelease(r);
    r = NULL;
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = NCL_FLOAT32;
    NCL_CHECK_OK(NclReduce(NCL_CUMPROD, a, &r, &p));
    ck_assert(ncl_test_get_d(r, 1) == 2.0 && ncl_test_get_d(r, 4) == 0.0);
    NclArrayRelease(r);
    r = NULL;
    NCL_CHECK_OK(NclReduce(NCL_COUNT_NONZERO, a, &r, NULL));
    ck_assert_int_eq(ncl_test_get_i(r, 0), 4);
    NclArrayRelease(r);
    r = NULL;
    NCL_CHECK_OK(NclReduce(NCL_ALL, a, &r, NULL));
    ck_assert_int_eq(ncl_test_get_i(r, 0), 0);
    NclArrayRelease(r);
    NclArrayRelease(a);
}
END_TEST

/* A sort that needs no scratch once computed offsets from a null scratch
   base (fuzz/corpus/seed-sort). */
START_TEST(test_sort_without_scratch)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 4), 3, 1, 2, 0, 7, 5, 6, 4), *r = NULL;
    NCL_CHECK_OK(NclSort(NCL_SORT, a, &r, NULL));
    ck_assert(ncl_test_get_d(r, 0) == 0 && ncl_test_get_d(r, 3) == 3 && ncl_test_get_d(r, 4) == 4);
    NclArrayRelease(r);
    r = NULL;
    NclParams p = NCL_PARAMS_INIT;
    p.kind = NCL_SORT_STABLE;
    NCL_CHECK_OK(NclSort(NCL_ARGSORT, a, &r, &p));
    ck_assert_int_eq(ncl_test_get_i(r, 0), 3);
    NclArrayRelease(r);
    r = NULL;
    p = (NclParams)NCL_PARAMS_INIT;
    p.kth = 2;
    NCL_CHECK_OK(NclSort(NCL_PARTITION, a, &r, &p));
    ck_assert(ncl_test_get_d(r, 2) == 2 && ncl_test_get_d(r, 6) == 6);
    NclArrayRelease(r);
    NclArrayRelease(a);
}
END_TEST

/* Under NCL_ERRMODE_RAISE a call that raises returns NCL_ERR_FLOATING_POINT
   and releases a result it allocated (ncl/fpe.h): NclCreate(copy) with a
   dtype returned its converted copy along with the error, which a caller
   seeing a failure never releases (found by fuzz/corpus/repro-create-copy-fpe-raise;
   seed-create_copy_raise makes the same call). */
START_TEST(test_raise_releases_allocated_result)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), 1, NAN, 3), *r = NULL;
    NCL_CHECK_OK(NclSetErrMode(NCL_FPE_INVALID, NCL_ERRMODE_RAISE));
    NclCreateParams cp = NCL_CREATE_PARAMS_INIT;
    cp.src = a;
    cp.dtype = NCL_INT32;
    NclStatus s = NclCreate(NCL_CREATE_COPY, &cp, &r);
    NCL_CHECK_OK(NclSetErrMode(NCL_FPE_ALL, NCL_ERRMODE_IGNORE));
    ck_assert_int_eq(s, NCL_ERR_FLOATING_POINT);
    ck_assert_ptr_null(r);
    ck_assert_int_eq(NclGetFPErrors(), NCL_FPE_INVALID); /* NaN -> int32 */
    NclArrayRelease(r); /* nothing, unless r was wrongly returned */
    NclArrayRelease(a);
}
END_TEST

static Suite *fuzz_cases_suite(void)
{
    Suite *s = suite_create("fuzz_cases");
    TCase *tc = ncl_test_tcase(s, "found");
    tcase_add_test(tc, test_reduce_without_where);
    tcase_add_test(tc, test_sort_without_scratch);
    tcase_add_test(tc, test_raise_releases_allocated_result);
    return s;
}

NCL_TEST_MAIN(fuzz_cases_suite)
