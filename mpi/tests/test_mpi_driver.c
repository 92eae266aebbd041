/*
 * test_mpi_driver.c: driver mode. Rank 0 alone runs the program below;
 * the other ranks serve its calls inside NclMpiDriverBegin. Every result
 * rank 0 gets is compared byte for byte with the same calls on ordinary
 * arrays: creation, scatter, elementwise with a replicated operand, sums
 * over and across the split axis, sort, mask, argmax, mean, redistribution,
 * save and load, and handles released along the way (the workers release
 * theirs). Run under mpiexec with any number of processes; argv[1] is a
 * scratch folder for the save.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ncl/mpi.h"

static int failures;

#define CHECK(cond, what)                                                     \
    do {                                                                      \
        if (!(cond)) {                                                        \
            failures++;                                                       \
            fprintf(stderr, "driver: %s failed [%s]\n", what, NclLastError()); \
        }                                                                     \
    } while (0)

static int same(const NclArray *x, const NclArray *y)
{
    NclArray *cx = NULL, *cy = NULL;
    if (!x || !y || NclCopy(x, &cx) || NclCopy(y, &cy)) return 0;
    const int nd = NclArrayNDim(cx);
    int eq = NclArrayDType(cx) == NclArrayDType(cy) && nd == NclArrayNDim(cy) &&
             memcmp(NclArrayShape(cx), NclArrayShape(cy), (size_t)nd * 8) == 0 &&
             memcmp(NclArrayData(cx), NclArrayData(cy),
                    (size_t)NclArraySize(cx) * NclDTypeSize(NclArrayDType(cx))) == 0;
    NclArrayRelease(cx);
    NclArrayRelease(cy);
    return eq;
}

/* d gathered on rank 0 equals ref. */
static void expect(const NclArray *d, const NclArray *ref, const char *what)
{
    NclArray *g = NULL;
    CHECK(NclMpiGather(d, 0, &g) == NCL_OK && same(g, ref), what);
    NclArrayRelease(g);
}

static void program(NclMpiComm *c, const char *dir)
{
    const int64_t n = 5000, sh[2] = {300, 7};
    NclArray *i = NULL, *a = NULL, *m = NULL, *b = NULL;
    NclArange(NCL_FLOAT64, 0, (double)n, 1, &i);
    NclUnary(NCL_SIN, i, &a, NULL);
    NclArange(NCL_FLOAT64, 0, (double)(sh[0] * sh[1]), 1, &b);
    NclArrayReshape(b, 2, sh, &m);
    NclArrayRelease(b);
    b = NULL;
    /* scatter, elementwise with a replicated operand */
    NclArray *da = NULL, *dm = NULL, *r = NULL, *dr = NULL;
    CHECK(NclMpiScatter(c, 0, a, 0, NULL, &da) == NCL_OK, "scatter");
    CHECK(NclMpiScatter(c, 0, m, 1, NULL, &dm) == NCL_OK, "scatter 2-d");
    NclBinary(NCL_MULTIPLY, a, i, &r, NULL);
    CHECK(NclBinary(NCL_MULTIPLY, da, i, &dr, NULL) == NCL_OK, "multiply");
    expect(dr, r, "multiply by a replicated operand");
    NclArrayRelease(r), r = NULL;
    /* sums: over the split axis (ordinary result) and across it */
    NclArray *s = NULL, *ds = NULL;
    NclReduce(NCL_SUM, r = a, &s, NULL);
    r = NULL;
    CHECK(NclReduce(NCL_SUM, dr, &ds, NULL) == NCL_OK, "sum");
    NclArray *s2 = NULL;
    NclArray *ar2 = NULL;
    NclBinary(NCL_MULTIPLY, a, i, &ar2, NULL);
    NclReduce(NCL_SUM, ar2, &s2, NULL);
    CHECK(same(ds, s2), "sum over the split axis");
    NclArrayRelease(ds), ds = NULL;
    NclArrayRelease(s), s = NULL;
    NclArrayRelease(s2);
    NclArrayRelease(ar2);
    NclParams p = NCL_PARAMS_INIT;
    const int axis0 = 0;
    p.axes = &axis0;
    p.naxes = 1;
    NclReduce(NCL_SUM, m, &s, &p);
    CHECK(NclReduce(NCL_SUM, dm, &ds, &p) == NCL_OK, "column sums");
    expect(ds, s, "sums across the split axis");
    NclArrayRelease(ds), ds = NULL;
    NclArrayRelease(s), s = NULL;
    /* sort, mask, argmax, mean */
    NclArray *so = NULL, *dso = NULL, *zero = NULL, *mask = NULL, *dmask = NULL, *cm = NULL,
             *dcm = NULL;
    NclSort(NCL_SORT, a, &so, NULL);
    CHECK(NclSort(NCL_SORT, da, &dso, NULL) == NCL_OK, "sort");
    expect(dso, so, "sort");
    const double z = 0;
    NclFull(NCL_FLOAT64, 0, NULL, &z, &zero);
    NclCompare(NCL_CMP_GT, a, zero, &mask, NULL);
    CHECK(NclCompare(NCL_CMP_GT, da, zero, &dmask, NULL) == NCL_OK, "compare");
    NclMask(NCL_MASK_COMPRESS, a, mask, &cm, NULL);
    CHECK(NclMask(NCL_MASK_COMPRESS, da, dmask, &dcm, NULL) == NCL_OK, "compress");
    expect(dcm, cm, "a[mask]");
    NclArray *am = NULL, *dam = NULL, *mean = NULL, *dmean = NULL;
    NclReduce(NCL_ARGMAX, a, &am, NULL);
    CHECK(NclReduce(NCL_ARGMAX, da, &dam, NULL) == NCL_OK && same(dam, am), "argmax");
    NclReduce(NCL_MEAN, a, &mean, NULL);
    CHECK(NclReduce(NCL_MEAN, da, &dmean, NULL) == NCL_OK && same(dmean, mean), "mean");
    /* creation, redistribution, save and load */
    NclArray *dz = NULL, *zz = NULL, *dar = NULL, *arr = NULL, *moved = NULL, *loaded = NULL;
    CHECK(NclMpiZeros(c, NCL_INT16, 2, sh, 1, NULL, &dz) == NCL_OK, "zeros");
    NclZeros(NCL_INT16, 2, sh, &zz);
    expect(dz, zz, "zeros");
    CHECK(NclMpiArange(c, NCL_INT32, 3, 1000, 7, &dar) == NCL_OK, "arange");
    NclArange(NCL_INT32, 3, 1000, 7, &arr);
    expect(dar, arr, "arange");
    CHECK(NclMpiRedistribute(dm, 0, NULL, &moved) == NCL_OK, "redistribute");
    expect(moved, m, "redistribute");
    CHECK(NclMpiSave(moved, dir) == NCL_OK, "save");
    CHECK(NclMpiLoad(c, dir, &loaded) == NCL_OK, "load");
    expect(loaded, m, "save and load");
    /* random numbers: rank 0's generator, drawn on every rank (chain and
       skip), the values and the state one process's */
    const uint32_t seed = 99;
    NclSeedSequence *ss = NULL;
    NclRngGen *g1 = NULL, *g2 = NULL;
    NclSeedSequenceCreate(&seed, 1, NULL, 0, &ss);
    NclRngGenCreate(NCL_BITGEN_PCG64, ss, &g1);
    NclRngGenCopy(g1, &g2);
    for (int op = 0; op < 2; op++) {
        const NclRngOp o = op ? NCL_RNG_RANDOM : NCL_RNG_STANDARD_NORMAL;
        NclArray *ref = NULL, *dd = NULL;
        NclParams q = NCL_PARAMS_INIT;
        q.ndim = 2;
        q.shape = sh;
        NclRng(o, g1, NULL, NULL, &ref, &q);
        CHECK(NclMpiEmpty(c, NCL_FLOAT64, 2, sh, 0, NULL, &dd) == NCL_OK, "empty");
        CHECK(NclRng(o, g2, NULL, NULL, &dd, &q) == NCL_OK, "draw");
        expect(dd, ref, op ? "random" : "standard_normal");
        NclArrayRelease(dd);
        NclArrayRelease(ref);
    }
    unsigned char b1[256], b2[256];
    size_t n1 = 0, n2 = 0;
    NclRngGenGetState(g1, b1, sizeof b1, &n1);
    NclRngGenGetState(g2, b2, sizeof b2, &n2);
    CHECK(n1 == n2 && memcmp(b1, b2, n1) == 0, "the generator's state after the draws");
    NclRngGenFree(g1);
    NclRngGenFree(g2);
    NclSeedSequenceFree(ss);
    /* an error: the same status, nothing left half done */
    NclArray *bad = NULL;
    CHECK(NclBinary(NCL_ADD, da, m, &bad, NULL) == NCL_ERR_BROADCAST && bad == NULL,
          "shapes that do not broadcast");
    NclArray *all[] = {i, a, m, da, dm, dr, so, dso, zero, mask, dmask, cm, dcm, am, dam, mean,
                       dmean, dz, zz, dar, arr, moved, loaded};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) NclArrayRelease(all[k]);
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    NclMpiComm *c = NULL;
    if (argc != 2 || NclMpiAttach(MPI_COMM_WORLD, &c) != NCL_OK) MPI_Abort(MPI_COMM_WORLD, 2);
    if (NclMpiDriverBegin(c) != NCL_OK) {
        fprintf(stderr, "rank %d: driver: %s\n", rank, NclLastError());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0) {
        program(c, argv[1]);
        CHECK(NclMpiDriverEnd(c) == NCL_OK, "end");
    }
    NclMpiDetach(c);
    MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("driver mode: %s\n", failures ? "FAILED" : "ok");
    MPI_Finalize();
    return failures != 0;
}
