/*
 * ncl_memory.h: data memory. Every block of array data and every
 * temporary a call needs comes from the calling thread's current NEP 49
 * handler (memory.c); the built-in handlers are mem_default.c, mem_libc.c,
 * mem_numa.c and the accounting wrapper mem_accounting.c.
 *
 * memory/ includes core/ only.
 */
#ifndef NCL_SRC_MEMORY_H
#define NCL_SRC_MEMORY_H

#include "core/ncl_core.h"

/* Alignment every data block NCLib allocates has, and that a handler must
   give at least NCL_MIN_HANDLER_ALIGN of. */
#define NCL_DATA_ALIGN 64
#define NCL_MIN_HANDLER_ALIGN 16

/* ---- memory (memory.c) ---------------------------------------------------- */

/* One block of array data and who must free it. Shared by an array and all
   its views; freed when the last reference goes. */
typedef struct ncl_buffer {
    atomic_long refs;
    void *base;                     /* what the handler returned / what was wrapped */
    size_t nbytes;                  /* the size passed to the handler (>= 1) */
    const NclMemHandler *handler;   /* NULL for wrapped foreign memory */
    NclDeleter deleter;             /* foreign memory: called once at the end */
    void *deleter_ctx;
} ncl_buffer;

/* Allocates nbytes (0 is allowed: one byte is taken) with the calling
   thread's current handler, zeroed when zero is set. The result is
   NCL_DATA_ALIGN aligned for the built-in handlers and at least
   NCL_MIN_HANDLER_ALIGN for any accepted one. NCL_ERR_NO_MEMORY (message
   naming who) on failure or misalignment; nothing leaks. */
NclStatus ncl_buffer_alloc(const char *who, size_t nbytes, int zero, ncl_buffer **out);
/* Wraps foreign memory (never fails but for the struct itself). */
NclStatus ncl_buffer_wrap(const char *who, void *data, NclDeleter deleter, void *ctx,
                          ncl_buffer **out);
void ncl_buffer_retain(ncl_buffer *b);
void ncl_buffer_release(ncl_buffer *b);
/* Scratch memory for a call's temporaries (overlap copies, workspaces):
   from the current handler, so allocation failures are injectable. */
NclStatus ncl_scratch_alloc(const char *who, size_t nbytes, ncl_buffer **out);

/* Frees the default handler's cached blocks and mappings (mem_default.c);
   run by the library's destructor at dlclose only. */
void ncl_mem_default_unload(void);

#endif /* NCL_SRC_MEMORY_H */
