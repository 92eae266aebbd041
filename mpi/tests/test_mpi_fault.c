/*
 * test_mpi_fault.c: a process that dies in the middle of a distributed
 * call. Rank 1 enters a distributed add and exits abnormally while the
 * others wait for it in the call's agreement; the job must end with a
 * non-zero status (mpiexec ends the others) within 10 seconds, which
 * tests/fault.cmake checks around mpiexec. Exits 0 only if the call
 * returned on a surviving rank, which must not happen.
 */
#include <stdio.h>
#include <stdlib.h>
#include "ncl/mpi.h"

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    NclMpiComm *c = NULL;
    if (NclMpiAttach(MPI_COMM_WORLD, &c) != NCL_OK) MPI_Abort(MPI_COMM_WORLD, 2);
    const int64_t n = 1 << 20;
    NclArray *a = NULL, *o = NULL;
    if (NclMpiZeros(c, NCL_FLOAT64, 1, &n, 0, NULL, &a)) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) abort(); /* dies before its part of the call */
    NclStatus st = NclBinary(NCL_ADD, a, a, &o, NULL);
    printf("rank %d: the call returned %d without rank 1\n", rank, (int)st);
    return 0;
}
