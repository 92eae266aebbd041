/*
 * hooks.c: the level-1 hooks libncl_mpi puts in front of every subsystem
 * chain. Each one tests its arrays (one test per array) and passes a call
 * with none distributed straight on; otherwise every rank checks that all
 * made the same call, runs its share through the rest of the local chain
 * (the threader and the kernels), and the ranks agree on the status before
 * a result is committed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ncl_mpi_internal.h"

static NclHook nodes[NCL_SUBSYSTEM_COUNT];

/* The call's name for messages: "NclBinary(add)". */
static void call_name(char *buf, size_t cap, NclSubsystem sub, int op)
{
    static const char *const fn[NCL_SUBSYSTEM_COUNT] = {
        [NCL_SUBSYSTEM_CONVERT] = "NclConvert", [NCL_SUBSYSTEM_COMPARE] = "NclCompare",
        [NCL_SUBSYSTEM_ISUNARY] = "NclIsUnary", [NCL_SUBSYSTEM_UNARY] = "NclUnary",
        [NCL_SUBSYSTEM_BINARY] = "NclBinary",   [NCL_SUBSYSTEM_TERNARY] = "NclTernary",
        [NCL_SUBSYSTEM_REDUCE] = "NclReduce",   [NCL_SUBSYSTEM_SORT] = "NclSort",
        [NCL_SUBSYSTEM_MASK] = "NclMask",       [NCL_SUBSYSTEM_RNG] = "NclRng",
        [NCL_SUBSYSTEM_CREATE] = "NclCreate",   [NCL_SUBSYSTEM_LINALG] = "NclLinalg"};
    snprintf(buf, cap, "%s(op %d)", fn[sub] ? fn[sub] : "Ncl?", op);
}

static const NclArray *where_of(const NclParams *p)
{
    if (p == NULL || p->size < offsetof(NclParams, where) + sizeof p->where) return NULL;
    return p->where;
}

/* The first distributed array among n, or NULL. */
static mpi_dist *first_dist(const NclArray *const *arr, int n)
{
    for (int i = 0; i < n; i++) {
        mpi_dist *d = mpi_dist_of(arr[i]);
        if (d) return d;
    }
    return NULL;
}

/* The description every rank must share: the call, its arrays, and the
   params' values (pointers are not compared, what they point to is). */
static uint64_t call_hash(NclSubsystem sub, int op, const NclArray *const *arr, int n,
                          const NclParams *p)
{
    uint64_t h = mpi_hash(MPI_HASH_INIT, &sub, sizeof sub);
    h = mpi_hash(h, &op, sizeof op);
    for (int i = 0; i < n; i++) h = mpi_hash_array(h, arr[i]);
    if (p) {
        const size_t upto = p->size < sizeof *p ? p->size : sizeof *p;
        NclParams q;
        memset(&q, 0, sizeof q);
        memcpy(&q, p, upto);
        h = mpi_hash(h, &q.dtype, sizeof q.dtype);
        h = mpi_hash(h, &q.casting, sizeof q.casting);
        if (upto >= offsetof(NclParams, naxes) + sizeof q.naxes) {
            h = mpi_hash(h, &q.naxes, sizeof q.naxes);
            h = mpi_hash(h, &q.keepdims, sizeof q.keepdims);
            if (q.axes && q.naxes > 0 && q.naxes <= NCL_MAXDIMS)
                h = mpi_hash(h, q.axes, (size_t)q.naxes * sizeof *q.axes);
        }
    }
    return h;
}

NclStatus mpi_broadcast_shape(const char *who, const NclArray *const *arr, int n, int *nd,
                              int64_t *shape)
{
    *nd = 0;
    for (int i = 0; i < n; i++)
        if (arr[i] && NclArrayNDim(arr[i]) > *nd) *nd = NclArrayNDim(arr[i]);
    for (int k = 0; k < *nd; k++) shape[k] = 1;
    for (int i = 0; i < n; i++) {
        if (!arr[i]) continue;
        const int m = NclArrayNDim(arr[i]);
        const int64_t *s = NclArrayShape(arr[i]);
        for (int k = 0; k < m; k++) {
            int64_t *g = &shape[*nd - m + k];
            if (s[k] == *g || s[k] == 1) continue;
            if (*g != 1)
                return mpi_error(NCL_ERR_BROADCAST, "%s: operands whose shapes do not broadcast "
                                 "(extent %lld against %lld)", who, (long long)s[k],
                                 (long long)*g);
            *g = s[k];
        }
    }
    return NCL_OK;
}

static int same_layout(const mpi_dist *d, const NclArray *a, int nd, const int64_t *shape,
                       int split, const int64_t *counts)
{
    return NclArrayNDim(a) == nd &&
           memcmp(NclArrayShape(a), shape, (size_t)nd * sizeof *shape) == 0 &&
           d->split == split &&
           memcmp(d->counts, counts, (size_t)d->c->size * sizeof *counts) == 0;
}

NclStatus mpi_localize(const char *who, const NclArray *x, int nd, const int64_t *shape, int split,
                       const int64_t *counts, int64_t off, int64_t cnt, NclArray **lx)
{
    *lx = NULL;
    if (x == NULL) return NCL_OK;
    const mpi_dist *d = mpi_dist_of(x);
    NclArray *whole = NULL;
    NclStatus st;
    if (d) {
        if (same_layout(d, x, nd, shape, split, counts)) {
            NclArrayRetain(d->local);
            *lx = d->local;
            return NCL_OK;
        }
        if (NclArrayNDim(x) == nd &&
            memcmp(NclArrayShape(x), shape, (size_t)nd * sizeof *shape) == 0) {
            NclArray *moved = NULL;
            if ((st = mpi_move(who, x, split, counts, &moved)) != NCL_OK) return st;
            NclArrayRetain(mpi_dist_of(moved)->local);
            *lx = mpi_dist_of(moved)->local;
            NclArrayRelease(moved);
            return NCL_OK;
        }
        if ((st = mpi_gather(who, x, NCL_MPI_ALL, &whole)) != NCL_OK) return st;
        x = whole;
    }
    const int m = NclArrayNDim(x), ax = split - (nd - m);
    const int64_t *s = NclArrayShape(x);
    if (nd > 0 && ax >= 0 && s[ax] == shape[split] && s[ax] != 1) {
        st = mpi_rows(x, ax, off, off + cnt, lx);
        NclArrayRelease(whole);
        return st;
    }
    if (whole) *lx = whole;
    else {
        NclArrayRetain((NclArray *)x);
        *lx = (NclArray *)x;
    }
    return NCL_OK;
}

/* ---- the calls on this rank ------------------------------------------------- */

/* One call passed on to the rest of the chain, whatever its subsystem. */
typedef struct call {
    NclHook *self;
    NclSubsystem sub;
    int op;
    NclRngGen *gen;
} call;

static NclStatus call_next(const call *k, const NclArray *const *in, NclArray **out,
                           const NclParams *p)
{
    switch (k->sub) {
    case NCL_SUBSYSTEM_CONVERT: return NclConvertNext(k->self, (NclConvertOp)k->op, in[0], out, p);
    case NCL_SUBSYSTEM_COMPARE:
        return NclCompareNext(k->self, (NclCompareOp)k->op, in[0], in[1], out, p);
    case NCL_SUBSYSTEM_ISUNARY: return NclIsUnaryNext(k->self, (NclIsUnaryOp)k->op, in[0], out, p);
    case NCL_SUBSYSTEM_UNARY: return NclUnaryNext(k->self, (NclUnaryOp)k->op, in[0], out, p);
    case NCL_SUBSYSTEM_BINARY:
        return NclBinaryNext(k->self, (NclBinaryOp)k->op, in[0], in[1], out, p);
    case NCL_SUBSYSTEM_TERNARY:
        return NclTernaryNext(k->self, (NclTernaryOp)k->op, in[0], in[1], in[2], out, p);
    case NCL_SUBSYSTEM_REDUCE: return NclReduceNext(k->self, (NclReduceOp)k->op, in[0], out, p);
    case NCL_SUBSYSTEM_SORT: return NclSortNext(k->self, (NclSortOp)k->op, in[0], out, p);
    case NCL_SUBSYSTEM_MASK: return NclMaskNext(k->self, (NclMaskOp)k->op, in[0], in[1], out, p);
    case NCL_SUBSYSTEM_RNG:
        return NclRngNext(k->self, (NclRngOp)k->op, k->gen, in[0], in[1], out, p);
    default: return mpi_error(NCL_ERR_INVALID_ARGUMENT, "libncl_mpi: subsystem %d", (int)k->sub);
    }
}

/* params with where replaced (size kept). */
static NclParams with_where(const NclParams *p, const NclArray *w)
{
    NclParams q = NCL_PARAMS_INIT;
    if (p) {
        const size_t upto = p->size < sizeof q ? p->size : sizeof q;
        memcpy(&q, p, upto);
    }
    q.where = w;
    return q;
}

/* ---- elementwise ------------------------------------------------------------ */

static NclStatus elementwise(const call *k, int nin, const NclArray *const *in, NclArray **out,
                             const NclParams *params)
{
    char who[64];
    call_name(who, sizeof who, k->sub, k->op);
    const NclArray *w = where_of(params);
    const NclArray *arr[5] = {nin > 0 ? in[0] : NULL, nin > 1 ? in[1] : NULL,
                              nin > 2 ? in[2] : NULL, w, out ? *out : NULL};
    mpi_dist *first = first_dist(arr, 5);
    NclMpiComm *c = first->c;
    NclStatus st = mpi_same(c, who, call_hash(k->sub, k->op, arr, 5, params));
    if (st != NCL_OK) return st;
    if (out == NULL) return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: out is NULL", who);
    int nd = 0;
    int64_t shape[NCL_MAXDIMS];
    if ((st = mpi_broadcast_shape(who, arr, 4, &nd, shape)) != NCL_OK) return st;
    /* the result's layout: a distributed output's, else the first
       distributed operand of the result's shape */
    const NclArray *ref = NULL;
    if (arr[4] && mpi_dist_of(arr[4])) ref = arr[4];
    for (int i = 0; i < 4 && ref == NULL; i++)
        if (mpi_dist_of(arr[i]) && NclArrayNDim(arr[i]) == nd &&
            memcmp(NclArrayShape(arr[i]), shape, (size_t)nd * sizeof *shape) == 0)
            ref = arr[i];
    NclArray *l[4] = {NULL, NULL, NULL, NULL}, *lo = NULL;
    if (ref == NULL || (arr[4] && !mpi_dist_of(arr[4]))) {
        /* every distributed operand is broadcast, or the output is an
           ordinary array (every rank's gets the whole result): each rank
           computes the whole result from gathered operands */
        if (arr[4]) lo = (NclArray *)arr[4];
        for (int i = 0; i < 4 && st == NCL_OK; i++) {
            if (arr[i] == NULL) continue;
            if (mpi_dist_of(arr[i])) st = mpi_gather(who, arr[i], NCL_MPI_ALL, &l[i]);
            else {
                NclArrayRetain((NclArray *)arr[i]);
                l[i] = (NclArray *)arr[i];
            }
        }
        if (st == NCL_OK) {
            NclParams q = with_where(params, l[3]);
            st = call_next(k, (const NclArray *const *)l, &lo, params ? &q : NULL);
        }
        if ((st = mpi_agree(c, st)) == NCL_OK) *out = lo;
        else if (lo != arr[4])
            NclArrayRelease(lo);
        for (int i = 0; i < 4; i++) NclArrayRelease(l[i]);
        return st;
    }
    const mpi_dist *rd = mpi_dist_of(ref);
    const int split = rd->split, me = c->rank;
    const int64_t off = rd->offsets[me], cnt = rd->counts[me];
    int64_t *counts = malloc((size_t)c->size * sizeof *counts);
    if (counts == NULL) return mpi_agree(c, mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who));
    memcpy(counts, rd->counts, (size_t)c->size * sizeof *counts);
    for (int i = 0; i < 4 && st == NCL_OK; i++)
        st = mpi_localize(who, arr[i], nd, shape, split, counts, off, cnt, &l[i]);
    if (st == NCL_OK && arr[4]) {
        lo = mpi_dist_of(arr[4])->local;
        NclArrayRetain(lo);
    }
    if (st == NCL_OK) {
        NclParams q = with_where(params, l[3]);
        st = call_next(k, (const NclArray *const *)l, &lo, params ? &q : NULL);
    }
    if ((st = mpi_agree(c, st)) == NCL_OK) {
        if (arr[4]) NclArrayRelease(lo);
        else {
            NclArray *made = NULL;
            st = mpi_dist_wrap(who, c, NclArrayDType(lo), nd, shape, split, counts, lo, &made);
            if ((st = mpi_agree(c, st)) == NCL_OK) *out = made;
            else NclArrayRelease(made);
        }
    } else
        NclArrayRelease(lo);
    for (int i = 0; i < 4; i++) NclArrayRelease(l[i]);
    free(counts);
    return st;
}

/* ---- reductions ------------------------------------------------------------- */

NclStatus mpi_reduce_whole(NclHook *self, const char *who, NclReduceOp op, const NclArray *a,
                           NclArray **out, const NclParams *params)
{
    NclMpiComm *c = mpi_dist_of(a)->c;
    const NclArray *w = where_of(params);
    NclArray *whole = NULL, *ww = NULL;
    NclStatus st = mpi_gather(who, a, NCL_MPI_ALL, &whole);
    if (st == NCL_OK && mpi_dist_of(w)) st = mpi_gather(who, w, NCL_MPI_ALL, &ww);
    if (st == NCL_OK) {
        NclParams q = with_where(params, ww ? ww : w);
        st = NclReduceNext(self, op, whole, out, &q);
    }
    NclArrayRelease(whole);
    NclArrayRelease(ww);
    return mpi_agree(c, st);
}


static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        const int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* A float SUM or PROD over axes that include the split one (no initial,
   n > 0; where= masks elements to the identity in their places, as one
   call does), with the bits of one call: every output's sequence (its
   elements in C order of the reduced axes) is cut at the same chunks as
   NclReduce cuts it (ncl/reduce.h). The rows move first so that the split
   axis is the outermost reduced one and every rank's rows start at a chunk
   boundary; each rank then reduces its whole chunks (and the last rank its
   short last one) through the rest of the local chain, cuts its chunks
   into the tree's aligned power-of-two subtrees (at most about 2 log2 K),
   and combines each into a value and its low part (NclReduceChunksLo); the
   subtrees of every rank, gathered in order with their lengths, are
   combined by NclReduceChunksLo as the tree combines them. What moves is a
   few pairs per rank and output, whatever the size. */
static NclStatus reduce_tree(const call *k, const NclArray *a, const NclArray *w, const int *red,
                             const NclParams *p, NclDType rdt, NclArray **out)
{
    char who[64];
    call_name(who, sizeof who, k->sub, k->op);
    const mpi_dist *d = mpi_dist_of(a);
    NclMpiComm *c = d->c;
    const int nd = NclArrayNDim(a), P = c->size, me = c->rank;
    const int64_t *shape = NclArrayShape(a);
    int f = -1, perm[NCL_MAXDIMS], np = 0;
    int64_t rin = 1, kept = 1, oshape[NCL_MAXDIMS];
    int ond = 0;
    for (int i = 0; i < nd; i++) {
        if (red[i] && f < 0) f = i;
        else if (red[i]) rin *= shape[i];
        if (!red[i]) {
            perm[np++] = i;
            kept *= shape[i];
            oshape[ond++] = shape[i];
        } else if (p->keepdims)
            oshape[ond++] = 1;
    }
    for (int i = 0; i < nd; i++)
        if (red[i]) perm[np++] = i;
    /* rows in units of u, so that each rank's share of a sequence starts
       at a multiple of the chunk */
    const int64_t u = NCL_REDUCE_CHUNK / gcd64(NCL_REDUCE_CHUNK, rin);
    const int64_t rows = shape[f], units = (rows + u - 1) / u;
    int64_t *cs = malloc(2 * (size_t)P * sizeof *cs);
    if (cs == NULL) return mpi_agree(c, mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who));
    int64_t *kc = cs + P, left = rows, k0 = 0;
    for (int r = 0; r < P; r++) {
        int64_t want = (units / P + (r < units % P)) * u;
        cs[r] = want < left ? want : left;
        left -= cs[r];
        kc[r] = (cs[r] * rin + NCL_REDUCE_CHUNK - 1) / NCL_REDUCE_CHUNK;
        if (r < me) k0 += kc[r];
    }
    NclStatus st = NCL_OK;
    NclArray *b = NULL;
    if (d->split == f && memcmp(d->counts, cs, (size_t)P * sizeof *cs) == 0) {
        b = (NclArray *)a;
        NclArrayRetain(b);
    } else if ((st = mpi_move(who, a, f, cs, &b)) != NCL_OK) {
        free(cs);
        return st;
    }
    /* this rank's sequences: (kept, its rows x rin), C order */
    const NclArray *loc = mpi_dist_of(b)->local;
    const int64_t len = cs[me] * rin, nfull = len / NCL_REDUCE_CHUNK;
    NclArray *t = NULL, *flat = NULL, *vals = NULL, *part = NULL, *all = NULL, *res = NULL;
    NclArray *lw = NULL, *wb = NULL, *wt = NULL, *wflat = NULL;
    const int64_t fshape[2] = {kept, len}, vshape[2] = {kept, kc[me]};
    st = NclArrayTranspose(loc, perm, &t);
    if (st == NCL_OK) st = NclArrayReshape(t, 2, fshape, &flat);
    /* the where mask, this rank's rows of it arranged as the data are: a
       masked element becomes the identity in its place, as in one call */
    int64_t off = 0;
    for (int r = 0; r < me; r++) off += cs[r];
    if (w && st == NCL_OK) st = mpi_localize(who, w, nd, shape, f, cs, off, cs[me], &lw);
    if (lw && st == NCL_OK) st = NclArrayBroadcastTo(lw, nd, NclArrayShape(loc), &wb);
    if (wb && st == NCL_OK) st = NclArrayTranspose(wb, perm, &wt);
    if (wt && st == NCL_OK) st = NclArrayReshape(wt, 2, fshape, &wflat);
    if (st == NCL_OK) st = NclEmpty(rdt, 2, vshape, &vals);
    NclParams q = NCL_PARAMS_INIT;
    q.dtype = p->dtype;
    q.casting = p->casting;
    q.naxes = 1;
    for (int piece = 0; piece < 2 && st == NCL_OK; piece++) {
        /* the whole chunks, then the short last one */
        const int64_t c0 = piece ? nfull : 0, c1 = piece ? kc[me] : nfull;
        if (c1 <= c0) continue;
        const int64_t e0[2] = {0, c0 * NCL_REDUCE_CHUNK},
                      e1[2] = {kept, piece ? len : c1 * NCL_REDUCE_CHUNK}, one[2] = {1, 1};
        const int64_t v0[2] = {0, c0}, v1[2] = {kept, c1};
        NclArray *src = NULL, *shaped = NULL, *dst = NULL, *r = NULL, *wsrc = NULL, *wsh = NULL;
        const int64_t cshape[3] = {kept, c1 - c0, piece ? len - c0 * NCL_REDUCE_CHUNK : NCL_REDUCE_CHUNK};
        static const int last = 2;
        q.axes = &last;
        st = NclArraySlice(flat, e0, e1, one, &src);
        if (st == NCL_OK) st = NclArrayReshape(src, 3, cshape, &shaped);
        if (st == NCL_OK && wflat) st = NclArraySlice(wflat, e0, e1, one, &wsrc);
        if (st == NCL_OK && wsrc) st = NclArrayReshape(wsrc, 3, cshape, &wsh);
        q.where = wsh;
        if (st == NCL_OK) st = NclReduceNext(k->self, (NclReduceOp)k->op, shaped, &r, &q);
        q.where = NULL;
        NclArrayRelease(wsrc);
        NclArrayRelease(wsh);
        if (st == NCL_OK) st = NclArraySlice(vals, v0, v1, one, &dst);
        if (st == NCL_OK) st = NclConvert(NCL_CONVERT_COPYTO, r, &dst, NULL);
        NclArrayRelease(src);
        NclArrayRelease(shaped);
        NclArrayRelease(dst);
        NclArrayRelease(r);
    }
    /* each run of this rank's chunks as one value and its low part (the
       tree's subtree of those chunks), then every rank's runs, in order, on
       every rank, combined as the tree combines them */
    const int sum = k->op == NCL_SUM;
    /* this rank's chunks [k0, k0 + kc) cut greedily into runs of 2^m chunks
       starting at multiples of 2^m (the tree's subtrees): at most about
       2 log2 K of them */
    int64_t nrun = 0, rl[128];
    for (int64_t pos = k0; pos < k0 + kc[me];) {
        int64_t g = 1;
        while (pos % (2 * g) == 0 && pos + 2 * g <= k0 + kc[me]) g *= 2;
        rl[nrun++] = g;
        pos += g;
    }
    /* runs along the first axis (rank after rank: one allgather), outputs
       along the second */
    const int64_t rshape[2] = {nrun, kept};
    NclArray *rhi = NULL, *rlo = NULL, *dlo = NULL, *alo = NULL, *tall = NULL, *tlo = NULL;
    NclArray *rlen = NULL, *dlen = NULL, *alen = NULL;
    if (st == NCL_OK) st = NclEmpty(rdt, 2, rshape, &rhi);
    if (st == NCL_OK && sum) st = NclEmpty(rdt, 2, rshape, &rlo);
    if (st == NCL_OK) st = NclEmpty(NCL_INT64, 1, &nrun, &rlen);
    if (st == NCL_OK) memcpy(NclArrayData(rlen), rl, (size_t)nrun * sizeof *rl);
    for (int64_t g = 0, pos = 0; g < nrun && st == NCL_OK; pos += rl[g], g++) {
        const int64_t v0[2] = {0, pos}, v1[2] = {kept, pos + rl[g]}, r0[2] = {g, 0},
                      r1[2] = {g + 1, kept}, row[2] = {1, kept};
        NclArray *run = NULL, *h = NULL, *l = NULL, *dh = NULL, *dl = NULL, *h2 = NULL, *l2 = NULL;
        st = NclArraySlice(vals, v0, v1, NULL, &run);
        if (st == NCL_OK) st = NclArraySlice(rhi, r0, r1, NULL, &dh);
        if (st == NCL_OK && sum) st = NclArraySlice(rlo, r0, r1, NULL, &dl);
        if (st == NCL_OK)
            st = NclReduceChunksLo((NclReduceOp)k->op, run, NULL, NULL, &h, sum ? &l : NULL);
        if (st == NCL_OK) st = NclArrayReshape(h, 2, row, &h2);
        if (st == NCL_OK) st = NclConvert(NCL_CONVERT_COPYTO, h2, &dh, NULL);
        if (st == NCL_OK && sum) st = NclArrayReshape(l, 2, row, &l2);
        if (st == NCL_OK && sum) st = NclConvert(NCL_CONVERT_COPYTO, l2, &dl, NULL);
        NclArray *arrs[] = {run, h, l, dh, dl, h2, l2};
        for (size_t i = 0; i < sizeof arrs / sizeof *arrs; i++) NclArrayRelease(arrs[i]);
    }
    /* every rank's count of runs, then the runs */
    int64_t *rc = malloc((size_t)P * sizeof *rc), gtot = 0;
    if (st == NCL_OK && rc == NULL) st = mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    if ((st = mpi_agree(c, st)) == NCL_OK) {
        const int err = MPI_Allgather(&nrun, 1, MPI_INT64_T, rc, 1, MPI_INT64_T, c->comm);
        if (err != MPI_SUCCESS) st = mpi_failed(who, "MPI_Allgather", err);
    }
    for (int r = 0; st == NCL_OK && r < P; r++) gtot += rc[r];
    const int64_t gshape[2] = {gtot, kept};
    static const int swap[2] = {1, 0};
    if (st == NCL_OK) {
        NclArrayRetain(rhi);
        st = mpi_dist_wrap(who, c, rdt, 2, gshape, 0, rc, rhi, &part);
    }
    if (st == NCL_OK && sum) {
        NclArrayRetain(rlo);
        st = mpi_dist_wrap(who, c, rdt, 2, gshape, 0, rc, rlo, &dlo);
    }
    if (st == NCL_OK) {
        NclArrayRetain(rlen);
        st = mpi_dist_wrap(who, c, NCL_INT64, 1, &gtot, 0, rc, rlen, &dlen);
    }
    if ((st = mpi_agree(c, st)) == NCL_OK) st = mpi_gather(who, part, NCL_MPI_ALL, &all);
    if (st == NCL_OK && sum) st = mpi_gather(who, dlo, NCL_MPI_ALL, &alo);
    if (st == NCL_OK) st = mpi_gather(who, dlen, NCL_MPI_ALL, &alen);
    if (st == NCL_OK) st = NclArrayTranspose(all, swap, &tall);
    if (st == NCL_OK && sum) st = NclArrayTranspose(alo, swap, &tlo);
    NclArray *relse[] = {rhi, rlo, dlo, rlen, dlen};
    for (size_t i = 0; i < sizeof relse / sizeof *relse; i++) NclArrayRelease(relse[i]);
    free(rc);
    if (st == NCL_OK) {
        st = NclReduceChunksLo((NclReduceOp)k->op, tall, tlo, alen, &res, NULL);
        NclArray *shaped = NULL;
        if (st == NCL_OK) st = NclArrayReshape(res, ond, oshape, &shaped);
        if (st == NCL_OK) {
            *out = shaped;
        }
        st = mpi_agree(c, st);
        if (st != NCL_OK && shaped) {
            NclArrayRelease(shaped);
            *out = NULL;
        }
    }
    NclArrayRelease(res);
    NclArrayRelease(all);
    NclArrayRelease(alo);
    NclArrayRelease(tall);
    NclArrayRelease(tlo);
    NclArrayRelease(alen);
    NclArrayRelease(part);
    NclArrayRelease(vals);
    NclArrayRelease(flat);
    NclArrayRelease(t);
    NclArrayRelease(wflat);
    NclArrayRelease(wt);
    NclArrayRelease(wb);
    NclArrayRelease(lw);
    NclArrayRelease(b);
    free(cs);
    return st;
}

/* ARGMIN/ARGMAX. Along an axis that is not the split one each rank works
   on its own lines. Along the split axis (or of the flattened array, the
   rows split along the first axis): each rank with rows gives its extreme
   (MIN/MAX, NaN winning as in NclReduce) and its first index, made global;
   the ranks' extremes, stacked in rank order, pick the rank by the same
   ARGMIN/ARGMAX (the first NaN, and on ties the lowest rank, so the first
   index wins), and the index is taken from that rank's. */
static NclStatus reduce_arg(const call *k, const NclArray *a, const NclParams *params,
                            NclArray **out)
{
    char who[64];
    call_name(who, sizeof who, k->sub, k->op);
    const mpi_dist *d = mpi_dist_of(a);
    NclMpiComm *c = d->c;
    const NclReduceOp op = (NclReduceOp)k->op;
    const NclParams p = with_where(params, NULL);
    if (where_of(params) || *out) {
        /* where= or a provided output: every rank reduces the whole
           operand (its result is the whole too) */
        if (*out && mpi_dist_of(*out))
            return mpi_error(NCL_ERR_UNSUPPORTED, "%s: a distributed output for argmin/argmax "
                             "(let the call allocate it)", who);
        return mpi_reduce_whole(k->self, who, op, a, out, params);
    }
    const int nd = NclArrayNDim(a);
    if (p.axes && p.naxes != 1)
        return mpi_error(NCL_ERR_AXIS, "%s: naxes %d (argmin and argmax take one axis)", who,
                         p.naxes);
    int axis = p.axes ? p.axes[0] : -1;
    if (p.axes && axis < 0) axis += nd;
    if (p.axes && (axis < 0 || axis >= nd))
        return mpi_error(NCL_ERR_AXIS, "%s: axis %d is out of range for %d dimensions", who,
                         p.axes[0], nd);
    NclStatus st;
    if (nd == 0) {
        NclArray *whole = NULL;
        if ((st = mpi_gather(who, a, NCL_MPI_ALL, &whole)) != NCL_OK) return st;
        st = NclReduceNext(k->self, op, whole, out, params);
        NclArrayRelease(whole);
        return mpi_agree(c, st);
    }
    const int me = c->rank, P = c->size;
    if (p.axes && axis != d->split) {
        NclArray *lo = NULL, *made = NULL;
        st = NclReduceNext(k->self, op, d->local, &lo, &p);
        if ((st = mpi_agree(c, st)) != NCL_OK) return st;
        int64_t shape[NCL_MAXDIMS];
        int ond = 0, split = 0;
        for (int i = 0; i < nd; i++) {
            if (i == d->split) split = ond;
            if (i != axis) shape[ond++] = NclArrayShape(a)[i];
            else if (p.keepdims) shape[ond++] = 1;
        }
        st = mpi_dist_wrap(who, c, NCL_INT64, ond, shape, split, d->counts, lo, &made);
        if ((st = mpi_agree(c, st)) == NCL_OK) *out = made;
        else NclArrayRelease(made);
        return st;
    }
    NclArray *b = NULL;
    if (!p.axes && d->split != 0) {
        if ((st = mpi_move(who, a, 0, NULL, &b)) != NCL_OK) return st;
    } else {
        b = (NclArray *)a;
        NclArrayRetain(b);
    }
    const mpi_dist *bd = mpi_dist_of(b);
    /* the result's shape without keepdims (M outputs), and each rank's */
    int64_t oshape[NCL_MAXDIMS], kshape[NCL_MAXDIMS], m = 1, row = 1;
    int ond = 0, knd = 0;
    for (int i = 0; i < nd; i++) {
        if (p.axes && i != axis) {
            oshape[ond++] = NclArrayShape(a)[i];
            m *= NclArrayShape(a)[i];
        }
        if (p.axes ? i == axis : 1) kshape[knd++] = 1;
        else kshape[knd++] = NclArrayShape(a)[i];
        if (i > 0) row *= NclArrayShape(a)[i];
    }
    int64_t *pc = malloc((size_t)P * sizeof *pc), nparts = 0;
    if (pc == NULL) {
        NclArrayRelease(b);
        return mpi_agree(c, mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who));
    }
    for (int r = 0; r < P; r++) nparts += pc[r] = bd->counts[r] > 0;
    if (nparts == 0) {
        /* nothing anywhere: refused as one process refuses it */
        st = NclReduceNext(k->self, op, bd->local, out, params);
        free(pc);
        NclArrayRelease(b);
        return mpi_agree(c, st);
    }
    NclArray *idx = NULL, *val = NULL, *gi = NULL, *gv = NULL;
    NclParams q = p;
    q.keepdims = 0;
    st = NCL_OK;
    if (pc[me]) {
        NclParams qm = q;
        int all[NCL_MAXDIMS];
        for (int i = 0; i < nd; i++) all[i] = i;
        if (!p.axes) {
            qm.axes = all;
            qm.naxes = nd;
        }
        NclArray *off = NULL, *li = NULL;
        const int64_t shift = bd->offsets[me] * (p.axes ? 1 : row);
        if ((st = NclReduceNext(k->self, op, bd->local, &li, &q)) == NCL_OK &&
            (st = NclFull(NCL_INT64, 0, NULL, &shift, &off)) == NCL_OK)
            st = NclBinary(NCL_ADD, li, off, &idx, NULL);
        if (st == NCL_OK)
            st = NclReduceNext(k->self, op == NCL_ARGMIN ? NCL_MIN : NCL_MAX, bd->local, &val, &qm);
        NclArrayRelease(li);
        NclArrayRelease(off);
    }
    /* stacked in rank order: (ranks with rows, M), gathered on all */
    const int64_t sshape[2] = {nparts, m}, one[2] = {1, m};
    NclArray *ri = NULL, *rv = NULL, *wi = NULL, *wv = NULL;
    if (st == NCL_OK && pc[me]) {
        if ((st = NclArrayReshape(idx, 2, one, &ri)) == NCL_OK)
            st = NclArrayReshape(val, 2, one, &rv);
    } else if (st == NCL_OK) {
        const int64_t none[2] = {0, m};
        if ((st = NclEmpty(NCL_INT64, 2, none, &ri)) == NCL_OK)
            st = NclEmpty(NclArrayDType(a), 2, none, &rv);
    }
    if (st == NCL_OK) {
        NclArrayRetain(ri);
        NclArrayRetain(rv);
        if ((st = mpi_dist_wrap(who, c, NCL_INT64, 2, sshape, 0, pc, ri, &wi)) == NCL_OK)
            st = mpi_dist_wrap(who, c, NclArrayDType(rv), 2, sshape, 0, pc, rv, &wv);
    }
    if ((st = mpi_agree(c, st)) == NCL_OK && (st = mpi_gather(who, wi, NCL_MPI_ALL, &gi)) == NCL_OK)
        st = mpi_gather(who, wv, NCL_MPI_ALL, &gv);
    if (st == NCL_OK) {
        /* the winning rank of each output, then its index */
        NclArray *win = NULL, *ar = NULL, *mm = NULL, *t = NULL, *flat = NULL, *pick = NULL,
                 *res = NULL;
        NclParams q0 = NCL_PARAMS_INIT;
        const int zero = 0;
        q0.axes = &zero;
        q0.naxes = 1;
        const int64_t km = nparts * m;
        if ((st = NclReduceNext(k->self, op, gv, &win, &q0)) == NCL_OK &&
            (st = NclFull(NCL_INT64, 0, NULL, &m, &mm)) == NCL_OK &&
            (st = NclBinary(NCL_MULTIPLY, win, mm, &t, NULL)) == NCL_OK &&
            (st = NclArange(NCL_INT64, 0, (double)m, 1, &ar)) == NCL_OK &&
            (st = NclBinary(NCL_ADD, t, ar, &pick, NULL)) == NCL_OK &&
            (st = NclArrayReshape(gi, 1, &km, &flat)) == NCL_OK &&
            (st = NclMask(NCL_MASK_TAKE, flat, pick, &res, NULL)) == NCL_OK) {
            NclArray *shaped = NULL;
            st = p.keepdims ? NclArrayReshape(res, knd, kshape, &shaped)
                            : NclArrayReshape(res, ond, oshape, &shaped);
            if (st == NCL_OK) *out = shaped;
        }
        NclArray *tmp[] = {win, ar, mm, t, flat, pick, res};
        for (size_t i = 0; i < sizeof tmp / sizeof *tmp; i++) NclArrayRelease(tmp[i]);
        if ((st = mpi_agree(c, st)) != NCL_OK && *out) {
            NclArrayRelease(*out);
            *out = NULL;
        }
    }
    NclArray *rel[] = {idx, val, gi, gv, ri, rv, wi, wv, b};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) NclArrayRelease(rel[i]);
    free(pc);
    return st;
}

/* MEAN over the split axis, as NclReduce computes it: the SUM of its
   accumulator (float64, or the dtype= given) through the distributed sum,
   then, as float64, divided by the count, then cast to the result (the
   input's float32, else float64, or the dtype= given). */
static NclStatus reduce_mean(const NclArray *a, const NclArray *w, const int *red,
                             const NclParams *p, NclArray **out)
{
    const int nd = NclArrayNDim(a);
    const NclDType t = NclArrayDType(a);
    const NclDType res = p->dtype != NCL_DTYPE_DEFAULT ? p->dtype
                         : t == NCL_FLOAT32            ? NCL_FLOAT32
                                                       : NCL_FLOAT64;
    NclParams q = *p;
    q.dtype = p->dtype != NCL_DTYPE_DEFAULT ? p->dtype : NCL_FLOAT64;
    q.where = w;
    double n = 1;
    for (int i = 0; i < nd; i++)
        if (red[i]) n *= (double)NclArrayShape(a)[i];
    NclArray *sum = NULL, *f = NULL, *cnt = NULL, *mean = NULL, *ww = NULL, *wb = NULL;
    NclParams cf = NCL_PARAMS_INIT;
    cf.dtype = NCL_FLOAT64;
    cf.casting = NCL_CASTING_UNSAFE;
    NclStatus st = NclReduce(NCL_SUM, a, &sum, &q);
    if (st == NCL_OK) st = NclConvert(NCL_CONVERT_ASTYPE, sum, &f, &cf);
    if (st == NCL_OK && w == NULL) st = NclFull(NCL_FLOAT64, 0, NULL, &n, &cnt);
    else if (st == NCL_OK) {
        /* under a mask, each output's count of selected elements */
        const mpi_dist *wd = mpi_dist_of(w);
        const int same = wd && NclArrayNDim(w) == nd &&
                         memcmp(NclArrayShape(w), NclArrayShape(a), (size_t)nd * 8) == 0;
        if (wd && !same) st = mpi_gather("NclReduce(mean)", w, NCL_MPI_ALL, &ww);
        if (st == NCL_OK && !same)
            st = NclArrayBroadcastTo(ww ? ww : w, nd, NclArrayShape(a), &wb);
        NclParams qc = *p;
        qc.dtype = NCL_DTYPE_DEFAULT;
        qc.initial = NULL;
        qc.where = NULL;
        NclArray *c64 = NULL, *whole = NULL;
        if (st == NCL_OK) st = NclReduce(NCL_COUNT_NONZERO, same ? w : wb, &c64, &qc);
        /* a mask split along a kept axis counts into a distributed array */
        if (st == NCL_OK && mpi_dist_of(c64))
            st = mpi_gather("NclReduce(mean)", c64, NCL_MPI_ALL, &whole);
        if (st == NCL_OK) st = NclConvert(NCL_CONVERT_ASTYPE, whole ? whole : c64, &cnt, &cf);
        NclArrayRelease(c64);
        NclArrayRelease(whole);
    }
    if (st == NCL_OK) st = NclBinary(NCL_DIVIDE, f, cnt, &mean, NULL);
    if (st == NCL_OK && res != NCL_FLOAT64) {
        NclArray *r = NULL;
        cf.dtype = res;
        st = NclConvert(NCL_CONVERT_ASTYPE, mean, &r, &cf);
        NclArrayRelease(mean);
        mean = r;
    }
    NclArrayRelease(sum);
    NclArrayRelease(f);
    NclArrayRelease(cnt);
    NclArrayRelease(ww);
    NclArrayRelease(wb);
    if (st == NCL_OK) *out = mean;
    else NclArrayRelease(mean);
    return st;
}

static NclStatus reduce(const call *k, const NclArray *a, NclArray **out, const NclParams *params)
{
    char who[64];
    call_name(who, sizeof who, k->sub, k->op);
    const NclArray *w = where_of(params);
    const NclArray *arr[3] = {a, w, out ? *out : NULL};
    NclMpiComm *c = first_dist(arr, 3)->c;
    NclStatus st = mpi_same(c, who, call_hash(k->sub, k->op, arr, 3, params));
    if (st != NCL_OK) return st;
    const mpi_dist *d = mpi_dist_of(a);
    const NclReduceOp op = (NclReduceOp)k->op;
    if (d == NULL)
        return mpi_error(NCL_ERR_UNSUPPORTED, "%s: only the reduced array may be distributed",
                         who);
    if (out == NULL) return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: out is NULL", who);
    if (op == NCL_ARGMIN || op == NCL_ARGMAX) return reduce_arg(k, a, params, out);
    if (op == NCL_CUMSUM || op == NCL_CUMPROD) return mpi_cum(k->self, who, op, a, out, params);
    if ((unsigned)op >= (unsigned)NCL_REDUCE_NOPS)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: op %d is not a Reduce op", who, (int)op);
    if (op != NCL_SUM && op != NCL_PROD && op != NCL_MIN && op != NCL_MAX && op != NCL_ANY &&
        op != NCL_ALL && op != NCL_COUNT_NONZERO && op != NCL_MEAN)
        return mpi_error(NCL_ERR_UNSUPPORTED, "%s: not available for a distributed array yet "
                         "(std, var and the nan-aware reductions are local only)", who);
    NclParams p = with_where(params, NULL);
    const int nd = NclArrayNDim(a);
    const int64_t *shape = NclArrayShape(a);
    /* the reduced axes */
    int red[NCL_MAXDIMS] = {0};
    if (p.axes == NULL)
        for (int i = 0; i < nd; i++) red[i] = 1;
    else {
        if (p.naxes < 0 || p.naxes > nd)
            return mpi_error(NCL_ERR_AXIS, "%s: naxes %d for %d dimensions", who, p.naxes, nd);
        for (int i = 0; i < p.naxes; i++) {
            const int ax = p.axes[i] < 0 ? p.axes[i] + nd : p.axes[i];
            if (ax < 0 || ax >= nd || red[ax])
                return mpi_error(NCL_ERR_AXIS, "%s: axis %d is out of range or repeated", who,
                                 p.axes[i]);
            red[ax] = 1;
        }
    }
    const int s = d->split, me = c->rank;
    const mpi_dist *od = arr[2] ? mpi_dist_of(arr[2]) : NULL;
    if (arr[2] && !od && (nd == 0 || !red[s] || w || op == NCL_MEAN)) {
        /* an ordinary output (every rank's gets the whole result): each
           rank reduces the whole operand */
        return mpi_reduce_whole(k->self, who, op, a, out, params);
    }
    if (nd == 0 || !red[s]) {
        /* the split axis stays: each rank reduces its rows */
        int ond = 0, osplit = 0;
        int64_t oshape[NCL_MAXDIMS];
        for (int i = 0; i < nd; i++) {
            if (i == s) osplit = ond;
            if (!red[i]) oshape[ond++] = shape[i];
            else if (p.keepdims) oshape[ond++] = 1;
        }
        NclArray *lw = NULL, *lo = NULL;
        st = mpi_localize(who, w, nd, shape, s, d->counts, d->offsets[me], d->counts[me], &lw);
        if (st == NCL_OK && od) {
            lo = od->local;
            NclArrayRetain(lo);
        }
        if (st == NCL_OK) {
            NclParams q = with_where(params, lw);
            st = NclReduceNext(k->self, op, d->local, &lo, &q);
        }
        NclArrayRelease(lw);
        if ((st = mpi_agree(c, st)) != NCL_OK) {
            NclArrayRelease(lo);
            return st;
        }
        if (od) {
            NclArrayRelease(lo);
            return NCL_OK;
        }
        if (nd == 0) {
            /* a 0-d result: rank 0 has it; it stays distributed as a 0-d array */
            NclArray *made = NULL;
            st = mpi_dist_wrap(who, c, NclArrayDType(lo), 0, NULL, 0, d->counts, lo, &made);
            if ((st = mpi_agree(c, st)) == NCL_OK) *out = made;
            return st;
        }
        NclArray *made = NULL;
        st = mpi_dist_wrap(who, c, NclArrayDType(lo), ond, oshape, osplit, d->counts, lo, &made);
        if ((st = mpi_agree(c, st)) == NCL_OK) *out = made;
        return st;
    }
    /* over the split axis: the whole result on every rank */
    if (od)
        return mpi_error(NCL_ERR_UNSUPPORTED, "%s: a reduction over the split axis gives an "
                         "ordinary array on every rank; the output may not be distributed", who);
    if (op == NCL_MEAN && !arr[2]) return reduce_mean(a, w, red, &p, out);
    const NclDType rdt = p.dtype != NCL_DTYPE_DEFAULT ? p.dtype : NclArrayDType(a);
    const int minmax = op == NCL_MIN || op == NCL_MAX;
    if ((op == NCL_SUM || op == NCL_PROD) && mpi_is_float(rdt) && p.initial == NULL && !arr[2]) {
        int64_t n = 1;
        for (int i = 0; i < nd; i++) n *= shape[i];
        if (n > 0) return reduce_tree(k, a, w, red, &p, rdt, out);
    }
    if (((op == NCL_SUM || op == NCL_PROD) && mpi_is_float(rdt)) || (minmax && w && !p.initial)) {
        /* the tree's order with initial=, a provided output or nothing to
           reduce; min and max under a mask without initial= (a rank whose
           rows the mask empties has no partial): every rank reduces the
           whole operand */
        return mpi_reduce_whole(k->self, who, op, a, out, params);
    }
    /* an order-free combination: each rank's partial (keepdims), gathered
       along the split axis, then reduced again; ranks with no rows give
       none (min/max of nothing is an error) */
    int64_t *pc = malloc((size_t)c->size * sizeof *pc);
    if (pc == NULL) return mpi_agree(c, mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who));
    for (int r = 0; r < c->size; r++) pc[r] = d->counts[r] > 0;
    NclArray *part = NULL, *parts = NULL, *all = NULL, *lw = NULL;
    NclParams q = p;
    q.keepdims = 1;
    if (!minmax) q.initial = NULL; /* added once, at the end; min and max may repeat it */
    st = mpi_localize(who, w, nd, shape, s, d->counts, d->offsets[me], d->counts[me], &lw);
    q.where = lw;
    if (st == NCL_OK && pc[me]) st = NclReduceNext(k->self, op, d->local, &part, &q);
    else {
        /* a placeholder of the partial's shape with no rows */
        NclArray *e = NULL;
        q.initial = NULL;
        if ((st = NclReduceNext(k->self, op == NCL_MIN || op == NCL_MAX ? NCL_SUM : op, d->local,
                                &e, &q)) == NCL_OK) {
            int64_t z[NCL_MAXDIMS];
            for (int i = 0; i < nd; i++) z[i] = i == s ? 0 : NclArrayShape(e)[i];
            NclDType pdt = NclArrayDType(e);
            if (op == NCL_MIN || op == NCL_MAX) pdt = rdt;
            st = NclEmpty(pdt, nd, z, &part);
        }
        NclArrayRelease(e);
    }
    int64_t pshape[NCL_MAXDIMS];
    int64_t nparts = 0;
    for (int r = 0; r < c->size; r++) nparts += pc[r];
    if (st == NCL_OK) {
        for (int i = 0; i < nd; i++) pshape[i] = i == s ? nparts : NclArrayShape(part)[i];
        if (pc[me] == 0) NclArrayRetain(part);
        st = mpi_dist_wrap(who, c, NclArrayDType(part), nd, pshape, s, pc, part, &parts);
        if (pc[me] == 0) NclArrayRelease(part);
    } else
        NclArrayRelease(part);
    if ((st = mpi_agree(c, st)) == NCL_OK && (st = mpi_gather(who, parts, NCL_MPI_ALL, &all)) == NCL_OK) {
        NclParams f = p;
        f.dtype = op == NCL_COUNT_NONZERO ? NCL_INT64 : NclArrayDType(all);
        const NclReduceOp fop = op == NCL_COUNT_NONZERO ? NCL_SUM : op;
        if (nparts == 0) {
            /* nothing anywhere: the reduction of the empty operand */
            NclArrayRelease(all);
            all = NULL;
            st = NclReduceNext(k->self, op, d->local, out, params);
        } else
            st = NclReduceNext(k->self, fop, all, out, &f);
        st = mpi_agree(c, st);
    }
    NclArrayRelease(parts);
    NclArrayRelease(all);
    NclArrayRelease(lw);
    free(pc);
    return st;
}

/* ---- the hook functions ----------------------------------------------------- */

/* Whether any of the call's arrays is distributed (by this library: an
   external array of another extension passes on): one load while no
   distributed array lives in the process, a flag test per array
   otherwise. */
#define ANY_DIST(...)                                                       \
    (atomic_load_explicit(&mpi_live, memory_order_relaxed) != 0 &&          \
    ({                                                                      \
        const NclArray *const _a[] = {__VA_ARGS__};                         \
        int _d = 0;                                                         \
        for (size_t _i = 0; _i < sizeof _a / sizeof *_a; _i++)              \
            if (mpi_dist_of(_a[_i])) _d = 1;                                 \
        _d;                                                                 \
    }))

/* Runs expr, the distributed call, after sending it to the other ranks in
   driver mode (driver.c); marks a distributed result handed out. */
#define DRIVEN(sub_, op_, a_, b_, c_, gen_, expr)                                        \
    do {                                                                                 \
        const NclArray *da_[5] = {a_, b_, c_, out ? *out : NULL, where_of(p)};           \
        const mpi_cmd cmd_ = {.kind = MPI_CMD_CALL, .sub = sub_, .op = (int)(op_),        \
                              .arr = {da_[0], da_[1], da_[2], da_[3], da_[4]},            \
                              .params = p, .gen = gen_};                                 \
        NclMpiComm *dc_ = first_dist(da_, 5)->c;                                         \
        int opened_ = 0;                                                                 \
        NclStatus st_ = mpi_driver_open(dc_, &cmd_, &opened_);                           \
        if (st_ == NCL_OK) st_ = (expr);                                                 \
        mpi_driver_close(dc_, opened_, st_ == NCL_OK && out ? *out : NULL);              \
        return st_;                                                                      \
    } while (0)

static NclStatus h_convert(NclHook *self, NclConvertOp op, const NclArray *a, NclArray **out,
                           const NclParams *p)
{
    if (!ANY_DIST(a, out ? *out : NULL, where_of(p)))
        return NclConvertNext(self, op, a, out, p);
    const call k = {self, NCL_SUBSYSTEM_CONVERT, (int)op, NULL};
    DRIVEN(NCL_SUBSYSTEM_CONVERT, op, a, NULL, NULL, NULL, elementwise(&k, 1, &a, out, p));
}
static NclStatus h_compare(NclHook *self, NclCompareOp op, const NclArray *a, const NclArray *b,
                           NclArray **out, const NclParams *p)
{
    if (!ANY_DIST(a, b, out ? *out : NULL, where_of(p)))
        return NclCompareNext(self, op, a, b, out, p);
    const call k = {self, NCL_SUBSYSTEM_COMPARE, (int)op, NULL};
    const NclArray *in[2] = {a, b};
    DRIVEN(NCL_SUBSYSTEM_COMPARE, op, a, b, NULL, NULL, elementwise(&k, 2, in, out, p));
}
static NclStatus h_isunary(NclHook *self, NclIsUnaryOp op, const NclArray *a, NclArray **out,
                           const NclParams *p)
{
    if (!ANY_DIST(a, out ? *out : NULL, where_of(p)))
        return NclIsUnaryNext(self, op, a, out, p);
    const call k = {self, NCL_SUBSYSTEM_ISUNARY, (int)op, NULL};
    DRIVEN(NCL_SUBSYSTEM_ISUNARY, op, a, NULL, NULL, NULL, elementwise(&k, 1, &a, out, p));
}
static NclStatus h_unary(NclHook *self, NclUnaryOp op, const NclArray *a, NclArray **out,
                         const NclParams *p)
{
    /* Ops of two outputs (frexp, modf) are not distributed: passed on, the
       local default refuses distributed operands with its message. */
    if (!ANY_DIST(a, out ? *out : NULL, where_of(p)) || NclOpOutputs(NCL_SUBSYSTEM_UNARY, op) > 1)
        return NclUnaryNext(self, op, a, out, p);
    const call k = {self, NCL_SUBSYSTEM_UNARY, (int)op, NULL};
    DRIVEN(NCL_SUBSYSTEM_UNARY, op, a, NULL, NULL, NULL, elementwise(&k, 1, &a, out, p));
}
static NclStatus h_binary(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                          NclArray **out, const NclParams *p)
{
    if (!ANY_DIST(a, b, out ? *out : NULL, where_of(p)) ||
        NclOpOutputs(NCL_SUBSYSTEM_BINARY, op) > 1) /* divmod: as frexp above */
        return NclBinaryNext(self, op, a, b, out, p);
    const call k = {self, NCL_SUBSYSTEM_BINARY, (int)op, NULL};
    const NclArray *in[2] = {a, b};
    DRIVEN(NCL_SUBSYSTEM_BINARY, op, a, b, NULL, NULL, elementwise(&k, 2, in, out, p));
}
static NclStatus h_ternary(NclHook *self, NclTernaryOp op, const NclArray *a, const NclArray *b,
                           const NclArray *c, NclArray **out, const NclParams *p)
{
    if (!ANY_DIST(a, b, c, out ? *out : NULL, where_of(p)))
        return NclTernaryNext(self, op, a, b, c, out, p);
    const call k = {self, NCL_SUBSYSTEM_TERNARY, (int)op, NULL};
    const NclArray *in[3] = {a, b, c};
    DRIVEN(NCL_SUBSYSTEM_TERNARY, op, a, b, c, NULL, elementwise(&k, 3, in, out, p));
}
static NclStatus h_reduce(NclHook *self, NclReduceOp op, const NclArray *a, NclArray **out,
                          const NclParams *p)
{
    if (!ANY_DIST(a, out ? *out : NULL, where_of(p))) return NclReduceNext(self, op, a, out, p);
    const call k = {self, NCL_SUBSYSTEM_REDUCE, (int)op, NULL};
    DRIVEN(NCL_SUBSYSTEM_REDUCE, op, a, NULL, NULL, NULL, reduce(&k, a, out, p));
}

static NclStatus h_create(NclHook *self, NclCreateOp op, const NclCreateParams *p, NclArray **out)
{
    if (op != NCL_CREATE_COPY || p == NULL ||
        p->size < offsetof(NclCreateParams, src) + sizeof p->src || !ANY_DIST(p->src))
        return NclCreateNext(self, op, p, out);
    /* a copy is an astype with any cast (NclCreate's words), which is
       distributed; the copy keeps the source's layout, its partitions C
       ordered whatever the order asked for */
    if (p->order != NCL_ORDER_C && p->order != NCL_ORDER_F)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "NclCreate(copy): order %d is neither C nor F",
                         (int)p->order);
    NclParams q = NCL_PARAMS_INIT;
    q.dtype = p->dtype;
    q.casting = NCL_CASTING_UNSAFE;
    return NclConvert(NCL_CONVERT_ASTYPE, p->src, out, &q);
}
static NclStatus sort_call(NclHook *self, NclSortOp op, const NclArray *a, NclArray **out,
                           const NclParams *p)
{
    char who[64];
    call_name(who, sizeof who, NCL_SUBSYSTEM_SORT, (int)op);
    const NclArray *arr[2] = {a, out ? *out : NULL};
    NclMpiComm *c = first_dist(arr, 2)->c;
    NclStatus st = mpi_same(c, who, call_hash(NCL_SUBSYSTEM_SORT, (int)op, arr, 2, p));
    if (st != NCL_OK) return st;
    const NclParams q = with_where(p, NULL);
    if (!mpi_dist_of(a) || (out && *out))
        return mpi_error(NCL_ERR_UNSUPPORTED, "%s: only the sorted array may be distributed, and "
                         "the result is allocated (no provided output)", who);
    if (out == NULL) return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: out is NULL", who);
    if (op != NCL_SORT && op != NCL_ARGSORT)
        return mpi_error(NCL_ERR_UNSUPPORTED, "%s: partition of a distributed array is not "
                         "implemented yet (sort and argsort are)", who);
    if (where_of(p))
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: a where mask is refused", who);
    const int nd = NclArrayNDim(a);
    if (q.axes && q.naxes != 1)
        return mpi_error(NCL_ERR_AXIS, "%s: naxes %d (one axis is sorted)", who, q.naxes);
    int axis = q.axes ? q.axes[0] : -1;
    if (axis < 0) axis += nd;
    if (nd == 0 || axis < 0 || axis >= nd)
        return mpi_error(NCL_ERR_AXIS, "%s: axis out of range for %d dimensions", who, nd);
    if (q.kind != NCL_SORT_DEFAULT && q.kind != NCL_SORT_STABLE)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: kind %d is not a sort kind", who, q.kind);
    const NclDType rdt = op == NCL_SORT ? NclArrayDType(a) : NCL_INT64;
    if (q.dtype != NCL_DTYPE_DEFAULT && q.dtype != rdt)
        return mpi_error(NCL_ERR_DTYPE, "%s: dtype %s is not the result's (%s)", who,
                         NclDTypeName(q.dtype), NclDTypeName(rdt));
    return mpi_sort(self, who, op, q.kind, a, axis, out);
}
static NclStatus mask_call(NclHook *self, NclMaskOp op, const NclArray *a, const NclArray *b,
                           NclArray **out, const NclParams *p)
{
    char who[64];
    call_name(who, sizeof who, NCL_SUBSYSTEM_MASK, (int)op);
    const NclArray *arr[4] = {a, b, out ? *out : NULL, where_of(p)};
    NclMpiComm *c = first_dist(arr, 4)->c;
    NclStatus st = mpi_same(c, who, call_hash(NCL_SUBSYSTEM_MASK, (int)op, arr, 4, p));
    if (st != NCL_OK) return st;
    if (out == NULL) return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: out is NULL", who);
    if (where_of(p)) return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: a where mask is refused", who);
    if (op == NCL_MASK_PUT ? !mpi_dist_of(*out) : !mpi_dist_of(a) || *out)
        return mpi_error(NCL_ERR_UNSUPPORTED, "%s: %s", who,
                         op == NCL_MASK_PUT ? "the target must be the distributed array (gather "
                                              "the mask or values into an ordinary target)"
                                            : "the data must be the distributed array, and the "
                                              "result is allocated (no provided output)");
    return mpi_mask(self, who, op, a, b, out, p);
}
static NclStatus rng_call(NclHook *self, NclRngOp op, NclRngGen *gen, const NclArray *a,
                          const NclArray *b, NclArray **out, const NclParams *p)
{
    char who[64];
    call_name(who, sizeof who, NCL_SUBSYSTEM_RNG, (int)op);
    const NclArray *arr[4] = {a, b, out ? *out : NULL, where_of(p)};
    return mpi_rng(self, who, call_hash(NCL_SUBSYSTEM_RNG, (int)op, arr, 4, p), op, gen, a, b, out,
                   p);
}
static NclStatus h_sort(NclHook *self, NclSortOp op, const NclArray *a, NclArray **out,
                        const NclParams *p)
{
    /* The unique ops are not distributed: passed on, as frexp above. */
    if (!ANY_DIST(a, out ? *out : NULL) || op >= NCL_UNIQUE_VALUES)
        return NclSortNext(self, op, a, out, p);
    DRIVEN(NCL_SUBSYSTEM_SORT, op, a, NULL, NULL, NULL, sort_call(self, op, a, out, p));
}
static NclStatus h_mask(NclHook *self, NclMaskOp op, const NclArray *a, const NclArray *b,
                        NclArray **out, const NclParams *p)
{
    if (!ANY_DIST(a, b, out ? *out : NULL, where_of(p))) return NclMaskNext(self, op, a, b, out, p);
    DRIVEN(NCL_SUBSYSTEM_MASK, op, a, b, NULL, NULL, mask_call(self, op, a, b, out, p));
}
static NclStatus h_rng(NclHook *self, NclRngOp op, NclRngGen *gen, const NclArray *a,
                       const NclArray *b, NclArray **out, const NclParams *p)
{
    if (!ANY_DIST(a, b, out ? *out : NULL, where_of(p)))
        return NclRngNext(self, op, gen, a, b, out, p);
    DRIVEN(NCL_SUBSYSTEM_RNG, op, a, b, NULL, gen, rng_call(self, op, gen, a, b, out, p));
}

NclStatus mpi_hooks_link(void)
{
    memset(nodes, 0, sizeof nodes);
    nodes[NCL_SUBSYSTEM_CREATE].fn.create = h_create;
    nodes[NCL_SUBSYSTEM_CONVERT].fn.convert = h_convert;
    nodes[NCL_SUBSYSTEM_COMPARE].fn.compare = h_compare;
    nodes[NCL_SUBSYSTEM_ISUNARY].fn.isunary = h_isunary;
    nodes[NCL_SUBSYSTEM_UNARY].fn.unary = h_unary;
    nodes[NCL_SUBSYSTEM_BINARY].fn.binary = h_binary;
    nodes[NCL_SUBSYSTEM_TERNARY].fn.ternary = h_ternary;
    nodes[NCL_SUBSYSTEM_REDUCE].fn.reduce = h_reduce;
    nodes[NCL_SUBSYSTEM_SORT].fn.sort = h_sort;
    nodes[NCL_SUBSYSTEM_MASK].fn.mask = h_mask;
    nodes[NCL_SUBSYSTEM_RNG].fn.rng = h_rng;
    for (int s = 0; s < NCL_SUBSYSTEM_COUNT; s++) {
        if (nodes[s].fn.any == NULL) continue;
        nodes[s].name = "ncl_mpi";
        NclStatus st = NclApiHook((NclSubsystem)s, &nodes[s].list);
        if (st != NCL_OK) {
            for (int t = 0; t < s; t++)
                if (nodes[t].fn.any) (void)NclApiUnhook(&nodes[t].list);
            return st;
        }
    }
    return NCL_OK;
}

void mpi_hooks_unlink(void)
{
    for (int s = 0; s < NCL_SUBSYSTEM_COUNT; s++)
        if (nodes[s].fn.any) (void)NclApiUnhook(&nodes[s].list);
}
