/*
 * test_unique.c: np.unique and np.searchsorted through NCLib: the unique ops
 * of NclSortN (unique_values, unique_counts, unique_inverse, unique_all) and
 * NclMask(searchsorted), with exact expected values over every dtype and
 * memory layout, NaN, +-inf, -0.0 and 0.0, integer limits, empty and 0-d
 * arrays, keys sorted, reversed and random against a long a, a sorter, mixed
 * dtypes; and every refusal (wrong nout, one-slot entry, outputs of the
 * wrong length, shape or dtype, read-only or overlapping, a not 1-D, sorter
 * of the wrong length or out of range, bad side) with its status and
 * message, the slots and the outputs left untouched.
 */
#include <math.h>
#include <stdatomic.h>
#include "ncl_test.h"

static const NclDType all_dtypes[] = {NCL_BOOL, NCL_INT8, NCL_INT16, NCL_INT32,
                                      NCL_INT64, NCL_UINT8, NCL_UINT16, NCL_UINT32,
                                      NCL_UINT64, NCL_FLOAT32, NCL_FLOAT64};
#define NDTYPES ((int)(sizeof all_dtypes / sizeof all_dtypes[0]))

/* got is 1-D (or of shape nd/shape) int64 holding want. */
static void expect_i64(const NclArray *got, int nd, const int64_t *shape, const int64_t *want,
                       const char *what)
{
    ck_assert_msg(NclArrayDType(got) == NCL_INT64, "%s: dtype %s", what,
                  NclDTypeName(NclArrayDType(got)));
    ck_assert_int_eq(NclArrayNDim(got), nd);
    for (int d = 0; d < nd; d++) ck_assert_int_eq(NclArrayShape(got)[d], shape[d]);
    for (int64_t i = 0; i < NclArraySize(got); i++)
        ck_assert_msg(ncl_test_get_i(got, i) == want[i], "%s[%lld] is %lld, expected %lld", what,
                      (long long)i, (long long)ncl_test_get_i(got, i), (long long)want[i]);
}

/* got is 1-D of dtype dt holding want (NaN as NaN, zeros by sign when
   sign is set). */
static void expect_d(const NclArray *got, NclDType dt, const double *want, int64_t n, int sign,
                     const char *what)
{
    ck_assert_int_eq(NclArrayDType(got), dt);
    ck_assert_int_eq(NclArrayNDim(got), 1);
    ck_assert_int_eq(NclArrayShape(got)[0], n);
    for (int64_t i = 0; i < n; i++) {
        const double g = ncl_test_get_d(got, i);
        const int ok = isnan(want[i]) ? isnan(g) : g == want[i] && (!sign || signbit(g) == signbit(want[i]));
        ck_assert_msg(ok, "%s[%lld] is %g, expected %g", what, (long long)i, g, want[i]);
    }
}

static void release_slots(NclArray **s, int n)
{
    for (int k = 0; k < n; k++) {
        NclArrayRelease(s[k]);
        s[k] = NULL;
    }
}

/* ---- unique ------------------------------------------------------------------------ */

/* {3, 1, 3, 0, 1, 1} as (2, 3) in every dtype (bool: 3 and 1 are true) and
   layout, through all four ops. */
START_TEST(t_unique_dtypes)
{
    const NclDType dt = all_dtypes[_i];
    const int b = dt == NCL_BOOL;
    NclArray *src = ncl_test_arr(dt, 2, NCL_DIMS(2, 3), 3, 1, 3, 0, 1, 1);
    const double vals_n[] = {0, 1, 3}, vals_b[] = {0, 1};
    const int64_t idx_n[] = {3, 1, 0}, inv_n[] = {2, 1, 2, 0, 1, 1}, cnt_n[] = {1, 3, 2};
    const int64_t idx_b[] = {3, 0}, inv_b[] = {1, 1, 1, 0, 1, 1}, cnt_b[] = {1, 5};
    const double *vals = b ? vals_b : vals_n;
    const int64_t *idx = b ? idx_b : idx_n, *inv = b ? inv_b : inv_n, *cnt = b ? cnt_b : cnt_n;
    const int64_t k = b ? 2 : 3;
    for (int lay = 0; lay < NCL_TEST_NLAYOUTS; lay++) {
        NclArray *a = ncl_test_layout_of(src, (ncl_test_layout)lay);
        NclArray *s[4] = {NULL, NULL, NULL, NULL};
        NCL_CHECK_OK(NclSort(NCL_UNIQUE_VALUES, a, &s[0], NULL));
        expect_d(s[0], dt, vals, k, 0, "unique_values");
        release_slots(s, 1);
        NCL_CHECK_OK(NclSortN(NCL_UNIQUE_VALUES, a, 1, s, NULL));
        expect_d(s[0], dt, vals, k, 0, "unique_values (NclSortN)");
        release_slots(s, 1);
        NCL_CHECK_OK(NclSortN(NCL_UNIQUE_COUNTS, a, 2, s, NULL));
        expect_d(s[0], dt, vals, k, 0, "unique_counts values");
        expect_i64(s[1], 1, &k, cnt, "unique_counts counts");
        release_slots(s, 2);
        NCL_CHECK_OK(NclSortN(NCL_UNIQUE_INVERSE, a, 2, s, NULL));
        expect_d(s[0], dt, vals, k, 0, "unique_inverse values");
        expect_i64(s[1], 2, NCL_DIMS(2, 3), inv, "unique_inverse inverse");
        release_slots(s, 2);
        NCL_CHECK_OK(NclSortN(NCL_UNIQUE_ALL, a, 4, s, NULL));
        expect_d(s[0], dt, vals, k, 0, "unique_all values");
        expect_i64(s[1], 1, &k, idx, "unique_all indices");
        expect_i64(s[2], 2, NCL_DIMS(2, 3), inv, "unique_all inverse");
        expect_i64(s[3], 1, &k, cnt, "unique_all counts");
        release_slots(s, 4);
        NclArrayRelease(a);
    }
    NclArrayRelease(src);
}
END_TEST

/* NaNs collapse into one, last; -0.0 and 0.0 are one value, unique_all
   keeping the first occurrence's sign. */
START_TEST(t_unique_specials)
{
    const NclDType dt = _i ? NCL_FLOAT64 : NCL_FLOAT32;
    NclArray *a = ncl_test_arr(dt, 1, NCL_DIMS(8), NAN, -0.0, 2, 0.0, -INFINITY, NAN, INFINITY,
                               -0.0);
    const double vals[] = {-INFINITY, -0.0, 2, INFINITY, NAN};
    const int64_t idx[] = {4, 1, 2, 6, 0}, inv[] = {4, 1, 2, 1, 0, 4, 3, 1},
                  cnt[] = {1, 3, 1, 1, 2};
    NclArray *s[4] = {NULL, NULL, NULL, NULL};
    NCL_CHECK_OK(NclSortN(NCL_UNIQUE_ALL, a, 4, s, NULL));
    expect_d(s[0], dt, vals, 5, 1, "values");
    expect_i64(s[1], 1, NCL_DIMS(5), idx, "indices");
    expect_i64(s[2], 1, NCL_DIMS(8), inv, "inverse");
    expect_i64(s[3], 1, NCL_DIMS(5), cnt, "counts");
    release_slots(s, 4);
    NCL_CHECK_OK(NclSortN(NCL_UNIQUE_COUNTS, a, 2, s, NULL));
    expect_d(s[0], dt, vals, 5, 1, "values");
    expect_i64(s[1], 1, NCL_DIMS(5), cnt, "counts");
    release_slots(s, 2);
    NclArrayRelease(a);
    /* the first occurrence's zero, whichever it is, for every op */
    NclArray *z = ncl_test_arr(dt, 1, NCL_DIMS(3), 0.0, -0.0, 0.0);
    NCL_CHECK_OK(NclSort(NCL_UNIQUE_VALUES, z, &s[0], NULL));
    expect_d(s[0], dt, (const double[]){0.0}, 1, 1, "+0.0 first");
    release_slots(s, 1);
    NclArrayRelease(z);
    z = ncl_test_arr(dt, 1, NCL_DIMS(3), -0.0, 0.0, -0.0);
    NCL_CHECK_OK(NclSort(NCL_UNIQUE_VALUES, z, &s[0], NULL));
    expect_d(s[0], dt, (const double[]){-0.0}, 1, 1, "-0.0 first");
    release_slots(s, 1);
    NclArrayRelease(z);

    NclArray *i = ncl_test_arr_int(NCL_INT64, 1, NCL_DIMS(4), INT64_MAX, INT64_MIN, 0, INT64_MIN);
    NCL_CHECK_OK(NclSortN(NCL_UNIQUE_COUNTS, i, 2, s, NULL));
    expect_i64(s[0], 1, NCL_DIMS(3), (const int64_t[]){INT64_MIN, 0, INT64_MAX}, "int64 values");
    expect_i64(s[1], 1, NCL_DIMS(3), (const int64_t[]){2, 1, 1}, "int64 counts");
    release_slots(s, 2);
    NclArrayRelease(i);
    NclArray *u = ncl_test_arr_uint(NCL_UINT64, 1, NCL_DIMS(4), UINT64_MAX, 0, UINT64_C(1) << 63,
                                    UINT64_MAX);
    NCL_CHECK_OK(NclSort(NCL_UNIQUE_VALUES, u, &s[0], NULL));
    ck_assert_int_eq(NclArraySize(s[0]), 3);
    ck_assert(ncl_test_get_u(s[0], 0) == 0 && ncl_test_get_u(s[0], 1) == UINT64_C(1) << 63 &&
              ncl_test_get_u(s[0], 2) == UINT64_MAX);
    release_slots(s, 1);
    NclArrayRelease(u);
}
END_TEST

/* Empty and 0-d inputs; provided outputs (strided) written in place. */
START_TEST(t_unique_shapes_and_outs)
{
    NclArray *s[4] = {NULL, NULL, NULL, NULL};
    NclArray *e = ncl_test_new(NCL_INT16, 2, NCL_DIMS(3, 0));
    NCL_CHECK_OK(NclSortN(NCL_UNIQUE_ALL, e, 4, s, NULL));
    ck_assert_int_eq(NclArraySize(s[0]), 0);
    ck_assert_int_eq(NclArrayDType(s[0]), NCL_INT16);
    ck_assert_int_eq(NclArrayNDim(s[2]), 2);
    ck_assert_int_eq(NclArrayShape(s[2])[0], 3);
    release_slots(s, 4);
    NclArrayRelease(e);
    NclArray *z = ncl_test_arr(NCL_FLOAT64, 0, NULL, 2.5);
    NCL_CHECK_OK(NclSortN(NCL_UNIQUE_INVERSE, z, 2, s, NULL));
    expect_d(s[0], NCL_FLOAT64, (const double[]){2.5}, 1, 0, "0-d values");
    ck_assert_int_eq(NclArrayNDim(s[1]), 0);
    ck_assert_int_eq(ncl_test_get_i(s[1], 0), 0);
    release_slots(s, 2);
    NclArrayRelease(z);

    /* outputs given: values and counts as reversed views, inverse F order */
    NclArray *a = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 2), 5, -1, 5, 5);
    NclArray *vb = ncl_test_new(NCL_INT32, 1, NCL_DIMS(2));
    NclArray *cb = ncl_test_new(NCL_INT64, 1, NCL_DIMS(2));
    NclArray *vo = ncl_test_layout_of(vb, NCL_TEST_REVERSED);
    NclArray *co = ncl_test_layout_of(cb, NCL_TEST_SLICED);
    NclArray *ib = ncl_test_new(NCL_INT64, 2, NCL_DIMS(2, 2));
    NclArray *io = ncl_test_layout_of(ib, NCL_TEST_F);
    NclArrayRelease(ib);
    NclArray *given[4] = {vo, NULL, io, co};
    memcpy(s, given, sizeof s);
    NCL_CHECK_OK(NclSortN(NCL_UNIQUE_ALL, a, 4, s, NULL));
    ck_assert_ptr_eq(s[0], vo);
    ck_assert_ptr_eq(s[2], io);
    ck_assert_ptr_eq(s[3], co);
    expect_d(vo, NCL_INT32, (const double[]){-1, 5}, 2, 0, "given values");
    expect_i64(s[1], 1, NCL_DIMS(2), (const int64_t[]){1, 0}, "indices");
    expect_i64(io, 2, NCL_DIMS(2, 2), (const int64_t[]){1, 0, 1, 1}, "given inverse");
    expect_i64(co, 1, NCL_DIMS(2), (const int64_t[]){1, 3}, "given counts");
    NclArrayRelease(s[1]);
    NclArrayRelease(vo);
    NclArrayRelease(co);
    NclArrayRelease(io);
    NclArrayRelease(vb);
    NclArrayRelease(cb);
    NclArrayRelease(a);
}
END_TEST

/* A refused call: status, message, the slots as they were, provided
   outputs unwritten. */
static void unique_refused(NclSortOp op, const NclArray *a, int nout, NclArray **slots,
                           const NclParams *p, NclStatus status, const char *text)
{
    NclArray *before[4] = {NULL, NULL, NULL, NULL};
    uint64_t h[4] = {0, 0, 0, 0};
    for (int k = 0; k < 4 && k < (nout > 0 ? nout : 1); k++) {
        before[k] = slots[k];
        if (slots[k]) h[k] = ncl_test_hash(slots[k]);
    }
    NCL_CHECK_STATUS(NclSortN(op, a, nout, slots, p), status);
    NCL_CHECK_MESSAGE_HAS(text);
    for (int k = 0; k < 4 && k < (nout > 0 ? nout : 1); k++) {
        ck_assert_ptr_eq(slots[k], before[k]);
        if (slots[k]) ck_assert_msg(ncl_test_hash(slots[k]) == h[k], "out[%d] was written", k);
    }
}

START_TEST(t_unique_refusals)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(5), 2, 1, 2, 7, 1);
    NclArray *s[4] = {NULL, NULL, NULL, NULL};
    unique_refused(NCL_UNIQUE_ALL, a, 2, s, NULL, NCL_ERR_INVALID_ARGUMENT,
                   "nout is 2, the op has 4 outputs");
    unique_refused(NCL_UNIQUE_COUNTS, a, 1, s, NULL, NCL_ERR_INVALID_ARGUMENT, "nout is 1");
    unique_refused(NCL_UNIQUE_VALUES, a, 2, s, NULL, NCL_ERR_INVALID_ARGUMENT, "nout is 2");
    NCL_CHECK_STATUS(NclSortN((NclSortOp)NCL_SORT_NOPS, a, 1, s, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("unknown op 8");
    NCL_CHECK_STATUS(NclSort(NCL_UNIQUE_INVERSE, a, &s[0], NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("call NclSortN with an array of 2 out slots");
    ck_assert_ptr_null(s[0]);
    NCL_CHECK_STATUS(NclSortN(NCL_UNIQUE_ALL, NULL, 4, s, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("the input array is NULL");
    NCL_CHECK_STATUS(NclSortN(NCL_UNIQUE_ALL, a, 4, NULL, NULL), NCL_ERR_INVALID_ARGUMENT);

    /* outputs: wrong length, dtype, shape; read-only; overlapping */
    NclArray *v2 = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 9, 9);
    NclArray *v3 = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), 9, 9, 9);
    NclArray *c3 = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(3), 9, 9, 9);
    NclArray *c3i = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(3), 9, 9, 9);
    NclArray *inv4 = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(4), 9, 9, 9, 9);
    NclArray *v3_2d = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(1, 3), 9, 9, 9);
    NclArray *ro = NULL;
    double ro_mem[3] = {9, 9, 9};
    NCL_CHECK_OK(NclFromData(NCL_FLOAT64, 1, NCL_DIMS(3), NULL, ro_mem, 0, NULL, NULL, &ro));
    NclArray *slots[4];
    slots[0] = v2; slots[1] = NULL;
    unique_refused(NCL_UNIQUE_COUNTS, a, 2, slots, NULL, NCL_ERR_SHAPE,
                   "out[0] (values) has length 2; a has 3 distinct values");
    slots[0] = v3; slots[1] = c3i;
    unique_refused(NCL_UNIQUE_COUNTS, a, 2, slots, NULL, NCL_ERR_DTYPE,
                   "out[1] (counts) is int32; it must be int64");
    slots[0] = NULL; slots[1] = inv4;
    unique_refused(NCL_UNIQUE_INVERSE, a, 2, slots, NULL, NCL_ERR_SHAPE,
                   "the inverse has a's shape (5,)");
    slots[0] = v3_2d; slots[1] = NULL;
    unique_refused(NCL_UNIQUE_COUNTS, a, 2, slots, NULL, NCL_ERR_SHAPE, "it must be 1-D");
    slots[0] = ro; slots[1] = c3;
    unique_refused(NCL_UNIQUE_COUNTS, a, 2, slots, NULL, NCL_ERR_READONLY, "read-only");
    slots[0] = v3; slots[1] = c3; slots[2] = NULL; slots[3] = c3;
    unique_refused(NCL_UNIQUE_ALL, a, 4, slots, NULL, NCL_ERR_INVALID_ARGUMENT,
                   "out[1] (indices) and out[3] (counts) overlap");
    slots[0] = a;
    unique_refused(NCL_UNIQUE_VALUES, a, 1, slots, NULL, NCL_ERR_INVALID_ARGUMENT,
                   "overlaps the input a");
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = NCL_FLOAT32;
    slots[0] = NULL;
    unique_refused(NCL_UNIQUE_VALUES, a, 1, slots, &p, NCL_ERR_DTYPE, "params->dtype is float32");
    p.dtype = NCL_DTYPE_DEFAULT;
    NclArray *m = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(5), 1);
    p.where = m;
    unique_refused(NCL_UNIQUE_VALUES, a, 1, slots, &p, NCL_ERR_INVALID_ARGUMENT, "params->where");
    /* the right outputs after all that */
    slots[0] = v3; slots[1] = c3;
    NCL_CHECK_OK(NclSortN(NCL_UNIQUE_COUNTS, a, 2, slots, NULL));
    expect_d(v3, NCL_FLOAT64, (const double[]){1, 2, 7}, 3, 0, "values");
    expect_i64(c3, 1, NCL_DIMS(3), (const int64_t[]){2, 2, 1}, "counts");
    NclArray *arrs[] = {a, v2, v3, c3, c3i, inv4, v3_2d, ro, m};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) NclArrayRelease(arrs[i]);
}
END_TEST

/* Long inputs with many repeats: the threaded sort paths, checked by
   counting. */
START_TEST(t_unique_long)
{
    const int64_t n = 200003;
    NclArray *a = ncl_test_new(NCL_INT64, 1, &n);
    uint64_t seed = 42;
    for (int64_t i = 0; i < n; i++) ncl_test_set_i(a, i, (int64_t)(ncl_test_rand(&seed) % 1000) - 500);
    NclArray *s[4] = {NULL, NULL, NULL, NULL};
    NCL_CHECK_OK(NclSortN(NCL_UNIQUE_ALL, a, 4, s, NULL));
    const int64_t k = NclArraySize(s[0]);
    ck_assert_int_le(k, 1000);
    int64_t total = 0;
    for (int64_t j = 0; j < k; j++) {
        if (j) ck_assert_int_lt(ncl_test_get_i(s[0], j - 1), ncl_test_get_i(s[0], j));
        const int64_t first = ncl_test_get_i(s[1], j);
        ck_assert_int_eq(ncl_test_get_i(a, first), ncl_test_get_i(s[0], j));
        total += ncl_test_get_i(s[3], j);
    }
    ck_assert_int_eq(total, n);
    for (int64_t i = 0; i < n; i += 997)
        ck_assert_int_eq(ncl_test_get_i(s[0], ncl_test_get_i(s[2], i)), ncl_test_get_i(a, i));
    release_slots(s, 4);
    NclArrayRelease(a);
}
END_TEST

/* A Sort hook sees the four slots of unique_all (and passes the call on);
   a slot that is not an array is named by the tag check, at the entry and
   at NclSortNext. */
static atomic_int unique_seen;
static NclStatus unique_hook(NclHook *self, NclSortOp op, const NclArray *a, NclArray **out,
                             const NclParams *params)
{
    if (op == NCL_UNIQUE_ALL) {
        atomic_fetch_add(&unique_seen, 1);
        NclStatus st = NclSortNext(self, op, a, out, params);
        for (int k = 0; st == NCL_OK && k < NclOpOutputs(NCL_SUBSYSTEM_SORT, op); k++)
            if (out[k] == NULL) return NCL_ERR_HOOK;
        return st;
    }
    if (op == NCL_UNIQUE_COUNTS) {
        /* a hook that hands the next node a junk third slot: NclSortNext reads
           only the op's two */
        NclArray *two[3] = {out[0], out[1], (NclArray *)(void *)"not an array, not read"};
        NclStatus st = NclSortNext(self, op, a, two, params);
        out[0] = two[0];
        out[1] = two[1];
        return st;
    }
    return NclSortNext(self, op, a, out, params);
}

START_TEST(t_unique_hook_and_tags)
{
    NclHook h;
    memset(&h, 0, sizeof h);
    h.name = "unique_hook";
    h.fn.sort = unique_hook;
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_SORT, &h.list));
    NclArray *a = ncl_test_arr(NCL_UINT8, 1, NCL_DIMS(4), 9, 8, 9, 9);
    NclArray *s[4] = {NULL, NULL, NULL, NULL};
    NCL_CHECK_OK(NclSortN(NCL_UNIQUE_ALL, a, 4, s, NULL));
    expect_i64(s[3], 1, NCL_DIMS(2), (const int64_t[]){1, 3}, "counts");
    release_slots(s, 4);
    NCL_CHECK_OK(NclSortN(NCL_UNIQUE_COUNTS, a, 2, s, NULL));
    expect_i64(s[1], 1, NCL_DIMS(2), (const int64_t[]){1, 3}, "counts");
    release_slots(s, 2);
    char junk[512];
    memset(junk, 0x5a, sizeof junk);
    s[3] = (NclArray *)(void *)junk;
    NCL_CHECK_STATUS(NclSortN(NCL_UNIQUE_ALL, a, 4, s, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("out[3]");
    ck_assert_ptr_null(s[0]);
    ck_assert_ptr_eq(s[3], (NclArray *)(void *)junk);
    NCL_CHECK_OK(NclApiUnhook(&h.list));
    ck_assert_int_eq(atomic_load(&unique_seen), 1);
    NclArrayRelease(a);
}
END_TEST

/* ---- searchsorted ------------------------------------------------------------------ */

static NclArray *search(const NclArray *a, const NclArray *v, int side, const NclArray *sorter)
{
    NclParams p = NCL_PARAMS_INIT;
    p.side = side;
    p.sorter = sorter;
    NclArray *o = NULL;
    NCL_CHECK_OK(NclMask(NCL_MASK_SEARCHSORTED, a, v, &o, &p));
    return o;
}

/* a = {0, 1, 1, 3} (bool: {0, 0, 1, 1}) in every dtype and layout, v of
   shape (2, 2). */
START_TEST(t_search_dtypes)
{
    const NclDType dt = all_dtypes[_i];
    const int b = dt == NCL_BOOL;
    NclArray *src = b ? ncl_test_arr(dt, 1, NCL_DIMS(4), 0, 0, 1, 1)
                      : ncl_test_arr(dt, 1, NCL_DIMS(4), 0, 1, 1, 3);
    NclArray *v = b ? ncl_test_arr(dt, 2, NCL_DIMS(2, 2), 1, 0, 0, 1)
                    : ncl_test_arr(dt, 2, NCL_DIMS(2, 2), 1, 2, 0, 4);
    const int64_t left_n[] = {1, 3, 0, 4}, right_n[] = {3, 3, 1, 4};
    const int64_t left_b[] = {2, 0, 0, 2}, right_b[] = {4, 2, 2, 4};
    for (int lay = 0; lay < NCL_TEST_NLAYOUTS; lay++) {
        NclArray *a = ncl_test_layout_of(src, (ncl_test_layout)lay);
        NclArray *vl = ncl_test_layout_of(v, (ncl_test_layout)(NCL_TEST_NLAYOUTS - 1 - lay));
        NclArray *o = search(a, vl, NCL_SIDE_LEFT, NULL);
        expect_i64(o, 2, NCL_DIMS(2, 2), b ? left_b : left_n, "left");
        NclArrayRelease(o);
        o = search(a, vl, NCL_SIDE_RIGHT, NULL);
        expect_i64(o, 2, NCL_DIMS(2, 2), b ? right_b : right_n, "right");
        NclArrayRelease(o);
        NclArrayRelease(a);
        NclArrayRelease(vl);
    }
    NclArrayRelease(src);
    NclArrayRelease(v);
}
END_TEST

START_TEST(t_search_specials)
{
    const NclDType dt = _i ? NCL_FLOAT64 : NCL_FLOAT32;
    NclArray *a = ncl_test_arr(dt, 1, NCL_DIMS(6), -INFINITY, -0.0, 0.0, 1, NAN, NAN);
    NclArray *v = ncl_test_arr(dt, 1, NCL_DIMS(4), NAN, 0.0, -0.0, INFINITY);
    NclArray *o = search(a, v, NCL_SIDE_LEFT, NULL);
    expect_i64(o, 1, NCL_DIMS(4), (const int64_t[]){4, 1, 1, 4}, "left");
    NclArrayRelease(o);
    o = search(a, v, NCL_SIDE_RIGHT, NULL);
    expect_i64(o, 1, NCL_DIMS(4), (const int64_t[]){6, 3, 3, 4}, "right");
    NclArrayRelease(o);
    NclArrayRelease(a);
    NclArrayRelease(v);

    /* a sorter, of another integer dtype */
    NclArray *u = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(4), 3, 0, 1, 1);
    NclArray *srt = ncl_test_arr(NCL_INT16, 1, NCL_DIMS(4), 1, 2, 3, 0);
    NclArray *k = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(3), 1, 2, -7);
    o = search(u, k, NCL_SIDE_LEFT, srt);
    expect_i64(o, 1, NCL_DIMS(3), (const int64_t[]){1, 3, 0}, "sorter left");
    NclArrayRelease(o);
    o = search(u, k, NCL_SIDE_RIGHT, srt);
    expect_i64(o, 1, NCL_DIMS(3), (const int64_t[]){3, 3, 0}, "sorter right");
    NclArrayRelease(o);
    /* mixed dtypes: int8 a, float64 keys, compared as float64 */
    NclArray *i8 = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(3), 1, 2, 3);
    NclArray *fk = ncl_test_arr(NCL_FLOAT64, 0, NULL, 2.5);
    o = search(i8, fk, NCL_SIDE_LEFT, NULL);
    expect_i64(o, 0, NULL, (const int64_t[]){2}, "int8 a, 0-d float64 key");
    NclArrayRelease(o);
    /* int64 extremes, uint64 a with int64 keys (float64 comparison) */
    NclArray *ie = ncl_test_arr_int(NCL_INT64, 1, NCL_DIMS(3), INT64_MIN, 0, INT64_MAX);
    o = search(ie, ie, NCL_SIDE_RIGHT, NULL);
    expect_i64(o, 1, NCL_DIMS(3), (const int64_t[]){1, 2, 3}, "int64 extremes");
    NclArrayRelease(o);
    NclArray *arrs[] = {u, srt, k, i8, fk, ie};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) NclArrayRelease(arrs[i]);
}
END_TEST

/* A long a, keys ascending, descending and scattered: the bounds reused
   from one key to the next and the halving over the rest. */
START_TEST(t_search_long)
{
    const int64_t n = 100000, m = 2 * n + 3;
    NclArray *a = ncl_test_new(NCL_INT64, 1, &n);
    for (int64_t i = 0; i < n; i++) ncl_test_set_i(a, i, 2 * i);
    NclArray *v = ncl_test_new(NCL_INT64, 1, &m);
    for (int pat = 0; pat < 3; pat++) {
        uint64_t seed = 7;
        for (int64_t j = 0; j < m; j++) {
            const int64_t x = pat == 0 ? j - 1 : pat == 1 ? m - 2 - j
                                                           : (int64_t)(ncl_test_rand(&seed) % (uint64_t)m) - 1;
            ncl_test_set_i(v, j, x);
        }
        for (int side = 0; side < 2; side++) {
            NclArray *o = search(a, v, side, NULL);
            for (int64_t j = 0; j < m; j++) {
                const int64_t x = ncl_test_get_i(v, j);
                int64_t want = x < 0 ? 0 : side ? x / 2 + 1 : (x + 1) / 2;
                if (want > n) want = n;
                if (ncl_test_get_i(o, j) != want)
                    ck_abort_msg("pattern %d side %d: key %lld gives %lld, expected %lld", pat,
                                 side, (long long)x, (long long)ncl_test_get_i(o, j),
                                 (long long)want);
            }
            NclArrayRelease(o);
        }
    }
    NclArrayRelease(a);
    NclArrayRelease(v);
}
END_TEST

static void search_refused(const NclArray *a, const NclArray *v, NclArray *out, int side,
                           const NclArray *sorter, NclStatus status, const char *text)
{
    NclParams p = NCL_PARAMS_INIT;
    p.side = side;
    p.sorter = sorter;
    const uint64_t h = out ? ncl_test_hash(out) : 0;
    NclArray *o = out;
    NCL_CHECK_STATUS(NclMask(NCL_MASK_SEARCHSORTED, a, v, &o, &p), status);
    NCL_CHECK_MESSAGE_HAS(text);
    ck_assert_ptr_eq(o, out);
    if (out) ck_assert_msg(ncl_test_hash(out) == h, "the output was written (%s)", text);
}

START_TEST(t_search_refusals)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), 1, 2, 3);
    NclArray *a2 = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(3, 1), 1, 2, 3);
    NclArray *v = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 2, 0.5);
    NclArray *out = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(2), 7, 7);
    NclArray *out32 = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(2), 7, 7);
    NclArray *out3 = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(3), 7, 7, 7);
    NclArray *s2 = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(2), 0, 1);
    NclArray *s_hi = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(3), 0, 3, 2);
    NclArray *s_neg = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(3), 0, -1, 2);
    NclArray *s_f = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), 0, 1, 2);
    NclArray *ro = NULL;
    int64_t ro_mem[2] = {7, 7};
    NCL_CHECK_OK(NclFromData(NCL_INT64, 1, NCL_DIMS(2), NULL, ro_mem, 0, NULL, NULL, &ro));

    search_refused(a2, v, out, 0, NULL, NCL_ERR_SHAPE, "a has shape (3,1); it must be 1-D");
    search_refused(a, v, out, 2, NULL, NCL_ERR_INVALID_ARGUMENT, "params->side 2");
    search_refused(a, v, out, 0, s2, NCL_ERR_SHAPE, "params->sorter has shape (2,)");
    search_refused(a, v, out, 1, s_hi, NCL_ERR_INDEX, "params->sorter[1] is 3, out of range");
    search_refused(a, v, out, 0, s_neg, NCL_ERR_INDEX, "params->sorter[1] is -1");
    search_refused(a, v, out, 0, s_f, NCL_ERR_DTYPE, "params->sorter is float64");
    search_refused(a, v, out32, 0, NULL, NCL_ERR_DTYPE, "must be int64");
    search_refused(a, v, out3, 0, NULL, NCL_ERR_SHAPE, "the output has shape (3,)");
    search_refused(a, v, ro, 0, NULL, NCL_ERR_READONLY, "read-only");
    search_refused(a, NULL, out, 0, NULL, NCL_ERR_INVALID_ARGUMENT, "input b (the values v)");
    /* the same call with the right output */
    NclArray *o = out;
    NclParams p = NCL_PARAMS_INIT;
    NCL_CHECK_OK(NclMask(NCL_MASK_SEARCHSORTED, a, v, &o, &p));
    ck_assert_ptr_eq(o, out);
    expect_i64(out, 1, NCL_DIMS(2), (const int64_t[]){1, 0}, "out given");
    /* the output may be v itself (int64 keys) */
    NclArray *ia = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(3), 10, 20, 30);
    NclArray *iv = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(3), 25, 5, 30);
    o = iv;
    NCL_CHECK_OK(NclMask(NCL_MASK_SEARCHSORTED, ia, iv, &o, &p));
    expect_i64(iv, 1, NCL_DIMS(3), (const int64_t[]){2, 0, 2}, "out is v");
    NclArray *arrs[] = {a, a2, v, out, out32, out3, s2, s_hi, s_neg, s_f, ro, ia, iv};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) NclArrayRelease(arrs[i]);
}
END_TEST

static Suite *unique_suite(void)
{
    Suite *s = suite_create("unique");
    TCase *tc = ncl_test_tcase(s, "unique");
    tcase_add_loop_test(tc, t_unique_dtypes, 0, NDTYPES);
    tcase_add_loop_test(tc, t_unique_specials, 0, 2);
    tcase_add_test(tc, t_unique_shapes_and_outs);
    tcase_add_test(tc, t_unique_refusals);
    tcase_add_test(tc, t_unique_long);
    tcase_add_test(tc, t_unique_hook_and_tags);
    TCase *ts = ncl_test_tcase(s, "searchsorted");
    tcase_add_loop_test(ts, t_search_dtypes, 0, NDTYPES);
    tcase_add_loop_test(ts, t_search_specials, 0, 2);
    tcase_add_test(ts, t_search_long);
    tcase_add_test(ts, t_search_refusals);
    return s;
}

NCL_TEST_MAIN(unique_suite)
