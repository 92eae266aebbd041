/*
 * mem_accounting.c: the accounting wrapper, "ncl_accounting(<inner>)". It
 * forwards every call to an inner handler and keeps, under one mutex, the
 * counters of NclMemStats and a table of live blocks (pointer -> size) for
 * leak reports. The table is an open-addressing hash map with linear probing
 * and backward-shift deletion (no tombstones), grown by doubling; its own
 * memory is metadata and comes from malloc. If the table cannot grow, the
 * allocation is undone and reported as a failure, so a block is never live
 * without being counted.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "memory/ncl_memory.h"

typedef struct live_entry {
    void *ptr;      /* NULL = empty slot */
    size_t size;
} live_entry;

struct NclMemAccounting {
    NclMemHandler handler;         /* what users install; ctx points back here */
    const NclMemHandler *inner;
    pthread_mutex_t lock;
    NclMemStats stats;
    live_entry *slots;
    size_t cap;                    /* power of two, or 0 */
};

static size_t slot_of(const NclMemAccounting *a, const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    return (size_t)h & (a->cap - 1);
}

static int table_grow(NclMemAccounting *a)
{
    size_t ncap = a->cap ? a->cap * 2 : 64;
    live_entry *ns = (live_entry *)calloc(ncap, sizeof *ns);
    if (ns == NULL) return -1;
    live_entry *old = a->slots;
    size_t ocap = a->cap;
    a->slots = ns;
    a->cap = ncap;
    for (size_t i = 0; i < ocap; i++) {
        if (old[i].ptr == NULL) continue;
        size_t j = slot_of(a, old[i].ptr);
        while (ns[j].ptr != NULL) j = (j + 1) & (ncap - 1);
        ns[j] = old[i];
    }
    free(old);
    return 0;
}

/* Makes room for one more entry (load factor at most 1/2). */
static int table_reserve(NclMemAccounting *a)
{
    if ((a->stats.live_blocks + 1) * 2 <= a->cap) return 0;
    return table_grow(a);
}

static void table_put(NclMemAccounting *a, void *p, size_t size)
{
    size_t j = slot_of(a, p);
    while (a->slots[j].ptr != NULL && a->slots[j].ptr != p) j = (j + 1) & (a->cap - 1);
    a->slots[j].ptr = p;
    a->slots[j].size = size;
}

/* Removes p; returns 1 and its size if it was there. */
static int table_take(NclMemAccounting *a, const void *p, size_t *size)
{
    if (a->cap == 0) return 0;
    const size_t mask = a->cap - 1;
    size_t j = slot_of(a, p);
    while (a->slots[j].ptr != p) {
        if (a->slots[j].ptr == NULL) return 0;
        j = (j + 1) & mask;
    }
    *size = a->slots[j].size;
    /* Backward shift: pull later members of the probe run into the hole
       when the hole lies between their home slot and where they are. */
    size_t hole = j;
    for (size_t k = (j + 1) & mask; a->slots[k].ptr != NULL; k = (k + 1) & mask) {
        size_t home = slot_of(a, a->slots[k].ptr);
        if (((k - home) & mask) >= ((k - hole) & mask)) {
            a->slots[hole] = a->slots[k];
            hole = k;
        }
    }
    a->slots[hole].ptr = NULL;
    a->slots[hole].size = 0;
    return 1;
}

static void add_live(NclMemAccounting *a, size_t size)
{
    a->stats.live_bytes += size;
    a->stats.live_blocks++;
    if (a->stats.live_bytes > a->stats.peak_bytes) a->stats.peak_bytes = a->stats.live_bytes;
}

static void *acc_alloc(NclMemAccounting *a, size_t size, int zero, size_t nelem, size_t elsize)
{
    const NclMemAllocator *in = &a->inner->allocator;
    pthread_mutex_lock(&a->lock);
    void *p = NULL;
    if (table_reserve(a) == 0) {
        if (!zero) {
            p = in->malloc(in->ctx, size);
        } else if (in->calloc != NULL) {
            p = in->calloc(in->ctx, nelem, elsize);
        } else {
            p = in->malloc(in->ctx, size);
            if (p != NULL) memset(p, 0, size);
        }
    }
    if (p == NULL) {
        a->stats.failures++;
    } else {
        table_put(a, p, size);
        add_live(a, size);
        a->stats.allocs++;
    }
    pthread_mutex_unlock(&a->lock);
    return p;
}

static void *a_malloc(void *ctx, size_t size)
{
    return acc_alloc((NclMemAccounting *)ctx, size, 0, 0, 0);
}

static void *a_calloc(void *ctx, size_t nelem, size_t elsize)
{
    NclMemAccounting *a = (NclMemAccounting *)ctx;
    if (elsize != 0 && nelem > SIZE_MAX / elsize) {
        pthread_mutex_lock(&a->lock);
        a->stats.failures++;
        pthread_mutex_unlock(&a->lock);
        return NULL;
    }
    return acc_alloc(a, nelem * elsize, 1, nelem, elsize);
}

static void a_free(void *ctx, void *ptr, size_t size)
{
    NclMemAccounting *a = (NclMemAccounting *)ctx;
    if (ptr == NULL) return;
    pthread_mutex_lock(&a->lock);
    size_t recorded;
    /* The inner handler gets the size it handed out, whatever the caller
       believes; a pointer the wrapper never gave out is passed through. */
    if (table_take(a, ptr, &recorded)) {
        size = recorded;
        a->stats.live_bytes -= recorded;
        a->stats.live_blocks--;
    }
    a->stats.frees++;
    a->inner->allocator.free(a->inner->allocator.ctx, ptr, size);
    pthread_mutex_unlock(&a->lock);
}

static void *a_realloc(void *ctx, void *ptr, size_t new_size)
{
    NclMemAccounting *a = (NclMemAccounting *)ctx;
    const NclMemAllocator *in = &a->inner->allocator;
    if (ptr == NULL) return acc_alloc(a, new_size, 0, 0, 0);
    pthread_mutex_lock(&a->lock);
    void *p = NULL;
    /* Room for the new entry first: once the inner realloc succeeds the old
       pointer is gone and the new block must be recorded. */
    if (in->realloc != NULL && table_reserve(a) == 0) p = in->realloc(in->ctx, ptr, new_size);
    if (p == NULL) {
        a->stats.failures++;
    } else {
        size_t old = 0;
        if (table_take(a, ptr, &old)) {
            a->stats.live_bytes -= old;
            a->stats.live_blocks--;
        }
        table_put(a, p, new_size);
        add_live(a, new_size);
        a->stats.reallocs++;
    }
    pthread_mutex_unlock(&a->lock);
    return p;
}

NclStatus NclMemAccountingCreate(const NclMemHandler *inner, NclMemAccounting **out)
{
    if (out == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclMemAccountingCreate: out is NULL");
    if (inner == NULL) inner = NclMemDefaultHandler();
    if (inner->version != 1 || inner->allocator.malloc == NULL || inner->allocator.free == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "NclMemAccountingCreate: inner handler '%.127s' is not usable "
                         "(version must be 1, malloc and free must be set)", inner->name);
    NclMemAccounting *a = (NclMemAccounting *)calloc(1, sizeof *a);
    if (a == NULL)
        return ncl_error(NCL_ERR_NO_MEMORY, "NclMemAccountingCreate: out of memory");
    if (pthread_mutex_init(&a->lock, NULL) != 0) {
        free(a);
        return ncl_error(NCL_ERR_NO_MEMORY, "NclMemAccountingCreate: cannot create a mutex");
    }
    a->inner = inner;
    /* name[127]: "ncl_accounting(" + up to 111 characters of the inner name + ")" */
    snprintf(a->handler.name, sizeof a->handler.name, "ncl_accounting(%.*s)",
             (int)(sizeof a->handler.name - sizeof "ncl_accounting()"), inner->name);
    a->handler.version = 1;
    a->handler.allocator.ctx = a;
    a->handler.allocator.malloc = a_malloc;
    a->handler.allocator.calloc = a_calloc;
    a->handler.allocator.realloc = a_realloc;
    a->handler.allocator.free = a_free;
    *out = a;
    return NCL_OK;
}

const NclMemHandler *NclMemAccountingHandler(NclMemAccounting *acc)
{
    return acc != NULL ? &acc->handler : NULL;
}

void NclMemAccountingStats(const NclMemAccounting *acc, NclMemStats *out)
{
    if (out == NULL) return;
    if (acc == NULL) {
        memset(out, 0, sizeof *out);
        return;
    }
    NclMemAccounting *a = (NclMemAccounting *)acc; /* the lock is not part of its value */
    pthread_mutex_lock(&a->lock);
    *out = a->stats;
    pthread_mutex_unlock(&a->lock);
}

NclStatus NclMemAccountingWalk(const NclMemAccounting *acc,
                               int (*visit)(void *ptr, size_t size, void *user), void *user)
{
    if (acc == NULL || visit == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclMemAccountingWalk: %s is NULL",
                         acc == NULL ? "acc" : "visit");
    NclMemAccounting *a = (NclMemAccounting *)acc;
    /* Visit a snapshot, outside the lock: a visitor may free blocks or
       allocate through this very handler without deadlocking. */
    pthread_mutex_lock(&a->lock);
    size_t n = a->stats.live_blocks;
    live_entry *snap = n ? (live_entry *)malloc(n * sizeof *snap) : NULL;
    if (n != 0 && snap == NULL) {
        pthread_mutex_unlock(&a->lock);
        return ncl_error(NCL_ERR_NO_MEMORY,
                         "NclMemAccountingWalk: out of memory for a list of %zu blocks", n);
    }
    size_t k = 0;
    for (size_t i = 0; i < a->cap && k < n; i++)
        if (a->slots[i].ptr != NULL) snap[k++] = a->slots[i];
    pthread_mutex_unlock(&a->lock);
    for (size_t i = 0; i < k; i++)
        if (visit(snap[i].ptr, snap[i].size, user) != 0) break;
    free(snap);
    return NCL_OK;
}

NclStatus NclMemAccountingDestroy(NclMemAccounting *acc)
{
    if (acc == NULL) return NCL_OK;
    pthread_mutex_lock(&acc->lock);
    const NclMemStats st = acc->stats;
    pthread_mutex_unlock(&acc->lock);
    if (st.live_blocks != 0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "NclMemAccountingDestroy: handler '%s' still has %zu live blocks "
                         "(%zu bytes); free them first", acc->handler.name, st.live_blocks,
                         st.live_bytes);
    pthread_mutex_destroy(&acc->lock);
    free(acc->slots);
    free(acc);
    return NCL_OK;
}
