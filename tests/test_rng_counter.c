/*
 * test_rng_counter.c: Philox4x32, the counter-based generator
 * (NCL_BITGEN_PHILOX4X32). Known answers: the three "philox4x32 10" lines
 * of Random123's tests/kat_vectors (counter and key to the block's four
 * words), and C++26's requirement on std::philox4x32 ([rand.predef]: the
 * 10000th consecutive invocation of a default-constructed object produces
 * 1955073260). Then each value a function of (key, position): NclRng's
 * draws from any start (every lane, counters about to carry out of 32 and
 * 64 bits, the 128-bit wrap) equal the words of the reference block
 * function written here, for every op with a bulk kernel (RAW, RANDOM
 * float64 and float32, UNIFORM), at lengths around the vector widths and
 * the batch size, into outputs contiguous, misaligned, strided and large
 * enough to be streamed; a stream drawn in pieces of mixed ops equals the
 * stream at the same positions; the generator ends where its words end;
 * advance, jumped, the skips and the state blob against positions; thread
 * counts 1, 2 and 3; every instruction-set variant's kernels against the
 * baseline's, called directly (the suite also runs once per lower
 * variant); the refusals.
 *
 * NCL_TEST_LINK_INTERNAL: the kernel tables of every variant, the skips of
 * src/defaults/ncl_rng.h and the draws of kernels/rng/rng_state.h. Values
 * are compared as numbers and the blob is read byte by byte, so the suite
 * runs unchanged on big-endian machines.
 */
#include <inttypes.h>
#include "ncl_test.h"
#include "defaults/ncl_rng.h"
#include "runtime/cpu.h"
#include "ncl_kernel.h"

typedef ncl_u128 u128;

/* ---- the reference ----------------------------------------------------------------------- */

/* Philox4x32-10 as Random123 defines it (philox.h): ten rounds of
   (c0, c1, c2, c3) <- (hi(M1 c2) ^ c1 ^ k0, lo(M1 c2), hi(M0 c0) ^ c3 ^ k1,
   lo(M0 c0)), the key bumped by the Weyl constants between rounds. */
static void ref_block(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]}, k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; r++) {
        const uint64_t p0 = (uint64_t)0xD2511F53U * c[0], p1 = (uint64_t)0xCD9E8D57U * c[2];
        const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
        c[0] = n0;
        c[1] = (uint32_t)p1;
        c[2] = n2;
        c[3] = (uint32_t)p0;
        k0 += 0x9E3779B9U;
        k1 += 0xBB67AE85U;
    }
    memcpy(out, c, sizeof c);
}

/* Words [block * 4 + lane, ... + n) of the stream of key, the block number
   counting modulo 2^128. */
static uint32_t *ref_words(const uint32_t key[2], u128 block, unsigned lane, size_t n)
{
    uint32_t *w = malloc((n + 4) * sizeof *w);
    ck_assert_ptr_nonnull(w);
    for (size_t i = 0; i < n; block++) {
        const uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32), (uint32_t)(block >> 64),
                                 (uint32_t)(block >> 96)};
        uint32_t b[4];
        ref_block(ctr, key, b);
        for (; lane < 4 && i < n; lane++) w[i++] = b[lane];
        lane = 0;
    }
    return w;
}

/* ---- generators and their state ----------------------------------------------------------- */

static NclRngGen *from_key(uint32_t k0, uint32_t k1, u128 word)
{
    const uint32_t key[2] = {k0, k1};
    NclRngGen *g = NULL;
    NCL_CHECK_OK(NclRngGenFromKey(NCL_BITGEN_PHILOX4X32, key, 2, (uint64_t)word, (uint64_t)(word >> 64), &g));
    ck_assert_int_eq(NclRngGenKind(g), NCL_BITGEN_PHILOX4X32);
    return g;
}

static void put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The state blob of key at block, lane, written by hand: the layout
   include/ncl/rng.h's NclRngGenGetState and rng_seed.c describe. */
enum { BLOB_LEN = 24 + 7 * 4 };
static void make_blob(unsigned char *b, const uint32_t key[2], u128 block, uint32_t lane)
{
    memset(b, 0, BLOB_LEN);
    memcpy(b, "NCLRNG", 6);
    b[6] = 1;
    put_le32(b + 8, NCL_BITGEN_PHILOX4X32);
    put_le32(b + 12, BLOB_LEN);
    put_le32(b + 24, key[0]);
    put_le32(b + 28, key[1]);
    for (int i = 0; i < 4; i++) put_le32(b + 32 + 4 * i, (uint32_t)(block >> (32 * i)));
    put_le32(b + 48, lane);
}

/* A generator of key at any block (past 2^126 too) and lane, set through
   the blob. */
static NclRngGen *at_block(const uint32_t key[2], u128 block, unsigned lane)
{
    NclRngGen *g = from_key(0, 0, 0);
    unsigned char b[BLOB_LEN];
    make_blob(b, key, block, lane);
    NCL_CHECK_OK(NclRngGenSetState(g, b, sizeof b));
    return g;
}

static unsigned char *state_of(const NclRngGen *g, size_t *n)
{
    NCL_CHECK_OK(NclRngGenGetState(g, NULL, 0, n));
    unsigned char *b = malloc(*n);
    ck_assert_ptr_nonnull(b);
    NCL_CHECK_OK(NclRngGenGetState(g, b, *n, n));
    return b;
}

/* g is at key, block, lane: its blob is the hand-written one, and (the
   buffer it keeps for a lane past 0 included) it draws that word next. */
static void check_at(NclRngGen *g, const uint32_t key[2], u128 block, unsigned lane, const char *what)
{
    size_t n;
    unsigned char *b = state_of(g, &n), want[BLOB_LEN];
    make_blob(want, key, block, lane);
    ck_assert_msg(n == BLOB_LEN && memcmp(b, want, n) == 0,
                  "%s: state is counter %08x %08x %08x %08x lane %u, expected %08x %08x %08x %08x lane %u", what,
                  le32(b + 44), le32(b + 40), le32(b + 36), le32(b + 32), le32(b + 48), (uint32_t)(block >> 96),
                  (uint32_t)(block >> 64), (uint32_t)(block >> 32), (uint32_t)block, lane);
    free(b);
    NclRngGen *c = NULL;
    NCL_CHECK_OK(NclRngGenCopy(g, &c));
    uint32_t *w = ref_words(key, block, lane, 1);
    ck_assert_msg(ncl_philox4x32_next_u32(c) == w[0], "%s: the next word is not the stream's", what);
    free(w);
    NclRngGenFree(c);
}

/* ---- draws and their expected values ------------------------------------------------------ */

typedef struct op_case {
    NclRngOp op;
    NclDType dt;
    int words; /* a value takes */
    const char *name;
} op_case;

static const op_case ops[] = {
    {NCL_RNG_RAW, NCL_UINT64, 2, "random_raw"},
    {NCL_RNG_RANDOM, NCL_FLOAT64, 2, "random float64"},
    {NCL_RNG_RANDOM, NCL_FLOAT32, 1, "random float32"},
    {NCL_RNG_UNIFORM, NCL_FLOAT64, 2, "uniform(-2.5, 7)"},
};
enum { NOPS = sizeof ops / sizeof ops[0] };
static const double LOW = -2.5, HIGH = 7.0;

/* The bits of value i of op c from the words w, as include/ncl/rng.h
   defines them: a 64-bit draw is two words, the first low; a float64 is
   its top 53 bits times 2^-53; a float32 a word's top 24 times 2^-24;
   uniform is low + (high - low) u. */
static uint64_t expected_bits(const op_case *c, const uint32_t *w, size_t i)
{
    if (c->words == 1) {
        const float f = (float)(w[i] >> 8) * (1.0f / 16777216.0f);
        uint32_t b;
        memcpy(&b, &f, sizeof b);
        return b;
    }
    const uint64_t x = (uint64_t)w[2 * i] | (uint64_t)w[2 * i + 1] << 32;
    if (c->op == NCL_RNG_RAW) return x;
    double d = (double)(x >> 11) * (1.0 / 9007199254740992.0);
    if (c->op == NCL_RNG_UNIFORM) {
        const double range = HIGH - LOW;
        d = LOW + range * d;
    }
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* Draws n values of op c from g into out (NULL: a new array). */
static NclArray *draw(const op_case *c, NclRngGen *g, int64_t n, NclArray *out)
{
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = c->dt;
    p.ndim = 1;
    p.shape = &n;
    NclArray *a = NULL, *b = NULL;
    if (c->op == NCL_RNG_UNIFORM) {
        a = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){LOW}, 1);
        b = ncl_test_arr_d(NCL_FLOAT64, 0, NULL, (const double[]){HIGH}, 1);
    }
    NCL_CHECK_OK(NclRng(c->op, g, a, b, &out, &p));
    NclArrayRelease(a);
    NclArrayRelease(b);
    return out;
}

/* The n values of a are values first .. first + n of op c from words w. */
static void check_values(const op_case *c, const NclArray *a, const uint32_t *w, size_t first, const char *what)
{
    const int64_t n = NclArraySize(a);
    const size_t size = NclDTypeSize(c->dt);
    for (int64_t i = 0; i < n; i++) {
        const uint64_t got = ncl_test_load_bits(ncl_test_ptr(a, i), size), want = expected_bits(c, w, first + (size_t)i);
        /* ck_assert records every check it passes: per element, an abort */
        if (got != want)
            ck_abort_msg("%s, %s: value %" PRId64 " of %" PRId64 " is %#" PRIx64 ", the stream's %#" PRIx64, what,
                         c->name, i, n, got, want);
    }
}

/* ---- known answers ------------------------------------------------------------------------- */

/* Random123 tests/kat_vectors, the three "philox4x32 10" lines: counter
   words 0-3, key words 0-1, then the block's words 0-3. */
static const struct { uint32_t ctr[4], key[2], out[4]; } kat[3] = {
    {{0x00000000, 0x00000000, 0x00000000, 0x00000000}, {0x00000000, 0x00000000},
     {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

static u128 ctr_of(const uint32_t c[4])
{
    return (u128)c[0] | (u128)c[1] << 32 | (u128)c[2] << 64 | (u128)c[3] << 96;
}

START_TEST(t_known_answers)
{
    for (int i = 0; i < 3; i++) {
        uint32_t b[4];
        ref_block(kat[i].ctr, kat[i].key, b); /* the reference itself */
        for (int k = 0; k < 4; k++) ck_assert_msg(b[k] == kat[i].out[k], "reference, line %d word %d", i, k);
        /* rng_state.h's block */
        ncl_philox4x32_block(ctr_of(kat[i].ctr), kat[i].key, b);
        for (int k = 0; k < 4; k++) ck_assert_msg(b[k] == kat[i].out[k], "ncl_philox4x32_block, line %d word %d", i, k);
        /* the public stream: a generator at the block, its two 64-bit draws
           (the first word low), then the next block (the counter wraps to 0
           after the all-ones one) */
        NclRngGen *g = at_block(kat[i].key, ctr_of(kat[i].ctr), 0);
        NclArray *a = draw(&ops[0], g, 4, NULL);
        for (int k = 0; k < 2; k++) {
            const uint64_t v = ncl_test_get_u(a, k);
            ck_assert_msg((uint32_t)v == kat[i].out[2 * k] && (uint32_t)(v >> 32) == kat[i].out[2 * k + 1],
                          "random_raw, line %d value %d: %#" PRIx64, i, k, v);
        }
        uint32_t *w = ref_words(kat[i].key, ctr_of(kat[i].ctr) + 1, 0, 4);
        for (int k = 2; k < 4; k++)
            ck_assert(ncl_test_get_u(a, k) == ((uint64_t)w[2 * (k - 2)] | (uint64_t)w[2 * (k - 2) + 1] << 32));
        check_at(g, kat[i].key, ctr_of(kat[i].ctr) + 2, 0, "after the known answer");
        free(w);
        NclArrayRelease(a);
        NclRngGenFree(g);
    }
    /* the zero line from a key and a position */
    NclRngGen *g = from_key(0, 0, 0);
    for (int k = 0; k < 4; k++) ck_assert(ncl_philox4x32_next_u32(g) == kat[0].out[k]);
    NclRngGenFree(g);
    /* the pi line from its position, 4 * counter, and one word into it */
    const u128 pi = ctr_of(kat[2].ctr);
    g = from_key(kat[2].key[0], kat[2].key[1], 4 * pi + 1);
    for (int k = 1; k < 4; k++) ck_assert(ncl_philox4x32_next_u32(g) == kat[2].out[k]);
    NclRngGenFree(g);
}
END_TEST

/* C++26 [rand.predef]: "Required behavior: The 10000th consecutive
   invocation of a default-constructed object of type philox4x32 produces
   the value 1955073260"; the default seed 20111115 is key word 0 (the
   other 0), the counter starts at 0. */
START_TEST(t_cxx26_philox4x32)
{
    NclRngGen *g = from_key(20111115, 0, 0);
    uint32_t v = 0;
    for (int i = 0; i < 10000; i++) v = ncl_philox4x32_next_u32(g);
    ck_assert_uint_eq(v, 1955073260U);
    check_at(g, (const uint32_t[]){20111115, 0}, 2500, 0, "after 10000 words");
    NclRngGenFree(g);
    /* the 64-bit draws: 5000 of them, the last one's high half */
    g = from_key(20111115, 0, 0);
    NclArray *a = draw(&ops[0], g, 5000, NULL);
    ck_assert_uint_eq((uint32_t)(ncl_test_get_u(a, 4999) >> 32), 1955073260U);
    NclArrayRelease(a);
    NclRngGenFree(g);
    /* the same word as the first of a generator placed there */
    g = from_key(20111115, 0, 9999);
    ck_assert_uint_eq(ncl_philox4x32_next_u32(g), 1955073260U);
    NclRngGenFree(g);
    /* and as a uint32 of integers(0, 2^32 - 1, endpoint): the word itself */
    g = from_key(20111115, 0, 9998);
    NclArray *hi = ncl_test_arr_u(NCL_UINT64, 0, NULL, (const uint64_t[]){UINT32_MAX}, 1);
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = NCL_UINT32;
    p.ndim = 1;
    p.shape = NCL_DIMS(2);
    p.endpoint = 1;
    a = NULL;
    NCL_CHECK_OK(NclRng(NCL_RNG_INTEGERS, g, NULL, hi, &a, &p));
    ck_assert_uint_eq((uint32_t)ncl_test_get_u(a, 1), 1955073260U);
    NclArrayRelease(a);
    NclArrayRelease(hi);
    NclRngGenFree(g);
}
END_TEST

/* ---- values as functions of the position ----------------------------------------------------- */

/* Starts: every lane of the first blocks; blocks about to carry out of the
   counter's low 32 bits and out of its low 64 (inside a vector group and
   at its edges); a high counter word; the 128-bit wrap. */
static const struct { u128 block; unsigned lane; } starts[] = {
    {0, 0}, {0, 1}, {0, 2}, {0, 3}, {5, 2}, {7, 1},
    {0xFFFFFFF0u, 0}, {0xFFFFFFF9u, 3}, {0xFFFFFFFFu, 2}, {(u128)0xFFFFFFFFu + 1, 0},
    {((u128)1 << 64) - 11, 1}, {(((u128)0x9E3779B9u << 32 | 0x7F4A7C15u) << 64) | 0xFFFFFFF4u, 2},
    {~(u128)0 - 6, 0}, {~(u128)0 - 2, 3},
};
static const int64_t lengths[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65,
                                  127, 128, 129, 255, 256, 257, 300, 1000};

START_TEST(t_values_by_position)
{
    const op_case *c = &ops[_i];
    const uint32_t key[2] = {0x01234567u + (uint32_t)_i, 0x89abcdefu};
    for (size_t s = 0; s < sizeof starts / sizeof starts[0]; s++)
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
            const int64_t n = lengths[l];
            const u128 block = starts[s].block;
            const unsigned lane = starts[s].lane;
            uint32_t *w = ref_words(key, block, lane, (size_t)n * (size_t)c->words + 1);
            char what[96];
            snprintf(what, sizeof what, "start %zu, n %" PRId64, s, n);
            NclRngGen *g = at_block(key, block, lane);
            NclArray *a = draw(c, g, n, NULL);
            check_values(c, a, w, 0, what);
            /* the generator ends after the words it used, the block
               number wrapping modulo 2^128 */
            const uint64_t used = lane + (uint64_t)n * (uint64_t)c->words;
            const u128 end_block = block + (used >> 2);
            const unsigned end_lane = (unsigned)(used & 3);
            check_at(g, key, end_block, end_lane, what);
            NclArrayRelease(a);
            NclRngGenFree(g);
            /* the same into an output misaligned by 4 bytes (2 for
               float32: never on the element size) and a strided one */
            if (n > 0 && n <= 300) {
                NclArray *o = ncl_test_new_offset(c->dt, 1, &n, c->words == 2 ? 4 : 2);
                g = at_block(key, block, lane);
                ck_assert_ptr_eq(draw(c, g, n, o), o);
                check_values(c, o, w, 0, "misaligned");
                NclArrayRelease(o);
                NclRngGenFree(g);
                NclArray *base = ncl_test_new(c->dt, 1, NCL_DIMS(2 * n));
                o = NULL;
                NCL_CHECK_OK(NclFromData(c->dt, 1, &n, NCL_DIMS(2 * (int64_t)NclDTypeSize(c->dt)),
                                         NclArrayData(base), NCL_ARRAY_WRITEABLE, NULL, NULL, &o));
                g = at_block(key, block, lane);
                ck_assert_ptr_eq(draw(c, g, n, o), o);
                check_values(c, o, w, 0, "strided");
                check_at(g, key, end_block, end_lane, "strided");
                NclArrayRelease(o);
                NclArrayRelease(base);
                NclRngGenFree(g);
            }
            free(w);
        }
}
END_TEST

/* Outputs big enough to be streamed (ncl_ostream: from 3.25 MiB in the
   AVX2 and AVX-512 builds), from lanes 0 to 3, whole and from an output
   starting 8 bytes past a 64-byte line. */
START_TEST(t_streamed)
{
    const op_case *c = &ops[_i];
    const uint32_t key[2] = {0xdeadbeefu, (uint32_t)_i};
    const int64_t n = c->words == 2 ? 500009 : 1000003;
    for (unsigned lane = 0; lane < 4; lane++) {
        const u128 block = (u128)0xFFFF0000u + lane;
        uint32_t *w = ref_words(key, block, lane, (size_t)n * (size_t)c->words);
        NclRngGen *g = at_block(key, block, lane);
        NclArray *a = draw(c, g, n, NULL);
        check_values(c, a, w, 0, "streamed");
        const uint64_t used = lane + (uint64_t)n * (uint64_t)c->words;
        check_at(g, key, block + (used >> 2), (unsigned)(used & 3), "streamed");
        NclArrayRelease(a);
        NclRngGenFree(g);
        if (lane == 1) {
            NclArray *o = ncl_test_new_offset(c->dt, 1, &n, 8 + 64 - 16); /* calloc's 16 + 56: 8 past a line */
            g = at_block(key, block, lane);
            ck_assert_ptr_eq(draw(c, g, n, o), o);
            check_values(c, o, w, 0, "streamed, off a line");
            NclArrayRelease(o);
            NclRngGenFree(g);
        }
        free(w);
    }
}
END_TEST

/* One generator drawn in pieces of every op and length, integers of the
   full 32-, 16- and 8-bit ranges among them (a word each, or its halves or
   bytes, low first, the rest of the last word dropped at the end of the
   call, as NumPy drops its buffer): each piece is the stream where the
   last one stopped. */
START_TEST(t_pieces)
{
    const uint32_t key[2] = {42, 4242};
    enum { WORDS = 400000 };
    uint32_t *w = ref_words(key, 0, 0, WORDS);
    NclRngGen *g = from_key(key[0], key[1], 0);
    uint64_t seed = 7;
    size_t pos = 0;
    static const NclDType idt[3] = {NCL_UINT32, NCL_UINT16, NCL_UINT8};
    for (int piece = 0; pos + 4000 < WORDS; piece++) {
        const uint64_t r = ncl_test_rand(&seed);
        const int64_t n = (int64_t)(r % 7 == 0 ? r % 3000 : r % 70);
        const int k = (int)((r >> 20) % (NOPS + 3));
        char what[64];
        snprintf(what, sizeof what, "piece %d at word %zu", piece, pos);
        if (k >= NOPS) { /* integers(0, 2^bits - 1, endpoint): words, halves, bytes */
            const NclDType dt = idt[k - NOPS];
            const int per = 4 / (int)NclDTypeSize(dt), bits = 32 / per; /* values a word */
            const uint32_t mask = UINT32_MAX >> (32 - bits);
            NclArray *top = ncl_test_arr_u(NCL_UINT64, 0, NULL, (const uint64_t[]){mask}, 1);
            NclParams p = NCL_PARAMS_INIT;
            p.dtype = dt;
            p.ndim = 1;
            p.shape = &n;
            p.endpoint = 1;
            NclArray *a = NULL;
            NCL_CHECK_OK(NclRng(NCL_RNG_INTEGERS, g, NULL, top, &a, &p));
            for (int64_t i = 0; i < n; i++) {
                const uint64_t want = (w[pos + (size_t)(i / per)] >> (bits * (i % per))) & mask;
                if (ncl_test_get_u(a, i) != want)
                    ck_abort_msg("%s: %s %" PRId64 " is %" PRIu64 ", the stream's %" PRIu64, what, NclDTypeName(dt), i,
                                 ncl_test_get_u(a, i), want);
            }
            NclArrayRelease(a);
            NclArrayRelease(top);
            pos += (size_t)((n + per - 1) / per);
        } else {
            NclArray *a = draw(&ops[k], g, n, NULL);
            check_values(&ops[k], a, w + pos, 0, what);
            NclArrayRelease(a);
            pos += (size_t)n * (size_t)ops[k].words;
        }
        check_at(g, key, pos / 4, (unsigned)(pos % 4), what);
    }
    NclRngGenFree(g);
    free(w);
}
END_TEST

/* ---- moving along the stream ------------------------------------------------------------------- */

START_TEST(t_advance_jumped_skip)
{
    const uint32_t key[2] = {99, 100};
    /* advance(d) is 2 d words on, from every lane, with the block carries */
    static const struct { uint64_t lo, hi; } deltas[] = {
        {0, 0}, {1, 0}, {2, 0}, {3, 0}, {1000003, 0}, {UINT64_MAX, 0}, {0, 1}, {5, 3}, {UINT64_MAX, UINT64_MAX}};
    for (unsigned lane = 0; lane < 4; lane++)
        for (size_t d = 0; d < sizeof deltas / sizeof deltas[0]; d++) {
            const u128 block = ((u128)7 << 64) + 11, delta = (u128)deltas[d].hi << 64 | deltas[d].lo;
            NclRngGen *g = at_block(key, block, lane);
            NCL_CHECK_OK(NclRngGenAdvance(g, deltas[d].lo, deltas[d].hi));
            /* 2 delta words: delta / 2 blocks and 2 (delta % 2) words */
            const unsigned l2 = lane + 2 * (unsigned)(delta & 1);
            check_at(g, key, block + (delta >> 1) + (l2 >> 2), l2 & 3, "advance");
            NclRngGenFree(g);
        }
    /* two advances by 2^128 - 1 are 2^130 - 4 words: the block before 0,
       which with the all-ones key is Random123's all-ones line */
    NclRngGen *g = from_key(UINT32_MAX, UINT32_MAX, 0);
    NCL_CHECK_OK(NclRngGenAdvance(g, UINT64_MAX, UINT64_MAX));
    NCL_CHECK_OK(NclRngGenAdvance(g, UINT64_MAX, UINT64_MAX));
    for (int k = 0; k < 4; k++) ck_assert(ncl_philox4x32_next_u32(g) == kat[1].out[k]);
    NclRngGenFree(g);
    /* jumped(j) adds j 2^64 to the counter, the lane kept; g unchanged */
    static const uint64_t jumps[] = {0, 1, 3, UINT64_MAX};
    for (size_t j = 0; j < sizeof jumps / sizeof jumps[0]; j++) {
        const u128 block = ((u128)5 << 96) + ((u128)9 << 64) + 77;
        g = at_block(key, block, 3);
        NclRngGen *h = NULL;
        NCL_CHECK_OK(NclRngGenJumped(g, jumps[j], &h));
        check_at(h, key, block + ((u128)jumps[j] << 64), 3, "jumped");
        check_at(g, key, block, 3, "jumped's source");
        NclRngGenFree(h);
        NclRngGenFree(g);
    }
    /* the skips rng.c splits calls with: the state drawing leaves */
    for (unsigned lane = 0; lane < 4; lane++)
        for (uint64_t n = 0; n < 13; n++) {
            NclRngGen *a = from_key(key[0], key[1], 4 * 1000 + lane), *b = NULL, *c = NULL;
            NCL_CHECK_OK(NclRngGenCopy(a, &b));
            NCL_CHECK_OK(NclRngGenCopy(a, &c));
            for (uint64_t i = 0; i < n; i++) (void)ncl_philox4x32_next_u64(a);
            NCL_CHECK_OK(ncl_rng_skip_u64(b, n));
            check_at(b, key, 1000 + (lane + 2 * n) / 4, (unsigned)((lane + 2 * n) % 4), "skip_u64");
            size_t na, nb;
            unsigned char *sa = state_of(a, &na), *sb = state_of(b, &nb);
            ck_assert(na == nb && memcmp(sa, sb, na) == 0);
            free(sa);
            free(sb);
            NCL_CHECK_OK(ncl_rng_skip_u32(c, n));
            check_at(c, key, 1000 + (lane + n) / 4, (unsigned)((lane + n) % 4), "skip_u32");
            NclRngGenFree(a);
            NclRngGenFree(b);
            NclRngGenFree(c);
        }
    ck_assert(ncl_rng_can_skip(NCL_BITGEN_PHILOX4X32));
    g = from_key(1, 2, 3);
    NCL_CHECK_OK(ncl_rng_skip_u64(g, UINT64_MAX));
    const u128 end = 3 + 2 * (u128)UINT64_MAX; /* words */
    check_at(g, (const uint32_t[]){1, 2}, end >> 2, (unsigned)(end & 3), "skip_u64(2^64 - 1)");
    NclRngGenFree(g);
    /* a NumPy generator has no 32-bit skip */
    NclSeedSequence *ss = NULL;
    NCL_CHECK_OK(NclSeedSequenceCreate((const uint32_t[]){1}, 1, NULL, 0, &ss));
    NCL_CHECK_OK(NclRngGenCreate(NCL_BITGEN_PCG64, ss, &g));
    NCL_CHECK_STATUS(ncl_rng_skip_u32(g, 1), NCL_ERR_UNSUPPORTED);
    NclRngGenFree(g);
    NclSeedSequenceFree(ss);
}
END_TEST

/* ---- seeding and the state blob ------------------------------------------------------------------ */

START_TEST(t_seeded_and_blob)
{
    /* from a seed sequence: the key is its first two words, position 0 */
    NclSeedSequence *ss = NULL;
    NCL_CHECK_OK(NclSeedSequenceCreate((const uint32_t[]){12345}, 1, NULL, 0, &ss));
    uint32_t key[2];
    NCL_CHECK_OK(NclSeedSequenceGenerateState(ss, key, 2));
    NclRngGen *g = NULL;
    NCL_CHECK_OK(NclRngGenCreate(NCL_BITGEN_PHILOX4X32, ss, &g));
    check_at(g, key, 0, 0, "seeded");
    NclSeedSequenceFree(ss);

    /* the blob: header, key, counter words least significant first, lane */
    NclRngGen *h = at_block(key, ((u128)0x01020304u << 96) | ((u128)0x05060708u << 64) | 0x090a0b0c0d0e0f10u, 2);
    size_t n;
    unsigned char *b = state_of(h, &n);
    ck_assert_uint_eq(n, 52);
    ck_assert(memcmp(b, "NCLRNG", 6) == 0 && b[6] == 1 && b[7] == 0);
    ck_assert_uint_eq(le32(b + 8), NCL_BITGEN_PHILOX4X32);
    ck_assert_uint_eq(le32(b + 12), 52);
    ck_assert(le32(b + 16) == 0 && le32(b + 20) == 0);
    ck_assert(le32(b + 24) == key[0] && le32(b + 28) == key[1]);
    ck_assert(le32(b + 32) == 0x0d0e0f10u && le32(b + 36) == 0x090a0b0cu && le32(b + 40) == 0x05060708u &&
              le32(b + 44) == 0x01020304u && le32(b + 48) == 2);
    /* a round trip into another generator of the kind draws the same */
    NCL_CHECK_OK(NclRngGenSetState(g, b, n));
    for (int i = 0; i < 9; i++) ck_assert(ncl_philox4x32_next_u64(g) == ncl_philox4x32_next_u64(h));

    /* refusals, each leaving the generator as it was */
    unsigned char bad[BLOB_LEN + 4];
    static const struct { int at; uint32_t v; const char *text; } breaks[] = {
        {48, 4, "lane"}, {48, UINT32_MAX, "lane"}, {16, 1, "buffered half"}, {20, 5, "buffered half"},
        {16, 2, "buffered half"}, {12, 56, "bytes"}};
    for (size_t k = 0; k < sizeof breaks / sizeof breaks[0]; k++) {
        memcpy(bad, b, n);
        put_le32(bad + breaks[k].at, breaks[k].v);
        size_t n0, n1;
        unsigned char *s0 = state_of(g, &n0);
        NCL_CHECK_STATUS(NclRngGenSetState(g, bad, n), NCL_ERR_INVALID_ARGUMENT);
        NCL_CHECK_MESSAGE_HAS(breaks[k].text);
        unsigned char *s1 = state_of(g, &n1);
        ck_assert(n0 == n1 && memcmp(s0, s1, n0) == 0);
        free(s0);
        free(s1);
    }
    memcpy(bad, b, n);
    NCL_CHECK_STATUS(NclRngGenSetState(g, bad, n + 4), NCL_ERR_INVALID_ARGUMENT);
    /* NumPy's Philox is another kind */
    NCL_CHECK_OK(NclSeedSequenceCreate((const uint32_t[]){1}, 1, NULL, 0, &ss));
    NclRngGen *x = NULL;
    NCL_CHECK_OK(NclRngGenCreate(NCL_BITGEN_PHILOX, ss, &x));
    NCL_CHECK_STATUS(NclRngGenSetState(x, b, n), NCL_ERR_DTYPE);
    NCL_CHECK_MESSAGE_HAS("Philox4x32");
    size_t nx;
    unsigned char *bx = state_of(x, &nx);
    NCL_CHECK_STATUS(NclRngGenSetState(g, bx, nx), NCL_ERR_DTYPE);
    free(bx);
    NclRngGenFree(x);
    NclSeedSequenceFree(ss);
    free(b);
    NclRngGenFree(g);
    NclRngGenFree(h);
}
END_TEST

START_TEST(t_from_key_refusals)
{
    const uint32_t key[3] = {1, 2, 3};
    NclRngGen *g = NULL;
    NCL_CHECK_STATUS(NclRngGenFromKey(NCL_BITGEN_COUNT, key, 2, 0, 0, &g), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("not a bit generator");
    NCL_CHECK_STATUS(NclRngGenFromKey((NclBitGen)-1, key, 2, 0, 0, &g), NCL_ERR_INVALID_ARGUMENT);
    for (int k = 0; k < NCL_BITGEN_COUNT; k++) {
        if (k == NCL_BITGEN_PHILOX4X32) continue;
        NCL_CHECK_STATUS(NclRngGenFromKey((NclBitGen)k, key, 2, 0, 0, &g), NCL_ERR_UNSUPPORTED);
        NCL_CHECK_MESSAGE_HAS("only Philox4x32");
    }
    NCL_CHECK_STATUS(NclRngGenFromKey(NCL_BITGEN_PHILOX4X32, NULL, 2, 0, 0, &g), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("key is NULL");
    NCL_CHECK_STATUS(NclRngGenFromKey(NCL_BITGEN_PHILOX4X32, key, 1, 0, 0, &g), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("2 words");
    NCL_CHECK_STATUS(NclRngGenFromKey(NCL_BITGEN_PHILOX4X32, key, 3, 0, 0, &g), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclRngGenFromKey(NCL_BITGEN_PHILOX4X32, key, 2, 0, 0, NULL), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(g);
    /* the largest position it takes: word 2^128 - 1, lane 3 of block
       2^126 - 1 */
    g = from_key(1, 2, ~(u128)0);
    check_at(g, key, ((u128)1 << 126) - 1, 3, "the last position");
    NclRngGenFree(g);
}
END_TEST

/* ---- threads --------------------------------------------------------------------------------------- */

/* RAW, RANDOM and UNIFORM split over the pool from copies placed by the
   skips give the serial values and state: thread counts 1, 2 and 3, from
   every lane, at lengths around the split points and large ones. */
START_TEST(t_threads)
{
    const op_case *c = &ops[_i];
    const uint32_t key[2] = {3, 1415926};
    static const int64_t counts[] = {1, 2, 3, 5, 64, 1001, 100003};
    const int threads0 = NclGetNumThreads();
    const int64_t th0 = NclGetThreadingThreshold();
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        for (unsigned lane = 0; lane < 4; lane++) {
            const u128 block = 0xFFFFFF00u;
            uint32_t *w = ref_words(key, block, lane, (size_t)counts[k] * (size_t)c->words);
            for (int nt = 1; nt <= 3; nt++) {
                NCL_CHECK_OK(NclSetNumThreads(nt));
                NCL_CHECK_OK(NclSetThreadingThreshold(1));
                NclRngGen *g = at_block(key, block, lane);
                NclArray *a = draw(c, g, counts[k], NULL);
                char what[64];
                snprintf(what, sizeof what, "%d threads, n %" PRId64 ", lane %u", nt, counts[k], lane);
                check_values(c, a, w, 0, what);
                const uint64_t used = lane + (uint64_t)counts[k] * (uint64_t)c->words;
                check_at(g, key, block + (used >> 2), (unsigned)(used & 3), what);
                NclArrayRelease(a);
                NclRngGenFree(g);
            }
            free(w);
        }
    NCL_CHECK_OK(NclSetNumThreads(threads0));
    NCL_CHECK_OK(NclSetThreadingThreshold(th0));
}
END_TEST

/* ---- every variant's kernels --------------------------------------------------------------------- */

#define NCL_X_(E, n, needs)                                                      \
    extern const ncl_kernel_table ncl_k_tables_##n[NCL_KERNEL_TABLE_COUNT]     \
        NCL_ISA_WEAK_UNLESS_BUILT(E);
NCL_ISA_LEVEL_LIST(NCL_X_)
#undef NCL_X_
static const ncl_kernel_table *const level_tables[NCL_ISA_COUNT] = {
    [NCL_ISA_BASELINE] = ncl_k_tables,
#define NCL_X_(E, n, needs) [NCL_ISA_##E] = ncl_k_tables_##n,
    NCL_ISA_LEVEL_LIST(NCL_X_)
#undef NCL_X_
};

/* The kernel of (op, Philox4x32, result dtype) in one variant's tables. */
static const ncl_kernel_entry *variant_kernel(int v, const op_case *c)
{
    const ncl_kernel_table *t = level_tables[v];
    const int op = NCL_RNG_KERNEL_OP(c->op, NCL_BITGEN_PHILOX4X32);
    const int nargs = c->op == NCL_RNG_UNIFORM ? 3 : 1;
    const ncl_kernel_entry *found = NULL;
    for (int k = 0; k < NCL_KERNEL_TABLE_COUNT; k++)
        for (size_t i = 0; i < *t[k].count; i++) {
            const ncl_kernel_entry *e = &t[k].entries[i];
            if (e->subsystem == NCL_SUBSYSTEM_RNG && e->op == op && e->nargs == nargs &&
                e->sig[nargs - 1] == (int8_t)c->dt) {
                ck_assert_msg(found == NULL, "variant %s: two kernels for %s", ncl_isa_name((ncl_isa)v), c->name);
                found = e;
            }
        }
    ck_assert_msg(found != NULL, "variant %s: no kernel for %s", ncl_isa_name((ncl_isa)v), c->name);
    return found;
}

/* Runs kernel e on n values from g into out (contiguous, or at step 2
   elements), the way rng.c calls it on one thread. */
static void run_kernel(const ncl_kernel_entry *e, const op_case *c, NclRngGen *g, char *out, int64_t n, int step)
{
    const double lo = LOW, hi = HIGH;
    const NclDType sig[3] = {NCL_FLOAT64, NCL_FLOAT64, c->dt};
    const int uni = c->op == NCL_RNG_UNIFORM;
    NclRngKernelAux aux = {g, 0};
    int fpe = 0;
    NclKernelCtx ctx = {NCL_SUBSYSTEM_RNG, e->op, uni ? 2 : 0, 1, uni ? sig : sig + 2, 0, 0, &fpe, &aux,
                        NCL_ACCURACY_HIGH, 1};
    char *args[3] = {(char *)&lo, (char *)&hi, out};
    const int64_t steps[3] = {0, 0, step * (int64_t)NclDTypeSize(c->dt)};
    NCL_CHECK_OK(e->fn(NULL, &ctx, uni ? args : args + 2, n, uni ? steps : steps + 2));
}

START_TEST(t_variants_match_baseline)
{
    const op_case *c = &ops[_i];
    const uint32_t key[2] = {0x5eed, 0x1234};
    static const int64_t ns[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129,
                                 255, 256, 257, 511, 1000, 4099, 500001};
    static const u128 blocks[] = {0, 0xFFFFFFF3u, ((u128)1 << 64) - 5};
    const ncl_kernel_entry *base = variant_kernel(NCL_ISA_BASELINE, c);
    const size_t size = NclDTypeSize(c->dt);
    int compared = 0;
    for (int v = 1; v < NCL_ISA_COUNT; v++) {
        if (!level_tables[v] || !ncl_isa_cpu_supports((ncl_isa)v)) continue;
        const ncl_kernel_entry *e = variant_kernel(v, c);
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
            for (unsigned lane = 0; lane < 4; lane++)
                for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
                    for (int step = 1; step <= 2; step++) {
                        const int64_t n = ns[k];
                        if (step == 2 && n > 5000) continue;
                        /* the baseline into a line-aligned output, the
                           variant into one an element past a line */
                        char *want = calloc((size_t)(n * step + 1), size), *got = calloc((size_t)(n * step + 2), size);
                        ck_assert(want && got);
                        NclRngGen *g0 = at_block(key, blocks[b], lane), *g1 = at_block(key, blocks[b], lane);
                        char *const gp = got + size;
                        run_kernel(base, c, g0, want, n, step);
                        run_kernel(e, c, g1, gp, n, step);
                        for (int64_t i = 0; i < n * step; i += step) {
                            const uint64_t x = ncl_test_load_bits(want + i * (int64_t)size, size),
                                           y = ncl_test_load_bits(gp + i * (int64_t)size, size);
                            if (x != y)
                                ck_abort_msg("%s, %s: block %zu lane %u n %" PRId64 " step %d: value %" PRId64
                                             " is %#" PRIx64 ", the baseline's %#" PRIx64, ncl_isa_name((ncl_isa)v),
                                             c->name, b, lane, n, step, i / step, y, x);
                        }
                        size_t l0, l1;
                        unsigned char *s0 = state_of(g0, &l0), *s1 = state_of(g1, &l1);
                        ck_assert_msg(l0 == l1 && memcmp(s0, s1, l0) == 0, "%s, %s: final states differ",
                                      ncl_isa_name((ncl_isa)v), c->name);
                        free(s0);
                        free(s1);
                        NclRngGenFree(g0);
                        NclRngGenFree(g1);
                        free(want);
                        free(got);
                        compared++;
                    }
    }
    /* a machine with only the baseline compares nothing here; the suite's
       other tests check the baseline against the reference */
    (void)compared;
}
END_TEST

/* ---- the other distributions ---------------------------------------------------------------------- */

/* The rejection samplers draw from Philox4x32 word by word on the calling
   thread: the same values at any thread count, and a generator advanced
   by exactly what a copy drawing through rng_state.h uses. */
START_TEST(t_other_distributions)
{
    static const NclRngOp rops[] = {NCL_RNG_STANDARD_NORMAL, NCL_RNG_STANDARD_EXPONENTIAL, NCL_RNG_NORMAL,
                                    NCL_RNG_EXPONENTIAL};
    const int threads0 = NclGetNumThreads();
    for (size_t r = 0; r < sizeof rops / sizeof rops[0]; r++) {
        NclRngGen *g1 = from_key(8, 9, 3), *g2 = from_key(8, 9, 3);
        NclParams p = NCL_PARAMS_INIT;
        const int64_t n = 20001;
        p.ndim = 1;
        p.shape = &n;
        NclArray *a = NULL, *b = NULL;
        NCL_CHECK_OK(NclSetNumThreads(1));
        NCL_CHECK_OK(NclRng(rops[r], g1, NULL, NULL, &a, &p));
        NCL_CHECK_OK(NclSetNumThreads(3));
        NCL_CHECK_OK(NclRng(rops[r], g2, NULL, NULL, &b, &p));
        NCL_CHECK_ARRAYS(b, a, NCL_TEST_SIGNED_ZERO, 0u);
        size_t l1, l2;
        unsigned char *s1 = state_of(g1, &l1), *s2 = state_of(g2, &l2);
        ck_assert(l1 == l2 && memcmp(s1, s2, l1) == 0);
        ck_assert(le32(s1 + 32) > 5000); /* it moved: at least a word a value */
        double sum = 0;
        for (int64_t i = 0; i < n; i++) sum += ncl_test_get_d(a, i);
        ck_assert_msg(fabs(sum / (double)n - (r % 2 ? 1.0 : 0.0)) < 0.05, "mean %g", sum / (double)n);
        free(s1);
        free(s2);
        NclArrayRelease(a);
        NclArrayRelease(b);
        NclRngGenFree(g1);
        NclRngGenFree(g2);
    }
    NCL_CHECK_OK(NclSetNumThreads(threads0));
}
END_TEST

static Suite *rng_counter_suite(void)
{
    Suite *s = suite_create("rng_counter");
    TCase *tc = ncl_test_tcase(s, "known_answers");
    tcase_add_test(tc, t_known_answers);
    tcase_add_test(tc, t_cxx26_philox4x32);
    tc = ncl_test_tcase(s, "positions");
    tcase_add_loop_test(tc, t_values_by_position, 0, NOPS);
    tcase_add_loop_test(tc, t_streamed, 0, NOPS);
    tcase_add_test(tc, t_pieces);
    tc = ncl_test_tcase(s, "moves");
    tcase_add_test(tc, t_advance_jumped_skip);
    tcase_add_test(tc, t_seeded_and_blob);
    tcase_add_test(tc, t_from_key_refusals);
    tc = ncl_test_tcase(s, "threads_variants");
    tcase_add_loop_test(tc, t_threads, 0, NOPS);
    tcase_add_loop_test(tc, t_variants_match_baseline, 0, NOPS);
    tcase_add_test(tc, t_other_distributions);
    return s;
}

NCL_TEST_MAIN(rng_counter_suite)
