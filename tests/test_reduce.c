/*
 * test_reduce.c: the Reduce subsystem through NclReduce and its kernel
 * chains: every op over every dtype, axes (none, one, negative, several, in
 * any order, empty), keepdims and memory layouts against a reference
 * computed here element by element; where=, initial=, dtype= and provided
 * outputs; empty reductions; NaN, signed zeros and integer wrap-around;
 * the refusals, each with its exact status, a message and an untouched
 * output; the bitwise layout independence of float sums, products and
 * means (and of the gathered, cast and masked paths against the direct
 * one); the documented splitting property of the tree; accuracy against
 * exact sums next to pairwise summation; FP flags; fault injection; and
 * a kernel hook on a Reduce chain.
 *
 * The values-against-reference tests use small integers (or products of
 * +-1 and 2), whose sums and products are exact in every dtype, so the
 * reference needs no tolerance.
 */
#define _DEFAULT_SOURCE /* posix_memalign */
#include <float.h>
#include "ncl_test.h"

static const NclDType all_dtypes[] = {NCL_BOOL,   NCL_INT8,   NCL_INT16,  NCL_INT32,
                                      NCL_INT64,  NCL_UINT8,  NCL_UINT16, NCL_UINT32,
                                      NCL_UINT64, NCL_FLOAT32, NCL_FLOAT64};
#define NDT ((int)(sizeof all_dtypes / sizeof all_dtypes[0]))

static int is_float(NclDType t) { return t == NCL_FLOAT32 || t == NCL_FLOAT64; }
static int is_unsigned(NclDType t) { return t >= NCL_UINT8 && t <= NCL_UINT64; }

/* NumPy 1.24's result dtype of each op on dtype t, no dtype= given. */
static NclDType default_result(NclReduceOp op, NclDType t)
{
    switch (op) {
    case NCL_STD: case NCL_VAR: case NCL_NANSTD: case NCL_NANVAR:
        return is_float(t) ? t : NCL_FLOAT64;
    case NCL_NANSUM: return default_result(NCL_SUM, t);
    case NCL_NANPROD: return default_result(NCL_PROD, t);
    case NCL_NANMEAN: return default_result(NCL_MEAN, t);
    case NCL_NANMIN: case NCL_NANMAX: return t;
    case NCL_NANCUMSUM: case NCL_NANCUMPROD: return default_result(NCL_CUMSUM, t);
    case NCL_SUM: case NCL_PROD: case NCL_CUMSUM: case NCL_CUMPROD:
        return is_float(t) ? t : is_unsigned(t) ? NCL_UINT64 : NCL_INT64;
    case NCL_MIN: case NCL_MAX: return t;
    case NCL_ANY: case NCL_ALL: return NCL_BOOL;
    case NCL_MEAN: return t == NCL_FLOAT32 ? NCL_FLOAT32 : NCL_FLOAT64;
    default: return NCL_INT64;
    }
}

static NclArray *reduce_ok(NclReduceOp op, const NclArray *a, const NclParams *p)
{
    NclArray *r = NULL;
    NclStatus s = NclReduce(op, a, &r, p);
    ck_assert_msg(s == NCL_OK, "NclReduce(%d) returned %s: %s", (int)op, NclStatusString(s),
                  NclLastError());
    ck_assert_ptr_nonnull(r);
    return r;
}

static NclArray *reduce_axes(NclReduceOp op, const NclArray *a, const int *axes, int naxes,
                             int keepdims)
{
    NclParams p = NCL_PARAMS_INIT;
    p.axes = axes;
    p.naxes = naxes;
    p.keepdims = keepdims;
    return reduce_ok(op, a, &p);
}

/* ---- the reference -------------------------------------------------------- */

/* Small values that make every sum and product exact: products of +-1 and
   2 (few 2s) for prod, small integers otherwise. */
static double ref_value(NclDType t, NclReduceOp op, int64_t i)
{
    const int64_t h = (i * 7 + 3) % 11;
    if (t == NCL_BOOL) return (double)(h % 3 != 0);
    if (op == NCL_PROD || op == NCL_CUMPROD) {
        if (h == 0 && !is_unsigned(t)) return -1.0;
        return h == 5 ? 2.0 : 1.0;
    }
    return is_unsigned(t) ? (double)h : (double)(h - 4);
}

typedef struct ref_geom {
    int nd;
    int64_t shape[8];
    int red[8];
    int nk, nr;
    int kdims[8], rdims[8];
    int64_t nout, n;
} ref_geom;

static void ref_geom_init(ref_geom *g, int nd, const int64_t *shape, const int *axes, int naxes)
{
    g->nd = nd;
    for (int d = 0; d < nd; d++) {
        g->shape[d] = shape[d];
        g->red[d] = axes == NULL;
    }
    for (int i = 0; axes && i < naxes; i++) g->red[(axes[i] % nd + nd) % nd] = 1;
    g->nk = g->nr = 0;
    g->nout = g->n = 1;
    for (int d = 0; d < nd; d++) {
        if (g->red[d]) {
            g->rdims[g->nr++] = d;
            g->n *= shape[d];
        } else {
            g->kdims[g->nk++] = d;
            g->nout *= shape[d];
        }
    }
}

/* C-order flat index of element j of output o's sequence. */
static int64_t ref_flat(const ref_geom *g, int64_t o, int64_t j)
{
    int64_t idx[8] = {0};
    for (int i = g->nk - 1; i >= 0; i--) {
        idx[g->kdims[i]] = o % g->shape[g->kdims[i]];
        o /= g->shape[g->kdims[i]];
    }
    for (int i = g->nr - 1; i >= 0; i--) {
        idx[g->rdims[i]] = j % g->shape[g->rdims[i]];
        j /= g->shape[g->rdims[i]];
    }
    int64_t f = 0;
    for (int d = 0; d < g->nd; d++) f = f * g->shape[d] + idx[d];
    return f;
}

/* The reference result of a reduction of output o, as double (exact for
   the data above). */
static double ref_reduce(NclReduceOp op, const ref_geom *g, const double *v, int64_t o)
{
    double acc = 0;
    int64_t best = 0;
    switch (op) {
    case NCL_SUM: case NCL_MEAN:
        for (int64_t j = 0; j < g->n; j++) acc += v[ref_flat(g, o, j)];
        return op == NCL_MEAN ? acc / (double)g->n : acc;
    case NCL_PROD:
        acc = 1;
        for (int64_t j = 0; j < g->n; j++) acc *= v[ref_flat(g, o, j)];
        return acc;
    case NCL_MIN: case NCL_MAX: case NCL_ARGMIN: case NCL_ARGMAX:
        for (int64_t j = 1; j < g->n; j++) {
            const double x = v[ref_flat(g, o, j)], b = v[ref_flat(g, o, best)];
            if ((op == NCL_MIN || op == NCL_ARGMIN) ? x < b : x > b) best = j;
        }
        return (op == NCL_ARGMIN || op == NCL_ARGMAX) ? (double)best : v[ref_flat(g, o, best)];
    case NCL_ANY:
        for (int64_t j = 0; j < g->n; j++) if (v[ref_flat(g, o, j)] != 0) return 1;
        return 0;
    case NCL_ALL:
        for (int64_t j = 0; j < g->n; j++) if (v[ref_flat(g, o, j)] == 0) return 0;
        return 1;
    case NCL_COUNT_NONZERO:
        for (int64_t j = 0; j < g->n; j++) acc += v[ref_flat(g, o, j)] != 0;
        return acc;
    default:
        ck_abort_msg("ref_reduce: op %d", (int)op);
        return 0;
    }
}

/* The output shape NumPy gives. */
static int ref_out_shape(const ref_geom *g, int keepdims, int64_t *oshape)
{
    int n = 0;
    for (int d = 0; d < g->nd; d++) {
        if (!g->red[d]) oshape[n++] = g->shape[d];
        else if (keepdims) oshape[n++] = 1;
    }
    return n;
}

static const char *const layout_names[] = {"C", "F", "sliced", "reversed", "misaligned"};

/* One reduction of reference data over (axes) in layout lay, checked. */
static void check_against_reference(NclReduceOp op, NclDType t, int nd, const int64_t *shape,
                                    const int *axes, int naxes, int keepdims, ncl_test_layout lay)
{
    ref_geom g;
    ref_geom_init(&g, nd, shape, axes, naxes);
    const int64_t size = ncl_test_shape_size(nd, shape);
    double v[512];
    ck_assert_int_le(size, 512);
    NclArray *src = ncl_test_new(t, nd, shape);
    for (int64_t i = 0; i < size; i++) {
        v[i] = ref_value(t, op, i);
        ncl_test_set_d(src, i, v[i]);
    }
    NclArray *a = ncl_test_layout_of(src, lay);
    NclArray *r = reduce_axes(op, a, axes, naxes, keepdims);
    int64_t oshape[8];
    int ond = ref_out_shape(&g, keepdims, oshape);
    const NclDType rt = default_result(op, t);
    char why[256];
    snprintf(why, sizeof why, "op %d dtype %s layout %s naxes %d keepdims %d", (int)op,
             NclDTypeName(t), layout_names[lay], axes ? naxes : -1, keepdims);
    ck_assert_msg(NclArrayDType(r) == rt, "%s: result dtype %s, expected %s", why,
                  NclDTypeName(NclArrayDType(r)), NclDTypeName(rt));
    ck_assert_msg(NclArrayNDim(r) == ond, "%s: ndim %d expected %d", why, NclArrayNDim(r), ond);
    for (int d = 0; d < ond; d++) ck_assert_int_eq(NclArrayShape(r)[d], oshape[d]);
    for (int64_t o = 0; o < g.nout; o++) {
        double want = ref_reduce(op, &g, v, o);
        if (rt == NCL_FLOAT32) want = (double)(float)want;
        if (rt == NCL_BOOL) want = want != 0;
        const double got = ncl_test_get_d(r, o);
        ck_assert_msg(got == want, "%s: output %lld is %.17g, expected %.17g", why, (long long)o,
                      got, want);
    }
    NclArrayRelease(r);
    NclArrayRelease(a);
    NclArrayRelease(src);
}

/* ---- every op x dtype x axes x keepdims x layout --------------------------- */

static const int64_t shape345[3] = {3, 4, 5};

START_TEST(t_reductions_against_reference)
{
    static const NclReduceOp ops[] = {NCL_SUM,    NCL_PROD,   NCL_MIN, NCL_MAX,
                                      NCL_ANY,    NCL_ALL,    NCL_MEAN, NCL_COUNT_NONZERO};
    static const int ax[][3] = {{0}, {1}, {2}, {-1}, {0, 2}, {2, 0}, {0, 1, 2}, {-1, 0}, {0}};
    static const int nax[] = {1, 1, 1, 1, 2, 2, 3, 2, 0};
    for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++)
        for (int ti = 0; ti < NDT; ti++)
            for (int k = -1; k < (int)(sizeof nax / sizeof nax[0]); k++)
                for (int keep = 0; keep < 2; keep++)
                    for (int lay = 0; lay < NCL_TEST_NLAYOUTS; lay++)
                        check_against_reference(ops[oi], all_dtypes[ti], 3, shape345,
                                                k < 0 ? NULL : ax[k], k < 0 ? 0 : nax[k], keep,
                                                (ncl_test_layout)lay);
}
END_TEST

START_TEST(t_arg_against_reference)
{
    static const int ax[][1] = {{0}, {1}, {2}, {-2}};
    for (int op = NCL_ARGMIN; op <= NCL_ARGMAX; op++)
        for (int ti = 0; ti < NDT; ti++)
            for (int k = -1; k < 4; k++)
                for (int keep = 0; keep < 2; keep++)
                    for (int lay = 0; lay < NCL_TEST_NLAYOUTS; lay++) {
                        if (k < 0 && keep) continue; /* checked in t_arg_flat_keepdims */
                        check_against_reference((NclReduceOp)op, all_dtypes[ti], 3, shape345,
                                                k < 0 ? NULL : ax[k], k < 0 ? 0 : 1, keep,
                                                (ncl_test_layout)lay);
                    }
}
END_TEST

START_TEST(t_arg_flat_keepdims)
{
    NclArray *a = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 3), 5, 1, 7, 0, 9, 0);
    NclParams p = NCL_PARAMS_INIT;
    p.keepdims = 1;
    NclArray *r = reduce_ok(NCL_ARGMIN, a, &p);
    ck_assert_int_eq(NclArrayNDim(r), 2);
    ck_assert_int_eq(NclArrayShape(r)[0], 1);
    ck_assert_int_eq(NclArrayShape(r)[1], 1);
    ck_assert_int_eq(ncl_test_get_i(r, 0), 3);
    NclArrayRelease(r);
    r = reduce_ok(NCL_ARGMAX, a, NULL);
    ck_assert_int_eq(NclArrayNDim(r), 0);
    ck_assert_int_eq(ncl_test_get_i(r, 0), 4);
    NclArrayRelease(r);
    NclArrayRelease(a);
}
END_TEST

/* cumsum / cumprod against running sums, along each axis and flattened. */
START_TEST(t_accumulate_against_reference)
{
    for (int op = NCL_CUMSUM; op <= NCL_CUMPROD; op++)
        for (int ti = 0; ti < NDT; ti++)
            for (int k = -1; k < 3; k++)
                for (int lay = 0; lay < NCL_TEST_NLAYOUTS; lay++) {
                    const NclDType t = all_dtypes[ti];
                    NclArray *src = ncl_test_new(t, 3, shape345);
                    double v[60];
                    for (int64_t i = 0; i < 60; i++) {
                        v[i] = ref_value(t, (NclReduceOp)op, i);
                        ncl_test_set_d(src, i, v[i]);
                    }
                    NclArray *a = ncl_test_layout_of(src, (ncl_test_layout)lay);
                    const int axis = k;
                    NclArray *r = reduce_axes((NclReduceOp)op, a, k < 0 ? NULL : &axis, 1, 0);
                    ck_assert_int_eq(NclArrayDType(r), default_result((NclReduceOp)op, t));
                    if (k < 0) {
                        ck_assert_int_eq(NclArrayNDim(r), 1);
                        ck_assert_int_eq(NclArrayShape(r)[0], 60);
                        double acc = op == NCL_CUMPROD ? 1 : 0;
                        for (int64_t i = 0; i < 60; i++) {
                            acc = op == NCL_CUMPROD ? acc * v[i] : acc + v[i];
                            ck_assert_msg(ncl_test_get_d(r, i) == acc, "flat %s %lld",
                                          NclDTypeName(t), (long long)i);
                        }
                    } else {
                        ck_assert_int_eq(NclArrayNDim(r), 3);
                        int64_t stride = 1;
                        for (int d = 2; d > k; d--) stride *= shape345[d];
                        for (int64_t i = 0; i < 60; i++) {
                            const int64_t pos = i / stride % shape345[k];
                            double acc = op == NCL_CUMPROD ? 1 : 0;
                            for (int64_t j = 0; j <= pos; j++) {
                                const double x = v[i - (pos - j) * stride];
                                acc = op == NCL_CUMPROD ? acc * x : acc + x;
                            }
                            ck_assert_msg(ncl_test_get_d(r, i) == acc, "%s axis %d elem %lld",
                                          NclDTypeName(t), k, (long long)i);
                        }
                    }
                    NclArrayRelease(r);
                    NclArrayRelease(a);
                    NclArrayRelease(src);
                }
}
END_TEST

/* ---- dtypes ---------------------------------------------------------------- */

START_TEST(t_result_dtypes)
{
    for (int op = 0; op < NCL_REDUCE_NOPS; op++)
        for (int ti = 0; ti < NDT; ti++) {
            NclArray *a = ncl_test_arr(all_dtypes[ti], 1, NCL_DIMS(3), 1, 1, 1);
            NclArray *r = reduce_ok((NclReduceOp)op, a, NULL);
            ck_assert_msg(NclArrayDType(r) == default_result((NclReduceOp)op, all_dtypes[ti]),
                          "op %d on %s gives %s", op, NclDTypeName(all_dtypes[ti]),
                          NclDTypeName(NclArrayDType(r)));
            NclArrayRelease(r);
            NclArrayRelease(a);
        }
}
END_TEST

START_TEST(t_dtype_param)
{
    NclParams p = NCL_PARAMS_INIT;
    /* int32 summed in int8 wraps as NumPy's int8 loop does: 100+100+100 */
    NclArray *a = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(3), 100, 100, 100);
    p.dtype = NCL_INT8;
    NclArray *r = reduce_ok(NCL_SUM, a, &p);
    ck_assert_int_eq(NclArrayDType(r), NCL_INT8);
    ck_assert_int_eq(ncl_test_get_i(r, 0), 44); /* 300 - 256 */
    NclArrayRelease(r);
    /* cumsum in int8 wraps at each step */
    r = reduce_ok(NCL_CUMSUM, a, &p);
    ck_assert_int_eq(ncl_test_get_i(r, 1), -56);
    ck_assert_int_eq(ncl_test_get_i(r, 2), 44);
    NclArrayRelease(r);
    /* sum of int32 in float32: cast per element, summed in float32 */
    p.dtype = NCL_FLOAT32;
    r = reduce_ok(NCL_SUM, a, &p);
    ck_assert_int_eq(NclArrayDType(r), NCL_FLOAT32);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 300.0);
    NclArrayRelease(r);
    /* mean in float32 of ints */
    r = reduce_ok(NCL_MEAN, a, &p);
    ck_assert_int_eq(NclArrayDType(r), NCL_FLOAT32);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 100.0);
    NclArrayRelease(r);
    /* min in float64 of int32 */
    p.dtype = NCL_FLOAT64;
    r = reduce_ok(NCL_MIN, a, &p);
    ck_assert_int_eq(NclArrayDType(r), NCL_FLOAT64);
    NclArrayRelease(r);
    /* mean with an integer dtype truncates the float quotient */
    NclArray *b = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(2), 1, 2);
    p.dtype = NCL_INT16;
    r = reduce_ok(NCL_MEAN, b, &p);
    ck_assert_int_eq(NclArrayDType(r), NCL_INT16);
    ck_assert_int_eq(ncl_test_get_i(r, 0), 1);
    NclArrayRelease(r);
    /* sum of bools in bool is a logical or, the product a logical and */
    NclArray *bb = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(3), 1, 0, 1);
    p.dtype = NCL_BOOL;
    r = reduce_ok(NCL_SUM, bb, &p);
    ck_assert_int_eq(NclArrayDType(r), NCL_BOOL);
    ck_assert_int_eq(ncl_test_get_i(r, 0), 1);
    NclArrayRelease(r);
    r = reduce_ok(NCL_PROD, bb, &p);
    ck_assert_int_eq(ncl_test_get_i(r, 0), 0);
    NclArrayRelease(r);
    /* float64 into int8 only when unsafe is allowed, saturating */
    NclArray *f = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), 1.5, -2.5, 300.0);
    p.dtype = NCL_INT8;
    r = NULL;
    NCL_CHECK_STATUS(NclReduce(NCL_SUM, f, &r, &p), NCL_ERR_CASTING);
    NCL_CHECK_MESSAGE_HAS("float64");
    NCL_CHECK_MESSAGE_HAS("int8");
    ck_assert_ptr_null(r);
    p.casting = NCL_CASTING_UNSAFE;
    r = reduce_ok(NCL_SUM, f, &p);
    ck_assert_int_eq(ncl_test_get_i(r, 0), 1 - 2 + 127);
    NclArrayRelease(r);
    r = NULL;
    /* dtype= that the op's result cannot be */
    p.dtype = NCL_FLOAT32;
    NCL_CHECK_STATUS(NclReduce(NCL_ARGMIN, f, &r, &p), NCL_ERR_DTYPE);
    NCL_CHECK_STATUS(NclReduce(NCL_ANY, f, &r, &p), NCL_ERR_DTYPE);
    p.dtype = NCL_BOOL;
    NCL_CHECK_STATUS(NclReduce(NCL_MEAN, f, &r, &p), NCL_ERR_DTYPE);
    ck_assert_ptr_null(r);
    NclArrayRelease(f);
    NclArrayRelease(bb);
    NclArrayRelease(b);
    NclArrayRelease(a);
}
END_TEST

/* ---- where=, initial= ---------------------------------------------------------- */

START_TEST(t_where_and_initial)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 3), 1, 2, 3, 4, 5, 6);
    NclArray *m = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(3), 1, 0, 1); /* broadcast over rows */
    NclParams p = NCL_PARAMS_INIT;
    const int ax1 = 1, ax0 = 0;
    p.where = m;
    p.axes = &ax1;
    p.naxes = 1;
    NclArray *r = reduce_ok(NCL_SUM, a, &p);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 4);
    ck_assert_double_eq(ncl_test_get_d(r, 1), 10);
    NclArrayRelease(r);
    r = reduce_ok(NCL_MEAN, a, &p);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 2);
    ck_assert_double_eq(ncl_test_get_d(r, 1), 5);
    NclArrayRelease(r);
    r = reduce_ok(NCL_PROD, a, &p);
    ck_assert_double_eq(ncl_test_get_d(r, 1), 24);
    NclArrayRelease(r);
    r = reduce_ok(NCL_COUNT_NONZERO, a, &p);
    ck_assert_int_eq(ncl_test_get_i(r, 0), 2);
    NclArrayRelease(r);
    /* min/max with where and no initial: fine while every output keeps
       something; argmin/argmax index the kept elements */
    r = reduce_ok(NCL_MAX, a, &p);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 3);
    NclArrayRelease(r);
    r = reduce_ok(NCL_ARGMAX, a, &p);
    ck_assert_int_eq(ncl_test_get_i(r, 0), 2);
    NclArrayRelease(r);
    r = reduce_ok(NCL_ARGMIN, a, &p);
    ck_assert_int_eq(ncl_test_get_i(r, 1), 0);
    NclArrayRelease(r);
    /* initial starts every reduction */
    const double ini = 100;
    p.initial = &ini;
    r = reduce_ok(NCL_SUM, a, &p);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 104);
    NclArrayRelease(r);
    r = reduce_ok(NCL_MAX, a, &p);
    ck_assert_double_eq(ncl_test_get_d(r, 1), 100);
    NclArrayRelease(r);
    const double lo = -1;
    p.initial = &lo;
    r = reduce_ok(NCL_MIN, a, &p);
    ck_assert_double_eq(ncl_test_get_d(r, 0), -1);
    NclArrayRelease(r);

    /* a mask that keeps nothing for one output */
    NclArray *none = ncl_test_arr(NCL_BOOL, 2, NCL_DIMS(2, 3), 0, 1, 0, 0, 0, 0);
    p.where = none;
    p.initial = NULL;
    r = reduce_ok(NCL_SUM, a, &p);
    ck_assert_double_eq(ncl_test_get_d(r, 1), 0);
    ck_assert_int_eq(signbit(ncl_test_get_d(r, 1)), 0);
    NclArrayRelease(r);
    r = reduce_ok(NCL_MEAN, a, &p);
    ck_assert(isnan(ncl_test_get_d(r, 1)));
    ck_assert(NclGetFPErrors() & NCL_FPE_INVALID);
    NclArrayRelease(r);
    r = reduce_ok(NCL_ALL, a, &p);
    ck_assert_int_eq(ncl_test_get_i(r, 1), 1);
    NclArrayRelease(r);
    r = reduce_ok(NCL_ANY, a, &p);
    ck_assert_int_eq(ncl_test_get_i(r, 1), 0);
    NclArrayRelease(r);
    for (int op = NCL_MIN; op <= NCL_ARGMAX; op++) {
        if (op == NCL_ANY || op == NCL_ALL) continue;
        r = NULL;
        NCL_CHECK_STATUS(NclReduce((NclReduceOp)op, a, &r, &p), NCL_ERR_INVALID_ARGUMENT);
        NCL_CHECK_MESSAGE_HAS("selects no element");
        ck_assert_ptr_null(r);
    }
    p.initial = &ini;
    r = reduce_ok(NCL_MIN, a, &p);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 2);
    ck_assert_double_eq(ncl_test_get_d(r, 1), 100);
    NclArrayRelease(r);

    /* a masked sum of -0.0 starts from +0.0, as NumPy's */
    NclArray *z = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), -0.0, -0.0);
    NclArray *all = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(2), 1, 1);
    r = reduce_ok(NCL_SUM, z, NULL);
    ck_assert_int_eq(signbit(ncl_test_get_d(r, 0)) != 0, 1);
    NclArrayRelease(r);
    NclParams pz = NCL_PARAMS_INIT;
    pz.where = all;
    r = reduce_ok(NCL_SUM, z, &pz);
    ck_assert_int_eq(signbit(ncl_test_get_d(r, 0)), 0);
    NclArrayRelease(r);

    /* initial is refused where NumPy has none */
    p.where = NULL;
    p.axes = &ax0;
    for (int op = NCL_ARGMIN; op < NCL_REDUCE_NOPS; op++) {
        if (op == NCL_ARGMIN || op == NCL_ARGMAX || op == NCL_MEAN || op == NCL_COUNT_NONZERO ||
            op == NCL_CUMSUM || op == NCL_CUMPROD) {
            r = NULL;
            const int64_t i64 = 0;
            p.initial = &i64;
            NCL_CHECK_STATUS(NclReduce((NclReduceOp)op, a, &r, &p), NCL_ERR_INVALID_ARGUMENT);
            NCL_CHECK_MESSAGE_HAS("initial");
            ck_assert_ptr_null(r);
        }
    }
    /* where= is refused by the accumulations */
    r = NULL;
    p.initial = NULL;
    p.where = m;
    p.axes = &ax1;
    NCL_CHECK_STATUS(NclReduce(NCL_CUMSUM, a, &r, &p), NCL_ERR_INVALID_ARGUMENT);
    NclArrayRelease(all);
    NclArrayRelease(z);
    NclArrayRelease(none);
    NclArrayRelease(m);
    NclArrayRelease(a);
}
END_TEST

/* integer initial with a widening accumulator keeps its sign */
START_TEST(t_initial_integer)
{
    NclArray *a = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(3), 1, 2, 3);
    NclParams p = NCL_PARAMS_INIT;
    const int64_t ini = -10;
    p.initial = &ini;
    NclArray *r = reduce_ok(NCL_SUM, a, &p);
    ck_assert_int_eq(ncl_test_get_i(r, 0), -4);
    NclArrayRelease(r);
    const int16_t ini16 = -300;
    p.dtype = NCL_INT16;
    p.initial = &ini16;
    r = reduce_ok(NCL_SUM, a, &p);
    ck_assert_int_eq(NclArrayDType(r), NCL_INT16);
    ck_assert_int_eq(ncl_test_get_i(r, 0), -294);
    NclArrayRelease(r);
    const int8_t ini8 = -5;
    p.dtype = NCL_DTYPE_DEFAULT;
    p.initial = &ini8;
    r = reduce_ok(NCL_MIN, a, &p);
    ck_assert_int_eq(ncl_test_get_i(r, 0), -5);
    NclArrayRelease(r);
    const uint8_t bt = 1;
    p.initial = &bt;
    r = reduce_ok(NCL_ANY, a, &p);
    ck_assert_int_eq(ncl_test_get_i(r, 0), 1);
    NclArrayRelease(r);
    NclArrayRelease(a);
}
END_TEST

/* ---- empty reductions -------------------------------------------------------------- */

START_TEST(t_empty)
{
    NclArray *e = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(3, 0));
    const int ax1 = 1, ax0 = 0;
    NclParams p = NCL_PARAMS_INIT;
    p.axes = &ax1;
    p.naxes = 1;
    NclArray *r = reduce_ok(NCL_SUM, e, &p);
    ck_assert_int_eq(NclArrayShape(r)[0], 3);
    ck_assert_double_eq(ncl_test_get_d(r, 2), 0);
    ck_assert_int_eq(signbit(ncl_test_get_d(r, 2)), 0);
    NclArrayRelease(r);
    r = reduce_ok(NCL_PROD, e, &p);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 1);
    NclArrayRelease(r);
    r = reduce_ok(NCL_ANY, e, &p);
    ck_assert_int_eq(ncl_test_get_i(r, 0), 0);
    NclArrayRelease(r);
    r = reduce_ok(NCL_ALL, e, &p);
    ck_assert_int_eq(ncl_test_get_i(r, 0), 1);
    NclArrayRelease(r);
    r = reduce_ok(NCL_COUNT_NONZERO, e, &p);
    ck_assert_int_eq(ncl_test_get_i(r, 1), 0);
    NclArrayRelease(r);
    r = reduce_ok(NCL_MEAN, e, &p);
    ck_assert(isnan(ncl_test_get_d(r, 0)));
    ck_assert_int_eq(NclGetFPErrors() & NCL_FPE_INVALID, NCL_FPE_INVALID);
    NclArrayRelease(r);
    r = reduce_ok(NCL_CUMSUM, e, &p);
    ck_assert_int_eq(NclArraySize(r), 0);
    NclArrayRelease(r);

    r = NULL;
    NCL_CHECK_STATUS(NclReduce(NCL_MIN, e, &r, &p), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("zero-size array to reduction operation minimum which has no identity");
    NCL_CHECK_STATUS(NclReduce(NCL_MAX, e, &r, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("maximum");
    NCL_CHECK_STATUS(NclReduce(NCL_ARGMIN, e, &r, &p), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("empty sequence");
    ck_assert_ptr_null(r);
    const double ini = 7.5;
    p.initial = &ini;
    r = reduce_ok(NCL_MIN, e, &p);
    ck_assert_double_eq(ncl_test_get_d(r, 1), 7.5);
    NclArrayRelease(r);
    /* no output at all: nothing reduces nothing */
    p.initial = NULL;
    p.axes = &ax0;
    r = reduce_ok(NCL_MIN, e, &p);
    ck_assert_int_eq(NclArraySize(r), 0);
    NclArrayRelease(r);
    r = reduce_ok(NCL_ARGMAX, e, &p);
    ck_assert_int_eq(NclArraySize(r), 0);
    NclArrayRelease(r);
    NclArrayRelease(e);
}
END_TEST

START_TEST(t_zero_d_and_no_axes)
{
    NclArray *s = ncl_test_arr(NCL_FLOAT64, 0, NULL, -2.5);
    for (int op = 0; op < NCL_REDUCE_NOPS; op++) {
        NclArray *r = reduce_ok((NclReduceOp)op, s, NULL);
        const int cum = op == NCL_CUMSUM || op == NCL_CUMPROD || op == NCL_NANCUMSUM ||
                        op == NCL_NANCUMPROD;
        ck_assert_int_eq(NclArrayNDim(r), cum ? 1 : 0);
        ck_assert_int_eq(NclArraySize(r), 1);
        NclArrayRelease(r);
    }
    const int ax0 = 0;
    NclArray *r = NULL;
    NclParams p = NCL_PARAMS_INIT;
    p.axes = &ax0;
    p.naxes = 1;
    NCL_CHECK_STATUS(NclReduce(NCL_SUM, s, &r, &p), NCL_ERR_AXIS);
    NclArrayRelease(s);
    /* axes given, none of them: every output reduces its one element */
    NclArray *a = ncl_test_arr(NCL_INT8, 2, NCL_DIMS(2, 2), -1, 2, -3, 4);
    p.naxes = 0;
    r = reduce_ok(NCL_SUM, a, &p);
    ck_assert_int_eq(NclArrayDType(r), NCL_INT64);
    ck_assert_int_eq(NclArrayNDim(r), 2);
    ck_assert_int_eq(ncl_test_get_i(r, 2), -3);
    NclArrayRelease(r);
    r = NULL;
    NCL_CHECK_STATUS(NclReduce(NCL_ARGMAX, a, &r, &p), NCL_ERR_AXIS);
    ck_assert_ptr_null(r);
    NclArrayRelease(a);
}
END_TEST

/* ---- NaN, signed zeros, wrap-around -------------------------------------------- */

START_TEST(t_nan_and_zeros)
{
    const double nan = NAN;
    NclArray *f = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(5), 1.0, nan, -INFINITY, nan, 3.0);
    int before;
    for (int lay = 0; lay < NCL_TEST_NLAYOUTS; lay++) {
        NclArray *a = ncl_test_layout_of(f, (ncl_test_layout)lay);
        NclArray *r = reduce_ok(NCL_MIN, a, NULL);
        ck_assert(isnan(ncl_test_get_d(r, 0)));
        /* a NaN is not an invalid operation for a reduction */
        before = NclGetFPErrors();
        ck_assert_int_eq(before & NCL_FPE_INVALID, 0);
        NclArrayRelease(r);
        r = reduce_ok(NCL_MAX, a, NULL);
        ck_assert(isnan(ncl_test_get_d(r, 0)));
        NclArrayRelease(r);
        r = reduce_ok(NCL_ARGMIN, a, NULL);
        ck_assert_int_eq(ncl_test_get_i(r, 0), 1);
        NclArrayRelease(r);
        r = reduce_ok(NCL_ARGMAX, a, NULL);
        ck_assert_int_eq(ncl_test_get_i(r, 0), 1);
        ck_assert_int_eq(NclGetFPErrors() & NCL_FPE_INVALID, 0);
        NclArrayRelease(r);
        NclArrayRelease(a);
    }
    NclArrayRelease(f);

    /* ties of -0.0 and +0.0: the last in the sequence, in any layout (NumPy
       gives -0.0 for [0.0, -0.0] and 0.0 for [-0.0, 0.0]) */
    for (int first_neg = 0; first_neg < 2; first_neg++) {
        NclArray *z = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(3, 40));
        for (int64_t i = 0; i < 120; i++) ncl_test_set_d(z, i, (i % 40 == 39) ? (first_neg ? 0.0 : -0.0) : (first_neg ? -0.0 : 0.0));
        ncl_test_set_d(z, 45, 5.0); /* row 1 has a positive too */
        const int ax1 = 1;
        for (int lay = 0; lay < NCL_TEST_NLAYOUTS; lay++) {
            NclArray *a = ncl_test_layout_of(z, (ncl_test_layout)lay);
            for (int op = NCL_MIN; op <= NCL_MAX; op++) {
                NclArray *r = reduce_axes((NclReduceOp)op, a, &ax1, 1, 0);
                for (int row = 0; row < 3; row++) {
                    if (op == NCL_MAX && row == 1) {
                        ck_assert_double_eq(ncl_test_get_d(r, row), 5.0);
                        continue;
                    }
                    ck_assert_double_eq(ncl_test_get_d(r, row), 0.0);
                    ck_assert_msg((signbit(ncl_test_get_d(r, row)) != 0) == !first_neg,
                                  "op %d layout %s row %d: sign of the last zero", op,
                                  layout_names[lay], row);
                }
                NclArrayRelease(r);
                r = reduce_ok((NclReduceOp)op, a, NULL);
                if (op == NCL_MIN)
                    ck_assert_msg((signbit(ncl_test_get_d(r, 0)) != 0) == !first_neg,
                                  "flat min layout %s", layout_names[lay]);
                NclArrayRelease(r);
            }
            NclArray *r = reduce_axes(NCL_ARGMIN, a, &ax1, 1, 0);
            ck_assert_int_eq(ncl_test_get_i(r, 0), 0); /* -0.0 == 0.0: the first */
            NclArrayRelease(r);
            NclArrayRelease(a);
        }
        NclArrayRelease(z);
    }
}
END_TEST

START_TEST(t_integer_wrap)
{
    NclArray *a = ncl_test_arr_int(NCL_INT64, 1, NCL_DIMS(4), INT64_C(1) << 62, INT64_C(1) << 62,
                                   INT64_C(1) << 62, -5);
    NclArray *r = reduce_ok(NCL_SUM, a, NULL);
    ck_assert_int_eq(ncl_test_get_i(r, 0), INT64_MIN + (INT64_C(1) << 62) - 5);
    NclArrayRelease(r);
    r = reduce_ok(NCL_PROD, a, NULL);
    ck_assert_int_eq(ncl_test_get_i(r, 0), 0);
    NclArrayRelease(r);
    r = reduce_ok(NCL_CUMSUM, a, NULL);
    ck_assert_int_eq(ncl_test_get_i(r, 1), INT64_MIN);
    NclArrayRelease(r);
    NclArrayRelease(a);
    NclArray *u = ncl_test_arr_uint(NCL_UINT64, 1, NCL_DIMS(2), UINT64_MAX, 2);
    r = reduce_ok(NCL_SUM, u, NULL);
    ck_assert_uint_eq(ncl_test_get_u(r, 0), 1);
    NclArrayRelease(r);
    r = reduce_ok(NCL_MEAN, u, NULL);
    ck_assert_double_eq(ncl_test_get_d(r, 0), ((double)UINT64_MAX + 2.0) / 2);
    NclArrayRelease(r);
    NclArrayRelease(u);
    NclArray *b = ncl_test_arr(NCL_UINT8, 1, NCL_DIMS(3), 255, 255, 3);
    r = reduce_ok(NCL_SUM, b, NULL);
    ck_assert_int_eq(NclArrayDType(r), NCL_UINT64);
    ck_assert_uint_eq(ncl_test_get_u(r, 0), 513);
    NclArrayRelease(r);
    NclArrayRelease(b);
}
END_TEST

/* ---- provided outputs and refusals ------------------------------------------- */

/* The refusal of a call into a provided output o: the status, a message
   naming the call, and o untouched. */
#define CHECK_REFUSED(call, status, o)                                      \
    do {                                                                    \
        NclArray *o_in_ = (o);                                              \
        const uint64_t h_ = o_in_ ? ncl_test_hash(o_in_) : 0;               \
        NCL_CHECK_STATUS(call, status);                                     \
        NCL_CHECK_MESSAGE_HAS("NclReduce(");                                \
        if (o_in_) ck_assert_uint_eq(ncl_test_hash(o_in_), h_);             \
    } while (0)

START_TEST(t_provided_output)
{
    NclArray *a = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 3), 1, 2, 3, 4, 5, 6);
    const int ax1 = 1, ax0 = 0;
    NclParams p = NCL_PARAMS_INIT;
    p.axes = &ax1;
    p.naxes = 1;
    /* a strided float64 output: int64 -> float64 is same_kind */
    NclArray *big = ncl_test_new(NCL_FLOAT64, 1, NCL_DIMS(4));
    NclArray *o = NULL;
    NCL_CHECK_OK(NclArraySlice(big, NCL_DIMS(0), NCL_DIMS(4), NCL_DIMS(2), &o));
    NclArray *keep = o;
    NCL_CHECK_OK(NclReduce(NCL_SUM, a, &o, &p));
    ck_assert_ptr_eq(o, keep);
    ck_assert_double_eq(ncl_test_get_d(big, 0), 6);
    ck_assert_double_eq(ncl_test_get_d(big, 1), 0);
    ck_assert_double_eq(ncl_test_get_d(big, 2), 15);
    /* mean into float32 is same_kind */
    NclArray *o32 = ncl_test_new(NCL_FLOAT32, 1, NCL_DIMS(2));
    NCL_CHECK_OK(NclReduce(NCL_MEAN, a, &o32, &p));
    ck_assert_double_eq(ncl_test_get_d(o32, 1), 5);
    /* keepdims shape */
    NclArray *ok2 = ncl_test_new(NCL_INT64, 2, NCL_DIMS(2, 1));
    p.keepdims = 1;
    NCL_CHECK_OK(NclReduce(NCL_MAX, a, &ok2, &p));
    ck_assert_int_eq(ncl_test_get_i(ok2, 1), 6);
    /* the wrong shape (without keepdims the result is (2,)) */
    p.keepdims = 0;
    CHECK_REFUSED(NclReduce(NCL_SUM, a, &ok2, &p), NCL_ERR_SHAPE, ok2);
    NCL_CHECK_MESSAGE_HAS("(2,1)");
    p.axes = &ax0;
    CHECK_REFUSED(NclReduce(NCL_SUM, a, &o, &p), NCL_ERR_SHAPE, o);
    /* a dtype the result may not be cast to */
    NclArray *oi = ncl_test_new(NCL_INT32, 1, NCL_DIMS(3));
    CHECK_REFUSED(NclReduce(NCL_MEAN, a, &oi, &p), NCL_ERR_CASTING, oi);
    NCL_CHECK_MESSAGE_HAS("float64");
    NclArray *ob = ncl_test_new(NCL_BOOL, 1, NCL_DIMS(3));
    CHECK_REFUSED(NclReduce(NCL_SUM, a, &ob, &p), NCL_ERR_CASTING, ob);
    p.casting = NCL_CASTING_UNSAFE;
    NCL_CHECK_OK(NclReduce(NCL_SUM, a, &ob, &p));
    ck_assert_int_eq(ncl_test_get_i(ob, 0), 1);
    p.casting = NCL_CASTING_NO;
    NclArray *o64 = ncl_test_new(NCL_INT64, 1, NCL_DIMS(3));
    NCL_CHECK_OK(NclReduce(NCL_SUM, a, &o64, &p)); /* the default widening is not a cast */
    ck_assert_int_eq(ncl_test_get_i(o64, 2), 9);
    p.casting = NCL_CASTING_SAME_KIND;
    /* read-only */
    NclArray *ro = NULL;
    int64_t buf[3] = {7, 7, 7};
    NCL_CHECK_OK(NclFromData(NCL_INT64, 1, NCL_DIMS(3), NULL, buf, 0, NULL, NULL, &ro));
    CHECK_REFUSED(NclReduce(NCL_SUM, a, &ro, &p), NCL_ERR_READONLY, ro);
    ck_assert_int_eq(buf[0], 7);
    /* cumsum into a strided output */
    NclArray *cbig = ncl_test_new(NCL_INT64, 2, NCL_DIMS(2, 6));
    NclArray *co = NULL;
    NCL_CHECK_OK(NclArraySlice(cbig, NULL, NULL, NCL_DIMS(1, 2), &co));
    p.axes = &ax1;
    NCL_CHECK_OK(NclReduce(NCL_CUMSUM, a, &co, &p));
    ck_assert_int_eq(ncl_test_get_i(cbig, 4), 6);
    ck_assert_int_eq(ncl_test_get_i(cbig, 3), 0);
    ck_assert_int_eq(ncl_test_get_i(co, 5), 15);
    NclArrayRelease(co);
    NclArrayRelease(cbig);
    NclArrayRelease(ro);
    NclArrayRelease(o64);
    NclArrayRelease(ob);
    NclArrayRelease(oi);
    NclArrayRelease(ok2);
    NclArrayRelease(o32);
    NclArrayRelease(o);
    NclArrayRelease(big);
    NclArrayRelease(a);
}
END_TEST

START_TEST(t_bad_inputs)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 3), 1, 2, 3, 4, 5, 6);
    NclArray *o = ncl_test_new(NCL_FLOAT64, 1, NCL_DIMS(3));
    NclArray *r = NULL;
    NclParams p = NCL_PARAMS_INIT;
    const int bad[] = {2}, neg_bad[] = {-3}, dup[] = {0, -2}, three[] = {0, 1, 0}, two[] = {0, 1};
    CHECK_REFUSED(NclReduce(NCL_SUM, NULL, &r, NULL), NCL_ERR_INVALID_ARGUMENT, NULL);
    NCL_CHECK_MESSAGE_HAS("input");
    CHECK_REFUSED(NclReduce(NCL_SUM, a, NULL, NULL), NCL_ERR_INVALID_ARGUMENT, NULL);
    NCL_CHECK_STATUS(NclReduce((NclReduceOp)NCL_REDUCE_NOPS, a, &r, NULL),
                     NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclReduce((NclReduceOp)-1, a, &r, NULL), NCL_ERR_INVALID_ARGUMENT);
    p.axes = bad;
    p.naxes = 1;
    CHECK_REFUSED(NclReduce(NCL_SUM, a, &o, &p), NCL_ERR_AXIS, o);
    NCL_CHECK_MESSAGE_HAS("axis 2");
    NCL_CHECK_MESSAGE_HAS("(2,3)");
    p.axes = neg_bad;
    CHECK_REFUSED(NclReduce(NCL_SUM, a, &o, &p), NCL_ERR_AXIS, o);
    p.axes = dup;
    p.naxes = 2;
    CHECK_REFUSED(NclReduce(NCL_SUM, a, &o, &p), NCL_ERR_AXIS, o);
    NCL_CHECK_MESSAGE_HAS("twice");
    p.axes = three;
    p.naxes = 3;
    CHECK_REFUSED(NclReduce(NCL_SUM, a, &o, &p), NCL_ERR_AXIS, o);
    p.naxes = -1;
    CHECK_REFUSED(NclReduce(NCL_SUM, a, &o, &p), NCL_ERR_AXIS, o);
    p.axes = two;
    p.naxes = 2;
    for (int op = NCL_ARGMIN; op < NCL_REDUCE_NOPS; op++) {
        if (op != NCL_ARGMIN && op != NCL_ARGMAX && op != NCL_CUMSUM && op != NCL_CUMPROD) continue;
        CHECK_REFUSED(NclReduce((NclReduceOp)op, a, &r, &p), NCL_ERR_AXIS, NULL);
        NCL_CHECK_MESSAGE_HAS("one axis");
    }
    ck_assert_ptr_null(r);
    /* params */
    NclParams small = NCL_PARAMS_INIT;
    small.size = 4;
    CHECK_REFUSED(NclReduce(NCL_SUM, a, &o, &small), NCL_ERR_INVALID_ARGUMENT, o);
    NclParams badc = NCL_PARAMS_INIT;
    badc.casting = (NclCasting)9;
    CHECK_REFUSED(NclReduce(NCL_SUM, a, &o, &badc), NCL_ERR_INVALID_ARGUMENT, o);
    /* where: not bool, not broadcastable */
    NclParams pw = NCL_PARAMS_INIT;
    NclArray *wi = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(3), 1, 0, 1);
    pw.where = wi;
    CHECK_REFUSED(NclReduce(NCL_SUM, a, &r, &pw), NCL_ERR_DTYPE, NULL);
    NclArray *wb = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(2), 1, 0);
    pw.where = wb;
    CHECK_REFUSED(NclReduce(NCL_SUM, a, &r, &pw), NCL_ERR_BROADCAST, NULL);
    NCL_CHECK_MESSAGE_HAS("(2,)");
    ck_assert_ptr_null(r);
    /* an output with internal overlap */
    NclArray *ov = NULL;
    double cell = 0;
    NCL_CHECK_OK(NclFromData(NCL_FLOAT64, 1, NCL_DIMS(3), NCL_DIMS(0), &cell, NCL_ARRAY_WRITEABLE,
                             NULL, NULL, &ov));
    p.axes = two;
    p.naxes = 1;
    CHECK_REFUSED(NclReduce(NCL_SUM, a, &ov, &p), NCL_ERR_INVALID_ARGUMENT, ov);
    /* device memory, input or output */
    double dev[6] = {0};
    NclArray *d = NULL;
    NCL_CHECK_OK(NclFromDataKind(NCL_FLOAT64, 2, NCL_DIMS(2, 3), NULL, dev, NCL_ARRAY_WRITEABLE,
                                 NULL, NULL, NCL_MEM_DEVICE, 0, &d));
    CHECK_REFUSED(NclReduce(NCL_SUM, d, &r, NULL), NCL_ERR_DEVICE_MEMORY, NULL);
    NclArray *dout = NULL;
    NCL_CHECK_OK(NclFromDataKind(NCL_FLOAT64, 0, NULL, NULL, dev, NCL_ARRAY_WRITEABLE, NULL, NULL,
                                 NCL_MEM_DEVICE, 0, &dout));
    CHECK_REFUSED(NclReduce(NCL_SUM, a, &dout, NULL), NCL_ERR_DEVICE_MEMORY, NULL);
    ck_assert_ptr_null(r);
    NclArrayRelease(dout);
    NclArrayRelease(d);
    NclArrayRelease(ov);
    NclArrayRelease(wb);
    NclArrayRelease(wi);
    NclArrayRelease(o);
    NclArrayRelease(a);
}
END_TEST

/* Outputs that overlap the input: the result is that of a copy. */
START_TEST(t_overlap)
{
    NclArray *a = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(5), 1, 2, 3, 4, 5);
    NclArray *same = a;
    NCL_CHECK_OK(NclReduce(NCL_CUMSUM, a, &same, NULL));
    const int64_t want[5] = {1, 3, 6, 10, 15};
    for (int i = 0; i < 5; i++) ck_assert_int_eq(ncl_test_get_i(a, i), want[i]);
    /* reversed view of itself as the output */
    NclArray *rev = NULL;
    NCL_CHECK_OK(NclArraySlice(a, NCL_DIMS(INT64_MIN), NCL_DIMS(INT64_MIN), NCL_DIMS(-1), &rev));
    NCL_CHECK_OK(NclReduce(NCL_CUMSUM, a, &rev, NULL));
    const int64_t want2[5] = {35, 20, 10, 4, 1};
    for (int i = 0; i < 5; i++) ck_assert_int_eq(ncl_test_get_i(a, i), want2[i]);
    /* a reduction written into an element of its input */
    NclArray *m = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 2), 1, 2, 3, 4);
    NclArray *col = NULL;
    NCL_CHECK_OK(NclArraySlice(m, NULL, NULL, NCL_DIMS(1, 2), &col)); /* (2,1) */
    NclArray *col1 = NULL;
    NCL_CHECK_OK(NclArrayReshape(col, 1, NCL_DIMS(2), &col1));
    const int ax1 = 1;
    NclParams p = NCL_PARAMS_INIT;
    p.axes = &ax1;
    p.naxes = 1;
    NCL_CHECK_OK(NclReduce(NCL_SUM, m, &col1, &p));
    ck_assert_double_eq(ncl_test_get_d(m, 0), 3);
    ck_assert_double_eq(ncl_test_get_d(m, 2), 7);
    NclArrayRelease(col1);
    NclArrayRelease(col);
    NclArrayRelease(m);
    NclArrayRelease(rev);
    NclArrayRelease(a);
}
END_TEST

/* ---- bitwise layout independence ---------------------------------------------- */

/* Floats over a wide dynamic range, with cancellation (prod_data: values
   near 1, so that long products stay finite). */
static void fill_wide(const NclArray *a, uint64_t *seed, int prod_data)
{
    const NclDType t = NclArrayDType(a);
    const int span = t == NCL_FLOAT32 ? 20 : 60;
    for (int64_t i = 0, n = NclArraySize(a); i < n; i++) {
        const uint64_t r = ncl_test_rand(seed);
        const double m = (double)(r >> 11) / 9007199254740992.0;
        double v;
        if (prod_data) {
            v = 0.75 + 0.5 * m;
            if (r & 1) v = -v;
        } else {
            const int e = (int)((r >> 3) % (uint64_t)(2 * span)) - span;
            v = ldexp(0.5 + m, e);
            if (r & 1) v = -v;
        }
        ncl_test_set_d(a, i, v);
    }
}

static int same_bits(const NclArray *x, const NclArray *y)
{
    if (NclArraySize(x) != NclArraySize(y) || NclArrayDType(x) != NclArrayDType(y)) return 0;
    const size_t sz = NclDTypeSize(NclArrayDType(x));
    for (int64_t i = 0; i < NclArraySize(x); i++)
        if (memcmp(ncl_test_ptr(x, i), ncl_test_ptr(y, i), sz) != 0) return 0;
    return 1;
}

START_TEST(t_layout_bitwise)
{
    /* lengths around the chunk (1024), the block (128) and the column strip */
    static const int64_t shapes[][3] = {{7, 2100, 0}, {2100, 9, 0}, {3, 5, 700}, {1, 1025, 0},
                                        {130, 17, 0}, {4, 3, 2}};
    static const int nds[] = {2, 2, 3, 2, 2, 3};
    static const NclReduceOp ops[] = {NCL_SUM, NCL_PROD, NCL_MEAN, NCL_CUMSUM};
    uint64_t seed = 42;
    for (int si = 0; si < 6; si++)
        for (int dt = 0; dt < 2; dt++)
            for (size_t oi = 0; oi < 4; oi++) {
                const NclDType t = dt ? NCL_FLOAT64 : NCL_FLOAT32;
                const int nd = nds[si];
                NclArray *src = ncl_test_new(t, nd, shapes[si]);
                fill_wide(src, &seed, ops[oi] == NCL_PROD);
                for (int k = -1; k < nd + (nd == 3); k++) {
                    const int two[2] = {0, 2};
                    const int *axes = k < 0 ? NULL : k == nd ? two : &k;
                    const int naxes = k == nd ? 2 : 1;
                    if (ops[oi] == NCL_CUMSUM && (k < 0 || k == nd)) continue;
                    NclArray *ref = NULL;
                    for (int lay = 0; lay < NCL_TEST_NLAYOUTS; lay++) {
                        NclArray *a = ncl_test_layout_of(src, (ncl_test_layout)lay);
                        NclArray *r = reduce_axes(ops[oi], a, axes, naxes, 0);
                        if (!ref) {
                            ref = r;
                        } else {
                            ck_assert_msg(same_bits(r, ref),
                                          "op %d %s shape %d axis %d: layout %s differs from C",
                                          (int)ops[oi], NclDTypeName(t), si, k,
                                          layout_names[lay]);
                            NclArrayRelease(r);
                        }
                        NclArrayRelease(a);
                    }
                    /* a transposed view reduced over the matching axis */
                    if (nd == 2 && k >= 0) {
                        NclArray *tr = NULL, *tc = NULL;
                        const int64_t tsh[2] = {shapes[si][1], shapes[si][0]};
                        tc = ncl_test_new(t, 2, tsh);
                        for (int64_t i = 0; i < tsh[0]; i++)
                            for (int64_t j = 0; j < tsh[1]; j++)
                                memcpy(ncl_test_ptr(tc, i * tsh[1] + j),
                                       ncl_test_ptr(src, j * tsh[0] + i), NclDTypeSize(t));
                        NCL_CHECK_OK(NclArrayTranspose(tc, NULL, &tr));
                        NclArray *r = reduce_axes(ops[oi], tr, &k, 1, 0);
                        ck_assert_msg(same_bits(r, ref), "op %d transposed view axis %d",
                                      (int)ops[oi], k);
                        NclArrayRelease(r);
                        NclArrayRelease(tr);
                        NclArrayRelease(tc);
                    }
                    NclArrayRelease(ref);
                }
                NclArrayRelease(src);
            }
}
END_TEST

/* Long contiguous float64 sums run four chunks at a time in the vector
   variants; the sliced layout runs the chunk-by-chunk tree. Lengths around
   one group (4 chunks), a batch of groups (64 chunks) and their leftovers,
   with values that take the plain additions (beyond the compensation
   limit, infinite) in some runs. */
START_TEST(t_four_chunk_groups)
{
    static const int64_t lens[] = {4095, 4096, 4097, 5 * 1024 + 17, 8 * 1024, 12 * 1024 + 5,
                                   64 * 1024, 64 * 1024 + 4096 + 3 * 1024 + 7, 100003};
    uint64_t seed = 4;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
        for (int kind = 0; kind < 4; kind++) {
            const int64_t n = lens[li];
            NclArray *src = ncl_test_new(NCL_FLOAT64, 1, &n);
            fill_wide(src, &seed, 0);
            if (kind == 1) /* neighbours cancel: exact zeros in the folds */
                for (int64_t i = 1; i < n; i += 2)
                    ncl_test_set_d(src, i, -ncl_test_get_d(src, i - 1));
            if (kind == 2) /* beyond DBL_MAX / 64 in one chunk of each group */
                for (int64_t i = 1024; i < n; i += 4096 + 1)
                    ncl_test_set_d(src, i, (i % 3 ? -DBL_MAX : DBL_MAX) / 3);
            if (kind == 3) ncl_test_set_d(src, n / 2, INFINITY);
            NclArray *ref = NULL;
            for (int lay = 0; lay < NCL_TEST_NLAYOUTS; lay++) {
                NclArray *a = ncl_test_layout_of(src, (ncl_test_layout)lay);
                NclArray *r = reduce_axes(NCL_SUM, a, NULL, 0, 0);
                if (!ref) {
                    ref = r;
                } else {
                    ck_assert_msg(same_bits(r, ref), "n %lld kind %d: layout %s differs from C",
                                  (long long)n, kind, layout_names[lay]);
                    NclArrayRelease(r);
                }
                NclArrayRelease(a);
            }
            NclArrayRelease(ref);
            NclArrayRelease(src);
        }
}
END_TEST

/* A vector of n elements of dtype t, off bytes past a 64-byte boundary,
   alone in a block that ends where it ends: a read past its end is an
   error under the address sanitizer. */
static NclArray *new_vec_at(NclDType t, int64_t n, size_t off)
{
    void *block = NULL;
    ck_assert_int_eq(posix_memalign(&block, 64, off + (size_t)n * NclDTypeSize(t)), 0);
    NclArray *a = NULL;
    const NclStatus s = NclFromData(t, 1, &n, NULL, (char *)block + off, NCL_ARRAY_WRITEABLE,
                                    ncl_test_free_deleter, block, &a);
    if (s != NCL_OK) free(block);
    NCL_CHECK_OK(s);
    return a;
}

/* Contiguous float64 data 8, 16 or 24 bytes past a 32-byte boundary is read
   on the grid in the vector variants (reduce_simd.h), its lanes rotated by
   the offset. At every offset the sum has the bits of the strided
   (chunk-by-chunk) tree and the flags of the aligned run: wide values,
   all -0.0 (a masked lane filled with +0.0 would turn the sum to +0.0),
   values beyond the compensation limit that overflow, an infinity as the
   first or the last element (both reached only through the copies of the
   data's two ends), and a row of each of two chunks beyond the limit, whose
   folds then add plainly, in an order that shows lanes out of place. Lengths: one group, a group and a block, calls of
   RS_GROUPS_MAX groups and their leftovers. */
START_TEST(t_grid_offsets)
{
    static const int64_t lens[] = {4096, 4096 + 128, 2 * 4096 + 1023, 16 * 4096,
                                   17 * 4096, 35 * 4096 + 3001};
    static const size_t offs[] = {0, 8, 16, 24, 40, 48, 56, 1};
    uint64_t seed = 12;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
        for (int kind = 0; kind < 6; kind++) {
            const int64_t n = lens[li];
            NclArray *src = ncl_test_new(NCL_FLOAT64, 1, &n);
            fill_wide(src, &seed, 0);
            for (int64_t i = 0; i < n; i++) {
                if (kind == 1) ncl_test_set_d(src, i, -0.0);
                if (kind == 2 && i % 97 == 5) ncl_test_set_d(src, i, (i % 3 ? DBL_MAX : -DBL_MAX) / 5);
            }
            if (kind == 3) ncl_test_set_d(src, 0, INFINITY);
            if (kind == 4) ncl_test_set_d(src, n - 1, -INFINITY);
            if (kind == 5) /* a row of two chunks beyond the compensation limit */
                for (int64_t i = 0; i < 16; i++) {
                    const uint64_t r = ncl_test_rand(&seed);
                    const double v = ldexp(1.0 + (double)(r >> 12) / 4503599627370496.0, 1018);
                    ncl_test_set_d(src, 1024 + i, r & 1 ? -v : v);
                    ncl_test_set_d(src, n / 2048 * 1024 + i, r & 2 ? -v / 2 : v / 2);
                }
            NclArray *sl = ncl_test_layout_of(src, NCL_TEST_SLICED);
            NclArray *ref = reduce_axes(NCL_SUM, sl, NULL, 0, 0);
            NclArray *aligned = NULL;
            int aligned_flags = 0;
            for (size_t oi = 0; oi < sizeof offs / sizeof offs[0]; oi++) {
                NclArray *a = new_vec_at(NCL_FLOAT64, n, offs[oi]);
                for (int64_t i = 0; i < n; i++) ncl_test_set_d(a, i, ncl_test_get_d(src, i));
                NclArray *r = reduce_axes(NCL_SUM, a, NULL, 0, 0);
                const int flags = NclGetFPErrors();
                ck_assert_msg(same_bits(r, ref), "n %lld kind %d offset %zu: %.17g, strided %.17g",
                              (long long)n, kind, offs[oi], ncl_test_get_d(r, 0),
                              ncl_test_get_d(ref, 0));
                if (!aligned) {
                    aligned = r;
                    aligned_flags = flags;
                } else {
                    ck_assert_msg(flags == aligned_flags,
                                  "n %lld kind %d offset %zu: flags %#x, aligned %#x",
                                  (long long)n, kind, offs[oi], (unsigned)flags,
                                  (unsigned)aligned_flags);
                    NclArrayRelease(r);
                }
                NclArrayRelease(a);
            }
            if (kind == 1) ck_assert(signbit(ncl_test_get_d(ref, 0)));
            if (kind == 2) ck_assert(aligned_flags & NCL_FPE_OVERFLOW);
            NclArrayRelease(aligned);
            NclArrayRelease(ref);
            NclArrayRelease(sl);
            NclArrayRelease(src);
        }
}
END_TEST

/* Contiguous float min/max scan from the first 64-byte boundary in the
   vector variants (reduce_simd.h), the elements before it with the tail:
   at every element offset, at lengths shorter and longer than that head,
   the extreme and a NaN are found wherever they are, first, in the head,
   at the boundary, in the middle and last. */
START_TEST(t_minmax_offsets)
{
    static const NclDType types[] = {NCL_FLOAT64, NCL_FLOAT32};
    static const int64_t lens[] = {1, 3, 7, 8, 9, 16, 40, 71, 1000, 4099};
    for (int ti = 0; ti < 2; ti++)
        for (size_t off = 0; off < 64; off += NclDTypeSize(types[ti]))
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                const int64_t n = lens[li];
                const int64_t head = (int64_t)((64 - off) % 64 / NclDTypeSize(types[ti]));
                const int64_t where[] = {0, head - 1, head, head + 1, n / 2, n - 1};
                NclArray *a = new_vec_at(types[ti], n, off);
                for (size_t wi = 0; wi < sizeof where / sizeof where[0]; wi++) {
                    const int64_t k = where[wi];
                    if (k < 0 || k >= n) continue;
                    for (int what = 0; what < 3; what++) {
                        for (int64_t i = 0; i < n; i++)
                            ncl_test_set_d(a, i, (double)((i * 37) % 101) - 50.0);
                        const double big = what == 2 ? NAN : what == 0 ? 1000.0 : -1000.0;
                        ncl_test_set_d(a, k, big);
                        const NclReduceOp op = what == 1 ? NCL_MIN : NCL_MAX;
                        NclArray *r = reduce_axes(op, a, NULL, 0, 0);
                        const double got = ncl_test_get_d(r, 0);
                        ck_assert_msg(what == 2 ? isnan(got) : got == big,
                                      "%s %s, offset %zu, n %lld, at %lld: %g",
                                      what == 1 ? "min" : "max", NclDTypeName(types[ti]), off,
                                      (long long)n, (long long)k, got);
                        NclArrayRelease(r);
                    }
                }
                NclArrayRelease(a);
            }
}
END_TEST

/* The gathered path (a mask, a cast, several non-mergeable axes) gives the
   bits of the direct one. */
START_TEST(t_paths_agree)
{
    uint64_t seed = 7;
    NclArray *x = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(3, 3000));
    fill_wide(x, &seed, 0);
    const int ax1 = 1;
    NclArray *direct = reduce_axes(NCL_SUM, x, &ax1, 1, 0);
    NclArray *ones = ncl_test_arr(NCL_BOOL, 0, NULL, 1);
    NclParams p = NCL_PARAMS_INIT;
    p.axes = &ax1;
    p.naxes = 1;
    p.where = ones;
    NclArray *masked = reduce_ok(NCL_SUM, x, &p);
    ck_assert(same_bits(direct, masked));
    NclArrayRelease(masked);
    /* a mask that keeps everything but zeros, which contribute nothing */
    NclArray *xz = ncl_test_clone(x);
    NclArray *keepnz = ncl_test_new(NCL_BOOL, 2, NCL_DIMS(3, 3000));
    for (int64_t i = 0; i < 9000; i++) {
        const int zero = i % 7 == 3;
        if (zero) ncl_test_set_d(xz, i, 0.0);
        ncl_test_set_d(keepnz, i, !zero);
    }
    NclArray *zdirect = reduce_axes(NCL_SUM, xz, &ax1, 1, 0);
    p.where = keepnz;
    masked = reduce_ok(NCL_SUM, xz, &p);
    ck_assert(same_bits(zdirect, masked));
    NclArrayRelease(masked);
    /* cast path: int32 summed in float32 equals the float32 copy summed */
    NclArray *xi = ncl_test_new(NCL_INT32, 2, NCL_DIMS(3, 3000));
    NclArray *xf = ncl_test_new(NCL_FLOAT32, 2, NCL_DIMS(3, 3000));
    for (int64_t i = 0; i < 9000; i++) {
        const int64_t v = (int64_t)(ncl_test_rand(&seed) % 2000001) - 1000000;
        ncl_test_set_i(xi, i, v);
        ncl_test_set_d(xf, i, (double)(float)v);
    }
    NclParams pc = NCL_PARAMS_INIT;
    pc.axes = &ax1;
    pc.naxes = 1;
    pc.dtype = NCL_FLOAT32;
    NclArray *cast = reduce_ok(NCL_SUM, xi, &pc);
    NclArray *plain = reduce_axes(NCL_SUM, xf, &ax1, 1, 0);
    ck_assert(same_bits(cast, plain));
    /* several axes: (A, B, C) over (0, 2) is the (B, A*C) rows of a copy */
    NclArray *c3 = ncl_test_new(NCL_FLOAT64, 3, NCL_DIMS(40, 3, 60));
    fill_wide(c3, &seed, 0);
    NclArray *rows = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(3, 2400));
    for (int64_t b = 0; b < 3; b++)
        for (int64_t i = 0; i < 40; i++)
            for (int64_t j = 0; j < 60; j++)
                ncl_test_set_d(rows, b * 2400 + i * 60 + j, ncl_test_get_d(c3, (i * 3 + b) * 60 + j));
    const int two[2] = {2, 0};
    NclArray *multi = reduce_axes(NCL_SUM, c3, two, 2, 0);
    NclArray *flat = reduce_axes(NCL_SUM, rows, &ax1, 1, 0);
    ck_assert(same_bits(multi, flat));
    NclArrayRelease(flat);
    NclArrayRelease(multi);
    NclArrayRelease(rows);
    NclArrayRelease(c3);
    NclArrayRelease(plain);
    NclArrayRelease(cast);
    NclArrayRelease(xf);
    NclArrayRelease(xi);
    NclArrayRelease(zdirect);
    NclArrayRelease(keepnz);
    NclArrayRelease(xz);
    NclArrayRelease(ones);
    NclArrayRelease(direct);
    NclArrayRelease(x);
}
END_TEST

/* ncl/reduce.h: c > 1 chunks reduce to (first 2**a chunks) + (the rest),
   2**a the largest power of two below c, the two parts' (hi, lo) pairs
   added compensated: what lets a pool split one long sum. Checked from a
   kernel hook in front of the float64 sum kernel, which runs the built-in
   kernel on the parts with aux->lo and adds them as the header says. */
typedef struct split_dd { double hi, lo; } split_dd;

static split_dd split_add(split_dd a, split_dd b)
{
    split_dd r;
    const double s = a.hi + b.hi, bb = s - a.hi;
    const double e = (a.hi - (s - bb)) + (b.hi - bb);
    const double t = e + (a.lo + b.lo);
    if (t == 0) {
        r.hi = s;
        r.lo = 0;
        return r;
    }
    r.hi = s + t;
    const double tt = r.hi - s;
    r.lo = (s - (r.hi - tt)) + (t - tt);
    return r;
}

/* Long reductions split across the pool's workers, each running the
   kernel: the count is atomic. */
static atomic_int split_checked;

static NclStatus split_kernel(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                              int64_t n, const int64_t *steps)
{
    const NclReduceAux *ax = (const NclReduceAux *)ctx->aux;
    if (ax->count == 1 && n > NCL_REDUCE_CHUNK && steps[0] == 8) {
        const int64_t c = (n + NCL_REDUCE_CHUNK - 1) / NCL_REDUCE_CHUNK;
        int64_t half = 1;
        while (2 * half < c) half *= 2;
        const int64_t cut = half * NCL_REDUCE_CHUNK;
        NclReduceAux part = *ax;
        NclKernelCtx pctx = *ctx;
        pctx.aux = &part;
        split_dd lo = {0, 0}, hi = {0, 0}, whole = {0, 0};
        const int64_t st[2] = {8, 8};
        char *a1[2] = {args[0], (char *)&lo.hi};
        part.lo = &lo.lo;
        NCL_CHECK_OK(NclKernelNext(self, &pctx, a1, cut, st));
        char *a2[2] = {args[0] + cut * 8, (char *)&hi.hi};
        part.lo = &hi.lo;
        NCL_CHECK_OK(NclKernelNext(self, &pctx, a2, n - cut, st));
        char *a3[2] = {args[0], (char *)&whole.hi};
        part.lo = &whole.lo;
        NCL_CHECK_OK(NclKernelNext(self, &pctx, a3, n, st));
        const split_dd parts = split_add(lo, hi);
        ck_assert_msg(memcmp(&parts.hi, &whole.hi, 8) == 0 && memcmp(&parts.lo, &whole.lo, 8) == 0,
                      "n %lld: whole (%.17g, %.3g), parts (%.17g, %.3g)", (long long)n, whole.hi,
                      whole.lo, parts.hi, parts.lo);
        atomic_fetch_add(&split_checked, 1);
    }
    return NclKernelNext(self, ctx, args, n, steps);
}

START_TEST(t_tree_split)
{
    NclKernelNode node;
    memset(&node, 0, sizeof node);
    node.fn = split_kernel;
    node.name = "test_split";
    const NclDType sig[2] = {NCL_FLOAT64, NCL_FLOAT64};
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_REDUCE, NCL_SUM, sig, &node.list));
    uint64_t seed = 99;
    static const int64_t lens[] = {1025, 2048, 3000, 5 * 1024 + 17, 16 * 1024, 40000};
    atomic_store(&split_checked, 0);
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        const int64_t n = lens[li];
        NclArray *x = ncl_test_new(NCL_FLOAT64, 1, &n);
        fill_wide(x, &seed, 0);
        NclArray *whole = reduce_ok(NCL_SUM, x, NULL);
        NclArrayRelease(whole);
        NclArrayRelease(x);
    }
    NCL_CHECK_OK(NclKernelUnhook(&node.list));
    ck_assert_int_eq(atomic_load(&split_checked), 6);
}
END_TEST

/* ---- accuracy ------------------------------------------------------------------ */

/* The correctly rounded sum (Shewchuk's exact partials, as math.fsum). */
static double exact_sum(const double *x, int64_t n)
{
    double part[256];
    int np = 0;
    for (int64_t i = 0; i < n; i++) {
        double v = x[i];
        int k = 0;
        for (int j = 0; j < np; j++) {
            double y = part[j];
            if (fabs(v) < fabs(y)) {
                const double t = v;
                v = y;
                y = t;
            }
            const double hi = v + y, lo = y - (hi - v);
            if (lo != 0) part[k++] = lo;
            v = hi;
        }
        ck_assert_int_lt(k, 256);
        part[k++] = v;
        np = k;
    }
    double hi = 0;
    if (np > 0) {
        hi = part[--np];
        double lo = 0;
        while (np > 0) {
            const double v = hi, y = part[--np];
            hi = v + y;
            lo = y - (hi - v);
            if (lo != 0) break;
        }
        if (np > 0 && ((lo < 0 && part[np - 1] < 0) || (lo > 0 && part[np - 1] > 0))) {
            const double y = lo * 2, v = hi + y;
            if (y == v - hi) hi = v;
        }
    }
    return hi;
}

/* NumPy's pairwise summation, as its loops run it on contiguous data:
   blocks of up to 128 with eight accumulators, halves above that. */
static double pairwise(const double *x, int64_t n)
{
    if (n < 8) {
        double r = -0.0;
        for (int64_t i = 0; i < n; i++) r += x[i];
        return r;
    }
    if (n <= 128) {
        double r[8];
        for (int j = 0; j < 8; j++) r[j] = x[j];
        int64_t i = 8;
        for (; i < n - n % 8; i += 8)
            for (int j = 0; j < 8; j++) r[j] += x[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += x[i];
        return res;
    }
    int64_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise(x, n2) + pairwise(x + n2, n - n2);
}

START_TEST(t_accuracy_vs_pairwise)
{
    uint64_t seed = 2024;
    double err_ncl = 0, err_pw = 0;
    int worse = 0;
    const int trials = 300;
    double *buf = (double *)malloc(sizeof(double) * 70000);
    ck_assert_ptr_nonnull(buf);
    for (int t = 0; t < trials; t++) {
        const int64_t n = 1000 + (int64_t)(ncl_test_rand(&seed) % 60000);
        NclArray *x = ncl_test_new(NCL_FLOAT64, 1, &n);
        const int kind = t % 3;
        for (int64_t i = 0; i < n; i++) {
            const uint64_t r = ncl_test_rand(&seed);
            const double u = (double)(r >> 11) / 9007199254740992.0;
            /* positive uniform (the hard case for error growth), mixed signs,
               and a wide dynamic range */
            buf[i] = kind == 0 ? u : kind == 1 ? u - 0.5 : ldexp(u, (int)(r % 40) - 20);
            ncl_test_set_d(x, i, buf[i]);
        }
        const double ex = exact_sum(buf, n);
        double scale = 0; /* sum |x|: the error's natural unit, also under cancellation */
        for (int64_t i = 0; i < n; i++) scale += fabs(buf[i]);
        NclArray *r = reduce_ok(NCL_SUM, x, NULL);
        const double e1 = fabs(ncl_test_get_d(r, 0) - ex), e2 = fabs(pairwise(buf, n) - ex);
        err_ncl += e1 / scale;
        err_pw += e2 / scale;
        worse += e1 > e2;
        NclArrayRelease(r);
        NclArrayRelease(x);
    }
    free(buf);
    fprintf(stderr, "accuracy over %d sums: mean error / sum|x| %.3g (NCLib) vs %.3g "
            "(pairwise); NCLib worse on %d\n", trials, err_ncl / trials, err_pw / trials, worse);
    ck_assert_msg(err_ncl <= err_pw, "NCLib's mean error %.3g exceeds pairwise %.3g",
                  err_ncl / trials, err_pw / trials);
}
END_TEST

/* ---- FP flags and errors ---------------------------------------------------------- */

START_TEST(t_fp_flags)
{
    NclArray *big = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 1e308, 1e308);
    NclArray *r = reduce_ok(NCL_SUM, big, NULL);
    ck_assert(isinf(ncl_test_get_d(r, 0)));
    ck_assert(NclGetFPErrors() & NCL_FPE_OVERFLOW);
    NclArrayRelease(r);
    NCL_CHECK_OK(NclSetErrMode(NCL_FPE_OVERFLOW, NCL_ERRMODE_RAISE));
    r = NULL;
    NCL_CHECK_STATUS(NclReduce(NCL_SUM, big, &r, NULL), NCL_ERR_FLOATING_POINT);
    ck_assert_ptr_null(r);
    /* into a provided output: written, then reported */
    NclArray *o = ncl_test_new(NCL_FLOAT64, 0, NULL);
    NCL_CHECK_STATUS(NclReduce(NCL_SUM, big, &o, NULL), NCL_ERR_FLOATING_POINT);
    ck_assert(isinf(ncl_test_get_d(o, 0)));
    NCL_CHECK_OK(NclSetErrMode(NCL_FPE_ALL, NCL_ERRMODE_IGNORE));
    /* integer overflow in a sum is not an FP error */
    NclArray *i = ncl_test_arr_int(NCL_INT64, 1, NCL_DIMS(2), INT64_MAX, 1);
    r = reduce_ok(NCL_SUM, i, NULL);
    ck_assert_int_eq(NclGetFPErrors(), 0);
    NclArrayRelease(r);
    NclArrayRelease(i);
    NclArrayRelease(o);
    NclArrayRelease(big);
}
END_TEST

/* ---- fault injection -------------------------------------------------------------------- */

START_TEST(t_fault_injection)
{
    NclArray *a = ncl_test_new(NCL_INT8, 2, NCL_DIMS(30, 40));
    for (int64_t i = 0; i < 1200; i++) ncl_test_set_d(a, i, (double)(i % 9) - 4);
    const int ax0 = 0;
    /* allocated output with a cast (int8 summed in float32: the gathered path) */
    NclParams p = NCL_PARAMS_INIT;
    p.axes = &ax0;
    p.naxes = 1;
    p.dtype = NCL_FLOAT32;
    NclArray *ref = reduce_ok(NCL_SUM, a, &p);
    int succeeded = 0;
    for (long k = 1; k <= 20 && !succeeded; k++) {
        ncl_test_alloc t;
        ncl_test_alloc_install(&t, k, 0);
        NclArray *r = NULL;
        NclStatus s = NclReduce(NCL_SUM, a, &r, &p);
        ncl_test_alloc_uninstall(&t);
        if (s == NCL_OK) {
            NCL_CHECK_ARRAYS_EQUAL(r, ref);
            NclArrayRelease(r);
            succeeded = 1;
        } else {
            ck_assert_msg(s == NCL_ERR_NO_MEMORY, "k %ld: %s", k, NclStatusString(s));
            ck_assert_ptr_null(r);
        }
        NCL_CHECK_NO_LEAK(&t);
    }
    ck_assert_msg(succeeded, "never succeeded");
    /* a provided output that overlaps the input needs a stand-in */
    NclArray *x = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(6), 1, 2, 3, 4, 5, 6);
    succeeded = 0;
    for (long k = 1; k <= 20 && !succeeded; k++) {
        NclArray *c = ncl_test_clone(x);
        NclArray *o = c;
        const uint64_t h = ncl_test_hash(c);
        ncl_test_alloc t;
        ncl_test_alloc_install(&t, k, 0);
        NclStatus s = NclReduce(NCL_CUMSUM, c, &o, NULL);
        ncl_test_alloc_uninstall(&t);
        if (s == NCL_OK) {
            ck_assert_double_eq(ncl_test_get_d(c, 5), 21);
            succeeded = 1;
        } else {
            ck_assert_int_eq(s, NCL_ERR_NO_MEMORY);
            ck_assert_uint_eq(ncl_test_hash(c), h);
        }
        NCL_CHECK_NO_LEAK(&t);
        NclArrayRelease(c);
    }
    ck_assert(succeeded);
    NclArrayRelease(x);
    NclArrayRelease(ref);
    NclArrayRelease(a);
}
END_TEST

/* ---- a kernel hook on a Reduce chain --------------------------------------------------- */

/* The pool's workers may run the kernel: the count is atomic. */
static atomic_int hook_calls;

static NclStatus counting_kernel(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                                 int64_t n, const int64_t *steps)
{
    atomic_fetch_add(&hook_calls, 1);
    ck_assert_int_eq(ctx->subsystem, NCL_SUBSYSTEM_REDUCE);
    ck_assert_ptr_nonnull(ctx->aux);
    return NclKernelNext(self, ctx, args, n, steps);
}

START_TEST(t_kernel_hook)
{
    NclKernelNode node;
    memset(&node, 0, sizeof node);
    node.fn = counting_kernel;
    node.name = "test_counting";
    const NclDType sig[2] = {NCL_FLOAT64, NCL_FLOAT64};
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_REDUCE, NCL_SUM, sig, &node.list));
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), 1, 2, 3);
    atomic_store(&hook_calls, 0);
    NclArray *r = reduce_ok(NCL_SUM, a, NULL);
    ck_assert_int_ge(atomic_load(&hook_calls), 1);
    ck_assert_double_eq(ncl_test_get_d(r, 0), 6);
    NclArrayRelease(r);
    /* MEAN runs the float64 sum kernels */
    atomic_store(&hook_calls, 0);
    r = reduce_ok(NCL_MEAN, a, NULL);
    ck_assert_int_ge(atomic_load(&hook_calls), 1);
    NclArrayRelease(r);
    NCL_CHECK_OK(NclKernelUnhook(&node.list));
    const NclDType nosig[2] = {NCL_FLOAT64, NCL_INT8};
    NclKernelNode other = node;
    memset(&other.list, 0, sizeof other.list);
    memset(other.priv, 0, sizeof other.priv);
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_REDUCE, NCL_SUM, nosig, &other.list),
                     NCL_ERR_DTYPE);
    NclArrayRelease(a);
}
END_TEST

static Suite *reduce_suite(void)
{
    Suite *s = suite_create("reduce");
    TCase *tc = ncl_test_tcase(s, "values");
    tcase_add_test(tc, t_reductions_against_reference);
    tcase_add_test(tc, t_arg_against_reference);
    tcase_add_test(tc, t_arg_flat_keepdims);
    tcase_add_test(tc, t_accumulate_against_reference);
    tcase_add_test(tc, t_result_dtypes);
    tcase_add_test(tc, t_dtype_param);
    tcase_add_test(tc, t_where_and_initial);
    tcase_add_test(tc, t_initial_integer);
    tcase_add_test(tc, t_empty);
    tcase_add_test(tc, t_zero_d_and_no_axes);
    tcase_add_test(tc, t_nan_and_zeros);
    tcase_add_test(tc, t_minmax_offsets);
    tcase_add_test(tc, t_integer_wrap);
    tc = ncl_test_tcase(s, "outputs");
    tcase_add_test(tc, t_provided_output);
    tcase_add_test(tc, t_bad_inputs);
    tcase_add_test(tc, t_overlap);
    tc = ncl_test_tcase(s, "trees");
    tcase_add_test(tc, t_layout_bitwise);
    tcase_add_test(tc, t_four_chunk_groups);
    tcase_add_test(tc, t_grid_offsets);
    tcase_add_test(tc, t_paths_agree);
    tcase_add_test(tc, t_tree_split);
    tcase_add_test(tc, t_accuracy_vs_pairwise);
    tc = ncl_test_tcase(s, "machinery");
    tcase_add_test(tc, t_fp_flags);
    tcase_add_test(tc, t_fault_injection);
    tcase_add_test(tc, t_kernel_hook);
    return s;
}

NCL_TEST_MAIN(reduce_suite)
