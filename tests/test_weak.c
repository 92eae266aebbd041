/*
 * test_weak.c: weak scalars (NclWeakScalar), typed as NumPy 2 types Python
 * scalars (NEP 50): what they are, the dtypes Binary and Ternary calls
 * give beside arrays of each kind, the refusal of an integer the loop
 * cannot hold (nothing written), the casting rule they are exempt from,
 * and the calls where weakness changes nothing (comparisons, logical ops,
 * Unary, all-weak operands). Random values over every op and dtype
 * against NumPy's weak promotion are tests/diff/diff_weak.py's job.
 */
#include "ncl_test.h"

static NclArray *weak_i(int64_t v)
{
    NclArray *a = NULL;
    NCL_CHECK_OK(NclWeakScalar(NCL_INT64, &v, &a));
    return a;
}

static NclArray *weak_u(uint64_t v)
{
    NclArray *a = NULL;
    NCL_CHECK_OK(NclWeakScalar(NCL_UINT64, &v, &a));
    return a;
}

static NclArray *weak_f(double v)
{
    NclArray *a = NULL;
    NCL_CHECK_OK(NclWeakScalar(NCL_FLOAT64, &v, &a));
    return a;
}

START_TEST(t_make)
{
    int64_t v = 7;
    NclArray *a = NULL;
    NCL_CHECK_STATUS(NclWeakScalar(NCL_INT64, NULL, &a), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclWeakScalar(NCL_INT64, &v, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclWeakScalar(NCL_INT8, &v, &a), NCL_ERR_DTYPE);
    NCL_CHECK_STATUS(NclWeakScalar(NCL_FLOAT32, &v, &a), NCL_ERR_DTYPE);
    NCL_CHECK_STATUS(NclWeakScalar(NCL_BOOL, &v, &a), NCL_ERR_DTYPE);
    NCL_CHECK_STATUS(NclWeakScalar((NclDType)99, &v, &a), NCL_ERR_DTYPE);
    ck_assert_ptr_null(a);
    a = weak_i(7);
    ck_assert_int_eq(NclArrayNDim(a), 0);
    ck_assert_int_eq(NclArrayDType(a), NCL_INT64);
    ck_assert(NclArrayFlags(a) & NCL_ARRAY_WEAK);
    ck_assert(!(NclArrayFlags(a) & NCL_ARRAY_WRITEABLE));
    ck_assert_int_eq(ncl_test_get_i(a, 0), 7);
    /* a view of it is an ordinary array */
    NclArray *v1 = NULL;
    NCL_CHECK_OK(NclArrayReshape(a, 1, NCL_DIMS(1), &v1));
    ck_assert(!(NclArrayFlags(v1) & NCL_ARRAY_WEAK));
    /* it is not an output */
    NclArray *x = ncl_test_arr(NCL_INT64, 0, NULL, 1);
    NclArray *o = a;
    NCL_CHECK_STATUS(NclBinary(NCL_ADD, x, x, &o, NULL), NCL_ERR_READONLY);
    ck_assert_int_eq(ncl_test_get_i(a, 0), 7);
    NclArrayRelease(x);
    NclArrayRelease(v1);
    NclArrayRelease(a);
}
END_TEST

/* Beside arrays: (array dtype, scalar, the result dtype; NCL_NTYPES: refused). */
typedef struct { NclDType t; int kind; double v; NclDType want; } promo_case;
enum { WI, WU, WF };
static const promo_case promo[] = {
    {NCL_INT8, WI, 3, NCL_INT8},          {NCL_INT8, WI, -128, NCL_INT8},
    {NCL_INT8, WI, 1000, NCL_NTYPES},     {NCL_INT8, WI, -129, NCL_NTYPES},
    {NCL_UINT8, WI, 255, NCL_UINT8},      {NCL_UINT8, WI, -1, NCL_NTYPES},
    {NCL_INT16, WF, 2.5, NCL_FLOAT64},    {NCL_FLOAT32, WF, 2.5, NCL_FLOAT32},
    {NCL_FLOAT32, WI, 1000, NCL_FLOAT32}, {NCL_FLOAT32, WU, 0x1p63, NCL_FLOAT32},
    {NCL_BOOL, WI, 3, NCL_INT64},         {NCL_BOOL, WF, 0.5, NCL_FLOAT64},
    {NCL_BOOL, WU, 0x1p63, NCL_NTYPES},   {NCL_UINT64, WU, 0x1p63, NCL_UINT64},
    {NCL_INT64, WU, 0x1p63, NCL_NTYPES},  {NCL_UINT32, WI, 4294967295.0, NCL_UINT32},
};
#define NPROMO ((int)(sizeof promo / sizeof promo[0]))

static NclArray *weak_of(const promo_case *c)
{
    return c->kind == WI ? weak_i((int64_t)c->v) : c->kind == WU ? weak_u((uint64_t)c->v)
                                                                  : weak_f(c->v);
}

/* add on either side, into an allocated and into a provided output: the
   dtype, one value, and for a refusal NCL_ERR_CASTING with the value in
   the message and the provided output unwritten. */
START_TEST(t_promotion)
{
    const promo_case *c = &promo[_i];
    NclArray *a = ncl_test_arr(c->t, 1, NCL_DIMS(3), 1, 0, 1);
    NclArray *w = weak_of(c);
    for (int side = 0; side < 2; side++) {
        NclArray *out = NULL;
        const NclStatus st = side ? NclBinary(NCL_ADD, w, a, &out, NULL)
                                  : NclBinary(NCL_ADD, a, w, &out, NULL);
        if (c->want == NCL_NTYPES) {
            ck_assert_msg(st == NCL_ERR_CASTING && out == NULL, "%s + weak %g: status %d",
                          NclDTypeName(c->t), c->v, (int)st);
            NCL_CHECK_MESSAGE_HAS("out of bounds");
            NclArray *given = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), 9, 9, 9);
            out = given;
            NCL_CHECK_STATUS(NclBinary(NCL_ADD, a, w, &out, NULL), NCL_ERR_CASTING);
            ck_assert_ptr_eq(out, given);
            for (int i = 0; i < 3; i++) ck_assert(ncl_test_get_d(given, i) == 9.0);
            NclArrayRelease(given);
            continue;
        }
        ck_assert_msg(st == NCL_OK, "%s + weak %g: %s", NclDTypeName(c->t), c->v, NclLastError());
        ck_assert_msg(NclArrayDType(out) == c->want, "%s + weak %g gave %s, want %s",
                      NclDTypeName(c->t), c->v, NclDTypeName(NclArrayDType(out)),
                      NclDTypeName(c->want));
        NclArrayRelease(out);
    }
    NclArrayRelease(w);
    NclArrayRelease(a);
}
END_TEST

/* The values: int8 arithmetic wraps as int8's does, float32 rounds as
   float32's does. */
START_TEST(t_values)
{
    NclArray *a = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(3), 100, -100, 5);
    NclArray *w = weak_i(100), *out = NULL;
    NCL_CHECK_OK(NclBinary(NCL_ADD, a, w, &out, NULL));
    ck_assert_int_eq(ncl_test_get_i(out, 0), -56); /* 200 wraps in int8 */
    ck_assert_int_eq(ncl_test_get_i(out, 1), 0);
    NclArrayRelease(out);
    out = NULL;
    NclArray *f = ncl_test_arr(NCL_FLOAT32, 1, NCL_DIMS(1), 1.0);
    NclArray *third = weak_f(1.0 / 3.0);
    NCL_CHECK_OK(NclBinary(NCL_MULTIPLY, f, third, &out, NULL));
    ck_assert(ncl_test_get_d(out, 0) == (double)(float)(1.0 / 3.0)); /* the scalar in float32 */
    NclArrayRelease(out);
    out = NULL;
    /* the casting rule does not apply to the scalar: int64 -> int8 is not safe */
    NclParams p = NCL_PARAMS_INIT;
    p.casting = NCL_CASTING_SAFE;
    NclArray *one = weak_i(1);
    NCL_CHECK_OK(NclBinary(NCL_SUBTRACT, a, one, &out, &p));
    ck_assert_int_eq(NclArrayDType(out), NCL_INT8);
    ck_assert_int_eq(ncl_test_get_i(out, 2), 4);
    NclArrayRelease(out);
    out = NULL;
    /* an integer power with a weak negative exponent is refused as NumPy's */
    NclArray *neg = weak_i(-1);
    NCL_CHECK_STATUS(NclBinary(NCL_POWER, a, neg, &out, NULL), NCL_ERR_INVALID_ARGUMENT);
    /* true division of int8 by a weak integer too big for int8 is float64 */
    NclArray *big = weak_i(1000);
    NCL_CHECK_OK(NclBinary(NCL_DIVIDE, a, big, &out, NULL));
    ck_assert_int_eq(NclArrayDType(out), NCL_FLOAT64);
    ck_assert(ncl_test_get_d(out, 0) == 0.1);
    NclArrayRelease(out);
    NclArrayRelease(big);
    NclArrayRelease(neg);
    NclArrayRelease(one);
    NclArrayRelease(third);
    NclArrayRelease(f);
    NclArrayRelease(w);
    NclArrayRelease(a);
}
END_TEST

/* Where weakness changes nothing: comparisons are exact for any pair,
   logical ops read truth (256 is true beside int8), Unary and all-weak
   calls keep the scalars' own dtypes. */
START_TEST(t_unchanged)
{
    NclArray *a = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(3), -128, 0, 127);
    NclArray *big = weak_i(1000), *w256 = weak_i(256), *out = NULL;
    NCL_CHECK_OK(NclCompare(NCL_CMP_LT, a, big, &out, NULL));
    for (int i = 0; i < 3; i++) ck_assert_int_eq(ncl_test_get_i(out, i), 1);
    NclArrayRelease(out);
    out = NULL;
    NCL_CHECK_OK(NclBinary(NCL_LOGICAL_AND, a, w256, &out, NULL));
    ck_assert_int_eq(NclArrayDType(out), NCL_BOOL);
    ck_assert(ncl_test_get_i(out, 0) == 1 && ncl_test_get_i(out, 1) == 0);
    NclArrayRelease(out);
    out = NULL;
    NCL_CHECK_OK(NclUnary(NCL_NEGATIVE, big, &out, NULL));
    ck_assert_int_eq(NclArrayDType(out), NCL_INT64);
    ck_assert_int_eq(ncl_test_get_i(out, 0), -1000);
    NclArrayRelease(out);
    out = NULL;
    NclArray *half = weak_f(0.5);
    NCL_CHECK_OK(NclBinary(NCL_ADD, big, half, &out, NULL));
    ck_assert_int_eq(NclArrayDType(out), NCL_FLOAT64);
    ck_assert(ncl_test_get_d(out, 0) == 1000.5);
    NclArrayRelease(out);
    NclArrayRelease(half);
    NclArrayRelease(w256);
    NclArrayRelease(big);
    NclArrayRelease(a);
}
END_TEST

/* Ternary: where's branches and clip's bounds follow the same rule; a
   weak condition is read as truth as any condition. */
START_TEST(t_ternary)
{
    NclArray *cond = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(3), 1, 0, 1);
    NclArray *a = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(3), 1, 2, 3);
    NclArray *three = weak_i(3), *big = weak_i(1000), *half = weak_f(0.5), *out = NULL;
    NCL_CHECK_OK(NclTernary(NCL_WHERE, cond, a, three, &out, NULL));
    ck_assert_int_eq(NclArrayDType(out), NCL_INT8);
    ck_assert(ncl_test_get_i(out, 1) == 3 && ncl_test_get_i(out, 2) == 3);
    NclArrayRelease(out);
    out = NULL;
    NCL_CHECK_STATUS(NclTernary(NCL_WHERE, cond, big, a, &out, NULL), NCL_ERR_CASTING);
    ck_assert_ptr_null(out);
    NCL_CHECK_OK(NclTernary(NCL_WHERE, cond, a, half, &out, NULL));
    ck_assert_int_eq(NclArrayDType(out), NCL_FLOAT64);
    NclArrayRelease(out);
    out = NULL;
    NCL_CHECK_OK(NclTernary(NCL_WHERE, three, a, a, &out, NULL)); /* weak condition: true */
    ck_assert_int_eq(NclArrayDType(out), NCL_INT8);
    NclArrayRelease(out);
    out = NULL;
    NclArray *zero = weak_i(0);
    NCL_CHECK_OK(NclTernary(NCL_CLIP, a, zero, three, &out, NULL));
    ck_assert_int_eq(NclArrayDType(out), NCL_INT8);
    ck_assert(ncl_test_get_i(out, 0) == 1 && ncl_test_get_i(out, 2) == 3);
    NclArrayRelease(out);
    out = NULL;
    NCL_CHECK_STATUS(NclTernary(NCL_CLIP, a, zero, big, &out, NULL), NCL_ERR_CASTING);
    NclArrayRelease(zero);
    NclArrayRelease(half);
    NclArrayRelease(big);
    NclArrayRelease(three);
    NclArrayRelease(a);
    NclArrayRelease(cond);
}
END_TEST

static Suite *weak_suite(void)
{
    Suite *s = suite_create("weak");
    TCase *tc = ncl_test_tcase(s, "weak");
    tcase_add_test(tc, t_make);
    tcase_add_loop_test(tc, t_promotion, 0, NPROMO);
    tcase_add_test(tc, t_values);
    tcase_add_test(tc, t_unchanged);
    tcase_add_test(tc, t_ternary);
    return s;
}

NCL_TEST_MAIN(weak_suite)
