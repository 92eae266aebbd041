/**
 * @file
 * @brief NCLib arrays as DLPack tensors and back, without copying.
 *
 * @defgroup ncl_interop Interchange
 * @brief Zero-copy exchange of arrays with other libraries: DLPack and the
 * Arrow C data interface.
 *
 * @defgroup ncl_dlpack DLPack
 * @ingroup ncl_interop
 * @brief NclArray to and from DLPack 1.x tensors (and the legacy
 * unversioned ones), without copying.
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
 * Every function here is thread-safe.
 * @{
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
/** DLPack's include guard, defined here too: a later
    `#include <dlpack/dlpack.h>` adds nothing. */
#define DLPACK_DLPACK_H_
/** The DLPack major version these declarations follow. */
#define DLPACK_MAJOR_VERSION 1
/** The DLPack minor version these declarations follow. */
#define DLPACK_MINOR_VERSION 0

/** A DLPack version: a new major version breaks the ABI, a minor one adds. */
typedef struct {
    uint32_t major; ///< The major version.
    uint32_t minor; ///< The minor version.
} DLPackVersion;

/** The kind of device a tensor's memory is on. */
typedef enum {
    kDLCPU = 1,          ///< CPU (host) memory.
    kDLCUDA = 2,         ///< CUDA GPU memory.
    kDLCUDAHost = 3,     ///< Pinned CUDA host memory (cudaMallocHost): host-accessible.
    kDLOpenCL = 4,       ///< An OpenCL device.
    kDLVulkan = 7,       ///< A Vulkan buffer.
    kDLMetal = 8,        ///< Metal (Apple GPUs).
    kDLVPI = 9,          ///< The Verilog simulator interface.
    kDLROCM = 10,        ///< ROCm (AMD) GPU memory.
    kDLROCMHost = 11,    ///< Pinned ROCm host memory: host-accessible.
    kDLExtDev = 12,      ///< Reserved for devices outside this list.
    kDLCUDAManaged = 13, ///< CUDA managed (unified) memory: host and device.
    kDLOneAPI = 14,      ///< oneAPI unified shared memory (SYCL).
    kDLWebGPU = 15,      ///< WebGPU.
    kDLHexagon = 16      ///< Qualcomm Hexagon DSP.
} DLDeviceType;

/** A device: its kind and index. */
typedef struct {
    DLDeviceType device_type; ///< The kind of device.
    int32_t device_id;        ///< Which one of that kind (0 for the CPU).
} DLDevice;

/** The kind of a DLDataType. */
typedef enum {
    kDLInt = 0,          ///< Signed integer.
    kDLUInt = 1,         ///< Unsigned integer.
    kDLFloat = 2,        ///< IEEE 754 float.
    kDLOpaqueHandle = 3, ///< An opaque handle.
    kDLBfloat = 4,       ///< bfloat16.
    kDLComplex = 5,      ///< Complex float.
    kDLBool = 6          ///< Boolean.
} DLDataTypeCode;

/** An element type: kind, width and vector lanes. */
typedef struct {
    uint8_t code;   ///< A DLDataTypeCode.
    uint8_t bits;   ///< Bits per lane (8 for NCLib's bool).
    uint16_t lanes; ///< Vector lanes; 1 for scalars, the only value NCLib takes.
} DLDataType;

/** A tensor: where its elements are and how they are laid out. */
typedef struct {
    void *data;            ///< The allocation's start (see byte_offset).
    DLDevice device;       ///< Where the memory is.
    int32_t ndim;          ///< Number of dimensions.
    DLDataType dtype;      ///< The element type.
    int64_t *shape;        ///< ndim extents.
    int64_t *strides;      ///< ndim strides, in elements; NULL: C order.
    uint64_t byte_offset;  ///< From data to the first element.
} DLTensor;

/** A tensor with its owner's context and deleter (DLPack before 1.0; no
    version and no read-only flag). */
typedef struct DLManagedTensor {
    DLTensor dl_tensor; ///< The tensor.
    void *manager_ctx;  ///< The producer's context.
    /** Called once by the consumer when it is done with the tensor; may be
        NULL. */
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

/** DLManagedTensorVersioned::flags bit: the consumer must not write the
    tensor. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
/** DLManagedTensorVersioned::flags bit: the tensor is a copy the producer
    made for the exchange. */
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)

/** A versioned tensor with its owner's context, deleter and flags (DLPack
    1.0 and later). */
typedef struct DLManagedTensorVersioned {
    DLPackVersion version; ///< The DLPack version the producer wrote.
    void *manager_ctx;     ///< The producer's context.
    /** Called once by the consumer when it is done with the tensor; may be
        NULL. */
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;        ///< DLPACK_FLAG_BITMASK_* bits.
    DLTensor dl_tensor;    ///< The tensor.
} DLManagedTensorVersioned;
#endif /* DLPACK_DLPACK_H_ */

NCL_BEGIN_DECLS

/**
 * Exports a as a DLPack 1.0 tensor viewing a's memory: shape and strides
 * always present (strides in elements), byte_offset 0 (data is the first
 * element), DLPACK_FLAG_BITMASK_READ_ONLY when a is not writeable. bool is
 * kDLBool (8 bits), the integers kDLInt/kDLUInt, the floats kDLFloat.
 * Host memory is kDLCPU and shared (managed) memory kDLCUDAManaged with
 * a's device id.
 * @param a    the array; the caller may release it at once, the tensor
 *             keeps what it needs.
 * @param out  receives the tensor, the consumer's: it holds a reference to
 *             a until (*out)->deleter(*out) is called, exactly once, from
 *             any thread. NULL on failure.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  a or out NULL, or a not an array.
 * @retval NCL_ERR_DEVICE_MEMORY  a in device or unknown memory.
 * @retval NCL_ERR_UNSUPPORTED  a stride that is not a whole number of
 *                              elements.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclToDLPack(const NclArray *a, DLManagedTensorVersioned **out);
/**
 * As NclToDLPack, as the legacy, unversioned DLManagedTensor, for consumers
 * older than DLPack 1.0. It has no read-only flag: a read-only array is
 * refused (NCL_ERR_READONLY), as NumPy refuses it.
 * @param a    the array.
 * @param out  receives the tensor, as NclToDLPack; NULL on failure.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  a or out NULL, or a not an array.
 * @retval NCL_ERR_READONLY  a is not writeable.
 * @retval NCL_ERR_DEVICE_MEMORY  a in device or unknown memory.
 * @retval NCL_ERR_UNSUPPORTED  a stride that is not a whole number of
 *                              elements.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclToDLPackLegacy(const NclArray *a, DLManagedTensor **out);

/**
 * Imports t as an array on the same memory, taking ownership of t: t's
 * deleter is called once, when the last array or view on the memory is
 * released, or before this returns when the import is refused (whatever
 * the reason, t must not be used after the call); a NULL deleter (DLPack
 * allows one) is never called. The array is writeable
 * unless DLPACK_FLAG_BITMASK_READ_ONLY is set; byte_offset and NULL strides
 * (C order) are honoured. Accepted: DLPack major version 1 (any minor),
 * lanes 1, the codes and sizes NCLib has a dtype for (kDLBool 8, kDLInt and
 * kDLUInt 8..64, kDLFloat 32 and 64), devices kDLCPU, kDLCUDAHost and
 * kDLROCMHost (host memory) and kDLCUDAManaged (shared).
 * @param t    the producer's tensor, NCLib's from the call on.
 * @param out  receives a new array (reference count 1) on t's memory; NULL
 *             on failure.
 * @retval NCL_OK
 * @retval NCL_ERR_UNSUPPORTED  another major version, an unknown dtype, or
 *                              lanes != 1.
 * @retval NCL_ERR_DEVICE_MEMORY  a device other than the four above.
 * @retval NCL_ERR_INVALID_ARGUMENT  t or out NULL, negative extents, NULL
 *         shape or data where elements exist, data not aligned to the
 *         dtype, data + byte_offset or the elements from there reaching
 *         past the end of the address space.
 * @retval NCL_ERR_SHAPE  ndim outside 0..NCL_MAXDIMS, sizes that overflow.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclFromDLPack(DLManagedTensorVersioned *t, NclArray **out);
/**
 * As NclFromDLPack, for the legacy DLManagedTensor; the array is
 * read-only, since the legacy struct cannot say whether the producer allows
 * writes (NumPy imports it so too).
 * @param t    the producer's tensor, NCLib's from the call on.
 * @param out  receives a new read-only array (reference count 1); NULL on
 *             failure.
 * @retval NCL_OK
 * @retval NCL_ERR_UNSUPPORTED  an unknown dtype, or lanes != 1.
 * @retval NCL_ERR_DEVICE_MEMORY  a device other than kDLCPU, kDLCUDAHost,
 *                                kDLROCMHost and kDLCUDAManaged.
 * @retval NCL_ERR_INVALID_ARGUMENT  as NclFromDLPack.
 * @retval NCL_ERR_SHAPE  as NclFromDLPack.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclFromDLPackLegacy(DLManagedTensor *t, NclArray **out);

NCL_END_DECLS

/** @} */

#endif /* NCL_DLPACK_H */
