/*
 * test_faults.c: allocation-fault injection through the NEP 49 handler, in
 * the manner of SQLite's malloc tests. For every public call that can
 * allocate array data or scratch (the table below), and for each way its
 * output can be given (allocated, provided, overlapping an input, or a
 * constructor's ignored *out), allocation k is made to fail for k = 1, 2,
 * ... until the call completes without reaching k: once transiently (only
 * allocation k fails) and once persistently (k and every later one fails).
 * Each faulted call must return NCL_ERR_NO_MEMORY with a message (or
 * succeed with the right result), leave *out, every input and a provided
 * output byte for byte as they were, and hand back every block it obtained,
 * each freed with the size it was allocated with; the same call with the
 * normal handler must then still give the reference result.
 *
 * The handler here keeps a table of its live blocks (pointer -> size), so
 * a free with another size, of an unknown pointer, or a block never freed
 * are all caught; zero-byte requests go through the same table. It can
 * also return misaligned memory, which the library must refuse without
 * leaking. Some entries run with the accounting wrapper around it, with a
 * pass-through level-1 hook in the chain, or with the ledger on, so that
 * failures are seen to travel through wrappers and hooks too.
 *
 * NCLib's metadata (array structs, buffer descriptors, NclInfo's text)
 * comes from libc malloc, not from the data handler (NEP 49 covers data
 * only). Where the C library lets a program replace malloc (glibc) and no
 * sanitizer owns it, this suite replaces it too and injects the same
 * faults into the malloc calls made inside each call, with the fault
 * handler as the data handler so that data leaked on those paths shows.
 *
 * The number of fault points injected is printed at the end, for
 * docs/RELIABILITY.md.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <pthread.h>
#include <sys/mman.h>
#include "ncl_test.h"

/* ---- the fault handler ----------------------------------------------------------- */

#define FH_SLOTS 256

typedef struct fh_block {
    void *ptr;   /* what the library got */
    void *base;  /* what came from libc */
    size_t size; /* what the library asked for */
} fh_block;

typedef struct fault_handler {
    NclMemHandler handler;
    pthread_mutex_t lock;
    long calls;         /* allocation attempts (malloc, calloc, realloc) */
    long failures;      /* attempts made to fail */
    long allocs, frees;
    long bad_sizes;     /* frees whose size was not the block's */
    long unknown_frees; /* frees of pointers this handler never returned */
    long overflow;      /* more live blocks than the table holds */
    long fail_at;       /* 0: never fail */
    int persistent;     /* fail every attempt from fail_at on */
    size_t misalign;    /* byte offset added to every block returned */
    int nlive;
    fh_block live[FH_SLOTS];
} fault_handler;

static fault_handler FH = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int fh_should_fail(fault_handler *h)
{
    const long k = ++h->calls;
    if (h->fail_at > 0 && (k == h->fail_at || (h->persistent && k > h->fail_at))) {
        h->failures++;
        return 1;
    }
    return 0;
}

/* A new block of size bytes (size 0 included), recorded; NULL when libc
   has none or the table is full. Called with the lock held. */
static void *fh_new_block(fault_handler *h, size_t size, int zero)
{
    if (h->nlive == FH_SLOTS) {
        h->overflow++;
        return NULL;
    }
    if (size > SIZE_MAX - 128) return NULL;
    const size_t total = (size + h->misalign + 64) / 64 * 64;
    char *base = (char *)aligned_alloc(64, total);
    if (base == NULL) return NULL;
    /* Fresh blocks hold a pattern rather than zeros, so that a library
       relying on zeroed memory from malloc shows up in the results. */
    memset(base, zero ? 0 : 0xA5, total);
    fh_block *b = &h->live[h->nlive++];
    b->base = base;
    b->ptr = base + h->misalign;
    b->size = size;
    h->allocs++;
    return b->ptr;
}

/* Removes ptr from the table: its recorded size, or (size_t)-1 when
   unknown. Called with the lock held. */
static size_t fh_forget(fault_handler *h, void *ptr, void **base)
{
    for (int i = 0; i < h->nlive; i++) {
        if (h->live[i].ptr != ptr) continue;
        const size_t size = h->live[i].size;
        *base = h->live[i].base;
        h->live[i] = h->live[--h->nlive];
        return size;
    }
    return (size_t)-1;
}

static void *fh_malloc(void *ctx, size_t size)
{
    fault_handler *h = (fault_handler *)ctx;
    pthread_mutex_lock(&h->lock);
    void *p = fh_should_fail(h) ? NULL : fh_new_block(h, size, 0);
    pthread_mutex_unlock(&h->lock);
    return p;
}

static void *fh_calloc(void *ctx, size_t nelem, size_t elsize)
{
    fault_handler *h = (fault_handler *)ctx;
    if (elsize != 0 && nelem > SIZE_MAX / elsize) return NULL;
    pthread_mutex_lock(&h->lock);
    void *p = fh_should_fail(h) ? NULL : fh_new_block(h, nelem * elsize, 1);
    pthread_mutex_unlock(&h->lock);
    return p;
}

static void fh_free(void *ctx, void *ptr, size_t size)
{
    fault_handler *h = (fault_handler *)ctx;
    if (ptr == NULL) return;
    pthread_mutex_lock(&h->lock);
    void *base = NULL;
    const size_t real = fh_forget(h, ptr, &base);
    if (real == (size_t)-1) {
        h->unknown_frees++; /* never free what this handler did not give */
    } else {
        if (real != size) h->bad_sizes++;
        h->frees++;
        free(base);
    }
    pthread_mutex_unlock(&h->lock);
}

static void *fh_realloc(void *ctx, void *ptr, size_t size)
{
    fault_handler *h = (fault_handler *)ctx;
    pthread_mutex_lock(&h->lock);
    void *p = NULL;
    if (!fh_should_fail(h)) p = fh_new_block(h, size, 0);
    if (p != NULL && ptr != NULL) {
        void *base = NULL;
        const size_t old = fh_forget(h, ptr, &base);
        if (old == (size_t)-1) {
            h->unknown_frees++;
        } else {
            memcpy(p, ptr, old < size ? old : size);
            h->frees++;
            free(base);
        }
    }
    pthread_mutex_unlock(&h->lock);
    return p;
}

/* Resets the counters and the failure plan. Blocks still live (there
   should be none) stay in the table, so a leak is still reported. */
static void fh_arm(long fail_at, int persistent, size_t misalign)
{
    fault_handler *h = &FH;
    pthread_mutex_lock(&h->lock);
    if (h->handler.version == 0) {
        snprintf(h->handler.name, sizeof h->handler.name, "ncl_test_faults");
        h->handler.version = 1;
        h->handler.allocator.ctx = h;
        h->handler.allocator.malloc = fh_malloc;
        h->handler.allocator.calloc = fh_calloc;
        h->handler.allocator.realloc = fh_realloc;
        h->handler.allocator.free = fh_free;
    }
    h->calls = h->failures = h->allocs = h->frees = 0;
    h->bad_sizes = h->unknown_frees = h->overflow = 0;
    h->fail_at = fail_at;
    h->persistent = persistent;
    h->misalign = misalign;
    pthread_mutex_unlock(&h->lock);
}

static long fh_get(const long *field)
{
    pthread_mutex_lock(&FH.lock);
    const long v = *field;
    pthread_mutex_unlock(&FH.lock);
    return v;
}

/* Fails the test unless every block was freed, each with its own size. */
static void fh_check_clean(const char *what)
{
    pthread_mutex_lock(&FH.lock);
    const int nlive = FH.nlive;
    const long bad = FH.bad_sizes, unknown = FH.unknown_frees, overflow = FH.overflow;
    const size_t first = nlive ? FH.live[0].size : 0;
    pthread_mutex_unlock(&FH.lock);
    ck_assert_msg(nlive == 0, "%s: %d blocks leaked (the first of %zu bytes)", what, nlive,
                  first);
    ck_assert_msg(bad == 0, "%s: %ld blocks freed with a size other than their own", what, bad);
    ck_assert_msg(unknown == 0, "%s: %ld frees of pointers the handler never gave", what,
                  unknown);
    ck_assert_msg(overflow == 0, "%s: more than %d blocks live at once", what, FH_SLOTS);
}

/* ---- libc malloc faults (metadata) ------------------------------------------------ */

#if defined(__GLIBC__) && !NCL_TEST_SANITIZED
#  define NCL_TEST_LIBC_FAULTS 1
#endif

#ifdef NCL_TEST_LIBC_FAULTS
/* glibc lets a program replace malloc, calloc, realloc and free (its own
   entry points stay reachable as __libc_*); the replacements below fail
   the k-th call made on the armed thread, and remember what the armed
   thread got so that a block never freed is found. Everything else goes
   straight through. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t nelem, size_t elsize);
extern void *__libc_realloc(void *ptr, size_t size);
extern void __libc_free(void *ptr);

#define LC_SLOTS 256
static _Thread_local int lc_armed;
static _Thread_local long lc_calls, lc_failures, lc_fail_at, lc_overflow;
static _Thread_local int lc_persistent, lc_nlive;
static _Thread_local void *lc_live[LC_SLOTS];

static int lc_should_fail(void)
{
    if (!lc_armed) return 0;
    const long k = ++lc_calls;
    if (lc_fail_at > 0 && (k == lc_fail_at || (lc_persistent && k > lc_fail_at))) {
        lc_failures++;
        return 1;
    }
    return 0;
}

static void lc_remember(void *p)
{
    if (p == NULL || !lc_armed) return;
    if (lc_nlive == LC_SLOTS) {
        lc_overflow++;
        return;
    }
    lc_live[lc_nlive++] = p;
}

static void lc_forget(void *p)
{
    for (int i = 0; p != NULL && i < lc_nlive; i++) {
        if (lc_live[i] == p) {
            lc_live[i] = lc_live[--lc_nlive];
            return;
        }
    }
}

void *malloc(size_t size);
void *calloc(size_t nelem, size_t elsize);
void *realloc(void *ptr, size_t size);
void free(void *ptr);

void *malloc(size_t size)
{
    if (lc_should_fail()) return NULL;
    void *p = __libc_malloc(size);
    lc_remember(p);
    return p;
}

void *calloc(size_t nelem, size_t elsize)
{
    if (lc_should_fail()) return NULL;
    void *p = __libc_calloc(nelem, elsize);
    lc_remember(p);
    return p;
}

void *realloc(void *ptr, size_t size)
{
    if (lc_should_fail()) return NULL;
    void *p = __libc_realloc(ptr, size);
    if (p != NULL) {
        lc_forget(ptr);
        lc_remember(p);
    }
    return p;
}

void free(void *ptr)
{
    lc_forget(ptr);
    __libc_free(ptr);
}

static void lc_arm(long fail_at, int persistent)
{
    lc_calls = lc_failures = lc_overflow = 0;
    lc_fail_at = fail_at;
    lc_persistent = persistent;
    lc_armed = 1;
}

static void lc_disarm(void) { lc_armed = 0; }

/* Fails the test unless every block the armed calls got was freed. */
static void lc_check_clean(const char *what)
{
    ck_assert_msg(lc_nlive == 0, "%s: %d blocks from malloc leaked", what, lc_nlive);
    ck_assert_msg(lc_overflow == 0, "%s: more than %d malloc blocks live", what, LC_SLOTS);
    lc_nlive = 0;
}
#endif

/* ---- where the fault points are counted ---------------------------------------------- */

/* Shared with the forked test processes, so that main can print the total. */
static atomic_long *fault_points;

static void count_points(long n)
{
    if (fault_points != NULL) atomic_fetch_add(fault_points, n);
}

/* ---- the fixture: the inputs every call reads --------------------------------------- */

enum {
    A_F64,    /* float64 (4,6), values in [-100, 100] */
    A_I32,    /* int32 (4,6), any value */
    A_I8,     /* int8 (4,6) */
    A_U64,    /* uint64 (6,) */
    A_B,      /* bool (4,6), random */
    A_ROW32,  /* float32 (6,) */
    A_FF,     /* float64 (4,6) in Fortran order */
    A_MIS,    /* float64 (4,6), misaligned data */
    A_POS,    /* float64 (4,6), values in (0, 100] */
    A_NAN,    /* float64 (4,6) with NaNs, infinities and signed zeros */
    A_E0,     /* float64 (0,6): no elements */
    A_F3,     /* float64 (2,3,4) */
    A_IDX,    /* int64 (3,): 3, -1, 0 */
    A_LO,     /* float64 0-d: -50 */
    A_HI,     /* float64 0-d: 50 */
    A_T32,    /* float32 (4,6): a target for copyto */
    A_I32REV, /* A_I32 reversed on both axes: a view of the same memory */
    A_F64REV, /* A_F64 reversed on both axes */
    A_F64V1,  /* A_F64[0:1, 0:1]: one element of A_F64 */
    A_F64L,   /* A_F64[:, 0:3] */
    A_B0,     /* bool (4,6), all false */
    A_COUNT
};

typedef struct fx {
    NclArray *a[A_COUNT];
} fx;

static void fx_setup(fx *f)
{
    const int64_t s46[2] = {4, 6};
    uint64_t seed = 12345;
    memset(f, 0, sizeof *f);
    f->a[A_F64] = ncl_test_new(NCL_FLOAT64, 2, s46);
    ncl_test_fill_random(f->a[A_F64], &seed, 100);
    f->a[A_I32] = ncl_test_new(NCL_INT32, 2, s46);
    ncl_test_fill_random(f->a[A_I32], &seed, 0);
    f->a[A_I8] = ncl_test_new(NCL_INT8, 2, s46);
    ncl_test_fill_random(f->a[A_I8], &seed, 0);
    f->a[A_U64] = ncl_test_new(NCL_UINT64, 1, NCL_DIMS(6));
    ncl_test_fill_random(f->a[A_U64], &seed, 0);
    f->a[A_B] = ncl_test_new(NCL_BOOL, 2, s46);
    ncl_test_fill_random(f->a[A_B], &seed, 0);
    ncl_test_set_i(f->a[A_B], 0, 1); /* every row has a true element: min/max */
    ncl_test_set_i(f->a[A_B], 6, 1); /* with where= need no initial on axis 1 */
    ncl_test_set_i(f->a[A_B], 12, 1);
    ncl_test_set_i(f->a[A_B], 18, 1);
    f->a[A_ROW32] = ncl_test_new(NCL_FLOAT32, 1, NCL_DIMS(6));
    ncl_test_fill_random(f->a[A_ROW32], &seed, 10);
    f->a[A_FF] = ncl_test_layout_of(f->a[A_F64], NCL_TEST_F);
    f->a[A_MIS] = ncl_test_layout_of(f->a[A_F64], NCL_TEST_MISALIGNED);
    f->a[A_POS] = ncl_test_new(NCL_FLOAT64, 2, s46);
    for (int64_t i = 0; i < 24; i++) ncl_test_set_d(f->a[A_POS], i, 0.5 + (double)(i * 7 % 24) * 4);
    f->a[A_NAN] = ncl_test_clone(f->a[A_F64]);
    ncl_test_set_d(f->a[A_NAN], 3, NAN);
    ncl_test_set_d(f->a[A_NAN], 10, INFINITY);
    ncl_test_set_d(f->a[A_NAN], 11, -INFINITY);
    ncl_test_set_d(f->a[A_NAN], 15, -0.0);
    ncl_test_set_d(f->a[A_NAN], 16, 0.0);
    ncl_test_set_d(f->a[A_NAN], 20, NAN);
    f->a[A_E0] = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(0, 6));
    f->a[A_F3] = ncl_test_new(NCL_FLOAT64, 3, NCL_DIMS(2, 3, 4));
    ncl_test_fill_random(f->a[A_F3], &seed, 1000);
    f->a[A_IDX] = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(3), 3, -1, 0);
    f->a[A_LO] = ncl_test_arr(NCL_FLOAT64, 0, NULL, -50);
    f->a[A_HI] = ncl_test_arr(NCL_FLOAT64, 0, NULL, 50);
    f->a[A_T32] = ncl_test_arr(NCL_FLOAT32, 2, s46, 9);
    const int64_t none[2] = {INT64_MIN, INT64_MIN}, back[2] = {-1, -1};
    NCL_CHECK_OK(NclArraySlice(f->a[A_I32], none, none, back, &f->a[A_I32REV]));
    NCL_CHECK_OK(NclArraySlice(f->a[A_F64], none, none, back, &f->a[A_F64REV]));
    NCL_CHECK_OK(NclArraySlice(f->a[A_F64], NCL_DIMS(0, 0), NCL_DIMS(1, 1), NULL,
                               &f->a[A_F64V1]));
    NCL_CHECK_OK(NclArraySlice(f->a[A_F64], NCL_DIMS(0, 0), NCL_DIMS(4, 3), NULL,
                               &f->a[A_F64L]));
    f->a[A_B0] = ncl_test_arr(NCL_BOOL, 2, s46, 0);
}

static void fx_teardown(fx *f)
{
    for (int i = 0; i < A_COUNT; i++) NclArrayRelease(f->a[i]);
    memset(f, 0, sizeof *f);
}

static void fx_hash(const fx *f, uint64_t *h)
{
    for (int i = 0; i < A_COUNT; i++) h[i] = ncl_test_hash(f->a[i]);
}

/* ---- the calls ---------------------------------------------------------------------- */

typedef enum kind {
    K_CONVERT, K_COMPARE, K_ISUNARY, K_UNARY, K_BINARY, K_TERNARY, K_REDUCE, K_SORT, K_MASK,
    K_FN /* a function of its own */
} kind;

/* Parameter presets. */
enum {
    P_NULL, P_INIT, P_F32, P_I32U, P_F32U, P_WHERE, P_WHERE_F32, P_AX0, P_AX1, P_AX1K, P_AX02K,
    P_AXM1, P_WHERE_INIT, P_WHERE_AX1, P_F32_AX1, P_I32_AX0, P_STABLE, P_STABLE_AX0, P_KTH2,
    P_KTHM1_AX0, P_KTH0_STABLE, P_UNSAFE
};

static const int ax0[1] = {0}, ax1[1] = {1}, axm1[1] = {-1}, ax02[2] = {0, 2};
static const double init_low = -1e300;

static const NclParams *make_params(int preset, const fx *f, NclParams *p)
{
    const NclParams init = NCL_PARAMS_INIT;
    *p = init;
    switch (preset) {
    case P_NULL: return NULL;
    case P_INIT: break;
    case P_F32: p->dtype = NCL_FLOAT32; break;
    case P_I32U: p->dtype = NCL_INT32; p->casting = NCL_CASTING_UNSAFE; break;
    case P_F32U: p->dtype = NCL_FLOAT32; p->casting = NCL_CASTING_UNSAFE; break;
    case P_WHERE: p->where = f->a[A_B]; break;
    case P_WHERE_F32: p->where = f->a[A_B]; p->dtype = NCL_FLOAT32; break;
    case P_AX0: p->axes = ax0; p->naxes = 1; break;
    case P_AX1: p->axes = ax1; p->naxes = 1; break;
    case P_AX1K: p->axes = ax1; p->naxes = 1; p->keepdims = 1; break;
    case P_AX02K: p->axes = ax02; p->naxes = 2; p->keepdims = 1; break;
    case P_AXM1: p->axes = axm1; p->naxes = 1; break;
    case P_WHERE_INIT: p->where = f->a[A_B]; p->initial = &init_low; break;
    case P_WHERE_AX1: p->where = f->a[A_B]; p->axes = ax1; p->naxes = 1; break;
    case P_F32_AX1: p->dtype = NCL_FLOAT32; p->axes = ax1; p->naxes = 1; break;
    case P_I32_AX0: p->dtype = NCL_INT32; p->casting = NCL_CASTING_UNSAFE;
        p->axes = ax0; p->naxes = 1; break;
    case P_STABLE: p->kind = NCL_SORT_STABLE; break;
    case P_STABLE_AX0: p->kind = NCL_SORT_STABLE; p->axes = ax0; p->naxes = 1; break;
    case P_KTH2: p->kth = 2; break;
    case P_KTHM1_AX0: p->kth = -1; p->axes = ax0; p->naxes = 1; break;
    case P_KTH0_STABLE: p->kth = 0; p->kind = NCL_SORT_STABLE; break;
    case P_UNSAFE: p->casting = NCL_CASTING_UNSAFE; break;
    default: ck_abort_msg("bad params preset %d", preset);
    }
    return p;
}

/* ---- calls of their own (constructors, views, Info, ...) ---------------------------- */

static NclStatus fn_create(NclCreateOp op, NclDType dt, int ndim, const int64_t *shape,
                           NclOrder order, NclArray **out)
{
    NclCreateParams p = NCL_CREATE_PARAMS_INIT;
    static const double seven = 7.0;
    p.dtype = dt;
    p.ndim = ndim;
    p.shape = shape;
    p.order = order;
    p.value = &seven;
    return NclCreate(op, &p, out);
}

/* The ops of two outputs allocate both: a failure of the second must free
   the first and leave both slots NULL. The first output is the entry's
   result, the second is released here. */
static NclStatus two_outputs(NclStatus st, NclArray **slots, NclArray **o)
{
    if (st != NCL_OK) return slots[0] || slots[1] ? NCL_ERR_HOOK : st;
    NclArrayRelease(slots[1]);
    *o = slots[0];
    return st;
}
static NclStatus fn_divmod(fx *f, NclArray **o)
{
    NclArray *slots[2] = {NULL, NULL};
    return two_outputs(NclBinaryN(NCL_DIVMOD, f->a[A_F64], f->a[A_POS], 2, slots, NULL), slots, o);
}
/* The unique ops of several outputs: as two_outputs, for nout slots. */
static NclStatus n_outputs(NclStatus st, NclArray **slots, int nout, NclArray **o)
{
    if (st != NCL_OK) {
        for (int k = 0; k < nout; k++)
            if (slots[k]) return NCL_ERR_HOOK;
        return st;
    }
    for (int k = 1; k < nout; k++) NclArrayRelease(slots[k]);
    *o = slots[0];
    return st;
}
static NclStatus fn_unique_counts(fx *f, NclArray **o)
{
    NclArray *slots[2] = {NULL, NULL};
    return n_outputs(NclSortN(NCL_UNIQUE_COUNTS, f->a[A_NAN], 2, slots, NULL), slots, 2, o);
}
static NclStatus fn_unique_inverse(fx *f, NclArray **o)
{
    NclArray *slots[2] = {NULL, NULL};
    return n_outputs(NclSortN(NCL_UNIQUE_INVERSE, f->a[A_I32REV], 2, slots, NULL), slots, 2, o);
}
static NclStatus fn_unique_all(fx *f, NclArray **o)
{
    NclArray *slots[4] = {NULL, NULL, NULL, NULL};
    return n_outputs(NclSortN(NCL_UNIQUE_ALL, f->a[A_NAN], 4, slots, NULL), slots, 4, o);
}
static NclStatus fn_frexp_where(fx *f, NclArray **o)
{
    NclArray *slots[2] = {NULL, NULL};
    NclParams p = NCL_PARAMS_INIT;
    p.where = f->a[A_B];
    return two_outputs(NclUnaryN(NCL_FREXP, f->a[A_MIS], 2, slots, &p), slots, o);
}

static NclStatus fn_empty(fx *f, NclArray **o) { (void)f; return NclEmpty(NCL_FLOAT64, 2, NCL_DIMS(5, 7), o); }
static NclStatus fn_empty0(fx *f, NclArray **o) { (void)f; return NclEmpty(NCL_INT16, 1, NCL_DIMS(0), o); }
static NclStatus fn_empty_0d(fx *f, NclArray **o) { (void)f; return NclEmpty(NCL_UINT8, 0, NULL, o); }
static NclStatus fn_zeros(fx *f, NclArray **o) { (void)f; return NclZeros(NCL_INT32, 2, NCL_DIMS(30, 40), o); }
static NclStatus fn_zeros0(fx *f, NclArray **o) { (void)f; return NclZeros(NCL_FLOAT32, 2, NCL_DIMS(3, 0), o); }
static NclStatus fn_ones(fx *f, NclArray **o) { (void)f; return NclOnes(NCL_BOOL, 3, NCL_DIMS(2, 3, 4), o); }
static NclStatus fn_ones_0d(fx *f, NclArray **o) { (void)f; return NclOnes(NCL_FLOAT64, 0, NULL, o); }
static NclStatus fn_full(fx *f, NclArray **o)
{
    (void)f;
    const int64_t v = -3;
    return NclFull(NCL_INT64, 1, NCL_DIMS(17), &v, o);
}
static NclStatus fn_arange(fx *f, NclArray **o) { (void)f; return NclArange(NCL_FLOAT64, -2, 9, 0.5, o); }
static NclStatus fn_arange0(fx *f, NclArray **o) { (void)f; return NclArange(NCL_INT32, 5, 1, 1, o); }
static NclStatus fn_copy(fx *f, NclArray **o) { return NclCopy(f->a[A_FF], o); }
static NclStatus fn_copy0(fx *f, NclArray **o) { return NclCopy(f->a[A_E0], o); }
static NclStatus fn_create_empty_f(fx *f, NclArray **o) { (void)f; return fn_create(NCL_CREATE_EMPTY, NCL_INT8, 2, NCL_DIMS(3, 5), NCL_ORDER_F, o); }
static NclStatus fn_create_zeros_f(fx *f, NclArray **o) { (void)f; return fn_create(NCL_CREATE_ZEROS, NCL_UINT16, 2, NCL_DIMS(3, 5), NCL_ORDER_F, o); }
static NclStatus fn_create_ones(fx *f, NclArray **o) { (void)f; return fn_create(NCL_CREATE_ONES, NCL_FLOAT32, 1, NCL_DIMS(9), NCL_ORDER_C, o); }
static NclStatus fn_create_full_f(fx *f, NclArray **o) { (void)f; return fn_create(NCL_CREATE_FULL, NCL_FLOAT64, 2, NCL_DIMS(4, 2), NCL_ORDER_F, o); }
static NclStatus fn_linspace(fx *f, NclArray **o)
{
    (void)f;
    NclCreateParams p = NCL_CREATE_PARAMS_INIT;
    p.start = -1;
    p.stop = 1;
    p.num = 11;
    return NclCreate(NCL_CREATE_LINSPACE, &p, o);
}
static NclStatus fn_linspace0(fx *f, NclArray **o)
{
    (void)f;
    NclCreateParams p = NCL_CREATE_PARAMS_INIT;
    p.dtype = NCL_INT32;
    p.num = 0;
    return NclCreate(NCL_CREATE_LINSPACE, &p, o);
}
static NclStatus fn_eye(fx *f, NclArray **o)
{
    (void)f;
    NclCreateParams p = NCL_CREATE_PARAMS_INIT;
    p.dtype = NCL_INT16;
    p.ndim = 2;
    p.shape = NCL_DIMS(4, 6);
    p.k = 1;
    return NclCreate(NCL_CREATE_EYE, &p, o);
}
static NclStatus fn_create_copy_dt(fx *f, NclArray **o)
{
    NclCreateParams p = NCL_CREATE_PARAMS_INIT;
    p.src = f->a[A_MIS];
    p.dtype = NCL_FLOAT32;
    p.order = NCL_ORDER_F;
    return NclCreate(NCL_CREATE_COPY, &p, o);
}
static NclStatus fn_slice(fx *f, NclArray **o)
{
    return NclArraySlice(f->a[A_F64], NCL_DIMS(1, 0), NCL_DIMS(3, 6), NCL_DIMS(1, 2), o);
}
static NclStatus fn_transpose(fx *f, NclArray **o) { return NclArrayTranspose(f->a[A_F3], NULL, o); }
static NclStatus fn_bcast(fx *f, NclArray **o)
{
    return NclArrayBroadcastTo(f->a[A_ROW32], 3, NCL_DIMS(2, 4, 6), o);
}
static NclStatus fn_reshape_view(fx *f, NclArray **o)
{
    return NclArrayReshape(f->a[A_F64], 3, NCL_DIMS(2, -1, 3), o);
}
static NclStatus fn_reshape_copy(fx *f, NclArray **o)
{
    return NclArrayReshape(f->a[A_FF], 1, NCL_DIMS(24), o);
}
static NclStatus fn_reshape_copy0(fx *f, NclArray **o)
{
    NclArray *t = NULL;
    NclStatus s = NclArrayTranspose(f->a[A_E0], NULL, &t);
    if (s == NCL_OK) s = NclArrayReshape(t, 2, NCL_DIMS(3, 0), o);
    NclArrayRelease(t);
    return s;
}
static NclStatus fn_fromdata(fx *f, NclArray **o)
{
    /* the last six elements of A_POS, backwards */
    return NclFromData(NCL_FLOAT64, 1, NCL_DIMS(6), NCL_DIMS(-8),
                       (char *)NclArrayData(f->a[A_POS]) + 23 * 8, NCL_ARRAY_WRITEABLE, NULL,
                       NULL, o);
}
static NclStatus fn_info(fx *f, NclArray **o)
{
    /* a static buffer: the call's own mallocs are the ones counted */
    static char buf[1 << 16];
    (void)f;
    (void)o;
    size_t need = 0;
    return NclInfo(buf, sizeof buf, &need);
}

/* ---- the table ---------------------------------------------------------------------- */

enum {
    M_ALLOC = 1,   /* *out NULL: the library allocates */
    M_PROV = 2,    /* *out a fresh array of the result's dtype and shape */
    M_TARGET = 4,  /* *out the fixture array target (may overlap the inputs) */
    M_SENT = 8     /* *out at a sentinel that a constructor ignores */
};
enum {
    E_ANY = 0,  /* allocates or not */
    E_SOME = 1, /* must allocate through the handler in its first mode */
    E_NONE = 2  /* must not touch the handler */
};
enum {
    F_ACCT = 1,     /* through the accounting wrapper around the fault handler */
    F_HOOK = 2,     /* with a pass-through Binary hook in the chain */
    F_LEDGER = 4,   /* with the ledger on */
    F_NOVALUES = 8, /* compare dtype and shape only (empty) */
    F_NOARRAY = 16  /* the call makes no array */
};

typedef struct entry {
    const char *name;
    kind k;
    int op;
    int in[3];
    int params;
    unsigned modes;
    int target; /* M_TARGET */
    int expect;
    unsigned flags;
    NclStatus (*fn)(fx *f, NclArray **out);
} entry;

#define N_ -1
#define FN(name, f, exp, fl) {name, K_FN, 0, {N_, N_, N_}, P_NULL, M_SENT, N_, exp, fl, f}
#define OP(name, k, op, i0, i1, i2, prm, modes, tgt, exp, fl) \
    {name, k, op, {i0, i1, i2}, prm, modes, tgt, exp, fl, NULL}
#define AP (M_ALLOC | M_PROV)

static const entry entries[] = {
    /* Create and its convenience constructors */
    FN("NclEmpty float64 (5,7)", fn_empty, E_SOME, F_NOVALUES),
    FN("NclEmpty int16 (0,)", fn_empty0, E_SOME, F_NOVALUES),
    FN("NclEmpty uint8 0-d", fn_empty_0d, E_SOME, F_NOVALUES),
    FN("NclZeros int32 (30,40)", fn_zeros, E_SOME, 0),
    FN("NclZeros float32 (3,0)", fn_zeros0, E_SOME, 0),
    FN("NclOnes bool (2,3,4)", fn_ones, E_SOME, 0),
    FN("NclOnes float64 0-d", fn_ones_0d, E_SOME, 0),
    FN("NclFull int64 (17,)", fn_full, E_SOME, 0),
    FN("NclArange float64", fn_arange, E_SOME, 0),
    FN("NclArange int32, no elements", fn_arange0, E_SOME, 0),
    FN("NclCopy of a Fortran-order array", fn_copy, E_SOME, 0),
    FN("NclCopy of (0,6)", fn_copy0, E_SOME, 0),
    FN("NclCreate(empty) Fortran order", fn_create_empty_f, E_SOME, F_NOVALUES),
    FN("NclCreate(zeros) Fortran order", fn_create_zeros_f, E_SOME, 0),
    FN("NclCreate(ones)", fn_create_ones, E_SOME, 0),
    FN("NclCreate(full) Fortran order", fn_create_full_f, E_SOME, 0),
    FN("NclCreate(linspace)", fn_linspace, E_SOME, 0),
    FN("NclCreate(linspace) num 0", fn_linspace0, E_SOME, 0),
    FN("NclCreate(eye) k=1", fn_eye, E_SOME, 0),
    FN("NclCreate(copy) misaligned to float32 F", fn_create_copy_dt, E_SOME, 0),
    FN("NclEmpty via the accounting wrapper", fn_empty, E_SOME, F_ACCT | F_NOVALUES),
    FN("NclCopy with the ledger on", fn_copy, E_SOME, F_LEDGER),
    /* views and reshape */
    FN("NclArraySlice", fn_slice, E_NONE, 0),
    FN("NclArrayTranspose", fn_transpose, E_NONE, 0),
    FN("NclArrayBroadcastTo", fn_bcast, E_NONE, 0),
    FN("NclArrayReshape (a view)", fn_reshape_view, E_NONE, 0),
    FN("NclArrayReshape (a copy)", fn_reshape_copy, E_SOME, 0),
    FN("NclArrayReshape (a copy, no elements)", fn_reshape_copy0, E_ANY, 0),
    FN("NclFromData", fn_fromdata, E_NONE, 0),
    FN("NclInfo", fn_info, E_NONE, F_NOARRAY),
    /* Convert */
    OP("NclConvert(astype float64 -> int32)", K_CONVERT, NCL_CONVERT_ASTYPE, A_NAN, N_, N_,
       P_I32U, AP, N_, E_SOME, 0),
    OP("NclConvert(astype) misaligned, where=", K_CONVERT, NCL_CONVERT_ASTYPE, A_MIS, N_, N_,
       P_WHERE_F32, AP, N_, E_SOME, 0),
    OP("NclConvert(astype) of (0,6)", K_CONVERT, NCL_CONVERT_ASTYPE, A_E0, N_, N_, P_F32, AP,
       N_, E_SOME, 0),
    OP("NclConvert(copyto) float64 -> float32", K_CONVERT, NCL_CONVERT_COPYTO, A_F64, N_, N_,
       P_INIT, M_TARGET, A_T32, E_ANY, 0),
    OP("NclConvert(copyto) from an overlapping view", K_CONVERT, NCL_CONVERT_COPYTO, A_F64REV,
       N_, N_, P_INIT, M_TARGET, A_F64, E_SOME, 0),
    /* Compare */
    OP("NclCompare(lt) int32 vs uint64", K_COMPARE, NCL_CMP_LT, A_I32, A_U64, N_, P_NULL, AP,
       N_, E_SOME, 0),
    OP("NclCompare(eq) where=", K_COMPARE, NCL_CMP_EQ, A_F64, A_FF, N_, P_WHERE, AP, N_,
       E_SOME, 0),
    OP("NclCompare(ge) float64 vs float32 into its own input", K_COMPARE, NCL_CMP_GE, A_F64,
       A_ROW32, N_, P_UNSAFE, M_TARGET, A_F64REV, E_SOME, 0),
    /* IsUnary */
    OP("NclIsUnary(isnan)", K_ISUNARY, NCL_IS_NAN, A_NAN, N_, N_, P_NULL, AP, N_, E_SOME, 0),
    OP("NclIsUnary(signbit) where=", K_ISUNARY, NCL_SIGNBIT, A_NAN, N_, N_, P_WHERE, AP, N_,
       E_SOME, 0),
    /* Unary */
    OP("NclUnary(sqrt) float64", K_UNARY, NCL_SQRT, A_POS, N_, N_, P_NULL, AP, N_, E_SOME, 0),
    OP("NclUnary(sqrt) int8 -> float32", K_UNARY, NCL_SQRT, A_I8, N_, N_, P_NULL, AP, N_,
       E_SOME, 0),
    OP("NclUnary(negative) of (0,6)", K_UNARY, NCL_NEGATIVE, A_E0, N_, N_, P_NULL, AP, N_,
       E_SOME, 0),
    OP("NclUnary(exp) dtype=float32", K_UNARY, NCL_EXP, A_F64, N_, N_, P_F32U, AP, N_, E_SOME,
       0),
    OP("NclUnary(negative) into a reversed self", K_UNARY, NCL_NEGATIVE, A_I32, N_, N_, P_NULL,
       M_TARGET, A_I32REV, E_SOME, 0),
    OP("NclUnary(absolute) in place", K_UNARY, NCL_ABSOLUTE, A_F64, N_, N_, P_NULL, M_TARGET,
       A_F64, E_ANY, 0),
    OP("NclUnary(floor) where=, misaligned", K_UNARY, NCL_FLOOR, A_MIS, N_, N_, P_WHERE, AP, N_,
       E_SOME, 0),
    /* Binary */
    OP("NclBinary(add) int8 + float64 row", K_BINARY, NCL_ADD, A_I8, A_ROW32, N_, P_NULL, AP, N_,
       E_SOME, 0),
    OP("NclBinary(add) dtype=float32", K_BINARY, NCL_ADD, A_F64, A_FF, N_, P_F32, AP, N_,
       E_SOME, 0),
    OP("NclBinary(multiply) where=", K_BINARY, NCL_MULTIPLY, A_F64, A_MIS, N_, P_WHERE, AP, N_,
       E_SOME, 0),
    OP("NclBinary(divide) int32 / int8", K_BINARY, NCL_DIVIDE, A_I32, A_I8, N_, P_NULL, AP, N_,
       E_SOME, 0),
    FN("NclBinaryN(divmod), two outputs allocated", fn_divmod, E_SOME, 0),
    FN("NclUnaryN(frexp) where=, two outputs allocated", fn_frexp_where, E_SOME, 0),
    FN("NclSortN(unique_counts), two outputs allocated", fn_unique_counts, E_SOME, 0),
    FN("NclSortN(unique_inverse) of a reversed view", fn_unique_inverse, E_SOME, 0),
    FN("NclSortN(unique_all), four outputs allocated", fn_unique_all, E_SOME, 0),
    OP("NclBinary(floor_divide) int32", K_BINARY, NCL_FLOOR_DIVIDE, A_I32, A_I8, N_, P_NULL, AP,
       N_, E_SOME, 0),
    OP("NclBinary(add) x + x into reversed x", K_BINARY, NCL_ADD, A_I32, A_I32, N_, P_NULL,
       M_TARGET, A_I32REV, E_SOME, 0),
    OP("NclBinary(subtract) in place", K_BINARY, NCL_SUBTRACT, A_F64, A_ROW32, N_, P_NULL,
       M_TARGET, A_F64, E_ANY, 0),
    OP("NclBinary(maximum) of (0,6)", K_BINARY, NCL_MAXIMUM, A_E0, A_ROW32, N_, P_NULL, AP, N_,
       E_SOME, 0),
    OP("NclBinary(add) through a hook", K_BINARY, NCL_ADD, A_F64, A_ROW32, N_, P_NULL, AP, N_,
       E_SOME, F_HOOK),
    OP("NclBinary(add) with the ledger on", K_BINARY, NCL_ADD, A_I8, A_I32, N_, P_NULL, AP, N_,
       E_SOME, F_LEDGER),
    OP("NclBinary(hypot) via the accounting wrapper", K_BINARY, NCL_HYPOT, A_F64, A_FF, N_,
       P_WHERE, AP, N_, E_SOME, F_ACCT),
    /* Ternary */
    OP("NclTernary(where)", K_TERNARY, NCL_WHERE, A_B, A_F64, A_ROW32, P_NULL, AP, N_, E_SOME, 0),
    OP("NclTernary(clip)", K_TERNARY, NCL_CLIP, A_NAN, A_LO, A_HI, P_NULL, AP, N_, E_SOME, 0),
    OP("NclTernary(fma) where=", K_TERNARY, NCL_FMA, A_F64, A_FF, A_ROW32, P_WHERE, AP, N_,
       E_SOME, 0),
    OP("NclTernary(where) into an overlapping input", K_TERNARY, NCL_WHERE, A_B, A_F64, A_F64REV,
       P_NULL, M_TARGET, A_F64, E_SOME, 0),
    /* Reduce: every op, and the axis/keepdims/where/dtype/initial variants */
    OP("NclReduce(sum) all axes", K_REDUCE, NCL_SUM, A_F64, N_, N_, P_NULL, AP, N_, E_SOME, 0),
    OP("NclReduce(sum) axis 0 of F order", K_REDUCE, NCL_SUM, A_FF, N_, N_, P_AX0, AP, N_,
       E_SOME, 0),
    OP("NclReduce(sum) axes (0,2) keepdims", K_REDUCE, NCL_SUM, A_F3, N_, N_, P_AX02K, AP, N_,
       E_SOME, 0),
    OP("NclReduce(sum) dtype=float32 axis 1", K_REDUCE, NCL_SUM, A_I8, N_, N_, P_F32_AX1, AP, N_,
       E_SOME, 0),
    OP("NclReduce(sum) where= initial=", K_REDUCE, NCL_SUM, A_MIS, N_, N_, P_WHERE_INIT, AP, N_,
       E_SOME, 0),
    OP("NclReduce(sum) of (0,6) axis 0", K_REDUCE, NCL_SUM, A_E0, N_, N_, P_AX0, AP, N_, E_SOME,
       0),
    OP("NclReduce(prod) axis -1", K_REDUCE, NCL_PROD, A_I32, N_, N_, P_AXM1, AP, N_, E_SOME, 0),
    OP("NclReduce(min) axis 1 keepdims", K_REDUCE, NCL_MIN, A_NAN, N_, N_, P_AX1K, AP, N_,
       E_SOME, 0),
    OP("NclReduce(max) where= initial=", K_REDUCE, NCL_MAX, A_F64, N_, N_, P_WHERE_INIT, AP, N_,
       E_SOME, 0),
    OP("NclReduce(max) where= axis 1", K_REDUCE, NCL_MAX, A_F64, N_, N_, P_WHERE_AX1, AP, N_,
       E_SOME, 0),
    OP("NclReduce(any)", K_REDUCE, NCL_ANY, A_I8, N_, N_, P_AX0, AP, N_, E_SOME, 0),
    OP("NclReduce(all)", K_REDUCE, NCL_ALL, A_B, N_, N_, P_NULL, AP, N_, E_SOME, 0),
    OP("NclReduce(argmin)", K_REDUCE, NCL_ARGMIN, A_NAN, N_, N_, P_NULL, AP, N_, E_SOME, 0),
    OP("NclReduce(argmax) axis 0", K_REDUCE, NCL_ARGMAX, A_FF, N_, N_, P_AX0, AP, N_, E_SOME, 0),
    OP("NclReduce(mean) axis 1", K_REDUCE, NCL_MEAN, A_I32, N_, N_, P_AX1, AP, N_, E_SOME, 0),
    OP("NclReduce(mean) dtype=float32", K_REDUCE, NCL_MEAN, A_F64, N_, N_, P_F32, AP, N_, E_SOME,
       0),
    OP("NclReduce(count_nonzero) axis 0", K_REDUCE, NCL_COUNT_NONZERO, A_NAN, N_, N_, P_AX0, AP,
       N_, E_SOME, 0),
    OP("NclReduce(cumsum) flattened", K_REDUCE, NCL_CUMSUM, A_F64, N_, N_, P_NULL, AP, N_,
       E_SOME, 0),
    OP("NclReduce(cumprod) axis 0 dtype=int32", K_REDUCE, NCL_CUMPROD, A_I8, N_, N_, P_I32_AX0,
       AP, N_, E_SOME, 0),
    OP("NclReduce(cumsum) axis 1 into a reversed self", K_REDUCE, NCL_CUMSUM, A_F64, N_, N_,
       P_AX1, M_TARGET, A_F64REV, E_SOME, 0),
    OP("NclReduce(std) axis 1", K_REDUCE, NCL_STD, A_F64, N_, N_, P_AX1, AP, N_, E_SOME, 0),
    OP("NclReduce(var) of int32 axis -1", K_REDUCE, NCL_VAR, A_I32, N_, N_, P_AXM1, AP, N_,
       E_SOME, 0),
    OP("NclReduce(nansum) axis 0", K_REDUCE, NCL_NANSUM, A_NAN, N_, N_, P_AX0, AP, N_, E_SOME, 0),
    OP("NclReduce(nanprod) axis 1 keepdims", K_REDUCE, NCL_NANPROD, A_NAN, N_, N_, P_AX1K, AP, N_,
       E_SOME, 0),
    OP("NclReduce(nanmean) where= axis 1", K_REDUCE, NCL_NANMEAN, A_NAN, N_, N_, P_WHERE_AX1, AP,
       N_, E_SOME, 0),
    OP("NclReduce(nanmin)", K_REDUCE, NCL_NANMIN, A_NAN, N_, N_, P_NULL, AP, N_, E_SOME, 0),
    OP("NclReduce(nanmax) axis 0", K_REDUCE, NCL_NANMAX, A_NAN, N_, N_, P_AX0, AP, N_, E_SOME, 0),
    OP("NclReduce(nanargmin)", K_REDUCE, NCL_NANARGMIN, A_NAN, N_, N_, P_NULL, AP, N_, E_SOME, 0),
    OP("NclReduce(nanargmax) axis 1", K_REDUCE, NCL_NANARGMAX, A_NAN, N_, N_, P_AX1, AP, N_,
       E_SOME, 0),
    OP("NclReduce(nanstd) axis 1", K_REDUCE, NCL_NANSTD, A_NAN, N_, N_, P_AX1, AP, N_, E_SOME, 0),
    OP("NclReduce(nanvar) axes (0,2) keepdims", K_REDUCE, NCL_NANVAR, A_F3, N_, N_, P_AX02K, AP,
       N_, E_SOME, 0),
    OP("NclReduce(nancumsum) flattened", K_REDUCE, NCL_NANCUMSUM, A_NAN, N_, N_, P_NULL, AP, N_,
       E_SOME, 0),
    OP("NclReduce(nancumprod) axis 1", K_REDUCE, NCL_NANCUMPROD, A_NAN, N_, N_, P_AX1, AP, N_,
       E_SOME, 0),
    /* Sort */
    OP("NclSort(sort)", K_SORT, NCL_SORT, A_NAN, N_, N_, P_NULL, AP, N_, E_SOME, 0),
    OP("NclSort(sort) stable axis 0 (strided)", K_SORT, NCL_SORT, A_I32, N_, N_, P_STABLE_AX0,
       AP, N_, E_SOME, 0),
    OP("NclSort(sort) in place", K_SORT, NCL_SORT, A_F64, N_, N_, P_NULL, M_TARGET, A_F64, E_ANY,
       0),
    OP("NclSort(sort) into a reversed self", K_SORT, NCL_SORT, A_F64, N_, N_, P_NULL, M_TARGET,
       A_F64REV, E_SOME, 0),
    OP("NclSort(argsort) misaligned", K_SORT, NCL_ARGSORT, A_MIS, N_, N_, P_STABLE, AP, N_,
       E_SOME, 0),
    OP("NclSort(partition) kth 2", K_SORT, NCL_PARTITION, A_I8, N_, N_, P_KTH2, AP, N_, E_SOME,
       0),
    OP("NclSort(argpartition) kth -1 axis 0", K_SORT, NCL_ARGPARTITION, A_FF, N_, N_,
       P_KTHM1_AX0, AP, N_, E_SOME, 0),
    OP("NclSort(unique_values)", K_SORT, NCL_UNIQUE_VALUES, A_NAN, N_, N_, P_NULL, M_ALLOC, N_,
       E_SOME, 0),
    OP("NclSort(argsort) of (0,6)", K_SORT, NCL_ARGSORT, A_E0, N_, N_, P_NULL, AP, N_, E_SOME,
       0),
    /* Mask */
    OP("NclMask(compress)", K_MASK, NCL_MASK_COMPRESS, A_F64, A_B, N_, P_NULL, AP, N_, E_SOME, 0),
    OP("NclMask(compress) nothing selected", K_MASK, NCL_MASK_COMPRESS, A_I8, A_B0, N_, P_NULL,
       AP, N_, E_SOME, 0),
    OP("NclMask(put) one value", K_MASK, NCL_MASK_PUT, A_B, A_LO, N_, P_NULL, M_TARGET, A_F64,
       E_ANY, 0),
    OP("NclMask(put) a value inside the target", K_MASK, NCL_MASK_PUT, A_B, A_F64V1, N_, P_NULL,
       M_TARGET, A_F64, E_SOME, 0),
    OP("NclMask(nonzero)", K_MASK, NCL_MASK_NONZERO, A_B, N_, N_, P_NULL, AP, N_, E_SOME, 0),
    OP("NclMask(nonzero) of (0,6)", K_MASK, NCL_MASK_NONZERO, A_E0, N_, N_, P_NULL, AP, N_,
       E_SOME, 0),
    OP("NclMask(searchsorted) int64 a, float64 v", K_MASK, NCL_MASK_SEARCHSORTED, A_IDX, A_F64, N_,
       P_NULL, AP, N_, E_SOME, 0),
    OP("NclMask(take) flattened", K_MASK, NCL_MASK_TAKE, A_F64, A_IDX, N_, P_NULL, AP, N_, E_SOME,
       0),
    OP("NclMask(take) axis 1 into an overlapping view", K_MASK, NCL_MASK_TAKE, A_F64, A_IDX, N_,
       P_AX1, M_TARGET, A_F64L, E_SOME, 0),
};
#define NENTRIES ((int)(sizeof entries / sizeof entries[0]))

/* ---- hooks used by the F_HOOK entries ------------------------------------------------- */

static NclStatus pass_binary(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                             NclArray **out, const NclParams *params)
{
    return NclBinaryNext(self, op, a, b, out, params);
}

/* ---- running one call --------------------------------------------------------------- */

static NclStatus do_call(const entry *e, fx *f, NclArray **out)
{
    NclParams pb;
    const NclParams *p = make_params(e->params, f, &pb);
    NclArray *const *a = f->a;
    const NclArray *i0 = e->in[0] >= 0 ? a[e->in[0]] : NULL;
    const NclArray *i1 = e->in[1] >= 0 ? a[e->in[1]] : NULL;
    const NclArray *i2 = e->in[2] >= 0 ? a[e->in[2]] : NULL;
    switch (e->k) {
    case K_CONVERT: return NclConvert((NclConvertOp)e->op, i0, out, p);
    case K_COMPARE: return NclCompare((NclCompareOp)e->op, i0, i1, out, p);
    case K_ISUNARY: return NclIsUnary((NclIsUnaryOp)e->op, i0, out, p);
    case K_UNARY: return NclUnary((NclUnaryOp)e->op, i0, out, p);
    case K_BINARY: return NclBinary((NclBinaryOp)e->op, i0, i1, out, p);
    case K_TERNARY: return NclTernary((NclTernaryOp)e->op, i0, i1, i2, out, p);
    case K_REDUCE: return NclReduce((NclReduceOp)e->op, i0, out, p);
    case K_SORT: return NclSort((NclSortOp)e->op, i0, out, p);
    case K_MASK: return NclMask((NclMaskOp)e->op, i0, i1, out, p);
    case K_FN: return e->fn(f, out);
    }
    return NCL_ERR_INVALID_ARGUMENT;
}

/* A pointer value *out is set to where a constructor must ignore it. */
static char sentinel_storage;
#define SENTINEL ((NclArray *)(void *)&sentinel_storage)

/* What a result must look like (dtype and shape of an allocated one, to
   make provided outputs from). */
typedef struct shape_of {
    NclDType dtype;
    int ndim;
    int64_t shape[NCL_MAXDIMS];
} shape_of;

/* One run: *out set for the mode, the call made (under the fault handler
   when armed), and the result cloned into test memory (NULL when the call
   failed or makes no array). Returns the status. */
typedef struct run {
    NclStatus status;
    NclArray *init;   /* *out before the call */
    NclArray *out;    /* *out after it */
    NclArray *prov;   /* the provided output made for M_PROV */
    NclArray *result; /* a test-owned copy of the result, or NULL */
    uint64_t prov_hash; /* prov's bytes before the call */
} run;

enum {
    H_DEFAULT, /* the normal handler */
    H_FAULT,   /* the fault handler, armed */
    H_LIBC     /* the fault handler as the data handler, libc malloc armed */
};

static NclMemAccounting *acct;

static void run_call(const entry *e, int mode, const shape_of *rs, fx *f, int handler, run *r)
{
    memset(r, 0, sizeof *r);
    switch (mode) {
    case M_ALLOC: r->init = NULL; break;
    case M_SENT: r->init = SENTINEL; break;
    case M_TARGET: r->init = f->a[e->target]; break;
    case M_PROV:
        r->prov = ncl_test_new(rs->dtype, rs->ndim, rs->shape);
        for (int64_t i = 0, n = NclArraySize(r->prov); i < n; i++) ncl_test_set_d(r->prov, i, 7);
        r->init = r->prov;
        r->prov_hash = ncl_test_hash(r->prov);
        break;
    default: ck_abort_msg("bad mode");
    }
    NclHook hook;
    if (e->flags & F_HOOK) {
        memset(&hook, 0, sizeof hook);
        hook.name = "test_faults pass-through";
        hook.fn.binary = pass_binary;
        NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_BINARY, &hook.list));
    }
    if (e->flags & F_LEDGER) NCL_CHECK_OK(NclLedgerEnable(1));
    const NclMemHandler *prev = NULL;
    if (handler != H_DEFAULT)
        prev = NclDataMem_SetHandler((e->flags & F_ACCT) ? NclMemAccountingHandler(acct)
                                                         : &FH.handler);
    r->out = r->init;
#ifdef NCL_TEST_LIBC_FAULTS
    if (handler == H_LIBC) lc_armed = 1;
#endif
    r->status = do_call(e, f, &r->out);
#ifdef NCL_TEST_LIBC_FAULTS
    lc_disarm();
#endif
    if (handler != H_DEFAULT) NclDataMem_SetHandler(prev);
    if (e->flags & F_LEDGER) NCL_CHECK_OK(NclLedgerEnable(0));
    if (e->flags & F_HOOK) NCL_CHECK_OK(NclApiUnhook(&hook.list));
    if (r->status == NCL_OK && !(e->flags & F_NOARRAY)) {
        ck_assert_msg(r->out != NULL && r->out != SENTINEL, "%s: OK without a result", e->name);
        if (!(e->flags & F_NOVALUES)) r->result = ncl_test_clone(r->out);
        else
            r->result = ncl_test_new(NclArrayDType(r->out), NclArrayNDim(r->out),
                                     NclArrayShape(r->out));
    }
}

/* Releases what the run made (not the fixture). */
static void run_release(int mode, run *r)
{
    if ((mode == M_ALLOC || mode == M_SENT) && r->out != r->init) NclArrayRelease(r->out);
    NclArrayRelease(r->prov);
    NclArrayRelease(r->result);
    memset(r, 0, sizeof *r);
}

static const char *mode_name(int mode)
{
    switch (mode) {
    case M_ALLOC: return "allocated output";
    case M_PROV: return "provided output";
    case M_TARGET: return "given target";
    default: return "constructor";
    }
}

static void check_same(const entry *e, const char *what, const NclArray *got,
                       const NclArray *ref)
{
    char why[256];
    if (e->flags & F_NOVALUES) {
        int same = NclArrayDType(got) == NclArrayDType(ref) &&
                   NclArrayNDim(got) == NclArrayNDim(ref);
        for (int i = 0; same && i < NclArrayNDim(got); i++)
            same = NclArrayShape(got)[i] == NclArrayShape(ref)[i];
        ck_assert_msg(same, "%s: %s: dtype or shape differs from the reference", e->name, what);
        return;
    }
    ck_assert_msg(ncl_test_compare(got, ref, NCL_TEST_SIGNED_ZERO, 0, why, sizeof why),
                  "%s: %s: %s", e->name, what, why);
}

/* The reference result of entry e in mode (the normal handler, a fresh
   fixture), or NULL for calls that make no array. */
static NclArray *reference(const entry *e, int mode, const shape_of *rs)
{
    fx f;
    fx_setup(&f);
    run r;
    run_call(e, mode, rs, &f, H_DEFAULT, &r);
    ck_assert_msg(r.status == NCL_OK, "%s (%s): the reference call failed: %s (%s)", e->name,
                  mode_name(mode), NclStatusString(r.status), NclLastError());
    NclArray *ref = r.result;
    r.result = NULL;
    run_release(mode, &r);
    fx_teardown(&f);
    return ref;
}

/* Injects faults k = 1, 2, ... in one mode, transient then persistent.
   Returns how many allocations the call makes through the handler. */
static long inject(const entry *e, int mode, const shape_of *rs, const NclArray *ref,
                   int target)
{
    long nallocs = -1;
    for (int persistent = 0; persistent <= 1; persistent++) {
        int done = 0;
        for (long k = 1; !done; k++) {
            char what[160];
            snprintf(what, sizeof what, "%s, %s, %s failure of %s %ld", mode_name(mode),
                     persistent ? "persistent" : "transient", e->name,
                     target == H_LIBC ? "malloc" : "allocation", k);
            ck_assert_msg(k <= 256, "%s: still allocating after 256 faults", what);
            fx f;
            fx_setup(&f);
            uint64_t before[A_COUNT], after[A_COUNT];
            fx_hash(&f, before);
            run r;
            long failures = 0, calls = 0;
            if (target == H_FAULT) {
                fh_arm(k, persistent, 0);
                run_call(e, mode, rs, &f, H_FAULT, &r);
                failures = fh_get(&FH.failures);
                calls = fh_get(&FH.calls);
            } else {
                fh_arm(0, 0, 0);
#ifdef NCL_TEST_LIBC_FAULTS
                lc_arm(k, persistent);
                lc_disarm(); /* run_call arms it around the call alone */
                run_call(e, mode, rs, &f, H_LIBC, &r);
                failures = lc_failures;
                calls = lc_calls;
#endif
            }
            if (failures == 0) {
                /* the call ran to its end before allocation k */
                done = 1;
                ck_assert_msg(r.status == NCL_OK, "%s: %s without a fault (%s)", what,
                              NclStatusString(r.status), NclLastError());
                if (nallocs < 0) nallocs = calls;
            }
            if (r.status == NCL_OK) {
                if (r.result != NULL) check_same(e, what, r.result, ref);
            } else {
                ck_assert_msg(r.status == NCL_ERR_NO_MEMORY, "%s: returned %s (%s)", what,
                              NclStatusString(r.status), NclLastError());
                ck_assert_msg(NclLastError()[0] != '\0', "%s: no message", what);
                ck_assert_msg(r.out == r.init, "%s: *out changed", what);
                fx_hash(&f, after);
                for (int i = 0; i < A_COUNT; i++)
                    ck_assert_msg(before[i] == after[i], "%s: fixture array %d written", what, i);
                if (r.prov != NULL)
                    ck_assert_msg(ncl_test_hash(r.prov) == r.prov_hash,
                                  "%s: provided output written", what);
            }
            run_release(mode, &r);
            fx_teardown(&f);
            fh_check_clean(what);
#ifdef NCL_TEST_LIBC_FAULTS
            if (target == H_LIBC) lc_check_clean(what);
#endif
            if (e->flags & F_ACCT) {
                NclMemStats st;
                NclMemAccountingStats(acct, &st);
                ck_assert_msg(st.live_blocks == 0 && st.live_bytes == 0,
                              "%s: the accounting wrapper sees %zu live blocks", what,
                              st.live_blocks);
            }
            if (failures > 0) {
                count_points(1);
                /* the library still works, with the normal handler */
                fx_setup(&f);
                run_call(e, mode, rs, &f, H_DEFAULT, &r);
                ck_assert_msg(r.status == NCL_OK, "%s: the next call failed: %s (%s)", what,
                              NclStatusString(r.status), NclLastError());
                if (ref != NULL) check_same(e, "the next call", r.result, ref);
                run_release(mode, &r);
                fx_teardown(&f);
            }
        }
    }
    return nallocs;
}

START_TEST(t_fault_entry)
{
    const entry *e = &entries[_i];
    fh_arm(0, 0, 0);
    if (e->flags & F_ACCT) NCL_CHECK_OK(NclMemAccountingCreate(&FH.handler, &acct));
    /* the result's dtype and shape, for provided outputs */
    shape_of rs = {NCL_BOOL, 0, {0}};
    if (e->modes & M_PROV) {
        NclArray *r0 = reference(e, M_ALLOC, &rs);
        rs.dtype = NclArrayDType(r0);
        rs.ndim = NclArrayNDim(r0);
        memcpy(rs.shape, NclArrayShape(r0), (size_t)rs.ndim * sizeof(int64_t));
        NclArrayRelease(r0);
    }
    const int modes[] = {M_SENT, M_ALLOC, M_PROV, M_TARGET};
    int first = 1;
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        if (!(e->modes & (unsigned)modes[m])) continue;
        NclArray *ref = reference(e, modes[m], &rs);
        const long n = inject(e, modes[m], &rs, ref, H_FAULT);
#ifdef NCL_TEST_LIBC_FAULTS
        const long nm = inject(e, modes[m], &rs, ref, H_LIBC);
#else
        const long nm = -1;
#endif
        if (first && e->expect == E_SOME)
            ck_assert_msg(n > 0, "%s (%s): never allocated through the handler", e->name,
                          mode_name(modes[m]));
        if (e->expect == E_NONE)
            ck_assert_msg(n == 0, "%s: %ld allocations through the data handler", e->name, n);
        first = 0;
        if (getenv("NCL_TEST_VERBOSE") != NULL)
            printf("  %-52s %-16s %ld allocations, %ld mallocs\n", e->name,
                   mode_name(modes[m]), n, nm);
        NclArrayRelease(ref);
    }
    if (e->flags & F_ACCT) {
        NCL_CHECK_OK(NclMemAccountingDestroy(acct));
        acct = NULL;
    }
}
END_TEST

/* ---- a handler that returns misaligned memory ---------------------------------------- */

/* Every call of the table under a handler whose blocks are offset by 1, 8
   (below the 16 bytes memory.h asks for) and 16 bytes: the first two are
   refused with NCL_ERR_NO_MEMORY and a message that says why, the third
   works; nothing leaks either way. */
START_TEST(t_misaligned_handler)
{
    const entry *e = &entries[_i];
    fh_arm(0, 0, 0);
    if (e->flags & F_ACCT) NCL_CHECK_OK(NclMemAccountingCreate(&FH.handler, &acct));
    shape_of rs = {NCL_BOOL, 0, {0}};
    if (e->modes & M_PROV) {
        NclArray *r0 = reference(e, M_ALLOC, &rs);
        rs.dtype = NclArrayDType(r0);
        rs.ndim = NclArrayNDim(r0);
        memcpy(rs.shape, NclArrayShape(r0), (size_t)rs.ndim * sizeof(int64_t));
        NclArrayRelease(r0);
    }
    const int mode = (e->modes & M_SENT)    ? M_SENT
                     : (e->modes & M_ALLOC) ? M_ALLOC
                                            : M_TARGET;
    NclArray *ref = reference(e, mode, &rs);
    const size_t offsets[] = {1, 8, 16};
    for (size_t m = 0; m < sizeof offsets / sizeof offsets[0]; m++) {
        char what[160];
        snprintf(what, sizeof what, "%s under a handler misaligned by %zu", e->name, offsets[m]);
        fx f;
        fx_setup(&f);
        uint64_t before[A_COUNT], after[A_COUNT];
        fx_hash(&f, before);
        fh_arm(0, 0, offsets[m]);
        run r;
        run_call(e, mode, &rs, &f, H_FAULT, &r);
        const long calls = fh_get(&FH.calls);
        if (calls == 0 || offsets[m] >= 16) {
            ck_assert_msg(r.status == NCL_OK, "%s: %s (%s)", what, NclStatusString(r.status),
                          NclLastError());
            if (ref != NULL) check_same(e, what, r.result, ref);
        } else {
            ck_assert_msg(r.status == NCL_ERR_NO_MEMORY, "%s: returned %s (%s)", what,
                          NclStatusString(r.status), NclLastError());
            ck_assert_msg(strstr(NclLastError(), "aligned") != NULL,
                          "%s: the message \"%s\" does not say why", what, NclLastError());
            ck_assert_msg(r.out == r.init, "%s: *out changed", what);
            fx_hash(&f, after);
            for (int i = 0; i < A_COUNT; i++)
                ck_assert_msg(before[i] == after[i], "%s: fixture array %d written", what, i);
            if (r.prov != NULL)
                ck_assert_msg(ncl_test_hash(r.prov) == r.prov_hash,
                              "%s: provided output written", what);
            count_points(1);
        }
        run_release(mode, &r);
        fx_teardown(&f);
        fh_check_clean(what);
    }
    NclArrayRelease(ref);
    if (e->flags & F_ACCT) {
        NCL_CHECK_OK(NclMemAccountingDestroy(acct));
        acct = NULL;
    }
}
END_TEST

/* ---- the handler's own bookkeeping ---------------------------------------------------- */

/* free receives the size that was allocated, for arrays of every size
   (zero-size ones included) and for views that outlive their base, and an
   array is freed by the handler that made it whatever the current one is. */
START_TEST(t_free_sizes)
{
    fh_arm(0, 0, 0);
    const NclMemHandler *prev = NclDataMem_SetHandler(&FH.handler);
    const int64_t extents[] = {0, 1, 3, 17, 1000, 100000};
    NclArray *keep[6 * 3];
    int nkeep = 0;
    for (size_t i = 0; i < sizeof extents / sizeof extents[0]; i++) {
        const NclDType dts[] = {NCL_BOOL, NCL_INT16, NCL_FLOAT64};
        for (size_t d = 0; d < 3; d++) {
            NclArray *a = NULL;
            NCL_CHECK_OK(NclZeros(dts[d], 2, NCL_DIMS(extents[i], 2), &a));
            ck_assert_str_eq(NclArrayHandlerName(a), "ncl_test_faults");
            /* keep a view alive past its base */
            NclArray *v = NULL;
            NCL_CHECK_OK(NclArrayTranspose(a, NULL, &v));
            NclArrayRelease(a);
            keep[nkeep++] = v;
        }
    }
    ck_assert_int_eq(fh_get(&FH.allocs), nkeep);
    /* a different current handler at release time changes nothing */
    NclDataMem_SetHandler(NULL);
    for (int i = 0; i < nkeep; i++) NclArrayRelease(keep[i]);
    fh_check_clean("zeros of every size, freed under the default handler");
    ck_assert_int_eq(fh_get(&FH.frees), nkeep);
    NclDataMem_SetHandler(prev);
}
END_TEST

/* A handler this version cannot drive (wrong version, no malloc or free)
   is refused before anything is allocated; one without calloc is fine
   (malloc and a memset stand in, even over memory that is not zero). */
START_TEST(t_unusable_handler)
{
    fh_arm(0, 0, 0);
    NclMemHandler h = FH.handler;
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), 1, 2, 3);
    for (int k = 0; k < 3; k++) {
        h = FH.handler;
        if (k == 0) h.version = 2;
        if (k == 1) h.allocator.malloc = NULL;
        if (k == 2) h.allocator.free = NULL;
        const NclMemHandler *prev = NclDataMem_SetHandler(&h);
        NclArray *out = NULL;
        const NclStatus s1 = NclBinary(NCL_ADD, a, a, &out, NULL);
        NclArray *z = SENTINEL;
        const NclStatus s2 = NclZeros(NCL_INT8, 1, NCL_DIMS(4), &z);
        NclDataMem_SetHandler(prev);
        ck_assert_msg(s1 == NCL_ERR_INVALID_ARGUMENT && s2 == NCL_ERR_INVALID_ARGUMENT,
                      "unusable handler %d: %s, %s (%s)", k, NclStatusString(s1),
                      NclStatusString(s2), NclLastError());
        ck_assert_ptr_null(out);
        ck_assert_ptr_eq(z, SENTINEL);
        ck_assert_msg(strstr(NclLastError(), "ncl_test_faults") != NULL,
                      "the message \"%s\" does not name the handler", NclLastError());
        ck_assert_int_eq(fh_get(&FH.calls), 0);
    }
    h = FH.handler;
    h.allocator.calloc = NULL;
    const NclMemHandler *prev = NclDataMem_SetHandler(&h);
    NclArray *z = NULL;
    NCL_CHECK_OK(NclZeros(NCL_INT32, 2, NCL_DIMS(7, 9), &z));
    NclDataMem_SetHandler(prev);
    for (int64_t i = 0; i < 63; i++) ck_assert_int_eq(ncl_test_get_i(z, i), 0);
    NclArrayRelease(z);
    NclArrayRelease(a);
    fh_check_clean("zeros without calloc");
}
END_TEST

/* The table names every subsystem that can allocate: a guard against a new
   subsystem slipping past this suite. */
START_TEST(t_table_covers_subsystems)
{
    int seen[K_FN + 1] = {0};
    for (int i = 0; i < NENTRIES; i++) seen[entries[i].k]++;
    for (int k = 0; k <= K_FN; k++) ck_assert_msg(seen[k] > 0, "no entry of kind %d", k);
    for (int op = 0; op < NCL_REDUCE_NOPS; op++) {
        int found = 0;
        for (int i = 0; i < NENTRIES; i++)
            found |= entries[i].k == K_REDUCE && entries[i].op == op;
        ck_assert_msg(found, "Reduce op %d has no entry", op);
    }
    for (int op = 0; op < NCL_SORT_NOPS; op++) {
        /* the unique ops of several outputs go through NclSortN: the
           fn_unique_* entries */
        if (NclOpOutputs(NCL_SUBSYSTEM_SORT, op) > 1) continue;
        int found = 0;
        for (int i = 0; i < NENTRIES; i++) found |= entries[i].k == K_SORT && entries[i].op == op;
        ck_assert_msg(found, "Sort op %d has no entry", op);
    }
    for (int op = 0; op < NCL_MASK_NOPS; op++) {
        int found = 0;
        for (int i = 0; i < NENTRIES; i++) found |= entries[i].k == K_MASK && entries[i].op == op;
        ck_assert_msg(found, "Mask op %d has no entry", op);
    }
    for (int op = 0; op < NCL_TERNARY_NOPS; op++) {
        int found = 0;
        for (int i = 0; i < NENTRIES; i++)
            found |= entries[i].k == K_TERNARY && entries[i].op == op;
        ck_assert_msg(found, "Ternary op %d has no entry", op);
    }
}
END_TEST

static Suite *faults_suite(void)
{
    Suite *s = suite_create("faults");
    TCase *tc = ncl_test_tcase(s, "injection");
    tcase_add_test(tc, t_table_covers_subsystems);
    tcase_add_test(tc, t_free_sizes);
    tcase_add_test(tc, t_unusable_handler);
    tcase_add_loop_test(tc, t_fault_entry, 0, NENTRIES);
    tc = ncl_test_tcase(s, "misaligned");
    tcase_add_loop_test(tc, t_misaligned_handler, 0, NENTRIES);
    return s;
}

int main(void)
{
    /* shared with the forked processes Check runs each test in */
    void *shm = mmap(NULL, sizeof(atomic_long), PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shm != MAP_FAILED) {
        fault_points = (atomic_long *)shm;
        atomic_init(fault_points, 0);
    }
    Suite *(*const makers[])(void) = {faults_suite, NULL};
    const int rc = ncl_test_run(makers);
    if (fault_points != NULL) {
        printf("test_faults: %ld fault points injected over %d calls\n",
               (long)atomic_load(fault_points), NENTRIES);
        munmap(shm, sizeof(atomic_long));
    }
    return rc;
}
