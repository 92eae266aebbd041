/**
 * @file
 * @brief The Mask subsystem: boolean-mask compress and put, nonzero, and
 * take.
 *
 * @defgroup ncl_mask Mask
 * @ingroup ncl_subsystems
 * @brief Boolean-mask selection and assignment, nonzero, and take.
 * @{
 */
#ifndef NCL_MASK_H
#define NCL_MASK_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "dtype.h"
#include "array.h"
#include "params.h"
#include "list.h"

NCL_BEGIN_DECLS

/** X-macro list of the Mask ops, `X(name, text)` in enum order, text
    NumPy's name of the function. @hideinitializer */
#define NCL_MASK_OP_LIST(X)                                                      \
    /** a[mask]: the elements where the mask is true, 1-D (numpy.extract). */    \
    X(NCL_MASK_COMPRESS, "compress")                                             \
    /** target[mask] = values, in place (NumPy's boolean assignment). */         \
    X(NCL_MASK_PUT, "put")                                                       \
    /** The int64 indices of the non-zero elements (numpy.nonzero). */           \
    X(NCL_MASK_NONZERO, "nonzero")                                               \
    /** The elements at integer indices along an axis (numpy.take). */           \
    X(NCL_MASK_TAKE, "take")                                                     \
    /** The int64 indices where v's elements would go in the sorted a           \
        (numpy.searchsorted). */                                                 \
    X(NCL_MASK_SEARCHSORTED, "searchsorted")

/** The Mask ops, from NCL_MASK_OP_LIST, numbered from 0. */
typedef enum NclMaskOp {
#define NCL_X_(name, text) name,
    NCL_MASK_OP_LIST(NCL_X_)
#undef NCL_X_
    NCL_MASK_NOPS ///< How many ops there are; not an op.
} NclMaskOp;

/**
 * The Mask ops; nothing is written when a call is refused.
 *
 * - COMPRESS: a the data, b a bool mask of a's shape -> 1-D a[mask] in C
 *   order.
 * - PUT: `*out` is the target, changed in place; a the bool mask (broadcast
 *   to the target); b the values (as many as the mask's true elements, or
 *   one), cast to the target dtype under params->casting -> target[mask] =
 *   values. A count mismatch is NCL_ERR_SHAPE with nothing written.
 * - NONZERO: a any array (truth as non-zero), b NULL -> int64 indices of
 *   shape (ndim, count), C order (one row per axis; 0-d a gives (1,
 *   count)).
 * - TAKE: a the data, b integer indices, along params->axes[0] (NULL = the
 *   flattened array); negative indices count from the end; any index out
 *   of range is NCL_ERR_INDEX with nothing written. The result shape is
 *   a's with the axis replaced by b's shape.
 * - SEARCHSORTED: a a 1-D array in ascending order (NumPy's order: NaN
 *   last, -0.0 equal to 0.0, as NclSort sorts), b the values v of any
 *   shape -> int64 of v's shape: for each v, the number of elements of a
 *   less than it (params->side NCL_SIDE_LEFT, the default) or not greater
 *   (NCL_SIDE_RIGHT), so that inserting v there keeps a sorted. a and v
 *   are compared in their common dtype (NclPromoteTypes, as np.result_type
 *   does). params->sorter, if not NULL, is a 1-D integer array of a's
 *   length whose entries a[sorter] puts in order (numpy's sorter); an
 *   entry out of [0, len(a)) is NCL_ERR_INDEX, another length
 *   NCL_ERR_SHAPE. An a that is not sorted is not detected: the indices
 *   are then unspecified, but lie in [0, len(a)] and nothing outside a is
 *   read.
 *
 * @param op      the operation.
 * @param a       COMPRESS, TAKE: the data; PUT: the mask; NONZERO: the
 *                array.
 * @param b       COMPRESS: the mask; PUT: the values; TAKE: the indices;
 *                NONZERO: NULL; SEARCHSORTED: the values searched for.
 * @param out     PUT: `*out` is the target. Others: `*out` NULL receives a
 *                new array (reference count 1), else the array written
 *                into, which must have the result's shape (and, for
 *                NONZERO and SEARCHSORTED, dtype int64).
 * @param params  NULL, or the options (dtype, casting; TAKE: axes, naxes;
 *                SEARCHSORTED: side, sorter);
 *                a where mask, and axes for another op than TAKE, are
 *                refused.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  op out of range; out or a NULL; b NULL
 *         (COMPRESS, PUT, TAKE, SEARCHSORTED) or not NULL (NONZERO);
 *         params malformed (size, dtype, casting), with a where mask, or
 *         with axes for an op other than TAKE; PUT with `*out` NULL; an
 *         output that overlaps itself; SEARCHSORTED: a side other than
 *         NCL_SIDE_LEFT and NCL_SIDE_RIGHT, a sorter that is not an array.
 * @retval NCL_ERR_DTYPE  a mask that is not bool; TAKE indices that are not
 *         integers; NONZERO or SEARCHSORTED asked for or given an output
 *         other than int64; a SEARCHSORTED sorter that is not integers;
 *         params->dtype different from a provided output's; no kernel for
 *         the dtypes.
 * @retval NCL_ERR_SHAPE  COMPRESS: a mask of another shape than a's; PUT:
 *         a count of values other than the true elements' or one; a
 *         provided output of another shape than the result's; TAKE: a
 *         result of more than NCL_MAXDIMS dimensions or elements int64
 *         cannot count; SEARCHSORTED: an a that is
 *         not 1-D, a sorter that is not 1-D or not of a's length.
 * @retval NCL_ERR_BROADCAST  PUT: the mask does not broadcast to the
 *         target.
 * @retval NCL_ERR_CASTING  the data (COMPRESS, TAKE) or the values (PUT)
 *         do not cast to the output's dtype under params->casting.
 * @retval NCL_ERR_INDEX  TAKE: an index out of range; SEARCHSORTED: a
 *         sorter entry out of range.
 * @retval NCL_ERR_AXIS  TAKE: naxes other than 1, or an axis out of range.
 * @retval NCL_ERR_READONLY  the output or target is not writeable.
 * @retval NCL_ERR_DEVICE_MEMORY  an operand, the output or the target in
 *         NCL_MEM_DEVICE memory.
 * @retval NCL_ERR_HOOK  a user's kernel hook reported a count that
 *         disagrees with the planning pass.
 * @retval NCL_ERR_FLOATING_POINT  a category raised in NCL_ERRMODE_RAISE.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclMask(NclMaskOp op, const NclArray *a, const NclArray *b, NclArray **out, const NclParams *params);

/** The function of a Mask hook node (NclHook::fn.mask): NclMask's
    parameters with the node itself in front. It may handle the call,
    change the arguments, pass the call on with NclMaskNext, or
    post-process what that returns; what it returns is what NclMask
    returns. */
typedef NclStatus (*NclMaskHookFn)(NclHook *self, NclMaskOp op, const NclArray *a, const NclArray *b, NclArray **out,
                                  const NclParams *params);
/**
 * Calls the node after self in the Mask chain with the given arguments.
 * @param self    the calling hook's node.
 * @param op      as NclMask.
 * @param a       as NclMask.
 * @param b       as NclMask.
 * @param out     as NclMask.
 * @param params  as NclMask.
 * @return what the next node returns, or:
 * @retval NCL_ERR_INVALID_ARGUMENT  self is NULL, or an array given
 *         (an input, a non-NULL *out, params->where) is not an array
 *         (ncl/array.h).
 * @retval NCL_ERR_HOOK  self is the default implementation, which nothing
 *                       follows.
 */
NCL_API NclStatus NclMaskNext(NclHook *self, NclMaskOp op, const NclArray *a, const NclArray *b, NclArray **out,
                             const NclParams *params);

NCL_END_DECLS

/** @} */

#endif /* NCL_MASK_H */
