/*
 * ncl_kernel.h: what every kernel file shares: the registration entry that
 * puts a built-in kernel at the tail of its level-2 chain, unaligned-safe
 * element access, and one strided loop per arity.
 *
 * Kernels include only kernels/ headers and the public headers; they never
 * call into src/. A kernel trusts its inputs (the framework validated them).
 * Operands may be misaligned and have any byte stride (negative, zero); an
 * output either does not overlap any input or is exactly the same elements
 * (same pointer, same step) as one of them.
 */
#ifndef NCL_KERNEL_H
#define NCL_KERNEL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "ncl.h"

#if defined(__GNUC__) || defined(__clang__)
#  define NCL_KINLINE static inline __attribute__((always_inline))
#else
#  define NCL_KINLINE static inline
#endif

/* One built-in kernel: at load, the registry appends a node running fn to
   the chain of (subsystem, op, sig[0 .. nargs)). */
typedef struct ncl_kernel_entry {
    uint8_t subsystem;   /* NclSubsystem */
    uint8_t nargs;       /* dtypes in sig: inputs then outputs */
    uint16_t op;
    int8_t sig[4];       /* NclDType values */
    NclKernelFn fn;
    const char *name;    /* e.g. "ncl_k_add_f64" */
} ncl_kernel_entry;

/* Every table of built-in kernels; each kernels/ file that registers
   kernels defines ncl_k_<name>_table and ncl_k_<name>_count. */
#define NCL_KERNEL_TABLE_LIST(X) X(binary) X(unary) X(isunary) X(compare) X(convert) X(ternary) X(mask) X(sort) X(reduce)

/* The same sources are compiled once per instruction-set variant
   (cmake/NclIsa.cmake); a variant's build defines NCL_ISA_SUFFIX (e.g. _avx2)
   and its tables take that suffix, so every variant can live in one library.
   The registry (src/kernel_registry.c) names them with NCL_KTABLE_ISA.
   Kernel code picks its SIMD with the compiler's macros (__AVX2__, ...). Keep
   this list equal to NCL_KERNEL_TABLE_LIST: a table missing here collides
   at link time. */
#define NCL_KCAT_(a, b) a##b
#define NCL_KCAT(a, b) NCL_KCAT_(a, b)
#define NCL_KTABLE_ISA(name, suffix) NCL_KCAT(ncl_k_##name##_table, suffix)
#define NCL_KCOUNT_ISA(name, suffix) NCL_KCAT(ncl_k_##name##_count, suffix)
#ifdef NCL_ISA_SUFFIX
#  define NCL_ISA_RENAME(x) NCL_ISA_RENAME_(x, NCL_ISA_SUFFIX)
#  define NCL_ISA_RENAME_(x, s) NCL_ISA_RENAME__(x, s)
#  define NCL_ISA_RENAME__(x, s) x##s
#  define ncl_k_binary_table    NCL_ISA_RENAME(ncl_k_binary_table)
#  define ncl_k_binary_count    NCL_ISA_RENAME(ncl_k_binary_count)
#  define ncl_k_unary_table     NCL_ISA_RENAME(ncl_k_unary_table)
#  define ncl_k_unary_count     NCL_ISA_RENAME(ncl_k_unary_count)
#  define ncl_k_isunary_table   NCL_ISA_RENAME(ncl_k_isunary_table)
#  define ncl_k_isunary_count   NCL_ISA_RENAME(ncl_k_isunary_count)
#  define ncl_k_compare_table   NCL_ISA_RENAME(ncl_k_compare_table)
#  define ncl_k_compare_count   NCL_ISA_RENAME(ncl_k_compare_count)
#  define ncl_k_convert_table   NCL_ISA_RENAME(ncl_k_convert_table)
#  define ncl_k_convert_count   NCL_ISA_RENAME(ncl_k_convert_count)
#  define ncl_k_ternary_table   NCL_ISA_RENAME(ncl_k_ternary_table)
#  define ncl_k_ternary_count   NCL_ISA_RENAME(ncl_k_ternary_count)
#  define ncl_k_mask_table      NCL_ISA_RENAME(ncl_k_mask_table)
#  define ncl_k_mask_count      NCL_ISA_RENAME(ncl_k_mask_count)
#  define ncl_k_sort_table      NCL_ISA_RENAME(ncl_k_sort_table)
#  define ncl_k_sort_count      NCL_ISA_RENAME(ncl_k_sort_count)
#  define ncl_k_reduce_table    NCL_ISA_RENAME(ncl_k_reduce_table)
#  define ncl_k_reduce_count    NCL_ISA_RENAME(ncl_k_reduce_count)
#endif

/* Declares one table of one variant: NCL_KERNEL_TABLE_DECLARE_(binary, _avx2);
   an empty suffix names this build's own. */
#define NCL_KERNEL_TABLE_DECLARE_(name, suffix)                         \
    extern const ncl_kernel_entry NCL_KTABLE_ISA(name, suffix)[];       \
    extern const size_t NCL_KCOUNT_ISA(name, suffix);
#define NCL_X_(name) NCL_KERNEL_TABLE_DECLARE_(name, )
NCL_KERNEL_TABLE_LIST(NCL_X_)
#undef NCL_X_

/* Unaligned-safe loads and stores (compile to plain moves). */
#define NCL_LOAD(T, p) ncl_load_##T(p)
#define NCL_DEFINE_LOADSTORE(T)                                                      \
    NCL_KINLINE T ncl_load_##T(const char *p) { T v; memcpy(&v, p, sizeof v); return v; } \
    NCL_KINLINE void ncl_store_##T(char *p, T v) { memcpy(p, &v, sizeof v); }
NCL_DEFINE_LOADSTORE(ncl_bool)
NCL_DEFINE_LOADSTORE(int8_t)
NCL_DEFINE_LOADSTORE(int16_t)
NCL_DEFINE_LOADSTORE(int32_t)
NCL_DEFINE_LOADSTORE(int64_t)
NCL_DEFINE_LOADSTORE(uint8_t)
NCL_DEFINE_LOADSTORE(uint16_t)
NCL_DEFINE_LOADSTORE(uint32_t)
NCL_DEFINE_LOADSTORE(uint64_t)
NCL_DEFINE_LOADSTORE(float)
NCL_DEFINE_LOADSTORE(double)

/* The strided loops. OPFN(x[, y], &fpe) is a static inline scalar function
   returning the output element; it may OR NCL_FPE_* bits into *fpe. The
   contiguous case is a separate loop so the compiler vectorises it; the
   scalar-second-operand case (broadcast) likewise. */
#define NCL_DEFINE_UNARY_KERNEL(fname, TI, TO, OPFN)                                  \
    static NclStatus fname(NclKernelNode *self, const NclKernelCtx *ctx,              \
                           char *const *args, int64_t n, const int64_t *steps)        \
    {                                                                                 \
        (void)self;                                                                   \
        int fpe = 0;                                                                  \
        const char *ip = args[0];                                                     \
        char *op = args[1];                                                           \
        const int64_t is = steps[0], os = steps[1];                                   \
        if (is == (int64_t)sizeof(TI) && os == (int64_t)sizeof(TO)) {                 \
            for (int64_t i = 0; i < n; i++)                                           \
                ncl_store_##TO(op + i * (int64_t)sizeof(TO),                          \
                               OPFN(ncl_load_##TI(ip + i * (int64_t)sizeof(TI)), &fpe)); \
        } else {                                                                      \
            for (int64_t i = 0; i < n; i++, ip += is, op += os)                       \
                ncl_store_##TO(op, OPFN(ncl_load_##TI(ip), &fpe));                    \
        }                                                                             \
        if (fpe) *ctx->fpe |= fpe;                                                    \
        return NCL_OK;                                                                \
    }

#define NCL_DEFINE_BINARY_KERNEL(fname, TA, TB, TO, OPFN)                             \
    static NclStatus fname(NclKernelNode *self, const NclKernelCtx *ctx,              \
                           char *const *args, int64_t n, const int64_t *steps)        \
    {                                                                                 \
        (void)self;                                                                   \
        int fpe = 0;                                                                  \
        const char *ap = args[0], *bp = args[1];                                      \
        char *op = args[2];                                                           \
        const int64_t as = steps[0], bs = steps[1], os = steps[2];                    \
        if (as == (int64_t)sizeof(TA) && bs == (int64_t)sizeof(TB) &&                 \
            os == (int64_t)sizeof(TO)) {                                              \
            for (int64_t i = 0; i < n; i++)                                           \
                ncl_store_##TO(op + i * (int64_t)sizeof(TO),                          \
                               OPFN(ncl_load_##TA(ap + i * (int64_t)sizeof(TA)),      \
                                    ncl_load_##TB(bp + i * (int64_t)sizeof(TB)), &fpe)); \
        } else if (as == (int64_t)sizeof(TA) && bs == 0 && os == (int64_t)sizeof(TO)) { \
            const TB y = ncl_load_##TB(bp);                                           \
            for (int64_t i = 0; i < n; i++)                                           \
                ncl_store_##TO(op + i * (int64_t)sizeof(TO),                          \
                               OPFN(ncl_load_##TA(ap + i * (int64_t)sizeof(TA)), y, &fpe)); \
        } else if (as == 0 && bs == (int64_t)sizeof(TB) && os == (int64_t)sizeof(TO)) { \
            const TA x = ncl_load_##TA(ap);                                           \
            for (int64_t i = 0; i < n; i++)                                           \
                ncl_store_##TO(op + i * (int64_t)sizeof(TO),                          \
                               OPFN(x, ncl_load_##TB(bp + i * (int64_t)sizeof(TB)), &fpe)); \
        } else {                                                                      \
            for (int64_t i = 0; i < n; i++, ap += as, bp += bs, op += os)             \
                ncl_store_##TO(op, OPFN(ncl_load_##TA(ap), ncl_load_##TB(bp), &fpe)); \
        }                                                                             \
        if (fpe) *ctx->fpe |= fpe;                                                    \
        return NCL_OK;                                                                \
    }

/* Three inputs and one output; contiguous and strided cases only. */
#define NCL_DEFINE_TERNARY_KERNEL(fname, TA, TB, TC, TO, OPFN)                        \
    static NclStatus fname(NclKernelNode *self, const NclKernelCtx *ctx,              \
                           char *const *args, int64_t n, const int64_t *steps)        \
    {                                                                                 \
        (void)self;                                                                   \
        int fpe = 0;                                                                  \
        const char *ap = args[0], *bp = args[1], *cp = args[2];                       \
        char *op = args[3];                                                           \
        const int64_t as = steps[0], bs = steps[1], cs = steps[2], os = steps[3];     \
        if (as == (int64_t)sizeof(TA) && bs == (int64_t)sizeof(TB) &&                 \
            cs == (int64_t)sizeof(TC) && os == (int64_t)sizeof(TO)) {                 \
            for (int64_t i = 0; i < n; i++)                                           \
                ncl_store_##TO(op + i * (int64_t)sizeof(TO),                          \
                               OPFN(ncl_load_##TA(ap + i * (int64_t)sizeof(TA)),      \
                                    ncl_load_##TB(bp + i * (int64_t)sizeof(TB)),      \
                                    ncl_load_##TC(cp + i * (int64_t)sizeof(TC)), &fpe)); \
        } else {                                                                      \
            for (int64_t i = 0; i < n; i++, ap += as, bp += bs, cp += cs, op += os)   \
                ncl_store_##TO(op, OPFN(ncl_load_##TA(ap), ncl_load_##TB(bp),         \
                                        ncl_load_##TC(cp), &fpe));                    \
        }                                                                             \
        if (fpe) *ctx->fpe |= fpe;                                                    \
        return NCL_OK;                                                                \
    }

#endif /* NCL_KERNEL_H */
