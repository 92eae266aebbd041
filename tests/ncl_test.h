/*
 * ncl_test.h: the one helper header shared by NCLib's Check suites. It holds
 * what every suite would otherwise write again: arrays from C literals,
 * element access through strides, elementwise comparison (NaN equal to NaN,
 * signed zeros optionally distinguished, ulp distances), status assertions
 * that print NclLastError, a counting / failing allocator handler for fault
 * injection, builders of memory layouts (C, Fortran, sliced, reversed,
 * broadcast, misaligned) with the same logical values, and a main() macro.
 *
 * Everything here uses the public API only and is header-only (static
 * inline), so a suite is one .c file. Helpers that cannot go on after a
 * failure (a bad literal, malloc failing) fail the current Check test.
 */
#ifndef NCL_TEST_H
#define NCL_TEST_H

#include <check.h>
#include <math.h>
#include <stdatomic.h>

/* Check's passing assertion records its file and line (_mark_point), a
   write(2) to the runner each time, so that a test killed by a signal can
   name the last line it passed. The suites assert per element over
   arrays of thousands: those writes were most of their run time (half of
   test_binary_kernels' natively, more under the sanitizers and qemu). Here
   a passing assertion costs its comparison only; a crash is located by
   its stack (the sanitizer stages print it; gdb elsewhere), and a failing
   assertion reports its line as before. Every ck_assert_* goes through
   this macro. */
#undef ck_assert_msg
#define ck_assert_msg(expr, ...)                                                        \
    ((expr) ? (void)0                                                                  \
            : _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed",   \
                                __VA_ARGS__))
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ncl.h"

/* 1 in a build under AddressSanitizer, ThreadSanitizer or MemorySanitizer
   (gcc's or clang's), else 0: their allocators map memory of their own,
   keep freed blocks in quarantine and report reads of freed memory, so
   the checks that count the heap or read a released object skip there. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#  define NCL_TEST_SANITIZED 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
      __has_feature(memory_sanitizer)
#    define NCL_TEST_SANITIZED 1
#  endif
#endif
#ifndef NCL_TEST_SANITIZED
#  define NCL_TEST_SANITIZED 0
#endif

/* 1 when the tests run under an emulator (the cross builds' qemu-user,
   named in NCL_TEST_EMULATOR by tests/CMakeLists.txt), ten to fifty times
   slower than native: a random sweep whose size buys confidence rather than
   coverage may take fewer samples there, saying so where it does. */
static inline int ncl_test_emulated(void)
{
    return getenv("NCL_TEST_EMULATOR") != NULL;
}

/* ---- status assertions ---------------------------------------------------- */

/* Fails the test with the call's text, the status and the library's message
   unless call returns NCL_OK. */
#define NCL_CHECK_OK(call)                                                          \
    do {                                                                            \
        NclStatus ncl_s_ = (call);                                                  \
        ck_assert_msg(ncl_s_ == NCL_OK, "%s returned %s: %s", #call,               \
                      NclStatusString(ncl_s_), NclLastError());                     \
    } while (0)

/* Fails unless call returns expected; on success also requires a non-empty
   message from the library when expected is an error. */
#define NCL_CHECK_STATUS(call, expected)                                            \
    do {                                                                            \
        NclStatus ncl_s_ = (call);                                                  \
        NclStatus ncl_e_ = (expected);                                              \
        ck_assert_msg(ncl_s_ == ncl_e_, "%s returned %s, expected %s (message: %s)", \
                      #call, NclStatusString(ncl_s_), NclStatusString(ncl_e_),      \
                      NclLastError());                                              \
        if (ncl_e_ != NCL_OK)                                                       \
            ck_assert_msg(NclLastError() != NULL && NclLastError()[0] != '\0',      \
                          "%s failed with %s but left no message", #call,           \
                          NclStatusString(ncl_s_));                                 \
    } while (0)

/* Fails unless the calling thread's last message contains text. */
#define NCL_CHECK_MESSAGE_HAS(text)                                                 \
    do {                                                                            \
        const char *ncl_m_ = NclLastError();                                        \
        ck_assert_msg(ncl_m_ != NULL && strstr(ncl_m_, (text)) != NULL,             \
                      "message \"%s\" does not contain \"%s\"", ncl_m_ ? ncl_m_ : "(null)", \
                      (text));                                                      \
    } while (0)

/* ---- literals ------------------------------------------------------------- */

/* A shape literal usable as one macro argument: NCL_DIMS(3, 4). */
#define NCL_DIMS(...) ((const int64_t[]){__VA_ARGS__})
#define NCL_TEST_COUNT_(T, ...) ((int64_t)(sizeof((const T[]){__VA_ARGS__}) / sizeof(T)))

/* A new C-contiguous array with the given values in C order, converted from
   double (exact for integers up to 2**53). One value fills the whole array:
     NclArray *a = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 2), 1, 2, 3, -4);
     NclArray *s = ncl_test_arr(NCL_FLOAT64, 0, NULL, 2.5);      (0-d)  */
#define ncl_test_arr(dtype, ndim, shape, ...)                                       \
    ncl_test_arr_d((dtype), (ndim), (shape), (const double[]){__VA_ARGS__},         \
                   NCL_TEST_COUNT_(double, __VA_ARGS__))
/* The same from int64 values (for integers beyond 2**53), and from uint64. */
#define ncl_test_arr_int(dtype, ndim, shape, ...)                                   \
    ncl_test_arr_i((dtype), (ndim), (shape), (const int64_t[]){__VA_ARGS__},        \
                   NCL_TEST_COUNT_(int64_t, __VA_ARGS__))
#define ncl_test_arr_uint(dtype, ndim, shape, ...)                                  \
    ncl_test_arr_u((dtype), (ndim), (shape), (const uint64_t[]){__VA_ARGS__},       \
                   NCL_TEST_COUNT_(uint64_t, __VA_ARGS__))

/* ---- element access --------------------------------------------------------- */

static inline int64_t ncl_test_shape_size(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    return n;
}

/* Byte offset from the data pointer of the element with C-order flat index. */
static inline int64_t ncl_test_offset(const NclArray *a, int64_t flat)
{
    const int nd = NclArrayNDim(a);
    const int64_t *sh = NclArrayShape(a), *st = NclArrayStrides(a);
    int64_t off = 0;
    for (int i = nd - 1; i >= 0; i--) {
        off += (flat % sh[i]) * st[i];
        flat /= sh[i];
    }
    return off;
}

static inline char *ncl_test_ptr(const NclArray *a, int64_t flat)
{
    return (char *)NclArrayData(a) + ncl_test_offset(a, flat);
}

/* 1 on a big-endian machine (s390x), 0 on a little-endian one. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#  define NCL_TEST_BIG_ENDIAN 1
#else
#  define NCL_TEST_BIG_ENDIAN 0
#endif

/* The w-byte element at p as the low bytes of a uint64_t, zero-extended,
   and back: the element's bits in the machine's own byte order, so the
   same on little- and big-endian machines. */
static inline uint64_t ncl_test_load_bits(const void *p, size_t w)
{
    uint8_t b1; uint16_t b2; uint32_t b4; uint64_t b8;
    switch (w) {
    case 1: memcpy(&b1, p, 1); return b1;
    case 2: memcpy(&b2, p, 2); return b2;
    case 4: memcpy(&b4, p, 4); return b4;
    default: memcpy(&b8, p, 8); return b8;
    }
}

static inline void ncl_test_store_bits(void *p, size_t w, uint64_t bits)
{
    const uint8_t b1 = (uint8_t)bits;
    const uint16_t b2 = (uint16_t)bits;
    const uint32_t b4 = (uint32_t)bits;
    switch (w) {
    case 1: memcpy(p, &b1, 1); break;
    case 2: memcpy(p, &b2, 2); break;
    case 4: memcpy(p, &b4, 4); break;
    default: memcpy(p, &bits, 8);
    }
}

/* The element of dtype at p (any alignment) as double. */
static inline double ncl_test_load_d(NclDType dtype, const char *p)
{
    switch (dtype) {
#define NCL_X_(E, sfx, T, name, kind) case E: { T v; memcpy(&v, p, sizeof v); return (double)v; }
        NCL_DTYPE_LIST(NCL_X_)
#undef NCL_X_
    default: return NAN;
    }
}

/* Element flat (C order) of a as double / int64 / uint64 (integers convert
   as C does; floats are read as stored, so read floats with _d). */
static inline double ncl_test_get_d(const NclArray *a, int64_t flat)
{
    return ncl_test_load_d(NclArrayDType(a), ncl_test_ptr(a, flat));
}

static inline int64_t ncl_test_get_i(const NclArray *a, int64_t flat)
{
    const char *p = ncl_test_ptr(a, flat);
    switch (NclArrayDType(a)) {
    case NCL_BOOL: { uint8_t v; memcpy(&v, p, 1); return v; }
    case NCL_INT8: { int8_t v; memcpy(&v, p, 1); return v; }
    case NCL_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case NCL_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case NCL_INT64: { int64_t v; memcpy(&v, p, 8); return v; }
    case NCL_UINT8: { uint8_t v; memcpy(&v, p, 1); return v; }
    case NCL_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case NCL_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case NCL_UINT64: { uint64_t v; memcpy(&v, p, 8); return (int64_t)v; }
    default: ck_abort_msg("ncl_test_get_i on a float array"); return 0;
    }
}

static inline uint64_t ncl_test_get_u(const NclArray *a, int64_t flat)
{
    if (NclArrayDType(a) == NCL_UINT64) {
        uint64_t v;
        memcpy(&v, ncl_test_ptr(a, flat), 8);
        return v;
    }
    return (uint64_t)ncl_test_get_i(a, flat);
}

/* Stores v into element flat of a, converting as C does; a float value
   outside an integer dtype's range (or NaN) fails the test instead of
   being undefined behaviour. */
static inline void ncl_test_set_d(const NclArray *a, int64_t flat, double v)
{
    char *p = ncl_test_ptr(a, flat);
    switch (NclArrayDType(a)) {
    case NCL_BOOL: { uint8_t x = v != 0.0; memcpy(p, &x, 1); return; }
    case NCL_FLOAT32: { float x = (float)v; memcpy(p, &x, 4); return; }
    case NCL_FLOAT64: memcpy(p, &v, 8); return;
    default: break;
    }
    ck_assert_msg(v == v && v > -9223372036854775809.0 && v < 18446744073709551616.0,
                  "ncl_test_set_d: %g does not fit %s", v, NclDTypeName(NclArrayDType(a)));
    if (v < 0) {
        int64_t x = (int64_t)v;
        switch (NclArrayDType(a)) {
        case NCL_INT8: { int8_t y = (int8_t)x; memcpy(p, &y, 1); return; }
        case NCL_INT16: { int16_t y = (int16_t)x; memcpy(p, &y, 2); return; }
        case NCL_INT32: { int32_t y = (int32_t)x; memcpy(p, &y, 4); return; }
        case NCL_INT64: memcpy(p, &x, 8); return;
        default: ck_abort_msg("ncl_test_set_d: %g is negative for %s", v,
                              NclDTypeName(NclArrayDType(a)));
        }
    }
    uint64_t u = (uint64_t)v;
    switch (NclArrayDType(a)) {
    case NCL_INT8: { int8_t y = (int8_t)u; memcpy(p, &y, 1); return; }
    case NCL_INT16: { int16_t y = (int16_t)u; memcpy(p, &y, 2); return; }
    case NCL_INT32: { int32_t y = (int32_t)u; memcpy(p, &y, 4); return; }
    case NCL_INT64: { int64_t y = (int64_t)u; memcpy(p, &y, 8); return; }
    case NCL_UINT8: { uint8_t y = (uint8_t)u; memcpy(p, &y, 1); return; }
    case NCL_UINT16: { uint16_t y = (uint16_t)u; memcpy(p, &y, 2); return; }
    case NCL_UINT32: { uint32_t y = (uint32_t)u; memcpy(p, &y, 4); return; }
    case NCL_UINT64: memcpy(p, &u, 8); return;
    default: ck_abort_msg("ncl_test_set_d: bad dtype");
    }
}

/* Stores the integer v (taken modulo 2**width for narrower dtypes). */
static inline void ncl_test_set_u(const NclArray *a, int64_t flat, uint64_t v)
{
    char *p = ncl_test_ptr(a, flat);
    switch (NclArrayDType(a)) {
    case NCL_BOOL: { uint8_t x = v != 0; memcpy(p, &x, 1); return; }
    case NCL_INT8: case NCL_UINT8: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); return; }
    case NCL_INT16: case NCL_UINT16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); return; }
    case NCL_INT32: case NCL_UINT32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); return; }
    case NCL_INT64: case NCL_UINT64: memcpy(p, &v, 8); return;
    case NCL_FLOAT32: { float x = (float)v; memcpy(p, &x, 4); return; }
    case NCL_FLOAT64: { double x = (double)v; memcpy(p, &x, 8); return; }
    default: ck_abort_msg("ncl_test_set_u: bad dtype");
    }
}

static inline void ncl_test_set_i(const NclArray *a, int64_t flat, int64_t v)
{
    switch (NclArrayDType(a)) {
    case NCL_FLOAT32: case NCL_FLOAT64: ncl_test_set_d(a, flat, (double)v); return;
    case NCL_BOOL: ncl_test_set_u(a, flat, v != 0); return;
    default: ncl_test_set_u(a, flat, (uint64_t)v); return;
    }
}

/* Byte offset of the element of a that meets element flat (C order) of the
   shape (ndim, shape) that a is broadcast to (NumPy's rule: axes aligned on
   the right, extent-1 axes repeat). */
static inline int64_t ncl_test_broadcast_offset(const NclArray *a, int ndim, const int64_t *shape,
                                                int64_t flat)
{
    const int an = NclArrayNDim(a);
    const int64_t *ash = NclArrayShape(a), *ast = NclArrayStrides(a);
    int64_t off = 0;
    for (int i = ndim - 1; i >= 0; i--) {
        const int64_t idx = flat % shape[i];
        flat /= shape[i];
        const int k = i - (ndim - an);
        if (k >= 0 && ash[k] != 1) off += idx * ast[k];
    }
    return off;
}

/* ---- building arrays -------------------------------------------------------- */

static inline void ncl_test_free_deleter(void *ctx, void *data)
{
    (void)data;
    free(ctx);
}

/* A new writeable C-contiguous array over zeroed malloc memory (not the
   library's allocator, so fault injection does not hit test scaffolding),
   released through a deleter. The data starts offset bytes into the block:
   offset 1 gives a misaligned array. */
static inline NclArray *ncl_test_new_offset(NclDType dtype, int ndim, const int64_t *shape,
                                            size_t offset)
{
    const size_t item = NclDTypeSize(dtype);
    ck_assert_msg(item > 0, "ncl_test_new: bad dtype %d", (int)dtype);
    const int64_t n = ncl_test_shape_size(ndim, shape);
    char *block = (char *)calloc((size_t)n * item + offset + 16, 1);
    ck_assert_msg(block != NULL, "ncl_test_new: out of memory");
    NclArray *a = NULL;
    NclStatus s = NclFromData(dtype, ndim, shape, NULL, block + offset, NCL_ARRAY_WRITEABLE,
                              ncl_test_free_deleter, block, &a);
    if (s != NCL_OK) free(block);
    ck_assert_msg(s == NCL_OK, "ncl_test_new: NclFromData returned %s: %s",
                  NclStatusString(s), NclLastError());
    return a;
}

static inline NclArray *ncl_test_new(NclDType dtype, int ndim, const int64_t *shape)
{
    return ncl_test_new_offset(dtype, ndim, shape, 0);
}

static inline NclArray *ncl_test_arr_d(NclDType dtype, int ndim, const int64_t *shape,
                                       const double *v, int64_t nv)
{
    NclArray *a = ncl_test_new(dtype, ndim, shape);
    const int64_t n = NclArraySize(a);
    ck_assert_msg(nv == n || nv == 1, "ncl_test_arr: %lld values for %lld elements",
                  (long long)nv, (long long)n);
    for (int64_t i = 0; i < n; i++) ncl_test_set_d(a, i, v[nv == 1 ? 0 : i]);
    return a;
}

static inline NclArray *ncl_test_arr_i(NclDType dtype, int ndim, const int64_t *shape,
                                       const int64_t *v, int64_t nv)
{
    NclArray *a = ncl_test_new(dtype, ndim, shape);
    const int64_t n = NclArraySize(a);
    ck_assert_msg(nv == n || nv == 1, "ncl_test_arr_int: %lld values for %lld elements",
                  (long long)nv, (long long)n);
    for (int64_t i = 0; i < n; i++) ncl_test_set_i(a, i, v[nv == 1 ? 0 : i]);
    return a;
}

static inline NclArray *ncl_test_arr_u(NclDType dtype, int ndim, const int64_t *shape,
                                       const uint64_t *v, int64_t nv)
{
    NclArray *a = ncl_test_new(dtype, ndim, shape);
    const int64_t n = NclArraySize(a);
    ck_assert_msg(nv == n || nv == 1, "ncl_test_arr_uint: %lld values for %lld elements",
                  (long long)nv, (long long)n);
    for (int64_t i = 0; i < n; i++) ncl_test_set_u(a, i, v[nv == 1 ? 0 : i]);
    return a;
}

/* Copies the elements of src into dst (same dtype, same shape), each at its
   own strides: the raw bytes move, so NaN payloads and -0.0 survive. */
static inline void ncl_test_copy_elements(const NclArray *dst, const NclArray *src)
{
    ck_assert_int_eq(NclArrayDType(dst), NclArrayDType(src));
    ck_assert_int_eq(NclArraySize(dst), NclArraySize(src));
    const size_t item = NclDTypeSize(NclArrayDType(src));
    for (int64_t i = 0, n = NclArraySize(src); i < n; i++)
        memcpy(ncl_test_ptr(dst, i), ncl_test_ptr(src, i), item);
}

/* A fresh C-contiguous copy of a's elements in test-owned memory. */
static inline NclArray *ncl_test_clone(const NclArray *a)
{
    NclArray *c = ncl_test_new(NclArrayDType(a), NclArrayNDim(a), NclArrayShape(a));
    ncl_test_copy_elements(c, a);
    return c;
}

/* ---- layouts ------------------------------------------------------------------ */

typedef enum ncl_test_layout {
    NCL_TEST_C = 0,       /* contiguous, C order */
    NCL_TEST_F,           /* Fortran order: NclArrayTranspose of a C array */
    NCL_TEST_SLICED,      /* every axis step 2 out of a twice larger array */
    NCL_TEST_REVERSED,    /* every axis step -1 (negative strides) */
    NCL_TEST_MISALIGNED,  /* C order, data pointer one byte off alignment */
    NCL_TEST_NLAYOUTS
} ncl_test_layout;

static inline const char *ncl_test_layout_name(ncl_test_layout l)
{
    static const char *const names[] = {"C", "F", "sliced", "reversed", "misaligned"};
    return (unsigned)l < NCL_TEST_NLAYOUTS ? names[l] : "?";
}

/* A new array with src's dtype, shape and element values (read in C order)
   laid out in memory as layout says. Views keep their base alive, so the
   caller releases only the result. */
static inline NclArray *ncl_test_layout_of(const NclArray *src, ncl_test_layout layout)
{
    const NclDType dt = NclArrayDType(src);
    const int nd = NclArrayNDim(src);
    const int64_t *sh = NclArrayShape(src);
    int64_t big[NCL_MAXDIMS], start[NCL_MAXDIMS], stop[NCL_MAXDIMS], step[NCL_MAXDIMS];
    NclArray *base = NULL, *out = NULL;
    switch (layout) {
    case NCL_TEST_C:
        out = ncl_test_new(dt, nd, sh);
        break;
    case NCL_TEST_MISALIGNED:
        out = ncl_test_new_offset(dt, nd, sh, 1);
        break;
    case NCL_TEST_F:
        for (int i = 0; i < nd; i++) big[i] = sh[nd - 1 - i];
        base = ncl_test_new(dt, nd, big);
        NCL_CHECK_OK(NclArrayTranspose(base, NULL, &out));
        break;
    case NCL_TEST_SLICED:
        for (int i = 0; i < nd; i++) {
            big[i] = 2 * sh[i];
            start[i] = 0;
            stop[i] = INT64_MIN;
            step[i] = 2;
        }
        base = ncl_test_new(dt, nd, big);
        NCL_CHECK_OK(NclArraySlice(base, start, stop, step, &out));
        break;
    case NCL_TEST_REVERSED:
        for (int i = 0; i < nd; i++) {
            start[i] = INT64_MIN;
            stop[i] = INT64_MIN;
            step[i] = -1;
        }
        base = ncl_test_new(dt, nd, sh);
        NCL_CHECK_OK(NclArraySlice(base, start, stop, step, &out));
        break;
    default:
        ck_abort_msg("ncl_test_layout_of: bad layout %d", (int)layout);
    }
    NclArrayRelease(base);
    ck_assert_int_eq(NclArrayNDim(out), nd);
    for (int i = 0; i < nd; i++) ck_assert_int_eq(NclArrayShape(out)[i], sh[i]);
    ck_assert_msg(NclArrayFlags(out) & NCL_ARRAY_WRITEABLE, "layout %s view not writeable",
                  ncl_test_layout_name(layout));
    ncl_test_copy_elements(out, src);
    return out;
}

/* src broadcast to (ndim, shape): a read-only view with zero strides. */
static inline NclArray *ncl_test_broadcast(const NclArray *src, int ndim, const int64_t *shape)
{
    NclArray *out = NULL;
    NCL_CHECK_OK(NclArrayBroadcastTo(src, ndim, shape, &out));
    return out;
}

/* ---- comparison ---------------------------------------------------------------- */

enum {
    NCL_TEST_SIGNED_ZERO = 1,  /* -0.0 and 0.0 differ */
    NCL_TEST_ANY_DTYPE = 2     /* compare values even when the dtypes differ */
};

/* Distance in units in the last place between two floats of dtype (float32
   or float64); 0 for equal values and for two NaNs, UINT64_MAX when one is
   NaN and the other not. */
static inline uint64_t ncl_test_ulp_diff(NclDType dt, double x, double y)
{
    if (x != x || y != y) return (x != x && y != y) ? 0 : UINT64_MAX;
    if (x == y) return 0;
    /* sign-magnitude bit patterns mapped onto one monotonic line, with -0
       and +0 at the same point */
    uint64_t mx, my;
    if (dt == NCL_FLOAT32) {
        float fx = (float)x, fy = (float)y;
        uint32_t ux, uy;
        memcpy(&ux, &fx, 4);
        memcpy(&uy, &fy, 4);
        mx = (ux >> 31) ? 0x80000000u - (ux & 0x7fffffffu) : 0x80000000u + (uint64_t)ux;
        my = (uy >> 31) ? 0x80000000u - (uy & 0x7fffffffu) : 0x80000000u + (uint64_t)uy;
    } else {
        uint64_t ux, uy;
        const uint64_t sign = 0x8000000000000000u;
        memcpy(&ux, &x, 8);
        memcpy(&uy, &y, 8);
        mx = (ux & sign) ? sign - (ux & ~sign) : sign + ux;
        my = (uy & sign) ? sign - (uy & ~sign) : sign + uy;
    }
    return mx > my ? mx - my : my - mx;
}

/* Compares got with expected: same shape (and dtype unless
   NCL_TEST_ANY_DTYPE), then every element, floats within max_ulp ulps
   (NaN equal to NaN; -0.0 differs from 0.0 only with NCL_TEST_SIGNED_ZERO),
   integers exactly. Returns 1 when equal; otherwise 0 with the first
   difference described in why. */
static inline int ncl_test_compare(const NclArray *got, const NclArray *expected,
                                   unsigned flags, uint64_t max_ulp, char *why, size_t cap)
{
    const NclDType gd = NclArrayDType(got), ed = NclArrayDType(expected);
    if (gd != ed && !(flags & NCL_TEST_ANY_DTYPE)) {
        snprintf(why, cap, "dtype %s, expected %s", NclDTypeName(gd), NclDTypeName(ed));
        return 0;
    }
    const int nd = NclArrayNDim(got);
    int same = nd == NclArrayNDim(expected);
    for (int i = 0; same && i < nd; i++)
        same = NclArrayShape(got)[i] == NclArrayShape(expected)[i];
    if (!same) {
        snprintf(why, cap, "ndim %d / shape differs from expected ndim %d", nd,
                 NclArrayNDim(expected));
        return 0;
    }
    const int gf = gd == NCL_FLOAT32 || gd == NCL_FLOAT64;
    const int ef = ed == NCL_FLOAT32 || ed == NCL_FLOAT64;
    for (int64_t i = 0, n = NclArraySize(got); i < n; i++) {
        if (gf || ef) {
            double x = ncl_test_get_d(got, i), y = ncl_test_get_d(expected, i);
            uint64_t d = ncl_test_ulp_diff(gf ? gd : ed, x, y);
            int bad = d > max_ulp;
            if (!bad && (flags & NCL_TEST_SIGNED_ZERO) && x == 0 && y == 0)
                bad = signbit(x) != signbit(y);
            if (bad) {
                snprintf(why, cap, "element %lld: got %.17g, expected %.17g", (long long)i, x, y);
                return 0;
            }
        } else {
            uint64_t x = ncl_test_get_u(got, i), y = ncl_test_get_u(expected, i);
            int xneg = gd != NCL_UINT64 && gd != NCL_BOOL && (int64_t)x < 0;
            int yneg = ed != NCL_UINT64 && ed != NCL_BOOL && (int64_t)y < 0;
            if (x != y || xneg != yneg) {
                const unsigned long long mx = xneg ? 0ull - x : x, my = yneg ? 0ull - y : y;
                snprintf(why, cap, "element %lld: got %s%llu, expected %s%llu", (long long)i,
                         xneg ? "-" : "", mx, yneg ? "-" : "", my);
                return 0;
            }
        }
    }
    return 1;
}

/* Fails the test unless got equals expected (see ncl_test_compare). */
#define NCL_CHECK_ARRAYS(got, expected, flags, max_ulp)                              \
    do {                                                                             \
        char ncl_why_[256];                                                          \
        ck_assert_msg((got) != NULL, "%s is NULL", #got);                            \
        ck_assert_msg(ncl_test_compare((got), (expected), (flags), (max_ulp), ncl_why_, \
                                       sizeof ncl_why_),                             \
                      "%s vs %s: %s", #got, #expected, ncl_why_);                    \
    } while (0)
#define NCL_CHECK_ARRAYS_EQUAL(got, expected) NCL_CHECK_ARRAYS(got, expected, 0u, 0u)

/* A cheap fingerprint of a's bytes (element by element through strides), to
   check that an output was left untouched. */
static inline uint64_t ncl_test_hash(const NclArray *a)
{
    uint64_t h = 1469598103934665603u;
    const size_t item = NclDTypeSize(NclArrayDType(a));
    for (int64_t i = 0, n = NclArraySize(a); i < n; i++) {
        const unsigned char *p = (const unsigned char *)ncl_test_ptr(a, i);
        for (size_t k = 0; k < item; k++) h = (h ^ p[k]) * 1099511628211u;
    }
    return h;
}

/* ---- a small deterministic generator --------------------------------------- */

static inline uint64_t ncl_test_rand(uint64_t *state)
{
    /* splitmix64: good enough for test data, identical on every platform */
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Fills a with random values that fit its dtype: floats in [-lim, lim],
   integers anywhere in range (bools 0/1). */
static inline void ncl_test_fill_random(const NclArray *a, uint64_t *state, double lim)
{
    const NclDType dt = NclArrayDType(a);
    for (int64_t i = 0, n = NclArraySize(a); i < n; i++) {
        uint64_t r = ncl_test_rand(state);
        if (dt == NCL_FLOAT32 || dt == NCL_FLOAT64)
            ncl_test_set_d(a, i, ((double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0) * lim);
        else
            ncl_test_set_u(a, i, dt == NCL_BOOL ? (r & 1) : r);
    }
}

/* ---- a counting, failing allocator handler ---------------------------------- */

/* Wraps malloc with a header recording each block's size, so it can check
   that the library frees every block with its true size. fail_at = k makes
   the k-th allocation (malloc, calloc or realloc, counted from 1 after
   install) return NULL; fail_all makes every one fail. Counters are atomic
   because worker threads may allocate on the call's behalf. */
typedef struct ncl_test_alloc {
    NclMemHandler handler;
    const NclMemHandler *prev;
    atomic_long calls;          /* allocation attempts */
    atomic_long allocs;         /* successful ones */
    atomic_long frees;
    atomic_long live;           /* blocks allocated and not freed */
    atomic_long live_bytes;
    atomic_long bad_sizes;      /* frees whose size differed from the block's */
    atomic_long failures;       /* attempts made to fail */
    long fail_at;
    int fail_all;
} ncl_test_alloc;

#define NCL_TEST_ALLOC_HDR 64

static inline int ncl_test_alloc_should_fail(ncl_test_alloc *t)
{
    long k = atomic_fetch_add(&t->calls, 1) + 1;
    if (t->fail_all || (t->fail_at > 0 && k == t->fail_at)) {
        atomic_fetch_add(&t->failures, 1);
        return 1;
    }
    return 0;
}

static inline void *ncl_test_alloc_block(ncl_test_alloc *t, size_t size, int zero)
{
    if (size > SIZE_MAX - 2 * NCL_TEST_ALLOC_HDR) return NULL;
    size_t total = (size + 2 * NCL_TEST_ALLOC_HDR - 1) / NCL_TEST_ALLOC_HDR * NCL_TEST_ALLOC_HDR;
    char *base = (char *)aligned_alloc(NCL_TEST_ALLOC_HDR, total);
    if (base == NULL) return NULL;
    if (zero) memset(base + NCL_TEST_ALLOC_HDR, 0, size);
    memcpy(base, &size, sizeof size);
    atomic_fetch_add(&t->allocs, 1);
    atomic_fetch_add(&t->live, 1);
    atomic_fetch_add(&t->live_bytes, (long)size);
    return base + NCL_TEST_ALLOC_HDR;
}

static inline void *ncl_test_alloc_malloc(void *ctx, size_t size)
{
    ncl_test_alloc *t = (ncl_test_alloc *)ctx;
    return ncl_test_alloc_should_fail(t) ? NULL : ncl_test_alloc_block(t, size, 0);
}

static inline void *ncl_test_alloc_calloc(void *ctx, size_t nelem, size_t elsize)
{
    ncl_test_alloc *t = (ncl_test_alloc *)ctx;
    if (elsize != 0 && nelem > SIZE_MAX / elsize) return NULL;
    return ncl_test_alloc_should_fail(t) ? NULL : ncl_test_alloc_block(t, nelem * elsize, 1);
}

static inline void ncl_test_alloc_free(void *ctx, void *ptr, size_t size)
{
    ncl_test_alloc *t = (ncl_test_alloc *)ctx;
    if (ptr == NULL) return;
    char *base = (char *)ptr - NCL_TEST_ALLOC_HDR;
    size_t real;
    memcpy(&real, base, sizeof real);
    if (real != size) atomic_fetch_add(&t->bad_sizes, 1);
    atomic_fetch_add(&t->frees, 1);
    atomic_fetch_sub(&t->live, 1);
    atomic_fetch_sub(&t->live_bytes, (long)real);
    free(base);
}

static inline void *ncl_test_alloc_realloc(void *ctx, void *ptr, size_t size)
{
    ncl_test_alloc *t = (ncl_test_alloc *)ctx;
    if (ncl_test_alloc_should_fail(t)) return NULL;
    void *p = ncl_test_alloc_block(t, size, 0);
    if (p == NULL || ptr == NULL) return p;
    size_t old;
    memcpy(&old, (char *)ptr - NCL_TEST_ALLOC_HDR, sizeof old);
    memcpy(p, ptr, old < size ? old : size);
    ncl_test_alloc_free(ctx, ptr, old);
    return p;
}

/* Resets t, makes it this thread's current handler and remembers the
   previous one. */
static inline void ncl_test_alloc_install(ncl_test_alloc *t, long fail_at, int fail_all)
{
    memset(&t->handler, 0, sizeof t->handler);
    snprintf(t->handler.name, sizeof t->handler.name, "ncl_test_alloc");
    t->handler.version = 1;
    t->handler.allocator.ctx = t;
    t->handler.allocator.malloc = ncl_test_alloc_malloc;
    t->handler.allocator.calloc = ncl_test_alloc_calloc;
    t->handler.allocator.realloc = ncl_test_alloc_realloc;
    t->handler.allocator.free = ncl_test_alloc_free;
    atomic_init(&t->calls, 0);
    atomic_init(&t->allocs, 0);
    atomic_init(&t->frees, 0);
    atomic_init(&t->live, 0);
    atomic_init(&t->live_bytes, 0);
    atomic_init(&t->bad_sizes, 0);
    atomic_init(&t->failures, 0);
    t->fail_at = fail_at;
    t->fail_all = fail_all;
    t->prev = NclDataMem_SetHandler(&t->handler);
}

/* Restores the previous handler. Blocks still live stay valid: arrays are
   freed by the handler that allocated them. */
static inline void ncl_test_alloc_uninstall(ncl_test_alloc *t)
{
    NclDataMem_SetHandler(t->prev);
}

/* Fails the test unless every block t handed out was freed, with its size. */
#define NCL_CHECK_NO_LEAK(t)                                                          \
    do {                                                                              \
        ck_assert_msg(atomic_load(&(t)->live) == 0,                                   \
                      "%ld blocks (%ld bytes) leaked: %ld allocs, %ld frees",         \
                      (long)atomic_load(&(t)->live), (long)atomic_load(&(t)->live_bytes), \
                      (long)atomic_load(&(t)->allocs), (long)atomic_load(&(t)->frees)); \
        ck_assert_msg(atomic_load(&(t)->bad_sizes) == 0,                              \
                      "%ld blocks freed with a size other than their own",            \
                      (long)atomic_load(&(t)->bad_sizes));                            \
    } while (0)

/* ---- running suites ------------------------------------------------------------ */

/* A test case with a timeout generous enough for sanitizer builds (Check
   also scales it by CK_TIMEOUT_MULTIPLIER, which CTest sets). */
static inline TCase *ncl_test_tcase(Suite *s, const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return tc;
}

/* The test case for tests that fork a process with threads running and go
   on computing (threads start) in the child. ThreadSanitizer refuses to
   start threads after such a fork, so these tests carry the Check tag
   "fork": tests/CMakeLists.txt runs them as their own CTest test, labelled
   "fork", which the ThreadSanitizer stages leave out, and the suite's own
   test without them. */
static inline TCase *ncl_test_fork_tcase(Suite *s)
{
    TCase *tc = ncl_test_tcase(s, "fork");
    tcase_set_tags(tc, "fork");
    return tc;
}

/* Runs the suites (NULL-terminated array of constructors); the exit status
   is non-zero when any test failed. */
static inline int ncl_test_run(Suite *(*const *makers)(void))
{
    SRunner *sr = NULL;
    for (int i = 0; makers[i] != NULL; i++) {
        if (sr == NULL) sr = srunner_create(makers[i]());
        else srunner_add_suite(sr, makers[i]());
    }
    if (sr == NULL) return 1;
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* int main(void) running the given suite constructors: NCL_TEST_MAIN(a_suite, b_suite) */
#define NCL_TEST_MAIN(...)                                                            \
    int main(void)                                                                    \
    {                                                                                 \
        Suite *(*const makers_[])(void) = {__VA_ARGS__, NULL};                        \
        return ncl_test_run(makers_);                                                 \
    }

#endif /* NCL_TEST_H */
