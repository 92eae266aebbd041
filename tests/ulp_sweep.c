/*
 * ulp_sweep.c: the worst error, in ulps, of NCLib's float32 exp, log, sin
 * and cos over every float32 input, in both accuracy tiers, and whether sin
 * is odd and cos even bit for bit. test_accuracy samples these functions;
 * this program reads all 2^32 inputs, which is where the bounds quoted in
 * kernels/unary/unary_vecmath.h come from.
 *
 *   ulp_sweep [--stride K] [--threads N] [--tier high|fast] [exp] [log] [sin] [cos]
 *
 * Every K-th bit pattern of the positive floats (K = 1, the default: all of
 * them, NaNs and infinities included) is taken with both signs; --tier
 * takes one accuracy tier instead of both. The reference is the double
 * libm function, whose own error (under one double ulp) is below 2^-28 of
 * a float32 ulp. N threads (default 2) each take every N-th block, each on
 * one NCLib thread. The kernel variant is the one the library picks;
 * NCL_DISABLE_CPU_FEATURES selects lower ones.
 *
 * Prints one line per function and tier: the inputs read, the worst error,
 * the input where it occurs, and a hash of all results that compares builds
 * (it does not depend on the thread count). Exits 1 when a result exceeds its tier's
 * bound (1 ulp HIGH, 4 ulp FAST, SPEC §7) or breaks the symmetry, 2 on bad
 * arguments or a failed call. ctest runs it with a coarse stride. The full
 * sweep takes 2 to 6 minutes per function and tier on two cores (sin the
 * longest: libm's double sin of huge arguments is slow).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ncl.h"
#include "ncl_ulp.h"

enum { BLOCK = 1 << 16, MAX_THREADS = 64 };

typedef struct {
    const char *name;
    NclUnaryOp op;
    double (*ref)(double);
    int parity; /* +1 even, -1 odd, 0 neither */
} fn_info;

static const fn_info fns[] = {
    {"exp", NCL_EXP, exp, 0},
    {"log", NCL_LOG, log, 0},
    {"sin", NCL_SIN, sin, -1},
    {"cos", NCL_COS, cos, +1},
};
enum { NFNS = sizeof fns / sizeof fns[0] };

typedef struct {
    double worst;       /* the largest error, in ulps */
    float at;           /* its input */
    uint64_t over;      /* results beyond the tier's bound */
    uint64_t asym;      /* pairs x, -x that break the symmetry */
    uint32_t asym_at;   /* the smallest such |x|, as bits */
    uint64_t count;     /* inputs read */
    uint64_t hash;      /* of every (input, result) pair, in any order */
} tally;

typedef struct {
    const fn_info *fn;
    NclAccuracy tier;
    double bound;
    uint64_t stride;
    int index, nthreads;
    NclStatus status; /* NCL_OK, or the failed call's status */
    tally t;
} job;

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* splitmix64's finaliser: the hash sums it over the (input, result) bit
   pairs, so that it does not depend on which thread took which block */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* ulp_error never gives a NaN: a wrong special value is an infinite error */
static void keep_worst(tally *t, double e, float x)
{
    if (e > t->worst) {
        t->worst = e;
        t->at = x;
    }
}

static void note(tally *t, double e, float x, double bound)
{
    keep_worst(t, e, x);
    if (e > bound) t->over++;
}

/* One block: m positive patterns from first (every stride-th), each taken
   as x and -x. */
static NclStatus run_block(job *j, float *x, uint64_t first, int64_t m)
{
    for (int64_t i = 0; i < m; i++) {
        const uint32_t u = (uint32_t)(first + (uint64_t)i * j->stride);
        x[2 * i] = from_bits(u);
        x[2 * i + 1] = from_bits(u | UINT32_C(0x80000000));
    }
    const int64_t n = 2 * m;
    NclArray *a = NULL, *out = NULL;
    NclStatus st = NclFromData(NCL_FLOAT32, 1, &n, NULL, x, 0, NULL, NULL, &a);
    if (st == NCL_OK) st = NclUnary(j->fn->op, a, &out, NULL);
    if (st == NCL_OK) {
        const float *y = NclArrayData(out);
        for (int64_t i = 0; i < n; i++) {
            const double r = j->fn->ref((double)x[i]);
            note(&j->t, ulp_error(NCL_FLOAT32, (long double)y[i], (long double)r), x[i], j->bound);
            j->t.hash += mix((uint64_t)to_bits(x[i]) << 32 | to_bits(y[i]));
        }
        for (int64_t i = 0; j->fn->parity && i < m; i++) {
            const float yp = y[2 * i], yn = y[2 * i + 1];
            if (isnan(yp) && isnan(yn)) continue;
            const float want = j->fn->parity > 0 ? yp : -yp;
            if (to_bits(yn) != to_bits(want) && j->t.asym++ == 0) j->t.asym_at = to_bits(x[2 * i]);
        }
        j->t.count += (uint64_t)n;
    }
    NclArrayRelease(out);
    NclArrayRelease(a);
    return st;
}

static void *run_job(void *arg)
{
    job *j = arg;
    float *x = malloc(2 * BLOCK * sizeof *x);
    if (!x) {
        j->status = NCL_ERR_NO_MEMORY;
        return NULL;
    }
    j->status = NclSetAccuracy(j->tier);
    /* the positive patterns 0, stride, 2 stride, ... below 2^31, in blocks
       of BLOCK patterns; this thread takes every nthreads-th block */
    const uint64_t npos = (UINT64_C(0x80000000) + j->stride - 1) / j->stride;
    for (uint64_t b = (uint64_t)j->index * BLOCK; j->status == NCL_OK && b < npos;
         b += (uint64_t)j->nthreads * BLOCK) {
        const int64_t m = (int64_t)(npos - b < BLOCK ? npos - b : BLOCK);
        j->status = run_block(j, x, b * j->stride, m);
    }
    free(x);
    return NULL;
}

static int parse_count(const char *s, uint64_t max, uint64_t *v)
{
    char *end;
    errno = 0;
    const unsigned long long r = strtoull(s, &end, 10);
    if (errno || end == s || *end || r < 1 || r > max || s[0] == '-') return -1;
    *v = r;
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: ulp_sweep [--stride K] [--threads N] [--tier high|fast] [exp] [log] [sin] [cos]\n");
    return 2;
}

int main(int argc, char **argv)
{
    uint64_t stride = 1, nthreads = 2;
    int want[NFNS] = {0}, any = 0, tier = -1; /* -1: both tiers */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--stride") && i + 1 < argc) {
            if (parse_count(argv[++i], UINT64_C(0x80000000), &stride)) return usage();
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if (parse_count(argv[++i], MAX_THREADS, &nthreads)) return usage();
        } else if (!strcmp(argv[i], "--tier") && i + 1 < argc) {
            i++;
            if (!strcmp(argv[i], "high")) tier = NCL_ACCURACY_HIGH;
            else if (!strcmp(argv[i], "fast")) tier = NCL_ACCURACY_FAST;
            else return usage();
        } else {
            int k = 0;
            while (k < NFNS && strcmp(argv[i], fns[k].name)) k++;
            if (k == NFNS) return usage();
            want[k] = any = 1;
        }
    }
    /* each worker of this program is one NCLib caller on one thread */
    if (NclSetNumThreads(1) != NCL_OK) {
        fprintf(stderr, "ulp_sweep: NclSetNumThreads: %s\n", NclLastError());
        return 2;
    }
    int failed = 0;
    static const struct {
        NclAccuracy tier;
        const char *name;
        double bound;
    } tiers[] = {{NCL_ACCURACY_HIGH, "HIGH", 1.0}, {NCL_ACCURACY_FAST, "FAST", 4.0}};
    printf("float32, every %" PRIu64 "-th positive pattern with both signs, %" PRIu64 " threads\n",
           stride, nthreads);
    for (int f = 0; f < NFNS; f++) {
        if (any && !want[f]) continue;
        for (int k = 0; k < 2; k++) {
            if (tier >= 0 && tiers[k].tier != (NclAccuracy)tier) continue;
            job jobs[MAX_THREADS];
            pthread_t tid[MAX_THREADS];
            for (int i = 0; i < (int)nthreads; i++) {
                jobs[i] = (job){&fns[f], tiers[k].tier, tiers[k].bound, stride, i, (int)nthreads,
                                NCL_OK, {0, 0, 0, 0, 0, 0, 0}};
                if (pthread_create(&tid[i], NULL, run_job, &jobs[i])) {
                    fprintf(stderr, "ulp_sweep: pthread_create failed\n");
                    return 2;
                }
            }
            tally t = {0, 0, 0, 0, 0, 0, 0};
            NclStatus st = NCL_OK;
            for (int i = 0; i < (int)nthreads; i++) {
                pthread_join(tid[i], NULL);
                const tally *u = &jobs[i].t;
                if (jobs[i].status != NCL_OK) st = jobs[i].status;
                keep_worst(&t, u->worst, u->at);
                if (u->asym && (!t.asym || u->asym_at < t.asym_at)) t.asym_at = u->asym_at;
                t.over += u->over;
                t.asym += u->asym;
                t.count += u->count;
                t.hash += u->hash;
            }
            if (st != NCL_OK) {
                fprintf(stderr, "ulp_sweep: %s %s: status %d\n", fns[f].name, tiers[k].name, (int)st);
                return 2;
            }
            printf("%-4s %s  %12" PRIu64 " inputs  worst %.4f ulp at %a (%.9g)  hash %016" PRIx64,
                   fns[f].name, tiers[k].name, t.count, t.worst, (double)t.at, (double)t.at, t.hash);
            if (t.over) printf("  %" PRIu64 " above %g ulp", t.over, tiers[k].bound);
            if (t.asym)
                printf("  %" PRIu64 " pairs not %s, the smallest |x| %a", t.asym,
                       fns[f].parity > 0 ? "even" : "odd", (double)from_bits(t.asym_at));
            printf("\n");
            fflush(stdout);
            failed |= t.over || t.asym;
        }
    }
    return failed ? 1 : 0;
}
