/*
 * unary_vecmath.h: NCLib's own vector exp, log, sin and cos on the AVX-512
 * and AVX2 + FMA levels, which unary_sleef.h's loops use in place of
 * SLEEF's functions where they are both within the tier's bound and faster
 * (the table at the end says which function serves which tier).
 *
 * float64: exp, log, sin, cos within about 0.8 ulp (HIGH tier, and FAST
 * where SLEEF's 3.5-ulp function is not quicker). Each reduction keeps the
 * reduced argument exact or carries its rounding error, and the one
 * rounding that counts is the last addition (see each function). FAST sin
 * and cos have their own cheaper scheme, within about 2.2 ulp.
 * float32: exp, log, sin, cos in float vectors (16 lanes on AVX-512) with
 * the same schemes as float64, within 0.85 ulp over all 2^32 inputs
 * (checked exhaustively on both levels). An earlier sin/cos evaluated in
 * double (two double vectors per float vector) was slower than SLEEF's.
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
#if defined(__AVX512F__)
    return _mm512_scalef_pd(p, k);
#else
    /* 2^k in two normal factors 2^k1 2^k2 (|k| <= 1077 does not fit one);
       the first product is exact, the second rounds once */
    const ncl_sv_f64 k1 = NCL_VM_RINT(NCL_VM_MUL(k, NCL_VM_D1(0.5)));
    const ncl_sv_f64 k2 = NCL_VM_SUB(k, k1);
    const ncl_vm_i64 b1 = NCL_VM_ISHL(NCL_VM_BITS(NCL_VM_ADD(k1, NCL_VM_D1(0x1.8p52))), 52);
    const ncl_vm_i64 b2 = NCL_VM_ISHL(NCL_VM_BITS(NCL_VM_ADD(k2, NCL_VM_D1(0x1.8p52))), 52);
    const ncl_vm_i64 bias = NCL_VM_I1(INT64_C(1023) << 52);
    return NCL_VM_MUL(NCL_VM_MUL(p, NCL_VM_FROMBITS(NCL_VM_IADD(b1, bias))), NCL_VM_FROMBITS(NCL_VM_IADD(b2, bias)));
#endif
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
#if defined(__AVX512F__)
    /* getmant/getexp read subnormal inputs at their true value; m in
       [1, 2) moved to [sqrt(1/2), sqrt(2)) */
    const ncl_sv_f64 m0 = _mm512_getmant_pd(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
    const __mmask8 big = _mm512_cmp_pd_mask(m0, NCL_VM_D1(0x1.6a09e667f3bcdp+0), _CMP_GT_OQ);
    const ncl_sv_f64 m = _mm512_mask_mul_pd(m0, big, m0, NCL_VM_D1(0.5));
    const ncl_sv_f64 e = _mm512_mask_add_pd(_mm512_getexp_pd(x), big, _mm512_getexp_pd(x), one);
#else
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
#endif
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
#if defined(__AVX512F__)
    if (_mm512_cmp_pd_mask(x, NCL_VM_D1(0.0), _CMP_LE_OQ) | _mm512_cmp_pd_mask(x, NCL_VM_D1(INFINITY), _CMP_NLT_UQ)) {
#else
    if (_mm256_movemask_pd(_mm256_or_pd(_mm256_cmp_pd(x, NCL_VM_D1(0.0), _CMP_LE_OQ),
                                        _mm256_cmp_pd(x, NCL_VM_D1(INFINITY), _CMP_NLT_UQ)))) {
#endif
        y = NCL_VM_DSEL(_CMP_LT_OQ, x, NCL_VM_D1(0.0), y, NCL_VM_D1(NAN));
        y = NCL_VM_DSEL(_CMP_EQ_OQ, x, NCL_VM_D1(0.0), y, NCL_VM_D1(-INFINITY));
        y = NCL_VM_DSEL(_CMP_NLT_UQ, x, NCL_VM_D1(INFINITY), y, NCL_VM_ADD(x, x));
    }
    return y;
}

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
#endif

/* ---- exp, float32 ----------------------------------------------------------
   As float64: k = rint(x / ln2), rh = x - k L1 exact (L1 = ln2 rounded to
   float: x - k L1 is a multiple of 2^-24 below 1/2 in magnitude, and FMA
   rounds it once), rl = -k L2; e^r = (1 + rh) + (rl + r^2 Q(r)) with 1 + rh
   carried with its error (Fast2Sum): within about 0.51 ulp before the
   scaling by 2^k, which rounds once (subnormal results included). x is
   clamped to [-104, 89] (NaN passes), beyond which the result is 0 or inf. */
static ncl_sv_f32 ncl_vm_exp_f32(ncl_sv_f32 x)
{
    x = NCL_VM_FMAX(NCL_VM_F1(-104.0f), NCL_VM_FMIN(NCL_VM_F1(89.0f), x));
    const ncl_sv_f32 k = NCL_VM_FRINT(NCL_VM_FMUL(x, NCL_VM_F1(0x1.715476p+0f)));
    const ncl_sv_f32 rh = NCL_VM_FFNMA(k, NCL_VM_F1(0x1.62e430p-1f), x);
    const ncl_sv_f32 rl = NCL_VM_FMUL(k, NCL_VM_F1(0x1.05c610p-29f));
    const ncl_sv_f32 r = NCL_VM_FADD(rh, rl);
    ncl_sv_f32 q = NCL_VM_FFMA(NCL_VM_F1(NCL_VM_EXPF_Q_C4), r, NCL_VM_F1(NCL_VM_EXPF_Q_C3));
    q = NCL_VM_FFMA(q, r, NCL_VM_F1(NCL_VM_EXPF_Q_C2));
    q = NCL_VM_FFMA(q, r, NCL_VM_F1(NCL_VM_EXPF_Q_C1));
    q = NCL_VM_FFMA(q, r, NCL_VM_F1(NCL_VM_EXPF_Q_C0));
    const ncl_sv_f32 tail = NCL_VM_FFMA(NCL_VM_FMUL(r, r), q, rl);
    const ncl_sv_f32 one = NCL_VM_F1(1.0f);
    const ncl_sv_f32 h = NCL_VM_FADD(one, rh);
    const ncl_sv_f32 c = NCL_VM_FADD(NCL_VM_FSUB(one, h), rh);
    const ncl_sv_f32 p = NCL_VM_FADD(h, NCL_VM_FADD(c, tail));
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
   x = m 2^e, m in [sqrt(1/2), sqrt(2)), f = m - 1 exact; log(1 + f) =
   f + T, T = f^2 (-1/2 + f P(f)), no division. With ln2 = L1 + L2 (e L1
   exact: L1 has 13 bits), e L1 + f is carried with its rounding error
   (Fast2Sum: |e L1| >= ln2 > |f|, or e = 0), so that the last addition is
   the one rounding at the result's scale; T's own error stays below 0.3
   ulp: within about 0.8 ulp. Zero, negative, inf and NaN inputs are
   blended in at the end. */
static ncl_sv_f32 ncl_vm_log_f32(ncl_sv_f32 x)
{
    const ncl_sv_f32 one = NCL_VM_F1(1.0f);
#if defined(__AVX512F__)
    const ncl_sv_f32 m0 = _mm512_getmant_ps(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
    const __mmask16 big = _mm512_cmp_ps_mask(m0, NCL_VM_F1(0x1.6a09e6p+0f), _CMP_GT_OQ);
    const ncl_sv_f32 m = _mm512_mask_mul_ps(m0, big, m0, NCL_VM_F1(0.5f));
    const ncl_sv_f32 e = _mm512_mask_add_ps(_mm512_getexp_ps(x), big, _mm512_getexp_ps(x), one);
#else
    /* subnormal inputs scaled by 2^23 first; e is the exponent of x / c,
       c = sqrt(1/2) rounded: the high bits of (x's bits - c's bits) */
    const __m256 sub = _mm256_cmp_ps(x, NCL_VM_F1(0x1p-126f), _CMP_LT_OQ);
    const __m256 xs = _mm256_blendv_ps(x, NCL_VM_FMUL(x, NCL_VM_F1(0x1p23f)), sub);
    const __m256i u = _mm256_sub_epi32(NCL_VM_FBITS(xs), NCL_VM_J1(0x3f3504f3));
    const ncl_sv_f32 e = NCL_VM_FSUB(_mm256_cvtepi32_ps(_mm256_srai_epi32(u, 23)),
                                     _mm256_and_ps(sub, NCL_VM_F1(23.0f)));
    const ncl_sv_f32 m = NCL_VM_FFROMBITS(
        _mm256_sub_epi32(NCL_VM_FBITS(xs), NCL_VM_JAND(u, NCL_VM_J1((int32_t)0xff800000u))));
#endif
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
#if defined(__AVX512F__)
    if (_mm512_cmp_ps_mask(x, NCL_VM_F1(0.0f), _CMP_LE_OQ) | _mm512_cmp_ps_mask(x, NCL_VM_F1(INFINITY), _CMP_NLT_UQ)) {
#else
    if (_mm256_movemask_ps(_mm256_or_ps(_mm256_cmp_ps(x, NCL_VM_F1(0.0f), _CMP_LE_OQ),
                                        _mm256_cmp_ps(x, NCL_VM_F1(INFINITY), _CMP_NLT_UQ)))) {
#endif
        y = NCL_VM_FSEL(_CMP_LT_OQ, x, NCL_VM_F1(0.0f), y, NCL_VM_F1(NAN));
        y = NCL_VM_FSEL(_CMP_EQ_OQ, x, NCL_VM_F1(0.0f), y, NCL_VM_F1(-INFINITY));
        y = NCL_VM_FSEL(_CMP_NLT_UQ, x, NCL_VM_F1(INFINITY), y, NCL_VM_FADD(x, x));
    }
    return y;
}

/* ---- sin, cos, float32 -----------------------------------------------------
   As float64 in float: n = rint(x 2/pi), pi/2 = P1 + P2 + P3; a = x - n P1
   exact (a multiple of 2^-24 or of x's ulp, below 1 in magnitude), n P2
   split exactly with FMA, a - n P2 - n P3 carried as rh + rl; sin
   and cos of rh + rl each rounded once at the end. |x| from 2^18 on, inf
   and NaN are in the desc's scalar range. */
NCL_KINLINE ncl_sv_f32 ncl_vm_sincos_f32(ncl_sv_f32 x, int32_t odd)
{
    const ncl_sv_f32 t = NCL_VM_FFMA(x, NCL_VM_F1(0x1.45f306p-1f), NCL_VM_F1(0x1.8p23f));
    const ncl_sv_f32 n = NCL_VM_FSUB(t, NCL_VM_F1(0x1.8p23f));
    const ncl_sv_f32 a = NCL_VM_FFNMA(n, NCL_VM_F1(0x1.921fb6p+0f), x);
    const ncl_sv_f32 bh = NCL_VM_FMUL(n, NCL_VM_F1(-0x1.777a5cp-25f));
    const ncl_sv_f32 bl = NCL_VM_FFMS(n, NCL_VM_F1(-0x1.777a5cp-25f), bh);
    /* Fast2Sum is exact here although |a| may be below |bh|: a is a
       multiple of 2^-24, hence of bh's ulp (|bh| < 2^-7) */
    const ncl_sv_f32 rh = NCL_VM_FSUB(a, bh);
    const ncl_sv_f32 err = NCL_VM_FSUB(NCL_VM_FSUB(a, rh), bh);
    const ncl_sv_f32 rl = NCL_VM_FFNMA(n, NCL_VM_F1(-0x1.ee59dap-50f), NCL_VM_FSUB(err, bl));
    const ncl_sv_f32 z = NCL_VM_FMUL(rh, rh);
    const ncl_sv_f32 h = NCL_VM_FMUL(z, NCL_VM_F1(0.5f));
    ncl_sv_f32 ps = NCL_VM_FFMA(NCL_VM_F1(NCL_VM_SINF_S_C3), z, NCL_VM_F1(NCL_VM_SINF_S_C2));
    ps = NCL_VM_FFMA(ps, z, NCL_VM_F1(NCL_VM_SINF_S_C1));
    ps = NCL_VM_FFMA(ps, z, NCL_VM_F1(NCL_VM_SINF_S_C0));
    const ncl_sv_f32 s = NCL_VM_FADD(rh, NCL_VM_FFMA(NCL_VM_FMUL(rh, z), ps, NCL_VM_FFNMA(h, rl, rl)));
    ncl_sv_f32 pc = NCL_VM_FFMA(NCL_VM_F1(NCL_VM_COSF_C_C3), z, NCL_VM_F1(NCL_VM_COSF_C_C2));
    pc = NCL_VM_FFMA(pc, z, NCL_VM_F1(NCL_VM_COSF_C_C1));
    pc = NCL_VM_FFMA(pc, z, NCL_VM_F1(NCL_VM_COSF_C_C0));
    const ncl_sv_f32 hl = NCL_VM_FMUL(NCL_VM_FFMS(rh, rh, z), NCL_VM_F1(0.5f));
    const ncl_sv_f32 one = NCL_VM_F1(1.0f);
    const ncl_sv_f32 w = NCL_VM_FSUB(one, h);
    const ncl_sv_f32 wl = NCL_VM_FSUB(NCL_VM_FSUB(NCL_VM_FSUB(one, w), h), NCL_VM_FFMA(rh, rl, hl));
    const ncl_sv_f32 c = NCL_VM_FADD(w, NCL_VM_FFMA(NCL_VM_FMUL(z, z), pc, wl));
    const ncl_vm_i32 q = NCL_VM_JADD(NCL_VM_FBITS(t), NCL_VM_J1(odd));
    ncl_sv_f32 y = NCL_VM_FSEL_ODD(s, c, q);
    y = NCL_VM_FFROMBITS(NCL_VM_JXOR(NCL_VM_FBITS(y), NCL_VM_JSHL(NCL_VM_JAND(q, NCL_VM_J1(2)), 30)));
    /* sin(-0) is -0, which rh + (...) loses */
    if (!odd) y = NCL_VM_FSEL(_CMP_EQ_OQ, x, NCL_VM_F1(0.0f), y, x);
    return y;
}
static ncl_sv_f32 ncl_vm_sin_f32(ncl_sv_f32 x) { return ncl_vm_sincos_f32(x, 0); }
static ncl_sv_f32 ncl_vm_cos_f32(ncl_sv_f32 x) { return ncl_vm_sincos_f32(x, 1); }

/* |x| from 2^18 on, inf and NaN: the scalar functions (unary_ops.h) */
#  define NCL_VM_TRIG_FIX_f32 UINT32_C(0x48800000), UINT32_C(0x7fffffff)
/* |x| from 2^20 on, inf and NaN: the scalar functions */
#  define NCL_VM_TRIG_FIX_f64 UINT64_C(0x4130000000000000), UINT64_C(0x7fffffffffffffff)
#  define NCL_VM_EXP_FIX_f64 NCL_SV_NONE_
/* Each function's (HIGH, FAST) pair for unary_sleef.h's table; 0 keeps
   SLEEF's function of that tier, where it is the faster of the two
   (measured: SLEEF's 3.5-ulp float64 log and float32 log, sin, cos beat
   ours) */
#  define NCL_VM_OWN_exp_f64 ncl_vm_exp_f64, ncl_vm_exp_f64
#  define NCL_VM_OWN_log_f64 ncl_vm_log_f64, 0
#  define NCL_VM_OWN_sin_f64 ncl_vm_sin_f64, ncl_vm_sin_fast_f64
#  define NCL_VM_OWN_cos_f64 ncl_vm_cos_f64, ncl_vm_cos_fast_f64
#  define NCL_VM_OWN_exp_f32 ncl_vm_exp_f32, ncl_vm_exp_f32
#  define NCL_VM_OWN_log_f32 ncl_vm_log_f32, 0
#  define NCL_VM_OWN_sin_f32 ncl_vm_sin_f32, 0
#  define NCL_VM_OWN_cos_f32 ncl_vm_cos_f32, 0
#else
#  define NCL_VM_TRIG_FIX_f32 1, 0
#  define NCL_VM_TRIG_FIX_f64 1, 0
#  define NCL_VM_EXP_FIX_f64 NCL_SV_EXP_FIX_f64
#  define NCL_VM_OWN_exp_f64 0, 0
#  define NCL_VM_OWN_log_f64 0, 0
#  define NCL_VM_OWN_sin_f64 0, 0
#  define NCL_VM_OWN_cos_f64 0, 0
#  define NCL_VM_OWN_exp_f32 0, 0
#  define NCL_VM_OWN_log_f32 0, 0
#  define NCL_VM_OWN_sin_f32 0, 0
#  define NCL_VM_OWN_cos_f32 0, 0
#endif /* NCL_VM_F32 */

#endif /* NCL_UNARY_VECMATH_H */
