/*
 * exit_marker.c: whether the process is exiting, for the library's
 * destructor (api/unload.c), which frees static data at dlclose but must
 * not at exit, where other threads may still be inside a call.
 *
 * The marker is a handler tied to this shared object: the C runtime runs it
 * at exit before the libraries' destructors, and at dlclose (glibc's
 * __cxa_finalize for this object, called from the object's own finalizer)
 * after them, then forgets it. It is registered at the first use of the
 * kernels, which every computing call makes; a library that was never used
 * has nothing to free that anyone could be using, so the destructor frees
 * it either way.
 *
 * The tie to this object must be explicit: the handler is registered with
 * __cxa_atexit and this object's __dso_handle, never with atexit. glibc's
 * atexit passes the caller's __dso_handle only because a private copy of it
 * is linked into each object; a runtime that intercepts atexit replaces that
 * copy, and its atexit knows no object. gcc's ThreadSanitizer, which links
 * libtsan.so into the library ahead of libc, did so: each load's handler
 * stayed registered after dlclose unmapped it, and the process died at exit
 * calling into the unmapped code (tests/test_dlopen.c). The sanitizers
 * intercept __cxa_atexit too, but keep its object and pass the handler on to
 * the C library's own list, in its place in the order.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "core/ncl_core.h"

static atomic_int exiting;
static pthread_once_t track_once = PTHREAD_ONCE_INIT;

static void mark_exiting(void *unused)
{
    (void)unused;
    atomic_store_explicit(&exiting, 1, memory_order_relaxed);
}

#if defined(__ELF__)
/* The Itanium C++ ABI's registration (every ELF C runtime has it) and the
   handle the compiler's start files give each object: its own address in a
   shared object, NULL in a program (whose handlers are never unloaded).
   Weak: a runtime without the start files leaves it NULL, which is atexit's
   behaviour. */
int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);
extern void *__dso_handle __attribute__((weak, visibility("hidden")));

static int register_marker(void)
{
    return __cxa_atexit(mark_exiting, NULL, &__dso_handle != NULL ? __dso_handle : NULL);
}
#else
static void mark_exiting_atexit(void) { mark_exiting(NULL); }

static int register_marker(void) { return atexit(mark_exiting_atexit); }
#endif

static void track(void)
{
    /* If registration fails the destructor frees at exit too, as if the
       library had not been used: only a thread still calling at exit could
       notice. */
    (void)register_marker();
}

void ncl_unload_track(void) { pthread_once(&track_once, track); }

int ncl_process_exiting(void) { return atomic_load_explicit(&exiting, memory_order_relaxed); }
