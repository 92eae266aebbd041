/*
 * reduce_tree.h: the fixed reduction tree of float sums and products (see
 * the kernel ABI in ncl/reduce.h), written once and included once per
 * accumulator type: define RT_ACC (the C type) and RT_SFX (its suffix)
 * before including it, and RT_GROUP_SUMS where reduce_simd.h has a
 * four-chunk sum for that type. It defines, all force-inlined, with the input dtype
 * and the op as constant parameters so that every instance folds to
 * straight-line code:
 *   RT_FN(seq)   one sequence at any byte stride;
 *   RT_FN(cols)  RT_W sequences at once whose elements at equal positions
 *                are adjacent in memory (the columns of a C array reduced
 *                over its first axis), the vector running across them.
 * Both evaluate exactly the same tree, element by element, so a result
 * does not depend on which one ran: that is what makes reductions layout
 * independent. Nothing here may reorder an operation of the tree. Sums fold
 * a chunk's lanes and combine chunk values compensated (reduce_dd.h);
 * products do both plainly (a product's error does not depend on the
 * order of its multiplications).
 */
#ifndef RT_ACC
#  error "define RT_ACC and RT_SFX before including reduce_tree.h"
#endif

#define RT_CAT2_(a, b) a##_##b
#define RT_CAT_(a, b) RT_CAT2_(a, b)
#define RT_FN(name) RT_CAT_(rt_##name, RT_SFX)
#define RT_DD RT_CAT_(ncl_dd, RT_SFX)
#define RT_DD_ADD RT_CAT_(ncl_dd_add, RT_SFX)

#define RT_L NCL_REDUCE_LANES
#define RT_B NCL_REDUCE_BLOCK
#define RT_K NCL_REDUCE_CHUNK
/* Columns per cols() call: one 64-byte line of float64 per row. */
#define RT_W 8
/* Pending lane vectors of one chunk's binary counter: a chunk of
   RT_K / RT_B = 2**p blocks keeps at most p waiting. */
#define RT_PENDING 3
_Static_assert(RT_K / RT_B == 1 << RT_PENDING && RT_K % RT_B == 0 && RT_B % RT_L == 0 &&
                   (RT_L & (RT_L - 1)) == 0,
               "the tree's constants must be powers of two with 2**RT_PENDING blocks per chunk");

/* The tree's two ops; op is NCL_SUM or NCL_PROD. */
NCL_KINLINE RT_ACC RT_FN(op)(RT_ACC a, RT_ACC b, int op) { return op == NCL_PROD ? a * b : a + b; }

/* The lanes' starting value: -0.0 is the exact identity of IEEE addition
   (-0.0 + x is x for every x, -0.0 and NaN included), +0.0 is not. */
NCL_KINLINE RT_ACC RT_FN(ident)(int op) { return op == NCL_PROD ? (RT_ACC)1 : (RT_ACC)-0.0; }

/* The result of an empty sequence: +0.0 (NumPy's sum of nothing) or 1. */
NCL_KINLINE RT_ACC RT_FN(empty)(int op) { return op == NCL_PROD ? (RT_ACC)1 : (RT_ACC)0; }

/* Element at p of dtype dt, converted to the accumulator type: bool as
   0/1 (any non-zero byte is true), integers and floats by C's conversion,
   which rounds to nearest and is exact for every value here but int64 and
   uint64 beyond 2**53 (rounded, as NumPy's cast rounds them). */
NCL_KINLINE RT_ACC RT_FN(load)(const char *p, int dt, int op)
{
    (void)op;
    switch (dt) {
#ifdef RT_NAN_F64
    /* the nan-aware inputs (reduce_kernels.c): a NaN reads as +0.0 in a
       sum, 1 in a product */
    case RT_NAN_F32: {
        const float x = ncl_load_float(p);
        return (RT_ACC)(x == x ? x : op == NCL_PROD ? 1.0f : 0.0f);
    }
    case RT_NAN_F64: {
        const double x = ncl_load_double(p);
        return (RT_ACC)(x == x ? x : op == NCL_PROD ? 1.0 : 0.0);
    }
#endif
    case NCL_BOOL: return (RT_ACC)(ncl_load_ncl_bool(p) != 0);
    case NCL_INT8: return (RT_ACC)ncl_load_int8_t(p);
    case NCL_INT16: return (RT_ACC)ncl_load_int16_t(p);
    case NCL_INT32: return (RT_ACC)ncl_load_int32_t(p);
    case NCL_INT64: return (RT_ACC)ncl_load_int64_t(p);
    case NCL_UINT8: return (RT_ACC)ncl_load_uint8_t(p);
    case NCL_UINT16: return (RT_ACC)ncl_load_uint16_t(p);
    case NCL_UINT32: return (RT_ACC)ncl_load_uint32_t(p);
    case NCL_UINT64: return (RT_ACC)ncl_load_uint64_t(p);
    case NCL_FLOAT32: return (RT_ACC)ncl_load_float(p);
    default: return (RT_ACC)ncl_load_double(p);
    }
}

/* ---- one sequence -------------------------------------------------------- */

/* Block of len <= RT_B elements at p, stride s, into the lane vector v. */
NCL_KINLINE void RT_FN(block)(const char *p, int64_t s, int64_t len, int dt, int op, RT_ACC *v)
{
    for (int j = 0; j < RT_L; j++) v[j] = RT_FN(ident)(op);
    if (len == RT_B) {
        for (int t = 0; t < RT_B / RT_L; t++)
            for (int j = 0; j < RT_L; j++)
                v[j] = RT_FN(op)(v[j], RT_FN(load)(p + (t * RT_L + j) * s, dt, op), op);
        return;
    }
    for (int64_t i = 0; i < len; i++)
        v[i % RT_L] = RT_FN(op)(v[i % RT_L], RT_FN(load)(p + i * s, dt, op), op);
}

/* A chunk's lane vector folded by halving, lane j taking lane j + h:
   compensated for sums, plain for products. */
NCL_KINLINE RT_ACC RT_FN(fold)(const RT_ACC *v, int op)
{
    if (op == NCL_PROD) {
        RT_ACC w[RT_L];
        for (int j = 0; j < RT_L; j++) w[j] = v[j];
        for (int h = RT_L / 2; h >= 1; h /= 2)
            for (int j = 0; j < h; j++) w[j] = w[j] * w[j + h];
        return w[0];
    }
    RT_DD d[RT_L];
    for (int j = 0; j < RT_L; j++) {
        d[j].hi = v[j];
        d[j].lo = 0;
    }
    for (int h = RT_L / 2; h >= 1; h /= 2)
        for (int j = 0; j < h; j++) d[j] = RT_DD_ADD(d[j], d[j + h]);
    return d[0].hi;
}

/* Chunk of 1 <= m <= RT_K elements: blocks combined as a binary counter,
   then the lanes folded. */
NCL_KINLINE RT_ACC RT_FN(chunk)(const char *p, int64_t s, int64_t m, int dt, int op)
{
    RT_ACC pend[RT_PENDING][RT_L], v[RT_L];
    int depth = 0;
    const int64_t nb = (m + RT_B - 1) / RT_B;
    for (int64_t b = 0; b < nb; b++) {
        const int64_t len = m - b * RT_B < RT_B ? m - b * RT_B : RT_B;
        RT_FN(block)(p + b * RT_B * s, s, len, dt, op, v);
        for (int64_t k = b + 1; (k & 1) == 0; k >>= 1) {
            depth--;
            for (int j = 0; j < RT_L; j++) v[j] = RT_FN(op)(pend[depth][j], v[j], op);
        }
        if (b + 1 < nb) {
            for (int j = 0; j < RT_L; j++) pend[depth][j] = v[j];
            depth++;
        }
    }
    while (depth > 0) {
        depth--;
        for (int j = 0; j < RT_L; j++) v[j] = RT_FN(op)(pend[depth][j], v[j], op);
    }
    return RT_FN(fold)(v, op);
}

/* Two chunk-level values, earlier on the left. */
NCL_KINLINE RT_DD RT_FN(combine)(RT_DD a, RT_DD b, int op)
{
    if (op != NCL_PROD) return RT_DD_ADD(a, b);
    const RT_DD r = {a.hi * b.hi, 0};
    return r;
}

/* The whole sequence: chunks combined as a binary counter. At most 63
   chunk values can be pending (one per bit of the chunk count). */
NCL_KINLINE RT_DD RT_FN(seq)(const char *p, int64_t s, int64_t n, int dt, int op)
{
    RT_DD v = {RT_FN(empty)(op), 0};
    if (n == 0) return v;
    RT_DD pend[64];
    int depth = 0;
    const int64_t nc = (n + RT_K - 1) / RT_K;
    for (int64_t c = 0; c < nc; c++) {
        const int64_t m = n - c * RT_K < RT_K ? n - c * RT_K : RT_K;
#ifdef RT_GROUP_SUMS
        /* four full contiguous chunks from an index that is a multiple of
           four: the counter's subtree (c0 + c1) + (c2 + c3), computed a
           group at a time (reduce_simd.h), each group entering the counter
           where its fourth chunk would */
        if (op == NCL_SUM && (c & 3) == 0 && n / RT_K - c >= 4 &&
            s == (int64_t)sizeof(RT_ACC) && dt == NCL_FLOAT64) {
            RT_DD g[RS_GROUPS_MAX];
            const int64_t ng = (n / RT_K - c) / 4 < RS_GROUPS_MAX ? (n / RT_K - c) / 4
                                                                  : RS_GROUPS_MAX;
            RT_GROUP_SUMS(p + c * RT_K * s, ng, g);
            for (int64_t i = 0; i < ng; i++) {
                v = g[i];
                for (int64_t k = (c + 4 * i + 4) >> 2; (k & 1) == 0; k >>= 1)
                    v = RT_FN(combine)(pend[--depth], v, op);
                if (c + 4 * i + 4 < nc) pend[depth++] = v;
            }
            c += 4 * ng - 1;
            continue;
        }
#endif
#ifdef RS_HAVE_SIMD
        /* a full contiguous chunk of the accumulator's own dtype: the same
           tree with its lanes in vector registers (reduce_simd.h) */
        if (op == NCL_SUM && m == RT_K && s == (int64_t)sizeof(RT_ACC) &&
            dt == (sizeof(RT_ACC) == 8 ? NCL_FLOAT64 : NCL_FLOAT32))
            v.hi = RT_CAT_(rs_chunk_sum, RT_SFX)(p + c * RT_K * s);
        else
#endif
            v.hi = RT_FN(chunk)(p + c * RT_K * s, s, m, dt, op);
        v.lo = 0;
        for (int64_t k = c + 1; (k & 1) == 0; k >>= 1) v = RT_FN(combine)(pend[--depth], v, op);
        if (c + 1 < nc) pend[depth++] = v;
    }
    while (depth > 0) v = RT_FN(combine)(pend[--depth], v, op);
    return v;
}

/* ---- RT_W sequences side by side ----------------------------------------- */

/* Element i of sequence w is at p + i * s + w * ws. The state of every
   sequence is the state seq() keeps, one column per sequence; the loops
   over w are the ones that vectorise. */
NCL_KINLINE void RT_FN(cols_block)(const char *p, int64_t s, int64_t ws, int64_t len, int dt,
                                   int op, RT_ACC (*v)[RT_W])
{
    for (int j = 0; j < RT_L; j++)
        for (int w = 0; w < RT_W; w++) v[j][w] = RT_FN(ident)(op);
    for (int64_t i = 0; i < len; i++) {
        const char *row = p + i * s;
        RT_ACC *vj = v[i % RT_L];
        for (int w = 0; w < RT_W; w++) vj[w] = RT_FN(op)(vj[w], RT_FN(load)(row + w * ws, dt, op), op);
    }
}

NCL_KINLINE void RT_FN(cols_chunk)(const char *p, int64_t s, int64_t ws, int64_t m, int dt,
                                   int op, RT_ACC *res)
{
    RT_ACC pend[RT_PENDING][RT_L][RT_W], v[RT_L][RT_W];
    int depth = 0;
    const int64_t nb = (m + RT_B - 1) / RT_B;
    /* an empty chunk's state (m == 0: no block sets it) */
    for (int j = 0; j < RT_L; j++)
        for (int w = 0; w < RT_W; w++) v[j][w] = RT_FN(ident)(op);
    for (int64_t b = 0; b < nb; b++) {
        const int64_t len = m - b * RT_B < RT_B ? m - b * RT_B : RT_B;
        RT_FN(cols_block)(p + b * RT_B * s, s, ws, len, dt, op, v);
        for (int64_t k = b + 1; (k & 1) == 0; k >>= 1) {
            depth--;
            for (int j = 0; j < RT_L; j++)
                for (int w = 0; w < RT_W; w++) v[j][w] = RT_FN(op)(pend[depth][j][w], v[j][w], op);
        }
        if (b + 1 < nb) {
            memcpy(pend[depth], v, sizeof v);
            depth++;
        }
    }
    while (depth > 0) {
        depth--;
        for (int j = 0; j < RT_L; j++)
            for (int w = 0; w < RT_W; w++) v[j][w] = RT_FN(op)(pend[depth][j][w], v[j][w], op);
    }
    for (int w = 0; w < RT_W; w++) {
        RT_ACC lanes[RT_L];
        for (int j = 0; j < RT_L; j++) lanes[j] = v[j][w];
        res[w] = RT_FN(fold)(lanes, op);
    }
}

NCL_KINLINE void RT_FN(cols)(const char *p, int64_t s, int64_t ws, int64_t n, int dt, int op,
                             RT_DD *res)
{
    if (n == 0) {
        for (int w = 0; w < RT_W; w++) {
            res[w].hi = RT_FN(empty)(op);
            res[w].lo = 0;
        }
        return;
    }
    RT_DD pend[64][RT_W];
    RT_DD v[RT_W] = {{0}}; /* n > 0: the loop below sets it before any use */
    int depth = 0;
    const int64_t nc = (n + RT_K - 1) / RT_K;
    for (int64_t c = 0; c < nc; c++) {
        const int64_t m = n - c * RT_K < RT_K ? n - c * RT_K : RT_K;
        RT_ACC cv[RT_W];
        RT_FN(cols_chunk)(p + c * RT_K * s, s, ws, m, dt, op, cv);
        for (int w = 0; w < RT_W; w++) {
            v[w].hi = cv[w];
            v[w].lo = 0;
        }
        for (int64_t k = c + 1; (k & 1) == 0; k >>= 1) {
            depth--;
            for (int w = 0; w < RT_W; w++) v[w] = RT_FN(combine)(pend[depth][w], v[w], op);
        }
        if (c + 1 < nc) {
            memcpy(pend[depth], v, sizeof v);
            depth++;
        }
    }
    while (depth > 0) {
        depth--;
        for (int w = 0; w < RT_W; w++) v[w] = RT_FN(combine)(pend[depth][w], v[w], op);
    }
    for (int w = 0; w < RT_W; w++) res[w] = v[w];
}

/* ---- kernels --------------------------------------------------------------- */

#define RT_STORE RT_CAT_(ncl_store, RT_ACC)
#define RT_LOADACC RT_CAT_(ncl_load, RT_ACC)

/* SUM/PROD of aux->count sequences of dtype dt (see the kernel ABI). Runs
   of RT_W adjacent sequences go through cols(); the rest, one at a time,
   through seq(), specialised for contiguous elements. */
NCL_KINLINE NclStatus RT_FN(run)(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                 const int64_t *steps, int dt, int op)
{
    const NclReduceAux *ax = (const NclReduceAux *)ctx->aux;
    const int64_t isz = (int64_t)rk_dtype_size(dt), s = steps[0], os = steps[1];
    const int64_t count = ax->count, outer = ax->in_outer;
    const char *in = args[0];
    char *out = args[1];
    char *lo = (char *)ax->lo;
    int64_t k = 0;
    if (outer == isz && count >= RT_W) {
        for (; k + RT_W <= count; k += RT_W) {
            RT_DD r[RT_W];
            RT_FN(cols)(in + k * outer, s, isz, n, dt, op, r);
            for (int w = 0; w < RT_W; w++) {
                RT_STORE(out + (k + w) * os, r[w].hi);
                if (lo) RT_STORE(lo + (k + w) * os, r[w].lo);
            }
        }
    }
    for (; k < count; k++) {
        const char *q = in + k * outer;
        const RT_DD r = s == isz ? RT_FN(seq)(q, isz, n, dt, op) : RT_FN(seq)(q, s, n, dt, op);
        RT_STORE(out + k * os, r.hi);
        if (lo) RT_STORE(lo + k * os, r.lo);
    }
    return NCL_OK;
}

/* CUMSUM/CUMPROD: sequential running values, from *aux->initial or from
   the identity (which makes result 0 element 0 exactly). */
NCL_KINLINE NclStatus RT_FN(run_cum)(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                     const int64_t *steps, int dt, int op)
{
    const NclReduceAux *ax = (const NclReduceAux *)ctx->aux;
    const int64_t s = steps[0], os = steps[1];
    const RT_ACC start = ax->initial ? RT_LOADACC((const char *)ax->initial) : RT_FN(ident)(op);
    for (int64_t k = 0; k < ax->count; k++) {
        const char *q = args[0] + k * ax->in_outer;
        char *o = args[1] + k * ax->out_outer;
        RT_ACC v = start;
        for (int64_t i = 0; i < n; i++) {
            v = RT_FN(op)(v, RT_FN(load)(q + i * s, dt, op), op);
            RT_STORE(o + i * os, v);
        }
    }
    return NCL_OK;
}

#undef RT_STORE
#undef RT_LOADACC
#undef RT_FN
#undef RT_DD
#undef RT_DD_ADD
#undef RT_CAT_
#undef RT_CAT2_
#undef RT_L
#undef RT_B
#undef RT_K
#undef RT_W
#undef RT_PENDING
#undef RT_ACC
#undef RT_SFX
#undef RT_GROUP_SUMS
