/*
 * plan.h: the plan/execute path shared by every elementwise subsystem.
 *
 * A call is planned first: operands broadcast, the output checked or
 * allocated, casts chosen, inputs that overlap the output copied, the kernel
 * chains looked up. Only then is it executed, over ranges of the flat
 * iteration space [0, size): a range is the unit a thread pool hands out,
 * and executing any partition of [0, size) gives the same result.
 */
#ifndef NCL_PLAN_H
#define NCL_PLAN_H

#include "array/ncl_array.h"
#include "exec/ncl_exec.h"
#include "hooks/ncl_hooks.h"
#include "runtime/pool.h"

#define NCL_MAX_OPERANDS 4  /* inputs + outputs: three and one, or two and two */
/* Elements per block when an operand is cast through a buffer: small
   enough that every buffer of a call sits in L1 together. */
#define NCL_BLOCK 512

/* What a call asks for, before planning. */
typedef struct ncl_ew_call {
    NclSubsystem sub;
    int op;
    int nin;
    int nout;                          /* outputs: 1, or 2 (ncl_op_nout) */
    const NclArray *in[NCL_MAX_OPERANDS - 1];
    NclDType loop[NCL_MAX_OPERANDS];   /* resolved loop dtypes, inputs then outputs */
    NclSubsystem kernel_sub;           /* where the kernel chain lives (usually sub) */
    int kernel_op;
    ncl_kchain *chain;                 /* the kernel chain if known, else NULL */
    NclArray **out;                    /* the caller's nout out slots (each may be NULL) */
    const NclArray *where;             /* NULL or a bool mask */
    NclCasting casting;
    unsigned truth_inputs;             /* bit i: input i is read as truth (cast to
                                          bool whatever the casting rule) */
    unsigned weak_inputs;              /* bit i: input i is a weak scalar, converted
                                          to its loop dtype whatever the casting
                                          rule (its value was checked) */
    NclDType out_dtype;                /* dtype of an allocated first output (a second
                                          one's is its loop dtype) */
} ncl_ew_call;

typedef struct ncl_ew_operand {
    char *data;                        /* first element in iteration order */
    int64_t strides[NCL_MAXDIMS];      /* per iteration dimension, innermost last */
    NclDType dtype;                    /* the array's dtype */
    NclDType loop;                     /* the kernel's dtype for this operand */
    NclKernelNode *cast;               /* cast kernel (array <-> loop), NULL when equal */
    NclDType cast_sig[2];
} ncl_ew_operand;

typedef struct ncl_ew_plan {
    int nop;                           /* operands: inputs + outputs (+ mask separately) */
    int nin;
    int ndim;                          /* iteration dimensions (>= 1) */
    int64_t shape[NCL_MAXDIMS];
    int64_t size;
    ncl_ew_operand op[NCL_MAX_OPERANDS];
    int has_where;
    char *wdata;
    int64_t wstrides[NCL_MAXDIMS];
    int buffered;                      /* some operand is cast through a buffer */
    NclKernelNode *kernel;
    NclSubsystem kernel_sub;
    int kernel_op;
    NclAccuracy accuracy;              /* the calling thread's tier, for every worker */
    NclDType sig[NCL_MAX_OPERANDS];
    ncl_buffer *temps[NCL_MAX_OPERANDS + 1]; /* overlap copies, released by ncl_ew_finish */
    int ntemps;                        /* how many of temps are set */
    int64_t bytes_per;                 /* bytes moved per element, all operands */
    int floats;                        /* some operand or loop dtype is a float: the
                                          hardware FP status is sampled */
    NclArray *result[NCL_EW_MAX_NOUT];    /* the output arrays (allocated or provided) */
    int allocated[NCL_EW_MAX_NOUT];       /* result[k] was allocated by this call */
} ncl_ew_plan;

/* ---- fused kernels -------------------------------------------------------------
   A call whose inputs are cast to a homogeneous loop (int32 + float64 runs
   the float64 loop) may instead run a kernel registered for the inputs'
   own dtypes and the loop's output, (int32, float64, float64), which
   converts in registers: one pass instead of a cast into a buffer and a
   second pass over it. It stands in for the casts and the loop's built-in
   kernel, so it runs only while no user kernel is hooked in front of that
   built-in or of the built-in cast kernels: a hook on the loop's chain or
   on a cast's chain sees every call it saw before.
   Results and FP flags are the cast-then-loop path's: a fused kernel is
   registered only where its element function is the loop's applied to the
   converted inputs, with the cast kernels' conversions. */

/* The chain registered for (in[0 .. nin), loop[nin]) when the loop is
   homogeneous (loop[i] == loop[nin]) and some input's dtype differs from
   it; else NULL. */
ncl_kchain *ncl_ew_fused_chain(NclSubsystem ksub, int kop, int nin, const NclDType *in,
                               const NclDType *loop);

/* fused (a chain from ncl_ew_fused_chain for these in and loop, or NULL)
   when it may run in place of casting the inputs and running loop_chain,
   else NULL. */
ncl_kchain *ncl_ew_fused_check(ncl_kchain *fused, ncl_kchain *loop_chain, int nin,
                               const NclDType *in, const NclDType *loop);
NCL_INLINE ncl_kchain *ncl_ew_fused(ncl_kchain *fused, ncl_kchain *loop_chain, int nin,
                                    const NclDType *in, const NclDType *loop)
{
    return fused != NULL ? ncl_ew_fused_check(fused, loop_chain, nin, in, loop) : NULL;
}

/* Plans c into p. On failure nothing is allocated or written and the message
   is set. Must run inside ncl_call_enter/leave (it reads kernel chains). */
NclStatus ncl_ew_plan_make(const ncl_ew_call *c, ncl_ew_plan *p);
/* Executes elements [start, end) of the plan as chunk `chunk` on behalf of
   worker `worker`, one of `nworkers` running the call's chunks, ORing the flags kernels report into *fpe (hardware flags
   are the caller's to sample around it). */
NclStatus ncl_ew_execute(const ncl_ew_plan *p, int64_t start, int64_t end, int worker, int nworkers,
                         int64_t chunk, int *fpe);
/* Releases the plan's temporaries; on success stores the results in
   c->out[], on failure releases the allocated ones. Returns s. */
NclStatus ncl_ew_finish(const ncl_ew_call *c, ncl_ew_plan *p, NclStatus s);
/* Executes the whole plan, split over the pool when the call may split
   and is large enough, collecting FP flags into this thread's call and
   the call's record; sub and op name the call in messages. */
NclStatus ncl_ew_exec(const ncl_ew_plan *p, NclSubsystem sub, int op);
/* Plan, execute (collecting FP flags into this thread's call), finish. */
NclStatus ncl_ew_run(const ncl_ew_call *c);

/* What one element of (kernel subsystem, op) with loop dtypes sig costs,
   in adds (pool.h): transcendental float ops split at a sixteenth of the
   elements a plain add needs; a buffered cast adds one. */
int64_t ncl_ew_op_cost(NclSubsystem ksub, int kop, const NclDType *sig, int nin, int buffered);
#define NCL_EW_COST_MAX (NCL_COST_TRANSCENDENTAL + 1)
/* The end of an executed call whose kernel returned st and raised fpe (not
   both zero): a failed kernel gets its message; raised flags in RAISE mode
   decide the status of a top-level call, so that an output the call
   allocated is released rather than returned. */
NclStatus ncl_ew_outcome(NclSubsystem sub, int op, const NclKernelNode *k, NclStatus st, int fpe);

NCL_INLINE int ncl_ew_same_shape(const NclArray *a, const NclArray *b)
{
    if (a->ndim != b->ndim) return 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d]) return 0;
    return 1;
}

/* Whether input a can be read by the fast path below: host memory, of its
   loop dtype, C-contiguous, of the output's shape, and either the output
   itself or apart from it (a partial overlap is copied first by the
   planner). The output's n elements span [olo, ohi). */
NCL_INLINE int ncl_ew_contig_input(const NclArray *a, const NclArray *out, NclDType loop,
                                   int64_t n, const char *olo, const char *ohi)
{
    if (a->kind == NCL_MEM_DEVICE || a->dtype != loop || !(a->flags & NCL_ARRAY_C_CONTIGUOUS) ||
        !ncl_ew_same_shape(a, out))
        return 0;
    const char *lo = a->data;
    return (lo == olo && a->itemsize == out->itemsize) || lo >= ohi ||
           olo >= lo + n * (int64_t)a->itemsize;
}

/* The common call, run without a plan: no mask, every input C-contiguous,
   of its loop dtype and of the output's shape; the output provided,
   C-contiguous, writeable and of the loop's output dtype, either an input
   exactly or touching none; not empty and too small to split. in[nin]
   are the inputs, loop[nin + 1] the resolved loop dtypes and chain their
   kernel chain (of subsystem sub, op op). Returns 1 when the call ran, with
   *st set as ncl_ew_run would set it (FP flags collected, the ledger record
   written, the same messages); 0 when it must be planned, nothing done.
   Inline, so that each subsystem gets a copy for its constant nin. */
NCL_INLINE int ncl_ew_try_contig(NclSubsystem sub, int op, int nin, const NclArray *const *in,
                                 NclArray *out, const NclDType *loop, ncl_kchain *chain,
                                 NclStatus *st)
{
    /* The hardware status is read first: the read waits for earlier float
       work to finish, which the checks below then overlap. */
    int floats = ncl_dtype_kind[loop[nin]] == 'f';
    for (int i = 0; i < nin; i++) floats |= ncl_dtype_kind[loop[i]] == 'f';
    const unsigned int csr = floats ? ncl_fpe_peek() : 0;
    const uint32_t need = NCL_ARRAY_C_CONTIGUOUS | NCL_ARRAY_WRITEABLE;
    const int64_t n = out->size;
    if ((out->flags & need) != need || out->kind == NCL_MEM_DEVICE || out->dtype != loop[nin] ||
        n == 0 || chain == NULL)
        return 0;
    char *args[NCL_MAX_OPERANDS];
    int64_t steps[NCL_MAX_OPERANDS];
    const int64_t osz = (int64_t)out->itemsize;
    const char *olo = out->data, *ohi = olo + n * osz;
    int64_t bytes = osz;
    /* Written out per input rather than as a loop with early exits, which
       compilers leave rolled. */
    if (!ncl_ew_contig_input(in[0], out, loop[0], n, olo, ohi)) return 0;
    if (nin > 1 && !ncl_ew_contig_input(in[1], out, loop[1], n, olo, ohi)) return 0;
    if (nin > 2 && !ncl_ew_contig_input(in[2], out, loop[2], n, olo, ohi)) return 0;
    for (int i = 0; i < nin; i++) {
        args[i] = in[i]->data;
        steps[i] = (int64_t)in[i]->itemsize;
        bytes += steps[i];
    }
    /* Calls big enough to split are planned: their planning is nothing next
       to their elements. No op costs more than NCL_EW_COST_MAX adds an
       element, so a small call needs no exact cost. */
    const int64_t th =
        __atomic_load_n((const int64_t *)(const void *)&ncl_pool_threshold_v, __ATOMIC_RELAXED);
    if (!(th > 0 && n < th / NCL_EW_COST_MAX) &&
        ncl_pool_threads(n * ncl_ew_op_cost(sub, op, loop, nin, 0)) > 1)
        return 0;
    args[nin] = out->data;
    steps[nin] = osz;

    ncl_thread_state *t = &ncl_tls;
    NclKernelNode *k = ncl_kernel_first(chain);
    int fpe = 0;
    const NclKernelCtx ctx = {sub, op, nin, 1, loop, 0, 0, &fpe, NULL, t->accuracy, 1};
    ncl_fpe_saved saved;
    if (floats) ncl_fpe_begin_at(&saved, csr);
    NclStatus s = k->fn(k, &ctx, args, n, steps);
    if (floats) fpe |= ncl_fpe_end(&saved);
    t->fpe_flags |= fpe;
    if (NCL_UNLIKELY(s != NCL_OK || fpe != 0)) s = ncl_ew_outcome(sub, op, k, s, fpe);
    t->last_call.elements = n;
    t->last_call.bytes = n * bytes;
    t->last_call.kernel = k->name ? k->name : "(unnamed)";
    t->last_call.threads = 1;
    *st = s;
    return 1;
}

#endif /* NCL_PLAN_H */
