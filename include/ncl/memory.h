/**
 * @file
 * @brief NEP 49 data-memory handlers: the per-thread current handler, the
 * allocation event hook, and the four handlers NCLib ships.
 *
 * @defgroup ncl_memory Memory handlers (NEP 49)
 * @brief Where array data comes from: the calling thread's current handler,
 * an event hook on every allocation, and the built-in handlers.
 *
 * Every array's data, and every temporary a call needs, comes from the
 * calling thread's current handler (also on the worker threads the call is
 * split across) and is freed, with its true size, by the handler that
 * allocated it, whatever the current handler is by then. NCLib ships four
 * handlers: the default (aligned, cached, huge pages, lazy zeroing), plain
 * libc, NUMA-bound, and an accounting wrapper. The array structs themselves
 * are metadata and come from malloc.
 *
 * A handler's functions are called from any thread (a block is freed on
 * the thread that releases the last reference to it) and must be
 * thread-safe. A handler, the NclMemHandler struct included, must stay
 * valid at its address until every array whose data it allocated is
 * released. Memory it returns must be aligned to at least 16 bytes: an
 * allocation that is not is handed back and the call fails with
 * NCL_ERR_NO_MEMORY. A handler whose version is not 1, or whose malloc or
 * free is NULL, makes allocations fail with NCL_ERR_INVALID_ARGUMENT.
 * @{
 */
#ifndef NCL_MEMORY_H
#define NCL_MEMORY_H

#include <stddef.h>
#include <stdint.h>
#include "export.h"
#include "status.h"

NCL_BEGIN_DECLS

/** NEP 49's PyDataMem_Handler allocator: four functions and their context. */
typedef struct NclMemAllocator {
    void *ctx; ///< Passed as the first argument of each function.
    /** Returns size bytes (at least 16-byte aligned), or NULL on failure. */
    void *(*malloc)(void *ctx, size_t size);
    /** Returns nelem * elsize zeroed bytes, or NULL. Optional: when NULL,
        NCLib calls malloc and clears the block itself. */
    void *(*calloc)(void *ctx, size_t nelem, size_t elsize);
    /** NEP 49's realloc. NCLib does not call it on array data; it may be
        NULL for a handler that only NCLib uses. */
    void *(*realloc)(void *ctx, void *ptr, size_t new_size);
    /** Frees a block; size is the size it was allocated with. */
    void (*free)(void *ctx, void *ptr, size_t size);
} NclMemAllocator;

/** A named allocator handler, as NEP 49's PyDataMem_Handler. */
typedef struct NclMemHandler {
    /** NUL-terminated name, e.g. "ncl_default"; what NclArrayHandlerName
        and NclInfo show. */
    char name[127];
    uint8_t version; ///< The struct's version: 1.
    NclMemAllocator allocator; ///< The functions.
} NclMemHandler;

/**
 * Sets the calling thread's current handler, which every array and
 * temporary this thread's calls allocate comes from. A new thread starts on
 * the default handler.
 * @param h  the handler; NULL = the default (NclMemDefaultHandler()).
 * @return the previous handler (the default handler if none was set);
 *         never NULL.
 */
NCL_API const NclMemHandler *NclDataMem_SetHandler(const NclMemHandler *h);
/**
 * The calling thread's current handler.
 * @return the handler; never NULL.
 */
NCL_API const NclMemHandler *NclDataMem_GetHandler(void);

/** Observes allocations of array data: called after every allocation and
    free that NCLib makes through a handler, array data and call temporaries
    alike, as new (NULL, p, size) and free (p, NULL, 0); a reallocation
    would be (old, new, size), but NCLib makes none. Called on the thread
    that allocates or frees, so it must be thread-safe.
    @param old_ptr   the block freed or reallocated, or NULL.
    @param new_ptr   the block allocated, or NULL.
    @param size      the size allocated, or 0 for a free.
    @param user      the pointer given with the hook. */
typedef void (*NclMemEventFn)(void *old_ptr, void *new_ptr, size_t size, void *user);
/**
 * Sets the process-wide event hook. A call racing with the change may
 * still call the previous hook once (never a hook with another's user
 * pointer). Thread-safe.
 * @param fn        the hook; NULL removes it.
 * @param user      passed to fn.
 * @param old_user  when not NULL, receives the previous hook's user
 *                  pointer.
 * @return the previous hook, or NULL.
 */
NCL_API NclMemEventFn NclDataMem_SetEventHook(NclMemEventFn fn, void *user, void **old_user);

/**
 * The default handler, "ncl_default": 64-byte aligned blocks, a small
 * per-size cache of freed blocks shared by all threads (as NumPy's
 * npy_alloc_cache), transparent huge pages for large blocks, and zeroed
 * memory from the OS without writing it where possible.
 * @return a static handler, valid for the life of the process.
 */
NCL_API const NclMemHandler *NclMemDefaultHandler(void);
/**
 * Plain libc, "ncl_libc": aligned_alloc (64 bytes) and free, no cache, so
 * that the system allocator (or an interposed one) sees every block.
 * @return a static handler, valid for the life of the process.
 */
NCL_API const NclMemHandler *NclMemLibcHandler(void);

/**
 * Fills in a handler whose memory is bound to a NUMA node with hwloc, named
 * "ncl_numa" followed by the node number. Thread-safe.
 * @param out        the caller's storage, overwritten on success; it must
 *                   stay valid and in place while arrays it allocated live.
 * @param numa_node  the node's OS index.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  out NULL, or a node the machine does
 *                                   not have.
 * @retval NCL_ERR_UNSUPPORTED  hwloc cannot read the topology, or cannot
 *         bind memory on a machine with more than one node.
 */
NCL_API NclStatus NclMemNumaHandlerInit(NclMemHandler *out, int numa_node);

/** An accounting wrapper: a handler that forwards to an inner handler and
    counts, with a table of live blocks for leak reports (opaque; made by
    NclMemAccountingCreate, freed by NclMemAccountingDestroy). Its counters
    are kept under a lock: every function on it is thread-safe. */
typedef struct NclMemAccounting NclMemAccounting;
/** A snapshot of an accounting wrapper's counters (NclMemAccountingStats). */
typedef struct NclMemStats {
    size_t live_bytes;   ///< Allocated and not yet freed.
    size_t peak_bytes;   ///< The maximum of live_bytes so far.
    size_t live_blocks;  ///< Blocks allocated and not yet freed.
    /** @var allocs
        Successful allocations (malloc and calloc).
        @var frees
        Frees.
        @var reallocs
        Successful reallocations.
        @var failures
        Allocations and reallocations that returned NULL. */
    uint64_t allocs, frees, reallocs, failures;
} NclMemStats;

/**
 * Makes an accounting wrapper around a handler, named
 * `ncl_accounting(<inner name>)`. Install it with
 * NclDataMem_SetHandler(NclMemAccountingHandler(acc)).
 * @param inner  the handler to forward to, which must outlive the wrapper;
 *               NULL = the default handler.
 * @param out    receives the wrapper, the caller's to destroy with
 *               NclMemAccountingDestroy; untouched on failure.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  out NULL, or an inner handler whose
 *         version is not 1 or whose malloc or free is NULL.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclMemAccountingCreate(const NclMemHandler *inner, NclMemAccounting **out);
/**
 * The wrapper's handler.
 * @param acc  the wrapper, or NULL.
 * @return the handler, owned by the wrapper and valid until it is
 *         destroyed; NULL for NULL.
 */
NCL_API const NclMemHandler *NclMemAccountingHandler(NclMemAccounting *acc);
/**
 * Copies the wrapper's counters, all read at one instant.
 * @param acc  the wrapper; NULL gives all zeros.
 * @param out  receives the counters; NULL does nothing.
 */
NCL_API void NclMemAccountingStats(const NclMemAccounting *acc, NclMemStats *out);
/**
 * Visits every live block (for leak reports): visit(ptr, size, user) for
 * each block of a snapshot taken at the call, in no particular order,
 * outside the wrapper's lock, so that visit may allocate or free through
 * the wrapper.
 * @param acc    the wrapper.
 * @param visit  called per block; returning non-zero stops the walk.
 * @param user   passed to visit.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  acc or visit NULL.
 * @retval NCL_ERR_NO_MEMORY  no memory for the snapshot.
 */
NCL_API NclStatus NclMemAccountingWalk(const NclMemAccounting *acc,
                                       int (*visit)(void *ptr, size_t size, void *user),
                                       void *user);
/**
 * Frees the wrapper, once no block it allocated is live.
 * @param acc  the wrapper; NULL does nothing.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  blocks are still live: the wrapper is
 *         kept, so that their frees still work.
 */
NCL_API NclStatus NclMemAccountingDestroy(NclMemAccounting *acc);

NCL_END_DECLS

/** @} */

#endif /* NCL_MEMORY_H */
