/*
 * sort_kernel.h: the contract between the Sort subsystem's framework
 * (src/defaults/sort.c) and its level-2 kernels (kernels/sort/): what one
 * kernel call does, the data behind ctx->aux, and how much workspace the
 * built-in kernels need, so that the framework obtains it before it writes
 * any output. Nothing here calls into src/.
 *
 * Kernel ABI. Chains are keyed (NCL_SUBSYSTEM_SORT, op, {dtype, result}):
 * result is dtype for NCL_SORT and NCL_PARTITION, int64 for NCL_ARGSORT and
 * NCL_ARGPARTITION; two operands. One call handles one slice along the
 * sort axis:
 *   args[0]  the n input elements, args[1] the n output elements;
 *   steps    their byte strides, which NCLib always passes as the item
 *            sizes: it gathers a strided or misaligned slice into contiguous
 *            scratch and scatters the result, so slices are contiguous,
 *            aligned to their element size, and overlap neither each other
 *            nor the workspace (an in-place sort reads a gathered copy);
 *   ctx->aux a const ncl_sort_aux *: workspace, kind and kth (below).
 * The built-in kernels refuse (NCL_ERR_INVALID_ARGUMENT, no element
 * written) steps that are not the item sizes, a missing aux, and a
 * workspace smaller than ncl_sort_work_bytes() says, so a hook that passes
 * other data on with NclKernelNext gets a status rather than corruption.
 * Results: SORT writes the slice in order (NaNs last, after +inf, all NaNs
 * equal; -0.0 equal to 0.0); ARGSORT the indices 0..n-1 that order it;
 * PARTITION the slice with the element of rank kth at kth, nothing greater
 * before it and nothing smaller after; ARGPARTITION the indices that do the
 * same. With kind NCL_SORT_STABLE equal elements keep their order; the
 * built-in ARGSORT is stable whatever the kind. Sorting raises no
 * floating-point flags (keys are compared as integers).
 *
 * Threads: one call touches only its own slice and workspace, so a pool can
 * run slices concurrently, each worker with its own workspace.
 */
#ifndef NCL_SORT_KERNEL_H
#define NCL_SORT_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include "ncl.h"

typedef struct ncl_sort_msd ncl_sort_msd;

/* What ctx->aux points at for every Sort kernel call. */
typedef struct ncl_sort_aux {
    void *work;          /* scratch for this call, 64-byte aligned (may be NULL when
                            work_bytes is 0) */
    size_t work_bytes;   /* at least ncl_sort_work_bytes(op, dtype, kind, n), or
                            ncl_sort_msd_work_bytes(n, nparts) for a phase call */
    int kind;            /* NCL_SORT_DEFAULT or NCL_SORT_STABLE */
    int64_t kth;         /* PARTITION / ARGPARTITION: the rank, 0 <= kth < n */
    ncl_sort_msd *msd;   /* NULL, or this call is one phase of a split sort (below) */
} ncl_sort_aux;

/* Slices up to this length are insertion sorted (no workspace needed for
   values beyond the output itself). */
#define NCL_SORT_SMALL 16

/* LSD radix digits: 8 bits for keys of up to 32 bits, 10 bits for 64-bit
   keys (7 passes instead of 8; see sort_radix.h), so at most 8 digits.
   Two 1024-entry tables of 32-bit counts (this pass's offsets, the next
   pass's counts) live at the start of the workspace; the MSD value sort
   of 64-bit keys uses the same 2048 counts as one table, followed by a
   buffer of NCL_SORT_LOCAL keys that stays in cache. */
#define NCL_SORT_RADIX_MAXDIG 8
#define NCL_SORT_LOCAL 2048
#define NCL_SORT_HIST_BYTES ((size_t)2 * 1024 * sizeof(uint32_t) + NCL_SORT_LOCAL * 8)

/* Item size of dt (the width of its sort keys). */
static inline int ncl_sort_width(NclDType dt)
{
    switch (dt) {
    case NCL_BOOL: case NCL_INT8: case NCL_UINT8: return 1;
    case NCL_INT16: case NCL_UINT16: return 2;
    case NCL_INT32: case NCL_UINT32: case NCL_FLOAT32: return 4;
    default: return 8;
    }
}

/* Whether arg kernels pack (key, index) into one 64-bit word: keys of at
   most 32 bits and indices that fit 32 bits. */
static inline int ncl_sort_packed(NclDType dt, int64_t n)
{
    return ncl_sort_width(dt) <= 4 && n <= ((int64_t)1 << 32);
}

/* Whether the built-in kernel radix sorts a slice of n: from the length
   where it beats the comparison sorts on random keys (measured with fresh
   data per run: on repeated data the branch predictor learns a comparison
   sort's branches and flatters it) up to 2**32 - 1 elements, the most its
   32-bit bucket counts hold. kind does not matter: merge sort and introsort
   cost about the same. */
static inline int ncl_sort_uses_radix(int op, NclDType dt, int kind, int64_t n)
{
    (void)kind;
    const int w = ncl_sort_width(dt);
    int64_t min;
    if (op == NCL_ARGSORT) min = w <= 2 ? 32 : w == 4 ? 64 : 128;
    else if (op == NCL_SORT) min = w <= 2 ? 32 : w == 4 ? 64 : 256;
    else return 0;
    return n >= min && n <= (int64_t)UINT32_MAX;
}

/* Bytes of workspace the built-in kernel of (op, dt, kind) needs for a slice
   of n elements; SIZE_MAX when that does not fit in a size_t. Layout:
   the radix histograms (when the slice is radix sorted), then the buffers,
   each starting on a 64-byte boundary. */
static inline size_t ncl_sort_work_bytes(int op, NclDType dt, int kind, int64_t n)
{
    if (n <= 1) return 0;
    const size_t w = (size_t)ncl_sort_width(dt);
    const int radix = ncl_sort_uses_radix(op, dt, kind, n);
    size_t per; /* bytes per element */
    switch (op) {
    case NCL_SORT:
        /* radix / merge ping-pong buffer; counting sort of bytes needs none */
        per = (n <= NCL_SORT_SMALL || w == 1) ? 0 : w;
        break;
    case NCL_ARGSORT:
        /* packed: the second 64-bit record buffer (the output is the first);
           wide: two key buffers and one index buffer for radix, pairs of
           (key, index) for comparison sorts */
        per = ncl_sort_packed(dt, n) ? (n <= NCL_SORT_SMALL ? 0 : 8) : 24;
        break;
    case NCL_PARTITION: per = 0; break;
    default: per = ncl_sort_packed(dt, n) ? 0 : 16; break; /* ARGPARTITION: pairs */
    }
    size_t bytes;
    if ((uint64_t)n > SIZE_MAX || __builtin_mul_overflow((size_t)n, per, &bytes)) return SIZE_MAX;
    const int hist = radix && (op == NCL_ARGSORT || (op == NCL_SORT && w > 1));
    if (bytes == 0 && !hist) return 0;
    const size_t extra = (hist ? NCL_SORT_HIST_BYTES : 0) + 4 * 64;
    if (bytes > SIZE_MAX - extra) return SIZE_MAX;
    return bytes + extra;
}

/* Bytes that hold the workspaces of up to nparts slices of n > NCL_SORT_SMALL
   elements in all, one after another, each rounded up to 64 bytes: a part
   of m <= n elements needs at most m times the whole's bytes per element
   (narrower slices never need more per element) plus the fixed extra. */
static inline size_t ncl_sort_ranges_work_bytes(int op, NclDType dt, int kind, int64_t n,
                                                int nparts)
{
    const size_t whole = ncl_sort_work_bytes(op, dt, kind, n);
    if (whole == 0 || whole == SIZE_MAX) return whole;
    const size_t extra = (size_t)nparts * (NCL_SORT_HIST_BYTES + 5 * 64);
    return whole > SIZE_MAX - extra ? SIZE_MAX : whole + extra;
}

/* A value sort of one long slice of 8-byte keys run by nparts threads at
   once, in phases: the built-in SORT kernel's own top-level radix split
   (sort_radix.h, MSD) with every pass over memory shared out. The caller
   (src/defaults/sort.c, only while the built-in kernel is first in its
   chain, so no hook ever sees such a call) zeroes the struct, sets nparts
   and then loops: a parallel phase, with the kernel called once per part p
   (ctx->chunk = p, 0 <= p < nparts) and phase set to it, all with the same
   args, n, steps and workspace; then one PLAN call, which sets next. The
   first phase is NCL_SORT_MSD_COUNT; the loop ends when next is
   NCL_SORT_MSD_DONE, with the slice sorted in args[1]: the same bits as one
   whole-slice call. A failed call ends it (status as for a whole call). */
enum {
    NCL_SORT_MSD_COUNT,   /* part p counts the top digit of its share of the input */
    NCL_SORT_MSD_SCATTER, /* part p writes its share to the digit's buckets */
    NCL_SORT_MSD_BUCKETS, /* part p sorts its run of buckets into the output */
    NCL_SORT_MSD_PLAN,    /* one call between parallel phases: sets next */
    NCL_SORT_MSD_DONE
};
struct ncl_sort_msd {
    int phase;           /* set by the caller for each call */
    int next;            /* set by PLAN */
    int nparts;          /* 2 .. NCL_MAX_THREADS */
    int recounted;       /* the kernel's: the rest of the struct is its state */
    int shift, lim;
    uint64_t mask;
};

/* Workspace of a phase call of n elements on nparts parts: per part a
   table of 2048 counts, a buffer of NCL_SORT_LOCAL keys and a 64-byte cell;
   then n keys. SIZE_MAX when that does not fit in a size_t. */
#define NCL_SORT_MSD_PART (NCL_SORT_HIST_BYTES + 64)
static inline size_t ncl_sort_msd_work_bytes(int64_t n, int nparts)
{
    const size_t parts = (size_t)nparts * NCL_SORT_MSD_PART;
    if (n < 0 || (uint64_t)n > (SIZE_MAX - parts - 64) / 8) return SIZE_MAX;
    return parts + (((size_t)n * 8 + 63) & ~(size_t)63);
}

/* Whether a SORT of n elements of dt on nparts threads may run in phases:
   8-byte keys that the built-in kernel radix sorts. */
static inline int ncl_sort_msd_ok(int op, NclDType dt, int kind, int64_t n, int nparts)
{
    return op == NCL_SORT && ncl_sort_width(dt) == 8 && nparts >= 2 &&
           ncl_sort_uses_radix(op, dt, kind, n) && n >= (int64_t)nparts * 256;
}

#endif /* NCL_SORT_KERNEL_H */
