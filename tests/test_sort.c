/*
 * test_sort.c: the Sort subsystem through NclSort: sort, argsort, partition
 * and argpartition over every dtype, slice lengths on both sides of each
 * algorithm switch, ordered and adversarial patterns (sorted, reversed, all
 * equal, few distinct, NaN of both signs and several payloads, +-inf, -0.0,
 * integer limits); along every axis of 2-D and 3-D arrays in C, Fortran,
 * strided, reversed and misaligned layouts; outputs that are provided (in
 * any layout), in place or partially overlapping the input; literal samples of
 * NumPy's np.sort / np.argsort; every refusal with its status, message and
 * untouched output; allocation failure injected at every allocation; the
 * kernel chain (a hook sees and can refuse the slices); FP flags.
 *
 * The checks are properties against an order written here independently of
 * the library: NaN after everything, -0.0 equal to 0.0; a stable result
 * must equal the reference order (key, then input index).
 */
#include <stddef.h>
#include "ncl_test.h"

/* ck_assert records every passing assertion (a write to Check's pipe), which
   per element of 1e5-element slices costs more than the sort: hot loops
   test with a plain if and abort only on failure. */
#define REQUIRE(cond, ...)                   \
    do {                                     \
        if (!(cond)) ck_abort_msg(__VA_ARGS__); \
    } while (0)

/* ---- the reference order ------------------------------------------------------------ */

/* The element's bits, zero-extended. */
static uint64_t elem_bits(const NclArray *a, const char *p)
{
    return ncl_test_load_bits(p, NclDTypeSize(NclArrayDType(a)));
}

/* A 64-bit key whose unsigned order is NumPy's sort order and whose
   equality is NumPy's equality (-0.0 == 0.0, all NaNs equal). */
static uint64_t order_key(NclDType t, uint64_t bits)
{
    const uint64_t sign = UINT64_C(1) << 63;
    double d;
    switch (t) {
    case NCL_INT8: return (uint64_t)(int64_t)(int8_t)(uint8_t)bits ^ sign;
    case NCL_INT16: return (uint64_t)(int64_t)(int16_t)(uint16_t)bits ^ sign;
    case NCL_INT32: return (uint64_t)(int64_t)(int32_t)(uint32_t)bits ^ sign;
    case NCL_INT64: return bits ^ sign;
    case NCL_FLOAT32: {
        float f;
        uint32_t b32 = (uint32_t)bits;
        memcpy(&f, &b32, 4);
        d = f;
        break;
    }
    case NCL_FLOAT64: memcpy(&d, &bits, 8); break;
    default: return bits;
    }
    if (isnan(d)) return UINT64_MAX;
    if (d == 0) d = 0.0;
    uint64_t u;
    memcpy(&u, &d, 8);
    return (u & sign) ? ~u : u | sign;
}

typedef struct ref_item {
    uint64_t key;
    int64_t idx;
} ref_item;

static int ref_cmp(const void *x, const void *y)
{
    const ref_item *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

static int u64_cmp(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* One slice's input: element bits and the reference stable order. */
typedef struct slice_ref {
    int64_t n;
    uint64_t *bits;
    ref_item *order; /* sorted by (key, input index) */
    uint64_t *sorted_bits;
} slice_ref;

static void slice_ref_init(slice_ref *r, NclDType t, const uint64_t *bits, int64_t n)
{
    r->n = n;
    r->bits = malloc((size_t)(n ? n : 1) * sizeof *r->bits);
    r->order = malloc((size_t)(n ? n : 1) * sizeof *r->order);
    r->sorted_bits = malloc((size_t)(n ? n : 1) * sizeof *r->sorted_bits);
    REQUIRE(r->bits && r->order && r->sorted_bits, "out of memory");
    for (int64_t i = 0; i < n; i++) {
        r->bits[i] = bits[i];
        r->order[i].key = order_key(t, bits[i]);
        r->order[i].idx = i;
        r->sorted_bits[i] = bits[i];
    }
    qsort(r->order, (size_t)n, sizeof *r->order, ref_cmp);
    qsort(r->sorted_bits, (size_t)n, sizeof *r->sorted_bits, u64_cmp);
}

static void slice_ref_free(slice_ref *r)
{
    free(r->bits);
    free(r->order);
    free(r->sorted_bits);
}

/* Checks got (element bits for SORT / PARTITION, indices for the arg ops) of
   one slice against its reference. */
static void check_slice(NclSortOp op, int kind, int64_t kth, NclDType t, const slice_ref *r,
                        const uint64_t *got, const char *what)
{
    const int64_t n = r->n;
    uint64_t *vals = malloc((size_t)(n ? n : 1) * sizeof *vals);
    REQUIRE(vals != NULL, "out of memory");
    if (op == NCL_ARGSORT || op == NCL_ARGPARTITION) {
        /* a permutation of 0..n-1, gathered */
        char *seen = calloc((size_t)(n ? n : 1), 1);
        REQUIRE(seen != NULL, "out of memory");
        for (int64_t i = 0; i < n; i++) {
            const int64_t k = (int64_t)got[i];
            REQUIRE(k >= 0 && k < n && !seen[k], "%s: index %lld at %lld is out of range "
                          "or repeated", what, (long long)k, (long long)i);
            seen[k] = 1;
            vals[i] = r->bits[k];
        }
        free(seen);
    } else {
        memcpy(vals, got, (size_t)n * sizeof *vals);
        /* a permutation of the input's bits (so -0.0 and NaN payloads survive) */
        uint64_t *s = malloc((size_t)(n ? n : 1) * sizeof *s);
        REQUIRE(s != NULL, "out of memory");
        memcpy(s, got, (size_t)n * sizeof *s);
        qsort(s, (size_t)n, sizeof *s, u64_cmp);
        REQUIRE(memcmp(s, r->sorted_bits, (size_t)n * sizeof *s) == 0,
                      "%s: the result is not a permutation of the input", what);
        free(s);
    }
    if (op == NCL_SORT || op == NCL_ARGSORT) {
        for (int64_t i = 0; i < n; i++)
            REQUIRE(order_key(t, vals[i]) == r->order[i].key,
                          "%s: element %lld is out of order", what, (long long)i);
        if (kind == NCL_SORT_STABLE) {
            for (int64_t i = 0; i < n; i++) {
                if (op == NCL_ARGSORT)
                    REQUIRE((int64_t)got[i] == r->order[i].idx,
                                  "%s: stable argsort has %lld at %lld, expected %lld", what,
                                  (long long)got[i], (long long)i, (long long)r->order[i].idx);
                else
                    REQUIRE(vals[i] == r->bits[r->order[i].idx],
                                  "%s: stable sort element %lld is not the input's element "
                                  "%lld (ties out of input order)",
                                  what, (long long)i, (long long)r->order[i].idx);
            }
        }
    } else if (n > 0) {
        const uint64_t kk = order_key(t, vals[kth]);
        REQUIRE(kk == r->order[kth].key, "%s: element %lld does not have rank %lld", what,
                      (long long)kth, (long long)kth);
        for (int64_t i = 0; i < kth; i++)
            REQUIRE(order_key(t, vals[i]) <= kk, "%s: element %lld before kth %lld is "
                          "greater", what, (long long)i, (long long)kth);
        for (int64_t i = kth + 1; i < n; i++)
            REQUIRE(order_key(t, vals[i]) >= kk, "%s: element %lld after kth %lld is "
                          "smaller", what, (long long)i, (long long)kth);
    }
    free(vals);
}

/* ---- data ---------------------------------------------------------------------- */

enum { P_RANDOM, P_SORTED, P_REVERSED, P_EQUAL, P_FEW, P_SPECIAL, P_NPATTERNS };
static const char *const pattern_names[] = {"random", "sorted", "reversed", "all equal",
                                            "few distinct", "specials"};

static const NclDType all_dtypes[] = {NCL_BOOL, NCL_INT8, NCL_INT16, NCL_INT32,
                                      NCL_INT64, NCL_UINT8, NCL_UINT16, NCL_UINT32,
                                      NCL_UINT64, NCL_FLOAT32, NCL_FLOAT64};
#define NDTYPES ((int)(sizeof all_dtypes / sizeof all_dtypes[0]))

static int is_float(NclDType t) { return t == NCL_FLOAT32 || t == NCL_FLOAT64; }

/* A random element's bits: floats of all magnitudes and both signs,
   integers anywhere in range, bools 0/1. */
static uint64_t random_bits(NclDType t, uint64_t *rng)
{
    uint64_t r = ncl_test_rand(rng);
    if (t == NCL_BOOL) return r & 1;
    if (is_float(t)) {
        double d = ldexp((double)(r >> 11) / 9007199254740992.0, (int)(r % 61) - 30);
        if (r & 1024) d = -d;
        if (t == NCL_FLOAT32) {
            float f = (float)d;
            uint32_t b;
            memcpy(&b, &f, 4);
            return b;
        }
        uint64_t b;
        memcpy(&b, &d, 8);
        return b;
    }
    const size_t w = NclDTypeSize(t);
    return w == 8 ? r : r & ((UINT64_C(1) << (8 * w)) - 1);
}

/* The dtype's special values: NaNs of both signs and two payloads, +-inf,
   +-0.0, extremes and the smallest subnormal for floats; limits, 0 and -1
   for integers. */
static int special_bits(NclDType t, uint64_t *out)
{
    if (t == NCL_FLOAT64) {
        const uint64_t v[] = {UINT64_C(0x7FF8000000000000), UINT64_C(0xFFF8000000000000),
                              UINT64_C(0x7FF0000000000123), UINT64_C(0x7FF0000000000000),
                              UINT64_C(0xFFF0000000000000), 0, UINT64_C(0x8000000000000000),
                              1, UINT64_C(0x7FEFFFFFFFFFFFFF), UINT64_C(0xFFEFFFFFFFFFFFFF)};
        memcpy(out, v, sizeof v);
        return 10;
    }
    if (t == NCL_FLOAT32) {
        const uint64_t v[] = {0x7FC00000u, 0xFFC00000u, 0x7F800123u, 0x7F800000u, 0xFF800000u,
                              0, 0x80000000u, 1, 0x7F7FFFFFu, 0xFF7FFFFFu};
        memcpy(out, v, sizeof v);
        return 10;
    }
    if (t == NCL_BOOL) {
        out[0] = 0;
        out[1] = 1;
        return 2;
    }
    const int w = (int)NclDTypeSize(t);
    const uint64_t mask = w == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * w)) - 1;
    const int sgn = t == NCL_INT8 || t == NCL_INT16 || t == NCL_INT32 || t == NCL_INT64;
    out[0] = 0;
    out[1] = mask;                                           /* -1 / MAX */
    out[2] = sgn ? (UINT64_C(1) << (8 * w - 1)) : 1;        /* MIN / 1 */
    out[3] = sgn ? (UINT64_C(1) << (8 * w - 1)) - 1 : mask - 1; /* MAX / MAX-1 */
    return 4;
}

static int cmp_by_key_dtype;
static int key_only_cmp(const void *x, const void *y)
{
    const uint64_t a = order_key((NclDType)cmp_by_key_dtype, *(const uint64_t *)x);
    const uint64_t b = order_key((NclDType)cmp_by_key_dtype, *(const uint64_t *)y);
    return (a > b) - (a < b);
}

/* n element bits of the pattern. */
static void make_pattern(NclDType t, int pattern, int64_t n, uint64_t *rng, uint64_t *bits)
{
    uint64_t pool[16];
    int npool = 0;
    if (pattern == P_FEW) {
        npool = 3;
        for (int i = 0; i < npool; i++) pool[i] = random_bits(t, rng);
    } else if (pattern == P_SPECIAL) {
        npool = special_bits(t, pool);
    }
    const uint64_t same = random_bits(t, rng);
    for (int64_t i = 0; i < n; i++) {
        switch (pattern) {
        case P_EQUAL: bits[i] = same; break;
        case P_FEW: bits[i] = pool[ncl_test_rand(rng) % (uint64_t)npool]; break;
        case P_SPECIAL:
            bits[i] = (ncl_test_rand(rng) & 1) ? pool[ncl_test_rand(rng) % (uint64_t)npool]
                                               : random_bits(t, rng);
            break;
        default: bits[i] = random_bits(t, rng); break;
        }
    }
    if (pattern == P_SORTED || pattern == P_REVERSED) {
        cmp_by_key_dtype = (int)t;
        qsort(bits, (size_t)n, sizeof *bits, key_only_cmp);
        if (pattern == P_REVERSED)
            for (int64_t i = 0; i < n / 2; i++) {
                const uint64_t x = bits[i];
                bits[i] = bits[n - 1 - i];
                bits[n - 1 - i] = x;
            }
    }
}

/* A new 1-D array of dtype t holding bits. */
static NclArray *array_of_bits(NclDType t, const uint64_t *bits, int64_t n)
{
    NclArray *a = ncl_test_new(t, 1, &n);
    const size_t w = NclDTypeSize(t);
    for (int64_t i = 0; i < n; i++) ncl_test_store_bits(ncl_test_ptr(a, i), w, bits[i]);
    return a;
}

/* ---- slices of n-D arrays ---------------------------------------------------------- */

/* Byte offset of element j of slice s along axis (slices in C order of the
   other dimensions). */
static int64_t slice_offset(const NclArray *a, int axis, int64_t s, int64_t j)
{
    const int nd = NclArrayNDim(a);
    const int64_t *sh = NclArrayShape(a), *st = NclArrayStrides(a);
    int64_t off = j * st[axis];
    for (int d = nd - 1; d >= 0; d--) {
        if (d == axis) continue;
        off += (s % sh[d]) * st[d];
        s /= sh[d];
    }
    return off;
}

static void slice_bits(const NclArray *a, int axis, int64_t s, uint64_t *out)
{
    const int64_t n = NclArrayShape(a)[axis];
    for (int64_t j = 0; j < n; j++)
        out[j] = elem_bits(a, (const char *)NclArrayData(a) + slice_offset(a, axis, s, j));
}

/* Checks every slice of res (the result of op on a along axis). */
static void check_all_slices(NclSortOp op, int kind, int64_t kth, const NclArray *a, int axis,
                             const NclArray *res, const char *what)
{
    const NclDType t = NclArrayDType(a);
    const int64_t n = NclArrayShape(a)[axis];
    const int64_t ns = n ? NclArraySize(a) / n : 0;
    REQUIRE(NclArrayNDim(res) == NclArrayNDim(a), "%s: wrong ndim", what);
    for (int d = 0; d < NclArrayNDim(a); d++)
        REQUIRE(NclArrayShape(res)[d] == NclArrayShape(a)[d], "%s: wrong shape", what);
    if (op == NCL_ARGSORT || op == NCL_ARGPARTITION)
        REQUIRE(NclArrayDType(res) == NCL_INT64, "%s: indices are not int64", what);
    uint64_t *in = malloc((size_t)(n ? n : 1) * 8), *got = malloc((size_t)(n ? n : 1) * 8);
    REQUIRE(in && got, "out of memory");
    for (int64_t s = 0; s < ns; s++) {
        slice_bits(a, axis, s, in);
        slice_bits(res, axis, s, got);
        slice_ref r;
        slice_ref_init(&r, t, in, n);
        char buf[200];
        snprintf(buf, sizeof buf, "%s, slice %lld", what, (long long)s);
        check_slice(op, kind, kth, t, &r, got, buf);
        slice_ref_free(&r);
    }
    free(in);
    free(got);
}

static NclParams sort_params(int kind, const int *axis, int64_t kth)
{
    NclParams p = NCL_PARAMS_INIT;
    p.kind = kind;
    p.axes = axis;
    p.naxes = axis ? 1 : 0;
    p.kth = kth;
    return p;
}

static const char *const op_names[] = {"sort", "argsort", "partition", "argpartition"};

/* ---- 1-D properties ------------------------------------------------------------------ */

static void run_1d(NclDType t, int64_t n, int pattern, uint64_t *rng, int full)
{
    uint64_t *bits = malloc((size_t)(n ? n : 1) * 8);
    ck_assert(bits != NULL);
    make_pattern(t, pattern, n, rng, bits);
    NclArray *a = array_of_bits(t, bits, n);
    slice_ref r;
    slice_ref_init(&r, t, bits, n);
    uint64_t *got = malloc((size_t)(n ? n : 1) * 8);
    ck_assert(got != NULL);
    char what[160];
    for (int op = NCL_SORT; op <= NCL_ARGPARTITION; op++) {
        const int part = op >= NCL_PARTITION;
        const int64_t kths[] = {0, n / 2, n - 1, -1, n / 3};
        const int nk = part ? (n == 0 ? 0 : full ? 5 : 2) : 2;
        for (int v = 0; v < nk; v++) {
            const int kind = part ? NCL_SORT_DEFAULT : v;
            const int64_t kth = part ? kths[v] : 0;
            NclParams p = sort_params(kind, NULL, kth);
            NclArray *res = NULL;
            snprintf(what, sizeof what, "%s %s of %lld %s (%s), kth %lld",
                     kind ? "stable" : "default", op_names[op], (long long)n, NclDTypeName(t),
                     pattern_names[pattern], (long long)kth);
            NclStatus st = NclSort((NclSortOp)op, a, &res, &p);
            REQUIRE(st == NCL_OK, "%s: %s: %s", what, NclStatusString(st), NclLastError());
            REQUIRE(NclArraySize(res) == n, "%s: wrong size", what);
            REQUIRE(NclArrayFlags(res) & NCL_ARRAY_C_CONTIGUOUS, "%s: result not contiguous", what);
            REQUIRE(NclGetFPErrors() == 0, "%s: raised FP flags %d", what, NclGetFPErrors());
            for (int64_t i = 0; i < n; i++) got[i] = elem_bits(res, ncl_test_ptr(res, i));
            check_slice((NclSortOp)op, kind, kth < 0 ? kth + n : kth, t, &r, got, what);
            NclArrayRelease(res);
        }
    }
    slice_ref_free(&r);
    free(got);
    free(bits);
    NclArrayRelease(a);
}

/* Lengths around every switch of algorithm (insertion / comparison / radix
   sorts and the packed / pair layouts). */
static const int64_t lengths[] = {0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127,
                                  128, 129, 255, 256, 257, 1000, 2049, 5000};

START_TEST(t_rows_every_dtype)
{
    const NclDType t = all_dtypes[_i];
    uint64_t rng = 1234 + (uint64_t)_i;
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++)
        for (int pat = 0; pat < P_NPATTERNS; pat++) run_1d(t, lengths[k], pat, &rng, k < 13);
}
END_TEST

START_TEST(t_rows_long)
{
    const NclDType t = all_dtypes[_i];
    uint64_t rng = 99 + (uint64_t)_i;
    run_1d(t, 100000, P_RANDOM, &rng, 0);
    run_1d(t, 100000, P_SPECIAL, &rng, 0);
    run_1d(t, 100000, P_FEW, &rng, 0);
    run_1d(t, 70000, P_SORTED, &rng, 0);
}
END_TEST

/* Stable sorts of floats whose zeros and NaNs come in mixed bit patterns,
   long enough for the radix path: ties keep input order bit for bit. */
START_TEST(t_stable_specials_long)
{
    const NclDType t = _i ? NCL_FLOAT64 : NCL_FLOAT32;
    uint64_t rng = 7;
    for (int64_t n = 3000; n <= 60000; n *= 20) {
        uint64_t *bits = malloc((size_t)n * 8), sp[16];
        const int nsp = special_bits(t, sp);
        for (int64_t i = 0; i < n; i++)
            bits[i] = (ncl_test_rand(&rng) % 4) ? sp[ncl_test_rand(&rng) % (uint64_t)nsp]
                                                 : random_bits(t, &rng);
        NclArray *a = array_of_bits(t, bits, n);
        slice_ref r;
        slice_ref_init(&r, t, bits, n);
        NclParams p = sort_params(NCL_SORT_STABLE, NULL, 0);
        NclArray *res = NULL;
        NCL_CHECK_OK(NclSort(NCL_SORT, a, &res, &p));
        for (int64_t i = 0; i < n; i++) bits[i] = elem_bits(res, ncl_test_ptr(res, i));
        check_slice(NCL_SORT, NCL_SORT_STABLE, 0, t, &r, bits, "stable sort with specials");
        NclArrayRelease(res);
        /* in place, where the input's order has to be remembered before it is
           overwritten */
        NCL_CHECK_OK(NclSort(NCL_SORT, a, &a, &p));
        for (int64_t i = 0; i < n; i++) bits[i] = elem_bits(a, ncl_test_ptr(a, i));
        check_slice(NCL_SORT, NCL_SORT_STABLE, 0, t, &r, bits, "in-place stable sort with specials");
        slice_ref_free(&r);
        NclArrayRelease(a);
        free(bits);
    }
}
END_TEST

/* Keys whose low bits never vary (integers that are multiples of 4096,
   float64s that are float32s or small integers): the radix sorts skip
   those digits and must count the first one that varies. */
START_TEST(t_rows_shared_low_bits)
{
    const NclDType t = all_dtypes[_i];
    const size_t w = NclDTypeSize(t);
    if (w < 2) return;
    uint64_t rng = 4242 + (uint64_t)_i;
    for (int64_t n = 300; n <= 30000; n *= 10) {
        uint64_t *bits = malloc((size_t)n * 8);
        ck_assert(bits != NULL);
        for (int64_t i = 0; i < n; i++) {
            uint64_t r = ncl_test_rand(&rng);
            if (t == NCL_FLOAT64) {
                double d = (i & 1) ? (double)(float)((double)(int64_t)r * 1e-9)
                                   : (double)(int32_t)(r >> 40);
                memcpy(&bits[i], &d, 8);
            } else if (t == NCL_FLOAT32) {
                float f = (float)(int16_t)(r >> 48);
                uint32_t b;
                memcpy(&b, &f, 4);
                bits[i] = b;
            } else {
                bits[i] = (r << (w >= 4 ? 12 : 4)) & (w == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * w)) - 1);
            }
        }
        NclArray *a = array_of_bits(t, bits, n);
        slice_ref r;
        slice_ref_init(&r, t, bits, n);
        for (int op = NCL_SORT; op <= NCL_ARGSORT; op++) {
            NclArray *res = NULL;
            NclParams p = sort_params(NCL_SORT_STABLE, NULL, 0);
            NCL_CHECK_OK(NclSort((NclSortOp)op, a, &res, &p));
            for (int64_t i = 0; i < n; i++) bits[i] = elem_bits(res, ncl_test_ptr(res, i));
            char what[96];
            snprintf(what, sizeof what, "%s of %lld %s with shared low bits", op_names[op],
                     (long long)n, NclDTypeName(t));
            check_slice((NclSortOp)op, NCL_SORT_STABLE, 0, t, &r, bits, what);
            NclArrayRelease(res);
        }
        slice_ref_free(&r);
        NclArrayRelease(a);
        free(bits);
    }
}
END_TEST

/* 64-bit keys in clusters: the value sorts split them most significant
   digit first, so buckets longer than the in-cache buffer, digits whose
   high bits never vary inside a bucket, buckets of one repeated key and a
   few outliers that leave one huge bucket all take their own branches. */
START_TEST(t_rows_clustered_64)
{
    static const NclDType types[] = {NCL_INT64, NCL_UINT64, NCL_FLOAT64};
    const NclDType t = types[_i];
    uint64_t rng = 31337 + (uint64_t)_i;
    const int64_t n = 60000;
    uint64_t *bits = malloc((size_t)n * 8);
    ck_assert(bits != NULL);
    for (int shape = 0; shape < 5; shape++) {
        for (int64_t i = 0; i < n; i++) {
            const uint64_t r = ncl_test_rand(&rng), q = ncl_test_rand(&rng);
            switch (shape) {
            case 0: /* three clusters, gaps of constant bits inside each */
                bits[i] = (r % 3) << 61 | (q & 0xFFF) << 24 | (q >> 60);
                break;
            case 1: /* one key with 1 % random outliers */
                bits[i] = q % 100 ? UINT64_C(0x4000123400005678) : r;
                break;
            case 2: /* a narrow range: the first digit covers every varying bit */
                bits[i] = UINT64_C(0x3FF0000000000000) + r % 1500;
                break;
            case 3: /* forty keys, each with a rare low-bit variant */
                bits[i] = (UINT64_C(0x9E3779B97F4A7C15) * (r % 40)) ^ (q % 64 == 0);
                break;
            default: /* long runs sharing 40 high bits, random below */
                bits[i] = (r % 4) << 40 ^ UINT64_C(0x0123456789000000) ^ (q & 0xFFFFFF);
                break;
            }
        }
        NclArray *a = array_of_bits(t, bits, n);
        slice_ref r;
        slice_ref_init(&r, t, bits, n);
        for (int kind = NCL_SORT_DEFAULT; kind <= NCL_SORT_STABLE; kind++) {
            NclArray *res = NULL;
            NclParams p = sort_params(kind, NULL, 0);
            NCL_CHECK_OK(NclSort(NCL_SORT, a, &res, &p));
            uint64_t *got = malloc((size_t)n * 8);
            ck_assert(got != NULL);
            for (int64_t i = 0; i < n; i++) got[i] = elem_bits(res, ncl_test_ptr(res, i));
            char what[96];
            snprintf(what, sizeof what, "sort (kind %d) of clustered %s, shape %d", kind,
                     NclDTypeName(t), shape);
            check_slice(NCL_SORT, kind, 0, t, &r, got, what);
            free(got);
            NclArrayRelease(res);
        }
        slice_ref_free(&r);
        NclArrayRelease(a);
    }
    free(bits);
}
END_TEST

/* ---- n-D arrays, axes and layouts ---------------------------------------------------- */

static NclArray *random_array(NclDType t, int nd, const int64_t *shape, int pattern, uint64_t *rng)
{
    const int64_t n = ncl_test_shape_size(nd, shape);
    uint64_t *bits = malloc((size_t)(n ? n : 1) * 8);
    ck_assert(bits != NULL);
    make_pattern(t, pattern, n, rng, bits);
    NclArray *a = ncl_test_new(t, nd, shape);
    const size_t w = NclDTypeSize(t);
    for (int64_t i = 0; i < n; i++) ncl_test_store_bits(ncl_test_ptr(a, i), w, bits[i]);
    free(bits);
    return a;
}

static void run_nd(NclDType t, int nd, const int64_t *shape, uint64_t *rng)
{
    NclArray *src = random_array(t, nd, shape, P_SPECIAL, rng);
    char what[200];
    for (int lay = 0; lay < NCL_TEST_NLAYOUTS; lay++) {
        NclArray *a = ncl_test_layout_of(src, (ncl_test_layout)lay);
        for (int axis = -1; axis < nd; axis++) {
            const int ax = axis < 0 ? axis + nd : axis;
            const int64_t n = shape[ax];
            for (int op = NCL_SORT; op <= NCL_ARGPARTITION; op++) {
                if (op >= NCL_PARTITION && n == 0) continue; /* no kth exists */
                for (int kind = 0; kind < 2; kind++) {
                    const int64_t kth = op >= NCL_PARTITION ? (kind ? n - 1 : n / 2) : 0;
                    NclParams p = sort_params(op >= NCL_PARTITION ? 0 : kind, &axis, kth);
                    snprintf(what, sizeof what, "%s %s of %s, %d-D %s layout, axis %d",
                             kind ? "stable" : "default", op_names[op], NclDTypeName(t), nd,
                             ncl_test_layout_name((ncl_test_layout)lay), axis);
                    /* allocated output */
                    NclArray *res = NULL;
                    NclStatus st = NclSort((NclSortOp)op, a, &res, &p);
                    ck_assert_msg(st == NCL_OK, "%s: %s", what, NclLastError());
                    check_all_slices((NclSortOp)op, p.kind, kth, a, ax, res, what);
                    /* provided output in another layout */
                    const NclDType rt = op == NCL_ARGSORT || op == NCL_ARGPARTITION ? NCL_INT64 : t;
                    NclArray *shape_src = ncl_test_new(rt, nd, shape);
                    NclArray *o = ncl_test_layout_of(shape_src, (ncl_test_layout)((lay + 2) % NCL_TEST_NLAYOUTS));
                    NclArray *o2 = o;
                    st = NclSort((NclSortOp)op, a, &o2, &p);
                    ck_assert_msg(st == NCL_OK && o2 == o, "%s, provided output: %s", what, NclLastError());
                    check_all_slices((NclSortOp)op, p.kind, kth, a, ax, o, what);
                    NclArrayRelease(o);
                    NclArrayRelease(shape_src);
                    NclArrayRelease(res);
                }
            }
        }
        NclArrayRelease(a);
    }
    NclArrayRelease(src);
}

START_TEST(t_axes_layouts)
{
    const NclDType t = all_dtypes[_i];
    uint64_t rng = 555 + (uint64_t)_i;
    run_nd(t, 2, NCL_DIMS(5, 7), &rng);
    run_nd(t, 3, NCL_DIMS(3, 4, 6), &rng);
    run_nd(t, 2, NCL_DIMS(1, 40), &rng);
    run_nd(t, 3, NCL_DIMS(2, 0, 3), &rng);
}
END_TEST

/* Slices long enough for the radix path, along the inner and the outer axis. */
START_TEST(t_axes_long_slices)
{
    const NclDType t = all_dtypes[_i];
    uint64_t rng = 77 + (uint64_t)_i;
    run_nd(t, 2, NCL_DIMS(2, 2600), &rng);
}
END_TEST

/* ---- NumPy samples --------------------------------------------------------------------- */

START_TEST(t_numpy_samples)
{
    /* np.sort / np.argsort(kind='stable') of these, from NumPy 1.24 */
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(15), 3.5, -0.0, NAN, -INFINITY, 0.0,
                               1e-310, -2.25, INFINITY, -NAN, 7.0, -1e300, 0.0, 5e-324, -0.0, 2.0);
    NclArray *exp = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(15), -INFINITY, -1e300, -2.25, -0.0,
                                 0.0, 0.0, -0.0, 5e-324, 1e-310, 2.0, 3.5, 7.0, INFINITY, NAN, NAN);
    NclArray *exp_idx = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(15), 3, 10, 6, 1, 4, 11, 13, 12, 5,
                                     14, 0, 9, 7, 2, 8);
    NclArray *exp_stable = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(15), -INFINITY, -1e300, -2.25,
                                        -0.0, 0.0, 0.0, -0.0, 5e-324, 1e-310, 2.0, 3.5, 7.0,
                                        INFINITY, NAN, -NAN);
    NclArray *res = NULL;
    NCL_CHECK_OK(NclSort(NCL_SORT, a, &res, NULL));
    NCL_CHECK_ARRAYS_EQUAL(res, exp);
    NclArrayRelease(res);
    res = NULL;
    NclParams p = sort_params(NCL_SORT_STABLE, NULL, 0);
    NCL_CHECK_OK(NclSort(NCL_SORT, a, &res, &p));
    NCL_CHECK_ARRAYS(res, exp_stable, NCL_TEST_SIGNED_ZERO, 0);
    ck_assert(signbit(ncl_test_get_d(res, 14)));  /* -NaN was the later NaN */
    NclArrayRelease(res);
    res = NULL;
    NCL_CHECK_OK(NclSort(NCL_ARGSORT, a, &res, &p));
    NCL_CHECK_ARRAYS_EQUAL(res, exp_idx);
    NclArrayRelease(res);
    NclArrayRelease(a);
    NclArrayRelease(exp);
    NclArrayRelease(exp_idx);
    NclArrayRelease(exp_stable);

    a = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(10), 5, -128, 127, 0, -1, 3, 3, -128, 99, -7);
    exp = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(10), -128, -128, -7, -1, 0, 3, 3, 5, 99, 127);
    exp_idx = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(10), 1, 7, 9, 4, 3, 5, 6, 0, 8, 2);
    res = NULL;
    NCL_CHECK_OK(NclSort(NCL_SORT, a, &res, NULL));
    NCL_CHECK_ARRAYS_EQUAL(res, exp);
    NclArrayRelease(res);
    res = NULL;
    NCL_CHECK_OK(NclSort(NCL_ARGSORT, a, &res, &p));
    NCL_CHECK_ARRAYS_EQUAL(res, exp_idx);
    NclArrayRelease(res);
    NclArrayRelease(a);
    NclArrayRelease(exp);
    NclArrayRelease(exp_idx);

    a = ncl_test_arr_uint(NCL_UINT64, 1, NCL_DIMS(6), UINT64_MAX, 0, UINT64_C(1) << 63, 1,
                          INT64_MAX, 42);
    exp = ncl_test_arr_uint(NCL_UINT64, 1, NCL_DIMS(6), 0, 1, 42, INT64_MAX, UINT64_C(1) << 63,
                            UINT64_MAX);
    res = NULL;
    NCL_CHECK_OK(NclSort(NCL_SORT, a, &res, NULL));
    NCL_CHECK_ARRAYS_EQUAL(res, exp);
    NclArrayRelease(res);
    NclArrayRelease(a);
    NclArrayRelease(exp);

    /* 2-D along both axes */
    a = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 3), 3, 1, 2, 9, -4, 0);
    const int ax0 = 0, ax1 = 1;
    NclParams p0 = sort_params(0, &ax0, 0), p1 = sort_params(0, &ax1, 0);
    NclParams ps0 = sort_params(NCL_SORT_STABLE, &ax0, 0);
    exp = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 3), 3, -4, 0, 9, 1, 2);
    res = NULL;
    NCL_CHECK_OK(NclSort(NCL_SORT, a, &res, &p0));
    NCL_CHECK_ARRAYS_EQUAL(res, exp);
    NclArrayRelease(res);
    NclArrayRelease(exp);
    exp = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 3), 1, 2, 3, -4, 0, 9);
    res = NULL;
    NCL_CHECK_OK(NclSort(NCL_SORT, a, &res, &p1));
    NCL_CHECK_ARRAYS_EQUAL(res, exp);
    NclArrayRelease(res);
    NclArrayRelease(exp);
    exp = ncl_test_arr(NCL_INT64, 2, NCL_DIMS(2, 3), 0, 1, 1, 1, 0, 0);
    res = NULL;
    NCL_CHECK_OK(NclSort(NCL_ARGSORT, a, &res, &ps0));
    NCL_CHECK_ARRAYS_EQUAL(res, exp);
    NclArrayRelease(res);
    NclArrayRelease(exp);
    NclArrayRelease(a);
}
END_TEST

/* ---- outputs: in place and overlapping ------------------------------------------------ */

START_TEST(t_in_place_and_overlap)
{
    uint64_t rng = 31;
    for (int d = 0; d < NDTYPES; d++) {
        const NclDType t = all_dtypes[d];
        const size_t w = NclDTypeSize(t);
        for (int64_t n = 5; n <= 3000; n *= 9) {
            /* sort and partition in place (out == a), 2-D along both axes */
            for (int axis = 0; axis < 2; axis++) {
                for (int op = NCL_SORT; op <= NCL_PARTITION; op += 2) {
                    NclArray *a = random_array(t, 2, NCL_DIMS(3, n), P_SPECIAL, &rng);
                    NclArray *orig = ncl_test_clone(a);
                    NclParams p = sort_params(NCL_SORT_STABLE, &axis, axis ? n / 2 : 1);
                    NclArray *o = a;
                    NCL_CHECK_OK(NclSort((NclSortOp)op, a, &o, &p));
                    ck_assert_ptr_eq(o, a);
                    check_all_slices((NclSortOp)op, p.kind, p.kth, orig, axis, a, "in place");
                    NclArrayRelease(orig);
                    NclArrayRelease(a);
                }
            }
            /* output shifted one element against the input inside one buffer */
            for (int op = NCL_SORT; op <= NCL_PARTITION; op += 2) {
                for (int dir = 0; dir < 2; dir++) {
                    NclArray *base = random_array(t, 1, NCL_DIMS(n + 1), P_RANDOM, &rng);
                    char *data = NclArrayData(base);
                    NclArray *a = NULL, *o = NULL;
                    NCL_CHECK_OK(NclFromData(t, 1, &n, NULL, data + (dir ? w : 0),
                                             NCL_ARRAY_WRITEABLE, NULL, NULL, &a));
                    NCL_CHECK_OK(NclFromData(t, 1, &n, NULL, data + (dir ? 0 : w),
                                             NCL_ARRAY_WRITEABLE, NULL, NULL, &o));
                    NclArray *orig = ncl_test_clone(a);
                    NclParams p = sort_params(NCL_SORT_STABLE, NULL, n / 2);
                    NclArray *o2 = o;
                    NCL_CHECK_OK(NclSort((NclSortOp)op, a, &o2, &p));
                    check_all_slices((NclSortOp)op, p.kind, p.kth, orig, 0, o, "shifted output");
                    NclArrayRelease(orig);
                    NclArrayRelease(a);
                    NclArrayRelease(o);
                    NclArrayRelease(base);
                }
            }
            /* argsort into the input's own memory (int64 input, 2-D) */
            if (t == NCL_INT64) {
                for (int op = NCL_ARGSORT; op <= NCL_ARGPARTITION; op += 2) {
                    NclArray *a = random_array(t, 2, NCL_DIMS(2, n), P_RANDOM, &rng);
                    NclArray *orig = ncl_test_clone(a);
                    NclParams p = sort_params(NCL_SORT_STABLE, NULL, n - 1);
                    NclArray *o = a;
                    NCL_CHECK_OK(NclSort((NclSortOp)op, a, &o, &p));
                    check_all_slices((NclSortOp)op, p.kind, p.kth, orig, 1, a, "arg op in place");
                    NclArrayRelease(orig);
                    NclArrayRelease(a);
                }
            }
        }
    }
}
END_TEST

/* Sorting compares keys as integers: no FP flag, NaNs included, even with
   every category in RAISE mode. */
START_TEST(t_no_fp_flags)
{
    NclArray *nan = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(4), NAN, 1.0, -NAN, 0.0);
    NclArray *nan32 = ncl_test_arr(NCL_FLOAT32, 1, NCL_DIMS(40), NAN);
    const int all = NCL_FPE_DIVIDE | NCL_FPE_OVERFLOW | NCL_FPE_UNDERFLOW | NCL_FPE_INVALID;
    NCL_CHECK_OK(NclSetErrMode(all, NCL_ERRMODE_RAISE));
    for (int op = 0; op < 4; op++) {
        NclArray *res = NULL;
        NCL_CHECK_OK(NclSort((NclSortOp)op, nan, &res, NULL));
        ck_assert_int_eq(NclGetFPErrors(), 0);
        NclArrayRelease(res);
        res = NULL;
        NCL_CHECK_OK(NclSort((NclSortOp)op, nan32, &res, NULL));
        ck_assert_int_eq(NclGetFPErrors(), 0);
        NclArrayRelease(res);
    }
    NCL_CHECK_OK(NclSetErrMode(all, NCL_ERRMODE_IGNORE));
    NclArrayRelease(nan);
    NclArrayRelease(nan32);
}
END_TEST

/* ---- refusals ------------------------------------------------------------------------ */

/* Calls NclSort expecting status and a message containing text, with the
   provided output (if any) untouched. */
static void expect_refusal(NclSortOp op, const NclArray *a, NclArray *out, const NclParams *p,
                           NclStatus status, const char *text)
{
    const uint64_t h = out ? ncl_test_hash(out) : 0;
    NclArray *o = out;
    NCL_CHECK_STATUS(NclSort(op, a, &o, p), status);
    NCL_CHECK_MESSAGE_HAS(text);
    ck_assert_ptr_eq(o, out);
    if (out) ck_assert_msg(ncl_test_hash(out) == h, "the output was written (%s)", text);
}

START_TEST(t_refusals)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 3), 3, 1, 2, 6, 5, 4);
    NclArray *out = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 3), 9);
    NclArray *iout = ncl_test_arr(NCL_INT64, 2, NCL_DIMS(2, 3), 9);
    NclParams p = NCL_PARAMS_INIT;
    int axes[2] = {2, 0};

    NCL_CHECK_STATUS(NclSort(NCL_SORT, NULL, &out, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("NclSort(sort): the input array is NULL");
    NCL_CHECK_STATUS(NclSort(NCL_ARGSORT, a, NULL, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("NclSort(argsort): the out pointer is NULL");
    expect_refusal((NclSortOp)NCL_SORT_NOPS, a, out, NULL, NCL_ERR_INVALID_ARGUMENT, "unknown op 8");
    expect_refusal((NclSortOp)-1, a, out, NULL, NCL_ERR_INVALID_ARGUMENT, "unknown op -1");

    /* axes */
    p.axes = axes;
    p.naxes = 1;
    expect_refusal(NCL_SORT, a, out, &p, NCL_ERR_AXIS,
                   "NclSort(sort): axis 2 is out of bounds for array of dimension 2");
    axes[0] = -3;
    expect_refusal(NCL_ARGSORT, a, iout, &p, NCL_ERR_AXIS,
                   "axis -3 is out of bounds for array of dimension 2");
    axes[0] = 0;
    p.naxes = 2;
    expect_refusal(NCL_SORT, a, out, &p, NCL_ERR_AXIS, "exactly one axis");
    p.naxes = 0;
    expect_refusal(NCL_SORT, a, out, &p, NCL_ERR_AXIS, "params->naxes is 0");
    NclArray *s0 = ncl_test_arr(NCL_FLOAT64, 0, NULL, 1.0);
    NclArray *s0out = ncl_test_arr(NCL_FLOAT64, 0, NULL, 2.0);
    expect_refusal(NCL_SORT, s0, s0out, NULL, NCL_ERR_AXIS,
                   "axis -1 is out of bounds for array of dimension 0");
    expect_refusal(NCL_PARTITION, s0, NULL, NULL, NCL_ERR_AXIS, "dimension 0");

    /* kind */
    p = sort_params(2, NULL, 0);
    expect_refusal(NCL_SORT, a, out, &p, NCL_ERR_INVALID_ARGUMENT, "params->kind 2");
    p.kind = -1;
    expect_refusal(NCL_ARGSORT, a, iout, &p, NCL_ERR_INVALID_ARGUMENT, "params->kind -1");

    /* kth */
    p = sort_params(0, NULL, 3);
    expect_refusal(NCL_PARTITION, a, out, &p, NCL_ERR_INDEX,
                   "kth 3 is out of bounds for axis 1 of length 3");
    p.kth = -4;
    expect_refusal(NCL_ARGPARTITION, a, iout, &p, NCL_ERR_INDEX, "kth -4 is out of bounds");
    axes[0] = 0;
    p = sort_params(0, axes, 2);
    expect_refusal(NCL_PARTITION, a, out, &p, NCL_ERR_INDEX, "axis 0 of length 2");
    NclArray *empty = ncl_test_new(NCL_INT32, 1, NCL_DIMS(0));
    p = sort_params(0, NULL, 0);
    expect_refusal(NCL_PARTITION, empty, NULL, &p, NCL_ERR_INDEX, "length 0");
    /* but kth is not looked at by the sorts, and a valid negative kth works */
    p.kth = 99;
    NclArray *o = out;
    NCL_CHECK_OK(NclSort(NCL_SORT, a, &o, &p));
    p.kth = -3;
    NCL_CHECK_OK(NclSort(NCL_PARTITION, a, &o, &p));

    /* outputs */
    NclArray *bad_shape = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(3, 2), 9);
    expect_refusal(NCL_SORT, a, bad_shape, NULL, NCL_ERR_SHAPE,
                   "the output has shape (3,2); the result has shape (2,3)");
    NclArray *flat = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(6), 9);
    expect_refusal(NCL_SORT, a, flat, NULL, NCL_ERR_SHAPE, "shape (6,)");
    NclArray *i32out = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 3), 9);
    expect_refusal(NCL_SORT, a, i32out, NULL, NCL_ERR_DTYPE,
                   "NclSort(sort): the output is int32; sort of float64 gives float64");
    NclArray *bout = ncl_test_arr(NCL_BOOL, 2, NCL_DIMS(2, 3), 1);
    expect_refusal(NCL_ARGSORT, a, bout, NULL, NCL_ERR_DTYPE, "argsort of float64 gives int64");
    p = sort_params(0, NULL, 0);
    p.casting = NCL_CASTING_UNSAFE; /* the result dtype is not a casting matter */
    expect_refusal(NCL_ARGPARTITION, a, i32out, &p, NCL_ERR_DTYPE, "the output is int32");
    NclArray *f32out = ncl_test_arr(NCL_FLOAT32, 2, NCL_DIMS(2, 3), 1);
    expect_refusal(NCL_PARTITION, a, f32out, &p, NCL_ERR_DTYPE, "the output is float32");
    NclArray *ro = NULL;
    double rodata[6] = {0};
    NCL_CHECK_OK(NclFromData(NCL_FLOAT64, 2, NCL_DIMS(2, 3), NULL, rodata, 0, NULL, NULL, &ro));
    expect_refusal(NCL_SORT, a, ro, NULL, NCL_ERR_READONLY, "NclSort(sort): the output array is read-only");
    NclArray *overlapping = NULL;
    NCL_CHECK_OK(NclFromData(NCL_FLOAT64, 2, NCL_DIMS(2, 3), NCL_DIMS(0, 8), rodata,
                             NCL_ARRAY_WRITEABLE, NULL, NULL, &overlapping));
    expect_refusal(NCL_SORT, a, overlapping, NULL, NCL_ERR_INVALID_ARGUMENT, "internal overlap");

    /* params */
    p = sort_params(0, NULL, 0);
    p.dtype = NCL_FLOAT32;
    expect_refusal(NCL_SORT, a, out, &p, NCL_ERR_DTYPE, "params->dtype is float32");
    p.dtype = NCL_INT64;
    expect_refusal(NCL_SORT, a, out, &p, NCL_ERR_DTYPE, "the result of sort of float64 is float64");
    o = iout;
    NCL_CHECK_OK(NclSort(NCL_ARGSORT, a, &o, &p)); /* the right one is accepted */
    p = sort_params(0, NULL, 0);
    NclArray *mask = ncl_test_arr(NCL_BOOL, 2, NCL_DIMS(2, 3), 1);
    p.where = mask;
    expect_refusal(NCL_SORT, a, out, &p, NCL_ERR_INVALID_ARGUMENT, "params->where");
    p = sort_params(0, NULL, 0);
    p.size = 4;
    expect_refusal(NCL_SORT, a, out, &p, NCL_ERR_INVALID_ARGUMENT, "params->size is 4");
    p = sort_params(0, NULL, 0);
    p.casting = (NclCasting)9;
    expect_refusal(NCL_SORT, a, out, &p, NCL_ERR_INVALID_ARGUMENT, "params->casting 9");

    /* device memory */
    double devmem[6] = {0};
    NclArray *dev = NULL, *devout = NULL;
    NCL_CHECK_OK(NclFromDataKind(NCL_FLOAT64, 2, NCL_DIMS(2, 3), NULL, devmem, NCL_ARRAY_WRITEABLE,
                                 NULL, NULL, NCL_MEM_DEVICE, 1, &dev));
    NCL_CHECK_OK(NclFromDataKind(NCL_FLOAT64, 2, NCL_DIMS(2, 3), NULL, devmem, NCL_ARRAY_WRITEABLE,
                                 NULL, NULL, NCL_MEM_DEVICE, 2, &devout));
    expect_refusal(NCL_SORT, dev, out, NULL, NCL_ERR_DEVICE_MEMORY, "the input is device memory (device 1)");
    expect_refusal(NCL_SORT, a, devout, NULL, NCL_ERR_DEVICE_MEMORY, "the output is device memory (device 2)");

    /* an older caller's params without kind/kth: defaults */
    p = sort_params(0, NULL, 0);
    p.size = (uint32_t)offsetof(NclParams, kind);
    o = out;
    NCL_CHECK_OK(NclSort(NCL_SORT, a, &o, &p));

    NclArray *all[] = {a, out, iout, s0, s0out, empty, bad_shape, flat, i32out, bout, f32out, ro,
                       overlapping, mask, dev, devout};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) NclArrayRelease(all[i]);
}
END_TEST

START_TEST(t_zero_size)
{
    for (int op = 0; op < 4; op++) {
        NclArray *a = ncl_test_new(NCL_FLOAT32, 2, NCL_DIMS(0, 4));
        NclArray *res = NULL;
        NclParams p = sort_params(0, NULL, 2);
        NCL_CHECK_OK(NclSort((NclSortOp)op, a, &res, &p));
        ck_assert_int_eq(NclArraySize(res), 0);
        ck_assert_int_eq(NclArrayShape(res)[0], 0);
        ck_assert_int_eq(NclArrayShape(res)[1], 4);
        ck_assert_int_eq(NclArrayDType(res), op & 1 ? NCL_INT64 : NCL_FLOAT32);
        NclArrayRelease(res);
        NclArrayRelease(a);
    }
    /* one element, and a 1-D array of one */
    NclArray *one = ncl_test_arr(NCL_UINT16, 1, NCL_DIMS(1), 7);
    NclArray *res = NULL;
    NCL_CHECK_OK(NclSort(NCL_ARGPARTITION, one, &res, NULL));
    ck_assert_int_eq(ncl_test_get_i(res, 0), 0);
    NclArrayRelease(res);
    NclArrayRelease(one);
}
END_TEST

/* ---- allocation failures -------------------------------------------------------------- */

START_TEST(t_fault_injection)
{
    static const NclDType types[] = {NCL_FLOAT64, NCL_INT32, NCL_UINT8};
    uint64_t rng = 3;
    for (size_t ti = 0; ti < 3; ti++) {
        const NclDType t = types[ti];
        for (int op = 0; op < 4; op++) {
            for (int variant = 0; variant < 4; variant++) {
                /* 0: allocated result; 1: provided strided result; 2: in place;
                   3: output overlapping the input (a copy of it is needed) */
                const int64_t n = 3000;
                const int arg = op == NCL_ARGSORT || op == NCL_ARGPARTITION;
                if (arg && variant >= 2) continue;
                NclArray *base = random_array(t, 1, NCL_DIMS(2 * n + 1), P_RANDOM, &rng);
                NclArray *a = NULL;
                NCL_CHECK_OK(NclFromData(t, 1, &n, NULL, NclArrayData(base), NCL_ARRAY_WRITEABLE,
                                         NULL, NULL, &a));
                NclArray *provided = NULL;
                if (variant == 1) {
                    NclArray *tmp = ncl_test_new(arg ? NCL_INT64 : t, 1, &n);
                    provided = ncl_test_layout_of(tmp, NCL_TEST_REVERSED);
                    NclArrayRelease(tmp);
                } else if (variant == 2) {
                    provided = a;
                    NclArrayRetain(a);
                } else if (variant == 3) {
                    NCL_CHECK_OK(NclFromData(t, 1, &n, NCL_DIMS(2 * (int64_t)NclDTypeSize(t)),
                                             (char *)NclArrayData(base) + NclDTypeSize(t),
                                             NCL_ARRAY_WRITEABLE, NULL, NULL, &provided));
                }
                NclParams p = sort_params(variant & 1, NULL, n / 3);
                int succeeded = 0;
                for (long k = 1; k <= 16 && !succeeded; k++) {
                    ncl_test_alloc fa;
                    const uint64_t hb = ncl_test_hash(base);
                    const uint64_t ho = provided ? ncl_test_hash(provided) : 0;
                    ncl_test_alloc_install(&fa, k, 0);
                    NclArray *o = provided;
                    NclStatus st = NclSort((NclSortOp)op, a, &o, &p);
                    ncl_test_alloc_uninstall(&fa);
                    if (st == NCL_OK) {
                        succeeded = 1;
                        ck_assert_msg(atomic_load(&fa.calls) < k,
                                      "%s succeeded although allocation %ld failed",
                                      op_names[op], k);
                        if (!provided) NclArrayRelease(o);
                    } else {
                        ck_assert_msg(st == NCL_ERR_NO_MEMORY, "%s variant %d, failure %ld: %s: %s",
                                      op_names[op], variant, k, NclStatusString(st), NclLastError());
                        ck_assert_ptr_eq(o, provided);
                        ck_assert_msg(ncl_test_hash(base) == hb, "input changed");
                        if (provided)
                            ck_assert_msg(ncl_test_hash(provided) == ho,
                                          "%s variant %d: output written before failure %ld",
                                          op_names[op], variant, k);
                    }
                    NCL_CHECK_NO_LEAK(&fa);
                }
                ck_assert_msg(succeeded, "%s never succeeded", op_names[op]);
                NclArrayRelease(provided);
                NclArrayRelease(a);
                NclArrayRelease(base);
            }
        }
    }
}
END_TEST

/* ---- the kernel chain ----------------------------------------------------------------- */

/* The pool's workers may sort slices beside the calling thread: what the
   kernel records is atomic. */
typedef struct spy {
    NclKernelNode node;
    atomic_int calls;
    _Atomic int64_t n;
    int bad_steps; /* pass the slice on with a stride the built-in refuses */
} spy;

static NclStatus spy_kernel(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                            int64_t n, const int64_t *steps)
{
    spy *s = (spy *)self;
    atomic_fetch_add(&s->calls, 1);
    atomic_store(&s->n, n);
    ck_assert_int_eq(ctx->subsystem, NCL_SUBSYSTEM_SORT);
    ck_assert_int_eq(ctx->nin, 1);
    ck_assert_int_eq(ctx->nout, 1);
    ck_assert_ptr_nonnull(ctx->aux);
    ck_assert_int_eq(ctx->signature[0], NCL_FLOAT64);
    ck_assert_int_eq(steps[0], 8);
    if (s->bad_steps) {
        const int64_t st2[2] = {16, steps[1]};
        return NclKernelNext(self, ctx, args, n / 2, st2);
    }
    return NclKernelNext(self, ctx, args, n, steps);
}

START_TEST(t_kernel_hook)
{
    spy s;
    memset(&s, 0, sizeof s);
    s.node.fn = spy_kernel;
    s.node.name = "sort_spy";
    const NclDType sig[2] = {NCL_FLOAT64, NCL_INT64};
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_SORT, NCL_ARGSORT, sig, &s.node.list));
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(3, 4), 4, 3, 2, 1, 0, -1, 5, 5, 9, 8, 7, 6);
    NclArray *res = NULL;
    NCL_CHECK_OK(NclSort(NCL_ARGSORT, a, &res, NULL));
    ck_assert_int_eq(atomic_load(&s.calls), 3);
    ck_assert_int_eq(atomic_load(&s.n), 4);
    NclArray *exp = ncl_test_arr(NCL_INT64, 2, NCL_DIMS(3, 4), 3, 2, 1, 0, 1, 0, 2, 3, 3, 2, 1, 0);
    NCL_CHECK_ARRAYS_EQUAL(res, exp);
    NclArrayRelease(res);
    res = NULL;
    s.bad_steps = 1;
    NCL_CHECK_STATUS(NclSort(NCL_ARGSORT, a, &res, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("kernel sort_spy failed");
    ck_assert_ptr_null(res);
    NCL_CHECK_OK(NclKernelUnhook(&s.node.list));
    /* every op and dtype has a chain */
    for (int d = 0; d < NDTYPES; d++)
        for (int op = 0; op < 4; op++) {
            spy q;
            memset(&q, 0, sizeof q);
            q.node.fn = spy_kernel;
            q.node.name = "probe";
            const NclDType g[2] = {all_dtypes[d], op & 1 ? NCL_INT64 : all_dtypes[d]};
            NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_SORT, op, g, &q.node.list));
            NCL_CHECK_OK(NclKernelUnhook(&q.node.list));
        }
    const NclDType wrong[2] = {NCL_FLOAT64, NCL_FLOAT64};
    spy q;
    memset(&q, 0, sizeof q);
    q.node.fn = spy_kernel;
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_SORT, NCL_ARGSORT, wrong, &q.node.list),
                     NCL_ERR_DTYPE);
    NclArrayRelease(exp);
    NclArrayRelease(a);
}
END_TEST

/* ---- suite ------------------------------------------------------------------------------ */

static Suite *sort_suite(void)
{
    Suite *s = suite_create("sort");
    TCase *tc = ncl_test_tcase(s, "rows");
    tcase_add_loop_test(tc, t_rows_every_dtype, 0, NDTYPES);
    tcase_add_loop_test(tc, t_rows_long, 0, NDTYPES);
    tcase_add_loop_test(tc, t_stable_specials_long, 0, 2);
    tcase_add_loop_test(tc, t_rows_shared_low_bits, 0, NDTYPES);
    tcase_add_loop_test(tc, t_rows_clustered_64, 0, 3);
    tc = ncl_test_tcase(s, "axes");
    tcase_add_loop_test(tc, t_axes_layouts, 0, NDTYPES);
    tcase_add_loop_test(tc, t_axes_long_slices, 0, NDTYPES);
    tc = ncl_test_tcase(s, "semantics");
    tcase_add_test(tc, t_numpy_samples);
    tcase_add_test(tc, t_in_place_and_overlap);
    tcase_add_test(tc, t_no_fp_flags);
    tcase_add_test(tc, t_zero_size);
    tc = ncl_test_tcase(s, "refusals");
    tcase_add_test(tc, t_refusals);
    tcase_add_test(tc, t_fault_injection);
    tcase_add_test(tc, t_kernel_hook);
    return s;
}

NCL_TEST_MAIN(sort_suite)
