/*
 * test_stress.c: the hook chains under concurrent rewiring, and the
 * per-thread state that must stay per thread.
 *
 * Chains: caller threads call through every level-1 chain (and, below them,
 * several level-2 chains) while a mutator thread inserts nodes at the front,
 * the back, before and after other nodes, removes them (waiting, and
 * deferred), resets every chain, and asks nodes to remove themselves from
 * inside a call. What is checked:
 *   - no call is lost or run twice: each call's result is checked, and the
 *     in-place ops (x += 1, x = -x) would show a default that ran zero or
 *     two times; every level-1 node counts its runs in a per-call record of
 *     the calling thread and must run at most once per call;
 *   - a removed node is never entered after its grace period: once
 *     NclApiUnhook / NclKernelUnhook / NclHooksReset returns (or the deferred
 *     reclaim runs), the node is poisoned (a byte pattern over its links and
 *     a trap function) and a call that reached it would be counted;
 *   - every deferred removal is reclaimed exactly once.
 * Per-thread state: threads with their own current allocator handler
 * allocate only from it, and threads with their own FP error modes see only
 * their own modes and flags.
 *
 * The iteration counts are printed to stdout; the suite is meant to pass in
 * release, ASan and TSan builds (the "threads" label).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include "ncl_test.h"

#define NCALLERS 3
#define CALLER_ROUNDS 4000  /* each round calls every subsystem once */
/* Callers go on past CALLER_ROUNDS (up to this many) until the mutator has
   done enough of each kind of change: on an idle machine the callers would
   otherwise finish while the mutator still waits for its first grace
   periods. */
#define CALLER_ROUNDS_MAX (50 * CALLER_ROUNDS)
#define MUTATOR_ENOUGH_ROUNDS 300
#define NODES_PER_CHAIN 4
#define NKCHAINS 4
#define NODES_PER_KCHAIN 2
#define VEC 16

static void sleep_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };
    nanosleep(&ts, NULL);
}

/* ---- the per-call record of a calling thread ------------------------------------ */

/* The level-1 chains the callers go through, one call each per round. */
static const NclSubsystem chains[] = {
    NCL_SUBSYSTEM_INFO,    NCL_SUBSYSTEM_CREATE,  NCL_SUBSYSTEM_CONVERT, NCL_SUBSYSTEM_COMPARE,
    NCL_SUBSYSTEM_ISUNARY, NCL_SUBSYSTEM_UNARY,   NCL_SUBSYSTEM_BINARY,  NCL_SUBSYSTEM_TERNARY,
    NCL_SUBSYSTEM_REDUCE,  NCL_SUBSYSTEM_SORT,    NCL_SUBSYSTEM_MASK,
};
#define NCHAINS ((int)(sizeof chains / sizeof chains[0]))
#define NL1 (NCHAINS * NODES_PER_CHAIN)
#define NL2 (NKCHAINS * NODES_PER_KCHAIN)

/* Which call this thread is in and how often each node ran in it. */
typedef struct call_record {
    uint64_t token;       /* the call's number on this thread; 0 outside calls */
    uint64_t seen[NL1];   /* the token each node last ran under */
    int twice;            /* a node ran twice under one token */
} call_record;

static _Thread_local call_record rec;

/* ---- nodes and their life cycle ---------------------------------------------------- */

enum {
    N_FREE = 0,    /* zeroed or poisoned, owned by the mutator */
    N_LINKED,      /* in its chain */
    N_SELF,        /* in its chain and asked to remove itself on its next call */
    N_PENDING      /* unlinked, deferred reclaim not yet run */
};

typedef struct l1_node {
    NclHook hook;
    int id;                  /* index in l1 */
    NclSubsystem sub;
    int state;               /* N_*: the mutator's view */
    atomic_int remove_me;    /* set by the mutator, taken by the hook */
    atomic_int reclaimed;    /* set by the reclaim (after poisoning) */
    atomic_int self_failed;  /* the hook's deferred removal was refused */
} l1_node;

typedef struct l2_node {
    NclKernelNode k;
    int chain;               /* index in kchains */
    int state;
    atomic_int remove_me;
    atomic_int reclaimed;
    atomic_int self_failed;
} l2_node;

static l1_node l1[NL1];
static l2_node l2[NL2];

static atomic_long entered_poisoned;   /* calls that reached a poisoned node: must stay 0 */
static atomic_long reclaims, deferred_asked;
static atomic_long l1_runs, l2_runs;
static atomic_int stop_mutator;
static atomic_int mutator_enough; /* the mutator has done enough: callers may stop */

#define POISON_BYTE 0xA5

/* What a poisoned node's function slot holds. Any call into it is a bug. */
static NclStatus poisoned_entry(void)
{
    atomic_fetch_add(&entered_poisoned, 1);
    return NCL_ERR_HOOK;
}

static void poison_hook(NclHook *h)
{
    memset(&h->list, POISON_BYTE, sizeof h->list);
    memset(&h->priv, POISON_BYTE, sizeof h->priv);
    h->name = "poisoned";
    h->user = NULL;
    h->fn.any = (void (*)(void))poisoned_entry;
}

static NclStatus poisoned_kernel(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                                 int64_t n, const int64_t *steps)
{
    (void)self, (void)ctx, (void)args, (void)n, (void)steps;
    atomic_fetch_add(&entered_poisoned, 1);
    return NCL_ERR_HOOK;
}

static void poison_kernel(NclKernelNode *k)
{
    memset(&k->list, POISON_BYTE, sizeof k->list);
    memset(&k->priv, POISON_BYTE, sizeof k->priv);
    k->name = "poisoned";
    k->fn = poisoned_kernel;
}

/* Runs on whichever thread reclaims: the node is out of every chain and no
   call is inside it any more, so it is poisoned right away. */
static void reclaim_l1(NclListHead *node, void *user)
{
    l1_node *n = user;
    if (node != &n->hook.list) atomic_fetch_add(&entered_poisoned, 1000000);
    poison_hook(&n->hook);
    atomic_fetch_add(&reclaims, 1);
    atomic_store_explicit(&n->reclaimed, 1, memory_order_release);
}

static void reclaim_l2(NclListHead *node, void *user)
{
    l2_node *n = user;
    if (node != &n->k.list) atomic_fetch_add(&entered_poisoned, 1000000);
    poison_kernel(&n->k);
    atomic_fetch_add(&reclaims, 1);
    atomic_store_explicit(&n->reclaimed, 1, memory_order_release);
}

/* The part of every level-1 hook that is the same for all subsystems:
   count the run in this call's record and remove itself when asked. */
static void l1_enter(NclHook *self)
{
    l1_node *n = self->user;
    atomic_fetch_add_explicit(&l1_runs, 1, memory_order_relaxed);
    if (rec.token != 0) {
        if (rec.seen[n->id] == rec.token) rec.twice = 1;
        rec.seen[n->id] = rec.token;
    }
    if (atomic_exchange(&n->remove_me, 0)) {
        /* Waiting from inside a call is refused; the deferred form works. */
        if (NclApiUnhook(&self->list) != NCL_ERR_HOOK) atomic_fetch_add(&entered_poisoned, 1000);
        atomic_fetch_add(&deferred_asked, 1);
        if (NclApiUnhookDeferred(&self->list, reclaim_l1, n) != NCL_OK) {
            /* a reset took it first: the mutator owns it again */
            atomic_fetch_add(&deferred_asked, -1);
            atomic_store(&n->self_failed, 1);
        }
    }
}

static NclStatus h_info(NclHook *self, NclInfoWriter *w)
{
    l1_enter(self);
    return NclInfoNext(self, w);
}
static NclStatus h_create(NclHook *self, NclCreateOp op, const NclCreateParams *p, NclArray **out)
{
    l1_enter(self);
    return NclCreateNext(self, op, p, out);
}
static NclStatus h_convert(NclHook *self, NclConvertOp op, const NclArray *a, NclArray **out,
                           const NclParams *p)
{
    l1_enter(self);
    return NclConvertNext(self, op, a, out, p);
}
static NclStatus h_compare(NclHook *self, NclCompareOp op, const NclArray *a, const NclArray *b,
                           NclArray **out, const NclParams *p)
{
    l1_enter(self);
    return NclCompareNext(self, op, a, b, out, p);
}
static NclStatus h_isunary(NclHook *self, NclIsUnaryOp op, const NclArray *a, NclArray **out,
                           const NclParams *p)
{
    l1_enter(self);
    return NclIsUnaryNext(self, op, a, out, p);
}
static NclStatus h_unary(NclHook *self, NclUnaryOp op, const NclArray *a, NclArray **out,
                         const NclParams *p)
{
    l1_enter(self);
    return NclUnaryNext(self, op, a, out, p);
}
static NclStatus h_binary(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                          NclArray **out, const NclParams *p)
{
    l1_enter(self);
    return NclBinaryNext(self, op, a, b, out, p);
}
static NclStatus h_ternary(NclHook *self, NclTernaryOp op, const NclArray *a, const NclArray *b,
                           const NclArray *c, NclArray **out, const NclParams *p)
{
    l1_enter(self);
    return NclTernaryNext(self, op, a, b, c, out, p);
}
static NclStatus h_reduce(NclHook *self, NclReduceOp op, const NclArray *a, NclArray **out,
                          const NclParams *p)
{
    l1_enter(self);
    return NclReduceNext(self, op, a, out, p);
}
static NclStatus h_sort(NclHook *self, NclSortOp op, const NclArray *a, NclArray **out,
                        const NclParams *p)
{
    l1_enter(self);
    return NclSortNext(self, op, a, out, p);
}
static NclStatus h_mask(NclHook *self, NclMaskOp op, const NclArray *a, const NclArray *b,
                        NclArray **out, const NclParams *p)
{
    l1_enter(self);
    return NclMaskNext(self, op, a, b, out, p);
}

/* A fresh node: zero (priv[] included), then its function. */
static void l1_fresh(l1_node *n)
{
    NclHook *h = &n->hook;
    memset(h, 0, sizeof *h);
    h->name = "stress";
    h->user = n;
    switch (n->sub) {
    case NCL_SUBSYSTEM_INFO: h->fn.info = h_info; break;
    case NCL_SUBSYSTEM_CREATE: h->fn.create = h_create; break;
    case NCL_SUBSYSTEM_CONVERT: h->fn.convert = h_convert; break;
    case NCL_SUBSYSTEM_COMPARE: h->fn.compare = h_compare; break;
    case NCL_SUBSYSTEM_ISUNARY: h->fn.isunary = h_isunary; break;
    case NCL_SUBSYSTEM_UNARY: h->fn.unary = h_unary; break;
    case NCL_SUBSYSTEM_BINARY: h->fn.binary = h_binary; break;
    case NCL_SUBSYSTEM_TERNARY: h->fn.ternary = h_ternary; break;
    case NCL_SUBSYSTEM_REDUCE: h->fn.reduce = h_reduce; break;
    case NCL_SUBSYSTEM_SORT: h->fn.sort = h_sort; break;
    default: h->fn.mask = h_mask; break;
    }
}

/* ---- level 2 ------------------------------------------------------------------------ */

typedef struct kchain {
    NclSubsystem sub;
    int op;
    NclDType sig[3];
} kchain;

/* Chains the callers' calls run through (float64 loops). */
static const kchain kchains[NKCHAINS] = {
    { NCL_SUBSYSTEM_BINARY, NCL_ADD, { NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64 } },
    { NCL_SUBSYSTEM_UNARY, NCL_NEGATIVE, { NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64 } },
    { NCL_SUBSYSTEM_COMPARE, NCL_CMP_LT, { NCL_FLOAT64, NCL_FLOAT64, NCL_BOOL } },
    { NCL_SUBSYSTEM_ISUNARY, NCL_IS_NAN, { NCL_FLOAT64, NCL_BOOL, NCL_BOOL } },
};

static NclStatus k_pass(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args, int64_t n,
                        const int64_t *steps)
{
    l2_node *node = self->user;
    atomic_fetch_add_explicit(&l2_runs, 1, memory_order_relaxed);
    if (atomic_exchange(&node->remove_me, 0)) {
        if (NclKernelUnhook(&self->list) != NCL_ERR_HOOK) atomic_fetch_add(&entered_poisoned, 1000);
        atomic_fetch_add(&deferred_asked, 1);
        if (NclApiUnhookDeferred(&self->list, reclaim_l2, node) != NCL_OK) {
            atomic_fetch_add(&deferred_asked, -1);
            atomic_store(&node->self_failed, 1);
        }
    }
    return NclKernelNext(self, ctx, args, n, steps);
}

static void l2_fresh(l2_node *n)
{
    memset(&n->k, 0, sizeof n->k);
    n->k.name = "stress_kernel";
    n->k.user = n;
    n->k.fn = k_pass;
}

/* ---- the callers ---------------------------------------------------------------------- */

typedef struct caller_stats {
    long calls, failed, wrong, twice;
    char first_error[160];
} caller_stats;

static void note_error(caller_stats *st, const char *what, NclStatus s)
{
    if (st->first_error[0] == '\0')
        snprintf(st->first_error, sizeof st->first_error, "%s: %s: %s", what, NclStatusString(s),
                 NclLastError());
}

static int begin_call(uint64_t *token)
{
    rec.token = ++*token;
    return 0;
}

static void end_call(caller_stats *st)
{
    st->calls++;
    if (rec.twice) st->twice++;
    rec.twice = 0;
    rec.token = 0;
}

#define CALL(st, token, what, expr, okcheck)                                    \
    do {                                                                        \
        begin_call(&(token));                                                   \
        NclStatus s_ = (expr);                                                  \
        end_call(st);                                                           \
        if (s_ != NCL_OK) {                                                     \
            (st)->failed++;                                                     \
            note_error((st), (what), s_);                                       \
        } else if (!(okcheck)) {                                                \
            (st)->wrong++;                                                      \
            note_error((st), (what), NCL_OK);                                   \
        }                                                                       \
    } while (0)

static void *caller(void *arg)
{
    caller_stats *st = arg;
    uint64_t token = 0;
    double x[VEC], y[VEC], one[VEC], neg[VEC], z[VEC];
    unsigned char mask[VEC], flags[VEC];
    int32_t iv[VEC];
    for (int i = 0; i < VEC; i++) {
        x[i] = 0;
        y[i] = (double)(VEC - i);
        one[i] = 1;
        neg[i] = i + 1;
        mask[i] = (unsigned char)(i % 3 == 0);
        iv[i] = i * 7 - 20;
    }
    NclArray *ax = NULL, *ay = NULL, *aone = NULL, *aneg = NULL, *az = NULL, *am = NULL,
             *af = NULL, *ai = NULL;
    const int64_t shape[1] = { VEC };
    NclFromData(NCL_FLOAT64, 1, shape, NULL, x, NCL_ARRAY_WRITEABLE, NULL, NULL, &ax);
    NclFromData(NCL_FLOAT64, 1, shape, NULL, y, 0, NULL, NULL, &ay);
    NclFromData(NCL_FLOAT64, 1, shape, NULL, one, 0, NULL, NULL, &aone);
    NclFromData(NCL_FLOAT64, 1, shape, NULL, neg, NCL_ARRAY_WRITEABLE, NULL, NULL, &aneg);
    NclFromData(NCL_FLOAT64, 1, shape, NULL, z, NCL_ARRAY_WRITEABLE, NULL, NULL, &az);
    NclFromData(NCL_BOOL, 1, shape, NULL, mask, 0, NULL, NULL, &am);
    NclFromData(NCL_BOOL, 1, shape, NULL, flags, NCL_ARRAY_WRITEABLE, NULL, NULL, &af);
    NclFromData(NCL_INT32, 1, shape, NULL, iv, 0, NULL, NULL, &ai);
    if (!ax || !ay || !aone || !aneg || !az || !am || !af || !ai) {
        st->failed++;
        snprintf(st->first_error, sizeof st->first_error, "NclFromData failed");
        return NULL;
    }
    char info[1 << 14];
    for (long round = 0;
         round < CALLER_ROUNDS || (!atomic_load(&mutator_enough) && round < CALLER_ROUNDS_MAX);
         round++) {
        /* Binary, in place: x += 1 (a lost or doubled call shows). */
        CALL(st, token, "add", NclBinary(NCL_ADD, ax, aone, &ax, NULL),
             x[0] == (double)(round + 1) && x[VEC - 1] == (double)(round + 1));
        /* Unary, in place: neg = -neg. */
        double sign = (round % 2 == 0) ? -1.0 : 1.0;
        CALL(st, token, "negative", NclUnary(NCL_NEGATIVE, aneg, &aneg, NULL),
             neg[0] == sign * 1.0 && neg[VEC - 1] == sign * VEC);
        CALL(st, token, "less", NclCompare(NCL_CMP_LT, ay, ax, &af, NULL),
             flags[0] == (y[0] < x[0]) && flags[VEC - 1] == (y[VEC - 1] < x[VEC - 1]));
        CALL(st, token, "isnan", NclIsUnary(NCL_IS_NAN, ay, &af, NULL), flags[3] == 0);
        CALL(st, token, "copyto", NclConvert(NCL_CONVERT_COPYTO, ai, &az, NULL),
             z[0] == -20.0 && z[VEC - 1] == (VEC - 1) * 7 - 20);
        CALL(st, token, "where", NclTernary(NCL_WHERE, am, ay, aone, &az, NULL),
             z[0] == y[0] && z[1] == 1.0 && z[3] == y[3]);
        NclArray *r = NULL;
        CALL(st, token, "sum", NclReduce(NCL_SUM, ay, &r, NULL),
             r != NULL && *(const double *)NclArrayData(r) == VEC * (VEC + 1) / 2.0);
        NclArrayRelease(r);
        r = NULL;
        CALL(st, token, "sort", NclSort(NCL_SORT, ay, &r, NULL),
             r != NULL && ((const double *)NclArrayData(r))[0] == 1.0);
        NclArrayRelease(r);
        r = NULL;
        CALL(st, token, "compress", NclMask(NCL_MASK_COMPRESS, ay, am, &r, NULL),
             r != NULL && NclArraySize(r) == (VEC + 2) / 3);
        NclArrayRelease(r);
        r = NULL;
        CALL(st, token, "zeros", NclZeros(NCL_INT16, 1, shape, &r), r != NULL && NclArraySize(r) == VEC);
        NclArrayRelease(r);
        if (round % 8 == 0) {
            size_t need = 0;
            CALL(st, token, "info", NclInfo(info, sizeof info, &need), info[0] == '{');
        }
    }
    NclArrayRelease(ax);
    NclArrayRelease(ay);
    NclArrayRelease(aone);
    NclArrayRelease(aneg);
    NclArrayRelease(az);
    NclArrayRelease(am);
    NclArrayRelease(af);
    NclArrayRelease(ai);
    return NULL;
}

/* ---- the mutator ----------------------------------------------------------------------- */

typedef struct mutator_stats {
    long rounds, inserts, removes, deferred, self_asked, resets, kinserts, kremoves;
    long refused;  /* unexpected refusals: must stay 0 */
    char first_error[160];
} mutator_stats;

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static void mut_error(mutator_stats *m, const char *what, NclStatus s)
{
    m->refused++;
    if (m->first_error[0] == '\0')
        snprintf(m->first_error, sizeof m->first_error, "%s: %s: %s", what, NclStatusString(s),
                 NclLastError());
}

/* Brings nodes whose deferred removal finished back to N_FREE. A hook whose
   own deferred removal was refused lost its node to a reset, which waited
   for that call to leave: the node is the mutator's again. */
static void collect(void)
{
    for (int i = 0; i < NL1; i++) {
        l1_node *n = &l1[i];
        if (n->state != N_PENDING) continue;
        if (atomic_load_explicit(&n->reclaimed, memory_order_acquire)) {
            atomic_store(&n->reclaimed, 0);
            n->state = N_FREE;
        } else if (atomic_exchange(&n->self_failed, 0)) {
            poison_hook(&n->hook);
            n->state = N_FREE;
        }
    }
    for (int i = 0; i < NL2; i++) {
        l2_node *n = &l2[i];
        if (n->state != N_PENDING) continue;
        if (atomic_load_explicit(&n->reclaimed, memory_order_acquire)) {
            atomic_store(&n->reclaimed, 0);
            n->state = N_FREE;
        } else if (atomic_exchange(&n->self_failed, 0)) {
            poison_kernel(&n->k);
            n->state = N_FREE;
        }
    }
}

/* After a reset: every node it unlinked is the mutator's again. A node that
   was asked to remove itself either did (its reclaim is pending) or was
   unlinked by the reset first (its hook saw the refusal): the reset waited
   for the call that was inside it, so the hook has decided by now. */
static void after_reset(void)
{
    for (int i = 0; i < NL1; i++) {
        l1_node *n = &l1[i];
        if (n->state == N_LINKED) {
            poison_hook(&n->hook);
            n->state = N_FREE;
        } else if (n->state == N_SELF) {
            if (atomic_exchange(&n->remove_me, 0) || atomic_exchange(&n->self_failed, 0)) {
                poison_hook(&n->hook);
                n->state = N_FREE;
            } else {
                n->state = N_PENDING;
            }
        }
    }
    for (int i = 0; i < NL2; i++) {
        l2_node *n = &l2[i];
        if (n->state == N_LINKED) {
            poison_kernel(&n->k);
            n->state = N_FREE;
        } else if (n->state == N_SELF) {
            if (atomic_exchange(&n->remove_me, 0) || atomic_exchange(&n->self_failed, 0)) {
                poison_kernel(&n->k);
                n->state = N_FREE;
            } else {
                n->state = N_PENDING;
            }
        }
    }
}

static void mutate_l1(mutator_stats *m, uint64_t *seed)
{
    int i = (int)(lcg(seed) % NL1);
    l1_node *n = &l1[i];
    unsigned what = (unsigned)(lcg(seed) % 8);
    NclStatus s;
    switch (n->state) {
    case N_FREE: {
        l1_fresh(n);
        int where = (int)(what % 4);
        NclListHead *anchor = NULL;
        if (where >= NCL_HOOK_BEFORE) {
            /* another node of the same chain that stays linked meanwhile */
            int base = i - i % NODES_PER_CHAIN;
            for (int k = 0; k < NODES_PER_CHAIN && anchor == NULL; k++)
                if (l1[base + k].state == N_LINKED) anchor = &l1[base + k].hook.list;
            if (anchor == NULL) where = NCL_HOOK_FRONT;
        }
        s = where <= NCL_HOOK_BACK ? NclApiHookAt(n->sub, &n->hook.list, where, NULL)
                                   : NclApiHookAt(n->sub, &n->hook.list, where, anchor);
        if (s == NCL_OK) {
            n->state = N_LINKED;
            m->inserts++;
        } else {
            mut_error(m, "NclApiHookAt", s);
        }
        break;
    }
    case N_LINKED:
        if (what < 4) {
            s = NclApiUnhook(&n->hook.list);
            if (s != NCL_OK) {
                mut_error(m, "NclApiUnhook", s);
                break;
            }
            /* No call is inside it any more: poison it now. */
            poison_hook(&n->hook);
            n->state = N_FREE;
            m->removes++;
        } else if (what < 6) {
            atomic_fetch_add(&deferred_asked, 1);
            s = NclApiUnhookDeferred(&n->hook.list, reclaim_l1, n);
            if (s != NCL_OK) {
                atomic_fetch_add(&deferred_asked, -1);
                mut_error(m, "NclApiUnhookDeferred", s);
                break;
            }
            n->state = N_PENDING;
            m->deferred++;
        } else {
            atomic_store(&n->self_failed, 0);
            atomic_store(&n->remove_me, 1);
            n->state = N_SELF;
            m->self_asked++;
        }
        break;
    case N_SELF:
        /* taken by the hook: its reclaim will bring the node back */
        if (atomic_load(&n->remove_me) == 0 && !atomic_load(&n->self_failed)) n->state = N_PENDING;
        break;
    default: break;
    }
}

static void mutate_l2(mutator_stats *m, uint64_t *seed)
{
    int i = (int)(lcg(seed) % NL2);
    l2_node *n = &l2[i];
    const kchain *c = &kchains[i / NODES_PER_KCHAIN];
    unsigned what = (unsigned)(lcg(seed) % 6);
    NclStatus s;
    switch (n->state) {
    case N_FREE:
        l2_fresh(n);
        s = NclKernelHook(c->sub, c->op, c->sig, &n->k.list);
        if (s == NCL_OK) {
            n->state = N_LINKED;
            m->kinserts++;
        } else {
            mut_error(m, "NclKernelHook", s);
        }
        break;
    case N_LINKED:
        if (what < 3) {
            s = NclKernelUnhook(&n->k.list);
            if (s != NCL_OK) {
                mut_error(m, "NclKernelUnhook", s);
                break;
            }
            poison_kernel(&n->k);
            n->state = N_FREE;
            m->kremoves++;
        } else if (what < 4) {
            atomic_fetch_add(&deferred_asked, 1);
            s = NclApiUnhookDeferred(&n->k.list, reclaim_l2, n);
            if (s != NCL_OK) {
                atomic_fetch_add(&deferred_asked, -1);
                mut_error(m, "NclApiUnhookDeferred(kernel)", s);
                break;
            }
            n->state = N_PENDING;
            m->deferred++;
        } else {
            atomic_store(&n->self_failed, 0);
            atomic_store(&n->remove_me, 1);
            n->state = N_SELF;
            m->self_asked++;
        }
        break;
    case N_SELF:
        if (atomic_load(&n->remove_me) == 0 && !atomic_load(&n->self_failed)) n->state = N_PENDING;
        break;
    default: break;
    }
}

static void *mutator(void *arg)
{
    mutator_stats *m = arg;
    uint64_t seed = 0x5eed;
    while (!atomic_load(&stop_mutator)) {
        collect();
        uint64_t r = lcg(&seed) % 100;
        if (r < 2) {
            NclStatus s = NclHooksReset();
            if (s != NCL_OK) mut_error(m, "NclHooksReset", s);
            else {
                after_reset();
                m->resets++;
            }
        } else if (r < 70) {
            mutate_l1(m, &seed);
        } else {
            mutate_l2(m, &seed);
        }
        m->rounds++;
        if (m->rounds >= MUTATOR_ENOUGH_ROUNDS && m->inserts > 0 && m->removes > 0 &&
            m->deferred > 0 && m->kinserts > 0)
            atomic_store(&mutator_enough, 1);
        if (m->rounds % 64 == 0) sleep_us(50);  /* let the callers run on a small machine */
    }
    /* Leave nothing behind: a final reset, then wait for the reclaims. */
    NclStatus s = NclHooksReset();
    if (s != NCL_OK) mut_error(m, "NclHooksReset (final)", s);
    after_reset();
    return NULL;
}

START_TEST(test_rewiring_every_chain)
{
    for (int c = 0; c < NCHAINS; c++)
        for (int k = 0; k < NODES_PER_CHAIN; k++) {
            l1_node *n = &l1[c * NODES_PER_CHAIN + k];
            n->id = c * NODES_PER_CHAIN + k;
            n->sub = chains[c];
            n->state = N_FREE;
        }
    for (int i = 0; i < NL2; i++) {
        l2[i].chain = i / NODES_PER_KCHAIN;
        l2[i].state = N_FREE;
    }
    caller_stats cs[NCALLERS];
    memset(cs, 0, sizeof cs);
    mutator_stats ms;
    memset(&ms, 0, sizeof ms);
    pthread_t tc[NCALLERS], tm;
    ck_assert_int_eq(pthread_create(&tm, NULL, mutator, &ms), 0);
    for (int i = 0; i < NCALLERS; i++) ck_assert_int_eq(pthread_create(&tc[i], NULL, caller, &cs[i]), 0);
    for (int i = 0; i < NCALLERS; i++) pthread_join(tc[i], NULL);
    atomic_store(&stop_mutator, 1);
    pthread_join(tm, NULL);

    /* Every deferred removal is reclaimed, once. */
    for (int i = 0; i < 20000 && atomic_load(&reclaims) < atomic_load(&deferred_asked); i++)
        sleep_us(1000);
    long calls = 0;
    for (int i = 0; i < NCALLERS; i++) {
        calls += cs[i].calls;
        ck_assert_msg(cs[i].failed == 0 && cs[i].wrong == 0,
                      "caller %d: %ld failed, %ld wrong results; first: %s", i, cs[i].failed,
                      cs[i].wrong, cs[i].first_error);
        ck_assert_msg(cs[i].twice == 0, "caller %d: a node ran twice in %ld calls", i, cs[i].twice);
    }
    printf("stress: %ld calls on %d threads; l1 node runs %ld, kernel node runs %ld; mutator "
           "rounds %ld: %ld inserts, %ld removes, %ld deferred, %ld self-removals asked, %ld "
           "resets, %ld kernel inserts, %ld kernel removes; %ld reclaims\n",
           calls, NCALLERS, atomic_load(&l1_runs), atomic_load(&l2_runs), ms.rounds, ms.inserts,
           ms.removes, ms.deferred, ms.self_asked, ms.resets, ms.kinserts, ms.kremoves,
           atomic_load(&reclaims));
    fflush(stdout);
    ck_assert_msg(ms.refused == 0, "the mutator was refused %ld times; first: %s", ms.refused,
                  ms.first_error);
    ck_assert_int_eq(atomic_load(&entered_poisoned), 0);
    ck_assert_int_eq(atomic_load(&reclaims), atomic_load(&deferred_asked));
    ck_assert_int_gt(ms.inserts, 0);
    ck_assert_int_gt(ms.removes + ms.deferred, 0);
}
END_TEST

/* ---- per-thread allocator handler ------------------------------------------------------- */

#define NHANDLER_THREADS 4
#define HANDLER_ROUNDS 400

typedef struct handler_thread {
    int index;
    NclMemAccounting *acc;
    pthread_barrier_t *barrier;
    long wrong_handler, wrong_name, failed;
} handler_thread;

static void *handler_worker(void *arg)
{
    handler_thread *t = arg;
    const NclMemHandler *mine = NclMemAccountingHandler(t->acc);
    const NclMemHandler *prev = NclDataMem_SetHandler(mine);
    (void)prev;
    pthread_barrier_wait(t->barrier);  /* every thread has its own handler now */
    const int64_t shape[1] = { 64 + t->index };
    for (int r = 0; r < HANDLER_ROUNDS; r++) {
        if (NclDataMem_GetHandler() != mine) t->wrong_handler++;
        NclArray *a = NULL, *b = NULL;
        if (NclOnes(NCL_FLOAT64, 1, shape, &a) != NCL_OK) {
            t->failed++;
            continue;
        }
        if (NclBinary(NCL_ADD, a, a, &b, NULL) != NCL_OK) t->failed++;
        if (strcmp(NclArrayHandlerName(a), mine->name) != 0) t->wrong_name++;
        if (b && strcmp(NclArrayHandlerName(b), mine->name) != 0) t->wrong_name++;
        NclArrayRelease(a);
        NclArrayRelease(b);
        if (r % 50 == 0) pthread_barrier_wait(t->barrier);  /* interleave the threads */
    }
    NclDataMem_SetHandler(NULL);
    if (NclDataMem_GetHandler() != NclMemDefaultHandler()) t->wrong_handler++;
    return NULL;
}

START_TEST(test_handler_per_thread)
{
    handler_thread t[NHANDLER_THREADS];
    pthread_t tid[NHANDLER_THREADS];
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, NHANDLER_THREADS);
    const NclMemHandler *before = NclDataMem_GetHandler();
    for (int i = 0; i < NHANDLER_THREADS; i++) {
        memset(&t[i], 0, sizeof t[i]);
        t[i].index = i;
        t[i].barrier = &barrier;
        /* alternate inner handlers: the names differ too */
        NCL_CHECK_OK(NclMemAccountingCreate(i % 2 ? NclMemLibcHandler() : NULL, &t[i].acc));
    }
    for (int i = 0; i < NHANDLER_THREADS; i++)
        ck_assert_int_eq(pthread_create(&tid[i], NULL, handler_worker, &t[i]), 0);
    for (int i = 0; i < NHANDLER_THREADS; i++) pthread_join(tid[i], NULL);
    pthread_barrier_destroy(&barrier);
    ck_assert_ptr_eq(NclDataMem_GetHandler(), before);  /* this thread's is untouched */
    long allocs = 0;
    for (int i = 0; i < NHANDLER_THREADS; i++) {
        ck_assert_int_eq(t[i].failed, 0);
        ck_assert_int_eq(t[i].wrong_handler, 0);
        ck_assert_int_eq(t[i].wrong_name, 0);
        NclMemStats st;
        NclMemAccountingStats(t[i].acc, &st);
        /* exactly its own two arrays per round went through its handler */
        ck_assert_uint_eq(st.allocs, 2u * HANDLER_ROUNDS);
        ck_assert_uint_eq(st.frees, 2u * HANDLER_ROUNDS);
        ck_assert_uint_eq(st.live_blocks, 0);
        allocs += (long)st.allocs;
        NCL_CHECK_OK(NclMemAccountingDestroy(t[i].acc));
    }
    printf("stress: %d threads with their own handler, %ld allocations\n", NHANDLER_THREADS, allocs);
    fflush(stdout);
}
END_TEST

/* ---- per-thread FP error modes ---------------------------------------------------------- */

#define NFPE_THREADS 4
#define FPE_ROUNDS 300

typedef struct fpe_thread {
    int index;
    pthread_barrier_t *barrier;
    long wrong_mode, wrong_status, wrong_flags, callbacks_wrong, dividing;
    atomic_long callbacks;
} fpe_thread;

static void fpe_callback(int category, const char *where, void *user)
{
    fpe_thread *t = user;
    if (category != NCL_FPE_DIVIDE || where == NULL) t->callbacks_wrong++;
    atomic_fetch_add(&t->callbacks, 1);
}

/* Thread 0 raises, 1 ignores, 2 calls back, 3 raises only INVALID: each
   divides by zero (DIVIDE) and checks that only its own mode applies. */
static void *fpe_worker(void *arg)
{
    fpe_thread *t = arg;
    static const NclErrMode modes[NFPE_THREADS] = { NCL_ERRMODE_RAISE, NCL_ERRMODE_IGNORE,
                                                    NCL_ERRMODE_CALL, NCL_ERRMODE_IGNORE };
    NclErrMode mine = modes[t->index];
    NclSetErrMode(NCL_FPE_ALL, NCL_ERRMODE_IGNORE);
    NclSetErrMode(NCL_FPE_DIVIDE, mine);
    if (t->index == 3) NclSetErrMode(NCL_FPE_INVALID, NCL_ERRMODE_RAISE);
    if (mine == NCL_ERRMODE_CALL) NclSetErrCallback(fpe_callback, t);
    double one[4] = { 1, 1, 1, 1 }, zero[4] = { 0, 0, 0, 0 }, two[4] = { 2, 2, 2, 2 };
    const int64_t shape[1] = { 4 };
    NclArray *a = NULL, *z = NULL, *b = NULL;
    NclFromData(NCL_FLOAT64, 1, shape, NULL, one, 0, NULL, NULL, &a);
    NclFromData(NCL_FLOAT64, 1, shape, NULL, zero, 0, NULL, NULL, &z);
    NclFromData(NCL_FLOAT64, 1, shape, NULL, two, 0, NULL, NULL, &b);
    pthread_barrier_wait(t->barrier);
    for (int r = 0; r < FPE_ROUNDS; r++) {
        if (NclGetErrMode(NCL_FPE_DIVIDE) != mine) t->wrong_mode++;
        if (NclGetErrMode(NCL_FPE_INVALID) != (t->index == 3 ? NCL_ERRMODE_RAISE : NCL_ERRMODE_IGNORE))
            t->wrong_mode++;
        NclArray *out = NULL;
        /* odd rounds on even threads are clean calls: their flags are 0
           whatever the other threads raise meanwhile */
        int clean = (r % 2) && (t->index % 2 == 0);
        t->dividing += !clean;
        NclStatus s = NclBinary(NCL_DIVIDE, a, clean ? b : z, &out, NULL);
        NclStatus want = (!clean && mine == NCL_ERRMODE_RAISE) ? NCL_ERR_FLOATING_POINT : NCL_OK;
        if (s != want) t->wrong_status++;
        int flags = NclGetFPErrors();
        if (flags != (clean ? 0 : NCL_FPE_DIVIDE)) t->wrong_flags++;
        NclArrayRelease(out);
        if (r % 30 == 0) pthread_barrier_wait(t->barrier);
    }
    NclArrayRelease(a);
    NclArrayRelease(z);
    NclArrayRelease(b);
    NclSetErrMode(NCL_FPE_ALL, NCL_ERRMODE_IGNORE);
    NclSetErrCallback(NULL, NULL);
    return NULL;
}

START_TEST(test_fpe_mode_per_thread)
{
    fpe_thread t[NFPE_THREADS];
    pthread_t tid[NFPE_THREADS];
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, NFPE_THREADS);
    for (int i = 0; i < NFPE_THREADS; i++) {
        memset(&t[i], 0, sizeof t[i]);
        t[i].index = i;
        t[i].barrier = &barrier;
        atomic_init(&t[i].callbacks, 0);
    }
    for (int i = 0; i < NFPE_THREADS; i++)
        ck_assert_int_eq(pthread_create(&tid[i], NULL, fpe_worker, &t[i]), 0);
    for (int i = 0; i < NFPE_THREADS; i++) pthread_join(tid[i], NULL);
    pthread_barrier_destroy(&barrier);
    for (int i = 0; i < NFPE_THREADS; i++) {
        ck_assert_msg(t[i].wrong_mode == 0 && t[i].wrong_status == 0 && t[i].wrong_flags == 0,
                      "thread %d: %ld wrong modes, %ld wrong statuses, %ld wrong flag sets", i,
                      t[i].wrong_mode, t[i].wrong_status, t[i].wrong_flags);
        ck_assert_int_eq(t[i].callbacks_wrong, 0);
    }
    /* only the CALL thread's callback ran, once per dividing call */
    ck_assert_int_eq(atomic_load(&t[2].callbacks), t[2].dividing);
    ck_assert_int_eq(atomic_load(&t[0].callbacks), 0);
    /* this thread's modes are untouched */
    ck_assert_int_eq(NclGetErrMode(NCL_FPE_DIVIDE), NCL_ERRMODE_IGNORE);
    printf("stress: %d threads with their own FP error modes, %d calls each\n", NFPE_THREADS,
           FPE_ROUNDS);
    fflush(stdout);
}
END_TEST

static Suite *stress_suite(void)
{
    Suite *s = suite_create("stress");
    TCase *tc = ncl_test_tcase(s, "chains");
    tcase_add_test(tc, test_rewiring_every_chain);
    tc = ncl_test_tcase(s, "per_thread_state");
    tcase_add_test(tc, test_handler_per_thread);
    tcase_add_test(tc, test_fpe_mode_per_thread);
    return s;
}

NCL_TEST_MAIN(stress_suite)
