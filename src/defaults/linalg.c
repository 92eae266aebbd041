/*
 * linalg.c: NCLib's default implementation of the Linalg subsystem, the
 * tail of its level-1 chain: np.matmul and np.dot. The products are the
 * level-2 kernels of (NCL_SUBSYSTEM_LINALG, op, {T, T, T}) in
 * kernels/linalg/ (their arguments: NclLinalgAux, ncl/linalg.h); this file
 * validates the call, works out the shapes and walks the stack of
 * products, handing the kernel a run of products along the innermost
 * stacked axis per call.
 *
 * Every call is described the same way: a batch of stacked axes, each with
 * a byte step for A, B and C (0 where an operand is broadcast along it),
 * and one m x k by k x n product per batch element. MATMUL's batch is the
 * broadcast of the stacks; DOT's is a's leading axes followed by b's
 * stacked axes (the result's axes in that order, with m between them);
 * a 0-d DOT operand is a batch of 1 x 1 x 1 products over the other's
 * axes.
 *
 * Plan, then execute: the shapes, the dtypes, the casting rules and the
 * output are checked, and every array the call needs (inputs cast to the
 * loop dtype or copied to contiguous memory for the BLAS, the result, and
 * a temporary when a provided output overlaps an input, has another dtype
 * or a layout the BLAS cannot write) is made before the first output byte
 * is written.
 */
#include <string.h>
#include "defaults/ncl_defaults.h"
#include "exec/ncl_exec.h"
#include "hooks/ncl_hooks.h"

#define WHO "NclLinalg(%s)"

typedef struct lin_plan {
    const char *name;
    NclDType loop;
    int rdim;                       /* the result's shape */
    int64_t rshape[NCL_MAXDIMS];
    int nb;                         /* stacked (batch) axes */
    int64_t bshape[NCL_MAXDIMS];
    int a_ax[NCL_MAXDIMS];          /* a's axis along batch axis i, or -1 */
    int b_ax[NCL_MAXDIMS];
    int c_ax[NCL_MAXDIMS];          /* the result's axis of batch axis i */
    int a_row, a_col, b_row, b_col; /* the operands' core axes, or -1 */
    int c_row, c_col;               /* the result's core axes, or -1 */
    NclLinalgAux x;                 /* m, n, k; the steps are filled in later */
} lin_plan;

/* ---- shapes ------------------------------------------------------------------ */

static NclStatus shape_matmul(lin_plan *pl, const NclArray *a, const NclArray *b)
{
    char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
    if (a->ndim == 0 || b->ndim == 0)
        return ncl_error(NCL_ERR_SHAPE,
                         WHO ": input operand %d does not have enough dimensions (a 0-d "
                         "operand has no core dimension; use multiply)",
                         pl->name, a->ndim == 0 ? 0 : 1);
    const int a1 = a->ndim == 1, b1 = b->ndim == 1;
    const int64_t k = a->shape[a->ndim - 1], kb = b1 ? b->shape[0] : b->shape[b->ndim - 2];
    if (k != kb)
        return ncl_error(NCL_ERR_SHAPE,
                         WHO ": operand b has a mismatch in its core dimension 0, with "
                         "signature (n?,k),(k,m?)->(n?,m?) (size %lld is different from %lld; "
                         "shapes %s and %s)",
                         pl->name, (long long)kb, (long long)k,
                         ncl_shape_str(s0, a->ndim, a->shape), ncl_shape_str(s1, b->ndim, b->shape));
    const int na = a1 ? 0 : a->ndim - 2, nbb = b1 ? 0 : b->ndim - 2;
    pl->nb = na > nbb ? na : nbb;
    for (int i = 0; i < pl->nb; i++) {
        const int ia = i - (pl->nb - na), ib = i - (pl->nb - nbb);
        const int64_t ea = ia >= 0 ? a->shape[ia] : 1, eb = ib >= 0 ? b->shape[ib] : 1;
        if (ea != eb && ea != 1 && eb != 1)
            return ncl_error(NCL_ERR_BROADCAST,
                             WHO ": the stacks of shapes %s and %s do not broadcast", pl->name,
                             ncl_shape_str(s0, a->ndim, a->shape),
                             ncl_shape_str(s1, b->ndim, b->shape));
        pl->bshape[i] = ea == 1 ? eb : ea;
        pl->a_ax[i] = ia >= 0 && ea != 1 ? ia : -1;
        pl->b_ax[i] = ib >= 0 && eb != 1 ? ib : -1;
        pl->c_ax[i] = i;
        pl->rshape[i] = pl->bshape[i];
    }
    pl->rdim = pl->nb;
    pl->x.m = a1 ? 1 : a->shape[a->ndim - 2];
    pl->x.k = k;
    pl->x.n = b1 ? 1 : b->shape[b->ndim - 1];
    pl->a_row = a1 ? -1 : a->ndim - 2;
    pl->a_col = a->ndim - 1;
    pl->b_row = b1 ? 0 : b->ndim - 2;
    pl->b_col = b1 ? -1 : b->ndim - 1;
    pl->c_row = a1 ? -1 : pl->rdim;
    if (!a1) pl->rshape[pl->rdim++] = pl->x.m;
    pl->c_col = b1 ? -1 : pl->rdim;
    if (!b1) pl->rshape[pl->rdim++] = pl->x.n;
    return NCL_OK;
}

static NclStatus shape_dot(lin_plan *pl, const NclArray *a, const NclArray *b)
{
    char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
    pl->a_row = pl->a_col = pl->b_row = pl->b_col = pl->c_row = pl->c_col = -1;
    if (a->ndim == 0 || b->ndim == 0) {
        /* multiply: 1 x 1 x 1 products over the other operand's axes */
        const NclArray *o = a->ndim == 0 ? b : a;
        pl->nb = pl->rdim = o->ndim;
        for (int i = 0; i < o->ndim; i++) {
            pl->bshape[i] = pl->rshape[i] = o->shape[i];
            pl->a_ax[i] = a->ndim == 0 ? -1 : i;
            pl->b_ax[i] = b->ndim == 0 ? -1 : i;
            pl->c_ax[i] = i;
        }
        pl->x.m = pl->x.n = pl->x.k = 1;
        return NCL_OK;
    }
    const int a1 = a->ndim == 1, b1 = b->ndim == 1;
    const int kax = b1 ? 0 : b->ndim - 2;
    const int64_t k = a->shape[a->ndim - 1];
    if (k != b->shape[kax])
        return ncl_error(NCL_ERR_SHAPE, WHO ": shapes %s and %s not aligned: %lld (dim %d) != %lld (dim %d)",
                         pl->name, ncl_shape_str(s0, a->ndim, a->shape),
                         ncl_shape_str(s1, b->ndim, b->shape), (long long)k, a->ndim - 1,
                         (long long)b->shape[kax], kax);
    if (a->ndim + b->ndim - 2 > NCL_MAXDIMS)
        return ncl_error(NCL_ERR_SHAPE, WHO ": the result of shapes %s and %s would have %d "
                         "dimensions (at most %d)", pl->name, ncl_shape_str(s0, a->ndim, a->shape),
                         ncl_shape_str(s1, b->ndim, b->shape), a->ndim + b->ndim - 2, NCL_MAXDIMS);
    const int na = a1 ? 0 : a->ndim - 2, nbb = b1 ? 0 : b->ndim - 2;
    int r = 0;
    pl->nb = 0;
    for (int i = 0; i < na; i++, r++) {
        pl->bshape[pl->nb] = pl->rshape[r] = a->shape[i];
        pl->a_ax[pl->nb] = i;
        pl->b_ax[pl->nb] = -1;
        pl->c_ax[pl->nb++] = r;
    }
    pl->x.m = a1 ? 1 : a->shape[a->ndim - 2];
    if (!a1) {
        pl->c_row = r;
        pl->rshape[r++] = pl->x.m;
        pl->a_row = a->ndim - 2;
    }
    for (int i = 0; i < nbb; i++, r++) {
        pl->bshape[pl->nb] = pl->rshape[r] = b->shape[i];
        pl->a_ax[pl->nb] = -1;
        pl->b_ax[pl->nb] = i;
        pl->c_ax[pl->nb++] = r;
    }
    pl->x.n = b1 ? 1 : b->shape[b->ndim - 1];
    if (!b1) {
        pl->c_col = r;
        pl->rshape[r++] = pl->x.n;
        pl->b_col = b->ndim - 1;
    }
    pl->rdim = r;
    pl->x.k = k;
    pl->a_col = a->ndim - 1;
    pl->b_row = kax;
    return NCL_OK;
}

/* ---- operands ----------------------------------------------------------------- */

/* Whether a float loop's operand can go to the BLAS as it is: each matrix
   has a unit step along one of its core axes and the others are not
   negative, and the elements are aligned. A copy costs one pass over the
   operand; a product the BLAS cannot take costs the portable loop. */
static int blas_ready(const NclArray *a, int row, int col)
{
    if (!(a->flags & NCL_ARRAY_ALIGNED)) return 0;
    const int64_t s = (int64_t)a->itemsize;
    const int64_t rs = row >= 0 && a->shape[row] > 1 ? a->strides[row] : s;
    const int64_t cs = col >= 0 && a->shape[col] > 1 ? a->strides[col] : s;
    return (rs == s && cs >= s) || (cs == s && rs >= s);
}

/* The operand as the kernel reads it: a itself, or a C-contiguous copy
   in the loop dtype (*copy, released by the caller) when its dtype is
   another or when a float loop's BLAS could not take it. */
static NclStatus operand(const lin_plan *pl, NclLinalgOp op, const NclArray *a, int row, int col,
                         NclArray **copy, const NclArray **use)
{
    *use = a;
    if (a->dtype == pl->loop &&
        (ncl_dtype_kind[pl->loop] != 'f' || a->size == 0 || blas_ready(a, row, col)))
        return NCL_OK;
    NclStatus st = ncl_array_alloc("NclLinalg", pl->loop, a->ndim, a->shape, NCL_ORDER_C, 0, copy);
    if (st) return st;
    /* the casting rule was checked: the conversion itself never refuses */
    st = ncl_convert_run(NCL_SUBSYSTEM_LINALG, (int)op, a, pl->loop, copy, NULL, NCL_CASTING_UNSAFE);
    if (st) return st;
    *use = *copy;
    return NCL_OK;
}

static NclStatus check_output(const lin_plan *pl, const NclArray *o, NclCasting casting)
{
    char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
    if (o->kind == NCL_MEM_DEVICE)
        return ncl_error(NCL_ERR_DEVICE_MEMORY,
                         WHO ": the output is device memory (device %d); host kernels cannot "
                         "touch it", pl->name, o->device_id);
    if (!(o->flags & NCL_ARRAY_WRITEABLE))
        return ncl_error(NCL_ERR_READONLY, WHO ": the output array is read-only", pl->name);
    int same = o->ndim == pl->rdim;
    for (int d = 0; same && d < o->ndim; d++) same = o->shape[d] == pl->rshape[d];
    if (!same)
        return ncl_error(NCL_ERR_SHAPE, WHO ": the output has shape %s; the result has shape %s",
                         pl->name, ncl_shape_str(s0, o->ndim, o->shape),
                         ncl_shape_str(s1, pl->rdim, pl->rshape));
    if (!NclCanCast(pl->loop, o->dtype, casting))
        return ncl_error(NCL_ERR_CASTING,
                         WHO ": cannot cast the result from %s to the output's %s under the "
                         "casting rule", pl->name, NclDTypeName(pl->loop), NclDTypeName(o->dtype));
    if (ncl_array_has_internal_overlap(o))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         WHO ": the output has internal overlap (strides %s over shape %s)",
                         pl->name, ncl_shape_str(s0, o->ndim, o->strides),
                         ncl_shape_str(s1, o->ndim, o->shape));
    return NCL_OK;
}

/* A step along axis ax of a, or 0 where the operand has no such axis. */
NCL_INLINE int64_t step_of(const NclArray *a, int ax) { return ax >= 0 ? a->strides[ax] : 0; }

/* ---- execution ------------------------------------------------------------------- */

/* Every product, the innermost batch axis as the kernel's run. */
static NclStatus run(const lin_plan *pl, NclLinalgOp op, NclKernelNode *kn, const NclArray *a,
                     const NclArray *b, NclArray *c, int *fpe)
{
    NclLinalgAux x = pl->x;
    x.a_rs = step_of(a, pl->a_row);
    x.a_cs = step_of(a, pl->a_col);
    x.b_rs = step_of(b, pl->b_row);
    x.b_cs = step_of(b, pl->b_col);
    x.c_rs = step_of(c, pl->c_row);
    x.c_cs = step_of(c, pl->c_col);
    const NclDType sig[3] = {pl->loop, pl->loop, pl->loop};
    const NclKernelCtx ctx = {NCL_SUBSYSTEM_LINALG, (int)op, 2, 1, sig, 0, 0, fpe, &x,
                              ncl_tls.accuracy, 1};
    /* the batch axes with steps; the last one is the kernel's run */
    int64_t sa[NCL_MAXDIMS], sb[NCL_MAXDIMS], sc[NCL_MAXDIMS], ext[NCL_MAXDIMS], idx[NCL_MAXDIMS];
    int nb = 0;
    for (int i = 0; i < pl->nb; i++) {
        if (pl->bshape[i] == 1) continue;
        sa[nb] = step_of(a, pl->a_ax[i]);
        sb[nb] = step_of(b, pl->b_ax[i]);
        sc[nb] = c->strides[pl->c_ax[i]];
        ext[nb] = pl->bshape[i];
        idx[nb++] = 0;
    }
    const int64_t count = nb ? ext[nb - 1] : 1;
    const int64_t steps[3] = {nb ? sa[nb - 1] : 0, nb ? sb[nb - 1] : 0, nb ? sc[nb - 1] : 0};
    const int outer = nb ? nb - 1 : 0;
    int64_t offa = 0, offb = 0, offc = 0;
    for (;;) {
        char *args[3] = {a->data + offa, b->data + offb, c->data + offc};
        NclStatus st = kn->fn(kn, &ctx, args, count, steps);
        if (st) return st;
        int d = outer - 1;
        for (; d >= 0; d--) {
            offa += sa[d];
            offb += sb[d];
            offc += sc[d];
            if (++idx[d] < ext[d]) break;
            offa -= sa[d] * ext[d];
            offb -= sb[d] * ext[d];
            offc -= sc[d] * ext[d];
            idx[d] = 0;
        }
        if (d < 0) return NCL_OK;
    }
}

NclStatus ncl_default_linalg(NclHook *self, NclLinalgOp op, const NclArray *a, const NclArray *b,
                             NclArray **out, const NclParams *params)
{
    (void)self;
    const NclSubsystem sub = NCL_SUBSYSTEM_LINALG;
    if ((int)op < 0 || (int)op >= ncl_op_count(sub))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclLinalg: unknown op %d (valid: 0..%d)",
                         (int)op, ncl_op_count(sub) - 1);
    lin_plan pl;
    memset(&pl, 0, sizeof pl);
    pl.name = ncl_op_name(sub, (int)op);
    if (a == NULL || b == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, WHO ": the input array %s is NULL", pl.name,
                         a == NULL ? "a" : "b");
    if (out == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, WHO ": the out pointer is NULL", pl.name);
    NclParams p;
    NclStatus st = ncl_params_read(sub, (int)op, params, &p);
    if (st) return st;
    if (p.where != NULL || p.axes != NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, WHO ": params->%s is not supported by %s; "
                         "pass NULL", pl.name, p.where ? "where" : "axes", pl.name);
    if (a->kind == NCL_MEM_DEVICE || b->kind == NCL_MEM_DEVICE)
        return ncl_error(NCL_ERR_DEVICE_MEMORY,
                         WHO ": input %s is device memory (device %d); host kernels cannot "
                         "touch it", pl.name, a->kind == NCL_MEM_DEVICE ? "a" : "b",
                         a->kind == NCL_MEM_DEVICE ? a->device_id : b->device_id);
    st = op == NCL_MATMUL ? shape_matmul(&pl, a, b) : shape_dot(&pl, a, b);
    if (st) return st;
    pl.loop = p.dtype != NCL_DTYPE_DEFAULT ? p.dtype : NclPromoteTypes(a->dtype, b->dtype);
    for (int i = 0; i < 2; i++) {
        const NclArray *in = i ? b : a;
        if (!NclCanCast(in->dtype, pl.loop, p.casting))
            return ncl_error(NCL_ERR_CASTING,
                             WHO ": cannot cast input %s from %s to the loop dtype %s under the "
                             "casting rule", pl.name, i ? "b" : "a", NclDTypeName(in->dtype),
                             NclDTypeName(pl.loop));
    }
    NclArray *o = *out;
    if (o && (st = check_output(&pl, o, p.casting))) return st;
    const NclDType sig[3] = {pl.loop, pl.loop, pl.loop};
    ncl_kchain *chain = ncl_kernel_chain(sub, (int)op, sig, 3);
    if (chain == NULL)
        return ncl_error(NCL_ERR_DTYPE, WHO ": no %s kernel for %s", pl.name, pl.name,
                         NclDTypeName(pl.loop));
    NclKernelNode *kn = ncl_kernel_first(chain);

    /* Memory, all of it before the first output byte. */
    NclArray *ca = NULL, *cb = NULL, *res = NULL;
    const NclArray *ua = a, *ub = b;
    int64_t rsize;
    if ((st = ncl_shape_check("NclLinalg", pl.rdim, pl.rshape, &rsize))) return st;
    const int isf = ncl_dtype_kind[pl.loop] == 'f';
    if (rsize > 0) {
        st = operand(&pl, op, a, pl.a_row, pl.a_col, &ca, &ua);
        if (!st) st = operand(&pl, op, b, pl.b_row, pl.b_col, &cb, &ub);
    }
    /* the result goes straight to a provided output of the loop dtype that
       shares no memory with the inputs (and that the BLAS can write) */
    const int direct = o && o->dtype == pl.loop && !ncl_array_ranges_overlap(o, a) &&
                       !ncl_array_ranges_overlap(o, b) &&
                       (!isf || o->size == 0 || blas_ready(o, pl.c_row, pl.c_col));
    if (!st && !direct) st = ncl_array_alloc("NclLinalg", pl.loop, pl.rdim, pl.rshape, NCL_ORDER_C, 0, &res);
    if (st) {
        NclArrayRelease(ca);
        NclArrayRelease(cb);
        NclArrayRelease(res);
        return st;
    }
    NclArray *c = direct ? o : res;

    /* Execute. */
    if (rsize > 0) {
        int fpe = 0;
        ncl_fpe_saved saved;
        ncl_fpe_begin(&saved);
        st = run(&pl, op, kn, ua, ub, c, &fpe);
        fpe |= ncl_fpe_end(&saved);
        /* np.dot checks no flags; np.matmul, a ufunc, does */
        if (op == NCL_MATMUL) ncl_tls.fpe_flags |= fpe;
        if (st)
            ncl_error(st, WHO ": kernel %s failed with status %d (%s)", pl.name,
                      kn->name ? kn->name : "(unnamed)", (int)st, NclStatusString(st));
        else if (op == NCL_MATMUL && fpe)
            st = ncl_fpe_raise_early(sub, (int)op);
    }
    if (!st && o && !direct) st = ncl_assign("NclLinalg", o, res, NCL_CASTING_UNSAFE);
    ncl_last_call.elements = rsize;
    ncl_last_call.bytes = (a->size + b->size + rsize) * (int64_t)ncl_dtype_size[pl.loop];
    ncl_last_call.kernel = kn->name ? kn->name : "(unnamed)";
    ncl_last_call.threads = 1;
    NclArrayRelease(ca);
    NclArrayRelease(cb);
    if (o) {
        NclArrayRelease(res);
    } else if (st) {
        NclArrayRelease(res);
    } else {
        *out = res;
    }
    return st;
}
