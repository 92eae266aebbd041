/*
 * pool.c: the thread pool behind split calls (SPEC section 11) and its
 * public settings (ncl/threads.h).
 *
 * The pool is created on the first call that splits: one thread fewer than
 * the thread count, since the calling thread runs worker 0's share, each
 * worker bound to a physical core of its own with hwloc (a failed binding
 * only costs locality). The caller is not bound: its core is left free of
 * workers, and when the OS has moved it onto a worker's core, that worker
 * moves to the core the caller left (follow_caller). One call at a time
 * owns the pool (its lock is held through the call); a call that finds it
 * busy, or that is made from inside a share of a split call, runs on its
 * own thread, so nothing ever waits for a worker that waits for it.
 *
 * A run is fork-join: the caller writes the job, bumps a generation counter
 * and wakes sleepers; workers spin briefly on the counter (back-to-back
 * calls then start without a system call) before sleeping on a condition
 * variable, and the last one to finish signals the caller. Tasks are
 * partitioned statically by worker index, so the partition depends only on
 * the thread count and each subsystem chooses task boundaries that give
 * the same bits for any count.
 *
 * fork(): the prepare handler takes the pool's locks, so no job is half
 * published; the child, whose copy has no worker threads, forgets the pool
 * and creates a new one on its next split call. Unloading the library
 * stops and joins the workers (they run code that is about to go away).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fenv.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>
#include "runtime/pool.h"

#define DEFAULT_THRESHOLD 65536
/* Polls of the generation counter before a worker sleeps, and of the
   pending count before the caller does: a few tens of microseconds, enough
   for the next call of a loop to arrive, short enough not to steal a core
   from the rest of the process for long. */
#define WORKER_SPINS 20000
#define CALLER_SPINS 20000

NCL_INLINE void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* ---- settings ---------------------------------------------------------------------- */

_Atomic int64_t ncl_pool_threshold_v;   /* 0 until settings_init has run */
static _Atomic int cfg_threads;          /* >= 1 once settings_init has run */
static pthread_once_t settings_once = PTHREAD_ONCE_INIT;

static pthread_once_t topo_once = PTHREAD_ONCE_INIT;
static hwloc_topology_t topo;
static int topo_ok;
static int phys_cores = 1;
static int topo_cores;    /* core objects hwloc found (0: binding is off) */

static void topo_load(void)
{
    if (hwloc_topology_init(&topo) != 0) return;
#if HWLOC_API_VERSION >= 0x00020100
    /* The OS's view is enough for counting and binding; hwloc's own cpuid
       pass is slower and can write to stderr where it cannot run. */
    hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
#endif
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return;
    }
    int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    topo_cores = cores > 0 ? cores : 0;
    if (cores <= 0) cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    phys_cores = cores > 0 ? (cores < NCL_MAX_THREADS ? cores : NCL_MAX_THREADS) : 1;
    topo_ok = 1;
}

void ncl_pool_topology_unload(void)
{
    if (!topo_ok) return;
    hwloc_topology_destroy(topo);
    topo_ok = 0;
    topo_cores = 0;
}

static int physical_cores(void)
{
    pthread_once(&topo_once, topo_load);
    return phys_cores;
}

/* A whole decimal integer in [lo, hi], or 0 (the variable is ignored). */
static int parse_env(const char *name, long long lo, long long hi, long long *out)
{
    const char *s = getenv(name);
    if (s == NULL || *s < '0' || *s > '9') return 0; /* no sign, no blanks, not empty */
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

static void settings_init(void)
{
    long long v;
    int n = 0;
    if (parse_env("NCL_NUM_THREADS", 0, NCL_MAX_THREADS, &v)) n = (int)v;
    if (n == 0) n = physical_cores();
    __atomic_store_n((int *)(void *)&cfg_threads, n, __ATOMIC_RELAXED);
    int64_t th = DEFAULT_THRESHOLD;
    if (parse_env("NCL_THREADING_THRESHOLD", 1, LLONG_MAX, &v)) th = (int64_t)v;
    __atomic_store_n((int64_t *)(void *)&ncl_pool_threshold_v, th, __ATOMIC_RELEASE);
}

NCL_INLINE void settings(void) { pthread_once(&settings_once, settings_init); }

NCL_INLINE int threads_now(void)
{
    return __atomic_load_n((const int *)(const void *)&cfg_threads, __ATOMIC_RELAXED);
}

int ncl_pool_threads_slow(int64_t work)
{
    settings();
    const int64_t th = __atomic_load_n((const int64_t *)(const void *)&ncl_pool_threshold_v,
                                       __ATOMIC_RELAXED);
    if (work < th) return 1;
    int n = threads_now();
    /* Each thread gets at least a quarter of the threshold: just above it,
       two to four threads share the work rather than all of them. */
    const int64_t per = th / 4 > 0 ? th / 4 : 1;
    if (work / per < n) n = (int)(work / per);
    return n > 1 ? n : 1;
}

/* ---- the pool ---------------------------------------------------------------------- */

/* Each worker's result on its own cache line. */
typedef struct worker_slot {
    _Alignas(64) int fpe;
    NclStatus st;
} worker_slot;

static struct {
    pthread_mutex_t lock;     /* owned by one call for a whole run; create, resize */
    pthread_mutex_t mx;       /* sleeping and waking */
    pthread_cond_t wake, done;
    int created;              /* workers exist (size - 1 of them) */
    int size;                 /* threads of a run, the caller included */
    pthread_t *tids;
    int *core;                /* core[w]: the core worker w >= 1 is bound to */
    int home;                 /* the core the caller was last seen on */
    hwloc_bitmap_t where;     /* scratch for the caller's location */
    worker_slot *slots;
    uint64_t created_gen;     /* generation when the workers were started */

    /* the job: written by the caller before the generation is bumped */
    ncl_pool_task fn;
    void *arg;
    int64_t ntasks;
    int nt;
    int floats;
    NclAccuracy accuracy;
    const NclMemHandler *handler;
    int round;

    _Atomic uint64_t gen;
    _Atomic int pending;      /* workers 1..nt-1 still running */
    _Atomic int stop;
} pool = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .mx = PTHREAD_MUTEX_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
};

static _Atomic int pool_running; /* for NclInfo, read without the lock */

/* Tasks [lo, hi) of worker w out of nt. */
NCL_INLINE void share_of(int64_t ntasks, int nt, int w, int64_t *lo, int64_t *hi)
{
    *lo = ntasks * w / nt;
    *hi = ntasks * (w + 1) / nt;
}

static NclStatus run_tasks(ncl_pool_task fn, void *arg, int w, int64_t lo, int64_t hi, int *fpe)
{
    for (int64_t t = lo; t < hi; t++) {
        NclStatus st = fn(arg, w, t, fpe);
        if (st) return st;
    }
    return NCL_OK;
}

/* A worker's share, with the caller's state in place of its own. The
   depth of 1 makes a call from a kernel hook here a nested call: no read
   lock of its own (the caller's covers it), no FP modes applied (its flags
   count for the call), and unhooking from it returns NCL_ERR_HOOK instead
   of waiting for the call it is part of. */
static void worker_share(int w)
{
    ncl_thread_state *t = &ncl_tls;
    const NclAccuracy acc = t->accuracy;
    const NclMemHandler *h = t->handler;
    const int round = fegetround();
    t->accuracy = pool.accuracy;
    t->handler = pool.handler;
    t->depth = 1;
    t->fpe_flags = 0;
    if (round != pool.round) fesetround(pool.round);
    int64_t lo, hi;
    share_of(pool.ntasks, pool.nt, w, &lo, &hi);
    int fpe = 0;
    ncl_fpe_saved saved;
    if (pool.floats) ncl_fpe_begin(&saved);
    NclStatus st = run_tasks(pool.fn, pool.arg, w, lo, hi, &fpe);
    if (pool.floats) fpe |= ncl_fpe_end(&saved);
    fpe |= t->fpe_flags;
    if (round != pool.round) fesetround(round);
    t->depth = 0;
    t->fpe_flags = 0;
    t->accuracy = acc;
    t->handler = h;
    pool.slots[w].fpe = fpe;
    pool.slots[w].st = st;
}

/* ---- binding ----------------------------------------------------------------------- */

/* The core (hwloc's logical index) the calling thread last ran on, or -1. */
static int caller_core(void)
{
    if (!topo_cores || !pool.where) return -1;
    if (hwloc_get_last_cpu_location(topo, pool.where, HWLOC_CPUBIND_THREAD) != 0) return -1;
    const int pu = hwloc_bitmap_first(pool.where);
    hwloc_obj_t obj = pu >= 0 ? hwloc_get_pu_obj_by_os_index(topo, (unsigned)pu) : NULL;
    hwloc_obj_t core = obj ? hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, obj) : NULL;
    return core ? (int)core->logical_index : -1;
}

/* Binds worker w to core c (lock held). */
static void bind_worker(int w, int c)
{
    pool.core[w] = c;
    hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)c);
    if (core && core->cpuset)
        (void)hwloc_set_thread_cpubind(topo, pool.tids[w - 1], core->cpuset, 0);
}

/* The caller runs worker 0's share on whatever core the OS gives it; a
   worker bound to that core would take turns with it, and the run would
   last twice as long. So the caller's core is kept free: workers take the
   cores after it in turn, and when the caller turns up on a worker's core,
   that worker moves to the core the caller left. One look at the caller's
   location per run; a binding system call only when it moved. */
static void follow_caller(void)
{
    const int cc = caller_core();
    if (cc < 0 || cc == pool.home) return;
    for (int w = 1; w < pool.size; w++)
        if (pool.core[w] == cc) {
            bind_worker(w, pool.home);
            break;
        }
    pool.home = cc;
}

/* A new pool's workers: the cores after the caller's, in turn (lock held). */
static void bind_workers(void)
{
    if (!topo_cores) return;
    pool.where = hwloc_bitmap_alloc();
    const int cc = caller_core();
    pool.home = cc >= 0 ? cc : 0;
    for (int w = 1; w < pool.size; w++) bind_worker(w, (pool.home + w) % topo_cores);
}

static void *worker_main(void *argp)
{
    const int w = (int)(intptr_t)argp;
    ncl_tls.in_pool = 1;
    uint64_t seen = pool.created_gen;
    for (;;) {
        uint64_t g;
        int spins = WORKER_SPINS;
        while ((g = atomic_load_explicit(&pool.gen, memory_order_acquire)) == seen && spins-- > 0)
            cpu_relax();
        if (g == seen) {
            pthread_mutex_lock(&pool.mx);
            while ((g = atomic_load_explicit(&pool.gen, memory_order_acquire)) == seen)
                pthread_cond_wait(&pool.wake, &pool.mx);
            pthread_mutex_unlock(&pool.mx);
        }
        seen = g;
        if (atomic_load_explicit(&pool.stop, memory_order_acquire)) break;
        if (w >= pool.nt) continue; /* this run needs fewer threads */
        worker_share(w);
        if (atomic_fetch_sub_explicit(&pool.pending, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&pool.mx);
            pthread_cond_signal(&pool.done);
            pthread_mutex_unlock(&pool.mx);
        }
    }
    return NULL;
}

/* Bumps the generation under the sleep mutex: a worker checks it under
   that mutex before it waits, so no wake-up is lost. */
static void publish(void)
{
    pthread_mutex_lock(&pool.mx);
    atomic_fetch_add_explicit(&pool.gen, 1, memory_order_acq_rel);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mx);
}

static void pool_free_locked(void)
{
    free(pool.tids);
    free(pool.slots);
    free(pool.core);
    if (pool.where) hwloc_bitmap_free(pool.where);
    pool.tids = NULL;
    pool.slots = NULL;
    pool.core = NULL;
    pool.where = NULL;
}

static void pool_destroy_locked(void)
{
    if (!pool.created) return;
    atomic_store_explicit(&pool.stop, 1, memory_order_release);
    publish();
    for (int i = 0; i < pool.size - 1; i++) pthread_join(pool.tids[i], NULL);
    atomic_store_explicit(&pool.stop, 0, memory_order_relaxed);
    pool_free_locked();
    pool.created = 0;
    pool.size = 0;
    atomic_store_explicit(&pool_running, 0, memory_order_relaxed);
}

/* ---- fork -------------------------------------------------------------------------- */

/* Whether the prepare handler took the locks (not when fork() is called from
   inside a share of a split call, whose caller holds the pool lock). */
static _Thread_local int fork_locked;

static void fork_prepare(void)
{
    fork_locked = !ncl_tls.in_pool;
    if (!fork_locked) return;
    pthread_mutex_lock(&pool.lock);
    pthread_mutex_lock(&pool.mx);
}

static void fork_parent(void)
{
    if (!fork_locked) return;
    pthread_mutex_unlock(&pool.mx);
    pthread_mutex_unlock(&pool.lock);
}

/* The child has only the forking thread: the workers, and anyone waiting
   on the condition variables, are gone. */
static void fork_child(void)
{
    if (fork_locked) {
        pthread_mutex_unlock(&pool.mx);
        pthread_mutex_unlock(&pool.lock);
    } else {
        pthread_mutex_init(&pool.mx, NULL);
        pthread_mutex_init(&pool.lock, NULL);
    }
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.done, NULL);
    pool_free_locked();
    pool.created = 0;
    pool.size = 0;
    atomic_store_explicit(&pool.pending, 0, memory_order_relaxed);
    atomic_store_explicit(&pool.stop, 0, memory_order_relaxed);
    atomic_store_explicit(&pool_running, 0, memory_order_relaxed);
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void atfork_register(void) { (void)pthread_atfork(fork_prepare, fork_parent, fork_child); }

/* Starts the workers of a pool of threads_now() threads (lock held). A pool
   that gets fewer threads than asked for runs with those it got. */
static void pool_create_locked(void)
{
    pthread_once(&atfork_once, atfork_register);
    physical_cores(); /* the topology, for pinning */
    const int n = threads_now();
    pool.created = 1;
    pool.size = 1;
    if (n <= 1) return;
    pool.tids = calloc((size_t)(n - 1), sizeof *pool.tids);
    pool.slots = aligned_alloc(64, (size_t)n * sizeof *pool.slots);
    pool.core = calloc((size_t)n, sizeof *pool.core);
    if (!pool.tids || !pool.slots || !pool.core) {
        pool_free_locked();
        return;
    }
    pool.created_gen = atomic_load_explicit(&pool.gen, memory_order_relaxed);
    /* Workers take no signals: they belong to the host program's threads. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (int i = 1; i < n; i++) {
        if (pthread_create(&pool.tids[i - 1], NULL, worker_main, (void *)(intptr_t)i) != 0) break;
        pool.size++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    bind_workers();
    atomic_store_explicit(&pool_running, pool.size > 1, memory_order_relaxed);
}

/* Unloading the library (dlclose, process exit; api/unload.c): workers must not
   be left running code that is unmapped. A pool that is in use is left alone. */
void ncl_pool_unload(void)
{
    if (pthread_mutex_trylock(&pool.lock) != 0) return;
    pool_destroy_locked();
    pthread_mutex_unlock(&pool.lock);
}

/* ---- runs -------------------------------------------------------------------------- */

NclStatus ncl_pool_run(int nthreads, int64_t ntasks, ncl_pool_task fn, void *arg, int floats,
                       int *fpe, int *used)
{
    int nt = nthreads;
    if (ntasks < nt) nt = (int)ntasks;
    ncl_thread_state *t = &ncl_tls;
    if (nt > 1 && !t->in_pool && pthread_mutex_trylock(&pool.lock) == 0) {
        if (!pool.created) pool_create_locked();
        if (nt > pool.size) nt = pool.size;
        if (nt > 1) {
            pool.fn = fn;
            pool.arg = arg;
            pool.ntasks = ntasks;
            pool.nt = nt;
            pool.floats = floats;
            pool.accuracy = t->accuracy;
            pool.handler = t->handler;
            pool.round = fegetround();
            follow_caller();
            atomic_store_explicit(&pool.pending, nt - 1, memory_order_relaxed);
            publish();

            int64_t lo, hi;
            share_of(ntasks, nt, 0, &lo, &hi);
            t->in_pool = 1;
            NclStatus st = run_tasks(fn, arg, 0, lo, hi, fpe);
            t->in_pool = 0;

            int spins = CALLER_SPINS;
            while (atomic_load_explicit(&pool.pending, memory_order_acquire) != 0 && spins-- > 0)
                cpu_relax();
            if (atomic_load_explicit(&pool.pending, memory_order_acquire) != 0) {
                pthread_mutex_lock(&pool.mx);
                while (atomic_load_explicit(&pool.pending, memory_order_acquire) != 0)
                    pthread_cond_wait(&pool.done, &pool.mx);
                pthread_mutex_unlock(&pool.mx);
            }
            for (int w = 1; w < nt; w++) {
                *fpe |= pool.slots[w].fpe;
                if (st == NCL_OK) st = pool.slots[w].st;
            }
            pthread_mutex_unlock(&pool.lock);
            if (used) *used = nt;
            return st;
        }
        pthread_mutex_unlock(&pool.lock);
    }
    if (used) *used = 1;
    return run_tasks(fn, arg, 0, 0, ntasks, fpe);
}

void ncl_pool_info(int *threads, int64_t *threshold, int *running)
{
    settings();
    *threads = threads_now();
    *threshold = __atomic_load_n((const int64_t *)(const void *)&ncl_pool_threshold_v,
                                 __ATOMIC_RELAXED);
    *running = atomic_load_explicit(&pool_running, memory_order_relaxed);
}

/* ---- public settings --------------------------------------------------------------- */

NclStatus NclSetNumThreads(int n)
{
    if (n < 0 || n > NCL_MAX_THREADS)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "NclSetNumThreads(%d): the thread count must be 0 (one per physical "
                         "core) or 1..%d",
                         n, NCL_MAX_THREADS);
    if (ncl_tls.depth > 0 || ncl_tls.in_pool)
        return ncl_error(NCL_ERR_HOOK,
                         "NclSetNumThreads(%d): called from inside an NCLib call, where resizing "
                         "the pool would wait for the call itself",
                         n);
    settings();
    if (n == 0) n = physical_cores();
    pthread_mutex_lock(&pool.lock);
    if (pool.created && pool.size != n) pool_destroy_locked();
    __atomic_store_n((int *)(void *)&cfg_threads, n, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&pool.lock);
    return NCL_OK;
}

int NclGetNumThreads(void)
{
    settings();
    return threads_now();
}

NclStatus NclSetThreadingThreshold(int64_t elements)
{
    if (elements < 1)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "NclSetThreadingThreshold(%lld): the threshold must be at least 1 "
                         "element",
                         (long long)elements);
    settings();
    __atomic_store_n((int64_t *)(void *)&ncl_pool_threshold_v, elements, __ATOMIC_RELAXED);
    return NCL_OK;
}

int64_t NclGetThreadingThreshold(void)
{
    /* A front end may ask on every call: once the settings are read the
       threshold is non-zero, and one load answers. */
    int64_t th = __atomic_load_n((const int64_t *)(const void *)&ncl_pool_threshold_v,
                                 __ATOMIC_ACQUIRE);
    if (th > 0) return th;
    settings();
    return __atomic_load_n((const int64_t *)(const void *)&ncl_pool_threshold_v, __ATOMIC_RELAXED);
}
