/**
 * @file
 * @brief The Convert subsystem: dtype conversion (astype) and copying into
 * an existing array (copyto).
 *
 * @defgroup ncl_convert Convert
 * @ingroup ncl_subsystems
 * @brief Dtype conversion (astype) and copying into an existing array
 * (copyto), under a casting rule.
 * @{
 */
#ifndef NCL_CONVERT_H
#define NCL_CONVERT_H

#include "export.h"
#include "status.h"
#include "dtype.h"
#include "array.h"
#include "params.h"
#include "list.h"

NCL_BEGIN_DECLS

/** X-macro list of the Convert ops, `X(name, text)` in enum order, text
    NumPy's name of the function. @hideinitializer */
#define NCL_CONVERT_OP_LIST(X)                                       \
    /** a converted to params->dtype (ndarray.astype). */            \
    X(NCL_CONVERT_ASTYPE, "astype")                                  \
    /** a copied into the existing array `*out` (numpy.copyto). */   \
    X(NCL_CONVERT_COPYTO, "copyto")

/** The Convert ops, from NCL_CONVERT_OP_LIST, numbered from 0. */
typedef enum NclConvertOp {
#define NCL_X_(name, text) name,
    NCL_CONVERT_OP_LIST(NCL_X_)
#undef NCL_X_
    NCL_CONVERT_NOPS ///< How many ops there are; not an op.
} NclConvertOp;

/**
 * Converts or copies a.
 *
 * - ASTYPE: a converted to params->dtype (NCL_DTYPE_DEFAULT keeps a's
 *   dtype, or a provided `*out`'s) under params->casting; the result is a
 *   new array of a's shape (C order, or Fortran order when a is
 *   Fortran-contiguous), or is written into a provided `*out` of a's
 *   (broadcast) shape. NCL_PARAMS_INIT says NCL_CASTING_SAME_KIND: for
 *   numpy's astype default, set NCL_CASTING_UNSAFE.
 * - COPYTO: numpy.copyto(*out, a, casting, where): `*out` must be a
 *   writeable array, a is broadcast to its shape.
 *
 * Float to integer conversions saturate: NaN gives 0, values beyond the
 * target's range (infinities included) give its nearest limit, and both
 * raise NCL_FPE_INVALID.
 *
 * @param op      ASTYPE or COPYTO.
 * @param a       the source.
 * @param out     ASTYPE: `*out` NULL receives a new array (reference count
 *                1), else the array written into; COPYTO: `*out` is the
 *                destination.
 * @param params  NULL, or the options (where, dtype, casting).
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  op out of range; a or out NULL; params
 *         malformed (size, dtype, casting); COPYTO with `*out` NULL; a
 *         provided output that overlaps itself.
 * @retval NCL_ERR_CASTING  the rule forbids the cast from a's dtype to the
 *         target's.
 * @retval NCL_ERR_BROADCAST  COPYTO: a does not broadcast to `*out`; or
 *         the where mask does not broadcast to the output.
 * @retval NCL_ERR_SHAPE  ASTYPE: a provided output whose shape a does not
 *         broadcast to.
 * @retval NCL_ERR_DTYPE  params->dtype set and different from a provided
 *         output's dtype, or a where mask that is not bool.
 * @retval NCL_ERR_READONLY  the output is not writeable.
 * @retval NCL_ERR_DEVICE_MEMORY  a, the output or the mask in
 *         NCL_MEM_DEVICE memory.
 * @retval NCL_ERR_FLOATING_POINT  a category raised in NCL_ERRMODE_RAISE.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclConvert(NclConvertOp op, const NclArray *a, NclArray **out, const NclParams *params);

/** The function of a Convert hook node (NclHook::fn.convert): NclConvert's
    parameters with the node itself in front. It may handle the call,
    change the arguments, pass the call on with NclConvertNext, or
    post-process what that returns; what it returns is what NclConvert
    returns. */
typedef NclStatus (*NclConvertHookFn)(NclHook *self, NclConvertOp op, const NclArray *a, NclArray **out,
                                  const NclParams *params);
/**
 * Calls the node after self in the Convert chain with the given arguments.
 * @param self    the calling hook's node.
 * @param op      as NclConvert.
 * @param a       as NclConvert.
 * @param out     as NclConvert.
 * @param params  as NclConvert.
 * @return what the next node returns, or:
 * @retval NCL_ERR_INVALID_ARGUMENT  self is NULL, or an array given
 *         (an input, a non-NULL *out, params->where) is not an array
 *         (ncl/array.h).
 * @retval NCL_ERR_HOOK  self is the default implementation, which nothing
 *                       follows.
 */
NCL_API NclStatus NclConvertNext(NclHook *self, NclConvertOp op, const NclArray *a, NclArray **out,
                             const NclParams *params);

NCL_END_DECLS

/** @} */

#endif /* NCL_CONVERT_H */
