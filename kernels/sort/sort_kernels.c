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

/* Part p's region of a phase call's workspace (sort_kernel.h): its counts
   (then offsets, then for the last part the bucket ends), its local
   buffer, and its cell: the bits in which its keys vary, then its first
   bucket. */
NCL_KINLINE uint32_t *phase_counts(char *work, int64_t p)
{
    return (uint32_t *)(void *)(work + (size_t)p * NCL_SORT_MSD_PART);
}
NCL_KINLINE uint64_t *phase_cell(char *work, int64_t p)
{
    return (uint64_t *)(void *)(work + (size_t)p * NCL_SORT_MSD_PART + NCL_SORT_HIST_BYTES);
}

/* After the counts: the digit (a recount when its top bits did not vary),
   each part's offsets (digit by digit, parts in input order: stable), and
   the buckets each part sorts, cut where the elements before a bucket
   reach the part's share of n. Returns the next phase. */
NCL_KINLINE int phase_plan_counts(ncl_sort_msd *m, char *work, const char *in, char *out,
                                  int64_t n, NclDType dt)
{
    const int np = m->nparts;
    uint64_t vary = 0;
    for (int q = 0; q < np; q++) vary |= phase_cell(work, q)[0];
    if (vary == 0) { /* every key equal: bkeys are a bijection, so are the elements */
        memcpy(out, in, (size_t)n * (size_t)ncl_sort_width(dt));
        return NCL_SORT_MSD_DONE;
    }
    if (!m->recounted) {
        const int bits = rx_msd_top_bits(n);
        m->lim = 64;
        m->shift = 64 - bits;
        m->mask = rx_mask(bits);
        m->recounted = 1; /* the digit is final after at most one recount */
        if (rx_msd_digit(vary, bits, &m->lim, &m->shift, &m->mask)) return NCL_SORT_MSD_COUNT;
    }
    uint32_t s = 0;
    int next = 1;
    phase_cell(work, 0)[1] = 0;
    for (uint64_t d = 0; d <= m->mask; d++) {
        while (next < np && (uint64_t)s * (uint64_t)np >= (uint64_t)n * (uint64_t)next)
            phase_cell(work, next++)[1] = d;
        for (int q = 0; q < np; q++) {
            uint32_t *h = phase_counts(work, q);
            const uint32_t c = h[d];
            h[d] = s;
            s += c;
        }
    }
    while (next < np) phase_cell(work, next++)[1] = m->mask + 1;
    return NCL_SORT_MSD_SCATTER;
}

/* One call of a split sort (sort_kernel.h): part ctx->chunk's share of a
   parallel phase, or the plan between phases. */
NCL_KINLINE NclStatus k_sort_phase(const NclKernelCtx *ctx, const ncl_sort_aux *aux,
                                   const char *in, char *out, int64_t n, NclDType dt)
{
    ncl_sort_msd *m = aux->msd;
    const int np = m->nparts;
    const int64_t p = ctx->chunk;
    if (np < 2 || np > NCL_MAX_THREADS || !ncl_sort_msd_ok(NCL_SORT, dt, aux->kind, n, np) ||
        aux->work == NULL || aux->work_bytes < ncl_sort_msd_work_bytes(n, np) ||
        (m->phase != NCL_SORT_MSD_PLAN && (p < 0 || p >= np)))
        return NCL_ERR_INVALID_ARGUMENT;
    char *work = aux->work, *tmp = work + (size_t)np * NCL_SORT_MSD_PART;
    const int64_t lo = n * p / np, hi = n * (p + 1) / np;
    switch (m->phase) {
    case NCL_SORT_MSD_COUNT: {
        /* the first count takes the top digit, a recount the planned one */
        const int bits = rx_msd_top_bits(n);
        const int sh = m->recounted ? m->shift : 64 - bits;
        const uint64_t mask = m->recounted ? m->mask : rx_mask(bits);
        phase_cell(work, p)[0] =
            rx_msd_count(in, lo, hi, dt, rx_key(in, dt, 0), sh, mask, phase_counts(work, p));
        return NCL_OK;
    }
    case NCL_SORT_MSD_SCATTER:
        rx_msd_scatter(in, lo, hi, dt, m->shift, m->mask, phase_counts(work, p), tmp);
        return NCL_OK;
    case NCL_SORT_MSD_BUCKETS: {
        /* after the scatter the last part's offsets are the bucket ends */
        const uint64_t d0 = phase_cell(work, p)[1];
        const uint64_t d1 = p + 1 < np ? phase_cell(work, p + 1)[1] : m->mask + 1;
        rx_msd_buckets(out, tmp, (char *)(phase_counts(work, p) + 2048),
                       phase_counts(work, np - 1), d0, d1, m->shift, dt, msd_8);
        return NCL_OK;
    }
    case NCL_SORT_MSD_PLAN:
        switch (m->next) { /* the phase that has just run */
        case NCL_SORT_MSD_COUNT: m->next = phase_plan_counts(m, work, in, out, n, dt); break;
        case NCL_SORT_MSD_SCATTER: m->next = NCL_SORT_MSD_BUCKETS; break;
        default:
            if (aux->kind == NCL_SORT_STABLE && sk_is_float(dt))
                restore_stable_specials(in, out, n, dt);
            m->next = NCL_SORT_MSD_DONE;
            break;
        }
        return NCL_OK;
    default: return NCL_ERR_INVALID_ARGUMENT;
    }
}

NCL_KINLINE NclStatus k_sort(const NclKernelCtx *ctx, char *const *args, int64_t n,
                             const int64_t *steps, NclDType dt)
{
    const int w = ncl_sort_width(dt);
    const ncl_sort_aux *aux = (const ncl_sort_aux *)ctx->aux;
    if (aux == NULL || steps[0] != w || steps[1] != w) return NCL_ERR_INVALID_ARGUMENT;
    const char *in = args[0];
    char *out = args[1];
    if (aux->msd != NULL) /* phases are for 8-byte keys only */
        return w == 8 ? k_sort_phase(ctx, aux, in, out, n, dt) : NCL_ERR_INVALID_ARGUMENT;
    if (!work_ok(aux, NCL_SORT, dt, n)) return NCL_ERR_INVALID_ARGUMENT;
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
