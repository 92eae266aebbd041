/**
 * @file
 * @brief The reference-counted n-dimensional array, zero-copy wrapping of
 * foreign memory, and views (slice, transpose, reshape, broadcast).
 *
 * @defgroup ncl_arrays Arrays and views
 * @brief NclArray: construction from foreign memory, reference counting,
 * accessors and views.
 *
 * An NclArray is opaque and reference counted. Every function that gives an
 * array through an `NclArray **out` gives a new reference (count 1) that the
 * caller owns and drops with NclArrayRelease. The array's data lives in a
 * buffer shared with every view on it: a view keeps the memory alive, not
 * the array it was made from, so the source may be released first. The
 * memory is freed (by the allocator handler that allocated it, or by the
 * deleter of wrapped memory) when the last array or view on it is released.
 *
 * Thread safety: an array's metadata (shape, strides, dtype, flags) never
 * changes after it is made, reference counts are atomic, and every function
 * here may be called from any thread on arrays shared between threads.
 * Elements are the caller's to synchronise: an array written by one thread
 * (as an output, or through NclArrayData) must not be read or written by
 * another at the same time.
 *
 * An array has at most NCL_MAXDIMS dimensions; its element count and its
 * byte extent fit in int64_t (checked when it is made, never wrapped).
 *
 * Pointers that are not arrays: every array carries a tag, set when it is
 * made and overwritten when its last reference is released, just before
 * its memory is freed. Every function that takes an NclArray pointer
 * (an input, an array in NclParams or NclCreateParams, or a non-NULL
 * `*out` to be written into) checks the tag before it reads anything
 * else of the array, as do the Next functions hooks call; a pointer
 * without it is refused with NCL_ERR_INVALID_ARGUMENT and the message
 * "<function>: <parameter> is not an NclArray (a freed array, or another
 * object)", and nothing is written. The functions that return no status
 * (NclArrayRetain, NclArrayRelease and the accessors NclArrayNDim to
 * NclArrayHandlerName) do nothing for such a pointer and return what they
 * return for NULL, and leave that message as the calling thread's
 * NclLastError (which they never change otherwise). A `*out` that a
 * function only writes (NclFromData, NclCreate, the views, the imports)
 * is never read, and needs no tag.
 *
 * What this catches, and what not: a pointer to readable memory that is
 * not an array (another object, a buffer) is refused (unless its first 8
 * bytes happen to hold the tag's value), and so is a released array as
 * long as its memory is still readable and not yet reused for another
 * array. It is a check of at least 8 readable bytes,
 * made on a best-effort basis, not a guarantee: a pointer to memory that
 * is not readable (unmapped, or freed back to the system) still faults,
 * a released array whose memory now holds a new array is that new array,
 * and reading freed memory is itself an error under AddressSanitizer or
 * Valgrind. The check costs one load and compare per array per call.
 * @{
 */
#ifndef NCL_ARRAY_H
#define NCL_ARRAY_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "dtype.h"

NCL_BEGIN_DECLS

/** The most dimensions an array may have. */
#define NCL_MAXDIMS 64

/** A reference-counted n-dimensional array (opaque; see the accessors). */
typedef struct NclArray NclArray;

/** Where an array's memory lives, as SYCL's unified shared memory kinds. */
typedef enum NclMemKind {
    /** Host memory: what NCLib allocates, and what NclFromData wraps. */
    NCL_MEM_HOST = 0,
    /** Memory only a device can touch: host kernels refuse calls on it with
        NCL_ERR_DEVICE_MEMORY (a hook may take such calls first). */
    NCL_MEM_DEVICE = 1,
    /** Memory both the host and a device can touch (CUDA managed, SYCL
        shared): host kernels use it as host memory. */
    NCL_MEM_SHARED = 2,
    /** Not known: host kernels use it as host memory; DLPack and Arrow
        export refuse it. */
    NCL_MEM_UNKNOWN = 3
} NclMemKind;

/** The bits of NclArrayFlags. Only NCL_ARRAY_WRITEABLE is ever passed in
    (NclFromData); NCLib computes the others. */
enum {
    /** The elements are contiguous in C order (NumPy's definition: axes of
        extent 1 do not count, and an empty array is contiguous). */
    NCL_ARRAY_C_CONTIGUOUS = 1,
    /** The elements are contiguous in Fortran order (same definition). */
    NCL_ARRAY_F_CONTIGUOUS = 2,
    /** The data was allocated by NCLib for this array (never set on views
        or on wrapped memory). */
    NCL_ARRAY_OWNDATA = 4,
    /** Every element starts at a multiple of its size. */
    NCL_ARRAY_ALIGNED = 8,
    /** The elements may be written: outputs must have it. Views keep their
        source's; NclArrayBroadcastTo's views never have it. */
    NCL_ARRAY_WRITEABLE = 16,
    /** The elements are not in this process's memory: the array is the
        handle of an extension (NclArrayFromExt), such as a distributed
        array, and only hooks that know the extension compute on it. */
    NCL_ARRAY_EXTERNAL = 32,
    /** A weakly typed scalar (NclWeakScalar): in Binary and Ternary calls
        its dtype gives way to the other operands', as NumPy 2 (NEP 50)
        types a Python int or float. Views and copies of it are ordinary
        arrays. */
    NCL_ARRAY_WEAK = 64
};

/** The owner of an external array's elements (a distributed array's
    partitions, for one): embedded by an extension library at the start of
    its own state, which NCLib never reads beyond these members. */
typedef struct NclArrayExt NclArrayExt;
/** See NclArrayExt. */
struct NclArrayExt {
    /** The extension's name, shown in messages ("mpi"); static text. */
    const char *name;
    /** Called once, on the thread that drops the last reference to the
        array, after NCLib has cleared the array's tag; frees self. */
    void (*release)(NclArrayExt *self);
};

/** Frees wrapped memory: called as deleter(ctx, data) exactly once, when the
    last array or view on that memory is released, on whichever thread
    releases it. */
typedef void (*NclDeleter)(void *ctx, void *data);

/**
 * Wraps memory NCLib did not allocate, without copying. The new array is
 * host memory (NCL_MEM_HOST) on device 0. On failure the deleter is not
 * called: the memory stays the caller's.
 *
 * @param dtype        the element type.
 * @param ndim         0..NCL_MAXDIMS.
 * @param shape        ndim non-negative extents; may be NULL when ndim is 0.
 * @param strides      ndim byte strides (any sign, zero allowed), or NULL
 *                     for C order.
 * @param data         the first element; may be NULL only when the array
 *                     has no elements.
 * @param flags        NCL_ARRAY_WRITEABLE or 0 (read-only).
 * @param deleter      called once as deleter(deleter_ctx, data) when the
 *                     last array or view on this memory is released; NULL
 *                     keeps ownership with the caller, who must keep the
 *                     memory valid while any array or view uses it.
 * @param deleter_ctx  passed to deleter.
 * @param out          receives a new array (reference count 1); untouched
 *                     on failure.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  out NULL, dtype not a dtype, flags other
 *         than NCL_ARRAY_WRITEABLE, shape NULL with ndim > 0, data NULL for
 *         an array with elements, or elements that reach outside the
 *         address space.
 * @retval NCL_ERR_SHAPE      ndim outside 0..NCL_MAXDIMS, a negative
 *         extent, or an element count or byte extent int64 cannot hold.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclFromData(NclDType dtype, int ndim, const int64_t *shape,
                              const int64_t *strides, void *data, uint32_t flags,
                              NclDeleter deleter, void *deleter_ctx, NclArray **out);

/**
 * As NclFromData, for memory of the given kind on device device_id. Host
 * kernels refuse NCL_MEM_DEVICE arrays with NCL_ERR_DEVICE_MEMORY; a hook
 * in front of them may serve such calls.
 *
 * @param dtype        as NclFromData.
 * @param ndim         as NclFromData.
 * @param shape        as NclFromData.
 * @param strides      as NclFromData.
 * @param data         as NclFromData.
 * @param flags        as NclFromData.
 * @param deleter      as NclFromData.
 * @param deleter_ctx  as NclFromData.
 * @param kind         where the memory lives.
 * @param device_id    the device it belongs to (any value; NclArrayDeviceId
 *                     gives it back).
 * @param out          as NclFromData.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  as NclFromData, or kind not an
 *                                   NclMemKind.
 * @retval NCL_ERR_SHAPE      as NclFromData.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclFromDataKind(NclDType dtype, int ndim, const int64_t *shape,
                                  const int64_t *strides, void *data, uint32_t flags,
                                  NclDeleter deleter, void *deleter_ctx,
                                  NclMemKind kind, int device_id, NclArray **out);

/**
 * A new external array: the handle of elements that live elsewhere (other
 * processes' memory, say), with a dtype and a shape of its own. NCLib keeps
 * ext and calls ext->release when the last reference goes; the array has
 * the flag NCL_ARRAY_EXTERNAL, no strides and no data. Subsystem calls
 * (NclBinary and the others) pass it to their hook chain as any array:
 * NCLib's own implementations, and every call that reads elements
 * (NclArraySlice, NclArrayGetItem, NclArrayFormat, NclSaveNpy, the
 * interchange exports), refuse it with NCL_ERR_UNSUPPORTED, naming the
 * extension, so only a hook that knows the extension computes on it.
 *
 * @param dtype  the element type.
 * @param ndim   0..NCL_MAXDIMS.
 * @param shape  ndim non-negative extents; may be NULL when ndim is 0.
 * @param ext    the extension's state, with name and release set; on
 *               failure it stays the caller's (release is not called).
 * @param out    receives the new array (reference count 1); untouched on
 *               failure.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  out or ext NULL, ext's name or release
 *         NULL, dtype not a dtype, or shape NULL with ndim > 0.
 * @retval NCL_ERR_SHAPE      as NclFromData.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclArrayFromExt(NclDType dtype, int ndim, const int64_t *shape,
                                  NclArrayExt *ext, NclArray **out);
/**
 * A weakly typed scalar: a 0-d, read-only array holding a C value that
 * Binary and Ternary calls type as NumPy 2 types a Python scalar (NEP 50),
 * instead of as a 0-d array of its dtype. Beside array operands, an
 * integer takes their dtype (`int8 array + 1000` is int8 arithmetic) and a
 * float takes their float dtype, or float64 beside integers and bools
 * (`float32 array * 2.5` stays float32, `int8 array * 2.5` is float64); an
 * integer beside bools is int64. Where the loop that results is an integer
 * one, the value must fit it: `int8 array + 1000` and `uint8 array - 1`
 * are refused with NCL_ERR_CASTING, as NumPy 2 raises OverflowError. The
 * value is converted to the loop's dtype whatever params->casting says,
 * since that is what the scalar means. Operands that are all weak keep
 * their own dtypes. Comparisons need none of this (they compare the exact
 * values of any two dtypes), and in every other call a weak scalar is the
 * 0-d array it is.
 *
 * @param dtype  NCL_INT64 or NCL_UINT64 for an integer (a Python int; the
 *               unsigned type reaches 2^64 - 1), NCL_FLOAT64 for a float.
 * @param value  the value, of that dtype's C type.
 * @param out    receives the new scalar (reference count 1); untouched on
 *               failure.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  value or out NULL.
 * @retval NCL_ERR_DTYPE  another dtype.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclWeakScalar(NclDType dtype, const void *value, NclArray **out);
/**
 * The extension state of an external array (NclArrayFromExt).
 * @param a  an array, or NULL.
 * @return the ext it was created with; NULL for an ordinary array, for
 *         NULL, and for a pointer that is not an array (with the message
 *         in NclLastError).
 */
NCL_API NclArrayExt *NclArrayGetExt(const NclArray *a);

/**
 * Adds a reference to a (atomic: arrays may be shared read-only across
 * threads). Each reference is dropped with NclArrayRelease.
 * @param a  an array; NULL is ignored. A pointer that is not an array
 *           (see above) is ignored too, with the message left in
 *           NclLastError.
 */
NCL_API void NclArrayRetain(NclArray *a);
/**
 * Drops a reference (atomic). The last one clears the array's tag and
 * frees the array, and the data too when no other array or view shares it.
 * @param a  an array; NULL is fine. A pointer that is not an array (see
 *           above: a second release of a freed array, for one, while its
 *           memory is readable) is ignored, with the message left in
 *           NclLastError.
 */
NCL_API void NclArrayRelease(NclArray *a);

/** Number of dimensions.
    @param a  an array, or NULL.
    @return 0..NCL_MAXDIMS; 0 for NULL, and for a pointer that is not
            an array (with the message in NclLastError). */
NCL_API int NclArrayNDim(const NclArray *a);
/** The extents.
    @param a  an array, or NULL.
    @return NclArrayNDim(a) extents, owned by the array and valid while it
            lives; NULL for NULL, and for a pointer that is not an array
            (with the message in NclLastError). */
NCL_API const int64_t *NclArrayShape(const NclArray *a);
/** The strides, in bytes (any sign, zero where broadcast).
    @param a  an array, or NULL.
    @return NclArrayNDim(a) strides, owned by the array and valid while it
            lives; NULL for NULL, for an external array (NclArrayFromExt)
            and for a pointer that is not an array (with the message in
            NclLastError). */
NCL_API const int64_t *NclArrayStrides(const NclArray *a);
/** The element type.
    @param a  an array, or NULL.
    @return the dtype; NCL_DTYPE_DEFAULT for NULL, and for a pointer that
            is not an array (with the message in NclLastError). */
NCL_API NclDType NclArrayDType(const NclArray *a);
/** Where the elements are.
    @param a  an array, or NULL.
    @return the address of the first element (may be NULL for an empty
            wrapped array); NULL for NULL, for an external array
            (NclArrayFromExt) and for a pointer that is not an array (with
            the message in NclLastError). */
NCL_API void *NclArrayData(const NclArray *a);
/** Number of elements.
    @param a  an array, or NULL.
    @return the product of the extents (1 for a 0-d array); 0 for NULL,
            and for a pointer that is not an array (with the message in
            NclLastError). */
NCL_API int64_t NclArraySize(const NclArray *a);
/** The flags.
    @param a  an array, or NULL.
    @return NCL_ARRAY_* bits; 0 for NULL, and for a pointer that is not
            an array (with the message in NclLastError). */
NCL_API uint32_t NclArrayFlags(const NclArray *a);
/** Where the memory lives.
    @param a  an array, or NULL.
    @return the kind; NCL_MEM_UNKNOWN for NULL, for an external array,
            and for a pointer that is not an array (with the message in NclLastError). */
NCL_API NclMemKind NclArrayMemKind(const NclArray *a);
/** The device the memory belongs to.
    @param a  an array, or NULL.
    @return the id NclFromDataKind was given (0 for memory NCLib
            allocated); -1 for NULL, and for a pointer that is not an
            array (with the message in NclLastError). */
NCL_API int NclArrayDeviceId(const NclArray *a);
/** NEP 49 get_handler_name: the name of the handler that allocated the
    data.
    @param a  an array, or NULL.
    @return the handler's NclMemHandler::name, valid while the handler is;
            NULL for wrapped foreign memory and views of it, for NULL,
            and for a pointer that is not an array (with the message in
            NclLastError). */
NCL_API const char *NclArrayHandlerName(const NclArray *a);

/**
 * A view of a sliced per axis with NumPy's slice rules: start and stop are
 * clipped to the axis, negative values count from the end, step may be
 * negative but not zero. The view shares a's memory and keeps it alive;
 * it is writeable when a is.
 *
 * @param a      the array.
 * @param start  ndim starts, or NULL for the default of every axis. INT64_MIN
 *               means "none": the default for the step's sign (0, or the
 *               last element for a negative step).
 * @param stop   ndim stops, or NULL; INT64_MIN means "none" (the end for
 *               the step's sign).
 * @param step   ndim steps, or NULL for 1 on every axis.
 * @param out    receives a new view (reference count 1); untouched on
 *               failure.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  a or out NULL, a not an array, or a
 *                                   step of zero.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclArraySlice(const NclArray *a, const int64_t *start,
                                const int64_t *stop, const int64_t *step,
                                NclArray **out);
/**
 * A view of a with its axes permuted: axis i of the view is axis axes[i]
 * of a. Writeable when a is.
 *
 * @param a     the array.
 * @param axes  a permutation of 0..ndim-1 (negative values count from the
 *              end), ndim entries; NULL reverses the axes.
 * @param out   receives a new view (reference count 1); untouched on
 *              failure.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  a or out NULL, or a not an array.
 * @retval NCL_ERR_AXIS       an axis out of range or repeated.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclArrayTranspose(const NclArray *a, const int *axes, NclArray **out);
/**
 * a with a new shape of as many elements, as numpy.reshape: a view when the
 * strides allow it (always for C-contiguous a; the same shape is a plain
 * view), else a C-order copy made with the calling thread's current
 * allocator handler (not through the Create chain). A view is writeable
 * when a is; a copy is writeable and shares nothing with a.
 *
 * @param a      the array.
 * @param ndim   0..NCL_MAXDIMS.
 * @param shape  ndim extents, at most one of them -1 (inferred from the
 *               element count); may be NULL when ndim is 0.
 * @param out    receives a new view or array (reference count 1);
 *               untouched on failure.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  a or out NULL, a not an array, or
 *                                   shape NULL with ndim > 0.
 * @retval NCL_ERR_SHAPE      ndim out of range, a second -1 or another
 *         negative extent, or an element count that differs from a's or
 *         int64 cannot hold.
 * @retval NCL_ERR_DEVICE_MEMORY  a copy is needed and a is device memory.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclArrayReshape(const NclArray *a, int ndim, const int64_t *shape,
                                  NclArray **out);
/**
 * A read-only view of a broadcast to shape, as numpy.broadcast_to: leading
 * axes are added and axes of extent 1 are stretched, with stride 0.
 *
 * @param a      the array.
 * @param ndim   at least a's ndim, at most NCL_MAXDIMS.
 * @param shape  ndim extents; may be NULL when ndim is 0.
 * @param out    receives a new read-only view (reference count 1);
 *               untouched on failure.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  a or out NULL, a not an array, or
 *                                   shape NULL with ndim > 0.
 * @retval NCL_ERR_SHAPE      ndim out of range, a negative extent, or an
 *                            element count int64 cannot hold.
 * @retval NCL_ERR_BROADCAST  ndim below a's, or an extent of a other than 1
 *                            that differs from shape's.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclArrayBroadcastTo(const NclArray *a, int ndim, const int64_t *shape,
                                      NclArray **out);

/**
 * Copies one element out, as NumPy's a[i, j, ...] with a full index of
 * integers: the element's itemsize bytes, in a's dtype, no cast.
 *
 * @param a      the array.
 * @param index  ndim indices; a negative one counts from the end of its
 *               axis (-1 is the last). May be NULL only when a is 0-d.
 * @param value  receives the element (NclDTypeSize(dtype) bytes); untouched
 *               on failure.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  a or value NULL, a not an array, or
 *                                   index NULL with ndim > 0.
 * @retval NCL_ERR_DEVICE_MEMORY  a is device memory.
 * @retval NCL_ERR_INDEX  an index outside -n..n-1 of its axis; the message
 *         is NumPy's ("index 5 is out of bounds for axis 0 with size 3").
 */
NCL_API NclStatus NclArrayGetItem(const NclArray *a, const int64_t *index, void *value);
/**
 * Writes one element, as NumPy's a[i, j, ...] = value with a full index of
 * integers: value's itemsize bytes, already in a's dtype, are copied in.
 * value may point into a itself.
 *
 * @param a      the array; must be writeable.
 * @param index  as NclArrayGetItem.
 * @param value  the element (NclDTypeSize(dtype) bytes).
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  as NclArrayGetItem.
 * @retval NCL_ERR_DEVICE_MEMORY  a is device memory.
 * @retval NCL_ERR_READONLY  a is not writeable (checked before the index).
 * @retval NCL_ERR_INDEX  as NclArrayGetItem; nothing is written.
 */
NCL_API NclStatus NclArraySetItem(NclArray *a, const int64_t *index, const void *value);

/**
 * The text NumPy 1.24's repr() gives an array of the same dtype, shape and
 * values under the default print options (precision 8, threshold 1000,
 * edgeitems 3, linewidth 75, floatmode "maxprec", suppress False, sign
 * "-"): "array([[1, 2],\n       [3, 4]], dtype=int32)". That covers the
 * nesting and line wrapping, the summary with "..." of arrays of more than
 * 1000 elements, 0-d arrays ("array(5, dtype=int8)"), empty ones
 * ("array([], shape=(0, 3), dtype=int64)"), the dtype NumPy leaves out
 * (float64, int64 and bool with elements), and float notation: shortest
 * round-trip digits, at most 8 after the point, positional or scientific
 * as NumPy chooses, aligned, with "nan", "inf" and "-0.".
 *
 * The text is written only when it fits: call with buf NULL and cap 0 to
 * learn its length, then with cap at least that length plus one.
 *
 * @param a    the array.
 * @param buf  receives the NUL-terminated text; may be NULL when cap is 0.
 *             Untouched on failure.
 * @param cap  buf's size in bytes.
 * @param len  receives the text's length without the NUL, also when buf is
 *             too small; may be NULL.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  a NULL or not an array, buf NULL with
 *         cap > 0, or cap too small for the text and its NUL (the message
 *         says how many bytes are needed; *len has the length).
 * @retval NCL_ERR_DEVICE_MEMORY  a is device memory with elements.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclArrayFormat(const NclArray *a, char *buf, size_t cap, size_t *len);

NCL_END_DECLS

/** @} */

#endif /* NCL_ARRAY_H */
