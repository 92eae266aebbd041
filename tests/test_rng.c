/*
 * test_rng.c: the RNG subsystem's entry (NclRng) through the public API:
 * values NumPy 1.24's Generator(PCG64(42)) gives for each op (pinned here,
 * the full comparison being tests/diff/diff_rng*.py), draws in C order of
 * the result whatever the output's layout, broadcast parameter arrays,
 * identical values and final state at any thread count and split (a
 * pending 32-bit half included), a kernel hook taking effect, the ledger
 * and NclInfo, and every refusal, each leaving the output and the
 * generator's state as they were.
 */
#include <inttypes.h>
#include "ncl_test.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static NclRngGen *make_gen(NclBitGen kind, uint32_t seed)
{
    NclSeedSequence *ss = NULL;
    NclRngGen *g = NULL;
    NCL_CHECK_OK(NclSeedSequenceCreate(&seed, 1, NULL, 0, &ss));
    NCL_CHECK_OK(NclRngGenCreate(kind, ss, &g));
    NclSeedSequenceFree(ss);
    return g;
}

/* The generator's state blob, malloc'ed; *len its length. */
static unsigned char *state_of(const NclRngGen *g, size_t *len)
{
    NCL_CHECK_OK(NclRngGenGetState(g, NULL, 0, len));
    unsigned char *buf = malloc(*len);
    ck_assert_ptr_nonnull(buf);
    NCL_CHECK_OK(NclRngGenGetState(g, buf, *len, len));
    return buf;
}

static int same_state(const NclRngGen *a, const NclRngGen *b)
{
    size_t la, lb;
    unsigned char *sa = state_of(a, &la), *sb = state_of(b, &lb);
    const int same = la == lb && memcmp(sa, sb, la) == 0;
    free(sa);
    free(sb);
    return same;
}

static NclStatus draw(NclRngOp op, NclRngGen *g, NclDType dt, int64_t n, NclArray **out)
{
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = dt;
    p.ndim = 1;
    p.shape = &n;
    *out = NULL;
    return NclRng(op, g, NULL, NULL, out, &p);
}

static void check_bits(const NclArray *a, const uint64_t *want, int n)
{
    const size_t w = NclDTypeSize(NclArrayDType(a));
    ck_assert_int_eq(NclArraySize(a), n);
    for (int i = 0; i < n; i++)
        ck_assert_msg(ncl_test_load_bits(ncl_test_ptr(a, i), w) == want[i],
                      "element %d: %#" PRIx64 ", NumPy %#" PRIx64, i,
                      ncl_test_load_bits(ncl_test_ptr(a, i), w), want[i]);
}

/* ---- NumPy's values ----------------------------------------------------------------------- */

/* numpy.random.Generator(numpy.random.PCG64(42)), NumPy 1.24.2: each call
   below from a fresh generator. */
START_TEST(t_numpy_values)
{
    static const uint64_t raw[] = {0xc621fbcd16d92688, 0x705a5661a791ffc1, 0xdbcd12c26eda1624,
                                   0xb286b60e1600888d};
    static const uint64_t random64[] = {0x3fe8c43f79a2db24, 0x3fdc16959869e47e, 0x3feb79a2584ddb42,
                                        0x3fe650d6c1c2c011};
    static const uint64_t random32[] = {0x3db6c930, 0x3f4621fb, 0x3f2791ff, 0x3ee0b4ac, 0x3eddb42c};
    static const uint64_t normal[] = {0x3fd3807c1104fc6b, 0xbff0a3c65fca9a7e, 0x3fe803b239e77350,
                                      0x3fee191b2d157f36};
    static const uint64_t ints[] = {14, 84, 8, 12, 77, 75, 99, 56};
    /* normal(loc=[0, 10, -5], scale=[[1], [0]]): shape (2, 3) */
    static const uint64_t bnormal[] = {0x3fd3807c1104fc6b, 0x4021eb873406acb0, 0xc010ff89b8c31196,
                                       0x0, 0x4024000000000000, 0xc014000000000000};
    NclArray *out;
    NclRngGen *g;

    g = make_gen(NCL_BITGEN_PCG64, 42);
    NCL_CHECK_OK(draw(NCL_RNG_RAW, g, NCL_DTYPE_DEFAULT, 4, &out));
    ck_assert_int_eq(NclArrayDType(out), NCL_UINT64);
    check_bits(out, raw, 4);
    NclArrayRelease(out);
    NclRngGenFree(g);

    g = make_gen(NCL_BITGEN_PCG64, 42);
    NCL_CHECK_OK(draw(NCL_RNG_RANDOM, g, NCL_DTYPE_DEFAULT, 4, &out));
    ck_assert_int_eq(NclArrayDType(out), NCL_FLOAT64);
    check_bits(out, random64, 4);
    NclArrayRelease(out);
    NclRngGenFree(g);

    g = make_gen(NCL_BITGEN_PCG64, 42);
    NCL_CHECK_OK(draw(NCL_RNG_RANDOM, g, NCL_FLOAT32, 5, &out));
    check_bits(out, random32, 5);
    NclArrayRelease(out);
    NclRngGenFree(g);

    g = make_gen(NCL_BITGEN_PCG64, 42);
    NCL_CHECK_OK(draw(NCL_RNG_STANDARD_NORMAL, g, NCL_DTYPE_DEFAULT, 4, &out));
    check_bits(out, normal, 4);
    NclArrayRelease(out);
    NclRngGenFree(g);

    g = make_gen(NCL_BITGEN_PCG64, 42);
    NclArray *hi = ncl_test_arr_i(NCL_INT64, 0, NULL, (const int64_t[]){100}, 1);
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = NCL_UINT8;
    p.ndim = 1;
    p.shape = NCL_DIMS(8);
    out = NULL;
    NCL_CHECK_OK(NclRng(NCL_RNG_INTEGERS, g, NULL, hi, &out, &p));
    check_bits(out, ints, 8);
    NclArrayRelease(out);
    NclArrayRelease(hi);
    NclRngGenFree(g);

    g = make_gen(NCL_BITGEN_PCG64, 42);
    NclArray *loc = ncl_test_arr_d(NCL_FLOAT64, 1, NCL_DIMS(3), (const double[]){0, 10, -5}, 3);
    NclArray *scale = ncl_test_arr_d(NCL_FLOAT64, 2, NCL_DIMS(2, 1), (const double[]){1, 0}, 2);
    out = NULL;
    NCL_CHECK_OK(NclRng(NCL_RNG_NORMAL, g, loc, scale, &out, NULL));
    ck_assert_int_eq(NclArrayNDim(out), 2);
    ck_assert_int_eq(NclArrayShape(out)[0], 2);
    ck_assert_int_eq(NclArrayShape(out)[1], 3);
    check_bits(out, bnormal, 6);
    NclArrayRelease(out);
    NclArrayRelease(loc);
    NclArrayRelease(scale);
    NclRngGenFree(g);
}
END_TEST

/* ---- layouts -------------------------------------------------------------------------------- */

/* A provided output of any layout is filled in C order of the result: the
   same values as a new C-ordered array, element for element. */
START_TEST(t_layouts)
{
    static const NclRngOp opl[] = {NCL_RNG_RANDOM, NCL_RNG_STANDARD_NORMAL, NCL_RNG_RAW};
    const NclRngOp op = opl[_i];
    const int64_t shape[3] = {3, 4, 5};
    for (int l = 0; l < NCL_TEST_NLAYOUTS; l++) {
        NclRngGen *g1 = make_gen(NCL_BITGEN_PCG64, 7), *g2 = make_gen(NCL_BITGEN_PCG64, 7);
        const NclDType dt = op == NCL_RNG_RAW ? NCL_UINT64 : NCL_FLOAT64;
        NclArray *ref = NULL, *c = ncl_test_new(dt, 3, shape);
        NclArray *dst = ncl_test_layout_of(c, (ncl_test_layout)l);
        NclParams p = NCL_PARAMS_INIT;
        p.ndim = 3;
        p.shape = shape;
        p.dtype = dt;
        NCL_CHECK_OK(NclRng(op, g1, NULL, NULL, &ref, &p));
        NCL_CHECK_OK(NclRng(op, g2, NULL, NULL, &dst, NULL));
        NCL_CHECK_ARRAYS(dst, ref, NCL_TEST_SIGNED_ZERO, 0u);
        ck_assert_msg(same_state(g1, g2), "layout %s: generator states differ",
                      ncl_test_layout_name((ncl_test_layout)l));
        NclArrayRelease(ref);
        NclArrayRelease(dst);
        NclArrayRelease(c);
        NclRngGenFree(g1);
        NclRngGenFree(g2);
    }
}
END_TEST

/* ---- threads ---------------------------------------------------------------------------- */

/* Every split gives the serial values and the serial final state: RAW,
   RANDOM (float64, and float32 with a half pending before and after), and
   UNIFORM, from every generator (the ones that cannot skip run serially),
   for counts around the split points and thread counts 2 and 3. */
START_TEST(t_threads_same_bits)
{
    const NclBitGen kind = (NclBitGen)_i;
    static const struct { NclRngOp op; NclDType dt; } cases[] = {
        {NCL_RNG_RAW, NCL_UINT64},      {NCL_RNG_RANDOM, NCL_FLOAT64},
        {NCL_RNG_RANDOM, NCL_FLOAT32},  {NCL_RNG_UNIFORM, NCL_FLOAT64},
        {NCL_RNG_STANDARD_NORMAL, NCL_FLOAT64}, {NCL_RNG_STANDARD_EXPONENTIAL, NCL_FLOAT64},
        {NCL_RNG_STANDARD_NORMAL, NCL_FLOAT32}};
    /* the ziggurat's float64 ops split from about 3e4 values per thread on */
    static const int64_t counts[] = {1, 2, 5, 1000, 4099, 100003, 300007};
    const int threads0 = NclGetNumThreads();
    const int64_t th0 = NclGetThreadingThreshold();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
            for (int pending = 0; pending < 2; pending++)
                for (int nt = 2; nt <= 3; nt++) {
                    NclRngGen *serial = make_gen(kind, 1234), *split = make_gen(kind, 1234);
                    NclArray *a = NULL, *b = NULL, *one = NULL;
                    if (pending) { /* one float32 leaves the other half of a word buffered */
                        NCL_CHECK_OK(draw(NCL_RNG_RANDOM, serial, NCL_FLOAT32, 1, &one));
                        NclArrayRelease(one);
                        NCL_CHECK_OK(draw(NCL_RNG_RANDOM, split, NCL_FLOAT32, 1, &one));
                        NclArrayRelease(one);
                    }
                    NCL_CHECK_OK(NclSetNumThreads(1));
                    NCL_CHECK_OK(draw(cases[c].op, serial, cases[c].dt, counts[k], &a));
                    NCL_CHECK_OK(NclSetNumThreads(nt));
                    NCL_CHECK_OK(NclSetThreadingThreshold(1));
                    NCL_CHECK_OK(draw(cases[c].op, split, cases[c].dt, counts[k], &b));
                    char why[256];
                    ck_assert_msg(ncl_test_compare(b, a, NCL_TEST_SIGNED_ZERO, 0u, why, sizeof why),
                                  "%s, op %d, n %" PRId64 ", %d threads, pending %d: %s",
                                  NclDTypeName(cases[c].dt), (int)cases[c].op, counts[k], nt,
                                  pending, why);
                    ck_assert_msg(same_state(serial, split), "%s, op %d, n %" PRId64 ", %d threads, "
                                  "pending %d: generator states differ", NclDTypeName(cases[c].dt),
                                  (int)cases[c].op, counts[k], nt, pending);
                    NCL_CHECK_OK(NclSetThreadingThreshold(th0));
                    NclArrayRelease(a);
                    NclArrayRelease(b);
                    /* and the streams go on together (a float32 reads the pending half) */
                    NCL_CHECK_OK(draw(NCL_RNG_RANDOM, serial, NCL_FLOAT32, 3, &a));
                    NCL_CHECK_OK(draw(NCL_RNG_RANDOM, split, NCL_FLOAT32, 3, &b));
                    NCL_CHECK_ARRAYS(b, a, NCL_TEST_SIGNED_ZERO, 0u);
                    NclArrayRelease(a);
                    NclArrayRelease(b);
                    NclRngGenFree(serial);
                    NclRngGenFree(split);
                }
    NCL_CHECK_OK(NclSetNumThreads(threads0));
    NCL_CHECK_OK(NclSetThreadingThreshold(th0));
}
END_TEST

/* ---- hooks, ledger, info ------------------------------------------------------------------- */

static NclStatus sevens(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args, int64_t n,
                        const int64_t *steps)
{
    (void)self;
    const NclRngKernelAux *aux = ctx->aux;
    ck_assert_ptr_nonnull(aux);
    ck_assert_ptr_nonnull(aux->gen);
    ck_assert_int_eq(ctx->nin, 0);
    for (int64_t i = 0; i < n; i++) {
        const double v = 7.0;
        memcpy(args[0] + i * steps[0], &v, sizeof v);
    }
    return NCL_OK;
}

static NclStatus count_rng(NclHook *self, NclRngOp op, NclRngGen *gen, const NclArray *a,
                           const NclArray *b, NclArray **out, const NclParams *params)
{
    ++*(int *)self->user;
    return NclRngNext(self, op, gen, a, b, out, params);
}

START_TEST(t_hooks_ledger_info)
{
    NclRngGen *g = make_gen(NCL_BITGEN_PHILOX, 3);
    NclKernelNode k = {0};
    k.fn = sevens;
    k.name = "sevens";
    const NclDType sig[1] = {NCL_FLOAT64};
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_RNG, NCL_RNG_KERNEL_OP(NCL_RNG_RANDOM, NCL_BITGEN_PHILOX),
                               sig, &k.list));
    int calls = 0;
    NclHook h = {0};
    h.name = "count_rng";
    h.user = &calls;
    h.fn.rng = count_rng;
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_RNG, &h.list));
    NCL_CHECK_OK(NclLedgerEnable(1));
    NclLedgerReset();

    NclArray *out = NULL;
    NCL_CHECK_OK(draw(NCL_RNG_RANDOM, g, NCL_FLOAT64, 5, &out));
    for (int i = 0; i < 5; i++) ck_assert_double_eq(ncl_test_get_d(out, i), 7.0);
    NclArrayRelease(out);
    ck_assert_int_eq(calls, 1);
    char buf[1 << 14];
    size_t need;
    NCL_CHECK_OK(NclLedgerReport(buf, sizeof buf, &need));
    ck_assert_msg(strstr(buf, "random") && strstr(buf, "sevens"), "%s", buf);
    /* another (op, generator, dtype) is not hooked */
    NCL_CHECK_OK(draw(NCL_RNG_RANDOM, g, NCL_FLOAT32, 5, &out));
    ck_assert(ncl_test_get_d(out, 0) != 7.0);
    NclArrayRelease(out);

    NCL_CHECK_OK(NclInfo(buf, sizeof buf, &need));
    ck_assert_msg(strstr(buf, "\"rng\"") && strstr(buf, "count_rng"), "%s", buf);

    /* a loop call carries no generator: NclKernelRun does not run RNG kernels */
    double one = 0;
    char *args[1] = {(char *)&one};
    const int64_t steps[1] = {8};
    NCL_CHECK_STATUS(NclKernelRun(NCL_SUBSYSTEM_RNG, NCL_RNG_KERNEL_OP(NCL_RNG_RANDOM, NCL_BITGEN_PHILOX),
                                  sig, args, 1, steps),
                     NCL_ERR_UNSUPPORTED);
    ck_assert_double_eq(one, 0);

    NCL_CHECK_OK(NclLedgerEnable(0));
    NCL_CHECK_OK(NclApiUnhook(&h.list));
    NCL_CHECK_OK(NclKernelUnhook(&k.list));
    NCL_CHECK_OK(draw(NCL_RNG_RANDOM, g, NCL_FLOAT64, 5, &out));
    ck_assert(ncl_test_get_d(out, 0) != 7.0);
    NclArrayRelease(out);
    NclRngGenFree(g);
}
END_TEST

/* ---- refusals --------------------------------------------------------------------------------- */

/* The call is refused with status st, the message naming what; the
   generator's state and the provided output are unchanged. */
static void refused(NclRngOp op, NclRngGen *g, const NclArray *a, const NclArray *b, NclArray *given,
                    const NclParams *p, NclStatus st, const char *what)
{
    size_t l0, l1;
    unsigned char *s0 = state_of(g, &l0);
    uint64_t h0 = given ? ncl_test_hash(given) : 0;
    NclArray *out = given;
    NCL_CHECK_STATUS(NclRng(op, g, a, b, &out, p), st);
    NCL_CHECK_MESSAGE_HAS(what);
    ck_assert_ptr_eq(out, given);
    if (given) ck_assert_uint_eq(ncl_test_hash(given), h0);
    unsigned char *s1 = state_of(g, &l1);
    ck_assert(l0 == l1 && memcmp(s0, s1, l0) == 0);
    free(s0);
    free(s1);
}

START_TEST(t_refusals)
{
    NclRngGen *g = make_gen(NCL_BITGEN_PCG64, 5);
    NclArray *out = NULL;
    NclParams p = NCL_PARAMS_INIT;
    const int64_t n4 = 4;
    NclArray *f4 = ncl_test_arr_d(NCL_FLOAT64, 1, NCL_DIMS(4), (const double[]){1, 2, 3, 4}, 4);
    NclArray *i4 = ncl_test_arr_i(NCL_INT64, 1, NCL_DIMS(4), (const int64_t[]){0, 1, 2, 3}, 4);
    NclArray *neg = ncl_test_arr_d(NCL_FLOAT64, 1, NCL_DIMS(2), (const double[]){1, -1}, 2);
    NclArray *negz = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){-0.0}, 1);
    NclArray *inf = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){INFINITY}, 1);
    NclArray *nan = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){NAN}, 1);
    NclArray *zero = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){0}, 1);
    NclArray *i5 = ncl_test_arr_i(NCL_INT64, 0, NULL, (const int64_t[]){5}, 1);
    NclArray *im1 = ncl_test_arr_i(NCL_INT64, 0, NULL, (const int64_t[]){-1}, 1);
    NclArray *i257 = ncl_test_arr_i(NCL_INT64, 0, NULL, (const int64_t[]){257}, 1);
    NclArray *o4 = ncl_test_arr_d(NCL_FLOAT64, 1, NCL_DIMS(4), (const double[]){9, 9, 9, 9}, 4);
    NclArray *o3 = ncl_test_arr_d(NCL_FLOAT64, 1, NCL_DIMS(3), (const double[]){9, 9, 9}, 3);
    NclArray *o4f = ncl_test_arr_d(NCL_FLOAT32, 1, NCL_DIMS(4), (const double[]){9, 9, 9, 9}, 4);

    /* NULLs and values that are not what they claim */
    NCL_CHECK_STATUS(NclRng(NCL_RNG_RANDOM, NULL, NULL, NULL, &out, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("gen is NULL");
    NCL_CHECK_STATUS(NclRng(NCL_RNG_RANDOM, g, NULL, NULL, NULL, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("out is NULL");
    refused((NclRngOp)NCL_RNG_NOPS, g, NULL, NULL, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "NclRngOp");
    refused((NclRngOp)-1, g, NULL, NULL, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "NclRngOp");
    /* parameters an op does not take, or lacks */
    refused(NCL_RNG_RANDOM, g, f4, NULL, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "must be NULL");
    refused(NCL_RNG_EXPONENTIAL, g, NULL, f4, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "must be NULL");
    refused(NCL_RNG_INTEGERS, g, i4, NULL, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "high");
    /* params */
    p.where = i4;
    refused(NCL_RNG_RANDOM, g, NULL, NULL, NULL, &p, NCL_ERR_INVALID_ARGUMENT, "where");
    p = (NclParams)NCL_PARAMS_INIT;
    p.ndim = -1;
    refused(NCL_RNG_RANDOM, g, NULL, NULL, NULL, &p, NCL_ERR_INVALID_ARGUMENT, "ndim");
    p.ndim = 2;
    refused(NCL_RNG_RANDOM, g, NULL, NULL, NULL, &p, NCL_ERR_INVALID_ARGUMENT, "shape is NULL");
    p.ndim = 1;
    p.shape = NCL_DIMS(-3);
    refused(NCL_RNG_RANDOM, g, NULL, NULL, NULL, &p, NCL_ERR_INVALID_ARGUMENT, "shape[0]");
    p.ndim = 2;
    p.shape = NCL_DIMS(INT64_MAX, 4);
    refused(NCL_RNG_RANDOM, g, NULL, NULL, NULL, &p, NCL_ERR_SHAPE, "");
    p = (NclParams)NCL_PARAMS_INIT;
    p.size = 4;
    refused(NCL_RNG_RANDOM, g, NULL, NULL, NULL, &p, NCL_ERR_INVALID_ARGUMENT, "params->size");
    /* dtypes */
    p = (NclParams)NCL_PARAMS_INIT;
    p.dtype = NCL_INT32;
    refused(NCL_RNG_RANDOM, g, NULL, NULL, NULL, &p, NCL_ERR_DTYPE, "float64 or float32");
    p.dtype = NCL_FLOAT32;
    refused(NCL_RNG_NORMAL, g, NULL, NULL, NULL, &p, NCL_ERR_DTYPE, "float64 only");
    refused(NCL_RNG_RANDOM, g, NULL, NULL, o4, &p, NCL_ERR_DTYPE, "params->dtype");
    p.dtype = NCL_FLOAT64;
    refused(NCL_RNG_INTEGERS, g, NULL, i5, NULL, &p, NCL_ERR_DTYPE, "integers or bool");
    p.dtype = NCL_DTYPE_DEFAULT;
    refused(NCL_RNG_INTEGERS, g, NULL, f4, NULL, NULL, NCL_ERR_DTYPE, "integer");
    refused(NCL_RNG_RAW, g, NULL, NULL, o4, NULL, NCL_ERR_DTYPE, "uint64");
    /* shapes */
    p.ndim = 1;
    p.shape = &n4;
    refused(NCL_RNG_RANDOM, g, NULL, NULL, o3, &p, NCL_ERR_SHAPE, "params->shape");
    refused(NCL_RNG_NORMAL, g, o3, NULL, NULL, &p, NCL_ERR_BROADCAST, "loc");
    refused(NCL_RNG_NORMAL, g, f4, o3, NULL, NULL, NCL_ERR_BROADCAST, "broadcast");
    /* NumPy's domains */
    refused(NCL_RNG_NORMAL, g, NULL, neg, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "scale < 0");
    refused(NCL_RNG_NORMAL, g, NULL, negz, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "scale < 0");
    refused(NCL_RNG_EXPONENTIAL, g, neg, NULL, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "scale < 0");
    refused(NCL_RNG_UNIFORM, g, zero, inf, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "exceeds");
    refused(NCL_RNG_UNIFORM, g, nan, zero, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "exceeds");
    refused(NCL_RNG_UNIFORM, g, f4, zero, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "high - low < 0");
    refused(NCL_RNG_UNIFORM, g, zero, negz, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "high - low < 0");
    refused(NCL_RNG_INTEGERS, g, i5, i5, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "low >= high");
    p = (NclParams)NCL_PARAMS_INIT;
    p.endpoint = 1;
    refused(NCL_RNG_INTEGERS, g, i5, i4, NULL, &p, NCL_ERR_INVALID_ARGUMENT, "low > high");
    p.dtype = NCL_UINT8;
    refused(NCL_RNG_INTEGERS, g, im1, i5, NULL, &p, NCL_ERR_INVALID_ARGUMENT, "low is out of bounds for uint8");
    p.endpoint = 0;
    refused(NCL_RNG_INTEGERS, g, NULL, i257, NULL, &p, NCL_ERR_INVALID_ARGUMENT, "high is out of bounds for uint8");
    p.dtype = NCL_BOOL;
    refused(NCL_RNG_INTEGERS, g, NULL, i5, NULL, &p, NCL_ERR_INVALID_ARGUMENT, "high is out of bounds for bool");
    /* outputs */
    NclArray *ro = NULL;
    NCL_CHECK_OK(NclFromData(NCL_FLOAT32, 1, NCL_DIMS(4), NULL, NclArrayData(o4f), 0, NULL, NULL, &ro));
    refused(NCL_RNG_RANDOM, g, NULL, NULL, ro, NULL, NCL_ERR_READONLY, "read-only");
    NclArray *self = NULL; /* every row the same four doubles */
    NCL_CHECK_OK(NclFromData(NCL_FLOAT64, 2, NCL_DIMS(3, 4), NCL_DIMS(0, 8), NclArrayData(o4),
                             NCL_ARRAY_WRITEABLE, NULL, NULL, &self));
    refused(NCL_RNG_RANDOM, g, NULL, NULL, self, NULL, NCL_ERR_INVALID_ARGUMENT, "internal overlap");
    NclArray *dev = NULL;
    NCL_CHECK_OK(NclFromDataKind(NCL_FLOAT64, 1, NCL_DIMS(4), NULL, NclArrayData(o4),
                                 NCL_ARRAY_WRITEABLE, NULL, NULL, NCL_MEM_DEVICE, 3, &dev));
    refused(NCL_RNG_RANDOM, g, NULL, NULL, dev, NULL, NCL_ERR_DEVICE_MEMORY, "device");
    refused(NCL_RNG_NORMAL, g, dev, NULL, NULL, NULL, NCL_ERR_DEVICE_MEMORY, "input a");
    NclArrayRelease(dev);

    /* NumPy accepts these: NaN scale, infinite loc, scale 0 */
    out = NULL;
    NCL_CHECK_OK(NclRng(NCL_RNG_NORMAL, g, inf, nan, &out, NULL));
    ck_assert(isnan(ncl_test_get_d(out, 0)));
    NclArrayRelease(out);
    out = NULL;
    NCL_CHECK_OK(NclRng(NCL_RNG_NORMAL, g, f4, zero, &out, NULL));
    for (int i = 0; i < 4; i++) ck_assert_double_eq(ncl_test_get_d(out, i), i + 1);
    NclArrayRelease(out);

    NclArrayRelease(self);
    NclArrayRelease(ro);
    NclArray *all[] = {f4, i4, neg, negz, inf, nan, zero, i5, im1, i257, o4, o3, o4f};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) NclArrayRelease(all[i]);
    NclRngGenFree(g);
}
END_TEST

/* ---- gamma, beta, Poisson, binomial, shuffle, permutation ------------------------------------ */

/* One call from a fresh Generator(PCG64(42)): NumPy 1.24.2's bits. */
static void more_values(NclRngOp op, NclDType dt, const NclArray *a, const NclArray *b,
                        const uint64_t *want)
{
    NclRngGen *g = make_gen(NCL_BITGEN_PCG64, 42);
    NclParams p = NCL_PARAMS_INIT;
    int64_t n = 3;
    p.dtype = dt;
    p.ndim = 1;
    p.shape = &n;
    NclArray *out = NULL;
    NCL_CHECK_OK(NclRng(op, g, a, b, &out, &p));
    check_bits(out, want, 3);
    NclArrayRelease(out);
    NclRngGenFree(g);
}

START_TEST(t_numpy_more)
{
    NclArray *half = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){0.5}, 1);
    NclArray *s25 = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){2.5}, 1);
    NclArray *three = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){3.0}, 1);
    NclArray *two = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){2.0}, 1);
    NclArray *lam = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){12.0}, 1);
    NclArray *n100 = ncl_test_arr_i(NCL_INT32, 0, NULL, (const int64_t[]){100}, 1);
    NclArray *p04 = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){0.4}, 1);
    /* standard_gamma(0.5, 3), standard_gamma(2.5, 3, dtype=float32),
       gamma(3, 2, 3), beta(0.5, 0.5, 3), poisson(12, 3), binomial(100, 0.4, 3) */
    more_values(NCL_RNG_STANDARD_GAMMA, NCL_FLOAT64, half, NULL,
                (const uint64_t[]){0x3fe9be77172862e0, 0x3ff47c147aa1879b, 0x3f822a1b12ca8ed7});
    more_values(NCL_RNG_STANDARD_GAMMA, NCL_FLOAT32, s25, NULL,
                (const uint64_t[]){0x40187823, 0x3f3ce5dd, 0x4030f8c9});
    more_values(NCL_RNG_GAMMA, NCL_DTYPE_DEFAULT, three, two,
                (const uint64_t[]){0x4019911f1c9bdc84, 0x40205b9b4c4260a4, 0x40170c2207753daa});
    more_values(NCL_RNG_BETA, NCL_DTYPE_DEFAULT, half, half,
                (const uint64_t[]){0x3fe836c18fb2bdf8, 0x3f82e849e8953654, 0x3fb329cd5bdda234});
    more_values(NCL_RNG_POISSON, NCL_DTYPE_DEFAULT, lam, NULL, (const uint64_t[]){15, 16, 7});
    more_values(NCL_RNG_BINOMIAL, NCL_DTYPE_DEFAULT, n100, p04, (const uint64_t[]){46, 31, 34});

    /* permutation(6) and shuffle(arange(6).reshape(3, 2)) */
    NclRngGen *g = make_gen(NCL_BITGEN_PCG64, 42);
    NclArray *six = ncl_test_arr_i(NCL_UINT8, 0, NULL, (const int64_t[]){6}, 1), *out = NULL;
    NCL_CHECK_OK(NclRng(NCL_RNG_PERMUTATION, g, six, NULL, &out, NULL));
    ck_assert_int_eq(NclArrayDType(out), NCL_INT64);
    check_bits(out, (const uint64_t[]){3, 2, 5, 4, 1, 0}, 6);
    NclArrayRelease(out);
    NclRngGenFree(g);
    g = make_gen(NCL_BITGEN_PCG64, 42);
    NclArray *x = ncl_test_arr_i(NCL_INT16, 2, NCL_DIMS(3, 2), (const int64_t[]){0, 1, 2, 3, 4, 5}, 6);
    NCL_CHECK_OK(NclRng(NCL_RNG_SHUFFLE, g, NULL, NULL, &x, NULL));
    check_bits(x, (const uint64_t[]){4, 5, 2, 3, 0, 1}, 6);
    NclArrayRelease(x);
    NclRngGenFree(g);
    NclArray *all[] = {half, s25, three, two, lam, n100, p04, six};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) NclArrayRelease(all[i]);
}
END_TEST

START_TEST(t_refusals_more)
{
    NclRngGen *g = make_gen(NCL_BITGEN_PHILOX, 9);
    NclParams p = NCL_PARAMS_INIT;
    NclArray *one = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){1}, 1);
    NclArray *neg = ncl_test_arr_d(NCL_FLOAT64, 1, NCL_DIMS(2), (const double[]){1, -1}, 2);
    NclArray *negz = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){-0.0}, 1);
    NclArray *zero = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){0}, 1);
    NclArray *nan = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){NAN}, 1);
    NclArray *nan1 = ncl_test_arr_d(NCL_FLOAT64, 1, NCL_DIMS(1), (const double[]){NAN}, 1);
    NclArray *big = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){1e19}, 1);
    NclArray *negbig = ncl_test_arr_d(NCL_FLOAT64, 1, NCL_DIMS(2), (const double[]){-1, 1e19}, 2);
    NclArray *p11 = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){1.1}, 1);
    NclArray *n5 = ncl_test_arr_i(NCL_INT64, 0, NULL, (const int64_t[]){5}, 1);
    NclArray *nm1 = ncl_test_arr_i(NCL_INT8, 1, NCL_DIMS(1), (const int64_t[]){-1}, 1);
    NclArray *nhuge = ncl_test_arr_i(NCL_UINT64, 0, NULL, (const int64_t[]){INT64_MIN}, 1);
    NclArray *o2 = ncl_test_arr_d(NCL_FLOAT64, 1, NCL_DIMS(2), (const double[]){9, 9}, 2);
    NclArray *x = ncl_test_arr_d(NCL_FLOAT64, 2, NCL_DIMS(2, 3), (const double[]){1, 2, 3, 4, 5, 6}, 6);

    /* required parameters, result dtypes */
    refused(NCL_RNG_STANDARD_GAMMA, g, NULL, NULL, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "shape (input a)");
    refused(NCL_RNG_GAMMA, g, NULL, one, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "shape (input a)");
    refused(NCL_RNG_BETA, g, one, NULL, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "b (input b)");
    refused(NCL_RNG_BINOMIAL, g, n5, NULL, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "p (input b)");
    refused(NCL_RNG_POISSON, g, one, one, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "must be NULL");
    p.dtype = NCL_FLOAT32;
    refused(NCL_RNG_GAMMA, g, one, one, NULL, &p, NCL_ERR_DTYPE, "float64 only");
    refused(NCL_RNG_POISSON, g, one, NULL, NULL, &p, NCL_ERR_DTYPE, "int64 only");
    refused(NCL_RNG_BINOMIAL, g, one, one, NULL, NULL, NCL_ERR_DTYPE, "n is read from integer");
    /* NumPy's domains and messages */
    refused(NCL_RNG_STANDARD_GAMMA, g, neg, NULL, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "shape < 0");
    refused(NCL_RNG_STANDARD_GAMMA, g, negz, NULL, NULL, &p, NCL_ERR_INVALID_ARGUMENT, "shape < 0");
    refused(NCL_RNG_GAMMA, g, one, negz, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "scale < 0");
    refused(NCL_RNG_GAMMA, g, neg, neg, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "shape < 0");
    refused(NCL_RNG_BETA, g, zero, one, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "a <= 0");
    refused(NCL_RNG_BETA, g, one, negz, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "b <= 0");
    refused(NCL_RNG_POISSON, g, nan, NULL, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "lam < 0 or lam is NaN");
    refused(NCL_RNG_POISSON, g, big, NULL, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "lam value too large");
    refused(NCL_RNG_POISSON, g, nan1, NULL, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "lam value too large");
    refused(NCL_RNG_POISSON, g, neg, NULL, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "lam < 0 or lam contains NaNs");
    refused(NCL_RNG_POISSON, g, negbig, NULL, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "lam value too large");
    refused(NCL_RNG_BINOMIAL, g, n5, p11, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "p < 0, p > 1 or p is NaN");
    refused(NCL_RNG_BINOMIAL, g, nm1, nan, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "p contains NaNs");
    refused(NCL_RNG_BINOMIAL, g, nm1, one, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "n < 0");
    refused(NCL_RNG_BINOMIAL, g, nhuge, one, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "out of bounds for int64");
    /* shuffle and permutation */
    refused(NCL_RNG_SHUFFLE, g, NULL, NULL, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "array to shuffle");
    refused(NCL_RNG_SHUFFLE, g, x, NULL, x, NULL, NCL_ERR_INVALID_ARGUMENT, "input a must be NULL");
    refused(NCL_RNG_SHUFFLE, g, NULL, NULL, one, NULL, NCL_ERR_INVALID_ARGUMENT, "0-d");
    refused(NCL_RNG_PERMUTATION, g, NULL, NULL, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "required");
    refused(NCL_RNG_PERMUTATION, g, x, x, NULL, NULL, NCL_ERR_INVALID_ARGUMENT, "no input b");
    refused(NCL_RNG_PERMUTATION, g, one, NULL, NULL, NULL, NCL_ERR_INVALID_ARGUMENT,
            "axis 0 is out of bounds for array of dimension 0");
    p = (NclParams)NCL_PARAMS_INIT;
    p.axes = (const int[]){2};
    p.naxes = 1;
    refused(NCL_RNG_SHUFFLE, g, NULL, NULL, x, &p, NCL_ERR_INVALID_ARGUMENT,
            "axis 2 is out of bounds for array of dimension 2");
    p.axes = (const int[]){-3};
    refused(NCL_RNG_PERMUTATION, g, x, NULL, NULL, &p, NCL_ERR_INVALID_ARGUMENT, "axis -3");
    p.axes = (const int[]){0, 1};
    p.naxes = 2;
    refused(NCL_RNG_SHUFFLE, g, NULL, NULL, x, &p, NCL_ERR_INVALID_ARGUMENT, "one axis");
    refused(NCL_RNG_PERMUTATION, g, x, NULL, o2, NULL, NCL_ERR_SHAPE, "shape");
    p = (NclParams)NCL_PARAMS_INIT;
    p.dtype = NCL_INT32;
    refused(NCL_RNG_PERMUTATION, g, x, NULL, NULL, &p, NCL_ERR_DTYPE, "params->dtype");
    NclArray *ro = NULL;
    NCL_CHECK_OK(NclFromData(NCL_FLOAT64, 1, NCL_DIMS(2), NULL, NclArrayData(o2), 0, NULL, NULL, &ro));
    refused(NCL_RNG_SHUFFLE, g, NULL, NULL, ro, NULL, NCL_ERR_READONLY, "read-only");
    p = (NclParams)NCL_PARAMS_INIT;
    p.axes = (const int[]){0};
    p.naxes = 1;
    refused(NCL_RNG_BETA, g, one, one, NULL, &p, NCL_ERR_INVALID_ARGUMENT, "axes");

    /* NumPy accepts these: NaN shape, scale and beta parameter; p -0.0 */
    NclArray *out = NULL;
    NCL_CHECK_OK(NclRng(NCL_RNG_GAMMA, g, nan, nan, &out, NULL));
    ck_assert(isnan(ncl_test_get_d(out, 0)));
    NclArrayRelease(out);
    out = NULL;
    NCL_CHECK_OK(NclRng(NCL_RNG_BINOMIAL, g, n5, negz, &out, NULL));
    NclArrayRelease(out);

    NclArrayRelease(ro);
    NclArray *all[] = {one, neg, negz, zero, nan, nan1, big, negbig, p11, n5, nm1, nhuge, o2, x};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) NclArrayRelease(all[i]);
    NclRngGenFree(g);
}
END_TEST

static Suite *rng_suite(void)
{
    Suite *s = suite_create("rng");
    TCase *tc = tcase_create("rng");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, t_numpy_values);
    tcase_add_loop_test(tc, t_layouts, 0, 3);
    tcase_add_loop_test(tc, t_threads_same_bits, 0, NCL_BITGEN_COUNT);
    tcase_add_test(tc, t_hooks_ledger_info);
    tcase_add_test(tc, t_refusals);
    tcase_add_test(tc, t_numpy_more);
    tcase_add_test(tc, t_refusals_more);
    suite_add_tcase(s, tc);
    return s;
}

NCL_TEST_MAIN(rng_suite)
