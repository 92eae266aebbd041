/*
 * create.c: the Create subsystem's default implementation (the tail of its
 * hook chain) and the convenience constructors, which only fill in an
 * NclCreateParams and enter the chain through NclCreate so that hooks see
 * every new array. Values follow NumPy's empty/zeros/ones/full/arange/
 * linspace/eye/copy; every conversion of a double into an integer dtype
 * saturates (NaN gives 0), as NCLib's casts do, so no input is undefined.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "defaults/ncl_defaults.h"
#include "exec/ncl_exec.h"
#include "hooks/ncl_hooks.h"

static const char *const op_names[] = {
#define NCL_X_(name, text) text,
    NCL_CREATE_OP_LIST(NCL_X_)
#undef NCL_X_
};

/* ---- converting doubles to elements -------------------------------------------- */

/* Saturating double -> integer: the comparisons run in double, where the
   limits are exact or round outward, so the final cast is always in range. */
static int64_t sat_i(double v, int64_t lo, int64_t hi)
{
    if (v != v) return 0;
    if (v <= (double)lo) return lo;
    if (v >= (double)hi) return hi;
    return (int64_t)v;
}

static uint64_t sat_u(double v, uint64_t hi)
{
    if (v != v || v <= 0.0) return 0;
    if (v >= (double)hi) return hi;
    return (uint64_t)v;
}

/* The element bits of v in dtype t, as an unsigned word of the dtype's
   width (signed values in two's complement). */
static uint64_t bits_of(NclDType t, double v)
{
    switch (t) {
    case NCL_BOOL: return v != 0.0; /* NaN is true, as bool(nan) */
    case NCL_INT8: return (uint64_t)sat_i(v, INT8_MIN, INT8_MAX);
    case NCL_INT16: return (uint64_t)sat_i(v, INT16_MIN, INT16_MAX);
    case NCL_INT32: return (uint64_t)sat_i(v, INT32_MIN, INT32_MAX);
    case NCL_INT64: return (uint64_t)sat_i(v, INT64_MIN, INT64_MAX);
    case NCL_UINT8: return sat_u(v, UINT8_MAX);
    case NCL_UINT16: return sat_u(v, UINT16_MAX);
    case NCL_UINT32: return sat_u(v, UINT32_MAX);
    case NCL_UINT64: return sat_u(v, UINT64_MAX);
    case NCL_FLOAT32: {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        return u;
    }
    default: {
        uint64_t u;
        memcpy(&u, &v, sizeof u);
        return u;
    }
    }
}

/* Stores the low itemsize bytes of an element word (truncation is the
   modular narrowing NumPy's integer fill loops do). */
static void put_bits(char *p, size_t item, uint64_t w)
{
    switch (item) {
    case 1: { uint8_t x = (uint8_t)w; memcpy(p, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)w; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)w; memcpy(p, &x, 4); break; }
    default: memcpy(p, &w, 8); break;
    }
}

/* Writes the element at elem into all n slots of a contiguous block. */
static void fill_elem(char *data, int64_t n, size_t item, const void *elem)
{
    switch (item) {
    case 1: memset(data, *(const unsigned char *)elem, (size_t)n); break;
    case 2: {
        uint16_t v, *d = (uint16_t *)(void *)data;
        memcpy(&v, elem, 2);
        for (int64_t i = 0; i < n; i++) d[i] = v;
        break;
    }
    case 4: {
        uint32_t v, *d = (uint32_t *)(void *)data;
        memcpy(&v, elem, 4);
        for (int64_t i = 0; i < n; i++) d[i] = v;
        break;
    }
    default: {
        uint64_t v, *d = (uint64_t *)(void *)data;
        memcpy(&v, elem, 8);
        for (int64_t i = 0; i < n; i++) d[i] = v;
        break;
    }
    }
}

/* ---- the ops ---------------------------------------------------------------------- */

static NclStatus make_full(const char *who, NclDType dt, const NclCreateParams *p,
                           const void *elem, NclArray **out)
{
    NclArray *a = NULL;
    NclStatus s = ncl_array_alloc(who, dt, p->ndim, p->shape, p->order, 0, &a);
    if (s != NCL_OK) return s;
    unsigned char e[8];
    memcpy(e, elem, a->itemsize);
    if (dt == NCL_BOOL) e[0] = e[0] != 0; /* bools are stored as 0 or 1 */
    fill_elem(a->data, a->size, a->itemsize, e);
    *out = a;
    return NCL_OK;
}

/* NumPy's arange length: ceil((stop - start) / step), with its special
   case for a quotient that underflowed to zero. */
static NclStatus arange_length(const char *who, const NclCreateParams *p, int64_t *len)
{
    if (!isfinite(p->start) || !isfinite(p->stop) || !isfinite(p->step))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: start %g, stop %g and step %g must "
                         "all be finite", who, p->start, p->stop, p->step);
    if (p->step == 0.0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: step is zero", who);
    const double delta = p->stop - p->start;
    const double q = delta / p->step;
    if (q == 0.0 && delta != 0.0) {
        *len = signbit(q) ? 0 : 1;
        return NCL_OK;
    }
    const double c = ceil(q);
    if (!(c < 9223372036854775808.0))
        return ncl_error(NCL_ERR_SHAPE, "%s: start %g, stop %g, step %g give %g elements, "
                         "more than int64 can count", who, p->start, p->stop, p->step, c);
    *len = c > 0.0 ? (int64_t)c : 0;
    return NCL_OK;
}

static NclStatus make_arange(const char *who, NclDType dt, const NclCreateParams *p,
                             NclArray **out)
{
    int64_t n;
    NclStatus s = arange_length(who, p, &n);
    if (s != NCL_OK) return s;
    if (dt == NCL_BOOL && n > 2)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: a bool arange can have at most 2 "
                         "elements (start %g, stop %g, step %g give %lld)", who, p->start,
                         p->stop, p->step, (long long)n);
    NclArray *a = NULL;
    s = ncl_array_alloc(who, dt, 1, &n, NCL_ORDER_C, 0, &a);
    if (s != NCL_OK) return s;

    /* As NumPy: the first two elements are start and start + step converted
       to the dtype, and element i is first + i * (second - first) computed
       in the dtype itself. */
    const double next = p->start + p->step;
    char *d = a->data;
    /* The first two are stored, not computed: start + step may overflow to
       inf, and 0 * inf would turn the first into NaN. */
    if (dt == NCL_FLOAT64) {
        double *y = (double *)(void *)d, x0 = p->start, dx = next - x0;
        if (n > 0) y[0] = x0;
        if (n > 1) y[1] = next;
        for (int64_t i = 2; i < n; i++) y[i] = x0 + (double)i * dx;
    } else if (dt == NCL_FLOAT32) {
        float *y = (float *)(void *)d, x0 = (float)p->start, x1 = (float)next, dx = x1 - x0;
        if (n > 0) y[0] = x0;
        if (n > 1) y[1] = x1;
        for (int64_t i = 2; i < n; i++) y[i] = x0 + (float)i * dx;
    } else {
        /* Integers wrap modulo 2^width as NumPy's fill loop does; uint64
           arithmetic makes that defined. */
        const uint64_t u0 = bits_of(dt, p->start), u1 = bits_of(dt, next), du = u1 - u0;
        for (int64_t i = 0; i < n; i++)
            put_bits(d + (size_t)i * a->itemsize, a->itemsize, u0 + (uint64_t)i * du);
    }
    *out = a;
    return NCL_OK;
}

static NclStatus make_linspace(const char *who, NclDType dt, const NclCreateParams *p,
                               NclArray **out)
{
    if (p->num < 0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: num %lld is negative", who,
                         (long long)p->num);
    const int64_t n = p->num;
    NclArray *a = NULL;
    NclStatus s = ncl_array_alloc(who, dt, 1, &n, NCL_ORDER_C, 0, &a);
    if (s != NCL_OK) return s;

    /* NumPy's linspace: y = i * step + start with step = delta / div, in
       float64; i / div * delta when step underflows to zero; i * delta when
       there is no step (div <= 0); the last element is stop exactly with an
       endpoint. Integer dtypes take the floor, then convert. */
    const int64_t div = p->endpoint ? n - 1 : n;
    const double start = p->start, stop = p->stop, delta = stop - start;
    const double step = div > 0 ? delta / (double)div : 0.0;
    const int floor_it = ncl_dtype_kind[dt] == 'i' || ncl_dtype_kind[dt] == 'u';
    for (int64_t i = 0; i < n; i++) {
        double y;
        if (div <= 0) y = (double)i * delta + start;
        else if (step == 0.0) y = (double)i / (double)div * delta + start;
        else y = (double)i * step + start;
        if (p->endpoint && n > 1 && i == n - 1) y = stop;
        if (floor_it) y = floor(y);
        put_bits(a->data + (size_t)i * a->itemsize, a->itemsize, bits_of(dt, y));
    }
    *out = a;
    return NCL_OK;
}

static NclStatus make_eye(const char *who, NclDType dt, const NclCreateParams *p, NclArray **out)
{
    if (p->ndim != 1 && p->ndim != 2)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: ndim is %d; eye takes shape (rows,) "
                         "or (rows, columns)", who, p->ndim);
    if (p->shape == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: shape is NULL", who);
    const int64_t shape[2] = {p->shape[0], p->ndim == 2 ? p->shape[1] : p->shape[0]};
    NclArray *a = NULL;
    NclStatus s = ncl_array_alloc(who, dt, 2, shape, p->order, 1, &a);
    if (s != NCL_OK) return s;
    const int64_t rows = shape[0], cols = shape[1], k = p->k;
    /* Diagonal element j sits at row r0 + j, column c0 + j. Bounds are
       compared before anything is added, so no k overflows. */
    int64_t r0 = 0, c0 = 0, count = 0;
    if (k >= 0 && k < cols) {
        c0 = k;
        count = rows < cols - k ? rows : cols - k;
    } else if (k < 0 && k > -rows) {
        r0 = -k;
        count = rows + k < cols ? rows + k : cols;
    }
    unsigned char one[8];
    put_bits((char *)one, a->itemsize, bits_of(dt, 1.0));
    for (int64_t j = 0; j < count; j++) {
        const int64_t off = (r0 + j) * a->strides[0] + (c0 + j) * a->strides[1];
        memcpy(a->data + off, one, a->itemsize);
    }
    *out = a;
    return NCL_OK;
}

static NclStatus make_copy(const char *who, NclDType dt, const NclCreateParams *p,
                           NclArray **out)
{
    const NclArray *src = p->src;
    if (src == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: src is NULL", who);
    if (src->kind == NCL_MEM_DEVICE)
        return ncl_error(NCL_ERR_DEVICE_MEMORY, "%s: the source is device memory (device %d); "
                         "host code cannot read it", who, src->device_id);
    if (p->dtype == NCL_DTYPE_DEFAULT) dt = src->dtype;
    NclArray *a = NULL;
    NclStatus s = ncl_array_alloc(who, dt, src->ndim, src->shape, p->order, 0, &a);
    if (s != NCL_OK) return s;
    /* A copy with a dtype is numpy's astype: any cast is allowed. The copy
       runs as a nested call, which leaves RAISE to this one: decided here,
       as NclConvert does, so that a raising copy releases its result. */
    s = ncl_assign(who, a, src, NCL_CASTING_UNSAFE);
    if (s == NCL_OK) s = ncl_fpe_raise_early(NCL_SUBSYSTEM_CREATE, NCL_CREATE_COPY);
    if (s != NCL_OK) {
        NclArrayRelease(a);
        return s;
    }
    *out = a;
    return NCL_OK;
}

/* ---- validation and dispatch ------------------------------------------------------ */

#define END_OF(field) (offsetof(NclCreateParams, field) + sizeof(((NclCreateParams *)0)->field))

/* How much of NclCreateParams each op reads: a caller built against an
   older, shorter struct must have given at least that. */
static size_t params_needed(NclCreateOp op)
{
    switch (op) {
    case NCL_CREATE_EMPTY:
    case NCL_CREATE_ZEROS:
    case NCL_CREATE_ONES: return END_OF(order);
    case NCL_CREATE_FULL: return END_OF(value);
    case NCL_CREATE_ARANGE: return END_OF(step);
    case NCL_CREATE_LINSPACE: return END_OF(endpoint);
    case NCL_CREATE_EYE: return END_OF(k);
    default: return END_OF(src);
    }
}

static int reads_order(NclCreateOp op)
{
    return op != NCL_CREATE_ARANGE && op != NCL_CREATE_LINSPACE;
}

static int reads_shape(NclCreateOp op)
{
    return op <= NCL_CREATE_FULL;
}

NclStatus ncl_default_create(NclHook *self, NclCreateOp op, const NclCreateParams *p,
                             NclArray **out)
{
    (void)self;
    if ((unsigned)op >= (unsigned)NCL_CREATE_NOPS)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclCreate: op %d is not a Create op",
                         (int)op);
    char who[32];
    snprintf(who, sizeof who, "NclCreate(%s)", op_names[op]);
    if (p == NULL || out == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who, p ? "out" : "params");
    if (p->size < params_needed(op))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: params->size is %u but this op reads "
                         "%zu bytes of NclCreateParams", who, (unsigned)p->size,
                         params_needed(op));
    NclDType dt = p->dtype == NCL_DTYPE_DEFAULT ? NCL_FLOAT64 : p->dtype;
    if (!ncl_dtype_valid(dt))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: dtype %d is not a valid dtype", who,
                         (int)p->dtype);
    if (reads_order(op) && p->order != NCL_ORDER_C && p->order != NCL_ORDER_F)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: order %d is neither NCL_ORDER_C nor "
                         "NCL_ORDER_F", who, (int)p->order);
    if (reads_shape(op)) {
        NclStatus s = ncl_shape_check(who, p->ndim, p->shape, NULL);
        if (s != NCL_OK) return s;
    }
    if (op == NCL_CREATE_FULL && p->value == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: value is NULL", who);

    NclArray *a = NULL;
    NclStatus s;
    ncl_last_call.kernel = NULL;
    switch (op) {
    case NCL_CREATE_EMPTY:
    case NCL_CREATE_ZEROS:
        /* Zeros come from the handler's calloc: the default handler gets
           them from the OS without writing a byte for large arrays. */
        s = ncl_array_alloc(who, dt, p->ndim, p->shape, p->order, op == NCL_CREATE_ZEROS, &a);
        break;
    case NCL_CREATE_ONES: {
        unsigned char one[8];
        put_bits((char *)one, ncl_dtype_size[dt], bits_of(dt, 1.0));
        s = make_full(who, dt, p, one, &a);
        break;
    }
    case NCL_CREATE_FULL: s = make_full(who, dt, p, p->value, &a); break;
    case NCL_CREATE_ARANGE: s = make_arange(who, dt, p, &a); break;
    case NCL_CREATE_LINSPACE: s = make_linspace(who, dt, p, &a); break;
    case NCL_CREATE_EYE: s = make_eye(who, dt, p, &a); break;
    default: s = make_copy(who, dt, p, &a); break;
    }
    if (s != NCL_OK) return s;

    const int copied = op == NCL_CREATE_COPY && ncl_last_call.kernel != NULL;
    ncl_last_call.elements = a->size;
    ncl_last_call.bytes = a->size * (int64_t)a->itemsize;
    int64_t read = 0;
    if (op == NCL_CREATE_COPY &&
        (ncl_mul_overflow(a->size, (int64_t)p->src->itemsize, &read) ||
         ncl_add_overflow(ncl_last_call.bytes, read, &ncl_last_call.bytes)))
        ncl_last_call.bytes = INT64_MAX;
    if (!copied) {
        /* COPY keeps what the copy loop recorded (its kernel, its threads). */
        ncl_last_call.kernel = "create";
        ncl_last_call.threads = 1;
    }
    *out = a;
    return NCL_OK;
}

/* ---- convenience constructors -------------------------------------------------------- */

static NclStatus create_shaped(NclCreateOp op, NclDType dtype, int ndim, const int64_t *shape,
                               const void *value, NclArray **out)
{
    NclCreateParams p = NCL_CREATE_PARAMS_INIT;
    p.dtype = dtype;
    p.ndim = ndim;
    p.shape = shape;
    p.value = value;
    return NclCreate(op, &p, out);
}

NclStatus NclEmpty(NclDType dtype, int ndim, const int64_t *shape, NclArray **out)
{
    return create_shaped(NCL_CREATE_EMPTY, dtype, ndim, shape, NULL, out);
}

NclStatus NclZeros(NclDType dtype, int ndim, const int64_t *shape, NclArray **out)
{
    return create_shaped(NCL_CREATE_ZEROS, dtype, ndim, shape, NULL, out);
}

NclStatus NclOnes(NclDType dtype, int ndim, const int64_t *shape, NclArray **out)
{
    return create_shaped(NCL_CREATE_ONES, dtype, ndim, shape, NULL, out);
}

NclStatus NclFull(NclDType dtype, int ndim, const int64_t *shape, const void *value,
                  NclArray **out)
{
    return create_shaped(NCL_CREATE_FULL, dtype, ndim, shape, value, out);
}

NclStatus NclArange(NclDType dtype, double start, double stop, double step, NclArray **out)
{
    NclCreateParams p = NCL_CREATE_PARAMS_INIT;
    p.dtype = dtype;
    p.start = start;
    p.stop = stop;
    p.step = step;
    return NclCreate(NCL_CREATE_ARANGE, &p, out);
}

NclStatus NclCopy(const NclArray *a, NclArray **out)
{
    NclCreateParams p = NCL_CREATE_PARAMS_INIT;
    p.src = a;
    return NclCreate(NCL_CREATE_COPY, &p, out);
}
