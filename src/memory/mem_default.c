/*
 * mem_default.c: the default data handler, "ncl_default". Every block is
 * 64-byte aligned and carries a 64-byte header in front of it (the raw
 * block, its capacity, its requested size and where it came from), which is
 * what lets realloc work without being told the old size.
 *
 * Small blocks (up to NCL_CACHE_MAX_BLOCK) are rounded up to a size class and
 * recycled through a cache of recently freed blocks, like NumPy's
 * npy_alloc_cache: short-lived temporaries do not go back to malloc each
 * time. Bounds: at most CACHE_PER_CLASS blocks per class (fewer for the big
 * classes, see class_limit) and at most NCL_CACHE_MAX_BYTES cached in all;
 * a block is only ever reused for a request of its own class. The cache is
 * shared by all threads, one spinlock per class, held for a pointer push or
 * pop only.
 *
 * Large blocks come from mmap: the kernel hands out zeroed pages, so calloc
 * writes nothing (pages are zeroed lazily on first touch), and blocks of
 * NCL_HUGE_MIN or more are placed on a 2 MiB boundary and marked
 * MADV_HUGEPAGE so transparent huge pages can back them. A fresh mapping
 * costs a page fault per page on first touch (about 2 ms for 8 MiB), so a
 * few recently freed mappings (LARGE_SLOTS, each at most LARGE_MAX_BLOCK,
 * LARGE_MAX_BYTES together) are kept and reused for malloc requests that
 * fit them without wasting more than half; calloc always maps fresh zero
 * pages, so lazy zeroing is kept. The most recently freed are the ones
 * kept: a full cache unmaps its oldest mappings to take a new one, so that
 * blocks of an earlier phase of the program do not shut out the sizes it
 * uses now.
 */
#define _DEFAULT_SOURCE 1
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "memory/ncl_memory.h"

#define HDR 64                              /* header bytes, keeps 64-byte alignment */
#define NCL_CACHE_MAX_BLOCK (1u << 20)      /* largest cached block: 1 MiB */
#define NCL_CACHE_MAX_BYTES (16u << 20)     /* all cached blocks together: 16 MiB */
#define CACHE_PER_CLASS 8
#define NCL_MMAP_MIN ((size_t)1 << 20)      /* above the cache limit: mmap */
#define NCL_HUGE_MIN ((size_t)4 << 20)      /* from here: 2 MiB aligned + THP */
#define HUGE_PAGE ((size_t)2 << 20)
#define MAGIC 0x6e636c64u                   /* "ncld" */
#define LARGE_SLOTS 4
/* Up to 256 MiB: a 1.6e7-element float64 result (128 MB) is reused by the
   next call of its size. What is kept was mapped at the process's peak
   already, so the cache delays a release but never raises the peak. */
#define LARGE_MAX_BLOCK ((size_t)256 << 20)
#define LARGE_MAX_BYTES ((size_t)256 << 20)

enum { ORIGIN_CLASS = 1, ORIGIN_MMAP = 2 };

typedef struct block_hdr {
    void *raw;        /* what to hand back to free / munmap */
    size_t cap;       /* bytes usable after the header (class size) / mapping length */
    size_t size;      /* bytes last requested */
    uint32_t origin;
    uint32_t magic;
} block_hdr;

_Static_assert(sizeof(block_hdr) <= HDR, "block header must fit in HDR bytes");

/* ---- size classes ---------------------------------------------------------------
 * 64, 128, 192, 256, then four classes per power of two (320, 384, 448, 512,
 * 640, ...) up to 1 MiB: waste at most 25%, every class a multiple of 64. */

#define NCLASSES 52

static int size_class(size_t n, size_t *cap)
{
    if (n <= 256) {
        size_t q = n == 0 ? 1 : (n + 63) / 64;
        *cap = q * 64;
        return (int)q - 1;
    }
    int k = 63 - __builtin_clzll((unsigned long long)(n - 1)); /* 2^k < n <= 2^(k+1) */
    size_t base = (size_t)1 << k, step = base >> 2;
    size_t sub = (n - base + step - 1) / step;                   /* 1..4 */
    *cap = base + sub * step;
    return 4 + (k - 8) * 4 + (int)sub - 1;
}

static unsigned class_limit(size_t cap)
{
    size_t lim = (2u << 20) / cap;   /* about 2 MiB per class at the top */
    if (lim < 2) lim = 2;
    return lim < CACHE_PER_CLASS ? (unsigned)lim : CACHE_PER_CLASS;
}

typedef struct cache_class {
    atomic_int lock;
    unsigned count;
    void *blocks[CACHE_PER_CLASS];
} cache_class;

static cache_class cache[NCLASSES];
static atomic_size_t cached_bytes;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;

static void class_lock(cache_class *c)
{
    for (unsigned spins = 0;; spins++) {
        int expected = 0;
        if (atomic_compare_exchange_weak_explicit(&c->lock, &expected, 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return;
        /* On few cores a preempted holder would otherwise be spun on for a
           whole time slice. */
        if (spins > 64) sched_yield();
    }
}

static void class_unlock(cache_class *c)
{
    atomic_store_explicit(&c->lock, 0, memory_order_release);
}

/* fork() must not copy a class lock held by another thread into the child,
   where nobody would release it: every lock is taken across fork. */
static void cache_lock_all(void);
static void cache_unlock_all(void);
static void cache_init(void) { pthread_atfork(cache_lock_all, cache_unlock_all, cache_unlock_all); }

/* Recently freed mappings, oldest first, under the same kind of lock as a
   class. */
static struct {
    cache_class lock_holder; /* only its lock is used */
    int count;
    size_t bytes;
    void *raw[LARGE_SLOTS];
    size_t cap[LARGE_SLOTS];
} large;

static void cache_lock_all(void)
{
    for (int i = 0; i < NCLASSES; i++) class_lock(&cache[i]);
    class_lock(&large.lock_holder);
}

static void cache_unlock_all(void)
{
    class_unlock(&large.lock_holder);
    for (int i = NCLASSES - 1; i >= 0; i--) class_unlock(&cache[i]);
}

static void *cache_pop(int cls, size_t cap)
{
    pthread_once(&cache_once, cache_init);
    cache_class *c = &cache[cls];
    void *p = NULL;
    class_lock(c);
    if (c->count > 0) p = c->blocks[--c->count];
    class_unlock(c);
    if (p != NULL) atomic_fetch_sub_explicit(&cached_bytes, cap, memory_order_relaxed);
    return p;
}

/* The cache holds the raw blocks (not the pointers handed out, 64 bytes
   in), so leak checkers see cached memory as reachable. */
static int cache_push(int cls, size_t cap, void *raw)
{
    /* No pthread_once here: the block was allocated through cache_pop. */
    if (atomic_fetch_add_explicit(&cached_bytes, cap, memory_order_relaxed) + cap >
        NCL_CACHE_MAX_BYTES) {
        atomic_fetch_sub_explicit(&cached_bytes, cap, memory_order_relaxed);
        return 0;
    }
    cache_class *c = &cache[cls];
    int ok = 0;
    class_lock(c);
    if (c->count < class_limit(cap)) {
        c->blocks[c->count++] = raw;
        ok = 1;
    }
    class_unlock(c);
    if (!ok) atomic_fetch_sub_explicit(&cached_bytes, cap, memory_order_relaxed);
    return ok;
}

/* ---- blocks ---------------------------------------------------------------------- */

static block_hdr *hdr_of(void *user)
{
    return (block_hdr *)(void *)((char *)user - HDR);
}

static void *finish(void *raw, size_t cap, size_t size, uint32_t origin)
{
    block_hdr *h = (block_hdr *)raw;
    h->raw = raw;
    h->cap = cap;
    h->size = size;
    h->origin = origin;
    h->magic = MAGIC;
    return (char *)raw + HDR;
}

static void *small_alloc(size_t n, int zero)
{
    size_t cap;
    int cls = size_class(n, &cap);
    void *raw = cache_pop(cls, cap);
    void *user;
    if (raw != NULL) {
        user = (char *)raw + HDR;
        hdr_of(user)->size = n;
        /* A recycled block holds old data: calloc must clear it. */
        if (zero) memset(user, 0, n);
        return user;
    }
    raw = aligned_alloc(HDR, HDR + cap);
    if (raw == NULL) return NULL;
    user = finish(raw, cap, n, ORIGIN_CLASS);
    if (zero) memset(user, 0, n);
    return user;
}

/* Drops entry i of the cache, keeping the others in order (lock held). */
static void large_remove(int i)
{
    large.count--;
    memmove(&large.raw[i], &large.raw[i + 1], (size_t)(large.count - i) * sizeof large.raw[0]);
    memmove(&large.cap[i], &large.cap[i + 1], (size_t)(large.count - i) * sizeof large.cap[0]);
}

/* A cached mapping of at least len bytes and at most twice that, the
   smallest such; NULL when none fits. */
static void *large_pop(size_t len, size_t *cap)
{
    pthread_once(&cache_once, cache_init);
    void *raw = NULL;
    class_lock(&large.lock_holder);
    int best = -1;
    for (int i = 0; i < large.count; i++)
        if (large.cap[i] >= len && large.cap[i] / 2 <= len &&
            (best < 0 || large.cap[i] < large.cap[best]))
            best = i;
    if (best >= 0) {
        raw = large.raw[best];
        *cap = large.cap[best];
        large.bytes -= *cap;
        large_remove(best);
    }
    class_unlock(&large.lock_holder);
    return raw;
}

/* Keeps a freed mapping for reuse, unmapping the oldest ones it displaces
   (after the lock is dropped); 0 when it is too large to keep (unmap it). */
static int large_push(void *raw, size_t cap)
{
    if (cap > LARGE_MAX_BLOCK) return 0;
    pthread_once(&cache_once, cache_init);
    void *old[LARGE_SLOTS];
    size_t old_cap[LARGE_SLOTS];
    int nold = 0;
    class_lock(&large.lock_holder);
    while (large.count == LARGE_SLOTS || large.bytes + cap > LARGE_MAX_BYTES) {
        old[nold] = large.raw[0];
        old_cap[nold++] = large.cap[0];
        large.bytes -= large.cap[0];
        large_remove(0);
    }
    large.raw[large.count] = raw;
    large.cap[large.count++] = cap;
    large.bytes += cap;
    class_unlock(&large.lock_holder);
    for (int i = 0; i < nold; i++) munmap(old[i], old_cap[i]);
    return 1;
}

/* dlclose (api/unload.c): the cached blocks and mappings are reachable only
   from this library's static data. Blocks still owned by arrays stay
   valid: they never pass through the cache again once freed here. */
void ncl_mem_default_unload(void)
{
    for (int i = 0; i < NCLASSES; i++) {
        cache_class *c = &cache[i];
        class_lock(c);
        while (c->count > 0) free(c->blocks[--c->count]);
        class_unlock(c);
    }
    atomic_store_explicit(&cached_bytes, 0, memory_order_relaxed);
    class_lock(&large.lock_holder);
    while (large.count > 0) {
        large.count--;
        munmap(large.raw[large.count], large.cap[large.count]);
    }
    large.bytes = 0;
    class_unlock(&large.lock_holder);
}

static void *map_alloc(size_t n, int zero)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (n > SIZE_MAX - HDR - HUGE_PAGE - page) return NULL;
    size_t len = (HDR + n + page - 1) / page * page;
    if (!zero) {
        size_t cap;
        void *reuse = large_pop(len, &cap);
        if (reuse != NULL) return finish(reuse, cap, n, ORIGIN_MMAP);
    }
    const int huge = len >= NCL_HUGE_MIN;
    size_t maplen = huge ? len + HUGE_PAGE : len;
    char *m = (char *)mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                           -1, 0);
    if (m == MAP_FAILED) return NULL;
    char *raw = m;
    if (huge) {
        /* Trim the mapping to a 2 MiB boundary so that whole huge pages fit. */
        uintptr_t a = ((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
        raw = m + (a - (uintptr_t)m);
        size_t head = (size_t)(raw - m), tail = maplen - head - len;
        if (head) munmap(m, head);
        if (tail) munmap(raw + len, tail);
#ifdef MADV_HUGEPAGE
        /* Only advice: without THP support it fails and nothing changes. */
        (void)madvise(raw, len, MADV_HUGEPAGE);
#endif
    }
    return finish(raw, len, n, ORIGIN_MMAP);
}

static void *default_alloc(size_t n, int zero)
{
    if (n <= NCL_CACHE_MAX_BLOCK) return small_alloc(n, zero);
    /* Fresh anonymous pages read as zero: nothing to write for calloc. */
    return map_alloc(n, zero);
}

static void default_release(void *user)
{
    block_hdr *h = hdr_of(user);
    if (h->origin == ORIGIN_MMAP) {
        if (!large_push(h->raw, h->cap)) munmap(h->raw, h->cap);
        return;
    }
    /* Cached by capacity, not by the last requested size: a block resized
       in place by realloc still serves exactly its own class. */
    size_t cap;
    int cls = size_class(h->cap, &cap);
    if (cache_push(cls, cap, h->raw)) return;
    free(h->raw);
}

static void *d_malloc(void *ctx, size_t size)
{
    (void)ctx;
    return default_alloc(size, 0);
}

static void *d_calloc(void *ctx, size_t nelem, size_t elsize)
{
    (void)ctx;
    if (elsize != 0 && nelem > SIZE_MAX / elsize) return NULL;
    return default_alloc(nelem * elsize, 1);
}

static void d_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size; /* the header knows the true size; a wrong one cannot hurt */
    if (ptr != NULL) default_release(ptr);
}

static void *d_realloc(void *ctx, void *ptr, size_t new_size)
{
    (void)ctx;
    if (ptr == NULL) return default_alloc(new_size, 0);
    block_hdr *h = hdr_of(ptr);
    if (h->origin == ORIGIN_CLASS && new_size <= h->cap && new_size > h->cap / 2) {
        /* Fits, and not so much smaller that keeping the block wastes it. */
        h->size = new_size;
        return ptr;
    }
    void *p = default_alloc(new_size, 0);
    if (p == NULL) return NULL;
    memcpy(p, ptr, h->size < new_size ? h->size : new_size);
    default_release(ptr);
    return p;
}

static const NclMemHandler default_handler = {
    "ncl_default", 1, {NULL, d_malloc, d_calloc, d_realloc, d_free}
};

const NclMemHandler *NclMemDefaultHandler(void) { return &default_handler; }
