/*
 * hooks.c: the level-1 hook chains (one per subsystem), the public entry of
 * every subsystem call that runs through them, the Next functions, hook
 * insertion and removal, and the bracket (ncl_call_enter / ncl_call_leave)
 * that every call runs inside.
 *
 * Each chain is a circular NclListHead list whose last node is a static
 * built-in default (ncl_default_<subsystem>). Readers (every call) only
 * follow next pointers with acquire loads inside a liburcu bp read-side
 * section: no lock, no allocation and no system call on the call path.
 * Writers are serialised by one mutex and publish with release stores;
 * removal waits for a grace period outside the mutex. Nothing is set up in
 * constructors: the chains are static data and liburcu initialises itself
 * on first use.
 */
#define _POSIX_C_SOURCE 200809L

/* The read-side lock is inlined: a thread-local counter update and a
   compiler barrier (liburcu uses membarrier() on the writer side) instead of
   a call into liburcu-bp. liburcu allows this for code under an LGPL- or
   GPL-compatible licence, which NCLib's BSD licence is. A build that must
   not inline it defines NCL_URCU_NO_INLINE.

   What the inlined lock costs is mostly its reads of liburcu-bp's
   thread-local reader pointer, four per call. From a shared library the
   default model reaches another library's thread-local variable through a
   __tls_get_addr call each time; declared initial-exec (as ncl_tls is) each
   read is one load at a fixed offset from the thread pointer. That needs
   liburcu-bp's small TLS block in the static TLS area: it is when the
   program links NCLib, and glibc's reserve for libraries opened later holds
   it when NCLib is dlopen()ed (which ncl_tls needs anyway). The model is
   declared both before liburcu's own declaration and after it: clang keeps
   the first declaration's model, gcc the last's. */
#ifndef NCL_URCU_NO_INLINE
#  define _LGPL_SOURCE
#  if defined(__GNUC__) || defined(__clang__)
#    define NCL_URCU_READER_IE 1
#    define NCL_URCU_READER_DECL \
        extern __thread struct urcu_bp_reader *urcu_bp_reader __attribute__((tls_model("initial-exec")))
struct urcu_bp_reader;
NCL_URCU_READER_DECL;
#  endif
#endif
#include <urcu-bp.h>
#ifdef NCL_URCU_READER_IE
NCL_URCU_READER_DECL;
#endif

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "hooks/hook_chain.h"

/* ---- what liburcu does not do by itself ------------------------------------ */

/* ThreadSanitizer cannot see liburcu's grace periods (liburcu is not built
   with it), so a writer that reuses or frees a node once NclApiUnhook has
   returned would look like a race with the calls that left the node before.
   The end of every read-side section releases, just before it unlocks,
   and the end of every grace period acquires, one token: the order RCU
   guarantees, told to TSan. */
#if defined(__SANITIZE_THREAD__)
#  define NCL_TSAN_RCU 1
#elif defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define NCL_TSAN_RCU 1
#  endif
#endif
#ifdef NCL_TSAN_RCU
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
static char grace_token;
#  define READER_DONE() __tsan_release(&grace_token)
#  define GRACE_DONE() __tsan_acquire(&grace_token)
#else
#  define READER_DONE() ((void)0)
#  define GRACE_DONE() ((void)0)
#endif

/* fork(): liburcu-bp asks programs to call its fork handlers. Without them
   the child keeps the parent's reader registry (a thread that was inside a
   call when another forked would make every grace period in the child wait
   for ever) and has no call_rcu thread (deferred removals in the child
   would never be reclaimed). call_rcu's prepare handler must run first (it
   waits for the call_rcu thread, which may hold the grace-period lock that
   urcu_bp_before_fork takes): prepare handlers run in the reverse order of
   registration. A fork therefore waits for a grace period in progress. */
__attribute__((constructor)) static void hooks_atfork(void)
{
    (void)pthread_atfork(urcu_bp_before_fork, urcu_bp_after_fork_parent, urcu_bp_after_fork_child);
    (void)pthread_atfork(urcu_bp_call_rcu_before_fork, urcu_bp_call_rcu_after_fork_parent,
                         urcu_bp_call_rcu_after_fork_child);
}

/* ---- the chains ------------------------------------------------------------ */


/* Each chain starts as head -> threader -> default -> head; the defaults
   are linked where the library is put together (api/chains.c). */
NclListHead ncl_hook_heads[NCL_SUBSYSTEM_COUNT] = {
#define NCL_X_(S, f) \
    [NCL_SUBSYSTEM_##S] = { &ncl_threader_hooks[NCL_SUBSYSTEM_##S].list, &ncl_default_hooks[NCL_SUBSYSTEM_##S].list },
    NCL_BUILT_SUBSYSTEMS(NCL_X_)
#undef NCL_X_
};

/* The threader (pool.h): marks the call as one that may be split across
   the pool, for as long as the rest of the chain runs. Unhooked, every call
   stays on its thread. It calls the next node directly rather than through
   NclXxxNext: it is never last, and this keeps it to a few instructions. */
#define THREADER(f, call)                            \
    ncl_thread_state *t = &ncl_tls;                  \
    const unsigned char old = t->split;              \
    t->split = 1;                                    \
    NclHook *h = NCL_CONTAINER_OF(__atomic_load_n(&self->list.next, __ATOMIC_ACQUIRE), NclHook, list); \
    NclStatus st = h->fn.f call;                     \
    t->split = old;                                  \
    return st;

static NclStatus thr_info(NclHook *self, NclInfoWriter *w) { THREADER(info, (h, w)) }
static NclStatus thr_create(NclHook *self, NclCreateOp op, const NclCreateParams *p, NclArray **out)
{
    THREADER(create, (h, op, p, out))
}
static NclStatus thr_convert(NclHook *self, NclConvertOp op, const NclArray *a, NclArray **out,
                             const NclParams *params)
{
    THREADER(convert, (h, op, a, out, params))
}
static NclStatus thr_compare(NclHook *self, NclCompareOp op, const NclArray *a, const NclArray *b,
                             NclArray **out, const NclParams *params)
{
    THREADER(compare, (h, op, a, b, out, params))
}
static NclStatus thr_isunary(NclHook *self, NclIsUnaryOp op, const NclArray *a, NclArray **out,
                             const NclParams *params)
{
    THREADER(isunary, (h, op, a, out, params))
}
static NclStatus thr_unary(NclHook *self, NclUnaryOp op, const NclArray *a, NclArray **out,
                           const NclParams *params)
{
    THREADER(unary, (h, op, a, out, params))
}
static NclStatus thr_binary(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                            NclArray **out, const NclParams *params)
{
    THREADER(binary, (h, op, a, b, out, params))
}
static NclStatus thr_ternary(NclHook *self, NclTernaryOp op, const NclArray *a, const NclArray *b,
                             const NclArray *c, NclArray **out, const NclParams *params)
{
    THREADER(ternary, (h, op, a, b, c, out, params))
}
static NclStatus thr_reduce(NclHook *self, NclReduceOp op, const NclArray *a, NclArray **out,
                            const NclParams *params)
{
    THREADER(reduce, (h, op, a, out, params))
}
static NclStatus thr_sort(NclHook *self, NclSortOp op, const NclArray *a, NclArray **out,
                          const NclParams *params)
{
    THREADER(sort, (h, op, a, out, params))
}
static NclStatus thr_mask(NclHook *self, NclMaskOp op, const NclArray *a, const NclArray *b,
                          NclArray **out, const NclParams *params)
{
    THREADER(mask, (h, op, a, b, out, params))
}
static NclStatus thr_rng(NclHook *self, NclRngOp op, NclRngGen *gen, const NclArray *a,
                         const NclArray *b, NclArray **out, const NclParams *params)
{
    THREADER(rng, (h, op, gen, a, b, out, params))
}
static NclStatus thr_linalg(NclHook *self, NclLinalgOp op, const NclArray *a, const NclArray *b,
                            NclArray **out, const NclParams *params)
{
    THREADER(linalg, (h, op, a, b, out, params))
}

static NclStatus thr_manip(NclHook *self, NclManipOp op, int nin, const NclArray *const *in,
                           NclArray **out, const NclParams *params)
{
    THREADER(manip, (h, op, nin, in, out, params))
}
#undef THREADER

#define NCL_THREADER_NAME "ncl.threader"

NclHook ncl_threader_hooks[NCL_SUBSYSTEM_COUNT] = {
#define NCL_X_(S, f)                                                                           \
    [NCL_SUBSYSTEM_##S] = {                                                                    \
        .list = { &ncl_default_hooks[NCL_SUBSYSTEM_##S].list, &ncl_hook_heads[NCL_SUBSYSTEM_##S] },\
        .name = NCL_THREADER_NAME,                                                             \
        .user = NULL,                                                                          \
        .fn.f = thr_##f,                                                                       \
        .priv = { NCL_NODE_STATE_INIT(NCL_NODE_LINKED | NCL_NODE_BUILTIN | NCL_NODE_REMOVABLE, \
                                      NCL_SUBSYSTEM_##S),                                      \
                  &ncl_hook_heads[NCL_SUBSYSTEM_##S] },                                        \
    },
    NCL_BUILT_SUBSYSTEMS(NCL_X_)
#undef NCL_X_
};

NclHook *ncl_threader_node(NclSubsystem s) { return &ncl_threader_hooks[s]; }

int ncl_threader_linked(NclSubsystem s)
{
    return ncl_subsystem_built(s) &&
           (ncl_node_state(&ncl_threader_hooks[s].list) & NCL_NODE_LINKED) != 0;
}

int ncl_is_threader(const NclListHead *n)
{
    return (uintptr_t)n - (uintptr_t)ncl_threader_hooks < sizeof ncl_threader_hooks;
}

int ncl_subsystem_built(NclSubsystem s)
{
    /* atomic: writers relink heads while calls ask */
    return (unsigned)s < (unsigned)NCL_SUBSYSTEM_COUNT &&
           __atomic_load_n(&ncl_hook_heads[s].next, __ATOMIC_RELAXED) != NULL;
}

/* Whether n is a chain head rather than a node: only the default's next is.
   An integer compare, since the pointers need not point into the array. */
NCL_INLINE int is_head(const NclListHead *n)
{
    return (uintptr_t)n - (uintptr_t)ncl_hook_heads < sizeof ncl_hook_heads;
}

/* ---- the bracket around every call ----------------------------------------- */

/* Only the outermost call of a thread takes the read lock: a nested call
   (a hook calling NCLib) is covered by it, and skipping the inner lock is
   what keeps a pass-through hook to a few nanoseconds. Worker threads that
   run pieces of a call are covered by the calling thread's section, which
   lasts until they are done. The thread state's address is taken once per
   call, whatever TLS model the build gives it. */
NCL_INLINE ncl_thread_state *call_enter(void)
{
    ncl_thread_state *t = &ncl_tls;
    if (t->depth++ == 0) {
        urcu_bp_read_lock();
        t->fpe_flags = 0;
    }
    return t;
}

NCL_INLINE NclStatus call_leave(ncl_thread_state *t, NclStatus st, NclSubsystem sub, int op)
{
    if (--t->depth != 0) return st;
    /* Unlock before the error callback runs: it may call NclApiUnhook.
       READER_DONE first: once unlocked, a grace period may end and its
       writer reuse a node this section read before TSan hears of it. */
    READER_DONE();
    urcu_bp_read_unlock();
    int flags = t->fpe_flags;
    t->fpe_last = flags;
    if (NCL_LIKELY(flags == 0)) return st;
    return ncl_fpe_apply(st, flags, sub, op);
}

/* call_leave for the entry points that return an array in *out (given: what
   *out held on entry). When the end of a top-level call turns its success
   into a failure (a raised category in RAISE mode), the array the call
   stored in *out is released and *out put back as it was: a failed call
   loses nothing and leaks nothing (ncl/fpe.h), whichever node of the chain
   allocated it and whenever the flag was raised, in the default or in a
   nested call a hook made before or after passing the call on. */
NCL_INLINE NclStatus call_leave_out(ncl_thread_state *t, NclStatus st, NclSubsystem sub, int op,
                                    NclArray **out, NclArray *given)
{
    const NclStatus s = call_leave(t, st, sub, op);
    if (NCL_UNLIKELY(s != st) && out && *out != given) {
        NclArrayRelease(*out);
        *out = given;
    }
    return s;
}

NCL_INLINE NclHook *chain_first(NclSubsystem s)
{
    NclListHead *n = __atomic_load_n(&ncl_hook_heads[s].next, __ATOMIC_ACQUIRE);
    return NCL_CONTAINER_OF(n, NclHook, list);
}

void ncl_call_enter(void) { (void)call_enter(); }

NclStatus ncl_call_leave(NclStatus s, NclSubsystem sub, int op)
{
    return call_leave(&ncl_tls, s, sub, op);
}

NclHook *ncl_chain_first(NclSubsystem s)
{
    return ncl_subsystem_built(s) ? chain_first(s) : NULL;
}

/* Walks outside a call take their own read-side section and count it apart
   from ncl_tls.depth, so that a call made from a walk's visitor is still a
   top-level call (its FP flags are applied). */
static _Thread_local int walk_depth;

void ncl_hooks_read_enter(void)
{
    walk_depth++;
    urcu_bp_read_lock();
}

void ncl_hooks_read_leave(void)
{
    READER_DONE();
    urcu_bp_read_unlock();
    walk_depth--;
}

int ncl_hooks_in_reader(void) { return ncl_tls.depth > 0 || walk_depth > 0; }

/* ---- public entry points ----------------------------------------------------- */

/* Nothing is validated here but the arrays' tags (ncl_array_tag_check):
   the default validates the rest, so a hook sees exactly what the caller
   passed, external arrays included, and never an object that is not an
   array. The tags are checked inside
   the bracket, so a refused call ends as any failed call does. */


/* The message of a refused tag: the first array of the call that is not
   one, named as the caller's parameter. */
static NCL_NOINLINE NclStatus bad_array(const char *fn, NclSubsystem sub, int op,
                                        const NclArray *a, const NclArray *b,
                                        const NclArray *c, const NclArray *o,
                                        const NclArray *w)
{
    char who[64];
    snprintf(who, sizeof who, "%s(%s)", fn, ncl_op_name(sub, op));
    const NclArray *const arr[5] = {a, b, c, o, w};
    static const char *const names[5] = {"a", "b", "c", "*out", "params->where"};
    for (int i = 0; i < 5; i++) {
        NclStatus s = ncl_array_tag_check(who, names[i], arr[i]);
        if (s != NCL_OK) return s;
    }
    return NCL_OK;
}

/* The arrays of a subsystem call (b and c NULL where it has none): its
   inputs, a provided output, and params->where. One load and compare per
   array. */
NCL_INLINE NclStatus check_arrays(const char *fn, NclSubsystem sub, int op, const NclArray *a,
                                  const NclArray *b, const NclArray *c, NclArray **out,
                                  const NclParams *params)
{
    const NclArray *const o = out ? *out : NULL;
    const NclArray *const w = ncl_params_where(params);
    if (NCL_LIKELY(ncl_array_tag_any_ok(a) && ncl_array_tag_any_ok(b) &&
                   ncl_array_tag_any_ok(c) && ncl_array_tag_any_ok(o) &&
                   ncl_array_tag_any_ok(w)))
        return NCL_OK;
    return bad_array(fn, sub, op, a, b, c, o, w);
}

static NCL_NOINLINE NclStatus bad_more_out(const char *fn, NclSubsystem sub, int op,
                                           NclArray **out, int k)
{
    char who[64], what[16];
    snprintf(who, sizeof who, "%s(%s)", fn, ncl_op_name(sub, op));
    snprintf(what, sizeof what, "out[%d]", k);
    return ncl_array_tag_check(who, what, out[k]);
}

/* The slots after the first of an op of several outputs' `out`
   (NclUnaryN, NclBinaryN, NclSortN), whose tags check_arrays does not
   read. */
NCL_INLINE NclStatus check_more_outs(const char *fn, NclSubsystem sub, int op, NclArray **out)
{
    if (NCL_LIKELY(out == NULL)) return NCL_OK;
    const int nout = ncl_op_nout(sub, op);
    for (int k = 1; k < nout; k++)
        if (NCL_UNLIKELY(!ncl_array_tag_any_ok(out[k]))) return bad_more_out(fn, sub, op, out, k);
    return NCL_OK;
}

/* A one-slot entry (NclUnary, NclBinary, NclSort) given an op of several outputs: a hook
   would read a second slot that is not there, so the call stops here. */
static NCL_NOINLINE NclStatus one_slot_refused(const char *fn, const char *fn_n,
                                               NclSubsystem sub, int op)
{
    return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                     "%s(%s): the op has %d outputs: call %s with an array of %d out slots", fn,
                     ncl_op_name(sub, op), ncl_op_nout(sub, op), fn_n, ncl_op_nout(sub, op));
}

/* NclUnaryN, NclBinaryN and NclSortN: op in range and nout its number of outputs,
   checked before anything reads the slots. */
static NclStatus check_nout(const char *fn, NclSubsystem sub, int op, int nout)
{
    if (op < 0 || op >= ncl_op_count(sub))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: unknown op %d (valid: 0..%d)", fn, op,
                         ncl_op_count(sub) - 1);
    if (nout != ncl_op_nout(sub, op))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "%s(%s): nout is %d, the op has %d output%s (NclOpOutputs)", fn,
                         ncl_op_name(sub, op), nout, ncl_op_nout(sub, op),
                         ncl_op_nout(sub, op) > 1 ? "s" : "");
    return NCL_OK;
}

/* call_leave_out for nout slots. */
NCL_INLINE NclStatus call_leave_outs(ncl_thread_state *t, NclStatus st, NclSubsystem sub, int op,
                                     NclArray **out, NclArray *const *given, int nout)
{
    const NclStatus s = call_leave(t, st, sub, op);
    if (NCL_UNLIKELY(s != st) && out) {
        for (int k = 0; k < nout; k++) {
            if (out[k] == given[k]) continue;
            NclArrayRelease(out[k]);
            out[k] = given[k];
        }
    }
    return s;
}

/* Create reads an array only as COPY's params->src (Create's *out is never
   read). */
NCL_INLINE NclStatus check_create(const char *fn, NclCreateOp op, const NclCreateParams *p)
{
    if (op != NCL_CREATE_COPY || p == NULL ||
        p->size < offsetof(NclCreateParams, src) + sizeof p->src)
        return NCL_OK;
    if (NCL_LIKELY(ncl_array_tag_any_ok(p->src))) return NCL_OK;
    char who[64];
    snprintf(who, sizeof who, "%s(%s)", fn, ncl_op_name(NCL_SUBSYSTEM_CREATE, (int)op));
    return ncl_array_tag_check(who, "params->src", p->src);
}

NclStatus NclCreate(NclCreateOp op, const NclCreateParams *p, NclArray **out)
{
    NclArray *const given = out ? *out : NULL;
    ncl_thread_state *t = call_enter();
    NclStatus st = check_create("NclCreate", op, p);
    if (NCL_LIKELY(st == NCL_OK)) {
        NclHook *h = chain_first(NCL_SUBSYSTEM_CREATE);
        st = h->fn.create(h, op, p, out);
    }
    return call_leave_out(t, st, NCL_SUBSYSTEM_CREATE, (int)op, out, given);
}

NclStatus NclConvert(NclConvertOp op, const NclArray *a, NclArray **out, const NclParams *params)
{
    NclArray *const given = out ? *out : NULL;
    ncl_thread_state *t = call_enter();
    NclStatus st = check_arrays("NclConvert", NCL_SUBSYSTEM_CONVERT, (int)op,
                                a, NULL, NULL, out, params);
    if (NCL_LIKELY(st == NCL_OK)) {
        NclHook *h = chain_first(NCL_SUBSYSTEM_CONVERT);
        st = h->fn.convert(h, op, a, out, params);
    }
    return call_leave_out(t, st, NCL_SUBSYSTEM_CONVERT, (int)op, out, given);
}

NclStatus NclCompare(NclCompareOp op, const NclArray *a, const NclArray *b, NclArray **out,
                     const NclParams *params)
{
    NclArray *const given = out ? *out : NULL;
    ncl_thread_state *t = call_enter();
    NclStatus st = check_arrays("NclCompare", NCL_SUBSYSTEM_COMPARE, (int)op,
                                a, b, NULL, out, params);
    if (NCL_LIKELY(st == NCL_OK)) {
        NclHook *h = chain_first(NCL_SUBSYSTEM_COMPARE);
        st = h->fn.compare(h, op, a, b, out, params);
    }
    return call_leave_out(t, st, NCL_SUBSYSTEM_COMPARE, (int)op, out, given);
}

NclStatus NclIsUnary(NclIsUnaryOp op, const NclArray *a, NclArray **out, const NclParams *params)
{
    NclArray *const given = out ? *out : NULL;
    ncl_thread_state *t = call_enter();
    NclStatus st = check_arrays("NclIsUnary", NCL_SUBSYSTEM_ISUNARY, (int)op,
                                a, NULL, NULL, out, params);
    if (NCL_LIKELY(st == NCL_OK)) {
        NclHook *h = chain_first(NCL_SUBSYSTEM_ISUNARY);
        st = h->fn.isunary(h, op, a, out, params);
    }
    return call_leave_out(t, st, NCL_SUBSYSTEM_ISUNARY, (int)op, out, given);
}

NclStatus NclUnary(NclUnaryOp op, const NclArray *a, NclArray **out, const NclParams *params)
{
    NclArray *const given = out ? *out : NULL;
    ncl_thread_state *t = call_enter();
    NclStatus st = check_arrays("NclUnary", NCL_SUBSYSTEM_UNARY, (int)op,
                                a, NULL, NULL, out, params);
    if (NCL_UNLIKELY(ncl_op_nout(NCL_SUBSYSTEM_UNARY, (int)op) != 1))
        st = one_slot_refused("NclUnary", "NclUnaryN", NCL_SUBSYSTEM_UNARY, (int)op);
    if (NCL_LIKELY(st == NCL_OK)) {
        NclHook *h = chain_first(NCL_SUBSYSTEM_UNARY);
        st = h->fn.unary(h, op, a, out, params);
    }
    return call_leave_out(t, st, NCL_SUBSYSTEM_UNARY, (int)op, out, given);
}

NclStatus NclBinary(NclBinaryOp op, const NclArray *a, const NclArray *b, NclArray **out,
                    const NclParams *params)
{
    NclArray *const given = out ? *out : NULL;
    ncl_thread_state *t = call_enter();
    NclStatus st = check_arrays("NclBinary", NCL_SUBSYSTEM_BINARY, (int)op,
                                a, b, NULL, out, params);
    if (NCL_UNLIKELY(ncl_op_nout(NCL_SUBSYSTEM_BINARY, (int)op) != 1))
        st = one_slot_refused("NclBinary", "NclBinaryN", NCL_SUBSYSTEM_BINARY, (int)op);
    if (NCL_LIKELY(st == NCL_OK)) {
        NclHook *h = chain_first(NCL_SUBSYSTEM_BINARY);
        st = h->fn.binary(h, op, a, b, out, params);
    }
    return call_leave_out(t, st, NCL_SUBSYSTEM_BINARY, (int)op, out, given);
}

/* The n-output entries: the same chains, with `out` pointing to nout
   slots; op and nout are checked first, so that nothing reads a slot the
   caller does not have. */
NclStatus NclUnaryN(NclUnaryOp op, const NclArray *a, int nout, NclArray **out,
                    const NclParams *params)
{
    NclArray *given[NCL_MAX_NOUT] = {NULL};
    ncl_thread_state *t = call_enter();
    NclStatus st = check_nout("NclUnaryN", NCL_SUBSYSTEM_UNARY, (int)op, nout);
    if (st != NCL_OK) return call_leave(t, st, NCL_SUBSYSTEM_UNARY, (int)op);
    for (int k = 0; out && k < nout; k++) given[k] = out[k];
    st = check_arrays("NclUnaryN", NCL_SUBSYSTEM_UNARY, (int)op, a, NULL, NULL, out, params);
    if (st == NCL_OK) st = check_more_outs("NclUnaryN", NCL_SUBSYSTEM_UNARY, (int)op, out);
    if (NCL_LIKELY(st == NCL_OK)) {
        NclHook *h = chain_first(NCL_SUBSYSTEM_UNARY);
        st = h->fn.unary(h, op, a, out, params);
    }
    return call_leave_outs(t, st, NCL_SUBSYSTEM_UNARY, (int)op, out, given, nout);
}

NclStatus NclBinaryN(NclBinaryOp op, const NclArray *a, const NclArray *b, int nout,
                     NclArray **out, const NclParams *params)
{
    NclArray *given[NCL_MAX_NOUT] = {NULL};
    ncl_thread_state *t = call_enter();
    NclStatus st = check_nout("NclBinaryN", NCL_SUBSYSTEM_BINARY, (int)op, nout);
    if (st != NCL_OK) return call_leave(t, st, NCL_SUBSYSTEM_BINARY, (int)op);
    for (int k = 0; out && k < nout; k++) given[k] = out[k];
    st = check_arrays("NclBinaryN", NCL_SUBSYSTEM_BINARY, (int)op, a, b, NULL, out, params);
    if (st == NCL_OK) st = check_more_outs("NclBinaryN", NCL_SUBSYSTEM_BINARY, (int)op, out);
    if (NCL_LIKELY(st == NCL_OK)) {
        NclHook *h = chain_first(NCL_SUBSYSTEM_BINARY);
        st = h->fn.binary(h, op, a, b, out, params);
    }
    return call_leave_outs(t, st, NCL_SUBSYSTEM_BINARY, (int)op, out, given, nout);
}

NclStatus NclTernary(NclTernaryOp op, const NclArray *a, const NclArray *b, const NclArray *c,
                     NclArray **out, const NclParams *params)
{
    NclArray *const given = out ? *out : NULL;
    ncl_thread_state *t = call_enter();
    NclStatus st = check_arrays("NclTernary", NCL_SUBSYSTEM_TERNARY, (int)op, a, b, c, out, params);
    if (NCL_LIKELY(st == NCL_OK)) {
        NclHook *h = chain_first(NCL_SUBSYSTEM_TERNARY);
        st = h->fn.ternary(h, op, a, b, c, out, params);
    }
    return call_leave_out(t, st, NCL_SUBSYSTEM_TERNARY, (int)op, out, given);
}

NclStatus NclReduce(NclReduceOp op, const NclArray *a, NclArray **out, const NclParams *params)
{
    NclArray *const given = out ? *out : NULL;
    ncl_thread_state *t = call_enter();
    NclStatus st = check_arrays("NclReduce", NCL_SUBSYSTEM_REDUCE, (int)op,
                                a, NULL, NULL, out, params);
    if (NCL_LIKELY(st == NCL_OK)) {
        NclHook *h = chain_first(NCL_SUBSYSTEM_REDUCE);
        st = h->fn.reduce(h, op, a, out, params);
    }
    return call_leave_out(t, st, NCL_SUBSYSTEM_REDUCE, (int)op, out, given);
}

NclStatus NclSort(NclSortOp op, const NclArray *a, NclArray **out, const NclParams *params)
{
    NclArray *const given = out ? *out : NULL;
    ncl_thread_state *t = call_enter();
    NclStatus st = check_arrays("NclSort", NCL_SUBSYSTEM_SORT, (int)op, a, NULL, NULL, out, params);
    if (NCL_UNLIKELY(ncl_op_nout(NCL_SUBSYSTEM_SORT, (int)op) != 1))
        st = one_slot_refused("NclSort", "NclSortN", NCL_SUBSYSTEM_SORT, (int)op);
    if (NCL_LIKELY(st == NCL_OK)) {
        NclHook *h = chain_first(NCL_SUBSYSTEM_SORT);
        st = h->fn.sort(h, op, a, out, params);
    }
    return call_leave_out(t, st, NCL_SUBSYSTEM_SORT, (int)op, out, given);
}

NclStatus NclSortN(NclSortOp op, const NclArray *a, int nout, NclArray **out,
                   const NclParams *params)
{
    NclArray *given[NCL_MAX_NOUT] = {NULL};
    ncl_thread_state *t = call_enter();
    NclStatus st = check_nout("NclSortN", NCL_SUBSYSTEM_SORT, (int)op, nout);
    if (st != NCL_OK) return call_leave(t, st, NCL_SUBSYSTEM_SORT, (int)op);
    for (int k = 0; out && k < nout; k++) given[k] = out[k];
    st = check_arrays("NclSortN", NCL_SUBSYSTEM_SORT, (int)op, a, NULL, NULL, out, params);
    if (st == NCL_OK) st = check_more_outs("NclSortN", NCL_SUBSYSTEM_SORT, (int)op, out);
    if (NCL_LIKELY(st == NCL_OK)) {
        NclHook *h = chain_first(NCL_SUBSYSTEM_SORT);
        st = h->fn.sort(h, op, a, out, params);
    }
    return call_leave_outs(t, st, NCL_SUBSYSTEM_SORT, (int)op, out, given, nout);
}

NclStatus NclMask(NclMaskOp op, const NclArray *a, const NclArray *b, NclArray **out,
                  const NclParams *params)
{
    NclArray *const given = out ? *out : NULL;
    ncl_thread_state *t = call_enter();
    NclStatus st = check_arrays("NclMask", NCL_SUBSYSTEM_MASK, (int)op, a, b, NULL, out, params);
    if (NCL_LIKELY(st == NCL_OK)) {
        NclHook *h = chain_first(NCL_SUBSYSTEM_MASK);
        st = h->fn.mask(h, op, a, b, out, params);
    }
    return call_leave_out(t, st, NCL_SUBSYSTEM_MASK, (int)op, out, given);
}

NclStatus NclRng(NclRngOp op, NclRngGen *gen, const NclArray *a, const NclArray *b, NclArray **out,
                 const NclParams *params)
{
    NclArray *const given = out ? *out : NULL;
    ncl_thread_state *t = call_enter();
    NclStatus st = check_arrays("NclRng", NCL_SUBSYSTEM_RNG, (int)op, a, b, NULL, out, params);
    if (NCL_LIKELY(st == NCL_OK)) {
        NclHook *h = chain_first(NCL_SUBSYSTEM_RNG);
        st = h->fn.rng(h, op, gen, a, b, out, params);
    }
    return call_leave_out(t, st, NCL_SUBSYSTEM_RNG, (int)op, out, given);
}

NclStatus NclLinalg(NclLinalgOp op, const NclArray *a, const NclArray *b, NclArray **out,
                    const NclParams *params)
{
    NclArray *const given = out ? *out : NULL;
    ncl_thread_state *t = call_enter();
    NclStatus st = check_arrays("NclLinalg", NCL_SUBSYSTEM_LINALG, (int)op, a, b, NULL, out, params);
    if (NCL_LIKELY(st == NCL_OK)) {
        NclHook *h = chain_first(NCL_SUBSYSTEM_LINALG);
        st = h->fn.linalg(h, op, a, b, out, params);
    }
    return call_leave_out(t, st, NCL_SUBSYSTEM_LINALG, (int)op, out, given);
}

/* Manip takes its inputs as a list: each in[i] is checked as "in[i]", then
   *out and params->where as check_arrays checks them. A NULL list, or a
   count the list cannot have, is the default's to refuse: nothing is read
   from it here. */
static NCL_NOINLINE NclStatus bad_manip_input(const char *fn, int op, int nin,
                                              const NclArray *const *in)
{
    char who[64], what[32];
    snprintf(who, sizeof who, "%s(%s)", fn, ncl_op_name(NCL_SUBSYSTEM_MANIP, op));
    for (int i = 0; i < nin; i++) {
        snprintf(what, sizeof what, "in[%d]", i);
        NclStatus s = ncl_array_tag_check(who, what, in[i]);
        if (s != NCL_OK) return s;
    }
    return NCL_OK;
}

NCL_INLINE NclStatus check_manip(const char *fn, int op, int nin, const NclArray *const *in,
                                 NclArray **out, const NclParams *params)
{
    if (in != NULL)
        for (int i = 0; i < nin; i++)
            if (NCL_UNLIKELY(!ncl_array_tag_any_ok(in[i])))
                return bad_manip_input(fn, op, nin, in);
    return check_arrays(fn, NCL_SUBSYSTEM_MANIP, op, NULL, NULL, NULL, out, params);
}

NclStatus NclManip(NclManipOp op, int nin, const NclArray *const *in, NclArray **out,
                   const NclParams *params)
{
    NclArray *const given = out ? *out : NULL;
    ncl_thread_state *t = call_enter();
    NclStatus st = check_manip("NclManip", (int)op, nin, in, out, params);
    if (NCL_LIKELY(st == NCL_OK)) {
        NclHook *h = chain_first(NCL_SUBSYSTEM_MANIP);
        st = h->fn.manip(h, op, nin, in, out, params);
    }
    return call_leave_out(t, st, NCL_SUBSYSTEM_MANIP, (int)op, out, given);
}

/* NclInfo is in info.c: it wraps this chain around its JSON writer. */

/* ---- Next ------------------------------------------------------------------- */

/* The node after self, or NULL when self is a default (nothing follows it)
   or NULL. Acquire pairs with the release store that linked the node. */
NCL_INLINE NclHook *next_of(NclHook *self)
{
    if (NCL_UNLIKELY(self == NULL)) return NULL;
    NclListHead *n = __atomic_load_n(&self->list.next, __ATOMIC_ACQUIRE);
    if (NCL_UNLIKELY(is_head(n))) return NULL;
    return NCL_CONTAINER_OF(n, NclHook, list);
}

static NclStatus no_next(const char *who, const NclHook *self)
{
    if (self == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: self is NULL", who);
    return ncl_error(NCL_ERR_HOOK, "%s(\"%s\"): no node follows the default implementation", who,
                     ncl_hook_name(self->name));
}

NclStatus NclCreateNext(NclHook *self, NclCreateOp op, const NclCreateParams *p, NclArray **out)
{
    NclHook *h = next_of(self);
    if (NCL_UNLIKELY(h == NULL)) return no_next("NclCreateNext", self);
    NclStatus st = check_create("NclCreateNext", op, p);
    if (NCL_UNLIKELY(st != NCL_OK)) return st;
    return h->fn.create(h, op, p, out);
}

NclStatus NclConvertNext(NclHook *self, NclConvertOp op, const NclArray *a, NclArray **out,
                         const NclParams *params)
{
    NclHook *h = next_of(self);
    if (NCL_UNLIKELY(h == NULL)) return no_next("NclConvertNext", self);
    NclStatus st = check_arrays("NclConvertNext", NCL_SUBSYSTEM_CONVERT, (int)op,
                                a, NULL, NULL, out, params);
    if (NCL_UNLIKELY(st != NCL_OK)) return st;
    return h->fn.convert(h, op, a, out, params);
}

NclStatus NclCompareNext(NclHook *self, NclCompareOp op, const NclArray *a, const NclArray *b,
                         NclArray **out, const NclParams *params)
{
    NclHook *h = next_of(self);
    if (NCL_UNLIKELY(h == NULL)) return no_next("NclCompareNext", self);
    NclStatus st = check_arrays("NclCompareNext", NCL_SUBSYSTEM_COMPARE, (int)op,
                                a, b, NULL, out, params);
    if (NCL_UNLIKELY(st != NCL_OK)) return st;
    return h->fn.compare(h, op, a, b, out, params);
}

NclStatus NclIsUnaryNext(NclHook *self, NclIsUnaryOp op, const NclArray *a, NclArray **out,
                         const NclParams *params)
{
    NclHook *h = next_of(self);
    if (NCL_UNLIKELY(h == NULL)) return no_next("NclIsUnaryNext", self);
    NclStatus st = check_arrays("NclIsUnaryNext", NCL_SUBSYSTEM_ISUNARY, (int)op,
                                a, NULL, NULL, out, params);
    if (NCL_UNLIKELY(st != NCL_OK)) return st;
    return h->fn.isunary(h, op, a, out, params);
}

NclStatus NclUnaryNext(NclHook *self, NclUnaryOp op, const NclArray *a, NclArray **out,
                       const NclParams *params)
{
    NclHook *h = next_of(self);
    if (NCL_UNLIKELY(h == NULL)) return no_next("NclUnaryNext", self);
    NclStatus st = check_arrays("NclUnaryNext", NCL_SUBSYSTEM_UNARY, (int)op,
                                a, NULL, NULL, out, params);
    if (st == NCL_OK) st = check_more_outs("NclUnaryNext", NCL_SUBSYSTEM_UNARY, (int)op, out);
    if (NCL_UNLIKELY(st != NCL_OK)) return st;
    return h->fn.unary(h, op, a, out, params);
}

NclStatus NclBinaryNext(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                        NclArray **out, const NclParams *params)
{
    NclHook *h = next_of(self);
    if (NCL_UNLIKELY(h == NULL)) return no_next("NclBinaryNext", self);
    NclStatus st = check_arrays("NclBinaryNext", NCL_SUBSYSTEM_BINARY, (int)op,
                                a, b, NULL, out, params);
    if (st == NCL_OK) st = check_more_outs("NclBinaryNext", NCL_SUBSYSTEM_BINARY, (int)op, out);
    if (NCL_UNLIKELY(st != NCL_OK)) return st;
    return h->fn.binary(h, op, a, b, out, params);
}

NclStatus NclTernaryNext(NclHook *self, NclTernaryOp op, const NclArray *a, const NclArray *b,
                         const NclArray *c, NclArray **out, const NclParams *params)
{
    NclHook *h = next_of(self);
    if (NCL_UNLIKELY(h == NULL)) return no_next("NclTernaryNext", self);
    NclStatus st = check_arrays("NclTernaryNext", NCL_SUBSYSTEM_TERNARY, (int)op,
                                a, b, c, out, params);
    if (NCL_UNLIKELY(st != NCL_OK)) return st;
    return h->fn.ternary(h, op, a, b, c, out, params);
}

NclStatus NclReduceNext(NclHook *self, NclReduceOp op, const NclArray *a, NclArray **out,
                        const NclParams *params)
{
    NclHook *h = next_of(self);
    if (NCL_UNLIKELY(h == NULL)) return no_next("NclReduceNext", self);
    NclStatus st = check_arrays("NclReduceNext", NCL_SUBSYSTEM_REDUCE, (int)op,
                                a, NULL, NULL, out, params);
    if (NCL_UNLIKELY(st != NCL_OK)) return st;
    return h->fn.reduce(h, op, a, out, params);
}

NclStatus NclSortNext(NclHook *self, NclSortOp op, const NclArray *a, NclArray **out,
                      const NclParams *params)
{
    NclHook *h = next_of(self);
    if (NCL_UNLIKELY(h == NULL)) return no_next("NclSortNext", self);
    NclStatus st = check_arrays("NclSortNext", NCL_SUBSYSTEM_SORT, (int)op,
                                a, NULL, NULL, out, params);
    if (st == NCL_OK) st = check_more_outs("NclSortNext", NCL_SUBSYSTEM_SORT, (int)op, out);
    if (NCL_UNLIKELY(st != NCL_OK)) return st;
    return h->fn.sort(h, op, a, out, params);
}

NclStatus NclMaskNext(NclHook *self, NclMaskOp op, const NclArray *a, const NclArray *b,
                      NclArray **out, const NclParams *params)
{
    NclHook *h = next_of(self);
    if (NCL_UNLIKELY(h == NULL)) return no_next("NclMaskNext", self);
    NclStatus st = check_arrays("NclMaskNext", NCL_SUBSYSTEM_MASK, (int)op,
                                a, b, NULL, out, params);
    if (NCL_UNLIKELY(st != NCL_OK)) return st;
    return h->fn.mask(h, op, a, b, out, params);
}

NclStatus NclRngNext(NclHook *self, NclRngOp op, NclRngGen *gen, const NclArray *a, const NclArray *b,
                     NclArray **out, const NclParams *params)
{
    NclHook *h = next_of(self);
    if (NCL_UNLIKELY(h == NULL)) return no_next("NclRngNext", self);
    NclStatus st = check_arrays("NclRngNext", NCL_SUBSYSTEM_RNG, (int)op, a, b, NULL, out, params);
    if (NCL_UNLIKELY(st != NCL_OK)) return st;
    return h->fn.rng(h, op, gen, a, b, out, params);
}

NclStatus NclLinalgNext(NclHook *self, NclLinalgOp op, const NclArray *a, const NclArray *b,
                        NclArray **out, const NclParams *params)
{
    NclHook *h = next_of(self);
    if (NCL_UNLIKELY(h == NULL)) return no_next("NclLinalgNext", self);
    NclStatus st = check_arrays("NclLinalgNext", NCL_SUBSYSTEM_LINALG, (int)op, a, b, NULL, out,
                                params);
    if (NCL_UNLIKELY(st != NCL_OK)) return st;
    return h->fn.linalg(h, op, a, b, out, params);
}

NclStatus NclManipNext(NclHook *self, NclManipOp op, int nin, const NclArray *const *in,
                       NclArray **out, const NclParams *params)
{
    NclHook *h = next_of(self);
    if (NCL_UNLIKELY(h == NULL)) return no_next("NclManipNext", self);
    NclStatus st = check_manip("NclManipNext", (int)op, nin, in, out, params);
    if (NCL_UNLIKELY(st != NCL_OK)) return st;
    return h->fn.manip(h, op, nin, in, out, params);
}

NclStatus NclInfoNext(NclHook *self, NclInfoWriter *w)
{
    NclHook *h = next_of(self);
    if (NCL_UNLIKELY(h == NULL)) return no_next("NclInfoNext", self);
    return h->fn.info(h, w);
}

/* ---- writers ----------------------------------------------------------------- */

static pthread_mutex_t writer_lock = PTHREAD_MUTEX_INITIALIZER;

_Atomic uint64_t ncl_hooks_generation;

uint64_t NclHooksGeneration(void)
{
    return atomic_load_explicit(&ncl_hooks_generation, memory_order_acquire);
}

void ncl_hooks_lock(void) { pthread_mutex_lock(&writer_lock); }
void ncl_hooks_unlock(void) { pthread_mutex_unlock(&writer_lock); }

void ncl_rcu_synchronize(void)
{
    urcu_bp_synchronize_rcu();
    GRACE_DONE();
}

int ncl_list_contains(const NclListHead *head, const NclListHead *node)
{
    for (const NclListHead *n = head->next; n != head; n = n->next)
        if (n == node) return 1;
    return 0;
}

void ncl_node_retire(NclListHead *node, NclListHead **batch)
{
    uintptr_t state = ncl_node_state(node);
    ncl_list_unlink(node);
    ncl_node_set_state(node, (state & ~(uintptr_t)NCL_NODE_LINKED) | NCL_NODE_PENDING);
    ncl_node_priv(node)[NCL_NODE_RECLAIM_USER] = *batch;
    *batch = node;
}

void ncl_nodes_release(NclListHead *batch)
{
    while (batch) {
        NclListHead *next = ncl_node_priv(batch)[NCL_NODE_RECLAIM_USER];
        ncl_node_priv(batch)[NCL_NODE_RECLAIM_USER] = NULL;
        /* A user node becomes a fresh node again. Of a built-in node clear
           only the pending bit: it may have been linked again meanwhile
           (see ncl_hook_builtin_insert). */
        if (ncl_node_state(batch) & NCL_NODE_BUILTIN)
            __atomic_fetch_and((uintptr_t *)(void *)&ncl_node_priv(batch)[NCL_NODE_STATE],
                               ~(uintptr_t)NCL_NODE_PENDING, __ATOMIC_RELEASE);
        else
            ncl_node_set_state(batch, 0);
        batch = next;
    }
}

static const char *subsystem_text(NclSubsystem s)
{
    return (unsigned)s < (unsigned)NCL_SUBSYSTEM_COUNT ? ncl_subsystem_name(s) : "?";
}

/* NCL_ERR_INVALID_ARGUMENT for a value outside the enum, NCL_ERR_UNSUPPORTED
   for a subsystem that exists in the contract but not yet in this build. */
static NclStatus check_subsystem(const char *who, NclSubsystem s)
{
    if ((unsigned)s >= (unsigned)NCL_SUBSYSTEM_COUNT)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: subsystem %d is not an NclSubsystem", who,
                         (int)s);
    if (!ncl_subsystem_built(s))
        return ncl_error(NCL_ERR_UNSUPPORTED,
                         "%s(%s): the %s subsystem is not built into this version of NCLib", who,
                         subsystem_text(s), subsystem_text(s));
    return NCL_OK;
}

NclStatus ncl_node_check_free(const char *who, const char *sub, const NclListHead *node,
                                 const char *name)
{
    uintptr_t state = ncl_node_state(node);
    if (state & NCL_NODE_LINKED)
        return ncl_error(NCL_ERR_HOOK, "%s(%s, \"%s\"): the node is already in a chain", who, sub,
                         name);
    if (state & NCL_NODE_PENDING)
        return ncl_error(NCL_ERR_HOOK,
                         "%s(%s, \"%s\"): the node is still being removed (its grace period or "
                         "deferred reclaim has not finished)",
                         who, sub, name);
    if (state != 0)
        return ncl_error(NCL_ERR_HOOK,
                         "%s(%s, \"%s\"): the node's priv[] words are not zero; zero-initialise "
                         "the node before inserting it",
                         who, sub, name);
    return NCL_OK;
}

static NclStatus hook_at(const char *who, NclSubsystem s, NclListHead *node, int where,
                         NclListHead *anchor)
{
    NclStatus st = check_subsystem(who, s);
    if (st != NCL_OK) return st;
    const char *sub = subsystem_text(s);
    if (node == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(%s): node is NULL", who, sub);
    NclHook *h = NCL_CONTAINER_OF(node, NclHook, list);
    const char *name = ncl_hook_name(h->name);
    if (h->fn.any == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(%s, \"%s\"): the node's fn.%s is NULL",
                         who, sub, name, sub);
    if (where < NCL_HOOK_FRONT || where > NCL_HOOK_AFTER)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "%s(%s, \"%s\"): where = %d is not NCL_HOOK_FRONT, BACK, BEFORE or AFTER",
                         who, sub, name, where);
    if ((where == NCL_HOOK_BEFORE || where == NCL_HOOK_AFTER) && anchor == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(%s, \"%s\"): %s needs an anchor node",
                         who, sub, name, where == NCL_HOOK_BEFORE ? "NCL_HOOK_BEFORE" : "NCL_HOOK_AFTER");

    NclListHead *head = &ncl_hook_heads[s];
    NclListHead *def = &ncl_default_hooks[s].list;
    ncl_hooks_lock();
    st = ncl_node_check_free(who, sub, node, name);
    if (st == NCL_OK && (where == NCL_HOOK_BEFORE || where == NCL_HOOK_AFTER)) {
        if (!ncl_list_contains(head, anchor))
            st = ncl_error(NCL_ERR_HOOK, "%s(%s, \"%s\"): the anchor is not in the %s chain", who,
                           sub, name, sub);
        else if (where == NCL_HOOK_AFTER && anchor == def)
            st = ncl_error(NCL_ERR_HOOK,
                           "%s(%s, \"%s\"): nothing may follow the default implementation "
                           "(NCL_HOOK_AFTER %s)",
                           who, sub, name, ncl_default_hooks[s].name);
    }
    if (st == NCL_OK) {
        NclListHead *prev, *next;
        switch (where) {
        case NCL_HOOK_FRONT: prev = head; next = head->next; break;
        case NCL_HOOK_BACK: prev = def->prev; next = def; break;
        case NCL_HOOK_BEFORE: prev = anchor->prev; next = anchor; break;
        default: prev = anchor; next = anchor->next; break;
        }
        ncl_node_priv(node)[NCL_NODE_OWNER] = head;
        ncl_node_set_state(node, NCL_NODE_LINKED | ((uintptr_t)s << NCL_NODE_SUB_SHIFT));
        ncl_list_link(node, prev, next);
    }
    ncl_hooks_unlock();
    return st;
}

NclStatus NclApiHook(NclSubsystem s, NclListHead *node)
{
    return hook_at("NclApiHook", s, node, NCL_HOOK_FRONT, NULL);
}

NclStatus NclApiHookAt(NclSubsystem s, NclListHead *node, int where, NclListHead *anchor)
{
    return hook_at("NclApiHookAt", s, node, where, anchor);
}

/* The node's name, read through the right node type: the one the caller
   named (kernel 1 or 0), else the one the node's state records. */
static const char *node_name(const NclListHead *node, uintptr_t state, int kernel)
{
    if (kernel == 1 || (kernel < 0 && (state & NCL_NODE_KERNEL))) return ncl_hook_name(NCL_CONTAINER_OF(node, NclKernelNode, list)->name);
    return ncl_hook_name(NCL_CONTAINER_OF(node, NclHook, list)->name);
}

/* Why a node cannot be removed by a user, or NCL_OK (writer lock held).
   kernel: 1 level 2 only, 0 level 1 only, -1 either. */
static NclStatus check_removable(const char *who, const NclListHead *node, int kernel)
{
    uintptr_t state = ncl_node_state(node);
    const char *name = node_name(node, state, kernel);
    if (!(state & NCL_NODE_LINKED))
        return ncl_error(NCL_ERR_HOOK, "%s(\"%s\"): the node is not in a chain%s", who, name,
                         (state & NCL_NODE_PENDING) ? " (it is already being removed)" : "");
    if (kernel >= 0 && !!(state & NCL_NODE_KERNEL) != kernel)
        return ncl_error(NCL_ERR_HOOK, "%s(\"%s\"): the node is a %s node; remove it with %s", who,
                         name, kernel ? "level-1 (NclHook)" : "kernel (NclKernelNode)",
                         kernel ? "NclApiUnhook" : "NclKernelUnhook");
    if ((state & NCL_NODE_BUILTIN) && !(state & NCL_NODE_REMOVABLE))
        return ncl_error(NCL_ERR_HOOK, "%s(\"%s\"): the node is one of NCLib's built-in nodes%s",
                         who, name,
                         (state & NCL_NODE_KERNEL) ? "" : " (the ledger is removed with NclLedgerEnable(0))");
    const NclListHead *owner = ncl_node_priv(node)[NCL_NODE_OWNER];
    if (owner == NULL || !ncl_list_contains(owner, node))
        return ncl_error(NCL_ERR_HOOK, "%s(\"%s\"): the node's bookkeeping says it is linked but "
                         "it is not in its chain (was priv[] changed?)", who, name);
    return NCL_OK;
}

NclStatus ncl_hook_unhook(const char *who, NclListHead *node, int kernel)
{
    if (node == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: node is NULL", who);
    if (ncl_hooks_in_reader())
        return ncl_error(NCL_ERR_HOOK,
                         "%s: called from inside an NCLib call on this thread, where waiting for "
                         "the call to leave the node would wait for itself; use "
                         "NclApiUnhookDeferred",
                         who);
    NclListHead *batch = NULL;
    ncl_hooks_lock();
    NclStatus st = check_removable(who, node, kernel);
    if (st == NCL_OK) ncl_node_retire(node, &batch);
    ncl_hooks_unlock();
    if (st != NCL_OK) return st;
    ncl_rcu_synchronize();
    ncl_nodes_release(batch);
    return NCL_OK;
}

NclStatus NclApiUnhook(NclListHead *node) { return ncl_hook_unhook("NclApiUnhook", node, 0); }

/* ---- deferred removal ----------------------------------------------------------- */

typedef void (*reclaim_fn)(NclListHead *node, void *user);

/* Deferred removals queued and not yet reclaimed (hooks_fini waits for them). */
static long deferred_pending;

_Static_assert(sizeof(struct rcu_head) <= 2 * sizeof(void *),
               "struct rcu_head must fit in priv[NCL_NODE_RCU..]");
_Static_assert(NCL_NODE_RCU + 2 <= sizeof(((NclHook *)0)->priv) / sizeof(void *),
               "the deferred-removal bookkeeping must fit in priv[]");
_Static_assert(sizeof(reclaim_fn) <= sizeof(void *), "a function pointer must fit in one word");

NCL_INLINE struct rcu_head *rcu_of(NclListHead *node)
{
    return (struct rcu_head *)(void *)&ncl_node_priv(node)[NCL_NODE_RCU];
}

/* Runs on liburcu's call_rcu thread once no reader can be inside the node. */
static void deferred_reclaim(struct rcu_head *rh)
{
    GRACE_DONE();
    NclListHead *node =
        (NclListHead *)(void *)((char *)rh - NCL_NODE_PRIV_OFFSET - NCL_NODE_RCU * sizeof(void *));
    /* The acquire load pairs with the release store that marked the node
       pending, after the reclaim words were written: liburcu's queue orders
       them too, but not in a way a race detector can see. */
    (void)ncl_node_state(node);
    void **priv = ncl_node_priv(node);
    reclaim_fn fn;
    memcpy(&fn, &priv[NCL_NODE_RECLAIM], sizeof fn);
    void *user = priv[NCL_NODE_RECLAIM_USER];
    priv[NCL_NODE_RECLAIM] = NULL;
    priv[NCL_NODE_RECLAIM_USER] = NULL;
    /* The node is free for reuse before reclaim runs: reclaim may free it
       or insert it again. */
    ncl_node_set_state(node, 0);
    if (fn) fn(node, user);
    __atomic_fetch_sub(&deferred_pending, 1, __ATOMIC_RELEASE);
}

NclStatus NclApiUnhookDeferred(NclListHead *node, void (*reclaim)(NclListHead *node, void *user),
                               void *user)
{
    static const char who[] = "NclApiUnhookDeferred";
    if (node == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: node is NULL", who);
    ncl_hooks_lock();
    NclStatus st = check_removable(who, node, -1);
    if (st == NCL_OK) {
        uintptr_t state = ncl_node_state(node);
        ncl_list_unlink(node);
        void **priv = ncl_node_priv(node);
        reclaim_fn fn = reclaim;
        memcpy(&priv[NCL_NODE_RECLAIM], &fn, sizeof fn);
        priv[NCL_NODE_RECLAIM_USER] = user;
        ncl_node_set_state(node, (state & ~(uintptr_t)NCL_NODE_LINKED) | NCL_NODE_PENDING);
    }
    ncl_hooks_unlock();
    if (st != NCL_OK) return st;
    /* Allowed inside a read-side section: it only queues the node. */
    __atomic_fetch_add(&deferred_pending, 1, __ATOMIC_RELAXED);
    urcu_bp_call_rcu(rcu_of(node), deferred_reclaim);
    return NCL_OK;
}

/* ---- the library's own level-1 nodes ----------------------------------------------- */

NclStatus ncl_hook_builtin_insert(const char *who, NclSubsystem s, NclHook *node)
{
    NclStatus st = check_subsystem(who, s);
    if (st != NCL_OK) return st;
    NclListHead *n = &node->list;
    for (;;) {
        ncl_hooks_lock();
        uintptr_t state = ncl_node_state(n);
        if (state & NCL_NODE_LINKED) {
            ncl_hooks_unlock();
            return NCL_OK;
        }
        if (!(state & NCL_NODE_PENDING)) break;
        ncl_hooks_unlock();
        /* Another thread is removing it. Once a grace period has passed
           since, no reader is inside it and it can be linked again, even if
           that thread has not cleared its mark yet. */
        if (ncl_hooks_in_reader())
            return ncl_error(NCL_ERR_HOOK,
                             "%s: \"%s\" is being removed by another thread; retry outside an "
                             "NCLib call",
                             who, ncl_hook_name(node->name));
        ncl_rcu_synchronize();
        ncl_hooks_lock();
        __atomic_fetch_and((uintptr_t *)(void *)&ncl_node_priv(n)[NCL_NODE_STATE],
                           ~(uintptr_t)NCL_NODE_PENDING, __ATOMIC_RELEASE);
        ncl_hooks_unlock();
    }
    NclListHead *head = &ncl_hook_heads[s];
    ncl_node_priv(n)[NCL_NODE_OWNER] = head;
    ncl_node_set_state(n, NCL_NODE_LINKED | NCL_NODE_BUILTIN | ((uintptr_t)s << NCL_NODE_SUB_SHIFT));
    ncl_list_link(n, head, head->next);
    ncl_hooks_unlock();
    return NCL_OK;
}

NclStatus ncl_hook_builtin_remove(const char *who, NclHook *const *nodes, int n)
{
    if (ncl_hooks_in_reader())
        return ncl_error(NCL_ERR_HOOK,
                         "%s: called from inside an NCLib call on this thread, where waiting for "
                         "the call to leave the node would wait for itself",
                         who);
    NclListHead *batch = NULL;
    ncl_hooks_lock();
    for (int i = 0; i < n; i++)
        if (ncl_node_state(&nodes[i]->list) & NCL_NODE_LINKED) ncl_node_retire(&nodes[i]->list, &batch);
    ncl_hooks_unlock();
    if (batch == NULL) return NCL_OK;
    ncl_rcu_synchronize();
    ncl_nodes_release(batch);
    return NCL_OK;
}

/* ---- reset and walk ------------------------------------------------------------------- */

NclStatus NclHooksReset(void)
{
    if (ncl_hooks_in_reader())
        return ncl_error(NCL_ERR_HOOK,
                         "NclHooksReset: called from inside an NCLib call on this thread, where "
                         "waiting for calls to leave the removed nodes would wait for itself");
    NclListHead *batch = NULL;
    ncl_hooks_lock();
    for (int s = 0; s < NCL_SUBSYSTEM_COUNT; s++) {
        if (!ncl_subsystem_built((NclSubsystem)s)) continue;
        NclListHead *head = &ncl_hook_heads[s];
        for (NclListHead *n = head->next, *next; n != head; n = next) {
            next = n->next;
            if (!(ncl_node_state(n) & NCL_NODE_BUILTIN)) ncl_node_retire(n, &batch);
        }
    }
    ncl_kernel_retire_user_hooks(&batch);
    /* The threader comes back, just in front of the default, where a user
       removed it (not while its removal is still pending). */
    for (int s = 0; s < NCL_SUBSYSTEM_COUNT; s++) {
        if (!ncl_subsystem_built((NclSubsystem)s)) continue;
        NclListHead *n = &ncl_threader_hooks[s].list;
        if (ncl_node_state(n) & (NCL_NODE_LINKED | NCL_NODE_PENDING)) continue;
        NclListHead *def = &ncl_default_hooks[s].list;
        ncl_node_priv(n)[NCL_NODE_OWNER] = &ncl_hook_heads[s];
        ncl_node_set_state(n, NCL_NODE_LINKED | NCL_NODE_BUILTIN | NCL_NODE_REMOVABLE |
                                  ((uintptr_t)s << NCL_NODE_SUB_SHIFT));
        ncl_list_link(n, def->prev, def);
    }
    ncl_hooks_unlock();
    if (batch == NULL) return NCL_OK;
    ncl_rcu_synchronize();
    ncl_nodes_release(batch);
    return NCL_OK;
}

NclStatus NclHooksWalk(NclSubsystem s,
                       int (*visit)(const NclListHead *node, const char *name, void *user),
                       void *user)
{
    NclStatus st = check_subsystem("NclHooksWalk", s);
    if (st != NCL_OK) return st;
    if (visit == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclHooksWalk(%s): visit is NULL",
                         subsystem_text(s));
    NclListHead *head = &ncl_hook_heads[s];
    ncl_hooks_read_enter();
    for (NclListHead *n = __atomic_load_n(&head->next, __ATOMIC_ACQUIRE); n != head;
         n = __atomic_load_n(&n->next, __ATOMIC_ACQUIRE)) {
        const NclHook *h = NCL_CONTAINER_OF(n, NclHook, list);
        if (visit(n, ncl_hook_name(h->name), user)) break;
    }
    ncl_hooks_read_leave();
    return NCL_OK;
}

/* ---- unloading ------------------------------------------------------------------------- */

/* Deferred reclaims still queued on liburcu's call_rcu thread would run
   deferred_reclaim after this library's code is unmapped: wait for them
   (api/unload.c), not from inside a call (the grace period would wait for
   this thread). */
void ncl_hooks_unload(void)
{
    if (ncl_hooks_in_reader()) return;
#ifdef NCL_TSAN_RCU
    /* urcu_bp_barrier's own bookkeeping is more than TSan can follow
       through an uninstrumented liburcu (it reports the barrier's block
       freed on the call_rcu thread), so TSan builds wait on NCLib's own
       count of queued reclaims instead: the acquire load pairs with the
       release decrement that ends deferred_reclaim. Only the return from
       it is then left to race with the unmapping, which one more
       millisecond covers in these test builds. */
    const struct timespec tick = { 0, 100000 }, grace = { 0, 1000000 };
    if (__atomic_load_n(&deferred_pending, __ATOMIC_ACQUIRE) == 0) return;
    while (__atomic_load_n(&deferred_pending, __ATOMIC_ACQUIRE) != 0) nanosleep(&tick, NULL);
    nanosleep(&grace, NULL);
#else
    urcu_bp_barrier();
#endif
}
