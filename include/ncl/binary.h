/**
 * @file
 * @brief The Binary subsystem: elementwise functions of two broadcast operands.
 *
 * @defgroup ncl_binary Binary
 * @ingroup ncl_subsystems
 * @brief Elementwise functions of two broadcast operands: arithmetic,
 * extrema, bitwise and logical ops (NumPy's binary ufuncs).
 * @{
 */
#ifndef NCL_BINARY_H
#define NCL_BINARY_H

#include "export.h"
#include "status.h"
#include "dtype.h"
#include "array.h"
#include "params.h"
#include "list.h"

NCL_BEGIN_DECLS

/** X-macro list of the Binary ops, `X(name, text)` in enum order, text
    NumPy's name of the ufunc. @hideinitializer */
#define NCL_BINARY_OP_LIST(X)                                                       \
    /** a + b. */                                                                   \
    X(NCL_ADD, "add")                                                               \
    /** a - b (no bool loop, as in NumPy). */                                       \
    X(NCL_SUBTRACT, "subtract")                                                     \
    /** a * b. */                                                                   \
    X(NCL_MULTIPLY, "multiply")                                                     \
    /** a / b, true division: integer operands give float64. */                     \
    X(NCL_DIVIDE, "true_divide")                                                    \
    /** a // b, the quotient rounded towards -inf. */                               \
    X(NCL_FLOOR_DIVIDE, "floor_divide")                                             \
    /** The remainder of floor division, with the sign of b (Python's %). */        \
    X(NCL_REMAINDER, "remainder")                                                   \
    /** C's fmod: the remainder with the sign of a. */                              \
    X(NCL_FMOD, "fmod")                                                             \
    /** a to the power b. */                                                        \
    X(NCL_POWER, "power")                                                           \
    /** The larger of a and b; a NaN in either gives NaN. */                        \
    X(NCL_MAXIMUM, "maximum")                                                       \
    /** The smaller of a and b; a NaN in either gives NaN. */                       \
    X(NCL_MINIMUM, "minimum")                                                       \
    /** The larger of a and b, ignoring a NaN unless both are NaN. */               \
    X(NCL_FMAX, "fmax")                                                             \
    /** The smaller of a and b, ignoring a NaN unless both are NaN. */              \
    X(NCL_FMIN, "fmin")                                                             \
    /** The angle of the point (b, a): arctan(a / b) in the right quadrant. */      \
    X(NCL_ARCTAN2, "arctan2")                                                       \
    /** sqrt(a*a + b*b), without overflow in between. */                            \
    X(NCL_HYPOT, "hypot")                                                           \
    /** a with the sign of b. */                                                    \
    X(NCL_COPYSIGN, "copysign")                                                     \
    /** Bitwise and (integers and bools). */                                        \
    X(NCL_BITWISE_AND, "bitwise_and")                                               \
    /** Bitwise or (integers and bools). */                                         \
    X(NCL_BITWISE_OR, "bitwise_or")                                                 \
    /** Bitwise exclusive or (integers and bools). */                               \
    X(NCL_BITWISE_XOR, "bitwise_xor")                                               \
    /** a shifted left by b bits (integers). */                                     \
    X(NCL_LEFT_SHIFT, "left_shift")                                                 \
    /** a shifted right by b bits, arithmetic for signed dtypes (integers). */      \
    X(NCL_RIGHT_SHIFT, "right_shift")                                               \
    /** a and b, each read as truth (non-zero), as bool. */                         \
    X(NCL_LOGICAL_AND, "logical_and")                                               \
    /** a or b, each read as truth, as bool. */                                     \
    X(NCL_LOGICAL_OR, "logical_or")                                                 \
    /** Exactly one of a and b true, as bool. */                                    \
    X(NCL_LOGICAL_XOR, "logical_xor")                                               \
    /** Step function: 0 for a < 0, b for a == 0, 1 for a > 0, NaN for NaN. */      \
    X(NCL_HEAVISIDE, "heaviside")                                                   \
    /** log(exp(a) + exp(b)) without overflow, as NumPy computes it (floats). */    \
    X(NCL_LOGADDEXP, "logaddexp")                                                   \
    /** log2(2**a + 2**b) without overflow, as NumPy computes it (floats). */       \
    X(NCL_LOGADDEXP2, "logaddexp2")                                                 \
    /** The next float after a in the direction of b (floats). */                   \
    X(NCL_NEXTAFTER, "nextafter")                                                   \
    /** Greatest common divisor of |a| and |b|, gcd(0, 0) = 0 (integers). */        \
    X(NCL_GCD, "gcd")                                                               \
    /** Least common multiple of |a| and |b|, wrapped; 0 if one is 0 (integers). */ \
    X(NCL_LCM, "lcm")                                                               \
    /** a ** b computed in float64 whatever the operands (NumPy: float_power). */   \
    X(NCL_FLOAT_POWER, "float_power")                                               \
    /** a * 2**b for a float a and an int32 or int64 exponent b. */                 \
    X(NCL_LDEXP, "ldexp")                                                           \
    /** Two outputs (NclBinaryN): floor_divide(a, b) and remainder(a, b). */        \
    X(NCL_DIVMOD, "divmod")

/** The Binary ops, from NCL_BINARY_OP_LIST, numbered from 0. */
typedef enum NclBinaryOp {
#define NCL_X_(name, text) name,
    NCL_BINARY_OP_LIST(NCL_X_)
#undef NCL_X_
    NCL_BINARY_NOPS ///< How many ops there are; not an op.
} NclBinaryOp;

/**
 * The elementwise function op of a and b, broadcast together, with NumPy's
 * type resolution for array operands. Integer division or remainder by zero
 * gives 0 and raises NCL_FPE_DIVIDE; MIN // -1 gives MIN and raises
 * NCL_FPE_OVERFLOW; signed overflow wraps; shifts by a count >= the width or
 * negative give 0 (-1 for an arithmetic right shift of a negative value);
 * integer power with a negative exponent is NCL_ERR_INVALID_ARGUMENT.
 *
 * @param op      the function.
 * @param a       the first operand.
 * @param b       the second operand.
 * @param out     `*out` NULL: receives a new array of the broadcast shape
 *                (reference count 1); else the array the result is written
 *                into (@ref ncl_subsystems).
 * @param params  NULL, or the options (where, dtype, casting).
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  op out of range, or an op of two
 *         outputs (call NclBinaryN); a, b or out NULL; params malformed
 *         (size, dtype, casting); a provided output that overlaps itself;
 *         POWER of integers with a negative exponent.
 * @retval NCL_ERR_BROADCAST  a and b, or the where mask and the output,
 *         do not broadcast.
 * @retval NCL_ERR_SHAPE  a provided output whose shape a and b do not
 *         broadcast to, or a broadcast shape int64 cannot count.
 * @retval NCL_ERR_DTYPE  op has no loop for these dtypes (or for
 *         params->dtype), or a where mask that is not bool.
 * @retval NCL_ERR_CASTING  casting an input to the loop dtype, or the
 *         result to the output's dtype, breaks params->casting.
 * @retval NCL_ERR_READONLY  a provided output that is not writeable.
 * @retval NCL_ERR_DEVICE_MEMORY  an operand, the output or the mask in
 *         NCL_MEM_DEVICE memory.
 * @retval NCL_ERR_FLOATING_POINT  a category raised in NCL_ERRMODE_RAISE.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclBinary(NclBinaryOp op, const NclArray *a, const NclArray *b, NclArray **out, const NclParams *params);

/**
 * NclBinary for an op of any number of outputs (NclOpOutputs): NCL_DIVMOD
 * has two. `out` points to nout slots, each meaning what NclBinary's
 * `*out` means: NULL receives a new array of the broadcast shape, an array
 * is written into. The outputs may not overlap each other; an output may
 * be an input exactly. On failure every slot holds what it held and
 * nothing is written. The Binary chain's hooks get this `out` as it is.
 *
 * @param op      the function.
 * @param a       the first operand.
 * @param b       the second operand.
 * @param nout    the number of slots at out: NclOpOutputs(NCL_SUBSYSTEM_BINARY, op).
 * @param out     nout output slots.
 * @param params  NULL, or the options (where, dtype, casting), for every
 *                output alike.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  as NclBinary; also nout not the op's
 *         number of outputs, or two provided outputs that overlap.
 * Every other status as NclBinary, for any of the outputs.
 */
NCL_API NclStatus NclBinaryN(NclBinaryOp op, const NclArray *a, const NclArray *b, int nout,
                             NclArray **out, const NclParams *params);

/** The function of a Binary hook node (NclHook::fn.binary): NclBinary's
    parameters with the node itself in front. It may handle the call,
    change the arguments, pass the call on with NclBinaryNext, or
    post-process what that returns; what it returns is what NclBinary
    returns. */
typedef NclStatus (*NclBinaryHookFn)(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b, NclArray **out,
                                  const NclParams *params);
/**
 * Calls the node after self in the Binary chain with the given arguments.
 * @param self    the calling hook's node.
 * @param op      as NclBinary.
 * @param a       as NclBinary.
 * @param b       as NclBinary.
 * @param out     as NclBinary.
 * @param params  as NclBinary.
 * @return what the next node returns, or:
 * @retval NCL_ERR_INVALID_ARGUMENT  self is NULL, or an array given
 *         (an input, a non-NULL *out, params->where) is not an array
 *         (ncl/array.h).
 * @retval NCL_ERR_HOOK  self is the default implementation, which nothing
 *                       follows.
 */
NCL_API NclStatus NclBinaryNext(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b, NclArray **out,
                             const NclParams *params);

NCL_END_DECLS

/** @} */

#endif /* NCL_BINARY_H */
