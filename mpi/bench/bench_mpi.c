/*
 * bench_mpi.c: the figures of docs/DISTRIBUTED.md.
 *
 *   bench_mpi passthrough [reps]   (one process) what the hooks cost a call
 *                                  with no distributed array: NclBinary(add)
 *                                  and NclReduce(sum) on 16 elements, with
 *                                  the hooks attached and not
 *   mpiexec -n 2 bench_mpi pingpong
 *                                  loopback latency and bandwidth, 8 B-64 MiB
 *   mpiexec -n P bench_mpi scaling N
 *                                  add, sum (float64) of N elements split
 *                                  over P ranks, and of N * P (weak scaling),
 *                                  and the same on one process without MPI
 *   mpiexec -n P bench_mpi sort N  the same for sort (float64, values of
 *                                  sin(i), median of 7)
 *   mpiexec -n P bench_mpi rng N   random (one word a value: every rank
 *                                  draws at once) and standard_normal (the
 *                                  ranks in turn) of N float64 from PCG64
 *                                  into a distributed array, and on one
 *                                  process without MPI
 * Each figure is the median of its repetitions; a distributed call's time
 * is the slowest rank's (barrier before, max after).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ncl/mpi.h"

static int rank, size;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

static void die(const char *what)
{
    fprintf(stderr, "bench_mpi: %s: %s\n", what, NclLastError());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* ns per call of f over reps calls, median of 9 runs */
static double per_call(void (*f)(void), int reps)
{
    double t[9];
    for (int r = 0; r < 9; r++) {
        const double t0 = now();
        for (int i = 0; i < reps; i++) f();
        t[r] = (now() - t0) / reps * 1e9;
    }
    return median(t, 9);
}

static NclArray *small_a, *small_o;
/* One function per phase (not inlined), so that an instruction profile
   (valgrind --tool=callgrind bench_mpi passthrough 2000) shows each
   phase's cost per call apart: none, hooked, live. */
#define PHASE(name)                                                        \
    static __attribute__((noinline)) void add_##name(void)                \
    {                                                                      \
        if (NclBinary(NCL_ADD, small_a, small_a, &small_o, NULL)) die("add"); \
    }                                                                      \
    static __attribute__((noinline)) void sum_##name(void)                \
    {                                                                      \
        NclArray *o = NULL;                                                \
        if (NclReduce(NCL_SUM, small_a, &o, NULL)) die("sum");            \
        NclArrayRelease(o);                                                \
    }
PHASE(none)
PHASE(hooked)
PHASE(live)
PHASE(after)

static void passthrough(int reps)
{
    if (NclArange(NCL_FLOAT64, 0, 16, 1, &small_a) || NclEmpty(NCL_FLOAT64, 1, (int64_t[]){16}, &small_o))
        die("arrays");
    double add0 = per_call(add_none, reps), sum0 = per_call(sum_none, reps);
    NclMpiComm *c = NULL;
    if (NclMpiAttach(MPI_COMM_WORLD, &c)) die("attach");
    double add1 = per_call(add_hooked, reps), sum1 = per_call(sum_hooked, reps);
    /* with a distributed array alive, each call tests its arrays' flags */
    NclArray *live = NULL;
    if (NclMpiZeros(c, NCL_FLOAT64, 1, (int64_t[]){16}, 0, NULL, &live)) die("live");
    double add3 = per_call(add_live, reps), sum3 = per_call(sum_live, reps);
    NclArrayRelease(live);
    NclMpiDetach(c);
    double add2 = per_call(add_after, reps), sum2 = per_call(sum_after, reps);
    printf("passthrough add16: %.1f ns without hooks, %.1f ns with, %.1f ns after detach: +%.1f ns\n",
           add0, add1, add2, add1 - (add0 + add2) / 2);
    printf("passthrough sum16: %.1f ns without hooks, %.1f ns with, %.1f ns after detach: +%.1f ns\n",
           sum0, sum1, sum2, sum1 - (sum0 + sum2) / 2);
    printf("passthrough with a distributed array alive: add16 %.1f ns (+%.1f), sum16 %.1f ns (+%.1f)\n",
           add3, add3 - (add0 + add2) / 2, sum3, sum3 - (sum0 + sum2) / 2);
    NclArrayRelease(small_a);
    NclArrayRelease(small_o);
}

static void pingpong(void)
{
    if (size < 2) {
        if (rank == 0) printf("pingpong needs 2 processes\n");
        return;
    }
    char *buf = malloc((size_t)64 << 20);
    memset(buf, 1, (size_t)64 << 20);
    for (int64_t bytes = 8; bytes <= ((int64_t)64 << 20); bytes *= 8) {
        const int reps = bytes < 65536 ? 2000 : bytes < (1 << 22) ? 100 : 10;
        double t[5];
        for (int r = 0; r < 5; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = now();
            for (int i = 0; i < reps && rank < 2; i++) {
                if (rank == 0) {
                    MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                    MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
                }
            }
            t[r] = (now() - t0) / reps / 2;
        }
        const double half = median(t, 5);
        if (rank == 0)
            printf("pingpong %9lld B: %8.2f us one way, %7.2f GB/s\n", (long long)bytes, half * 1e6,
                   (double)bytes / half / 1e9);
    }
    free(buf);
}

/* the slowest rank's time of op on the distributed operands, median of 7 */
static double dist_time(NclMpiComm *c, int op, NclArray *da, NclArray *db)
{
    (void)c;
    double t[7];
    for (int r = 0; r < 7; r++) {
        NclArray *o = NULL;
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = now();
        if (op == 0 ? NclBinary(NCL_ADD, da, db, &o, NULL)
            : op == 1 ? NclReduce(NCL_SUM, da, &o, NULL)
                      : NclSort(NCL_SORT, da, &o, NULL))
            die("distributed op");
        double dt = now() - t0, mx = 0;
        MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        t[r] = mx;
        NclArrayRelease(o);
    }
    return median(t, 7);
}

static double local_time(int op, NclArray *a, NclArray *b)
{
    double t[7];
    for (int r = 0; r < 7; r++) {
        NclArray *o = NULL;
        const double t0 = now();
        if (op == 0 ? NclBinary(NCL_ADD, a, b, &o, NULL)
            : op == 1 ? NclReduce(NCL_SUM, a, &o, NULL)
                      : NclSort(NCL_SORT, a, &o, NULL))
            die("local op");
        t[r] = now() - t0;
        NclArrayRelease(o);
    }
    return median(t, 7);
}

static void scaling(int64_t n)
{
    NclMpiComm *c = NULL;
    if (NclMpiAttach(MPI_COMM_WORLD, &c)) die("attach");
    for (int weak = 0; weak < 2; weak++) {
        const int64_t total = weak ? n * size : n;
        NclArray *da = NULL, *db = NULL;
        if (NclMpiArange(c, NCL_FLOAT64, 0, (double)total, 1, &da) ||
            NclMpiArange(c, NCL_FLOAT64, 1, (double)total + 1, 1, &db))
            die("operands");
        const double add = dist_time(c, 0, da, db), sum = dist_time(c, 1, da, NULL);
        if (rank == 0)
            printf("%s P=%d n=%lld: add %.2f ms, sum %.2f ms\n", weak ? "weak" : "strong", size,
                   (long long)total, add * 1e3, sum * 1e3);
        NclArrayRelease(da);
        NclArrayRelease(db);
    }
    NclMpiDetach(c);
    if (rank == 0) {
        NclArray *a = NULL, *b = NULL;
        if (NclArange(NCL_FLOAT64, 0, (double)n, 1, &a) || NclArange(NCL_FLOAT64, 1, (double)n + 1, 1, &b))
            die("operands");
        printf("one process, no MPI n=%lld: add %.2f ms, sum %.2f ms\n", (long long)n,
               local_time(0, a, b) * 1e3, local_time(1, a, NULL) * 1e3);
        NclArrayRelease(a);
        NclArrayRelease(b);
    }
}

static void sort_scaling(int64_t n)
{
    NclMpiComm *c = NULL;
    if (NclMpiAttach(MPI_COMM_WORLD, &c)) die("attach");
    for (int weak = 0; weak < 2; weak++) {
        const int64_t total = weak ? n * size : n;
        NclArray *di = NULL, *da = NULL;
        if (NclMpiArange(c, NCL_FLOAT64, 0, (double)total, 1, &di) ||
            NclUnary(NCL_SIN, di, &da, NULL))
            die("operands");
        const double t = dist_time(c, 2, da, NULL);
        if (rank == 0)
            printf("%s P=%d n=%lld: sort %.1f ms\n", weak ? "weak" : "strong", size,
                   (long long)total, t * 1e3);
        NclArrayRelease(di);
        NclArrayRelease(da);
    }
    NclMpiDetach(c);
    if (rank == 0) {
        NclArray *i = NULL, *a = NULL;
        if (NclArange(NCL_FLOAT64, 0, (double)n, 1, &i) || NclUnary(NCL_SIN, i, &a, NULL))
            die("operands");
        printf("one process, no MPI n=%lld: sort %.1f ms\n", (long long)n, local_time(2, a, NULL) * 1e3);
        NclArrayRelease(i);
        NclArrayRelease(a);
    }
}

/* One draw of n float64 into out (distributed or not), the median of 7. */
static double rng_time(NclRngOp op, NclArray *out, int dist)
{
    const uint32_t seed = 1;
    NclSeedSequence *ss = NULL;
    NclRngGen *g = NULL;
    if (NclSeedSequenceCreate(&seed, 1, NULL, 0, &ss) || NclRngGenCreate(NCL_BITGEN_PCG64, ss, &g))
        die("generator");
    double t[7];
    for (int r = 0; r < 7; r++) {
        NclArray *o = out;
        if (dist) MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = now();
        if (NclRng(op, g, NULL, NULL, &o, NULL)) die("draw");
        double dt = now() - t0, mx = dt;
        if (dist) MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        t[r] = mx;
    }
    NclRngGenFree(g);
    NclSeedSequenceFree(ss);
    return median(t, 7);
}

static void rng_scaling(int64_t n)
{
    NclMpiComm *c = NULL;
    NclArray *d = NULL;
    if (NclMpiAttach(MPI_COMM_WORLD, &c) || NclMpiEmpty(c, NCL_FLOAT64, 1, &n, 0, NULL, &d))
        die("attach");
    const double tr = rng_time(NCL_RNG_RANDOM, d, 1), tn = rng_time(NCL_RNG_STANDARD_NORMAL, d, 1);
    if (rank == 0)
        printf("P=%d n=%lld: random %.1f ms, standard_normal %.1f ms\n", size, (long long)n,
               tr * 1e3, tn * 1e3);
    NclArrayRelease(d);
    NclMpiDetach(c);
    if (rank == 0) {
        NclArray *a = NULL;
        if (NclEmpty(NCL_FLOAT64, 1, &n, &a)) die("output");
        printf("one process, no MPI n=%lld: random %.1f ms, standard_normal %.1f ms\n",
               (long long)n, rng_time(NCL_RNG_RANDOM, a, 0) * 1e3,
               rng_time(NCL_RNG_STANDARD_NORMAL, a, 0) * 1e3);
        NclArrayRelease(a);
    }
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "passthrough") == 0 && rank == 0)
        passthrough(argc > 2 ? atoi(argv[2]) : 200000);
    else if (strcmp(mode, "pingpong") == 0) pingpong();
    else if (strcmp(mode, "scaling") == 0 && argc > 2) scaling(atoll(argv[2]));
    else if (strcmp(mode, "sort") == 0 && argc > 2) sort_scaling(atoll(argv[2]));
    else if (strcmp(mode, "rng") == 0 && argc > 2) rng_scaling(atoll(argv[2]));
    else if (rank == 0 && strcmp(mode, "passthrough") != 0)
        fprintf(stderr, "usage: bench_mpi passthrough [reps] | pingpong | scaling N | sort N | rng N\n");
    MPI_Finalize();
    return 0;
}
