/*
 * ncl/hooks.h: the two levels of hook chains.
 *
 * Level 1: one chain per subsystem. Every public subsystem call enters the
 * first node of its chain; the last node is NCLib's default implementation.
 * A node may handle the call, call the next node (NclBinaryNext and its
 * siblings), change the arguments, post-process, or remove itself.
 *
 * Level 2: one chain per (subsystem, op, dtype signature) of inner-loop
 * kernels. The default implementations plan a call and then run the first
 * node of the matching kernel chain over strided blocks; NCLib's own kernels
 * are at the tail.
 *
 * Chains may change while other threads call through them: a call sees the
 * chain as it was before or after a change, never a broken one. Removal waits
 * for a grace period (RCU), so when NclApiUnhook returns no call is inside the
 * removed node any more.
 */
#ifndef NCL_HOOKS_H
#define NCL_HOOKS_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "dtype.h"
#include "list.h"
#include "create.h"
#include "convert.h"
#include "compare.h"
#include "isunary.h"
#include "unary.h"
#include "binary.h"
#include "ternary.h"
#include "reduce.h"
#include "sort.h"
#include "mask.h"

NCL_BEGIN_DECLS

#define NCL_SUBSYSTEM_LIST(X)                    \
    X(NCL_SUBSYSTEM_INFO, 0, "info")             \
    X(NCL_SUBSYSTEM_CREATE, 1, "create")         \
    X(NCL_SUBSYSTEM_CONVERT, 2, "convert")       \
    X(NCL_SUBSYSTEM_COMPARE, 3, "compare")       \
    X(NCL_SUBSYSTEM_UNARY, 4, "unary")           \
    X(NCL_SUBSYSTEM_BINARY, 5, "binary")         \
    X(NCL_SUBSYSTEM_TERNARY, 6, "ternary")       \
    X(NCL_SUBSYSTEM_REDUCE, 7, "reduce")         \
    X(NCL_SUBSYSTEM_SORT, 8, "sort")             \
    X(NCL_SUBSYSTEM_MASK, 9, "mask")             \
    X(NCL_SUBSYSTEM_RNG, 10, "rng")              \
    X(NCL_SUBSYSTEM_ISUNARY, 11, "isunary")

typedef enum NclSubsystem {
#define NCL_X_(name, value, text) name = value,
    NCL_SUBSYSTEM_LIST(NCL_X_)
#undef NCL_X_
    NCL_SUBSYSTEM_COUNT
} NclSubsystem;

/* ---- Info chain ---------------------------------------------------------- */

/* The JSON object NclInfo is writing; each Info hook adds its members. */
typedef struct NclInfoWriter NclInfoWriter;
/* Adds "key": json_value to the object; json_value must be valid JSON text
   (an object, array, string with quotes, number, true, false or null). */
NCL_API NclStatus NclInfoAddJson(NclInfoWriter *w, const char *key, const char *json_value);
/* Adds "key": "text", escaping text as JSON needs. */
NCL_API NclStatus NclInfoAddString(NclInfoWriter *w, const char *key, const char *text);

typedef NclStatus (*NclInfoHookFn)(NclHook *self, NclInfoWriter *w);
NCL_API NclStatus NclInfoNext(NclHook *self, NclInfoWriter *w);

/* Writes a JSON description of the running library (version, ABI, CPU
   features, kernel variants, allocator, hooks, and what each Info hook adds)
   into buf, NUL-terminated. *needed (if not NULL) receives the size required
   including the NUL. Returns NCL_ERR_INVALID_ARGUMENT if buf is too small
   (buf may be NULL when cap is 0 to ask for the size). */
NCL_API NclStatus NclInfo(char *buf, size_t cap, size_t *needed);

/* ---- Level 1 -------------------------------------------------------------- */

/* A level-1 hook node. Zero-initialise it, set name, user and the fn member
   of its subsystem, then insert it. It must stay valid until it is unhooked
   (after NclApiUnhook returns, or when the deferred reclaim runs). */
struct NclHook {
    NclListHead list;
    const char *name;  /* shown by NclHooksWalk, NclInfo and the ledger */
    void *user;
    union {
        NclInfoHookFn info;
        NclCreateHookFn create;
        NclConvertHookFn convert;
        NclCompareHookFn compare;
        NclUnaryHookFn unary;
        NclBinaryHookFn binary;
        NclIsUnaryHookFn isunary;
        NclTernaryHookFn ternary;
        NclReduceHookFn reduce;
        NclSortHookFn sort;
        NclMaskHookFn mask;
        void (*any)(void);
    } fn;
    void *priv[6]; /* the library's: leave zero */
};

enum { NCL_HOOK_FRONT = 0, NCL_HOOK_BACK = 1, NCL_HOOK_BEFORE = 2, NCL_HOOK_AFTER = 3 };

/* Inserts node (the list member of an NclHook) at the front of subsystem s's
   chain. NCL_ERR_INVALID_ARGUMENT for a bad subsystem, a NULL node or a NULL
   function; NCL_ERR_HOOK if the node is already in a chain. */
NCL_API NclStatus NclApiHook(NclSubsystem s, NclListHead *node);
/* where: NCL_HOOK_FRONT, NCL_HOOK_BACK (just before the default), or
   NCL_HOOK_BEFORE / NCL_HOOK_AFTER anchor (a node in the same chain; AFTER
   the default is refused with NCL_ERR_HOOK). */
NCL_API NclStatus NclApiHookAt(NclSubsystem s, NclListHead *node, int where, NclListHead *anchor);
/* Unlinks node and waits until no call is inside it. NCL_ERR_HOOK if node is
   not in a chain, is a built-in default, or if called from inside a hook or
   kernel call on this thread (waiting would wait for itself). */
NCL_API NclStatus NclApiUnhook(NclListHead *node);
/* Unlinks node now and calls reclaim(node, user) once no call can still be
   inside it; usable from inside the node itself. reclaim may be NULL.
   Accepts the list member of an NclKernelNode too. */
NCL_API NclStatus NclApiUnhookDeferred(NclListHead *node,
                                       void (*reclaim)(NclListHead *node, void *user),
                                       void *user);

/* ---- Level 2 -------------------------------------------------------------- */

/* What a kernel is running and where it reports element errors. */
typedef struct NclKernelCtx {
    NclSubsystem subsystem;
    int op;
    int nin, nout;
    const NclDType *signature; /* nin + nout loop dtypes, inputs first */
    int worker;                /* 0 = the calling thread */
    int64_t chunk;             /* which block of the call this is, from 0 */
    int *fpe;                  /* OR NCL_FPE_* bits raised by these elements here */
    const void *aux;           /* op-specific data, NULL unless documented */
    NclAccuracy accuracy;      /* the caller's tier (NclSetAccuracy): a kernel may use a
                                  faster method within that tier's ulp bound */
    int nworkers;              /* threads running chunks of this call at the same time;
                                  0 or 1: this thread alone */
} NclKernelCtx;

/* args: input pointers then output pointers, each at its first element;
   steps: byte strides, one per operand, any sign, zero allowed; n >= 0. */
typedef NclStatus (*NclKernelFn)(NclKernelNode *self, const NclKernelCtx *ctx,
                                 char *const *args, int64_t n, const int64_t *steps);

struct NclKernelNode {
    NclListHead list;
    NclKernelFn fn;
    const char *name;
    void *user;
    void *priv[6]; /* the library's: leave zero */
};

/* Runs the node after self in its kernel chain. */
NCL_API NclStatus NclKernelNext(NclKernelNode *self, const NclKernelCtx *ctx,
                                char *const *args, int64_t n, const int64_t *steps);

/* Runs the level-2 chain of (s, subfunction, signature) over one strided
   loop, as a caller that has already done its own broadcasting and type
   resolution would (a front end such as NumPy's ufunc machinery): args,
   n and steps as a kernel receives them, one output. The chain's first
   node runs, a user's kernel hook included; no level-1 chain is crossed,
   but an enabled ledger counts the call under (s, subfunction).
   For the subsystems whose kernels need no ctx->aux: Convert, Compare,
   IsUnary, Unary, Binary and Ternary. The call is split over the thread
   pool where a call of the same op and size through the level-1 chain
   would be (NclSetThreadingThreshold; not while the subsystem's threader
   is unhooked), in ranges of whole elements: any split gives the same
   result. Floating-point flags the kernel raises
   (every worker's) are handled as a top-level call's: the error modes
   apply and NclGetFPErrors reports them afterwards.
   The output must either be exactly an input (same first element, step
   and item size) or touch none of the inputs' bytes, and must not overlap
   itself; element-by-element aliasing such as an accumulation is the
   caller's to run in order. NCL_ERR_INVALID_ARGUMENT for a NULL or
   malformed argument, n < 0 or such an overlap; NCL_ERR_UNSUPPORTED for
   another subsystem; NCL_ERR_DTYPE when NCLib has no kernel for the
   signature; otherwise what the kernel or the error modes return. Nothing
   is written when the arguments are refused. */
NCL_API NclStatus NclKernelRun(NclSubsystem s, int subfunction, const NclDType *signature,
                               char *const *args, int64_t n, const int64_t *steps);

/* Inserts node at the front of the chain of (s, subfunction, signature);
   signature holds the subsystem's operand count of dtypes (inputs, then
   outputs: Binary 3, Unary/IsUnary 2, Compare 3, Convert 2, Ternary 4,
   Reduce/Sort/Mask 2). Reduce kernels receive the NclReduceAux of reduce.h
   in ctx->aux; the aux data of Sort and Mask kernels is not part of the
   public contract yet, so hooks there should only observe and pass the call
   on with NclKernelNext. Only signatures
   that NCLib itself has a kernel for can be hooked (NCL_ERR_DTYPE otherwise):
   those are the loops that calls resolve to, and the fused kernels that
   read mixed operands without a cast (Binary add, subtract, multiply and
   divide of int32 or float32 with float64, e.g. (int32, float64, float64)),
   which run only while no user kernel is hooked on the loop they stand in
   for, (float64, float64, float64), or on the casts. Kernel nodes may be inserted and
   removed while calls run, like level-1 nodes; NclKernelUnhook has the same
   rules as NclApiUnhook. */
NCL_API NclStatus NclKernelHook(NclSubsystem s, int subfunction, const NclDType *signature,
                                NclListHead *node);
NCL_API NclStatus NclKernelUnhook(NclListHead *node);

/* *hooked = 1 when a call of the chain of (s, subfunction, signature) would
   run a node in front of NCLib's built-in kernel (a user's kernel hook),
   else 0. The same refusals as NclKernelHook, *hooked = 0 with them. */
NCL_API NclStatus NclKernelHooked(NclSubsystem s, int subfunction, const NclDType *signature,
                                  int *hooked);
/* A count that increases whenever a node of either level is linked into or
   unlinked from a chain: a front end that caches what it learned of the
   chains (NclKernelHooked) asks again only when the count has changed. A
   change is visible to the chains' calls before the count moves. */
NCL_API uint64_t NclHooksGeneration(void);

/* Removes every user hook of both levels, waiting for a grace period;
   built-in hooks stay. NCL_ERR_HOOK if called from inside a hook call. */
NCL_API NclStatus NclHooksReset(void);
/* Calls visit(node, name, user) for each node of subsystem s's level-1 chain,
   front to back, the default included; stops when visit returns non-zero. */
NCL_API NclStatus NclHooksWalk(NclSubsystem s,
                               int (*visit)(const NclListHead *node, const char *name, void *user),
                               void *user);

/* ---- The ledger: a built-in level-1 hook on every subsystem --------------- */

/* Turns the ledger on (inserts it at the front of every chain) or off. */
NCL_API NclStatus NclLedgerEnable(int on);
/* Writes a text table: per subsystem and op the calls, elements, bytes moved,
   time, kernel variant and threads. Same buffer rules as NclInfo. */
NCL_API NclStatus NclLedgerReport(char *buf, size_t cap, size_t *needed);
NCL_API void NclLedgerReset(void);

NCL_END_DECLS

#endif /* NCL_HOOKS_H */
