/*
 * arrow.c: NclArray <-> Arrow C Data Interface (include/ncl/arrow.h).
 *
 * Export fills the caller's ArrowSchema and ArrowArray; each has one
 * malloc'd private block that owns everything the struct points to (format
 * and metadata strings, buffer pointer arrays, children, copied buffers)
 * and, for values exported without a copy, a reference to the NclArray.
 * Import moves the ArrowArray into a heap copy that the NclArray's
 * deleter releases; when the values must be copied (booleans, misaligned
 * values) the Arrow array is released as soon as they are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "array/ncl_array.h"

/* ---- formats ------------------------------------------------------------------ */

static const char *format_of(NclDType t)
{
    static const char *const f[NCL_NTYPES] = {
        [NCL_BOOL] = "b",   [NCL_INT8] = "c",   [NCL_INT16] = "s",  [NCL_INT32] = "i",
        [NCL_INT64] = "l",  [NCL_UINT8] = "C",  [NCL_UINT16] = "S", [NCL_UINT32] = "I",
        [NCL_UINT64] = "L", [NCL_FLOAT32] = "f", [NCL_FLOAT64] = "g",
    };
    return f[t];
}

/* NCLib's dtype for a primitive format, or -1. */
static int dtype_of_format(const char *fmt)
{
    if (fmt == NULL || fmt[0] == '\0' || fmt[1] != '\0') return -1;
    for (int t = 0; t < NCL_NTYPES; t++)
        if (format_of((NclDType)t)[0] == fmt[0]) return t;
    return -1;
}

#define TENSOR_EXT "arrow.fixed_shape_tensor"
#define KEY_NAME "ARROW:extension:name"
#define KEY_META "ARROW:extension:metadata"

/* ---- bits --------------------------------------------------------------------- */

/* Bytes of a bitmap of n >= 0 bits. */
static int64_t bit_bytes(int64_t n) { return n / 8 + (n % 8 != 0); }

/* n bytes of 0/1 at src -> LSB-first bits at dst (zeroed first); returns
   the count of set bits. */
static int64_t pack_bits(const uint8_t *src, int64_t n, uint8_t *dst)
{
    int64_t set = 0;
    memset(dst, 0, (size_t)bit_bytes(n));
    for (int64_t i = 0; i < n; i++) {
        const int v = src[i] != 0;
        dst[i >> 3] |= (uint8_t)(v << (i & 7));
        set += v;
    }
    return set;
}

static void unpack_bits(const uint8_t *bits, int64_t offset, int64_t n, uint8_t *dst)
{
    for (int64_t i = 0; i < n; i++) {
        const int64_t j = offset + i;
        dst[i] = (uint8_t)((bits[j >> 3] >> (j & 7)) & 1);
    }
}

/* ---- export ------------------------------------------------------------------- */

typedef struct schema_priv {
    char format[32];
    char *metadata;
    struct ArrowSchema child;
    struct ArrowSchema *children[1];
} schema_priv;

typedef struct array_priv {
    const void *buffers[2];
    void *owned[2];          /* malloc'd buffers (validity, values) */
    NclArray *ref;           /* the array whose memory the values are */
    struct ArrowArray child;
    struct ArrowArray *children[1];
} array_priv;

static void release_schema(struct ArrowSchema *s)
{
    if (s == NULL || s->release == NULL) return;
    schema_priv *p = s->private_data;
    if (p) {
        if (s->n_children > 0 && p->child.release) p->child.release(&p->child);
        free(p->metadata);
        free(p);
    }
    s->release = NULL;
}

static void release_array(struct ArrowArray *a)
{
    if (a == NULL || a->release == NULL) return;
    array_priv *p = a->private_data;
    if (p) {
        if (a->n_children > 0 && p->child.release) p->child.release(&p->child);
        free(p->owned[0]);
        free(p->owned[1]);
        NclArrayRelease(p->ref);
        free(p);
    }
    a->release = NULL;
}

static void put_i32(char **p, int32_t v)
{
    memcpy(*p, &v, sizeof v);
    *p += sizeof v;
}

static void put_str(char **p, const char *s)
{
    const int32_t n = (int32_t)strlen(s);
    put_i32(p, n);
    memcpy(*p, s, (size_t)n);
    *p += n;
}

/* The extension metadata of a tensor of the given shape. */
static char *tensor_metadata(int ndim, const int64_t *shape)
{
    char json[32 + 24 * NCL_MAXDIMS];
    size_t len = (size_t)snprintf(json, sizeof json, "{\"shape\":[");
    for (int d = 0; d < ndim; d++)
        len += (size_t)snprintf(json + len, sizeof json - len, "%s%lld", d ? "," : "",
                                (long long)shape[d]);
    snprintf(json + len, sizeof json - len, "]}");
    const size_t total = 4 + 2 * 4 + strlen(KEY_NAME) + strlen(TENSOR_EXT) + 2 * 4 +
                         strlen(KEY_META) + strlen(json);
    char *m = malloc(total), *p = m;
    if (m == NULL) return NULL;
    put_i32(&p, 2);
    put_str(&p, KEY_NAME);
    put_str(&p, TENSOR_EXT);
    put_str(&p, KEY_META);
    put_str(&p, json);
    return m;
}

/* One primitive array of n values of dtype t (values in C order at vals,
   a reference to keep when ref is set, else vals is owned), with the
   validity bytes valid (C order, or NULL). Bool values are packed here. */
static NclStatus fill_primitive(const char *who, NclDType t, int64_t n, char *vals, NclArray *ref,
                                const uint8_t *valid, struct ArrowSchema *s, struct ArrowArray *a)
{
    schema_priv *sp = calloc(1, sizeof *sp);
    array_priv *ap = calloc(1, sizeof *ap);
    uint8_t *bitmap = valid ? malloc((size_t)bit_bytes(n) + 1) : NULL;
    uint8_t *bits = t == NCL_BOOL ? malloc((size_t)bit_bytes(n) + 1) : NULL;
    if (sp == NULL || ap == NULL || (valid && bitmap == NULL) || (t == NCL_BOOL && bits == NULL)) {
        free(sp), free(ap), free(bitmap), free(bits);
        if (ref == NULL) free(vals);
        NclArrayRelease(ref);
        return ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    }
    int64_t nulls = 0;
    if (valid) nulls = n - pack_bits(valid, n, bitmap);
    if (t == NCL_BOOL) {
        pack_bits((const uint8_t *)vals, n, bits);
        if (ref == NULL) free(vals);
        NclArrayRelease(ref);
        ref = NULL;
        vals = (char *)bits;
    }
    snprintf(sp->format, sizeof sp->format, "%s", format_of(t));
    *s = (struct ArrowSchema){.format = sp->format, .name = "", .metadata = NULL,
                              .flags = valid ? ARROW_FLAG_NULLABLE : 0, .n_children = 0,
                              .children = NULL, .dictionary = NULL, .release = release_schema,
                              .private_data = sp};
    ap->buffers[0] = bitmap;
    ap->buffers[1] = vals;
    ap->owned[0] = bitmap;
    ap->owned[1] = ref ? NULL : vals;
    ap->ref = ref;
    *a = (struct ArrowArray){.length = n, .null_count = nulls, .offset = 0, .n_buffers = 2,
                             .n_children = 0, .buffers = ap->buffers, .children = NULL,
                             .dictionary = NULL, .release = release_array, .private_data = ap};
    return NCL_OK;
}

NclStatus NclToArrow(const NclArray *a, const NclArray *valid, struct ArrowSchema *schema,
                     struct ArrowArray *array)
{
    static const char who[] = "NclToArrow";
    if (schema) schema->release = NULL;
    if (array) array->release = NULL;
    if (a == NULL || schema == NULL || array == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who,
                         a == NULL ? "a" : schema == NULL ? "schema" : "array");
    NclStatus chk = ncl_array_check(who, "a", a);
    if (chk == NCL_OK) chk = ncl_array_check(who, "valid", valid);
    if (chk != NCL_OK) return chk;
    if (a->kind == NCL_MEM_DEVICE || a->kind == NCL_MEM_UNKNOWN ||
        (valid && (valid->kind == NCL_MEM_DEVICE || valid->kind == NCL_MEM_UNKNOWN)))
        return ncl_error(NCL_ERR_DEVICE_MEMORY, "%s: device or unknown memory cannot be exported",
                         who);
    if (valid) {
        int same = valid->dtype == NCL_BOOL && valid->ndim == a->ndim;
        for (int d = 0; same && d < a->ndim; d++) same = valid->shape[d] == a->shape[d];
        if (!same)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                             "%s: valid must be a bool array of a's shape (true = present)", who);
    }
    /* A view with zero strides can have more elements than memory: its
       copy, or its validity's, must have a size first. */
    const int64_t n = a->size;
    int64_t bytes;
    if (ncl_mul_overflow(n, (int64_t)a->itemsize, &bytes) || (uint64_t)bytes >= (uint64_t)SIZE_MAX)
        return ncl_error(NCL_ERR_SHAPE, "%s: a copy of the %lld elements of %zu bytes would have "
                         "more bytes than int64 can count", who, (long long)n, a->itemsize);
    const int contiguous = a->ndim <= 1 ? (n <= 1 || a->strides[0] == (int64_t)a->itemsize)
                                        : (a->flags & NCL_ARRAY_C_CONTIGUOUS) != 0;
    char *vals;
    NclArray *ref = NULL;
    if (contiguous && a->dtype != NCL_BOOL && n > 0) {
        vals = a->data;
        NclArrayRetain((NclArray *)a);
        ref = (NclArray *)a;
    } else {
        vals = malloc((size_t)n * a->itemsize + 1);
        if (vals == NULL) return ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
        if (n > 0) ncl_array_copy_c_order(a, vals);
    }
    uint8_t *vbytes = NULL;
    if (valid) {
        vbytes = malloc((size_t)n + 1);
        if (vbytes == NULL) {
            if (ref) NclArrayRelease(ref); else free(vals);
            return ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
        }
        if (n > 0) ncl_array_copy_c_order(valid, (char *)vbytes);
    }
    NclStatus st;
    if (a->ndim <= 1) {
        st = fill_primitive(who, a->dtype, n, vals, ref, vbytes, schema, array);
        free(vbytes);
        return st;
    }
    /* N dimensions: a fixed_shape_tensor array of shape[0] tensors of
       shape[1..], the values its list's child. */
    int64_t per = 1;
    for (int d = 1; d < a->ndim; d++) per *= a->shape[d];
    schema_priv *sp = calloc(1, sizeof *sp);
    array_priv *ap = calloc(1, sizeof *ap);
    char *meta = tensor_metadata(a->ndim - 1, a->shape + 1);
    if (sp == NULL || ap == NULL || meta == NULL) {
        free(sp), free(ap), free(meta), free(vbytes);
        if (ref) NclArrayRelease(ref); else free(vals);
        return ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    }
    st = fill_primitive(who, a->dtype, n, vals, ref, vbytes, &sp->child, &ap->child);
    free(vbytes);
    if (st) {
        free(sp), free(ap), free(meta);
        return st;
    }
    sp->child.name = "item";
    snprintf(sp->format, sizeof sp->format, "+w:%lld", (long long)per);
    sp->metadata = meta;
    sp->children[0] = &sp->child;
    *schema = (struct ArrowSchema){.format = sp->format, .name = "", .metadata = meta,
                                   .flags = 0, .n_children = 1, .children = sp->children,
                                   .dictionary = NULL, .release = release_schema,
                                   .private_data = sp};
    ap->buffers[0] = NULL;
    ap->children[0] = &ap->child;
    *array = (struct ArrowArray){.length = a->shape[0], .null_count = 0, .offset = 0, .n_buffers = 1,
                                 .n_children = 1, .buffers = ap->buffers,
                                 .children = ap->children, .dictionary = NULL,
                                 .release = release_array, .private_data = ap};
    return NCL_OK;
}

/* ---- import ------------------------------------------------------------------- */

/* The deleter of an imported array's memory: ctx is the moved ArrowArray. */
static void import_deleter(void *ctx, void *data)
{
    (void)data;
    struct ArrowArray *moved = ctx;
    if (moved->release) moved->release(moved);
    free(moved);
}

static int32_t get_i32(const char **p)
{
    int32_t v;
    memcpy(&v, *p, sizeof v);
    *p += sizeof v;
    return v;
}

/* The shape in a fixed_shape_tensor's metadata; -1 when malformed, -2 when
   a permutation other than the identity is given. */
static int tensor_shape(const char *meta, int64_t *shape)
{
    if (meta == NULL) return -1;
    const char *p = meta;
    const int32_t npairs = get_i32(&p);
    if (npairs < 0 || npairs > 64) return -1;
    int is_tensor = 0, ndim = -1;
    for (int32_t i = 0; i < npairs; i++) {
        const int32_t klen = get_i32(&p);
        if (klen < 0 || klen > (1 << 20)) return -1;
        const char *key = p;
        p += klen;
        const int32_t vlen = get_i32(&p);
        if (vlen < 0 || vlen > (1 << 20)) return -1;
        const char *val = p;
        p += vlen;
        if (klen == (int32_t)strlen(KEY_NAME) && memcmp(key, KEY_NAME, (size_t)klen) == 0)
            is_tensor = vlen == (int32_t)strlen(TENSOR_EXT) &&
                        memcmp(val, TENSOR_EXT, (size_t)vlen) == 0;
        if (klen == (int32_t)strlen(KEY_META) && memcmp(key, KEY_META, (size_t)klen) == 0) {
            char json[4096];
            if (vlen >= (int32_t)sizeof json) return -1;
            memcpy(json, val, (size_t)vlen);
            json[vlen] = '\0';
            const char *perm = strstr(json, "\"permutation\"");
            const char *s = strstr(json, "\"shape\"");
            if (s == NULL || (s = strchr(s, '[')) == NULL) return -1;
            ndim = 0;
            for (s++;;) {
                while (*s == ' ') s++;
                if (*s == ']') break;
                char *end;
                const long long v = strtoll(s, &end, 10);
                if (end == s || v < 0 || ndim == NCL_MAXDIMS - 1) return -1;
                shape[ndim++] = v;
                s = end;
                while (*s == ' ') s++;
                if (*s == ',') s++;
                else if (*s != ']') return -1;
            }
            if (perm) {
                const char *q = strchr(perm, '[');
                for (int d = 0; q && d < ndim; d++) {
                    char *end;
                    if (strtoll(q + 1, &end, 10) != d) return -2;
                    q = strchr(end, ',');
                }
            }
        }
    }
    return is_tensor ? ndim : -1;
}

/* Whether bytes bytes from p run past the end of the address space: a
   producer's offset and length can say so, whatever its buffer is. */
static int past_address_space(const void *p, int64_t bytes)
{
    return p != NULL && (uint64_t)bytes > (uint64_t)(UINTPTR_MAX - (uintptr_t)p);
}

/* Releases the array (if it is a live struct) and returns st. */
static NclStatus refuse(struct ArrowArray *array, NclStatus st)
{
    if (array && array->release) array->release(array);
    return st;
}

NclStatus NclFromArrow(const struct ArrowSchema *schema, struct ArrowArray *array,
                       NclArray **out, NclArray **valid_out)
{
    static const char who[] = "NclFromArrow";
    if (out) *out = NULL;
    if (valid_out) *valid_out = NULL;
    if (array && array->release == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: the array is released (release is NULL)",
                         who);
    if (schema == NULL || array == NULL || out == NULL)
        return refuse(array, ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who,
                                       schema == NULL ? "schema" : array == NULL ? "array" : "out"));
    if (schema->release == NULL)
        return refuse(array, ncl_error(NCL_ERR_INVALID_ARGUMENT,
                                       "%s: the schema is released (release is NULL)", who));
    /* The values' array (a tensor's child) and the NCLib shape. */
    int ndim = 1;
    int64_t shape[NCL_MAXDIMS];
    const struct ArrowSchema *vs = schema;
    const struct ArrowArray *va = array;
    int64_t tensors = 0, per = 1;
    NclStatus st;
    if (schema->format && strncmp(schema->format, "+w:", 3) == 0) {
        const int nd = tensor_shape(schema->metadata, shape + 1);
        if (nd == -2)
            return refuse(array, ncl_error(NCL_ERR_UNSUPPORTED,
                                           "%s: a fixed_shape_tensor with a permutation", who));
        if (nd < 0 || schema->n_children != 1 || schema->children == NULL ||
            schema->children[0] == NULL || array->n_children != 1 || array->children == NULL ||
            array->children[0] == NULL || array->n_buffers != 1)
            return refuse(array, ncl_error(NCL_ERR_INVALID_ARGUMENT,
                                           "%s: format %s is not a well-formed "
                                           "arrow.fixed_shape_tensor (extension metadata with "
                                           "its shape, one child, one buffer)",
                                           who, schema->format));
        /* Sizes from here on come from the producer's metadata: each is
           computed overflow-checked, and one int64 cannot hold is refused. */
        st = ncl_shape_check(who, nd, shape + 1, &per);
        if (st) return refuse(array, st);
        /* the list size: decimal digits only, and the shape's element count */
        const char *ls = schema->format + 3;
        char *end = NULL;
        const long long list_size = strtoll(ls, &end, 10);
        if (ls[0] < '0' || ls[0] > '9' || *end != '\0' || list_size != per)
            return refuse(array, ncl_error(NCL_ERR_INVALID_ARGUMENT,
                                           "%s: list size '%s' is not the shape's %lld "
                                           "elements", who, ls, (long long)per));
        if (array->length < 0 || array->offset < 0)
            return refuse(array, ncl_error(NCL_ERR_INVALID_ARGUMENT,
                                           "%s: negative length or offset", who));
        tensors = array->length;
        shape[0] = tensors;
        ndim = nd + 1;
        vs = schema->children[0];
        va = array->children[0];
    }
    const int dtype = dtype_of_format(vs->format);
    if (dtype < 0)
        return refuse(array, ncl_error(NCL_ERR_UNSUPPORTED,
                                       "%s: format \"%s\" has no NCLib dtype", who,
                                       vs->format ? vs->format : "(null)"));
    if (va->length < 0 || va->offset < 0 || va->null_count < -1)
        return refuse(array, ncl_error(NCL_ERR_INVALID_ARGUMENT,
                                       "%s: negative length, offset or null count", who));
    if (va->n_buffers != 2 || va->buffers == NULL || va->n_children != 0)
        return refuse(array, ncl_error(NCL_ERR_INVALID_ARGUMENT,
                                       "%s: a primitive array has 2 buffers and no children "
                                       "(this one %lld and %lld)",
                                       who, (long long)va->n_buffers, (long long)va->n_children));
    /* The values are elements first .. first + n - 1 of the child's
       buffers: its offset, then the list's offset in whole tensors. */
    int64_t first = va->offset, n = va->length;
    const size_t isz = ncl_dtype_size[dtype];
    if (ndim > 1) {
        if (array->n_buffers == 1 && array->buffers && array->buffers[0] && array->null_count != 0)
            return refuse(array, ncl_error(NCL_ERR_UNSUPPORTED,
                                           "%s: null tensors (the list's own validity)", who));
        st = ncl_shape_check(who, ndim, shape, &n);
        if (st) return refuse(array, st);
        int64_t skip, end;
        if (ncl_mul_overflow(array->offset, per, &skip) || ncl_add_overflow(first, skip, &first) ||
            ncl_add_overflow(array->offset, tensors, &end) || ncl_mul_overflow(end, per, &end))
            return refuse(array, ncl_error(NCL_ERR_SHAPE,
                                           "%s: %lld tensors of %lld elements from tensor "
                                           "%lld, after %lld values, lie past what int64 can "
                                           "count", who, (long long)tensors, (long long)per,
                                           (long long)array->offset, (long long)va->offset));
        if (va->length < end)
            return refuse(array, ncl_error(NCL_ERR_INVALID_ARGUMENT,
                                           "%s: the values are shorter than the tensors", who));
    } else {
        shape[0] = n;
    }
    /* bytes bounds every copy below (a bool is a byte once unpacked). */
    int64_t stop, bytes;
    if (ncl_add_overflow(first, n, &stop) || ncl_mul_overflow(stop, (int64_t)isz, &bytes) ||
        (uint64_t)bytes >= (uint64_t)SIZE_MAX)
        return refuse(array, ncl_error(NCL_ERR_SHAPE,
                                       "%s: %lld values of %zu bytes after %lld lie past what "
                                       "int64 can count", who, (long long)n, isz,
                                       (long long)first));
    const uint8_t *bitmap = va->buffers[0];
    const char *values = va->buffers[1];
    if (n > 0 && values == NULL)
        return refuse(array, ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: the values buffer is NULL",
                                       who));
    if (past_address_space(values, dtype == NCL_BOOL ? bit_bytes(stop) : bytes) ||
        past_address_space(bitmap, bit_bytes(stop)))
        return refuse(array, ncl_error(NCL_ERR_INVALID_ARGUMENT,
                                       "%s: %lld values after %lld reach outside the address "
                                       "space from buffers at %p and %p", who, (long long)n,
                                       (long long)first, (const void *)bitmap,
                                       (const void *)values));
    const int has_nulls = bitmap != NULL && va->null_count != 0 && n > 0;
    uint8_t *vbytes = NULL;
    if (has_nulls) {
        vbytes = malloc((size_t)n + 1);
        if (vbytes == NULL) return refuse(array, ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who));
        unpack_bits(bitmap, first, n, vbytes);
        int all = 1;
        for (int64_t i = 0; i < n && all; i++) all = vbytes[i];
        if (all) {
            free(vbytes);
            vbytes = NULL;
        } else if (valid_out == NULL) {
            free(vbytes);
            return refuse(array, ncl_error(NCL_ERR_INVALID_ARGUMENT,
                                           "%s: the array has nulls and valid_out is NULL", who));
        }
    }
    const char *src = values ? values + (dtype == NCL_BOOL ? 0 : first * (int64_t)isz) : NULL;
    const int copy = dtype == NCL_BOOL || (n > 0 && (uintptr_t)src % isz != 0);
    NclArray *a = NULL, *v = NULL;
    if (copy) {
        char *buf = malloc((size_t)n * isz + 1);
        if (buf == NULL) {
            free(vbytes);
            return refuse(array, ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who));
        }
        if (dtype == NCL_BOOL) unpack_bits((const uint8_t *)values, first, n, (uint8_t *)buf);
        else if (n > 0) memcpy(buf, src, (size_t)n * isz);
        int64_t total;
        st = ncl_shape_check(who, ndim, shape, &total);
        if (st == NCL_OK) st = ncl_array_alloc(who, (NclDType)dtype, ndim, shape, NCL_ORDER_C, 0, &a);
        if (st == NCL_OK) {
            if (n > 0) memcpy(a->data, buf, (size_t)n * isz);
            a->flags &= ~(uint32_t)NCL_ARRAY_WRITEABLE;
        }
        free(buf);
        refuse(array, NCL_OK); /* copied: the Arrow array is done with */
    } else {
        struct ArrowArray *moved = malloc(sizeof *moved);
        if (moved == NULL) {
            free(vbytes);
            return refuse(array, ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who));
        }
        *moved = *array;
        array->release = NULL; /* moved */
        st = NclFromData((NclDType)dtype, ndim, shape, NULL, (void *)src, 0, import_deleter, moved,
                         &a);
        if (st) import_deleter(moved, NULL);
    }
    if (st == NCL_OK && vbytes) {
        st = ncl_array_alloc(who, NCL_BOOL, ndim, shape, NCL_ORDER_C, 0, &v);
        if (st == NCL_OK) memcpy(v->data, vbytes, (size_t)n);
    }
    free(vbytes);
    if (st) {
        NclArrayRelease(a);
        return st;
    }
    *out = a;
    if (valid_out) *valid_out = v;
    return NCL_OK;
}
