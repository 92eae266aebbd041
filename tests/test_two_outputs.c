/*
 * test_two_outputs.c: the ops of two outputs (frexp, modf, divmod) and the
 * call shape they use: NclOpOutputs, NclUnaryN and NclBinaryN with `out`
 * pointing to two slots, the one-slot entries refusing them, the
 * level-1 chain passing the two slots to hooks, the level-2 chains of
 * nin + 2 dtypes, provided and allocated outputs, casts, masks, overlap,
 * threads, and failures that leave every slot as it was.
 *
 * The values are NumPy 1.24's (edge cases pinned here; random data and
 * every dtype pair are tests/diff/diff_two_outputs.py's job).
 */
#include <float.h>
#include <stdatomic.h>
#include "ncl_test.h"

/* ---- the number of outputs ----------------------------------------------------- */

START_TEST(t_op_outputs)
{
    for (int s = 0; s < NCL_SUBSYSTEM_COUNT; s++) {
        ck_assert_int_eq(NclOpOutputs((NclSubsystem)s, -1), 0);
        ck_assert_int_eq(NclOpOutputs((NclSubsystem)s, 1 << 20), 0);
    }
    ck_assert_int_eq(NclOpOutputs(NCL_SUBSYSTEM_COUNT, 0), 0);
    for (int op = 0; op < NCL_UNARY_NOPS; op++)
        ck_assert_int_eq(NclOpOutputs(NCL_SUBSYSTEM_UNARY, op),
                         op == NCL_FREXP || op == NCL_MODF ? 2 : 1);
    for (int op = 0; op < NCL_BINARY_NOPS; op++)
        ck_assert_int_eq(NclOpOutputs(NCL_SUBSYSTEM_BINARY, op), op == NCL_DIVMOD ? 2 : 1);
    for (int op = 0; op < NCL_COMPARE_NOPS; op++)
        ck_assert_int_eq(NclOpOutputs(NCL_SUBSYSTEM_COMPARE, op), 1);
    for (int op = 0; op < NCL_REDUCE_NOPS; op++)
        ck_assert_int_eq(NclOpOutputs(NCL_SUBSYSTEM_REDUCE, op), 1);
    for (int op = 0; op < NCL_SORT_NOPS; op++)
        ck_assert_int_eq(NclOpOutputs(NCL_SUBSYSTEM_SORT, op),
                         op == NCL_UNIQUE_ALL                                   ? 4
                         : op == NCL_UNIQUE_COUNTS || op == NCL_UNIQUE_INVERSE ? 2
                                                                                : 1);
    for (int op = 0; op < NCL_MASK_NOPS; op++)
        ck_assert_int_eq(NclOpOutputs(NCL_SUBSYSTEM_MASK, op), 1);
}
END_TEST

/* The one-slot entries refuse an op of two outputs before any hook could
   read a second slot; the n-slot entries refuse an nout that is not the
   op's. Nothing is written and *out is left alone. */
START_TEST(t_slot_count_refused)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), 1.5, -2.0, 8.0);
    NclArray *one = NULL;
    NCL_CHECK_STATUS(NclUnary(NCL_FREXP, a, &one, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("NclUnaryN");
    ck_assert_ptr_null(one);
    NCL_CHECK_STATUS(NclUnary(NCL_MODF, a, &one, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclBinary(NCL_DIVMOD, a, a, &one, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("NclBinaryN");
    ck_assert_ptr_null(one);

    NclArray *two[2] = {NULL, NULL};
    NCL_CHECK_STATUS(NclUnaryN(NCL_FREXP, a, 1, two, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("nout is 1");
    NCL_CHECK_STATUS(NclUnaryN(NCL_FREXP, a, 3, two, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclUnaryN(NCL_SQRT, a, 2, two, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclBinaryN(NCL_ADD, a, a, 2, two, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclBinaryN(NCL_DIVMOD, a, a, 0, two, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclUnaryN((NclUnaryOp)-1, a, 1, two, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclBinaryN((NclBinaryOp)NCL_BINARY_NOPS, a, a, 1, two, NULL),
                     NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("unknown op");
    NCL_CHECK_STATUS(NclUnaryN(NCL_FREXP, a, 2, NULL, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclUnaryN(NCL_FREXP, NULL, 2, two, NULL), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(two[0]);
    ck_assert_ptr_null(two[1]);

    /* one-output ops through the n-slot entries */
    NCL_CHECK_OK(NclUnaryN(NCL_SQRT, a, 1, two, NULL));
    ck_assert(ncl_test_get_d(two[0], 2) == sqrt(8.0));
    ck_assert_ptr_null(two[1]);
    NclArrayRelease(two[0]);
    two[0] = NULL;
    NCL_CHECK_OK(NclBinaryN(NCL_ADD, a, a, 1, two, NULL));
    ck_assert(ncl_test_get_d(two[0], 1) == -4.0);
    NclArrayRelease(two[0]);
    NclArrayRelease(a);
}
END_TEST

/* ---- values ------------------------------------------------------------------------ */

static int same_double(double got, double want)
{
    return isnan(want) ? isnan(got) : got == want && !signbit(got) == !signbit(want);
}

/* frexp and modf on float64 and float32 edge values, every element
   checked against NumPy's pair; allocated outputs of NumPy's dtypes. */
START_TEST(t_frexp_modf_values)
{
    const NclDType t = _i ? NCL_FLOAT32 : NCL_FLOAT64;
    const double den = _i ? FLT_TRUE_MIN : DBL_TRUE_MIN;
    const int den_e = _i ? -148 : -1073;
    const double x[] = {INFINITY, -INFINITY, NAN, 0.0, -0.0, -3.0, 0.75, 1024.0, den, -2.5};
    const double fm[] = {INFINITY, -INFINITY, NAN, 0.0, -0.0, -0.75, 0.75, 0.5, 0.5, -0.625};
    const int fe[] = {0, 0, 0, 0, 0, 2, 0, 11, den_e, 2};
    const double mf[] = {0.0, -0.0, NAN, 0.0, -0.0, -0.0, 0.75, 0.0, den, -0.5};
    const double mi[] = {INFINITY, -INFINITY, NAN, 0.0, -0.0, -3.0, 0.0, 1024.0, 0.0, -2.0};
    const int n = (int)(sizeof x / sizeof x[0]);
    NclArray *a = ncl_test_new(t, 1, NCL_DIMS(n));
    for (int i = 0; i < n; i++) ncl_test_set_d(a, i, x[i]);

    NclArray *o[2] = {NULL, NULL};
    NCL_CHECK_OK(NclUnaryN(NCL_FREXP, a, 2, o, NULL));
    ck_assert_int_eq(NclGetFPErrors(), 0);
    ck_assert_int_eq(NclArrayDType(o[0]), t);
    ck_assert_int_eq(NclArrayDType(o[1]), NCL_INT32);
    for (int i = 0; i < n; i++) {
        ck_assert_msg(same_double(ncl_test_get_d(o[0], i), fm[i]) &&
                          ncl_test_get_i(o[1], i) == fe[i],
                      "frexp(%s %a) = (%a, %lld), want (%a, %d)", NclDTypeName(t), x[i],
                      ncl_test_get_d(o[0], i), (long long)ncl_test_get_i(o[1], i), fm[i], fe[i]);
    }
    NclArrayRelease(o[0]);
    NclArrayRelease(o[1]);

    o[0] = o[1] = NULL;
    NCL_CHECK_OK(NclUnaryN(NCL_MODF, a, 2, o, NULL));
    ck_assert_int_eq(NclGetFPErrors(), 0);
    ck_assert_int_eq(NclArrayDType(o[1]), t);
    for (int i = 0; i < n; i++) {
        ck_assert_msg(same_double(ncl_test_get_d(o[0], i), mf[i]) &&
                          same_double(ncl_test_get_d(o[1], i), mi[i]),
                      "modf(%s %a) = (%a, %a), want (%a, %a)", NclDTypeName(t), x[i],
                      ncl_test_get_d(o[0], i), ncl_test_get_d(o[1], i), mf[i], mi[i]);
    }
    NclArrayRelease(o[0]);
    NclArrayRelease(o[1]);
    NclArrayRelease(a);
}
END_TEST

/* divmod: NumPy's quotient and remainder with the union of their flags. */
typedef struct { NclDType t; double a, b, q, r; int flags; } divmod_case;
static const divmod_case divmod_cases[] = {
    {NCL_FLOAT64, 1.0, 0.0, INFINITY, NAN, NCL_FPE_DIVIDE | NCL_FPE_INVALID},
    {NCL_FLOAT64, 0.0, 0.0, NAN, NAN, NCL_FPE_INVALID},
    {NCL_FLOAT64, 1e308, 1e-308, INFINITY, 0x0.28401cf53d61p-1022, NCL_FPE_OVERFLOW | NCL_FPE_INVALID},
    {NCL_FLOAT64, INFINITY, 1.0, NAN, NAN, NCL_FPE_INVALID},
    {NCL_FLOAT64, 1.0, INFINITY, 0.0, 1.0, 0},
    {NCL_FLOAT64, -1.0, INFINITY, -1.0, INFINITY, 0},
    {NCL_FLOAT64, -7.5, 2.0, -4.0, 0.5, 0},
    {NCL_FLOAT64, 7.5, -2.0, -4.0, -0.5, 0},
    {NCL_FLOAT64, -0.0, 3.0, -0.0, 0.0, 0},
    {NCL_FLOAT32, 5.0, -3.0, -2.0, -1.0, 0},
    {NCL_INT8, -128, -1, -128, 0, NCL_FPE_OVERFLOW},
    {NCL_INT8, 1, 0, 0, 0, NCL_FPE_DIVIDE},
    {NCL_INT8, -7, 2, -4, 1, 0},
    {NCL_INT64, 7, -2, -4, -1, 0},
    {NCL_UINT16, 65535, 256, 255, 255, 0},
};
#define NDIVMOD ((int)(sizeof divmod_cases / sizeof divmod_cases[0]))

START_TEST(t_divmod_values)
{
    const divmod_case *c = &divmod_cases[_i];
    const int64_t n = 1031; /* a vector body and a tail, in every layout */
    NclArray *a = ncl_test_new(c->t, 1, NCL_DIMS(n)), *b = ncl_test_new(c->t, 1, NCL_DIMS(n));
    for (int64_t i = 0; i < n; i++) {
        ncl_test_set_d(a, i, c->a);
        ncl_test_set_d(b, i, c->b);
    }
    for (int l = 0; l < NCL_TEST_NLAYOUTS; l++) {
        NclArray *la = ncl_test_layout_of(a, (ncl_test_layout)l);
        NclArray *lb = ncl_test_layout_of(b, (ncl_test_layout)l);
        NclArray *o[2] = {NULL, NULL};
        NCL_CHECK_OK(NclBinaryN(NCL_DIVMOD, la, lb, 2, o, NULL));
        ck_assert_msg(NclGetFPErrors() == c->flags, "divmod(%s %g, %g) %s: flags %#x, want %#x",
                      NclDTypeName(c->t), c->a, c->b, ncl_test_layout_name((ncl_test_layout)l),
                      NclGetFPErrors(), c->flags);
        ck_assert_int_eq(NclArrayDType(o[0]), c->t);
        ck_assert_int_eq(NclArrayDType(o[1]), c->t);
        for (int64_t i = 0; i < n; i++)
            ck_assert_msg(same_double(ncl_test_get_d(o[0], i), c->q) &&
                              same_double(ncl_test_get_d(o[1], i), c->r),
                          "divmod(%s %g, %g)[%lld] %s = (%a, %a), want (%a, %a)",
                          NclDTypeName(c->t), c->a, c->b, (long long)i,
                          ncl_test_layout_name((ncl_test_layout)l), ncl_test_get_d(o[0], i),
                          ncl_test_get_d(o[1], i), c->q, c->r);
        NclArrayRelease(o[0]);
        NclArrayRelease(o[1]);
        NclArrayRelease(la);
        NclArrayRelease(lb);
    }
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

/* Type resolution: NumPy's loops (integers go to float for frexp and modf,
   bool to int8 for divmod) and NCL_ERR_DTYPE where it has none. */
START_TEST(t_resolution)
{
    NclArray *o[2] = {NULL, NULL};
    NclArray *i8 = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(2), 3, -4);
    NclArray *i16 = ncl_test_arr(NCL_INT16, 1, NCL_DIMS(2), 3, -4);
    NclArray *bl = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(2), 1, 1);
    NclArray *u64 = ncl_test_arr(NCL_UINT64, 1, NCL_DIMS(2), 3, 4);
    NclArray *i64 = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(2), 3, -4);
    NCL_CHECK_OK(NclUnaryN(NCL_FREXP, i8, 2, o, NULL));
    ck_assert_int_eq(NclArrayDType(o[0]), NCL_FLOAT32); /* NumPy: float16 */
    ck_assert_int_eq(NclArrayDType(o[1]), NCL_INT32);
    ck_assert(ncl_test_get_d(o[0], 1) == -0.5 && ncl_test_get_i(o[1], 1) == 3);
    NclArrayRelease(o[0]);
    NclArrayRelease(o[1]);
    o[0] = o[1] = NULL;
    NCL_CHECK_OK(NclUnaryN(NCL_MODF, i64, 2, o, NULL));
    ck_assert_int_eq(NclArrayDType(o[0]), NCL_FLOAT64);
    ck_assert_int_eq(NclArrayDType(o[1]), NCL_FLOAT64);
    NclArrayRelease(o[0]);
    NclArrayRelease(o[1]);
    o[0] = o[1] = NULL;
    NCL_CHECK_OK(NclBinaryN(NCL_DIVMOD, bl, bl, 2, o, NULL));
    ck_assert_int_eq(NclArrayDType(o[0]), NCL_INT8);
    ck_assert(ncl_test_get_i(o[0], 0) == 1 && ncl_test_get_i(o[1], 0) == 0);
    NclArrayRelease(o[0]);
    NclArrayRelease(o[1]);
    o[0] = o[1] = NULL;
    NCL_CHECK_OK(NclBinaryN(NCL_DIVMOD, i8, i16, 2, o, NULL));
    ck_assert_int_eq(NclArrayDType(o[1]), NCL_INT16);
    NclArrayRelease(o[0]);
    NclArrayRelease(o[1]);
    o[0] = o[1] = NULL;
    NCL_CHECK_OK(NclBinaryN(NCL_DIVMOD, u64, i64, 2, o, NULL)); /* float64, as NumPy */
    ck_assert_int_eq(NclArrayDType(o[0]), NCL_FLOAT64);
    NclArrayRelease(o[0]);
    NclArrayRelease(o[1]);
    o[0] = o[1] = NULL;
    NCL_CHECK_STATUS(NclUnaryN(NCL_FREXP, bl, 2, o, NULL), NCL_OK);
    NclArrayRelease(o[0]);
    NclArrayRelease(o[1]);
    o[0] = o[1] = NULL;
    /* dtype= names the loop */
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = NCL_FLOAT32;
    p.casting = NCL_CASTING_SAFE;
    NCL_CHECK_STATUS(NclUnaryN(NCL_FREXP, i64, 2, o, &p), NCL_ERR_CASTING);
    p.casting = NCL_CASTING_SAME_KIND;
    NCL_CHECK_OK(NclUnaryN(NCL_FREXP, i64, 2, o, &p));
    ck_assert_int_eq(NclArrayDType(o[0]), NCL_FLOAT32);
    NclArrayRelease(o[0]);
    NclArrayRelease(o[1]);
    o[0] = o[1] = NULL;
    p.dtype = NCL_INT32;
    NCL_CHECK_STATUS(NclUnaryN(NCL_FREXP, i64, 2, o, &p), NCL_ERR_DTYPE);
    ck_assert_ptr_null(o[0]);
    ck_assert_ptr_null(o[1]);
    NclArrayRelease(i8);
    NclArrayRelease(i16);
    NclArrayRelease(bl);
    NclArrayRelease(u64);
    NclArrayRelease(i64);
}
END_TEST

/* ---- outputs ---------------------------------------------------------------------- */

/* Provided outputs in other layouts and wider dtypes (the results cast
   into them), one provided and one allocated, and an input written in
   place by one of the outputs. */
START_TEST(t_provided_outputs)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT32, 2, NCL_DIMS(2, 3), -3.0, 0.75, 1024.0, 5.5, -0.0, 6.0);
    NclArray *m = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(2, 3));
    NclArray *e0 = ncl_test_new(NCL_INT64, 2, NCL_DIMS(3, 2));
    NclArray *e = NULL;
    NCL_CHECK_OK(NclArrayTranspose(e0, NULL, &e)); /* an F-ordered (2, 3) view */
    NclArray *o[2] = {m, e};
    NCL_CHECK_OK(NclUnaryN(NCL_FREXP, a, 2, o, NULL));
    ck_assert_ptr_eq(o[0], m);
    ck_assert_ptr_eq(o[1], e);
    const double wm[] = {-0.75, 0.75, 0.5, 0.6875, -0.0, 0.75};
    const int64_t we[] = {2, 0, 11, 3, 0, 3};
    for (int i = 0; i < 6; i++) {
        ck_assert(same_double(ncl_test_get_d(m, i), wm[i]));
        ck_assert_int_eq(ncl_test_get_i(e, i), we[i]);
    }
    /* out[1] allocated beside a provided out[0] */
    NclArray *o2[2] = {m, NULL};
    NCL_CHECK_OK(NclUnaryN(NCL_MODF, a, 2, o2, NULL));
    ck_assert_ptr_eq(o2[0], m);
    ck_assert_int_eq(NclArrayDType(o2[1]), NCL_FLOAT32);
    ck_assert(ncl_test_get_d(m, 3) == 0.5 && ncl_test_get_d(o2[1], 3) == 5.0);
    NclArrayRelease(o2[1]);
    /* in place: modf's integral part over its input */
    NclArray *o3[2] = {NULL, a};
    NCL_CHECK_OK(NclUnaryN(NCL_MODF, a, 2, o3, NULL));
    ck_assert(ncl_test_get_d(o3[0], 3) == 0.5 && ncl_test_get_d(a, 3) == 5.0 &&
              ncl_test_get_d(a, 0) == -3.0 && same_double(ncl_test_get_d(o3[0], 0), -0.0));
    NclArrayRelease(o3[0]);
    /* a cast into an output that same_kind does not allow is refused */
    NclArray *i8 = ncl_test_new(NCL_UINT8, 2, NCL_DIMS(2, 3));
    NclArray *o4[2] = {NULL, i8};
    NCL_CHECK_STATUS(NclUnaryN(NCL_FREXP, a, 2, o4, NULL), NCL_ERR_CASTING);
    NCL_CHECK_MESSAGE_HAS("output 1");
    ck_assert_ptr_null(o4[0]);
    NclArrayRelease(i8);
    NclArrayRelease(e);
    NclArrayRelease(e0);
    NclArrayRelease(m);
    NclArrayRelease(a);
}
END_TEST

/* Outputs that share memory, outputs of different shapes, a read-only
   output, a foreign object in the second slot: refused with nothing
   written and both slots as they were (the allocated one released). */
START_TEST(t_bad_outputs)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(4), 1.5, 2.5, 3.5, 4.5);
    NclArray *b = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(4), 1.0, 1.0, 1.0, 1.0);
    NclArray *x = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(8), 7, 7, 7, 7, 7, 7, 7, 7);
    NclArray *lo = NULL, *hi = NULL;
    NCL_CHECK_OK(NclArraySlice(x, NCL_DIMS(0), NCL_DIMS(4), NCL_DIMS(1), &lo));
    NCL_CHECK_OK(NclArraySlice(x, NCL_DIMS(2), NCL_DIMS(6), NCL_DIMS(1), &hi));
    NclArray *o[2] = {lo, hi};
    NCL_CHECK_STATUS(NclBinaryN(NCL_DIVMOD, a, b, 2, o, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("share memory");
    o[1] = lo;
    NCL_CHECK_STATUS(NclBinaryN(NCL_DIVMOD, a, b, 2, o, NULL), NCL_ERR_INVALID_ARGUMENT);
    for (int i = 0; i < 8; i++) ck_assert(ncl_test_get_d(x, i) == 7.0);

    NclArray *short3 = ncl_test_new(NCL_FLOAT64, 1, NCL_DIMS(3));
    NclArray *o2[2] = {NULL, short3};
    NCL_CHECK_STATUS(NclBinaryN(NCL_DIVMOD, a, b, 2, o2, NULL), NCL_ERR_SHAPE);
    ck_assert_ptr_null(o2[0]);
    ck_assert_ptr_eq(o2[1], short3);
    NclArray *two4[2] = {ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(1, 4)), lo};
    NCL_CHECK_STATUS(NclBinaryN(NCL_DIVMOD, a, b, 2, two4, NULL), NCL_ERR_SHAPE);
    NCL_CHECK_MESSAGE_HAS("differ");
    NclArrayRelease(two4[0]);

    NclArray *ro = NULL;
    double ro_data[4] = {7, 7, 7, 7};
    NCL_CHECK_OK(NclFromData(NCL_FLOAT64, 1, NCL_DIMS(4), NULL, ro_data, 0, NULL, NULL, &ro));
    NclArray *o3[2] = {NULL, ro};
    NCL_CHECK_STATUS(NclUnaryN(NCL_MODF, a, 2, o3, NULL), NCL_ERR_READONLY);
    NCL_CHECK_MESSAGE_HAS("output 1");
    ck_assert_ptr_null(o3[0]);

    /* readable memory that is not an array in the second slot: the tag
       check names it */
    char junk[512];
    memset(junk, 0x5a, sizeof junk);
    NclArray *o4[2] = {NULL, (NclArray *)(void *)junk};
    NCL_CHECK_STATUS(NclUnaryN(NCL_MODF, a, 2, o4, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("out[1]");
    ck_assert_ptr_null(o4[0]);
    for (int i = 0; i < 4; i++) ck_assert(ro_data[i] == 7.0);
    for (int i = 0; i < 8; i++) ck_assert(ncl_test_get_d(x, i) == 7.0);

    NclArrayRelease(ro);
    NclArrayRelease(short3);
    NclArrayRelease(lo);
    NclArrayRelease(hi);
    NclArrayRelease(x);
    NclArrayRelease(b);
    NclArrayRelease(a);
}
END_TEST

/* A where mask writes both outputs only where it is true; allocated
   outputs are zero elsewhere. */
START_TEST(t_where)
{
    NclArray *a = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(4), 7, -7, 9, 10);
    NclArray *b = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(4), 2, 2, 0, 3);
    NclArray *w = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(4), 1, 1, 0, 1);
    NclArray *q = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(4), 99, 99, 99, 99);
    NclParams p = NCL_PARAMS_INIT;
    p.where = w;
    NclArray *o[2] = {q, NULL};
    NCL_CHECK_OK(NclBinaryN(NCL_DIVMOD, a, b, 2, o, &p));
    ck_assert_int_eq(NclGetFPErrors(), 0); /* the masked 9 / 0 is not computed */
    const int64_t wq[] = {3, -4, 99, 3}, wr[] = {1, 1, 0, 1};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(ncl_test_get_i(q, i), wq[i]);
        ck_assert_int_eq(ncl_test_get_i(o[1], i), wr[i]);
    }
    NclArrayRelease(o[1]);
    NclArrayRelease(q);
    NclArrayRelease(w);
    NclArrayRelease(b);
    NclArrayRelease(a);
}
END_TEST

/* ---- the chains -------------------------------------------------------------------- */

typedef struct {
    NclKernelNode node;
    atomic_int calls, bad;
} spy_node;

static NclStatus spy_kernel(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                            int64_t n, const int64_t *steps)
{
    spy_node *s = NCL_CONTAINER_OF(self, spy_node, node);
    atomic_fetch_add(&s->calls, 1);
    if (ctx->nin != 1 || ctx->nout != 2 || ctx->signature[2] != NCL_INT32)
        atomic_fetch_add(&s->bad, 1);
    return NclKernelNext(self, ctx, args, n, steps);
}

/* frexp's loop is a level-2 chain of three dtypes that a hook joins; it
   runs split over the pool with the same bits as on one thread, and
   NclKernelRun runs it on caller-made loops. */
START_TEST(t_kernel_chain_and_threads)
{
    static const NclDType sig[3] = {NCL_FLOAT64, NCL_FLOAT64, NCL_INT32};
    spy_node s;
    memset(&s, 0, sizeof s);
    s.node.fn = spy_kernel;
    s.node.name = "frexp_spy";
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_UNARY, NCL_FREXP, sig, &s.node.list));
    const int64_t n = 200003;
    NclArray *a = ncl_test_new(NCL_FLOAT64, 1, NCL_DIMS(n));
    uint64_t seed = 7;
    ncl_test_fill_random(a, &seed, 1e6);
    NclArray *one[2] = {NULL, NULL}, *many[2] = {NULL, NULL};
    NCL_CHECK_OK(NclSetNumThreads(1));
    NCL_CHECK_OK(NclUnaryN(NCL_FREXP, a, 2, one, NULL));
    NCL_CHECK_OK(NclSetNumThreads(2));
    NCL_CHECK_OK(NclSetThreadingThreshold(1000));
    NCL_CHECK_OK(NclUnaryN(NCL_FREXP, a, 2, many, NULL));
    NCL_CHECK_OK(NclKernelUnhook(&s.node.list));
    ck_assert_int_gt(atomic_load(&s.calls), 1);
    ck_assert_int_eq(atomic_load(&s.bad), 0);
    NCL_CHECK_ARRAYS_EQUAL(many[0], one[0]);
    NCL_CHECK_ARRAYS_EQUAL(many[1], one[1]);
    for (int64_t i = 0; i < n; i += 9973) {
        int e;
        const double m = frexp(ncl_test_get_d(a, i), &e);
        ck_assert(ncl_test_get_d(one[0], i) == m && ncl_test_get_i(one[1], i) == e);
    }

    /* a loop call of the same chain */
    double in[3] = {8.0, -0.375, 1.0}, mant[3];
    int32_t ex[3];
    char *args[3] = {(char *)in, (char *)mant, (char *)ex};
    const int64_t steps[3] = {8, 8, 4};
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_UNARY, NCL_FREXP, sig, args, 3, steps));
    ck_assert(mant[0] == 0.5 && ex[0] == 4 && mant[1] == -0.75 && ex[1] == -1 && ex[2] == 1);
    /* its outputs may not overlap each other */
    char *bad[3] = {(char *)in, (char *)mant, (char *)mant};
    NCL_CHECK_STATUS(NclKernelRun(NCL_SUBSYSTEM_UNARY, NCL_FREXP, sig, bad, 3, steps),
                     NCL_ERR_INVALID_ARGUMENT);
    /* a two-dtype signature names no frexp chain */
    NCL_CHECK_STATUS(NclKernelRun(NCL_SUBSYSTEM_UNARY, NCL_FREXP, sig, args, 0, steps), NCL_OK);
    for (int k = 0; k < 2; k++) {
        NclArrayRelease(one[k]);
        NclArrayRelease(many[k]);
    }
    NclArrayRelease(a);
}
END_TEST

/* A level-1 hook sees the two slots at out: this one fills them itself
   for divmod of one element and passes everything else on. */
static atomic_int hook_seen;
static NclStatus divmod_hook(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                             NclArray **out, const NclParams *params)
{
    if (op == NCL_DIVMOD && NclOpOutputs(NCL_SUBSYSTEM_BINARY, op) == 2) {
        atomic_fetch_add(&hook_seen, 1);
        NclStatus st = NclBinaryNext(self, op, a, b, out, params);
        if (st == NCL_OK && (out[0] == NULL || out[1] == NULL)) return NCL_ERR_HOOK;
        return st;
    }
    return NclBinaryNext(self, op, a, b, out, params);
}

START_TEST(t_level1_hook)
{
    NclHook h;
    memset(&h, 0, sizeof h);
    h.name = "divmod_hook";
    h.fn.binary = divmod_hook;
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_BINARY, &h.list));
    NclArray *a = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(2), 17, -17);
    NclArray *b = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(1), 5);
    NclArray *o[2] = {NULL, NULL};
    NCL_CHECK_OK(NclBinaryN(NCL_DIVMOD, a, b, 2, o, NULL));
    NclArray *s = NULL;
    NCL_CHECK_OK(NclBinary(NCL_ADD, a, b, &s, NULL));
    NCL_CHECK_OK(NclApiUnhook(&h.list));
    ck_assert_int_eq(atomic_load(&hook_seen), 1);
    ck_assert(ncl_test_get_i(o[0], 0) == 3 && ncl_test_get_i(o[1], 0) == 2);
    ck_assert(ncl_test_get_i(o[0], 1) == -4 && ncl_test_get_i(o[1], 1) == 3);
    NclArrayRelease(s);
    NclArrayRelease(o[0]);
    NclArrayRelease(o[1]);
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

static Suite *two_outputs_suite(void)
{
    Suite *s = suite_create("two_outputs");
    TCase *tc = ncl_test_tcase(s, "contract");
    tcase_add_test(tc, t_op_outputs);
    tcase_add_test(tc, t_slot_count_refused);
    tc = ncl_test_tcase(s, "values");
    tcase_add_loop_test(tc, t_frexp_modf_values, 0, 2);
    tcase_add_loop_test(tc, t_divmod_values, 0, NDIVMOD);
    tcase_add_test(tc, t_resolution);
    tc = ncl_test_tcase(s, "outputs");
    tcase_add_test(tc, t_provided_outputs);
    tcase_add_test(tc, t_bad_outputs);
    tcase_add_test(tc, t_where);
    tc = ncl_test_tcase(s, "chains");
    tcase_add_test(tc, t_kernel_chain_and_threads);
    tcase_add_test(tc, t_level1_hook);
    return s;
}

NCL_TEST_MAIN(two_outputs_suite)
