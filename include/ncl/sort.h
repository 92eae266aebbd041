/**
 * @file
 * @brief The Sort subsystem: sorting, argsort and partitioning along one
 * axis.
 *
 * @defgroup ncl_sort Sort
 * @ingroup ncl_subsystems
 * @brief Sorting, argsort, partition and argpartition along one axis.
 * @{
 */
#ifndef NCL_SORT_H
#define NCL_SORT_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "dtype.h"
#include "array.h"
#include "params.h"
#include "list.h"

NCL_BEGIN_DECLS

/** X-macro list of the Sort ops, `X(name, text)` in enum order, text
    NumPy's name of the function. @hideinitializer */
#define NCL_SORT_OP_LIST(X)                                                       \
    /** a sorted along the axis (numpy.sort). */                                  \
    X(NCL_SORT, "sort")                                                           \
    /** The int64 indices that sort a along the axis (numpy.argsort). */          \
    X(NCL_ARGSORT, "argsort")                                                     \
    /** a with the element of rank kth in its sorted place (numpy.partition). */  \
    X(NCL_PARTITION, "partition")                                                 \
    /** The int64 indices that partition a (numpy.argpartition). */               \
    X(NCL_ARGPARTITION, "argpartition")                                           \
    /** The sorted distinct values of a, flattened (numpy.unique_values).         \
        One output. */                                                            \
    X(NCL_UNIQUE_VALUES, "unique_values")                                         \
    /** Two outputs (NclSortN): the distinct values and their int64 counts        \
        (numpy.unique_counts). */                                                 \
    X(NCL_UNIQUE_COUNTS, "unique_counts")                                         \
    /** Two outputs (NclSortN): the distinct values and the int64 inverse, of     \
        a's shape (numpy.unique_inverse). */                                      \
    X(NCL_UNIQUE_INVERSE, "unique_inverse")                                       \
    /** Four outputs (NclSortN): values, first indices, inverse and counts        \
        (numpy.unique_all). */                                                    \
    X(NCL_UNIQUE_ALL, "unique_all")

/** The sort kinds of NclParams::kind. */
enum {
    NCL_SORT_DEFAULT = 0, ///< The fastest sort; equal elements may change order.
    NCL_SORT_STABLE = 1   ///< A stable sort: equal elements keep their order.
};

/** The Sort ops, from NCL_SORT_OP_LIST, numbered from 0. */
typedef enum NclSortOp {
#define NCL_X_(name, text) name,
    NCL_SORT_OP_LIST(NCL_X_)
#undef NCL_X_
    NCL_SORT_NOPS ///< How many ops there are; not an op.
} NclSortOp;

/**
 * Sorts a along params->axes[0] (NULL = the last axis; negative counts from
 * the end; naxes must be 1 when axes is given). SORT and PARTITION give an
 * array of a's shape and dtype; ARGSORT and ARGPARTITION give int64
 * indices along the axis. NaNs sort last (after +inf); -0.0 and 0.0 are
 * equal. params->kind NCL_SORT_STABLE keeps equal elements in their order
 * (the default may not). PARTITION/ARGPARTITION place the element of rank
 * params->kth (negative counts from the end; out of range is
 * NCL_ERR_INDEX) where a sort would put it, with no larger element before
 * it and no smaller element after. A provided `*out` must have a's shape
 * and the result dtype. The unique ops are described at NclSortN; NclSort
 * takes UNIQUE_VALUES (one output) and refuses the others.
 *
 * @param op      the operation.
 * @param a       the array, at least 1-D.
 * @param out     `*out` NULL: receives a new array (reference count 1);
 *                else the array the result is written into.
 * @param params  NULL, or the options (axes, naxes, kind, kth, dtype); a
 *                where mask is refused.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  op out of range, or an op of more
 *         than one output (call NclSortN); a or out NULL; params malformed
 *         (size, dtype, casting); kind not a sort kind; a where mask; a
 *         provided output that overlaps itself.
 * @retval NCL_ERR_AXIS  axes given with naxes other than 1, or an axis out
 *         of range (a 0-d array has none).
 * @retval NCL_ERR_INDEX  PARTITION/ARGPARTITION: kth out of range.
 * @retval NCL_ERR_SHAPE  a provided output of another shape than a's.
 * @retval NCL_ERR_DTYPE  params->dtype, or a provided output's dtype, other
 *         than the result's; no kernel for a's dtype.
 * @retval NCL_ERR_READONLY  a provided output that is not writeable.
 * @retval NCL_ERR_DEVICE_MEMORY  a or the output in NCL_MEM_DEVICE memory.
 * @retval NCL_ERR_FLOATING_POINT  a category a kernel raised, in
 *         NCL_ERRMODE_RAISE.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclSort(NclSortOp op, const NclArray *a, NclArray **out, const NclParams *params);

/**
 * NclSort for an op of any number of outputs (NclOpOutputs): the unique
 * ops, NumPy's np.unique(a) with axis=None (NumPy 2's unique_values,
 * unique_counts, unique_inverse, unique_all). a, of any shape, is read in
 * C order; the values are its distinct elements, ascending, in a's dtype:
 * NaNs last and all of them one value, -0.0 and 0.0 one value. The
 * outputs, in slot order:
 * - UNIQUE_VALUES (1): values, 1-D of length k.
 * - UNIQUE_COUNTS (2): values; counts, int64 (k,): how many elements of a
 *   equal each value.
 * - UNIQUE_INVERSE (2): values; inverse, int64 of a's shape (as NumPy 2;
 *   NumPy 1.24 gives it flattened): values[inverse] == a.
 * - UNIQUE_ALL (4): values; indices, int64 (k,): the flat C-order index of
 *   each value's first occurrence; inverse; counts.
 *
 * Which of -0.0 and 0.0 (or which NaN) stands for its class: every op
 * gives the element at its first occurrence in a, as NumPy's stable path
 * does (return_index; values == a.flat[indices], bit for bit) and as its
 * default path does for short arrays (longer ones it leaves to its
 * unstable sort).
 *
 * `out` points to nout slots, each meaning what NclSort's `*out` means:
 * NULL receives a new array, an array is written into and must have
 * exactly the output's shape and dtype (k is known only once a is sorted:
 * a provided output of another length is refused with nothing written),
 * be writeable and overlap neither a nor another output. On failure every
 * slot holds what it held and nothing is written. The Sort chain's hooks
 * get this `out` as it is. params->kind, axes and kth are not used;
 * params->dtype, if given, must be a's (the values' dtype).
 *
 * @param op      NCL_UNIQUE_VALUES, NCL_UNIQUE_COUNTS, NCL_UNIQUE_INVERSE or
 *                NCL_UNIQUE_ALL (or any Sort op of one output, as NclSort).
 * @param a       the array, any shape (0-d is one element).
 * @param nout    the number of slots at out: NclOpOutputs(NCL_SUBSYSTEM_SORT, op).
 * @param out     nout output slots.
 * @param params  NULL, or the options (dtype); a where mask is refused.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  as NclSort; also nout not the op's
 *         number of outputs, or a provided output that overlaps a or
 *         another output.
 * @retval NCL_ERR_SHAPE  a provided output of another shape than its
 *         result.
 * @retval NCL_ERR_DTYPE  a provided output of another dtype than its
 *         result; params->dtype not a's.
 * Every other status as NclSort, for any of the outputs.
 */
NCL_API NclStatus NclSortN(NclSortOp op, const NclArray *a, int nout, NclArray **out,
                           const NclParams *params);

/** The function of a Sort hook node (NclHook::fn.sort): NclSort's
    parameters with the node itself in front. It may handle the call,
    change the arguments, pass the call on with NclSortNext, or
    post-process what that returns; what it returns is what NclSort
    returns. */
typedef NclStatus (*NclSortHookFn)(NclHook *self, NclSortOp op, const NclArray *a, NclArray **out,
                                  const NclParams *params);
/**
 * Calls the node after self in the Sort chain with the given arguments.
 * @param self    the calling hook's node.
 * @param op      as NclSort.
 * @param a       as NclSort.
 * @param out     as NclSort.
 * @param params  as NclSort.
 * @return what the next node returns, or:
 * @retval NCL_ERR_INVALID_ARGUMENT  self is NULL, or an array given
 *         (an input, a non-NULL *out, params->where) is not an array
 *         (ncl/array.h).
 * @retval NCL_ERR_HOOK  self is the default implementation, which nothing
 *                       follows.
 */
NCL_API NclStatus NclSortNext(NclHook *self, NclSortOp op, const NclArray *a, NclArray **out,
                             const NclParams *params);

NCL_END_DECLS

/** @} */

#endif /* NCL_SORT_H */
