/*
 * test_kernel_run.c: NclKernelRun, a level-2 chain run on one strided
 * loop. Its results are the array calls' bit for bit over every call
 * pattern a front end makes (strided, reversed, a broadcast scalar, in
 * place); a user's kernel hook sees its calls, split over the pool as an
 * array call of that size would be; FP flags and error modes behave as for
 * a top-level call; the ledger counts it; and what it refuses it refuses
 * before writing anything.
 */
#include <math.h>
#include "ncl_test.h"

#define N 1000

static void teardown(void)
{
    NclHooksReset();
    NclLedgerEnable(0);
    NclSetErrMode(NCL_FPE_ALL, NCL_ERRMODE_IGNORE);
    NclSetThreadingThreshold(65536);
}

/* out[i] = NclKernelRun's element i vs the array call's, as bytes. */
static void check_same_bytes(const void *a, const void *b, size_t n, const char *what)
{
    ck_assert_msg(memcmp(a, b, n) == 0, "%s: NclKernelRun and the array call differ", what);
}

/* The array call's result of a binary op over (x at sx, y at sy) into a
   fresh contiguous array, as reference. */
static void reference_binary(NclBinaryOp op, NclDType t, void *x, int64_t sx, void *y, int64_t sy,
                             int64_t n, void *ref)
{
    NclArray *a = NULL, *b = NULL, *o = NULL;
    NCL_CHECK_OK(NclFromData(t, 1, &n, &sx, x, 0, NULL, NULL, &a));
    NCL_CHECK_OK(NclFromData(t, 1, &n, &sy, y, 0, NULL, NULL, &b));
    NCL_CHECK_OK(NclBinary(op, a, b, &o, NULL));
    memcpy(ref, NclArrayData(o), (size_t)n * NclDTypeSize(t));
    NclArrayRelease(a);
    NclArrayRelease(b);
    NclArrayRelease(o);
}

START_TEST(test_patterns_match_array_calls)
{
    static double x[2 * N], y[N], out[2 * N], ref[N];
    for (int i = 0; i < 2 * N; i++) x[i] = (i % 7 == 0) ? -0.0 : 0.37 * (i - 500);
    for (int i = 0; i < N; i++) y[i] = (i % 11 == 0) ? NAN : 1.0 / (i + 1);
    const NclDType sig[3] = { NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64 };
    const int64_t d = (int64_t)sizeof(double);

    /* contiguous */
    char *args[3] = { (char *)x, (char *)y, (char *)out };
    int64_t steps[3] = { d, d, d };
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_BINARY, NCL_MULTIPLY, sig, args, N, steps));
    reference_binary(NCL_MULTIPLY, NCL_FLOAT64, x, d, y, d, N, ref);
    check_same_bytes(out, ref, sizeof ref, "contiguous");

    /* strided input, reversed input, strided output */
    args[0] = (char *)x;
    args[1] = (char *)&y[N - 1];
    args[2] = (char *)out;
    steps[0] = 2 * d;
    steps[1] = -d;
    steps[2] = 2 * d;
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_BINARY, NCL_SUBTRACT, sig, args, N, steps));
    reference_binary(NCL_SUBTRACT, NCL_FLOAT64, x, 2 * d, &y[N - 1], -d, N, ref);
    for (int i = 0; i < N; i++)
        ck_assert_msg(memcmp(&out[2 * i], &ref[i], sizeof(double)) == 0, "strided: element %d", i);

    /* a broadcast scalar (step 0) */
    double two = 2.5;
    args[0] = (char *)y;
    args[1] = (char *)&two;
    args[2] = (char *)out;
    steps[0] = d;
    steps[1] = 0;
    steps[2] = d;
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_BINARY, NCL_DIVIDE, sig, args, N, steps));
    reference_binary(NCL_DIVIDE, NCL_FLOAT64, y, d, &two, 0, N, ref);
    check_same_bytes(out, ref, N * sizeof(double), "scalar operand");

    /* in place: the output is input 0 exactly */
    memcpy(out, x, N * sizeof(double));
    args[0] = (char *)out;
    args[1] = (char *)y;
    args[2] = (char *)out;
    steps[1] = d;
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig, args, N, steps));
    reference_binary(NCL_ADD, NCL_FLOAT64, x, d, y, d, N, ref);
    check_same_bytes(out, ref, N * sizeof(double), "in place");
}
END_TEST

/* One of each other subsystem, against its array call. */
START_TEST(test_each_subsystem)
{
    static float f[N], fo[N];
    static int64_t i64[N], j64[N];
    static int32_t i32[N];
    static double dd[N], dref[N];
    static uint8_t b[N], bref[N];
    for (int i = 0; i < N; i++) {
        f[i] = (float)i * 0.25f - 3.0f;
        i64[i] = (int64_t)i * 977 - 400000;
        j64[i] = (int64_t)(N - i) * 1013 - 400000;
        i32[i] = i * 65537 - 30000000;
        dd[i] = i % 5 == 0 ? NAN : (double)i;
    }
    const int64_t n = N;
    NclArray *a = NULL, *c = NULL, *o = NULL;

    /* Unary sqrt float32 (negative inputs give NaN and raise invalid) */
    const NclDType usig[2] = { NCL_FLOAT32, NCL_FLOAT32 };
    char *uargs[2] = { (char *)f, (char *)fo };
    const int64_t usteps[2] = { 4, 4 };
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_UNARY, NCL_SQRT, usig, uargs, n, usteps));
    ck_assert_int_eq(NclGetFPErrors() & NCL_FPE_INVALID, NCL_FPE_INVALID);
    NCL_CHECK_OK(NclFromData(NCL_FLOAT32, 1, &n, NULL, f, 0, NULL, NULL, &a));
    NCL_CHECK_OK(NclUnary(NCL_SQRT, a, &o, NULL));
    check_same_bytes(fo, NclArrayData(o), sizeof fo, "sqrt");
    NclArrayRelease(a);
    NclArrayRelease(o);
    o = NULL;

    /* Compare less int64 */
    const NclDType csig[3] = { NCL_INT64, NCL_INT64, NCL_BOOL };
    char *cargs[3] = { (char *)i64, (char *)j64, (char *)b };
    const int64_t csteps[3] = { 8, 8, 1 };
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_COMPARE, NCL_CMP_LT, csig, cargs, n, csteps));
    for (int i = 0; i < N; i++) bref[i] = i64[i] < j64[i];
    check_same_bytes(b, bref, sizeof b, "less");

    /* IsUnary isnan float64 */
    const NclDType isig[2] = { NCL_FLOAT64, NCL_BOOL };
    char *iargs[2] = { (char *)dd, (char *)b };
    const int64_t isteps[2] = { 8, 1 };
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_ISUNARY, NCL_IS_NAN, isig, iargs, n, isteps));
    for (int i = 0; i < N; i++) ck_assert_int_eq(b[i], i % 5 == 0);

    /* Convert int32 -> float64 */
    const NclDType vsig[2] = { NCL_INT32, NCL_FLOAT64 };
    char *vargs[2] = { (char *)i32, (char *)dd };
    const int64_t vsteps[2] = { 4, 8 };
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_ASTYPE, vsig, vargs, n, vsteps));
    for (int i = 0; i < N; i++) ck_assert(dd[i] == (double)i32[i]);

    /* Ternary fma float64 against the array call */
    for (int i = 0; i < N; i++) dd[i] = 0.1 * i;
    const NclDType tsig[4] = { NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64 };
    static double t_out[N];
    char *targs[4] = { (char *)dd, (char *)dd, (char *)dd, (char *)t_out };
    const int64_t tsteps[4] = { 8, 8, 8, 8 };
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_TERNARY, NCL_FMA, tsig, targs, n, tsteps));
    NCL_CHECK_OK(NclFromData(NCL_FLOAT64, 1, &n, NULL, dd, 0, NULL, NULL, &c));
    NCL_CHECK_OK(NclTernary(NCL_FMA, c, c, c, &o, NULL));
    memcpy(dref, NclArrayData(o), sizeof dref);
    check_same_bytes(t_out, dref, sizeof dref, "fma");
    NclArrayRelease(c);
    NclArrayRelease(o);
}
END_TEST

/* ---- a user's kernel hook ------------------------------------------------- */

typedef struct seen {
    atomic_int calls;
    atomic_llong elements;
    atomic_int workers_mask; /* bit w: worker w ran a chunk */
    atomic_int max_nworkers;
} seen;

static NclStatus counting_kernel(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                                 int64_t n, const int64_t *steps)
{
    seen *s = self->user;
    atomic_fetch_add(&s->calls, 1);
    atomic_fetch_add(&s->elements, n);
    if (ctx->worker < 31) atomic_fetch_or(&s->workers_mask, 1 << ctx->worker);
    int m = atomic_load(&s->max_nworkers);
    while (ctx->nworkers > m && !atomic_compare_exchange_weak(&s->max_nworkers, &m, ctx->nworkers)) {
    }
    return NclKernelNext(self, ctx, args, n, steps);
}

/* A kernel node that counts into s and passes the call on. */
static NclKernelNode counting_node(seen *s)
{
    NclKernelNode k;
    memset(&k, 0, sizeof k);
    k.name = "counter";
    k.fn = counting_kernel;
    k.user = s;
    return k;
}

START_TEST(test_user_kernel_hook_runs)
{
    static double x[N], out[N];
    for (int i = 0; i < N; i++) x[i] = i;
    seen s = { 0 };
    NclKernelNode k = counting_node(&s);
    const NclDType sig[3] = { NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64 };
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig, &k.list));
    char *args[3] = { (char *)x, (char *)x, (char *)out };
    const int64_t steps[3] = { 8, 8, 8 };
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig, args, 10, steps));
    ck_assert_int_eq(atomic_load(&s.calls), 1);
    ck_assert_int_eq(atomic_load(&s.elements), 10);
    ck_assert(out[9] == 18.0);
    /* another op's chain is not this hook's */
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_BINARY, NCL_SUBTRACT, sig, args, 10, steps));
    ck_assert_int_eq(atomic_load(&s.calls), 1);
    NCL_CHECK_OK(NclKernelUnhook(&k.list));
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig, args, 10, steps));
    ck_assert_int_eq(atomic_load(&s.calls), 1);
}
END_TEST

/* What a front end caches: whether a chain is hooked, and the count that
   says when to ask again. */
START_TEST(test_hooked_and_generation)
{
    const NclDType sig[3] = { NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64 };
    int hooked = -1;
    NCL_CHECK_OK(NclKernelHooked(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig, &hooked));
    ck_assert_int_eq(hooked, 0);
    const uint64_t g0 = NclHooksGeneration();
    ck_assert_uint_eq(NclHooksGeneration(), g0);  /* reading moves nothing */

    seen s = { 0 };
    NclKernelNode k = counting_node(&s);
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig, &k.list));
    const uint64_t g1 = NclHooksGeneration();
    ck_assert_uint_gt(g1, g0);
    NCL_CHECK_OK(NclKernelHooked(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig, &hooked));
    ck_assert_int_eq(hooked, 1);
    NCL_CHECK_OK(NclKernelHooked(NCL_SUBSYSTEM_BINARY, NCL_MULTIPLY, sig, &hooked));
    ck_assert_int_eq(hooked, 0);
    NCL_CHECK_OK(NclKernelUnhook(&k.list));
    ck_assert_uint_gt(NclHooksGeneration(), g1);
    NCL_CHECK_OK(NclKernelHooked(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig, &hooked));
    ck_assert_int_eq(hooked, 0);

    /* a level-1 hook moves the count too */
    const uint64_t g2 = NclHooksGeneration();
    NCL_CHECK_OK(NclLedgerEnable(1));
    ck_assert_uint_gt(NclHooksGeneration(), g2);
    NCL_CHECK_OK(NclLedgerEnable(0));

    /* refusals leave *hooked at 0 */
    hooked = 1;
    const NclDType mixed[3] = { NCL_INT8, NCL_FLOAT32, NCL_UINT64 };
    NCL_CHECK_STATUS(NclKernelHooked(NCL_SUBSYSTEM_BINARY, NCL_ADD, mixed, &hooked), NCL_ERR_DTYPE);
    ck_assert_int_eq(hooked, 0);
    NCL_CHECK_STATUS(NclKernelHooked(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig, NULL),
                     NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclKernelHooked(NCL_SUBSYSTEM_INFO, 0, sig, &hooked), NCL_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(test_split_over_the_pool)
{
    enum { BIG = 200000 };
    double *x = malloc(BIG * sizeof *x), *out = malloc(BIG * sizeof *out),
           *one = malloc(BIG * sizeof *one);
    ck_assert(x && out && one);
    for (int i = 0; i < BIG; i++) x[i] = sin((double)i);
    const NclDType sig[3] = { NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64 };
    char *args[3] = { (char *)x, (char *)x, (char *)one };
    const int64_t steps[3] = { 8, 8, 8 };

    NCL_CHECK_OK(NclSetNumThreads(1));
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_BINARY, NCL_HYPOT, sig, args, BIG, steps));
    NCL_CHECK_OK(NclSetNumThreads(2));
    NCL_CHECK_OK(NclSetThreadingThreshold(4096));
    ck_assert_int_eq(NclGetThreadingThreshold(), 4096);

    seen s = { 0 };
    NclKernelNode k = counting_node(&s);
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_BINARY, NCL_HYPOT, sig, &k.list));
    args[2] = (char *)out;
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_BINARY, NCL_HYPOT, sig, args, BIG, steps));
    ck_assert_int_eq(atomic_load(&s.elements), BIG);
    ck_assert_int_eq(atomic_load(&s.max_nworkers), 2);
    ck_assert_int_eq(atomic_load(&s.workers_mask), 3);
    ck_assert_msg(memcmp(out, one, BIG * sizeof *out) == 0, "two threads differ from one");

    /* below the threshold the call stays on this thread */
    atomic_store(&s.workers_mask, 0);
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_BINARY, NCL_HYPOT, sig, args, 100, steps));
    ck_assert_int_eq(atomic_load(&s.workers_mask), 1);

    /* nor does it split while the user has unhooked Binary's threader */
    NclListHead *threader = NclGetApi()->heads[NCL_SUBSYSTEM_BINARY]->next;
    ck_assert_str_eq(NCL_CONTAINER_OF(threader, NclHook, list)->name, "ncl.threader");
    NCL_CHECK_OK(NclApiUnhook(threader));
    atomic_store(&s.workers_mask, 0);
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_BINARY, NCL_HYPOT, sig, args, BIG, steps));
    ck_assert_int_eq(atomic_load(&s.workers_mask), 1);
    NCL_CHECK_OK(NclHooksReset()); /* the threader back, the counter gone */
    NCL_CHECK_OK(NclSetNumThreads(0));
    free(x);
    free(out);
    free(one);
}
END_TEST

/* ---- flags and error modes ------------------------------------------------ */

START_TEST(test_fp_flags_and_modes)
{
    double x[4] = { 1.0, -1.0, 0.0, 2.0 }, z[4] = { 0.0, 0.0, 0.0, 1.0 }, out[4];
    const NclDType sig[3] = { NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64 };
    char *args[3] = { (char *)x, (char *)z, (char *)out };
    const int64_t steps[3] = { 8, 8, 8 };
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_BINARY, NCL_DIVIDE, sig, args, 4, steps));
    ck_assert_int_eq(NclGetFPErrors(), NCL_FPE_DIVIDE | NCL_FPE_INVALID);
    ck_assert(isinf(out[0]) && out[0] > 0 && isinf(out[1]) && out[1] < 0 && isnan(out[2]));
    /* the next call starts with no flags */
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig, args, 4, steps));
    ck_assert_int_eq(NclGetFPErrors(), 0);

    /* RAISE: the status says so, the output holds the result */
    NCL_CHECK_OK(NclSetErrMode(NCL_FPE_DIVIDE, NCL_ERRMODE_RAISE));
    out[3] = 0;
    NCL_CHECK_STATUS(NclKernelRun(NCL_SUBSYSTEM_BINARY, NCL_DIVIDE, sig, args, 4, steps),
                     NCL_ERR_FLOATING_POINT);
    ck_assert(out[3] == 2.0);

    /* integer division by zero is reported by the kernel itself */
    NCL_CHECK_OK(NclSetErrMode(NCL_FPE_ALL, NCL_ERRMODE_IGNORE));
    int32_t a[3] = { 7, INT32_MIN, 5 }, b[3] = { 0, -1, 2 }, q[3];
    const NclDType isig[3] = { NCL_INT32, NCL_INT32, NCL_INT32 };
    char *iargs[3] = { (char *)a, (char *)b, (char *)q };
    const int64_t isteps[3] = { 4, 4, 4 };
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_BINARY, NCL_FLOOR_DIVIDE, isig, iargs, 3, isteps));
    ck_assert_int_eq(NclGetFPErrors() & NCL_FPE_DIVIDE, NCL_FPE_DIVIDE);
    ck_assert_int_eq(q[2], 2);
}
END_TEST

START_TEST(test_ledger_counts_it)
{
    char buf[8192];
    double x[8] = { 0 }, out[8];
    const NclDType sig[2] = { NCL_FLOAT64, NCL_FLOAT64 };
    char *args[2] = { (char *)x, (char *)out };
    const int64_t steps[2] = { 8, 8 };
    NclLedgerReset();
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_UNARY, NCL_EXP, sig, args, 8, steps));
    NCL_CHECK_OK(NclLedgerReport(buf, sizeof buf, NULL));
    ck_assert_ptr_null(strstr(buf, "exp"));
    NCL_CHECK_OK(NclLedgerEnable(1));
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_UNARY, NCL_EXP, sig, args, 8, steps));
    NCL_CHECK_OK(NclKernelRun(NCL_SUBSYSTEM_UNARY, NCL_EXP, sig, args, 8, steps));
    NCL_CHECK_OK(NclLedgerReport(buf, sizeof buf, NULL));
    const char *row = strstr(buf, "exp");
    ck_assert_msg(row != NULL, "no exp row in\n%s", buf);
    unsigned long long calls = 0, errors = 0, elements = 0;
    ck_assert_int_eq(sscanf(row, "exp %llu %llu %llu", &calls, &errors, &elements), 3);
    ck_assert_uint_eq(calls, 2);
    ck_assert_uint_eq(elements, 16);
    NCL_CHECK_OK(NclLedgerEnable(0));
}
END_TEST

/* ---- refusals --------------------------------------------------------------- */

START_TEST(test_refused_before_writing)
{
    double x[16], out[16];
    for (int i = 0; i < 16; i++) x[i] = i, out[i] = -1.0;
    const NclDType sig[3] = { NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64 };
    char *args[3] = { (char *)x, (char *)x, (char *)out };
    int64_t steps[3] = { 8, 8, 8 };
    const NclSubsystem B = NCL_SUBSYSTEM_BINARY;

    NCL_CHECK_STATUS(NclKernelRun(B, NCL_ADD, sig, args, -1, steps), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("negative");
    NCL_CHECK_STATUS(NclKernelRun(B, NCL_ADD, sig, NULL, 4, steps), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclKernelRun(B, NCL_ADD, sig, args, 4, NULL), NCL_ERR_INVALID_ARGUMENT);
    char *nullarg[3] = { (char *)x, NULL, (char *)out };
    NCL_CHECK_STATUS(NclKernelRun(B, NCL_ADD, sig, nullarg, 4, steps), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("args[1]");
    NCL_CHECK_STATUS(NclKernelRun(B, NCL_ADD, NULL, args, 4, steps), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclKernelRun(B, 999, sig, args, 4, steps), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclKernelRun((NclSubsystem)77, NCL_ADD, sig, args, 4, steps),
                     NCL_ERR_INVALID_ARGUMENT);
    const NclDType mixed[3] = { NCL_INT8, NCL_FLOAT32, NCL_UINT64 };
    NCL_CHECK_STATUS(NclKernelRun(B, NCL_ADD, mixed, args, 4, steps), NCL_ERR_DTYPE);
    const NclDType bad[3] = { NCL_FLOAT64, (NclDType)99, NCL_FLOAT64 };
    NCL_CHECK_STATUS(NclKernelRun(B, NCL_ADD, bad, args, 4, steps), NCL_ERR_INVALID_ARGUMENT);
    /* subsystems whose kernels need aux data */
    const NclDType rsig[2] = { NCL_FLOAT64, NCL_FLOAT64 };
    NCL_CHECK_STATUS(NclKernelRun(NCL_SUBSYSTEM_REDUCE, 0, rsig, args, 4, steps),
                     NCL_ERR_UNSUPPORTED);
    NCL_CHECK_STATUS(NclKernelRun(NCL_SUBSYSTEM_SORT, 0, rsig, args, 4, steps),
                     NCL_ERR_UNSUPPORTED);

    /* overlaps that would make the result depend on element order */
    char *shifted[3] = { (char *)x, (char *)x, (char *)(x + 1) };
    NCL_CHECK_STATUS(NclKernelRun(B, NCL_ADD, sig, shifted, 8, steps), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("overlaps");
    int64_t reduce_steps[3] = { 0, 8, 0 };  /* NumPy's reduction: out aliased at step 0 */
    char *reduce_args[3] = { (char *)out, (char *)x, (char *)out };
    NCL_CHECK_STATUS(NclKernelRun(B, NCL_ADD, sig, reduce_args, 8, reduce_steps),
                     NCL_ERR_INVALID_ARGUMENT);
    char *other_step[3] = { (char *)x, (char *)x, (char *)x };
    int64_t other_steps[3] = { 16, 8, 8 };
    NCL_CHECK_STATUS(NclKernelRun(B, NCL_ADD, sig, other_step, 4, other_steps),
                     NCL_ERR_INVALID_ARGUMENT);
    for (int i = 0; i < 16; i++) {
        ck_assert(out[i] == -1.0);
        ck_assert(x[i] == i);
    }

    /* n == 0 touches nothing and needs no pointers; one element may alias freely */
    NCL_CHECK_OK(NclKernelRun(B, NCL_ADD, sig, NULL, 0, NULL));
    NCL_CHECK_OK(NclKernelRun(B, NCL_ADD, sig, reduce_args, 1, reduce_steps));
    ck_assert(out[0] == -1.0 + x[0]);
}
END_TEST

static Suite *kernel_run_suite(void)
{
    Suite *s = suite_create("kernel_run");
    TCase *tc = ncl_test_tcase(s, "results");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, test_patterns_match_array_calls);
    tcase_add_test(tc, test_each_subsystem);
    tc = ncl_test_tcase(s, "hooks_threads");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, test_user_kernel_hook_runs);
    tcase_add_test(tc, test_hooked_and_generation);
    tcase_add_test(tc, test_split_over_the_pool);
    tc = ncl_test_tcase(s, "flags_ledger_refusals");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, test_fp_flags_and_modes);
    tcase_add_test(tc, test_ledger_counts_it);
    tcase_add_test(tc, test_refused_before_writing);
    return s;
}

NCL_TEST_MAIN(kernel_run_suite)
