/**
 * @file
 * @brief The status codes every fallible NCLib function returns, and the
 * per-thread message that explains the last failure.
 *
 * @defgroup ncl_errors Status and errors
 * @brief NclStatus, its descriptions, and the calling thread's message for
 * its last failure.
 *
 * Every fallible function returns an NclStatus; results go through pointer
 * parameters. No function aborts, prints or exits on bad input: it returns a
 * status and leaves a message, read with NclLastError(), that names the
 * function, the operands (shapes, dtypes) and the rule that was broken. On
 * failure a result NCLib would have allocated is not returned (`*out` keeps
 * what it held, except where a function says otherwise) and nothing leaks;
 * a caller's output is left untouched when the failure is found before any
 * element is computed.
 * @{
 */
#ifndef NCL_STATUS_H
#define NCL_STATUS_H

#include "export.h"

NCL_BEGIN_DECLS

/** X-macro list of the status codes, one `X(name, value, text)` per code in
    value order, where text is the fixed description NclStatusString returns.
    NclStatus and the descriptions are both generated from it.
    @hideinitializer */
#define NCL_STATUS_LIST(X)                                                          \
    /** Success. */                                                                 \
    X(NCL_OK, 0, "success")                                                         \
    /** NULL where it is not allowed, an unknown enum value or op, a malformed      \
        NclParams or NclCreateParams, an argument outside its domain. */            \
    X(NCL_ERR_INVALID_ARGUMENT, 1, "invalid argument")                              \
    /** An allocation failed (the allocator handler's, or NCLib's own). */          \
    X(NCL_ERR_NO_MEMORY, 2, "out of memory")                                        \
    /** A negative extent, ndim above NCL_MAXDIMS, an element count or byte         \
        extent int64 cannot hold, or a provided output of the wrong shape. */       \
    X(NCL_ERR_SHAPE, 3, "invalid shape")                                            \
    /** Operands, or a where mask, whose shapes do not broadcast together. */       \
    X(NCL_ERR_BROADCAST, 4, "shapes cannot be broadcast")                           \
    /** The op has no loop for these dtypes, or a dtype was asked for that the      \
        op cannot give. */                                                          \
    X(NCL_ERR_DTYPE, 5, "operation not defined for these dtypes")                   \
    /** A cast the call needs is not allowed under its casting rule. */             \
    X(NCL_ERR_CASTING, 6, "cast not allowed under the casting rule")                \
    /** An axis out of range, repeated, or more axes than the op takes. */          \
    X(NCL_ERR_AXIS, 7, "invalid axis")                                              \
    /** The output (or a target changed in place) is not writeable. */              \
    X(NCL_ERR_READONLY, 8, "output is not writeable")                               \
    /** A floating-point error category the call raised is in NCL_ERRMODE_RAISE     \
        (NclSetErrMode): a provided output has been written, one the call           \
        would have allocated is released, not returned. */                          \
    X(NCL_ERR_FLOATING_POINT, 9, "floating-point error")                            \
    /** The call would have host code read or write NCL_MEM_DEVICE memory. */       \
    X(NCL_ERR_DEVICE_MEMORY, 10, "host code cannot touch device memory")            \
    /** Not available in this build or on this system, or a version mismatch. */    \
    X(NCL_ERR_UNSUPPORTED, 11, "unsupported")                                       \
    /** Misuse of the hook chains: a node inserted twice, removed while not         \
        linked, an unhook that would wait for the calling thread itself. */         \
    X(NCL_ERR_HOOK, 12, "hook chain misuse")                                        \
    /** An index (TAKE's indices, PARTITION's kth) out of bounds. */                \
    X(NCL_ERR_INDEX, 13, "index out of bounds")                                     \
    /** A transfer between processes failed (libncl_mpi: an MPI call's       \
        error, whose text the message gives). */                                    \
    X(NCL_ERR_COMM, 14, "communication failed")

/** What every fallible function returns: NCL_OK, or the reason it failed.
    The values come from NCL_STATUS_LIST and are fixed by the contract. */
typedef enum NclStatus {
#define NCL_X_(name, value, text) name = value,
    NCL_STATUS_LIST(NCL_X_)
#undef NCL_X_
    NCL_STATUS_COUNT ///< How many codes there are; not a status.
} NclStatus;

/**
 * A fixed English description of a status, from NCL_STATUS_LIST.
 * Thread-safe; allocates nothing.
 * @param s  any value.
 * @return a static string; "unknown status" for a value outside the enum.
 */
NCL_API const char *NclStatusString(NclStatus s);

/**
 * The calling thread's message for its last failed call, naming the
 * function, the operands and the rule broken, e.g. `NclBinary(add):
 * operands with shapes (3,4) and (5,) cannot be broadcast`.
 * Each thread has its own message; a successful call leaves it as it was.
 * @return this thread's buffer: "" if this thread has had no failure. It
 *         stays valid while the thread lives and is overwritten by the
 *         thread's next failing call; copy it to keep it.
 */
NCL_API const char *NclLastError(void);

/**
 * Fails a call from outside the library: sets the calling thread's
 * NclLastError to message (truncated to the buffer, which holds at least
 * 255 bytes) and returns s, for a hook or an extension that refuses or
 * fails a call, so that its caller reads a message as for any other
 * failure: `return NclSetError(NCL_ERR_UNSUPPORTED, "...")`.
 * @param s        the status to return.
 * @param message  the text, naming the function and the rule broken; NULL
 *                 leaves the message as it was.
 * @return s.
 */
NCL_API NclStatus NclSetError(NclStatus s, const char *message);

NCL_END_DECLS

/** @} */

#endif /* NCL_STATUS_H */
