/*
 * npy.c: NclArray <-> NumPy's .npy files (include/ncl/npy.h).
 *
 * The format: the magic "\x93NUMPY", a major and a minor version byte, the
 * header's length (2 bytes little-endian in 1.0, 4 in 2.0 and 3.0), the
 * header (latin-1 text in 1.0 and 2.0, utf-8 in 3.0: a Python dict literal
 * with the keys descr, fortran_order and shape), then the elements.
 *
 * Save builds the header exactly as NumPy 1.24 lays it out (sorted keys,
 * Python reprs, 21 - len(extent) spaces of room to grow the first axis, or
 * the last in Fortran order, then spaces and a newline up to a multiple of
 * 64 bytes), writes a temporary file beside the target and renames it into
 * place, so a failure never leaves a partial file. Load parses the header
 * as a small subset of Python's literal grammar, wide enough for every
 * header NumPy writes and the spellings its reader accepts for them, checks
 * the elements' byte count against the file's size before allocating, and
 * reads into an array from the current allocator handler.
 *
 * Files only: nothing here computes on elements beyond byte swaps.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "array/ncl_array.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN 64
/* NumPy leaves this many characters for the growth axis's extent. */
#define NPY_GROWTH_DIGITS 21
/* Bytes copied at a time when a strided array is written. */
#define NPY_CHUNK ((size_t)1 << 16)

static int host_big_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 0;
}

/* The system's text for errno e (thread-safe). */
static const char *errtext(int e, char *buf, size_t cap)
{
    if (strerror_r(e, buf, cap) != 0) snprintf(buf, cap, "error %d", e);
    return buf;
}

/* Up to cap - 1 characters of s[0 .. n) for a message, every byte outside
   printable ASCII shown as '?', "..." when cut. */
static const char *excerpt(const char *s, size_t n, char *buf, size_t cap)
{
    const int cut = n > cap - 1;
    const size_t take = cut ? cap - 4 : n;
    size_t k = 0;
    for (size_t i = 0; i < take; i++) {
        const unsigned char c = (unsigned char)s[i];
        buf[k++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (cut) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    buf[k] = '\0';
    return buf;
}

/* ---- descr ------------------------------------------------------------------- */

/* The descr NumPy writes for t on this host: "<f8", ">i4", "|u1". */
static void descr_of(NclDType t, char out[8])
{
    const unsigned size = ncl_dtype_size[t];
    const char order = size == 1 ? '|' : host_big_endian() ? '>' : '<';
    snprintf(out, 8, "%c%c%u", order, ncl_dtype_kind[t], size);
}

/* NCLib's dtype for the descr s[0 .. n), or -1; *swap says whether its
   elements are in the other byte order than the host's. An order
   character ('<', '>', '|' or '=') is optional, then the kind (b, i, u, f)
   and the size in bytes, as NumPy's dtype strings spell them. */
static int dtype_of_descr(const char *s, size_t n, int *swap)
{
    size_t i = 0;
    char order = '=';
    *swap = 0;
    if (n > 0 && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) order = s[i++];
    if (n < i + 2 || s[i + 1] == '0') return -1;
    const char kind = s[i++];
    unsigned size = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || size > 64) return -1;
        size = size * 10 + (unsigned)(s[i] - '0');
    }
    for (int t = 0; t < NCL_NTYPES; t++) {
        if (ncl_dtype_kind[t] != kind || ncl_dtype_size[t] != size) continue;
        *swap = size > 1 && (order == (host_big_endian() ? '<' : '>'));
        return t;
    }
    return -1;
}

/* ---- the header's dict ------------------------------------------------------- */

typedef struct hdr_parser {
    const char *s, *p, *end;
    int allow_long;  /* Python 2's "3L" integers (versions 1.0 and 2.0) */
} hdr_parser;

/* What the header says. */
typedef struct npy_header {
    const char *descr;
    size_t descr_len;
    int fortran;
    int ndim;
    int64_t shape[NCL_MAXDIMS];
} npy_header;

/* Python's whitespace between tokens, and comments. */
static void skip_space(hdr_parser *h)
{
    while (h->p < h->end) {
        const char c = *h->p;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
            h->p++;
        } else if (c == '\\' && h->end - h->p >= 2 && h->p[1] == '\n') {
            h->p += 2; /* an explicit line joining */
        } else if (c == '#') {
            while (h->p < h->end && *h->p != '\n') h->p++;
        } else {
            break;
        }
    }
}

static int is_ident(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (unsigned char)c >= 0x80;
}

/* A string literal without escapes ('x', "x", u'x'): its contents. */
static int parse_string(hdr_parser *h, const char **str, size_t *len)
{
    const char *p = h->p;
    if (p < h->end && (*p == 'u' || *p == 'U')) p++;
    if (p >= h->end || (*p != '\'' && *p != '"')) return 0;
    const char q = *p++;
    const char *start = p;
    while (p < h->end && *p != q) {
        if (*p == '\\' || *p == '\n' || *p == '\r') return 0;
        p++;
    }
    if (p >= h->end) return 0;
    /* '''...''' and "..." "..." concatenations are not NumPy's: refused */
    if (p == start && p + 1 < h->end && p[1] == q) return 0;
    *str = start;
    *len = (size_t)(p - start);
    h->p = p + 1;
    return 1;
}

/* A keyword (True, False): the whole identifier must match. */
static int parse_word(hdr_parser *h, const char *w)
{
    const size_t n = strlen(w);
    if ((size_t)(h->end - h->p) < n || memcmp(h->p, w, n) != 0) return 0;
    if (h->p + n < h->end && is_ident(h->p[n])) return 0;
    h->p += n;
    return 1;
}

/* The value of digit c, or 99. */
static unsigned digit_value(char c)
{
    if (c >= '0' && c <= '9') return (unsigned)(c - '0');
    if (c >= 'a' && c <= 'f') return (unsigned)(c - 'a' + 10);
    if (c >= 'A' && c <= 'F') return (unsigned)(c - 'A' + 10);
    return 99;
}

/* Python integer literals (decimal, 0x, 0o, 0b, with single '_' between
   digits) with an optional sign: 1 with *v set, 0 when malformed, -1 when
   the value is beyond int64 (*v then gets its sign: -1 or 1). */
static int parse_int(hdr_parser *h, int64_t *v)
{
    int neg = 0;
    if (h->p < h->end && (*h->p == '-' || *h->p == '+')) {
        neg = *h->p == '-';
        h->p++;
        skip_space(h);
    }
    const char *p = h->p;
    unsigned base = 10;
    if (h->end - p >= 2 && p[0] == '0') {
        const char b = (char)(p[1] | 0x20);
        base = b == 'x' ? 16 : b == 'o' ? 8 : b == 'b' ? 2 : 10;
        if (base != 10) {
            p += 2;
            if (p < h->end && *p == '_') p++;
        }
    }
    const int lead_zero = base == 10 && p < h->end && *p == '0';
    uint64_t u = 0;
    int digits = 0, over = 0, nonzero = 0;
    for (; p < h->end; p++) {
        if (*p == '_') {
            if (digits == 0 || p + 1 >= h->end || digit_value(p[1]) >= base) return 0;
            continue;
        }
        const unsigned d = digit_value(*p);
        if (d >= base) break;
        nonzero |= d != 0;
        if (u > (UINT64_MAX - d) / base) over = 1;
        else u = u * base + d;
        digits++;
    }
    if (digits == 0) return 0;
    /* Python 3 refuses "012" (but takes "00") */
    if (lead_zero && nonzero) return 0;
    if (h->allow_long && p < h->end && (*p == 'L' || *p == 'l')) p++;
    if (p < h->end && is_ident(*p)) return 0;
    h->p = p;
    if (over || u > (uint64_t)INT64_MAX + (uint64_t)neg) {
        *v = neg ? -1 : 1;
        return -1;
    }
    *v = neg ? (int64_t)(0 - u) : (int64_t)u;
    return 1;
}

typedef struct parse_failure {
    NclStatus status;
    char what[160];
    size_t at;
} parse_failure;

#define FAIL(f, h, st, ...)                                                   \
    do {                                                                      \
        (f)->status = (st);                                                   \
        (f)->at = (size_t)((h)->p - (h)->s);                                  \
        snprintf((f)->what, sizeof (f)->what, __VA_ARGS__);                   \
        return 0;                                                             \
    } while (0)

static int parse_shape(hdr_parser *h, npy_header *out, parse_failure *f)
{
    if (h->p >= h->end || *h->p != '(')
        FAIL(f, h, NCL_ERR_INVALID_ARGUMENT, "shape is not a tuple");
    h->p++;
    int n = 0, commas = 0;
    for (;;) {
        skip_space(h);
        if (h->p < h->end && *h->p == ')') {
            /* "(3)" is an integer, not a tuple */
            if (n == 1 && commas == 0)
                FAIL(f, h, NCL_ERR_INVALID_ARGUMENT, "shape is an integer, not a tuple");
            h->p++;
            break;
        }
        if (n > commas) FAIL(f, h, NCL_ERR_INVALID_ARGUMENT, "expected ',' or ')' in the shape");
        int64_t v;
        const int r = parse_int(h, &v);
        if (r == 0) FAIL(f, h, NCL_ERR_INVALID_ARGUMENT, "shape is not a tuple of integers");
        if (r < 0)
            FAIL(f, h, NCL_ERR_SHAPE, "extent %d of the shape is beyond int64%s", n,
                 v < 0 ? " (negative)" : "");
        if (v < 0)
            FAIL(f, h, NCL_ERR_SHAPE, "extent %d of the shape is negative (%lld)", n, (long long)v);
        if (n >= NCL_MAXDIMS)
            FAIL(f, h, NCL_ERR_SHAPE, "the shape has more than NCL_MAXDIMS (%d) extents",
                 NCL_MAXDIMS);
        out->shape[n++] = v;
        skip_space(h);
        if (h->p < h->end && *h->p == ',') {
            h->p++;
            commas++;
        }
    }
    out->ndim = n;
    return 1;
}

/* Parses the header text s[0 .. n) into out: 1, or 0 with f filled in. */
static int parse_header(const char *s, size_t n, int allow_long, npy_header *out,
                        parse_failure *f)
{
    hdr_parser hp = {s, s, s + n, allow_long}, *h = &hp;
    if (memchr(s, '\0', n) != NULL)
        FAIL(f, h, NCL_ERR_INVALID_ARGUMENT, "the header holds a NUL byte");
    int seen[3] = {0, 0, 0};
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    skip_space(h);
    if (h->p >= h->end || *h->p != '{')
        FAIL(f, h, NCL_ERR_INVALID_ARGUMENT, "the header is not a dict");
    h->p++;
    skip_space(h);
    while (h->p < h->end && *h->p != '}') {
        const char *key;
        size_t klen;
        if (!parse_string(h, &key, &klen))
            FAIL(f, h, NCL_ERR_INVALID_ARGUMENT, "expected a string key");
        int k = 0;
        while (k < 3 && !(strlen(keys[k]) == klen && memcmp(keys[k], key, klen) == 0)) k++;
        char kb[40];
        if (k == 3)
            FAIL(f, h, NCL_ERR_INVALID_ARGUMENT, "unexpected key '%s'",
                 excerpt(key, klen, kb, sizeof kb));
        if (seen[k]) FAIL(f, h, NCL_ERR_INVALID_ARGUMENT, "key '%s' appears twice", keys[k]);
        seen[k] = 1;
        skip_space(h);
        if (h->p >= h->end || *h->p != ':')
            FAIL(f, h, NCL_ERR_INVALID_ARGUMENT, "expected ':' after a key");
        h->p++;
        skip_space(h);
        if (k == 0) {
            if (h->p < h->end && (*h->p == '[' || *h->p == '(' || *h->p == '{')) {
                char db[64];
                FAIL(f, h, NCL_ERR_UNSUPPORTED,
                     "descr %s is a structured dtype, which has no NCLib dtype",
                     excerpt(h->p, (size_t)(h->end - h->p), db, sizeof db));
            }
            if (!parse_string(h, &out->descr, &out->descr_len))
                FAIL(f, h, NCL_ERR_INVALID_ARGUMENT, "descr is not a string");
        } else if (k == 1) {
            if (parse_word(h, "True")) out->fortran = 1;
            else if (parse_word(h, "False")) out->fortran = 0;
            else FAIL(f, h, NCL_ERR_INVALID_ARGUMENT, "fortran_order is not True or False");
        } else if (!parse_shape(h, out, f)) {
            return 0;
        }
        skip_space(h);
        if (h->p < h->end && *h->p == ',') {
            h->p++;
            skip_space(h);
        } else if (h->p >= h->end || *h->p != '}') {
            FAIL(f, h, NCL_ERR_INVALID_ARGUMENT, "expected ',' or '}' after a value");
        }
    }
    if (h->p >= h->end) FAIL(f, h, NCL_ERR_INVALID_ARGUMENT, "the dict is not closed");
    h->p++;
    skip_space(h);
    if (h->p != h->end) FAIL(f, h, NCL_ERR_INVALID_ARGUMENT, "text after the dict");
    for (int k = 0; k < 3; k++)
        if (!seen[k]) FAIL(f, h, NCL_ERR_INVALID_ARGUMENT, "the key '%s' is missing", keys[k]);
    return 1;
}

#undef FAIL

/* ---- load -------------------------------------------------------------------- */

/* Reverses the bytes of each of n elements of width w at p. */
static void swap_bytes(unsigned char *p, int64_t n, size_t w)
{
    for (int64_t i = 0; i < n; i++, p += w)
        for (size_t lo = 0, hi = w - 1; lo < hi; lo++, hi--) {
            const unsigned char t = p[lo];
            p[lo] = p[hi];
            p[hi] = t;
        }
}

/* Reads exactly n bytes; 0 on a short read (end of file or error). */
static int read_exact(FILE *f, void *dst, size_t n)
{
    unsigned char *d = dst;
    while (n > 0) {
        const size_t step = n < ((size_t)1 << 30) ? n : ((size_t)1 << 30);
        const size_t got = fread(d, 1, step, f);
        if (got != step) return 0;
        d += got;
        n -= got;
    }
    return 1;
}

/* NCL_ERR_INVALID_ARGUMENT for a file cut short, or a read error. */
static NclStatus short_read(const char *who, const char *path, FILE *f, const char *what)
{
    char eb[96];
    if (ferror(f))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: '%.200s': reading %s failed: %s", who,
                         path, what, errtext(errno, eb, sizeof eb));
    return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: '%.200s' is cut short: it ends inside %s",
                     who, path, what);
}

static NclStatus load_file(const char *who, const char *path, FILE *f, NclArray **out)
{
    char sb1[NCL_SHAPE_STR];
    struct stat st;
    int64_t fsize = -1;
    if (fstat(fileno(f), &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: '%.200s' is a directory", who, path);
        if (S_ISREG(st.st_mode)) fsize = (int64_t)st.st_size;
    }
    unsigned char pre[12];
    const size_t got = fread(pre, 1, 8, f);
    if (got < NPY_MAGIC_LEN || memcmp(pre, NPY_MAGIC, NPY_MAGIC_LEN) != 0) {
        if (ferror(f)) return short_read(who, path, f, "its magic string");
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "%s: '%.200s' is not a .npy file: it does not start with the magic "
                         "string \\x93NUMPY",
                         who, path);
    }
    if (got < 8) return short_read(who, path, f, "its version");
    const unsigned major = pre[6], minor = pre[7];
    if (minor != 0 || major < 1 || major > 3)
        return ncl_error(NCL_ERR_UNSUPPORTED,
                         "%s: '%.200s' is in .npy format version %u.%u; NCLib reads 1.0, 2.0 "
                         "and 3.0",
                         who, path, major, minor);
    const size_t lenbytes = major == 1 ? 2 : 4;
    if (!read_exact(f, pre + 8, lenbytes)) return short_read(who, path, f, "its header length");
    uint64_t hlen = (uint64_t)pre[8] | (uint64_t)pre[9] << 8;
    if (lenbytes == 4) hlen |= (uint64_t)pre[10] << 16 | (uint64_t)pre[11] << 24;
    const int64_t data_at = (int64_t)(8 + lenbytes + hlen);
    if (fsize >= 0 && data_at > fsize)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "%s: '%.200s' is cut short: its header of %llu bytes reaches past the "
                         "end of the file (%lld bytes)",
                         who, path, (unsigned long long)hlen, (long long)fsize);
    char *text = malloc((size_t)hlen + 1);
    if (text == NULL) return ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory for the header", who);
    if (!read_exact(f, text, (size_t)hlen)) {
        free(text);
        return short_read(who, path, f, "its header");
    }
    npy_header h;
    memset(&h, 0, sizeof h);
    parse_failure pf;
    if (!parse_header(text, (size_t)hlen, major <= 2, &h, &pf)) {
        char tb[120];
        const NclStatus s =
            ncl_error(pf.status, "%s: '%.200s': %s%s (at byte %zu of the header %s)", who, path,
                      pf.status == NCL_ERR_INVALID_ARGUMENT ? "malformed header: " : "", pf.what,
                      pf.at, excerpt(text, (size_t)hlen, tb, sizeof tb));
        free(text);
        return s;
    }
    int swap;
    const int dtype = dtype_of_descr(h.descr, h.descr_len, &swap);
    if (dtype < 0) {
        char db[64];
        const NclStatus s = ncl_error(
            NCL_ERR_UNSUPPORTED,
            "%s: '%.200s': descr '%s' has no NCLib dtype (NCLib reads b1, i1..i8, u1..u8, f4 "
            "and f8, in either byte order)",
            who, path, excerpt(h.descr, h.descr_len, db, sizeof db));
        free(text);
        return s;
    }
    free(text);
    h.descr = NULL;
    int64_t size, bytes;
    NclStatus s = ncl_shape_check(who, h.ndim, h.shape, &size);
    if (s != NCL_OK) return s;
    const size_t isz = ncl_dtype_size[dtype];
    if (ncl_mul_overflow(size, (int64_t)isz, &bytes) || (uint64_t)bytes >= (uint64_t)SIZE_MAX)
        return ncl_error(NCL_ERR_SHAPE, "%s: '%.200s': shape %s of %s has more bytes than int64 "
                         "can count", who, path, ncl_shape_str(sb1, h.ndim, h.shape),
                         NclDTypeName((NclDType)dtype));
    if (fsize >= 0 && bytes > fsize - data_at)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "%s: '%.200s' is cut short: shape %s of %s needs %lld bytes of data, "
                         "the file has %lld after its header",
                         who, path, ncl_shape_str(sb1, h.ndim, h.shape),
                         NclDTypeName((NclDType)dtype), (long long)bytes,
                         (long long)(fsize - data_at));
    NclArray *a = NULL;
    s = ncl_array_alloc(who, (NclDType)dtype, h.ndim, h.shape,
                        h.fortran ? NCL_ORDER_F : NCL_ORDER_C,
                        0, &a);
    if (s != NCL_OK) return s;
    if (bytes > 0 && !read_exact(f, a->data, (size_t)bytes)) {
        NclArrayRelease(a);
        return short_read(who, path, f, "its data");
    }
    if (swap) swap_bytes((unsigned char *)a->data, size, isz);
    if (dtype == NCL_BOOL)
        for (int64_t i = 0; i < size; i++) a->data[i] = a->data[i] != 0;
    *out = a;
    return NCL_OK;
}

NclStatus NclLoadNpy(const char *path, NclArray **out)
{
    static const char who[] = "NclLoadNpy";
    char eb[96];
    if (path == NULL || out == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who, path ? "out" : "path");
    if (path[0] == '\0') return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: path is empty", who);
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (f == NULL) {
        const int e = errno;
        if (fd >= 0) close(fd);
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: cannot open '%.200s': %s", who, path,
                         errtext(e, eb, sizeof eb));
    }
    const NclStatus s = load_file(who, path, f, out);
    fclose(f);
    return s;
}

/* ---- save -------------------------------------------------------------------- */

/* Room for the longest header: the prefix, the dict with NCL_MAXDIMS
   extents of up to 19 digits, the growth room and the padding. */
#define NPY_HEADER_CAP (12 + 128 + NCL_MAXDIMS * 21 + NPY_GROWTH_DIGITS + NPY_ALIGN + 2)

/* The whole header (magic to newline) for a, as NumPy 1.24 writes it;
   returns its length. */
static size_t build_header(const NclArray *a, int fortran, char *buf)
{
    char descr[8], dict[NPY_HEADER_CAP];
    descr_of(a->dtype, descr);
    size_t n = (size_t)snprintf(dict, sizeof dict,
                                "{'descr': '%s', 'fortran_order': %s, 'shape': (", descr,
                                fortran ? "True" : "False");
    for (int d = 0; d < a->ndim; d++)
        n += (size_t)snprintf(dict + n, sizeof dict - n, "%s%lld", d ? ", " : "",
                              (long long)a->shape[d]);
    n += (size_t)snprintf(dict + n, sizeof dict - n, "%s), }", a->ndim == 1 ? "," : "");
    if (a->ndim > 0) {
        char ext[24];
        const int len = snprintf(ext, sizeof ext, "%lld",
                                 (long long)a->shape[fortran ? a->ndim - 1 : 0]);
        for (int i = len; i < NPY_GROWTH_DIGITS; i++) dict[n++] = ' ';
    }
    /* The text, padding and newline end at a multiple of NPY_ALIGN; the
       padding is 1..NPY_ALIGN spaces (never 0). Version 2.0's 4-byte length
       only when 1.0's 2 bytes cannot hold it. */
    size_t prefix = NPY_MAGIC_LEN + 2 + 2;
    size_t hlen = n + 1;
    size_t pad = NPY_ALIGN - (prefix + hlen) % NPY_ALIGN;
    int major = 1;
    if (hlen + pad > 65535) {
        major = 2;
        prefix += 2;
        pad = NPY_ALIGN - (prefix + hlen) % NPY_ALIGN;
    }
    const uint64_t total = hlen + pad;
    memcpy(buf, NPY_MAGIC, NPY_MAGIC_LEN);
    buf[6] = (char)major;
    buf[7] = 0;
    for (size_t i = 0; i < prefix - 8; i++) buf[8 + i] = (char)(unsigned char)(total >> (8 * i));
    memcpy(buf + prefix, dict, n);
    memset(buf + prefix + n, ' ', pad);
    buf[prefix + n + pad] = '\n';
    return prefix + n + pad + 1;
}

/* Writes n bytes; 0 with errno set on failure. */
static int write_all(int fd, const void *src, size_t n)
{
    const char *p = src;
    while (n > 0) {
        const size_t step = n < ((size_t)1 << 30) ? n : ((size_t)1 << 30);
        const ssize_t w = write(fd, p, step);
        if (w < 0) {
            if (errno == EINTR) continue;
            return 0;
        }
        if (w == 0) {
            errno = EIO;
            return 0;
        }
        p += w;
        n -= (size_t)w;
    }
    return 1;
}

/* Writes a's elements in C order through a buffer of cap bytes. */
static int write_strided(int fd, const NclArray *a, char *buf, size_t cap)
{
    const size_t isz = a->itemsize;
    const int last = a->ndim - 1;
    const int64_t n = a->shape[last], s = a->strides[last];
    int64_t idx[NCL_MAXDIMS] = {0};
    const char *row = a->data;
    size_t used = 0;
    for (;;) {
        for (int64_t i = 0; i < n; i++) {
            if (used + isz > cap) {
                if (!write_all(fd, buf, used)) return 0;
                used = 0;
            }
            memcpy(buf + used, row + i * s, isz);
            used += isz;
        }
        int d = last - 1;
        for (; d >= 0; d--) {
            row += a->strides[d];
            if (++idx[d] < a->shape[d]) break;
            row -= a->strides[d] * a->shape[d];
            idx[d] = 0;
        }
        if (d < 0) break;
    }
    return write_all(fd, buf, used);
}

/* Header and elements into fd: 0 with errno set on failure. */
static int write_npy(int fd, const NclArray *a, int fortran, int64_t bytes, int *nomem)
{
    char header[NPY_HEADER_CAP];
    const size_t hn = build_header(a, fortran, header);
    if (!write_all(fd, header, hn)) return 0;
    if (bytes == 0) return 1;
    if (fortran || (a->flags & NCL_ARRAY_C_CONTIGUOUS))
        return write_all(fd, a->data, (size_t)bytes);
    char *buf = malloc(NPY_CHUNK);
    if (buf == NULL) {
        *nomem = 1;
        return 0;
    }
    const int ok = write_strided(fd, a, buf, NPY_CHUNK);
    const int e = errno;
    free(buf);
    errno = e;
    return ok;
}

static atomic_uint tmp_counter;

NclStatus NclSaveNpy(const NclArray *a, const char *path)
{
    static const char who[] = "NclSaveNpy";
    char eb[96];
    if (a == NULL || path == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who, a ? "path" : "a");
    const NclStatus chk = ncl_array_check(who, "a", a);
    if (chk != NCL_OK) return chk;
    if (path[0] == '\0') return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: path is empty", who);
    if (a->kind == NCL_MEM_DEVICE || a->kind == NCL_MEM_UNKNOWN)
        return ncl_error(NCL_ERR_DEVICE_MEMORY,
                         "%s: the array is in %s memory, which host code cannot read", who,
                         a->kind == NCL_MEM_DEVICE ? "device" : "unknown");
    int64_t bytes;
    if (ncl_mul_overflow(a->size, (int64_t)a->itemsize, &bytes))
        return ncl_error(NCL_ERR_SHAPE, "%s: %lld elements of %zu bytes are more bytes than "
                         "int64 can count", who, (long long)a->size, a->itemsize);
    const int fortran =
        (a->flags & NCL_ARRAY_F_CONTIGUOUS) && !(a->flags & NCL_ARRAY_C_CONTIGUOUS);

    /* The file replaced: a symbolic link's target, as writing through the
       link would; its permissions go to the new file. */
    char *resolved = NULL;
    const char *target = path;
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        resolved = realpath(path, NULL);
        if (resolved != NULL) target = resolved;
    }
    int keep_mode = stat(target, &st) == 0 && S_ISREG(st.st_mode);
    const mode_t mode = keep_mode ? (st.st_mode & 07777) : 0;

    const char *slash = strrchr(target, '/');
    const size_t dirlen = slash ? (size_t)(slash - target) + 1 : 0;
    const size_t cap = dirlen + 64;
    char *tmp = malloc(cap);
    if (tmp == NULL) {
        free(resolved);
        return ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who);
    }
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        snprintf(tmp, cap, "%.*s.ncl-npy-%ld-%u.tmp", (int)dirlen, target, (long)getpid(),
                 atomic_fetch_add(&tmp_counter, 1u));
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        const NclStatus s = ncl_error(NCL_ERR_INVALID_ARGUMENT,
                                      "%s: cannot create a file beside '%.200s': %s", who, path,
                                      errtext(errno, eb, sizeof eb));
        free(tmp);
        free(resolved);
        return s;
    }
    if (keep_mode) (void)fchmod(fd, mode);
    int nomem = 0;
    int ok = write_npy(fd, a, fortran, bytes, &nomem) && fsync(fd) == 0;
    int e = errno;
    if (close(fd) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (ok && rename(tmp, target) != 0) {
        ok = 0;
        e = errno;
    }
    NclStatus s = NCL_OK;
    if (!ok) {
        (void)unlink(tmp);
        s = nomem ? ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory", who)
                  : ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: cannot write '%.200s': %s", who,
                              path, errtext(e, eb, sizeof eb));
    }
    free(tmp);
    free(resolved);
    return s;
}
