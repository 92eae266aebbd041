/*
 * ncl_hooks.h: the hook chains as the rest of the library sees them: the
 * bracket every public subsystem call runs inside (hooks.c) and the
 * level-2 kernel chains (kernel_registry.c). What only the chains'
 * own code and their walkers need is in hook_chain.h.
 *
 * hooks/ includes core/, runtime/ (the kernel variant chosen) and the
 * kernel tables' header kernels/ncl_kernel.h.
 */
#ifndef NCL_SRC_HOOKS_H
#define NCL_SRC_HOOKS_H

#include <time.h>
#include "core/ncl_core.h"

/* ---- kernel registry (kernel_registry.c) ----------------------------------- */

/* One level-2 chain: a slot of the registry's hash table. */
typedef struct ncl_kchain {
    uint64_t key;              /* 0: empty slot */
    NclListHead head;
    const char *builtin_name;  /* the built-in kernel a call runs when no hook takes it */
    NclKernelNode *builtin;    /* the first built-in node (user hooks go in front of it) */
} ncl_kchain;
/* The level-2 chain of (s, op, sig) or NULL when NCLib has no kernel for it.
   nargs = number of dtypes in sig. Lock-free; builds the registry on first use. */
ncl_kchain *ncl_kernel_chain(NclSubsystem s, int op, const NclDType *sig, int nargs);
/* The chain of (s, op, sig) for the public functions that take one
   (NclKernelHook, NclKernelRun): NCL_OK with *out and *nargs (operands in
   sig) set, or the status and message naming who when s has no kernel
   chains, op or a dtype is not one, or NCLib has no kernel for sig. */
NclStatus ncl_kernel_chain_find(const char *who, NclSubsystem s, int op, const NclDType *sig,
                                ncl_kchain **out, int *nargs);
/* The first node of a chain; call only between ncl_call_enter and leave.
   Acquire pairs with the release store that linked a hooked node. */
NCL_INLINE NclKernelNode *ncl_kernel_first(ncl_kchain *c)
{
    NclListHead *n = __atomic_load_n(&c->head.next, __ATOMIC_ACQUIRE);
    return NCL_CONTAINER_OF(n, NclKernelNode, list);
}
/* Name of the kernel variant at the tail (the built-in), for the ledger. */
const char *ncl_kernel_builtin_name(ncl_kchain *c);
/* Whether a call of c would run its built-in kernel: no user kernel is
   hooked in front of it. A hook linked or unlinked just after the check
   leaves the call as one that saw the chain before the change. */
NCL_INLINE int ncl_kernel_unhooked(ncl_kchain *c)
{
    return __atomic_load_n(&c->head.next, __ATOMIC_ACQUIRE) == &c->builtin->list;
}

/* ---- the bracket around every public subsystem call (hooks.c) ------------- */

/* Enters an RCU read-side section and counts call depth; at depth 1 clears
   this thread's FP flag accumulator. */
void ncl_call_enter(void);
/* Leaves it; at depth 0 applies the FP error modes to the flags the call
   raised (fpe.c) and may turn NCL_OK into NCL_ERR_FLOATING_POINT. who names
   the call for messages and callbacks. */
NclStatus ncl_call_leave(NclStatus s, NclSubsystem sub, int op);
/* The first node of subsystem s's level-1 chain (inside enter/leave). */
NclHook *ncl_chain_first(NclSubsystem s);
/* Whether subsystem s's threader is in its chain (not unhooked by a user):
   calls that bypass the chain split only when a call through it would. */
int ncl_threader_linked(NclSubsystem s);

/* ---- the ledger (ledger.c), for calls that cross no level-1 chain -------- */

/* A call's record while the ledger times it: ncl_ledger_begin clears
   ncl_last_call for the call to fill in, ncl_ledger_end adds it to the
   row of (s, op) and puts back an enclosing call's record. */
typedef struct ncl_ledger_mark {
    struct timespec t0;
    ncl_call_record outer;
} ncl_ledger_mark;
void ncl_ledger_begin(ncl_ledger_mark *m);
void ncl_ledger_end(const ncl_ledger_mark *m, NclSubsystem s, int op, NclStatus st);
/* Whether the ledger is counting subsystem s's calls (its node is linked). */
int ncl_ledger_on(NclSubsystem s);

/* ---- unloading: run by the library's destructor (api/unload.c) ------------- */

/* Waits for queued deferred reclaims (hooks.c); at exit and at dlclose. */
void ncl_hooks_unload(void);
/* Frees the kernel registry (kernel_registry.c); at dlclose only. */
void ncl_kernels_unload(void);

#endif /* NCL_SRC_HOOKS_H */
