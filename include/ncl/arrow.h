/**
 * @file
 * @brief NCLib arrays as Arrow C Data Interface arrays and back.
 *
 * @defgroup ncl_arrow Arrow C data interface
 * @ingroup ncl_interop
 * @brief NclArray to and from Arrow primitive arrays and
 * arrow.fixed_shape_tensor extension arrays, with validity bitmaps.
 *
 * The two structs below are the Arrow C data interface's, declared under
 * its own guard macro (ARROW_C_DATA_INTERFACE), so this header and
 * Arrow's abi.h (or a copy of it) may be included in either order.
 *
 * A one-dimensional NCLib array is an Arrow primitive array ("c" int8, "C"
 * uint8, "s"/"S" 16-bit, "i"/"I" 32-bit, "l"/"L" 64-bit, "f" float32, "g"
 * float64, "b" boolean, which Arrow stores as bits); an N-dimensional one
 * of shape (d0, d1, ...) is an "arrow.fixed_shape_tensor" extension array
 * of d0 tensors of shape (d1, ...): a fixed-size list ("+w:<d1*...>") of
 * the element type, with the tensors' shape in the extension metadata, and
 * an imported one of length L and tensor shape (s1, ...) becomes an array
 * of shape (L, s1, ...). Nulls travel as a validity bitmap, which NCLib
 * sees as a bool array (true = valid). Every function here is thread-safe.
 * @{
 */
#ifndef NCL_ARROW_H
#define NCL_ARROW_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "array.h"

#ifndef ARROW_C_DATA_INTERFACE
/** The Arrow C data interface's guard: defined by whichever header declares
    ArrowSchema and ArrowArray first. */
#define ARROW_C_DATA_INTERFACE

/** ArrowSchema::flags bit: a dictionary's indices are ordered. */
#define ARROW_FLAG_DICTIONARY_ORDERED 1
/** ArrowSchema::flags bit: the field may hold nulls. */
#define ARROW_FLAG_NULLABLE 2
/** ArrowSchema::flags bit: a map's keys are sorted within each entry. */
#define ARROW_FLAG_MAP_KEYS_SORTED 4

/** The type of an Arrow array (the Arrow C data interface's struct). */
struct ArrowSchema {
    const char *format;             ///< The type as a format string ("g" float64, "+w:4" ...).
    const char *name;               ///< The field's name, or NULL.
    const char *metadata;           ///< Binary key/value metadata (extension type), or NULL.
    int64_t flags;                  ///< ARROW_FLAG_* bits.
    int64_t n_children;             ///< Number of child types.
    struct ArrowSchema **children;  ///< The child types.
    struct ArrowSchema *dictionary; ///< The dictionary's type, or NULL.
    void (*release)(struct ArrowSchema *); ///< Frees the struct's contents; NULL once released.
    void *private_data;             ///< The producer's.
};

/** The data of an Arrow array (the Arrow C data interface's struct). */
struct ArrowArray {
    int64_t length;                 ///< Number of elements (slots).
    int64_t null_count;             ///< Number of nulls, or -1 when not computed.
    int64_t offset;                 ///< Logical offset of the first element in the buffers.
    int64_t n_buffers;              ///< Number of buffers (2 for a primitive array).
    int64_t n_children;             ///< Number of children.
    const void **buffers;           ///< The buffers: validity bitmap (or NULL), then values.
    struct ArrowArray **children;   ///< The children.
    struct ArrowArray *dictionary;  ///< The dictionary, or NULL.
    void (*release)(struct ArrowArray *); ///< Frees the array; NULL once released (or moved).
    void *private_data;             ///< The producer's.
};
#endif /* ARROW_C_DATA_INTERFACE */

NCL_BEGIN_DECLS

/**
 * Exports a (and, if valid is not NULL, the validity of its elements) into
 * the caller's schema and array structs, which the caller releases with
 * their release callbacks (each once, from any thread; the structs may be
 * moved first, as the interface allows).
 * A one-dimensional array whose elements are contiguous, and an
 * N-dimensional C-contiguous one, are exported without copying the data
 * (the export holds a reference to a); other layouts, booleans (bits in
 * Arrow) and the validity bitmap are copies. A zero-dimensional array is a
 * one-element one-dimensional array.
 * @param a       the array; the caller may release it at once.
 * @param valid   NULL, or a bool array of a's shape, true = present.
 * @param schema  receives the type; on failure left released (release
 *                NULL).
 * @param array   receives the data; on failure left released (release
 *                NULL).
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  a, schema or array NULL, a or valid
 *         not an array, or a valid of another dtype or shape.
 * @retval NCL_ERR_DEVICE_MEMORY  a or valid in device or unknown memory.
 * @retval NCL_ERR_SHAPE  a's elements have more bytes than int64 can count
 *         (a view with zero strides).
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclToArrow(const NclArray *a, const NclArray *valid, struct ArrowSchema *schema,
                             struct ArrowArray *array);

/**
 * Imports an Arrow array described by schema: the primitive formats above
 * (one-dimensional) or an "arrow.fixed_shape_tensor" of them. The array is
 * moved in (array->release is NULL afterwards, and NCLib calls the moved
 * struct's release once: when the last NclArray or view on its memory is
 * released, or before returning when the values were copied); the schema
 * is only read, and stays the caller's. *out views the values without
 * copying, except booleans (unpacked from bits) and values that are not
 * aligned to their type (copied). When valid_out is not NULL it gets the
 * validity as a bool array of the same shape (NULL when no element is
 * null; a copy); without valid_out an array with nulls is refused, since
 * its values there are undefined. The array and views are read-only:
 * Arrow data is immutable once shared.
 *
 * Refused with the array still released once (as if moved in and
 * dropped), unless it was already released.
 * @param schema     the array's type.
 * @param array      the array, moved in.
 * @param out        receives a new read-only array (reference count 1);
 *                   NULL on failure.
 * @param valid_out  NULL, or receives the validity (a new bool array, or
 *                   NULL); NULL on failure.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  NULL arguments; a released struct
 *         (release NULL); a negative length or offset, or a null count
 *         below -1; a buffer count or child count the format does not
 *         have; values shorter than the tensors; NULL buffers where
 *         elements exist; an offset and length that reach past the end of
 *         the address space from their buffers; malformed extension
 *         metadata; nulls without valid_out.
 * @retval NCL_ERR_UNSUPPORTED  a format NCLib has no dtype for, a
 *         fixed_shape_tensor with a permutation, or null tensors (the
 *         list's own validity).
 * @retval NCL_ERR_SHAPE  a tensor shape, or tensors of it, whose element
 *         count int64 cannot hold; an offset and length (the child's plus
 *         the list's in whole tensors) whose last element's position, or
 *         its byte position, int64 cannot hold.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclFromArrow(const struct ArrowSchema *schema, struct ArrowArray *array,
                               NclArray **out, NclArray **valid_out);

NCL_END_DECLS

/** @} */

#endif /* NCL_ARROW_H */
