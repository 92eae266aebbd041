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
 * Telling the two apart is the exit marker's job (core/exit_marker.c).
 */
#include "hooks/ncl_hooks.h"
#include "memory/ncl_memory.h"
#include "runtime/pool.h"

__attribute__((destructor)) static void ncl_unload(void)
{
    ncl_hooks_unload();
    ncl_pool_unload();
    if (ncl_process_exiting()) return;
    ncl_kernels_unload();
    ncl_pool_topology_unload();
    ncl_mem_default_unload();
}
