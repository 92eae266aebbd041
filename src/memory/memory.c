/*
 * memory.c: the NEP 49 front end. It holds each thread's current handler,
 * the process-wide event hook, and the buffers that tie a block of array
 * data to whoever must free it (the handler that allocated it, with its true
 * size, or a foreign deleter). The handlers themselves live in mem_*.c; the
 * array structs, which are metadata rather than data, come from plain malloc.
 */
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "memory/ncl_memory.h"

/* ---- per-thread handler ----------------------------------------------------- */

const NclMemHandler *NclDataMem_SetHandler(const NclMemHandler *h)
{
    const NclMemHandler *prev = NclDataMem_GetHandler();
    /* The default is stored as NULL so that a thread that never chose one
       costs nothing and a fresh thread starts on the default. */
    ncl_tls.handler = (h == NclMemDefaultHandler()) ? NULL : h;
    return prev;
}

const NclMemHandler *NclDataMem_GetHandler(void)
{
    return ncl_tls.handler != NULL ? ncl_tls.handler : NclMemDefaultHandler();
}

/* ---- the event hook ----------------------------------------------------------
 * A sequence lock: readers (every allocation and free) never block and never
 * see a function paired with another hook's user pointer; writers are rare
 * and serialised by a mutex. A reader that races with a change may still
 * call the old pair once, as with any hook that is replaced while in use. */

static pthread_mutex_t event_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_uint event_seq;
static _Atomic(NclMemEventFn) event_fn;
static _Atomic(void *) event_user;

/* fork() while another thread is between the two increments would leave
   the child's sequence odd and every allocation there spinning; holding
   the writers' lock across fork rules that out. */
static pthread_once_t event_once = PTHREAD_ONCE_INIT;
static void event_lock_all(void) { pthread_mutex_lock(&event_lock); }
static void event_unlock_all(void) { pthread_mutex_unlock(&event_lock); }
static void event_init(void) { pthread_atfork(event_lock_all, event_unlock_all, event_unlock_all); }

NclMemEventFn NclDataMem_SetEventHook(NclMemEventFn fn, void *user, void **old_user)
{
    pthread_once(&event_once, event_init);
    pthread_mutex_lock(&event_lock);
    NclMemEventFn old = atomic_load_explicit(&event_fn, memory_order_relaxed);
    void *ou = atomic_load_explicit(&event_user, memory_order_relaxed);
    atomic_fetch_add_explicit(&event_seq, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&event_fn, fn, memory_order_relaxed);
    atomic_store_explicit(&event_user, user, memory_order_relaxed);
    atomic_fetch_add_explicit(&event_seq, 1, memory_order_release);
    pthread_mutex_unlock(&event_lock);
    if (old_user != NULL) *old_user = ou;
    return old;
}

static void mem_event(void *old_ptr, void *new_ptr, size_t size)
{
    NclMemEventFn fn;
    void *user;
    for (;;) {
        unsigned s0 = atomic_load_explicit(&event_seq, memory_order_acquire);
        fn = atomic_load_explicit(&event_fn, memory_order_relaxed);
        user = atomic_load_explicit(&event_user, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        unsigned s1 = atomic_load_explicit(&event_seq, memory_order_relaxed);
        if (s0 == s1 && (s0 & 1u) == 0) break;
    }
    if (fn != NULL) fn(old_ptr, new_ptr, size, user);
}

/* ---- buffers ------------------------------------------------------------------ */

/* Refuses handlers this version cannot drive, rather than calling through a
   NULL pointer. calloc is optional: malloc plus memset stands in for it. */
static NclStatus check_handler(const char *who, const NclMemHandler *h)
{
    if (h->version != 1 || h->allocator.malloc == NULL || h->allocator.free == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "%s: allocator handler '%.127s' is not usable (version %u, "
                         "malloc and free must be set, version must be 1)",
                         who, h->name, (unsigned)h->version);
    return NCL_OK;
}

static NclStatus buffer_from_handler(const char *who, size_t nbytes, int zero, ncl_buffer **out)
{
    const NclMemHandler *h = NclDataMem_GetHandler();
    NclStatus s = check_handler(who, h);
    if (s != NCL_OK) return s;

    ncl_buffer *b = (ncl_buffer *)malloc(sizeof *b);
    if (b == NULL)
        return ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory for a buffer descriptor", who);

    /* A zero-byte request still gets a real block, and the size recorded is
       the one the handler saw, so its free receives exactly that. */
    const size_t n = nbytes != 0 ? nbytes : 1;
    void *p;
    if (zero && h->allocator.calloc != NULL) {
        p = h->allocator.calloc(h->allocator.ctx, n, 1);
    } else {
        p = h->allocator.malloc(h->allocator.ctx, n);
        if (p != NULL && zero) memset(p, 0, n);
    }
    if (p == NULL) {
        free(b);
        return ncl_error(NCL_ERR_NO_MEMORY, "%s: allocator handler '%.127s' could not "
                         "allocate %zu bytes", who, h->name, n);
    }
    if (((uintptr_t)p & (NCL_MIN_HANDLER_ALIGN - 1)) != 0) {
        h->allocator.free(h->allocator.ctx, p, n);
        free(b);
        return ncl_error(NCL_ERR_NO_MEMORY, "%s: allocator handler '%.127s' returned %zu "
                         "bytes at %p, which is not aligned to %d bytes (handlers must "
                         "give at least %d-byte alignment)", who, h->name, n, p,
                         NCL_MIN_HANDLER_ALIGN, NCL_MIN_HANDLER_ALIGN);
    }
    atomic_init(&b->refs, 1);
    b->base = p;
    b->nbytes = n;
    b->handler = h;
    b->deleter = NULL;
    b->deleter_ctx = NULL;
    mem_event(NULL, p, n);
    *out = b;
    return NCL_OK;
}

NclStatus ncl_buffer_alloc(const char *who, size_t nbytes, int zero, ncl_buffer **out)
{
    return buffer_from_handler(who, nbytes, zero, out);
}

NclStatus ncl_scratch_alloc(const char *who, size_t nbytes, ncl_buffer **out)
{
    return buffer_from_handler(who, nbytes, 0, out);
}

NclStatus ncl_buffer_wrap(const char *who, void *data, NclDeleter deleter, void *ctx,
                          ncl_buffer **out)
{
    ncl_buffer *b = (ncl_buffer *)malloc(sizeof *b);
    if (b == NULL)
        return ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory for a buffer descriptor", who);
    atomic_init(&b->refs, 1);
    b->base = data;
    b->nbytes = 0;
    b->handler = NULL;
    b->deleter = deleter;
    b->deleter_ctx = ctx;
    *out = b;
    return NCL_OK;
}

void ncl_buffer_retain(ncl_buffer *b)
{
    if (b != NULL) atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
}

void ncl_buffer_release(ncl_buffer *b)
{
    if (b == NULL) return;
    /* acq_rel: every write made through other references happens before the
       block is handed back. */
    if (atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) != 1) return;
    if (b->handler != NULL) {
        b->handler->allocator.free(b->handler->allocator.ctx, b->base, b->nbytes);
        mem_event(b->base, NULL, 0);
    } else if (b->deleter != NULL) {
        b->deleter(b->deleter_ctx, b->base);
    }
    free(b);
}
