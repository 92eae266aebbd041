/*
 * ncl/dlpack.h: NCLib arrays as DLPack tensors and back, without copying.
 *
 * The DLPack declarations below follow the DLPack 1.x C header (struct
 * layout unchanged since 1.0): a program may include this header alone, or
 * a DLPack >= 1.0 dlpack.h before it (then that one's declarations are
 * used). A pre-1.0 dlpack.h (no versioned struct) cannot be mixed with
 * this header.
 *
 * Export makes a DLManagedTensorVersioned (or the legacy, unversioned
 * DLManagedTensor) that views the array's memory and holds a reference to
 * the array until the consumer calls its deleter, exactly once, from any
 * thread. Import wraps a producer's tensor as an NclArray on the same
 * memory; the producer's deleter runs exactly once: when the last array or
 * view on that memory is released, or at once when the import is refused.
 */
#ifndef NCL_DLPACK_H
#define NCL_DLPACK_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "array.h"

#if defined(DLPACK_DLPACK_H_) && !defined(DLPACK_MAJOR_VERSION)
#  error "a pre-1.0 dlpack.h was included before ncl/dlpack.h; NCLib needs DLPack >= 1.0"
#endif
#if defined(DLPACK_MAJOR_VERSION) && DLPACK_MAJOR_VERSION < 1
#  error "a pre-1.0 dlpack.h was included before ncl/dlpack.h; NCLib needs DLPack >= 1.0"
#endif

#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_ /* a later #include <dlpack/dlpack.h> adds nothing */
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0

typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

typedef enum {
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13,
    kDLOneAPI = 14,
    kDLWebGPU = 15,
    kDLHexagon = 16
} DLDeviceType;

typedef struct {
    DLDeviceType device_type;
    int32_t device_id;
} DLDevice;

typedef enum {
    kDLInt = 0,
    kDLUInt = 1,
    kDLFloat = 2,
    kDLOpaqueHandle = 3,
    kDLBfloat = 4,
    kDLComplex = 5,
    kDLBool = 6
} DLDataTypeCode;

typedef struct {
    uint8_t code;   /* a DLDataTypeCode */
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;      /* in elements; NULL: C order */
    uint64_t byte_offset;  /* from data to the first element */
} DLTensor;

typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)

typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;
#endif /* DLPACK_DLPACK_H_ */

NCL_BEGIN_DECLS

/* Exports a as a DLPack 1.0 tensor viewing a's memory: shape and strides
   always present (strides in elements), byte_offset 0 (data is the first
   element), DLPACK_FLAG_BITMASK_READ_ONLY when a is not writeable. bool is
   kDLBool (8 bits), the integers kDLInt/kDLUInt, the floats kDLFloat.
   Host memory is kDLCPU and shared (managed) memory kDLCUDAManaged with
   a's device id. *out holds a reference to a until (*out)->deleter(*out)
   is called. NCL_ERR_INVALID_ARGUMENT for NULL arguments;
   NCL_ERR_DEVICE_MEMORY for device or unknown memory; NCL_ERR_UNSUPPORTED
   for a stride that is not a whole number of elements; NCL_ERR_NO_MEMORY.
   On failure *out is NULL. */
NCL_API NclStatus NclToDLPack(const NclArray *a, DLManagedTensorVersioned **out);
/* The same as the legacy, unversioned DLManagedTensor, for consumers older
   than DLPack 1.0. It has no read-only flag: a read-only array is refused
   (NCL_ERR_READONLY), as NumPy refuses it. */
NCL_API NclStatus NclToDLPackLegacy(const NclArray *a, DLManagedTensor **out);

/* Imports t as an array on the same memory, taking ownership of t: t's
   deleter is called once, when the last array or view on the memory is
   released, or before this returns when the import is refused (whatever
   the reason, t must not be used after the call); a NULL deleter (DLPack
   allows one) is never called. The array is writeable
   unless DLPACK_FLAG_BITMASK_READ_ONLY is set; byte_offset and NULL strides
   (C order) are honoured. Accepted: DLPack major version 1 (any minor),
   lanes 1, the codes and sizes NCLib has a dtype for (kDLBool 8, kDLInt and
   kDLUInt 8..64, kDLFloat 32 and 64), devices kDLCPU, kDLCUDAHost and
   kDLROCMHost (host memory) and kDLCUDAManaged (shared). Refused:
   NCL_ERR_UNSUPPORTED (another major version, an unknown dtype or lanes
   != 1), NCL_ERR_DEVICE_MEMORY (other devices), NCL_ERR_INVALID_ARGUMENT
   (NULL t or out, negative extents, NULL shape or data
   where elements exist, data not aligned to the dtype), NCL_ERR_SHAPE
   (ndim outside 0..NCL_MAXDIMS, sizes that overflow), NCL_ERR_NO_MEMORY. */
NCL_API NclStatus NclFromDLPack(DLManagedTensorVersioned *t, NclArray **out);
/* The same for the legacy DLManagedTensor; the array is read-only, since
   the legacy struct cannot say whether the producer allows writes (NumPy
   imports it so too). */
NCL_API NclStatus NclFromDLPackLegacy(DLManagedTensor *t, NclArray **out);

NCL_END_DECLS

#endif /* NCL_DLPACK_H */
