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
#include <string.h>
#include "ncl_internal.h"
#include "sort/sort_kernel.h"
#include "sort/sort_keys.h"
#include "pool.h"

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

static int ranges_overlap(const NclArray *a, const NclArray *b)
{
    const char *alo, *ahi, *blo, *bhi;
    ncl_array_extent(a, &alo, &ahi);
    ncl_array_extent(b, &blo, &bhi);
    if (alo == ahi || blo == bhi) return 0;
    return alo < bhi && blo < ahi;
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
                            int *fpe)
{
    /* base is NULL when the call needs no scratch at all (then no part of
       it is used): null pointer arithmetic is undefined even by zero. */
    char *g = base, *obuf = base, *work = base;
    if (base != NULL) {
        obuf = base + round64(pl->gbytes);
        work = obuf + round64(pl->obytes);
    }
    ncl_sort_aux aux = {pl->wbytes ? work : NULL, pl->wbytes, pl->kind, pl->kth};
    NclKernelCtx ctx = {NCL_SUBSYSTEM_SORT, (int)pl->op, 1, 1, pl->sig, worker, s0, fpe, &aux,
                       NCL_ACCURACY_HIGH};
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
   its own scratch block. One long slice (SORT, ARGSORT): thread t sorts
   part t of it, then the sorted parts are merged pairwise, each merge
   split across the threads by output position. The built-in kernels sort
   such slices stably (radix), and a stable merge of stably sorted parts
   is the stable sort of the whole, so the result is the same bits for any
   thread count. */
typedef struct sort_job {
    const sort_plan *pl;
    char *base;            /* scratch: one block per thread, or the split's buffers */
    size_t block;          /* bytes per thread block (many slices) */
    int nt;
    /* one long slice */
    const char *in;        /* the slice, contiguous */
    char *dst;             /* where the merged result goes, contiguous */
    char *buf[2];          /* ping-pong buffers of n results */
    char *work;            /* per-part kernel workspace, wbytes each */
    size_t wbytes;
    int64_t bounds[NCL_MAX_THREADS + 1]; /* run boundaries of the current round */
    int nruns;
    const char *src;       /* this round's runs */
    char *out;             /* this round's output */
} sort_job;

/* The order the built-in kernels sort by (sort/sort_keys.h): a value sort
   of the default kind orders every bit pattern (bkey: -0.0 before +0.0,
   NaNs by sign and payload), which makes its result unique; a stable value
   sort and every argsort order NumPy's equality classes (ckey) and keep
   ties in input order, which the merge does by taking the left run first. */
NCL_INLINE int key_less(NclDType dt, int canon, const char *a, const char *b)
{
    const int w = ncl_sort_width(dt);
    const uint64_t x = sk_load(a, w), y = sk_load(b, w);
    if (canon) return sk_ckey(x, dt) < sk_ckey(y, dt);
    return sk_bkey(x, dt) < sk_bkey(y, dt);
}

/* Element i of a run: a value, or (arg) the value an index names. */
NCL_INLINE const char *elem_at(int arg, size_t isz, const char *data, const char *run, int64_t i)
{
    if (!arg) return run + (size_t)i * isz;
    int64_t ix;
    memcpy(&ix, run + 8 * i, 8);
    return data + (size_t)ix * isz;
}

/* How many of a[0..m) the first k results of the stable merge of a and b
   take: the first i where a[i] would come after the k-th result. */
NCL_INLINE int64_t co_rank(NclDType dt, int canon, int arg, size_t isz, const char *data, const char *a,
                           int64_t m, const char *b, int64_t l, int64_t k)
{
    int64_t lo = k - l > 0 ? k - l : 0, hi = k < m ? k : m;
    while (lo < hi) {
        const int64_t i = lo + (hi - lo) / 2, j = k - i;
        if (j <= 0 || key_less(dt, canon, elem_at(arg, isz, data, b, j - 1), elem_at(arg, isz, data, a, i)))
            hi = i;
        else
            lo = i + 1;
    }
    return lo;
}

/* Results [k0, k1) of the stable merge of a (m) and b (l) into out (rsz
   bytes each; ties take a first). */
NCL_INLINE void merge_range(NclDType dt, int canon, int arg, size_t isz, size_t rsz, const char *data,
                            const char *a, int64_t m, const char *b, int64_t l, char *out,
                            int64_t k0, int64_t k1)
{
    int64_t i = co_rank(dt, canon, arg, isz, data, a, m, b, l, k0), j = k0 - i;
    for (int64_t k = k0; k < k1; k++) {
        const int take_a =
            i < m && (j >= l || !key_less(dt, canon, elem_at(arg, isz, data, b, j), elem_at(arg, isz, data, a, i)));
        memcpy(out + (size_t)k * rsz, take_a ? a + (size_t)i * rsz : b + (size_t)j * rsz, rsz);
        i += take_a;
        j += !take_a;
    }
}

/* One stamped-out merge per key dtype, so that the comparisons inline. */
#define SORT_MERGE_FN(name, dt)                                                              \
    static void name(int canon, int arg, size_t isz, size_t rsz, const char *data,          \
                     const char *a, int64_t m, const char *b, int64_t l, char *out,         \
                     int64_t k0, int64_t k1)                                                 \
    {                                                                                        \
        if (canon) merge_range(dt, 1, arg, isz, rsz, data, a, m, b, l, out, k0, k1);         \
        else merge_range(dt, 0, arg, isz, rsz, data, a, m, b, l, out, k0, k1);               \
    }
SORT_MERGE_FN(merge_u8, NCL_UINT8)
SORT_MERGE_FN(merge_i8, NCL_INT8)
SORT_MERGE_FN(merge_i16, NCL_INT16)
SORT_MERGE_FN(merge_u16, NCL_UINT16)
SORT_MERGE_FN(merge_i32, NCL_INT32)
SORT_MERGE_FN(merge_u32, NCL_UINT32)
SORT_MERGE_FN(merge_i64, NCL_INT64)
SORT_MERGE_FN(merge_u64, NCL_UINT64)
SORT_MERGE_FN(merge_f32, NCL_FLOAT32)
SORT_MERGE_FN(merge_f64, NCL_FLOAT64)
#undef SORT_MERGE_FN

typedef void (*merge_fn)(int, int, size_t, size_t, const char *, const char *, int64_t, const char *,
                         int64_t, char *, int64_t, int64_t);

static merge_fn merge_for(NclDType dt)
{
    switch (dt) {
    case NCL_INT8: return merge_i8;
    case NCL_INT16: return merge_i16;
    case NCL_UINT16: return merge_u16;
    case NCL_INT32: return merge_i32;
    case NCL_UINT32: return merge_u32;
    case NCL_INT64: return merge_i64;
    case NCL_UINT64: return merge_u64;
    case NCL_FLOAT32: return merge_f32;
    case NCL_FLOAT64: return merge_f64;
    default: return merge_u8;
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
    return run_slices(j->pl, s0, s1, scratch, worker, fpe);
}

/* One long slice, phase 1: task t sorts part t into buf[0]. */
static NclStatus part_task(void *arg, int worker, int64_t task, int *fpe)
{
    const sort_job *j = arg;
    const sort_plan *pl = j->pl;
    const int64_t lo = j->bounds[task], hi = j->bounds[task + 1];
    ncl_sort_aux aux = {j->wbytes ? j->work + (size_t)task * j->wbytes : NULL, j->wbytes, pl->kind,
                        0};
    NclKernelCtx ctx = {NCL_SUBSYSTEM_SORT, (int)pl->op, 1, 1, pl->sig, worker, task, fpe, &aux,
                        NCL_ACCURACY_HIGH};
    const int64_t steps[2] = {(int64_t)pl->isz, (int64_t)pl->rsz};
    char *args[2] = {(char *)j->in + (size_t)lo * pl->isz, j->buf[0] + (size_t)lo * pl->rsz};
    NclStatus st = pl->kernel->fn(pl->kernel, &ctx, args, hi - lo, steps);
    if (st || pl->op != NCL_ARGSORT) return st;
    for (int64_t i = lo; i < hi; i++) { /* part-local indices become slice indices */
        int64_t ix;
        memcpy(&ix, args[1] + 8 * (i - lo), 8);
        ix += lo;
        memcpy(args[1] + 8 * (i - lo), &ix, 8);
    }
    return NCL_OK;
}

/* One long slice, a merge round: task t writes results [n t / nt, n (t+1) / nt)
   of the round's pairwise merges of runs. */
static NclStatus merge_task(void *arg, int worker, int64_t task, int *fpe)
{
    (void)worker;
    (void)fpe;
    const sort_job *j = arg;
    const sort_plan *pl = j->pl;
    const int64_t n = pl->n;
    const int64_t k0 = n * task / j->nt, k1 = n * (task + 1) / j->nt;
    const merge_fn merge = merge_for(pl->sig[0]);
    const int argsort = pl->op == NCL_ARGSORT;
    for (int r = 0; r < j->nruns; r += 2) {
        const int64_t a0 = j->bounds[r], b0 = j->bounds[r + 1];
        const int64_t b1 = r + 2 <= j->nruns ? j->bounds[r + 2] : b0;
        const int64_t lo = k0 > a0 ? k0 : a0, hi = k1 < b1 ? k1 : b1;
        if (lo >= hi) continue;
        /* a lone last run is merged with an empty one: copied */
        merge(argsort || pl->kind == NCL_SORT_STABLE, argsort, pl->isz, pl->rsz, j->in, j->src + (size_t)a0 * pl->rsz, b0 - a0,
              j->src + (size_t)b0 * pl->rsz, b1 - b0, j->out + (size_t)a0 * pl->rsz, lo - a0,
              hi - a0);
    }
    return NCL_OK;
}

/* Sorts the one slice of pl across j->nt threads into j->dst. */
static NclStatus sort_split(sort_job *j, int *fpe, int *used)
{
    const sort_plan *pl = j->pl;
    const int64_t n = pl->n;
    j->nruns = j->nt;
    for (int t = 0; t <= j->nt; t++) j->bounds[t] = n * t / j->nt;
    NclStatus st = ncl_pool_run(j->nt, j->nt, part_task, j, 0, fpe, used);
    if (st) return st;
    int cur = 0;
    while (j->nruns > 1) {
        const int next = (j->nruns + 1) / 2;
        j->src = j->buf[cur];
        j->out = next == 1 ? j->dst : j->buf[cur ^ 1];
        if ((st = ncl_pool_run(j->nt, j->nt, merge_task, j, 0, fpe, NULL))) return st;
        for (int r = 0; r < next; r++) j->bounds[r] = j->bounds[2 * r];
        j->bounds[next] = n;
        j->nruns = next;
        cur ^= 1;
    }
    return NCL_OK;
}

/* ---- the default implementation ------------------------------------------------------ */

NclStatus ncl_default_sort(NclHook *self, NclSortOp op, const NclArray *a, NclArray **out,
                           const NclParams *params)
{
    (void)self;
    const NclSubsystem sub = NCL_SUBSYSTEM_SORT;
    if ((int)op < 0 || (int)op >= ncl_op_count(sub))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclSort: unknown op %d (valid: 0..%d)",
                         (int)op, ncl_op_count(sub) - 1);
    sort_plan pl;
    memset(&pl, 0, sizeof pl);
    pl.op = op;
    pl.name = ncl_op_name(sub, (int)op);
    if (a == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, WHO ": the input array is NULL", pl.name);
    if (out == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, WHO ": the out pointer is NULL", pl.name);
    NclParams p;
    NclStatus st = ncl_params_read(sub, (int)op, params, &p);
    if (st) return st;
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
    if (!pl.allocated && a->size > 0 && ranges_overlap(a, o)) {
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
    /* Threads: slices across them, or one long slice split in parts. */
    sort_job job;
    memset(&job, 0, sizeof job);
    job.pl = &pl;
    int nt = a->size > 0 ? ncl_pool_threads(a->size * NCL_COST_SORT) : 1;
    int split = 0;
    size_t total = 0;
    if (nt > 1 && pl.nslices >= 2) {
        if (pl.nslices < nt) nt = (int)pl.nslices;
    } else if (nt > 1 && pl.nslices == 1 && (op == NCL_SORT || op == NCL_ARGSORT)) {
        /* only where the built-in kernel sorts the parts and the whole
           stably (radix), so that the merge gives its very result */
        const int64_t part = (n + nt - 1) / nt;
        split = ncl_sort_uses_radix((int)op, a->dtype, pl.kind, n / nt) &&
                ncl_sort_uses_radix((int)op, a->dtype, pl.kind, n);
        if (split) {
            job.wbytes = round64(ncl_sort_work_bytes((int)op, a->dtype, pl.kind, part));
            total = round64(pl.gbytes) + round64(pl.obytes) + round64((size_t)n * pl.rsz) *
                    (nt > 2 ? 2 : 1) + (size_t)nt * job.wbytes;
        } else {
            nt = 1;
        }
    } else {
        nt = 1;
    }
    job.nt = nt;
    job.block = round64(pl.gbytes) + round64(pl.obytes) + round64(pl.wbytes);
    if (!split) total = job.block * (size_t)nt;

    if (a->size > 0) {
        if (pl.wbytes == SIZE_MAX || pl.wbytes > SIZE_MAX / 2 || job.wbytes > SIZE_MAX / 2) {
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
        if (split) {
            char *g = base, *obuf = g + round64(pl.gbytes), *p0 = obuf + round64(pl.obytes);
            char *p1 = p0 + round64((size_t)n * pl.rsz);
            if (pl.gather) copy_strided(g, (int64_t)pl.isz, pl.idata, pl.istep, n, pl.isz);
            job.in = pl.gather ? g : pl.idata;
            job.dst = pl.direct ? pl.odata : obuf;
            job.buf[0] = p0;
            job.buf[1] = nt > 2 ? p1 : NULL;
            job.work = nt > 2 ? p1 + round64((size_t)n * pl.rsz) : p1;
            st = sort_split(&job, &fpe, &used);
            if (!st && !pl.direct) copy_strided(pl.odata, pl.ostep, obuf, (int64_t)pl.rsz, n, pl.rsz);
        } else if (nt > 1) {
            st = ncl_pool_run(nt, nt, slices_task, &job, 0, &fpe, &used);
        } else {
            st = run_slices(&pl, 0, pl.nslices, base, 0, &fpe);
        }
        fpe |= ncl_fpe_end(&saved);
        ncl_tls.fpe_flags |= fpe;
        if (st)
            ncl_error(st, WHO ": kernel %s failed with status %d (%s)", pl.name,
                      pl.kernel->name ? pl.kernel->name : "(unnamed)", (int)st,
                      NclStatusString(st));
        else if (fpe && ncl_tls.depth == 1)
            st = ncl_fpe_raise_status(ncl_tls.fpe_flags, sub, (int)op);
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
