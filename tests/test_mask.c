/*
 * test_mask.c: the Mask subsystem (NclMask: compress, put, nonzero, take)
 * through the public API.
 *
 * Each op runs over every dtype, memory layouts of every operand (C,
 * Fortran, sliced, reversed, misaligned; broadcast masks for put), mask
 * densities 0 %, 50 % and 100 %, empty and 0-d arrays and a length that
 * crosses the library's block size, and is compared with a reference
 * written here from the definition (element by element in C order). Then:
 * refusals, each with its status, a message naming what was wrong and the
 * output untouched; inputs that overlap the output (as if copied first);
 * allocation failures injected at every allocation of a call; the level-2
 * kernel chains (hookable per dtype, reached with the documented context);
 * FP flags of casts and RAISE mode.
 *
 * Agreement with NumPy over random cases is the differential suite's job
 * (tests/diff/diff_mask.py).
 */
#include "ncl_test.h"

/* ---- shapes, masks and references ------------------------------------------------ */

typedef struct shape_case {
    int nd;
    int64_t shape[3];
} shape_case;

/* 0-d, empty, one element, odd lengths, 2-d and 3-d, an empty axis in the
   middle, and a length that crosses several blocks of the library. */
static const shape_case shapes[] = {
    {0, {0}}, {1, {0}}, {1, {1}}, {1, {7}}, {2, {3, 5}}, {3, {2, 3, 4}}, {3, {3, 0, 2}},
    {1, {4103}},
};
#define NSHAPES ((int)(sizeof shapes / sizeof shapes[0]))

static const int densities[] = {0, 50, 100};

static size_t item(const NclArray *a) { return NclDTypeSize(NclArrayDType(a)); }

/* A C-contiguous bool mask, true with probability pct %. */
static NclArray *make_mask(int nd, const int64_t *shape, int pct, uint64_t *state)
{
    NclArray *m = ncl_test_new(NCL_BOOL, nd, shape);
    for (int64_t i = 0, n = NclArraySize(m); i < n; i++)
        ncl_test_set_u(m, i, pct >= 100 ? 1 : pct <= 0 ? 0 : ncl_test_rand(state) % 100 < (uint64_t)pct);
    return m;
}

/* Random values for dtype with some zeros; floats also get NaN and -0.0. */
static NclArray *make_values(NclDType dt, int nd, const int64_t *shape, uint64_t *state)
{
    NclArray *a = ncl_test_new(dt, nd, shape);
    ncl_test_fill_random(a, state, 100.0);
    for (int64_t i = 0, n = NclArraySize(a); i < n; i++) {
        const uint64_t r = ncl_test_rand(state) % 8;
        if (r == 0) ncl_test_set_u(a, i, 0);
        if ((dt == NCL_FLOAT32 || dt == NCL_FLOAT64) && r == 1) ncl_test_set_d(a, i, NAN);
        if ((dt == NCL_FLOAT32 || dt == NCL_FLOAT64) && r == 2) ncl_test_set_d(a, i, -0.0);
    }
    return a;
}

static int64_t count_true(const NclArray *m)
{
    int64_t c = 0;
    for (int64_t i = 0, n = NclArraySize(m); i < n; i++) c += ncl_test_get_u(m, i) != 0;
    return c;
}

/* a[mask] by definition: the elements whose mask is true, in C order. */
static NclArray *ref_compress(const NclArray *a, const NclArray *m)
{
    int64_t count = count_true(m), k = 0;
    NclArray *e = ncl_test_new(NclArrayDType(a), 1, &count);
    for (int64_t i = 0, n = NclArraySize(a); i < n; i++)
        if (ncl_test_get_u(m, i)) memcpy(ncl_test_ptr(e, k++), ncl_test_ptr(a, i), item(a));
    return e;
}

/* Truth as nonzero reads it: non-zero, NaN true, -0.0 false. */
static int truth(const NclArray *a, int64_t i)
{
    const NclDType dt = NclArrayDType(a);
    if (dt == NCL_FLOAT32 || dt == NCL_FLOAT64) {
        const double v = ncl_test_get_d(a, i);
        return v != 0.0 || v != v;
    }
    return ncl_test_get_u(a, i) != 0;
}

/* np.nonzero(a) stacked: (max(ndim, 1), count) int64. */
static NclArray *ref_nonzero(const NclArray *a)
{
    const int nd = NclArrayNDim(a);
    const int64_t *sh = NclArrayShape(a);
    int64_t count = 0;
    for (int64_t i = 0, n = NclArraySize(a); i < n; i++) count += truth(a, i);
    const int rows = nd > 0 ? nd : 1;
    NclArray *e = ncl_test_new(NCL_INT64, 2, NCL_DIMS(rows, count));
    int64_t col = 0;
    for (int64_t i = 0, n = NclArraySize(a); i < n; i++) {
        if (!truth(a, i)) continue;
        int64_t f = i;
        for (int d = rows - 1; d >= 0; d--) {
            const int64_t ext = nd > 0 ? sh[d] : 1;
            ncl_test_set_i(e, d * count + col, f % ext);
            f /= ext;
        }
        col++;
    }
    return e;
}

/* target[mask] = values by definition: the mask broadcast to the target,
   values taken in C order (one value for all when values has one), cast
   as C converts these small integers. */
static void ref_put(const NclArray *t, const NclArray *m, const NclArray *v)
{
    const int nd = NclArrayNDim(t);
    const int64_t *sh = NclArrayShape(t);
    const int one = NclArraySize(v) == 1;
    const int same = NclArrayDType(v) == NclArrayDType(t);
    int64_t j = 0;
    for (int64_t i = 0, n = NclArraySize(t); i < n; i++) {
        const char *mp = (const char *)NclArrayData(m) + ncl_test_broadcast_offset(m, nd, sh, i);
        if (!*mp) continue;
        const int64_t k = one ? 0 : j++;
        if (same)
            memcpy(ncl_test_ptr(t, i), ncl_test_ptr(v, k), item(t));
        else
            ncl_test_set_d(t, i, ncl_test_get_d(v, k));
    }
}

/* np.take(a, idx, axis) by definition; axis < 0 means the flattened array. */
static NclArray *ref_take(const NclArray *a, const NclArray *idx, int axis)
{
    const int flat = axis < 0;
    const int64_t asize = NclArraySize(a);
    const int and_ = flat ? 1 : NclArrayNDim(a);
    const int64_t *ash = flat ? &asize : NclArrayShape(a);
    const int ind = NclArrayNDim(idx);
    const int64_t *ish = NclArrayShape(idx);
    const int ax = flat ? 0 : axis;
    int64_t rsh[NCL_MAXDIMS];
    int rnd = 0;
    for (int d = 0; d < ax; d++) rsh[rnd++] = ash[d];
    for (int d = 0; d < ind; d++) rsh[rnd++] = ish[d];
    for (int d = ax + 1; d < and_; d++) rsh[rnd++] = ash[d];
    NclArray *e = ncl_test_new(NclArrayDType(a), rnd, rsh);
    const int64_t len = ash[ax];
    for (int64_t r = 0, n = NclArraySize(e); r < n; r++) {
        int64_t mi[NCL_MAXDIMS], f = r;
        for (int d = rnd - 1; d >= 0; d--) {
            mi[d] = f % rsh[d];
            f /= rsh[d];
        }
        int64_t j = 0;
        for (int d = 0; d < ind; d++) j = j * ish[d] + mi[ax + d];
        int64_t v = NclArrayDType(idx) == NCL_UINT64 ? (int64_t)ncl_test_get_u(idx, j)
                                                     : ncl_test_get_i(idx, j);
        if (v < 0) v += len;
        int64_t src = 0;
        for (int d = 0; d < and_; d++) {
            const int64_t c = d < ax ? mi[d] : d == ax ? v : mi[d - 1 + ind];
            src = src * ash[d] + c;
        }
        memcpy(ncl_test_ptr(e, r), ncl_test_ptr(a, src), item(a));
    }
    return e;
}

/* ---- calls ---------------------------------------------------------------------- */

static NclStatus mask_call(NclMaskOp op, const NclArray *a, const NclArray *b, NclArray **out,
                           NclCasting casting)
{
    NclParams p = NCL_PARAMS_INIT;
    p.casting = casting;
    return NclMask(op, a, b, out, &p);
}

static NclStatus take_call(const NclArray *a, const NclArray *idx, int axis, NclArray **out,
                           NclCasting casting)
{
    NclParams p = NCL_PARAMS_INIT;
    int axes[1] = {axis};
    p.casting = casting;
    if (axis != INT32_MIN) {
        p.axes = axes;
        p.naxes = 1;
    }
    return NclMask(NCL_MASK_TAKE, a, idx, out, &p);
}

/* ---- compress --------------------------------------------------------------------- */

START_TEST(t_compress_all)
{
    const NclDType dt = (NclDType)_i;
    uint64_t state = 0x1234u + (uint64_t)dt;
    for (int s = 0; s < NSHAPES; s++) {
        const shape_case *sc = &shapes[s];
        for (size_t di = 0; di < sizeof densities / sizeof densities[0]; di++) {
            NclArray *a0 = make_values(dt, sc->nd, sc->shape, &state);
            NclArray *m0 = make_mask(sc->nd, sc->shape, densities[di], &state);
            NclArray *want = ref_compress(a0, m0);
            const int64_t count = NclArraySize(want);
            for (int la = 0; la < NCL_TEST_NLAYOUTS; la++) {
                for (int lm = 0; lm < NCL_TEST_NLAYOUTS; lm++) {
                    NclArray *a = ncl_test_layout_of(a0, (ncl_test_layout)la);
                    NclArray *m = ncl_test_layout_of(m0, (ncl_test_layout)lm);
                    NclArray *got = NULL;
                    NCL_CHECK_OK(NclMask(NCL_MASK_COMPRESS, a, m, &got, NULL));
                    ck_assert_int_eq(NclArrayNDim(got), 1);
                    NCL_CHECK_ARRAYS_EQUAL(got, want);
                    NclArrayRelease(got);
                    /* a provided output, strided or misaligned */
                    NclArray *prov0 = ncl_test_new(dt, 1, &count);
                    NclArray *prov = ncl_test_layout_of(prov0, (ncl_test_layout)((la + lm) % NCL_TEST_NLAYOUTS));
                    got = prov;
                    NCL_CHECK_OK(NclMask(NCL_MASK_COMPRESS, a, m, &got, NULL));
                    ck_assert_ptr_eq(got, prov);
                    NCL_CHECK_ARRAYS_EQUAL(prov, want);
                    NclArrayRelease(prov);
                    NclArrayRelease(prov0);
                    NclArrayRelease(a);
                    NclArrayRelease(m);
                }
            }
            /* cast on the way out: float64 holds every value here */
            NclArray *got = ncl_test_new(NCL_FLOAT64, 1, &count);
            NCL_CHECK_OK(mask_call(NCL_MASK_COMPRESS, a0, m0, &got, NCL_CASTING_UNSAFE));
            NCL_CHECK_ARRAYS(got, want, NCL_TEST_ANY_DTYPE, 0);
            NclArrayRelease(got);
            /* params->dtype chooses an allocated result's dtype */
            NclParams p = NCL_PARAMS_INIT;
            p.dtype = NCL_FLOAT64;
            p.casting = NCL_CASTING_UNSAFE;
            got = NULL;
            NCL_CHECK_OK(NclMask(NCL_MASK_COMPRESS, a0, m0, &got, &p));
            ck_assert_int_eq(NclArrayDType(got), NCL_FLOAT64);
            NCL_CHECK_ARRAYS(got, want, NCL_TEST_ANY_DTYPE, 0);
            NclArrayRelease(got);
            NclArrayRelease(want);
            NclArrayRelease(a0);
            NclArrayRelease(m0);
        }
    }
}
END_TEST

/* Mask bytes other than 0 and 1 (wrapped foreign memory) read as true,
   whichever bit is set, in the tail and in the eight-at-a-time paths; a
   long run of false at the end. */
START_TEST(t_compress_mask_bytes)
{
    enum { N = 45 };
    double x[N];
    uint8_t mb[N];
    int64_t want_n = 0;
    double want_v[N];
    for (int i = 0; i < N; i++) {
        static const uint8_t pat[5] = {0x80, 0, 0x10, 0, 1};
        x[i] = i;
        mb[i] = i < N - 13 ? pat[i % 5] : 0;
        if (mb[i]) want_v[want_n++] = i;
    }
    NclArray *a = NULL, *m = NULL, *got = NULL;
    NCL_CHECK_OK(NclFromData(NCL_FLOAT64, 1, NCL_DIMS(N), NULL, x, 0, NULL, NULL, &a));
    NCL_CHECK_OK(NclFromData(NCL_BOOL, 1, NCL_DIMS(N), NULL, mb, 0, NULL, NULL, &m));
    NCL_CHECK_OK(NclMask(NCL_MASK_COMPRESS, a, m, &got, NULL));
    NclArray *want = ncl_test_new(NCL_FLOAT64, 1, &want_n);
    for (int64_t i = 0; i < want_n; i++) ncl_test_set_d(want, i, want_v[i]);
    NCL_CHECK_ARRAYS_EQUAL(got, want);
    NclArrayRelease(got);
    /* nonzero reads the same bytes the same way */
    got = NULL;
    NCL_CHECK_OK(NclMask(NCL_MASK_NONZERO, m, NULL, &got, NULL));
    ck_assert_int_eq(NclArrayShape(got)[1], want_n);
    for (int64_t i = 0; i < want_n; i++) ck_assert_int_eq(ncl_test_get_i(got, i), (int64_t)want_v[i]);
    NclArrayRelease(got);
    NclArrayRelease(want);
    NclArrayRelease(a);
    NclArrayRelease(m);
}
END_TEST

/* ---- put ------------------------------------------------------------------------------ */

typedef struct put_case {
    int tnd;
    int64_t tshape[3];
    int mnd;
    int64_t mshape[3];
} put_case;

static const put_case put_cases[] = {
    {0, {0}, 0, {0}},          {1, {7}, 1, {7}},          {1, {7}, 0, {0}},
    {2, {3, 5}, 2, {3, 5}},    {2, {3, 5}, 1, {5}},       {2, {3, 5}, 2, {3, 1}},
    {2, {3, 5}, 2, {1, 5}},    {3, {2, 3, 4}, 3, {2, 3, 4}}, {3, {2, 3, 4}, 2, {3, 1}},
    {3, {2, 0, 4}, 1, {4}},    {1, {4103}, 1, {4103}},
};
#define NPUT ((int)(sizeof put_cases / sizeof put_cases[0]))

START_TEST(t_put_all)
{
    const NclDType dt = (NclDType)_i;
    uint64_t state = 0x777u + (uint64_t)dt;
    for (int c = 0; c < NPUT; c++) {
        const put_case *pc = &put_cases[c];
        for (size_t di = 0; di < sizeof densities / sizeof densities[0]; di++) {
            NclArray *t0 = make_values(dt, pc->tnd, pc->tshape, &state);
            NclArray *m0 = make_mask(pc->mnd, pc->mshape, densities[di], &state);
            NclArray *mb = ncl_test_broadcast(m0, pc->tnd, pc->tshape);
            const int64_t count = count_true(mb);
            NclArrayRelease(mb);
            for (int variant = 0; variant < 4; variant++) {
                /* 0: as many values, same dtype; 1: the same reversed;
                   2: one value; 3: int16 values cast (unsafe) */
                NclArray *v0;
                if (variant == 2) {
                    v0 = make_values(dt, 1, NCL_DIMS(1), &state);
                } else if (variant == 3) {
                    v0 = ncl_test_new(NCL_INT16, 1, &count);
                    for (int64_t i = 0; i < count; i++)
                        ncl_test_set_i(v0, i, dt == NCL_BOOL ? (i % 2) : (int64_t)(i % 101));
                } else {
                    v0 = make_values(dt, 1, &count, &state);
                }
                NclArray *v = variant == 1 ? ncl_test_layout_of(v0, NCL_TEST_REVERSED)
                                           : ncl_test_clone(v0);
                for (int lt = 0; lt < NCL_TEST_NLAYOUTS; lt++) {
                    for (int lm = 0; lm < NCL_TEST_NLAYOUTS; lm += 2) {
                        NclArray *t = ncl_test_layout_of(t0, (ncl_test_layout)lt);
                        NclArray *m = ncl_test_layout_of(m0, (ncl_test_layout)lm);
                        NclArray *want = ncl_test_clone(t0);
                        ref_put(want, m0, v);
                        NclArray *out = t;
                        NCL_CHECK_OK(mask_call(NCL_MASK_PUT, m, v, &out,
                                               variant == 3 ? NCL_CASTING_UNSAFE
                                                            : NCL_CASTING_SAME_KIND));
                        ck_assert_ptr_eq(out, t);
                        NCL_CHECK_ARRAYS_EQUAL(t, want);
                        NclArrayRelease(want);
                        NclArrayRelease(t);
                        NclArrayRelease(m);
                    }
                }
                NclArrayRelease(v);
                NclArrayRelease(v0);
            }
            NclArrayRelease(t0);
            NclArrayRelease(m0);
        }
    }
}
END_TEST

/* Values shaped (2, n/2) with strides that do not merge: read in C order. */
START_TEST(t_put_values_shape)
{
    NclArray *t = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(8), 0);
    NclArray *m = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(8), 1, 0, 1, 1, 0, 1, 1, 1);
    NclArray *v0 = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(3, 2), 1, 2, 3, 4, 5, 6);
    NclArray *v = ncl_test_layout_of(v0, NCL_TEST_F);
    NclArray *out = t;
    NCL_CHECK_OK(NclMask(NCL_MASK_PUT, m, v, &out, NULL));
    NclArray *want = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(8), 1, 0, 2, 3, 0, 4, 5, 6);
    NCL_CHECK_ARRAYS_EQUAL(t, want);
    NclArrayRelease(want);
    NclArrayRelease(v);
    NclArrayRelease(v0);
    NclArrayRelease(m);
    NclArrayRelease(t);
}
END_TEST

/* ---- nonzero ----------------------------------------------------------------------------- */

START_TEST(t_nonzero_all)
{
    const NclDType dt = (NclDType)_i;
    uint64_t state = 0x99u + (uint64_t)dt;
    for (int s = 0; s < NSHAPES; s++) {
        const shape_case *sc = &shapes[s];
        for (size_t di = 0; di < sizeof densities / sizeof densities[0]; di++) {
            NclArray *a0 = make_values(dt, sc->nd, sc->shape, &state);
            if (densities[di] != 50) { /* all zero, or no zero at all */
                for (int64_t i = 0, n = NclArraySize(a0); i < n; i++)
                    ncl_test_set_u(a0, i, densities[di] ? (uint64_t)(i % 7 + 1) : 0);
            }
            NclArray *want = ref_nonzero(a0);
            for (int la = 0; la < NCL_TEST_NLAYOUTS; la++) {
                NclArray *a = ncl_test_layout_of(a0, (ncl_test_layout)la);
                NclArray *got = NULL;
                NCL_CHECK_OK(NclMask(NCL_MASK_NONZERO, a, NULL, &got, NULL));
                NCL_CHECK_ARRAYS_EQUAL(got, want);
                NclArrayRelease(got);
                NclArray *prov = ncl_test_layout_of(want, (ncl_test_layout)(la % 4));
                ncl_test_fill_random(prov, &state, 1);
                got = prov;
                NCL_CHECK_OK(NclMask(NCL_MASK_NONZERO, a, NULL, &got, NULL));
                NCL_CHECK_ARRAYS_EQUAL(prov, want);
                NclArrayRelease(prov);
                NclArrayRelease(a);
            }
            NclArrayRelease(want);
            NclArrayRelease(a0);
        }
    }
}
END_TEST

START_TEST(t_nonzero_pins)
{
    /* NaN is true, -0.0 is false; 0-d arrays give one row */
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(5), 0.0, NAN, -0.0, 2.5, -INFINITY);
    NclArray *got = NULL;
    NCL_CHECK_OK(NclMask(NCL_MASK_NONZERO, a, NULL, &got, NULL));
    NclArray *want = ncl_test_arr(NCL_INT64, 2, NCL_DIMS(1, 3), 1, 3, 4);
    NCL_CHECK_ARRAYS_EQUAL(got, want);
    ck_assert_int_eq(NclGetFPErrors(), 0);
    NclArrayRelease(got);
    NclArrayRelease(want);
    NclArrayRelease(a);

    NclArray *z = ncl_test_arr(NCL_INT32, 0, NULL, 7);
    got = NULL;
    NCL_CHECK_OK(NclMask(NCL_MASK_NONZERO, z, NULL, &got, NULL));
    want = ncl_test_arr(NCL_INT64, 2, NCL_DIMS(1, 1), 0);
    NCL_CHECK_ARRAYS_EQUAL(got, want);
    NclArrayRelease(got);
    NclArrayRelease(want);
    ncl_test_set_u(z, 0, 0);
    got = NULL;
    NCL_CHECK_OK(NclMask(NCL_MASK_NONZERO, z, NULL, &got, NULL));
    ck_assert_int_eq(NclArrayNDim(got), 2);
    ck_assert_int_eq(NclArrayShape(got)[0], 1);
    ck_assert_int_eq(NclArrayShape(got)[1], 0);
    NclArrayRelease(got);
    NclArrayRelease(z);
}
END_TEST

/* ---- take ------------------------------------------------------------------------------- */

static const NclDType index_dtypes[] = {NCL_INT8, NCL_INT16, NCL_INT32, NCL_INT64,
                                        NCL_UINT8, NCL_UINT16, NCL_UINT32, NCL_UINT64};

static NclArray *make_indices(NclDType idt, int nd, const int64_t *shape, int64_t len,
                              uint64_t *state)
{
    NclArray *ix = ncl_test_new(idt, nd, shape);
    const int is_signed = idt == NCL_INT8 || idt == NCL_INT16 || idt == NCL_INT32 || idt == NCL_INT64;
    for (int64_t i = 0, n = NclArraySize(ix); i < n; i++) {
        const int64_t r = (int64_t)(ncl_test_rand(state) % (uint64_t)(is_signed ? 2 * len : len));
        ncl_test_set_i(ix, i, is_signed ? r - len : r);
    }
    return ix;
}

START_TEST(t_take_all)
{
    const NclDType dt = (NclDType)_i;
    uint64_t state = 0x5151u + (uint64_t)dt;
    static const shape_case ashapes[] = {{0, {0}}, {1, {6}}, {2, {3, 4}}, {3, {2, 3, 4}}};
    static const shape_case ishapes[] = {{0, {0}}, {1, {5}}, {2, {2, 3}}, {1, {0}}};
    for (size_t s = 0; s < sizeof ashapes / sizeof ashapes[0]; s++) {
        const shape_case *as = &ashapes[s];
        NclArray *a0 = make_values(dt, as->nd, as->shape, &state);
        for (int axis = -2; axis < as->nd; axis++) { /* -2: flattened; -1: last axis */
            if (axis == -1 && as->nd == 0) continue;
            const int flat = axis == -2;
            const int ax = flat ? -1 : axis < 0 ? axis + as->nd : axis;
            const int64_t len = flat ? NclArraySize(a0) : as->shape[ax];
            for (size_t k = 0; k < sizeof index_dtypes / sizeof index_dtypes[0]; k++) {
                for (size_t is = 0; is < sizeof ishapes / sizeof ishapes[0]; is++) {
                    const shape_case *ic = &ishapes[is];
                    NclArray *ix0 = make_indices(index_dtypes[k], ic->nd, ic->shape, len, &state);
                    NclArray *want = ref_take(a0, ix0, ax);
                    for (int la = 0; la < NCL_TEST_NLAYOUTS; la++) {
                        NclArray *a = ncl_test_layout_of(a0, (ncl_test_layout)la);
                        NclArray *ix = ncl_test_layout_of(ix0, (ncl_test_layout)((la + (int)k) % NCL_TEST_NLAYOUTS));
                        NclArray *got = NULL;
                        NCL_CHECK_OK(take_call(a, ix, flat ? INT32_MIN : axis, &got,
                                               NCL_CASTING_SAME_KIND));
                        NCL_CHECK_ARRAYS_EQUAL(got, want);
                        NclArrayRelease(got);
                        NclArray *prov = ncl_test_layout_of(want, (ncl_test_layout)((la + 1) % NCL_TEST_NLAYOUTS));
                        got = prov;
                        NCL_CHECK_OK(take_call(a, ix, flat ? INT32_MIN : axis, &got,
                                               NCL_CASTING_SAME_KIND));
                        NCL_CHECK_ARRAYS_EQUAL(prov, want);
                        NclArrayRelease(prov);
                        NclArrayRelease(ix);
                        NclArrayRelease(a);
                    }
                    /* cast on the way out */
                    NclArray *cast = ncl_test_new(NCL_FLOAT64, NclArrayNDim(want), NclArrayShape(want));
                    NclArray *got = cast;
                    NCL_CHECK_OK(take_call(a0, ix0, flat ? INT32_MIN : axis, &got,
                                           NCL_CASTING_UNSAFE));
                    NCL_CHECK_ARRAYS(cast, want, NCL_TEST_ANY_DTYPE, 0);
                    NclArrayRelease(cast);
                    NclArrayRelease(want);
                    NclArrayRelease(ix0);
                }
            }
        }
        NclArrayRelease(a0);
    }
}
END_TEST

/* Rows longer than a block, cast block by block; many indices. */
START_TEST(t_take_long)
{
    uint64_t state = 42;
    NclArray *a = make_values(NCL_FLOAT64, 2, NCL_DIMS(3, 1500), &state);
    NclArray *ix = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(4), 2, 0, -1, 1);
    NclArray *want = ref_take(a, ix, 0);
    NclArray *got = ncl_test_new(NCL_FLOAT32, 2, NCL_DIMS(4, 1500));
    NclArray *out = got;
    NCL_CHECK_OK(take_call(a, ix, 0, &out, NCL_CASTING_SAME_KIND));
    NclArray *want32 = ncl_test_new(NCL_FLOAT32, 2, NCL_DIMS(4, 1500));
    for (int64_t i = 0; i < NclArraySize(want); i++) ncl_test_set_d(want32, i, ncl_test_get_d(want, i));
    NCL_CHECK_ARRAYS_EQUAL(got, want32);
    NclArrayRelease(want32);
    NclArrayRelease(got);
    NclArrayRelease(want);
    NclArrayRelease(ix);

    NclArray *many = make_indices(NCL_INT64, 1, NCL_DIMS(5000), 4500, &state);
    want = ref_take(a, many, -1);
    got = NULL;
    NCL_CHECK_OK(take_call(a, many, INT32_MIN, &got, NCL_CASTING_SAME_KIND));
    NCL_CHECK_ARRAYS_EQUAL(got, want);
    NclArrayRelease(got);
    NclArrayRelease(want);
    NclArrayRelease(many);
    NclArrayRelease(a);
}
END_TEST

/* ---- refusals ------------------------------------------------------------------------- */

/* The call must fail with st, leave a message containing every text given
   (NULL-terminated), and leave *out as it was. */
static void expect_refusal(NclStatus got, NclStatus st, const char *const *texts)
{
    ck_assert_msg(got == st, "status %s, expected %s (%s)", NclStatusString(got),
                  NclStatusString(st), NclLastError());
    for (int i = 0; texts[i]; i++) NCL_CHECK_MESSAGE_HAS(texts[i]);
}
#define REFUSED(call, st, ...) expect_refusal((call), (st), (const char *const[]){__VA_ARGS__, NULL})

START_TEST(t_bad_null_and_op)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), 1, 2, 3);
    NclArray *m = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(3), 1, 0, 1);
    NclArray *out = NULL;
    REFUSED(NclMask(NCL_MASK_COMPRESS, NULL, m, &out, NULL), NCL_ERR_INVALID_ARGUMENT,
            "NclMask(compress)", "input a");
    REFUSED(NclMask(NCL_MASK_COMPRESS, a, NULL, &out, NULL), NCL_ERR_INVALID_ARGUMENT,
            "NclMask(compress)", "input b");
    REFUSED(NclMask(NCL_MASK_TAKE, a, NULL, &out, NULL), NCL_ERR_INVALID_ARGUMENT,
            "NclMask(take)", "indices");
    REFUSED(NclMask(NCL_MASK_PUT, NULL, a, &out, NULL), NCL_ERR_INVALID_ARGUMENT,
            "NclMask(put)", "mask");
    REFUSED(NclMask(NCL_MASK_COMPRESS, a, m, NULL, NULL), NCL_ERR_INVALID_ARGUMENT,
            "out pointer");
    REFUSED(NclMask(NCL_MASK_NONZERO, a, m, &out, NULL), NCL_ERR_INVALID_ARGUMENT,
            "NclMask(nonzero)", "input b must be NULL");
    REFUSED(NclMask((NclMaskOp)-1, a, m, &out, NULL), NCL_ERR_INVALID_ARGUMENT, "unknown op -1");
    REFUSED(NclMask(NCL_MASK_NOPS, a, m, &out, NULL), NCL_ERR_INVALID_ARGUMENT, "unknown op 5");
    REFUSED(NclMask(NCL_MASK_PUT, m, a, &out, NULL), NCL_ERR_INVALID_ARGUMENT, "NclMask(put)",
            "target");
    ck_assert_ptr_null(out);

    NclParams p = NCL_PARAMS_INIT;
    p.where = m;
    REFUSED(NclMask(NCL_MASK_COMPRESS, a, m, &out, &p), NCL_ERR_INVALID_ARGUMENT, "where");
    p = (NclParams)NCL_PARAMS_INIT;
    int axes[1] = {0};
    p.axes = axes;
    p.naxes = 1;
    REFUSED(NclMask(NCL_MASK_NONZERO, a, NULL, &out, &p), NCL_ERR_INVALID_ARGUMENT, "axes");
    p = (NclParams)NCL_PARAMS_INIT;
    p.size = 4;
    REFUSED(NclMask(NCL_MASK_COMPRESS, a, m, &out, &p), NCL_ERR_INVALID_ARGUMENT, "params->size");
    p = (NclParams)NCL_PARAMS_INIT;
    p.casting = (NclCasting)9;
    REFUSED(NclMask(NCL_MASK_COMPRESS, a, m, &out, &p), NCL_ERR_INVALID_ARGUMENT, "casting");
    ck_assert_ptr_null(out);
    NclArrayRelease(a);
    NclArrayRelease(m);
}
END_TEST

START_TEST(t_bad_compress)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(2, 3), 1, 2, 3, 4, 5, 6);
    NclArray *m = ncl_test_arr(NCL_BOOL, 2, NCL_DIMS(2, 3), 1, 0, 1, 0, 1, 1);
    NclArray *m_short = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(3), 1, 0, 1);
    NclArray *m_int = ncl_test_arr(NCL_UINT8, 2, NCL_DIMS(2, 3), 1, 0, 1, 0, 1, 1);
    NclArray *out = NULL;
    REFUSED(NclMask(NCL_MASK_COMPRESS, a, m_short, &out, NULL), NCL_ERR_SHAPE, "(3,)", "(2,3)");
    REFUSED(NclMask(NCL_MASK_COMPRESS, a, m_int, &out, NULL), NCL_ERR_DTYPE, "bool", "uint8");
    ck_assert_ptr_null(out);

    /* provided outputs stay untouched */
    NclArray *wrong = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), 9, 9, 9);
    NclArray *right_i32 = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(4), 9, 9, 9, 9);
    NclArray *ro = NULL;
    double ro_mem[4] = {9, 9, 9, 9};
    NCL_CHECK_OK(NclFromData(NCL_FLOAT64, 1, NCL_DIMS(4), NULL, ro_mem, 0, NULL, NULL, &ro));
    const uint64_t hw = ncl_test_hash(wrong), hi = ncl_test_hash(right_i32), hr = ncl_test_hash(ro);
    out = wrong;
    REFUSED(NclMask(NCL_MASK_COMPRESS, a, m, &out, NULL), NCL_ERR_SHAPE, "(3,)", "(4,)", "4 true");
    ck_assert_ptr_eq(out, wrong);
    out = right_i32;
    REFUSED(NclMask(NCL_MASK_COMPRESS, a, m, &out, NULL), NCL_ERR_CASTING, "float64", "int32",
            "same_kind");
    out = ro;
    REFUSED(NclMask(NCL_MASK_COMPRESS, a, m, &out, NULL), NCL_ERR_READONLY, "read-only");
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = NCL_FLOAT32;
    out = wrong;
    REFUSED(NclMask(NCL_MASK_COMPRESS, a, m, &out, &p), NCL_ERR_DTYPE, "float32", "float64");
    ck_assert(ncl_test_hash(wrong) == hw && ncl_test_hash(right_i32) == hi &&
              ncl_test_hash(ro) == hr);

    /* device memory anywhere */
    double dev_mem[6] = {0};
    NclArray *dev = NULL, *devm = NULL;
    NCL_CHECK_OK(NclFromDataKind(NCL_FLOAT64, 2, NCL_DIMS(2, 3), NULL, dev_mem, NCL_ARRAY_WRITEABLE,
                                 NULL, NULL, NCL_MEM_DEVICE, 3, &dev));
    NCL_CHECK_OK(NclFromDataKind(NCL_BOOL, 2, NCL_DIMS(2, 3), NULL, dev_mem, 0, NULL, NULL,
                                 NCL_MEM_DEVICE, 3, &devm));
    out = NULL;
    REFUSED(NclMask(NCL_MASK_COMPRESS, dev, m, &out, NULL), NCL_ERR_DEVICE_MEMORY, "input a",
            "device 3");
    REFUSED(NclMask(NCL_MASK_COMPRESS, a, devm, &out, NULL), NCL_ERR_DEVICE_MEMORY, "input b");
    NclArray *devo = NULL;
    NCL_CHECK_OK(NclFromDataKind(NCL_FLOAT64, 1, NCL_DIMS(4), NULL, dev_mem, NCL_ARRAY_WRITEABLE,
                                 NULL, NULL, NCL_MEM_DEVICE, 1, &devo));
    out = devo;
    REFUSED(NclMask(NCL_MASK_COMPRESS, a, m, &out, NULL), NCL_ERR_DEVICE_MEMORY, "output");
    out = NULL;
    REFUSED(NclMask(NCL_MASK_NONZERO, dev, NULL, &out, NULL), NCL_ERR_DEVICE_MEMORY, "input a");
    ck_assert_ptr_null(out);
    NclArrayRelease(devo);
    NclArrayRelease(dev);
    NclArrayRelease(devm);
    NclArrayRelease(ro);
    NclArrayRelease(wrong);
    NclArrayRelease(right_i32);
    NclArrayRelease(m_int);
    NclArrayRelease(m_short);
    NclArrayRelease(m);
    NclArrayRelease(a);
}
END_TEST

START_TEST(t_bad_put)
{
    NclArray *t = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 3), 1, 2, 3, 4, 5, 6);
    NclArray *m = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(3), 1, 0, 1); /* 4 true over t */
    NclArray *m_bad = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(2), 1, 0);
    NclArray *m_int = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(3), 1, 0, 1);
    NclArray *v3 = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(3), 7, 8, 9);
    NclArray *v4f = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(4), 7, 8, 9, 10);
    NclArray *v0 = ncl_test_new(NCL_INT32, 1, NCL_DIMS(0));
    const uint64_t h = ncl_test_hash(t);
    NclArray *out = t;
    REFUSED(NclMask(NCL_MASK_PUT, m, v3, &out, NULL), NCL_ERR_SHAPE, "3 values", "4 true");
    REFUSED(NclMask(NCL_MASK_PUT, m, v0, &out, NULL), NCL_ERR_SHAPE, "0 values", "4 true");
    REFUSED(NclMask(NCL_MASK_PUT, m_bad, v3, &out, NULL), NCL_ERR_BROADCAST, "(2,)", "(2,3)");
    REFUSED(NclMask(NCL_MASK_PUT, m_int, v3, &out, NULL), NCL_ERR_DTYPE, "bool", "int8");
    REFUSED(NclMask(NCL_MASK_PUT, m, v4f, &out, NULL), NCL_ERR_CASTING, "float64", "int32",
            "same_kind");
    ck_assert_ptr_eq(out, t);
    ck_assert(ncl_test_hash(t) == h);

    int32_t ro_mem[6] = {0};
    NclArray *ro = NULL;
    NCL_CHECK_OK(NclFromData(NCL_INT32, 2, NCL_DIMS(2, 3), NULL, ro_mem, 0, NULL, NULL, &ro));
    out = ro;
    REFUSED(NclMask(NCL_MASK_PUT, m, v3, &out, NULL), NCL_ERR_READONLY, "target", "read-only");
    NclArray *bc = ncl_test_broadcast(v3, 2, NCL_DIMS(2, 3)); /* read-only view */
    out = bc;
    REFUSED(NclMask(NCL_MASK_PUT, m, v3, &out, NULL), NCL_ERR_READONLY, "read-only");
    /* a writeable target whose elements share memory */
    NclArray *alias = NULL;
    NCL_CHECK_OK(NclFromData(NCL_INT32, 2, NCL_DIMS(2, 3), NCL_DIMS(0, 4), ro_mem,
                             NCL_ARRAY_WRITEABLE, NULL, NULL, &alias));
    out = alias;
    REFUSED(NclMask(NCL_MASK_PUT, m, v3, &out, NULL), NCL_ERR_INVALID_ARGUMENT, "internal overlap");
    int32_t dev_mem[6];
    NclArray *dev = NULL;
    NCL_CHECK_OK(NclFromDataKind(NCL_INT32, 2, NCL_DIMS(2, 3), NULL, dev_mem, NCL_ARRAY_WRITEABLE,
                                 NULL, NULL, NCL_MEM_DEVICE, 0, &dev));
    out = dev;
    REFUSED(NclMask(NCL_MASK_PUT, m, v3, &out, NULL), NCL_ERR_DEVICE_MEMORY, "target");
    out = t;
    REFUSED(NclMask(NCL_MASK_PUT, m, dev, &out, NULL), NCL_ERR_DEVICE_MEMORY, "values");
    ck_assert(ncl_test_hash(t) == h);
    NclArrayRelease(dev);
    NclArrayRelease(alias);
    NclArrayRelease(bc);
    NclArrayRelease(ro);
    NclArrayRelease(v0);
    NclArrayRelease(v4f);
    NclArrayRelease(v3);
    NclArrayRelease(m_int);
    NclArrayRelease(m_bad);
    NclArrayRelease(m);
    NclArrayRelease(t);
}
END_TEST

START_TEST(t_bad_nonzero)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT32, 2, NCL_DIMS(2, 2), 1, 0, 0, 3);
    NclArray *o32 = ncl_test_new(NCL_INT32, 2, NCL_DIMS(2, 2));
    NclArray *o_shape = ncl_test_new(NCL_INT64, 2, NCL_DIMS(2, 3));
    const uint64_t h = ncl_test_hash(o_shape);
    NclArray *out = o32;
    REFUSED(NclMask(NCL_MASK_NONZERO, a, NULL, &out, NULL), NCL_ERR_DTYPE, "int64", "int32");
    out = o_shape;
    REFUSED(NclMask(NCL_MASK_NONZERO, a, NULL, &out, NULL), NCL_ERR_SHAPE, "(2,3)", "(2,2)");
    ck_assert(ncl_test_hash(o_shape) == h);
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = NCL_INT32;
    out = NULL;
    REFUSED(NclMask(NCL_MASK_NONZERO, a, NULL, &out, &p), NCL_ERR_DTYPE, "int32");
    ck_assert_ptr_null(out);
    NclArrayRelease(o_shape);
    NclArrayRelease(o32);
    NclArrayRelease(a);
}
END_TEST

START_TEST(t_bad_take)
{
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 2, NCL_DIMS(3, 4), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    NclArray *out = NULL;
    /* one bad index at the very end of a long index array: nothing written */
    NclArray *ix = ncl_test_new(NCL_INT64, 1, NCL_DIMS(10000));
    ncl_test_set_i(ix, 9999, 12);
    NclArray *prov = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(10000), 5);
    const uint64_t h = ncl_test_hash(prov);
    out = prov;
    REFUSED(take_call(a, ix, INT32_MIN, &out, NCL_CASTING_SAME_KIND), NCL_ERR_INDEX, "index 12",
            "position 9999", "size 12");
    ck_assert(ncl_test_hash(prov) == h);
    out = NULL;
    REFUSED(take_call(a, ix, INT32_MIN, &out, NCL_CASTING_SAME_KIND), NCL_ERR_INDEX, "index 12");
    ck_assert_ptr_null(out);
    NclArray *neg = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(3), 0, -5, 1);
    REFUSED(take_call(a, neg, 1, &out, NCL_CASTING_SAME_KIND), NCL_ERR_INDEX, "index -5",
            "position 1", "axis 1", "size 4");
    REFUSED(take_call(a, neg, -2, &out, NCL_CASTING_SAME_KIND), NCL_ERR_INDEX, "index -5",
            "axis 0", "size 3");
    NclArray *huge = ncl_test_arr_uint(NCL_UINT64, 1, NCL_DIMS(2), 1, UINT64_MAX);
    REFUSED(take_call(a, huge, INT32_MIN, &out, NCL_CASTING_SAME_KIND), NCL_ERR_INDEX,
            "18446744073709551615", "position 1");
    NclArray *fidx = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(1), 0);
    NclArray *bidx = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(1), 1);
    REFUSED(take_call(a, fidx, INT32_MIN, &out, NCL_CASTING_SAME_KIND), NCL_ERR_DTYPE, "float64");
    REFUSED(take_call(a, bidx, INT32_MIN, &out, NCL_CASTING_SAME_KIND), NCL_ERR_DTYPE, "bool");
    NclArray *ok = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(2), 0, 1);
    REFUSED(take_call(a, ok, 2, &out, NCL_CASTING_SAME_KIND), NCL_ERR_AXIS, "axis 2", "dimension 2");
    REFUSED(take_call(a, ok, -3, &out, NCL_CASTING_SAME_KIND), NCL_ERR_AXIS, "axis -3");
    NclParams p = NCL_PARAMS_INIT;
    int axes[2] = {0, 1};
    p.axes = axes;
    p.naxes = 2;
    REFUSED(NclMask(NCL_MASK_TAKE, a, ok, &out, &p), NCL_ERR_AXIS, "naxes");
    NclArray *zd = ncl_test_arr(NCL_FLOAT64, 0, NULL, 1);
    REFUSED(take_call(zd, ok, 0, &out, NCL_CASTING_SAME_KIND), NCL_ERR_AXIS, "dimension 0");
    NclArray *empty = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(2, 0));
    REFUSED(take_call(empty, ok, 1, &out, NCL_CASTING_SAME_KIND), NCL_ERR_INDEX, "size 0");
    ck_assert_ptr_null(out);
    /* wrong output shape / cast / read-only */
    NclArray *o_shape = ncl_test_new(NCL_FLOAT64, 2, NCL_DIMS(3, 3));
    out = o_shape;
    REFUSED(take_call(a, ok, 1, &out, NCL_CASTING_SAME_KIND), NCL_ERR_SHAPE, "(3,3)", "(3,2)");
    NclArray *o_i32 = ncl_test_new(NCL_INT32, 2, NCL_DIMS(3, 2));
    out = o_i32;
    REFUSED(take_call(a, ok, 1, &out, NCL_CASTING_SAME_KIND), NCL_ERR_CASTING, "int32");
    NclArrayRelease(o_i32);
    NclArrayRelease(o_shape);
    NclArrayRelease(empty);
    NclArrayRelease(zd);
    NclArrayRelease(ok);
    NclArrayRelease(bidx);
    NclArrayRelease(fidx);
    NclArrayRelease(huge);
    NclArrayRelease(neg);
    NclArrayRelease(prov);
    NclArrayRelease(ix);
    NclArrayRelease(a);
}
END_TEST

/* ---- overlap: results as if the inputs were copied first ------------------------------ */

START_TEST(t_overlap)
{
    /* put: the values are the target read backwards */
    NclArray *t = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(10), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    NclArray *m = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(10), 1, 0, 1, 0, 1, 0, 1, 0, 1, 0);
    NclArray *vals = NULL;
    NCL_CHECK_OK(NclArraySlice(t, NCL_DIMS(INT64_MIN), NCL_DIMS(INT64_MIN), NCL_DIMS(-2), &vals));
    NclArray *vcopy = ncl_test_clone(vals);
    NclArray *want = ncl_test_clone(t);
    ref_put(want, m, vcopy);
    NclArray *out = t;
    NCL_CHECK_OK(NclMask(NCL_MASK_PUT, m, vals, &out, NULL));
    NCL_CHECK_ARRAYS_EQUAL(t, want);
    NclArrayRelease(want);
    NclArrayRelease(vcopy);
    NclArrayRelease(vals);

    /* put: a bool target that is its own mask */
    NclArray *b = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(6), 1, 0, 1, 1, 0, 1);
    NclArray *bv = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(4), 0, 0, 1, 0);
    NclArray *bm = ncl_test_clone(b);
    want = ncl_test_clone(b);
    ref_put(want, bm, bv);
    out = b;
    NCL_CHECK_OK(NclMask(NCL_MASK_PUT, b, bv, &out, NULL));
    NCL_CHECK_ARRAYS_EQUAL(b, want);
    NclArrayRelease(want);
    NclArrayRelease(bm);
    NclArrayRelease(bv);
    NclArrayRelease(b);

    /* compress into a window of its own data */
    NclArray *a = ncl_test_new(NCL_INT32, 1, NCL_DIMS(20));
    for (int i = 0; i < 20; i++) ncl_test_set_i(a, i, i);
    NclArray *mm = ncl_test_new(NCL_BOOL, 1, NCL_DIMS(20));
    for (int i = 10; i < 20; i++) ncl_test_set_u(mm, i, 1);
    want = ref_compress(a, mm);
    NclArray *win = NULL;
    NCL_CHECK_OK(NclArraySlice(a, NCL_DIMS(5), NCL_DIMS(15), NULL, &win));
    out = win;
    NCL_CHECK_OK(NclMask(NCL_MASK_COMPRESS, a, mm, &out, NULL));
    NCL_CHECK_ARRAYS_EQUAL(win, want);
    NclArrayRelease(want);
    NclArrayRelease(win);

    /* take into its own indices */
    NclArray *ix = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(4), 3, 2, 1, 0);
    NclArray *src = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(4), 10, 20, 30, 40);
    out = ix;
    NCL_CHECK_OK(take_call(src, ix, INT32_MIN, &out, NCL_CASTING_SAME_KIND));
    want = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(4), 40, 30, 20, 10);
    NCL_CHECK_ARRAYS_EQUAL(ix, want);
    NclArrayRelease(want);
    /* take into its own data */
    NclArray *idx2 = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(5), 9, 8, 7, 6, 5);
    want = ref_take(a, idx2, -1);
    NCL_CHECK_OK(NclArraySlice(a, NCL_DIMS(2), NCL_DIMS(7), NULL, &win));
    out = win;
    NCL_CHECK_OK(take_call(a, idx2, INT32_MIN, &out, NCL_CASTING_SAME_KIND));
    NCL_CHECK_ARRAYS_EQUAL(win, want);
    NclArrayRelease(want);
    NclArrayRelease(win);
    NclArrayRelease(idx2);

    /* nonzero into memory it reads */
    NclArray *nz = ncl_test_arr(NCL_INT64, 2, NCL_DIMS(1, 4), 0, 5, 0, 7);
    NclArray *nzout = NULL; /* (1, 2): over the first two elements it reads */
    NCL_CHECK_OK(NclArraySlice(nz, NULL, NCL_DIMS(INT64_MIN, 2), NULL, &nzout));
    out = nzout;
    NclArray *a1 = NULL;
    NCL_CHECK_OK(NclArrayReshape(nz, 1, NCL_DIMS(4), &a1));
    NclArray *want1 = ref_nonzero(a1);
    NCL_CHECK_OK(NclMask(NCL_MASK_NONZERO, a1, NULL, &out, NULL));
    NCL_CHECK_ARRAYS_EQUAL(nzout, want1);
    NclArrayRelease(want1);
    NclArrayRelease(a1);
    NclArrayRelease(nzout);
    NclArrayRelease(nz);
    NclArrayRelease(src);
    NclArrayRelease(ix);
    NclArrayRelease(mm);
    NclArrayRelease(a);
    NclArrayRelease(m);
    NclArrayRelease(t);
}
END_TEST

/* ---- fault injection ---------------------------------------------------------------- */

enum { FI_COMPRESS, FI_COMPRESS_OVERLAP, FI_NONZERO, FI_TAKE, FI_TAKE_FLAT_COPY, FI_PUT_OVERLAP,
       FI_COUNT };
static const char *const fi_names[FI_COUNT] = {
    "compress", "compress into its own data", "nonzero", "take", "take of a non-contiguous flat array",
    "put with overlap copies"};

typedef struct fi_ctx {
    NclArray *a, *m, *ix, *target, *view, *want;
} fi_ctx;

static void fi_setup(int which, fi_ctx *c)
{
    uint64_t state = 7;
    memset(c, 0, sizeof *c);
    c->a = make_values(NCL_FLOAT64, 2, NCL_DIMS(40, 25), &state);
    c->m = make_mask(2, NCL_DIMS(40, 25), 50, &state);
    c->ix = make_indices(NCL_INT16, 1, NCL_DIMS(300), 25, &state);
    switch (which) {
    case FI_COMPRESS: c->want = ref_compress(c->a, c->m); break;
    case FI_COMPRESS_OVERLAP: {
        NclArray *flat = NULL;
        NCL_CHECK_OK(NclArrayReshape(c->a, 1, NCL_DIMS(1000), &flat));
        NclArray *want = ref_compress(c->a, c->m);
        const int64_t n = NclArraySize(want);
        NCL_CHECK_OK(NclArraySlice(flat, NCL_DIMS(1000 - n), NCL_DIMS(1000), NULL, &c->view));
        c->want = want;
        NclArrayRelease(flat);
        break;
    }
    case FI_NONZERO: c->want = ref_nonzero(c->m); break;
    case FI_TAKE: c->want = ref_take(c->a, c->ix, 1); break;
    case FI_TAKE_FLAT_COPY: {
        NclArray *fa = ncl_test_layout_of(c->a, NCL_TEST_F);
        NclArrayRelease(c->a);
        c->a = fa;
        NclArrayRelease(c->ix);
        c->ix = make_indices(NCL_UINT16, 1, NCL_DIMS(300), 1000, &state);
        c->want = ref_take(c->a, c->ix, -1);
        break;
    }
    default: { /* put: values and mask are views of the target */
        c->target = ncl_test_arr(NCL_UINT8, 1, NCL_DIMS(64), 0);
        for (int i = 0; i < 64; i++) ncl_test_set_u(c->target, i, (uint64_t)(i % 3 == 0) * (uint64_t)i);
        NCL_CHECK_OK(NclArraySlice(c->target, NCL_DIMS(INT64_MIN), NCL_DIMS(INT64_MIN), NCL_DIMS(-1),
                                   &c->view));
        NclArray *tm = NULL;
        NCL_CHECK_OK(NclFromData(NCL_BOOL, 1, NCL_DIMS(64), NULL, NclArrayData(c->target), 0, NULL,
                                 NULL, &tm));
        NclArrayRelease(c->m);
        c->m = tm;
        NclArray *vals = ncl_test_clone(c->view); /* as if copied first */
        NclArray *mask = ncl_test_clone(c->m);
        c->want = ncl_test_clone(c->target);
        /* values must be as many as the true elements: take a prefix view */
        const int64_t cnt = count_true(mask);
        NclArray *vv = NULL;
        NCL_CHECK_OK(NclArraySlice(c->view, NCL_DIMS(0), &cnt, NULL, &vv));
        NclArrayRelease(c->view);
        c->view = vv;
        NclArray *vcopy = NULL;
        NCL_CHECK_OK(NclArraySlice(vals, NCL_DIMS(0), &cnt, NULL, &vcopy));
        ref_put(c->want, mask, vcopy);
        NclArrayRelease(vcopy);
        NclArrayRelease(vals);
        NclArrayRelease(mask);
        break;
    }
    }
}

static NclStatus fi_call(int which, fi_ctx *c, NclArray **res)
{
    switch (which) {
    case FI_COMPRESS: return NclMask(NCL_MASK_COMPRESS, c->a, c->m, res, NULL);
    case FI_COMPRESS_OVERLAP: *res = c->view; return NclMask(NCL_MASK_COMPRESS, c->a, c->m, res, NULL);
    case FI_NONZERO: return NclMask(NCL_MASK_NONZERO, c->m, NULL, res, NULL);
    case FI_TAKE: return take_call(c->a, c->ix, 1, res, NCL_CASTING_SAME_KIND);
    case FI_TAKE_FLAT_COPY: return take_call(c->a, c->ix, INT32_MIN, res, NCL_CASTING_SAME_KIND);
    default: *res = c->target; return NclMask(NCL_MASK_PUT, c->m, c->view, res, NULL);
    }
}

static void fi_teardown(fi_ctx *c)
{
    NclArrayRelease(c->a);
    NclArrayRelease(c->m);
    NclArrayRelease(c->ix);
    NclArrayRelease(c->target);
    NclArrayRelease(c->view);
    NclArrayRelease(c->want);
}

START_TEST(t_fault_injection)
{
    const int which = _i;
    const int provided = which == FI_COMPRESS_OVERLAP || which == FI_PUT_OVERLAP;
    int failed_some = 0, done = 0;
    for (long k = 1; k <= 32 && !done; k++) {
        fi_ctx c;
        fi_setup(which, &c);
        NclArray *given = which == FI_PUT_OVERLAP ? c.target : c.view;
        const uint64_t h = given ? ncl_test_hash(given) : 0;
        ncl_test_alloc acc;
        ncl_test_alloc_install(&acc, k, 0);
        NclArray *res = NULL;
        const NclStatus s = fi_call(which, &c, &res);
        ncl_test_alloc_uninstall(&acc);
        if (atomic_load(&acc.failures) == 0) {
            NCL_CHECK_OK(s);
            done = 1;
        }
        char what[128];
        snprintf(what, sizeof what, "%s, failing allocation %ld", fi_names[which], k);
        if (s == NCL_OK) {
            NCL_CHECK_ARRAYS_EQUAL(provided ? given : res, c.want);
        } else {
            ck_assert_msg(s == NCL_ERR_NO_MEMORY, "%s: %s (%s)", what, NclStatusString(s),
                          NclLastError());
            ck_assert_msg(strstr(NclLastError(), "NclMask") != NULL, "%s: message %s", what,
                          NclLastError());
            failed_some = 1;
            if (provided) {
                ck_assert_msg(res == given, "%s: *out changed", what);
                ck_assert_msg(ncl_test_hash(given) == h, "%s: output written", what);
            } else {
                ck_assert_msg(res == NULL, "%s: *out changed", what);
            }
        }
        if (!provided) NclArrayRelease(res);
        fi_teardown(&c);
        NCL_CHECK_NO_LEAK(&acc);
    }
    ck_assert_msg(done, "%s: still failing after 32 allocations", fi_names[which]);
    ck_assert_msg(failed_some, "%s: never allocated through the handler", fi_names[which]);
}
END_TEST

/* ---- the level-2 kernel chains ---------------------------------------------------------- */

/* The pool's workers may run the chain: the counts are atomic. */
typedef struct spy {
    NclKernelNode node;
    atomic_int calls;
    atomic_int bad_ctx;
    int op;
} spy;

static NclStatus spy_kernel(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                            int64_t n, const int64_t *steps)
{
    spy *s = (spy *)self;
    atomic_fetch_add(&s->calls, 1);
    if (ctx->subsystem != NCL_SUBSYSTEM_MASK || ctx->op != s->op || ctx->aux == NULL ||
        ctx->signature == NULL || ctx->fpe == NULL)
        atomic_fetch_add(&s->bad_ctx, 1);
    return NclKernelNext(self, ctx, args, n, steps);
}

START_TEST(t_kernel_chains)
{
    /* every op and dtype has a chain a hook can take */
    for (int t = 0; t < NCL_NTYPES; t++) {
        const NclDType d = (NclDType)t;
        const NclDType same[2] = {d, d}, nz[2] = {d, NCL_INT64};
        const NclMaskOp ops[3] = {NCL_MASK_COMPRESS, NCL_MASK_PUT, NCL_MASK_TAKE};
        for (int k = 0; k < 3; k++) {
            spy s;
            memset(&s, 0, sizeof s);
            s.node.fn = spy_kernel;
            s.node.name = "spy";
            NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_MASK, ops[k], same, &s.node.list));
            NCL_CHECK_OK(NclKernelUnhook(&s.node.list));
        }
        spy s;
        memset(&s, 0, sizeof s);
        s.node.fn = spy_kernel;
        NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_MASK, NCL_MASK_NONZERO, nz, &s.node.list));
        NCL_CHECK_OK(NclKernelUnhook(&s.node.list));
    }
    /* no kernel for mixed widths: the framework never asks for one */
    const NclDType mixed[2] = {NCL_FLOAT64, NCL_FLOAT32};
    spy s;
    memset(&s, 0, sizeof s);
    s.node.fn = spy_kernel;
    NCL_CHECK_STATUS(NclKernelHook(NCL_SUBSYSTEM_MASK, NCL_MASK_COMPRESS, mixed, &s.node.list),
                     NCL_ERR_DTYPE);

    /* a hook on float64 compress sees every row and the documented context */
    uint64_t state = 3;
    NclArray *a0 = make_values(NCL_FLOAT64, 2, NCL_DIMS(6, 7), &state);
    NclArray *a = ncl_test_layout_of(a0, NCL_TEST_SLICED);
    NclArray *m = make_mask(2, NCL_DIMS(6, 7), 50, &state);
    NclArray *want = ref_compress(a0, m);
    const NclDType f64[2] = {NCL_FLOAT64, NCL_FLOAT64};
    memset(&s, 0, sizeof s);
    s.node.fn = spy_kernel;
    s.node.name = "spy";
    s.op = NCL_MASK_COMPRESS;
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_MASK, NCL_MASK_COMPRESS, f64, &s.node.list));
    NclArray *got = NULL;
    NCL_CHECK_OK(NclMask(NCL_MASK_COMPRESS, a, m, &got, NULL));
    NCL_CHECK_ARRAYS_EQUAL(got, want);
    ck_assert_int_eq(atomic_load(&s.calls), 6);
    ck_assert_int_eq(atomic_load(&s.bad_ctx), 0);
    NclArrayRelease(got);
    /* other dtypes of the same width do not reach it */
    NclArray *ai = ncl_test_new(NCL_INT64, 2, NCL_DIMS(6, 7));
    got = NULL;
    NCL_CHECK_OK(NclMask(NCL_MASK_COMPRESS, ai, m, &got, NULL));
    ck_assert_int_eq(atomic_load(&s.calls), 6);
    NclArrayRelease(got);
    NCL_CHECK_OK(NclKernelUnhook(&s.node.list));

    /* the truth scan: counts for every op, and nonzero's indices */
    const NclDType bool_nz[2] = {NCL_BOOL, NCL_INT64};
    memset(&s, 0, sizeof s);
    s.node.fn = spy_kernel;
    s.op = NCL_MASK_NONZERO;
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_MASK, NCL_MASK_NONZERO, bool_nz, &s.node.list));
    got = NULL;
    NCL_CHECK_OK(NclMask(NCL_MASK_COMPRESS, a, m, &got, NULL));
    ck_assert_int_ge(atomic_load(&s.calls), 1);
    NclArrayRelease(got);
    NCL_CHECK_OK(NclKernelUnhook(&s.node.list));
    NclArrayRelease(ai);
    NclArrayRelease(want);
    NclArrayRelease(m);
    NclArrayRelease(a);
    NclArrayRelease(a0);
}
END_TEST

/* A hook that reports more packed elements than the mask holds is caught,
   not trusted. */
static NclStatus lying_kernel(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args,
                              int64_t n, const int64_t *steps)
{
    NclStatus st = NclKernelNext(self, ctx, args, n, steps);
    int64_t *count;
    memcpy(&count, ctx->aux, sizeof count); /* the ABI's first member: int64_t *count */
    *count += 1;
    return st;
}

START_TEST(t_kernel_miscount)
{
    NclArray *a = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(4), 1, 2, 3, 4);
    NclArray *m = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(4), 1, 0, 0, 0);
    const NclDType i32[2] = {NCL_INT32, NCL_INT32};
    NclKernelNode k;
    memset(&k, 0, sizeof k);
    k.fn = lying_kernel;
    k.name = "liar";
    NCL_CHECK_OK(NclKernelHook(NCL_SUBSYSTEM_MASK, NCL_MASK_COMPRESS, i32, &k.list));
    NclArray *got = NULL;
    REFUSED(NclMask(NCL_MASK_COMPRESS, a, m, &got, NULL), NCL_ERR_HOOK, "liar");
    ck_assert_ptr_null(got);
    NCL_CHECK_OK(NclKernelUnhook(&k.list));
    NclArrayRelease(m);
    NclArrayRelease(a);
}
END_TEST

/* ---- FP flags of casts ------------------------------------------------------------------- */

START_TEST(t_fp_flags)
{
    /* float64 values into int32, unsafe: NaN and inf saturate with INVALID */
    NclArray *t = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(3), 0);
    NclArray *m = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(3), 1, 1, 0);
    NclArray *v = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), NAN, 1.5);
    NclArray *out = t;
    NCL_CHECK_OK(mask_call(NCL_MASK_PUT, m, v, &out, NCL_CASTING_UNSAFE));
    ck_assert_int_eq(NclGetFPErrors() & NCL_FPE_INVALID, NCL_FPE_INVALID);
    ck_assert_int_eq(ncl_test_get_i(t, 0), 0);
    ck_assert_int_eq(ncl_test_get_i(t, 1), 1);

    /* compress with a cast that overflows; in RAISE mode the allocated
       result is not returned */
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(3), 1e300, 2, 3);
    NclArray *am = ncl_test_arr(NCL_BOOL, 1, NCL_DIMS(3), 1, 1, 1);
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = NCL_FLOAT32;
    NclArray *got = NULL;
    NCL_CHECK_OK(NclMask(NCL_MASK_COMPRESS, a, am, &got, &p));
    ck_assert(NclGetFPErrors() & NCL_FPE_OVERFLOW);
    ck_assert(isinf(ncl_test_get_d(got, 0)));
    NclArrayRelease(got);
    NCL_CHECK_OK(NclSetErrMode(NCL_FPE_OVERFLOW, NCL_ERRMODE_RAISE));
    got = NULL;
    REFUSED(NclMask(NCL_MASK_COMPRESS, a, am, &got, &p), NCL_ERR_FLOATING_POINT, "NclMask(compress)",
            "overflow");
    ck_assert_ptr_null(got);
    NclArray *ix0 = ncl_test_arr(NCL_INT8, 1, NCL_DIMS(2), 0, -1);
    got = NULL;
    REFUSED(NclMask(NCL_MASK_TAKE, a, ix0, &got, &p), NCL_ERR_FLOATING_POINT, "NclMask(take)");
    ck_assert_ptr_null(got);
    NclArrayRelease(ix0);
    NCL_CHECK_OK(NclSetErrMode(NCL_FPE_OVERFLOW, NCL_ERRMODE_IGNORE));
    NclArrayRelease(got);
    NclArrayRelease(am);
    NclArrayRelease(a);
    NclArrayRelease(v);
    NclArrayRelease(m);
    NclArrayRelease(t);
}
END_TEST

/* ---- the suite ------------------------------------------------------------------------- */

static Suite *mask_suite(void)
{
    Suite *s = suite_create("mask");
    TCase *tc = ncl_test_tcase(s, "ops");
    tcase_add_loop_test(tc, t_compress_all, 0, NCL_NTYPES);
    tcase_add_test(tc, t_compress_mask_bytes);
    tcase_add_loop_test(tc, t_put_all, 0, NCL_NTYPES);
    tcase_add_test(tc, t_put_values_shape);
    tcase_add_loop_test(tc, t_nonzero_all, 0, NCL_NTYPES);
    tcase_add_test(tc, t_nonzero_pins);
    tcase_add_loop_test(tc, t_take_all, 0, NCL_NTYPES);
    tcase_add_test(tc, t_take_long);
    tc = ncl_test_tcase(s, "refusals");
    tcase_add_test(tc, t_bad_null_and_op);
    tcase_add_test(tc, t_bad_compress);
    tcase_add_test(tc, t_bad_put);
    tcase_add_test(tc, t_bad_nonzero);
    tcase_add_test(tc, t_bad_take);
    tc = ncl_test_tcase(s, "memory");
    tcase_add_test(tc, t_overlap);
    tcase_add_loop_test(tc, t_fault_injection, 0, FI_COUNT);
    tc = ncl_test_tcase(s, "kernels");
    tcase_add_test(tc, t_kernel_chains);
    tcase_add_test(tc, t_kernel_miscount);
    tcase_add_test(tc, t_fp_flags);
    return s;
}

NCL_TEST_MAIN(mask_suite)
