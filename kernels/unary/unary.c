/*
 * unary.c: NCLib's built-in inner loops of the Unary subsystem (SPEC §7),
 * one strided loop per (op, dtype) over the scalar functions of
 * unary_ops.h, and the table ncl_k_unary_table that puts each loop at the
 * tail of its level-2 chain.
 *
 * The loops are NumPy 1.24's ufunc.types without float16: arithmetic ops on
 * the eight integers and both floats, absolute and logical_not on all eleven
 * dtypes, invert on bool and the integers, the libm functions and the
 * rounding functions on float32/float64 only (the framework casts integer
 * inputs to the float loop NumPy's type resolution picks), and frexp and
 * modf, whose loops write two outputs. Nothing here
 * validates: the framework has resolved dtypes and planned the call.
 */
#include <fenv.h>
#include "unary_ops.h"
#include "unary_sleef.h"

/* Dtype groups of the loop lists: X(OP, op, sfx, T, E). */
#define SINTS_(X, OP, op)                                                 \
    X(OP, op, i8, int8_t, NCL_INT8) X(OP, op, i16, int16_t, NCL_INT16)   \
    X(OP, op, i32, int32_t, NCL_INT32) X(OP, op, i64, int64_t, NCL_INT64)
#define UINTS_(X, OP, op)                                                 \
    X(OP, op, u8, uint8_t, NCL_UINT8) X(OP, op, u16, uint16_t, NCL_UINT16) \
    X(OP, op, u32, uint32_t, NCL_UINT32) X(OP, op, u64, uint64_t, NCL_UINT64)
#define INTS_(X, OP, op) SINTS_(X, OP, op) UINTS_(X, OP, op)
#define F32_(X, OP, op) X(OP, op, f32, float, NCL_FLOAT32)
#define F64_(X, OP, op) X(OP, op, f64, double, NCL_FLOAT64)
#define FLOATS_(X, OP, op) F32_(X, OP, op) F64_(X, OP, op)
#define BOOL_(X, OP, op) X(OP, op, b, ncl_bool, NCL_BOOL)
#define NUMBERS_(X, OP, op) INTS_(X, OP, op) FLOATS_(X, OP, op)
#define ALL_(X, OP, op) BOOL_(X, OP, op) NUMBERS_(X, OP, op)

/* Every (T) -> T loop but the transcendental functions. */
#define UNARY_SAME_LOOPS(X)                                                   \
    NUMBERS_(X, NCL_NEGATIVE, negative)                                       \
    NUMBERS_(X, NCL_POSITIVE, positive)                                       \
    ALL_(X, NCL_ABSOLUTE, absolute)                                           \
    NUMBERS_(X, NCL_SIGN, sign)                                               \
    NUMBERS_(X, NCL_SQUARE, square)                                           \
    NUMBERS_(X, NCL_RECIPROCAL, reciprocal)                                   \
    FLOATS_(X, NCL_FLOOR, floor)     FLOATS_(X, NCL_CEIL, ceil)               \
    FLOATS_(X, NCL_TRUNC, trunc)     FLOATS_(X, NCL_RINT, rint)               \
    BOOL_(X, NCL_INVERT, invert) INTS_(X, NCL_INVERT, invert)              \
    FLOATS_(X, NCL_DEG2RAD, deg2rad) FLOATS_(X, NCL_RAD2DEG, rad2deg)         \
    FLOATS_(X, NCL_SPACING, spacing) NUMBERS_(X, NCL_CONJUGATE, conjugate)    \
    FLOATS_(X, NCL_FABS, fabs)

/* sqrt, the same kind of loop, streamed from registers where it pays (below). */
#define UNARY_SQRT_LOOPS(X) FLOATS_(X, NCL_SQRT, sqrt)

/* The transcendental functions. Where the target has SIMD they are SLEEF's
   vector functions (unary_sleef.h, which also uses the scalar functions for
   inputs SLEEF is not trusted on); elsewhere scalar libm loops: float32 and
   these float64 ones evaluated in their own dtype (float32 via double,
   unary_ops.h)... */
#define UNARY_MATH_LOOPS(X)                                                   \
    F32_(X, NCL_CBRT, cbrt)                                                   \
    FLOATS_(X, NCL_EXP, exp)         FLOATS_(X, NCL_EXP2, exp2)               \
    FLOATS_(X, NCL_EXPM1, expm1)     FLOATS_(X, NCL_LOG, log)                 \
    FLOATS_(X, NCL_LOG2, log2)       F32_(X, NCL_LOG10, log10)                \
    FLOATS_(X, NCL_LOG1P, log1p)     FLOATS_(X, NCL_SIN, sin)                 \
    FLOATS_(X, NCL_COS, cos)         FLOATS_(X, NCL_TAN, tan)                 \
    FLOATS_(X, NCL_ARCSIN, arcsin)   FLOATS_(X, NCL_ARCCOS, arccos)           \
    FLOATS_(X, NCL_ARCTAN, arctan)   F32_(X, NCL_SINH, sinh)                  \
    F32_(X, NCL_COSH, cosh)          F32_(X, NCL_TANH, tanh)                  \
    F32_(X, NCL_ARCSINH, arcsinh)    F32_(X, NCL_ARCCOSH, arccosh)            \
    F32_(X, NCL_ARCTANH, arctanh)

/* ... and these float64 ones in long double. */
#define UNARY_LDBL_LOOPS(X)                                                   \
    F64_(X, NCL_CBRT, cbrt)       F64_(X, NCL_LOG10, log10)                   \
    F64_(X, NCL_SINH, sinh)       F64_(X, NCL_COSH, cosh)                     \
    F64_(X, NCL_TANH, tanh)       F64_(X, NCL_ARCSINH, arcsinh)               \
    F64_(X, NCL_ARCCOSH, arccosh) F64_(X, NCL_ARCTANH, arctanh)

/* Every (T) -> bool loop. */
#define UNARY_BOOL_LOOPS(X) ALL_(X, NCL_LOGICAL_NOT, logical_not)

#if !NCL_UNARY_SLEEF && NCL_UNARY_F64_VIA_X87
/* The framework samples MXCSR only, and the x87 keeps its own sticky
   flags: run the loop in a clean FP environment, report what it raised
   (x87 and SSE, through fetestexcept) via the flag sink, and put the
   environment back exactly as it was, so that neither the caller's x87
   flags nor the framework's view of MXCSR changes. Once per block, not per
   element. */
static NclStatus run_fenv_isolated(NclKernelFn loop, NclKernelNode *self, const NclKernelCtx *ctx,
                                   char *const *args, int64_t n, const int64_t *steps)
{
    fenv_t env;
    int fpe = 0, raised;
    NclKernelCtx inner = *ctx;
    inner.fpe = &fpe;
    fegetenv(&env);
    feclearexcept(FE_ALL_EXCEPT);
    NclStatus s = loop(self, &inner, args, n, steps);
    raised = fetestexcept(FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID);
    fesetenv(&env);
    fpe |= (raised & FE_DIVBYZERO ? NCL_FPE_DIVIDE : 0) | (raised & FE_OVERFLOW ? NCL_FPE_OVERFLOW : 0) |
           (raised & FE_UNDERFLOW ? NCL_FPE_UNDERFLOW : 0) | (raised & FE_INVALID ? NCL_FPE_INVALID : 0);
    if (fpe) *ctx->fpe |= fpe;
    return s;
}
#  define KERNEL_LDBL_(OP, op, sfx, T, E)                                                   \
    NCL_DEFINE_UNARY_KERNEL(op##_##sfx##_ldbl_loop, T, T, op_##op##_##sfx)                   \
    static NclStatus ncl_k_##op##_##sfx(NclKernelNode *self, const NclKernelCtx *ctx,         \
                                        char *const *args, int64_t n, const int64_t *steps) \
    { return run_fenv_isolated(op##_##sfx##_ldbl_loop, self, ctx, args, n, steps); }
#else
#  define KERNEL_LDBL_(OP, op, sfx, T, E) NCL_DEFINE_UNARY_KERNEL(ncl_k_##op##_##sfx, T, T, op_##op##_##sfx)
#endif

#define KERNEL_SAME_(OP, op, sfx, T, E) NCL_DEFINE_UNARY_KERNEL(ncl_k_##op##_##sfx, T, T, op_##op##_##sfx)
#define KERNEL_BOOL_(OP, op, sfx, T, E) NCL_DEFINE_UNARY_KERNEL(ncl_k_##op##_##sfx, T, ncl_bool, op_##op##_##sfx)
UNARY_SAME_LOOPS(KERNEL_SAME_)
#ifdef NCL_STREAM_STORES
/* sqrt: an output that ncl_stream_pays streams (the same decision as the
   generic loop's ncl_ostream) goes out with non-temporal stores straight
   from the result registers, without ncl_ostream's copy through an L1
   block (float32, n = 1.6e7, NumPy's buffers: 3.54-3.62 ms through the
   block, 2.99-3.06 ms direct). The elements before the output's first
   64-byte boundary and the tail after the last whole vector take the
   generic loop. The vector instruction rounds as the scalar one and raises
   the same MXCSR flags per lane, so results and flags are unchanged. */
#  if defined(__AVX512F__)
#    define SQRT_V_f32(p, q) _mm512_stream_ps((float *)(q), _mm512_sqrt_ps(_mm512_loadu_ps(p)))
#    define SQRT_V_f64(p, q) _mm512_stream_pd((double *)(q), _mm512_sqrt_pd(_mm512_loadu_pd(p)))
#    define SQRT_VBYTES 64
#  else
#    define SQRT_V_f32(p, q) _mm256_stream_ps((float *)(q), _mm256_sqrt_ps(_mm256_loadu_ps(p)))
#    define SQRT_V_f64(p, q) _mm256_stream_pd((double *)(q), _mm256_sqrt_pd(_mm256_loadu_pd(p)))
#    define SQRT_VBYTES 32
#  endif
#  define KERNEL_SQRT_(OP, op, sfx, T, E)                                                     \
    NCL_DEFINE_UNARY_KERNEL(op##_##sfx##_loop, T, T, op_##op##_##sfx)                          \
    static NclStatus ncl_k_##op##_##sfx(NclKernelNode *self, const NclKernelCtx *ctx,         \
                                        char *const *args, int64_t n, const int64_t *steps) \
    {                                                                                        \
        enum { S = (int)sizeof(T) };                                                         \
        const char *ip = args[0];                                                            \
        char *op = args[1];                                                                  \
        int64_t i = steps[0] == S && steps[1] == S ? ncl_stream_head(ctx, op, n, S, -1) : -1; \
        if (i < 0) return op##_##sfx##_loop(self, ctx, args, n, steps);                      \
        char *part[2] = {(char *)ip, op};                                                    \
        const NclStatus st = op##_##sfx##_loop(self, ctx, part, i, steps);                   \
        if (st != NCL_OK) return st;                                                         \
        for (; i + SQRT_VBYTES / S <= n; i += SQRT_VBYTES / S)                               \
            SQRT_V_##sfx((const T *)(const void *)(ip + i * S), op + i * S);                 \
        _mm_sfence();                                                                        \
        part[0] = (char *)ip + i * S;                                                        \
        part[1] = op + i * S;                                                                \
        return op##_##sfx##_loop(self, ctx, part, n - i, steps);                             \
    }
UNARY_SQRT_LOOPS(KERNEL_SQRT_)
#  undef KERNEL_SQRT_
#  undef SQRT_V_f32
#  undef SQRT_V_f64
#  undef SQRT_VBYTES
#else
UNARY_SQRT_LOOPS(KERNEL_SAME_)
#endif
#if !NCL_UNARY_SLEEF
UNARY_MATH_LOOPS(KERNEL_SAME_)
UNARY_LDBL_LOOPS(KERNEL_LDBL_)
#endif
UNARY_BOOL_LOOPS(KERNEL_BOOL_)
#undef KERNEL_SAME_
#undef KERNEL_LDBL_
#undef KERNEL_BOOL_

/* The loops of two outputs: frexp (T) -> (T, int32), modf (T) -> (T, T). */
#define UNARY_TWO_OUT_LOOPS(X)                                                \
    X(NCL_FREXP, frexp, f32, float, NCL_FLOAT32, int32_t, NCL_INT32)          \
    X(NCL_FREXP, frexp, f64, double, NCL_FLOAT64, int32_t, NCL_INT32)         \
    X(NCL_MODF, modf, f32, float, NCL_FLOAT32, float, NCL_FLOAT32)            \
    X(NCL_MODF, modf, f64, double, NCL_FLOAT64, double, NCL_FLOAT64)
#define KERNEL_TWO_(OP, op, sfx, T, E, TP, EP) \
    NCL_DEFINE_UNARY2_KERNEL(ncl_k_##op##_##sfx, T, T, TP, op_##op##_##sfx)
UNARY_TWO_OUT_LOOPS(KERNEL_TWO_)
#undef KERNEL_TWO_

#define ENTRY_(OP, op, sfx, E, EOUT) \
    { NCL_SUBSYSTEM_UNARY, 2, OP, { E, EOUT, 0, 0 }, ncl_k_##op##_##sfx, "ncl_k_" #op "_" #sfx },
#define ENTRY_SAME_(OP, op, sfx, T, E) ENTRY_(OP, op, sfx, E, E)
#define ENTRY_BOOL_(OP, op, sfx, T, E) ENTRY_(OP, op, sfx, E, NCL_BOOL)
#define ENTRY_TWO_(OP, op, sfx, T, E, TP, EP) \
    { NCL_SUBSYSTEM_UNARY, 3, OP, { E, E, EP, 0 }, ncl_k_##op##_##sfx, "ncl_k_" #op "_" #sfx },

const ncl_kernel_entry ncl_k_unary_table[] = {
    UNARY_SAME_LOOPS(ENTRY_SAME_)
    UNARY_SQRT_LOOPS(ENTRY_SAME_)
    UNARY_MATH_LOOPS(ENTRY_SAME_)
    UNARY_LDBL_LOOPS(ENTRY_SAME_)
    UNARY_BOOL_LOOPS(ENTRY_BOOL_)
    UNARY_TWO_OUT_LOOPS(ENTRY_TWO_)
};
const size_t ncl_k_unary_count = sizeof ncl_k_unary_table / sizeof ncl_k_unary_table[0];
