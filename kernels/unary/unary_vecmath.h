/*
 * unary_vecmath.h: NCLib's own vector exp, log, sin and cos on the AVX-512
 * and AVX2 + FMA levels, which unary_sleef.h's loops use in place of
 * SLEEF's functions where they are both within the tier's bound and faster
 * (the table at the end says which function serves which tier).
 *
 * float64: exp, log, sin, cos within about 0.85 ulp (HIGH tier, and FAST
 * where SLEEF's 3.5-ulp function is not quicker); on AVX-512, exp and log
 * are table-driven, with a FAST variant each (within 2 ulp) that drops the
 * carried low parts; FAST sin and cos have their own cheaper scheme (one
 * reduction by pi, one polynomial), within about 2.2 ulp. Each reduction
 * keeps the reduced argument exact or carries its rounding error, and the
 * one rounding that counts is the last addition (see each function).
 * float32: exp, log, sin, cos in float vectors (16 lanes on AVX-512),
 * within 1 ulp over all 2^32 inputs (checked exhaustively on both levels;
 * each function gives its figure). log on AVX-512 reduces with a 16-entry
 * table read by permutes, sin and cos a 16-entry table of sin(j pi/16)
 * over half the period (the other half by the sign), in two stages
 * (reduction, then tables and polynomials) that unary_sleef.h's loop runs
 * software-pipelined; exp spends fewer operations than float64's scheme
 * for a bound nearer 1 ulp. An earlier
 * sin/cos evaluated in double (two double vectors per float vector) was
 * slower than SLEEF's.
 * The fast tier's float32 sin and cos reduce by pi and evaluate one
 * polynomial (about 14 vector operations against about 40): within 2.4
 * ulp, also checked exhaustively.
 *
 * The polynomials come from kernels/unary/vecmath_coeffs.py (Chebyshev fits
 * in 50-digit arithmetic, float64 sin/cos weighted least-squares fits), their
 * literals pasted below. The scalar ranges
 * of unary_sleef.h's descs take the inputs a reduction does not cover
 * (large |x| for sin/cos, inf and NaN there). Results depend on the element
 * only, never on its lane or block.
 */
#ifndef NCL_UNARY_VECMATH_H
#define NCL_UNARY_VECMATH_H

/* Included by unary_sleef.h after its vector layer (ncl_sv_f32/f64). */

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#  define NCL_VM_F32 1
#else
#  define NCL_VM_F32 0
#endif

#if NCL_VM_F32

/* Coefficients: the output of vecmath_coeffs.py. */
/* NCL_VM_EXP_Q: degree 10 on [-0.34660825, 0.34660825], max error 2.6e-18 */
#define NCL_VM_EXP_Q_C0 0x1.0000000000000p-1
#define NCL_VM_EXP_Q_C1 0x1.5555555555557p-3
#define NCL_VM_EXP_Q_C2 0x1.5555555555556p-5
#define NCL_VM_EXP_Q_C3 0x1.11111111100dcp-7
#define NCL_VM_EXP_Q_C4 0x1.6c16c16c162d4p-10
#define NCL_VM_EXP_Q_C5 0x1.a01a01abe7fe1p-13
#define NCL_VM_EXP_Q_C6 0x1.a01a01a6d889cp-16
#define NCL_VM_EXP_Q_C7 0x1.71de0231960ebp-19
#define NCL_VM_EXP_Q_C8 0x1.27e4db646b17ep-22
#define NCL_VM_EXP_Q_C9 0x1.af4de97ca4194p-26
#define NCL_VM_EXP_Q_C10 0x1.1f730349868cep-29
/* NCL_VM_LOG_P: degree 7 on [0.0, 0.040004], max error 3.75e-17 */
#define NCL_VM_LOG_P_C0 0x1.5555555555555p-1
#define NCL_VM_LOG_P_C1 0x1.9999999999f18p-2
#define NCL_VM_LOG_P_C2 0x1.24924923de528p-2
#define NCL_VM_LOG_P_C3 0x1.c71c72df7cf9dp-3
#define NCL_VM_LOG_P_C4 0x1.745cac3874569p-3
#define NCL_VM_LOG_P_C5 0x1.3b29d20b4b924p-3
#define NCL_VM_LOG_P_C6 0x1.0e8c32bc710e5p-3
#define NCL_VM_LOG_P_C7 0x1.169d45f561cc7p-3
/* NCL_VM_SIN_S: degree 5 on [0, 0.61691196], max error 0.049 ulp */
#define NCL_VM_SIN_S_C0 -0x1.5555555555555p-3
#define NCL_VM_SIN_S_C1 0x1.1111111110648p-7
#define NCL_VM_SIN_S_C2 -0x1.a01a019d72670p-13
#define NCL_VM_SIN_S_C3 0x1.71de3678a0af8p-19
#define NCL_VM_SIN_S_C4 -0x1.ae5f14bbda50fp-26
#define NCL_VM_SIN_S_C5 0x1.5dbfe6d504ad5p-33
/* NCL_VM_COS_C: degree 5 on [0, 0.61691196], max error 0.00096 ulp */
#define NCL_VM_COS_C_C0 0x1.5555555555555p-5
#define NCL_VM_COS_C_C1 -0x1.6c16c16c16225p-10
#define NCL_VM_COS_C_C2 0x1.a01a019e15245p-16
#define NCL_VM_COS_C_C3 -0x1.27e4f8eafeccdp-22
#define NCL_VM_COS_C_C4 0x1.1eea7499c3999p-29
#define NCL_VM_COS_C_C5 -0x1.8feec7e12e4cbp-37
/* NCL_VM_SINPI_P: degree 7 on [0, 2.4676478], max error 0.0026 ulp */
#define NCL_VM_SINPI_P_C0 -0x1.5555555555555p-3
#define NCL_VM_SINPI_P_C1 0x1.11111111110c9p-7
#define NCL_VM_SINPI_P_C2 -0x1.a01a01a014eb6p-13
#define NCL_VM_SINPI_P_C3 0x1.71de3a52aab7bp-19
#define NCL_VM_SINPI_P_C4 -0x1.ae6454d95e938p-26
#define NCL_VM_SINPI_P_C5 0x1.6123ce504a2d9p-33
#define NCL_VM_SINPI_P_C6 -0x1.ae43dc3edef75p-41
#define NCL_VM_SINPI_P_C7 0x1.883c0f3a41c7ep-49

/* NCL_VM_EXPT_Q: degree 4 on [-0.02168251, 0.02168251], max error 5.96e-14 */
#define NCL_VM_EXPT_Q_C0 0x1.0000000000000p-1
#define NCL_VM_EXPT_Q_C1 0x1.55555554dcc9bp-3
#define NCL_VM_EXPT_Q_C2 0x1.55555555190f9p-5
#define NCL_VM_EXPT_Q_C3 0x1.11120b77051e7p-7
#define NCL_VM_EXPT_Q_C4 0x1.6c17bbd1f560ap-10

/* NCL_VM_EXPTH_Q: degree 5 on [-0.02168251, 0.02168251], max error 1.11e-16 */
#define NCL_VM_EXPTH_Q_C0 0x1.0000000000001p-1
#define NCL_VM_EXPTH_Q_C1 0x1.5555555555556p-3
#define NCL_VM_EXPTH_Q_C2 0x1.55555554e8d7bp-5
#define NCL_VM_EXPTH_Q_C3 0x1.11111110e0d94p-7
#define NCL_VM_EXPTH_Q_C4 0x1.6c17ede661f5cp-10
#define NCL_VM_EXPTH_Q_C5 0x1.a01b0cb76698bp-13

/* NCL_VM_LOGT_P: degree 7 on [-0.0471, 0.0471], max error 1.81e-14 */
#define NCL_VM_LOGT_P_C0 0x1.555555555541ep-2
#define NCL_VM_LOGT_P_C1 -0x1.ffffffffffdc6p-3
#define NCL_VM_LOGT_P_C2 0x1.999999a2283a9p-3
#define NCL_VM_LOGT_P_C3 -0x1.5555555d2d819p-3
#define NCL_VM_LOGT_P_C4 0x1.2491fdd4057d1p-3
#define NCL_VM_LOGT_P_C5 -0x1.ffff75eac5b8bp-4
#define NCL_VM_LOGT_P_C6 0x1.c8c47a942d634p-4
#define NCL_VM_LOGT_P_C7 -0x1.9b1e4faca5d8cp-4

/* NCL_VM_EXPT_H: 2^(j/16) rounded; NCL_VM_EXPT_L: its relative error */
#define NCL_VM_EXPT_H \
    0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0, \
    0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0, \
    0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0, \
    0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0
#define NCL_VM_EXPT_L \
    0x0.0p+0, 0x1.79aa65d837b6dp-54, -0x1.01b15eaa59348p-55, 0x1.68efde3a8a894p-54, \
    0x1.34d754db0abb6p-55, 0x1.59f48a72a4c6dp-55, 0x1.690cebb7aafb0p-56, 0x1.063e1e21c5409p-54, \
    -0x1.3b3efbf5e2228p-54, -0x1.b32dcb94da51dp-56, 0x1.db72fc1f0eab4p-55, 0x1.1affc2b91ce27p-56, \
    0x1.c1a7792cb3387p-55, 0x1.36eae30af0cb3p-56, 0x1.4a385a63d07a7p-56, -0x1.ff7128fd391f0p-55
/* NCL_VM_LOGT_H + NCL_VM_LOGT_L: -log(i/16), 11 <= i <= 21, at the top four
   mantissa bits of i/16; NCL_VM_LOGT_F: the same rounded to double */
#define NCL_VM_LOGT_H \
    0x0.0p+0, -0x1.f0a30c0118000p-5, -0x1.e27076e2b0000p-4, -0x1.5ff3070a79000p-3, \
    -0x1.c8ff7c79aa000p-3, -0x1.1675cababa800p-2, 0x1.7fafa3bd81800p-2, 0x0.0p+0, \
    0x1.269621134d800p-2, 0x0.0p+0, 0x1.a93ed3c8ae000p-3, 0x0.0p+0, \
    0x1.1178e8227e000p-3, 0x0.0p+0, 0x1.08598b59e4000p-4, 0x0.0p+0
#define NCL_VM_LOGT_L \
    0x0.0p+0, 0x1.d599e83368e91p-45, 0x1.a342c2af0003cp-45, -0x1.e9e439f105039p-46, \
    0x1.7794f689f8434p-45, 0x1.f1fc63382a8f0p-46, -0x1.72090c812566ap-45, 0x0.0p+0, \
    0x1.c93c1df5bb3b6p-45, 0x0.0p+0, -0x1.8724350562169p-45, 0x0.0p+0, \
    0x1.1ef78ce2d07f2p-45, 0x0.0p+0, -0x1.7e5dd7009902cp-46, 0x0.0p+0
#define NCL_VM_LOGT_F \
    0x0.0p+0, -0x1.f0a30c01162a6p-5, -0x1.e27076e2af2e6p-4, -0x1.5ff3070a793d4p-3, \
    -0x1.c8ff7c79a9a22p-3, -0x1.1675cababa60ep-2, 0x1.7fafa3bd8151cp-2, 0x0.0p+0, \
    0x1.269621134db92p-2, 0x0.0p+0, 0x1.a93ed3c8ad9e3p-3, 0x0.0p+0, \
    0x1.1178e8227e47cp-3, 0x0.0p+0, 0x1.08598b59e3a07p-4, 0x0.0p+0

/* NCL_VM_EXPF_Q: degree 4 on [-0.34660825, 0.34660825], max error 6.73e-08 */
#define NCL_VM_EXPF_Q_C0 0x1.0000000000000p-1f
#define NCL_VM_EXPF_Q_C1 0x1.5554dc0000000p-3f
#define NCL_VM_EXPF_Q_C2 0x1.55551a0000000p-5f
#define NCL_VM_EXPF_Q_C3 0x1.120b6e0000000p-7f
#define NCL_VM_EXPF_Q_C4 0x1.6d110a0000000p-10f
/* NCL_VM_LOGF_P: degree 8 on [-0.29299322, 0.41431356], max error 3.07e-08 */
#define NCL_VM_LOGF_P_C0 0x1.5555540000000p-2f
#define NCL_VM_LOGF_P_C1 -0x1.fffffc0000000p-3f
#define NCL_VM_LOGF_P_C2 0x1.999d5c0000000p-3f
#define NCL_VM_LOGF_P_C3 -0x1.555b500000000p-3f
#define NCL_VM_LOGF_P_C4 0x1.23d1d60000000p-3f
#define NCL_VM_LOGF_P_C5 -0x1.fcf30e0000000p-4f
#define NCL_VM_LOGF_P_C6 0x1.dea6560000000p-4f
#define NCL_VM_LOGF_P_C7 -0x1.d6453c0000000p-4f
#define NCL_VM_LOGF_P_C8 0x1.1d98280000000p-4f
/* float32 log table: L1 = ln2 to 15 bits, L2 = the rest */
#define NCL_VM_LOGF_L1 0x1.62e4000000000p-1f
#define NCL_VM_LOGF_L2 0x1.7f7d1c0000000p-20f
#define NCL_VM_LOGF_INVC \
    0x1.0000000000000p+0f, 0x1.e000000000000p-1f, 0x1.c000000000000p-1f, 0x1.a000000000000p-1f, \
    0x1.9000000000000p-1f, 0x1.8000000000000p-1f, 0x1.7000000000000p-1f, 0x1.6000000000000p-1f, \
    0x1.5000000000000p+0f, 0x1.4000000000000p+0f, 0x1.3000000000000p+0f, 0x1.3000000000000p+0f, \
    0x1.2000000000000p+0f, 0x1.1000000000000p+0f, 0x1.0000000000000p+0f, 0x1.0000000000000p+0f
#define NCL_VM_LOGF_TH \
    0x0.0p+0f, 0x1.0860000000000p-4f, 0x1.1180000000000p-3f, 0x1.a940000000000p-3f, \
    0x1.f990000000000p-3f, 0x1.2698000000000p-2f, 0x1.5228000000000p-2f, 0x1.7fb0000000000p-2f, \
    0x1.af50000000000p-2f, 0x1.e148000000000p-2f, 0x1.0ae8000000000p-1f, 0x1.0ae8000000000p-1f, \
    0x1.2698000000000p-1f, 0x1.43d8000000000p-1f, 0x1.62e4000000000p-1f, 0x1.62e4000000000p-1f
#define NCL_VM_LOGF_TL \
    0x0.0p+0f, -0x1.9d29880000000p-18f, -0x1.c5f7600000000p-17f, -0x1.2c37520000000p-19f, \
    0x1.c6cb3c0000000p-19f, -0x1.deecb20000000p-18f, 0x1.7039c60000000p-17f, -0x1.7109fa0000000p-20f, \
    0x1.4a92460000000p-17f, 0x1.4344e40000000p-19f, -0x1.23a5f60000000p-18f, -0x1.23a5f60000000p-18f, \
    -0x1.deecb20000000p-17f, 0x1.ff2f920000000p-17f, 0x1.7f7d1c0000000p-20f, 0x1.7f7d1c0000000p-20f
/* NCL_VM_LOGF_Q: degree 3 on [-0.063125, 0.063125], max error 3.49e-07 */
#define NCL_VM_LOGF_Q_C0 -0x1.ffffea0000000p-2f
#define NCL_VM_LOGF_Q_C1 0x1.5555420000000p-2f
#define NCL_VM_LOGF_Q_C2 -0x1.00ae8e0000000p-2f
#define NCL_VM_LOGF_Q_C3 0x1.9ac4de0000000p-3f
/* NCL_VM_SINF_S: degree 3 on [0.0, 0.61691196], max error 5.02e-09 */
#define NCL_VM_SINF_S_C0 -0x1.5555560000000p-3f
#define NCL_VM_SINF_S_C1 0x1.11110e0000000p-7f
#define NCL_VM_SINF_S_C2 -0x1.a013a80000000p-13f
#define NCL_VM_SINF_S_C3 0x1.6dbdee0000000p-19f
/* NCL_VM_COSF_C: degree 3 on [0.0, 0.61691196], max error 1.24e-09 */
#define NCL_VM_COSF_C_C0 0x1.5555560000000p-5f
#define NCL_VM_COSF_C_C1 -0x1.6c16c00000000p-10f
#define NCL_VM_COSF_C_C2 0x1.a015c40000000p-16f
#define NCL_VM_COSF_C_C3 -0x1.25243c0000000p-22f
/* NCL_VM_SINF_P: degree 4 on [0.0, 2.5625489], max error 1.03e-08 */
#define NCL_VM_SINF_P_C0 0x1.0000000000000p+0f
#define NCL_VM_SINF_P_C1 -0x1.5555480000000p-3f
#define NCL_VM_SINF_P_C2 0x1.110e680000000p-7f
#define NCL_VM_SINF_P_C3 -0x1.9f5f7c0000000p-13f
#define NCL_VM_SINF_P_C4 0x1.5ce4880000000p-19f

/* ---- the double layer: d = double vector (ncl_sv_f64), i = its bits ---- */
#if defined(__AVX512F__)
typedef __m512i ncl_vm_i64;
#  define NCL_VM_D1(c) _mm512_set1_pd(c)
#  define NCL_VM_ADD(a, b) _mm512_add_pd((a), (b))
#  define NCL_VM_SUB(a, b) _mm512_sub_pd((a), (b))
#  define NCL_VM_MUL(a, b) _mm512_mul_pd((a), (b))
#  define NCL_VM_DIV(a, b) _mm512_div_pd((a), (b))
#  define NCL_VM_DSEL(cmp, x, y, a, b) _mm512_mask_blend_pd(_mm512_cmp_pd_mask((x), (y), cmp), (a), (b))
#  define NCL_VM_FMA(a, b, c) _mm512_fmadd_pd((a), (b), (c))   /* a b + c */
#  define NCL_VM_FNMA(a, b, c) _mm512_fnmadd_pd((a), (b), (c)) /* c - a b */
#  define NCL_VM_FMS(a, b, c) _mm512_fmsub_pd((a), (b), (c))   /* a b - c */
#  define NCL_VM_MIN(a, b) _mm512_min_pd((a), (b))
#  define NCL_VM_MAX(a, b) _mm512_max_pd((a), (b))
#  define NCL_VM_RINT(a) _mm512_roundscale_pd((a), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#  define NCL_VM_BITS(a) _mm512_castpd_si512(a)
#  define NCL_VM_FROMBITS(i) _mm512_castsi512_pd(i)
#  define NCL_VM_I1(c) _mm512_set1_epi64(c)
#  define NCL_VM_IAND(a, b) _mm512_and_si512((a), (b))
#  define NCL_VM_IXOR(a, b) _mm512_xor_si512((a), (b))
#  define NCL_VM_IADD(a, b) _mm512_add_epi64((a), (b))
#  define NCL_VM_ISHL(a, n) _mm512_slli_epi64((a), (n))
/* lanes of a whose bit 0 of b is set take c, the others a */
#  define NCL_VM_SEL_ODD(a, c, b) _mm512_mask_blend_pd(_mm512_test_epi64_mask((b), NCL_VM_I1(1)), (a), (c))
#else
typedef __m256i ncl_vm_i64;
#  define NCL_VM_D1(c) _mm256_set1_pd(c)
#  define NCL_VM_ADD(a, b) _mm256_add_pd((a), (b))
#  define NCL_VM_SUB(a, b) _mm256_sub_pd((a), (b))
#  define NCL_VM_MUL(a, b) _mm256_mul_pd((a), (b))
#  define NCL_VM_DIV(a, b) _mm256_div_pd((a), (b))
#  define NCL_VM_DSEL(cmp, x, y, a, b) _mm256_blendv_pd((a), (b), _mm256_cmp_pd((x), (y), cmp))
#  define NCL_VM_FMA(a, b, c) _mm256_fmadd_pd((a), (b), (c))
#  define NCL_VM_FNMA(a, b, c) _mm256_fnmadd_pd((a), (b), (c))
#  define NCL_VM_FMS(a, b, c) _mm256_fmsub_pd((a), (b), (c))
#  define NCL_VM_MIN(a, b) _mm256_min_pd((a), (b))
#  define NCL_VM_MAX(a, b) _mm256_max_pd((a), (b))
#  define NCL_VM_RINT(a) _mm256_round_pd((a), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#  define NCL_VM_BITS(a) _mm256_castpd_si256(a)
#  define NCL_VM_FROMBITS(i) _mm256_castsi256_pd(i)
#  define NCL_VM_I1(c) _mm256_set1_epi64x(c)
#  define NCL_VM_IAND(a, b) _mm256_and_si256((a), (b))
#  define NCL_VM_IXOR(a, b) _mm256_xor_si256((a), (b))
#  define NCL_VM_IADD(a, b) _mm256_add_epi64((a), (b))
#  define NCL_VM_ISHL(a, n) _mm256_slli_epi64((a), (n))
#  define NCL_VM_SEL_ODD(a, c, b) \
    _mm256_blendv_pd((a), (c), _mm256_castsi256_pd(_mm256_slli_epi64((b), 63)))
#endif

#if !defined(__AVX512F__)
/* AVX2 (the AVX-512 versions, table-driven, follow) */
/* ---- exp, float64 ----------------------------------------------------------
   k = rint(x / ln2); r = x - k ln2 with ln2 = L1 + L2, L1 holding 42 bits
   so that rh = x - k L1 is exact (|k| <= 1077), and rl = -k L2 kept apart;
   e^r = 1 + rh + (rl + r^2 Q(r)), the sum 1 + rh carried with its rounding
   error (Fast2Sum), so that the one rounding that matters is the last:
   within 0.52 ulp before the scaling by 2^k. x is clamped to [-746, 710]
   (NaN passes), beyond which the result is 0 or inf anyway. */
static ncl_sv_f64 ncl_vm_exp_f64(ncl_sv_f64 x)
{
    x = NCL_VM_MAX(NCL_VM_D1(-746.0), NCL_VM_MIN(NCL_VM_D1(710.0), x));
    const ncl_sv_f64 k = NCL_VM_RINT(NCL_VM_MUL(x, NCL_VM_D1(0x1.71547652b82fep+0)));
    const ncl_sv_f64 rh = NCL_VM_FNMA(k, NCL_VM_D1(0x1.62e42fefa3800p-1), x);
    const ncl_sv_f64 rl = NCL_VM_MUL(k, NCL_VM_D1(-0x1.ef35793c7673p-45));
    const ncl_sv_f64 r = NCL_VM_ADD(rh, rl);
    const ncl_sv_f64 r2 = NCL_VM_MUL(r, r);
    ncl_sv_f64 q = NCL_VM_FMA(NCL_VM_D1(NCL_VM_EXP_Q_C10), r, NCL_VM_D1(NCL_VM_EXP_Q_C9));
    q = NCL_VM_FMA(q, r, NCL_VM_D1(NCL_VM_EXP_Q_C8));
    q = NCL_VM_FMA(q, r, NCL_VM_D1(NCL_VM_EXP_Q_C7));
    q = NCL_VM_FMA(q, r, NCL_VM_D1(NCL_VM_EXP_Q_C6));
    q = NCL_VM_FMA(q, r, NCL_VM_D1(NCL_VM_EXP_Q_C5));
    q = NCL_VM_FMA(q, r, NCL_VM_D1(NCL_VM_EXP_Q_C4));
    q = NCL_VM_FMA(q, r, NCL_VM_D1(NCL_VM_EXP_Q_C3));
    q = NCL_VM_FMA(q, r, NCL_VM_D1(NCL_VM_EXP_Q_C2));
    q = NCL_VM_FMA(q, r, NCL_VM_D1(NCL_VM_EXP_Q_C1));
    q = NCL_VM_FMA(q, r, NCL_VM_D1(NCL_VM_EXP_Q_C0));
    const ncl_sv_f64 tail = NCL_VM_FMA(r2, q, rl);
    const ncl_sv_f64 one = NCL_VM_D1(1.0);
    const ncl_sv_f64 h = NCL_VM_ADD(one, rh);
    const ncl_sv_f64 c = NCL_VM_ADD(NCL_VM_SUB(one, h), rh); /* exact: |rh| < 1 */
    const ncl_sv_f64 p = NCL_VM_ADD(h, NCL_VM_ADD(c, tail));
    /* 2^k in two normal factors 2^k1 2^k2 (|k| <= 1077 does not fit one);
       the first product is exact, the second rounds once */
    const ncl_sv_f64 k1 = NCL_VM_RINT(NCL_VM_MUL(k, NCL_VM_D1(0.5)));
    const ncl_sv_f64 k2 = NCL_VM_SUB(k, k1);
    const ncl_vm_i64 b1 = NCL_VM_ISHL(NCL_VM_BITS(NCL_VM_ADD(k1, NCL_VM_D1(0x1.8p52))), 52);
    const ncl_vm_i64 b2 = NCL_VM_ISHL(NCL_VM_BITS(NCL_VM_ADD(k2, NCL_VM_D1(0x1.8p52))), 52);
    const ncl_vm_i64 bias = NCL_VM_I1(INT64_C(1023) << 52);
    return NCL_VM_MUL(NCL_VM_MUL(p, NCL_VM_FROMBITS(NCL_VM_IADD(b1, bias))), NCL_VM_FROMBITS(NCL_VM_IADD(b2, bias)));
}

/* ---- log, float64 ----------------------------------------------------------
   x = m 2^e, m in [sqrt(1/2), sqrt(2)), f = m - 1 exact, s = f / (2 + f)
   in [-0.172, 0.172]; log(1 + f) = 2 atanh(s) = f - f^2/2 + s (f^2/2 + z P(z)),
   z = s^2 (f - f^2/2 + s f^2/2 is 2s). With ln2 = L1 + L2 (e L1 exact),
   log x = e L1 + f - f^2/2 + (s (f^2/2 + z P) + e L2), where f^2/2, f -
   f^2/2 and e L1 + (f - f^2/2) are carried with their rounding errors
   (FMA, Fast2Sum), so that only the last addition rounds at the result's
   scale: within about 0.52 ulp. Zero, negative, inf and NaN inputs are blended
   in at the end. */
static ncl_sv_f64 ncl_vm_log_f64(ncl_sv_f64 x)
{
    const ncl_sv_f64 one = NCL_VM_D1(1.0);
    /* subnormal inputs scaled by 2^52 first; then e is the exponent of
       x / c, c = sqrt(1/2) rounded, read from the high 32 bits of (x's
       bits - c's bits); m = x 2^-e in [c, 2c) */
    const ncl_sv_f64 sub = _mm256_cmp_pd(x, NCL_VM_D1(0x1p-1022), _CMP_LT_OQ);
    const ncl_sv_f64 xs = _mm256_blendv_pd(x, NCL_VM_MUL(x, NCL_VM_D1(0x1p52)), sub);
    const ncl_vm_i64 u = _mm256_sub_epi64(NCL_VM_BITS(xs), NCL_VM_I1(INT64_C(0x3fe6a09e667f3bcd)));
    const __m256i uh = _mm256_permutevar8x32_epi32(u, _mm256_setr_epi32(1, 3, 5, 7, 0, 2, 4, 6));
    const ncl_sv_f64 e0 = _mm256_cvtepi32_pd(_mm_srai_epi32(_mm256_castsi256_si128(uh), 20));
    const ncl_sv_f64 e = NCL_VM_SUB(e0, _mm256_and_pd(sub, NCL_VM_D1(52.0)));
    const ncl_sv_f64 m = NCL_VM_FROMBITS(
        _mm256_sub_epi64(NCL_VM_BITS(xs), NCL_VM_IAND(u, NCL_VM_I1((int64_t)UINT64_C(0xfff0000000000000)))));
    const ncl_sv_f64 f = NCL_VM_SUB(m, one);
    const ncl_sv_f64 s = NCL_VM_DIV(f, NCL_VM_ADD(NCL_VM_D1(2.0), f));
    const ncl_sv_f64 z = NCL_VM_MUL(s, s);
    ncl_sv_f64 p = NCL_VM_FMA(NCL_VM_D1(NCL_VM_LOG_P_C7), z, NCL_VM_D1(NCL_VM_LOG_P_C6));
    p = NCL_VM_FMA(p, z, NCL_VM_D1(NCL_VM_LOG_P_C5));
    p = NCL_VM_FMA(p, z, NCL_VM_D1(NCL_VM_LOG_P_C4));
    p = NCL_VM_FMA(p, z, NCL_VM_D1(NCL_VM_LOG_P_C3));
    p = NCL_VM_FMA(p, z, NCL_VM_D1(NCL_VM_LOG_P_C2));
    p = NCL_VM_FMA(p, z, NCL_VM_D1(NCL_VM_LOG_P_C1));
    p = NCL_VM_FMA(p, z, NCL_VM_D1(NCL_VM_LOG_P_C0));
    /* h + hl = f^2/2 exactly */
    const ncl_sv_f64 hf = NCL_VM_MUL(f, NCL_VM_D1(0.5));
    const ncl_sv_f64 h = NCL_VM_MUL(hf, f);
    const ncl_sv_f64 hl = NCL_VM_FMS(hf, f, h);
    const ncl_sv_f64 t = NCL_VM_FMA(s, NCL_VM_FMA(z, p, h), NCL_VM_MUL(e, NCL_VM_D1(0x1.ef35793c7673p-45)));
    /* d + dl = f - h (Fast2Sum: h <= f/4), then a + d with a = e L1 exact
       (Fast2Sum: |a| >= ln2 > |d|, or a = 0) */
    const ncl_sv_f64 d = NCL_VM_SUB(f, h);
    const ncl_sv_f64 dl = NCL_VM_SUB(NCL_VM_SUB(f, d), h);
    const ncl_sv_f64 a = NCL_VM_MUL(e, NCL_VM_D1(0x1.62e42fefa3800p-1));
    const ncl_sv_f64 hi = NCL_VM_ADD(a, d);
    const ncl_sv_f64 lo = NCL_VM_ADD(NCL_VM_SUB(a, hi), d);
    ncl_sv_f64 y = NCL_VM_ADD(hi, NCL_VM_ADD(lo, NCL_VM_ADD(dl, NCL_VM_SUB(t, hl))));
    /* the inputs outside (0, inf): -x NaN, +-0 -inf, +inf and NaN
       themselves; rare, so one test for the vector first */
    if (_mm256_movemask_pd(_mm256_or_pd(_mm256_cmp_pd(x, NCL_VM_D1(0.0), _CMP_LE_OQ),
                                        _mm256_cmp_pd(x, NCL_VM_D1(INFINITY), _CMP_NLT_UQ)))) {
        y = NCL_VM_DSEL(_CMP_LT_OQ, x, NCL_VM_D1(0.0), y, NCL_VM_D1(NAN));
        y = NCL_VM_DSEL(_CMP_EQ_OQ, x, NCL_VM_D1(0.0), y, NCL_VM_D1(-INFINITY));
        y = NCL_VM_DSEL(_CMP_NLT_UQ, x, NCL_VM_D1(INFINITY), y, NCL_VM_ADD(x, x));
    }
    return y;
}

#else /* __AVX512F__ */
/* ---- exp, log, float64, table-driven (AVX-512) -----------------------------
   Sixteen-entry tables, each held in two vectors and read with one
   permutex2var (the index is the low four bits of each lane; the other
   bits are ignored). They replace the longer polynomials (exp) and the
   division (log) of the schemes above, which stay for AVX2. */
#  define NCL_VM_TAB_LO_(a0, a1, a2, a3, a4, a5, a6, a7, ...) _mm512_setr_pd(a0, a1, a2, a3, a4, a5, a6, a7)
#  define NCL_VM_TAB_HI_(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15) \
    _mm512_setr_pd(a8, a9, a10, a11, a12, a13, a14, a15)
#  define NCL_VM_TAB_LO(...) NCL_VM_TAB_LO_(__VA_ARGS__)
#  define NCL_VM_TAB_HI(...) NCL_VM_TAB_HI_(__VA_ARGS__)
#  define NCL_VM_LOOKUP16(t, i) _mm512_permutex2var_pd(NCL_VM_TAB_LO(t), (i), NCL_VM_TAB_HI(t))

/* exp: q = rint(x 16/ln2) / 16 (the shifter 1.5 2^48 rounds to sixteenths),
   x = q ln2 + r with ln2 = L1 + L2 (L1 the double nearest): rh = x - q L1
   is exact under FMA (when q != 0, |x| >= ln2/32, so x and q L1 are
   multiples of 2^-58, and |rh| < 2^-5), r = rh - q L2 rounds at 2^-60
   relative, |r| <= ln2/32. e^x = 2^floor(q) T (1 + p), T = 2^(j/16) from
   the table (j = 16 q mod 16, the low bits of the shifted q), p = r + r^2
   Q(r), Q's error scaled by r^2 < 4.7e-4. HIGH: Q of degree 5 (below 0.01
   ulp), and T's own rounding error (relative, from the second table) added
   to p, so that the one rounding that counts is the FMA T + T p: within
   about 0.53 ulp. FAST: Q of degree 4 (about 0.25 ulp), no correction of T
   (0.5 ulp more): 1.22 measured. scalef rounds a subnormal result once
   more (at most 0.5 ulp of it). x is clamped to [-746, 710] (NaN passes),
   beyond which the result is 0 or inf anyway. */
NCL_KINLINE ncl_sv_f64 ncl_vm_expt_f64(ncl_sv_f64 x, int high)
{
    x = NCL_VM_MAX(NCL_VM_D1(-746.0), NCL_VM_MIN(NCL_VM_D1(710.0), x));
    const ncl_sv_f64 z = NCL_VM_FMA(x, NCL_VM_D1(0x1.71547652b82fep+0), NCL_VM_D1(0x1.8p48));
    const ncl_sv_f64 k = NCL_VM_SUB(z, NCL_VM_D1(0x1.8p48));
    const ncl_sv_f64 rh = NCL_VM_FNMA(k, NCL_VM_D1(0x1.62e42fefa39efp-1), x);
    const ncl_sv_f64 r = NCL_VM_FNMA(k, NCL_VM_D1(0x1.abc9e3b39803fp-56), rh);
    const __m512i j = _mm512_castpd_si512(z);
    ncl_sv_f64 q;
    if (high) {
        q = NCL_VM_FMA(NCL_VM_D1(NCL_VM_EXPTH_Q_C5), r, NCL_VM_D1(NCL_VM_EXPTH_Q_C4));
        q = NCL_VM_FMA(q, r, NCL_VM_D1(NCL_VM_EXPTH_Q_C3));
        q = NCL_VM_FMA(q, r, NCL_VM_D1(NCL_VM_EXPTH_Q_C2));
        q = NCL_VM_FMA(q, r, NCL_VM_D1(NCL_VM_EXPTH_Q_C1));
        q = NCL_VM_FMA(q, r, NCL_VM_D1(NCL_VM_EXPTH_Q_C0));
    } else {
        q = NCL_VM_FMA(NCL_VM_D1(NCL_VM_EXPT_Q_C4), r, NCL_VM_D1(NCL_VM_EXPT_Q_C3));
        q = NCL_VM_FMA(q, r, NCL_VM_D1(NCL_VM_EXPT_Q_C2));
        q = NCL_VM_FMA(q, r, NCL_VM_D1(NCL_VM_EXPT_Q_C1));
        q = NCL_VM_FMA(q, r, NCL_VM_D1(NCL_VM_EXPT_Q_C0));
    }
    ncl_sv_f64 p = NCL_VM_FMA(NCL_VM_MUL(r, r), q, r);
    if (high) p = NCL_VM_ADD(p, NCL_VM_LOOKUP16(NCL_VM_EXPT_L, j));
    const ncl_sv_f64 t = NCL_VM_LOOKUP16(NCL_VM_EXPT_H, j);
    return _mm512_scalef_pd(NCL_VM_FMA(t, p, t), k);
}

/* log: x = m 2^e, m in [0.75, 1.5) (getmant; e from getexp, one more where
   m < 1); c = 1/m to 14 bits (rcp14) rounded to a multiple of 1/16, so c
   is one of 11/16 .. 21/16 (c = 1 for m within 1/32 of 1) and r = m c - 1
   is exact under FMA (a multiple of 2^-57 below 2^-4 in magnitude), |r| <
   0.0471. log x = e ln2 - log c + log1p(r), log1p(r) = r + r^2 (-1/2 +
   r P(r)), P's error scaled by r^2 (about 0.2 ulp). HIGH: ln2 = L1 + L2
   (L1 of 42 bits), -log c = Ch + Cl from the tables at c's top four
   mantissa bits, Ch a multiple of 2^-43, so a = e L1 + Ch is exact, and
   a + r is carried with its rounding error (Fast2Sum: |a| > 0.06 > |r|
   unless a = 0): only the last addition rounds at the result's scale,
   within about 0.75 ulp. FAST: a = e ln2 - log c rounded once, r + r^2
   (...) rounded at the scale of r, then one addition: up to 1.5 ulp more
   (1.73 measured). Zero, negative, inf and NaN inputs are blended in at
   the end. */
NCL_KINLINE ncl_sv_f64 ncl_vm_logt_f64(ncl_sv_f64 x, int high)
{
    const ncl_sv_f64 one = NCL_VM_D1(1.0);
    const ncl_sv_f64 m = _mm512_getmant_pd(x, _MM_MANT_NORM_p75_1p5, _MM_MANT_SIGN_zero);
    const ncl_sv_f64 g = _mm512_getexp_pd(x);
    const ncl_sv_f64 e = _mm512_mask_add_pd(g, _mm512_cmp_pd_mask(m, one, _CMP_LT_OQ), g, one);
    const ncl_sv_f64 c = _mm512_roundscale_pd(_mm512_rcp14_pd(m), (4 << 4) | _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const ncl_sv_f64 r = NCL_VM_FMS(m, c, one);
    const __m512i i = _mm512_srli_epi64(_mm512_castpd_si512(c), 48);
    ncl_sv_f64 p = NCL_VM_FMA(NCL_VM_D1(NCL_VM_LOGT_P_C7), r, NCL_VM_D1(NCL_VM_LOGT_P_C6));
    p = NCL_VM_FMA(p, r, NCL_VM_D1(NCL_VM_LOGT_P_C5));
    p = NCL_VM_FMA(p, r, NCL_VM_D1(NCL_VM_LOGT_P_C4));
    p = NCL_VM_FMA(p, r, NCL_VM_D1(NCL_VM_LOGT_P_C3));
    p = NCL_VM_FMA(p, r, NCL_VM_D1(NCL_VM_LOGT_P_C2));
    p = NCL_VM_FMA(p, r, NCL_VM_D1(NCL_VM_LOGT_P_C1));
    p = NCL_VM_FMA(p, r, NCL_VM_D1(NCL_VM_LOGT_P_C0));
    p = NCL_VM_FMA(p, r, NCL_VM_D1(-0.5));
    const ncl_sv_f64 r2 = NCL_VM_MUL(r, r);
    ncl_sv_f64 y;
    if (high) {
        const ncl_sv_f64 a = NCL_VM_FMA(e, NCL_VM_D1(0x1.62e42fefa3800p-1), NCL_VM_LOOKUP16(NCL_VM_LOGT_H, i));
        const ncl_sv_f64 b = NCL_VM_FMA(e, NCL_VM_D1(0x1.ef35793c7673p-45), NCL_VM_LOOKUP16(NCL_VM_LOGT_L, i));
        const ncl_sv_f64 s = NCL_VM_ADD(a, r);
        y = NCL_VM_ADD(s, NCL_VM_ADD(NCL_VM_ADD(NCL_VM_SUB(a, s), r), NCL_VM_FMA(r2, p, b)));
    } else {
        const ncl_sv_f64 a = NCL_VM_FMA(e, NCL_VM_D1(0x1.62e42fefa39efp-1), NCL_VM_LOOKUP16(NCL_VM_LOGT_F, i));
        y = NCL_VM_ADD(a, NCL_VM_FMA(r2, p, r));
    }
    /* x <= 0 (negative subnormals included), inf, NaN: one fpclass */
#  if defined(__AVX512DQ__)
    if (_mm512_fpclass_pd_mask(x, 0xdf)) {
#  else
    if (_mm512_cmp_pd_mask(x, NCL_VM_D1(0.0), _CMP_LE_OQ) | _mm512_cmp_pd_mask(x, NCL_VM_D1(INFINITY), _CMP_NLT_UQ)) {
#  endif
        y = NCL_VM_DSEL(_CMP_LT_OQ, x, NCL_VM_D1(0.0), y, NCL_VM_D1(NAN));
        y = NCL_VM_DSEL(_CMP_EQ_OQ, x, NCL_VM_D1(0.0), y, NCL_VM_D1(-INFINITY));
        y = NCL_VM_DSEL(_CMP_NLT_UQ, x, NCL_VM_D1(INFINITY), y, NCL_VM_ADD(x, x));
    }
    return y;
}
static ncl_sv_f64 ncl_vm_exp_hi_f64(ncl_sv_f64 x) { return ncl_vm_expt_f64(x, 1); }
static ncl_sv_f64 ncl_vm_exp_lo_f64(ncl_sv_f64 x) { return ncl_vm_expt_f64(x, 0); }
static ncl_sv_f64 ncl_vm_log_hi_f64(ncl_sv_f64 x) { return ncl_vm_logt_f64(x, 1); }
static ncl_sv_f64 ncl_vm_log_lo_f64(ncl_sv_f64 x) { return ncl_vm_logt_f64(x, 0); }
#endif

/* ---- sin, cos, float64 -----------------------------------------------------
   The throughput of these loops is bound by the FMA ports (mul and FMA
   share them, adds do not), so the schemes below count FMA-port operations
   first: HIGH 23 per vector, FAST 14 (cos: two more adds), the earlier
   carried-2Sum version 27.

   Both reduce with a Cody-Waite split done in FMA. For |x| < 2^20 no
   double lies closer to a multiple of pi/2 than 2^-60.5 (x =
   0x1.6c6cbc45dc8dep+5, near 29 pi/2; found by a search over all the
   multiples), so the error of n (P1 + P2 + P3) against n pi (below 2^-121)
   stays far below an ulp of r. |x| from 2^20 on, inf and NaN are in the
   desc's scalar range. */

/* HIGH: n = rint(x 2/pi), r = x - n pi/2, pi/2 = Q1 + Q2 + Q3 with Q1 the
   double, Q2 its next 33 bits, so that n Q2 is exact (|n| < 2^20):
   r1 = x - n Q1 is exact (a multiple of x's ulp or 2^-52, below 1);
   r2 = r1 - n Q2 rounds only when |r2| >= 2^-33, and then d = r1 - r2 is
   exact (a multiple of 2^-86 below 2^-34) and d - n Q2 is r2's rounding
   error, exactly; rh = r2, rl = that error - n Q3 (r = rh + rl to
   2^-120). Then on |r| <= pi/4 (times 1.0001):
     sin r = rh + (rh^3 S(z) + rl (1 - h)),  z = rh^2, h = z/2
     cos r = w + (z^2 C(z) + wl - rh rl),     w = 1 - h, wl = (1 - w) - h
   (w's rounding error wl is exact: Fast2Sum, 1 >= h). Each rounds once at
   the result's scale; what remains is the rounding of z in h (cos: at most
   0.25 ulp) and of rh^3 S (sin: its terms below 0.08 of the result):
   within 0.77 ulp measured (0.7 the earlier version's). S and C (degree 5
   each) are fitted with the error weighted as the result needs, each
   coefficient rounded before the next ones are refitted. */
NCL_KINLINE ncl_sv_f64 ncl_vm_sincos_f64(ncl_sv_f64 x, int64_t odd)
{
    const ncl_sv_f64 sh = NCL_VM_D1(0x1.8p52);
    const ncl_sv_f64 t = NCL_VM_FMA(x, NCL_VM_D1(0x1.45f306dc9c883p-1), sh);
    const ncl_sv_f64 n = NCL_VM_SUB(t, sh);
    const ncl_sv_f64 q2 = NCL_VM_D1(0x1.1a626331p-54);
    const ncl_sv_f64 r1 = NCL_VM_FNMA(n, NCL_VM_D1(0x1.921fb54442d18p+0), x);
    const ncl_sv_f64 rh = NCL_VM_FNMA(n, q2, r1);
    const ncl_sv_f64 rl = NCL_VM_FNMA(n, NCL_VM_D1(0x1.1701b839a252p-88), NCL_VM_FNMA(n, q2, NCL_VM_SUB(r1, rh)));
    const ncl_sv_f64 z = NCL_VM_MUL(rh, rh);
    const ncl_sv_f64 h = NCL_VM_MUL(z, NCL_VM_D1(0.5));
    ncl_sv_f64 ps = NCL_VM_FMA(NCL_VM_D1(NCL_VM_SIN_S_C5), z, NCL_VM_D1(NCL_VM_SIN_S_C4));
    ps = NCL_VM_FMA(ps, z, NCL_VM_D1(NCL_VM_SIN_S_C3));
    ps = NCL_VM_FMA(ps, z, NCL_VM_D1(NCL_VM_SIN_S_C2));
    ps = NCL_VM_FMA(ps, z, NCL_VM_D1(NCL_VM_SIN_S_C1));
    ps = NCL_VM_FMA(ps, z, NCL_VM_D1(NCL_VM_SIN_S_C0));
    const ncl_sv_f64 s = NCL_VM_ADD(rh, NCL_VM_FMA(NCL_VM_MUL(rh, z), ps, NCL_VM_FNMA(h, rl, rl)));
    ncl_sv_f64 pc = NCL_VM_FMA(NCL_VM_D1(NCL_VM_COS_C_C5), z, NCL_VM_D1(NCL_VM_COS_C_C4));
    pc = NCL_VM_FMA(pc, z, NCL_VM_D1(NCL_VM_COS_C_C3));
    pc = NCL_VM_FMA(pc, z, NCL_VM_D1(NCL_VM_COS_C_C2));
    pc = NCL_VM_FMA(pc, z, NCL_VM_D1(NCL_VM_COS_C_C1));
    pc = NCL_VM_FMA(pc, z, NCL_VM_D1(NCL_VM_COS_C_C0));
    const ncl_sv_f64 one = NCL_VM_D1(1.0);
    const ncl_sv_f64 w = NCL_VM_SUB(one, h);
    const ncl_sv_f64 wl = NCL_VM_SUB(NCL_VM_SUB(one, w), h);
    const ncl_sv_f64 c = NCL_VM_ADD(w, NCL_VM_FMA(NCL_VM_MUL(z, z), pc, NCL_VM_FNMA(rh, rl, wl)));
    const ncl_vm_i64 q = NCL_VM_IADD(NCL_VM_BITS(t), NCL_VM_I1(odd));
    ncl_sv_f64 y = NCL_VM_SEL_ODD(s, c, q);
    y = NCL_VM_FROMBITS(NCL_VM_IXOR(NCL_VM_BITS(y), NCL_VM_ISHL(NCL_VM_IAND(q, NCL_VM_I1(2)), 62)));
    /* sin(-0) is -0, which rh + (...) loses */
    if (!odd) y = NCL_VM_DSEL(_CMP_EQ_OQ, x, NCL_VM_D1(0.0), y, x);
    return y;
}
static ncl_sv_f64 ncl_vm_sin_f64(ncl_sv_f64 x) { return ncl_vm_sincos_f64(x, 0); }
static ncl_sv_f64 ncl_vm_cos_f64(ncl_sv_f64 x) { return ncl_vm_sincos_f64(x, 1); }

/* FAST: reduction by pi and one odd polynomial. sin: n = rint(x/pi);
   cos x = sin(x + pi/2): n = rint(x/pi + 1/2) - 1/2, a half-integer (its
   products with P1, P2 stay exact: 2n has at most 20 bits). r = x - n pi
   with pi = P1 + P2 + P3 (P2 33 bits) in three FMAs, r1 = x - n P1 exact,
   r2 exact when |r2| < 2^-33 (near the zeros), so that r is within about
   an ulp of x - n pi; sin x = (-1)^n sin r (the parity is bit 0 of t),
   sin r = r + r^3 P(r^2) on |r| <= pi/2 (times 1.00005), P of degree 7
   (odd degree 17; the fit itself within 0.003 ulp). The rounding errors
   of r^2, r^3 and P scale with r^3 P, up to 0.57 of the result near
   |r| = pi/2: cos within 1.71 ulp measured, 2.2 for |x| < 2^-26 (r is
   then pi/2 rounded, the result just below 1), sin within 2.13 (its form
   below), for the 4-ulp tier.
   (The same scheme with r's rounding error carried measured 1.9 ulp: too
   much for HIGH, hence its two polynomials on the shorter interval.) */
NCL_KINLINE ncl_sv_f64 ncl_vm_sincos_fast_f64(ncl_sv_f64 x, int iscos)
{
    const ncl_sv_f64 sh = NCL_VM_D1(0x1.8p52);
    const ncl_sv_f64 ipi = NCL_VM_D1(0x1.45f306dc9c883p-2);
    ncl_sv_f64 t, n;
    if (!iscos) {
        t = NCL_VM_FMA(x, ipi, sh);
        n = NCL_VM_SUB(t, sh);
    } else {
        t = NCL_VM_ADD(NCL_VM_FMA(x, ipi, NCL_VM_D1(0.5)), sh);
        n = NCL_VM_SUB(NCL_VM_SUB(t, sh), NCL_VM_D1(0.5));
    }
    ncl_sv_f64 r = NCL_VM_FNMA(n, NCL_VM_D1(0x1.921fb54442d18p+1), x);
    r = NCL_VM_FNMA(n, NCL_VM_D1(0x1.1a626331p-53), r);
    r = NCL_VM_FNMA(n, NCL_VM_D1(0x1.1701b839a252p-87), r);
    const ncl_sv_f64 z = NCL_VM_MUL(r, r);
    ncl_sv_f64 p = NCL_VM_FMA(NCL_VM_D1(NCL_VM_SINPI_P_C7), z, NCL_VM_D1(NCL_VM_SINPI_P_C6));
    p = NCL_VM_FMA(p, z, NCL_VM_D1(NCL_VM_SINPI_P_C5));
    p = NCL_VM_FMA(p, z, NCL_VM_D1(NCL_VM_SINPI_P_C4));
    p = NCL_VM_FMA(p, z, NCL_VM_D1(NCL_VM_SINPI_P_C3));
    p = NCL_VM_FMA(p, z, NCL_VM_D1(NCL_VM_SINPI_P_C2));
    p = NCL_VM_FMA(p, z, NCL_VM_D1(NCL_VM_SINPI_P_C1));
    p = NCL_VM_FMA(p, z, NCL_VM_D1(NCL_VM_SINPI_P_C0));
    /* sin: r (1 + z P) keeps the sign of r = x = -0, which r + r^3 P
       loses, without a select for it (6% of the time); its two roundings
       cost about 0.45 ulp more. cos has no zero to keep. */
    const ncl_sv_f64 y = iscos ? NCL_VM_FMA(NCL_VM_MUL(r, z), p, r) : NCL_VM_MUL(r, NCL_VM_FMA(z, p, NCL_VM_D1(1.0)));
    return NCL_VM_FROMBITS(NCL_VM_IXOR(NCL_VM_BITS(y), NCL_VM_ISHL(NCL_VM_BITS(t), 63)));
}
static ncl_sv_f64 ncl_vm_sin_fast_f64(ncl_sv_f64 x) { return ncl_vm_sincos_fast_f64(x, 0); }
static ncl_sv_f64 ncl_vm_cos_fast_f64(ncl_sv_f64 x) { return ncl_vm_sincos_fast_f64(x, 1); }

/* ---- the float layer: f = float vector (ncl_sv_f32), j = its bits ---- */
#if defined(__AVX512F__)
typedef __m512i ncl_vm_i32;
#  define NCL_VM_F1(c) _mm512_set1_ps(c)
#  define NCL_VM_FADD(a, b) _mm512_add_ps((a), (b))
#  define NCL_VM_FSUB(a, b) _mm512_sub_ps((a), (b))
#  define NCL_VM_FMUL(a, b) _mm512_mul_ps((a), (b))
#  define NCL_VM_FFMA(a, b, c) _mm512_fmadd_ps((a), (b), (c))   /* a b + c */
#  define NCL_VM_FFNMA(a, b, c) _mm512_fnmadd_ps((a), (b), (c)) /* c - a b */
#  define NCL_VM_FFMS(a, b, c) _mm512_fmsub_ps((a), (b), (c))   /* a b - c */
#  define NCL_VM_FMIN(a, b) _mm512_min_ps((a), (b))
#  define NCL_VM_FMAX(a, b) _mm512_max_ps((a), (b))
#  define NCL_VM_FSEL(cmp, x, y, a, b) _mm512_mask_blend_ps(_mm512_cmp_ps_mask((x), (y), cmp), (a), (b))
#  define NCL_VM_FRINT(a) _mm512_roundscale_ps((a), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#  define NCL_VM_FBITS(a) _mm512_castps_si512(a)
#  define NCL_VM_FFROMBITS(i) _mm512_castsi512_ps(i)
#  define NCL_VM_J1(c) _mm512_set1_epi32(c)
#  define NCL_VM_JAND(a, b) _mm512_and_si512((a), (b))
#  define NCL_VM_JXOR(a, b) _mm512_xor_si512((a), (b))
#  define NCL_VM_JADD(a, b) _mm512_add_epi32((a), (b))
#  define NCL_VM_JSHL(a, n) _mm512_slli_epi32((a), (n))
#  define NCL_VM_FSEL_ODD(a, c, b) _mm512_mask_blend_ps(_mm512_test_epi32_mask((b), NCL_VM_J1(1)), (a), (c))
/* y with its sign flipped where bit b of q is set: y ^ ((q << (31 - b)) &
   sign), one ternary logic (0x78: a ^ (b & c)) */
#  define NCL_VM_FNEG_BIT(y, q, b) \
    NCL_VM_FFROMBITS(_mm512_ternarylogic_epi32(NCL_VM_FBITS(y), NCL_VM_JSHL((q), 31 - (b)), NCL_VM_J1(INT32_MIN), 0x78))
#else
typedef __m256i ncl_vm_i32;
#  define NCL_VM_F1(c) _mm256_set1_ps(c)
#  define NCL_VM_FADD(a, b) _mm256_add_ps((a), (b))
#  define NCL_VM_FSUB(a, b) _mm256_sub_ps((a), (b))
#  define NCL_VM_FMUL(a, b) _mm256_mul_ps((a), (b))
#  define NCL_VM_FFMA(a, b, c) _mm256_fmadd_ps((a), (b), (c))
#  define NCL_VM_FFNMA(a, b, c) _mm256_fnmadd_ps((a), (b), (c))
#  define NCL_VM_FFMS(a, b, c) _mm256_fmsub_ps((a), (b), (c))
#  define NCL_VM_FMIN(a, b) _mm256_min_ps((a), (b))
#  define NCL_VM_FMAX(a, b) _mm256_max_ps((a), (b))
#  define NCL_VM_FSEL(cmp, x, y, a, b) _mm256_blendv_ps((a), (b), _mm256_cmp_ps((x), (y), cmp))
#  define NCL_VM_FRINT(a) _mm256_round_ps((a), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#  define NCL_VM_FBITS(a) _mm256_castps_si256(a)
#  define NCL_VM_FFROMBITS(i) _mm256_castsi256_ps(i)
#  define NCL_VM_J1(c) _mm256_set1_epi32(c)
#  define NCL_VM_JAND(a, b) _mm256_and_si256((a), (b))
#  define NCL_VM_JXOR(a, b) _mm256_xor_si256((a), (b))
#  define NCL_VM_JADD(a, b) _mm256_add_epi32((a), (b))
#  define NCL_VM_JSHL(a, n) _mm256_slli_epi32((a), (n))
#  define NCL_VM_FSEL_ODD(a, c, b) \
    _mm256_blendv_ps((a), (c), _mm256_castsi256_ps(_mm256_slli_epi32((b), 31)))
/* y with its sign flipped where bit b of q is set: y ^ ((q & 2^b) << (31 - b)) */
#  define NCL_VM_FNEG_BIT(y, q, b) \
    NCL_VM_FFROMBITS(NCL_VM_JXOR(NCL_VM_FBITS(y), NCL_VM_JSHL(NCL_VM_JAND((q), NCL_VM_J1(1 << (b))), 31 - (b))))
#endif

/* ---- exp, float32 ----------------------------------------------------------
   k = rint(x / ln2), rh = x - k L1 exact (L1 = ln2 rounded to float:
   x - k L1 is a multiple of 2^-24 below 1/2 in magnitude, and FMA rounds
   it once), r = rh - k L2 rounded (|r| <= 0.347, its error at most 2^-26);
   e^r = 1 + r (1 + r Q(r)) by Horner, the last FMA the one rounding at the
   result's scale. Bound, in ulps of p (worst where p is just below 1, ulp
   2^-24): 0.5 (last rounding) + 0.25 (r's rounding) + 0.17 (1 + r Q's
   rounding, scaled by |r|) + Q's own error; measured over all 2^32 inputs
   0.98 ulp on both levels. (The former 1 + rh carried with Fast2Sum, 0.51
   ulp, took four operations more.) p is then scaled by 2^k, which rounds
   once (subnormal results included). x is clamped to [-104, 89] (NaN
   passes), beyond which the result is 0 or inf. */
static ncl_sv_f32 ncl_vm_exp_f32(ncl_sv_f32 x)
{
    x = NCL_VM_FMAX(NCL_VM_F1(-104.0f), NCL_VM_FMIN(NCL_VM_F1(89.0f), x));
    const ncl_sv_f32 k = NCL_VM_FRINT(NCL_VM_FMUL(x, NCL_VM_F1(0x1.715476p+0f)));
    const ncl_sv_f32 rh = NCL_VM_FFNMA(k, NCL_VM_F1(0x1.62e430p-1f), x);
    const ncl_sv_f32 r = NCL_VM_FFNMA(k, NCL_VM_F1(-0x1.05c610p-29f), rh);
    ncl_sv_f32 q = NCL_VM_FFMA(NCL_VM_F1(NCL_VM_EXPF_Q_C4), r, NCL_VM_F1(NCL_VM_EXPF_Q_C3));
    q = NCL_VM_FFMA(q, r, NCL_VM_F1(NCL_VM_EXPF_Q_C2));
    q = NCL_VM_FFMA(q, r, NCL_VM_F1(NCL_VM_EXPF_Q_C1));
    q = NCL_VM_FFMA(q, r, NCL_VM_F1(NCL_VM_EXPF_Q_C0));
    const ncl_sv_f32 p = NCL_VM_FFMA(NCL_VM_FFMA(q, r, NCL_VM_F1(1.0f)), r, NCL_VM_F1(1.0f));
#if defined(__AVX512F__)
    return _mm512_scalef_ps(p, k);
#else
    /* 2^k in two normal factors 2^k1 2^k2, |k| <= 150; the first product
       is exact, the second rounds once */
    const __m256i ki = _mm256_cvtps_epi32(k);
    const __m256i k1 = _mm256_srai_epi32(ki, 1);
    const __m256i k2 = _mm256_sub_epi32(ki, k1);
    const ncl_vm_i32 bias = NCL_VM_J1(127);
    return NCL_VM_FMUL(NCL_VM_FMUL(p, NCL_VM_FFROMBITS(NCL_VM_JSHL(NCL_VM_JADD(k1, bias), 23))),
                       NCL_VM_FFROMBITS(NCL_VM_JSHL(NCL_VM_JADD(k2, bias), 23)));
#endif
}

/* ---- log, float32 ----------------------------------------------------------
   AVX-512: x = m 2^(g + [m < 1]), m = getmant(x) in [0.75, 1.5), g =
   getexp(x) (subnormals included); invc from a 16-entry table on the top
   4 bits of m's mantissa field (vecmath_coeffs.py; one permute per table),
   with few bits so that r = m invc - 1 is exact (|r| < 1/16), and
   log(x) = g L1 + TH + r + (r^2 Q(r) + g L2 + TL), where the table's
   T = ln2 [m < 1] - log(invc) = TH + TL and ln2 = L1 + L2. g L1 + TH is
   exact (multiples of 2^-15 below 2^7), so only the last two additions
   round at the result's scale: where TH + TL is 0 (m in [0.9375, 1.0625))
   the result is r + tail rounded once; elsewhere r + tail has the sign of
   T, or is at most a quarter of |T|, so it stays below the result and its
   rounding below half an ulp of it. Measured over all 2^32 inputs: 0.85
   ulp. 16 operations a vector against 29 for the scheme of AVX2 below,
   and permutexvar (16 entries) costs well under permutex2var (32).
   AVX2: m in [sqrt(1/2), sqrt(2)), f = m - 1 exact; log(1 + f) =
   f + T, T = f^2 (-1/2 + f P(f)), no division. With ln2 = L1 + L2 (e L1
   exact: L1 has 13 bits), e L1 + f is carried with its rounding error
   (Fast2Sum: |e L1| >= ln2 > |f|, or e = 0), so that the last addition is
   the one rounding at the result's scale; T's own error stays below 0.3
   ulp: within about 0.8 ulp. Zero, negative, inf and NaN inputs are
   blended in at the end. (A 16-entry table on AVX2 would take two permutes
   and a blend per lookup.) */
#if defined(__AVX512F__)
static ncl_sv_f32 ncl_vm_log_f32(ncl_sv_f32 x)
{
    static const float invc_t[16] = {NCL_VM_LOGF_INVC};
    static const float th_t[16] = {NCL_VM_LOGF_TH};
    static const float tl_t[16] = {NCL_VM_LOGF_TL};
    /* the special inputs need no test: getmant gives NaN for x < 0 and
       -inf (so the result is NaN), 1 for +0 and +inf, -1 for -0 (entry 0,
       r = -2), getexp -inf for zeros and +inf for +inf, which make g L1
       and g L2 the result (-inf, +inf); NaN stays NaN */
    const ncl_sv_f32 m = _mm512_getmant_ps(x, _MM_MANT_NORM_p75_1p5, _MM_MANT_SIGN_nan);
    const ncl_sv_f32 g = _mm512_getexp_ps(x);
    /* permutexvar takes the low 4 bits of each index */
    const __m512i i = _mm512_srli_epi32(_mm512_castps_si512(m), 19);
    const ncl_sv_f32 invc = _mm512_permutexvar_ps(i, _mm512_loadu_ps(invc_t));
    const ncl_sv_f32 th = _mm512_permutexvar_ps(i, _mm512_loadu_ps(th_t));
    const ncl_sv_f32 tl = _mm512_permutexvar_ps(i, _mm512_loadu_ps(tl_t));
    const ncl_sv_f32 r = NCL_VM_FFMS(m, invc, NCL_VM_F1(1.0f));
    const ncl_sv_f32 a = NCL_VM_FFMA(g, NCL_VM_F1(NCL_VM_LOGF_L1), th);
    const ncl_sv_f32 lo = NCL_VM_FFMA(g, NCL_VM_F1(NCL_VM_LOGF_L2), tl);
    ncl_sv_f32 q = NCL_VM_FFMA(NCL_VM_F1(NCL_VM_LOGF_Q_C3), r, NCL_VM_F1(NCL_VM_LOGF_Q_C2));
    q = NCL_VM_FFMA(q, r, NCL_VM_F1(NCL_VM_LOGF_Q_C1));
    q = NCL_VM_FFMA(q, r, NCL_VM_F1(NCL_VM_LOGF_Q_C0));
    return NCL_VM_FADD(a, NCL_VM_FADD(r, NCL_VM_FFMA(NCL_VM_FMUL(r, r), q, lo)));
}
#else
static ncl_sv_f32 ncl_vm_log_f32(ncl_sv_f32 x)
{
    const ncl_sv_f32 one = NCL_VM_F1(1.0f);
    /* subnormal inputs scaled by 2^23 first; e is the exponent of x / c,
       c = sqrt(1/2) rounded: the high bits of (x's bits - c's bits) */
    const __m256 sub = _mm256_cmp_ps(x, NCL_VM_F1(0x1p-126f), _CMP_LT_OQ);
    const __m256 xs = _mm256_blendv_ps(x, NCL_VM_FMUL(x, NCL_VM_F1(0x1p23f)), sub);
    const __m256i u = _mm256_sub_epi32(NCL_VM_FBITS(xs), NCL_VM_J1(0x3f3504f3));
    const ncl_sv_f32 e = NCL_VM_FSUB(_mm256_cvtepi32_ps(_mm256_srai_epi32(u, 23)),
                                     _mm256_and_ps(sub, NCL_VM_F1(23.0f)));
    const ncl_sv_f32 m = NCL_VM_FFROMBITS(
        _mm256_sub_epi32(NCL_VM_FBITS(xs), NCL_VM_JAND(u, NCL_VM_J1((int32_t)0xff800000u))));
    const ncl_sv_f32 f = NCL_VM_FSUB(m, one);
    ncl_sv_f32 p = NCL_VM_FFMA(NCL_VM_F1(NCL_VM_LOGF_P_C8), f, NCL_VM_F1(NCL_VM_LOGF_P_C7));
    p = NCL_VM_FFMA(p, f, NCL_VM_F1(NCL_VM_LOGF_P_C6));
    p = NCL_VM_FFMA(p, f, NCL_VM_F1(NCL_VM_LOGF_P_C5));
    p = NCL_VM_FFMA(p, f, NCL_VM_F1(NCL_VM_LOGF_P_C4));
    p = NCL_VM_FFMA(p, f, NCL_VM_F1(NCL_VM_LOGF_P_C3));
    p = NCL_VM_FFMA(p, f, NCL_VM_F1(NCL_VM_LOGF_P_C2));
    p = NCL_VM_FFMA(p, f, NCL_VM_F1(NCL_VM_LOGF_P_C1));
    p = NCL_VM_FFMA(p, f, NCL_VM_F1(NCL_VM_LOGF_P_C0));
    p = NCL_VM_FFMA(p, f, NCL_VM_F1(-0.5f));
    const ncl_sv_f32 t = NCL_VM_FFMA(NCL_VM_FMUL(f, f), p, NCL_VM_FMUL(e, NCL_VM_F1(0x1.0bfbe8p-15f)));
    const ncl_sv_f32 a = NCL_VM_FMUL(e, NCL_VM_F1(0x1.62ep-1f));
    const ncl_sv_f32 hi = NCL_VM_FADD(a, f);
    const ncl_sv_f32 lo = NCL_VM_FADD(NCL_VM_FSUB(a, hi), f);
    ncl_sv_f32 y = NCL_VM_FADD(hi, NCL_VM_FADD(lo, t));
    /* the inputs outside (0, inf), rare: one test for the vector first */
    if (_mm256_movemask_ps(_mm256_or_ps(_mm256_cmp_ps(x, NCL_VM_F1(0.0f), _CMP_LE_OQ),
                                        _mm256_cmp_ps(x, NCL_VM_F1(INFINITY), _CMP_NLT_UQ)))) {
        y = NCL_VM_FSEL(_CMP_LT_OQ, x, NCL_VM_F1(0.0f), y, NCL_VM_F1(NAN));
        y = NCL_VM_FSEL(_CMP_EQ_OQ, x, NCL_VM_F1(0.0f), y, NCL_VM_F1(-INFINITY));
        y = NCL_VM_FSEL(_CMP_NLT_UQ, x, NCL_VM_F1(INFINITY), y, NCL_VM_FADD(x, x));
    }
    return y;
}
#endif

/* pi in three floats, H + M + L, each the rest of pi truncated to float
   (all positive), and 1/pi rounded (vecmath_coeffs.py). The float32 sin and
   cos kernels below reduce by pi, pi/2 or pi/16: the same parts, scaled
   exactly by powers of two (P1, P2, P3 in their comments). */
#define NCL_VM_PIF_H 0x1.921fb40000000p+1f
#define NCL_VM_PIF_M 0x1.4442d00000000p-23f
#define NCL_VM_PIF_L 0x1.8469880000000p-47f
#define NCL_VM_INVPIF 0x1.45f3060000000p-2f

/* ---- sin, cos, float32 -----------------------------------------------------
   On AVX2 (the table below would take two 8-entry permutes and a blend
   per read), as float64 in float: n = rint(x 2/pi), pi/2 = P1 + P2 + P3, each part
   the remainder truncated to float (all positive); a = x - n P1 exact (a
   multiple of 2^-24 or of x's ulp, below 1 in magnitude), n P2 split
   exactly with FMA, a - n P2 - n P3 carried as rh + rl; sin and cos of
   rh + rl each rounded once at the end. w = 1 - rh^2/2 is one FMA and its
   error a second one (1 - w is exact, w in [0.69, 1]; the second FMA
   rounds a value below 2^-25 at 2^-24 of it); sin's term rl (1 - rh^2/2)
   is rl w. sin r = rh - (rh^3 (-S) - rl w), in that form so that sin(-0)
   is -0 without a blend: there rh = -0 (the parts are positive and n =
   +0), and the bracket is -0 + +0 = +0. The shifter 1.5 2^23 + odd puts
   the quadrant of cos (n + 1) in t's low bits. |x| from 2^18 on, inf and
   NaN are in the desc's scalar range. */
#if defined(__AVX512F__)
/* On AVX-512 a table of nodes j pi/16 read by one-register permutes, in
   about 23 vector operations against about 33 for the scheme below. n =
   rint(x 16/pi) (the shifter's 8 more for cos, cos x = sin(x + pi/2), so
   that t's low bits are the node of sin's argument), r = x - n pi/16
   carried as rh + rl (pi/16 = P1 + P2 + P3 truncated; a = x - n P1 exact
   since a multiple of 2^-27 below 2^-3; rh = a - bh with bh = n P2
   rounded; then rl = ((a - rh) - n P2) - n P3 in two FMAs, where a - rh is
   exact and the first FMA, which takes n P2 exactly, rounds a value below
   2^-27 once: 8 operations, where the Fast2Sum of the scheme below with n
   P2 split by an FMA takes 10; |n| < 2^21 and |r| <= 0.11 with n's
   rounding slack), and
     sin x = Sh + Ch rh + (S (cos r - 1) + Ch (sin r - r) + Ch rl + Sl)
   with S = Sh + Sl = sin(j pi/16) as a float pair and Ch = cos(j pi/16)
   rounded to float; its error times r (below 0.11 2^-25) is left out,
   which costs up to 0.2 ulp where Ch = cos(pi/16), rounded with an error
   of 0.499 of its ulp, and the result is near 0.09 (a table of the low
   parts and an FMA more measured 0.755 ulp, and 5-9% more time). The
   bracket is below 0.0065 |S| + 2.2e-4 + 2^-24, evaluated in float; Ch
   rh + bracket is one FMA, rounding at |C r| <= 0.11, and the last
   addition of Sh is the rounding that counts. Where S = 0 (j = 0, 16,
   near multiples of pi) the result is (C rh + bracket) rounded once, with
   rl carrying r's low part; elsewhere the FMA rounds below 2^-28, which
   counts (up to half an ulp) only for j = 1, 15, 17, 31, where the result
   may be as small as 0.086; from j = 2 on it is above 0.29. cos r - 1 =
   z (-1/2 + c4 z) with c4 a little below 1/24 (absolute error below
   1.3e-9 |S|), sin r - r = r z (s3 + s5 z) (error below 4e-11). Over
   all inputs below 2^18 the worst is 0.954 ulp for sin and 0.956 for cos
   (checked exhaustively), near 2^17 where n's slack lets |r| reach 0.11.
   The tables hold the 16 nodes of the half period, which permutexvar reads
   at t's low 4 bits; a node j + 16 has -S and -C, which negate the whole
   sum, so the result's sign is flipped where bit 4 of t is set (a shift
   and a ternary logic, beside the FMAs, where a 32-entry two-register
   permute takes an FMA slot: about 5 % less time, bench/notes.md row 11;
   results bit-identical to the 32-entry tables over all 2^32 inputs).
   sin(-0) = -0: j = 0 holds Sh = -0 and the bracket is +0 there, so Ch
   rh - bracket = -0. */
/* sin(j pi/16), j = 0..15: Sh rounded (-0 at j = 0), -Sl the negated rest,
   Ch = cos(j pi/16) rounded; then c4 and s3, s5 (vecmath_coeffs.py) */
#  define NCL_VM_SINF_T_SH \
    -0x0.0p+0f, 0x1.8f8b840000000p-3f, 0x1.87de2a0000000p-2f, 0x1.1c73b40000000p-1f, \
    0x1.6a09e60000000p-1f, 0x1.a9b6620000000p-1f, 0x1.d906bc0000000p-1f, 0x1.f6297c0000000p-1f, \
    0x1.0000000000000p+0f, 0x1.f6297c0000000p-1f, 0x1.d906bc0000000p-1f, 0x1.a9b6620000000p-1f, \
    0x1.6a09e60000000p-1f, 0x1.1c73b40000000p-1f, 0x1.87de2a0000000p-2f, 0x1.8f8b840000000p-3f
#  define NCL_VM_SINF_T_NSL \
    0x0.0p+0f, 0x1.cb2cfa0000000p-30f, -0x1.abaa580000000p-28f, 0x1.9465ce0000000p-27f, \
    -0x1.9fcef40000000p-27f, -0x1.21d4340000000p-26f, -0x1.e651a80000000p-26f, -0x1.feeb960000000p-26f, \
    0x0.0p+0f, -0x1.feeb960000000p-26f, -0x1.e651a80000000p-26f, -0x1.21d4340000000p-26f, \
    -0x1.9fcef40000000p-27f, 0x1.9465ce0000000p-27f, -0x1.abaa580000000p-28f, 0x1.cb2cfa0000000p-30f
#  define NCL_VM_SINF_T_CH \
    0x1.0000000000000p+0f, 0x1.f6297c0000000p-1f, 0x1.d906bc0000000p-1f, 0x1.a9b6620000000p-1f, \
    0x1.6a09e60000000p-1f, 0x1.1c73b40000000p-1f, 0x1.87de2a0000000p-2f, 0x1.8f8b840000000p-3f, \
    0x0.0p+0f, -0x1.8f8b840000000p-3f, -0x1.87de2a0000000p-2f, -0x1.1c73b40000000p-1f, \
    -0x1.6a09e60000000p-1f, -0x1.a9b6620000000p-1f, -0x1.d906bc0000000p-1f, -0x1.f6297c0000000p-1f
#  define NCL_VM_SINF_TC_C0 0x1.5543b60000000p-5f
#  define NCL_VM_SINF_TS_C0 -0x1.5555560000000p-3f
#  define NCL_VM_SINF_TS_C1 0x1.1111120000000p-7f
/* the 16-entry table tab read at the low 4 bits of i */
#  define NCL_VM_PERM16(tab, i) _mm512_permutexvar_ps((i), _mm512_loadu_ps(tab))
/* In two stages for the pipelined loop (unary_sleef.h): the reduction
   leaves t, rh and rl; the second stage reads the tables at t and
   evaluates the rest. With the reduction of two vectors ahead issued
   before them, the loop runs 14.9 cycles a vector where the one-piece
   kernel ran 16.4 (bench/notes.md row 11); the bits are the same. */
NCL_KINLINE ncl_vm_mid_f32 ncl_vm_sincos_red_f32(ncl_sv_f32 x, int32_t odd)
{
    const float shift = 0x1.8p23f + 8.0f * (float)odd;
    const ncl_sv_f32 t = NCL_VM_FFMA(x, NCL_VM_F1(NCL_VM_INVPIF * 16), NCL_VM_F1(shift));
    const ncl_sv_f32 n = NCL_VM_FSUB(t, NCL_VM_F1(shift));
    const ncl_sv_f32 a = NCL_VM_FFNMA(n, NCL_VM_F1(NCL_VM_PIF_H / 16), x);
    const ncl_sv_f32 bh = NCL_VM_FMUL(n, NCL_VM_F1(NCL_VM_PIF_M / 16));
    const ncl_sv_f32 rh = NCL_VM_FSUB(a, bh);
    /* a - rh is exact as in Fast2Sum: a is a multiple of 2^-27 (or n = 0
       and bh = 0), hence of bh's ulp (|bh| < 2^-5); the first FMA takes n
       P2 exactly and rounds once a value below 2^-27 */
    const ncl_sv_f32 rl = NCL_VM_FFNMA(n, NCL_VM_F1(NCL_VM_PIF_L / 16),
                                       NCL_VM_FFNMA(n, NCL_VM_F1(NCL_VM_PIF_M / 16), NCL_VM_FSUB(a, rh)));
    return (ncl_vm_mid_f32){{t, rh, rl}};
}
NCL_KINLINE ncl_sv_f32 ncl_vm_sincos_eval_f32(ncl_vm_mid_f32 m)
{
    static const float sh_t[16] = {NCL_VM_SINF_T_SH};
    static const float nsl_t[16] = {NCL_VM_SINF_T_NSL};
    static const float ch_t[16] = {NCL_VM_SINF_T_CH};
    const ncl_sv_f32 rh = m.v[1], rl = m.v[2];
    const __m512i j = NCL_VM_FBITS(m.v[0]);
    const ncl_sv_f32 sh = NCL_VM_PERM16(sh_t, j);
    const ncl_sv_f32 nsl = NCL_VM_PERM16(nsl_t, j);
    const ncl_sv_f32 ch = NCL_VM_PERM16(ch_t, j);
    const ncl_sv_f32 z = NCL_VM_FMUL(rh, rh);
    const ncl_sv_f32 ps = NCL_VM_FFMA(NCL_VM_F1(NCL_VM_SINF_TS_C1), z, NCL_VM_F1(NCL_VM_SINF_TS_C0));
    /* u = sin r - r + rl, w = cos r - 1 */
    const ncl_sv_f32 u = NCL_VM_FFMA(NCL_VM_FMUL(rh, z), ps, rl);
    const ncl_sv_f32 w = NCL_VM_FMUL(z, NCL_VM_FFMA(NCL_VM_F1(NCL_VM_SINF_TC_C0), z, NCL_VM_F1(-0.5f)));
    /* nb = -bracket */
    ncl_sv_f32 nb = NCL_VM_FFNMA(ch, u, nsl);
    nb = NCL_VM_FFNMA(sh, w, nb);
    return NCL_VM_FNEG_BIT(NCL_VM_FADD(sh, NCL_VM_FFMS(ch, rh, nb)), j, 4);
}
NCL_KINLINE ncl_sv_f32 ncl_vm_sincos_f32(ncl_sv_f32 x, int32_t odd)
{
    return ncl_vm_sincos_eval_f32(ncl_vm_sincos_red_f32(x, odd));
}
static ncl_vm_mid_f32 ncl_vm_sin_red_f32(ncl_sv_f32 x) { return ncl_vm_sincos_red_f32(x, 0); }
static ncl_vm_mid_f32 ncl_vm_cos_red_f32(ncl_sv_f32 x) { return ncl_vm_sincos_red_f32(x, 1); }
#  define NCL_VM_SIN_STAGES_f32 ncl_vm_sin_red_f32, ncl_vm_sincos_eval_f32
#  define NCL_VM_COS_STAGES_f32 ncl_vm_cos_red_f32, ncl_vm_sincos_eval_f32
#else
NCL_KINLINE ncl_sv_f32 ncl_vm_sincos_f32(ncl_sv_f32 x, int32_t odd)
{
    const float shift = 0x1.8p23f + (float)odd;
    const ncl_sv_f32 t = NCL_VM_FFMA(x, NCL_VM_F1(NCL_VM_INVPIF * 2), NCL_VM_F1(shift));
    const ncl_sv_f32 n = NCL_VM_FSUB(t, NCL_VM_F1(shift));
    const ncl_sv_f32 a = NCL_VM_FFNMA(n, NCL_VM_F1(NCL_VM_PIF_H / 2), x);
    const ncl_sv_f32 bh = NCL_VM_FMUL(n, NCL_VM_F1(NCL_VM_PIF_M / 2));
    const ncl_sv_f32 bl = NCL_VM_FFMS(n, NCL_VM_F1(NCL_VM_PIF_M / 2), bh);
    /* Fast2Sum is exact here although |a| may be below |bh|: a is a
       multiple of 2^-24, hence of bh's ulp (|bh| < 2^-6) */
    const ncl_sv_f32 rh = NCL_VM_FSUB(a, bh);
    const ncl_sv_f32 err = NCL_VM_FSUB(NCL_VM_FSUB(a, rh), bh);
    const ncl_sv_f32 rl = NCL_VM_FFNMA(n, NCL_VM_F1(NCL_VM_PIF_L / 2), NCL_VM_FSUB(err, bl));
    const ncl_sv_f32 z = NCL_VM_FMUL(rh, rh);
    const ncl_sv_f32 hr = NCL_VM_FMUL(rh, NCL_VM_F1(0.5f));
    const ncl_sv_f32 one = NCL_VM_F1(1.0f);
    const ncl_sv_f32 w = NCL_VM_FFNMA(rh, hr, one);
    ncl_sv_f32 ps = NCL_VM_FFMA(NCL_VM_F1(-NCL_VM_SINF_S_C3), z, NCL_VM_F1(-NCL_VM_SINF_S_C2));
    ps = NCL_VM_FFMA(ps, z, NCL_VM_F1(-NCL_VM_SINF_S_C1));
    ps = NCL_VM_FFMA(ps, z, NCL_VM_F1(-NCL_VM_SINF_S_C0));
    const ncl_sv_f32 nlw = NCL_VM_FFNMA(rl, w, NCL_VM_F1(0.0f));
    const ncl_sv_f32 s = NCL_VM_FSUB(rh, NCL_VM_FFMA(NCL_VM_FMUL(rh, z), ps, nlw));
    ncl_sv_f32 pc = NCL_VM_FFMA(NCL_VM_F1(NCL_VM_COSF_C_C3), z, NCL_VM_F1(NCL_VM_COSF_C_C2));
    pc = NCL_VM_FFMA(pc, z, NCL_VM_F1(NCL_VM_COSF_C_C1));
    pc = NCL_VM_FFMA(pc, z, NCL_VM_F1(NCL_VM_COSF_C_C0));
    /* wl = (1 - w) - rh^2/2 - rh rl */
    const ncl_sv_f32 wl = NCL_VM_FFNMA(rh, rl, NCL_VM_FFNMA(rh, hr, NCL_VM_FSUB(one, w)));
    const ncl_sv_f32 c = NCL_VM_FADD(w, NCL_VM_FFMA(NCL_VM_FMUL(z, z), pc, wl));
    const ncl_vm_i32 q = NCL_VM_FBITS(t);
    return NCL_VM_FNEG_BIT(NCL_VM_FSEL_ODD(s, c, q), q, 1);
}
#  define NCL_VM_SIN_STAGES_f32 0, 0
#  define NCL_VM_COS_STAGES_f32 0, 0
#endif
static ncl_sv_f32 ncl_vm_sin_f32(ncl_sv_f32 x) { return ncl_vm_sincos_f32(x, 0); }
static ncl_sv_f32 ncl_vm_cos_f32(ncl_sv_f32 x) { return ncl_vm_sincos_f32(x, 1); }

/* ---- sin, cos, float32, fast tier (within 4 ulp) ---------------------------
   One reduction by pi and one polynomial, about 14 vector operations
   against the 40 above: n = rint(x / pi), r = x - n pi in [-pi/2, pi/2]
   (plus n's rounding slack, below 0.025 for |x| < 2^18), sin x =
   (-1)^n r P(r^2), the sign flipped by n's parity (the low bit of t). For
   cos, m = n + 1/2 with n = rint(|x| / pi - 1/2), r = |x| - m pi, cos x =
   (-1)^(n+1) sin r: the shifter 1.5 2^23 + 1 puts n + 1's parity in t.
   pi = P1 + P2 + P3, each part pi's remainder truncated to float, so all
   three are positive. x - m P1 is exact (FMA: a multiple of 2^-22 below 2
   in magnitude) once |x| >= 1/2, and rounds at r's scale below; the two
   other steps round at r's scale. No low part is carried: r's rounding
   alone is up to 1.8 ulp where r is just above 1/2 and sin r just below
   it; with P's fit and evaluation the worst over all inputs below 2^18 is
   2.4 ulp for both functions on both levels (checked exhaustively).
   r P(z) keeps sin(-0) = -0: r stays -0 (each step adds the product of
   n = +0 and a positive part, negated: -0). */
NCL_KINLINE ncl_sv_f32 ncl_vm_sincos_fast_f32(ncl_sv_f32 x, int odd)
{
    ncl_sv_f32 t, m;
    if (!odd) {
        t = NCL_VM_FFMA(x, NCL_VM_F1(NCL_VM_INVPIF), NCL_VM_F1(0x1.8p23f));
        m = NCL_VM_FSUB(t, NCL_VM_F1(0x1.8p23f));
    } else {
        x = NCL_VM_FFROMBITS(NCL_VM_JAND(NCL_VM_FBITS(x), NCL_VM_J1(0x7fffffff)));
        t = NCL_VM_FADD(NCL_VM_FFMA(x, NCL_VM_F1(NCL_VM_INVPIF), NCL_VM_F1(-0.5f)), NCL_VM_F1(0x1.8p23f + 1.0f));
        m = NCL_VM_FADD(NCL_VM_FSUB(t, NCL_VM_F1(0x1.8p23f + 1.0f)), NCL_VM_F1(0.5f));
    }
    ncl_sv_f32 r = NCL_VM_FFNMA(m, NCL_VM_F1(NCL_VM_PIF_H), x);
    r = NCL_VM_FFNMA(m, NCL_VM_F1(NCL_VM_PIF_M), r);
    r = NCL_VM_FFNMA(m, NCL_VM_F1(NCL_VM_PIF_L), r);
    const ncl_sv_f32 z = NCL_VM_FMUL(r, r);
    ncl_sv_f32 p = NCL_VM_FFMA(NCL_VM_F1(NCL_VM_SINF_P_C4), z, NCL_VM_F1(NCL_VM_SINF_P_C3));
    p = NCL_VM_FFMA(p, z, NCL_VM_F1(NCL_VM_SINF_P_C2));
    p = NCL_VM_FFMA(p, z, NCL_VM_F1(NCL_VM_SINF_P_C1));
    p = NCL_VM_FFMA(p, z, NCL_VM_F1(NCL_VM_SINF_P_C0));
    const ncl_sv_f32 s = NCL_VM_FMUL(r, p);
    return NCL_VM_FFROMBITS(NCL_VM_JXOR(NCL_VM_FBITS(s), NCL_VM_JSHL(NCL_VM_FBITS(t), 31)));
}
static ncl_sv_f32 ncl_vm_sin_fast_f32(ncl_sv_f32 x) { return ncl_vm_sincos_fast_f32(x, 0); }
static ncl_sv_f32 ncl_vm_cos_fast_f32(ncl_sv_f32 x) { return ncl_vm_sincos_fast_f32(x, 1); }

/* |x| from 2^18 on, inf and NaN: the scalar functions (unary_ops.h) */
#  define NCL_VM_TRIG_FIX_f32 UINT32_C(0x48800000), UINT32_C(0x7fffffff)
/* |x| from 2^20 on, inf and NaN: the scalar functions */
#  define NCL_VM_TRIG_FIX_f64 UINT64_C(0x4130000000000000), UINT64_C(0x7fffffffffffffff)
#  define NCL_VM_EXP_FIX_f64 NCL_SV_NONE_
/* Each function's (HIGH, FAST) pair for unary_sleef.h's table; 0 keeps
   SLEEF's function of that tier, where it is the faster of the two
   (measured: SLEEF's 3.5-ulp float64 log and float32 log beat ours on
   AVX2). Then the HIGH function's two stages for the pipelined loop (0, 0:
   one piece; float32 sin and cos on AVX-512 only, so far). Then the
   window of inputs whose results raise no flag (the desc's win_lo, win_w,
   win_raw; 0, 0, 0 for none):
   - sin, cos: every normal |x| below the fix range. |sin x| >= 0.63 |x|
     up to pi/2; past 1, |sin x| and |cos x| stay above 2^-28 for every
     float32 (checked over all of them), and the double nearest a zero
     over the whole double range is about 2^-61 from it.
   - exp: |x| up to 87 (float32) or 708 (float64), zero and subnormals
     included: exp(-87) = 1.6e-38 and exp(-708) = 3.3e-308 are normal.
   - log: the positive normal numbers (x itself, sign included), whose
     logarithms are normal but for log 1 = 0, which raises nothing. */
#  define NCL_VM_TRIG_WIN_f32 NCL_SV_MIN_f32, UINT32_C(0x48800000) - NCL_SV_MIN_f32, 0
#  define NCL_VM_TRIG_WIN_f64 NCL_SV_MIN_f64, UINT64_C(0x4130000000000000) - NCL_SV_MIN_f64, 0
#  define NCL_VM_EXP_WIN_f32 0, UINT32_C(0x42ae0001), 0         /* 87 */
#  define NCL_VM_EXP_WIN_f64 0, UINT64_C(0x4086200000000001), 0 /* 708 */
#  define NCL_VM_LOG_WIN_f32 NCL_SV_MIN_f32, NCL_SV_INF_f32 - NCL_SV_MIN_f32, 1
#  define NCL_VM_LOG_WIN_f64 NCL_SV_MIN_f64, NCL_SV_INF_f64 - NCL_SV_MIN_f64, 1
#  if defined(__AVX512F__)
#    define NCL_VM_OWN_exp_f64 ncl_vm_exp_hi_f64, ncl_vm_exp_lo_f64, 0, 0, NCL_VM_EXP_WIN_f64
#    define NCL_VM_OWN_log_f64 ncl_vm_log_hi_f64, ncl_vm_log_lo_f64, 0, 0, NCL_VM_LOG_WIN_f64
#  else
#    define NCL_VM_OWN_exp_f64 ncl_vm_exp_f64, ncl_vm_exp_f64, 0, 0, NCL_VM_EXP_WIN_f64
#    define NCL_VM_OWN_log_f64 ncl_vm_log_f64, 0, 0, 0, NCL_VM_LOG_WIN_f64
#  endif
#  define NCL_VM_OWN_sin_f64 ncl_vm_sin_f64, ncl_vm_sin_fast_f64, 0, 0, NCL_VM_TRIG_WIN_f64
#  define NCL_VM_OWN_cos_f64 ncl_vm_cos_f64, ncl_vm_cos_fast_f64, 0, 0, NCL_VM_TRIG_WIN_f64
#  define NCL_VM_OWN_exp_f32 ncl_vm_exp_f32, ncl_vm_exp_f32, 0, 0, NCL_VM_EXP_WIN_f32
#  if defined(__AVX512F__)
#    define NCL_VM_OWN_log_f32 ncl_vm_log_f32, ncl_vm_log_f32, 0, 0, NCL_VM_LOG_WIN_f32
#  else
#    define NCL_VM_OWN_log_f32 ncl_vm_log_f32, 0, 0, 0, NCL_VM_LOG_WIN_f32
#  endif
#  define NCL_VM_OWN_sin_f32 ncl_vm_sin_f32, ncl_vm_sin_fast_f32, NCL_VM_SIN_STAGES_f32, NCL_VM_TRIG_WIN_f32
#  define NCL_VM_OWN_cos_f32 ncl_vm_cos_f32, ncl_vm_cos_fast_f32, NCL_VM_COS_STAGES_f32, NCL_VM_TRIG_WIN_f32
#else
#  define NCL_VM_TRIG_FIX_f32 1, 0
#  define NCL_VM_TRIG_FIX_f64 1, 0
#  define NCL_VM_EXP_FIX_f64 NCL_SV_EXP_FIX_f64
#  define NCL_VM_OWN_exp_f64 0, 0, 0, 0, 0, 0, 0
#  define NCL_VM_OWN_log_f64 0, 0, 0, 0, 0, 0, 0
#  define NCL_VM_OWN_sin_f64 0, 0, 0, 0, 0, 0, 0
#  define NCL_VM_OWN_cos_f64 0, 0, 0, 0, 0, 0, 0
#  define NCL_VM_OWN_exp_f32 0, 0, 0, 0, 0, 0, 0
#  define NCL_VM_OWN_log_f32 0, 0, 0, 0, 0, 0, 0
#  define NCL_VM_OWN_sin_f32 0, 0, 0, 0, 0, 0, 0
#  define NCL_VM_OWN_cos_f32 0, 0, 0, 0, 0, 0, 0
#endif /* NCL_VM_F32 */

#endif /* NCL_UNARY_VECMATH_H */
