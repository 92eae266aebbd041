/**
 * @file
 * @brief Floating-point error flags and what a call does when one is raised
 * (ignore, return an error, or call back). Modes are per thread.
 *
 * @defgroup ncl_fpe Floating-point errors
 * @brief The four error categories, what each does when a call raises it,
 * and the flags of the last call.
 *
 * A call records the categories its elements raised, on every worker thread
 * it was split across (integer division by zero and overflow raise them
 * too, as in NumPy). At the end of a top-level call (not one a hook makes
 * from inside another call) the calling thread's mode of each raised
 * category decides: NCL_ERRMODE_IGNORE (the default for every category:
 * a library prints nothing), NCL_ERRMODE_RAISE (the call returns
 * NCL_ERR_FLOATING_POINT) or NCL_ERRMODE_CALL (the thread's callback runs).
 * Modes, callback and flags belong to the calling thread; a call never
 * changes the caller's own hardware floating-point flags.
 * @{
 */
#ifndef NCL_FPE_H
#define NCL_FPE_H

#include "export.h"
#include "status.h"

NCL_BEGIN_DECLS

/** The error categories, one bit each. */
enum {
    NCL_FPE_DIVIDE = 1,    ///< Division by zero (float, or integer division or remainder).
    NCL_FPE_OVERFLOW = 2,  ///< A result too large for its dtype (also integer MIN // -1).
    NCL_FPE_UNDERFLOW = 4, ///< A float result too small to be normal.
    /** An invalid operation: NaN from operands that are not NaN, or a
        float-to-integer cast of NaN or of a value out of range. */
    NCL_FPE_INVALID = 8
};
/** Every category. */
#define NCL_FPE_ALL (NCL_FPE_DIVIDE | NCL_FPE_OVERFLOW | NCL_FPE_UNDERFLOW | NCL_FPE_INVALID)

/** What a raised category does at the end of a top-level call. */
typedef enum NclErrMode {
    NCL_ERRMODE_IGNORE = 0, ///< Nothing; the flag is still recorded (NclGetFPErrors). The default.
    /** The call returns NCL_ERR_FLOATING_POINT: a provided output has been
        written, an output the call would have allocated is released. */
    NCL_ERRMODE_RAISE = 1,
    NCL_ERRMODE_CALL = 2    ///< The thread's NclErrCallback is called, the call succeeds.
} NclErrMode;

/** Called once per raised category whose mode is NCL_ERRMODE_CALL, after the
    output is written, on the thread that made the call, once the call has
    left the hook chains (it may call NCLib, and unhook nodes).
    @param category  the category, one NCL_FPE_* bit.
    @param where     names the call, e.g. "NclBinary(divide)"; valid during
                     the callback only.
    @param user      the pointer given to NclSetErrCallback. */
typedef void (*NclErrCallback)(int category, const char *where, void *user);

/**
 * Sets the mode of every category bit in categories, for the calling
 * thread.
 * @param categories  NCL_FPE_* bits; 0 changes nothing.
 * @param mode        the mode.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  bits outside NCL_FPE_ALL, or an unknown
 *                                   mode; no mode is changed.
 */
NCL_API NclStatus NclSetErrMode(int categories, NclErrMode mode);
/**
 * The calling thread's mode of one category.
 * @param category  a single NCL_FPE_* bit.
 * @return its mode; NCL_ERRMODE_IGNORE for anything but a single bit.
 */
NCL_API NclErrMode NclGetErrMode(int category);
/**
 * Sets the calling thread's callback for NCL_ERRMODE_CALL.
 * @param fn    the callback; NULL removes it (categories in CALL mode then
 *              do nothing).
 * @param user  passed to fn.
 */
NCL_API void NclSetErrCallback(NclErrCallback fn, void *user);
/**
 * The flags raised by the calling thread's last top-level call, from all
 * the workers it was split across, whatever the modes.
 * @return NCL_FPE_* bits; 0 when that call raised none.
 */
NCL_API int NclGetFPErrors(void);

NCL_END_DECLS

/** @} */

#endif /* NCL_FPE_H */
