/*
 * mask.c: Mask calls on distributed arrays.
 *   COMPRESS  a[mask]: with the rows split along the first axis, every
 *             rank's rows are a run of the C order, so each compresses its
 *             own and the runs, in rank order, are the result; it is then
 *             balanced.
 *   NONZERO   the same runs of indices, with each rank's first-axis
 *             indices moved by its offset; the (ndim, count) result is
 *             split along its second axis and balanced.
 *   TAKE      along an axis that is not the split one: each rank takes
 *             from its rows (the indices replicated).
 * An array split along another axis moves to the first one first. PUT, and
 * TAKE along the split axis or of the flattened array, are not distributed
 * yet.
 */
#include <stdlib.h>
#include <string.h>
#include "ncl_mpi_internal.h"

/* a split along its first axis: a new reference to a, or a moved copy. */
static NclStatus split_first(const char *who, const NclArray *a, NclArray **out)
{
    const mpi_dist *d = mpi_dist_of(a);
    if (d->split == 0) {
        NclArrayRetain((NclArray *)a);
        *out = (NclArray *)a;
        return NCL_OK;
    }
    return mpi_move(who, a, 0, NULL, out);
}

/* Wraps this rank's run lo (its extent along axis k is the rank's count)
   as a distributed array of the runs in rank order, then balances it. */
static NclStatus runs(const char *who, NclMpiComm *c, NclArray *lo, int k, NclArray **out)
{
    const int P = c->size, nd = NclArrayNDim(lo);
    int64_t mine = NclArrayShape(lo)[k], *cs = malloc((size_t)P * sizeof *cs);
    NclStatus st = cs ? NCL_OK : mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    int err = MPI_SUCCESS;
    if (cs) err = MPI_Allgather(&mine, 1, MPI_INT64_T, cs, 1, MPI_INT64_T, c->comm);
    if (st == NCL_OK && err != MPI_SUCCESS) st = mpi_failed(who, "MPI_Allgather", err);
    int64_t shape[NCL_MAXDIMS], total = 0;
    for (int r = 0; st == NCL_OK && r < P; r++) total += cs[r];
    for (int i = 0; i < nd; i++) shape[i] = i == k ? total : NclArrayShape(lo)[i];
    NclArray *made = NULL, *bal = NULL;
    if (st == NCL_OK) st = mpi_dist_wrap(who, c, NclArrayDType(lo), nd, shape, k, cs, lo, &made);
    else NclArrayRelease(lo);
    free(cs);
    if ((st = mpi_agree(c, st)) != NCL_OK) {
        NclArrayRelease(made);
        return st;
    }
    st = mpi_move(who, made, k, NULL, &bal);
    NclArrayRelease(made);
    if (st == NCL_OK) *out = bal;
    return st;
}

NclStatus mpi_mask(NclHook *self, const char *who, NclMaskOp op, const NclArray *a,
                   const NclArray *b, NclArray **out, const NclParams *p)
{
    const mpi_dist *d = mpi_dist_of(a);
    NclMpiComm *c = d->c;
    NclStatus st;
    if (op == NCL_MASK_TAKE) {
        const int nd = NclArrayNDim(a);
        int axis = p && p->axes && p->naxes == 1 ? p->axes[0] : 0;
        if (axis < 0) axis += nd;
        if (!(p && p->axes) || axis == d->split || nd == 0 || mpi_dist_of(b))
            return mpi_error(NCL_ERR_UNSUPPORTED, "%s: take along the split axis (or of the "
                             "flattened array, or with distributed indices) is not distributed "
                             "yet", who);
        if (axis < 0 || axis >= nd) return mpi_error(NCL_ERR_AXIS, "%s: axis out of range", who);
        NclArray *lo = NULL, *made = NULL;
        st = NclMaskNext(self, op, d->local, b, &lo, p);
        if ((st = mpi_agree(c, st)) != NCL_OK) return st;
        /* the result: a's shape with the axis replaced by b's shape */
        const int bn = NclArrayNDim(b), rn = nd - 1 + bn;
        const int split = d->split < axis ? d->split : d->split + bn - 1;
        int64_t shape[NCL_MAXDIMS];
        for (int i = 0; i < rn; i++) shape[i] = NclArrayShape(lo)[i];
        shape[split] = NclArrayShape(a)[d->split];
        st = mpi_dist_wrap(who, c, NclArrayDType(lo), rn, shape, split, d->counts, lo, &made);
        if ((st = mpi_agree(c, st)) == NCL_OK) *out = made;
        else NclArrayRelease(made);
        return st;
    }
    if (op != NCL_MASK_COMPRESS && op != NCL_MASK_NONZERO)
        return mpi_error(NCL_ERR_UNSUPPORTED, "%s: a distributed target is not supported by "
                         "put yet", who);
    if (NclArrayNDim(a) == 0)
        return mpi_error(NCL_ERR_UNSUPPORTED, "%s: a 0-d distributed array (gather it first)", who);
    NclArray *af = NULL, *lb = NULL, *lo = NULL;
    if ((st = split_first(who, a, &af)) != NCL_OK) return st;
    const mpi_dist *fd = mpi_dist_of(af);
    const int me = c->rank;
    if (op == NCL_MASK_COMPRESS) {
        /* the mask, split as a is now */
        if (b && mpi_dist_of(b) && NclArrayNDim(b) == NclArrayNDim(a) &&
            memcmp(NclArrayShape(b), NclArrayShape(a), (size_t)NclArrayNDim(a) * 8) == 0) {
            NclArray *bm = NULL;
            const mpi_dist *bd = mpi_dist_of(b);
            if (bd->split == 0 && memcmp(bd->counts, fd->counts, (size_t)c->size * 8) == 0) {
                NclArrayRetain(bd->local);
                lb = bd->local;
            } else if ((st = mpi_move(who, b, 0, fd->counts, &bm)) == NCL_OK) {
                lb = mpi_dist_of(bm)->local;
                NclArrayRetain(lb);
                NclArrayRelease(bm);
            }
        } else if (b && !mpi_dist_of(b) && NclArrayNDim(b) == NclArrayNDim(a) &&
                   memcmp(NclArrayShape(b), NclArrayShape(a), (size_t)NclArrayNDim(a) * 8) == 0) {
            st = mpi_rows(b, 0, fd->offsets[me], fd->offsets[me] + fd->counts[me], &lb);
        } else if (b) {
            /* another shape: the local call refuses it, as one process would */
            NclArrayRetain((NclArray *)b);
            lb = (NclArray *)b;
        }
        if (st == NCL_OK) st = NclMaskNext(self, op, fd->local, lb, &lo, p);
        NclArrayRelease(lb);
    } else {
        st = NclMaskNext(self, op, fd->local, NULL, &lo, p);
        /* the first-axis indices move by this rank's offset */
        if (st == NCL_OK && NclArraySize(lo) > 0 && fd->offsets[me] != 0) {
            NclArray *row = NULL, *off = NULL;
            const int64_t n = NclArrayShape(lo)[1];
            if ((st = NclArraySlice(lo, (int64_t[]){0, 0}, (int64_t[]){1, n}, NULL, &row)) ==
                    NCL_OK &&
                (st = NclFull(NCL_INT64, 0, NULL, &fd->offsets[me], &off)) == NCL_OK)
                st = NclBinary(NCL_ADD, row, off, &row, NULL);
            NclArrayRelease(off);
            NclArrayRelease(row);
        }
    }
    NclArrayRelease(af);
    if ((st = mpi_agree(c, st)) != NCL_OK) {
        NclArrayRelease(lo);
        return st;
    }
    NclArray *res = NULL;
    if ((st = runs(who, c, lo, op == NCL_MASK_COMPRESS ? 0 : 1, &res)) == NCL_OK) *out = res;
    return st;
}
