/*
 * cpu.h: which instruction-set variant of the kernels runs here.
 *
 * The kernels are built once per level (cmake/NclIsa.cmake). At the first
 * use the best level that is built, that the CPU and the operating system
 * support (cpuid + xgetbv), and that NCL_DISABLE_CPU_FEATURES leaves allowed
 * is chosen, once for the life of the process.
 *
 * NCL_DISABLE_CPU_FEATURES is a list of feature names separated by commas or
 * spaces, in any case: AVX512F, AVX512CD, AVX512BW, AVX512DQ, AVX512VL,
 * AVX2, FMA, BMI1, BMI2, LZCNT, POPCNT, F16C, MOVBE, AVX, or the name of a
 * level, which takes away the features it adds over the level below
 * (AVX512: all five subsets). Disabling a feature disables every level that
 * needs it. Unknown names are ignored and reported by NclInfo.
 */
#ifndef NCL_CPU_H
#define NCL_CPU_H

#include <stdint.h>

/* The CPU features NCLib looks at, each true only when the OS also saves
   the registers it needs (xgetbv). */
#define NCL_CPU_FEATURE_LIST(X)                                                     \
    X(sse2) X(sse4_2) X(popcnt) X(avx) X(f16c) X(fma) X(movbe) X(avx2) X(bmi1)     \
    X(bmi2) X(lzcnt) X(avx512f) X(avx512cd) X(avx512bw) X(avx512dq) X(avx512vl)

/* One bit per feature, in list order: NCL_CPU_BIT(avx2). */
enum {
#define NCL_X_(f) NCL_CPU_BITNO_##f,
    NCL_CPU_FEATURE_LIST(NCL_X_)
#undef NCL_X_
    NCL_CPU_NFEATURES
};
#define NCL_CPU_BIT(f) (UINT32_C(1) << NCL_CPU_BITNO_##f)

/* The kernel variants above the baseline, lowest first:
     X(ENUM suffix, name, CPU features its flags let the compiler use
       beyond the level below)
   Adding a level: a line here and its flags in cmake/NclIsa.cmake (same
   name). The enum, names, the choice at load, NclInfo and the kernel
   registry's tables follow from this list; a build without the level
   (cmake defines NCL_HAVE_ISA_<ENUM> for those it builds) has no tables
   for it and never chooses it. */
#define NCL_ISA_LEVEL_LIST(X)                                                       \
    /* x86-64-v3 */                                                                 \
    X(AVX2, avx2,                                                                   \
      NCL_CPU_BIT(avx) | NCL_CPU_BIT(avx2) | NCL_CPU_BIT(fma) | NCL_CPU_BIT(bmi1) |  \
          NCL_CPU_BIT(bmi2) | NCL_CPU_BIT(lzcnt) | NCL_CPU_BIT(popcnt) |            \
          NCL_CPU_BIT(f16c) | NCL_CPU_BIT(movbe))                                   \
    /* x86-64-v4: the AVX-512 subset common to Skylake-X and Zen 4 */               \
    X(AVX512, avx512,                                                               \
      NCL_CPU_BIT(avx512f) | NCL_CPU_BIT(avx512cd) | NCL_CPU_BIT(avx512bw) |         \
          NCL_CPU_BIT(avx512dq) | NCL_CPU_BIT(avx512vl))

typedef enum ncl_isa {
    NCL_ISA_BASELINE = 0, /* the toolchain's default flags (SSE2 on x86-64) */
#define NCL_X_(E, name, needs) NCL_ISA_##E,
    NCL_ISA_LEVEL_LIST(NCL_X_)
#undef NCL_X_
    NCL_ISA_COUNT
} ncl_isa;

/* 1 when the macro m is defined as 1, 0 when it is not defined: lets an
   X-macro ask whether a level was built (NCL_HAVE_ISA_<ENUM>), which #ifdef
   cannot do inside a macro. */
#define NCL_IS_SET(m) NCL_IS_SET_(m)
#define NCL_IS_SET_(v) NCL_IS_SET__(NCL_IS_SET_PROBE_##v)
#define NCL_IS_SET__(probe) NCL_IS_SET_PICK_(probe 1, 0, ~)
#define NCL_IS_SET_PICK_(a, b, ...) b
#define NCL_IS_SET_PROBE_1 ~,

/* The attribute of a declaration of what only level E's objects define:
   none when the level is built (a plain reference, which also pulls the
   level's objects out of the static archive), weak when it is not (a null
   address, and no missing symbol). A weak reference alone would leave a
   built level's objects in the archive. */
#define NCL_ISA_WEAK_UNLESS_BUILT(E) NCL_ISA_WEAK_UNLESS_(NCL_IS_SET(NCL_HAVE_ISA_##E))
#define NCL_ISA_WEAK_UNLESS_(b) NCL_ISA_WEAK_UNLESS__(b)
#define NCL_ISA_WEAK_UNLESS__(b) NCL_ISA_WEAK_UNLESS_##b
#define NCL_ISA_WEAK_UNLESS_1
#define NCL_ISA_WEAK_UNLESS_0 __attribute__((weak))

/* What the CPU has (read once); 0 off x86. */
uint32_t ncl_cpu_features(void);

/* The chosen level (decided on the first call, thread-safe). */
ncl_isa ncl_isa_selected(void);

/* "baseline", "avx2", "avx512". */
const char *ncl_isa_name(ncl_isa isa);

/* Whether this build holds the level's kernels. */
int ncl_isa_built(ncl_isa isa);

/* Whether the CPU and OS support the level, whatever the environment says. */
int ncl_isa_cpu_supports(ncl_isa isa);

/* The NCL_DISABLE_CPU_FEATURES names that were not understood, as read at
   the choice ("" when none), for NclInfo. */
const char *ncl_isa_ignored_names(void);

/* NCL_DISABLE_CPU_FEATURES as it was read ("" when unset). */
const char *ncl_isa_disabled_text(void);

#endif
