/*
 * dist.c: the communicator handle, distributed arrays and their layouts,
 * and moving rows between layouts (scatter, gather, redistribute), with
 * every transfer cut into messages below 2^31 bytes, so that both MPIs
 * (Open MPI 4.1 has no large-count calls) carry arrays of any size.
 */
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ncl_mpi_internal.h"

static pthread_mutex_t attach_lock = PTHREAD_MUTEX_INITIALIZER;
static int attached;   /* handles alive: the hooks are linked while > 0 */

/* ---- errors ----------------------------------------------------------------- */

NclStatus mpi_error(NclStatus s, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return NclSetError(s, msg);
}

NclStatus mpi_failed(const char *who, const char *call, int err)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(err, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "code %d", err);
    return mpi_error(NCL_ERR_COMM, "%s: %s failed: %s", who, call, text);
}

NclStatus mpi_agree(NclMpiComm *c, NclStatus st)
{
    int mine = st == NCL_OK ? c->size : c->rank, first = c->size;
    int err = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, c->comm);
    if (err != MPI_SUCCESS) return mpi_failed("libncl_mpi", "MPI_Allreduce", err);
    if (first == c->size) return NCL_OK;
    struct {
        int status;
        char msg[500];
    } w;
    w.status = (int)st;
    if (c->rank == first) snprintf(w.msg, sizeof w.msg, "%s", NclLastError());
    err = MPI_Bcast(&w, (int)sizeof w, MPI_BYTE, first, c->comm);
    if (err != MPI_SUCCESS) return mpi_failed("libncl_mpi", "MPI_Bcast", err);
    if (c->rank == first) return st;
    return mpi_error((NclStatus)w.status, "%s (on rank %d)", w.msg, first);
}

NclStatus mpi_same(NclMpiComm *c, const char *who, uint64_t h)
{
    uint64_t v[2] = {h, ~h}, r[2];
    int err = MPI_Allreduce(v, r, 2, MPI_UINT64_T, MPI_MIN, c->comm);
    if (err != MPI_SUCCESS) return mpi_failed(who, "MPI_Allreduce", err);
    if (r[0] == h && ~r[1] == h) return NCL_OK;
    return mpi_error(NCL_ERR_INVALID_ARGUMENT,
                     "%s: the ranks made different calls (op, dtypes, shapes or layouts differ "
                     "between ranks); distributed calls are made by every rank alike", who);
}

uint64_t mpi_hash_array(uint64_t h, const NclArray *a)
{
    const mpi_dist *d = mpi_dist_of(a);
    const int kind = a == NULL ? 0 : d ? 2 : 1;
    h = mpi_hash(h, &kind, sizeof kind);
    if (a == NULL) return h;
    const NclDType dt = NclArrayDType(a);
    const int nd = NclArrayNDim(a);
    h = mpi_hash(h, &dt, sizeof dt);
    h = mpi_hash(h, &nd, sizeof nd);
    h = mpi_hash(h, NclArrayShape(a), (size_t)nd * sizeof(int64_t));
    if (d) {
        h = mpi_hash(h, &d->split, sizeof d->split);
        h = mpi_hash(h, d->counts, (size_t)d->c->size * sizeof(int64_t));
    }
    return h;
}

/* ---- the communicator handle ------------------------------------------------ */

static void comm_unref(NclMpiComm *c)
{
    if (atomic_fetch_sub(&c->refs, 1) != 1) return;
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Comm_free(&c->comm);
    free(c);
}

NclStatus NclMpiAttach(MPI_Comm comm, NclMpiComm **out)
{
    static const char who[] = "NclMpiAttach";
    if (out == NULL) return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: out is NULL", who);
    int init = 0;
    MPI_Initialized(&init);
    if (!init) return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: MPI is not initialised", who);
    if (comm == MPI_COMM_NULL)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: comm is MPI_COMM_NULL", who);
    NclMpiComm *c = calloc(1, sizeof *c);
    if (c == NULL) return mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    int err = MPI_Comm_dup(comm, &c->comm);
    if (err != MPI_SUCCESS) {
        free(c);
        return mpi_failed(who, "MPI_Comm_dup", err);
    }
    MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    MPI_Comm_size(c->comm, &c->size);
    MPI_Comm_rank(c->comm, &c->rank);
    atomic_init(&c->refs, 1);
    NclStatus st = NCL_OK;
    pthread_mutex_lock(&attach_lock);
    if (attached++ == 0 && (st = mpi_hooks_link()) != NCL_OK) attached--;
    pthread_mutex_unlock(&attach_lock);
    if ((st = mpi_agree(c, st)) != NCL_OK) {
        MPI_Comm_free(&c->comm);
        free(c);
        return st;
    }
    *out = c;
    return NCL_OK;
}

void NclMpiDetach(NclMpiComm *c)
{
    if (c == NULL) return;
    pthread_mutex_lock(&attach_lock);
    if (--attached == 0) mpi_hooks_unlink();
    pthread_mutex_unlock(&attach_lock);
    comm_unref(c);
}

NclStatus NclMpiCommInfo(const NclMpiComm *c, int *size, int *rank)
{
    if (c == NULL) return mpi_error(NCL_ERR_INVALID_ARGUMENT, "NclMpiCommInfo: c is NULL");
    if (size) *size = c->size;
    if (rank) *rank = c->rank;
    return NCL_OK;
}

/* ---- distributed arrays ------------------------------------------------------ */

static const char EXT_NAME[] = "mpi";
atomic_long mpi_live;

static void dist_release(NclArrayExt *self)
{
    mpi_dist *d = (mpi_dist *)(void *)self;
    mpi_driver_released(d->c, d);
    atomic_fetch_sub_explicit(&mpi_live, 1, memory_order_relaxed);
    NclArrayRelease(d->local);
    comm_unref(d->c);
    free(d->counts);
    free(d);
}

mpi_dist *mpi_dist_of(const NclArray *a)
{
    if (a == NULL || !(NclArrayFlags(a) & NCL_ARRAY_EXTERNAL)) return NULL;
    NclArrayExt *e = NclArrayGetExt(a);
    return e && e->release == dist_release ? (mpi_dist *)(void *)e : NULL;
}

int NclMpiIsDistributed(const NclArray *a) { return mpi_dist_of(a) != NULL; }

void mpi_balanced(int64_t n, int size, int64_t *counts)
{
    /* In whole chunks of rows where every rank gets one: then a reduction
       over the split axis finds each rank's rows starting at a chunk of
       every sequence (ncl/reduce.h) and moves nothing. */
    const int64_t b = NCL_REDUCE_CHUNK;
    if (n >= b * size) {
        const int64_t blocks = n / b;
        for (int r = 0; r < size; r++) counts[r] = (blocks / size + (r < blocks % size)) * b;
        counts[size - 1] += n - blocks * b;
        return;
    }
    for (int r = 0; r < size; r++) counts[r] = n / size + (r < n % size);
}

NclStatus mpi_dist_wrap(const char *who, NclMpiComm *c, NclDType dtype, int ndim,
                        const int64_t *shape, int split, const int64_t *counts, NclArray *local,
                        NclArray **out)
{
    mpi_dist *d = calloc(1, sizeof *d);
    int64_t *cs = malloc(2 * (size_t)c->size * sizeof *cs);
    if (d == NULL || cs == NULL) {
        free(d);
        free(cs);
        NclArrayRelease(local);
        return mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    }
    d->base.name = EXT_NAME;
    d->base.release = dist_release;
    d->c = c;
    d->split = split;
    d->counts = cs;
    d->offsets = cs + c->size;
    int64_t off = 0;
    for (int r = 0; r < c->size; r++) {
        d->counts[r] = counts[r];
        d->offsets[r] = off;
        off += counts[r];
    }
    d->local = local;
    d->id = c->next_id++;
    NclStatus st = NclArrayFromExt(dtype, ndim, shape, &d->base, out);
    if (st != NCL_OK) {
        NclArrayRelease(local);
        free(cs);
        free(d);
        return st;
    }
    atomic_fetch_add(&c->refs, 1);
    atomic_fetch_add_explicit(&mpi_live, 1, memory_order_relaxed);
    return NCL_OK;
}

NclStatus NclMpiLayout(const NclArray *a, NclMpiLayoutInfo *info)
{
    const mpi_dist *d = mpi_dist_of(a);
    if (d == NULL || info == NULL)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "NclMpiLayout: %s",
                         info == NULL ? "info is NULL" : "a is not a distributed array");
    info->nranks = d->c->size;
    info->rank = d->c->rank;
    info->split = d->split;
    info->counts = d->counts;
    info->offsets = d->offsets;
    return NCL_OK;
}

NclStatus NclMpiLocal(const NclArray *a, NclArray **local, int64_t *offset)
{
    const mpi_dist *d = mpi_dist_of(a);
    if (d == NULL || local == NULL)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "NclMpiLocal: %s",
                         local == NULL ? "local is NULL" : "a is not a distributed array");
    NclArrayRetain(d->local);
    *local = d->local;
    if (offset) *offset = d->offsets[d->c->rank];
    return NCL_OK;
}

/* Validates a layout request: split normalised into *axis, counts (NULL:
   balanced) into cs (c->size entries). */
static NclStatus layout_check(const char *who, const NclMpiComm *c, int ndim,
                              const int64_t *shape, int split, const int64_t *counts,
                              int *axis, int64_t *cs)
{
    if (ndim < 0 || ndim > NCL_MAXDIMS)
        return mpi_error(NCL_ERR_SHAPE, "%s: ndim %d is outside 0..%d", who, ndim, NCL_MAXDIMS);
    if (ndim == 0) {
        if (split != 0 && split != -1)
            return mpi_error(NCL_ERR_AXIS, "%s: split %d for a 0-d array", who, split);
        *axis = 0;
        for (int r = 0; r < c->size; r++) cs[r] = r == 0;
        return NCL_OK;
    }
    if (shape == NULL) return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: shape is NULL", who);
    if (split < -ndim || split >= ndim)
        return mpi_error(NCL_ERR_AXIS, "%s: split %d is out of range for %d dimensions", who,
                         split, ndim);
    *axis = split < 0 ? split + ndim : split;
    for (int i = 0; i < ndim; i++)
        if (shape[i] < 0)
            return mpi_error(NCL_ERR_SHAPE, "%s: extent %lld at axis %d is negative", who,
                             (long long)shape[i], i);
    const int64_t n = shape[*axis];
    if (counts == NULL) {
        mpi_balanced(n, c->size, cs);
        return NCL_OK;
    }
    int64_t sum = 0;
    for (int r = 0; r < c->size; r++) {
        if (counts[r] < 0 || counts[r] > n - sum)
            return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: counts[%d] = %lld is negative or "
                             "passes the extent %lld", who, r, (long long)counts[r],
                             (long long)n);
        cs[r] = counts[r];
        sum += counts[r];
    }
    if (sum != n)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: counts sum to %lld, not the extent %lld",
                         who, (long long)sum, (long long)n);
    return NCL_OK;
}

/* The local shape of rank r: shape with the split axis's extent its count. */
static void local_shape(int ndim, const int64_t *shape, int axis, int64_t count, int64_t *ls)
{
    for (int i = 0; i < ndim; i++) ls[i] = i == axis ? count : shape[i];
}

typedef enum fill { FILL_EMPTY, FILL_ZEROS, FILL_VALUE } fill;

static NclStatus make_(const char *who, NclMpiComm *c, NclDType dtype, int ndim,
                       const int64_t *shape, int split, const int64_t *counts, fill how,
                       const void *value, NclArray **out);

static NclStatus make(const char *who, NclMpiComm *c, NclDType dtype, int ndim,
                      const int64_t *shape, int split, const int64_t *counts, fill how,
                      const void *value, NclArray **out)
{
    if (c == NULL || out == NULL)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who, c ? "out" : "c");
    if (how == FILL_VALUE && value == NULL)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: value is NULL", who);
    if (mpi_driver_active(c) && (ndim < 0 || ndim > NCL_MAXDIMS || (ndim > 0 && shape == NULL) ||
                                 strcmp(NclDTypeName(dtype), "invalid") == 0))
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: ndim, shape or dtype is invalid", who);
    mpi_cmd cmd = {.kind = how == FILL_EMPTY ? MPI_CMD_EMPTY
                           : how == FILL_ZEROS ? MPI_CMD_ZEROS
                                               : MPI_CMD_FULL,
                   .dtype = dtype, .ndim = ndim, .shape = shape, .split = split,
                   .counts = counts, .value = value};
    int opened = 0;
    NclStatus st = mpi_driver_open(c, &cmd, &opened);
    if (st == NCL_OK) st = make_(who, c, dtype, ndim, shape, split, counts, how, value, out);
    mpi_driver_close(c, opened, st == NCL_OK ? *out : NULL);
    return st;
}

static NclStatus make_(const char *who, NclMpiComm *c, NclDType dtype, int ndim,
                       const int64_t *shape, int split, const int64_t *counts, fill how,
                       const void *value, NclArray **out)
{
    int64_t *cs = malloc((size_t)c->size * sizeof *cs);
    if (cs == NULL) return mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    int axis = 0;
    NclStatus st = layout_check(who, c, ndim, shape, split, counts, &axis, cs);
    if (st == NCL_OK && how == FILL_VALUE && value == NULL)
        st = mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: value is NULL", who);
    uint64_t h = mpi_hash(MPI_HASH_INIT, who, strlen(who));
    if (st == NCL_OK) {
        h = mpi_hash(h, &dtype, sizeof dtype);
        h = mpi_hash(h, &ndim, sizeof ndim);
        h = mpi_hash(h, shape, (size_t)ndim * sizeof *shape);
        h = mpi_hash(h, &axis, sizeof axis);
        h = mpi_hash(h, cs, (size_t)c->size * sizeof *cs);
    }
    /* Argument errors are the same everywhere when the calls are; the
       check below refuses calls that differ. */
    NclStatus agreed = mpi_agree(c, st);
    if (agreed == NCL_OK) agreed = mpi_same(c, who, h);
    if (agreed != NCL_OK) {
        free(cs);
        return agreed;
    }
    int64_t ls[NCL_MAXDIMS];
    local_shape(ndim, shape, axis, ndim ? cs[c->rank] : 0, ls);
    NclArray *local = NULL;
    const int lnd = ndim;
    if (ndim == 0) {
        /* a 0-d array lives on rank 0; the others hold an empty row */
        st = how == FILL_VALUE && c->rank == 0 ? NclFull(dtype, 0, NULL, value, &local)
             : c->rank == 0 ? NclZeros(dtype, 0, NULL, &local)
                            : NclEmpty(dtype, 0, NULL, &local);
    } else if (how == FILL_EMPTY) st = NclEmpty(dtype, lnd, ls, &local);
    else if (how == FILL_ZEROS) st = NclZeros(dtype, lnd, ls, &local);
    else st = NclFull(dtype, lnd, ls, value, &local);
    if (st == NCL_OK) st = mpi_dist_wrap(who, c, dtype, ndim, shape, axis, cs, local, out);
    free(cs);
    NclArray *made = st == NCL_OK ? *out : NULL;
    if ((st = mpi_agree(c, st)) != NCL_OK) {
        if (made) NclArrayRelease(made);
        return st;
    }
    return NCL_OK;
}

NclStatus NclMpiEmpty(NclMpiComm *c, NclDType dtype, int ndim, const int64_t *shape, int split,
                      const int64_t *counts, NclArray **out)
{
    return make("NclMpiEmpty", c, dtype, ndim, shape, split, counts, FILL_EMPTY, NULL, out);
}

NclStatus NclMpiZeros(NclMpiComm *c, NclDType dtype, int ndim, const int64_t *shape, int split,
                      const int64_t *counts, NclArray **out)
{
    return make("NclMpiZeros", c, dtype, ndim, shape, split, counts, FILL_ZEROS, NULL, out);
}

NclStatus NclMpiFull(NclMpiComm *c, NclDType dtype, int ndim, const int64_t *shape, int split,
                     const int64_t *counts, const void *value, NclArray **out)
{
    return make("NclMpiFull", c, dtype, ndim, shape, split, counts, FILL_VALUE, value, out);
}

NclStatus mpi_rows(const NclArray *a, int k, int64_t lo, int64_t hi, NclArray **out)
{
    const int nd = NclArrayNDim(a);
    const int64_t *sh = NclArrayShape(a);
    int64_t start[NCL_MAXDIMS], stop[NCL_MAXDIMS];
    for (int i = 0; i < nd; i++) {
        start[i] = i == k ? lo : 0;
        stop[i] = i == k ? hi : sh[i];
    }
    return NclArraySlice(a, start, stop, NULL, out);
}

NclStatus mpi_rows_copy(const NclArray *a, int k, int64_t lo, int64_t hi, NclArray **out)
{
    NclArray *v = NULL;
    NclStatus st = mpi_rows(a, k, lo, hi, &v);
    if (st != NCL_OK) return st;
    st = NclCopy(v, out);
    NclArrayRelease(v);
    return st;
}

static NclStatus arange_body(NclMpiComm *c, NclDType dtype, double start, double stop,
                             double step, NclArray **out);

NclStatus NclMpiArange(NclMpiComm *c, NclDType dtype, double start, double stop, double step,
                       NclArray **out)
{
    if (c == NULL || out == NULL)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "NclMpiArange: %s is NULL", c ? "out" : "c");
    mpi_cmd cmd = {.kind = MPI_CMD_ARANGE, .dtype = dtype, .range = {start, stop, step}};
    int opened = 0;
    NclStatus st = mpi_driver_open(c, &cmd, &opened);
    if (st == NCL_OK) st = arange_body(c, dtype, start, stop, step, out);
    mpi_driver_close(c, opened, st == NCL_OK ? *out : NULL);
    return st;
}

static NclStatus arange_body(NclMpiComm *c, NclDType dtype, double start, double stop,
                             double step, NclArray **out)
{
    static const char who[] = "NclMpiArange";
    if (c == NULL || out == NULL)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who, c ? "out" : "c");
    /* Each rank computes the whole sequence (NclArange's own arithmetic,
       so the bits are its) and keeps its rows. */
    NclArray *all = NULL, *local = NULL;
    NclStatus st = NclArange(dtype, start, stop, step, &all);
    uint64_t h = mpi_hash(MPI_HASH_INIT, who, sizeof who);
    double args[3] = {start, stop, step};
    h = mpi_hash(h, &dtype, sizeof dtype);
    h = mpi_hash(h, args, sizeof args);
    NclStatus agreed = mpi_agree(c, st);
    if (agreed == NCL_OK) agreed = mpi_same(c, who, h);
    if (agreed != NCL_OK) {
        NclArrayRelease(all);
        return agreed;
    }
    const int64_t n = NclArraySize(all);
    int64_t *cs = malloc((size_t)c->size * sizeof *cs);
    st = cs ? NCL_OK : mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    if (st == NCL_OK) {
        mpi_balanced(n, c->size, cs);
        int64_t lo = 0;
        for (int r = 0; r < c->rank; r++) lo += cs[r];
        st = mpi_rows_copy(all, 0, lo, lo + cs[c->rank], &local);
    }
    NclArrayRelease(all);
    if (st == NCL_OK) st = mpi_dist_wrap(who, c, dtype, 1, &n, 0, cs, local, out);
    free(cs);
    NclArray *made = st == NCL_OK ? *out : NULL;
    if ((st = mpi_agree(c, st)) != NCL_OK && made) NclArrayRelease(made);
    return st;
}

/* ---- moving rows ------------------------------------------------------------- */

NclStatus mpi_exchange(const char *who, MPI_Comm comm, const mpi_xfer *recv, int nrecv,
                       const mpi_xfer *send, int nsend)
{
    int64_t npieces = 0;
    for (int i = 0; i < nrecv; i++) npieces += (recv[i].bytes + MPI_PIECE - 1) / MPI_PIECE;
    for (int i = 0; i < nsend; i++) npieces += (send[i].bytes + MPI_PIECE - 1) / MPI_PIECE;
    if (npieces > INT_MAX / 2) return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: too many pieces", who);
    MPI_Request *rq = malloc((size_t)(npieces ? npieces : 1) * sizeof *rq);
    MPI_Status *rs = malloc((size_t)(npieces ? npieces : 1) * sizeof *rs);
    if (rq == NULL || rs == NULL) {
        free(rq);
        free(rs);
        return mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    }
    int n = 0, err = MPI_SUCCESS;
    const char *call = "MPI_Irecv";
    for (int i = 0; i < nrecv && err == MPI_SUCCESS; i++)
        for (int64_t off = 0, t = 0; off < recv[i].bytes && err == MPI_SUCCESS; off += MPI_PIECE, t++) {
            const int64_t m = recv[i].bytes - off < MPI_PIECE ? recv[i].bytes - off : MPI_PIECE;
            err = MPI_Irecv(recv[i].buf + off, (int)m, MPI_BYTE, recv[i].peer, (int)t, comm,
                            &rq[n++]);
        }
    if (err == MPI_SUCCESS) call = "MPI_Isend";
    for (int i = 0; i < nsend && err == MPI_SUCCESS; i++)
        for (int64_t off = 0, t = 0; off < send[i].bytes && err == MPI_SUCCESS; off += MPI_PIECE, t++) {
            const int64_t m = send[i].bytes - off < MPI_PIECE ? send[i].bytes - off : MPI_PIECE;
            err = MPI_Isend(send[i].buf + off, (int)m, MPI_BYTE, send[i].peer, (int)t, comm,
                            &rq[n++]);
        }
    if (err != MPI_SUCCESS) n--;
    int werr = n > 0 ? MPI_Waitall(n, rq, rs) : MPI_SUCCESS;
    free(rq);
    free(rs);
    if (err != MPI_SUCCESS) return mpi_failed(who, call, err);
    if (werr != MPI_SUCCESS) return mpi_failed(who, "MPI_Waitall", werr);
    return NCL_OK;
}

/* The global rows [lo, hi) of axis k each rank holds, and what it wants:
   src rank q holds [slo[q], shi[q]) along its split axis ks; dst rank r
   wants [dlo[r], dhi[r]) along axis kd (the whole of the other axes). */
typedef struct plan {
    int nd;
    const int64_t *shape;
    int ks, kd;
    const int64_t *slo, *shi, *dlo, *dhi;
} plan;

/* The block that rank q sends to rank r: its extent along each axis
   (start in global coordinates). Returns its element count. */
static int64_t block(const plan *p, int q, int r, int64_t *start, int64_t *ext)
{
    int64_t n = 1;
    for (int i = 0; i < p->nd; i++) {
        int64_t lo = 0, hi = p->shape[i];
        if (i == p->ks) {
            lo = p->slo[q];
            hi = p->shi[q];
        }
        if (i == p->kd) {
            lo = lo > p->dlo[r] ? lo : p->dlo[r];
            hi = hi < p->dhi[r] ? hi : p->dhi[r];
        }
        if (hi < lo) hi = lo;
        start[i] = lo;
        ext[i] = hi - lo;
        n *= ext[i];
    }
    return n;
}

/* The block [start, start + ext) of a C-ordered ordinary array whose
   rows along axis k begin at row `first`, as a view. */
static NclStatus block_view(const NclArray *a, const plan *p, int k, int64_t first,
                            const int64_t *start, const int64_t *ext, NclArray **out)
{
    int64_t a0[NCL_MAXDIMS], a1[NCL_MAXDIMS];
    for (int i = 0; i < p->nd; i++) {
        a0[i] = start[i] - (i == k ? first : 0);
        a1[i] = a0[i] + ext[i];
    }
    return NclArraySlice(a, a0, a1, NULL, out);
}

/* Moves the blocks of plan p: src is this rank's source partition (rows
   slo[me].. of axis ks), dst its destination (rows dlo[me].. of axis kd),
   both C-ordered ordinary arrays. A block that is one run of memory (as
   every block of a split along the first axis is) is sent from, or
   received into, its place; others go through a C-ordered copy. So a move
   between layouts split along axis 0 allocates nothing but dst. */
static NclStatus move_blocks(const char *who, NclMpiComm *c, const plan *p, const NclArray *src,
                             NclArray *dst, NclStatus st)
{
    /* st is this rank's preparation so far: the ranks agree once before
       the exchange (all or none take part) and once after it. */
    const int P = c->size, me = c->rank;
    mpi_xfer *sends = NULL, *recvs = NULL;
    NclArray **held = NULL;  /* per peer: the block sent (a view or a copy), then the
                                place received into (a view) */
    NclArray **staged = NULL; /* per peer: a C-ordered buffer a block is received into */
    int ns = 0, nr = 0;
    if (st == NCL_OK) {
        sends = calloc((size_t)P, sizeof *sends);
        recvs = calloc((size_t)P, sizeof *recvs);
        held = calloc(2 * (size_t)P, sizeof *held);
        staged = calloc((size_t)P, sizeof *staged);
        if (!sends || !recvs || !held || !staged)
            st = mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    }
    const size_t isz = st == NCL_OK && dst ? NclDTypeSize(NclArrayDType(dst))
                       : src ? NclDTypeSize(NclArrayDType(src)) : 1;
    int64_t start[NCL_MAXDIMS], ext[NCL_MAXDIMS];
    /* the block for each destination, as one run of memory */
    for (int r = 0; r < P && st == NCL_OK && src; r++) {
        if (block(p, me, r, start, ext) == 0) continue;
        NclArray *v = NULL;
        if ((st = block_view(src, p, p->ks, p->slo[me], start, ext, &v)) != NCL_OK) break;
        if (NclArrayFlags(v) & NCL_ARRAY_C_CONTIGUOUS) held[r] = v;
        else {
            st = NclCopy(v, &held[r]);
            NclArrayRelease(v);
        }
        if (st == NCL_OK)
            sends[ns++] = (mpi_xfer){r, NclArrayData(held[r]),
                                     NclArraySize(held[r]) * (int64_t)isz};
    }
    for (int q = 0; q < P && st == NCL_OK && dst; q++) {
        if (block(p, q, me, start, ext) == 0) continue;
        NclArray **place = &held[P + q];
        if ((st = block_view(dst, p, p->kd, p->dlo[me], start, ext, place)) != NCL_OK) break;
        NclArray *into = *place;
        if (!(NclArrayFlags(into) & NCL_ARRAY_C_CONTIGUOUS)) {
            if ((st = NclEmpty(NclArrayDType(dst), p->nd, ext, &staged[q])) != NCL_OK) break;
            into = staged[q];
        }
        recvs[nr++] = (mpi_xfer){q, NclArrayData(into), NclArraySize(into) * (int64_t)isz};
    }
    if ((st = mpi_agree(c, st)) == NCL_OK) {
        st = mpi_exchange(who, c->comm, recvs, nr, sends, ns);
        /* blocks received aside go into place */
        for (int q = 0; q < P && st == NCL_OK && dst; q++)
            if (staged[q]) st = NclConvert(NCL_CONVERT_COPYTO, staged[q], &held[P + q], NULL);
        st = mpi_agree(c, st);
    }
    for (int i = 0; i < P; i++) {
        if (held) {
            NclArrayRelease(held[i]);
            NclArrayRelease(held[P + i]);
        }
        if (staged) NclArrayRelease(staged[i]);
    }
    free(sends);
    free(recvs);
    free(held);
    free(staged);
    return st;
}

NclStatus mpi_move(const char *who, const NclArray *a, int split, const int64_t *counts,
                   NclArray **out)
{
    const mpi_dist *d = mpi_dist_of(a);
    NclMpiComm *c = d->c;
    const int P = c->size, nd = NclArrayNDim(a);
    const int64_t *shape = NclArrayShape(a);
    int64_t *buf = malloc(5 * (size_t)P * sizeof *buf);
    if (buf == NULL) return mpi_agree(c, mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who));
    int64_t *cs = buf, *slo = buf + P, *shi = buf + 2 * P, *dlo = buf + 3 * P, *dhi = buf + 4 * P;
    int axis = 0;
    NclStatus st = layout_check(who, c, nd, shape, split, counts, &axis, cs);
    if ((st = mpi_agree(c, st)) != NCL_OK) {
        free(buf);
        return st;
    }
    if (nd == 0) {
        /* nothing moves: rank 0 keeps the element */
        NclArray *copy = NULL;
        st = NclCopy(d->local, &copy);
        if (st == NCL_OK) st = mpi_dist_wrap(who, c, NclArrayDType(a), 0, NULL, 0, cs, copy, out);
        free(buf);
        return mpi_agree(c, st);
    }
    int64_t o = 0;
    for (int r = 0; r < P; r++) {
        slo[r] = d->offsets[r];
        shi[r] = d->offsets[r] + d->counts[r];
        dlo[r] = o;
        dhi[r] = o + cs[r];
        o += cs[r];
    }
    int64_t ls[NCL_MAXDIMS];
    local_shape(nd, shape, axis, cs[c->rank], ls);
    NclArray *local = NULL;
    st = NclEmpty(NclArrayDType(a), nd, ls, &local);
    plan p = {nd, shape, d->split, axis, slo, shi, dlo, dhi};
    st = move_blocks(who, c, &p, d->local, local, st);
    if (st == NCL_OK) st = mpi_dist_wrap(who, c, NclArrayDType(a), nd, shape, axis, cs, local, out);
    else NclArrayRelease(local);
    free(buf);
    return st;
}

static NclStatus redistribute_body(const NclArray *a, int split, const int64_t *counts,
                                   NclArray **out);

NclStatus NclMpiRedistribute(const NclArray *a, int split, const int64_t *counts, NclArray **out)
{
    static const char who[] = "NclMpiRedistribute";
    const mpi_dist *d = mpi_dist_of(a);
    if (d == NULL || out == NULL)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s", who,
                         out == NULL ? "out is NULL" : "a is not a distributed array");
    mpi_cmd cmd = {.kind = MPI_CMD_REDISTRIBUTE, .arr = {a}, .split = split, .counts = counts};
    int opened = 0;
    NclStatus st = mpi_driver_open(d->c, &cmd, &opened);
    if (st == NCL_OK) st = redistribute_body(a, split, counts, out);
    mpi_driver_close(d->c, opened, st == NCL_OK ? *out : NULL);
    return st;
}

static NclStatus redistribute_body(const NclArray *a, int split, const int64_t *counts,
                                   NclArray **out)
{
    static const char who[] = "NclMpiRedistribute";
    const mpi_dist *d = mpi_dist_of(a);
    uint64_t h = mpi_hash_array(mpi_hash(MPI_HASH_INIT, who, sizeof who), a);
    h = mpi_hash(h, &split, sizeof split);
    if (counts) h = mpi_hash(h, counts, (size_t)d->c->size * sizeof *counts);
    NclStatus st = mpi_same(d->c, who, h);
    if (st != NCL_OK) return st;
    NclArray *made = NULL;
    if ((st = mpi_move(who, a, split, counts, &made)) == NCL_OK) *out = made;
    return st;
}

NclStatus mpi_gather(const char *who, const NclArray *a, int root, NclArray **out)
{
    const mpi_dist *d = mpi_dist_of(a);
    NclMpiComm *c = d->c;
    const int P = c->size, nd = NclArrayNDim(a);
    const int64_t *shape = NclArrayShape(a);
    const int want = root == NCL_MPI_ALL || root == c->rank;
    NclArray *whole = NULL;
    NclStatus st = want ? NclEmpty(NclArrayDType(a), nd, shape, &whole) : NCL_OK;
    if (nd == 0) {
        /* rank 0 holds the element: it is sent as one row */
        if ((st = mpi_agree(c, st)) != NCL_OK) return st;
        const size_t isz = NclDTypeSize(NclArrayDType(a));
        char v[16];
        if (c->rank == 0) memcpy(v, NclArrayData(d->local), isz);
        int err = root == NCL_MPI_ALL ? MPI_Bcast(v, (int)isz, MPI_BYTE, 0, c->comm)
                  : c->rank == 0 && root != 0 ? MPI_Send(v, (int)isz, MPI_BYTE, root, 0, c->comm)
                  : c->rank == root && root != 0
                      ? MPI_Recv(v, (int)isz, MPI_BYTE, 0, 0, c->comm, MPI_STATUS_IGNORE)
                      : MPI_SUCCESS;
        st = err == MPI_SUCCESS ? NCL_OK : mpi_failed(who, "MPI_Bcast", err);
        if (st == NCL_OK && whole) memcpy(NclArrayData(whole), v, isz);
        if ((st = mpi_agree(c, st)) != NCL_OK) {
            NclArrayRelease(whole);
            return st;
        }
        *out = whole;
        return NCL_OK;
    }
    const int64_t isz = (int64_t)NclDTypeSize(NclArrayDType(a));
    int64_t total = isz;
    for (int i = 0; i < nd; i++) total *= shape[i];
    if (root == NCL_MPI_ALL && d->split == 0 && total < MPI_PIECE) {
        /* small, and every rank's rows a run of the whole: one allgather,
           log P steps instead of a message from every rank to every rank */
        int *rc = malloc(2 * (size_t)P * sizeof *rc), *rd = rc ? rc + P : NULL;
        if (st == NCL_OK && rc == NULL) st = mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
        if ((st = mpi_agree(c, st)) == NCL_OK) {
            const int64_t row = total / (shape[0] ? shape[0] : 1);
            for (int r = 0; r < P; r++) {
                rc[r] = (int)(d->counts[r] * row);
                rd[r] = (int)(d->offsets[r] * row);
            }
            const int err = MPI_Allgatherv(NclArrayData(d->local), rc[c->rank], MPI_BYTE,
                                           NclArrayData(whole), rc, rd, MPI_BYTE, c->comm);
            st = mpi_agree(c, err == MPI_SUCCESS ? NCL_OK : mpi_failed(who, "MPI_Allgatherv", err));
        }
        free(rc);
        if (st != NCL_OK) {
            NclArrayRelease(whole);
            return st;
        }
        *out = whole;
        return NCL_OK;
    }
    int64_t *buf = malloc(4 * (size_t)P * sizeof *buf);
    if (buf == NULL) {
        NclArrayRelease(whole);
        return mpi_agree(c, mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who));
    }
    int64_t *slo = buf, *shi = buf + P, *dlo = buf + 2 * P, *dhi = buf + 3 * P;
    for (int r = 0; r < P; r++) {
        slo[r] = d->offsets[r];
        shi[r] = d->offsets[r] + d->counts[r];
        dlo[r] = 0;
        dhi[r] = root == NCL_MPI_ALL || root == r ? shape[d->split] : 0;
    }
    plan p = {nd, shape, d->split, d->split, slo, shi, dlo, dhi};
    st = move_blocks(who, c, &p, d->local, whole, st);
    free(buf);
    if (st != NCL_OK) {
        NclArrayRelease(whole);
        return st;
    }
    *out = whole;
    return NCL_OK;
}

NclStatus NclMpiGather(const NclArray *a, int root, NclArray **out)
{
    static const char who[] = "NclMpiGather";
    const mpi_dist *d = mpi_dist_of(a);
    if (d == NULL || out == NULL)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s", who,
                         out == NULL ? "out is NULL" : "a is not a distributed array");
    if (root != NCL_MPI_ALL && (root < 0 || root >= d->c->size))
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: root %d is not a rank of %d", who, root,
                         d->c->size);
    mpi_cmd cmd = {.kind = MPI_CMD_GATHER, .arr = {a}, .root = root};
    int opened = 0;
    NclStatus st = mpi_driver_open(d->c, &cmd, &opened);
    uint64_t h = mpi_hash_array(mpi_hash(MPI_HASH_INIT, who, sizeof who), a);
    h = mpi_hash(h, &root, sizeof root);
    if (st == NCL_OK) st = mpi_same(d->c, who, h);
    NclArray *made = NULL;
    if (st == NCL_OK && (st = mpi_gather(who, a, root, &made)) == NCL_OK) *out = made;
    mpi_driver_close(d->c, opened, NULL);
    return st;
}

NclStatus NclMpiScatter(NclMpiComm *c, int root, const NclArray *a, int split,
                        const int64_t *counts, NclArray **out)
{
    static const char who[] = "NclMpiScatter";
    if (c == NULL || out == NULL)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who, c ? "out" : "c");
    if (root < 0 || root >= c->size || (mpi_driver_active(c) && root != 0))
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: root %d is not a rank of %d%s", who, root,
                         c->size, mpi_driver_active(c) ? " (in driver mode, 0)" : "");
    mpi_cmd cmd = {.kind = MPI_CMD_SCATTER, .split = split, .counts = counts};
    int opened = 0;
    NclStatus st = mpi_driver_open(c, &cmd, &opened);
    if (st == NCL_OK) st = mpi_scatter(c, root, a, split, counts, out);
    mpi_driver_close(c, opened, st == NCL_OK ? *out : NULL);
    return st;
}

NclStatus mpi_scatter(NclMpiComm *c, int root, const NclArray *a, int split,
                      const int64_t *counts, NclArray **out)
{
    static const char who[] = "NclMpiScatter";
    /* root's dtype and shape, sent to every rank */
    struct {
        int ok, dtype, ndim;
        int64_t shape[NCL_MAXDIMS];
    } hd;
    memset(&hd, 0, sizeof hd);
    if (c->rank == root) {
        hd.ok = a != NULL && NclArrayNDim(a) >= 0 && !(NclArrayFlags(a) & NCL_ARRAY_EXTERNAL) &&
                NclArrayShape(a) != NULL;
        if (a != NULL && hd.ok) {
            hd.dtype = (int)NclArrayDType(a);
            hd.ndim = NclArrayNDim(a);
            memcpy(hd.shape, NclArrayShape(a), (size_t)hd.ndim * sizeof(int64_t));
        }
    }
    int err = MPI_Bcast(&hd, (int)sizeof hd, MPI_BYTE, root, c->comm);
    if (err != MPI_SUCCESS) return mpi_failed(who, "MPI_Bcast", err);
    if (!hd.ok)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: the root's a is NULL or not an ordinary "
                         "array", who);
    NclArray *made = NULL;
    NclStatus st = make(who, c, (NclDType)hd.dtype, hd.ndim, hd.shape, split, counts, FILL_EMPTY,
                        NULL, &made);
    if (st != NCL_OK) return st;
    const mpi_dist *d = mpi_dist_of(made);
    const int P = c->size;
    if (hd.ndim == 0) {
        const size_t isz = NclDTypeSize((NclDType)hd.dtype);
        int e2 = MPI_SUCCESS;
        if (root == 0 && c->rank == 0) memcpy(NclArrayData(d->local), NclArrayData(a), isz);
        else if (c->rank == root) e2 = MPI_Send(NclArrayData(a), (int)isz, MPI_BYTE, 0, 0, c->comm);
        else if (c->rank == 0)
            e2 = MPI_Recv(NclArrayData(d->local), (int)isz, MPI_BYTE, root, 0, c->comm,
                          MPI_STATUS_IGNORE);
        st = e2 == MPI_SUCCESS ? NCL_OK : mpi_failed(who, "MPI_Send", e2);
    } else {
        int64_t *buf = malloc(4 * (size_t)P * sizeof *buf);
        if (buf == NULL) st = mpi_agree(c, mpi_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who));
        else {
            int64_t *slo = buf, *shi = buf + P, *dlo = buf + 2 * P, *dhi = buf + 3 * P;
            for (int r = 0; r < P; r++) {
                slo[r] = 0;
                shi[r] = r == root ? hd.shape[d->split] : 0;
                dlo[r] = d->offsets[r];
                dhi[r] = d->offsets[r] + d->counts[r];
            }
            plan p = {hd.ndim, hd.shape, d->split, d->split, slo, shi, dlo, dhi};
            st = move_blocks(who, c, &p, c->rank == root ? a : NULL, d->local, NCL_OK);
        }
        free(buf);
    }
    if ((st = mpi_agree(c, st)) != NCL_OK) {
        NclArrayRelease(made);
        return st;
    }
    *out = made;
    return NCL_OK;
}
