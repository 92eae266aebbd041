/*
 * test_threads.c: the thread pool (ncl/threads.h). Results on 1, 2 and 3
 * threads (3 oversubscribes a two-core machine) are the same bits for every
 * subsystem that splits, over C, Fortran, strided and reversed layouts, with
 * casts and where= masks; FP flags raised on a worker reach the caller's
 * call and its error mode; a call made from a kernel hook on a worker runs
 * inline and completes; unhooking the threader keeps calls on the calling
 * thread and NclHooksReset brings it back; a child forked from a process
 * with a live pool computes split calls; no worker runs on the core of the
 * calling thread, wherever that thread moves; settings and environment
 * variables are validated. Splitting is forced on small arrays with a tiny
 * threshold.
 */
#define _GNU_SOURCE /* sched_setaffinity, sched_getcpu */
#include <check.h>
#include <sched.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ncl.h"
#include "ncl_test.h"

static const char *self_path;

/* ---- recording which workers ran ------------------------------------------------ */

static atomic_int max_worker;
static atomic_long kernel_calls;

static NclStatus spy_kernel(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                            int64_t n, const int64_t *steps)
{
    int w = atomic_load(&max_worker);
    while (ctx->worker > w && !atomic_compare_exchange_weak(&max_worker, &w, ctx->worker)) {
    }
    atomic_fetch_add(&kernel_calls, 1);
    return NclKernelNext(self, ctx, args, n, steps);
}

static NclKernelNode spy_node;

static void spy_on(NclSubsystem s, int op, const NclDType *sig)
{
    memset(&spy_node, 0, sizeof spy_node);
    spy_node.name = "spy";
    spy_node.fn = spy_kernel;
    NCL_CHECK_OK(NclKernelHook(s, op, sig, &spy_node.list));
    atomic_store(&max_worker, 0);
    atomic_store(&kernel_calls, 0);
}

static void spy_off(void) { NCL_CHECK_OK(NclKernelUnhook(&spy_node.list)); }

static void threads(int n, int64_t threshold)
{
    NCL_CHECK_OK(NclSetNumThreads(n));
    ck_assert_int_eq(NclGetNumThreads(), n);
    NCL_CHECK_OK(NclSetThreadingThreshold(threshold));
}

static NclArray *random_array(NclDType dt, int nd, const int64_t *shape, uint64_t seed, double lim)
{
    NclArray *a = ncl_test_new(dt, nd, shape);
    ncl_test_fill_random(a, &seed, lim);
    return a;
}

/* ---- bitwise identity for any thread count -------------------------------------- */

/* Runs fn(arg) on 1, 2 and 3 threads and checks that its result array has
   the same bytes each time. */
typedef NclArray *(*compute_fn)(void *arg);

static void same_bits(const char *what, compute_fn fn, void *arg)
{
    uint64_t h[3];
    int64_t size = -1;
    for (int t = 1; t <= 3; t++) {
        threads(t, 1000);
        NclArray *r = fn(arg);
        ck_assert_ptr_nonnull(r);
        if (size < 0) size = NclArraySize(r);
        ck_assert_int_eq(NclArraySize(r), size);
        h[t - 1] = ncl_test_hash(r);
        NclArrayRelease(r);
    }
    ck_assert_msg(h[0] == h[1] && h[0] == h[2], "%s: results differ between 1, 2 and 3 threads",
                  what);
}

typedef struct ew_case {
    NclSubsystem sub;
    int op;
    NclArray *a, *b, *c;
    const NclArray *where;
    NclArray *out_template; /* provided output (copied each time), or NULL */
    NclDType dtype;
} ew_case;

static NclArray *ew_compute(void *arg)
{
    const ew_case *k = arg;
    NclParams p = NCL_PARAMS_INIT;
    p.where = k->where;
    p.dtype = k->dtype;
    p.casting = NCL_CASTING_UNSAFE;
    NclArray *out = k->out_template ? ncl_test_clone(k->out_template) : NULL;
    NclStatus st;
    switch (k->sub) {
    case NCL_SUBSYSTEM_UNARY: st = NclUnary((NclUnaryOp)k->op, k->a, &out, &p); break;
    case NCL_SUBSYSTEM_BINARY: st = NclBinary((NclBinaryOp)k->op, k->a, k->b, &out, &p); break;
    case NCL_SUBSYSTEM_COMPARE: st = NclCompare((NclCompareOp)k->op, k->a, k->b, &out, &p); break;
    case NCL_SUBSYSTEM_CONVERT: st = NclConvert((NclConvertOp)k->op, k->a, &out, &p); break;
    case NCL_SUBSYSTEM_ISUNARY: st = NclIsUnary((NclIsUnaryOp)k->op, k->a, &out, &p); break;
    default: st = NclTernary((NclTernaryOp)k->op, k->a, k->b, k->c, &out, &p); break;
    }
    ck_assert_msg(st == NCL_OK, "%s", NclLastError());
    return out;
}

START_TEST(t_elementwise_same_bits)
{
    const int64_t shape[2] = {301, 257};
    for (int layout = 0; layout < NCL_TEST_NLAYOUTS; layout++) {
        NclArray *x = random_array(NCL_FLOAT64, 2, shape, 1 + (uint64_t)layout, 3.0);
        NclArray *y = random_array(NCL_FLOAT32, 2, shape, 7 + (uint64_t)layout, 3.0);
        NclArray *i = random_array(NCL_INT32, 2, shape, 11, 0);
        NclArray *m = random_array(NCL_BOOL, 2, shape, 13, 0);
        NclArray *a = ncl_test_layout_of(x, (ncl_test_layout)layout);
        NclArray *b = ncl_test_layout_of(y, (ncl_test_layout)layout);
        ew_case cases[] = {
            {NCL_SUBSYSTEM_BINARY, NCL_ADD, a, b, NULL, NULL, NULL, NCL_DTYPE_DEFAULT},
            {NCL_SUBSYSTEM_BINARY, NCL_DIVIDE, i, b, NULL, NULL, NULL, NCL_DTYPE_DEFAULT},
            {NCL_SUBSYSTEM_BINARY, NCL_POWER, a, b, NULL, m, a, NCL_FLOAT32},
            {NCL_SUBSYSTEM_UNARY, NCL_EXP, a, NULL, NULL, NULL, NULL, NCL_DTYPE_DEFAULT},
            {NCL_SUBSYSTEM_UNARY, NCL_SIN, b, NULL, NULL, m, NULL, NCL_DTYPE_DEFAULT},
            {NCL_SUBSYSTEM_UNARY, NCL_LOG1P, i, NULL, NULL, NULL, NULL, NCL_FLOAT64},
            {NCL_SUBSYSTEM_COMPARE, NCL_CMP_LT, a, b, NULL, NULL, NULL, NCL_DTYPE_DEFAULT},
            {NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_ASTYPE, a, NULL, NULL, NULL, NULL, NCL_INT16},
            {NCL_SUBSYSTEM_ISUNARY, NCL_SIGNBIT, b, NULL, NULL, NULL, NULL, NCL_DTYPE_DEFAULT},
            {NCL_SUBSYSTEM_TERNARY, NCL_WHERE, m, a, b, NULL, NULL, NCL_DTYPE_DEFAULT},
            {NCL_SUBSYSTEM_TERNARY, NCL_FMA, a, a, a, NULL, NULL, NCL_DTYPE_DEFAULT},
        };
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            char what[96];
            snprintf(what, sizeof what, "layout %s, case %zu", ncl_test_layout_name(layout), k);
            same_bits(what, ew_compute, &cases[k]);
        }
        NclArrayRelease(a);
        NclArrayRelease(b);
        NclArrayRelease(x);
        NclArrayRelease(y);
        NclArrayRelease(i);
        NclArrayRelease(m);
    }
}
END_TEST

static int find_threader(const NclListHead *node, const char *name, void *user)
{
    if (strcmp(name, "ncl.threader") != 0) return 0;
    *(NclListHead **)user = (NclListHead *)(uintptr_t)node;
    return 1;
}

START_TEST(t_unhook_threader)
{
    const int64_t n = 200003;
    NclArray *a = random_array(NCL_FLOAT64, 1, &n, 3, 1.0), *out = NULL;
    const NclDType sig[3] = {NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64};
    threads(2, 1000);
    spy_on(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig);
    NCL_CHECK_OK(NclBinary(NCL_ADD, a, a, &out, NULL));
    ck_assert_int_eq(atomic_load(&max_worker), 1);
    uint64_t h = ncl_test_hash(out);
    NclArrayRelease(out);
    out = NULL;

    NclListHead *thr = NULL;
    NCL_CHECK_OK(NclHooksWalk(NCL_SUBSYSTEM_BINARY, find_threader, &thr));
    ck_assert_ptr_nonnull(thr);
    NCL_CHECK_OK(NclApiUnhook(thr));
    atomic_store(&max_worker, 0);
    NCL_CHECK_OK(NclBinary(NCL_ADD, a, a, &out, NULL));
    ck_assert_int_eq(atomic_load(&max_worker), 0);
    ck_assert(ncl_test_hash(out) == h);
    NclArrayRelease(out);
    out = NULL;
    char info[8192];
    NCL_CHECK_OK(NclInfo(info, sizeof info, NULL));
    ck_assert_ptr_nonnull(strstr(info, "\"threader\":false"));

    NCL_CHECK_OK(NclHooksReset());
    thr = NULL;
    NCL_CHECK_OK(NclHooksWalk(NCL_SUBSYSTEM_BINARY, find_threader, &thr));
    ck_assert_ptr_nonnull(thr);
    NCL_CHECK_OK(NclInfo(info, sizeof info, NULL));
    ck_assert_ptr_nonnull(strstr(info, "\"threads\":{\"count\":2,\"threshold\":1000"));
    ck_assert_ptr_nonnull(strstr(info, "\"threader\":true"));
    /* the spy went with the reset; hook it again */
    spy_on(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig);
    NCL_CHECK_OK(NclBinary(NCL_ADD, a, a, &out, NULL));
    ck_assert_int_eq(atomic_load(&max_worker), 1);
    NclArrayRelease(out);
    spy_off();
    NclArrayRelease(a);
}
END_TEST

/* ---- reductions ------------------------------------------------------------------ */

typedef struct red_case {
    NclReduceOp op;
    const NclArray *a;
    const int *axes;
    int naxes;
    const NclArray *where;
    NclDType dtype;
} red_case;

static NclArray *red_compute(void *arg)
{
    const red_case *k = arg;
    NclParams p = NCL_PARAMS_INIT;
    p.axes = k->axes;
    p.naxes = k->naxes;
    p.where = k->where;
    p.dtype = k->dtype;
    NclArray *out = NULL;
    NclStatus st = NclReduce(k->op, k->a, &out, &p);
    ck_assert_msg(st == NCL_OK, "%s", NclLastError());
    return out;
}

START_TEST(t_reduce_same_bits)
{
    const NclDType dt = _i ? NCL_FLOAT32 : NCL_FLOAT64;
    /* lengths around chunk and group boundaries of the reduction tree */
    const int64_t lens[] = {5 * 1024 + 3, 3 * 1024, 65536 + 1024, 100003};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        const int64_t n = lens[li];
        NclArray *v = random_array(dt, 1, &n, 17 + li, 1e3);
        const NclReduceOp ops[] = {NCL_SUM, NCL_MEAN, NCL_PROD, NCL_MAX, NCL_ARGMIN, NCL_CUMSUM};
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            red_case k = {ops[o], v, NULL, 0, NULL, NCL_DTYPE_DEFAULT};
            char what[64];
            snprintf(what, sizeof what, "1-D n=%lld op %d", (long long)n, (int)ops[o]);
            same_bits(what, red_compute, &k);
        }
        NclArray *m = random_array(NCL_BOOL, 1, &n, 5, 0);
        red_case k = {NCL_SUM, v, NULL, 0, m, NCL_DTYPE_DEFAULT};
        same_bits("masked sum", red_compute, &k);
        k.op = NCL_ARGMAX;
        same_bits("masked argmax", red_compute, &k);
        NclArrayRelease(m);
        NclArrayRelease(v);
    }

    const int64_t shape[2] = {613, 389};
    NclArray *x = random_array(dt, 2, shape, 23, 1e3);
    uint64_t expect[3] = {0, 0, 0};
    for (int layout = 0; layout < NCL_TEST_NLAYOUTS; layout++) {
        NclArray *a = ncl_test_layout_of(x, (ncl_test_layout)layout);
        for (int ax = -1; ax < 2; ax++) {
            const NclReduceOp ops[] = {NCL_SUM, NCL_MEAN, NCL_PROD};
            for (size_t o = 0; o < 3; o++) {
                red_case k = {ops[o], a, ax < 0 ? NULL : &ax, ax < 0 ? 0 : 1, NULL,
                              NCL_DTYPE_DEFAULT};
                char what[64];
                snprintf(what, sizeof what, "layout %s axis %d op %d",
                         ncl_test_layout_name(layout), ax, (int)ops[o]);
                same_bits(what, red_compute, &k);
                /* and the same bits whatever the layout */
                if (ax < 0) {
                    threads(2, 1000);
                    NclArray *r = red_compute(&k);
                    if (layout == 0) expect[o] = ncl_test_hash(r);
                    else ck_assert_msg(ncl_test_hash(r) == expect[o], "%s vs C order", what);
                    NclArrayRelease(r);
                }
            }
        }
        NclArrayRelease(a);
    }
    NclArrayRelease(x);
}
END_TEST

/* ---- sort ------------------------------------------------------------------------ */

typedef struct sort_case {
    NclSortOp op;
    const NclArray *a;
    int kind;
} sort_case;

static NclArray *sort_compute(void *arg)
{
    const sort_case *k = arg;
    NclParams p = NCL_PARAMS_INIT;
    p.kind = k->kind;
    NclArray *out = NULL;
    NclStatus st = NclSort(k->op, k->a, &out, &p);
    ck_assert_msg(st == NCL_OK, "%s", NclLastError());
    return out;
}

START_TEST(t_sort_same_bits)
{
    const NclDType dts[] = {NCL_FLOAT64, NCL_FLOAT32, NCL_INT32, NCL_UINT16, NCL_INT64};
    const NclDType dt = dts[_i];
    const int64_t lens[] = {100003, 4096, 777};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        const int64_t n = lens[li];
        NclArray *v = random_array(dt, 1, &n, 31 + li, 50.0);
        /* duplicates, and for floats -0.0, +0.0 and NaNs of both signs */
        for (int64_t i = 0; i < n; i += 7) ncl_test_set_d(v, i, (double)(i % 5));
        if (dt == NCL_FLOAT64 || dt == NCL_FLOAT32) {
            for (int64_t i = 3; i < n; i += 11) ncl_test_set_d(v, i, (i & 1) ? -0.0 : 0.0);
            for (int64_t i = 5; i < n; i += 13) ncl_test_set_d(v, i, (i & 1) ? NAN : -NAN);
        }
        for (int kind = 0; kind < 2; kind++) {
            sort_case k = {NCL_SORT, v, kind};
            same_bits("sort", sort_compute, &k);
            k.op = NCL_ARGSORT;
            same_bits("argsort", sort_compute, &k);
        }
        /* rows: slices split across threads */
        const int64_t shape[2] = {n / 97, 97};
        NclArray *rows = NULL;
        NclArray *head = NULL;
        const int64_t start = 0, stop = shape[0] * shape[1], step = 1;
        NCL_CHECK_OK(NclArraySlice(v, &start, &stop, &step, &head));
        NCL_CHECK_OK(NclArrayReshape(head, 2, shape, &rows));
        sort_case k = {NCL_ARGSORT, rows, 0};
        same_bits("argsort rows", sort_compute, &k);
        k.op = NCL_PARTITION;
        same_bits("partition rows", sort_compute, &k);
        NclArrayRelease(rows);
        NclArrayRelease(head);
        NclArrayRelease(v);
    }
}
END_TEST

START_TEST(t_sort_split_is_sorted)
{
    /* the split result is the stable sort: check it directly */
    const int64_t n = 300007;
    NclArray *v = random_array(NCL_INT32, 1, &n, 41, 0), *idx = NULL;
    for (int64_t i = 0; i < n; i++) ncl_test_set_i(v, i, ncl_test_get_i(v, i) % 1000);
    threads(3, 1000);
    NCL_CHECK_OK(NclSort(NCL_ARGSORT, v, &idx, NULL));
    ck_assert_int_ge(NclGetNumThreads(), 3);
    for (int64_t i = 1; i < n; i++) {
        const int64_t p = ncl_test_get_i(idx, i - 1), q = ncl_test_get_i(idx, i);
        const int64_t a = ncl_test_get_i(v, p), b = ncl_test_get_i(v, q);
        ck_assert_msg(a < b || (a == b && p < q), "not a stable order at %lld", (long long)i);
    }
    NclArrayRelease(idx);
    NclArrayRelease(v);
}
END_TEST

/* One long slice is split by value across threads (src/defaults/sort.c): every
   dtype, both kinds and argsort give the same bits on 1, 2 and 3 threads
   for random data with duplicates, -0.0, +0.0 and NaNs of both signs,
   sorted, reversed and nearly constant input, at lengths just below and
   above where 2 and 3 threads split (256 elements per thread), and read
   through a reversed view. */
START_TEST(t_sort_split_by_value)
{
    const NclDType dt = (NclDType)_i;
    const int64_t lens[] = {511, 512, 513, 767, 768, 769, 20011};
    const int fp = dt == NCL_FLOAT32 || dt == NCL_FLOAT64;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        const int64_t n = lens[li];
        for (int pattern = 0; pattern < 4; pattern++) {
            uint64_t seed = 77 + (uint64_t)li * 4 + (uint64_t)pattern;
            NclArray *v = random_array(dt, 1, &n, seed, 1e6);
            for (int64_t i = 0; i < n; i++) {
                double x = 0;
                switch (pattern) {
                case 0: /* random, every fifth a small duplicate */
                    if (i % 5 == 0) ncl_test_set_d(v, i, (double)(i % 3));
                    continue;
                case 1: x = (double)(i * 100 / n); break;         /* sorted, runs */
                case 2: x = (double)((n - 1 - i) * 100 / n); break; /* reversed */
                default: x = (double)(i % 97 == 0); break;         /* nearly constant */
                }
                ncl_test_set_d(v, i, x);
            }
            if (fp) {
                for (int64_t i = 1; i < n; i += 9) ncl_test_set_d(v, i, (i & 2) ? -0.0 : 0.0);
                for (int64_t i = 4; i < n; i += 17) ncl_test_set_d(v, i, (i & 2) ? NAN : -NAN);
            }
            NclArray *rev = NULL;
            const int64_t start = n - 1, stop = -n - 1, step = -1;
            NCL_CHECK_OK(NclArraySlice(v, &start, &stop, &step, &rev));
            for (int view = 0; view < 2; view++) {
                for (int c = 0; c < 3; c++) {
                    sort_case k = {c == 2 ? NCL_ARGSORT : NCL_SORT, view ? rev : v, c == 1};
                    char what[96];
                    snprintf(what, sizeof what, "%s n %lld pattern %d view %d case %d",
                             NclDTypeName(dt), (long long)n, pattern, view, c);
                    same_bits(what, sort_compute, &k);
                }
            }
            NclArrayRelease(rev);
            NclArrayRelease(v);
        }
    }
}
END_TEST

/* A value sort of 8-byte keys runs the built-in kernel in phases across
   the threads (kernels/sort/sort_kernel.h); other dtypes, and the same
   sort with a kernel hooked in front of the built-in one, split by value.
   Both give the bits of one thread for random data, a narrow positive
   range (the kernel recounts a lower digit), all-equal input, sorted and
   reversed input, one odd element among equal ones (a thread gets no
   bucket), and few values with -0.0, +0.0 and NaNs of both signs; at
   lengths around where 2 and 3 threads start to split and longer. */
START_TEST(t_sort_phases_same_bits)
{
    const NclDType dts[] = {NCL_INT64, NCL_UINT64, NCL_FLOAT64, NCL_INT32, NCL_FLOAT32};
    const NclDType dt = dts[_i / 2];
    const int hooked = _i % 2;
    const int fp = dt == NCL_FLOAT32 || dt == NCL_FLOAT64;
    const int64_t lens[] = {511, 512, 513, 767, 768, 769, 4099, 100003};
    const NclDType sig[2] = {dt, dt};
    if (hooked) spy_on(NCL_SUBSYSTEM_SORT, NCL_SORT, sig);
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        const int64_t n = lens[li];
        for (int pattern = 0; pattern < 6; pattern++) {
            uint64_t seed = 901 + (uint64_t)li * 8 + (uint64_t)pattern;
            NclArray *v = random_array(dt, 1, &n, seed, 1e9);
            for (int64_t i = 0; i < n; i++) {
                const uint64_t r = ncl_test_rand(&seed);
                switch (pattern) {
                case 0: /* random, every seventh a duplicate */
                    if (i % 7 == 0) ncl_test_set_d(v, i, (double)(i % 4));
                    break;
                case 1: /* a narrow positive range */
                    if (fp) ncl_test_set_d(v, i, (double)(r >> 11) / 9007199254740992.0);
                    else ncl_test_set_u(v, i, r >> 44);
                    break;
                case 2: ncl_test_set_d(v, i, 3.0); break;
                case 3: ncl_test_set_d(v, i, (double)i); break;
                case 4: ncl_test_set_d(v, i, (double)(n - i)); break;
                default: /* one odd element; few values and signed zeros, NaNs */
                    ncl_test_set_d(v, i, i == n / 3 ? 1000.0 : 7.0);
                    if (li % 2 == 0) ncl_test_set_d(v, i, (double)(i % 3));
                    if (fp && li % 2 == 0 && i % 5 == 1) ncl_test_set_d(v, i, (i & 2) ? -0.0 : 0.0);
                    if (fp && li % 2 == 0 && i % 7 == 2) ncl_test_set_d(v, i, (i & 4) ? NAN : -NAN);
                    break;
                }
            }
            for (int kind = 0; kind < 2; kind++) {
                sort_case k = {NCL_SORT, v, kind};
                char what[96];
                snprintf(what, sizeof what, "%s n %lld pattern %d kind %d hooked %d",
                         NclDTypeName(dt), (long long)n, pattern, kind, hooked);
                same_bits(what, sort_compute, &k);
            }
            NclArrayRelease(v);
        }
    }
    if (hooked) {
        /* the hook saw every call, on more than one thread */
        ck_assert_int_gt(atomic_load(&kernel_calls), 0);
        ck_assert_int_gt(atomic_load(&max_worker), 0);
        spy_off();
    }
}
END_TEST

/* ---- floating-point flags from workers ------------------------------------------------ */

static atomic_int callback_calls;
static pthread_t callback_thread;
static atomic_int callback_on_caller;

static void on_fpe(int category, const char *where, void *user)
{
    (void)where;
    (void)user;
    if (category == NCL_FPE_DIVIDE) atomic_fetch_add(&callback_calls, 1);
    atomic_store(&callback_on_caller, pthread_equal(pthread_self(), callback_thread));
}

START_TEST(t_fpe_from_worker)
{
    const int64_t n = 1000000;
    NclArray *a = ncl_test_new(NCL_FLOAT64, 1, &n), *b = ncl_test_new(NCL_FLOAT64, 1, &n);
    for (int64_t i = 0; i < n; i++) {
        ncl_test_set_d(a, i, 1.0);
        ncl_test_set_d(b, i, i + 1 == n ? 0.0 : 2.0);
    }
    const NclDType sig[3] = {NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64};
    threads(2, 1000);
    spy_on(NCL_SUBSYSTEM_BINARY, NCL_DIVIDE, sig);
    NclArray *out = NULL;
    NCL_CHECK_OK(NclBinary(NCL_DIVIDE, a, b, &out, NULL));
    ck_assert_int_eq(atomic_load(&max_worker), 1); /* the last element was a worker's */
    ck_assert_int_eq(NclGetFPErrors(), NCL_FPE_DIVIDE);
    ck_assert(isinf(ncl_test_get_d(out, n - 1)));
    NclArrayRelease(out);
    out = NULL;

    NCL_CHECK_OK(NclSetErrMode(NCL_FPE_DIVIDE, NCL_ERRMODE_RAISE));
    NCL_CHECK_STATUS(NclBinary(NCL_DIVIDE, a, b, &out, NULL), NCL_ERR_FLOATING_POINT);
    ck_assert_ptr_null(out);

    NCL_CHECK_OK(NclSetErrMode(NCL_FPE_DIVIDE, NCL_ERRMODE_CALL));
    callback_thread = pthread_self();
    NclSetErrCallback(on_fpe, NULL);
    NCL_CHECK_OK(NclBinary(NCL_DIVIDE, a, b, &out, NULL));
    ck_assert_int_eq(atomic_load(&callback_calls), 1);
    ck_assert_int_eq(atomic_load(&callback_on_caller), 1);
    NclArrayRelease(out);
    out = NULL;
    NclSetErrCallback(NULL, NULL);
    NCL_CHECK_OK(NclSetErrMode(NCL_FPE_ALL, NCL_ERRMODE_IGNORE));
    spy_off();

    /* integer division by zero is reported by the kernel on the worker */
    NclArray *ia = ncl_test_new(NCL_INT32, 1, &n), *ib = ncl_test_new(NCL_INT32, 1, &n);
    for (int64_t i = 0; i < n; i++) {
        ncl_test_set_i(ia, i, 7);
        ncl_test_set_i(ib, i, i + 1 == n ? 0 : 3);
    }
    NCL_CHECK_OK(NclBinary(NCL_FLOOR_DIVIDE, ia, ib, &out, NULL));
    ck_assert_int_eq(NclGetFPErrors(), NCL_FPE_DIVIDE);
    NclArrayRelease(out);
    out = NULL;
    /* and a float sum that overflows only in the far half */
    for (int64_t i = 0; i < n; i++) ncl_test_set_d(a, i, i > n / 2 ? 1e308 : 1.0);
    NCL_CHECK_OK(NclReduce(NCL_SUM, a, &out, NULL));
    ck_assert_int_eq(NclGetFPErrors() & NCL_FPE_OVERFLOW, NCL_FPE_OVERFLOW);
    NclArrayRelease(out);
    NclArrayRelease(ia);
    NclArrayRelease(ib);
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

/* ---- nested calls from a worker --------------------------------------------------------- */

static atomic_int nested_done;

static NclStatus nesting_kernel(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                                int64_t n, const int64_t *steps)
{
    if (ctx->worker > 0) {
        /* a large call (it would split) and a small one, from a worker */
        const int64_t m = 100000;
        NclArray *x = ncl_test_new(NCL_FLOAT64, 1, &m), *y = NULL;
        for (int64_t i = 0; i < m; i++) ncl_test_set_d(x, i, (double)i);
        NclStatus st = NclUnary(NCL_NEGATIVE, x, &y, NULL);
        if (st == NCL_OK && ncl_test_get_d(y, m - 1) == -(double)(m - 1)) atomic_fetch_add(&nested_done, 1);
        NclArrayRelease(y);
        NclArrayRelease(x);
        /* waiting for a grace period from here would wait for this call */
        if (NclSetNumThreads(4) == NCL_ERR_HOOK) atomic_fetch_add(&nested_done, 1);
    }
    return NclKernelNext(self, ctx, args, n, steps);
}

START_TEST(t_nested_from_worker)
{
    const int64_t n = 300000;
    NclArray *a = random_array(NCL_FLOAT64, 1, &n, 9, 1.0), *out = NULL;
    threads(2, 1000);
    NclKernelNode k;
    memset(&k, 0, sizeof k);
    k.name = "nesting";
    k.fn = nesting_kernel;
    const NclDType sig[2] = {NCL_FLOAT64, NCL_FLOAT64};
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_UNARY, NCL_SQUARE, sig, &k.list));
    NCL_CHECK_OK(NclUnary(NCL_SQUARE, a, &out, NULL));
    ck_assert_int_eq(atomic_load(&nested_done), 2);
    for (int64_t i = 0; i < n; i += 997) {
        const double x = ncl_test_get_d(a, i);
        ck_assert(ncl_test_get_d(out, i) == x * x);
    }
    NCL_CHECK_OK(NclKernelUnhook(&k.list));
    NclArrayRelease(out);
    NclArrayRelease(a);
}
END_TEST

/* ---- the caller's core ------------------------------------------------------------------ */

/* The CPU each worker's kernel call ran on (-1: none ran). */
static atomic_int cpu_of_worker[2];

static NclStatus where_kernel(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                              int64_t n, const int64_t *steps)
{
    if (ctx->worker >= 0 && ctx->worker < 2) atomic_store(&cpu_of_worker[ctx->worker], sched_getcpu());
    return NclKernelNext(self, ctx, args, n, steps);
}

/* The calling thread runs worker 0's share unbound, wherever the OS puts
   it; a worker bound to that same core would take turns with it and the
   split call would take as long as an unsplit one. Bound to one CPU, then
   to another, the caller must find the worker on a different CPU both
   times (the second time the worker has to move). */
START_TEST(t_workers_leave_callers_core)
{
    cpu_set_t saved;
    ck_assert_int_eq(sched_getaffinity(0, sizeof saved, &saved), 0);
    int first = -1, last = -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &saved)) {
            if (first < 0) first = c;
            last = c;
        }
    if (first == last) return; /* one CPU: there is no other core to leave free */

    const int64_t n = 200000;
    NclArray *a = random_array(NCL_FLOAT64, 1, &n, 5, 2.0), *out = NULL;
    const NclDType sig[2] = {NCL_FLOAT64, NCL_FLOAT64};
    NclKernelNode k;
    memset(&k, 0, sizeof k);
    k.name = "where";
    k.fn = where_kernel;
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_UNARY, NCL_EXP, sig, &k.list));
    threads(2, 1000);
    const int cpus[2] = {last, first};
    for (int i = 0; i < 2; i++) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpus[i], &one);
        ck_assert_int_eq(sched_setaffinity(0, sizeof one, &one), 0);
        for (int rep = 0; rep < 3; rep++) {
            atomic_store(&cpu_of_worker[0], -1);
            atomic_store(&cpu_of_worker[1], -1);
            NCL_CHECK_OK(NclUnary(NCL_EXP, a, &out, NULL));
            NclArrayRelease(out);
            out = NULL;
            ck_assert_int_eq(atomic_load(&cpu_of_worker[0]), cpus[i]);
            const int w1 = atomic_load(&cpu_of_worker[1]);
            ck_assert_msg(w1 >= 0 && w1 != cpus[i], "worker 1 ran on CPU %d, the caller's (rep %d)",
                          w1, rep);
        }
    }
    ck_assert_int_eq(sched_setaffinity(0, sizeof saved, &saved), 0);
    NCL_CHECK_OK(NclKernelUnhook(&k.list));
    NclArrayRelease(a);
}
END_TEST

/* ---- fork ------------------------------------------------------------------------------- */

START_TEST(t_fork_with_live_pool)
{
    const int64_t n = 400000;
    NclArray *a = random_array(NCL_FLOAT64, 1, &n, 77, 2.0), *out = NULL;
    threads(2, 1000);
    NCL_CHECK_OK(NclUnary(NCL_EXP, a, &out, NULL)); /* the pool is running */
    const uint64_t h = ncl_test_hash(out);
    NclArrayRelease(out);
    out = NULL;
    char info[8192];
    NCL_CHECK_OK(NclInfo(info, sizeof info, NULL));
    ck_assert_ptr_nonnull(strstr(info, "\"pool_running\":true"));

    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int bad = 0;
        const NclDType sig[2] = {NCL_FLOAT64, NCL_FLOAT64};
        NclKernelNode k;
        memset(&k, 0, sizeof k);
        k.name = "spy";
        k.fn = spy_kernel;
        atomic_store(&max_worker, 0);
        bad |= NclKernelHook(NCL_SUBSYSTEM_UNARY, NCL_EXP, sig, &k.list) != NCL_OK;
        for (int rep = 0; rep < 3 && !bad; rep++) {
            NclArray *r = NULL;
            bad |= NclUnary(NCL_EXP, a, &r, NULL) != NCL_OK;
            bad |= r == NULL || ncl_test_hash(r) != h;
            NclArrayRelease(r);
        }
        bad |= atomic_load(&max_worker) != 1;
        bad |= NclKernelUnhook(&k.list) != NCL_OK;
        _exit(bad ? 1 : 0);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed (status %d)",
                  status);
    /* and the parent's pool still works */
    NCL_CHECK_OK(NclUnary(NCL_EXP, a, &out, NULL));
    ck_assert(ncl_test_hash(out) == h);
    NclArrayRelease(out);
    NclArrayRelease(a);
}
END_TEST

/* ---- settings ------------------------------------------------------------------------------ */

START_TEST(t_settings_validation)
{
    NCL_CHECK_STATUS(NclSetNumThreads(-1), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("NclSetNumThreads(-1)");
    NCL_CHECK_STATUS(NclSetNumThreads(NCL_MAX_THREADS + 1), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclSetThreadingThreshold(0), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("NclSetThreadingThreshold(0)");
    NCL_CHECK_STATUS(NclSetThreadingThreshold(-5), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_OK(NclSetNumThreads(0));
    ck_assert_int_ge(NclGetNumThreads(), 1);
    NCL_CHECK_OK(NclSetNumThreads(1));
    ck_assert_int_eq(NclGetNumThreads(), 1);
    const NclApi *api = NclGetApi();
    ck_assert(api->SetNumThreads == NclSetNumThreads);
    ck_assert(api->GetNumThreads == NclGetNumThreads);
    ck_assert(api->SetThreadingThreshold == NclSetThreadingThreshold);
}
END_TEST

/* Runs this test program as a probe with the given environment: it prints
   the thread count and the threshold it starts with. Under an emulator
   (cross builds: NCL_TEST_EMULATOR, its command line split at spaces, set
   by tests/CMakeLists.txt) the probe runs under it too. */
static void probe(const char *threads_env, const char *threshold_env, int *count, long long *th)
{
    char emulator[1024] = "";
    char *argv[32];
    int argc = 0;
    const char *emu = getenv("NCL_TEST_EMULATOR");
    if (emu) {
        ck_assert(strlen(emu) < sizeof emulator);
        strcpy(emulator, emu);
        for (char *save = NULL, *w = strtok_r(emulator, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
            ck_assert(argc < 29);
            argv[argc++] = w;
        }
    }
    argv[argc++] = (char *)self_path;
    argv[argc++] = "--probe";
    argv[argc] = NULL;
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        if (threads_env) setenv("NCL_NUM_THREADS", threads_env, 1);
        else unsetenv("NCL_NUM_THREADS");
        if (threshold_env) setenv("NCL_THREADING_THRESHOLD", threshold_env, 1);
        else unsetenv("NCL_THREADING_THRESHOLD");
        execv(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    char buf[128] = {0};
    ssize_t got = read(fd[0], buf, sizeof buf - 1);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    ck_assert_msg(got > 0 && sscanf(buf, "%d %lld", count, th) == 2, "probe said '%s'", buf);
}

START_TEST(t_environment)
{
    int base, n;
    long long th;
    probe(NULL, NULL, &base, &th);
    ck_assert_int_ge(base, 1);
    ck_assert_int_eq(th, 65536);
    probe("3", "100", &n, &th);
    ck_assert_int_eq(n, 3);
    ck_assert_int_eq(th, 100);
    probe("0", "0", &n, &th); /* 0 threads: per core; threshold 0 is invalid */
    ck_assert_int_eq(n, base);
    ck_assert_int_eq(th, 65536);
    probe("100000", NULL, &n, &th); /* above NCL_MAX_THREADS */
    ck_assert_int_eq(n, base);
    const char *bad[] = {"", "-2", "two", "3x", " 4"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        probe(bad[i], bad[i], &n, &th);
        ck_assert_int_eq(n, base);
        ck_assert_int_eq(th, 65536);
    }
}
END_TEST

static Suite *threads_suite(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = ncl_test_tcase(s, "identity");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, t_elementwise_same_bits);
    tcase_add_loop_test(tc, t_reduce_same_bits, 0, 2);
    tcase_add_loop_test(tc, t_sort_same_bits, 0, 5);
    tcase_add_test(tc, t_sort_split_is_sorted);
    tcase_add_loop_test(tc, t_sort_split_by_value, 0, NCL_NTYPES);
    tcase_add_loop_test(tc, t_sort_phases_same_bits, 0, 10);
    tc = ncl_test_tcase(s, "pool");
    tcase_add_test(tc, t_unhook_threader);
    tcase_add_test(tc, t_fpe_from_worker);
    tcase_add_test(tc, t_nested_from_worker);
    tcase_add_test(tc, t_workers_leave_callers_core);
    tcase_add_test(tc, t_settings_validation);
    tcase_add_test(tc, t_environment);
    tc = ncl_test_fork_tcase(s);
    tcase_add_test(tc, t_fork_with_live_pool);
    return s;
}

int main(int argc, char **argv)
{
    self_path = argv[0];
    if (argc > 1 && strcmp(argv[1], "--probe") == 0) {
        char info[8192];
        if (NclInfo(info, sizeof info, NULL) != NCL_OK) return 1;
        const char *t = strstr(info, "\"threshold\":");
        printf("%d %lld\n", NclGetNumThreads(), t ? atoll(t + 12) : -1LL);
        return 0;
    }
    Suite *(*const makers[])(void) = {threads_suite, NULL};
    return ncl_test_run(makers);
}
