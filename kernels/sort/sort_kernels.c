/*
 * sort_kernels.c: the built-in Sort kernels (sort, argsort, partition,
 * argpartition of one contiguous slice; the ABI is in sort_kernel.h) for
 * all 11 dtypes, and their registration table.
 *
 * Every kernel works on integer keys (sort_keys.h). Which algorithm runs
 * depends on the slice length:
 *   SORT          <= NCL_SORT_SMALL: insertion sort; 1-byte dtypes: counting
 *                 sort; short of ncl_sort_uses_radix: introsort (default kind)
 *                 or merge sort (stable); longer: radix sort (MSD first for
 *                 8-byte values, LSD otherwise). A stable
 *                 float sort by radix orders -0.0 before +0.0 and NaNs by
 *                 payload (bkeys); when a slice holds both zeros or several
 *                 NaN payloads, those runs are refilled from the input in
 *                 input order.
 *   ARGSORT       always stable: (key, index) records, so ties are broken by
 *                 index; insertion / introsort on them, radix when long.
 *   PARTITION     introselect on bkeys built in the output.
 *   ARGPARTITION  introselect on (key, index) records.
 */
#include "sort_compare.h"
#include "sort_radix.h"

/* ---- the comparison algorithms, one instance per record size / mode --------- */

/* The stable ones also in the canonical float modes; introsort is not
   stable, so it never needs them. */
#define STABLE_WRAPPERS_(sfx, es, cm)                                                 \
    static void ins_##sfx(char *b, int64_t n) { sr_insertion(b, n, es, cm); }         \
    static void merge_##sfx(char *b, char *t, int64_t n) { sr_mergesort(b, t, n, es, cm); }
#define INTRO_WRAPPER_(es) \
    static void intro_##es(char *b, int64_t n) { sr_introsort(b, n, es, SK_PLAIN); }
STABLE_WRAPPERS_(1, 1, SK_PLAIN)
STABLE_WRAPPERS_(2, 2, SK_PLAIN)
STABLE_WRAPPERS_(4, 4, SK_PLAIN)
STABLE_WRAPPERS_(8, 8, SK_PLAIN)
STABLE_WRAPPERS_(16, 16, SK_PLAIN)
STABLE_WRAPPERS_(c4, 4, SK_CANON4)
STABLE_WRAPPERS_(c8, 8, SK_CANON8)
INTRO_WRAPPER_(1)
INTRO_WRAPPER_(2)
INTRO_WRAPPER_(4)
INTRO_WRAPPER_(8)
INTRO_WRAPPER_(16)
#undef STABLE_WRAPPERS_
#undef INTRO_WRAPPER_

#define SELECT_WRAPPER_(es) \
    static void select_##es(char *b, int64_t n, int64_t kth) { sr_select(b, n, kth, es, SK_PLAIN, select_##es); }
SELECT_WRAPPER_(1)
SELECT_WRAPPER_(2)
SELECT_WRAPPER_(4)
SELECT_WRAPPER_(8)
SELECT_WRAPPER_(16)
#undef SELECT_WRAPPER_

/* The MSD split of 8-byte keys (sort_radix.h). */
static void msd_8(char *src, char *dst, int64_t m, int lim) { rx_msd_sub(src, dst, m, lim, 8, msd_8); }

typedef void (*sort_fn)(char *b, int64_t n);
typedef void (*merge_fn)(char *b, char *t, int64_t n);

/* es: record size; cm: compare mode (SK_CANON4/8 only with es 4/8). */
static sort_fn pick_insertion(int es, int cm)
{
    switch (es) {
    case 1: return ins_1;
    case 2: return ins_2;
    case 4: return cm ? ins_c4 : ins_4;
    case 8: return cm ? ins_c8 : ins_8;
    default: return ins_16;
    }
}

static sort_fn pick_introsort(int es)
{
    switch (es) {
    case 1: return intro_1;
    case 2: return intro_2;
    case 4: return intro_4;
    case 8: return intro_8;
    default: return intro_16;
    }
}

static merge_fn pick_mergesort(int es, int cm)
{
    switch (es) {
    case 1: return merge_1;
    case 2: return merge_2;
    case 4: return cm ? merge_c4 : merge_4;
    case 8: return cm ? merge_c8 : merge_8;
    default: return merge_16;
    }
}

static sr_select_fn pick_select(int es)
{
    switch (es) {
    case 1: return select_1;
    case 2: return select_2;
    case 4: return select_4;
    case 8: return select_8;
    default: return select_16;
    }
}

/* ---- helpers ------------------------------------------------------------------- */

/* The workspace, checked against what (op, dt, kind, n) needs; NULL when
   the caller passed too little (aux is not NULL). */
NCL_KINLINE int work_ok(const ncl_sort_aux *aux, int op, NclDType dt, int64_t n)
{
    const size_t need = ncl_sort_work_bytes(op, dt, aux->kind, n);
    return need == 0 || (aux->work != NULL && aux->work_bytes >= need);
}

/* Region r of the workspace: the histograms (when hist), then buffers of
   `bytes` each, every one starting on a 64-byte boundary. */
NCL_KINLINE char *work_region(const ncl_sort_aux *aux, int hist, size_t bytes, int r)
{
    size_t off = hist ? NCL_SORT_HIST_BYTES : 0;
    const size_t stride = (bytes + 63) & ~(size_t)63;
    off += (size_t)r * stride;
    return (char *)aux->work + off;
}

NCL_KINLINE void to_bkeys(const char *in, char *out, int64_t n, NclDType dt)
{
    const int w = ncl_sort_width(dt);
    for (int64_t i = 0; i < n; i++) sk_store(out + i * w, sk_bkey(sk_load(in + i * w, w), dt), w);
}

NCL_KINLINE void from_bkeys(char *b, int64_t n, NclDType dt)
{
    const int w = ncl_sort_width(dt);
    for (int64_t i = 0; i < n; i++) sk_store(b + i * w, sk_binv(sk_load(b + i * w, w), dt), w);
}

/* Packed records ckey << 32 | i of in[0, n) into the 64-bit words at out. */
NCL_KINLINE void to_packed(const char *in, char *out, int64_t n, NclDType dt)
{
    const int w = ncl_sort_width(dt);
    for (int64_t i = 0; i < n; i++)
        sk_store(out + i * 8, sk_ckey(sk_load(in + i * w, w), dt) << 32 | (uint64_t)i, 8);
}

NCL_KINLINE void unpack_indices(char *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++) sk_store(out + i * 8, sk_load(out + i * 8, 8) & 0xFFFFFFFFu, 8);
}

/* (ckey, index) pairs of in[0, n) into pairs. */
NCL_KINLINE void to_pairs(const char *in, char *pairs, int64_t n, NclDType dt)
{
    const int w = ncl_sort_width(dt);
    for (int64_t i = 0; i < n; i++) {
        sk_store(pairs + i * 16, sk_ckey(sk_load(in + i * w, w), dt), 8);
        sk_store(pairs + i * 16 + 8, (uint64_t)i, 8);
    }
}

NCL_KINLINE void pair_indices(const char *pairs, char *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++) sk_store(out + i * 8, sk_load(pairs + i * 16 + 8, 8), 8);
}

/* First index of the sorted elements b[0, n) whose bkey is >= key. */
NCL_KINLINE int64_t lower_bound(const char *b, int64_t n, uint64_t key, NclDType dt)
{
    const int w = ncl_sort_width(dt);
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + ((hi - lo) >> 1);
        if (sk_bkey(sk_load(b + mid * w, w), dt) < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* After a bkey sort of floats (out sorted, in the input): restores input
   order inside the run of zeros when it holds both signs, and inside the
   run of NaNs when it holds more than one bit pattern. */
NCL_KINLINE void restore_stable_specials(const char *in, char *out, int64_t n, NclDType dt)
{
    const int w = ncl_sort_width(dt);
    const uint64_t sign = sk_sign(w), inf = sk_inf(w), kneg0 = sk_kneg0(w);
    const int64_t z0 = lower_bound(out, n, kneg0, dt);
    const int64_t zm = lower_bound(out, n, kneg0 + 1, dt);
    const int64_t z1 = lower_bound(out, n, kneg0 + 2, dt);
    if (z0 < zm && zm < z1) {
        int64_t j = z0;
        for (int64_t i = 0; i < n && j < z1; i++) {
            const uint64_t u = sk_load(in + i * w, w);
            if ((u & ~sign) == 0) sk_store(out + j++ * w, u, w);
        }
    }
    const int64_t q0 = lower_bound(out, n, sk_kinf(w) + 1, dt);
    if (q0 < n - 1 && sk_load(out + q0 * w, w) != sk_load(out + (n - 1) * w, w)) {
        int64_t j = q0;
        for (int64_t i = 0; i < n && j < n; i++) {
            const uint64_t u = sk_load(in + i * w, w);
            if ((u & ~sign) > inf) sk_store(out + j++ * w, u, w);
        }
    }
}

/* Counting sort of 1-byte elements. */
NCL_KINLINE void counting_sort_bytes(const char *in, char *out, int64_t n, NclDType dt)
{
    size_t count[256] = {0};
    for (int64_t i = 0; i < n; i++) count[sk_bkey((unsigned char)in[i], dt)]++;
    size_t pos = 0;
    for (unsigned k = 0; k < 256; k++) {
        if (!count[k]) continue;
        memset(out + pos, (int)sk_binv(k, dt), count[k]);
        pos += count[k];
    }
}

/* ---- the kernels ------------------------------------------------------------------ */

NCL_KINLINE NclStatus k_sort(const NclKernelCtx *ctx, char *const *args, int64_t n,
                             const int64_t *steps, NclDType dt)
{
    const int w = ncl_sort_width(dt);
    const ncl_sort_aux *aux = (const ncl_sort_aux *)ctx->aux;
    if (aux == NULL || steps[0] != w || steps[1] != w || !work_ok(aux, NCL_SORT, dt, n))
        return NCL_ERR_INVALID_ARGUMENT;
    const char *in = args[0];
    char *out = args[1];
    if (n <= 1) {
        if (n == 1) memcpy(out, in, (size_t)w);
        return NCL_OK;
    }
    const int stable = aux->kind == NCL_SORT_STABLE;
    const int cm = stable && sk_is_float(dt) ? w : SK_PLAIN;
    if (n <= NCL_SORT_SMALL) {
        to_bkeys(in, out, n, dt);
        pick_insertion(w, cm)(out, n);
        from_bkeys(out, n, dt);
        return NCL_OK;
    }
    if (w == 1) {
        counting_sort_bytes(in, out, n, dt);
        return NCL_OK;
    }
    if (!ncl_sort_uses_radix(NCL_SORT, dt, aux->kind, n)) {
        to_bkeys(in, out, n, dt);
        if (stable) pick_mergesort(w, cm)(out, work_region(aux, 0, 0, 0), n);
        else pick_introsort(w)(out, n);
        from_bkeys(out, n, dt);
        return NCL_OK;
    }
    /* MSD for 8-byte keys (two passes over memory instead of seven);
       shorter keys need only two or four LSD passes, which measured faster */
    if (w == 8)
        rx_msd_values(in, out, work_region(aux, 1, 0, 0), (uint32_t *)aux->work, n, dt, msd_8);
    else
        rx_sort_values(in, out, work_region(aux, 1, 0, 0), (uint32_t *)aux->work, n, dt);
    if (stable && sk_is_float(dt)) restore_stable_specials(in, out, n, dt);
    return NCL_OK;
}

NCL_KINLINE NclStatus k_argsort(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                const int64_t *steps, NclDType dt)
{
    const int w = ncl_sort_width(dt);
    const ncl_sort_aux *aux = (const ncl_sort_aux *)ctx->aux;
    if (aux == NULL || steps[0] != w || steps[1] != 8 || !work_ok(aux, NCL_ARGSORT, dt, n))
        return NCL_ERR_INVALID_ARGUMENT;
    const char *in = args[0];
    char *out = args[1];
    if (n <= 1) {
        if (n == 1) sk_store(out, 0, 8);
        return NCL_OK;
    }
    const int radix = ncl_sort_uses_radix(NCL_ARGSORT, dt, aux->kind, n);
    const size_t bytes8 = (size_t)n * 8;
    if (ncl_sort_packed(dt, n)) {
        if (radix) {
            rx_argsort_packed(in, out, work_region(aux, 1, bytes8, 0), (uint32_t *)aux->work, n, dt);
            return NCL_OK;
        }
        to_packed(in, out, n, dt);
        (n <= NCL_SORT_SMALL ? pick_insertion(8, SK_PLAIN) : pick_introsort(8))(out, n);
        unpack_indices(out, n);
        return NCL_OK;
    }
    if (radix) {
        rx_argsort_wide(in, out, work_region(aux, 1, bytes8, 0), work_region(aux, 1, bytes8, 1),
                        work_region(aux, 1, bytes8, 2), (uint32_t *)aux->work, n, dt);
        return NCL_OK;
    }
    char *pairs = work_region(aux, 0, 0, 0);
    to_pairs(in, pairs, n, dt);
    (n <= NCL_SORT_SMALL ? pick_insertion(16, SK_PLAIN) : pick_introsort(16))(pairs, n);
    pair_indices(pairs, out, n);
    return NCL_OK;
}

NCL_KINLINE NclStatus k_partition(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                  const int64_t *steps, NclDType dt)
{
    const int w = ncl_sort_width(dt);
    const ncl_sort_aux *aux = (const ncl_sort_aux *)ctx->aux;
    if (aux == NULL || steps[0] != w || steps[1] != w || (n > 0 && (aux->kth < 0 || aux->kth >= n)))
        return NCL_ERR_INVALID_ARGUMENT;
    to_bkeys(args[0], args[1], n, dt);
    if (n > 1) pick_select(w)(args[1], n, aux->kth);
    from_bkeys(args[1], n, dt);
    return NCL_OK;
}

NCL_KINLINE NclStatus k_argpartition(const NclKernelCtx *ctx, char *const *args, int64_t n,
                                     const int64_t *steps, NclDType dt)
{
    const int w = ncl_sort_width(dt);
    const ncl_sort_aux *aux = (const ncl_sort_aux *)ctx->aux;
    if (aux == NULL || steps[0] != w || steps[1] != 8 || (n > 0 && (aux->kth < 0 || aux->kth >= n)) ||
        !work_ok(aux, NCL_ARGPARTITION, dt, n))
        return NCL_ERR_INVALID_ARGUMENT;
    const char *in = args[0];
    char *out = args[1];
    if (n <= 1) {
        if (n == 1) sk_store(out, 0, 8);
        return NCL_OK;
    }
    if (ncl_sort_packed(dt, n)) {
        to_packed(in, out, n, dt);
        pick_select(8)(out, n, aux->kth);
        unpack_indices(out, n);
        return NCL_OK;
    }
    char *pairs = work_region(aux, 0, 0, 0);
    to_pairs(in, pairs, n, dt);
    pick_select(16)(pairs, n, aux->kth);
    pair_indices(pairs, out, n);
    return NCL_OK;
}

#define SORT_KERNELS_(e, sfx, T, name, kind)                                            \
    static NclStatus ncl_k_sort_##sfx(NclKernelNode *self, const NclKernelCtx *ctx,     \
                                      char *const *args, int64_t n, const int64_t *steps) \
    {                                                                                   \
        (void)self;                                                                     \
        return k_sort(ctx, args, n, steps, e);                                          \
    }                                                                                   \
    static NclStatus ncl_k_argsort_##sfx(NclKernelNode *self, const NclKernelCtx *ctx,  \
                                         char *const *args, int64_t n, const int64_t *steps) \
    {                                                                                   \
        (void)self;                                                                     \
        return k_argsort(ctx, args, n, steps, e);                                       \
    }                                                                                   \
    static NclStatus ncl_k_partition_##sfx(NclKernelNode *self, const NclKernelCtx *ctx, \
                                           char *const *args, int64_t n,               \
                                           const int64_t *steps)                       \
    {                                                                                   \
        (void)self;                                                                     \
        return k_partition(ctx, args, n, steps, e);                                     \
    }                                                                                   \
    static NclStatus ncl_k_argpartition_##sfx(NclKernelNode *self, const NclKernelCtx *ctx, \
                                              char *const *args, int64_t n,            \
                                              const int64_t *steps)                    \
    {                                                                                   \
        (void)self;                                                                     \
        return k_argpartition(ctx, args, n, steps, e);                                  \
    }
NCL_DTYPE_LIST(SORT_KERNELS_)
#undef SORT_KERNELS_

#define SORT_ENTRIES_(e, sfx, T, name, kind)                                            \
    {NCL_SUBSYSTEM_SORT, 2, NCL_SORT, {e, e}, ncl_k_sort_##sfx, "ncl_k_sort_" #sfx},    \
    {NCL_SUBSYSTEM_SORT, 2, NCL_ARGSORT, {e, NCL_INT64}, ncl_k_argsort_##sfx,           \
     "ncl_k_argsort_" #sfx},                                                            \
    {NCL_SUBSYSTEM_SORT, 2, NCL_PARTITION, {e, e}, ncl_k_partition_##sfx,               \
     "ncl_k_partition_" #sfx},                                                          \
    {NCL_SUBSYSTEM_SORT, 2, NCL_ARGPARTITION, {e, NCL_INT64}, ncl_k_argpartition_##sfx, \
     "ncl_k_argpartition_" #sfx},

const ncl_kernel_entry ncl_k_sort_table[] = {NCL_DTYPE_LIST(SORT_ENTRIES_)};
const size_t ncl_k_sort_count = sizeof ncl_k_sort_table / sizeof ncl_k_sort_table[0];
#undef SORT_ENTRIES_
