/**
 * @file
 * @brief The Reduce subsystem: reductions and accumulations over axes, with
 * results that do not depend on memory layout or thread count.
 *
 * @defgroup ncl_reduce Reduce
 * @ingroup ncl_subsystems
 * @brief Reductions (sum, prod, min, max, any, all, argmin, argmax, mean,
 * count_nonzero, std, var) and accumulations (cumsum, cumprod) over axes,
 * and their nan-aware forms.
 * @{
 */
#ifndef NCL_REDUCE_H
#define NCL_REDUCE_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "dtype.h"
#include "array.h"
#include "params.h"
#include "list.h"

NCL_BEGIN_DECLS

/** X-macro list of the Reduce ops, `X(name, text)` in enum order, text
    NumPy's name of the function. @hideinitializer */
#define NCL_REDUCE_OP_LIST(X)                                                  \
    /** The sum (of an empty selection: 0). */                                 \
    X(NCL_SUM, "sum")                                                          \
    /** The product (of an empty selection: 1). */                             \
    X(NCL_PROD, "prod")                                                        \
    /** The smallest element; NaN if any is NaN. */                            \
    X(NCL_MIN, "min")                                                          \
    /** The largest element; NaN if any is NaN. */                             \
    X(NCL_MAX, "max")                                                          \
    /** Whether any element is non-zero, as bool. */                           \
    X(NCL_ANY, "any")                                                          \
    /** Whether every element is non-zero, as bool. */                         \
    X(NCL_ALL, "all")                                                          \
    /** The int64 index of the first smallest element, along one axis. */      \
    X(NCL_ARGMIN, "argmin")                                                    \
    /** The int64 index of the first largest element, along one axis. */       \
    X(NCL_ARGMAX, "argmax")                                                    \
    /** The arithmetic mean. */                                                \
    X(NCL_MEAN, "mean")                                                        \
    /** How many elements are non-zero, as int64. */                           \
    X(NCL_COUNT_NONZERO, "count_nonzero")                                      \
    /** Running sums along one axis, in a's shape. */                          \
    X(NCL_CUMSUM, "cumsum")                                                    \
    /** Running products along one axis, in a's shape. */                      \
    X(NCL_CUMPROD, "cumprod")                                                  \
    /** The standard deviation: the square root of VAR. */                     \
    X(NCL_STD, "std")                                                          \
    /** The variance: sum((x - mean)**2) / (count - ddof). */                  \
    X(NCL_VAR, "var")                                                          \
    /** SUM with NaN counted as 0. */                                          \
    X(NCL_NANSUM, "nansum")                                                    \
    /** PROD with NaN counted as 1. */                                         \
    X(NCL_NANPROD, "nanprod")                                                  \
    /** MEAN of the elements that are not NaN. */                              \
    X(NCL_NANMEAN, "nanmean")                                                  \
    /** MIN of the elements that are not NaN. */                               \
    X(NCL_NANMIN, "nanmin")                                                    \
    /** MAX of the elements that are not NaN. */                               \
    X(NCL_NANMAX, "nanmax")                                                    \
    /** ARGMIN of the elements that are not NaN. */                            \
    X(NCL_NANARGMIN, "nanargmin")                                              \
    /** ARGMAX of the elements that are not NaN. */                            \
    X(NCL_NANARGMAX, "nanargmax")                                              \
    /** STD of the elements that are not NaN. */                               \
    X(NCL_NANSTD, "nanstd")                                                    \
    /** VAR of the elements that are not NaN. */                               \
    X(NCL_NANVAR, "nanvar")                                                    \
    /** CUMSUM with NaN counted as 0. */                                       \
    X(NCL_NANCUMSUM, "nancumsum")                                              \
    /** CUMPROD with NaN counted as 1. */                                      \
    X(NCL_NANCUMPROD, "nancumprod")

/** The Reduce ops, from NCL_REDUCE_OP_LIST, numbered from 0. */
typedef enum NclReduceOp {
#define NCL_X_(name, text) name,
    NCL_REDUCE_OP_LIST(NCL_X_)
#undef NCL_X_
    NCL_REDUCE_NOPS ///< How many ops there are; not an op.
} NclReduceOp;

/**
 * Reduces a over params->axes (NULL = all axes; negative values count from
 * the end; a repeated axis is NCL_ERR_AXIS), as NumPy's reductions:
 * - keepdims keeps reduced axes with extent 1;
 * - dtype is the accumulation and result dtype (default as NumPy: sum and
 *   prod of bool and signed ints give int64, of unsigned ints uint64; mean
 *   of bool and ints gives float64; min/max keep the dtype; any/all give
 *   bool; argmin/argmax and count_nonzero give int64);
 * - initial (one element of the result dtype) starts every reduction; SUM,
 *   PROD, MIN, MAX, ANY and ALL take it;
 * - where (a bool mask broadcast to a) selects the elements that take part
 *   (not for CUMSUM/CUMPROD); where an output would reduce nothing, the
 *   identity (or initial) is used, and NCL_ERR_INVALID_ARGUMENT is returned
 *   for min/max without initial and for argmin/argmax, as NumPy refuses
 *   them (so is a reduction of zero elements by those ops).
 *
 * ARGMIN/ARGMAX take one axis (NULL = the flattened array) and give the
 * first index of the extreme; CUMSUM/CUMPROD take one axis (NULL = the
 * flattened array) and keep the shape. NaN propagates through min/max
 * (the first NaN wins in argmin/argmax).
 *
 * STD and VAR (NumPy's _var): the mean is the sum of the selected elements
 * divided by their count n, then the squared differences from it are
 * summed and divided by n - params->ddof (ddof may be negative); STD is
 * the square root of that. Everything is computed in the result dtype:
 * dtype= if given (a float dtype, else NCL_ERR_DTYPE), else the input's
 * float dtype, float64 for bool and integers; the input is cast to it
 * first (so with a dtype= narrower than the input the differences are
 * taken in dtype=, where NumPy takes them in the input's dtype). Both sums
 * follow the reduction tree below, so a result is NumPy's bits wherever
 * the sums agree, and layout and thread independent. where= selects the
 * elements (n counts them); initial= is refused. A divisor n - ddof <= 0
 * for any output (ddof >= n, an empty reduction, a mask selecting too
 * few) is NCL_ERR_INVALID_ARGUMENT, where NumPy warns and gives inf or
 * NaN; nothing is written.
 *
 * The nan-aware ops treat NaN as absent. On bool and integer inputs they
 * are exactly their plain op (dtypes, values, refusals). On floats, with
 * the plain op's parameters and result dtypes:
 * - NANSUM, NANCUMSUM count a NaN as +0.0, NANPROD, NANCUMPROD as 1 (an
 *   all-NaN sum is +0.0, a product 1), as NumPy replaces them; NANSUM and
 *   NANPROD take initial=, the accumulations no where=;
 * - NANMEAN is the sum of the non-NaN elements over their count; an
 *   all-NaN output is NaN (0/0) and raises NCL_FPE_INVALID, as MEAN of
 *   an empty selection does (NumPy's RuntimeWarning);
 * - NANMIN, NANMAX: the extreme of the non-NaN elements; an all-NaN
 *   output is NaN and raises NCL_FPE_INVALID (initial= given: initial);
 *   a where= selecting nothing for an output without initial= is refused
 *   as for MIN/MAX;
 * - NANARGMIN, NANARGMAX: as NumPy, a NaN counts as +inf (-inf for
 *   NANARGMAX), so the index of the first extreme, which is a NaN's only
 *   when an infinity ties with it first; an output whose selected
 *   elements are all NaN is NCL_ERR_INVALID_ARGUMENT (NumPy's
 *   ValueError), nothing written;
 * - NANSTD, NANVAR: STD/VAR of the non-NaN elements, n their count per
 *   output (a slice with n - ddof <= 0, all-NaN ones included, refuses the
 *   call as above).
 * Float sums, products and means are bitwise identical for any memory
 * layout of a and any thread count, and at least as accurate as pairwise
 * summation.
 *
 * @param op      the reduction.
 * @param a       the array reduced.
 * @param out     `*out` NULL: receives a new array of the result's shape
 *                (reference count 1); else the array the result is written
 *                into, which must have exactly that shape and a dtype the
 *                result casts to under params->casting.
 * @param params  NULL, or the options (axes, naxes, keepdims, dtype,
 *                casting, initial, where; ddof for STD, VAR, NANSTD and
 *                NANVAR, read by no other op).
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  op out of range; a or out NULL; params
 *         malformed (size, dtype, casting); initial for an op that does not
 *         take it; where for CUMSUM/CUMPROD; a provided output that overlaps
 *         itself; an empty reduction (or a mask selecting nothing for some
 *         output) of MIN/MAX/NANMIN/NANMAX without initial or of
 *         ARGMIN/ARGMAX/NANARGMIN/NANARGMAX; an all-NaN output of
 *         NANARGMIN/NANARGMAX; a count - ddof <= 0 for some output of STD,
 *         VAR, NANSTD or NANVAR.
 * @retval NCL_ERR_AXIS  naxes outside 0..NCL_MAXDIMS or above a's ndim; an
 *         axis out of range or repeated; ARGMIN, ARGMAX, CUMSUM or CUMPROD
 *         (or their nan-aware forms) given other than one axis.
 * @retval NCL_ERR_BROADCAST  the where mask does not broadcast to a.
 * @retval NCL_ERR_SHAPE  a provided output of another shape than the
 *         result's.
 * @retval NCL_ERR_DTYPE  no kernel for the dtypes; dtype bool for MEAN,
 *         CUMSUM or CUMPROD; a dtype other than float32/float64 for STD,
 *         VAR, NANSTD or NANVAR; for ANY, ALL, ARGMIN, ARGMAX and COUNT_NONZERO
 *         a dtype other than their fixed result; a where mask that is not
 *         bool.
 * @retval NCL_ERR_CASTING  casting a to dtype, or the result to the
 *         output's dtype, breaks params->casting.
 * @retval NCL_ERR_READONLY  a provided output that is not writeable.
 * @retval NCL_ERR_DEVICE_MEMORY  a, the output or the mask in
 *         NCL_MEM_DEVICE memory.
 * @retval NCL_ERR_FLOATING_POINT  a category raised in NCL_ERRMODE_RAISE.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclReduce(NclReduceOp op, const NclArray *a, NclArray **out, const NclParams *params);

/** The function of a Reduce hook node (NclHook::fn.reduce): NclReduce's
    parameters with the node itself in front. It may handle the call,
    change the arguments, pass the call on with NclReduceNext, or
    post-process what that returns; what it returns is what NclReduce
    returns. */
typedef NclStatus (*NclReduceHookFn)(NclHook *self, NclReduceOp op, const NclArray *a, NclArray **out,
                                  const NclParams *params);
/**
 * Calls the node after self in the Reduce chain with the given arguments.
 * @param self    the calling hook's node.
 * @param op      as NclReduce.
 * @param a       as NclReduce.
 * @param out     as NclReduce.
 * @param params  as NclReduce.
 * @return what the next node returns, or:
 * @retval NCL_ERR_INVALID_ARGUMENT  self is NULL, or an array given
 *         (an input, a non-NULL *out, params->where) is not an array
 *         (ncl/array.h).
 * @retval NCL_ERR_HOOK  self is the default implementation, which nothing
 *                       follows.
 */
NCL_API NclStatus NclReduceNext(NclHook *self, NclReduceOp op, const NclArray *a, NclArray **out,
                             const NclParams *params);

/**
 * The last step of the float SUM and PROD reduction tree (see "Kernel ABI
 * of the Reduce chains"), for hooks that cut one reduction across places
 * (processes, devices) and must give the bits one call gives: each place
 * reduces whole chunks of the sequence, and this combines the chunk values
 * in the tree's order. Row j of values holds K chunk values of one
 * sequence in order: value c is what NclReduce (op, with the dtype of
 * values as its dtype) gives for the sequence's elements c *
 * NCL_REDUCE_CHUNK up to (c + 1) * NCL_REDUCE_CHUNK (the last chunk may be
 * shorter). The result is then what NclReduce gives for the whole
 * sequence, without initial= (the caller combines that with the result).
 *
 * @param op      NCL_SUM or NCL_PROD.
 * @param values  float32 or float64, ndim >= 1, any strides: the chunk
 *                values along the last axis, K = its extent >= 1.
 * @param out     `*out` NULL: receives a new array of the leading shape
 *                (values' shape without its last axis) and values' dtype;
 *                else an array of exactly that shape and dtype, written.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  op not SUM or PROD, values or out
 *         NULL, values 0-d or with no chunk (K = 0), or a provided output
 *         of another shape or dtype, or not writeable.
 * @retval NCL_ERR_DTYPE  values neither float32 nor float64.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclReduceChunks(NclReduceOp op, const NclArray *values, NclArray **out);
/**
 * NclReduceChunks with the low parts of compensated sums and runs of
 * chunks, so that the tree can be cut at its aligned power-of-two subtrees
 * as well as at its chunks. The tree over K chunks is a binary counter: a
 * run of 2^m chunks that starts at a multiple of 2^m is one of its
 * subtrees. A place that holds chunks [k0, k1) cuts them greedily into
 * such runs (at most about 2 log2 K of them), combines each run's chunk
 * values here (lo and runs NULL: one value and its low part a run), and
 * the runs of all places, in order, combined here again with their low
 * parts and their lengths, give the bits of the whole: a place sends a
 * few pairs instead of one value per chunk. Products have no low parts.
 *
 * @param op      NCL_SUM or NCL_PROD.
 * @param values  as NclReduceChunks: chunk values, or runs' values, along
 *                the last axis.
 * @param lo      NULL (every low part 0, as for chunk values), or the low
 *                parts of values (SUM only), of values' shape and dtype.
 * @param runs    NULL (every value one chunk, or every value one run of
 *                the same length), or int64 of shape (K,): how many chunks
 *                each value covers, each a power of two, each run starting
 *                (the runs before it added up) at a multiple of its length.
 * @param out     as NclReduceChunks.
 * @param lo_out  NULL, or (SUM only) `*lo_out` NULL receives a new array of
 *                the results' low parts, of out's shape and dtype; else an
 *                array of exactly that shape and dtype, written.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  as NclReduceChunks; lo of another shape
 *         or dtype than values; lo or lo_out with NCL_PROD; runs not int64
 *         of shape (K,), or a run that is not a power of two or does not
 *         start at a multiple of its length; a provided *lo_out of another
 *         shape or dtype, or not writeable.
 * @retval NCL_ERR_DTYPE  values neither float32 nor float64.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclReduceChunksLo(NclReduceOp op, const NclArray *values, const NclArray *lo,
                                    const NclArray *runs, NclArray **out, NclArray **lo_out);

/** @} */

/**
 * @defgroup ncl_reduce_kernels Kernel ABI of the Reduce chains
 * @ingroup ncl_reduce
 * @brief What a level-2 Reduce kernel receives and must compute, and the
 * reduction tree that keeps float results layout independent.

   Level-2 chains are keyed (NCL_SUBSYSTEM_REDUCE, op, {in, out}): in is the
   dtype a kernel reads, out the dtype it writes (for SUM and PROD its
   accumulator). A call reduces aux->count independent sequences of n
   elements each (n >= 0):
   @verbatim
     args[0]   first element of sequence 0; element i of sequence k is at
               args[0] + k * aux->in_outer + i * steps[0];
     args[1]   where the results go (below);
     steps[0]  byte step between consecutive elements of a sequence;
     steps[1]  reductions: byte step between the results of consecutive
               sequences; CUMSUM/CUMPROD: byte step between consecutive
               results of one sequence;
     ctx->aux  an NclReduceAux, never NULL.
   @endverbatim
   Steps may have any sign; inputs may be misaligned.

   Results, per op:
   @verbatim
     SUM, PROD      {T, int64} for bool and signed T, {T, uint64} for
                    unsigned T, {T, T} for float T, {T, float64} for every T
                    (SUM only): the sum/product (integers wrap modulo 2**64).
                    n == 0 gives 0 (+0.0) or 1. Float results follow the
                    reduction tree below exactly.
     MIN, MAX       {T, T}: NaN if any element is NaN (the first NaN in the
                    sequence, bit for bit); otherwise the extreme value, and
                    among extremes that compare equal (-0.0 and +0.0) the
                    last in the sequence. n == 0 gives the identity (+inf /
                    -inf, or the integer limits).
     ANY, ALL       {T, bool}: whether any/all elements are non-zero (NaN is
                    non-zero). n == 0 gives false / true.
     ARGMIN, ARGMAX {T, int64}: the index of the first extreme (of the first
                    NaN if any). n == 0 gives 0.
     COUNT_NONZERO  {T, int64}: how many elements are non-zero.
     CUMSUM, CUMPROD {T, int64 / uint64 / T} as SUM: result i of sequence k,
                    at args[1] + k * aux->out_outer + i * steps[1], is the
                    running sum/product of elements 0..i, computed
                    sequentially and starting from *aux->initial when that
                    is not NULL (one element of the out dtype), else from
                    element 0.
     NANSUM, NANPROD, NANCUMSUM, NANCUMPROD
                    {T, T} for float T: as SUM, PROD, CUMSUM, CUMPROD with
                    each NaN read as +0.0 (sums) or 1 (products), in the
                    same tree.
     NANMIN, NANMAX {T, T} for float T: the extreme of the elements that
                    are not NaN (among equal extremes the last, as MIN);
                    NaN (the first, bit for bit) when all n >= 1 are NaN;
                    n == 0 gives the identity.
     NANARGMIN, NANARGMAX
                    {T, int64} for float T: the first index of the extreme
                    with each NaN read as +inf (-inf for NANARGMAX); 0 for
                    an all-NaN sequence, which the caller tells apart.
   @endverbatim
   MEAN has no chains of its own: it runs the SUM kernels with a float64
   accumulator (or an integer one for an integer dtype=) and divides.
   Neither have STD and VAR (the float SUM kernels twice: the mean, then
   the squared differences from it) nor NANMEAN, NANSTD and NANVAR (the SUM
   kernels on chunks whose NaNs were replaced and counted). NANSUM, NANPROD,
   NANCUMSUM and NANCUMPROD with where= or a cast, and NANARGMIN/NANARGMAX
   with where= or more than one strided run, use their plain op's kernels
   on such chunks; NANMIN/NANMAX always run their own (a masked-out
   element is passed to them as a NaN).

   The reduction tree of float SUM and PROD, which makes results independent
   of memory layout and thread count: a sequence is cut into chunks of
   NCL_REDUCE_CHUNK elements (the last one shorter), each chunk into blocks
   of NCL_REDUCE_BLOCK elements, and each block into NCL_REDUCE_LANES lanes,
   lane j taking the block's elements j, j + LANES, ... in order, starting
   from the identity (-0.0 for sums, 1 for products). The lane vectors of a
   chunk's blocks, and then the values of the sequence's chunks, are
   combined by the same rule: as a binary counter (each new item is combined
   with the pending item of equal size, earlier on the left, while there is
   one; the pending items are then combined from the right,
   p0 + (p1 + (p2 + ...))). A chunk's lane vector is folded by halving:
   lane j += lane j + h for h = LANES/2, ..., 1; lane 0 is the chunk's value.
   For sums, the lane fold and the combination of chunk values are
   compensated: values there are pairs (hi, lo) of the out dtype added with
   error-free transformations (TwoSum, then a TwoSum renormalisation; an
   exact result keeps the high part as it is, so -0.0 survives), starting
   from (lane, 0) and (chunk value, 0); a chunk's value and the result are
   the high part. An addition whose operands' high parts are not both
   finite and at most the dtype's largest value / 64 is plain and gives a
   zero low part. Everything depends on n and the values only. Consequences
   that callers rely on: the result of n <= NCL_REDUCE_CHUNK elements is the
   chunk's value; a sequence of c > 1 chunks is its first 2^a chunks
   combined with the rest, 2^a being the largest power of two below c (so
   a thread pool can split one long reduction without changing a bit, using
   aux->lo); and a kernel called on the two elements {u, v} returns u
   combined with v, plainly. A kernel hook must keep this tree for results
   to stay layout independent.
 * @{
 */
/** Lanes of a block in the float SUM/PROD reduction tree. */
#define NCL_REDUCE_LANES 16
/** Elements of a block in the float SUM/PROD reduction tree. */
#define NCL_REDUCE_BLOCK 128
/** Elements of a chunk in the float SUM/PROD reduction tree. */
#define NCL_REDUCE_CHUNK 1024

/** What a Reduce kernel receives in NclKernelCtx::aux (never NULL there);
    owned by the call, valid during the kernel call only. */
typedef struct NclReduceAux {
    int64_t count;       ///< Sequences in this call, >= 1.
    int64_t in_outer;    ///< Input byte step from one sequence to the next.
    int64_t out_outer;   ///< CUMSUM/CUMPROD: output byte step between sequences.
    const void *initial; ///< CUMSUM/CUMPROD: running value to continue from, or NULL.
    /** SUM into a float dtype: NULL, or where the low parts of the
        compensated results go (same steps as the results). */
    void *lo;
} NclReduceAux;

/** @} */

NCL_END_DECLS

#endif /* NCL_REDUCE_H */
