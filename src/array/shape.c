/*
 * shape.c: validation of shapes at the API boundary. Everything that builds
 * an array goes through ncl_shape_check, so "ndim in 0..NCL_MAXDIMS, no
 * negative extent, element count fits int64" is enforced in one place.
 */
#include "array/ncl_array.h"

NclStatus ncl_shape_check(const char *who, int ndim, const int64_t *shape, int64_t *size)
{
    char buf[NCL_SHAPE_STR];
    if (ndim < 0 || ndim > NCL_MAXDIMS)
        return ncl_error(NCL_ERR_SHAPE, "%s: ndim %d is out of range (0 to %d)", who, ndim,
                         NCL_MAXDIMS);
    if (ndim > 0 && shape == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: shape is NULL for ndim %d", who, ndim);
    /* Every extent is checked on its own, and the product of the non-zero
       ones must fit too, as in NumPy: a zero extent makes the array empty
       but does not make an absurd shape valid (strides are built from that
       product). */
    int64_t n = 1;
    int empty = 0;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return ncl_error(NCL_ERR_SHAPE, "%s: shape %s has a negative extent at axis %d",
                             who, ncl_shape_str(buf, ndim, shape), i);
        if (shape[i] == 0) {
            empty = 1;
            continue;
        }
        if (ncl_mul_overflow(n, shape[i], &n))
            return ncl_error(NCL_ERR_SHAPE,
                             "%s: shape %s has more elements than int64 can count", who,
                             ncl_shape_str(buf, ndim, shape));
    }
    if (size != NULL) *size = empty ? 0 : n;
    return NCL_OK;
}
