/*
 * rng.c: NclRng into distributed arrays, with the values, and the
 * generator's final state, of the same call in one process.
 *
 * NumPy's generators are streams: the result's elements are drawn in C
 * order, and for most distributions where value k starts in the stream
 * depends on every value before it (the rejection samplers). Rank r's rows
 * follow rank r-1's in C order when no axis before the split one has an
 * extent above 1; otherwise the values are drawn into a layout split along
 * axis 0 and the rows moved after. One of three ways is taken, the same on
 * every rank, since it depends only on the call and the generator (which
 * the ranks have checked are the same):
 *
 *   skip   one 64-bit word per value (RAW; RANDOM and UNIFORM in float64)
 *          from a generator that moves ahead exactly (PCG64, PCG64DXSM,
 *          Philox4x32) and holds no buffered 32-bit half: each rank
 *          advances a copy to its first element and draws its rows at the
 *          same time as the others; all advance theirs past the whole.
 *   whole  INTEGERS of 8- and 16-bit dtypes and bool, whose values share
 *          32-bit words within one call only (NumPy's buffered bounded
 *          integers), so that the values of a call cut in pieces would
 *          differ: rank 0 draws the whole result and scatters it. The same
 *          for a 0-d result.
 *   chain  every other op: the ranks draw in turn, each from the state the
 *          rank before it ended in (sent as NclRngGenGetState's blob), and
 *          the last rank's state is broadcast to all.
 *
 * SHUFFLE and PERMUTATION: rank 0 draws the permutation, the others take
 * its generator state, and the array is taken with it (shuffle()).
 *
 * The values land in new local arrays; only when every rank has drawn its
 * rows are they committed (wrapped as the result, or copied into a provided
 * distributed output) and the generator moved on, so a refused call writes
 * nothing and leaves every rank's generator as it was. Where no rank can
 * fail unlike the others (the parameters are scalars, so every check is
 * the same everywhere and made before a value is written), a provided
 * output of the drawing layout is drawn into directly.
 */
#include <stdlib.h>
#include <string.h>
#include "ncl_mpi_internal.h"

typedef enum way { WAY_SKIP, WAY_WHOLE, WAY_CHAIN } way;

/* One rank's part of the call. */
typedef struct rng_job {
    NclHook *self;
    const char *who;
    NclMpiComm *c;
    NclRngOp op;
    NclRngGen *gen;
    NclParams q;          /* params for this rank's draw: its shape, no where */
    int nd;
    int64_t shape[NCL_MAXDIMS];
    unsigned char *state; /* the generator's blob before the call */
    unsigned char *next;  /* nstate bytes: the blob after it (chain, whole) */
    size_t nstate;
} rng_job;

/* gen's state as a new blob. */
static NclStatus state_of(const char *who, const NclRngGen *gen, unsigned char **blob, size_t *n)
{
    *blob = NULL;
    NclStatus st = NclRngGenGetState(gen, NULL, 0, n);
    if (st != NCL_OK) return st;
    if ((*blob = malloc(*n)) == NULL) return mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    return NclRngGenGetState(gen, *blob, *n, n);
}

/* Whether each value is one 64-bit word and gen can be moved to any value
   exactly: its kind advances by single draws and it holds no buffered
   half (which an advance would drop; one of 0 drops only that). */
static int can_skip(const rng_job *j, NclDType rdt)
{
    const int one_word = j->op == NCL_RNG_RAW ||
                         ((j->op == NCL_RNG_RANDOM || j->op == NCL_RNG_UNIFORM) &&
                          (rdt == NCL_FLOAT64 || rdt == NCL_DTYPE_DEFAULT));
    const int kind = NclRngGenKind(j->gen);
    if (!one_word || (kind != NCL_BITGEN_PCG64 && kind != NCL_BITGEN_PCG64DXSM &&
                      kind != NCL_BITGEN_PHILOX4X32))
        return 0;
    NclRngGen *g = NULL;
    unsigned char *b = NULL;
    size_t n = 0;
    int same = NclRngGenCopy(j->gen, &g) == NCL_OK && NclRngGenAdvance(g, 0, 0) == NCL_OK &&
               state_of(j->who, g, &b, &n) == NCL_OK && n == j->nstate &&
               memcmp(b, j->state, n) == 0;
    free(b);
    NclRngGenFree(g);
    return same;
}

/* Draws this rank's rows (la, lb its parameters) into a new array *lres:
   rows [off, off + cnt) of a layout whose ranks follow each other in C
   order, `inner` elements a row. The chain leaves the state the generator
   ends in after the whole call in j->next; skip leaves it to the commit
   (an advance by the whole). */
static NclStatus draw_rows(rng_job *j, way w, const NclArray *la, const NclArray *lb,
                           int64_t off, int64_t inner, NclArray **lres)
{
    NclMpiComm *c = j->c;
    const int me = c->rank, P = c->size, n = (int)j->nstate;
    NclRngGen *g = NULL;
    NclStatus st = NclRngGenCopy(j->gen, &g);
    if (w == WAY_SKIP) {
        if (st == NCL_OK) st = NclRngGenAdvance(g, (uint64_t)(off * inner), 0);
        if (st == NCL_OK) st = NclRngNext(j->self, j->op, g, la, lb, lres, &j->q);
        NclRngGenFree(g);
        return st;
    }
    /* the chain; a rank that failed still passes a state on, so that
       nobody waits for it */
    unsigned char *blob = j->next;
    memcpy(blob, j->state, j->nstate);
    int err = MPI_SUCCESS;
    if (me > 0) {
        err = MPI_Recv(blob, n, MPI_BYTE, me - 1, 0, c->comm, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS && st == NCL_OK) st = mpi_failed(j->who, "MPI_Recv", err);
        if (st == NCL_OK) st = NclRngGenSetState(g, blob, j->nstate);
    }
    if (st == NCL_OK) st = NclRngNext(j->self, j->op, g, la, lb, lres, &j->q);
    size_t got = 0;
    if (st == NCL_OK) st = NclRngGenGetState(g, blob, j->nstate, &got);
    NclRngGenFree(g);
    if (me < P - 1) {
        err = MPI_Send(blob, n, MPI_BYTE, me + 1, 0, c->comm);
        if (err != MPI_SUCCESS && st == NCL_OK) st = mpi_failed(j->who, "MPI_Send", err);
    }
    err = MPI_Bcast(blob, n, MPI_BYTE, P - 1, c->comm);
    if (err != MPI_SUCCESS && st == NCL_OK) st = mpi_failed(j->who, "MPI_Bcast", err);
    return st;
}

/* Rank 0 draws op into a new *res from a copy of the generator (a, b its
   parameters, read on rank 0 only); every rank then has the state it ends
   in, in j->next. st: this rank's preparation so far (agreed on here). */
static NclStatus root_draw(rng_job *j, NclRngOp op, const NclArray *a, const NclArray *b,
                           const NclParams *q, NclArray **res, NclStatus st)
{
    NclMpiComm *c = j->c;
    if (st == NCL_OK && c->rank == 0) {
        NclRngGen *g = NULL;
        size_t got = 0;
        st = NclRngGenCopy(j->gen, &g);
        if (st == NCL_OK) st = NclRngNext(j->self, op, g, a, b, res, q);
        if (st == NCL_OK) st = NclRngGenGetState(g, j->next, j->nstate, &got);
        NclRngGenFree(g);
    }
    if ((st = mpi_agree(c, st)) != NCL_OK) return st;
    const int err = MPI_Bcast(j->next, (int)j->nstate, MPI_BYTE, 0, c->comm);
    return mpi_agree(c, err == MPI_SUCCESS ? NCL_OK : mpi_failed(j->who, "MPI_Bcast", err));
}

/* Rank 0 draws the whole result (the parameters gathered there) and
   scatters it to (split, counts); the state it ends in goes to j->next. */
static NclStatus draw_whole(rng_job *j, const NclArray *a, const NclArray *b, int split,
                            const int64_t *counts, NclArray **res)
{
    NclMpiComm *c = j->c;
    const NclArray *x[2] = {a, b};
    NclArray *whole[2] = {NULL, NULL}, *full = NULL;
    NclStatus st = NCL_OK;
    for (int i = 0; i < 2 && st == NCL_OK; i++)
        if (mpi_dist_of(x[i])) st = mpi_gather(j->who, x[i], 0, &whole[i]);
    NclParams q = j->q;
    q.ndim = j->nd;
    q.shape = j->shape;
    st = root_draw(j, j->op, whole[0] ? whole[0] : a, whole[1] ? whole[1] : b, &q, &full, st);
    NclArrayRelease(whole[0]);
    NclArrayRelease(whole[1]);
    if (st == NCL_OK) st = mpi_scatter(c, 0, full, split, counts, res);
    NclArrayRelease(full);
    return st;
}

/* SHUFFLE (*out in place) and PERMUTATION (a shuffled copy of a) along
   params->axes[0] of a distributed array. A Fisher-Yates shuffle of x
   along an axis of extent n moves x[perm[i]] to position i, perm being
   the same shuffle of arange(n), which PERMUTATION of the integer n draws
   with the same words. Rank 0 draws perm (its generator's state then goes
   to every rank), and the result is a TAKE of x with perm, split as x is
   along the axis when that is the split one. */
static NclStatus shuffle(rng_job *j, const NclArray *a, const NclArray *b, NclArray **out)
{
    NclMpiComm *c = j->c;
    const int shuf = j->op == NCL_RNG_SHUFFLE;
    const NclArray *x = shuf ? *out : a;
    const mpi_dist *d = mpi_dist_of(x);
    if ((shuf && (a || b)) || (!shuf && (b || *out)) || d == NULL)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s", j->who,
                         shuf ? "shuffles *out in place; a and b must be NULL"
                              : "takes the array as a (b NULL, *out NULL); the array is the "
                                "distributed one");
    const int nd = NclArrayNDim(x);
    if (!shuf && nd == 0) {
        /* PERMUTATION of a distributed 0-d integer n: rank 0 permutes
           arange(n), which is scattered balanced */
        NclArray *whole = NULL, *perm = NULL;
        NclStatus st = mpi_gather(j->who, x, NCL_MPI_ALL, &whole);
        st = root_draw(j, j->op, whole, NULL, &j->q, &perm, st);
        NclArrayRelease(whole);
        if (st == NCL_OK) st = mpi_scatter(c, 0, perm, 0, NULL, out);
        if (st == NCL_OK) st = NclRngGenSetState(j->gen, j->next, j->nstate);
        NclArrayRelease(perm);
        return st;
    }
    if (j->q.axes && j->q.naxes > 1)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: naxes %d (one axis)", j->who, j->q.naxes);
    int axis = j->q.axes && j->q.naxes == 1 ? j->q.axes[0] : 0;
    if (axis < 0) axis += nd;
    if (nd == 0 || axis < 0 || axis >= nd)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s", j->who,
                         nd == 0 ? "a 0-d array cannot be shuffled" : "axis out of range");
    const int64_t n = NclArrayShape(x)[axis];
    NclArray *perm = NULL, *ip = NULL, *res = NULL, *moved = NULL;
    NclStatus st = c->rank == 0 ? NclFull(NCL_INT64, 0, NULL, &n, &ip) : NCL_OK;
    st = root_draw(j, NCL_RNG_PERMUTATION, ip, NULL, NULL, &perm, st);
    /* the indices: split as x along the split axis, else whole everywhere */
    NclArray *idx = NULL;
    if (st == NCL_OK && axis == d->split) st = mpi_scatter(c, 0, perm, 0, d->counts, &idx);
    else if (st == NCL_OK) {
        NclArray *dp = NULL;
        st = mpi_scatter(c, 0, perm, 0, NULL, &dp);
        if (st == NCL_OK) st = mpi_gather(j->who, dp, NCL_MPI_ALL, &idx);
        NclArrayRelease(dp);
    }
    if (st == NCL_OK) {
        NclParams tp = NCL_PARAMS_INIT;
        tp.axes = &axis;
        tp.naxes = 1;
        st = NclMask(NCL_MASK_TAKE, x, idx, &res, &tp);
    }
    if (st == NCL_OK && shuf) {
        /* back into x, in x's layout */
        const mpi_dist *rd = mpi_dist_of(res);
        if (rd->split != d->split || memcmp(rd->counts, d->counts, (size_t)c->size * 8) != 0)
            st = mpi_move(j->who, res, d->split, d->counts, &moved);
        NclArray *dst = d->local;
        if (st == NCL_OK)
            st = mpi_agree(c, NclConvert(NCL_CONVERT_COPYTO,
                                         mpi_dist_of(moved ? moved : res)->local, &dst, NULL));
    }
    if (st == NCL_OK) st = NclRngGenSetState(j->gen, j->next, j->nstate);
    if (st == NCL_OK && !shuf) {
        *out = res;
        res = NULL;
    }
    NclArray *arrs[] = {perm, ip, res, moved, idx};
    for (size_t i = 0; i < sizeof arrs / sizeof *arrs; i++) NclArrayRelease(arrs[i]);
    return st;
}

NclStatus mpi_rng(NclHook *self, const char *who, uint64_t h, NclRngOp op, NclRngGen *gen,
                  const NclArray *a, const NclArray *b, NclArray **out, const NclParams *params)
{
    NclParams p = NCL_PARAMS_INIT;
    if (params) memcpy(&p, params, params->size < sizeof p ? params->size : sizeof p);
    const mpi_dist *od = out ? mpi_dist_of(*out) : NULL;
    const mpi_dist *ref = od;
    const NclArray *x[4] = {a, b, out ? *out : NULL, p.where};
    NclMpiComm *c = NULL;
    for (int i = 0; i < 4 && c == NULL; i++)
        if (mpi_dist_of(x[i])) c = mpi_dist_of(x[i])->c;
    rng_job j = {self, who, c, op, gen, p, 0, {0}, NULL, NULL, 0};
    /* the generators must be in the same state everywhere (a missing one
       is agreed on too: in driver mode a worker may lack it) */
    NclStatus st = gen == NULL || out == NULL
                       ? mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who,
                                   gen ? "out" : "gen")
                       : state_of(who, gen, &j.state, &j.nstate);
    if (st == NCL_OK && (j.next = malloc(j.nstate)) == NULL)
        st = mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    if (st == NCL_OK) {
        h = mpi_hash(h, j.state, j.nstate);
        h = mpi_hash(h, &p.ndim, sizeof p.ndim);
        h = mpi_hash(h, &p.endpoint, sizeof p.endpoint);
        if (p.shape && p.ndim >= 0 && p.ndim <= NCL_MAXDIMS)
            h = mpi_hash(h, p.shape, (size_t)p.ndim * sizeof *p.shape);
    }
    if ((st = mpi_agree(c, st)) == NCL_OK) st = mpi_same(c, who, h);
    if (st != NCL_OK) goto done;
    if (op == NCL_RNG_SHUFFLE || op == NCL_RNG_PERMUTATION) {
        st = shuffle(&j, a, b, out);
        goto done;
    }
    st = NCL_ERR_UNSUPPORTED;
    if (p.where) {
        mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: a where mask is refused", who);
        st = NCL_ERR_INVALID_ARGUMENT;
        goto done;
    }
    if (*out && !od) {
        mpi_error(st, "%s: the output is not distributed while a parameter is; give a "
                  "distributed output, or gather the parameter (NclMpiGather)", who);
        goto done;
    }
    /* the result's shape and layout: the output's, else the first
       distributed parameter of the result's shape */
    if (od) {
        j.nd = NclArrayNDim(*out);
        memcpy(j.shape, NclArrayShape(*out), (size_t)j.nd * sizeof *j.shape);
        if (p.dtype != NCL_DTYPE_DEFAULT && p.dtype != NclArrayDType(*out)) {
            st = mpi_error(NCL_ERR_DTYPE, "%s: params->dtype is %s but the output is %s", who,
                           NclDTypeName(p.dtype), NclDTypeName(NclArrayDType(*out)));
            goto done;
        }
        p.dtype = NclArrayDType(*out);
    } else if (p.shape) {
        if (p.ndim < 0 || p.ndim > NCL_MAXDIMS) {
            st = mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: params->ndim is %d; it must be 0..%d",
                           who, p.ndim, NCL_MAXDIMS);
            goto done;
        }
        j.nd = p.ndim;
        memcpy(j.shape, p.shape, (size_t)j.nd * sizeof *j.shape);
    } else if ((st = mpi_broadcast_shape(who, x, 2, &j.nd, j.shape)) != NCL_OK)
        goto done;
    if (od && p.shape &&
        (p.ndim != j.nd || memcmp(p.shape, j.shape, (size_t)j.nd * sizeof *j.shape) != 0)) {
        st = mpi_error(NCL_ERR_SHAPE, "%s: params->shape is not the output's shape", who);
        goto done;
    }
    for (int i = 0; i < 2 && ref == NULL; i++)
        if (mpi_dist_of(x[i]) && NclArrayNDim(x[i]) == j.nd &&
            memcmp(NclArrayShape(x[i]), j.shape, (size_t)j.nd * sizeof *j.shape) == 0)
            ref = mpi_dist_of(x[i]);
    if (ref == NULL) {
        st = mpi_error(NCL_ERR_UNSUPPORTED, "%s: a distributed parameter is broadcast and the "
                       "output is not given: give a distributed output (NclMpiEmpty) for the "
                       "result's layout", who);
        goto done;
    }
    j.q = p;
    j.q.where = NULL;
    const int P = c->size, me = c->rank, split = ref->split;
    int64_t *counts = malloc(2 * (size_t)P * sizeof *counts);
    if (counts == NULL) {
        st = mpi_agree(c, mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who));
        goto done;
    }
    memcpy(counts, ref->counts, (size_t)P * sizeof *counts);
    const way w = j.nd == 0 || (op == NCL_RNG_INTEGERS && p.dtype != NCL_DTYPE_DEFAULT &&
                                NclDTypeSize(p.dtype) < 4)
                      ? WAY_WHOLE
                  : can_skip(&j, p.dtype) ? WAY_SKIP
                                          : WAY_CHAIN;
    NclArray *res = NULL;
    int direct = 0; /* drawn into the output's partitions themselves */
    int64_t total = 1;
    for (int i = 0; i < j.nd; i++) total *= j.shape[i];
    if (w == WAY_WHOLE)
        st = draw_whole(&j, a, b, split, counts, &res);
    else {
        /* the layout drawn into: the result's when its ranks follow each
           other in C order, else balanced along axis 0 */
        int64_t lead = 1, inner = 1;
        for (int i = 0; i < split; i++) lead *= j.shape[i];
        int dsplit = split;
        int64_t *dc = counts + P;
        if (lead > 1) {
            dsplit = 0;
            mpi_balanced(j.shape[0], P, dc);
        } else
            memcpy(dc, counts, (size_t)P * sizeof *dc);
        for (int i = dsplit + 1; i < j.nd; i++) inner *= j.shape[i];
        int64_t off = 0;
        for (int r = 0; r < me; r++) off += dc[r];
        int64_t ls[NCL_MAXDIMS];
        memcpy(ls, j.shape, (size_t)j.nd * sizeof *ls);
        ls[dsplit] = dc[me];
        j.q.ndim = j.nd;
        j.q.shape = ls;
        NclArray *la = NULL, *lb = NULL, *lres = NULL, *drawn = NULL;
        /* straight into a provided output of this layout when no rank can
           fail where another does not: the parameters are scalars, the
           same everywhere (an array's values differ between ranks) */
        const int scalars = (a == NULL || (!mpi_dist_of(a) && NclArrayNDim(a) == 0)) &&
                            (b == NULL || (!mpi_dist_of(b) && NclArrayNDim(b) == 0));
        direct = od && dsplit == split && scalars;
        if (direct) {
            lres = od->local;
            NclArrayRetain(lres);
        }
        st = mpi_localize(who, a, j.nd, j.shape, dsplit, dc, off, dc[me], &la);
        if (st == NCL_OK) st = mpi_localize(who, b, j.nd, j.shape, dsplit, dc, off, dc[me], &lb);
        if ((st = mpi_agree(c, st)) == NCL_OK) {
            st = draw_rows(&j, w, la, lb, off, inner, &lres);
            if ((st = mpi_agree(c, st)) == NCL_OK) {
                st = mpi_dist_wrap(who, c, NclArrayDType(lres), j.nd, j.shape, dsplit, dc, lres,
                                   &drawn);
                lres = NULL;
                st = mpi_agree(c, st);
            }
        }
        NclArrayRelease(lres);
        NclArrayRelease(la);
        NclArrayRelease(lb);
        if (st == NCL_OK && dsplit != split) st = mpi_move(who, drawn, split, counts, &res);
        else if (st == NCL_OK) {
            res = drawn;
            drawn = NULL;
        }
        NclArrayRelease(drawn);
    }
    free(counts);
    /* commit: the values, then the generator */
    if (st == NCL_OK && od && !direct) {
        NclArray *dst = od->local;
        st = NclConvert(NCL_CONVERT_COPYTO, mpi_dist_of(res)->local, &dst, NULL);
        st = mpi_agree(c, st);
    }
    if (st == NCL_OK) {
        if (w == WAY_SKIP) st = NclRngGenAdvance(gen, (uint64_t)total, 0);
        else st = NclRngGenSetState(gen, j.next, j.nstate);
        if (od) NclArrayRelease(res);
        else *out = res;
        res = NULL;
    }
    NclArrayRelease(res);
done:
    free(j.state);
    free(j.next);
    return st;
}
