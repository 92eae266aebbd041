/*
 * linalg_loops.c: NCLib's built-in kernels of the Linalg subsystem (matmul and
 * dot), one per dtype T with the signature {T, T, T}, and the table
 * ncl_k_linalg_table that registers each under both ops. Their arguments
 * are NclLinalgAux's contract (ncl/linalg.h): `count` products C = A B of
 * m x k by k x n matrices with any byte strides.
 *
 * float32 and float64 call the BLAS found at build time (NCL_HAVE_CBLAS:
 * cblas_?gemm, ?gemv for a matrix-vector product, ?dot for an inner
 * product, as NumPy does) whenever each matrix has a unit stride along one
 * axis and an aligned first element; everything else, and every product
 * when the build has no BLAS, runs NCLib's own blocked loop. bool is the or
 * of ands; integers sum in an unsigned type at least as wide as T, so the
 * products and the sum wrap as T's arithmetic does modulo 2^bits.
 *
 * Compiled once, in the baseline (NCL_KERNEL_ONCE_SRC): the time of a large
 * product is the BLAS's, whatever level this file is compiled for.
 */
#include <limits.h>
#include "ncl_kernel.h"
#ifdef NCL_HAVE_CBLAS
#  include <cblas.h>
#endif

#ifdef NCL_ISA_SUFFIX
#  error "linalg_loops.c is compiled once: keep it in NCL_KERNEL_ONCE_SRC (CMakeLists.txt)"
#endif

/* Columns of C computed together by the portable loop (an accumulator row
   on the stack), and rows of B summed per pass over them: a 128 x 256
   float64 block of B is 256 KiB, which stays in a Zen 4 core's L2 while
   every row of A passes over it. */
#define LINALG_JB 256
#define LINALG_KB 128

/* Products with fewer multiply-adds than this skip the BLAS (the 1 x 1 x 1
   products of a 0-d dot operand, tiny vectors). Above it the BLAS wins even
   for stacks of 8 x 8 x 8 products, one call each: 196 ns a product against
   409 ns in the loop below (float64, Zen 4), NumPy's per-matrix BLAS call
   220 ns. */
#define LINALG_SMALL 64

/* ---- the portable loop ------------------------------------------------------
   For each block of columns and of summed rows, each row of C is
   accumulated in acc[] (starting from 0, or from what the previous block
   of rows stored) so the sum over p runs in order 0 .. k-1 for every
   element, as a sequential dot product does. ACC is T for floats, an
   unsigned type for integers, where loading back a stored T gives the
   same residue. MADD(acc, a, b) adds one product. */
#define LINALG_LOOP_(sfx, T, ACC, MADD)                                                  \
    static void loop_##sfx(const NclLinalgAux *x, const char *A, const char *B, char *C) \
    {                                                                                    \
        ACC acc[LINALG_JB];                                                              \
        for (int64_t j0 = 0; j0 < x->n; j0 += LINALG_JB) {                               \
            const int64_t jb = x->n - j0 < LINALG_JB ? x->n - j0 : LINALG_JB;            \
            int64_t p0 = 0;                                                              \
            do {                                                                         \
                const int64_t pb = x->k - p0 < LINALG_KB ? x->k - p0 : LINALG_KB;        \
                for (int64_t i = 0; i < x->m; i++) {                                     \
                    char *crow = C + i * x->c_rs + j0 * x->c_cs;                         \
                    for (int64_t j = 0; j < jb; j++)                                     \
                        acc[j] = p0 == 0 ? (ACC)0 : (ACC)ncl_load_##T(crow + j * x->c_cs); \
                    for (int64_t p = p0; p < p0 + pb; p++) {                             \
                        const ACC a = (ACC)ncl_load_##T(A + i * x->a_rs + p * x->a_cs);  \
                        const char *brow = B + p * x->b_rs + j0 * x->b_cs;               \
                        if (x->b_cs == (int64_t)sizeof(T)) {                             \
                            for (int64_t j = 0; j < jb; j++)                             \
                                MADD(acc[j], a, (ACC)ncl_load_##T(brow + j * (int64_t)sizeof(T))); \
                        } else {                                                         \
                            for (int64_t j = 0; j < jb; j++)                             \
                                MADD(acc[j], a, (ACC)ncl_load_##T(brow + j * x->b_cs));  \
                        }                                                                \
                    }                                                                    \
                    for (int64_t j = 0; j < jb; j++)                                     \
                        ncl_store_##T(crow + j * x->c_cs, (T)acc[j]);                    \
                }                                                                        \
                p0 += pb;                                                                \
            } while (p0 < x->k);                                                         \
        }                                                                                \
    }

#define MADD_SUM_(acc, a, b) ((acc) += (a) * (b))
#define MADD_OR_(acc, a, b) ((acc) |= (unsigned char)((a) & (b)))

LINALG_LOOP_(b, ncl_bool, unsigned char, MADD_OR_)
LINALG_LOOP_(i8, int8_t, uint32_t, MADD_SUM_)
LINALG_LOOP_(i16, int16_t, uint32_t, MADD_SUM_)
LINALG_LOOP_(i32, int32_t, uint32_t, MADD_SUM_)
LINALG_LOOP_(i64, int64_t, uint64_t, MADD_SUM_)
LINALG_LOOP_(u8, uint8_t, uint32_t, MADD_SUM_)
LINALG_LOOP_(u16, uint16_t, uint32_t, MADD_SUM_)
LINALG_LOOP_(u32, uint32_t, uint32_t, MADD_SUM_)
LINALG_LOOP_(u64, uint64_t, uint64_t, MADD_SUM_)
LINALG_LOOP_(f32, float, float, MADD_SUM_)
LINALG_LOOP_(f64, double, double, MADD_SUM_)

/* ---- BLAS ----------------------------------------------------------------------- */
#ifdef NCL_HAVE_CBLAS

/* How BLAS sees a rows x cols matrix at p with byte steps rs, cs: stored
   row by row (trans 0: unit column step, ld elements between rows) or
   column by column (trans 1: the transpose stored row by row). 0 when it
   is neither, or misaligned, or larger than BLAS's int. */
typedef struct blas_mat {
    int trans, ld;
} blas_mat;

NCL_KINLINE int blas_view(int64_t rows, int64_t cols, int64_t rs, int64_t cs, size_t isz,
                          const char *p, blas_mat *v)
{
    const int64_t s = (int64_t)isz;
    if ((uintptr_t)p % isz != 0 || rows > INT_MAX || cols > INT_MAX) return 0;
    if ((cols <= 1 || cs == s) && (rows <= 1 || (rs > 0 && rs % s == 0 && rs / s >= cols &&
                                                rs / s <= INT_MAX))) {
        v->trans = 0;
        v->ld = rows <= 1 ? (int)(cols > 1 ? cols : 1) : (int)(rs / s);
        return 1;
    }
    if ((rows <= 1 || rs == s) && (cols <= 1 || (cs > 0 && cs % s == 0 && cs / s >= rows &&
                                                cs / s <= INT_MAX))) {
        v->trans = 1;
        v->ld = cols <= 1 ? (int)(rows > 1 ? rows : 1) : (int)(cs / s);
        return 1;
    }
    return 0;
}

/* A vector's BLAS increment: a positive multiple of the item size (BLAS
   reads a negative increment from the other end), p aligned. */
NCL_KINLINE int blas_inc(int64_t len, int64_t step, size_t isz, const char *p, int *inc)
{
    const int64_t s = (int64_t)isz;
    if ((uintptr_t)p % isz != 0 || len > INT_MAX) return 0;
    if (len <= 1) {
        *inc = 1;
        return 1;
    }
    if (step <= 0 || step % s != 0 || step / s > INT_MAX) return 0;
    *inc = (int)(step / s);
    return 1;
}

/* One product through BLAS, or 0 when its layout does not fit BLAS's (the
   caller runs the loop). T is float or double, PRE s or d. */
#define LINALG_BLAS_(sfx, T, PRE)                                                           \
    static int blas_##sfx(const NclLinalgAux *x, const char *A, const char *B, char *C)     \
    {                                                                                       \
        const size_t sz = sizeof(T);                                                        \
        const int m = (int)x->m, n = (int)x->n, k = (int)x->k;                              \
        int ia, ib, ic;                                                                     \
        blas_mat va, vb, vc;                                                                \
        if (x->m == 1 && x->n == 1) {                                                       \
            if (!blas_inc(x->k, x->a_cs, sz, A, &ia) || !blas_inc(x->k, x->b_rs, sz, B, &ib) || \
                (uintptr_t)C % sz != 0)                                                     \
                return 0;                                                                   \
            ncl_store_##T(C, cblas_##PRE##dot(k, (const T *)(const void *)A, ia,            \
                                              (const T *)(const void *)B, ib));             \
            return 1;                                                                       \
        }                                                                                   \
        if (x->n == 1) { /* y(m) = A x */                                                   \
            if (!blas_view(x->m, x->k, x->a_rs, x->a_cs, sz, A, &va) ||                     \
                !blas_inc(x->k, x->b_rs, sz, B, &ib) || !blas_inc(x->m, x->c_rs, sz, C, &ic)) \
                return 0;                                                                   \
            if (va.trans)                                                                   \
                cblas_##PRE##gemv(CblasRowMajor, CblasTrans, k, m, 1, (const T *)(const void *)A, \
                                  va.ld, (const T *)(const void *)B, ib, 0, (T *)(void *)C, ic); \
            else                                                                            \
                cblas_##PRE##gemv(CblasRowMajor, CblasNoTrans, m, k, 1,                     \
                                  (const T *)(const void *)A, va.ld,                        \
                                  (const T *)(const void *)B, ib, 0, (T *)(void *)C, ic);   \
            return 1;                                                                       \
        }                                                                                   \
        if (x->m == 1) { /* y(n) = B^T x */                                                 \
            if (!blas_view(x->k, x->n, x->b_rs, x->b_cs, sz, B, &vb) ||                     \
                !blas_inc(x->k, x->a_cs, sz, A, &ia) || !blas_inc(x->n, x->c_cs, sz, C, &ic)) \
                return 0;                                                                   \
            if (vb.trans)                                                                   \
                cblas_##PRE##gemv(CblasRowMajor, CblasNoTrans, n, k, 1,                     \
                                  (const T *)(const void *)B, vb.ld,                        \
                                  (const T *)(const void *)A, ia, 0, (T *)(void *)C, ic);   \
            else                                                                            \
                cblas_##PRE##gemv(CblasRowMajor, CblasTrans, k, n, 1, (const T *)(const void *)B, \
                                  vb.ld, (const T *)(const void *)A, ia, 0, (T *)(void *)C, ic); \
            return 1;                                                                       \
        }                                                                                   \
        if (!blas_view(x->m, x->k, x->a_rs, x->a_cs, sz, A, &va) ||                         \
            !blas_view(x->k, x->n, x->b_rs, x->b_cs, sz, B, &vb) ||                         \
            !blas_view(x->m, x->n, x->c_rs, x->c_cs, sz, C, &vc))                           \
            return 0;                                                                       \
        if (!vc.trans) {                                                                    \
            cblas_##PRE##gemm(CblasRowMajor, va.trans ? CblasTrans : CblasNoTrans,          \
                              vb.trans ? CblasTrans : CblasNoTrans, m, n, k, 1,             \
                              (const T *)(const void *)A, va.ld, (const T *)(const void *)B, \
                              vb.ld, 0, (T *)(void *)C, vc.ld);                             \
        } else { /* C stored by columns: C^T = B^T A^T, row by row */                       \
            cblas_##PRE##gemm(CblasRowMajor, vb.trans ? CblasNoTrans : CblasTrans,          \
                              va.trans ? CblasNoTrans : CblasTrans, n, m, k, 1,             \
                              (const T *)(const void *)B, vb.ld, (const T *)(const void *)A, \
                              va.ld, 0, (T *)(void *)C, vc.ld);                             \
        }                                                                                   \
        return 1;                                                                           \
    }
NCL_KINLINE int linalg_small(const NclLinalgAux *x)
{
    return x->m < LINALG_SMALL && x->n < LINALG_SMALL && x->k < LINALG_SMALL &&
           x->m * x->n * x->k < LINALG_SMALL;
}
LINALG_BLAS_(f32, float, s)
LINALG_BLAS_(f64, double, d)
#  define BLAS_OR_LOOP_(sfx, x, A, B, C)                                        \
    do {                                                                       \
        if (x->k == 0 || linalg_small(x) || !blas_##sfx(x, A, B, C))              \
            loop_##sfx(x, A, B, C);                                            \
    } while (0)
#else
#  define BLAS_OR_LOOP_(sfx, x, A, B, C) loop_##sfx(x, A, B, C)
#endif

/* ---- the kernels and their table -------------------------------------------------- */

#define KERNEL_(E, sfx, T, name, kind)                                                     \
    static NclStatus ncl_k_linalg_##sfx(NclKernelNode *self, const NclKernelCtx *ctx,      \
                                        char *const *args, int64_t count, const int64_t *steps) \
    {                                                                                      \
        (void)self;                                                                        \
        const NclLinalgAux *x = (const NclLinalgAux *)ctx->aux;                            \
        if (x->m == 0 || x->n == 0) return NCL_OK;                                         \
        for (int64_t i = 0; i < count; i++) {                                              \
            const char *A = args[0] + i * steps[0], *B = args[1] + i * steps[1];           \
            char *C = args[2] + i * steps[2];                                              \
            LINALG_CALL_##kind(sfx, x, A, B, C);                                           \
        }                                                                                  \
        return NCL_OK;                                                                     \
    }
#define LINALG_CALL_b(sfx, x, A, B, C) loop_##sfx(x, A, B, C)
#define LINALG_CALL_i(sfx, x, A, B, C) loop_##sfx(x, A, B, C)
#define LINALG_CALL_u(sfx, x, A, B, C) loop_##sfx(x, A, B, C)
#define LINALG_CALL_f(sfx, x, A, B, C) BLAS_OR_LOOP_(sfx, x, A, B, C)
NCL_DTYPE_LIST(KERNEL_)

#define ENTRY_(E, sfx, T, name, kind)                                                  \
    { NCL_SUBSYSTEM_LINALG, 3, NCL_MATMUL, { E, E, E, 0 }, ncl_k_linalg_##sfx,          \
      "ncl_k_matmul_" #sfx },                                                          \
    { NCL_SUBSYSTEM_LINALG, 3, NCL_DOT, { E, E, E, 0 }, ncl_k_linalg_##sfx, "ncl_k_dot_" #sfx },

const ncl_kernel_entry ncl_k_linalg_table[] = {
    NCL_DTYPE_LIST(ENTRY_)
};
const size_t ncl_k_linalg_count = sizeof ncl_k_linalg_table / sizeof ncl_k_linalg_table[0];
