/*
 * driver.c: driver mode, the proposal's "control process": rank 0 runs the
 * program; the other ranks wait in NclMpiDriverBegin and make every call
 * rank 0 makes on distributed arrays, with their own handles.
 *
 * A command is one broadcast from rank 0: its byte count, then its bytes
 * (in pieces of at most 1 GiB). It carries the ids of the distributed
 * arrays rank 0's program has released since the last command, then the
 * call: its kind, and for a subsystem call the subsystem, op, arrays and
 * params. An array is sent as nothing (NULL), as the id of a distributed
 * array (every rank numbers its distributed arrays in the same order), or,
 * for an ordinary (replicated) operand, as its dtype, shape and elements.
 * The workers keep the distributed arrays rank 0's program holds in a table
 * by id, until rank 0 releases them.
 */
#include <stdlib.h>
#include <string.h>
#include "ncl_mpi_internal.h"


/* ---- a growing byte buffer ------------------------------------------------- */

typedef struct buf {
    char *p;
    int64_t len, cap, at;
    int failed;
} buf;

static void put(buf *b, const void *x, int64_t n)
{
    if (b->failed) return;
    if (b->len + n > b->cap) {
        int64_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n) cap *= 2;
        char *q = realloc(b->p, (size_t)cap);
        if (q == NULL) {
            b->failed = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->len, x, (size_t)n);
    b->len += n;
}
static void put64(buf *b, int64_t v) { put(b, &v, 8); }

static int get(buf *b, void *x, int64_t n)
{
    if (b->at + n > b->len) return 0;
    if (n) memcpy(x, b->p + b->at, (size_t)n);
    b->at += n;
    return 1;
}
static int64_t get64(buf *b)
{
    int64_t v = 0;
    (void)get(b, &v, 8);
    return v;
}

/* ---- arrays and params ----------------------------------------------------- */

static void put_array(buf *b, const NclArray *a)
{
    const mpi_dist *d = mpi_dist_of(a);
    put64(b, a == NULL ? 0 : d ? 1 : 2);
    if (a == NULL) return;
    if (d) {
        put64(b, d->id);
        return;
    }
    NclArray *cp = NULL;
    if (NclCopy(a, &cp) != NCL_OK) {
        b->failed = 1;
        return;
    }
    const int nd = NclArrayNDim(cp);
    put64(b, NclArrayDType(cp));
    put64(b, nd);
    put(b, NclArrayShape(cp), (int64_t)nd * 8);
    put(b, NclArrayData(cp), NclArraySize(cp) * (int64_t)NclDTypeSize(NclArrayDType(cp)));
    NclArrayRelease(cp);
}

/* The worker's table of the distributed arrays rank 0's program holds. */
typedef struct table {
    NclArray **a;
    int64_t cap;
} table;

static void table_put(table *t, NclArray *a)
{
    const mpi_dist *d = mpi_dist_of(a);
    if (d == NULL) {
        NclArrayRelease(a);
        return;
    }
    if (d->id >= t->cap) {
        int64_t cap = t->cap ? t->cap : 64;
        while (cap <= d->id) cap *= 2;
        NclArray **q = realloc(t->a, (size_t)cap * sizeof *q);
        if (q == NULL) {
            NclArrayRelease(a);
            return;
        }
        memset(q + t->cap, 0, (size_t)(cap - t->cap) * sizeof *q);
        t->a = q;
        t->cap = cap;
    }
    NclArrayRelease(t->a[d->id]);
    t->a[d->id] = a;
}

/* A new reference, or NULL (for NULL, or on a malformed command). */
static NclArray *get_array(buf *b, table *t)
{
    const int64_t tag = get64(b);
    if (tag == 1) {
        const int64_t id = get64(b);
        NclArray *a = id >= 0 && id < t->cap ? t->a[id] : NULL;
        NclArrayRetain(a);
        return a;
    }
    if (tag != 2) return NULL;
    const NclDType dt = (NclDType)get64(b);
    const int nd = (int)get64(b);
    int64_t shape[NCL_MAXDIMS];
    if (nd < 0 || nd > NCL_MAXDIMS || !get(b, shape, (int64_t)nd * 8)) return NULL;
    NclArray *a = NULL;
    if (NclEmpty(dt, nd, shape, &a) != NCL_OK) return NULL;
    if (!get(b, NclArrayData(a), NclArraySize(a) * (int64_t)NclDTypeSize(dt))) {
        NclArrayRelease(a);
        return NULL;
    }
    return a;
}

/* The size of params->initial: one element of the reduction's result. */
static size_t initial_size(int op, const NclArray *a, const NclParams *p)
{
    if (p->dtype != NCL_DTYPE_DEFAULT) return NclDTypeSize(p->dtype);
    if (op == NCL_ANY || op == NCL_ALL) return 1;
    if (op == NCL_MIN || op == NCL_MAX || a == NULL) return a ? NclDTypeSize(NclArrayDType(a)) : 8;
    return 8; /* sums and products: int64, uint64 or a float of at most 8 bytes */
}

static void put_params(buf *b, int sub, int op, const NclArray *a, const NclParams *params)
{
    put64(b, params != NULL);
    if (params == NULL) return;
    NclParams q = NCL_PARAMS_INIT;
    memcpy(&q, params, params->size < sizeof q ? params->size : sizeof q);
    put64(b, q.dtype);
    put64(b, q.casting);
    put64(b, q.axes != NULL);
    put64(b, q.naxes);
    for (int i = 0; q.axes && i < q.naxes && i < NCL_MAXDIMS; i++) put64(b, q.axes[i]);
    put64(b, q.keepdims);
    const int init = sub == NCL_SUBSYSTEM_REDUCE && q.initial != NULL;
    put64(b, init);
    if (init) {
        unsigned char v[8] = {0};
        memcpy(v, q.initial, initial_size(op, a, &q));
        put(b, v, 8);
    }
    put64(b, q.kind);
    put64(b, q.kth);
    put64(b, q.ndim);
    put64(b, q.shape != NULL);
    for (int i = 0; q.shape && i < q.ndim && i < NCL_MAXDIMS; i++) put64(b, q.shape[i]);
    put64(b, q.endpoint);
}

/* A generator as its kind and state blob; NULL as kind -1. */
static void put_gen(buf *b, const NclRngGen *g)
{
    size_t n = 0;
    put64(b, g ? NclRngGenKind(g) : -1);
    if (g == NULL) return;
    if (NclRngGenGetState(g, NULL, 0, &n) != NCL_OK) {
        b->failed = 1;
        return;
    }
    unsigned char *blob = malloc(n);
    if (blob == NULL || NclRngGenGetState(g, blob, n, &n) != NCL_OK) b->failed = 1;
    put64(b, (int64_t)n);
    put(b, blob, (int64_t)n);
    free(blob);
}

/* A new generator in the state sent, or NULL (none sent, or malformed). */
static NclRngGen *get_gen(buf *b)
{
    const int64_t kind = get64(b);
    if (kind < 0 || kind >= NCL_BITGEN_COUNT) return NULL;
    const int64_t n = get64(b);
    if (n <= 0 || b->at + n > b->len) return NULL;
    const uint32_t zero = 0;
    NclSeedSequence *ss = NULL;
    NclRngGen *g = NULL;
    if (NclSeedSequenceCreate(&zero, 1, NULL, 0, &ss) == NCL_OK &&
        NclRngGenCreate((NclBitGen)kind, ss, &g) == NCL_OK &&
        NclRngGenSetState(g, b->p + b->at, (size_t)n) != NCL_OK) {
        NclRngGenFree(g);
        g = NULL;
    }
    NclSeedSequenceFree(ss);
    b->at += n;
    return g;
}

typedef struct got_params {
    NclParams p;
    int axes[NCL_MAXDIMS];
    int64_t shape[NCL_MAXDIMS];
    unsigned char initial[8];
} got_params;

static const NclParams *get_params(buf *b, got_params *g, const NclArray *where)
{
    if (!get64(b)) return NULL;
    NclParams q = NCL_PARAMS_INIT;
    g->p = q;
    g->p.dtype = (NclDType)get64(b);
    g->p.casting = (NclCasting)get64(b);
    const int has_axes = (int)get64(b);
    g->p.naxes = (int)get64(b);
    for (int i = 0; has_axes && i < g->p.naxes && i < NCL_MAXDIMS; i++) g->axes[i] = (int)get64(b);
    g->p.axes = has_axes ? g->axes : NULL;
    g->p.keepdims = (int)get64(b);
    if (get64(b)) {
        (void)get(b, g->initial, 8);
        g->p.initial = g->initial;
    }
    g->p.kind = (int)get64(b);
    g->p.kth = get64(b);
    g->p.ndim = (int)get64(b);
    const int has_shape = (int)get64(b);
    for (int i = 0; has_shape && i < g->p.ndim && i < NCL_MAXDIMS; i++) g->shape[i] = get64(b);
    g->p.shape = has_shape ? g->shape : NULL;
    g->p.endpoint = (int)get64(b);
    g->p.where = where;
    return &g->p;
}

/* ---- sending and receiving -------------------------------------------------- */

static NclStatus bcast(NclMpiComm *c, buf *b)
{
    int64_t len = b->len;
    int err = MPI_Bcast(&len, 1, MPI_INT64_T, 0, c->comm);
    if (err == MPI_SUCCESS && c->rank != 0) {
        b->len = b->at = 0;
        put(b, NULL, 0);
        char *q = realloc(b->p, (size_t)(len ? len : 1));
        if (q == NULL) return mpi_error(NCL_ERR_NO_MEMORY, "driver: out of memory");
        b->p = q;
        b->cap = b->len = len;
    }
    for (int64_t off = 0; err == MPI_SUCCESS && off < len; off += MPI_PIECE)
        err = MPI_Bcast(b->p + off, (int)(len - off < MPI_PIECE ? len - off : MPI_PIECE), MPI_BYTE, 0,
                        c->comm);
    return err == MPI_SUCCESS ? NCL_OK : mpi_failed("driver", "MPI_Bcast", err);
}

int mpi_driver_active(const NclMpiComm *c) { return c->driver && c->rank == 0; }

NclStatus mpi_driver_open(NclMpiComm *c, const mpi_cmd *cmd, int *opened)
{
    *opened = 0;
    if (!mpi_driver_active(c)) return NCL_OK;
    *opened = 1;
    if (c->depth++ > 0) return NCL_OK;
    buf b = {0};
    put64(&b, c->ndead);
    put(&b, c->dead, (int64_t)c->ndead * 8);
    c->ndead = 0;
    put64(&b, cmd->kind);
    switch (cmd->kind) {
    case MPI_CMD_CALL:
        put64(&b, cmd->sub);
        put64(&b, cmd->op);
        for (int i = 0; i < 5; i++) put_array(&b, cmd->arr[i]);
        put_params(&b, cmd->sub, cmd->op, cmd->arr[0], cmd->params);
        put_gen(&b, cmd->gen);
        break;
    case MPI_CMD_EMPTY:
    case MPI_CMD_ZEROS:
    case MPI_CMD_FULL:
        put64(&b, cmd->dtype);
        put64(&b, cmd->ndim);
        put(&b, cmd->shape, (int64_t)cmd->ndim * 8);
        put64(&b, cmd->split);
        put64(&b, cmd->counts != NULL);
        if (cmd->counts) put(&b, cmd->counts, (int64_t)c->size * 8);
        if (cmd->kind == MPI_CMD_FULL) {
            unsigned char v[8] = {0};
            memcpy(v, cmd->value, NclDTypeSize(cmd->dtype));
            put(&b, v, 8);
        }
        break;
    case MPI_CMD_ARANGE:
        put64(&b, cmd->dtype);
        put(&b, cmd->range, sizeof cmd->range);
        break;
    case MPI_CMD_SCATTER:
    case MPI_CMD_REDISTRIBUTE:
        if (cmd->kind == MPI_CMD_REDISTRIBUTE) put_array(&b, cmd->arr[0]);
        put64(&b, cmd->split);
        put64(&b, cmd->counts != NULL);
        if (cmd->counts) put(&b, cmd->counts, (int64_t)c->size * 8);
        break;
    case MPI_CMD_GATHER:
        put_array(&b, cmd->arr[0]);
        put64(&b, cmd->root);
        break;
    case MPI_CMD_SAVE:
    case MPI_CMD_LOAD:
        if (cmd->kind == MPI_CMD_SAVE) put_array(&b, cmd->arr[0]);
        put64(&b, (int64_t)strlen(cmd->path));
        put(&b, cmd->path, (int64_t)strlen(cmd->path));
        break;
    default: break;
    }
    NclStatus st = b.failed ? mpi_error(NCL_ERR_NO_MEMORY, "driver: cannot pack the call") : NCL_OK;
    if (st != NCL_OK) {
        /* the workers still get a command: an empty one they skip */
        b.len = 0;
        put64(&b, 0);
        put64(&b, 0);
    }
    NclStatus sent = bcast(c, &b);
    free(b.p);
    if (st == NCL_OK) st = sent;
    if (st != NCL_OK) {
        c->depth--;
        *opened = 0;
    }
    return st;
}

void mpi_driver_close(NclMpiComm *c, int opened, NclArray *result)
{
    if (!opened) return;
    if (--c->depth == 0 && result) {
        mpi_dist *d = mpi_dist_of(result);
        if (d) d->exported = 1;
    }
}

void mpi_driver_released(NclMpiComm *c, const mpi_dist *d)
{
    if (!mpi_driver_active(c) || !d->exported) return;
    if (c->ndead == c->capdead) {
        const int cap = c->capdead ? 2 * c->capdead : 16;
        int64_t *q = realloc(c->dead, (size_t)cap * sizeof *q);
        if (q == NULL) return; /* the workers keep it until the driver ends */
        c->dead = q;
        c->capdead = cap;
    }
    c->dead[c->ndead++] = d->id;
}

/* ---- the workers -------------------------------------------------------------- */

/* Makes the call rank 0 made; its status is rank 0's (the ranks agree). */
static void serve_call(NclMpiComm *c, buf *b, table *t)
{
    const int kind = (int)get64(b);
    NclArray *a0 = NULL, *res = NULL;
    int64_t shape[NCL_MAXDIMS], *counts = NULL;
    unsigned char v[8];
    switch (kind) {
    case MPI_CMD_CALL: {
        const NclSubsystem sub = (NclSubsystem)get64(b);
        const int op = (int)get64(b);
        NclArray *arr[5];
        for (int i = 0; i < 5; i++) arr[i] = get_array(b, t);
        got_params g;
        const NclParams *p = get_params(b, &g, arr[4]);
        NclRngGen *gen = get_gen(b);
        NclArray *out = arr[3];
        switch (sub) {
        case NCL_SUBSYSTEM_CONVERT: (void)NclConvert((NclConvertOp)op, arr[0], &out, p); break;
        case NCL_SUBSYSTEM_COMPARE:
            (void)NclCompare((NclCompareOp)op, arr[0], arr[1], &out, p);
            break;
        case NCL_SUBSYSTEM_ISUNARY: (void)NclIsUnary((NclIsUnaryOp)op, arr[0], &out, p); break;
        case NCL_SUBSYSTEM_UNARY: (void)NclUnary((NclUnaryOp)op, arr[0], &out, p); break;
        case NCL_SUBSYSTEM_BINARY:
            (void)NclBinary((NclBinaryOp)op, arr[0], arr[1], &out, p);
            break;
        case NCL_SUBSYSTEM_TERNARY:
            (void)NclTernary((NclTernaryOp)op, arr[0], arr[1], arr[2], &out, p);
            break;
        case NCL_SUBSYSTEM_REDUCE: (void)NclReduce((NclReduceOp)op, arr[0], &out, p); break;
        case NCL_SUBSYSTEM_SORT: (void)NclSort((NclSortOp)op, arr[0], &out, p); break;
        case NCL_SUBSYSTEM_MASK: (void)NclMask((NclMaskOp)op, arr[0], arr[1], &out, p); break;
        case NCL_SUBSYSTEM_RNG:
            (void)NclRng((NclRngOp)op, gen, arr[0], arr[1], &out, p);
            break;
        default: break;
        }
        NclRngGenFree(gen);
        if (out != arr[3]) res = out;
        for (int i = 0; i < 5; i++) NclArrayRelease(arr[i]);
        break;
    }
    case MPI_CMD_EMPTY:
    case MPI_CMD_ZEROS:
    case MPI_CMD_FULL: {
        const NclDType dt = (NclDType)get64(b);
        const int nd = (int)get64(b);
        if (nd < 0 || nd > NCL_MAXDIMS || !get(b, shape, (int64_t)nd * 8)) break;
        const int split = (int)get64(b);
        if (get64(b)) {
            counts = malloc((size_t)c->size * 8);
            if (counts) (void)get(b, counts, (int64_t)c->size * 8);
        }
        if (kind == MPI_CMD_FULL) (void)get(b, v, 8);
        (void)(kind == MPI_CMD_EMPTY ? NclMpiEmpty(c, dt, nd, shape, split, counts, &res)
               : kind == MPI_CMD_ZEROS ? NclMpiZeros(c, dt, nd, shape, split, counts, &res)
                                       : NclMpiFull(c, dt, nd, shape, split, counts, v, &res));
        break;
    }
    case MPI_CMD_ARANGE: {
        const NclDType dt = (NclDType)get64(b);
        double r[3];
        (void)get(b, r, sizeof r);
        (void)NclMpiArange(c, dt, r[0], r[1], r[2], &res);
        break;
    }
    case MPI_CMD_SCATTER:
    case MPI_CMD_REDISTRIBUTE: {
        if (kind == MPI_CMD_REDISTRIBUTE) a0 = get_array(b, t);
        const int split = (int)get64(b);
        if (get64(b)) {
            counts = malloc((size_t)c->size * 8);
            if (counts) (void)get(b, counts, (int64_t)c->size * 8);
        }
        (void)(kind == MPI_CMD_SCATTER ? NclMpiScatter(c, 0, NULL, split, counts, &res)
                                       : NclMpiRedistribute(a0, split, counts, &res));
        break;
    }
    case MPI_CMD_GATHER: {
        a0 = get_array(b, t);
        const int root = (int)get64(b);
        (void)NclMpiGather(a0, root, &res);
        break;
    }
    case MPI_CMD_SAVE:
    case MPI_CMD_LOAD: {
        if (kind == MPI_CMD_SAVE) a0 = get_array(b, t);
        const int64_t n = get64(b);
        char *path = n >= 0 && n < (1 << 20) ? malloc((size_t)n + 1) : NULL;
        if (path && get(b, path, n)) {
            path[n] = '\0';
            (void)(kind == MPI_CMD_SAVE ? NclMpiSave(a0, path) : NclMpiLoad(c, path, &res));
        }
        free(path);
        break;
    }
    default: break;
    }
    if (res) table_put(t, res);
    NclArrayRelease(a0);
    free(counts);
}

NclStatus NclMpiDriverBegin(NclMpiComm *c)
{
    if (c == NULL) return mpi_error(NCL_ERR_INVALID_ARGUMENT, "NclMpiDriverBegin: c is NULL");
    NclStatus st = mpi_same(c, "NclMpiDriverBegin", UINT64_C(0x64726976));
    if (st != NCL_OK) return st;
    if (c->rank == 0) {
        c->driver = 1;
        c->depth = 0;
        return NCL_OK;
    }
    table t = {0};
    buf b = {0};
    for (;;) {
        if ((st = bcast(c, &b)) != NCL_OK) break;
        b.at = 0;
        const int64_t ndead = get64(&b);
        for (int64_t i = 0; i < ndead; i++) {
            const int64_t id = get64(&b);
            if (id >= 0 && id < t.cap) {
                NclArrayRelease(t.a[id]);
                t.a[id] = NULL;
            }
        }
        int64_t kind = 0;
        if (!get(&b, &kind, 8)) continue;
        if (kind == MPI_CMD_END) break;
        b.at -= 8;
        serve_call(c, &b, &t);
    }
    for (int64_t i = 0; i < t.cap; i++) NclArrayRelease(t.a[i]);
    free(t.a);
    free(b.p);
    return st;
}

NclStatus NclMpiDriverEnd(NclMpiComm *c)
{
    if (c == NULL) return mpi_error(NCL_ERR_INVALID_ARGUMENT, "NclMpiDriverEnd: c is NULL");
    if (c->rank != 0 || !c->driver)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "NclMpiDriverEnd: only rank 0 in driver mode "
                         "ends it");
    if (c->depth != 0)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "NclMpiDriverEnd: called inside a call");
    buf b = {0};
    put64(&b, c->ndead);
    put(&b, c->dead, (int64_t)c->ndead * 8);
    c->ndead = 0;
    put64(&b, MPI_CMD_END);
    NclStatus st = b.failed ? mpi_error(NCL_ERR_NO_MEMORY, "NclMpiDriverEnd: out of memory")
                            : bcast(c, &b);
    free(b.p);
    c->driver = 0;
    return st;
}
