/*
 * ncl_bench_helper.c: the C half of bench/numpy_side_by_side.py, built as
 * libncl_bench_helper.so next to libncl.so.
 *
 * The script loads libncl.so and NumPy into one Python process and wraps
 * NumPy's buffers as NclArrays, so both libraries read and write the same
 * memory. Calling NCLib once per sample through ctypes would add a
 * microsecond of foreign-function overhead that NCLib's own callers never
 * pay, so nclb_time runs the call k times in a C loop and reports the time
 * per call; the script makes one ctypes call per sample.
 *
 * nclb_stream_add is the bandwidth limit of BENCHMARKS.md #2: c = a + b over
 * doubles with non-temporal (streaming) stores, STREAM's "add" kernel, which
 * writes the output without first reading it into the cache.
 * nclb_plain_add is the same loop with ordinary stores, for comparison.
 * nclb_stream_add2 runs the streaming loop on two threads, the limit of a
 * DRAM-bound add split as NCLib's pool splits it (BENCHMARKS.md #17).
 */
#define _POSIX_C_SOURCE 200809L
#include "ncl_bench_helper.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
/* The limit must be the best streaming-store loop this CPU runs, whatever
   the build's baseline: on x86-64 with GCC or Clang the 256-bit loop is
   compiled for AVX and chosen at run time. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NCLB_AVX_AT_RUN_TIME 1
#include <immintrin.h>
#endif

static double now_ns(int clock_kind)
{
    struct timespec ts;
    clockid_t id = clock_kind == NCLB_CLOCK_WALL ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID;
    if (clock_gettime(id, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static long minor_faults(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return ru.ru_minflt;
}

int nclb_abi_version(void) { return NCLB_ABI_VERSION; }

/* One call of the case; *out is the provided output or NULL (allocate). */
static NclStatus call_once(const NclbCall *c, NclArray **out, const NclParams *p)
{
    switch (c->kind) {
    case NCLB_BINARY: return NclBinary((NclBinaryOp)c->op, c->a, c->b, out, p);
    case NCLB_COMPARE: return NclCompare((NclCompareOp)c->op, c->a, c->b, out, p);
    case NCLB_UNARY: return NclUnary((NclUnaryOp)c->op, c->a, out, p);
    case NCLB_CONVERT: return NclConvert((NclConvertOp)c->op, c->a, out, p);
    case NCLB_TERNARY: return NclTernary((NclTernaryOp)c->op, c->a, c->b, c->c, out, p);
    case NCLB_REDUCE: return NclReduce((NclReduceOp)c->op, c->a, out, p);
    case NCLB_SORT: return NclSort((NclSortOp)c->op, c->a, out, p);
    case NCLB_MASK: return NclMask((NclMaskOp)c->op, c->a, c->b, out, p);
    case NCLB_LINALG: return NclLinalg((NclLinalgOp)c->op, c->a, c->b, out, p);
    case NCLB_SORTN: {
        /* the outputs after the first are released here, as NumPy's are
           when a caller drops them */
        NclArray *slots[4] = {NULL, NULL, NULL, NULL};
        const int nout = NclOpOutputs(NCL_SUBSYSTEM_SORT, c->op);
        if (nout < 1 || nout > 4) return NCL_ERR_INVALID_ARGUMENT;
        const NclStatus s = NclSortN((NclSortOp)c->op, c->a, nout, slots, p);
        for (int k = 1; k < nout; k++) NclArrayRelease(slots[k]);
        *out = slots[0];
        return s;
    }
    default: return NCL_ERR_INVALID_ARGUMENT;
    }
}

int nclb_time(const NclbCall *c, int64_t k, int clock_kind, NclbResult *res)
{
    if (c == NULL || res == NULL || k < 1)
        return NCL_ERR_INVALID_ARGUMENT;
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = (NclDType)c->dtype;
    p.casting = (NclCasting)c->casting;
    p.kind = c->sort_kind;
    p.side = c->side;
    const NclAccuracy saved = NclGetAccuracy();
    if (c->accuracy >= 0) {
        NclStatus s = NclSetAccuracy((NclAccuracy)c->accuracy);
        if (s != NCL_OK)
            return s;
    }
    NclArray **kept = NULL;
    if (c->keep_outputs && c->out == NULL) {
        kept = calloc((size_t)k, sizeof *kept);
        if (kept == NULL)
            return NCL_ERR_NO_MEMORY;
    }
    NclStatus s = NCL_OK;
    const long f0 = minor_faults();
    const double t0 = now_ns(clock_kind);
    for (int64_t i = 0; i < k && s == NCL_OK; i++) {
        NclArray *o = c->out;
        s = call_once(c, &o, &p);
        /* A result the call allocated is released at once, as a NumPy
           temporary is: the allocator sees the same size again and again. */
        if (kept != NULL)
            kept[i] = o;
        else if (c->out == NULL)
            NclArrayRelease(o);
    }
    const double t1 = now_ns(clock_kind);
    const long f1 = minor_faults();
    if (kept != NULL) {
        for (int64_t i = 0; i < k; i++)
            NclArrayRelease(kept[i]);
        free(kept);
    }
    if (c->accuracy >= 0)
        (void)NclSetAccuracy(saved);
    res->ns_per_call = (t1 - t0) / (double)k;
    res->faults_per_call = (double)(f1 - f0) / (double)k;
    return s;
}

/* ---- bandwidth limit ------------------------------------------------------ */

/* Vector stores need an aligned destination: the head runs scalar until c
   is aligned (a and b are read unaligned). */
#if NCLB_AVX_AT_RUN_TIME
__attribute__((target("avx"))) static int64_t stream_add_256(const double *a, const double *b,
                                                             double *c, int64_t n)
{
    int64_t i = 0;
    for (; i < n && ((uintptr_t)(c + i) & 31u) != 0; i++)
        c[i] = a[i] + b[i];
    for (; i + 8 <= n; i += 8) {
        __m256d x0 = _mm256_add_pd(_mm256_loadu_pd(a + i), _mm256_loadu_pd(b + i));
        __m256d x1 = _mm256_add_pd(_mm256_loadu_pd(a + i + 4), _mm256_loadu_pd(b + i + 4));
        _mm256_stream_pd(c + i, x0);
        _mm256_stream_pd(c + i + 4, x1);
    }
    /* Streaming stores are weakly ordered: fence before anyone reads c. */
    _mm_sfence();
    return i;
}

static int have_avx(void) { return __builtin_cpu_supports("avx"); }
#else
static int have_avx(void) { return 0; }
#endif

static void stream_add(const double *a, const double *b, double *c, int64_t n)
{
    int64_t i = 0;
#if NCLB_AVX_AT_RUN_TIME
    if (have_avx()) i = stream_add_256(a, b, c, n);
    else
#endif
    {
#if defined(__SSE2__)
        for (; i < n && ((uintptr_t)(c + i) & 15u) != 0; i++)
            c[i] = a[i] + b[i];
        for (; i + 4 <= n; i += 4) {
            __m128d x0 = _mm_add_pd(_mm_loadu_pd(a + i), _mm_loadu_pd(b + i));
            __m128d x1 = _mm_add_pd(_mm_loadu_pd(a + i + 2), _mm_loadu_pd(b + i + 2));
            _mm_stream_pd(c + i, x0);
            _mm_stream_pd(c + i + 2, x1);
        }
        _mm_sfence();
#endif
    }
    /* The tail, and the whole loop where no streaming store exists (the
       figure is then the plain-store rate, and the report says so). */
    for (; i < n; i++)
        c[i] = a[i] + b[i];
}

/* The compiler must not turn this into streaming stores or fold passes:
   the loop is out of line and the arrays are only known through pointers. */
static void plain_add(const double *restrict a, const double *restrict b, double *restrict c,
                      int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

int nclb_stream_has_nt_stores(void)
{
    if (have_avx()) return 256;
#if defined(__SSE2__)
    return 128;
#else
    return 0;
#endif
}

static int run_add(int streaming, const double *a, const double *b, double *c, int64_t n,
                   int64_t reps, int clock_kind, double *ns_per_pass)
{
    if (a == NULL || b == NULL || c == NULL || n < 1 || reps < 1 || ns_per_pass == NULL)
        return NCL_ERR_INVALID_ARGUMENT;
    const double t0 = now_ns(clock_kind);
    for (int64_t r = 0; r < reps; r++) {
        if (streaming)
            stream_add(a, b, c, n);
        else
            plain_add(a, b, c, n);
    }
    const double t1 = now_ns(clock_kind);
    *ns_per_pass = (t1 - t0) / (double)reps;
    return NCL_OK;
}

int nclb_stream_add(const double *a, const double *b, double *c, int64_t n, int64_t reps,
                    int clock_kind, double *ns_per_pass)
{
    return run_add(1, a, b, c, n, reps, clock_kind, ns_per_pass);
}

int nclb_plain_add(const double *a, const double *b, double *c, int64_t n, int64_t reps,
                   int clock_kind, double *ns_per_pass)
{
    return run_add(0, a, b, c, n, reps, clock_kind, ns_per_pass);
}

/* The second half of every pass, on a thread of its own. */
typedef struct half_pass {
    const double *a, *b;
    double *c;
    int64_t n, reps;
    pthread_barrier_t *bar;
} half_pass;

static void *half_main(void *arg)
{
    const half_pass *h = arg;
    for (int64_t r = 0; r < h->reps; r++) {
        pthread_barrier_wait(h->bar);
        stream_add(h->a, h->b, h->c, h->n);
        pthread_barrier_wait(h->bar);
    }
    return NULL;
}

int nclb_stream_add2(const double *a, const double *b, double *c, int64_t n, int64_t reps,
                     double *ns_per_pass)
{
    if (a == NULL || b == NULL || c == NULL || n < 2 || reps < 1 || ns_per_pass == NULL)
        return NCL_ERR_INVALID_ARGUMENT;
    pthread_barrier_t bar;
    if (pthread_barrier_init(&bar, NULL, 2) != 0) return NCL_ERR_NO_MEMORY;
    const int64_t m = n / 2;
    half_pass h = {a + m, b + m, c + m, n - m, reps, &bar};
    pthread_t t;
    if (pthread_create(&t, NULL, half_main, &h) != 0) {
        pthread_barrier_destroy(&bar);
        return NCL_ERR_NO_MEMORY;
    }
    const double t0 = now_ns(NCLB_CLOCK_WALL);
    for (int64_t r = 0; r < reps; r++) {
        pthread_barrier_wait(&bar);
        stream_add(a, b, c, m);
        pthread_barrier_wait(&bar);
    }
    const double t1 = now_ns(NCLB_CLOCK_WALL);
    pthread_join(t, NULL);
    pthread_barrier_destroy(&bar);
    *ns_per_pass = (t1 - t0) / (double)reps;
    return NCL_OK;
}
