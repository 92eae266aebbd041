/*
 * test_mpi_bigcount.c: arrays of more than 2^31 elements and messages of
 * more than 2^31 bytes, on two processes. A distributed int8 array of
 * 2^31 + 1 ones: its sum, and its gather to rank 0 when rank 1 holds 2^31
 * of the elements (one message of 2 GiB, which both MPIs carry only cut
 * into pieces: Open MPI 4.1 has no large-count calls), compared with the
 * gathered array's own sum and with its first and last elements. Then a
 * sort of 2^31 + 1 int8 values of every kind: each rank's rows ascend,
 * rank 0's last row is at most rank 1's first, the layout is the input's,
 * and the sum is kept. About 12 GiB of memory across the two processes.
 */
#include <stdio.h>
#include <string.h>
#include "ncl/mpi.h"

int main(int argc, char **argv)
{
    int provided, rank, size, bad = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    NclMpiComm *c = NULL;
    if (size != 2 || NclMpiAttach(MPI_COMM_WORLD, &c) != NCL_OK) {
        fprintf(stderr, "run with two processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int64_t n = ((int64_t)1 << 31) + 1, counts[2] = {1, n - 1};
    const int8_t one = 1;
    NclArray *d = NULL, *s = NULL, *g = NULL, *gs = NULL;
    if (NclMpiFull(c, NCL_INT8, 1, &n, 0, counts, &one, &d) ||
        NclReduce(NCL_SUM, d, &s, NULL)) {
        fprintf(stderr, "rank %d: %s\n", rank, NclLastError());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const int64_t sum = *(const int64_t *)NclArrayData(s);
    if (sum != n) {
        fprintf(stderr, "rank %d: sum %lld, not %lld\n", rank, (long long)sum, (long long)n);
        bad = 1;
    }
    if (NclMpiGather(d, 0, &g) != NCL_OK) {
        fprintf(stderr, "rank %d: gather: %s\n", rank, NclLastError());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        const int8_t *x = NclArrayData(g);
        if (NclArraySize(g) != n || x[0] != 1 || x[n - 1] != 1 || NclReduce(NCL_SUM, g, &gs, NULL) ||
            *(const int64_t *)NclArrayData(gs) != n) {
            fprintf(stderr, "rank 0: the gathered array is wrong\n");
            bad = 1;
        }
    } else if (g != NULL) {
        fprintf(stderr, "rank 1: gather to rank 0 gave rank 1 an array\n");
        bad = 1;
    }
    NclArrayRelease(gs);
    NclArrayRelease(g);
    NclArrayRelease(s);
    NclArrayRelease(d);

    /* the sort */
    NclArray *v = NULL, *loc = NULL, *sorted = NULL, *sl = NULL, *s0 = NULL, *s1 = NULL;
    int64_t off = 0;
    if (NclMpiEmpty(c, NCL_INT8, 1, &n, 0, NULL, &v) || NclMpiLocal(v, &loc, &off)) {
        fprintf(stderr, "rank %d: %s\n", rank, NclLastError());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int8_t *x = NclArrayData(loc);
    const int64_t m = NclArraySize(loc);
    for (int64_t k = 0; k < m; k++) x[k] = (int8_t)(((off + k) * 7919) % 251 - 125);
    if (NclReduce(NCL_SUM, v, &s0, NULL) || NclSort(NCL_SORT, v, &sorted, NULL) ||
        NclReduce(NCL_SUM, sorted, &s1, NULL) || NclMpiLocal(sorted, &sl, NULL)) {
        fprintf(stderr, "rank %d: sort: %s\n", rank, NclLastError());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const int8_t *y = NclArrayData(sl);
    int ascending = NclArraySize(sl) == m;
    for (int64_t k = 1; k < NclArraySize(sl) && ascending; k++) ascending = y[k - 1] <= y[k];
    int8_t edge[2] = {y[0], y[NclArraySize(sl) - 1]}, other[2];
    MPI_Sendrecv(edge, 2, MPI_INT8_T, 1 - rank, 0, other, 2, MPI_INT8_T, 1 - rank, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 0 && edge[1] > other[0]) ascending = 0;
    if (!ascending || *(const int64_t *)NclArrayData(s0) != *(const int64_t *)NclArrayData(s1)) {
        fprintf(stderr, "rank %d: the sort of 2^31 + 1 elements is wrong\n", rank);
        bad = 1;
    }
    NclArray *arrs[] = {v, loc, sorted, sl, s0, s1};
    for (size_t k = 0; k < sizeof arrs / sizeof *arrs; k++) NclArrayRelease(arrs[k]);
    NclMpiDetach(c);
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("2^31 + 1 elements over 2 processes: sum, gather and sort %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all;
}
