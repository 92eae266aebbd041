/**
 * @file
 * @brief The two levels of hook chains, the Info chain and the ledger.
 *
 * @defgroup ncl_hooks Hook chains
 * @brief Level-1 chains around every subsystem call, level-2 chains of
 * inner-loop kernels, and the built-in hooks.
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
 * removed node any more. Nodes are the caller's memory: NCLib never allocates
 * or frees them, and a node must stay valid until it is unhooked (after
 * NclApiUnhook or NclKernelUnhook returns, or when the reclaim function of
 * NclApiUnhookDeferred runs). Every function here may be called from any
 * thread; a hook's function runs on whichever thread makes the call, and a
 * kernel's on the worker threads the call is split across, several at once.
 *
 * Two built-in level-1 hooks ship with the library: the threader
 * ("ncl.threader", in every chain, @ref ncl_threads), and the ledger
 * (NclLedgerEnable).
 * @{
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
#include "rng.h"
#include "linalg.h"
#include "manip.h"

NCL_BEGIN_DECLS

/** X-macro list of the subsystems, `X(name, value, text)` in value order.
    A value may be missing (a subsystem not in this version): code that
    walks 0 .. NCL_SUBSYSTEM_COUNT skips the values no line names.
    @hideinitializer */
#define NCL_SUBSYSTEM_LIST(X)                                                \
    /** The chain behind NclInfo (no ops, no kernels). */                     \
    X(NCL_SUBSYSTEM_INFO, 0, "info")                                         \
    /** NclCreate. */                                                        \
    X(NCL_SUBSYSTEM_CREATE, 1, "create")                                     \
    /** NclConvert. */                                                       \
    X(NCL_SUBSYSTEM_CONVERT, 2, "convert")                                   \
    /** NclCompare. */                                                       \
    X(NCL_SUBSYSTEM_COMPARE, 3, "compare")                                   \
    /** NclUnary. */                                                         \
    X(NCL_SUBSYSTEM_UNARY, 4, "unary")                                       \
    /** NclBinary. */                                                        \
    X(NCL_SUBSYSTEM_BINARY, 5, "binary")                                     \
    /** NclTernary. */                                                       \
    X(NCL_SUBSYSTEM_TERNARY, 6, "ternary")                                   \
    /** NclReduce. */                                                        \
    X(NCL_SUBSYSTEM_REDUCE, 7, "reduce")                                     \
    /** NclSort. */                                                          \
    X(NCL_SUBSYSTEM_SORT, 8, "sort")                                         \
    /** NclMask. */                                                          \
    X(NCL_SUBSYSTEM_MASK, 9, "mask")                                         \
    /** NclRng. */                                                           \
    X(NCL_SUBSYSTEM_RNG, 10, "rng")                                          \
    /** NclIsUnary. */                                                       \
    X(NCL_SUBSYSTEM_ISUNARY, 11, "isunary")                                  \
    /** NclLinalg. */                                                        \
    X(NCL_SUBSYSTEM_LINALG, 12, "linalg")                                    \
    /** NclManip. */                                                         \
    X(NCL_SUBSYSTEM_MANIP, 13, "manip")

/** A subsystem, which names its level-1 chain (and the level-2 chains of
    its kernels). The values come from NCL_SUBSYSTEM_LIST. */
typedef enum NclSubsystem {
#define NCL_X_(name, value, text) name = value,
    NCL_SUBSYSTEM_LIST(NCL_X_)
#undef NCL_X_
    NCL_SUBSYSTEM_COUNT ///< One more than the largest subsystem value; not a subsystem.
} NclSubsystem;

/**
 * How many outputs op of subsystem s writes, as NumPy's `ufunc.nout`: 2 for
 * NCL_FREXP and NCL_MODF (Unary), NCL_DIVMOD (Binary), NCL_UNIQUE_COUNTS
 * and NCL_UNIQUE_INVERSE (Sort), 4 for NCL_UNIQUE_ALL (Sort), 1 for every
 * other op. A call of an op of several outputs goes through NclUnaryN,
 * NclBinaryN or NclSortN, whose
 * `out` points to that many slots; the hooks of the subsystem's chain get
 * the same `out`, so a hook that handles an op reads NclOpOutputs(s, op)
 * slots there, and one that passes calls on needs to know nothing.
 * @param s   the subsystem.
 * @param op  the op in s.
 * @return 1, 2 or 4; 0 when s or op is out of range.
 */
NCL_API int NclOpOutputs(NclSubsystem s, int op);

/** @} */

/**
 * @defgroup ncl_info Info
 * @ingroup ncl_hooks
 * @brief NclInfo, the JSON description of the running library, and the
 * Info chain that hooks add their own members through.
 * @{
 */

/* ---- Info chain ---------------------------------------------------------- */

/** The JSON object NclInfo is writing; each Info hook adds its members
    (opaque; owned by NclInfo and valid during the Info call only). */
typedef struct NclInfoWriter NclInfoWriter;
/**
 * Adds `"key": json_value` to the object. On failure nothing is added and
 * the writer stays usable.
 * @param w           the writer an Info hook was given.
 * @param key         the member's name (escaped as JSON needs).
 * @param json_value  valid JSON text of one value: an object, array, string
 *                    with quotes, number, true, false or null, in UTF-8.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  w, key or json_value NULL, or
 *         json_value not one valid JSON value.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclInfoAddJson(NclInfoWriter *w, const char *key, const char *json_value);
/**
 * Adds `"key": "text"`, escaping text as JSON needs. On failure nothing is
 * added and the writer stays usable.
 * @param w     the writer an Info hook was given.
 * @param key   the member's name.
 * @param text  the string value.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  w, key or text NULL.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclInfoAddString(NclInfoWriter *w, const char *key, const char *text);

/** The function of an Info hook node (NclHook::fn.info): adds its members
    to w (NclInfoAddJson, NclInfoAddString) and passes the call on with
    NclInfoNext, before or after; what it returns is what NclInfo returns.
    @param self  the node.
    @param w     the object being written. */
typedef NclStatus (*NclInfoHookFn)(NclHook *self, NclInfoWriter *w);
/**
 * Calls the node after self in the Info chain.
 * @param self  the calling hook's node.
 * @param w     the writer it was given.
 * @return what the next node returns, or:
 * @retval NCL_ERR_INVALID_ARGUMENT  self is NULL.
 * @retval NCL_ERR_HOOK  self is the default implementation, which nothing
 *                       follows.
 */
NCL_API NclStatus NclInfoNext(NclHook *self, NclInfoWriter *w);

/**
 * Writes a JSON description of the running library (version, ABI, CPU
 * features, kernel variants, allocator, hooks, and what each Info hook adds)
 * into buf, NUL-terminated, through the Info chain.
 *
 * To ask for the size, pass buf NULL and cap 0: the call then fails with
 * NCL_ERR_INVALID_ARGUMENT and sets *needed. The description can grow
 * between two calls (a hook inserted meanwhile), so a caller retries while
 * the buffer is too small.
 *
 * @param buf     where the text goes; may be NULL when cap is 0. On failure
 *                a buffer with cap > 0 holds "".
 * @param cap     buf's size in bytes.
 * @param needed  when not NULL, receives the size the text needs,
 *                including the NUL (also when buf is too small).
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  buf NULL with cap > 0, or buf too small
 *                                   for the text.
 * @retval NCL_ERR_NO_MEMORY
 * An Info hook's own failure is returned as it is.
 */
NCL_API NclStatus NclInfo(char *buf, size_t cap, size_t *needed);

/** @} */

/**
 * @defgroup ncl_hooks_api Level 1: subsystem hooks
 * @ingroup ncl_hooks
 * @brief Nodes in front of a subsystem's default implementation: insert,
 * remove, and the node type.
 * @{
 */

/* ---- Level 1 -------------------------------------------------------------- */

/** A level-1 hook node. Zero-initialise it, set name, user and the fn member
    of its subsystem, then insert it (NclApiHook). It must stay valid until it
    is unhooked (after NclApiUnhook returns, or when the deferred reclaim
    runs). */
struct NclHook {
    NclListHead list;  ///< The chain's link; NCLib's while the node is linked.
    const char *name;  ///< Shown by NclHooksWalk, NclInfo and the ledger; NULL = "(unnamed)".
    void *user;        ///< The hook's own data; NCLib never reads it.
    /** The hook's function: set the member of the node's subsystem. */
    union {
        NclInfoHookFn info;         ///< NCL_SUBSYSTEM_INFO.
        NclCreateHookFn create;     ///< NCL_SUBSYSTEM_CREATE.
        NclConvertHookFn convert;   ///< NCL_SUBSYSTEM_CONVERT.
        NclCompareHookFn compare;   ///< NCL_SUBSYSTEM_COMPARE.
        NclUnaryHookFn unary;       ///< NCL_SUBSYSTEM_UNARY.
        NclBinaryHookFn binary;     ///< NCL_SUBSYSTEM_BINARY.
        NclIsUnaryHookFn isunary;   ///< NCL_SUBSYSTEM_ISUNARY.
        NclTernaryHookFn ternary;   ///< NCL_SUBSYSTEM_TERNARY.
        NclReduceHookFn reduce;     ///< NCL_SUBSYSTEM_REDUCE.
        NclSortHookFn sort;         ///< NCL_SUBSYSTEM_SORT.
        NclMaskHookFn mask;         ///< NCL_SUBSYSTEM_MASK.
        NclRngHookFn rng;           ///< NCL_SUBSYSTEM_RNG.
        NclLinalgHookFn linalg;     ///< NCL_SUBSYSTEM_LINALG.
        NclManipHookFn manip;       ///< NCL_SUBSYSTEM_MANIP.
        void (*any)(void);          ///< Any of them, as one type (NCLib checks it is not NULL).
    } fn;
    void *priv[6]; ///< The library's bookkeeping: leave zero.
};

/** Where NclApiHookAt inserts a node. */
enum {
    NCL_HOOK_FRONT = 0,  ///< First in the chain (what NclApiHook does).
    NCL_HOOK_BACK = 1,   ///< Last before the default implementation.
    NCL_HOOK_BEFORE = 2, ///< Just before the anchor node.
    NCL_HOOK_AFTER = 3   ///< Just after the anchor node (never after the default).
};

/**
 * Inserts a node at the front of subsystem s's chain. Calls that start
 * after this returns go through it.
 * @param s     the subsystem.
 * @param node  the list member of a zero-initialised NclHook whose fn
 *              member for s is set.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  s not an NclSubsystem, node NULL, or
 *                                   the node's function NULL.
 * @retval NCL_ERR_UNSUPPORTED  s is not built into this version.
 * @retval NCL_ERR_HOOK  the node is already in a chain, is still being
 *                       removed, or its priv[] words are not zero.
 */
NCL_API NclStatus NclApiHook(NclSubsystem s, NclListHead *node);
/**
 * Inserts a node at a chosen place of subsystem s's chain.
 * @param s       the subsystem.
 * @param node    as NclApiHook.
 * @param where   NCL_HOOK_FRONT, NCL_HOOK_BACK (just before the default),
 *                or NCL_HOOK_BEFORE / NCL_HOOK_AFTER anchor.
 * @param anchor  for BEFORE and AFTER, a node in the same chain (AFTER the
 *                default is refused); otherwise ignored.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  as NclApiHook, or where not one of the
 *         four, or anchor NULL for BEFORE and AFTER.
 * @retval NCL_ERR_UNSUPPORTED  s is not built into this version.
 * @retval NCL_ERR_HOOK  as NclApiHook, or the anchor is not in s's chain,
 *         or AFTER the default implementation.
 */
NCL_API NclStatus NclApiHookAt(NclSubsystem s, NclListHead *node, int where, NclListHead *anchor);
/**
 * Unlinks a level-1 node and waits until no call is inside it (an RCU grace
 * period); the node may then be freed, changed or inserted again.
 * @param node  the node's list member.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  node NULL.
 * @retval NCL_ERR_HOOK  node is not in a chain (or is already being
 *         removed); is a kernel node (NclKernelUnhook removes those); is a
 *         built-in node other than the threader (a default implementation,
 *         or the ledger, which NclLedgerEnable(0) removes); or this is
 *         called from inside an NCLib call on this thread (a hook, a
 *         kernel, a NclHooksWalk visitor), where waiting would wait for
 *         itself: use NclApiUnhookDeferred there.
 */
NCL_API NclStatus NclApiUnhook(NclListHead *node);
/**
 * Unlinks a node now and calls reclaim(node, user) once no call can still
 * be inside it; usable from inside the node itself. reclaim runs on another
 * thread (liburcu's call_rcu thread), and the node is free for reuse when
 * it does: reclaim may free it or insert it again. Accepts the list member
 * of an NclKernelNode too.
 * @param node     the node's list member.
 * @param reclaim  called once the node is unused; may be NULL.
 * @param user     passed to reclaim.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  node NULL.
 * @retval NCL_ERR_HOOK  node is not in a chain (or is already being
 *         removed), or is a built-in node other than the threader.
 */
NCL_API NclStatus NclApiUnhookDeferred(NclListHead *node,
                                       void (*reclaim)(NclListHead *node, void *user),
                                       void *user);

/** @} */

/**
 * @defgroup ncl_hooks_kernel Level 2: kernel hooks
 * @ingroup ncl_hooks
 * @brief Inner-loop kernels in front of NCLib's own, per (subsystem, op,
 * dtype signature), and running a chain directly (NclKernelRun).
 * @{
 */

/* ---- Level 2 -------------------------------------------------------------- */

/** What a kernel is running and where it reports element errors. Owned by
    the call; valid during the kernel call only. */
typedef struct NclKernelCtx {
    NclSubsystem subsystem;    ///< The chain's subsystem.
    int op;                    ///< The chain's op (subfunction) in that subsystem.
    /** @var nin
        Number of input operands.
        @var nout
        Number of output operands. */
    int nin, nout;
    const NclDType *signature; ///< nin + nout loop dtypes, inputs first.
    int worker;                ///< 0 = the calling thread.
    int64_t chunk;             ///< Which block of the call this is, from 0.
    int *fpe;                  ///< OR NCL_FPE_* bits raised by these elements here.
    /** Op-specific data, NULL unless documented: Reduce kernels get an
        NclReduceAux, Linalg kernels an NclLinalgAux; Sort's and Mask's
        are not part of the contract yet. */
    const void *aux;
    /** The caller's tier (NclSetAccuracy): a kernel may use a faster
        method within that tier's ulp bound. */
    NclAccuracy accuracy;
    /** Threads running chunks of this call at the same time; 0 or 1: this
        thread alone. */
    int nworkers;
} NclKernelCtx;

/** The function of a kernel node: runs the loop over n elements, or passes
    it on with NclKernelNext. It may run on several threads at once (the
    chunks of one call, and other calls). Integer errors are reported by
    OR-ing NCL_FPE_* bits into *ctx->fpe; float flags the hardware raises
    are picked up by NCLib. A status other than NCL_OK fails the call with
    it.
    @param self   the node.
    @param ctx    what is being run.
    @param args   input pointers then output pointers, each at its first
                  element.
    @param n      elements, >= 0.
    @param steps  byte strides, one per operand, any sign, zero allowed. */
typedef NclStatus (*NclKernelFn)(NclKernelNode *self, const NclKernelCtx *ctx,
                                 char *const *args, int64_t n, const int64_t *steps);

/** A level-2 kernel node. Zero-initialise it, set fn, name and user, then
    insert it (NclKernelHook). It must stay valid until it is unhooked. */
struct NclKernelNode {
    NclListHead list;  ///< The chain's link; NCLib's while the node is linked.
    NclKernelFn fn;    ///< The kernel.
    const char *name;  ///< Shown by the ledger and in messages; NULL = "(unnamed)".
    void *user;        ///< The kernel's own data; NCLib never reads it.
    void *priv[6]; ///< The library's bookkeeping: leave zero.
};

/**
 * Runs the node after self in its kernel chain.
 * @param self   the calling kernel's node.
 * @param ctx    as the kernel received it.
 * @param args   as the kernel received them, or changed.
 * @param n      as the kernel received it, or changed.
 * @param steps  as the kernel received them, or changed.
 * @return what the next kernel returns, or:
 * @retval NCL_ERR_INVALID_ARGUMENT  self is NULL.
 * @retval NCL_ERR_HOOK  no kernel follows self (self is NCLib's own).
 */
NCL_API NclStatus NclKernelNext(NclKernelNode *self, const NclKernelCtx *ctx,
                                char *const *args, int64_t n, const int64_t *steps);

/**
 * Runs the level-2 chain of (s, subfunction, signature) over one strided
 * loop, as a caller that has already done its own broadcasting and type
 * resolution would (a front end such as NumPy's ufunc machinery): args,
 * n and steps as a kernel receives them, one output. The chain's first
 * node runs, a user's kernel hook included; no level-1 chain is crossed,
 * but an enabled ledger counts the call under (s, subfunction).
 * For the subsystems whose kernels need no ctx->aux: Convert, Compare,
 * IsUnary, Unary, Binary and Ternary. The call is split over the thread
 * pool where a call of the same op and size through the level-1 chain
 * would be (NclSetThreadingThreshold; not while the subsystem's threader
 * is unhooked), in ranges of whole elements: any split gives the same
 * result. Floating-point flags the kernel raises
 * (every worker's) are handled as a top-level call's: the error modes
 * apply and NclGetFPErrors reports them afterwards.
 * Linalg kernels run as NumPy's dot function: n is the summed length,
 * args are {a, b, out}, and out receives the one sum of products (the
 * kernel gets an NclLinalgAux with m = n = 1, k = n); such a call runs on
 * the calling thread. Its output must touch none of the inputs' bytes.
 * The output must either be exactly an input (same first element, step
 * and item size) or touch none of the inputs' bytes, and must not overlap
 * itself; element-by-element aliasing such as an accumulation is the
 * caller's to run in order. Nothing is written when the arguments are
 * refused.
 *
 * @param s            the subsystem.
 * @param subfunction  the op in that subsystem.
 * @param signature    the loop dtypes, inputs then the output.
 * @param args         input pointers then the output pointer, each at its
 *                     first element; may be NULL when n is 0.
 * @param n            elements, >= 0.
 * @param steps        byte strides, one per operand; may be NULL when n is
 *                     0.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  s not an NclSubsystem or one without
 *         kernels (Info, Create); subfunction out of range; signature NULL
 *         or holding a value that is not a dtype; n < 0; args, steps or an
 *         operand pointer NULL; or an overlap as above.
 * @retval NCL_ERR_UNSUPPORTED  another subsystem (Reduce, Sort, Mask, RNG:
 *         their kernels need data a loop call does not carry).
 * @retval NCL_ERR_DTYPE  NCLib has no kernel for the signature.
 * @retval NCL_ERR_FLOATING_POINT  a category raised in NCL_ERRMODE_RAISE.
 * @retval NCL_ERR_NO_MEMORY  building the kernel registry.
 * A kernel's own failure is returned as it is.
 */
NCL_API NclStatus NclKernelRun(NclSubsystem s, int subfunction, const NclDType *signature,
                               char *const *args, int64_t n, const int64_t *steps);

/**
 * Inserts node at the front of the chain of (s, subfunction, signature).
 * Reduce kernels receive the NclReduceAux of reduce.h in ctx->aux, Linalg
 * kernels the NclLinalgAux of linalg.h; the aux
 * data of Sort and Mask kernels is not part of the public contract yet, so
 * hooks there should only observe and pass the call on with NclKernelNext.
 * Only signatures that NCLib itself has a kernel for can be hooked: those
 * are the loops that calls resolve to, and the fused kernels that read
 * mixed operands without a cast (Binary add, subtract, multiply and divide
 * of int32 or float32 with float64, e.g. (int32, float64, float64)), which
 * run only while no user kernel is hooked on the loop they stand in for,
 * (float64, float64, float64), or on the casts. Kernel nodes may be
 * inserted and removed while calls run, like level-1 nodes; NclKernelUnhook
 * has the same rules as NclApiUnhook.
 *
 * @param s            the subsystem.
 * @param subfunction  the op in that subsystem.
 * @param signature    the subsystem's operand count of dtypes, inputs then
 *                     outputs: Binary 3, Unary/IsUnary 2, Compare 3,
 *                     Convert 2, Ternary 4, Reduce/Sort/Mask 2.
 * @param node         the list member of a zero-initialised NclKernelNode
 *                     whose fn is set.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  s not an NclSubsystem or one without
 *         kernels (Info, Create); subfunction out of range; signature NULL
 *         or holding a value that is not a dtype; node NULL or its fn NULL.
 * @retval NCL_ERR_UNSUPPORTED  s is not built into this version.
 * @retval NCL_ERR_DTYPE  NCLib has no kernel for the signature.
 * @retval NCL_ERR_HOOK  the node is already in a chain, is still being
 *                       removed, or its priv[] words are not zero.
 * @retval NCL_ERR_NO_MEMORY  building the kernel registry.
 */
NCL_API NclStatus NclKernelHook(NclSubsystem s, int subfunction, const NclDType *signature,
                                NclListHead *node);
/**
 * Unlinks a kernel node and waits until no call is inside it, with the
 * rules of NclApiUnhook.
 * @param node  the node's list member.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  node NULL.
 * @retval NCL_ERR_HOOK  node is not in a chain (or is already being
 *         removed); is a level-1 node; is one of NCLib's own kernels; or
 *         this is called from inside an NCLib call on this thread.
 */
NCL_API NclStatus NclKernelUnhook(NclListHead *node);

/**
 * Whether a call of the chain of (s, subfunction, signature) would run a
 * node in front of NCLib's built-in kernel (a user's kernel hook).
 * @param s            as NclKernelHook.
 * @param subfunction  as NclKernelHook.
 * @param signature    as NclKernelHook.
 * @param hooked       receives 1 when it would, else 0 (0 on failure too).
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  hooked NULL, or the refusals of
 *                                   NclKernelHook for s, subfunction and
 *                                   signature.
 * @retval NCL_ERR_UNSUPPORTED  s is not built into this version.
 * @retval NCL_ERR_DTYPE  NCLib has no kernel for the signature.
 * @retval NCL_ERR_NO_MEMORY  building the kernel registry.
 */
NCL_API NclStatus NclKernelHooked(NclSubsystem s, int subfunction, const NclDType *signature,
                                  int *hooked);

/** @} */

/** @addtogroup ncl_hooks
    @{ */

/**
 * A count that increases whenever a node of either level is linked into or
 * unlinked from a chain: a front end that caches what it learned of the
 * chains (NclKernelHooked) asks again only when the count has changed. A
 * change is visible to the chains' calls before the count moves.
 * Lock-free.
 * @return the count.
 */
NCL_API uint64_t NclHooksGeneration(void);

/**
 * Removes every user hook of both levels, waiting for a grace period;
 * built-in hooks stay (the ledger too, while enabled), and the threader is
 * put back in front of the default where a user removed it. The removed
 * nodes are free for reuse when this returns.
 * @retval NCL_OK
 * @retval NCL_ERR_HOOK  called from inside an NCLib call on this thread
 *                       (a hook, a kernel, a NclHooksWalk visitor).
 */
NCL_API NclStatus NclHooksReset(void);
/**
 * Calls visit(node, name, user) for each node of subsystem s's level-1
 * chain, front to back, the default included, while the chain cannot be
 * freed under it (inside a read-side section: the visitor must not wait
 * for a grace period, and NclApiUnhook from it returns NCL_ERR_HOOK). A
 * node and its name are valid during its visit only.
 * @param s      the subsystem.
 * @param visit  called per node with its name ("(unnamed)" for NULL);
 *               returning non-zero stops the walk.
 * @param user   passed to visit.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  s not an NclSubsystem, or visit NULL.
 * @retval NCL_ERR_UNSUPPORTED  s is not built into this version.
 */
NCL_API NclStatus NclHooksWalk(NclSubsystem s,
                               int (*visit)(const NclListHead *node, const char *name, void *user),
                               void *user);

/** @} */

/**
 * @defgroup ncl_ledger Ledger
 * @ingroup ncl_hooks
 * @brief A built-in level-1 hook on every subsystem that counts calls,
 * elements, bytes and time per op.
 * @{
 */

/* ---- The ledger: a built-in level-1 hook on every subsystem --------------- */

/**
 * Turns the ledger on (inserts it at the front of every chain; already on
 * is fine) or off (removes it, waiting for a grace period). Its counts are
 * kept either way; NclLedgerReset clears them.
 * @param on  non-zero: on; 0: off.
 * @retval NCL_OK
 * @retval NCL_ERR_HOOK  called from inside an NCLib call on this thread
 *         while the ledger was being removed (on), or at all (off).
 */
NCL_API NclStatus NclLedgerEnable(int on);
/**
 * Writes a text table: per subsystem and op the calls, errors, elements,
 * bytes moved, time, kernel variant and threads. Same buffer rules as
 * NclInfo.
 * @param buf     where the text goes; may be NULL when cap is 0. A buffer
 *                too small holds "".
 * @param cap     buf's size in bytes.
 * @param needed  when not NULL, receives the size the text needs,
 *                including the NUL.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  buf NULL with cap > 0, or buf too small
 *                                   for the table.
 */
NCL_API NclStatus NclLedgerReport(char *buf, size_t cap, size_t *needed);
/** Sets every count of the ledger to zero (atomically per count: a call
    in flight may still add to them). */
NCL_API void NclLedgerReset(void);

/** @} */

NCL_END_DECLS

#endif /* NCL_HOOKS_H */
