/*
 * test_mpi_saveload.c: NclMpiSave with one process count, NclMpiLoad with
 * another (tests/saveload.cmake runs "save DIR" on 4 processes, then
 * "load DIR" on 2 and on 3). Four arrays (3-d split along its first and its
 * last axis, 1-d with an empty rank, 0-d) are saved under DIR; a load
 * gathers each and compares it byte for byte with the array built on one
 * process. A load also checks the refusals: a missing folder and a
 * manifest that does not match its parts, the same status on every rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ncl/mpi.h"

static int rank, size, bad;

static NclArray *build(int k)
{
    static const int64_t s3[3] = {37, 6, 5}, s1[1] = {5000};
    const NclDType dt[4] = {NCL_FLOAT64, NCL_INT32, NCL_INT16, NCL_FLOAT32};
    const int nd[4] = {3, 3, 1, 0};
    const int64_t *sh = k < 2 ? s3 : k == 2 ? s1 : NULL;
    NclArray *i = NULL, *r = NULL, *a = NULL;
    int64_t n = 1;
    for (int j = 0; j < nd[k]; j++) n *= sh[j];
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = dt[k];
    p.casting = NCL_CASTING_UNSAFE;
    if (NclArange(NCL_FLOAT64, 0.5, (double)n + 0.5, 1, &i) || NclArrayReshape(i, nd[k], sh, &r) ||
        NclConvert(NCL_CONVERT_ASTYPE, r, &a, &p)) {
        fprintf(stderr, "build: %s\n", NclLastError());
        exit(2);
    }
    NclArrayRelease(i);
    NclArrayRelease(r);
    return a;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || (strcmp(argv[1], "save") && strcmp(argv[1], "load"))) {
        if (rank == 0) fprintf(stderr, "usage: test_mpi_saveload save|load DIR\n");
        MPI_Finalize();
        return 2;
    }
    NclMpiComm *c = NULL;
    if (NclMpiAttach(MPI_COMM_WORLD, &c)) MPI_Abort(MPI_COMM_WORLD, 2);
    const int split[4] = {0, 2, 0, 0};
    char dir[4096];
    for (int k = 0; k < 4; k++) {
        snprintf(dir, sizeof dir, "%s/a%d", argv[2], k);
        NclArray *ref = build(k);
        if (strcmp(argv[1], "save") == 0) {
            int64_t counts[64] = {0};
            const int64_t rows = k < 3 ? NclArrayShape(ref)[split[k]] : 1;
            counts[size - 1] = rows; /* 1-d: everything on the last rank */
            NclArray *d = NULL;
            if (NclMpiScatter(c, 0, ref, split[k], k == 2 ? counts : NULL, &d) ||
                NclMpiSave(d, dir)) {
                fprintf(stderr, "rank %d: save %d: %s\n", rank, k, NclLastError());
                bad = 1;
            }
            NclArrayRelease(d);
        } else {
            NclArray *d = NULL, *g = NULL;
            if (NclMpiLoad(c, dir, &d) || NclMpiGather(d, NCL_MPI_ALL, &g)) {
                fprintf(stderr, "rank %d: load %d: %s\n", rank, k, NclLastError());
                bad = 1;
            } else {
                NclArray *cg = NULL, *cr = NULL;
                NclCopy(g, &cg);
                NclCopy(ref, &cr);
                const size_t bytes = (size_t)NclArraySize(cr) * NclDTypeSize(NclArrayDType(cr));
                if (NclArrayDType(cg) != NclArrayDType(cr) || NclArrayNDim(cg) != NclArrayNDim(cr) ||
                    NclArraySize(cg) != NclArraySize(cr) ||
                    memcmp(NclArrayData(cg), NclArrayData(cr), bytes) != 0) {
                    fprintf(stderr, "rank %d: array %d loaded on %d processes differs\n", rank, k,
                            size);
                    bad = 1;
                }
                NclArrayRelease(cg);
                NclArrayRelease(cr);
            }
            NclArrayRelease(g);
            NclArrayRelease(d);
        }
        NclArrayRelease(ref);
    }
    if (strcmp(argv[1], "load") == 0) {
        /* refusals, the same on every rank */
        NclArray *d = NULL;
        snprintf(dir, sizeof dir, "%s/missing", argv[2]);
        if (NclMpiLoad(c, dir, &d) != NCL_ERR_INVALID_ARGUMENT || d != NULL) {
            fprintf(stderr, "rank %d: a missing folder was not refused\n", rank);
            bad = 1;
        }
        /* a part that does not match: a1's manifest read for a0's parts */
        snprintf(dir, sizeof dir, "%s/mixed", argv[2]);
        if (rank == 0) {
            char cmd[8300];
            snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s/a0' '%s' && cp '%s/a1/manifest.txt' '%s/'",
                     dir, argv[2], dir, argv[2], dir);
            if (system(cmd) != 0) bad = 1;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (NclMpiLoad(c, dir, &d) != NCL_ERR_INVALID_ARGUMENT || d != NULL) {
            fprintf(stderr, "rank %d: parts that do not match the manifest were not refused\n",
                    rank);
            bad = 1;
        }
    }
    NclMpiDetach(c);
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("%s on %d processes: %s\n", argv[1], size, all ? "FAILED" : "ok");
    MPI_Finalize();
    return all;
}
