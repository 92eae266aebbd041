/*
 * test_isa_variants.c: every instruction-set variant of the elementwise
 * kernels this machine can run gives what the portable (baseline) kernel
 * gives. NCL_TEST_LINK_INTERNAL: the variants' tables are reached directly,
 * whatever the dispatcher chose.
 *
 * For each entry of the baseline's Binary, Unary, IsUnary, Compare, Convert
 * and Ternary tables, the same (subsystem, op, signature) of each other
 * variant runs on the same inputs: random bit patterns mixed with each
 * dtype's edge values (0, -0, ±1, extremes, NaN, ±inf, subnormals), at
 * lengths around every vector width, contiguous, strided, misaligned, with a
 * broadcast (zero-step) input and in place. Outputs must agree bit for bit
 * (any NaN matches any NaN), and so must the FP flags (hardware and those the
 * kernel reports). The transcendental functions are computed by different
 * vector code per variant; there each result must be within 2 ulp of the
 * baseline's (both are within 1 ulp of the exact value), with the same
 * classification (NaN, infinity, zero sign).
 *
 * Reduce, Sort and Mask kernels take op-specific aux data; their variants are
 * tested by running their whole suites once per variant (tests/CMakeLists.txt
 * registers those runs with NCL_DISABLE_CPU_FEATURES).
 */
/* NCL_TEST_LINK_INTERNAL */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <fenv.h>
#include <sys/mman.h>
#include <unistd.h>
#include "ncl_test.h"
#include "runtime/cpu.h"
#include "ncl_kernel.h"

/* Every level's tables (kernels/ncl_tables.c); a level this build lacks has
   none (a weak, null reference). */
#define NCL_X_(E, n, needs)                                                      \
    extern const ncl_kernel_table ncl_k_tables_##n[NCL_KERNEL_TABLE_COUNT]     \
        NCL_ISA_WEAK_UNLESS_BUILT(E);
NCL_ISA_LEVEL_LIST(NCL_X_)
#undef NCL_X_
static const ncl_kernel_table *const level_tables[NCL_ISA_COUNT] = {
    [NCL_ISA_BASELINE] = ncl_k_tables,
#define NCL_X_(E, n, needs) [NCL_ISA_##E] = ncl_k_tables_##n,
    NCL_ISA_LEVEL_LIST(NCL_X_)
#undef NCL_X_
};

typedef struct tables {
    const ncl_kernel_entry *t[6];
    size_t n[6];
} tables;

static tables variant[NCL_ISA_COUNT];
static int variant_present[NCL_ISA_COUNT];

/* The elementwise tables are the first six of NCL_KERNEL_TABLE_LIST. */
static void load_tables(void)
{
    for (int v = 0; v < NCL_ISA_COUNT; v++) {
        const ncl_kernel_table *t = level_tables[v];
        /* What the build says it holds and what is linked agree. */
        ck_assert_msg((t != NULL) == ncl_isa_built((ncl_isa)v), "variant %s: built %d, tables %s",
                      ncl_isa_name((ncl_isa)v), ncl_isa_built((ncl_isa)v), t ? "linked" : "absent");
        if (!t) continue;
        for (int k = 0; k < 6; k++) {
            variant[v].t[k] = t[k].entries;
            variant[v].n[k] = *t[k].count;
        }
        variant_present[v] = 1;
    }
}

static const ncl_kernel_entry *find_entry(const tables *t, const ncl_kernel_entry *want)
{
    for (int k = 0; k < 6; k++)
        for (size_t i = 0; i < t->n[k]; i++) {
            const ncl_kernel_entry *e = &t->t[k][i];
            if (e->subsystem == want->subsystem && e->op == want->op &&
                e->nargs == want->nargs && memcmp(e->sig, want->sig, sizeof e->sig) == 0)
                return e;
        }
    return NULL;
}

/* ---- inputs ------------------------------------------------------------------------ */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * UINT64_C(0x2545F4914F6CDD1D);
}

/* One element of dtype d: an edge value one time in three, else random bits
   (for bool, 0 or 1; for floats, also ordinary magnitudes). */
static void random_element(NclDType d, char *p)
{
    const size_t size = NclDTypeSize(d);
    uint64_t r = rnd();
    if (d == NCL_BOOL) {
        p[0] = (char)(r & 1);
        return;
    }
    if (d == NCL_FLOAT64) {
        static const double edge[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -7.25, 1e300, -1e300,
                                      1e-310, -5e-324, 710.0, -745.5, 88.7, 1e-20, 100.0,
                                      3.141592653589793, 1.5707963267948966, INFINITY,
                                      -INFINITY, NAN, -NAN, 9.2e18, -9.3e18, 2.1e9, 4.4e9,
                                      1.8446744073709552e19};
        double v;
        switch (r % 3) {
        case 0: v = edge[(r >> 8) % (sizeof edge / sizeof edge[0])]; break;
        case 1: v = ((double)(int64_t)(rnd() >> 11) / (double)(UINT64_C(1) << 52)) *
                    ldexp(1.0, (int)((r >> 8) % 40) - 20); break;
        default: { uint64_t b = rnd(); memcpy(&v, &b, 8); }
        }
        memcpy(p, &v, 8);
        return;
    }
    if (d == NCL_FLOAT32) {
        static const float edge[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 3.0f, -7.25f, 3e38f,
                                     -3e38f, 1e-40f, -1e-45f, 88.7f, -103.9f, 1e-20f, 100.0f,
                                     3.1415927f, 1.5707964f, INFINITY, -INFINITY, NAN, -NAN,
                                     2.1e9f, 4.4e9f, 9.3e18f, 1.9e19f};
        float v;
        switch (r % 3) {
        case 0: v = edge[(r >> 8) % (sizeof edge / sizeof edge[0])]; break;
        case 1: v = (float)(((double)(int64_t)(rnd() >> 11) / (double)(UINT64_C(1) << 52)) *
                            ldexp(1.0, (int)((r >> 8) % 30) - 15)); break;
        default: { uint32_t b = (uint32_t)rnd(); memcpy(&v, &b, 4); }
        }
        memcpy(p, &v, 4);
        return;
    }
    /* integers: 0, ±1, the extremes, small values, or random bits */
    uint64_t v;
    switch (r % 6) {
    case 0: v = 0; break;
    case 1: v = UINT64_MAX; break;                                  /* -1 / max */
    case 2: v = UINT64_C(1) << (8 * size - 1); break;              /* min / top bit */
    case 3: v = (UINT64_C(1) << (8 * size - 1)) - 1; break;        /* max / below top */
    case 4: v = (r >> 8) % 70; break;                               /* small, shift counts */
    default: v = rnd();
    }
    ncl_test_store_bits(p, size, v);
}

/* ---- comparing results ----------------------------------------------------------- */

static int transcendental(const ncl_kernel_entry *e)
{
    if (e->subsystem == NCL_SUBSYSTEM_UNARY) {
        switch (e->op) {
        case NCL_CBRT: case NCL_EXP: case NCL_EXP2: case NCL_EXPM1: case NCL_LOG:
        case NCL_LOG2: case NCL_LOG10: case NCL_LOG1P: case NCL_SIN: case NCL_COS:
        case NCL_TAN: case NCL_ARCSIN: case NCL_ARCCOS: case NCL_ARCTAN: case NCL_SINH:
        case NCL_COSH: case NCL_TANH: case NCL_ARCSINH: case NCL_ARCCOSH: case NCL_ARCTANH:
            return 1;
        default: return 0;
        }
    }
    if (e->subsystem == NCL_SUBSYSTEM_BINARY)
        return e->op == NCL_POWER || e->op == NCL_ARCTAN2 || e->op == NCL_HYPOT;
    return 0;
}

static int64_t ordered_bits(double x)
{
    int64_t i;
    memcpy(&i, &x, 8);
    return i < 0 ? INT64_MIN - i : i;
}

static int32_t ordered_bits_f(float x)
{
    int32_t i;
    memcpy(&i, &x, 4);
    return i < 0 ? INT32_MIN - i : i;
}

/* Whether two output elements agree: bit for bit, any NaN with any NaN, and
   within 2 ulp for transcendental results of the same class. */
static int same_element(NclDType d, const char *a, const char *b, int loose)
{
    if (d == NCL_FLOAT64) {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
        if (memcmp(a, b, 8) == 0) return 1;
        if (!loose || isinf(x) || isinf(y) || x == 0 || y == 0) return 0;
        int64_t dist = ordered_bits(x) - ordered_bits(y);
        return dist >= -2 && dist <= 2;
    }
    if (d == NCL_FLOAT32) {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
        if (memcmp(a, b, 4) == 0) return 1;
        if (!loose || isinf(x) || isinf(y) || x == 0 || y == 0) return 0;
        int64_t dist = (int64_t)ordered_bits_f(x) - ordered_bits_f(y);
        return dist >= -2 && dist <= 2;
    }
    return memcmp(a, b, NclDTypeSize(d)) == 0;
}

/* ---- running one kernel ---------------------------------------------------------- */

#define MAXN 300
#define SLACK 8   /* bytes before each operand, for misalignment */

enum layout { CONTIG, STRIDED, MISALIGNED, BCAST_FIRST, BCAST_LAST, INPLACE, NLAYOUTS };
static const char *const layout_names[NLAYOUTS] = {"contiguous", "strided", "misaligned",
                                                   "first input broadcast",
                                                   "last input broadcast", "in place"};

typedef struct operands {
    char buf[4][SLACK + 3 * MAXN * 8 + 16]; /* the output's strided step is 3 items */
} operands;

/* Runs e's kernel over n elements in the given layout on copies of the inputs
   in src; the output elements are gathered contiguously into out; returns the
   FP flags (hardware and reported). */
/* Runs kernel e on args / steps with a context for its signature; returns
   the FP flags it raised, those it reported and those the hardware saw. */
static int call_kernel_acc(const ncl_kernel_entry *e, char *const *args, int64_t n,
                           const int64_t *steps, NclStatus *status, NclAccuracy accuracy)
{
    int fpe = 0;
    NclDType sig[4];
    for (int k = 0; k < e->nargs; k++) sig[k] = (NclDType)e->sig[k];
    NclKernelCtx ctx = {(NclSubsystem)e->subsystem, e->op, e->nargs - 1, 1,
                        sig, 0, 0, &fpe, NULL, accuracy, 1};
    NclKernelNode node = {{NULL, NULL}, e->fn, e->name, NULL, {0}};
    feclearexcept(FE_ALL_EXCEPT);
    *status = e->fn(&node, &ctx, args, n, steps);
    const int hw = fetestexcept(FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW);
    feclearexcept(FE_ALL_EXCEPT);
    if (hw & FE_INVALID) fpe |= NCL_FPE_INVALID;
    if (hw & FE_DIVBYZERO) fpe |= NCL_FPE_DIVIDE;
    if (hw & FE_OVERFLOW) fpe |= NCL_FPE_OVERFLOW;
    if (hw & FE_UNDERFLOW) fpe |= NCL_FPE_UNDERFLOW;
    return fpe;
}

static int call_kernel(const ncl_kernel_entry *e, char *const *args, int64_t n,
                       const int64_t *steps, NclStatus *status)
{
    return call_kernel_acc(e, args, n, steps, status, NCL_ACCURACY_HIGH);
}

static int run(const ncl_kernel_entry *e, const operands *src, enum layout lay, int64_t n,
               char *out, NclStatus *status)
{
    static operands w; /* static: large */
    memcpy(&w, src, sizeof w);
    const int nargs = e->nargs, nin = nargs - 1;
    char *args[4];
    int64_t steps[4];
    for (int k = 0; k < nargs; k++) {
        const int64_t size = (int64_t)NclDTypeSize((NclDType)e->sig[k]);
        int64_t step = size, off = SLACK;
        if (lay == STRIDED) step = 2 * size + (k == nin ? size : 0);
        if (lay == MISALIGNED) off = SLACK + 1 + k;
        if ((lay == BCAST_FIRST && k == 0) || (lay == BCAST_LAST && k == nin - 1 && nin > 1))
            step = 0;
        args[k] = w.buf[k] + off;
        steps[k] = step;
    }
    /* In place: the output is the first input's memory when their dtypes
       match (the only aliasing the kernel contract allows). */
    if (lay == INPLACE) {
        args[nin] = args[0];
        steps[nin] = steps[0];
    }
    const int fpe = call_kernel(e, args, n, steps, status);
    const size_t osize = NclDTypeSize((NclDType)e->sig[nin]);
    for (int64_t i = 0; i < n; i++)
        memcpy(out + (size_t)i * osize, args[nin] + i * steps[nin], osize);
    return fpe;
}

static int variant_compared[NCL_ISA_COUNT];

/* Compares variant v with the baseline over every entry; returns the number of
   kernels compared. */
static size_t compare_variant(ncl_isa v)
{
    static const int64_t lengths[] = {0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63,
                                      64, 65, 100, 127, 128, 129, 255, 256, 257, MAXN};
    const tables *base = &variant[NCL_ISA_BASELINE];
    size_t compared = 0;
    static char out_b[MAXN * 8], out_v[MAXN * 8];
    static operands src;
    for (int k = 0; k < 6; k++) {
        for (size_t i = 0; i < base->n[k]; i++) {
            const ncl_kernel_entry *eb = &base->t[k][i];
            const ncl_kernel_entry *ev = find_entry(&variant[v], eb);
            ck_assert_msg(ev != NULL, "%s: variant %s has no kernel for %s", eb->name,
                          ncl_isa_name(v), eb->name);
            const int nin = eb->nargs - 1;
            const NclDType od = (NclDType)eb->sig[nin];
            const int loose = transcendental(eb);
            for (int lay = 0; lay < NLAYOUTS; lay++) {
                if (lay == INPLACE && eb->sig[0] != eb->sig[nin]) continue;
                for (int a = 0; a < eb->nargs; a++) {
                    const size_t size = NclDTypeSize((NclDType)eb->sig[a]);
                    for (size_t j = 0; j < sizeof src.buf[a] / size; j++)
                        random_element((NclDType)eb->sig[a], src.buf[a] + j * size);
                }
                for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
                    const int64_t n = lengths[li];
                    NclStatus sb, sv;
                    const int fb = run(eb, &src, (enum layout)lay, n, out_b, &sb);
                    const int fv = run(ev, &src, (enum layout)lay, n, out_v, &sv);
                    ck_assert_msg(sb == sv, "%s [%s] n=%lld: status %s (baseline) vs %s (%s)",
                                  eb->name, layout_names[lay], (long long)n,
                                  NclStatusString(sb), NclStatusString(sv), ncl_isa_name(v));
                    const size_t osize = NclDTypeSize(od);
                    for (int64_t e = 0; e < n; e++) {
                        const char *pb = out_b + (size_t)e * osize, *pv = out_v + (size_t)e * osize;
                        if (!same_element(od, pb, pv, loose)) {
                            double xb = ncl_test_load_d(od, pb), xv = ncl_test_load_d(od, pv);
                            ck_abort_msg("%s [%s] n=%lld element %lld: baseline %.17g, %s %.17g",
                                         eb->name, layout_names[lay], (long long)n,
                                         (long long)e, xb, ncl_isa_name(v), xv);
                        }
                    }
                    /* Transcendental kernels raise flags by their own rules per
                       method; the accuracy suite checks those. */
                    if (!loose)
                        ck_assert_msg(fb == fv,
                                      "%s [%s] n=%lld: FP flags 0x%x (baseline) vs 0x%x (%s)",
                                      eb->name, layout_names[lay], (long long)n, (unsigned)fb,
                                      (unsigned)fv, ncl_isa_name(v));
                }
            }
            compared++;
        }
    }
    return compared;
}

static void check_variant(ncl_isa v)
{
    load_tables();
    if (!variant_present[v]) {
        printf("variant %s: not built for this target\n", ncl_isa_name(v));
        return;
    }
    if (!ncl_isa_cpu_supports(v)) {
        printf("variant %s: built, but this CPU cannot run it\n", ncl_isa_name(v));
        return;
    }
    size_t n = compare_variant(v);
    ck_assert_uint_gt(n, 0);
    variant_compared[v] = 1;
    printf("variant %s: %zu elementwise kernels agree with the baseline\n", ncl_isa_name(v), n);
}

/* Each level above the baseline (a loop test over ncl_isa). */
START_TEST(variant_matches_baseline) { check_variant((ncl_isa)_i); }
END_TEST

/* ---- outputs above the streaming-store threshold ------------------------------------
   Contiguous outputs of at least NCL_STREAM_MIN_BYTES are written in blocks
   with non-temporal stores in the AVX2 and AVX-512 builds (ncl_kernel.h),
   after a head up to a 64-byte boundary and with a tail of plain stores. A
   sample of kernels (the hot arithmetic, fused casts of mixed operands, a
   bool output, a flag-restoring loop, sqrt, and casts of every output
   width) runs at an odd length just above the threshold with the output at
   an element-aligned address off the 64-byte grid, at a byte-misaligned one
   (stored in place), and in place (casts at a length whose footprint
   reaches NCL_STREAM_FOOTPRINT_MIN too); everything must equal the baseline bit
   for bit, flags included. */

typedef struct big_case {
    uint8_t subsystem;
    uint16_t op;
    int8_t sig[3]; /* inputs then output; -1 ends a unary signature */
} big_case;

#define BIN3(op, t) {NCL_SUBSYSTEM_BINARY, op, {t, t, t}}
static const big_case big_cases[] = {
    BIN3(NCL_ADD, NCL_FLOAT64), BIN3(NCL_ADD, NCL_FLOAT32), BIN3(NCL_ADD, NCL_INT32),
    BIN3(NCL_SUBTRACT, NCL_INT64), BIN3(NCL_MULTIPLY, NCL_FLOAT64), BIN3(NCL_DIVIDE, NCL_FLOAT32),
    BIN3(NCL_MAXIMUM, NCL_FLOAT64), BIN3(NCL_ADD, NCL_INT16),
    {NCL_SUBSYSTEM_BINARY, NCL_LOGICAL_AND, {NCL_FLOAT32, NCL_FLOAT32, NCL_BOOL}},
    /* fused casts (mixed operands) */
    {NCL_SUBSYSTEM_BINARY, NCL_ADD, {NCL_INT32, NCL_FLOAT64, NCL_FLOAT64}},
    {NCL_SUBSYSTEM_BINARY, NCL_SUBTRACT, {NCL_FLOAT64, NCL_INT32, NCL_FLOAT64}},
    {NCL_SUBSYSTEM_BINARY, NCL_MULTIPLY, {NCL_FLOAT32, NCL_FLOAT64, NCL_FLOAT64}},
    {NCL_SUBSYSTEM_BINARY, NCL_DIVIDE, {NCL_FLOAT64, NCL_FLOAT32, NCL_FLOAT64}},
    {NCL_SUBSYSTEM_COMPARE, NCL_CMP_LT, {NCL_FLOAT64, NCL_FLOAT64, NCL_BOOL}},
    {NCL_SUBSYSTEM_COMPARE, NCL_CMP_GT, {NCL_INT64, NCL_INT64, NCL_BOOL}},
    {NCL_SUBSYSTEM_COMPARE, NCL_CMP_NE, {NCL_INT64, NCL_UINT64, NCL_BOOL}},
    {NCL_SUBSYSTEM_UNARY, NCL_SQRT, {NCL_FLOAT32, NCL_FLOAT32, -1}},
    {NCL_SUBSYSTEM_UNARY, NCL_SQRT, {NCL_FLOAT64, NCL_FLOAT64, -1}},
    {NCL_SUBSYSTEM_UNARY, NCL_NEGATIVE, {NCL_INT8, NCL_INT8, -1}},
    {NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_ASTYPE, {NCL_FLOAT64, NCL_INT32, -1}},
    {NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_ASTYPE, {NCL_INT64, NCL_FLOAT32, -1}},
    {NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_ASTYPE, {NCL_FLOAT32, NCL_FLOAT64, -1}},
    {NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_ASTYPE, {NCL_FLOAT64, NCL_UINT8, -1}},
    {NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_ASTYPE, {NCL_INT32, NCL_INT16, -1}},
};
#undef BIN3

enum { BIG_ALIGNED_OFF, BIG_MISALIGNED, BIG_INPLACE, BIG_NLAYOUTS };

/* Runs e over n elements; in[k] are the inputs (copied, so that in place
   leaves them intact), the output is copied to out; returns the FP flags. */
static int run_big(const ncl_kernel_entry *e, char *const *in, int64_t n, int layout,
                   char *work, char *out)
{
    const int nin = e->nargs - 1;
    const size_t osize = NclDTypeSize((NclDType)e->sig[nin]);
    char *args[3];
    int64_t steps[3];
    /* work holds nin input copies and the output, each in its own 64-aligned
       slot of n * 8 + 128 bytes */
    const size_t slot = (size_t)n * 8 + 128;
    for (int k = 0; k < nin; k++) {
        const size_t size = NclDTypeSize((NclDType)e->sig[k]);
        args[k] = work + (size_t)k * slot + 64;
        memcpy(args[k], in[k], (size_t)n * size);
        steps[k] = (int64_t)size;
    }
    args[nin] = work + (size_t)nin * slot + 64 +
                (layout == BIG_MISALIGNED ? 1 : 3 * osize); /* off the 64-byte grid */
    steps[nin] = (int64_t)osize;
    if (layout == BIG_INPLACE) args[nin] = args[0];
    NclStatus st;
    const int fpe = call_kernel(e, args, n, steps, &st);
    ck_assert_int_eq(st, NCL_OK);
    memcpy(out, args[nin], (size_t)n * osize);
    return fpe;
}

static void check_big_outputs(ncl_isa v)
{
    load_tables();
    if (!variant_present[v] || !ncl_isa_cpu_supports(v)) {
        printf("variant %s: not run (not built or not supported)\n", ncl_isa_name(v));
        return;
    }
    const tables *base = &variant[NCL_ISA_BASELINE];
    for (size_t c = 0; c < sizeof big_cases / sizeof big_cases[0]; c++) {
        const big_case *bc = &big_cases[c];
        const int nargs = bc->sig[2] < 0 ? 2 : 3, nin = nargs - 1;
        ncl_kernel_entry want = {bc->subsystem, (uint8_t)nargs, bc->op, {0}, NULL, NULL};
        memcpy(want.sig, bc->sig, (size_t)nargs);
        const ncl_kernel_entry *eb = find_entry(base, &want), *ev = find_entry(&variant[v], &want);
        ck_assert_msg(eb != NULL && ev != NULL, "big case %zu: no kernel", c);
        const size_t osize = NclDTypeSize((NclDType)bc->sig[nin]);
        /* odd, above the threshold, not a whole number of blocks; a cast
           streams only when its input and output together also reach
           NCL_STREAM_FOOTPRINT_MIN (ncl_ostream_begin_fp) */
        int64_t n = NCL_STREAM_MIN_BYTES / (int64_t)osize;
        if (bc->subsystem == NCL_SUBSYSTEM_CONVERT) {
            const int64_t per = (int64_t)(osize + NclDTypeSize((NclDType)bc->sig[0]));
            if (NCL_STREAM_FOOTPRINT_MIN / per > n) n = NCL_STREAM_FOOTPRINT_MIN / per;
        }
        n += 1000 + 37;
        char *in[2] = {NULL, NULL};
        for (int k = 0; k < nin; k++) {
            const size_t size = NclDTypeSize((NclDType)bc->sig[k]);
            in[k] = malloc((size_t)n * size);
            ck_assert_ptr_nonnull(in[k]);
            for (int64_t j = 0; j < n; j++) random_element((NclDType)bc->sig[k], in[k] + j * size);
        }
        /* aligned_alloc wants a whole number of alignments */
        const size_t wsize = ((size_t)(nin + 1) * ((size_t)n * 8 + 128) + 63) / 64 * 64;
        char *work = aligned_alloc(64, wsize), *out_b = malloc((size_t)n * osize),
             *out_v = malloc((size_t)n * osize);
        ck_assert(work != NULL && out_b != NULL && out_v != NULL);
        for (int lay = 0; lay < BIG_NLAYOUTS; lay++) {
            if (lay == BIG_INPLACE && bc->sig[0] != bc->sig[nin]) continue;
            const int fb = run_big(eb, in, n, lay, work, out_b);
            const int fv = run_big(ev, in, n, lay, work, out_v);
            for (int64_t j = 0; j < n; j++) {
                const char *pb = out_b + (size_t)j * osize, *pv = out_v + (size_t)j * osize;
                if (!same_element((NclDType)bc->sig[nin], pb, pv, 0))
                    ck_abort_msg("%s layout %d n=%lld element %lld: baseline %.17g, %s %.17g",
                                 eb->name, lay, (long long)n, (long long)j,
                                 ncl_test_load_d((NclDType)bc->sig[nin], pb), ncl_isa_name(v),
                                 ncl_test_load_d((NclDType)bc->sig[nin], pv));
            }
            ck_assert_msg(fb == fv, "%s layout %d: FP flags 0x%x (baseline) vs 0x%x (%s)",
                          eb->name, lay, (unsigned)fb, (unsigned)fv, ncl_isa_name(v));
        }
        free(work);
        free(out_b);
        free(out_v);
        free(in[0]);
        free(in[1]);
    }
}

/* ---- streamed vector-math outputs -----------------------------------------------
   NCLib's own vector functions (unary_sleef.h, unary_vecmath.h) stream an
   output whose call's footprint reaches NCL_STREAM_FOOTPRINT_MIN straight
   from registers, and read it back for the flags of blocks with special
   results. Each function here (own in both tiers in the AVX2 and AVX-512
   builds) runs once over such a length, ordinary inputs with an edge value
   every 4099 elements (so some blocks take the exact flag pass or the
   fix-up and most do not), output off the 64-byte grid; the same variant
   over chunks too short to stream must give the same bits and flags. */
static const uint16_t streamed_ops[] = {NCL_SIN, NCL_COS, NCL_EXP};

/* Runs e over n elements in calls of first, then chunk elements. */
static int run_chunks(const ncl_kernel_entry *e, char *const *args, int64_t n, int64_t first,
                      int64_t chunk, const int64_t *steps, NclAccuracy acc)
{
    int fpe = 0;
    for (int64_t i = 0, m; i < n; i += m) {
        m = i ? chunk : first;
        if (m > n - i) m = n - i;
        char *part[2] = {args[0] + i * steps[0], args[1] + i * steps[1]};
        NclStatus st;
        fpe |= call_kernel_acc(e, part, m, steps, &st, acc);
        ck_assert_int_eq(st, NCL_OK);
    }
    return fpe;
}

static void check_streamed_vecmath(ncl_isa v)
{
    load_tables();
    if (!variant_present[v] || !ncl_isa_cpu_supports(v)) {
        printf("variant %s: not run (not built or not supported)\n", ncl_isa_name(v));
        return;
    }
    static const NclDType dts[] = {NCL_FLOAT32, NCL_FLOAT64};
    for (size_t o = 0; o < sizeof streamed_ops / sizeof streamed_ops[0]; o++) {
        for (int d = 0; d < 2; d++) {
            const NclDType dt = dts[d];
            const int64_t size = (int64_t)NclDTypeSize(dt);
            ncl_kernel_entry want = {NCL_SUBSYSTEM_UNARY, 2, streamed_ops[o], {0}, NULL, NULL};
            want.sig[0] = want.sig[1] = (int8_t)dt;
            const ncl_kernel_entry *e = find_entry(&variant[v], &want);
            ck_assert_msg(e != NULL, "streamed op %d: no kernel", (int)streamed_ops[o]);
            const int64_t n = NCL_STREAM_FOOTPRINT_MIN / (2 * size) + 1000 + 37;
            char *in = malloc((size_t)(n * size)), *ref = malloc((size_t)(n * size));
            const int64_t slot = (n * size + 127) / 64 * 64;
            char *work = aligned_alloc(64, (size_t)(64 + 2 * slot));
            ck_assert(in != NULL && ref != NULL && work != NULL);
            for (int64_t j = 0; j < n; j++) {
                const double x = 0.5 + (double)(j % 1999) * 0.01; /* [0.5, 20.5) */
                if (j % 4099 == 17) {
                    random_element(dt, in + j * size);
                } else if (dt == NCL_FLOAT32) {
                    const float f = (float)x;
                    memcpy(in + j * size, &f, 4);
                } else {
                    memcpy(in + j * size, &x, 8);
                }
            }
            /* the output 3 elements past a 64-byte boundary */
            char *args[2] = {work + 64, work + 64 + slot + 3 * size};
            const int64_t head = (64 - 3 * size) / size;
            const int64_t steps[2] = {size, size};
            memcpy(args[0], in, (size_t)(n * size));
            for (int acc = NCL_ACCURACY_HIGH; acc <= NCL_ACCURACY_FAST; acc++) {
                const int fr = run_chunks(e, args, n, head, 1024, steps, (NclAccuracy)acc);
                memcpy(ref, args[1], (size_t)(n * size));
                memset(args[1], 0x5a, (size_t)(n * size));
                const int fs = run_chunks(e, args, n, n, n, steps, (NclAccuracy)acc);
                for (int64_t j = 0; j < n; j++)
                    if (!same_element(dt, ref + j * size, args[1] + j * size, 0))
                        ck_abort_msg("%s acc %d n=%lld element %lld: chunked %.17g, whole %.17g",
                                     e->name, acc, (long long)n, (long long)j,
                                     ncl_test_load_d(dt, ref + j * size),
                                     ncl_test_load_d(dt, args[1] + j * size));
                ck_assert_msg(fr == fs, "%s acc %d: FP flags 0x%x (chunked) vs 0x%x (whole)",
                              e->name, acc, (unsigned)fr, (unsigned)fs);
            }
            free(in);
            free(ref);
            free(work);
        }
    }
}

/* Each level above the baseline (a loop test over ncl_isa). */
START_TEST(variant_streamed_vecmath_matches_chunked) { check_streamed_vecmath((ncl_isa)_i); }
END_TEST

/* Each level above the baseline (a loop test over ncl_isa). */
START_TEST(variant_big_outputs_match_baseline) { check_big_outputs((ncl_isa)_i); }
END_TEST

/* ---- a stride-2 operand ----------------------------------------------------------
   An 8-byte operand of step 16 (a view a[::2]) with the other operand and the
   output contiguous has its own loop, which the compiler vectorises with two
   loads and a permute per vector (ncl_kernel.h). Each of a sample of binary
   and compare kernels runs with the first or the second operand strided so,
   at every length 0..40 and around the vector widths, aligned, misaligned,
   with the output in place of the contiguous operand, and with the strided
   operand's last element ending right before an inaccessible page (the
   vector loads must not read its odd neighbour there); one length's float64
   outputs are large enough to be streamed (ncl_ostream). */

static const big_case s2_cases[] = {
    {NCL_SUBSYSTEM_BINARY, NCL_ADD, {NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64}},
    {NCL_SUBSYSTEM_BINARY, NCL_DIVIDE, {NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64}},
    {NCL_SUBSYSTEM_BINARY, NCL_MAXIMUM, {NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64}},
    {NCL_SUBSYSTEM_BINARY, NCL_SUBTRACT, {NCL_INT64, NCL_INT64, NCL_INT64}},
    {NCL_SUBSYSTEM_BINARY, NCL_ADD, {NCL_UINT64, NCL_UINT64, NCL_UINT64}},
    {NCL_SUBSYSTEM_BINARY, NCL_ADD, {NCL_INT32, NCL_FLOAT64, NCL_FLOAT64}},
    {NCL_SUBSYSTEM_BINARY, NCL_MULTIPLY, {NCL_FLOAT64, NCL_FLOAT32, NCL_FLOAT64}},
    {NCL_SUBSYSTEM_COMPARE, NCL_CMP_LT, {NCL_FLOAT64, NCL_FLOAT64, NCL_BOOL}},
    {NCL_SUBSYSTEM_COMPARE, NCL_CMP_LT, {NCL_INT64, NCL_FLOAT32, NCL_BOOL}},
};

enum { S2_ALIGNED, S2_MISALIGNED, S2_INPLACE, S2_GUARDED, S2_NLAYOUTS };
#define S2_MAXN (NCL_STREAM_MIN_BYTES / 8 + 1037) /* odd, streamed */

/* Runs e over n elements with operand k2 at step 16; the inputs come from
   in (k2's elements at even slots); the output is copied to out. */
static int run_s2(const ncl_kernel_entry *e, char *const *in, int k2, int64_t n, int layout,
                  char *work, char *guarded_end, char *out)
{
    const size_t osize = NclDTypeSize((NclDType)e->sig[2]);
    char *args[3];
    int64_t steps[3];
    const size_t slot = 2 * S2_MAXN * 8 + 128;
    for (int k = 0; k < 2; k++) {
        const size_t size = NclDTypeSize((NclDType)e->sig[k]);
        const int64_t step = k == k2 ? 16 : (int64_t)size;
        args[k] = work + (size_t)k * slot + 64 + (layout == S2_MISALIGNED ? 1 + (size_t)k : 0);
        if (k == k2 && layout == S2_GUARDED)
            args[k] = guarded_end - (n > 0 ? 16 * (n - 1) + 8 : 0);
        for (int64_t j = 0; j < n; j++) memcpy(args[k] + j * step, in[k] + j * 16, size);
        steps[k] = step;
    }
    args[2] = work + 2 * slot + 64 + (layout == S2_MISALIGNED ? 3 : 0);
    steps[2] = (int64_t)osize;
    if (layout == S2_INPLACE) args[2] = args[1 - k2];
    NclStatus st;
    const int fpe = call_kernel(e, args, n, steps, &st);
    ck_assert_int_eq(st, NCL_OK);
    memcpy(out, args[2], (size_t)n * osize);
    return fpe;
}

static void check_stride2(ncl_isa v)
{
    load_tables();
    if (!variant_present[v] || !ncl_isa_cpu_supports(v)) {
        printf("variant %s: not run (not built or not supported)\n", ncl_isa_name(v));
        return;
    }
    const tables *base = &variant[NCL_ISA_BASELINE];
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t gsize = (2 * S2_MAXN * 8 / page + 2) * page;
    char *g = mmap(NULL, gsize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert(g != MAP_FAILED);
    ck_assert_int_eq(mprotect(g + gsize - page, page, PROT_NONE), 0);
    char *const guarded_end = g + gsize - page;
    char *work = malloc((size_t)(3 * (2 * S2_MAXN * 8 + 128)));
    char *out_b = malloc((size_t)S2_MAXN * 8), *out_v = malloc((size_t)S2_MAXN * 8);
    char *in[2] = {malloc((size_t)S2_MAXN * 16), malloc((size_t)S2_MAXN * 16)};
    ck_assert(work != NULL && out_b != NULL && out_v != NULL && in[0] != NULL && in[1] != NULL);
    static const int64_t extra[] = {63, 64, 65, 127, 128, 129, 130, 255, 256, 257, 383, 385, 600,
                                    S2_MAXN};
    for (size_t c = 0; c < sizeof s2_cases / sizeof s2_cases[0]; c++) {
        const big_case *bc = &s2_cases[c];
        ncl_kernel_entry want = {bc->subsystem, 3, bc->op, {0}, NULL, NULL};
        memcpy(want.sig, bc->sig, 3);
        const ncl_kernel_entry *eb = find_entry(base, &want), *ev = find_entry(&variant[v], &want);
        ck_assert_msg(eb != NULL && ev != NULL, "stride-2 case %zu: no kernel", c);
        for (int k = 0; k < 2; k++)
            for (int64_t j = 0; j < S2_MAXN; j++)
                random_element((NclDType)bc->sig[k], in[k] + j * 16);
        const size_t osize = NclDTypeSize((NclDType)bc->sig[2]);
        for (int k2 = 0; k2 < 2; k2++) {
            if (NclDTypeSize((NclDType)bc->sig[k2]) != 8) continue;
            for (int lay = 0; lay < S2_NLAYOUTS; lay++) {
                if (lay == S2_INPLACE && bc->sig[1 - k2] != bc->sig[2]) continue;
                for (size_t li = 0; li < 41 + sizeof extra / sizeof extra[0]; li++) {
                    const int64_t n = li <= 40 ? (int64_t)li : extra[li - 41];
                    const int fb = run_s2(eb, in, k2, n, lay, work, guarded_end, out_b);
                    const int fv = run_s2(ev, in, k2, n, lay, work, guarded_end, out_v);
                    for (int64_t j = 0; j < n; j++) {
                        const char *pb = out_b + (size_t)j * osize, *pv = out_v + (size_t)j * osize;
                        if (!same_element((NclDType)bc->sig[2], pb, pv, 0))
                            ck_abort_msg("%s operand %d at step 16, layout %d n=%lld element "
                                         "%lld: baseline %.17g, %s %.17g",
                                         eb->name, k2, lay, (long long)n, (long long)j,
                                         ncl_test_load_d((NclDType)bc->sig[2], pb),
                                         ncl_isa_name(v),
                                         ncl_test_load_d((NclDType)bc->sig[2], pv));
                    }
                    ck_assert_msg(fb == fv, "%s operand %d layout %d n=%lld: FP flags 0x%x "
                                  "(baseline) vs 0x%x (%s)", eb->name, k2, lay, (long long)n,
                                  (unsigned)fb, (unsigned)fv, ncl_isa_name(v));
                }
            }
        }
    }
    munmap(g, gsize);
    free(work);
    free(out_b);
    free(out_v);
    free(in[0]);
    free(in[1]);
}

/* Each level above the baseline (a loop test over ncl_isa). */
START_TEST(variant_stride2_matches_baseline) { check_stride2((ncl_isa)_i); }
END_TEST

/* The dispatcher picks the best level the CPU supports unless told
   otherwise, and NclInfo says which. */
START_TEST(dispatch_choice_reported)
{
    const ncl_isa chosen = ncl_isa_selected();
    ck_assert(ncl_isa_built(chosen));
    ck_assert(ncl_isa_cpu_supports(chosen));
    const char *env = getenv("NCL_DISABLE_CPU_FEATURES");
    if (env == NULL || env[0] == '\0') {
        for (int l = (int)chosen + 1; l < NCL_ISA_COUNT; l++)
            ck_assert_msg(!(ncl_isa_built((ncl_isa)l) && ncl_isa_cpu_supports((ncl_isa)l)),
                          "%s chosen although %s is built and supported", ncl_isa_name(chosen),
                          ncl_isa_name((ncl_isa)l));
    }
    char info[65536];
    size_t needed = 0;
    NCL_CHECK_OK(NclInfo(info, sizeof info, &needed));
    char want[64];
    snprintf(want, sizeof want, "\"isa\":\"%s\"", ncl_isa_name(chosen));
    ck_assert_msg(strstr(info, want) != NULL, "NclInfo lacks %s", want);
}
END_TEST

/* What NCL_DISABLE_CPU_FEATURES asks for is what runs (the suites rerun with
   it set say which level they expect in NCL_TEST_EXPECT_ISA). */
START_TEST(disable_env_honoured)
{
    const char *expect = getenv("NCL_TEST_EXPECT_ISA");
    if (expect == NULL) return;
    for (int l = 0; l < NCL_ISA_COUNT; l++) {
        /* A CPU without the level runs the best one below it instead. */
        if (strcmp(ncl_isa_name((ncl_isa)l), expect) == 0 && ncl_isa_cpu_supports((ncl_isa)l)) {
            ck_assert_str_eq(ncl_isa_name(ncl_isa_selected()), expect);
            return;
        }
    }
}
END_TEST

static Suite *isa_suite(void)
{
    Suite *s = suite_create("isa_variants");
    TCase *tc = tcase_create("variants");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, variant_matches_baseline, NCL_ISA_BASELINE + 1, NCL_ISA_COUNT);
    tcase_add_loop_test(tc, variant_big_outputs_match_baseline, NCL_ISA_BASELINE + 1, NCL_ISA_COUNT);
    /* From the first level with NCLib's own vector functions (unary_vecmath.h:
       AVX2 with FMA): below it float32 sin comes from SLEEF's SSE2 code,
       whose scalar tail differs from its vector body by an ulp. */
    tcase_add_loop_test(tc, variant_streamed_vecmath_matches_chunked, NCL_ISA_AVX2, NCL_ISA_COUNT);
    tcase_add_loop_test(tc, variant_stride2_matches_baseline, NCL_ISA_BASELINE + 1, NCL_ISA_COUNT);
    tcase_add_test(tc, dispatch_choice_reported);
    tcase_add_test(tc, disable_env_honoured);
    suite_add_tcase(s, tc);
    return s;
}

NCL_TEST_MAIN(isa_suite)
