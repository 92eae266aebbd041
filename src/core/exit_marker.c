/*
 * exit_marker.c: whether the process is exiting, for the library's
 * destructor (api/unload.c), which frees static data at dlclose but must
 * not at exit, where other threads may still be inside a call.
 *
 * An atexit handler registered by this library after the program started
 * runs at exit before the libraries' destructors, but at dlclose (glibc's
 * __cxa_finalize for this object) after them. The handler is registered at
 * the first use of the kernels, which every computing call makes; a library
 * that was never used has nothing to free that anyone could be using, so
 * the destructor frees it either way.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "core/ncl_core.h"

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

int ncl_process_exiting(void) { return atomic_load_explicit(&exiting, memory_order_relaxed); }
