/*
 * assign.c: conversion of a whole array into another dtype, with the Convert
 * kernels as the loop: what NclConvert runs; assignment (ncl_assign), the
 * copy-with-cast that creation and reshaping use; and NclArrayReshape, the
 * one array function that may copy.
 */
#include <string.h>
#include "exec/plan.h"

static const char *const casting_names[] = {"no", "equiv", "safe", "same_kind", "unsafe"};

NclStatus ncl_convert_run(NclSubsystem sub, int op, const NclArray *a, NclDType to,
                         NclArray **out, const NclArray *where, NclCasting casting)
{
    if (!NclCanCast(a->dtype, to, casting))
        return ncl_error(NCL_ERR_CASTING, "%s(%s): cannot cast %s to %s under casting rule '%s'",
                         ncl_sub_fn_name(sub), ncl_op_name(sub, op), NclDTypeName(a->dtype),
                         NclDTypeName(to), casting_names[casting]);
    ncl_ew_call c;
    c.sub = sub;
    c.op = op;
    c.nin = 1;
    c.nout = 1;
    c.in[0] = a;
    c.loop[0] = a->dtype;
    c.loop[1] = to;
    c.kernel_sub = NCL_SUBSYSTEM_CONVERT;
    c.kernel_op = NCL_CONVERT_ASTYPE;
    c.chain = NULL;
    c.out = out;
    c.where = where;
    c.truth_inputs = 0;
    c.weak_inputs = 0;
    /* The rule was applied above; the planner's own checks see equal dtypes. */
    c.casting = NCL_CASTING_NO;
    c.out_dtype = to;
    return ncl_ew_run(&c);
}

NclStatus ncl_assign(const char *who, NclArray *dst, const NclArray *src, NclCasting casting)
{
    NclArray *out = dst;
    ncl_call_enter(); /* kernel chains are read inside a call bracket */
    NclStatus st =
        ncl_convert_run(NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_COPYTO, src, dst->dtype, &out, NULL, casting);
    st = ncl_call_leave(st, NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_COPYTO);
    if (st) {
        char why[sizeof ncl_last_error];
        memcpy(why, ncl_last_error, sizeof why);
        ncl_error(st, "%s: %s", who, why);
    }
    return st;
}

NclStatus NclArrayReshape(const NclArray *a, int ndim, const int64_t *shape, NclArray **out)
{
    static const char who[] = "NclArrayReshape";
    if (a == NULL || out == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who, a ? "out" : "a");
    NclStatus chk = ncl_array_check(who, "a", a);
    if (chk != NCL_OK) return chk;
    int64_t ns[NCL_MAXDIMS];
    NclArray *view = NULL;
    NclStatus s = ncl_array_reshape_view(who, a, ndim, shape, ns, &view);
    if (s != NCL_OK || view != NULL) {
        if (s == NCL_OK) *out = view;
        return s;
    }

    /* A copy: a new C-order array of the new shape, filled through a view of
       it that has a's shape (C-contiguous, so always a view), so ncl_assign
       sees matching shapes. */
    if (a->kind == NCL_MEM_DEVICE) {
        char b1[NCL_SHAPE_STR], b2[NCL_SHAPE_STR];
        return ncl_error(NCL_ERR_DEVICE_MEMORY, "%s: reshaping this device array of shape %s "
                         "into %s needs a copy, and host code cannot read device memory",
                         who, ncl_shape_str(b1, a->ndim, a->shape), ncl_shape_str(b2, ndim, ns));
    }
    NclArray *res = NULL, *dst = NULL;
    int64_t as[NCL_MAXDIMS];
    s = ncl_array_alloc(who, a->dtype, ndim, ns, NCL_ORDER_C, 0, &res);
    if (s == NCL_OK) s = ncl_array_reshape_view(who, res, a->ndim, a->shape, as, &dst);
    if (s == NCL_OK) s = ncl_assign(who, dst, a, NCL_CASTING_NO);
    NclArrayRelease(dst);
    if (s != NCL_OK) {
        NclArrayRelease(res);
        return s;
    }
    *out = res;
    return NCL_OK;
}
