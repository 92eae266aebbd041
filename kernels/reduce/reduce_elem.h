/*
 * reduce_elem.h: the reductions whose result does not depend on the order
 * of combination (min, max, argmin, argmax, any, all, count_nonzero),
 * written once and included once per element type: define RE_T (the C
 * type), RE_SFX (its dtype suffix), RE_FLOAT (1 for float32/float64) and
 * RE_TMIN / RE_TMAX (the identities of max and min: the type's limits, or
 * -inf and +inf) first, and optionally RE_SIMD_MM_RAW (a vector form of
 * mm_raw for contiguous elements, from reduce_simd.h). Because these ops are exact, the loops may run their lanes in any
 * order; the only order-dependent parts of their results are fixed by
 * explicit rescans of the sequence (see the kernel ABI in ncl/reduce.h):
 *   - min/max: any NaN gives the first NaN, bit for bit; a zero extreme
 *     gives the last zero of the sequence, so -0.0 versus +0.0 follows the
 *     logical order, never the layout;
 *   - argmin/argmax: the first index of the extreme, or of the first NaN.
 * Comparisons here are the ordinary (signalling) ones so that they
 * vectorise; the kernels that run them put the INVALID flag back as they
 * found it (a NaN is not an invalid operation for a reduction).
 */
#ifndef RE_T
#  error "define RE_T, RE_SFX, RE_FLOAT, RE_TMIN and RE_TMAX before including reduce_elem.h"
#endif

#define RE_CAT2_(a, b) a##_##b
#define RE_CAT_(a, b) RE_CAT2_(a, b)
#define RE_FN(name) RE_CAT_(re_##name, RE_SFX)
#define RE_LOAD(p) RE_CAT_(ncl_load, RE_T)(p)

/* Lanes of the contiguous loops: 128 bytes, eight SSE or two AVX-512
   registers of independent accumulators. */
#define RE_L ((int)(128 / sizeof(RE_T)))
/* Columns per cols() call. */
#define RE_W ((int)(64 / sizeof(RE_T)) < 8 ? 8 : (int)(64 / sizeof(RE_T)))
#define RE_WMAX 64

#if RE_FLOAT
#  define RE_ISNAN(x) ((x) != (x))
#else
#  define RE_ISNAN(x) ((void)(x), 0)
#endif

/* The identity of min (is_max = 0) and max: the type's limits (+-inf). */
NCL_KINLINE RE_T RE_FN(mm_ident)(int is_max) { return is_max ? RE_TMIN : RE_TMAX; }

/* x replaces m: strictly better, or (floats) NaN, which then sticks
   because nothing compares better than NaN. */
NCL_KINLINE int RE_FN(better)(RE_T x, RE_T m, int is_max)
{
    /* | rather than ||: no branch, so the lane loops vectorise */
    return (is_max ? x > m : x < m) | RE_ISNAN(x);
}

/* Index of the first NaN among n elements (n if none). */
NCL_KINLINE int64_t RE_FN(first_nan)(const char *p, int64_t s, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        const RE_T x = RE_LOAD(p + i * s);
        if (RE_ISNAN(x)) return i;
    }
    return n;
}

/* Index of the last element equal to zero (n >= 1 and one exists). */
NCL_KINLINE int64_t RE_FN(last_zero)(const char *p, int64_t s, int64_t n)
{
    for (int64_t i = n - 1; i > 0; i--)
        if (RE_LOAD(p + i * s) == 0) return i;
    return 0;
}

/* ---- min / max ------------------------------------------------------------ */

/* The extreme of n >= 0 elements, NaN-sticky, sign of zero unspecified. */
NCL_KINLINE RE_T RE_FN(mm_raw)(const char *p, int64_t s, int64_t n, int is_max)
{
#ifdef RE_SIMD_MM_RAW
    if (s == (int64_t)sizeof(RE_T)) return RE_SIMD_MM_RAW(p, n, is_max); /* reduce_simd.h */
#endif
    RE_T m[RE_L];
    for (int j = 0; j < RE_L; j++) m[j] = RE_FN(mm_ident)(is_max);
    int64_t i = 0;
    for (; i + RE_L <= n; i += RE_L)
        for (int j = 0; j < RE_L; j++) {
            const RE_T x = RE_LOAD(p + (i + j) * s);
            m[j] = RE_FN(better)(x, m[j], is_max) ? x : m[j];
        }
    for (; i < n; i++) {
        const RE_T x = RE_LOAD(p + i * s);
        m[0] = RE_FN(better)(x, m[0], is_max) ? x : m[0];
    }
    for (int j = 1; j < RE_L; j++) m[0] = RE_FN(better)(m[j], m[0], is_max) ? m[j] : m[0];
    return m[0];
}

/* The result the ABI defines, from the raw extreme r of the same elements. */
NCL_KINLINE RE_T RE_FN(mm_fix)(const char *p, int64_t s, int64_t n, RE_T r)
{
#if RE_FLOAT
    if (RE_ISNAN(r)) return RE_LOAD(p + RE_FN(first_nan)(p, s, n) * s);
    if (r == 0) return RE_LOAD(p + RE_FN(last_zero)(p, s, n) * s);
#else
    (void)p;
    (void)s;
    (void)n;
#endif
    return r;
}

NCL_KINLINE RE_T RE_FN(mm_seq)(const char *p, int64_t s, int64_t n, int is_max)
{
    const RE_T r = RE_FN(mm_raw)(p, s, n, is_max);
    return n ? RE_FN(mm_fix)(p, s, n, r) : r;
}

/* w <= RE_WMAX sequences side by side (element i of sequence c at
   p + i * s + c * sizeof(RE_T)), a row at a time. */
NCL_KINLINE void RE_FN(mm_cols)(const char *p, int64_t s, int64_t n, int is_max, RE_T *res)
{
    RE_T m[RE_WMAX];
    for (int w = 0; w < RE_W; w++) m[w] = RE_FN(mm_ident)(is_max);
    for (int64_t i = 0; i < n; i++) {
        const char *row = p + i * s;
        for (int w = 0; w < RE_W; w++) {
            const RE_T x = RE_LOAD(row + w * (int64_t)sizeof(RE_T));
            m[w] = RE_FN(better)(x, m[w], is_max) ? x : m[w];
        }
    }
    for (int w = 0; w < RE_W; w++)
        res[w] = n ? RE_FN(mm_fix)(p + w * (int64_t)sizeof(RE_T), s, n, m[w]) : m[w];
}

#if RE_FLOAT
/* NANMIN / NANMAX (NumPy's fmin/fmax reduction): the extreme of the
   elements that are not NaN; NaN when every one of n >= 1 is (the first
   NaN, bit for bit), the identity when n == 0. Among extremes that compare
   equal (-0.0 and +0.0) the last in the sequence, as MIN/MAX. */
#define RE_NL 32 /* lanes: gcc 12 vectorises 32 of either float type, not 16 doubles */
NCL_KINLINE RE_T RE_FN(nanmm_raw)(const char *p, int64_t s, int64_t n, int is_max)
{
    RE_T m[RE_NL];
    for (int j = 0; j < RE_NL; j++) m[j] = RE_FN(mm_ident)(is_max);
    int64_t i = 0;
    /* a NaN compares false, so it never replaces m: no branch, vectorised.
       Which lane holds what decides nothing: the value is the extreme's
       whatever the order, and its zero sign is fixed below. */
    for (; i + RE_NL <= n; i += RE_NL)
        for (int j = 0; j < RE_NL; j++) {
            const RE_T x = RE_LOAD(p + (i + j) * s);
            m[j] = (is_max ? x > m[j] : x < m[j]) ? x : m[j];
        }
    for (; i < n; i++) {
        const RE_T x = RE_LOAD(p + i * s);
        m[0] = (is_max ? x > m[0] : x < m[0]) ? x : m[0];
    }
    for (int j = 1; j < RE_NL; j++) m[0] = (is_max ? m[j] > m[0] : m[j] < m[0]) ? m[j] : m[0];
    return m[0];
}

NCL_KINLINE RE_T RE_FN(nanmm_seq)(const char *p, int64_t s, int64_t n, int is_max)
{
    const RE_T r = RE_FN(nanmm_raw)(p, s, n, is_max);
    if (n == 0) return r;
    if (r == RE_FN(mm_ident)(is_max)) {
        /* the identity itself, or nothing but NaN */
        for (int64_t k = 0; k < n; k++)
            if (!RE_ISNAN(RE_LOAD(p + k * s))) return r;
        return RE_LOAD(p);
    }
    if (r == 0) return RE_LOAD(p + RE_FN(last_zero)(p, s, n) * s);
    return r;
}
#endif

#if RE_FLOAT
/* NANARGMIN / NANARGMAX (NumPy's nanargmin): the first index of the
   extreme when a NaN reads as +inf (-inf for the max), so an all-NaN
   sequence gives 0 and a NaN ties with an infinity; the caller tells an
   all-NaN sequence apart. Contiguous: each block's extreme by the
   vectorised loop, and only a block that improves on the best so far is
   searched for the first index reaching it. */
NCL_KINLINE RE_T RE_FN(nan_as)(RE_T x, int is_max)
{
    return RE_ISNAN(x) ? RE_FN(mm_ident)(is_max) : x;
}

NCL_KINLINE int64_t RE_FN(nanarg_seq)(const char *p, int64_t s, int64_t n, int is_max)
{
    if (n <= 0) return 0;
    RE_T best = RE_FN(nan_as)(RE_LOAD(p), is_max);
    int64_t bi = 0;
    if (s != (int64_t)sizeof(RE_T)) {
        for (int64_t i = 1; i < n; i++) {
            const RE_T x = RE_FN(nan_as)(RE_LOAD(p + i * s), is_max);
            if (is_max ? x > best : x < best) {
                best = x;
                bi = i;
            }
        }
        return bi;
    }
    for (int64_t b0 = 0; b0 < n; b0 += 512) {
        const int64_t len = n - b0 < 512 ? n - b0 : 512;
        const char *q = p + b0 * (int64_t)sizeof(RE_T);
        const RE_T r = RE_FN(nanmm_raw)(q, (int64_t)sizeof(RE_T), len, is_max);
        if (!(is_max ? r > best : r < best)) continue;
        for (int64_t i = 0; i < len; i++)
            if (RE_LOAD(q + i * (int64_t)sizeof(RE_T)) == r) {
                best = r;
                bi = b0 + i;
                break;
            }
    }
    return bi;
}
#endif

/* ---- argmin / argmax -------------------------------------------------------- */

/* Elements per step of the contiguous argmin: its extreme is found with the
   vectorised loop, and only a block that improves on the best so far is
   searched for the first index reaching it. */
#define RE_ARG_BLOCK 512

NCL_KINLINE int64_t RE_FN(arg_seq)(const char *p, int64_t s, int64_t n, int is_max)
{
    if (n <= 0) return 0;
    if (s != (int64_t)sizeof(RE_T)) { /* strided: one pass, quiet about order */
        RE_T best = RE_LOAD(p);
        int64_t bi = 0;
        if (RE_ISNAN(best)) return 0;
        for (int64_t i = 1; i < n; i++) {
            const RE_T x = RE_LOAD(p + i * s);
            if (RE_FN(better)(x, best, is_max)) {
                if (RE_ISNAN(x)) return i;
                best = x;
                bi = i;
            }
        }
        return bi;
    }
    RE_T best = RE_LOAD(p);
    int64_t bi = 0;
    for (int64_t b0 = 0; b0 < n; b0 += RE_ARG_BLOCK) {
        const int64_t len = n - b0 < RE_ARG_BLOCK ? n - b0 : RE_ARG_BLOCK;
        const char *q = p + b0 * (int64_t)sizeof(RE_T);
        const RE_T r = RE_FN(mm_raw)(q, (int64_t)sizeof(RE_T), len, is_max);
        if (RE_ISNAN(r)) return b0 + RE_FN(first_nan)(q, (int64_t)sizeof(RE_T), len);
        if (is_max ? r > best : r < best) {
            best = r;
            int64_t i = 0;
            while (RE_LOAD(q + i * (int64_t)sizeof(RE_T)) != r) i++;
            bi = b0 + i;
        }
    }
    return bi;
}

/* ---- any / all / count_nonzero -------------------------------------------- */

/* Elements between the early-exit tests of any and all. */
#define RE_LOGIC_BLOCK 256

/* any (want = 1): whether some element is non-zero; all (want = 0):
   whether none is zero. NaN is non-zero; x != 0 is a quiet compare. */
NCL_KINLINE int RE_FN(logic_seq)(const char *p, int64_t s, int64_t n, int want)
{
    for (int64_t b0 = 0; b0 < n; b0 += RE_LOGIC_BLOCK) {
        const int64_t len = n - b0 < RE_LOGIC_BLOCK ? n - b0 : RE_LOGIC_BLOCK;
        const char *q = p + b0 * s;
        int hit = 0;
        if (want)
            for (int64_t i = 0; i < len; i++) hit |= RE_LOAD(q + i * s) != 0;
        else
            for (int64_t i = 0; i < len; i++) hit |= RE_LOAD(q + i * s) == 0;
        if (hit) return want;
    }
    return !want;
}

NCL_KINLINE int64_t RE_FN(count_seq)(const char *p, int64_t s, int64_t n)
{
    int64_t c = 0;
    for (int64_t i = 0; i < n; i++) c += RE_LOAD(p + i * s) != 0;
    return c;
}

/* any/all (want as above) or count (want = 2) of RE_W adjacent sequences,
   a row at a time; results as int64 counts or 0/1. */
NCL_KINLINE void RE_FN(logic_cols)(const char *p, int64_t s, int64_t n, int want, int64_t *res)
{
    int64_t c[RE_WMAX];
    for (int w = 0; w < RE_W; w++) c[w] = 0;
    for (int64_t i = 0; i < n; i++) {
        const char *row = p + i * s;
        for (int w = 0; w < RE_W; w++) c[w] += RE_LOAD(row + w * (int64_t)sizeof(RE_T)) != 0;
    }
    for (int w = 0; w < RE_W; w++)
        res[w] = want == 2 ? c[w] : want == 1 ? c[w] != 0 : c[w] == n;
}

/* ---- kernels --------------------------------------------------------------- */

#if RE_FLOAT && defined(FE_INVALID)
#  define RE_INVALID_ENTER() const int re_invalid_before_ = fetestexcept(FE_INVALID)
#  define RE_INVALID_LEAVE()                                                    \
      do {                                                                      \
          if (!re_invalid_before_ && fetestexcept(FE_INVALID)) feclearexcept(FE_INVALID); \
      } while (0)
#else
#  define RE_INVALID_ENTER() (void)0
#  define RE_INVALID_LEAVE() (void)0
#endif

/* MIN (is_max = 0) / MAX of aux->count sequences. Bool results are stored
   as 0/1 whatever non-zero byte the input held. */
NCL_KINLINE NclStatus RE_FN(run_mm)(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                    const int64_t *steps, int is_max, int is_bool)
{
    const NclReduceAux *ax = (const NclReduceAux *)ctx->aux;
    const int64_t isz = (int64_t)sizeof(RE_T), s = steps[0], os = steps[1];
    const char *in = args[0];
    char *out = args[1];
    int64_t k = 0;
    RE_INVALID_ENTER();
    if (ax->in_outer == isz && ax->count >= RE_W) {
        for (; k + RE_W <= ax->count; k += RE_W) {
            RE_T r[RE_WMAX];
            RE_FN(mm_cols)(in + k * isz, s, n, is_max, r);
            for (int w = 0; w < RE_W; w++)
                RE_CAT_(ncl_store, RE_T)(out + (k + w) * os, is_bool ? (RE_T)(r[w] != 0) : r[w]);
        }
    }
    for (; k < ax->count; k++) {
        const char *q = in + k * ax->in_outer;
        RE_T r = s == isz ? RE_FN(mm_seq)(q, isz, n, is_max) : RE_FN(mm_seq)(q, s, n, is_max);
        if (is_bool) r = (RE_T)(r != 0);
        RE_CAT_(ncl_store, RE_T)(out + k * os, r);
    }
    RE_INVALID_LEAVE();
    return NCL_OK;
}

#if RE_FLOAT
NCL_KINLINE NclStatus RE_FN(run_nanmm)(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                       const int64_t *steps, int is_max)
{
    const NclReduceAux *ax = (const NclReduceAux *)ctx->aux;
    const int64_t isz = (int64_t)sizeof(RE_T), s = steps[0];
    RE_INVALID_ENTER();
    for (int64_t k = 0; k < ax->count; k++) {
        const char *q = args[0] + k * ax->in_outer;
        const RE_T r = s == isz ? RE_FN(nanmm_seq)(q, isz, n, is_max)
                                : RE_FN(nanmm_seq)(q, s, n, is_max);
        RE_CAT_(ncl_store, RE_T)(args[1] + k * steps[1], r);
    }
    RE_INVALID_LEAVE();
    return NCL_OK;
}
#endif

#if RE_FLOAT
NCL_KINLINE NclStatus RE_FN(run_nanarg)(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                        const int64_t *steps, int is_max)
{
    const NclReduceAux *ax = (const NclReduceAux *)ctx->aux;
    RE_INVALID_ENTER();
    for (int64_t k = 0; k < ax->count; k++)
        ncl_store_int64_t(args[1] + k * steps[1],
                          RE_FN(nanarg_seq)(args[0] + k * ax->in_outer, steps[0], n, is_max));
    RE_INVALID_LEAVE();
    return NCL_OK;
}
#endif

NCL_KINLINE NclStatus RE_FN(run_arg)(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                     const int64_t *steps, int is_max)
{
    const NclReduceAux *ax = (const NclReduceAux *)ctx->aux;
    RE_INVALID_ENTER();
    for (int64_t k = 0; k < ax->count; k++)
        ncl_store_int64_t(args[1] + k * steps[1],
                          RE_FN(arg_seq)(args[0] + k * ax->in_outer, steps[0], n, is_max));
    RE_INVALID_LEAVE();
    return NCL_OK;
}

/* ANY (want = 1), ALL (want = 0) -> bool; COUNT_NONZERO (want = 2) -> int64. */
NCL_KINLINE NclStatus RE_FN(run_logic)(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                       const int64_t *steps, int want)
{
    const NclReduceAux *ax = (const NclReduceAux *)ctx->aux;
    const int64_t isz = (int64_t)sizeof(RE_T), s = steps[0], os = steps[1];
    const char *in = args[0];
    char *out = args[1];
    int64_t k = 0;
    if (ax->in_outer == isz && ax->count >= RE_W) {
        for (; k + RE_W <= ax->count; k += RE_W) {
            int64_t r[RE_WMAX];
            RE_FN(logic_cols)(in + k * isz, s, n, want, r);
            for (int w = 0; w < RE_W; w++) {
                if (want == 2) ncl_store_int64_t(out + (k + w) * os, r[w]);
                else ncl_store_ncl_bool(out + (k + w) * os, (ncl_bool)r[w]);
            }
        }
    }
    for (; k < ax->count; k++) {
        const char *q = in + k * ax->in_outer;
        if (want == 2) {
            const int64_t c = s == isz ? RE_FN(count_seq)(q, isz, n) : RE_FN(count_seq)(q, s, n);
            ncl_store_int64_t(out + k * os, c);
        } else {
            const int r = s == isz ? RE_FN(logic_seq)(q, isz, n, want)
                                   : RE_FN(logic_seq)(q, s, n, want);
            ncl_store_ncl_bool(out + k * os, (ncl_bool)r);
        }
    }
    return NCL_OK;
}

#undef RE_INVALID_ENTER
#undef RE_INVALID_LEAVE
#undef RE_FN
#undef RE_CAT_
#undef RE_CAT2_
#undef RE_LOAD
#undef RE_L
#undef RE_W
#undef RE_WMAX
#undef RE_ISNAN
#undef RE_ARG_BLOCK
#undef RE_NL
#undef RE_LOGIC_BLOCK
#undef RE_T
#undef RE_SFX
#undef RE_FLOAT
#undef RE_TMIN
#undef RE_TMAX
#undef RE_SIMD_MM_RAW
