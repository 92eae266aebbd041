/*
 * array.c: the reference-counted array and its views. An NclArray is one
 * malloc'd block (the struct and its 2*ndim shape/stride words); its data is
 * owned by a shared ncl_buffer (memory.c), so views keep the memory alive
 * without keeping their source array alive. Nothing here reads or writes
 * element data (NclArrayReshape, whose fallback copies, is in exec/assign.c
 * on top of ncl_array_reshape_view), so views of device memory are as cheap
 * and legal as views of host memory.
 */
#include <stdlib.h>
#include <string.h>
#include "array/ncl_array.h"

/* ---- the tag ----------------------------------------------------------------- */

/* The accessors that return no status: a bad tag leaves the message and
   makes them return as for NULL. Those of what every array has (shape,
   dtype, flags, references) take external arrays too. */
static int accessor_ok(const char *who, const NclArray *a)
{
    if (a == NULL) return 0;
    if (NCL_LIKELY(ncl_array_tag(a) == NCL_ARRAY_MAGIC)) return 1;
    (void)ncl_array_check(who, "a", a);
    return 0;
}
static int accessor_any_ok(const char *who, const NclArray *a)
{
    if (a == NULL) return 0;
    if (NCL_LIKELY(ncl_array_tag_any_ok(a))) return 1;
    (void)ncl_array_tag_check(who, "a", a);
    return 0;
}

/* ---- construction ------------------------------------------------------------ */

static NclArray *array_new(int ndim)
{
    NclArray *a = (NclArray *)malloc(sizeof *a + 2 * (size_t)ndim * sizeof(int64_t));
    if (a == NULL) return NULL;
    a->magic = NCL_ARRAY_MAGIC;
    atomic_init(&a->refs, 1);
    a->shape = a->dims;
    a->strides = a->dims + ndim;
    a->ndim = ndim;
    a->buf = NULL;
    a->ext = NULL;
    return a;
}

/* Strides of a contiguous layout. A zero extent counts as one, as in
   NumPy, so an empty array still has the strides its shape implies.
   Returns -1 when a stride (or the byte size) would overflow int64. */
static int fill_strides(int ndim, const int64_t *shape, int64_t itemsize, NclOrder order,
                        int64_t *strides, int64_t *nbytes)
{
    int64_t s = itemsize;
    for (int k = 0; k < ndim; k++) {
        int i = order == NCL_ORDER_F ? k : ndim - 1 - k;
        strides[i] = s;
        if (shape[i] > 1 && ncl_mul_overflow(s, shape[i], &s)) return -1;
    }
    if (nbytes != NULL) *nbytes = s;
    return 0;
}

/* Lowest and highest byte offsets (hi exclusive of the last element's
   bytes included) reachable from the data pointer; -1 on int64 overflow.
   Empty arrays reach nothing. */
static int byte_range(int ndim, const int64_t *shape, const int64_t *strides, int64_t itemsize,
                      int64_t *lo, int64_t *hi)
{
    int64_t l = 0, h = 0;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] == 0) {
            *lo = *hi = 0;
            return 0;
        }
    }
    for (int i = 0; i < ndim; i++) {
        int64_t d;
        if (ncl_mul_overflow(shape[i] - 1, strides[i], &d)) return -1;
        if (d < 0 ? ncl_add_overflow(l, d, &l) : ncl_add_overflow(h, d, &h)) return -1;
    }
    if (ncl_add_overflow(h, itemsize, &h)) return -1;
    *lo = l;
    *hi = h;
    return 0;
}

void ncl_array_update_flags(NclArray *a)
{
    const int64_t item = (int64_t)a->itemsize;
    uint32_t f = a->flags & ~(uint32_t)(NCL_ARRAY_C_CONTIGUOUS | NCL_ARRAY_F_CONTIGUOUS |
                                       NCL_ARRAY_ALIGNED);
    int empty = 0;
    for (int i = 0; i < a->ndim; i++) empty |= a->shape[i] == 0;

    /* NumPy's definition: axes of extent 1 have no say in contiguity, and
       an empty array is contiguous both ways. */
    int c = 1, fo = 1;
    if (!empty) {
        int64_t sd = item;
        for (int i = a->ndim - 1; i >= 0; i--) {
            if (a->shape[i] == 1) continue;
            if (a->strides[i] != sd || ncl_mul_overflow(sd, a->shape[i], &sd)) { c = 0; break; }
        }
        sd = item;
        for (int i = 0; i < a->ndim; i++) {
            if (a->shape[i] == 1) continue;
            if (a->strides[i] != sd || ncl_mul_overflow(sd, a->shape[i], &sd)) { fo = 0; break; }
        }
    }
    if (c) f |= NCL_ARRAY_C_CONTIGUOUS;
    if (fo) f |= NCL_ARRAY_F_CONTIGUOUS;

    /* Aligned: every element starts at a multiple of its size (kernels load
       typed values). Strides along axes of extent <= 1 never move. */
    uint64_t bits = (uint64_t)(uintptr_t)a->data;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] > 1) bits |= (uint64_t)a->strides[i];
    if (empty || item <= 1 || (bits & (uint64_t)(item - 1)) == 0) f |= NCL_ARRAY_ALIGNED;
    a->flags = f;
}

NclStatus ncl_array_alloc(const char *who, NclDType dtype, int ndim, const int64_t *shape,
                          NclOrder order, int zero, NclArray **out)
{
    char buf[NCL_SHAPE_STR];
    int64_t size, nbytes;
    NclStatus s = ncl_shape_check(who, ndim, shape, &size);
    if (s != NCL_OK) return s;
    const int64_t item = (int64_t)ncl_dtype_size[dtype];
    NclArray *a = array_new(ndim);
    if (a == NULL)
        return ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory for an array of shape %s", who,
                         ncl_shape_str(buf, ndim, shape));
    if (ndim > 0) memcpy(a->shape, shape, (size_t)ndim * sizeof *shape);
    if (fill_strides(ndim, shape, item, order, a->strides, &nbytes) != 0 ||
        (uint64_t)nbytes > (uint64_t)SIZE_MAX) {
        free(a);
        return ncl_error(NCL_ERR_SHAPE, "%s: an array of shape %s and dtype %s would have "
                         "more bytes than int64 can count", who, ncl_shape_str(buf, ndim, shape),
                         NclDTypeName(dtype));
    }
    if (size == 0) nbytes = 0;
    s = ncl_buffer_alloc(who, (size_t)nbytes, zero, &a->buf);
    if (s != NCL_OK) {
        free(a);
        return s;
    }
    a->dtype = dtype;
    a->kind = NCL_MEM_HOST;
    a->device_id = 0;
    a->size = size;
    a->itemsize = (size_t)item;
    a->data = (char *)a->buf->base;
    a->flags = NCL_ARRAY_OWNDATA | NCL_ARRAY_WRITEABLE;
    ncl_array_update_flags(a);
    *out = a;
    return NCL_OK;
}

NclStatus ncl_array_view(const char *who, const NclArray *base, int ndim, const int64_t *shape,
                         const int64_t *strides, char *data, uint32_t flags, NclArray **out)
{
    int64_t size;
    NclStatus s = ncl_shape_check(who, ndim, shape, &size);
    if (s != NCL_OK) return s;
    NclArray *a = array_new(ndim);
    if (a == NULL) return ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory for a view", who);
    /* shape/strides may alias the new array's storage only if the caller
       is confused; memmove costs nothing extra here. */
    if (ndim > 0) {
        memmove(a->shape, shape, (size_t)ndim * sizeof *shape);
        memmove(a->strides, strides, (size_t)ndim * sizeof *strides);
    }
    a->dtype = base->dtype;
    a->kind = base->kind;
    a->device_id = base->device_id;
    a->size = size;
    a->itemsize = base->itemsize;
    a->data = data;
    a->buf = base->buf;
    ncl_buffer_retain(a->buf);
    a->flags = flags & NCL_ARRAY_WRITEABLE;
    ncl_array_update_flags(a);
    *out = a;
    return NCL_OK;
}

void ncl_array_extent(const NclArray *a, const char **lo, const char **hi)
{
    int64_t l = 0, h = 0;
    if (a->size != 0 && byte_range(a->ndim, a->shape, a->strides, (int64_t)a->itemsize, &l, &h) != 0)
        l = h = 0; /* cannot happen: checked when the array was made */
    *lo = a->size != 0 ? a->data + l : a->data;
    *hi = a->size != 0 ? a->data + h : a->data;
}

int ncl_array_ranges_overlap(const NclArray *a, const NclArray *b)
{
    const char *alo, *ahi, *blo, *bhi;
    ncl_array_extent(a, &alo, &ahi);
    ncl_array_extent(b, &blo, &bhi);
    return alo != ahi && blo != bhi && alo < bhi && blo < ahi;
}

/* ---- wrapping foreign memory ---------------------------------------------------- */

NclStatus NclFromDataKind(NclDType dtype, int ndim, const int64_t *shape, const int64_t *strides,
                          void *data, uint32_t flags, NclDeleter deleter, void *deleter_ctx,
                          NclMemKind kind, int device_id, NclArray **out)
{
    static const char who[] = "NclFromData";
    char b1[NCL_SHAPE_STR], b2[NCL_SHAPE_STR];
    if (out == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: out is NULL", who);
    if (!ncl_dtype_valid(dtype))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: dtype %d is not a valid dtype", who,
                         (int)dtype);
    if ((flags & ~(uint32_t)NCL_ARRAY_WRITEABLE) != 0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: flags 0x%x: only NCL_ARRAY_WRITEABLE "
                         "(0x%x) may be passed in", who, (unsigned)flags,
                         (unsigned)NCL_ARRAY_WRITEABLE);
    if ((unsigned)kind > (unsigned)NCL_MEM_UNKNOWN)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: memory kind %d is not valid", who,
                         (int)kind);
    int64_t size;
    NclStatus s = ncl_shape_check(who, ndim, shape, &size);
    if (s != NCL_OK) return s;
    if (data == NULL && size != 0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: data is NULL for an array of shape %s "
                         "with %lld elements", who, ncl_shape_str(b1, ndim, shape),
                         (long long)size);
    const int64_t item = (int64_t)ncl_dtype_size[dtype];

    NclArray *a = array_new(ndim);
    if (a == NULL)
        return ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory for an array of shape %s", who,
                         ncl_shape_str(b1, ndim, shape));
    if (ndim > 0) memcpy(a->shape, shape, (size_t)ndim * sizeof *shape);
    if (strides != NULL) {
        if (ndim > 0) memcpy(a->strides, strides, (size_t)ndim * sizeof *strides);
    } else if (fill_strides(ndim, shape, item, NCL_ORDER_C, a->strides, NULL) != 0) {
        free(a);
        return ncl_error(NCL_ERR_SHAPE, "%s: a C-order array of shape %s and dtype %s would "
                         "span more bytes than int64 can count", who,
                         ncl_shape_str(b1, ndim, shape), NclDTypeName(dtype));
    }
    int64_t lo, hi;
    if (byte_range(ndim, a->shape, a->strides, item, &lo, &hi) != 0) {
        s = ncl_error(NCL_ERR_SHAPE, "%s: shape %s with strides %s spans more bytes than "
                      "int64 can count", who, ncl_shape_str(b1, ndim, shape),
                      ncl_shape_str(b2, ndim, a->strides));
        free(a);
        return s;
    }
    /* The elements must be addressable: data+lo .. data+hi may not wrap. */
    if (size != 0 && ((uint64_t)(uintptr_t)data < (uint64_t)0 - (uint64_t)lo ||
                      UINTPTR_MAX - (uintptr_t)data < (uint64_t)hi)) {
        s = ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: shape %s with strides %s from data %p "
                      "reaches outside the address space", who, ncl_shape_str(b1, ndim, shape),
                      ncl_shape_str(b2, ndim, a->strides), data);
        free(a);
        return s;
    }
    if (deleter != NULL) {
        s = ncl_buffer_wrap(who, data, deleter, deleter_ctx, &a->buf);
        if (s != NCL_OK) {
            free(a);
            return s;
        }
    }
    a->dtype = dtype;
    a->kind = kind;
    a->device_id = device_id;
    a->size = size;
    a->itemsize = (size_t)item;
    a->data = (char *)data;
    a->flags = flags;
    ncl_array_update_flags(a);
    *out = a;
    return NCL_OK;
}

NclStatus NclWeakScalar(NclDType dtype, const void *value, NclArray **out)
{
    static const char who[] = "NclWeakScalar";
    if (value == NULL || out == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who,
                         value == NULL ? "value" : "out");
    if (dtype != NCL_INT64 && dtype != NCL_UINT64 && dtype != NCL_FLOAT64)
        return ncl_error(NCL_ERR_DTYPE,
                         "%s: a weak scalar is an int64 or uint64 (a Python int) or a float64 "
                         "(a Python float), not %s",
                         who, (unsigned)dtype < NCL_NTYPES ? NclDTypeName(dtype) : "an unknown dtype");
    NclArray *a;
    NclStatus s = ncl_array_alloc(who, dtype, 0, NULL, NCL_ORDER_C, 0, &a);
    if (s != NCL_OK) return s;
    memcpy(a->data, value, a->itemsize);
    a->flags = (a->flags & ~(uint32_t)NCL_ARRAY_WRITEABLE) | NCL_ARRAY_WEAK;
    *out = a;
    return NCL_OK;
}

NclStatus NclFromData(NclDType dtype, int ndim, const int64_t *shape, const int64_t *strides,
                      void *data, uint32_t flags, NclDeleter deleter, void *deleter_ctx,
                      NclArray **out)
{
    return NclFromDataKind(dtype, ndim, shape, strides, data, flags, deleter, deleter_ctx,
                           NCL_MEM_HOST, 0, out);
}

NclStatus NclArrayFromExt(NclDType dtype, int ndim, const int64_t *shape, NclArrayExt *ext,
                          NclArray **out)
{
    static const char who[] = "NclArrayFromExt";
    if (out == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: out is NULL", who);
    if (ext == NULL || ext->name == NULL || ext->release == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: ext%s is NULL", who,
                         ext == NULL ? "" : ext->name == NULL ? "->name" : "->release");
    if (!ncl_dtype_valid(dtype))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: dtype %d is not a dtype", who, (int)dtype);
    if (shape == NULL && ndim > 0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: shape is NULL with ndim %d", who, ndim);
    int64_t size;
    NclStatus st = ncl_shape_check(who, ndim, shape, &size);
    if (st != NCL_OK) return st;
    NclArray *a = array_new(ndim);
    if (a == NULL) return ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    a->magic = NCL_ARRAY_EXT_MAGIC;
    a->dtype = dtype;
    a->itemsize = ncl_dtype_size[dtype];
    a->size = size;
    a->flags = NCL_ARRAY_EXTERNAL;
    a->kind = NCL_MEM_UNKNOWN;
    a->device_id = -1;
    a->data = NULL;
    a->ext = ext;
    for (int i = 0; i < ndim; i++) {
        a->shape[i] = shape[i];
        a->strides[i] = 0;
    }
    *out = a;
    return NCL_OK;
}

NclArrayExt *NclArrayGetExt(const NclArray *a)
{
    return accessor_any_ok("NclArrayGetExt", a) ? a->ext : NULL;
}

/* ---- reference counting and accessors ------------------------------------------ */

void NclArrayRetain(NclArray *a)
{
    if (accessor_any_ok("NclArrayRetain", a))
        atomic_fetch_add_explicit(&a->refs, 1, memory_order_relaxed);
}

void NclArrayRelease(NclArray *a)
{
    if (!accessor_any_ok("NclArrayRelease", a)) return;
    if (atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) != 1) return;
    ncl_buffer_release(a->buf);
    /* Cleared before the free, so a later call with this pointer is
       refused while the memory stays readable. Volatile: a store just
       before free() is otherwise a dead store the compiler may drop. */
    *(volatile uint64_t *)&a->magic = NCL_ARRAY_DEAD;
    if (a->ext) a->ext->release(a->ext);
    free(a);
}

int NclArrayNDim(const NclArray *a)
{
    return accessor_any_ok("NclArrayNDim", a) ? a->ndim : 0;
}
const int64_t *NclArrayShape(const NclArray *a)
{
    return accessor_any_ok("NclArrayShape", a) ? a->shape : NULL;
}
const int64_t *NclArrayStrides(const NclArray *a)
{
    return accessor_ok("NclArrayStrides", a) ? a->strides : NULL;
}
NclDType NclArrayDType(const NclArray *a)
{
    return accessor_any_ok("NclArrayDType", a) ? a->dtype : NCL_DTYPE_DEFAULT;
}
void *NclArrayData(const NclArray *a)
{
    return accessor_ok("NclArrayData", a) ? a->data : NULL;
}
int64_t NclArraySize(const NclArray *a)
{
    return accessor_any_ok("NclArraySize", a) ? a->size : 0;
}
uint32_t NclArrayFlags(const NclArray *a)
{
    return accessor_any_ok("NclArrayFlags", a) ? a->flags : 0;
}
NclMemKind NclArrayMemKind(const NclArray *a)
{
    return accessor_ok("NclArrayMemKind", a) ? a->kind : NCL_MEM_UNKNOWN;
}
int NclArrayDeviceId(const NclArray *a)
{
    return accessor_ok("NclArrayDeviceId", a) ? a->device_id : -1;
}

const char *NclArrayHandlerName(const NclArray *a)
{
    if (!accessor_ok("NclArrayHandlerName", a) || a->buf == NULL || a->buf->handler == NULL)
        return NULL;
    return a->buf->handler->name;
}

/* ---- views ------------------------------------------------------------------------ */

/* The view's first element: base data moved by off bytes. An empty view
   keeps the base pointer, so no pointer arithmetic ever leaves the block
   (or is applied to the NULL data an empty wrapped array may have). */
static char *view_data(const NclArray *a, int64_t off, int ndim, const int64_t *shape)
{
    for (int i = 0; i < ndim; i++)
        if (shape[i] == 0) return a->data;
    return a->data + off;
}

/* Clips one axis the way Python's slice.indices does; returns the length.
   INT64_MIN means the default for the step's sign; step is neither 0 nor
   INT64_MIN. */
static int64_t slice_axis(int64_t len, int64_t start, int64_t stop, int64_t step,
                          int64_t *first)
{
    const int64_t none = INT64_MIN;
    if (step > 0) {
        if (start == none) start = 0;
        else if (start < 0) { start += len; if (start < 0) start = 0; }
        else if (start > len) start = len;
        if (stop == none) stop = len;
        else if (stop < 0) { stop += len; if (stop < 0) stop = 0; }
        else if (stop > len) stop = len;
        *first = start;
        return stop > start ? (stop - start - 1) / step + 1 : 0;
    }
    if (start == none) start = len - 1;
    else if (start < 0) { start += len; if (start < 0) start = -1; }
    else if (start >= len) start = len - 1;
    if (stop == none) stop = -1;
    else if (stop < 0) { stop += len; if (stop < 0) stop = -1; }
    else if (stop >= len) stop = len - 1;
    *first = start;
    return start > stop ? (start - stop - 1) / -step + 1 : 0;
}

NclStatus NclArraySlice(const NclArray *a, const int64_t *start, const int64_t *stop,
                        const int64_t *step, NclArray **out)
{
    static const char who[] = "NclArraySlice";
    if (a == NULL || out == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who, a ? "out" : "a");
    NclStatus chk = ncl_array_check(who, "a", a);
    if (chk != NCL_OK) return chk;
    const int nd = a->ndim;
    int64_t shape[NCL_MAXDIMS], strides[NCL_MAXDIMS], off = 0;
    for (int i = 0; i < nd; i++) {
        int64_t st = step != NULL ? step[i] : 1;
        if (st == 0)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: slice step of axis %d is zero",
                             who, i);
        /* Python's slice unpacking clamps the step to -INT64_MAX. */
        if (st == INT64_MIN) st = -INT64_MAX;
        int64_t first;
        int64_t n = slice_axis(a->shape[i], start != NULL ? start[i] : INT64_MIN,
                               stop != NULL ? stop[i] : INT64_MIN, st, &first);
        shape[i] = n;
        /* NumPy's strides: an empty axis keeps its stride; otherwise stride
           times step. That overflows only where it is never applied (one
           element kept, or an empty array, whose strides nothing bounds), so
           the wrapped product NumPy reports is as good as any. */
        if (n == 0) strides[i] = a->strides[i];
        else if (ncl_mul_overflow(a->strides[i], st, &strides[i]))
            strides[i] = (int64_t)((uint64_t)a->strides[i] * (uint64_t)st);
        /* An empty source may carry any strides (nothing bounds them), and
           an empty view never moves the pointer: skip the arithmetic. */
        if (n > 0 && a->size > 0) off += first * a->strides[i];
    }
    return ncl_array_view(who, a, nd, shape, strides, view_data(a, off, nd, shape),
                          a->flags & NCL_ARRAY_WRITEABLE, out);
}

NclStatus NclArrayTranspose(const NclArray *a, const int *axes, NclArray **out)
{
    static const char who[] = "NclArrayTranspose";
    if (a == NULL || out == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who, a ? "out" : "a");
    NclStatus chk = ncl_array_check(who, "a", a);
    if (chk != NCL_OK) return chk;
    const int nd = a->ndim;
    int64_t shape[NCL_MAXDIMS], strides[NCL_MAXDIMS];
    unsigned char seen[NCL_MAXDIMS] = {0};
    for (int i = 0; i < nd; i++) {
        int ax = axes != NULL ? axes[i] : nd - 1 - i;
        if (ax < -nd || ax >= nd)
            return ncl_error(NCL_ERR_AXIS, "%s: axis %d is out of bounds for an array of "
                             "dimension %d", who, ax, nd);
        if (ax < 0) ax += nd;
        if (seen[ax])
            return ncl_error(NCL_ERR_AXIS, "%s: axis %d is repeated: axes must be a "
                             "permutation of 0..%d", who, ax, nd - 1);
        seen[ax] = 1;
        shape[i] = a->shape[ax];
        strides[i] = a->strides[ax];
    }
    return ncl_array_view(who, a, nd, shape, strides, a->data, a->flags & NCL_ARRAY_WRITEABLE,
                          out);
}

/* Reshape without copying, for a non-empty array whose strides are not
   plain C order: NumPy's rule. Axes of extent 1 are dropped from the old
   shape; then old and new axes are matched in groups whose products agree,
   and each group of old axes must be C-contiguous among itself (its strides
   nest) to be re-split into the new extents. Returns 0 when a copy is
   needed. */
static int reshape_nocopy(const NclArray *a, int nnd, const int64_t *nshape, int64_t *nstrides)
{
    int64_t od[NCL_MAXDIMS], os[NCL_MAXDIMS];
    int ond = 0;
    for (int i = 0; i < a->ndim; i++) {
        if (a->shape[i] != 1) {
            od[ond] = a->shape[i];
            os[ond] = a->strides[i];
            ond++;
        }
    }
    int oi = 0, oj = 1, ni = 0, nj = 1;
    while (ni < nnd && oi < ond) {
        int64_t np = nshape[ni], op = od[oi];
        /* Products stay within the element count, which fits int64. */
        while (np != op) {
            if (np < op) np *= nshape[nj++];
            else op *= od[oj++];
        }
        for (int k = oi; k < oj - 1; k++) {
            int64_t nested;
            if (ncl_mul_overflow(od[k + 1], os[k + 1], &nested) || os[k] != nested) return 0;
        }
        nstrides[nj - 1] = os[oj - 1];
        for (int k = nj - 1; k > ni; k--)
            if (ncl_mul_overflow(nstrides[k], nshape[k], &nstrides[k - 1])) return 0;
        ni = nj++;
        oi = oj++;
    }
    /* Trailing extents of 1 take the stride the last group ended with. */
    const int64_t last = ni >= 1 ? nstrides[ni - 1] : (int64_t)a->itemsize;
    for (int k = ni; k < nnd; k++) nstrides[k] = last;
    return 1;
}

NclStatus ncl_array_reshape_view(const char *who, const NclArray *a, int ndim,
                                 const int64_t *shape, int64_t *resolved, NclArray **out)
{
    char b1[NCL_SHAPE_STR], b2[NCL_SHAPE_STR];
    *out = NULL;
    if (ndim < 0 || ndim > NCL_MAXDIMS)
        return ncl_error(NCL_ERR_SHAPE, "%s: ndim %d is out of range (0 to %d)", who, ndim,
                         NCL_MAXDIMS);
    if (ndim > 0 && shape == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: shape is NULL for ndim %d", who, ndim);

    /* The same shape (spelled without -1) is a plain view with the same
       strides, as in NumPy, even where other strides would describe it. */
    int same = ndim == a->ndim;
    for (int i = 0; same && i < ndim; i++) same = shape[i] == a->shape[i];
    if (same) {
        for (int i = 0; i < ndim; i++) resolved[i] = shape[i];
        return ncl_array_view(who, a, ndim, a->shape, a->strides, a->data,
                              a->flags & NCL_ARRAY_WRITEABLE, out);
    }

    int64_t *ns = resolved, nst[NCL_MAXDIMS], known = 1;
    int unknown = -1;
    for (int i = 0; i < ndim; i++) {
        ns[i] = shape[i];
        if (shape[i] == -1 && unknown < 0) {
            unknown = i;
        } else if (shape[i] < 0) {
            return ncl_error(NCL_ERR_SHAPE, "%s: new shape %s: %s", who,
                             ncl_shape_str(b1, ndim, shape),
                             shape[i] == -1 ? "only one extent may be -1"
                                            : "extents must be non-negative or -1");
        } else if (ncl_mul_overflow(known, shape[i], &known)) {
            return ncl_error(NCL_ERR_SHAPE, "%s: new shape %s has more elements than int64 "
                             "can count", who, ncl_shape_str(b1, ndim, shape));
        }
    }
    if (unknown >= 0) {
        if (known == 0 || a->size % known != 0)
            return ncl_error(NCL_ERR_SHAPE, "%s: cannot reshape array of shape %s (size %lld) "
                             "into shape %s", who, ncl_shape_str(b1, a->ndim, a->shape),
                             (long long)a->size, ncl_shape_str(b2, ndim, shape));
        ns[unknown] = a->size / known;
    } else if (known != a->size) {
        return ncl_error(NCL_ERR_SHAPE, "%s: cannot reshape array of shape %s (size %lld) "
                         "into shape %s (size %lld)", who, ncl_shape_str(b1, a->ndim, a->shape),
                         (long long)a->size, ncl_shape_str(b2, ndim, shape), (long long)known);
    }

    if (fill_strides(ndim, ns, (int64_t)a->itemsize, NCL_ORDER_C, nst, NULL) != 0)
        return ncl_error(NCL_ERR_SHAPE, "%s: new shape %s of dtype %s would span more bytes "
                         "than int64 can count", who, ncl_shape_str(b1, ndim, ns),
                         NclDTypeName(a->dtype));
    /* C-contiguous: the C strides just computed describe the same memory.
       Otherwise NumPy's no-copy rule may still find strides. */
    if ((a->flags & NCL_ARRAY_C_CONTIGUOUS) || reshape_nocopy(a, ndim, ns, nst))
        return ncl_array_view(who, a, ndim, ns, nst, a->data, a->flags & NCL_ARRAY_WRITEABLE,
                              out);

    return NCL_OK; /* only a copy has the new shape: exec/assign.c makes it */
}

NclStatus NclArrayBroadcastTo(const NclArray *a, int ndim, const int64_t *shape, NclArray **out)
{
    static const char who[] = "NclArrayBroadcastTo";
    char b1[NCL_SHAPE_STR], b2[NCL_SHAPE_STR];
    if (a == NULL || out == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who, a ? "out" : "a");
    NclStatus s = ncl_array_check(who, "a", a);
    if (s != NCL_OK) return s;
    s = ncl_shape_check(who, ndim, shape, NULL);
    if (s != NCL_OK) return s;
    if (ndim < a->ndim)
        return ncl_error(NCL_ERR_BROADCAST, "%s: an array of shape %s cannot be broadcast to "
                         "shape %s, which has fewer dimensions", who,
                         ncl_shape_str(b1, a->ndim, a->shape), ncl_shape_str(b2, ndim, shape));
    int64_t st[NCL_MAXDIMS];
    const int lead = ndim - a->ndim;
    for (int i = 0; i < ndim; i++) {
        if (i < lead) {
            st[i] = 0;
            continue;
        }
        const int64_t d = a->shape[i - lead];
        if (d == shape[i]) {
            st[i] = a->strides[i - lead];
        } else if (d == 1) {
            st[i] = 0;
        } else {
            return ncl_error(NCL_ERR_BROADCAST, "%s: an array of shape %s cannot be broadcast "
                             "to shape %s (axis %d: extent %lld against %lld)", who,
                             ncl_shape_str(b1, a->ndim, a->shape),
                             ncl_shape_str(b2, ndim, shape), i, (long long)d,
                             (long long)shape[i]);
        }
    }
    /* Read-only: writing through a zero stride would write many elements
       at once. */
    return ncl_array_view(who, a, ndim, shape, st, a->data, 0, out);
}

int ncl_array_has_internal_overlap(const NclArray *a)
{
    int64_t ext[NCL_MAXDIMS], str[NCL_MAXDIMS];
    int n = 0;
    if (a->size <= 1) return 0;
    for (int d = 0; d < a->ndim; d++) {
        if (a->shape[d] == 1) continue;
        int64_t s = a->strides[d] < 0 ? -a->strides[d] : a->strides[d];
        int k = n++;
        while (k > 0 && str[k - 1] > s) { /* insertion sort by stride */
            str[k] = str[k - 1];
            ext[k] = ext[k - 1];
            k--;
        }
        str[k] = s;
        ext[k] = a->shape[d];
    }
    int64_t span = (int64_t)a->itemsize;
    for (int k = 0; k < n; k++) {
        if (str[k] < span) return 1;
        span += str[k] * (ext[k] - 1); /* fits: the byte extent was checked */
    }
    return 0;
}

void ncl_array_copy_c_order(const NclArray *a, char *dst)
{
    const size_t isz = a->itemsize;
    if (a->size == 0) return;
    if (a->flags & NCL_ARRAY_C_CONTIGUOUS) {
        memcpy(dst, a->data, (size_t)a->size * isz);
        return;
    }
    /* 0-d arrays are C-contiguous, so ndim >= 1 here. */
    const int last = a->ndim - 1;
    const int64_t n = a->shape[last], s = a->strides[last];
    int64_t idx[NCL_MAXDIMS] = {0};
    const char *row = a->data;
    for (;;) {
        if (s == (int64_t)isz) {
            memcpy(dst, row, (size_t)n * isz);
        } else {
            for (int64_t i = 0; i < n; i++) memcpy(dst + (size_t)i * isz, row + i * s, isz);
        }
        dst += (size_t)n * isz;
        int d = last - 1;
        for (; d >= 0; d--) {
            row += a->strides[d];
            if (++idx[d] < a->shape[d]) break;
            row -= a->strides[d] * a->shape[d];
            idx[d] = 0;
        }
        if (d < 0) return;
    }
}

void ncl_array_copy_from_c_order(NclArray *o, const char *src)
{
    const size_t isz = o->itemsize;
    if (o->size == 0) return;
    if (o->flags & NCL_ARRAY_C_CONTIGUOUS) {
        memcpy(o->data, src, (size_t)o->size * isz);
        return;
    }
    const int last = o->ndim - 1;
    const int64_t n = o->shape[last], s = o->strides[last];
    int64_t idx[NCL_MAXDIMS] = {0};
    char *row = o->data;
    for (;;) {
        for (int64_t i = 0; i < n; i++) memcpy(row + i * s, src + (size_t)i * isz, isz);
        src += (size_t)n * isz;
        int d = last - 1;
        for (; d >= 0; d--) {
            row += o->strides[d];
            if (++idx[d] < o->shape[d]) break;
            row -= o->strides[d] * o->shape[d];
            idx[d] = 0;
        }
        if (d < 0) return;
    }
}
