/*
 * ledger.c: the built-in ledger, a level-1 hook at the front of every chain
 * but INFO. Each ledger node times its call, calls the next node, and adds
 * to the counters of (subsystem, op): calls, failures, elements, bytes
 * moved, time, and the kernel variant and thread count the default
 * implementation reported through ncl_last_call. It is also the model of a
 * user hook: it only uses the public Next functions.
 *
 * Counters are relaxed atomics: many threads may be counting at once, and a
 * report is a sum, not a snapshot. Nothing here allocates.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "hooks/hook_chain.h"

/* ---- counters ------------------------------------------------------------- */

#define LEDGER_MAX_OPS 64
_Static_assert(NCL_CREATE_NOPS <= LEDGER_MAX_OPS && NCL_CONVERT_NOPS <= LEDGER_MAX_OPS &&
                   NCL_COMPARE_NOPS <= LEDGER_MAX_OPS && NCL_ISUNARY_NOPS <= LEDGER_MAX_OPS &&
                   NCL_UNARY_NOPS <= LEDGER_MAX_OPS && NCL_BINARY_NOPS <= LEDGER_MAX_OPS &&
                   NCL_TERNARY_NOPS <= LEDGER_MAX_OPS && NCL_REDUCE_NOPS <= LEDGER_MAX_OPS &&
                   NCL_SORT_NOPS <= LEDGER_MAX_OPS && NCL_MASK_NOPS <= LEDGER_MAX_OPS &&
                   NCL_RNG_NOPS <= LEDGER_MAX_OPS && NCL_LINALG_NOPS <= LEDGER_MAX_OPS &&
                   NCL_MANIP_NOPS <= LEDGER_MAX_OPS,
               "every op must have a ledger row");

typedef struct ledger_row {
    atomic_uint_least64_t calls, errors, elements, bytes, ns;
    _Atomic(const char *) kernel;  /* the variant that ran last */
    atomic_int threads;            /* the most threads a call of this row used */
} ledger_row;

static ledger_row rows[NCL_SUBSYSTEM_COUNT][LEDGER_MAX_OPS];

/* ---- the hook --------------------------------------------------------------- */

void ncl_ledger_begin(ncl_ledger_mark *m)
{
    m->outer = ncl_last_call;
    memset(&ncl_last_call, 0, sizeof ncl_last_call);
    clock_gettime(CLOCK_MONOTONIC, &m->t0);
}

void ncl_ledger_end(const ncl_ledger_mark *m, NclSubsystem s, int op, NclStatus st)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ncl_call_record rec = ncl_last_call;
    /* A call made inside another (a hook calling NCLib) must not leave its
       record as the enclosing call's. */
    ncl_last_call = m->outer;
    if ((unsigned)op >= LEDGER_MAX_OPS) return;  /* refused by the default anyway */
    int64_t ns = (int64_t)(t1.tv_sec - m->t0.tv_sec) * 1000000000 + (t1.tv_nsec - m->t0.tv_nsec);
    ledger_row *r = &rows[s][op];
    atomic_fetch_add_explicit(&r->calls, 1, memory_order_relaxed);
    if (st != NCL_OK) atomic_fetch_add_explicit(&r->errors, 1, memory_order_relaxed);
    if (rec.elements > 0)
        atomic_fetch_add_explicit(&r->elements, (uint_least64_t)rec.elements, memory_order_relaxed);
    if (rec.bytes > 0)
        atomic_fetch_add_explicit(&r->bytes, (uint_least64_t)rec.bytes, memory_order_relaxed);
    if (ns > 0) atomic_fetch_add_explicit(&r->ns, (uint_least64_t)ns, memory_order_relaxed);
    if (rec.kernel) atomic_store_explicit(&r->kernel, rec.kernel, memory_order_relaxed);
    int seen = atomic_load_explicit(&r->threads, memory_order_relaxed);
    while (rec.threads > seen &&
           !atomic_compare_exchange_weak_explicit(&r->threads, &seen, rec.threads,
                                                  memory_order_relaxed, memory_order_relaxed)) {
    }
}

static NclStatus ledger_create(NclHook *self, NclCreateOp op, const NclCreateParams *p, NclArray **out)
{
    ncl_ledger_mark m;
    ncl_ledger_begin(&m);
    NclStatus st = NclCreateNext(self, op, p, out);
    ncl_ledger_end(&m, NCL_SUBSYSTEM_CREATE, (int)op, st);
    return st;
}

static NclStatus ledger_convert(NclHook *self, NclConvertOp op, const NclArray *a, NclArray **out,
                                const NclParams *params)
{
    ncl_ledger_mark m;
    ncl_ledger_begin(&m);
    NclStatus st = NclConvertNext(self, op, a, out, params);
    ncl_ledger_end(&m, NCL_SUBSYSTEM_CONVERT, (int)op, st);
    return st;
}

static NclStatus ledger_compare(NclHook *self, NclCompareOp op, const NclArray *a, const NclArray *b,
                                NclArray **out, const NclParams *params)
{
    ncl_ledger_mark m;
    ncl_ledger_begin(&m);
    NclStatus st = NclCompareNext(self, op, a, b, out, params);
    ncl_ledger_end(&m, NCL_SUBSYSTEM_COMPARE, (int)op, st);
    return st;
}

static NclStatus ledger_isunary(NclHook *self, NclIsUnaryOp op, const NclArray *a, NclArray **out,
                                const NclParams *params)
{
    ncl_ledger_mark m;
    ncl_ledger_begin(&m);
    NclStatus st = NclIsUnaryNext(self, op, a, out, params);
    ncl_ledger_end(&m, NCL_SUBSYSTEM_ISUNARY, (int)op, st);
    return st;
}

static NclStatus ledger_unary(NclHook *self, NclUnaryOp op, const NclArray *a, NclArray **out,
                              const NclParams *params)
{
    ncl_ledger_mark m;
    ncl_ledger_begin(&m);
    NclStatus st = NclUnaryNext(self, op, a, out, params);
    ncl_ledger_end(&m, NCL_SUBSYSTEM_UNARY, (int)op, st);
    return st;
}

static NclStatus ledger_binary(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                               NclArray **out, const NclParams *params)
{
    ncl_ledger_mark m;
    ncl_ledger_begin(&m);
    NclStatus st = NclBinaryNext(self, op, a, b, out, params);
    ncl_ledger_end(&m, NCL_SUBSYSTEM_BINARY, (int)op, st);
    return st;
}

static NclStatus ledger_ternary(NclHook *self, NclTernaryOp op, const NclArray *a,
                                const NclArray *b, const NclArray *c, NclArray **out,
                                const NclParams *params)
{
    ncl_ledger_mark m;
    ncl_ledger_begin(&m);
    NclStatus st = NclTernaryNext(self, op, a, b, c, out, params);
    ncl_ledger_end(&m, NCL_SUBSYSTEM_TERNARY, (int)op, st);
    return st;
}

static NclStatus ledger_reduce(NclHook *self, NclReduceOp op, const NclArray *a, NclArray **out,
                               const NclParams *params)
{
    ncl_ledger_mark m;
    ncl_ledger_begin(&m);
    NclStatus st = NclReduceNext(self, op, a, out, params);
    ncl_ledger_end(&m, NCL_SUBSYSTEM_REDUCE, (int)op, st);
    return st;
}

static NclStatus ledger_sort(NclHook *self, NclSortOp op, const NclArray *a, NclArray **out,
                             const NclParams *params)
{
    ncl_ledger_mark m;
    ncl_ledger_begin(&m);
    NclStatus st = NclSortNext(self, op, a, out, params);
    ncl_ledger_end(&m, NCL_SUBSYSTEM_SORT, (int)op, st);
    return st;
}

static NclStatus ledger_mask(NclHook *self, NclMaskOp op, const NclArray *a, const NclArray *b,
                             NclArray **out, const NclParams *params)
{
    ncl_ledger_mark m;
    ncl_ledger_begin(&m);
    NclStatus st = NclMaskNext(self, op, a, b, out, params);
    ncl_ledger_end(&m, NCL_SUBSYSTEM_MASK, (int)op, st);
    return st;
}

static NclStatus ledger_rng(NclHook *self, NclRngOp op, NclRngGen *gen, const NclArray *a,
                            const NclArray *b, NclArray **out, const NclParams *params)
{
    ncl_ledger_mark m;
    ncl_ledger_begin(&m);
    NclStatus st = NclRngNext(self, op, gen, a, b, out, params);
    ncl_ledger_end(&m, NCL_SUBSYSTEM_RNG, (int)op, st);
    return st;
}

static NclStatus ledger_linalg(NclHook *self, NclLinalgOp op, const NclArray *a,
                               const NclArray *b, NclArray **out, const NclParams *params)
{
    ncl_ledger_mark m;
    ncl_ledger_begin(&m);
    NclStatus st = NclLinalgNext(self, op, a, b, out, params);
    ncl_ledger_end(&m, NCL_SUBSYSTEM_LINALG, (int)op, st);
    return st;
}
static NclStatus ledger_manip(NclHook *self, NclManipOp op, int nin, const NclArray *const *in,
                              NclArray **out, const NclParams *params)
{
    ncl_ledger_mark m;
    ncl_ledger_begin(&m);
    NclStatus st = NclManipNext(self, op, nin, in, out, params);
    ncl_ledger_end(&m, NCL_SUBSYSTEM_MANIP, (int)op, st);
    return st;
}

/* One node per subsystem but INFO (the ledger would only count itself). */
#define LEDGER_SUBSYSTEMS(X) X(CREATE, create) X(CONVERT, convert) X(COMPARE, compare) \
    X(ISUNARY, isunary) X(UNARY, unary) X(BINARY, binary) X(TERNARY, ternary)         \
    X(REDUCE, reduce) X(SORT, sort) X(MASK, mask) X(RNG, rng) X(LINALG, linalg) X(MANIP, manip)

static NclHook ledger_nodes[] = {
#define NCL_X_(S, f) { .name = "ncl_ledger", .fn.f = ledger_##f },
    LEDGER_SUBSYSTEMS(NCL_X_)
#undef NCL_X_
};

static const NclSubsystem ledger_subsystems[] = {
#define NCL_X_(S, f) NCL_SUBSYSTEM_##S,
    LEDGER_SUBSYSTEMS(NCL_X_)
#undef NCL_X_
};

#define LEDGER_NNODES ((int)(sizeof ledger_nodes / sizeof ledger_nodes[0]))

int ncl_ledger_on(NclSubsystem s)
{
    for (int i = 0; i < LEDGER_NNODES; i++)
        if (ledger_subsystems[i] == s) return (ncl_node_state(&ledger_nodes[i].list) & NCL_NODE_LINKED) != 0;
    return 0;
}

NclStatus NclLedgerEnable(int on)
{
    static const char who[] = "NclLedgerEnable";
    if (on) {
        for (int i = 0; i < LEDGER_NNODES; i++) {
            NclStatus st = ncl_hook_builtin_insert(who, ledger_subsystems[i], &ledger_nodes[i]);
            if (st != NCL_OK) return st;
        }
        return NCL_OK;
    }
    NclHook *nodes[LEDGER_NNODES];
    for (int i = 0; i < LEDGER_NNODES; i++) nodes[i] = &ledger_nodes[i];
    return ncl_hook_builtin_remove("NclLedgerEnable(0)", nodes, LEDGER_NNODES);
}

void NclLedgerReset(void)
{
    for (int s = 0; s < NCL_SUBSYSTEM_COUNT; s++) {
        for (int op = 0; op < LEDGER_MAX_OPS; op++) {
            ledger_row *r = &rows[s][op];
            atomic_store_explicit(&r->calls, 0, memory_order_relaxed);
            atomic_store_explicit(&r->errors, 0, memory_order_relaxed);
            atomic_store_explicit(&r->elements, 0, memory_order_relaxed);
            atomic_store_explicit(&r->bytes, 0, memory_order_relaxed);
            atomic_store_explicit(&r->ns, 0, memory_order_relaxed);
            atomic_store_explicit(&r->kernel, NULL, memory_order_relaxed);
            atomic_store_explicit(&r->threads, 0, memory_order_relaxed);
        }
    }
}

/* ---- the report ---------------------------------------------------------------- */

/* Text written into a caller's buffer as far as it fits, while counting the
   whole length. */
typedef struct report {
    char *buf;
    size_t cap, len;
} report;

static void report_put(report *o, const char *fmt, ...) NCL_PRINTF(2, 3);
static void report_put(report *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *dst = o->len < o->cap ? o->buf + o->len : NULL;
    int n = vsnprintf(dst, dst ? o->cap - o->len : 0, fmt, ap);
    va_end(ap);
    if (n > 0) o->len += (size_t)n;
}

#define REPORT_HEADER "%-10s %-14s %10s %7s %13s %15s %12s %10s  %-24s %7s\n"
#define REPORT_ROW "%-10s %-14s %10llu %7llu %13llu %15llu %12.3f %10.0f  %-24s %7d\n"

NclStatus NclLedgerReport(char *buf, size_t cap, size_t *needed)
{
    if (buf == NULL && cap != 0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclLedgerReport: buf is NULL but cap is %zu", cap);
    report o = { buf, cap, 0 };
    report_put(&o, REPORT_HEADER, "subsystem", "op", "calls", "errors", "elements", "bytes",
               "total_ms", "ns/call", "kernel", "threads");
    for (int s = 0; s < NCL_SUBSYSTEM_COUNT; s++) {
        for (int op = 0; op < LEDGER_MAX_OPS; op++) {
            const ledger_row *r = &rows[s][op];
            unsigned long long calls = atomic_load_explicit(&r->calls, memory_order_relaxed);
            if (calls == 0) continue;
            unsigned long long ns = atomic_load_explicit(&r->ns, memory_order_relaxed);
            const char *kernel = atomic_load_explicit(&r->kernel, memory_order_relaxed);
            report_put(&o, REPORT_ROW, ncl_subsystem_name((NclSubsystem)s),
                       ncl_op_name((NclSubsystem)s, op), calls,
                       (unsigned long long)atomic_load_explicit(&r->errors, memory_order_relaxed),
                       (unsigned long long)atomic_load_explicit(&r->elements, memory_order_relaxed),
                       (unsigned long long)atomic_load_explicit(&r->bytes, memory_order_relaxed),
                       (double)ns / 1e6, (double)ns / (double)calls, kernel ? kernel : "-",
                       atomic_load_explicit(&r->threads, memory_order_relaxed));
        }
    }
    size_t total = o.len + 1;
    if (needed) *needed = total;
    if (cap < total) {
        if (buf != NULL && cap != 0) buf[0] = '\0';
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "NclLedgerReport: the buffer holds %zu bytes; the report needs %zu "
                         "(including the NUL)",
                         cap, total);
    }
    return NCL_OK;
}
