/*
 * typeres.c: which inner loop an elementwise call runs, as NumPy's ufunc
 * type resolution does for array operands: walk the op's loops in NumPy's
 * order and take the first whose input dtypes every operand casts to
 * safely. float16 loops do not exist here, so NumPy's float16 answers
 * become float32. The exceptions to the plain search are NumPy's own (bool
 * subtract, gcd, lcm and bool negative/positive/sign are refused; true
 * division of integers is float64; ldexp's loops mix two dtypes). Compare needs no search: its kernels take every
 * dtype pair as it is, so that mixed comparisons are exact.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "exec/plan.h"
#include "exec/typeres.h"

/* Loop classes: which dtypes an op has homogeneous loops for, in NumPy's
   loop order (bool, int8, uint8, int16, uint16, ..., float32, float64). */
enum loop_class { C_ALL, C_NOBOOL, C_INTS_BOOL, C_INTS, C_FLOATS, C_FLOAT64, C_LDEXP, C_NONE };
/* The loop's outputs: the loop dtype, or bool; two of the loop dtype
   (modf, divmod), or the loop dtype and int32 (frexp). */
enum loop_out { O_SAME, O_BOOL, O_SAME2, O_FREXP };

typedef struct op_loops {
    uint8_t cls, out;
} op_loops;

static const NclDType numpy_order[NCL_NTYPES] = {
    NCL_BOOL, NCL_INT8, NCL_UINT8, NCL_INT16, NCL_UINT16, NCL_INT32, NCL_UINT32,
    NCL_INT64, NCL_UINT64, NCL_FLOAT32, NCL_FLOAT64};

static int in_class(enum loop_class c, NclDType t)
{
    char k = ncl_dtype_kind[t];
    switch (c) {
    case C_ALL: return 1;
    case C_NOBOOL: return k != 'b';
    case C_INTS_BOOL: return k != 'f';
    case C_INTS: return k == 'i' || k == 'u';
    case C_FLOATS: return k == 'f';
    case C_FLOAT64: return t == NCL_FLOAT64;
    case C_LDEXP: return k == 'f'; /* the mantissa's dtype; see ldexp_search */
    default: return 0;
    }
}

static const op_loops binary_loops[NCL_BINARY_NOPS] = {
    [NCL_ADD] = {C_ALL, O_SAME},          [NCL_SUBTRACT] = {C_NOBOOL, O_SAME},
    [NCL_MULTIPLY] = {C_ALL, O_SAME},     [NCL_DIVIDE] = {C_FLOATS, O_SAME},
    [NCL_FLOOR_DIVIDE] = {C_NOBOOL, O_SAME}, [NCL_REMAINDER] = {C_NOBOOL, O_SAME},
    [NCL_FMOD] = {C_NOBOOL, O_SAME},      [NCL_POWER] = {C_NOBOOL, O_SAME},
    [NCL_MAXIMUM] = {C_ALL, O_SAME},      [NCL_MINIMUM] = {C_ALL, O_SAME},
    [NCL_FMAX] = {C_ALL, O_SAME},         [NCL_FMIN] = {C_ALL, O_SAME},
    [NCL_ARCTAN2] = {C_FLOATS, O_SAME},   [NCL_HYPOT] = {C_FLOATS, O_SAME},
    [NCL_COPYSIGN] = {C_FLOATS, O_SAME},  [NCL_BITWISE_AND] = {C_INTS_BOOL, O_SAME},
    [NCL_BITWISE_OR] = {C_INTS_BOOL, O_SAME}, [NCL_BITWISE_XOR] = {C_INTS_BOOL, O_SAME},
    [NCL_LEFT_SHIFT] = {C_INTS, O_SAME},  [NCL_RIGHT_SHIFT] = {C_INTS, O_SAME},
    [NCL_LOGICAL_AND] = {C_ALL, O_BOOL},  [NCL_LOGICAL_OR] = {C_ALL, O_BOOL},
    [NCL_LOGICAL_XOR] = {C_ALL, O_BOOL},  [NCL_HEAVISIDE] = {C_FLOATS, O_SAME},
    [NCL_LOGADDEXP] = {C_FLOATS, O_SAME}, [NCL_LOGADDEXP2] = {C_FLOATS, O_SAME},
    [NCL_NEXTAFTER] = {C_FLOATS, O_SAME}, [NCL_GCD] = {C_INTS, O_SAME},
    [NCL_LCM] = {C_INTS, O_SAME},         [NCL_FLOAT_POWER] = {C_FLOAT64, O_SAME},
    [NCL_LDEXP] = {C_LDEXP, O_SAME},      [NCL_DIVMOD] = {C_NOBOOL, O_SAME2},
};

static const op_loops unary_loops[NCL_UNARY_NOPS] = {
    [NCL_NEGATIVE] = {C_NOBOOL, O_SAME},  [NCL_POSITIVE] = {C_NOBOOL, O_SAME},
    [NCL_ABSOLUTE] = {C_ALL, O_SAME},     [NCL_SIGN] = {C_NOBOOL, O_SAME},
    [NCL_SQUARE] = {C_NOBOOL, O_SAME},    [NCL_RECIPROCAL] = {C_NOBOOL, O_SAME},
    [NCL_SQRT] = {C_FLOATS, O_SAME},      [NCL_CBRT] = {C_FLOATS, O_SAME},
    [NCL_EXP] = {C_FLOATS, O_SAME},       [NCL_EXP2] = {C_FLOATS, O_SAME},
    [NCL_EXPM1] = {C_FLOATS, O_SAME},     [NCL_LOG] = {C_FLOATS, O_SAME},
    [NCL_LOG2] = {C_FLOATS, O_SAME},      [NCL_LOG10] = {C_FLOATS, O_SAME},
    [NCL_LOG1P] = {C_FLOATS, O_SAME},     [NCL_SIN] = {C_FLOATS, O_SAME},
    [NCL_COS] = {C_FLOATS, O_SAME},       [NCL_TAN] = {C_FLOATS, O_SAME},
    [NCL_ARCSIN] = {C_FLOATS, O_SAME},    [NCL_ARCCOS] = {C_FLOATS, O_SAME},
    [NCL_ARCTAN] = {C_FLOATS, O_SAME},    [NCL_SINH] = {C_FLOATS, O_SAME},
    [NCL_COSH] = {C_FLOATS, O_SAME},      [NCL_TANH] = {C_FLOATS, O_SAME},
    [NCL_ARCSINH] = {C_FLOATS, O_SAME},   [NCL_ARCCOSH] = {C_FLOATS, O_SAME},
    [NCL_ARCTANH] = {C_FLOATS, O_SAME},   [NCL_FLOOR] = {C_FLOATS, O_SAME},
    [NCL_CEIL] = {C_FLOATS, O_SAME},      [NCL_TRUNC] = {C_FLOATS, O_SAME},
    [NCL_RINT] = {C_FLOATS, O_SAME},      [NCL_INVERT] = {C_INTS_BOOL, O_SAME},
    [NCL_LOGICAL_NOT] = {C_ALL, O_BOOL},  [NCL_DEG2RAD] = {C_FLOATS, O_SAME},
    [NCL_RAD2DEG] = {C_FLOATS, O_SAME},   [NCL_SPACING] = {C_FLOATS, O_SAME},
    [NCL_CONJUGATE] = {C_NOBOOL, O_SAME}, [NCL_FABS] = {C_FLOATS, O_SAME},
    [NCL_FREXP] = {C_FLOATS, O_FREXP},    [NCL_MODF] = {C_FLOATS, O_SAME2},
};

static const op_loops ternary_loops[NCL_TERNARY_NOPS] = {
    [NCL_WHERE] = {C_ALL, O_SAME}, /* the condition is read as bool, see below */
    [NCL_CLIP] = {C_ALL, O_SAME},
    [NCL_FMA] = {C_FLOATS, O_SAME},
};

static const op_loops isunary_loops[NCL_ISUNARY_NOPS] = {
    [NCL_IS_NAN] = {C_ALL, O_BOOL},   [NCL_IS_INF] = {C_ALL, O_BOOL},
    [NCL_IS_FINITE] = {C_ALL, O_BOOL}, [NCL_SIGNBIT] = {C_FLOATS, O_BOOL},
};

static op_loops loops_of(NclSubsystem sub, int op)
{
    switch (sub) {
    case NCL_SUBSYSTEM_BINARY: return binary_loops[op];
    case NCL_SUBSYSTEM_UNARY: return unary_loops[op];
    case NCL_SUBSYSTEM_ISUNARY: return isunary_loops[op];
    case NCL_SUBSYSTEM_TERNARY: return ternary_loops[op];
    default: return (op_loops){C_NONE, O_SAME};
    }
}

static NclStatus no_loop(NclSubsystem sub, int op, int nin, const NclDType *in, const char *why)
{
    return ncl_error(NCL_ERR_DTYPE, "%s(%s): %s for dtype%s (%s%s%s%s%s)", ncl_sub_fn_name(sub),
                     ncl_op_name(sub, op), why, nin > 1 ? "s" : "", NclDTypeName(in[0]),
                     nin > 1 ? ", " : "", nin > 1 ? NclDTypeName(in[1]) : "",
                     nin > 2 ? ", " : "", nin > 2 ? NclDTypeName(in[2]) : "");
}

/* ldexp(a, n), NumPy's one mixed-dtype loop list: (float, int32),
   (float, int64), (double, int32), (double, int64), the first whose two
   dtypes the operands cast to safely (NumPy lists float16 first, which
   NCLib answers in float32: the order is unchanged). dtype= names the
   mantissa's (and the result's) dtype. */
static NclStatus ldexp_search(const NclDType *in, NclDType dtype, NclDType *loop)
{
    static const NclDType mant[4] = {NCL_FLOAT32, NCL_FLOAT32, NCL_FLOAT64, NCL_FLOAT64};
    static const NclDType expo[4] = {NCL_INT32, NCL_INT64, NCL_INT32, NCL_INT64};
    for (int k = 0; k < 4; k++) {
        if (dtype != NCL_DTYPE_DEFAULT ? mant[k] != dtype
                                       : !NclCanCast(in[0], mant[k], NCL_CASTING_SAFE))
            continue;
        if (!NclCanCast(in[1], expo[k], NCL_CASTING_SAFE)) continue;
        loop[0] = loop[2] = mant[k];
        loop[1] = expo[k];
        return NCL_OK;
    }
    if (dtype != NCL_DTYPE_DEFAULT && dtype != NCL_FLOAT32 && dtype != NCL_FLOAT64)
        return ncl_error(NCL_ERR_DTYPE, "NclBinary(ldexp): no %s loop", NclDTypeName(dtype));
    return no_loop(NCL_SUBSYSTEM_BINARY, NCL_LDEXP, 2, in,
                   "no loop (a float mantissa and an integer exponent that fits int64)");
}

static NclStatus resolve_search(NclSubsystem sub, int op, int nin, const NclDType *in,
                                NclDType dtype, NclDType *loop)
{
    if (sub == NCL_SUBSYSTEM_COMPARE) {
        if (dtype != NCL_DTYPE_DEFAULT && dtype != NCL_BOOL)
            return ncl_error(NCL_ERR_DTYPE, "NclCompare(%s): comparisons give bool, not %s",
                             ncl_op_name(sub, op), NclDTypeName(dtype));
        loop[0] = in[0];
        loop[1] = in[1];
        loop[2] = NCL_BOOL;
        return NCL_OK;
    }

    if (sub == NCL_SUBSYSTEM_TERNARY && op == NCL_WHERE) {
        /* where(cond, b, c): the condition is any dtype read as truth (cast
           to bool, non-zero is true); b and c meet in their promoted dtype. */
        NclDType t = dtype != NCL_DTYPE_DEFAULT ? dtype : NclPromoteTypes(in[1], in[2]);
        loop[0] = NCL_BOOL;
        loop[1] = loop[2] = loop[3] = t;
        return NCL_OK;
    }
    int all_bool = 1, all_int = 1;
    for (int i = 0; i < nin; i++) {
        all_bool &= in[i] == NCL_BOOL;
        all_int &= ncl_dtype_kind[in[i]] != 'f';
    }
    /* NumPy's own refusals, ahead of the search that would otherwise pick
       int8; a dtype= naming a loop (subtract in int32, say) is not refused. */
    const int bool_gcd = sub == NCL_SUBSYSTEM_BINARY && (op == NCL_GCD || op == NCL_LCM);
    if (all_bool && dtype == NCL_DTYPE_DEFAULT &&
        (bool_gcd || (sub == NCL_SUBSYSTEM_BINARY && op == NCL_SUBTRACT) ||
         (sub == NCL_SUBSYSTEM_UNARY &&
          (op == NCL_NEGATIVE || op == NCL_POSITIVE || op == NCL_SIGN))))
        return no_loop(sub, op, nin, in,
                       bool_gcd ? "not defined on booleans"
                                : "not defined on booleans (use bitwise_xor / logical_not)");

    if (sub == NCL_SUBSYSTEM_BINARY && op == NCL_LDEXP) return ldexp_search(in, dtype, loop);

    op_loops L = loops_of(sub, op);
    if (L.out == O_BOOL && dtype != NCL_DTYPE_DEFAULT && dtype != NCL_BOOL)
        return ncl_error(NCL_ERR_DTYPE, "%s(%s): the result is bool; dtype %s was asked for",
                         ncl_sub_fn_name(sub), ncl_op_name(sub, op), NclDTypeName(dtype));

    NclDType t = NCL_DTYPE_DEFAULT;
    if (dtype != NCL_DTYPE_DEFAULT && L.out != O_BOOL) {
        /* dtype= names the loop: the inputs are cast to it under the call's
           casting rule, which the planner checks. */
        if (!in_class((enum loop_class)L.cls, dtype))
            return ncl_error(NCL_ERR_DTYPE, "%s(%s): no %s loop", ncl_sub_fn_name(sub),
                             ncl_op_name(sub, op), NclDTypeName(dtype));
        t = dtype;
    } else if (sub == NCL_SUBSYSTEM_BINARY && op == NCL_DIVIDE && all_int) {
        t = NCL_FLOAT64; /* NumPy's true division of integers */
    } else {
        for (int k = 0; k < NCL_NTYPES && t == NCL_DTYPE_DEFAULT; k++) {
            NclDType c = numpy_order[k];
            if (!in_class((enum loop_class)L.cls, c)) continue;
            int ok = 1;
            for (int i = 0; i < nin; i++) ok &= NclCanCast(in[i], c, NCL_CASTING_SAFE);
            if (ok) t = c;
        }
        if (t == NCL_DTYPE_DEFAULT) return no_loop(sub, op, nin, in, "no loop");
    }
    for (int i = 0; i < nin; i++) loop[i] = t;
    loop[nin] = L.out == O_BOOL ? NCL_BOOL : t;
    if (L.out == O_SAME2 || L.out == O_FREXP) loop[nin + 1] = L.out == O_FREXP ? NCL_INT32 : t;
    return NCL_OK;
}

/* ---- the resolved-loop cache ----------------------------------------------------
   A call without dtype= resolves to a loop that depends only on the op and
   the input dtypes, so every answer is worked out once, on first use, and a
   call costs one table read. NO_LOOP marks a refusal: the search is run
   again then, to write its message. The tables are built under a once
   control; ncl_typeres_ready, set with release order when they are
   complete, lets a call skip the once control's own bookkeeping. */
ncl_resolved ncl_binary_cache[NCL_BINARY_NOPS][NCL_NTYPES][NCL_NTYPES];
ncl_resolved ncl_compare_cache[NCL_COMPARE_NOPS][NCL_NTYPES][NCL_NTYPES];
ncl_resolved ncl_unary_cache[NCL_UNARY_NOPS][NCL_NTYPES];
ncl_resolved ncl_isunary_cache[NCL_ISUNARY_NOPS][NCL_NTYPES];
int ncl_typeres_ready;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;

static ncl_resolved search_input_loop(NclSubsystem sub, int op, int nin, NclDType a, NclDType b)
{
    NclDType in[2] = {a, b}, loop[NCL_MAX_OPERANDS];
    char saved[sizeof ncl_last_error];
    memcpy(saved, ncl_last_error, sizeof saved); /* a refusal here is not the caller's */
    NclStatus st = resolve_search(sub, op, nin, in, NCL_DTYPE_DEFAULT, loop);
    memcpy(ncl_last_error, saved, sizeof saved);
    if (st) return (ncl_resolved){NCL_NO_LOOP, NCL_NO_LOOP, NCL_NO_LOOP, NCL_NO_LOOP, NULL, NULL};
    /* A two-output op keeps no chain here: the one-output fast paths need
       one to run, and such calls are planned. */
    const int two = ncl_op_nout(sub, op) > 1;
    return (ncl_resolved){(uint8_t)loop[0], (uint8_t)loop[nin], (uint8_t)loop[nin > 1],
                          two ? (uint8_t)loop[nin + 1] : NCL_NO_LOOP,
                          two ? NULL : ncl_kernel_chain(sub, op, loop, nin + 1),
                          two ? NULL : ncl_ew_fused_chain(sub, op, nin, in, loop)};
}

static void build_cache(void)
{
    for (int a = 0; a < NCL_NTYPES; a++) {
        for (int b = 0; b < NCL_NTYPES; b++) {
            for (int op = 0; op < NCL_BINARY_NOPS; op++)
                ncl_binary_cache[op][a][b] =
                    search_input_loop(NCL_SUBSYSTEM_BINARY, op, 2, (NclDType)a, (NclDType)b);
            for (int op = 0; op < NCL_COMPARE_NOPS; op++)
                ncl_compare_cache[op][a][b] =
                    search_input_loop(NCL_SUBSYSTEM_COMPARE, op, 2, (NclDType)a, (NclDType)b);
        }
    }
    for (int a = 0; a < NCL_NTYPES; a++) {
        for (int op = 0; op < NCL_UNARY_NOPS; op++)
            ncl_unary_cache[op][a] =
                search_input_loop(NCL_SUBSYSTEM_UNARY, op, 1, (NclDType)a, NCL_BOOL);
        for (int op = 0; op < NCL_ISUNARY_NOPS; op++)
            ncl_isunary_cache[op][a] =
                search_input_loop(NCL_SUBSYSTEM_ISUNARY, op, 1, (NclDType)a, NCL_BOOL);
    }
    __atomic_store_n(&ncl_typeres_ready, 1, __ATOMIC_RELEASE);
}

void ncl_typeres_init(void) { pthread_once(&cache_once, build_cache); }

NclStatus ncl_resolve_loop(NclSubsystem sub, int op, int nin, const NclDType *in,
                           NclDType dtype, NclDType *loop, ncl_kchain **chain)
{
    *chain = NULL;
    if (dtype == NCL_DTYPE_DEFAULT &&
        (sub == NCL_SUBSYSTEM_BINARY || sub == NCL_SUBSYSTEM_COMPARE ||
         sub == NCL_SUBSYSTEM_UNARY || sub == NCL_SUBSYSTEM_ISUNARY)) {
        const ncl_resolved *r = sub == NCL_SUBSYSTEM_BINARY  ? ncl_resolved_binary(op, in[0], in[1])
                              : sub == NCL_SUBSYSTEM_COMPARE ? ncl_resolved_compare(op, in[0], in[1])
                              : sub == NCL_SUBSYSTEM_UNARY   ? ncl_resolved_unary(op, in[0])
                                                             : ncl_resolved_isunary(op, in[0]);
        if (r->loop != NCL_NO_LOOP) {
            if (sub == NCL_SUBSYSTEM_COMPARE) {
                loop[0] = in[0];
                loop[1] = in[1];
            } else {
                loop[0] = (NclDType)r->loop;
                if (nin > 1) loop[1] = (NclDType)r->loop1;
            }
            loop[nin] = (NclDType)r->out;
            if (r->out2 != NCL_NO_LOOP) loop[nin + 1] = (NclDType)r->out2;
            *chain = r->chain;
            return NCL_OK;
        }
    }
    return resolve_search(sub, op, nin, in, dtype, loop);
}

/* ---- weak scalars (NclWeakScalar, NEP 50) --------------------------------------- */

/* The inputs of (sub, op) whose dtypes meet in type resolution: every
   one, but where's condition. */
NCL_INLINE int promoted_input(NclSubsystem sub, int op, int i)
{
    return !(sub == NCL_SUBSYSTEM_TERNARY && op == NCL_WHERE && i == 0);
}

unsigned ncl_weak_inputs(NclSubsystem sub, int op, int nin, const NclArray *const *in)
{
    if (sub != NCL_SUBSYSTEM_BINARY && sub != NCL_SUBSYSTEM_TERNARY) return 0;
    /* The logical ops read their operands as truth: a weak scalar is read
       as it is, so that 256 stays true beside int8 (the result is bool
       either way). */
    if (sub == NCL_SUBSYSTEM_BINARY &&
        (op == NCL_LOGICAL_AND || op == NCL_LOGICAL_OR || op == NCL_LOGICAL_XOR))
        return 0;
    unsigned weak = 0;
    for (int i = 0; i < nin; i++)
        if ((in[i]->flags & NCL_ARRAY_WEAK) && promoted_input(sub, op, i)) weak |= 1u << i;
    return weak;
}

void ncl_weak_dtypes(NclSubsystem sub, int op, int nin, const NclArray *const *in, unsigned weak,
                     NclDType *dtypes)
{
    NclDType strong = NCL_DTYPE_DEFAULT;
    for (int i = 0; i < nin; i++) {
        if ((weak >> i & 1u) || !promoted_input(sub, op, i)) continue;
        strong = strong == NCL_DTYPE_DEFAULT ? in[i]->dtype : NclPromoteTypes(strong, in[i]->dtype);
    }
    if (strong == NCL_DTYPE_DEFAULT) return; /* all weak: their own dtypes */
    const char k = ncl_dtype_kind[strong];
    if (sub == NCL_SUBSYSTEM_BINARY && op == NCL_LDEXP) {
        /* ldexp's loops mix a float and an integer: a weak integer fits
           whichever the search tries first (int8 stands for "any integer":
           it casts safely to int32 and to float32), its value checked
           against that loop after; a mantissa beside a bool exponent is
           int64 (a float64 loop), as NumPy's weak promotion has it, and a
           weak float is float64 beside an integer, as below. */
        for (int i = 0; i < nin; i++)
            if (weak >> i & 1u)
                dtypes[i] = ncl_dtype_kind[in[i]->dtype] == 'f' ? (k == 'f' ? strong : NCL_FLOAT64)
                            : i == 0 && k == 'b'                 ? NCL_INT64
                                                                 : NCL_INT8;
        return;
    }
    for (int i = 0; i < nin; i++) {
        if (!(weak >> i & 1u)) continue;
        if (ncl_dtype_kind[in[i]->dtype] == 'f') /* a float: the others' float, or float64 */
            dtypes[i] = k == 'f' ? strong : NCL_FLOAT64;
        else /* an integer: the others' dtype, but int64 beside bools */
            dtypes[i] = k == 'b' ? NCL_INT64 : strong;
    }
}

/* A weak integer scalar's value as sign and magnitude bits: u is the
   value's two's complement bits (int64) or the value (uint64). */
static int weak_negative(const NclArray *a, uint64_t *u)
{
    memcpy(u, a->data, sizeof *u);
    return a->dtype == NCL_INT64 && (*u >> 63) != 0;
}

/* Whether the weak integer scalar a holds a value that dtype t represents. */
static int weak_fits(const NclArray *a, NclDType t)
{
    uint64_t u;
    const int neg = weak_negative(a, &u);
    const unsigned bits = 8u * (unsigned)ncl_dtype_size[t];
    switch (ncl_dtype_kind[t]) {
    case 'b': return !neg && u <= 1;
    case 'u': return !neg && (bits == 64 || u < (UINT64_C(1) << bits));
    case 'i': {
        const uint64_t max = (UINT64_C(1) << (bits - 1)) - 1;
        return neg ? (uint64_t)0 - u <= max + 1 : u <= max;
    }
    default: return 1; /* a float takes any integer (rounded) */
    }
}

NclStatus ncl_weak_check(NclSubsystem sub, int op, int nin, const NclArray *const *in,
                         unsigned weak, const NclDType *loop)
{
    for (int i = 0; i < nin; i++) {
        if (!(weak >> i & 1u) || ncl_dtype_kind[in[i]->dtype] == 'f' || weak_fits(in[i], loop[i]))
            continue;
        char text[32];
        uint64_t u;
        if (weak_negative(in[i], &u))
            snprintf(text, sizeof text, "-%llu", (unsigned long long)((uint64_t)0 - u));
        else
            snprintf(text, sizeof text, "%llu", (unsigned long long)u);
        return ncl_error(NCL_ERR_CASTING,
                         "%s(%s): the weak scalar %s (input %c) is out of bounds for %s, the "
                         "dtype the call computes in",
                         ncl_sub_fn_name(sub), ncl_op_name(sub, op), text, "abc"[i],
                         NclDTypeName(loop[i]));
    }
    return NCL_OK;
}
