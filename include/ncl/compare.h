/**
 * @file
 * @brief The Compare subsystem: the six comparisons, exact over every mix of
 * signed, unsigned and floating dtypes.
 *
 * @defgroup ncl_compare Compare
 * @ingroup ncl_subsystems
 * @brief The six comparisons, exact over every mix of dtypes, giving bool.
 * @{
 */
#ifndef NCL_COMPARE_H
#define NCL_COMPARE_H

#include "export.h"
#include "status.h"
#include "dtype.h"
#include "array.h"
#include "params.h"
#include "list.h"

NCL_BEGIN_DECLS

/** X-macro list of the Compare ops, `X(name, text)` in enum order, text
    NumPy's name of the ufunc. @hideinitializer */
#define NCL_COMPARE_OP_LIST(X)                   \
    /** a == b. */                               \
    X(NCL_CMP_EQ, "equal")                       \
    /** a != b (true when either is NaN). */     \
    X(NCL_CMP_NE, "not_equal")                   \
    /** a < b. */                                \
    X(NCL_CMP_LT, "less")                        \
    /** a <= b. */                               \
    X(NCL_CMP_LE, "less_equal")                  \
    /** a > b. */                                \
    X(NCL_CMP_GT, "greater")                     \
    /** a >= b. */                               \
    X(NCL_CMP_GE, "greater_equal")

/** The Compare ops, from NCL_COMPARE_OP_LIST, numbered from 0. */
typedef enum NclCompareOp {
#define NCL_X_(name, text) name,
    NCL_COMPARE_OP_LIST(NCL_X_)
#undef NCL_X_
    NCL_COMPARE_NOPS ///< How many ops there are; not an op.
} NclCompareOp;

/**
 * Compares the mathematical values of a and b, broadcast together, into a
 * bool array. int64 against uint64 and any integer against any float are
 * exact (no lossy common type); NaN compares unequal to everything. A dtype
 * in params other than bool or NCL_DTYPE_DEFAULT is refused
 * (NCL_ERR_DTYPE); a provided `*out` of another dtype receives the bool
 * result under casting.
 *
 * @param op      the comparison.
 * @param a       the left operand.
 * @param b       the right operand.
 * @param out     `*out` NULL: receives a new bool array of the broadcast
 *                shape (reference count 1); else the array the result is
 *                written into (@ref ncl_subsystems).
 * @param params  NULL, or the options (where, dtype, casting).
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  op out of range; a, b or out NULL;
 *         params malformed (size, dtype, casting); a provided output that
 *         overlaps itself.
 * @retval NCL_ERR_BROADCAST  a and b, or the where mask and the output,
 *         do not broadcast.
 * @retval NCL_ERR_SHAPE  a provided output whose shape a and b do not
 *         broadcast to, or a broadcast shape int64 cannot count.
 * @retval NCL_ERR_DTYPE  params->dtype other than bool, or a where mask
 *         that is not bool.
 * @retval NCL_ERR_CASTING  casting bool to the output's dtype breaks
 *         params->casting.
 * @retval NCL_ERR_READONLY  a provided output that is not writeable.
 * @retval NCL_ERR_DEVICE_MEMORY  an operand, the output or the mask in
 *         NCL_MEM_DEVICE memory.
 * @retval NCL_ERR_FLOATING_POINT  a category raised in NCL_ERRMODE_RAISE.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclCompare(NclCompareOp op, const NclArray *a, const NclArray *b, NclArray **out, const NclParams *params);

/** The function of a Compare hook node (NclHook::fn.compare): NclCompare's
    parameters with the node itself in front. It may handle the call,
    change the arguments, pass the call on with NclCompareNext, or
    post-process what that returns; what it returns is what NclCompare
    returns. */
typedef NclStatus (*NclCompareHookFn)(NclHook *self, NclCompareOp op, const NclArray *a, const NclArray *b, NclArray **out,
                                  const NclParams *params);
/**
 * Calls the node after self in the Compare chain with the given arguments.
 * @param self    the calling hook's node.
 * @param op      as NclCompare.
 * @param a       as NclCompare.
 * @param b       as NclCompare.
 * @param out     as NclCompare.
 * @param params  as NclCompare.
 * @return what the next node returns, or:
 * @retval NCL_ERR_INVALID_ARGUMENT  self is NULL, or an array given
 *         (an input, a non-NULL *out, params->where) is not an array
 *         (ncl/array.h).
 * @retval NCL_ERR_HOOK  self is the default implementation, which nothing
 *                       follows.
 */
NCL_API NclStatus NclCompareNext(NclHook *self, NclCompareOp op, const NclArray *a, const NclArray *b, NclArray **out,
                             const NclParams *params);

NCL_END_DECLS

/** @} */

#endif /* NCL_COMPARE_H */
