/*
 * test_mpi_dist.c: distributed arrays against the same calls on one
 * process. Run under mpiexec with any number of processes: every rank
 * builds the whole operands (their values depend on the global index
 * only), makes the distributed call and the ordinary one, gathers the
 * distributed result and compares the two byte for byte. Also: layouts
 * with empty ranks, redistribution, calls that differ between ranks
 * (refused everywhere), errors every rank returns alike, and calls the
 * distributed layer does not serve yet (refused everywhere).
 * Exit status 0 when every check on every rank passed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ncl/mpi.h"

static int rank, nranks, failures, checks;
/* NCL_MPI_TEST_SMALL=1: fewer dtypes in the sweeps, for an MPI whose
   collectives cost a scheduler time slice when processes outnumber cores
   (MPICH's busy polling: about 5 ms each against 1 us). */
static int small;
static NclMpiComm *C;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        checks++;                                                           \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            fprintf(stderr, "rank %d: %s:%d: ", rank, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, " [%s]\n", NclLastError());                     \
        }                                                                   \
    } while (0)
#define OK(call) CHECK((call) == NCL_OK, "%s failed", #call)

/* ---- operands ---------------------------------------------------------------- */

static NclStatus astype(const NclArray *a, NclDType dt, NclArray **out)
{
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = dt;
    p.casting = NCL_CASTING_UNSAFE;
    return NclConvert(NCL_CONVERT_ASTYPE, a, out, &p);
}

/* Element i of a test array of dtype dt: values with fractions, signs,
   repeats, and (floats, when special) a NaN or an infinity now and then. */
static double value_at(int64_t i, int special)
{
    if (special && i % 37 == 5) return NAN;
    if (special && i % 53 == 7) return -INFINITY;
    const double x = (double)((i * 7919) % 1000) / 7.0 - 60.0;
    return (i % 3 == 0) ? x * 1e3 : x;
}

static NclArray *make(NclDType dt, int nd, const int64_t *shape, int special)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++) n *= shape[i];
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++) v[i] = value_at(i, special);
    NclArray *f = NULL, *a = NULL;
    if (NclFromData(NCL_FLOAT64, nd, shape, NULL, v, NCL_ARRAY_WRITEABLE, NULL, NULL, &f) ||
        astype(f, dt, &a)) {
        fprintf(stderr, "rank %d: cannot make an operand: %s\n", rank, NclLastError());
        exit(2);
    }
    NclArrayRelease(f);
    free(v);
    return a;
}

/* Whether two ordinary arrays have the same dtype, shape and bytes (C
   order). */
static int same_bits(const NclArray *x, const NclArray *y)
{
    if (x == NULL || y == NULL) return x == y;
    if (NclMpiIsDistributed(x) || NclMpiIsDistributed(y)) {
        fprintf(stderr, "rank %d: same_bits of a distributed array\n", rank);
        return 0;
    }
    if (NclArrayDType(x) != NclArrayDType(y) || NclArrayNDim(x) != NclArrayNDim(y)) return 0;
    const int nd = NclArrayNDim(x);
    if (memcmp(NclArrayShape(x), NclArrayShape(y), (size_t)nd * sizeof(int64_t))) return 0;
    NclArray *cx = NULL, *cy = NULL;
    if (NclCopy(x, &cx) || NclCopy(y, &cy)) return 0;
    const size_t bytes = (size_t)NclArraySize(cx) * NclDTypeSize(NclArrayDType(cx));
    const int eq = bytes == 0 || memcmp(NclArrayData(cx), NclArrayData(cy), bytes) == 0;
    NclArrayRelease(cx);
    NclArrayRelease(cy);
    return eq;
}

/* d gathered on every rank equals ref. */
static void expect_equal(const NclArray *d, const NclArray *ref, const char *what)
{
    CHECK(NclMpiIsDistributed(d), "%s: the result is not distributed", what);
    NclArray *g = NULL;
    if (NclMpiGather(d, NCL_MPI_ALL, &g) != NCL_OK) {
        CHECK(0, "%s: gather failed", what);
        return;
    }
    CHECK(same_bits(g, ref), "%s: the bits differ from one process's", what);
    NclArrayRelease(g);
}

static NclArray *scatter(const NclArray *a, int split, const int64_t *counts)
{
    NclArray *d = NULL;
    if (NclMpiScatter(C, 0, rank == 0 ? a : NULL, split, counts, &d) != NCL_OK) {
        fprintf(stderr, "rank %d: scatter failed: %s\n", rank, NclLastError());
        exit(2);
    }
    return d;
}

/* Counts with empty ranks: everything on the last rank but one row on
   rank 0. */
static void lopsided(int64_t n, int64_t *counts)
{
    for (int r = 0; r < nranks; r++) counts[r] = 0;
    if (n == 0) return;
    counts[0] = 1;
    counts[nranks - 1] += n - 1;
}

/* ---- cases ------------------------------------------------------------------- */

static void t_scatter_gather(void)
{
    static const NclDType dts[] = {NCL_BOOL, NCL_INT8, NCL_UINT16, NCL_INT64, NCL_FLOAT32,
                                   NCL_FLOAT64};
    const int64_t shapes[][3] = {{7, 0, 0}, {0, 0, 0}, {5, 3, 0}, {4, 3, 2}, {1, 9, 0}};
    const int nds[] = {1, 1, 2, 3, 2};
    for (size_t t = 0; t < (small ? 2 : sizeof dts / sizeof *dts); t++)
        for (int s = 0; s < 5; s++)
            for (int split = 0; split < nds[s]; split++)
                for (int lop = 0; lop < 2; lop++) {
                    NclArray *a = make(dts[t], nds[s], shapes[s], 1);
                    int64_t counts[64];
                    lopsided(shapes[s][split], counts);
                    NclArray *d = scatter(a, split, lop ? counts : NULL);
                    char what[96];
                    snprintf(what, sizeof what, "scatter/gather dtype %d shape %d split %d%s",
                             (int)dts[t], s, split, lop ? " lopsided" : "");
                    expect_equal(d, a, what);
                    /* gather to each root in turn */
                    for (int root = 0; root < nranks; root++) {
                        NclArray *g = NULL;
                        OK(NclMpiGather(d, root, &g));
                        CHECK(rank == root ? same_bits(g, a) : g == NULL, "%s to root %d", what,
                              root);
                        NclArrayRelease(g);
                    }
                    /* the local partition and its offset */
                    NclArray *l = NULL;
                    int64_t off = -1;
                    NclMpiLayoutInfo li;
                    OK(NclMpiLocal(d, &l, &off));
                    OK(NclMpiLayout(d, &li));
                    CHECK(li.nranks == nranks && li.rank == rank && li.split == split &&
                              off == li.offsets[rank] &&
                              NclArrayShape(l)[split] == li.counts[rank],
                          "%s: layout", what);
                    NclArrayRelease(l);
                    NclArrayRelease(d);
                    NclArrayRelease(a);
                }
    /* a 0-d array */
    NclArray *a = make(NCL_FLOAT64, 0, NULL, 0);
    NclArray *d = scatter(a, 0, NULL);
    expect_equal(d, a, "scatter/gather 0-d");
    NclArrayRelease(d);
    NclArrayRelease(a);
}

static void t_create(void)
{
    const int64_t shape[2] = {13, 4};
    NclArray *d = NULL, *r = NULL;
    OK(NclMpiZeros(C, NCL_INT32, 2, shape, 1, NULL, &d));
    OK(NclZeros(NCL_INT32, 2, shape, &r));
    expect_equal(d, r, "zeros");
    NclArrayRelease(d);
    NclArrayRelease(r);
    const double v = -2.5;
    OK(NclMpiFull(C, NCL_FLOAT64, 2, shape, 0, NULL, &v, &d));
    OK(NclFull(NCL_FLOAT64, 2, shape, &v, &r));
    expect_equal(d, r, "full");
    NclArrayRelease(d);
    NclArrayRelease(r);
    OK(NclMpiArange(C, NCL_FLOAT32, 0.5, 100.0, 0.7, &d));
    OK(NclArange(NCL_FLOAT32, 0.5, 100.0, 0.7, &r));
    expect_equal(d, r, "arange");
    NclArrayRelease(d);
    NclArrayRelease(r);
    OK(NclMpiEmpty(C, NCL_UINT8, 2, shape, -1, NULL, &d));
    NclMpiLayoutInfo li;
    OK(NclMpiLayout(d, &li));
    CHECK(li.split == 1, "empty: split -1 is the last axis");
    NclArrayRelease(d);
    /* bad arguments: the same status on every rank */
    int64_t bad[64];
    for (int r2 = 0; r2 < nranks; r2++) bad[r2] = 1;
    CHECK(NclMpiZeros(C, NCL_INT32, 2, shape, 2, NULL, &d) == NCL_ERR_AXIS, "split 2 of 2-d");
    CHECK(NclMpiZeros(C, NCL_INT32, 2, shape, 0, bad, &d) == NCL_ERR_INVALID_ARGUMENT,
          "counts that do not sum");
    CHECK(NclMpiFull(C, NCL_INT32, 2, shape, 0, NULL, NULL, &d) == NCL_ERR_INVALID_ARGUMENT,
          "full without value");
}

static void t_elementwise(void)
{
    const int64_t sh[2] = {11, 6}, row[1] = {6}, col[2] = {11, 1};
    NclArray *a = make(NCL_FLOAT64, 2, sh, 1), *b = make(NCL_FLOAT64, 2, sh, 0);
    NclArray *r6 = make(NCL_FLOAT32, 1, row, 0), *c1 = make(NCL_INT16, 2, col, 0);
    int64_t counts[64];
    lopsided(sh[0], counts);
    NclArray *da = scatter(a, 0, NULL), *db = scatter(b, 0, NULL), *db1 = scatter(b, 1, NULL);
    NclArray *dbl = scatter(b, 0, counts), *dc1 = scatter(c1, 0, NULL);
    static const NclBinaryOp ops[] = {NCL_ADD, NCL_MULTIPLY, NCL_DIVIDE, NCL_POWER,
                                      NCL_MAXIMUM, NCL_ARCTAN2};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        NclArray *ref = NULL, *o = NULL;
        char what[64];
        OK(NclBinary(ops[i], a, b, &ref, NULL));
        snprintf(what, sizeof what, "binary %d, same layout", (int)ops[i]);
        OK(NclBinary(ops[i], da, db, &o, NULL));
        expect_equal(o, ref, what);
        NclArrayRelease(o), o = NULL;
        snprintf(what, sizeof what, "binary %d, other split", (int)ops[i]);
        OK(NclBinary(ops[i], da, db1, &o, NULL));
        expect_equal(o, ref, what);
        NclArrayRelease(o), o = NULL;
        snprintf(what, sizeof what, "binary %d, other counts", (int)ops[i]);
        OK(NclBinary(ops[i], da, dbl, &o, NULL));
        expect_equal(o, ref, what);
        NclArrayRelease(o), o = NULL;
        snprintf(what, sizeof what, "binary %d, ordinary operand", (int)ops[i]);
        OK(NclBinary(ops[i], a, db, &o, NULL));
        expect_equal(o, ref, what);
        NclArrayRelease(o), o = NULL;
        NclArrayRelease(ref), ref = NULL;
        /* broadcasting: a row (ordinary) and a column (distributed) */
        OK(NclBinary(ops[i], a, r6, &ref, NULL));
        OK(NclBinary(ops[i], da, r6, &o, NULL));
        snprintf(what, sizeof what, "binary %d, broadcast row", (int)ops[i]);
        expect_equal(o, ref, what);
        NclArrayRelease(o), o = NULL;
        NclArrayRelease(ref), ref = NULL;
        OK(NclBinary(ops[i], c1, a, &ref, NULL));
        OK(NclBinary(ops[i], dc1, da, &o, NULL));
        snprintf(what, sizeof what, "binary %d, distributed column", (int)ops[i]);
        expect_equal(o, ref, what);
        NclArrayRelease(o), o = NULL;
        NclArrayRelease(ref), ref = NULL;
    }
    /* where= and a provided distributed output */
    NclArray *mask = NULL, *ref = NULL, *o = NULL, *dmask = NULL;
    OK(NclCompare(NCL_CMP_LT, a, b, &mask, NULL));
    dmask = scatter(mask, 1, NULL);
    NclParams p = NCL_PARAMS_INIT;
    OK(NclCopy(b, &ref));
    p.where = mask;
    OK(NclBinary(NCL_SUBTRACT, a, b, &ref, &p));
    OK(NclMpiScatter(C, 0, rank == 0 ? b : NULL, 0, NULL, &o));
    p.where = dmask;
    OK(NclBinary(NCL_SUBTRACT, da, db, &o, &p));
    expect_equal(o, ref, "subtract with a distributed where into a provided output");
    NclArrayRelease(o), o = NULL;
    NclArrayRelease(ref), ref = NULL;
    /* compare, unary, isunary, convert, ternary */
    OK(NclCompare(NCL_CMP_LE, a, r6, &ref, NULL));
    OK(NclCompare(NCL_CMP_LE, da, r6, &o, NULL));
    expect_equal(o, ref, "compare");
    NclArrayRelease(o), o = NULL;
    NclArrayRelease(ref), ref = NULL;
    OK(NclUnary(NCL_SQRT, a, &ref, NULL));
    OK(NclUnary(NCL_SQRT, da, &o, NULL));
    expect_equal(o, ref, "sqrt");
    NclArrayRelease(o), o = NULL;
    NclArrayRelease(ref), ref = NULL;
    OK(NclIsUnary(NCL_IS_NAN, a, &ref, NULL));
    OK(NclIsUnary(NCL_IS_NAN, da, &o, NULL));
    expect_equal(o, ref, "isnan");
    NclArrayRelease(o), o = NULL;
    NclArrayRelease(ref), ref = NULL;
    OK(astype(a, NCL_INT16, &ref));
    NclParams pc = NCL_PARAMS_INIT;
    pc.dtype = NCL_INT16;
    pc.casting = NCL_CASTING_UNSAFE;
    OK(NclConvert(NCL_CONVERT_ASTYPE, da, &o, &pc));
    expect_equal(o, ref, "astype int16");
    NclArrayRelease(o), o = NULL;
    NclArrayRelease(ref), ref = NULL;
    OK(NclTernary(NCL_CLIP, a, r6, b, &ref, NULL));
    OK(NclTernary(NCL_CLIP, da, r6, db1, &o, NULL));
    expect_equal(o, ref, "clip");
    NclArrayRelease(o), o = NULL;
    NclArrayRelease(ref), ref = NULL;
    /* a casting error: the same status on every rank, nothing made */
    pc.casting = NCL_CASTING_SAFE;
    CHECK(NclConvert(NCL_CONVERT_ASTYPE, da, &o, &pc) == NCL_ERR_CASTING && o == NULL,
          "astype under safe casting");
    /* shapes that do not broadcast */
    const int64_t three[1] = {3};
    NclArray *t3 = make(NCL_FLOAT64, 1, three, 0);
    CHECK(NclBinary(NCL_ADD, da, t3, &o, NULL) == NCL_ERR_BROADCAST && o == NULL,
          "shapes that do not broadcast");
    NclArrayRelease(t3);
    NclArray *arrs[] = {a, b, r6, c1, da, db, db1, dbl, dc1, mask, dmask};
    for (size_t i = 0; i < sizeof arrs / sizeof *arrs; i++) NclArrayRelease(arrs[i]);
}

static void t_reduce(void)
{
    const int64_t sh1[1] = {5000}, sh3[3] = {9, 5, 4};
    static const NclDType dts[] = {NCL_FLOAT64, NCL_FLOAT32, NCL_INT32, NCL_UINT8, NCL_BOOL};
    static const NclReduceOp ops[] = {NCL_SUM,    NCL_PROD,   NCL_MIN,
                                      NCL_MAX,    NCL_ANY,    NCL_ALL,
                                      NCL_COUNT_NONZERO, NCL_ARGMIN, NCL_ARGMAX,
                                      NCL_MEAN};
    const int axes_sets[][3] = {{0, 0, 0}, {1, 0, 0}, {0, 2, 0}, {2, 1, 0}, {0, 1, 2}};
    const int naxes[] = {1, 1, 2, 2, 3};
    for (size_t t = 0; t < (small ? 1 : sizeof dts / sizeof *dts); t++)
        for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
            for (int shape = 0; shape < 2; shape++)
                for (int split = 0; split < (shape ? 3 : 1); split++)
                    for (int ax = -1; ax < (shape ? 5 : 1); ax += 1 + small)
                        for (int keep = 0; keep < 2 - small; keep++) {
                            const int nd = shape ? 3 : 1;
                            NclArray *a = make(dts[t], nd, shape ? sh3 : sh1,
                                               ops[o] != NCL_MIN && ops[o] != NCL_MAX);
                            NclArray *da = scatter(a, split, NULL);
                            NclParams p = NCL_PARAMS_INIT;
                            p.keepdims = keep;
                            if (ax >= 0) {
                                p.axes = axes_sets[ax];
                                p.naxes = naxes[ax];
                            }
                            NclArray *ref = NULL, *res = NULL;
                            const NclStatus sr = NclReduce(ops[o], a, &ref, &p);
                            const NclStatus sd = NclReduce(ops[o], da, &res, &p);
                            char what[96];
                            snprintf(what, sizeof what, "reduce %d dtype %d shape %d split %d "
                                     "axes %d keep %d", (int)ops[o], (int)dts[t], shape, split,
                                     ax, keep);
                            CHECK(sr == sd, "%s: status %d against %d", what, (int)sd, (int)sr);
                            if (sr == NCL_OK && sd == NCL_OK) {
                                if (NclMpiIsDistributed(res)) expect_equal(res, ref, what);
                                else CHECK(same_bits(res, ref), "%s: bits differ", what);
                            }
                            NclArrayRelease(res);
                            NclArrayRelease(ref);
                            NclArrayRelease(da);
                            NclArrayRelease(a);
                        }
    /* dtype= and initial=, and ranks with no rows */
    NclArray *a = make(NCL_INT16, 1, sh1, 0);
    int64_t counts[64];
    lopsided(sh1[0], counts);
    NclArray *da = scatter(a, 0, counts);
    NclParams p = NCL_PARAMS_INIT;
    const double init = 0.25;
    p.dtype = NCL_FLOAT64;
    p.initial = &init;
    for (int op = 0; op < 4; op++) {
        NclArray *ref = NULL, *res = NULL;
        OK(NclReduce((NclReduceOp)op, a, &ref, &p));
        OK(NclReduce((NclReduceOp)op, da, &res, &p));
        CHECK(same_bits(res, ref), "reduce %d with dtype and initial, lopsided", op);
        NclArrayRelease(res);
        NclArrayRelease(ref);
    }
    NclArrayRelease(da);
    NclArrayRelease(a);
}

/* Values so large that the tree adds its chunk values plainly, without
   compensation (ncl/reduce.h): then the order of the chunks shows in the
   bits. Element i is +-(1 + a fraction) * 2^1010 (2^113 in float32), the
   sign flipping every 1024 elements, so sums stay finite. */
static NclArray *make_large(NclDType dt, int nd, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++) n *= shape[i];
    NclArray *a = NULL;
    if (NclEmpty(dt, nd, shape, &a) != NCL_OK) exit(2);
    for (int64_t i = 0; i < n; i++) {
        const double frac = (double)((i * 40503) % 65536) / 65536.0;
        const double v = ((i / 1024) % 2 ? -1.0 : 1.0) * (1.0 + frac);
        if (dt == NCL_FLOAT64) ((double *)NclArrayData(a))[i] = ldexp(v, 1010);
        else ((float *)NclArrayData(a))[i] = (float)ldexp(v, 113);
    }
    return a;
}

/* Float sums and products over the split axis, on shapes whose rows
   spread over the ranks at chunk boundaries (and one where the split axis
   is not the outermost reduced one, so rows move first). */
static void t_reduce_tree(void)
{
    const int64_t shapes[][3] = {{3000, 3, 1}, {40, 32, 32}, {2100, 2, 3}, {7, 600, 2}};
    const int nds[] = {2, 3, 3, 3};
    const int axes[][3] = {{0, 1, 0}, {0, 2, 0}, {0, 1, 2}, {1, 2, 0}, {0, 1, 0}};
    const int nax[] = {1, 2, 3, 2, 2};
    static const NclDType dts[] = {NCL_FLOAT64, NCL_FLOAT32};
    for (int sh = 0; sh < 4; sh++)
        for (int split = 0; split < 2; split++)
            for (int ax = small; ax < 5; ax += 1 + small)
                for (size_t t = 0; t < 2u - small; t++)
                    for (int op = 0; op < 3; op++) {
                        if (nds[sh] == 2 && (ax == 1 || ax == 2 || ax == 3)) continue;
                        NclArray *a = op == 2 ? make_large(dts[t], nds[sh], shapes[sh])
                                              : make(dts[t], nds[sh], shapes[sh], 0);
                        if (op == 1) {
                            /* products near 1, so they stay finite */
                            NclArray *s = NULL, *one = NULL, *x = NULL;
                            const double k = 1e-5, o = 1.0;
                            NclFull(dts[t], 0, NULL, dts[t] == NCL_FLOAT32 ? (void *)&(float){(float)k} : (void *)&k, &s);
                            NclFull(dts[t], 0, NULL, dts[t] == NCL_FLOAT32 ? (void *)&(float){(float)o} : (void *)&o, &one);
                            NclBinary(NCL_MULTIPLY, a, s, &x, NULL);
                            NclArrayRelease(a), a = NULL;
                            NclBinary(NCL_ADD, x, one, &a, NULL);
                            NclArrayRelease(x);
                            NclArrayRelease(s);
                            NclArrayRelease(one);
                        }
                        NclArray *da = scatter(a, split, NULL);
                        NclParams p = NCL_PARAMS_INIT;
                        p.axes = axes[ax];
                        p.naxes = nax[ax];
                        p.keepdims = ax == 4;
                        NclArray *ref = NULL, *res = NULL;
                        const NclReduceOp rop = op == 1 ? NCL_PROD : NCL_SUM;
                        char what[96];
                        snprintf(what, sizeof what, "tree %s shape %d split %d axes %d dtype %d",
                                 op == 1 ? "prod" : op ? "large sum" : "sum", sh, split, ax,
                                 (int)dts[t]);
                        OK(NclReduce(rop, a, &ref, &p));
                        OK(NclReduce(rop, da, &res, &p));
                        if (NclMpiIsDistributed(res)) expect_equal(res, ref, what);
                        else CHECK(same_bits(res, ref), "%s: the bits differ", what);
                        NclArrayRelease(res);
                        NclArrayRelease(ref);
                        NclArrayRelease(da);
                        NclArrayRelease(a);
                    }
}

/* Sort and argsort on every layout, against one process: argsort (of
   either kind) gives the stable order (ties by global position); sort gives
   the one-process sort of its kind (the operands hold no -0.0, whose order
   against 0.0 the default kind leaves open). */
static void t_sort(void)
{
    static const NclDType dts[] = {NCL_FLOAT64, NCL_FLOAT32, NCL_INT16, NCL_UINT8, NCL_BOOL,
                                   NCL_INT64};
    const int64_t lens[] = {0, 1, 5, 97, 5000};
    for (size_t t = 0; t < (small ? 2 : sizeof dts / sizeof *dts); t++)
        for (size_t l = 0; l < sizeof lens / sizeof *lens; l++)
            for (int lop = 0; lop < 2; lop++)
                for (int op = 0; op < 2; op++)
                    for (int kind = 0; kind < 2 - small; kind++) {
                        /* many ties: values repeat, and NaNs (floats) */
                        NclArray *a = make(dts[t], 1, &lens[l], 1);
                        int64_t counts[64];
                        lopsided(lens[l], counts);
                        NclArray *da = scatter(a, 0, lop ? counts : NULL);
                        NclParams ps = NCL_PARAMS_INIT, pd = NCL_PARAMS_INIT;
                        ps.kind = op ? NCL_SORT_STABLE : kind;
                        pd.kind = kind;
                        NclArray *ref = NULL, *res = NULL;
                        const NclSortOp sop = op ? NCL_ARGSORT : NCL_SORT;
                        char what[96];
                        snprintf(what, sizeof what, "%s dtype %d n %lld%s kind %d",
                                 op ? "argsort" : "sort", (int)dts[t], (long long)lens[l],
                                 lop ? " lopsided" : "", kind);
                        OK(NclSort(sop, a, &ref, &ps));
                        OK(NclSort(sop, da, &res, &pd));
                        if (res) {
                            expect_equal(res, ref, what);
                            NclMpiLayoutInfo la, lr;
                            OK(NclMpiLayout(da, &la));
                            OK(NclMpiLayout(res, &lr));
                            CHECK(memcmp(la.counts, lr.counts, (size_t)nranks * 8) == 0,
                                  "%s: the layout is not the input's", what);
                        }
                        NclArrayRelease(res);
                        NclArrayRelease(ref);
                        NclArrayRelease(da);
                        NclArrayRelease(a);
                    }
    /* 2-d: along the split axis and along the other one */
    const int64_t sh[2] = {37, 6};
    NclArray *a = make(NCL_FLOAT64, 2, sh, 1);
    for (int split = 0; split < 2; split++)
        for (int axis = 0; axis < 2; axis++)
            for (int op = 0; op < 2; op++) {
                NclArray *da = scatter(a, split, NULL), *ref = NULL, *res = NULL;
                NclParams p = NCL_PARAMS_INIT;
                p.kind = NCL_SORT_STABLE;
                p.axes = &axis;
                p.naxes = 1;
                OK(NclSort(op ? NCL_ARGSORT : NCL_SORT, a, &ref, &p));
                OK(NclSort(op ? NCL_ARGSORT : NCL_SORT, da, &res, &p));
                char what[64];
                snprintf(what, sizeof what, "2-d %s split %d axis %d", op ? "argsort" : "sort",
                         split, axis);
                if (res) expect_equal(res, ref, what);
                NclArrayRelease(res);
                NclArrayRelease(ref);
                NclArrayRelease(da);
            }
    NclArrayRelease(a);
}

/* a[mask], nonzero and take against one process. */
/* The memory a distributed sort allocates on each rank (its working
   arrays and its result, through the NEP 49 handler, which every array
   and scratch buffer of both libraries comes from), at its peak: at most
   2.5 times the rank's partition for SORT; for ARGSORT, whose keys and
   result carry an 8-byte index with every value, 2.5 times the partition
   and its indices together. NCL_MPI_TEST_VERBOSE=1 prints the figures. */
static void t_sort_memory(void)
{
    static const NclDType dts[] = {NCL_FLOAT64, NCL_INT32, NCL_FLOAT32};
    const int64_t n = (int64_t)nranks * 100000;
    for (size_t t = 0; t < sizeof dts / sizeof *dts; t++)
        for (int op = 0; op < 2; op++)
            for (int kind = 0; kind < 2; kind++) {
                NclArray *a = make(dts[t], 1, &n, 1), *d = scatter(a, 0, NULL), *r = NULL,
                         *loc = NULL;
                NclArrayRelease(a);
                OK(NclMpiLocal(d, &loc, NULL));
                const double part =
                    (double)NclArraySize(loc) * (double)(NclDTypeSize(dts[t]) + (op ? 8 : 0));
                NclArrayRelease(loc);
                /* a fresh wrapper for the call alone: its peak is the call's */
                NclMemAccounting *acc = NULL;
                OK(NclMemAccountingCreate(NULL, &acc));
                const NclMemHandler *prev = NclDataMem_SetHandler(NclMemAccountingHandler(acc));
                NclParams p = NCL_PARAMS_INIT;
                p.kind = kind;
                OK(NclSort(op ? NCL_ARGSORT : NCL_SORT, d, &r, &p));
                NclDataMem_SetHandler(prev);
                NclMemStats st;
                NclMemAccountingStats(acc, &st);
                double mine = (double)st.peak_bytes / part, worst = 0;
                MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                if (rank == 0 && getenv("NCL_MPI_TEST_VERBOSE"))
                    printf("sort memory: %s %s kind %d: %.2f x the partition%s\n",
                           op ? "argsort" : "sort", NclDTypeName(dts[t]), kind, worst,
                           op ? " and its indices" : "");
                CHECK(mine <= 2.5, "%s %s kind %d: %.2f x the partition%s", op ? "argsort" : "sort",
                      NclDTypeName(dts[t]), kind, mine, op ? " and its indices" : "");
                NclArrayRelease(r);
                NclArrayRelease(d);
                NclMemAccountingDestroy(acc);
            }
}

static void t_mask(void)
{
    const int64_t shapes[][2] = {{5000, 1}, {37, 6}, {3, 50}};
    const int nds[] = {1, 2, 2};
    for (int sh = 0; sh < 3; sh++)
        for (int split = 0; split < nds[sh]; split++)
            for (int lop = 0; lop < 2; lop++) {
                NclArray *a = make(NCL_FLOAT64, nds[sh], shapes[sh], 1), *mask = NULL, *zero = NULL;
                const double z = 10.0;
                OK(NclFull(NCL_FLOAT64, 0, NULL, &z, &zero));
                OK(NclCompare(NCL_CMP_LT, a, zero, &mask, NULL));
                int64_t counts[64];
                lopsided(shapes[sh][split], counts);
                NclArray *da = scatter(a, split, lop ? counts : NULL);
                NclArray *dm = scatter(mask, nds[sh] - 1 - split, NULL);
                NclArray *ref = NULL, *res = NULL;
                char what[96];
                snprintf(what, sizeof what, "shape %d split %d%s", sh, split, lop ? " lopsided" : "");
                /* a[mask], with the mask distributed (split otherwise) and not */
                OK(NclMask(NCL_MASK_COMPRESS, a, mask, &ref, NULL));
                OK(NclMask(NCL_MASK_COMPRESS, da, dm, &res, NULL));
                expect_equal(res, ref, "compress, distributed mask");
                NclArrayRelease(res), res = NULL;
                OK(NclMask(NCL_MASK_COMPRESS, da, mask, &res, NULL));
                expect_equal(res, ref, "compress, ordinary mask");
                NclArrayRelease(res), res = NULL;
                NclArrayRelease(ref), ref = NULL;
                /* nonzero */
                OK(NclMask(NCL_MASK_NONZERO, mask, NULL, &ref, NULL));
                OK(NclMask(NCL_MASK_NONZERO, dm, NULL, &res, NULL));
                expect_equal(res, ref, "nonzero");
                NclArrayRelease(res), res = NULL;
                NclArrayRelease(ref), ref = NULL;
                /* take along the other axis */
                if (nds[sh] == 2) {
                    const int axis = 1 - split;
                    NclArray *idx = NULL;
                    const int64_t ni[1] = {4};
                    idx = make(NCL_INT64, 1, ni, 0);
                    NclArray *m2 = NULL, *k = NULL;
                    const int64_t ext = shapes[sh][axis];
                    OK(NclFull(NCL_INT64, 0, NULL, &ext, &k));
                    OK(NclBinary(NCL_REMAINDER, idx, k, &m2, NULL));
                    NclParams pt = NCL_PARAMS_INIT;
                    pt.axes = &axis;
                    pt.naxes = 1;
                    OK(NclMask(NCL_MASK_TAKE, a, m2, &ref, &pt));
                    OK(NclMask(NCL_MASK_TAKE, da, m2, &res, &pt));
                    expect_equal(res, ref, "take along the other axis");
                    NclArrayRelease(res), res = NULL;
                    NclArrayRelease(ref), ref = NULL;
                    NclArrayRelease(idx);
                    NclArrayRelease(m2);
                    NclArrayRelease(k);
                }
                (void)what;
                NclArray *arrs[] = {a, mask, zero, da, dm};
                for (size_t i = 0; i < sizeof arrs / sizeof *arrs; i++) NclArrayRelease(arrs[i]);
            }
}

/* The first row of a 2-d array, as a 1-d view. */
static NclStatus first_row(const NclArray *a, NclArray **out)
{
    const int64_t lo[2] = {0, 0}, hi[2] = {1, NclArrayShape(a)[1]}, one[1] = {NclArrayShape(a)[1]};
    NclArray *v = NULL;
    NclStatus st = NclArraySlice(a, lo, hi, NULL, &v);
    if (st == NCL_OK) st = NclArrayReshape(v, 1, one, out);
    NclArrayRelease(v);
    return st;
}

/* Indices into an extent n: values in [-n, n) of the given shape. */
static NclArray *indices(NclDType dt, int nd, const int64_t *shape, int64_t n, int64_t seed)
{
    int64_t m = 1;
    for (int i = 0; i < nd; i++) m *= shape[i];
    int64_t *v = malloc((size_t)(m ? m : 1) * sizeof *v);
    for (int64_t i = 0; i < m; i++) {
        const int64_t r = (int64_t)(((uint64_t)(i + seed) * 2654435761u) % (uint64_t)(2 * n));
        v[i] = dt == NCL_UINT64 || dt == NCL_UINT16 ? r % n : r - n;
    }
    NclArray *f = NULL, *a = NULL;
    if (NclFromData(NCL_INT64, nd, shape, NULL, v, NCL_ARRAY_WRITEABLE, NULL, NULL, &f) ||
        astype(f, dt, &a))
        exit(2);
    NclArrayRelease(f);
    free(v);
    return a;
}

/* TAKE along the split axis and of the flattened array: ordinary indices
   of 0-2 dimensions, distributed ones split along either axis, negative
   ones, and an index out of range (refused alike, with one process's
   message). */
static void t_take(void)
{
    const int64_t shapes[][2] = {{5000, 1}, {37, 6}};
    const int nds[] = {1, 2};
    const int64_t i1[1] = {50}, i2[2] = {5, 7};
    for (int sh = 0; sh < 2; sh++)
        for (int split = 0; split < nds[sh]; split++)
            for (int lop = 0; lop < 2 - small; lop++)
                for (int flat = 0; flat < 2; flat++) {
                    NclArray *a = make(NCL_FLOAT64, nds[sh], shapes[sh], 1);
                    int64_t counts[64];
                    lopsided(shapes[sh][split], counts);
                    NclArray *da = scatter(a, split, lop ? counts : NULL);
                    const int64_t len = flat ? shapes[sh][0] * (nds[sh] == 2 ? shapes[sh][1] : 1)
                                             : shapes[sh][split];
                    NclParams p = NCL_PARAMS_INIT;
                    p.axes = &split;
                    p.naxes = 1;
                    NclArray *ix[6] = {indices(NCL_INT64, 1, i1, len, 3),
                                       indices(NCL_INT32, 2, i2, len, 7),
                                       indices(NCL_UINT16, 0, NULL, len, 11), NULL, NULL,
                                       indices(NCL_UINT64, 1, i1, len, 5)};
                    ix[3] = scatter(ix[0], 0, NULL);
                    ix[4] = scatter(ix[1], 1, NULL);
                    const NclArray *plain[6] = {ix[0], ix[1], ix[2], ix[0], ix[1], ix[5]};
                    for (int k = 0; k < 6; k++) {
                        NclArray *ref = NULL, *res = NULL;
                        char what[96];
                        snprintf(what, sizeof what, "take shape %d split %d%s%s, indices %d", sh,
                                 split, lop ? " lopsided" : "", flat ? " flat" : "", k);
                        const NclStatus sr = NclMask(NCL_MASK_TAKE, a, plain[k], &ref, flat ? NULL : &p);
                        const NclStatus sd = NclMask(NCL_MASK_TAKE, da, ix[k], &res, flat ? NULL : &p);
                        CHECK(sr == NCL_OK && sd == NCL_OK, "%s: status %d against %d", what,
                              (int)sd, (int)sr);
                        if (sr == NCL_OK && sd == NCL_OK) expect_equal(res, ref, what);
                        NclArrayRelease(res);
                        NclArrayRelease(ref);
                    }
                    /* one index out of range, near the end */
                    NclArray *bad = indices(NCL_INT64, 1, i1, len, 3), *dbad = NULL, *cell = NULL,
                             *v = NULL, *ref = NULL, *res = NULL;
                    const int64_t at[1] = {47}, to[1] = {48}, big = len + 2;
                    OK(NclArraySlice(bad, at, to, NULL, &cell));
                    OK(NclFull(NCL_INT64, 0, NULL, &big, &v));
                    OK(NclConvert(NCL_CONVERT_COPYTO, v, &cell, NULL));
                    dbad = scatter(bad, 0, NULL);
                    const NclStatus sr = NclMask(NCL_MASK_TAKE, a, bad, &ref, flat ? NULL : &p);
                    char msg[512];
                    snprintf(msg, sizeof msg, "%s", NclLastError());
                    const NclStatus sd = NclMask(NCL_MASK_TAKE, da, dbad, &res, flat ? NULL : &p);
                    CHECK(sr == NCL_ERR_INDEX && sd == sr && res == NULL &&
                              strstr(NclLastError(), msg) != NULL,
                          "an index out of range: status %d against %d, \"%s\" against \"%s\"",
                          (int)sd, (int)sr, NclLastError(), msg);
                    NclArray *arrs[] = {a, da, ix[0], ix[1], ix[2], ix[3], ix[4], ix[5],
                                        bad, dbad, cell, v};
                    for (size_t i = 0; i < sizeof arrs / sizeof *arrs; i++)
                        NclArrayRelease(arrs[i]);
                }
}

/* PUT into distributed targets: masks distributed, ordinary and
   broadcast; values ordinary, distributed (split either way), one value,
   of another dtype; a count of values that fits nothing is refused alike
   with the target unchanged. */
static void t_put(void)
{
    const int64_t shapes[][2] = {{5000, 1}, {37, 6}};
    const int nds[] = {1, 2};
    for (int sh = 0; sh < 2; sh++)
        for (int split = 0; split < nds[sh]; split++)
            for (int lop = 0; lop < 2 - small; lop++)
                for (int mk = small; mk < 3; mk++)
                    for (int vk = 0; vk < 4; vk++) {
                        if (mk == 2 && nds[sh] == 1) continue;
                        const int nd = nds[sh];
                        NclArray *t = make(NCL_FLOAT64, nd, shapes[sh], 1), *zero = NULL,
                                 *mfull = NULL, *m = NULL;
                        int64_t counts[64];
                        lopsided(shapes[sh][split], counts);
                        const double z = 10.0;
                        OK(NclFull(NCL_FLOAT64, 0, NULL, &z, &zero));
                        OK(NclCompare(NCL_CMP_LT, t, zero, &mfull, NULL));
                        /* the mask: the whole one (ordinary or distributed along
                           the other axis), or one row broadcast */
                        NclArray *dm = NULL, *row = NULL;
                        if (mk == 2) {
                            OK(first_row(mfull, &row));
                            m = row;
                        } else
                            m = mfull;
                        if (mk == 1) dm = scatter(mfull, nd - 1 - split, NULL);
                        NclArray *cnt = NULL;
                        NclArray *mb = NULL;
                        OK(NclArrayBroadcastTo(m, nd, shapes[sh], &mb));
                        OK(NclReduce(NCL_COUNT_NONZERO, mb, &cnt, NULL));
                        const int64_t ntrue = *(const int64_t *)NclArrayData(cnt);
                        const int64_t nv[1] = {vk == 2 ? 1 : ntrue + (vk == 3)};
                        NclArray *v = make(vk == 1 ? NCL_INT32 : NCL_FLOAT64, 1, nv, 0), *dv = NULL;
                        if (vk == 1) dv = scatter(v, 0, NULL);
                        NclArray *ref = NULL, *dt = scatter(t, split, lop ? counts : NULL);
                        OK(NclCopy(t, &ref));
                        char what[96];
                        snprintf(what, sizeof what, "put shape %d split %d%s mask %d values %d", sh,
                                 split, lop ? " lopsided" : "", mk, vk);
                        const NclStatus sr = NclMask(NCL_MASK_PUT, m, v, &ref, NULL);
                        NclArray *target = dt;
                        const NclStatus sd =
                            NclMask(NCL_MASK_PUT, dm ? dm : m, dv ? dv : v, &target, NULL);
                        CHECK(sr == sd && (vk == 3 ? sr == NCL_ERR_SHAPE : sr == NCL_OK),
                              "%s: status %d against %d", what, (int)sd, (int)sr);
                        expect_equal(dt, vk == 3 ? t : ref, what);
                        NclArray *arrs[] = {t, zero, mfull, dm, row, cnt, mb, v, dv, ref, dt};
                        for (size_t i = 0; i < sizeof arrs / sizeof *arrs; i++)
                            NclArrayRelease(arrs[i]);
                    }
}

static void t_redistribute(void)
{
    const int64_t sh[3] = {7, 6, 5};
    NclArray *a = make(NCL_INT64, 3, sh, 0);
    NclArray *d = scatter(a, 0, NULL);
    int64_t counts[64];
    for (int split = 0; split < 3; split++)
        for (int lop = 0; lop < 2; lop++) {
            lopsided(sh[split], counts);
            NclArray *m = NULL;
            OK(NclMpiRedistribute(d, split, lop ? counts : NULL, &m));
            NclMpiLayoutInfo li;
            OK(NclMpiLayout(m, &li));
            CHECK(li.split == split && (!lop || li.counts[nranks - 1] == counts[nranks - 1]),
                  "redistribute: layout");
            expect_equal(m, a, "redistribute");
            NclArrayRelease(m);
        }
    NclArrayRelease(d);
    NclArrayRelease(a);
}

/* ---- random numbers ---------------------------------------------------------- */

/* gen's state blob equals ref's. */
static int same_state(const NclRngGen *g, const NclRngGen *ref)
{
    unsigned char a[4096], b[4096];
    size_t na = 0, nb = 0;
    return NclRngGenGetState(g, a, sizeof a, &na) == NCL_OK &&
           NclRngGenGetState(ref, b, sizeof b, &nb) == NCL_OK && na == nb &&
           memcmp(a, b, na) == 0;
}

static NclArray *scalar(NclDType dt, double v)
{
    NclArray *f = NULL, *a = NULL;
    if (NclFull(NCL_FLOAT64, 0, NULL, &v, &f) || astype(f, dt, &a)) exit(2);
    NclArrayRelease(f);
    return a;
}

typedef struct rng_case {
    NclRngOp op;
    NclDType dt;       /* the result's */
    NclDType pdt;      /* the parameters' */
    double a, b;       /* NaN: no parameter */
} rng_case;

/* Every op into distributed outputs of several layouts (ranks in C order,
   a split axis after one of extent > 1, empty ranks, 0-d), from every
   bit generator with and without a buffered 32-bit half: the values and
   the generator's final state are one process's. */
static void t_rng(void)
{
    static const rng_case cases[] = {
        {NCL_RNG_RAW, NCL_UINT64, NCL_FLOAT64, NAN, NAN},
        {NCL_RNG_RANDOM, NCL_FLOAT64, NCL_FLOAT64, NAN, NAN},
        {NCL_RNG_RANDOM, NCL_FLOAT32, NCL_FLOAT64, NAN, NAN},
        {NCL_RNG_INTEGERS, NCL_INT64, NCL_INT64, -5, 1000},
        {NCL_RNG_INTEGERS, NCL_INT32, NCL_INT64, 0, 77},
        {NCL_RNG_INTEGERS, NCL_INT8, NCL_INT64, -3, 100},
        {NCL_RNG_INTEGERS, NCL_UINT16, NCL_INT64, 0, 40000},
        {NCL_RNG_INTEGERS, NCL_BOOL, NCL_INT64, 0, 2},
        {NCL_RNG_UNIFORM, NCL_FLOAT64, NCL_FLOAT64, -2, 3},
        {NCL_RNG_STANDARD_NORMAL, NCL_FLOAT64, NCL_FLOAT64, NAN, NAN},
        {NCL_RNG_STANDARD_NORMAL, NCL_FLOAT32, NCL_FLOAT64, NAN, NAN},
        {NCL_RNG_NORMAL, NCL_FLOAT64, NCL_FLOAT64, 1, 2},
        {NCL_RNG_STANDARD_EXPONENTIAL, NCL_FLOAT64, NCL_FLOAT64, NAN, NAN},
        {NCL_RNG_STANDARD_GAMMA, NCL_FLOAT32, NCL_FLOAT64, 0.5, NAN},
        {NCL_RNG_GAMMA, NCL_FLOAT64, NCL_FLOAT64, 3, 2},
        {NCL_RNG_BETA, NCL_FLOAT64, NCL_FLOAT64, 0.5, 0.5},
        {NCL_RNG_POISSON, NCL_INT64, NCL_FLOAT64, 12, NAN},
        {NCL_RNG_BINOMIAL, NCL_INT64, NCL_INT64, 20, 0.3},
    };
    const int64_t sh1[1] = {3001}, sh2[2] = {37, 41};
    const uint32_t seed[2] = {2026, 11};
    NclSeedSequence *ss = NULL;
    OK(NclSeedSequenceCreate(seed, 2, NULL, 0, &ss));
    for (int kind = 0; kind < NCL_BITGEN_COUNT; kind++) {
        if (small && kind != NCL_BITGEN_PCG64 && kind != NCL_BITGEN_PHILOX4X32) continue;
        for (size_t k = 0; k < sizeof cases / sizeof *cases; k += 1 + (size_t)small)
            for (int lay = 0; lay < 4; lay += small ? 2 : 1) {
                const rng_case *t = &cases[k];
                const int nd = lay == 3 ? 0 : lay == 2 ? 2 : 1;
                const int64_t *shape = nd == 2 ? sh2 : sh1;
                int64_t counts[64];
                lopsided(sh1[0], counts);
                NclRngGen *g1 = NULL, *g2 = NULL;
                OK(NclRngGenCreate((NclBitGen)kind, ss, &g1));
                if ((k + (size_t)lay) % 2) { /* leave a buffered half */
                    NclArray *one = NULL;
                    NclParams p1 = NCL_PARAMS_INIT;
                    p1.dtype = NCL_FLOAT32;
                    p1.shape = sh1;
                    p1.ndim = 0;
                    OK(NclRng(NCL_RNG_RANDOM, g1, NULL, NULL, &one, &p1));
                    NclArrayRelease(one);
                }
                OK(NclRngGenCopy(g1, &g2));
                NclArray *pa = isnan(t->a) ? NULL : scalar(t->pdt, t->a);
                NclArray *pb = isnan(t->b) ? NULL : scalar(t->op == NCL_RNG_BINOMIAL ? NCL_FLOAT64
                                                                                     : t->pdt, t->b);
                NclParams p = NCL_PARAMS_INIT;
                p.dtype = t->dt;
                p.ndim = nd;
                p.shape = shape;
                NclArray *ref = NULL, *d = NULL;
                const NclStatus sr = NclRng(t->op, g1, pa, pb, &ref, &p);
                OK(NclMpiZeros(C, t->dt, nd, shape, nd == 2 ? 1 : 0, lay == 1 ? counts : NULL,
                               &d));
                const NclStatus sd = NclRng(t->op, g2, pa, pb, &d, &p);
                char what[96];
                snprintf(what, sizeof what, "rng op %d dtype %d gen %d layout %d", (int)t->op,
                         (int)t->dt, kind, lay);
                CHECK(sr == NCL_OK && sd == NCL_OK, "%s: status %d against %d", what, (int)sd,
                      (int)sr);
                if (sr == NCL_OK && sd == NCL_OK) expect_equal(d, ref, what);
                CHECK(same_state(g2, g1), "%s: the generator's state differs", what);
                NclArrayRelease(d);
                NclArrayRelease(ref);
                NclArrayRelease(pa);
                NclArrayRelease(pb);
                NclRngGenFree(g1);
                NclRngGenFree(g2);
            }
    }
    /* parameters as arrays: a distributed one gives the layout of an
       allocated result; an ordinary one is cut to each rank's rows */
    NclRngGen *g1 = NULL, *g2 = NULL;
    OK(NclRngGenCreate(NCL_BITGEN_PCG64, ss, &g1));
    OK(NclRngGenCopy(g1, &g2));
    NclArray *loc = make(NCL_FLOAT64, 2, sh2, 0), *scale = NULL, *dl = scatter(loc, 0, NULL);
    const double two = 2;
    OK(NclFull(NCL_FLOAT64, 2, sh2, &two, &scale));
    NclArray *high = scalar(NCL_FLOAT64, 1e6);
    for (int op = 0; op < 2; op++) {
        const NclRngOp o = op ? NCL_RNG_UNIFORM : NCL_RNG_NORMAL;
        NclArray *ref = NULL, *d = NULL;
        OK(NclRng(o, g1, loc, op ? high : scale, &ref, NULL));
        OK(NclRng(o, g2, dl, op ? high : scale, &d, NULL));
        expect_equal(d, ref, op ? "uniform from a distributed low" : "normal, distributed loc");
        CHECK(same_state(g2, g1), "array parameters: the generator's state differs");
        NclArrayRelease(d);
        NclArrayRelease(ref);
    }
    /* a parameter out of its domain on the last rank's rows only: refused
       everywhere, nothing written, the generator unchanged */
    const int64_t last[2] = {sh2[0] - 1, sh2[1] - 1};
    const double bad = -1;
    NclArray *cell = NULL, *d = NULL, *z = NULL, *ref = NULL;
    const int64_t one[2] = {1, 1};
    OK(NclArraySlice(scale, last, sh2, one, &cell));
    OK(NclFull(NCL_FLOAT64, 0, NULL, &bad, &z));
    OK(NclConvert(NCL_CONVERT_COPYTO, z, &cell, NULL));
    OK(NclMpiZeros(C, NCL_FLOAT64, 2, sh2, 0, NULL, &d));
    const NclStatus sr = NclRng(NCL_RNG_NORMAL, g1, loc, scale, &ref, NULL);
    const NclStatus sd = NclRng(NCL_RNG_NORMAL, g2, dl, scale, &d, NULL);
    CHECK(sr == NCL_ERR_INVALID_ARGUMENT && sd == sr, "a bad scale: status %d against %d",
          (int)sd, (int)sr);
    NclArray *zeros = NULL;
    OK(NclZeros(NCL_FLOAT64, 2, sh2, &zeros));
    expect_equal(d, zeros, "a refused draw writes nothing");
    CHECK(same_state(g2, g1), "a refused draw leaves the generator");
    /* shuffles and permutations of distributed arrays, along either axis
       and split either way, and the permutation of a distributed 0-d n */
    for (int split = 0; split < 2; split++)
        for (int axis = 0; axis < 2; axis++)
            for (int perm = 0; perm < 2; perm++) {
                int64_t counts[64];
                lopsided(sh2[split], counts);
                NclArray *x = make(NCL_FLOAT32, 2, sh2, 1), *dx = scatter(x, split, counts),
                         *r1 = NULL, *r2 = NULL;
                NclParams ps = NCL_PARAMS_INIT;
                ps.axes = &axis;
                ps.naxes = 1;
                char what[64];
                snprintf(what, sizeof what, "%s split %d axis %d", perm ? "permutation" : "shuffle",
                         split, axis);
                if (perm) {
                    OK(NclRng(NCL_RNG_PERMUTATION, g1, x, NULL, &r1, &ps));
                    OK(NclRng(NCL_RNG_PERMUTATION, g2, dx, NULL, &r2, &ps));
                    expect_equal(r2, r1, what);
                } else {
                    r1 = x;
                    r2 = dx;
                    OK(NclRng(NCL_RNG_SHUFFLE, g1, NULL, NULL, &r1, &ps));
                    OK(NclRng(NCL_RNG_SHUFFLE, g2, NULL, NULL, &r2, &ps));
                    expect_equal(dx, x, what);
                    r1 = r2 = NULL;
                }
                CHECK(same_state(g2, g1), "%s: the generator's state differs", what);
                NclArray *arrs[] = {x, dx, r1, r2};
                for (size_t i = 0; i < sizeof arrs / sizeof *arrs; i++) NclArrayRelease(arrs[i]);
            }
    {
        const int64_t nperm = 777;
        NclArray *n0 = NULL, *dn = NULL, *r1 = NULL, *r2 = NULL;
        OK(NclFull(NCL_INT64, 0, NULL, &nperm, &n0));
        dn = scatter(n0, 0, NULL);
        OK(NclRng(NCL_RNG_PERMUTATION, g1, n0, NULL, &r1, NULL));
        OK(NclRng(NCL_RNG_PERMUTATION, g2, dn, NULL, &r2, NULL));
        expect_equal(r2, r1, "permutation of a distributed 0-d n");
        CHECK(same_state(g2, g1), "permutation of n: the generator's state differs");
        NclArray *arrs[] = {n0, dn, r1, r2};
        for (size_t i = 0; i < sizeof arrs / sizeof *arrs; i++) NclArrayRelease(arrs[i]);
    }
    /* generators in different states: refused on every rank */
    if (nranks > 1) {
        if (rank == 1) NclRngGenAdvance(g2, 1, 0);
        const NclStatus s2 = NclRng(NCL_RNG_RANDOM, g2, NULL, NULL, &d, NULL);
        CHECK(s2 == NCL_ERR_INVALID_ARGUMENT && strstr(NclLastError(), "different calls"),
              "generators in different states");
    }
    NclArrayRelease(zeros);
    NclArrayRelease(ref);
    NclArrayRelease(d);
    NclArrayRelease(z);
    NclArrayRelease(cell);
    NclArrayRelease(dl);
    NclArrayRelease(scale);
    NclArrayRelease(high);
    NclArrayRelease(loc);
    NclRngGenFree(g1);
    NclRngGenFree(g2);
    NclSeedSequenceFree(ss);
}

/* where= in reductions over the split axis (float sums by the tree, exact
   ops by partials, min and max with and without initial=, mean), argmin
   and argmax with where= and a provided output, ordinary outputs for
   distributed results (every rank's gets the whole), and copies. */
static void t_where_out(void)
{
    const int64_t sh1[1] = {5000}, sh2[2] = {300, 7};
    static const NclReduceOp ops[] = {NCL_SUM, NCL_PROD, NCL_MIN, NCL_MAX, NCL_ANY, NCL_ALL,
                                      NCL_COUNT_NONZERO, NCL_MEAN, NCL_ARGMIN, NCL_ARGMAX};
    static const NclDType dts[] = {NCL_FLOAT64, NCL_INT32, NCL_FLOAT32};
    for (int shp = 0; shp < 2; shp++)
        for (size_t t = 0; t < (small ? 1 : sizeof dts / sizeof *dts); t++)
            for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
                for (int wk = 0; wk < 3 - small; wk++)
                    for (int init = 0; init < 2; init++) {
                        const NclReduceOp op = ops[o];
                        const int nd = shp ? 2 : 1;
                        const int64_t *shape = shp ? sh2 : sh1;
                        if (init && op != NCL_MIN && op != NCL_MAX && op != NCL_SUM) continue;
                        if (wk == 0 && !init && op != NCL_ARGMIN && op != NCL_ARGMAX) continue;
                        NclArray *a = make(dts[t], nd, shape, op != NCL_MIN && op != NCL_MAX &&
                                                                  op != NCL_ARGMIN && op != NCL_ARGMAX),
                                 *da = scatter(a, 0, NULL);
                        /* the mask: a's shape (ordinary or distributed along the
                           other axis) or a last-axis row broadcast */
                        NclArray *f = NULL, *three = NULL, *m = NULL, *dm = NULL, *row = NULL;
                        const double th = 3.0;
                        OK(NclFull(NCL_FLOAT64, 0, NULL, &th, &three));
                        NclArray *af = make(NCL_FLOAT64, nd, shape, 0);
                        OK(NclCompare(NCL_CMP_GT, af, three, &m, NULL));
                        if (wk == 1) dm = scatter(m, nd - 1, NULL);
                        if (wk == 2 && nd == 2) OK(first_row(m, &row));
                        const NclArray *wref = wk == 0 ? NULL : wk == 2 && row ? row : m;
                        const NclArray *wdist = wk == 1 ? dm : wref;
                        const double one = 1e3;
                        NclArray *iv = NULL, *ivc = NULL;
                        OK(NclFull(NCL_FLOAT64, 0, NULL, &one, &iv));
                        const int arg = op == NCL_ARGMIN || op == NCL_ARGMAX;
                        NclDType rdt = dts[t];
                        if (init) OK(astype(iv, rdt, &ivc));
                        NclParams p = NCL_PARAMS_INIT;
                        const int ax0 = 0;
                        if (nd == 2 || arg) {
                            p.axes = &ax0;
                            p.naxes = 1;
                        }
                        p.where = wref;
                        p.initial = init ? NclArrayData(ivc) : NULL;
                        NclArray *ref = NULL, *res = NULL, *plain = NULL;
                        const NclStatus sr = NclReduce(op, a, &ref, &p);
                        p.where = wdist;
                        const NclStatus sd = NclReduce(op, da, &res, &p);
                        char what[128];
                        snprintf(what, sizeof what, "reduce %d dtype %s shape %d where %d init %d",
                                 (int)op, NclDTypeName(dts[t]), shp, wk, init);
                        CHECK(sr == sd, "%s: status %d against %d", what, (int)sd, (int)sr);
                        if (sr == NCL_OK && sd == NCL_OK)
                            CHECK(same_bits(res, ref), "%s: bits differ", what);
                        /* into an ordinary output */
                        if (sr == NCL_OK) {
                            OK(NclZeros(NclArrayDType(ref), NclArrayNDim(ref), NclArrayShape(ref),
                                        &plain));
                            NclArray *into = plain;
                            CHECK(NclReduce(op, da, &into, &p) == NCL_OK && same_bits(plain, ref),
                                  "%s: into an ordinary output", what);
                        }
                        NclArray *arrs[] = {a, da, f, three, m, dm, row, af, iv, ivc, ref, res,
                                            plain};
                        for (size_t i = 0; i < sizeof arrs / sizeof *arrs; i++)
                            NclArrayRelease(arrs[i]);
                    }
    /* elementwise into ordinary outputs, and copies */
    NclArray *a = make(NCL_FLOAT64, 2, sh2, 1), *da = scatter(a, 1, NULL), *ref = NULL,
             *plain = NULL, *cp = NULL, *cp32 = NULL, *ref32 = NULL;
    OK(NclUnary(NCL_SIN, a, &ref, NULL));
    OK(NclZeros(NCL_FLOAT64, 2, sh2, &plain));
    NclArray *into = plain;
    CHECK(NclUnary(NCL_SIN, da, &into, NULL) == NCL_OK && into == plain && same_bits(plain, ref),
          "sin into an ordinary output");
    OK(NclCopy(da, &cp));
    expect_equal(cp, a, "copy");
    NclCreateParams cpar = NCL_CREATE_PARAMS_INIT;
    cpar.src = da;
    cpar.dtype = NCL_FLOAT32;
    OK(NclCreate(NCL_CREATE_COPY, &cpar, &cp32));
    cpar.src = a;
    OK(NclCreate(NCL_CREATE_COPY, &cpar, &ref32));
    expect_equal(cp32, ref32, "copy as float32");
    NclArray *arrs[] = {a, da, ref, plain, cp, cp32, ref32};
    for (size_t i = 0; i < sizeof arrs / sizeof *arrs; i++) NclArrayRelease(arrs[i]);
}

/* CUMSUM and CUMPROD along every axis and of the flattened array, floats
   (the ranks in turn) and integers (carried at once, wrapping), with
   dtype=, layouts with empty ranks, and into distributed and ordinary
   outputs. */
static void t_cum(void)
{
    const int64_t sh1[1] = {5000}, sh2[2] = {300, 7};
    static const NclDType dts[] = {NCL_FLOAT64, NCL_FLOAT32, NCL_INT32, NCL_UINT8, NCL_BOOL};
    for (int shp = 0; shp < 2; shp++)
        for (size_t t = 0; t < (small ? 2 : sizeof dts / sizeof *dts); t++)
            for (int op = 0; op < 2 - small; op++)
                for (int split = 0; split < (shp ? 2 : 1); split++)
                    for (int ax = -1; ax < (shp ? 2 : 1); ax++)
                        for (int lop = 0; lop < 2 - small; lop++) {
                            const int nd = shp ? 2 : 1;
                            const int64_t *shape = shp ? sh2 : sh1;
                            const NclReduceOp o = op ? NCL_CUMPROD : NCL_CUMSUM;
                            NclArray *a = make(dts[t], nd, shape, 0), *f = NULL, *g = NULL;
                            if (op) {
                                /* factors near 1, so that products stay finite and
                                   integers wrap only sometimes */
                                const double tiny = dts[t] == NCL_FLOAT64 || dts[t] == NCL_FLOAT32
                                                        ? 1e-4 : 1.0;
                                NclArray *s = NULL, *one = NULL;
                                const double uno = 1.0;
                                OK(NclFull(NCL_FLOAT64, 0, NULL, &tiny, &s));
                                OK(NclFull(NCL_FLOAT64, 0, NULL, &uno, &one));
                                NclArray *a64 = make(NCL_FLOAT64, nd, shape, 0);
                                OK(NclBinary(NCL_MULTIPLY, a64, s, &f, NULL));
                                if (tiny < 1) OK(NclBinary(NCL_ADD, f, one, &g, NULL));
                                else OK(NclCopy(f, &g));
                                NclArrayRelease(a);
                                a = NULL;
                                OK(astype(g, dts[t], &a));
                                NclArray *arr[] = {s, one, a64};
                                for (size_t i = 0; i < 3; i++) NclArrayRelease(arr[i]);
                            }
                            int64_t counts[64];
                            lopsided(shape[split], counts);
                            NclArray *da = scatter(a, split, lop ? counts : NULL);
                            NclParams p = NCL_PARAMS_INIT;
                            if (ax >= 0) {
                                p.axes = &ax;
                                p.naxes = 1;
                            }
                            if (dts[t] == NCL_FLOAT32 && lop) p.dtype = NCL_FLOAT64;
                            NclArray *ref = NULL, *res = NULL, *plain = NULL, *dout = NULL;
                            const NclStatus sr = NclReduce(o, a, &ref, &p);
                            const NclStatus sd = NclReduce(o, da, &res, &p);
                            char what[128];
                            snprintf(what, sizeof what, "%s %s shape %d split %d axis %d%s",
                                     op ? "cumprod" : "cumsum", NclDTypeName(dts[t]), shp, split,
                                     ax, lop ? " lopsided" : "");
                            CHECK(sr == NCL_OK && sd == NCL_OK, "%s: status %d against %d", what,
                                  (int)sd, (int)sr);
                            if (sr == NCL_OK && sd == NCL_OK) expect_equal(res, ref, what);
                            if (sr == NCL_OK) {
                                /* into an ordinary output, and a distributed one */
                                OK(NclZeros(NclArrayDType(ref), NclArrayNDim(ref),
                                            NclArrayShape(ref), &plain));
                                NclArray *into = plain;
                                CHECK(NclReduce(o, da, &into, &p) == NCL_OK &&
                                          same_bits(plain, ref), "%s: ordinary output", what);
                                OK(NclMpiZeros(C, NclArrayDType(ref), NclArrayNDim(ref),
                                               NclArrayShape(ref), 0, NULL, &dout));
                                into = dout;
                                CHECK(NclReduce(o, da, &into, &p) == NCL_OK, "%s: into a "
                                      "distributed output", what);
                                expect_equal(dout, ref, what);
                            }
                            NclArray *arrs[] = {a, f, g, da, ref, res, plain, dout};
                            for (size_t i = 0; i < sizeof arrs / sizeof *arrs; i++)
                                NclArrayRelease(arrs[i]);
                        }
}

static void t_refused(void)
{
    const int64_t sh[1] = {10};
    NclArray *a = make(NCL_FLOAT64, 1, sh, 0);
    NclArray *d = scatter(a, 0, NULL), *o = NULL;
    /* a call that differs between ranks: refused on all of them */
    const int64_t mine[1] = {10 + (rank == nranks - 1 && nranks > 1)};
    NclArray *x = NULL;
    OK(NclMpiZeros(C, NCL_FLOAT64, 1, sh, 0, NULL, &x));
    NclArray *y = make(NCL_FLOAT64, 1, mine, 0);
    NclStatus st = NclBinary(NCL_ADD, x, nranks > 1 ? y : x, &o, NULL);
    if (nranks > 1)
        CHECK(st == NCL_ERR_INVALID_ARGUMENT && o == NULL &&
                  strstr(NclLastError(), "different calls") != NULL,
              "calls that differ between ranks");
    else
        NclArrayRelease(o);
    o = NULL;
    NclArrayRelease(y);
    NclArrayRelease(x);
    /* what is not distributed yet */
    NclParams pk = NCL_PARAMS_INIT;
    pk.kth = 3;
    CHECK(NclSort(NCL_PARTITION, d, &o, &pk) == NCL_ERR_UNSUPPORTED && o == NULL, "partition");

    /* element access refuses a distributed array */
    CHECK(NclArrayData(d) == NULL, "data of a distributed array");
    /* ordinary calls pass through */
    OK(NclUnary(NCL_NEGATIVE, a, &o, NULL));
    CHECK(!NclMpiIsDistributed(o), "an ordinary call stays ordinary");
    NclArrayRelease(o);
    NclArrayRelease(d);
    NclArrayRelease(a);
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    small = getenv("NCL_MPI_TEST_SMALL") && atoi(getenv("NCL_MPI_TEST_SMALL")) > 0;
    if (nranks > 64) {
        fprintf(stderr, "at most 64 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (NclMpiAttach(MPI_COMM_WORLD, &C) != NCL_OK) {
        fprintf(stderr, "rank %d: attach failed: %s\n", rank, NclLastError());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* NCL_MPI_TEST_VERBOSE=1 prints each part's time */
    static const struct {
        const char *name;
        void (*fn)(void);
    } parts[] = {
        {"scatter_gather", t_scatter_gather},
        {"create", t_create},
        {"elementwise", t_elementwise},
        {"reduce", t_reduce},
        {"reduce_tree", t_reduce_tree},
        {"sort", t_sort},
        {"sort_memory", t_sort_memory},
        {"mask", t_mask},
        {"take", t_take},
        {"put", t_put},
        {"where_out", t_where_out},
        {"cum", t_cum},
        {"redistribute", t_redistribute},
        {"rng", t_rng},
        {"refused", t_refused},
    };
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        const double t0 = MPI_Wtime();
        parts[i].fn();
        if (rank == 0 && getenv("NCL_MPI_TEST_VERBOSE"))
            printf("%s: %.2f s\n", parts[i].name, MPI_Wtime() - t0);
    }
    NclMpiDetach(C);
    int all = 0, total = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&checks, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d processes, %d threads each: %d checks, %d failed\n", nranks,
               NclGetNumThreads(), total, all);
    MPI_Finalize();
    return all != 0;
}
