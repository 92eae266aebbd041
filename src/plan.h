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

#include "ncl_internal.h"

#define NCL_MAX_OPERANDS 4  /* inputs + one output */
/* Elements per block when an operand is cast through a buffer: small
   enough that every buffer of a call sits in L1 together. */
#define NCL_BLOCK 512

/* What a call asks for, before planning. */
typedef struct ncl_ew_call {
    NclSubsystem sub;
    int op;
    int nin;
    const NclArray *in[NCL_MAX_OPERANDS - 1];
    NclDType loop[NCL_MAX_OPERANDS];   /* resolved loop dtypes, inputs then output */
    NclSubsystem kernel_sub;           /* where the kernel chain lives (usually sub) */
    int kernel_op;
    ncl_kchain *chain;                 /* the kernel chain if known, else NULL */
    NclArray **out;                    /* the caller's out pointer (*out may be NULL) */
    const NclArray *where;             /* NULL or a bool mask */
    NclCasting casting;
    unsigned truth_inputs;             /* bit i: input i is read as truth (cast to
                                          bool whatever the casting rule) */
    NclDType out_dtype;                /* dtype of an allocated output */
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
    int nop;                           /* operands: inputs + 1 output (+ mask separately) */
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
    NclArray *result;                  /* the output array (allocated or provided) */
    int allocated;                     /* result was allocated by this call */
} ncl_ew_plan;

/* Plans c into p. On failure nothing is allocated or written and the message
   is set. Must run inside ncl_call_enter/leave (it reads kernel chains). */
NclStatus ncl_ew_plan_make(const ncl_ew_call *c, ncl_ew_plan *p);
/* Executes elements [start, end) of the plan as chunk `chunk` on behalf of
   worker `worker`, ORing the flags kernels report into *fpe (hardware flags
   are the caller's to sample around it). */
NclStatus ncl_ew_execute(const ncl_ew_plan *p, int64_t start, int64_t end, int worker,
                         int64_t chunk, int *fpe);
/* Releases the plan's temporaries; on success stores the result in *c->out,
   on failure releases an allocated result. Returns s. */
NclStatus ncl_ew_finish(const ncl_ew_call *c, ncl_ew_plan *p, NclStatus s);
/* Plan, execute (collecting FP flags into this thread's call), finish. */
NclStatus ncl_ew_run(const ncl_ew_call *c);


#endif /* NCL_PLAN_H */
