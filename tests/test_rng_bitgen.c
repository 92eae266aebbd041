/*
 * test_rng_bitgen.c: seed sequences and bit generators against NumPy
 * 1.24.2. The known answers are NumPy's: SeedSequence.generate_state and
 * spawn, the first outputs and the 1000th of each generator from the
 * reference files NumPy ships (numpy/random/tests/data/<name>-testset-<n>.csv),
 * mixed 32-bit, 64-bit, float32 and float64 draws that exercise the
 * buffered half, advance and jumped (MT19937's from several positions in
 * its block), Philox's counter carries. Besides: skipping ahead against
 * drawing, the state blob (round trips, its byte layout, every refusal),
 * and the arguments each function refuses.
 *
 * NCL_TEST_LINK_INTERNAL: the draws are the inline functions of
 * kernels/rng/rng_state.h and the skip is ncl_rng_skip_u64, so the suite
 * links the library's objects. Every value is compared as a number and
 * the blob is read byte by byte, so the suite runs unchanged on big-endian
 * machines.
 */
#include "ncl_test.h"
#include "defaults/ncl_rng.h"

/* ---- draws by kind ------------------------------------------------------------------- */

static uint64_t draw_u64(NclRngGen *g)
{
    switch (g->kind) {
#define NCL_X_(kind, name) case kind: return ncl_##name##_next_u64(g);
        NCL_RNG_BITGEN_LIST(NCL_X_)
#undef NCL_X_
    }
    ck_abort_msg("kind %d", g->kind);
    return 0;
}

static uint32_t draw_u32(NclRngGen *g)
{
    switch (g->kind) {
#define NCL_X_(kind, name) case kind: return ncl_##name##_next_u32(g);
        NCL_RNG_BITGEN_LIST(NCL_X_)
#undef NCL_X_
    }
    ck_abort_msg("kind %d", g->kind);
    return 0;
}

static double draw_double(NclRngGen *g)
{
    switch (g->kind) {
#define NCL_X_(kind, name) case kind: return ncl_##name##_next_double(g);
        NCL_RNG_BITGEN_LIST(NCL_X_)
#undef NCL_X_
    }
    ck_abort_msg("kind %d", g->kind);
    return 0;
}

static float draw_float(NclRngGen *g)
{
    switch (g->kind) {
#define NCL_X_(kind, name) case kind: return ncl_##name##_next_float(g);
        NCL_RNG_BITGEN_LIST(NCL_X_)
#undef NCL_X_
    }
    ck_abort_msg("kind %d", g->kind);
    return 0;
}

/* ---- helpers ---------------------------------------------------------------------------- */

static NclSeedSequence *seq(const uint32_t *entropy, size_t n, const uint32_t *key, size_t nkey)
{
    NclSeedSequence *s = NULL;
    NCL_CHECK_OK(NclSeedSequenceCreate(entropy, n, key, nkey, &s));
    return s;
}

static NclSeedSequence *seq1(uint32_t seed) { return seq(&seed, 1, NULL, 0); }

static NclRngGen *gen(NclBitGen kind, uint32_t seed)
{
    NclSeedSequence *s = seq1(seed);
    NclRngGen *g = NULL;
    NCL_CHECK_OK(NclRngGenCreate(kind, s, &g));
    NclSeedSequenceFree(s);
    return g;
}

static void check_words(const NclSeedSequence *s, const uint32_t *want, size_t n, const char *what)
{
    uint32_t got[16];
    ck_assert(n <= 16);
    NCL_CHECK_OK(NclSeedSequenceGenerateState(s, got, n));
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(got[i] == want[i], "%s: word %zu is 0x%08x, NumPy's 0x%08x", what, i, got[i], want[i]);
}

static void check_u64s(NclRngGen *g, const uint64_t *want, int n, const char *what)
{
    for (int i = 0; i < n; i++) {
        uint64_t v = draw_u64(g);
        ck_assert_msg(v == want[i], "%s: word %d is 0x%016llx, NumPy's 0x%016llx", what, i,
                      (unsigned long long)v, (unsigned long long)want[i]);
    }
}

static void check_u32s(NclRngGen *g, const uint32_t *want, int n, const char *what)
{
    for (int i = 0; i < n; i++) {
        uint32_t v = draw_u32(g);
        ck_assert_msg(v == want[i], "%s: word %d is 0x%08x, NumPy's 0x%08x", what, i, v, want[i]);
    }
}

/* The blob of g; *n its length. */
static unsigned char *blob(const NclRngGen *g, size_t *n)
{
    NCL_CHECK_OK(NclRngGenGetState(g, NULL, 0, n));
    unsigned char *b = malloc(*n);
    ck_assert_ptr_nonnull(b);
    size_t n2 = 0;
    NCL_CHECK_OK(NclRngGenGetState(g, b, *n, &n2));
    ck_assert_uint_eq(n2, *n);
    return b;
}

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static uint32_t le32(const unsigned char *p) { return (uint32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24); }
static void put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* ---- SeedSequence ------------------------------------------------------------------------- */

START_TEST(t_seed_sequence_words)
{
    /* SeedSequence(42).generate_state(8, uint32) and (4, uint64) */
    static const uint32_t w42[8] = {0xcd540ab7U, 0x9f1e2e6dU, 0x79fb94b6U, 0xd57873dcU,
                                    0x64d420b7U, 0x7d282a1bU, 0x4692d5ffU, 0x33657971U};
    static const uint64_t d42[4] = {0x9f1e2e6dcd540ab7ULL, 0xd57873dc79fb94b6ULL, 0x7d282a1b64d420b7ULL,
                                    0x336579714692d5ffULL};
    NclSeedSequence *s = seq1(42);
    check_words(s, w42, 8, "SeedSequence(42)");
    check_words(s, w42, 8, "SeedSequence(42) again (the sequence does not advance)");
    for (int i = 0; i < 4; i++) ck_assert(((uint64_t)w42[2 * i + 1] << 32 | w42[2 * i]) == d42[i]);
    NCL_CHECK_OK(NclSeedSequenceGenerateState(s, NULL, 0));
    NclSeedSequenceFree(s);

    static const struct {
        uint32_t entropy[6];
        size_t n;
        uint32_t want[6];
        const char *what;
    } cases[] = {
        {{0}, 1, {0xb0f478beU, 0xdb2cd7e7U, 0x2c71ba49U, 0xabf4641aU, 0x9d7b8d41U, 0x20c6ed6dU}, "0"},
        {{7, 0, 1}, 3, {0x78edde64U, 0x9f0ff81bU, 0x5507b991U, 0x51da55b9U, 0xa58ec4a7U, 0xdd22ffe6U},
         "2**64 + 7"},
        {{0xffffffffU, 0xffffffffU, 0xffffffffU, 0xffffffffU}, 4,
         {0x30e01209U, 0x83951678U, 0xcc99cac3U, 0x84c0e37dU, 0xf788e841U, 0xd33f1bd2U}, "2**128 - 1"},
        {{1, 2, 3, 4, 5, 6}, 6, {0x1d1bca21U, 0xebcd001dU, 0xb202608bU, 0xcfea83a4U, 0xe4fcf5b6U, 0x9b21dd81U},
         "[1, 2, 3, 4, 5, 6]"},
        {{0xdeadbeafU}, 1, {0xd516e24aU, 0x50312a63U, 0xca44dc77U, 0x4063bc8bU, 0xab4ec9e2U, 0xb780f022U},
         "0xdeadbeaf"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        s = seq(cases[c].entropy, cases[c].n, NULL, 0);
        check_words(s, cases[c].want, 6, cases[c].what);
        NclSeedSequenceFree(s);
    }
}
END_TEST

START_TEST(t_seed_sequence_spawn_key)
{
    /* SeedSequence([1, 2, 3, 4, 5], spawn_key=(9, 0)): entropy longer than
       the pool, no padding */
    static const uint32_t e5[5] = {1, 2, 3, 4, 5}, k90[2] = {9, 0};
    static const uint32_t w5[4] = {0xa2e3364eU, 0xe4da860fU, 0xa8c309ccU, 0x4b8419ffU};
    NclSeedSequence *s = seq(e5, 5, k90, 2);
    check_words(s, w5, 4, "SeedSequence([1..5], spawn_key=(9, 0))");
    NclSeedSequenceFree(s);
    /* SeedSequence(42, spawn_key=(9,)): entropy zero-padded to 4 words */
    static const uint32_t e42 = 42, k9 = 9;
    static const uint32_t w9[4] = {0x4a29fb79U, 0x55207682U, 0x508bfd82U, 0x99fe185bU};
    s = seq(&e42, 1, &k9, 1);
    check_words(s, w9, 4, "SeedSequence(42, spawn_key=(9,))");
    NclSeedSequenceFree(s);
    /* not the same as the entropy [42, 9] */
    static const uint32_t e42_9[2] = {42, 9};
    s = seq(e42_9, 2, NULL, 0);
    uint32_t got[4];
    NCL_CHECK_OK(NclSeedSequenceGenerateState(s, got, 4));
    ck_assert(memcmp(got, w9, sizeof got) != 0);
    NclSeedSequenceFree(s);
    /* SeedSequence(42, spawn_key=(2**32 + 3,)): a key element of two words */
    static const uint32_t kbig[2] = {3, 1};
    static const uint32_t wbig[4] = {0xcc7445e8U, 0xaede8afeU, 0x06c4cc63U, 0xb2ba50f3U};
    s = seq(&e42, 1, kbig, 2);
    check_words(s, wbig, 4, "SeedSequence(42, spawn_key=(2**32 + 3,))");
    NclSeedSequenceFree(s);
}
END_TEST

START_TEST(t_seed_sequence_spawn)
{
    /* ss = SeedSequence(42); ss.spawn(3), then ss.spawn(2) (keys (3,), (4,)),
       then the second child's spawn(2) (keys (1, 0), (1, 1)) */
    static const uint32_t want[7][4] = {
        {0xa001c6a4U, 0xdff6ed7dU, 0x64d84a1fU, 0x43239888U}, {0xf3e63cbaU, 0x01dcb763U, 0x15de6f6eU, 0x6aee7dd6U},
        {0x0de6c5edU, 0xa102097aU, 0xc9f23d3fU, 0x957ebe91U}, {0xc34fc8c5U, 0x34037e9dU, 0x48019fd6U, 0xed87f1b5U},
        {0xd9372456U, 0x89658ff4U, 0x2d54d618U, 0x13388249U}, {0x45fbc4b8U, 0xe66843feU, 0xb4173249U, 0x6dba0da6U},
        {0x1ddbbbeeU, 0xce04d729U, 0xd125cc57U, 0xbb9452c0U},
    };
    NclSeedSequence *ss = seq1(42), *a[3], *b[2], *c[2];
    NCL_CHECK_OK(NclSeedSequenceSpawn(ss, 3, a));
    NCL_CHECK_OK(NclSeedSequenceSpawn(ss, 0, NULL));
    NCL_CHECK_OK(NclSeedSequenceSpawn(ss, 2, b));
    NCL_CHECK_OK(NclSeedSequenceSpawn(a[1], 2, c));
    NclSeedSequence *all[7] = {a[0], a[1], a[2], b[0], b[1], c[0], c[1]};
    for (int i = 0; i < 7; i++) {
        char what[32];
        snprintf(what, sizeof what, "child %d", i);
        check_words(all[i], want[i], 4, what);
        NclSeedSequenceFree(all[i]);
    }
    NclSeedSequenceFree(ss);
    NclSeedSequenceFree(NULL);
}
END_TEST

/* ---- generators: NumPy's reference files -------------------------------------------------- */

/* numpy/random/tests/data/<name>-testset-{1,2}.csv: the generator seeded
   with SeedSequence(seed), its first 8 raw outputs and the 1000th
   (MT19937's raw outputs are its 32-bit words). */
static const struct {
    NclBitGen kind;
    uint32_t seed;
    uint64_t first[8];
    uint64_t at1000;
} csv_sets[] = {
    {NCL_BITGEN_PCG64, 0xdeadbeaf, {0x60d24054e17a0698, 0xd5e79d89856e4f12, 0xd254972fe64bd782, 0xf1e3072a53c72571,
                                    0xd7c1d7393d4115c9, 0x77b75928b763e1e2, 0xee6dee05190f7909, 0x15f7b1c51d7fa319},
     0xa5cb380b8de10d10ULL},
    {NCL_BITGEN_PCG64, 0x0, {0xa30febcfd9c2825f, 0x4510bdf882d9d721, 0x0a7d3da94ecde8b8, 0x043b27b61342f01d,
                             0xd0327a782cde513b, 0xe9aa5979a6401c4e, 0x9b4c7b7180edb27f, 0xbac0495ff8829a45},
     0x6148329042f743b0ULL},
    {NCL_BITGEN_PCG64DXSM, 0xdeadbeaf, {0xdf1ddcf1e22521fe, 0xc71b2f9c706cf151, 0x6922a8cc24ad96b2,
                                        0x82738c549beccc30, 0x5e8415cdb1f17580, 0x064c54ad0c09cb43,
                                        0x361a17a607dce278, 0x4346f6afb7acad68},
     0x4955c92aaa231578ULL},
    {NCL_BITGEN_PCG64DXSM, 0x0, {0xd97e4a147f788a70, 0x8dfa7bce56e3a253, 0x13556ed9f53d3c10, 0x55dbf1c241341e98,
                                 0xa2cd98f722eb0e0a, 0x083dfc407203ade8, 0xeaa083df518f030d, 0x44968c87e432852b},
     0xc0a277e3b2bfc3deULL},
    {NCL_BITGEN_PHILOX, 0xdeadbeaf, {0xedc95200e2bd66a5, 0x581d4e43b7682352, 0x4be7278f5e373eab, 0xee47f17991a9e7ea,
                                     0x38a7d2ae422f2e2c, 0xe2a6730a3b4a8a15, 0x1588b7a841486442, 0x13ad777246700504},
     0x1f83a32d4adfd2edULL},
    {NCL_BITGEN_PHILOX, 0x0, {0x0399e5b222b82fa9, 0x41fd08c1f00f3bc5, 0x78b8824162ee4d04, 0x176747919e02739d,
                              0xfaa88f002a8d3596, 0x418eb6f592e6c227, 0xef83020b8344dd45, 0x30a74a1a6eaa064b},
     0x57c05f47ff62380dULL},
    {NCL_BITGEN_SFC64, 0xdeadbeaf, {0xa475f55fbb6bc638, 0xb2d594b6c29d971c, 0x275bc4ece4484fb1, 0x569be72d9b3492fb,
                                    0x89a5bb9b206a670c, 0xd951bfa06afdc3f9, 0x7ee2e1029d52a265, 0x12ef1d4de0cb4d4c},
     0x0f5433336eadef6eULL},
    {NCL_BITGEN_SFC64, 0x0, {0x91959e5fb96a6332, 0x3c1dd8a25a7e9f21, 0x657bdffc99798d9e, 0x1a04de320b19e022,
                             0x65b92af0e5f3c61c, 0x9c84070ce8f743c0, 0xbb10e573693cdb25, 0xd65ea9e76b37fb6b},
     0xfb8482c827eb90bcULL},
    {NCL_BITGEN_MT19937, 0xdeadbeaf, {0xc816921f, 0xb3623c6d, 0x5fa391bb, 0x040178d9, 0x7dcc9811, 0x548eb8e6,
                                      0x92ba3125, 0x65fde68d},
     0x68a19647ULL},
    {NCL_BITGEN_MT19937, 0x0, {0x7ab4ea94, 0x9b561119, 0x4957d02e, 0x7dd3fdc2, 0x05affe54, 0x5a01741c, 0x8b9e8c1f,
                               0xda5bf11a},
     0xad8c191bULL},
};

START_TEST(t_reference_files)
{
    const int i = _i;
    NclRngGen *g = gen(csv_sets[i].kind, csv_sets[i].seed);
    ck_assert_int_eq(NclRngGenKind(g), (int)csv_sets[i].kind);
    int mt = csv_sets[i].kind == NCL_BITGEN_MT19937;
    uint64_t v = 0;
    for (int k = 0; k < 1000; k++) {
        v = mt ? draw_u32(g) : draw_u64(g);
        if (k < 8)
            ck_assert_msg(v == csv_sets[i].first[k], "%s seed 0x%x: value %d is 0x%016llx, NumPy's 0x%016llx",
                          ncl_bitgen_name(csv_sets[i].kind), csv_sets[i].seed, k, (unsigned long long)v,
                          (unsigned long long)csv_sets[i].first[k]);
    }
    ck_assert_msg(v == csv_sets[i].at1000, "%s seed 0x%x: value 999 is 0x%016llx, NumPy's 0x%016llx",
                  ncl_bitgen_name(csv_sets[i].kind), csv_sets[i].seed, (unsigned long long)v,
                  (unsigned long long)csv_sets[i].at1000);
    NclRngGenFree(g);
}
END_TEST

/* ---- generators: the seeded state and mixed draws ------------------------------------------ */

START_TEST(t_seeded_state)
{
    /* PCG64(SeedSequence(42)).state: state and inc, as 64-bit halves */
    static const uint64_t pcg[4] = {0xacbc7c9d68860ac8ULL, 0xcea44f6798798f2aULL, /* state lo, hi */
                                    0x66caf2e28d25abffULL, 0xfa505436c9a8416eULL}; /* inc lo, hi */
    for (int k = NCL_BITGEN_PCG64; k <= NCL_BITGEN_PCG64DXSM; k++) {
        NclRngGen *g = gen(k, 42);
        size_t n;
        unsigned char *b = blob(g, &n);
        for (int i = 0; i < 4; i++)
            ck_assert_msg(le64(b + 24 + 8 * i) == pcg[i], "%s word %d", ncl_bitgen_name(k), i);
        free(b);
        NclRngGenFree(g);
    }
    /* Philox: key generate_state(2, uint64), counter 0, buffer empty */
    NclRngGen *g = gen(NCL_BITGEN_PHILOX, 42);
    ck_assert(g->s.philox.key[0] == 11465652750463011511ULL && g->s.philox.key[1] == 15382171918060459190ULL);
    ck_assert(g->s.philox.ctr[0] == 0 && g->s.philox.ctr[3] == 0 && g->s.philox.pos == 4);
    NclRngGenFree(g);
    /* SFC64: after its 12 discarded draws */
    g = gen(NCL_BITGEN_SFC64, 42);
    ck_assert(g->s.sfc.a == 9143715722600539226ULL && g->s.sfc.b == 631878879238184246ULL &&
              g->s.sfc.c == 4804307118799948943ULL && g->s.sfc.w == 13);
    NclRngGenFree(g);
    /* MT19937: key[0] = 0x80000000, position 623 */
    g = gen(NCL_BITGEN_MT19937, 42);
    ck_assert(g->s.mt.key[0] == 0x80000000U && g->s.mt.key[1] == 2669555309U && g->s.mt.key[2] == 2046530742U &&
              g->s.mt.key[3] == 3581440988U && g->s.mt.pos == 623);
    NclRngGenFree(g);
}
END_TEST

/* Generator(<kind>(SeedSequence(42))): integers(0, 2**32, dtype=uint32)
   three times, one raw 64-bit integer (integers(0, 2**64 - 1,
   endpoint=True, dtype=uint64)), random(3, dtype=float32), random(2),
   one more uint32. The 32-bit draws take the low half of a word and keep
   the high half for the next (MT19937: its own 32-bit words). */
static const struct {
    uint32_t u32a[3];
    uint64_t u64;
    float f[3];
    double d[2];
    uint32_t u32b;
} mixed[] = { /* NumPy's five, in NclBitGen order */
    {{0x16d92688U, 0xc621fbcdU, 0xa791ffc1U}, 0xdbcd12c26eda1624ULL,
     {0x1.c16958p-2f, 0x1.60088p-4f, 0x1.650d6cp-1f}, {0x1.81c01b533938p-4, 0x1.f384c5db0d8eap-1}, 0xbc5a4471U},
    {{0x8e63481dU, 0xab1c5033U, 0x548d1872U}, 0xa872905d0418d0a1ULL,
     {0x1.bdf9p-8f, 0x1.701d4p-5f, 0x1.7c2a1p-2f}, {0x1.a741282a6daf8p-3, 0x1.8cffc9e590658p-3}, 0xb5d626afU},
    {{0xecdab98aU, 0x16092f00U, 0x24021070U}, 0x4524d130684efe02ULL,
     {0x1.21e8c8p-3f, 0x1.e25ad8p-3f, 0x1.bf81e4p-1f}, {0x1.5c7f3829fd918p-3, 0x1.037ceb032df7ap-1}, 0x5e0c03e0U},
    {{0x3ed2c19dU, 0x87a9e37fU, 0x6d651052U}, 0xf20682759befde78ULL,
     {0x1.8353b4p-2f, 0x1.fae98p-4f, 0x1.af3bacp-2f}, {0x1.484fd1d36cdd4p-1, 0x1.4b4de072dfd1ap-2}, 0x961ffc77U},
    {{0x8ac01c92U, 0xe8bfd726U, 0x9ea282a8U}, 0x675a106c0eafc93aULL,
     {0x1.83573ep-1f, 0x1.9fb1d4p-1f, 0x1.653064p-2f}, {0x1.b85e3e7458749p-1, 0x1.415517446c046p-1}, 0xae932f0fU},
};

START_TEST(t_mixed_draws)
{
    const int k = _i;
    NclRngGen *g = gen(k, 42);
    const char *name = ncl_bitgen_name(k);
    check_u32s(g, mixed[k].u32a, 3, name);
    /* a 64-bit draw leaves the pending half pending */
    check_u64s(g, &mixed[k].u64, 1, name);
    for (int i = 0; i < 3; i++) {
        float f = draw_float(g);
        ck_assert_msg(f == mixed[k].f[i], "%s: float %d is %a, NumPy's %a", name, i, (double)f,
                      (double)mixed[k].f[i]);
    }
    for (int i = 0; i < 2; i++) {
        double d = draw_double(g);
        ck_assert_msg(d == mixed[k].d[i], "%s: double %d is %a, NumPy's %a", name, i, d, mixed[k].d[i]);
    }
    check_u32s(g, &mixed[k].u32b, 1, name);
    NclRngGenFree(g);
}
END_TEST

/* ---- advance and jumped ---------------------------------------------------------------------- */

/* From <kind>(SeedSequence(42)) after one 64-bit and one 32-bit draw (a
   half pending): advance(1000003) and 4 words; advance(3 * 2**64 + 5) and
   4 words; a uint32 (the pending half was dropped); then jumped(1),
   jumped(3) and jumped(0) of that state, 4 words each. */
static const struct {
    uint64_t adv[4], adv2[4];
    uint32_t adv3;
    uint64_t jmp[4], jmp3[4], jmp0[4];
} advanced[3] = {
    {{0x42b158ae44f7b9caULL, 0xc002decb9156f742ULL, 0xe0043f1c8c8b10acULL, 0xe5a1203dea0ba8bdULL},
     {0x703d57d7ad0a87efULL, 0xbc385753635c31e0ULL, 0xcafef02ef95f2c93ULL, 0xb4459056f549ffe7ULL},
     0x05a3bc7fU,
     {0x1c3c63370402c2eeULL, 0x0c4560b98d413d0bULL, 0xd463c909c92f6238ULL, 0xe11d9d86485103d5ULL},
     {0x8381d400c11c4c26ULL, 0xf56b92a776a5e32bULL, 0xe14ac492ab858df9ULL, 0xb7a507bb6b793165ULL},
     {0x703edd44bdfb1d7bULL, 0x79ead04458a3978fULL, 0x11550e265b3748b9ULL, 0x24df5cf0fc74524cULL}},
    {{0xf239e76c6f276d54ULL, 0xa932fd8f7815f056ULL, 0x26a11f741c103c0aULL, 0x6060b41b6ff4ab00ULL},
     {0xbfb14a4207040ad5ULL, 0xd18a6b7ba7960935ULL, 0x03f4d1469b23d9d4ULL, 0x73941343e2c0f1b8ULL},
     0xfe9bf2bcU,
     {0x1fc10e879b6e0724ULL, 0x38a4170d9968b790ULL, 0x9975389a48d2c0e0ULL, 0x905f75628e5c5094ULL},
     {0x686ebeef924203a8ULL, 0x9f95c32786c39d5dULL, 0xa43a95feb81a7869ULL, 0xeae4820ce2bf9e98ULL},
     {0x0077b298dc677b9bULL, 0x8e0134607ed27082ULL, 0x2eaef9f2171d4cdaULL, 0x081c86863c77b923ULL}},
    {{0x348d4587630c3563ULL, 0x18c1a404b2948299ULL, 0x4f8a6a7900f07f1eULL, 0x2d52c6228687750fULL},
     {0xb4b5d9c422c6da71ULL, 0x2b5ecca3df7e7b1aULL, 0x7cfc293bdcd145cbULL, 0x68347781365c79c2ULL},
     0x5e1b4f43U,
     {0x53c14abde86e9967ULL, 0x7e5307a7f95a5632ULL, 0xececcc8df217f65dULL, 0xc9d9c37a171878f1ULL},
     {0x7c27cad84a6a66bcULL, 0x8d3a29d9c8183605ULL, 0xb3546863958eb4d1ULL, 0xfba62d4fcc60f86eULL},
     {0xc029e159c549c370ULL, 0x406fb249e1a0d4efULL, 0xc26fbbd7e0039d26ULL, 0x5b10595caa6d4ffeULL}},
};

START_TEST(t_advance_jumped)
{
    const int k = _i; /* PCG64, PCG64DXSM, Philox */
    const char *name = ncl_bitgen_name(k);
    NclRngGen *g = gen(k, 42), *j = NULL;
    (void)draw_u64(g);
    (void)draw_u32(g);
    ck_assert(g->has_u32);
    NCL_CHECK_OK(NclRngGenAdvance(g, 1000003, 0));
    ck_assert(!g->has_u32);
    check_u64s(g, advanced[k].adv, 4, name);
    NCL_CHECK_OK(NclRngGenAdvance(g, 5, 3));
    check_u64s(g, advanced[k].adv2, 4, name);
    check_u32s(g, &advanced[k].adv3, 1, name);
    ck_assert(g->has_u32);
    NCL_CHECK_OK(NclRngGenJumped(g, 1, &j));
    ck_assert(g->has_u32 && !j->has_u32);
    check_u64s(j, advanced[k].jmp, 4, name);
    NclRngGenFree(j);
    NCL_CHECK_OK(NclRngGenJumped(g, 3, &j));
    check_u64s(j, advanced[k].jmp3, 4, name);
    NclRngGenFree(j);
    NCL_CHECK_OK(NclRngGenJumped(g, 0, &j));
    check_u64s(j, advanced[k].jmp0, 4, name);
    NclRngGenFree(j);
    NclRngGenFree(g);
}
END_TEST

START_TEST(t_philox_counter_carry)
{
    NclRngGen *g = gen(NCL_BITGEN_PHILOX, 42), *j = NULL;
    /* counter (2**64 - 1, 2**64 - 1, 2**64 - 1, 0), advance(1) */
    static const uint64_t c1[5] = {0x8937581c40a4968dULL, 0x98ed1b5a5295a3e6ULL, 0x1d1ced530749f3efULL,
                                   0x56dd1d2a8c83075bULL, 0xb219a1157de90db5ULL};
    for (int i = 0; i < 3; i++) g->s.philox.ctr[i] = UINT64_MAX;
    NCL_CHECK_OK(NclRngGenAdvance(g, 1, 0));
    ck_assert(g->s.philox.ctr[0] == 0 && g->s.philox.ctr[1] == 0 && g->s.philox.ctr[2] == 0 &&
              g->s.philox.ctr[3] == 1);
    check_u64s(g, c1, 5, "Philox carry through three words");
    /* counter (1, 0, 0, 0), advance(2**128 - 1) */
    static const uint64_t c2[2] = {0x5186a060e0852be9ULL, 0x65c3c5131a16110bULL};
    memset(g->s.philox.ctr, 0, sizeof g->s.philox.ctr);
    g->s.philox.ctr[0] = 1;
    NCL_CHECK_OK(NclRngGenAdvance(g, UINT64_MAX, UINT64_MAX));
    ck_assert(g->s.philox.ctr[0] == 0 && g->s.philox.ctr[1] == 0 && g->s.philox.ctr[2] == 1 &&
              g->s.philox.ctr[3] == 0);
    check_u64s(g, c2, 2, "Philox advance(2**128 - 1)");
    /* counter all ones, jumped(2): wraps modulo 2**256 */
    static const uint64_t c3[2] = {0xd597f55a51939069ULL, 0x0b807d2a19fdce75ULL};
    for (int i = 0; i < 4; i++) g->s.philox.ctr[i] = UINT64_MAX;
    g->s.philox.pos = 4;
    NCL_CHECK_OK(NclRngGenJumped(g, 2, &j));
    ck_assert(j->s.philox.ctr[0] == UINT64_MAX && j->s.philox.ctr[1] == UINT64_MAX && j->s.philox.ctr[2] == 1 &&
              j->s.philox.ctr[3] == 0);
    check_u64s(j, c3, 2, "Philox jumped(2) from the last counter");
    NclRngGenFree(j);
    NclRngGenFree(g);
}
END_TEST

/* MT19937(SeedSequence(42)) after `pre` 32-bit draws, jumped(1): the
   position NumPy's lands on, the first 4 words and the 1005th. */
static const struct {
    int pre, pos;
    uint32_t first[4], at1005;
} mt_jumps[] = {
    {0, 588, {0xe7240567U, 0xc9518b2dU, 0x06ca0eb9U, 0xf124c8bdU}, 0x0ec14e74U},
    {1, 589, {0x9ac5fe11U, 0x774dbb33U, 0x23040869U, 0x8cb0a04fU}, 0xf7be44f0U},
    {2, 590, {0x8e03377aU, 0xf2aad35bU, 0x904c2112U, 0x637ad29bU}, 0x07f466a5U},
    {101, 65, {0x8bb63192U, 0x17f3aea0U, 0xe140f7f5U, 0x283db7b6U}, 0xeb78431eU},
    {700, 40, {0x42d1f4d6U, 0xaebd6fbaU, 0xfc60c698U, 0xf2c69bebU}, 0x2171bbc3U},
};

START_TEST(t_mt19937_jumped)
{
    const int i = _i;
    NclRngGen *g = gen(NCL_BITGEN_MT19937, 42), *j = NULL;
    for (int k = 0; k < mt_jumps[i].pre; k++) (void)draw_u32(g);
    NCL_CHECK_OK(NclRngGenJumped(g, 1, &j));
    ck_assert_int_eq(j->s.mt.pos, mt_jumps[i].pos);
    check_u32s(j, mt_jumps[i].first, 4, "MT19937 jumped");
    for (int k = 4; k < 1004; k++) (void)draw_u32(j);
    check_u32s(j, &mt_jumps[i].at1005, 1, "MT19937 jumped, word 1004");
    NclRngGenFree(j);
    if (i == 0) {
        /* jumped(2) is two jumps */
        static const uint32_t two[4] = {0xc176ea26U, 0xd774ba2aU, 0x3060bbc8U, 0xa2784b93U};
        NCL_CHECK_OK(NclRngGenJumped(g, 2, &j));
        ck_assert_int_eq(j->s.mt.pos, 553);
        check_u32s(j, two, 4, "MT19937 jumped(2)");
        NclRngGenFree(j);
    }
    NclRngGenFree(g);
}
END_TEST

START_TEST(t_unsupported)
{
    NclRngGen *s = gen(NCL_BITGEN_SFC64, 1), *m = gen(NCL_BITGEN_MT19937, 1), *j = NULL;
    size_t n;
    unsigned char *before = blob(s, &n);
    NCL_CHECK_STATUS(NclRngGenAdvance(s, 1, 0), NCL_ERR_UNSUPPORTED);
    NCL_CHECK_STATUS(NclRngGenJumped(s, 1, &j), NCL_ERR_UNSUPPORTED);
    ck_assert_ptr_null(j);
    NCL_CHECK_STATUS(NclRngGenAdvance(m, 1, 0), NCL_ERR_UNSUPPORTED);
    NCL_CHECK_MESSAGE_HAS("MT19937");
    unsigned char *after = blob(s, &n);
    ck_assert(memcmp(before, after, n) == 0);
    ck_assert(!ncl_rng_can_skip(NCL_BITGEN_SFC64) && !ncl_rng_can_skip(NCL_BITGEN_MT19937) &&
              !ncl_rng_can_skip(-1) && !ncl_rng_can_skip(NCL_BITGEN_COUNT));
    NCL_CHECK_STATUS(ncl_rng_skip_u64(s, 3), NCL_ERR_UNSUPPORTED);
    NCL_CHECK_STATUS(ncl_rng_skip_u64(m, 3), NCL_ERR_UNSUPPORTED);
    free(before);
    free(after);
    NclRngGenFree(s);
    NclRngGenFree(m);
}
END_TEST

/* ---- skipping ahead ---------------------------------------------------------------------------- */

START_TEST(t_skip_matches_draws)
{
    static const NclBitGen kinds[3] = {NCL_BITGEN_PCG64, NCL_BITGEN_PCG64DXSM, NCL_BITGEN_PHILOX};
    const NclBitGen k = kinds[_i];
    ck_assert(ncl_rng_can_skip(k));
    static const uint64_t skips[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 64, 1001};
    for (int pre = 0; pre < 5; pre++) {
        for (size_t s = 0; s < sizeof skips / sizeof skips[0]; s++) {
            NclRngGen *a = gen(k, 7), *b = NULL;
            for (int i = 0; i < pre; i++) (void)draw_u64(a);
            (void)draw_u32(a); /* a pending half, which the skip keeps */
            NCL_CHECK_OK(NclRngGenCopy(a, &b));
            for (uint64_t i = 0; i < skips[s]; i++) (void)draw_u64(a);
            NCL_CHECK_OK(ncl_rng_skip_u64(b, skips[s]));
            size_t na, nb;
            unsigned char *ba = blob(a, &na), *bb = blob(b, &nb);
            ck_assert_msg(na == nb && memcmp(ba, bb, na) == 0, "%s: skip %llu after %d draws differs from drawing",
                          ncl_bitgen_name(k), (unsigned long long)skips[s], pre);
            ck_assert(b->has_u32 == 1 && b->u32 == a->u32);
            for (int i = 0; i < 6; i++) ck_assert(draw_u64(a) == draw_u64(b));
            free(ba);
            free(bb);
            NclRngGenFree(a);
            NclRngGenFree(b);
        }
    }
    /* a skip far past 2^64 words would take: two skips of 2^63 are one
       advance of 2^64 */
    NclRngGen *a = gen(k, 7), *b = gen(k, 7);
    NCL_CHECK_OK(ncl_rng_skip_u64(a, UINT64_C(1) << 63));
    NCL_CHECK_OK(ncl_rng_skip_u64(a, UINT64_C(1) << 63));
    if (k == NCL_BITGEN_PHILOX) {
        /* 2^64 words are 2^62 blocks, the last one used up */
        NCL_CHECK_OK(NclRngGenAdvance(b, UINT64_C(1) << 62, 0));
        ck_assert(a->s.philox.pos == 4); /* its buffer holds the used-up block */
        ck_assert(memcmp(a->s.philox.ctr, b->s.philox.ctr, sizeof a->s.philox.ctr) == 0);
    } else {
        NCL_CHECK_OK(NclRngGenAdvance(b, 0, 1));
    }
    for (int i = 0; i < 4; i++) ck_assert(draw_u64(a) == draw_u64(b));
    NclRngGenFree(a);
    NclRngGenFree(b);
}
END_TEST

/* ---- the state blob ------------------------------------------------------------------------------- */

/* Puts g somewhere other than its seeded state, with a half pending where
   the kind has one. */
static void stir(NclRngGen *g)
{
    for (int i = 0; i < 5; i++) (void)draw_u64(g);
    (void)draw_u32(g);
    (void)draw_float(g);
    (void)draw_u32(g);
}

START_TEST(t_state_round_trip)
{
    const int k = _i;
    NclRngGen *g = gen(k, 99), *h = gen(k, 5);
    stir(g);
    size_t n;
    unsigned char *b = blob(g, &n);
    /* the header, byte by byte */
    ck_assert(memcmp(b, "NCLRNG", 6) == 0);
    ck_assert_uint_eq(b[6] | b[7] << 8, 1);
    ck_assert_uint_eq(le32(b + 8), (uint32_t)k);
    ck_assert_uint_eq(le32(b + 12), n);
    ck_assert_uint_eq(le32(b + 16), (uint32_t)g->has_u32);
    ck_assert_uint_eq(le32(b + 20), g->u32);
    ck_assert_int_eq(g->has_u32, k != NCL_BITGEN_MT19937 && k != NCL_BITGEN_PHILOX4X32);
    /* the draws after the state, then the state set back */
    uint64_t want[40];
    for (int i = 0; i < 40; i++) want[i] = i % 3 ? draw_u64(g) : draw_u32(g);
    NCL_CHECK_OK(NclRngGenSetState(g, b, n));
    NCL_CHECK_OK(NclRngGenSetState(h, b, n)); /* another generator of the kind */
    for (int i = 0; i < 40; i++) {
        ck_assert(want[i] == (i % 3 ? draw_u64(g) : draw_u32(g)));
        ck_assert(want[i] == (i % 3 ? draw_u64(h) : draw_u32(h)));
    }
    /* exactly the bytes needed, no more */
    size_t got = 0;
    NCL_CHECK_STATUS(NclRngGenGetState(g, b, n - 1, &got), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(got, n);
    NCL_CHECK_OK(NclRngGenGetState(g, b, n, NULL));
    free(b);
    NclRngGenFree(g);
    NclRngGenFree(h);
}
END_TEST

START_TEST(t_state_words_layout)
{
    /* PCG64: a blob made by hand sets NumPy's state; the draws are NumPy's
       seed-0 stream (pcg64-testset-2.csv), from PCG64(SeedSequence(0)).state */
    NclRngGen *g = gen(NCL_BITGEN_PCG64, 0), *h = gen(NCL_BITGEN_PCG64, 1);
    size_t n;
    unsigned char *b = blob(g, &n);
    ck_assert_uint_eq(n, 56);
    NCL_CHECK_OK(NclRngGenSetState(h, b, n));
    check_u64s(h, csv_sets[1].first, 8, "PCG64 set from seed 0's blob");
    free(b);
    /* Philox: counter, key, buffer and position in their places */
    NclRngGenFree(g);
    g = gen(NCL_BITGEN_PHILOX, 42);
    (void)draw_u64(g);
    b = blob(g, &n);
    ck_assert_uint_eq(n, 112);
    ck_assert(le64(b + 24) == 1 && le64(b + 32) == 0);
    ck_assert(le64(b + 56) == 11465652750463011511ULL && le64(b + 64) == 15382171918060459190ULL);
    ck_assert(le64(b + 72) == g->s.philox.buf[0] && le64(b + 96) == g->s.philox.buf[3]);
    ck_assert(le64(b + 104) == 1);
    free(b);
    NclRngGenFree(g);
    /* SFC64 and MT19937 */
    g = gen(NCL_BITGEN_SFC64, 42);
    b = blob(g, &n);
    ck_assert_uint_eq(n, 56);
    ck_assert(le64(b + 24) == 9143715722600539226ULL && le64(b + 48) == 13);
    free(b);
    NclRngGenFree(g);
    g = gen(NCL_BITGEN_MT19937, 42);
    b = blob(g, &n);
    ck_assert_uint_eq(n, 24 + 4 * 625);
    ck_assert(le32(b + 24) == 0x80000000U && le32(b + 28) == 2669555309U && le32(b + 24 + 4 * 624) == 623);
    free(b);
    NclRngGenFree(g);
    NclRngGenFree(h);
}
END_TEST

/* SetState on g with blob b (n bytes) must fail with st and leave g's
   state as it was. */
static void check_refused(NclRngGen *g, const unsigned char *b, size_t n, NclStatus st, const char *text)
{
    size_t n0;
    unsigned char *before = blob(g, &n0);
    NCL_CHECK_STATUS(NclRngGenSetState(g, b, n), st);
    NCL_CHECK_MESSAGE_HAS(text);
    size_t n1;
    unsigned char *after = blob(g, &n1);
    ck_assert(n0 == n1 && memcmp(before, after, n0) == 0);
    free(before);
    free(after);
}

START_TEST(t_state_refusals)
{
    NclRngGen *p = gen(NCL_BITGEN_PCG64, 3), *x = gen(NCL_BITGEN_PHILOX, 3), *m = gen(NCL_BITGEN_MT19937, 3),
              *d = gen(NCL_BITGEN_PCG64DXSM, 3);
    stir(p);
    stir(x);
    stir(m);
    size_t n, nx, nm;
    unsigned char *good = blob(p, &n), *gx = blob(x, &nx), *gm = blob(m, &nm);
    unsigned char *b = malloc(nm + 8);
    ck_assert_ptr_nonnull(b);
    NclRngGen *fresh = gen(NCL_BITGEN_PCG64, 4);

    memcpy(b, good, n);
    b[0] = 'X';
    check_refused(fresh, b, n, NCL_ERR_INVALID_ARGUMENT, "magic");
    check_refused(fresh, good, 10, NCL_ERR_INVALID_ARGUMENT, "magic");
    memcpy(b, good, n);
    b[6] = 2;
    check_refused(fresh, b, n, NCL_ERR_INVALID_ARGUMENT, "version");
    memcpy(b, good, n);
    check_refused(fresh, b, n - 1, NCL_ERR_INVALID_ARGUMENT, "bytes");
    memcpy(b + n, "\0\0\0\0", 4);
    check_refused(fresh, b, n + 4, NCL_ERR_INVALID_ARGUMENT, "bytes");
    put_le32(b + 12, (uint32_t)n + 4);
    check_refused(fresh, b, n + 4, NCL_ERR_INVALID_ARGUMENT, "bytes");
    memcpy(b, good, n);
    put_le32(b + 8, NCL_BITGEN_COUNT);
    check_refused(fresh, b, n, NCL_ERR_INVALID_ARGUMENT, "not a bit generator");
    /* another kind, even one with the same layout */
    check_refused(d, good, n, NCL_ERR_DTYPE, "PCG64");
    check_refused(fresh, gx, nx, NCL_ERR_DTYPE, "Philox");
    check_refused(fresh, gm, nm, NCL_ERR_DTYPE, "MT19937");
    /* impossible states */
    memcpy(b, good, n);
    put_le64(b + 40, le64(b + 40) & ~UINT64_C(1)); /* inc's low word */
    check_refused(fresh, b, n, NCL_ERR_INVALID_ARGUMENT, "even");
    memcpy(b, good, n);
    put_le32(b + 16, 2);
    check_refused(fresh, b, n, NCL_ERR_INVALID_ARGUMENT, "buffered half");
    NclRngGen *x2 = gen(NCL_BITGEN_PHILOX, 4);
    memcpy(b, gx, nx);
    put_le64(b + 104, 5);
    check_refused(x2, b, nx, NCL_ERR_INVALID_ARGUMENT, "position");
    NclRngGen *m2 = gen(NCL_BITGEN_MT19937, 4);
    memcpy(b, gm, nm);
    put_le32(b + 24 + 4 * 624, 625);
    check_refused(m2, b, nm, NCL_ERR_INVALID_ARGUMENT, "position");
    memcpy(b, gm, nm);
    put_le32(b + 16, 1);
    check_refused(m2, b, nm, NCL_ERR_INVALID_ARGUMENT, "buffered half");
    memset(b + 24, 0, 4 * 624);
    put_le32(b + 16, 0);
    put_le32(b + 24, 0x7fffffffU); /* word 0's low bits are not state */
    check_refused(m2, b, nm, NCL_ERR_INVALID_ARGUMENT, "zero");
    /* the edges that are states */
    put_le32(b + 24, 0x80000000U);
    put_le32(b + 24 + 4 * 624, 624);
    NCL_CHECK_OK(NclRngGenSetState(m2, b, nm));
    memcpy(b, gx, nx);
    put_le64(b + 104, 4);
    NCL_CHECK_OK(NclRngGenSetState(x2, b, nx));
    NCL_CHECK_STATUS(NclRngGenSetState(fresh, NULL, n), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclRngGenSetState(NULL, good, n), NCL_ERR_INVALID_ARGUMENT);

    free(b);
    free(good);
    free(gx);
    free(gm);
    NclRngGen *all[] = {p, x, m, d, fresh, x2, m2};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) NclRngGenFree(all[i]);
}
END_TEST

/* ---- arguments ---------------------------------------------------------------------------------------- */

START_TEST(t_arguments)
{
    const uint32_t e = 1;
    NclSeedSequence *s = NULL, *kids[2] = {NULL, NULL};
    NCL_CHECK_STATUS(NclSeedSequenceCreate(&e, 1, NULL, 0, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclSeedSequenceCreate(NULL, 1, NULL, 0, &s), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclSeedSequenceCreate(&e, 0, NULL, 0, &s), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclSeedSequenceCreate(&e, 1, NULL, 2, &s), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(s);
    s = seq1(1);
    uint32_t w[2];
    NCL_CHECK_STATUS(NclSeedSequenceGenerateState(NULL, w, 2), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclSeedSequenceGenerateState(s, NULL, 2), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclSeedSequenceSpawn(NULL, 2, kids), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclSeedSequenceSpawn(s, 2, NULL), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(kids[0]);

    NclRngGen *g = NULL, *j = NULL;
    NCL_CHECK_STATUS(NclRngGenCreate(NCL_BITGEN_COUNT, s, &g), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclRngGenCreate((NclBitGen)-1, s, &g), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclRngGenCreate(NCL_BITGEN_PCG64, NULL, &g), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclRngGenCreate(NCL_BITGEN_PCG64, s, NULL), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(g);
    NCL_CHECK_OK(NclRngGenCreate(NCL_BITGEN_PCG64, s, &g));
    ck_assert(ncl_rng_gen_ok(g) && !ncl_rng_gen_ok(NULL));
    NCL_CHECK_STATUS(NclRngGenCopy(NULL, &j), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclRngGenCopy(g, NULL), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(NclRngGenKind(NULL), -1);
    NCL_CHECK_STATUS(NclRngGenAdvance(NULL, 1, 0), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclRngGenJumped(NULL, 1, &j), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclRngGenJumped(g, 1, NULL), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(j);
    size_t n = 0;
    unsigned char buf[8];
    NCL_CHECK_STATUS(NclRngGenGetState(NULL, buf, sizeof buf, &n), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclRngGenGetState(g, NULL, 0, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclRngGenGetState(g, buf, sizeof buf, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclRngGenGetState(g, buf, sizeof buf, &n), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(n, 56);
    /* a copy is independent */
    NCL_CHECK_OK(NclRngGenCopy(g, &j));
    ck_assert_int_eq(NclRngGenKind(j), NCL_BITGEN_PCG64);
    uint64_t first = draw_u64(g);
    ck_assert(draw_u64(j) == first);
    ck_assert(draw_u64(g) == draw_u64(j));
    NclRngGenFree(j);
    NclRngGenFree(g);
    NclRngGenFree(NULL);
    NclSeedSequenceFree(s);
}
END_TEST

/* ---- suite ---------------------------------------------------------------------------------------------- */

static Suite *rng_bitgen_suite(void)
{
    Suite *s = suite_create("rng_bitgen");
    TCase *tc = ncl_test_tcase(s, "seed_sequence");
    tcase_add_test(tc, t_seed_sequence_words);
    tcase_add_test(tc, t_seed_sequence_spawn_key);
    tcase_add_test(tc, t_seed_sequence_spawn);
    tc = ncl_test_tcase(s, "streams");
    tcase_add_loop_test(tc, t_reference_files, 0, (int)(sizeof csv_sets / sizeof csv_sets[0]));
    tcase_add_test(tc, t_seeded_state);
    tcase_add_loop_test(tc, t_mixed_draws, 0, (int)(sizeof mixed / sizeof mixed[0]));
    tc = ncl_test_tcase(s, "advance");
    tcase_add_loop_test(tc, t_advance_jumped, 0, 3);
    tcase_add_test(tc, t_philox_counter_carry);
    tcase_add_loop_test(tc, t_mt19937_jumped, 0, (int)(sizeof mt_jumps / sizeof mt_jumps[0]));
    tcase_add_test(tc, t_unsupported);
    tcase_add_loop_test(tc, t_skip_matches_draws, 0, 3);
    tc = ncl_test_tcase(s, "state");
    tcase_add_loop_test(tc, t_state_round_trip, 0, NCL_BITGEN_COUNT);
    tcase_add_test(tc, t_state_words_layout);
    tcase_add_test(tc, t_state_refusals);
    tc = ncl_test_tcase(s, "arguments");
    tcase_add_test(tc, t_arguments);
    return s;
}

NCL_TEST_MAIN(rng_bitgen_suite)
