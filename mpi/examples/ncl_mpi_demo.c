/*
 * ncl_mpi_demo.c: a distributed sum and sort under mpiexec. Every rank
 * makes the same calls: rank 0's array of 10 million float64 values is
 * scattered, squared and summed across the processes (the rows of each
 * stay in its own memory; each process may run its share on its thread
 * pool), then sorted across them; both results are compared, bit for bit,
 * with the same calls on one process.
 *
 *   mpiexec -n 2 build/mpi-demo/ncl_mpi_demo
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ncl/mpi.h"

static int fail(const char *what)
{
    fprintf(stderr, "ncl_mpi_demo: %s: %s\n", what, NclLastError());
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    NclMpiComm *c = NULL;
    if (NclMpiAttach(MPI_COMM_WORLD, &c) != NCL_OK) return fail("attach");

    /* the data, on rank 0: x[i] = sin(i) * 1000 */
    const int64_t n = 10 * 1000 * 1000;
    NclArray *x = NULL, *i = NULL;
    if (rank == 0) {
        if (NclArange(NCL_FLOAT64, 0, (double)n, 1, &i) || NclUnary(NCL_SIN, i, &x, NULL))
            return fail("the data");
        const double k = 1000.0;
        NclArray *kk = NULL, *y = NULL;
        if (NclFull(NCL_FLOAT64, 0, NULL, &k, &kk) || NclBinary(NCL_MULTIPLY, x, kk, &y, NULL))
            return fail("the data");
        NclArrayRelease(x);
        NclArrayRelease(kk);
        x = y;
    }

    /* distributed: scatter, square, sum */
    NclArray *dx = NULL, *dsq = NULL, *dsum = NULL;
    if (NclMpiScatter(c, 0, x, 0, NULL, &dx)) return fail("scatter");
    if (NclBinary(NCL_MULTIPLY, dx, dx, &dsq, NULL)) return fail("square");
    if (NclReduce(NCL_SUM, dsq, &dsum, NULL)) return fail("sum");
    NclMpiLayoutInfo li;
    NclMpiLayout(dx, &li);
    printf("rank %d of %d: rows %lld..%lld of %lld, sum of squares %.17g\n", rank, size,
           (long long)li.offsets[rank], (long long)(li.offsets[rank] + li.counts[rank]),
           (long long)n, *(const double *)NclArrayData(dsum));
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);

    /* the distributed sort, gathered on rank 0 */
    NclArray *dsorted = NULL, *gathered = NULL;
    if (NclSort(NCL_SORT, dx, &dsorted, NULL)) return fail("sort");
    if (NclMpiGather(dsorted, 0, &gathered)) return fail("gather");

    /* the same on one process, and the bits compared */
    if (rank == 0) {
        NclArray *sq = NULL, *sum = NULL, *sorted = NULL;
        if (NclBinary(NCL_MULTIPLY, x, x, &sq, NULL) || NclReduce(NCL_SUM, sq, &sum, NULL) ||
            NclSort(NCL_SORT, x, &sorted, NULL))
            return fail("one process");
        const double a = *(const double *)NclArrayData(dsum),
                     b = *(const double *)NclArrayData(sum);
        const int same = memcmp(&a, &b, sizeof a) == 0;
        const int same_sort = memcmp(NclArrayData(gathered), NclArrayData(sorted),
                                     (size_t)n * sizeof(double)) == 0;
        const double *g = NclArrayData(gathered);
        printf("one process:      sum of squares %.17g\n", b);
        printf("sorted: %.6f %.6f %.6f ... %.6f\n", g[0], g[1], g[2], g[n - 1]);
        printf("%d processes and one give %s for the sum and %s for the sort\n", size,
               same ? "the same bits" : "DIFFERENT bits",
               same_sort ? "the same bits" : "DIFFERENT bits");
        NclArrayRelease(sq);
        NclArrayRelease(sum);
        NclArrayRelease(sorted);
        if (!same || !same_sort) MPI_Abort(MPI_COMM_WORLD, 1);
    }
    NclArrayRelease(gathered);
    NclArrayRelease(dsorted);
    NclArrayRelease(dsum);
    NclArrayRelease(dsq);
    NclArrayRelease(dx);
    NclArrayRelease(x);
    NclArrayRelease(i);
    NclMpiDetach(c);
    MPI_Finalize();
    return 0;
}
