/**
 * @file
 * @brief The thread pool that large calls are split across, and its
 * process-wide settings.
 *
 * @defgroup ncl_threads Threads
 * @brief The thread count and the threshold from which a call is split.
 *
 * The settings are process wide and may be changed from any thread; the
 * pool itself is created on the first call that splits, with one thread
 * fewer than the count (the calling thread takes a share of every split
 * call), each bound to a physical core. One call at a time uses the pool:
 * a call that finds it busy with another thread's call, or that is made
 * from inside a share of a split call (a hook or kernel calling NCLib),
 * runs on its own thread and never waits for the pool.
 *
 * Results never depend on the thread count: every split happens at
 * boundaries the single-thread algorithm already has (element ranges,
 * whole outputs, fixed reduction subtrees, intervals of the sorted order),
 * so 1, 2 or 64 threads give the same bits.
 *
 * Environment, read once when the settings are first needed:
 *
 * - `NCL_NUM_THREADS`: the initial thread count, a decimal integer
 *   0..1024 (0 = one per physical core). Anything else (empty, negative,
 *   trailing text, too large) is ignored: one thread per physical core.
 * - `NCL_THREADING_THRESHOLD`: the initial threshold, a decimal integer
 *   >= 1 (elements); anything else is ignored (65536). Tests set it tiny so
 *   that small arrays split too.
 *
 * The threader is a built-in level-1 hook named "ncl.threader" at the front
 * of every subsystem's chain; calls that do not pass through it (it was
 * unhooked with NclApiUnhook, or a hook in front of it calls the default
 * directly) run on the calling thread. NclHooksReset puts it back.
 * @{
 */
#ifndef NCL_THREADS_H
#define NCL_THREADS_H

#include <stdint.h>
#include "export.h"
#include "status.h"

NCL_BEGIN_DECLS

/** Largest thread count NclSetNumThreads accepts. */
#define NCL_MAX_THREADS 1024

/**
 * Sets the number of threads a large call is split across, the calling
 * thread included. A running pool is resized before this returns; calls in
 * flight on other threads finish on the pool they started with. The BLAS
 * that NclLinalg's float products run in keeps its own threads, which this
 * does not change (ncl/linalg.h).
 * @param n  0 = one per physical core (hwloc; 1 when the topology cannot be
 *           read), 1 = everything on the calling thread, up to
 *           NCL_MAX_THREADS.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  n negative or above NCL_MAX_THREADS.
 * @retval NCL_ERR_HOOK  called from inside an NCLib call (a hook or a
 *                       kernel, on the calling thread or a worker), where
 *                       resizing would wait for the call itself.
 */
NCL_API NclStatus NclSetNumThreads(int n);

/**
 * The thread count calls are split across.
 * @return >= 1: the environment's or NclSetNumThreads' count, 0 resolved to
 *         the physical core count.
 */
NCL_API int NclGetNumThreads(void);

/**
 * Sets the work, in elements of an addition, from which a call is split:
 * an op whose elements cost more (exp, sin, a sort) splits at fewer
 * elements. Applies to calls that start after it returns.
 * @param elements  the threshold, >= 1; the default is 65536.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  elements < 1.
 */
NCL_API NclStatus NclSetThreadingThreshold(int64_t elements);

/**
 * The threshold in force. Cheap enough to ask on every call.
 * @return elements of an addition: the environment's or the default until
 *         NclSetThreadingThreshold changes it.
 */
NCL_API int64_t NclGetThreadingThreshold(void);

NCL_END_DECLS

/** @} */

#endif /* NCL_THREADS_H */
