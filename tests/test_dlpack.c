/*
 * test_dlpack.c: NclArray <-> DLPack. A property test over random dtypes,
 * 0-4 dimensions (extents 0 and 1 included), positive, negative and zero
 * strides and offsets: export gives the array's pointer, shape, element
 * strides and read-only flag; import of that gives the same array back,
 * bytes and all, and every deleter runs exactly once. Then the legacy
 * struct, byte_offset, NULL strides, devices, a deleter run on another
 * thread, and every malformed tensor refused with its deleter still called
 * once.
 */
#include <pthread.h>
#include "ncl_test.h"

/* ---- a buffer whose deleter counts ----------------------------------------- */

static atomic_int buffer_frees;

static void count_free(void *ctx, void *data)
{
    (void)data;
    free(ctx);
    atomic_fetch_add(&buffer_frees, 1);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
/* A number below n (0 when n is 0). */
static uint64_t rnd(uint64_t n) { return n ? ncl_test_rand(&rng_state) % n : 0; }

/* A random view: dtype, ndim 0..4, extents 0..3, strides of any sign (zero
   too) in whole elements, the first element anywhere its extent allows. */
static NclArray *random_view(int *writeable)
{
    const NclDType t = (NclDType)rnd(NCL_NTYPES);
    const int64_t isz = (int64_t)NclDTypeSize(t);
    const int ndim = (int)rnd(5);
    int64_t shape[4], strides[4], lo = 0, hi = 0;
    for (int d = 0; d < ndim; d++) {
        shape[d] = (int64_t)rnd(4);
        strides[d] = ((int64_t)rnd(9) - 4) * isz;
        if (shape[d] > 0) {
            const int64_t span = (shape[d] - 1) * strides[d];
            if (span < 0) lo += span; else hi += span;
        }
    }
    const int64_t pad = (int64_t)rnd(3) * isz;
    const size_t bytes = (size_t)(hi - lo + isz + 2 * pad);
    char *buf = malloc(bytes);
    ck_assert_ptr_nonnull(buf);
    for (size_t i = 0; i < bytes; i++) buf[i] = (char)rnd(256);
    if (t == NCL_BOOL)
        for (size_t i = 0; i < bytes; i++) buf[i] &= 1;
    *writeable = (int)rnd(2);
    NclArray *a = NULL;
    NCL_CHECK_OK(NclFromData(t, ndim, shape, strides, buf + pad - lo,
                             *writeable ? NCL_ARRAY_WRITEABLE : 0, count_free, buf, &a));
    return a;
}

/* Whether a and b view the same elements: same pointer, dtype, shape and
   strides (extents of 1 or 0 make a stride meaningless and are skipped). */
static void check_same_view(const NclArray *a, const NclArray *b)
{
    ck_assert_ptr_eq(NclArrayData(a), NclArrayData(b));
    ck_assert_int_eq(NclArrayDType(a), NclArrayDType(b));
    ck_assert_int_eq(NclArrayNDim(a), NclArrayNDim(b));
    for (int d = 0; d < NclArrayNDim(a); d++) {
        ck_assert_int_eq(NclArrayShape(a)[d], NclArrayShape(b)[d]);
        ck_assert_int_eq(NclArrayStrides(a)[d], NclArrayStrides(b)[d]);
    }
    ck_assert_uint_eq(NclArrayFlags(a) & NCL_ARRAY_WRITEABLE, NclArrayFlags(b) & NCL_ARRAY_WRITEABLE);
}

START_TEST(test_property_round_trip)
{
    for (int iter = 0; iter < 2000; iter++) {
        atomic_store(&buffer_frees, 0);
        int writeable;
        NclArray *a = random_view(&writeable);
        DLManagedTensorVersioned *m = NULL;
        NCL_CHECK_OK(NclToDLPack(a, &m));
        const DLTensor *t = &m->dl_tensor;
        const int64_t isz = (int64_t)NclDTypeSize(NclArrayDType(a));
        ck_assert_uint_eq(m->version.major, 1);
        ck_assert_ptr_eq(t->data, NclArrayData(a));
        ck_assert_uint_eq(t->byte_offset, 0);
        ck_assert_int_eq(t->device.device_type, kDLCPU);
        ck_assert_int_eq(t->ndim, NclArrayNDim(a));
        ck_assert_ptr_nonnull(t->strides);
        ck_assert_ptr_nonnull(t->shape);
        ck_assert_uint_eq(t->dtype.lanes, 1);
        ck_assert_uint_eq(t->dtype.bits, 8 * isz);
        for (int d = 0; d < t->ndim; d++) {
            ck_assert_int_eq(t->shape[d], NclArrayShape(a)[d]);
            ck_assert_int_eq(t->strides[d] * isz, NclArrayStrides(a)[d]);
        }
        ck_assert_uint_eq(m->flags & DLPACK_FLAG_BITMASK_READ_ONLY, writeable ? 0 : 1);
        ck_assert_uint_eq(m->flags & DLPACK_FLAG_BITMASK_IS_COPIED, 0);

        NclArray *b = NULL;
        NCL_CHECK_OK(NclFromDLPack(m, &b));
        check_same_view(a, b);
        /* the bytes, element by element, through a copy of each */
        NclArray *ca = NULL, *cb = NULL;
        NclParams p = NCL_PARAMS_INIT;
        NCL_CHECK_OK(NclConvert(NCL_CONVERT_ASTYPE, a, &ca, &p));
        NCL_CHECK_OK(NclConvert(NCL_CONVERT_ASTYPE, b, &cb, &p));
        ck_assert_int_eq(NclArraySize(ca), NclArraySize(cb));
        ck_assert(memcmp(NclArrayData(ca), NclArrayData(cb), (size_t)(NclArraySize(ca) * isz)) == 0);
        NclArrayRelease(ca);
        NclArrayRelease(cb);

        NclArrayRelease(a);
        ck_assert_int_eq(atomic_load(&buffer_frees), 0); /* b still holds it */
        NclArrayRelease(b);
        ck_assert_int_eq(atomic_load(&buffer_frees), 1);
    }
}
END_TEST

START_TEST(test_legacy)
{
    atomic_store(&buffer_frees, 0);
    int32_t *buf = malloc(6 * sizeof *buf);
    for (int i = 0; i < 6; i++) buf[i] = i * 7;
    NclArray *a = NULL, *b = NULL;
    NCL_CHECK_OK(NclFromData(NCL_INT32, 2, NCL_DIMS(2, 3), NULL, buf, NCL_ARRAY_WRITEABLE,
                             count_free, buf, &a));
    DLManagedTensor *m = NULL;
    NCL_CHECK_OK(NclToDLPackLegacy(a, &m));
    ck_assert_ptr_eq(m->dl_tensor.data, buf);
    ck_assert_int_eq(m->dl_tensor.strides[0], 3);
    ck_assert_int_eq(m->dl_tensor.strides[1], 1);
    NCL_CHECK_OK(NclFromDLPackLegacy(m, &b));
    check_same_view(b, b);
    ck_assert_ptr_eq(NclArrayData(b), buf);
    ck_assert_uint_eq(NclArrayFlags(b) & NCL_ARRAY_WRITEABLE, 0); /* legacy: read-only */
    NclArrayRelease(a);
    NclArrayRelease(b);
    ck_assert_int_eq(atomic_load(&buffer_frees), 1);

    /* a read-only array has no legacy form */
    static int32_t ro[2];
    NCL_CHECK_OK(NclFromData(NCL_INT32, 1, NCL_DIMS(2), NULL, ro, 0, NULL, NULL, &a));
    NCL_CHECK_STATUS(NclToDLPackLegacy(a, &m), NCL_ERR_READONLY);
    ck_assert_ptr_null(m);
    NclArrayRelease(a);
}
END_TEST

/* ---- a producer whose tensors count their deleter ------------------------- */

typedef struct producer {
    DLManagedTensorVersioned m;
    int64_t shape[4], strides[4];
    double data[16];
    atomic_int deleted;
} producer;

static void producer_delete(DLManagedTensorVersioned *self)
{
    atomic_fetch_add(&((producer *)self->manager_ctx)->deleted, 1);
}

static void producer_init(producer *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < 16; i++) p->data[i] = i + 0.5;
    p->m.version.major = 1;
    p->m.version.minor = 3; /* a later minor: fine */
    p->m.manager_ctx = p;
    p->m.deleter = producer_delete;
    p->m.dl_tensor.data = p->data;
    p->m.dl_tensor.device.device_type = kDLCPU;
    p->m.dl_tensor.ndim = 2;
    p->m.dl_tensor.dtype = (DLDataType){kDLFloat, 64, 1};
    p->shape[0] = 3;
    p->shape[1] = 4;
    p->m.dl_tensor.shape = p->shape;
    p->m.dl_tensor.strides = NULL;
}

START_TEST(test_import_layouts_and_devices)
{
    producer p;
    NclArray *a = NULL;
    /* NULL strides: C order; byte_offset moves the first element */
    producer_init(&p);
    p.m.dl_tensor.byte_offset = 2 * sizeof(double);
    NCL_CHECK_OK(NclFromDLPack(&p.m, &a));
    ck_assert_ptr_eq(NclArrayData(a), &p.data[2]);
    ck_assert_int_eq(NclArrayStrides(a)[0], 32);
    ck_assert_int_eq(NclArrayStrides(a)[1], 8);
    ck_assert_uint_ne(NclArrayFlags(a) & NCL_ARRAY_WRITEABLE, 0);
    ck_assert_int_eq(NclArrayMemKind(a), NCL_MEM_HOST);
    ck_assert_int_eq(atomic_load(&p.deleted), 0);
    NclArrayRelease(a);
    ck_assert_int_eq(atomic_load(&p.deleted), 1);

    /* reversed element strides, read-only */
    producer_init(&p);
    p.strides[0] = -4;
    p.strides[1] = -1;
    p.m.dl_tensor.strides = p.strides;
    p.m.dl_tensor.byte_offset = 11 * sizeof(double);
    p.m.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
    NCL_CHECK_OK(NclFromDLPack(&p.m, &a));
    ck_assert_int_eq(NclArrayStrides(a)[0], -32);
    ck_assert(((const double *)NclArrayData(a))[0] == 11.5);
    ck_assert_uint_eq(NclArrayFlags(a) & NCL_ARRAY_WRITEABLE, 0);
    NclArrayRelease(a);
    ck_assert_int_eq(atomic_load(&p.deleted), 1);

    /* pinned host memory is host memory; managed memory is shared */
    producer_init(&p);
    p.m.dl_tensor.device = (DLDevice){kDLCUDAHost, 0};
    NCL_CHECK_OK(NclFromDLPack(&p.m, &a));
    ck_assert_int_eq(NclArrayMemKind(a), NCL_MEM_HOST);
    NclArrayRelease(a);
    producer_init(&p);
    p.m.dl_tensor.device = (DLDevice){kDLCUDAManaged, 3};
    NCL_CHECK_OK(NclFromDLPack(&p.m, &a));
    ck_assert_int_eq(NclArrayMemKind(a), NCL_MEM_SHARED);
    ck_assert_int_eq(NclArrayDeviceId(a), 3);
    /* and exported as such */
    DLManagedTensorVersioned *m = NULL;
    NCL_CHECK_OK(NclToDLPack(a, &m));
    ck_assert_int_eq(m->dl_tensor.device.device_type, kDLCUDAManaged);
    ck_assert_int_eq(m->dl_tensor.device.device_id, 3);
    m->deleter(m);
    NclArrayRelease(a);
    ck_assert_int_eq(atomic_load(&p.deleted), 1);

    /* an empty tensor may have NULL data; a NULL deleter is never called */
    producer_init(&p);
    p.shape[0] = 0;
    p.m.dl_tensor.data = NULL;
    p.m.deleter = NULL;
    NCL_CHECK_OK(NclFromDLPack(&p.m, &a));
    ck_assert_int_eq(NclArraySize(a), 0);
    NclArrayRelease(a);
}
END_TEST

/* Every malformed tensor: a clear status, no array, the deleter called once. */
START_TEST(test_import_refusals)
{
    producer p;
    NclArray *a = NULL;
#define REFUSED(setup, status)                                                  \
    do {                                                                        \
        producer_init(&p);                                                      \
        setup;                                                                  \
        a = (NclArray *)&p; /* must be reset */                                 \
        NCL_CHECK_STATUS(NclFromDLPack(&p.m, &a), status);                      \
        ck_assert_ptr_null(a);                                                  \
        ck_assert_int_eq(atomic_load(&p.deleted), 1);                           \
    } while (0)
    REFUSED(p.m.version.major = 2, NCL_ERR_UNSUPPORTED);
    REFUSED(p.m.version.major = 0, NCL_ERR_UNSUPPORTED);
    REFUSED(p.m.dl_tensor.dtype.lanes = 2, NCL_ERR_UNSUPPORTED);
    REFUSED(p.m.dl_tensor.dtype = ((DLDataType){kDLFloat, 16, 1}), NCL_ERR_UNSUPPORTED);
    REFUSED(p.m.dl_tensor.dtype = ((DLDataType){kDLBfloat, 16, 1}), NCL_ERR_UNSUPPORTED);
    REFUSED(p.m.dl_tensor.dtype = ((DLDataType){kDLComplex, 64, 1}), NCL_ERR_UNSUPPORTED);
    REFUSED(p.m.dl_tensor.dtype = ((DLDataType){kDLUInt, 1, 1}), NCL_ERR_UNSUPPORTED);
    REFUSED(p.m.dl_tensor.dtype = ((DLDataType){99, 8, 1}), NCL_ERR_UNSUPPORTED);
    REFUSED(p.m.dl_tensor.device = ((DLDevice){kDLCUDA, 0}), NCL_ERR_DEVICE_MEMORY);
    REFUSED(p.m.dl_tensor.device = ((DLDevice){(DLDeviceType)77, 0}), NCL_ERR_DEVICE_MEMORY);
    REFUSED(p.m.dl_tensor.ndim = -1, NCL_ERR_SHAPE);
    REFUSED(p.m.dl_tensor.ndim = NCL_MAXDIMS + 1, NCL_ERR_SHAPE);
    REFUSED(p.m.dl_tensor.shape = NULL, NCL_ERR_INVALID_ARGUMENT);
    REFUSED(p.shape[1] = -4, NCL_ERR_INVALID_ARGUMENT);
    REFUSED(p.m.dl_tensor.data = NULL, NCL_ERR_INVALID_ARGUMENT);
    REFUSED(p.m.dl_tensor.byte_offset = 3, NCL_ERR_INVALID_ARGUMENT); /* misaligned float64 */
    REFUSED((p.m.dl_tensor.strides = p.strides, p.strides[0] = INT64_MAX / 2),
            NCL_ERR_SHAPE);
    REFUSED((p.shape[0] = INT64_MAX / 2, p.shape[1] = 8), NCL_ERR_SHAPE);
    /* a byte_offset that wraps data around the end of the address space
       (back to just before the buffer), with elements or without */
    REFUSED(p.m.dl_tensor.byte_offset = (uint64_t)0 - 8, NCL_ERR_INVALID_ARGUMENT);
    REFUSED(p.m.dl_tensor.byte_offset = UINT64_MAX, NCL_ERR_INVALID_ARGUMENT);
    REFUSED((p.shape[0] = 0, p.m.dl_tensor.byte_offset = (uint64_t)0 - 64),
            NCL_ERR_INVALID_ARGUMENT);
#undef REFUSED
    /* NULL out: the tensor is still consumed */
    producer_init(&p);
    NCL_CHECK_STATUS(NclFromDLPack(&p.m, NULL), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(atomic_load(&p.deleted), 1);
    NCL_CHECK_STATUS(NclFromDLPack(NULL, &a), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclFromDLPackLegacy(NULL, &a), NCL_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(test_export_refusals)
{
    static int32_t data[8];
    NclArray *a = NULL;
    DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)data;
    NCL_CHECK_STATUS(NclToDLPack(NULL, &m), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(m);
    NCL_CHECK_OK(NclFromData(NCL_INT32, 1, NCL_DIMS(8), NULL, data, 0, NULL, NULL, &a));
    NCL_CHECK_STATUS(NclToDLPack(a, NULL), NCL_ERR_INVALID_ARGUMENT);
    NclArrayRelease(a);
    /* strides that are not whole elements (bytes 0, 6, 12: misaligned view) */
    NCL_CHECK_OK(NclFromData(NCL_INT16, 1, NCL_DIMS(3), NCL_DIMS(6), data, 0, NULL, NULL, &a));
    NclArrayRelease(a);
    NCL_CHECK_OK(NclFromData(NCL_INT32, 1, NCL_DIMS(3), NCL_DIMS(6), data, 0, NULL, NULL, &a));
    NCL_CHECK_STATUS(NclToDLPack(a, &m), NCL_ERR_UNSUPPORTED);
    NCL_CHECK_MESSAGE_HAS("whole number");
    ck_assert_ptr_null(m);
    NclArrayRelease(a);
    /* device memory */
    NCL_CHECK_OK(NclFromDataKind(NCL_INT32, 1, NCL_DIMS(8), NULL, data, 0, NULL, NULL,
                                 NCL_MEM_DEVICE, 0, &a));
    NCL_CHECK_STATUS(NclToDLPack(a, &m), NCL_ERR_DEVICE_MEMORY);
    NclArrayRelease(a);
}
END_TEST

static void *delete_elsewhere(void *arg)
{
    DLManagedTensorVersioned *m = arg;
    m->deleter(m);
    return NULL;
}

START_TEST(test_deleter_on_another_thread)
{
    atomic_store(&buffer_frees, 0);
    double *buf = calloc(100, sizeof *buf);
    NclArray *a = NULL;
    NCL_CHECK_OK(NclFromData(NCL_FLOAT64, 1, NCL_DIMS(100), NULL, buf, NCL_ARRAY_WRITEABLE,
                             count_free, buf, &a));
    DLManagedTensorVersioned *m[4];
    for (int i = 0; i < 4; i++) NCL_CHECK_OK(NclToDLPack(a, &m[i]));
    NclArrayRelease(a);
    pthread_t th[4];
    for (int i = 0; i < 4; i++) ck_assert_int_eq(pthread_create(&th[i], NULL, delete_elsewhere, m[i]), 0);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    ck_assert_int_eq(atomic_load(&buffer_frees), 1);
}
END_TEST

static Suite *dlpack_suite(void)
{
    Suite *s = suite_create("dlpack");
    TCase *tc = ncl_test_tcase(s, "round_trip");
    tcase_add_test(tc, test_property_round_trip);
    tcase_add_test(tc, test_legacy);
    tcase_add_test(tc, test_deleter_on_another_thread);
    tc = ncl_test_tcase(s, "import_export");
    tcase_add_test(tc, test_import_layouts_and_devices);
    tcase_add_test(tc, test_import_refusals);
    tcase_add_test(tc, test_export_refusals);
    return s;
}

NCL_TEST_MAIN(dlpack_suite)
