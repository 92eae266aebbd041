/*
 * test_linalg.c: the Linalg subsystem (NclLinalg: matmul, dot) through the
 * public API.
 *
 * Exact small products for every dtype (integers wrapping, bool as the or
 * of ands), the shape rules of np.matmul (1-d operands, stacks that
 * broadcast, 0-size extents, 0-d refused) and of np.dot (0-d operand,
 * inner product, N-d with M-d), every memory layout of the operands,
 * NaN and infinities, a product large enough for the BLAS, dtype= and
 * outputs (provided, cast, aliasing an input); then refusals, each with its
 * status, a message naming the call and the output untouched; and the
 * level-2 kernels: a hook that replaces the kernel, one that wraps it with
 * the documented NclLinalgAux, NclKernelHooked and NclKernelRun.
 *
 * Agreement with NumPy over random cases is the differential suite's job
 * (tests/diff/diff_linalg.py).
 */
#include <math.h>
#include "ncl_test.h"

/* The product of a (m x k) and b (k x n), both C-ordered doubles, into r. */
static void ref_mm(const double *a, const double *b, double *r, int m, int k, int n)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int p = 0; p < k; p++) s += a[i * k + p] * b[p * n + j];
            r[i * n + j] = s;
        }
}

/* Whether got (integer dtype dt) holds v modulo 2^bits. */
static int same_residue(NclDType dt, int64_t got, int64_t v)
{
    const int bits = (int)NclDTypeSize(dt) * 8;
    const uint64_t mask = bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
    return (((uint64_t)got ^ (uint64_t)v) & mask) == 0;
}

/* ---- exact values, every dtype --------------------------------------------------- */

START_TEST(t_exact_all)
{
    const NclDType dt = (NclDType)_i;
    const NclLinalgOp ops[2] = {NCL_MATMUL, NCL_DOT};
    for (int o = 0; o < 2; o++) {
        NclArray *a, *b, *out = NULL;
        if (dt == NCL_BOOL) {
            a = ncl_test_arr(dt, 2, NCL_DIMS(2, 3), 1, 0, 1, 0, 0, 0);
            b = ncl_test_arr(dt, 2, NCL_DIMS(3, 2), 0, 1, 1, 0, 0, 0);
        } else {
            a = ncl_test_arr(dt, 2, NCL_DIMS(2, 3), 1, 2, 3, 4, 5, 6);
            b = ncl_test_arr(dt, 2, NCL_DIMS(3, 2), 7, 8, 9, 10, 11, 12);
        }
        NCL_CHECK_OK(NclLinalg(ops[o], a, b, &out, NULL));
        ck_assert_int_eq(NclArrayDType(out), dt);
        ck_assert_int_eq(NclArrayNDim(out), 2);
        ck_assert_int_eq(NclArrayShape(out)[0], 2);
        ck_assert_int_eq(NclArrayShape(out)[1], 2);
        if (dt == NCL_BOOL) {
            const int64_t want[4] = {0, 1, 0, 0};
            for (int i = 0; i < 4; i++) ck_assert_int_eq(ncl_test_get_i(out, i), want[i]);
        } else if (dt == NCL_FLOAT32 || dt == NCL_FLOAT64) {
            const double want[4] = {58, 64, 139, 154};
            for (int i = 0; i < 4; i++) ck_assert(ncl_test_get_d(out, i) == want[i]);
        } else {
            /* int8: 139 and 154 wrap to -117 and -102 */
            const int64_t want[4] = {58, 64, 139, 154};
            for (int i = 0; i < 4; i++)
                ck_assert_msg(same_residue(dt, ncl_test_get_i(out, i), want[i]),
                              "%s: element %d is %lld", NclDTypeName(dt), i,
                              (long long)ncl_test_get_i(out, i));
        }
        NclArrayRelease(out);
        NclArrayRelease(a);
        NclArrayRelease(b);
    }
}
END_TEST

START_TEST(t_wraparound)
{
    NclArray *a = ncl_test_arr_int(NCL_INT64, 1, NCL_DIMS(2), INT64_MAX, 1);
    NclArray *b = ncl_test_arr_int(NCL_INT64, 1, NCL_DIMS(2), 2, 3);
    NclArray *out = NULL;
    NCL_CHECK_OK(NclLinalg(NCL_DOT, a, b, &out, NULL));
    ck_assert_int_eq(NclArrayNDim(out), 0);
    ck_assert_int_eq(ncl_test_get_i(out, 0), 1); /* 2 (2^63 - 1) + 3 = 1 mod 2^64 */
    NclArrayRelease(out);
    NclArrayRelease(a);
    NclArrayRelease(b);

    a = ncl_test_arr(NCL_UINT8, 1, NCL_DIMS(2), 200, 100);
    b = ncl_test_arr(NCL_UINT8, 1, NCL_DIMS(2), 2, 1);
    out = NULL;
    NCL_CHECK_OK(NclLinalg(NCL_MATMUL, a, b, &out, NULL));
    ck_assert_int_eq(ncl_test_get_i(out, 0), 244); /* 500 mod 256 */
    NclArrayRelease(out);
    NclArrayRelease(a);
    NclArrayRelease(b);

    a = ncl_test_arr(NCL_INT16, 1, NCL_DIMS(2), -32768, -32768);
    b = ncl_test_arr(NCL_INT16, 1, NCL_DIMS(2), -32768, 1);
    out = NULL;
    NCL_CHECK_OK(NclLinalg(NCL_DOT, a, b, &out, NULL));
    ck_assert_int_eq(ncl_test_get_i(out, 0), -32768); /* 2^30 - 2^15 */
    NclArrayRelease(out);
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

/* ---- shapes ----------------------------------------------------------------------- */

static void check_shape(const NclArray *r, int nd, const int64_t *shape)
{
    ck_assert_int_eq(NclArrayNDim(r), nd);
    for (int d = 0; d < nd; d++) ck_assert_int_eq(NclArrayShape(r)[d], shape[d]);
}

START_TEST(t_matmul_shapes)
{
    NclArray *m = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 3), 1, 2, 3, 4, 5, 6);
    NclArray *v = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), 1, -1, 2);
    NclArray *w = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 3, -2);
    NclArray *r = NULL;
    /* matrix-vector: the added axis removed */
    NCL_CHECK_OK(NclLinalg(NCL_MATMUL, m, v, &r, NULL));
    check_shape(r, 1, NCL_DIMS(2));
    ck_assert(ncl_test_get_d(r, 0) == 5 && ncl_test_get_d(r, 1) == 11);
    NclArrayRelease(r);
    r = NULL;
    /* vector-matrix */
    NCL_CHECK_OK(NclLinalg(NCL_MATMUL, w, m, &r, NULL));
    check_shape(r, 1, NCL_DIMS(3));
    ck_assert(ncl_test_get_d(r, 0) == -5 && ncl_test_get_d(r, 1) == -4 &&
              ncl_test_get_d(r, 2) == -3);
    NclArrayRelease(r);
    r = NULL;
    /* vector-vector: 0-d */
    NCL_CHECK_OK(NclLinalg(NCL_MATMUL, v, v, &r, NULL));
    check_shape(r, 0, NULL);
    ck_assert(ncl_test_get_d(r, 0) == 6);
    NclArrayRelease(r);
    r = NULL;

    /* stacks broadcast: (2, 1, 2, 3) @ (3, 3, 2) -> (2, 3, 2, 2) */
    NclArray *sa = ncl_test_new(NCL_FLOAT64, 4, NCL_DIMS(2, 1, 2, 3));
    NclArray *sb = ncl_test_new(NCL_FLOAT64, 3, NCL_DIMS(3, 3, 2));
    for (int i = 0; i < 12; i++) ncl_test_set_d(sa, i, i - 5);
    for (int i = 0; i < 18; i++) ncl_test_set_d(sb, i, (i * 7) % 5 - 2);
    NCL_CHECK_OK(NclLinalg(NCL_MATMUL, sa, sb, &r, NULL));
    check_shape(r, 4, NCL_DIMS(2, 3, 2, 2));
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            double av[6], bv[6], want[4];
            for (int e = 0; e < 6; e++) av[e] = ncl_test_get_d(sa, i * 6 + e);
            for (int e = 0; e < 6; e++) bv[e] = ncl_test_get_d(sb, j * 6 + e);
            ref_mm(av, bv, want, 2, 3, 2);
            for (int e = 0; e < 4; e++)
                ck_assert(ncl_test_get_d(r, (i * 3 + j) * 4 + e) == want[e]);
        }
    NclArrayRelease(r);
    r = NULL;

    /* 0-size: k = 0 gives zeros, m = 0 an empty result */
    NclArray *z0 = ncl_test_new(NCL_INT32, 2, NCL_DIMS(2, 0));
    NclArray *z1 = ncl_test_new(NCL_INT32, 2, NCL_DIMS(0, 3));
    NCL_CHECK_OK(NclLinalg(NCL_MATMUL, z0, z1, &r, NULL));
    check_shape(r, 2, NCL_DIMS(2, 3));
    for (int i = 0; i < 6; i++) ck_assert_int_eq(ncl_test_get_i(r, i), 0);
    NclArrayRelease(r);
    r = NULL;
    NclArray *col = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(3, 1), 1);
    NCL_CHECK_OK(NclLinalg(NCL_MATMUL, z1, col, &r, NULL));
    check_shape(r, 2, NCL_DIMS(0, 1));
    NclArrayRelease(r);
    NclArrayRelease(col);
    NclArrayRelease(z0);
    NclArrayRelease(z1);
    NclArrayRelease(sa);
    NclArrayRelease(sb);
    NclArrayRelease(m);
    NclArrayRelease(v);
    NclArrayRelease(w);
}
END_TEST

START_TEST(t_dot_shapes)
{
    NclArray *r = NULL;
    /* a 0-d operand multiplies */
    NclArray *s = ncl_test_arr(NCL_INT32, 0, NULL, 3);
    NclArray *m = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 2), 1, -2, 3, 4);
    NCL_CHECK_OK(NclLinalg(NCL_DOT, m, s, &r, NULL));
    check_shape(r, 2, NCL_DIMS(2, 2));
    const int64_t want[4] = {3, -6, 9, 12};
    for (int i = 0; i < 4; i++) ck_assert_int_eq(ncl_test_get_i(r, i), want[i]);
    NclArrayRelease(r);
    r = NULL;
    NCL_CHECK_OK(NclLinalg(NCL_DOT, s, s, &r, NULL));
    check_shape(r, 0, NULL);
    ck_assert_int_eq(ncl_test_get_i(r, 0), 9);
    NclArrayRelease(r);
    r = NULL;

    /* N-d . M-d: (2, 3) . (4, 3, 2) -> (2, 4, 2), sum over a's last and
       b's second-to-last */
    NclArray *a = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(2, 3));
    NclArray *b = ncl_test_new(NCL_FLOAT64, 3, NCL_DIMS(4, 3, 2));
    for (int i = 0; i < 6; i++) ncl_test_set_d(a, i, i + 1);
    for (int i = 0; i < 24; i++) ncl_test_set_d(b, i, (i % 7) - 3);
    NCL_CHECK_OK(NclLinalg(NCL_DOT, a, b, &r, NULL));
    check_shape(r, 3, NCL_DIMS(2, 4, 2));
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            for (int c = 0; c < 2; c++) {
                double want_v = 0;
                for (int p = 0; p < 3; p++)
                    want_v += ncl_test_get_d(a, i * 3 + p) * ncl_test_get_d(b, j * 6 + p * 2 + c);
                ck_assert(ncl_test_get_d(r, (i * 4 + j) * 2 + c) == want_v);
            }
    NclArrayRelease(r);
    r = NULL;
    /* (4, 3, 2) . (2,) -> (4, 3) */
    NclArray *v = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 1, 10);
    NCL_CHECK_OK(NclLinalg(NCL_DOT, b, v, &r, NULL));
    check_shape(r, 2, NCL_DIMS(4, 3));
    for (int i = 0; i < 12; i++)
        ck_assert(ncl_test_get_d(r, i) == ncl_test_get_d(b, 2 * i) + 10 * ncl_test_get_d(b, 2 * i + 1));
    NclArrayRelease(r);
    NclArrayRelease(v);
    NclArrayRelease(a);
    NclArrayRelease(b);
    NclArrayRelease(s);
    NclArrayRelease(m);
}
END_TEST

/* ---- layouts, values, the BLAS ---------------------------------------------------------- */

START_TEST(t_layouts)
{
    const NclDType dts[3] = {NCL_FLOAT64, NCL_FLOAT32, NCL_INT32};
    for (int t = 0; t < 3; t++)
        for (int la = 0; la < NCL_TEST_NLAYOUTS; la++)
            for (int lb = 0; lb < NCL_TEST_NLAYOUTS; lb++) {
                NclArray *a0 = ncl_test_new(dts[t], 2, NCL_DIMS(5, 4));
                NclArray *b0 = ncl_test_new(dts[t], 2, NCL_DIMS(4, 3));
                double av[20], bv[12], want[15];
                for (int i = 0; i < 20; i++) ncl_test_set_d(a0, i, av[i] = (i * 3) % 7 - 3);
                for (int i = 0; i < 12; i++) ncl_test_set_d(b0, i, bv[i] = (i * 5) % 4 - 1);
                ref_mm(av, bv, want, 5, 4, 3);
                NclArray *a = ncl_test_layout_of(a0, (ncl_test_layout)la);
                NclArray *b = ncl_test_layout_of(b0, (ncl_test_layout)lb);
                NclArray *r = NULL;
                NCL_CHECK_OK(NclLinalg(NCL_MATMUL, a, b, &r, NULL));
                for (int i = 0; i < 15; i++)
                    ck_assert_msg(ncl_test_get_d(r, i) == want[i], "%s %s/%s element %d",
                                  NclDTypeName(dts[t]), ncl_test_layout_name((ncl_test_layout)la),
                                  ncl_test_layout_name((ncl_test_layout)lb), i);
                NclArrayRelease(r);
                NclArrayRelease(a);
                NclArrayRelease(b);
                NclArrayRelease(a0);
                NclArrayRelease(b0);
            }
}
END_TEST

START_TEST(t_nan_inf)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 2), INFINITY, 1, 1, NAN);
    NclArray *b = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 2), 0, 1, 1, 0);
    NclArray *r = NULL;
    NCL_CHECK_OK(NclLinalg(NCL_MATMUL, a, b, &r, NULL));
    ck_assert(isnan(ncl_test_get_d(r, 0)));           /* inf * 0 */
    ck_assert(ncl_test_get_d(r, 1) == INFINITY);       /* inf * 1 + 1 * 0 */
    ck_assert(isnan(ncl_test_get_d(r, 2)) && isnan(ncl_test_get_d(r, 3)));
    NclArrayRelease(r);
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

/* 96 x 80 by 80 x 72 in both float dtypes (large enough for the BLAS) with
   small integers, so every order of the sums is exact; a NaN in one row of
   A fills that row. */
START_TEST(t_large)
{
    const NclDType dts[2] = {NCL_FLOAT64, NCL_FLOAT32};
    const int m = 96, k = 80, n = 72;
    static double av[96 * 80], bv[80 * 72], want[96 * 72];
    for (int i = 0; i < m * k; i++) av[i] = (i * 7) % 11 - 5;
    for (int i = 0; i < k * n; i++) bv[i] = (i * 5) % 9 - 4;
    ref_mm(av, bv, want, m, k, n);
    for (int t = 0; t < 2; t++) {
        NclArray *a = ncl_test_new(dts[t], 2, NCL_DIMS(96, 80));
        NclArray *b = ncl_test_new(dts[t], 2, NCL_DIMS(80, 72));
        for (int i = 0; i < m * k; i++) ncl_test_set_d(a, i, av[i]);
        for (int i = 0; i < k * n; i++) ncl_test_set_d(b, i, bv[i]);
        ncl_test_set_d(a, 7 * k + 3, NAN);
        for (int op = 0; op < 2; op++) {
            NclArray *r = NULL;
            NCL_CHECK_OK(NclLinalg((NclLinalgOp)op, a, b, &r, NULL));
            for (int i = 0; i < m * n; i++) {
                if (i / n == 7) ck_assert(isnan(ncl_test_get_d(r, i)));
                else ck_assert_msg(ncl_test_get_d(r, i) == want[i], "element %d", i);
            }
            NclArrayRelease(r);
            /* the transposes: C^T = B^T A^T */
            NclArray *at = NULL, *bt = NULL;
            NCL_CHECK_OK(NclArrayTranspose(a, NULL, &at));
            NCL_CHECK_OK(NclArrayTranspose(b, NULL, &bt));
            r = NULL;
            NCL_CHECK_OK(NclLinalg((NclLinalgOp)op, bt, at, &r, NULL));
            for (int i = 0; i < m; i++)
                for (int j = 0; j < n; j++) {
                    const double g = ncl_test_get_d(r, j * m + i);
                    if (i == 7) ck_assert(isnan(g));
                    else ck_assert(g == want[i * n + j]);
                }
            NclArrayRelease(r);
            NclArrayRelease(at);
            NclArrayRelease(bt);
        }
        NclArrayRelease(a);
        NclArrayRelease(b);
    }
}
END_TEST

/* ---- dtypes and outputs ------------------------------------------------------------------- */

START_TEST(t_dtype_and_out)
{
    NclArray *a = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 2), 1, 2, 3, 4);
    NclArray *b = ncl_test_arr(NCL_INT8, 2, NCL_DIMS(2, 2), 5, 6, 7, 8);
    NclArray *r = NULL;
    /* promotion: int32 with int8 is int32 */
    NCL_CHECK_OK(NclLinalg(NCL_MATMUL, a, b, &r, NULL));
    ck_assert_int_eq(NclArrayDType(r), NCL_INT32);
    NclArrayRelease(r);
    r = NULL;
    /* dtype= float64 */
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = NCL_FLOAT64;
    NCL_CHECK_OK(NclLinalg(NCL_MATMUL, a, b, &r, &p));
    ck_assert_int_eq(NclArrayDType(r), NCL_FLOAT64);
    ck_assert(ncl_test_get_d(r, 0) == 19 && ncl_test_get_d(r, 3) == 50);
    NclArrayRelease(r);
    /* a provided output of a wider dtype receives the cast result */
    NclArray *o = ncl_test_arr(NCL_INT64, 2, NCL_DIMS(2, 2), -1);
    r = o;
    NCL_CHECK_OK(NclLinalg(NCL_DOT, a, b, &r, NULL));
    ck_assert_ptr_eq(r, o);
    const int64_t want[4] = {19, 22, 43, 50};
    for (int i = 0; i < 4; i++) ck_assert_int_eq(ncl_test_get_i(o, i), want[i]);
    NclArrayRelease(o);
    /* the output is an input: the result of copies */
    NclArray *x = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 2), 1, 2, 3, 4);
    NclArray *y = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 2), 5, 6, 7, 8);
    r = x;
    NCL_CHECK_OK(NclLinalg(NCL_MATMUL, x, y, &r, NULL));
    for (int i = 0; i < 4; i++) ck_assert(ncl_test_get_d(x, i) == (double)want[i]);
    r = y;
    NCL_CHECK_OK(NclLinalg(NCL_MATMUL, x, y, &r, NULL)); /* x is now {19,22,43,50} */
    ck_assert(ncl_test_get_d(y, 0) == 19 * 5 + 22 * 7);
    ck_assert(ncl_test_get_d(y, 3) == 43 * 6 + 50 * 8);
    /* a strided output */
    NclArray *big = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(4, 4), -1);
    NclArray *sl = NULL;
    NCL_CHECK_OK(NclArraySlice(big, NULL, NULL, NCL_DIMS(2, 2), &sl));
    NclArray *x2 = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 2), 1, 0, 0, 1);
    r = sl;
    NCL_CHECK_OK(NclLinalg(NCL_MATMUL, x2, x2, &r, NULL));
    ck_assert(ncl_test_get_d(big, 0) == 1 && ncl_test_get_d(big, 1) == -1 &&
              ncl_test_get_d(big, 2) == 0 && ncl_test_get_d(big, 10) == 1);
    NclArrayRelease(sl);
    NclArrayRelease(big);
    NclArrayRelease(x2);
    NclArrayRelease(x);
    NclArrayRelease(y);
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

/* ---- refusals ------------------------------------------------------------------------------ */

START_TEST(t_refusals)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 3), 1);
    NclArray *b = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(4, 2), 1);
    NclArray *good = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(3, 2), 1);
    NclArray *s = ncl_test_arr(NCL_FLOAT64, 0, NULL, 2);
    NclArray *r = NULL;
    NCL_CHECK_STATUS(NclLinalg(NCL_MATMUL, NULL, b, &r, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclLinalg(NCL_MATMUL, a, NULL, &r, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclLinalg(NCL_MATMUL, a, good, NULL, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclLinalg((NclLinalgOp)7, a, good, &r, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("unknown op");
    NCL_CHECK_STATUS(NclLinalg(NCL_MATMUL, a, b, &r, NULL), NCL_ERR_SHAPE);
    NCL_CHECK_MESSAGE_HAS("NclLinalg(matmul)");
    NCL_CHECK_STATUS(NclLinalg(NCL_DOT, a, b, &r, NULL), NCL_ERR_SHAPE);
    NCL_CHECK_MESSAGE_HAS("not aligned");
    NCL_CHECK_STATUS(NclLinalg(NCL_MATMUL, s, a, &r, NULL), NCL_ERR_SHAPE);
    NCL_CHECK_MESSAGE_HAS("operand 0");
    NCL_CHECK_STATUS(NclLinalg(NCL_MATMUL, a, s, &r, NULL), NCL_ERR_SHAPE);
    ck_assert_ptr_null(r);
    NclArray *st0 = ncl_test_new(NCL_FLOAT64, 3, NCL_DIMS(2, 2, 3));
    NclArray *st1 = ncl_test_new(NCL_FLOAT64, 3, NCL_DIMS(3, 3, 2));
    NCL_CHECK_STATUS(NclLinalg(NCL_MATMUL, st0, st1, &r, NULL), NCL_ERR_BROADCAST);

    /* outputs: wrong shape, a dtype the result does not cast to, read-only */
    NclArray *o = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 3), 7);
    r = o;
    NCL_CHECK_STATUS(NclLinalg(NCL_MATMUL, a, good, &r, NULL), NCL_ERR_SHAPE);
    NCL_CHECK_MESSAGE_HAS("output");
    ck_assert_ptr_eq(r, o);
    for (int i = 0; i < 6; i++) ck_assert(ncl_test_get_d(o, i) == 7);
    NclArray *oi = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 2), 7);
    r = oi;
    NCL_CHECK_STATUS(NclLinalg(NCL_MATMUL, a, good, &r, NULL), NCL_ERR_CASTING);
    for (int i = 0; i < 4; i++) ck_assert_int_eq(ncl_test_get_i(oi, i), 7);
    double buf[4] = {7, 7, 7, 7};
    NclArray *ro = NULL;
    NCL_CHECK_OK(NclFromData(NCL_FLOAT64, 2, NCL_DIMS(2, 2), NULL, buf, 0, NULL, NULL, &ro));
    r = ro;
    NCL_CHECK_STATUS(NclLinalg(NCL_DOT, a, good, &r, NULL), NCL_ERR_READONLY);
    ck_assert(buf[0] == 7 && buf[3] == 7);
    /* casting an input, params it does not take */
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = NCL_INT32;
    r = NULL;
    NCL_CHECK_STATUS(NclLinalg(NCL_MATMUL, a, good, &r, &p), NCL_ERR_CASTING);
    NCL_CHECK_MESSAGE_HAS("input a");
    p = (NclParams)NCL_PARAMS_INIT;
    NclArray *w = ncl_test_arr(NCL_BOOL, 2, NCL_DIMS(2, 2), 1);
    p.where = w;
    NCL_CHECK_STATUS(NclLinalg(NCL_MATMUL, a, good, &r, &p), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("where");
    ck_assert_ptr_null(r);
    NclArrayRelease(w);
    NclArrayRelease(ro);
    NclArrayRelease(oi);
    NclArrayRelease(o);
    NclArrayRelease(st0);
    NclArrayRelease(st1);
    NclArrayRelease(s);
    NclArrayRelease(good);
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

/* ---- allocation failures ------------------------------------------------------------------ */

/* Every allocation of a call fails in turn: the call returns
   NCL_ERR_NO_MEMORY naming NclLinalg, leaks nothing and leaves *out and a
   provided output as they were. Cases: inputs cast to the loop dtype with
   the result allocated; a strided float operand copied for the BLAS into
   an output of another dtype; the output that is an input. */
enum { FI_CAST, FI_STRIDED_CAST_OUT, FI_ALIAS, FI_COUNT };

START_TEST(t_fault_injection)
{
    const int which = _i;
    int failed_some = 0, done = 0;
    for (long k = 1; k <= 32 && !done; k++) {
        NclArray *a, *b, *given = NULL, *a0 = NULL;
        if (which == FI_CAST) {
            a = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(3, 4), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
            b = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(4, 2), 1, -1, 2, 0, 0, 3, 1, 1);
        } else if (which == FI_STRIDED_CAST_OUT) {
            a0 = ncl_test_arr(NCL_FLOAT32, 2, NCL_DIMS(3, 4), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
            a = ncl_test_layout_of(a0, NCL_TEST_SLICED);
            b = ncl_test_arr(NCL_FLOAT32, 2, NCL_DIMS(4, 2), 1, -1, 2, 0, 0, 3, 1, 1);
            given = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(3, 2), 9);
        } else {
            a = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 2), 1, 2, 3, 4);
            b = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 2), 5, 6, 7, 8);
            given = a;
            NclArrayRetain(given);
        }
        const uint64_t h = given ? ncl_test_hash(given) : 0;
        ncl_test_alloc acc;
        ncl_test_alloc_install(&acc, k, 0);
        NclArray *res = given;
        const NclStatus s = NclLinalg(NCL_MATMUL, a, b, &res, NULL);
        ncl_test_alloc_uninstall(&acc);
        if (atomic_load(&acc.failures) == 0) {
            NCL_CHECK_OK(s);
            done = 1;
        }
        if (s == NCL_OK) {
            const NclArray *r = given ? given : res;
            const double want = which == FI_ALIAS ? 19 : 1 + 4 + 0 + 4; /* element (0, 0) */
            ck_assert_msg(ncl_test_get_d(r, 0) == want, "case %d: %g", which, ncl_test_get_d(r, 0));
        } else {
            ck_assert_msg(s == NCL_ERR_NO_MEMORY, "case %d, allocation %ld: %s (%s)", which, k,
                          NclStatusString(s), NclLastError());
            ck_assert_msg(strstr(NclLastError(), "NclLinalg") != NULL, "message %s", NclLastError());
            ck_assert_ptr_eq(res, given);
            if (given) ck_assert_msg(ncl_test_hash(given) == h, "case %d: output written", which);
            failed_some = 1;
        }
        if (!given) NclArrayRelease(res);
        NclArrayRelease(given);
        NclArrayRelease(a);
        NclArrayRelease(a0);
        NclArrayRelease(b);
        NCL_CHECK_NO_LEAK(&acc);
    }
    ck_assert_msg(done, "case %d: still failing after 32 allocations", which);
    ck_assert_msg(failed_some, "case %d: never allocated through the handler", which);
}
END_TEST

/* ---- level 2 --------------------------------------------------------------------------------- */

typedef struct spy {
    NclKernelNode node;
    int calls, bad_ctx;
    int64_t m, n, k, count;
    int replace;
} spy;

/* Replaces every product by 42 (replace), or records the documented
   context and passes the call on. */
static NclStatus spy_kernel(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                            int64_t count, const int64_t *steps)
{
    spy *s = (spy *)self;
    s->calls++;
    const NclLinalgAux *x = (const NclLinalgAux *)ctx->aux;
    if (ctx->subsystem != NCL_SUBSYSTEM_LINALG || ctx->nin != 2 || ctx->nout != 1 || x == NULL ||
        ctx->signature == NULL || ctx->signature[2] != NCL_FLOAT64)
        s->bad_ctx++;
    s->m = x->m;
    s->n = x->n;
    s->k = x->k;
    s->count += count;
    if (!s->replace) return NclKernelNext(self, ctx, args, count, steps);
    for (int64_t i = 0; i < count; i++)
        for (int64_t r = 0; r < x->m; r++)
            for (int64_t c = 0; c < x->n; c++) {
                const double v = 42;
                memcpy(args[2] + i * steps[2] + r * x->c_rs + c * x->c_cs, &v, sizeof v);
            }
    return NCL_OK;
}

START_TEST(t_kernel_hook)
{
    const NclDType f64[3] = {NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64};
    /* every dtype has a chain per op */
    for (int t = 0; t < NCL_NTYPES; t++) {
        const NclDType sig[3] = {(NclDType)t, (NclDType)t, (NclDType)t};
        for (int op = 0; op < NCL_LINALG_NOPS; op++) {
            int hooked = 1;
            NCL_CHECK_OK(NclKernelHooked(NCL_SUBSYSTEM_LINALG, op, sig, &hooked));
            ck_assert_int_eq(hooked, 0);
        }
    }
    const NclDType mixed[3] = {NCL_FLOAT64, NCL_FLOAT32, NCL_FLOAT64};
    spy s;
    memset(&s, 0, sizeof s);
    s.node.fn = spy_kernel;
    s.node.name = "spy";
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_LINALG, NCL_MATMUL, mixed, &s.node.list),
                     NCL_ERR_DTYPE);

    /* a hook that replaces the kernel: stacked (3, 2, 4) @ (4, 5) */
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 3, NCL_DIMS(3, 2, 4), 1);
    NclArray *b = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(4, 5), 1);
    s.replace = 1;
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_LINALG, NCL_MATMUL, f64, &s.node.list));
    int hooked = 0;
    NCL_CHECK_OK(NclKernelHooked(NCL_SUBSYSTEM_LINALG, NCL_MATMUL, f64, &hooked));
    ck_assert_int_eq(hooked, 1);
    NclArray *r = NULL;
    NCL_CHECK_OK(NclLinalg(NCL_MATMUL, a, b, &r, NULL));
    ck_assert_int_eq(s.bad_ctx, 0);
    ck_assert(s.m == 2 && s.n == 5 && s.k == 4 && s.count == 3);
    for (int i = 0; i < 30; i++) ck_assert(ncl_test_get_d(r, i) == 42);
    NclArrayRelease(r);
    /* dot's chain is its own */
    r = NULL;
    NclArray *ones = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(5), 1);
    NCL_CHECK_OK(NclLinalg(NCL_DOT, b, ones, &r, NULL));
    ck_assert(ncl_test_get_d(r, 0) == 5);
    NclArrayRelease(r);
    NclArrayRelease(ones);
    NCL_CHECK_OK(NclKernelUnhook(&s.node.list));

    /* a hook that wraps it */
    memset(&s, 0, sizeof s);
    s.node.fn = spy_kernel;
    s.node.name = "spy";
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_LINALG, NCL_MATMUL, f64, &s.node.list));
    r = NULL;
    NCL_CHECK_OK(NclLinalg(NCL_MATMUL, a, b, &r, NULL));
    for (int i = 0; i < 30; i++) ck_assert(ncl_test_get_d(r, i) == 4);
    ck_assert_int_eq(s.calls, 1);
    NclArrayRelease(r);
    NCL_CHECK_OK(NclKernelUnhook(&s.node.list));
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

START_TEST(t_kernel_run)
{
    const NclDType f64[3] = {NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64};
    double x[6] = {1, 9, 2, 9, 3, 9}, y[3] = {4, 5, 6}, out = -1;
    char *args[3] = {(char *)x, (char *)y, (char *)&out};
    const int64_t steps[3] = {16, 8, 0};
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_LINALG, NCL_DOT, f64, args, 3, steps));
    ck_assert(out == 32);
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_LINALG, NCL_MATMUL, f64, args, 0, steps));
    ck_assert(out == 0);
    const NclDType i16[3] = {NCL_INT16, NCL_INT16, NCL_INT16};
    int16_t p[2] = {300, 300}, q[2] = {300, 300}, o16 = 0;
    char *iargs[3] = {(char *)p, (char *)q, (char *)&o16};
    const int64_t isteps[3] = {2, 2, 0};
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_LINALG, NCL_DOT, i16, iargs, 2, isteps));
    ck_assert_int_eq(o16, (int16_t)(uint16_t)(180000u & 0xffffu));
    /* the output inside an input is refused */
    char *bad[3] = {(char *)x, (char *)y, (char *)&x[2]};
    NCL_CHECK_STATUS(NclKernelRun(NCL_SUBSYSTEM_LINALG, NCL_DOT, f64, bad, 3, steps),
                     NCL_ERR_INVALID_ARGUMENT);
    ck_assert(x[2] == 2);
}
END_TEST

static Suite *linalg_suite(void)
{
    Suite *s = suite_create("linalg");
    TCase *tc = ncl_test_tcase(s, "values");
    tcase_add_loop_test(tc, t_exact_all, 0, NCL_NTYPES);
    tcase_add_test(tc, t_wraparound);
    tcase_add_test(tc, t_nan_inf);
    tcase_add_test(tc, t_large);
    tc = ncl_test_tcase(s, "shapes");
    tcase_add_test(tc, t_matmul_shapes);
    tcase_add_test(tc, t_dot_shapes);
    tcase_add_test(tc, t_layouts);
    tcase_add_test(tc, t_dtype_and_out);
    tc = ncl_test_tcase(s, "refusals");
    tcase_add_test(tc, t_refusals);
    tc = ncl_test_tcase(s, "memory");
    tcase_add_loop_test(tc, t_fault_injection, 0, FI_COUNT);
    tc = ncl_test_tcase(s, "kernels");
    tcase_add_test(tc, t_kernel_hook);
    tcase_add_test(tc, t_kernel_run);
    return s;
}

NCL_TEST_MAIN(linalg_suite)
