/*
 * format.c: NclArrayFormat, the text NumPy 1.24's repr() gives an array
 * under the default print options (precision 8, threshold 1000, edgeitems
 * 3, linewidth 75, floatmode "maxprec", suppress False, sign "-").
 *
 * The text is built in scratch memory and copied out only when it fits, so
 * a caller's buffer is never half-written. Three passes over the elements
 * that are shown (all of them, or the corners of a summarised array): the
 * first gathers what decides the notation of floats, the second the field
 * widths, the third writes. Elements are read here but never written.
 *
 * Floats print their shortest digits that read back as the same value
 * (found by trying 1..17 significant digits), cut to 8 digits after the
 * point where they need more, then padded so that points (and exponents)
 * line up down a column. Two places where NumPy's array printing shows more
 * than those digits, the exact value's own: in e notation every element
 * gets as many digits as the longest needs, and in positional notation the
 * integer part is always whole (float32 from 10^7 on).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "array/ncl_array.h"

/* The defaults of numpy.set_printoptions this text follows. */
enum {
    PRECISION = 8,       /* most digits after the point (the mantissa's, in e notation) */
    THRESHOLD = 1000,    /* more elements than this are summarised */
    EDGEITEMS = 3,       /* elements kept at each end of a summarised axis */
    LINEWIDTH = 75
};
static const char prefix[] = "array(";
#define PREFIX_LEN ((int)(sizeof prefix - 1))

/* ---- growable text ------------------------------------------------------ */

typedef struct text {
    char *p;
    size_t len, cap;
    int oom;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->oom) return;
    if (n >= t->cap - t->len) {
        size_t cap = t->cap ? t->cap : 256;
        while (n >= cap - t->len) {
            if (cap > SIZE_MAX / 2) { t->oom = 1; return; }
            cap *= 2;
        }
        char *p = realloc(t->p, cap);
        if (p == NULL) { t->oom = 1; return; }
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }

static void spaces(text *t, int n)
{
    static const char sp[] = "                                ";
    while (n > 0) {
        int k = n < 32 ? n : 32;
        put(t, sp, (size_t)k);
        n -= k;
    }
}

/* ---- float digits ------------------------------------------------------- */

/* A finite float as sign, decimal digits and exponent:
   value = (neg ? -1 : 1) * d[0].d[1]d[2]... * 10^e, no trailing zeros in d
   (zero is "0" with e = 0). */
typedef struct fdigits {
    int neg;
    int n;
    int e;
    char d[32];
} fdigits;

/* Reads "[-]d.ddde[+-]xx" as snprintf's %e writes it. */
static void parse_e(const char *s, fdigits *f)
{
    f->neg = *s == '-';
    if (*s == '-') s++;
    int n = 0;
    for (; *s != 'e'; s++)
        if (*s != '.' && n < (int)sizeof f->d - 1) f->d[n++] = *s;
    f->e = atoi(s + 1);
    while (n > 1 && f->d[n - 1] == '0') n--;
    f->d[n] = '\0';
    f->n = n;
}

/* Whether text reads back as v (as a float32 when f32). */
static int round_trips(const char *s, double v, int f32)
{
    if (f32) return strtof(s, NULL) == (float)v;
    return strtod(s, NULL) == v;
}

/* Whether the p-digit decimal one unit (of its last digit) away from the
   one in buf, in direction dir, reads back as v; if so it goes into f.
   Only powers of two need this: below them the next float is twice as
   close as above, so a correctly rounded string on the near side can miss
   where its neighbour on the far side hits. */
static int neighbour_round_trips(const char *buf, int p, int dir, double v, int f32,
                                 fdigits *f)
{
    uint64_t m = 0;
    const char *s = buf + (*buf == '-');
    for (; *s != 'e'; s++)
        if (*s != '.') m = m * 10 + (uint64_t)(*s - '0');
    const int e = atoi(s + 1);
    if (dir < 0 && m <= 1) return 0;
    m = dir > 0 ? m + 1 : m - 1;
    char cand[48], digits[24];
    snprintf(cand, sizeof cand, "%s%" PRIu64 "e%d", *buf == '-' ? "-" : "", m, e - (p - 1));
    if (!round_trips(cand, v, f32)) return 0;
    int n = snprintf(digits, sizeof digits, "%" PRIu64, m);
    f->neg = *buf == '-';
    f->e = e - (p - 1) + (n - 1);
    while (n > 1 && digits[n - 1] == '0') n--;
    memcpy(f->d, digits, (size_t)n);
    f->d[n] = '\0';
    f->n = n;
    return 1;
}

/* The fewest significant digits that read back as v; among strings of
   that length, the correctly rounded one where it reads back. */
static void shortest(double v, int f32, fdigits *f)
{
    char buf[48];
    if (v == 0) {
        f->neg = signbit(v) != 0;
        f->n = 1;
        f->e = 0;
        memcpy(f->d, "0", 2);
        return;
    }
    int exp2;
    const int pow2 = frexp(v, &exp2) == (v < 0 ? -0.5 : 0.5);
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, v);
        if (p == 17 || round_trips(buf, v, f32)) break;
        if (pow2 && (neighbour_round_trips(buf, p, 1, v, f32, f) ||
                     neighbour_round_trips(buf, p, -1, v, f32, f)))
            return;
    }
    parse_e(buf, f);
}

/* The digits NumPy prints for a finite v: the shortest unique ones, or,
   where those need more than PRECISION digits after the point (after the
   mantissa's point when sci), v correctly rounded to PRECISION. */
static void float_digits(double v, int f32, int sci, fdigits *f)
{
    shortest(v, f32, f);
    int frac = sci ? f->n - 1 : f->n - 1 - f->e;
    if (frac <= PRECISION) return;
    char buf[400];
    if (sci) {
        snprintf(buf, sizeof buf, "%.*e", PRECISION, v);
        parse_e(buf, f);
        return;
    }
    /* Positional: round at the PRECISION-th place after the point. Only
       values below 10^9 get here (more digits after the point than
       PRECISION need a small exponent). */
    snprintf(buf, sizeof buf, "%.*f", PRECISION, v);
    const char *s = buf;
    f->neg = *s == '-';
    if (*s == '-') s++;
    const char *dot = strchr(s, '.');
    int ilen = (int)(dot - s);
    int n = 0;
    char all[64];
    for (const char *q = s; *q; q++)
        if (*q != '.' && n < (int)sizeof all - 1) all[n++] = *q;
    /* Leading zeros move the exponent; trailing ones go. */
    int lead = 0;
    while (lead < n - 1 && all[lead] == '0') lead++;
    while (n > lead + 1 && all[n - 1] == '0') n--;
    if (n == lead + 1 && all[lead] == '0') {
        f->n = 1;
        f->e = 0;
        memcpy(f->d, "0", 2);
        return;
    }
    f->n = n - lead;
    memcpy(f->d, all + lead, (size_t)f->n);
    f->d[f->n] = '\0';
    f->e = ilen - 1 - lead;
}

/* Positional parts: the integer part with its sign, and the digits after
   the point (may be empty). Positional notation means |v| < 1e8 and no
   more than 8 digits after the point, so each part is short. */
static void positional_parts(const fdigits *f, char *ip, char *fp)
{
    int k = 0, m = 0;
    if (f->neg) ip[k++] = '-';
    if (f->e < 0) {
        ip[k++] = '0';
        for (int i = 0; i < -f->e - 1; i++) fp[m++] = '0';
        for (int i = 0; i < f->n; i++) fp[m++] = f->d[i];
    } else {
        for (int i = 0; i <= f->e; i++) ip[k++] = i < f->n ? f->d[i] : '0';
        for (int i = f->e + 1; i < f->n; i++) fp[m++] = f->d[i];
    }
    ip[k] = '\0';
    fp[m] = '\0';
}

/* ---- element formats ---------------------------------------------------- */

typedef struct efmt {
    NclDType dtype;
    int zero_d;          /* a 0-d array: True has no leading space */
    int kind;            /* 'b', 'i', 'u', 'f' */
    int width;           /* integers: the widest value */
    /* floats */
    int sci;             /* e notation */
    int pad_left;        /* width of the integer part, sign included */
    int pad_right;       /* width of what follows the point (with the
                            exponent in e notation) */
    int prec;            /* e notation: digits after the mantissa's point */
    int exp_size;        /* e notation: digits of the exponent */
} efmt;

static double load_f(const char *p, NclDType t)
{
    if (t == NCL_FLOAT32) {
        float v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    double v;
    memcpy(&v, p, sizeof v);
    return v;
}

static int int_text(const efmt *fm, const char *p, char *out, size_t cap)
{
    if (fm->dtype == NCL_UINT64) {
        uint64_t v;
        memcpy(&v, p, sizeof v);
        return snprintf(out, cap, "%" PRIu64, v);
    }
    return snprintf(out, cap, "%" PRId64, ncl_load_int64(fm->dtype, p));
}

/* What the statistics passes gather over the shown elements. */
typedef struct stats {
    /* pass 1 */
    int any_finite, any_nonfinite, neg_inf, any_nonzero;
    double max_abs, min_abs;    /* over finite non-zero values */
    /* pass 2 */
    int ilen, flen, elen;
} stats;

/* One element's text, at most 127 characters. */
static void element_text(const efmt *fm, const char *p, char *out)
{
    char num[64];
    switch (fm->kind) {
    case 'b':
        strcpy(out, *p ? (fm->zero_d ? "True" : " True") : "False");
        return;
    case 'i':
    case 'u': {
        int n = int_text(fm, p, num, sizeof num);
        snprintf(out, 128, "%*s%s", fm->width - n > 0 ? fm->width - n : 0, "", num);
        return;
    }
    default:
        break;
    }
    const double v = load_f(p, fm->dtype);
    const int width = fm->pad_left + fm->pad_right + 1;
    if (!isfinite(v)) {
        const char *s = isnan(v) ? "nan" : v < 0 ? "-inf" : "inf";
        int n = (int)strlen(s);
        snprintf(out, 128, "%*s%s", width - n > 0 ? width - n : 0, "", s);
        return;
    }
    fdigits f;
    if (fm->sci) {
        /* Every element shows prec digits after the mantissa's point: where
           its own digits are fewer, NumPy goes on with the digits of the
           exact binary value, rounding the last (they are not zeros for
           float32): the exact value correctly rounded to prec places. */
        char frac[40];
        float_digits(v, fm->dtype == NCL_FLOAT32, 1, &f);
        if (f.n - 1 < fm->prec) {
            char buf[64];
            snprintf(buf, sizeof buf, "%.*e", fm->prec, v);
            parse_e(buf, &f);
        }
        int m = 0;
        for (int i = 1; i < f.n; i++) frac[m++] = f.d[i];
        while (m < fm->prec) frac[m++] = '0';
        frac[m] = '\0';
        int ilen = 1 + f.neg;
        int ae = f.e < 0 ? -f.e : f.e;
        snprintf(out, 128, "%*s%s%c.%se%c%0*d", fm->pad_left - ilen > 0 ? fm->pad_left - ilen : 0,
                 "", f.neg ? "-" : "", f.d[0], frac, f.e < 0 ? '-' : '+', fm->exp_size, ae);
        return;
    }
    float_digits(v, fm->dtype == NCL_FLOAT32, 0, &f);
    char ip[48], fp[48];
    if (f.e > f.n - 1) {
        /* The unique digits end before the units digit (float32 from 10^7
           on): NumPy's array printing asks for no fewer digits than the
           integer part has, so the integer part shows the exact value,
           rounded to an integer, not the unique digits padded with zeros. */
        /* Positional notation means |v| < 1e8: the integer fits. */
        if (snprintf(ip, sizeof ip, "%.0f", v) >= (int)sizeof ip) ip[0] = '\0';
        fp[0] = '\0';
    } else {
        positional_parts(&f, ip, fp);
    }
    int il = (int)strlen(ip), fl = (int)strlen(fp);
    snprintf(out, 128, "%*s%s.%s%*s", fm->pad_left - il > 0 ? fm->pad_left - il : 0, "", ip, fp,
             fm->pad_right - fl > 0 ? fm->pad_right - fl : 0, "");
}

/* ---- walking the shown elements ----------------------------------------- */

typedef struct walk {
    const NclArray *a;
    int summarise;
} walk;

/* How many positions of an axis of n are shown, and the k-th of them. */
static int64_t shown_count(const walk *w, int64_t n)
{
    return w->summarise && n > 2 * EDGEITEMS ? 2 * EDGEITEMS : n;
}

static int64_t shown_index(const walk *w, int64_t n, int64_t k)
{
    if (w->summarise && n > 2 * EDGEITEMS && k >= EDGEITEMS) return n - 2 * EDGEITEMS + k;
    return k;
}

static void gather(const efmt *fm, int pass, stats *st, const char *p)
{
    if (fm->kind == 'i' || fm->kind == 'u') {
        char num[32];
        int n = int_text(fm, p, num, sizeof num);
        if (n > st->ilen) st->ilen = n;
        return;
    }
    if (fm->kind != 'f') return;
    const double v = load_f(p, fm->dtype);
    if (pass == 1) {
        if (!isfinite(v)) {
            st->any_nonfinite = 1;
            if (isinf(v) && v < 0) st->neg_inf = 1;
            return;
        }
        st->any_finite = 1;
        if (v == 0) return;
        double m = fabs(v);
        if (!st->any_nonzero || m > st->max_abs) st->max_abs = m;
        if (!st->any_nonzero || m < st->min_abs) st->min_abs = m;
        st->any_nonzero = 1;
        return;
    }
    if (!isfinite(v)) return;
    fdigits f;
    float_digits(v, fm->dtype == NCL_FLOAT32, fm->sci, &f);
    if (fm->sci) {
        int il = 1 + f.neg, fl = f.n - 1;
        int ae = f.e < 0 ? -f.e : f.e;
        int el = ae >= 100 ? 3 : 2;
        if (il > st->ilen) st->ilen = il;
        if (fl > st->flen) st->flen = fl;
        if (el > st->elen) st->elen = el;
        return;
    }
    char ip[48], fp[48];
    positional_parts(&f, ip, fp);
    int il = (int)strlen(ip), fl = (int)strlen(fp);
    if (il > st->ilen) st->ilen = il;
    if (fl > st->flen) st->flen = fl;
}

static void gather_axis(const walk *w, const efmt *fm, int pass, stats *st, int axis,
                        const char *p)
{
    const NclArray *a = w->a;
    if (axis == a->ndim) {
        gather(fm, pass, st, p);
        return;
    }
    const int64_t n = a->shape[axis], cnt = shown_count(w, n);
    for (int64_t k = 0; k < cnt; k++)
        gather_axis(w, fm, pass, st, axis + 1, p + shown_index(w, n, k) * a->strides[axis]);
}

/* The element format: NumPy's choice of notation and the widths that align
   every shown element. */
static void make_format(const walk *w, efmt *fm)
{
    const NclArray *a = w->a;
    stats st;
    memset(&st, 0, sizeof st);
    if (fm->kind == 'b') return;
    if (fm->kind != 'f') {
        gather_axis(w, fm, 2, &st, 0, a->data);
        fm->width = st.ilen;
        return;
    }
    gather_axis(w, fm, 1, &st, 0, a->data);
    if (st.any_nonzero) {
        /* NumPy compares the largest and smallest magnitudes (in the array's
           own type) with the Python floats 1e8 and 1e-4 in double, and their
           ratio, computed in the array's type, with 1000. */
        double ratio = fm->dtype == NCL_FLOAT32 ? (double)((float)st.max_abs / (float)st.min_abs)
                                                : st.max_abs / st.min_abs;
        fm->sci = st.max_abs >= 1e8 || st.min_abs < 0.0001 || ratio > 1000.0;
    }
    if (!st.any_finite) {
        fm->pad_left = 0;
        fm->pad_right = 0;
    } else {
        gather_axis(w, fm, 2, &st, 0, a->data);
        fm->pad_left = st.ilen;
        if (fm->sci) {
            fm->prec = st.flen;
            fm->exp_size = st.elen;
            fm->pad_right = st.elen + 2 + st.flen;
        } else {
            fm->pad_right = st.flen;
        }
    }
    if (st.any_nonfinite) {
        /* nan and inf (with its sign) must fit the field too. */
        int offset = fm->pad_right + 1;
        if (3 - offset > fm->pad_left) fm->pad_left = 3 - offset;
        if (3 + st.neg_inf - offset > fm->pad_left) fm->pad_left = 3 + st.neg_inf - offset;
    }
}

/* ---- the nested brackets -------------------------------------------------- */

/* Appends word to the current line, first breaking the line when the word
   would pass width (never on a line that holds only the indent). line is
   the current line's length as NumPy counts it. */
static void extend_line(text *t, int *line, const char *word, int width, int indent)
{
    int wl = (int)strlen(word);
    if (*line + wl > width && *line > indent) {
        while (t->len > 0 && t->p[t->len - 1] == ' ') t->len--;
        put(t, "\n", 1);
        spaces(t, indent);
        *line = indent;
    }
    puts_(t, word);
    *line += wl;
}

/* Writes the block of axis (its brackets and everything inside) at p.
   indent is the column where the block's rows (or, on the last axis, its
   wrapped lines) start, the opening bracket's column plus one; width the
   room before the closing brackets. */
static void emit_axis(const walk *w, const efmt *fm, text *t, int axis, const char *p,
                      int indent, int width)
{
    const NclArray *a = w->a;
    char word[128];
    const int64_t n = a->shape[axis], cnt = shown_count(w, n);
    const int summary = cnt < n;
    const int left = a->ndim - axis;
    put(t, "[", 1);
    if (left == 1) {
        /* Room for the separator's comma or the closing bracket. */
        const int ew = width - 1;
        int line = indent;
        for (int64_t k = 0; k < cnt; k++) {
            if (summary && k == EDGEITEMS) {
                extend_line(t, &line, "...", ew, indent);
                put(t, ", ", 2);
                line += 2;
            }
            element_text(fm, p + shown_index(w, n, k) * a->strides[axis], word);
            extend_line(t, &line, word, ew, indent);
            if (k + 1 < cnt) {
                put(t, ", ", 2);
                line += 2;
            }
        }
    } else {
        for (int64_t k = 0; k < cnt; k++) {
            if (summary && k == EDGEITEMS) {
                spaces(t, indent);
                put(t, "...,", 4);
                for (int i = 0; i < left - 1; i++) put(t, "\n", 1);
            }
            if (k > 0) spaces(t, indent);
            emit_axis(w, fm, t, axis + 1, p + shown_index(w, n, k) * a->strides[axis],
                      indent + 1, width - 1);
            if (k + 1 < cnt) {
                put(t, ",", 1);
                for (int i = 0; i < left - 1; i++) put(t, "\n", 1);
            }
        }
    }
    put(t, "]", 1);
}

/* ---- the whole text ----------------------------------------------------- */

static void shape_repr(text *t, const NclArray *a)
{
    char num[32];
    put(t, "(", 1);
    for (int i = 0; i < a->ndim; i++) {
        snprintf(num, sizeof num, "%s%" PRId64, i ? ", " : "", a->shape[i]);
        puts_(t, num);
    }
    if (a->ndim == 1) put(t, ",", 1);
    put(t, ")", 1);
}

static void array_repr(const NclArray *a, text *t)
{
    /* NumPy leaves out the dtype of float64, int64 and bool arrays that
       have elements: their values imply it. */
    const int implied = a->dtype == NCL_FLOAT64 || a->dtype == NCL_INT64 || a->dtype == NCL_BOOL;
    const int skip_dtype = implied && a->size > 0;
    puts_(t, prefix);
    if (a->size == 0) {
        put(t, "[]", 2);
        if (a->ndim != 1) {
            put(t, ", shape=", 8);
            shape_repr(t, a);
        }
    } else {
        walk w = { a, a->size > THRESHOLD };
        efmt fm;
        memset(&fm, 0, sizeof fm);
        fm.dtype = a->dtype;
        fm.zero_d = a->ndim == 0;
        fm.kind = ncl_dtype_kind[a->dtype];
        make_format(&w, &fm);
        if (a->ndim == 0) {
            char word[128];
            element_text(&fm, a->data, word);
            puts_(t, word);
        } else {
            /* The width leaves room for the ")" or "," that follows. */
            emit_axis(&w, &fm, t, 0, a->data, PREFIX_LEN + 1, LINEWIDTH - 1);
        }
    }
    if (skip_dtype) {
        put(t, ")", 1);
        return;
    }
    put(t, ",", 1);
    char dt[32];
    snprintf(dt, sizeof dt, "dtype=%s)", NclDTypeName(a->dtype));
    size_t line_start = 0;
    if (!t->oom)
        for (size_t i = t->len; i > 0; i--)
            if (t->p[i - 1] == '\n') { line_start = i; break; }
    /* The dtype goes on a line of its own when it would pass the width. */
    if (t->len - line_start + strlen(dt) + 1 > LINEWIDTH) {
        put(t, "\n", 1);
        spaces(t, PREFIX_LEN);
    } else {
        put(t, " ", 1);
    }
    puts_(t, dt);
}

NclStatus NclArrayFormat(const NclArray *a, char *buf, size_t cap, size_t *len)
{
    static const char who[] = "NclArrayFormat";
    if (a == NULL) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: a is NULL", who);
    NclStatus s = ncl_array_check(who, "a", a);
    if (s != NCL_OK) return s;
    if (buf == NULL && cap != 0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: buf is NULL but cap is %zu", who, cap);
    if (a->kind == NCL_MEM_DEVICE && a->size > 0)
        return ncl_error(NCL_ERR_DEVICE_MEMORY,
                         "%s: the array is device memory (device %d); host code cannot read "
                         "its elements", who, a->device_id);
    text t = { NULL, 0, 0, 0 };
    array_repr(a, &t);
    if (t.oom) {
        free(t.p);
        return ncl_error(NCL_ERR_NO_MEMORY, "%s: out of memory for the text", who);
    }
    if (len != NULL) *len = t.len;
    if (cap <= t.len) {
        free(t.p);
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "%s: the buffer holds %zu bytes; the text needs %zu (including the "
                         "NUL)", who, cap, t.len + 1);
    }
    memcpy(buf, t.p, t.len + 1);
    free(t.p);
    return NCL_OK;
}
