/*
 * test_memory.c: the NEP 49 memory layer through the public API: per-thread
 * handler switching, arrays freed by the handler that made them with their
 * true size (the NEP's own "shift" allocator example), the event hook, the
 * shipped handlers (default, libc, NUMA, accounting), and failure paths
 * (handlers returning NULL or misaligned memory).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ncl_test.h"

/* ---- helpers ------------------------------------------------------------------ */

static int aligned_to(const void *p, size_t a) { return ((uintptr_t)p & (a - 1)) == 0; }

static void fill_pattern(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 31u + seed);
}

static int check_pattern(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(i * 31u + seed)) return 0;
    return 1;
}

/* For the stress test: every byte of the first and last KiB, one in 4 KiB
   between, so big blocks stay cheap in unoptimised builds. */
static int sampled(size_t i, size_t n) { return i < 1024 || i + 1024 >= n || i % 4096 == 0; }

static void fill_sparse(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i = sampled(i + 1, n) ? i + 1 : (i + 4096) / 4096 * 4096)
        p[i] = (unsigned char)(i * 31u + seed);
}

static int check_sparse(const unsigned char *p, size_t n, unsigned seed, int zero)
{
    for (size_t i = 0; i < n; i = sampled(i + 1, n) ? i + 1 : (i + 4096) / 4096 * 4096)
        if (p[i] != (zero ? 0 : (unsigned char)(i * 31u + seed))) return 0;
    return 1;
}

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

/* Exercises a handler directly: alignment, zeroing, realloc keeping data. */
static void exercise_handler(const NclMemHandler *h, size_t align)
{
    const NclMemAllocator *al = &h->allocator;
    static const size_t sizes[] = {0, 1, 7, 64, 100, 256, 257, 1000, 4096, 65537,
                                   (1u << 20) - 3, (1u << 20) + 1, (5u << 20) + 17};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        unsigned char *p = (unsigned char *)al->malloc(al->ctx, n);
        ck_assert_msg(p != NULL, "%s malloc(%zu) failed", h->name, n);
        ck_assert_msg(aligned_to(p, align), "%s malloc(%zu) = %p not %zu-aligned", h->name, n,
                      (void *)p, align);
        fill_pattern(p, n, 3);
        al->free(al->ctx, p, n);

        unsigned char *z = (unsigned char *)al->calloc(al->ctx, n, 1);
        ck_assert_msg(z != NULL, "%s calloc(%zu) failed", h->name, n);
        ck_assert_msg(aligned_to(z, align), "%s calloc not aligned", h->name);
        ck_assert_msg(all_zero(z, n), "%s calloc(%zu) is not zeroed", h->name, n);
        fill_pattern(z, n, 5);
        /* grow, then shrink: contents up to the smaller size survive */
        size_t big = n * 3 + 100;
        unsigned char *r = (unsigned char *)al->realloc(al->ctx, z, big);
        ck_assert_msg(r != NULL, "%s realloc(%zu) failed", h->name, big);
        ck_assert_msg(aligned_to(r, align), "%s realloc not aligned", h->name);
        ck_assert_msg(check_pattern(r, n, 5), "%s realloc lost data", h->name);
        fill_pattern(r, big, 9);
        unsigned char *s = (unsigned char *)al->realloc(al->ctx, r, n / 2 + 1);
        ck_assert_msg(s != NULL && aligned_to(s, align), "%s shrinking realloc", h->name);
        ck_assert_msg(check_pattern(s, n / 2 + 1, 9), "%s shrinking realloc lost data", h->name);
        al->free(al->ctx, s, n / 2 + 1);
    }
}

/* ---- per-thread handler ----------------------------------------------------------- */

static void *thread_handler(void *arg)
{
    const char **name = (const char **)arg;
    /* a fresh thread starts on the default whatever other threads chose */
    name[0] = NclDataMem_GetHandler()->name;
    NclDataMem_SetHandler(NclMemLibcHandler());
    NclArray *a = NULL;
    if (NclZeros(NCL_INT32, 1, NCL_DIMS(10), &a) == NCL_OK) {
        name[1] = NclArrayHandlerName(a);
        NclArrayRelease(a);
    }
    NclDataMem_SetHandler(NULL);
    return NULL;
}

START_TEST(handler_per_thread)
{
    ck_assert_str_eq(NclDataMem_GetHandler()->name, "ncl_default");
    ck_assert_ptr_eq(NclDataMem_GetHandler(), NclMemDefaultHandler());
    const NclMemHandler *prev = NclDataMem_SetHandler(NclMemLibcHandler());
    ck_assert_ptr_eq(prev, NclMemDefaultHandler());
    ck_assert_str_eq(NclDataMem_GetHandler()->name, "ncl_libc");

    const char *names[2] = {NULL, NULL};
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, thread_handler, names), 0);
    pthread_join(th, NULL);
    ck_assert_str_eq(names[0], "ncl_default");
    ck_assert_ptr_nonnull(names[1]);
    ck_assert_str_eq(names[1], "ncl_libc");
    /* the other thread's choice did not leak into this one */
    ck_assert_str_eq(NclDataMem_GetHandler()->name, "ncl_libc");

    NclArray *a = NULL;
    NCL_CHECK_OK(NclEmpty(NCL_FLOAT64, 1, NCL_DIMS(3), &a));
    ck_assert_str_eq(NclArrayHandlerName(a), "ncl_libc");
    prev = NclDataMem_SetHandler(NULL);
    ck_assert_ptr_eq(prev, NclMemLibcHandler());
    ck_assert_ptr_eq(NclDataMem_GetHandler(), NclMemDefaultHandler());
    /* the array still reports (and will be freed by) the handler that made it */
    ck_assert_str_eq(NclArrayHandlerName(a), "ncl_libc");
    NclArray *v = NULL;
    NCL_CHECK_OK(NclArraySlice(a, NULL, NULL, NULL, &v));
    ck_assert_str_eq(NclArrayHandlerName(v), "ncl_libc");
    NclArrayRelease(a);
    NclArrayRelease(v);

    NCL_CHECK_OK(NclEmpty(NCL_FLOAT64, 1, NCL_DIMS(3), &a));
    ck_assert_str_eq(NclArrayHandlerName(a), "ncl_default");
    NclArrayRelease(a);
}
END_TEST

/* ---- NEP 49's shift allocator ------------------------------------------------------- *
 * Returns base + 64 with "originally allocated <size>" written in front, and
 * frees base; a free with another size, or of a pointer it did not make, is
 * counted as an error. */

typedef struct shift_state {
    atomic_long allocs, frees, bad;
    atomic_long last_free_size;
} shift_state;

static void *shift_alloc(void *ctx, size_t sz)
{
    shift_state *st = (shift_state *)ctx;
    char *real = (char *)aligned_alloc(64, (sz + 64 + 63) / 64 * 64);
    if (real == NULL) return NULL;
    snprintf(real, 64, "originally allocated %zu", sz);
    atomic_fetch_add(&st->allocs, 1);
    return real + 64;
}

static void *shift_zero(void *ctx, size_t nelem, size_t elsize)
{
    if (elsize != 0 && nelem > SIZE_MAX / elsize) return NULL;
    char *p = (char *)shift_alloc(ctx, nelem * elsize);
    if (p != NULL) memset(p, 0, nelem * elsize);
    return p;
}

static void shift_free(void *ctx, void *p, size_t sz)
{
    shift_state *st = (shift_state *)ctx;
    if (p == NULL) return;
    char *real = (char *)p - 64;
    atomic_store(&st->last_free_size, (long)sz);
    if (strncmp(real, "originally allocated", 20) != 0) {
        atomic_fetch_add(&st->bad, 1);
        return;
    }
    size_t i = (size_t)strtoull(real + 20, NULL, 10);
    if (i != sz) atomic_fetch_add(&st->bad, 1);
    atomic_fetch_add(&st->frees, 1);
    free(real);
}

static void *shift_realloc(void *ctx, void *p, size_t sz)
{
    if (p == NULL) return shift_alloc(ctx, sz);
    char *real = (char *)p - 64;
    size_t old = (size_t)strtoull(real + 20, NULL, 10);
    char *q = (char *)shift_alloc(ctx, sz);
    if (q == NULL) return NULL;
    memcpy(q, p, old < sz ? old : sz);
    shift_free(ctx, p, old);
    return q;
}

static shift_state shift_st;
static NclMemHandler shift_handler = {
    "secret_data_allocator", 1, {&shift_st, shift_alloc, shift_zero, shift_realloc, shift_free}
};

START_TEST(shift_allocator)
{
    memset(&shift_st, 0, sizeof shift_st);
    const NclMemHandler *prev = NclDataMem_SetHandler(&shift_handler);
    NclArray *arrs[6] = {NULL};
    NCL_CHECK_OK(NclEmpty(NCL_FLOAT64, 2, NCL_DIMS(3, 5), &arrs[0]));
    NCL_CHECK_OK(NclZeros(NCL_INT8, 1, NCL_DIMS(1001), &arrs[1]));
    NCL_CHECK_OK(NclOnes(NCL_UINT16, 0, NULL, &arrs[2]));
    NCL_CHECK_OK(NclEmpty(NCL_INT32, 2, NCL_DIMS(0, 7), &arrs[3]));
    NCL_CHECK_OK(NclArange(NCL_INT64, 0, 10, 1, &arrs[4]));
    NCL_CHECK_OK(NclZeros(NCL_FLOAT32, 1, NCL_DIMS(3 << 18), &arrs[5]));
    ck_assert_str_eq(NclArrayHandlerName(arrs[0]), "secret_data_allocator");
    ck_assert_int_eq(atomic_load(&shift_st.allocs), 6);
    for (int i = 0; i < 6; i++)
        ck_assert_msg(aligned_to(NclArrayData(arrs[i]), 64), "array %d data not aligned", i);
    for (int64_t i = 0; i < 1001; i++) ck_assert_int_eq(ncl_test_get_i(arrs[1], i), 0);
    ck_assert_int_eq(ncl_test_get_i(arrs[4], 9), 9);

    /* back to the default before any release: the shift handler must still
       be the one freeing its arrays, each with its own size */
    NclDataMem_SetHandler(prev);
    NclArray *view = NULL;
    NCL_CHECK_OK(NclArrayTranspose(arrs[0], NULL, &view));
    for (int i = 0; i < 6; i++) NclArrayRelease(arrs[i]);
    ck_assert_int_eq(atomic_load(&shift_st.frees), 5);
    NclArrayRelease(view);
    ck_assert_int_eq(atomic_load(&shift_st.frees), 6);
    ck_assert_int_eq(atomic_load(&shift_st.bad), 0);
    ck_assert_int_eq(atomic_load(&shift_st.last_free_size), 15 * 8);
}
END_TEST

/* ---- free always receives the allocated size --------------------------------------- */

#define NREC 64
typedef struct size_rec {
    NclMemHandler h;
    int n_alloc, n_free;
    void *aptr[NREC], *fptr[NREC];
    size_t asize[NREC], fsize[NREC];
} size_rec;

static void *rec_malloc(void *ctx, size_t n)
{
    size_rec *r = (size_rec *)ctx;
    void *p = aligned_alloc(64, (n + 63) / 64 * 64 + 64);
    if (p && r->n_alloc < NREC) {
        r->aptr[r->n_alloc] = p;
        r->asize[r->n_alloc++] = n;
    }
    return p;
}

static void *rec_calloc(void *ctx, size_t a, size_t b)
{
    void *p = rec_malloc(ctx, a * b);
    if (p) memset(p, 0, a * b);
    return p;
}

static void rec_free(void *ctx, void *p, size_t n)
{
    size_rec *r = (size_rec *)ctx;
    if (r->n_free < NREC) {
        r->fptr[r->n_free] = p;
        r->fsize[r->n_free++] = n;
    }
    free(p);
}

static void rec_install(size_rec *r)
{
    memset(r, 0, sizeof *r);
    strcpy(r->h.name, "size_recorder");
    r->h.version = 1;
    r->h.allocator.ctx = r;
    r->h.allocator.malloc = rec_malloc;
    r->h.allocator.calloc = rec_calloc;
    r->h.allocator.free = rec_free;
}

START_TEST(free_gets_true_size)
{
    size_rec r;
    rec_install(&r);
    const NclMemHandler *prev = NclDataMem_SetHandler(&r.h);
    NclArray *a[5] = {NULL};
    NCL_CHECK_OK(NclEmpty(NCL_FLOAT64, 1, NCL_DIMS(0), &a[0]));       /* 0 bytes -> 1 */
    NCL_CHECK_OK(NclZeros(NCL_INT16, 3, NCL_DIMS(2, 0, 9), &a[1]));   /* 0 bytes -> 1 */
    NCL_CHECK_OK(NclOnes(NCL_INT32, 0, NULL, &a[2]));                 /* 4 */
    NCL_CHECK_OK(NclEmpty(NCL_UINT8, 2, NCL_DIMS(3, 7), &a[3]));      /* 21 */
    NCL_CHECK_OK(NclArange(NCL_FLOAT32, 5, 0, 1, &a[4]));             /* empty range */
    NclDataMem_SetHandler(prev);
    ck_assert_int_eq(r.n_alloc, 5);
    ck_assert_uint_eq(r.asize[0], 1);
    ck_assert_uint_eq(r.asize[1], 1);
    ck_assert_uint_eq(r.asize[2], 4);
    ck_assert_uint_eq(r.asize[3], 21);
    ck_assert_uint_eq(r.asize[4], 1);
    ck_assert_ptr_nonnull(NclArrayData(a[0]));
    for (int i = 4; i >= 0; i--) NclArrayRelease(a[i]);
    ck_assert_int_eq(r.n_free, 5);
    for (int i = 0; i < 5; i++) {
        int j = 4 - i; /* released in reverse */
        ck_assert_ptr_eq(r.fptr[i], r.aptr[j]);
        ck_assert_uint_eq(r.fsize[i], r.asize[j]);
    }
}
END_TEST

/* ---- event hook ----------------------------------------------------------------------- */

typedef struct ev { void *old_ptr, *new_ptr; size_t size; void *user; } ev;
static ev events[32];
static int n_events;

static void record_event(void *o, void *n, size_t size, void *user)
{
    if (n_events < 32) events[n_events++] = (ev){o, n, size, user};
}

static void other_event(void *o, void *n, size_t size, void *user)
{
    (void)o; (void)n; (void)size; (void)user;
}

START_TEST(event_hook_sequence)
{
    int tag = 0, tag2 = 0;
    void *old_user = &tag;
    NclMemEventFn old = NclDataMem_SetEventHook(record_event, &tag, &old_user);
    ck_assert_ptr_null((void *)(uintptr_t)old);
    ck_assert_ptr_null(old_user);
    n_events = 0;

    NclArray *a = NULL, *b = NULL, *v = NULL;
    NCL_CHECK_OK(NclZeros(NCL_FLOAT64, 1, NCL_DIMS(10), &a));
    NCL_CHECK_OK(NclEmpty(NCL_INT8, 1, NCL_DIMS(0), &b));
    NCL_CHECK_OK(NclArraySlice(a, NULL, NULL, NULL, &v)); /* views allocate no data */
    ck_assert_int_eq(n_events, 2);
    ck_assert_ptr_null(events[0].old_ptr);
    ck_assert_ptr_eq(events[0].new_ptr, NclArrayData(a));
    ck_assert_uint_eq(events[0].size, 80);
    ck_assert_ptr_eq(events[0].user, &tag);
    ck_assert_ptr_null(events[1].old_ptr);
    ck_assert_ptr_eq(events[1].new_ptr, NclArrayData(b));
    ck_assert_uint_eq(events[1].size, 1);
    void *pa = NclArrayData(a), *pb = NclArrayData(b);
    NclArrayRelease(b);
    NclArrayRelease(a);
    ck_assert_int_eq(n_events, 3); /* the view still holds a's memory */
    NclArrayRelease(v);
    ck_assert_int_eq(n_events, 4);
    ck_assert_ptr_eq(events[2].old_ptr, pb);
    ck_assert_ptr_null(events[2].new_ptr);
    ck_assert_uint_eq(events[2].size, 0);
    ck_assert_ptr_eq(events[3].old_ptr, pa);
    ck_assert_ptr_null(events[3].new_ptr);

    /* foreign memory is not NCLib's array data: no events */
    static double ext[4];
    NCL_CHECK_OK(NclFromData(NCL_FLOAT64, 1, NCL_DIMS(4), NULL, ext, 0, NULL, NULL, &a));
    NclArrayRelease(a);
    ck_assert_int_eq(n_events, 4);

    old = NclDataMem_SetEventHook(other_event, &tag2, &old_user);
    ck_assert_ptr_eq((void *)(uintptr_t)old, (void *)(uintptr_t)record_event);
    ck_assert_ptr_eq(old_user, &tag);
    old = NclDataMem_SetEventHook(NULL, NULL, NULL);
    ck_assert_ptr_eq((void *)(uintptr_t)old, (void *)(uintptr_t)other_event);
    NCL_CHECK_OK(NclZeros(NCL_FLOAT64, 1, NCL_DIMS(10), &a));
    NclArrayRelease(a);
    ck_assert_int_eq(n_events, 4);
}
END_TEST

/* A hook swapped while other threads allocate: each call must see a
   function together with its own user pointer, never a mix. */
static atomic_long pair_ok, pair_bad;
static int tag_a, tag_b;
static void ev_a(void *o, void *n, size_t sz, void *user)
{
    (void)o; (void)n; (void)sz;
    atomic_fetch_add(user == &tag_a ? &pair_ok : &pair_bad, 1);
}
static void ev_b(void *o, void *n, size_t sz, void *user)
{
    (void)o; (void)n; (void)sz;
    atomic_fetch_add(user == &tag_b ? &pair_ok : &pair_bad, 1);
}
static atomic_int swapping;

static void *alloc_loop(void *arg)
{
    (void)arg;
    while (atomic_load(&swapping)) {
        NclArray *a = NULL;
        if (NclEmpty(NCL_INT8, 1, NCL_DIMS(100), &a) == NCL_OK) NclArrayRelease(a);
    }
    return NULL;
}

START_TEST(event_hook_swapped_concurrently)
{
    atomic_store(&pair_ok, 0);
    atomic_store(&pair_bad, 0);
    atomic_store(&swapping, 1);
    pthread_t th[3];
    for (int i = 0; i < 3; i++) ck_assert_int_eq(pthread_create(&th[i], NULL, alloc_loop, NULL), 0);
    /* swap until the allocating threads have run through plenty of events
       (on a loaded machine they may start late) */
    for (long i = 0; i < 20000 || (atomic_load(&pair_ok) < 20000 && i < 50000000); i++) {
        if (i % 2) NclDataMem_SetEventHook(ev_a, &tag_a, NULL);
        else NclDataMem_SetEventHook(ev_b, &tag_b, NULL);
    }
    atomic_store(&swapping, 0);
    for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
    NclDataMem_SetEventHook(NULL, NULL, NULL);
    ck_assert_int_eq(atomic_load(&pair_bad), 0);
    ck_assert_int_gt(atomic_load(&pair_ok), 0);
}
END_TEST

/* fork() while other threads allocate and swap the event hook: the child
   must still be able to allocate (no lock or sequence left held). */
static void *churn(void *arg)
{
    (void)arg;
    while (atomic_load(&swapping)) {
        NclDataMem_SetEventHook(ev_a, &tag_a, NULL);
        NclArray *a = NULL;
        if (NclZeros(NCL_INT32, 1, NCL_DIMS(33), &a) == NCL_OK) NclArrayRelease(a);
        NclDataMem_SetEventHook(NULL, NULL, NULL);
    }
    return NULL;
}

/* The sanitizers cannot run this test; it runs in the release build.
   - AddressSanitizer with leak detection kills the test process itself
     (SIGKILL) while it forks beside allocating threads; it passes with
     ASAN_OPTIONS=detect_leaks=0.
   - The ThreadSanitizer runtime of clang 14 does not hold its own
     allocator's locks across fork (LLVM added that in 2024, for release 19).
     When a churn thread is refilling its malloc cache at the moment of the
     fork, the child's first malloc waits forever on the allocator lock that
     thread held: about one run in thirty on a loaded machine, with the child
     blocked inside the runtime's malloc, not in NCLib. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#  define NCL_TEST_NO_FORK_CHURN 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#    define NCL_TEST_NO_FORK_CHURN 1
#  endif
#endif

START_TEST(fork_while_allocating)
{
#ifdef NCL_TEST_NO_FORK_CHURN
    return;
#endif
    atomic_store(&swapping, 1);
    pthread_t th[2];
    for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_create(&th[i], NULL, churn, NULL), 0);
    int bad = 0;
    for (int k = 0; k < 40; k++) {
        pid_t pid = fork();
        if (pid == 0) {
            alarm(10); /* a deadlock shows up as a signal, not a hang */
            for (int i = 0; i < 100; i++) {
                NclArray *a = NULL;
                if (NclZeros(NCL_INT32, 1, NCL_DIMS(33), &a) != NCL_OK) _exit(2);
                NclArrayRelease(a);
            }
            NclDataMem_SetEventHook(NULL, NULL, NULL);
            _exit(0);
        }
        ck_assert_int_gt(pid, 0);
        int st = 0;
        waitpid(pid, &st, 0);
        bad += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    atomic_store(&swapping, 0);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* ---- the default handler ------------------------------------------------------------------ */

START_TEST(default_handler_direct)
{
    const NclMemHandler *h = NclMemDefaultHandler();
    ck_assert_str_eq(h->name, "ncl_default");
    ck_assert_int_eq(h->version, 1);
    exercise_handler(h, 64);

    /* a recycled block must come back zeroed from calloc */
    const NclMemAllocator *al = &h->allocator;
    for (size_t n = 16; n <= (1u << 20); n = n * 3 + 5) {
        unsigned char *p = (unsigned char *)al->malloc(al->ctx, n);
        ck_assert_ptr_nonnull(p);
        memset(p, 0xAB, n);
        al->free(al->ctx, p, n);
        unsigned char *z = (unsigned char *)al->calloc(al->ctx, 1, n);
        ck_assert_ptr_nonnull(z);
        ck_assert_msg(all_zero(z, n), "calloc(%zu) after a free is not zeroed", n);
        al->free(al->ctx, z, n);
    }
    /* overflow of nelem * elsize is refused, not wrapped */
    ck_assert_ptr_null(al->calloc(al->ctx, SIZE_MAX / 2, 4));
}
END_TEST

START_TEST(default_handler_large_zeros)
{
    /* 64 MiB of zeros: mmap path, nothing written by the library */
    NclArray *a = NULL;
    const int64_t n = 8 << 20;
    NCL_CHECK_OK(NclZeros(NCL_FLOAT64, 1, &n, &a));
    ck_assert(aligned_to(NclArrayData(a), 64));
    const double *d = (const double *)NclArrayData(a);
    for (int64_t i = 0; i < n; i += 4093) ck_assert(d[i] == 0.0);
    ck_assert(d[n - 1] == 0.0);
    NclArrayRelease(a);
}
END_TEST

/* Freed mappings are kept for the next request of their size even when
   the cache is already full of blocks that fit nothing later: the oldest
   go. A kept block comes back with what was written to it; a fresh
   mapping would read as zeros. */
START_TEST(default_handler_keeps_recent_mappings)
{
    const NclMemAllocator *al = &NclMemDefaultHandler()->allocator;
    enum { OLD = 8 };
    const size_t small = (size_t)3 << 19, n = (size_t)8 << 20; /* 1.5 MiB: mapped, not cached small */
    void *old[OLD];
    for (int i = 0; i < OLD; i++) {
        old[i] = al->malloc(al->ctx, small);
        ck_assert_ptr_nonnull(old[i]);
    }
    for (int i = 0; i < OLD; i++) al->free(al->ctx, old[i], small);
    for (int round = 0; round < 3; round++) {
        unsigned char *p = (unsigned char *)al->malloc(al->ctx, n);
        ck_assert_ptr_nonnull(p);
        memset(p, 0x5A + round, n);
        al->free(al->ctx, p, n);
        unsigned char *q = (unsigned char *)al->malloc(al->ctx, n);
        ck_assert_ptr_eq(q, p);
        ck_assert_msg(q[0] == 0x5A + round && q[n / 2] == 0x5A + round && q[n - 1] == 0x5A + round,
                      "round %d: the freed 8 MiB mapping was not kept for reuse", round);
        al->free(al->ctx, q, n);
    }
}
END_TEST

typedef struct stress_arg { const NclMemHandler *h; unsigned seed; int failures; } stress_arg;

static void *stress_thread(void *arg)
{
    stress_arg *s = (stress_arg *)arg;
    const NclMemAllocator *al = &s->h->allocator;
    uint64_t state = s->seed;
    enum { SLOTS = 16 };
    unsigned char *p[SLOTS] = {NULL};
    size_t n[SLOTS] = {0};
    for (int it = 0; it < 2000; it++) {
        int k = (int)(ncl_test_rand(&state) % SLOTS);
        if (p[k] != NULL) {
            if (!check_sparse(p[k], n[k], (unsigned)k + s->seed, 0)) s->failures++;
            al->free(al->ctx, p[k], n[k]);
            p[k] = NULL;
        } else {
            uint64_t r = ncl_test_rand(&state);
            n[k] = (size_t)(r % 20 == 0 ? r % (3u << 20) : r % 5000);
            int zero = (r >> 40) & 1;
            p[k] = zero ? (unsigned char *)al->calloc(al->ctx, n[k], 1)
                        : (unsigned char *)al->malloc(al->ctx, n[k]);
            if (p[k] == NULL || !aligned_to(p[k], 64) ||
                (zero && !check_sparse(p[k], n[k], 0, 1)))
                s->failures++;
            if (p[k]) fill_sparse(p[k], n[k], (unsigned)k + s->seed);
        }
    }
    for (int k = 0; k < SLOTS; k++)
        if (p[k]) al->free(al->ctx, p[k], n[k]);
    return NULL;
}

START_TEST(default_handler_threads)
{
    enum { T = 4 };
    pthread_t th[T];
    stress_arg args[T];
    for (int i = 0; i < T; i++) {
        args[i] = (stress_arg){NclMemDefaultHandler(), 11u * (unsigned)i + 1, 0};
        ck_assert_int_eq(pthread_create(&th[i], NULL, stress_thread, &args[i]), 0);
    }
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        ck_assert_int_eq(args[i].failures, 0);
    }
}
END_TEST

/* ---- libc and NUMA ------------------------------------------------------------------------- */

START_TEST(libc_handler)
{
    const NclMemHandler *h = NclMemLibcHandler();
    ck_assert_str_eq(h->name, "ncl_libc");
    ck_assert_int_eq(h->version, 1);
    exercise_handler(h, 64);
    const NclMemHandler *prev = NclDataMem_SetHandler(h);
    NclArray *a = NULL;
    NCL_CHECK_OK(NclZeros(NCL_INT64, 2, NCL_DIMS(33, 3), &a));
    NclDataMem_SetHandler(prev);
    ck_assert(aligned_to(NclArrayData(a), 64));
    for (int64_t i = 0; i < 99; i++) ck_assert_int_eq(ncl_test_get_i(a, i), 0);
    ck_assert_str_eq(NclArrayHandlerName(a), "ncl_libc");
    NclArrayRelease(a);
}
END_TEST

START_TEST(numa_handler)
{
    NclMemHandler h;
    NCL_CHECK_OK(NclMemNumaHandlerInit(&h, 0));
    ck_assert_str_eq(h.name, "ncl_numa0");
    ck_assert_int_eq(h.version, 1);
    exercise_handler(&h, 64);
    const NclMemHandler *prev = NclDataMem_SetHandler(&h);
    NclArray *a = NULL;
    NCL_CHECK_OK(NclOnes(NCL_FLOAT32, 1, NCL_DIMS(1000), &a));
    NclDataMem_SetHandler(prev);
    ck_assert_str_eq(NclArrayHandlerName(a), "ncl_numa0");
    ck_assert(ncl_test_get_d(a, 999) == 1.0);
    NclArrayRelease(a);

    NCL_CHECK_STATUS(NclMemNumaHandlerInit(&h, 1 << 20), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("NclMemNumaHandlerInit");
    NCL_CHECK_STATUS(NclMemNumaHandlerInit(&h, -1), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclMemNumaHandlerInit(NULL, 0), NCL_ERR_INVALID_ARGUMENT);
}
END_TEST

/* ---- accounting ------------------------------------------------------------------------------ */

typedef struct walk_acc { size_t blocks, bytes; void *seen[8]; } walk_acc;

static int walk_visit(void *ptr, size_t size, void *user)
{
    walk_acc *w = (walk_acc *)user;
    if (w->blocks < 8) w->seen[w->blocks] = ptr;
    w->blocks++;
    w->bytes += size;
    return 0;
}

static int walk_stop(void *ptr, size_t size, void *user)
{
    (void)ptr; (void)size;
    ++*(int *)user;
    return 1;
}

START_TEST(accounting_handler)
{
    NclMemAccounting *acc = NULL;
    NCL_CHECK_OK(NclMemAccountingCreate(NULL, &acc));
    const NclMemHandler *h = NclMemAccountingHandler(acc);
    ck_assert_str_eq(h->name, "ncl_accounting(ncl_default)");
    NclMemStats st;
    NclMemAccountingStats(acc, &st);
    ck_assert_uint_eq(st.live_bytes, 0);
    ck_assert_uint_eq(st.allocs, 0);

    const NclMemHandler *prev = NclDataMem_SetHandler(h);
    NclArray *a = NULL, *b = NULL, *c = NULL;
    NCL_CHECK_OK(NclEmpty(NCL_FLOAT64, 1, NCL_DIMS(100), &a));  /* 800 */
    NCL_CHECK_OK(NclZeros(NCL_INT32, 2, NCL_DIMS(10, 10), &b)); /* 400 */
    NCL_CHECK_OK(NclEmpty(NCL_INT8, 1, NCL_DIMS(0), &c));       /* 1 */
    NclDataMem_SetHandler(prev);
    ck_assert_str_eq(NclArrayHandlerName(a), "ncl_accounting(ncl_default)");

    NclMemAccountingStats(acc, &st);
    ck_assert_uint_eq(st.live_bytes, 1201);
    ck_assert_uint_eq(st.peak_bytes, 1201);
    ck_assert_uint_eq(st.live_blocks, 3);
    ck_assert_uint_eq(st.allocs, 3);
    ck_assert_uint_eq(st.frees, 0);

    walk_acc w = {0};
    NCL_CHECK_OK(NclMemAccountingWalk(acc, walk_visit, &w));
    ck_assert_uint_eq(w.blocks, 3);
    ck_assert_uint_eq(w.bytes, 1201);
    int found = 0;
    for (int i = 0; i < 3; i++) found += w.seen[i] == NclArrayData(b);
    ck_assert_int_eq(found, 1);
    int visits = 0;
    NCL_CHECK_OK(NclMemAccountingWalk(acc, walk_stop, &visits));
    ck_assert_int_eq(visits, 1);
    NCL_CHECK_STATUS(NclMemAccountingWalk(acc, NULL, NULL), NCL_ERR_INVALID_ARGUMENT);

    /* refused while blocks are live, and the wrapper keeps working */
    NCL_CHECK_STATUS(NclMemAccountingDestroy(acc), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("live");
    NclArrayRelease(a);
    NclMemAccountingStats(acc, &st);
    ck_assert_uint_eq(st.live_bytes, 401);
    ck_assert_uint_eq(st.peak_bytes, 1201);
    ck_assert_uint_eq(st.frees, 1);

    /* realloc through the handler is counted and keeps the block list right */
    const NclMemAllocator *al = &h->allocator;
    void *p = al->malloc(al->ctx, 100);
    ck_assert_ptr_nonnull(p);
    void *q = al->realloc(al->ctx, p, 5000);
    ck_assert_ptr_nonnull(q);
    NclMemAccountingStats(acc, &st);
    ck_assert_uint_eq(st.reallocs, 1);
    ck_assert_uint_eq(st.live_bytes, 5401);
    ck_assert_uint_eq(st.peak_bytes, 5401);
    ck_assert_uint_eq(st.live_blocks, 3);
    al->free(al->ctx, q, 5000);

    /* many blocks: the live list grows and shrinks correctly */
    void *many[500];
    for (int i = 0; i < 500; i++) many[i] = al->malloc(al->ctx, (size_t)i + 1);
    for (int i = 0; i < 500; i += 2) al->free(al->ctx, many[i], (size_t)i + 1);
    NclMemAccountingStats(acc, &st);
    ck_assert_uint_eq(st.live_blocks, 2 + 250);
    memset(&w, 0, sizeof w);
    NCL_CHECK_OK(NclMemAccountingWalk(acc, walk_visit, &w));
    ck_assert_uint_eq(w.blocks, 252);
    for (int i = 1; i < 500; i += 2) al->free(al->ctx, many[i], (size_t)i + 1);

    NclArrayRelease(b);
    NclArrayRelease(c);
    NclMemAccountingStats(acc, &st);
    ck_assert_uint_eq(st.live_bytes, 0);
    ck_assert_uint_eq(st.live_blocks, 0);
    ck_assert_uint_eq(st.failures, 0);
    NCL_CHECK_OK(NclMemAccountingDestroy(acc));
    NCL_CHECK_STATUS(NclMemAccountingCreate(NULL, NULL), NCL_ERR_INVALID_ARGUMENT);
}
END_TEST

static void *acc_worker(void *arg)
{
    const NclMemHandler *h = (const NclMemHandler *)arg;
    const NclMemHandler *prev = NclDataMem_SetHandler(h);
    for (int i = 0; i < 3000; i++) {
        NclArray *a = NULL, *b = NULL;
        if (NclEmpty(NCL_INT16, 1, NCL_DIMS(i % 50), &a) != NCL_OK) continue;
        if (NclZeros(NCL_INT8, 1, NCL_DIMS(7), &b) == NCL_OK) NclArrayRelease(b);
        NclArrayRelease(a);
    }
    NclDataMem_SetHandler(prev);
    return NULL;
}

START_TEST(accounting_threads)
{
    NclMemAccounting *acc = NULL;
    NCL_CHECK_OK(NclMemAccountingCreate(NclMemLibcHandler(), &acc));
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, acc_worker,
                                        (void *)(uintptr_t)NclMemAccountingHandler(acc)), 0);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    NclMemStats st;
    NclMemAccountingStats(acc, &st);
    ck_assert_uint_eq(st.allocs, 4 * 3000 * 2);
    ck_assert_uint_eq(st.frees, st.allocs);
    ck_assert_uint_eq(st.live_bytes, 0);
    ck_assert_uint_eq(st.live_blocks, 0);
    ck_assert_uint_ge(st.peak_bytes, 98);
    NCL_CHECK_OK(NclMemAccountingDestroy(acc));
}
END_TEST

START_TEST(accounting_counts_failures)
{
    ncl_test_alloc t;
    ncl_test_alloc_install(&t, 0, 1); /* every allocation fails */
    NclDataMem_SetHandler(t.prev);
    NclMemAccounting *acc = NULL;
    NCL_CHECK_OK(NclMemAccountingCreate(&t.handler, &acc));
    ck_assert_str_eq(NclMemAccountingHandler(acc)->name, "ncl_accounting(ncl_test_alloc)");
    const NclMemHandler *prev = NclDataMem_SetHandler(NclMemAccountingHandler(acc));
    NclArray *a = NULL;
    NCL_CHECK_STATUS(NclZeros(NCL_FLOAT64, 1, NCL_DIMS(4), &a), NCL_ERR_NO_MEMORY);
    NclDataMem_SetHandler(prev);
    NclMemStats st;
    NclMemAccountingStats(acc, &st);
    ck_assert_uint_eq(st.failures, 1);
    ck_assert_uint_eq(st.allocs, 0);
    NCL_CHECK_OK(NclMemAccountingDestroy(acc));
}
END_TEST

/* ---- failure paths ------------------------------------------------------------------------------ */

START_TEST(failing_handler_leaves_out_untouched)
{
    ncl_test_alloc t;
    NclArray *sentinel = (NclArray *)(uintptr_t)0x1234;
    NclArray *out = sentinel;
    NclArray *src = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(4), 1, 2, 3, 4);
    ncl_test_alloc_install(&t, 0, 1);
    NCL_CHECK_STATUS(NclEmpty(NCL_FLOAT64, 1, NCL_DIMS(5), &out), NCL_ERR_NO_MEMORY);
    NCL_CHECK_MESSAGE_HAS("ncl_test_alloc");
    NCL_CHECK_MESSAGE_HAS("40 bytes");
    NCL_CHECK_STATUS(NclZeros(NCL_FLOAT64, 1, NCL_DIMS(5), &out), NCL_ERR_NO_MEMORY);
    NCL_CHECK_STATUS(NclOnes(NCL_INT8, 0, NULL, &out), NCL_ERR_NO_MEMORY);
    NCL_CHECK_STATUS(NclFull(NCL_INT8, 1, NCL_DIMS(0), "x", &out), NCL_ERR_NO_MEMORY);
    NCL_CHECK_STATUS(NclArange(NCL_INT16, 0, 5, 1, &out), NCL_ERR_NO_MEMORY);
    NCL_CHECK_STATUS(NclCopy(src, &out), NCL_ERR_NO_MEMORY);
    ncl_test_alloc_uninstall(&t);
    ck_assert_ptr_eq(out, sentinel);
    ck_assert_int_eq(atomic_load(&t.failures), 6);
    NCL_CHECK_NO_LEAK(&t);
    NclArrayRelease(src);
}
END_TEST

START_TEST(fault_injection_every_step)
{
    /* fail allocation k for k = 1.. until a call succeeds untouched */
    for (long k = 1; k <= 4; k++) {
        ncl_test_alloc t;
        NclArray *out = NULL;
        ncl_test_alloc_install(&t, k, 0);
        NclStatus s = NclZeros(NCL_UINT32, 2, NCL_DIMS(7, 3), &out);
        ncl_test_alloc_uninstall(&t);
        if (k == 1) {
            ck_assert_int_eq(s, NCL_ERR_NO_MEMORY);
            ck_assert_ptr_null(out);
        } else {
            NCL_CHECK_OK(s);
            NclArrayRelease(out);
        }
        NCL_CHECK_NO_LEAK(&t);
    }
}
END_TEST

typedef struct misaligned { NclMemHandler h; int allocs, frees; void *last; size_t fsize; } misaligned;

static void *mis_malloc(void *ctx, size_t n)
{
    misaligned *m = (misaligned *)ctx;
    char *p = (char *)malloc(n + 64);
    if (!p) return NULL;
    m->allocs++;
    m->last = p;
    /* 8 past a 16-aligned address: aligned for doubles, not for NCLib */
    return p + ((uintptr_t)p % 16 == 0 ? 8 : 0);
}

static void mis_free(void *ctx, void *p, size_t n)
{
    misaligned *m = (misaligned *)ctx;
    m->frees++;
    m->fsize = n;
    free(m->last);
    (void)p;
}

START_TEST(misaligned_handler_refused)
{
    misaligned m = {{"bad_align", 1, {NULL, mis_malloc, NULL, NULL, mis_free}}, 0, 0, NULL, 0};
    m.h.allocator.ctx = &m;
    NclArray *out = NULL;
    const NclMemHandler *prev = NclDataMem_SetHandler(&m.h);
    NCL_CHECK_STATUS(NclZeros(NCL_FLOAT64, 1, NCL_DIMS(3), &out), NCL_ERR_NO_MEMORY);
    NCL_CHECK_MESSAGE_HAS("bad_align");
    NCL_CHECK_MESSAGE_HAS("aligned");
    NclDataMem_SetHandler(prev);
    ck_assert_ptr_null(out);
    ck_assert_int_eq(m.allocs, 1);
    ck_assert_int_eq(m.frees, 1);
    ck_assert_uint_eq(m.fsize, 24);
}
END_TEST

START_TEST(unusable_handler_refused)
{
    NclMemHandler bad = {"v2", 2, {NULL, NULL, NULL, NULL, NULL}};
    NclArray *out = NULL;
    const NclMemHandler *prev = NclDataMem_SetHandler(&bad);
    NCL_CHECK_STATUS(NclEmpty(NCL_FLOAT64, 1, NCL_DIMS(3), &out), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("v2");
    NclDataMem_SetHandler(prev);
    ck_assert_ptr_null(out);
}
END_TEST

static Suite *memory_suite(void)
{
    Suite *s = suite_create("memory");
    TCase *tc = ncl_test_tcase(s, "handlers");
    tcase_add_test(tc, handler_per_thread);
    tcase_add_test(tc, shift_allocator);
    tcase_add_test(tc, free_gets_true_size);
    tcase_add_test(tc, event_hook_sequence);
    tcase_add_test(tc, event_hook_swapped_concurrently);
    tcase_add_test(tc, default_handler_direct);
    tcase_add_test(tc, default_handler_large_zeros);
    tcase_add_test(tc, default_handler_keeps_recent_mappings);
    tcase_add_test(tc, default_handler_threads);
    tcase_add_test(tc, libc_handler);
    tcase_add_test(tc, numa_handler);
    tc = ncl_test_fork_tcase(s);
    tcase_add_test(tc, fork_while_allocating);
    tc = ncl_test_tcase(s, "accounting");
    tcase_add_test(tc, accounting_handler);
    tcase_add_test(tc, accounting_threads);
    tcase_add_test(tc, accounting_counts_failures);
    tc = ncl_test_tcase(s, "failures");
    tcase_add_test(tc, failing_handler_leaves_out_untouched);
    tcase_add_test(tc, fault_injection_every_step);
    tcase_add_test(tc, misaligned_handler_refused);
    tcase_add_test(tc, unusable_handler_refused);
    return s;
}

NCL_TEST_MAIN(memory_suite)
