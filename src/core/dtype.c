/*
 * dtype.c: sizes, names, NumPy's promotion and casting tables over the
 * eleven dtypes, and the names of subsystems and ops used in messages.
 *
 * The tables are NumPy 1.24's numpy.promote_types and numpy.can_cast for
 * these dtypes (facts, checked against NumPy by the test suite).
 */
#include <string.h>
#include "core/ncl_core.h"

const uint8_t ncl_dtype_size[NCL_NTYPES] = {
#define NCL_X_(e, sfx, ctype, name, kind) sizeof(ctype),
    NCL_DTYPE_LIST(NCL_X_)
#undef NCL_X_
};

const char ncl_dtype_kind[NCL_NTYPES] = {
#define NCL_X_(e, sfx, ctype, name, kind) #kind[0],
    NCL_DTYPE_LIST(NCL_X_)
#undef NCL_X_
};

static const char *const dtype_names[NCL_NTYPES] = {
#define NCL_X_(e, sfx, ctype, name, kind) name,
    NCL_DTYPE_LIST(NCL_X_)
#undef NCL_X_
};

size_t NclDTypeSize(NclDType t) { return ncl_dtype_valid(t) ? ncl_dtype_size[t] : 0; }

int64_t ncl_load_int64(NclDType t, const void *p)
{
    switch (t) {
    case NCL_BOOL: { uint8_t v; memcpy(&v, p, 1); return v != 0; }
    case NCL_INT8: { int8_t v; memcpy(&v, p, 1); return v; }
    case NCL_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case NCL_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case NCL_UINT8: { uint8_t v; memcpy(&v, p, 1); return v; }
    case NCL_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case NCL_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; } /* int64, uint64 bits */
    }
}

const char *NclDTypeName(NclDType t) { return ncl_dtype_valid(t) ? dtype_names[t] : "invalid"; }

NclStatus NclDTypeFromName(const char *name, NclDType *out)
{
    if (!name || !out)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclDTypeFromName: %s is NULL",
                         !name ? "name" : "out");
    for (int t = 0; t < NCL_NTYPES; t++) {
        if (strcmp(name, dtype_names[t]) == 0) {
            *out = (NclDType)t;
            return NCL_OK;
        }
    }
    return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclDTypeFromName: unknown dtype name \"%.64s\"",
                     name);
}

enum { B_ = NCL_BOOL, I8 = NCL_INT8, I16 = NCL_INT16, I32 = NCL_INT32, I64 = NCL_INT64,
       U8 = NCL_UINT8, U16 = NCL_UINT16, U32 = NCL_UINT32, U64 = NCL_UINT64,
       F32 = NCL_FLOAT32, F64 = NCL_FLOAT64 };

/* numpy.promote_types, row a, column b, in enum order. */
static const int8_t promote_table[NCL_NTYPES][NCL_NTYPES] = {
    /* bool */ {B_, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64},
    /* i8   */ {I8, I8, I16, I32, I64, I16, I32, I64, F64, F32, F64},
    /* i16  */ {I16, I16, I16, I32, I64, I16, I32, I64, F64, F32, F64},
    /* i32  */ {I32, I32, I32, I32, I64, I32, I32, I64, F64, F64, F64},
    /* i64  */ {I64, I64, I64, I64, I64, I64, I64, I64, F64, F64, F64},
    /* u8   */ {U8, I16, I16, I32, I64, U8, U16, U32, U64, F32, F64},
    /* u16  */ {U16, I32, I32, I32, I64, U16, U16, U32, U64, F32, F64},
    /* u32  */ {U32, I64, I64, I64, I64, U32, U32, U32, U64, F64, F64},
    /* u64  */ {U64, F64, F64, F64, F64, U64, U64, U64, U64, F64, F64},
    /* f32  */ {F32, F32, F32, F64, F64, F32, F32, F64, F64, F32, F64},
    /* f64  */ {F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64},
};

/* numpy.can_cast(from, to, "safe"): bit `to` of row `from`. */
#define R(b, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64)                              \
    (uint16_t)((b) | (i8) << 1 | (i16) << 2 | (i32) << 3 | (i64) << 4 | (u8) << 5 |       \
               (u16) << 6 | (u32) << 7 | (u64) << 8 | (f32) << 9 | (f64) << 10)
static const uint16_t safe_table[NCL_NTYPES] = {
    /* bool */ R(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1),
    /* i8   */ R(0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1),
    /* i16  */ R(0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1),
    /* i32  */ R(0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1),
    /* i64  */ R(0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1),
    /* u8   */ R(0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1),
    /* u16  */ R(0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1),
    /* u32  */ R(0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 1),
    /* u64  */ R(0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1),
    /* f32  */ R(0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1),
    /* f64  */ R(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1),
};
#undef R

NclDType NclPromoteTypes(NclDType a, NclDType b)
{
    if (!ncl_dtype_valid(a) || !ncl_dtype_valid(b)) return NCL_DTYPE_DEFAULT;
    return (NclDType)promote_table[a][b];
}

/* same_kind: safe, or towards a later kind in NumPy's order
   bool < unsigned < signed < float (so int64 -> uint8 is not same_kind,
   uint64 -> int8 is). */
static int kind_rank(NclDType t)
{
    switch (ncl_dtype_kind[t]) {
    case 'b': return 0;
    case 'u': return 1;
    case 'i': return 2;
    default: return 3;
    }
}

int NclCanCast(NclDType from, NclDType to, NclCasting casting)
{
    if (!ncl_dtype_valid(from) || !ncl_dtype_valid(to)) return 0;
    switch (casting) {
    case NCL_CASTING_NO:
    case NCL_CASTING_EQUIV: return from == to;
    case NCL_CASTING_SAFE: return (safe_table[from] >> to) & 1;
    case NCL_CASTING_SAME_KIND:
        return ((safe_table[from] >> to) & 1) || kind_rank(from) <= kind_rank(to);
    case NCL_CASTING_UNSAFE: return 1;
    default: return 0;
    }
}

/* ---- subsystem and op names ----------------------------------------------- */

/* By value: a value no line names (a subsystem not in this version) stays
   NULL and reads as "?". */
static const char *const subsystem_names[NCL_SUBSYSTEM_COUNT] = {
#define NCL_X_(e, v, text) [v] = text,
    NCL_SUBSYSTEM_LIST(NCL_X_)
#undef NCL_X_
};

#define NCL_X_(e, text) text,
static const char *const create_names[] = {NCL_CREATE_OP_LIST(NCL_X_)};
static const char *const convert_names[] = {NCL_CONVERT_OP_LIST(NCL_X_)};
static const char *const compare_names[] = {NCL_COMPARE_OP_LIST(NCL_X_)};
static const char *const isunary_names[] = {NCL_ISUNARY_OP_LIST(NCL_X_)};
static const char *const unary_names[] = {NCL_UNARY_OP_LIST(NCL_X_)};
static const char *const binary_names[] = {NCL_BINARY_OP_LIST(NCL_X_)};
static const char *const ternary_names[] = {NCL_TERNARY_OP_LIST(NCL_X_)};
static const char *const reduce_names[] = {NCL_REDUCE_OP_LIST(NCL_X_)};
static const char *const sort_names[] = {NCL_SORT_OP_LIST(NCL_X_)};
static const char *const mask_names[] = {NCL_MASK_OP_LIST(NCL_X_)};
static const char *const rng_names[] = {NCL_RNG_OP_LIST(NCL_X_)};
static const char *const linalg_names[] = {NCL_LINALG_OP_LIST(NCL_X_)};
static const char *const manip_names[] = {NCL_MANIP_OP_LIST(NCL_X_)};
#undef NCL_X_

#define NCL_COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const *op_names(NclSubsystem s, int *count)
{
    switch (s) {
    case NCL_SUBSYSTEM_CREATE: *count = NCL_COUNT_OF(create_names); return create_names;
    case NCL_SUBSYSTEM_CONVERT: *count = NCL_COUNT_OF(convert_names); return convert_names;
    case NCL_SUBSYSTEM_COMPARE: *count = NCL_COUNT_OF(compare_names); return compare_names;
    case NCL_SUBSYSTEM_ISUNARY: *count = NCL_COUNT_OF(isunary_names); return isunary_names;
    case NCL_SUBSYSTEM_UNARY: *count = NCL_COUNT_OF(unary_names); return unary_names;
    case NCL_SUBSYSTEM_BINARY: *count = NCL_COUNT_OF(binary_names); return binary_names;
    case NCL_SUBSYSTEM_TERNARY: *count = NCL_COUNT_OF(ternary_names); return ternary_names;
    case NCL_SUBSYSTEM_REDUCE: *count = NCL_COUNT_OF(reduce_names); return reduce_names;
    case NCL_SUBSYSTEM_SORT: *count = NCL_COUNT_OF(sort_names); return sort_names;
    case NCL_SUBSYSTEM_MASK: *count = NCL_COUNT_OF(mask_names); return mask_names;
    case NCL_SUBSYSTEM_RNG: *count = NCL_COUNT_OF(rng_names); return rng_names;
    case NCL_SUBSYSTEM_LINALG: *count = NCL_COUNT_OF(linalg_names); return linalg_names;
    case NCL_SUBSYSTEM_MANIP: *count = NCL_COUNT_OF(manip_names); return manip_names;
    default: *count = 0; return NULL;
    }
}

const char *ncl_subsystem_name(NclSubsystem s)
{
    return (unsigned)s < (unsigned)NCL_SUBSYSTEM_COUNT && subsystem_names[s] ? subsystem_names[s]
                                                                              : "?";
}

const char *ncl_op_name(NclSubsystem s, int op)
{
    int n;
    const char *const *names = op_names(s, &n);
    return (names && op >= 0 && op < n) ? names[op] : "?";
}

int ncl_op_count(NclSubsystem s)
{
    int n;
    (void)op_names(s, &n);
    return n;
}

int NclOpOutputs(NclSubsystem s, int op)
{
    if (op < 0 || op >= ncl_op_count(s)) return 0;
    return ncl_op_nout(s, op);
}

int ncl_rng_op_nparams(int op)
{
    switch (op) {
    case NCL_RNG_INTEGERS:
    case NCL_RNG_UNIFORM:
    case NCL_RNG_NORMAL:
    case NCL_RNG_GAMMA:
    case NCL_RNG_BETA:
    case NCL_RNG_BINOMIAL: return 2;
    case NCL_RNG_EXPONENTIAL:
    case NCL_RNG_STANDARD_GAMMA:
    case NCL_RNG_POISSON: return 1;
    default: return 0;
    }
}

const char *ncl_bitgen_name(int gen)
{
    static const char *const names[] = {
#define NCL_X_(name, value, text) [value] = text,
        NCL_BITGEN_LIST(NCL_X_)
#undef NCL_X_
    };
    return gen >= 0 && gen < NCL_COUNT_OF(names) ? names[gen] : "?";
}

const char *ncl_sub_fn_name(NclSubsystem s)
{
    switch (s) {
    case NCL_SUBSYSTEM_INFO: return "NclInfo";
    case NCL_SUBSYSTEM_CREATE: return "NclCreate";
    case NCL_SUBSYSTEM_CONVERT: return "NclConvert";
    case NCL_SUBSYSTEM_COMPARE: return "NclCompare";
    case NCL_SUBSYSTEM_ISUNARY: return "NclIsUnary";
    case NCL_SUBSYSTEM_UNARY: return "NclUnary";
    case NCL_SUBSYSTEM_BINARY: return "NclBinary";
    case NCL_SUBSYSTEM_TERNARY: return "NclTernary";
    case NCL_SUBSYSTEM_REDUCE: return "NclReduce";
    case NCL_SUBSYSTEM_SORT: return "NclSort";
    case NCL_SUBSYSTEM_MASK: return "NclMask";
    case NCL_SUBSYSTEM_RNG: return "NclRng";
    case NCL_SUBSYSTEM_LINALG: return "NclLinalg";
    case NCL_SUBSYSTEM_MANIP: return "NclManip";
    default: return "Ncl?";
    }
}
