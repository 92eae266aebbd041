/*
 * test_properties.c: properties of Sort and Reduce that hold for any data,
 * and the refusals of Ternary, Reduce, Sort and Mask, checked in C so that
 * sanitizer builds run them too.
 *
 * - Sort: over every dtype, lengths around the sizes where sorting
 *   algorithms switch strategy, and ordered patterns (random, sorted,
 *   reversed, all equal, few distinct, sawtooth, organ pipe, small range),
 *   SORT gives an ordered permutation of its input (NaN last, -0.0 equal to
 *   0.0), a stable SORT/ARGSORT is exactly a reference stable merge sort,
 *   ARGSORT is a permutation whose gather is ordered, PARTITION and
 *   ARGPARTITION put the element of rank kth in place with nothing larger
 *   before and nothing smaller after; along either axis of 2-D arrays in
 *   every memory layout.
 * - Reduce: float64 and float32 data with a large dynamic range and
 *   cancellation, as C, Fortran, axis-permuted, sliced, reversed and
 *   misaligned views, give memcmp-identical SUM, PROD and MEAN over each
 *   axis and over all axes, within the pairwise-summation bound of a long
 *   double reference.
 * - Bad input to the four subsystems: the contract's status, a message
 *   naming the call, *out unchanged and a provided output not written;
 *   device memory refused; allocation k failing for k = 1, 2, ... of
 *   representative calls: NCL_ERR_NO_MEMORY, nothing leaked, nothing
 *   written, and the same result as an unfailing call once k passes the
 *   call's allocations.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <sys/mman.h>
#include "ncl_test.h"

/* ck_assert_msg records every passing assertion through a system call;
   the loops here check millions of elements, so they fail with
   ck_abort_msg only when something is wrong. */
#define EXPECT(cond, ...)                  \
    do {                                   \
        if (!(cond)) ck_abort_msg(__VA_ARGS__); \
    } while (0)

/* ---- typed element access and the sort order ---------------------------------- */

static int is_float(NclDType t) { return t == NCL_FLOAT32 || t == NCL_FLOAT64; }
static int is_signed(NclDType t) { return t >= NCL_INT8 && t <= NCL_INT64; }

static int64_t load_i64(NclDType t, const char *p)
{
    switch (t) {
    case NCL_INT8: { int8_t v; memcpy(&v, p, 1); return v; }
    case NCL_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case NCL_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
    }
}

static uint64_t load_u64(NclDType t, const char *p)
{
    switch (t) {
    case NCL_BOOL: case NCL_UINT8: { uint8_t v; memcpy(&v, p, 1); return v; }
    case NCL_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case NCL_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static double load_f(NclDType t, const char *p)
{
    if (t == NCL_FLOAT32) {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    double v;
    memcpy(&v, p, 8);
    return v;
}

/* The order a sort must produce: NaN after everything (whatever its sign),
   -0.0 equal to 0.0, integers by value. */
static int key_cmp(NclDType t, const char *p, const char *q)
{
    if (is_float(t)) {
        const double x = load_f(t, p), y = load_f(t, q);
        const int nx = isnan(x), ny = isnan(y);
        if (nx || ny) return nx - ny;
        return (x > y) - (x < y);
    }
    if (is_signed(t)) {
        const int64_t x = load_i64(t, p), y = load_i64(t, q);
        return (x > y) - (x < y);
    }
    const uint64_t x = load_u64(t, p), y = load_u64(t, q);
    return (x > y) - (x < y);
}

/* A stable merge sort of the indices 0..n-1 of row (contiguous elements of
   t) by key_cmp: the reference a stable SORT/ARGSORT must equal. */
static void ref_stable_argsort(NclDType t, const char *row, int64_t n, int64_t *idx)
{
    const size_t item = NclDTypeSize(t);
    int64_t *tmp = malloc((size_t)(n > 0 ? n : 1) * sizeof *tmp);
    ck_assert_ptr_nonnull(tmp);
    for (int64_t i = 0; i < n; i++) idx[i] = i;
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = key_cmp(t, row + (size_t)idx[j] * item, row + (size_t)idx[i] * item) < 0
                               ? idx[j++] : idx[i++];
            while (i < mid) tmp[k++] = idx[i++];
            while (j < hi) tmp[k++] = idx[j++];
        }
        memcpy(idx, tmp, (size_t)n * sizeof *idx);
    }
    free(tmp);
}

/* ---- data ---------------------------------------------------------------------------- */

enum { P_RANDOM, P_SMALL_RANGE, P_SORTED, P_REVERSED, P_EQUAL, P_FEW, P_SAWTOOTH, P_ORGAN,
       NPATTERNS };
static const char *const pattern_names[NPATTERNS] = {
    "random", "small range", "sorted", "reversed", "all equal", "few distinct", "sawtooth",
    "organ pipe"};

/* One random element of t into p: floats mix wide-range values with NaN
   (both signs), infinities, signed zeros, subnormals and the extremes;
   integers mix the full range with the limits. */
static void random_element(NclDType t, char *p, uint64_t *seed, int small)
{
    const uint64_t r = ncl_test_rand(seed);
    const size_t item = NclDTypeSize(t);
    if (t == NCL_BOOL) {
        uint8_t b = (uint8_t)(r & 1);
        memcpy(p, &b, 1);
        return;
    }
    if (!is_float(t)) {
        uint64_t v = small ? (uint64_t)(r % 5) : r;
        const unsigned pick = (unsigned)(r >> 58);
        if (!small && pick < 6) {
            /* the limits: all ones, the sign bit alone, zero, one */
            const uint64_t lim[6] = {~0ull, 1ull << (8 * item - 1), (1ull << (8 * item - 1)) - 1,
                                     0, 1, (uint64_t)-1};
            v = lim[pick];
        }
        if (small && is_signed(t)) v -= 2;
        memcpy(p, &v, item); /* little-endian: the low bytes */
        return;
    }
    double d;
    const unsigned pick = (unsigned)(r % 40);
    const double sign = (r >> 20) & 1 ? -1.0 : 1.0;
    if (small) {
        d = (double)(r % 5) - 2.0;
        if (pick == 0) d = -0.0;
    } else if (pick == 0) {
        d = NAN;
    } else if (pick == 1) {
        d = -NAN;
    } else if (pick == 2) {
        d = sign * INFINITY;
    } else if (pick == 3) {
        d = sign * 0.0;
    } else if (pick == 4) {
        d = sign * (t == NCL_FLOAT32 ? 1.4e-45 : 4.9e-324);
    } else if (pick == 5) {
        d = sign * (t == NCL_FLOAT32 ? 3.4028234663852886e38 : 1.7976931348623157e308);
    } else {
        const double mant = (double)(r >> 11) / 9007199254740992.0;
        d = sign * ldexp(0.5 + mant, (int)((r >> 4) % 60) - 30);
    }
    if (t == NCL_FLOAT32) {
        float f = (float)d;
        memcpy(p, &f, 4);
    } else {
        memcpy(p, &d, 8);
    }
}

/* Fills row (n contiguous elements of t) with a pattern. */
static void fill_pattern(NclDType t, char *row, int64_t n, int pattern, uint64_t *seed)
{
    const size_t item = NclDTypeSize(t);
    const int small = pattern == P_SMALL_RANGE || pattern == P_FEW;
    for (int64_t i = 0; i < n; i++) random_element(t, row + (size_t)i * item, seed, small);
    if (pattern == P_EQUAL)
        for (int64_t i = 1; i < n; i++) memcpy(row + (size_t)i * item, row, item);
    if (pattern == P_FEW) {
        /* four distinct values, repeated */
        for (int64_t i = 4; i < n; i++)
            memcpy(row + (size_t)i * item, row + (size_t)(ncl_test_rand(seed) % 4) * item, item);
    }
    if (pattern >= P_SORTED && pattern != P_EQUAL && pattern != P_FEW && n > 1) {
        int64_t *idx = malloc((size_t)n * sizeof *idx);
        char *copy = malloc((size_t)n * item);
        ck_assert(idx != NULL && copy != NULL);
        ref_stable_argsort(t, row, n, idx);
        memcpy(copy, row, (size_t)n * item);
        for (int64_t i = 0; i < n; i++) {
            int64_t src = idx[i];
            if (pattern == P_REVERSED) src = idx[n - 1 - i];
            if (pattern == P_SAWTOOTH) src = idx[(i % 7) * (n / 7 + 1) % n];
            if (pattern == P_ORGAN) src = idx[i < (n + 1) / 2 ? 2 * i : 2 * (n - 1 - i) + 1];
            memcpy(row + (size_t)i * item, copy + (size_t)src * item, item);
        }
        free(copy);
        free(idx);
    }
}

static NclArray *wrap_row(NclDType t, int64_t n, char *row)
{
    NclArray *a = NULL;
    NCL_CHECK_OK(NclFromData(t, 1, &n, NULL, row, NCL_ARRAY_WRITEABLE, NULL, NULL, &a));
    return a;
}

/* ---- sort properties on 1-D rows ------------------------------------------------------------ */

static const int64_t lengths[] = {0,  1,  2,   3,   5,   8,   15,  16,   17,   31,   32, 33,
                                  63, 64, 65,  100, 127, 128, 129, 255,  256,  257,  1000,
                                  1025, 4103};
enum { NLENGTHS = sizeof lengths / sizeof lengths[0] };

/* Checks that res (n elements of t, read through NclArray) is row ordered:
   an ordered permutation, or for stable bit-equal to the reference. */
static void check_sorted(NclDType t, const char *row, int64_t n, const NclArray *res,
                         const int64_t *ref, int stable, const char *what)
{
    const size_t item = NclDTypeSize(t);
    for (int64_t i = 0; i < n; i++) {
        const char *got = ncl_test_ptr(res, i), *want = row + (size_t)ref[i] * item;
        if (stable)
            EXPECT(memcmp(got, want, item) == 0, "%s: element %lld differs from a stable "
                          "sort's", what, (long long)i);
        else
            EXPECT(key_cmp(t, got, want) == 0, "%s: element %lld is not the sorted "
                          "value", what, (long long)i);
    }
}

/* Indices res (int64, n) must be a permutation; gathered they must be
   ordered; stable: exactly ref. */
static void check_argsorted(NclDType t, const char *row, int64_t n, const NclArray *res,
                            const int64_t *ref, int stable, const char *what)
{
    const size_t item = NclDTypeSize(t);
    ck_assert_int_eq(NclArrayDType(res), NCL_INT64);
    unsigned char *seen = calloc((size_t)n + 1, 1);
    ck_assert_ptr_nonnull(seen);
    for (int64_t i = 0; i < n; i++) {
        const int64_t k = ncl_test_get_i(res, i);
        EXPECT(k >= 0 && k < n && !seen[k], "%s: index %lld at %lld is out of range or "
                      "repeated", what, (long long)k, (long long)i);
        seen[k] = 1;
        if (stable)
            EXPECT(k == ref[i], "%s: index %lld at %lld, a stable sort has %lld", what,
                          (long long)k, (long long)i, (long long)ref[i]);
        else
            EXPECT(key_cmp(t, row + (size_t)k * item, row + (size_t)ref[i] * item) == 0,
                          "%s: the gathered element %lld is not the sorted value", what,
                          (long long)i);
    }
    free(seen);
}

/* Indices res (int64, n) are a permutation of 0..n-1. */
static void check_permutation(const NclArray *res, int64_t n, const char *what)
{
    ck_assert_int_eq(NclArrayDType(res), NCL_INT64);
    unsigned char *seen = calloc((size_t)n + 1, 1);
    ck_assert_ptr_nonnull(seen);
    for (int64_t i = 0; i < n; i++) {
        const int64_t k = ncl_test_get_i(res, i);
        EXPECT(k >= 0 && k < n && !seen[k], "%s: index %lld at %lld is out of range or "
                      "repeated", what, (long long)k, (long long)i);
        seen[k] = 1;
    }
    free(seen);
}

/* Partitioned values (vals(i) gives element i's address) around rank k. */
static void check_partition(NclDType t, const char *row, int64_t n, const int64_t *ref, int64_t k,
                            const char *(*vals)(const void *, int64_t), const void *ctx,
                            const char *what)
{
    const size_t item = NclDTypeSize(t);
    const char *pivot = vals(ctx, k);
    EXPECT(key_cmp(t, pivot, row + (size_t)ref[k] * item) == 0,
                  "%s: the element at kth %lld is not of that rank", what, (long long)k);
    for (int64_t i = 0; i < n; i++) {
        const int c = key_cmp(t, vals(ctx, i), pivot);
        EXPECT(i < k ? c <= 0 : i > k ? c >= 0 : 1,
                      "%s: element %lld is on the wrong side of kth %lld", what, (long long)i,
                      (long long)k);
    }
}

typedef struct gather_ctx { const NclArray *res; const char *row; size_t item; } gather_ctx;
static const char *direct_val(const void *ctx, int64_t i)
{
    return ncl_test_ptr(((const gather_ctx *)ctx)->res, i);
}
static const char *gathered_val(const void *ctx, int64_t i)
{
    const gather_ctx *g = ctx;
    return g->row + (size_t)ncl_test_get_i(g->res, i) * g->item;
}

/* The multiset of res equals row's (sorted by reference order). */
static void check_same_multiset(NclDType t, const char *row, int64_t n, const NclArray *res,
                                const int64_t *ref, const char *what)
{
    const size_t item = NclDTypeSize(t);
    char *copy = calloc((size_t)(n > 0 ? n : 1), item); /* zeroed: gcc -O2 cannot see n > 0 */
    int64_t *idx = malloc((size_t)(n > 0 ? n : 1) * sizeof *idx);
    ck_assert(copy != NULL && idx != NULL);
    for (int64_t i = 0; i < n; i++) memcpy(copy + (size_t)i * item, ncl_test_ptr(res, i), item);
    ref_stable_argsort(t, copy, n, idx);
    for (int64_t i = 0; i < n; i++)
        EXPECT(key_cmp(t, copy + (size_t)idx[i] * item, row + (size_t)ref[i] * item) == 0,
                      "%s: not a permutation of the input", what);
    free(idx);
    free(copy);
}

START_TEST(t_sort_rows)
{
    const NclDType t = (NclDType)_i;
    const size_t item = NclDTypeSize(t);
    uint64_t seed = 0x5eed0000u + (uint64_t)_i;
    char what[160];
    for (int li = 0; li < NLENGTHS; li++) {
        const int64_t n = lengths[li];
        char *row = malloc((size_t)(n + 1) * item), *keep = malloc((size_t)(n + 1) * item);
        int64_t *ref = malloc((size_t)(n + 1) * sizeof *ref);
        ck_assert(row != NULL && keep != NULL && ref != NULL);
        for (int pat = 0; pat < NPATTERNS; pat++) {
            fill_pattern(t, row, n, pat, &seed);
            memcpy(keep, row, (size_t)n * item);
            ref_stable_argsort(t, row, n, ref);
            NclArray *a = wrap_row(t, n, row);
            for (int op = NCL_SORT; op <= NCL_ARGSORT; op++) {
                for (int stable = 0; stable <= 1; stable++) {
                    snprintf(what, sizeof what, "%s %s of %lld %s elements (%s)",
                             stable ? "stable" : "default", op == NCL_SORT ? "sort" : "argsort",
                             (long long)n, NclDTypeName(t), pattern_names[pat]);
                    NclParams p = NCL_PARAMS_INIT;
                    p.kind = stable ? NCL_SORT_STABLE : NCL_SORT_DEFAULT;
                    NclArray *res = NULL;
                    NCL_CHECK_OK(NclSort((NclSortOp)op, a, &res, &p));
                    EXPECT(memcmp(row, keep, (size_t)n * item) == 0,
                                  "%s: the input was changed", what);
                    ck_assert_int_eq(NclArrayNDim(res), 1);
                    ck_assert_int_eq(NclArrayShape(res)[0], n);
                    if (op == NCL_SORT) {
                        ck_assert_int_eq(NclArrayDType(res), t);
                        check_sorted(t, row, n, res, ref, stable, what);
                    } else {
                        check_argsorted(t, row, n, res, ref, stable, what);
                    }
                    NclArrayRelease(res);
                }
            }
            /* in place: the output is the input */
            NclArray *self = a;
            NclParams p = NCL_PARAMS_INIT;
            p.kind = NCL_SORT_STABLE;
            NCL_CHECK_OK(NclSort(NCL_SORT, a, &self, &p));
            ck_assert_ptr_eq(self, a);
            for (int64_t i = 0; i < n; i++)
                EXPECT(memcmp(row + (size_t)i * item, keep + (size_t)ref[i] * item, item) == 0,
                              "in-place stable sort of %lld %s (%s): element %lld", (long long)n,
                              NclDTypeName(t), pattern_names[pat], (long long)i);
            NclArrayRelease(a);
        }
        free(ref);
        free(keep);
        free(row);
    }
}
END_TEST

START_TEST(t_partition_rows)
{
    const NclDType t = (NclDType)_i;
    const size_t item = NclDTypeSize(t);
    uint64_t seed = 0x9a77u + (uint64_t)_i;
    char what[200];
    for (int li = 0; li < NLENGTHS; li++) {
        const int64_t n = lengths[li];
        char *row = malloc((size_t)(n + 1) * item);
        int64_t *ref = malloc((size_t)(n + 1) * sizeof *ref);
        ck_assert(row != NULL && ref != NULL);
        for (int pat = 0; pat < NPATTERNS; pat++) {
            fill_pattern(t, row, n, pat, &seed);
            ref_stable_argsort(t, row, n, ref);
            NclArray *a = wrap_row(t, n, row);
            const int64_t kths[] = {0, 1, n / 2, n - 1, -1, -n, n / 3, n, -n - 1};
            for (size_t ki = 0; ki < sizeof kths / sizeof kths[0]; ki++) {
                const int64_t kth = kths[ki];
                const int in_range = kth >= -n && kth < n;
                for (int op = NCL_PARTITION; op <= NCL_ARGPARTITION; op++) {
                    snprintf(what, sizeof what, "%s of %lld %s elements (%s), kth %lld",
                             op == NCL_PARTITION ? "partition" : "argpartition", (long long)n,
                             NclDTypeName(t), pattern_names[pat], (long long)kth);
                    NclParams p = NCL_PARAMS_INIT;
                    p.kth = kth;
                    NclArray *res = NULL;
                    if (!in_range) {
                        NCL_CHECK_STATUS(NclSort((NclSortOp)op, a, &res, &p), NCL_ERR_INDEX);
                        ck_assert_ptr_null(res);
                        continue;
                    }
                    NCL_CHECK_OK(NclSort((NclSortOp)op, a, &res, &p));
                    const int64_t k = kth < 0 ? kth + n : kth;
                    gather_ctx g = {res, row, item};
                    if (op == NCL_PARTITION) {
                        ck_assert_int_eq(NclArrayDType(res), t);
                        check_same_multiset(t, row, n, res, ref, what);
                        check_partition(t, row, n, ref, k, direct_val, &g, what);
                    } else {
                        check_permutation(res, n, what);
                        check_partition(t, row, n, ref, k, gathered_val, &g, what);
                    }
                    NclArrayRelease(res);
                }
            }
            NclArrayRelease(a);
        }
        free(ref);
        free(row);
    }
}
END_TEST

/* ---- sort along an axis of 2-D arrays in every layout ------------------------------------- */

START_TEST(t_sort_axes_layouts)
{
    const NclDType types[] = {NCL_FLOAT64, NCL_INT16, NCL_FLOAT32, NCL_UINT64, NCL_BOOL};
    const NclDType t = types[_i];
    const size_t item = NclDTypeSize(t);
    uint64_t seed = 0xa0e5u + (uint64_t)_i;
    const int64_t shapes[][2] = {{7, 33}, {129, 3}, {1, 64}, {5, 1}, {0, 4}, {17, 17}};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const int64_t *sh = shapes[si];
        NclArray *c = ncl_test_new(t, 2, sh);
        for (int64_t i = 0; i < NclArraySize(c); i++)
            random_element(t, ncl_test_ptr(c, i), &seed, (int)(i % 3 == 0));
        for (int axis = 0; axis < 2; axis++) {
            const int64_t n = sh[axis], lines = sh[1 - axis];
            char *line = malloc((size_t)(n + 1) * item);
            int64_t *ref = malloc((size_t)(n + 1) * sizeof *ref);
            ck_assert(line != NULL && ref != NULL);
            for (int lay = 0; lay < NCL_TEST_NLAYOUTS; lay++) {
                NclArray *a = ncl_test_layout_of(c, (ncl_test_layout)lay);
                for (int op = 0; op <= NCL_ARGPARTITION; op++) { /* the ops along an axis */
                    NclParams p = NCL_PARAMS_INIT;
                    const int ax[1] = {axis == 0 ? -2 : 1};
                    p.axes = ax;
                    p.naxes = 1;
                    p.kind = NCL_SORT_STABLE;
                    p.kth = n > 0 ? n / 2 : 0;
                    NclArray *res = NULL;
                    if (n == 0 && op >= NCL_PARTITION) {
                        NCL_CHECK_STATUS(NclSort((NclSortOp)op, a, &res, &p), NCL_ERR_INDEX);
                        continue;
                    }
                    NCL_CHECK_OK(NclSort((NclSortOp)op, a, &res, &p));
                    ck_assert_int_eq(NclArrayNDim(res), 2);
                    ck_assert_int_eq(NclArrayShape(res)[0], sh[0]);
                    ck_assert_int_eq(NclArrayShape(res)[1], sh[1]);
                    for (int64_t l = 0; l < lines; l++) {
                        /* line l of the input and of the result, as 1-D views */
                        for (int64_t i = 0; i < n; i++) {
                            const int64_t flat = axis == 0 ? i * sh[1] + l : l * sh[1] + i;
                            memcpy(line + (size_t)i * item, ncl_test_ptr(c, flat), item);
                        }
                        ref_stable_argsort(t, line, n, ref);
                        int64_t start[2] = {0, 0}, stop[2] = {sh[0], sh[1]};
                        start[1 - axis] = l;
                        stop[1 - axis] = l + 1;
                        NclArray *view = NULL, *flat1 = NULL;
                        NCL_CHECK_OK(NclArraySlice(res, start, stop, NULL, &view));
                        NCL_CHECK_OK(NclArrayReshape(view, 1, &n, &flat1));
                        char what[160];
                        snprintf(what, sizeof what, "%s along axis %d of %s (%lld,%lld) %s, line %lld",
                                 op == NCL_SORT ? "sort" : op == NCL_ARGSORT ? "argsort"
                                 : op == NCL_PARTITION ? "partition" : "argpartition",
                                 axis, NclDTypeName(t), (long long)sh[0], (long long)sh[1],
                                 ncl_test_layout_name((ncl_test_layout)lay), (long long)l);
                        gather_ctx g = {flat1, line, item};
                        if (op == NCL_SORT) {
                            check_sorted(t, line, n, flat1, ref, 1, what);
                        } else if (op == NCL_ARGSORT) {
                            check_argsorted(t, line, n, flat1, ref, 1, what);
                        } else if (op == NCL_PARTITION) {
                            check_same_multiset(t, line, n, flat1, ref, what);
                            check_partition(t, line, n, ref, n / 2, direct_val, &g, what);
                        } else {
                            check_permutation(flat1, n, what);
                            check_partition(t, line, n, ref, n / 2, gathered_val, &g, what);
                        }
                        NclArrayRelease(flat1);
                        NclArrayRelease(view);
                    }
                    NclArrayRelease(res);
                }
                NclArrayRelease(a);
            }
            free(ref);
            free(line);
        }
        NclArrayRelease(c);
    }
}
END_TEST

/* ---- float reductions: the same bits in every layout ----------------------------------- */

/* Values with a dynamic range of 2**(2*spread) and cancellation: a third of
   them are the negatives of others, at other places. prod_data: values in
   [0.5, 2) of either sign, so that products neither overflow nor vanish. */
static void fill_reduce_data(const NclArray *a, uint64_t *seed, int prod_data)
{
    const NclDType t = NclArrayDType(a);
    const int64_t n = NclArraySize(a);
    const int spread = t == NCL_FLOAT32 ? 20 : 60;
    for (int64_t i = 0; i < n; i++) {
        const uint64_t r = ncl_test_rand(seed);
        const double mant = 0.5 + (double)(r >> 11) / 18014398509481984.0;
        const double sign = (r & 1) ? -1.0 : 1.0;
        const double v = prod_data ? sign * mant * (r & 2 ? 2.0 : 1.0)
                                   : sign * ldexp(mant, (int)((r >> 2) % (uint64_t)(2 * spread)) - spread);
        ncl_test_set_d(a, i, v);
    }
    if (!prod_data)
        for (int64_t i = 0; i + 3 <= n; i += 3) {
            const int64_t j = (int64_t)(ncl_test_rand(seed) % (uint64_t)n);
            ncl_test_set_d(a, j, -ncl_test_get_d(a, i));
        }
}

/* src's values in an array whose memory axes are src's rotated by one, seen
   through NclArrayTranspose with src's shape. */
static NclArray *layout_rotated(const NclArray *src)
{
    const int nd = NclArrayNDim(src);
    const int64_t *sh = NclArrayShape(src);
    int64_t bs[NCL_MAXDIMS];
    int axes[NCL_MAXDIMS];
    for (int i = 0; i < nd; i++) {
        bs[i] = sh[(i + 1) % nd];
        axes[i] = (i - 1 + nd) % nd;
    }
    NclArray *base = ncl_test_new(NclArrayDType(src), nd, bs), *out = NULL;
    NCL_CHECK_OK(NclArrayTranspose(base, axes, &out));
    NclArrayRelease(base);
    for (int i = 0; i < nd; i++) ck_assert_int_eq(NclArrayShape(out)[i], sh[i]);
    ncl_test_copy_elements(out, src);
    return out;
}

enum { NLAYOUTS_R = NCL_TEST_NLAYOUTS + 1 };
static NclArray *layout_r(const NclArray *src, int lay)
{
    return lay < NCL_TEST_NLAYOUTS ? ncl_test_layout_of(src, (ncl_test_layout)lay)
                                   : layout_rotated(src);
}
static const char *layout_r_name(int lay)
{
    return lay < NCL_TEST_NLAYOUTS ? ncl_test_layout_name((ncl_test_layout)lay) : "rotated axes";
}

/* The result of op over axes (naxes -1: NULL) of a, or fails the test. */
static NclArray *reduce_of(NclReduceOp op, const NclArray *a, const int *axes, int naxes)
{
    NclParams p = NCL_PARAMS_INIT;
    if (naxes >= 0) {
        p.axes = axes;
        p.naxes = naxes;
    }
    NclArray *res = NULL;
    NclStatus s = NclReduce(op, a, &res, &p);
    EXPECT(s == NCL_OK, "NclReduce(%d) of %s: %s (%s)", (int)op,
                  NclDTypeName(NclArrayDType(a)), NclStatusString(s), NclLastError());
    return res;
}

static int same_bits(const NclArray *x, const NclArray *y)
{
    if (NclArraySize(x) != NclArraySize(y) || NclArrayDType(x) != NclArrayDType(y)) return 0;
    const size_t item = NclDTypeSize(NclArrayDType(x));
    for (int64_t i = 0; i < NclArraySize(x); i++)
        if (memcmp(ncl_test_ptr(x, i), ncl_test_ptr(y, i), item) != 0) return 0;
    return 1;
}

/* The sum of all of a in long double, and the sum of magnitudes. */
static void ld_sums(const NclArray *a, long double *sum, long double *mag)
{
    *sum = 0;
    *mag = 0;
    for (int64_t i = 0; i < NclArraySize(a); i++) {
        const long double v = ncl_test_get_d(a, i);
        *sum += v;
        *mag += fabsl(v);
    }
}

/* SUM, PROD and MEAN of a's values in every layout, over every single axis,
   the pairs of a 3-D array and all axes: memcmp-identical results. */
static void check_layout_bitwise(const NclArray *c, const NclArray *cprod, const char *what)
{
    const int nd = NclArrayNDim(c);
    int axes_sets[8][3];
    int naxes[8], nsets = 0;
    naxes[nsets++] = -1;
    for (int d = 0; d < nd; d++) {
        axes_sets[nsets][0] = d - (d % 2) * nd; /* odd axes given negative */
        naxes[nsets++] = 1;
    }
    if (nd == 3) {
        axes_sets[nsets][0] = 2;
        axes_sets[nsets][1] = 0;
        naxes[nsets++] = 2;
    }
    const NclReduceOp ops[] = {NCL_SUM, NCL_PROD, NCL_MEAN};
    for (size_t oi = 0; oi < 3; oi++) {
        const NclArray *src = ops[oi] == NCL_PROD ? cprod : c;
        for (int k = 0; k < nsets; k++) {
            NclArray *ref = reduce_of(ops[oi], src, axes_sets[k], naxes[k]);
            for (int lay = 1; lay < NLAYOUTS_R; lay++) {
                NclArray *a = layout_r(src, lay);
                NclArray *res = reduce_of(ops[oi], a, axes_sets[k], naxes[k]);
                EXPECT(same_bits(res, ref),
                              "%s: %s over axes set %d differs between C and %s layouts "
                              "(first element %.17g vs %.17g)", what,
                              ops[oi] == NCL_SUM ? "sum" : ops[oi] == NCL_PROD ? "prod" : "mean",
                              k, layout_r_name(lay), ncl_test_get_d(res, 0),
                              ncl_test_get_d(ref, 0));
                NclArrayRelease(res);
                NclArrayRelease(a);
            }
            if (naxes[k] < 0 && ops[oi] != NCL_PROD) {
                /* and the answer is a good one: within pairwise summation's
                   bound of a long double reference (whose own error is
                   counted in) */
                long double s, m;
                ld_sums(src, &s, &m);
                const int64_t n = NclArraySize(src);
                const long double u = NclArrayDType(src) == NCL_FLOAT32 ? ldexpl(1, -24)
                                                                        : ldexpl(1, -53);
                const long double depth = ceill(log2l((long double)(n > 2 ? n : 2))) + 2;
                long double bound = depth * u * m + (long double)n * ldexpl(1, -64) * m;
                long double want = s;
                if (ops[oi] == NCL_MEAN) {
                    want /= n;
                    bound /= n;
                }
                const long double got = ncl_test_get_d(ref, 0);
                EXPECT(fabsl(got - want) <= bound + fabsl(want) * u * 2,
                              "%s: %s of all is %.17Lg, the reference %.17Lg (bound %.3Lg)", what,
                              ops[oi] == NCL_SUM ? "sum" : "mean", got, want, bound);
            }
            NclArrayRelease(ref);
        }
    }
}

START_TEST(t_reduce_layout_bitwise)
{
    const NclDType t = _i ? NCL_FLOAT32 : NCL_FLOAT64;
    const int64_t shapes[][3] = {{37, 53, 0}, {3, 2100, 0}, {2100, 3, 0}, {5, 7, 11},
                                 {4, 3, 300}, {1, 1025, 0}, {2, 1, 2}};
    uint64_t seed = 0xb17u + (uint64_t)_i;
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const int nd = shapes[si][2] ? 3 : 2;
        NclArray *c = ncl_test_new(t, nd, shapes[si]);
        NclArray *cp = ncl_test_new(t, nd, shapes[si]);
        fill_reduce_data(c, &seed, 0);
        fill_reduce_data(cp, &seed, 1);
        char what[96];
        snprintf(what, sizeof what, "%s (%lld,%lld%s)", NclDTypeName(t), (long long)shapes[si][0],
                 (long long)shapes[si][1], nd == 3 ? ",..." : "");
        check_layout_bitwise(c, cp, what);
        NclArrayRelease(cp);
        NclArrayRelease(c);
    }
}
END_TEST

/* Thread-count independence: the same reductions above the threading
   threshold must give the same bits whatever NclSetNumThreads says. The
   library has one thread for now, so the list of counts below holds only
   that one and the test checks layouts at that size; when the pool lands,
   this loop sets each count in turn and compares with the first. */
START_TEST(t_reduce_thread_counts_single_thread_only)
{
    static const int thread_counts[] = {1};
    const NclDType t = _i ? NCL_FLOAT32 : NCL_FLOAT64;
    uint64_t seed = 0x7c0u + (uint64_t)_i;
    NclArray *c = ncl_test_new(t, 2, NCL_DIMS(3, 70001));
    NclArray *cp = ncl_test_new(t, 2, NCL_DIMS(3, 70001));
    fill_reduce_data(c, &seed, 0);
    fill_reduce_data(cp, &seed, 1);
    for (size_t k = 0; k < sizeof thread_counts / sizeof thread_counts[0]; k++) {
        char what[64];
        snprintf(what, sizeof what, "%s (3,70001), %d thread(s)", NclDTypeName(t),
                 thread_counts[k]);
        check_layout_bitwise(c, cp, what);
    }
    NclArrayRelease(cp);
    NclArrayRelease(c);
}
END_TEST

/* ---- refusals write nothing ------------------------------------------------------------------ */

/* Lets a read-only array over another array's memory keep that one alive. */
static void release_deleter(void *ctx, void *data)
{
    (void)data;
    NclArrayRelease((NclArray *)ctx);
}

/* A test-owned array of the given dtype and shape filled with 7s; read-only
   when ro is set. */
static NclArray *sevens(NclDType t, int ndim, const int64_t *shape, int ro)
{
    NclArray *a = ncl_test_new(t, ndim, shape);
    for (int64_t i = 0; i < NclArraySize(a); i++) ncl_test_set_d(a, i, 7);
    if (!ro) return a;
    NclArray *v = NULL;
    NCL_CHECK_OK(NclFromData(t, ndim, shape, NULL, NclArrayData(a), 0, release_deleter, a, &v));
    return v;
}

typedef struct refusal {
    const char *what;
    const char *fn;          /* the function the message must name */
    NclStatus want, also;    /* also: a second status the contract allows, or NCL_OK */
} refusal;

enum {
    R_WHERE_SHAPE, R_CLIP_READONLY, R_WHERE_CASTING, R_FMA_BROADCAST, R_FMA_INT, R_WHERE_NULL_C,
    R_TERNARY_OP, R_SUM_AXIS, R_SUM_REPEATED, R_SUM_OUT_SHAPE, R_MAX_READONLY, R_SUM_DTYPE_CAST,
    R_MIN_EMPTY, R_ARGMAX_TWO_AXES, R_REDUCE_OP, R_MEAN_OUT_CAST, R_PARTITION_KTH, R_SORT_AXIS,
    R_SORT_OUT_SHAPE, R_ARGSORT_READONLY, R_SORT_TWO_AXES, R_SORT_OP, R_TAKE_INDEX, R_TAKE_AXIS,
    R_PUT_COUNT, R_PUT_READONLY, R_PUT_CASTING, R_COMPRESS_MASK_SHAPE, R_PUT_NO_TARGET,
    R_COMPRESS_NULL_MASK, R_TAKE_FLOAT_INDEX, R_MASK_OP, NREFUSALS
};

static const refusal refusals[NREFUSALS] = {
    [R_WHERE_SHAPE] = {"where into a (3,2) output for (2,3)", "NclTernary", NCL_ERR_SHAPE, NCL_OK},
    [R_CLIP_READONLY] = {"clip into a read-only output", "NclTernary", NCL_ERR_READONLY, NCL_OK},
    [R_WHERE_CASTING] = {"where of float64 into int32 (same_kind)", "NclTernary", NCL_ERR_CASTING,
                         NCL_OK},
    [R_FMA_BROADCAST] = {"fma of (2,3), (4,), (3,)", "NclTernary", NCL_ERR_BROADCAST, NCL_OK},
    [R_FMA_INT] = {"fma with dtype int32", "NclTernary", NCL_ERR_DTYPE, NCL_OK},
    [R_WHERE_NULL_C] = {"where with c NULL", "NclTernary", NCL_ERR_INVALID_ARGUMENT, NCL_OK},
    [R_TERNARY_OP] = {"ternary op 3", "NclTernary", NCL_ERR_INVALID_ARGUMENT, NCL_OK},
    [R_SUM_AXIS] = {"sum over axis 2 of a 2-D array", "NclReduce", NCL_ERR_AXIS, NCL_OK},
    [R_SUM_REPEATED] = {"sum over axes 0 and -2", "NclReduce", NCL_ERR_AXIS, NCL_OK},
    [R_SUM_OUT_SHAPE] = {"sum into an output of the wrong shape", "NclReduce", NCL_ERR_SHAPE,
                         NCL_OK},
    [R_MAX_READONLY] = {"max into a read-only output", "NclReduce", NCL_ERR_READONLY, NCL_OK},
    [R_SUM_DTYPE_CAST] = {"sum of float64 with dtype int8 (same_kind)", "NclReduce",
                          NCL_ERR_CASTING, NCL_OK},
    [R_MIN_EMPTY] = {"min over an empty axis", "NclReduce", NCL_ERR_INVALID_ARGUMENT, NCL_OK},
    [R_ARGMAX_TWO_AXES] = {"argmax over two axes", "NclReduce", NCL_ERR_AXIS,
                           NCL_ERR_INVALID_ARGUMENT},
    [R_REDUCE_OP] = {"reduce op 12", "NclReduce", NCL_ERR_INVALID_ARGUMENT, NCL_OK},
    [R_MEAN_OUT_CAST] = {"mean into an int32 output (same_kind)", "NclReduce", NCL_ERR_CASTING,
                         NCL_OK},
    [R_PARTITION_KTH] = {"partition of 5 elements at kth 5", "NclSort", NCL_ERR_INDEX, NCL_OK},
    [R_SORT_AXIS] = {"sort along axis 2 of a 2-D array", "NclSort", NCL_ERR_AXIS, NCL_OK},
    [R_SORT_OUT_SHAPE] = {"sort into an output of the wrong shape", "NclSort", NCL_ERR_SHAPE,
                          NCL_OK},
    [R_ARGSORT_READONLY] = {"argsort into a read-only output", "NclSort", NCL_ERR_READONLY, NCL_OK},
    [R_SORT_TWO_AXES] = {"sort along two axes", "NclSort", NCL_ERR_AXIS, NCL_ERR_INVALID_ARGUMENT},
    [R_SORT_OP] = {"sort op 4", "NclSort", NCL_ERR_INVALID_ARGUMENT, NCL_OK},
    [R_TAKE_INDEX] = {"take of index 4 from 4 elements", "NclMask", NCL_ERR_INDEX, NCL_OK},
    [R_TAKE_AXIS] = {"take along axis 3 of a 2-D array", "NclMask", NCL_ERR_AXIS, NCL_OK},
    [R_PUT_COUNT] = {"put of 3 values at 2 true elements", "NclMask", NCL_ERR_SHAPE, NCL_OK},
    [R_PUT_READONLY] = {"put into a read-only target", "NclMask", NCL_ERR_READONLY, NCL_OK},
    [R_PUT_CASTING] = {"put of float64 values into int32 (same_kind)", "NclMask",
                       NCL_ERR_CASTING, NCL_OK},
    [R_COMPRESS_MASK_SHAPE] = {"compress of (2,3) with a (3,) mask", "NclMask", NCL_ERR_SHAPE,
                               NCL_ERR_BROADCAST},
    [R_PUT_NO_TARGET] = {"put without a target", "NclMask", NCL_ERR_INVALID_ARGUMENT, NCL_OK},
    [R_COMPRESS_NULL_MASK] = {"compress with a NULL mask", "NclMask", NCL_ERR_INVALID_ARGUMENT,
                              NCL_OK},
    [R_TAKE_FLOAT_INDEX] = {"take with float64 indices", "NclMask", NCL_ERR_DTYPE,
                            NCL_ERR_INVALID_ARGUMENT},
    [R_MASK_OP] = {"mask op 4", "NclMask", NCL_ERR_INVALID_ARGUMENT, NCL_OK},
};

START_TEST(t_refusals_write_nothing)
{
    const int which = _i;
    const refusal *r = &refusals[which];
    NclArray *f23 = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 3), 1, -2, 3, 4, 0.5, 6);
    NclArray *f3 = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), 1, 2, 3);
    NclArray *f4 = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(4), 1, 2, 3, 4);
    NclArray *f5 = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(5), 5, 1, 4, 2, 3);
    NclArray *b23 = ncl_test_arr(NCL_BOOL, 2, NCL_DIMS(2, 3), 1, 0, 1, 0, 0, 1);
    NclArray *b3 = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(3), 1, 0, 1);
    NclArray *i4 = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(4), 0, 1, 2, 3);
    NclArray *e03 = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(0, 3));
    NclArray *out = NULL; /* the provided output, if the case has one */
    NclArray *res = NULL; /* stays NULL: nothing allocated on failure */
    NclParams p = NCL_PARAMS_INIT;
    int axes[2] = {0, 0};
    NclStatus s = NCL_OK;
    switch (which) {
    case R_WHERE_SHAPE:
        out = sevens(NCL_FLOAT64, 2, NCL_DIMS(3, 2), 0);
        break;
    case R_CLIP_READONLY: case R_FMA_INT: case R_WHERE_NULL_C: case R_TERNARY_OP:
        out = sevens(NCL_FLOAT64, 2, NCL_DIMS(2, 3), which == R_CLIP_READONLY);
        break;
    case R_WHERE_CASTING:
        out = sevens(NCL_INT32, 2, NCL_DIMS(2, 3), 0);
        break;
    case R_SUM_OUT_SHAPE:
        out = sevens(NCL_FLOAT64, 1, NCL_DIMS(2), 0);
        break;
    case R_MAX_READONLY: case R_SUM_AXIS: case R_SUM_REPEATED: case R_SUM_DTYPE_CAST:
    case R_REDUCE_OP:
        out = sevens(NCL_FLOAT64, 1, NCL_DIMS(3), which == R_MAX_READONLY);
        break;
    case R_MEAN_OUT_CAST:
        out = sevens(NCL_INT32, 1, NCL_DIMS(3), 0);
        break;
    case R_PARTITION_KTH: case R_SORT_TWO_AXES: case R_SORT_OP:
        out = sevens(NCL_FLOAT64, 1, NCL_DIMS(5), 0);
        break;
    case R_SORT_AXIS:
        out = sevens(NCL_FLOAT64, 2, NCL_DIMS(2, 3), 0);
        break;
    case R_SORT_OUT_SHAPE:
        out = sevens(NCL_FLOAT64, 1, NCL_DIMS(6), 0);
        break;
    case R_ARGSORT_READONLY:
        out = sevens(NCL_INT64, 1, NCL_DIMS(5), 1);
        break;
    case R_TAKE_INDEX: case R_TAKE_FLOAT_INDEX:
        out = sevens(NCL_FLOAT64, 1, NCL_DIMS(4), 0);
        break;
    case R_TAKE_AXIS:
        out = sevens(NCL_FLOAT64, 2, NCL_DIMS(2, 4), 0);
        break;
    case R_PUT_COUNT: case R_PUT_CASTING: case R_PUT_READONLY:
        out = sevens(which == R_PUT_CASTING ? NCL_INT32 : NCL_FLOAT64, 1, NCL_DIMS(3),
                     which == R_PUT_READONLY);
        break;
    case R_COMPRESS_MASK_SHAPE: case R_COMPRESS_NULL_MASK: case R_MASK_OP:
        out = sevens(NCL_FLOAT64, 1, NCL_DIMS(2), 0);
        break;
    default: break;
    }
    const uint64_t before = out ? ncl_test_hash(out) : 0;
    if (out) res = out;
    switch (which) {
    case R_WHERE_SHAPE: s = NclTernary(NCL_WHERE, b23, f23, f3, &res, NULL); break;
    case R_CLIP_READONLY: s = NclTernary(NCL_CLIP, f23, f3, f3, &res, NULL); break;
    case R_WHERE_CASTING: s = NclTernary(NCL_WHERE, b23, f23, f3, &res, NULL); break;
    case R_FMA_BROADCAST: s = NclTernary(NCL_FMA, f23, f4, f3, &res, NULL); break;
    case R_FMA_INT:
        p.dtype = NCL_INT32;
        s = NclTernary(NCL_FMA, f23, f3, f3, &res, &p);
        break;
    case R_WHERE_NULL_C: s = NclTernary(NCL_WHERE, b23, f23, NULL, &res, NULL); break;
    case R_TERNARY_OP: s = NclTernary((NclTernaryOp)NCL_TERNARY_NOPS, f23, f23, f23, &res, NULL);
        break;
    case R_SUM_AXIS:
        axes[0] = 2;
        p.axes = axes;
        p.naxes = 1;
        s = NclReduce(NCL_SUM, f23, &res, &p);
        break;
    case R_SUM_REPEATED:
        axes[1] = -2;
        p.axes = axes;
        p.naxes = 2;
        s = NclReduce(NCL_SUM, f23, &res, &p);
        break;
    case R_SUM_OUT_SHAPE: /* axis 0 of (2,3): (3,) */
        p.axes = axes;
        p.naxes = 1;
        s = NclReduce(NCL_SUM, f23, &res, &p);
        break;
    case R_MAX_READONLY:
        p.axes = axes;
        p.naxes = 1;
        s = NclReduce(NCL_MAX, f23, &res, &p);
        break;
    case R_SUM_DTYPE_CAST:
        p.axes = axes;
        p.naxes = 1;
        p.dtype = NCL_INT8;
        s = NclReduce(NCL_SUM, f23, &res, &p);
        break;
    case R_MIN_EMPTY:
        p.axes = axes;
        p.naxes = 1;
        s = NclReduce(NCL_MIN, e03, &res, &p);
        break;
    case R_ARGMAX_TWO_AXES:
        axes[1] = 1;
        p.axes = axes;
        p.naxes = 2;
        s = NclReduce(NCL_ARGMAX, f23, &res, &p);
        break;
    case R_REDUCE_OP:
        p.axes = axes;
        p.naxes = 1;
        s = NclReduce((NclReduceOp)NCL_REDUCE_NOPS, f23, &res, &p);
        break;
    case R_MEAN_OUT_CAST:
        p.axes = axes;
        p.naxes = 1;
        s = NclReduce(NCL_MEAN, f23, &res, &p);
        break;
    case R_PARTITION_KTH:
        p.kth = 5;
        s = NclSort(NCL_PARTITION, f5, &res, &p);
        break;
    case R_SORT_AXIS:
        axes[0] = 2;
        p.axes = axes;
        p.naxes = 1;
        s = NclSort(NCL_SORT, f23, &res, &p);
        break;
    case R_SORT_OUT_SHAPE: s = NclSort(NCL_SORT, f5, &res, NULL); break;
    case R_ARGSORT_READONLY: s = NclSort(NCL_ARGSORT, f5, &res, NULL); break;
    case R_SORT_TWO_AXES:
        axes[1] = 0;
        p.axes = axes;
        p.naxes = 2;
        s = NclSort(NCL_SORT, f5, &res, &p);
        break;
    case R_SORT_OP: s = NclSort((NclSortOp)NCL_SORT_NOPS, f5, &res, NULL); break;
    case R_TAKE_INDEX: {
        NclArray *idx = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(4), 0, 3, -4, 4);
        s = NclMask(NCL_MASK_TAKE, f4, idx, &res, NULL);
        NclArrayRelease(idx);
        break;
    }
    case R_TAKE_AXIS: {
        NclArray *idx = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(1), 0);
        axes[0] = 3;
        p.axes = axes;
        p.naxes = 1;
        s = NclMask(NCL_MASK_TAKE, f23, idx, &res, &p);
        NclArrayRelease(idx);
        break;
    }
    case R_PUT_COUNT: case R_PUT_READONLY: {
        NclArray *m = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(3), 1, 0, 1);
        NclArray *v2 = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 1, 2);
        s = NclMask(NCL_MASK_PUT, m, which == R_PUT_COUNT ? f3 : v2, &res, NULL);
        NclArrayRelease(v2);
        NclArrayRelease(m);
        break;
    }
    case R_PUT_CASTING: {
        NclArray *v = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 1.5, 2.5);
        s = NclMask(NCL_MASK_PUT, b3, v, &res, NULL);
        NclArrayRelease(v);
        break;
    }
    case R_COMPRESS_MASK_SHAPE: s = NclMask(NCL_MASK_COMPRESS, f23, b3, &res, NULL); break;
    case R_PUT_NO_TARGET:
        s = NclMask(NCL_MASK_PUT, b3, f3, &res, NULL);
        break;
    case R_COMPRESS_NULL_MASK: s = NclMask(NCL_MASK_COMPRESS, f3, NULL, &res, NULL); break;
    case R_TAKE_FLOAT_INDEX: s = NclMask(NCL_MASK_TAKE, f4, f4, &res, NULL); break;
    case R_MASK_OP: s = NclMask((NclMaskOp)NCL_MASK_NOPS, f3, b3, &res, NULL); break;
    default: ck_abort_msg("bad case"); break;
    }
    EXPECT(s == r->want || (r->also != NCL_OK && s == r->also),
                  "%s: returned %s, expected %s (message: %s)", r->what, NclStatusString(s),
                  NclStatusString(r->want), NclLastError());
    const char *m = NclLastError();
    EXPECT(m[0] != '\0', "%s: no message", r->what);
    EXPECT(strstr(m, r->fn) != NULL, "%s: message \"%s\" does not name %s", r->what, m,
                  r->fn);
    if (out) {
        EXPECT(res == out, "%s: *out changed", r->what);
        EXPECT(ncl_test_hash(out) == before, "%s: the provided output was written",
                      r->what);
    } else {
        EXPECT(res == NULL, "%s: *out set on failure", r->what);
    }
    NclArrayRelease(out);
    NclArray *all[] = {f23, f3, f4, f5, b23, b3, i4, e03};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) NclArrayRelease(all[i]);
}
END_TEST

/* ---- device memory ---------------------------------------------------------------------------- */

START_TEST(t_device_memory)
{
    /* the "device" memory is a page no host access may touch */
    const size_t page = 4096;
    void *dev = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT(dev != MAP_FAILED, "mmap failed");
    NclArray *d = NULL, *db = NULL, *di = NULL;
    NCL_CHECK_OK(NclFromDataKind(NCL_FLOAT64, 1, NCL_DIMS(8), NULL, dev, NCL_ARRAY_WRITEABLE,
                                 NULL, NULL, NCL_MEM_DEVICE, 0, &d));
    NCL_CHECK_OK(NclFromDataKind(NCL_BOOL, 1, NCL_DIMS(8), NULL, dev, NCL_ARRAY_WRITEABLE, NULL,
                                 NULL, NCL_MEM_DEVICE, 0, &db));
    NCL_CHECK_OK(NclFromDataKind(NCL_INT64, 1, NCL_DIMS(8), NULL, dev, NCL_ARRAY_WRITEABLE, NULL,
                                 NULL, NCL_MEM_DEVICE, 0, &di));
    NclArray *h = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(8), 1, 2, 3, 4, 5, 6, 7, 8);
    NclArray *hb = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(8), 1, 0, 1, 0, 1, 0, 1, 0);
    NclArray *hi = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(2), 0, 1);
    /* each call: the status, a message naming the function, *out kept */
#define DEV_CASE(WHAT, FN, GIVEN, CALL)                                                     \
    do {                                                                                    \
        NclArray *o_ = (GIVEN);                                                             \
        NclStatus s_ = (CALL);                                                              \
        EXPECT(s_ == NCL_ERR_DEVICE_MEMORY, "%s: %s (%s)", (WHAT), NclStatusString(s_), \
                      NclLastError());                                                      \
        EXPECT(strstr(NclLastError(), (FN)) != NULL, "%s: message \"%s\"", (WHAT),     \
                      NclLastError());                                                      \
        EXPECT(o_ == (GIVEN), "%s: *out changed", (WHAT));                           \
    } while (0)
    DEV_CASE("where of a device condition", "NclTernary", NULL,
             NclTernary(NCL_WHERE, db, h, h, &o_, NULL));
    DEV_CASE("fma into device memory", "NclTernary", d, NclTernary(NCL_FMA, h, h, h, &o_, NULL));
    DEV_CASE("sum of device memory", "NclReduce", NULL, NclReduce(NCL_SUM, d, &o_, NULL));
    DEV_CASE("cumsum into device memory", "NclReduce", d, NclReduce(NCL_CUMSUM, h, &o_, NULL));
    DEV_CASE("sort of device memory", "NclSort", NULL, NclSort(NCL_SORT, d, &o_, NULL));
    DEV_CASE("argsort into device memory", "NclSort", di, NclSort(NCL_ARGSORT, h, &o_, NULL));
    DEV_CASE("compress with a device mask", "NclMask", NULL,
             NclMask(NCL_MASK_COMPRESS, h, db, &o_, NULL));
    DEV_CASE("nonzero of device memory", "NclMask", NULL,
             NclMask(NCL_MASK_NONZERO, d, NULL, &o_, NULL));
    DEV_CASE("take with device indices", "NclMask", NULL, NclMask(NCL_MASK_TAKE, h, di, &o_, NULL));
    DEV_CASE("put into a device target", "NclMask", d, NclMask(NCL_MASK_PUT, hb, h, &o_, NULL));
#undef DEV_CASE
    (void)hi;
    NclArray *all[] = {d, db, di, h, hb, hi};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) NclArrayRelease(all[i]);
    munmap(dev, page);
}
END_TEST

/* ---- allocation failures ------------------------------------------------------------------------ */

enum { FI_SUM_CAST, FI_MEAN_INT, FI_MIN_WHERE, FI_CUMSUM, FI_SORT_STABLE, FI_ARGSORT_F,
       FI_PARTITION, FI_SORT_IN_PLACE, FI_COMPRESS, FI_NONZERO, FI_TAKE, FI_PUT, FI_WHERE,
       FI_NCALLS };
static const char *const fi_names[FI_NCALLS] = {
    "NclReduce(sum) of float32 (F order) over axis 1 in float64",
    "NclReduce(mean) of int16",
    "NclReduce(min) over axis 0 with where= and initial",
    "NclReduce(cumsum) of int8 along axis 0",
    "NclSort(sort) stable of 5000 float64",
    "NclSort(argsort) along axis 0 of an F-order int32 array",
    "NclSort(partition) of 3000 float32",
    "NclSort(sort) stable in place along axis 0 of an F-order float64 array",
    "NclMask(compress) of float64",
    "NclMask(nonzero) of int8",
    "NclMask(take) along axis 1 with int32 indices",
    "NclMask(put) of float32 values into float64",
    "NclTernary(where) of an int8 condition, float32 and float64",
};

typedef struct fi_ctx {
    NclArray *a, *b, *c, *target;
} fi_ctx;

/* The inputs of call which, the same every time (a fixed seed). */
static void fi_setup(int which, fi_ctx *x)
{
    uint64_t seed = 42;
    memset(x, 0, sizeof *x);
    switch (which) {
    case FI_SUM_CAST: {
        NclArray *c = ncl_test_new(NCL_FLOAT32, 2, NCL_DIMS(60, 300));
        ncl_test_fill_random(c, &seed, 1e3);
        x->a = ncl_test_layout_of(c, NCL_TEST_F);
        NclArrayRelease(c);
        break;
    }
    case FI_MEAN_INT:
        x->a = ncl_test_new(NCL_INT16, 2, NCL_DIMS(40, 50));
        ncl_test_fill_random(x->a, &seed, 0);
        break;
    case FI_MIN_WHERE:
        x->a = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(50, 40));
        x->b = ncl_test_new(NCL_BOOL, 2, NCL_DIMS(50, 40));
        x->c = ncl_test_arr(NCL_FLOAT64, 0, NULL, 0.25);
        ncl_test_fill_random(x->a, &seed, 1);
        ncl_test_fill_random(x->b, &seed, 0);
        break;
    case FI_CUMSUM:
        x->a = ncl_test_new(NCL_INT8, 2, NCL_DIMS(30, 40));
        ncl_test_fill_random(x->a, &seed, 0);
        break;
    case FI_SORT_STABLE:
        x->a = ncl_test_new(NCL_FLOAT64, 1, NCL_DIMS(5000));
        ncl_test_fill_random(x->a, &seed, 10);
        break;
    case FI_ARGSORT_F: {
        NclArray *c = ncl_test_new(NCL_INT32, 2, NCL_DIMS(100, 30));
        ncl_test_fill_random(c, &seed, 0);
        x->a = ncl_test_layout_of(c, NCL_TEST_F);
        NclArrayRelease(c);
        break;
    }
    case FI_PARTITION:
        x->a = ncl_test_new(NCL_FLOAT32, 1, NCL_DIMS(3000));
        ncl_test_fill_random(x->a, &seed, 100);
        break;
    case FI_SORT_IN_PLACE: {
        NclArray *c = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(64, 80));
        ncl_test_fill_random(c, &seed, 5);
        x->target = ncl_test_layout_of(c, NCL_TEST_F);
        NclArrayRelease(c);
        break;
    }
    case FI_COMPRESS:
        x->a = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(50, 100));
        x->b = ncl_test_new(NCL_BOOL, 2, NCL_DIMS(50, 100));
        ncl_test_fill_random(x->a, &seed, 1);
        ncl_test_fill_random(x->b, &seed, 0);
        break;
    case FI_NONZERO:
        x->a = ncl_test_new(NCL_INT8, 2, NCL_DIMS(50, 100));
        ncl_test_fill_random(x->a, &seed, 0);
        for (int64_t i = 0; i < NclArraySize(x->a); i += 3) ncl_test_set_i(x->a, i, 0);
        break;
    case FI_TAKE:
        x->a = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(50, 100));
        x->b = ncl_test_new(NCL_INT32, 1, NCL_DIMS(200));
        ncl_test_fill_random(x->a, &seed, 1);
        for (int64_t i = 0; i < 200; i++)
            ncl_test_set_i(x->b, i, (int64_t)(ncl_test_rand(&seed) % 200) - 100);
        break;
    case FI_PUT:
        x->target = ncl_test_new(NCL_FLOAT64, 1, NCL_DIMS(5000));
        x->a = ncl_test_new(NCL_BOOL, 1, NCL_DIMS(5000));
        ncl_test_fill_random(x->target, &seed, 1);
        ncl_test_fill_random(x->a, &seed, 0);
        {
            int64_t cnt = 0;
            for (int64_t i = 0; i < 5000; i++) cnt += ncl_test_get_i(x->a, i);
            x->b = ncl_test_new(NCL_FLOAT32, 1, &cnt);
            ncl_test_fill_random(x->b, &seed, 1e3);
        }
        break;
    case FI_WHERE:
        x->a = ncl_test_new(NCL_INT8, 2, NCL_DIMS(50, 100));
        x->b = ncl_test_new(NCL_FLOAT32, 1, NCL_DIMS(100));
        x->c = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(50, 100));
        ncl_test_fill_random(x->a, &seed, 0);
        ncl_test_fill_random(x->b, &seed, 1);
        ncl_test_fill_random(x->c, &seed, 1);
        break;
    default: ck_abort_msg("bad call");
    }
}

static void fi_teardown(fi_ctx *x)
{
    NclArrayRelease(x->a);
    NclArrayRelease(x->b);
    NclArrayRelease(x->c);
    NclArrayRelease(x->target);
    memset(x, 0, sizeof *x);
}

/* Makes call which; in-place calls write x->target and leave *res at it. */
static NclStatus fi_call(int which, fi_ctx *x, NclArray **res)
{
    NclParams p = NCL_PARAMS_INIT;
    int axis = 0;
    switch (which) {
    case FI_SUM_CAST:
        axis = 1;
        p.axes = &axis;
        p.naxes = 1;
        p.dtype = NCL_FLOAT64;
        return NclReduce(NCL_SUM, x->a, res, &p);
    case FI_MEAN_INT: return NclReduce(NCL_MEAN, x->a, res, NULL);
    case FI_MIN_WHERE:
        p.axes = &axis;
        p.naxes = 1;
        p.where = x->b;
        p.initial = NclArrayData(x->c);
        return NclReduce(NCL_MIN, x->a, res, &p);
    case FI_CUMSUM:
        p.axes = &axis;
        p.naxes = 1;
        return NclReduce(NCL_CUMSUM, x->a, res, &p);
    case FI_SORT_STABLE:
        p.kind = NCL_SORT_STABLE;
        return NclSort(NCL_SORT, x->a, res, &p);
    case FI_ARGSORT_F:
        p.axes = &axis;
        p.naxes = 1;
        p.kind = NCL_SORT_STABLE;
        return NclSort(NCL_ARGSORT, x->a, res, &p);
    case FI_PARTITION:
        p.kth = 1000;
        return NclSort(NCL_PARTITION, x->a, res, &p);
    case FI_SORT_IN_PLACE:
        p.axes = &axis;
        p.naxes = 1;
        p.kind = NCL_SORT_STABLE;
        *res = x->target;
        return NclSort(NCL_SORT, x->target, res, &p);
    case FI_COMPRESS: return NclMask(NCL_MASK_COMPRESS, x->a, x->b, res, NULL);
    case FI_NONZERO: return NclMask(NCL_MASK_NONZERO, x->a, NULL, res, NULL);
    case FI_TAKE:
        axis = 1;
        p.axes = &axis;
        p.naxes = 1;
        return NclMask(NCL_MASK_TAKE, x->a, x->b, res, &p);
    case FI_PUT:
        *res = x->target;
        return NclMask(NCL_MASK_PUT, x->a, x->b, res, NULL);
    case FI_WHERE: return NclTernary(NCL_WHERE, x->a, x->b, x->c, res, NULL);
    default: ck_abort_msg("bad call"); return NCL_OK;
    }
}

static int fi_in_place(int which) { return which == FI_SORT_IN_PLACE || which == FI_PUT; }

START_TEST(t_fault_injection)
{
    const int which = _i;
    /* the answer of an unfailing call, with the library's own handler */
    fi_ctx x;
    fi_setup(which, &x);
    NclArray *res = NULL;
    NCL_CHECK_OK(fi_call(which, &x, &res));
    NclArray *want = ncl_test_clone(res);
    if (res != x.target) NclArrayRelease(res);
    fi_teardown(&x);
    int failed_some = 0, done = 0;
    for (long k = 1; k <= 64 && !done; k++) {
        fi_setup(which, &x);
        const uint64_t h = x.target ? ncl_test_hash(x.target) : 0;
        ncl_test_alloc acc;
        ncl_test_alloc_install(&acc, k, 0);
        res = NULL;
        const NclStatus s = fi_call(which, &x, &res);
        ncl_test_alloc_uninstall(&acc);
        char what[160];
        snprintf(what, sizeof what, "%s, allocation %ld failing", fi_names[which], k);
        if (atomic_load(&acc.failures) == 0) {
            EXPECT(s == NCL_OK, "%s: %s (%s)", what, NclStatusString(s), NclLastError());
            done = 1;
        }
        if (s == NCL_OK) {
            NCL_CHECK_ARRAYS(res, want, NCL_TEST_SIGNED_ZERO, 0u);
        } else {
            EXPECT(s == NCL_ERR_NO_MEMORY, "%s: %s (%s)", what, NclStatusString(s),
                          NclLastError());
            EXPECT(NclLastError()[0] != '\0', "%s: no message", what);
            failed_some = 1;
            if (fi_in_place(which)) {
                EXPECT(res == x.target, "%s: *out changed", what);
                EXPECT(ncl_test_hash(x.target) == h, "%s: the output was written", what);
            } else {
                EXPECT(res == NULL, "%s: *out set on failure", what);
            }
        }
        if (res != x.target) NclArrayRelease(res);
        fi_teardown(&x);
        NCL_CHECK_NO_LEAK(&acc);
    }
    EXPECT(done, "%s: still failing after 64 allocations", fi_names[which]);
    if (!fi_in_place(which))
        EXPECT(failed_some, "%s: never allocated through the handler", fi_names[which]);
    NclArrayRelease(want);
}
END_TEST

/* ---- the suite ---------------------------------------------------------------------------------- */

static Suite *properties_suite(void)
{
    Suite *s = suite_create("properties");
    TCase *tc = ncl_test_tcase(s, "sort");
    tcase_add_loop_test(tc, t_sort_rows, 0, NCL_NTYPES);
    tcase_add_loop_test(tc, t_partition_rows, 0, NCL_NTYPES);
    tcase_add_loop_test(tc, t_sort_axes_layouts, 0, 5);
    tc = ncl_test_tcase(s, "reduce");
    tcase_add_loop_test(tc, t_reduce_layout_bitwise, 0, 2);
    tcase_add_loop_test(tc, t_reduce_thread_counts_single_thread_only, 0, 2);
    tc = ncl_test_tcase(s, "refusals");
    tcase_add_loop_test(tc, t_refusals_write_nothing, 0, NREFUSALS);
    tcase_add_test(tc, t_device_memory);
    tcase_add_loop_test(tc, t_fault_injection, 0, FI_NCALLS);
    return s;
}

NCL_TEST_MAIN(properties_suite)
