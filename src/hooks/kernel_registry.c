/*
 * kernel_registry.c: the level-2 hook chains, one per (subsystem, op, dtype
 * signature) of inner-loop kernels, built once from the built-in kernel
 * tables (NCL_KERNEL_TABLE_LIST) on first use, and the public functions that
 * hook, unhook and chain kernel nodes.
 *
 * The chains live in one open-addressing hash table keyed by a 64-bit
 * packing of subsystem, op, operand count and dtypes. The set of keys is
 * fixed when the table is built (only signatures NCLib has a kernel for can
 * be hooked), so lookups need no lock and no atomics beyond the acquire load
 * of the table pointer; user hooks only add nodes to existing chains, under
 * the writer lock of hooks.c. The table and the built-in nodes are allocated
 * once and never freed.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "hooks/hook_chain.h"
#include "runtime/cpu.h"
#include "ncl_kernel.h"

typedef struct registry {
    ncl_kchain *slots;
    size_t mask;               /* slot count - 1 (a power of two) */
    NclKernelNode *builtins;
    size_t nbuiltins;
} registry;

static registry *the_registry;  /* published with a release store once built */
static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;

/* Every variant's tables, by ncl_isa (kernels/ncl_tables.c); the registry
   is built from the chosen variant's (runtime/cpu.h). A level this build
   lacks has no tables: its reference is weak, so the address is null (the
   chosen level is always built). */
#define NCL_X_(E, n, needs)                                                      \
    extern const ncl_kernel_table ncl_k_tables_##n[NCL_KERNEL_TABLE_COUNT]     \
        NCL_ISA_WEAK_UNLESS_BUILT(E);
NCL_ISA_LEVEL_LIST(NCL_X_)
#undef NCL_X_

static const ncl_kernel_table *const variant_tables[NCL_ISA_COUNT] = {
    [NCL_ISA_BASELINE] = ncl_k_tables,
#define NCL_X_(E, n, needs) [NCL_ISA_##E] = ncl_k_tables_##n,
    NCL_ISA_LEVEL_LIST(NCL_X_)
#undef NCL_X_
};

/* ---- keys ---------------------------------------------------------------------- */

#define KEY_MAX_ARGS 4

/* subsystem (8 bits) | op (16) | nargs (8) | one byte per dtype. Never 0:
   nargs >= 1. Returns 0 for what no kernel can have. */
static uint64_t make_key(int s, int op, const int *sig, int nargs)
{
    if ((unsigned)s >= (unsigned)NCL_SUBSYSTEM_COUNT || (unsigned)op > 0xffffu ||
        nargs < 1 || nargs > KEY_MAX_ARGS)
        return 0;
    uint64_t key = (uint64_t)s | (uint64_t)op << 8 | (uint64_t)nargs << 24;
    for (int i = 0; i < nargs; i++) {
        if (!ncl_dtype_valid((NclDType)sig[i])) return 0;
        key |= (uint64_t)sig[i] << (32 + 8 * i);
    }
    return key;
}

NCL_INLINE size_t key_hash(uint64_t key, size_t mask)
{
    /* Fibonacci hashing: the multiply spreads the dtype bytes into the high
       bits, which the shift keeps. */
    return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & mask;
}

static ncl_kchain *find_slot(const registry *r, uint64_t key)
{
    for (size_t i = key_hash(key, r->mask);; i = (i + 1) & r->mask) {
        ncl_kchain *c = &r->slots[i];
        if (c->key == key) return c;
        if (c->key == 0) return NULL;
    }
}

/* ---- building -------------------------------------------------------------------- */

static int entry_valid(const ncl_kernel_entry *e)
{
    if (e->fn == NULL || e->nargs < 1 || e->nargs > KEY_MAX_ARGS) return 0;
    for (int i = 0; i < e->nargs; i++)
        if (!ncl_dtype_valid((NclDType)e->sig[i])) return 0;
    return 1;
}

static uint64_t entry_key(const ncl_kernel_entry *e)
{
    int sig[KEY_MAX_ARGS] = { 0 };
    for (int i = 0; i < e->nargs; i++) sig[i] = e->sig[i];
    return make_key(e->subsystem, e->op, sig, e->nargs);
}

/* Builds the registry; NULL when memory runs out (the next call retries).
   A malformed table entry is a library bug: it is skipped rather than
   allowed to corrupt a chain. */
static registry *build(void)
{
    const ncl_kernel_table *tables = variant_tables[ncl_isa_selected()];
    size_t total = 0;
    for (size_t t = 0; t < NCL_KERNEL_TABLE_COUNT; t++) total += *tables[t].count;
    size_t nslots = 16;
    while (nslots < 2 * total) nslots *= 2;  /* load factor <= 1/2: short probes */

    registry *r = calloc(1, sizeof *r);
    ncl_kchain *slots = calloc(nslots, sizeof *slots);
    NclKernelNode *nodes = calloc(total ? total : 1, sizeof *nodes);
    if (r == NULL || slots == NULL || nodes == NULL) {
        free(r);
        free(slots);
        free(nodes);
        return NULL;
    }
    r->slots = slots;
    r->mask = nslots - 1;
    r->builtins = nodes;

    size_t used = 0;
    for (size_t t = 0; t < NCL_KERNEL_TABLE_COUNT; t++) {
        for (size_t i = 0; i < *tables[t].count; i++) {
            const ncl_kernel_entry *e = &tables[t].entries[i];
            if (!entry_valid(e)) continue;
            uint64_t key = entry_key(e);
            if (key == 0) continue;
            size_t j = key_hash(key, r->mask);
            while (slots[j].key != 0 && slots[j].key != key) j = (j + 1) & r->mask;
            ncl_kchain *c = &slots[j];
            if (c->key == 0) {
                c->key = key;
                c->head.next = c->head.prev = &c->head;
                c->builtin_name = e->name;
            }
            /* Appended at the tail: with several built-ins for one key the
               first listed runs and the others are reachable by Next. */
            NclKernelNode *k = &nodes[used++];
            if (c->builtin == NULL) c->builtin = k;
            k->fn = e->fn;
            k->name = e->name;
            ncl_node_priv(&k->list)[NCL_NODE_OWNER] = &c->head;
            ncl_node_priv(&k->list)[NCL_NODE_STATE] = NCL_NODE_STATE_INIT(
                NCL_NODE_LINKED | NCL_NODE_BUILTIN | NCL_NODE_KERNEL, (uintptr_t)e->subsystem);
            ncl_list_link(&k->list, c->head.prev, &c->head);
        }
    }
    r->nbuiltins = used;
    return r;
}

static registry *get_registry(void)
{
    registry *r = __atomic_load_n(&the_registry, __ATOMIC_ACQUIRE);
    if (NCL_LIKELY(r != NULL)) return r;
    pthread_mutex_lock(&build_lock);
    r = the_registry;
    if (r == NULL) {
        ncl_unload_track();
        r = build();
        if (r != NULL) __atomic_store_n(&the_registry, r, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&build_lock);
    return r;
}

/* dlclose (api/unload.c): the chains and built-in nodes go with the library.
   User kernel nodes are the user's memory and are only unlinked with it. */
void ncl_kernels_unload(void)
{
    registry *r = __atomic_exchange_n(&the_registry, NULL, __ATOMIC_ACQ_REL);
    if (r == NULL) return;
    free(r->slots);
    free(r->builtins);
    free(r);
}

/* ---- lookups (lock-free) --------------------------------------------------------- */

ncl_kchain *ncl_kernel_chain(NclSubsystem s, int op, const NclDType *sig, int nargs)
{
    registry *r = get_registry();
    if (NCL_UNLIKELY(r == NULL || sig == NULL)) return NULL;
    int isig[KEY_MAX_ARGS] = { 0 };
    for (int i = 0; i < nargs && i < KEY_MAX_ARGS; i++) isig[i] = (int)sig[i];
    uint64_t key = make_key((int)s, op, isig, nargs);
    return key ? find_slot(r, key) : NULL;
}

const char *ncl_kernel_builtin_name(ncl_kchain *c) { return c ? c->builtin_name : NULL; }

/* Whether n is a chain head (inside the slot array) rather than a node. */
NCL_INLINE int is_chain_head(const registry *r, const NclListHead *n)
{
    return (uintptr_t)n - (uintptr_t)r->slots < (r->mask + 1) * sizeof(ncl_kchain);
}

NclStatus NclKernelNext(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args, int64_t n,
                        const int64_t *steps)
{
    if (NCL_UNLIKELY(self == NULL))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclKernelNext: self is NULL");
    NclListHead *next = __atomic_load_n(&self->list.next, __ATOMIC_ACQUIRE);
    /* A node reachable by a call exists only once the registry does. */
    const registry *r = __atomic_load_n(&the_registry, __ATOMIC_ACQUIRE);
    if (NCL_UNLIKELY(r == NULL || next == NULL || is_chain_head(r, next)))
        return ncl_error(NCL_ERR_HOOK, "NclKernelNext(\"%s\"): no kernel follows this node",
                         ncl_hook_name(self->name));
    NclKernelNode *k = NCL_CONTAINER_OF(next, NclKernelNode, list);
    return k->fn(k, ctx, args, n, steps);
}

/* ---- hooking ------------------------------------------------------------------------ */

/* Operands of a kernel of subsystem s and op (inputs then outputs), 0
   where s has no kernels, -1 where op is not one of s's kernel ops. RNG
   kernels take their distribution's parameters and the output, and their
   op names the bit generator too (NCL_RNG_KERNEL_OP). */
static int kernel_nargs(NclSubsystem s, int op)
{
    if (s == NCL_SUBSYSTEM_RNG) {
        const int rop = op / 256, gen = op % 256;
        if (op < 0 || rop >= NCL_RNG_NOPS || gen >= NCL_BITGEN_COUNT) return -1;
        return ncl_rng_op_nparams(rop) + 1;
    }
    if (op < 0 || op >= ncl_op_count(s)) return -1;
    switch (s) {
    case NCL_SUBSYSTEM_BINARY: return 2 + ncl_op_nout(s, op);
    case NCL_SUBSYSTEM_COMPARE: return 3;
    case NCL_SUBSYSTEM_UNARY: return 1 + ncl_op_nout(s, op);
    case NCL_SUBSYSTEM_ISUNARY: return 2;
    case NCL_SUBSYSTEM_CONVERT: return 2;
    case NCL_SUBSYSTEM_TERNARY: return 4;
    case NCL_SUBSYSTEM_MASK: return 2;
    case NCL_SUBSYSTEM_SORT: return 2;
    case NCL_SUBSYSTEM_REDUCE: return 2;
    case NCL_SUBSYSTEM_LINALG: return 3;
    default: return 0;
    }
}

/* The name of kernel op op of s for messages: "normal/PCG64" for RNG. */
static const char *kernel_op_name(NclSubsystem s, int op, char *buf, size_t cap)
{
    if (s != NCL_SUBSYSTEM_RNG) return ncl_op_name(s, op);
    snprintf(buf, cap, "%s/%s", ncl_op_name(s, op / 256), ncl_bitgen_name(op % 256));
    return buf;
}

/* "(int8, int8, float32)" for messages; invalid dtypes print their number. */
static const char *sig_text(char *buf, size_t cap, const NclDType *sig, int nargs)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < nargs && len < cap; i++) {
        int w = ncl_dtype_valid(sig[i])
                    ? snprintf(buf + len, cap - len, "%s%s", i ? ", " : "(", NclDTypeName(sig[i]))
                    : snprintf(buf + len, cap - len, "%s%d", i ? ", " : "(", (int)sig[i]);
        if (w < 0) break;
        len += (size_t)w;
    }
    if (len < cap) snprintf(buf + len, cap - len, ")");
    return buf;
}

NclStatus ncl_kernel_chain_find(const char *who, NclSubsystem s, int op, const NclDType *sig,
                                ncl_kchain **out, int *nargs_out)
{
    if ((unsigned)s >= (unsigned)NCL_SUBSYSTEM_COUNT)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: subsystem %d is not an NclSubsystem", who,
                         (int)s);
    const char *sub = ncl_subsystem_name(s);
    int nargs = kernel_nargs(s, op);
    if (nargs == 0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(%s): the %s subsystem has no kernel chains",
                         who, sub, sub);
    if (nargs < 0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(%s): op %d is not a %s kernel op", who, sub,
                         op, sub);
    char opbuf[64];
    const char *opname = kernel_op_name(s, op, opbuf, sizeof opbuf);
    if (sig == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(%s, %s): signature is NULL", who, sub, opname);
    char sigbuf[128];
    for (int i = 0; i < nargs; i++)
        if (!ncl_dtype_valid(sig[i]))
            return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                             "%s(%s, %s, %s): signature[%d] = %d is not a dtype", who, sub, opname,
                             sig_text(sigbuf, sizeof sigbuf, sig, nargs), i, (int)sig[i]);
    if (get_registry() == NULL)
        return ncl_error(NCL_ERR_NO_MEMORY, "%s(%s, %s, %s): out of memory building the kernel "
                         "registry", who, sub, opname, sig_text(sigbuf, sizeof sigbuf, sig, nargs));
    ncl_kchain *c = ncl_kernel_chain(s, op, sig, nargs);
    if (c == NULL)
        return ncl_error(NCL_ERR_DTYPE, "%s(%s, %s, %s): NCLib has no %s kernel for this signature",
                         who, sub, opname, sig_text(sigbuf, sizeof sigbuf, sig, nargs), opname);
    *out = c;
    *nargs_out = nargs;
    return NCL_OK;
}

NclStatus NclKernelHook(NclSubsystem s, int subfunction, const NclDType *signature, NclListHead *node)
{
    static const char who[] = "NclKernelHook";
    ncl_kchain *c;
    int nargs;
    NclStatus st = ncl_kernel_chain_find(who, s, subfunction, signature, &c, &nargs);
    if (st != NCL_OK) return st;
    char opbuf[64];
    const char *sub = ncl_subsystem_name(s);
    const char *opname = kernel_op_name(s, subfunction, opbuf, sizeof opbuf);
    char sigbuf[128];
    sig_text(sigbuf, sizeof sigbuf, signature, nargs);
    if (node == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(%s, %s, %s): node is NULL", who, sub, opname,
                         sigbuf);
    NclKernelNode *k = NCL_CONTAINER_OF(node, NclKernelNode, list);
    const char *name = ncl_hook_name(k->name);
    if (k->fn == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(%s, %s, %s, \"%s\"): the node's fn is NULL",
                         who, sub, opname, sigbuf, name);

    char what[192];
    snprintf(what, sizeof what, "%s, %s, %s", sub, opname, sigbuf);
    ncl_hooks_lock();
    st = ncl_node_check_free(who, what, node, name);
    if (st == NCL_OK) {
        ncl_node_priv(node)[NCL_NODE_OWNER] = &c->head;
        ncl_node_set_state(node, NCL_NODE_LINKED | NCL_NODE_KERNEL | ((uintptr_t)s << NCL_NODE_SUB_SHIFT));
        ncl_list_link(node, &c->head, c->head.next);
    }
    ncl_hooks_unlock();
    return st;
}

NclStatus NclKernelHooked(NclSubsystem s, int subfunction, const NclDType *signature, int *hooked)
{
    static const char who[] = "NclKernelHooked";
    if (hooked == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: hooked is NULL", who);
    *hooked = 0;
    ncl_kchain *c;
    int nargs;
    NclStatus st = ncl_kernel_chain_find(who, s, subfunction, signature, &c, &nargs);
    if (st == NCL_OK) *hooked = !ncl_kernel_unhooked(c);
    return st;
}

NclStatus NclKernelUnhook(NclListHead *node) { return ncl_hook_unhook("NclKernelUnhook", node, 1); }

/* ---- for hooks.c and info.c ------------------------------------------------------------ */

void ncl_kernel_retire_user_hooks(NclListHead **batch)
{
    const registry *r = __atomic_load_n(&the_registry, __ATOMIC_ACQUIRE);
    if (r == NULL) return;  /* no chain exists, so no user hook either */
    for (size_t i = 0; i <= r->mask; i++) {
        ncl_kchain *c = &r->slots[i];
        if (c->key == 0) continue;
        for (NclListHead *n = c->head.next, *next; n != &c->head; n = next) {
            next = n->next;
            if (!(ncl_node_state(n) & NCL_NODE_BUILTIN)) ncl_node_retire(n, batch);
        }
    }
}

int ncl_kernel_foreach_hooked(int (*visit)(NclSubsystem s, int op, const NclDType *sig, int nargs,
                                           const NclListHead *head, void *user),
                              void *user)
{
    const registry *r = __atomic_load_n(&the_registry, __ATOMIC_ACQUIRE);
    if (r == NULL) return 0;
    for (size_t i = 0; i <= r->mask; i++) {
        const ncl_kchain *c = &r->slots[i];
        if (c->key == 0) continue;
        /* User hooks are always in front of the built-ins. */
        const NclListHead *first = __atomic_load_n(&c->head.next, __ATOMIC_ACQUIRE);
        if (ncl_node_state(first) & NCL_NODE_BUILTIN) continue;
        int nargs = (int)(c->key >> 24 & 0xff);
        NclDType sig[KEY_MAX_ARGS];
        for (int j = 0; j < nargs; j++) sig[j] = (NclDType)(c->key >> (32 + 8 * j) & 0xff);
        int rc = visit((NclSubsystem)(c->key & 0xff), (int)(c->key >> 8 & 0xffff), sig, nargs,
                       &c->head, user);
        if (rc) return rc;
    }
    return 0;
}
