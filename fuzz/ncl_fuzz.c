/*
 * ncl_fuzz.c: a libFuzzer target that turns its input bytes into a sequence
 * of public API calls: arrays wrapped over a buffer the target owns (shapes,
 * strides and offsets chosen from the bytes, always inside the buffer),
 * hostile shapes and parameters that must be refused, views of every kind,
 * calls into every subsystem with where masks, dtypes, casting rules, axes,
 * keepdims, initial values, sort kinds and kth, outputs that alias or overlap
 * their inputs, and level-1 / level-2 hooks inserted and removed between and
 * from inside calls.
 *
 * The invariants checked on every call: the status is an NclStatus; a
 * failure leaves a message; a failed call (NCL_ERR_FLOATING_POINT
 * included) leaves an *out that was NULL NULL and a provided *out in
 * place; every view of the target's buffer lies inside it; after an input,
 * every block the library took from the accounting handler has been given
 * back. The sanitizers the tree is built with check the rest. A violated
 * invariant calls abort(), which libFuzzer reports with the input that
 * caused it.
 *
 * Sizes are kept small on purpose (CAP elements per operand and result):
 * the target looks for wrong indexing, not for slow loops, and a huge
 * result would only make each execution slower.
 *
 * Only the public API is used; the input format is "one opcode byte, then
 * what that opcode reads", and running out of bytes reads zeros, so every
 * input is valid and short inputs still do something.
 */
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ncl.h"

#define POOL_BYTES 4096  /* the buffer every wrapped array views */
#define NSLOTS 8         /* arrays alive at once */
#define CAP 1024         /* largest operand or result the target computes on */
#define MAX_STEPS 48     /* calls per input */

/* ---- the byte reader ------------------------------------------------------ */

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static uint8_t u8(reader *r)
{
    if (r->n == 0) return 0;
    r->n--;
    return *r->p++;
}

static uint16_t u16(reader *r) { return (uint16_t)(u8(r) | (u8(r) << 8)); }

static uint64_t u64(reader *r)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)u8(r) << (8 * i);
    return v;
}

/* A value below n (n > 0). */
static unsigned pick(reader *r, unsigned n) { return u8(r) % n; }

/* An int64 that is usually small, sometimes an edge. */
static int64_t small_or_edge(reader *r)
{
    static const int64_t edges[] = { INT64_MIN, INT64_MIN + 1, INT64_MAX, INT64_MAX - 1,
                                     (int64_t)1 << 62, -((int64_t)1 << 62), (int64_t)1 << 32,
                                     -1, 0, 1 };
    uint8_t k = u8(r);
    if (k < 224) return (int64_t)(int8_t)u8(r) % 9;
    return edges[k % (sizeof edges / sizeof edges[0])];
}

/* ---- state of one input ----------------------------------------------------- */

static uint8_t *pool;          /* POOL_BYTES, 64-byte aligned, owned by the target */
static NclArray *slots[NSLOTS];
static NclMemAccounting *acc;  /* every allocation of an input goes through it */
static int in_input;

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "ncl_fuzz: invariant broken: %s (%s)\n", what, detail ? detail : "");
    abort();
}

/* The status is one of the contract's, and a failure left a message. */
static NclStatus check_status(NclStatus st, const char *call)
{
    if ((unsigned)st >= (unsigned)NCL_STATUS_COUNT) fail("status out of range", call);
    if (st != NCL_OK) {
        const char *m = NclLastError();
        if (m == NULL || m[0] == '\0') fail("failure without a message", call);
    }
    return st;
}

static int64_t isize(const NclArray *a) { return (int64_t)NclDTypeSize(NclArrayDType(a)); }

/* An array whose data lies in the pool must lie wholly inside it (views
   of the pool are the library's arithmetic on the target's memory). */
static void check_in_pool(const NclArray *a, const char *call)
{
    if (a == NULL) return;
    const char *d = NclArrayData(a);
    int nd = NclArrayNDim(a);
    if (nd < 0 || nd > NCL_MAXDIMS) fail("ndim out of range", call);
    if (NclArraySize(a) == 0) return;
    if (d < (const char *)pool || d >= (const char *)pool + POOL_BYTES) return;
    const int64_t *sh = NclArrayShape(a), *st = NclArrayStrides(a);
    int64_t lo = 0, hi = 0;
    for (int i = 0; i < nd; i++) {
        if (sh[i] <= 0) fail("non-empty array with an empty axis", call);
        int64_t span;
        if (__builtin_mul_overflow(st[i], sh[i] - 1, &span))
            fail("view reaches outside the buffer it views", call);
        if (span < 0) lo += span;
        else hi += span;
        if (lo < -(int64_t)POOL_BYTES || hi > (int64_t)POOL_BYTES)
            fail("view reaches outside the buffer it views", call);
    }
    const char *first = d + lo, *last = d + hi + isize(a);
    if (first < (const char *)pool || last > (const char *)pool + POOL_BYTES)
        fail("view reaches outside the buffer it views", call);
}

/* Reads every element of a (ASan sees a read outside its memory). */
static void touch(const NclArray *a)
{
    if (a == NULL || NclArrayMemKind(a) == NCL_MEM_DEVICE) return;
    int64_t n = NclArraySize(a);
    if (n <= 0 || n > CAP * 64) return;
    int nd = NclArrayNDim(a);
    const int64_t *sh = NclArrayShape(a), *st = NclArrayStrides(a);
    int64_t idx[NCL_MAXDIMS] = { 0 };
    const char *d = NclArrayData(a);
    size_t w = (size_t)isize(a);
    volatile unsigned sink = 0;
    for (int64_t k = 0; k < n; k++) {
        const char *e = d;
        for (int i = 0; i < nd; i++) e += idx[i] * st[i];
        for (size_t b = 0; b < w; b++) sink += (unsigned char)e[b];
        for (int i = nd - 1; i >= 0; i--) {
            if (++idx[i] < sh[i]) break;
            idx[i] = 0;
        }
    }
    (void)sink;
}

static void put_slot(NclArray *a, const char *call)
{
    if (a == NULL) fail("NCL_OK without a result", call);
    check_in_pool(a, call);
    touch(a);
    for (int i = 0; i < NSLOTS; i++) {
        if (slots[i] == NULL) {
            slots[i] = a;
            return;
        }
    }
    /* Full: the newest replaces a slot chosen by its address bits. */
    int k = (int)(((uintptr_t)a >> 6) % NSLOTS);
    NclArrayRelease(slots[k]);
    slots[k] = a;
}

static NclArray *get_slot(reader *r)
{
    uint8_t k = u8(r);
    if (k == 255) return NULL;  /* now and then a NULL operand */
    return slots[k % NSLOTS];
}

static int64_t size_of(int nd, const int64_t *sh)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++) {
        if (sh[i] < 0) return -1;
        if (sh[i] == 0) return 0;
        if (n > INT64_MAX / sh[i]) return INT64_MAX;
        n *= sh[i];
    }
    return n;
}

/* Whether a, b, c (NULL skipped) are small enough to compute on, and so is
   their broadcast shape (mismatched shapes are refused before any
   allocation, so they pass). */
static int small_enough(const NclArray *a, const NclArray *b, const NclArray *c, const NclArray *d)
{
    const NclArray *ops[4] = { a, b, c, d };
    int64_t bshape[NCL_MAXDIMS];
    int bnd = 0;
    for (int k = 0; k < 4; k++) {
        if (ops[k] == NULL) continue;
        if (NclArraySize(ops[k]) > CAP) return 0;
        int nd = NclArrayNDim(ops[k]);
        const int64_t *sh = NclArrayShape(ops[k]);
        if (nd > bnd) {
            memmove(bshape + (nd - bnd), bshape, (size_t)bnd * sizeof *bshape);
            for (int i = 0; i < nd - bnd; i++) bshape[i] = 1;
            bnd = nd;
        }
        for (int i = 0; i < nd; i++) {
            int64_t *t = &bshape[bnd - nd + i];
            if (*t == 1) *t = sh[i];
        }
    }
    int64_t n = size_of(bnd, bshape);
    return n >= 0 && n <= CAP;
}

/* ---- hooks ---------------------------------------------------------------------- */

/* One pass-through node per subsystem that has a chain, and one level-2
   node. A node's mode byte makes it remove itself (deferred) on its next
   call. Nodes live for the whole process: a deferred removal may be
   reclaimed after the input that made it is over. */
static NclHook l1[NCL_SUBSYSTEM_COUNT][2];
static atomic_int l1_self_remove[NCL_SUBSYSTEM_COUNT][2];
static NclKernelNode l2[4];
static atomic_int l2_self_remove[4];
static atomic_long reclaimed;

static void on_reclaim(NclListHead *node, void *user)
{
    (void)node;
    (void)user;
    atomic_fetch_add(&reclaimed, 1);
}

static void maybe_self_remove(NclHook *self)
{
    for (int s = 0; s < NCL_SUBSYSTEM_COUNT; s++)
        for (int j = 0; j < 2; j++)
            if (&l1[s][j] == self && atomic_exchange(&l1_self_remove[s][j], 0)) {
                /* Waiting from inside a call must be refused, not deadlock. */
                if (check_status(NclApiUnhook(&self->list), "NclApiUnhook inside") != NCL_ERR_HOOK)
                    fail("NclApiUnhook from inside a call did not return NCL_ERR_HOOK", self->name);
                check_status(NclApiUnhookDeferred(&self->list, on_reclaim, NULL),
                             "NclApiUnhookDeferred");
            }
}

static NclStatus h_create(NclHook *self, NclCreateOp op, const NclCreateParams *p, NclArray **out)
{
    maybe_self_remove(self);
    return NclCreateNext(self, op, p, out);
}
static NclStatus h_convert(NclHook *self, NclConvertOp op, const NclArray *a, NclArray **out,
                           const NclParams *p)
{
    maybe_self_remove(self);
    return NclConvertNext(self, op, a, out, p);
}
static NclStatus h_compare(NclHook *self, NclCompareOp op, const NclArray *a, const NclArray *b,
                           NclArray **out, const NclParams *p)
{
    maybe_self_remove(self);
    return NclCompareNext(self, op, a, b, out, p);
}
static NclStatus h_isunary(NclHook *self, NclIsUnaryOp op, const NclArray *a, NclArray **out,
                           const NclParams *p)
{
    maybe_self_remove(self);
    return NclIsUnaryNext(self, op, a, out, p);
}
static NclStatus h_unary(NclHook *self, NclUnaryOp op, const NclArray *a, NclArray **out,
                         const NclParams *p)
{
    maybe_self_remove(self);
    return NclUnaryNext(self, op, a, out, p);
}
static NclStatus h_binary(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                          NclArray **out, const NclParams *p)
{
    maybe_self_remove(self);
    return NclBinaryNext(self, op, a, b, out, p);
}
static NclStatus h_ternary(NclHook *self, NclTernaryOp op, const NclArray *a, const NclArray *b,
                           const NclArray *c, NclArray **out, const NclParams *p)
{
    maybe_self_remove(self);
    return NclTernaryNext(self, op, a, b, c, out, p);
}
static NclStatus h_reduce(NclHook *self, NclReduceOp op, const NclArray *a, NclArray **out,
                          const NclParams *p)
{
    maybe_self_remove(self);
    return NclReduceNext(self, op, a, out, p);
}
static NclStatus h_sort(NclHook *self, NclSortOp op, const NclArray *a, NclArray **out,
                        const NclParams *p)
{
    maybe_self_remove(self);
    return NclSortNext(self, op, a, out, p);
}
static NclStatus h_manip(NclHook *self, NclManipOp op, int nin, const NclArray *const *in,
                         NclArray **out, const NclParams *p)
{
    maybe_self_remove(self);
    return NclManipNext(self, op, nin, in, out, p);
}
static NclStatus h_mask(NclHook *self, NclMaskOp op, const NclArray *a, const NclArray *b,
                        NclArray **out, const NclParams *p)
{
    maybe_self_remove(self);
    return NclMaskNext(self, op, a, b, out, p);
}
static NclStatus h_linalg(NclHook *self, NclLinalgOp op, const NclArray *a, const NclArray *b,
                          NclArray **out, const NclParams *p)
{
    maybe_self_remove(self);
    return NclLinalgNext(self, op, a, b, out, p);
}
static NclStatus h_info(NclHook *self, NclInfoWriter *w)
{
    maybe_self_remove(self);
    NclStatus st = NclInfoAddString(w, self->name, "fuzz \"hook\"\n\t\x01");
    if (st != NCL_OK) return st;
    return NclInfoNext(self, w);
}

static NclStatus k_pass(NclKernelNode *self, const NclKernelCtx *ctx, char *const *args, int64_t n,
                        const int64_t *steps)
{
    if (n < 0 || ctx == NULL) fail("kernel called with n < 0 or no context", self->name);
    for (int i = 0; i < 4; i++)
        if (&l2[i] == self && atomic_exchange(&l2_self_remove[i], 0))
            check_status(NclApiUnhookDeferred(&self->list, on_reclaim, NULL),
                         "NclApiUnhookDeferred(kernel)");
    return NclKernelNext(self, ctx, args, n, steps);
}

static const char *const l1_names[2] = { "fuzz_a", "fuzz_b" };

static void hooks_init(void)
{
    for (int s = 0; s < NCL_SUBSYSTEM_COUNT; s++) {
        for (int j = 0; j < 2; j++) {
            NclHook *h = &l1[s][j];
            h->name = l1_names[j];
            switch ((NclSubsystem)s) {
            case NCL_SUBSYSTEM_INFO: h->fn.info = h_info; break;
            case NCL_SUBSYSTEM_CREATE: h->fn.create = h_create; break;
            case NCL_SUBSYSTEM_CONVERT: h->fn.convert = h_convert; break;
            case NCL_SUBSYSTEM_COMPARE: h->fn.compare = h_compare; break;
            case NCL_SUBSYSTEM_UNARY: h->fn.unary = h_unary; break;
            case NCL_SUBSYSTEM_BINARY: h->fn.binary = h_binary; break;
            case NCL_SUBSYSTEM_ISUNARY: h->fn.isunary = h_isunary; break;
            case NCL_SUBSYSTEM_TERNARY: h->fn.ternary = h_ternary; break;
            case NCL_SUBSYSTEM_REDUCE: h->fn.reduce = h_reduce; break;
            case NCL_SUBSYSTEM_SORT: h->fn.sort = h_sort; break;
            case NCL_SUBSYSTEM_MASK: h->fn.mask = h_mask; break;
            case NCL_SUBSYSTEM_LINALG: h->fn.linalg = h_linalg; break;
            case NCL_SUBSYSTEM_MANIP: h->fn.manip = h_manip; break;
            /* RNG, and a value no subsystem has in this version: refused at
               insertion */
            default: h->fn.binary = h_binary; break;
            }
        }
    }
    for (int i = 0; i < 4; i++) {
        l2[i].name = "fuzz_kernel";
        l2[i].fn = k_pass;
    }
}

static void op_hook(reader *r)
{
    uint8_t what = u8(r);
    int s = (int)pick(r, NCL_SUBSYSTEM_COUNT + 1);  /* one past the end is refused */
    int j = (int)pick(r, 2);
    NclHook *h = s < NCL_SUBSYSTEM_COUNT ? &l1[s][j] : &l1[0][j];
    switch (what % 8) {
    case 0: check_status(NclApiHook((NclSubsystem)s, &h->list), "NclApiHook"); break;
    case 1: {
        int where = (int)pick(r, 5);  /* 4 is not a position */
        NclListHead *anchor = NULL;
        if (s < NCL_SUBSYSTEM_COUNT && u8(r) & 1) anchor = &l1[s][1 - j].list;
        check_status(NclApiHookAt((NclSubsystem)s, &h->list, where, anchor), "NclApiHookAt");
        break;
    }
    case 2: check_status(NclApiUnhook(&h->list), "NclApiUnhook"); break;
    case 3: check_status(NclApiUnhookDeferred(&h->list, on_reclaim, NULL), "NclApiUnhookDeferred");
        break;
    case 4:
        if (s < NCL_SUBSYSTEM_COUNT) atomic_store(&l1_self_remove[s][j], 1);
        break;
    case 5: {
        /* A level-2 node on a signature chosen from the bytes: most have no
           kernel and are refused with NCL_ERR_DTYPE. */
        int k = (int)pick(r, 4);
        NclDType sig[4];
        static const NclSubsystem ksubs[] = { NCL_SUBSYSTEM_BINARY, NCL_SUBSYSTEM_UNARY,
                                              NCL_SUBSYSTEM_COMPARE, NCL_SUBSYSTEM_CONVERT,
                                              NCL_SUBSYSTEM_ISUNARY, NCL_SUBSYSTEM_TERNARY,
                                              NCL_SUBSYSTEM_REDUCE, NCL_SUBSYSTEM_SORT,
                                              NCL_SUBSYSTEM_MASK, NCL_SUBSYSTEM_CREATE };
        NclSubsystem ks = ksubs[pick(r, sizeof ksubs / sizeof ksubs[0])];
        int op = (int)pick(r, 40) - 2;
        uint8_t same = u8(r);
        for (int i = 0; i < 4; i++) sig[i] = (NclDType)(same & 1 ? same % 12 : pick(r, 12));
        if (same == 0x80) sig[0] = NCL_FLOAT64, sig[1] = NCL_FLOAT64, sig[2] = NCL_FLOAT64;
        check_status(NclKernelHook(ks, op, sig, &l2[k].list), "NclKernelHook");
        break;
    }
    case 6: {
        int k = (int)pick(r, 4);
        uint8_t m = u8(r);
        if (m % 3 == 0) check_status(NclKernelUnhook(&l2[k].list), "NclKernelUnhook");
        else if (m % 3 == 1)
            check_status(NclApiUnhookDeferred(&l2[k].list, on_reclaim, NULL), "NclApiUnhookDeferred");
        else atomic_store(&l2_self_remove[k], 1);
        break;
    }
    default: check_status(NclHooksReset(), "NclHooksReset"); break;
    }
}

/* ---- arrays ----------------------------------------------------------------------- */

static NclDType any_dtype(reader *r)
{
    uint8_t k = u8(r);
    if (k >= 250) return (NclDType)(k == 250 ? -1 : k == 251 ? 11 : k == 252 ? -7 : 1000);
    return (NclDType)(k % NCL_NTYPES);
}

static NclDType valid_dtype(reader *r) { return (NclDType)pick(r, NCL_NTYPES); }

/* A wrapped array over the pool: strides and offset from the bytes, moved
   inside the pool when they would reach out of it. */
static void op_wrap(reader *r)
{
    NclDType dt = valid_dtype(r);
    int64_t w = (int64_t)NclDTypeSize(dt);
    int nd = (int)pick(r, 5);
    int64_t sh[4], st[4];
    uint8_t mode = u8(r);
    for (int i = 0; i < nd; i++) sh[i] = pick(r, 7);
    for (int i = 0; i < nd; i++) {
        switch (pick(r, 6)) {
        case 0: st[i] = 0; break;
        case 1: st[i] = w * ((int64_t)pick(r, 9) - 4); break;
        case 2: st[i] = (int64_t)(int8_t)u8(r); break;  /* misaligned too */
        default: {
            int64_t inner = w;  /* C order from here down */
            for (int k = i + 1; k < nd; k++) inner *= sh[k] ? sh[k] : 1;
            st[i] = inner;
            break;
        }
        }
    }
    int64_t lo = 0, hi = 0;
    for (int i = 0; i < nd; i++) {
        if (sh[i] == 0) { lo = hi = 0; break; }
        int64_t span = st[i] * (sh[i] - 1);
        if (span < 0) lo += span;
        else hi += span;
    }
    int64_t room = POOL_BYTES - (hi - lo) - w;
    if (room < 0) return;  /* cannot fit: nothing to wrap */
    int64_t off = -lo + (int64_t)(u16(r) % (uint64_t)(room + 1));
    uint32_t flags = mode & 1 ? NCL_ARRAY_WRITEABLE : 0;
    NclArray *a = NULL;
    NclStatus s = check_status(NclFromData(dt, nd, sh, (mode & 2) ? NULL : st, pool + off, flags,
                                           NULL, NULL, &a), "NclFromData");
    if (s != NCL_OK) {
        /* C order (NULL strides) can overrun the pool where the chosen
           strides did not; that is the one refusal the layout allows. */
        if (!(mode & 2)) fail("NclFromData refused a layout inside its buffer", NclLastError());
        return;
    }
    if (mode & 2) {
        /* with NULL strides the C-order span was not checked above */
        int64_t n = size_of(nd, sh);
        if (off + n * w > POOL_BYTES) {
            NclArrayRelease(a);
            return;
        }
    }
    put_slot(a, "NclFromData");
}

/* Shapes that must be refused: negative extents, ndim out of range,
   element counts or byte extents past int64. */
static void op_hostile(reader *r)
{
    int64_t sh[NCL_MAXDIMS + 2], st[NCL_MAXDIMS + 2];
    uint8_t kind = u8(r);
    int nd = 1 + (int)pick(r, 4);
    for (int i = 0; i < NCL_MAXDIMS + 2; i++) {
        sh[i] = i < 4 ? 1 + (int64_t)pick(r, 3) : 1 + i % 3;
        st[i] = 8;
    }
    switch (kind % 6) {
    case 0: sh[pick(r, (unsigned)nd)] = -1 - (int64_t)pick(r, 3); break;
    case 1: sh[0] = INT64_MAX; sh[1] = 2 + (int64_t)pick(r, 5); nd = nd < 2 ? 2 : nd; break;
    case 2: nd = NCL_MAXDIMS + 1 + (int)pick(r, 2); break;
    case 3: nd = -1 - (int)pick(r, 3); break;
    case 4:  /* 2**62 elements of 8 bytes: the count fits, the bytes do not */
        sh[0] = (int64_t)1 << 62;
        nd = 1;
        break;
    default:  /* a product that wraps to a small number */
        sh[0] = (int64_t)1 << 32;
        sh[1] = (int64_t)1 << 32;
        sh[2] = 0;
        nd = 3;
        break;
    }
    NclArray *a = NULL;
    NclStatus s;
    uint8_t via = u8(r);
    /* int8 with 2**62 elements is a valid request for 4 EiB: not asked */
    if (kind % 6 == 4 && via % 3 == 1) via = 0;
    if (via % 3 == 0)
        s = check_status(NclFromData(NCL_FLOAT64, nd, sh, NULL, pool, 0, NULL, NULL, &a),
                         "NclFromData(hostile)");
    else if (via % 3 == 1)
        s = check_status(NclEmpty(NCL_INT8 + (NclDType)pick(r, 10), nd, sh, &a), "NclEmpty(hostile)");
    else
        s = check_status(NclZeros(NCL_FLOAT64, nd, sh, &a), "NclZeros(hostile)");
    if (s != NCL_ERR_SHAPE) fail("a hostile shape was not refused with NCL_ERR_SHAPE", NclLastError());
    if (a != NULL) fail("a refused call wrote *out", "");
    (void)st;
}

/* Hostile and small valid strided wraps whose extents the target cannot
   check exactly (huge extents with zero strides are valid and need no
   memory). */
static void op_huge_zero_stride(reader *r)
{
    int64_t sh[3], st[3] = { 0, 0, 0 };
    sh[0] = (int64_t)1 << (20 + pick(r, 42));
    sh[1] = 1 + (int64_t)pick(r, 3);
    sh[2] = (int64_t)1 << 30;
    int nd = 1 + (int)pick(r, 3);
    NclArray *a = NULL;
    NclStatus s = check_status(NclFromData(valid_dtype(r), nd, sh, st, pool, 0, NULL, NULL, &a),
                               "NclFromData(huge)");
    if (s == NCL_OK) put_slot(a, "NclFromData(huge)");
}

static void op_create(reader *r)
{
    NclCreateParams p = NCL_CREATE_PARAMS_INIT;
    int64_t sh[4];
    NclCreateOp op = (NclCreateOp)pick(r, NCL_CREATE_NOPS + 1);
    p.dtype = any_dtype(r);
    p.ndim = (int)pick(r, 4);
    for (int i = 0; i < 4; i++) sh[i] = (int64_t)pick(r, 9) - (u8(r) == 7);
    p.shape = sh;
    p.order = (NclOrder)pick(r, 3);
    double value[2];
    uint64_t bits = u64(r);
    memcpy(&value[0], &bits, sizeof bits);
    value[1] = 0;
    p.value = (u8(r) & 7) ? value : NULL;
    static const double reals[] = { 0, 1, -1, 2.5, -3.25, 7, 100, 1e300, -1e300, INFINITY, -INFINITY,
                                    NAN, 0.1, 1e-300, 1024, -0.0 };
    p.start = reals[pick(r, 16)];
    p.stop = reals[pick(r, 16)];
    p.step = reals[pick(r, 16)];
    p.num = u8(r) < 200 ? (int64_t)pick(r, 40) - 2 : small_or_edge(r);
    p.endpoint = (int)pick(r, 3) - 1;
    p.k = small_or_edge(r);
    p.src = get_slot(r);
    uint8_t sz = u8(r);
    p.size = sz < 240 ? (uint32_t)sizeof p : (uint32_t)(sz % 16) * 8;

    /* Keep the result small: sizes beyond CAP are only tried where they
       must be refused before anything is allocated. */
    int64_t n = 1;
    switch (op) {
    case NCL_CREATE_ARANGE: {
        double c = (p.stop - p.start) / p.step;
        if (isfinite(c) && c > CAP) return;
        break;
    }
    case NCL_CREATE_LINSPACE: {
        /* Past CAP only counts whose bytes overflow (they must be refused
           before any allocation). An invalid dtype counts as one byte. */
        int64_t w = p.dtype == NCL_DTYPE_DEFAULT ? 8 : (int64_t)NclDTypeSize(p.dtype);
        if (w == 0) w = 1;
        if (p.num > CAP && p.num <= INT64_MAX / w) return;
        break;
    }
    case NCL_CREATE_EYE:
        if (p.ndim >= 1 && sh[0] > 0 && sh[p.ndim >= 2] > 0 && sh[0] * sh[p.ndim >= 2] > CAP) return;
        break;
    case NCL_CREATE_COPY:
        if (p.src != NULL && NclArraySize(p.src) > CAP) return;
        break;
    default:
        n = size_of(p.ndim, sh);
        if (n > CAP) return;
        break;
    }
    NclArray *out = NULL;
    NclStatus s = check_status(NclCreate(op, &p, &out), "NclCreate");
    if (s == NCL_OK) put_slot(out, "NclCreate");
    else if (out != NULL) fail("a refused NclCreate wrote *out", NclLastError());
}

static void op_view(reader *r)
{
    NclArray *a = get_slot(r);
    if (a == NULL) return;
    int nd = NclArrayNDim(a);
    NclArray *v = NULL;
    NclStatus s = NCL_OK;
    const char *call = "view";
    switch (pick(r, 5)) {
    case 0: {
        int64_t start[NCL_MAXDIMS], stop[NCL_MAXDIMS], step[NCL_MAXDIMS];
        for (int i = 0; i < nd; i++) {
            start[i] = small_or_edge(r);
            stop[i] = small_or_edge(r);
            step[i] = small_or_edge(r);
            if (u8(r) < 64) start[i] = INT64_MIN;  /* "none" */
        }
        uint8_t which = u8(r);
        call = "NclArraySlice";
        s = check_status(NclArraySlice(a, which & 1 ? start : NULL, which & 2 ? stop : NULL,
                                       which & 4 ? step : NULL, &v), call);
        break;
    }
    case 1: {
        int axes[NCL_MAXDIMS];
        for (int i = 0; i < nd; i++) axes[i] = i;
        for (int i = nd - 1; i > 0; i--) {
            int j = (int)pick(r, (unsigned)i + 1);
            int t = axes[i];
            axes[i] = axes[j];
            axes[j] = t;
        }
        uint8_t bad = u8(r);
        if (nd > 0 && bad < 32) axes[bad % nd] = (int)(int8_t)u8(r);  /* repeated / out of range */
        if (nd > 0 && bad >= 32 && bad < 64) axes[bad % nd] -= nd;    /* negative, still valid */
        call = "NclArrayTranspose";
        s = check_status(NclArrayTranspose(a, bad >= 240 ? NULL : axes, &v), call);
        break;
    }
    case 2: {
        if (NclArraySize(a) > CAP) return;  /* a reshape may copy */
        int64_t sh[8];
        int nnd = (int)pick(r, 5);
        for (int i = 0; i < nnd; i++) sh[i] = (int64_t)pick(r, 7) - 1;
        uint8_t bad = u8(r);
        if (nnd > 0 && bad > 200) sh[bad % nnd] = small_or_edge(r);
        call = "NclArrayReshape";
        s = check_status(NclArrayReshape(a, bad == 17 ? NCL_MAXDIMS + 1 : nnd, sh, &v), call);
        break;
    }
    case 3: {
        int64_t sh[8];
        int nnd = (int)pick(r, 6);
        for (int i = 0; i < nnd; i++) sh[i] = (int64_t)pick(r, 5);
        uint8_t bad = u8(r);
        if (nnd > 0 && bad > 220) sh[bad % nnd] = small_or_edge(r);
        /* Broadcast views need no memory, but a later call on a huge one
           is skipped by small_enough. */
        call = "NclArrayBroadcastTo";
        s = check_status(NclArrayBroadcastTo(a, nnd, sh, &v), call);
        break;
    }
    default:
        if (NclArraySize(a) > CAP) return;
        call = "NclCopy";
        s = check_status(NclCopy(a, &v), call);
        break;
    }
    if (s == NCL_OK) put_slot(v, call);
    else if (v != NULL) fail("a refused view wrote *out", call);
}

/* ---- calls ------------------------------------------------------------------------ */

static int axes_buf[8];
static uint8_t initial_buf[16] __attribute__((aligned(16)));

static void fill_params(reader *r, NclParams *p)
{
    *p = (NclParams)NCL_PARAMS_INIT;
    uint8_t flags = u8(r);
    if (flags & 1) p->where = get_slot(r);
    if (flags & 2) p->dtype = any_dtype(r);
    if (flags & 4) p->casting = (NclCasting)((int)pick(r, 7) - 1);
    if (flags & 8) {
        p->naxes = (int)pick(r, 5);
        for (int i = 0; i < p->naxes; i++) {
            uint8_t k = u8(r);
            axes_buf[i] = k >= 250 ? (k & 1 ? INT32_MIN : INT32_MAX) : (int)(int8_t)k % 6;
        }
        p->axes = u8(r) == 99 ? NULL : axes_buf;
        if (u8(r) == 98) p->naxes = -1;
    }
    if (flags & 16) p->keepdims = (int)pick(r, 3);
    if (flags & 32) {
        for (size_t i = 0; i < sizeof initial_buf; i++) initial_buf[i] = u8(r);
        p->initial = initial_buf;
    }
    if (flags & 64) {
        p->kind = (int)pick(r, 4) - 1;
        p->kth = small_or_edge(r);
    }
    if (flags & 128) {
        uint8_t sz = u8(r);
        p->size = sz % 4 == 0 ? 0 : sz % 4 == 1 ? (uint32_t)offsetof(NclParams, casting)
                  : sz % 4 == 2 ? (uint32_t)offsetof(NclParams, kind) : (uint32_t)sizeof *p;
    }
}

/* The output: allocated (NULL), an existing slot (possibly an input, a view
   overlapping one, read-only, or the wrong shape). */
static NclArray *choose_out(reader *r, int *provided)
{
    uint8_t k = u8(r);
    *provided = 0;
    if (k < 128) return NULL;
    NclArray *o = slots[k % NSLOTS];
    *provided = o != NULL;
    return o;
}

static void finish_call(NclStatus s, NclArray *out, NclArray *given, int provided, const char *call)
{
    check_status(s, call);
    if (provided) {
        if (out != given) fail("a provided *out was replaced", call);
        check_in_pool(out, call);
        touch(out);
        return;
    }
    /* NCL_ERR_FLOATING_POINT (an error mode of RAISE) too: a provided
       output has been written, an allocated one is released (ncl/fpe.h). */
    if (s != NCL_OK) {
        if (out != NULL) fail("a refused call wrote *out", call);
        return;
    }
    put_slot(out, call);
}

static void op_call(reader *r, uint8_t which)
{
    NclParams p;
    NclArray *a = get_slot(r), *b = get_slot(r), *c = get_slot(r);
    int provided;
    NclArray *given = choose_out(r, &provided);
    NclArray *out = given;
    int op = (int)pick(r, 36);
    if (u8(r) == 200) op = (int)(int8_t)u8(r);  /* out of range now and then */
    fill_params(r, &p);
    const NclParams *pp = u8(r) == 3 ? NULL : &p;
    NclStatus s;
    const char *call;
    switch (which) {
    case 0:
        if (!small_enough(a, given, p.where, NULL)) return;
        call = "NclConvert";
        s = NclConvert((NclConvertOp)(op % 3), a, &out, pp);
        break;
    case 1:
        if (!small_enough(a, b, given, p.where)) return;
        call = "NclCompare";
        s = NclCompare((NclCompareOp)(op % 7), a, b, &out, pp);
        break;
    case 2:
        if (!small_enough(a, given, p.where, NULL)) return;
        call = "NclIsUnary";
        s = NclIsUnary((NclIsUnaryOp)(op % 5), a, &out, pp);
        break;
    case 3:
        if (!small_enough(a, given, p.where, NULL)) return;
        call = "NclUnary";
        s = NclUnary((NclUnaryOp)op, a, &out, pp);
        break;
    case 4:
        if (!small_enough(a, b, given, p.where)) return;
        call = "NclBinary";
        s = NclBinary((NclBinaryOp)(op % 25), a, b, &out, pp);
        break;
    case 5:
        if (!small_enough(a, b, c, given) || !small_enough(a, b, c, p.where)) return;
        call = "NclTernary";
        s = NclTernary((NclTernaryOp)(op % 4), a, b, c, &out, pp);
        break;
    case 6:
        if (!small_enough(a, p.where, NULL, NULL) || (given && NclArraySize(given) > CAP)) return;
        call = "NclReduce";
        s = NclReduce((NclReduceOp)(op % 13), a, &out, pp);
        break;
    case 7:
        if (!small_enough(a, NULL, NULL, NULL) || (given && NclArraySize(given) > CAP)) return;
        call = "NclSort";
        s = NclSort((NclSortOp)(op % 5), a, &out, pp);
        break;
    default: {
        if (!small_enough(a, NULL, NULL, NULL) || !small_enough(b, NULL, NULL, NULL)) return;
        if (given && NclArraySize(given) > CAP) return;
        NclMaskOp mop = (NclMaskOp)(op % 5);
        /* PUT's mask is broadcast to the target; TAKE's result is a's shape
           with one axis replaced by b's */
        if (mop == NCL_MASK_PUT && !small_enough(a, given, NULL, NULL)) return;
        if (mop == NCL_MASK_TAKE && a && b && NclArraySize(a) * NclArraySize(b) > 16 * CAP) return;
        call = "NclMask";
        s = NclMask(mop, a, b, &out, pp);
        break;
    }
    }
    finish_call(s, out, given, provided, call);
}

static void err_callback(int category, const char *where, void *user)
{
    (void)user;
    if (where == NULL || (category & ~NCL_FPE_ALL) != 0) fail("bad FP error callback", where);
}

static void op_misc(reader *r)
{
    switch (pick(r, 8)) {
    case 0: check_status(NclSetErrMode((int)pick(r, 20), (NclErrMode)pick(r, 4)), "NclSetErrMode"); break;
    case 1: NclSetErrCallback(u8(r) & 1 ? err_callback : NULL, NULL); break;
    case 2: check_status(NclSetAccuracy((NclAccuracy)pick(r, 3)), "NclSetAccuracy"); break;
    case 3: check_status(NclLedgerEnable((int)pick(r, 2)), "NclLedgerEnable"); break;
    case 4: {
        char buf[256];
        size_t need = 0, cap = u8(r);
        check_status(NclLedgerReport(cap ? buf : NULL, cap, &need), "NclLedgerReport");
        break;
    }
    case 5: {
        static char buf[1 << 15];
        size_t need = 0, cap = (size_t)u16(r) % sizeof buf;
        NclStatus s = check_status(NclInfo(cap ? buf : NULL, cap, &need), "NclInfo");
        if (s == NCL_OK && strlen(buf) + 1 > cap) fail("NclInfo overran its buffer", "");
        break;
    }
    case 6: {
        uint8_t k = u8(r);
        if (k < NSLOTS && slots[k]) {
            NclArrayRelease(slots[k]);
            slots[k] = NULL;
        }
        break;
    }
    default:
        /* new values under every view of the pool */
        for (int i = 0; i < 8; i++) pool[u16(r) % POOL_BYTES] = u8(r);
        break;
    }
}

/* ---- the entry points -------------------------------------------------------------- */

static void cleanup_input(void)
{
    for (int i = 0; i < NSLOTS; i++) {
        NclArrayRelease(slots[i]);
        slots[i] = NULL;
    }
    if (NclHooksReset() != NCL_OK) fail("NclHooksReset failed between inputs", NclLastError());
    for (int s = 0; s < NCL_SUBSYSTEM_COUNT; s++)
        for (int j = 0; j < 2; j++) atomic_store(&l1_self_remove[s][j], 0);
    for (int i = 0; i < 4; i++) atomic_store(&l2_self_remove[i], 0);
    NclLedgerEnable(0);
    NclSetErrMode(NCL_FPE_ALL, NCL_ERRMODE_IGNORE);
    NclSetErrCallback(NULL, NULL);
    NclSetAccuracy(NCL_ACCURACY_HIGH);
    NclMemStats st;
    NclMemAccountingStats(acc, &st);
    if (st.live_blocks != 0 || st.live_bytes != 0) {
        char msg[128];
        snprintf(msg, sizeof msg, "%zu blocks, %zu bytes", st.live_blocks, st.live_bytes);
        fail("array memory leaked by an input", msg);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    pool = aligned_alloc(64, POOL_BYTES);
    if (pool == NULL || NclMemAccountingCreate(NULL, &acc) != NCL_OK) abort();
    NclDataMem_SetHandler(NclMemAccountingHandler(acc));
    hooks_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (in_input) abort();
    in_input = 1;
    reader r = { data, size };
    /* The pool starts as the first bytes of the input repeated: NaNs,
       infinities and integer extremes come from the fuzzer's dictionary of
       byte patterns rather than from a fixed table. */
    for (size_t i = 0; i < POOL_BYTES; i++) pool[i] = size ? data[i % size] : 0;
    for (int step = 0; step < MAX_STEPS && r.n > 0; step++) {
        uint8_t opcode = u8(&r);
        switch (opcode % 16) {
        case 0: case 1: op_wrap(&r); break;
        case 2: op_hostile(&r); break;
        case 3: op_create(&r); break;
        case 4: op_view(&r); break;
        case 5: op_huge_zero_stride(&r); break;
        case 6: op_hook(&r); break;
        case 7: op_misc(&r); break;
        default: op_call(&r, (uint8_t)(opcode % 16 - 8)); break;
        }
    }
    cleanup_input();
    in_input = 0;
    return 0;
}
