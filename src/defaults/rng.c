/*
 * rng.c: NCLib's default implementation of the RNG subsystem, the tail of
 * its level-1 chain. A call is checked whole before any value is drawn
 * (the generator, the result's dtype and shape, every parameter against
 * NumPy's domain), obtains its memory (parameter arrays converted to the
 * kernel's dtype, the output), and only then runs the level-2 chain of
 * (distribution, bit generator, result dtype) (kernels/rng/) over the rows
 * of the result in C order, which is the order NumPy draws in. A refused
 * call writes nothing and leaves the generator as it was.
 *
 * Kernel ABI: chains keyed (NCL_SUBSYSTEM_RNG, NCL_RNG_KERNEL_OP(op,
 * bitgen), {parameter dtypes..., result dtype}); ctx->aux is a const
 * NclRngKernelAux *; args are the parameters (float64; INTEGERS' bounds
 * int64, or uint64 for an unsigned result) and the output.
 *
 * Threads: an op that draws a fixed number of words per value (RAW,
 * RANDOM, UNIFORM) from a generator that can skip ahead is split into
 * blocks; each block's worker draws from a copy of the generator skipped
 * to the block's first word (or 32-bit half), so the values and the final
 * state are the serial ones whatever the split. The rejection samplers'
 * values start at positions only the draws before them decide; they run
 * on the calling thread.
 *
 * Floating-point flags: NumPy's Generator reports none (normal(0, inf)
 * gives NaN quietly), so the kernels' flags are dropped and the caller's
 * are left as they were.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "defaults/ncl_defaults.h"
#include "defaults/ncl_rng.h"
#include "array/ncl_array.h"
#include "exec/ncl_exec.h"
#include "exec/walk.h"
#include "hooks/ncl_hooks.h"
#include "runtime/pool.h"
#include "rng/rng_state.h"

#define SUB NCL_SUBSYSTEM_RNG
#define BIT(t) (1u << (t))
#define INT_DTYPES                                                                          \
    (BIT(NCL_BOOL) | BIT(NCL_INT8) | BIT(NCL_INT16) | BIT(NCL_INT32) | BIT(NCL_INT64) |     \
     BIT(NCL_UINT8) | BIT(NCL_UINT16) | BIT(NCL_UINT32) | BIT(NCL_UINT64))
#define FLOAT_DTYPES (BIT(NCL_FLOAT32) | BIT(NCL_FLOAT64))

/* What each op produces and takes. */
typedef struct op_info {
    NclDType dflt;         /* result dtype when none is asked for */
    unsigned dtypes;       /* the result dtypes it has */
    const char *pname[2];  /* NumPy's parameter names */
    double pdefault[2];    /* what a NULL parameter means (INTEGERS: low only) */
    unsigned required;     /* bit i: parameter i has no default */
} op_info;

static const op_info ops[NCL_RNG_NOPS] = {
    [NCL_RNG_RAW] = {NCL_UINT64, BIT(NCL_UINT64), {NULL, NULL}, {0, 0}, 0},
    [NCL_RNG_RANDOM] = {NCL_FLOAT64, FLOAT_DTYPES, {NULL, NULL}, {0, 0}, 0},
    [NCL_RNG_INTEGERS] = {NCL_INT64, INT_DTYPES, {"low", "high"}, {0, 0}, 0},
    [NCL_RNG_UNIFORM] = {NCL_FLOAT64, BIT(NCL_FLOAT64), {"low", "high"}, {0, 1}, 0},
    [NCL_RNG_STANDARD_NORMAL] = {NCL_FLOAT64, FLOAT_DTYPES, {NULL, NULL}, {0, 0}, 0},
    [NCL_RNG_NORMAL] = {NCL_FLOAT64, BIT(NCL_FLOAT64), {"loc", "scale"}, {0, 1}, 0},
    [NCL_RNG_STANDARD_EXPONENTIAL] = {NCL_FLOAT64, FLOAT_DTYPES, {NULL, NULL}, {0, 0}, 0},
    [NCL_RNG_EXPONENTIAL] = {NCL_FLOAT64, BIT(NCL_FLOAT64), {"scale", NULL}, {1, 0}, 0},
    [NCL_RNG_STANDARD_GAMMA] = {NCL_FLOAT64, FLOAT_DTYPES, {"shape", NULL}, {0, 0}, 1},
    [NCL_RNG_GAMMA] = {NCL_FLOAT64, BIT(NCL_FLOAT64), {"shape", "scale"}, {0, 1}, 1},
    [NCL_RNG_BETA] = {NCL_FLOAT64, BIT(NCL_FLOAT64), {"a", "b"}, {0, 0}, 3},
    [NCL_RNG_POISSON] = {NCL_INT64, BIT(NCL_INT64), {"lam", NULL}, {1, 0}, 0},
    [NCL_RNG_BINOMIAL] = {NCL_INT64, BIT(NCL_INT64), {"n", "p"}, {0, 0}, 3},
    /* SHUFFLE and PERMUTATION take their own path (shuffle_call) */
    [NCL_RNG_SHUFFLE] = {NCL_DTYPE_DEFAULT, 0, {NULL, NULL}, {0, 0}, 0},
    [NCL_RNG_PERMUTATION] = {NCL_DTYPE_DEFAULT, 0, {"x", NULL}, {0, 0}, 0},
};

/* NumPy's POISSON_LAM_MAX: int64's largest value less ten of its square
   roots, in double (9223372006484771e3). */
#define POISSON_LAM_MAX ((double)INT64_MAX - sqrt((double)INT64_MAX) * 10)

/* One call being run. */
typedef struct rng_call {
    NclRngOp op;
    NclRngGen *gen;
    const char *who;               /* "NclRng(normal)" */
    int np;                        /* parameters the op takes */
    NclDType rdt;                  /* result dtype */
    NclDType pdt[2];               /* each parameter's kernel dtype */
    int ndim;
    int64_t shape[NCL_MAXDIMS];
    int64_t size;
    const NclArray *par[2];        /* the caller's parameter arrays (NULL: default) */
    NclArray *conv[2];             /* their converted copies, owned */
    union { double f; int64_t i; } dflt[2]; /* the defaults' storage */
    NclArray *res;
    ncl_kchain *chain;
    NclDType sig[3];
} rng_call;

/* ---- checks ---------------------------------------------------------------------------- */

static NclStatus check_host(const rng_call *c, const NclArray *a, const char *role)
{
    if (a && a->kind == NCL_MEM_DEVICE)
        return ncl_error(NCL_ERR_DEVICE_MEMORY,
                         "%s: %s is device memory (device %d); host kernels cannot touch it",
                         c->who, role, a->device_id);
    return NCL_OK;
}

/* The result's dtype: params->dtype, else a provided output's, else the
   op's default; one the op has. */
static NclStatus result_dtype(rng_call *c, const NclParams *p, const NclArray *given)
{
    NclDType t = p->dtype != NCL_DTYPE_DEFAULT ? p->dtype : given ? given->dtype : ops[c->op].dflt;
    if (given && t != given->dtype)
        return ncl_error(NCL_ERR_DTYPE, "%s: params->dtype is %s but the output is %s", c->who,
                         NclDTypeName(t), NclDTypeName(given->dtype));
    if (!(ops[c->op].dtypes & BIT(t)))
        return ncl_error(NCL_ERR_DTYPE, "%s: NumPy's %s has no %s results (%s)", c->who,
                         ncl_op_name(SUB, c->op), NclDTypeName(t),
                         c->op == NCL_RNG_RAW ? "it gives uint64"
                         : ops[c->op].dtypes == FLOAT_DTYPES ? "float64 or float32"
                         : ops[c->op].dtypes == BIT(NCL_FLOAT64) ? "float64 only"
                         : ops[c->op].dtypes == BIT(NCL_INT64)   ? "int64 only"
                                                                   : "integers or bool");
    c->rdt = t;
    return NCL_OK;
}

/* The result's shape: params->shape, else the provided output's, else the
   parameters' broadcast shape; the parameters must broadcast to it. */
static NclStatus result_shape(rng_call *c, const NclParams *p, const NclArray *given)
{
    char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
    if (p->ndim < 0 || p->ndim > NCL_MAXDIMS)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: params->ndim is %d; it must be 0..%d",
                         c->who, p->ndim, NCL_MAXDIMS);
    if (p->ndim > 0 && p->shape == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "%s: params->ndim is %d but params->shape is NULL", c->who, p->ndim);
    if (p->shape) {
        for (int d = 0; d < p->ndim; d++)
            if (p->shape[d] < 0)
                return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                                 "%s: params->shape[%d] is %" PRId64 "; extents are >= 0", c->who,
                                 d, p->shape[d]);
        c->ndim = p->ndim;
        memcpy(c->shape, p->shape, (size_t)p->ndim * sizeof(int64_t));
        if (given && !(given->ndim == c->ndim &&
                       !memcmp(given->shape, c->shape, (size_t)c->ndim * sizeof(int64_t))))
            return ncl_error(NCL_ERR_SHAPE, "%s: the output's shape %s is not params->shape %s",
                             c->who, ncl_shape_str(s0, given->ndim, given->shape),
                             ncl_shape_str(s1, c->ndim, c->shape));
    } else if (given) {
        c->ndim = given->ndim;
        memcpy(c->shape, given->shape, (size_t)given->ndim * sizeof(int64_t));
    } else {
        /* the parameters' broadcast shape */
        c->ndim = 0;
        for (int i = 0; i < c->np; i++) {
            const NclArray *a = c->par[i];
            if (!a) continue;
            int nd = a->ndim > c->ndim ? a->ndim : c->ndim;
            int64_t sh[NCL_MAXDIMS];
            for (int d = 0; d < nd; d++) {
                int da = d - (nd - a->ndim), dc = d - (nd - c->ndim);
                int64_t ea = da >= 0 ? a->shape[da] : 1, ec = dc >= 0 ? c->shape[dc] : 1;
                if (ea != ec && ea != 1 && ec != 1)
                    return ncl_error(NCL_ERR_BROADCAST,
                                     "%s: %s with shape %s and %s with shape %s do not broadcast "
                                     "together", c->who, ops[c->op].pname[0],
                                     ncl_shape_str(s0, c->par[0]->ndim, c->par[0]->shape),
                                     ops[c->op].pname[1], ncl_shape_str(s1, a->ndim, a->shape));
                sh[d] = ea == 1 ? ec : ea;
            }
            c->ndim = nd;
            memcpy(c->shape, sh, (size_t)nd * sizeof(int64_t));
        }
    }
    NclStatus st = ncl_shape_check(c->who, c->ndim, c->shape, &c->size);
    if (st) return st;
    for (int i = 0; i < c->np; i++) {
        const NclArray *a = c->par[i];
        if (!a) continue;
        int ok = a->ndim <= c->ndim;
        for (int d = 0; ok && d < a->ndim; d++) {
            int64_t e = a->shape[d], r = c->shape[d + c->ndim - a->ndim];
            ok = e == r || e == 1;
        }
        if (!ok)
            return ncl_error(NCL_ERR_BROADCAST, "%s: %s with shape %s does not broadcast to the "
                             "result's shape %s", c->who, ops[c->op].pname[i],
                             ncl_shape_str(s0, a->ndim, a->shape), ncl_shape_str(s1, c->ndim, c->shape));
    }
    return NCL_OK;
}

/* The value at p of integer dtype t, exactly. */
static ncl_i128 load_int(NclDType t, const char *p)
{
    switch (t) {
    case NCL_BOOL: return *(const uint8_t *)p != 0;
    case NCL_INT8: { int8_t v; memcpy(&v, p, 1); return v; }
    case NCL_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case NCL_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case NCL_INT64: { int64_t v; memcpy(&v, p, 8); return v; }
    case NCL_UINT8: return *(const uint8_t *)p;
    case NCL_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case NCL_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

/* The range of values of integer dtype t: [lo, hi]. */
static void int_range(NclDType t, ncl_i128 *lo, ncl_i128 *hi)
{
    const int bits = 8 * (int)ncl_dtype_size[t];
    if (t == NCL_BOOL) {
        *lo = 0;
        *hi = 1;
    } else if (ncl_dtype_kind[t] == 'u') {
        *lo = 0;
        *hi = ((ncl_i128)1 << bits) - 1;
    } else {
        *lo = -((ncl_i128)1 << (bits - 1));
        *hi = ((ncl_i128)1 << (bits - 1)) - 1;
    }
}

/* Walks the parameters' own broadcast shape (not the result's: a scalar
   parameter is checked once), calling check on each pair of elements. */
typedef NclStatus (*pair_check)(const rng_call *c, const char *p0, const char *p1, NclDType t0,
                                NclDType t1, const void *ctx);

static NclStatus walk_params(const rng_call *c, const NclArray *const *par, pair_check check,
                             const void *ctx)
{
    int nd = 0;
    int64_t shape[NCL_MAXDIMS];
    for (int i = 0; i < c->np; i++)
        if (par[i] && par[i]->ndim > nd) nd = par[i]->ndim;
    for (int d = 0; d < nd; d++) {
        shape[d] = 1;
        for (int i = 0; i < c->np; i++) {
            const NclArray *a = par[i];
            int da = d - (nd - (a ? a->ndim : 0));
            if (a && da >= 0 && a->shape[da] != 1) shape[d] = a->shape[da];
        }
        if (shape[d] == 0) return NCL_OK; /* nothing to check */
    }
    int64_t st[2][NCL_MAXDIMS];
    const int64_t *strides[2] = {st[0], st[1]};
    char *base[2];
    NclDType t[2];
    for (int i = 0; i < 2; i++) {
        const NclArray *a = i < c->np ? par[i] : NULL;
        for (int d = 0; d < nd; d++) {
            int da = d - (nd - (a ? a->ndim : 0));
            st[i][d] = a && da >= 0 && a->shape[da] != 1 ? a->strides[da] : 0;
        }
        base[i] = a ? a->data : (char *)(uintptr_t)&c->dflt[i];
        t[i] = a ? a->dtype : c->pdt[i];
    }
    ncl_walk_dims d;
    ncl_walk w;
    ncl_walk_dims_init(&d, nd, shape, 2, strides);
    ncl_walk_dims_merge(&d);
    ncl_walk_start(&d, &w, base);
    const int last = d.nd - 1;
    do {
        const char *p0 = w.ptr[0], *p1 = w.ptr[1];
        for (int64_t j = 0; j < d.shape[last]; j++, p0 += d.st[0][last], p1 += d.st[1][last]) {
            NclStatus s = check(c, p0, p1, t[0], t[1], ctx);
            if (s) return s;
        }
    } while (ncl_walk_next(&d, last, &w));
    return NCL_OK;
}

static double load_f64(const char *p)
{
    double v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* NumPy's checks, message for message: a scale's sign bit (-0.0 too; NaN
   passes), uniform's high - low finite and not negative, integers' bounds
   in the result dtype and in order. */
static NclStatus check_scale(const rng_call *c, const char *p0, const char *p1, NclDType t0,
                             NclDType t1, const void *ctx)
{
    (void)t0;
    (void)t1;
    const int i = *(const int *)ctx;
    const double s = load_f64(i ? p1 : p0);
    if (!isnan(s) && signbit(s))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s < 0 (%g)", c->who,
                         ops[c->op].pname[i], s);
    return NCL_OK;
}

static NclStatus check_uniform(const rng_call *c, const char *p0, const char *p1, NclDType t0,
                               NclDType t1, const void *ctx)
{
    (void)t0;
    (void)t1;
    (void)ctx;
    const double lo = load_f64(p0), hi = load_f64(p1), r = hi - lo;
    if (!isfinite(r))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "%s: high - low range exceeds valid bounds (low %g, high %g)", c->who, lo,
                         hi);
    if (signbit(r))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: high - low < 0 (low %g, high %g)", c->who,
                         lo, hi);
    return NCL_OK;
}

static NclStatus check_integers(const rng_call *c, const char *p0, const char *p1, NclDType t0,
                                NclDType t1, const void *ctx)
{
    const int endpoint = *(const int *)ctx;
    ncl_i128 lo, hi, min, max;
    int_range(c->rdt, &min, &max);
    lo = load_int(t0, p0);
    hi = load_int(t1, p1);
    if (lo < min)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: low is out of bounds for %s (low %s%" PRIu64 ")",
                         c->who, NclDTypeName(c->rdt), lo < 0 ? "-" : "",
                         (uint64_t)(lo < 0 ? -lo : lo));
    if (hi - !endpoint > max)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: high is out of bounds for %s (high %" PRIu64 ")",
                         c->who, NclDTypeName(c->rdt), (uint64_t)hi);
    if (endpoint ? lo > hi : lo >= hi)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: low %s high (low %s%" PRIu64 ", high %s%" PRIu64 ")",
                         c->who, endpoint ? ">" : ">=", lo < 0 ? "-" : "",
                         (uint64_t)(lo < 0 ? -lo : lo), hi < 0 ? "-" : "",
                         (uint64_t)(hi < 0 ? -hi : hi));
    return NCL_OK;
}

/* The domains of gamma, beta, Poisson and binomial, NumPy's checks one
   parameter at a time, each over all its values before the next (NumPy's
   order: BINOMIAL's p before n). NumPy words some messages differently for
   a scalar parameter (a 0-d array here, or a default) and for an array
   one, and checks POISSON's two conditions in the opposite order for an
   array, where a NaN lam fails "value too large" first. */
enum { DOM_SIGN, DOM_POSITIVE, DOM_LAM_NEG, DOM_LAM_MAX, DOM_UNIT, DOM_N };
typedef struct dom_check {
    int i;       /* the parameter */
    int dom;     /* DOM_* */
    int array;   /* NumPy's array path */
} dom_check;

static NclStatus check_domain(const rng_call *c, const char *p0, const char *p1, NclDType t0,
                              NclDType t1, const void *ctx)
{
    const dom_check *k = ctx;
    const char *nm = ops[c->op].pname[k->i], *p = k->i ? p1 : p0;
    if (k->dom == DOM_N) { /* the caller's integer, before its cast */
        const ncl_i128 v = load_int(k->i ? t1 : t0, p);
        if (v < 0)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s < 0 (%" PRId64 ")", c->who, nm,
                             (int64_t)v);
        if (v > INT64_MAX)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                             "%s: %s is out of bounds for int64 (%" PRIu64 ")", c->who, nm,
                             (uint64_t)v);
        return NCL_OK;
    }
    const double v = load_f64(p);
    const char *nan_words = k->array ? "contains NaNs" : "is NaN";
    switch (k->dom) {
    case DOM_SIGN:
        if (!isnan(v) && signbit(v))
            return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s < 0 (%g)", c->who, nm, v);
        break;
    case DOM_POSITIVE: /* NaN passes */
        if (v <= 0)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s <= 0 (%g)", c->who, nm, v);
        break;
    case DOM_LAM_NEG:
        if (!(v >= 0))
            return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s < 0 or %s %s (%g)", c->who, nm, nm,
                             nan_words, v);
        break;
    case DOM_LAM_MAX:
        if (!(v <= POISSON_LAM_MAX))
            return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s value too large (%g; at most %.17g)",
                             c->who, nm, v, POISSON_LAM_MAX);
        break;
    default: /* DOM_UNIT */
        if (!(v >= 0) || !(v <= 1))
            return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s < 0, %s > 1 or %s %s (%g)", c->who,
                             nm, nm, nm, nan_words, v);
        break;
    }
    return NCL_OK;
}

/* Parameter i's values against dom (a default is one NumPy accepts). */
static NclStatus check_one(const rng_call *c, const NclArray *const *par, int i, int dom, int array)
{
    if (!par[i]) return NCL_OK;
    const NclArray *only[2] = {NULL, NULL};
    only[i] = par[i];
    const dom_check k = {i, dom, array};
    return walk_params(c, only, check_domain, &k);
}

static NclStatus check_more(const rng_call *c, const NclArray *const *par)
{
    int array = 0;
    for (int i = 0; i < c->np; i++) array |= c->par[i] && c->par[i]->ndim > 0;
    NclStatus st = NCL_OK;
    switch (c->op) {
    case NCL_RNG_STANDARD_GAMMA: return check_one(c, par, 0, DOM_SIGN, array);
    case NCL_RNG_GAMMA:
        if ((st = check_one(c, par, 0, DOM_SIGN, array))) return st;
        return check_one(c, par, 1, DOM_SIGN, array);
    case NCL_RNG_BETA:
        if ((st = check_one(c, par, 0, DOM_POSITIVE, array))) return st;
        return check_one(c, par, 1, DOM_POSITIVE, array);
    case NCL_RNG_POISSON:
        if ((st = check_one(c, par, 0, array ? DOM_LAM_MAX : DOM_LAM_NEG, array))) return st;
        return check_one(c, par, 0, array ? DOM_LAM_NEG : DOM_LAM_MAX, array);
    case NCL_RNG_BINOMIAL:
        if ((st = check_one(c, par, 1, DOM_UNIT, array))) return st;
        return check_one(c, c->par, 0, DOM_N, array); /* n as the caller gave it */
    default: return NCL_OK;
    }
}

/* ---- parameters -------------------------------------------------------------------------- */

/* Reads the caller's parameter arrays: checks their dtypes, converts each
   that is not of the kernel's dtype, or that overlaps a provided output,
   into a private array, and checks NumPy's domains. On failure the copies
   are released by the caller (c->conv). */
static NclStatus read_params(rng_call *c, const NclArray *given, int endpoint)
{
    NclStatus st;
    const int integers = c->op == NCL_RNG_INTEGERS;
    for (int i = 0; i < c->np; i++) {
        /* BINOMIAL's n is an integer parameter among float ones */
        const int int_par = integers || (c->op == NCL_RNG_BINOMIAL && i == 0);
        c->pdt[i] = !int_par ? NCL_FLOAT64
                    : integers && ncl_dtype_kind[c->rdt] == 'u' ? NCL_UINT64 : NCL_INT64;
        if (int_par)
            c->dflt[i].i = 0; /* low's default; high and n have none */
        else
            c->dflt[i].f = ops[c->op].pdefault[i];
        const NclArray *a = c->par[i];
        if (!a) continue;
        if (int_par && (ncl_dtype_kind[a->dtype] == 'f' || ncl_dtype_kind[a->dtype] == 'c'))
            return ncl_error(NCL_ERR_DTYPE, "%s: %s is %s; %s read from integer or bool arrays",
                             c->who, ops[c->op].pname[i], NclDTypeName(a->dtype),
                             integers ? "integer bounds are" : "n is");
    }
    /* integer bounds are checked on the caller's values, before a cast
       could wrap them */
    if (integers && (st = walk_params(c, c->par, check_integers, &endpoint))) return st;
    for (int i = 0; i < c->np; i++) {
        const NclArray *a = c->par[i];
        if (!a) continue;
        if (a->dtype == c->pdt[i] && !(given && ncl_array_ranges_overlap(a, given))) continue;
        if ((st = ncl_convert_run(SUB, c->op, a, c->pdt[i], &c->conv[i], NULL, NCL_CASTING_UNSAFE)))
            return st;
    }
    const NclArray *par[2] = {c->conv[0] ? c->conv[0] : c->par[0], c->conv[1] ? c->conv[1] : c->par[1]};
    switch (c->op) {
    case NCL_RNG_UNIFORM: return walk_params(c, par, check_uniform, NULL);
    case NCL_RNG_NORMAL: {
        static const int scale = 1;
        return c->par[1] ? walk_params(c, par, check_scale, &scale) : NCL_OK;
    }
    case NCL_RNG_EXPONENTIAL: {
        static const int scale = 0;
        return c->par[0] ? walk_params(c, par, check_scale, &scale) : NCL_OK;
    }
    default: return check_more(c, par);
    }
}

/* ---- execution --------------------------------------------------------------------------- */

/* The kernel ops that draw a fixed number of words per value, which a
   worker can start at by skipping: 1 for a 64-bit word per value, 2 for
   a 32-bit half (float32), 0 for a rejection sampler. */
static int halves_per_value(NclRngOp op, NclDType rdt)
{
    switch (op) {
    case NCL_RNG_RAW:
    case NCL_RNG_UNIFORM: return 2;
    case NCL_RNG_RANDOM: return rdt == NCL_FLOAT32 ? 1 : 2;
    default: return 0;
    }
}

static uint64_t next_u64(NclRngGen *g)
{
    switch (g->kind) {
#define NCL_X_(value, prefix) case value: return ncl_##prefix##_next_u64(g);
        NCL_RNG_BITGEN_LIST(NCL_X_)
#undef NCL_X_
    default: return 0;
    }
}

/* Puts g where the serial draw of a call is when its value `start` is
   next, buffered half included: whole words are skipped, and the last word
   the serial draw split is drawn, so that its upper half is in u32 as the
   serial draw leaves it (pending, or already used: NumPy's state keeps the
   used one too). g can skip (ncl_rng_can_skip). */
static NclStatus position_at(NclRngGen *g, int halves, int64_t start)
{
    if (halves == 2) return ncl_rng_skip_u64(g, (uint64_t)start);
    /* a generator whose 32-bit draws are its own words has no half */
    if (g->kind == NCL_BITGEN_PHILOX4X32) return ncl_rng_skip_u32(g, (uint64_t)start);
    /* one 32-bit half per value: a pending half serves value 0 */
    uint64_t q = (uint64_t)start;
    if (g->has_u32) {
        if (q == 0) return NCL_OK;
        q--;
        g->has_u32 = 0;
    }
    if (q == 0) return NCL_OK;
    const uint64_t words = (q + 1) / 2; /* the words the first q halves split */
    NclStatus st = ncl_rng_skip_u64(g, words - 1);
    if (st == NCL_OK) {
        const uint64_t w = next_u64(g);
        g->has_u32 = (int)(q % 2);
        g->u32 = (uint32_t)(w >> 32);
    }
    return st;
}

typedef struct run_ctx {
    const rng_call *c;
    ncl_walk_dims d;               /* the result's rows; one row when split */
    char *base[NCL_WALK_MAXOP];
    NclKernelNode *k;
    NclRngGen *copies;             /* one generator per block, when split */
    int64_t nblocks;
    int endpoint;
} run_ctx;

static NclStatus kernel_failed(const rng_call *c, const NclKernelNode *k, NclStatus st)
{
    return ncl_error(st, "%s: kernel \"%s\" failed: %s", c->who, k->name ? k->name : "(unnamed)",
                     NclLastError());
}

/* Block `task` of a split call: elements [n*task/nb, n*(task+1)/nb) of the
   one row, drawn from its own positioned generator. */
static NclStatus run_block(void *arg, int worker, int64_t task, int *fpe)
{
    run_ctx *r = arg;
    const rng_call *c = r->c;
    const int64_t n = r->d.shape[0];
    const int64_t lo = n * task / r->nblocks, hi = n * (task + 1) / r->nblocks;
    NclRngKernelAux aux = {&r->copies[task], r->endpoint};
    NclKernelCtx ctx = {SUB, NCL_RNG_KERNEL_OP(c->op, c->gen->kind), c->np, 1, c->sig, worker, task,
                        fpe, &aux, ncl_tls.accuracy, (int)r->nblocks};
    char *args[NCL_WALK_MAXOP];
    int64_t steps[NCL_WALK_MAXOP];
    for (int k = 0; k <= c->np; k++) {
        steps[k] = r->d.st[k][0];
        args[k] = r->base[k] + lo * steps[k];
    }
    NclStatus st = r->k->fn(r->k, &ctx, args, hi - lo, steps);
    return st ? kernel_failed(c, r->k, st) : NCL_OK;
}

/* Every row in C order on this thread, drawing from the caller's
   generator. */
static NclStatus run_serial(run_ctx *r)
{
    const rng_call *c = r->c;
    NclRngKernelAux aux = {c->gen, r->endpoint};
    int fpe = 0;
    NclKernelCtx ctx = {SUB, NCL_RNG_KERNEL_OP(c->op, c->gen->kind), c->np, 1, c->sig, 0, 0, &fpe,
                        &aux, ncl_tls.accuracy, 1};
    ncl_walk w;
    ncl_walk_start(&r->d, &w, r->base);
    const int last = r->d.nd - 1;
    int64_t steps[NCL_WALK_MAXOP];
    for (int k = 0; k <= c->np; k++) steps[k] = r->d.st[k][last];
    do {
        NclStatus st = r->k->fn(r->k, &ctx, w.ptr, r->d.shape[last], steps);
        if (st) return kernel_failed(c, r->k, st);
        ctx.chunk++;
    } while (ncl_walk_next(&r->d, last, &w));
    return NCL_OK;
}

/* Splits one row over the pool when that gives the serial values: returns
   1 with *st set when it ran, 0 to run serially. */
static int try_split(run_ctx *r, NclStatus *st)
{
    const rng_call *c = r->c;
    const int halves = halves_per_value(c->op, c->rdt);
    if (!halves || r->d.nd != 1 || !ncl_rng_can_skip(c->gen->kind) || !ncl_kernel_unhooked(c->chain))
        return 0;
    const int64_t n = r->d.shape[0];
    const int nt = ncl_pool_threads(n * NCL_COST_DIV);
    if (nt <= 1) return 0;
    ncl_buffer *buf;
    if (ncl_scratch_alloc(c->who, (size_t)(nt + 1) * sizeof(NclRngGen), &buf) != NCL_OK)
        return 0; /* no room for the copies: the serial draw gives the same values */
    NclRngGen *g = buf->base;
    *st = NCL_OK;
    for (int t = 0; t <= nt && *st == NCL_OK; t++) { /* g[nt]: the state after the call */
        g[t] = *c->gen;
        *st = position_at(&g[t], halves, n * t / nt);
    }
    if (*st == NCL_OK) {
        r->copies = g;
        r->nblocks = nt;
        int fpe = 0, used = 1;
        *st = ncl_pool_run(nt, nt, run_block, r, 1, &fpe, &used);
        ncl_last_call.threads = used;
        if (*st == NCL_OK) *c->gen = g[nt];
    }
    ncl_buffer_release(buf);
    return 1;
}

/* ---- rejection samplers on several threads -----------------------------------------------
   A ziggurat value takes one 64-bit word, or more when it is rejected, so
   where value k starts in the stream depends on every value before it. The
   float64 normal and exponential ops are still split, with the serial
   values, by a speculative chain:

   - Block 0 (values [0, I_1)) starts where the call does and is exact.
     Block t (values [I_t, I_t+1)) starts at S_t, the position value I_t is
     expected at less a margin of eight standard deviations, and draws a
     lead-in of L values one at a time, noting where each starts; then its
     I_t+1 - I_t values straight into the output at I_t, the last L of them
     again one at a time with their starts noted.
   - Chains that start at the same word are the same chain from there. Once
     block t-1 is known to end at word e (where value I_t starts), e is
     looked up among block t's lead-in starts: at lead-in value j, the
     values of I_t onwards are lead-in values j.., then the block's own.
     So the block's values move up by s = L - j (its last s drop out: they
     belong to block t+1) and lead-in values j.. fill the gap; block t ends
     where its value I_t+1 starts, which the noted starts of its last L
     values give. A block whose chain does not meet e (not seen in tests:
     the chains meet within two draws of e, and e is within the lead-in with
     probability 1 - 1e-15) is drawn again, serially, from e.
   - The moves run in parallel, each block's in two halves.

   Positions are words drawn since the call began: PCG64's from its LCG
   state (the distance algorithm of O'Neill's PCG library), Philox's from
   its counter. Only ops that draw whole 64-bit words and only scalar
   parameters (a value's parameters must not depend on its index, which a
   block learns only at the end) qualify. */

/* Words per value and their variance per value, measured over 2e6 values
   (ziggurat, float64): the margin is eight standard deviations. */
static void zig_words(NclRngOp op, double *mean, double *var)
{
    const int normal = op == NCL_RNG_STANDARD_NORMAL || op == NCL_RNG_NORMAL;
    *mean = normal ? 1.022 : 1.034;
    *var = normal ? 0.036 : 0.057;
}

/* How many LCG steps (mult, inc) lead from state `from` to `to`. */
static uint64_t lcg_distance(ncl_u128 from, ncl_u128 to, ncl_u128 mult, ncl_u128 inc)
{
    ncl_u128 bit = 1, dist = 0;
    while (from != to) {
        if ((from & bit) != (to & bit)) {
            from = from * mult + inc;
            dist |= bit;
        }
        bit <<= 1;
        inc = (mult + 1) * inc;
        mult *= mult;
    }
    return (uint64_t)dist;
}

/* 64-bit words drawn from `from` to `to`, two states of one stream (not
   more than 2^64 apart). */
static uint64_t words_between(const NclRngGen *from, const NclRngGen *to)
{
    switch (from->kind) {
    case NCL_BITGEN_PCG64:
        return lcg_distance(from->s.pcg.state, to->s.pcg.state, NCL_PCG_MULT, from->s.pcg.inc);
    case NCL_BITGEN_PCG64DXSM:
        return lcg_distance(from->s.pcg.state, to->s.pcg.state, NCL_PCG_CHEAP_MULT,
                            from->s.pcg.inc);
    default: { /* NCL_BITGEN_PHILOX: 4 words per counter value, pos of them used */
        const uint64_t a = from->s.philox.ctr[0] * 4 + (uint64_t)from->s.philox.pos;
        const uint64_t b = to->s.philox.ctr[0] * 4 + (uint64_t)to->s.philox.pos;
        return b - a;
    }
    }
}

typedef struct spec_block {
    int64_t i0, n;          /* its values [i0, i0 + n) */
    uint64_t start;         /* S_t */
    int64_t nlead;          /* L */
    double *lead;           /* L lead-in values */
    uint64_t *lead_at;      /* where each lead-in value starts; [L] where the next would */
    uint64_t *tail_at;      /* where each of its last L values starts; [L]: its end */
    NclRngGen end;          /* the generator after its last value */
    int64_t shift;          /* s, once stitched; -1: drawn again */
    int64_t j;              /* the lead-in value that is I_t */
    NclStatus st;
} spec_block;

typedef struct spec_ctx {
    run_ctx *r;
    spec_block *b;
    int nb;
    double *tmp;            /* the moves' saved heads, L values per block */
} spec_ctx;

/* Draws n values from g into dst (stride 8) one at a time, noting where
   each starts, words counted from `at`. */
static NclStatus draw_noted(const run_ctx *r, NclKernelCtx *ctx, NclRngGen *g, double *dst,
                            int64_t n, uint64_t at, uint64_t *starts)
{
    char *args[NCL_WALK_MAXOP];
    int64_t steps[NCL_WALK_MAXOP] = {0, 0, 8};
    const int np = r->c->np;
    for (int k = 0; k < np; k++) args[k] = r->base[k];
    steps[np] = 8;
    for (int64_t i = 0; i < n; i++) {
        NclRngGen before = *g;
        starts[i] = at;
        args[np] = (char *)(dst + i);
        NclStatus st = r->k->fn(r->k, ctx, args, 1, steps);
        if (st) return kernel_failed(r->c, r->k, st);
        at += words_between(&before, g);
    }
    starts[n] = at;
    return NCL_OK;
}

static NclStatus spec_draw(void *arg, int worker, int64_t task, int *fpe)
{
    spec_ctx *sc = arg;
    const run_ctx *r = sc->r;
    const rng_call *c = r->c;
    spec_block *b = &sc->b[task];
    NclRngGen g = *c->gen;
    NclRngKernelAux aux = {&g, r->endpoint};
    NclKernelCtx ctx = {SUB, NCL_RNG_KERNEL_OP(c->op, c->gen->kind), c->np, 1, c->sig, worker, task,
                        fpe, &aux, ncl_tls.accuracy, sc->nb};
    char *args[NCL_WALK_MAXOP];
    int64_t steps[NCL_WALK_MAXOP];
    for (int k = 0; k <= c->np; k++) {
        args[k] = r->base[k];
        steps[k] = r->d.st[k][0];
    }
    double *out = (double *)(void *)r->base[c->np];
    NclStatus st = NCL_OK;
    uint64_t at = b->start;
    if (task > 0) {
        if ((st = ncl_rng_skip_u64(&g, b->start))) return b->st = st;
        if ((st = draw_noted(r, &ctx, &g, b->lead, b->nlead, at, b->lead_at))) return b->st = st;
        at = b->lead_at[b->nlead];
    }
    const int64_t bulk = task > 0 ? b->n - b->nlead : b->n;
    if (bulk > 0) {
        NclRngGen before = g;
        args[c->np] = (char *)(out + b->i0);
        if ((st = r->k->fn(r->k, &ctx, args, bulk, steps))) return b->st = kernel_failed(c, r->k, st);
        at += words_between(&before, &g);
    }
    if (task > 0 && (st = draw_noted(r, &ctx, &g, out + b->i0 + bulk, b->nlead, at, b->tail_at)))
        return b->st = st;
    b->end = g;
    return b->st = NCL_OK;
}

/* The moves of stitched block task / 2, half task % 2 (see above). */
static NclStatus spec_move(void *arg, int worker, int64_t task, int *fpe)
{
    (void)worker;
    (void)fpe;
    spec_ctx *sc = arg;
    const spec_block *b = &sc->b[1 + task / 2];
    const int64_t s = b->shift;
    if (s <= 0) return NCL_OK;
    double *out = (double *)(void *)sc->r->base[sc->r->c->np];
    const int64_t a = b->i0, e = b->i0 + b->n - s, m = a + (e - a) / 2;
    const int64_t h = s < e - m ? s : e - m; /* the second half's head, saved beforehand */
    double *saved = sc->tmp + (task / 2) * b->nlead;
    if (task % 2 == 0) {
        memmove(out + a + s, out + a, (size_t)(m - a) * sizeof(double));
        memcpy(out + a, b->lead + b->j, (size_t)s * sizeof(double));
    } else {
        memmove(out + m + s + h, out + m + h, (size_t)(e - m - h) * sizeof(double));
        memcpy(out + m + s, saved, (size_t)h * sizeof(double));
    }
    return NCL_OK;
}

/* Splits a ziggurat call: returns 1 with *st set when it ran, 0 to run it
   otherwise. */
static int try_split_spec(run_ctx *r, NclStatus *st)
{
    const rng_call *c = r->c;
    const NclRngOp op = c->op;
    if (!(op == NCL_RNG_STANDARD_NORMAL || op == NCL_RNG_NORMAL || op == NCL_RNG_STANDARD_EXPONENTIAL ||
          op == NCL_RNG_EXPONENTIAL) ||
        c->rdt != NCL_FLOAT64 || r->d.nd != 1 || r->d.st[c->np][0] != 8 ||
        !(c->gen->kind == NCL_BITGEN_PCG64 || c->gen->kind == NCL_BITGEN_PCG64DXSM ||
          c->gen->kind == NCL_BITGEN_PHILOX) ||
        !ncl_kernel_unhooked(c->chain))
        return 0;
    for (int k = 0; k < c->np; k++)
        if (r->d.st[k][0] != 0) return 0;
    const int64_t n = r->d.shape[0];
    int nt = ncl_pool_threads(n * NCL_COST_TRANSCENDENTAL);
    if (nt <= 1) return 0;
    double mean, var;
    zig_words(op, &mean, &var);
    /* the lead-in of the last block is the longest */
    const double sigma = sqrt((double)n * var);
    const int64_t margin = (int64_t)(8 * sigma) + 64;
    const int64_t nlead = (int64_t)(2 * margin / mean) + 64;
    if (n / nt < 8 * nlead) return 0; /* too small for the lead-ins to pay */

    const size_t per = (size_t)nlead * (sizeof(double) + 2 * sizeof(uint64_t)) + 2 * sizeof(uint64_t);
    ncl_buffer *buf;
    const size_t moves = (size_t)nt * (size_t)nlead * sizeof(double); /* saved heads */
    if (ncl_scratch_alloc(c->who, (size_t)nt * (sizeof(spec_block) + per) + moves, &buf) != NCL_OK)
        return 0;
    spec_block *b = buf->base;
    char *mem = (char *)(b + nt);
    spec_ctx sc = {r, b, nt, NULL};
    for (int t = 0; t < nt; t++) {
        spec_block *x = &b[t];
        memset(x, 0, sizeof *x);
        x->i0 = n * t / nt;
        x->n = n * (t + 1) / nt - x->i0;
        x->nlead = nlead;
        const double expect = (double)x->i0 * mean - (double)margin;
        x->start = t && expect > 0 ? (uint64_t)expect : 0;
        x->lead = (double *)(void *)mem;
        x->lead_at = (uint64_t *)(void *)(mem + (size_t)nlead * sizeof(double));
        x->tail_at = x->lead_at + nlead + 1;
        mem += per;
    }
    sc.tmp = (double *)(void *)mem;
    int fpe = 0, used = 1;
    *st = ncl_pool_run(nt, nt, spec_draw, &sc, 1, &fpe, &used);
    ncl_last_call.threads = used;

    /* stitch: where each block's values really start */
    NclRngGen fin = *c->gen;
    uint64_t e = words_between(c->gen, &b[0].end);
    fin = b[0].end;
    for (int t = 1; t < nt && *st == NCL_OK; t++) {
        spec_block *x = &b[t];
        int64_t lo = 0, hi = x->nlead; /* e among lead_at[0 .. L) */
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (x->lead_at[mid] < e) lo = mid + 1; else hi = mid;
        }
        if (lo < x->nlead && x->lead_at[lo] == e) {
            x->j = lo;
            x->shift = x->nlead - lo;
            const uint64_t next = x->tail_at[x->nlead - x->shift];
            fin = *c->gen;
            *st = ncl_rng_skip_u64(&fin, next);
            if (x->shift == 0) fin = x->end;
            e = next;
        } else { /* draw the block again from e, here */
            x->shift = -1;
            NclRngGen g = *c->gen;
            *st = ncl_rng_skip_u64(&g, e);
            if (*st == NCL_OK) {
                NclRngKernelAux aux = {&g, r->endpoint};
                NclKernelCtx ctx = {SUB, NCL_RNG_KERNEL_OP(c->op, c->gen->kind), c->np, 1, c->sig,
                                    0, t, &fpe, &aux, ncl_tls.accuracy, 1};
                char *args[NCL_WALK_MAXOP];
                int64_t steps[NCL_WALK_MAXOP];
                for (int k = 0; k <= c->np; k++) {
                    args[k] = r->base[k];
                    steps[k] = r->d.st[k][0];
                }
                args[c->np] = r->base[c->np] + x->i0 * 8;
                NclStatus ks = r->k->fn(r->k, &ctx, args, x->n, steps);
                *st = ks ? kernel_failed(c, r->k, ks) : NCL_OK;
                e = words_between(c->gen, &g);
                fin = g;
            }
        }
    }
    if (*st == NCL_OK) {
        /* the second halves' heads, before any move overwrites them */
        double *out = (double *)(void *)r->base[c->np];
        for (int t = 1; t < nt; t++) {
            const spec_block *x = &b[t];
            if (x->shift <= 0) continue;
            const int64_t a = x->i0, en = x->i0 + x->n - x->shift, m = a + (en - a) / 2;
            const int64_t h = x->shift < en - m ? x->shift : en - m;
            memcpy(sc.tmp + (t - 1) * nlead, out + m, (size_t)h * sizeof(double));
        }
        *st = ncl_pool_run(nt, 2 * (nt - 1), spec_move, &sc, 0, &fpe, NULL);
    }
    if (*st == NCL_OK) *c->gen = fin;
    ncl_buffer_release(buf);
    return 1;
}

/* NumPy draws the 8- and 16-bit and bool integers of a call from one
   buffer of sub-words that lasts the whole call, while a kernel's buffer
   lasts one kernel call: a result of several rows is drawn as one row,
   its parameters broadcast into C-ordered copies, into a C-ordered result
   (the output itself, or a copy assigned to it after). */
static NclStatus run_one_row(run_ctx *r)
{
    rng_call *c = (rng_call *)r->c;
    NclArray *full[2] = {NULL, NULL}, *tmp = NULL;
    NclStatus st = NCL_OK;
    for (int i = 0; i < c->np && st == NCL_OK; i++) {
        int scalar = 1;
        for (int d = 0; d < r->d.nd; d++) scalar &= r->d.st[i][d] == 0;
        r->d.st[i][0] = 0;
        if (scalar) continue;
        const NclArray *src = c->conv[i] ? c->conv[i] : c->par[i];
        if ((st = ncl_array_alloc(c->who, c->pdt[i], c->ndim, c->shape, NCL_ORDER_C, 0, &full[i])) ||
            (st = ncl_assign(c->who, full[i], src, NCL_CASTING_UNSAFE)))
            break;
        r->base[i] = full[i]->data;
        r->d.st[i][0] = (int64_t)ncl_dtype_size[c->pdt[i]];
    }
    NclArray *res = c->res;
    if (st == NCL_OK && !(res->flags & NCL_ARRAY_C_CONTIGUOUS)) {
        st = ncl_array_alloc(c->who, c->rdt, c->ndim, c->shape, NCL_ORDER_C, 0, &tmp);
        res = tmp;
    }
    if (st == NCL_OK) {
        r->base[c->np] = res->data;
        r->d.st[c->np][0] = (int64_t)ncl_dtype_size[c->rdt];
        r->d.nd = 1;
        r->d.shape[0] = c->size;
        st = run_serial(r);
    }
    if (st == NCL_OK && tmp) st = ncl_assign(c->who, c->res, tmp, NCL_CASTING_UNSAFE);
    NclArrayRelease(tmp);
    NclArrayRelease(full[0]);
    NclArrayRelease(full[1]);
    return st;
}

static NclStatus execute(rng_call *c, int endpoint)
{
    run_ctx r = {.c = c, .endpoint = endpoint};
    r.k = ncl_kernel_first(c->chain);
    int64_t st_res[NCL_MAXDIMS], st_par[2][NCL_MAXDIMS];
    const int64_t *strides[NCL_WALK_MAXOP];
    for (int i = 0; i < c->np; i++) {
        const NclArray *a = c->conv[i] ? c->conv[i] : c->par[i];
        for (int d = 0; d < c->ndim; d++) {
            int da = d - (c->ndim - (a ? a->ndim : 0));
            st_par[i][d] = a && da >= 0 && a->shape[da] != 1 ? a->strides[da] : 0;
        }
        strides[i] = st_par[i];
        r.base[i] = a ? a->data : (char *)&c->dflt[i];
    }
    memcpy(st_res, c->res->strides, (size_t)c->ndim * sizeof(int64_t));
    strides[c->np] = st_res;
    r.base[c->np] = c->res->data;
    ncl_walk_dims_init(&r.d, c->ndim, c->shape, c->np + 1, strides);
    ncl_walk_dims_merge(&r.d);

    ncl_last_call.elements = c->size;
    ncl_last_call.bytes = c->size * (int64_t)ncl_dtype_size[c->rdt];
    ncl_last_call.kernel = r.k->name ? r.k->name : "(unnamed)";
    ncl_last_call.threads = 1;

    /* the kernels' FP flags are not NumPy's to report: sampled and dropped */
    ncl_fpe_saved saved;
    ncl_fpe_begin(&saved);
    NclStatus st;
    if (c->op == NCL_RNG_INTEGERS && ncl_dtype_size[c->rdt] < 4 && r.d.nd > 1)
        st = run_one_row(&r);
    else if (!try_split(&r, &st) && !try_split_spec(&r, &st))
        st = run_serial(&r);
    (void)ncl_fpe_end(&saved);
    return st;
}

/* ---- shuffle and permutation ---------------------------------------------------------------
   NumPy's Fisher-Yates: for i from n - 1 down to 1, j uniform on [0, i]
   (random_interval), and sub-arrays i and j along the axis swapped when
   they differ. Its 1-d path, its n-d path and permutation (which shuffles
   an index arange and gathers) draw the same j's, so both ops draw the
   j's with one level-2 kernel call (the op's chain, signature {int64}:
   n - 1 values, value k for i = n - 1 - k, into a scratch array) and
   swap here. permutation copies its input first and shuffles the copy,
   which is NumPy's gather by the shuffled index. Everything is obtained
   before the first draw. */

static void swap_bytes(char *x, char *y, size_t len)
{
    char buf[256];
    while (len > 0) {
        const size_t k = len < sizeof buf ? len : sizeof buf;
        memcpy(buf, x, k);
        memcpy(x, y, k);
        memcpy(y, buf, k);
        x += k;
        y += k;
        len -= k;
    }
}

/* Swaps sub-arrays i and j of x along axis. */
static void swap_along(NclArray *x, int axis, int64_t i, int64_t j)
{
    const size_t isz = ncl_dtype_size[x->dtype];
    int64_t shape[NCL_MAXDIMS], st[NCL_MAXDIMS];
    int nd = 0;
    for (int d = 0; d < x->ndim; d++) {
        if (d == axis) continue;
        shape[nd] = x->shape[d];
        st[nd++] = x->strides[d];
        if (x->shape[d] == 0) return;
    }
    const int64_t *strides[2] = {st, st};
    char *base[2] = {x->data + i * x->strides[axis], x->data + j * x->strides[axis]};
    ncl_walk_dims d;
    ncl_walk w;
    ncl_walk_dims_init(&d, nd, shape, 2, strides);
    ncl_walk_dims_merge(&d);
    ncl_walk_start(&d, &w, base);
    const int last = d.nd - 1;
    const int64_t step = d.st[0][last], cnt = d.shape[last];
    do {
        if (step == (int64_t)isz) {
            swap_bytes(w.ptr[0], w.ptr[1], (size_t)cnt * isz);
        } else {
            char *p = w.ptr[0], *q = w.ptr[1];
            for (int64_t k = 0; k < cnt; k++, p += step, q += step) swap_bytes(p, q, isz);
        }
    } while (ncl_walk_next(&d, last, &w));
}

static NclStatus shuffle_call(NclRngOp op, NclRngGen *gen, const NclArray *a, const NclArray *b,
                              NclArray **out, const NclParams *p, const char *who)
{
    const int perm = op == NCL_RNG_PERMUTATION;
    char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
    if (b) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s takes no input b; pass NULL", who);
    if (!perm && a)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s shuffles *out in place; input a must be NULL",
                         who);
    if (perm && !a)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: input a (the array, or a 0-d integer n) is "
                         "required", who);
    NclArray *given = *out;
    if (!perm && !given)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: *out is NULL; it must be the array to "
                         "shuffle", who);
    if (p->naxes > 1 || (p->naxes == 1 && !p->axes) || (p->naxes == 0 && p->axes))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: params->axes must be NULL or one axis "
                         "(naxes %d)", who, p->naxes);
    if (p->ndim || p->shape)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: params->shape is not used (the result has "
                         "the input's shape); pass NULL", who);
    rng_call c = {.op = op, .gen = gen, .who = who};
    NclStatus st;
    if ((st = check_host(&c, a, "input a")) || (st = check_host(&c, given, "the output"))) return st;
    if (given) {
        if (!(given->flags & NCL_ARRAY_WRITEABLE))
            return ncl_error(NCL_ERR_READONLY, "%s: the %s array is read-only", who,
                             perm ? "output" : "shuffled");
        if (ncl_array_has_internal_overlap(given))
            return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                             "%s: the %s has internal overlap (strides %s over shape %s)", who,
                             perm ? "output" : "array", ncl_shape_str(s0, given->ndim, given->strides),
                             ncl_shape_str(s1, given->ndim, given->shape));
    }
    /* the result's dtype and shape, and the axis */
    const int arange = perm && a->ndim == 0;
    int64_t len = 0;
    int axis = 0;
    NclDType rdt;
    int ndim;
    int64_t shape[NCL_MAXDIMS];
    if (arange) { /* NumPy's integer x: arange(x), shuffled; the axis is not used */
        if (ncl_dtype_kind[a->dtype] != 'i' && ncl_dtype_kind[a->dtype] != 'u' &&
            a->dtype != NCL_BOOL)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: axis 0 is out of bounds for array of "
                             "dimension 0 (a 0-d x must be an integer: arange(x))", who);
        const ncl_i128 v = load_int(a->dtype, a->data);
        if (v > INT64_MAX)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: x is out of bounds for int64", who);
        len = v > 0 ? (int64_t)v : 0;
        rdt = NCL_INT64;
        ndim = 1;
        shape[0] = len;
    } else {
        const NclArray *x = perm ? a : given;
        if (x->ndim == 0)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s", who,
                             perm ? "axis 0 is out of bounds for array of dimension 0"
                                  : "a 0-d array has no axis to shuffle along");
        axis = p->naxes ? p->axes[0] : 0;
        if (axis < -x->ndim || axis >= x->ndim)
            return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: axis %d is out of bounds for array of "
                             "dimension %d", who, axis, x->ndim);
        if (axis < 0) axis += x->ndim;
        rdt = x->dtype;
        ndim = x->ndim;
        memcpy(shape, x->shape, (size_t)ndim * sizeof(int64_t));
        len = shape[axis];
    }
    if (perm) {
        if (p->dtype != NCL_DTYPE_DEFAULT && p->dtype != rdt)
            return ncl_error(NCL_ERR_DTYPE, "%s: params->dtype is %s but the result is %s", who,
                             NclDTypeName(p->dtype), NclDTypeName(rdt));
        if (given && given->dtype != rdt)
            return ncl_error(NCL_ERR_DTYPE, "%s: the output is %s but the result is %s", who,
                             NclDTypeName(given->dtype), NclDTypeName(rdt));
        if (given && !(given->ndim == ndim &&
                       !memcmp(given->shape, shape, (size_t)ndim * sizeof(int64_t))))
            return ncl_error(NCL_ERR_SHAPE, "%s: the output's shape %s is not the result's %s",
                             who, ncl_shape_str(s0, given->ndim, given->shape),
                             ncl_shape_str(s1, ndim, shape));
    } else if (p->dtype != NCL_DTYPE_DEFAULT && p->dtype != given->dtype) {
        return ncl_error(NCL_ERR_DTYPE, "%s: params->dtype is %s but the array is %s", who,
                         NclDTypeName(p->dtype), NclDTypeName(given->dtype));
    }
    int64_t size;
    if ((st = ncl_shape_check(who, ndim, shape, &size))) return st;
    /* shuffle draws nothing for an empty array; permutation shuffles its
       index over the axis's extent whatever the other extents */
    const int64_t ndraw = (!perm && size == 0) || len < 2 ? 0 : len - 1;
    c.sig[0] = NCL_INT64;
    int nargs;
    if ((st = ncl_kernel_chain_find(who, SUB, NCL_RNG_KERNEL_OP(op, gen->kind), c.sig, &c.chain,
                                    &nargs)))
        return st;

    /* everything obtained before the first draw */
    ncl_buffer *buf = NULL;
    NclArray *res = given;
    if (ndraw > 0 && (st = ncl_scratch_alloc(who, (size_t)ndraw * sizeof(int64_t), &buf))) return st;
    if (perm && !given) st = ncl_array_alloc(who, rdt, ndim, shape, NCL_ORDER_C, 0, &res);
    if (st == NCL_OK && perm) {
        if (arange) {
            for (int64_t k = 0; k < len; k++) {
                const int64_t v = k;
                memcpy(res->data + k * res->strides[0], &v, sizeof v);
            }
        } else if (size > 0) {
            st = ncl_assign(who, res, a, NCL_CASTING_UNSAFE);
        }
    }
    if (st == NCL_OK && ndraw > 0) {
        NclKernelNode *k = ncl_kernel_first(c.chain);
        NclRngKernelAux aux = {gen, 0};
        int fpe = 0;
        NclKernelCtx ctx = {SUB, NCL_RNG_KERNEL_OP(op, gen->kind), 0, 1, c.sig, 0, 0, &fpe, &aux,
                            ncl_tls.accuracy, 1};
        char *args[1] = {buf->base};
        const int64_t steps[1] = {(int64_t)sizeof(int64_t)};
        ncl_last_call.elements = ndraw;
        ncl_last_call.bytes = ndraw * (int64_t)sizeof(int64_t);
        ncl_last_call.kernel = k->name ? k->name : "(unnamed)";
        ncl_last_call.threads = 1;
        ncl_fpe_saved saved;
        ncl_fpe_begin(&saved);
        const NclStatus ks = k->fn(k, &ctx, args, ndraw, steps);
        (void)ncl_fpe_end(&saved);
        if (ks) st = kernel_failed(&c, k, ks);
        const int64_t *js = buf->base;
        for (int64_t t = 0; st == NCL_OK && t < ndraw; t++) {
            const int64_t i = len - 1 - t, j = js[t];
            if (j != i && size > 0) swap_along(res, axis, i, j);
        }
    }
    if (buf) ncl_buffer_release(buf);
    if (st == NCL_OK && perm && !given) *out = res;
    else if (perm && !given) NclArrayRelease(res);
    return st;
}

/* ---- entry -------------------------------------------------------------------------------- */

NclStatus ncl_default_rng(NclHook *self, NclRngOp op, NclRngGen *gen, const NclArray *a,
                          const NclArray *b, NclArray **out, const NclParams *params)
{
    (void)self;
    if ((unsigned)op >= (unsigned)NCL_RNG_NOPS)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclRng: op %d is not an NclRngOp", (int)op);
    char who[48];
    snprintf(who, sizeof who, "NclRng(%s)", ncl_op_name(SUB, op));
    if (!ncl_rng_gen_ok(gen))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: gen is %s", who,
                         gen ? "not a live generator (freed, or not made by NclRngGenCreate)" : "NULL");
    if (!out) return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: out is NULL", who);
    NclParams p;
    NclStatus st = ncl_params_read(SUB, op, params, &p);
    if (st) return st;
    if (p.where)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: params->where is not used by NclRng; pass "
                         "NULL", who);
    if (op == NCL_RNG_SHUFFLE || op == NCL_RNG_PERMUTATION)
        return shuffle_call(op, gen, a, b, out, &p, who);
    if (p.axes || p.naxes)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: params->axes is not used by NclRng(%s); "
                         "pass NULL", who, ncl_op_name(SUB, op));

    rng_call c = {.op = op, .gen = gen, .who = who, .np = ncl_rng_op_nparams(op), .par = {a, b}};
    if ((a && c.np < 1) || (b && c.np < 2))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s takes %s; input %s must be NULL", who,
                         c.np == 0 ? "no parameter arrays" : "one parameter array (a)",
                         a && c.np < 1 ? "a" : "b");
    for (int i = 0; i < c.np; i++)
        if ((ops[op].required & (1u << i)) && !c.par[i])
            return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s (input %c) is required", who,
                             ops[op].pname[i], "ab"[i]);
    if (op == NCL_RNG_INTEGERS && !b)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s: high (input b) is required", who);
    NclArray *given = *out;
    if ((st = check_host(&c, a, "input a")) || (st = check_host(&c, b, "input b")) ||
        (st = check_host(&c, given, "the output")))
        return st;
    if (given) {
        char s0[NCL_SHAPE_STR], s1[NCL_SHAPE_STR];
        if (!(given->flags & NCL_ARRAY_WRITEABLE))
            return ncl_error(NCL_ERR_READONLY, "%s: the output array is read-only", who);
        if (ncl_array_has_internal_overlap(given))
            return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                             "%s: the output has internal overlap (strides %s over shape %s)", who,
                             ncl_shape_str(s0, given->ndim, given->strides),
                             ncl_shape_str(s1, given->ndim, given->shape));
    }
    if ((st = result_dtype(&c, &p, given)) || (st = result_shape(&c, &p, given))) return st;

    c.sig[c.np] = c.rdt;
    for (int i = 0; i < c.np; i++)
        c.sig[i] = op == NCL_RNG_INTEGERS ? (ncl_dtype_kind[c.rdt] == 'u' ? NCL_UINT64 : NCL_INT64)
                   : op == NCL_RNG_BINOMIAL && i == 0 ? NCL_INT64
                                                      : NCL_FLOAT64;
    int nargs;
    if ((st = ncl_kernel_chain_find(who, SUB, NCL_RNG_KERNEL_OP(op, gen->kind), c.sig, &c.chain,
                                    &nargs)))
        return st;

    if ((st = read_params(&c, given, p.endpoint != 0)) == NCL_OK) {
        c.res = given;
        if (!given)
            st = ncl_array_alloc(who, c.rdt, c.ndim, c.shape, NCL_ORDER_C, 0, &c.res);
        if (st == NCL_OK && c.size > 0) st = execute(&c, p.endpoint != 0);
        if (st == NCL_OK && !given)
            *out = c.res;
        else if (!given)
            NclArrayRelease(c.res);
    }
    NclArrayRelease(c.conv[0]);
    NclArrayRelease(c.conv[1]);
    return st;
}
