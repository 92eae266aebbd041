/*
 * plan.c: planning and executing an elementwise call (the machinery behind
 * Convert, Compare, IsUnary, Unary and Binary).
 *
 * Planning, in order, so that a failure leaves nothing behind:
 *   1. validate operands (host memory, writeable output, where mask dtype);
 *   2. broadcast the inputs (and the mask) against the output shape;
 *   3. check every cast against the casting rule, look up the kernel chain
 *      and the cast chains;
 *   4. obtain memory: copies of inputs that overlap the output, then the
 *      output itself (zeroed when a mask leaves holes in it);
 *   5. fill the copies and simplify the iteration space: drop unit
 *      dimensions, walk the output forwards, order dimensions so the
 *      output's smallest stride is innermost, and merge dimensions that are
 *      contiguous for every operand.
 * Executing walks ranges of the flat iteration space. Each inner row is
 * handed to the kernel in one piece when no operand is cast; otherwise in
 * blocks of NCL_BLOCK elements cast into stack buffers, so a cast costs no
 * whole-array temporary. A where mask splits rows into runs of true.
 */
#include <string.h>
#include "exec/plan.h"

#define WHO "%s(%s)"
#define WHO_ARGS(c) ncl_sub_fn_name((c)->sub), ncl_op_name((c)->sub, (c)->op)

static const char *const casting_names[] = {"no", "equiv", "safe", "same_kind", "unsafe"};
static const char *const input_names[NCL_MAX_OPERANDS - 1] = {"input a", "input b", "input c"};

/* ---- validation ------------------------------------------------------------ */

static NclStatus check_host(const ncl_ew_call *c, const NclArray *a, const char *role)
{
    if (NCL_UNLIKELY(a->kind == NCL_MEM_DEVICE))
        return ncl_error(NCL_ERR_DEVICE_MEMORY,
                         WHO ": %s is device memory (device %d); host kernels cannot touch it",
                         WHO_ARGS(c), role, a->device_id);
    return NCL_OK;
}

/* The broadcast shape of the inputs, NumPy's rules; the message names the
   two operands that disagree. */
static NclStatus broadcast_inputs(const ncl_ew_call *c, int *ndim, int64_t *shape)
{
    int nd = 0;
    for (int i = 0; i < c->nin; i++)
        if (c->in[i]->ndim > nd) nd = c->in[i]->ndim;
    for (int d = 0; d < nd; d++) {
        int64_t e = 1;
        int from = -1; /* the input that set e */
        for (int i = 0; i < c->nin; i++) {
            const NclArray *a = c->in[i];
            int k = d - (nd - a->ndim);
            if (k < 0 || a->shape[k] == 1 || a->shape[k] == e) continue;
            if (e == 1) {
                e = a->shape[k];
                from = i;
                continue;
            }
            char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
            const NclArray *f = c->in[from];
            return ncl_error(NCL_ERR_BROADCAST,
                             WHO ": operands with shapes %s and %s cannot be broadcast",
                             WHO_ARGS(c), ncl_shape_str(s0, f->ndim, f->shape),
                             ncl_shape_str(s1, a->ndim, a->shape));
        }
        shape[d] = e;
    }
    *ndim = nd;
    return NCL_OK;
}

/* ---- overlap ----------------------------------------------------------------- */

/* An input that reads exactly the element the output writes at every
   position is safe in place: each block is read before it is written. */
static int exact_alias(const ncl_ew_operand *in, const ncl_ew_operand *out, int nd,
                       const int64_t *shape)
{
    if (in->data != out->data || ncl_dtype_size[in->dtype] != ncl_dtype_size[out->dtype])
        return 0;
    for (int d = 0; d < nd; d++)
        if (shape[d] > 1 && in->strides[d] != out->strides[d]) return 0;
    return 1;
}

/* Strides of a C-ordered copy of a. */
static void c_strides(const NclArray *a, int64_t *strides)
{
    int64_t s = (int64_t)a->itemsize;
    for (int d = a->ndim - 1; d >= 0; d--) {
        strides[d] = s;
        s *= a->shape[d] > 0 ? a->shape[d] : 1;
    }
}

/* The operand's strides over the iteration shape (nd dims, right aligned),
   zero where it is broadcast. */
static void broadcast_strides(int nd, const int64_t *shape, int andim, const int64_t *ashape,
                              const int64_t *astrides, int64_t *out)
{
    for (int d = 0; d < nd; d++) {
        int k = d - (nd - andim);
        out[d] = (k < 0 || ashape[k] == 1 || shape[d] == 1) ? 0 : astrides[k];
    }
}

/* ---- planning ---------------------------------------------------------------- */

static NclStatus lookup_cast(const ncl_ew_call *c, ncl_ew_operand *o, NclDType from, NclDType to)
{
    o->cast = NULL;
    if (from == to) return NCL_OK;
    o->cast_sig[0] = from;
    o->cast_sig[1] = to;
    ncl_kchain *ch = ncl_kernel_chain(NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_ASTYPE, o->cast_sig, 2);
    if (!ch)
        return ncl_error(NCL_ERR_DTYPE, WHO ": no cast kernel from %s to %s", WHO_ARGS(c),
                         NclDTypeName(from), NclDTypeName(to));
    o->cast = ncl_kernel_first(ch);
    return NCL_OK;
}

static void release_temps(ncl_ew_plan *p)
{
    if (!p->ntemps) return;
    for (int i = 0; i < NCL_MAX_OPERANDS + 1; i++) {
        if (p->temps[i]) ncl_buffer_release(p->temps[i]);
        p->temps[i] = NULL;
    }
    p->ntemps = 0;
}

/* Drops unit dimensions, flips dimensions the output walks backwards, puts
   the output's smallest stride innermost and merges contiguous dimensions. */
static void simplify(ncl_ew_plan *p)
{
    int nd = p->ndim, nop = p->nop, out = p->nin;
    int n = 0;
    for (int d = 0; d < nd; d++) {
        if (p->shape[d] == 1) continue;
        p->shape[n] = p->shape[d];
        for (int k = 0; k < nop; k++) p->op[k].strides[n] = p->op[k].strides[d];
        if (p->has_where) p->wstrides[n] = p->wstrides[d];
        n++;
    }
    nd = n;

    for (int d = 0; d < nd; d++) {
        if (p->op[out].strides[d] >= 0) continue;
        int64_t last = p->shape[d] - 1;
        for (int k = 0; k < nop; k++) {
            p->op[k].data += last * p->op[k].strides[d];
            p->op[k].strides[d] = -p->op[k].strides[d];
        }
        if (p->has_where) {
            p->wdata += last * p->wstrides[d];
            p->wstrides[d] = -p->wstrides[d];
        }
    }

    /* Insertion sort, outermost = largest output stride; stable, so equal
       strides keep the caller's order. */
    for (int i = 1; i < nd; i++) {
        for (int j = i; j > 0 && p->op[out].strides[j - 1] < p->op[out].strides[j]; j--) {
            int64_t t = p->shape[j];
            p->shape[j] = p->shape[j - 1];
            p->shape[j - 1] = t;
            for (int k = 0; k < nop; k++) {
                t = p->op[k].strides[j];
                p->op[k].strides[j] = p->op[k].strides[j - 1];
                p->op[k].strides[j - 1] = t;
            }
            if (p->has_where) {
                t = p->wstrides[j];
                p->wstrides[j] = p->wstrides[j - 1];
                p->wstrides[j - 1] = t;
            }
        }
    }

    /* Merge dimension d into d+1 when every operand steps from the end of
       row d+1 straight to the start of the next. */
    n = nd ? 1 : 0;
    for (int d = 1; d < nd; d++) {
        int m = n - 1; /* last kept (outer) dimension */
        int merge = 1;
        for (int k = 0; k < nop && merge; k++)
            merge = p->op[k].strides[m] == p->op[k].strides[d] * p->shape[d];
        if (merge && p->has_where) merge = p->wstrides[m] == p->wstrides[d] * p->shape[d];
        if (merge) {
            p->shape[m] *= p->shape[d];
            for (int k = 0; k < nop; k++) p->op[k].strides[m] = p->op[k].strides[d];
            if (p->has_where) p->wstrides[m] = p->wstrides[d];
        } else {
            p->shape[n] = p->shape[d];
            for (int k = 0; k < nop; k++) p->op[k].strides[n] = p->op[k].strides[d];
            if (p->has_where) p->wstrides[n] = p->wstrides[d];
            n++;
        }
    }
    nd = n;

    if (nd == 0) { /* a single element */
        nd = 1;
        p->shape[0] = 1;
        for (int k = 0; k < nop; k++) p->op[k].strides[0] = 0;
        if (p->has_where) p->wstrides[0] = 0;
    }
    p->ndim = nd;
}

/* The common case, planned in one pass: no mask, no casts, every operand
   C-contiguous with one shape, and a provided output that either is an
   input exactly or does not touch any. Returns 1 when planned (or failed:
   *st says which), 0 when the general planner must run. */
static int plan_fast(const ncl_ew_call *c, ncl_ew_plan *p, NclStatus *st)
{
    const NclArray *a0 = c->in[0];
    NclArray *out = *c->out;
    if (c->where || c->nout > 1) return 0;
    for (int i = 0; i < c->nin; i++) {
        const NclArray *a = c->in[i];
        if (a->kind == NCL_MEM_DEVICE || a->dtype != c->loop[i] ||
            !(a->flags & NCL_ARRAY_C_CONTIGUOUS) || !ncl_ew_same_shape(a, a0))
            return 0;
    }
    const int64_t n = a0->size;
    if (out) {
        const uint32_t need = NCL_ARRAY_C_CONTIGUOUS | NCL_ARRAY_WRITEABLE;
        if (out->kind == NCL_MEM_DEVICE || (out->flags & need) != need ||
            out->dtype != c->loop[c->nin] || !ncl_ew_same_shape(out, a0))
            return 0;
        const char *olo = out->data, *ohi = olo + n * (int64_t)out->itemsize;
        for (int i = 0; i < c->nin; i++) {
            const NclArray *a = c->in[i];
            const char *lo = a->data, *hi = lo + n * (int64_t)a->itemsize;
            int same = lo == olo && a->itemsize == out->itemsize;
            if (!same && n > 0 && lo < ohi && olo < hi) return 0; /* partial overlap */
        }
    }
    ncl_kchain *kc =
        c->chain ? c->chain : ncl_kernel_chain(c->kernel_sub, c->kernel_op, c->loop, c->nin + 1);
    if (!kc) return 0; /* the general planner writes the message */
    if (!out) {
        *st = ncl_array_alloc(ncl_sub_fn_name(c->sub), c->loop[c->nin], a0->ndim, a0->shape,
                              NCL_ORDER_C, 0, &p->result[0]);
        if (*st) return 1;
        p->allocated[0] = 1;
        out = p->result[0];
    } else {
        p->result[0] = out;
        p->allocated[0] = 0;
    }
    p->result[1] = NULL;
    p->allocated[1] = 0;
    p->nin = c->nin;
    p->nop = c->nin + 1;
    p->ndim = 1;
    p->shape[0] = n;
    p->size = n;
    p->has_where = 0;
    p->buffered = 0;
    p->kernel = ncl_kernel_first(kc);
    p->kernel_sub = c->kernel_sub;
    p->kernel_op = c->kernel_op;
    p->accuracy = ncl_tls.accuracy;
    p->bytes_per = 0;
    p->floats = 0;
    for (int k = 0; k < p->nop; k++) {
        const NclArray *a = k < c->nin ? c->in[k] : out;
        p->floats |= ncl_dtype_kind[a->dtype] == 'f';
        p->sig[k] = c->loop[k];
        p->op[k].data = a->data;
        p->op[k].strides[0] = (int64_t)a->itemsize;
        p->op[k].dtype = a->dtype;
        p->op[k].loop = c->loop[k];
        p->op[k].cast = NULL;
        p->bytes_per += (int64_t)a->itemsize;
    }
    p->ntemps = 0;
    *st = NCL_OK;
    return 1;
}

/* The output slots' names in messages: "the output", or "output 0/1" of a
   two-output op. */
static const char *out_name(const ncl_ew_call *c, int k)
{
    static const char *const names[NCL_EW_MAX_NOUT] = {"output 0", "output 1"};
    return c->nout > 1 ? names[k] : "the output";
}

static void release_results(ncl_ew_plan *p, int nout)
{
    for (int k = 0; k < nout; k++) {
        if (p->allocated[k]) NclArrayRelease(p->result[k]);
        p->allocated[k] = 0;
        p->result[k] = NULL;
    }
}

NclStatus ncl_ew_plan_make(const ncl_ew_call *c, ncl_ew_plan *p)
{
    NclStatus st;
    if (plan_fast(c, p, &st)) return st;
    const int nin = c->nin, nout = c->nout;
    NclArray *outs[NCL_EW_MAX_NOUT];
    NclArray *shaper = NULL; /* the first provided output: it sets the shape */
    for (int k = 0; k < nout; k++) {
        outs[k] = c->out[k];
        if (!shaper) shaper = outs[k];
    }
    const NclArray *w = c->where;
    char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];

    p->nin = nin;
    p->nop = nin + nout;
    p->has_where = w != NULL;
    for (int k = 0; k < NCL_EW_MAX_NOUT; k++) {
        p->result[k] = NULL;
        p->allocated[k] = 0;
    }
    p->ntemps = 0;
    for (int i = 0; i < NCL_MAX_OPERANDS + 1; i++) p->temps[i] = NULL;

    /* 1. operands */
    for (int i = 0; i < nin; i++)
        if ((st = check_host(c, c->in[i], nin == 1 ? "the input" : input_names[i]))) return st;
    for (int k = 0; k < nout; k++) {
        NclArray *out = outs[k];
        if (!out) continue;
        if ((st = check_host(c, out, out_name(c, k)))) return st;
        if (!(out->flags & NCL_ARRAY_WRITEABLE))
            return ncl_error(NCL_ERR_READONLY, WHO ": %s array is read-only", WHO_ARGS(c),
                             out_name(c, k));
        if (ncl_array_has_internal_overlap(out))
            return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                             WHO ": %s has internal overlap (strides %s over shape %s)",
                             WHO_ARGS(c), out_name(c, k),
                             ncl_shape_str(s0, out->ndim, out->strides),
                             ncl_shape_str(s1, out->ndim, out->shape));
    }
    if (nout > 1 && outs[0] && outs[1] && ncl_array_ranges_overlap(outs[0], outs[1]))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         WHO ": output 0 and output 1 share memory; each needs its own",
                         WHO_ARGS(c));
    if (w) {
        if ((st = check_host(c, w, "the where mask"))) return st;
        if (w->dtype != NCL_BOOL)
            return ncl_error(NCL_ERR_DTYPE, WHO ": the where mask must be bool, not %s",
                             WHO_ARGS(c), NclDTypeName(w->dtype));
    }

    /* 2. shapes */
    int nd = 0;
    int64_t bshape[NCL_MAXDIMS];
    if ((st = broadcast_inputs(c, &nd, bshape))) return st;
    if (shaper) {
        const NclArray *out = shaper;
        int ok = out->ndim >= nd;
        for (int d = 0; ok && d < nd; d++) {
            int64_t e = bshape[d], o = out->shape[d + out->ndim - nd];
            ok = e == 1 || e == o;
        }
        /* copyto's contract is "a is broadcast to the destination", so
           there the failure is a broadcast one; elsewhere the output has the
           wrong shape. */
        if (!ok && c->sub == NCL_SUBSYSTEM_CONVERT && c->op == NCL_CONVERT_COPYTO)
            return ncl_error(NCL_ERR_BROADCAST,
                             WHO ": input with shape %s cannot be broadcast to the output "
                             "shape %s",
                             WHO_ARGS(c), ncl_shape_str(s0, nd, bshape),
                             ncl_shape_str(s1, out->ndim, out->shape));
        if (!ok)
            return ncl_error(NCL_ERR_SHAPE,
                             WHO ": %s shape %s does not match the broadcast shape %s "
                             "of the operands",
                             WHO_ARGS(c), c->nout > 1 ? "an output's" : "output",
                             ncl_shape_str(s0, out->ndim, out->shape),
                             ncl_shape_str(s1, nd, bshape));
        nd = out->ndim;
        memcpy(p->shape, out->shape, (size_t)nd * sizeof(int64_t));
        for (int k = 0; k < nout; k++)
            if (outs[k] && outs[k] != shaper && !ncl_ew_same_shape(outs[k], shaper))
                return ncl_error(NCL_ERR_SHAPE, WHO ": the outputs' shapes %s and %s differ",
                                 WHO_ARGS(c), ncl_shape_str(s0, shaper->ndim, shaper->shape),
                                 ncl_shape_str(s1, outs[k]->ndim, outs[k]->shape));
    } else {
        memcpy(p->shape, bshape, (size_t)nd * sizeof(int64_t));
    }
    if (w) {
        int ok = w->ndim <= nd;
        for (int d = 0; ok && d < w->ndim; d++) {
            int64_t e = w->shape[d], o = p->shape[d + nd - w->ndim];
            ok = e == 1 || e == o;
        }
        if (!ok)
            return ncl_error(NCL_ERR_BROADCAST,
                             WHO ": where mask with shape %s cannot be broadcast to %s",
                             WHO_ARGS(c), ncl_shape_str(s0, w->ndim, w->shape),
                             ncl_shape_str(s1, nd, p->shape));
    }
    p->ndim = nd;
    /* Broadcasting (n,1) against (1,m) can outgrow every operand: checked. */
    if ((st = ncl_shape_check(ncl_sub_fn_name(c->sub), nd, p->shape, &p->size))) return st;

    /* 3. dtypes, casts and kernels */
    NclDType out_dtype[NCL_EW_MAX_NOUT];
    for (int k = 0; k < nout; k++)
        out_dtype[k] = outs[k] ? outs[k]->dtype : k == 0 ? c->out_dtype : c->loop[nin + k];
    for (int i = 0; i < nin; i++) {
        if (c->in[i]->dtype != c->loop[i] && !((c->truth_inputs | c->weak_inputs) >> i & 1u) &&
            !NclCanCast(c->in[i]->dtype, c->loop[i], c->casting))
            return ncl_error(NCL_ERR_CASTING,
                             WHO ": cannot cast input %d from %s to the loop dtype %s under "
                             "casting rule '%s'",
                             WHO_ARGS(c), i, NclDTypeName(c->in[i]->dtype),
                             NclDTypeName(c->loop[i]), casting_names[c->casting]);
    }
    for (int k = 0; k < nout; k++)
        if (c->loop[nin + k] != out_dtype[k] &&
            !NclCanCast(c->loop[nin + k], out_dtype[k], c->casting))
            return ncl_error(NCL_ERR_CASTING,
                             WHO ": cannot cast the result from %s to %s dtype %s under "
                             "casting rule '%s'",
                             WHO_ARGS(c), NclDTypeName(c->loop[nin + k]),
                             out_name(c, k),
                             NclDTypeName(out_dtype[k]), casting_names[c->casting]);
    for (int k = 0; k < p->nop; k++) p->sig[k] = c->loop[k];
    p->kernel_sub = c->kernel_sub;
    p->kernel_op = c->kernel_op;
    p->accuracy = ncl_tls.accuracy;
    ncl_kchain *kc = c->chain ? c->chain : ncl_kernel_chain(c->kernel_sub, c->kernel_op, p->sig, p->nop);
    if (!kc) {
        return ncl_error(NCL_ERR_DTYPE, WHO ": no kernel for the loop dtypes (%s%s%s -> %s%s%s)",
                         WHO_ARGS(c), NclDTypeName(p->sig[0]), nin > 1 ? ", " : "",
                         nin > 1 ? NclDTypeName(p->sig[1]) : "", NclDTypeName(p->sig[nin]),
                         nout > 1 ? ", " : "", nout > 1 ? NclDTypeName(p->sig[nin + 1]) : "");
    }
    p->kernel = ncl_kernel_first(kc);
    /* A fused kernel reads the inputs in their own dtypes (plan.h); the
       casting rule was applied to the casts it stands in for above. Inputs
       read as truth are not converted values: never fused. */
    if (!c->truth_inputs && nout == 1) {
        NclDType in_dtypes[NCL_MAX_OPERANDS];
        for (int i = 0; i < nin; i++) in_dtypes[i] = c->in[i]->dtype;
        ncl_kchain *fc =
            ncl_ew_fused(ncl_ew_fused_chain(c->kernel_sub, c->kernel_op, nin, in_dtypes,
                                            c->loop),
                         kc, nin, in_dtypes, c->loop);
        if (fc) {
            p->kernel = ncl_kernel_first(fc);
            for (int i = 0; i < nin; i++) p->sig[i] = in_dtypes[i];
        }
    }
    p->buffered = 0;
    for (int i = 0; i < nin; i++) {
        p->op[i].dtype = c->in[i]->dtype;
        p->op[i].loop = p->sig[i];
        if ((st = lookup_cast(c, &p->op[i], c->in[i]->dtype, p->sig[i]))) return st;
        p->buffered |= p->op[i].cast != NULL;
    }
    for (int k = 0; k < nout; k++) {
        ncl_ew_operand *o = &p->op[nin + k];
        o->dtype = out_dtype[k];
        o->loop = c->loop[nin + k];
        if ((st = lookup_cast(c, o, o->loop, out_dtype[k]))) return st;
        p->buffered |= o->cast != NULL;
    }

    /* 4. memory: overlap copies, then the outputs */
    const char *in_data[NCL_MAX_OPERANDS];
    int64_t in_strides[NCL_MAX_OPERANDS][NCL_MAXDIMS];
    const int64_t *src_strides[NCL_MAX_OPERANDS];
    for (int i = 0; i < nin; i++) {
        in_data[i] = c->in[i]->data;
        src_strides[i] = c->in[i]->strides;
    }
    const char *w_data = w ? w->data : NULL;
    int64_t w_cstrides[NCL_MAXDIMS];
    const int64_t *w_strides = w ? w->strides : NULL;
    for (int k = 0; k < nout; k++) {
        NclArray *out = outs[k];
        if (!out) continue;
        ncl_ew_operand *o = &p->op[nin + k];
        broadcast_strides(nd, p->shape, out->ndim, out->shape, out->strides, o->strides);
        o->data = out->data;
    }
    for (int i = 0; i <= nin; i++) {
        const NclArray *a = i < nin ? c->in[i] : w;
        if (!a) continue;
        int copy = 0;
        for (int k = 0; k < nout && !copy; k++) {
            if (!outs[k] || !ncl_array_ranges_overlap(a, outs[k])) continue;
            ncl_ew_operand probe;
            probe.data = a->data;
            probe.dtype = a->dtype;
            broadcast_strides(nd, p->shape, a->ndim, a->shape, a->strides, probe.strides);
            copy = !(i < nin && exact_alias(&probe, &p->op[nin + k], nd, p->shape));
        }
        if (!copy) continue;
        /* Partial overlap: read from a private copy, as if copied first. */
        st = ncl_scratch_alloc(ncl_sub_fn_name(c->sub), (size_t)a->size * a->itemsize,
                               &p->temps[i]);
        p->ntemps += st == NCL_OK;
        if (st) {
            release_temps(p);
            return st;
        }
    }
    /* An allocated output is zeroed when a mask leaves elements unset; its
       order is F when every input that decides it is F-contiguous. */
    NclOrder order = NCL_ORDER_C;
    int any_f = 0, all_f = 1;
    for (int i = 0; i < nin; i++) {
        const NclArray *a = c->in[i];
        if (a->ndim != nd || a->size <= 1) continue;
        any_f = 1;
        all_f &= (a->flags & NCL_ARRAY_F_CONTIGUOUS) && !(a->flags & NCL_ARRAY_C_CONTIGUOUS);
    }
    if (any_f && all_f) order = NCL_ORDER_F;
    for (int k = 0; k < nout; k++) {
        if (outs[k]) {
            p->result[k] = outs[k];
            continue;
        }
        st = ncl_array_alloc(ncl_sub_fn_name(c->sub), out_dtype[k], nd, p->shape, order,
                             w != NULL, &p->result[k]);
        if (st) {
            release_results(p, nout);
            release_temps(p);
            return st;
        }
        p->allocated[k] = 1;
        NclArray *out = p->result[k];
        ncl_ew_operand *o = &p->op[nin + k];
        broadcast_strides(nd, p->shape, out->ndim, out->shape, out->strides, o->strides);
        o->data = out->data;
    }

    /* 5. fill the copies (nothing can fail from here on) */
    for (int i = 0; i <= nin; i++) {
        if (!p->temps[i]) continue;
        const NclArray *a = i < nin ? c->in[i] : w;
        ncl_array_copy_c_order(a, p->temps[i]->base);
        if (i < nin) {
            in_data[i] = p->temps[i]->base;
            c_strides(a, in_strides[i]);
            src_strides[i] = in_strides[i];
        } else {
            w_data = p->temps[i]->base;
            c_strides(a, w_cstrides);
            w_strides = w_cstrides;
        }
    }
    for (int i = 0; i < nin; i++) {
        const NclArray *a = c->in[i];
        p->op[i].data = (char *)in_data[i];
        broadcast_strides(nd, p->shape, a->ndim, a->shape, src_strides[i], p->op[i].strides);
    }
    if (w) {
        p->wdata = (char *)w_data;
        broadcast_strides(nd, p->shape, w->ndim, w->shape, w_strides, p->wstrides);
    }
    p->bytes_per = 0;
    p->floats = 0;
    for (int k = 0; k < p->nop; k++) {
        p->bytes_per += (int64_t)ncl_dtype_size[p->op[k].dtype];
        p->floats |= ncl_dtype_kind[p->op[k].dtype] == 'f' || ncl_dtype_kind[p->op[k].loop] == 'f';
    }
    if (p->size > 0) simplify(p);
    return NCL_OK;
}

ncl_kchain *ncl_ew_fused_chain(NclSubsystem ksub, int kop, int nin, const NclDType *in,
                               const NclDType *loop)
{
    int cast = 0;
    for (int i = 0; i < nin; i++) {
        if (loop[i] != loop[nin]) return NULL;
        cast |= in[i] != loop[i];
    }
    if (!cast) return NULL;
    NclDType sig[NCL_MAX_OPERANDS];
    for (int i = 0; i < nin; i++) sig[i] = in[i];
    sig[nin] = loop[nin];
    return ncl_kernel_chain(ksub, kop, sig, nin + 1);
}

ncl_kchain *ncl_ew_fused_check(ncl_kchain *fused, ncl_kchain *loop_chain, int nin,
                               const NclDType *in, const NclDType *loop)
{
    if (loop_chain == NULL || !ncl_kernel_unhooked(loop_chain)) return NULL;
    for (int i = 0; i < nin; i++) {
        if (in[i] == loop[i]) continue;
        const NclDType sig[2] = {in[i], loop[i]};
        ncl_kchain *cc = ncl_kernel_chain(NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_ASTYPE, sig, 2);
        if (cc == NULL || !ncl_kernel_unhooked(cc)) return NULL;
    }
    return fused;
}

/* ---- execution --------------------------------------------------------------- */

typedef struct exec_state {
    const ncl_ew_plan *p;
    NclKernelCtx kctx;
    NclKernelCtx cctx[NCL_MAX_OPERANDS]; /* one per cast operand */
    int64_t steps[NCL_MAX_OPERANDS];     /* inner strides */
} exec_state;

/* n <= NCL_BLOCK elements starting at ptr, casting through buffers. */
static NclStatus run_block(exec_state *x, char *const *ptr, int64_t n,
                           char (*bufs)[NCL_BLOCK * 8])
{
    const ncl_ew_plan *p = x->p;
    char *args[NCL_MAX_OPERANDS];
    int64_t steps[NCL_MAX_OPERANDS];
    NclStatus st;
    for (int k = 0; k < p->nop; k++) {
        const ncl_ew_operand *o = &p->op[k];
        if (!o->cast) {
            args[k] = ptr[k];
            steps[k] = x->steps[k];
            continue;
        }
        args[k] = bufs[k];
        steps[k] = (int64_t)ncl_dtype_size[o->loop];
        if (k < p->nin) {
            char *cargs[2] = {ptr[k], bufs[k]};
            int64_t csteps[2] = {x->steps[k], steps[k]};
            if ((st = o->cast->fn(o->cast, &x->cctx[k], cargs, n, csteps))) return st;
        }
    }
    if ((st = p->kernel->fn(p->kernel, &x->kctx, args, n, steps))) return st;
    for (int k = p->nin; k < p->nop; k++) {
        const ncl_ew_operand *o = &p->op[k];
        if (!o->cast) continue;
        char *cargs[2] = {bufs[k], ptr[k]};
        int64_t csteps[2] = {steps[k], x->steps[k]};
        if ((st = o->cast->fn(o->cast, &x->cctx[k], cargs, n, csteps))) return st;
    }
    return NCL_OK;
}

/* n consecutive elements of an inner row, every element computed. */
static NclStatus run_span(exec_state *x, char *const *ptr, int64_t n)
{
    const ncl_ew_plan *p = x->p;
    if (!p->buffered) return p->kernel->fn(p->kernel, &x->kctx, (char *const *)ptr, n, x->steps);
    _Alignas(64) char bufs[NCL_MAX_OPERANDS][NCL_BLOCK * 8];
    char *cur[NCL_MAX_OPERANDS];
    for (int k = 0; k < p->nop; k++) cur[k] = ptr[k];
    while (n > 0) {
        int64_t m = n < NCL_BLOCK ? n : NCL_BLOCK;
        NclStatus st = run_block(x, cur, m, bufs);
        if (st) return st;
        for (int k = 0; k < p->nop; k++) cur[k] += m * x->steps[k];
        n -= m;
    }
    return NCL_OK;
}

/* n elements of an inner row under the mask: only runs of true are computed. */
static NclStatus run_masked(exec_state *x, char *const *ptr, const char *wptr, int64_t ws,
                            int64_t n)
{
    const ncl_ew_plan *p = x->p;
    int64_t i = 0;
    while (i < n) {
        while (i < n && !wptr[i * ws]) i++;
        int64_t j = i;
        while (j < n && wptr[j * ws]) j++;
        if (j > i) {
            char *cur[NCL_MAX_OPERANDS];
            for (int k = 0; k < p->nop; k++) cur[k] = ptr[k] + i * x->steps[k];
            NclStatus st = run_span(x, cur, j - i);
            if (st) return st;
        }
        i = j;
    }
    return NCL_OK;
}

NclStatus ncl_ew_execute(const ncl_ew_plan *p, int64_t start, int64_t end, int worker, int nworkers,
                         int64_t chunk, int *fpe)
{
    exec_state x;
    x.kctx = (NclKernelCtx){p->kernel_sub, p->kernel_op, p->nin, p->nop - p->nin, p->sig,
                            worker, chunk, fpe, NULL, p->accuracy, nworkers};
    if (p->ndim == 1 && !p->has_where && !p->buffered) { /* one strided span */
        char *args[NCL_MAX_OPERANDS];
        int64_t steps[NCL_MAX_OPERANDS];
        for (int k = 0; k < p->nop; k++) {
            steps[k] = p->op[k].strides[0];
            args[k] = p->op[k].data + start * steps[k];
        }
        return p->kernel->fn(p->kernel, &x.kctx, args, end - start, steps);
    }
    x.p = p;
    for (int k = 0; k < p->nop; k++) {
        if (p->op[k].cast)
            x.cctx[k] = (NclKernelCtx){NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_ASTYPE, 1, 1,
                                       p->op[k].cast_sig, worker, chunk, fpe, NULL,
                                       p->accuracy, nworkers};
    }
    const int nd = p->ndim, nop = p->nop;
    const int64_t inner = p->shape[nd - 1];
    for (int k = 0; k < nop; k++) x.steps[k] = p->op[k].strides[nd - 1];

    const int64_t ws = p->has_where ? p->wstrides[nd - 1] : 0;

    /* Position the row pointers at the row holding `start`. */
    int64_t idx[NCL_MAXDIMS];
    int64_t q = start / inner, off = start % inner;
    char *row[NCL_MAX_OPERANDS];
    const char *wrow = p->wdata;
    for (int k = 0; k < nop; k++) row[k] = p->op[k].data;
    for (int d = nd - 2; d >= 0; d--) {
        idx[d] = q % p->shape[d];
        q /= p->shape[d];
        for (int k = 0; k < nop; k++) row[k] += idx[d] * p->op[k].strides[d];
        if (p->has_where) wrow += idx[d] * p->wstrides[d];
    }

    int64_t pos = start;
    while (pos < end) {
        int64_t n = inner - off;
        if (n > end - pos) n = end - pos;
        char *ptr[NCL_MAX_OPERANDS];
        for (int k = 0; k < nop; k++) ptr[k] = row[k] + off * x.steps[k];
        NclStatus st = p->has_where ? run_masked(&x, ptr, wrow + off * ws, ws, n)
                                    : run_span(&x, ptr, n);
        if (st) return st;
        pos += n;
        off = 0;
        /* Next row: the odometer over the outer dimensions. */
        for (int d = nd - 2; d >= 0; d--) {
            for (int k = 0; k < nop; k++) row[k] += p->op[k].strides[d];
            if (p->has_where) wrow += p->wstrides[d];
            if (++idx[d] < p->shape[d]) break;
            for (int k = 0; k < nop; k++) row[k] -= p->op[k].strides[d] * p->shape[d];
            if (p->has_where) wrow -= p->wstrides[d] * p->shape[d];
            idx[d] = 0;
        }
    }
    return NCL_OK;
}

NclStatus ncl_ew_finish(const ncl_ew_call *c, ncl_ew_plan *p, NclStatus s)
{
    release_temps(p);
    if (s != NCL_OK) {
        release_results(p, p->nop - p->nin);
        return s;
    }
    for (int k = 0; k < p->nop - p->nin; k++)
        if (p->allocated[k]) c->out[k] = p->result[k];
    return s;
}

/* ---- splitting across the pool -------------------------------------------------------- */

int64_t ncl_ew_op_cost(NclSubsystem ksub, int kop, const NclDType *sig, int nin, int buffered)
{
    const int fl = ncl_dtype_kind[sig[nin]] == 'f' || ncl_dtype_kind[sig[0]] == 'f';
    int64_t c = NCL_COST_ADD;
    if (ksub == NCL_SUBSYSTEM_UNARY) {
        if (fl && kop >= NCL_SQRT && kop <= NCL_ARCTANH)
            c = kop == NCL_SQRT ? NCL_COST_DIV : NCL_COST_TRANSCENDENTAL;
        else if (kop == NCL_RECIPROCAL)
            c = NCL_COST_DIV;
        else if (kop == NCL_SPACING)
            c = NCL_COST_DIV; /* a libm call per element */
    } else if (ksub == NCL_SUBSYSTEM_BINARY) {
        switch (kop) {
        case NCL_POWER: case NCL_ARCTAN2: case NCL_HYPOT:
            c = fl ? NCL_COST_TRANSCENDENTAL : NCL_COST_DIV;
            break;
        case NCL_LOGADDEXP: case NCL_LOGADDEXP2: case NCL_FLOAT_POWER:
            c = NCL_COST_TRANSCENDENTAL;
            break;
        case NCL_DIVIDE: case NCL_FLOOR_DIVIDE: case NCL_REMAINDER: case NCL_FMOD:
        case NCL_GCD: case NCL_LCM: case NCL_NEXTAFTER: case NCL_LDEXP:
            c = NCL_COST_DIV;
            break;
        default: break;
        }
    }
    return c + (buffered ? 1 : 0);
}

NCL_INLINE int64_t ew_cost(const ncl_ew_plan *p)
{
    return ncl_ew_op_cost(p->kernel_sub, p->kernel_op, p->sig, p->nin, p->buffered);
}

/* Ranges of the flat iteration space, one per thread; inner boundaries on
   multiples of 64 elements so that threads do not share cache lines of a
   contiguous output. Any partition gives the same result. */
typedef struct ew_job {
    const ncl_ew_plan *p;
    int64_t ntasks;
} ew_job;

NCL_INLINE int64_t ew_bound(const ew_job *j, int64_t t)
{
    const int64_t size = j->p->size;
    if (t >= j->ntasks) return size;
    const int64_t b = size / j->ntasks * t + size % j->ntasks * t / j->ntasks;
    return b & ~(int64_t)63;
}

static NclStatus ew_task(void *arg, int worker, int64_t task, int *fpe)
{
    const ew_job *j = arg;
    const int64_t lo = ew_bound(j, task), hi = ew_bound(j, task + 1);
    if (lo >= hi) return NCL_OK;
    return ncl_ew_execute(j->p, lo, hi, worker, (int)j->ntasks, task, fpe);
}

NclStatus ncl_ew_outcome(NclSubsystem sub, int op, const NclKernelNode *k, NclStatus st,
                            int fpe)
{
    if (st)
        return ncl_error(st, "%s(%s): kernel %s failed with status %d (%s)",
                         ncl_sub_fn_name(sub), ncl_op_name(sub, op),
                         k->name ? k->name : "(unnamed)", (int)st, NclStatusString(st));
    /* RAISE is decided here for a top-level call, so that an output this
       call allocated is released rather than returned. */
    return fpe ? ncl_fpe_raise_early(sub, op) : NCL_OK;
}

NclStatus ncl_ew_exec(const ncl_ew_plan *p, NclSubsystem sub, int op)
{
    NclStatus st = NCL_OK;
    int used = 1;
    if (p->size > 0) {
        /* Integer-only calls report their errors explicitly; the hardware
           status is read only where float arithmetic can set it. */
        int fpe = 0;
        ncl_fpe_saved saved;
        const int nt = ncl_pool_threads(p->size * ew_cost(p));
        if (p->floats) ncl_fpe_begin(&saved);
        if (nt > 1) {
            ew_job job = {p, nt};
            st = ncl_pool_run(nt, nt, ew_task, &job, p->floats, &fpe, &used);
        } else {
            st = ncl_ew_execute(p, 0, p->size, 0, 1, 0, &fpe);
        }
        if (p->floats) fpe |= ncl_fpe_end(&saved);
        ncl_tls.fpe_flags |= fpe;
        if (st || fpe) st = ncl_ew_outcome(sub, op, p->kernel, st, fpe);
    }
    ncl_last_call.elements = p->size;
    ncl_last_call.bytes = p->size * p->bytes_per;
    ncl_last_call.kernel = p->kernel->name ? p->kernel->name : "(unnamed)";
    ncl_last_call.threads = used;
    return st;
}

NclStatus ncl_ew_run(const ncl_ew_call *c)
{
    ncl_ew_plan p;
    NclStatus st = ncl_ew_plan_make(c, &p);
    if (st) return st;
    return ncl_ew_finish(c, &p, ncl_ew_exec(&p, c->sub, c->op));
}
