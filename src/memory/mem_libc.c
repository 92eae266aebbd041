/*
 * mem_libc.c: "ncl_libc", the plain C library handler: aligned_alloc and
 * free with 64-byte alignment and no cache, for embedders who want the
 * system allocator (or an interposed malloc such as a profiler's) to see
 * every block.
 */
#include <stdlib.h>
#include <string.h>
#include "memory/ncl_memory.h"

/* aligned_alloc wants a size that is a multiple of the alignment. */
static size_t round_up(size_t n)
{
    if (n == 0) n = 1;
    if (n > SIZE_MAX - (NCL_DATA_ALIGN - 1)) return 0;
    return (n + NCL_DATA_ALIGN - 1) / NCL_DATA_ALIGN * NCL_DATA_ALIGN;
}

static void *l_malloc(void *ctx, size_t size)
{
    (void)ctx;
    size_t n = round_up(size);
    return n ? aligned_alloc(NCL_DATA_ALIGN, n) : NULL;
}

static void *l_calloc(void *ctx, size_t nelem, size_t elsize)
{
    (void)ctx;
    if (elsize != 0 && nelem > SIZE_MAX / elsize) return NULL;
    size_t n = round_up(nelem * elsize);
    void *p = n ? aligned_alloc(NCL_DATA_ALIGN, n) : NULL;
    if (p != NULL) memset(p, 0, nelem * elsize);
    return p;
}

static void *l_realloc(void *ctx, void *ptr, size_t new_size)
{
    (void)ctx;
    size_t n = round_up(new_size);
    if (n == 0) return NULL;
    if (ptr == NULL) return aligned_alloc(NCL_DATA_ALIGN, n);
    /* realloc keeps the contents but not the alignment: when it moves the
       block to a worse address, move it once more to an aligned one. The
       realloc'd block holds n valid bytes, so no old size is needed. */
    void *p = realloc(ptr, n);
    if (p == NULL || ((uintptr_t)p & (NCL_DATA_ALIGN - 1)) == 0) return p;
    void *q = aligned_alloc(NCL_DATA_ALIGN, n);
    /* Out of memory for the aligned copy: the data is already at p and ptr
       is gone, so p (malloc's own alignment, 16 bytes on the platforms NCLib
       supports) is the only answer that loses nothing. */
    if (q == NULL) return p;
    memcpy(q, p, n);
    free(p);
    return q;
}

static void l_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size;
    free(ptr);
}

static const NclMemHandler libc_handler = {
    "ncl_libc", 1, {NULL, l_malloc, l_calloc, l_realloc, l_free}
};

const NclMemHandler *NclMemLibcHandler(void) { return &libc_handler; }
