/*
 * reduce.c: NCLib's default implementation of the Reduce subsystem, the
 * tail of its level-1 chain: reductions (sum, prod, min, max, any, all,
 * argmin, argmax, mean, count_nonzero, std, var) and accumulations (cumsum,
 * cumprod) over any set of axes, with keepdims, where=, initial=, dtype=,
 * ddof and a provided output, as NumPy 1.24 does them, and their nan-aware
 * forms.
 *
 * Every output reduces a logical sequence: its input elements in C order
 * of the reduced axes. Results are defined on that sequence alone (the
 * kernels' fixed reduction tree, ncl/reduce.h), never on memory order, so
 * they are bitwise the same for C, Fortran, strided or reversed inputs.
 *
 * A call is planned first (validation, dtypes, output shape, kernel and
 * cast chains, the output or a temporary, gather scratch), then executed:
 *   - direct: when each sequence is one strided line read as is (no cast,
 *     no mask), the kernel reads the input in place, a batch of adjacent
 *     outputs per call, so a kernel can run across them (column sums);
 *   - gathered: otherwise each sequence is copied in chunks of
 *     NCL_REDUCE_CHUNK logical elements into scratch, cast, masked (a
 *     masked-out element is replaced by the op's identity at its place),
 *     reduced by the kernel, and the chunk values are combined with the
 *     tree's binary counter by calling the kernel on pairs. Both ways give
 *     the same bits.
 * Results then go through a finalisation step (initial=, the mean's
 * division, casts to the result and output dtypes) into the output.
 *
 * The nan-aware ops are their plain op on a float input whose NaNs are
 * absent: the gathered path marks them as a where mask marks masked-out
 * elements, and puts NumPy's replacement value (0 for sums, 1 for products)
 * in their place. STD and VAR run the float SUM twice per output, as
 * NumPy's _var does: the sum of the elements gives the mean (sum / count),
 * then the sum of the squared differences from it is divided by count -
 * ddof (and its square root taken for STD).
 * Executing is a loop over independent batches of outputs (and, within one
 * output, over chunks): the units a thread pool can hand to workers, each
 * with its own buffers and FP flag sink, without changing a bit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "defaults/ncl_defaults.h"
#include "exec/ncl_exec.h"
#include "hooks/ncl_hooks.h"
#include "runtime/pool.h"
#include "reduce/reduce_dd.h"

#define WHO "NclReduce(%s)"
/* Outputs finalised per pass (and per kernel call on the direct path). */
#define RED_BATCH 256
#define RED_CHUNK NCL_REDUCE_CHUNK

static const char *const casting_names[] = {"no", "equiv", "safe", "same_kind", "unsafe"};

/* One dimension of the iteration: extent, then byte strides of the input,
   of the where mask (0 when broadcast or absent) and of the output. */
typedef struct red_dim {
    int64_t n, in, w, out;
} red_dim;

/* A kernel chain's first node with the signature it was looked up with. */
typedef struct red_kernel {
    NclKernelNode *node;
    NclDType sig[2];
    int op;
} red_kernel;

typedef struct red_plan {
    NclReduceOp op;           /* the plain op computed (a nan-aware op's own) */
    const char *name;         /* the op asked for, for messages */
    int nan_skip;             /* NaN elements of a float input are absent */
    int variance;             /* 1: VAR / NANVAR, 2: STD / NANSTD */
    int nan_extreme;          /* NANMIN / NANMAX: an all-NaN output is NaN */
    int nan_arg;              /* NANARGMIN / NANARGMAX by their own kernels */
    int masked;               /* has_where or nan_skip: the gathered path masks */
    int packs;                /* ARGMIN/ARGMAX with where=: kept elements packed */
    int fused;                /* no where=, no cast: one pass per chunk from the input
                                 (NaN replacement, or the variance's centring) */
    int64_t ddof;             /* variance: the divisor is count - ddof */
    unsigned char nan_val[8]; /* what a NaN becomes, as the input dtype */
    int cumulative;           /* CUMSUM / CUMPROD */
    int arg;                  /* ARGMIN / ARGMAX */
    const NclArray *a;

    /* dtypes: the input's, the kernel's input (after a cast) and output
       (the accumulator), the reduction's result, the output array's */
    NclDType tin, kin, acc, res, odt;
    red_kernel kern;          /* (kop, {kin, acc}) */
    red_kernel merge;         /* (mop, {acc, acc}): combines two results */
    red_kernel cast_in;       /* tin -> kin, node NULL when equal */
    red_kernel cvt_acc_res;   /* acc -> res (or acc -> float64 for a mean) */
    red_kernel cvt_res_f64;   /* integer mean: res -> float64 */
    red_kernel cvt_f64_res;   /* mean: float64 -> res */
    red_kernel cvt_res_out;   /* res -> odt (a copy when equal) */

    int has_init;             /* combine every result with init first */
    unsigned char init[8];    /* initial= (or +0.0), as the accumulator */
    int has_where;
    unsigned char ident[8];   /* what a masked-out element becomes, as kin */

    /* geometry: reduced dims (the sequence, C order, nr >= 1) and kept
       dims (the outputs, batched along the last one, nk >= 1) */
    int nr, nk;
    red_dim r[NCL_MAXDIMS], k[NCL_MAXDIMS];
    int64_t n, nout;
    int64_t oseq;             /* accumulations: output step along the sequence */
    const char *in0, *w0;
    char *out0;
    int direct;

    NclArray *result;         /* allocated result (returned) */
    NclArray *temp;           /* stand-in for a provided output that overlaps */
    NclArray *target;         /* where results are written */
    ncl_buffer *scratch;      /* gather and cast buffers, one block per thread */
    NclAccuracy accuracy;     /* the caller's tier, for every worker */
    int nt;                   /* threads the call is split across */
    int64_t groups;           /* > 0: one long sequence split into this many groups */
    int64_t gsize;            /* chunks per group (a power of two) */
} red_plan;

#define RED_SCRATCH (3 * RED_CHUNK * 8 + RED_CHUNK)

/* ---- small helpers ------------------------------------------------------------- */

NCL_INLINE int kind_of(NclDType t) { return ncl_dtype_kind[t]; }
NCL_INLINE int is_float(NclDType t) { return kind_of(t) == 'f'; }
NCL_INLINE size_t dsize(NclDType t) { return ncl_dtype_size[t]; }

/* The identities a masked-out element takes. */
enum { ID_ZERO, ID_ONE, ID_LOWEST, ID_HIGHEST };

static void put_ident(NclDType t, int id, void *dst)
{
    if (is_float(t)) {
        double v = id == ID_ONE ? 1.0 : id == ID_LOWEST ? -(double)INFINITY
                   : id == ID_HIGHEST ? (double)INFINITY : -0.0;
        if (t == NCL_FLOAT32) {
            float f = (float)v;
            memcpy(dst, &f, 4);
        } else {
            memcpy(dst, &v, 8);
        }
        return;
    }
    const size_t sz = dsize(t);
    uint64_t bits = 0;
    if (id == ID_ONE) {
        bits = 1;
    } else if (id == ID_HIGHEST) {
        bits = t == NCL_BOOL ? 1 : kind_of(t) == 'u' ? UINT64_MAX : UINT64_MAX >> (65 - 8 * sz);
    } else if (id == ID_LOWEST && kind_of(t) == 'i') {
        bits = UINT64_MAX << (8 * sz - 1); /* the sign bit and above */
    }
    unsigned char b[8];
    memcpy(b, &bits, 8); /* little or big endian: copy the low bytes */
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    memcpy(dst, first ? b : b + 8 - sz, sz);
}

static const char *axes_str(char *buf, int n, const int *axes)
{
    int64_t v[NCL_MAXDIMS];
    for (int i = 0; i < n && i < NCL_MAXDIMS; i++) v[i] = axes[i];
    return ncl_shape_str(buf, n < NCL_MAXDIMS ? n : NCL_MAXDIMS, v);
}

static NclStatus find_kernel(const red_plan *p, NclSubsystem sub, int op, NclDType from,
                             NclDType to, red_kernel *k)
{
    k->sig[0] = from;
    k->sig[1] = to;
    k->op = op;
    ncl_kchain *c = ncl_kernel_chain(sub, op, k->sig, 2);
    if (!c) {
        k->node = NULL;
        if (sub == NCL_SUBSYSTEM_CONVERT)
            return ncl_error(NCL_ERR_DTYPE, WHO ": no cast kernel from %s to %s", p->name,
                             NclDTypeName(from), NclDTypeName(to));
        return ncl_error(NCL_ERR_DTYPE, WHO ": no %s kernel for (%s -> %s)", p->name,
                         ncl_op_name(NCL_SUBSYSTEM_REDUCE, op), NclDTypeName(from),
                         NclDTypeName(to));
    }
    k->node = ncl_kernel_first(c);
    return NCL_OK;
}

NCL_INLINE NclStatus find_cast(const red_plan *p, NclDType from, NclDType to, red_kernel *k)
{
    return find_kernel(p, NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_ASTYPE, from, to, k);
}

/* ---- validation ----------------------------------------------------------------- */

/* Marks the reduced axes of a in red[]; *flat is set for ARGMIN/ARGMAX/
   CUMSUM/CUMPROD over the flattened array (axes NULL). */
static NclStatus resolve_axes(const red_plan *p, const NclParams *q, int *red, int *flat)
{
    const NclArray *a = p->a;
    const int nd = a->ndim;
    char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
    for (int d = 0; d < nd; d++) red[d] = 0;
    *flat = 0;
    if (q->axes == NULL) {
        for (int d = 0; d < nd; d++) red[d] = 1;
        *flat = p->arg || p->cumulative;
        return NCL_OK;
    }
    if (q->naxes < 0 || q->naxes > NCL_MAXDIMS)
        return ncl_error(NCL_ERR_AXIS, WHO ": naxes is %d; it must be 0..%d", p->name, q->naxes,
                         NCL_MAXDIMS);
    if ((p->arg || p->cumulative) && q->naxes != 1)
        return ncl_error(NCL_ERR_AXIS,
                         WHO ": takes one axis (or axes = NULL for the flattened array), "
                         "not %d axes %s",
                         p->name, q->naxes, axes_str(s0, q->naxes, q->axes));
    if (q->naxes > nd)
        return ncl_error(NCL_ERR_AXIS, WHO ": %d axes %s given for an array of shape %s",
                         p->name, q->naxes, axes_str(s0, q->naxes, q->axes),
                         ncl_shape_str(s1, nd, a->shape));
    for (int i = 0; i < q->naxes; i++) {
        int ax = q->axes[i];
        if (ax < -nd || ax >= nd)
            return ncl_error(NCL_ERR_AXIS, WHO ": axis %d is out of bounds for an array of shape %s "
                             "(ndim %d)",
                             p->name, ax, ncl_shape_str(s0, nd, a->shape), nd);
        if (ax < 0) ax += nd;
        if (red[ax])
            return ncl_error(NCL_ERR_AXIS, WHO ": axis %d appears twice in axes %s", p->name, ax,
                             axes_str(s0, q->naxes, q->axes));
        red[ax] = 1;
    }
    return NCL_OK;
}

/* NumPy's default result dtype of sum/prod/cumsum/cumprod. */
static NclDType sum_default(NclDType t)
{
    switch (kind_of(t)) {
    case 'f': return t;
    case 'u': return NCL_UINT64;
    default: return NCL_INT64;
    }
}

NCL_INLINE NclDType acc_int(NclDType t) { return kind_of(t) == 'u' ? NCL_UINT64 : NCL_INT64; }

/* The plain op a nan-aware op is (itself for the others); STD and VAR run
   as SUM. */
static NclReduceOp plain_op(NclReduceOp op)
{
    switch (op) {
    case NCL_NANSUM: return NCL_SUM;
    case NCL_NANPROD: return NCL_PROD;
    case NCL_NANMEAN: return NCL_MEAN;
    case NCL_NANMIN: return NCL_MIN;
    case NCL_NANMAX: return NCL_MAX;
    case NCL_NANARGMIN: return NCL_ARGMIN;
    case NCL_NANARGMAX: return NCL_ARGMAX;
    case NCL_NANCUMSUM: return NCL_CUMSUM;
    case NCL_NANCUMPROD: return NCL_CUMPROD;
    case NCL_STD: case NCL_VAR: case NCL_NANSTD: case NCL_NANVAR: return NCL_SUM;
    default: return op;
    }
}

/* Dtypes and kernels of the op (p->kin, acc, res, kern, merge); casting of
   the input under the rule. */
static NclStatus resolve_dtypes(red_plan *p, const NclParams *q)
{
    const NclDType t = p->tin, d = q->dtype;
    const int op = (int)p->op;
    int kop = op, mop = op;
    NclStatus st;
    int check_in = 1;

    if (p->variance) {
        /* NumPy's _var: the sums, the mean and the squares in the result
           dtype (float64 for bool and integers), the input cast to it */
        const NclDType r = d != NCL_DTYPE_DEFAULT ? d : is_float(t) ? t : NCL_FLOAT64;
        if (!is_float(r))
            return ncl_error(NCL_ERR_DTYPE, WHO ": dtype %s is not supported; %s needs a float "
                             "dtype", p->name, NclDTypeName(r), p->name);
        p->res = p->acc = p->kin = r;
        kop = mop = NCL_SUM;
        goto found;
    }
    switch (p->op) {
    case NCL_SUM:
    case NCL_PROD:
    case NCL_CUMSUM:
    case NCL_CUMPROD:
    case NCL_MEAN: {
        const int mul = p->op == NCL_PROD || p->op == NCL_CUMPROD;
        const NclDType r = d != NCL_DTYPE_DEFAULT ? d
                           : p->op != NCL_MEAN ? sum_default(t)
                           : t == NCL_FLOAT32 ? NCL_FLOAT32 : NCL_FLOAT64;
        p->res = r;
        mop = mul ? NCL_PROD : NCL_SUM;
        if (r == NCL_BOOL) {
            if (p->op != NCL_SUM && p->op != NCL_PROD)
                return ncl_error(NCL_ERR_DTYPE, WHO ": dtype bool is not supported for %s",
                                 p->name, p->name);
            /* a sum of bools in bool is logical or, a product logical and */
            kop = mop = mul ? NCL_ALL : NCL_ANY;
            p->kin = t;
            p->acc = NCL_BOOL;
        } else if (!is_float(r)) {
            /* Integer results wrap, and wrapping commutes with the sum and
               the product: accumulate modulo 2**64 from the input itself and
               cut to the result's width at the end. A float input is cast
               to the result dtype first, as NumPy does. */
            p->kin = is_float(t) ? r : t;
            p->acc = acc_int(p->kin);
        } else {
            /* A mean without dtype= accumulates float32 in float64 (more
               accurate, rounded once); dtype= names the accumulator itself. */
            p->acc = p->op == NCL_MEAN && d == NCL_DTYPE_DEFAULT ? NCL_FLOAT64 : r;
            NclDType sig[2] = {t, p->acc};
            p->kin = ncl_kernel_chain(NCL_SUBSYSTEM_REDUCE, p->op == NCL_MEAN ? NCL_SUM : op, sig, 2)
                         ? t
                         : p->acc;
        }
        if (p->op == NCL_MEAN && r != NCL_BOOL) kop = NCL_SUM;
        if (p->nan_skip && !q->where && p->op != NCL_MEAN && p->kin == t && p->acc == t) {
            /* the nan-aware kernels read a NaN as NumPy's replacement
               themselves: the direct path, nothing marked */
            kop = p->op == NCL_SUM ? NCL_NANSUM : p->op == NCL_PROD ? NCL_NANPROD
                  : p->op == NCL_CUMSUM ? NCL_NANCUMSUM : NCL_NANCUMPROD;
            p->nan_skip = 0;
        }
        break;
    }
    case NCL_MIN:
    case NCL_MAX:
        p->res = d != NCL_DTYPE_DEFAULT ? d : t;
        p->kin = p->acc = p->res;
        if (p->nan_extreme) kop = mop = p->op == NCL_MIN ? NCL_NANMIN : NCL_NANMAX;
        break;
    case NCL_ANY:
    case NCL_ALL:
    case NCL_ARGMIN:
    case NCL_ARGMAX:
    case NCL_COUNT_NONZERO: {
        const NclDType r = (p->op == NCL_ANY || p->op == NCL_ALL) ? NCL_BOOL : NCL_INT64;
        if (d != NCL_DTYPE_DEFAULT && d != r)
            return ncl_error(NCL_ERR_DTYPE,
                             WHO ": the result is always %s, so dtype %s is not accepted (a "
                             "provided output of another dtype is converted under casting)",
                             p->name, NclDTypeName(r), NclDTypeName(d));
        p->res = p->acc = r;
        p->kin = t;
        check_in = 0; /* elements are read as truth or compared as they are */
        if (p->op == NCL_COUNT_NONZERO) mop = NCL_SUM;
        break;
    }
    default:
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclReduce: unknown op %d", op);
    }

found:
    /* The rule governs what the caller asked for (dtype=, the output), not
       the default widening of a sum, which is always safe. */
    if (check_in && d != NCL_DTYPE_DEFAULT && t != p->res && !NclCanCast(t, p->res, q->casting))
        return ncl_error(NCL_ERR_CASTING,
                         WHO ": cannot cast the input from %s to dtype %s under casting rule "
                         "'%s'",
                         p->name, NclDTypeName(t), NclDTypeName(p->res),
                         casting_names[q->casting]);
    if ((st = find_kernel(p, NCL_SUBSYSTEM_REDUCE, kop, p->kin, p->acc, &p->kern))) return st;
    p->merge.node = NULL;
    if (!p->cumulative && !p->arg &&
        (st = find_kernel(p, NCL_SUBSYSTEM_REDUCE, mop, p->acc, p->acc, &p->merge)))
        return st;
    p->cast_in.node = NULL;
    if (p->kin != t && (st = find_cast(p, t, p->kin, &p->cast_in))) return st;
    return NCL_OK;
}

/* initial= and where= against what each op accepts: initial= where NumPy
   takes one; where= everywhere but the accumulations. (NumPy also wants an
   initial for a masked min/max; NCLib refuses only when some output
   really selects nothing, see mask_selects_all.) */
static NclStatus check_extras(red_plan *p, const NclParams *q)
{
    const int takes_initial = !p->variance && (p->op == NCL_SUM || p->op == NCL_PROD ||
                                               p->op == NCL_MIN || p->op == NCL_MAX ||
                                               p->op == NCL_ANY || p->op == NCL_ALL);
    if (q->initial && !takes_initial)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, WHO ": initial= is not accepted by %s",
                         p->name, p->name);
    if (q->where && p->cumulative)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, WHO ": where= is not accepted by %s",
                         p->name, p->name);
    return NCL_OK;
}

static NclStatus check_host(const red_plan *p, const NclArray *x, const char *role)
{
    if (NCL_UNLIKELY(x->kind == NCL_MEM_DEVICE))
        return ncl_error(NCL_ERR_DEVICE_MEMORY,
                         WHO ": %s is device memory (device %d); host kernels cannot touch it",
                         p->name, role, x->device_id);
    return NCL_OK;
}

/* ---- planning: shapes and geometry -------------------------------------------- */

/* The output shape; omap[d] is the output axis of input axis d (-1 when it
   has none). */
static void output_shape(const red_plan *p, const int *red, int flat, int keepdims, int *ond,
                         int64_t *oshape, int *omap)
{
    const NclArray *a = p->a;
    int n = 0;
    if (p->cumulative) {
        if (flat) {
            oshape[0] = a->size;
            *ond = 1;
            for (int d = 0; d < a->ndim; d++) omap[d] = -1;
            return;
        }
        for (int d = 0; d < a->ndim; d++) {
            omap[d] = d;
            oshape[d] = a->shape[d];
        }
        *ond = a->ndim;
        return;
    }
    for (int d = 0; d < a->ndim; d++) {
        if (!red[d]) {
            omap[d] = n;
            oshape[n++] = a->shape[d];
        } else if (keepdims) {
            omap[d] = -1;
            oshape[n++] = 1;
        } else {
            omap[d] = -1;
        }
    }
    *ond = n;
}

static void swap_dims(red_dim *x, int i, int j)
{
    red_dim t = x[i];
    x[i] = x[j];
    x[j] = t;
}

/* Drops unit dims and merges neighbours that step as one, for every
   stride at once; keeps the order (the reduced dims' order is the
   sequence's). A dim of extent 0 is kept: it empties everything. */
static int merge_dims(red_dim *x, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (x[i].n == 1) continue;
        if (m > 0 && x[m - 1].n != 0 && x[i].n != 0 && x[m - 1].in == x[i].in * x[i].n &&
            x[m - 1].w == x[i].w * x[i].n && x[m - 1].out == x[i].out * x[i].n) {
            x[m - 1].n *= x[i].n;
            x[m - 1].in = x[i].in;
            x[m - 1].w = x[i].w;
            x[m - 1].out = x[i].out;
            continue;
        }
        x[m++] = x[i];
    }
    return m;
}

/* Fills the iteration geometry from the arrays. */
static void make_geometry(red_plan *p, const int *red, int flat, const int *omap,
                          const NclArray *w)
{
    const NclArray *a = p->a, *t = p->target;
    const int nd = a->ndim;
    int64_t wst[NCL_MAXDIMS];
    for (int d = 0; d < nd; d++) {
        int k = w ? d - (nd - w->ndim) : -1;
        wst[d] = (k < 0 || w->shape[k] == 1) ? 0 : w->strides[k];
    }
    p->in0 = a->data;
    p->w0 = w ? w->data : NULL;
    p->out0 = t->data;
    p->nr = p->nk = 0;
    p->oseq = 0;
    for (int d = 0; d < nd; d++) {
        red_dim x = {a->shape[d], a->strides[d], wst[d], 0};
        if (red[d]) {
            if (p->cumulative && !flat) p->oseq = t->strides[omap[d]];
            p->r[p->nr++] = x;
        } else {
            x.out = omap[d] >= 0 ? t->strides[omap[d]] : 0;
            p->k[p->nk++] = x;
        }
    }
    if (p->cumulative && flat) p->oseq = t->strides[0];

    /* The sequence keeps its logical order: merge only. */
    p->nr = merge_dims(p->r, p->nr);
    if (p->nr == 0) p->r[p->nr++] = (red_dim){1, 0, 0, 0};

    /* Outputs are independent: walk each kept dim forwards in the input,
       the smallest input stride innermost (adjacent outputs read adjacent
       columns), then merge. */
    for (int i = 0; i < p->nk; i++) {
        red_dim *x = &p->k[i];
        if (x->in < 0 && x->n > 1) {
            const int64_t last = x->n - 1;
            p->in0 += last * x->in;
            if (p->w0) p->w0 += last * x->w;
            p->out0 += last * x->out;
            x->in = -x->in;
            x->w = -x->w;
            x->out = -x->out;
        }
    }
    for (int i = 1; i < p->nk; i++)
        for (int j = i; j > 0 && p->k[j - 1].in < p->k[j].in; j--) swap_dims(p->k, j - 1, j);
    p->nk = merge_dims(p->k, p->nk);
    if (p->nk == 0) p->k[p->nk++] = (red_dim){1, 0, 0, 0};

    p->n = 1;
    for (int i = 0; i < p->nr; i++) p->n *= p->r[i].n;
    p->nout = 1;
    for (int i = 0; i < p->nk; i++) p->nout *= p->k[i].n;
}

/* Whether every output keeps at least one element under the mask (asked
   only of ops without an identity and without initial=). */
static int mask_selects_all(const red_plan *p)
{
    int64_t kidx[NCL_MAXDIMS] = {0}, ridx[NCL_MAXDIMS];
    const char *wk = p->w0;
    if (p->nout == 0) return 1;
    if (p->n == 0) return 0;
    for (;;) {
        /* one output: scan its sequence for a true */
        const char *wr = wk;
        int found = 0;
        for (int i = 0; i < p->nr; i++) ridx[i] = 0;
        for (;;) {
            if (*wr) {
                found = 1;
                break;
            }
            int d = p->nr - 1;
            for (; d >= 0; d--) {
                wr += p->r[d].w;
                if (++ridx[d] < p->r[d].n) break;
                wr -= p->r[d].n * p->r[d].w;
                ridx[d] = 0;
            }
            if (d < 0) break;
        }
        if (!found) return 0;
        int d = p->nk - 1;
        for (; d >= 0; d--) {
            wk += p->k[d].w;
            if (++kidx[d] < p->k[d].n) break;
            wk -= p->k[d].n * p->k[d].w;
            kidx[d] = 0;
        }
        if (d < 0) return 1;
    }
}

/* ---- execution ------------------------------------------------------------------------ */

typedef struct red_exec {
    const red_plan *p;
    int *fpe;
    int worker, nworkers;      /* this thread, and how many run the call's chunks */
    int64_t chunk;
    char *gbuf, *kbuf;         /* gathered input, cast input (RED_CHUNK elements each) */
    ncl_bool *mbuf;            /* gathered mask */
    int64_t *pos;              /* masked argmin/argmax: positions of the kept elements */
    const void *center;        /* variance's second pass: the mean (acc dtype), or NULL */
    int64_t numbers;           /* NANARGMIN/NANARGMAX: kept elements that are not NaN */
} red_exec;

static NclStatus run_kernel_lo(red_exec *x, const red_kernel *k, NclSubsystem sub,
                               const char *in, char *out, int64_t n, int64_t is, int64_t os,
                               int64_t count, int64_t in_outer, int64_t out_outer,
                               const void *initial, void *lo)
{
    NclReduceAux aux = {count, in_outer, out_outer, initial, lo};
    NclKernelCtx ctx = {sub, k->op, 1, 1, k->sig, x->worker, x->chunk, x->fpe,
                        sub == NCL_SUBSYSTEM_REDUCE ? &aux : NULL, x->p->accuracy, x->nworkers};
    char *args[2] = {(char *)in, out};
    int64_t steps[2] = {is, os};
    return k->node->fn(k->node, &ctx, args, n, steps);
}

NCL_INLINE NclStatus run_kernel(red_exec *x, const red_kernel *k, NclSubsystem sub,
                                const char *in, char *out, int64_t n, int64_t is, int64_t os,
                                int64_t count, int64_t in_outer, int64_t out_outer,
                                const void *initial)
{
    return run_kernel_lo(x, k, sub, in, out, n, is, os, count, in_outer, out_outer, initial,
                         NULL);
}

/* count elements of dtype k->sig[0] at src (step ss) converted into dst
   (step ds). */
NCL_INLINE NclStatus convert(red_exec *x, const red_kernel *k, const char *src, int64_t ss,
                             char *dst, int64_t ds, int64_t count)
{
    return run_kernel(x, k, NCL_SUBSYSTEM_CONVERT, src, dst, count, ss, ds, 1, 0, 0, NULL);
}

/* The combination u (+) v of two accumulator values, left to right. */
static NclStatus combine(red_exec *x, const char *u, const char *v, char *dst)
{
    const size_t sz = dsize(x->p->acc);
    char pair[16];
    memcpy(pair, u, sz);
    memcpy(pair + sz, v, sz);
    return run_kernel(x, &x->p->merge, NCL_SUBSYSTEM_REDUCE, pair, dst, 2, (int64_t)sz,
                      (int64_t)sz, 1, 0, 0, NULL);
}

/* Walks one sequence in logical order, chunk by chunk. */
typedef struct red_walk {
    int64_t idx[NCL_MAXDIMS];
    const char *ip, *wp;
} red_walk;

static void walk_init(red_walk *g, const red_plan *p, const char *ip, const char *wp)
{
    /* Without a where mask the mask pointer still steps, by zero: it points
       at a byte of its own, as arithmetic on a null pointer is undefined
       even by zero. */
    static const char no_mask = 0;
    for (int i = 0; i < p->nr; i++) g->idx[i] = 0;
    g->ip = ip;
    g->wp = wp != NULL ? wp : &no_mask;
}

/* Positions a fresh walk at logical element `at` of the sequence. */
static void walk_seek(red_walk *g, const red_plan *p, int64_t at)
{
    for (int d = p->nr - 1; d >= 0 && at > 0; d--) {
        g->idx[d] = at % p->r[d].n;
        at /= p->r[d].n;
        g->ip += g->idx[d] * p->r[d].in;
        g->wp += g->idx[d] * p->r[d].w;
    }
}

static void copy_strided(char *dst, const char *src, int64_t step, int64_t m, size_t sz)
{
    if (step == (int64_t)sz) {
        memcpy(dst, src, (size_t)m * sz);
        return;
    }
    switch (sz) {
    case 1: for (int64_t i = 0; i < m; i++) dst[i] = src[i * step]; break;
    case 2: for (int64_t i = 0; i < m; i++) memcpy(dst + 2 * i, src + i * step, 2); break;
    case 4: for (int64_t i = 0; i < m; i++) memcpy(dst + 4 * i, src + i * step, 4); break;
    default: for (int64_t i = 0; i < m; i++) memcpy(dst + 8 * i, src + i * step, 8); break;
    }
}

/* Copies the next m elements of the sequence (and of the mask) into the
   exec buffers and advances. */
static void gather(red_exec *x, red_walk *g, int64_t m)
{
    const red_plan *p = x->p;
    const size_t sz = dsize(p->tin);
    const int last = p->nr - 1;
    const red_dim *in = &p->r[last];
    int64_t done = 0;
    while (done < m) {
        int64_t run = in->n - g->idx[last];
        if (run > m - done) run = m - done;
        copy_strided(x->gbuf + done * (int64_t)sz, g->ip, in->in, run, sz);
        if (p->has_where) copy_strided((char *)x->mbuf + done, g->wp, in->w, run, 1);
        else if (p->masked) memset(x->mbuf + done, 1, (size_t)run);
        g->ip += run * in->in;
        g->wp += run * in->w;
        g->idx[last] += run;
        done += run;
        if (g->idx[last] < in->n) continue;
        /* end of the innermost run: the odometer over the outer reduced dims */
        g->ip -= in->n * in->in;
        g->wp -= in->n * in->w;
        g->idx[last] = 0;
        for (int d = last - 1; d >= 0; d--) {
            g->ip += p->r[d].in;
            g->wp += p->r[d].w;
            if (++g->idx[d] < p->r[d].n) break;
            g->ip -= p->r[d].n * p->r[d].in;
            g->wp -= p->r[d].n * p->r[d].w;
            g->idx[d] = 0;
        }
    }
}

/* NaNs of the gathered float input: marked 2 in the mask (absent, but not
   masked out: they take p->nan_val, NumPy's replacement, rather than the
   identity) and replaced, before any cast. */
static void mark_nans(const red_plan *p, char *g, ncl_bool *mbuf, int64_t m)
{
    if (p->tin == NCL_FLOAT64) {
        for (int64_t i = 0; i < m; i++) {
            double v;
            memcpy(&v, g + 8 * i, 8);
            if (v != v && mbuf[i]) {
                mbuf[i] = 2;
                memcpy(g + 8 * i, p->nan_val, 8);
            }
        }
    } else {
        for (int64_t i = 0; i < m; i++) {
            float v;
            memcpy(&v, g + 4 * i, 4);
            if (v != v && mbuf[i]) {
                mbuf[i] = 2;
                memcpy(g + 4 * i, p->nan_val, 4);
            }
        }
    }
}

/* The variance's second pass: each kept element x (mask 1, or every one
   without a mask) becomes (x - mean)**2 in the accumulator dtype, as
   NumPy's subtract then multiply; the others keep the sum's identity. */
static void center_square(const red_plan *p, const void *center, char *kb, const ncl_bool *mbuf,
                          int64_t m)
{
    if (p->acc == NCL_FLOAT64) {
        double c, v;
        memcpy(&c, center, 8);
        for (int64_t i = 0; i < m; i++) {
            if (mbuf && mbuf[i] != 1) continue;
            memcpy(&v, kb + 8 * i, 8);
            v -= c;
            v *= v;
            memcpy(kb + 8 * i, &v, 8);
        }
    } else {
        float c, v;
        memcpy(&c, center, 4);
        for (int64_t i = 0; i < m; i++) {
            if (mbuf && mbuf[i] != 1) continue;
            memcpy(&v, kb + 4 * i, 4);
            v -= c;
            v *= v;
            memcpy(kb + 4 * i, &v, 4);
        }
    }
}

/* The fused pass of a chunk (p->fused): m elements from src (step bytes
   apart) into dst (another buffer). With p->nan_skip a NaN becomes
   p->nan_val, or center when given, and is not counted; with center each
   element x becomes (x - center)**2 as in center_square. Returns how many
   elements were not NaN. The framework is built at -O2, whose vectoriser
   takes only loops of a known trip count: hence blocks of RED_VB. */
#define RED_VB 16
#define RED_FUSED(T, SFX)                                                              \
    static int64_t fused_##SFX(char *restrict dst, const char *restrict src, int64_t step, \
                               int64_t m, int skip, T rep, int centred, T c)           \
    {                                                                                  \
        const int64_t sz = (int64_t)sizeof(T);                                         \
        int64_t nans = 0, i = 0;                                                       \
        if (step == sz) {                                                              \
            for (; i + RED_VB <= m; i += RED_VB) {                                     \
                T v[RED_VB];                                                           \
                int64_t k = 0;                                                         \
                memcpy(v, src + i * sz, sizeof v);                                     \
                if (skip && centred) {                                                 \
                    for (int j = 0; j < RED_VB; j++) {                                 \
                        k += v[j] != v[j];                                             \
                        v[j] = v[j] != v[j] ? c : v[j];                                \
                        v[j] = (v[j] - c) * (v[j] - c);                                \
                    }                                                                  \
                } else if (skip) {                                                     \
                    for (int j = 0; j < RED_VB; j++) {                                 \
                        k += v[j] != v[j];                                             \
                        v[j] = v[j] != v[j] ? rep : v[j];                              \
                    }                                                                  \
                } else {                                                               \
                    for (int j = 0; j < RED_VB; j++) v[j] = (v[j] - c) * (v[j] - c);   \
                }                                                                      \
                memcpy(dst + i * sz, v, sizeof v);                                     \
                nans += k;                                                             \
            }                                                                          \
        }                                                                              \
        for (; i < m; i++) {                                                           \
            T v;                                                                       \
            memcpy(&v, src + i * step, sizeof v);                                      \
            const int nan = skip && v != v;                                            \
            nans += nan;                                                               \
            if (nan) v = centred ? c : rep;                                            \
            if (centred) v = (v - c) * (v - c);                                        \
            memcpy(dst + i * sz, &v, sizeof v);                                        \
        }                                                                              \
        return m - nans;                                                               \
    }
RED_FUSED(double, f64)
RED_FUSED(float, f32)
#undef RED_FUSED

static int64_t fused_chunk(const red_plan *p, char *dst, const char *src, int64_t step, int64_t m,
                           const void *center)
{
    if (p->tin == NCL_FLOAT64) {
        double rep, c = 0;
        memcpy(&rep, p->nan_val, 8);
        if (center) memcpy(&c, center, 8);
        return fused_f64(dst, src, step, m, p->nan_skip, rep, center != NULL, c);
    }
    float rep, c = 0;
    memcpy(&rep, p->nan_val, 4);
    if (center) memcpy(&c, center, 4);
    return fused_f32(dst, src, step, m, p->nan_skip, rep, center != NULL, c);
}

/* The next m elements as the kernel's input: gathered, cast, masked.
   *selected counts the elements the mask keeps; for a masked argmin/argmax
   the kept elements are packed to the front, *selected is their number in
   this chunk and x->pos their positions. Returns the buffer. */
static NclStatus next_chunk(red_exec *x, red_walk *g, int64_t m, const char **buf,
                            int64_t *selected)
{
    const red_plan *p = x->p;
    if (p->fused && (p->nan_skip || x->center)) {
        /* one pass: the input's elements (read in place when the sequence
           is one strided run) into the buffer, NaN replaced (by the mean in
           the variance's second pass, so that it adds a zero square) */
        const int64_t sz = (int64_t)dsize(p->tin);
        const char *src = x->gbuf;
        int64_t step = sz;
        if (p->nr == 1) {
            src = g->ip;
            step = p->r[0].in;
            g->ip += m * step;
            g->idx[0] += m;
        } else {
            gather(x, g, m);
        }
        const int64_t c = fused_chunk(p, x->kbuf, src, step, m, x->center);
        if (p->arg) x->numbers += c;
        else *selected += c;
        *buf = x->kbuf;
        return NCL_OK;
    }
    gather(x, g, m);
    if (p->nan_skip) mark_nans(p, x->gbuf, x->mbuf, m);
    char *kb = x->gbuf;
    if (p->cast_in.node) {
        NclStatus st = convert(x, &p->cast_in, x->gbuf, (int64_t)dsize(p->tin), x->kbuf,
                               (int64_t)dsize(p->kin), m);
        if (st) return st;
        kb = x->kbuf;
    }
    if (p->packs) {
        /* an index must name a kept element: keep only those, and where
           each one was. A NaN stays, as NumPy's nanargmin sees it: +inf
           (-inf for nanargmax), so [NaN, inf] gives 0; x->numbers counts
           the others, to refuse an all-NaN slice. */
        const size_t ks = dsize(p->kin);
        int64_t c = 0;
        for (int64_t i = 0; i < m; i++) {
            if (x->mbuf[i] == 0) continue;
            x->numbers += x->mbuf[i] == 1;
            if (c != i) memcpy(kb + c * (int64_t)ks, kb + i * (int64_t)ks, ks);
            x->pos[c++] = i;
        }
        *selected = c;
    } else if (p->masked) {
        const size_t ks = dsize(p->kin);
        int64_t c = 0;
        for (int64_t i = 0; i < m; i++) {
            if (x->mbuf[i] == 1) c++;
            else if (x->mbuf[i] == 0) memcpy(kb + i * (int64_t)ks, p->ident, ks);
        }
        *selected += c;
    } else {
        *selected += m;
    }
    if (x->center) center_square(p, x->center, kb, p->masked ? x->mbuf : NULL, m);
    *buf = kb;
    return NCL_OK;
}

/* The chunk values' binary counter of a float sum, compensated as the
   kernels do it (ncl/reduce.h): chunk c's value v joins the pending pairs. */
typedef struct red_ddstack {
    ncl_dd_f64 d[64];
    ncl_dd_f32 f[64];
    int depth;
} red_ddstack;

static void dd_push(red_ddstack *k, NclDType acc, const unsigned char *v, const unsigned char *lo,
                    int64_t c, int last)
{
    if (acc == NCL_FLOAT64) {
        ncl_dd_f64 x = {0, 0};
        memcpy(&x.hi, v, 8);
        if (lo) memcpy(&x.lo, lo, 8);
        for (int64_t b = c + 1; (b & 1) == 0; b >>= 1) x = ncl_dd_add_f64(k->d[--k->depth], x);
        if (last)
            while (k->depth > 0) x = ncl_dd_add_f64(k->d[--k->depth], x);
        k->d[k->depth++] = x;
    } else {
        ncl_dd_f32 x = {0, 0};
        memcpy(&x.hi, v, 4);
        if (lo) memcpy(&x.lo, lo, 4);
        for (int64_t b = c + 1; (b & 1) == 0; b >>= 1) x = ncl_dd_add_f32(k->f[--k->depth], x);
        if (last)
            while (k->depth > 0) x = ncl_dd_add_f32(k->f[--k->depth], x);
        k->f[k->depth++] = x;
    }
}

/* Whether the chunk values are combined compensated, as the float sum
   tree does (NANSUM's kernels run that tree too). */
NCL_INLINE int compensated(const red_plan *p)
{
    return (p->kern.op == NCL_SUM || p->kern.op == NCL_NANSUM) && is_float(p->acc);
}

/* What a run of chunks of one sequence reduces to: an accumulator value
   (with its low part, for a compensated sum), or for argmin/argmax the best
   element (as the kernel's input dtype) and its position; and how many
   elements the mask kept. */
typedef struct red_part {
    unsigned char v[8], lo[8];
    int64_t at;
    int64_t selected;
    int64_t numbers;          /* nan-aware argmin/argmax: kept elements not NaN */
    int have;                 /* argmin/argmax: some element was kept */
} red_part;

/* Chunks [c0, c1) of the sequence at ip/wp by the gathered path, combined
   by the tree's binary counter counted from c0: the whole sequence, or one
   of the power-of-two subtrees the tree is made of (ncl/reduce.h). */
static NclStatus reduce_part(red_exec *x, const char *ip, const char *wp, int64_t c0, int64_t c1,
                             red_part *r)
{
    const red_plan *p = x->p;
    const size_t as = dsize(p->acc), ks = dsize(p->kin);
    unsigned char pend[64][8], v[8];
    int depth = 0;
    red_walk g;
    NclStatus st;
    walk_init(&g, p, ip, wp);
    walk_seek(&g, p, c0 * RED_CHUNK);
    const int64_t nc = c1 - c0;
    int64_t kept = 0;
    const int dd = compensated(p);
    red_ddstack dds;
    dds.depth = 0;
    memset(r, 0, sizeof *r);
    x->numbers = 0;
    for (int64_t rel = 0; rel < nc; rel++) {
        const int64_t c = c0 + rel;
        const int64_t m = p->n - c * RED_CHUNK < RED_CHUNK ? p->n - c * RED_CHUNK : RED_CHUNK;
        const char *kb;
        if ((st = next_chunk(x, &g, m, &kb, &kept))) return st;
        const int64_t km = p->packs ? kept : m;
        if (p->arg && km == 0) continue;
        if ((st = run_kernel(x, &p->kern, NCL_SUBSYSTEM_REDUCE, kb, (char *)v, km, (int64_t)ks,
                             (int64_t)as, 1, 0, 0, NULL)))
            return st;
        if (p->arg) {
            /* v is the chunk's index; the pair (best, candidate) decides,
               the earlier one winning ties */
            int64_t i;
            memcpy(&i, v, 8);
            const int64_t at = c * RED_CHUNK + (p->packs ? x->pos[i] : i);
            if (!r->have) {
                memcpy(r->v, kb + i * (int64_t)ks, ks);
                r->at = at;
                r->have = 1;
                continue;
            }
            char pair[16];
            int64_t pick;
            memcpy(pair, r->v, ks);
            memcpy(pair + ks, kb + i * (int64_t)ks, ks);
            if ((st = run_kernel(x, &p->kern, NCL_SUBSYSTEM_REDUCE, pair, (char *)&pick, 2,
                                 (int64_t)ks, 8, 1, 0, 0, NULL)))
                return st;
            if (pick == 1) {
                memcpy(r->v, pair + ks, ks);
                r->at = at;
            }
            continue;
        }
        if (dd) {
            dd_push(&dds, p->acc, v, NULL, rel, rel + 1 == nc);
            continue;
        }
        /* the chunk values' binary counter (ncl/reduce.h) */
        for (int64_t k = rel + 1; (k & 1) == 0; k >>= 1)
            if ((st = combine(x, (const char *)pend[--depth], (const char *)v, (char *)v)))
                return st;
        if (rel + 1 < nc) memcpy(pend[depth++], v, as);
    }
    r->selected = kept;
    r->numbers = x->numbers;
    if (p->arg) return NCL_OK;
    if (dd) {
        if (p->acc == NCL_FLOAT64) {
            memcpy(r->v, &dds.d[0].hi, 8);
            memcpy(r->lo, &dds.d[0].lo, 8);
        } else {
            memcpy(r->v, &dds.f[0].hi, 4);
            memcpy(r->lo, &dds.f[0].lo, 4);
        }
        return NCL_OK;
    }
    while (depth > 0)
        if ((st = combine(x, (const char *)pend[--depth], (const char *)v, (char *)v))) return st;
    memcpy(r->v, v, as);
    return NCL_OK;
}

/* One output by the gathered path: *res (an accumulator value) and the
   number of elements the mask kept. */
static NclStatus reduce_one(red_exec *x, const char *ip, const char *wp, char *res,
                            int64_t *selected)
{
    const red_plan *p = x->p;
    *selected = 0;
    if (p->n == 0 || p->nout == 0)
        return run_kernel(x, &p->kern, NCL_SUBSYSTEM_REDUCE, ip, res, 0, 0,
                          (int64_t)dsize(p->acc), 1, 0, 0, NULL);
    red_part r;
    const int64_t nc = (p->n + RED_CHUNK - 1) / RED_CHUNK;
    NclStatus st;
    if (p->variance && p->fused && !p->nan_skip && p->nr == 1) {
        /* the plain variance's first pass is a sum read in place, the
           same tree as the gathered chunks */
        memset(&r, 0, sizeof r);
        r.selected = p->n;
        st = run_kernel(x, &p->kern, NCL_SUBSYSTEM_REDUCE, ip, (char *)r.v, p->n, p->r[0].in,
                        (int64_t)dsize(p->acc), 1, 0, 0, NULL);
    } else {
        st = reduce_part(x, ip, wp, 0, nc, &r);
    }
    if (st) return st;
    *selected = r.selected;
    if (p->arg && p->nan_skip && r.numbers == 0)
        return NCL_ERR_INVALID_ARGUMENT; /* all NaN: refused by the caller */
    if (p->arg) memcpy(res, &r.at, 8);
    else memcpy(res, r.v, dsize(p->acc));
    if (!p->variance) return NCL_OK;
    /* the second pass, about the mean; nothing kept: the sum of nothing */
    unsigned char mean[8];
    if (r.selected == 0) {
        memset(res, 0, dsize(p->acc));
        return NCL_OK;
    }
    if (p->acc == NCL_FLOAT64) {
        double v;
        memcpy(&v, r.v, 8);
        v /= (double)r.selected;
        memcpy(mean, &v, 8);
    } else {
        /* NumPy's float32 division by the count, rounded once (exact for
           counts below 2**24) */
        float v;
        memcpy(&v, r.v, 4);
        v = (float)((double)v / (double)r.selected);
        memcpy(mean, &v, 4);
    }
    x->center = mean;
    st = reduce_part(x, ip, wp, 0, nc, &r);
    x->center = NULL;
    if (st) return st;
    memcpy(res, r.v, dsize(p->acc));
    return NCL_OK;
}

/* Group g of a long sequence split across threads (p->groups): chunks
   [g * gsize, (g + 1) * gsize), read in place by the kernel on the direct
   path (its low part through aux->lo), gathered otherwise. */
static NclStatus reduce_group(red_exec *x, int64_t g, red_part *r)
{
    const red_plan *p = x->p;
    const int64_t nc = (p->n + RED_CHUNK - 1) / RED_CHUNK;
    const int64_t c0 = g * p->gsize, c1 = c0 + p->gsize < nc ? c0 + p->gsize : nc;
    if (!p->direct) return reduce_part(x, p->in0, p->w0, c0, c1, r);
    const int64_t e0 = c0 * RED_CHUNK, e1 = c1 * RED_CHUNK < p->n ? c1 * RED_CHUNK : p->n;
    const int64_t step = p->r[0].in;
    const char *ip = p->in0 + e0 * step;
    const int dd = compensated(p);
    memset(r, 0, sizeof *r);
    r->selected = e1 - e0;
    NclStatus st = run_kernel_lo(x, &p->kern, NCL_SUBSYSTEM_REDUCE, ip, (char *)r->v, e1 - e0,
                                 step, (int64_t)dsize(p->acc), 1, 0, 0, NULL, dd ? r->lo : NULL);
    if (st || !p->arg) return st;
    int64_t i;
    memcpy(&i, r->v, 8);
    r->at = e0 + i;
    memcpy(r->v, ip + i * step, dsize(p->kin));
    r->have = 1;
    return NCL_OK;
}

/* The groups' values combined in order, as the tree combines its
   subtrees: one accumulator value (or position) into res. */
static NclStatus combine_groups(red_exec *x, const red_part *parts, int64_t ng, char *res,
                                int64_t *selected)
{
    const red_plan *p = x->p;
    const size_t as = dsize(p->acc), ks = dsize(p->kin);
    const int dd = compensated(p);
    unsigned char pend[64][8], v[8];
    int depth = 0;
    red_ddstack dds;
    dds.depth = 0;
    red_part best;
    NclStatus st;
    int64_t numbers = 0;
    memset(&best, 0, sizeof best);
    *selected = 0;
    for (int64_t g = 0; g < ng; g++) {
        const red_part *r = &parts[g];
        *selected += r->selected;
        numbers += r->numbers;
        if (p->arg) {
            if (!r->have) continue;
            if (!best.have) {
                best = *r;
                continue;
            }
            char pair[16];
            int64_t pick;
            memcpy(pair, best.v, ks);
            memcpy(pair + ks, r->v, ks);
            if ((st = run_kernel(x, &p->kern, NCL_SUBSYSTEM_REDUCE, pair, (char *)&pick, 2,
                                 (int64_t)ks, 8, 1, 0, 0, NULL)))
                return st;
            if (pick == 1) best = *r;
            continue;
        }
        if (dd) {
            dd_push(&dds, p->acc, r->v, r->lo, g, g + 1 == ng);
            continue;
        }
        memcpy(v, r->v, as);
        for (int64_t k = g + 1; (k & 1) == 0; k >>= 1)
            if ((st = combine(x, (const char *)pend[--depth], (const char *)v, (char *)v)))
                return st;
        if (g + 1 < ng) memcpy(pend[depth++], v, as);
    }
    if (p->arg) {
        if (p->nan_skip && numbers == 0)
            return NCL_ERR_INVALID_ARGUMENT; /* all NaN: refused by the caller */
        memcpy(res, &best.at, 8);
        return NCL_OK;
    }
    if (dd) {
        if (p->acc == NCL_FLOAT64) memcpy(res, &dds.d[0].hi, 8);
        else memcpy(res, &dds.f[0].hi, 4);
        return NCL_OK;
    }
    while (depth > 0)
        if ((st = combine(x, (const char *)pend[--depth], (const char *)v, (char *)v))) return st;
    memcpy(res, v, as);
    return NCL_OK;
}

/* Turns cnt accumulator values into output elements at out (step ostep):
   initial=, the mean's division, the casts to the result and output
   dtypes. sel[] holds the counts of kept elements (NULL: p->n each) for a
   masked or nan-aware mean, a variance and NANMIN/NANMAX. A variance with
   count - ddof <= 0 returns NCL_ERR_INVALID_ARGUMENT (without a message:
   the caller words it), having written its results into a temporary. */
static NclStatus finalize(red_exec *x, char *accb, const int64_t *sel, int64_t cnt, char *out,
                          int64_t ostep)
{
    const red_plan *p = x->p;
    const int64_t as = (int64_t)dsize(p->acc), rs = (int64_t)dsize(p->res);
    _Alignas(64) char pairs[RED_BATCH * 16];
    _Alignas(64) char b1[RED_BATCH * 8], b2[RED_BATCH * 8];
    NclStatus st;
    if (p->has_init) {
        for (int64_t j = 0; j < cnt; j++) {
            memcpy(pairs + 2 * j * as, p->init, (size_t)as);
            memcpy(pairs + (2 * j + 1) * as, accb + j * as, (size_t)as);
        }
        if ((st = run_kernel(x, &p->merge, NCL_SUBSYSTEM_REDUCE, pairs, accb, 2, as, as, cnt,
                             2 * as, 0, NULL)))
            return st;
    }
    const char *cur = accb;
    if (p->variance) {
        for (int64_t j = 0; j < cnt; j++) {
            const int64_t c = sel ? sel[j] : p->n;
            /* c - ddof, saturated (a negative ddof is allowed) */
            const int64_t dof = p->ddof < 0 && c > INT64_MAX + p->ddof ? INT64_MAX : c - p->ddof;
            if (dof <= 0) return NCL_ERR_INVALID_ARGUMENT;
            if (p->acc == NCL_FLOAT64) {
                double v;
                memcpy(&v, accb + 8 * j, 8);
                v /= (double)dof;
                if (p->variance == 2) v = sqrt(v);
                memcpy(accb + 8 * j, &v, 8);
            } else {
                float v;
                memcpy(&v, accb + 4 * j, 4);
                v = (float)((double)v / (double)dof);
                if (p->variance == 2) v = sqrtf(v);
                memcpy(accb + 4 * j, &v, 4);
            }
        }
    } else if (p->nan_extreme) {
        /* the kernels give NaN where every element was NaN: INVALID, as
           NumPy's warning */
        for (int64_t j = 0; j < cnt; j++) {
            int isnan_j;
            if (p->acc == NCL_FLOAT64) {
                double v;
                memcpy(&v, accb + 8 * j, 8);
                isnan_j = v != v;
            } else {
                float v;
                memcpy(&v, accb + 4 * j, 4);
                isnan_j = v != v;
            }
            if (isnan_j) *x->fpe |= NCL_FPE_INVALID;
        }
    }
    if (p->variance || p->nan_extreme) {
        if (p->acc != p->res) {
            if ((st = convert(x, &p->cvt_acc_res, accb, as, b1, rs, cnt))) return st;
            cur = b1;
        }
    } else if (p->op == NCL_MEAN) {
        char *d = accb;
        if (p->acc != NCL_FLOAT64) { /* integer dtype=: wrap to it, then divide as float64 */
            if ((st = convert(x, &p->cvt_acc_res, accb, as, b1, rs, cnt))) return st;
            if ((st = convert(x, &p->cvt_res_f64, b1, rs, b2, 8, cnt))) return st;
            d = b2;
        }
        for (int64_t j = 0; j < cnt; j++) {
            double v;
            memcpy(&v, d + 8 * j, 8);
            v /= (double)(sel ? sel[j] : p->n); /* 0/0 is NaN and raises INVALID, as NumPy */
            memcpy(d + 8 * j, &v, 8);
        }
        cur = d;
        if (p->res != NCL_FLOAT64) {
            if ((st = convert(x, &p->cvt_f64_res, d, 8, b1, rs, cnt))) return st;
            cur = b1;
        }
    } else if (p->acc != p->res) {
        if ((st = convert(x, &p->cvt_acc_res, accb, as, b1, rs, cnt))) return st;
        cur = b1;
    }
    return convert(x, &p->cvt_res_out, cur, rs, out, ostep, cnt);
}

/* The input, mask and output of kept row `row` (all kept dims but the
   last, C order). */
static void row_start(const red_plan *p, int64_t row, const char **ib, const char **wb, char **ob)
{
    *ib = p->in0;
    *wb = p->w0;
    *ob = p->out0;
    for (int d = p->nk - 2; d >= 0 && row > 0; d--) {
        const int64_t i = row % p->k[d].n;
        row /= p->k[d].n;
        *ib += i * p->k[d].in;
        if (*wb) *wb += i * p->k[d].w;
        *ob += i * p->k[d].out;
    }
}

/* NANARGMIN/NANARGMAX by their kernels: index i of the sequence at ip is
   a NaN only when every element is one, or when a NaN ties with an
   infinity first; NCL_ERR_INVALID_ARGUMENT (worded by the caller) for the
   former. */
static NclStatus nan_arg_check(const red_plan *p, const char *ip, int64_t i)
{
    const int64_t step = p->r[0].in;
    for (int64_t k = -1; k < p->n; k++) {
        const char *e = ip + (k < 0 ? i : k) * step;
        int number;
        if (p->tin == NCL_FLOAT64) {
            double v;
            memcpy(&v, e, 8);
            number = v == v;
        } else {
            float v;
            memcpy(&v, e, 4);
            number = v == v;
        }
        if (number) return NCL_OK; /* element i first: the usual answer */
    }
    return NCL_ERR_INVALID_ARGUMENT;
}

/* Whether finalize needs the counts of kept elements. */
NCL_INLINE int counts_needed(const red_plan *p)
{
    return (p->op == NCL_MEAN && p->masked) || p->variance;
}

/* Reductions: unit u is one batch of up to RED_BATCH adjacent outputs
   along the last kept dim, of kept row u / (batches per row). */
static NclStatus reduce_unit(red_exec *x, int64_t u)
{
    const red_plan *p = x->p;
    const red_dim *kd = &p->k[p->nk - 1];
    const int64_t nb = (kd->n + RED_BATCH - 1) / RED_BATCH;
    const int64_t as = (int64_t)dsize(p->acc);
    const int64_t b = u % nb * RED_BATCH;
    const int64_t cnt = kd->n - b < RED_BATCH ? kd->n - b : RED_BATCH;
    _Alignas(64) char accb[RED_BATCH * 8];
    int64_t sel[RED_BATCH];
    const int counted = counts_needed(p);
    const char *ib, *wb;
    char *ob;
    NclStatus st;
    row_start(p, u / nb, &ib, &wb, &ob);
    const char *ip = ib + b * kd->in;
    if (p->direct) {
        /* (a mask here means empty sequences: nothing is kept) */
        if (counted) memset(sel, 0, sizeof sel);
        st = run_kernel(x, &p->kern, NCL_SUBSYSTEM_REDUCE, ip, accb, p->n, p->r[0].in, as, cnt,
                        kd->in, 0, NULL);
        for (int64_t j = 0; j < cnt && !st && p->nan_arg && p->n > 0; j++) {
            int64_t i;
            memcpy(&i, accb + 8 * j, 8);
            st = nan_arg_check(p, ip + j * kd->in, i);
        }
    } else {
        const char *wp = wb ? wb + b * kd->w : NULL;
        st = NCL_OK;
        for (int64_t j = 0; j < cnt && !st; j++)
            st = reduce_one(x, ip + j * kd->in, wp ? wp + j * kd->w : NULL, accb + j * as, &sel[j]);
    }
    if (!st) st = finalize(x, accb, counted ? sel : NULL, cnt, ob + b * kd->out, kd->out);
    return st;
}

/* Accumulations: unit u is one sequence (kept position u), run chunk by
   chunk with the running value carried from one chunk to the next. */
static NclStatus accumulate_unit(red_exec *x, int64_t u)
{
    const red_plan *p = x->p;
    const int64_t as = (int64_t)dsize(p->acc), rs = (int64_t)dsize(p->res);
    const red_dim *kd = &p->k[p->nk - 1];
    _Alignas(64) char accb[RED_CHUNK * 8], rb[RED_CHUNK * 8];
    unsigned char carry[8];
    const char *ib, *wb;
    char *ob;
    NclStatus st;
    const int64_t j = u % kd->n;
    row_start(p, u / kd->n, &ib, &wb, &ob);
    red_walk g;
    walk_init(&g, p, ib + j * kd->in, NULL);
    char *o = ob + j * kd->out;
    for (int64_t c0 = 0; c0 < p->n; c0 += RED_CHUNK) {
        const int64_t m = p->n - c0 < RED_CHUNK ? p->n - c0 : RED_CHUNK;
        const char *src;
        int64_t ss, unused = 0;
        if (p->direct) {
            src = ib + j * kd->in + c0 * p->r[0].in;
            ss = p->r[0].in;
        } else {
            if ((st = next_chunk(x, &g, m, &src, &unused))) return st;
            ss = (int64_t)dsize(p->kin);
        }
        st = run_kernel(x, &p->kern, NCL_SUBSYSTEM_REDUCE, src, accb, m, ss, as, 1, 0, 0,
                        c0 ? carry : NULL);
        if (st) return st;
        memcpy(carry, accb + (m - 1) * as, (size_t)as);
        const char *cur = accb;
        if (p->acc != p->res) {
            if ((st = convert(x, &p->cvt_acc_res, accb, as, rb, rs, m))) return st;
            cur = rb;
        }
        if ((st = convert(x, &p->cvt_res_out, cur, rs, o + c0 * p->oseq, p->oseq, m))) return st;
    }
    return NCL_OK;
}

/* How many units the call has (reduce_unit / accumulate_unit). */
static int64_t red_units(const red_plan *p)
{
    if (p->nout == 0) return 0;
    const red_dim *kd = &p->k[p->nk - 1];
    if (p->cumulative) return p->n == 0 ? 0 : p->nout;
    return p->nout / kd->n * ((kd->n + RED_BATCH - 1) / RED_BATCH);
}

/* A split call: the plan, each worker's scratch, and the groups' values. */
typedef struct red_job {
    const red_plan *p;
    char *scratch;     /* RED_SCRATCH bytes per worker, or NULL */
    red_part *parts;   /* p->groups of them, or NULL */
} red_job;

static void exec_init(red_exec *x, const red_job *j, int worker, int *fpe)
{
    memset(x, 0, sizeof *x);
    x->p = j->p;
    x->fpe = fpe;
    x->worker = worker;
    x->nworkers = j->p->nt;
    if (j->scratch) {
        x->gbuf = j->scratch + (size_t)worker * RED_SCRATCH;
        x->kbuf = x->gbuf + RED_CHUNK * 8;
        x->pos = (int64_t *)(void *)(x->kbuf + RED_CHUNK * 8);
        x->mbuf = (ncl_bool *)(x->kbuf + 2 * RED_CHUNK * 8);
    }
}

static NclStatus red_task(void *arg, int worker, int64_t task, int *fpe)
{
    const red_job *j = arg;
    red_exec x;
    exec_init(&x, j, worker, fpe);
    x.chunk = task;
    if (j->p->groups) return reduce_group(&x, task, &j->parts[task]);
    return j->p->cumulative ? accumulate_unit(&x, task) : reduce_unit(&x, task);
}

/* Runs the plan: units across the threads, or the groups of one long
   sequence and then, on this thread, their combination and finalisation. */
static NclStatus red_execute(const red_job *j, int *fpe, int *used)
{
    const red_plan *p = j->p;
    if (!p->groups) return ncl_pool_run(p->nt, red_units(p), red_task, (void *)j, 1, fpe, used);
    NclStatus st = ncl_pool_run(p->nt, p->groups, red_task, (void *)j, 1, fpe, used);
    if (st) return st;
    red_exec x;
    exec_init(&x, j, 0, fpe);
    x.nworkers = 1; /* the workers are done */
    x.chunk = p->groups;
    _Alignas(64) char accb[8];
    int64_t sel;
    if ((st = combine_groups(&x, j->parts, p->groups, accb, &sel))) return st;
    if (p->nan_arg) {
        int64_t i;
        memcpy(&i, accb, 8);
        if ((st = nan_arg_check(p, p->in0, i))) return st;
    }
    return finalize(&x, accb, counts_needed(p) ? &sel : NULL, 1, p->out0, 0);
}

/* Copies the elements of src into dst (same dtype and shape). */
static void copy_array(NclArray *dst, const NclArray *src)
{
    int64_t idx[NCL_MAXDIMS] = {0};
    const char *s = src->data;
    char *d = dst->data;
    const int nd = dst->ndim;
    for (int64_t i = 0; i < dst->size; i++) {
        memcpy(d, s, dst->itemsize);
        for (int k = nd - 1; k >= 0; k--) {
            s += src->strides[k];
            d += dst->strides[k];
            if (++idx[k] < dst->shape[k]) break;
            s -= src->strides[k] * src->shape[k];
            d -= dst->strides[k] * dst->shape[k];
            idx[k] = 0;
        }
    }
}

/* ---- the default implementation -------------------------------------------------- */

static void release_plan(red_plan *p)
{
    NclArrayRelease(p->temp);
    p->temp = NULL;
    if (p->scratch) ncl_buffer_release(p->scratch);
    p->scratch = NULL;
}

NclStatus ncl_default_reduce(NclHook *self, NclReduceOp op, const NclArray *a, NclArray **out,
                             const NclParams *params)
{
    (void)self;
    const NclSubsystem sub = NCL_SUBSYSTEM_REDUCE;
    char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR], s2[NCL_SHAPE_STR];
    NclStatus st;

    if ((int)op < 0 || (int)op >= ncl_op_count(sub))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclReduce: unknown op %d (valid: 0..%d)",
                         (int)op, ncl_op_count(sub) - 1);
    red_plan p;
    memset(&p, 0, sizeof p);
    const NclReduceOp asked = op;
    p.name = ncl_op_name(sub, (int)op);
    p.variance = op == NCL_VAR || op == NCL_NANVAR ? 1 : op == NCL_STD || op == NCL_NANSTD ? 2 : 0;
    /* a nan-aware op on integers or bools is its plain op */
    p.nan_skip = op >= NCL_NANSUM && op != NCL_STD && op != NCL_VAR && a &&
                 is_float(a->dtype);
    op = plain_op(op);
    p.op = op;
    /* NANMIN/NANMAX run kernels of their own (NumPy's fmin/fmax
       reduction), which pass over NaN themselves */
    p.nan_extreme = p.nan_skip && (op == NCL_MIN || op == NCL_MAX);
    if (p.nan_extreme) p.nan_skip = 0;
    p.cumulative = op == NCL_CUMSUM || op == NCL_CUMPROD;
    p.arg = op == NCL_ARGMIN || op == NCL_ARGMAX;
    if (!a || !out)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, WHO ": %s is NULL", p.name,
                         a ? "the out pointer" : "the input array");
    NclParams q;
    if ((st = ncl_params_read(sub, (int)asked, params, &q))) return st;
    p.ddof = q.ddof;
    p.a = a;
    p.tin = a->dtype;
    NclArray *given = *out;
    const NclArray *w = q.where;

    /* operands */
    if ((st = check_host(&p, a, "the input"))) return st;
    if (given) {
        if ((st = check_host(&p, given, "the output"))) return st;
        if (!(given->flags & NCL_ARRAY_WRITEABLE))
            return ncl_error(NCL_ERR_READONLY, WHO ": the output array is read-only", p.name);
        if (ncl_array_has_internal_overlap(given))
            return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                             WHO ": the output has internal overlap (strides %s over shape %s)",
                             p.name, ncl_shape_str(s0, given->ndim, given->strides),
                             ncl_shape_str(s1, given->ndim, given->shape));
    }
    if (w) {
        if ((st = check_host(&p, w, "the where mask"))) return st;
        if (w->dtype != NCL_BOOL)
            return ncl_error(NCL_ERR_DTYPE, WHO ": the where mask must be bool, not %s", p.name,
                             NclDTypeName(w->dtype));
    }

    /* axes, where's shape, what the op accepts */
    int red[NCL_MAXDIMS], flat;
    if ((st = resolve_axes(&p, &q, red, &flat))) return st;
    if (w) {
        int ok = w->ndim <= a->ndim;
        for (int d = 0; ok && d < w->ndim; d++) {
            const int64_t e = w->shape[d];
            ok = e == 1 || e == a->shape[d + a->ndim - w->ndim];
        }
        if (!ok)
            return ncl_error(NCL_ERR_BROADCAST,
                             WHO ": where mask with shape %s cannot be broadcast to the input "
                             "shape %s",
                             p.name, ncl_shape_str(s0, w->ndim, w->shape),
                             ncl_shape_str(s1, a->ndim, a->shape));
    }
    if ((st = check_extras(&p, &q))) return st;

    /* dtypes */
    if ((st = resolve_dtypes(&p, &q))) return st;
    int ond, omap[NCL_MAXDIMS];
    int64_t oshape[NCL_MAXDIMS];
    output_shape(&p, red, flat, q.keepdims, &ond, oshape, omap);
    if (p.arg && flat) { /* the flattened array: a 0-d result, or all ones */
        ond = q.keepdims ? a->ndim : 0;
        for (int d = 0; d < ond; d++) oshape[d] = 1;
    }
    p.odt = given ? given->dtype : p.res;
    if (given) {
        int ok = given->ndim == ond;
        for (int d = 0; ok && d < ond; d++) ok = given->shape[d] == oshape[d];
        if (!ok)
            return ncl_error(NCL_ERR_SHAPE, WHO ": output shape %s does not match the result shape "
                             "%s (input %s%s)",
                             p.name, ncl_shape_str(s0, given->ndim, given->shape),
                             ncl_shape_str(s1, ond, oshape), ncl_shape_str(s2, a->ndim, a->shape),
                             q.keepdims ? ", keepdims" : "");
        if (p.res != p.odt && !NclCanCast(p.res, p.odt, q.casting))
            return ncl_error(NCL_ERR_CASTING,
                             WHO ": cannot cast the result from %s to the output dtype %s under "
                             "casting rule '%s'",
                             p.name, NclDTypeName(p.res), NclDTypeName(p.odt),
                             casting_names[q.casting]);
    }

    /* empty reductions without an identity; NumPy's messages */
    int64_t n = 1, nout = 1;
    for (int d = 0; d < a->ndim; d++) {
        if (red[d]) n *= a->shape[d];
        else nout *= a->shape[d];
    }
    if (n == 0 && nout > 0 && !p.cumulative) {
        if ((op == NCL_MIN || op == NCL_MAX) && !q.initial)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                             WHO ": zero-size array to reduction operation %s which has no "
                             "identity (input shape %s)",
                             p.name, op == NCL_MIN ? "minimum" : "maximum",
                             ncl_shape_str(s0, a->ndim, a->shape));
        if (p.arg)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                             WHO ": attempt to get %s of an empty sequence (input shape %s)",
                             p.name, p.name, ncl_shape_str(s0, a->ndim, a->shape));
    }

    /* finalisation chains and values */
    if (p.op == NCL_MEAN) {
        if (p.acc != NCL_FLOAT64) {
            if ((st = find_cast(&p, p.acc, p.res, &p.cvt_acc_res))) return st;
            if ((st = find_cast(&p, p.res, NCL_FLOAT64, &p.cvt_res_f64))) return st;
        }
        if (p.res != NCL_FLOAT64 && (st = find_cast(&p, NCL_FLOAT64, p.res, &p.cvt_f64_res)))
            return st;
    } else if (p.acc != p.res && (st = find_cast(&p, p.acc, p.res, &p.cvt_acc_res))) {
        return st;
    }
    if ((st = find_cast(&p, p.res, p.odt, &p.cvt_res_out))) return st;
    if (q.initial) {
        p.has_init = 1;
        if (p.res == p.acc) {
            memcpy(p.init, q.initial, dsize(p.res));
        } else { /* an integer dtype= into the 64-bit accumulator, sign kept */
            const int64_t v = ncl_load_int64(p.res, q.initial);
            memcpy(p.init, &v, 8);
        }
    } else if (w && is_float(p.acc) && (op == NCL_SUM || op == NCL_MEAN)) {
        /* NumPy starts a masked sum from the identity +0.0; the tree starts
           from -0.0, so +0.0 is added once at the end (only the sign of a
           zero result can change) */
        p.has_init = 1;
        if (p.acc == NCL_FLOAT32) {
            const float z = 0.0f;
            memcpy(p.init, &z, 4);
        } else {
            const double z = 0.0;
            memcpy(p.init, &z, 8);
        }
    }
    p.masked = w != NULL || p.nan_skip;
    p.packs = p.arg && w != NULL;
    /* float in, float kernel input, no mask: the fused pass (the variance of
       integers is cast first, and takes the general path) */
    p.fused = !w && !p.cast_in.node && is_float(p.tin) && (p.nan_skip || p.variance);
    if (p.nan_skip) { /* NumPy's replacement of a NaN, in the input dtype */
        const double v = op == NCL_PROD || op == NCL_CUMPROD ? 1.0
                         : op == NCL_MIN || op == NCL_ARGMIN ? (double)INFINITY
                         : op == NCL_MAX || op == NCL_ARGMAX ? -(double)INFINITY : 0.0;
        if (p.tin == NCL_FLOAT32) {
            const float f = (float)v;
            memcpy(p.nan_val, &f, 4);
        } else {
            memcpy(p.nan_val, &v, 8);
        }
    }
    if (w) {
        p.has_where = 1;
        const int kop = p.kern.op;
        put_ident(p.kin, kop == NCL_PROD || kop == NCL_ALL ? ID_ONE
                         : kop == NCL_MIN ? ID_HIGHEST
                         : kop == NCL_MAX ? ID_LOWEST : ID_ZERO,
                  p.ident);
        if (p.nan_extreme) { /* masked out is absent, as a NaN is */
            const double v = (double)NAN;
            const float f = NAN;
            if (p.kin == NCL_FLOAT32) memcpy(p.ident, &f, 4);
            else memcpy(p.ident, &v, 8);
        }
    }

    /* memory: the result (or a stand-in for an overlapping output), then
       gather scratch; nothing is written before all of it is held */
    /* a variance (count - ddof) and NANARGMIN/NANARGMAX (an all-NaN
       slice) may be refused after computing: their results go to a
       temporary first */
    const int late_refusal = p.variance || (p.arg && p.nan_skip);
    if (given) {
        if (late_refusal || ncl_array_ranges_overlap(given, a) ||
            (w && ncl_array_ranges_overlap(given, w))) {
            if ((st = ncl_array_alloc("NclReduce", p.odt, given->ndim, given->shape, NCL_ORDER_C, 0,
                                      &p.temp)))
                return st;
            p.target = p.temp;
        } else {
            p.target = given;
        }
    } else {
        if ((st = ncl_array_alloc("NclReduce", p.odt, ond, oshape, NCL_ORDER_C, 0, &p.result)))
            return st;
        p.target = p.result;
    }
    make_geometry(&p, red, flat, omap, w);
    if (w && !q.initial && (p.arg || op == NCL_MIN || op == NCL_MAX) && !mask_selects_all(&p)) {
        release_plan(&p);
        NclArrayRelease(p.result);
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         WHO ": the where mask selects no element for some output, and %s has "
                         "no identity (give initial= for min/max)",
                         p.name, p.name);
    }
    if (p.nan_skip && p.arg && !w && p.nr == 1) {
        /* one strided run: the nan-aware kernels read it in place, NaN as
           +-inf; an all-NaN output is found after (nan_arg_check) */
        if ((st = find_kernel(&p, sub, op == NCL_ARGMIN ? NCL_NANARGMIN : NCL_NANARGMAX, p.tin,
                              NCL_INT64, &p.kern))) {
            release_plan(&p);
            NclArrayRelease(p.result);
            return st;
        }
        p.nan_skip = p.masked = p.fused = 0;
        p.nan_arg = 1;
    }
    p.direct = p.n == 0 || (p.nr == 1 && !p.cast_in.node && !p.masked && !p.variance);

    /* threads: over units of outputs, or, for one long sequence, over
       groups of 2**k chunks (subtrees of the reduction tree, so the split
       changes no bit); each thread gathers into its own scratch */
    p.accuracy = ncl_tls.accuracy;
    p.nt = ncl_pool_threads(a->size * (p.direct ? 1 : 2));
    if (p.nt > 1) {
        const int64_t nc = (p.n + RED_CHUNK - 1) / RED_CHUNK;
        const int64_t units = red_units(&p);
        if (!p.cumulative && !p.variance && p.nout == 1 && nc >= 2) {
            p.gsize = 1;
            while ((nc + p.gsize - 1) / p.gsize > 4 * (int64_t)p.nt) p.gsize *= 2;
            p.groups = (nc + p.gsize - 1) / p.gsize;
            if (p.groups < p.nt) p.nt = (int)p.groups;
        } else if (units < p.nt) {
            p.nt = units > 1 ? (int)units : 1;
        }
    }
    const size_t sbytes = p.direct ? 0 : (size_t)p.nt * RED_SCRATCH;
    const size_t pbytes = (size_t)p.groups * sizeof(red_part);
    if (sbytes + pbytes > 0) {
        if ((st = ncl_scratch_alloc("NclReduce", sbytes + pbytes, &p.scratch))) {
            release_plan(&p);
            NclArrayRelease(p.result);
            return st;
        }
    }

    /* execute */
    red_job job = {&p, NULL, NULL};
    if (p.scratch) {
        job.scratch = sbytes ? (char *)p.scratch->base : NULL;
        job.parts = pbytes ? (red_part *)(void *)((char *)p.scratch->base + sbytes) : NULL;
    }
    int fpe = 0, used = 1;
    ncl_fpe_saved saved;
    ncl_fpe_begin(&saved);
    st = red_execute(&job, &fpe, &used);
    fpe |= ncl_fpe_end(&saved);
    ncl_tls.fpe_flags |= fpe;
    if (st == NCL_ERR_INVALID_ARGUMENT && p.variance) {
        ncl_error(st, WHO ": ddof %lld is not below the count of %s elements for some output "
                  "(the divisor count - ddof must be > 0; input shape %s)",
                  p.name, (long long)p.ddof, p.nan_skip ? "non-NaN" : "reduced",
                  ncl_shape_str(s0, a->ndim, a->shape));
    } else if (st == NCL_ERR_INVALID_ARGUMENT && late_refusal) {
        ncl_error(st, WHO ": all-NaN slice encountered (input shape %s)", p.name,
                  ncl_shape_str(s0, a->ndim, a->shape));
    } else if (st) {
        ncl_error(st, WHO ": kernel %s failed with status %d (%s)", p.name,
                  p.kern.node->name ? p.kern.node->name : "(unnamed)", (int)st,
                  NclStatusString(st));
    } else {
        if (p.temp) copy_array(given, p.temp);
        /* RAISE is decided here so that a result this call allocated is
           released rather than returned */
        if (fpe) st = ncl_fpe_raise_early(sub, (int)asked);
    }
    ncl_last_call.elements = a->size;
    ncl_last_call.bytes = a->size * (int64_t)a->itemsize + p.nout * (int64_t)dsize(p.odt);
    ncl_last_call.kernel = p.kern.node->name ? p.kern.node->name : "(unnamed)";
    ncl_last_call.threads = used;
    release_plan(&p);
    if (p.result) {
        if (st == NCL_OK) *out = p.result;
        else NclArrayRelease(p.result);
    }
    return st;
}

/* ---- the tree's last step for callers that split a reduction ------------------ */

/* A provided output of NclReduceChunks: NULL (none), or of the leading
   shape and values' dtype, writeable. */
static NclStatus chunks_output(const char *who, const char *name, const NclArray *given,
                               const NclArray *values)
{
    if (given == NULL) return NCL_OK;
    char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
    const int ond = values->ndim - 1;
    if (given->dtype != values->dtype || given->ndim != ond ||
        memcmp(given->shape, values->shape, (size_t)ond * sizeof(int64_t)) != 0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is %s %s, not %s %s", who, name,
                         NclDTypeName(given->dtype), ncl_shape_str(s0, given->ndim, given->shape),
                         NclDTypeName(values->dtype), ncl_shape_str(s1, ond, values->shape));
    if (!(given->flags & NCL_ARRAY_WRITEABLE))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is not writeable", who, name);
    return NCL_OK;
}

/* NclReduceChunks and NclReduceChunksLo: lo (the values' low parts),
   runs (the chunks each value covers) and lo_out (the results' low parts)
   NULL when not given or not wanted. */
static NclStatus reduce_chunks(const char *who, NclReduceOp op, const NclArray *values,
                               const NclArray *lo, const NclArray *runs, NclArray **out,
                               NclArray **lo_out)
{
    NclStatus st;
    if ((st = ncl_array_check(who, "values", values)) != NCL_OK) return st;
    if ((st = ncl_array_check(who, "lo", lo)) != NCL_OK) return st;
    if ((st = ncl_array_check(who, "runs", runs)) != NCL_OK) return st;
    if (out == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: out is NULL", who);
    if ((st = ncl_array_check(who, "*out", *out)) != NCL_OK) return st;
    if (lo_out && (st = ncl_array_check(who, "*lo_out", *lo_out)) != NCL_OK) return st;
    if (op != NCL_SUM && op != NCL_PROD)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: op %d is not sum or prod", who, (int)op);
    if (values == NULL || values->ndim == 0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: values is %s", who,
                         values ? "0-d (the chunks are its last axis)" : "NULL");
    const NclDType dt = values->dtype;
    if (!is_float(dt))
        return ncl_error(NCL_ERR_DTYPE, "%s: values are %s, not float32 or float64", who,
                         NclDTypeName(dt));
    if (op == NCL_PROD && (lo || lo_out))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: a product has no low parts (lo and "
                         "lo_out must be NULL)", who);
    if (lo && (lo->dtype != dt || lo->ndim != values->ndim ||
               memcmp(lo->shape, values->shape, (size_t)lo->ndim * sizeof(int64_t)) != 0)) {
        char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: lo is %s %s, not values' %s %s", who,
                         NclDTypeName(lo->dtype), ncl_shape_str(s0, lo->ndim, lo->shape),
                         NclDTypeName(dt), ncl_shape_str(s1, values->ndim, values->shape));
    }
    const int ond = values->ndim - 1;
    const int64_t k = values->shape[ond];
    if (k == 0) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: values hold no chunk", who);
    /* value c covers chunks [at[c], at[c] + 2^lev[c]): an aligned subtree */
    int64_t *at = NULL;
    int *lev = NULL;
    if (runs) {
        if (runs->dtype != NCL_INT64 || runs->ndim != 1 || runs->shape[0] != k)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: runs must be int64 of shape (%lld,), "
                             "one entry per value", who, (long long)k);
        at = malloc((size_t)k * (sizeof *at + sizeof *lev));
        if (at == NULL) return ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
        lev = (int *)(void *)(at + k);
        ncl_array_copy_c_order(runs, (char *)at);
        int64_t pos = 0;
        for (int64_t c = 0; c < k; c++) {
            const int64_t n = at[c];
            if (n <= 0 || (n & (n - 1)) != 0 || pos % n != 0 || pos > INT64_MAX - n) {
                free(at);
                return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: run %lld covers %lld chunks from "
                                 "chunk %lld; a run is a power of two of chunks starting at a "
                                 "multiple of it", who, (long long)c, (long long)n, (long long)pos);
            }
            at[c] = pos;
            lev[c] = 0;
            while (((int64_t)1 << lev[c]) < n) lev[c]++;
            pos += n;
        }
    }
    NclArray *given = *out, *given_lo = lo_out ? *lo_out : NULL, *res = NULL, *rlo = NULL;
    const size_t sz = dsize(dt);
    char *v = NULL, *vl = NULL;
    if ((st = chunks_output(who, "the output", given, values)) == NCL_OK &&
        (st = chunks_output(who, "the low parts' output", given_lo, values)) == NCL_OK &&
        (st = ncl_array_alloc(who, dt, ond, values->shape, NCL_ORDER_C, 0, &res)) == NCL_OK &&
        (!lo_out || (st = ncl_array_alloc(who, dt, ond, values->shape, NCL_ORDER_C, 0, &rlo)) ==
                        NCL_OK) &&
        (v = malloc(2 * (size_t)values->size * sz + 1)) == NULL)
        st = ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    if (st != NCL_OK) {
        NclArrayRelease(res);
        NclArrayRelease(rlo);
        free(at);
        return st;
    }
    vl = v + (size_t)values->size * sz;
    ncl_array_copy_c_order(values, v);
    if (lo) ncl_array_copy_c_order(lo, vl);
    for (int64_t j = 0; j < res->size; j++) {
        const unsigned char *row = (const unsigned char *)v + (size_t)(j * k) * sz;
        const unsigned char *lrow = (const unsigned char *)vl + (size_t)(j * k) * sz;
        unsigned char *dst = (unsigned char *)res->data + (size_t)j * sz;
        if (op == NCL_SUM) {
            red_ddstack dds;
            dds.depth = 0;
            for (int64_t c = 0; c < k; c++)
                dd_push(&dds, dt, row + (size_t)c * sz, lo ? lrow + (size_t)c * sz : NULL,
                        at ? at[c] >> lev[c] : c, c + 1 == k);
            unsigned char *dlo = rlo ? (unsigned char *)rlo->data + (size_t)j * sz : NULL;
            if (dt == NCL_FLOAT64) {
                memcpy(dst, &dds.d[0].hi, 8);
                if (dlo) memcpy(dlo, &dds.d[0].lo, 8);
            } else {
                memcpy(dst, &dds.f[0].hi, 4);
                if (dlo) memcpy(dlo, &dds.f[0].lo, 4);
            }
            continue;
        }
        /* the plain binary counter of reduce_part, the pairs multiplied */
        double pd[64], xd = 0;
        float pf[64], xf = 0;
        int depth = 0;
        for (int64_t c = 0; c < k; c++) {
            if (dt == NCL_FLOAT64) memcpy(&xd, row + (size_t)c * 8, 8);
            else memcpy(&xf, row + (size_t)c * 4, 4);
            for (int64_t b = at ? (at[c] >> lev[c]) + 1 : c + 1; (b & 1) == 0; b >>= 1) {
                --depth;
                if (dt == NCL_FLOAT64) xd = pd[depth] * xd;
                else xf = pf[depth] * xf;
            }
            if (c + 1 < k) {
                if (dt == NCL_FLOAT64) pd[depth++] = xd;
                else pf[depth++] = xf;
            }
        }
        while (depth > 0) {
            --depth;
            if (dt == NCL_FLOAT64) xd = pd[depth] * xd;
            else xf = pf[depth] * xf;
        }
        if (dt == NCL_FLOAT64) memcpy(dst, &xd, 8);
        else memcpy(dst, &xf, 4);
    }
    free(v);
    free(at);
    if (given) {
        st = ncl_assign(who, given, res, NCL_CASTING_NO);
        NclArrayRelease(res);
        res = given;
    }
    if (st == NCL_OK && given_lo) {
        st = ncl_assign(who, given_lo, rlo, NCL_CASTING_NO);
        NclArrayRelease(rlo);
        rlo = given_lo;
    }
    if (st != NCL_OK) {
        if (!given) NclArrayRelease(res);
        if (!given_lo) NclArrayRelease(rlo);
        return st;
    }
    *out = res;
    if (lo_out) *lo_out = rlo;
    return NCL_OK;
}

NclStatus NclReduceChunks(NclReduceOp op, const NclArray *values, NclArray **out)
{
    return reduce_chunks("NclReduceChunks", op, values, NULL, NULL, out, NULL);
}

NclStatus NclReduceChunksLo(NclReduceOp op, const NclArray *values, const NclArray *lo,
                            const NclArray *runs, NclArray **out, NclArray **lo_out)
{
    return reduce_chunks("NclReduceChunksLo", op, values, lo, runs, out, lo_out);
}
