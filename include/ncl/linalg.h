/**
 * @file
 * @brief The Linalg subsystem: matrix products (matmul, dot).
 *
 * @defgroup ncl_linalg Linalg
 * @ingroup ncl_subsystems
 * @brief Matrix products with NumPy's np.matmul and np.dot semantics;
 * float32 and float64 through the BLAS found at build time.
 * @{
 */
#ifndef NCL_LINALG_H
#define NCL_LINALG_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "dtype.h"
#include "array.h"
#include "params.h"
#include "list.h"

NCL_BEGIN_DECLS

/** X-macro list of the Linalg ops, `X(name, text)` in enum order, text
    NumPy's name of the function. @hideinitializer */
#define NCL_LINALG_OP_LIST(X)                                                  \
    /** np.matmul: stacks of matrices, broadcast over the leading axes; a   \
        1-d operand is promoted to a matrix and the added axis removed. */  \
    X(NCL_MATMUL, "matmul")                                                  \
    /** np.dot: a 0-d operand multiplies; otherwise the sum over a's last   \
        axis and b's second-to-last (b's only one when b is 1-d). */        \
    X(NCL_DOT, "dot")

/** The Linalg ops, from NCL_LINALG_OP_LIST, numbered from 0. */
typedef enum NclLinalgOp {
#define NCL_X_(name, text) name,
    NCL_LINALG_OP_LIST(NCL_X_)
#undef NCL_X_
    NCL_LINALG_NOPS ///< How many ops there are; not an op.
} NclLinalgOp;

/**
 * The matrix product of a and b, as np.matmul (NCL_MATMUL) or np.dot
 * (NCL_DOT) of NumPy 1.24 computes it.
 *
 * Shapes. MATMUL: a (..., m, k) and b (..., k, n) give (..., m, n), the
 * leading axes broadcast against each other; a 1-d a is (1, k) and a 1-d
 * b is (k, 1), and the axis added is removed from the result; 0-d
 * operands are refused, as NumPy refuses them. DOT: a 0-d operand
 * multiplies the other elementwise (the result has the other's shape);
 * 1-d with 1-d is the inner product (0-d result); otherwise the result
 * is a.shape[:-1] + b.shape[:-2] + b.shape[-1:], the sum over a's last
 * axis and b's second-to-last (its only axis when b is 1-d). Summed
 * lengths that differ are NCL_ERR_SHAPE, stacks that do not broadcast
 * NCL_ERR_BROADCAST. A summed length of 0 gives
 * zeros; a result with no elements writes nothing.
 *
 * Dtypes. The loop dtype is params->dtype, or NumPy's promotion of the two
 * dtypes (NclPromoteTypes); the inputs are cast to it under
 * params->casting. bool gives the or of ands; the integer dtypes sum
 * their products with the dtype's wraparound (no error, as NumPy); float32
 * and float64 run cblas_sgemm / cblas_dgemm (cblas_?gemv for a
 * matrix-vector product, cblas_?dot for an inner product) of the BLAS the
 * library was built with (NclInfo's "blas"), else NCLib's own blocked
 * loop. Floats are summed in the loop dtype; NaN and infinities propagate
 * as the BLAS makes them, and the order of the sums is the BLAS's, so
 * results may differ from a sequential sum in the last bits. Operands of
 * a float loop whose matrices have no unit stride are copied to
 * contiguous memory first (as NumPy does); the integer loops read any
 * strides.
 *
 * Threads. The BLAS runs its own threads (OpenBLAS: OPENBLAS_NUM_THREADS
 * or openblas_set_num_threads); NclSetNumThreads does not change them.
 * NCLib's own loops (integers, bool, and floats without a BLAS) run on the
 * calling thread. Floating-point flags raised inside BLAS threads other
 * than the caller's are not seen; NCL_DOT reports none (np.dot checks
 * none), NCL_MATMUL reports those raised on the calling thread.
 *
 * Level 2: the inner product of each signature {T, T, T} is the kernel
 * chain (NCL_SUBSYSTEM_LINALG, op, {T, T, T}); see NclLinalgAux for its
 * arguments.
 *
 * @param op      NCL_MATMUL or NCL_DOT.
 * @param a       the left operand.
 * @param b       the right operand.
 * @param out     `*out` NULL: receives a new C-contiguous array of the
 *                result's shape and dtype (reference count 1); else the
 *                array the result is written into, which must have exactly
 *                the result's shape and a dtype the loop dtype casts to
 *                under params->casting (@ref ncl_subsystems). An output
 *                that shares memory with a or b receives what the call
 *                would give with copies of the inputs. On failure `*out`
 *                and its elements are unchanged.
 * @param params  NULL, or the options (dtype, casting); where and axes
 *                are refused (NCL_ERR_INVALID_ARGUMENT).
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  op out of range; a, b or out NULL;
 *         params malformed (size, dtype, casting) or with where or axes
 *         set; a provided output that overlaps itself.
 * @retval NCL_ERR_SHAPE  summed lengths that differ, a 0-d operand of
 *         MATMUL, a DOT result of more than NCL_MAXDIMS dimensions, or a
 *         provided output whose shape is not the result's.
 * @retval NCL_ERR_BROADCAST  MATMUL stacks that do not broadcast.
 * @retval NCL_ERR_CASTING  casting an input to the loop dtype, or the loop
 *         dtype to the output's, breaks params->casting.
 * @retval NCL_ERR_DTYPE  no kernel for the loop dtype (a hook removed
 *         none; every dtype has one).
 * @retval NCL_ERR_READONLY  a provided output that is not writeable.
 * @retval NCL_ERR_DEVICE_MEMORY  an operand in NCL_MEM_DEVICE memory.
 * @retval NCL_ERR_FLOATING_POINT  MATMUL: a category raised in
 *         NCL_ERRMODE_RAISE.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclLinalg(NclLinalgOp op, const NclArray *a, const NclArray *b, NclArray **out,
                            const NclParams *params);

/** The function of a Linalg hook node (NclHook::fn.linalg): NclLinalg's
    parameters with the node itself in front. It may handle the call,
    change the arguments, pass the call on with NclLinalgNext, or
    post-process what that returns; what it returns is what NclLinalg
    returns. */
typedef NclStatus (*NclLinalgHookFn)(NclHook *self, NclLinalgOp op, const NclArray *a,
                                     const NclArray *b, NclArray **out, const NclParams *params);
/**
 * Calls the node after self in the Linalg chain with the given arguments.
 * @param self    the calling hook's node.
 * @param op      as NclLinalg.
 * @param a       as NclLinalg.
 * @param b       as NclLinalg.
 * @param out     as NclLinalg.
 * @param params  as NclLinalg.
 * @return what the next node returns, or:
 * @retval NCL_ERR_INVALID_ARGUMENT  self is NULL, or an array given
 *         (an input, a non-NULL *out, params->where) is not an array
 *         (ncl/array.h).
 * @retval NCL_ERR_HOOK  self is the default implementation, which nothing
 *                       follows.
 */
NCL_API NclStatus NclLinalgNext(NclHook *self, NclLinalgOp op, const NclArray *a,
                                const NclArray *b, NclArray **out, const NclParams *params);

/**
 * What a Linalg kernel receives in NclKernelCtx::aux (never NULL there);
 * owned by the call, valid during the kernel call only.
 *
 * The kernel of (NCL_SUBSYSTEM_LINALG, op, {T, T, T}) computes `count`
 * matrix products C = A B, where A is m x k, B is k x n and C is m x n,
 * all of dtype T: for product i (0 <= i < count, count being the kernel's
 * n argument), A starts at args[0] + i * steps[0], B at args[1] + i *
 * steps[1] and C at args[2] + i * steps[2]; element (r, c) of A is at
 * A + r * a_rs + c * a_cs, and likewise for B and C (byte strides, any
 * sign, possibly misaligned). C is overwritten, never read; k == 0 gives
 * zeros; C never overlaps A or B. bool is the or of ands; integers wrap.
 * A hook that replaces the kernel may only change how the products are
 * computed, not what they are.
 *
 * NclKernelRun runs these kernels as NumPy's dot function: its n elements
 * are the summed length, args {a, b, out} with steps {a's, b's, any}, and
 * out receives the one sum of products (m = n = 1, k = n, count 1).
 */
typedef struct NclLinalgAux {
    int64_t m;    ///< Rows of A and C.
    int64_t n;    ///< Columns of B and C.
    int64_t k;    ///< Columns of A, rows of B: the summed length.
    int64_t a_rs; ///< A's byte step from one row to the next.
    int64_t a_cs; ///< A's byte step from one column to the next.
    int64_t b_rs; ///< B's row step in bytes.
    int64_t b_cs; ///< B's column step in bytes.
    int64_t c_rs; ///< C's row step in bytes.
    int64_t c_cs; ///< C's column step in bytes.
} NclLinalgAux;

NCL_END_DECLS

/** @} */

#endif /* NCL_LINALG_H */
