/*
 * manip.c: NCLib's default implementation of the Manip subsystem
 * (concatenate, stack, repeat, tile, flip, diff), the tail node of its
 * level-1 chain.
 *
 * Nothing here moves an element itself. Each op is a few strided copies:
 * a view of the source (an input, flipped by negative strides or widened
 * by zero strides) put into a view of the result (a slice of it, or an
 * axis split in two), each run by the assignment machinery (exec/assign.c:
 * the planner with the Convert kernels as the loop, split over threads as
 * any copy is). DIFF runs the planner with the Binary kernels of subtract
 * (Compare's not_equal for bool) on two views of the array shifted by one.
 *
 * Plan, then write: the result's shape and dtype, every cast, the output's
 * checks and every view are settled before the first copy. A provided
 * output that shares memory with an input is filled from a private result,
 * so the copies never read what an earlier one wrote.
 */
#include <stdio.h>
#include <string.h>
#include "defaults/ncl_defaults.h"
#include "exec/plan.h"
#include "exec/typeres.h"

#define SUB NCL_SUBSYSTEM_MANIP
#define WHO "NclManip(%s)"

static const char *const casting_names[] = {"no", "equiv", "safe", "same_kind", "unsafe"};

/* One call as the default sees it. */
typedef struct mcall {
    NclManipOp op;
    const char *name;  /* the op's name, for messages */
    char who[48];      /* "NclManip(<op>)" for the array layer's messages */
    NclParams p;
} mcall;

/* ---- views ------------------------------------------------------------------- */

/* A view of base with room for cap dimensions, pointed anywhere by
   view_set; writeable when it is a view of the result. */
static NclStatus view_make(const mcall *m, const NclArray *base, int cap, int writeable,
                           NclArray **v)
{
    static const int64_t zero[NCL_MAXDIMS];
    return ncl_array_view(m->who, base, cap, zero, zero, base->data,
                          writeable ? NCL_ARRAY_WRITEABLE : 0, v);
}

/* Points the view v (made by view_make with room for ndim dimensions or
   more) at the elements ndim, shape, strides from data. */
static void view_set(NclArray *v, const char *data, int ndim, const int64_t *shape,
                     const int64_t *strides)
{
    int64_t size = 1;
    for (int d = 0; d < ndim; d++) size *= shape[d];
    v->ndim = ndim;
    if (ndim > 0) {
        memcpy(v->shape, shape, (size_t)ndim * sizeof *shape);
        memcpy(v->strides, strides, (size_t)ndim * sizeof *strides);
    }
    v->data = (char *)(uintptr_t)data;
    v->size = size;
    ncl_array_update_flags(v);
}

/* Copies src, broadcast to dst's shape, into dst with a conversion to
   dst's dtype (every cast was checked against the call's rule before the
   first put). */
static NclStatus put(const mcall *m, const NclArray *src, NclArray *dst)
{
    if (dst->size == 0) return NCL_OK;
    NclArray *o = dst;
    return ncl_convert_run(SUB, (int)m->op, src, dst->dtype, &o, NULL, NCL_CASTING_UNSAFE);
}

/* ---- checks -------------------------------------------------------------------- */

/* An input (index >= 0) is read; the output (index < 0, named by what) is
   written too. */
static NclStatus check_host(const mcall *m, const NclArray *a, const char *what, int index)
{
    if (a->kind != NCL_MEM_DEVICE) return NCL_OK;
    if (index >= 0)
        return ncl_error(NCL_ERR_DEVICE_MEMORY,
                         WHO ": %s %d is in device memory, which host code cannot read",
                         m->name, what, index);
    return ncl_error(NCL_ERR_DEVICE_MEMORY,
                     WHO ": %s is in device memory, which host code cannot touch", m->name, what);
}

/* axis normalised against ndim (NumPy's normalize_axis_index). */
static NclStatus norm_axis(const mcall *m, int axis, int ndim, int *out)
{
    if (axis < -ndim || axis >= ndim)
        return ncl_error(NCL_ERR_AXIS, WHO ": axis %d is out of bounds for array of dimension %d",
                         m->name, axis, ndim);
    *out = axis < 0 ? axis + ndim : axis;
    return NCL_OK;
}

/* The one axis of params->axes, or *given 0 when axes is NULL. */
static NclStatus one_axis(const mcall *m, int *axis, int *given)
{
    *given = m->p.axes != NULL;
    if (!*given) return NCL_OK;
    if (m->p.naxes != 1)
        return ncl_error(NCL_ERR_AXIS, WHO ": params->naxes is %d; %s takes one axis (or axes "
                         "NULL)", m->name, m->p.naxes, m->name);
    *axis = m->p.axes[0];
    return NCL_OK;
}

/* The checks of a provided output: host memory, writeable, no internal
   overlap, exactly the result's shape, and a dtype the result dtype `from`
   casts to. */
static NclStatus check_out(const mcall *m, const NclArray *out, int ndim, const int64_t *shape,
                           NclDType from)
{
    char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
    NclStatus st = check_host(m, out, "the output", -1);
    if (st) return st;
    if (!(out->flags & NCL_ARRAY_WRITEABLE))
        return ncl_error(NCL_ERR_READONLY, WHO ": the output array is read-only", m->name);
    if (ncl_array_has_internal_overlap(out))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         WHO ": the output has internal overlap (strides %s over shape %s)",
                         m->name, ncl_shape_str(s0, out->ndim, out->strides),
                         ncl_shape_str(s1, out->ndim, out->shape));
    int same = out->ndim == ndim;
    for (int d = 0; same && d < ndim; d++) same = out->shape[d] == shape[d];
    if (!same)
        return ncl_error(NCL_ERR_SHAPE, WHO ": the output has shape %s; the result's is %s",
                         m->name, ncl_shape_str(s0, out->ndim, out->shape),
                         ncl_shape_str(s1, ndim, shape));
    if (!NclCanCast(from, out->dtype, m->p.casting))
        return ncl_error(NCL_ERR_CASTING,
                         WHO ": cannot cast the result from %s to the output dtype %s under "
                         "casting rule '%s'",
                         m->name, NclDTypeName(from), NclDTypeName(out->dtype),
                         casting_names[m->p.casting]);
    return NCL_OK;
}

/* REPEAT, TILE, FLIP and DIFF have one result dtype: params->dtype may
   only name it. */
static NclStatus check_dtype(const mcall *m, NclDType result)
{
    if (m->p.dtype == NCL_DTYPE_DEFAULT || m->p.dtype == result) return NCL_OK;
    return ncl_error(NCL_ERR_DTYPE, WHO ": params->dtype is %s; the result of %s is %s",
                     m->name, NclDTypeName(m->p.dtype), m->name, NclDTypeName(result));
}

/* Whether a provided output shares memory with any input: the result is
   then made apart and copied in at the end. */
static int out_overlaps(NclArray *out, int nin, const NclArray *const *in)
{
    for (int i = 0; out && i < nin; i++)
        if (in[i] && ncl_array_ranges_overlap(in[i], out)) return 1;
    return 0;
}

/* The array the copies write: the provided output when it is apart from
   every input, else a new C-order array (*fresh = 1). */
static NclStatus target(const mcall *m, NclArray *given, int apart, NclDType dtype, int ndim,
                        const int64_t *shape, NclArray **res, int *fresh)
{
    if (given && apart) {
        *res = given;
        *fresh = 0;
        return NCL_OK;
    }
    *fresh = 1;
    return ncl_array_alloc(m->who, given ? given->dtype : dtype, ndim, shape,
                           NCL_ORDER_C, 0, res);
}

/* The start of every op that copies into a result of shape (ndim,
   shape) and dtype: the size checked, a provided output checked against
   them, and the array the copies write (target); *size may be NULL. */
static NclStatus begin(const mcall *m, NclArray *given, int apart, NclDType dtype, int ndim,
                       const int64_t *shape, int64_t *size, NclArray **res, int *fresh)
{
    int64_t n;
    NclStatus st = ncl_shape_check(ncl_sub_fn_name(SUB), ndim, shape, &n);
    if (st == NCL_OK && given) st = check_out(m, given, ndim, shape, dtype);
    if (st) return st;
    if (size) *size = n;
    return target(m, given, apart, dtype, ndim, shape, res, fresh);
}

/* The end of a call that wrote res: a fresh result goes into the provided
   output (one more put) or becomes *out; on failure a fresh one is
   released and *out keeps what it held. */
static NclStatus finish(const mcall *m, NclStatus st, NclArray *res, int fresh, NclArray **out)
{
    if (!fresh) return st;
    if (st == NCL_OK && *out) st = put(m, res, *out);
    if (st == NCL_OK && !*out) {
        *out = res;
        return NCL_OK;
    }
    NclArrayRelease(res);
    return st;
}

/* C-order strides of shape, in units of unit bytes. */
static void c_strides(int ndim, const int64_t *shape, int64_t unit, int64_t *strides)
{
    int64_t s = unit;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = s;
        s *= shape[d] > 0 ? shape[d] : 1;
    }
}

/* ---- CONCATENATE and STACK --------------------------------------------------------- */

/* np.result_type of the arrays in[0 .. nin), which is not a left fold of
   pairwise promotion (int8, uint16, float32 give float32, not float64):
   the dtype of the largest NumPy type number leads, each dtype is
   promoted with it, and the results with each other. */
static NclDType result_type(int nin, const NclArray *const *in)
{
    /* NumPy's type numbers (NPY_BYTE ... NPY_DOUBLE, int64 as NPY_LONG) */
    static const unsigned char num[NCL_NTYPES] = {
        [NCL_BOOL] = 0,    [NCL_INT8] = 1,    [NCL_UINT8] = 2,   [NCL_INT16] = 3,
        [NCL_UINT16] = 4,  [NCL_INT32] = 5,   [NCL_UINT32] = 6,  [NCL_INT64] = 7,
        [NCL_UINT64] = 8,  [NCL_FLOAT32] = 11, [NCL_FLOAT64] = 12};
    NclDType lead = in[0]->dtype;
    for (int i = 1; i < nin; i++)
        if (num[in[i]->dtype] > num[lead]) lead = in[i]->dtype;
    NclDType t = NclPromoteTypes(lead, in[0]->dtype);
    for (int i = 1; i < nin; i++) t = NclPromoteTypes(t, NclPromoteTypes(lead, in[i]->dtype));
    return t;
}

/* The result dtype of joining in[0 .. nin): params->dtype, or the inputs'
   promotion, and the check of each input's cast to what the copies write
   (a provided output's dtype, else the result's). */
static NclStatus join_dtype(const mcall *m, int nin, const NclArray *const *in,
                            const NclArray *given, NclDType *dtype)
{
    if (m->p.dtype != NCL_DTYPE_DEFAULT && given)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         WHO ": params->dtype and a provided output are both given; %s takes "
                         "one of them (NumPy's out or dtype)", m->name, m->name);
    NclDType t = m->p.dtype;
    if (t == NCL_DTYPE_DEFAULT) t = result_type(nin, in);
    const NclDType to = given ? given->dtype : t;
    for (int i = 0; i < nin; i++)
        if (!NclCanCast(in[i]->dtype, to, m->p.casting))
            return ncl_error(NCL_ERR_CASTING,
                             WHO ": cannot cast input %d from %s to %s under casting rule '%s'",
                             m->name, i, NclDTypeName(in[i]->dtype), NclDTypeName(to),
                             casting_names[m->p.casting]);
    *dtype = to;
    return NCL_OK;
}

/* The result shape of concatenating in[] along axis (flat: each input
   flattened, axis 0), every input checked against in[0]. Messages name
   input i as ids[i] (NULL: as i). */
static NclStatus concat_shape(const mcall *m, int nin, const NclArray *const *in, const int *ids,
                              int flat, int axis_arg, int *axis, int *ndim, int64_t *shape)
{
    if (flat) {
        int64_t total = 0;
        for (int i = 0; i < nin; i++)
            if (ncl_add_overflow(total, in[i]->size, &total))
                return ncl_error(NCL_ERR_SHAPE, WHO ": the result is too large", m->name);
        *axis = 0;
        *ndim = 1;
        shape[0] = total;
        return NCL_OK;
    }
    const NclArray *a0 = in[0];
    for (int i = 0; i < nin; i++)
        if (in[i]->ndim == 0)
            return ncl_error(NCL_ERR_SHAPE,
                             WHO ": input %d is 0-d; zero-dimensional arrays cannot be "
                             "concatenated (axes NULL flattens them)",
                             m->name, ids ? ids[i] : i);
    NclStatus st = norm_axis(m, axis_arg, a0->ndim, axis);
    if (st) return st;
    *ndim = a0->ndim;
    memcpy(shape, a0->shape, (size_t)a0->ndim * sizeof *shape);
    for (int i = 1; i < nin; i++) {
        const NclArray *a = in[i];
        if (a->ndim != a0->ndim)
            return ncl_error(NCL_ERR_SHAPE,
                             WHO ": all the input arrays must have the same number of dimensions, "
                             "but input %d has %d dimension(s) and input %d has %d dimension(s)",
                             m->name, ids ? ids[0] : 0, a0->ndim, ids ? ids[i] : i, a->ndim);
        for (int d = 0; d < a->ndim; d++) {
            if (d == *axis) continue;
            if (a->shape[d] != a0->shape[d])
                return ncl_error(NCL_ERR_SHAPE,
                                 WHO ": all the input array dimensions except for the "
                                 "concatenation axis must match exactly, but along dimension %d, "
                                 "input %d has size %lld and input %d has size %lld",
                                 m->name, d, ids ? ids[0] : 0, (long long)a0->shape[d],
                                 ids ? ids[i] : i, (long long)a->shape[d]);
        }
        if (ncl_add_overflow(shape[*axis], a->shape[*axis], &shape[*axis]))
            return ncl_error(NCL_ERR_SHAPE, WHO ": the result is too large", m->name);
    }
    return NCL_OK;
}

/* Copies in[0 .. nin) one after the other into res along axis (flat: res
   is 1-D and each input goes in in C order). */
static NclStatus concat_fill(const mcall *m, int nin, const NclArray *const *in, int flat,
                             int axis, NclArray *res)
{
    int cap = flat ? 1 : res->ndim;
    for (int i = 0; i < nin; i++)
        if (flat && in[i]->ndim > cap) cap = in[i]->ndim;
    NclArray *dst = NULL;
    NclStatus st = view_make(m, res, cap, 1, &dst);
    if (st) return st;
    int64_t off = 0, shape[NCL_MAXDIMS], strides[NCL_MAXDIMS];
    for (int i = 0; i < nin && st == NCL_OK; i++) {
        const NclArray *a = in[i];
        if (flat) {
            /* The input's shape over its run of the 1-D result. */
            c_strides(a->ndim, a->shape, res->strides[0], strides);
            view_set(dst, res->data + off * res->strides[0], a->ndim, a->shape, strides);
            off += a->size;
        } else {
            memcpy(shape, res->shape, (size_t)res->ndim * sizeof *shape);
            shape[axis] = a->shape[axis];
            view_set(dst, res->data + off * res->strides[axis], res->ndim, shape, res->strides);
            off += a->shape[axis];
        }
        st = put(m, a, dst);
    }
    NclArrayRelease(dst);
    return st;
}

/* Prepares in[] for joining: NULL and device memory refused, by index. */
static NclStatus check_inputs(const mcall *m, int nin, const NclArray *const *in)
{
    for (int i = 0; i < nin; i++) {
        if (!in[i])
            return ncl_error(NCL_ERR_INVALID_ARGUMENT, WHO ": in[%d] is NULL", m->name, i);
        NclStatus st = check_host(m, in[i], "input", i);
        if (st) return st;
    }
    return NCL_OK;
}

static NclStatus manip_concatenate(const mcall *m, int nin, const NclArray *const *in,
                                   NclArray **out)
{
    int axis = 0, given, ax = 0;
    NclStatus st = one_axis(m, &axis, &given);
    if (st) return st;
    int ndim;
    int64_t shape[NCL_MAXDIMS];
    NclDType dtype;
    if ((st = concat_shape(m, nin, in, NULL, !given, axis, &ax, &ndim, shape))) return st;
    if ((st = join_dtype(m, nin, in, *out, &dtype))) return st;
    NclArray *res;
    int fresh;
    if ((st = begin(m, *out, !out_overlaps(*out, nin, in), dtype, ndim, shape, NULL, &res,
                    &fresh)))
        return st;
    st = concat_fill(m, nin, in, !given, ax, res);
    return finish(m, st, res, fresh, out);
}

static NclStatus manip_stack(const mcall *m, int nin, const NclArray *const *in, NclArray **out)
{
    int axis = 0, given, ax = 0;
    NclStatus st = one_axis(m, &axis, &given);
    if (st) return st;
    const NclArray *a0 = in[0];
    char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
    for (int i = 1; i < nin; i++)
        if (!ncl_ew_same_shape(in[i], a0))
            return ncl_error(NCL_ERR_SHAPE,
                             WHO ": all input arrays must have the same shape, but input 0 has "
                             "shape %s and input %d has shape %s",
                             m->name, ncl_shape_str(s0, a0->ndim, a0->shape), i,
                             ncl_shape_str(s1, in[i]->ndim, in[i]->shape));
    if (a0->ndim + 1 > NCL_MAXDIMS)
        return ncl_error(NCL_ERR_SHAPE, WHO ": the result would have %d dimensions (at most %d)",
                         m->name, a0->ndim + 1, NCL_MAXDIMS);

    if ((st = norm_axis(m, axis, a0->ndim + 1, &ax))) return st;
    const int ndim = a0->ndim + 1;
    int64_t shape[NCL_MAXDIMS];
    for (int d = 0, k = 0; d < ndim; d++) shape[d] = d == ax ? nin : a0->shape[k++];
    NclDType dtype;
    if ((st = join_dtype(m, nin, in, *out, &dtype))) return st;
    NclArray *res, *dst = NULL;
    int fresh;
    if ((st = begin(m, *out, !out_overlaps(*out, nin, in), dtype, ndim, shape, NULL, &res,
                    &fresh)))
        return st;
    /* Input i is the result's slice i along the new axis. */
    int64_t strides[NCL_MAXDIMS];
    for (int d = 0, k = 0; d < ndim; d++)
        if (d != ax) strides[k++] = res->strides[d];
    st = view_make(m, res, a0->ndim, 1, &dst);
    for (int i = 0; i < nin && st == NCL_OK; i++) {
        view_set(dst, res->data + (int64_t)i * res->strides[ax], a0->ndim, a0->shape, strides);
        st = put(m, in[i], dst);
    }
    NclArrayRelease(dst);
    return finish(m, st, res, fresh, out);
}

/* ---- REPEAT ------------------------------------------------------------------------- */

/* The counts of params->repeats for an axis of extent n: one for all, or
   one per element; none negative. */
static NclStatus repeat_counts(const mcall *m, int64_t n)
{
    const NclParams *p = &m->p;
    if (p->repeats == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, WHO ": params->repeats is NULL", m->name);
    if (p->nrepeats != 1 && p->nrepeats != n)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         WHO ": params->nrepeats is %lld; it must be 1 or the extent %lld of "
                         "the repeated axis",
                         m->name, (long long)p->nrepeats, (long long)n);
    for (int64_t i = 0; i < p->nrepeats; i++)
        if (p->repeats[i] < 0)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                             WHO ": params->repeats[%lld] is %lld; negative repeats are not "
                             "allowed",
                             m->name, (long long)i, (long long)p->repeats[i]);
    return NCL_OK;
}

static NclStatus manip_repeat(const mcall *m, const NclArray *a, NclArray **out)
{
    int axis = 0, given, ax = 0;
    NclStatus st = one_axis(m, &axis, &given);
    if (st) return st;
    if (given && (st = norm_axis(m, axis, a->ndim, &ax))) return st;
    const int64_t n = given ? a->shape[ax] : a->size;
    if ((st = repeat_counts(m, n))) return st;
    if ((st = check_dtype(m, a->dtype))) return st;
    const int64_t *r = m->p.repeats;
    const int each = m->p.nrepeats != 1;  /* one count per element */
    int64_t len = 0;
    if (!each) {
        if (ncl_mul_overflow(n, r[0], &len))
            return ncl_error(NCL_ERR_SHAPE, WHO ": the result is too large", m->name);
    } else {
        for (int64_t i = 0; i < n; i++)
            if (ncl_add_overflow(len, r[i], &len))
                return ncl_error(NCL_ERR_SHAPE, WHO ": the result is too large", m->name);
    }
    int ndim = given ? a->ndim : 1;
    int64_t shape[NCL_MAXDIMS], size;
    if (given) memcpy(shape, a->shape, (size_t)a->ndim * sizeof *shape);
    shape[ax] = len;
    NclArray *res, *src = NULL, *dst = NULL;
    int fresh;
    if ((st = begin(m, *out, !out_overlaps(*out, 1, &a), a->dtype, ndim, shape, &size, &res,
                    &fresh)))
        return st;
    const int64_t rs = res->strides[ax];
    int64_t sshape[NCL_MAXDIMS], sstr[NCL_MAXDIMS], dshape[NCL_MAXDIMS], dstr[NCL_MAXDIMS];
    if (size == 0) {
        /* nothing to copy */
    } else if (!each && a->ndim < NCL_MAXDIMS) {
        /* One copy: the result's axis split into (n, r), the source given
           an axis of extent r and stride 0 after it. Flattened, the source
           is a with that axis last and the result's run laid over a's
           shape. */
        const int sd = a->ndim + 1;
        const int at = given ? ax + 1 : a->ndim;
        for (int d = 0, k = 0; d < sd; d++) {
            if (d == at) {
                sshape[d] = r[0];
                sstr[d] = 0;
            } else {
                sshape[d] = a->shape[k];
                sstr[d] = a->strides[k];
                k++;
            }
        }
        if (given) {
            for (int d = 0, k = 0; d < sd; d++) {
                dshape[d] = sshape[d];
                if (d == at) dstr[d] = rs;
                else if (d == ax) dstr[d] = rs * r[0];
                else dstr[d] = res->strides[k];
                if (d != at) k++;
            }
        } else {
            memcpy(dshape, sshape, (size_t)sd * sizeof *dshape);
            c_strides(sd, dshape, rs, dstr);
        }
        st = view_make(m, a, sd, 0, &src);
        if (st == NCL_OK) st = view_make(m, res, sd, 1, &dst);
        if (st == NCL_OK) {
            view_set(src, a->data, sd, sshape, sstr);
            view_set(dst, res->data, sd, dshape, dstr);
            st = put(m, src, dst);
        }
    } else {
        /* One count per element: a take (Mask's TAKE, through its chain)
           of the indices 0, 0, 1, 2, 2, 2, ... that the counts spell, along
           the axis or of the flattened array. One pass over the result
           whatever the counts, where a copy per element would cost a
           planned call each. */
        NclArray *idx = NULL;
        st = ncl_array_alloc(m->who, NCL_INT64, 1, &len, NCL_ORDER_C, 0, &idx);
        if (st == NCL_OK) {
            int64_t *x = (int64_t *)(void *)idx->data, k = 0;
            for (int64_t i = 0; i < n; i++)
                for (int64_t c = m->p.nrepeats == 1 ? r[0] : r[i]; c > 0; c--) x[k++] = i;
            NclParams q = NCL_PARAMS_INIT;
            q.axes = given ? &ax : NULL;
            q.naxes = given ? 1 : 0;
            q.casting = NCL_CASTING_UNSAFE; /* the cast to res was checked */
            NclArray *o = res;
            st = NclMask(NCL_MASK_TAKE, a, idx, &o, &q);
            NclArrayRelease(idx);
        }
    }
    NclArrayRelease(src);
    NclArrayRelease(dst);
    return finish(m, st, res, fresh, out);
}

/* ---- TILE ----------------------------------------------------------------------------- */

static NclStatus manip_tile(const mcall *m, const NclArray *a, NclArray **out)
{
    const NclParams *p = &m->p;
    if (p->nrepeats < 0 || p->nrepeats > NCL_MAXDIMS || (p->nrepeats > 0 && p->repeats == NULL))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         WHO ": params->nrepeats is %lld with repeats %s; tile takes 0 to %d "
                         "counts",
                         m->name, (long long)p->nrepeats, p->repeats ? "given" : "NULL",
                         NCL_MAXDIMS);
    for (int64_t i = 0; i < p->nrepeats; i++)
        if (p->repeats[i] < 0)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                             WHO ": params->repeats[%lld] is %lld; negative repeats are not "
                             "allowed",
                             m->name, (long long)i, (long long)p->repeats[i]);
    NclStatus st = check_dtype(m, a->dtype);
    if (st) return st;
    /* The shorter of reps and a's shape is prepended with 1s. */
    const int nr = (int)p->nrepeats;
    const int ndim = nr > a->ndim ? nr : a->ndim;
    int64_t ext[NCL_MAXDIMS], ast[NCL_MAXDIMS], rep[NCL_MAXDIMS], shape[NCL_MAXDIMS], size;
    for (int d = 0; d < ndim; d++) {
        const int k = d - (ndim - a->ndim), j = d - (ndim - nr);
        ext[d] = k >= 0 ? a->shape[k] : 1;
        ast[d] = k >= 0 ? a->strides[k] : 0;
        rep[d] = j >= 0 ? p->repeats[j] : 1;
        if (ncl_mul_overflow(ext[d], rep[d], &shape[d]))
            return ncl_error(NCL_ERR_SHAPE, WHO ": the result is too large", m->name);
    }
    NclArray *res, *src = NULL, *dst = NULL;
    int fresh;
    if ((st = begin(m, *out, !out_overlaps(*out, 1, &a), a->dtype, ndim, shape, &size, &res,
                    &fresh)))
        return st;
    if (size > 0) {
        /* One copy: each result axis of a repeated extent split into (rep,
           extent), the source's rep axis of stride 0. A non-empty result
           has few such axes (each at least doubles its size), so the split
           fits in NCL_MAXDIMS. */
        int64_t sshape[NCL_MAXDIMS], sstr[NCL_MAXDIMS], dshape[NCL_MAXDIMS], dstr[NCL_MAXDIMS];
        int sd = 0;
        for (int d = 0; d < ndim; d++) {
            if (rep[d] != 1 && ext[d] != 1) {
                sshape[sd] = 1;
                sstr[sd] = 0;
                dshape[sd] = rep[d];
                dstr[sd] = res->strides[d] * ext[d];
                sd++;
                dshape[sd] = ext[d];
            } else {
                dshape[sd] = shape[d]; /* ext[d] is 1 here, or rep[d] is */
            }
            sshape[sd] = ext[d];
            sstr[sd] = ext[d] == 1 ? 0 : ast[d];
            dstr[sd] = res->strides[d];
            sd++;
        }
        st = view_make(m, a, sd, 0, &src);
        if (st == NCL_OK) st = view_make(m, res, sd, 1, &dst);
        if (st == NCL_OK) {
            view_set(src, a->data, sd, sshape, sstr);
            view_set(dst, res->data, sd, dshape, dstr);
            st = put(m, src, dst);
        }
    }
    NclArrayRelease(src);
    NclArrayRelease(dst);
    return finish(m, st, res, fresh, out);
}

/* ---- FLIP ---------------------------------------------------------------------------- */

static NclStatus manip_flip(const mcall *m, const NclArray *a, NclArray **out)
{
    int flip[NCL_MAXDIMS] = {0};
    const NclParams *p = &m->p;
    NclStatus st;
    if (p->axes == NULL) {
        for (int d = 0; d < a->ndim; d++) flip[d] = 1;
    } else {
        if (p->naxes < 0)
            return ncl_error(NCL_ERR_AXIS, WHO ": params->naxes is %d", m->name, p->naxes);
        for (int i = 0; i < p->naxes; i++) {
            int ax = 0;
            if ((st = norm_axis(m, p->axes[i], a->ndim, &ax))) return st;
            if (flip[ax])
                return ncl_error(NCL_ERR_AXIS, WHO ": repeated axis %d in params->axes",
                                 m->name, p->axes[i]);
            flip[ax] = 1;
        }
    }
    if ((st = check_dtype(m, a->dtype))) return st;
    /* A view walking the flipped axes backwards; the planner copies it
       first where it overlaps a provided output. */
    int64_t strides[NCL_MAXDIMS];
    const char *data = a->data;
    for (int d = 0; d < a->ndim; d++) {
        strides[d] = a->strides[d];
        if (flip[d] && a->shape[d] > 0) {
            data += (a->shape[d] - 1) * a->strides[d];
            strides[d] = -a->strides[d];
        }
    }
    NclArray *res, *src = NULL;
    int fresh;
    if ((st = begin(m, *out, 1, a->dtype, a->ndim, a->shape, NULL, &res, &fresh))) return st;
    st = view_make(m, a, a->ndim, 0, &src);
    if (st == NCL_OK) {
        view_set(src, data, a->ndim, a->shape, strides);
        st = put(m, src, res);
    }
    NclArrayRelease(src);
    return finish(m, st, res, fresh, out);
}

/* ---- DIFF ----------------------------------------------------------------------------- */

/* Where the differences of dtype t run: the Binary kernels of subtract,
   the Compare kernels of not_equal for bool (NumPy's diff). */
static NclStatus diff_loop(const mcall *m, NclDType t, NclSubsystem *ksub, int *kop,
                           NclDType *loop, ncl_kchain **chain)
{
    const NclDType in[2] = {t, t};
    *ksub = t == NCL_BOOL ? NCL_SUBSYSTEM_COMPARE : NCL_SUBSYSTEM_BINARY;
    *kop = t == NCL_BOOL ? (int)NCL_CMP_NE : (int)NCL_SUBTRACT;
    NclStatus st = ncl_resolve_loop(*ksub, *kop, 2, in, NCL_DTYPE_DEFAULT, loop, chain);
    if (st)
        return ncl_error(st, WHO ": no difference loop for %s", m->name, NclDTypeName(t));
    return NCL_OK;
}

/* prepend or append (in[k]) as joined to a along axis: a 0-d one
   broadcast to a's shape with extent 1 there. */
static NclStatus diff_edge(const mcall *m, const NclArray *a, int ax, const NclArray *e,
                           NclArray **v)
{
    if (e->ndim > 0) {
        NclArrayRetain((NclArray *)(uintptr_t)e);
        *v = (NclArray *)(uintptr_t)e;
        return NCL_OK;
    }
    int64_t shape[NCL_MAXDIMS], strides[NCL_MAXDIMS] = {0};
    memcpy(shape, a->shape, (size_t)a->ndim * sizeof *shape);
    shape[ax] = 1;
    return ncl_array_view(m->who, e, a->ndim, shape, strides, e->data, 0, v);
}

static NclStatus manip_diff(const mcall *m, int nin, const NclArray *const *in, NclArray **out)
{
    const NclArray *a = in[0];
    const int64_t n = m->p.n;
    if (n < 0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         WHO ": order must be non-negative but got %lld (params->n)", m->name,
                         (long long)n);
    NclStatus st;
    if (n == 0) {
        /* NumPy returns a itself before reading axis, prepend or append. */
        if ((st = check_dtype(m, a->dtype))) return st;
        NclArray *res;
        int fresh;
        if ((st = begin(m, *out, 1, a->dtype, a->ndim, a->shape, NULL, &res, &fresh))) return st;
        return finish(m, put(m, a, res), res, fresh, out);
    }
    if (a->ndim == 0)
        return ncl_error(NCL_ERR_SHAPE, WHO ": diff requires input that is at least one "
                         "dimensional (input 0 is 0-d)", m->name);
    int axis = -1, given, ax = 0;
    if ((st = one_axis(m, &axis, &given))) return st;
    if ((st = norm_axis(m, axis, a->ndim, &ax))) return st;

    /* a with prepend and append joined to it, as concatenate joins them. */
    NclArray *parts[3] = {NULL, NULL, NULL}, *cur = NULL;
    int np = 0, ids[3];
    NclDType t = a->dtype;
    if (nin > 1) {
        /* in[] is (a, prepend, append); joined in the order (prepend, a,
           append). */
        static const int order[3] = {1, 0, 2};
        for (int k = 0; k < 3 && st == NCL_OK; k++) {
            const int i = order[k];
            const NclArray *e = i < nin ? in[i] : NULL;
            if (e && (st = diff_edge(m, a, ax, e, &parts[np])) == NCL_OK) ids[np++] = i;
        }
        const NclArray *const *cin = (const NclArray *const *)parts;
        int nd;
        int64_t shape[NCL_MAXDIMS];
        if (st == NCL_OK) st = concat_shape(m, np, cin, ids, 0, ax, &ax, &nd, shape);
        if (st == NCL_OK) {
            t = result_type(np, cin);
            st = ncl_array_alloc(ncl_sub_fn_name(SUB), t, nd, shape, NCL_ORDER_C, 0, &cur);
        }
        if (st == NCL_OK) st = concat_fill(m, np, cin, 0, ax, cur);
        for (int i = 0; i < np; i++) NclArrayRelease(parts[i]);
        if (st) {
            NclArrayRelease(cur);
            return st;
        }
    }
    const NclArray *x = cur ? cur : a;

    NclSubsystem ksub;
    int kop;
    NclDType loop[NCL_MAX_OPERANDS];
    ncl_kchain *chain = NULL;
    int64_t shape[NCL_MAXDIMS];
    memcpy(shape, x->shape, (size_t)x->ndim * sizeof *shape);
    shape[ax] = x->shape[ax] > n ? x->shape[ax] - n : 0;
    if ((st = diff_loop(m, t, &ksub, &kop, loop, &chain)) == NCL_OK &&
        (st = check_dtype(m, loop[2])) == NCL_OK && *out)
        st = check_out(m, *out, x->ndim, shape, loop[2]);
    if (st) {
        NclArrayRelease(cur);
        return st;
    }
    /* Each step subtracts x[:-1] from x[1:] along the axis into a new
       array; the last one writes the result (the planner copies first an
       input that overlaps a provided output). */
    NclArray *hi = NULL, *lo = NULL;
    NclArray *const given_out = *out;
    for (int64_t k = 0; k < n && st == NCL_OK; k++) {
        const int64_t len = x->shape[ax], nl = len > 0 ? len - 1 : 0;
        int64_t vs[NCL_MAXDIMS];
        memcpy(vs, x->shape, (size_t)x->ndim * sizeof *vs);
        vs[ax] = nl;
        st = ncl_array_view(m->who, x, x->ndim, vs, x->strides,
                            x->data + (len > 0 ? x->strides[ax] : 0), 0, &hi);
        if (st == NCL_OK)
            st = ncl_array_view(m->who, x, x->ndim, vs, x->strides, x->data, 0, &lo);
        NclArray *res = k == n - 1 ? given_out : NULL;
        if (st == NCL_OK) {
            ncl_ew_call c;
            c.sub = SUB;
            c.op = (int)m->op;
            c.nin = 2;
            c.nout = 1;
            c.in[0] = hi;
            c.in[1] = lo;
            memcpy(c.loop, loop, sizeof c.loop);
            c.kernel_sub = ksub;
            c.kernel_op = kop;
            c.chain = chain;
            c.out = &res;
            c.where = NULL;
            c.casting = m->p.casting;
            c.truth_inputs = 0;
            c.weak_inputs = 0;
            c.out_dtype = loop[2];
            st = ncl_ew_run(&c);
        }
        NclArrayRelease(hi);
        NclArrayRelease(lo);
        hi = lo = NULL;
        NclArrayRelease(cur);
        cur = NULL;
        if (st) break;
        if (k == n - 1) {
            if (!given_out) *out = res;
        } else {
            cur = res;
            x = cur;
            /* later steps difference the loop's output dtype */
            if (loop[2] != t && (st = diff_loop(m, t = loop[2], &ksub, &kop, loop, &chain)))
                NclArrayRelease(cur);
        }
    }
    return st;
}

/* ---- the default ------------------------------------------------------------------------ */

NclStatus ncl_default_manip(NclHook *self, NclManipOp op, int nin, const NclArray *const *in,
                            NclArray **out, const NclParams *params)
{
    (void)self;
    if ((unsigned)op >= (unsigned)NCL_MANIP_NOPS)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclManip: unknown op %d (valid: 0..%d)",
                         (int)op, NCL_MANIP_NOPS - 1);
    mcall m;
    m.op = op;
    m.name = ncl_op_name(SUB, (int)op);
    snprintf(m.who, sizeof m.who, WHO, m.name);
    const int join = op == NCL_CONCATENATE || op == NCL_STACK;
    const int hi = join ? nin : op == NCL_DIFF ? 3 : 1;
    if (nin < 1 || nin > hi) {
        if (join)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                             WHO ": nin is %d; need at least one array to %s", m.name, nin,
                             m.name);
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, WHO ": nin is %d; %s takes %s", m.name, nin,
                         m.name, op == NCL_DIFF ? "1 to 3 arrays (a, prepend, append)"
                                                : "one array");
    }
    if (in == NULL || out == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, WHO ": %s is NULL", m.name,
                         in ? "the out pointer" : "in");
    NclStatus st = ncl_params_read(SUB, (int)op, params, &m.p);
    if (st) return st;
    if (m.p.where)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, WHO ": a where mask is not taken", m.name);
    /* DIFF's prepend and append may be NULL (not given); a is not. */
    const int need = op == NCL_DIFF ? 1 : nin;
    if ((st = check_inputs(&m, need, in))) return st;
    for (int i = need; i < nin; i++)
        if (in[i] && (st = check_host(&m, in[i], "input", i))) return st;

    switch (op) {
    case NCL_CONCATENATE: return manip_concatenate(&m, nin, in, out);
    case NCL_STACK: return manip_stack(&m, nin, in, out);
    case NCL_REPEAT: return manip_repeat(&m, in[0], out);
    case NCL_TILE: return manip_tile(&m, in[0], out);
    case NCL_FLIP: return manip_flip(&m, in[0], out);
    default: return manip_diff(&m, nin, in, out);
    }
}
