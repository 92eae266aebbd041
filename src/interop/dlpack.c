/*
 * dlpack.c: NclArray <-> DLPack tensors, both directions zero-copy
 * (include/ncl/dlpack.h).
 *
 * Export: one malloc'd block holds the managed tensor, its shape and
 * strides; it keeps a reference to the array, dropped by the deleter
 * (NclArrayRelease is atomic, so the deleter may run on any thread).
 * Import: NclFromDataKind with a deleter that calls the producer's; every
 * refusal calls the producer's deleter before returning, as the DLPack
 * contract makes the consumer the owner from the moment it is handed the
 * tensor.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "array/ncl_array.h"

_Static_assert(sizeof(DLTensor) == 48 || sizeof(void *) != 8, "DLTensor's DLPack layout");
_Static_assert(offsetof(DLManagedTensorVersioned, dl_tensor) == 32 || sizeof(void *) != 8,
               "DLManagedTensorVersioned's DLPack layout");
_Static_assert(sizeof(DLManagedTensorVersioned) == 80 || sizeof(void *) != 8,
               "DLManagedTensorVersioned's DLPack layout");

/* ---- dtypes ------------------------------------------------------------------ */

static DLDataType dl_dtype(NclDType t)
{
    DLDataType d = {kDLInt, (uint8_t)(8 * ncl_dtype_size[t]), 1};
    switch (ncl_dtype_kind[t]) {
    case 'b': d.code = kDLBool; break;
    case 'u': d.code = kDLUInt; break;
    case 'f': d.code = kDLFloat; break;
    default: break;
    }
    return d;
}

/* NCLib's dtype for d, or -1. */
static int ncl_dtype_of(DLDataType d)
{
    if (d.lanes != 1) return -1;
    for (int t = 0; t < NCL_NTYPES; t++) {
        const DLDataType e = dl_dtype((NclDType)t);
        if (e.code == d.code && e.bits == d.bits) return t;
    }
    return -1;
}

/* ---- export ------------------------------------------------------------------- */

/* The managed tensor (either form) with its shape and strides after it. */
typedef struct export_block {
    union {
        DLManagedTensorVersioned v;
        DLManagedTensor legacy;
    } m;
    NclArray *array;
    int64_t dims[]; /* shape[ndim], strides[ndim] */
} export_block;

static void release_block(export_block *b)
{
    NclArrayRelease(b->array);
    free(b);
}

static void delete_versioned(DLManagedTensorVersioned *self)
{
    if (self) release_block((export_block *)self->manager_ctx);
}

static void delete_legacy(DLManagedTensor *self)
{
    if (self) release_block((export_block *)self->manager_ctx);
}

/* A block for a with its shape and element strides, holding a reference
   to a; the caller fills in the managed tensor. */
static NclStatus export_block_new(const char *who, const NclArray *a, export_block **out)
{
    *out = NULL;
    if (a->kind == NCL_MEM_DEVICE || a->kind == NCL_MEM_UNKNOWN)
        return ncl_error(NCL_ERR_DEVICE_MEMORY,
                         "%s: the array's memory is %s memory, which NCLib cannot describe to "
                         "a DLPack consumer as host-accessible",
                         who, a->kind == NCL_MEM_DEVICE ? "device" : "unknown");
    for (int d = 0; d < a->ndim; d++)
        if (a->strides[d] % (int64_t)a->itemsize != 0)
            return ncl_error(NCL_ERR_UNSUPPORTED,
                             "%s: stride %lld of axis %d is not a whole number of %zu-byte "
                             "elements; DLPack strides count elements",
                             who, (long long)a->strides[d], d, a->itemsize);
    export_block *b = malloc(sizeof *b + 2 * (size_t)a->ndim * sizeof(int64_t));
    if (b == NULL) return ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    memset(&b->m, 0, sizeof b->m);
    int64_t *shape = b->dims, *strides = b->dims + a->ndim;
    for (int d = 0; d < a->ndim; d++) {
        shape[d] = a->shape[d];
        strides[d] = a->strides[d] / (int64_t)a->itemsize;
    }
    NclArrayRetain((NclArray *)a);
    b->array = (NclArray *)a;
    *out = b;
    return NCL_OK;
}

static void fill_tensor(DLTensor *t, const NclArray *a, export_block *b)
{
    t->data = a->data;
    t->device.device_type = a->kind == NCL_MEM_SHARED ? kDLCUDAManaged : kDLCPU;
    t->device.device_id = a->kind == NCL_MEM_SHARED ? a->device_id : 0;
    t->ndim = a->ndim;
    t->dtype = dl_dtype(a->dtype);
    /* Strides always present, also for ndim 0 (a pointer to no element). */
    t->shape = b->dims;
    t->strides = b->dims + a->ndim;
    t->byte_offset = 0;
}

NclStatus NclToDLPack(const NclArray *a, DLManagedTensorVersioned **out)
{
    static const char who[] = "NclToDLPack";
    if (out) *out = NULL;
    if (a == NULL || out == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who, a ? "out" : "a");
    NclStatus chk = ncl_array_check(who, "a", a);
    if (chk != NCL_OK) return chk;
    export_block *b;
    NclStatus st = export_block_new(who, a, &b);
    if (st) return st;
    DLManagedTensorVersioned *m = &b->m.v;
    m->version.major = DLPACK_MAJOR_VERSION;
    m->version.minor = DLPACK_MINOR_VERSION;
    m->manager_ctx = b;
    m->deleter = delete_versioned;
    m->flags = (a->flags & NCL_ARRAY_WRITEABLE) ? 0 : DLPACK_FLAG_BITMASK_READ_ONLY;
    fill_tensor(&m->dl_tensor, a, b);
    *out = m;
    return NCL_OK;
}

NclStatus NclToDLPackLegacy(const NclArray *a, DLManagedTensor **out)
{
    static const char who[] = "NclToDLPackLegacy";
    if (out) *out = NULL;
    if (a == NULL || out == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who, a ? "out" : "a");
    NclStatus chk = ncl_array_check(who, "a", a);
    if (chk != NCL_OK) return chk;
    if (!(a->flags & NCL_ARRAY_WRITEABLE))
        return ncl_error(NCL_ERR_READONLY,
                         "%s: the array is read-only, which the legacy DLManagedTensor cannot "
                         "say; export it with NclToDLPack",
                         who);
    export_block *b;
    NclStatus st = export_block_new(who, a, &b);
    if (st) return st;
    DLManagedTensor *m = &b->m.legacy;
    m->manager_ctx = b;
    m->deleter = delete_legacy;
    fill_tensor(&m->dl_tensor, a, b);
    *out = m;
    return NCL_OK;
}

/* ---- import ------------------------------------------------------------------- */

/* What the imported array's deleter needs: the producer's tensor, either
   form. */
typedef struct import_owner {
    DLManagedTensorVersioned *v;
    DLManagedTensor *legacy;
} import_owner;

static void call_producer(DLManagedTensorVersioned *v, DLManagedTensor *legacy)
{
    if (v && v->deleter) v->deleter(v);
    if (legacy && legacy->deleter) legacy->deleter(legacy);
}

static void import_deleter(void *ctx, void *data)
{
    (void)data;
    import_owner *o = ctx;
    call_producer(o->v, o->legacy);
    free(o);
}

/* Wraps t (of v or legacy, the other NULL); calls the producer's deleter on
   every failure. */
static NclStatus import_tensor(const char *who, const DLTensor *t, int writeable,
                               DLManagedTensorVersioned *v, DLManagedTensor *legacy,
                               NclArray **out)
{
    NclStatus st = NCL_OK;
    NclMemKind kind = NCL_MEM_HOST;
    int device_id = 0;
    int dtype = -1;
    int64_t shape[NCL_MAXDIMS], strides[NCL_MAXDIMS];
    import_owner *o = NULL;
    switch (t->device.device_type) {
    case kDLCPU: case kDLCUDAHost: case kDLROCMHost: break;
    case kDLCUDAManaged:
        kind = NCL_MEM_SHARED;
        device_id = t->device.device_id;
        break;
    default:
        st = ncl_error(NCL_ERR_DEVICE_MEMORY,
                       "%s: device type %d is not host-accessible memory (accepted: kDLCPU, "
                       "kDLCUDAHost, kDLROCMHost, kDLCUDAManaged)",
                       who, (int)t->device.device_type);
        goto refuse;
    }
    dtype = ncl_dtype_of(t->dtype);
    if (dtype < 0) {
        st = ncl_error(NCL_ERR_UNSUPPORTED,
                       "%s: dtype (code %u, bits %u, lanes %u) has no NCLib dtype (kDLBool 8, "
                       "kDLInt/kDLUInt 8..64, kDLFloat 32/64, lanes 1)",
                       who, (unsigned)t->dtype.code, (unsigned)t->dtype.bits,
                       (unsigned)t->dtype.lanes);
        goto refuse;
    }
    if (t->ndim < 0 || t->ndim > NCL_MAXDIMS) {
        st = ncl_error(NCL_ERR_SHAPE, "%s: ndim %d is outside 0..%d", who, (int)t->ndim,
                       NCL_MAXDIMS);
        goto refuse;
    }
    if (t->ndim > 0 && t->shape == NULL) {
        st = ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: shape is NULL with ndim %d", who,
                       (int)t->ndim);
        goto refuse;
    }
    const int64_t isz = (int64_t)ncl_dtype_size[dtype];
    int empty = 0;
    for (int d = 0; d < t->ndim; d++) {
        shape[d] = t->shape[d];
        if (shape[d] < 0) {
            st = ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: shape[%d] = %lld is negative", who, d,
                           (long long)shape[d]);
            goto refuse;
        }
        empty |= shape[d] == 0;
    }
    /* Element strides to bytes (NULL strides: C order, NclFromDataKind's
       default). NclFromDataKind checks the byte extent for overflow; the
       multiplication here must not overflow first. */
    for (int d = 0; t->strides && d < t->ndim; d++) {
        const int64_t s = t->strides[d];
        if (s > INT64_MAX / isz || s < INT64_MIN / isz) {
            st = ncl_error(NCL_ERR_SHAPE, "%s: stride %lld of axis %d overflows in bytes", who,
                           (long long)s, d);
            goto refuse;
        }
        strides[d] = s * isz;
    }
    const int64_t *sp = t->strides ? strides : NULL;
    char *data = (char *)t->data;
    /* byte_offset is the producer's: data + byte_offset must not wrap
       around the address space (NclFromDataKind checks the elements from
       there). */
    if (data != NULL && t->byte_offset > (uint64_t)(UINTPTR_MAX - (uintptr_t)data)) {
        st = ncl_error(NCL_ERR_INVALID_ARGUMENT,
                       "%s: data %p + byte_offset %llu reaches outside the address space", who,
                       t->data, (unsigned long long)t->byte_offset);
        goto refuse;
    }
    if (!empty) {
        if (data == NULL) {
            st = ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: data is NULL for a non-empty tensor",
                           who);
            goto refuse;
        }
        data += t->byte_offset;
        if ((uintptr_t)data % (uintptr_t)isz != 0) {
            st = ncl_error(NCL_ERR_INVALID_ARGUMENT,
                           "%s: the first element (data + byte_offset %llu) is not aligned to "
                           "its %lld-byte dtype",
                           who, (unsigned long long)t->byte_offset, (long long)isz);
            goto refuse;
        }
    } else if (data != NULL) {
        data += t->byte_offset;
    }
    o = malloc(sizeof *o);
    if (o == NULL) {
        st = ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
        goto refuse;
    }
    o->v = v;
    o->legacy = legacy;
    st = NclFromDataKind((NclDType)dtype, t->ndim, shape, sp, data,
                         writeable ? NCL_ARRAY_WRITEABLE : 0, import_deleter, o, kind, device_id,
                         out);
    if (st == NCL_OK) return NCL_OK;
    free(o);
refuse:
    call_producer(v, legacy);
    return st;
}

NclStatus NclFromDLPack(DLManagedTensorVersioned *t, NclArray **out)
{
    static const char who[] = "NclFromDLPack";
    if (out) *out = NULL;
    if (t == NULL || out == NULL) {
        NclStatus st = ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who,
                                 t ? "out" : "t");
        if (t) call_producer(t, NULL);
        return st;
    }
    if (t->version.major != DLPACK_MAJOR_VERSION) {
        /* Only the deleter may be touched (DLPack's rule for a major mismatch). */
        NclStatus st = ncl_error(NCL_ERR_UNSUPPORTED,
                                 "%s: DLPack major version %u; NCLib reads %d.x", who,
                                 (unsigned)t->version.major, DLPACK_MAJOR_VERSION);
        call_producer(t, NULL);
        return st;
    }
    return import_tensor(who, &t->dl_tensor, !(t->flags & DLPACK_FLAG_BITMASK_READ_ONLY), t, NULL,
                         out);
}

NclStatus NclFromDLPackLegacy(DLManagedTensor *t, NclArray **out)
{
    static const char who[] = "NclFromDLPackLegacy";
    if (out) *out = NULL;
    if (t == NULL || out == NULL) {
        NclStatus st = ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who,
                                 t ? "out" : "t");
        if (t) call_producer(NULL, t);
        return st;
    }
    return import_tensor(who, &t->dl_tensor, 0, NULL, t, out);
}
