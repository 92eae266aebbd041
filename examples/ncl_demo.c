/*
 * ncl_demo.c: a guided tour of what NCLib is for, printed as it runs:
 * NumPy's broadcasting and type promotion from C, comparisons that are exact
 * where NumPy's go through float64, the ledger, a level-1 hook in front of
 * Binary, a level-2 kernel hook that takes over one inner loop, a NEP 49
 * allocator handler, floating-point error modes, a large call split across
 * the thread pool with the same bits as on one thread, NumPy's random
 * streams from a seed (the same values and final state on one and two
 * threads), and the library's own description of itself.
 *
 * Every call is checked: on any failure the demo prints the status and
 * NclLastError() and exits non-zero, and it also checks the values it shows,
 * so it doubles as an end-to-end test (CTest runs it).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ncl.h>

/* ---- plumbing -------------------------------------------------------------- */

static void die(const char *what, NclStatus s)
{
    fprintf(stderr, "\nncl_demo: %s failed: %s\n  %s\n", what, NclStatusString(s), NclLastError());
    exit(EXIT_FAILURE);
}

#define CHECK(call)                             \
    do {                                        \
        NclStatus check_s_ = (call);            \
        if (check_s_ != NCL_OK)                 \
            die(#call, check_s_);               \
    } while (0)

static void expect(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "\nncl_demo: unexpected result: %s\n", what);
        exit(EXIT_FAILURE);
    }
}

static void section(const char *title)
{
    printf("\n== %s ==\n", title);
}

static const char *binary_op_name(NclBinaryOp op)
{
    static const char *const names[] = {
#define NAME_(name, text) text,
        NCL_BINARY_OP_LIST(NAME_)
#undef NAME_
    };
    return (unsigned)op < sizeof names / sizeof names[0] ? names[op] : "?";
}

/* A 1-D array over caller memory; NCLib does not own or free it. */
static NclArray *wrap(NclDType t, int64_t n, void *data)
{
    NclArray *a = NULL;
    CHECK(NclFromData(t, 1, &n, NULL, data, NCL_ARRAY_WRITEABLE, NULL, NULL, &a));
    return a;
}

/* As NumPy prints them: a NaN is "nan" whatever its sign bit. */
static void print_float(double v)
{
    if (isnan(v))
        printf("nan");
    else
        printf("%g", v);
}

static void print_element(NclDType t, const char *p)
{
    switch (t) {
    case NCL_BOOL: { uint8_t v; memcpy(&v, p, 1); printf("%s", v ? "True" : "False"); break; }
    case NCL_INT8: { int8_t v; memcpy(&v, p, sizeof v); printf("%d", v); break; }
    case NCL_INT16: { int16_t v; memcpy(&v, p, sizeof v); printf("%d", v); break; }
    case NCL_INT32: { int32_t v; memcpy(&v, p, sizeof v); printf("%" PRId32, v); break; }
    case NCL_INT64: { int64_t v; memcpy(&v, p, sizeof v); printf("%" PRId64, v); break; }
    case NCL_UINT8: { uint8_t v; memcpy(&v, p, sizeof v); printf("%u", v); break; }
    case NCL_UINT16: { uint16_t v; memcpy(&v, p, sizeof v); printf("%u", v); break; }
    case NCL_UINT32: { uint32_t v; memcpy(&v, p, sizeof v); printf("%" PRIu32, v); break; }
    case NCL_UINT64: { uint64_t v; memcpy(&v, p, sizeof v); printf("%" PRIu64, v); break; }
    case NCL_FLOAT32: { float v; memcpy(&v, p, sizeof v); print_float(v); break; }
    case NCL_FLOAT64: { double v; memcpy(&v, p, sizeof v); print_float(v); break; }
    default: printf("?"); break;
    }
}

/* NumPy-style nested brackets, one row per line for 2-D. */
static void print_nested(const NclArray *a, int axis, const char *p, int indent)
{
    const int64_t *shape = NclArrayShape(a), *strides = NclArrayStrides(a);
    if (axis == NclArrayNDim(a)) {
        print_element(NclArrayDType(a), p);
        return;
    }
    printf("[");
    for (int64_t i = 0; i < shape[axis]; i++) {
        if (i > 0) {
            if (axis + 1 < NclArrayNDim(a))
                printf(",\n%*s", indent + axis + 1, "");
            else
                printf(", ");
        }
        print_nested(a, axis + 1, p + i * strides[axis], indent);
    }
    printf("]");
}

static void print_array(const char *label, const NclArray *a)
{
    const int nd = NclArrayNDim(a);
    const int64_t *shape = NclArrayShape(a);
    char shape_text[64] = "(";
    for (int i = 0; i < nd; i++) {
        size_t len = strlen(shape_text);
        snprintf(shape_text + len, sizeof shape_text - len, i ? ",%" PRId64 : "%" PRId64, shape[i]);
    }
    strncat(shape_text, nd == 1 ? ",)" : ")", sizeof shape_text - strlen(shape_text) - 1);
    printf("  %s %s %s:\n    ", label, NclDTypeName(NclArrayDType(a)), shape_text);
    print_nested(a, 0, NclArrayData(a), 4);
    printf("\n");
}

static double f64_at(const NclArray *a, int64_t flat_c_index)
{
    double v;
    memcpy(&v, (const char *)NclArrayData(a) + flat_c_index * (int64_t)sizeof v, sizeof v);
    return v;
}

static int bool_at(const NclArray *a, int64_t i)
{
    const uint8_t *p = (const uint8_t *)NclArrayData(a) + i * NclArrayStrides(a)[0];
    return *p != 0;
}

/* NclInfo and NclLedgerReport share one buffer protocol: ask, grow, retry. */
static char *fetch_text(NclStatus (*fn)(char *, size_t, size_t *), const char *what)
{
    size_t cap = 4096, needed = 0;
    char *buf = malloc(cap);
    if (!buf) { fprintf(stderr, "ncl_demo: out of memory\n"); exit(EXIT_FAILURE); }
    NclStatus s = fn(buf, cap, &needed);
    if (s != NCL_OK && needed > cap) {
        cap = needed;
        char *bigger = realloc(buf, cap);
        if (!bigger) { free(buf); fprintf(stderr, "ncl_demo: out of memory\n"); exit(EXIT_FAILURE); }
        buf = bigger;
        s = fn(buf, cap, &needed);
    }
    if (s != NCL_OK) { free(buf); die(what, s); }
    return buf;
}

/* ---- 1. broadcasting and promotion ----------------------------------------- */

static void demo_broadcasting(void)
{
    section("1. Broadcasting and type promotion: (3,1) int32 + (4,) float64");
    int32_t col[3] = {0, 10, 20};
    double row[4] = {0.5, 1.5, 2.5, 3.5};
    const int64_t col_shape[2] = {3, 1};
    NclArray *a = NULL, *sum = NULL;
    CHECK(NclFromData(NCL_INT32, 2, col_shape, NULL, col, 0, NULL, NULL, &a));
    NclArray *b = wrap(NCL_FLOAT64, 4, row);
    print_array("a", a);
    print_array("b", b);

    /* *out == NULL: NCLib allocates the (3,4) result with NumPy's result
       dtype for int32 + float64, which is float64. */
    CHECK(NclBinary(NCL_ADD, a, b, &sum, NULL));
    print_array("a + b", sum);
    expect(NclArrayNDim(sum) == 2 && NclArrayShape(sum)[0] == 3 && NclArrayShape(sum)[1] == 4,
           "(3,1) + (4,) has shape (3,4)");
    expect(NclArrayDType(sum) == NCL_FLOAT64, "int32 + float64 is float64");
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            expect(f64_at(sum, i * 4 + j) == col[i] + row[j], "broadcast sums");

    /* A shape mismatch is a status and a message, never a crash. */
    double three[3] = {0};
    NclArray *c = wrap(NCL_FLOAT64, 3, three), *bad = NULL;
    NclStatus s = NclBinary(NCL_ADD, b, c, &bad, NULL);
    expect(s == NCL_ERR_BROADCAST && bad == NULL, "(4,) + (3,) is NCL_ERR_BROADCAST");
    printf("  b + (3,) -> %s:\n    %s\n", NclStatusString(s), NclLastError());

    NclArrayRelease(c);
    NclArrayRelease(sum);
    NclArrayRelease(b);
    NclArrayRelease(a);
}

/* ---- 2. exact mixed-kind comparison ----------------------------------------- */

static void demo_exact_compare(void)
{
    section("2. Exact comparisons (NumPy 1.24 compares int64 with uint64 through float64)");
    int64_t i64[3] = {INT64_MAX, INT64_MAX, -1};
    uint64_t u64[3] = {(uint64_t)INT64_MAX, (uint64_t)INT64_MAX + 1u, UINT64_MAX};
    NclArray *a = wrap(NCL_INT64, 3, i64), *b = wrap(NCL_UINT64, 3, u64);

    NclArray *exact = NULL, *af = NULL, *bf = NULL, *detour = NULL;
    CHECK(NclCompare(NCL_CMP_EQ, a, b, &exact, NULL));

    /* What a float64 common type gives: convert both, then compare. */
    NclParams to_f64 = NCL_PARAMS_INIT;
    to_f64.dtype = NCL_FLOAT64;
    to_f64.casting = NCL_CASTING_UNSAFE;
    CHECK(NclConvert(NCL_CONVERT_ASTYPE, a, &af, &to_f64));
    CHECK(NclConvert(NCL_CONVERT_ASTYPE, b, &bf, &to_f64));
    CHECK(NclCompare(NCL_CMP_EQ, af, bf, &detour, NULL));

    printf("  %-21s %-21s %-9s %-11s %s\n", "a (int64)", "b (uint64)", "NCLib ==",
           "float64 ==", "C's ==");
    for (int i = 0; i < 3; i++) {
        const int ex = bool_at(exact, i), fl = bool_at(detour, i);
        const int c_eq = (uint64_t)i64[i] == u64[i]; /* C's usual arithmetic conversions */
        printf("  %-21" PRId64 " %-21" PRIu64 " %-9s %-11s %-5s%s%s\n", i64[i], u64[i],
               ex ? "True" : "False", fl ? "True" : "False", c_eq ? "True" : "False",
               fl != ex ? "  <- float64 is wrong" : "", c_eq != ex ? "  <- C is wrong" : "");
    }
    expect(bool_at(exact, 0) && !bool_at(exact, 1) && !bool_at(exact, 2),
           "exact int64 == uint64");
    expect(bool_at(detour, 1), "2**63-1 and 2**63 collide in float64");

    /* Integer against float is exact too: 2**53 + 1 is not representable in
       float64, so converting it first loses the +1. */
    int64_t big[1] = {((int64_t)1 << 53) + 1};
    double two53[1] = {9007199254740992.0};
    NclArray *x = wrap(NCL_INT64, 1, big), *y = wrap(NCL_FLOAT64, 1, two53);
    NclArray *gt = NULL, *xf = NULL, *gt_detour = NULL;
    CHECK(NclCompare(NCL_CMP_GT, x, y, &gt, NULL));
    CHECK(NclConvert(NCL_CONVERT_ASTYPE, x, &xf, &to_f64));
    CHECK(NclCompare(NCL_CMP_GT, xf, y, &gt_detour, NULL));
    printf("  int64 %" PRId64 " > float64 %.0f: NCLib %s, through float64 %s\n", big[0], two53[0],
           bool_at(gt, 0) ? "True" : "False", bool_at(gt_detour, 0) ? "True" : "False");
    expect(bool_at(gt, 0) && !bool_at(gt_detour, 0), "2**53+1 > 2**53 exactly");

    NclArray *all[] = {a, b, exact, af, bf, detour, x, y, gt, xf, gt_detour};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        NclArrayRelease(all[i]);
}

/* ---- 3. a level-1 hook in front of Binary ----------------------------------- */

static NclStatus count_binary(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                              NclArray **out, const NclParams *params)
{
    unsigned long *calls = self->user;
    ++*calls;
    printf("    [%s] NclBinary(%s, %s, %s)\n", self->name, binary_op_name(op),
           a ? NclDTypeName(NclArrayDType(a)) : "NULL", b ? NclDTypeName(NclArrayDType(b)) : "NULL");
    /* Pass the call on unchanged: the next node is the ledger, then the default. */
    return NclBinaryNext(self, op, a, b, out, params);
}

static int print_node(const NclListHead *node, const char *name, void *user)
{
    (void)node;
    int *pos = user;
    printf("%s%s", (*pos)++ ? " -> " : "    ", name ? name : "(unnamed)");
    return 0;
}

static void demo_api_hook(void)
{
    section("3. A level-1 hook: count and log every NclBinary call, then pass it on");
    unsigned long calls = 0;
    NclHook hook;
    memset(&hook, 0, sizeof hook);
    hook.name = "demo_counter";
    hook.user = &calls;
    hook.fn.binary = count_binary;
    CHECK(NclApiHook(NCL_SUBSYSTEM_BINARY, &hook.list));

    int pos = 0;
    printf("  Binary chain:\n");
    CHECK(NclHooksWalk(NCL_SUBSYSTEM_BINARY, print_node, &pos));
    printf("\n");

    double x[3] = {1, 2, 3}, y[3] = {4, 5, 6};
    NclArray *a = wrap(NCL_FLOAT64, 3, x), *b = wrap(NCL_FLOAT64, 3, y);
    NclArray *p = NULL, *d = NULL;
    CHECK(NclBinary(NCL_MULTIPLY, a, b, &p, NULL));
    CHECK(NclBinary(NCL_SUBTRACT, p, a, &d, NULL));
    print_array("a * b - a", d);
    expect(f64_at(d, 2) == 15.0, "3*6 - 3 == 15");

    CHECK(NclApiUnhook(&hook.list)); /* returns once no call is inside it */
    NclArray *e = NULL;
    CHECK(NclBinary(NCL_ADD, a, b, &e, NULL));
    printf("  the hook saw %lu calls; after NclApiUnhook the next call is not seen\n", calls);
    expect(calls == 2, "the hook saw exactly the two calls made while it was in");

    NclArrayRelease(e);
    NclArrayRelease(d);
    NclArrayRelease(p);
    NclArrayRelease(b);
    NclArrayRelease(a);
}

/* ---- 4. a level-2 kernel hook on (add, f64, f64 -> f64) ---------------------- */

typedef struct kernel_stats {
    atomic_ulong handled_calls, handled_elements, passed_calls;
} kernel_stats;

/* Takes the contiguous case itself and leaves every other layout to the
   built-in kernel behind it. Operands may be misaligned, so elements are
   moved with memcpy (which compiles to plain loads and stores). */
static NclStatus add_f64_contiguous(NclKernelNode *self, const NclKernelCtx *ctx,
                                    char *const *args, int64_t n, const int64_t *steps)
{
    kernel_stats *st = self->user;
    const int64_t w = (int64_t)sizeof(double);
    if (steps[0] != w || steps[1] != w || steps[2] != w) {
        atomic_fetch_add(&st->passed_calls, 1);
        return NclKernelNext(self, ctx, args, n, steps);
    }
    for (int64_t i = 0; i < n; i++) {
        double x, y, r;
        memcpy(&x, args[0] + i * w, sizeof x);
        memcpy(&y, args[1] + i * w, sizeof y);
        r = x + y;
        memcpy(args[2] + i * w, &r, sizeof r);
    }
    atomic_fetch_add(&st->handled_calls, 1);
    atomic_fetch_add(&st->handled_elements, (unsigned long)n);
    return NCL_OK;
}

static void demo_kernel_hook(void)
{
    section("4. A level-2 kernel hook: a user inner loop for add(float64, float64) -> float64");
    kernel_stats st;
    atomic_init(&st.handled_calls, 0);
    atomic_init(&st.handled_elements, 0);
    atomic_init(&st.passed_calls, 0);
    NclKernelNode node;
    memset(&node, 0, sizeof node);
    node.fn = add_f64_contiguous;
    node.name = "demo_add_f64_contiguous";
    node.user = &st;
    const NclDType sig[3] = {NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64};
    CHECK(NclKernelHook(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig, &node.list));

    double x[8], y[8];
    for (int i = 0; i < 8; i++) {
        x[i] = i;
        y[i] = 100.0 * i;
    }
    NclArray *a = wrap(NCL_FLOAT64, 8, x), *b = wrap(NCL_FLOAT64, 8, y);
    NclArray *sum = NULL, *as = NULL, *bs = NULL, *ssum = NULL;

    CHECK(NclBinary(NCL_ADD, a, b, &sum, NULL)); /* contiguous: the hook's loop */
    print_array("a + b (contiguous)", sum);

    const int64_t start = 0, stop = 8, step = 2;
    CHECK(NclArraySlice(a, &start, &stop, &step, &as));
    CHECK(NclArraySlice(b, &start, &stop, &step, &bs));
    CHECK(NclBinary(NCL_ADD, as, bs, &ssum, NULL)); /* stride 16: passed on */
    print_array("a[::2] + b[::2]", ssum);
    for (int i = 0; i < 8; i++)
        expect(f64_at(sum, i) == 101.0 * i, "contiguous sums");
    for (int i = 0; i < 4; i++)
        expect(f64_at(ssum, i) == 202.0 * i, "strided sums");

    CHECK(NclKernelUnhook(&node.list));
    printf("  the user kernel ran %lu time(s) on %lu elements and passed %lu strided call(s) on\n",
           (unsigned long)atomic_load(&st.handled_calls),
           (unsigned long)atomic_load(&st.handled_elements),
           (unsigned long)atomic_load(&st.passed_calls));
    expect(atomic_load(&st.handled_elements) >= 8, "the hook handled the contiguous add");

    NclArrayRelease(ssum);
    NclArrayRelease(bs);
    NclArrayRelease(as);
    NclArrayRelease(sum);
    NclArrayRelease(b);
    NclArrayRelease(a);
}

/* ---- 5. a NEP 49 allocator handler ----------------------------------------- */

typedef struct counting_ctx {
    atomic_size_t allocs, frees, live_bytes;
} counting_ctx;

/* glibc's malloc family returns 16-byte aligned blocks on 64-bit targets,
   which is what NCLib requires of a handler. */
static void *cnt_malloc(void *ctx, size_t size)
{
    counting_ctx *c = ctx;
    void *p = malloc(size);
    if (p) {
        atomic_fetch_add(&c->allocs, 1);
        atomic_fetch_add(&c->live_bytes, size);
    }
    return p;
}

static void *cnt_calloc(void *ctx, size_t nelem, size_t elsize)
{
    counting_ctx *c = ctx;
    void *p = calloc(nelem, elsize);
    if (p) {
        atomic_fetch_add(&c->allocs, 1);
        atomic_fetch_add(&c->live_bytes, nelem * elsize);
    }
    return p;
}

/* realloc's old size is unknown here, so only the call is counted. */
static void *cnt_realloc(void *ctx, void *ptr, size_t new_size)
{
    counting_ctx *c = ctx;
    void *p = realloc(ptr, new_size);
    if (p)
        atomic_fetch_add(&c->allocs, 1);
    return p;
}

static void cnt_free(void *ctx, void *ptr, size_t size)
{
    counting_ctx *c = ctx;
    if (ptr) {
        atomic_fetch_add(&c->frees, 1);
        atomic_fetch_sub(&c->live_bytes, size);
    }
    free(ptr);
}

static void demo_allocator(void)
{
    section("5. A NEP 49 allocator handler: count every block of array data");
    static counting_ctx ctx;
    atomic_init(&ctx.allocs, 0);
    atomic_init(&ctx.frees, 0);
    atomic_init(&ctx.live_bytes, 0);
    static NclMemHandler handler = {
        .name = "demo_counting",
        .version = 1,
        .allocator = {&ctx, cnt_malloc, cnt_calloc, cnt_realloc, cnt_free},
    };

    const int64_t n = 1000;
    NclArray *z = NULL, *o = NULL, *s = NULL, *later = NULL;
    const NclMemHandler *previous = NclDataMem_SetHandler(&handler);
    CHECK(NclZeros(NCL_FLOAT64, 1, &n, &z));
    CHECK(NclOnes(NCL_FLOAT64, 1, &n, &o));
    CHECK(NclBinary(NCL_ADD, z, o, &s, NULL));
    NclDataMem_SetHandler(previous);
    CHECK(NclOnes(NCL_FLOAT64, 1, &n, &later));

    printf("  zeros + ones made under the handler: NclArrayHandlerName = \"%s\"\n",
           NclArrayHandlerName(s));
    printf("  an array made after restoring:       NclArrayHandlerName = \"%s\"\n",
           NclArrayHandlerName(later));
    printf("  demo_counting: %zu allocations, %zu bytes live\n", atomic_load(&ctx.allocs),
           atomic_load(&ctx.live_bytes));
    expect(strcmp(NclArrayHandlerName(s), "demo_counting") == 0, "the result names its handler");
    expect(atomic_load(&ctx.live_bytes) >= 3 * (size_t)n * sizeof(double),
           "three arrays of data live in the handler");

    /* The handler is no longer current, but each block goes back to the
       handler that allocated it, with its size. */
    NclArrayRelease(s);
    NclArrayRelease(o);
    NclArrayRelease(z);
    NclArrayRelease(later);
    printf("  after release: %zu frees, %zu bytes live\n", atomic_load(&ctx.frees),
           atomic_load(&ctx.live_bytes));
    expect(atomic_load(&ctx.live_bytes) == 0, "every block was freed by its own handler");
}

/* ---- 6. floating-point error modes ------------------------------------------ */

static void print_fpe(int flags)
{
    printf("{%s%s%s%s }", flags & NCL_FPE_DIVIDE ? " divide" : "",
           flags & NCL_FPE_OVERFLOW ? " overflow" : "", flags & NCL_FPE_UNDERFLOW ? " underflow" : "",
           flags & NCL_FPE_INVALID ? " invalid" : "");
}

static void demo_fp_errors(void)
{
    section("6. Floating-point errors: IGNORE (the default) records, RAISE returns an error");
    double num[3] = {1.0, -1.0, 0.0}, den[3] = {0.0, 0.0, 0.0}, res[3] = {0};
    NclArray *a = wrap(NCL_FLOAT64, 3, num), *b = wrap(NCL_FLOAT64, 3, den);
    NclArray *out = wrap(NCL_FLOAT64, 3, res);

    CHECK(NclBinary(NCL_DIVIDE, a, b, &out, NULL));
    printf("  IGNORE: [1, -1, 0] / 0 -> NCL_OK, flags ");
    print_fpe(NclGetFPErrors());
    printf("\n");

    CHECK(NclSetErrMode(NCL_FPE_DIVIDE | NCL_FPE_INVALID, NCL_ERRMODE_RAISE));
    NclStatus s = NclBinary(NCL_DIVIDE, a, b, &out, NULL);
    printf("  RAISE:  [1, -1, 0] / 0 -> %s: %s\n", NclStatusString(s), NclLastError());
    expect(s == NCL_ERR_FLOATING_POINT, "divide by zero under RAISE is NCL_ERR_FLOATING_POINT");
    print_array("the output is still written", out);
    expect(isinf(res[0]) && res[0] > 0 && isinf(res[1]) && res[1] < 0 && isnan(res[2]),
           "1/0 = inf, -1/0 = -inf, 0/0 = nan");

    /* Integer division by zero is defined here: 0, with the divide flag. */
    int32_t in[2] = {7, -7}, id[2] = {0, 2};
    NclArray *ia = wrap(NCL_INT32, 2, in), *ib = wrap(NCL_INT32, 2, id), *q = NULL;
    CHECK(NclSetErrMode(NCL_FPE_ALL, NCL_ERRMODE_IGNORE));
    CHECK(NclBinary(NCL_FLOOR_DIVIDE, ia, ib, &q, NULL));
    print_array("[7, -7] // [0, 2]", q);
    printf("    flags ");
    print_fpe(NclGetFPErrors());
    printf("\n");
    expect((NclGetFPErrors() & NCL_FPE_DIVIDE) != 0, "integer division by zero raises divide");

    NclArrayRelease(q);
    NclArrayRelease(ib);
    NclArrayRelease(ia);
    NclArrayRelease(out);
    NclArrayRelease(b);
    NclArrayRelease(a);
}


/* ---- threads and kernel variants --------------------------------------------- */

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* exp over n elements and the sum of the result, on `threads` threads;
   returns the time of the exp call. */
static double exp_and_sum(const NclArray *x, int threads, NclArray **y, double *total)
{
    CHECK(NclSetNumThreads(threads));
    NclArray *s = NULL;
    double t0 = seconds();
    CHECK(NclUnary(NCL_EXP, x, y, NULL));
    double t = seconds() - t0;
    CHECK(NclReduce(NCL_SUM, *y, &s, NULL));
    memcpy(total, NclArrayData(s), sizeof *total);
    NclArrayRelease(s);
    return t;
}

static void demo_threads(void)
{
    section("7. Threads: a large call split across the pool gives the same bits");
    const int64_t n = 4000000;
    NclArray *x = NULL, *y1 = NULL, *y2 = NULL;
    CHECK(NclArange(NCL_FLOAT64, -20.0, 20.0, 40.0 / (double)n, &x));
    const int before = NclGetNumThreads();
    double sum1, sum2;
    double t1 = exp_and_sum(x, 1, &y1, &sum1);
    double t2 = exp_and_sum(x, 2, &y2, &sum2);
    printf("  exp of %" PRId64 " float64: 1 thread %.2f ms, 2 threads %.2f ms\n", n, t1 * 1e3,
           t2 * 1e3);
    printf("  sum of the result: %.17g (1 thread), %.17g (2 threads)\n", sum1, sum2);
    expect(memcmp(NclArrayData(y1), NclArrayData(y2), (size_t)n * sizeof(double)) == 0,
           "exp gives the same bits on 1 and 2 threads");
    expect(memcmp(&sum1, &sum2, sizeof sum1) == 0, "the float sum is the same on 1 and 2 threads");
    CHECK(NclSetNumThreads(before));
    NclArrayRelease(y2);
    NclArrayRelease(y1);
    NclArrayRelease(x);
}

/* n values of op from a fresh PCG64 seeded as numpy.random.default_rng(42),
   on `threads` threads; returns the time of the call and leaves the
   generator's state blob in state. */
static double draw_seeded(NclRngOp op, int64_t n, int threads, NclArray **out, unsigned char *state,
                          size_t cap)
{
    const uint32_t seed = 42;
    NclSeedSequence *ss = NULL;
    NclRngGen *g = NULL;
    CHECK(NclSeedSequenceCreate(&seed, 1, NULL, 0, &ss));
    CHECK(NclRngGenCreate(NCL_BITGEN_PCG64, ss, &g));
    NclSeedSequenceFree(ss);
    NclParams p = NCL_PARAMS_INIT;
    p.ndim = 1;
    p.shape = &n;
    CHECK(NclSetNumThreads(threads));
    double t0 = seconds();
    CHECK(NclRng(op, g, NULL, NULL, out, &p));
    double t = seconds() - t0;
    size_t len;
    CHECK(NclRngGenGetState(g, state, cap, &len));
    NclRngGenFree(g);
    return t;
}

static void demo_rng(void)
{
    section("8. Random numbers: numpy.random.default_rng(42)'s values, the same on 1 and 2 threads");
    const int64_t n = 4000000;
    const int before = NclGetNumThreads();
    static const struct {
        NclRngOp op;
        const char *name;
        double numpy[3]; /* NumPy 1.24: default_rng(42).<name>(3) */
    } cases[] = {
        {NCL_RNG_RANDOM, "random", {0.7739560485559633, 0.4388784397520523, 0.8585979199113825}},
        {NCL_RNG_STANDARD_NORMAL, "standard_normal",
         {0.30471707975443135, -1.0399841062404955, 0.7504511958064572}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        NclArray *y1 = NULL, *y2 = NULL;
        unsigned char s1[128] = {0}, s2[128] = {0};
        double t1 = draw_seeded(cases[c].op, n, 1, &y1, s1, sizeof s1);
        double t2 = draw_seeded(cases[c].op, n, 2, &y2, s2, sizeof s2);
        const double *v = NclArrayData(y1);
        printf("  %s: %.17g %.17g %.17g ... (NumPy: %.17g %.17g %.17g)\n", cases[c].name, v[0], v[1],
               v[2], cases[c].numpy[0], cases[c].numpy[1], cases[c].numpy[2]);
        printf("  %" PRId64 " values: 1 thread %.2f ms, 2 threads %.2f ms\n", n, t1 * 1e3, t2 * 1e3);
        expect(memcmp(v, cases[c].numpy, sizeof cases[c].numpy) == 0, "the first values are NumPy's");
        expect(memcmp(NclArrayData(y1), NclArrayData(y2), (size_t)n * sizeof(double)) == 0,
               "1 and 2 threads give the same values");
        expect(memcmp(s1, s2, sizeof s1) == 0, "and leave the generator in the same state");
        NclArrayRelease(y2);
        NclArrayRelease(y1);
    }
    CHECK(NclSetNumThreads(before));
}

/* ---- main ------------------------------------------------------------------- */

int main(void)
{
    const NclApi *api = NclGetApi();
    printf("NCLib %s (ABI %u), every function reachable through NclGetApi()\n", api->version,
           (unsigned)api->abi_version);
    expect(api->abi_version == NCL_ABI_VERSION, "the library's ABI is the one compiled against");

    /* The ledger is a built-in level-1 hook on every chain; it records what
       the rest of the demo does. */
    CHECK(NclLedgerEnable(1));

    demo_broadcasting();
    demo_exact_compare();
    demo_api_hook();
    demo_kernel_hook();
    demo_allocator();
    demo_fp_errors();
    demo_threads();
    demo_rng();

    section("9. The ledger: what ran, per subsystem and op");
    char *report = fetch_text(NclLedgerReport, "NclLedgerReport");
    fputs(report, stdout);
    if (report[0] && report[strlen(report) - 1] != '\n')
        putchar('\n');
    free(report);
    CHECK(NclLedgerEnable(0));

    section("10. NclInfo: the library describes itself (JSON): CPU features, the kernel variant\n   that runs, threads, hooks");
    char *info = fetch_text(NclInfo, "NclInfo");
    printf("%s\n", info);
    free(info);

    printf("\nncl_demo: all done\n");
    return EXIT_SUCCESS;
}
