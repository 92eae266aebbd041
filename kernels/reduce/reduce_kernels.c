/*
 * reduce_kernels.c: the built-in Reduce kernels and their table, following
 * the kernel ABI of ncl/reduce.h: one sequence per output (or per running
 * result), any steps, aux->count sequences per call.
 *
 * Float sums and products run the fixed tree of reduce_tree.h; integer
 * sums and products accumulate modulo 2**64 in uint64 (exact, so in any
 * order), which is also NumPy's int64/uint64 result bit for bit. The
 * order-free ops come from reduce_elem.h, one instance per dtype. Every
 * body is a force-inlined function with the dtypes and the op as constant
 * parameters; the kernels are one-line wrappers around them.
 */
#include <fenv.h>
#include "ncl_kernel.h"
#include "reduce/reduce_dd.h"
#include "reduce/reduce_simd.h"

/* Input "dtypes" of the nan-aware float sums and products: float32/64
   read with a NaN taken as the op's replacement value (+0.0 for sums, 1
   for products, as NumPy's nansum and nanprod replace it) by the tree's
   loads (reduce_tree.h). Not dtypes: values above any NclDType. */
#define RK_NAN_F32 (NCL_FLOAT32 + 64)
#define RK_NAN_F64 (NCL_FLOAT64 + 64)
#define RT_NAN_F32 RK_NAN_F32
#define RT_NAN_F64 RK_NAN_F64

/* Size of a dtype, folded to a constant wherever dt is one. */
NCL_KINLINE size_t rk_dtype_size(int dt)
{
    switch (dt) {
    case NCL_BOOL: case NCL_INT8: case NCL_UINT8: return 1;
    case NCL_INT16: case NCL_UINT16: return 2;
    case NCL_INT32: case NCL_UINT32: case NCL_FLOAT32: case RK_NAN_F32: return 4;
    default: return 8;
    }
}

#define RT_ACC double
#define RT_SFX f64
#ifdef RS_HAVE_SIMD
#  define RT_GROUP_SUMS rs_group_sums_f64
#endif
#include "reduce/reduce_tree.h"
#define RT_ACC float
#define RT_SFX f32
#include "reduce/reduce_tree.h"

#define RE_T ncl_bool
#define RE_SFX b
#define RE_FLOAT 0
#define RE_TMIN ((ncl_bool)0)
#define RE_TMAX ((ncl_bool)UINT8_MAX)
#include "reduce/reduce_elem.h"
#define RE_T int8_t
#define RE_SFX i8
#define RE_FLOAT 0
#define RE_TMIN ((int8_t)INT8_MIN)
#define RE_TMAX ((int8_t)INT8_MAX)
#include "reduce/reduce_elem.h"
#define RE_T int16_t
#define RE_SFX i16
#define RE_FLOAT 0
#define RE_TMIN ((int16_t)INT16_MIN)
#define RE_TMAX ((int16_t)INT16_MAX)
#include "reduce/reduce_elem.h"
#define RE_T int32_t
#define RE_SFX i32
#define RE_FLOAT 0
#define RE_TMIN INT32_MIN
#define RE_TMAX INT32_MAX
#include "reduce/reduce_elem.h"
#define RE_T int64_t
#define RE_SFX i64
#define RE_FLOAT 0
#define RE_TMIN INT64_MIN
#define RE_TMAX INT64_MAX
#include "reduce/reduce_elem.h"
#define RE_T uint8_t
#define RE_SFX u8
#define RE_FLOAT 0
#define RE_TMIN ((uint8_t)0)
#define RE_TMAX ((uint8_t)UINT8_MAX)
#include "reduce/reduce_elem.h"
#define RE_T uint16_t
#define RE_SFX u16
#define RE_FLOAT 0
#define RE_TMIN ((uint16_t)0)
#define RE_TMAX ((uint16_t)UINT16_MAX)
#include "reduce/reduce_elem.h"
#define RE_T uint32_t
#define RE_SFX u32
#define RE_FLOAT 0
#define RE_TMIN ((uint32_t)0)
#define RE_TMAX UINT32_MAX
#include "reduce/reduce_elem.h"
#define RE_T uint64_t
#define RE_SFX u64
#define RE_FLOAT 0
#define RE_TMIN ((uint64_t)0)
#define RE_TMAX UINT64_MAX
#include "reduce/reduce_elem.h"
#define RE_T float
#define RE_SFX f32
#ifdef RS_HAVE_SIMD
#  define RE_SIMD_MM_RAW rs_mm_raw_f32
#endif
#define RE_FLOAT 1
#define RE_TMIN (-INFINITY)
#define RE_TMAX INFINITY
#include "reduce/reduce_elem.h"
#define RE_T double
#define RE_SFX f64
#ifdef RS_HAVE_SIMD
#  define RE_SIMD_MM_RAW rs_mm_raw_f64
#endif
#define RE_FLOAT 1
#define RE_TMIN ((double)-INFINITY)
#define RE_TMAX ((double)INFINITY)
#include "reduce/reduce_elem.h"

/* ---- integer sums and products (modulo 2**64) ---------------------------- */

/* Element at p as its two's complement bits widened to 64: signed values
   sign-extend, unsigned ones zero-extend, bool is 0/1. */
NCL_KINLINE uint64_t rk_iload(const char *p, int dt)
{
    switch (dt) {
    case NCL_BOOL: return ncl_load_ncl_bool(p) != 0;
    case NCL_INT8: return (uint64_t)(int64_t)ncl_load_int8_t(p);
    case NCL_INT16: return (uint64_t)(int64_t)ncl_load_int16_t(p);
    case NCL_INT32: return (uint64_t)(int64_t)ncl_load_int32_t(p);
    case NCL_INT64: return (uint64_t)ncl_load_int64_t(p);
    case NCL_UINT8: return ncl_load_uint8_t(p);
    case NCL_UINT16: return ncl_load_uint16_t(p);
    case NCL_UINT32: return ncl_load_uint32_t(p);
    default: return ncl_load_uint64_t(p);
    }
}

NCL_KINLINE uint64_t rk_iop(uint64_t a, uint64_t b, int mul) { return mul ? a * b : a + b; }

NCL_KINLINE uint64_t rk_iseq(const char *p, int64_t s, int64_t n, int dt, int mul)
{
    uint64_t a = (uint64_t)mul;
    for (int64_t i = 0; i < n; i++) a = rk_iop(a, rk_iload(p + i * s, dt), mul);
    return a;
}

#define RK_IW 16 /* adjacent sequences per strip */

NCL_KINLINE void rk_icols(const char *p, int64_t s, int64_t n, int dt, int mul, uint64_t *res)
{
    const int64_t isz = (int64_t)rk_dtype_size(dt);
    uint64_t a[RK_IW];
    for (int w = 0; w < RK_IW; w++) a[w] = (uint64_t)mul;
    for (int64_t i = 0; i < n; i++)
        for (int w = 0; w < RK_IW; w++) a[w] = rk_iop(a[w], rk_iload(p + i * s + w * isz, dt), mul);
    for (int w = 0; w < RK_IW; w++) res[w] = a[w];
}

NCL_KINLINE NclStatus rk_run_isum(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                  const int64_t *steps, int dt, int mul)
{
    const NclReduceAux *ax = (const NclReduceAux *)ctx->aux;
    const int64_t isz = (int64_t)rk_dtype_size(dt), s = steps[0], os = steps[1];
    const char *in = args[0];
    char *out = args[1];
    int64_t k = 0;
    if (ax->in_outer == isz && ax->count >= RK_IW) {
        for (; k + RK_IW <= ax->count; k += RK_IW) {
            uint64_t r[RK_IW];
            rk_icols(in + k * isz, s, n, dt, mul, r);
            for (int w = 0; w < RK_IW; w++) ncl_store_uint64_t(out + (k + w) * os, r[w]);
        }
    }
    for (; k < ax->count; k++) {
        const char *q = in + k * ax->in_outer;
        const uint64_t r = s == isz ? rk_iseq(q, isz, n, dt, mul) : rk_iseq(q, s, n, dt, mul);
        ncl_store_uint64_t(out + k * os, r);
    }
    return NCL_OK;
}

NCL_KINLINE NclStatus rk_run_icum(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                  const int64_t *steps, int dt, int mul)
{
    const NclReduceAux *ax = (const NclReduceAux *)ctx->aux;
    const uint64_t start =
        ax->initial ? ncl_load_uint64_t((const char *)ax->initial) : (uint64_t)mul;
    for (int64_t k = 0; k < ax->count; k++) {
        const char *q = args[0] + k * ax->in_outer;
        char *o = args[1] + k * ax->out_outer;
        uint64_t v = start;
        for (int64_t i = 0; i < n; i++) {
            v = rk_iop(v, rk_iload(q + i * steps[0], dt), mul);
            ncl_store_uint64_t(o + i * steps[1], v);
        }
    }
    return NCL_OK;
}

/* ---- one entry per (op, in, out) ------------------------------------------- */

/* SUM/PROD (mul = 0/1) of dtype dt into the accumulator dtype acc. */
NCL_KINLINE NclStatus rk_sum(const NclKernelCtx *ctx, char *const *args, int64_t n,
                             const int64_t *steps, int dt, int acc, int mul)
{
    const int op = mul ? NCL_PROD : NCL_SUM;
    if (acc == NCL_FLOAT64) return rt_run_f64(ctx, args, n, steps, dt, op);
    if (acc == NCL_FLOAT32) return rt_run_f32(ctx, args, n, steps, dt, op);
    return rk_run_isum(ctx, args, n, steps, dt, mul);
}

NCL_KINLINE NclStatus rk_cum(const NclKernelCtx *ctx, char *const *args, int64_t n,
                             const int64_t *steps, int dt, int acc, int mul)
{
    const int op = mul ? NCL_PROD : NCL_SUM;
    if (acc == NCL_FLOAT64) return rt_run_cum_f64(ctx, args, n, steps, dt, op);
    if (acc == NCL_FLOAT32) return rt_run_cum_f32(ctx, args, n, steps, dt, op);
    return rk_run_icum(ctx, args, n, steps, dt, mul);
}

/* X(enum, suffix, accumulator enum, accumulator suffix): the
   accumulator of sums is int64 for bool and signed, uint64 for unsigned,
   the type itself for floats. */
#define RK_DTYPES(X)                                   \
    X(NCL_BOOL, b, NCL_INT64, i64)                  \
    X(NCL_INT8, i8, NCL_INT64, i64)                 \
    X(NCL_INT16, i16, NCL_INT64, i64)               \
    X(NCL_INT32, i32, NCL_INT64, i64)               \
    X(NCL_INT64, i64, NCL_INT64, i64)               \
    X(NCL_UINT8, u8, NCL_UINT64, u64)               \
    X(NCL_UINT16, u16, NCL_UINT64, u64)             \
    X(NCL_UINT32, u32, NCL_UINT64, u64)             \
    X(NCL_UINT64, u64, NCL_UINT64, u64)             \
    X(NCL_FLOAT32, f32, NCL_FLOAT32, f32)           \
    X(NCL_FLOAT64, f64, NCL_FLOAT64, f64)

#define RK_SIG_ NclKernelNode *self, const NclKernelCtx *ctx, char *const *args, int64_t n, \
                const int64_t *steps
#define RK_DEFINE_(E, sfx, AE, asfx)                                                     \
    static NclStatus ncl_k_sum_##sfx##_##asfx(RK_SIG_)                                       \
    { (void)self; return rk_sum(ctx, args, n, steps, E, AE, 0); }                            \
    static NclStatus ncl_k_prod_##sfx##_##asfx(RK_SIG_)                                      \
    { (void)self; return rk_sum(ctx, args, n, steps, E, AE, 1); }                            \
    static NclStatus ncl_k_cumsum_##sfx##_##asfx(RK_SIG_)                                    \
    { (void)self; return rk_cum(ctx, args, n, steps, E, AE, 0); }                            \
    static NclStatus ncl_k_cumprod_##sfx##_##asfx(RK_SIG_)                                   \
    { (void)self; return rk_cum(ctx, args, n, steps, E, AE, 1); }                            \
    static NclStatus ncl_k_min_##sfx(RK_SIG_)                                                \
    { (void)self; return re_run_mm_##sfx(ctx, args, n, steps, 0, E == NCL_BOOL); }           \
    static NclStatus ncl_k_max_##sfx(RK_SIG_)                                                \
    { (void)self; return re_run_mm_##sfx(ctx, args, n, steps, 1, E == NCL_BOOL); }           \
    static NclStatus ncl_k_argmin_##sfx(RK_SIG_)                                             \
    { (void)self; return re_run_arg_##sfx(ctx, args, n, steps, 0); }                         \
    static NclStatus ncl_k_argmax_##sfx(RK_SIG_)                                             \
    { (void)self; return re_run_arg_##sfx(ctx, args, n, steps, 1); }                         \
    static NclStatus ncl_k_any_##sfx(RK_SIG_)                                                \
    { (void)self; return re_run_logic_##sfx(ctx, args, n, steps, 1); }                       \
    static NclStatus ncl_k_all_##sfx(RK_SIG_)                                                \
    { (void)self; return re_run_logic_##sfx(ctx, args, n, steps, 0); }                       \
    static NclStatus ncl_k_count_nonzero_##sfx(RK_SIG_)                                      \
    { (void)self; return re_run_logic_##sfx(ctx, args, n, steps, 2); }
RK_DTYPES(RK_DEFINE_)
#undef RK_DEFINE_

/* {T, float64} sums for every T but float64 (whose accumulator entry it
   is): the mean of integers, and sums with dtype=float64. */
#define RK_NOT_F64(X)                                                            \
    X(NCL_BOOL, b) X(NCL_INT8, i8) X(NCL_INT16, i16) X(NCL_INT32, i32)         \
    X(NCL_INT64, i64) X(NCL_UINT8, u8) X(NCL_UINT16, u16) X(NCL_UINT32, u32)   \
    X(NCL_UINT64, u64) X(NCL_FLOAT32, f32)
#define RK_DEFINE_F64_(E, sfx)                                                   \
    static NclStatus ncl_k_sum_##sfx##_f64(RK_SIG_)                              \
    { (void)self; return rk_sum(ctx, args, n, steps, E, NCL_FLOAT64, 0); }
RK_NOT_F64(RK_DEFINE_F64_)
#undef RK_DEFINE_F64_

/* NANSUM, NANPROD, NANCUMSUM, NANCUMPROD of floats: the tree on the
   elements with NaN replaced (RK_NAN_*). */
#define RK_DEFINE_NANSUM_(NE, sfx, AE)                                                \
    static NclStatus ncl_k_nansum_##sfx(RK_SIG_)                                    \
    { (void)self; return rk_sum(ctx, args, n, steps, NE, AE, 0); }                  \
    static NclStatus ncl_k_nanprod_##sfx(RK_SIG_)                                   \
    { (void)self; return rk_sum(ctx, args, n, steps, NE, AE, 1); }                  \
    static NclStatus ncl_k_nancumsum_##sfx(RK_SIG_)                                 \
    { (void)self; return rk_cum(ctx, args, n, steps, NE, AE, 0); }                  \
    static NclStatus ncl_k_nancumprod_##sfx(RK_SIG_)                                \
    { (void)self; return rk_cum(ctx, args, n, steps, NE, AE, 1); }
RK_DEFINE_NANSUM_(RK_NAN_F32, f32, NCL_FLOAT32)
RK_DEFINE_NANSUM_(RK_NAN_F64, f64, NCL_FLOAT64)
#undef RK_DEFINE_NANSUM_

/* NANMIN / NANMAX, NANARGMIN / NANARGMAX: floats only (a nan-aware op on
   integers is its plain op). */
#define RK_DEFINE_NAN_(E, sfx)                                                   \
    static NclStatus ncl_k_nanmin_##sfx(RK_SIG_)                                 \
    { (void)self; return re_run_nanmm_##sfx(ctx, args, n, steps, 0); }          \
    static NclStatus ncl_k_nanmax_##sfx(RK_SIG_)                                 \
    { (void)self; return re_run_nanmm_##sfx(ctx, args, n, steps, 1); }          \
    static NclStatus ncl_k_nanargmin_##sfx(RK_SIG_)                              \
    { (void)self; return re_run_nanarg_##sfx(ctx, args, n, steps, 0); }         \
    static NclStatus ncl_k_nanargmax_##sfx(RK_SIG_)                              \
    { (void)self; return re_run_nanarg_##sfx(ctx, args, n, steps, 1); }
RK_DEFINE_NAN_(NCL_FLOAT32, f32)
RK_DEFINE_NAN_(NCL_FLOAT64, f64)
#undef RK_DEFINE_NAN_

#define RK_E_(op, E, OE, fn) {NCL_SUBSYSTEM_REDUCE, 2, op, {E, OE}, fn, #fn},
#define RK_ENTRIES_(E, sfx, AE, asfx)                                        \
    RK_E_(NCL_SUM, E, AE, ncl_k_sum_##sfx##_##asfx)                              \
    RK_E_(NCL_PROD, E, AE, ncl_k_prod_##sfx##_##asfx)                            \
    RK_E_(NCL_CUMSUM, E, AE, ncl_k_cumsum_##sfx##_##asfx)                        \
    RK_E_(NCL_CUMPROD, E, AE, ncl_k_cumprod_##sfx##_##asfx)                      \
    RK_E_(NCL_MIN, E, E, ncl_k_min_##sfx)                                        \
    RK_E_(NCL_MAX, E, E, ncl_k_max_##sfx)                                        \
    RK_E_(NCL_ARGMIN, E, NCL_INT64, ncl_k_argmin_##sfx)                          \
    RK_E_(NCL_ARGMAX, E, NCL_INT64, ncl_k_argmax_##sfx)                          \
    RK_E_(NCL_ANY, E, NCL_BOOL, ncl_k_any_##sfx)                                 \
    RK_E_(NCL_ALL, E, NCL_BOOL, ncl_k_all_##sfx)                                 \
    RK_E_(NCL_COUNT_NONZERO, E, NCL_INT64, ncl_k_count_nonzero_##sfx)
#define RK_ENTRIES_F64_(E, sfx) RK_E_(NCL_SUM, E, NCL_FLOAT64, ncl_k_sum_##sfx##_f64)

const ncl_kernel_entry ncl_k_reduce_table[] = {
    RK_DTYPES(RK_ENTRIES_)
    RK_NOT_F64(RK_ENTRIES_F64_)
    RK_E_(NCL_NANSUM, NCL_FLOAT32, NCL_FLOAT32, ncl_k_nansum_f32)
    RK_E_(NCL_NANPROD, NCL_FLOAT32, NCL_FLOAT32, ncl_k_nanprod_f32)
    RK_E_(NCL_NANCUMSUM, NCL_FLOAT32, NCL_FLOAT32, ncl_k_nancumsum_f32)
    RK_E_(NCL_NANCUMPROD, NCL_FLOAT32, NCL_FLOAT32, ncl_k_nancumprod_f32)
    RK_E_(NCL_NANSUM, NCL_FLOAT64, NCL_FLOAT64, ncl_k_nansum_f64)
    RK_E_(NCL_NANPROD, NCL_FLOAT64, NCL_FLOAT64, ncl_k_nanprod_f64)
    RK_E_(NCL_NANCUMSUM, NCL_FLOAT64, NCL_FLOAT64, ncl_k_nancumsum_f64)
    RK_E_(NCL_NANCUMPROD, NCL_FLOAT64, NCL_FLOAT64, ncl_k_nancumprod_f64)
    RK_E_(NCL_NANARGMIN, NCL_FLOAT32, NCL_INT64, ncl_k_nanargmin_f32)
    RK_E_(NCL_NANARGMAX, NCL_FLOAT32, NCL_INT64, ncl_k_nanargmax_f32)
    RK_E_(NCL_NANARGMIN, NCL_FLOAT64, NCL_INT64, ncl_k_nanargmin_f64)
    RK_E_(NCL_NANARGMAX, NCL_FLOAT64, NCL_INT64, ncl_k_nanargmax_f64)
    RK_E_(NCL_NANMIN, NCL_FLOAT32, NCL_FLOAT32, ncl_k_nanmin_f32)
    RK_E_(NCL_NANMAX, NCL_FLOAT32, NCL_FLOAT32, ncl_k_nanmax_f32)
    RK_E_(NCL_NANMIN, NCL_FLOAT64, NCL_FLOAT64, ncl_k_nanmin_f64)
    RK_E_(NCL_NANMAX, NCL_FLOAT64, NCL_FLOAT64, ncl_k_nanmax_f64)
};
const size_t ncl_k_reduce_count = sizeof ncl_k_reduce_table / sizeof ncl_k_reduce_table[0];
