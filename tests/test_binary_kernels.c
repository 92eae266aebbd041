/*
 * test_binary_kernels.c: the Binary inner loops, reached through NclBinary
 * and the level-2 kernel chains.
 *
 * Four groups. Pinned cases: the element semantics NumPy 1.24 users rely
 * on, each with its value and the FP flags NclGetFPErrors() must report
 * (integer division by zero and MIN // -1, remainder and fmod signs,
 * wrapping, shifts past the width, float floor_divide / remainder / max /
 * min on NaN, infinities and signed zeros); the expected values were taken
 * from NumPy. Each case runs as one element and as 1031-element runs in
 * several layouts (contiguous, step 2, step -1, misaligned, either operand
 * broadcast), so the vectorised paths are held to the same values and
 * flags. The loop matrix: every loop NumPy has for these dtypes runs over
 * the cross product of its dtype's edge values, at lengths 0, 1, 7, 8, 9
 * and 1031 and strides 1, 2, -1 and 0, and must agree with its own
 * one-element results, flags included. Registration: every loop is a
 * hookable level-2 chain reached by NclBinary with the right op and
 * signature, and homogeneous signatures NumPy has no loop for are not.
 * Fused casts: an int32 or float32 operand beside a float64 one runs a
 * kernel that converts in registers, which must match the
 * cast-through-a-buffer path bit for bit (flags included) in every layout
 * and planned case, and give way to user kernels hooked on the float64
 * loop or on the cast.
 *
 * Agreement with NumPy over random data is the differential suite's job
 * (tests/diff); this suite pins the edges.
 */
#include <fenv.h>
#include <float.h>
#include "ncl_test.h"

/* ---- the loops: op and the dtype kinds it has a loop for --------------------- */

enum { K_BOOL = 1, K_SINT = 2, K_UINT = 4, K_FLOAT = 8, K_F64_ONLY = 16 };
#define K_INT (K_SINT | K_UINT)
#define K_NUM (K_INT | K_FLOAT)
#define K_ALL (K_BOOL | K_NUM)

typedef struct { NclBinaryOp op; const char *name; int kinds; int out_bool; } op_info;

/* NumPy 1.24's ufunc.types over these dtypes, float16 excluded. */
static const op_info ops[] = {
    {NCL_ADD, "add", K_ALL, 0},
    {NCL_SUBTRACT, "subtract", K_NUM, 0},
    {NCL_MULTIPLY, "multiply", K_ALL, 0},
    {NCL_DIVIDE, "true_divide", K_FLOAT, 0},
    {NCL_FLOOR_DIVIDE, "floor_divide", K_NUM, 0},
    {NCL_REMAINDER, "remainder", K_NUM, 0},
    {NCL_FMOD, "fmod", K_NUM, 0},
    {NCL_POWER, "power", K_NUM, 0},
    {NCL_MAXIMUM, "maximum", K_ALL, 0},
    {NCL_MINIMUM, "minimum", K_ALL, 0},
    {NCL_FMAX, "fmax", K_ALL, 0},
    {NCL_FMIN, "fmin", K_ALL, 0},
    {NCL_ARCTAN2, "arctan2", K_FLOAT, 0},
    {NCL_HYPOT, "hypot", K_FLOAT, 0},
    {NCL_COPYSIGN, "copysign", K_FLOAT, 0},
    {NCL_BITWISE_AND, "bitwise_and", K_BOOL | K_INT, 0},
    {NCL_BITWISE_OR, "bitwise_or", K_BOOL | K_INT, 0},
    {NCL_BITWISE_XOR, "bitwise_xor", K_BOOL | K_INT, 0},
    {NCL_LEFT_SHIFT, "left_shift", K_INT, 0},
    {NCL_RIGHT_SHIFT, "right_shift", K_INT, 0},
    {NCL_LOGICAL_AND, "logical_and", K_ALL, 1},
    {NCL_LOGICAL_OR, "logical_or", K_ALL, 1},
    {NCL_LOGICAL_XOR, "logical_xor", K_ALL, 1},
    {NCL_HEAVISIDE, "heaviside", K_FLOAT, 0},
    {NCL_LOGADDEXP, "logaddexp", K_FLOAT, 0},
    {NCL_LOGADDEXP2, "logaddexp2", K_FLOAT, 0},
    {NCL_NEXTAFTER, "nextafter", K_FLOAT, 0},
    {NCL_GCD, "gcd", K_INT, 0},
    {NCL_LCM, "lcm", K_INT, 0},
    {NCL_FLOAT_POWER, "float_power", K_F64_ONLY, 0},
    {NCL_LDEXP, "ldexp", 0, 0}, /* no (T, T) loop: its mixed loops, t_ldexp */
};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

static const op_info *op_of(NclBinaryOp op)
{
    for (int i = 0; i < NOPS; i++)
        if (ops[i].op == op) return &ops[i];
    ck_abort_msg("unknown binary op %d", (int)op);
    return NULL;
}

static int kind_of(NclDType t)
{
    switch (t) {
    case NCL_BOOL: return K_BOOL;
    case NCL_INT8: case NCL_INT16: case NCL_INT32: case NCL_INT64: return K_SINT;
    case NCL_FLOAT32: case NCL_FLOAT64: return K_FLOAT;
    default: return K_UINT;
    }
}

static int has_loop(const op_info *o, NclDType t)
{
    return o->kinds == K_F64_ONLY ? t == NCL_FLOAT64 : (o->kinds & kind_of(t)) != 0;
}
static NclDType out_dtype(const op_info *o, NclDType t) { return o->out_bool ? NCL_BOOL : t; }

/* Ops whose NaN results have a defined sign (the NaN operand itself, or a
   sign copied onto it); elsewhere only NaN-ness is compared, because the
   hardware's default NaN sign is not part of any contract. */
static int nan_sign_defined(NclBinaryOp op)
{
    return op == NCL_MAXIMUM || op == NCL_MINIMUM || op == NCL_FMAX || op == NCL_FMIN ||
           op == NCL_COPYSIGN || op == NCL_HEAVISIDE;
}

/* ---- elements as raw bytes -------------------------------------------------- */

typedef struct { unsigned char b[8]; } elem;

static elem from_u(uint64_t v, size_t size)
{
    elem e;
    memset(&e, 0, sizeof e);
    /* narrow through the exact-width type: right on either endianness */
    switch (size) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(e.b, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(e.b, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(e.b, &x, 4); break; }
    default: memcpy(e.b, &v, 8); break;
    }
    return e;
}

static elem from_d(NclDType t, double v)
{
    elem e;
    memset(&e, 0, sizeof e);
    if (t == NCL_FLOAT32) {
        float f = (float)v;
        memcpy(e.b, &f, 4);
    } else {
        memcpy(e.b, &v, 8);
    }
    return e;
}

static int elem_isnan(NclDType t, elem e)
{
    if (t == NCL_FLOAT32) { float f; memcpy(&f, e.b, 4); return isnan(f); }
    if (t == NCL_FLOAT64) { double d; memcpy(&d, e.b, 8); return isnan(d); }
    return 0;
}

static int elem_signbit(NclDType t, elem e)
{
    if (t == NCL_FLOAT32) { float f; memcpy(&f, e.b, 4); return signbit(f) != 0; }
    double d;
    memcpy(&d, e.b, 8);
    return signbit(d) != 0;
}

/* got equals want: bit for bit, except that two NaNs are equal (with the
   same sign where the op defines it). */
static int same_elem(NclBinaryOp op, NclDType t, elem got, elem want)
{
    const size_t size = NclDTypeSize(t);
    if (memcmp(got.b, want.b, size) == 0) return 1;
    if (elem_isnan(t, got) && elem_isnan(t, want))
        return !nan_sign_defined(op) || elem_signbit(t, got) == elem_signbit(t, want);
    return 0;
}

static void describe(NclDType t, elem e, char *buf, size_t cap)
{
    if (t == NCL_FLOAT32) { float f; memcpy(&f, e.b, 4); snprintf(buf, cap, "%.9g", (double)f); return; }
    if (t == NCL_FLOAT64) { double d; memcpy(&d, e.b, 8); snprintf(buf, cap, "%.17g", d); return; }
    uint64_t u = 0;
    const size_t size = NclDTypeSize(t);
    switch (size) {
    case 1: { uint8_t x; memcpy(&x, e.b, 1); u = x; break; }
    case 2: { uint16_t x; memcpy(&x, e.b, 2); u = x; break; }
    case 4: { uint32_t x; memcpy(&x, e.b, 4); u = x; break; }
    default: memcpy(&u, e.b, 8); break;
    }
    const int neg = kind_of(t) == K_SINT && (u >> (size * 8 - 1)) & 1u;
    if (neg) snprintf(buf, cap, "-%llu", (unsigned long long)((size == 8 ? 0 : (1ull << (size * 8))) - u));
    else snprintf(buf, cap, "%llu", (unsigned long long)u);
}

static elem get_elem(const NclArray *a, int64_t flat)
{
    elem e;
    memset(&e, 0, sizeof e);
    memcpy(e.b, ncl_test_ptr(a, flat), NclDTypeSize(NclArrayDType(a)));
    return e;
}

static void put_elem(const NclArray *a, int64_t flat, elem e)
{
    memcpy(ncl_test_ptr(a, flat), e.b, NclDTypeSize(NclArrayDType(a)));
}

/* ---- edge values of each dtype ---------------------------------------------- */

#define MAXV 32

static int edge_values(NclDType t, elem *v)
{
    int n = 0;
    const size_t size = NclDTypeSize(t);
    if (t == NCL_BOOL) {
        v[n++] = from_u(0, 1);
        v[n++] = from_u(1, 1);
        return n;
    }
    if (t == NCL_FLOAT32 || t == NCL_FLOAT64) {
        const int f = t == NCL_FLOAT32;
        const double big = f ? FLT_MAX : DBL_MAX, tiny = f ? FLT_MIN : DBL_MIN;
        const double den = f ? FLT_TRUE_MIN : DBL_TRUE_MIN;
        const double vals[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.0, 0.1, 1e20, -1e20, big,
                               -big, big / 3, tiny, -tiny, den, -den, 3 * den, INFINITY, -INFINITY,
                               NAN, -NAN, f ? 16777218.0 : 9007199254740994.0};
        for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) v[n++] = from_d(t, vals[i]);
        return n;
    }
    const uint64_t bits = size * 8;
    const uint64_t umax = size == 8 ? UINT64_MAX : (1ull << bits) - 1;
    const uint64_t smax = umax >> 1, smin = smax + 1; /* as bit patterns */
    const uint64_t common[] = {0, 1, 2, 3, 7, bits - 1, bits, bits + 1, 100};
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++) v[n++] = from_u(common[i], size);
    if (kind_of(t) == K_SINT) {
        const uint64_t s[] = {(uint64_t)-1, (uint64_t)-2, (uint64_t)-3, (uint64_t)-7,
                              (uint64_t)0 - bits, smin, smin + 1, smax, smax - 1};
        for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) v[n++] = from_u(s[i], size);
    } else {
        const uint64_t u[] = {umax, umax - 1, smax, smin};
        for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) v[n++] = from_u(u[i], size);
    }
    return n;
}

/* The value of a signed integer element. */
static int64_t elem_i64(NclDType t, elem e)
{
    switch (t) {
    case NCL_INT8: { int8_t x; memcpy(&x, e.b, 1); return x; }
    case NCL_INT16: { int16_t x; memcpy(&x, e.b, 2); return x; }
    case NCL_INT32: { int32_t x; memcpy(&x, e.b, 4); return x; }
    default: { int64_t x; memcpy(&x, e.b, 8); return x; }
    }
}

/* NumPy refuses a signed integer power with a negative exponent. */
static int refused(const op_info *o, NclDType t, elem b)
{
    return o->op == NCL_POWER && kind_of(t) == K_SINT && elem_i64(t, b) < 0;
}

/* ---- building and checking arrays ---------------------------------------------- */

static NclArray *filled(NclDType t, int64_t n, elem e)
{
    NclArray *a = ncl_test_new(t, 1, NCL_DIMS(n));
    for (int64_t i = 0; i < n; i++) put_elem(a, i, e);
    return a;
}

static NclArray *scalar0d(NclDType t, elem e)
{
    NclArray *a = ncl_test_new(t, 0, NULL);
    put_elem(a, 0, e);
    return a;
}

/* Fails unless out has n elements of dtype t equal to want(i) and the call
   raised exactly flags. */
typedef elem (*want_fn)(void *ctx, int64_t i);

static void check_out(const NclArray *out, NclBinaryOp op, NclDType t, int64_t n, want_fn want,
                      void *ctx, int flags, const char *what)
{
    ck_assert_msg(out != NULL, "%s: no output", what);
    ck_assert_msg(NclArrayDType(out) == t, "%s: output dtype %s, expected %s", what,
                  NclDTypeName(NclArrayDType(out)), NclDTypeName(t));
    ck_assert_msg(NclArraySize(out) == n, "%s: %lld elements, expected %lld", what,
                  (long long)NclArraySize(out), (long long)n);
    for (int64_t i = 0; i < n; i++) {
        const elem g = get_elem(out, i), w = want(ctx, i);
        if (!same_elem(op, t, g, w)) {
            char gs[64], ws[64];
            describe(t, g, gs, sizeof gs);
            describe(t, w, ws, sizeof ws);
            ck_abort_msg("%s: element %lld is %s, expected %s", what, (long long)i, gs, ws);
        }
    }
    const int got = NclGetFPErrors();
    ck_assert_msg(got == flags, "%s: FP flags 0x%x, expected 0x%x", what, got, flags);
}

static elem want_const(void *ctx, int64_t i)
{
    (void)i;
    return *(const elem *)ctx;
}

/* ---- pinned cases -------------------------------------------------------------- */

/* One case, as one element and as long runs in every layout. */
static void run_case(NclBinaryOp op, NclDType t, elem a, elem b, elem want, int flags)
{
    const op_info *o = op_of(op);
    const NclDType ot = out_dtype(o, t);
    char as[64], bs[64], what[256];
    describe(t, a, as, sizeof as);
    describe(t, b, bs, sizeof bs);
    const int64_t n = 1031;

    NclArray *a1 = filled(t, 1, a), *b1 = filled(t, 1, b), *out = NULL;
    snprintf(what, sizeof what, "%s(%s %s, %s), one element", o->name, NclDTypeName(t), as, bs);
    NCL_CHECK_OK(NclBinary(op, a1, b1, &out, NULL));
    check_out(out, op, ot, 1, want_const, &want, flags, what);
    NclArrayRelease(out);
    NclArrayRelease(a1);
    NclArrayRelease(b1);

    NclArray *an = filled(t, n, a), *bn = filled(t, n, b);
    for (int l = 0; l < NCL_TEST_NLAYOUTS; l++) {
        if (l == NCL_TEST_F) continue; /* same as C in one dimension */
        NclArray *la = ncl_test_layout_of(an, (ncl_test_layout)l);
        NclArray *lb = ncl_test_layout_of(bn, (ncl_test_layout)l);
        out = NULL;
        snprintf(what, sizeof what, "%s(%s %s, %s), %lld elements %s", o->name, NclDTypeName(t), as,
                 bs, (long long)n, ncl_test_layout_name((ncl_test_layout)l));
        NCL_CHECK_OK(NclBinary(op, la, lb, &out, NULL));
        check_out(out, op, ot, n, want_const, &want, flags, what);
        NclArrayRelease(out);
        NclArrayRelease(la);
        NclArrayRelease(lb);
    }
    /* either operand a 0-d scalar (stride 0), into a provided reversed output */
    NclArray *a0 = scalar0d(t, a), *b0 = scalar0d(t, b);
    for (int k = 0; k < 2; k++) {
        NclArray *zero = ncl_test_new(ot, 1, NCL_DIMS(n));
        out = ncl_test_layout_of(zero, NCL_TEST_REVERSED);
        snprintf(what, sizeof what, "%s(%s %s, %s), %s broadcast", o->name, NclDTypeName(t), as, bs,
                 k ? "a" : "b");
        NCL_CHECK_OK(NclBinary(op, k ? a0 : an, k ? bn : b0, &out, NULL));
        check_out(out, op, ot, n, want_const, &want, flags, what);
        NclArrayRelease(out);
        NclArrayRelease(zero);
    }
    NclArrayRelease(a0);
    NclArrayRelease(b0);
    NclArrayRelease(an);
    NclArrayRelease(bn);
}

#define I(x) ((uint64_t)(int64_t)(x))
#define U(x) ((uint64_t)(x))

typedef struct { NclBinaryOp op; NclDType t; uint64_t a, b, r; int flags; } int_case;
typedef struct { NclBinaryOp op; NclDType t; double a, b, r; int flags; } flt_case;

/* Integer edges, values from NumPy 1.24 (as bit patterns of the dtype). */
static const int_case int_cases[] = {
    {NCL_FLOOR_DIVIDE, NCL_INT8, I(-7), I(2), I(-4), 0},
    {NCL_FLOOR_DIVIDE, NCL_INT8, I(7), I(-2), I(-4), 0},
    {NCL_FLOOR_DIVIDE, NCL_INT8, I(-7), I(-2), I(3), 0},
    {NCL_FLOOR_DIVIDE, NCL_INT8, I(7), I(2), I(3), 0},
    {NCL_FLOOR_DIVIDE, NCL_INT8, I(1), I(0), I(0), NCL_FPE_DIVIDE},
    {NCL_FLOOR_DIVIDE, NCL_INT8, I(0), I(0), I(0), NCL_FPE_DIVIDE},
    {NCL_FLOOR_DIVIDE, NCL_INT8, I(-128), I(0), I(0), NCL_FPE_DIVIDE},
    {NCL_FLOOR_DIVIDE, NCL_INT8, I(-128), I(-1), I(-128), NCL_FPE_OVERFLOW},
    {NCL_FLOOR_DIVIDE, NCL_INT8, I(-128), I(1), I(-128), 0},
    {NCL_FLOOR_DIVIDE, NCL_INT8, I(127), I(-1), I(-127), 0},
    {NCL_FLOOR_DIVIDE, NCL_INT8, I(-1), I(-128), I(0), 0},
    {NCL_FLOOR_DIVIDE, NCL_INT16, I(-32768), I(-1), I(-32768), NCL_FPE_OVERFLOW},
    {NCL_FLOOR_DIVIDE, NCL_INT16, I(-32768), I(2), I(-16384), 0},
    {NCL_FLOOR_DIVIDE, NCL_INT16, I(5), I(0), I(0), NCL_FPE_DIVIDE},
    {NCL_FLOOR_DIVIDE, NCL_INT32, I(-2147483648), I(-1), I(-2147483648), NCL_FPE_OVERFLOW},
    {NCL_FLOOR_DIVIDE, NCL_INT32, I(-2147483648), I(7), I(-306783379), 0},
    {NCL_FLOOR_DIVIDE, NCL_INT32, I(-1), I(0), I(0), NCL_FPE_DIVIDE},
    {NCL_FLOOR_DIVIDE, NCL_INT64, I(INT64_MIN), I(-1), I(INT64_MIN), NCL_FPE_OVERFLOW},
    {NCL_FLOOR_DIVIDE, NCL_INT64, I(INT64_MIN), I(3), I(-3074457345618258603), 0},
    {NCL_FLOOR_DIVIDE, NCL_INT64, I(9223372036854775807), I(-1), I(-9223372036854775807), 0},
    {NCL_FLOOR_DIVIDE, NCL_INT64, I(9), I(0), I(0), NCL_FPE_DIVIDE},
    {NCL_FLOOR_DIVIDE, NCL_UINT8, I(255), I(0), I(0), NCL_FPE_DIVIDE},
    {NCL_FLOOR_DIVIDE, NCL_UINT8, I(255), I(2), I(127), 0},
    {NCL_FLOOR_DIVIDE, NCL_UINT8, I(0), I(0), I(0), NCL_FPE_DIVIDE},
    {NCL_FLOOR_DIVIDE, NCL_UINT64, U(0xFFFFFFFFFFFFFFFFU), I(0), I(0), NCL_FPE_DIVIDE},
    {NCL_FLOOR_DIVIDE, NCL_UINT64, U(0xFFFFFFFFFFFFFFFFU), U(0x8000000000000000U), I(1), 0},
    {NCL_REMAINDER, NCL_INT8, I(-7), I(2), I(1), 0},
    {NCL_REMAINDER, NCL_INT8, I(7), I(-2), I(-1), 0},
    {NCL_REMAINDER, NCL_INT8, I(-7), I(-2), I(-1), 0},
    {NCL_REMAINDER, NCL_INT8, I(7), I(2), I(1), 0},
    {NCL_REMAINDER, NCL_INT8, I(-128), I(-1), I(0), 0},
    {NCL_REMAINDER, NCL_INT8, I(127), I(-1), I(0), 0},
    {NCL_REMAINDER, NCL_INT8, I(5), I(0), I(0), NCL_FPE_DIVIDE},
    {NCL_REMAINDER, NCL_INT8, I(0), I(0), I(0), NCL_FPE_DIVIDE},
    {NCL_REMAINDER, NCL_INT8, I(-128), I(127), I(126), 0},
    {NCL_REMAINDER, NCL_INT64, I(INT64_MIN), I(-1), I(0), 0},
    {NCL_REMAINDER, NCL_INT64, I(INT64_MIN), I(9223372036854775807), I(9223372036854775806), 0},
    {NCL_REMAINDER, NCL_INT64, I(-1), I(9223372036854775807), I(9223372036854775806), 0},
    {NCL_REMAINDER, NCL_INT64, I(3), I(0), I(0), NCL_FPE_DIVIDE},
    {NCL_REMAINDER, NCL_UINT32, I(4294967295), I(0), I(0), NCL_FPE_DIVIDE},
    {NCL_REMAINDER, NCL_UINT32, I(4294967295), I(10), I(5), 0},
    {NCL_FMOD, NCL_INT8, I(-7), I(2), I(-1), 0},
    {NCL_FMOD, NCL_INT8, I(7), I(-2), I(1), 0},
    {NCL_FMOD, NCL_INT8, I(-7), I(-2), I(-1), 0},
    {NCL_FMOD, NCL_INT8, I(-128), I(-1), I(0), 0},
    {NCL_FMOD, NCL_INT8, I(5), I(0), I(0), NCL_FPE_DIVIDE},
    {NCL_FMOD, NCL_INT8, I(-128), I(127), I(-1), 0},
    {NCL_FMOD, NCL_INT64, I(INT64_MIN), I(-1), I(0), 0},
    {NCL_FMOD, NCL_INT64, I(INT64_MIN), I(9223372036854775807), I(-1), 0},
    {NCL_FMOD, NCL_INT64, I(7), I(0), I(0), NCL_FPE_DIVIDE},
    {NCL_FMOD, NCL_UINT16, I(65535), I(0), I(0), NCL_FPE_DIVIDE},
    {NCL_FMOD, NCL_UINT16, I(65535), I(256), I(255), 0},
    {NCL_ADD, NCL_INT8, I(127), I(1), I(-128), 0},
    {NCL_ADD, NCL_INT8, I(-128), I(-1), I(127), 0},
    {NCL_ADD, NCL_INT8, I(100), I(100), I(-56), 0},
    {NCL_ADD, NCL_INT64, I(9223372036854775807), I(1), I(INT64_MIN), 0},
    {NCL_ADD, NCL_INT64, I(INT64_MIN), I(INT64_MIN), I(0), 0},
    {NCL_ADD, NCL_UINT8, I(255), I(1), I(0), 0},
    {NCL_ADD, NCL_UINT8, I(200), I(100), I(44), 0},
    {NCL_SUBTRACT, NCL_INT8, I(-128), I(1), I(127), 0},
    {NCL_SUBTRACT, NCL_INT8, I(127), I(-1), I(-128), 0},
    {NCL_SUBTRACT, NCL_INT8, I(0), I(-128), I(-128), 0},
    {NCL_SUBTRACT, NCL_UINT8, I(0), I(1), I(255), 0},
    {NCL_SUBTRACT, NCL_INT64, I(INT64_MIN), I(1), I(9223372036854775807), 0},
    {NCL_SUBTRACT, NCL_INT64, I(0), I(INT64_MIN), I(INT64_MIN), 0},
    {NCL_MULTIPLY, NCL_INT8, I(-128), I(-1), I(-128), 0},
    {NCL_MULTIPLY, NCL_INT8, I(16), I(16), I(0), 0},
    {NCL_MULTIPLY, NCL_INT8, I(-128), I(-128), I(0), 0},
    {NCL_MULTIPLY, NCL_UINT16, I(65535), I(65535), I(1), 0},
    {NCL_MULTIPLY, NCL_UINT16, I(256), I(256), I(0), 0},
    {NCL_MULTIPLY, NCL_INT16, I(-32768), I(-1), I(-32768), 0},
    {NCL_MULTIPLY, NCL_INT16, I(181), I(181), I(32761), 0},
    {NCL_MULTIPLY, NCL_INT32, I(65536), I(65536), I(0), 0},
    {NCL_MULTIPLY, NCL_INT32, I(-2147483648), I(-1), I(-2147483648), 0},
    {NCL_MULTIPLY, NCL_INT32, I(46341), I(46341), I(-2147479015), 0},
    {NCL_MULTIPLY, NCL_INT64, I(INT64_MIN), I(-1), I(INT64_MIN), 0},
    {NCL_MULTIPLY, NCL_INT64, I(4294967296), I(4294967296), I(0), 0},
    {NCL_MULTIPLY, NCL_INT64, I(3037000500), I(3037000500), I(-9223372036709301616), 0},
    {NCL_POWER, NCL_INT8, I(2), I(7), I(-128), 0},
    {NCL_POWER, NCL_INT8, I(3), I(5), I(-13), 0},
    {NCL_POWER, NCL_INT8, I(-2), I(7), I(-128), 0},
    {NCL_POWER, NCL_INT8, I(0), I(0), I(1), 0},
    {NCL_POWER, NCL_INT8, I(-1), I(127), I(-1), 0},
    {NCL_POWER, NCL_INT8, I(-128), I(2), I(0), 0},
    {NCL_POWER, NCL_INT8, I(2), I(127), I(0), 0},
    {NCL_POWER, NCL_UINT8, I(2), I(8), I(0), 0},
    {NCL_POWER, NCL_UINT8, I(3), I(200), I(161), 0},
    {NCL_POWER, NCL_UINT8, I(0), I(0), I(1), 0},
    {NCL_POWER, NCL_UINT8, I(255), I(255), I(255), 0},
    {NCL_POWER, NCL_INT64, I(2), I(63), I(INT64_MIN), 0},
    {NCL_POWER, NCL_INT64, I(2), I(64), I(0), 0},
    {NCL_POWER, NCL_INT64, I(3), I(40), I(-6289078614652622815), 0},
    {NCL_POWER, NCL_INT64, I(-3), I(41), I(420491770248316829), 0},
    {NCL_POWER, NCL_INT64, I(7), I(4611686018427387904), I(1), 0},
    {NCL_POWER, NCL_UINT64, I(3), U(0x8000000000000001U), I(3), 0},
    {NCL_POWER, NCL_UINT64, I(2), I(63), U(0x8000000000000000U), 0},
    {NCL_POWER, NCL_UINT64, I(0), I(0), I(1), 0},
    {NCL_POWER, NCL_UINT64, I(1), U(0xFFFFFFFFFFFFFFFFU), I(1), 0},
    {NCL_LEFT_SHIFT, NCL_INT8, I(1), I(7), I(-128), 0},
    {NCL_LEFT_SHIFT, NCL_INT8, I(1), I(8), I(0), 0},
    {NCL_LEFT_SHIFT, NCL_INT8, I(1), I(-1), I(0), 0},
    {NCL_LEFT_SHIFT, NCL_INT8, I(-1), I(8), I(0), 0},
    {NCL_LEFT_SHIFT, NCL_INT8, I(127), I(1), I(-2), 0},
    {NCL_LEFT_SHIFT, NCL_INT8, I(-3), I(1), I(-6), 0},
    {NCL_LEFT_SHIFT, NCL_INT8, I(5), I(-128), I(0), 0},
    {NCL_LEFT_SHIFT, NCL_INT8, I(5), I(127), I(0), 0},
    {NCL_LEFT_SHIFT, NCL_INT32, I(1), I(31), I(-2147483648), 0},
    {NCL_LEFT_SHIFT, NCL_INT32, I(1), I(32), I(0), 0},
    {NCL_LEFT_SHIFT, NCL_INT32, I(3), I(31), I(-2147483648), 0},
    {NCL_LEFT_SHIFT, NCL_INT32, I(-1), I(31), I(-2147483648), 0},
    {NCL_LEFT_SHIFT, NCL_INT32, I(1), I(-1), I(0), 0},
    {NCL_LEFT_SHIFT, NCL_INT64, I(1), I(63), I(INT64_MIN), 0},
    {NCL_LEFT_SHIFT, NCL_INT64, I(1), I(64), I(0), 0},
    {NCL_LEFT_SHIFT, NCL_INT64, I(1), I(-1), I(0), 0},
    {NCL_LEFT_SHIFT, NCL_INT64, I(-1), I(63), I(INT64_MIN), 0},
    {NCL_LEFT_SHIFT, NCL_UINT8, I(1), I(7), I(128), 0},
    {NCL_LEFT_SHIFT, NCL_UINT8, I(255), I(8), I(0), 0},
    {NCL_LEFT_SHIFT, NCL_UINT8, I(255), I(1), I(254), 0},
    {NCL_LEFT_SHIFT, NCL_UINT64, I(1), I(63), U(0x8000000000000000U), 0},
    {NCL_LEFT_SHIFT, NCL_UINT64, I(1), I(64), I(0), 0},
    {NCL_LEFT_SHIFT, NCL_UINT64, U(0xFFFFFFFFFFFFFFFFU), I(100), I(0), 0},
    {NCL_RIGHT_SHIFT, NCL_INT8, I(-128), I(100), I(-1), 0},
    {NCL_RIGHT_SHIFT, NCL_INT8, I(-5), I(-1), I(-1), 0},
    {NCL_RIGHT_SHIFT, NCL_INT8, I(5), I(-1), I(0), 0},
    {NCL_RIGHT_SHIFT, NCL_INT8, I(-3), I(1), I(-2), 0},
    {NCL_RIGHT_SHIFT, NCL_INT8, I(127), I(7), I(0), 0},
    {NCL_RIGHT_SHIFT, NCL_INT8, I(-1), I(8), I(-1), 0},
    {NCL_RIGHT_SHIFT, NCL_INT8, I(-128), I(7), I(-1), 0},
    {NCL_RIGHT_SHIFT, NCL_INT32, I(-1), I(31), I(-1), 0},
    {NCL_RIGHT_SHIFT, NCL_INT32, I(-1), I(32), I(-1), 0},
    {NCL_RIGHT_SHIFT, NCL_INT32, I(2147483647), I(31), I(0), 0},
    {NCL_RIGHT_SHIFT, NCL_INT32, I(-2147483648), I(31), I(-1), 0},
    {NCL_RIGHT_SHIFT, NCL_INT32, I(-2147483648), I(-5), I(-1), 0},
    {NCL_RIGHT_SHIFT, NCL_INT64, I(INT64_MIN), I(63), I(-1), 0},
    {NCL_RIGHT_SHIFT, NCL_INT64, I(INT64_MIN), I(64), I(-1), 0},
    {NCL_RIGHT_SHIFT, NCL_INT64, I(9223372036854775807), I(64), I(0), 0},
    {NCL_RIGHT_SHIFT, NCL_UINT8, I(255), I(7), I(1), 0},
    {NCL_RIGHT_SHIFT, NCL_UINT8, I(255), I(8), I(0), 0},
    {NCL_RIGHT_SHIFT, NCL_UINT8, I(128), I(200), I(0), 0},
    {NCL_RIGHT_SHIFT, NCL_UINT64, U(0xFFFFFFFFFFFFFFFFU), I(63), I(1), 0},
    {NCL_RIGHT_SHIFT, NCL_UINT64, U(0xFFFFFFFFFFFFFFFFU), I(64), I(0), 0},
    {NCL_MAXIMUM, NCL_INT64, I(INT64_MIN), I(9223372036854775807), I(9223372036854775807), 0},
    {NCL_MINIMUM, NCL_UINT64, U(0xFFFFFFFFFFFFFFFFU), I(0), I(0), 0},
    {NCL_FMAX, NCL_INT8, I(-128), I(127), I(127), 0},
    {NCL_FMIN, NCL_INT8, I(-128), I(127), I(-128), 0},
    {NCL_BITWISE_AND, NCL_INT8, I(-1), I(85), I(85), 0},
    {NCL_BITWISE_OR, NCL_INT16, I(-32768), I(1), I(-32767), 0},
    {NCL_BITWISE_XOR, NCL_INT64, I(-1), I(9223372036854775807), I(INT64_MIN), 0},
    {NCL_LOGICAL_AND, NCL_INT8, I(-128), I(1), I(1), 0},
    {NCL_LOGICAL_AND, NCL_INT8, I(0), I(5), I(0), 0},
    {NCL_LOGICAL_OR, NCL_UINT64, I(0), U(0x8000000000000000U), I(1), 0},
    {NCL_LOGICAL_XOR, NCL_INT32, I(-2147483648), I(7), I(0), 0},
    {NCL_LOGICAL_XOR, NCL_INT32, I(0), I(-1), I(1), 0},
    {NCL_GCD, NCL_INT8, I(-128), I(0), I(-128), 0},
    {NCL_GCD, NCL_INT8, I(-128), I(-128), I(-128), 0},
    {NCL_GCD, NCL_INT16, I(12), I(-18), I(6), 0},
    {NCL_GCD, NCL_INT32, I(0), I(0), I(0), 0},
    {NCL_GCD, NCL_INT64, I(INT64_MIN), I(4611686018427387904), I(4611686018427387904), 0},
    {NCL_GCD, NCL_UINT64, U(UINT64_MAX), U(UINT64_MAX - 1), U(1), 0},
    {NCL_LCM, NCL_INT8, I(100), I(3), I(44), 0},
    {NCL_LCM, NCL_INT8, I(-4), I(6), I(12), 0},
    {NCL_LCM, NCL_INT32, I(0), I(5), I(0), 0},
    {NCL_LCM, NCL_INT64, I(INT64_MIN), I(3), I(INT64_MIN), 0},
    {NCL_LCM, NCL_UINT8, U(255), U(254), U(2), 0},
    {NCL_LCM, NCL_UINT32, U(4294967295u), U(2147483648u), U(2147483648u), 0},
};
#define NINT ((int)(sizeof int_cases / sizeof int_cases[0]))

/* Float edges, values and flags from NumPy 1.24. */
static const flt_case flt_cases[] = {
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, 1.0, 0.0, INFINITY, NCL_FPE_DIVIDE},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, -1.0, 0.0, -INFINITY, NCL_FPE_DIVIDE},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, 0.0, 0.0, -NAN, NCL_FPE_INVALID},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, NAN, 0.0, NAN, 0},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, INFINITY, 0.0, INFINITY, 0},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, INFINITY, 1.0, -NAN, NCL_FPE_INVALID},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, 1.0, INFINITY, 0.0, 0},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, -1.0, INFINITY, -1.0, 0},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, -0.0, 1.0, -0.0, 0},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, 0.0, -1.0, -0.0, 0},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, -0.0, -1.0, 0.0, 0},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, 1e+308, 1e-308, INFINITY, NCL_FPE_OVERFLOW | NCL_FPE_INVALID},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, -5.0, 2.0, -3.0, 0},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, 5.0, -0.0, -INFINITY, NCL_FPE_DIVIDE},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, 1.0, 0.1, 9.0, 0},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, -1.0, 0.1, -10.0, 0},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, 7.0, 0.5, 14.0, 0},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, -7.0, -0.5, 14.0, 0},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, 1e-308, 1e+308, 0.0, NCL_FPE_UNDERFLOW},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, NAN, 1.0, NAN, 0},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT64, 1.0, NAN, NAN, 0},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT32, 1.0, 0.0, INFINITY, NCL_FPE_DIVIDE},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT32, 0.0, 0.0, -NAN, NCL_FPE_INVALID},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT32, -5.0, 2.0, -3.0, 0},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT32, 1.0, 0.10000000149011612, 9.0, 0},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT32, INFINITY, 2.0, -NAN, NCL_FPE_INVALID},
    {NCL_FLOOR_DIVIDE, NCL_FLOAT32, -0.0, 3.0, -0.0, 0},
    {NCL_REMAINDER, NCL_FLOAT64, 1.0, 0.0, -NAN, NCL_FPE_INVALID},
    {NCL_REMAINDER, NCL_FLOAT64, NAN, 0.0, NAN, 0},
    {NCL_REMAINDER, NCL_FLOAT64, INFINITY, 1.0, -NAN, NCL_FPE_INVALID},
    {NCL_REMAINDER, NCL_FLOAT64, 1.0, INFINITY, 1.0, 0},
    {NCL_REMAINDER, NCL_FLOAT64, -1.0, INFINITY, INFINITY, 0},
    {NCL_REMAINDER, NCL_FLOAT64, -0.0, 1.0, 0.0, 0},
    {NCL_REMAINDER, NCL_FLOAT64, 0.0, -1.0, -0.0, 0},
    {NCL_REMAINDER, NCL_FLOAT64, -5.0, 2.0, 1.0, 0},
    {NCL_REMAINDER, NCL_FLOAT64, 5.0, -2.0, -1.0, 0},
    {NCL_REMAINDER, NCL_FLOAT64, 1e+308, 1e-308, 3.498445546245627e-309, 0},
    {NCL_REMAINDER, NCL_FLOAT64, 1.0, 0.1, 0.09999999999999995, 0},
    {NCL_REMAINDER, NCL_FLOAT64, -1.0, 0.1, 5.551115123125783e-17, 0},
    {NCL_REMAINDER, NCL_FLOAT64, 6.0, -3.0, -0.0, 0},
    {NCL_REMAINDER, NCL_FLOAT32, -5.0, 2.0, 1.0, 0},
    {NCL_REMAINDER, NCL_FLOAT32, 5.0, -2.0, -1.0, 0},
    {NCL_REMAINDER, NCL_FLOAT32, 1.0, 0.0, -NAN, NCL_FPE_INVALID},
    {NCL_REMAINDER, NCL_FLOAT32, 0.0, -2.0, -0.0, 0},
    {NCL_FMOD, NCL_FLOAT64, -5.0, 2.0, -1.0, 0},
    {NCL_FMOD, NCL_FLOAT64, 5.0, -2.0, 1.0, 0},
    {NCL_FMOD, NCL_FLOAT64, 1.0, 0.0, -NAN, NCL_FPE_INVALID},
    {NCL_FMOD, NCL_FLOAT64, INFINITY, 1.0, -NAN, NCL_FPE_INVALID},
    {NCL_FMOD, NCL_FLOAT64, 1.0, INFINITY, 1.0, 0},
    {NCL_FMOD, NCL_FLOAT64, -0.0, 1.0, -0.0, 0},
    {NCL_FMOD, NCL_FLOAT64, NAN, 0.0, NAN, 0},
    {NCL_FMOD, NCL_FLOAT32, -5.0, 2.0, -1.0, 0},
    {NCL_FMOD, NCL_FLOAT32, 1.0, 0.0, -NAN, NCL_FPE_INVALID},
    {NCL_DIVIDE, NCL_FLOAT64, 1.0, 0.0, INFINITY, NCL_FPE_DIVIDE},
    {NCL_DIVIDE, NCL_FLOAT64, -1.0, -0.0, INFINITY, NCL_FPE_DIVIDE},
    {NCL_DIVIDE, NCL_FLOAT64, 0.0, 0.0, -NAN, NCL_FPE_INVALID},
    {NCL_DIVIDE, NCL_FLOAT64, 1e+308, 1e-308, INFINITY, NCL_FPE_OVERFLOW},
    {NCL_DIVIDE, NCL_FLOAT64, 1e-308, 1e+308, 0.0, NCL_FPE_UNDERFLOW},
    {NCL_DIVIDE, NCL_FLOAT64, INFINITY, INFINITY, -NAN, NCL_FPE_INVALID},
    {NCL_DIVIDE, NCL_FLOAT64, NAN, 0.0, NAN, 0},
    {NCL_DIVIDE, NCL_FLOAT32, 1.0, 0.0, INFINITY, NCL_FPE_DIVIDE},
    {NCL_DIVIDE, NCL_FLOAT32, 3.0000000054977558e+38, 9.999999350456404e-39, INFINITY, NCL_FPE_OVERFLOW},
    {NCL_DIVIDE, NCL_FLOAT32, 9.999999350456404e-39, 9.999999680285692e+37, 0.0, NCL_FPE_UNDERFLOW},
    {NCL_POWER, NCL_FLOAT64, 0.0, -1.0, INFINITY, NCL_FPE_DIVIDE},
    {NCL_POWER, NCL_FLOAT64, -1.0, 0.5, -NAN, NCL_FPE_INVALID},
    {NCL_POWER, NCL_FLOAT64, 10.0, 400.0, INFINITY, NCL_FPE_OVERFLOW},
    {NCL_POWER, NCL_FLOAT64, NAN, 0.0, 1.0, 0},
    {NCL_POWER, NCL_FLOAT64, 1.0, NAN, 1.0, 0},
    {NCL_POWER, NCL_FLOAT64, -0.0, -1.0, -INFINITY, NCL_FPE_DIVIDE},
    {NCL_POWER, NCL_FLOAT64, 2.0, -1100.0, 0.0, NCL_FPE_UNDERFLOW},
    {NCL_POWER, NCL_FLOAT64, -8.0, 0.3333333333333333, -NAN, NCL_FPE_INVALID},
    {NCL_POWER, NCL_FLOAT32, 0.0, -1.0, INFINITY, NCL_FPE_DIVIDE},
    {NCL_POWER, NCL_FLOAT32, 10.0, 40.0, INFINITY, NCL_FPE_OVERFLOW},
    {NCL_POWER, NCL_FLOAT32, -1.0, 0.5, -NAN, NCL_FPE_INVALID},
    {NCL_ADD, NCL_FLOAT64, 1.7976931348623157e+308, 1.7976931348623157e+308, INFINITY, NCL_FPE_OVERFLOW},
    {NCL_ADD, NCL_FLOAT64, INFINITY, -INFINITY, -NAN, NCL_FPE_INVALID},
    {NCL_ADD, NCL_FLOAT64, NAN, 1.0, NAN, 0},
    {NCL_ADD, NCL_FLOAT64, -0.0, -0.0, -0.0, 0},
    {NCL_ADD, NCL_FLOAT64, -0.0, 0.0, 0.0, 0},
    {NCL_ADD, NCL_FLOAT32, 3.3999999521443642e+38, 3.3999999521443642e+38, INFINITY, NCL_FPE_OVERFLOW},
    {NCL_ADD, NCL_FLOAT32, INFINITY, -INFINITY, -NAN, NCL_FPE_INVALID},
    {NCL_ADD, NCL_FLOAT32, -0.0, 0.0, 0.0, 0},
    {NCL_SUBTRACT, NCL_FLOAT64, INFINITY, INFINITY, -NAN, NCL_FPE_INVALID},
    {NCL_SUBTRACT, NCL_FLOAT64, 0.0, 0.0, 0.0, 0},
    {NCL_SUBTRACT, NCL_FLOAT64, -0.0, 0.0, -0.0, 0},
    {NCL_MULTIPLY, NCL_FLOAT64, 0.0, INFINITY, -NAN, NCL_FPE_INVALID},
    {NCL_MULTIPLY, NCL_FLOAT64, 1e-200, 1e-200, 0.0, NCL_FPE_UNDERFLOW},
    {NCL_MULTIPLY, NCL_FLOAT64, -0.0, 5.0, -0.0, 0},
    {NCL_MULTIPLY, NCL_FLOAT64, 1e+200, 1e+200, INFINITY, NCL_FPE_OVERFLOW},
    {NCL_MULTIPLY, NCL_FLOAT32, 1.0000000031710769e-30, 1.0000000031710769e-30, 0.0, NCL_FPE_UNDERFLOW},
    {NCL_MULTIPLY, NCL_FLOAT32, -0.0, INFINITY, -NAN, NCL_FPE_INVALID},
    {NCL_MAXIMUM, NCL_FLOAT64, NAN, 1.0, NAN, 0},
    {NCL_MAXIMUM, NCL_FLOAT64, 1.0, NAN, NAN, 0},
    {NCL_MAXIMUM, NCL_FLOAT64, NAN, -NAN, NAN, 0},
    {NCL_MAXIMUM, NCL_FLOAT64, -NAN, NAN, -NAN, 0},
    {NCL_MAXIMUM, NCL_FLOAT64, -0.0, 0.0, 0.0, 0},
    {NCL_MAXIMUM, NCL_FLOAT64, 0.0, -0.0, -0.0, 0},
    {NCL_MAXIMUM, NCL_FLOAT64, -INFINITY, NAN, NAN, 0},
    {NCL_MAXIMUM, NCL_FLOAT64, 2.0, 1.0, 2.0, 0},
    {NCL_MAXIMUM, NCL_FLOAT64, 1.0, 2.0, 2.0, 0},
    {NCL_MINIMUM, NCL_FLOAT64, NAN, 1.0, NAN, 0},
    {NCL_MINIMUM, NCL_FLOAT64, 1.0, NAN, NAN, 0},
    {NCL_MINIMUM, NCL_FLOAT64, NAN, -NAN, NAN, 0},
    {NCL_MINIMUM, NCL_FLOAT64, -0.0, 0.0, 0.0, 0},
    {NCL_MINIMUM, NCL_FLOAT64, 0.0, -0.0, -0.0, 0},
    {NCL_MINIMUM, NCL_FLOAT64, 2.0, 1.0, 1.0, 0},
    {NCL_FMAX, NCL_FLOAT64, NAN, 1.0, 1.0, 0},
    {NCL_FMAX, NCL_FLOAT64, 1.0, NAN, 1.0, 0},
    {NCL_FMAX, NCL_FLOAT64, NAN, -NAN, NAN, 0},
    {NCL_FMAX, NCL_FLOAT64, -NAN, NAN, -NAN, 0},
    {NCL_FMAX, NCL_FLOAT64, -0.0, 0.0, 0.0, 0},
    {NCL_FMAX, NCL_FLOAT64, 0.0, -0.0, -0.0, 0},
    {NCL_FMAX, NCL_FLOAT64, -INFINITY, NAN, -INFINITY, 0},
    {NCL_FMIN, NCL_FLOAT64, NAN, 1.0, 1.0, 0},
    {NCL_FMIN, NCL_FLOAT64, 1.0, NAN, 1.0, 0},
    {NCL_FMIN, NCL_FLOAT64, NAN, -NAN, NAN, 0},
    {NCL_FMIN, NCL_FLOAT64, -0.0, 0.0, 0.0, 0},
    {NCL_FMIN, NCL_FLOAT64, 0.0, -0.0, -0.0, 0},
    {NCL_FMIN, NCL_FLOAT64, INFINITY, NAN, INFINITY, 0},
    {NCL_MAXIMUM, NCL_FLOAT32, NAN, 1.0, NAN, 0},
    {NCL_MAXIMUM, NCL_FLOAT32, 1.0, NAN, NAN, 0},
    {NCL_MAXIMUM, NCL_FLOAT32, -0.0, 0.0, 0.0, 0},
    {NCL_MAXIMUM, NCL_FLOAT32, 0.0, -0.0, -0.0, 0},
    {NCL_MAXIMUM, NCL_FLOAT32, NAN, -NAN, NAN, 0},
    {NCL_MINIMUM, NCL_FLOAT32, NAN, 1.0, NAN, 0},
    {NCL_MINIMUM, NCL_FLOAT32, 1.0, NAN, NAN, 0},
    {NCL_MINIMUM, NCL_FLOAT32, -0.0, 0.0, 0.0, 0},
    {NCL_MINIMUM, NCL_FLOAT32, 0.0, -0.0, -0.0, 0},
    {NCL_FMAX, NCL_FLOAT32, NAN, 1.0, 1.0, 0},
    {NCL_FMAX, NCL_FLOAT32, 1.0, NAN, 1.0, 0},
    {NCL_FMAX, NCL_FLOAT32, -0.0, 0.0, 0.0, 0},
    {NCL_FMAX, NCL_FLOAT32, NAN, -NAN, NAN, 0},
    {NCL_FMIN, NCL_FLOAT32, NAN, 1.0, 1.0, 0},
    {NCL_FMIN, NCL_FLOAT32, 1.0, NAN, 1.0, 0},
    {NCL_FMIN, NCL_FLOAT32, 0.0, -0.0, -0.0, 0},
    {NCL_COPYSIGN, NCL_FLOAT64, 1.0, -0.0, -1.0, 0},
    {NCL_COPYSIGN, NCL_FLOAT64, -1.0, 0.0, 1.0, 0},
    {NCL_COPYSIGN, NCL_FLOAT64, NAN, -1.0, -NAN, 0},
    {NCL_COPYSIGN, NCL_FLOAT64, -NAN, 1.0, NAN, 0},
    {NCL_COPYSIGN, NCL_FLOAT64, INFINITY, -NAN, -INFINITY, 0},
    {NCL_COPYSIGN, NCL_FLOAT64, 0.0, -INFINITY, -0.0, 0},
    {NCL_COPYSIGN, NCL_FLOAT32, 1.0, -0.0, -1.0, 0},
    {NCL_COPYSIGN, NCL_FLOAT32, NAN, -1.0, -NAN, 0},
    {NCL_HYPOT, NCL_FLOAT64, INFINITY, NAN, INFINITY, 0},
    {NCL_HYPOT, NCL_FLOAT64, NAN, -INFINITY, INFINITY, 0},
    {NCL_HYPOT, NCL_FLOAT64, 3.0, 4.0, 5.0, 0},
    {NCL_HYPOT, NCL_FLOAT64, 1e+308, 1e+308, 1.4142135623730951e+308, 0},
    {NCL_HYPOT, NCL_FLOAT64, 0.0, -0.0, 0.0, 0},
    {NCL_ARCTAN2, NCL_FLOAT64, 0.0, -0.0, 3.141592653589793, 0},
    {NCL_ARCTAN2, NCL_FLOAT64, -0.0, -0.0, -3.141592653589793, 0},
    {NCL_ARCTAN2, NCL_FLOAT64, -0.0, 0.0, -0.0, 0},
    {NCL_ARCTAN2, NCL_FLOAT64, 1.0, 0.0, 1.5707963267948966, 0},
    {NCL_ARCTAN2, NCL_FLOAT64, NAN, 1.0, NAN, 0},
    {NCL_ARCTAN2, NCL_FLOAT64, INFINITY, INFINITY, 0.7853981633974483, 0},
    {NCL_LOGICAL_AND, NCL_FLOAT64, NAN, 1.0, 1, 0},
    {NCL_LOGICAL_AND, NCL_FLOAT64, -0.0, 1.0, 0, 0},
    {NCL_LOGICAL_AND, NCL_FLOAT64, 1e-320, 1.0, 1, 0},
    {NCL_LOGICAL_OR, NCL_FLOAT32, -0.0, 0.0, 0, 0},
    {NCL_LOGICAL_OR, NCL_FLOAT32, NAN, 0.0, 1, 0},
    {NCL_LOGICAL_XOR, NCL_FLOAT64, NAN, -NAN, 0, 0},
    {NCL_LOGICAL_XOR, NCL_FLOAT64, -0.0, 5.0, 1, 0},
    {NCL_HEAVISIDE, NCL_FLOAT64, -0.0, 0.5, 0.5, 0},
    {NCL_HEAVISIDE, NCL_FLOAT64, NAN, 0.5, NAN, 0},
    {NCL_HEAVISIDE, NCL_FLOAT64, -NAN, 0.5, NAN, 0},
    {NCL_HEAVISIDE, NCL_FLOAT64, 0.0, -NAN, -NAN, 0},
    {NCL_HEAVISIDE, NCL_FLOAT64, -1e-300, 0.5, 0.0, 0},
    {NCL_HEAVISIDE, NCL_FLOAT32, INFINITY, 0.5, 1.0, 0},
    {NCL_HEAVISIDE, NCL_FLOAT32, -INFINITY, 0.5, 0.0, 0},
    {NCL_LOGADDEXP, NCL_FLOAT64, INFINITY, INFINITY, INFINITY, 0},
    {NCL_LOGADDEXP, NCL_FLOAT64, -INFINITY, -INFINITY, -INFINITY, 0},
    {NCL_LOGADDEXP, NCL_FLOAT64, INFINITY, -INFINITY, INFINITY, 0},
    {NCL_LOGADDEXP, NCL_FLOAT64, 1.0, NAN, NAN, NCL_FPE_INVALID},
    {NCL_LOGADDEXP, NCL_FLOAT64, 0.0, 0.0, 0.6931471805599453, 0},
    {NCL_LOGADDEXP, NCL_FLOAT64, 1e308, 1e308, 1e308, 0},
    {NCL_LOGADDEXP, NCL_FLOAT64, 1.5, -2.25, 1.5232454643724251, 0},
    {NCL_LOGADDEXP, NCL_FLOAT32, 1.5, -2.25, 1.5232455, 0},
    {NCL_LOGADDEXP2, NCL_FLOAT64, 0.0, 0.0, 1.0, 0},
    {NCL_LOGADDEXP2, NCL_FLOAT64, NAN, NAN, NAN, NCL_FPE_INVALID},
    {NCL_LOGADDEXP2, NCL_FLOAT64, 1.5, -2.25, 1.6034310941748169, 0},
    {NCL_LOGADDEXP2, NCL_FLOAT32, 1.5, -2.25, 1.6034311, 0},
    {NCL_NEXTAFTER, NCL_FLOAT64, 0.0, 1.0, DBL_TRUE_MIN, NCL_FPE_UNDERFLOW},
    {NCL_NEXTAFTER, NCL_FLOAT64, DBL_MAX, INFINITY, INFINITY, NCL_FPE_OVERFLOW},
    {NCL_NEXTAFTER, NCL_FLOAT64, -0.0, 0.0, 0.0, 0},
    {NCL_NEXTAFTER, NCL_FLOAT64, 0.0, -0.0, -0.0, 0},
    {NCL_NEXTAFTER, NCL_FLOAT64, INFINITY, 0.0, DBL_MAX, 0},
    {NCL_NEXTAFTER, NCL_FLOAT32, FLT_MIN, 0.0, 1.1754942e-38, NCL_FPE_UNDERFLOW},
    {NCL_NEXTAFTER, NCL_FLOAT32, 1.0, NAN, NAN, 0},
    {NCL_FLOAT_POWER, NCL_FLOAT64, 2.0, 0.5, 1.4142135623730951, 0},
    {NCL_FLOAT_POWER, NCL_FLOAT64, -8.0, 1.0 / 3, NAN, NCL_FPE_INVALID},
    {NCL_FLOAT_POWER, NCL_FLOAT64, 0.0, -1.0, INFINITY, NCL_FPE_DIVIDE},
    {NCL_FLOAT_POWER, NCL_FLOAT64, 10.0, 400.0, INFINITY, NCL_FPE_OVERFLOW},
    {NCL_FLOAT_POWER, NCL_FLOAT64, NAN, 0.0, 1.0, 0},
};
#define NFLT ((int)(sizeof flt_cases / sizeof flt_cases[0]))

START_TEST(t_pinned_int)
{
    const int_case *c = &int_cases[_i];
    const size_t size = NclDTypeSize(c->t);
    const NclDType ot = out_dtype(op_of(c->op), c->t);
    run_case(c->op, c->t, from_u(c->a, size), from_u(c->b, size), from_u(c->r, NclDTypeSize(ot)),
             c->flags);
}
END_TEST

START_TEST(t_pinned_float)
{
    const flt_case *c = &flt_cases[_i];
    const NclDType ot = out_dtype(op_of(c->op), c->t);
    const elem r = ot == NCL_BOOL ? from_u(c->r != 0, 1) : from_d(c->t, c->r);
    run_case(c->op, c->t, from_d(c->t, c->a), from_d(c->t, c->b), r, c->flags);
}
END_TEST

/* ---- the loop matrix ------------------------------------------------------------ */

typedef struct {
    int n, npairs;
    elem v[MAXV];
    int pa[MAXV * MAXV], pb[MAXV * MAXV]; /* accepted pairs: value indices */
    int pidx[MAXV * MAXV];                /* pair number of (i, j), -1 if refused */
    elem r[MAXV * MAXV];                  /* one-element result of each pair */
    int f[MAXV * MAXV];                   /* and its flags */
} loop_data;

typedef struct { const loop_data *d; const int *seq; } seq_ctx;

static elem want_seq(void *ctx, int64_t i)
{
    const seq_ctx *s = (const seq_ctx *)ctx;
    return s->d->r[s->seq[i]];
}

static void matrix_run(const op_info *o, NclDType t, const loop_data *d, int64_t len)
{
    const NclDType ot = out_dtype(o, t);
    int *seq = malloc(sizeof(int) * (size_t)(len ? len : 1));
    ck_assert_ptr_nonnull(seq);
    NclArray *A = ncl_test_new(t, 1, NCL_DIMS(len)), *B = ncl_test_new(t, 1, NCL_DIMS(len));
    int flags = 0;
    for (int64_t i = 0; i < len; i++) {
        seq[i] = (int)((i * 13 + len) % d->npairs);
        put_elem(A, i, d->v[d->pa[seq[i]]]);
        put_elem(B, i, d->v[d->pb[seq[i]]]);
        flags |= d->f[seq[i]];
    }
    seq_ctx sc = {d, seq};
    char what[160];
    for (int l = 0; l < NCL_TEST_NLAYOUTS; l++) {
        if (l == NCL_TEST_F) continue;
        NclArray *la = ncl_test_layout_of(A, (ncl_test_layout)l);
        NclArray *lb = ncl_test_layout_of(B, (ncl_test_layout)l);
        NclArray *out = NULL;
        snprintf(what, sizeof what, "%s(%s), length %lld, %s", o->name, NclDTypeName(t),
                 (long long)len, ncl_test_layout_name((ncl_test_layout)l));
        NCL_CHECK_OK(NclBinary(o->op, la, lb, &out, NULL));
        check_out(out, o->op, ot, len, want_seq, &sc, flags, what);
        NclArrayRelease(out);
        NclArrayRelease(la);
        NclArrayRelease(lb);
    }
    /* mixed strides: a step 1, b step -1, into a provided step-2 output */
    {
        NclArray *lb = ncl_test_layout_of(B, NCL_TEST_REVERSED);
        NclArray *zero = ncl_test_new(ot, 1, NCL_DIMS(len));
        NclArray *out = ncl_test_layout_of(zero, NCL_TEST_SLICED);
        snprintf(what, sizeof what, "%s(%s), length %lld, mixed strides", o->name, NclDTypeName(t),
                 (long long)len);
        NCL_CHECK_OK(NclBinary(o->op, A, lb, &out, NULL));
        check_out(out, o->op, ot, len, want_seq, &sc, flags, what);
        NclArrayRelease(out);
        NclArrayRelease(zero);
        NclArrayRelease(lb);
    }
    /* in place: the output is a, then b */
    if (ot == t) {
        for (int k = 0; k < 2; k++) {
            NclArray *ca = ncl_test_clone(A), *cb = ncl_test_clone(B);
            NclArray *out = k ? cb : ca;
            snprintf(what, sizeof what, "%s(%s), length %lld, in place into %s", o->name,
                     NclDTypeName(t), (long long)len, k ? "b" : "a");
            NCL_CHECK_OK(NclBinary(o->op, ca, cb, &out, NULL));
            check_out(out, o->op, ot, len, want_seq, &sc, flags, what);
            NclArrayRelease(ca);
            NclArrayRelease(cb);
        }
    }
    NclArrayRelease(A);
    NclArrayRelease(B);
    free(seq);
}

/* Each value against a 0-d scalar on either side (a stride-0 operand). */
static void matrix_broadcast(const op_info *o, NclDType t, const loop_data *d, int64_t len)
{
    const NclDType ot = out_dtype(o, t);
    int *seq = malloc(sizeof(int) * (size_t)len);
    ck_assert_ptr_nonnull(seq);
    char what[160];
    for (int side = 0; side < 2; side++) {
        for (int s = 0; s < d->n; s++) {
            /* the values that may meet scalar s on the other side */
            int other[MAXV], nother = 0;
            for (int k = 0; k < d->n; k++)
                if (d->pidx[side ? s * d->n + k : k * d->n + s] >= 0) other[nother++] = k;
            if (nother == 0) continue;
            NclArray *full = ncl_test_new(t, 1, NCL_DIMS(len)), *sc0 = scalar0d(t, d->v[s]);
            int flags = 0;
            for (int64_t i = 0; i < len; i++) {
                const int k = other[i % nother];
                put_elem(full, i, d->v[k]);
                seq[i] = d->pidx[side ? s * d->n + k : k * d->n + s];
                flags |= d->f[seq[i]];
            }
            seq_ctx sc = {d, seq};
            NclArray *out = NULL;
            snprintf(what, sizeof what, "%s(%s), length %lld, %s is scalar %d", o->name,
                     NclDTypeName(t), (long long)len, side ? "a" : "b", s);
            NCL_CHECK_OK(NclBinary(o->op, side ? sc0 : full, side ? full : sc0, &out, NULL));
            check_out(out, o->op, ot, len, want_seq, &sc, flags, what);
            NclArrayRelease(out);
            NclArrayRelease(full);
            NclArrayRelease(sc0);
        }
    }
    free(seq);
}

/* Every loop over the cross product of its dtype's edge values: the
   one-element results are the reference that every length and layout must
   reproduce, values and flags alike. */
START_TEST(t_loop_matrix)
{
    const op_info *o = &ops[_i / NCL_NTYPES];
    const NclDType t = (NclDType)(_i % NCL_NTYPES);
    if (!has_loop(o, t)) return;
    const NclDType ot = out_dtype(o, t);
    static loop_data d;
    memset(&d, 0, sizeof d);
    d.n = edge_values(t, d.v);
    ck_assert_int_le(d.n, MAXV);
    NclArray *a1 = ncl_test_new(t, 1, NCL_DIMS(1)), *b1 = ncl_test_new(t, 1, NCL_DIMS(1));
    NclArray *o1 = ncl_test_new(ot, 1, NCL_DIMS(1));
    for (int i = 0; i < d.n; i++)
        for (int j = 0; j < d.n; j++) {
            d.pidx[i * d.n + j] = -1;
            if (refused(o, t, d.v[j])) continue;
            const int p = d.npairs++;
            d.pidx[i * d.n + j] = p;
            d.pa[p] = i;
            d.pb[p] = j;
            put_elem(a1, 0, d.v[i]);
            put_elem(b1, 0, d.v[j]);
            NclArray *out = o1;
            NCL_CHECK_OK(NclBinary(o->op, a1, b1, &out, NULL));
            d.r[p] = get_elem(o1, 0);
            d.f[p] = NclGetFPErrors();
        }
    NclArrayRelease(a1);
    NclArrayRelease(b1);
    NclArrayRelease(o1);
    const int64_t lens[] = {0, 1, 7, 8, 9, 1031};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) matrix_run(o, t, &d, lens[k]);
    matrix_broadcast(o, t, &d, 9);
    matrix_broadcast(o, t, &d, 1031);
}
END_TEST

/* ---- ldexp's mixed loops ------------------------------------------------------------ */

/* ldexp(a, n) for the four loops NumPy 1.24 has, float32 or float64 with
   an int32 or int64 exponent, values and flags from NumPy: exact results,
   OVERFLOW and UNDERFLOW where the result is out of range or inexactly
   subnormal, int64 exponents past int's range clamped. Each case runs as
   1031 elements in every layout and with the exponent a 0-d scalar. */
typedef struct { NclDType m, e; double a; int64_t n; double r; int flags; } ldexp_case;
#define LDEXP_BOTH_(M, a, n, r, f) {M, NCL_INT32, a, n, r, f}, {M, NCL_INT64, a, n, r, f},
static const ldexp_case ldexp_cases[] = {
    LDEXP_BOTH_(NCL_FLOAT64, 1.0, 2000, INFINITY, NCL_FPE_OVERFLOW)
    LDEXP_BOTH_(NCL_FLOAT64, 1.0, -1075, 0.0, NCL_FPE_UNDERFLOW)
    LDEXP_BOTH_(NCL_FLOAT64, 1.5, -1074, 2 * DBL_TRUE_MIN, NCL_FPE_UNDERFLOW)
    LDEXP_BOTH_(NCL_FLOAT64, 1.0, -1074, DBL_TRUE_MIN, 0)
    LDEXP_BOTH_(NCL_FLOAT64, -0.0, 5, -0.0, 0)
    LDEXP_BOTH_(NCL_FLOAT64, -INFINITY, -5, -INFINITY, 0)
    LDEXP_BOTH_(NCL_FLOAT64, NAN, 3, NAN, 0)
    LDEXP_BOTH_(NCL_FLOAT64, 3.0, 2147483647, INFINITY, NCL_FPE_OVERFLOW)
    LDEXP_BOTH_(NCL_FLOAT64, 3.0, -2147483647 - 1, 0.0, NCL_FPE_UNDERFLOW)
    LDEXP_BOTH_(NCL_FLOAT64, -0.75, 10, -768.0, 0)
    LDEXP_BOTH_(NCL_FLOAT32, 1.0, -149, FLT_TRUE_MIN, 0)
    LDEXP_BOTH_(NCL_FLOAT32, 1.5, -149, 2 * FLT_TRUE_MIN, NCL_FPE_UNDERFLOW)
    LDEXP_BOTH_(NCL_FLOAT32, 1.0, 128, INFINITY, NCL_FPE_OVERFLOW)
    LDEXP_BOTH_(NCL_FLOAT32, 1.0, 127, 0x1p127, 0)
    LDEXP_BOTH_(NCL_FLOAT32, -3.0, -1074, -0.0, NCL_FPE_UNDERFLOW)
    {NCL_FLOAT64, NCL_INT64, 3.0, INT64_C(1) << 40, INFINITY, NCL_FPE_OVERFLOW},
    {NCL_FLOAT64, NCL_INT64, 3.0, -(INT64_C(1) << 40), 0.0, NCL_FPE_UNDERFLOW},
    {NCL_FLOAT64, NCL_INT64, 0.0, INT64_MAX, 0.0, 0},
    {NCL_FLOAT32, NCL_INT64, -3.0, INT64_MIN, -0.0, NCL_FPE_UNDERFLOW},
    {NCL_FLOAT32, NCL_INT64, 3.0, INT64_MAX, INFINITY, NCL_FPE_OVERFLOW},
};
#undef LDEXP_BOTH_
#define NLDEXP ((int)(sizeof ldexp_cases / sizeof ldexp_cases[0]))

static void check_ldexp_out(const ldexp_case *c, const NclArray *out, int64_t n, const char *what)
{
    ck_assert_msg(NclArrayDType(out) == c->m, "%s: result dtype %s", what,
                  NclDTypeName(NclArrayDType(out)));
    const int flags = NclGetFPErrors();
    ck_assert_msg(flags == c->flags, "%s: flags %#x, expected %#x", what, flags, c->flags);
    for (int64_t i = 0; i < n; i++) {
        const double r = ncl_test_get_d(out, i);
        ck_assert_msg(isnan(c->r) ? isnan(r) : r == c->r && !signbit(r) == !signbit(c->r),
                      "%s: element %lld is %a, expected %a", what, (long long)i, r, c->r);
    }
}

START_TEST(t_ldexp)
{
    const ldexp_case *c = &ldexp_cases[_i];
    const int64_t n = 1031;
    char what[160];
    NclArray *a = ncl_test_new(c->m, 1, NCL_DIMS(n)), *e = ncl_test_new(c->e, 1, NCL_DIMS(n));
    NclArray *e0 = ncl_test_new(c->e, 0, NULL);
    for (int64_t i = 0; i < n; i++) {
        ncl_test_set_d(a, i, c->a);
        ncl_test_set_i(e, i, c->n);
    }
    ncl_test_set_i(e0, 0, c->n);
    for (int l = 0; l < NCL_TEST_NLAYOUTS; l++) {
        NclArray *la = ncl_test_layout_of(a, (ncl_test_layout)l);
        NclArray *le = ncl_test_layout_of(e, (ncl_test_layout)l), *out = NULL;
        snprintf(what, sizeof what, "ldexp(%s %a, %s %lld) %s", NclDTypeName(c->m), c->a,
                 NclDTypeName(c->e), (long long)c->n, ncl_test_layout_name((ncl_test_layout)l));
        NCL_CHECK_OK(NclBinary(NCL_LDEXP, la, le, &out, NULL));
        check_ldexp_out(c, out, n, what);
        NclArrayRelease(out);
        out = NULL;
        NCL_CHECK_OK(NclBinary(NCL_LDEXP, la, e0, &out, NULL));
        check_ldexp_out(c, out, n, what);
        NclArrayRelease(out);
        NclArrayRelease(la);
        NclArrayRelease(le);
    }
    NclArrayRelease(a);
    NclArrayRelease(e);
    NclArrayRelease(e0);
}
END_TEST

/* ldexp's type resolution, NumPy's search over its four loops: the first
   whose mantissa and exponent dtypes the operands cast to safely; exactly
   those four signatures have kernel chains. */
START_TEST(t_ldexp_resolution)
{
    static const struct { NclDType a, b, out; } cases[] = {
        {NCL_INT8, NCL_INT8, NCL_FLOAT32},       {NCL_FLOAT32, NCL_INT64, NCL_FLOAT32},
        {NCL_INT16, NCL_UINT32, NCL_FLOAT32},    {NCL_INT64, NCL_INT32, NCL_FLOAT64},
        {NCL_FLOAT64, NCL_BOOL, NCL_FLOAT64},    {NCL_UINT8, NCL_UINT16, NCL_FLOAT32},
        {NCL_FLOAT64, NCL_UINT64, NCL_NTYPES},   {NCL_FLOAT64, NCL_FLOAT32, NCL_NTYPES},
        {NCL_FLOAT32, NCL_FLOAT64, NCL_NTYPES},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        NclArray *a = ncl_test_arr(cases[k].a, 1, NCL_DIMS(3), 1, 2, 3);
        NclArray *b = ncl_test_arr(cases[k].b, 1, NCL_DIMS(3), 1, 0, 1);
        NclArray *out = NULL;
        const NclStatus st = NclBinary(NCL_LDEXP, a, b, &out, NULL);
        if (cases[k].out == NCL_NTYPES) {
            ck_assert_msg(st == NCL_ERR_DTYPE && out == NULL, "ldexp(%s, %s): status %d",
                          NclDTypeName(cases[k].a), NclDTypeName(cases[k].b), (int)st);
            NCL_CHECK_MESSAGE_HAS("ldexp");
        } else {
            ck_assert_msg(st == NCL_OK, "ldexp(%s, %s): %s", NclDTypeName(cases[k].a),
                          NclDTypeName(cases[k].b), NclLastError());
            ck_assert_int_eq(NclArrayDType(out), cases[k].out);
            ck_assert(ncl_test_get_d(out, 0) == 2.0 && ncl_test_get_d(out, 1) == 2.0 &&
                      ncl_test_get_d(out, 2) == 6.0);
            NclArrayRelease(out);
        }
        NclArrayRelease(a);
        NclArrayRelease(b);
    }
    for (int m = 0; m < NCL_NTYPES; m++)
        for (int e = 0; e < NCL_NTYPES; e++) {
            const NclDType sig[3] = {(NclDType)m, (NclDType)e, (NclDType)m};
            const int want = (m == NCL_FLOAT32 || m == NCL_FLOAT64) && (e == NCL_INT32 || e == NCL_INT64);
            const NclStatus st = NclKernelRun(NCL_SUBSYSTEM_BINARY, NCL_LDEXP, sig, NULL, 0, NULL);
            ck_assert_msg((st == NCL_OK) == want, "ldexp kernel (%s, %s): status %d",
                          NclDTypeName(sig[0]), NclDTypeName(sig[1]), (int)st);
        }
}
END_TEST

/* ---- registration ------------------------------------------------------------------ */

/* The pool's workers may run the chain beside the calling thread: the
   counts are atomic. */
typedef struct {
    NclKernelNode node;
    atomic_int calls, bad_op, bad_sig;
    int op;
    NclDType sig[3];
} spy_node;

static NclStatus spy_kernel(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                            int64_t n, const int64_t *steps)
{
    spy_node *s = NCL_CONTAINER_OF(self, spy_node, node);
    atomic_fetch_add(&s->calls, 1);
    if (ctx->subsystem != NCL_SUBSYSTEM_BINARY || ctx->op != s->op) atomic_fetch_add(&s->bad_op, 1);
    if (ctx->nin != 2 || ctx->nout != 1 || ctx->signature == NULL ||
        memcmp(ctx->signature, s->sig, sizeof s->sig) != 0)
        atomic_fetch_add(&s->bad_sig, 1);
    return NclKernelNext(self, ctx, args, n, steps);
}

/* Among homogeneous signatures exactly NumPy's loops have a level-2 chain,
   and NclBinary runs the chain of its own (op, signature). */
START_TEST(t_registration)
{
    const op_info *o = &ops[_i / NCL_NTYPES];
    const NclDType t = (NclDType)(_i % NCL_NTYPES);
    spy_node s;
    memset(&s, 0, sizeof s);
    s.node.fn = spy_kernel;
    s.node.name = "binary_spy";
    s.op = (int)o->op;
    s.sig[0] = s.sig[1] = t;
    s.sig[2] = out_dtype(o, t);
    if (!has_loop(o, t)) {
        NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_BINARY, (int)o->op, s.sig, &s.node.list),
                         NCL_ERR_DTYPE);
        return;
    }
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_BINARY, (int)o->op, s.sig, &s.node.list));
    NclArray *a = ncl_test_arr(t, 1, NCL_DIMS(9), 1), *b = ncl_test_arr(t, 1, NCL_DIMS(9), 1);
    NclArray *out = NULL;
    NclStatus st = NclBinary(o->op, a, b, &out, NULL);
    NCL_CHECK_OK(NclKernelUnhook(&s.node.list));
    ck_assert_msg(st == NCL_OK, "%s(%s): %s", o->name, NclDTypeName(t), NclLastError());
    ck_assert_msg(atomic_load(&s.calls) > 0, "%s(%s) did not run its kernel chain", o->name,
                  NclDTypeName(t));
    ck_assert_msg(atomic_load(&s.bad_op) == 0 && atomic_load(&s.bad_sig) == 0,
                  "%s(%s): kernel context names another loop", o->name, NclDTypeName(t));
    NclArrayRelease(out);
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

/* ---- semantics beyond single elements ---------------------------------------------- */

/* Integer powers with a negative exponent are refused before anything is
   written, including exponents that are only negative after the cast to
   the loop dtype (200 as int8 is -56); unsigned exponents never are. */
START_TEST(t_power_negative_exponent)
{
    NclArray *a = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(3), 2, 2, 2);
    NclArray *b = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(3), 3, -1, 2);
    NclArray *out = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(3), 7);
    const uint64_t h = ncl_test_hash(out);
    NclArray *o = out;
    NCL_CHECK_STATUS(NclBinary(NCL_POWER, a, b, &o, NULL), NCL_ERR_INVALID_ARGUMENT);
    ck_assert(ncl_test_hash(out) == h);
    NclArray *none = NULL;
    NCL_CHECK_STATUS(NclBinary(NCL_POWER, a, b, &none, NULL), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(none);

    NclArray *ua = ncl_test_arr(NCL_UINT8, 1, NCL_DIMS(2), 2, 2);
    NclArray *ub = ncl_test_arr(NCL_UINT8, 1, NCL_DIMS(2), 3, 200);
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = NCL_INT8;
    p.casting = NCL_CASTING_UNSAFE;
    NclArray *o8 = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(2), 7);
    const uint64_t h8 = ncl_test_hash(o8);
    o = o8;
    NCL_CHECK_STATUS(NclBinary(NCL_POWER, ua, ub, &o, &p), NCL_ERR_INVALID_ARGUMENT);
    ck_assert(ncl_test_hash(o8) == h8);

    /* the same exponents in the uint8 loop: 2**200 wraps to 0 */
    NclArray *r = NULL;
    NCL_CHECK_OK(NclBinary(NCL_POWER, ua, ub, &r, NULL));
    NclArray *want = ncl_test_arr(NCL_UINT8, 1, NCL_DIMS(2), 8, 0);
    NCL_CHECK_ARRAYS_EQUAL(r, want);
    /* and a negative float exponent is fine */
    NclArray *fa = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 2, 4);
    NclArray *fb = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), -1, -0.5);
    NclArray *fr = NULL, *fwant = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 0.5, 0.5);
    NCL_CHECK_OK(NclBinary(NCL_POWER, fa, fb, &fr, NULL));
    NCL_CHECK_ARRAYS_EQUAL(fr, fwant);
    NclArray *arrs[] = {a, b, out, ua, ub, o8, r, want, fa, fb, fr, fwant};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) NclArrayRelease(arrs[i]);
}
END_TEST

/* Bool operands holding bytes other than 0 and 1 (a wrapped foreign buffer)
   are read as truth values, and results are always 0 or 1. */
START_TEST(t_bool_truth_bytes)
{
    static unsigned char xa[8] = {0, 1, 2, 255, 2, 0, 128, 1};
    static unsigned char xb[8] = {2, 2, 0, 1, 255, 0, 64, 0};
    NclArray *a = NULL, *b = NULL;
    NCL_CHECK_OK(NclFromData(NCL_BOOL, 1, NCL_DIMS(8), NULL, xa, 0, NULL, NULL, &a));
    NCL_CHECK_OK(NclFromData(NCL_BOOL, 1, NCL_DIMS(8), NULL, xb, 0, NULL, NULL, &b));
    static const struct { NclBinaryOp op; char kind; } cases[] = {
        {NCL_ADD, '|'},         {NCL_MULTIPLY, '&'},    {NCL_MAXIMUM, '|'},
        {NCL_MINIMUM, '&'},     {NCL_FMAX, '|'},        {NCL_FMIN, '&'},
        {NCL_BITWISE_AND, '&'}, {NCL_BITWISE_OR, '|'},  {NCL_BITWISE_XOR, '^'},
        {NCL_LOGICAL_AND, '&'}, {NCL_LOGICAL_OR, '|'},  {NCL_LOGICAL_XOR, '^'},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        NclArray *out = NULL;
        NCL_CHECK_OK(NclBinary(cases[c].op, a, b, &out, NULL));
        ck_assert_int_eq(NclArrayDType(out), NCL_BOOL);
        for (int i = 0; i < 8; i++) {
            const int x = xa[i] != 0, y = xb[i] != 0;
            const int want = cases[c].kind == '&' ? (x & y) : cases[c].kind == '|' ? (x | y) : (x ^ y);
            const unsigned char got = *(const unsigned char *)ncl_test_ptr(out, i);
            ck_assert_msg(got == want, "%s(bool %u, %u) = %u, expected %d", op_of(cases[c].op)->name,
                          xa[i], xb[i], got, want);
        }
        NclArrayRelease(out);
    }
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

/* The float max/min kernels drop the INVALID their own NaN compares raise,
   but not one raised earlier in the same call: here a kernel hook ahead of
   the built-in raises it, as a cast or another kernel might. */
static NclStatus raise_invalid_kernel(NclKernelNode *self, const NclKernelCtx *ctx,
                                      char *const *args, int64_t n, const int64_t *steps)
{
    if (self->user != NULL) feraiseexcept(FE_INVALID);
    return NclKernelNext(self, ctx, args, n, steps);
}

START_TEST(t_minmax_keep_earlier_invalid)
{
    static const NclBinaryOp mm[] = {NCL_MAXIMUM, NCL_MINIMUM, NCL_FMAX, NCL_FMIN};
    for (int k = 0; k < 2; k++) {
        const NclDType t = k ? NCL_FLOAT64 : NCL_FLOAT32;
        const NclDType sig[3] = {t, t, t};
        NclArray *a = ncl_test_arr(t, 1, NCL_DIMS(9), NAN, 1, 2, NAN, 4, 5, 6, 7, NAN);
        NclArray *b = ncl_test_arr(t, 1, NCL_DIMS(9), 1, NAN, 2, 3, 4, 5, NAN, 7, 8);
        for (size_t i = 0; i < sizeof mm / sizeof mm[0]; i++) {
            for (int raise = 0; raise < 2; raise++) {
                NclKernelNode node;
                memset(&node, 0, sizeof node);
                node.fn = raise_invalid_kernel;
                node.name = "raise_invalid";
                node.user = raise ? &node : NULL;
                NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_BINARY, (int)mm[i], sig, &node.list));
                NclArray *out = NULL;
                const NclStatus st = NclBinary(mm[i], a, b, &out, NULL);
                const int flags = NclGetFPErrors();
                NCL_CHECK_OK(NclKernelUnhook(&node.list));
                ck_assert_msg(st == NCL_OK, "%s: %s", op_of(mm[i])->name, NclLastError());
                ck_assert_msg(flags == (raise ? NCL_FPE_INVALID : 0),
                              "%s(%s) with NaNs, INVALID %sraised ahead: flags 0x%x",
                              op_of(mm[i])->name, NclDTypeName(t), raise ? "" : "not ", flags);
                NclArrayRelease(out);
            }
        }
        NclArrayRelease(a);
        NclArrayRelease(b);
    }
}
END_TEST

/* ---- fused casts ---------------------------------------------------------------------
   An int32 or float32 operand beside a float64 one runs a fused kernel that
   converts in registers (src/exec/plan.h) unless a user kernel is hooked on the
   float64 loop, which then sees the call with the operand cast through a
   buffer. Both paths must give the same bits (any NaN matching any NaN) and
   the same FP flags, over edge values, lengths around the vector widths and
   the cast block, every layout, broadcasting, where masks, an output cast,
   in place and split across threads; the fused chain must run exactly when
   nothing is hooked on the float64 loop, and the casting rule still
   applies. */

static const NclBinaryOp fused_ops[] = {NCL_ADD, NCL_SUBTRACT, NCL_MULTIPLY, NCL_DIVIDE};
static const NclDType fused_narrow[] = {NCL_INT32, NCL_FLOAT32};
#define NFUSED (4 * 2 * 2) /* op, narrow dtype, narrow operand first or second */

/* Split calls run the kernel on the pool's workers and the calling thread
   at once: the count is atomic. */
typedef struct {
    NclKernelNode node;
    atomic_int calls;
} count_node;

static NclStatus count_kernel(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                              int64_t n, const int64_t *steps)
{
    atomic_fetch_add(&NCL_CONTAINER_OF(self, count_node, node)->calls, 1);
    return NclKernelNext(self, ctx, args, n, steps);
}

/* Fills a (any layout) with an edge value every third element, else random
   bits (float64, float32) or random integers. */
static void fused_fill(const NclArray *a, uint64_t *rs)
{
    static const double e64[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e308, -1e308, 5e-324, -1e-310,
                                 2.2250738585072014e-308, INFINITY, -INFINITY, NAN, -NAN,
                                 2147483647.0, -2147483648.0, 9007199254740993.0, 1e-300};
    static const uint32_t e32[] = {0x00000000u, 0x80000000u, 0x3f800000u, 0x7f7fffffu,
                                   0xff7fffffu, 0x00000001u, 0x807fffffu, 0x7f800000u,
                                   0xff800000u, 0x7fc00000u, 0xffc00001u,
                                   0x7f800001u /* signalling NaN */, 0x4b000001u};
    static const int32_t ei[] = {0, 1, -1, INT32_MAX, INT32_MIN, 16777217, -16777217, 3};
    const NclDType t = NclArrayDType(a);
    const int64_t n = NclArraySize(a);
    for (int64_t i = 0; i < n; i++) {
        char *p = ncl_test_ptr(a, i);
        const uint64_t r = ncl_test_rand(rs);
        const int edge = r % 3 == 0;
        const uint64_t k = r >> 8;
        if (t == NCL_FLOAT64) {
            double v;
            if (edge) v = e64[k % (sizeof e64 / sizeof e64[0])];
            else { uint64_t b = ncl_test_rand(rs); memcpy(&v, &b, 8); }
            memcpy(p, &v, 8);
        } else if (t == NCL_FLOAT32) {
            uint32_t b = edge ? e32[k % (sizeof e32 / sizeof e32[0])]
                              : (uint32_t)ncl_test_rand(rs);
            memcpy(p, &b, 4);
        } else {
            int32_t v = edge ? ei[k % (sizeof ei / sizeof ei[0])] : (int32_t)ncl_test_rand(rs);
            memcpy(p, &v, 4);
        }
    }
}

/* Whether got and want hold the same elements: the same bits, or both NaN. */
static void fused_same(const NclArray *got, const NclArray *want, const char *what)
{
    const NclDType t = NclArrayDType(want);
    ck_assert_int_eq(NclArrayDType(got), t);
    ck_assert_int_eq(NclArraySize(got), NclArraySize(want));
    for (int64_t i = 0; i < NclArraySize(want); i++) {
        const char *g = ncl_test_ptr(got, i), *w = ncl_test_ptr(want, i);
        const double gd = ncl_test_load_d(t, g), wd = ncl_test_load_d(t, w);
        if (isnan(gd) && isnan(wd)) continue;
        ck_assert_msg(memcmp(g, w, NclDTypeSize(t)) == 0,
                      "%s: element %lld is %.17g fused, %.17g cast through the buffer", what,
                      (long long)i, gd, wd);
    }
}

/* Runs op(a, b) twice: as it is (the fused kernel) and with a pass-through
   kernel hooked on the float64 loop (the cast-buffer path), into copies of
   out (NULL: allocated) with params p, and checks that the two agree and
   that each ran the chain it should. */
static void fused_check(NclBinaryOp op, const NclArray *a, const NclArray *b, const NclArray *out,
                        const NclParams *p, const char *what)
{
    const NclDType fsig[3] = {NclArrayDType(a), NclArrayDType(b), NCL_FLOAT64};
    const NclDType lsig[3] = {NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64};
    count_node fused, loop;
    memset(&fused, 0, sizeof fused);
    memset(&loop, 0, sizeof loop);
    fused.node.fn = loop.node.fn = count_kernel;
    fused.node.name = "fused_count";
    loop.node.name = "loop_pass";
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_BINARY, (int)op, fsig, &fused.node.list));
    NclArray *r[2];
    int flags[2];
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_BINARY, (int)op, lsig, &loop.node.list));
        r[pass] = out ? ncl_test_clone(out) : NULL;
        NclArray *o = r[pass];
        const NclStatus st = NclBinary(op, a, b, &o, p);
        flags[pass] = NclGetFPErrors();
        ck_assert_msg(st == NCL_OK, "%s: %s", what, NclLastError());
        r[pass] = o;
        if (pass == 0) {
            ck_assert_msg(NclArraySize(o) == 0 || atomic_load(&fused.calls) > 0,
                          "%s: the fused kernel did not run", what);
            atomic_store(&fused.calls, 0);
        }
    }
    NCL_CHECK_OK(NclKernelUnhook(&loop.node.list));
    NCL_CHECK_OK(NclKernelUnhook(&fused.node.list));
    ck_assert_msg(atomic_load(&fused.calls) == 0,
                  "%s: the fused kernel ran under a hook on the loop", what);
    ck_assert_msg(NclArraySize(r[1]) == 0 || atomic_load(&loop.calls) > 0,
                  "%s: the hooked float64 loop did not run", what);
    fused_same(r[0], r[1], what);
    ck_assert_msg(flags[0] == flags[1], "%s: FP flags %#x fused, %#x through the buffer", what,
                  flags[0], flags[1]);
    NclArrayRelease(r[0]);
    NclArrayRelease(r[1]);
}

/* The operands of loop test i: a narrow and a float64 array of shape
   (nd, shape), in the test's order. */
static void fused_operands(int i, int nd, const int64_t *shape, ncl_test_layout la,
                           ncl_test_layout lb, uint64_t *rs, NclArray **a, NclArray **b)
{
    const NclDType narrow = fused_narrow[i / 2 % 2];
    const int narrow_first = i % 2 == 0;
    NclArray *x = ncl_test_new(narrow_first ? narrow : NCL_FLOAT64, nd, shape);
    NclArray *y = ncl_test_new(narrow_first ? NCL_FLOAT64 : narrow, nd, shape);
    fused_fill(x, rs);
    fused_fill(y, rs);
    *a = ncl_test_layout_of(x, la);
    *b = ncl_test_layout_of(y, lb);
    NclArrayRelease(x);
    NclArrayRelease(y);
}

START_TEST(t_fused_layouts)
{
    const NclBinaryOp op = fused_ops[_i / 4];
    static const int64_t lengths[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33,
                                      63, 64, 65, 511, 512, 513, 1031, 4099};
    static const ncl_test_layout lays[] = {NCL_TEST_C, NCL_TEST_SLICED, NCL_TEST_REVERSED,
                                           NCL_TEST_MISALIGNED};
    uint64_t rs = 0x1234567u + (uint64_t)_i;
    char what[160];
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
        for (size_t la = 0; la < 4; la++)
            for (size_t lb = 0; lb < 4; lb++) {
                NclArray *a, *b;
                fused_operands(_i, 1, &lengths[l], lays[la], lays[lb], &rs, &a, &b);
                snprintf(what, sizeof what, "%s(%s %s, %s %s), n = %lld",
                         op_of(op)->name, NclDTypeName(NclArrayDType(a)),
                         ncl_test_layout_name(lays[la]), NclDTypeName(NclArrayDType(b)),
                         ncl_test_layout_name(lays[lb]), (long long)lengths[l]);
                fused_check(op, a, b, NULL, NULL, what);
                /* a provided output */
                NclArray *wide = NclArrayDType(a) == NCL_FLOAT64 ? a : b;
                NclArray *o = ncl_test_clone(wide);
                fused_check(op, a, b, o, NULL, what);
                NclArrayRelease(o);
                NclArrayRelease(a);
                NclArrayRelease(b);
            }
}
END_TEST

/* In place: the output is the float64 operand itself. */
START_TEST(t_fused_in_place)
{
    const NclBinaryOp op = fused_ops[_i / 4];
    uint64_t rs = 0x777u + (uint64_t)_i;
    const int64_t n = 1031;
    NclArray *a, *b;
    fused_operands(_i, 1, &n, NCL_TEST_C, NCL_TEST_C, &rs, &a, &b);
    NclArray *wide = NclArrayDType(a) == NCL_FLOAT64 ? a : b;
    NclArray *res[2];
    for (int pass = 0; pass < 2; pass++) {
        count_node loop;
        memset(&loop, 0, sizeof loop);
        loop.node.fn = count_kernel;
        loop.node.name = "loop_pass";
        const NclDType lsig[3] = {NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64};
        if (pass == 1)
            NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_BINARY, (int)op, lsig, &loop.node.list));
        NclArray *w = ncl_test_clone(wide);
        NclArray *o = w;
        NCL_CHECK_OK(NclBinary(op, wide == a ? w : a, wide == b ? w : b, &o, NULL));
        ck_assert_ptr_eq(o, w);
        if (pass == 1) NCL_CHECK_OK(NclKernelUnhook(&loop.node.list));
        res[pass] = w;
    }
    fused_same(res[0], res[1], "in place");
    NclArrayRelease(res[0]);
    NclArrayRelease(res[1]);
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

/* Broadcasting, masks, an output cast, threads, the casting rule. */
START_TEST(t_fused_planned)
{
    const NclBinaryOp op = fused_ops[_i / 4];
    uint64_t rs = 0xabcdefu + (uint64_t)_i;
    NclArray *a, *b;
    /* a 0-d operand on either side, against 1031 elements */
    const int64_t n = 1031;
    for (int side = 0; side < 2; side++) {
        fused_operands(_i, 1, &n, NCL_TEST_C, NCL_TEST_C, &rs, &a, &b);
        NclArray *s = NULL;
        NclArray *src = side ? b : a;
        NCL_CHECK_OK(NclEmpty(NclArrayDType(src), 0, NULL, &s));
        memcpy(NclArrayData(s), NclArrayData(src), NclDTypeSize(NclArrayDType(src)));
        fused_check(op, side ? a : s, side ? s : b, NULL, NULL, "0-d operand");
        NclArrayRelease(s);
        NclArrayRelease(a);
        NclArrayRelease(b);
    }
    /* (37, 1) against (1, 41); F order against C order */
    {
        NclArray *x, *y, *xa, *yb;
        fused_operands(_i, 2, NCL_DIMS(37, 41), NCL_TEST_F, NCL_TEST_C, &rs, &x, &y);
        fused_check(op, x, y, NULL, NULL, "F against C");
        NclArray *c1 = NULL, *c2 = NULL;
        const int64_t st0[2] = {0, 0}, sp1[2] = {INT64_MIN, 1}, sp2[2] = {1, INT64_MIN},
                      step[2] = {1, 1};
        NCL_CHECK_OK(NclArraySlice(x, st0, sp1, step, &c1));
        NCL_CHECK_OK(NclArraySlice(y, st0, sp2, step, &c2));
        xa = c1;
        yb = c2;
        fused_check(op, xa, yb, NULL, NULL, "(37, 1) against (1, 41)");
        NclArrayRelease(xa);
        NclArrayRelease(yb);
        NclArrayRelease(x);
        NclArrayRelease(y);
    }
    /* a where mask, output provided (prefilled) and allocated */
    fused_operands(_i, 1, &n, NCL_TEST_C, NCL_TEST_REVERSED, &rs, &a, &b);
    NclArray *m = ncl_test_new(NCL_BOOL, 1, &n);
    for (int64_t i = 0; i < n; i++) ((char *)NclArrayData(m))[i] = (char)(ncl_test_rand(&rs) % 3 != 0);
    NclParams p = NCL_PARAMS_INIT;
    p.where = m;
    NclArray *o = ncl_test_new(NCL_FLOAT64, 1, &n);
    fused_fill(o, &rs);
    fused_check(op, a, b, o, &p, "where, provided");
    fused_check(op, a, b, NULL, &p, "where, allocated");
    NclArrayRelease(o);
    /* a float32 output: the result is cast, the input is still fused */
    o = ncl_test_new(NCL_FLOAT32, 1, &n);
    fused_check(op, a, b, o, NULL, "float32 output");
    /* the casting rule applies to the casts the fused kernel stands in for */
    NclParams pn = NCL_PARAMS_INIT;
    pn.casting = NCL_CASTING_NO;
    NclArray *o2 = ncl_test_new(NCL_FLOAT64, 1, &n), *oo = o2;
    NCL_CHECK_STATUS(NclBinary(op, a, b, &oo, &pn), NCL_ERR_CASTING);
    pn.casting = NCL_CASTING_SAFE;
    NCL_CHECK_OK(NclBinary(op, a, b, &oo, &pn));
    pn.dtype = NCL_FLOAT64;
    fused_check(op, a, b, o2, &pn, "dtype=float64");
    NclArrayRelease(o2);
    NclArrayRelease(o);
    NclArrayRelease(m);
    NclArrayRelease(a);
    NclArrayRelease(b);
    /* a hook on the cast's chain sees the cast, as before: not fused */
    {
        fused_operands(_i, 1, &n, NCL_TEST_C, NCL_TEST_C, &rs, &a, &b);
        const NclDType narrow = fused_narrow[_i / 2 % 2];
        const NclDType csig[2] = {narrow, NCL_FLOAT64};
        const NclDType fsig[3] = {NclArrayDType(a), NclArrayDType(b), NCL_FLOAT64};
        count_node cast, fused;
        memset(&cast, 0, sizeof cast);
        memset(&fused, 0, sizeof fused);
        cast.node.fn = fused.node.fn = count_kernel;
        cast.node.name = "cast_count";
        fused.node.name = "fused_count";
        NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_CONVERT, NCL_CONVERT_ASTYPE, csig,
                                   &cast.node.list));
        NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_BINARY, (int)op, fsig, &fused.node.list));
        NclArray *r = NULL;
        NCL_CHECK_OK(NclBinary(op, a, b, &r, NULL));
        NCL_CHECK_OK(NclKernelUnhook(&fused.node.list));
        NCL_CHECK_OK(NclKernelUnhook(&cast.node.list));
        ck_assert_int_gt(atomic_load(&cast.calls), 0);
        ck_assert_int_eq(atomic_load(&fused.calls), 0);
        NclArrayRelease(r);
        NclArrayRelease(a);
        NclArrayRelease(b);
    }
    /* split across threads, each worker running the fused kernel on its range */
    const int threads = NclGetNumThreads();
    NCL_CHECK_OK(NclSetNumThreads(3));
    NCL_CHECK_OK(NclSetThreadingThreshold(1000));
    const int64_t big = 3 * 65536 + 5;
    fused_operands(_i, 1, &big, NCL_TEST_C, NCL_TEST_MISALIGNED, &rs, &a, &b);
    fused_check(op, a, b, NULL, NULL, "threads");
    NCL_CHECK_OK(NclSetThreadingThreshold(65536));
    NCL_CHECK_OK(NclSetNumThreads(threads));
    NclArrayRelease(a);
    NclArrayRelease(b);
}
END_TEST

static Suite *binary_kernels_suite(void)
{
    Suite *s = suite_create("binary_kernels");
    TCase *tc = ncl_test_tcase(s, "pinned");
    tcase_add_loop_test(tc, t_pinned_int, 0, NINT);
    tcase_add_loop_test(tc, t_pinned_float, 0, NFLT);
    tcase_add_test(tc, t_power_negative_exponent);
    tcase_add_test(tc, t_bool_truth_bytes);
    tcase_add_test(tc, t_minmax_keep_earlier_invalid);
    tcase_add_loop_test(tc, t_ldexp, 0, NLDEXP);
    tcase_add_test(tc, t_ldexp_resolution);
    tc = ncl_test_tcase(s, "loops");
    tcase_add_loop_test(tc, t_loop_matrix, 0, NOPS * NCL_NTYPES);
    tc = ncl_test_tcase(s, "registration");
    tcase_add_loop_test(tc, t_registration, 0, NOPS * NCL_NTYPES);
    tc = ncl_test_tcase(s, "fused");
    tcase_add_loop_test(tc, t_fused_layouts, 0, NFUSED);
    tcase_add_loop_test(tc, t_fused_in_place, 0, NFUSED);
    tcase_add_loop_test(tc, t_fused_planned, 0, NFUSED);
    return s;
}

NCL_TEST_MAIN(binary_kernels_suite)
