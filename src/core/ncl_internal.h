/*
 * ncl_internal.h: what the framework files in src/ share and nothing else
 * sees: the array and buffer structs, per-thread state, error reporting,
 * overflow-checked shape arithmetic, memory, the kernel registry and the
 * bracket every public subsystem call runs inside.
 *
 * Data flow of one call (NclBinary, say):
 *   public entry (ncl_call_enter) -> level-1 chain (hooks.c) -> default
 *   implementation (ops_*.c): validate, resolve loop dtypes (typeres.c) ->
 *   plan (plan.c: broadcast, output, casts, overlap copies, where mask) ->
 *   execute the plan over element ranges (chunks a thread pool can hand out),
 *   each range running the first node of a level-2 kernel chain
 *   (kernel_registry.c) -> ncl_call_leave (FP flags, error mode).
 */
#ifndef NCL_INTERNAL_H
#define NCL_INTERNAL_H

#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include "ncl.h"

#if defined(__GNUC__) || defined(__clang__)
#  define NCL_LIKELY(x) __builtin_expect(!!(x), 1)
#  define NCL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define NCL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#  define NCL_INLINE static inline __attribute__((always_inline))
#  define NCL_NOINLINE __attribute__((noinline))
#else
#  define NCL_LIKELY(x) (x)
#  define NCL_UNLIKELY(x) (x)
#  define NCL_PRINTF(f, a)
#  define NCL_INLINE static inline
#  define NCL_NOINLINE
#endif

/* Alignment every data block NCLib allocates has, and that a handler must
   give at least NCL_MIN_HANDLER_ALIGN of. */
#define NCL_DATA_ALIGN 64
#define NCL_MIN_HANDLER_ALIGN 16

/* ---- per-thread state ----------------------------------------------------- */

/* What the default implementation ran, for the ledger: set by the executor. */
typedef struct ncl_call_record {
    int64_t elements;
    int64_t bytes;
    const char *kernel;  /* name of the kernel variant that ran */
    int threads;
} ncl_call_record;

/* The state every call touches, kept small so that it can live in the
   static TLS block (initial-exec: one register-relative load, where a
   shared library's default TLS model costs a __tls_get_addr call per
   function that touches it). */
typedef struct ncl_thread_state {
    int depth;                   /* public calls this thread is inside */
    unsigned char split;         /* the call was entered through the threader (pool.c) */
    unsigned char in_pool;       /* running a share of a split call: nested calls stay
                                    on this thread */
    int fpe_flags;               /* flags raised by the current top-level call */
    int fpe_last;                /* flags of the last finished top-level call */
    unsigned char errmode[4];    /* NclErrMode per category bit 0..3 */
    NclErrCallback errcall;
    void *errcall_user;
    NclAccuracy accuracy;
    const NclMemHandler *handler; /* NULL = default */
    ncl_call_record last_call;   /* what the last default implementation ran */
} ncl_thread_state;

#if defined(__GNUC__) || defined(__clang__)
#  define NCL_TLS_FAST __attribute__((tls_model("initial-exec")))
#else
#  define NCL_TLS_FAST
#endif
extern _Thread_local ncl_thread_state ncl_tls NCL_TLS_FAST;
#define ncl_last_call (ncl_tls.last_call)

/* The message of this thread's last failure: only touched on failure. */
#define NCL_ERROR_CAP 512
extern _Thread_local char ncl_last_error[NCL_ERROR_CAP];

/* ---- errors (error.c) ----------------------------------------------------- */

/* Formats this thread's message and returns s, so a failure is one line:
   return ncl_error(NCL_ERR_SHAPE, "NclBinary(%s): ...", ...); */
NclStatus ncl_error(NclStatus s, const char *fmt, ...) NCL_PRINTF(2, 3);
/* Writes "(3,4)" / "()" / "(5,)" into buf (at least NCL_SHAPE_STR bytes). */
#define NCL_SHAPE_STR 160
const char *ncl_shape_str(char *buf, int ndim, const int64_t *shape);

/* ---- names (dtype.c) ------------------------------------------------------ */

const char *ncl_subsystem_name(NclSubsystem s);
/* The op's name ("add"); "?" when op is out of range for s. */
const char *ncl_op_name(NclSubsystem s, int op);
int ncl_op_count(NclSubsystem s);
/* The public function of a subsystem ("NclBinary"), for messages. */
const char *ncl_sub_fn_name(NclSubsystem s);
NCL_INLINE int ncl_dtype_valid(NclDType t) { return (unsigned)t < (unsigned)NCL_NTYPES; }
extern const uint8_t ncl_dtype_size[NCL_NTYPES];
/* 'b', 'i', 'u', 'f' */
extern const char ncl_dtype_kind[NCL_NTYPES];

/* ---- shape arithmetic (shape.c) ------------------------------------------- */

/* Validates ndim and shape and computes the element count, refusing
   overflow of int64. NCL_ERR_SHAPE with a message naming who. */
NclStatus ncl_shape_check(const char *who, int ndim, const int64_t *shape, int64_t *size);
/* Overflow-checked helpers: return 0 on success, 1 on overflow. */
NCL_INLINE int ncl_mul_overflow(int64_t a, int64_t b, int64_t *r) { return __builtin_mul_overflow(a, b, r); }
NCL_INLINE int ncl_add_overflow(int64_t a, int64_t b, int64_t *r) { return __builtin_add_overflow(a, b, r); }

/* ---- memory (memory.c) ---------------------------------------------------- */

/* One block of array data and who must free it. Shared by an array and all
   its views; freed when the last reference goes. */
typedef struct ncl_buffer {
    atomic_long refs;
    void *base;                     /* what the handler returned / what was wrapped */
    size_t nbytes;                  /* the size passed to the handler (>= 1) */
    const NclMemHandler *handler;   /* NULL for wrapped foreign memory */
    NclDeleter deleter;             /* foreign memory: called once at the end */
    void *deleter_ctx;
} ncl_buffer;

/* Allocates nbytes (0 is allowed: one byte is taken) with the calling
   thread's current handler, zeroed when zero is set. The result is
   NCL_DATA_ALIGN aligned for the built-in handlers and at least
   NCL_MIN_HANDLER_ALIGN for any accepted one. NCL_ERR_NO_MEMORY (message
   naming who) on failure or misalignment; nothing leaks. */
NclStatus ncl_buffer_alloc(const char *who, size_t nbytes, int zero, ncl_buffer **out);
/* Wraps foreign memory (never fails but for the struct itself). */
NclStatus ncl_buffer_wrap(const char *who, void *data, NclDeleter deleter, void *ctx,
                          ncl_buffer **out);
void ncl_buffer_retain(ncl_buffer *b);
void ncl_buffer_release(ncl_buffer *b);
/* Scratch memory for a call's temporaries (overlap copies, workspaces):
   from the current handler, so allocation failures are injectable. */
NclStatus ncl_scratch_alloc(const char *who, size_t nbytes, ncl_buffer **out);

/* ---- arrays (array.c) ----------------------------------------------------- */

struct NclArray {
    atomic_long refs;
    NclDType dtype;
    int ndim;
    uint32_t flags;
    NclMemKind kind;
    int device_id;
    int64_t size;           /* element count */
    size_t itemsize;
    char *data;             /* first element */
    ncl_buffer *buf;        /* owner of the memory; NULL when the caller keeps it */
    int64_t *shape;         /* -> dims[0 .. ndim) */
    int64_t *strides;       /* -> dims[ndim .. 2 ndim) */
    int64_t dims[];
};

/* A new array owning fresh memory from the current handler: C or F order,
   zeroed when zero is set. shape must already be valid (ncl_shape_check). */
NclStatus ncl_array_alloc(const char *who, NclDType dtype, int ndim, const int64_t *shape,
                          NclOrder order, int zero, NclArray **out);
/* A new array struct over existing memory (a view): shares buf (retained),
   recomputes size and the contiguity/alignment flags; flags carries
   WRITEABLE (and OWNDATA is never set on a view). */
NclStatus ncl_array_view(const char *who, const NclArray *base, int ndim, const int64_t *shape,
                         const int64_t *strides, char *data, uint32_t flags, NclArray **out);
/* Recomputes NCL_ARRAY_C_CONTIGUOUS / F_CONTIGUOUS / ALIGNED of a. */
void ncl_array_update_flags(NclArray *a);
/* Byte range [lo, hi) that the elements of a touch (lo == hi when empty). */
void ncl_array_extent(const NclArray *a, const char **lo, const char **hi);
/* Whether the byte ranges of a and b (ncl_array_extent) intersect; never
   for an empty array. A cheap, sufficient test that they share no memory. */
int ncl_array_ranges_overlap(const NclArray *a, const NclArray *b);
/* Sufficient test that no two elements of a share memory (ordered by
   stride, each dimension steps past what the inner ones span). An output
   that fails it would make results depend on the order of writes; a few
   exotic interleaved layouts that do not overlap are refused too. */
int ncl_array_has_internal_overlap(const NclArray *a);
/* Copies a's elements in C order into dst (room for a->size elements),
   whole rows at a time where the last axis is contiguous. */
void ncl_array_copy_c_order(const NclArray *a, char *dst);

/* ---- kernel registry (kernel_registry.c) ----------------------------------- */

/* One level-2 chain: a slot of the registry's hash table. */
typedef struct ncl_kchain {
    uint64_t key;              /* 0: empty slot */
    NclListHead head;
    const char *builtin_name;  /* the built-in kernel a call runs when no hook takes it */
    NclKernelNode *builtin;    /* the first built-in node (user hooks go in front of it) */
} ncl_kchain;
/* The level-2 chain of (s, op, sig) or NULL when NCLib has no kernel for it.
   nargs = number of dtypes in sig. Lock-free; builds the registry on first use. */
ncl_kchain *ncl_kernel_chain(NclSubsystem s, int op, const NclDType *sig, int nargs);
/* The first node of a chain; call only between ncl_call_enter and leave.
   Acquire pairs with the release store that linked a hooked node. */
NCL_INLINE NclKernelNode *ncl_kernel_first(ncl_kchain *c)
{
    NclListHead *n = __atomic_load_n(&c->head.next, __ATOMIC_ACQUIRE);
    return NCL_CONTAINER_OF(n, NclKernelNode, list);
}
/* Name of the kernel variant at the tail (the built-in), for the ledger. */
const char *ncl_kernel_builtin_name(ncl_kchain *c);
/* Whether a call of c would run its built-in kernel: no user kernel is
   hooked in front of it. A hook linked or unlinked just after the check
   leaves the call as one that saw the chain before the change. */
NCL_INLINE int ncl_kernel_unhooked(ncl_kchain *c)
{
    return __atomic_load_n(&c->head.next, __ATOMIC_ACQUIRE) == &c->builtin->list;
}

/* ---- the bracket around every public subsystem call (hooks.c) ------------- */

/* Enters an RCU read-side section and counts call depth; at depth 1 clears
   this thread's FP flag accumulator. */
void ncl_call_enter(void);
/* Leaves it; at depth 0 applies the FP error modes to the flags the call
   raised (fpe.c) and may turn NCL_OK into NCL_ERR_FLOATING_POINT. who names
   the call for messages and callbacks. */
NclStatus ncl_call_leave(NclStatus s, NclSubsystem sub, int op);
/* The first node of subsystem s's level-1 chain (inside enter/leave). */
NclHook *ncl_chain_first(NclSubsystem s);

/* ---- unloading (unload.c) ------------------------------------------------- */

/* Notes that the library is in use (registers the exit marker, once); the
   kernel registry calls it when it is built. */
void ncl_unload_track(void);
/* Run by the library's one destructor, in this order. The first two stop
   what would run library code later (at exit too); the others free what
   only a dlclose would lose. None may be called from inside a call. */
void ncl_hooks_unload(void);          /* waits for queued deferred reclaims (hooks.c) */
void ncl_pool_unload(void);           /* stops and joins the workers (pool.c) */
void ncl_kernels_unload(void);        /* frees the kernel registry (kernel_registry.c) */
void ncl_pool_topology_unload(void);  /* frees the hwloc topology (pool.c) */
void ncl_mem_default_unload(void);    /* frees the default handler's caches (mem_default.c) */

/* ---- floating-point flags (fpe.c) ----------------------------------------- */

/* Hardware FP status around kernel execution: save the caller's flags and
   clear those a call reports; then collect what was raised (as NCL_FPE_*
   bits) and put the caller's flags back. ncl_fpe_peek reads the status
   without changing it, so that a caller can take the (slow) read early,
   where it overlaps other work, and begin from it later with
   ncl_fpe_begin_at, as long as no float arithmetic runs in between.

   On x86-64 the status is MXCSR (all float math here is SSE). Only the
   reported flags (invalid, divide, overflow, underflow) are cleared at the
   start: inexact and denormal-operand are never reported, so a caller's
   inexact flag (set by almost any float code) stays where it is, and a call
   that changes no flag reads MXCSR twice and never writes it. */
typedef struct ncl_fpe_saved { unsigned int bits; } ncl_fpe_saved;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#  define NCL_FPE_MXCSR 1
/* MXCSR exception flags: IE 0x01, DE 0x02, ZE 0x04, OE 0x08, UE 0x10, PE 0x20;
   the reported ones are IE, ZE, OE and UE. */
#  define NCL_MXCSR_FLAGS 0x3Fu
#  define NCL_MXCSR_REPORTED 0x1Du
/* What was raised since the begin, as NCL_FPE_* bits, and the caller's
   flags put back (fpe.c). */
int ncl_fpe_end_slow(const ncl_fpe_saved *saved, unsigned int csr);
NCL_INLINE unsigned int ncl_fpe_peek(void) { return __builtin_ia32_stmxcsr(); }
NCL_INLINE void ncl_fpe_begin_at(ncl_fpe_saved *saved, unsigned int csr)
{
    saved->bits = csr & NCL_MXCSR_FLAGS;
    if (NCL_UNLIKELY(csr & NCL_MXCSR_REPORTED)) __builtin_ia32_ldmxcsr(csr & ~NCL_MXCSR_REPORTED);
}
NCL_INLINE void ncl_fpe_begin(ncl_fpe_saved *saved) { ncl_fpe_begin_at(saved, ncl_fpe_peek()); }
NCL_INLINE int ncl_fpe_end(const ncl_fpe_saved *saved)
{
    const unsigned int csr = __builtin_ia32_stmxcsr();
    if (NCL_LIKELY((csr & NCL_MXCSR_FLAGS) == saved->bits && !(saved->bits & NCL_MXCSR_REPORTED)))
        return 0;
    return ncl_fpe_end_slow(saved, csr);
}
#else
#  define NCL_FPE_MXCSR 0
void ncl_fpe_begin(ncl_fpe_saved *saved);
int ncl_fpe_end(const ncl_fpe_saved *saved);
/* <fenv.h> has no cheap read to take early: the begin does the work. */
NCL_INLINE unsigned int ncl_fpe_peek(void) { return 0; }
NCL_INLINE void ncl_fpe_begin_at(ncl_fpe_saved *saved, unsigned int csr)
{
    (void)csr;
    ncl_fpe_begin(saved);
}
#endif
/* Applies this thread's modes to flags raised by a finished top-level call:
   CALL -> the callback, once per category; RAISE -> NCL_ERR_FLOATING_POINT
   with a message (when s is NCL_OK; another failure is kept). */
NclStatus ncl_fpe_apply(NclStatus s, int flags, NclSubsystem sub, int op);
/* NCL_ERR_FLOATING_POINT with a message when a category in flags is in
   RAISE mode, else NCL_OK. A default implementation checks this itself
   before returning an allocated result, so a raising call returns none. */
NclStatus ncl_fpe_raise_status(int flags, NclSubsystem sub, int op);

/* ---- call parameters (ops_elementwise.c) ----------------------------------- */

/* The caller's params (NULL = defaults), completed with defaults for the
   fields an older caller's struct lacks, with dtype and casting validated;
   messages name the call as "<NclXxx>(<op>)". */
NclStatus ncl_params_read(NclSubsystem sub, int op, const NclParams *params, NclParams *p);

/* ---- the default implementations: the tail of each level-1 chain ---------- */

NclStatus ncl_default_info(NclHook *self, NclInfoWriter *w);                          /* info.c */
NclStatus ncl_default_create(NclHook *self, NclCreateOp op, const NclCreateParams *p,
                             NclArray **out);                                         /* create.c */
NclStatus ncl_default_convert(NclHook *self, NclConvertOp op, const NclArray *a,
                              NclArray **out, const NclParams *params);              /* ops_elementwise.c */
NclStatus ncl_default_compare(NclHook *self, NclCompareOp op, const NclArray *a,
                              const NclArray *b, NclArray **out, const NclParams *params);
NclStatus ncl_default_isunary(NclHook *self, NclIsUnaryOp op, const NclArray *a,
                              NclArray **out, const NclParams *params);
NclStatus ncl_default_unary(NclHook *self, NclUnaryOp op, const NclArray *a,
                            NclArray **out, const NclParams *params);
NclStatus ncl_default_binary(NclHook *self, NclBinaryOp op, const NclArray *a,
                             const NclArray *b, NclArray **out, const NclParams *params);

NclStatus ncl_default_ternary(NclHook *self, NclTernaryOp op, const NclArray *a,
                              const NclArray *b, const NclArray *c, NclArray **out,
                              const NclParams *params);                              /* ops_elementwise.c */
NclStatus ncl_default_reduce(NclHook *self, NclReduceOp op, const NclArray *a, NclArray **out,
                             const NclParams *params);                               /* reduce.c */
NclStatus ncl_default_sort(NclHook *self, NclSortOp op, const NclArray *a, NclArray **out,
                           const NclParams *params);                                 /* sort.c */
NclStatus ncl_default_mask(NclHook *self, NclMaskOp op, const NclArray *a, const NclArray *b,
                           NclArray **out, const NclParams *params);                 /* mask.c */

/* Copies src, broadcast to dst's shape, into dst with dtype conversion
   under casting: the machinery of COPYTO, for framework users (Create's COPY,
   Reshape's copy). Runs the Convert kernels; planned before any write. */
NclStatus ncl_assign(const char *who, NclArray *dst, const NclArray *src, NclCasting casting);

#endif /* NCL_INTERNAL_H */
