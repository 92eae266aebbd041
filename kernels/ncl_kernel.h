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
#define NCL_KERNEL_TABLE_LIST(X) X(binary) X(unary) X(isunary) X(compare) X(convert) X(ternary) X(mask) X(sort) X(reduce) X(rng)
/* The tables of kernel sources compiled once, in the baseline
   (NCL_KERNEL_ONCE_SRC in CMakeLists.txt), whose kernels wider vectors do
   not speed up: every variant's table list names the baseline's, so they
   take no suffix. */
#define NCL_KERNEL_TABLE_ONCE_LIST(X) X(rng_rejection) X(linalg)

/* The same sources are compiled once per instruction-set variant
   (cmake/NclIsa.cmake); a variant's build defines NCL_ISA_SUFFIX (e.g. _avx2)
   and its tables take that suffix, so every variant can live in one library.
   The registry (src/hooks/kernel_registry.c) names them with NCL_KTABLE_ISA.
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
#  define ncl_k_rng_table       NCL_ISA_RENAME(ncl_k_rng_table)
#  define ncl_k_rng_count       NCL_ISA_RENAME(ncl_k_rng_count)
#  define ncl_k_tables          NCL_ISA_RENAME(ncl_k_tables)
#endif

/* Declares one table of one variant: NCL_KERNEL_TABLE_DECLARE_(binary, _avx2);
   an empty suffix names this build's own. */
#define NCL_KERNEL_TABLE_DECLARE_(name, suffix)                         \
    extern const ncl_kernel_entry NCL_KTABLE_ISA(name, suffix)[];       \
    extern const size_t NCL_KCOUNT_ISA(name, suffix);
#define NCL_X_(name) NCL_KERNEL_TABLE_DECLARE_(name, )
NCL_KERNEL_TABLE_LIST(NCL_X_)
NCL_KERNEL_TABLE_ONCE_LIST(NCL_X_)
#undef NCL_X_

/* One table of built-in kernels and its length. */
typedef struct ncl_kernel_table {
    const ncl_kernel_entry *entries;
    const size_t *count;
} ncl_kernel_table;
#define NCL_X_(name) +1
enum { NCL_KERNEL_TABLE_COUNT = 0 NCL_KERNEL_TABLE_LIST(NCL_X_) NCL_KERNEL_TABLE_ONCE_LIST(NCL_X_) };
#undef NCL_X_
/* A variant's tables in NCL_KERNEL_TABLE_LIST order (ncl_tables.c):
   ncl_k_tables in the baseline, ncl_k_tables_avx2, ... in the others. */
extern const ncl_kernel_table ncl_k_tables[NCL_KERNEL_TABLE_COUNT];

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

/* ---- contiguous outputs: plain or streaming stores -------------------------
   A contiguous output loop is written as a loop over segments:

       NCL_OSTREAM(os);
       for (ncl_ostream_begin(&os, ctx, op, n, sizeof(TO)); ncl_ostream_next(&os);)
           for (int64_t j = 0; j < os.cnt; j++)
               store element os.i0 + j at os.dst + j * sizeof(TO);

   Normally that is one segment, the whole output, stored in place. In the
   AVX2 and AVX-512 builds, an output of at least NCL_STREAM_MIN_BYTES (of
   this call: a thread's chunk decides by its own size) is produced in blocks
   of NCL_STREAM_BLOCK bytes into a buffer that stays in L1, each block then
   copied out with non-temporal stores, so the output's lines are neither
   read for ownership nor left to evict the inputs from the caches; a head up
   to the first 64-byte boundary and the tail after the last whole block are
   stored in place, and one sfence orders the streamed stores before the
   kernel returns. The element code is the same either way, so are the
   results and the FP flags. An output not aligned to its element size never
   reaches a 64-byte boundary and is stored in place.
   When several threads run chunks of one call (ctx->nworkers > 1), the
   whole call's output must also reach NCL_STREAM_SHARED_MIN_BYTES: below it
   the call's operands fit the L3 together, and two cores reading and
   writing it there outrun the DRAM write bandwidth they would share when
   streaming (c = a + b, float64, n = 1e6, 8 MiB output in two 4 MiB chunks:
   2.35x the one-thread speed with plain stores, 1.17-1.33x streamed); one
   core alone gains from streaming even then (its own path to the L3 is the
   limit, and the streamed output takes another).
   Measured on Zen 4 (32 MiB L3; c = a + b, float64, both cores busy):
   streaming loses up to 3 MiB of output (0.25 vs 0.29 ns per element at 1.5
   MiB, 0.28 vs 0.30 at 3 MiB), wins from 3.5 MiB on (0.35 vs 0.31; 0.69 vs
   0.36 at 7.6 MiB, 1.2 vs 0.8 at 122 MiB); 256-bit streaming stores were at
   least as fast as 512-bit ones, and 64 B to 1 KiB blocks about as fast as
   streaming the result vectors directly, 4 KiB blocks slower. */
#if defined(__AVX2__) && (defined(__GNUC__) || defined(__clang__))
#  include <immintrin.h>
#  define NCL_STREAM_STORES 1
#endif
#define NCL_STREAM_MIN_BYTES ((int64_t)13 << 18)        /* 3.25 MiB */
#define NCL_STREAM_SHARED_MIN_BYTES ((int64_t)11 << 20) /* a third of a 32 MiB L3 */
#define NCL_STREAM_BLOCK 1024

typedef struct ncl_ostream {
    char *dst;    /* where the current segment's elements go */
    int64_t i0;   /* index of its first element */
    int64_t cnt;  /* its elements */
    char *op;
    int64_t n, size;
#ifdef NCL_STREAM_STORES
    int64_t head; /* elements before the first 64-byte boundary; -1: plain */
    char *buf;    /* NCL_STREAM_BLOCK bytes at the start of a 4 KiB page */
#endif
} ncl_ostream;

/* Declares the ncl_ostream `name` (always declare one this way: it sets its
   buffer). The block buffer is a separate array so that the state has no
   array in it and the compiler keeps it in registers: with the buffer
   inside, every field lived on the stack, and c = a + b, float64, n = 16,
   took 30 ns per call instead of 26.5. The buffer starts a 4 KiB page:
   where the compiler put it 64-byte aligned, its offset within a page
   changed with each kernel's frame, and int64 subtract and multiply at
   1.6e7 streamed through it 10-25 % slower than add (9.4-9.9 ms against
   10.5-12 ms for the same loop, bench_rows; most likely its stores and
   the input's loads aliasing modulo 4 KiB); page-aligned, all measured
   9.1-9.5 ms. */
#ifdef NCL_STREAM_STORES
#  define NCL_OSTREAM(name)                            \
    _Alignas(4096) char name##buf_[NCL_STREAM_BLOCK]; \
    ncl_ostream name = {.buf = name##buf_}
#else
#  define NCL_OSTREAM(name) ncl_ostream name
#endif

/* For a loop that knows the bytes its inputs span (in_bytes) in this
   chunk, the output is streamed only if the call's whole footprint (inputs
   and output, of every thread running a chunk of it) also reaches
   NCL_STREAM_FOOTPRINT_MIN.
   Below it a repeated call finds everything in the L3, and plain stores
   there (reading the output's lines for ownership, writing them back to the
   L3) outrun one core's streamed writes to DRAM, about 27 GB/s on Zen 4
   (4 MiB streamed alone: 146-150 us). Measured with float64 -> int32 (8 MB
   in, 4 MB out, 2 MiB pages): 163 us plain vs 176 us streamed at n = 1e6;
   equal at 1.4e6 (16.8 MB); 594 vs 397 us at 2e6 (24 MB), where the plain
   stores' write-backs evict the input from the L3. The additions of row 1
   (two inputs) keep the output-only rule (ncl_ostream_begin): at the same
   footprint their streamed and plain loops measured within noise. */
#define NCL_STREAM_FOOTPRINT_MIN ((int64_t)16 << 20) /* half a 32 MiB L3 */

/* Whether this chunk's contiguous output of out_bytes is streamed; in_bytes
   < 0: unknown, the output's size alone decides. */
NCL_KINLINE int ncl_stream_pays(const NclKernelCtx *ctx, int64_t out_bytes, int64_t in_bytes)
{
    const int64_t workers = ctx->nworkers > 1 ? ctx->nworkers : 1;
    return out_bytes >= NCL_STREAM_MIN_BYTES &&
           (workers == 1 || out_bytes >= NCL_STREAM_SHARED_MIN_BYTES / workers) &&
           (in_bytes < 0 || (in_bytes + out_bytes) * workers >= NCL_STREAM_FOOTPRINT_MIN);
}

/* The elements of size bytes at p before its first 64-byte boundary, or -1
   when p is not aligned to the element size. */
NCL_KINLINE int64_t ncl_line_head(const char *p, int64_t size)
{
    const uintptr_t a = (uintptr_t)p;
    if (a % (uintptr_t)size != 0) return -1;
    return (int64_t)((64 - (a & 63)) & 63) / size;
}

/* For a contiguous output of n elements of size bytes at op: -1 when it
   is written with plain stores, else the elements before its first 64-byte
   boundary, after which it is streamed (an output not aligned to its
   element size is never streamed). */
NCL_KINLINE int64_t ncl_stream_head(const NclKernelCtx *ctx, const char *op, int64_t n,
                                    int64_t size, int64_t in_bytes)
{
    if (!ncl_stream_pays(ctx, n * size, in_bytes)) return -1;
    return ncl_line_head(op, size);
}

/* ncl_ostream_begin for such a loop. */
NCL_KINLINE void ncl_ostream_begin_fp(ncl_ostream *s, const NclKernelCtx *ctx, char *op,
                                      int64_t n, int64_t size, int64_t in_bytes)
{
    s->dst = NULL;
    s->i0 = 0;
    s->cnt = 0;
    s->op = op;
    s->n = n;
    s->size = size;
#ifdef NCL_STREAM_STORES
    s->head = ncl_stream_head(ctx, op, n, size, in_bytes);
#else
    (void)ctx;
    (void)in_bytes;
#endif
}

NCL_KINLINE void ncl_ostream_begin(ncl_ostream *s, const NclKernelCtx *ctx, char *op, int64_t n,
                                   int64_t size)
{
    ncl_ostream_begin_fp(s, ctx, op, n, size, -1);
}

/* Flushes the segment just produced and sets up the next one; 0 when the
   output is complete. */
NCL_KINLINE int ncl_ostream_next(ncl_ostream *s)
{
#ifdef NCL_STREAM_STORES
    if (s->dst == s->buf) {
        char *d = s->op + s->i0 * s->size;
        for (int k = 0; k < NCL_STREAM_BLOCK; k += 32)
            _mm256_stream_si256((__m256i *)(void *)(d + k),
                                _mm256_load_si256((const __m256i *)(const void *)(s->buf + k)));
    }
#endif
    s->i0 += s->cnt;
    const int64_t left = s->n - s->i0;
    if (left <= 0) {
#ifdef NCL_STREAM_STORES
        if (s->head >= 0) _mm_sfence();
#endif
        return 0;
    }
    s->dst = s->op + s->i0 * s->size;
    s->cnt = left;
#ifdef NCL_STREAM_STORES
    if (s->head >= 0) {
        const int64_t per = NCL_STREAM_BLOCK / s->size;
        if (s->i0 < s->head)
            s->cnt = s->head;
        else if (left >= per) {
            s->dst = s->buf;
            s->cnt = per;
        }
    }
#endif
    return 1;
}

/* Whether the current segment is written in place (not through the block
   buffer): the whole output when it is not streamed, else the elements
   before its first 64-byte boundary and the last ones, fewer than a block. */
NCL_KINLINE int ncl_ostream_in_place(const ncl_ostream *s)
{
#ifdef NCL_STREAM_STORES
    return s->dst != s->buf;
#else
    (void)s;
    return 1;
#endif
}

/* ---- stride-2 operands -----------------------------------------------------
   The binary loop has a case for an 8-byte operand at step 16 (a view
   a[::2], first or second operand) with the rest contiguous: the same
   element loop with that step a constant, which the compiler vectorises
   with two loads and one permute per vector (vpermt2pd, or vunpcklpd +
   vpermpd in AVX2), peeling the last element so nothing past a[2(n-1)] is
   read. The generic strided loop stays scalar. Packing 128 elements at a
   time into an L1 buffer first and running the contiguous loop on it was
   slower where the operands come from L2/L3: add(a[::2], b), float64, n =
   6.4e4 (1 MB strided operand, NumPy's placement 16 bytes past a line):
   22.6-23.9 us packed, 21.1-21.4 us in one pass with 256-bit vectors
   (21.9 us 512-bit; scalar 24.8 us). */

/* The strided loops. OPFN(x[, y], &fpe) is a static inline scalar function
   returning the output element; it may OR NCL_FPE_* bits into *fpe. The
   contiguous case is a separate loop so the compiler vectorises it; the
   scalar-operand cases (broadcast) likewise. Their outputs go through
   ncl_ostream (streaming stores when large). */
#define NCL_DEFINE_UNARY_KERNEL(fname, TI, TO, OPFN) NCL_DEFINE_UNARY_KERNEL_(fname, TI, TO, OPFN, -1)
/* The same, streaming a large output only when the whole footprint of the
   call (input and output) is large too (ncl_ostream_begin_fp): for loops
   that move memory rather than compute, such as the casts. */
#define NCL_DEFINE_UNARY_KERNEL_FP(fname, TI, TO, OPFN) \
    NCL_DEFINE_UNARY_KERNEL_(fname, TI, TO, OPFN, n * (int64_t)sizeof(TI))
#define NCL_DEFINE_UNARY_KERNEL_(fname, TI, TO, OPFN, INBYTES)                        \
    static NclStatus fname(NclKernelNode *self, const NclKernelCtx *ctx,              \
                           char *const *args, int64_t n, const int64_t *steps)        \
    {                                                                                 \
        (void)self;                                                                   \
        int fpe = 0;                                                                  \
        const char *ip = args[0];                                                     \
        char *op = args[1];                                                           \
        const int64_t is = steps[0], os = steps[1];                                   \
        if (is == (int64_t)sizeof(TI) && os == (int64_t)sizeof(TO)) {                 \
            NCL_OSTREAM(out_);                                                        \
            for (ncl_ostream_begin_fp(&out_, ctx, op, n, (int64_t)sizeof(TO), (INBYTES)); \
                 ncl_ostream_next(&out_);) {                                          \
                char *const d_ = out_.dst;                                            \
                const char *const x_ = ip + out_.i0 * (int64_t)sizeof(TI);            \
                const int64_t c_ = out_.cnt;                                          \
                for (int64_t i = 0; i < c_; i++)                                      \
                    ncl_store_##TO(d_ + i * (int64_t)sizeof(TO),                      \
                                   OPFN(ncl_load_##TI(x_ + i * (int64_t)sizeof(TI)), &fpe)); \
            }                                                                         \
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
        NCL_OSTREAM(out_);                                                            \
        if (as == (int64_t)sizeof(TA) && bs == (int64_t)sizeof(TB) &&                 \
            os == (int64_t)sizeof(TO)) {                                              \
            for (ncl_ostream_begin(&out_, ctx, op, n, (int64_t)sizeof(TO)); ncl_ostream_next(&out_);) { \
                char *const d_ = out_.dst;                                            \
                const char *const x_ = ap + out_.i0 * (int64_t)sizeof(TA);            \
                const char *const y_ = bp + out_.i0 * (int64_t)sizeof(TB);            \
                const int64_t c_ = out_.cnt;                                          \
                for (int64_t i = 0; i < c_; i++)                                      \
                    ncl_store_##TO(d_ + i * (int64_t)sizeof(TO),                      \
                                   OPFN(ncl_load_##TA(x_ + i * (int64_t)sizeof(TA)),  \
                                        ncl_load_##TB(y_ + i * (int64_t)sizeof(TB)), &fpe)); \
            }                                                                         \
        } else if (as == (int64_t)sizeof(TA) && bs == 0 && os == (int64_t)sizeof(TO)) { \
            const TB y = ncl_load_##TB(bp);                                           \
            for (ncl_ostream_begin(&out_, ctx, op, n, (int64_t)sizeof(TO)); ncl_ostream_next(&out_);) { \
                char *const d_ = out_.dst;                                            \
                const char *const x_ = ap + out_.i0 * (int64_t)sizeof(TA);            \
                const int64_t c_ = out_.cnt;                                          \
                for (int64_t i = 0; i < c_; i++)                                      \
                    ncl_store_##TO(d_ + i * (int64_t)sizeof(TO),                      \
                                   OPFN(ncl_load_##TA(x_ + i * (int64_t)sizeof(TA)), y, &fpe)); \
            }                                                                         \
        } else if (as == 0 && bs == (int64_t)sizeof(TB) && os == (int64_t)sizeof(TO)) { \
            const TA x = ncl_load_##TA(ap);                                           \
            for (ncl_ostream_begin(&out_, ctx, op, n, (int64_t)sizeof(TO)); ncl_ostream_next(&out_);) { \
                char *const d_ = out_.dst;                                            \
                const char *const y_ = bp + out_.i0 * (int64_t)sizeof(TB);            \
                const int64_t c_ = out_.cnt;                                          \
                for (int64_t i = 0; i < c_; i++)                                      \
                    ncl_store_##TO(d_ + i * (int64_t)sizeof(TO),                      \
                                   OPFN(x, ncl_load_##TB(y_ + i * (int64_t)sizeof(TB)), &fpe)); \
            }                                                                         \
        } else if (sizeof(TA) == 8 && as == 16 && bs == (int64_t)sizeof(TB) &&        \
                   os == (int64_t)sizeof(TO)) {                                       \
            /* a[::2] (stride-2 operands above) */                                    \
            for (ncl_ostream_begin(&out_, ctx, op, n, (int64_t)sizeof(TO));           \
                 ncl_ostream_next(&out_);) {                                          \
                char *const d_ = out_.dst;                                            \
                const char *const x_ = ap + out_.i0 * 16;                             \
                const char *const y_ = bp + out_.i0 * (int64_t)sizeof(TB);            \
                const int64_t c_ = out_.cnt;                                          \
                for (int64_t i = 0; i < c_; i++)                                      \
                    ncl_store_##TO(d_ + i * (int64_t)sizeof(TO),                      \
                                   OPFN(ncl_load_##TA(x_ + i * 16),                   \
                                        ncl_load_##TB(y_ + i * (int64_t)sizeof(TB)), &fpe)); \
            }                                                                         \
        } else if (sizeof(TB) == 8 && bs == 16 && as == (int64_t)sizeof(TA) &&        \
                   os == (int64_t)sizeof(TO)) {                                       \
            for (ncl_ostream_begin(&out_, ctx, op, n, (int64_t)sizeof(TO));           \
                 ncl_ostream_next(&out_);) {                                          \
                char *const d_ = out_.dst;                                            \
                const char *const x_ = ap + out_.i0 * (int64_t)sizeof(TA);            \
                const char *const y_ = bp + out_.i0 * 16;                             \
                const int64_t c_ = out_.cnt;                                          \
                for (int64_t i = 0; i < c_; i++)                                      \
                    ncl_store_##TO(d_ + i * (int64_t)sizeof(TO),                      \
                                   OPFN(ncl_load_##TA(x_ + i * (int64_t)sizeof(TA)),  \
                                        ncl_load_##TB(y_ + i * 16), &fpe));           \
            }                                                                         \
        } else {                                                                      \
            for (int64_t i = 0; i < n; i++, ap += as, bp += bs, op += os)             \
                ncl_store_##TO(op, OPFN(ncl_load_##TA(ap), ncl_load_##TB(bp), &fpe)); \
        }                                                                             \
        if (fpe) *ctx->fpe |= fpe;                                                    \
        return NCL_OK;                                                                \
    }

/* Loops of two outputs (frexp, modf, divmod): OPFN(x, &second, &fpe)
   returns the first output's element and stores the second's. A
   contiguous path, which the compiler may vectorise, and a strided one;
   the outputs are written directly (these loops compute more than they
   move). */
#define NCL_DEFINE_UNARY2_KERNEL(fname, TI, TO, TP, OPFN)                             \
    static NclStatus fname(NclKernelNode *self, const NclKernelCtx *ctx,              \
                           char *const *args, int64_t n, const int64_t *steps)        \
    {                                                                                 \
        (void)self;                                                                   \
        int fpe = 0;                                                                  \
        const char *ip = args[0];                                                     \
        char *op = args[1], *pp = args[2];                                            \
        const int64_t is = steps[0], os = steps[1], ps = steps[2];                    \
        if (is == (int64_t)sizeof(TI) && os == (int64_t)sizeof(TO) &&                 \
            ps == (int64_t)sizeof(TP)) {                                              \
            for (int64_t i = 0; i < n; i++) {                                         \
                TP p_;                                                                \
                const TO o_ = OPFN(ncl_load_##TI(ip + i * (int64_t)sizeof(TI)), &p_, &fpe); \
                ncl_store_##TO(op + i * (int64_t)sizeof(TO), o_);                     \
                ncl_store_##TP(pp + i * (int64_t)sizeof(TP), p_);                     \
            }                                                                         \
        } else {                                                                      \
            for (int64_t i = 0; i < n; i++, ip += is, op += os, pp += ps) {           \
                TP p_;                                                                \
                const TO o_ = OPFN(ncl_load_##TI(ip), &p_, &fpe);                     \
                ncl_store_##TO(op, o_);                                               \
                ncl_store_##TP(pp, p_);                                               \
            }                                                                         \
        }                                                                             \
        if (fpe) *ctx->fpe |= fpe;                                                    \
        return NCL_OK;                                                                \
    }

#define NCL_DEFINE_BINARY2_KERNEL(fname, TA, TB, TO, TP, OPFN)                        \
    static NclStatus fname(NclKernelNode *self, const NclKernelCtx *ctx,              \
                           char *const *args, int64_t n, const int64_t *steps)        \
    {                                                                                 \
        (void)self;                                                                   \
        int fpe = 0;                                                                  \
        const char *ap = args[0], *bp = args[1];                                      \
        char *op = args[2], *pp = args[3];                                            \
        const int64_t as = steps[0], bs = steps[1], os = steps[2], ps = steps[3];     \
        if (as == (int64_t)sizeof(TA) && bs == (int64_t)sizeof(TB) &&                 \
            os == (int64_t)sizeof(TO) && ps == (int64_t)sizeof(TP)) {                 \
            for (int64_t i = 0; i < n; i++) {                                         \
                TP p_;                                                                \
                const TO o_ = OPFN(ncl_load_##TA(ap + i * (int64_t)sizeof(TA)),       \
                                   ncl_load_##TB(bp + i * (int64_t)sizeof(TB)), &p_, &fpe); \
                ncl_store_##TO(op + i * (int64_t)sizeof(TO), o_);                     \
                ncl_store_##TP(pp + i * (int64_t)sizeof(TP), p_);                     \
            }                                                                         \
        } else {                                                                      \
            for (int64_t i = 0; i < n; i++, ap += as, bp += bs, op += os, pp += ps) { \
                TP p_;                                                                \
                const TO o_ = OPFN(ncl_load_##TA(ap), ncl_load_##TB(bp), &p_, &fpe);  \
                ncl_store_##TO(op, o_);                                               \
                ncl_store_##TP(pp, p_);                                               \
            }                                                                         \
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
