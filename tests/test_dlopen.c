/*
 * test_dlopen.c: the library over a process's life.
 *
 * dlopen / dlclose: libncl.so is loaded and unloaded fifty times, reached
 * only through NclGetApi; each time hooks of both levels are inserted, some
 * remove themselves from inside a call and others are removed deferred, so
 * reclaims are still queued on liburcu's call_rcu thread when dlclose runs.
 * Unloading must wait for those reclaims, leave the library unmapped and
 * not grow the process: mappings are counted in /proc/self/maps, and in
 * the ASan build LeakSanitizer checks at exit that every load's state
 * (kernel registry, hwloc topology, cached blocks) was freed.
 *
 * fork: with hooks inserted and deferred reclaims just queued, the child
 * calls through the chains, computes correctly, unhooks (a grace period in
 * the child) and sees its own deferred reclaims run; the parent carries on.
 *
 * This suite links the library's objects (NCL_TEST_LINK_INTERNAL) rather
 * than libncl.so, so that the libncl.so it opens is not kept loaded by the
 * program itself; it calls nothing but the dlopen'd copy (through the
 * NclApi table), except in the fork test, which uses the linked copy.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "ncl_test.h"

#ifndef NCL_TEST_LIBPATH
#  error "NCL_TEST_LIBPATH must name the built libncl.so (set by tests/CMakeLists.txt)"
#endif

#define LOAD_CYCLES 50

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* What the process has mapped now: all mappings, those backed by a file
   (shared objects and what they map), and those that name path. */
typedef struct maps_count {
    int all, files, naming;
} maps_count;

static maps_count count_maps(const char *path)
{
    maps_count m = { -1, -1, -1 };
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL) return m;
    m.all = m.files = m.naming = 0;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        m.all++;
        if (strchr(line, '/') != NULL) m.files++;
        if (path != NULL && strstr(line, path) != NULL) m.naming++;
    }
    fclose(f);
    return m;
}

/* Bytes malloc has handed out and not had back. */
static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

/* ---- hooks that live in this program, used by the loaded library ----------------- */

static const NclApi *api;   /* the loaded copy's table, for the hooks */
static atomic_int reclaimed, self_calls, pass_calls, kernel_calls;

static void on_reclaim(NclListHead *node, void *user)
{
    (void)node;
    (void)user;
    atomic_fetch_add(&reclaimed, 1);
}

static NclStatus self_removing(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                               NclArray **out, const NclParams *p)
{
    atomic_fetch_add(&self_calls, 1);
    if (self->user != NULL) {  /* still linked: leave, once */
        self->user = NULL;
        api->ApiUnhookDeferred(&self->list, on_reclaim, NULL);
    }
    return api->BinaryNext(self, op, a, b, out, p);
}

static NclStatus passing(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                         NclArray **out, const NclParams *p)
{
    atomic_fetch_add(&pass_calls, 1);
    return api->BinaryNext(self, op, a, b, out, p);
}

static NclStatus kernel_pass(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                             int64_t n, const int64_t *steps)
{
    atomic_fetch_add(&kernel_calls, 1);
    return api->KernelNext(self, ctx, args, n, steps);
}

static NclHook h_self, h_pass;
static NclKernelNode k_pass;

/* One load: hooks in, calls, deferred removals queued, unload. Returns the
   number of deferred removals it queued. */
static int one_cycle(int cycle)
{
    void *lib = dlopen(NCL_TEST_LIBPATH, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(lib != NULL, "cycle %d: dlopen(%s): %s", cycle, NCL_TEST_LIBPATH, dlerror());
    void *sym = dlsym(lib, "NclGetApi");
    ck_assert_ptr_nonnull(sym);
    const NclApi *(*get)(void);
    memcpy(&get, &sym, sizeof get);
    api = get();
    ck_assert_ptr_nonnull(api);

    /* Nodes are reused from cycle to cycle: each was reclaimed before the
       previous unload finished, so it is free to zero and insert again. */
    memset(&h_self, 0, sizeof h_self);
    memset(&h_pass, 0, sizeof h_pass);
    memset(&k_pass, 0, sizeof k_pass);
    h_self.name = "self_removing";
    h_self.fn.binary = self_removing;
    h_self.user = &h_self;
    h_pass.name = "passing";
    h_pass.fn.binary = passing;
    k_pass.name = "kernel_pass";
    k_pass.fn = kernel_pass;
    const NclDType sig[3] = { NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64 };
    ck_assert_int_eq(api->ApiHook(NCL_SUBSYSTEM_BINARY, &h_self.list), NCL_OK);
    ck_assert_int_eq(api->ApiHookAt(NCL_SUBSYSTEM_BINARY, &h_pass.list, NCL_HOOK_BACK, NULL), NCL_OK);
    ck_assert_int_eq(api->KernelHook(NCL_SUBSYSTEM_BINARY, NCL_ADD, sig, &k_pass.list), NCL_OK);

    double x[8], y[8];
    for (int i = 0; i < 8; i++) {
        x[i] = i;
        y[i] = 10 * i;
    }
    const int64_t shape[1] = { 8 };
    NclArray *a = NULL, *b = NULL, *out = NULL, *out2 = NULL;
    ck_assert_int_eq(api->FromData(NCL_FLOAT64, 1, shape, NULL, x, 0, NULL, NULL, &a), NCL_OK);
    ck_assert_int_eq(api->FromData(NCL_FLOAT64, 1, shape, NULL, y, 0, NULL, NULL, &b), NCL_OK);
    ck_assert_int_eq(api->Binary(NCL_ADD, a, b, &out, NULL), NCL_OK);  /* h_self leaves */
    const double *d = api->ArrayData(out);
    for (int i = 0; i < 8; i++) ck_assert(d[i] == 11.0 * i);
    ck_assert_int_eq(api->ApiUnhookDeferred(&h_pass.list, on_reclaim, NULL), NCL_OK);
    ck_assert_int_eq(api->ApiUnhookDeferred(&k_pass.list, on_reclaim, NULL), NCL_OK);
    ck_assert_int_eq(api->Binary(NCL_MULTIPLY, a, b, &out2, NULL), NCL_OK);
    d = api->ArrayData(out2);
    for (int i = 0; i < 8; i++) ck_assert(d[i] == 10.0 * i * i);
    /* memory from the loaded copy's default handler, given back to it */
    NclArray *z = NULL;
    ck_assert_int_eq(api->Zeros(NCL_INT32, 1, NCL_DIMS(100000), &z), NCL_OK);
    api->ArrayRelease(z);
    api->ArrayRelease(a);
    api->ArrayRelease(b);
    api->ArrayRelease(out);
    api->ArrayRelease(out2);
    api = NULL;
    /* No waiting here: the reclaims just queued are usually still pending,
       and unloading must wait for them itself. */
    ck_assert_int_eq(dlclose(lib), 0);
    return 3;
}

START_TEST(test_dlopen_dlclose_loop)
{
    int queued = 0;
    maps_count early = { 0, 0, 0 };
    size_t heap_early = 0;
    for (int cycle = 0; cycle < LOAD_CYCLES; cycle++) {
        queued += one_cycle(cycle);
        /* Unloading waited for every reclaim the cycle queued. */
        ck_assert_msg(atomic_load(&reclaimed) == queued,
                      "cycle %d: %d of %d deferred reclaims had run when dlclose returned", cycle,
                      atomic_load(&reclaimed), queued);
        maps_count m = count_maps(NCL_TEST_LIBPATH);
        /* Unloaded for real: its destructor ran, nothing of it is mapped. */
        ck_assert_msg(m.naming == 0, "cycle %d: %s still mapped after dlclose", cycle,
                      NCL_TEST_LIBPATH);
        if (cycle == 4) {
            early = m;
            heap_early = heap_in_use();
        }
        if (cycle <= 4) continue;
        /* No object (nor anything hwloc loads) stays behind. */
        ck_assert_msg(m.files <= early.files, "cycle %d: %d file mappings, %d after cycle 4",
                      cycle, m.files, early.files);
        /* Sanitizer builds: their allocator maps memory of its own as it
           goes (ASan's quarantine keeps freed blocks), and LeakSanitizer
           checks the heap at exit instead of the counts below. */
        if (NCL_TEST_SANITIZED) continue;
        /* The process does not grow with each load: a load allocates about
           700 KB (kernel registry, hwloc topology, cached blocks), so a
           load's worth left behind would show at once. The slack is for
           malloc's own arenas. */
        ck_assert_msg(m.all <= early.all + 8, "cycle %d: %d mappings, %d after cycle 4", cycle,
                      m.all, early.all);
        size_t heap = heap_in_use();
        ck_assert_msg(heap <= heap_early + 64 * 1024,
                      "cycle %d: %zu heap bytes in use, %zu after cycle 4", cycle, heap,
                      heap_early);
    }
    ck_assert_int_gt(atomic_load(&pass_calls), 0);
    ck_assert_int_gt(atomic_load(&kernel_calls), 0);
    maps_count end = count_maps(NULL);
    printf("dlopen: %d load/unload cycles, %d deferred reclaims, all run before each dlclose "
           "returned; library unmapped after every dlclose; mappings after cycle 4 / at the "
           "end: %d / %d (%d / %d of files); heap in use %zu / %zu bytes\n",
           LOAD_CYCLES, queued, early.all, end.all, early.files, end.files, heap_early,
           heap_in_use());
    fflush(stdout);
}
END_TEST

/* ---- fork ---------------------------------------------------------------------------- */

static atomic_int fork_reclaimed, fork_hook_calls;

static void fork_on_reclaim(NclListHead *node, void *user)
{
    (void)node;
    (void)user;
    atomic_fetch_add(&fork_reclaimed, 1);
}

static NclStatus fork_counting(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                               NclArray **out, const NclParams *p)
{
    atomic_fetch_add(&fork_hook_calls, 1);
    return NclBinaryNext(self, op, a, b, out, p);
}

static NclStatus fork_unary(NclHook *self, NclUnaryOp op, const NclArray *a, NclArray **out,
                            const NclParams *p)
{
    atomic_fetch_add(&fork_hook_calls, 1);
    return NclUnaryNext(self, op, a, out, p);
}

#define NDEFERRED 6

/* What the child checks; its exit status says which step failed. */
static int child_body(int pending_at_fork)
{
    double x[64], y[64];
    for (int i = 0; i < 64; i++) {
        x[i] = i;
        y[i] = 2 * i;
    }
    NclArray *a = NULL, *b = NULL, *out = NULL, *s = NULL;
    if (NclFromData(NCL_FLOAT64, 1, NCL_DIMS(64), NULL, x, 0, NULL, NULL, &a) != NCL_OK) return 10;
    if (NclFromData(NCL_FLOAT64, 1, NCL_DIMS(64), NULL, y, 0, NULL, NULL, &b) != NCL_OK) return 11;
    int before = atomic_load(&fork_hook_calls);
    if (NclBinary(NCL_ADD, a, b, &out, NULL) != NCL_OK) return 12;
    for (int i = 0; i < 64; i++)
        if (((const double *)NclArrayData(out))[i] != 3.0 * i) return 13;
    if (atomic_load(&fork_hook_calls) != before + 1) return 14;   /* the hook ran, once */
    if (NclReduce(NCL_SUM, out, &s, NULL) != NCL_OK) return 15;
    if (*(const double *)NclArrayData(s) != 3.0 * 63 * 64 / 2) return 16;
    /* The parent's queued reclaims run in the child too (its own copy of
       the nodes), and new ones are reclaimed by the child's call_rcu thread. */
    for (int i = 0; i < 5000 && atomic_load(&fork_reclaimed) < NDEFERRED; i++) sleep_ms(1);
    if (atomic_load(&fork_reclaimed) != NDEFERRED) return pending_at_fork ? 17 : 18;
    NclArrayRelease(out);
    NclArrayRelease(s);
    out = s = NULL;
    /* A grace period in the child: waiting unhook and reset. */
    if (NclHooksReset() != NCL_OK) return 19;
    before = atomic_load(&fork_hook_calls);
    if (NclBinary(NCL_SUBTRACT, b, a, &out, NULL) != NCL_OK) return 20;
    if (((const double *)NclArrayData(out))[63] != 63.0) return 21;
    if (atomic_load(&fork_hook_calls) != before) return 22;   /* hooks gone */
    NclArrayRelease(a);
    NclArrayRelease(b);
    NclArrayRelease(out);
    return 0;
}

START_TEST(test_fork_with_hooks_and_pending_reclaims)
{
    static NclHook keep, deferred[NDEFERRED];
    memset(&keep, 0, sizeof keep);
    keep.name = "fork_counting";
    keep.fn.binary = fork_counting;
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_BINARY, &keep.list));
    for (int i = 0; i < NDEFERRED; i++) {
        memset(&deferred[i], 0, sizeof deferred[i]);
        deferred[i].name = "fork_deferred";
        deferred[i].fn.unary = fork_unary;
        NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_UNARY, &deferred[i].list));
    }
    /* A first call so that the library is warm (kernels chosen, pool up). */
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(4), 1, 2, 3, 4), *out = NULL;
    NCL_CHECK_OK(NclUnary(NCL_SQRT, a, &out, NULL));
    /* Queue the reclaims, then fork at once: most runs fork with them still
       queued (a grace period takes far longer than this). */
    for (int i = 0; i < NDEFERRED; i++)
        NCL_CHECK_OK(NclApiUnhookDeferred(&deferred[i].list, fork_on_reclaim, NULL));
    int pending = NDEFERRED - atomic_load(&fork_reclaimed);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) _exit(child_body(pending > 0));
    int status = 0;
    pid_t got = 0;
    for (int i = 0; i < 30000 && got == 0; i++) {
        got = waitpid(pid, &status, WNOHANG);
        if (got == 0) sleep_ms(1);
    }
    if (got == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        ck_abort_msg("the child did not finish in 30 s (a grace period waiting for the parent's "
                     "threads?)");
    }
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "child failed: %s %d (see child_body for the step)",
                  WIFEXITED(status) ? "exit status" : "signal",
                  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    /* The parent's own reclaims run too, once each. */
    for (int i = 0; i < 5000 && atomic_load(&fork_reclaimed) < NDEFERRED; i++) sleep_ms(1);
    ck_assert_int_eq(atomic_load(&fork_reclaimed), NDEFERRED);
    NCL_CHECK_OK(NclApiUnhook(&keep.list));
    printf("fork: child computed through the chains with %d of %d deferred reclaims pending at "
           "fork\n", pending, NDEFERRED);
    fflush(stdout);
    NclArrayRelease(a);
    NclArrayRelease(out);
}
END_TEST

/* NCL_TEST_LINK_INTERNAL: linked with the library's objects, see above. */

static Suite *dlopen_suite(void)
{
    Suite *s = suite_create("process_life");
    TCase *tc = ncl_test_tcase(s, "dlopen");
    tcase_add_test(tc, test_dlopen_dlclose_loop);
    tc = ncl_test_fork_tcase(s);
    tcase_add_test(tc, test_fork_with_hooks_and_pending_reclaims);
    return s;
}

NCL_TEST_MAIN(dlopen_suite)
