/*
 * chains.c: where the library is put together. Each level-1 chain is static
 * data, head -> threader -> default -> head (hooks/hooks.c defines the heads
 * and the threader); this is the one place that names every subsystem's
 * default implementation (defaults/), so the chains' own code never
 * includes what it calls.
 *
 * Each default is entered through a guard that refuses external arrays
 * (NclArrayFromExt): the defaults compute on elements in this process's
 * memory, so an external array that reaches the tail of a chain is one that
 * no hook took over. The guard costs one load and compare per array.
 */
#include <stddef.h>
#include <stdio.h>
#include "defaults/ncl_defaults.h"
#include "hooks/hook_chain.h"

/* ---- the guards in front of the defaults ------------------------------------ */

/* nout: the slots at out (NclOpOutputs). */
static int any_ext(const NclArray *a, const NclArray *b, const NclArray *c, NclArray *const *out,
                   int nout, const NclParams *params)
{
    const NclArray *const w = ncl_params_where(params);
    if ((a && ncl_array_is_ext(a)) || (b && ncl_array_is_ext(b)) ||
        (c && ncl_array_is_ext(c)) || (w && ncl_array_is_ext(w)))
        return 1;
    for (int k = 0; out && k < nout; k++)
        if (out[k] && ncl_array_is_ext(out[k])) return 1;
    return 0;
}

static NCL_NOINLINE NclStatus ext_refused(const char *fn, NclSubsystem s, int op,
                                          const NclArray *a, const NclArray *b,
                                          const NclArray *c, NclArray *const *out, int nout,
                                          const NclParams *params)
{
    char who[64];
    snprintf(who, sizeof who, "%s(%s)", fn, ncl_op_name(s, op));
    const NclArray *const arr[3] = {a, b, c};
    static const char *const names[3] = {"a", "b", "c"};
    NclStatus st = NCL_OK;
    for (int i = 0; i < 3 && st == NCL_OK; i++) st = ncl_array_local_check(who, names[i], arr[i]);
    for (int k = 0; out && k < nout && st == NCL_OK; k++) {
        char what[16];
        if (k == 0) snprintf(what, sizeof what, "*out");
        else snprintf(what, sizeof what, "out[%d]", k);
        st = ncl_array_local_check(who, what, out[k]);
    }
    if (st == NCL_OK) st = ncl_array_local_check(who, "params->where", ncl_params_where(params));
    return st;
}

#define GUARD_N(fn, S, op, a, b, c, nout)                                       \
    if (NCL_UNLIKELY(any_ext(a, b, c, out, nout, params)))                      \
        return ext_refused(fn, NCL_SUBSYSTEM_##S, (int)(op), a, b, c, out, nout, params)
#define GUARD(fn, S, op, a, b, c) GUARD_N(fn, S, op, a, b, c, 1)

static NclStatus local_info(NclHook *self, NclInfoWriter *w) { return ncl_default_info(self, w); }
static NclStatus local_create(NclHook *self, NclCreateOp op, const NclCreateParams *p,
                              NclArray **out)
{
    if (op == NCL_CREATE_COPY && p && p->size >= offsetof(NclCreateParams, src) + sizeof p->src &&
        p->src && ncl_array_is_ext(p->src)) {
        char who[64];
        snprintf(who, sizeof who, "NclCreate(%s)", ncl_op_name(NCL_SUBSYSTEM_CREATE, (int)op));
        return ncl_array_local_check(who, "params->src", p->src);
    }
    return ncl_default_create(self, op, p, out);
}
static NclStatus local_convert(NclHook *self, NclConvertOp op, const NclArray *a, NclArray **out,
                               const NclParams *params)
{
    GUARD("NclConvert", CONVERT, op, a, NULL, NULL);
    return ncl_default_convert(self, op, a, out, params);
}
static NclStatus local_compare(NclHook *self, NclCompareOp op, const NclArray *a,
                               const NclArray *b, NclArray **out, const NclParams *params)
{
    GUARD("NclCompare", COMPARE, op, a, b, NULL);
    return ncl_default_compare(self, op, a, b, out, params);
}
static NclStatus local_isunary(NclHook *self, NclIsUnaryOp op, const NclArray *a, NclArray **out,
                               const NclParams *params)
{
    GUARD("NclIsUnary", ISUNARY, op, a, NULL, NULL);
    return ncl_default_isunary(self, op, a, out, params);
}
static NclStatus local_unary(NclHook *self, NclUnaryOp op, const NclArray *a, NclArray **out,
                             const NclParams *params)
{
    GUARD_N("NclUnary", UNARY, op, a, NULL, NULL, ncl_op_nout(NCL_SUBSYSTEM_UNARY, (int)op));
    return ncl_default_unary(self, op, a, out, params);
}
static NclStatus local_binary(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                              NclArray **out, const NclParams *params)
{
    GUARD_N("NclBinary", BINARY, op, a, b, NULL, ncl_op_nout(NCL_SUBSYSTEM_BINARY, (int)op));
    return ncl_default_binary(self, op, a, b, out, params);
}
static NclStatus local_ternary(NclHook *self, NclTernaryOp op, const NclArray *a,
                               const NclArray *b, const NclArray *c, NclArray **out,
                               const NclParams *params)
{
    GUARD("NclTernary", TERNARY, op, a, b, c);
    return ncl_default_ternary(self, op, a, b, c, out, params);
}
static NclStatus local_reduce(NclHook *self, NclReduceOp op, const NclArray *a, NclArray **out,
                              const NclParams *params)
{
    GUARD("NclReduce", REDUCE, op, a, NULL, NULL);
    return ncl_default_reduce(self, op, a, out, params);
}
static NclStatus local_sort(NclHook *self, NclSortOp op, const NclArray *a, NclArray **out,
                            const NclParams *params)
{
    GUARD_N("NclSort", SORT, op, a, NULL, NULL, ncl_op_nout(NCL_SUBSYSTEM_SORT, (int)op));
    return ncl_default_sort(self, op, a, out, params);
}
static NclStatus local_mask(NclHook *self, NclMaskOp op, const NclArray *a, const NclArray *b,
                            NclArray **out, const NclParams *params)
{
    GUARD("NclMask", MASK, op, a, b, NULL);
    return ncl_default_mask(self, op, a, b, out, params);
}
static NclStatus local_rng(NclHook *self, NclRngOp op, NclRngGen *gen, const NclArray *a,
                           const NclArray *b, NclArray **out, const NclParams *params)
{
    GUARD("NclRng", RNG, op, a, b, NULL);
    return ncl_default_rng(self, op, gen, a, b, out, params);
}
static NclStatus local_linalg(NclHook *self, NclLinalgOp op, const NclArray *a,
                             const NclArray *b, NclArray **out, const NclParams *params)
{
    GUARD("NclLinalg", LINALG, op, a, b, NULL);
    return ncl_default_linalg(self, op, a, b, out, params);
}
static NclStatus local_manip(NclHook *self, NclManipOp op, int nin, const NclArray *const *in,
                             NclArray **out, const NclParams *params)
{
    GUARD("NclManip", MANIP, op, NULL, NULL, NULL);
    if (in != NULL) {
        for (int i = 0; i < nin; i++) {
            if (NCL_UNLIKELY(in[i] && ncl_array_is_ext(in[i]))) {
                char who[64], what[32];
                snprintf(who, sizeof who, "NclManip(%s)", ncl_op_name(NCL_SUBSYSTEM_MANIP, (int)op));
                snprintf(what, sizeof what, "in[%d]", i);
                return ncl_array_local_check(who, what, in[i]);
            }
        }
    }
    return ncl_default_manip(self, op, nin, in, out, params);
}
#undef GUARD
#undef GUARD_N

/* ---- the chains' last nodes ------------------------------------------------ */

NclHook ncl_default_hooks[NCL_SUBSYSTEM_COUNT] = {
#define NCL_X_(S, f)                                                                           \
    [NCL_SUBSYSTEM_##S] = {                                                                    \
        .list = { &ncl_hook_heads[NCL_SUBSYSTEM_##S], &ncl_threader_hooks[NCL_SUBSYSTEM_##S].list },\
        .name = "ncl_default_" #f,                                                             \
        .user = NULL,                                                                          \
        .fn.f = local_##f,                                                               \
        .priv = { NCL_NODE_STATE_INIT(NCL_NODE_LINKED | NCL_NODE_BUILTIN, NCL_SUBSYSTEM_##S), \
                  &ncl_hook_heads[NCL_SUBSYSTEM_##S] },                                        \
    },
    NCL_BUILT_SUBSYSTEMS(NCL_X_)
#undef NCL_X_
};
