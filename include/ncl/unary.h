/**
 * @file
 * @brief The Unary subsystem: elementwise functions of one operand, and the
 * accuracy tier of the transcendental ones.
 *
 * @defgroup ncl_unary Unary
 * @ingroup ncl_subsystems
 * @brief Elementwise functions of one operand (NumPy's unary ufuncs), and
 * the calling thread's accuracy tier for the transcendental ones.
 * @{
 */
#ifndef NCL_UNARY_H
#define NCL_UNARY_H

#include "export.h"
#include "status.h"
#include "dtype.h"
#include "array.h"
#include "params.h"
#include "list.h"

NCL_BEGIN_DECLS

/** X-macro list of the Unary ops, `X(name, text)` in enum order, text
    NumPy's name of the ufunc. The functions from SQRT to RINT have float
    loops only: integer operands resolve to float32 or float64 as in NumPy.
    @hideinitializer */
#define NCL_UNARY_OP_LIST(X)                                                        \
    /** -a (no bool loop). */                                                       \
    X(NCL_NEGATIVE, "negative")                                                     \
    /** +a, a copy (no bool loop). */                                               \
    X(NCL_POSITIVE, "positive")                                                     \
    /** The absolute value (MIN of a signed dtype stays MIN, as it wraps). */       \
    X(NCL_ABSOLUTE, "absolute")                                                     \
    /** -1, 0 or 1 by the sign of a; NaN for NaN (no bool loop). */                 \
    X(NCL_SIGN, "sign")                                                             \
    /** a * a. */                                                                   \
    X(NCL_SQUARE, "square")                                                         \
    /** 1 / a (in integer dtypes, integer division). */                             \
    X(NCL_RECIPROCAL, "reciprocal")                                                 \
    /** Square root. */                                                             \
    X(NCL_SQRT, "sqrt")                                                             \
    /** Cube root. */                                                               \
    X(NCL_CBRT, "cbrt")                                                             \
    /** e to the power a. */                                                        \
    X(NCL_EXP, "exp")                                                               \
    /** 2 to the power a. */                                                        \
    X(NCL_EXP2, "exp2")                                                             \
    /** exp(a) - 1, accurate near 0. */                                             \
    X(NCL_EXPM1, "expm1")                                                           \
    /** Natural logarithm. */                                                       \
    X(NCL_LOG, "log")                                                               \
    /** Base-2 logarithm. */                                                        \
    X(NCL_LOG2, "log2")                                                             \
    /** Base-10 logarithm. */                                                       \
    X(NCL_LOG10, "log10")                                                           \
    /** log(1 + a), accurate near 0. */                                             \
    X(NCL_LOG1P, "log1p")                                                           \
    /** Sine (radians). */                                                          \
    X(NCL_SIN, "sin")                                                               \
    /** Cosine. */                                                                  \
    X(NCL_COS, "cos")                                                               \
    /** Tangent. */                                                                 \
    X(NCL_TAN, "tan")                                                               \
    /** Inverse sine. */                                                            \
    X(NCL_ARCSIN, "arcsin")                                                         \
    /** Inverse cosine. */                                                          \
    X(NCL_ARCCOS, "arccos")                                                         \
    /** Inverse tangent. */                                                         \
    X(NCL_ARCTAN, "arctan")                                                         \
    /** Hyperbolic sine. */                                                         \
    X(NCL_SINH, "sinh")                                                             \
    /** Hyperbolic cosine. */                                                       \
    X(NCL_COSH, "cosh")                                                             \
    /** Hyperbolic tangent. */                                                      \
    X(NCL_TANH, "tanh")                                                             \
    /** Inverse hyperbolic sine. */                                                 \
    X(NCL_ARCSINH, "arcsinh")                                                       \
    /** Inverse hyperbolic cosine. */                                               \
    X(NCL_ARCCOSH, "arccosh")                                                       \
    /** Inverse hyperbolic tangent. */                                              \
    X(NCL_ARCTANH, "arctanh")                                                       \
    /** Rounded towards -inf. */                                                    \
    X(NCL_FLOOR, "floor")                                                           \
    /** Rounded towards +inf. */                                                    \
    X(NCL_CEIL, "ceil")                                                             \
    /** Rounded towards 0. */                                                       \
    X(NCL_TRUNC, "trunc")                                                           \
    /** Rounded to the nearest integer, ties to even. */                            \
    X(NCL_RINT, "rint")                                                             \
    /** Bitwise not (integers; logical not for bool). */                            \
    X(NCL_INVERT, "invert")                                                         \
    /** Not a, a read as truth (non-zero), as bool. */                              \
    X(NCL_LOGICAL_NOT, "logical_not")                                               \
    /** Degrees to radians, a * (pi / 180) (floats; also radians). */               \
    X(NCL_DEG2RAD, "deg2rad")                                                       \
    /** Radians to degrees, a * (180 / pi) (floats; also degrees). */               \
    X(NCL_RAD2DEG, "rad2deg")                                                       \
    /** Gap from a to the next float away from 0 (for 0: the least subnormal). */   \
    X(NCL_SPACING, "spacing")                                                       \
    /** Complex conjugate: a itself for the real dtypes (integers and floats). */   \
    X(NCL_CONJUGATE, "conjugate")                                                   \
    /** |a| with the sign bit cleared, NaN included (floats). */                    \
    X(NCL_FABS, "fabs")                                                             \
    /** Two outputs (NclUnaryN): mantissa in [0.5, 1) and int32 exponent. */        \
    X(NCL_FREXP, "frexp")                                                           \
    /** Two outputs (NclUnaryN): fractional and integral parts, both signed. */     \
    X(NCL_MODF, "modf")

/** The accuracy tier of the transcendental float functions, per thread. */
typedef enum NclAccuracy {
    NCL_ACCURACY_HIGH = 0, ///< Within 1 ulp of the exact result. The default.
    NCL_ACCURACY_FAST = 1  ///< Within 4 ulp (NumPy's own bound for its SVML paths), for speed.
} NclAccuracy;

/** The Unary ops, from NCL_UNARY_OP_LIST, numbered from 0. */
typedef enum NclUnaryOp {
#define NCL_X_(name, text) name,
    NCL_UNARY_OP_LIST(NCL_X_)
#undef NCL_X_
    NCL_UNARY_NOPS ///< How many ops there are; not an op.
} NclUnaryOp;

/**
 * The elementwise function op of a, with NumPy's result dtype (float16
 * results are float32). Transcendental float ops are within 1 ulp of the
 * exact result (NCL_ACCURACY_HIGH) or within 4 ulp (NCL_ACCURACY_FAST), by
 * the calling thread's tier (NclSetAccuracy).
 *
 * @param op      the function.
 * @param a       the operand.
 * @param out     `*out` NULL: receives a new array of a's shape (reference
 *                count 1); else the array the result is written into
 *                (@ref ncl_subsystems).
 * @param params  NULL, or the options (where, dtype, casting).
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  op out of range, or an op of two
 *         outputs (call NclUnaryN); a or out NULL; params malformed (size,
 *         dtype, casting); a provided output that overlaps itself.
 * @retval NCL_ERR_BROADCAST  the where mask and the output do not
 *         broadcast.
 * @retval NCL_ERR_SHAPE  a provided output whose shape a does not
 *         broadcast to.
 * @retval NCL_ERR_DTYPE  op has no loop for a's dtype (or for
 *         params->dtype), or a where mask that is not bool.
 * @retval NCL_ERR_CASTING  casting a to the loop dtype, or the result to
 *         the output's dtype, breaks params->casting.
 * @retval NCL_ERR_READONLY  a provided output that is not writeable.
 * @retval NCL_ERR_DEVICE_MEMORY  a, the output or the mask in
 *         NCL_MEM_DEVICE memory.
 * @retval NCL_ERR_FLOATING_POINT  a category raised in NCL_ERRMODE_RAISE.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclUnary(NclUnaryOp op, const NclArray *a, NclArray **out, const NclParams *params);

/**
 * NclUnary for an op of any number of outputs (NclOpOutputs): NCL_FREXP
 * and NCL_MODF have two. `out` points to nout slots, each meaning what
 * NclUnary's `*out` means: NULL receives a new array of a's shape, an array
 * is written into. The outputs may not overlap each other; an output may
 * be an input exactly. On failure every slot holds what it held and
 * nothing is written. The Unary chain's hooks get this `out` as it is.
 *
 * @param op      the function.
 * @param a       the operand.
 * @param nout    the number of slots at out: NclOpOutputs(NCL_SUBSYSTEM_UNARY, op).
 * @param out     nout output slots.
 * @param params  NULL, or the options (where, dtype, casting), for every
 *                output alike.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  as NclUnary; also nout not the op's
 *         number of outputs, or two provided outputs that overlap.
 * Every other status as NclUnary, for any of the outputs.
 */
NCL_API NclStatus NclUnaryN(NclUnaryOp op, const NclArray *a, int nout, NclArray **out,
                            const NclParams *params);

/** The function of a Unary hook node (NclHook::fn.unary): NclUnary's
    parameters with the node itself in front. It may handle the call,
    change the arguments, pass the call on with NclUnaryNext, or
    post-process what that returns; what it returns is what NclUnary
    returns. */
typedef NclStatus (*NclUnaryHookFn)(NclHook *self, NclUnaryOp op, const NclArray *a, NclArray **out,
                                  const NclParams *params);
/**
 * Calls the node after self in the Unary chain with the given arguments.
 * @param self    the calling hook's node.
 * @param op      as NclUnary.
 * @param a       as NclUnary.
 * @param out     as NclUnary.
 * @param params  as NclUnary.
 * @return what the next node returns, or:
 * @retval NCL_ERR_INVALID_ARGUMENT  self is NULL, or an array given
 *         (an input, a non-NULL *out, params->where) is not an array
 *         (ncl/array.h).
 * @retval NCL_ERR_HOOK  self is the default implementation, which nothing
 *                       follows.
 */
NCL_API NclStatus NclUnaryNext(NclHook *self, NclUnaryOp op, const NclArray *a, NclArray **out,
                             const NclParams *params);

/**
 * Sets the calling thread's accuracy tier for transcendental functions;
 * the thread's calls use it on every worker they are split across.
 * @param accuracy  the tier.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  an unknown tier.
 */
NCL_API NclStatus NclSetAccuracy(NclAccuracy accuracy);
/**
 * The calling thread's accuracy tier.
 * @return the tier; NCL_ACCURACY_HIGH until NclSetAccuracy changes it.
 */
NCL_API NclAccuracy NclGetAccuracy(void);

NCL_END_DECLS

/** @} */

#endif /* NCL_UNARY_H */
