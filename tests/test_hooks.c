/*
 * test_hooks.c: the two levels of hook chains through the public API:
 * insertion order (front, back, before, after) seen by NclHooksWalk and by
 * the order calls run; hooks that punt, change arguments, post-process and
 * remove themselves; misuse refused with the right status; NclHooksReset;
 * kernel (level-2) hooks that handle only contiguous data; NclInfo's JSON and
 * buffer contract; the ledger; NclGetApi reached through dlopen alone; and
 * calls on two threads while a third rewires the chain.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "ncl_test.h"

#ifndef NCL_TEST_LIBPATH
#  error "NCL_TEST_LIBPATH must name the built libncl.so (set by tests/CMakeLists.txt)"
#endif

/* ---- helpers ------------------------------------------------------------------ */

/* float64 [start, start + 1, ...] of n elements. */
static NclArray *seq(int64_t n, double start)
{
    NclArray *a = ncl_test_new(NCL_FLOAT64, 1, NCL_DIMS(n));
    for (int64_t i = 0; i < n; i++) ncl_test_set_d(a, i, start + (double)i);
    return a;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

typedef struct names {
    char text[512];
    const NclListHead *last;  /* the last node visited: the default */
} names;

static int collect_name(const NclListHead *node, const char *name, void *user)
{
    names *n = user;
    if (strcmp(name, "ncl.threader") == 0) return 0; /* built in; test_threads covers it */
    if (n->text[0]) strncat(n->text, ",", sizeof n->text - strlen(n->text) - 1);
    strncat(n->text, name, sizeof n->text - strlen(n->text) - 1);
    n->last = node;
    return 0;
}

/* The names of subsystem s's chain, front to back, comma separated. */
static const char *chain_names(NclSubsystem s, names *n)
{
    memset(n, 0, sizeof *n);
    NCL_CHECK_OK(NclHooksWalk(s, collect_name, n));
    return n->text;
}

/* The chain's default node (the walk hands it out const; anchors are not). */
static NclListHead *default_node(NclSubsystem s)
{
    names n;
    chain_names(s, &n);
    return (NclListHead *)(uintptr_t)n.last;
}

static NclHook make_hook(const char *name, void *user)
{
    NclHook h;
    memset(&h, 0, sizeof h);
    h.name = name;
    h.user = user;
    return h;
}

static void check_sum(const NclArray *out, const NclArray *a, const NclArray *b, double scale)
{
    for (int64_t i = 0; i < NclArraySize(out); i++) {
        double want = scale * (ncl_test_get_d(a, i) + ncl_test_get_d(b, i));
        ck_assert_msg(ncl_test_get_d(out, i) == want, "element %lld: %g, expected %g",
                      (long long)i, ncl_test_get_d(out, i), want);
    }
}

static void teardown(void)
{
    NclHooksReset();
    NclLedgerEnable(0);
}

/* ---- level 1: order ---------------------------------------------------------------- */

static char trace[64];

static NclStatus tracing_binary(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                                NclArray **out, const NclParams *p)
{
    strncat(trace, (const char *)self->user, sizeof trace - strlen(trace) - 1);
    return NclBinaryNext(self, op, a, b, out, p);
}

START_TEST(test_insert_order)
{
    NclHook A = make_hook("A", "A"), B = make_hook("B", "B"), C = make_hook("C", "C"),
            D = make_hook("D", "D"), E = make_hook("E", "E");
    A.fn.binary = B.fn.binary = C.fn.binary = D.fn.binary = E.fn.binary = tracing_binary;
    names n;
    ck_assert_str_eq(chain_names(NCL_SUBSYSTEM_BINARY, &n), "ncl_default_binary");

    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_BINARY, &A.list));                            /* A */
    NCL_CHECK_OK(NclApiHookAt(NCL_SUBSYSTEM_BINARY, &B.list, NCL_HOOK_BACK, NULL));      /* A B */
    NCL_CHECK_OK(NclApiHookAt(NCL_SUBSYSTEM_BINARY, &C.list, NCL_HOOK_BEFORE, &A.list)); /* C A B */
    NCL_CHECK_OK(NclApiHookAt(NCL_SUBSYSTEM_BINARY, &D.list, NCL_HOOK_AFTER, &B.list));  /* C A B D */
    NCL_CHECK_OK(NclApiHookAt(NCL_SUBSYSTEM_BINARY, &E.list, NCL_HOOK_BEFORE,
                              default_node(NCL_SUBSYSTEM_BINARY)));                     /* C A B D E */
    ck_assert_str_eq(chain_names(NCL_SUBSYSTEM_BINARY, &n), "C,A,B,D,E,ncl_default_binary");
    /* Other chains are untouched. */
    ck_assert_str_eq(chain_names(NCL_SUBSYSTEM_UNARY, &n), "ncl_default_unary");

    NclArray *a = seq(16, 1), *b = seq(16, 100), *out = NULL;
    trace[0] = '\0';
    NCL_CHECK_OK(NclBinary(NCL_ADD, a, b, &out, NULL));
    ck_assert_str_eq(trace, "CABDE");
    check_sum(out, a, b, 1);

    /* Removing from the middle keeps the rest in order. */
    NCL_CHECK_OK(NclApiUnhook(&B.list));
    NCL_CHECK_OK(NclApiUnhook(&E.list));
    ck_assert_str_eq(chain_names(NCL_SUBSYSTEM_BINARY, &n), "C,A,D,ncl_default_binary");
    trace[0] = '\0';
    NCL_CHECK_OK(NclBinary(NCL_ADD, a, b, &out, NULL));
    ck_assert_str_eq(trace, "CAD");
    NCL_CHECK_OK(NclApiUnhook(&A.list));
    NCL_CHECK_OK(NclApiUnhook(&C.list));
    NCL_CHECK_OK(NclApiUnhook(&D.list));
    ck_assert_str_eq(chain_names(NCL_SUBSYSTEM_BINARY, &n), "ncl_default_binary");
    NclArrayRelease(a);
    NclArrayRelease(b);
    NclArrayRelease(out);
}
END_TEST

/* ---- level 1: what a hook can do --------------------------------------------------- */

static int punt_calls;

/* Handles SUBTRACT by refusing it, passes everything else on. */
static NclStatus refuse_subtract(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                                 NclArray **out, const NclParams *p)
{
    punt_calls++;
    if (op == NCL_SUBTRACT) return NCL_ERR_UNSUPPORTED;
    return NclBinaryNext(self, op, a, b, out, p);
}

/* Swaps the operands of SUBTRACT. */
static NclStatus swap_subtract(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                               NclArray **out, const NclParams *p)
{
    if (op == NCL_SUBTRACT) return NclBinaryNext(self, op, b, a, out, p);
    return NclBinaryNext(self, op, a, b, out, p);
}

/* Doubles every element of an ADD's float64 result. */
static NclStatus double_result(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                               NclArray **out, const NclParams *p)
{
    NclStatus st = NclBinaryNext(self, op, a, b, out, p);
    if (st == NCL_OK && op == NCL_ADD && NclArrayDType(*out) == NCL_FLOAT64)
        for (int64_t i = 0; i < NclArraySize(*out); i++)
            ncl_test_set_d(*out, i, 2 * ncl_test_get_d(*out, i));
    return st;
}

START_TEST(test_punt_change_postprocess)
{
    NclArray *a = seq(8, 10), *b = seq(8, 1);
    NclArray *out = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(8), -7);

    NclHook h = make_hook("refuse_subtract", NULL);
    h.fn.binary = refuse_subtract;
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_BINARY, &h.list));
    punt_calls = 0;
    ck_assert_int_eq(NclBinary(NCL_SUBTRACT, a, b, &out, NULL), NCL_ERR_UNSUPPORTED);
    for (int i = 0; i < 8; i++) ck_assert(ncl_test_get_d(out, i) == -7);  /* not reached */
    NCL_CHECK_OK(NclBinary(NCL_ADD, a, b, &out, NULL));                  /* punted */
    check_sum(out, a, b, 1);
    ck_assert_int_eq(punt_calls, 2);
    NCL_CHECK_OK(NclApiUnhook(&h.list));

    NclHook s = make_hook("swap_subtract", NULL);
    s.fn.binary = swap_subtract;
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_BINARY, &s.list));
    NCL_CHECK_OK(NclBinary(NCL_SUBTRACT, a, b, &out, NULL));
    for (int i = 0; i < 8; i++) ck_assert(ncl_test_get_d(out, i) == -9.0);  /* b - a */
    NCL_CHECK_OK(NclApiUnhook(&s.list));

    NclHook d = make_hook("double_result", NULL);
    d.fn.binary = double_result;
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_BINARY, &d.list));
    NclArray *fresh = NULL;
    NCL_CHECK_OK(NclBinary(NCL_ADD, a, b, &fresh, NULL));
    check_sum(fresh, a, b, 2);
    NCL_CHECK_OK(NclApiUnhook(&d.list));
    NCL_CHECK_OK(NclBinary(NCL_SUBTRACT, a, b, &out, NULL));
    for (int i = 0; i < 8; i++) ck_assert(ncl_test_get_d(out, i) == 9.0);

    NclArrayRelease(a);
    NclArrayRelease(b);
    NclArrayRelease(out);
    NclArrayRelease(fresh);
}
END_TEST

/* A Unary hook that makes a nested NCLib call (Binary) from inside itself. */
static NclStatus nested_unary(NclHook *self, NclUnaryOp op, const NclArray *a, NclArray **out,
                              const NclParams *p)
{
    NclArray *tmp = NULL;
    NclStatus st = NclBinary(NCL_ADD, a, a, &tmp, NULL);
    if (st != NCL_OK) return st;
    st = NclUnaryNext(self, op, tmp, out, p);
    NclArrayRelease(tmp);
    return st;
}

START_TEST(test_nested_call)
{
    NclArray *a = seq(5, 1), *out = NULL;
    NclHook h = make_hook("nested_unary", NULL);
    h.fn.unary = nested_unary;
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_UNARY, &h.list));
    NCL_CHECK_OK(NclUnary(NCL_NEGATIVE, a, &out, NULL));
    for (int i = 0; i < 5; i++) ck_assert(ncl_test_get_d(out, i) == -2.0 * (i + 1));
    /* The call bracket is balanced: outside a call, unhooking waits and works. */
    NCL_CHECK_OK(NclApiUnhook(&h.list));
    NclArrayRelease(a);
    NclArrayRelease(out);
}
END_TEST

/* ---- level 1: removal from inside a call --------------------------------------------- */

static atomic_int reclaimed;
static atomic_int self_calls;
static int reclaimed_inside = -1;
static NclStatus deferred_status = NCL_ERR_HOOK, reinsert_status = NCL_OK, unhook_status = NCL_OK,
                 reset_status = NCL_OK, ledger_off_status = NCL_OK;
static char unhook_message[512];
static NclListHead *reclaimed_node;

static void on_reclaim(NclListHead *node, void *user)
{
    reclaimed_node = node;
    atomic_fetch_add((atomic_int *)user, 1);
}

static NclStatus self_removing(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                               NclArray **out, const NclParams *p)
{
    atomic_fetch_add(&self_calls, 1);
    deferred_status = NclApiUnhookDeferred(&self->list, on_reclaim, &reclaimed);
    /* No grace period can end while this call is inside the node. */
    reclaimed_inside = atomic_load(&reclaimed);
    reinsert_status = NclApiHook(NCL_SUBSYSTEM_BINARY, &self->list);
    /* The node is unlinked but still leads on to the rest of the chain. */
    return NclBinaryNext(self, op, a, b, out, p);
}

START_TEST(test_self_removal_deferred)
{
    static NclHook h;  /* static: reclaim runs after this function may have returned */
    h = make_hook("self_removing", NULL);
    h.fn.binary = self_removing;
    NclArray *a = seq(4, 1), *b = seq(4, 5), *out = NULL;
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_BINARY, &h.list));
    NCL_CHECK_OK(NclBinary(NCL_ADD, a, b, &out, NULL));
    check_sum(out, a, b, 1);
    ck_assert_int_eq(deferred_status, NCL_OK);
    ck_assert_int_eq(reclaimed_inside, 0);
    ck_assert_int_eq(reinsert_status, NCL_ERR_HOOK);
    names n;
    ck_assert_str_eq(chain_names(NCL_SUBSYSTEM_BINARY, &n), "ncl_default_binary");
    NCL_CHECK_OK(NclBinary(NCL_ADD, a, b, &out, NULL));
    ck_assert_int_eq(atomic_load(&self_calls), 1);

    for (int i = 0; i < 5000 && atomic_load(&reclaimed) == 0; i++) sleep_ms(1);
    ck_assert_int_eq(atomic_load(&reclaimed), 1);
    ck_assert_ptr_eq(reclaimed_node, &h.list);
    sleep_ms(50);
    ck_assert_int_eq(atomic_load(&reclaimed), 1);  /* exactly once */

    /* Once reclaimed the node is free again. */
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_BINARY, &h.list));
    NCL_CHECK_OK(NclApiUnhook(&h.list));
    NCL_CHECK_STATUS(NclApiUnhookDeferred(&h.list, NULL, NULL), NCL_ERR_HOOK);
    NclArrayRelease(a);
    NclArrayRelease(b);
    NclArrayRelease(out);
}
END_TEST

static NclStatus unhooks_itself(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                                NclArray **out, const NclParams *p)
{
    unhook_status = NclApiUnhook(&self->list);
    snprintf(unhook_message, sizeof unhook_message, "%s", NclLastError());
    reset_status = NclHooksReset();
    ledger_off_status = NclLedgerEnable(0);
    return NclBinaryNext(self, op, a, b, out, p);
}

START_TEST(test_unhook_inside_refused)
{
    NclHook h = make_hook("unhooks_itself", NULL);
    h.fn.binary = unhooks_itself;
    NclArray *a = seq(4, 1), *out = NULL;
    NCL_CHECK_OK(NclLedgerEnable(1));
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_BINARY, &h.list));
    NCL_CHECK_OK(NclBinary(NCL_ADD, a, a, &out, NULL));
    ck_assert_int_eq(unhook_status, NCL_ERR_HOOK);
    ck_assert_msg(strstr(unhook_message, "NclApiUnhook") && strstr(unhook_message, "inside"),
                  "message: %s", unhook_message);
    ck_assert_int_eq(reset_status, NCL_ERR_HOOK);
    ck_assert_int_eq(ledger_off_status, NCL_ERR_HOOK);
    names n;
    ck_assert_str_eq(chain_names(NCL_SUBSYSTEM_BINARY, &n),
                     "unhooks_itself,ncl_ledger,ncl_default_binary");
    NCL_CHECK_OK(NclApiUnhook(&h.list));
    NCL_CHECK_OK(NclLedgerEnable(0));
    NclArrayRelease(a);
    NclArrayRelease(out);
}
END_TEST

/* ---- level 1: misuse ------------------------------------------------------------------ */

static NclStatus plain_binary(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                              NclArray **out, const NclParams *p)
{
    return NclBinaryNext(self, op, a, b, out, p);
}

static NclStatus plain_unary(NclHook *self, NclUnaryOp op, const NclArray *a, NclArray **out,
                             const NclParams *p)
{
    return NclUnaryNext(self, op, a, out, p);
}

/* A hook that makes a nested call raising DIVIDE (log(0.0), a subsystem
   without the hook) before or after passing the call on (user: "before" or
   "after"). */
static void raise_divide(void)
{
    NclArray *zero = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(1), 0.0);
    NclArray *r = NULL;
    NCL_CHECK_OK(NclUnary(NCL_LOG, zero, &r, NULL)); /* nested: RAISE is the caller's */
    NclArrayRelease(r);
    NclArrayRelease(zero);
}

static NclStatus raising_binary(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                                NclArray **out, const NclParams *params)
{
    const int before = strcmp((const char *)self->user, "before") == 0;
    if (before) raise_divide();
    NclStatus st = NclBinaryNext(self, op, a, b, out, params);
    if (!before) raise_divide();
    return st;
}

static NclStatus raising_reduce(NclHook *self, NclReduceOp op, const NclArray *a, NclArray **out,
                                const NclParams *params)
{
    const int before = strcmp((const char *)self->user, "before") == 0;
    if (before) raise_divide();
    NclStatus st = NclReduceNext(self, op, a, out, params);
    if (!before) raise_divide();
    return st;
}

/* A flag raised in a nested call that a hook makes, before or after passing
   the call on, fails the top-level call under RAISE like one of its own:
   the result the chain allocated is released and *out stays NULL. */
START_TEST(test_nested_raise_releases_result)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), 1, 2, 3);
    static const char *const when[] = {"before", "after"};
    for (int w = 0; w < 2; w++) {
        for (int sub = 0; sub < 2; sub++) {
            NclHook h = make_hook("raising", (void *)when[w]);
            if (sub == 0) h.fn.binary = raising_binary;
            else h.fn.reduce = raising_reduce;
            NCL_CHECK_OK(NclApiHook(sub == 0 ? NCL_SUBSYSTEM_BINARY : NCL_SUBSYSTEM_REDUCE, &h.list));
            NclArray *out = NULL;
            ncl_test_alloc t;
            NCL_CHECK_OK(NclSetErrMode(NCL_FPE_DIVIDE, NCL_ERRMODE_RAISE));
            ncl_test_alloc_install(&t, 0, 0);
            NclStatus st = sub == 0 ? NclBinary(NCL_ADD, a, a, &out, NULL) : NclReduce(NCL_SUM, a, &out, NULL);
            ncl_test_alloc_uninstall(&t);
            NCL_CHECK_OK(NclSetErrMode(NCL_FPE_ALL, NCL_ERRMODE_IGNORE));
            NCL_CHECK_OK(NclApiUnhook(&h.list));
            ck_assert_msg(st == NCL_ERR_FLOATING_POINT, "%s, %s: %s", sub ? "reduce" : "binary", when[w],
                          NclStatusString(st));
            ck_assert_int_eq(NclGetFPErrors(), NCL_FPE_DIVIDE);
            ck_assert_ptr_null(out);
            NCL_CHECK_NO_LEAK(&t);
        }
    }
    NclArrayRelease(a);
}
END_TEST

static NclStatus plain_kernel(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                              int64_t n, const int64_t *steps)
{
    return NclKernelNext(self, ctx, args, n, steps);
}

START_TEST(test_misuse_refused)
{
    NclHook h = make_hook("h", NULL), u = make_hook("u", NULL), none = make_hook("none", NULL);
    h.fn.binary = plain_binary;
    u.fn.unary = plain_unary;

    NCL_CHECK_STATUS(NclApiHook(NCL_SUBSYSTEM_BINARY, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclApiHook(NCL_SUBSYSTEM_BINARY, &none.list), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("none");
    NCL_CHECK_STATUS(NclApiHook((NclSubsystem)99, &h.list), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclApiHook((NclSubsystem)-1, &h.list), NCL_ERR_INVALID_ARGUMENT);
    /* a hook without the function of its subsystem */
    NCL_CHECK_STATUS(NclApiHook(NCL_SUBSYSTEM_RNG, &none.list), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclApiHook(NCL_SUBSYSTEM_MANIP, &none.list), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclApiHookAt(NCL_SUBSYSTEM_BINARY, &h.list, 7, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclApiHookAt(NCL_SUBSYSTEM_BINARY, &h.list, NCL_HOOK_BEFORE, NULL),
                     NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclHooksWalk(NCL_SUBSYSTEM_BINARY, NULL, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclHooksWalk((NclSubsystem)42, collect_name, NULL), NCL_ERR_INVALID_ARGUMENT);

    /* unlinked */
    NCL_CHECK_STATUS(NclApiUnhook(NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclApiUnhook(&h.list), NCL_ERR_HOOK);
    NCL_CHECK_STATUS(NclApiUnhookDeferred(&h.list, NULL, NULL), NCL_ERR_HOOK);

    /* double insert, into the same chain or another */
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_BINARY, &h.list));
    NCL_CHECK_STATUS(NclApiHook(NCL_SUBSYSTEM_BINARY, &h.list), NCL_ERR_HOOK);
    NCL_CHECK_STATUS(NclApiHookAt(NCL_SUBSYSTEM_BINARY, &h.list, NCL_HOOK_BACK, NULL), NCL_ERR_HOOK);
    h.fn.any = NULL;
    h.fn.binary = plain_binary;

    /* anchors: in another chain, or after the default */
    NCL_CHECK_STATUS(NclApiHookAt(NCL_SUBSYSTEM_UNARY, &u.list, NCL_HOOK_BEFORE, &h.list),
                     NCL_ERR_HOOK);
    NCL_CHECK_STATUS(NclApiHookAt(NCL_SUBSYSTEM_UNARY, &u.list, NCL_HOOK_AFTER,
                                  default_node(NCL_SUBSYSTEM_UNARY)),
                     NCL_ERR_HOOK);
    NCL_CHECK_OK(NclApiHookAt(NCL_SUBSYSTEM_UNARY, &u.list, NCL_HOOK_FRONT, NULL));

    /* built-ins cannot be removed */
    NCL_CHECK_STATUS(NclApiUnhook(default_node(NCL_SUBSYSTEM_BINARY)), NCL_ERR_HOOK);
    NCL_CHECK_STATUS(NclApiUnhookDeferred(default_node(NCL_SUBSYSTEM_UNARY), NULL, NULL),
                     NCL_ERR_HOOK);
    NCL_CHECK_OK(NclLedgerEnable(1));
    names n;
    chain_names(NCL_SUBSYSTEM_CREATE, &n);
    ck_assert_str_eq(n.text, "ncl_ledger,ncl_default_create");
    NclListHead *ledger = NULL;
    {
        /* the first node of the Create chain is the ledger */
        const NclApi *api = NclGetApi();
        ledger = api->heads[NCL_SUBSYSTEM_CREATE]->next;
    }
    NCL_CHECK_STATUS(NclApiUnhook(ledger), NCL_ERR_HOOK);
    NCL_CHECK_OK(NclLedgerEnable(0));

    /* a level-1 node is not a kernel node, and the other way round */
    NCL_CHECK_STATUS(NclKernelUnhook(&h.list), NCL_ERR_HOOK);
    NclKernelNode k;
    memset(&k, 0, sizeof k);
    k.name = "k";
    k.fn = plain_kernel;
    const NclDType sig[3] = { NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64 };
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig, &k.list));
    NCL_CHECK_STATUS(NclApiUnhook(&k.list), NCL_ERR_HOOK);
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig, &k.list), NCL_ERR_HOOK);
    NCL_CHECK_OK(NclKernelUnhook(&k.list));
    NCL_CHECK_STATUS(NclKernelUnhook(&k.list), NCL_ERR_HOOK);

    /* a node whose library words are not zero */
    NclHook dirty = make_hook("dirty", NULL);
    dirty.fn.binary = plain_binary;
    dirty.priv[0] = &dirty;
    NCL_CHECK_STATUS(NclApiHook(NCL_SUBSYSTEM_BINARY, &dirty.list), NCL_ERR_HOOK);

    /* Next past the default, and with no self */
    NclArray *a = seq(2, 0), *out = NULL;
    NclHook *def = NCL_CONTAINER_OF(default_node(NCL_SUBSYSTEM_BINARY), NclHook, list);
    NCL_CHECK_STATUS(NclBinaryNext(def, NCL_ADD, a, a, &out, NULL), NCL_ERR_HOOK);
    NCL_CHECK_STATUS(NclBinaryNext(NULL, NCL_ADD, a, a, &out, NULL), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(out);

    NCL_CHECK_OK(NclApiUnhook(&h.list));
    NCL_CHECK_OK(NclApiUnhook(&u.list));
    NclArrayRelease(a);
}
END_TEST

START_TEST(test_hooks_reset)
{
    NclHook b1 = make_hook("b1", NULL), b2 = make_hook("b2", NULL), u1 = make_hook("u1", NULL);
    b1.fn.binary = b2.fn.binary = plain_binary;
    u1.fn.unary = plain_unary;
    NclKernelNode k;
    memset(&k, 0, sizeof k);
    k.name = "k";
    k.fn = plain_kernel;
    const NclDType sig[3] = { NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64 };

    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_BINARY, &b1.list));
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_BINARY, &b2.list));
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_UNARY, &u1.list));
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig, &k.list));
    NCL_CHECK_OK(NclLedgerEnable(1));
    names n;
    ck_assert_str_eq(chain_names(NCL_SUBSYSTEM_BINARY, &n), "ncl_ledger,b2,b1,ncl_default_binary");

    NCL_CHECK_OK(NclHooksReset());
    ck_assert_str_eq(chain_names(NCL_SUBSYSTEM_BINARY, &n), "ncl_ledger,ncl_default_binary");
    ck_assert_str_eq(chain_names(NCL_SUBSYSTEM_UNARY, &n), "ncl_ledger,ncl_default_unary");
    NCL_CHECK_OK(NclHooksReset());  /* nothing left to remove */

    /* every removed node is free again */
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_BINARY, &b1.list));
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig, &k.list));
    NclArray *a = seq(8, 3), *out = NULL;
    NCL_CHECK_OK(NclBinary(NCL_ADD, a, a, &out, NULL));
    check_sum(out, a, a, 1);
    NCL_CHECK_OK(NclLedgerEnable(0));
    NCL_CHECK_OK(NclHooksReset());
    ck_assert_str_eq(chain_names(NCL_SUBSYSTEM_BINARY, &n), "ncl_default_binary");
    NCL_CHECK_STATUS(NclKernelUnhook(&k.list), NCL_ERR_HOOK);  /* reset removed it */
    NclArrayRelease(a);
    NclArrayRelease(out);
}
END_TEST

/* ---- level 2: kernel hooks ------------------------------------------------------------- */

static atomic_int fast_calls, slow_calls, ctx_bad;

/* float64 add that handles contiguous operands itself and hands the rest on. */
static NclStatus contiguous_add(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                                int64_t n, const int64_t *steps)
{
    if (ctx->subsystem != NCL_SUBSYSTEM_BINARY || ctx->op != NCL_ADD || ctx->nin != 2 ||
        ctx->nout != 1 || ctx->signature == NULL || ctx->signature[0] != NCL_FLOAT64 ||
        ctx->signature[1] != NCL_FLOAT64 || ctx->signature[2] != NCL_FLOAT64 || ctx->fpe == NULL)
        atomic_fetch_add(&ctx_bad, 1);
    if (steps[0] != 8 || steps[1] != 8 || steps[2] != 8) {
        atomic_fetch_add(&slow_calls, 1);
        return NclKernelNext(self, ctx, args, n, steps);
    }
    atomic_fetch_add(&fast_calls, 1);
    for (int64_t i = 0; i < n; i++) {
        double x, y;
        memcpy(&x, args[0] + 8 * i, 8);
        memcpy(&y, args[1] + 8 * i, 8);
        x += y;
        memcpy(args[2] + 8 * i, &x, 8);
    }
    return NCL_OK;
}

START_TEST(test_kernel_hook_contiguous_only)
{
    NclKernelNode k;
    memset(&k, 0, sizeof k);
    k.name = "contiguous_add";
    k.fn = contiguous_add;
    const NclDType sig[3] = { NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64 };
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig, &k.list));

    NclArray *a = seq(64, 1), *b = seq(64, 1000), *out = NULL;
    NCL_CHECK_OK(NclBinary(NCL_ADD, a, b, &out, NULL));
    check_sum(out, a, b, 1);
    ck_assert_int_gt(atomic_load(&fast_calls), 0);
    ck_assert_int_eq(atomic_load(&slow_calls), 0);

    /* every other element of a 128-element array: byte step 16 */
    NclArray *big = seq(128, 1), *strided = NULL, *out2 = NULL;
    NCL_CHECK_OK(NclArraySlice(big, NULL, NULL, NCL_DIMS(2), &strided));
    ck_assert_int_eq(NclArrayStrides(strided)[0], 16);
    int fast_before = atomic_load(&fast_calls);
    NCL_CHECK_OK(NclBinary(NCL_ADD, strided, b, &out2, NULL));
    check_sum(out2, strided, b, 1);
    ck_assert_int_gt(atomic_load(&slow_calls), 0);
    ck_assert_int_eq(atomic_load(&fast_calls), fast_before);
    ck_assert_int_eq(atomic_load(&ctx_bad), 0);

    /* Other signatures and ops do not reach it. */
    NclArray *i32 = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(3), 1, 2, 3), *out3 = NULL;
    int total = atomic_load(&fast_calls) + atomic_load(&slow_calls);
    NCL_CHECK_OK(NclBinary(NCL_ADD, i32, i32, &out3, NULL));
    NCL_CHECK_OK(NclBinary(NCL_SUBTRACT, a, b, &out, NULL));
    ck_assert_int_eq(atomic_load(&fast_calls) + atomic_load(&slow_calls), total);

    NCL_CHECK_OK(NclKernelUnhook(&k.list));
    NCL_CHECK_OK(NclBinary(NCL_ADD, a, b, &out, NULL));
    check_sum(out, a, b, 1);
    ck_assert_int_eq(atomic_load(&fast_calls) + atomic_load(&slow_calls), total);

    NclArrayRelease(a);
    NclArrayRelease(b);
    NclArrayRelease(out);
    NclArrayRelease(big);
    NclArrayRelease(strided);
    NclArrayRelease(out2);
    NclArrayRelease(i32);
    NclArrayRelease(out3);
}
END_TEST

START_TEST(test_kernel_hook_refused)
{
    NclKernelNode k;
    memset(&k, 0, sizeof k);
    k.name = "k";
    k.fn = plain_kernel;
    const NclDType nokernel[3] = { NCL_INT8, NCL_INT8, NCL_FLOAT32 };
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_BINARY, NCL_ADD, nokernel, &k.list), NCL_ERR_DTYPE);
    NCL_CHECK_MESSAGE_HAS("add");
    NCL_CHECK_MESSAGE_HAS("int8, int8, float32");
    const NclDType bad[3] = { NCL_FLOAT64, (NclDType)77, NCL_FLOAT64 };
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_BINARY, NCL_ADD, bad, &k.list),
                     NCL_ERR_INVALID_ARGUMENT);
    const NclDType f64[3] = { NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64 };
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_BINARY, 999, f64, &k.list), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_BINARY, -1, f64, &k.list), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_BINARY, NCL_ADD, NULL, &k.list),
                     NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_BINARY, NCL_ADD, f64, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_CREATE, 0, f64, &k.list), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_INFO, 0, f64, &k.list), NCL_ERR_INVALID_ARGUMENT);
    /* RNG kernel ops name the distribution and the bit generator */
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_RNG, NCL_RNG_KERNEL_OP(NCL_RNG_NOPS, 0), f64, &k.list),
                     NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_RNG, NCL_RNG_KERNEL_OP(NCL_RNG_RANDOM, NCL_BITGEN_COUNT),
                                   f64, &k.list),
                     NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_RNG, NCL_RNG_KERNEL_OP(NCL_RNG_RANDOM, NCL_BITGEN_PCG64),
                                   (const NclDType[]){ NCL_INT8 }, &k.list),
                     NCL_ERR_DTYPE);
    NCL_CHECK_MESSAGE_HAS("random/PCG64");
    /* a built subsystem, but a signature with no kernel: where's condition is bool */
    const NclDType where_f64[4] = { NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64 };
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_TERNARY, NCL_WHERE, where_f64, &k.list),
                     NCL_ERR_DTYPE);
    NCL_CHECK_STATUS(NclKernelHook((NclSubsystem)50, 0, f64, &k.list), NCL_ERR_INVALID_ARGUMENT);
    k.fn = NULL;
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_BINARY, NCL_ADD, f64, &k.list),
                     NCL_ERR_INVALID_ARGUMENT);
    k.fn = plain_kernel;
    /* a Unary signature has two dtypes */
    const NclDType un[2] = { NCL_FLOAT64, NCL_FLOAT64 };
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_UNARY, NCL_SQRT, un, &k.list));
    NclArray *a = seq(4, 1), *out = NULL;
    NCL_CHECK_OK(NclUnary(NCL_SQRT, a, &out, NULL));  /* passes through to the built-in */
    ck_assert(ncl_test_get_d(out, 3) == 2.0);
    NCL_CHECK_OK(NclKernelUnhook(&k.list));
    NCL_CHECK_STATUS(NclKernelUnhook(NULL), NCL_ERR_INVALID_ARGUMENT);
    NclArrayRelease(a);
    NclArrayRelease(out);
}
END_TEST

static atomic_int kernel_self_calls, kernel_reclaimed;
static NclStatus kernel_unhook_status = NCL_OK;

/* Removes itself on its first run (deferred: it is inside a call), then
   passes the work on. */
static NclStatus kernel_removing(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                                 int64_t n, const int64_t *steps)
{
    if (atomic_fetch_add(&kernel_self_calls, 1) == 0) {
        kernel_unhook_status = NclKernelUnhook(&self->list);
        NclApiUnhookDeferred(&self->list, on_reclaim, &kernel_reclaimed);
    }
    return NclKernelNext(self, ctx, args, n, steps);
}

START_TEST(test_kernel_self_removal)
{
    static NclKernelNode k;
    memset(&k, 0, sizeof k);
    k.name = "kernel_removing";
    k.fn = kernel_removing;
    const NclDType sig[3] = { NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64 };
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_BINARY, NCL_MULTIPLY, sig, &k.list));
    NclArray *a = seq(8, 1), *out = NULL;
    NCL_CHECK_OK(NclBinary(NCL_MULTIPLY, a, a, &out, NULL));
    for (int i = 0; i < 8; i++) ck_assert(ncl_test_get_d(out, i) == (i + 1.0) * (i + 1.0));
    ck_assert_int_eq(kernel_unhook_status, NCL_ERR_HOOK);  /* would wait for itself */
    int runs = atomic_load(&kernel_self_calls);
    ck_assert_int_ge(runs, 1);
    NCL_CHECK_OK(NclBinary(NCL_MULTIPLY, a, a, &out, NULL));
    ck_assert_int_eq(atomic_load(&kernel_self_calls), runs);  /* gone */
    for (int i = 0; i < 5000 && atomic_load(&kernel_reclaimed) == 0; i++) sleep_ms(1);
    ck_assert_int_eq(atomic_load(&kernel_reclaimed), 1);
    NCL_CHECK_STATUS(NclKernelUnhook(&k.list), NCL_ERR_HOOK);  /* not linked any more */
    NclArrayRelease(a);
    NclArrayRelease(out);
}
END_TEST

/* ---- NclInfo ------------------------------------------------------------------------------ */

static const char *const bad_json[] = { "", "{bad", "01", "[1,]", "\"open", "nul", "{\"a\":1,}",
                                        "1 2", "[1]]", "\"\x01\"", "\"\\x\"", "-", "1.", ".5",
                                        "{\"a\"}", "\"\xff\"", "tru" };
static const char *const good_json[] = { " 1.5e-3 ", "[]", "{}", "null", "\"\\u00e9\"",
                                         "{\"a\":[1,{\"b\":false}],\"c\":-0.0}", "true", "\"\xc3\xa9\"" };
static int json_checks_ok = -1;

/* Adds its own members, checks the writer's validation, then goes on. */
static NclStatus info_hook(NclHook *self, NclInfoWriter *w)
{
    int ok = 1;
    for (size_t i = 0; i < sizeof bad_json / sizeof bad_json[0]; i++)
        if (NclInfoAddJson(w, "bad", bad_json[i]) != NCL_ERR_INVALID_ARGUMENT) ok = 0;
    for (size_t i = 0; i < sizeof good_json / sizeof good_json[0]; i++) {
        char key[16];
        snprintf(key, sizeof key, "good%zu", i);
        if (NclInfoAddJson(w, key, good_json[i]) != NCL_OK) ok = 0;
    }
    if (NclInfoAddJson(NULL, "x", "1") != NCL_ERR_INVALID_ARGUMENT) ok = 0;
    if (NclInfoAddJson(w, NULL, "1") != NCL_ERR_INVALID_ARGUMENT) ok = 0;
    if (NclInfoAddString(w, "x", NULL) != NCL_ERR_INVALID_ARGUMENT) ok = 0;
    json_checks_ok = ok;
    NclStatus st = NclInfoAddJson(w, "gpu", "{\"device\": \"none\", \"count\": 0}");
    if (st == NCL_OK)
        st = NclInfoAddString(w, "note", "tab\t quote\" backslash\\ newline\n ctl\x01 \xc3\xa9 bad\xff!");
    if (st != NCL_OK) return st;
    return NclInfoNext(self, w);
}

/* Whether /usr/bin/python3 parses text as JSON; -1 when it cannot be run. */
static int python_json_ok(const char *text)
{
    if (access("/usr/bin/python3", X_OK) != 0) return -1;
    FILE *p = popen("/usr/bin/python3 -c 'import json,sys; json.load(sys.stdin)'", "w");
    if (p == NULL) return -1;
    fputs(text, p);
    int rc = pclose(p);
    return rc == 0;
}

/* A structural check that does not need python: strings closed, brackets
   balanced and properly nested, no raw control characters. */
static int balanced_json(const char *s)
{
    char stack[128];
    int depth = 0, in_string = 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (in_string) {
            if (c < 0x20) return 0;
            if (c == '\\') { if (!*++s) return 0; }
            else if (c == '"') in_string = 0;
            continue;
        }
        if (c == '"') in_string = 1;
        else if (c == '{' || c == '[') { if (depth == 128) return 0; stack[depth++] = (char)c; }
        else if (c == '}' || c == ']') {
            if (depth == 0 || stack[--depth] != (c == '}' ? '{' : '[')) return 0;
        }
    }
    return !in_string && depth == 0;
}

static char *info_text(void)
{
    size_t need = 0;
    NCL_CHECK_STATUS(NclInfo(NULL, 0, &need), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_uint_gt(need, 2);
    char *buf = malloc(need + 64);
    ck_assert_ptr_nonnull(buf);
    size_t got = 0;
    NCL_CHECK_OK(NclInfo(buf, need + 64, &got));
    ck_assert_uint_eq(got, need);
    ck_assert_uint_eq(strlen(buf) + 1, need);
    return buf;
}

START_TEST(test_info_json)
{
    char *plain = info_text();
    ck_assert(balanced_json(plain));
    ck_assert_int_ne(python_json_ok(plain), 0);
    ck_assert_ptr_nonnull(strstr(plain, "\"version\":\"" NCL_VERSION_STRING "\""));
    ck_assert_ptr_nonnull(strstr(plain, "\"abi\":"));
    ck_assert_ptr_nonnull(strstr(plain, "\"cpu\":{"));
    ck_assert_ptr_nonnull(strstr(plain, "\"isa\":"));
    ck_assert_ptr_nonnull(strstr(plain, "\"allocator\":\"ncl_default\""));
    ck_assert_ptr_nonnull(strstr(plain, "\"threads\":{"));
    ck_assert_ptr_nonnull(strstr(plain, "\"topology\":"));
    ck_assert_ptr_nonnull(strstr(plain, "\"binary\":[\"ncl_default_binary\"]"));
    free(plain);

    /* An Info hook, a hook with an awkward name, a kernel hook. */
    NclHook ih = make_hook("info_hook", NULL), odd = make_hook("we\"ird\\name\n", NULL);
    ih.fn.info = info_hook;
    odd.fn.binary = plain_binary;
    NclKernelNode k;
    memset(&k, 0, sizeof k);
    k.name = "my_kernel";
    k.fn = plain_kernel;
    const NclDType sig[3] = { NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64 };
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_INFO, &ih.list));
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_BINARY, &odd.list));
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_BINARY, NCL_MULTIPLY, sig, &k.list));
    char *text = info_text();
    ck_assert_int_eq(json_checks_ok, 1);
    ck_assert_msg(balanced_json(text), "%s", text);
    ck_assert_msg(python_json_ok(text) != 0, "python rejects: %s", text);
    ck_assert_ptr_nonnull(strstr(text, "\"gpu\":{\"device\": \"none\", \"count\": 0}"));
    ck_assert_msg(strstr(text, "\"note\":\"tab\\t quote\\\" backslash\\\\ newline\\n ctl\\u0001 "
                               "\xc3\xa9 bad\\ufffd!\"") != NULL, "%s", text);
    ck_assert_ptr_nonnull(strstr(text, "\"binary\":[\"we\\\"ird\\\\name\\n\",\"ncl_default_binary\"]"));
    ck_assert_ptr_nonnull(strstr(text, "\"info\":[\"info_hook\",\"ncl_default_info\"]"));
    ck_assert_ptr_nonnull(strstr(text, "\"op\":\"multiply\""));
    ck_assert_ptr_nonnull(strstr(text, "\"nodes\":[\"my_kernel\",\"ncl_k_multiply_f64\"]"));

    /* Buffer rules: too small is refused with the size, and leaves "". */
    size_t need = strlen(text) + 1, got = 0;
    char *small = malloc(need);
    ck_assert_ptr_nonnull(small);
    memset(small, 'x', need);
    NCL_CHECK_STATUS(NclInfo(small, need - 1, &got), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(got, need);
    ck_assert_int_eq(small[0], '\0');
    NCL_CHECK_OK(NclInfo(small, need, NULL));
    ck_assert_str_eq(small, text);
    NCL_CHECK_STATUS(NclInfo(NULL, 10, &got), NCL_ERR_INVALID_ARGUMENT);

    NCL_CHECK_OK(NclApiUnhook(&ih.list));
    NCL_CHECK_OK(NclApiUnhook(&odd.list));
    NCL_CHECK_OK(NclKernelUnhook(&k.list));
    free(text);
    free(small);
}
END_TEST

/* ---- the ledger --------------------------------------------------------------------------- */

/* The numbers of the report row of (sub, op); 0 when there is none. */
static int ledger_row(const char *report, const char *sub, const char *op,
                      unsigned long long v[4], char *kernel, size_t kcap)
{
    for (const char *line = report; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char s[32], o[32], k[64];
        double ms, per;
        int threads;
        if (sscanf(line, "%31s %31s %llu %llu %llu %llu %lf %lf %63s %d", s, o, &v[0], &v[1], &v[2],
                   &v[3], &ms, &per, k, &threads) == 10 &&
            strcmp(s, sub) == 0 && strcmp(o, op) == 0) {
            snprintf(kernel, kcap, "%s", k);
            return 1;
        }
    }
    return 0;
}

START_TEST(test_ledger)
{
    NCL_CHECK_OK(NclLedgerEnable(1));
    NCL_CHECK_OK(NclLedgerEnable(1));  /* a no-op */
    names n;
    ck_assert_str_eq(chain_names(NCL_SUBSYSTEM_BINARY, &n), "ncl_ledger,ncl_default_binary");
    ck_assert_str_eq(chain_names(NCL_SUBSYSTEM_INFO, &n), "ncl_default_info");
    NclLedgerReset();

    NclArray *a = seq(16, 1), *b = seq(16, 2), *c = seq(3, 0), *out = NULL, *r = NULL, *z = NULL;
    for (int i = 0; i < 3; i++) NCL_CHECK_OK(NclBinary(NCL_ADD, a, b, &out, NULL));
    NCL_CHECK_STATUS(NclBinary(NCL_ADD, a, c, &r, NULL), NCL_ERR_BROADCAST);
    NCL_CHECK_OK(NclUnary(NCL_SQRT, a, &r, NULL));
    NCL_CHECK_OK(NclZeros(NCL_INT32, 1, NCL_DIMS(10), &z));

    size_t need = 0;
    NCL_CHECK_STATUS(NclLedgerReport(NULL, 0, &need), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_uint_gt(need, 1);
    char *rep = malloc(need);
    ck_assert_ptr_nonnull(rep);
    NCL_CHECK_STATUS(NclLedgerReport(rep, need - 1, NULL), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(rep[0], '\0');
    NCL_CHECK_OK(NclLedgerReport(rep, need, NULL));
    ck_assert_uint_eq(strlen(rep) + 1, need);
    ck_assert_ptr_nonnull(strstr(rep, "subsystem"));

    unsigned long long v[4];
    char kernel[64];
    ck_assert_msg(ledger_row(rep, "binary", "add", v, kernel, sizeof kernel), "%s", rep);
    ck_assert_uint_eq(v[0], 4);   /* calls */
    ck_assert_uint_eq(v[1], 1);   /* errors */
    ck_assert_uint_eq(v[2], 48);  /* elements */
    ck_assert_uint_gt(v[3], 0);   /* bytes */
    ck_assert_str_eq(kernel, "ncl_k_add_f64");
    ck_assert_msg(ledger_row(rep, "unary", "sqrt", v, kernel, sizeof kernel), "%s", rep);
    ck_assert_uint_eq(v[0], 1);
    ck_assert_uint_eq(v[2], 16);
    ck_assert_msg(ledger_row(rep, "create", "zeros", v, kernel, sizeof kernel), "%s", rep);
    ck_assert_uint_eq(v[0], 1);
    ck_assert_uint_eq(v[2], 10);
    ck_assert(!ledger_row(rep, "binary", "subtract", v, kernel, sizeof kernel));
    free(rep);

    /* Off: the nodes go, counting stops. */
    NCL_CHECK_OK(NclLedgerEnable(0));
    NCL_CHECK_OK(NclLedgerEnable(0));
    ck_assert_str_eq(chain_names(NCL_SUBSYSTEM_BINARY, &n), "ncl_default_binary");
    NclLedgerReset();
    NCL_CHECK_OK(NclBinary(NCL_ADD, a, b, &out, NULL));
    char small[1024];
    NCL_CHECK_OK(NclLedgerReport(small, sizeof small, NULL));
    ck_assert(!ledger_row(small, "binary", "add", v, kernel, sizeof kernel));
    /* and on again */
    NCL_CHECK_OK(NclLedgerEnable(1));
    NCL_CHECK_OK(NclBinary(NCL_ADD, a, b, &out, NULL));
    NCL_CHECK_OK(NclLedgerReport(small, sizeof small, NULL));
    ck_assert(ledger_row(small, "binary", "add", v, kernel, sizeof kernel));
    ck_assert_uint_eq(v[0], 1);
    NCL_CHECK_OK(NclLedgerEnable(0));

    NclArrayRelease(a);
    NclArrayRelease(b);
    NclArrayRelease(c);
    NclArrayRelease(out);
    NclArrayRelease(r);
    NclArrayRelease(z);
}
END_TEST

/* ---- the master head through dlopen ------------------------------------------------------- */

START_TEST(test_get_api_dlopen)
{
    void *lib = dlopen(NCL_TEST_LIBPATH, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(lib != NULL, "dlopen(%s): %s", NCL_TEST_LIBPATH, dlerror());
    void *sym = dlsym(lib, "NclGetApi");
    ck_assert_ptr_nonnull(sym);
    const NclApi *(*get)(void);
    memcpy(&get, &sym, sizeof get);  /* ISO C has no object-to-function pointer cast */
    const NclApi *api = get();
    ck_assert_ptr_nonnull(api);
    ck_assert_ptr_eq(get(), api);
    ck_assert_uint_eq(api->abi_version, NCL_ABI_VERSION);
    ck_assert_uint_eq(api->size, sizeof(NclApi));
    ck_assert_str_eq(api->version, NCL_VERSION_STRING);
#define NCL_X_(ret, name, params) ck_assert_msg(api->name != NULL, "NclApi." #name " is NULL");
    NCL_API_FUNCTION_LIST(NCL_X_)
#undef NCL_X_
    const NclSubsystem built[] = { NCL_SUBSYSTEM_INFO, NCL_SUBSYSTEM_CREATE, NCL_SUBSYSTEM_CONVERT,
                                   NCL_SUBSYSTEM_COMPARE, NCL_SUBSYSTEM_UNARY, NCL_SUBSYSTEM_BINARY,
                                   NCL_SUBSYSTEM_ISUNARY, NCL_SUBSYSTEM_TERNARY,
                                   NCL_SUBSYSTEM_REDUCE, NCL_SUBSYSTEM_SORT, NCL_SUBSYSTEM_MASK,
                                   NCL_SUBSYSTEM_RNG, NCL_SUBSYSTEM_LINALG, NCL_SUBSYSTEM_MANIP };
    /* NCL_SUBSYSTEM_LIST may skip a value (one not in this version): its
       head is NULL and a hook there is refused as not built. */
    enum {
        NAMED = 0
#define NCL_X_(name, value, text) +1
        NCL_SUBSYSTEM_LIST(NCL_X_)
#undef NCL_X_
    };
    _Static_assert(sizeof built / sizeof built[0] == NAMED, "every subsystem is built");
    for (size_t i = 0; i < sizeof built / sizeof built[0]; i++)
        ck_assert_ptr_nonnull(api->heads[built[i]]);
    for (int s = 0; s < NCL_SUBSYSTEM_COUNT; s++) {
        int named = 0;
        for (size_t i = 0; i < sizeof built / sizeof built[0]; i++) named |= (int)built[i] == s;
        if (named) continue;
        ck_assert_ptr_null(api->heads[s]);
        NclHook g = make_hook("unbuilt", NULL);
        g.fn.binary = plain_binary;
        ck_assert_int_eq(api->ApiHook((NclSubsystem)s, &g.list), NCL_ERR_UNSUPPORTED);
    }

    /* Everything through the table alone. */
    double x[4] = { 1, 2, 3, 4 }, y[4] = { 10, 20, 30, 40 };
    NclArray *a = NULL, *b = NULL, *out = NULL;
    ck_assert_int_eq(api->FromData(NCL_FLOAT64, 1, NCL_DIMS(4), NULL, x, 0, NULL, NULL, &a), NCL_OK);
    ck_assert_int_eq(api->FromData(NCL_FLOAT64, 1, NCL_DIMS(4), NULL, y, 0, NULL, NULL, &b), NCL_OK);
    NclHook h = make_hook("via_api", NULL);
    h.fn.binary = plain_binary;
    ck_assert_int_eq(api->ApiHook(NCL_SUBSYSTEM_BINARY, &h.list), NCL_OK);
    ck_assert_ptr_eq(api->heads[NCL_SUBSYSTEM_BINARY]->next, &h.list);  /* front of the chain */
    ck_assert_int_eq(api->Binary(NCL_ADD, a, b, &out, NULL), NCL_OK);
    const double *d = api->ArrayData(out);
    for (int i = 0; i < 4; i++) ck_assert(d[i] == x[i] + y[i]);
    names n;
    memset(&n, 0, sizeof n);
    ck_assert_int_eq(api->HooksWalk(NCL_SUBSYSTEM_BINARY, collect_name, &n), NCL_OK);
    ck_assert_str_eq(n.text, "via_api,ncl_default_binary");
    ck_assert_int_eq(api->ApiUnhook(&h.list), NCL_OK);
    ck_assert_str_eq(api->StatusString(NCL_ERR_HOOK), NclStatusString(NCL_ERR_HOOK));
    api->ArrayRelease(a);
    api->ArrayRelease(b);
    api->ArrayRelease(out);
    dlclose(lib);
}
END_TEST

/* ---- concurrency -------------------------------------------------------------------------- */

#define CALLS_PER_THREAD 20000
#define NWRITER_NODES 6

static atomic_int stop_writer;
static atomic_long passes;
static atomic_int deferred_done, deferred_asked;
static NclHook writer_nodes[NWRITER_NODES];
static atomic_int node_free[NWRITER_NODES];

static NclStatus counting_binary(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                                 NclArray **out, const NclParams *p)
{
    atomic_fetch_add(&passes, 1);
    return NclBinaryNext(self, op, a, b, out, p);
}

static void writer_reclaim(NclListHead *node, void *user)
{
    (void)node;
    atomic_store((atomic_int *)user, 1);
    atomic_fetch_add(&deferred_done, 1);
}

typedef struct caller_result {
    long ok, failed, wrong;
} caller_result;

static void *caller(void *arg)
{
    caller_result *res = arg;
    double x[16], y[16], z[16];
    for (int i = 0; i < 16; i++) { x[i] = i; y[i] = 100 - i; }
    NclArray *a = NULL, *b = NULL, *out = NULL;
    NclFromData(NCL_FLOAT64, 1, NCL_DIMS(16), NULL, x, 0, NULL, NULL, &a);
    NclFromData(NCL_FLOAT64, 1, NCL_DIMS(16), NULL, y, 0, NULL, NULL, &b);
    NclFromData(NCL_FLOAT64, 1, NCL_DIMS(16), NULL, z, NCL_ARRAY_WRITEABLE, NULL, NULL, &out);
    for (long k = 0; k < CALLS_PER_THREAD; k++) {
        memset(z, 0, sizeof z);
        if (NclBinary(NCL_ADD, a, b, &out, NULL) != NCL_OK) { res->failed++; continue; }
        int good = 1;
        for (int i = 0; i < 16; i++) good &= z[i] == 100.0;
        if (good) res->ok++;
        else res->wrong++;
    }
    NclArrayRelease(a);
    NclArrayRelease(b);
    NclArrayRelease(out);
    return NULL;
}

static void *writer(void *arg)
{
    long *rounds = arg;
    unsigned seed = 12345;
    while (!atomic_load(&stop_writer)) {
        for (int i = 0; i < NWRITER_NODES; i++) {
            seed = seed * 1103515245u + 12345u;
            NclListHead *node = &writer_nodes[i].list;
            if (atomic_load(&node_free[i])) {
                int where = (int)(seed >> 16) % 2 ? NCL_HOOK_FRONT : NCL_HOOK_BACK;
                if (NclApiHookAt(NCL_SUBSYSTEM_BINARY, node, where, NULL) == NCL_OK)
                    atomic_store(&node_free[i], 0);
            } else if ((seed >> 16) % 3 == 0) {
                atomic_fetch_add(&deferred_asked, 1);
                if (NclApiUnhookDeferred(node, writer_reclaim, &node_free[i]) != NCL_OK)
                    atomic_fetch_add(&deferred_asked, -1);
            } else if (NclApiUnhook(node) == NCL_OK) {
                atomic_store(&node_free[i], 1);
            }
        }
        (*rounds)++;
    }
    return NULL;
}

START_TEST(test_concurrent_rewiring)
{
    for (int i = 0; i < NWRITER_NODES; i++) {
        writer_nodes[i] = make_hook("counting", NULL);
        writer_nodes[i].fn.binary = counting_binary;
        atomic_store(&node_free[i], 1);
    }
    caller_result r1 = { 0, 0, 0 }, r2 = { 0, 0, 0 };
    long rounds = 0;
    pthread_t t1, t2, tw;
    ck_assert_int_eq(pthread_create(&tw, NULL, writer, &rounds), 0);
    ck_assert_int_eq(pthread_create(&t1, NULL, caller, &r1), 0);
    ck_assert_int_eq(pthread_create(&t2, NULL, caller, &r2), 0);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    atomic_store(&stop_writer, 1);
    pthread_join(tw, NULL);

    ck_assert_int_eq(r1.failed + r2.failed, 0);
    ck_assert_int_eq(r1.wrong + r2.wrong, 0);
    ck_assert_int_eq(r1.ok + r2.ok, 2 * CALLS_PER_THREAD);
    ck_assert_int_gt(rounds, 0);
    /* every deferred removal is reclaimed, once */
    for (int i = 0; i < 5000 && atomic_load(&deferred_done) < atomic_load(&deferred_asked); i++)
        sleep_ms(1);
    ck_assert_int_eq(atomic_load(&deferred_done), atomic_load(&deferred_asked));
    NCL_CHECK_OK(NclHooksReset());
    names n;
    ck_assert_str_eq(chain_names(NCL_SUBSYSTEM_BINARY, &n), "ncl_default_binary");
}
END_TEST

/* Header/library skew is detectable: the runtime version and the check of a
   program's header versions against it. */
START_TEST(test_version_check)
{
    ck_assert_int_eq(NclVersionNumber(), NCL_VERSION_NUMBER);
    ck_assert_int_eq(NCL_VERSION_NUMBER,
                     NCL_VERSION_MAJOR * 10000 + NCL_VERSION_MINOR * 100 + NCL_VERSION_PATCH);
    NCL_CHECK_OK(NCL_CHECK_VERSION());
    /* older headers of the same ABI, an earlier patch of this minor: fine */
    if (NCL_VERSION_MINOR > 0)
        NCL_CHECK_OK(NclCheckVersion(NCL_VERSION_NUMBER - 100, NCL_ABI_VERSION));
    NCL_CHECK_OK(NclCheckVersion(NCL_VERSION_NUMBER + 1, NCL_ABI_VERSION));
    /* headers newer than the library, another major version or ABI: refused */
    NCL_CHECK_STATUS(NclCheckVersion(NCL_VERSION_NUMBER + 100, NCL_ABI_VERSION),
                     NCL_ERR_UNSUPPORTED);
    NCL_CHECK_MESSAGE_HAS("older than the headers");
    NCL_CHECK_STATUS(NclCheckVersion(NCL_VERSION_NUMBER + 10000, NCL_ABI_VERSION),
                     NCL_ERR_UNSUPPORTED);
    NCL_CHECK_STATUS(NclCheckVersion(NCL_VERSION_NUMBER, NCL_ABI_VERSION + 1), NCL_ERR_UNSUPPORTED);
    NCL_CHECK_MESSAGE_HAS(NCL_VERSION_STRING);
    NCL_CHECK_STATUS(NclCheckVersion(-1, NCL_ABI_VERSION), NCL_ERR_UNSUPPORTED);
}
END_TEST

/* ---- suite ------------------------------------------------------------------------------------ */

static Suite *hooks_suite(void)
{
    Suite *s = suite_create("hooks");
    TCase *tc = ncl_test_tcase(s, "level1");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, test_insert_order);
    tcase_add_test(tc, test_punt_change_postprocess);
    tcase_add_test(tc, test_nested_call);
    tcase_add_test(tc, test_self_removal_deferred);
    tcase_add_test(tc, test_unhook_inside_refused);
    tcase_add_test(tc, test_misuse_refused);
    tcase_add_test(tc, test_nested_raise_releases_result);
    tcase_add_test(tc, test_hooks_reset);
    tc = ncl_test_tcase(s, "level2");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, test_kernel_hook_contiguous_only);
    tcase_add_test(tc, test_kernel_hook_refused);
    tcase_add_test(tc, test_kernel_self_removal);
    tc = ncl_test_tcase(s, "info_ledger_api");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, test_info_json);
    tcase_add_test(tc, test_ledger);
    tcase_add_test(tc, test_get_api_dlopen);
    tcase_add_test(tc, test_version_check);
    tc = ncl_test_tcase(s, "concurrency");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, test_concurrent_rewiring);
    return s;
}

NCL_TEST_MAIN(hooks_suite)
