/*
 * sort.c: SORT and ARGSORT of distributed arrays.
 *
 * Along an axis that is not the split one every line is on one rank: each
 * sorts its partition. Along the split axis of an N-d array the rows move to
 * another split axis first, and back after. Along the split axis of a 1-d
 * array, a sample sort: every element is keyed by (value, global index), so
 * ties are broken by position and the order is the stable sort's, whatever
 * the number of processes:
 *   1. each rank sorts its rows stably through the rest of the chain;
 *   2. regular samples of every rank, gathered on all, give P - 1 splitters;
 *   3. each rank sends the elements between two splitters to their rank
 *      (values and global indices, one all-to-all);
 *   4. each rank merges what it received (a stable sort of the runs in rank
 *      order, whose indices increase with the rank);
 *   5. the result is moved back to the input's counts, so sort(x) keeps x's
 *      layout.
 * NaNs sort last and -0.0 equals 0.0, as in NclSort.
 * SORT of an integer or bool array, and SORT of the default kind (which
 * may reorder equal elements, NclSort's contract), are lean: no original
 * index is kept or sent; an element's key is its position in its rank's
 * sorted rows (which still splits long runs of one value over ranks), and
 * the local steps are plain sorts. For integers equal elements are the
 * same bits, so this is still the stable sort's result; for floats only
 * -0.0 against 0.0 (and NaNs of other payloads) may then come out in
 * another order than a stable sort's.
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

/* ---- helpers ---------------------------------------------------------------- */

static NclStatus take(const NclArray *a, const NclArray *idx, NclArray **out)
{
    return NclMask(NCL_MASK_TAKE, a, idx, out, NULL);
}

static NclStatus stable_argsort(NclHook *self, const NclArray *a, NclArray **out)
{
    NclParams p = NCL_PARAMS_INIT;
    p.kind = NCL_SORT_STABLE;
    return NclSortNext(self, NCL_ARGSORT, a, out, &p);
}

/* ---- the 1-d sample sort ------------------------------------------------------ */

static NclStatus sample_sort(NclHook *self, const char *who, NclSortOp op, int kind,
                             const NclArray *a, NclArray **out)
{
    const mpi_dist *d = mpi_dist_of(a);
    NclMpiComm *c = d->c;
    const int P = c->size, me = c->rank;
    const NclDType dt = NclArrayDType(a);
    const size_t isz = NclDTypeSize(dt);
    const int64_t n = d->counts[me], off = d->offsets[me];
    const int lean = op == NCL_SORT &&
                     ((dt != NCL_FLOAT32 && dt != NCL_FLOAT64) || kind == NCL_SORT_DEFAULT);
    NclArray *perm = NULL, *vals = NULL;
    int64_t *gl = NULL;
    /* 1. the local rows, sorted stably, with their global indices */
    NclStatus st = lean ? NclSortNext(self, NCL_SORT, d->local, &vals, NULL)
                        : stable_argsort(self, d->local, &perm);
    if (st == NCL_OK && !lean) st = take(d->local, perm, &vals);
    if (st == NCL_OK && !lean) {
        gl = malloc((size_t)(n ? n : 1) * sizeof *gl);
        if (gl == NULL) st = mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
        else
            for (int64_t i = 0; i < n; i++) gl[i] = off + ((const int64_t *)NclArrayData(perm))[i];
    }
    NclArrayRelease(perm);
    /* 2. regular samples of every rank on every rank, and the splitters */
    const int per = 4 * P;
    sample *mine = calloc((size_t)per, sizeof *mine), *all = NULL, *split = NULL;
    int nmine = 0, *rc = calloc((size_t)P, sizeof *rc), *rd = calloc((size_t)P, sizeof *rd);
    if (st == NCL_OK && (!mine || !rc || !rd))
        st = mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    if (st == NCL_OK && n > 0) {
        nmine = n < per ? (int)n : per;
        for (int j = 0; j < nmine; j++) {
            const int64_t i = (int64_t)j * n / nmine;
            memcpy(mine[j].v, (const char *)NclArrayData(vals) + (size_t)i * isz, isz);
            mine[j].g = gl ? gl[i] : off + i;
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
    int64_t *scount = calloc((size_t)P, sizeof *scount), *rcount = calloc((size_t)P, sizeof *rcount);
    int64_t *sfirst = calloc((size_t)P + 1, sizeof *sfirst);
    if (!scount || !rcount || !sfirst) st = mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    else {
        for (int k = 0; k < P; k++) {
            /* first element with key > split[k] (k < nsplit), else n */
            int64_t lo = sfirst[k], hi = n;
            if (k < nsplit)
                while (lo < hi) {
                    const int64_t mid = lo + (hi - lo) / 2;
                    if (cmp_key(dt, (const char *)NclArrayData(vals) + (size_t)mid * isz,
                                gl ? gl[mid] : off + mid, &split[k]) <= 0)
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
    NclArray *rv = NULL, *rg = NULL;
    if (st == NCL_OK && (st = NclEmpty(dt, 1, &m, &rv)) == NCL_OK && !lean)
        st = NclEmpty(NCL_INT64, 1, &m, &rg);
    mpi_xfer *xs = calloc(2 * (size_t)P, sizeof *xs), *xr = calloc(2 * (size_t)P, sizeof *xr);
    if (st == NCL_OK && (!xs || !xr)) st = mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    if ((st = mpi_agree(c, st)) == NCL_OK) {
        /* values and indices as two messages per peer; the indices' tags
           follow the values' pieces, so their order is fixed by MPI's
           non-overtaking rule */
        int ns = 0, nr = 0;
        int64_t at = 0;
        for (int r = 0; r < P; r++) {
            if (scount[r]) {
                xs[ns++] = (mpi_xfer){r, (char *)NclArrayData(vals) + (size_t)sfirst[r] * isz,
                                      scount[r] * (int64_t)isz};
                if (!lean) xs[ns++] = (mpi_xfer){r, (char *)(gl + sfirst[r]), scount[r] * 8};
            }
            if (rcount[r]) {
                xr[nr++] = (mpi_xfer){r, (char *)NclArrayData(rv) + (size_t)at * isz,
                                      rcount[r] * (int64_t)isz};
                if (!lean)
                    xr[nr++] = (mpi_xfer){r, (char *)NclArrayData(rg) + (size_t)at * 8,
                                          rcount[r] * 8};
            }
            at += rcount[r];
        }
        st = mpi_exchange(who, c->comm, xr, nr, xs, ns);
    }
    /* 4. merge: the runs in rank order, sorted stably by value */
    NclArray *p2 = NULL, *res = NULL;
    NclArrayRelease(vals);
    vals = NULL;
    if (st == NCL_OK && lean) st = NclSortNext(self, NCL_SORT, rv, &res, NULL);
    else if (st == NCL_OK) st = stable_argsort(self, rv, &p2);
    if (st == NCL_OK && !lean) st = take(op == NCL_SORT ? rv : rg, p2, &res);
    NclArrayRelease(p2);
    NclArrayRelease(rv);
    NclArrayRelease(rg);
    free(xs);
    free(xr);
    free(scount);
    free(rcount);
    free(sfirst);
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
    free(gl);
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
    if (axis != d->split || c->size == 1) {
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
