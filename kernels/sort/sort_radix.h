/*
 * sort_radix.h: radix sorts of integer keys (sort_keys.h), the path of
 * every long slice: least-significant digit first for argsorts and values
 * of up to 4 bytes, most-significant digit first for 8-byte values (at the
 * end of this file). Each is stable, so one algorithm serves
 * NCL_SORT_STABLE, and ARGSORT gets a stable order for free.
 *
 * The first read of the input finds which key bits vary at all (the OR of
 * every key XOR the first one) and counts the lowest digit; a digit none
 * of whose bits vary needs no pass and is skipped (narrow value ranges,
 * shared high bits). Every scatter pass counts the digit of the next pass
 * as it goes: the scatter is bound by its stores, so the count rides along
 * almost free, where a separate counting read of every digit cost about a
 * fifth of the sort. Passes alternate between two buffers arranged so that
 * the last lands in the output; the first reads the input directly
 * (computing keys on the fly) and the last writes final elements (values
 * mapped back, or indices), so there is no key-building or unpacking pass.
 *
 * Three record layouts:
 *   values  bkeys of the element's width (SORT);
 *   packed  one 64-bit word ckey << 32 | index for keys of up to 32 bits and
 *           up to 2**32 elements (ARGSORT of narrow dtypes);
 *   wide    64-bit ckeys and 64-bit indices in separate arrays (the rest).
 * Counts are 32-bit: callers radix sort at most 2**32 - 1 elements.
 */
#ifndef NCL_SORT_RADIX_H
#define NCL_SORT_RADIX_H

#include "sort_keys.h"

/* Digit width: 10 bits for sorting 64-bit values (7 passes instead of 8),
   8 bits otherwise, index sorts included: they scatter two streams per
   bucket, and 2 x 1024 streams cost more than the pass saved (measured on
   1e6 keys). Wider digits lose more per pass than they save. */
NCL_KINLINE int rx_bits(int w, int values) { return values && w == 8 ? 10 : 8; }
NCL_KINLINE int rx_ndig(int w, int bits) { return (8 * w + bits - 1) / bits; }
NCL_KINLINE uint64_t rx_mask(int bits) { return ((uint64_t)1 << bits) - 1; }

NCL_KINLINE uint64_t rx_key(const char *p, NclDType dt, int canonical)
{
    const uint64_t u = sk_load(p, ncl_sort_width(dt));
    return canonical ? sk_ckey(u, dt) : sk_bkey(u, dt);
}

/* The first read: returns the bits in which the keys of in[0, n) differ and
   counts their lowest digit into h. */
NCL_KINLINE uint64_t rx_scan(const char *in, int64_t n, NclDType dt, int canonical, int bits,
                             uint32_t *h)
{
    const int w = ncl_sort_width(dt);
    const uint64_t mask = rx_mask(bits), k0 = rx_key(in, dt, canonical);
    uint64_t vary = 0;
    memset(h, 0, (size_t)(mask + 1) * sizeof *h);
    for (int64_t i = 0; i < n; i++) {
        const uint64_t k = rx_key(in + i * w, dt, canonical);
        vary |= k ^ k0;
        h[k & mask]++;
    }
    return vary;
}

/* Counts the digit at shift of the keys of in[0, n) into h: needed only
   when the lowest digit does not vary, so the scan counted the wrong one. */
NCL_KINLINE void rx_recount(const char *in, int64_t n, NclDType dt, int canonical, int shift,
                            int bits, uint32_t *h)
{
    const int w = ncl_sort_width(dt);
    const uint64_t mask = rx_mask(bits);
    memset(h, 0, (size_t)(mask + 1) * sizeof *h);
    for (int64_t i = 0; i < n; i++) h[(rx_key(in + i * w, dt, canonical) >> shift) & mask]++;
}

/* Lists in dig[] the digits (of nd) with a varying bit; returns how many. */
NCL_KINLINE int rx_digits(uint64_t vary, int nd, int bits, int *dig)
{
    int p = 0;
    for (int d = 0; d < nd; d++)
        if ((vary >> (d * bits)) & rx_mask(bits)) dig[p++] = d;
    return p;
}

/* Counts to bucket start offsets. */
NCL_KINLINE void rx_prefix(uint32_t *h, int bits)
{
    uint32_t s = 0;
    for (uint64_t b = 0; b <= rx_mask(bits); b++) {
        const uint32_t c = h[b];
        h[b] = s;
        s += c;
    }
}

/* The buffers of one sort: the input, and two sides that the passes
   alternate between, side 0 holding the output. Values and packed records
   use side[] only; wide records keep their indices there and their keys in
   keys[] (the output never holds keys). */
typedef struct rx_bufs {
    const char *in;
    char *side[2];
    char *keys[2];
} rx_bufs;

/* A pass on the digit at shift from side ss (the input when first) to side
   ds (the output when last); unless last, it counts the digit at nshift
   into nh. */
typedef void (*rx_pass_fn)(const rx_bufs *b, int ss, int ds, int64_t n, const uint32_t *ofs,
                           int shift, int bits, uint32_t *nh, int nshift, NclDType dt, int first,
                           int last);

/* The one driver: finds the varying digits of in[0, n) and runs pass j
   on digit dig[j], the first reading the input, the last writing side 0,
   pass j writing side 0 when p-1-j is even and side 1 when odd. Every pass
   but the last counts digit dig[j+1] into nh, which becomes the next
   offsets. Inlined with a constant pass, and the passes with constant
   first / last, so each layout compiles to four loops of its own.
   Returns the number of passes; 0 (nothing written) when every key is
   equal. hist holds 2 * 1024 counters. */
NCL_KINLINE int rx_drive(const rx_bufs *b, uint32_t *hist, int64_t n, NclDType dt, int canonical,
                         int bits, rx_pass_fn pass)
{
    const int w = ncl_sort_width(dt);
    uint32_t *h = hist, *nh = hist + 1024, *t;
    int dig[NCL_SORT_RADIX_MAXDIG];
    const int p = rx_digits(rx_scan(b->in, n, dt, canonical, bits, h), rx_ndig(w, bits), bits, dig);
    if (p == 0) return 0;
    if (dig[0] != 0) rx_recount(b->in, n, dt, canonical, dig[0] * bits, bits, h);
    rx_prefix(h, bits);
    if (p == 1) {
        pass(b, 0, 0, n, h, dig[0] * bits, bits, NULL, 0, dt, 1, 1);
        return 1;
    }
    int side = (p - 1) & 1;
    pass(b, 0, side, n, h, dig[0] * bits, bits, nh, dig[1] * bits, dt, 1, 0);
    for (int j = 1; j < p - 1; j++) {
        rx_prefix(nh, bits);
        t = h, h = nh, nh = t;
        pass(b, side, side ^ 1, n, h, dig[j] * bits, bits, nh, dig[j + 1] * bits, dt, 0, 0);
        side ^= 1;
    }
    rx_prefix(nh, bits);
    pass(b, side, 0, n, nh, dig[p - 1] * bits, bits, NULL, 0, dt, 0, 1);
    return p;
}

/* ---- values ---------------------------------------------------------------------- */

/* first reads elements (and makes bkeys), last writes elements back
   (binv); otherwise bkeys both ways. */
NCL_KINLINE void rx_pass_values(const rx_bufs *b, int ss, int ds, int64_t n, const uint32_t *ofs,
                                int shift, int bits, uint32_t *nh, int nshift, NclDType dt,
                                int first, int last)
{
    const int w = ncl_sort_width(dt);
    const uint64_t mask = rx_mask(bits);
    const char *src = first ? b->in : b->side[ss];
    char *dst = b->side[ds];
    uint32_t off[1024];
    memcpy(off, ofs, (size_t)(mask + 1) * sizeof *off);
    if (!last) memset(nh, 0, (size_t)(mask + 1) * sizeof *nh);
    for (int64_t i = 0; i < n; i++) {
        uint64_t k = sk_load(src + i * w, w);
        if (first) k = sk_bkey(k, dt);
        const size_t pos = off[(k >> shift) & mask]++;
        sk_store(dst + pos * (size_t)w, last ? sk_binv(k, dt) : k, w);
        if (!last) nh[(k >> nshift) & mask]++;
    }
}

/* Sorts in[0, n) into out; tmp holds n elements, hist 2 * 1024 counters. */
NCL_KINLINE void rx_sort_values(const char *in, char *out, char *tmp, uint32_t *hist, int64_t n,
                                NclDType dt)
{
    const rx_bufs b = {in, {out, tmp}, {NULL, NULL}};
    /* every key equal: bkeys are a bijection, so are the elements */
    if (rx_drive(&b, hist, n, dt, 0, rx_bits(ncl_sort_width(dt), 1), rx_pass_values) == 0)
        memcpy(out, in, (size_t)n * (size_t)ncl_sort_width(dt));
}

/* ---- packed (ckey << 32 | index) ---------------------------------------------------- */

NCL_KINLINE void rx_pass_packed(const rx_bufs *b, int ss, int ds, int64_t n, const uint32_t *ofs,
                                int shift, int bits, uint32_t *nh, int nshift, NclDType dt,
                                int first, int last)
{
    const int w = ncl_sort_width(dt);
    const uint64_t mask = rx_mask(bits);
    const char *src = first ? b->in : b->side[ss];
    char *dst = b->side[ds];
    uint32_t off[1024];
    memcpy(off, ofs, (size_t)(mask + 1) * sizeof *off);
    if (!last) memset(nh, 0, (size_t)(mask + 1) * sizeof *nh);
    for (int64_t i = 0; i < n; i++) {
        const uint64_t r = first ? sk_ckey(sk_load(src + i * w, w), dt) << 32 | (uint64_t)i
                                 : sk_load(src + i * 8, 8);
        const size_t pos = off[(r >> (32 + shift)) & mask]++;
        sk_store(dst + pos * 8, last ? r & 0xFFFFFFFFu : r, 8);
        if (!last) nh[(r >> (32 + nshift)) & mask]++;
    }
}

/* Stable argsort of in[0, n) (n <= 2**32, keys <= 32 bits) into the int64
   indices out; tmp holds n 64-bit words, hist 2 * 1024 counters. */
NCL_KINLINE void rx_argsort_packed(const char *in, char *out, char *tmp, uint32_t *hist, int64_t n,
                                   NclDType dt)
{
    const rx_bufs b = {in, {out, tmp}, {NULL, NULL}};
    if (rx_drive(&b, hist, n, dt, 1, rx_bits(ncl_sort_width(dt), 0), rx_pass_packed) == 0)
        for (int64_t i = 0; i < n; i++) sk_store(out + i * 8, (uint64_t)i, 8);
}

/* ---- wide (64-bit keys, 64-bit indices) ---------------------------------------------- */

/* first: keys from the elements at in, indices 0..n-1; last: only the
   indices are written. */
NCL_KINLINE void rx_pass_wide(const rx_bufs *b, int ss, int ds, int64_t n, const uint32_t *ofs,
                              int shift, int bits, uint32_t *nh, int nshift, NclDType dt,
                              int first, int last)
{
    const int w = ncl_sort_width(dt);
    const uint64_t mask = rx_mask(bits);
    const char *sk = first ? b->in : b->keys[ss], *si = b->side[ss];
    char *dk = b->keys[ds], *di = b->side[ds];
    uint32_t off[1024];
    memcpy(off, ofs, (size_t)(mask + 1) * sizeof *off);
    if (!last) memset(nh, 0, (size_t)(mask + 1) * sizeof *nh);
    for (int64_t i = 0; i < n; i++) {
        uint64_t k, x;
        if (first) {
            k = sk_ckey(sk_load(sk + i * w, w), dt);
            x = (uint64_t)i;
        } else {
            k = sk_load(sk + i * 8, 8);
            x = sk_load(si + i * 8, 8);
        }
        const size_t pos = off[(k >> shift) & mask]++;
        if (!last) {
            sk_store(dk + pos * 8, k, 8);
            nh[(k >> nshift) & mask]++;
        }
        sk_store(di + pos * 8, x, 8);
    }
}

/* Stable argsort of in[0, n) into the int64 indices out; k0 and k1 hold n
   keys each, i0 n indices, hist 2 * 1024 counters. */
NCL_KINLINE void rx_argsort_wide(const char *in, char *out, char *k0, char *k1, char *i0,
                                 uint32_t *hist, int64_t n, NclDType dt)
{
    const rx_bufs b = {in, {out, i0}, {k0, k1}};
    if (rx_drive(&b, hist, n, dt, 1, rx_bits(ncl_sort_width(dt), 0), rx_pass_wide) == 0)
        for (int64_t i = 0; i < n; i++) sk_store(out + i * 8, (uint64_t)i, 8);
}

/* ---- most-significant digit first (values of 4 and 8 bytes) ------------------------ */

/* The long value sorts split by their top varying digit first: one pass
   reads the input (keys on the fly) and counts the digit, one scatters it
   into buckets. A million random keys make 2048 buckets of about 500,
   which fit in the L1/L2 caches, so everything after those two passes over
   memory runs in cache: each bucket is split again on its next digit (the
   digit sized to the bucket, so that its table stays small next to it) and
   runs of a few keys are insertion sorted. LSD radix instead makes every
   one of its 4 (32-bit) or 7 (64-bit) passes over the whole slice, and
   each pass over memory costs more than all the in-cache work here.
   Every split is a stable scatter and the leaves are stable, so this is a
   stable sort of bkeys, like the LSD one. A digit none of whose bits vary
   in a bucket costs no scatter: each split first finds the bucket's
   varying bits (and counts the digit it expects, the one just below the
   parent's, recounting only when that guess was wrong). Recursion depth is
   at most one level per 3 key bits (the narrowest digit), and each level
   touches each key a bounded number of times, so long runs of equal or
   clustered keys cost no more than a few LSD passes. */

/* Children of a split of up to this many keys are left as they land: one
   insertion pass over the split bucket finishes them all, each key moving
   only within its child. */
#define RX_MSD_LEAF 16

/* Digit width for a bucket of m >= 2 keys: about log2(m) + 1 bits, so
   that most children hold 0 or 1 keys and the insertion pass rarely
   mispredicts, within [3, maxbits] (9 below the top: a 2 KiB table for a
   bucket of about 500 keys; wider costs more in clearing and prefix sums
   than it saves). */
NCL_KINLINE int rx_msd_bits(int64_t m, int maxbits)
{
    const int b = 64 - __builtin_clzll((unsigned long long)m);
    return b > maxbits ? maxbits : b < 3 ? 3 : b;
}

/* Insertion sort of the keys b[0, m); fast when every key is near its place. */
NCL_KINLINE void rx_msd_insert(char *b, int64_t m, int w)
{
    for (int64_t i = 1; i < m; i++) {
        const uint64_t v = sk_load(b + i * w, w);
        uint64_t u = sk_load(b + (i - 1) * w, w);
        if (u <= v) continue;
        int64_t j = i;
        do {
            sk_store(b + j * w, u, w);
            if (--j == 0) break;
            u = sk_load(b + (j - 1) * w, w);
        } while (u > v);
        sk_store(b + j * w, v, w);
    }
}

/* One instance per key width (the recursion goes through it). */
typedef void (*rx_msd_fn)(char *src, char *dst, int64_t m, int lim);

/* Sorts the keys src[0, m) (bkeys, or any unsigned keys), which agree on
   every bit at lim and above, into dst; src is left as scratch. */
NCL_KINLINE void rx_msd_sub(char *src, char *dst, int64_t m, int lim, int w, rx_msd_fn self)
{
    if (m <= RX_MSD_LEAF) {
        memcpy(dst, src, (size_t)m * (size_t)w);
        rx_msd_insert(dst, m, w);
        return;
    }
    const int bits = rx_msd_bits(m, 9);
    int sh = lim > bits ? lim - bits : 0;
    uint64_t mask = rx_mask(lim - sh);
    uint32_t off[512];
    memset(off, 0, sizeof off);
    const uint64_t k0 = sk_load(src, w);
    uint64_t vary = 0;
    for (int64_t i = 0; i < m; i++) {
        const uint64_t k = sk_load(src + i * w, w);
        vary |= k ^ k0;
        off[(k >> sh) & mask]++;
    }
    if (vary == 0) { /* one key, m times */
        memcpy(dst, src, (size_t)m * (size_t)w);
        return;
    }
    const int top = 63 - __builtin_clzll(vary);
    if (top < lim - 1) { /* the digit guessed had constant high bits: count the right one */
        lim = top + 1;
        sh = lim > bits ? lim - bits : 0;
        mask = rx_mask(lim - sh);
        memset(off, 0, sizeof off);
        for (int64_t i = 0; i < m; i++) off[(sk_load(src + i * w, w) >> sh) & mask]++;
    }
    rx_prefix(off, lim - sh);
    for (int64_t i = 0; i < m; i++) {
        const uint64_t k = sk_load(src + i * w, w);
        sk_store(dst + (size_t)off[(k >> sh) & mask]++ * (size_t)w, k, w);
    }
    if (sh == 0) return; /* every child holds one key */
    /* off[d] is now the end of child d. Long children are sorted through
       the scratch and copied back; the insertion pass does the rest. */
    uint32_t s = 0;
    for (uint64_t d = 0; d <= mask; d++) {
        const uint32_t e = off[d];
        if (e - s > RX_MSD_LEAF) {
            self(dst + (size_t)s * w, src + (size_t)s * w, e - s, sh);
            memcpy(dst + (size_t)s * w, src + (size_t)s * w, (size_t)(e - s) * (size_t)w);
        }
        s = e;
    }
    rx_msd_insert(dst, m, w);
}

/* The top level, in pieces that a split sort (sort_kernel.h) runs on
   several threads: count the top digit, scatter into buckets, sort the
   buckets. */

/* Counts the digit (k >> sh) & mask of the keys of in[lo, hi) into h
   (cleared first); returns the bits in which they differ from k0. */
NCL_KINLINE uint64_t rx_msd_count(const char *in, int64_t lo, int64_t hi, NclDType dt,
                                  uint64_t k0, int sh, uint64_t mask, uint32_t *h)
{
    const int w = ncl_sort_width(dt);
    uint64_t vary = 0;
    memset(h, 0, (size_t)(mask + 1) * sizeof *h);
    for (int64_t i = lo; i < hi; i++) {
        const uint64_t k = rx_key(in + i * w, dt, 0);
        vary |= k ^ k0;
        h[(k >> sh) & mask]++;
    }
    return vary;
}

/* Bits of the top digit of a sort of n keys. */
NCL_KINLINE int rx_msd_top_bits(int64_t n) { return rx_msd_bits(n, 11); }

/* The top digit once the varying bits are known (vary != 0): when bits at
   *lim and just below do not vary, lowers *lim to the top varying bit + 1
   and sets *sh, *mask to the digit below it; returns whether it moved. */
NCL_KINLINE int rx_msd_digit(uint64_t vary, int bits, int *lim, int *sh, uint64_t *mask)
{
    const int top = 63 - __builtin_clzll(vary);
    if (top >= *lim - 1) return 0;
    *lim = top + 1;
    *sh = *lim > bits ? *lim - bits : 0;
    *mask = rx_mask(*lim - *sh);
    return 1;
}

/* Writes the keys of in[lo, hi) to tmp at their digit's offsets off[],
   which it advances. */
NCL_KINLINE void rx_msd_scatter(const char *in, int64_t lo, int64_t hi, NclDType dt, int sh,
                                uint64_t mask, uint32_t *off, char *tmp)
{
    const int w = ncl_sort_width(dt);
    for (int64_t i = lo; i < hi; i++) {
        const uint64_t k = rx_key(in + i * w, dt, 0);
        sk_store(tmp + (size_t)off[(k >> sh) & mask]++ * (size_t)w, k, w);
    }
}

/* Sorts buckets [d0, d1) of tmp (bucket d ends at end[d] and starts where
   d - 1 ends, or at 0) into out as elements. Each bucket is sorted into
   the small buffer local (NCL_SORT_LOCAL keys, cache-resident: sorting
   straight into out would make the first touch of each of its lines a
   scattered miss) and mapped back to elements in one sequential write; a
   bucket too long for local is sorted in out. */
NCL_KINLINE void rx_msd_buckets(char *out, char *tmp, char *local, const uint32_t *end,
                                uint64_t d0, uint64_t d1, int sh, NclDType dt, rx_msd_fn sub)
{
    const int w = ncl_sort_width(dt);
    uint32_t s = d0 > 0 ? end[d0 - 1] : 0;
    for (uint64_t d = d0; d < d1; d++) {
        const uint32_t e = end[d], m = e - s;
        char *o = out + (size_t)s * w, *t = tmp + (size_t)s * w;
        char *b = m <= NCL_SORT_LOCAL ? local : o;
        if (m > 1 && sh > 0) sub(t, b, m, sh);
        else memcpy(b, t, (size_t)m * (size_t)w);
        for (uint32_t i = 0; i < m; i++) sk_store(o + i * w, sk_binv(sk_load(b + i * w, w), dt), w);
        s = e;
    }
}

/* Sorts in[0, n) into out (n >= 2); tmp holds n elements, hist 2048
   counters and then NCL_SORT_LOCAL keys (NCL_SORT_HIST_BYTES in all). */
NCL_KINLINE void rx_msd_values(const char *in, char *out, char *tmp, uint32_t *hist, int64_t n,
                               NclDType dt, rx_msd_fn sub)
{
    const int bits = rx_msd_top_bits(n);
    int lim = 8 * ncl_sort_width(dt), sh = lim - bits;
    uint64_t mask = rx_mask(bits);
    const uint64_t vary = rx_msd_count(in, 0, n, dt, rx_key(in, dt, 0), sh, mask, hist);
    if (vary == 0) { /* every key equal: bkeys are a bijection, so are the elements */
        memcpy(out, in, (size_t)n * (size_t)ncl_sort_width(dt));
        return;
    }
    if (rx_msd_digit(vary, bits, &lim, &sh, &mask)) rx_msd_count(in, 0, n, dt, 0, sh, mask, hist);
    rx_prefix(hist, lim - sh);
    rx_msd_scatter(in, 0, n, dt, sh, mask, hist, tmp);
    rx_msd_buckets(out, tmp, (char *)(hist + 2048), hist, 0, mask + 1, sh, dt, sub);
}

#endif /* NCL_SORT_RADIX_H */
