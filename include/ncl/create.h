/**
 * @file
 * @brief The Create subsystem (new arrays) and its convenience
 * constructors, which all route through the Create hook chain.
 *
 * @defgroup ncl_create Create
 * @ingroup ncl_subsystems
 * @brief New arrays: empty, zeros, ones, full, arange, linspace, eye, copy.
 *
 * Every new array is made by NclCreate, with the calling thread's current
 * allocator handler; the convenience constructors (NclEmpty ... NclCopy)
 * only fill in an NclCreateParams and call it, so a Create hook sees every
 * one. Values follow NumPy's functions of the same names; every conversion
 * of a double into an integer dtype saturates (NaN gives 0).
 * @{
 */
#ifndef NCL_CREATE_H
#define NCL_CREATE_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "dtype.h"
#include "array.h"
#include "list.h"

NCL_BEGIN_DECLS

/** X-macro list of the Create ops, `X(name, text)` in enum order, text
    NumPy's name of the function. @hideinitializer */
#define NCL_CREATE_OP_LIST(X)                                                  \
    /** Elements left uninitialised (numpy.empty). */                          \
    X(NCL_CREATE_EMPTY, "empty")                                               \
    /** All zero (numpy.zeros); large arrays get zeroed pages from the OS      \
        without NCLib writing them. */                                         \
    X(NCL_CREATE_ZEROS, "zeros")                                               \
    /** All one (numpy.ones). */                                               \
    X(NCL_CREATE_ONES, "ones")                                                 \
    /** Every element NclCreateParams::value (numpy.full). */                  \
    X(NCL_CREATE_FULL, "full")                                                 \
    /** start, start + step, ... below stop, 1-D (numpy.arange). */            \
    X(NCL_CREATE_ARANGE, "arange")                                             \
    /** num evenly spaced values from start to stop, 1-D (numpy.linspace). */  \
    X(NCL_CREATE_LINSPACE, "linspace")                                         \
    /** Ones on diagonal k, zeros elsewhere, 2-D (numpy.eye). */               \
    X(NCL_CREATE_EYE, "eye")                                                   \
    /** A copy of NclCreateParams::src (numpy.array(src, copy=True); with a    \
        dtype, numpy's astype: any cast). */                                   \
    X(NCL_CREATE_COPY, "copy")

/** The Create ops, from NCL_CREATE_OP_LIST, numbered from 0. */
typedef enum NclCreateOp {
#define NCL_X_(name, text) name,
    NCL_CREATE_OP_LIST(NCL_X_)
#undef NCL_X_
    NCL_CREATE_NOPS ///< How many ops there are; not an op.
} NclCreateOp;

/** The memory layout of a new array. */
typedef enum NclOrder {
    NCL_ORDER_C = 0, ///< Row-major: the last axis varies fastest.
    NCL_ORDER_F = 1  ///< Column-major (Fortran): the first axis varies fastest.
} NclOrder;

/** What NclCreate makes. Start from NCL_CREATE_PARAMS_INIT. What each op
    reads:
    - EMPTY, ZEROS, ONES: dtype, ndim, shape, order.
    - FULL: the same, and value (one element of dtype, read, not kept).
    - ARANGE: dtype, start, stop, step (step != 0): ceil((stop-start)/step)
      elements start + i*step (NumPy's arange), 1-D.
    - LINSPACE: dtype, start, stop, num >= 0, endpoint: NumPy's linspace,
      1-D.
    - EYE: dtype, shape[0] rows, shape[1] columns (ndim 2, or ndim 1 for a
      square matrix), k the diagonal offset, order.
    - COPY: src, order (its dtype is kept unless dtype is set).

    dtype NCL_DTYPE_DEFAULT means float64 (COPY: the source's dtype). */
typedef struct NclCreateParams {
    /** sizeof(NclCreateParams) as the caller knew it: it must reach at least
        to the last field the op reads (NCL_ERR_INVALID_ARGUMENT otherwise). */
    uint32_t size;
    NclDType dtype;        ///< The element type; NCL_DTYPE_DEFAULT as above.
    int ndim;              ///< Number of dimensions, 0..NCL_MAXDIMS.
    const int64_t *shape;  ///< ndim non-negative extents; may be NULL when ndim is 0.
    NclOrder order;        ///< Layout of the new array (all ops but ARANGE and LINSPACE).
    const void *value;     ///< FULL: one element of dtype.
    /** @var start
        ARANGE, LINSPACE: the first value.
        @var stop
        ARANGE: the bound not reached; LINSPACE: the last value (with
        endpoint).
        @var step
        ARANGE: the increment, finite and not 0 (default 1). */
    double start, stop, step;
    int64_t num;           ///< LINSPACE: how many values, >= 0 (default 50).
    int endpoint;          ///< LINSPACE: non-zero includes stop (the default).
    int64_t k;             ///< EYE: diagonal offset, above the main one when > 0.
    const NclArray *src;   ///< COPY: the array to copy.
} NclCreateParams;

/** The defaults: size set, float64, 0-d, C order, start 0, stop 0, step 1,
    num 50, endpoint on, k 0, no value and no source. */
#define NCL_CREATE_PARAMS_INIT \
    { sizeof(NclCreateParams), NCL_DTYPE_DEFAULT, 0, NULL, NCL_ORDER_C, NULL, 0.0, 0.0, 1.0, 50, 1, 0, NULL }

/**
 * Makes a new array with the calling thread's current allocator handler,
 * through the Create hook chain.
 *
 * @param op   what to make.
 * @param p    what the op reads (see NclCreateParams); read during the call
 *             only.
 * @param out  must be non-NULL; what it points to is ignored and
 *             overwritten only on success, with a new array (reference
 *             count 1) the caller releases with NclArrayRelease.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  op not a Create op; p or out NULL;
 *         p->size short of what the op reads; dtype not a dtype; order
 *         neither C nor F; shape NULL with ndim > 0; FULL without value;
 *         ARANGE with a start, stop or step that is not finite, a step of
 *         0, or a bool arange of more than 2 elements; LINSPACE with num <
 *         0; EYE with ndim other than 1 or 2, or shape NULL; COPY without
 *         src, or with a src that is not an array (ncl/array.h).
 * @retval NCL_ERR_SHAPE  ndim outside 0..NCL_MAXDIMS, a negative extent,
 *         or an element count or byte size int64 cannot hold (an ARANGE
 *         too long included).
 * @retval NCL_ERR_DEVICE_MEMORY  COPY of an NCL_MEM_DEVICE source.
 * @retval NCL_ERR_FLOATING_POINT  COPY with a dtype whose cast raised a
 *         category in NCL_ERRMODE_RAISE (a float NaN or out-of-range value
 *         to an integer dtype).
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclCreate(NclCreateOp op, const NclCreateParams *p, NclArray **out);

/**
 * numpy.empty: a C-order array whose elements are not initialised
 * (NclCreate with NCL_CREATE_EMPTY).
 * @param dtype  the element type; NCL_DTYPE_DEFAULT = float64.
 * @param ndim   0..NCL_MAXDIMS.
 * @param shape  ndim extents; may be NULL when ndim is 0.
 * @param out    receives a new array (reference count 1); untouched on
 *               failure.
 * @return as NclCreate.
 */
NCL_API NclStatus NclEmpty(NclDType dtype, int ndim, const int64_t *shape, NclArray **out);
/**
 * numpy.zeros: a C-order array of zeros (NclCreate with NCL_CREATE_ZEROS).
 * @param dtype  the element type; NCL_DTYPE_DEFAULT = float64.
 * @param ndim   0..NCL_MAXDIMS.
 * @param shape  ndim extents; may be NULL when ndim is 0.
 * @param out    receives a new array (reference count 1); untouched on
 *               failure.
 * @return as NclCreate.
 */
NCL_API NclStatus NclZeros(NclDType dtype, int ndim, const int64_t *shape, NclArray **out);
/**
 * numpy.ones: a C-order array of ones (NclCreate with NCL_CREATE_ONES).
 * @param dtype  the element type; NCL_DTYPE_DEFAULT = float64.
 * @param ndim   0..NCL_MAXDIMS.
 * @param shape  ndim extents; may be NULL when ndim is 0.
 * @param out    receives a new array (reference count 1); untouched on
 *               failure.
 * @return as NclCreate.
 */
NCL_API NclStatus NclOnes(NclDType dtype, int ndim, const int64_t *shape, NclArray **out);
/**
 * numpy.full: a C-order array with every element value (NclCreate with
 * NCL_CREATE_FULL).
 * @param dtype  the element type; NCL_DTYPE_DEFAULT = float64.
 * @param ndim   0..NCL_MAXDIMS.
 * @param shape  ndim extents; may be NULL when ndim is 0.
 * @param value  one element of dtype (for bool, any non-zero byte is
 *               true); read, not kept.
 * @param out    receives a new array (reference count 1); untouched on
 *               failure.
 * @return as NclCreate.
 */
NCL_API NclStatus NclFull(NclDType dtype, int ndim, const int64_t *shape, const void *value,
                          NclArray **out);
/**
 * numpy.arange: the 1-D array start, start + step, ... of
 * ceil((stop - start) / step) elements (NclCreate with NCL_CREATE_ARANGE).
 * @param dtype  the element type; NCL_DTYPE_DEFAULT = float64.
 * @param start  the first value.
 * @param stop   the bound, not reached.
 * @param step   the increment, finite and not 0.
 * @param out    receives a new array (reference count 1); untouched on
 *               failure.
 * @return as NclCreate.
 */
NCL_API NclStatus NclArange(NclDType dtype, double start, double stop, double step,
                            NclArray **out);
/**
 * A C-contiguous copy of a, same dtype (NclCreate with NCL_CREATE_COPY).
 * @param a    the array to copy.
 * @param out  receives a new array (reference count 1); untouched on
 *             failure.
 * @return as NclCreate.
 */
NCL_API NclStatus NclCopy(const NclArray *a, NclArray **out);

/** The function of a Create hook node (NclHook::fn.create): NclCreate's
    parameters with the node itself in front. It may handle the call,
    change the arguments, pass the call on with NclCreateNext, or
    post-process what that returns; what it returns is what NclCreate
    returns. */
typedef NclStatus (*NclCreateHookFn)(NclHook *self, NclCreateOp op, const NclCreateParams *p,
                                     NclArray **out);
/**
 * Calls the node after self in the Create chain with the given arguments.
 * @param self  the calling hook's node.
 * @param op    as NclCreate.
 * @param p     as NclCreate.
 * @param out   as NclCreate.
 * @return what the next node returns, or:
 * @retval NCL_ERR_INVALID_ARGUMENT  self is NULL, or COPY with a p->src
 *         that is not an array (ncl/array.h).
 * @retval NCL_ERR_HOOK  self is the default implementation, which nothing
 *                       follows.
 */
NCL_API NclStatus NclCreateNext(NclHook *self, NclCreateOp op, const NclCreateParams *p,
                                NclArray **out);

NCL_END_DECLS

/** @} */

#endif /* NCL_CREATE_H */
