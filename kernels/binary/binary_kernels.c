/*
 * binary_kernels.c: NCLib's built-in inner loops of the Binary subsystem, one
 * strided kernel per (op, dtype) loop that NumPy 1.24 has for these dtypes,
 * a few fused-cast kernels for mixed operands (below), float_power's and
 * ldexp's loops, which are not one dtype each, and the table (ncl_k_binary_table) through which the registry puts each at
 * the tail of its level-2 chain.
 *
 * The element semantics live in binary_ops.h; this file only stamps the
 * loops out of NCL_DEFINE_BINARY_KERNEL (contiguous, scalar-operand and
 * strided paths, so the contiguous ones vectorise) and lists them. Both the
 * kernels and the table are generated from the same two lists, the op list
 * NCL_BOP_OP_LIST and the dtype list NCL_DTYPE_LIST, so a loop can neither
 * be defined without being registered nor registered without existing.
 */
#include "binary_ops.h"

/* The AVX-512 build vectorises these loops with 256-bit vectors. They are
   bound by memory, and on Zen 4 a 512-bit access to data off the 64-byte
   grid (NumPy's buffers sit 16 bytes past it) splits across two lines every
   time, a 256-bit one every other time; with the three operands at some
   offsets from one another the 512-bit loop also stalls on stores whose
   addresses alias the next loads modulo 4 KiB. Measured, c = a + b: f64 at
   n = 6.4e4 16.2-16.8 us with 256-bit vectors at every placement tried,
   16.4-22.2 us with 512-bit ones; f32 at 1e6, plain stores, 151-159 vs
   168-195 us. Hand-written intrinsics keep their width. */
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
#  pragma GCC target("prefer-vector-width=256")
#endif

/* Signed integer power refuses a negative exponent (NumPy raises). The
   framework checks the exponent operand before a call; this kernel checks
   the exponents as the loop receives them, after any cast (3000000000 as
   uint32 is negative as int32), and fails before writing anything. */
NCL_KINLINE int ncl_bk_any_negative(const char *p, int64_t n, int64_t step, size_t width)
{
    int neg = 0;
    for (int64_t i = 0; i < n; i++, p += step) {
        switch (width) { /* a constant after inlining */
        case 1: neg |= ncl_load_int8_t(p) < 0; break;
        case 2: neg |= ncl_load_int16_t(p) < 0; break;
        case 4: neg |= ncl_load_int32_t(p) < 0; break;
        default: neg |= ncl_load_int64_t(p) < 0; break;
        }
    }
    return neg;
}

/* The kernel ncl_k_<op>_<suffix> for each loop shape. */
#define NCL_BK_DEF_same(op, s, T, k) NCL_DEFINE_BINARY_KERNEL(ncl_k_##op##_##s, T, T, T, ncl_bop_##op##_##s)
#define NCL_BK_DEF_bool(op, s, T, k) NCL_DEFINE_BINARY_KERNEL(ncl_k_##op##_##s, T, T, ncl_bool, ncl_bop_##op##_##s)
#define NCL_BK_DEF_spow(op, s, T, k) NCL_BK_SPOW_##k(op, s, T)
#define NCL_BK_SPOW_i(op, s, T)                                                               \
    NCL_DEFINE_BINARY_KERNEL(ncl_k_##op##_##s##_unchecked, T, T, T, ncl_bop_##op##_##s)       \
    static NclStatus ncl_k_##op##_##s(NclKernelNode *self, const NclKernelCtx *ctx,           \
                                      char *const *args, int64_t n, const int64_t *steps)     \
    {                                                                                         \
        if (ncl_bk_any_negative(args[1], n, steps[1], sizeof(T)))                             \
            return NCL_ERR_INVALID_ARGUMENT;                                                  \
        return ncl_k_##op##_##s##_unchecked(self, ctx, args, n, steps);                       \
    }
#define NCL_BK_SPOW_u(op, s, T) NCL_BK_DEF_same(op, s, T, u)
#define NCL_BK_SPOW_f(op, s, T) NCL_BK_DEF_same(op, s, T, f)
/* Float maximum/minimum/fmax/fmin: the loop's compares may raise INVALID on
   NaN operands, which NumPy does not report (binary_ops.h). */
#define NCL_BK_DEF_fmm(op, s, T, k) NCL_BK_FMM_##k(op, s, T)
#define NCL_BK_FMM_b(op, s, T) NCL_BK_DEF_same(op, s, T, b)
#define NCL_BK_FMM_i(op, s, T) NCL_BK_DEF_same(op, s, T, i)
#define NCL_BK_FMM_u(op, s, T) NCL_BK_DEF_same(op, s, T, u)
#define NCL_BK_FMM_f(op, s, T)                                                                \
    NCL_DEFINE_BINARY_KERNEL(ncl_k_##op##_##s##_raw, T, T, T, ncl_bop_##op##_##s)             \
    static NclStatus ncl_k_##op##_##s(NclKernelNode *self, const NclKernelCtx *ctx,           \
                                      char *const *args, int64_t n, const int64_t *steps)     \
    {                                                                                         \
        const int before = ncl_bop_invalid_enter();                                           \
        const NclStatus st = ncl_k_##op##_##s##_raw(self, ctx, args, n, steps);               \
        ncl_bop_invalid_leave(before);                                                        \
        return st;                                                                            \
    }
/* divmod's loops write two outputs. */
#define NCL_BK_DEF_two(op, s, T, k) NCL_DEFINE_BINARY2_KERNEL(ncl_k_##op##_##s, T, T, T, T, ncl_bop_##op##_##s)
/* Each loop shape's signature and its length. */
#define NCL_BK_SIG_same(E) {E, E, E, 0}
#define NCL_BK_SIG_bool(E) {E, E, NCL_BOOL, 0}
#define NCL_BK_SIG_spow(E) {E, E, E, 0}
#define NCL_BK_SIG_fmm(E) {E, E, E, 0}
#define NCL_BK_SIG_two(E) {E, E, E, E}
#define NCL_BK_NARGS_same 3
#define NCL_BK_NARGS_bool 3
#define NCL_BK_NARGS_spow 3
#define NCL_BK_NARGS_fmm 3
#define NCL_BK_NARGS_two 4

#define NCL_BK_KERNEL_(OPE, op, OP, set, loop, s, T, k) NCL_BOP_IF_##set##_##k(NCL_BK_DEF_##loop(op, s, T, k))
#define NCL_BK_DTYPE_(E, s, T, name, k) NCL_BOP_OP_LIST(NCL_BK_KERNEL_, s, T, k)
NCL_DTYPE_LIST(NCL_BK_DTYPE_)
#undef NCL_BK_DTYPE_
#undef NCL_BK_KERNEL_

/* ---- fused casts (src/exec/plan.h) -----------------------------------------
   add, subtract, multiply and divide of an int32 or float32 operand with a
   float64 one, which NumPy runs in the float64 loop: ncl_k_<op>_i32_f64
   (int32, float64 -> float64), ncl_k_<op>_f64_i32 and the float32 pair.
   The narrow operand is converted in registers by the C conversion, the one
   the cast kernel applies: exact for int32 and float32 (a float32
   signalling NaN is quieted, raising INVALID, in either path), so the
   results and FP flags are those of casting then running ncl_k_<op>_f64.
   The contiguous loops vectorise with the widening conversion (cvtdq2pd,
   cvtps2pd) in front of the float64 operation. */
#define NCL_BK_FUSED_OPS(X, s, T, E) \
    X(add, NCL_ADD, s, T, E) X(subtract, NCL_SUBTRACT, s, T, E) \
    X(multiply, NCL_MULTIPLY, s, T, E) X(divide, NCL_DIVIDE, s, T, E)
#define NCL_BK_FUSED_TYPES(X, Y) Y(X, i32, int32_t, NCL_INT32) Y(X, f32, float, NCL_FLOAT32)

#define NCL_BK_FUSED_DEF_(op, OPE, s, T, E)                                                   \
    NCL_KINLINE double ncl_bfu_##op##_##s##_f64(T a, double b, int *e)                         \
    {                                                                                         \
        return ncl_bop_##op##_f64((double)a, b, e);                                           \
    }                                                                                         \
    NCL_KINLINE double ncl_bfu_##op##_f64_##s(double a, T b, int *e)                           \
    {                                                                                         \
        return ncl_bop_##op##_f64(a, (double)b, e);                                           \
    }                                                                                         \
    NCL_DEFINE_BINARY_KERNEL(ncl_k_##op##_##s##_f64, T, double, double, ncl_bfu_##op##_##s##_f64) \
    NCL_DEFINE_BINARY_KERNEL(ncl_k_##op##_f64_##s, double, T, double, ncl_bfu_##op##_f64_##s)
#define NCL_BK_FUSED_TYPE_(X, s, T, E) NCL_BK_FUSED_OPS(X, s, T, E)
NCL_BK_FUSED_TYPES(NCL_BK_FUSED_DEF_, NCL_BK_FUSED_TYPE_)
#define NCL_BK_FUSED_ENTRY_(op, OPE, s, T, E)                                                 \
    {NCL_SUBSYSTEM_BINARY, 3, OPE, {E, NCL_FLOAT64, NCL_FLOAT64, 0}, ncl_k_##op##_##s##_f64,  \
     "ncl_k_" #op "_" #s "_f64"},                                                             \
    {NCL_SUBSYSTEM_BINARY, 3, OPE, {NCL_FLOAT64, E, NCL_FLOAT64, 0}, ncl_k_##op##_f64_##s,    \
     "ncl_k_" #op "_f64_" #s},

/* ---- float_power's one loop and ldexp's four (binary_ops.h) ----------------- */
NCL_DEFINE_BINARY_KERNEL(ncl_k_float_power_f64, double, double, double, ncl_bop_float_power_f64)
#define NCL_BK_LDEXP_LOOPS(X)                                                                 \
    X(f32, float, NCL_FLOAT32, i32, int32_t, NCL_INT32)                                       \
    X(f32, float, NCL_FLOAT32, i64, int64_t, NCL_INT64)                                       \
    X(f64, double, NCL_FLOAT64, i32, int32_t, NCL_INT32)                                      \
    X(f64, double, NCL_FLOAT64, i64, int64_t, NCL_INT64)
#define NCL_BK_LDEXP_DEF_(s, T, E, si, TI, EI) \
    NCL_DEFINE_BINARY_KERNEL(ncl_k_ldexp_##s##_##si, T, TI, T, ncl_bop_ldexp_##s##_##si)
NCL_BK_LDEXP_LOOPS(NCL_BK_LDEXP_DEF_)
#define NCL_BK_LDEXP_ENTRY_(s, T, E, si, TI, EI)                                              \
    {NCL_SUBSYSTEM_BINARY, 3, NCL_LDEXP, {E, EI, E, 0}, ncl_k_ldexp_##s##_##si,               \
     "ncl_k_ldexp_" #s "_" #si},

#define NCL_BK_ENTRY_(OPE, op, OP, set, loop, E, s, k)                                 \
    NCL_BOP_IF_##set##_##k({NCL_SUBSYSTEM_BINARY, NCL_BK_NARGS_##loop, OPE, NCL_BK_SIG_##loop(E), \
                            ncl_k_##op##_##s, "ncl_k_" #op "_" #s},)
#define NCL_BK_DTYPE_(E, s, T, name, k) NCL_BOP_OP_LIST(NCL_BK_ENTRY_, E, s, k)
const ncl_kernel_entry ncl_k_binary_table[] = {
    NCL_DTYPE_LIST(NCL_BK_DTYPE_)
    NCL_BK_FUSED_TYPES(NCL_BK_FUSED_ENTRY_, NCL_BK_FUSED_TYPE_)
    {NCL_SUBSYSTEM_BINARY, 3, NCL_FLOAT_POWER, {NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64, 0},
     ncl_k_float_power_f64, "ncl_k_float_power_f64"},
    NCL_BK_LDEXP_LOOPS(NCL_BK_LDEXP_ENTRY_)
};
#undef NCL_BK_DTYPE_
#undef NCL_BK_ENTRY_
#undef NCL_BK_FUSED_ENTRY_
#undef NCL_BK_FUSED_TYPE_
#undef NCL_BK_FUSED_DEF_
#undef NCL_BK_LDEXP_DEF_
#undef NCL_BK_LDEXP_ENTRY_

const size_t ncl_k_binary_count = sizeof ncl_k_binary_table / sizeof ncl_k_binary_table[0];
