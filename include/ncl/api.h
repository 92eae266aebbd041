/**
 * @file
 * @brief The master head: NclGetApi, the one pre-known entry point, and the
 * versioned NclApi table behind it.
 *
 * @defgroup ncl_master Master head (NclGetApi)
 * @brief One exported symbol that reaches every public function and the
 * head of every hook chain.
 *
 * A binding that dlopen()s libncl.so and resolves only "NclGetApi" reaches
 * the whole library through the NclApi table it returns: the ABI version,
 * the table's own size (so a newer library's longer table can serve an
 * older binding), the version string, the level-1 chain heads and a pointer
 * to every public function, in the fixed order of NCL_API_FUNCTION_LIST.
 * @{
 */
#ifndef NCL_API_H
#define NCL_API_H

#include <stddef.h>
#include <stdint.h>
#include "export.h"
#include "status.h"
#include "dtype.h"
#include "array.h"
#include "params.h"
#include "list.h"
#include "fpe.h"
#include "threads.h"
#include "memory.h"
#include "hooks.h"
#include "dlpack.h"
#include "arrow.h"
#include "npy.h"

NCL_BEGIN_DECLS

/** X-macro list of every public function, in a fixed order:
    `X(return type, Name, (parameters))`, where the function is `Ncl<Name>`.
    New functions are only ever appended; NclApi has one member per entry,
    in this order. */
#define NCL_API_FUNCTION_LIST(X)                                                           \
    X(const char *, StatusString, (NclStatus s))                                           \
    X(const char *, LastError, (void))                                                     \
    X(size_t, DTypeSize, (NclDType t))                                                     \
    X(const char *, DTypeName, (NclDType t))                                               \
    X(NclStatus, DTypeFromName, (const char *name, NclDType *out))                         \
    X(NclDType, PromoteTypes, (NclDType a, NclDType b))                                    \
    X(int, CanCast, (NclDType from, NclDType to, NclCasting casting))                      \
    X(NclStatus, FromData, (NclDType dtype, int ndim, const int64_t *shape,                \
                            const int64_t *strides, void *data, uint32_t flags,            \
                            NclDeleter deleter, void *deleter_ctx, NclArray **out))        \
    X(NclStatus, FromDataKind, (NclDType dtype, int ndim, const int64_t *shape,            \
                                const int64_t *strides, void *data, uint32_t flags,        \
                                NclDeleter deleter, void *deleter_ctx, NclMemKind kind,    \
                                int device_id, NclArray **out))                            \
    X(void, ArrayRetain, (NclArray *a))                                                    \
    X(void, ArrayRelease, (NclArray *a))                                                   \
    X(int, ArrayNDim, (const NclArray *a))                                                 \
    X(const int64_t *, ArrayShape, (const NclArray *a))                                    \
    X(const int64_t *, ArrayStrides, (const NclArray *a))                                  \
    X(NclDType, ArrayDType, (const NclArray *a))                                           \
    X(void *, ArrayData, (const NclArray *a))                                              \
    X(int64_t, ArraySize, (const NclArray *a))                                             \
    X(uint32_t, ArrayFlags, (const NclArray *a))                                           \
    X(NclMemKind, ArrayMemKind, (const NclArray *a))                                       \
    X(int, ArrayDeviceId, (const NclArray *a))                                             \
    X(const char *, ArrayHandlerName, (const NclArray *a))                                 \
    X(NclStatus, ArraySlice, (const NclArray *a, const int64_t *start, const int64_t *stop, \
                              const int64_t *step, NclArray **out))                        \
    X(NclStatus, ArrayTranspose, (const NclArray *a, const int *axes, NclArray **out))     \
    X(NclStatus, ArrayReshape, (const NclArray *a, int ndim, const int64_t *shape,         \
                                NclArray **out))                                           \
    X(NclStatus, ArrayBroadcastTo, (const NclArray *a, int ndim, const int64_t *shape,     \
                                    NclArray **out))                                       \
    X(NclStatus, Create, (NclCreateOp op, const NclCreateParams *p, NclArray **out))       \
    X(NclStatus, Empty, (NclDType dtype, int ndim, const int64_t *shape, NclArray **out))  \
    X(NclStatus, Zeros, (NclDType dtype, int ndim, const int64_t *shape, NclArray **out))  \
    X(NclStatus, Ones, (NclDType dtype, int ndim, const int64_t *shape, NclArray **out))   \
    X(NclStatus, Full, (NclDType dtype, int ndim, const int64_t *shape, const void *value, \
                        NclArray **out))                                                   \
    X(NclStatus, Arange, (NclDType dtype, double start, double stop, double step,          \
                          NclArray **out))                                                 \
    X(NclStatus, Copy, (const NclArray *a, NclArray **out))                                \
    X(NclStatus, Convert, (NclConvertOp op, const NclArray *a, NclArray **out,             \
                           const NclParams *params))                                       \
    X(NclStatus, Compare, (NclCompareOp op, const NclArray *a, const NclArray *b,          \
                           NclArray **out, const NclParams *params))                       \
    X(NclStatus, IsUnary, (NclIsUnaryOp op, const NclArray *a, NclArray **out,             \
                           const NclParams *params))                                       \
    X(NclStatus, Unary, (NclUnaryOp op, const NclArray *a, NclArray **out,                 \
                         const NclParams *params))                                         \
    X(NclStatus, Binary, (NclBinaryOp op, const NclArray *a, const NclArray *b,            \
                          NclArray **out, const NclParams *params))                        \
    X(NclStatus, SetAccuracy, (NclAccuracy accuracy))                                      \
    X(NclAccuracy, GetAccuracy, (void))                                                    \
    X(NclStatus, CreateNext, (NclHook *self, NclCreateOp op, const NclCreateParams *p,     \
                              NclArray **out))                                             \
    X(NclStatus, ConvertNext, (NclHook *self, NclConvertOp op, const NclArray *a,          \
                               NclArray **out, const NclParams *params))                   \
    X(NclStatus, CompareNext, (NclHook *self, NclCompareOp op, const NclArray *a,          \
                               const NclArray *b, NclArray **out, const NclParams *params)) \
    X(NclStatus, IsUnaryNext, (NclHook *self, NclIsUnaryOp op, const NclArray *a,          \
                               NclArray **out, const NclParams *params))                   \
    X(NclStatus, UnaryNext, (NclHook *self, NclUnaryOp op, const NclArray *a,              \
                             NclArray **out, const NclParams *params))                     \
    X(NclStatus, BinaryNext, (NclHook *self, NclBinaryOp op, const NclArray *a,            \
                              const NclArray *b, NclArray **out, const NclParams *params)) \
    X(NclStatus, SetErrMode, (int categories, NclErrMode mode))                            \
    X(NclErrMode, GetErrMode, (int category))                                              \
    X(void, SetErrCallback, (NclErrCallback fn, void *user))                               \
    X(int, GetFPErrors, (void))                                                            \
    X(const NclMemHandler *, DataMem_SetHandler, (const NclMemHandler *h))                 \
    X(const NclMemHandler *, DataMem_GetHandler, (void))                                   \
    X(NclMemEventFn, DataMem_SetEventHook, (NclMemEventFn fn, void *user, void **old_user)) \
    X(const NclMemHandler *, MemDefaultHandler, (void))                                    \
    X(const NclMemHandler *, MemLibcHandler, (void))                                       \
    X(NclStatus, MemNumaHandlerInit, (NclMemHandler *out, int numa_node))                  \
    X(NclStatus, MemAccountingCreate, (const NclMemHandler *inner, NclMemAccounting **out)) \
    X(const NclMemHandler *, MemAccountingHandler, (NclMemAccounting *acc))                \
    X(void, MemAccountingStats, (const NclMemAccounting *acc, NclMemStats *out))           \
    X(NclStatus, MemAccountingWalk, (const NclMemAccounting *acc,                          \
                                     int (*visit)(void *ptr, size_t size, void *user),     \
                                     void *user))                                          \
    X(NclStatus, MemAccountingDestroy, (NclMemAccounting *acc))                            \
    X(NclStatus, InfoAddJson, (NclInfoWriter *w, const char *key, const char *json_value)) \
    X(NclStatus, InfoAddString, (NclInfoWriter *w, const char *key, const char *text))     \
    X(NclStatus, InfoNext, (NclHook *self, NclInfoWriter *w))                              \
    X(NclStatus, Info, (char *buf, size_t cap, size_t *needed))                            \
    X(NclStatus, ApiHook, (NclSubsystem s, NclListHead *node))                             \
    X(NclStatus, ApiHookAt, (NclSubsystem s, NclListHead *node, int where,                 \
                             NclListHead *anchor))                                         \
    X(NclStatus, ApiUnhook, (NclListHead *node))                                           \
    X(NclStatus, ApiUnhookDeferred, (NclListHead *node,                                    \
                                     void (*reclaim)(NclListHead *node, void *user),       \
                                     void *user))                                          \
    X(NclStatus, KernelNext, (NclKernelNode *self, const NclKernelCtx *ctx,                \
                              char *const *args, int64_t n, const int64_t *steps))         \
    X(NclStatus, KernelHook, (NclSubsystem s, int subfunction, const NclDType *signature,  \
                              NclListHead *node))                                          \
    X(NclStatus, KernelUnhook, (NclListHead *node))                                        \
    X(NclStatus, HooksReset, (void))                                                       \
    X(NclStatus, HooksWalk, (NclSubsystem s,                                               \
                             int (*visit)(const NclListHead *node, const char *name,       \
                                          void *user),                                     \
                             void *user))                                                  \
    X(NclStatus, LedgerEnable, (int on))                                                   \
    X(NclStatus, LedgerReport, (char *buf, size_t cap, size_t *needed))                    \
    X(void, LedgerReset, (void))                                                           \
    X(NclStatus, Ternary, (NclTernaryOp op, const NclArray *a, const NclArray *b,          \
                           const NclArray *c, NclArray **out, const NclParams *params))    \
    X(NclStatus, Reduce, (NclReduceOp op, const NclArray *a, NclArray **out,               \
                          const NclParams *params))                                        \
    X(NclStatus, Sort, (NclSortOp op, const NclArray *a, NclArray **out,                   \
                        const NclParams *params))                                          \
    X(NclStatus, Mask, (NclMaskOp op, const NclArray *a, const NclArray *b, NclArray **out, \
                        const NclParams *params))                                          \
    X(NclStatus, TernaryNext, (NclHook *self, NclTernaryOp op, const NclArray *a,          \
                               const NclArray *b, const NclArray *c, NclArray **out,       \
                               const NclParams *params))                                   \
    X(NclStatus, ReduceNext, (NclHook *self, NclReduceOp op, const NclArray *a,            \
                              NclArray **out, const NclParams *params))                    \
    X(NclStatus, SortNext, (NclHook *self, NclSortOp op, const NclArray *a, NclArray **out, \
                            const NclParams *params))                                      \
    X(NclStatus, MaskNext, (NclHook *self, NclMaskOp op, const NclArray *a,                \
                            const NclArray *b, NclArray **out, const NclParams *params))   \
    X(NclStatus, SetNumThreads, (int n))                                                   \
    X(int, GetNumThreads, (void))                                                          \
    X(NclStatus, SetThreadingThreshold, (int64_t elements))                                \
    X(NclStatus, KernelRun, (NclSubsystem s, int subfunction, const NclDType *signature,   \
                             char *const *args, int64_t n, const int64_t *steps))          \
    X(int64_t, GetThreadingThreshold, (void))                                              \
    X(NclStatus, KernelHooked, (NclSubsystem s, int subfunction, const NclDType *signature,\
                                int *hooked))                                              \
    X(uint64_t, HooksGeneration, (void))                                                   \
    X(int, VersionNumber, (void))                                                          \
    X(NclStatus, CheckVersion, (int header_version, int header_abi))                       \
    X(NclStatus, ToDLPack, (const NclArray *a, DLManagedTensorVersioned **out))            \
    X(NclStatus, ToDLPackLegacy, (const NclArray *a, DLManagedTensor **out))               \
    X(NclStatus, FromDLPack, (DLManagedTensorVersioned *t, NclArray **out))                \
    X(NclStatus, FromDLPackLegacy, (DLManagedTensor *t, NclArray **out))                   \
    X(NclStatus, ToArrow, (const NclArray *a, const NclArray *valid,                       \
                           struct ArrowSchema *schema, struct ArrowArray *array))          \
    X(NclStatus, FromArrow, (const struct ArrowSchema *schema, struct ArrowArray *array,   \
                             NclArray **out, NclArray **valid_out))                        \
    X(NclStatus, Rng, (NclRngOp op, NclRngGen *gen, const NclArray *a, const NclArray *b,  \
                       NclArray **out, const NclParams *params))                           \
    X(NclStatus, RngNext, (NclHook *self, NclRngOp op, NclRngGen *gen, const NclArray *a,  \
                           const NclArray *b, NclArray **out, const NclParams *params))    \
    X(NclStatus, SeedSequenceCreate, (const uint32_t *entropy, size_t nentropy,            \
                                      const uint32_t *spawn_key, size_t nkey,              \
                                      NclSeedSequence **out))                              \
    X(NclStatus, SeedSequenceGenerateState, (const NclSeedSequence *ss, uint32_t *words,   \
                                             size_t n))                                    \
    X(NclStatus, SeedSequenceSpawn, (NclSeedSequence *ss, size_t n,                        \
                                     NclSeedSequence **children))                          \
    X(void, SeedSequenceFree, (NclSeedSequence *ss))                                       \
    X(NclStatus, RngGenCreate, (NclBitGen kind, const NclSeedSequence *seed,               \
                                NclRngGen **out))                                          \
    X(NclStatus, RngGenCopy, (const NclRngGen *g, NclRngGen **out))                        \
    X(void, RngGenFree, (NclRngGen *g))                                                    \
    X(int, RngGenKind, (const NclRngGen *g))                                               \
    X(NclStatus, RngGenAdvance, (NclRngGen *g, uint64_t delta_lo, uint64_t delta_hi))      \
    X(NclStatus, RngGenJumped, (const NclRngGen *g, uint64_t jumps, NclRngGen **out))      \
    X(NclStatus, RngGenGetState, (const NclRngGen *g, void *buf, size_t cap,               \
                                  size_t *size))                                           \
    X(NclStatus, RngGenSetState, (NclRngGen *g, const void *buf, size_t size))             \
    X(NclStatus, RngGenFromKey, (NclBitGen kind, const uint32_t *key, size_t nkey,         \
                                 uint64_t word_lo, uint64_t word_hi, NclRngGen **out))     \
    X(NclStatus, ArrayGetItem, (const NclArray *a, const int64_t *index, void *value))     \
    X(NclStatus, ArraySetItem, (NclArray *a, const int64_t *index, const void *value))     \
    X(NclStatus, ArrayFormat, (const NclArray *a, char *buf, size_t cap, size_t *len))     \
    X(NclStatus, SaveNpy, (const NclArray *a, const char *path))                           \
    X(NclStatus, LoadNpy, (const char *path, NclArray **out))                              \
    X(NclStatus, ArrayFromExt, (NclDType dtype, int ndim, const int64_t *shape,            \
                                NclArrayExt *ext, NclArray **out))                         \
    X(NclArrayExt *, ArrayGetExt, (const NclArray *a))                                     \
    X(NclStatus, SetError, (NclStatus s, const char *message))                             \
    X(NclStatus, ReduceChunks, (NclReduceOp op, const NclArray *values, NclArray **out))    \
    X(NclStatus, ReduceChunksLo, (NclReduceOp op, const NclArray *values,                  \
                                  const NclArray *lo, const NclArray *runs, NclArray **out,  \
                                  NclArray **lo_out))                                      \
    X(int, OpOutputs, (NclSubsystem s, int op))                                            \
    X(NclStatus, UnaryN, (NclUnaryOp op, const NclArray *a, int nout, NclArray **out,      \
                          const NclParams *params))                                        \
    X(NclStatus, BinaryN, (NclBinaryOp op, const NclArray *a, const NclArray *b, int nout, \
                           NclArray **out, const NclParams *params))                       \
    X(NclStatus, WeakScalar, (NclDType dtype, const void *value, NclArray **out))          \
    X(NclStatus, Linalg, (NclLinalgOp op, const NclArray *a, const NclArray *b,            \
                          NclArray **out, const NclParams *params))                        \
    X(NclStatus, LinalgNext, (NclHook *self, NclLinalgOp op, const NclArray *a,            \
                              const NclArray *b, NclArray **out, const NclParams *params)) \
    X(NclStatus, Manip, (NclManipOp op, int nin, const NclArray *const *in, NclArray **out, \
                         const NclParams *params))                                         \
    X(NclStatus, ManipNext, (NclHook *self, NclManipOp op, int nin,                        \
                             const NclArray *const *in, NclArray **out,                    \
                             const NclParams *params))                                     \
    X(NclStatus, SortN, (NclSortOp op, const NclArray *a, int nout, NclArray **out,        \
                         const NclParams *params))

/** The master table NclGetApi returns. After the fields below comes one
    function pointer per entry of NCL_API_FUNCTION_LIST, in its order,
    named as the function without its Ncl prefix and with its signature:
    `api->Binary` is NclBinary, `api->DataMem_SetHandler` is
    NclDataMem_SetHandler. A binding reads a member only when NclApi::size
    shows that the library's table reaches it: a library older than the
    binding's headers has a shorter table. */
typedef struct NclApi {
    uint32_t abi_version;  ///< NCL_ABI_VERSION of the library.
    /** sizeof(NclApi) of the library: fields past the caller's own sizeof
        are absent when smaller. */
    uint32_t size;
    const char *version;   ///< NCL_VERSION_STRING of the library.
    /** The level-1 chain heads, by NclSubsystem; NULL where a subsystem is
        not built. Walk them with NclHooksWalk rather
        than by hand. */
    NclListHead *heads[NCL_SUBSYSTEM_COUNT];
    /** @cond */
#define NCL_X_(ret, name, params) ret(*name) params;
    NCL_API_FUNCTION_LIST(NCL_X_)
#undef NCL_X_
    /** @endcond */
} NclApi;

/**
 * The master head: the one symbol a binding must resolve.
 * Thread-safe; allocates nothing, and nothing runs at load time.
 * @return the table; never NULL. It is immutable and lives as long as the
 *         library is loaded.
 */
NCL_API const NclApi *NclGetApi(void);

/**
 * The library's version, to compare with the one of the headers a program
 * was compiled with (NCL_VERSION_NUMBER). Thread-safe.
 * @ingroup ncl_version
 * @return the library's NCL_VERSION_NUMBER: major * 10000 + minor * 100 +
 *         patch.
 */
NCL_API int NclVersionNumber(void);
/**
 * Whether a program compiled with headers of NCL_VERSION_NUMBER
 * header_version and NCL_ABI_VERSION header_abi may use this library: the
 * same ABI version and major version, and a library minor version not
 * older than the headers' (an older one lacks what they added). Usually
 * called as NCL_CHECK_VERSION() at start-up. Thread-safe, allocates
 * nothing.
 * @ingroup ncl_version
 * @param header_version  the headers' NCL_VERSION_NUMBER.
 * @param header_abi      the headers' NCL_ABI_VERSION.
 * @retval NCL_OK
 * @retval NCL_ERR_UNSUPPORTED  another ABI or major version, a library
 *         older than the headers, or a negative header_version; the message
 *         names both versions.
 */
NCL_API NclStatus NclCheckVersion(int header_version, int header_abi);
/** NclCheckVersion with the version of the headers being compiled: NCL_OK
    when the library the program runs with can serve them.
    @ingroup ncl_version */
#define NCL_CHECK_VERSION() NclCheckVersion(NCL_VERSION_NUMBER, NCL_ABI_VERSION)

NCL_END_DECLS

/** @} */

#endif /* NCL_API_H */
