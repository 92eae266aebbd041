/*
 * test_array_tag.c: the tag every NclArray carries (ncl/array.h). A pointer
 * to readable memory that is not an array (a zeroed or random buffer,
 * another NCLib object), passed wherever an array is expected, is refused
 * with NCL_ERR_INVALID_ARGUMENT and a message naming the function and the
 * parameter, and nothing is written: every entry point that takes an
 * array, in every position, from one table. The accessors that return no
 * status return what they return for NULL and leave the message. A
 * released array is refused the same way, checked only where reading freed
 * memory is not itself an error (not under a sanitizer or Valgrind).
 */
#include "ncl_test.h"

/* ---- foreign objects ------------------------------------------------------------ */

enum { FOREIGN_BYTES = 512 };
static _Alignas(64) unsigned char zeroed[FOREIGN_BYTES];
static _Alignas(64) unsigned char noise[FOREIGN_BYTES];
static unsigned char noise_copy[FOREIGN_BYTES];

typedef enum foreign { F_ZEROED, F_NOISE, F_NOISE_ODD, F_RNGGEN, F_HANDLER, NFOREIGN } foreign;
static const char *const foreign_name[NFOREIGN] = {
    "a zeroed buffer", "a random buffer", "a random buffer, misaligned", "an NclRngGen",
    "the default NclMemHandler"};

static NclRngGen *gen_obj;
static unsigned char gen_state[4096];
static size_t gen_state_size;

static void foreign_setup(void)
{
    memset(zeroed, 0, sizeof zeroed);
    uint64_t st = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < sizeof noise; i++) noise[i] = (unsigned char)ncl_test_rand(&st);
    memcpy(noise_copy, noise, sizeof noise);
    NclSeedSequence *ss = NULL;
    const uint32_t seed = 12345;
    NCL_CHECK_OK(NclSeedSequenceCreate(&seed, 1, NULL, 0, &ss));
    NCL_CHECK_OK(NclRngGenCreate(NCL_BITGEN_PCG64, ss, &gen_obj));
    NclSeedSequenceFree(ss);
    NCL_CHECK_OK(NclRngGenGetState(gen_obj, gen_state, sizeof gen_state, &gen_state_size));
}

static void foreign_teardown(void)
{
    NclRngGenFree(gen_obj);
    gen_obj = NULL;
}

static NclArray *foreign_ptr(foreign f)
{
    switch (f) {
    case F_ZEROED: return (NclArray *)(void *)zeroed;
    case F_NOISE: return (NclArray *)(void *)noise;
    case F_NOISE_ODD: return (NclArray *)(void *)(noise + 3);
    case F_RNGGEN: return (NclArray *)(void *)gen_obj;
    default: return (NclArray *)(uintptr_t)(const void *)NclMemDefaultHandler();
    }
}

/* Fails unless the foreign objects are as foreign_setup left them. */
static void foreign_unchanged(const char *what)
{
    for (size_t i = 0; i < sizeof zeroed; i++)
        ck_assert_msg(zeroed[i] == 0, "%s: the zeroed buffer was written", what);
    ck_assert_msg(memcmp(noise, noise_copy, sizeof noise) == 0,
                  "%s: the random buffer was written", what);
    unsigned char now[sizeof gen_state];
    size_t n = 0;
    NCL_CHECK_OK(NclRngGenGetState(gen_obj, now, sizeof now, &n));
    ck_assert_msg(n == gen_state_size && memcmp(now, gen_state, n) == 0,
                  "%s: the NclRngGen was changed", what);
}

/* ---- the entry points -------------------------------------------------------------- */

/* Hook nodes, one per subsystem with a chain, linked while the Next
   functions are called: they pass every call on. */
static NclHook nodes[NCL_SUBSYSTEM_COUNT];

static NclStatus pass_create(NclHook *self, NclCreateOp op, const NclCreateParams *p,
                             NclArray **out)
{
    return NclCreateNext(self, op, p, out);
}
static NclStatus pass_convert(NclHook *self, NclConvertOp op, const NclArray *a, NclArray **out,
                              const NclParams *p)
{
    return NclConvertNext(self, op, a, out, p);
}
static NclStatus pass_compare(NclHook *self, NclCompareOp op, const NclArray *a,
                              const NclArray *b, NclArray **out, const NclParams *p)
{
    return NclCompareNext(self, op, a, b, out, p);
}
static NclStatus pass_isunary(NclHook *self, NclIsUnaryOp op, const NclArray *a, NclArray **out,
                              const NclParams *p)
{
    return NclIsUnaryNext(self, op, a, out, p);
}
static NclStatus pass_unary(NclHook *self, NclUnaryOp op, const NclArray *a, NclArray **out,
                            const NclParams *p)
{
    return NclUnaryNext(self, op, a, out, p);
}
static NclStatus pass_binary(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                             NclArray **out, const NclParams *p)
{
    return NclBinaryNext(self, op, a, b, out, p);
}
static NclStatus pass_ternary(NclHook *self, NclTernaryOp op, const NclArray *a,
                              const NclArray *b, const NclArray *c, NclArray **out,
                              const NclParams *p)
{
    return NclTernaryNext(self, op, a, b, c, out, p);
}
static NclStatus pass_reduce(NclHook *self, NclReduceOp op, const NclArray *a, NclArray **out,
                             const NclParams *p)
{
    return NclReduceNext(self, op, a, out, p);
}
static NclStatus pass_sort(NclHook *self, NclSortOp op, const NclArray *a, NclArray **out,
                           const NclParams *p)
{
    return NclSortNext(self, op, a, out, p);
}
static NclStatus pass_mask(NclHook *self, NclMaskOp op, const NclArray *a, const NclArray *b,
                           NclArray **out, const NclParams *p)
{
    return NclMaskNext(self, op, a, b, out, p);
}
static NclStatus pass_rng(NclHook *self, NclRngOp op, NclRngGen *gen, const NclArray *a,
                          const NclArray *b, NclArray **out, const NclParams *p)
{
    return NclRngNext(self, op, gen, a, b, out, p);
}

static NclStatus pass_linalg(NclHook *self, NclLinalgOp op, const NclArray *a,
                             const NclArray *b, NclArray **out, const NclParams *p)
{
    return NclLinalgNext(self, op, a, b, out, p);
}
static NclStatus pass_manip(NclHook *self, NclManipOp op, int nin, const NclArray *const *in,
                            NclArray **out, const NclParams *p)
{
    return NclManipNext(self, op, nin, in, out, p);
}

static void node_link(NclSubsystem s)
{
    NclHook *h = &nodes[s];
    memset(h, 0, sizeof *h);
    h->name = "test_array_tag pass";
    switch (s) {
    case NCL_SUBSYSTEM_CREATE: h->fn.create = pass_create; break;
    case NCL_SUBSYSTEM_CONVERT: h->fn.convert = pass_convert; break;
    case NCL_SUBSYSTEM_COMPARE: h->fn.compare = pass_compare; break;
    case NCL_SUBSYSTEM_ISUNARY: h->fn.isunary = pass_isunary; break;
    case NCL_SUBSYSTEM_UNARY: h->fn.unary = pass_unary; break;
    case NCL_SUBSYSTEM_BINARY: h->fn.binary = pass_binary; break;
    case NCL_SUBSYSTEM_TERNARY: h->fn.ternary = pass_ternary; break;
    case NCL_SUBSYSTEM_REDUCE: h->fn.reduce = pass_reduce; break;
    case NCL_SUBSYSTEM_SORT: h->fn.sort = pass_sort; break;
    case NCL_SUBSYSTEM_MASK: h->fn.mask = pass_mask; break;
    case NCL_SUBSYSTEM_RNG: h->fn.rng = pass_rng; break;
    case NCL_SUBSYSTEM_LINALG: h->fn.linalg = pass_linalg; break;
    case NCL_SUBSYSTEM_MANIP: h->fn.manip = pass_manip; break;
    default: ck_abort_msg("no node for subsystem %d", (int)s);
    }
    NCL_CHECK_OK(NclApiHook(s, &h->list));
}

/* A call: in[] the input arrays in their positions, out the output
   pointer (an NclArray ** for the array functions, a DLPack or Arrow
   pointer for the exports), p the params (where set or not). With next,
   the call is made through the Next function of the node linked on the
   entry's subsystem. */
typedef NclStatus (*call_fn)(int next, const NclArray *const *in, NclArray **out,
                             const NclParams *p);

#define NODE(s) (&nodes[NCL_SUBSYSTEM_##s])

/* Manip takes its inputs as a list: in[0] and in[1] are its in[0] and
   in[1]. */
static NclStatus c_manip(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    return next ? NclManipNext(NODE(MANIP), NCL_CONCATENATE, 2, in, out, p)
                : NclManip(NCL_CONCATENATE, 2, in, out, p);
}
static NclStatus c_convert(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    return next ? NclConvertNext(NODE(CONVERT), NCL_CONVERT_ASTYPE, in[0], out, p)
                : NclConvert(NCL_CONVERT_ASTYPE, in[0], out, p);
}
static NclStatus c_compare(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    return next ? NclCompareNext(NODE(COMPARE), NCL_CMP_LT, in[0], in[1], out, p)
                : NclCompare(NCL_CMP_LT, in[0], in[1], out, p);
}
static NclStatus c_isunary(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    return next ? NclIsUnaryNext(NODE(ISUNARY), NCL_IS_NAN, in[0], out, p)
                : NclIsUnary(NCL_IS_NAN, in[0], out, p);
}
static NclStatus c_unary(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    return next ? NclUnaryNext(NODE(UNARY), NCL_NEGATIVE, in[0], out, p)
                : NclUnary(NCL_NEGATIVE, in[0], out, p);
}
static NclStatus c_binary(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    return next ? NclBinaryNext(NODE(BINARY), NCL_ADD, in[0], in[1], out, p)
                : NclBinary(NCL_ADD, in[0], in[1], out, p);
}
/* The n-slot entries, with a one-output op (the second slot of a
   two-output op is test_two_outputs' case). */
static NclStatus c_unaryn(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    return next ? NclUnaryNext(NODE(UNARY), NCL_NEGATIVE, in[0], out, p)
                : NclUnaryN(NCL_NEGATIVE, in[0], 1, out, p);
}
static NclStatus c_binaryn(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    return next ? NclBinaryNext(NODE(BINARY), NCL_ADD, in[0], in[1], out, p)
                : NclBinaryN(NCL_ADD, in[0], in[1], 1, out, p);
}
static NclStatus c_ternary(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    return next ? NclTernaryNext(NODE(TERNARY), NCL_CLIP, in[0], in[1], in[2], out, p)
                : NclTernary(NCL_CLIP, in[0], in[1], in[2], out, p);
}
static NclStatus c_reduce(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    return next ? NclReduceNext(NODE(REDUCE), NCL_SUM, in[0], out, p)
                : NclReduce(NCL_SUM, in[0], out, p);
}
static NclStatus c_sort(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    return next ? NclSortNext(NODE(SORT), NCL_SORT, in[0], out, p)
                : NclSort(NCL_SORT, in[0], out, p);
}
static NclStatus c_mask(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    return next ? NclMaskNext(NODE(MASK), NCL_MASK_TAKE, in[0], in[1], out, p)
                : NclMask(NCL_MASK_TAKE, in[0], in[1], out, p);
}
static NclStatus c_rng(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    return next ? NclRngNext(NODE(RNG), NCL_RNG_UNIFORM, gen_obj, in[0], in[1], out, p)
                : NclRng(NCL_RNG_UNIFORM, gen_obj, in[0], in[1], out, p);
}
static NclStatus c_linalg(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    return next ? NclLinalgNext(NODE(LINALG), NCL_DOT, in[0], in[1], out, p)
                : NclLinalg(NCL_DOT, in[0], in[1], out, p);
}
static NclStatus c_create_copy(int next, const NclArray *const *in, NclArray **out,
                               const NclParams *p)
{
    (void)p;
    NclCreateParams cp = NCL_CREATE_PARAMS_INIT;
    cp.src = in[0];
    return next ? NclCreateNext(NODE(CREATE), NCL_CREATE_COPY, &cp, out)
                : NclCreate(NCL_CREATE_COPY, &cp, out);
}
static NclStatus c_copy(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    (void)next, (void)p;
    return NclCopy(in[0], out);
}
static NclStatus c_slice(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    (void)next, (void)p;
    return NclArraySlice(in[0], NULL, NULL, NULL, out);
}
static NclStatus c_transpose(int next, const NclArray *const *in, NclArray **out,
                             const NclParams *p)
{
    (void)next, (void)p;
    return NclArrayTranspose(in[0], NULL, out);
}
static NclStatus c_reshape(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    (void)next, (void)p;
    return NclArrayReshape(in[0], 2, NCL_DIMS(3, 1), out);
}
static NclStatus c_broadcast(int next, const NclArray *const *in, NclArray **out,
                             const NclParams *p)
{
    (void)next, (void)p;
    return NclArrayBroadcastTo(in[0], 2, NCL_DIMS(2, 3), out);
}
/* The exports: out is really where the export goes (a DLPack pointer, or
   an Arrow schema and array pair). */
static NclStatus c_dlpack(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    (void)next, (void)p;
    return NclToDLPack(in[0], (DLManagedTensorVersioned **)(void *)out);
}
static NclStatus c_dlpack_legacy(int next, const NclArray *const *in, NclArray **out,
                                 const NclParams *p)
{
    (void)next, (void)p;
    return NclToDLPackLegacy(in[0], (DLManagedTensor **)(void *)out);
}
typedef struct arrow_pair {
    struct ArrowSchema schema;
    struct ArrowArray array;
} arrow_pair;
static arrow_pair arrow_out;
static NclStatus c_arrow(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    (void)next, (void)p, (void)out;
    return NclToArrow(in[0], in[1], &arrow_out.schema, &arrow_out.array);
}

/* Element access, printing and saving: their results are not arrays. */
static NclStatus c_getitem(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    (void)next, (void)p, (void)out;
    double v = 0;
    return NclArrayGetItem(in[0], NCL_DIMS(1), &v);
}
static NclStatus c_setitem(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    (void)next, (void)p, (void)out;
    const double v = 1.5;
    return NclArraySetItem((NclArray *)in[0], NCL_DIMS(1), &v);
}
static NclStatus c_format(int next, const NclArray *const *in, NclArray **out, const NclParams *p)
{
    (void)next, (void)p, (void)out;
    char buf[256];
    size_t len = 0;
    return NclArrayFormat(in[0], buf, sizeof buf, &len);
}
#define TAG_NPY "test_array_tag.npy"
static NclStatus c_save_npy(int next, const NclArray *const *in, NclArray **out,
                            const NclParams *p)
{
    (void)next, (void)p, (void)out;
    return NclSaveNpy(in[0], TAG_NPY);
}

/* What an entry's result is, for the cleanup after a call that succeeds. */
typedef enum result { R_ARRAY, R_DLPACK, R_DLPACK_LEGACY, R_ARROW, R_NONE, R_FILE } result;

typedef struct entry {
    const char *who;        /* the message's function, as "NclBinary(add)" */
    const char *next_who;   /* with next: "NclBinaryNext(add)"; NULL: no Next */
    NclSubsystem sub;       /* the chain the Next goes through */
    call_fn call;
    int nin;                /* input positions */
    const char *in_name[3]; /* their names in messages */
    NclDType in_dtype[3];   /* the inputs: shape (3) of these dtypes */
    NclDType out_dtype;     /* a provided *out: shape out_n of this dtype; */
    int64_t out_n;          /*   out_n 0: *out is never read */
    int where;              /* 1: params->where is read (0: not tried) */
    int where_ok;           /* a real where mask is accepted */
    result res;
} entry;

#define F64 NCL_FLOAT64
#define I64 NCL_INT64
#define BOOL NCL_BOOL
static const entry entries[] = {
    {"NclConvert(astype)", "NclConvertNext(astype)", NCL_SUBSYSTEM_CONVERT, c_convert, 1,
     {"a"}, {F64}, F64, 3, 1, 1, R_ARRAY},
    {"NclCompare(less)", "NclCompareNext(less)", NCL_SUBSYSTEM_COMPARE, c_compare, 2,
     {"a", "b"}, {F64, F64}, BOOL, 3, 1, 1, R_ARRAY},
    {"NclIsUnary(isnan)", "NclIsUnaryNext(isnan)", NCL_SUBSYSTEM_ISUNARY, c_isunary, 1,
     {"a"}, {F64}, BOOL, 3, 1, 1, R_ARRAY},
    {"NclUnary(negative)", "NclUnaryNext(negative)", NCL_SUBSYSTEM_UNARY, c_unary, 1, {"a"},
     {F64}, F64, 3, 1, 1, R_ARRAY},
    {"NclBinary(add)", "NclBinaryNext(add)", NCL_SUBSYSTEM_BINARY, c_binary, 2, {"a", "b"},
     {F64, F64}, F64, 3, 1, 1, R_ARRAY},
    {"NclUnaryN(negative)", "NclUnaryNext(negative)", NCL_SUBSYSTEM_UNARY, c_unaryn, 1, {"a"},
     {F64}, F64, 3, 1, 1, R_ARRAY},
    {"NclBinaryN(add)", "NclBinaryNext(add)", NCL_SUBSYSTEM_BINARY, c_binaryn, 2, {"a", "b"},
     {F64, F64}, F64, 3, 1, 1, R_ARRAY},
    {"NclTernary(clip)", "NclTernaryNext(clip)", NCL_SUBSYSTEM_TERNARY, c_ternary, 3,
     {"a", "b", "c"}, {F64, F64, F64}, F64, 3, 1, 1, R_ARRAY},
    {"NclReduce(sum)", "NclReduceNext(sum)", NCL_SUBSYSTEM_REDUCE, c_reduce, 1, {"a"}, {F64},
     F64, -1, 1, 1, R_ARRAY},
    {"NclSort(sort)", "NclSortNext(sort)", NCL_SUBSYSTEM_SORT, c_sort, 1, {"a"}, {F64}, F64, 3,
     1, 0, R_ARRAY},
    {"NclMask(take)", "NclMaskNext(take)", NCL_SUBSYSTEM_MASK, c_mask, 2, {"a", "b"},
     {F64, I64}, F64, 3, 1, 0, R_ARRAY},
    {"NclRng(uniform)", "NclRngNext(uniform)", NCL_SUBSYSTEM_RNG, c_rng, 2, {"a", "b"},
     {F64, F64}, F64, 3, 1, 0, R_ARRAY},
    {"NclLinalg(dot)", "NclLinalgNext(dot)", NCL_SUBSYSTEM_LINALG, c_linalg, 2, {"a", "b"},
     {F64, F64}, F64, -1, 1, 0, R_ARRAY},
    {"NclManip(concatenate)", "NclManipNext(concatenate)", NCL_SUBSYSTEM_MANIP, c_manip, 2,
     {"in[0]", "in[1]"}, {F64, F64}, F64, 6, 1, 0, R_ARRAY},
    {"NclCreate(copy)", "NclCreateNext(copy)", NCL_SUBSYSTEM_CREATE, c_create_copy, 1,
     {"params->src"}, {F64}, F64, 0, 0, 0, R_ARRAY},
    {"NclCreate(copy)", NULL, NCL_SUBSYSTEM_CREATE, c_copy, 1, {"params->src"}, {F64}, F64, 0,
     0, 0, R_ARRAY},
    {"NclArraySlice", NULL, NCL_SUBSYSTEM_CREATE, c_slice, 1, {"a"}, {F64}, F64, 0, 0, 0,
     R_ARRAY},
    {"NclArrayTranspose", NULL, NCL_SUBSYSTEM_CREATE, c_transpose, 1, {"a"}, {F64}, F64, 0, 0,
     0, R_ARRAY},
    {"NclArrayReshape", NULL, NCL_SUBSYSTEM_CREATE, c_reshape, 1, {"a"}, {F64}, F64, 0, 0, 0,
     R_ARRAY},
    {"NclArrayBroadcastTo", NULL, NCL_SUBSYSTEM_CREATE, c_broadcast, 1, {"a"}, {F64}, F64, 0, 0,
     0, R_ARRAY},
    {"NclToDLPack", NULL, NCL_SUBSYSTEM_CREATE, c_dlpack, 1, {"a"}, {F64}, F64, 0, 0, 0,
     R_DLPACK},
    {"NclToDLPackLegacy", NULL, NCL_SUBSYSTEM_CREATE, c_dlpack_legacy, 1, {"a"}, {F64}, F64, 0,
     0, 0, R_DLPACK_LEGACY},
    {"NclToArrow", NULL, NCL_SUBSYSTEM_CREATE, c_arrow, 2, {"a", "valid"}, {F64, BOOL}, F64, 0,
     0, 0, R_ARROW},
    {"NclArrayGetItem", NULL, NCL_SUBSYSTEM_CREATE, c_getitem, 1, {"a"}, {F64}, F64, 0, 0, 0,
     R_NONE},
    {"NclArraySetItem", NULL, NCL_SUBSYSTEM_CREATE, c_setitem, 1, {"a"}, {F64}, F64, 0, 0, 0,
     R_NONE},
    {"NclArrayFormat", NULL, NCL_SUBSYSTEM_CREATE, c_format, 1, {"a"}, {F64}, F64, 0, 0, 0,
     R_NONE},
    {"NclSaveNpy", NULL, NCL_SUBSYSTEM_CREATE, c_save_npy, 1, {"a"}, {F64}, F64, 0, 0, 0,
     R_FILE},
};
#define NENTRIES ((int)(sizeof entries / sizeof entries[0]))

/* The positions of a call: its inputs, then *out, then params->where. */
enum { POS_OUT = 3, POS_WHERE = 4, NPOS = 5 };

static int has_pos(const entry *e, int pos)
{
    if (pos < 3) return pos < e->nin;
    if (pos == POS_OUT) return e->out_n != 0;
    return e->where;
}

static const char *pos_name(const entry *e, int pos)
{
    return pos < 3 ? e->in_name[pos] : pos == POS_OUT ? "*out" : "params->where";
}

/* The good arguments of a call of e. */
typedef struct args {
    NclArray *in[3];
    NclArray *prov;  /* a provided output, or NULL */
    NclArray *where; /* a bool mask of the inputs' shape */
} args;

static void args_make(const entry *e, args *g)
{
    memset(g, 0, sizeof *g);
    for (int i = 0; i < e->nin; i++) {
        if (e->in_dtype[i] == I64) g->in[i] = ncl_test_arr(I64, 1, NCL_DIMS(3), 0, 2, 1);
        else if (e->in_dtype[i] == BOOL) g->in[i] = ncl_test_arr(BOOL, 1, NCL_DIMS(3), 1, 0, 1);
        else g->in[i] = ncl_test_arr(F64, 1, NCL_DIMS(3), i, i + 0.5, i + 0.75);
    }
    if (e->out_n > 0) g->prov = ncl_test_arr(e->out_dtype, 1, NCL_DIMS(e->out_n), 1);
    else if (e->out_n < 0) g->prov = ncl_test_arr(e->out_dtype, 0, NULL, 1);
    g->where = ncl_test_arr(BOOL, 1, NCL_DIMS(3), 1, 0, 1);
}

static void args_free(args *g)
{
    for (int i = 0; i < 3; i++) NclArrayRelease(g->in[i]);
    NclArrayRelease(g->prov);
    NclArrayRelease(g->where);
}

/* Drops what a successful call made. */
static void result_free(const entry *e, void *made)
{
    switch (e->res) {
    case R_ARRAY: NclArrayRelease((NclArray *)made); break;
    case R_DLPACK: {
        DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)made;
        if (m) m->deleter(m);
        break;
    }
    case R_DLPACK_LEGACY: {
        DLManagedTensor *m = (DLManagedTensor *)made;
        if (m) m->deleter(m);
        break;
    }
    case R_ARROW:
        if (arrow_out.array.release) arrow_out.array.release(&arrow_out.array);
        if (arrow_out.schema.release) arrow_out.schema.release(&arrow_out.schema);
        break;
    case R_NONE: break;
    case R_FILE: remove(TAG_NPY); break;
    }
}

/* Runs e with the good arguments, bad (or NULL for none) put in position
   pos, directly or through Next. Returns the status; *out_after receives
   what the output pointer held afterwards. */
static NclStatus run(const entry *e, int next, const args *g, int pos, NclArray *bad,
                     NclArray *out_before, NclArray **out_after)
{
    const NclArray *in[3] = {g->in[0], g->in[1], g->in[2]};
    NclParams p = NCL_PARAMS_INIT;
    NclArray *out = out_before;
    if (pos < 3) in[pos] = bad;
    else if (pos == POS_OUT) out = bad;
    else if (pos == POS_WHERE) p.where = bad;
    memset(&arrow_out, 0, sizeof arrow_out);
    const NclStatus s = e->call(next, in, &out, &p);
    *out_after = out;
    return s;
}

/* Every position of every entry, with each foreign object, directly and
   through Next; with *out NULL and with a provided output where the entry
   takes one. */
static void check_entry(const entry *e, int next)
{
    if (next) node_link(e->sub);
    const char *who = next ? e->next_who : e->who;
    args g;
    args_make(e, &g);
    char what[256];
    for (int pos = 0; pos < NPOS; pos++) {
        if (!has_pos(e, pos)) continue;
        /* The control: the same call with good arguments succeeds. */
        if (pos != POS_WHERE || e->where_ok) {
            NclArray *made = NULL;
            const NclStatus s = run(e, next, &g, pos,
                                    pos < 3 ? g.in[pos] : pos == POS_OUT ? g.prov : g.where,
                                    NULL, &made);
            ck_assert_msg(s == NCL_OK, "%s, %s good: %s (%s)", who, pos_name(e, pos),
                          NclStatusString(s), NclLastError());
            if (pos != POS_OUT) result_free(e, made);
            /* a good RNG call draws: its generator's state is the new
               reference */
            NCL_CHECK_OK(NclRngGenGetState(gen_obj, gen_state, sizeof gen_state,
                                           &gen_state_size));
        }
        for (int f = 0; f < NFOREIGN; f++) {
            /* *out NULL, then (where *out is read) a provided output */
            for (int provided = 0; provided < 2; provided++) {
                if (provided && (e->out_n == 0 || pos == POS_OUT)) continue;
                NclArray *const before = provided ? g.prov : NULL;
                const uint64_t h = g.prov ? ncl_test_hash(g.prov) : 0;
                snprintf(what, sizeof what, "%s with %s as %s%s", who, foreign_name[f],
                         pos_name(e, pos), provided ? ", output provided" : "");
                NclArray *after = NULL;
                const NclStatus s = run(e, next, &g, pos, foreign_ptr((foreign)f), before,
                                        &after);
                ck_assert_msg(s == NCL_ERR_INVALID_ARGUMENT, "%s: %s (%s)", what,
                              NclStatusString(s), NclLastError());
                const char *m = NclLastError();
                char want[96];
                snprintf(want, sizeof want, "%s is not an NclArray", pos_name(e, pos));
                ck_assert_msg(strstr(m, who) == m && strstr(m, want) != NULL,
                              "%s: message \"%s\" names neither %s nor %s", what, m, who,
                              want);
                if (pos == POS_OUT)
                    ck_assert_msg(after == foreign_ptr((foreign)f), "%s: *out changed", what);
                else if (e->res == R_ARRAY)
                    ck_assert_msg(after == before, "%s: *out changed", what);
                else if (e->res == R_ARROW)
                    ck_assert_msg(arrow_out.schema.release == NULL &&
                                  arrow_out.array.release == NULL,
                                  "%s: an export was made", what);
                else if (e->res == R_FILE) {
                    FILE *made = fopen(TAG_NPY, "rb");
                    if (made) fclose(made);
                    ck_assert_msg(made == NULL, "%s: a file was written", what);
                } else
                    ck_assert_msg(after == NULL, "%s: an export was made", what);
                if (g.prov)
                    ck_assert_msg(ncl_test_hash(g.prov) == h, "%s: the output was written",
                                  what);
                foreign_unchanged(what);
            }
        }
    }
    args_free(&g);
    if (next) NCL_CHECK_OK(NclApiUnhook(&nodes[e->sub].list));
}

START_TEST(t_entry_points)
{
    check_entry(&entries[_i], 0);
}
END_TEST

START_TEST(t_next_functions)
{
    if (entries[_i].next_who == NULL) return;
    check_entry(&entries[_i], 1);
}
END_TEST

/* ---- the accessors that return no status ------------------------------------------ */

/* Leaves a known message (a refused slice of NULL), to see whether a call
   replaces it. */
static const char *mark_error(void)
{
    NclArray *o = NULL;
    (void)NclArraySlice(NULL, NULL, NULL, NULL, &o);
    return "NclArraySlice: a is NULL";
}

/* Each accessor on x: what it returns for NULL, and the message. */
static void check_accessors(NclArray *x, const char *what)
{
#define ACCESSOR(fn, call, expect)                                                         \
    do {                                                                                   \
        (void)mark_error();                                                                \
        ck_assert_msg((call) == (expect), "%s: " #fn " did not return as for NULL", what); \
        ck_assert_msg(strstr(NclLastError(), #fn ": a is not an NclArray") ==             \
                          NclLastError(),                                                  \
                      "%s: " #fn " left the message \"%s\"", what, NclLastError());        \
    } while (0)
    ACCESSOR(NclArrayNDim, NclArrayNDim(x), 0);
    ACCESSOR(NclArrayShape, NclArrayShape(x), NULL);
    ACCESSOR(NclArrayStrides, NclArrayStrides(x), NULL);
    ACCESSOR(NclArrayDType, NclArrayDType(x), NCL_DTYPE_DEFAULT);
    ACCESSOR(NclArrayData, NclArrayData(x), NULL);
    ACCESSOR(NclArraySize, NclArraySize(x), 0);
    ACCESSOR(NclArrayFlags, NclArrayFlags(x), 0u);
    ACCESSOR(NclArrayMemKind, NclArrayMemKind(x), NCL_MEM_UNKNOWN);
    ACCESSOR(NclArrayDeviceId, NclArrayDeviceId(x), -1);
    ACCESSOR(NclArrayHandlerName, NclArrayHandlerName(x), NULL);
    ACCESSOR(NclArrayRetain, (NclArrayRetain(x), 0), 0);
    ACCESSOR(NclArrayRelease, (NclArrayRelease(x), 0), 0);
#undef ACCESSOR
}

START_TEST(t_accessors)
{
    for (int f = 0; f < NFOREIGN; f++) {
        check_accessors(foreign_ptr((foreign)f), foreign_name[f]);
        foreign_unchanged(foreign_name[f]);
    }
    /* NULL: the documented values, and the message left alone */
    const char *const mark = mark_error();
    ck_assert_int_eq(NclArrayNDim(NULL), 0);
    ck_assert_ptr_null(NclArrayShape(NULL));
    ck_assert_int_eq(NclArrayDeviceId(NULL), -1);
    NclArrayRetain(NULL);
    NclArrayRelease(NULL);
    ck_assert_str_eq(NclLastError(), mark);
    /* a live array: no message, and Retain/Release count */
    NclArray *a = ncl_test_arr(F64, 2, NCL_DIMS(2, 3), 1, 2, 3, 4, 5, 6);
    (void)mark_error();
    ck_assert_int_eq(NclArrayNDim(a), 2);
    ck_assert_int_eq(NclArraySize(a), 6);
    NclArrayRetain(a);
    NclArrayRelease(a);
    ck_assert_int_eq(NclArrayNDim(a), 2);
    ck_assert_str_eq(NclLastError(), mark);
    NclArrayRelease(a);
}
END_TEST

/* ---- released arrays ------------------------------------------------------------------ */

/* Not under a sanitizer, nor under Valgrind (which preloads its
   vgpreload_* libraries into the program it runs). */
static int freed_reads_allowed(void)
{
#if NCL_TEST_SANITIZED
    return 0;
#else
    const char *p = getenv("LD_PRELOAD");
    return p == NULL || strstr(p, "vgpreload") == NULL;
#endif
}

/* A released array, in every position of every entry and in every
   accessor. Nothing is allocated between the release and the call, so
   the block is not yet another array's. */
START_TEST(t_released_array)
{
    if (!freed_reads_allowed()) return;
    char what[256];
    for (int k = 0; k < NENTRIES; k++) {
        const entry *e = &entries[k];
        args g;
        args_make(e, &g);
        for (int pos = 0; pos < NPOS; pos++) {
            if (!has_pos(e, pos)) continue;
            NclArray *victim = ncl_test_arr(pos < 3 ? e->in_dtype[pos]
                                            : pos == POS_OUT ? e->out_dtype : BOOL,
                                            1, NCL_DIMS(3), 1);
            NclArray *dead = victim;
            NclArrayRelease(victim);
            NclArray *after = NULL;
            const NclStatus s = run(e, 0, &g, pos, dead, NULL, &after);
            snprintf(what, sizeof what, "%s with a released array as %s", e->who,
                     pos_name(e, pos));
            ck_assert_msg(s == NCL_ERR_INVALID_ARGUMENT, "%s: %s (%s)", what,
                          NclStatusString(s), NclLastError());
            NCL_CHECK_MESSAGE_HAS("is not an NclArray (a freed array, or another object)");
        }
        args_free(&g);
    }
    NclArray *victim = ncl_test_arr(F64, 1, NCL_DIMS(3), 1, 2, 3);
    NclArray *dead = victim;
    NclArrayRelease(victim);
    check_accessors(dead, "a released array");
}
END_TEST

/* ---- external arrays ---------------------------------------------------------------- */

/* An extension whose state counts its releases. */
typedef struct test_ext {
    NclArrayExt base;
    int *released;
} test_ext;

static void test_ext_release(NclArrayExt *self)
{
    test_ext *t = (test_ext *)(void *)self;
    ++*t->released;
    free(t);
}

/* n < 0: a 0-d array. */
static NclArray *ext_arr(NclDType dt, int64_t n, int *released)
{
    test_ext *t = malloc(sizeof *t);
    ck_assert_ptr_nonnull(t);
    t->base.name = "test";
    t->base.release = test_ext_release;
    t->released = released;
    NclArray *a = NULL;
    NCL_CHECK_OK(NclArrayFromExt(dt, n < 0 ? 0 : 1, &n, &t->base, &a));
    return a;
}

/* An external array in every position of every entry, directly and
   through Next: the library's own implementations and every call that
   reads elements refuse it with NCL_ERR_UNSUPPORTED naming the position,
   and write nothing. */
START_TEST(t_external_refused)
{
    const entry *e = &entries[_i];
    char what[256];
    int released = 0;
    args g;
    args_make(e, &g);
    for (int next = 0; next < 2; next++) {
        if (next && e->next_who == NULL) continue;
        if (next) node_link(e->sub);
        for (int pos = 0; pos < NPOS; pos++) {
            if (!has_pos(e, pos)) continue;
            NclArray *x = ext_arr(pos < 3 ? e->in_dtype[pos] : pos == POS_OUT ? e->out_dtype
                                                                                : BOOL,
                                  pos == POS_OUT && e->out_n ? e->out_n : 3, &released);
            for (int provided = 0; provided < 2; provided++) {
                if (provided && (e->out_n == 0 || pos == POS_OUT)) continue;
                NclArray *const before = provided ? g.prov : NULL;
                const uint64_t h = g.prov ? ncl_test_hash(g.prov) : 0;
                snprintf(what, sizeof what, "%s with an external array as %s%s",
                         next ? e->next_who : e->who, pos_name(e, pos),
                         provided ? ", output provided" : "");
                NclArray *after = NULL;
                const NclStatus s = run(e, next, &g, pos, x, before, &after);
                ck_assert_msg(s == NCL_ERR_UNSUPPORTED, "%s: %s (%s)", what, NclStatusString(s),
                              NclLastError());
                char want[96];
                snprintf(want, sizeof want, "%s is an external array", pos_name(e, pos));
                ck_assert_msg(strstr(NclLastError(), want) != NULL, "%s: message \"%s\"", what,
                              NclLastError());
                if (pos == POS_OUT) ck_assert_msg(after == x, "%s: *out changed", what);
                else if (e->res == R_ARRAY)
                    ck_assert_msg(after == before, "%s: *out changed", what);
                else if (e->res == R_FILE) {
                    FILE *made = fopen(TAG_NPY, "rb");
                    if (made) fclose(made);
                    ck_assert_msg(made == NULL, "%s: a file was written", what);
                }
                if (g.prov)
                    ck_assert_msg(ncl_test_hash(g.prov) == h, "%s: the output was written",
                                  what);
            }
            NclArrayRelease(x);
        }
        if (next) NCL_CHECK_OK(NclApiUnhook(&nodes[e->sub].list));
    }
    args_free(&g);
    ck_assert_int_gt(released, 0);
}
END_TEST

/* A hook in front of the chain sees the external array as it was passed. */
static const NclArray *seen_a;
static NclStatus take_binary(NclHook *self, NclBinaryOp op, const NclArray *a, const NclArray *b,
                             NclArray **out, const NclParams *p)
{
    if (NclArrayGetExt(a) == NULL) return NclBinaryNext(self, op, a, b, out, p);
    seen_a = a;
    return NCL_OK;
}

START_TEST(t_external_hooked)
{
    int released = 0;
    NclArray *x = ext_arr(F64, 3, &released);
    NclArray *y = ncl_test_arr(F64, 1, NCL_DIMS(3), 1, 2, 3);
    NclHook node = {.name = "take_ext", .fn.binary = take_binary};
    NCL_CHECK_OK(NclApiHook(NCL_SUBSYSTEM_BINARY, &node.list));
    NclArray *o = NULL;
    seen_a = NULL;
    NCL_CHECK_OK(NclBinary(NCL_ADD, x, y, &o, NULL));
    ck_assert_ptr_eq(seen_a, x);
    /* ordinary arrays still pass through */
    NCL_CHECK_OK(NclBinary(NCL_ADD, y, y, &o, NULL));
    ck_assert_ptr_nonnull(o);
    NclArrayRelease(o);
    NCL_CHECK_OK(NclApiUnhook(&node.list));
    NclArrayRelease(y);
    /* the accessors: what every array has, and NULL for the rest */
    ck_assert_int_eq(NclArrayNDim(x), 1);
    ck_assert_int_eq(NclArrayShape(x)[0], 3);
    ck_assert_int_eq(NclArraySize(x), 3);
    ck_assert_int_eq(NclArrayDType(x), F64);
    ck_assert_uint_eq(NclArrayFlags(x), NCL_ARRAY_EXTERNAL);
    ck_assert_ptr_nonnull(NclArrayGetExt(x));
    ck_assert_str_eq(NclArrayGetExt(x)->name, "test");
    ck_assert_ptr_null(NclArrayData(x));
    NCL_CHECK_MESSAGE_HAS("NclArrayData: a is an external array");
    ck_assert_ptr_null(NclArrayStrides(x));
    ck_assert_int_eq(NclArrayMemKind(x), NCL_MEM_UNKNOWN);
    /* references: the extension is released once, with the last one */
    NclArrayRetain(x);
    NclArrayRelease(x);
    ck_assert_int_eq(released, 0);
    NclArrayRelease(x);
    ck_assert_int_eq(released, 1);
    /* an ordinary array has no extension */
    NclArray *z = ncl_test_arr(F64, 1, NCL_DIMS(1), 1);
    ck_assert_ptr_null(NclArrayGetExt(z));
    NclArrayRelease(z);
}
END_TEST

START_TEST(t_external_bad_arguments)
{
    int released = 0;
    test_ext t = {{"test", test_ext_release}, &released};
    NclArray *o = NULL;
    const int64_t n = 4, neg = -1;
    ck_assert_int_eq(NclArrayFromExt(F64, 1, &n, &t.base, NULL), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(NclArrayFromExt(F64, 1, &n, NULL, &o), NCL_ERR_INVALID_ARGUMENT);
    test_ext noname = {{NULL, test_ext_release}, &released};
    ck_assert_int_eq(NclArrayFromExt(F64, 1, &n, &noname.base, &o), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("ext->name is NULL");
    test_ext norel = {{"test", NULL}, &released};
    ck_assert_int_eq(NclArrayFromExt(F64, 1, &n, &norel.base, &o), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(NclArrayFromExt((NclDType)99, 1, &n, &t.base, &o),
                     NCL_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(NclArrayFromExt(F64, 1, NULL, &t.base, &o), NCL_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(NclArrayFromExt(F64, 1, &neg, &t.base, &o), NCL_ERR_SHAPE);
    ck_assert_int_eq(NclArrayFromExt(F64, NCL_MAXDIMS + 1, &n, &t.base, &o), NCL_ERR_SHAPE);
    ck_assert_ptr_null(o);
    ck_assert_int_eq(released, 0);
}
END_TEST

static void tag_setup(void) { foreign_setup(); }
static void tag_teardown(void) { foreign_teardown(); }

static Suite *tag_suite(void)
{
    Suite *s = suite_create("array_tag");
    TCase *tc = ncl_test_tcase(s, "foreign");
    tcase_add_checked_fixture(tc, tag_setup, tag_teardown);
    tcase_add_loop_test(tc, t_entry_points, 0, NENTRIES);
    tcase_add_loop_test(tc, t_next_functions, 0, NENTRIES);
    tcase_add_test(tc, t_accessors);
    tc = ncl_test_tcase(s, "released");
    tcase_add_checked_fixture(tc, tag_setup, tag_teardown);
    tcase_add_test(tc, t_released_array);
    tc = ncl_test_tcase(s, "external");
    tcase_add_checked_fixture(tc, tag_setup, tag_teardown);
    tcase_add_loop_test(tc, t_external_refused, 0, NENTRIES);
    tcase_add_test(tc, t_external_hooked);
    tcase_add_test(tc, t_external_bad_arguments);
    return s;
}

NCL_TEST_MAIN(tag_suite)
