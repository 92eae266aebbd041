/*
 * item.c: reading and writing one element by its index (NclArrayGetItem,
 * NclArraySetItem), NumPy's a[i, j, ...] for a full index of integers.
 * Elements are copied as raw bytes of the array's dtype: no cast happens
 * here, and nothing else about the array changes.
 */
#include <string.h>
#include "array/ncl_array.h"

/* The address of the element at index (ndim entries, negative ones counting
   from the end), after checking the arguments; writing adds the read-only
   refusal, made before the index is looked at as NumPy does. */
static NclStatus locate(const char *who, const NclArray *a, const int64_t *index,
                        const void *value, int writing, char **where)
{
    if (a == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: a is NULL", who);
    NclStatus s = ncl_array_check(who, "a", a);
    if (s != NCL_OK) return s;
    if (value == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: value is NULL", who);
    if (index == NULL && a->ndim > 0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "%s: index is NULL for an array of %d dimension%s", who, a->ndim,
                         a->ndim == 1 ? "" : "s");
    if (a->kind == NCL_MEM_DEVICE)
        return ncl_error(NCL_ERR_DEVICE_MEMORY,
                         "%s: the array is device memory (device %d); host code cannot touch "
                         "it", who, a->device_id);
    if (writing && !(a->flags & NCL_ARRAY_WRITEABLE))
        return ncl_error(NCL_ERR_READONLY, "%s: the array is read-only", who);
    char *p = a->data;
    for (int i = 0; i < a->ndim; i++) {
        const int64_t n = a->shape[i];
        int64_t k = index[i];
        /* Compare before adding: index[i] + n cannot overflow once k is
           known to be at least -n. */
        if (k < -n || k >= n)
            return ncl_error(NCL_ERR_INDEX, "%s: index %lld is out of bounds for axis %d "
                             "with size %lld", who, (long long)k, i, (long long)n);
        if (k < 0) k += n;
        /* In range of an array whose byte extent was checked when it was
           made, so the offset fits. */
        p += k * a->strides[i];
    }
    *where = p;
    return NCL_OK;
}

NclStatus NclArrayGetItem(const NclArray *a, const int64_t *index, void *value)
{
    char *p;
    NclStatus s = locate("NclArrayGetItem", a, index, value, 0, &p);
    if (s != NCL_OK) return s;
    memcpy(value, p, a->itemsize);
    return NCL_OK;
}

NclStatus NclArraySetItem(NclArray *a, const int64_t *index, const void *value)
{
    char *p;
    NclStatus s = locate("NclArraySetItem", a, index, value, 1, &p);
    if (s != NCL_OK) return s;
    /* memmove: value may point into the array itself. */
    memmove(p, value, a->itemsize);
    return NCL_OK;
}
