/**
 * @file
 * @brief The Ternary subsystem: elementwise functions of three broadcast
 * operands.
 *
 * @defgroup ncl_ternary Ternary
 * @ingroup ncl_subsystems
 * @brief Elementwise functions of three broadcast operands: where, clip,
 * fma.
 * @{
 */
#ifndef NCL_TERNARY_H
#define NCL_TERNARY_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "dtype.h"
#include "array.h"
#include "params.h"
#include "list.h"

NCL_BEGIN_DECLS

/** X-macro list of the Ternary ops, `X(name, text)` in enum order, text
    NumPy's name of the function. @hideinitializer */
#define NCL_TERNARY_OP_LIST(X)                   \
    /** a ? b : c (numpy.where). */              \
    X(NCL_WHERE, "where")                        \
    /** a clipped to [b, c] (numpy.clip). */     \
    X(NCL_CLIP, "clip")                          \
    /** a * b + c, rounded once (C fma). */      \
    X(NCL_FMA, "fma")

/** The Ternary ops, from NCL_TERNARY_OP_LIST, numbered from 0. */
typedef enum NclTernaryOp {
#define NCL_X_(name, text) name,
    NCL_TERNARY_OP_LIST(NCL_X_)
#undef NCL_X_
    NCL_TERNARY_NOPS ///< How many ops there are; not an op.
} NclTernaryOp;

/**
 * The elementwise function op of a, b and c, broadcast together, with the
 * call shape of every subsystem (out, where=, dtype, casting).
 *
 * - WHERE: a ? b : c. a of any dtype is read as truth (non-zero; NaN is
 *   true, and no casting rule applies to it); the result dtype is
 *   NclPromoteTypes(b, c).
 * - CLIP: a clipped to [b, c] as numpy.clip: min(max(a, b), c), NaN in any
 *   operand propagates; the loop dtype is NumPy's resolution of the three.
 * - FMA: a * b + c rounded once (C fma), float32 or float64 loops (integer
 *   operands resolve to a float loop as for the Unary float functions).
 *
 * @param op      the function.
 * @param a       the first operand (WHERE: the condition).
 * @param b       the second operand.
 * @param c       the third operand.
 * @param out     `*out` NULL: receives a new array of the broadcast shape
 *                (reference count 1); else the array the result is written
 *                into (@ref ncl_subsystems).
 * @param params  NULL, or the options (where, dtype, casting).
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  op out of range; a, b, c or out NULL;
 *         params malformed (size, dtype, casting); a provided output that
 *         overlaps itself.
 * @retval NCL_ERR_BROADCAST  a, b and c, or the where mask and the output,
 *         do not broadcast.
 * @retval NCL_ERR_SHAPE  a provided output whose shape the operands do not
 *         broadcast to, or a broadcast shape int64 cannot count.
 * @retval NCL_ERR_DTYPE  op has no loop for these dtypes (or for
 *         params->dtype), or a where mask that is not bool.
 * @retval NCL_ERR_CASTING  casting an operand to the loop dtype, or the
 *         result to the output's dtype, breaks params->casting.
 * @retval NCL_ERR_READONLY  a provided output that is not writeable.
 * @retval NCL_ERR_DEVICE_MEMORY  an operand, the output or the mask in
 *         NCL_MEM_DEVICE memory.
 * @retval NCL_ERR_FLOATING_POINT  a category raised in NCL_ERRMODE_RAISE.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclTernary(NclTernaryOp op, const NclArray *a, const NclArray *b, const NclArray *c, NclArray **out, const NclParams *params);

/** The function of a Ternary hook node (NclHook::fn.ternary): NclTernary's
    parameters with the node itself in front. It may handle the call,
    change the arguments, pass the call on with NclTernaryNext, or
    post-process what that returns; what it returns is what NclTernary
    returns. */
typedef NclStatus (*NclTernaryHookFn)(NclHook *self, NclTernaryOp op, const NclArray *a, const NclArray *b, const NclArray *c, NclArray **out,
                                  const NclParams *params);
/**
 * Calls the node after self in the Ternary chain with the given arguments.
 * @param self    the calling hook's node.
 * @param op      as NclTernary.
 * @param a       as NclTernary.
 * @param b       as NclTernary.
 * @param c       as NclTernary.
 * @param out     as NclTernary.
 * @param params  as NclTernary.
 * @return what the next node returns, or:
 * @retval NCL_ERR_INVALID_ARGUMENT  self is NULL, or an array given
 *         (an input, a non-NULL *out, params->where) is not an array
 *         (ncl/array.h).
 * @retval NCL_ERR_HOOK  self is the default implementation, which nothing
 *                       follows.
 */
NCL_API NclStatus NclTernaryNext(NclHook *self, NclTernaryOp op, const NclArray *a, const NclArray *b, const NclArray *c, NclArray **out,
                             const NclParams *params);

NCL_END_DECLS

/** @} */

#endif /* NCL_TERNARY_H */
