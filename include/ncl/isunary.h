/**
 * @file
 * @brief The IsUnary subsystem: element predicates that always give bool.
 *
 * @defgroup ncl_isunary IsUnary
 * @ingroup ncl_subsystems
 * @brief Element predicates (isnan, isinf, isfinite, signbit), always bool.
 * @{
 */
#ifndef NCL_ISUNARY_H
#define NCL_ISUNARY_H

#include "export.h"
#include "status.h"
#include "dtype.h"
#include "array.h"
#include "params.h"
#include "list.h"

NCL_BEGIN_DECLS

/** X-macro list of the IsUnary ops, `X(name, text)` in enum order, text
    NumPy's name of the ufunc. @hideinitializer */
#define NCL_ISUNARY_OP_LIST(X)                                   \
    /** Whether the element is NaN. */                           \
    X(NCL_IS_NAN, "isnan")                                       \
    /** Whether the element is +inf or -inf. */                  \
    X(NCL_IS_INF, "isinf")                                       \
    /** Whether the element is neither NaN nor infinite. */      \
    X(NCL_IS_FINITE, "isfinite")                                 \
    /** Whether the sign bit is set (-0.0 and -NaN included). */ \
    X(NCL_SIGNBIT, "signbit")

/** The IsUnary ops, from NCL_ISUNARY_OP_LIST, numbered from 0. */
typedef enum NclIsUnaryOp {
#define NCL_X_(name, text) name,
    NCL_ISUNARY_OP_LIST(NCL_X_)
#undef NCL_X_
    NCL_ISUNARY_NOPS ///< How many ops there are; not an op.
} NclIsUnaryOp;

/**
 * The predicate of each element of a, as a bool array. Integers and bools
 * are never NaN or infinite; SIGNBIT reads integers through a float loop,
 * as NumPy does. A dtype in params other than bool or NCL_DTYPE_DEFAULT is
 * refused (NCL_ERR_DTYPE); a provided `*out` of another dtype receives the
 * bool result under casting.
 *
 * @param op      the predicate.
 * @param a       the operand.
 * @param out     `*out` NULL: receives a new bool array of a's shape
 *                (reference count 1); else the array the result is written
 *                into (@ref ncl_subsystems).
 * @param params  NULL, or the options (where, dtype, casting).
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  op out of range; a or out NULL; params
 *         malformed (size, dtype, casting); a provided output that
 *         overlaps itself.
 * @retval NCL_ERR_BROADCAST  the where mask and the output do not
 *         broadcast.
 * @retval NCL_ERR_SHAPE  a provided output whose shape a does not
 *         broadcast to.
 * @retval NCL_ERR_DTYPE  params->dtype other than bool, or a where mask
 *         that is not bool.
 * @retval NCL_ERR_CASTING  casting a to the loop dtype, or bool to the
 *         output's dtype, breaks params->casting.
 * @retval NCL_ERR_READONLY  a provided output that is not writeable.
 * @retval NCL_ERR_DEVICE_MEMORY  a, the output or the mask in
 *         NCL_MEM_DEVICE memory.
 * @retval NCL_ERR_FLOATING_POINT  a category raised in NCL_ERRMODE_RAISE.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclIsUnary(NclIsUnaryOp op, const NclArray *a, NclArray **out, const NclParams *params);

/** The function of an IsUnary hook node (NclHook::fn.isunary): NclIsUnary's
    parameters with the node itself in front. It may handle the call,
    change the arguments, pass the call on with NclIsUnaryNext, or
    post-process what that returns; what it returns is what NclIsUnary
    returns. */
typedef NclStatus (*NclIsUnaryHookFn)(NclHook *self, NclIsUnaryOp op, const NclArray *a, NclArray **out,
                                  const NclParams *params);
/**
 * Calls the node after self in the IsUnary chain with the given arguments.
 * @param self    the calling hook's node.
 * @param op      as NclIsUnary.
 * @param a       as NclIsUnary.
 * @param out     as NclIsUnary.
 * @param params  as NclIsUnary.
 * @return what the next node returns, or:
 * @retval NCL_ERR_INVALID_ARGUMENT  self is NULL, or an array given
 *         (an input, a non-NULL *out, params->where) is not an array
 *         (ncl/array.h).
 * @retval NCL_ERR_HOOK  self is the default implementation, which nothing
 *                       follows.
 */
NCL_API NclStatus NclIsUnaryNext(NclHook *self, NclIsUnaryOp op, const NclArray *a, NclArray **out,
                             const NclParams *params);

NCL_END_DECLS

/** @} */

#endif /* NCL_ISUNARY_H */
