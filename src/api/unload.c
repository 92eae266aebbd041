/*
 * unload.c: what the library gives back when it goes away.
 *
 * There are two ways to go, and they want different things:
 *
 *   dlclose   the code and static data are unmapped, so everything reached
 *             only from them (the kernel registry, the hwloc topology, the
 *             default handler's cached blocks) is lost unless it is freed
 *             now: a program that loads and unloads the library in a loop
 *             must not grow.
 *   exit      the process's memory goes with it, and other threads may
 *             still be inside a call, so freeing what they use would be
 *             the only way to crash them. Nothing is freed.
 *
 * Both must stop what would run library code afterwards: deferred hook
 * reclaims queued on liburcu's call_rcu thread, and the pool's workers.
 *
 * Telling the two apart: an atexit handler registered by this library after
 * the program started runs at exit before the libraries' destructors, but at
 * dlclose (glibc's __cxa_finalize for this object) after them. The handler
 * is registered at the first use of the kernels, which every computing call
 * makes; a library that was never used has nothing to free that anyone
 * could be using, so the destructor frees it either way.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "ncl_internal.h"

static atomic_int exiting;
static pthread_once_t track_once = PTHREAD_ONCE_INIT;

static void mark_exiting(void) { atomic_store_explicit(&exiting, 1, memory_order_relaxed); }

static void track(void)
{
    /* If registration fails the destructor frees at exit too, as if the
       library had not been used: only a thread still calling at exit could
       notice. */
    (void)atexit(mark_exiting);
}

void ncl_unload_track(void) { pthread_once(&track_once, track); }

__attribute__((destructor)) static void ncl_unload(void)
{
    ncl_hooks_unload();
    ncl_pool_unload();
    if (atomic_load_explicit(&exiting, memory_order_relaxed)) return;
    ncl_kernels_unload();
    ncl_pool_topology_unload();
    ncl_mem_default_unload();
}
