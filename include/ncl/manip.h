/**
 * @file
 * @brief The Manip subsystem: joining, repeating, reversing and
 * differencing arrays (concatenate, stack, repeat, tile, flip, diff).
 *
 * @defgroup ncl_manip Manip
 * @ingroup ncl_subsystems
 * @brief NumPy's concatenate, stack, repeat, tile, flip and diff, each
 * giving a new array.
 * @{
 */
#ifndef NCL_MANIP_H
#define NCL_MANIP_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "dtype.h"
#include "array.h"
#include "params.h"
#include "list.h"

NCL_BEGIN_DECLS

/** X-macro list of the Manip ops, `X(name, text)` in enum order, text
    NumPy's name of the function. @hideinitializer */
#define NCL_MANIP_OP_LIST(X)                                                          \
    /** The nin inputs joined along params->axes[0], or flattened and joined  \
        when axes is NULL (numpy.concatenate). */                             \
    X(NCL_CONCATENATE, "concatenate")                                         \
    /** The nin inputs, of one shape, joined along a new axis                 \
        (numpy.stack). */                                                     \
    X(NCL_STACK, "stack")                                                     \
    /** Each element repeated params->repeats times along an axis, or in     \
        the flattened array (numpy.repeat). */                                \
    X(NCL_REPEAT, "repeat")                                                   \
    /** The array repeated params->repeats times along each axis             \
        (numpy.tile). */                                                      \
    X(NCL_TILE, "tile")                                                       \
    /** The elements in reverse order along the given axes (numpy.flip; a    \
        new array, where NumPy returns a view). */                            \
    X(NCL_FLIP, "flip")                                                       \
    /** The n-th discrete difference along an axis (numpy.diff). */          \
    X(NCL_DIFF, "diff")

/** The Manip ops, from NCL_MANIP_OP_LIST, numbered from 0. */
typedef enum NclManipOp {
#define NCL_X_(name, text) name,
    NCL_MANIP_OP_LIST(NCL_X_)
#undef NCL_X_
    NCL_MANIP_NOPS ///< How many ops there are; not an op.
} NclManipOp;

/**
 * Builds a new array from the nin arrays in `in`, as NumPy 1.24's function
 * of the op's name does. Every result is a new array (or the provided
 * output); none is a view of an input.
 *
 * - NCL_CONCATENATE: nin >= 1. params->axes: one axis (naxes 1; negative
 *   counts from the end), along which the inputs are joined; every input
 *   has in[0]'s number of dimensions (at least 1) and its extents off the
 *   axis. axes NULL: each input is flattened in C order and the results
 *   joined (NumPy's axis=None; 0-d inputs allowed). The result dtype is
 *   params->dtype, or the promotion of the inputs' dtypes (np.result_type
 *   of arrays); each input is cast to the result (or to a provided output's
 *   dtype) under params->casting. params->dtype and a provided output
 *   together are refused, as NumPy refuses dtype= with out=.
 * - NCL_STACK: nin >= 1 inputs of one shape, joined along a new axis
 *   params->axes[0] of the result (default 0; -(ndim+1) .. ndim); dtype and
 *   casting as CONCATENATE.
 * - NCL_REPEAT: nin = 1. params->repeats holds params->nrepeats counts:
 *   one for every element, or one per element along the axis; counts are
 *   >= 0. Axis params->axes[0], or axes NULL: the flattened array.
 * - NCL_TILE: nin = 1. params->repeats are NumPy's reps (nrepeats >= 0
 *   counts, each >= 0; repeats may be NULL when nrepeats is 0): the shorter
 *   of reps and a's shape is prepended with 1s, and the result's extents
 *   are their products.
 * - NCL_FLIP: nin = 1. Reverses the axes params->axes (any number, each at
 *   most once; NULL: every axis). The result is a new array holding the
 *   flipped elements, not a view.
 * - NCL_DIFF: nin = 1, 2 or 3: in[0] the array (at least 1-D), in[1] NumPy's
 *   prepend and in[2] its append, each NULL when not given (a 0-d one is
 *   broadcast to a's shape with extent 1 along the axis; otherwise it
 *   needs a's extents off the axis), joined to a as CONCATENATE joins
 *   before differences are taken. params->n differences are taken
 *   (default 1; 0 gives a copy) along params->axes[0] (NULL: the last
 *   axis), each computed by the Binary kernels of subtract (the Compare
 *   kernels of not_equal for bool), so the dtype rules and integer
 *   wraparound are NumPy's and a float's difference raises its FP flags
 *   (inf - inf is invalid).
 *
 * The result dtype of REPEAT, TILE and FLIP is in[0]'s, of DIFF the
 * subtract loop's; params->dtype, if given for these, must be that dtype.
 * Everything is checked before anything is written: a refused call leaves
 * a provided output untouched.
 *
 * @param op      the operation.
 * @param nin     how many arrays `in` holds (see each op).
 * @param in      the input arrays; in[i] may be NULL only for DIFF's
 *                prepend and append.
 * @param out     `*out` NULL: receives a new C-contiguous array (reference
 *                count 1); else the array the result is written into, of
 *                exactly the result's shape and a dtype the result casts to
 *                under params->casting (it may overlap any input).
 * @param params  NULL, or the options (axes, naxes, dtype, casting,
 *                repeats, nrepeats, n); a where mask is refused.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  op out of range; nin out of the op's
 *         range; in, a required in[i] or out NULL; params malformed (size,
 *         dtype, casting); a where mask; repeats missing, of the wrong
 *         count or negative; n negative; dtype with a provided output
 *         (CONCATENATE, STACK); a provided output that overlaps itself.
 * @retval NCL_ERR_AXIS  an axis out of range, naxes other than 1 where one
 *         axis is taken, a repeated FLIP axis, an axis of a 0-d array.
 * @retval NCL_ERR_SHAPE  inputs that do not join (number of dimensions or
 *         an extent off the axis differs, a 0-d input with an axis, STACK's
 *         shapes differ; the message names the input's index), a result
 *         too large, DIFF of a 0-d array, a provided output of another
 *         shape.
 * @retval NCL_ERR_DTYPE  params->dtype other than the result's (REPEAT,
 *         TILE, FLIP, DIFF).
 * @retval NCL_ERR_CASTING  an input that does not cast to the result
 *         dtype, or the result to a provided output's dtype, under
 *         params->casting.
 * @retval NCL_ERR_READONLY  a provided output that is not writeable.
 * @retval NCL_ERR_DEVICE_MEMORY  an input or the output in NCL_MEM_DEVICE
 *         memory.
 * @retval NCL_ERR_FLOATING_POINT  a category a kernel raised, in
 *         NCL_ERRMODE_RAISE.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclManip(NclManipOp op, int nin, const NclArray *const *in, NclArray **out,
                           const NclParams *params);

/** The function of a Manip hook node (NclHook::fn.manip): NclManip's
    parameters with the node itself in front. It may handle the call,
    change the arguments, pass the call on with NclManipNext, or
    post-process what that returns; what it returns is what NclManip
    returns. */
typedef NclStatus (*NclManipHookFn)(NclHook *self, NclManipOp op, int nin,
                                   const NclArray *const *in, NclArray **out,
                                   const NclParams *params);
/**
 * Calls the node after self in the Manip chain with the given arguments.
 * @param self    the calling hook's node.
 * @param op      as NclManip.
 * @param nin     as NclManip.
 * @param in      as NclManip.
 * @param out     as NclManip.
 * @param params  as NclManip.
 * @return what the next node returns, or:
 * @retval NCL_ERR_INVALID_ARGUMENT  self is NULL, or an array given
 *         (an input, a non-NULL *out, params->where) is not an array
 *         (ncl/array.h).
 * @retval NCL_ERR_HOOK  self is the default implementation, which nothing
 *                       follows.
 */
NCL_API NclStatus NclManipNext(NclHook *self, NclManipOp op, int nin, const NclArray *const *in,
                               NclArray **out, const NclParams *params);

NCL_END_DECLS

/** @} */

#endif /* NCL_MANIP_H */
