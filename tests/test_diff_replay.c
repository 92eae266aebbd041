/*
 * test_diff_replay.c: replays the NumPy differential corpus
 * (tests/diff/corpus.txt, written by tests/diff/make_corpus.py) through the
 * C API, one Check test per case. Each case rebuilds its input, output and
 * mask arrays over buffers with the recorded bytes, alignment and aliasing,
 * makes the call and checks the status, the message, the values (exact or
 * within the recorded ulps, signed zeros as recorded) and the FP flags.
 * This is how sanitizer builds, which cannot load libncl.so into python,
 * still run the differential cases. NCL_DIFF_CORPUS overrides the path.
 */
#define _POSIX_C_SOURCE 200809L
#include "ncl_test.h"

#ifndef NCL_TEST_SRCDIR
#define NCL_TEST_SRCDIR "."
#endif

enum { MAX_BUFS = 8, MAX_ARRS = 5 };

typedef struct rarr {
    char role[8];
    int dtype, buf, ndim;
    int64_t first;
    int64_t shape[NCL_MAXDIMS], strides[NCL_MAXDIMS];
} rarr;

typedef struct rcase {
    char kind[12];
    int op, dtype, casting, use_params, status, ulp, signed_zero, fneed, fforbid, nbufs,
        accuracy;
    char title[512];
    struct { int64_t nbytes; int align; unsigned char *bytes; } bufs[MAX_BUFS];
    rarr arrs[MAX_ARRS];
    int narrs;
    int exp_dtype, exp_ndim;
    int64_t exp_shape[NCL_MAXDIMS];
    unsigned char *exp_bytes;
    int64_t exp_nbytes;
    /* Reduce, Sort, Mask parameters (the "params" line): naxes -1 = NULL */
    int naxes, keepdims, sort_kind, ini_dtype;
    int axes[NCL_MAXDIMS];
    int64_t kth;
    unsigned char *ini_bytes;
} rcase;

static rcase *cases;
static int ncases;
static char load_error[512];

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Decodes hex text ("-" for nothing) into a new block of *n bytes. */
static unsigned char *unhex(const char *s, int64_t *n)
{
    size_t len = strcmp(s, "-") == 0 ? 0 : strlen(s);
    unsigned char *out = malloc(len / 2 + 1);
    if (out == NULL || len % 2) { free(out); return NULL; }
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0) { free(out); return NULL; }
        out[i] = (unsigned char)(hi * 16 + lo);
    }
    *n = (int64_t)(len / 2);
    return out;
}

/* ---- byte order ----------------------------------------------------------------
   The corpus holds little-endian bytes (tests/diff/README.md). On a big-endian
   machine every element is reversed in place, by the dtype of what views it:
   the expected result and the initial value when they are read, the
   buffers through the arrays over them when a case is replayed. That needs
   each byte of a buffer to belong to one element of one width, which
   buffers_to_native checks on every machine. */
static void reverse_elements(unsigned char *p, int64_t nbytes, size_t w)
{
    if (!NCL_TEST_BIG_ENDIAN || w < 2) return;
    for (int64_t i = 0; i + (int64_t)w <= nbytes; i += (int64_t)w)
        for (size_t a = 0, b = w - 1; a < b; a++, b--) {
            const unsigned char t = p[i + a];
            p[i + a] = p[i + b];
            p[i + b] = t;
        }
}

/* Reads the next whitespace-separated integer from *p. */
static int next_i64(char **p, int64_t *v)
{
    char *end;
    long long x = strtoll(*p, &end, 10);
    if (end == *p) return 0;
    *p = end;
    *v = x;
    return 1;
}

static int next_int(char **p, int *v)
{
    int64_t x;
    if (!next_i64(p, &x)) return 0;
    *v = (int)x;
    return 1;
}

static int parse_line(rcase *c, char *line)
{
    char word[16];
    int used = 0;
    if (sscanf(line, "%15s%n", word, &used) != 1) return 1;
    char *p = line + used;
    if (strcmp(word, "case") == 0) {
        memset(c, 0, sizeof *c);
        if (sscanf(p, "%11s%n", c->kind, &used) != 1) return 0;
        p += used;
        c->naxes = -1;
        c->ini_dtype = -1;
        int *f[] = {&c->op, &c->dtype, &c->casting, &c->use_params, &c->status, &c->ulp,
                    &c->signed_zero, &c->fneed, &c->fforbid, &c->nbufs, &c->accuracy};
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
            if (!next_int(&p, f[i])) return 0;
        return c->nbufs >= 0 && c->nbufs <= MAX_BUFS;
    }
    if (word[0] == '#') {
        snprintf(c->title, sizeof c->title, "%s", p + (*p == ' '));
        c->title[strcspn(c->title, "\n")] = '\0';
        return 1;
    }
    if (strcmp(word, "buf") == 0) {
        int id, align;
        int64_t nbytes, got;
        char *hex = malloc(strlen(p) + 1);
        if (hex == NULL) return 0;
        int ok = sscanf(p, "%d %lld %d %s", &id, (long long *)&nbytes, &align, hex) == 4 &&
                 id >= 0 && id < c->nbufs && align >= 0 && align < 64;
        if (ok) {
            c->bufs[id].bytes = unhex(hex, &got);
            c->bufs[id].nbytes = nbytes;
            c->bufs[id].align = align;
            ok = c->bufs[id].bytes != NULL && got == nbytes;
        }
        free(hex);
        return ok;
    }
    if (strcmp(word, "arr") == 0) {
        if (c->narrs == MAX_ARRS) return 0;
        rarr *a = &c->arrs[c->narrs++];
        if (sscanf(p, "%7s%n", a->role, &used) != 1) return 0;
        p += used;
        if (!next_int(&p, &a->dtype) || !next_int(&p, &a->buf) || !next_i64(&p, &a->first) ||
            !next_int(&p, &a->ndim) || a->ndim < 0 || a->ndim > NCL_MAXDIMS ||
            a->buf < 0 || a->buf >= c->nbufs)
            return 0;
        for (int i = 0; i < a->ndim; i++)
            if (!next_i64(&p, &a->shape[i])) return 0;
        for (int i = 0; i < a->ndim; i++)
            if (!next_i64(&p, &a->strides[i])) return 0;
        return 1;
    }
    if (strcmp(word, "params") == 0) {
        /* NAXES AXES... KEEPDIMS KIND KTH INITIAL_DTYPE INITIAL_HEX */
        if (!next_int(&p, &c->naxes) || c->naxes < -1 || c->naxes > NCL_MAXDIMS) return 0;
        for (int i = 0; i < c->naxes; i++)
            if (!next_int(&p, &c->axes[i])) return 0;
        if (!next_int(&p, &c->keepdims) || !next_int(&p, &c->sort_kind) || !next_i64(&p, &c->kth) ||
            !next_int(&p, &c->ini_dtype))
            return 0;
        char *hex = malloc(strlen(p) + 1);
        int64_t got = 0;
        if (hex == NULL) return 0;
        int ok = sscanf(p, "%s", hex) == 1 && (c->ini_bytes = unhex(hex, &got)) != NULL &&
                 (c->ini_dtype < 0 || (size_t)got == NclDTypeSize((NclDType)c->ini_dtype));
        free(hex);
        if (ok && c->ini_dtype >= 0) reverse_elements(c->ini_bytes, got, (size_t)got);
        return ok;
    }
    if (strcmp(word, "expect") == 0) {
        if (!next_int(&p, &c->exp_dtype) || !next_int(&p, &c->exp_ndim) ||
            c->exp_ndim < 0 || c->exp_ndim > NCL_MAXDIMS)
            return 0;
        for (int i = 0; i < c->exp_ndim; i++)
            if (!next_i64(&p, &c->exp_shape[i])) return 0;
        char *hex = malloc(strlen(p) + 1);
        if (hex == NULL) return 0;
        int ok = sscanf(p, "%s", hex) == 1 &&
                 (c->exp_bytes = unhex(hex, &c->exp_nbytes)) != NULL &&
                 c->exp_dtype >= 0 && c->exp_dtype < NCL_NTYPES;
        free(hex);
        if (ok) reverse_elements(c->exp_bytes, c->exp_nbytes, NclDTypeSize((NclDType)c->exp_dtype));
        return ok;
    }
    if (strcmp(word, "end") == 0) return 2;
    return 0;
}

static void load_corpus(void)
{
    const char *path = getenv("NCL_DIFF_CORPUS");
    if (path == NULL || *path == '\0') path = NCL_TEST_SRCDIR "/diff/corpus.txt";
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(load_error, sizeof load_error, "cannot open %s", path);
        return;
    }
    char *line = NULL;
    size_t cap = 0;
    int cap_cases = 0, lineno = 0, in_case = 0;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        if (!in_case) {
            if (line[0] == '#' || line[strspn(line, " \t\n")] == '\0') continue;
            if (ncases == cap_cases) {
                cap_cases = cap_cases ? 2 * cap_cases : 256;
                rcase *grown = realloc(cases, (size_t)cap_cases * sizeof *cases);
                if (grown == NULL) break;
                cases = grown;
            }
            in_case = 1;
        }
        int r = parse_line(&cases[ncases], line);
        if (r == 0) {
            snprintf(load_error, sizeof load_error, "%s:%d: cannot parse this line", path,
                     lineno);
            break;
        }
        if (r == 2) {
            ncases++;
            in_case = 0;
        }
    }
    free(line);
    fclose(f);
}

/* Checks that no byte of a buffer is viewed as part of two different
   elements (offset or width), and on a big-endian machine reverses each
   element once, in the buffers mem (which start at the recorded alignment). */
static void buffers_to_native(const rcase *c, char *const *mem)
{
    int64_t *start[MAX_BUFS] = {0}; /* per byte: its element, or -1 */
    for (int b = 0; b < c->nbufs; b++) {
        start[b] = malloc((size_t)(c->bufs[b].nbytes ? c->bufs[b].nbytes : 1) * sizeof *start[b]);
        ck_assert_ptr_nonnull(start[b]);
        for (int64_t i = 0; i < c->bufs[b].nbytes; i++) start[b][i] = -1;
    }
    for (int i = 0; i < c->narrs; i++) {
        const rarr *a = &c->arrs[i];
        const int64_t w = (int64_t)NclDTypeSize((NclDType)a->dtype), n = ncl_test_shape_size(a->ndim, a->shape);
        unsigned char *base = (unsigned char *)mem[a->buf] + c->bufs[a->buf].align;
        for (int64_t flat = 0; flat < n; flat++) {
            int64_t off = a->first, rest = flat;
            for (int d = a->ndim - 1; d >= 0; d--) {
                off += rest % a->shape[d] * a->strides[d];
                rest /= a->shape[d];
            }
            ck_assert_msg(off >= 0 && off + w <= c->bufs[a->buf].nbytes, "%s: %s element %lld outside its buffer",
                          c->title, a->role, (long long)flat);
            /* each byte records its element as offset * 16 + width */
            const int64_t code = off * 16 + w;
            const int fresh = start[a->buf][off] == -1;
            for (int64_t k = 0; k < w; k++) {
                int64_t *owner = &start[a->buf][off + k];
                ck_assert_msg(*owner == (fresh ? -1 : code),
                              "%s: buffer %d byte %lld belongs to two elements: the corpus's byte "
                              "order could not be replayed on a big-endian machine",
                              c->title, a->buf, (long long)(off + k));
                *owner = code;
            }
            if (fresh) reverse_elements(base + off, w, (size_t)w);
        }
    }
    for (int b = 0; b < c->nbufs; b++) free(start[b]);
}

static NclStatus call(const rcase *c, NclArray *const *in, NclArray **out, const NclParams *p)
{
    if (strcmp(c->kind, "ternary") == 0) return NclTernary(c->op, in[0], in[1], in[2], out, p);
    if (strcmp(c->kind, "reduce") == 0) return NclReduce(c->op, in[0], out, p);
    if (strcmp(c->kind, "sort") == 0) return NclSort(c->op, in[0], out, p);
    if (strcmp(c->kind, "mask") == 0) return NclMask(c->op, in[0], in[1], out, p);
    if (strcmp(c->kind, "binary") == 0) return NclBinary(c->op, in[0], in[1], out, p);
    if (strcmp(c->kind, "compare") == 0) return NclCompare(c->op, in[0], in[1], out, p);
    if (strcmp(c->kind, "unary") == 0) return NclUnary(c->op, in[0], out, p);
    if (strcmp(c->kind, "isunary") == 0) return NclIsUnary(c->op, in[0], out, p);
    if (strcmp(c->kind, "convert") == 0) return NclConvert(c->op, in[0], out, p);
    ck_abort_msg("unknown subsystem %s", c->kind);
    return NCL_ERR_INVALID_ARGUMENT;
}

START_TEST(t_replay)
{
    const rcase *c = &cases[_i];
    char *mem[MAX_BUFS] = {0};
    NclArray *in[3] = {NULL, NULL, NULL}, *out = NULL, *where = NULL, *result = NULL;
    for (int b = 0; b < c->nbufs; b++) {
        /* the recorded address modulo 16, so misalignment replays */
        mem[b] = aligned_alloc(64, (size_t)(c->bufs[b].nbytes + 128) / 64 * 64);
        ck_assert_ptr_nonnull(mem[b]);
        memcpy(mem[b] + c->bufs[b].align, c->bufs[b].bytes, (size_t)c->bufs[b].nbytes);
    }
    buffers_to_native(c, mem);
    for (int i = 0; i < c->narrs; i++) {
        const rarr *a = &c->arrs[i];
        const int is_out = strcmp(a->role, "out") == 0;
        NclArray *h = NULL;
        NCL_CHECK_OK(NclFromData((NclDType)a->dtype, a->ndim, a->shape, a->strides,
                                 mem[a->buf] + c->bufs[a->buf].align + a->first,
                                 is_out ? NCL_ARRAY_WRITEABLE : 0, NULL, NULL, &h));
        if (strcmp(a->role, "in0") == 0) in[0] = h;
        else if (strcmp(a->role, "in1") == 0) in[1] = h;
        else if (strcmp(a->role, "in2") == 0) in[2] = h;
        else if (is_out) out = h;
        else where = h;
    }
    NclParams prm = NCL_PARAMS_INIT;
    prm.where = where;
    prm.dtype = (NclDType)c->dtype;
    if (c->casting >= 0) prm.casting = (NclCasting)c->casting;
    if (c->naxes >= 0) {
        prm.axes = c->axes;
        prm.naxes = c->naxes;
    }
    prm.keepdims = c->keepdims;
    prm.kind = c->sort_kind;
    prm.kth = c->kth;
    prm.initial = c->ini_dtype >= 0 ? c->ini_bytes : NULL;
    const uint64_t before = out ? ncl_test_hash(out) : 0;
    result = out;
    if (c->accuracy) NCL_CHECK_OK(NclSetAccuracy((NclAccuracy)c->accuracy));
    NclStatus s = call(c, in, &result, c->use_params ? &prm : NULL);
    const int flags = NclGetFPErrors();
    NCL_CHECK_OK(NclSetAccuracy(NCL_ACCURACY_HIGH));
    ck_assert_msg(s == (NclStatus)c->status, "%s: status %s, expected %s (%s)", c->title,
                  NclStatusString(s), NclStatusString((NclStatus)c->status), NclLastError());
    if (s != NCL_OK) {
        ck_assert_msg(NclLastError()[0] != '\0', "%s: no message", c->title);
        ck_assert_msg(result == out, "%s: *out changed on failure", c->title);
        if (out && s != NCL_ERR_INVALID_ARGUMENT)
            ck_assert_msg(ncl_test_hash(out) == before, "%s: output written on failure",
                          c->title);
    } else {
        ck_assert_msg(result != NULL, "%s: OK but no result", c->title);
        ck_assert_msg(out == NULL || result == out, "%s: *out replaced", c->title);
        NclArray *exp = NULL;
        NCL_CHECK_OK(NclFromData((NclDType)c->exp_dtype, c->exp_ndim, c->exp_shape, NULL,
                                 c->exp_bytes, 0, NULL, NULL, &exp));
        char why[256];
        ck_assert_msg(ncl_test_compare(result, exp, c->signed_zero ? NCL_TEST_SIGNED_ZERO : 0,
                                       (uint64_t)c->ulp, why, sizeof why),
                      "%s: %s", c->title, why);
        NclArrayRelease(exp);
        ck_assert_msg((flags & c->fneed) == c->fneed && !(flags & c->fforbid),
                      "%s: FP flags 0x%x, expected all of 0x%x and none of 0x%x", c->title,
                      flags, c->fneed, c->fforbid);
    }
    if (result != out) NclArrayRelease(result);
    NclArrayRelease(out);
    NclArrayRelease(where);
    NclArrayRelease(in[0]);
    NclArrayRelease(in[1]);
    NclArrayRelease(in[2]);
    for (int b = 0; b < c->nbufs; b++) free(mem[b]);
}
END_TEST

START_TEST(t_corpus_loaded)
{
    ck_assert_msg(load_error[0] == '\0', "%s", load_error);
    ck_assert_msg(ncases >= 100, "only %d cases in the corpus", ncases);
}
END_TEST

static Suite *replay_suite(void)
{
    load_corpus();
    Suite *s = suite_create("diff_replay");
    TCase *tc = ncl_test_tcase(s, "corpus");
    tcase_add_test(tc, t_corpus_loaded);
    tcase_add_loop_test(tc, t_replay, 0, ncases);
    return s;
}

NCL_TEST_MAIN(replay_suite)
