/*
 * sort.c: NCLib's default implementation of the Sort subsystem, the tail of
 * its level-1 chain: sort, argsort, partition and argpartition of every
 * slice along one axis. The algorithms are the level-2 kernels in
 * kernels/sort/ (their ABI is kernels/sort/sort_kernel.h); this file
 * validates the call, plans it and feeds the kernels one contiguous slice
 * at a time.
 *
 * Plan, then execute. Planning checks everything (op, arrays, params, axis,
 * kth, the output's shape, dtype and writeability), looks up the kernel
 * chain, and obtains all memory before any output byte is written: the
 * output when it is allocated here, a copy of the input when a provided
 * output overlaps it other than element for element, and one scratch block
 * holding a gather buffer (input slices that are strided, misaligned or
 * sorted in place), an output buffer (output slices that are strided or
 * misaligned, copied out after the kernel) and the kernel's workspace, all
 * sized for one slice and reused for every slice. Execution walks ranges
 * of slices: each range needs only its own scratch and FP flag sink (the
 * built-in kernels raise no flags; a hooked one may), which is what a
 * thread pool hands to a worker.
 *
 * The output must have the result dtype (a's, or int64 for the arg ops):
 * ncl/sort.h says so, and a sort is a permutation, not arithmetic that a
 * cast could follow.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "defaults/ncl_defaults.h"
#include "exec/ncl_exec.h"
#include "hooks/ncl_hooks.h"
#include "runtime/pool.h"
#include "sort/sort_kernel.h"
#include "sort/sort_keys.h"

#define WHO "NclSort(%s)"

typedef struct sort_plan {
    NclSortOp op;
    const char *name;          /* the op's name, for messages */
    NclDType sig[2];           /* the kernel's dtypes: a's, then the result's */
    size_t isz, rsz;           /* item sizes of a and of the result */
    int64_t n;                 /* slice length (the axis' extent) */
    int64_t nslices;
    int outer;                 /* dimensions other than the axis */
    int64_t oshape[NCL_MAXDIMS];
    int64_t istr[NCL_MAXDIMS]; /* input strides over the outer dimensions */
    int64_t ostr[NCL_MAXDIMS]; /* output strides over them */
    const char *idata;         /* first input element (a's, or its copy's) */
    int64_t istep;             /* input stride along the axis */
    char *odata;
    int64_t ostep;
    int gather;                /* input slices go through the gather buffer */
    int direct;                /* the kernel writes output slices in place */
    NclKernelNode *kernel;
    int builtin;               /* kernel is the built-in one (no hook in front) */
    int kind;
    int64_t kth;
    size_t gbytes, obytes, wbytes; /* scratch regions, each 64-byte aligned */
    ncl_buffer *scratch;
    ncl_buffer *copy;          /* the input's copy, when the output overlaps it */
    NclArray *result;
    int allocated;
} sort_plan;

NCL_INLINE size_t round64(size_t x) { return (x + 63) & ~(size_t)63; }

/* ---- validation helpers ------------------------------------------------------- */

/* Whether out's elements are exactly a's, position by position. */
static int exact_alias(const NclArray *a, const NclArray *out)
{
    if (a->data != out->data || a->itemsize != out->itemsize) return 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] > 1 && a->strides[d] != out->strides[d]) return 0;
    return 1;
}

/* The axis the call sorts along, NumPy's rules and messages. */
static NclStatus resolve_axis(const char *name, const NclArray *a, const NclParams *p, int *axis)
{
    int ax = -1;
    if (p->axes != NULL) {
        if (p->naxes != 1)
            return ncl_error(NCL_ERR_AXIS,
                             WHO ": sorting takes exactly one axis; params->naxes is %d", name,
                             p->naxes);
        ax = p->axes[0];
    }
    if (ax < -a->ndim || ax >= a->ndim)
        return ncl_error(NCL_ERR_AXIS, WHO ": axis %d is out of bounds for array of dimension %d",
                         name, ax, a->ndim);
    *axis = ax < 0 ? ax + a->ndim : ax;
    return NCL_OK;
}

/* ---- copies ------------------------------------------------------------------ */

/* n elements of size isz from src (stride sstep) to dst (stride dstep).
   Indexed rather than bumped pointers, so no pointer is formed outside the
   operands (strides may be negative). */
static void copy_strided(char *dst, int64_t dstep, const char *src, int64_t sstep, int64_t n,
                         size_t isz)
{
    switch (isz) {
#define COPY_CASE_(size)                                                              \
    case size:                                                                        \
        for (int64_t i = 0; i < n; i++) memcpy(dst + i * dstep, src + i * sstep, size); \
        return;
        COPY_CASE_(1)
        COPY_CASE_(2)
        COPY_CASE_(4)
        COPY_CASE_(8)
#undef COPY_CASE_
    default:
        for (int64_t i = 0; i < n; i++) memcpy(dst + i * dstep, src + i * sstep, isz);
        return;
    }
}

/* ---- planning ------------------------------------------------------------------ */

static NclStatus check_output(const sort_plan *pl, const NclArray *a, const NclArray *o)
{
    char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
    const char *name = pl->name;
    if (o->kind == NCL_MEM_DEVICE)
        return ncl_error(NCL_ERR_DEVICE_MEMORY,
                         WHO ": the output is device memory (device %d); host kernels cannot "
                         "touch it", name, o->device_id);
    if (!(o->flags & NCL_ARRAY_WRITEABLE))
        return ncl_error(NCL_ERR_READONLY, WHO ": the output array is read-only", name);
    int same = o->ndim == a->ndim;
    for (int d = 0; same && d < a->ndim; d++) same = o->shape[d] == a->shape[d];
    if (!same)
        return ncl_error(NCL_ERR_SHAPE, WHO ": the output has shape %s; the result has shape %s",
                         name, ncl_shape_str(s0, o->ndim, o->shape),
                         ncl_shape_str(s1, a->ndim, a->shape));
    if (o->dtype != pl->sig[1])
        return ncl_error(NCL_ERR_DTYPE,
                         WHO ": the output is %s; %s of %s gives %s, which the output must be",
                         name, NclDTypeName(o->dtype), name, NclDTypeName(a->dtype),
                         NclDTypeName(pl->sig[1]));
    if (ncl_array_has_internal_overlap(o))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         WHO ": the output has internal overlap (strides %s over shape %s)", name,
                         ncl_shape_str(s0, o->ndim, o->strides),
                         ncl_shape_str(s1, o->ndim, o->shape));
    return NCL_OK;
}

/* Validates the call and fills in everything but memory. */
static NclStatus plan_check(sort_plan *pl, NclSortOp op, const NclArray *a, NclArray *o,
                            const NclParams *p, int *axis)
{
    const char *name = pl->name;
    char s0[NCL_SHAPE_STR];
    NclStatus st;
    if (p->kind != NCL_SORT_DEFAULT && p->kind != NCL_SORT_STABLE)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         WHO ": params->kind %d is not a sort kind (NCL_SORT_DEFAULT 0 or "
                         "NCL_SORT_STABLE 1)", name, p->kind);
    if (p->where != NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, WHO ": params->where is not supported by "
                         "sorting; pass NULL", name);
    if (a->kind == NCL_MEM_DEVICE)
        return ncl_error(NCL_ERR_DEVICE_MEMORY,
                         WHO ": the input is device memory (device %d); host kernels cannot "
                         "touch it", name, a->device_id);
    if ((st = resolve_axis(name, a, p, axis))) return st;
    const int64_t n = a->shape[*axis];
    if (op == NCL_PARTITION || op == NCL_ARGPARTITION) {
        if (p->kth < -n || p->kth >= n)
            return ncl_error(NCL_ERR_INDEX,
                             WHO ": kth %lld is out of bounds for axis %d of length %lld "
                             "(array shape %s)",
                             name, (long long)p->kth, *axis, (long long)n,
                             ncl_shape_str(s0, a->ndim, a->shape));
        pl->kth = p->kth < 0 ? p->kth + n : p->kth;
    } else {
        pl->kth = 0;
    }
    pl->kind = p->kind;
    pl->sig[0] = a->dtype;
    pl->sig[1] = (op == NCL_ARGSORT || op == NCL_ARGPARTITION) ? NCL_INT64 : a->dtype;
    if (p->dtype != NCL_DTYPE_DEFAULT && p->dtype != pl->sig[1])
        return ncl_error(NCL_ERR_DTYPE,
                         WHO ": params->dtype is %s, but the result of %s of %s is %s (use "
                         "NCL_DTYPE_DEFAULT, or an output of the dtype wanted)",
                         name, NclDTypeName(p->dtype), name, NclDTypeName(a->dtype),
                         NclDTypeName(pl->sig[1]));
    if (o && (st = check_output(pl, a, o))) return st;
    ncl_kchain *chain = ncl_kernel_chain(NCL_SUBSYSTEM_SORT, (int)op, pl->sig, 2);
    if (chain == NULL)
        return ncl_error(NCL_ERR_DTYPE, WHO ": no %s kernel for %s", name, name,
                         NclDTypeName(a->dtype));
    pl->kernel = ncl_kernel_first(chain);
    pl->builtin = pl->kernel == chain->builtin;
    return NCL_OK;
}

/* Splits the arrays into the axis and the outer dimensions. */
static void plan_geometry(sort_plan *pl, const NclArray *a, const int64_t *istrides,
                          const NclArray *o, int axis)
{
    pl->n = a->shape[axis];
    pl->istep = istrides[axis];
    pl->ostep = o->strides[axis];
    pl->outer = 0;
    pl->nslices = 1;
    for (int d = 0; d < a->ndim; d++) {
        if (d == axis) continue;
        pl->oshape[pl->outer] = a->shape[d];
        pl->istr[pl->outer] = istrides[d];
        pl->ostr[pl->outer] = o->strides[d];
        pl->outer++;
        pl->nslices *= a->shape[d];
    }
    pl->odata = o->data;
}

static void plan_release(sort_plan *pl, NclStatus st)
{
    ncl_buffer_release(pl->scratch);
    ncl_buffer_release(pl->copy);
    pl->scratch = pl->copy = NULL;
    if (pl->allocated && st != NCL_OK) {
        NclArrayRelease(pl->result);
        pl->result = NULL;
    }
}

/* ---- execution ----------------------------------------------------------------- */

/* Runs slices [s0, s1) with the scratch block at base (gather buffer, output
   buffer, workspace), as worker `worker`, ORing FP flags into *fpe. */
static NclStatus run_slices(const sort_plan *pl, int64_t s0, int64_t s1, char *base, int worker,
                            int nworkers, int *fpe)
{
    /* base is NULL when the call needs no scratch at all (then no part of
       it is used): null pointer arithmetic is undefined even by zero. */
    char *g = base, *obuf = base, *work = base;
    if (base != NULL) {
        obuf = base + round64(pl->gbytes);
        work = obuf + round64(pl->obytes);
    }
    ncl_sort_aux aux = {pl->wbytes ? work : NULL, pl->wbytes, pl->kind, pl->kth, NULL};
    NclKernelCtx ctx = {NCL_SUBSYSTEM_SORT, (int)pl->op, 1, 1, pl->sig, worker, s0, fpe, &aux,
                       NCL_ACCURACY_HIGH, nworkers};
    const int64_t steps[2] = {(int64_t)pl->isz, (int64_t)pl->rsz};

    int64_t idx[NCL_MAXDIMS];
    const char *ip = pl->idata;
    char *op = pl->odata;
    int64_t q = s0;
    for (int d = pl->outer - 1; d >= 0; d--) {
        idx[d] = q % pl->oshape[d];
        q /= pl->oshape[d];
        ip += idx[d] * pl->istr[d];
        op += idx[d] * pl->ostr[d];
    }
    for (int64_t s = s0; s < s1; s++) {
        char *args[2];
        if (pl->gather) {
            copy_strided(g, (int64_t)pl->isz, ip, pl->istep, pl->n, pl->isz);
            args[0] = g;
        } else {
            args[0] = (char *)ip;
        }
        args[1] = pl->direct ? op : obuf;
        ctx.chunk = s;
        NclStatus st = pl->kernel->fn(pl->kernel, &ctx, args, pl->n, steps);
        if (st) return st;
        if (!pl->direct) copy_strided(op, pl->ostep, obuf, (int64_t)pl->rsz, pl->n, pl->rsz);
        if (s + 1 == s1) break; /* no pointer past the last slice */
        for (int d = pl->outer - 1; d >= 0; d--) { /* the odometer */
            if (++idx[d] < pl->oshape[d]) {
                ip += pl->istr[d];
                op += pl->ostr[d];
                break;
            }
            ip -= pl->istr[d] * (pl->oshape[d] - 1);
            op -= pl->ostr[d] * (pl->oshape[d] - 1);
            idx[d] = 0;
        }
    }
    return NCL_OK;
}

/* ---- splitting across the pool --------------------------------------------------- */

/* Many slices: thread t runs slices [ns * t / nt, ns * (t + 1) / nt) with
   its own scratch block.

   One long slice (SORT, ARGSORT) is split by value, so that no merge
   follows. Element i becomes the record (key, i): key is the bkey for a
   value sort of the default kind (its result orders every bit pattern and
   is unique), else the ckey (NumPy's equality classes, ties in input
   order). Records are all distinct, so nt - 1 splitter records drawn from
   a sample cut the slice into nt ranges of about n / nt elements each,
   however many duplicates it holds. Each thread counts how many elements
   of its part of the slice fall in each range; the parts are then
   scattered stably into one buffer, range after range (thread order is
   input order); and each thread sorts one range with the kernel, straight
   into its place in the result. A range holds exactly the elements of an
   interval of the sort order, in input order, so its sort is the piece of
   the whole sort found there: the same bits for any thread count.

   A value sort of 8-byte keys by the built-in kernel (no hook in front of
   it) of a contiguous slice instead runs that kernel in phases
   (sort_kernel.h): its own top-level radix count and scatter, then its
   buckets, each phase shared out across the threads. That saves the two
   passes of the split above, and a hook never sees a phase call. */
typedef struct sort_job {
    const sort_plan *pl;
    char *base;            /* scratch: one block per thread (many slices) */
    size_t block;          /* bytes per thread block (many slices) */
    int nt;
    /* one long slice */
    char *dst;             /* the result, contiguous */
    char *vals;            /* the slice's elements, range after range */
    int64_t *idx;          /* ARGSORT: their positions in the slice */
    int64_t *counts;       /* nt x nt: [t][r] elements of part t in range r, then
                              where part t's first one goes */
    char *work;            /* the kernels' workspaces, one after the other */
    int canon;             /* records order ckeys (else bkeys) */
    uint64_t *skey;        /* nt - 1 splitter records, ascending: range r takes */
    int64_t *sidx;         /* the records at or above splitter r - 1 */
    int64_t *bounds;       /* range r is [bounds[r], bounds[r + 1]) */
    size_t *wofs;          /* range r's workspace starts at work + wofs[r] */
    ncl_sort_msd *msd;     /* a value sort in phases: their state */
    size_t wbytes;         /* and the bytes at work */
} sort_job;

/* Fewest elements per thread for which one slice is split. */
#define SORT_SPLIT_MIN 256

/* Sample records per thread that the splitters are drawn from. */
#define SORT_SAMPLE 512

typedef struct sort_rec {
    uint64_t key;
    int64_t i;
} sort_rec;

NCL_INLINE uint64_t split_key(const char *p, NclDType dt, int canon)
{
    const uint64_t u = sk_load(p, ncl_sort_width(dt));
    return canon ? sk_ckey(u, dt) : sk_bkey(u, dt);
}

static int rec_cmp(const void *a, const void *b)
{
    const sort_rec *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* The range of record (k, i): how many splitters are at or below it. */
NCL_INLINE int split_range(const sort_job *j, uint64_t k, int64_t i)
{
    int lo = 0, len = j->nt - 1;
    while (len > 0) {
        const int half = len >> 1, m = lo + half;
        if (j->skey[m] < k || (j->skey[m] == k && j->sidx[m] <= i)) {
            lo = m + 1;
            len -= half + 1;
        } else {
            len = half;
        }
    }
    return lo;
}

/* Part t of the slice: counts its elements per range, or (scatter)
   writes them to their ranges. two: nt == 2, one comparison. */
NCL_INLINE void split_part(const sort_job *j, int64_t t, NclDType dt, int canon, int scatter,
                           int two)
{
    const sort_plan *pl = j->pl;
    const int64_t n = pl->n, lo = n * t / j->nt, hi = n * (t + 1) / j->nt;
    const size_t w = (size_t)ncl_sort_width(dt);
    const int arg = pl->op == NCL_ARGSORT;
    int64_t *row = j->counts + t * j->nt;
    const uint64_t s0 = j->skey[0];
    const int64_t i0 = j->sidx[0];
    if (!scatter && two) { /* a sum in a register, no store-to-load chain through row */
        int64_t upper = 0;
        for (int64_t i = lo; i < hi; i++) {
            const uint64_t k = split_key(pl->idata + i * pl->istep, dt, canon);
            upper += (k > s0) | ((k == s0) & (i >= i0));
        }
        row[0] = hi - lo - upper;
        row[1] = upper;
        return;
    }
    const char *const in = pl->idata;
    const int64_t is = pl->istep;
    if (scatter && two) {
        /* the two write positions in registers: a store through vals (char)
           could alias row[r], which would reload it for every element */
        char *const vals = j->vals;
        int64_t *const idx = j->idx;
        int64_t at[2] = {row[0], row[1]};
        for (int64_t i = lo; i < hi; i++) {
            const char *p = in + i * is;
            const uint64_t k = split_key(p, dt, canon);
            const int r = (k > s0) | ((k == s0) & (i >= i0));
            const int64_t pos = r ? at[1] : at[0];
            memcpy(vals + (size_t)pos * w, p, w);
            if (arg) idx[pos] = i;
            at[0] += !r;
            at[1] += r;
        }
        return;
    }
    if (!scatter) memset(row, 0, (size_t)j->nt * sizeof *row);
    for (int64_t i = lo; i < hi; i++) {
        const char *p = in + i * is;
        const uint64_t k = split_key(p, dt, canon);
        const int r = two ? (k > s0) | ((k == s0) & (i >= i0)) : split_range(j, k, i);
        if (!scatter) {
            row[r]++;
            continue;
        }
        const int64_t pos = row[r]++;
        memcpy(j->vals + (size_t)pos * w, p, w);
        if (arg) j->idx[pos] = i;
    }
}

/* One instance per key dtype, so that the key and copy inline. */
#define SORT_SPLIT_FN(name, dt)                                                  \
    static void name(const sort_job *j, int64_t t, int scatter)                  \
    {                                                                            \
        const int two = j->nt == 2;                                              \
        if (j->canon) {                                                          \
            if (scatter) two ? split_part(j, t, dt, 1, 1, 1) : split_part(j, t, dt, 1, 1, 0); \
            else two ? split_part(j, t, dt, 1, 0, 1) : split_part(j, t, dt, 1, 0, 0);        \
        } else {                                                                 \
            if (scatter) two ? split_part(j, t, dt, 0, 1, 1) : split_part(j, t, dt, 0, 1, 0); \
            else two ? split_part(j, t, dt, 0, 0, 1) : split_part(j, t, dt, 0, 0, 0);        \
        }                                                                        \
    }
SORT_SPLIT_FN(split_u8, NCL_UINT8)
SORT_SPLIT_FN(split_i8, NCL_INT8)
SORT_SPLIT_FN(split_i16, NCL_INT16)
SORT_SPLIT_FN(split_u16, NCL_UINT16)
SORT_SPLIT_FN(split_i32, NCL_INT32)
SORT_SPLIT_FN(split_u32, NCL_UINT32)
SORT_SPLIT_FN(split_i64, NCL_INT64)
SORT_SPLIT_FN(split_u64, NCL_UINT64)
SORT_SPLIT_FN(split_f32, NCL_FLOAT32)
SORT_SPLIT_FN(split_f64, NCL_FLOAT64)
#undef SORT_SPLIT_FN

typedef void (*split_fn)(const sort_job *j, int64_t t, int scatter);

static split_fn split_for(NclDType dt)
{
    switch (dt) {
    case NCL_INT8: return split_i8;
    case NCL_INT16: return split_i16;
    case NCL_UINT16: return split_u16;
    case NCL_INT32: return split_i32;
    case NCL_UINT32: return split_u32;
    case NCL_INT64: return split_i64;
    case NCL_UINT64: return split_u64;
    case NCL_FLOAT32: return split_f32;
    case NCL_FLOAT64: return split_f64;
    default: return split_u8; /* bool's keys are its bytes */
    }
}

/* Many slices: task t is thread t's range of slices. */
static NclStatus slices_task(void *arg, int worker, int64_t task, int *fpe)
{
    const sort_job *j = arg;
    const int64_t ns = j->pl->nslices;
    const int64_t s0 = ns * task / j->nt, s1 = ns * (task + 1) / j->nt;
    if (s0 >= s1) return NCL_OK;
    /* No arithmetic on a null base: a call that needs no scratch has none. */
    char *scratch = j->base ? j->base + (size_t)worker * j->block : NULL;
    return run_slices(j->pl, s0, s1, scratch, worker, j->nt, fpe);
}

/* One long slice, phase 1: task t counts part t per range. */
static NclStatus count_task(void *arg, int worker, int64_t task, int *fpe)
{
    (void)worker;
    (void)fpe;
    const sort_job *j = arg;
    split_for(j->pl->sig[0])(j, task, 0);
    return NCL_OK;
}

/* Phase 2: task t scatters part t. */
static NclStatus scatter_task(void *arg, int worker, int64_t task, int *fpe)
{
    (void)worker;
    (void)fpe;
    const sort_job *j = arg;
    split_for(j->pl->sig[0])(j, task, 1);
    return NCL_OK;
}

/* Phase 3: task r sorts range r into its place; ARGSORT's range-local
   indices then become slice positions. */
static NclStatus range_task(void *arg, int worker, int64_t task, int *fpe)
{
    const sort_job *j = arg;
    const sort_plan *pl = j->pl;
    const int64_t lo = j->bounds[task], m = j->bounds[task + 1] - lo;
    if (m == 0) return NCL_OK;
    const size_t wb = ncl_sort_work_bytes((int)pl->op, pl->sig[0], pl->kind, m);
    ncl_sort_aux aux = {wb ? j->work + j->wofs[task] : NULL, wb, pl->kind, 0, NULL};
    NclKernelCtx ctx = {NCL_SUBSYSTEM_SORT, (int)pl->op, 1, 1, pl->sig, worker, task, fpe, &aux,
                        NCL_ACCURACY_HIGH, j->nt};
    const int64_t steps[2] = {(int64_t)pl->isz, (int64_t)pl->rsz};
    char *args[2] = {j->vals + (size_t)lo * pl->isz, j->dst + (size_t)lo * pl->rsz};
    NclStatus st = pl->kernel->fn(pl->kernel, &ctx, args, m, steps);
    if (st || pl->op != NCL_ARGSORT) return st;
    for (int64_t k = 0; k < m; k++) {
        int64_t ix;
        memcpy(&ix, args[1] + 8 * k, 8);
        if ((uint64_t)ix >= (uint64_t)m) return NCL_ERR_INVALID_ARGUMENT; /* not a permutation */
        memcpy(args[1] + 8 * k, &j->idx[lo + ix], 8);
    }
    return NCL_OK;
}

/* A value sort in phases: the kernel's call for part `task` of the
   current phase, or (PLAN) its one call between phases. */
static NclStatus phase_task(void *arg, int worker, int64_t task, int *fpe)
{
    const sort_job *j = arg;
    const sort_plan *pl = j->pl;
    ncl_sort_aux aux = {j->work, j->wbytes, pl->kind, 0, j->msd};
    NclKernelCtx ctx = {NCL_SUBSYSTEM_SORT, (int)pl->op, 1, 1, pl->sig, worker, task, fpe, &aux,
                        NCL_ACCURACY_HIGH, j->nt};
    const int64_t steps[2] = {(int64_t)pl->isz, (int64_t)pl->rsz};
    char *args[2] = {(char *)pl->idata, j->dst};
    return pl->kernel->fn(pl->kernel, &ctx, args, pl->n, steps);
}

static NclStatus sort_phases(sort_job *j, int *fpe, int *used)
{
    ncl_sort_msd m;
    memset(&m, 0, sizeof m);
    m.nparts = j->nt;
    m.next = NCL_SORT_MSD_COUNT;
    j->msd = &m;
    for (int first = 1;; first = 0) {
        m.phase = m.next;
        NclStatus st = ncl_pool_run(j->nt, j->nt, phase_task, j, 0, fpe, first ? used : NULL);
        if (st) return st;
        m.phase = NCL_SORT_MSD_PLAN;
        if ((st = phase_task(j, 0, 0, fpe))) return st;
        if (m.next == NCL_SORT_MSD_DONE) return NCL_OK;
    }
}

/* Sample records for the splitters of n elements on nt threads. */
NCL_INLINE int64_t split_samples(int64_t n, int nt)
{
    int64_t s = (int64_t)SORT_SAMPLE * nt;
    if (s > 65536) s = 65536;
    return s < n ? s : n;
}

/* Sorts the one slice of pl across j->nt threads into j->dst; sample holds
   split_samples() records. */
static NclStatus sort_split(sort_job *j, sort_rec *sample, int *fpe, int *used)
{
    const sort_plan *pl = j->pl;
    const int64_t n = pl->n, ns = split_samples(n, j->nt);
    const NclDType dt = pl->sig[0];
    const int nt = j->nt;
    /* evenly spaced samples: any choice gives the same result, this one
       balances sorted and random input alike */
    for (int64_t s = 0; s < ns; s++) {
        const int64_t i = (2 * s + 1) * n / (2 * ns);
        sample[s].key = split_key(pl->idata + i * pl->istep, dt, j->canon);
        sample[s].i = i;
    }
    qsort(sample, (size_t)ns, sizeof *sample, rec_cmp);
    for (int r = 1; r < nt; r++) {
        const sort_rec *q = &sample[ns * r / nt];
        j->skey[r - 1] = q->key;
        j->sidx[r - 1] = q->i;
    }
    NclStatus st = ncl_pool_run(nt, nt, count_task, j, 0, fpe, used);
    if (st) return st;
    /* counts to scatter positions, range by range, part by part */
    int64_t pos = 0;
    size_t wofs = 0;
    for (int r = 0; r < nt; r++) {
        j->bounds[r] = pos;
        for (int t = 0; t < nt; t++) {
            const int64_t c = j->counts[t * nt + r];
            j->counts[t * nt + r] = pos;
            pos += c;
        }
        j->wofs[r] = wofs;
        wofs += round64(ncl_sort_work_bytes((int)pl->op, dt, pl->kind, pos - j->bounds[r]));
    }
    j->bounds[nt] = pos;
    if ((st = ncl_pool_run(nt, nt, scatter_task, j, 0, fpe, NULL))) return st;
    return ncl_pool_run(nt, nt, range_task, j, 0, fpe, NULL);
}

/* ---- the default implementation ------------------------------------------------------ */

/* A sort op along one axis (SORT .. ARGPARTITION) with params read: what
   ncl_default_sort runs, and what the unique ops sort their flattened
   input with. */
static NclStatus sort_axis(NclSortOp op, const NclArray *a, NclArray **out, const NclParams *pp)
{
    const NclSubsystem sub = NCL_SUBSYSTEM_SORT;
    const NclParams p = *pp;
    sort_plan pl;
    memset(&pl, 0, sizeof pl);
    pl.op = op;
    pl.name = ncl_op_name(sub, (int)op);
    NclStatus st;
    NclArray *o = *out;
    int axis = 0;
    if ((st = plan_check(&pl, op, a, o, &p, &axis))) return st;
    pl.isz = a->itemsize;
    pl.rsz = ncl_dtype_size[pl.sig[1]];

    /* Memory, all of it before the first output byte: the output... */
    if (o == NULL) {
        const int fortran = (a->flags & NCL_ARRAY_F_CONTIGUOUS) && !(a->flags & NCL_ARRAY_C_CONTIGUOUS);
        st = ncl_array_alloc("NclSort", pl.sig[1], a->ndim, a->shape,
                             fortran ? NCL_ORDER_F : NCL_ORDER_C, 0, &pl.result);
        if (st) return st;
        pl.allocated = 1;
        o = pl.result;
    } else {
        pl.result = o;
    }

    /* ... a copy of the input when the output overlaps it other than element
       for element (then slices are independent and each is gathered before
       its output is written) ... */
    const char *idata = a->data;
    int64_t cstrides[NCL_MAXDIMS];
    const int64_t *istrides = a->strides;
    int in_place = 0;
    if (!pl.allocated && a->size > 0 && ncl_array_ranges_overlap(a, o)) {
        if (exact_alias(a, o)) {
            in_place = 1;
        } else {
            st = ncl_scratch_alloc("NclSort", (size_t)a->size * a->itemsize, &pl.copy);
            if (st) {
                plan_release(&pl, st);
                return st;
            }
            ncl_array_copy_c_order(a, pl.copy->base);
            idata = pl.copy->base;
            int64_t s = (int64_t)a->itemsize;
            for (int d = a->ndim - 1; d >= 0; d--) {
                cstrides[d] = s;
                s *= a->shape[d];
            }
            istrides = cstrides;
        }
    }
    plan_geometry(&pl, a, istrides, o, axis);
    pl.idata = idata;

    /* ... and the scratch block for one slice. */
    const int64_t n = pl.n;
    const int in_aligned = pl.copy != NULL || (a->flags & NCL_ARRAY_ALIGNED);
    pl.gather = in_place || !in_aligned || pl.istep != (int64_t)pl.isz;
    pl.direct = (o->flags & NCL_ARRAY_ALIGNED) && pl.ostep == (int64_t)pl.rsz;
    pl.gbytes = pl.gather ? (size_t)n * pl.isz : 0;
    pl.obytes = pl.direct ? 0 : (size_t)n * pl.rsz;
    pl.wbytes = ncl_sort_work_bytes((int)op, a->dtype, pl.kind, n);
    /* Threads: slices across them, or one long slice split by value. */
    sort_job job;
    job.pl = &pl;
    int nt = a->size > 0 ? ncl_pool_threads(a->size * NCL_COST_SORT) : 1;
    int split = 0, phases = 0;
    size_t total = 0, wsplit = 0, meta = 0, sbytes = 0, vbytes = 0, ibytes = 0;
    if (nt > 1 && pl.nslices >= 2) {
        if (pl.nslices < nt) nt = (int)pl.nslices;
    } else if (nt > 1 && pl.nslices == 1 && pl.builtin && !pl.gather &&
               ncl_sort_msd_ok((int)op, a->dtype, pl.kind, n, nt)) {
        /* the output buffer and the kernel's workspace */
        phases = 1;
        wsplit = ncl_sort_msd_work_bytes(n, nt);
        total = wsplit == SIZE_MAX ? SIZE_MAX : round64(pl.obytes) + wsplit;
    } else if (nt > 1 && pl.nslices == 1 && (op == NCL_SORT || op == NCL_ARGSORT) &&
               n >= (int64_t)SORT_SPLIT_MIN * nt) {
        /* the output buffer, the elements by range (and their positions),
           the sample, counts and range bounds, and the ranges' workspaces */
        split = 1;
        wsplit = ncl_sort_ranges_work_bytes((int)op, a->dtype, pl.kind, n, nt);
        vbytes = round64((size_t)n * pl.isz);
        ibytes = op == NCL_ARGSORT ? round64((size_t)n * 8) : 0;
        sbytes = round64((size_t)split_samples(n, nt) * sizeof(sort_rec));
        meta = round64(((size_t)nt * (size_t)nt + 4 * (size_t)nt + 1) * 8);
        total = round64(pl.obytes) + vbytes + ibytes + sbytes + meta;
        total = wsplit > SIZE_MAX / 2 || total > SIZE_MAX / 2 ? SIZE_MAX : total + round64(wsplit);
    } else {
        nt = 1;
    }
    job.nt = nt;
    job.block = round64(pl.gbytes) + round64(pl.obytes) + round64(pl.wbytes);
    if (!split && !phases) total = job.block * (size_t)nt;

    if (a->size > 0) {
        if (pl.wbytes == SIZE_MAX || pl.wbytes > SIZE_MAX / 2 || total == SIZE_MAX) {
            st = ncl_error(NCL_ERR_NO_MEMORY, WHO ": the workspace for slices of %lld elements "
                           "does not fit in memory", pl.name, (long long)n);
            plan_release(&pl, st);
            return st;
        }
        if (total > 0) {
            /* + 64 so that the block can start on a 64-byte boundary whatever
               the handler's alignment */
            st = ncl_scratch_alloc("NclSort", total + 64, &pl.scratch);
            if (st) {
                plan_release(&pl, st);
                return st;
            }
        }
    }

    /* Execute. */
    int used = 1;
    if (a->size > 0) {
        char *base = NULL;
        if (pl.scratch) {
            uintptr_t b = (uintptr_t)pl.scratch->base;
            base = (char *)pl.scratch->base + ((64 - (b & 63)) & 63);
        }
        job.base = base;
        int fpe = 0;
        ncl_fpe_saved saved;
        ncl_fpe_begin(&saved);
        if (phases || split) {
            /* one long slice into the output, or the output buffer */
            char *sp = base + round64(pl.obytes);
            job.dst = pl.direct ? pl.odata : base;
            if (phases) {
                job.work = sp;
                job.wbytes = wsplit;
                st = sort_phases(&job, &fpe, &used);
            } else {
                /* the input is read where it is (no gather: nothing is
                   written to the output before the last phase) */
                job.vals = sp;
                job.idx = ibytes ? (int64_t *)(void *)(sp + vbytes) : NULL;
                sort_rec *sample = (sort_rec *)(void *)(sp + vbytes + ibytes);
                job.counts = (int64_t *)(void *)(sp + vbytes + ibytes + sbytes);
                job.bounds = job.counts + (size_t)nt * (size_t)nt;
                job.skey = (uint64_t *)(job.bounds + nt + 1);
                job.sidx = (int64_t *)(job.skey + nt);
                job.wofs = (size_t *)(void *)(job.sidx + nt);
                job.work = sp + vbytes + ibytes + sbytes + meta;
                job.canon = op == NCL_ARGSORT || pl.kind == NCL_SORT_STABLE;
                st = sort_split(&job, sample, &fpe, &used);
            }
            if (!st && !pl.direct)
                copy_strided(pl.odata, pl.ostep, base, (int64_t)pl.rsz, n, pl.rsz);
        } else if (nt > 1) {
            st = ncl_pool_run(nt, nt, slices_task, &job, 0, &fpe, &used);
        } else {
            st = run_slices(&pl, 0, pl.nslices, base, 0, 1, &fpe);
        }
        fpe |= ncl_fpe_end(&saved);
        ncl_tls.fpe_flags |= fpe;
        if (st)
            ncl_error(st, WHO ": kernel %s failed with status %d (%s)", pl.name,
                      pl.kernel->name ? pl.kernel->name : "(unnamed)", (int)st,
                      NclStatusString(st));
        else if (fpe)
            st = ncl_fpe_raise_early(sub, (int)op);
    }
    ncl_last_call.elements = a->size;
    ncl_last_call.bytes = a->size * (int64_t)(pl.isz + pl.rsz);
    ncl_last_call.kernel = pl.kernel->name ? pl.kernel->name : "(unnamed)";
    ncl_last_call.threads = used;

    NclArray *result = pl.result;
    const int allocated = pl.allocated;
    plan_release(&pl, st);
    if (st == NCL_OK && allocated) *out = result;
    return st;
}

/* ---- unique ------------------------------------------------------------------------------

   np.unique(a) with axis=None: a flattened in C order and sorted, then one
   pass over the sorted order finds the runs of equal elements. UNIQUE_VALUES
   and UNIQUE_COUNTS sort a copy of the values (the stable SORT path above,
   threads and all) and compact it; UNIQUE_INVERSE and UNIQUE_ALL need to know where
   each element came from, so they take the stable ARGSORT of the flattened
   array and walk it (as NumPy does): a run's first index is then its first
   occurrence. Equal means NumPy's equality classes with equal_nan: the sort
   keys' ckey (-0.0 is 0.0, every NaN one NaN), integers by their bits.

   Plan, then execute: the flattened copy, the sorted values or
   permutation and the inverse's buffer are obtained first; one pass counts
   the distinct values k, which fixes the outputs' shapes; provided outputs
   are checked against them and the missing ones allocated; only then is
   anything written. */

/* Which outputs an op has, in slot order. */
enum { U_VALUES, U_INDICES, U_INVERSE, U_COUNTS, U_NKINDS };
static int unique_slots(NclSortOp op, int *kinds)
{
    switch (op) {
    case NCL_UNIQUE_VALUES: kinds[0] = U_VALUES; return 1;
    case NCL_UNIQUE_COUNTS: kinds[0] = U_VALUES; kinds[1] = U_COUNTS; return 2;
    case NCL_UNIQUE_INVERSE: kinds[0] = U_VALUES; kinds[1] = U_INVERSE; return 2;
    default:
        kinds[0] = U_VALUES; kinds[1] = U_INDICES; kinds[2] = U_INVERSE; kinds[3] = U_COUNTS;
        return 4;
    }
}

static const char *const unique_out_names[U_NKINDS] = {"values", "indices", "inverse", "counts"};

/* The equality key of the element at p: ckey (floats by NumPy's classes,
   integers by their bits). dt is constant where this is inlined. */
NCL_INLINE uint64_t ukey(const char *p, NclDType dt)
{
    return sk_ckey(sk_load(p, ncl_sort_width(dt)), dt);
}

/* The number of runs of equal elements in the n sorted values at v. */
NCL_INLINE int64_t runs_sorted_body(const char *v, int64_t n, NclDType dt)
{
    if (n == 0) return 0;
    const int w = ncl_sort_width(dt);
    int64_t k = 1;
    uint64_t prev = ukey(v, dt);
    for (int64_t i = 1; i < n; i++) {
        const uint64_t cur = ukey(v + i * w, dt);
        k += cur != prev;
        prev = cur;
    }
    return k;
}

/* UNIQUE_VALUES / UNIQUE_COUNTS: the first element of each run of the n
   sorted values at v to vals (byte step vs), and the run lengths to cnt
   (step cs) when cnt is not NULL. */
NCL_INLINE void compact_sorted_body(const char *v, int64_t n, char *vals, int64_t vs, char *cnt,
                                    int64_t cs, NclDType dt)
{
    if (n == 0) return;
    const int w = ncl_sort_width(dt);
    int64_t j = 0, start = 0;
    uint64_t prev = ukey(v, dt);
    memcpy(vals, v, (size_t)w);
    for (int64_t i = 1; i < n; i++) {
        const uint64_t cur = ukey(v + i * w, dt);
        if (cur == prev) continue;
        if (cnt) ncl_store_int64_t(cnt + j * cs, i - start);
        j++;
        start = i;
        prev = cur;
        memcpy(vals + j * vs, v + i * w, (size_t)w);
    }
    if (cnt) ncl_store_int64_t(cnt + j * cs, n - start);
}

/* The number of runs of equal elements of the n elements at x (contiguous)
   in the order of the permutation perm. */
NCL_INLINE int64_t runs_perm_body(const char *x, const int64_t *perm, int64_t n, NclDType dt)
{
    if (n == 0) return 0;
    const int w = ncl_sort_width(dt);
    int64_t k = 1;
    uint64_t prev = ukey(x + perm[0] * w, dt);
    for (int64_t i = 1; i < n; i++) {
        const uint64_t cur = ukey(x + perm[i] * w, dt);
        k += cur != prev;
        prev = cur;
    }
    return k;
}

/* UNIQUE_INVERSE / UNIQUE_ALL: walks x in the (stable) order perm; each
   run's first element to vals, its position to idx (when not NULL), its
   length to cnt (when not NULL), and the run's number to inv[perm[i]]
   (contiguous int64). */
NCL_INLINE void compact_perm_body(const char *x, const int64_t *perm, int64_t n, char *vals,
                                  int64_t vs, char *idx, int64_t is, char *cnt, int64_t cs,
                                  int64_t *inv, NclDType dt)
{
    if (n == 0) return;
    const int w = ncl_sort_width(dt);
    int64_t j = 0, start = 0;
    uint64_t prev = ukey(x + perm[0] * w, dt);
    memcpy(vals, x + perm[0] * w, (size_t)w);
    if (idx) ncl_store_int64_t(idx, perm[0]);
    inv[perm[0]] = 0;
    for (int64_t i = 1; i < n; i++) {
        const int64_t q = perm[i];
        const uint64_t cur = ukey(x + q * w, dt);
        if (cur != prev) {
            if (cnt) ncl_store_int64_t(cnt + j * cs, i - start);
            j++;
            start = i;
            prev = cur;
            memcpy(vals + j * vs, x + q * w, (size_t)w);
            if (idx) ncl_store_int64_t(idx + j * is, q);
        }
        inv[q] = j;
    }
    if (cnt) ncl_store_int64_t(cnt + j * cs, n - start);
}

/* One instance of each body per dtype. */
#define UNIQUE_FNS_(e, sfx, T, name, kind)                                                 \
    static int64_t runs_sorted_##sfx(const char *v, int64_t n)                           \
    { return runs_sorted_body(v, n, e); }                                                 \
    static void compact_sorted_##sfx(const char *v, int64_t n, char *vals, int64_t vs,    \
                                     char *cnt, int64_t cs)                               \
    { compact_sorted_body(v, n, vals, vs, cnt, cs, e); }                                  \
    static int64_t runs_perm_##sfx(const char *x, const int64_t *perm, int64_t n)         \
    { return runs_perm_body(x, perm, n, e); }                                             \
    static void compact_perm_##sfx(const char *x, const int64_t *perm, int64_t n,         \
                                   char *vals, int64_t vs, char *idx, int64_t is,         \
                                   char *cnt, int64_t cs, int64_t *inv)                   \
    { compact_perm_body(x, perm, n, vals, vs, idx, is, cnt, cs, inv, e); }
NCL_DTYPE_LIST(UNIQUE_FNS_)
#undef UNIQUE_FNS_

typedef struct unique_fns {
    int64_t (*runs_sorted)(const char *, int64_t);
    void (*compact_sorted)(const char *, int64_t, char *, int64_t, char *, int64_t);
    int64_t (*runs_perm)(const char *, const int64_t *, int64_t);
    void (*compact_perm)(const char *, const int64_t *, int64_t, char *, int64_t, char *,
                         int64_t, char *, int64_t, int64_t *);
} unique_fns;

static const unique_fns unique_table[NCL_NTYPES] = {
#define UNIQUE_ENTRY_(e, sfx, T, name, kind) \
    [e] = {runs_sorted_##sfx, compact_sorted_##sfx, runs_perm_##sfx, compact_perm_##sfx},
    NCL_DTYPE_LIST(UNIQUE_ENTRY_)
#undef UNIQUE_ENTRY_
};

/* Messages name the call: "NclSortN(unique_all)", "NclSort(unique_values)". */
#define UWHO "%s"

/* A provided output of kind `kind`: everything but its length (k is not
   known yet). */
static NclStatus unique_check_out(const char *name, int slot, int kind, const NclArray *a,
                                  const NclArray *o)
{
    char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
    const char *what = unique_out_names[kind];
    if (o->kind == NCL_MEM_DEVICE)
        return ncl_error(NCL_ERR_DEVICE_MEMORY,
                         UWHO ": out[%d] (%s) is device memory (device %d); host kernels "
                         "cannot touch it", name, slot, what, o->device_id);
    if (!(o->flags & NCL_ARRAY_WRITEABLE))
        return ncl_error(NCL_ERR_READONLY, UWHO ": out[%d] (%s) is read-only", name, slot, what);
    const NclDType want = kind == U_VALUES ? a->dtype : NCL_INT64;
    if (o->dtype != want)
        return ncl_error(NCL_ERR_DTYPE, UWHO ": out[%d] (%s) is %s; it must be %s", name, slot,
                         what, NclDTypeName(o->dtype), NclDTypeName(want));
    if (kind == U_INVERSE) {
        int same = o->ndim == a->ndim;
        for (int d = 0; same && d < a->ndim; d++) same = o->shape[d] == a->shape[d];
        if (!same)
            return ncl_error(NCL_ERR_SHAPE,
                             UWHO ": out[%d] (inverse) has shape %s; the inverse has a's shape %s",
                             name, slot, ncl_shape_str(s0, o->ndim, o->shape),
                             ncl_shape_str(s1, a->ndim, a->shape));
    } else if (o->ndim != 1) {
        return ncl_error(NCL_ERR_SHAPE, UWHO ": out[%d] (%s) has shape %s; it must be 1-D",
                         name, slot, what, ncl_shape_str(s0, o->ndim, o->shape));
    }
    if (ncl_array_has_internal_overlap(o))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, UWHO ": out[%d] (%s) has internal overlap",
                         name, slot, what);
    if (ncl_array_ranges_overlap(a, o))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         UWHO ": out[%d] (%s) overlaps the input a", name, slot, what);
    return NCL_OK;
}

static NclStatus unique_default(NclSortOp op, const NclArray *a, NclArray **out,
                                const NclParams *p)
{
    char name[48];
    snprintf(name, sizeof name, "%s(%s)", op == NCL_UNIQUE_VALUES ? "NclSort" : "NclSortN",
             ncl_op_name(NCL_SUBSYSTEM_SORT, (int)op));
    int kinds[4];
    const int nout = unique_slots(op, kinds);
    NclStatus st;
    if (p->where != NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, UWHO ": params->where is not supported; "
                         "pass NULL", name);
    if (a->kind == NCL_MEM_DEVICE)
        return ncl_error(NCL_ERR_DEVICE_MEMORY,
                         UWHO ": the input is device memory (device %d); host kernels cannot "
                         "touch it", name, a->device_id);
    if (p->dtype != NCL_DTYPE_DEFAULT && p->dtype != a->dtype)
        return ncl_error(NCL_ERR_DTYPE,
                         UWHO ": params->dtype is %s, but the values are a's dtype %s (use "
                         "NCL_DTYPE_DEFAULT)", name, NclDTypeName(p->dtype),
                         NclDTypeName(a->dtype));
    if (!ncl_dtype_valid(a->dtype) || a->itemsize != (size_t)ncl_sort_width(a->dtype))
        return ncl_error(NCL_ERR_DTYPE, UWHO ": no kernel for %s", name, NclDTypeName(a->dtype));
    for (int k = 0; k < nout; k++) {
        if (out[k] == NULL) continue;
        if ((st = unique_check_out(name, k, kinds[k], a, out[k]))) return st;
        for (int m = 0; m < k; m++)
            if (out[m] && ncl_array_ranges_overlap(out[m], out[k]))
                return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                                 UWHO ": out[%d] (%s) and out[%d] (%s) overlap", name, m,
                                 unique_out_names[kinds[m]], k, unique_out_names[kinds[k]]);
    }

    const int64_t n = a->size;
    const size_t isz = a->itemsize;
    const int by_perm = op == NCL_UNIQUE_INVERSE || op == NCL_UNIQUE_ALL;
    NclArray *flat = NULL, *sorted = NULL, *res[4] = {NULL, NULL, NULL, NULL};
    ncl_buffer *invbuf = NULL;
    int allocated[4] = {0, 0, 0, 0};

    /* The flattened input: a 1-D view of a when it is C-contiguous and
       aligned, else a C-order copy. */
    const int64_t fstride = (int64_t)isz;
    if ((a->flags & NCL_ARRAY_C_CONTIGUOUS) && (a->flags & NCL_ARRAY_ALIGNED)) {
        st = ncl_array_view("NclSortN", a, 1, &n, &fstride, a->data, 0, &flat);
    } else {
        st = ncl_array_alloc("NclSortN", a->dtype, 1, &n, NCL_ORDER_C, 0, &flat);
        if (!st) ncl_array_copy_c_order(a, flat->data);
    }
    /* The sort: values (SORT), or the stable permutation (ARGSORT). */
    if (!st) {
        /* stable, so that the first element of each run is the first
           occurrence in a: the -0.0 or 0.0 (or the NaN) that NumPy's
           stable path keeps; the radix sort costs the same either way */
        NclParams q = NCL_PARAMS_INIT;
        q.kind = NCL_SORT_STABLE;
        st = sort_axis(by_perm ? NCL_ARGSORT : NCL_SORT, flat, &sorted, &q);
    }
    if (!st && by_perm)
        st = ncl_scratch_alloc("NclSortN", n > 0 ? (size_t)n * 8 : 1, &invbuf);

    /* k, then the outputs. */
    int64_t k = 0;
    const unique_fns *f = &unique_table[a->dtype];
    if (!st)
        k = by_perm ? f->runs_perm(flat->data, (const int64_t *)(void *)sorted->data, n)
                    : f->runs_sorted(sorted->data, n);
    for (int s = 0; s < nout && !st; s++) {
        if (kinds[s] == U_INVERSE) {
            if (out[s] == NULL) {
                st = ncl_array_alloc("NclSortN", NCL_INT64, a->ndim, a->shape, NCL_ORDER_C, 0,
                                     &res[s]);
                allocated[s] = st == NCL_OK;
            } else {
                res[s] = out[s];
            }
            continue;
        }
        if (out[s] == NULL) {
            st = ncl_array_alloc("NclSortN", kinds[s] == U_VALUES ? a->dtype : NCL_INT64, 1, &k,
                                 NCL_ORDER_C, 0, &res[s]);
            allocated[s] = st == NCL_OK;
        } else if (out[s]->shape[0] != k) {
            st = ncl_error(NCL_ERR_SHAPE,
                           UWHO ": out[%d] (%s) has length %lld; a has %lld distinct values",
                           name, s, unique_out_names[kinds[s]], (long long)out[s]->shape[0],
                           (long long)k);
        } else {
            res[s] = out[s];
        }
    }

    /* Execute: nothing above wrote an output byte. */
    if (!st && n > 0) {
        char *dst[U_NKINDS] = {NULL, NULL, NULL, NULL};
        int64_t step[U_NKINDS] = {0, 0, 0, 0};
        for (int s = 0; s < nout; s++) {
            dst[kinds[s]] = res[s]->data;
            step[kinds[s]] = res[s]->ndim == 1 ? res[s]->strides[0] : 0;
        }
        if (by_perm) {
            int64_t *inv = (int64_t *)invbuf->base;
            f->compact_perm(flat->data, (const int64_t *)(void *)sorted->data, n, dst[U_VALUES],
                            step[U_VALUES], dst[U_INDICES], step[U_INDICES], dst[U_COUNTS],
                            step[U_COUNTS], inv);
            for (int s = 0; s < nout; s++)
                if (kinds[s] == U_INVERSE) ncl_array_copy_from_c_order(res[s], (const char *)inv);
        } else {
            f->compact_sorted(sorted->data, n, dst[U_VALUES], step[U_VALUES], dst[U_COUNTS],
                              step[U_COUNTS]);
        }
    }
    ncl_last_call.elements = n; /* the sort's kernel and threads stay as it set them */

    NclArrayRelease(flat);
    NclArrayRelease(sorted);
    ncl_buffer_release(invbuf);
    for (int s = 0; s < nout; s++) {
        if (st == NCL_OK && allocated[s]) out[s] = res[s];
        else if (allocated[s]) NclArrayRelease(res[s]);
    }
    return st;
}

NclStatus ncl_default_sort(NclHook *self, NclSortOp op, const NclArray *a, NclArray **out,
                           const NclParams *params)
{
    (void)self;
    const NclSubsystem sub = NCL_SUBSYSTEM_SORT;
    if ((int)op < 0 || (int)op >= ncl_op_count(sub))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclSort: unknown op %d (valid: 0..%d)",
                         (int)op, ncl_op_count(sub) - 1);
    const char *name = ncl_op_name(sub, (int)op);
    const int unique = op >= NCL_UNIQUE_VALUES;
    if (a == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(%s): the input array is NULL",
                         unique ? "NclSortN" : "NclSort", name);
    if (out == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(%s): the out pointer is NULL",
                         unique ? "NclSortN" : "NclSort", name);
    NclParams p;
    NclStatus st = ncl_params_read(sub, (int)op, params, &p);
    if (st) return st;
    if (unique) return unique_default(op, a, out, &p);
    return sort_axis(op, a, out, &p);
}
