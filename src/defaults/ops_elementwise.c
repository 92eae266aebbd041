/*
 * ops_elementwise.c: NCLib's default implementations of the elementwise
 * subsystems (Convert, Compare, IsUnary, Unary, Binary, Ternary), the tail
 * node of each level-1 chain. Each validates its arguments in the caller's
 * terms, resolves the loop dtypes and hands the call to the planner
 * (exec/plan.c; Convert's loop is in exec/assign.c).
 */
#include <string.h>
#include "defaults/ncl_defaults.h"
#include "exec/plan.h"
#include "exec/typeres.h"

/* The checks every elementwise entry shares: op in range, no NULL operand
   or out pointer, params readable. */
static NclStatus check_call(NclSubsystem sub, int op, int nin, const NclArray *a,
                            const NclArray *b, NclArray **out, const NclParams *params,
                            NclParams *p)
{
    if (op < 0 || op >= ncl_op_count(sub))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: unknown op %d (valid: 0..%d)",
                         ncl_sub_fn_name(sub), op, ncl_op_count(sub) - 1);
    const char *missing = !a ? (nin == 1 ? "the input array" : "input a")
                          : (nin > 1 && !b) ? "input b"
                          : !out ? "the out pointer"
                          : NULL;
    if (missing)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(%s): %s is NULL", ncl_sub_fn_name(sub),
                         ncl_op_name(sub, op), missing);
    return ncl_params_read(sub, op, params, p);
}

/* Whether params asks for nothing but the defaults of a plain call: no
   mask, no dtype=, a valid casting rule (it matters only when something is
   cast, which the fast path does only inside a fused kernel, checked in
   try_fast). Anything else, including what ncl_params_read refuses, goes
   the general way. */
NCL_INLINE int params_plain(const NclParams *params)
{
    return params == NULL ||
           (params->size >= offsetof(NclParams, casting) + sizeof params->casting &&
            params->where == NULL && params->dtype == NCL_DTYPE_DEFAULT &&
            (unsigned)params->casting <= (unsigned)NCL_CASTING_UNSAFE);
}

/* The fast path of an elementwise call (plan.h, ncl_ew_try_contig): taken
   when the operands are in range and not NULL, the output is provided and
   the cached resolution gives a loop whose dtypes the operands already
   have, or a fused kernel that takes them as they are; otherwise the call is checked, resolved and planned in full, which
   writes every message. */
NCL_INLINE int try_fast(NclSubsystem sub, int op, int nin, const NclArray *const *in,
                        NclArray *out, const ncl_resolved *rp, const NclParams *params,
                        NclStatus *st)
{
    const ncl_resolved r = *rp;
    if (r.loop == NCL_NO_LOOP) return 0;
    /* Integer powers check their exponents first: planned. */
    if (sub == NCL_SUBSYSTEM_BINARY && op == NCL_POWER && ncl_dtype_kind[r.loop] == 'i')
        return 0;
    NclDType loop[3];
    if (sub == NCL_SUBSYSTEM_COMPARE) {
        loop[0] = in[0]->dtype;
        loop[1] = in[1]->dtype;
    } else {
        loop[0] = loop[1] = (NclDType)r.loop;
    }
    loop[nin] = (NclDType)r.out;
    ncl_kchain *chain = r.chain;
    /* Inputs the loop casts are read as they are by a fused kernel (plan.h).
       The loop is one every input casts to safely, so the casts it stands
       in for pass under safe, same_kind and unsafe; under no and equiv the
       call is planned, which refuses it with its message. */
    if (r.fused && (params == NULL || params->casting >= NCL_CASTING_SAFE)) {
        NclDType in_dtypes[2] = {in[0]->dtype, nin > 1 ? in[1]->dtype : NCL_BOOL};
        ncl_kchain *fc = ncl_ew_fused(r.fused, r.chain, nin, in_dtypes, loop);
        if (fc) {
            for (int i = 0; i < nin; i++) loop[i] = in_dtypes[i];
            chain = fc;
        }
    }
    return ncl_ew_try_contig(sub, op, nin, in, out, loop, chain, st);
}

static void init_call(ncl_ew_call *c, NclSubsystem sub, int op, int nin, const NclArray *a,
                      const NclArray *b, NclArray **out, const NclParams *p)
{
    c->sub = sub;
    c->op = op;
    c->nin = nin;
    c->nout = ncl_op_nout(sub, op);
    c->in[0] = a;
    c->in[1] = b;
    c->kernel_sub = sub;
    c->kernel_op = op;
    c->chain = NULL;
    c->out = out;
    c->where = p->where;
    c->casting = p->casting;
    c->truth_inputs = 0;
    c->weak_inputs = 0;
}

/* Resolves c's loop from the input dtypes in[], those of weak scalars
   first replaced by what they stand for (typeres.h), whose values must then
   fit the loop. */
static NclStatus resolve_weak(ncl_ew_call *c, NclDType *in, NclDType dtype)
{
    c->weak_inputs = ncl_weak_inputs(c->sub, c->op, c->nin, c->in);
    if (c->weak_inputs) ncl_weak_dtypes(c->sub, c->op, c->nin, c->in, c->weak_inputs, in);
    NclStatus st = ncl_resolve_loop(c->sub, c->op, c->nin, in, dtype, c->loop, &c->chain);
    if (st == NCL_OK && c->weak_inputs)
        st = ncl_weak_check(c->sub, c->op, c->nin, c->in, c->weak_inputs, c->loop);
    return st;
}

static NclStatus run_resolved(NclSubsystem sub, int op, int nin, const NclArray *a,
                              const NclArray *b, NclArray **out, const NclParams *p)
{
    ncl_ew_call c;
    init_call(&c, sub, op, nin, a, b, out, p);
    NclDType in[2] = {a->dtype, nin > 1 ? b->dtype : NCL_BOOL};
    NclStatus st = ncl_resolve_loop(sub, op, nin, in, p->dtype, c.loop, &c.chain);
    if (st) return st;
    c.out_dtype = c.loop[nin];
    return ncl_ew_run(&c);
}

/* The general path of a Unary, IsUnary or Compare call: every check, with
   its message. Kept out of line so that the fast path's frame stays small. */
static NCL_NOINLINE NclStatus planned(NclSubsystem sub, int op, int nin, const NclArray *a,
                                      const NclArray *b, NclArray **out,
                                      const NclParams *params)
{
    NclParams p;
    NclStatus st = check_call(sub, op, nin, a, b, out, params, &p);
    return st ? st : run_resolved(sub, op, nin, a, b, out, &p);
}

/* ---- Binary ------------------------------------------------------------------ */

/* Whether any element of a, converted to the signed integer dtype `loop`
   as the call's cast will convert it (integers wrap, floats truncate and
   saturate), is negative. */
static int any_negative_as(const NclArray *a, NclDType loop)
{
    if (a->size == 0 || a->dtype == NCL_BOOL) return 0;
    const unsigned sign_bit = 8u * (unsigned)ncl_dtype_size[loop] - 1u;
    int64_t idx[NCL_MAXDIMS] = {0};
    const char *p = a->data;
    for (int64_t i = 0; i < a->size; i++) {
        int neg;
        if (a->dtype == NCL_FLOAT32 || a->dtype == NCL_FLOAT64) {
            double v;
            if (a->dtype == NCL_FLOAT32) {
                float f;
                memcpy(&f, p, sizeof f);
                v = f;
            } else {
                memcpy(&v, p, sizeof v);
            }
            neg = v <= -1.0; /* NaN compares false: it converts to 0 */
        } else {
            /* The two's complement bits, sign-extended from the source width;
               the loop's value is negative when its top bit is set. */
            uint64_t bits;
            switch (a->dtype) {
            case NCL_INT8: { int8_t v; memcpy(&v, p, 1); bits = (uint64_t)(int64_t)v; break; }
            case NCL_INT16: { int16_t v; memcpy(&v, p, 2); bits = (uint64_t)(int64_t)v; break; }
            case NCL_INT32: { int32_t v; memcpy(&v, p, 4); bits = (uint64_t)(int64_t)v; break; }
            case NCL_INT64: { int64_t v; memcpy(&v, p, 8); bits = (uint64_t)v; break; }
            case NCL_UINT8: { uint8_t v; memcpy(&v, p, 1); bits = v; break; }
            case NCL_UINT16: { uint16_t v; memcpy(&v, p, 2); bits = v; break; }
            case NCL_UINT32: { uint32_t v; memcpy(&v, p, 4); bits = v; break; }
            default: { uint64_t v; memcpy(&v, p, 8); bits = v; break; }
            }
            neg = (int)((bits >> sign_bit) & 1u);
        }
        if (neg) return 1;
        for (int d = a->ndim - 1; d >= 0; d--) {
            p += a->strides[d];
            if (++idx[d] < a->shape[d]) break;
            p -= a->strides[d] * a->shape[d];
            idx[d] = 0;
        }
    }
    return 0;
}

/* The general path of a binary call: every check, with its message. Kept
   out of line so that the fast path's frame stays small. */
static NCL_NOINLINE NclStatus binary_planned(NclBinaryOp op, const NclArray *a,
                                             const NclArray *b, NclArray **out,
                                             const NclParams *params)
{
    NclParams p;
    NclStatus st = check_call(NCL_SUBSYSTEM_BINARY, op, 2, a, b, out, params, &p);
    if (st) return st;
    ncl_ew_call c;
    init_call(&c, NCL_SUBSYSTEM_BINARY, op, 2, a, b, out, &p);
    NclDType in[2] = {a->dtype, b->dtype};
    if ((st = resolve_weak(&c, in, p.dtype))) return st;
    /* NumPy refuses integer powers with negative exponents; so does NCLib,
       before anything is written. (Device memory is reported by the planner.) */
    if (op == NCL_POWER && ncl_dtype_kind[c.loop[1]] == 'i' && b->kind != NCL_MEM_DEVICE &&
        any_negative_as(b, c.loop[1]))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "NclBinary(power): integers to negative integer powers are not "
                         "allowed (%s ** %s in %s)",
                         NclDTypeName(a->dtype), NclDTypeName(b->dtype),
                         NclDTypeName(c.loop[1]));
    c.out_dtype = c.loop[2];
    return ncl_ew_run(&c);
}

NclStatus ncl_default_binary(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                             NclArray **out, const NclParams *params)
{
    (void)self;
    if (NCL_LIKELY((unsigned)op < (unsigned)NCL_BINARY_NOPS && a && b && out && *out &&
                   params_plain(params) && !((a->flags | b->flags) & NCL_ARRAY_WEAK))) {
        const NclArray *in[2] = {a, b};
        NclStatus st;
        if (try_fast(NCL_SUBSYSTEM_BINARY, op, 2, in, *out,
                     ncl_resolved_binary(op, a->dtype, b->dtype), params, &st))
            return st;
    }
    return binary_planned(op, a, b, out, params);
}

/* ---- Unary, IsUnary, Compare ---------------------------------------------------- */

NclStatus ncl_default_unary(NclHook *self, NclUnaryOp op, const NclArray *a, NclArray **out,
                            const NclParams *params)
{
    (void)self;
    NclStatus st;
    if (NCL_LIKELY((unsigned)op < (unsigned)NCL_UNARY_NOPS && a && out && *out &&
                   params_plain(params)) &&
        try_fast(NCL_SUBSYSTEM_UNARY, op, 1, &a, *out, ncl_resolved_unary(op, a->dtype), params,
                 &st))
        return st;
    return planned(NCL_SUBSYSTEM_UNARY, op, 1, a, NULL, out, params);
}

NclStatus ncl_default_isunary(NclHook *self, NclIsUnaryOp op, const NclArray *a,
                              NclArray **out, const NclParams *params)
{
    (void)self;
    NclStatus st;
    if (NCL_LIKELY((unsigned)op < (unsigned)NCL_ISUNARY_NOPS && a && out && *out &&
                   params_plain(params)) &&
        try_fast(NCL_SUBSYSTEM_ISUNARY, op, 1, &a, *out, ncl_resolved_isunary(op, a->dtype),
                 params, &st))
        return st;
    return planned(NCL_SUBSYSTEM_ISUNARY, op, 1, a, NULL, out, params);
}

NclStatus ncl_default_compare(NclHook *self, NclCompareOp op, const NclArray *a,
                              const NclArray *b, NclArray **out, const NclParams *params)
{
    (void)self;
    NclStatus st;
    if (NCL_LIKELY((unsigned)op < (unsigned)NCL_COMPARE_NOPS && a && b && out && *out &&
                   params_plain(params))) {
        const NclArray *in[2] = {a, b};
        if (try_fast(NCL_SUBSYSTEM_COMPARE, op, 2, in, *out,
                     ncl_resolved_compare(op, a->dtype, b->dtype), params, &st))
            return st;
    }
    return planned(NCL_SUBSYSTEM_COMPARE, op, 2, a, b, out, params);
}

/* ---- Ternary -------------------------------------------------------------------- */

NclStatus ncl_default_ternary(NclHook *self, NclTernaryOp op, const NclArray *a,
                              const NclArray *b, const NclArray *c3, NclArray **out,
                              const NclParams *params)
{
    (void)self;
    NclParams p;
    NclStatus st = check_call(NCL_SUBSYSTEM_TERNARY, op, 2, a, b, out, params, &p);
    if (st) return st;
    if (!c3)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclTernary(%s): input c is NULL",
                         ncl_op_name(NCL_SUBSYSTEM_TERNARY, op));
    ncl_ew_call c;
    init_call(&c, NCL_SUBSYSTEM_TERNARY, op, 3, a, b, out, &p);
    c.in[2] = c3;
    NclDType in[3] = {a->dtype, b->dtype, c3->dtype};
    if ((st = resolve_weak(&c, in, p.dtype))) return st;
    c.out_dtype = c.loop[3];
    /* where's condition is read as truth whatever the casting rule: any
       dtype to bool is what a condition means, not a lossy cast. */
    if (op == NCL_WHERE) c.truth_inputs = 1u;
    return ncl_ew_run(&c);
}

/* ---- Convert ------------------------------------------------------------------ */

NclStatus ncl_default_convert(NclHook *self, NclConvertOp op, const NclArray *a,
                              NclArray **out, const NclParams *params)
{
    (void)self;
    NclParams p;
    NclStatus st = check_call(NCL_SUBSYSTEM_CONVERT, op, 1, a, NULL, out, params, &p);
    if (st) return st;
    const char *name = ncl_op_name(NCL_SUBSYSTEM_CONVERT, op);
    NclDType to;
    if (op == NCL_CONVERT_COPYTO) {
        if (!*out)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                             "NclConvert(copyto): *out must be the destination array");
        to = (*out)->dtype;
    } else {
        to = p.dtype != NCL_DTYPE_DEFAULT ? p.dtype : *out ? (*out)->dtype : a->dtype;
    }
    if (p.dtype != NCL_DTYPE_DEFAULT && *out && (*out)->dtype != p.dtype)
        return ncl_error(NCL_ERR_DTYPE, "NclConvert(%s): params->dtype is %s but the output is %s",
                         name, NclDTypeName(p.dtype), NclDTypeName((*out)->dtype));
    return ncl_convert_run(NCL_SUBSYSTEM_CONVERT, op, a, to, out, p.where, p.casting);
}
