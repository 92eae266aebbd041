/*
 * ncl/threads.h: the thread pool that large calls are split across. The
 * settings are process wide; the pool itself is created on the first call
 * that splits, with one thread fewer than the count (the calling thread
 * takes a share of every split call), each bound to a physical core.
 *
 * Results never depend on the thread count: every split happens at
 * boundaries the single-thread algorithm already has (element ranges,
 * whole outputs, fixed reduction subtrees, intervals of the sorted order),
 * so 1, 2 or 64 threads give the same bits.
 *
 * Environment, read once when the settings are first needed:
 *   NCL_NUM_THREADS          the initial thread count: a decimal integer
 *                            0..1024 (0 = one per physical core). Anything
 *                            else (empty, negative, trailing text, too
 *                            large) is ignored: one thread per physical core.
 *   NCL_THREADING_THRESHOLD  the initial threshold, a decimal integer >= 1
 *                            (elements); anything else is ignored (65536).
 *                            Tests set it tiny so that small arrays split too.
 *
 * The threader is a built-in level-1 hook named "ncl.threader" at the front
 * of every subsystem's chain; calls that do not pass through it (it was
 * unhooked with NclApiUnhook, or a hook in front of it calls the default
 * directly) run on the calling thread. NclHooksReset puts it back.
 */
#ifndef NCL_THREADS_H
#define NCL_THREADS_H

#include <stdint.h>
#include "export.h"
#include "status.h"

NCL_BEGIN_DECLS

/* Largest thread count NclSetNumThreads accepts. */
#define NCL_MAX_THREADS 1024

/* Sets the number of threads a large call is split across (the calling
   thread included): 0 = one per physical core (hwloc; 1 when the topology
   cannot be read), 1 = everything on the calling thread. A running pool is
   resized before this returns; calls in flight on other threads finish on
   the pool they started with.
   NCL_ERR_INVALID_ARGUMENT when n is negative or above NCL_MAX_THREADS;
   NCL_ERR_HOOK when called from inside an NCLib call (a hook or a kernel),
   where resizing would wait for the call itself. */
NCL_API NclStatus NclSetNumThreads(int n);

/* The thread count calls are split across (>= 1; 0 is resolved to the
   physical core count). */
NCL_API int NclGetNumThreads(void);

/* Sets the work, in elements of an addition, from which a call is split:
   an op whose elements cost more (exp, sin, a sort) splits at fewer
   elements. Default 65536. NCL_ERR_INVALID_ARGUMENT when elements < 1. */
NCL_API NclStatus NclSetThreadingThreshold(int64_t elements);

/* The threshold in force (elements of an addition), the environment's or
   the default until NclSetThreadingThreshold changes it. */
NCL_API int64_t NclGetThreadingThreshold(void);

NCL_END_DECLS

#endif /* NCL_THREADS_H */
