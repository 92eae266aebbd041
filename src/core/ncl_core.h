/*
 * ncl_core.h: what every part of the library shares: compiler helpers, the
 * per-thread state, error reporting, the names of subsystems, ops and
 * dtypes, overflow-checked arithmetic and the FP status bracket.
 *
 * The folders of src/ are layers (docs/DESIGN.md, "Where things live"):
 * core/ includes nothing else of the library but the public headers, and
 * every other folder may include it.
 */
#ifndef NCL_SRC_CORE_H
#define NCL_SRC_CORE_H

#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
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

/* ---- the array tag (error.c) ---------------------------------------------- */

/* Every live NclArray begins with this word ("NCLARRAY" in ASCII; struct
   NclArray in array/ncl_array.h); it is overwritten with NCL_ARRAY_DEAD
   just before the struct is freed. It is defined here, below array/, so
   that the hook chains' entry points (hooks/) can check the arrays they
   are given without the struct. */
#define NCL_ARRAY_MAGIC UINT64_C(0x4e434c4152524159)
#define NCL_ARRAY_DEAD UINT64_C(0x6465616461727279)
/* The tag of a live external array (NclArrayFromExt: "NCLEXTRN"): the same
   struct with no strides and no data, whose elements an extension owns.
   A distinct tag, so that the layers below array/ tell it apart too. */
#define NCL_ARRAY_EXT_MAGIC UINT64_C(0x4e434c455854524e)

/* The first word of a (at least 8 readable bytes; any alignment). */
NCL_INLINE uint64_t ncl_array_tag(const NclArray *a)
{
    uint64_t w;
    memcpy(&w, (const void *)a, sizeof w);
    return w;
}
/* Whether a passes ncl_array_check: NULL or a live array whose elements
   are here (not an external one). */
NCL_INLINE int ncl_array_tag_ok(const NclArray *a)
{
    return a == NULL || ncl_array_tag(a) == NCL_ARRAY_MAGIC;
}
/* Whether a is an external array (a not NULL). */
NCL_INLINE int ncl_array_is_ext(const NclArray *a)
{
    return ncl_array_tag(a) == NCL_ARRAY_EXT_MAGIC;
}
/* Whether a passes ncl_array_tag_check: NULL, or a live array of either
   kind. */
NCL_INLINE int ncl_array_tag_any_ok(const NclArray *a)
{
    if (a == NULL) return 1;
    const uint64_t w = ncl_array_tag(a);
    return w == NCL_ARRAY_MAGIC || w == NCL_ARRAY_EXT_MAGIC;
}
/* Documented with their declarations in array/ncl_array.h; declared here
   too for hooks/ and api/. */
NclStatus ncl_array_check(const char *who, const char *what, const NclArray *a);
NclStatus ncl_array_tag_check(const char *who, const char *what, const NclArray *a);
NclStatus ncl_array_local_check(const char *who, const char *what, const NclArray *a);

/* ---- names (dtype.c) ------------------------------------------------------ */

const char *ncl_subsystem_name(NclSubsystem s);
/* The op's name ("add"); "?" when op is out of range for s. */
const char *ncl_op_name(NclSubsystem s, int op);
int ncl_op_count(NclSubsystem s);
/* The number of outputs of an op (NclOpOutputs): 2 for the two-output
   ops and the unique ops that give two arrays, 4 for unique_all, else 1,
   also for an op out of range (which callers refuse apart). */
NCL_INLINE int ncl_op_nout(NclSubsystem s, int op)
{
    if (s == NCL_SUBSYSTEM_SORT && op >= NCL_UNIQUE_VALUES && op <= NCL_UNIQUE_ALL)
        return op == NCL_UNIQUE_ALL ? 4 : op == NCL_UNIQUE_VALUES ? 1 : 2;
    return (s == NCL_SUBSYSTEM_UNARY && (op == NCL_FREXP || op == NCL_MODF)) ||
                   (s == NCL_SUBSYSTEM_BINARY && op == NCL_DIVMOD)
               ? 2
               : 1;
}
/* At most this many outputs has any op (unique_all): the slots the entry
   points save and restore. */
#define NCL_MAX_NOUT 4
/* At most this many outputs has an elementwise op (frexp, modf, divmod):
   what the elementwise planner's arrays hold (exec/plan.h). */
#define NCL_EW_MAX_NOUT 2
/* RNG: how many parameter arrays an NclRngOp's kernels take (0, 1 or 2;
   PERMUTATION's array is the default's to copy, its kernel takes none),
   and a bit generator's NumPy name ("?" outside NclBitGen). */
int ncl_rng_op_nparams(int op);
const char *ncl_bitgen_name(int gen);
/* The public function of a subsystem ("NclBinary"), for messages. */
const char *ncl_sub_fn_name(NclSubsystem s);
NCL_INLINE int ncl_dtype_valid(NclDType t) { return (unsigned)t < (unsigned)NCL_NTYPES; }
extern const uint8_t ncl_dtype_size[NCL_NTYPES];
/* 'b', 'i', 'u', 'f' */
extern const char ncl_dtype_kind[NCL_NTYPES];
/* The element of bool or integer dtype t at p (unaligned), as int64: bool
   as 0 or 1, uint64 as its bits. */
int64_t ncl_load_int64(NclDType t, const void *p);

/* ---- overflow-checked arithmetic ------------------------------------------ */

/* Overflow-checked helpers: return 0 on success, 1 on overflow. */
NCL_INLINE int ncl_mul_overflow(int64_t a, int64_t b, int64_t *r) { return __builtin_mul_overflow(a, b, r); }
NCL_INLINE int ncl_add_overflow(int64_t a, int64_t b, int64_t *r) { return __builtin_add_overflow(a, b, r); }

/* ---- the process's end (exit_marker.c) ------------------------------------ */

/* Notes that the library is in use: registers the exit marker, once. The
   kernel registry calls it when it is built. */
void ncl_unload_track(void);
/* Whether the process is exiting (the marker ran) rather than the library
   being unloaded by dlclose: what the destructor (api/unload.c) must know. */
int ncl_process_exiting(void);

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
   RAISE mode, else NCL_OK. */
NclStatus ncl_fpe_raise_status(int flags, NclSubsystem sub, int op);
/* What the end of the current top-level call will make of the flags it has
   raised so far, decided early: NCL_ERR_FLOATING_POINT with a message when
   the caller runs as the top-level call itself (depth 1) and a raised
   category is in RAISE mode, else NCL_OK. Every default implementation that
   allocates its result asks this before storing it, and releases it on an
   error, so that a raising call leaves *out untouched and loses nothing
   (ncl/fpe.h), and a hook in front of it sees the failure; inside a nested
   call the result goes to the caller, whose own top-level call decides.
   What any other node stored (a hook's own result, or a flag raised after
   the default returned) the bracket of the entry point releases
   (call_leave_out, hooks.c). */
NCL_INLINE NclStatus ncl_fpe_raise_early(NclSubsystem sub, int op)
{
    const int flags = ncl_tls.fpe_flags;
    if (NCL_LIKELY(flags == 0) || ncl_tls.depth != 1) return NCL_OK;
    return ncl_fpe_raise_status(flags, sub, op);
}

#endif /* NCL_SRC_CORE_H */
