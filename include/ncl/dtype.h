/**
 * @file
 * @brief The fixed-width element types, NumPy's promotion and casting rules
 * over them, and the X-macro list that drives every per-dtype table.
 *
 * @defgroup ncl_dtypes Dtypes and casting
 * @brief The element types, their names and sizes, and NumPy's
 * promote_types and can_cast over them.
 *
 * Promotion and casting equal NumPy's for these dtypes, and the result
 * dtype of every op equals NumPy's ufunc type resolution for array operands
 * (NEP 50: a 0-d array is an ordinary array, there is no value-based
 * casting), except that where NumPy answers float16 NCLib answers float32.
 * Every function here is pure: thread-safe, allocation-free.
 * @{
 */
#ifndef NCL_DTYPE_H
#define NCL_DTYPE_H

#include <stddef.h>
#include <stdint.h>
#include "export.h"
#include "status.h"

NCL_BEGIN_DECLS

/** The element type of an array. The numbers are fixed by the contract;
    new dtypes (float16, complex) may only be added after NCL_FLOAT64. */
typedef enum NclDType {
    NCL_BOOL = 0,     ///< bool: one byte holding 0 or 1 (ncl_bool).
    NCL_INT8 = 1,     ///< int8_t.
    NCL_INT16 = 2,    ///< int16_t.
    NCL_INT32 = 3,    ///< int32_t.
    NCL_INT64 = 4,    ///< int64_t.
    NCL_UINT8 = 5,    ///< uint8_t.
    NCL_UINT16 = 6,   ///< uint16_t.
    NCL_UINT32 = 7,   ///< uint32_t.
    NCL_UINT64 = 8,   ///< uint64_t.
    NCL_FLOAT32 = 9,  ///< float (IEEE 754 binary32).
    NCL_FLOAT64 = 10, ///< double (IEEE 754 binary64).
    NCL_NTYPES,       ///< How many dtypes there are; not a dtype.
    /** "Not given": in NclParams::dtype and NclCreateParams::dtype, let the
        call resolve the dtype; returned by NclPromoteTypes and
        NclArrayDType for invalid arguments. */
    NCL_DTYPE_DEFAULT = -1
} NclDType;

/** How far a cast may change values, as NumPy's `casting=` argument. */
typedef enum NclCasting {
    NCL_CASTING_NO = 0,        ///< No cast at all: the dtypes must be equal.
    NCL_CASTING_EQUIV = 1,     ///< Only byte-order changes; for these dtypes the same as NO.
    NCL_CASTING_SAFE = 2,      ///< Only casts that keep every value (int8 to int16, not back).
    /** Safe casts, and casts within a kind or to a later one in the order
        bool, unsigned, signed, float: float64 to float32 and int64 to int8
        are allowed, int64 to uint8 is not. */
    NCL_CASTING_SAME_KIND = 3,
    NCL_CASTING_UNSAFE = 4     ///< Any cast (float to int saturates; see NclConvert).
} NclCasting;

/** The C type of a bool element: one byte holding 0 or 1. */
typedef uint8_t ncl_bool;

/** X-macro list of the dtypes, one entry per dtype in enum order:
    `X(ENUM, suffix, C type, name, kind)` with kind b (bool), i, u or f, name
    NumPy's (NclDTypeName) and suffix the one kernel names use (i8, f64).
    Use it to stamp out tables and per-dtype functions without repeating
    lists. */
#define NCL_DTYPE_LIST(X)                        \
    X(NCL_BOOL, b, ncl_bool, "bool", b)          \
    X(NCL_INT8, i8, int8_t, "int8", i)           \
    X(NCL_INT16, i16, int16_t, "int16", i)       \
    X(NCL_INT32, i32, int32_t, "int32", i)       \
    X(NCL_INT64, i64, int64_t, "int64", i)       \
    X(NCL_UINT8, u8, uint8_t, "uint8", u)        \
    X(NCL_UINT16, u16, uint16_t, "uint16", u)    \
    X(NCL_UINT32, u32, uint32_t, "uint32", u)    \
    X(NCL_UINT64, u64, uint64_t, "uint64", u)    \
    X(NCL_FLOAT32, f32, float, "float32", f)     \
    X(NCL_FLOAT64, f64, double, "float64", f)

/**
 * Size in bytes of one element.
 * @param t  any value.
 * @return 1, 2, 4 or 8; 0 for a value that is not a dtype.
 */
NCL_API size_t NclDTypeSize(NclDType t);

/**
 * NumPy's name of a dtype.
 * @param t  any value.
 * @return a static string, "bool", "int8", ..., "float64"; "invalid" for a
 *         value that is not a dtype.
 */
NCL_API const char *NclDTypeName(NclDType t);

/**
 * Parses a name as written by NclDTypeName (NumPy's spellings).
 * @param name  the name, NUL-terminated.
 * @param out   receives the dtype; untouched on failure.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  name or out is NULL, or the name is
 *                                   not one NclDTypeName gives.
 */
NCL_API NclStatus NclDTypeFromName(const char *name, NclDType *out);

/**
 * numpy.promote_types: the smallest dtype both a and b cast to safely
 * (int64 with uint64 gives float64, as in NumPy).
 * @param a  a dtype.
 * @param b  a dtype.
 * @return the promoted dtype; NCL_DTYPE_DEFAULT if either argument is not
 *         a dtype.
 */
NCL_API NclDType NclPromoteTypes(NclDType a, NclDType b);

/**
 * numpy.can_cast(from, to, casting).
 * @param from     the source dtype.
 * @param to       the target dtype.
 * @param casting  the rule.
 * @return 1 when the rule allows the cast, else 0 (also for arguments that
 *         are not dtypes or rules).
 */
NCL_API int NclCanCast(NclDType from, NclDType to, NclCasting casting);

NCL_END_DECLS

/** @} */

#endif /* NCL_DTYPE_H */
