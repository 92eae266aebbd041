/*
 * ncl_array.h: the NclArray object, its views and shape arithmetic
 * (array.c, shape.c). An array owns (a reference to) an ncl_buffer, never
 * raw memory.
 *
 * array/ includes core/ and memory/ only: anything that computes (a copy
 * into a new layout) belongs to exec/.
 */
#ifndef NCL_SRC_ARRAY_H
#define NCL_SRC_ARRAY_H

#include "memory/ncl_memory.h"

/* ---- shape arithmetic (shape.c) ------------------------------------------- */

/* Validates ndim and shape and computes the element count, refusing
   overflow of int64. NCL_ERR_SHAPE with a message naming who. */
NclStatus ncl_shape_check(const char *who, int ndim, const int64_t *shape, int64_t *size);

/* ---- arrays (array.c) ----------------------------------------------------- */

struct NclArray {
    uint64_t magic;         /* NCL_ARRAY_MAGIC while the array lives (core/ncl_core.h) */
    atomic_long refs;
    NclDType dtype;
    int ndim;
    uint32_t flags;
    NclMemKind kind;
    int device_id;
    int64_t size;           /* element count */
    size_t itemsize;
    char *data;             /* first element */
    ncl_buffer *buf;        /* owner of the memory; NULL when the caller keeps it */
    NclArrayExt *ext;       /* an external array's owner (NclArrayFromExt), else NULL */
    int64_t *shape;         /* -> dims[0 .. ndim) */
    int64_t *strides;       /* -> dims[ndim .. 2 ndim) */
    int64_t dims[];
};

/* Whether a is a live NclArray: its first word is NCL_ARRAY_MAGIC
   (core/ncl_core.h). NCL_OK, or NCL_ERR_INVALID_ARGUMENT with the message
   "who: what is not an NclArray (a freed array, or another object)". The
   check every public entry point makes on each array it is given (inputs,
   and a non-NULL *out to be written into) before anything else reads it.
   An external array (NclArrayFromExt, tag NCL_ARRAY_EXT_MAGIC) is refused
   too, with NCL_ERR_UNSUPPORTED (ncl_array_local_check): its elements are
   not here. Subsystem calls check only the tag (ncl_array_tag_check), so
   that their hooks see external arrays; their defaults refuse them
   (api/chains.c).
   a must point to at least 8 readable bytes: foreign objects and freed
   arrays whose memory is still mapped are refused; memory that is not
   readable cannot be told apart and still faults. NULL passes (NCL_OK):
   each entry point refuses or accepts NULL as it did before. Defined in
   core/error.c (ncl_array_tag_ok is the test without the message). */
NclStatus ncl_array_check(const char *who, const char *what, const NclArray *a);
/* NCL_OK for NULL, a live array and an external one; the message of
   ncl_array_check for anything else. */
NclStatus ncl_array_tag_check(const char *who, const char *what, const NclArray *a);
/* NCL_ERR_UNSUPPORTED when a is an external array; NCL_OK for NULL and
   anything else (a must have passed the tag check). */
NclStatus ncl_array_local_check(const char *who, const char *what, const NclArray *a);

/* A new array owning fresh memory from the current handler: C or F order,
   zeroed when zero is set. shape must already be valid (ncl_shape_check). */
NclStatus ncl_array_alloc(const char *who, NclDType dtype, int ndim, const int64_t *shape,
                          NclOrder order, int zero, NclArray **out);
/* A new array struct over existing memory (a view): shares buf (retained),
   recomputes size and the contiguity/alignment flags; flags carries
   WRITEABLE (and OWNDATA is never set on a view). */
NclStatus ncl_array_view(const char *who, const NclArray *base, int ndim, const int64_t *shape,
                         const int64_t *strides, char *data, uint32_t flags, NclArray **out);
/* NclArrayReshape as far as no element moves: validates ndim and shape
   (messages naming who), writes the shape with -1 resolved into resolved
   (room for NCL_MAXDIMS) and makes *out a view of a when some strides
   describe the new shape (NumPy's no-copy rule). *out is NULL on NCL_OK
   when only a copy can have the new shape. */
NclStatus ncl_array_reshape_view(const char *who, const NclArray *a, int ndim,
                                 const int64_t *shape, int64_t *resolved, NclArray **out);
/* Recomputes NCL_ARRAY_C_CONTIGUOUS / F_CONTIGUOUS / ALIGNED of a. */
void ncl_array_update_flags(NclArray *a);
/* Byte range [lo, hi) that the elements of a touch (lo == hi when empty). */
void ncl_array_extent(const NclArray *a, const char **lo, const char **hi);
/* Whether the byte ranges of a and b (ncl_array_extent) intersect; never
   for an empty array. A cheap, sufficient test that they share no memory. */
int ncl_array_ranges_overlap(const NclArray *a, const NclArray *b);
/* Sufficient test that no two elements of a share memory (ordered by
   stride, each dimension steps past what the inner ones span). An output
   that fails it would make results depend on the order of writes; a few
   exotic interleaved layouts that do not overlap are refused too. */
int ncl_array_has_internal_overlap(const NclArray *a);
/* Copies a's elements in C order into dst (room for a->size elements),
   whole rows at a time where the last axis is contiguous. */
void ncl_array_copy_c_order(const NclArray *a, char *dst);
/* The reverse: o's elements, in C order, from the o->size contiguous ones at
   src. */
void ncl_array_copy_from_c_order(NclArray *o, const char *src);


#endif /* NCL_SRC_ARRAY_H */
