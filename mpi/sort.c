/*
 * sort.c: SORT and ARGSORT of distributed arrays.
 *
 * Along an axis that is not the split one every line is on one rank: each
 * sorts its partition. Along the split axis of an N-d array the rows move to
 * another split axis first, and back after. Along the split axis of a 1-d
 * array, a sample sort:
 *   1. each rank sorts its rows through the rest of the chain (ARGSORT and
 *      the stable kind stably), in two pieces merged after (with threads,
 *      and for ARGSORT), so that the local sort's workspace stays within
 *      the partition's size;
 *   2. regular samples of every rank, gathered on all, give P - 1
 *      splitters;
 *   3. each rank sends the elements between two splitters to their rank
 *      (one all-to-all; ARGSORT sends the global indices too);
 *   4. each rank merges the runs it received, in rank order;
 *   5. the result is moved back to the input's counts, so sort(x) keeps x's
 *      layout.
 * An element's key is (value, its rank's offset + its position in its
 * rank's sorted rows). Equal values lie in a sorted run in the order of
 * their global indices (the local sort is stable where that matters), and
 * the offsets grow with the rank, so this key orders ties as the global
 * index does: a long run of one value is split over ranks by position,
 * never piled on one, and the merges (stable, runs in rank order) give the
 * stable sort's order at any process count. No index travels for SORT.
 * NaNs sort last and -0.0 equals 0.0, as in NclSort; the default kind may
 * order equal elements otherwise (-0.0 against 0.0, NaN payloads), as
 * NclSort's default kind may.
 *
 * Memory (every array through the rank's NEP 49 handler): at most two
 * buffers of the partition's size are live at once besides small ones
 * (the sorted rows and what is received, the runs and their merge, the
 * result and its move back), and the local sort's workspace is that of
 * half the rows, so SORT's peak is 2.0 to 2.3 times the partition (at
 * most 2.5, checked in the tests at 1 and 2 threads); ARGSORT's the same
 * times its values and indices together.
 */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ncl_mpi_internal.h"

/* ---- keys ------------------------------------------------------------------- */

/* -1, 0, 1 as NclSort orders two elements of dtype dt. */
static int cmp_value(NclDType dt, const void *x, const void *y)
{
#define CMP_INT(T)                                                         \
    {                                                                      \
        T u, v;                                                            \
        memcpy(&u, x, sizeof u);                                           \
        memcpy(&v, y, sizeof v);                                           \
        return (u > v) - (u < v);                                          \
    }
#define CMP_FLOAT(T)                                                       \
    {                                                                      \
        T u, v;                                                            \
        memcpy(&u, x, sizeof u);                                           \
        memcpy(&v, y, sizeof v);                                           \
        const int nu = isnan(u), nv = isnan(v);                            \
        if (nu || nv) return nu - nv;                                      \
        return (u > v) - (u < v);                                          \
    }
    switch (dt) {
    case NCL_BOOL: CMP_INT(uint8_t)
    case NCL_INT8: CMP_INT(int8_t)
    case NCL_INT16: CMP_INT(int16_t)
    case NCL_INT32: CMP_INT(int32_t)
    case NCL_INT64: CMP_INT(int64_t)
    case NCL_UINT8: CMP_INT(uint8_t)
    case NCL_UINT16: CMP_INT(uint16_t)
    case NCL_UINT32: CMP_INT(uint32_t)
    case NCL_UINT64: CMP_INT(uint64_t)
    case NCL_FLOAT32: CMP_FLOAT(float)
    default: CMP_FLOAT(double)
    }
#undef CMP_INT
#undef CMP_FLOAT
}

/* A sample: an element's value (up to 8 bytes) and global index. */
typedef struct sample {
    unsigned char v[8];
    int64_t g;
} sample;

static int cmp_key(NclDType dt, const void *v, int64_t g, const sample *s)
{
    const int c = cmp_value(dt, v, s->v);
    return c ? c : (g > s->g) - (g < s->g);
}

/* For qsort_r (glibc's argument order): the dtype comes with the call, so
   sorts on several threads do not share it. */
static int cmp_samples(const void *x, const void *y, void *dtype)
{
    const sample *a = x, *b = y;
    return cmp_key(*(const NclDType *)dtype, a->v, a->g, b);
}

/* ---- merging sorted runs ------------------------------------------------------ */

/* Whether x sorts before y: for floats NaN last. */
#define LESS_INT(x, y) ((x) < (y))
#define LESS_FLOAT(x, y) ((y) != (y) ? (x) == (x) : (x) < (y))

/* Merges the sorted runs a[0, na) and b[0, nb) into out, stably (b's
   element first only when it sorts strictly before a's), without
   branches on the data; ga, gb, gout: indices that travel with the
   values, or NULL. */
#define MERGE_FN(name, T, LESS)                                                           \
    static void name(const void *va, const int64_t *ga, int64_t na, const void *vb,       \
                     const int64_t *gb, int64_t nb, void *vout, int64_t *gout)            \
    {                                                                                     \
        const T *a = va, *b = vb;                                                         \
        T *out = vout;                                                                    \
        int64_t i = 0, j = 0, k = 0;                                                      \
        if (gout)                                                                         \
            for (; i < na && j < nb; k++) {                                               \
                const int tb = LESS(b[j], a[i]);                                          \
                out[k] = tb ? b[j] : a[i];                                                \
                gout[k] = tb ? gb[j] : ga[i];                                             \
                j += tb;                                                                  \
                i += !tb;                                                                 \
            }                                                                             \
        else                                                                              \
            for (; i < na && j < nb; k++) {                                               \
                const int tb = LESS(b[j], a[i]);                                          \
                out[k] = tb ? b[j] : a[i];                                                \
                j += tb;                                                                  \
                i += !tb;                                                                 \
            }                                                                             \
        memcpy(out + k, a + i, (size_t)(na - i) * sizeof(T));                             \
        if (gout) memcpy(gout + k, ga + i, (size_t)(na - i) * sizeof *gout);              \
        k += na - i;                                                                      \
        memcpy(out + k, b + j, (size_t)(nb - j) * sizeof(T));                             \
        if (gout) memcpy(gout + k, gb + j, (size_t)(nb - j) * sizeof *gout);              \
    }
MERGE_FN(merge_u8, uint8_t, LESS_INT)
MERGE_FN(merge_i8, int8_t, LESS_INT)
MERGE_FN(merge_i16, int16_t, LESS_INT)
MERGE_FN(merge_u16, uint16_t, LESS_INT)
MERGE_FN(merge_i32, int32_t, LESS_INT)
MERGE_FN(merge_u32, uint32_t, LESS_INT)
MERGE_FN(merge_i64, int64_t, LESS_INT)
MERGE_FN(merge_u64, uint64_t, LESS_INT)
MERGE_FN(merge_f32, float, LESS_FLOAT)
MERGE_FN(merge_f64, double, LESS_FLOAT)
#undef MERGE_FN

typedef void (*merge_fn)(const void *, const int64_t *, int64_t, const void *, const int64_t *,
                         int64_t, void *, int64_t *);

static merge_fn merge_of(NclDType dt)
{
    switch (dt) {
    case NCL_BOOL:
    case NCL_UINT8: return merge_u8;
    case NCL_INT8: return merge_i8;
    case NCL_INT16: return merge_i16;
    case NCL_UINT16: return merge_u16;
    case NCL_INT32: return merge_i32;
    case NCL_UINT32: return merge_u32;
    case NCL_INT64: return merge_i64;
    case NCL_UINT64: return merge_u64;
    case NCL_FLOAT32: return merge_f32;
    default: return merge_f64;
    }
}

/* Sorted runs of values (and indices, when g): run r is [bound[r],
   bound[r + 1]). *v and *g hold them; *tv and *tg are buffers of the same
   sizes. Adjacent runs are merged pairwise, back and forth between the two,
   until one run is left; *v (*g) then holds it and *tv (*tg) the other
   buffer. bound is overwritten. */
static void merge_runs(NclDType dt, NclArray **v, NclArray **g, NclArray **tv, NclArray **tg,
                       int64_t *bound, int nruns)
{
    const merge_fn merge = merge_of(dt);
    const size_t isz = NclDTypeSize(dt);
    while (nruns > 1) {
        const char *src = NclArrayData(*v);
        char *dst = NclArrayData(*tv);
        const int64_t *gs = g ? NclArrayData(*g) : NULL;
        int64_t *gd = g ? NclArrayData(*tg) : NULL;
        int m = 0;
        for (int r = 0; r < nruns; r += 2) {
            const int64_t lo = bound[r], mid = bound[r + 1],
                          hi = r + 1 < nruns ? bound[r + 2] : mid;
            merge(src + (size_t)lo * isz, gs ? gs + lo : NULL, mid - lo,
                  src + (size_t)mid * isz, gs ? gs + mid : NULL, hi - mid,
                  dst + (size_t)lo * isz, gd ? gd + lo : NULL);
            bound[m++] = lo;
        }
        bound[m] = bound[nruns];
        nruns = m;
        NclArray *t = *v;
        *v = *tv;
        *tv = t;
        if (g) {
            t = *g;
            *g = *tg;
            *tg = t;
        }
    }
}

/* ---- the 1-d sample sort ------------------------------------------------------ */

/* With threads, and for ARGSORT, the local sort is done in two pieces (of
   at least PIECE_MIN elements each), merged after: NclSort's workspace is
   then that of half the rows. (NclSort splitting one long slice over
   threads takes up to about 2.2 times the slice besides its output, and
   a stable argsort about 1.5 times the values and indices; a sort on one
   thread about 1 time, so there the rows are sorted whole.) */
#define PIECE_MIN 4096

/* Step 1: this rank's rows sorted, as *vals, and for ARGSORT their local
   indices as *perm; *tv, *tg: spare buffers of the same sizes. */
static NclStatus sort_rows(NclHook *self, NclSortOp op, int kind, const NclArray *local,
                           NclArray **vals, NclArray **perm, NclArray **tv, NclArray **tg)
{
    const NclDType dt = NclArrayDType(local);
    const size_t isz = NclDTypeSize(dt);
    const int64_t n = NclArrayShape(local)[0];
    const int np = (NclGetNumThreads() > 1 || op == NCL_ARGSORT) && n >= 2 * PIECE_MIN ? 2 : 1;
    int64_t bound[3];
    NclStatus st = NclEmpty(dt, 1, &n, vals);
    if (st == NCL_OK && op == NCL_ARGSORT) st = NclEmpty(NCL_INT64, 1, &n, perm);
    NclParams p = NCL_PARAMS_INIT;
    p.kind = op == NCL_ARGSORT ? NCL_SORT_STABLE : kind;
    for (int k = 0; k < np && st == NCL_OK; k++) {
        const int64_t lo = n * k / np, hi = n * (k + 1) / np;
        bound[k] = lo;
        bound[k + 1] = hi;
        NclArray *in = NULL, *into = NULL;
        st = mpi_rows(local, 0, lo, hi, &in);
        if (st == NCL_OK) st = mpi_rows(op == NCL_ARGSORT ? *perm : *vals, 0, lo, hi, &into);
        if (st == NCL_OK) st = NclSortNext(self, op, in, &into, &p);
        if (st == NCL_OK && op == NCL_ARGSORT) {
            /* the piece's indices made the rank's, and its values gathered */
            int64_t *ix = (int64_t *)NclArrayData(*perm) + lo;
            const char *src = NclArrayData(local);
            char *dst = (char *)NclArrayData(*vals) + (size_t)lo * isz;
            for (int64_t i = 0; i < hi - lo; i++) {
                ix[i] += lo;
                memcpy(dst + (size_t)i * isz, src + (size_t)ix[i] * isz, isz);
            }
        }
        NclArrayRelease(in);
        NclArrayRelease(into);
    }
    if (st == NCL_OK) st = NclEmpty(dt, 1, &n, tv);
    if (st == NCL_OK && op == NCL_ARGSORT) st = NclEmpty(NCL_INT64, 1, &n, tg);
    if (st == NCL_OK) merge_runs(dt, vals, op == NCL_ARGSORT ? perm : NULL, tv, tg, bound, np);
    return st;
}

static NclStatus sample_sort(NclHook *self, const char *who, NclSortOp op, int kind,
                             const NclArray *a, NclArray **out)
{
    const mpi_dist *d = mpi_dist_of(a);
    NclMpiComm *c = d->c;
    const int P = c->size, me = c->rank, arg = op == NCL_ARGSORT;
    const NclDType dt = NclArrayDType(a);
    const size_t isz = NclDTypeSize(dt);
    const int64_t n = d->counts[me], off = d->offsets[me];
    NclArray *vals = NULL, *perm = NULL, *tv = NULL, *tg = NULL;
    /* 1. the local rows, sorted */
    NclStatus st = sort_rows(self, op, kind, d->local, &vals, &perm, &tv, &tg);
    NclArrayRelease(tv);
    NclArrayRelease(tg);
    tv = tg = NULL;
    if (P == 1) {
        /* one rank: its sorted rows are the result */
        NclArray *res = arg ? perm : vals;
        if (st == NCL_OK) {
            NclArrayRetain(res);
            st = mpi_dist_wrap(who, c, NclArrayDType(res), 1, NclArrayShape(a), 0, d->counts, res,
                               out);
        }
        NclArrayRelease(vals);
        NclArrayRelease(perm);
        return st;
    }
    /* 2. regular samples of every rank on every rank, and the splitters */
    const int per = 4 * P;
    sample *mine = calloc((size_t)per, sizeof *mine), *all = NULL, *split = NULL;
    int nmine = 0, *rc = calloc((size_t)P, sizeof *rc), *rd = calloc((size_t)P, sizeof *rd);
    int64_t *scount = NULL, *rcount = NULL, *sfirst = NULL, *bound = NULL;
    mpi_xfer *xs = NULL, *xr = NULL;
    NclArray *rv = NULL, *rg = NULL;
    if (st == NCL_OK && (!mine || !rc || !rd))
        st = mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    if (st == NCL_OK && n > 0) {
        nmine = n < per ? (int)n : per;
        for (int j = 0; j < nmine; j++) {
            const int64_t i = (int64_t)j * n / nmine;
            memcpy(mine[j].v, (const char *)NclArrayData(vals) + (size_t)i * isz, isz);
            mine[j].g = off + i;
        }
    }
    if ((st = mpi_agree(c, st)) != NCL_OK) goto done;
    int err = MPI_Allgather(&nmine, 1, MPI_INT, rc, 1, MPI_INT, c->comm);
    int total = 0;
    for (int r = 0; r < P; r++) {
        rd[r] = total * (int)sizeof(sample);
        total += rc[r];
        rc[r] *= (int)sizeof(sample);
    }
    all = malloc((size_t)(total ? total : 1) * sizeof *all);
    split = malloc((size_t)P * sizeof *split);
    if (err == MPI_SUCCESS && all && split)
        err = MPI_Allgatherv(mine, nmine * (int)sizeof(sample), MPI_BYTE, all, rc, rd, MPI_BYTE,
                             c->comm);
    st = err != MPI_SUCCESS ? mpi_failed(who, "MPI_Allgatherv", err)
         : !all || !split   ? mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who)
                            : NCL_OK;
    if ((st = mpi_agree(c, st)) != NCL_OK) goto done;
    NclDType key_dtype = dt;
    qsort_r(all, (size_t)total, sizeof *all, cmp_samples, &key_dtype);
    const int nsplit = total > 0 ? P - 1 : 0;
    for (int k = 0; k < nsplit; k++) split[k] = all[(int64_t)(k + 1) * total / P];
    /* 3. what goes where: rank k gets the keys in (split[k-1], split[k]] */
    scount = calloc((size_t)P, sizeof *scount);
    rcount = calloc((size_t)P, sizeof *rcount);
    sfirst = calloc((size_t)P + 1, sizeof *sfirst);
    bound = calloc((size_t)P + 1, sizeof *bound);
    xs = calloc(2 * (size_t)P, sizeof *xs);
    xr = calloc(2 * (size_t)P, sizeof *xr);
    if (!scount || !rcount || !sfirst || !bound || !xs || !xr)
        st = mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    else {
        for (int k = 0; k < P; k++) {
            /* first element with key > split[k] (k < nsplit), else n */
            int64_t lo = sfirst[k], hi = n;
            if (k < nsplit)
                while (lo < hi) {
                    const int64_t mid = lo + (hi - lo) / 2;
                    if (cmp_key(dt, (const char *)NclArrayData(vals) + (size_t)mid * isz, off + mid,
                                &split[k]) <= 0)
                        lo = mid + 1;
                    else hi = mid;
                }
            else lo = n;
            sfirst[k + 1] = lo;
            scount[k] = lo - sfirst[k];
        }
        err = MPI_Alltoall(scount, 1, MPI_INT64_T, rcount, 1, MPI_INT64_T, c->comm);
        if (err != MPI_SUCCESS) st = mpi_failed(who, "MPI_Alltoall", err);
    }
    int64_t m = 0;
    for (int r = 0; r < P && st == NCL_OK; r++) m += rcount[r];
    if (st == NCL_OK && (st = NclEmpty(dt, 1, &m, &rv)) == NCL_OK && arg)
        st = NclEmpty(NCL_INT64, 1, &m, &rg);
    if ((st = mpi_agree(c, st)) == NCL_OK) {
        /* values and indices as two messages per peer; the indices' tags
           follow the values' pieces, so their order is fixed by MPI's
           non-overtaking rule. ARGSORT's indices are made global first. */
        int64_t *gl = arg ? NclArrayData(perm) : NULL;
        for (int64_t i = 0; arg && i < n; i++) gl[i] += off;
        int ns = 0, nr = 0;
        int64_t at = 0;
        for (int r = 0; r < P; r++) {
            bound[r] = at;
            if (scount[r]) {
                xs[ns++] = (mpi_xfer){r, (char *)NclArrayData(vals) + (size_t)sfirst[r] * isz,
                                      scount[r] * (int64_t)isz};
                if (arg) xs[ns++] = (mpi_xfer){r, (char *)(gl + sfirst[r]), scount[r] * 8};
            }
            if (rcount[r]) {
                xr[nr++] = (mpi_xfer){r, (char *)NclArrayData(rv) + (size_t)at * isz,
                                      rcount[r] * (int64_t)isz};
                if (arg)
                    xr[nr++] = (mpi_xfer){r, (char *)NclArrayData(rg) + (size_t)at * 8,
                                          rcount[r] * 8};
            }
            at += rcount[r];
        }
        bound[P] = at;
        st = mpi_exchange(who, c->comm, xr, nr, xs, ns);
    }
    /* 4. merge the runs, in rank order */
    NclArrayRelease(vals);
    NclArrayRelease(perm);
    vals = perm = NULL;
    if (st == NCL_OK) st = NclEmpty(dt, 1, &m, &tv);
    if (st == NCL_OK && arg) st = NclEmpty(NCL_INT64, 1, &m, &tg);
    if (st == NCL_OK) merge_runs(dt, &rv, arg ? &rg : NULL, &tv, &tg, bound, P);
    NclArrayRelease(tv);
    NclArrayRelease(tg);
    tv = tg = NULL;
    NclArray *res = NULL;
    if (st == NCL_OK) {
        res = arg ? rg : rv;
        NclArrayRetain(res);
    }
    NclArrayRelease(rv);
    NclArrayRelease(rg);
    rv = rg = NULL;
    /* 5. back to the input's counts */
    int64_t *mc = calloc((size_t)P, sizeof *mc);
    if (st == NCL_OK && mc == NULL) st = mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    if ((st = mpi_agree(c, st)) == NCL_OK) {
        err = MPI_Allgather(&m, 1, MPI_INT64_T, mc, 1, MPI_INT64_T, c->comm);
        st = err == MPI_SUCCESS ? NCL_OK : mpi_failed(who, "MPI_Allgather", err);
        NclArray *wrapped = NULL, *back = NULL;
        const int64_t len = NclArrayShape(a)[0];
        if (st == NCL_OK) {
            st = mpi_dist_wrap(who, c, NclArrayDType(res), 1, &len, 0, mc, res, &wrapped);
            res = NULL;
        }
        if ((st = mpi_agree(c, st)) == NCL_OK &&
            (st = mpi_move(who, wrapped, 0, d->counts, &back)) == NCL_OK)
            *out = back;
        NclArrayRelease(wrapped);
    }
    NclArrayRelease(res);
    free(mc);
done:
    NclArrayRelease(vals);
    NclArrayRelease(perm);
    NclArrayRelease(rv);
    NclArrayRelease(rg);
    free(scount);
    free(rcount);
    free(sfirst);
    free(bound);
    free(xs);
    free(xr);
    free(mine);
    free(all);
    free(split);
    free(rc);
    free(rd);
    return st;
}

/* ---- the entry --------------------------------------------------------------- */

NclStatus mpi_sort(NclHook *self, const char *who, NclSortOp op, int kind, const NclArray *a,
                   int axis, NclArray **out)
{
    const mpi_dist *d = mpi_dist_of(a);
    NclMpiComm *c = d->c;
    const int nd = NclArrayNDim(a);
    NclParams p = NCL_PARAMS_INIT;
    p.kind = kind;
    p.axes = &axis;
    p.naxes = 1;
    if (axis != d->split) {
        /* every line is on one rank */
        NclArray *lo = NULL, *made = NULL;
        NclStatus st = NclSortNext(self, op, d->local, &lo, &p);
        if ((st = mpi_agree(c, st)) != NCL_OK) return st;
        st = mpi_dist_wrap(who, c, NclArrayDType(lo), nd, NclArrayShape(a), d->split, d->counts,
                           lo, &made);
        if ((st = mpi_agree(c, st)) == NCL_OK) *out = made;
        else NclArrayRelease(made);
        return st;
    }
    if (nd == 1) return sample_sort(self, who, op, kind, a, out);
    /* along the split axis of an N-d array: split along another axis, sort
       there, and move the result back */
    const int other = axis == 0 ? 1 : 0;
    NclArray *moved = NULL, *sorted = NULL, *back = NULL;
    NclStatus st = mpi_move(who, a, other, NULL, &moved);
    if (st != NCL_OK) return st;
    st = mpi_sort(self, who, op, kind, moved, axis, &sorted);
    NclArrayRelease(moved);
    if (st != NCL_OK) return st;
    st = mpi_move(who, sorted, d->split, d->counts, &back);
    NclArrayRelease(sorted);
    if (st == NCL_OK) *out = back;
    return st;
}
