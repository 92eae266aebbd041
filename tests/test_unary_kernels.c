/*
 * test_unary_kernels.c: the Unary and IsUnary inner loops, reached through
 * NclUnary / NclIsUnary. Every loop NCLib has (NumPy 1.24's ufunc.types
 * without float16) runs over an edge matrix: integer MIN/MAX and their
 * neighbours, ±0.0, ±1, halves, denormals, huge values, ±inf, NaN of both
 * signs; lengths 0, 1, 7, 8, 9 and 1031 (around the vector widths, and a
 * long run); input strides 1, 2, -1 and 0. Each element is checked against
 * a reference computed here (exact ops bit for bit, transcendental ops
 * within 1 ulp of a long double evaluation), and NclGetFPErrors() against
 * the flags the reference raised. A second group pins down the semantics
 * NumPy users rely on: integer reciprocal, absolute(MIN), sign(NaN),
 * rounding of halves and -0.0, and which inputs raise which FP flag.
 */
#include <fenv.h>
#include <float.h>
#include "ncl_test.h"

/* ---- the loops: op and the dtypes it has a loop for ------------------------ */

enum { K_BOOL = 1, K_SINT = 2, K_UINT = 4, K_FLOAT = 8 };
#define K_INT (K_SINT | K_UINT)
#define K_NUM (K_INT | K_FLOAT)
#define K_ALL (K_BOOL | K_NUM)

typedef struct { int sub; int op; const char *name; int kinds; int libm; } op_info;

static const op_info ops[] = {
    {NCL_SUBSYSTEM_UNARY, NCL_NEGATIVE, "negative", K_NUM, 0},
    {NCL_SUBSYSTEM_UNARY, NCL_POSITIVE, "positive", K_NUM, 0},
    {NCL_SUBSYSTEM_UNARY, NCL_ABSOLUTE, "absolute", K_ALL, 0},
    {NCL_SUBSYSTEM_UNARY, NCL_SIGN, "sign", K_NUM, 0},
    {NCL_SUBSYSTEM_UNARY, NCL_SQUARE, "square", K_NUM, 0},
    {NCL_SUBSYSTEM_UNARY, NCL_RECIPROCAL, "reciprocal", K_NUM, 0},
    {NCL_SUBSYSTEM_UNARY, NCL_SQRT, "sqrt", K_FLOAT, 0},
    {NCL_SUBSYSTEM_UNARY, NCL_CBRT, "cbrt", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_EXP, "exp", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_EXP2, "exp2", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_EXPM1, "expm1", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_LOG, "log", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_LOG2, "log2", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_LOG10, "log10", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_LOG1P, "log1p", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_SIN, "sin", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_COS, "cos", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_TAN, "tan", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_ARCSIN, "arcsin", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_ARCCOS, "arccos", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_ARCTAN, "arctan", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_SINH, "sinh", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_COSH, "cosh", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_TANH, "tanh", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_ARCSINH, "arcsinh", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_ARCCOSH, "arccosh", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_ARCTANH, "arctanh", K_FLOAT, 1},
    {NCL_SUBSYSTEM_UNARY, NCL_FLOOR, "floor", K_FLOAT, 0},
    {NCL_SUBSYSTEM_UNARY, NCL_CEIL, "ceil", K_FLOAT, 0},
    {NCL_SUBSYSTEM_UNARY, NCL_TRUNC, "trunc", K_FLOAT, 0},
    {NCL_SUBSYSTEM_UNARY, NCL_RINT, "rint", K_FLOAT, 0},
    {NCL_SUBSYSTEM_UNARY, NCL_INVERT, "invert", K_BOOL | K_INT, 0},
    {NCL_SUBSYSTEM_UNARY, NCL_LOGICAL_NOT, "logical_not", K_ALL, 0},
    {NCL_SUBSYSTEM_UNARY, NCL_DEG2RAD, "deg2rad", K_FLOAT, 0},
    {NCL_SUBSYSTEM_UNARY, NCL_RAD2DEG, "rad2deg", K_FLOAT, 0},
    {NCL_SUBSYSTEM_UNARY, NCL_SPACING, "spacing", K_FLOAT, 0},
    {NCL_SUBSYSTEM_UNARY, NCL_CONJUGATE, "conjugate", K_NUM, 0},
    {NCL_SUBSYSTEM_UNARY, NCL_FABS, "fabs", K_FLOAT, 0},
    {NCL_SUBSYSTEM_ISUNARY, NCL_IS_NAN, "isnan", K_ALL, 0},
    {NCL_SUBSYSTEM_ISUNARY, NCL_IS_INF, "isinf", K_ALL, 0},
    {NCL_SUBSYSTEM_ISUNARY, NCL_IS_FINITE, "isfinite", K_ALL, 0},
    {NCL_SUBSYSTEM_ISUNARY, NCL_SIGNBIT, "signbit", K_FLOAT, 0},
};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

static int kind_of(NclDType t)
{
    switch (t) {
    case NCL_BOOL: return K_BOOL;
    case NCL_INT8: case NCL_INT16: case NCL_INT32: case NCL_INT64: return K_SINT;
    case NCL_FLOAT32: case NCL_FLOAT64: return K_FLOAT;
    default: return K_UINT;
    }
}

static int out_is_bool(const op_info *o)
{
    return o->sub == NCL_SUBSYSTEM_ISUNARY || o->op == NCL_LOGICAL_NOT;
}

static NclStatus call(const op_info *o, const NclArray *a, NclArray **out)
{
    return o->sub == NCL_SUBSYSTEM_UNARY ? NclUnary((NclUnaryOp)o->op, a, out, NULL)
                                         : NclIsUnary((NclIsUnaryOp)o->op, a, out, NULL);
}

/* ---- test values: raw element bytes ------------------------------------------ */

typedef struct { unsigned char b[8]; } elem;

static elem from_u(uint64_t v, size_t size)
{
    elem e;
    memset(&e, 0, sizeof e);
    /* little- or big-endian alike: narrow through the exact-width type */
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

static double get_d(NclDType t, const void *p)
{
    if (t == NCL_FLOAT32) { float f; memcpy(&f, p, 4); return f; }
    double d;
    memcpy(&d, p, 8);
    return d;
}

/* Integer element as int64 (signed dtypes) or uint64 bits (unsigned). */
static uint64_t get_u(NclDType t, const void *p)
{
    switch (t) {
    case NCL_BOOL: case NCL_UINT8: { uint8_t x; memcpy(&x, p, 1); return x; }
    case NCL_INT8: { int8_t x; memcpy(&x, p, 1); return (uint64_t)(int64_t)x; }
    case NCL_UINT16: { uint16_t x; memcpy(&x, p, 2); return x; }
    case NCL_INT16: { int16_t x; memcpy(&x, p, 2); return (uint64_t)(int64_t)x; }
    case NCL_UINT32: { uint32_t x; memcpy(&x, p, 4); return x; }
    case NCL_INT32: { int32_t x; memcpy(&x, p, 4); return (uint64_t)(int64_t)x; }
    default: { uint64_t x; memcpy(&x, p, 8); return x; }
    }
}

#define MAX_EDGES 96

/* The edge values of dtype t, then (for floats) a few ordinary ones. */
static int edges(NclDType t, elem *v)
{
    int n = 0;
    const size_t sz = NclDTypeSize(t);
    if (t == NCL_BOOL) {
        v[n++] = from_u(0, 1);
        v[n++] = from_u(1, 1);
        return n;
    }
    if (t != NCL_FLOAT32 && t != NCL_FLOAT64) {
        const int bits = (int)sz * 8;
        const uint64_t umax = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
        const uint64_t smin = UINT64_C(1) << (bits - 1); /* MIN's bits when signed */
        static const int64_t small[] = {0, 1, 2, 3, 7, 100, -1, -2, -3, -100};
        for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
            v[n++] = from_u((uint64_t)small[i], sz);
        v[n++] = from_u(umax, sz);           /* -1 / MAX */
        v[n++] = from_u(umax - 1, sz);
        v[n++] = from_u(smin, sz);           /* MIN / 2^(bits-1) */
        v[n++] = from_u(smin + 1, sz);
        v[n++] = from_u(smin - 1, sz);       /* MAX / 2^(bits-1) - 1 */
        v[n++] = from_u(smin - 2, sz);
        return n;
    }
    const int f32 = t == NCL_FLOAT32;
    const double big = f32 ? 8388608.0 : 4503599627370496.0; /* 2^mantissa bits */
    const double vals[] = {
        0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, 0.3, -0.3, 0.7, -0.7,
        2.0, -2.0, 10.0, -10.0, 100.0, -100.0, 1e5, -1e5, 1e20, -1e20, 3.141592653589793,
        1.5707963267948966, 0.999, 1.001, -0.999, 0.9999999, 1.0000001, 1e-10, -1e-10,
        f32 ? 1e-30 : 1e-300, f32 ? 88.0 : 700.0, f32 ? 89.0 : 710.0, f32 ? -104.0 : -746.0,
        f32 ? -150.0 : -1075.0, f32 ? FLT_MIN : DBL_MIN, f32 ? -FLT_MIN : -DBL_MIN,
        f32 ? FLT_TRUE_MIN : DBL_TRUE_MIN, f32 ? -FLT_TRUE_MIN : -DBL_TRUE_MIN,
        f32 ? FLT_MAX : DBL_MAX, f32 ? -FLT_MAX : -DBL_MAX, INFINITY, -INFINITY,
        big, -big, big - 0.5, -(big - 0.5), big + 2.0, big / 2 + 0.5, -(big / 2 + 0.5),
        big * 4, 1e300};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) v[n++] = from_d(t, vals[i]);
    v[n++] = from_d(t, NAN);
    v[n++] = from_d(t, copysign(NAN, -1.0));
    /* a denormal that is not the smallest */
    v[n++] = from_d(t, f32 ? 3e-40 : 3e-310);
    uint64_t st = 12345;
    while (n < 80) {
        double r = (double)(ncl_test_rand(&st) >> 11) / 9007199254740992.0;
        const double scale = n % 2 ? 6.0 : 1.0;
        v[n++] = from_d(t, (r * 2 - 1) * scale);
    }
    return n;
}

/* ---- the reference ------------------------------------------------------------- */

static int hw_flags(void)
{
    int e = fetestexcept(FE_ALL_EXCEPT), f = 0;
    if (e & FE_DIVBYZERO) f |= NCL_FPE_DIVIDE;
    if (e & FE_OVERFLOW) f |= NCL_FPE_OVERFLOW;
    if (e & FE_UNDERFLOW) f |= NCL_FPE_UNDERFLOW;
    if (e & FE_INVALID) f |= NCL_FPE_INVALID;
    return f;
}

/* Integer ops, modulo 2^bits; inputs as int64 (signed) or uint64 (unsigned)
   bits. The wrap is done in uint64 and truncated to the dtype by from_u. */
static uint64_t ref_int(int op, NclDType t, uint64_t x, int *flags)
{
    const int sgn = kind_of(t) == K_SINT;
    const int64_t sx = (int64_t)x;
    switch (op) {
    case NCL_NEGATIVE: return 0u - x;
    case NCL_POSITIVE: case NCL_CONJUGATE: return x;
    case NCL_ABSOLUTE: return (t == NCL_BOOL) ? (x != 0) : (sgn && sx < 0) ? 0u - x : x;
    case NCL_SIGN: return sgn ? (uint64_t)(int64_t)((sx > 0) - (sx < 0)) : (x != 0);
    case NCL_SQUARE: return x * x;
    case NCL_RECIPROCAL:
        if (x == 0) *flags |= NCL_FPE_DIVIDE;
        return x == 1 ? 1 : (sgn && sx == -1) ? x : 0;
    case NCL_INVERT: return t == NCL_BOOL ? (x == 0) : ~x;
    default: ck_abort_msg("ref_int: op %d", op); return 0;
    }
}

static double ref_float(int op, double x)
{
    switch (op) {
    case NCL_NEGATIVE: return -x;
    case NCL_POSITIVE: return x;
    case NCL_ABSOLUTE: return fabs(x);
    case NCL_SIGN: return x != x ? x : x == 0 ? 0.0 : (x > 0 ? 1.0 : -1.0);
    case NCL_SQUARE: return x * x;
    case NCL_RECIPROCAL: return 1.0 / x;
    case NCL_SQRT: return sqrt(x);
    case NCL_FLOOR: return floor(x);
    case NCL_CEIL: return ceil(x);
    case NCL_TRUNC: return trunc(x);
    case NCL_RINT: return rint(x);
    /* NumPy's constants: pi/180 and 180/pi rounded to double */
    case NCL_DEG2RAD: return x * 0x1.1df46a2529d39p-6;
    case NCL_RAD2DEG: return x * 0x1.ca5dc1a63c1f8p+5;
    /* NumPy: the least subnormal for both zeros, NaN for both infinities */
    case NCL_SPACING:
        return isinf(x) ? NAN : x == 0 ? DBL_TRUE_MIN : nextafter(x, copysign(INFINITY, x)) - x;
    case NCL_CONJUGATE: return x;
    case NCL_FABS: return fabs(x);
    default: ck_abort_msg("ref_float: op %d", op); return 0;
    }
}

static float ref_float32(int op, float x)
{
    switch (op) {
    case NCL_NEGATIVE: return -x;
    case NCL_POSITIVE: return x;
    case NCL_ABSOLUTE: return fabsf(x);
    case NCL_SIGN: return x != x ? x : x == 0 ? 0.0f : (x > 0 ? 1.0f : -1.0f);
    case NCL_SQUARE: return x * x;
    case NCL_RECIPROCAL: return 1.0f / x;
    case NCL_SQRT: return sqrtf(x);
    case NCL_FLOOR: return floorf(x);
    case NCL_CEIL: return ceilf(x);
    case NCL_TRUNC: return truncf(x);
    case NCL_RINT: return rintf(x);
    /* NumPy's float constants: pi/180 and 180/pi divided in float */
    case NCL_DEG2RAD: return x * 0x1.1df46ap-6f;
    case NCL_RAD2DEG: return x * 0x1.ca5dcp+5f;
    case NCL_SPACING:
        return isinf(x) ? NAN : x == 0 ? FLT_TRUE_MIN : nextafterf(x, copysignf(INFINITY, x)) - x;
    case NCL_CONJUGATE: return x;
    case NCL_FABS: return fabsf(x);
    default: ck_abort_msg("ref_float32: op %d", op); return 0;
    }
}

static long double ref_libm(int op, long double x)
{
    switch (op) {
    case NCL_CBRT: return cbrtl(x);
    case NCL_EXP: return expl(x);
    case NCL_EXP2: return exp2l(x);
    case NCL_EXPM1: return expm1l(x);
    case NCL_LOG: return logl(x);
    case NCL_LOG2: return log2l(x);
    case NCL_LOG10: return log10l(x);
    case NCL_LOG1P: return log1pl(x);
    case NCL_SIN: return sinl(x);
    case NCL_COS: return cosl(x);
    case NCL_TAN: return tanl(x);
    case NCL_ARCSIN: return asinl(x);
    case NCL_ARCCOS: return acosl(x);
    case NCL_ARCTAN: return atanl(x);
    case NCL_SINH: return sinhl(x);
    case NCL_COSH: return coshl(x);
    case NCL_TANH: return tanhl(x);
    case NCL_ARCSINH: return asinhl(x);
    case NCL_ARCCOSH: return acoshl(x);
    case NCL_ARCTANH: return atanhl(x);
    default: ck_abort_msg("ref_libm: op %d", op); return 0;
    }
}

/* Error of got against the wider reference, in ulps of dtype t at ref.
   Special values (NaN, inf, zero, overflow) must match exactly: returns
   -1 when they do not. */
static double ulp_error(NclDType t, double got, long double ref)
{
    const int f32 = t == NCL_FLOAT32;
    const double rounded = f32 ? (double)(float)ref : (double)ref;
    if (isnan(rounded) || isnan(got)) return isnan(rounded) && isnan(got) ? 0 : -1;
    if (isinf(rounded) || isinf(got) || rounded == 0 || got == 0)
        return (got == rounded && signbit(got) == signbit(rounded)) ? 0 : -1;
    const int p = f32 ? 24 : 53, emin = f32 ? -126 : -1022;
    int e;
    frexpl(ref, &e);
    e -= 1;
    if (e < emin) e = emin;
    return (double)(fabsl((long double)got - ref) / ldexpl(1.0L, e - p + 1));
}

/* Checks out[i] = op(in[i]) and returns the flags the reference raised
   (for the exact ops; 0 for libm ops, whose flags are checked by rule). */
static int check_element(const op_info *o, NclDType t, const void *in, const void *out,
                         const char *where, int64_t i)
{
    int flags = 0;
    const NclDType ot = out_is_bool(o) ? NCL_BOOL : t;
    if (o->sub == NCL_SUBSYSTEM_ISUNARY || o->op == NCL_LOGICAL_NOT) {
        int want;
        if (kind_of(t) != K_FLOAT) {
            const uint64_t x = get_u(t, in);
            want = o->op == NCL_LOGICAL_NOT && o->sub == NCL_SUBSYSTEM_UNARY ? x == 0
                   : o->op == NCL_IS_FINITE;
        } else {
            const double x = get_d(t, in);
            if (o->sub == NCL_SUBSYSTEM_UNARY) want = x == 0;
            else if (o->op == NCL_IS_NAN) want = isnan(x) != 0;
            else if (o->op == NCL_IS_INF) want = isinf(x) != 0;
            else if (o->op == NCL_IS_FINITE) want = isfinite(x) != 0;
            else want = signbit(x) != 0;
        }
        const uint64_t got = get_u(NCL_BOOL, out);
        ck_assert_msg(got == (uint64_t)want, "%s(%s) %s element %lld: got %llu, want %d", o->name,
                      NclDTypeName(t), where, (long long)i, (unsigned long long)got, want);
        return 0;
    }
    if (kind_of(t) != K_FLOAT) {
        const uint64_t want = get_u(ot, from_u(ref_int(o->op, t, get_u(t, in), &flags),
                                                NclDTypeSize(t)).b);
        const uint64_t got = get_u(ot, out);
        ck_assert_msg(got == want, "%s(%s) %s element %lld (input 0x%llx): got 0x%llx, want 0x%llx",
                      o->name, NclDTypeName(t), where, (long long)i,
                      (unsigned long long)get_u(t, in), (unsigned long long)got,
                      (unsigned long long)want);
        return flags;
    }
    const double x = get_d(t, in), got = get_d(t, out);
    if (o->libm) {
        const double err = ulp_error(t, got, ref_libm(o->op, (long double)x));
        ck_assert_msg(err >= 0 && err <= 1.0 + 1.0 / 512,
                      "%s(%s) %s element %lld: %s(%.17g) = %.17g, %.3f ulp from the exact %.21Lg",
                      o->name, NclDTypeName(t), where, (long long)i, o->name, x, got, err,
                      ref_libm(o->op, (long double)x));
        return 0;
    }
    feclearexcept(FE_ALL_EXCEPT);
    elem want;
    if (t == NCL_FLOAT32) {
        const float r = ref_float32(o->op, (float)x);
        memcpy(want.b, &r, 4);
    } else {
        const double r = ref_float(o->op, x);
        memcpy(want.b, &r, 8);
    }
    flags = hw_flags();
    const double w = get_d(t, want.b);
    const int same = (isnan(w) && isnan(got)) || !memcmp(want.b, out, NclDTypeSize(t));
    ck_assert_msg(same, "%s(%s) %s element %lld: %s(%.17g) = %.17g, want %.17g", o->name,
                  NclDTypeName(t), where, (long long)i, o->name, x, got, w);
    /* negative and absolute act on the sign bit of NaN too, as NumPy */
    if (isnan(w) && (o->op == NCL_NEGATIVE || o->op == NCL_ABSOLUTE))
        ck_assert_msg(signbit(w) == signbit(got), "%s(%s): sign of NaN", o->name, NclDTypeName(t));
    return flags;
}

/* The libm ops raise what glibc raises; what can be checked by rule: no
   INVALID unless a NaN came from a non-NaN, no DIVIDE or OVERFLOW unless an
   infinity came from a finite input, nothing at all for NaN inputs. */
static int libm_flags_allowed(NclDType t, const void *in, const void *out)
{
    const double x = get_d(t, in), y = get_d(t, out);
    int allowed = NCL_FPE_UNDERFLOW;
    if (isnan(y) && !isnan(x)) allowed |= NCL_FPE_INVALID;
    if (isinf(y) && isfinite(x)) allowed |= NCL_FPE_DIVIDE | NCL_FPE_OVERFLOW;
    if (isnan(x)) allowed = 0;
    return allowed;
}

/* ---- the matrix ---------------------------------------------------------------- */

static const NclDType all_types[] = {NCL_BOOL, NCL_INT8, NCL_INT16, NCL_INT32, NCL_INT64,
                                     NCL_UINT8, NCL_UINT16, NCL_UINT32, NCL_UINT64,
                                     NCL_FLOAT32, NCL_FLOAT64};
static const int64_t lengths[] = {0, 1, 7, 8, 9, 1031};
static const int strides[] = {1, 2, -1, 0};

/* An input of n elements of t, element i = v[(i + shift) % nv], with the
   given stride (in elements; 0 = one element broadcast). */
static NclArray *make_input(NclDType t, const elem *v, int nv, int64_t n, int stride, int shift)
{
    const size_t sz = NclDTypeSize(t);
    if (stride == 0) {
        NclArray *one = ncl_test_new(t, 1, NCL_DIMS(1));
        memcpy(NclArrayData(one), v[shift % nv].b, sz);
        NclArray *b = ncl_test_broadcast(one, 1, NCL_DIMS(n));
        NclArrayRelease(one);
        return b;
    }
    const int64_t span = n * (stride < 0 ? 1 : stride);
    NclArray *base = ncl_test_new(t, 1, NCL_DIMS(span > 0 ? span : 0));
    NclArray *view = NULL;
    int64_t start = stride < 0 ? INT64_MIN : 0;
    NCL_CHECK_OK(NclArraySlice(base, &start, NCL_DIMS(INT64_MIN), NCL_DIMS(stride), &view));
    NclArrayRelease(base);
    ck_assert_int_eq(NclArraySize(view), n);
    for (int64_t i = 0; i < n; i++) memcpy(ncl_test_ptr(view, i), v[(i + shift) % nv].b, sz);
    return view;
}

static void run_matrix(const op_info *o, NclDType t)
{
    elem v[MAX_EDGES];
    const int nv = edges(t, v);
    const NclDType ot = out_is_bool(o) ? NCL_BOOL : t;
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
        for (size_t si = 0; si < sizeof strides / sizeof strides[0]; si++) {
            const int64_t n = lengths[li];
            const int stride = strides[si];
            /* the shift walks every edge value through every lane position;
               a broadcast input takes one value per length */
            int shifts = n == 0 ? 1 : (nv + (int)n - 1) / (int)n;
            if (stride == 0) shifts = (n == 1 || n == 9) ? nv : 3;
            for (int s = 0; s < shifts; s++) {
                const int shift = stride == 0 ? s * (nv / shifts) : s * (int)n;
                NclArray *a = make_input(t, v, nv, n, stride, shift);
                NclArray *out = NULL;
                NCL_CHECK_OK(call(o, a, &out));
                ck_assert_msg(NclArrayDType(out) == ot, "%s(%s) gave %s", o->name, NclDTypeName(t),
                              NclDTypeName(NclArrayDType(out)));
                ck_assert_int_eq(NclArraySize(out), n);
                const int got_flags = NclGetFPErrors();
                char where[64];
                snprintf(where, sizeof where, "n=%lld stride=%d", (long long)n, stride);
                int want_flags = 0, allowed = 0;
                for (int64_t i = 0; i < n; i++) {
                    const char *ip = ncl_test_ptr(a, i), *op = ncl_test_ptr(out, i);
                    want_flags |= check_element(o, t, ip, op, where, i);
                    if (o->libm) allowed |= libm_flags_allowed(t, ip, op);
                }
                if (o->libm)
                    ck_assert_msg((got_flags & ~allowed) == 0,
                                  "%s(%s) %s: flags 0x%x raised, only 0x%x explicable", o->name,
                                  NclDTypeName(t), where, got_flags, allowed);
                else
                    ck_assert_msg(got_flags == want_flags, "%s(%s) %s: flags 0x%x, want 0x%x",
                                  o->name, NclDTypeName(t), where, got_flags, want_flags);
                NclArrayRelease(out);
                NclArrayRelease(a);
            }
        }
    }
}

START_TEST(t_matrix)
{
    const op_info *o = &ops[_i];
    for (size_t k = 0; k < sizeof all_types / sizeof all_types[0]; k++)
        if (o->kinds & kind_of(all_types[k])) run_matrix(o, all_types[k]);
}
END_TEST

/* Per element, one at a time: flags belong to that element alone. */
START_TEST(t_flags_per_element)
{
    const op_info *o = &ops[_i];
    for (size_t k = 0; k < sizeof all_types / sizeof all_types[0]; k++) {
        const NclDType t = all_types[k];
        if (!(o->kinds & kind_of(t))) continue;
        elem v[MAX_EDGES];
        const int nv = edges(t, v);
        for (int j = 0; j < nv; j++) {
            NclArray *a = make_input(t, v, nv, 1, 1, j), *out = NULL;
            NCL_CHECK_OK(call(o, a, &out));
            const int got = NclGetFPErrors();
            const int want = check_element(o, t, NclArrayData(a), NclArrayData(out), "alone", 0);
            if (o->libm) {
                const int allowed = libm_flags_allowed(t, NclArrayData(a), NclArrayData(out));
                ck_assert_msg((got & ~allowed) == 0, "%s(%s) of %.17g raised 0x%x", o->name,
                              NclDTypeName(t), get_d(t, NclArrayData(a)), got);
            } else {
                ck_assert_msg(got == want, "%s(%s) element %d alone: flags 0x%x, want 0x%x",
                              o->name, NclDTypeName(t), j, got, want);
            }
            NclArrayRelease(out);
            NclArrayRelease(a);
        }
    }
}
END_TEST

/* Transcendental ops on many ordinary values: within 1 ulp of the exact
   result (SPEC §7), with a long double evaluation as the exact one (its own
   error is a few 2^-64, well under the 1/512 ulp of slack). */
START_TEST(t_accuracy)
{
    const op_info *o = &ops[_i];
    if (!o->libm) return;
    enum { N = 12288 };
    for (int k = 0; k < 2; k++) {
        const NclDType t = k ? NCL_FLOAT64 : NCL_FLOAT32;
        NclArray *a = ncl_test_new(t, 1, NCL_DIMS(N)), *out = NULL;
        uint64_t st = 0x5eed + (uint64_t)_i;
        for (int64_t i = 0; i < N; i++) {
            const double r = (double)(ncl_test_rand(&st) >> 11) / 9007199254740992.0;
            double x;
            switch (i % 4) {
            case 0: x = r * 4 - 2; break;                                /* around 0 and ±1 */
            case 1: x = 0.5 + r; break;                                  /* around 1 */
            case 2: x = pow(10.0, r * 10 - 5) * (i % 8 == 2 ? -1 : 1); break; /* magnitudes */
            default: x = r * 40 - 20; break;                             /* exp/sinh range */
            }
            ncl_test_set_d(a, i, x);
        }
        NCL_CHECK_OK(NclUnary((NclUnaryOp)o->op, a, &out, NULL));
        for (int64_t i = 0; i < N; i++) check_element(o, t, ncl_test_ptr(a, i), ncl_test_ptr(out, i), "sweep", i);
        NclArrayRelease(out);
        NclArrayRelease(a);
    }
}
END_TEST

/* ---- semantics pinned one by one ------------------------------------------------ */

/* op on the single value x of dtype t: the result element as raw bits,
   and the flags of the call. */
static elem one(NclUnaryOp op, NclDType t, elem x, int *flags)
{
    NclArray *a = ncl_test_new(t, 1, NCL_DIMS(1)), *out = NULL;
    memcpy(NclArrayData(a), x.b, NclDTypeSize(t));
    NCL_CHECK_OK(NclUnary(op, a, &out, NULL));
    elem r;
    memset(&r, 0, sizeof r);
    memcpy(r.b, NclArrayData(out), NclDTypeSize(NclArrayDType(out)));
    if (flags) *flags = NclGetFPErrors();
    NclArrayRelease(out);
    NclArrayRelease(a);
    return r;
}

static double oned(NclUnaryOp op, NclDType t, double x, int *flags)
{
    elem r = one(op, t, from_d(t, x), flags);
    return get_d(t, r.b);
}

START_TEST(t_integer_reciprocal)
{
    /* NumPy: 1 -> 1, -1 -> -1, |x| >= 2 -> 0. reciprocal(0) is 0 with DIVIDE
       (NumPy 1.24 stores MIN for int32/int64 there and also raises INVALID). */
    static const NclDType ints[] = {NCL_INT8, NCL_INT16, NCL_INT32, NCL_INT64,
                                    NCL_UINT8, NCL_UINT16, NCL_UINT32, NCL_UINT64};
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
        const NclDType t = ints[k];
        const size_t sz = NclDTypeSize(t);
        const int sgn = kind_of(t) == K_SINT;
        int fl;
        NclArray *a = ncl_test_arr_int(t, 1, NCL_DIMS(4), 1, 2, 3, sgn ? -1 : 200), *out = NULL;
        NCL_CHECK_OK(NclUnary(NCL_RECIPROCAL, a, &out, NULL));
        ck_assert_int_eq(NclGetFPErrors(), 0);
        ck_assert_int_eq(ncl_test_get_i(out, 0), 1);
        ck_assert_int_eq(ncl_test_get_i(out, 1), 0);
        ck_assert_int_eq(ncl_test_get_i(out, 2), 0);
        ck_assert_int_eq(ncl_test_get_i(out, 3), sgn ? -1 : 0);
        NclArrayRelease(out);
        NclArrayRelease(a);
        elem r = one(NCL_RECIPROCAL, t, from_u(0, sz), &fl);
        ck_assert_uint_eq(get_u(t, r.b), 0);
        ck_assert_int_eq(fl, NCL_FPE_DIVIDE);
        r = one(NCL_RECIPROCAL, t, from_u(UINT64_C(1) << (sz * 8 - 1), sz), &fl); /* MIN / 2^(n-1) */
        ck_assert_uint_eq(get_u(t, r.b), 0);
        ck_assert_int_eq(fl, 0);
    }
}
END_TEST

START_TEST(t_integer_wrap)
{
    static const NclDType sints[] = {NCL_INT8, NCL_INT16, NCL_INT32, NCL_INT64};
    for (size_t k = 0; k < 4; k++) {
        const NclDType t = sints[k];
        const size_t sz = NclDTypeSize(t);
        const elem min = from_u(UINT64_C(1) << (sz * 8 - 1), sz);
        int fl;
        /* absolute(MIN) and negative(MIN) are MIN, with no flag */
        ck_assert(!memcmp(one(NCL_ABSOLUTE, t, min, &fl).b, min.b, sz));
        ck_assert_int_eq(fl, 0);
        ck_assert(!memcmp(one(NCL_NEGATIVE, t, min, &fl).b, min.b, sz));
        ck_assert_int_eq(fl, 0);
        /* square(MIN) is 0 modulo 2^bits; sign(MIN) is -1 */
        ck_assert_uint_eq(get_u(t, one(NCL_SQUARE, t, min, NULL).b), 0);
        ck_assert_int_eq((int64_t)get_u(t, one(NCL_SIGN, t, min, NULL).b), -1);
        ck_assert_int_eq((int64_t)get_u(t, one(NCL_INVERT, t, min, NULL).b),
                         (int64_t)((UINT64_C(1) << (sz * 8 - 1)) - 1));
    }
    int fl;
    ck_assert_uint_eq(get_u(NCL_UINT8, one(NCL_NEGATIVE, NCL_UINT8, from_u(1, 1), &fl).b), 255);
    ck_assert_int_eq(fl, 0);
    ck_assert_uint_eq(get_u(NCL_UINT64, one(NCL_NEGATIVE, NCL_UINT64, from_u(1, 8), NULL).b),
                      UINT64_MAX);
    ck_assert_uint_eq(get_u(NCL_UINT16, one(NCL_SQUARE, NCL_UINT16, from_u(65535, 2), NULL).b), 1);
    ck_assert_uint_eq(get_u(NCL_INT16, one(NCL_SQUARE, NCL_INT16, from_u(256, 2), NULL).b), 0);
    /* bool: invert is logical not, absolute keeps the value */
    ck_assert_uint_eq(get_u(NCL_BOOL, one(NCL_INVERT, NCL_BOOL, from_u(1, 1), NULL).b), 0);
    ck_assert_uint_eq(get_u(NCL_BOOL, one(NCL_INVERT, NCL_BOOL, from_u(0, 1), NULL).b), 1);
    ck_assert_uint_eq(get_u(NCL_BOOL, one(NCL_ABSOLUTE, NCL_BOOL, from_u(1, 1), NULL).b), 1);
}
END_TEST

START_TEST(t_float_sign_and_nan)
{
    for (int k = 0; k < 2; k++) {
        const NclDType t = k ? NCL_FLOAT64 : NCL_FLOAT32;
        int fl;
        /* sign(NaN) is NaN with no flag; sign(-0.0) is +0.0 as NumPy */
        double r = oned(NCL_SIGN, t, NAN, &fl);
        ck_assert(isnan(r));
        ck_assert_int_eq(fl, 0);
        r = oned(NCL_SIGN, t, -0.0, &fl);
        ck_assert(r == 0 && !signbit(r));
        ck_assert_double_eq(oned(NCL_SIGN, t, -INFINITY, NULL), -1.0);
        ck_assert_double_eq(oned(NCL_SIGN, t, 1e-310, NULL), t == NCL_FLOAT64 ? 1.0 : 0.0);
        ck_assert_double_eq(oned(NCL_SIGN, t, -3.0, NULL), -1.0);
        /* negative(NaN) flips its sign bit, absolute(-NaN) clears it */
        ck_assert(signbit(oned(NCL_NEGATIVE, t, NAN, NULL)));
        ck_assert(!signbit(oned(NCL_ABSOLUTE, t, copysign(NAN, -1.0), NULL)));
        /* logical_not: NaN is true, so its negation is false; -0.0 is false */
        NclArray *a = ncl_test_arr(t, 1, NCL_DIMS(3), NAN, -0.0, 2.0), *out = NULL;
        NCL_CHECK_OK(NclUnary(NCL_LOGICAL_NOT, a, &out, NULL));
        ck_assert_int_eq(NclGetFPErrors(), 0);
        ck_assert_int_eq(ncl_test_get_i(out, 0), 0);
        ck_assert_int_eq(ncl_test_get_i(out, 1), 1);
        ck_assert_int_eq(ncl_test_get_i(out, 2), 0);
        NclArrayRelease(out);
        /* the predicates never raise, NaN or not */
        static const NclIsUnaryOp preds[] = {NCL_IS_NAN, NCL_IS_INF, NCL_IS_FINITE, NCL_SIGNBIT};
        NclArray *b = ncl_test_arr(t, 1, NCL_DIMS(5), NAN, copysign(NAN, -1.0), INFINITY, -0.0, 1.0);
        static const int want[4][5] = {{1, 1, 0, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 1, 1},
                                       {0, 1, 0, 1, 0}};
        for (int p = 0; p < 4; p++) {
            out = NULL;
            NCL_CHECK_OK(NclIsUnary(preds[p], b, &out, NULL));
            ck_assert_int_eq(NclGetFPErrors(), 0);
            for (int i = 0; i < 5; i++) {
                ck_assert_msg(ncl_test_get_i(out, i) == want[p][i], "predicate %d element %d", p, i);
            }
            NclArrayRelease(out);
        }
        NclArrayRelease(b);
        NclArrayRelease(a);
    }
}
END_TEST

START_TEST(t_rounding)
{
    for (int k = 0; k < 2; k++) {
        const NclDType t = k ? NCL_FLOAT64 : NCL_FLOAT32;
        const double big = k ? 4503599627370496.0 : 8388608.0;
        int fl;
        /* rint: halves to even */
        ck_assert_double_eq(oned(NCL_RINT, t, 2.5, NULL), 2.0);
        ck_assert_double_eq(oned(NCL_RINT, t, 3.5, NULL), 4.0);
        ck_assert_double_eq(oned(NCL_RINT, t, -2.5, NULL), -2.0);
        ck_assert_double_eq(oned(NCL_RINT, t, big - 0.5, NULL), big);
        ck_assert_double_eq(oned(NCL_RINT, t, big / 2 + 0.5, NULL), big / 2);
        /* zero results keep the input's sign */
        ck_assert(signbit(oned(NCL_RINT, t, -0.3, NULL)));
        ck_assert(signbit(oned(NCL_CEIL, t, -0.7, NULL)));
        ck_assert(signbit(oned(NCL_TRUNC, t, -0.7, NULL)));
        ck_assert(signbit(oned(NCL_FLOOR, t, -0.0, NULL)));
        ck_assert(!signbit(oned(NCL_FLOOR, t, 0.3, NULL)));
        ck_assert_double_eq(oned(NCL_FLOOR, t, -0.3, NULL), -1.0);
        ck_assert_double_eq(oned(NCL_CEIL, t, 0.3, NULL), 1.0);
        ck_assert_double_eq(oned(NCL_TRUNC, t, -2.7, NULL), -2.0);
        ck_assert_double_eq(oned(NCL_FLOOR, t, -(big - 0.5), NULL), -big);
        /* huge, infinite and NaN values pass through without a flag */
        ck_assert_double_eq(oned(NCL_FLOOR, t, big + 2.0, &fl), big + 2.0);
        ck_assert_int_eq(fl, 0);
        ck_assert_double_eq(oned(NCL_CEIL, t, -INFINITY, &fl), -INFINITY);
        ck_assert_int_eq(fl, 0);
        ck_assert(isnan(oned(NCL_TRUNC, t, NAN, &fl)));
        ck_assert_int_eq(fl, 0);
    }
}
END_TEST

START_TEST(t_fp_flags)
{
    static const struct { NclUnaryOp op; double x; int flags; } cases[] = {
        {NCL_SQRT, -1.0, NCL_FPE_INVALID},       {NCL_SQRT, -0.0, 0},
        {NCL_LOG, 0.0, NCL_FPE_DIVIDE},          {NCL_LOG, -1.0, NCL_FPE_INVALID},
        {NCL_LOG2, -0.0, NCL_FPE_DIVIDE},        {NCL_LOG10, 0.0, NCL_FPE_DIVIDE},
        {NCL_LOG10, -2.0, NCL_FPE_INVALID},      {NCL_LOG1P, -1.0, NCL_FPE_DIVIDE},
        {NCL_LOG1P, -2.0, NCL_FPE_INVALID},      {NCL_EXP, 1000.0, NCL_FPE_OVERFLOW},
        {NCL_EXP, -1000.0, NCL_FPE_UNDERFLOW},   {NCL_EXP2, 2000.0, NCL_FPE_OVERFLOW},
        {NCL_EXPM1, 1000.0, NCL_FPE_OVERFLOW},   {NCL_SINH, 1000.0, NCL_FPE_OVERFLOW},
        {NCL_COSH, -1000.0, NCL_FPE_OVERFLOW},   {NCL_ARCSIN, 2.0, NCL_FPE_INVALID},
        {NCL_ARCCOS, -1.5, NCL_FPE_INVALID},     {NCL_ARCCOSH, 0.5, NCL_FPE_INVALID},
        {NCL_ARCTANH, 1.0, NCL_FPE_DIVIDE},      {NCL_ARCTANH, -1.0, NCL_FPE_DIVIDE},
        {NCL_ARCTANH, 2.0, NCL_FPE_INVALID},     {NCL_SIN, INFINITY, NCL_FPE_INVALID},
        {NCL_COS, -INFINITY, NCL_FPE_INVALID},   {NCL_TAN, INFINITY, NCL_FPE_INVALID},
        {NCL_RECIPROCAL, 0.0, NCL_FPE_DIVIDE},   {NCL_RECIPROCAL, -0.0, NCL_FPE_DIVIDE},
        {NCL_SQUARE, 1e300, NCL_FPE_OVERFLOW},   {NCL_SQUARE, 1e-300, NCL_FPE_UNDERFLOW},
        {NCL_CBRT, -8.0, 0},                     {NCL_TANH, 1000.0, 0},
        {NCL_ARCSINH, -1e300, 0},                {NCL_ARCTAN, INFINITY, 0},
        {NCL_EXP, NAN, 0},                       {NCL_LOG, NAN, 0},
        {NCL_ARCCOSH, NAN, 0},                   {NCL_SINH, NAN, 0},
    };
    for (size_t c = 0; c < 2 * (sizeof cases / sizeof cases[0]); c++) {
        /* each case in the default tier, then in the fast one */
        const size_t tier = c / (sizeof cases / sizeof cases[0]), ci = c % (sizeof cases / sizeof cases[0]);
        NCL_CHECK_OK(NclSetAccuracy(tier ? NCL_ACCURACY_FAST : NCL_ACCURACY_HIGH));
        for (int k = 0; k < 2; k++) {
            const NclDType t = k ? NCL_FLOAT64 : NCL_FLOAT32;
            double x = cases[ci].x;
            if (t == NCL_FLOAT32 && fabs(x) > 1e30 && !isinf(x)) continue;
            if (t == NCL_FLOAT32 && cases[ci].op == NCL_SQUARE) x = x > 1 ? 1e30 : 1e-30;
            /* the caller's own hardware flags are left as they were */
            elem e = from_d(t, x);
            /* The test is compiled without FENV_ACCESS: clang may compute
               from_d's float conversion speculatively (overflowing for a
               float64 case) and move it past feclearexcept. The barrier
               pins it before. */
            __asm__ volatile("" : : "r"(&e) : "memory");
            feclearexcept(FE_ALL_EXCEPT);
            int fl;
            (void)one(cases[ci].op, t, e, &fl);
            ck_assert_msg(fl == cases[ci].flags, "%s(%s) of %g: flags 0x%x, want 0x%x",
                          ops[cases[ci].op].name, NclDTypeName(t), x, fl, cases[ci].flags);
            ck_assert_msg(fetestexcept(FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID) == 0,
                          "%s(%s) of %g left hardware flags set in the caller", ops[cases[ci].op].name,
                          NclDTypeName(t), x);
        }
    }
    NCL_CHECK_OK(NclSetAccuracy(NCL_ACCURACY_HIGH));
}
END_TEST

/* Values at the limits of the vector functions (where the kernels fall back
   to the scalar ones, or leave their window of flagless inputs) and flags
   that depend on the dtype, in both tiers: the
   finite results just below the overflow thresholds, exact subnormal
   results, and subnormal inputs, whose results round to the input. */
START_TEST(t_vector_limits)
{
    static const struct { NclUnaryOp op; NclDType t; double x, want; int flags; } cases[] = {
        {NCL_EXP, NCL_FLOAT64, 709.782712893384, 1.7976931348622732e308, 0},
        {NCL_EXP, NCL_FLOAT64, 709.79, INFINITY, NCL_FPE_OVERFLOW},
        {NCL_EXP, NCL_FLOAT64, -745.2, 0.0, NCL_FPE_UNDERFLOW},
        {NCL_EXP, NCL_FLOAT64, -740.0, 4.2e-322, NCL_FPE_UNDERFLOW},
        /* either side of the end of exp's window (the last normal results) */
        {NCL_EXP, NCL_FLOAT64, -708.0, 3.307553003638408e-308, 0},
        {NCL_EXP, NCL_FLOAT64, -708.5, 2.006132305331306e-308, NCL_FPE_UNDERFLOW},
        {NCL_EXP, NCL_FLOAT32, -87.0, 1.6458114310822737e-38, 0},
        {NCL_EXP, NCL_FLOAT32, -87.5, 9.982350930569248e-39, NCL_FPE_UNDERFLOW},
        {NCL_EXP2, NCL_FLOAT64, -1074.0, 4.9406564584124654e-324, 0},
        {NCL_EXP2, NCL_FLOAT32, -149.0, 1.4012984643248171e-45, 0},
        {NCL_EXP2, NCL_FLOAT32, -149.5, 1.4012984643248171e-45, NCL_FPE_UNDERFLOW},
        {NCL_SINH, NCL_FLOAT64, 710.4758600739439, 1.7976931348621744e308, 0},
        {NCL_COSH, NCL_FLOAT64, -710.4758600739439, 1.7976931348621744e308, 0},
        {NCL_SINH, NCL_FLOAT32, 89.0, 2.2448064095871728e38, 0},
        {NCL_COSH, NCL_FLOAT32, -89.41, 3.3825266562708183e38, 0},
        {NCL_SINH, NCL_FLOAT32, 89.5, INFINITY, NCL_FPE_OVERFLOW},
        {NCL_ARCSINH, NCL_FLOAT64, 1e300, 691.4686750787737, 0},
        {NCL_ARCCOSH, NCL_FLOAT32, 3e38, 89.28999328613281, 0},
        {NCL_LOG1P, NCL_FLOAT64, 1.7976931348623157e308, 709.782712893384, 0},
        {NCL_TAN, NCL_FLOAT64, 4.9406564584124654e-324, 4.9406564584124654e-324, NCL_FPE_UNDERFLOW},
        {NCL_SIN, NCL_FLOAT32, -1e-40, -1e-40, NCL_FPE_UNDERFLOW},
        {NCL_ARCTANH, NCL_FLOAT32, 1e-45, 1e-45, NCL_FPE_UNDERFLOW},
    };
    for (int tier = 0; tier < 2; tier++) {
        NCL_CHECK_OK(NclSetAccuracy(tier ? NCL_ACCURACY_FAST : NCL_ACCURACY_HIGH));
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            const NclDType t = cases[c].t;
            int fl;
            const double y = oned(cases[c].op, t, cases[c].x, &fl);
            const double w = t == NCL_FLOAT32 ? (double)(float)cases[c].want : cases[c].want;
            /* within 4 ulp (the fast tier's bound), or exactly the special
               value */
            const double u = t == NCL_FLOAT32 ? (double)(nextafterf((float)fabs(w), INFINITY) - (float)fabs(w))
                                              : nextafter(fabs(w), INFINITY) - fabs(w);
            const double tol = isinf(w) || w == 0 ? 0 : 4 * u;
            ck_assert_msg(y == w || fabs(y - w) <= tol,
                          "%s(%s) of %.17g = %.17g, want %.17g (%s tier)", ops[cases[c].op].name,
                          NclDTypeName(t), cases[c].x, y, w, tier ? "fast" : "high");
            ck_assert_msg(fl == cases[c].flags, "%s(%s) of %.17g: flags 0x%x, want 0x%x (%s tier)",
                          ops[cases[c].op].name, NclDTypeName(t), cases[c].x, fl, cases[c].flags,
                          tier ? "fast" : "high");
        }
    }
    NCL_CHECK_OK(NclSetAccuracy(NCL_ACCURACY_HIGH));
}
END_TEST

/* Subnormal inputs through whole vectors, in both tiers: sin x rounds to x
   and raises UNDERFLOW, cos x is 1 with no flag. NCLib's own sin and cos
   give these results in their vector kernels (only SLEEF's functions send
   subnormal lanes to the scalar ones), so every float32 subnormal of both
   signs is checked, and for float64 the extremes and 2^16 spread over the
   range. */
static void check_subnormals(NclDType t, const NclArray *a, int64_t n)
{
    const size_t sz = NclDTypeSize(t);
    NclArray *out = NULL;
    NCL_CHECK_OK(NclUnary(NCL_SIN, a, &out, NULL));
    ck_assert_int_eq(NclGetFPErrors(), NCL_FPE_UNDERFLOW);
    /* the first element that differs (a check per element would log each) */
    const char *x = NclArrayData(a), *y = NclArrayData(out);
    int64_t i = 0;
    while (i < n && memcmp(x + i * (int64_t)sz, y + i * (int64_t)sz, sz) == 0) i++;
    const int64_t k = i < n ? i : 0; /* the message's arguments are evaluated anyway */
    ck_assert_msg(i == n, "sin(%s) of %a is %a, not the input", NclDTypeName(t),
                  ncl_test_get_d(a, k), ncl_test_get_d(out, k));
    NclArrayRelease(out);
    out = NULL;
    NCL_CHECK_OK(NclUnary(NCL_COS, a, &out, NULL));
    ck_assert_int_eq(NclGetFPErrors(), 0);
    i = 0;
    while (i < n && ncl_test_get_d(out, i) == 1.0) i++;
    ck_assert_msg(i == n, "cos(%s) of %a is %a, not 1", NclDTypeName(t),
                  ncl_test_get_d(a, i < n ? i : 0), ncl_test_get_d(out, i < n ? i : 0));
    NclArrayRelease(out);
}

START_TEST(t_subnormal_inputs)
{
    const int64_t n32 = 2 * ((INT64_C(1) << 23) - 1), n64 = 2 * ((INT64_C(1) << 16) + 2);
    NclArray *a32 = ncl_test_new(NCL_FLOAT32, 1, &n32), *a64 = ncl_test_new(NCL_FLOAT64, 1, &n64);
    uint32_t *b32 = NclArrayData(a32);
    for (int64_t i = 0; i < n32 / 2; i++) {
        b32[2 * i] = (uint32_t)(i + 1);
        b32[2 * i + 1] = (uint32_t)(i + 1) | UINT32_C(0x80000000);
    }
    uint64_t *b64 = NclArrayData(a64), seed = 99;
    for (int64_t i = 0; i < n64 / 2; i++) {
        uint64_t m = i == 0 ? 1 : i == 1 ? (UINT64_C(1) << 52) - 1 : 0;
        while (m == 0) m = ncl_test_rand(&seed) >> (12 + ncl_test_rand(&seed) % 52);
        b64[2 * i] = m;
        b64[2 * i + 1] = m | (UINT64_C(1) << 63);
    }
    for (int tier = 0; tier < 2; tier++) {
        NCL_CHECK_OK(NclSetAccuracy(tier ? NCL_ACCURACY_FAST : NCL_ACCURACY_HIGH));
        check_subnormals(NCL_FLOAT32, a32, n32);
        check_subnormals(NCL_FLOAT64, a64, n64);
    }
    NCL_CHECK_OK(NclSetAccuracy(NCL_ACCURACY_HIGH));
    NclArrayRelease(a64);
    NclArrayRelease(a32);
}
END_TEST

/* Long contiguous runs against the same elements in short calls: a run of
   at least three vectors takes the two-stage (software-pipelined) loop
   where the function has one (float32 sin and cos, default tier, AVX-512),
   and long blocks in place; calls of 40 elements take the plain loop. The
   results must be the same bits and the flags the same, with inputs
   outside the vector window (inf, NaN, |x| >= 2^18, subnormals) in some
   runs, and the data at offsets that leave no vector aligned. */
static void check_runs_against_short_calls(NclUnaryOp op, const char *name, NclDType t, int64_t n,
                                           size_t offset, int specials, uint64_t *seed)
{
    const size_t sz = NclDTypeSize(t);
    NclArray *a = ncl_test_new_offset(t, 1, &n, offset), *out = NULL;
    ncl_test_fill_random(a, seed, 300.0);
    if (specials) {
        static const double sp[] = {INFINITY, -NAN, 0x1p18, -0x1p20, 1e-40, -0.0, 3e38};
        for (size_t k = 0; k < sizeof sp / sizeof sp[0]; k++)
            ncl_test_set_d(a, (int64_t)(ncl_test_rand(seed) % (uint64_t)n), sp[k]);
    }
    NCL_CHECK_OK(NclUnary(op, a, &out, NULL));
    const int got_flags = NclGetFPErrors();
    int want_flags = 0;
    for (int64_t i = 0; i < n; i += 40) {
        const int64_t m = n - i < 40 ? n - i : 40;
        NclArray *part = NULL, *pout = NULL;
        NCL_CHECK_OK(NclArraySlice(a, &i, NCL_DIMS(i + m), NULL, &part));
        NCL_CHECK_OK(NclUnary(op, part, &pout, NULL));
        want_flags |= NclGetFPErrors();
        const char *y = NclArrayData(out), *w = NclArrayData(pout);
        for (int64_t k = 0; k < m; k++)
            ck_assert_msg(memcmp(y + (i + k) * (int64_t)sz, w + k * (int64_t)sz, sz) == 0,
                          "%s(%s) n=%lld offset %zu: element %lld of %a is %a in the run, %a "
                          "alone", name, NclDTypeName(t), (long long)n, offset,
                          (long long)(i + k), ncl_test_get_d(a, i + k), ncl_test_get_d(out, i + k),
                          ncl_test_get_d(pout, k));
        NclArrayRelease(pout);
        NclArrayRelease(part);
    }
    ck_assert_msg(got_flags == want_flags, "%s(%s) n=%lld: flags 0x%x in the run, 0x%x in parts",
                  name, NclDTypeName(t), (long long)n, got_flags, want_flags);
    NclArrayRelease(out);
    NclArrayRelease(a);
}

START_TEST(t_long_runs)
{
    static const NclUnaryOp fops[] = {NCL_SIN, NCL_COS, NCL_EXP, NCL_LOG};
    static const char *const fnames[] = {"sin", "cos", "exp", "log"};
    static const int64_t run_lengths[] = {47, 48, 49, 50, 511, 512, 513, 2047, 2048, 2049, 2096, 5000};
    uint64_t seed = 2024;
    for (int tier = 0; tier < 2; tier++) {
        NCL_CHECK_OK(NclSetAccuracy(tier ? NCL_ACCURACY_FAST : NCL_ACCURACY_HIGH));
        for (size_t f = 0; f < sizeof fops / sizeof fops[0]; f++)
            for (int dt = 0; dt < 2; dt++)
                for (size_t l = 0; l < sizeof run_lengths / sizeof run_lengths[0]; l++)
                    check_runs_against_short_calls(fops[f], fnames[f],
                                                   dt ? NCL_FLOAT64 : NCL_FLOAT32, run_lengths[l],
                                                   (l % 3) * 4 + 16 * (l % 2), (int)(l % 2), &seed);
    }
    NCL_CHECK_OK(NclSetAccuracy(NCL_ACCURACY_HIGH));
}
END_TEST

/* A provided output with a negative stride, and an in-place call. */
START_TEST(t_provided_and_in_place)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(9), -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -0.0, 9.75);
    NclArray *base = ncl_test_new(NCL_FLOAT64, 1, NCL_DIMS(9)), *rev = NULL;
    int64_t start = INT64_MIN;
    NCL_CHECK_OK(NclArraySlice(base, &start, NCL_DIMS(INT64_MIN), NCL_DIMS(-1), &rev));
    NclArray *o = rev;
    NCL_CHECK_OK(NclUnary(NCL_FLOOR, a, &o, NULL));
    ck_assert_ptr_eq(o, rev);
    NclArray *want = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(9), -3, -2, -1, 0, 1, 2, 3, -0.0, 9);
    NCL_CHECK_ARRAYS(rev, want, NCL_TEST_SIGNED_ZERO, 0);
    o = a;
    NCL_CHECK_OK(NclUnary(NCL_FLOOR, a, &o, NULL));
    NCL_CHECK_ARRAYS(a, want, NCL_TEST_SIGNED_ZERO, 0);
    NclArray *ia = ncl_test_arr_int(NCL_INT32, 1, NCL_DIMS(3), INT32_MIN, -5, 7);
    o = ia;
    NCL_CHECK_OK(NclUnary(NCL_ABSOLUTE, ia, &o, NULL));
    NclArray *iw = ncl_test_arr_int(NCL_INT32, 1, NCL_DIMS(3), INT32_MIN, 5, 7);
    NCL_CHECK_ARRAYS_EQUAL(ia, iw);
    NclArrayRelease(iw);
    NclArrayRelease(ia);
    NclArrayRelease(want);
    NclArrayRelease(rev);
    NclArrayRelease(base);
    NclArrayRelease(a);
}
END_TEST

static Suite *unary_kernels_suite(void)
{
    Suite *s = suite_create("unary_kernels");
    TCase *tc = ncl_test_tcase(s, "matrix");
    tcase_add_loop_test(tc, t_matrix, 0, NOPS);
    tcase_add_loop_test(tc, t_flags_per_element, 0, NOPS);
    tcase_add_loop_test(tc, t_accuracy, 0, NOPS);
    tc = ncl_test_tcase(s, "semantics");
    tcase_add_test(tc, t_integer_reciprocal);
    tcase_add_test(tc, t_integer_wrap);
    tcase_add_test(tc, t_float_sign_and_nan);
    tcase_add_test(tc, t_rounding);
    tcase_add_test(tc, t_fp_flags);
    tcase_add_test(tc, t_vector_limits);
    tcase_add_test(tc, t_subnormal_inputs);
    tcase_add_test(tc, t_long_runs);
    tcase_add_test(tc, t_provided_and_in_place);
    return s;
}

NCL_TEST_MAIN(unary_kernels_suite)
