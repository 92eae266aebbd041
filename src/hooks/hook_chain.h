/*
 * hook_chain.h: what the hook files (hooks.c, kernel_registry.c, ledger.c)
 * and the walkers of the chains (defaults/info.c, api/) share beyond
 * ncl_hooks.h: the one writer lock of both
 * levels of chains, the bookkeeping every node keeps in its priv[] words,
 * list surgery in publication order, and the internal insertion and removal
 * of the library's own hooks (the ledger, the threader).
 *
 * Readers never take a lock: they load next pointers with acquire order
 * inside an RCU read-side section. Writers hold the writer lock while they
 * change links and never while they wait for a grace period (a reader that
 * inserts a hook from inside a call would otherwise wait on a writer that
 * waits on that reader).
 */
#ifndef NCL_HOOK_CHAIN_H
#define NCL_HOOK_CHAIN_H

#include <stddef.h>
#include <stdint.h>
#include "hooks/ncl_hooks.h"

/* The subsystems that have a level-1 chain in this build:
   X(enum suffix, NclHook fn member). A new subsystem is added here, with its
   ncl_default_<member> and its entry point in hooks.c. */
#define NCL_BUILT_SUBSYSTEMS(X) \
    X(INFO, info)               \
    X(CREATE, create)           \
    X(CONVERT, convert)         \
    X(COMPARE, compare)         \
    X(UNARY, unary)             \
    X(BINARY, binary)           \
    X(ISUNARY, isunary)         \
    X(TERNARY, ternary)         \
    X(REDUCE, reduce)           \
    X(SORT, sort)               \
    X(MASK, mask)               \
    X(RNG, rng)                 \
    X(LINALG, linalg)           \
    X(MANIP, manip)

/* params->where, when params reaches that far (a shorter struct is the
   default's to refuse): the entry points' tag check (hooks.c) and the
   defaults' guard against external arrays (api/chains.c) read it alike. */
NCL_INLINE const NclArray *ncl_params_where(const NclParams *params)
{
    if (params == NULL ||
        params->size < offsetof(NclParams, where) + sizeof params->where)
        return NULL;
    return params->where;
}

/* ---- node bookkeeping in priv[] ------------------------------------------- */

/* Both node types keep priv[] at the same distance from their list member,
   so the bookkeeping (and NclApiUnhookDeferred) serves either level. */
#define NCL_NODE_PRIV_OFFSET (offsetof(NclHook, priv) - offsetof(NclHook, list))
_Static_assert(offsetof(NclHook, priv) - offsetof(NclHook, list) ==
                   offsetof(NclKernelNode, priv) - offsetof(NclKernelNode, list),
               "NclHook and NclKernelNode must keep priv[] at the same offset");

/* Words of priv[]. STATE is accessed atomically (a deferred reclaim clears
   it on the call_rcu thread); the others only under the writer lock or by
   the one party that owns a retired node. */
enum {
    NCL_NODE_STATE = 0,       /* NCL_NODE_* bits | subsystem << NCL_NODE_SUB_SHIFT */
    NCL_NODE_OWNER = 1,       /* NclListHead * of the chain the node is in */
    NCL_NODE_RECLAIM = 2,     /* deferred: the user's reclaim function (its bytes) */
    NCL_NODE_RECLAIM_USER = 3,/* deferred: its user pointer; batch: next retired node */
    NCL_NODE_RCU = 4          /* deferred: struct rcu_head, two words */
};

enum {
    NCL_NODE_LINKED = 1,   /* in a chain */
    NCL_NODE_PENDING = 2,  /* unlinked; a grace period has not yet passed */
    NCL_NODE_BUILTIN = 4,  /* the library's own: users cannot unhook it */
    NCL_NODE_KERNEL = 8,   /* an NclKernelNode (level 2) */
    NCL_NODE_REMOVABLE = 16, /* a built-in node users may unhook (the threader);
                                NclHooksReset links it again */
    NCL_NODE_SUB_SHIFT = 8
};

NCL_INLINE void **ncl_node_priv(const NclListHead *n)
{
    return (void **)(void *)((char *)(uintptr_t)n + NCL_NODE_PRIV_OFFSET);
}

NCL_INLINE uintptr_t ncl_node_state(const NclListHead *n)
{
    return (uintptr_t)__atomic_load_n(&ncl_node_priv(n)[NCL_NODE_STATE], __ATOMIC_ACQUIRE);
}

NCL_INLINE void ncl_node_set_state(NclListHead *n, uintptr_t state)
{
    __atomic_store_n(&ncl_node_priv(n)[NCL_NODE_STATE], (void *)state, __ATOMIC_RELEASE);
}

/* A state word as a constant initializer for the library's static nodes. */
#define NCL_NODE_STATE_INIT(bits, sub) ((void *)(uintptr_t)((bits) | ((sub) << NCL_NODE_SUB_SHIFT)))

NCL_INLINE NclSubsystem ncl_node_subsystem(uintptr_t state)
{
    return (NclSubsystem)((state >> NCL_NODE_SUB_SHIFT) & 0xff);
}

/* A node's name for messages: user names may be NULL. */
NCL_INLINE const char *ncl_hook_name(const char *name) { return name ? name : "(unnamed)"; }

/* ---- list surgery (writer lock held) -------------------------------------- */

/* Counts every link and unlink of either level (NclHooksGeneration); bumped
   after the change is visible, so a reader that sees the new count sees
   the changed chain. */
extern _Atomic uint64_t ncl_hooks_generation;

/* Links node between prev and next. The node is complete before the release
   store that makes it reachable, so a reader sees the chain with or without
   it, never a half-made node. */
NCL_INLINE void ncl_list_link(NclListHead *node, NclListHead *prev, NclListHead *next)
{
    __atomic_store_n(&node->next, next, __ATOMIC_RELAXED);
    node->prev = prev;
    next->prev = node;
    __atomic_store_n(&prev->next, node, __ATOMIC_RELEASE);
    atomic_fetch_add_explicit(&ncl_hooks_generation, 1, memory_order_release);
}

/* Unlinks node. Its own next pointer is kept: a reader still inside the node
   goes on to the rest of the chain. */
NCL_INLINE void ncl_list_unlink(NclListHead *node)
{
    NclListHead *prev = node->prev, *next = node->next;
    __atomic_store_n(&prev->next, next, __ATOMIC_RELEASE);
    next->prev = prev;
    atomic_fetch_add_explicit(&ncl_hooks_generation, 1, memory_order_release);
}

/* Whether node is in the chain of head (a walk: writers only, chains are short). */
int ncl_list_contains(const NclListHead *head, const NclListHead *node);

/* ---- writers (hooks.c) ----------------------------------------------------- */

void ncl_hooks_lock(void);
void ncl_hooks_unlock(void);

/* Whether this thread is inside a call or a hook walk, where waiting for a
   grace period would wait for itself. */
int ncl_hooks_in_reader(void);

/* Why node cannot be inserted (already linked, being removed, priv[] not
   zero), or NCL_OK; writer lock held. what and name are for the message. */
NclStatus ncl_node_check_free(const char *who, const char *what, const NclListHead *node,
                              const char *name);
/* Unlinks a linked node, marks it pending and pushes it on *batch (writer
   lock held). */
void ncl_node_retire(NclListHead *node, NclListHead **batch);
/* After a grace period: clears the pending mark of every node on batch. */
void ncl_nodes_release(NclListHead *batch);
/* Waits until every read-side section that had begun has ended. */
void ncl_rcu_synchronize(void);

/* Validates and removes a user node of either level, then waits for a grace
   period (NclApiUnhook, NclKernelUnhook). */
NclStatus ncl_hook_unhook(const char *who, NclListHead *node, int kernel);

/* Inserts the library's own level-1 node at the front of s's chain, or
   leaves it where it is when it is already linked (NclLedgerEnable(1)). */
NclStatus ncl_hook_builtin_insert(const char *who, NclSubsystem s, NclHook *node);
/* Removes the library's own level-1 nodes (those linked) with one grace
   period; NCL_ERR_HOOK from inside a call. */
NclStatus ncl_hook_builtin_remove(const char *who, NclHook *const *nodes, int n);

/* The threader's node in s's chain (every built subsystem has one), and
   whether n is one of the threader's nodes. */
NclHook *ncl_threader_node(NclSubsystem s);
int ncl_is_threader(const NclListHead *n);

/* Whether subsystem s has a level-1 chain in this build. */
int ncl_subsystem_built(NclSubsystem s);

/* Read-side sections for walks outside a call (NclHooksWalk, info). */
void ncl_hooks_read_enter(void);
void ncl_hooks_read_leave(void);

/* Level-1 chain heads, indexed by subsystem ({NULL, NULL} where not built). */
extern NclListHead ncl_hook_heads[NCL_SUBSYSTEM_COUNT];
/* The threader node of each chain (hooks.c) and its built-in default, the
   last node, defined where the library is put together (api/chains.c). */
extern NclHook ncl_threader_hooks[NCL_SUBSYSTEM_COUNT];
extern NclHook ncl_default_hooks[NCL_SUBSYSTEM_COUNT];

/* ---- level 2 (kernel_registry.c) ------------------------------------------- */

/* Retires every user node of every kernel chain onto *batch (writer lock
   held). */
void ncl_kernel_retire_user_hooks(NclListHead **batch);
/* Calls visit for each kernel chain whose front node is a user hook
   (inside a read-side section); stops when visit returns non-zero. */
int ncl_kernel_foreach_hooked(int (*visit)(NclSubsystem s, int op, const NclDType *sig, int nargs,
                                           const NclListHead *head, void *user),
                              void *user);

#endif /* NCL_HOOK_CHAIN_H */
