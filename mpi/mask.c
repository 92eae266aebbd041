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
 *             from its rows (the indices replicated). Along the first
 *             axis (split there) and of the flattened array: the result
 *             is split as the indices are (a distributed array's layout,
 *             or an ordinary one's first axis, balanced); each rank asks
 *             the owners of the rows its indices name for them (one
 *             all-to-all of indices, one of rows back). Along a split
 *             axis past the first, the data moves to the first axis.
 *   PUT       target[mask] = values into a distributed target: each rank
 *             puts its run of the values (see put()).
 * An array split along another axis moves to the first one first.
 */
#include <stdio.h>
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

/* ---- TAKE along the split axis, or of the flattened array ------------------- */

static int is_integer(NclDType t)
{
    return t == NCL_INT8 || t == NCL_INT16 || t == NCL_INT32 || t == NCL_INT64 ||
           t == NCL_UINT8 || t == NCL_UINT16 || t == NCL_UINT32 || t == NCL_UINT64;
}

/* This rank's indices ix (an ordinary array) as int64 in [0, len), C
   order, in *w; an index out of range is refused with NclMask's words
   (pos0: the position of this rank's first index among all of them,
   total: how many there are; where: "axis 0" or "the flattened array"). */
static NclStatus read_indices(const NclArray *ix, int64_t len, int64_t pos0, int64_t total,
                              const char *where, NclArray **w)
{
    const NclDType dt = NclArrayDType(ix);
    if (!is_integer(dt))
        return mpi_error(NCL_ERR_DTYPE, "NclMask(take): indices of dtype %s (they must be "
                         "integers)", NclDTypeName(dt));
    if (total > 0 && len == 0)
        return mpi_error(NCL_ERR_INDEX, "NclMask(take): cannot take %lld element(s) from %s "
                         "of size 0", (long long)total, where);
    NclArray *raw = NULL;
    NclParams q = NCL_PARAMS_INIT;
    q.dtype = NCL_INT64;
    q.casting = NCL_CASTING_UNSAFE;
    NclStatus st = dt == NCL_UINT64 ? NclCopy(ix, &raw) : NclConvert(NCL_CONVERT_ASTYPE, ix, &raw, &q);
    if (st != NCL_OK) return st;
    const int64_t n = NclArraySize(raw);
    int64_t *v = NclArrayData(raw);
    for (int64_t i = 0; i < n; i++) {
        const int big = dt == NCL_UINT64 && (uint64_t)v[i] > (uint64_t)INT64_MAX;
        int64_t k = v[i];
        if (!big && k < 0) k += len;
        if (big || k < 0 || k >= len) {
            char text[32];
            if (dt == NCL_UINT64) snprintf(text, sizeof text, "%llu", (unsigned long long)v[i]);
            else snprintf(text, sizeof text, "%lld", (long long)v[i]);
            NclArrayRelease(raw);
            return mpi_error(NCL_ERR_INDEX, "NclMask(take): index %s at position %lld of the %s "
                             "indices is out of bounds for %s with size %lld", text,
                             (long long)(pos0 + i), NclDTypeName(dt), where, (long long)len);
        }
        v[i] = k;
    }
    if (dt == NCL_UINT64) {
        /* the same bits, now all below 2^63, as int64 */
        NclArray *s64 = NULL;
        st = NclConvert(NCL_CONVERT_ASTYPE, raw, &s64, &q);
        NclArrayRelease(raw);
        raw = s64;
    }
    if (st == NCL_OK) *w = raw;
    else NclArrayRelease(raw);
    return st;
}

/* Fetches rows of a source split along its first axis into place: src is
   this rank's rows (C order, `rowb` bytes each), counts every rank's row
   count; want[0, nw) the global rows this rank wants, into out (nw rows,
   in order). Collective. */
static NclStatus fetch_rows(const char *who, NclMpiComm *c, const char *src, int64_t rowb,
                            const int64_t *counts, const int64_t *want, int64_t nw, char *out,
                            NclStatus st)
{
    const int P = c->size, me = c->rank;
    int64_t *b = calloc(6 * (size_t)P + 1, sizeof *b);
    int64_t *ask = malloc((size_t)(nw ? nw : 1) * sizeof *ask), *slot = NULL, *theirs = NULL;
    char *give = NULL, *got = NULL;
    mpi_xfer *xs = calloc(2 * (size_t)P, sizeof *xs), *xr = xs ? xs + P : NULL;
    slot = malloc((size_t)(nw ? nw : 1) * sizeof *slot);
    if (st == NCL_OK && (!b || !ask || !slot || !xs))
        st = mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    int64_t *first = b, *scount = b + P + 1, *rcount = b + 2 * P + 1, *sat = b + 3 * P + 1,
            *rat = b + 4 * P + 1, *fill = b + 5 * P + 1;
    int64_t nin = 0;
    if (st == NCL_OK) {
        /* the owners: rank r holds rows [first[r], first[r + 1]) */
        for (int r = 0; r < P; r++) first[r + 1] = first[r] + counts[r];
        for (int64_t i = 0; i < nw; i++) {
            int lo = 0, hi = P - 1;
            while (lo < hi) {
                const int mid = (lo + hi + 1) / 2;
                if (first[mid] <= want[i]) lo = mid;
                else hi = mid - 1;
            }
            slot[i] = lo; /* the owner, for now */
            scount[lo]++;
        }
        for (int r = 1; r < P; r++) sat[r] = sat[r - 1] + scount[r - 1];
        memcpy(fill, sat, (size_t)P * sizeof *fill);
        for (int64_t i = 0; i < nw; i++) {
            const int64_t k = fill[slot[i]]++;
            ask[k] = want[i] - first[slot[i]];
            slot[i] = k; /* now where its row comes back */
        }
    }
    if ((st = mpi_agree(c, st)) == NCL_OK) {
        const int err = MPI_Alltoall(scount, 1, MPI_INT64_T, rcount, 1, MPI_INT64_T, c->comm);
        if (err != MPI_SUCCESS) st = mpi_failed(who, "MPI_Alltoall", err);
    }
    if (st == NCL_OK) {
        for (int r = 0; r < P; r++) {
            rat[r] = nin;
            nin += rcount[r];
        }
        theirs = malloc((size_t)(nin ? nin : 1) * sizeof *theirs);
        give = malloc((size_t)(nin ? nin : 1) * (size_t)rowb);
        got = malloc((size_t)(nw ? nw : 1) * (size_t)rowb);
        if (!theirs || !give || !got) st = mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    }
    if ((st = mpi_agree(c, st)) == NCL_OK) {
        /* the requests */
        int ns = 0, nr = 0;
        for (int r = 0; r < P; r++) {
            if (scount[r]) xs[ns++] = (mpi_xfer){r, (char *)(ask + sat[r]), scount[r] * 8};
            if (rcount[r]) xr[nr++] = (mpi_xfer){r, (char *)(theirs + rat[r]), rcount[r] * 8};
        }
        st = mpi_exchange(who, c->comm, xr, nr, xs, ns);
    }
    if ((st = mpi_agree(c, st)) == NCL_OK) {
        /* the rows asked for, then back */
        for (int64_t k = 0; k < nin; k++)
            memcpy(give + k * rowb, src + theirs[k] * rowb, (size_t)rowb);
        int ns = 0, nr = 0;
        for (int r = 0; r < P; r++) {
            if (rcount[r]) xs[ns++] = (mpi_xfer){r, give + rat[r] * rowb, rcount[r] * rowb};
            if (scount[r]) xr[nr++] = (mpi_xfer){r, got + sat[r] * rowb, scount[r] * rowb};
        }
        st = mpi_exchange(who, c->comm, xr, nr, xs, ns);
        for (int64_t i = 0; st == NCL_OK && i < nw; i++)
            memcpy(out + i * rowb, got + slot[i] * rowb, (size_t)rowb);
        st = mpi_agree(c, st);
    }
    (void)me;
    free(b);
    free(ask);
    free(slot);
    free(theirs);
    free(give);
    free(got);
    free(xs);
    return st;
}

/* TAKE along the first axis (flat: of the flattened array) of a, which
   is split along it. */
static NclStatus take_rows(const char *who, const NclArray *a, const NclArray *ix, int flat,
                           const NclParams *p, NclArray **out)
{
    const mpi_dist *d = mpi_dist_of(a);
    NclMpiComm *c = d->c;
    const int P = c->size, me = c->rank, nd = NclArrayNDim(a), in = NclArrayNDim(ix);
    const int64_t *shape = NclArrayShape(a);
    const NclDType dt = NclArrayDType(a);
    int64_t inner = 1;
    for (int i = 1; i < nd; i++) inner *= shape[i];
    /* the source's rows: a's rows, or (flat) its elements */
    const int64_t len = flat ? shape[0] * inner : shape[0];
    const int64_t rowb = (int64_t)NclDTypeSize(dt) * (flat ? 1 : inner);
    int64_t *sc = malloc(2 * (size_t)P * sizeof *sc), *ic = sc ? sc + P : NULL;
    if (sc == NULL) return mpi_agree(c, mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who));
    for (int r = 0; r < P; r++) sc[r] = d->counts[r] * (flat ? inner : 1);
    /* this rank's indices: the rows of the indices' first axis it holds */
    NclArray *mine = NULL, *moved = NULL, *w = NULL, *lres = NULL, *res = NULL;
    const mpi_dist *id = mpi_dist_of(ix);
    NclStatus st = NCL_OK;
    int64_t total = 1, per = 1;
    for (int i = 0; i < in; i++) total *= NclArrayShape(ix)[i];
    for (int i = 1; i < in; i++) per *= NclArrayShape(ix)[i];
    if (id && in > 0) {
        if (id->split == 0) {
            NclArrayRetain(id->local);
            mine = id->local;
        } else if ((st = mpi_move(who, ix, 0, NULL, &moved)) == NCL_OK) {
            mine = mpi_dist_of(moved)->local;
            NclArrayRetain(mine);
        }
        if (st == NCL_OK) memcpy(ic, mpi_dist_of(moved ? moved : ix)->counts, (size_t)P * 8);
    } else if (id) {
        /* a 0-d distributed index: rank 0 holds it */
        st = mpi_gather(who, ix, NCL_MPI_ALL, &moved);
        for (int r = 0; r < P; r++) ic[r] = r == 0;
        if (st == NCL_OK) {
            if (me == 0) {
                mine = moved;
                NclArrayRetain(mine);
            } else
                st = NclEmpty(NclArrayDType(ix), 1, (int64_t[]){0}, &mine);
        }
    } else if (in > 0) {
        mpi_balanced(NclArrayShape(ix)[0], P, ic);
        int64_t off = 0;
        for (int r = 0; r < me; r++) off += ic[r];
        st = mpi_rows(ix, 0, off, off + ic[me], &mine);
    } else {
        for (int r = 0; r < P; r++) ic[r] = r == 0;
        if (me == 0) {
            NclArrayRetain((NclArray *)ix);
            mine = (NclArray *)ix;
        } else
            st = NclEmpty(NclArrayDType(ix), 1, (int64_t[]){0}, &mine);
    }
    int64_t ioff = 0;
    for (int r = 0; r < me; r++) ioff += ic[r];
    if (st == NCL_OK)
        st = read_indices(mine, len, ioff * per, total, flat ? "the flattened array" : "axis 0", &w);
    /* the result's local part: the indices' local shape, then a row */
    int64_t rshape[NCL_MAXDIMS], lshape[NCL_MAXDIMS];
    const int rn = flat ? in : in + nd - 1;
    if (st == NCL_OK && rn > NCL_MAXDIMS)
        st = mpi_error(NCL_ERR_SHAPE, "NclMask(take): a result of %d dimensions", rn);
    if (st == NCL_OK) {
        for (int i = 0; i < in; i++) {
            rshape[i] = NclArrayShape(ix)[i];
            lshape[i] = i == 0 ? ic[me] : rshape[i];
        }
        for (int i = in; i < rn; i++) rshape[i] = lshape[i] = shape[i - in + 1];
        if (in == 0 && rn > 0) lshape[0] = me == 0 ? rshape[0] : 0;
        st = NclEmpty(dt, rn, lshape, &lres);
    }
    st = fetch_rows(who, c, NclArrayData(d->local), rowb, sc, w ? NclArrayData(w) : NULL,
                    w ? NclArraySize(w) : 0, lres ? NclArrayData(lres) : NULL, st);
    if (st == NCL_OK && p && p->dtype != NCL_DTYPE_DEFAULT && p->dtype != dt) {
        NclArray *cast = NULL;
        NclParams q = NCL_PARAMS_INIT;
        q.dtype = p->dtype;
        q.casting = p->casting;
        st = NclConvert(NCL_CONVERT_ASTYPE, lres, &cast, &q);
        NclArrayRelease(lres);
        lres = cast;
    }
    if ((st = mpi_agree(c, st)) == NCL_OK) {
        /* split along the result's first axis as the indices are; a 0-d
           index gives a's row (or element) on rank 0 */
        int64_t *rc = ic;
        if (in == 0 && rn > 0)
            for (int r = 0; r < P; r++) rc[r] = r == 0 ? rshape[0] : 0;
        st = mpi_dist_wrap(who, c, NclArrayDType(lres), rn, rshape, 0, rc, lres, &res);
        lres = NULL;
        if ((st = mpi_agree(c, st)) == NCL_OK) *out = res;
        else NclArrayRelease(res);
    }
    NclArrayRelease(lres);
    NclArrayRelease(w);
    NclArrayRelease(mine);
    NclArrayRelease(moved);
    free(sc);
    return st;
}

/* TAKE of a distributed array. */
static NclStatus take(NclHook *self, const char *who, const NclArray *a, const NclArray *b,
                      NclArray **out, const NclParams *p)
{
    const mpi_dist *d = mpi_dist_of(a);
    NclMpiComm *c = d->c;
    const int nd = NclArrayNDim(a);
    NclStatus st;
    const int flat = !(p && p->axes);
    if (!flat && p->naxes != 1)
        return mpi_error(NCL_ERR_AXIS, "NclMask(take): naxes %d (take along one axis, or NULL "
                         "for the flattened array)", p->naxes);
    int axis = flat ? 0 : p->axes[0];
    if (axis < 0) axis += nd;
    if (!flat && (axis < 0 || axis >= nd))
        return mpi_error(NCL_ERR_AXIS, "NclMask(take): axis %d is out of range for %d "
                         "dimensions", p->axes[0], nd);
    if (nd == 0) {
        /* a 0-d array: taken from, gathered */
        NclArray *whole = NULL, *lo = NULL, *made = NULL, *ib = NULL;
        if ((st = mpi_gather(who, a, NCL_MPI_ALL, &whole)) != NCL_OK) return st;
        if (mpi_dist_of(b)) st = mpi_gather(who, b, NCL_MPI_ALL, &ib);
        if (st == NCL_OK) st = NclMaskNext(self, NCL_MASK_TAKE, whole, ib ? ib : b, &lo, p);
        NclArrayRelease(whole);
        NclArrayRelease(ib);
        if ((st = mpi_agree(c, st)) != NCL_OK) return st;
        /* every rank has it: scattered from rank 0 along its first axis */
        st = mpi_scatter(c, 0, lo, 0, NULL, &made);
        NclArrayRelease(lo);
        if (st == NCL_OK) *out = made;
        return st;
    }
    if (flat || axis == d->split) {
        if (!flat && axis > 0) {
            /* the data split along its first axis, then taken from along
               an axis that is not split */
            NclArray *moved = NULL;
            if ((st = mpi_move(who, a, 0, NULL, &moved)) != NCL_OK) return st;
            st = take(self, who, moved, b, out, p);
            NclArrayRelease(moved);
            return st;
        }
        NclArray *af = NULL;
        if ((st = split_first(who, a, &af)) != NCL_OK) return st;
        st = take_rows(who, af, b, flat, p, out);
        NclArrayRelease(af);
        return st;
    }
    /* along an axis that is not split: each rank takes from its rows */
    NclArray *ib = NULL, *lo = NULL, *made = NULL;
    if (mpi_dist_of(b) && (st = mpi_gather(who, b, NCL_MPI_ALL, &ib)) != NCL_OK) return st;
    st = NclMaskNext(self, NCL_MASK_TAKE, d->local, ib ? ib : b, &lo, p);
    NclArrayRelease(ib);
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

/* ---- PUT into a distributed target ---------------------------------------------- */

/* "(37, 6)": NumPy's way of writing a shape. */
static const char *shape_text(char *buf, size_t cap, int nd, const int64_t *shape)
{
    size_t at = (size_t)snprintf(buf, cap, "(");
    for (int i = 0; i < nd && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%lld", i ? ", " : "", (long long)shape[i]);
    if (at < cap) snprintf(buf + at, cap - at, nd == 1 ? ",)" : ")");
    return buf;
}

/* The flattened elements [lo, lo + counts[rank]) of v (of at least one
   dimension when distributed) on this rank, where the ranks' ranges
   follow each other in rank order. Collective for a distributed v. */
static NclStatus value_run(const char *who, NclMpiComm *c, const NclArray *v, int64_t lo,
                           const int64_t *counts, NclArray **out)
{
    const int64_t n = NclArraySize(v);
    NclArray *flat = NULL;
    NclStatus st;
    if (!mpi_dist_of(v)) {
        NclArray *cp = NULL;
        if ((st = NclCopy(v, &cp)) != NCL_OK) return st;
        st = NclArrayReshape(cp, 1, &n, &flat);
        NclArrayRelease(cp);
        if (st == NCL_OK) st = mpi_rows(flat, 0, lo, lo + counts[c->rank], out);
        NclArrayRelease(flat);
        return st;
    }
    /* distributed: split along its first axis, each rank's rows are a run
       of the flattened array; as one 1-d array, moved to the counts */
    const int P = c->size;
    NclArray *v0 = NULL, *line = NULL, *moved = NULL;
    if ((st = split_first(who, v, &v0)) == NCL_OK) {
        const mpi_dist *d = mpi_dist_of(v0);
        int64_t inner = 1, *ec = malloc((size_t)P * sizeof *ec), m = NclArraySize(d->local);
        for (int i = 1; i < NclArrayNDim(v); i++) inner *= NclArrayShape(v)[i];
        NclArray *l1 = NULL;
        if (ec == NULL) st = mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
        else {
            for (int r = 0; r < P; r++) ec[r] = d->counts[r] * inner;
            st = NclArrayReshape(d->local, 1, &m, &l1);
        }
        if (st == NCL_OK) st = mpi_dist_wrap(who, c, NclArrayDType(v), 1, &n, 0, ec, l1, &line);
        if ((st = mpi_agree(c, st)) == NCL_OK) st = mpi_move(who, line, 0, counts, &moved);
        if (st == NCL_OK) {
            *out = mpi_dist_of(moved)->local;
            NclArrayRetain(*out);
        }
        free(ec);
    }
    NclArrayRelease(v0);
    NclArrayRelease(line);
    NclArrayRelease(moved);
    return st;
}

/* target[mask] = values, target distributed: with the target split along
   its first axis every rank's rows are a run of the C order, so each rank
   counts its true elements, learns how many come before it, and puts its
   run of the values (one value: that one everywhere). A target split
   otherwise is moved there and back. */
static NclStatus put(NclHook *self, const char *who, const NclArray *mask, const NclArray *vals,
                     NclArray *target, const NclParams *p)
{
    const mpi_dist *d = mpi_dist_of(target);
    NclMpiComm *c = d->c;
    const int P = c->size, me = c->rank, nd = NclArrayNDim(target);
    const int64_t *shape = NclArrayShape(target);
    char s0[160], s1[160];
    if (mask == NULL || vals == NULL)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: the mask and the values are required", who);
    if (NclArrayDType(mask) != NCL_BOOL)
        return mpi_error(NCL_ERR_DTYPE, "NclMask(put): the mask is %s; it must be bool",
                         NclDTypeName(NclArrayDType(mask)));
    int ok = NclArrayNDim(mask) <= nd;
    for (int i = 0; ok && i < NclArrayNDim(mask); i++) {
        const int64_t e = NclArrayShape(mask)[i], o = shape[i + nd - NclArrayNDim(mask)];
        ok = e == 1 || e == o;
    }
    if (!ok)
        return mpi_error(NCL_ERR_BROADCAST, "NclMask(put): mask with shape %s cannot be broadcast "
                         "to the target shape %s",
                         shape_text(s0, sizeof s0, NclArrayNDim(mask), NclArrayShape(mask)),
                         shape_text(s1, sizeof s1, nd, shape));
    if (nd == 0) {
        /* a 0-d target: rank 0 holds the element */
        NclArray *m = NULL, *v = NULL;
        NclStatus st = mpi_dist_of(mask) ? mpi_gather(who, mask, NCL_MPI_ALL, &m) : NCL_OK;
        if (st == NCL_OK && mpi_dist_of(vals)) st = mpi_gather(who, vals, NCL_MPI_ALL, &v);
        NclArray *t = d->local;
        if (st == NCL_OK) st = NclMaskNext(self, NCL_MASK_PUT, m ? m : mask, v ? v : vals, &t, p);
        NclArrayRelease(m);
        NclArrayRelease(v);
        return mpi_agree(c, st);
    }
    NclArray *t0 = NULL, *lm = NULL, *mb = NULL, *cnt = NULL, *lv = NULL, *back = NULL;
    int64_t *counts = malloc((size_t)P * sizeof *counts);
    NclStatus st = counts ? split_first(who, target, &t0)
                          : mpi_agree(c, mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who));
    if (st != NCL_OK) {
        free(counts);
        return st;
    }
    const mpi_dist *td = mpi_dist_of(t0);
    const int64_t off = td->offsets[me], rows = td->counts[me];
    /* this rank's mask over its rows, and its true elements */
    st = mpi_localize(who, mask, nd, shape, 0, td->counts, off, rows, &lm);
    if (st == NCL_OK) st = NclArrayBroadcastTo(lm, nd, NclArrayShape(td->local), &mb);
    if (st == NCL_OK) st = NclReduce(NCL_COUNT_NONZERO, mb, &cnt, NULL);
    int64_t mine = st == NCL_OK ? *(const int64_t *)NclArrayData(cnt) : 0, before = 0, total = 0;
    if ((st = mpi_agree(c, st)) == NCL_OK) {
        const int err = MPI_Allgather(&mine, 1, MPI_INT64_T, counts, 1, MPI_INT64_T, c->comm);
        if (err != MPI_SUCCESS) st = mpi_failed(who, "MPI_Allgather", err);
        for (int r = 0; st == NCL_OK && r < P; r++) {
            if (r < me) before += counts[r];
            total += counts[r];
        }
    }
    const int64_t nv = NclArraySize(vals);
    if (st == NCL_OK && nv != total && nv != 1)
        st = mpi_error(NCL_ERR_SHAPE, "NclMask(put): %lld values (shape %s) for %lld true mask "
                       "elements: give as many values, or one", (long long)nv,
                       shape_text(s0, sizeof s0, NclArrayNDim(vals), NclArrayShape(vals)),
                       (long long)total);
    /* this rank's run of the values, then the put */
    if (st == NCL_OK && nv == 1) {
        if (mpi_dist_of(vals)) st = mpi_gather(who, vals, NCL_MPI_ALL, &lv);
        else {
            NclArrayRetain((NclArray *)vals);
            lv = (NclArray *)vals;
        }
    } else if (st == NCL_OK)
        st = value_run(who, c, vals, before, counts, &lv);
    if (st == NCL_OK) {
        NclArray *t = td->local;
        st = NclMaskNext(self, NCL_MASK_PUT, mb, lv, &t, p);
    }
    if ((st = mpi_agree(c, st)) == NCL_OK && t0 != target) {
        /* back into the target's own layout */
        if ((st = mpi_move(who, t0, d->split, d->counts, &back)) == NCL_OK) {
            NclArray *t = d->local;
            st = NclConvert(NCL_CONVERT_COPYTO, mpi_dist_of(back)->local, &t, NULL);
            st = mpi_agree(c, st);
        }
    }
    NclArray *arrs[] = {t0, lm, mb, cnt, lv, back};
    for (size_t i = 0; i < sizeof arrs / sizeof *arrs; i++) NclArrayRelease(arrs[i]);
    free(counts);
    return st;
}

NclStatus mpi_mask(NclHook *self, const char *who, NclMaskOp op, const NclArray *a,
                   const NclArray *b, NclArray **out, const NclParams *p)
{
    if (op == NCL_MASK_PUT) return put(self, who, a, b, *out, p);
    if (op == NCL_MASK_TAKE) return take(self, who, a, b, out, p);
    if (op == NCL_MASK_SEARCHSORTED)
        return mpi_error(NCL_ERR_UNSUPPORTED, "%s: searching a distributed array is not "
                         "implemented (gather it first)", who);
    const mpi_dist *d = mpi_dist_of(a);
    NclMpiComm *c = d->c;
    NclStatus st;
    if (op != NCL_MASK_COMPRESS && op != NCL_MASK_NONZERO)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: op %d is not a Mask op", who, (int)op);
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
