/*
 * test_manip.c: the Manip subsystem through NclManip: concatenate, stack,
 * repeat, tile, flip and diff, each with exact small cases over every
 * dtype (values written out here, checked against NumPy 1.24 by hand);
 * 0-size arrays; inputs in every test layout (Fortran order, sliced,
 * reversed, misaligned) giving the C layout's result; provided outputs in
 * place of an input or partially overlapping one; every refusal with its
 * status, the input it names, and the output left untouched; allocation
 * failure at every allocation; and a hook in front of the default.
 */
#include <stddef.h>
#include "ncl_test.h"

#define NDTYPES NCL_NTYPES

static NclParams params_axis(const int *axes, int naxes)
{
    NclParams p = NCL_PARAMS_INIT;
    p.axes = axes;
    p.naxes = naxes;
    return p;
}

/* Runs op and checks the result against expected (dtype and values). */
static void expect(NclManipOp op, int nin, const NclArray *const *in, const NclParams *p,
                   const NclArray *expected)
{
    NclArray *out = NULL;
    NCL_CHECK_OK(NclManip(op, nin, in, &out, p));
    NCL_CHECK_ARRAYS(out, expected, NCL_TEST_SIGNED_ZERO, 0);
    NclArrayRelease(out);
}

/* ---- exact cases ---------------------------------------------------------------- */

START_TEST(t_concatenate_exact)
{
    NclArray *a = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 2), 1, 2, 3, 4);
    NclArray *b = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(1, 2), 5, 6);
    NclArray *c = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 1), 7, 8);
    const NclArray *ab[] = {a, b}, *ac[] = {a, c};
    const int ax0 = 0, ax1 = 1, axm1 = -1;
    NclParams p = params_axis(&ax0, 1);
    NclArray *e = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(3, 2), 1, 2, 3, 4, 5, 6);
    expect(NCL_CONCATENATE, 2, ab, &p, e);
    NclArrayRelease(e);
    p = params_axis(&ax1, 1);
    e = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 3), 1, 2, 7, 3, 4, 8);
    expect(NCL_CONCATENATE, 2, ac, &p, e);
    p = params_axis(&axm1, 1);
    expect(NCL_CONCATENATE, 2, ac, &p, e);
    NclArrayRelease(e);
    /* axis NULL flattens; np.result_type(int8, float32) is float32 */
    NclArray *f = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(3), -1, 0, 1);
    NclArray *g = ncl_test_arr(NCL_FLOAT32, 2, NCL_DIMS(1, 2), 0.5, -0.0);
    NclArray *s = ncl_test_arr(NCL_INT8, 0, NULL, 9);
    const NclArray *fgs[] = {f, g, s};
    e = ncl_test_arr(NCL_FLOAT32, 1, NCL_DIMS(6), -1, 0, 1, 0.5, -0.0, 9);
    expect(NCL_CONCATENATE, 3, fgs, NULL, e);
    NclArrayRelease(e);
    /* one input: a copy */
    e = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 2), 1, 2, 3, 4);
    p = params_axis(&ax1, 1);
    expect(NCL_CONCATENATE, 1, ab, &p, e);
    NclArrayRelease(e);
    /* dtype= with casting: int32 into uint8 is refused under same_kind... */
    p = params_axis(&ax0, 1);
    p.dtype = NCL_UINT8;
    NclArray *out = NULL;
    NCL_CHECK_STATUS(NclManip(NCL_CONCATENATE, 2, ab, &out, &p), NCL_ERR_CASTING);
    NCL_CHECK_MESSAGE_HAS("input 0");
    ck_assert_ptr_null(out);
    /* ... and done under unsafe */
    p.casting = NCL_CASTING_UNSAFE;
    e = ncl_test_arr(NCL_UINT8, 2, NCL_DIMS(3, 2), 1, 2, 3, 4, 5, 6);
    expect(NCL_CONCATENATE, 2, ab, &p, e);
    NclArrayRelease(e);
    /* float64 dtype= from int32 is safe */
    p.casting = NCL_CASTING_SAFE;
    p.dtype = NCL_FLOAT64;
    e = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(3, 2), 1, 2, 3, 4, 5, 6);
    expect(NCL_CONCATENATE, 2, ab, &p, e);
    NclArrayRelease(e);
    NclArrayRelease(a);
    NclArrayRelease(b);
    NclArrayRelease(c);
    NclArrayRelease(f);
    NclArrayRelease(g);
    NclArrayRelease(s);
}
END_TEST

START_TEST(t_stack_exact)
{
    NclArray *a = ncl_test_arr(NCL_INT16, 1, NCL_DIMS(3), 1, 2, 3);
    NclArray *b = ncl_test_arr(NCL_UINT8, 1, NCL_DIMS(3), 4, 5, 6);
    const NclArray *ab[] = {a, b};
    NclArray *e = ncl_test_arr(NCL_INT16, 2, NCL_DIMS(2, 3), 1, 2, 3, 4, 5, 6);
    expect(NCL_STACK, 2, ab, NULL, e);
    const int ax0 = 0, ax1 = 1, axm1 = -1, axm2 = -2;
    NclParams p = params_axis(&ax0, 1);
    expect(NCL_STACK, 2, ab, &p, e);
    p = params_axis(&axm2, 1);
    expect(NCL_STACK, 2, ab, &p, e);
    NclArrayRelease(e);
    e = ncl_test_arr(NCL_INT16, 2, NCL_DIMS(3, 2), 1, 4, 2, 5, 3, 6);
    p = params_axis(&ax1, 1);
    expect(NCL_STACK, 2, ab, &p, e);
    p = params_axis(&axm1, 1);
    expect(NCL_STACK, 2, ab, &p, e);
    NclArrayRelease(e);
    /* 0-d inputs stack into 1-D */
    NclArray *s = ncl_test_arr(NCL_FLOAT64, 0, NULL, 2.5), *t = ncl_test_arr(NCL_FLOAT64, 0, NULL, -1);
    const NclArray *st[] = {s, t, s};
    e = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), 2.5, -1, 2.5);
    expect(NCL_STACK, 3, st, NULL, e);
    NclArrayRelease(e);
    NclArrayRelease(s);
    NclArrayRelease(t);
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

START_TEST(t_repeat_exact)
{
    NclArray *a = ncl_test_arr(NCL_INT64, 2, NCL_DIMS(2, 2), 1, 2, 3, 4);
    const NclArray *in[] = {a};
    const int64_t two = 2, counts[] = {1, 2}, zero = 0, counts0[] = {0, 3};
    NclParams p = NCL_PARAMS_INIT;
    p.repeats = &two;
    p.nrepeats = 1;
    NclArray *e = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(8), 1, 1, 2, 2, 3, 3, 4, 4);
    expect(NCL_REPEAT, 1, in, &p, e);
    NclArrayRelease(e);
    const int ax0 = 0, ax1 = 1, axm1 = -1;
    p.axes = &ax0;
    p.naxes = 1;
    e = ncl_test_arr(NCL_INT64, 2, NCL_DIMS(4, 2), 1, 2, 1, 2, 3, 4, 3, 4);
    expect(NCL_REPEAT, 1, in, &p, e);
    NclArrayRelease(e);
    p.repeats = counts;
    p.nrepeats = 2;
    e = ncl_test_arr(NCL_INT64, 2, NCL_DIMS(3, 2), 1, 2, 3, 4, 3, 4);
    expect(NCL_REPEAT, 1, in, &p, e);
    NclArrayRelease(e);
    p.axes = &ax1;
    e = ncl_test_arr(NCL_INT64, 2, NCL_DIMS(2, 3), 1, 2, 2, 3, 4, 4);
    expect(NCL_REPEAT, 1, in, &p, e);
    p.axes = &axm1;
    expect(NCL_REPEAT, 1, in, &p, e);
    NclArrayRelease(e);
    p.repeats = counts0;
    e = ncl_test_arr(NCL_INT64, 2, NCL_DIMS(2, 3), 2, 2, 2, 4, 4, 4);
    expect(NCL_REPEAT, 1, in, &p, e);
    NclArrayRelease(e);
    /* zero repeats: an empty result */
    p.repeats = &zero;
    p.nrepeats = 1;
    NclArray *out = NULL;
    NCL_CHECK_OK(NclManip(NCL_REPEAT, 1, in, &out, &p));
    ck_assert_int_eq(NclArrayNDim(out), 2);
    ck_assert_int_eq(NclArrayShape(out)[0], 2);
    ck_assert_int_eq(NclArrayShape(out)[1], 0);
    NclArrayRelease(out);
    /* flattened, one count per element */
    const int64_t four[] = {0, 1, 2, 3};
    p.axes = NULL;
    p.repeats = four;
    p.nrepeats = 4;
    e = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(6), 2, 3, 3, 4, 4, 4);
    expect(NCL_REPEAT, 1, in, &p, e);
    NclArrayRelease(e);
    /* a 0-d array, flattened */
    NclArray *s = ncl_test_arr(NCL_BOOL, 0, NULL, 1);
    const NclArray *sin[] = {s};
    const int64_t three = 3;
    p.repeats = &three;
    p.nrepeats = 1;
    e = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(3), 1, 1, 1);
    expect(NCL_REPEAT, 1, sin, &p, e);
    NclArrayRelease(e);
    NclArrayRelease(s);
    NclArrayRelease(a);
}
END_TEST

START_TEST(t_tile_exact)
{
    NclArray *a = ncl_test_arr(NCL_UINT16, 1, NCL_DIMS(2), 1, 2);
    NclArray *b = ncl_test_arr(NCL_FLOAT32, 2, NCL_DIMS(2, 2), 1, 2, 3, 4);
    const NclArray *ia[] = {a}, *ib[] = {b};
    NclParams p = NCL_PARAMS_INIT;
    const int64_t r2[] = {2}, r212[] = {2, 1, 2}, r21[] = {2, 1}, r0[] = {0};
    p.repeats = r2;
    p.nrepeats = 1;
    NclArray *e = ncl_test_arr(NCL_UINT16, 1, NCL_DIMS(4), 1, 2, 1, 2);
    expect(NCL_TILE, 1, ia, &p, e);
    NclArrayRelease(e);
    p.repeats = r212;
    p.nrepeats = 3;
    e = ncl_test_arr(NCL_UINT16, 3, NCL_DIMS(2, 1, 4), 1, 2, 1, 2, 1, 2, 1, 2);
    expect(NCL_TILE, 1, ia, &p, e);
    NclArrayRelease(e);
    /* reps shorter than ndim: prepended with 1s */
    p.repeats = r2;
    p.nrepeats = 1;
    e = ncl_test_arr(NCL_FLOAT32, 2, NCL_DIMS(2, 4), 1, 2, 1, 2, 3, 4, 3, 4);
    expect(NCL_TILE, 1, ib, &p, e);
    NclArrayRelease(e);
    p.repeats = r21;
    p.nrepeats = 2;
    e = ncl_test_arr(NCL_FLOAT32, 2, NCL_DIMS(4, 2), 1, 2, 3, 4, 1, 2, 3, 4);
    expect(NCL_TILE, 1, ib, &p, e);
    NclArrayRelease(e);
    /* reps () is a copy; reps (0,) is empty */
    p.repeats = NULL;
    p.nrepeats = 0;
    expect(NCL_TILE, 1, ib, &p, b);
    p.repeats = r0;
    p.nrepeats = 1;
    NclArray *out = NULL;
    NCL_CHECK_OK(NclManip(NCL_TILE, 1, ib, &out, &p));
    ck_assert_int_eq(NclArrayShape(out)[0], 2);
    ck_assert_int_eq(NclArrayShape(out)[1], 0);
    NclArrayRelease(out);
    /* a 0-d array gains reps' dimensions */
    NclArray *s = ncl_test_arr(NCL_INT8, 0, NULL, -7);
    const NclArray *is[] = {s};
    const int64_t r23[] = {2, 3};
    p.repeats = r23;
    p.nrepeats = 2;
    e = ncl_test_arr(NCL_INT8, 2, NCL_DIMS(2, 3), -7, -7, -7, -7, -7, -7);
    expect(NCL_TILE, 1, is, &p, e);
    NclArrayRelease(e);
    NclArrayRelease(s);
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

START_TEST(t_flip_exact)
{
    NclArray *a = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 3), 1, 2, 3, 4, 5, 6);
    const NclArray *in[] = {a};
    NclArray *e = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 3), 6, 5, 4, 3, 2, 1);
    expect(NCL_FLIP, 1, in, NULL, e);
    const int both[] = {1, 0};
    NclParams p = params_axis(both, 2);
    expect(NCL_FLIP, 1, in, &p, e);
    NclArrayRelease(e);
    const int ax0 = 0, axm1 = -1;
    p = params_axis(&ax0, 1);
    e = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 3), 4, 5, 6, 1, 2, 3);
    expect(NCL_FLIP, 1, in, &p, e);
    NclArrayRelease(e);
    p = params_axis(&axm1, 1);
    e = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 3), 3, 2, 1, 6, 5, 4);
    expect(NCL_FLIP, 1, in, &p, e);
    NclArrayRelease(e);
    /* no axes: a copy */
    p = params_axis(&ax0, 0);
    expect(NCL_FLIP, 1, in, &p, a);
    /* the result is a new array, not a view */
    NclArray *out = NULL;
    NCL_CHECK_OK(NclManip(NCL_FLIP, 1, in, &out, NULL));
    ck_assert(NclArrayFlags(out) & NCL_ARRAY_OWNDATA);
    ck_assert_int_eq(ncl_test_get_i(a, 0), 1);
    NclArrayRelease(out);
    NclArrayRelease(a);
}
END_TEST

START_TEST(t_diff_exact)
{
    NclArray *a = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(5), 1, 2, 4, 7, 0);
    const NclArray *in[] = {a};
    NclArray *e = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(4), 1, 2, 3, -7);
    expect(NCL_DIFF, 1, in, NULL, e);
    NclArrayRelease(e);
    NclParams p = NCL_PARAMS_INIT;
    p.n = 2;
    e = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(3), 1, 1, -10);
    expect(NCL_DIFF, 1, in, &p, e);
    NclArrayRelease(e);
    p.n = 0;
    expect(NCL_DIFF, 1, in, &p, a);
    p.n = 7; /* more than the length: empty */
    NclArray *out = NULL;
    NCL_CHECK_OK(NclManip(NCL_DIFF, 1, in, &out, &p));
    ck_assert_int_eq(NclArrayShape(out)[0], 0);
    ck_assert_int_eq(NclArrayDType(out), NCL_INT32);
    NclArrayRelease(out);
    NclArrayRelease(a);

    /* 2-D along each axis */
    NclArray *b = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 3), 1, 4, 9, 16, 25, 36);
    const NclArray *ib[] = {b};
    e = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 2), 3, 5, 9, 11);
    expect(NCL_DIFF, 1, ib, NULL, e);
    NclArrayRelease(e);
    const int ax0 = 0;
    p = params_axis(&ax0, 1);
    e = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(1, 3), 15, 21, 27);
    expect(NCL_DIFF, 1, ib, &p, e);
    NclArrayRelease(e);
    NclArrayRelease(b);

    /* integer wraparound as NumPy's subtract: uint8 1 - 2 = 255, int8 -128 - 1 = 127 */
    NclArray *u = ncl_test_arr(NCL_UINT8, 1, NCL_DIMS(3), 2, 1, 255);
    const NclArray *iu[] = {u};
    e = ncl_test_arr(NCL_UINT8, 1, NCL_DIMS(2), 255, 254);
    expect(NCL_DIFF, 1, iu, NULL, e);
    NclArrayRelease(e);
    NclArrayRelease(u);
    NclArray *s8 = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(3), 1, -128, 127);
    const NclArray *is8[] = {s8};
    e = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(2), 127, -1);
    expect(NCL_DIFF, 1, is8, NULL, e);
    NclArrayRelease(e);
    NclArrayRelease(s8);

    /* bool: not_equal */
    NclArray *t = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(4), 1, 1, 0, 1);
    const NclArray *it[] = {t};
    e = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(3), 0, 1, 1);
    expect(NCL_DIFF, 1, it, NULL, e);
    NclArrayRelease(e);
    p = (NclParams)NCL_PARAMS_INIT;
    p.n = 2;
    e = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(2), 1, 0);
    expect(NCL_DIFF, 1, it, &p, e);
    NclArrayRelease(e);
    NclArrayRelease(t);

    /* floats: inf - inf is NaN, -0.0 kept */
    NclArray *f = ncl_test_arr(NCL_FLOAT32, 1, NCL_DIMS(4), INFINITY, INFINITY, 0.0, 0.0);
    const NclArray *iff[] = {f};
    e = ncl_test_arr(NCL_FLOAT32, 1, NCL_DIMS(3), NAN, -INFINITY, 0.0);
    expect(NCL_DIFF, 1, iff, NULL, e);
    NclArrayRelease(e);
    NclArrayRelease(f);

    /* prepend (0-d, broadcast) and append (an array); np.diff([1, 3, 6],
       prepend=0, append=[10]) == [1, 2, 3, 4], and the int8 append promotes
       nothing beyond int32 */
    NclArray *x = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(3), 1, 3, 6);
    NclArray *pre = ncl_test_arr(NCL_INT32, 0, NULL, 0);
    NclArray *app = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(1), 10);
    const NclArray *ipa[] = {x, pre, app}, *ia[] = {x, NULL, app}, *ip[] = {x, pre};
    e = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(4), 1, 2, 3, 4);
    expect(NCL_DIFF, 3, ipa, NULL, e);
    NclArrayRelease(e);
    e = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(3), 2, 3, 4);
    expect(NCL_DIFF, 3, ia, NULL, e);
    NclArrayRelease(e);
    e = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(3), 1, 2, 3);
    expect(NCL_DIFF, 2, ip, NULL, e);
    NclArrayRelease(e);
    NclArrayRelease(x);
    NclArrayRelease(pre);
    NclArrayRelease(app);
}
END_TEST

/* ---- every dtype ------------------------------------------------------------------ */

/* Small values every dtype holds exactly (bool: 0 and 1). */
static double val(NclDType t, int i)
{
    static const double v[] = {3, 1, 0, 2, 5, 4};
    return t == NCL_BOOL ? (double)(v[i % 6] > 1.5) : v[i % 6];
}

START_TEST(t_every_dtype)
{
    const NclDType t = (NclDType)_i;
    NclArray *a = ncl_test_new(t, 2, NCL_DIMS(2, 3));
    for (int i = 0; i < 6; i++) ncl_test_set_d(a, i, val(t, i));
    const NclArray *aa[] = {a, a}, *in[] = {a};
    const int ax0 = 0, ax1 = 1;
    NclParams p = params_axis(&ax1, 1);
    /* concatenate along 1 */
    NclArray *e = ncl_test_new(t, 2, NCL_DIMS(2, 6));
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 6; c++) ncl_test_set_d(e, r * 6 + c, val(t, r * 3 + c % 3));
    expect(NCL_CONCATENATE, 2, aa, &p, e);
    NclArrayRelease(e);
    /* stack along 1: (2, 2, 3) */
    e = ncl_test_new(t, 3, NCL_DIMS(2, 2, 3));
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 2; k++)
            for (int c = 0; c < 3; c++) ncl_test_set_d(e, (r * 2 + k) * 3 + c, val(t, r * 3 + c));
    expect(NCL_STACK, 2, aa, &p, e);
    NclArrayRelease(e);
    /* repeat 2 along 0 */
    const int64_t two = 2;
    NclParams pr = params_axis(&ax0, 1);
    pr.repeats = &two;
    pr.nrepeats = 1;
    e = ncl_test_new(t, 2, NCL_DIMS(4, 3));
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 3; c++) ncl_test_set_d(e, r * 3 + c, val(t, (r / 2) * 3 + c));
    expect(NCL_REPEAT, 1, in, &pr, e);
    NclArrayRelease(e);
    /* tile (1, 2) */
    const int64_t r12[] = {1, 2};
    NclParams pt = NCL_PARAMS_INIT;
    pt.repeats = r12;
    pt.nrepeats = 2;
    e = ncl_test_new(t, 2, NCL_DIMS(2, 6));
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 6; c++) ncl_test_set_d(e, r * 6 + c, val(t, r * 3 + c % 3));
    expect(NCL_TILE, 1, in, &pt, e);
    NclArrayRelease(e);
    /* flip */
    e = ncl_test_new(t, 2, NCL_DIMS(2, 3));
    for (int i = 0; i < 6; i++) ncl_test_set_d(e, i, val(t, 5 - i));
    expect(NCL_FLIP, 1, in, NULL, e);
    NclArrayRelease(e);
    /* diff along the last axis, computed here in the dtype's arithmetic */
    e = ncl_test_new(t, 2, NCL_DIMS(2, 2));
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 2; c++) {
            const double hi = val(t, r * 3 + c + 1), lo = val(t, r * 3 + c);
            const double d = t == NCL_BOOL ? (double)(hi != lo) : hi - lo;
            if (t >= NCL_UINT8 && t <= NCL_UINT64) {
                /* unsigned wraparound: the two's complement bits of the width */
                const unsigned w = 8u * (unsigned)NclDTypeSize(t);
                const uint64_t mask = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
                ncl_test_set_u(e, r * 2 + c, (uint64_t)(int64_t)d & mask);
            } else {
                ncl_test_set_d(e, r * 2 + c, d);
            }
        }
    expect(NCL_DIFF, 1, in, NULL, e);
    NclArrayRelease(e);
    NclArrayRelease(a);
}
END_TEST

/* ---- layouts and 0-size ------------------------------------------------------------- */

/* Every op on inputs in each test layout (including negative strides)
   gives what it gives on C-contiguous inputs; so do strided and reversed
   provided outputs. */
START_TEST(t_layouts)
{
    const NclDType types[] = {NCL_FLOAT64, NCL_INT16, NCL_UINT8, NCL_BOOL};
    const NclDType t = types[_i];
    uint64_t rng = 11;
    NclArray *a = ncl_test_new(t, 3, NCL_DIMS(3, 4, 5));
    NclArray *b = ncl_test_new(t, 3, NCL_DIMS(3, 4, 5));
    ncl_test_fill_random(a, &rng, 100);
    ncl_test_fill_random(b, &rng, 100);
    const int ax1 = 1, axm1 = -1, flip02[] = {0, 2};
    const int64_t counts[] = {1, 0, 3, 2}, reps[] = {2, 1, 3};
    for (int op = 0; op < NCL_MANIP_NOPS; op++) {
        NclParams p = params_axis(&ax1, 1);
        if (op == NCL_REPEAT) {
            p.repeats = counts;
            p.nrepeats = 4;
        } else if (op == NCL_TILE) {
            p.axes = NULL;
            p.repeats = reps;
            p.nrepeats = 3;
        } else if (op == NCL_FLIP) {
            p.axes = flip02;
            p.naxes = 2;
        } else if (op == NCL_DIFF) {
            p.axes = &axm1;
            p.n = 2;
        }
        const int nin = op <= NCL_STACK ? 2 : 1;
        const NclArray *cin[] = {a, b};
        NclArray *ref = NULL;
        NCL_CHECK_OK(NclManip((NclManipOp)op, nin, cin, &ref, &p));
        for (int la = 0; la < NCL_TEST_NLAYOUTS; la++) {
            NclArray *la_a = ncl_test_layout_of(a, (ncl_test_layout)la);
            NclArray *la_b = ncl_test_layout_of(b, (ncl_test_layout)((la + 1) % NCL_TEST_NLAYOUTS));
            const NclArray *lin[] = {la_a, la_b};
            NclArray *got = NULL;
            NCL_CHECK_OK(NclManip((NclManipOp)op, nin, lin, &got, &p));
            NCL_CHECK_ARRAYS(got, ref, NCL_TEST_SIGNED_ZERO, 0);
            NclArrayRelease(got);
            /* a provided output in another layout */
            NclArray *o = ncl_test_layout_of(ref, (ncl_test_layout)((la + 2) % NCL_TEST_NLAYOUTS));
            for (int64_t i = 0; i < NclArraySize(o); i++) ncl_test_set_d(o, i, 0);
            NclArray *g2 = o;
            NCL_CHECK_OK(NclManip((NclManipOp)op, nin, lin, &g2, &p));
            ck_assert_ptr_eq(g2, o);
            NCL_CHECK_ARRAYS(o, ref, NCL_TEST_SIGNED_ZERO, 0);
            NclArrayRelease(o);
            NclArrayRelease(la_a);
            NclArrayRelease(la_b);
        }
        NclArrayRelease(ref);
    }
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

START_TEST(t_zero_size)
{
    NclArray *a = ncl_test_new(NCL_FLOAT32, 2, NCL_DIMS(0, 3));
    NclArray *b = ncl_test_arr(NCL_FLOAT32, 2, NCL_DIMS(1, 3), 1, 2, 3);
    const NclArray *ab[] = {a, b, a};
    const int ax0 = 0, ax1 = 1;
    NclParams p = params_axis(&ax0, 1);
    expect(NCL_CONCATENATE, 3, ab, &p, b);
    const NclArray *aa[] = {a, a};
    NclArray *out = NULL;
    p = params_axis(&ax1, 1);
    NCL_CHECK_OK(NclManip(NCL_STACK, 2, aa, &out, &p));
    ck_assert_int_eq(NclArrayNDim(out), 3);
    ck_assert_int_eq(NclArrayShape(out)[0], 0);
    ck_assert_int_eq(NclArrayShape(out)[1], 2);
    ck_assert_int_eq(NclArrayShape(out)[2], 3);
    NclArrayRelease(out);
    for (int op = NCL_REPEAT; op < NCL_MANIP_NOPS; op++) {
        const int64_t two = 2;
        NclParams q = NCL_PARAMS_INIT;
        q.repeats = &two;
        q.nrepeats = 1;
        out = NULL;
        NCL_CHECK_OK(NclManip((NclManipOp)op, 1, ab, &out, &q));
        ck_assert_int_eq(NclArraySize(out), 0);
        NclArrayRelease(out);
    }
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

/* ---- overlap ------------------------------------------------------------------------------ */

START_TEST(t_overlap)
{
    /* out is the second half of a buffer whose first half is a: the copy
       of a into out's start would overwrite a part of a still to be read */
    const int64_t n = 6;
    NclArray *buf = ncl_test_new(NCL_INT32, 1, NCL_DIMS(3 * n));
    for (int i = 0; i < 3 * n; i++) ncl_test_set_d(buf, i, i);
    NclArray *a = NULL, *o = NULL;
    NCL_CHECK_OK(NclFromData(NCL_INT32, 1, &n, NULL, NclArrayData(buf), NCL_ARRAY_WRITEABLE, NULL,
                             NULL, &a));
    const int64_t n2 = 2 * n;
    NCL_CHECK_OK(NclFromData(NCL_INT32, 1, &n2, NULL, (char *)NclArrayData(buf) + 4 * 3,
                             NCL_ARRAY_WRITEABLE, NULL, NULL, &o));
    const NclArray *aa[] = {a, a};
    NclArray *g = o;
    NCL_CHECK_OK(NclManip(NCL_CONCATENATE, 2, aa, &g, NULL));
    for (int i = 0; i < 2 * n; i++) ck_assert_int_eq(ncl_test_get_i(o, i), i % n);

    /* flip in place */
    for (int i = 0; i < n; i++) ncl_test_set_d(a, i, i);
    const NclArray *ia[] = {a};
    g = a;
    NCL_CHECK_OK(NclManip(NCL_FLIP, 1, ia, &g, NULL));
    for (int i = 0; i < n; i++) ck_assert_int_eq(ncl_test_get_i(a, i), n - 1 - i);

    /* repeat into a buffer starting one element into the input */
    for (int i = 0; i < 3 * n; i++) ncl_test_set_d(buf, i, i);
    NclArray *o2 = NULL;
    NCL_CHECK_OK(NclFromData(NCL_INT32, 1, &n2, NULL, (char *)NclArrayData(buf) + 4,
                             NCL_ARRAY_WRITEABLE, NULL, NULL, &o2));
    const int64_t two = 2;
    NclParams p = NCL_PARAMS_INIT;
    p.repeats = &two;
    p.nrepeats = 1;
    g = o2;
    NCL_CHECK_OK(NclManip(NCL_REPEAT, 1, ia, &g, &p));
    for (int i = 0; i < 2 * n; i++) ck_assert_int_eq(ncl_test_get_i(o2, i), i / 2);

    /* diff in place: out is the input's first n - 1 elements */
    for (int i = 0; i < 3 * n; i++) ncl_test_set_d(buf, i, i * i);
    const int64_t n1 = n - 1;
    NclArray *o3 = NULL;
    NCL_CHECK_OK(NclFromData(NCL_INT32, 1, &n1, NULL, NclArrayData(buf), NCL_ARRAY_WRITEABLE,
                             NULL, NULL, &o3));
    g = o3;
    NCL_CHECK_OK(NclManip(NCL_DIFF, 1, ia, &g, NULL));
    for (int i = 0; i < n - 1; i++) ck_assert_int_eq(ncl_test_get_i(o3, i), 2 * i + 1);
    NclArrayRelease(o3);
    NclArrayRelease(o2);
    NclArrayRelease(o);
    NclArrayRelease(a);
    NclArrayRelease(buf);
}
END_TEST

/* ---- refusals ------------------------------------------------------------------------------ */

/* The call fails with st, its message contains text, and out is untouched. */
#define REFUSED(op, nin, in, out, p, st, text)                                \
    do {                                                                      \
        const uint64_t h_ = ncl_test_hash(out);                              \
        NclArray *o_ = (out);                                                 \
        NCL_CHECK_STATUS(NclManip((op), (nin), (in), &o_, (p)), (st));        \
        NCL_CHECK_MESSAGE_HAS(text);                                          \
        ck_assert_ptr_eq(o_, (out));                                          \
        ck_assert_uint_eq(ncl_test_hash(out), h_);                            \
        NclArray *n_ = NULL;                                                  \
        NCL_CHECK_STATUS(NclManip((op), (nin), (in), &n_, (p)), (st));        \
        ck_assert_ptr_null(n_);                                               \
    } while (0)

START_TEST(t_refusals)
{
    NclArray *a = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 2), 1, 2, 3, 4);
    NclArray *b = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(2), 5, 6);
    NclArray *c = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 3), 1, 2, 3, 4, 5, 6);
    NclArray *s = ncl_test_arr(NCL_INT32, 0, NULL, 1);
    NclArray *o = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(4, 2), 9, 9, 9, 9, 9, 9, 9, 9);
    const int ax0 = 0, ax2 = 2, axm3 = -3, axm4 = -4, ax01[] = {0, 1}, rep[] = {1, -1};
    NclParams p = params_axis(&ax0, 1);
    const NclArray *ab[] = {a, b}, *ac[] = {a, a, c}, *as[] = {a, s}, *aa[] = {a, a};
    const NclArray *anull[] = {a, NULL}, *ia[] = {a}, *is[] = {s};

    REFUSED(NCL_CONCATENATE, 0, ab, o, &p, NCL_ERR_INVALID_ARGUMENT, "at least one");
    REFUSED(NCL_CONCATENATE, 2, ab, o, &p, NCL_ERR_SHAPE, "input 1 has 1 dimension");
    REFUSED(NCL_CONCATENATE, 3, ac, o, &p, NCL_ERR_SHAPE, "input 2 has size 3");
    REFUSED(NCL_CONCATENATE, 2, as, o, &p, NCL_ERR_SHAPE, "input 1 is 0-d");
    REFUSED(NCL_CONCATENATE, 2, anull, o, &p, NCL_ERR_INVALID_ARGUMENT, "in[1] is NULL");
    NclParams q = params_axis(&ax2, 1);
    REFUSED(NCL_CONCATENATE, 2, aa, o, &q, NCL_ERR_AXIS, "axis 2 is out of bounds");
    q = params_axis(ax01, 2);
    REFUSED(NCL_CONCATENATE, 2, aa, o, &q, NCL_ERR_AXIS, "one axis");
    q = params_axis(&axm3, 1);
    REFUSED(NCL_CONCATENATE, 2, aa, o, &q, NCL_ERR_AXIS, "axis -3");
    q = params_axis(&axm4, 1);
    REFUSED(NCL_STACK, 2, aa, o, &q, NCL_ERR_AXIS, "axis -4");
    q = params_axis(&ax0, 1);
    q.dtype = NCL_UINT8;
    {
        NclArray *n0 = NULL;
        NCL_CHECK_STATUS(NclManip(NCL_STACK, 2, aa, &n0, &q), NCL_ERR_CASTING);
        NCL_CHECK_MESSAGE_HAS("input 0 from int32 to uint8");
        ck_assert_ptr_null(n0);
    }

    /* a provided output of the wrong shape, a dtype the result does not
       cast to, read-only; dtype= together with out */
    NclArray *o3 = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(3, 2), 0, 0, 0, 0, 0, 0);
    NclArray *o8 = ncl_test_arr(NCL_UINT8, 2, NCL_DIMS(4, 2), 0, 0, 0, 0, 0, 0, 0, 0);
    {
        NclArray *g = o3;
        NCL_CHECK_STATUS(NclManip(NCL_CONCATENATE, 2, aa, &g, &p), NCL_ERR_SHAPE);
        NCL_CHECK_MESSAGE_HAS("(3,2)");
        g = o8;
        NCL_CHECK_STATUS(NclManip(NCL_CONCATENATE, 2, aa, &g, &p), NCL_ERR_CASTING);
        NCL_CHECK_MESSAGE_HAS("input 0");
        ck_assert_uint_eq(ncl_test_hash(o8), ncl_test_hash(o8));
        q = params_axis(&ax0, 1);
        q.dtype = NCL_INT64;
        g = o;
        NCL_CHECK_STATUS(NclManip(NCL_CONCATENATE, 2, aa, &g, &q), NCL_ERR_INVALID_ARGUMENT);
        NCL_CHECK_MESSAGE_HAS("dtype");
        NclArray *ro = NULL;
        NCL_CHECK_OK(NclFromData(NCL_INT32, 2, NCL_DIMS(4, 2), NULL, NclArrayData(o), 0, NULL,
                                 NULL, &ro));
        g = ro;
        NCL_CHECK_STATUS(NclManip(NCL_CONCATENATE, 2, aa, &g, &p), NCL_ERR_READONLY);
        NclArrayRelease(ro);
        /* a where mask */
        q = params_axis(&ax0, 1);
        q.where = a;
        g = NULL;
        NCL_CHECK_STATUS(NclManip(NCL_CONCATENATE, 2, aa, &g, &q), NCL_ERR_INVALID_ARGUMENT);
        NCL_CHECK_MESSAGE_HAS("where");
        /* a uint8 output for a flip of int32 under same_kind */
        NclArray *f8 = ncl_test_arr(NCL_UINT8, 2, NCL_DIMS(2, 2), 0, 0, 0, 0);
        g = f8;
        NCL_CHECK_STATUS(NclManip(NCL_FLIP, 1, ia, &g, NULL), NCL_ERR_CASTING);
        for (int i = 0; i < 4; i++) ck_assert_int_eq(ncl_test_get_i(f8, i), 0);
        NclArrayRelease(f8);
    }

    /* nin out of range, op out of range, NULL pointers */
    REFUSED(NCL_FLIP, 2, aa, o, NULL, NCL_ERR_INVALID_ARGUMENT, "nin is 2");
    const NclArray *a4[] = {a, a, a, a};
    REFUSED(NCL_DIFF, 4, a4, o, NULL, NCL_ERR_INVALID_ARGUMENT, "nin is 4");
    REFUSED((NclManipOp)NCL_MANIP_NOPS, 1, ia, o, NULL, NCL_ERR_INVALID_ARGUMENT, "unknown op");
    REFUSED(NCL_FLIP, 1, NULL, o, NULL, NCL_ERR_INVALID_ARGUMENT, "in is NULL");
    NCL_CHECK_STATUS(NclManip(NCL_FLIP, 1, ia, NULL, NULL), NCL_ERR_INVALID_ARGUMENT);

    /* REPEAT */
    NclParams r = NCL_PARAMS_INIT;
    REFUSED(NCL_REPEAT, 1, ia, o, &r, NCL_ERR_INVALID_ARGUMENT, "repeats is NULL");
    const int64_t neg = -1, three[] = {1, 2, 3}, mixed[] = {2, -1};
    r.repeats = &neg;
    r.nrepeats = 1;
    REFUSED(NCL_REPEAT, 1, ia, o, &r, NCL_ERR_INVALID_ARGUMENT, "negative");
    r.repeats = three;
    r.nrepeats = 3;
    REFUSED(NCL_REPEAT, 1, ia, o, &r, NCL_ERR_INVALID_ARGUMENT, "nrepeats is 3");
    r.axes = &ax0;
    r.naxes = 1;
    r.repeats = mixed;
    r.nrepeats = 2;
    REFUSED(NCL_REPEAT, 1, ia, o, &r, NCL_ERR_INVALID_ARGUMENT, "repeats[1] is -1");
    r.axes = &ax2;
    REFUSED(NCL_REPEAT, 1, ia, o, &r, NCL_ERR_AXIS, "axis 2");
    r.axes = &ax0;
    r.repeats = &neg + 0;
    r.nrepeats = 1;
    REFUSED(NCL_REPEAT, 1, is, o, &r, NCL_ERR_AXIS, "dimension 0");
    r = (NclParams)NCL_PARAMS_INIT;
    r.repeats = three;
    r.nrepeats = 1;
    r.dtype = NCL_INT64;
    REFUSED(NCL_REPEAT, 1, ia, o, &r, NCL_ERR_DTYPE, "params->dtype");

    /* TILE */
    NclParams t = NCL_PARAMS_INIT;
    const int64_t treps[] = {2, -2};
    t.repeats = treps;
    t.nrepeats = 2;
    REFUSED(NCL_TILE, 1, ia, o, &t, NCL_ERR_INVALID_ARGUMENT, "repeats[1] is -2");
    t.repeats = NULL;
    REFUSED(NCL_TILE, 1, ia, o, &t, NCL_ERR_INVALID_ARGUMENT, "NULL");

    /* FLIP */
    const int dup[] = {1, -1};
    q = params_axis(dup, 2);
    REFUSED(NCL_FLIP, 1, ia, o, &q, NCL_ERR_AXIS, "repeated axis");
    q = params_axis(&ax2, 1);
    REFUSED(NCL_FLIP, 1, ia, o, &q, NCL_ERR_AXIS, "axis 2");

    /* DIFF */
    NclParams d = NCL_PARAMS_INIT;
    d.n = -1;
    REFUSED(NCL_DIFF, 1, ia, o, &d, NCL_ERR_INVALID_ARGUMENT, "non-negative");
    REFUSED(NCL_DIFF, 1, is, o, NULL, NCL_ERR_SHAPE, "at least one dimensional");
    q = params_axis(&ax2, 1);
    REFUSED(NCL_DIFF, 1, ia, o, &q, NCL_ERR_AXIS, "axis 2");
    const NclArray *dpre[] = {a, c};
    q = params_axis(&ax0, 1);
    REFUSED(NCL_DIFF, 2, dpre, o, &q, NCL_ERR_SHAPE, "input 1 has size 3");
    const NclArray *dapp[] = {a, NULL, b};
    REFUSED(NCL_DIFF, 3, dapp, o, NULL, NCL_ERR_SHAPE, "input 2 has 1 dimension");
    (void)rep;

    NclArrayRelease(o3);
    NclArrayRelease(o8);
    NclArrayRelease(a);
    NclArrayRelease(b);
    NclArrayRelease(c);
    NclArrayRelease(s);
    NclArrayRelease(o);
}
END_TEST

/* ---- faults ------------------------------------------------------------------------------ */

START_TEST(t_fault_injection)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 3), 1, 2, 3, 4, 5, 6);
    NclArray *b = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(1, 3), 7, 8, 9);
    const int ax0 = 0;
    const int64_t counts[] = {2, 1}, reps[] = {2, 2};
    for (int op = 0; op < NCL_MANIP_NOPS; op++) {
        for (int provided = 0; provided < 2; provided++) {
            NclParams p = params_axis(&ax0, 1);
            const NclArray *in[] = {a, op == NCL_CONCATENATE ? b : a};
            int nin = op <= NCL_STACK ? 2 : 1;
            if (op == NCL_REPEAT) {
                p.repeats = counts;
                p.nrepeats = 2;
            } else if (op == NCL_TILE) {
                p.axes = NULL;
                p.repeats = reps;
                p.nrepeats = 2;
            } else if (op == NCL_DIFF) {
                p.n = 2;
                in[1] = b; /* prepend: a joined copy is made */
                nin = 2;
            }
            NclArray *ref = NULL;
            NCL_CHECK_OK(NclManip((NclManipOp)op, nin, in, &ref, &p));
            NclArray *given = NULL;
            if (provided) {
                NclArray *tmp = ncl_test_new(NCL_FLOAT64, NclArrayNDim(ref), NclArrayShape(ref));
                given = ncl_test_layout_of(tmp, NCL_TEST_REVERSED);
                NclArrayRelease(tmp);
            }
            int succeeded = 0;
            for (long k = 1; k <= 16 && !succeeded; k++) {
                ncl_test_alloc fa;
                const uint64_t h = given ? ncl_test_hash(given) : 0;
                ncl_test_alloc_install(&fa, k, 0);
                NclArray *o = given;
                NclStatus st = NclManip((NclManipOp)op, nin, in, &o, &p);
                ncl_test_alloc_uninstall(&fa);
                if (st == NCL_OK) {
                    succeeded = 1;
                    NCL_CHECK_ARRAYS(o, ref, NCL_TEST_ANY_DTYPE, 0);
                    if (!given) NclArrayRelease(o);
                } else {
                    ck_assert_int_eq(st, NCL_ERR_NO_MEMORY);
                    ck_assert_ptr_eq(o, given);
                    if (given) ck_assert_uint_eq(ncl_test_hash(given), h);
                }
                ck_assert_int_eq(atomic_load(&fa.live), 0);
            }
            ck_assert(succeeded);
            NclArrayRelease(given);
            NclArrayRelease(ref);
        }
    }
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

/* ---- FP flags ------------------------------------------------------------------------------ */

/* diff raises subtract's flags (inf - inf is invalid), as NumPy warns; in
   RAISE mode the call fails and a result it allocated is not returned.
   The copies raise nothing. */
START_TEST(t_fp_flags)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), INFINITY, INFINITY, NAN);
    const NclArray *in[] = {a};
    NclArray *out = NULL;
    NCL_CHECK_OK(NclManip(NCL_DIFF, 1, in, &out, NULL));
    ck_assert(NclGetFPErrors() & NCL_FPE_INVALID);
    NclArrayRelease(out);
    out = NULL;
    NCL_CHECK_OK(NclManip(NCL_FLIP, 1, in, &out, NULL));
    ck_assert_int_eq(NclGetFPErrors(), 0);
    NclArrayRelease(out);
    const NclErrMode old = NclGetErrMode(NCL_FPE_INVALID);
    NCL_CHECK_OK(NclSetErrMode(NCL_FPE_INVALID, NCL_ERRMODE_RAISE));
    out = NULL;
    NCL_CHECK_STATUS(NclManip(NCL_DIFF, 1, in, &out, NULL), NCL_ERR_FLOATING_POINT);
    ck_assert_ptr_null(out);
    NCL_CHECK_OK(NclSetErrMode(NCL_FPE_INVALID, old));
    NclArrayRelease(a);
}
END_TEST

/* ---- the chain ---------------------------------------------------------------------------- */

static int hook_calls, hook_nin;

static NclStatus spy(NclHook *self, NclManipOp op, int nin, const NclArray *const *in,
                     NclArray **out, const NclParams *params)
{
    hook_calls++;
    hook_nin = nin;
    return NclManipNext(self, op, nin, in, out, params);
}

START_TEST(t_hook)
{
    NclHook h = {0};
    h.name = "spy";
    h.fn.manip = spy;
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_MANIP, &h.list));
    NclArray *a = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(2), 1, 2);
    const NclArray *in[] = {a, a, a};
    NclArray *out = NULL;
    NCL_CHECK_OK(NclManip(NCL_CONCATENATE, 3, in, &out, NULL));
    ck_assert_int_eq(hook_calls, 1);
    ck_assert_int_eq(hook_nin, 3);
    ck_assert_int_eq(NclArrayShape(out)[0], 6);
    NclArrayRelease(out);
    NCL_CHECK_OK(NclApiUnhook(&h.list));
    NclArrayRelease(a);
}
END_TEST

static Suite *manip_suite(void)
{
    Suite *s = suite_create("manip");
    TCase *tc = tcase_create("manip");
    tcase_add_test(tc, t_concatenate_exact);
    tcase_add_test(tc, t_stack_exact);
    tcase_add_test(tc, t_repeat_exact);
    tcase_add_test(tc, t_tile_exact);
    tcase_add_test(tc, t_flip_exact);
    tcase_add_test(tc, t_diff_exact);
    tcase_add_loop_test(tc, t_every_dtype, 0, NDTYPES);
    tcase_add_loop_test(tc, t_layouts, 0, 4);
    tcase_add_test(tc, t_zero_size);
    tcase_add_test(tc, t_overlap);
    tcase_add_test(tc, t_refusals);
    tcase_add_test(tc, t_fault_injection);
    tcase_add_test(tc, t_fp_flags);
    tcase_add_test(tc, t_hook);
    suite_add_tcase(s, tc);
    return s;
}

NCL_TEST_MAIN(manip_suite)
