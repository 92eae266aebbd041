/*
 * test_mpi_bigcount.c: arrays of more than 2^31 elements and messages of
 * more than 2^31 bytes, on two processes. A distributed int8 array of
 * 2^31 + 1 ones: its sum, and its gather to rank 0 when rank 1 holds 2^31
 * of the elements (one message of 2 GiB, which both MPIs carry only cut
 * into pieces: Open MPI 4.1 has no large-count calls), compared with the
 * gathered array's own sum and with its first and last elements.
 * About 9 GiB of memory across the two processes.
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
    NclMpiDetach(c);
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("2^31 + 1 elements over 2 processes: sum and gather %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all;
}
