/*
 * ncl/arrow.h: NCLib arrays as Arrow C Data Interface arrays and back.
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
 * sees as a bool array (true = valid).
 */
#ifndef NCL_ARROW_H
#define NCL_ARROW_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "array.h"

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};
#endif /* ARROW_C_DATA_INTERFACE */

NCL_BEGIN_DECLS

/* Exports a (and, if valid is not NULL, the validity of its elements: a
   bool array of a's shape, true = present) into the caller's schema and
   array structs, which the caller releases with their release callbacks
   (each once; the structs may be moved first, as the interface allows).
   A one-dimensional array whose elements are contiguous, and an
   N-dimensional C-contiguous one, are exported without copying the data
   (the export holds a reference to a); other layouts, booleans (bits in
   Arrow) and the validity bitmap are copies. A zero-dimensional array is a
   one-element one-dimensional array. NCL_ERR_INVALID_ARGUMENT for NULL arguments or a
   valid of another dtype or shape; NCL_ERR_DEVICE_MEMORY for device
   memory; NCL_ERR_NO_MEMORY. On failure both structs are left released
   (release NULL). */
NCL_API NclStatus NclToArrow(const NclArray *a, const NclArray *valid, struct ArrowSchema *schema,
                             struct ArrowArray *array);

/* Imports an Arrow array described by schema: the primitive formats above
   (one-dimensional) or an "arrow.fixed_shape_tensor" of them. The array is
   moved in (array->release is NULL afterwards, and NCLib calls the moved
   struct's release once, when the last NclArray or view on its memory is
   released); the schema is only read, and stays the caller's. *out views
   the values without copying, except booleans (unpacked from bits) and
   values that are not aligned to their type (copied). When valid_out is
   not NULL it gets the validity as a bool array of the same shape (NULL
   when the array has no validity bitmap; a copy); without valid_out an
   array with nulls is refused, since its values there are undefined.
   Refused with the array still released once (as if moved in and
   dropped): NCL_ERR_INVALID_ARGUMENT for NULL arguments, a released struct
   (release NULL), a negative length, offset or null count, a buffer count
   or child count the format does not have, NULL buffers where elements
   exist, or malformed extension metadata; NCL_ERR_UNSUPPORTED for formats
   NCLib has no dtype for; NCL_ERR_NO_MEMORY. The array and views are
   read-only: Arrow data is immutable once shared. */
NCL_API NclStatus NclFromArrow(const struct ArrowSchema *schema, struct ArrowArray *array,
                               NclArray **out, NclArray **valid_out);

NCL_END_DECLS

#endif /* NCL_ARROW_H */
