/*
 * pool.h: the thread pool (pool.c) as the subsystem defaults see it: how
 * many threads a piece of work may use, and a fork-join "parallel for" over
 * tasks [0, ntasks) with static partitioning, per-worker FP flags merged
 * into the caller's.
 *
 * Whether a call may split at all is decided by the threader, a built-in
 * level-1 hook in front of each default (hooks/hooks.c): it sets ncl_tls.split
 * for the duration of the call. Workers (and the caller while it runs its
 * own share) have ncl_tls.in_pool set, so a call made from inside a kernel
 * hook there runs inline on that thread: no worker ever waits on the pool.
 */
#ifndef NCL_POOL_H
#define NCL_POOL_H

#include "core/ncl_core.h"

/* Work is measured in "adds": one element of a plain elementwise op. Ops
   whose elements cost more split at fewer elements. */
enum {
    NCL_COST_ADD = 1,
    NCL_COST_DIV = 4,             /* divisions, remainders, integer powers */
    NCL_COST_TRANSCENDENTAL = 16, /* exp, log, sin, power of floats, ... */
    NCL_COST_SORT = 16            /* per element of a sorted slice */
};

/* The current threshold in adds; 0 until the settings are read. */
extern _Atomic int64_t ncl_pool_threshold_v;
int ncl_pool_threads_slow(int64_t work);

/* How many threads work (in adds) may be split across now: 1 unless the
   call came through the threader, this thread is not already running a
   share of a split call, and work reaches the threshold. Costs one
   thread-local test on calls that did not come through the threader and
   a relaxed load on small calls that did. */
NCL_INLINE int ncl_pool_threads(int64_t work)
{
    if (!ncl_tls.split || ncl_tls.in_pool) return 1;
    int64_t th = __atomic_load_n((const int64_t *)(const void *)&ncl_pool_threshold_v,
                                 __ATOMIC_RELAXED);
    if (th > 0 && work < th) return 1;
    return ncl_pool_threads_slow(work);
}

/* One task of a split call, run as worker `worker` (0 = the caller);
   kernel-reported flags go to *fpe. */
typedef NclStatus (*ncl_pool_task)(void *arg, int worker, int64_t task, int *fpe);

/* Runs tasks [0, ntasks) across up to nthreads threads: worker w runs the
   contiguous range [ntasks*w/nt, ntasks*(w+1)/nt) in order, stopping at its
   first failure, so which thread runs a task depends only on nt. The
   caller is worker 0. When the pool is busy with another thread's call,
   cannot be created, or nthreads <= 1, every task runs here. Workers
   sample the hardware FP flags around their share (when floats) and run
   with the caller's accuracy, allocator handler and rounding mode; their
   flags are ORed into *fpe (the caller samples its own share). Returns the
   failure of the lowest-numbered worker that failed, else NCL_OK; *used
   (may be NULL) gets the number of threads that ran. */
NclStatus ncl_pool_run(int nthreads, int64_t ntasks, ncl_pool_task fn, void *arg, int floats,
                       int *fpe, int *used);

/* For NclInfo: the configured count, the threshold, whether workers exist. */
void ncl_pool_info(int *threads, int64_t *threshold, int *running);

/* Unloading (api/unload.c): stops and joins the workers (at exit and at
   dlclose); frees the hwloc topology (at dlclose only). */
void ncl_pool_unload(void);
void ncl_pool_topology_unload(void);

#endif /* NCL_POOL_H */
