/*
 * cum.c: CUMSUM and CUMPROD of distributed arrays, with the bits of one
 * process.
 *
 * Along an axis that is not the split one every line is on one rank: each
 * accumulates its rows. Along the split axis (and of the flattened array,
 * which is the array split along its first axis, each rank's rows a run of
 * the C order) rank r's part of every line continues the value rank r-1's
 * part ended with, its carry:
 *   - integer accumulators wrap modulo 2^64, so sums and products are
 *     associative: every rank accumulates its rows at once, the ranks'
 *     last rows are gathered, and each rank adds (multiplies by) the
 *     combination of the ones before its own;
 *   - float accumulators are sequential (NclReduce accumulates each line
 *     from its first element on, a chunk continuing from the last one's
 *     value), so the ranks go in turn: each receives the carry row, puts it
 *     in front of its rows (cast to the accumulator, as the kernel casts
 *     them), accumulates, drops that first row, and sends its last row on.
 */
#include <stdlib.h>
#include <string.h>
#include "ncl_mpi_internal.h"

/* Integers: this rank's accumulated rows r (split along axis k) moved on
   by the ranks before it. */
static NclStatus carry_exact(const char *who, NclMpiComm *c, NclReduceOp op, NclArray *r, int k)
{
    const int P = c->size, me = c->rank, nd = NclArrayNDim(r);
    const int64_t n = NclArrayShape(r)[k];
    int64_t *has = malloc((size_t)P * sizeof *has);
    NclArray *last = NULL, *dl = NULL, *all = NULL, *before = NULL, *off = NULL;
    NclStatus st = has ? NCL_OK : mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    int64_t mine = n > 0, nb = 0, tot = 0;
    int err = MPI_SUCCESS;
    if (st == NCL_OK) err = MPI_Allgather(&mine, 1, MPI_INT64_T, has, 1, MPI_INT64_T, c->comm);
    if (st == NCL_OK && err != MPI_SUCCESS) st = mpi_failed(who, "MPI_Allgather", err);
    for (int q = 0; st == NCL_OK && q < P; q++) {
        if (q < me) nb += has[q];
        tot += has[q];
    }
    /* every rank's last row, stacked along k in rank order */
    int64_t gshape[NCL_MAXDIMS];
    for (int i = 0; i < nd; i++) gshape[i] = i == k ? tot : NclArrayShape(r)[i];
    if (st == NCL_OK) st = mpi_rows_copy(r, k, n > 0 ? n - 1 : 0, n, &last);
    if (st == NCL_OK) {
        NclArrayRetain(last);
        st = mpi_dist_wrap(who, c, NclArrayDType(r), nd, gshape, k, has, last, &dl);
    }
    if ((st = mpi_agree(c, st)) == NCL_OK) st = mpi_gather(who, dl, NCL_MPI_ALL, &all);
    if (st == NCL_OK && nb > 0 && n > 0) {
        NclParams q = NCL_PARAMS_INIT;
        q.axes = &k;
        q.naxes = 1;
        q.keepdims = 1;
        q.dtype = NclArrayDType(r);
        st = mpi_rows(all, k, 0, nb, &before);
        if (st == NCL_OK) st = NclReduce(op == NCL_CUMSUM ? NCL_SUM : NCL_PROD, before, &off, &q);
        if (st == NCL_OK)
            st = NclBinary(op == NCL_CUMSUM ? NCL_ADD : NCL_MULTIPLY, r, off, &r, NULL);
    }
    st = mpi_agree(c, st);
    NclArray *arrs[] = {last, dl, all, before, off};
    for (size_t i = 0; i < sizeof arrs / sizeof *arrs; i++) NclArrayRelease(arrs[i]);
    free(has);
    return st;
}

/* Floats: the ranks in turn, each from the carry row of the one before. */
static NclStatus carry_chain(NclHook *self, const char *who, NclMpiComm *c, NclReduceOp op,
                             const NclArray *local, int k, const NclParams *q, NclDType acc,
                             NclArray **out)
{
    const int P = c->size, me = c->rank, nd = NclArrayNDim(local);
    const int64_t n = NclArrayShape(local)[k];
    int64_t rshape[NCL_MAXDIMS], eshape[NCL_MAXDIMS];
    for (int i = 0; i < nd; i++) {
        rshape[i] = i == k ? 1 : NclArrayShape(local)[i];
        eshape[i] = i == k ? n + 1 : NclArrayShape(local)[i];
    }
    NclArray *carry = NULL, *e = NULL, *head = NULL, *body = NULL, *ce = NULL, *res = NULL,
             *last = NULL;
    NclStatus st = NclEmpty(acc, nd, rshape, &carry);
    const int64_t rowb = st == NCL_OK ? NclArraySize(carry) * (int64_t)NclDTypeSize(acc) : 0;
    /* whether a carry arrives: a rank before this one has rows */
    int64_t mine = n > 0, *has = malloc((size_t)P * sizeof *has);
    int err = MPI_SUCCESS;
    if (st == NCL_OK && has == NULL) st = mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    if ((st = mpi_agree(c, st)) == NCL_OK) {
        err = MPI_Allgather(&mine, 1, MPI_INT64_T, has, 1, MPI_INT64_T, c->comm);
        if (err != MPI_SUCCESS) st = mpi_failed(who, "MPI_Allgather", err);
    }
    if (st != NCL_OK) {
        NclArrayRelease(carry);
        free(has);
        return st;
    }
    int from = -1, to = -1; /* the rank with rows before and after this one */
    for (int r = me - 1; r >= 0 && from < 0; r--)
        if (has[r]) from = r;
    for (int r = me + 1; r < P && to < 0; r++)
        if (has[r]) to = r;
    free(has);
    if (n == 0) {
        /* nothing to add: the empty result, and no part in the chain */
        st = NclReduceNext(self, op, local, out, q);
        NclArrayRelease(carry);
        return mpi_agree(c, st);
    }
    if (from >= 0) {
        /* a failed rank sends its row all the same, so nobody waits */
        err = MPI_Recv(NclArrayData(carry), (int)rowb, MPI_BYTE, from, 0, c->comm,
                       MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS) st = mpi_failed(who, "MPI_Recv", err);
        if (st == NCL_OK) st = NclEmpty(acc, nd, eshape, &e);
        if (st == NCL_OK) st = mpi_rows(e, k, 0, 1, &head);
        if (st == NCL_OK) st = mpi_rows(e, k, 1, n + 1, &body);
        if (st == NCL_OK) st = NclConvert(NCL_CONVERT_COPYTO, carry, &head, NULL);
        NclParams cu = NCL_PARAMS_INIT;
        cu.casting = NCL_CASTING_UNSAFE;
        if (st == NCL_OK) st = NclConvert(NCL_CONVERT_COPYTO, local, &body, &cu);
        if (st == NCL_OK) st = NclReduceNext(self, op, e, &ce, q);
        if (st == NCL_OK) st = mpi_rows_copy(ce, k, 1, n + 1, &res);
    } else
        st = NclReduceNext(self, op, local, &res, q);
    if (to >= 0) {
        if (st == NCL_OK) st = mpi_rows_copy(res, k, n - 1, n, &last);
        err = MPI_Send(st == NCL_OK ? NclArrayData(last) : NclArrayData(carry), (int)rowb, MPI_BYTE,
                       to, 0, c->comm);
        if (err != MPI_SUCCESS && st == NCL_OK) st = mpi_failed(who, "MPI_Send", err);
    }
    NclArray *arrs[] = {carry, e, head, body, ce, last};
    for (size_t i = 0; i < sizeof arrs / sizeof *arrs; i++) NclArrayRelease(arrs[i]);
    if ((st = mpi_agree(c, st)) == NCL_OK) *out = res;
    else NclArrayRelease(res);
    return st;
}

NclStatus mpi_cum(NclHook *self, const char *who, NclReduceOp op, const NclArray *a,
                  NclArray **out, const NclParams *params)
{
    const mpi_dist *d = mpi_dist_of(a);
    NclMpiComm *c = d->c;
    NclParams p = NCL_PARAMS_INIT;
    if (params) memcpy(&p, params, params->size < sizeof p ? params->size : sizeof p);
    const int nd = NclArrayNDim(a);
    NclStatus st;
    if (p.where)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: where= is not accepted by %s", who,
                         op == NCL_CUMSUM ? "cumsum" : "cumprod");
    if (*out && !mpi_dist_of(*out)) {
        /* an ordinary output: every rank accumulates the whole */
        return mpi_reduce_whole(self, who, op, a, out, &p);
    }
    const int flat = p.axes == NULL;
    if (!flat && p.naxes != 1)
        return mpi_error(NCL_ERR_AXIS, "%s: naxes %d (one axis, or NULL for the flattened array)",
                         who, p.naxes);
    int axis = flat ? 0 : p.axes[0];
    if (axis < 0) axis += nd;
    if (!flat && (axis < 0 || axis >= nd))
        return mpi_error(NCL_ERR_AXIS, "%s: axis %d is out of range for %d dimensions", who,
                         p.axes[0], nd);
    if (nd == 0) {
        NclArray *whole = NULL, *r = NULL;
        if ((st = mpi_gather(who, a, NCL_MPI_ALL, &whole)) != NCL_OK) return st;
        st = NclReduceNext(self, op, whole, &r, &p);
        NclArrayRelease(whole);
        if ((st = mpi_agree(c, st)) != NCL_OK) return st;
        st = mpi_scatter(c, 0, r, 0, NULL, out);
        NclArrayRelease(r);
        return st;
    }
    /* the source: a, or (flattened) a split along its first axis seen as
       one line */
    NclArray *src = NULL, *line = NULL, *res = NULL, *lres = NULL;
    const int64_t *counts = d->counts;
    int k = axis, split = d->split;
    int64_t *ec = NULL, n = NclArraySize(a);
    if (flat) {
        if (d->split == 0) {
            NclArrayRetain((NclArray *)a);
            src = (NclArray *)a;
        } else if ((st = mpi_move(who, a, 0, NULL, &src)) != NCL_OK)
            return st;
        const mpi_dist *sd = mpi_dist_of(src);
        int64_t inner = 1, m = NclArraySize(sd->local);
        for (int i = 1; i < nd; i++) inner *= NclArrayShape(a)[i];
        ec = malloc((size_t)c->size * sizeof *ec);
        st = ec ? NCL_OK : mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
        for (int r = 0; st == NCL_OK && r < c->size; r++) ec[r] = sd->counts[r] * inner;
        if (st == NCL_OK) st = NclArrayReshape(sd->local, 1, &m, &line);
        counts = ec;
        k = split = 0;
    } else {
        line = d->local;
        NclArrayRetain(line);
        st = NCL_OK;
    }
    NclParams q = p;
    const int kk = k;
    q.axes = &kk;
    q.naxes = 1;
    if ((st = mpi_agree(c, st)) == NCL_OK) {
        if (k != split || c->size == 1) st = NclReduceNext(self, op, line, &lres, &q);
        else {
            /* the accumulator's dtype, from an empty call */
            NclArray *none = NULL, *probe = NULL;
            st = mpi_rows(line, k, 0, 0, &none);
            if (st == NCL_OK) st = NclReduceNext(self, op, none, &probe, &q);
            const NclDType acc = st == NCL_OK ? NclArrayDType(probe) : NCL_FLOAT64;
            NclArrayRelease(none);
            NclArrayRelease(probe);
            if ((st = mpi_agree(c, st)) == NCL_OK) {
                if (mpi_is_float(acc)) st = carry_chain(self, who, c, op, line, k, &q, acc, &lres);
                else {
                    st = NclReduceNext(self, op, line, &lres, &q);
                    if ((st = mpi_agree(c, st)) == NCL_OK)
                        st = carry_exact(who, c, op, lres, k);
                }
            }
        }
    }
    if ((st = mpi_agree(c, st)) == NCL_OK) {
        const int rn = flat ? 1 : nd;
        st = mpi_dist_wrap(who, c, NclArrayDType(lres), rn, flat ? &n : NclArrayShape(a), split,
                           counts, lres, &res);
        lres = NULL;
        st = mpi_agree(c, st);
    }
    if (st == NCL_OK && *out) {
        /* into a distributed output: moved to its layout, copied */
        const mpi_dist *od = mpi_dist_of(*out);
        NclArray *moved = NULL, *dst = od->local;
        if (NclArrayNDim(*out) != NclArrayNDim(res) ||
            memcmp(NclArrayShape(*out), NclArrayShape(res), (size_t)NclArrayNDim(res) * 8) != 0)
            st = mpi_error(NCL_ERR_SHAPE, "%s: the output's shape is not the result's", who);
        if (st == NCL_OK) st = mpi_move(who, res, od->split, od->counts, &moved);
        if (st == NCL_OK) {
            NclParams cp = NCL_PARAMS_INIT;
            cp.casting = p.casting;
            st = mpi_agree(c, NclConvert(NCL_CONVERT_COPYTO, mpi_dist_of(moved)->local, &dst, &cp));
        }
        NclArrayRelease(moved);
        NclArrayRelease(res);
        res = NULL;
    } else if (st == NCL_OK)
        *out = res;
    NclArrayRelease(lres);
    NclArrayRelease(line);
    NclArrayRelease(src);
    free(ec);
    return st;
}
