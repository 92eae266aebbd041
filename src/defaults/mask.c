/*
 * mask.c: NCLib's default implementation of the Mask subsystem, the tail of
 * its level-1 chain: compress (a[mask]), put (target[mask] = values),
 * nonzero, take and searchsorted. Each op validates in the caller's terms,
 * counts or checks what decides the output (the mask's true count, every
 * index, the sorter), obtains all memory (overlap copies, the output), and
 * only then runs the level-2 Mask kernels (kernels/mask/) over rows of its
 * operands.
 *
 * Kernel ABI: chains keyed (NCL_SUBSYSTEM_MASK, op, {in, out}); ctx->aux is
 * a const ncl_mask_aux *; ctx->nin = ctx->nout = 1 (the two signature
 * dtypes; the mask or index operand is not counted). The meaning of args,
 * steps and each aux field per op is written in kernels/mask/mask_kernels.h.
 *
 * Execution order: compress, put and nonzero walk their operands in C order
 * of the logical index, because that order is what they pack (or unpack)
 * into. Where a row's output starts is the count of the rows before it, so
 * a pool can split the rows, count each part (the counting pass already
 * exists), and run the parts from the prefix sums of those counts; take's
 * outer positions are independent as they are. Today one part covers the
 * call. Casts to or from the kernel dtype go through NCL_BLOCK-element
 * stack buffers, never through whole-array temporaries.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "defaults/ncl_defaults.h"
#include "exec/plan.h"
#include "exec/walk.h"
#include "mask/mask_kernels.h"

#define SUB NCL_SUBSYSTEM_MASK
#define MAXOP NCL_WALK_MAXOP

static const char *const casting_names[] = {"no", "equiv", "safe", "same_kind", "unsafe"};
static const char *const who_text[NCL_MASK_NOPS] = {
    "NclMask(compress)", "NclMask(put)", "NclMask(nonzero)", "NclMask(take)",
    "NclMask(searchsorted)"};

/* ---- arrays -------------------------------------------------------------------------- */

/* An operand as the executor reads it: the array itself, or the private
   C-order copy that replaced it because it overlaps the output. */
typedef struct operand {
    char *data;
    NclDType dtype;
    int ndim;
    const int64_t *shape;
    int64_t st[NCL_MAXDIMS];
} operand;

static void operand_of(const NclArray *a, operand *o)
{
    o->data = a->data;
    o->dtype = a->dtype;
    o->ndim = a->ndim;
    o->shape = a->shape;
    memcpy(o->st, a->strides, (size_t)a->ndim * sizeof(int64_t));
}

NCL_INLINE int same_shape(const NclArray *a, const NclArray *b)
{
    if (a->ndim != b->ndim) return 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d]) return 0;
    return 1;
}

/* Makes o read a private C-order copy of a (scratch memory from the
   calling thread's handler, held in *buf until the call ends). */
static NclStatus private_copy(NclMaskOp op, const NclArray *a, operand *o, ncl_buffer **buf)
{
    NclStatus st = ncl_scratch_alloc(who_text[op], (size_t)a->size * a->itemsize, buf);
    if (st) return st;
    ncl_array_copy_c_order(a, (*buf)->base);
    o->data = (*buf)->base;
    int64_t s = (int64_t)a->itemsize;
    for (int d = a->ndim - 1; d >= 0; d--) {
        o->st[d] = s;
        s *= a->shape[d];
    }
    return NCL_OK;
}

static void release_buffers(ncl_buffer **bufs, int n)
{
    for (int i = 0; i < n; i++) {
        if (bufs[i]) ncl_buffer_release(bufs[i]);
        bufs[i] = NULL;
    }
}

/* ---- kernels --------------------------------------------------------------------------- */

/* A kernel node and the context it runs with. */
typedef struct kcall {
    NclKernelNode *node;
    NclDType sig[2];
    NclKernelCtx ctx;
} kcall;

static NclStatus kcall_find(kcall *k, NclMaskOp who, NclSubsystem sub, int op, NclDType in,
                            NclDType out, const ncl_mask_aux *aux, int *fpe)
{
    k->sig[0] = in;
    k->sig[1] = out;
    ncl_kchain *c = ncl_kernel_chain(sub, op, k->sig, 2);
    if (!c)
        return ncl_error(NCL_ERR_DTYPE, "%s: no %s kernel from %s to %s", who_text[who],
                         ncl_op_name(sub, op), NclDTypeName(in), NclDTypeName(out));
    k->node = ncl_kernel_first(c);
    k->ctx = (NclKernelCtx){sub, op, 1, 1, k->sig, 0, 0, fpe, aux, NCL_ACCURACY_HIGH, 1};
    return NCL_OK;
}

NCL_INLINE NclStatus kcall_run(const kcall *k, char *const *args, int64_t n, const int64_t *steps)
{
    return k->node->fn(k->node, &k->ctx, args, n, steps);
}

static NclStatus kernel_failed(NclMaskOp op, const kcall *k, NclStatus st)
{
    return ncl_error(st, "%s: kernel %s failed with status %d (%s)", who_text[op],
                     k->node->name ? k->node->name : "(unnamed)", (int)st, NclStatusString(st));
}

static NclStatus kernel_miscounted(NclMaskOp op, const kcall *k)
{
    return ncl_error(NCL_ERR_HOOK, "%s: kernel %s reported a count that disagrees with the "
                     "planning pass", who_text[op], k->node->name ? k->node->name : "(unnamed)");
}

/* The true elements of d's operand 0 (dtype dt) through the nonzero
   kernel in count mode. d must be merged and non-empty. */
static NclStatus count_truths(NclMaskOp op, const ncl_walk_dims *d, char *data, NclDType dt, int *fpe,
                              int64_t *total)
{
    int64_t got = 0;
    ncl_mask_aux aux = {0};
    aux.count = &got;
    kcall k;
    NclStatus st = kcall_find(&k, op, SUB, NCL_MASK_NONZERO, dt, NCL_INT64, &aux, fpe);
    if (st) return st;
    const int64_t n = d->shape[d->nd - 1];
    const int64_t steps[2] = {d->st[0][d->nd - 1], 0};
    ncl_walk o;
    char *base[1] = {data};
    ncl_walk_start(d, &o, base);
    int64_t sum = 0;
    do {
        char *args[2] = {o.ptr[0], NULL};
        if ((st = kcall_run(&k, args, n, steps))) return kernel_failed(op, &k, st);
        sum += got;
    } while (ncl_walk_next(d, d->nd - 1, &o));
    *total = sum;
    return NCL_OK;
}

/* ---- shared checks ----------------------------------------------------------------------- */

static NclStatus check_host(NclMaskOp op, const NclArray *a, const char *role)
{
    if (a && a->kind == NCL_MEM_DEVICE)
        return ncl_error(NCL_ERR_DEVICE_MEMORY,
                         "%s: %s is device memory (device %d); host kernels cannot touch it",
                         who_text[op], role, a->device_id);
    return NCL_OK;
}

/* The dtype of the result of compress and take: the provided output's, else
   params->dtype, else the data's; the data must cast to it. */
static NclStatus result_dtype(NclMaskOp op, const NclArray *a, const NclArray *given,
                              const NclParams *p, NclDType *rdt)
{
    *rdt = given ? given->dtype : p->dtype != NCL_DTYPE_DEFAULT ? p->dtype : a->dtype;
    if (*rdt != a->dtype && !NclCanCast(a->dtype, *rdt, p->casting))
        return ncl_error(NCL_ERR_CASTING,
                         "%s: cannot cast the data from %s to the output dtype %s under casting "
                         "rule '%s'",
                         who_text[op], NclDTypeName(a->dtype), NclDTypeName(*rdt),
                         casting_names[p->casting]);
    return NCL_OK;
}

static void record_call(int64_t elements, int64_t bytes, const kcall *k)
{
    ncl_last_call.elements = elements;
    ncl_last_call.bytes = bytes;
    ncl_last_call.kernel = k && k->node->name ? k->node->name : "(unnamed)";
    ncl_last_call.threads = 1;
}

/* ---- compress -------------------------------------------------------------------------- */

/* Packs the true elements of every row of d (operand 0 data, 1 mask) into
   out from element 0; count is what the planning pass found. */
static NclStatus compress_rows(const ncl_walk_dims *d, char *const *base, const kcall *k,
                               const kcall *cast, int64_t *kept, size_t isz, char *out,
                               int64_t ostep, int64_t count)
{
    const int nd = d->nd;
    const int64_t n = d->shape[nd - 1], ds = d->st[0][nd - 1], ms = d->st[1][nd - 1];
    int64_t written = 0;
    NclStatus st;
    ncl_walk o;
    ncl_walk_start(d, &o, base);
    if (!cast) {
        const int64_t steps[3] = {ds, ms, ostep};
        do {
            char *args[3] = {o.ptr[0], o.ptr[1], out + written * ostep};
            if ((st = kcall_run(k, args, n, steps))) return kernel_failed(NCL_MASK_COMPRESS, k, st);
            written += *kept;
            if (written > count) return kernel_miscounted(NCL_MASK_COMPRESS, k);
        } while (ncl_walk_next(d, nd - 1, &o));
    } else {
        /* Pack blocks in the data's dtype, then cast each packed block out. */
        _Alignas(64) char buf[NCL_BLOCK * 8];
        const int64_t steps[3] = {ds, ms, (int64_t)isz};
        const int64_t csteps[2] = {(int64_t)isz, ostep};
        do {
            for (int64_t off = 0; off < n; off += NCL_BLOCK) {
                const int64_t m = n - off < NCL_BLOCK ? n - off : NCL_BLOCK;
                char *args[3] = {o.ptr[0] + off * ds, o.ptr[1] + off * ms, buf};
                if ((st = kcall_run(k, args, m, steps)))
                    return kernel_failed(NCL_MASK_COMPRESS, k, st);
                if (*kept > m || written + *kept > count)
                    return kernel_miscounted(NCL_MASK_COMPRESS, k);
                char *cargs[2] = {buf, out + written * ostep};
                if (*kept && (st = kcall_run(cast, cargs, *kept, csteps)))
                    return kernel_failed(NCL_MASK_COMPRESS, cast, st);
                written += *kept;
            }
        } while (ncl_walk_next(d, nd - 1, &o));
    }
    return written == count ? NCL_OK : kernel_miscounted(NCL_MASK_COMPRESS, k);
}

static NclStatus run_compress(const NclArray *a, const NclArray *m, NclArray *given,
                              const NclParams *p, NclArray **res, int *fpe)
{
    const NclMaskOp op = NCL_MASK_COMPRESS;
    char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
    NclStatus st;
    if (m->dtype != NCL_BOOL)
        return ncl_error(NCL_ERR_DTYPE, "NclMask(compress): the mask (input b) must be bool, not %s",
                         NclDTypeName(m->dtype));
    if (!same_shape(a, m))
        return ncl_error(NCL_ERR_SHAPE,
                         "NclMask(compress): mask with shape %s does not match the data's shape %s",
                         ncl_shape_str(s0, m->ndim, m->shape), ncl_shape_str(s1, a->ndim, a->shape));
    NclDType rdt;
    if ((st = result_dtype(op, a, given, p, &rdt))) return st;

    int64_t kept = 0;
    ncl_mask_aux aux = {0};
    aux.count = &kept;
    kcall k, cast;
    if ((st = kcall_find(&k, op, SUB, op, a->dtype, a->dtype, &aux, fpe))) return st;
    if (rdt != a->dtype &&
        (st = kcall_find(&cast, op, NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_ASTYPE, a->dtype, rdt,
                         NULL, fpe)))
        return st;

    /* 1. count: the mask decides the output's length */
    int64_t count = 0;
    ncl_walk_dims dm;
    if (a->size > 0) {
        const int64_t *mst[1] = {m->strides};
        ncl_walk_dims_init(&dm, m->ndim, m->shape, 1, mst);
        ncl_walk_dims_merge(&dm);
        if ((st = count_truths(op, &dm, m->data, NCL_BOOL, fpe, &count))) return st;
    }
    if (given && (given->ndim != 1 || given->shape[0] != count))
        return ncl_error(NCL_ERR_SHAPE,
                         "NclMask(compress): output shape %s is not (%" PRId64 ",): the mask has "
                         "%" PRId64 " true elements",
                         ncl_shape_str(s0, given->ndim, given->shape), count, count);

    /* 2. memory: copies of inputs the output overlaps, then the output */
    operand da, dmk;
    operand_of(a, &da);
    operand_of(m, &dmk);
    ncl_buffer *tmp[2] = {NULL, NULL};
    if (given && count > 0) {
        if (ncl_array_ranges_overlap(a, given) && (st = private_copy(op, a, &da, &tmp[0])))
            return st;
        if (ncl_array_ranges_overlap(m, given) && (st = private_copy(op, m, &dmk, &tmp[1]))) {
            release_buffers(tmp, 2);
            return st;
        }
    }
    NclArray *o = given;
    if (!o && (st = ncl_array_alloc(who_text[op], rdt, 1, &count, NCL_ORDER_C, 0, &o))) {
        release_buffers(tmp, 2);
        return st;
    }

    /* 3. pack */
    if (count > 0) {
        const int64_t *st2[2] = {da.st, dmk.st};
        ncl_walk_dims d;
        ncl_walk_dims_init(&d, a->ndim, a->shape, 2, st2);
        ncl_walk_dims_merge(&d);
        char *base[2] = {da.data, dmk.data};
        st = compress_rows(&d, base, &k, rdt != a->dtype ? &cast : NULL, &kept, a->itemsize,
                           o->data, o->strides[0], count);
    }
    release_buffers(tmp, 2);
    record_call(a->size, a->size * (int64_t)(a->itemsize + 1) + count * (int64_t)o->itemsize, &k);
    if (st) {
        if (o != given) NclArrayRelease(o);
        return st;
    }
    *res = o;
    return NCL_OK;
}

/* ---- put --------------------------------------------------------------------------------- */

/* The values of put, read in C order of b, cast to the target dtype. */
typedef struct values {
    const char *ptr;        /* the values the next kernel call reads */
    int64_t step;           /* 0: one value for all */
    int64_t avail;          /* how many at ptr */
    /* refills: a walk over b, cast block-wise into buf */
    int buffered;
    ncl_walk_dims d;
    ncl_walk o;
    int64_t pos;            /* position in the current row of the walk */
    int at_end;
    kcall cast;
    size_t tsz;
    _Alignas(64) char buf[NCL_BLOCK * 8];
} values;

static NclStatus values_refill(values *v)
{
    int64_t got = 0;
    const int nd = v->d.nd;
    const int64_t n = v->d.shape[nd - 1], s = v->d.st[0][nd - 1];
    const int64_t csteps[2] = {s, (int64_t)v->tsz};
    while (got < NCL_BLOCK && !v->at_end) {
        int64_t m = n - v->pos;
        if (m > NCL_BLOCK - got) m = NCL_BLOCK - got;
        char *args[2] = {v->o.ptr[0] + v->pos * s, v->buf + got * (int64_t)v->tsz};
        NclStatus st = kcall_run(&v->cast, args, m, csteps);
        if (st) return kernel_failed(NCL_MASK_PUT, &v->cast, st);
        got += m;
        v->pos += m;
        if (v->pos == n) {
            v->pos = 0;
            v->at_end = !ncl_walk_next(&v->d, nd - 1, &v->o);
        }
    }
    v->ptr = v->buf;
    v->step = (int64_t)v->tsz;
    v->avail = got;
    return NCL_OK;
}

/* Runs the scatter kernel over every row of d (operand 0 target, 1 mask),
   taking values from v in order. */
static NclStatus put_rows(const ncl_walk_dims *d, char *const *base, const kcall *k, ncl_mask_aux *aux,
                          values *v, int64_t count)
{
    const int nd = d->nd;
    const int64_t n = d->shape[nd - 1], ts = d->st[0][nd - 1], ms = d->st[1][nd - 1];
    int64_t used_total = 0, used = 0, done = 0;
    NclStatus st;
    aux->count = &used;
    aux->done = &done;
    ncl_walk o;
    ncl_walk_start(d, &o, base);
    do {
        int64_t i = 0;
        while (i < n) {
            if (v->avail == 0 && v->buffered && !v->at_end && (st = values_refill(v))) return st;
            aux->avail = v->avail;
            char *args[3] = {(char *)v->ptr, o.ptr[1] + i * ms, o.ptr[0] + i * ts};
            const int64_t steps[3] = {v->step, ms, ts};
            if ((st = kcall_run(k, args, n - i, steps))) return kernel_failed(NCL_MASK_PUT, k, st);
            if (done < 0 || done > n - i || used < 0 || used > v->avail)
                return kernel_miscounted(NCL_MASK_PUT, k);
            /* Stopping early is right only when the values ran out and the
               buffer can be refilled: the count was checked in planning. */
            if (done < n - i && (used < v->avail || !v->buffered || v->at_end))
                return kernel_miscounted(NCL_MASK_PUT, k);
            i += done;
            used_total += used;
            if (v->avail != INT64_MAX) {
                v->ptr += used * v->step;
                v->avail -= used;
            }
        }
    } while (ncl_walk_next(d, nd - 1, &o));
    return v->avail == INT64_MAX || used_total == count ? NCL_OK : kernel_miscounted(NCL_MASK_PUT, k);
}

static NclStatus run_put(const NclArray *m, const NclArray *b, NclArray *t, const NclParams *p,
                         int *fpe)
{
    const NclMaskOp op = NCL_MASK_PUT;
    char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
    NclStatus st;
    if (m->dtype != NCL_BOOL)
        return ncl_error(NCL_ERR_DTYPE, "NclMask(put): the mask (input a) must be bool, not %s",
                         NclDTypeName(m->dtype));
    int ok = m->ndim <= t->ndim;
    for (int d = 0; ok && d < m->ndim; d++) {
        const int64_t e = m->shape[d], o = t->shape[d + t->ndim - m->ndim];
        ok = e == 1 || e == o;
    }
    if (!ok)
        return ncl_error(NCL_ERR_BROADCAST,
                         "NclMask(put): mask with shape %s cannot be broadcast to the target "
                         "shape %s",
                         ncl_shape_str(s0, m->ndim, m->shape), ncl_shape_str(s1, t->ndim, t->shape));
    if (b->dtype != t->dtype && !NclCanCast(b->dtype, t->dtype, p->casting))
        return ncl_error(NCL_ERR_CASTING,
                         "NclMask(put): cannot cast the values from %s to the target dtype %s "
                         "under casting rule '%s'",
                         NclDTypeName(b->dtype), NclDTypeName(t->dtype), casting_names[p->casting]);

    ncl_mask_aux aux = {0};
    kcall k;
    if ((st = kcall_find(&k, op, SUB, op, t->dtype, t->dtype, &aux, fpe))) return st;

    /* 1. count the mask over the target's shape */
    operand om;
    operand_of(m, &om);
    int64_t mst[NCL_MAXDIMS];
    const int nd = t->ndim;
    for (int d = 0; d < nd; d++) {
        const int km = d - (nd - m->ndim);
        mst[d] = km < 0 || m->shape[km] == 1 ? 0 : m->strides[km];
    }
    int64_t count = 0;
    if (t->size > 0) {
        ncl_walk_dims dc;
        const int64_t *cst[1] = {mst};
        ncl_walk_dims_init(&dc, nd, t->shape, 1, cst);
        ncl_walk_dims_merge(&dc);
        if ((st = count_truths(op, &dc, m->data, NCL_BOOL, fpe, &count))) return st;
    }
    if (b->size != count && b->size != 1)
        return ncl_error(NCL_ERR_SHAPE,
                         "NclMask(put): %" PRId64 " values (shape %s) for %" PRId64
                         " true mask elements: give as many values, or one",
                         b->size, ncl_shape_str(s0, b->ndim, b->shape), count);
    if (count == 0) {
        record_call(t->size, t->size, &k);
        return NCL_OK;
    }

    /* 2. memory: copies of the mask and values where the target overlaps them */
    operand ov;
    operand_of(b, &ov);
    ncl_buffer *tmp[2] = {NULL, NULL};
    if (ncl_array_ranges_overlap(m, t)) {
        if ((st = private_copy(op, m, &om, &tmp[0]))) return st;
        for (int d = 0; d < nd; d++) {
            const int km = d - (nd - m->ndim);
            mst[d] = km < 0 || m->shape[km] == 1 ? 0 : om.st[km];
        }
    }
    if (ncl_array_ranges_overlap(b, t) && (st = private_copy(op, b, &ov, &tmp[1]))) {
        release_buffers(tmp, 2);
        return st;
    }
    /* The value reader: one value broadcast, b read in place, or b cast
       into a block buffer as the kernel consumes it. */
    values vv, *v = &vv;
    v->buffered = 0;
    v->tsz = t->itemsize;
    if (b->size == 1 || b->dtype != t->dtype) {
        if ((st = kcall_find(&v->cast, op, NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_ASTYPE, b->dtype,
                             t->dtype, NULL, fpe))) {
            release_buffers(tmp, 2);
            return st;
        }
    }
    if (b->size == 1) {
        char *cargs[2] = {ov.data, v->buf};
        const int64_t csteps[2] = {0, 0};
        if ((st = kcall_run(&v->cast, cargs, 1, csteps))) {
            release_buffers(tmp, 2);
            return kernel_failed(op, &v->cast, st);
        }
        v->ptr = v->buf;
        v->step = 0;
        v->avail = INT64_MAX;
    } else {
        const int64_t *vst[1] = {ov.st};
        ncl_walk_dims_init(&v->d, b->ndim, b->shape, 1, vst);
        ncl_walk_dims_merge(&v->d);
        if (v->d.nd == 1 && b->dtype == t->dtype) {
            v->ptr = ov.data;
            v->step = v->d.st[0][0];
            v->avail = count;
        } else {
            char *vbase[1] = {ov.data};
            ncl_walk_start(&v->d, &v->o, vbase);
            v->pos = 0;
            v->at_end = 0;
            v->avail = 0;
            v->buffered = 1;
            if (b->dtype == t->dtype &&
                (st = kcall_find(&v->cast, op, NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_ASTYPE,
                                 b->dtype, t->dtype, NULL, fpe))) {
                release_buffers(tmp, 2);
                return st;
            }
        }
    }

    /* 3. scatter in C order of the target */
    const int64_t *pst[2] = {t->strides, mst};
    ncl_walk_dims d;
    ncl_walk_dims_init(&d, nd, t->shape, 2, pst);
    ncl_walk_dims_merge(&d);
    char *base[2] = {t->data, om.data};
    st = put_rows(&d, base, &k, &aux, v, count);
    release_buffers(tmp, 2);
    record_call(t->size, t->size + count * (int64_t)(t->itemsize + b->itemsize), &k);
    return st;
}

/* ---- nonzero ----------------------------------------------------------------------------- */

static NclStatus run_nonzero(const NclArray *a, NclArray *given, const NclParams *p,
                             NclArray **res, int *fpe)
{
    const NclMaskOp op = NCL_MASK_NONZERO;
    char s0[NCL_SHAPE_STR];
    NclStatus st;
    if (p->dtype != NCL_DTYPE_DEFAULT && p->dtype != NCL_INT64)
        return ncl_error(NCL_ERR_DTYPE, "NclMask(nonzero): the result is int64 indices; dtype %s "
                         "was asked for", NclDTypeName(p->dtype));
    if (given && given->dtype != NCL_INT64)
        return ncl_error(NCL_ERR_DTYPE, "NclMask(nonzero): the output must be int64 (it holds "
                         "indices), not %s", NclDTypeName(given->dtype));
    int64_t kept = 0;
    ncl_mask_aux aux = {0};
    aux.count = &kept;
    kcall k;
    if ((st = kcall_find(&k, op, SUB, op, a->dtype, NCL_INT64, &aux, fpe))) return st;

    /* 1. count */
    int64_t count = 0;
    if (a->size > 0) {
        ncl_walk_dims dc;
        const int64_t *cst[1] = {a->strides};
        ncl_walk_dims_init(&dc, a->ndim, a->shape, 1, cst);
        ncl_walk_dims_merge(&dc);
        if ((st = count_truths(op, &dc, a->data, a->dtype, fpe, &count))) return st;
    }
    /* A 0-d array counts as one element of a 1-d one (NumPy 1.24, deprecated). */
    const int rows = a->ndim > 0 ? a->ndim : 1;
    const int64_t rshape[2] = {rows, count};
    if (given && (given->ndim != 2 || given->shape[0] != rows || given->shape[1] != count))
        return ncl_error(NCL_ERR_SHAPE,
                         "NclMask(nonzero): output shape %s is not (%d,%" PRId64 ") (one row per "
                         "axis of the input, one column per non-zero element)",
                         ncl_shape_str(s0, given->ndim, given->shape), rows, count);

    /* 2. memory */
    operand oa;
    operand_of(a, &oa);
    ncl_buffer *tmp[1] = {NULL};
    if (given && count > 0 && ncl_array_ranges_overlap(a, given) &&
        (st = private_copy(op, a, &oa, &tmp[0])))
        return st;
    NclArray *o = given;
    if (!o && (st = ncl_array_alloc(who_text[op], NCL_INT64, 2, rshape, NCL_ORDER_C, 0, &o))) {
        release_buffers(tmp, 1);
        return st;
    }

    /* 3. per row along the last axis: the kernel writes the last axis's
       indices, the others are the row's own coordinates. */
    if (count > 0) {
        ncl_walk_dims d;
        const int64_t *ist[1] = {oa.st};
        ncl_walk_dims_init(&d, a->ndim, a->shape, 1, ist); /* not merged: every axis has its row */
        const int64_t n = d.shape[d.nd - 1];
        const int64_t os0 = o->strides[0], os1 = o->strides[1];
        const int64_t steps[2] = {d.st[0][d.nd - 1], os1};
        char *lastrow = o->data + (int64_t)(rows - 1) * os0;
        int64_t col = 0;
        ncl_walk it;
        char *base[1] = {oa.data};
        ncl_walk_start(&d, &it, base);
        do {
            char *args[2] = {it.ptr[0], lastrow + col * os1};
            if ((st = kcall_run(&k, args, n, steps))) {
                st = kernel_failed(op, &k, st);
                break;
            }
            if (kept < 0 || kept > count - col) {
                st = kernel_miscounted(op, &k);
                break;
            }
            for (int ax = 0; ax < rows - 1; ax++) {
                char *q = o->data + ax * os0 + col * os1;
                for (int64_t j = 0; j < kept; j++) memcpy(q + j * os1, &it.idx[ax], 8);
            }
            col += kept;
        } while (ncl_walk_next(&d, d.nd - 1, &it));
        if (!st && col != count) st = kernel_miscounted(op, &k);
    }
    release_buffers(tmp, 1);
    record_call(a->size, a->size * (int64_t)a->itemsize + count * rows * 8, &k);
    if (st) {
        if (o != given) NclArrayRelease(o);
        return st;
    }
    *res = o;
    return NCL_OK;
}

/* ---- take -------------------------------------------------------------------------------- */

/* Reads n indices of dtype dt at p (byte step s) into out as int64 in
   [0, len), negative ones counted from the end. Returns the position of the
   first index out of range, or -1 when all are in range. */
#define NCL_MASK_INDEX_DTYPES_(X)                                                          \
    X(NCL_INT8, i8, int8_t, "int8", i) X(NCL_INT16, i16, int16_t, "int16", i)               \
    X(NCL_INT32, i32, int32_t, "int32", i) X(NCL_INT64, i64, int64_t, "int64", i)           \
    X(NCL_UINT8, u8, uint8_t, "uint8", u) X(NCL_UINT16, u16, uint16_t, "uint16", u)         \
    X(NCL_UINT32, u32, uint32_t, "uint32", u) X(NCL_UINT64, u64, uint64_t, "uint64", u)

static int64_t load_indices(NclDType dt, const char *p, int64_t s, int64_t n, int64_t len,
                            int64_t *out)
{
    switch (dt) {
#define NCL_X_(E, sfx, T, name, kind)                                                       \
    case E:                                                                                 \
        for (int64_t i = 0; i < n; i++) {                                                   \
            T v;                                                                            \
            memcpy(&v, p + i * s, sizeof v);                                                \
            int64_t x;                                                                      \
            if (#kind[0] == 'u') {                                                          \
                if ((uint64_t)v >= (uint64_t)len) return i;                                 \
                x = (int64_t)v;                                                             \
            } else {                                                                        \
                x = (int64_t)v;                                                             \
                if (x < 0) x += len; /* cannot overflow: len >= 0 */                        \
                if (x < 0 || x >= len) return i;                                            \
            }                                                                               \
            out[i] = x;                                                                     \
        }                                                                                   \
        return -1;
        NCL_MASK_INDEX_DTYPES_(NCL_X_)
#undef NCL_X_
    default: return 0;
    }
}

/* The index of dtype dt at p as text, signed or unsigned as it is. */
static const char *index_text(NclDType dt, const char *p, char *buf, size_t cap)
{
    uint64_t u = 0;
    int64_t i = 0;
    switch (dt) {
    case NCL_UINT8: { uint8_t v; memcpy(&v, p, 1); u = v; break; }
    case NCL_UINT16: { uint16_t v; memcpy(&v, p, 2); u = v; break; }
    case NCL_UINT32: { uint32_t v; memcpy(&v, p, 4); u = v; break; }
    case NCL_UINT64: memcpy(&u, p, 8); break;
    case NCL_INT8: { int8_t v; memcpy(&v, p, 1); i = v; break; }
    case NCL_INT16: { int16_t v; memcpy(&v, p, 2); i = v; break; }
    case NCL_INT32: { int32_t v; memcpy(&v, p, 4); i = v; break; }
    default: memcpy(&i, p, 8); break;
    }
    if (ncl_dtype_kind[dt] == 'u')
        snprintf(buf, cap, "%" PRIu64, u);
    else
        snprintf(buf, cap, "%" PRId64, i);
    return buf;
}

/* Checks every index before anything is written. */
static NclStatus check_indices(const NclArray *ix, int64_t len, int flat, int axis)
{
    if (ix->size == 0) return NCL_OK;
    if (len == 0)
        return flat ? ncl_error(NCL_ERR_INDEX,
                                "NclMask(take): cannot take %" PRId64 " element(s) from the "
                                "flattened array of size 0",
                                ix->size)
                    : ncl_error(NCL_ERR_INDEX,
                                "NclMask(take): cannot take %" PRId64 " element(s) from axis %d "
                                "of size 0",
                                ix->size, axis);
    ncl_walk_dims d;
    const int64_t *st[1] = {ix->strides};
    ncl_walk_dims_init(&d, ix->ndim, ix->shape, 1, st);
    ncl_walk_dims_merge(&d);
    const int64_t n = d.shape[d.nd - 1], s = d.st[0][d.nd - 1];
    int64_t buf[NCL_BLOCK], pos = 0;
    ncl_walk o;
    char *base[1] = {ix->data};
    ncl_walk_start(&d, &o, base);
    do {
        for (int64_t off = 0; off < n; off += NCL_BLOCK) {
            const int64_t m = n - off < NCL_BLOCK ? n - off : NCL_BLOCK;
            const int64_t bad = load_indices(ix->dtype, o.ptr[0] + off * s, s, m, len, buf);
            if (bad >= 0) {
                char v[32], where[48];
                if (flat)
                    snprintf(where, sizeof where, "the flattened array");
                else
                    snprintf(where, sizeof where, "axis %d", axis);
                return ncl_error(NCL_ERR_INDEX,
                                 "NclMask(take): index %s at position %" PRId64 " of the %s "
                                 "indices is out of bounds for %s with size %" PRId64,
                                 index_text(ix->dtype, o.ptr[0] + (off + bad) * s, v, sizeof v),
                                 pos + off + bad, NclDTypeName(ix->dtype), where, len);
            }
        }
        pos += n;
    } while (ncl_walk_next(&d, d.nd - 1, &o));
    return NCL_OK;
}

typedef struct take_plan {
    ncl_walk_dims outer, idx, inner; /* outer: {a, out}; idx: {indices, out}; inner: {a, out} */
    int64_t axis_step;      /* a's step along the axis */
    int64_t len;            /* the axis's extent */
    NclDType idtype;
    kcall k, cast;
    int has_cast;
    size_t isz;
} take_plan;

/* Gathers for every outer position, block of indices and inner row. */
static NclStatus take_exec(take_plan *tp, char *adata, char *idata, char *odata,
                           ncl_mask_aux *aux)
{
    const ncl_walk_dims *O = &tp->outer, *B = &tp->idx, *I = &tp->inner;
    const int64_t bn = B->shape[B->nd - 1], ixs = B->st[0][B->nd - 1], obs = B->st[1][B->nd - 1];
    const int64_t in_n = I->shape[I->nd - 1], sis = I->st[0][I->nd - 1], ois = I->st[1][I->nd - 1];
    const int64_t isz = (int64_t)tp->isz;
    int64_t ibuf[NCL_BLOCK];
    _Alignas(64) char buf[NCL_BLOCK * 8];
    NclStatus st;
    ncl_walk oo, ob, oi;
    char *obase[2] = {adata, odata};
    ncl_walk_start(O, &oo, obase);
    do {
        char *bbase[2] = {idata, oo.ptr[1]};
        ncl_walk_start(B, &ob, bbase);
        do {
            for (int64_t j0 = 0; j0 < bn; j0 += NCL_BLOCK) {
                const int64_t nb = bn - j0 < NCL_BLOCK ? bn - j0 : NCL_BLOCK;
                (void)load_indices(tp->idtype, ob.ptr[0] + j0 * ixs, ixs, nb, tp->len, ibuf);
                char *ibase[2] = {oo.ptr[0], ob.ptr[1] + j0 * obs};
                ncl_walk_start(I, &oi, ibase);
                do {
                    if (!tp->has_cast) {
                        aux->inner = in_n;
                        aux->src_inner_step = sis;
                        aux->out_inner_step = ois;
                        char *args[3] = {oi.ptr[0], (char *)ibuf, oi.ptr[1]};
                        const int64_t steps[3] = {tp->axis_step, 8, obs};
                        if ((st = kcall_run(&tp->k, args, nb, steps)))
                            return kernel_failed(NCL_MASK_TAKE, &tp->k, st);
                    } else if (in_n == 1) {
                        aux->inner = 1;
                        aux->src_inner_step = aux->out_inner_step = isz;
                        char *args[3] = {oi.ptr[0], (char *)ibuf, buf};
                        const int64_t steps[3] = {tp->axis_step, 8, isz};
                        if ((st = kcall_run(&tp->k, args, nb, steps)))
                            return kernel_failed(NCL_MASK_TAKE, &tp->k, st);
                        char *cargs[2] = {buf, oi.ptr[1]};
                        const int64_t csteps[2] = {isz, obs};
                        if ((st = kcall_run(&tp->cast, cargs, nb, csteps)))
                            return kernel_failed(NCL_MASK_TAKE, &tp->cast, st);
                    } else {
                        /* a row per index, cast block by block */
                        for (int64_t j = 0; j < nb; j++) {
                            for (int64_t c0 = 0; c0 < in_n; c0 += NCL_BLOCK) {
                                const int64_t m = in_n - c0 < NCL_BLOCK ? in_n - c0 : NCL_BLOCK;
                                aux->inner = m;
                                aux->src_inner_step = sis;
                                aux->out_inner_step = isz;
                                char *args[3] = {oi.ptr[0] + c0 * sis, (char *)&ibuf[j], buf};
                                const int64_t steps[3] = {tp->axis_step, 8, 0};
                                if ((st = kcall_run(&tp->k, args, 1, steps)))
                                    return kernel_failed(NCL_MASK_TAKE, &tp->k, st);
                                char *cargs[2] = {buf, oi.ptr[1] + j * obs + c0 * ois};
                                const int64_t csteps[2] = {isz, ois};
                                if ((st = kcall_run(&tp->cast, cargs, m, csteps)))
                                    return kernel_failed(NCL_MASK_TAKE, &tp->cast, st);
                            }
                        }
                    }
                } while (ncl_walk_next(I, I->nd - 1, &oi));
            }
        } while (ncl_walk_next(B, B->nd - 1, &ob));
    } while (ncl_walk_next(O, O->nd, &oo));
    return NCL_OK;
}

static NclStatus run_take(const NclArray *a, const NclArray *ix, NclArray *given,
                          const NclParams *p, NclArray **res, int *fpe)
{
    const NclMaskOp op = NCL_MASK_TAKE;
    char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
    NclStatus st;
    const char kind = ncl_dtype_kind[ix->dtype];
    if (kind != 'i' && kind != 'u')
        return ncl_error(NCL_ERR_DTYPE,
                         "NclMask(take): the indices (input b) must have an integer dtype, not %s",
                         NclDTypeName(ix->dtype));
    const int flat = p->axes == NULL;
    int axis = 0;
    if (!flat) {
        if (p->naxes != 1)
            return ncl_error(NCL_ERR_AXIS, "NclMask(take): takes along one axis; params->naxes "
                             "is %d", p->naxes);
        axis = p->axes[0];
        if (axis < -a->ndim || axis >= a->ndim)
            return ncl_error(NCL_ERR_AXIS,
                             "NclMask(take): axis %d is out of bounds for an array of dimension "
                             "%d (shape %s)",
                             axis, a->ndim, ncl_shape_str(s0, a->ndim, a->shape));
        if (axis < 0) axis += a->ndim;
    }
    /* The array taken from: a, or a seen as 1-d. */
    const int and_ = flat ? 1 : a->ndim;
    const int64_t *ashape = flat ? &a->size : a->shape;
    const int64_t len = ashape[axis];

    /* result shape: a.shape[:axis] + ix.shape + a.shape[axis+1:] */
    const int rnd = and_ - 1 + ix->ndim;
    if (rnd > NCL_MAXDIMS)
        return ncl_error(NCL_ERR_SHAPE, "NclMask(take): the result would have %d dimensions "
                         "(at most %d)", rnd, NCL_MAXDIMS);
    int64_t rshape[NCL_MAXDIMS], rsize;
    for (int d = 0; d < axis; d++) rshape[d] = ashape[d];
    for (int d = 0; d < ix->ndim; d++) rshape[axis + d] = ix->shape[d];
    for (int d = axis + 1; d < and_; d++) rshape[d - 1 + ix->ndim] = ashape[d];
    if ((st = ncl_shape_check(who_text[op], rnd, rshape, &rsize))) return st;
    if (given) {
        int same = given->ndim == rnd;
        for (int d = 0; same && d < rnd; d++) same = given->shape[d] == rshape[d];
        if (!same)
            return ncl_error(NCL_ERR_SHAPE,
                             "NclMask(take): output shape %s does not match the result shape %s",
                             ncl_shape_str(s0, given->ndim, given->shape),
                             ncl_shape_str(s1, rnd, rshape));
    }
    NclDType rdt;
    if ((st = result_dtype(op, a, given, p, &rdt))) return st;

    ncl_mask_aux aux = {0};
    take_plan tp;
    tp.len = len;
    tp.idtype = ix->dtype;
    tp.isz = a->itemsize;
    tp.has_cast = rdt != a->dtype;
    if ((st = kcall_find(&tp.k, op, SUB, op, a->dtype, a->dtype, &aux, fpe))) return st;
    if (tp.has_cast && (st = kcall_find(&tp.cast, op, NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_ASTYPE,
                                        a->dtype, rdt, NULL, fpe)))
        return st;

    /* 1. every index, before anything is allocated or written */
    if ((st = check_indices(ix, len, flat, axis))) return st;

    /* 2. memory: a C-order copy of a when it cannot be read as 1-d, copies
       of inputs the output overlaps, then the output */
    operand oa, oi;
    operand_of(a, &oa);
    operand_of(ix, &oi);
    ncl_buffer *tmp[2] = {NULL, NULL};
    const int work = rsize > 0;
    int64_t flat_step = (int64_t)a->itemsize;
    int need_copy = work && given && ncl_array_ranges_overlap(a, given);
    if (work && flat && a->size > 1) {
        ncl_walk_dims df;
        const int64_t *fst[1] = {a->strides};
        ncl_walk_dims_init(&df, a->ndim, a->shape, 1, fst);
        ncl_walk_dims_merge(&df);
        if (df.nd == 1)
            flat_step = df.st[0][0];
        else
            need_copy = 1; /* NumPy's ravel copies here too */
    }
    if (need_copy) {
        if ((st = private_copy(op, a, &oa, &tmp[0]))) return st;
        flat_step = (int64_t)a->itemsize;
    }
    if (work && given && ncl_array_ranges_overlap(ix, given) &&
        (st = private_copy(op, ix, &oi, &tmp[1]))) {
        release_buffers(tmp, 2);
        return st;
    }
    NclArray *o = given;
    if (!o && (st = ncl_array_alloc(who_text[op], rdt, rnd, rshape, NCL_ORDER_C, 0, &o))) {
        release_buffers(tmp, 2);
        return st;
    }

    /* 3. gather */
    if (work) {
        const int64_t *ast = flat ? &flat_step : oa.st;
        const int64_t *ost = o->strides;
        const int64_t *s2[2];
        s2[0] = ast;
        s2[1] = ost;
        ncl_walk_dims_init(&tp.outer, axis, ashape, 2, s2);
        ncl_walk_dims_merge(&tp.outer);
        s2[0] = oi.st;
        s2[1] = ost + axis;
        ncl_walk_dims_init(&tp.idx, ix->ndim, ix->shape, 2, s2);
        ncl_walk_dims_merge(&tp.idx);
        s2[0] = ast + axis + 1;
        s2[1] = ost + axis + ix->ndim;
        ncl_walk_dims_init(&tp.inner, and_ - axis - 1, ashape + axis + 1, 2, s2);
        ncl_walk_dims_merge(&tp.inner);
        tp.axis_step = ast[axis];
        st = take_exec(&tp, oa.data, oi.data, o->data, &aux);
    }
    release_buffers(tmp, 2);
    record_call(rsize, rsize * (int64_t)(a->itemsize + o->itemsize) + ix->size * (int64_t)ix->itemsize,
                &tp.k);
    if (st) {
        if (o != given) NclArrayRelease(o);
        return st;
    }
    *res = o;
    return NCL_OK;
}

/* ---- the default implementation ------------------------------------------------------------ */

/* ---- searchsorted ---------------------------------------------------------------------- */

/* sorter (params->sorter) checked and loaded as alen int64 indices into
   buf: a 1-D integer array of a's length, every entry in [0, alen) (no
   wrap-around of negative entries, as NumPy). */
static NclStatus load_sorter(const NclArray *sorter, int64_t alen, ncl_buffer **buf)
{
    const NclMaskOp op = NCL_MASK_SEARCHSORTED;
    char s0[NCL_SHAPE_STR];
    NclStatus st;
    if ((st = ncl_array_check(who_text[op], "params->sorter", sorter)) ||
        (st = check_host(op, sorter, "params->sorter")))
        return st;
    const char kind = ncl_dtype_kind[sorter->dtype];
    if (kind != 'i' && kind != 'u')
        return ncl_error(NCL_ERR_DTYPE, "NclMask(searchsorted): params->sorter is %s; it must "
                         "hold integer indices", NclDTypeName(sorter->dtype));
    if (sorter->ndim != 1 || sorter->shape[0] != alen)
        return ncl_error(NCL_ERR_SHAPE,
                         "NclMask(searchsorted): params->sorter has shape %s; it must be 1-D of "
                         "a's length %" PRId64, ncl_shape_str(s0, sorter->ndim, sorter->shape),
                         alen);
    if ((st = ncl_scratch_alloc(who_text[op], alen > 0 ? (size_t)alen * 8 : 1, buf))) return st;
    int64_t *ix = (int64_t *)(*buf)->base;
    const int64_t ss = sorter->strides[0];
    for (int64_t i = 0; i < alen; i++) {
        const int64_t x = ncl_load_int64(sorter->dtype, sorter->data + i * ss);
        if ((uint64_t)x >= (uint64_t)alen) {
            ncl_buffer_release(*buf);
            *buf = NULL;
            char v[32];
            return ncl_error(NCL_ERR_INDEX,
                             "NclMask(searchsorted): params->sorter[%" PRId64 "] is %s, out of "
                             "range for a of length %" PRId64, i,
                             index_text(sorter->dtype, sorter->data + i * ss, v, sizeof v), alen);
        }
        ix[i] = x;
    }
    return NCL_OK;
}

/* An operand in the search dtype ct, read where it is when it has that
   dtype and does not overlap the output, else converted (or copied) into an
   array of its own: *tmp holds that array, released by the caller. With
   flat, the elements are also made contiguous in C order. */
static NclStatus search_operand(const NclArray *x, NclDType ct, const NclArray *given, int flat,
                                NclArray **tmp, const NclArray **use)
{
    *tmp = NULL;
    *use = x;
    const int overlap = given && ncl_array_ranges_overlap(x, given);
    const int contig = (x->flags & NCL_ARRAY_C_CONTIGUOUS) && (x->flags & NCL_ARRAY_ALIGNED);
    if (x->dtype == ct && !overlap && (!flat || contig)) return NCL_OK;
    NclStatus st;
    if (x->dtype != ct) {
        st = ncl_convert_run(SUB, NCL_MASK_SEARCHSORTED, x, ct, tmp, NULL, NCL_CASTING_UNSAFE);
        if (st) return st;
        if (!flat || ((*tmp)->flags & NCL_ARRAY_C_CONTIGUOUS)) {
            *use = *tmp;
            return NCL_OK;
        }
        NclArrayRelease(*tmp);
        *tmp = NULL;
    }
    /* a C-order copy: contiguous, and apart from the output */
    NclArray *c = NULL;
    if ((st = ncl_array_alloc(who_text[NCL_MASK_SEARCHSORTED], ct, x->ndim, x->shape, NCL_ORDER_C,
                              0, &c)))
        return st;
    if (x->dtype == ct) {
        ncl_array_copy_c_order(x, c->data);
    } else {
        NclArray *conv = NULL;
        st = ncl_convert_run(SUB, NCL_MASK_SEARCHSORTED, x, ct, &conv, NULL, NCL_CASTING_UNSAFE);
        if (st) {
            NclArrayRelease(c);
            return st;
        }
        ncl_array_copy_c_order(conv, c->data);
        NclArrayRelease(conv);
    }
    *tmp = c;
    *use = c;
    return NCL_OK;
}

static NclStatus run_searchsorted(const NclArray *a, const NclArray *v, NclArray *given,
                                  const NclParams *p, NclArray **res, int *fpe)
{
    const NclMaskOp op = NCL_MASK_SEARCHSORTED;
    char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
    NclStatus st;
    if (a->ndim != 1)
        return ncl_error(NCL_ERR_SHAPE, "NclMask(searchsorted): a has shape %s; it must be 1-D",
                         ncl_shape_str(s0, a->ndim, a->shape));
    if (p->side != NCL_SIDE_LEFT && p->side != NCL_SIDE_RIGHT)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "NclMask(searchsorted): params->side %d is neither NCL_SIDE_LEFT (0) nor "
                         "NCL_SIDE_RIGHT (1)", p->side);
    if (p->dtype != NCL_DTYPE_DEFAULT && p->dtype != NCL_INT64)
        return ncl_error(NCL_ERR_DTYPE, "NclMask(searchsorted): the result is int64 indices; "
                         "dtype %s was asked for", NclDTypeName(p->dtype));
    if (given) {
        if (given->dtype != NCL_INT64)
            return ncl_error(NCL_ERR_DTYPE, "NclMask(searchsorted): the output must be int64 (it "
                             "holds indices), not %s", NclDTypeName(given->dtype));
        if (!same_shape(given, v))
            return ncl_error(NCL_ERR_SHAPE,
                             "NclMask(searchsorted): the output has shape %s; the result has v's "
                             "shape %s", ncl_shape_str(s0, given->ndim, given->shape),
                             ncl_shape_str(s1, v->ndim, v->shape));
    }
    const NclDType ct = NclPromoteTypes(a->dtype, v->dtype);
    if (!ncl_dtype_valid(ct))
        return ncl_error(NCL_ERR_DTYPE, "NclMask(searchsorted): %s and %s have no common dtype",
                         NclDTypeName(a->dtype), NclDTypeName(v->dtype));
    const int64_t alen = a->shape[0];
    ncl_mask_aux aux = {0};
    aux.alen = alen;
    aux.side = p->side;
    kcall k;
    if ((st = kcall_find(&k, op, SUB, op, ct, NCL_INT64, &aux, fpe))) return st;

    /* memory, all of it before the output is written: the sorter's
       indices, a and v in the search dtype (v contiguous), the output and,
       when the output is not contiguous, a buffer for it */
    ncl_buffer *bufs[2] = {NULL, NULL};
    NclArray *ta = NULL, *tv = NULL, *o = given;
    const NclArray *ua = a, *uv = v;
    if (p->sorter && (st = load_sorter(p->sorter, alen, &bufs[0]))) return st;
    aux.sorter = bufs[0] ? (const int64_t *)bufs[0]->base : NULL;
    if (!st) st = search_operand(a, ct, given, 0, &ta, &ua);
    if (!st) st = search_operand(v, ct, given, 1, &tv, &uv);
    if (!st && !o) st = ncl_array_alloc(who_text[op], NCL_INT64, v->ndim, v->shape, NCL_ORDER_C, 0, &o);
    const int direct = o && (o->flags & NCL_ARRAY_C_CONTIGUOUS);
    if (!st && !direct)
        st = ncl_scratch_alloc(who_text[op], v->size > 0 ? (size_t)v->size * 8 : 1, &bufs[1]);
    if (!st && v->size > 0) {
        char *args[3] = {ua->data, uv->data, direct ? o->data : (char *)bufs[1]->base};
        const int64_t steps[3] = {alen > 0 ? ua->strides[0] : 0, (int64_t)uv->itemsize, 8};
        if ((st = kcall_run(&k, args, v->size, steps))) st = kernel_failed(op, &k, st);
        else if (!direct) ncl_array_copy_from_c_order(o, bufs[1]->base);
    }
    NclArrayRelease(ta);
    NclArrayRelease(tv);
    release_buffers(bufs, 2);
    if (st) {
        if (o != given) NclArrayRelease(o);
        return st;
    }
    *res = o;
    return NCL_OK;
}

NclStatus ncl_default_mask(NclHook *self, NclMaskOp op, const NclArray *a, const NclArray *b,
                           NclArray **out, const NclParams *params)
{
    (void)self;
    if ((int)op < 0 || (int)op >= ncl_op_count(SUB))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclMask: unknown op %d (valid: 0..%d)",
                         (int)op, ncl_op_count(SUB) - 1);
    const char *who = who_text[op];
    const char *missing = !out                             ? "the out pointer"
                          : !a && op == NCL_MASK_PUT       ? "input a (the mask)"
                          : !a                             ? "input a"
                          : !b && op == NCL_MASK_PUT       ? "input b (the values)"
                          : !b && op == NCL_MASK_COMPRESS  ? "input b (the mask)"
                          : !b && op == NCL_MASK_TAKE      ? "input b (the indices)"
                          : !b && op == NCL_MASK_SEARCHSORTED ? "input b (the values v)"
                          : NULL;
    if (missing) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who, missing);
    if (op == NCL_MASK_NONZERO && b)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "NclMask(nonzero): input b must be NULL (nonzero reads one array)");
    NclParams p;
    NclStatus st = ncl_params_read(SUB, op, params, &p);
    if (st) return st;
    if (p.where)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "%s: params->where is not used by the Mask ops (the mask is an operand); "
                         "pass NULL", who);
    if (p.axes && op != NCL_MASK_TAKE)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: params->axes is used by take only; pass "
                         "NULL", who);
    NclArray *given = *out;
    if (op == NCL_MASK_PUT && !given)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "NclMask(put): *out must be the target array (put changes it in place)");
    const char *role_out = op == NCL_MASK_PUT ? "the target" : "the output";
    if ((st = check_host(op, a, op == NCL_MASK_PUT ? "the mask (input a)" : "input a")) ||
        (st = check_host(op, b, op == NCL_MASK_PUT ? "the values (input b)" : "input b")) ||
        (st = check_host(op, given, role_out)))
        return st;
    if (given) {
        char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
        if (!(given->flags & NCL_ARRAY_WRITEABLE))
            return ncl_error(NCL_ERR_READONLY, "%s: %s array is read-only", who, role_out);
        if (ncl_array_has_internal_overlap(given))
            return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                             "%s: %s has internal overlap (strides %s over shape %s)", who, role_out,
                             ncl_shape_str(s0, given->ndim, given->strides),
                             ncl_shape_str(s1, given->ndim, given->shape));
        if (p.dtype != NCL_DTYPE_DEFAULT && p.dtype != given->dtype)
            return ncl_error(NCL_ERR_DTYPE, "%s: params->dtype is %s but %s is %s", who,
                             NclDTypeName(p.dtype), role_out, NclDTypeName(given->dtype));
    }

    NclArray *res = given;
    int kflags = 0;
    ncl_fpe_saved saved;
    ncl_fpe_begin(&saved);
    switch (op) {
    case NCL_MASK_COMPRESS: st = run_compress(a, b, given, &p, &res, &kflags); break;
    case NCL_MASK_PUT: st = run_put(a, b, given, &p, &kflags); break;
    case NCL_MASK_NONZERO: st = run_nonzero(a, given, &p, &res, &kflags); break;
    case NCL_MASK_TAKE: st = run_take(a, b, given, &p, &res, &kflags); break;
    default: st = run_searchsorted(a, b, given, &p, &res, &kflags); break;
    }
    const int f = ncl_fpe_end(&saved) | kflags;
    ncl_tls.fpe_flags |= f;
    if (st == NCL_OK && res != given) {
        /* RAISE is decided here for a top-level call, so that a result this
           call allocated is released rather than returned. */
        if (f) st = ncl_fpe_raise_early(SUB, op);
        if (st)
            NclArrayRelease(res);
        else
            *out = res;
    }
    return st;
}
