/**
 * @file
 * @brief The optional parameters that every subsystem call takes.
 *
 * @defgroup ncl_subsystems Subsystems
 * @brief The array operations, one entry point per subsystem, and the
 * parameters they share.
 *
 * Every subsystem but Create has one entry with the same shape:
 * `NclStatus NclXxx(op, inputs..., NclArray **out, const NclParams *params)`.
 *
 * - `op` picks the operation from the subsystem's enum.
 * - `params` may be NULL (all defaults, NCL_PARAMS_INIT). It is read during
 *   the call only; the arrays and pointers in it need to stay valid that
 *   long.
 * - `out` points at an array pointer. If `*out` is NULL, NCLib allocates the
 *   result with the calling thread's current allocator handler and stores a
 *   new reference (count 1) there, which the caller releases with
 *   NclArrayRelease. If `*out` is an array, the result is written into it
 *   and no reference changes hands; it must be writeable, and each
 *   function says what its shape and dtype must be (for the elementwise
 *   subsystems: a shape the operands broadcast to, a dtype the result casts
 *   to under NclParams::casting). On failure `*out` is not changed.
 * - Inputs and output may overlap in memory in any way: the result equals
 *   the result computed from copies of the inputs (an output that overlaps
 *   itself is refused).
 * - With NclParams::where, output elements where the mask is false are left
 *   unchanged in a provided output and are zero in an allocated one.
 * - Every array given (the inputs, a provided `*out`, NclParams::where) must
 *   be an NclArray: a pointer that is not one (another object, a released
 *   array; see @ref ncl_arrays) is refused with NCL_ERR_INVALID_ARGUMENT
 *   before any hook sees the call, with nothing written, and so is one a
 *   hook passes to a Next function.
 *
 * Every call enters its subsystem's level-1 hook chain (@ref ncl_hooks),
 * whose last node is NCLib's default implementation; the statuses listed
 * for each function are the default implementation's, and a hook may
 * return others. Every function may be called from any thread at the same
 * time as any other; the calling thread's settings (error modes, accuracy
 * tier, allocator handler) apply to the whole call, on every worker thread
 * it is split across.
 *
 * @defgroup ncl_params Call parameters
 * @ingroup ncl_subsystems
 * @brief NclParams, the optional parameters of every subsystem call.
 * @{
 */
#ifndef NCL_PARAMS_H
#define NCL_PARAMS_H

#include <stdint.h>
#include "export.h"
#include "dtype.h"
#include "array.h"

NCL_BEGIN_DECLS

/** The optional parameters of a subsystem call. Start from
    NCL_PARAMS_INIT and set what the call needs; a field an op does not use
    is ignored unless its function says it refuses it. */
typedef struct NclParams {
    /** sizeof(NclParams) as the caller knew it: lets the struct grow. It
        must reach at least to NclParams::casting (NCL_ERR_INVALID_ARGUMENT
        otherwise); fields beyond it take their defaults. */
    uint32_t size;
    /** Optional bool mask, broadcast against the output: elements where it
        is false are left unchanged in a provided output, zero in an
        allocated one. Reduce: selects the elements of the input that take
        part. NULL: none. */
    const NclArray *where;
    NclDType dtype;         ///< Loop / result dtype; NCL_DTYPE_DEFAULT = resolve as NumPy does.
    /** The rule every cast of the call is checked against (inputs to the
        loop dtype, the result to a provided output's dtype). Default
        NCL_CASTING_SAME_KIND. */
    NclCasting casting;
    /** Reduce: the axes to reduce, NULL = all axes; Sort and Mask's TAKE:
        the one axis, NULL = the last axis (Sort) or the flattened array
        (TAKE). Negative values count from the end. */
    const int *axes;
    int naxes;              ///< Number of entries in NclParams::axes.
    int keepdims;           ///< Reduce: non-zero keeps reduced axes, with extent 1.
    /** Reduce: one element of the result dtype that every reduction starts
        from (SUM, PROD, MIN, MAX, ANY, ALL), or NULL. */
    const void *initial;
    int kind;               ///< Sort: NCL_SORT_DEFAULT = 0, NCL_SORT_STABLE = 1.
    int64_t kth;            ///< PARTITION / ARGPARTITION: the rank to place (< 0 from the end).
    /** RNG: the number of dimensions of the result (NumPy's size=), with
        NclParams::shape; 0 with shape NULL: not given. */
    int ndim;
    /** RNG: the ndim extents of the result, or NULL: not given (a 0-d
        result is asked for with a non-NULL shape and ndim 0). */
    const int64_t *shape;
    int endpoint;           ///< RNG's INTEGERS: non-zero includes high.
    /** Reduce's STD, VAR, NANSTD, NANVAR: the delta degrees of freedom; the
        divisor is the count less ddof (NumPy's ddof). Default 0. */
    int64_t ddof;
    /** Mask's SEARCHSORTED: NCL_SIDE_LEFT (0, the default) gives the first
        suitable index, NCL_SIDE_RIGHT (1) the last. */
    int side;
    /** Mask's SEARCHSORTED: int64 indices that sort the searched array
        (NumPy's sorter), or NULL: it is sorted as it is. */
    const NclArray *sorter;
    /** Manip's REPEAT: how many times each element repeats (one count for
        all, or one per element along the axis); TILE: how many times the
        array repeats along each axis (NumPy's reps). NULL: not given. */
    const int64_t *repeats;
    int64_t nrepeats;       ///< Number of entries in NclParams::repeats.
    /** Manip's DIFF: how many times differences are taken (NumPy's n);
        default 1. */
    int64_t n;
} NclParams;

/** Which end of a run of equal elements SEARCHSORTED gives (NumPy's side). */
enum {
    NCL_SIDE_LEFT = 0, ///< The first index i where v <= a[i] (NumPy's "left").
    NCL_SIDE_RIGHT = 1 ///< The first index i where v < a[i] (NumPy's "right").
};

/** The defaults of every field: size set, no mask, dtype resolved,
    NCL_CASTING_SAME_KIND, no axes, no keepdims, no initial, the default
    sort, kth 0, no size, endpoint excluded, ddof 0, the left side, no
    sorter, no repeats, n 1. */
#define NCL_PARAMS_INIT                                                                  \
    { sizeof(NclParams), NULL, NCL_DTYPE_DEFAULT, NCL_CASTING_SAME_KIND, NULL, 0, 0, NULL, 0, 0, \
      0, NULL, 0, 0, NCL_SIDE_LEFT, NULL, NULL, 0, 1 }

NCL_END_DECLS

/** @} */

#endif /* NCL_PARAMS_H */
