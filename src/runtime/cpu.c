/*
 * cpu.c: the CPU's features and the choice of kernel variant (cpu.h).
 *
 * The choice is made once: the kernel registry builds the level-2 chains
 * from the chosen variant's tables, and a chain built from one variant is
 * never mixed with another's. NCL_DISABLE_CPU_FEATURES is read then and not
 * again.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/cpu.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#  include <cpuid.h>
#  define NCL_HAVE_CPUID 1
#else
#  define NCL_HAVE_CPUID 0
#endif

static uint32_t features;
static pthread_once_t features_once = PTHREAD_ONCE_INIT;

#if NCL_HAVE_CPUID
/* XCR0: which register states the OS saves, hence which ISA is usable. */
static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t)hi << 32 | lo;
}

#define HAS(r, n) (((r) >> (n)) & 1u)
#define SET(f, cond) (cond ? NCL_CPU_BIT(f) : 0)

static void detect(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return;
    uint32_t m = 0;
    const uint64_t xcr0 = HAS(c, 27) ? read_xcr0() : 0;  /* OSXSAVE */
    const int ymm = (xcr0 & 0x6) == 0x6;     /* SSE and AVX state */
    const int zmm = (xcr0 & 0xe6) == 0xe6;   /* and opmask, upper ZMM0-15, ZMM16-31 */
    const int avx = ymm && HAS(c, 28);
    m |= SET(sse2, HAS(d, 26)) | SET(sse4_2, HAS(c, 20)) | SET(popcnt, HAS(c, 23)) |
         SET(movbe, HAS(c, 22)) | SET(avx, avx) | SET(fma, avx && HAS(c, 12)) |
         SET(f16c, avx && HAS(c, 29));
    if (__get_cpuid_max(0, NULL) >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        const int f512 = zmm && HAS(b, 16);
        m |= SET(bmi1, HAS(b, 3)) | SET(bmi2, HAS(b, 8)) | SET(avx2, avx && HAS(b, 5)) |
             SET(avx512f, f512) | SET(avx512dq, f512 && HAS(b, 17)) |
             SET(avx512cd, f512 && HAS(b, 28)) | SET(avx512bw, f512 && HAS(b, 30)) |
             SET(avx512vl, f512 && HAS(b, 31));
    }
    if (__get_cpuid(0x80000001u, &a, &b, &c, &d)) m |= SET(lzcnt, HAS(c, 5));
    features = m;
}
#undef SET
#undef HAS
#else
static void detect(void) {}
#endif

uint32_t ncl_cpu_features(void)
{
    pthread_once(&features_once, detect);
    return features;
}

/* ---- levels ----------------------------------------------------------------------- */

/* Each level's name, the features its flags need beyond the level below
   (cpu.h), and whether this build holds its kernels. */
static const struct {
    const char *name;
    uint32_t needs;
    int built;
} levels[NCL_ISA_COUNT] = {
    [NCL_ISA_BASELINE] = {"baseline", 0, 1},
#define NCL_X_(E, n, f) [NCL_ISA_##E] = {#n, f, NCL_IS_SET(NCL_HAVE_ISA_##E)},
    NCL_ISA_LEVEL_LIST(NCL_X_)
#undef NCL_X_
};

/* What a level needs: its own features and those of every level below. */
static uint32_t level_needs(ncl_isa isa)
{
    uint32_t needs = 0;
    for (int l = 0; l <= (int)isa; l++) needs |= levels[l].needs;
    return needs;
}

const char *ncl_isa_name(ncl_isa isa)
{
    return (unsigned)isa < NCL_ISA_COUNT ? levels[isa].name : "unknown";
}

int ncl_isa_built(ncl_isa isa) { return (unsigned)isa < NCL_ISA_COUNT && levels[isa].built; }

int ncl_isa_cpu_supports(ncl_isa isa)
{
    return (unsigned)isa < NCL_ISA_COUNT &&
           (ncl_cpu_features() & level_needs(isa)) == level_needs(isa);
}

/* ---- NCL_DISABLE_CPU_FEATURES ------------------------------------------------------ */

static const struct {
    const char *name;
    uint32_t clears;
} disable_names[] = {
    {"AVX512F", NCL_CPU_BIT(avx512f)}, {"AVX512CD", NCL_CPU_BIT(avx512cd)},
    {"AVX512BW", NCL_CPU_BIT(avx512bw)}, {"AVX512DQ", NCL_CPU_BIT(avx512dq)},
    {"AVX512VL", NCL_CPU_BIT(avx512vl)},
    {"AVX2", NCL_CPU_BIT(avx2)}, {"FMA", NCL_CPU_BIT(fma)}, {"FMA3", NCL_CPU_BIT(fma)},
    {"BMI", NCL_CPU_BIT(bmi1)}, {"BMI1", NCL_CPU_BIT(bmi1)}, {"BMI2", NCL_CPU_BIT(bmi2)},
    {"LZCNT", NCL_CPU_BIT(lzcnt)}, {"POPCNT", NCL_CPU_BIT(popcnt)},
    {"F16C", NCL_CPU_BIT(f16c)}, {"MOVBE", NCL_CPU_BIT(movbe)}, {"AVX", NCL_CPU_BIT(avx)},
};

static ncl_isa chosen;
static char disabled_text[128];  /* NCL_DISABLE_CPU_FEATURES as read (truncated) */
static char ignored[128];
static pthread_once_t choice_once = PTHREAD_ONCE_INIT;

static int name_is(const char *word, size_t len, const char *name)
{
    if (strlen(name) != len) return 0;
    for (size_t i = 0; i < len; i++) {
        char c = word[i], n = name[i];
        if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
        if (n >= 'a' && n <= 'z') n = (char)(n - 'a' + 'A');
        if (c != n) return 0;
    }
    return 1;
}

/* The features the list takes away; unknown names go to ignored[]. */
static uint32_t disabled_by(const char *list)
{
    uint32_t off = 0;
    size_t used = 0;
    for (const char *p = list; *p;) {
        while (*p == ',' || *p == ' ' || *p == '\t') p++;
        size_t len = 0;
        while (p[len] && p[len] != ',' && p[len] != ' ' && p[len] != '\t') len++;
        if (len == 0) break;
        int known = 0;
        for (size_t k = 0; k < sizeof disable_names / sizeof disable_names[0]; k++) {
            if (!name_is(p, len, disable_names[k].name)) continue;
            off |= disable_names[k].clears;
            known = 1;
        }
        /* A level's name takes away the features that level adds, which
           turns it and every level above it off (AVX512: the five subsets);
           a feature of the same name comes first (AVX2 is the feature). */
        for (int l = NCL_ISA_BASELINE + 1; !known && l < NCL_ISA_COUNT; l++) {
            if (!name_is(p, len, levels[l].name)) continue;
            off |= levels[l].needs;
            known = 1;
        }
        /* Unknown names are kept for NclInfo, as far as they fit. */
        if (!known && used + len + 2 < sizeof ignored) {
            if (used) ignored[used++] = ',';
            memcpy(ignored + used, p, len);
            used += len;
            ignored[used] = '\0';
        }
        p += len;
    }
    return off;
}

static void choose(void)
{
    uint32_t f = ncl_cpu_features();
    const char *list = getenv("NCL_DISABLE_CPU_FEATURES");
    if (list != NULL) {
        f &= ~disabled_by(list);
        strncpy(disabled_text, list, sizeof disabled_text - 1);
    }
    chosen = NCL_ISA_BASELINE;
    for (int l = NCL_ISA_COUNT - 1; l > NCL_ISA_BASELINE; l--) {
        if (ncl_isa_built((ncl_isa)l) && (f & level_needs((ncl_isa)l)) == level_needs((ncl_isa)l)) {
            chosen = (ncl_isa)l;
            break;
        }
    }
}

ncl_isa ncl_isa_selected(void)
{
    pthread_once(&choice_once, choose);
    return chosen;
}

const char *ncl_isa_ignored_names(void)
{
    pthread_once(&choice_once, choose);
    return ignored;
}

const char *ncl_isa_disabled_text(void)
{
    pthread_once(&choice_once, choose);
    return disabled_text;
}
