/*
 * kernel_run.c: NclKernelRun, a level-2 chain run on one strided loop for
 * a caller that has done its own broadcasting and type resolution (the
 * NumPy adapter's replaced ufunc loops). The loop becomes a one-dimensional
 * plan with no casts and no mask, executed like every elementwise call
 * (plan.c): the same split over the pool, the same FP flag handling, the
 * same record for the ledger.
 */
#include "exec/plan.h"

/* [lo, hi): the bytes n elements of size sz from p at step touch. */
NCL_INLINE void extent(const char *p, int64_t n, int64_t step, size_t sz, uintptr_t *lo,
                       uintptr_t *hi)
{
    const uintptr_t a = (uintptr_t)p, b = (uintptr_t)p + (uintptr_t)((n - 1) * step);
    *lo = step < 0 ? b : a;
    *hi = (step < 0 ? a : b) + sz;
}

/* Whether the outputs (operands nin ..) may be computed in any element
   order: none overlaps itself or another output, and each input is either
   exactly an output or apart from it. */
static int layout_ok(int nin, int nout, const NclDType *sig, char *const *args, int64_t n,
                     const int64_t *steps)
{
    for (int k = nin; k < nin + nout; k++) {
        const size_t osz = ncl_dtype_size[sig[k]];
        const int64_t ostep = steps[k];
        if (n > 1 && (uint64_t)(ostep < 0 ? -(uint64_t)ostep : (uint64_t)ostep) < osz) return 0;
        uintptr_t olo, ohi;
        extent(args[k], n, ostep, osz, &olo, &ohi);
        for (int i = 0; i < k; i++) {
            const size_t isz = ncl_dtype_size[sig[i]];
            if (i < nin && args[i] == args[k] && steps[i] == ostep && isz == osz) continue;
            uintptr_t lo, hi;
            extent(args[i], n, steps[i], isz, &lo, &hi);
            if (lo < ohi && olo < hi) return 0;
        }
    }
    return 1;
}

/* The subsystems whose kernels run without ctx->aux, and their inputs. */
static int loop_inputs(NclSubsystem s)
{
    switch (s) {
    case NCL_SUBSYSTEM_CONVERT: case NCL_SUBSYSTEM_ISUNARY: case NCL_SUBSYSTEM_UNARY: return 1;
    case NCL_SUBSYSTEM_COMPARE: case NCL_SUBSYSTEM_BINARY: return 2;
    case NCL_SUBSYSTEM_TERNARY: return 3;
    default: return 0;
    }
}

static NclStatus check_loop(const char *who, NclSubsystem s, int op, int nin, int nout,
                            const NclDType *sig, char *const *args, int64_t n,
                            const int64_t *steps)
{
    const char *sub = ncl_subsystem_name(s), *opname = ncl_op_name(s, op);
    if (n < 0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(%s, %s): n = %lld is negative", who, sub,
                         opname, (long long)n);
    if (n == 0) return NCL_OK;
    if (args == NULL || steps == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(%s, %s): %s is NULL", who, sub, opname,
                         args == NULL ? "args" : "steps");
    for (int i = 0; i < nin + nout; i++)
        if (args[i] == NULL)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(%s, %s): args[%d] is NULL", who, sub,
                             opname, i);
    if (!layout_ok(nin, nout, sig, args, n, steps))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "%s(%s, %s): an output overlaps an input other than exactly (same "
                         "first element, step and item size), itself or another output, so "
                         "its elements would depend on the order they are computed in",
                         who, sub, opname);
    return NCL_OK;
}

/* A Linalg kernel run as NumPy's dot function: the one sum of n products
   a[i] b[i] into out (ncl/linalg.h), on the calling thread. The output's
   element must touch none of the inputs' bytes; it is written also when n
   is 0 (a zero). */
static NclStatus run_linalg(const char *who, ncl_kchain *chain, int op, const NclDType *sig,
                            char *const *args, int64_t n, const int64_t *steps)
{
    const char *opname = ncl_op_name(NCL_SUBSYSTEM_LINALG, op);
    if (n < 0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(linalg, %s): n = %lld is negative", who,
                         opname, (long long)n);
    if (args == NULL || (n > 0 && steps == NULL))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(linalg, %s): %s is NULL", who, opname,
                         args == NULL ? "args" : "steps");
    for (int i = 0; i < 3; i++)
        if (args[i] == NULL)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(linalg, %s): args[%d] is NULL", who,
                             opname, i);
    const size_t sz = ncl_dtype_size[sig[2]];
    const uintptr_t olo = (uintptr_t)args[2], ohi = olo + sz;
    for (int i = 0; i < 2 && n > 0; i++) {
        uintptr_t lo, hi;
        extent(args[i], n, steps[i], ncl_dtype_size[sig[i]], &lo, &hi);
        if (lo < ohi && olo < hi)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                             "%s(linalg, %s): the output overlaps input %d", who, opname, i);
    }
    const NclLinalgAux x = {1, 1, n, 0, n > 0 ? steps[0] : 0, n > 0 ? steps[1] : 0, 0, 0, 0};
    static const int64_t zero[3] = {0, 0, 0};
    int fpe = 0;
    const NclKernelCtx ctx = {NCL_SUBSYSTEM_LINALG, op, 2, 1, sig, 0, 0, &fpe, &x,
                              ncl_tls.accuracy, 1};
    NclKernelNode *k = ncl_kernel_first(chain);
    ncl_fpe_saved saved;
    ncl_fpe_begin(&saved);
    NclStatus st = k->fn(k, &ctx, args, 1, zero);
    fpe |= ncl_fpe_end(&saved);
    ncl_tls.fpe_flags |= fpe;
    ncl_last_call.elements = n;
    ncl_last_call.bytes = n * (int64_t)(ncl_dtype_size[sig[0]] + ncl_dtype_size[sig[1]]);
    ncl_last_call.kernel = k->name ? k->name : "(unnamed)";
    ncl_last_call.threads = 1;
    return st;
}

NclStatus NclKernelRun(NclSubsystem s, int subfunction, const NclDType *signature,
                       char *const *args, int64_t n, const int64_t *steps)
{
    static const char who[] = "NclKernelRun";
    ncl_call_enter();
    ncl_kchain *chain;
    int nargs;
    NclStatus st = ncl_kernel_chain_find(who, s, subfunction, signature, &chain, &nargs);
    if (st == NCL_OK && s == NCL_SUBSYSTEM_LINALG) {
        if (NCL_UNLIKELY(ncl_ledger_on(s))) {
            ncl_ledger_mark m;
            ncl_ledger_begin(&m);
            st = run_linalg(who, chain, subfunction, signature, args, n, steps);
            ncl_ledger_end(&m, s, subfunction, st);
        } else {
            st = run_linalg(who, chain, subfunction, signature, args, n, steps);
        }
        return ncl_call_leave(st, s, subfunction);
    }
    if (st == NCL_OK && loop_inputs(s) == 0)
        st = ncl_error(NCL_ERR_UNSUPPORTED,
                       "%s(%s): the %s subsystem's kernels need data a loop call does not carry; "
                       "NclKernelRun runs Convert, Compare, IsUnary, Unary, Binary, Ternary and Linalg",
                       who, ncl_subsystem_name(s), ncl_subsystem_name(s));
    const int nin = loop_inputs(s), nout = st == NCL_OK ? nargs - nin : 1;
    if (st == NCL_OK) st = check_loop(who, s, subfunction, nin, nout, signature, args, n, steps);
    if (st != NCL_OK || n == 0) return ncl_call_leave(st, s, subfunction);

    /* The fields a one-dimensional plan without casts or mask is read by. */
    ncl_ew_plan p;
    p.nop = nin + nout;
    p.nin = nin;
    p.ndim = 1;
    p.size = n;
    p.has_where = 0;
    p.buffered = 0;
    p.kernel = ncl_kernel_first(chain);
    p.kernel_sub = s;
    p.kernel_op = subfunction;
    p.accuracy = ncl_tls.accuracy;
    p.floats = 0;
    p.bytes_per = 0;
    for (int k = 0; k < p.nop; k++) {
        p.sig[k] = signature[k];
        p.op[k].data = args[k];
        p.op[k].strides[0] = steps[k];
        p.floats |= ncl_dtype_kind[signature[k]] == 'f';
        p.bytes_per += (int64_t)ncl_dtype_size[signature[k]];
    }

    /* A loop call may split where a call through the level-1 chain would:
       while the subsystem's threader is in its chain. */
    ncl_thread_state *t = &ncl_tls;
    const unsigned char split = t->split;
    t->split = (unsigned char)ncl_threader_linked(s);
    if (NCL_UNLIKELY(ncl_ledger_on(s))) {
        ncl_ledger_mark m;
        ncl_ledger_begin(&m);
        st = ncl_ew_exec(&p, s, subfunction);
        ncl_ledger_end(&m, s, subfunction, st);
    } else {
        st = ncl_ew_exec(&p, s, subfunction);
    }
    t->split = split;
    return ncl_call_leave(st, s, subfunction);
}
