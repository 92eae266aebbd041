/*
 * test_arrow.c: NclArray <-> Arrow C Data Interface, checked against the
 * specification's rules: formats, bit-packed booleans and validity bitmaps
 * (LSB first), offsets, null counts (-1 = unknown), release callbacks run
 * exactly once and move semantics (a moved struct is marked released), and
 * N-dimensional arrays as arrow.fixed_shape_tensor. A property test over
 * random dtypes, 0-4 dimensions (extents 0 and 1), strides of any sign and
 * validity masks round-trips through export and import; malformed structs,
 * and offsets, lengths and tensor shapes whose sizes int64 cannot hold, are
 * refused with their release still called once.
 */
#include "ncl_test.h"

static uint64_t rng_state = 0x2545f4914f6cdd1du;
/* A number below n (0 when n is 0). */
static uint64_t rnd(uint64_t n) { return n ? ncl_test_rand(&rng_state) % n : 0; }

static atomic_int buffer_frees;
static void count_free(void *ctx, void *data)
{
    (void)data;
    free(ctx);
    atomic_fetch_add(&buffer_frees, 1);
}

/* a's elements in C order, as bytes (malloc'd). */
static char *c_bytes(const NclArray *a)
{
    const size_t isz = NclDTypeSize(NclArrayDType(a));
    char *b = malloc((size_t)NclArraySize(a) * isz + 1);
    ck_assert_ptr_nonnull(b);
    for (int64_t i = 0; i < NclArraySize(a); i++) memcpy(b + i * (int64_t)isz, ncl_test_ptr(a, i), isz);
    return b;
}

static int bit(const void *bits, int64_t i)
{
    return (((const uint8_t *)bits)[i >> 3] >> (i & 7)) & 1;
}

static NclArray *random_view(NclDType t, int ndim, const int64_t *shape)
{
    const int64_t isz = (int64_t)NclDTypeSize(t);
    int64_t strides[4];
    for (int d = 0; d < ndim; d++) strides[d] = ((int64_t)rnd(7) - 3) * isz;
    if (rnd(2)) /* often the plain C layout, exported without a copy */
        for (int d = ndim - 1, s = (int)isz; d >= 0; s *= (int)(shape[d] ? shape[d] : 1), d--)
            strides[d] = s;
    int64_t extent = isz;
    for (int d = 0; d < ndim; d++) extent += shape[d] > 0 ? (shape[d] - 1) * llabs(strides[d]) : 0;
    const size_t bytes = (size_t)(extent + 2 * isz);
    char *buf = malloc(bytes);
    ck_assert_ptr_nonnull(buf);
    for (size_t i = 0; i < bytes; i++) buf[i] = (char)(t == NCL_BOOL ? rnd(2) : rnd(256));
    int64_t neg = 0;
    for (int d = 0; d < ndim; d++)
        if (strides[d] < 0 && shape[d] > 0) neg += (shape[d] - 1) * -strides[d];
    NclArray *a = NULL;
    NCL_CHECK_OK(NclFromData(t, ndim, shape, strides, buf + neg, NCL_ARRAY_WRITEABLE, count_free,
                             buf, &a));
    return a;
}

START_TEST(test_property_round_trip)
{
    for (int iter = 0; iter < 1500; iter++) {
        atomic_store(&buffer_frees, 0);
        const NclDType t = (NclDType)rnd(NCL_NTYPES);
        const int ndim = (int)rnd(5);
        int64_t shape[4];
        for (int d = 0; d < ndim; d++) shape[d] = (int64_t)rnd(4);
        NclArray *a = random_view(t, ndim, shape);
        NclArray *valid = NULL;
        if (rnd(2)) {
            valid = random_view(NCL_BOOL, ndim, shape);
        }
        const int64_t n = NclArraySize(a), isz = (int64_t)NclDTypeSize(t);
        struct ArrowSchema s;
        struct ArrowArray arr;
        NCL_CHECK_OK(NclToArrow(a, valid, &s, &arr));
        ck_assert(s.release != NULL);
        ck_assert(arr.release != NULL);
        char *ca = c_bytes(a), *cv = valid ? c_bytes(valid) : NULL;
        /* what an Arrow consumer sees */
        const struct ArrowArray *va = &arr;
        const struct ArrowSchema *vs = &s;
        if (ndim >= 2) {
            char fmt[32];
            snprintf(fmt, sizeof fmt, "+w:%lld", (long long)(shape[0] ? n / shape[0] : shape[1] * (ndim > 2 ? shape[2] : 1) * (ndim > 3 ? shape[3] : 1)));
            ck_assert_str_eq(s.format, fmt);
            ck_assert_ptr_nonnull(s.metadata);
            ck_assert_int_eq(arr.length, shape[0]);
            ck_assert_int_eq(arr.n_children, 1);
            va = arr.children[0];
            vs = s.children[0];
        }
        ck_assert_int_eq(va->length, n);
        ck_assert_int_eq(va->offset, 0);
        ck_assert_int_eq(va->n_buffers, 2);
        ck_assert_int_eq(strlen(vs->format), 1);
        int64_t nulls = 0;
        for (int64_t i = 0; i < n; i++) {
            if (t == NCL_BOOL)
                ck_assert_int_eq(bit(va->buffers[1], i), ((const uint8_t *)ca)[i]);
            else
                ck_assert_msg(memcmp((const char *)va->buffers[1] + i * isz,
                                 ca + i * isz, (size_t)isz) == 0, "t=%d ndim=%d i=%lld n=%lld flags=%u s0=%lld", (int)t, ndim, (long long)i, (long long)n, NclArrayFlags(a), ndim ? (long long)NclArrayStrides(a)[0] : 0LL);
            if (cv) {
                ck_assert_int_eq(bit(va->buffers[0], i), ((const uint8_t *)cv)[i]);
                nulls += !((const uint8_t *)cv)[i];
            }
        }
        ck_assert_int_eq(va->null_count, nulls);
        if (!cv) ck_assert_ptr_null(va->buffers[0]);

        /* back: moved in, same values and validity */
        NclArray *b = NULL, *bv = NULL;
        NCL_CHECK_OK(NclFromArrow(&s, &arr, &b, &bv));
        ck_assert(arr.release == NULL); /* moved */
        s.release(&s);
        ck_assert(s.release == NULL);
        char *cb = c_bytes(b);
        ck_assert_int_eq(NclArraySize(b), n);
        ck_assert_int_eq(NclArrayNDim(b), ndim == 0 ? 1 : ndim);
        for (int d = 0; d < ndim; d++) ck_assert_int_eq(NclArrayShape(b)[d], shape[d]);
        ck_assert(memcmp(ca, cb, (size_t)(n * isz)) == 0);
        ck_assert_uint_eq(NclArrayFlags(b) & NCL_ARRAY_WRITEABLE, 0);
        if (nulls > 0) {
            ck_assert_ptr_nonnull(bv);
            char *cbv = c_bytes(bv);
            ck_assert(memcmp(cv, cbv, (size_t)n) == 0);
            free(cbv);
        } else {
            ck_assert_ptr_null(bv);
        }
        free(ca);
        free(cv);
        free(cb);
        NclArrayRelease(a);
        NclArrayRelease(b);
        NclArrayRelease(bv);
        NclArrayRelease(valid);
        ck_assert_int_eq(atomic_load(&buffer_frees), valid ? 2 : 1);
    }
}
END_TEST

/* ---- a producer's arrays ------------------------------------------------------ */

typedef struct producer {
    struct ArrowSchema s;
    struct ArrowArray a;
    const void *buffers[3];
    uint8_t bitmap[4];
    int32_t values[20];
    uint8_t bools[4];
    int releases;
} producer;

static void producer_release(struct ArrowArray *a)
{
    ((producer *)a->private_data)->releases++;
    a->release = NULL;
}

static void schema_release(struct ArrowSchema *s) { s->release = NULL; }

static void producer_init(producer *p, const char *format)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < 20; i++) p->values[i] = i * 11 - 50;
    p->bitmap[0] = 0xff;
    p->bitmap[1] = 0xfe; /* element 8 null */
    p->bitmap[2] = 0xff;
    p->bools[0] = 0x5a; /* 0,1,0,1,1,0,1,0 */
    p->bools[1] = 0x03;
    p->s = (struct ArrowSchema){.format = format, .name = "x", .release = schema_release};
    p->buffers[0] = NULL;
    p->buffers[1] = p->values;
    p->a = (struct ArrowArray){.length = 10, .null_count = 0, .offset = 0, .n_buffers = 2,
                               .buffers = p->buffers, .release = producer_release,
                               .private_data = p};
}

START_TEST(test_import_offsets_nulls_bools)
{
    producer p;
    NclArray *a = NULL, *v = NULL;
    /* offset and a validity bitmap with one null, null count unknown */
    producer_init(&p, "i");
    p.a.offset = 3;
    p.a.null_count = -1;
    p.buffers[0] = p.bitmap;
    NCL_CHECK_OK(NclFromArrow(&p.s, &p.a, &a, &v));
    ck_assert(p.a.release == NULL);
    ck_assert_int_eq(p.releases, 0);
    ck_assert_ptr_eq(NclArrayData(a), &p.values[3]); /* no copy */
    ck_assert_ptr_nonnull(v);
    for (int i = 0; i < 10; i++) ck_assert_int_eq(((uint8_t *)NclArrayData(v))[i], i + 3 != 8);
    NclArrayRelease(v);
    NclArrayRelease(a);
    ck_assert_int_eq(p.releases, 1);

    /* all valid: no validity array */
    producer_init(&p, "i");
    p.buffers[0] = p.bitmap;
    p.a.null_count = -1;
    p.a.length = 8;
    NCL_CHECK_OK(NclFromArrow(&p.s, &p.a, &a, &v));
    ck_assert_ptr_null(v);
    NclArrayRelease(a);
    ck_assert_int_eq(p.releases, 1);

    /* booleans: bits from a bit offset, unpacked into a copy; the struct is
       released at once */
    producer_init(&p, "b");
    p.buffers[1] = p.bools;
    p.a.offset = 1;
    p.a.length = 9;
    NCL_CHECK_OK(NclFromArrow(&p.s, &p.a, &a, NULL));
    ck_assert_int_eq(p.releases, 1);
    const uint8_t want[9] = {1, 0, 1, 1, 0, 1, 0, 1, 1};
    ck_assert(memcmp(NclArrayData(a), want, 9) == 0);
    NclArrayRelease(a);

    /* values not aligned to int32: copied */
    producer_init(&p, "i");
    p.buffers[1] = (const char *)p.values + 1;
    p.a.length = 4;
    NCL_CHECK_OK(NclFromArrow(&p.s, &p.a, &a, NULL));
    ck_assert_int_eq(p.releases, 1);
    ck_assert(memcmp(NclArrayData(a), (const char *)p.values + 1, 16) == 0);
    NclArrayRelease(a);
}
END_TEST

START_TEST(test_import_refusals)
{
    producer p;
    NclArray *a = NULL, *v = NULL;
#define REFUSED(setup, status)                                                  \
    do {                                                                        \
        producer_init(&p, "i");                                                 \
        setup;                                                                  \
        NCL_CHECK_STATUS(NclFromArrow(&p.s, &p.a, &a, &v), status);             \
        ck_assert_ptr_null(a);                                                  \
        ck_assert_ptr_null(v);                                                  \
        ck_assert_int_eq(p.releases, 1);                                        \
        ck_assert(p.a.release == NULL);                                        \
    } while (0)
    REFUSED(p.s.format = "z", NCL_ERR_UNSUPPORTED);
    REFUSED(p.s.format = "", NCL_ERR_UNSUPPORTED);
    REFUSED(p.s.format = "ii", NCL_ERR_UNSUPPORTED);
    REFUSED(p.s.format = "e", NCL_ERR_UNSUPPORTED); /* float16 */
    REFUSED(p.s.format = "+w:4", NCL_ERR_INVALID_ARGUMENT); /* no tensor metadata */
    REFUSED(p.a.length = -1, NCL_ERR_INVALID_ARGUMENT);
    REFUSED(p.a.offset = -2, NCL_ERR_INVALID_ARGUMENT);
    REFUSED(p.a.null_count = -5, NCL_ERR_INVALID_ARGUMENT);
    REFUSED(p.a.n_buffers = 3, NCL_ERR_INVALID_ARGUMENT);
    REFUSED(p.a.n_buffers = 1, NCL_ERR_INVALID_ARGUMENT);
    REFUSED(p.buffers[1] = NULL, NCL_ERR_INVALID_ARGUMENT);
    REFUSED(p.s.release = NULL, NCL_ERR_INVALID_ARGUMENT);
    /* offsets and lengths whose element, bit or byte positions int64
       cannot hold, and ones that run past the end of the address space */
    REFUSED(p.a.offset = INT64_MAX, NCL_ERR_SHAPE);
    REFUSED(p.a.offset = (int64_t)1 << 61, NCL_ERR_SHAPE); /* x 4 bytes */
    REFUSED((p.a.offset = INT64_MAX - 5, p.buffers[0] = p.bitmap, p.a.null_count = -1),
            NCL_ERR_SHAPE);
    REFUSED((p.s.format = "b", p.a.offset = INT64_MAX - 3, p.buffers[1] = p.bools),
            NCL_ERR_SHAPE);
    REFUSED((p.a.offset = 8, p.buffers[1] = (const void *)(UINTPTR_MAX - 15)),
            NCL_ERR_INVALID_ARGUMENT);
    /* nulls, but no place to say where */
    producer_init(&p, "i");
    p.buffers[0] = p.bitmap;
    p.a.null_count = 1;
    p.a.length = 12;
    NCL_CHECK_STATUS(NclFromArrow(&p.s, &p.a, &a, NULL), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(p.releases, 1);
#undef REFUSED
    /* a released struct: refused, nothing called */
    producer_init(&p, "i");
    p.a.release = NULL;
    NCL_CHECK_STATUS(NclFromArrow(&p.s, &p.a, &a, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("released");
    ck_assert_int_eq(p.releases, 0);
    producer_init(&p, "i");
    NCL_CHECK_STATUS(NclFromArrow(&p.s, &p.a, NULL, NULL), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(p.releases, 1);
}
END_TEST

/* ---- a producer's tensors ---------------------------------------------------- */

/* An arrow.fixed_shape_tensor of the given shape (JSON) and list size over
   a producer's int32 values. */
typedef struct tensor_producer {
    producer values;
    struct ArrowSchema s;
    struct ArrowArray a;
    struct ArrowSchema *schildren[1];
    struct ArrowArray *achildren[1];
    const void *buffers[1];
    char format[32];
    char meta[256];
    int releases;
} tensor_producer;

static void tensor_release(struct ArrowArray *a)
{
    ((tensor_producer *)a->private_data)->releases++;
    a->release = NULL;
}

static char *put_meta_str(char *p, const char *str)
{
    const int32_t n = (int32_t)strlen(str);
    memcpy(p, &n, 4);
    memcpy(p + 4, str, (size_t)n);
    return p + 4 + n;
}

static void tensor_init(tensor_producer *t, const char *shape_json, const char *list_size,
                        int64_t length)
{
    memset(t, 0, sizeof *t);
    producer_init(&t->values, "i");
    t->values.a.length = 20;
    const int32_t npairs = 2;
    memcpy(t->meta, &npairs, 4);
    char *m = put_meta_str(t->meta + 4, "ARROW:extension:name");
    m = put_meta_str(m, "arrow.fixed_shape_tensor");
    m = put_meta_str(m, "ARROW:extension:metadata");
    char json[160];
    snprintf(json, sizeof json, "{\"shape\":%s}", shape_json);
    put_meta_str(m, json);
    snprintf(t->format, sizeof t->format, "+w:%s", list_size);
    t->schildren[0] = &t->values.s;
    t->achildren[0] = &t->values.a;
    t->s = (struct ArrowSchema){.format = t->format, .name = "t", .metadata = t->meta,
                                .n_children = 1, .children = t->schildren,
                                .release = schema_release};
    t->a = (struct ArrowArray){.length = length, .n_buffers = 1, .n_children = 1,
                               .buffers = t->buffers, .children = t->achildren,
                               .release = tensor_release, .private_data = t};
}

START_TEST(test_import_tensor_sizes)
{
    tensor_producer t;
    NclArray *a = NULL;
    /* well-formed: one 2x5 tensor over the first 10 of the 20 values */
    tensor_init(&t, "[2,5]", "10", 1);
    NCL_CHECK_OK(NclFromArrow(&t.s, &t.a, &a, NULL));
    ck_assert_int_eq(NclArrayNDim(a), 3);
    ck_assert_int_eq(NclArrayShape(a)[0], 1);
    ck_assert_ptr_eq(NclArrayData(a), t.values.values);
    NclArrayRelease(a);
    ck_assert_int_eq(t.releases, 1);

#define TENSOR_REFUSED(shape, list, length, setup, status)                      \
    do {                                                                        \
        tensor_init(&t, shape, list, length);                                   \
        setup;                                                                  \
        a = (NclArray *)(uintptr_t)0x9;                                         \
        NCL_CHECK_STATUS(NclFromArrow(&t.s, &t.a, &a, NULL), status);           \
        ck_assert_ptr_null(a);                                                  \
        ck_assert_int_eq(t.releases, 1);                                        \
        ck_assert_int_eq(t.values.releases, 0); /* the parent's release's */    \
        ck_assert(t.a.release == NULL);                                         \
    } while (0)
    /* a shape whose element count int64 cannot hold (the list size is what
       the product wraps to) */
    TENSOR_REFUSED("[4611686018427387904,4]", "0", 1, (void)0, NCL_ERR_SHAPE);
    NCL_CHECK_MESSAGE_HAS("more elements than int64 can count");
    TENSOR_REFUSED("[9223372036854775807,2]", "-2", 1, (void)0, NCL_ERR_SHAPE);
    TENSOR_REFUSED("[3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,"
                   "3,3,3,3]", "0", 1, (void)0, NCL_ERR_SHAPE);
    /* tensors x list size, offset x list size, offset + tensors */
    TENSOR_REFUSED("[1099511627776]", "1099511627776", (int64_t)1 << 30, (void)0, NCL_ERR_SHAPE);
    TENSOR_REFUSED("[1099511627776]", "1099511627776", 1, t.a.offset = (int64_t)1 << 30,
                   NCL_ERR_SHAPE);
    TENSOR_REFUSED("[1]", "1", 1, t.a.offset = INT64_MAX, NCL_ERR_SHAPE);
    TENSOR_REFUSED("[4]", "4", 1, (t.a.offset = 2, t.values.a.offset = INT64_MAX - 9),
                   NCL_ERR_SHAPE);
    /* in range, but longer than the values */
    TENSOR_REFUSED("[2,5]", "10", 3, (void)0, NCL_ERR_INVALID_ARGUMENT);
    /* a list size that is not a plain decimal number */
    TENSOR_REFUSED("[2,3]", "6x", 1, (void)0, NCL_ERR_INVALID_ARGUMENT);
    TENSOR_REFUSED("[0,3]", "abc", 1, (void)0, NCL_ERR_INVALID_ARGUMENT);
    TENSOR_REFUSED("[0,3]", "", 1, (void)0, NCL_ERR_INVALID_ARGUMENT);
    TENSOR_REFUSED("[2,3]", "+6", 1, (void)0, NCL_ERR_INVALID_ARGUMENT);
#undef TENSOR_REFUSED
}
END_TEST

START_TEST(test_tensor_metadata_and_export_refusals)
{
    static double d[6] = {1, 2, 3, 4, 5, 6};
    NclArray *a = NULL, *b = NULL;
    NCL_CHECK_OK(NclFromData(NCL_FLOAT64, 2, NCL_DIMS(2, 3), NULL, d, 0, NULL, NULL, &a));
    struct ArrowSchema s;
    struct ArrowArray arr;
    NCL_CHECK_OK(NclToArrow(a, NULL, &s, &arr));
    /* the metadata: 2 pairs, the extension name, then {"shape":[2,3]} */
    const char *m = s.metadata;
    int32_t npairs, klen;
    memcpy(&npairs, m, 4);
    memcpy(&klen, m + 4, 4);
    ck_assert_int_eq(npairs, 2);
    /* the specification's int32s are in the machine's byte order: 2 is
       02 00 00 00 on little-endian machines, 00 00 00 02 on s390x */
    ck_assert_int_eq((unsigned char)m[NCL_TEST_BIG_ENDIAN ? 3 : 0], 2);
    ck_assert_int_eq((unsigned char)m[NCL_TEST_BIG_ENDIAN ? 0 : 3], 0);
    ck_assert(memcmp(m + 8, "ARROW:extension:name", (size_t)klen) == 0);
    ck_assert_str_eq(s.children[0]->format, "g");
    ck_assert_ptr_eq(arr.children[0]->buffers[1], d); /* C order: no copy */
    NCL_CHECK_OK(NclFromArrow(&s, &arr, &b, NULL));
    ck_assert_ptr_eq(NclArrayData(b), d);
    ck_assert_int_eq(NclArrayShape(b)[0], 2);
    ck_assert_int_eq(NclArrayShape(b)[1], 3);
    s.release(&s);
    NclArrayRelease(b);
    /* a released export releases nothing twice */
    NCL_CHECK_OK(NclToArrow(a, NULL, &s, &arr));
    arr.release(&arr);
    ck_assert(arr.release == NULL);
    s.release(&s);

    /* export refusals leave both structs released */
    NclArray *bad = NULL;
    NCL_CHECK_OK(NclFromData(NCL_INT8, 2, NCL_DIMS(2, 3), NULL, d, 0, NULL, NULL, &bad));
    s.release = schema_release;
    arr.release = producer_release;
    NCL_CHECK_STATUS(NclToArrow(a, bad, &s, &arr), NCL_ERR_INVALID_ARGUMENT);
    ck_assert(s.release == NULL);
    ck_assert(arr.release == NULL);
    NCL_CHECK_STATUS(NclToArrow(NULL, NULL, &s, &arr), NCL_ERR_INVALID_ARGUMENT);
    NclArrayRelease(bad);
    NCL_CHECK_OK(NclFromDataKind(NCL_INT8, 1, NCL_DIMS(2), NULL, d, 0, NULL, NULL, NCL_MEM_DEVICE,
                                 0, &bad));
    NCL_CHECK_STATUS(NclToArrow(bad, NULL, &s, &arr), NCL_ERR_DEVICE_MEMORY);
    NclArrayRelease(bad);
    /* zero-stride views with more elements than memory: the copy an export
       makes has a byte size int64 cannot hold */
    NCL_CHECK_OK(NclFromData(NCL_FLOAT64, 1, NCL_DIMS((int64_t)1 << 62), NCL_DIMS(0), d, 0, NULL,
                             NULL, &bad));
    s.release = schema_release;
    arr.release = producer_release;
    NCL_CHECK_STATUS(NclToArrow(bad, NULL, &s, &arr), NCL_ERR_SHAPE);
    ck_assert(s.release == NULL);
    ck_assert(arr.release == NULL);
    NclArrayRelease(bad);
    NCL_CHECK_OK(NclFromData(NCL_INT32, 2, NCL_DIMS((int64_t)1 << 31, (int64_t)1 << 31),
                             NCL_DIMS(0, 0), d, 0, NULL, NULL, &bad));
    NCL_CHECK_STATUS(NclToArrow(bad, NULL, &s, &arr), NCL_ERR_SHAPE);
    NCL_CHECK_MESSAGE_HAS("more bytes than int64 can count");
    NclArrayRelease(bad);
    NclArrayRelease(a);
}
END_TEST

static Suite *arrow_suite(void)
{
    Suite *s = suite_create("arrow");
    TCase *tc = ncl_test_tcase(s, "arrow");
    tcase_add_test(tc, test_property_round_trip);
    tcase_add_test(tc, test_import_offsets_nulls_bools);
    tcase_add_test(tc, test_import_refusals);
    tcase_add_test(tc, test_import_tensor_sizes);
    tcase_add_test(tc, test_tensor_metadata_and_export_refusals);
    return s;
}

NCL_TEST_MAIN(arrow_suite)
