/*
 * python/ncl_numpy_core.c: ncl_numpy._core, the CPython extension that puts
 * NCLib underneath NumPy (1.22 .. 1.26): ufunc inner loops replaced with
 * PyUFunc_ReplaceLoopBySignature, the sort/argsort slots of the numeric
 * dtypes' ArrFuncs, and NCLib's allocator as NumPy's NEP 49 data handler.
 * Everything here uses NCLib's public API only; libncl.so stays Python-free.
 *
 * A replaced loop runs NCLib's level-2 chain of exactly the (op, signature)
 * NumPy chose on NumPy's one-dimensional loop, with NclKernelRun: a user's
 * NclKernelHook takes the call, else NCLib's kernel, split over NCLib's
 * pool from its threading threshold. NumPy's ufunc machinery is the front
 * end here, so no level-1 chain is crossed (the ledger still counts).
 *
 * NumPy's original loop is kept and runs instead when:
 *   - the call is shorter than the adapter's min_elements setting and no
 *     user's kernel hook is on the chain of the loop's (op, signature);
 *   - the output overlaps an input other than exactly (same pointer, stride
 *     and item size), which is NumPy's reduction pattern (output aliased to
 *     input 0 at stride 0) and accumulate (output one element ahead): their
 *     element order is sequential by definition and NumPy's own loop is
 *     kept for them, so sum/prod/accumulate are NumPy's bit for bit;
 *   - a signed integer power has a negative exponent (the original loop
 *     raises NumPy's own ValueError), or NCLib refuses the call.
 * Floating-point flags NCLib reports (from every worker, and its integer
 * division and overflow flags) are raised in the calling thread with
 * npy_set_floatstatus_*, where NumPy reads them after the loop.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define NPY_NO_DEPRECATED_API NPY_1_22_API_VERSION
#include <numpy/arrayobject.h>
#include <numpy/ufuncobject.h>
#include <numpy/npy_math.h>

#include <ncl.h>

/* ---- dtype mapping --------------------------------------------------------- */

/* NumPy type number -> NCLib dtype, or -1. Several NumPy numbers share one
   width (int/long/longlong), so the map goes through kind and item size. */
static int npy_to_ncl(int typenum)
{
    switch (typenum) {
    case NPY_BOOL: return NCL_BOOL;
    case NPY_FLOAT: return NCL_FLOAT32;
    case NPY_DOUBLE: return NCL_FLOAT64;
    default: break;
    }
    int size, is_signed;
    switch (typenum) {
    case NPY_BYTE: size = 1; is_signed = 1; break;
    case NPY_UBYTE: size = 1; is_signed = 0; break;
    case NPY_SHORT: size = sizeof(short); is_signed = 1; break;
    case NPY_USHORT: size = sizeof(short); is_signed = 0; break;
    case NPY_INT: size = sizeof(int); is_signed = 1; break;
    case NPY_UINT: size = sizeof(int); is_signed = 0; break;
    case NPY_LONG: size = sizeof(long); is_signed = 1; break;
    case NPY_ULONG: size = sizeof(long); is_signed = 0; break;
    case NPY_LONGLONG: size = sizeof(long long); is_signed = 1; break;
    case NPY_ULONGLONG: size = sizeof(long long); is_signed = 0; break;
    default: return -1;
    }
    switch (size) {
    case 1: return is_signed ? NCL_INT8 : NCL_UINT8;
    case 2: return is_signed ? NCL_INT16 : NCL_UINT16;
    case 4: return is_signed ? NCL_INT32 : NCL_UINT32;
    case 8: return is_signed ? NCL_INT64 : NCL_UINT64;
    default: return -1;
    }
}

static int ncl_to_npy(NclDType t)
{
    static const int map[NCL_NTYPES] = {
        NPY_BOOL, NPY_INT8, NPY_INT16, NPY_INT32, NPY_INT64,
        NPY_UINT8, NPY_UINT16, NPY_UINT32, NPY_UINT64, NPY_FLOAT32, NPY_FLOAT64,
    };
    return (t >= 0 && t < NCL_NTYPES) ? map[t] : -1;
}

/* ---- state ----------------------------------------------------------------- */

#define MAX_SLOTS 1024
#define MAX_OPERANDS 4                /* divmod: two inputs, two outputs */

typedef struct Slot {
    PyUFuncObject *ufunc;              /* strong reference while installed */
    int type_index;                    /* index into ufunc->types / functions */
    int typenums[MAX_OPERANDS];        /* NumPy's signature */
    NclDType sig[MAX_OPERANDS];        /* the same in NCLib's dtypes */
    NclSubsystem subsystem;
    int op;
    int nin, nout;
    int heavy;                         /* a transcendental: min_elements_heavy applies */
    int signed_power;                  /* power of a signed integer type */
    _Atomic unsigned long long hook_generation; /* NclHooksGeneration when hooked was read */
    atomic_int hooked;                 /* a user's kernel hook is on the slot's chain */
    PyUFuncGenericFunction original;   /* NumPy's loop, restored on uninstall */
    _Atomic unsigned long long ncl_calls, fallback_calls;
} Slot;

static Slot slots[MAX_SLOTS];
static int nslots;

/* Settings read by every loop call, possibly from threads NumPy runs
   without the GIL: plain atomics.
   A loop call costs some 100 ns more through NCLib than through NumPy's
   own loop, and NCLib's inner loops of the cheap operations are about as
   fast as NumPy's on one thread, so by default NCLib takes a call from
   where it splits it over threads (its threading threshold, which
   min_elements follows while it is FOLLOW_THRESHOLD); transcendental
   functions, whose NCLib kernels are faster on one thread too, from 16384
   (docs/NUMPY.md has the measurements). A loop whose chain a user has
   hooked sends every call to NCLib. set_min_elements(0) routes every call
   through NCLib. */
#define FOLLOW_THRESHOLD (-1LL)
#define DEFAULT_MIN_ELEMENTS_HEAVY 16384
static atomic_int loops_active;
static _Atomic long long min_elements = FOLLOW_THRESHOLD;
static _Atomic long long min_elements_heavy = DEFAULT_MIN_ELEMENTS_HEAVY;
/* NumPy's own sorts (AVX-512 quicksort included) are faster below a few
   thousand elements: measured crossover 4000-8000 for 64-bit keys. */
#define DEFAULT_MIN_ELEMENTS_SORT 8192
static _Atomic long long min_elements_sort = DEFAULT_MIN_ELEMENTS_SORT;

static int sort_installed, memory_installed, threads_installed;
static int saved_num_threads;
static PyObject *saved_mem_handler; /* capsule returned by PyDataMem_SetHandler */

/* ---- the loop -------------------------------------------------------------- */

static void raise_flags(int f)
{
    if (f & NCL_FPE_DIVIDE) npy_set_floatstatus_divbyzero();
    if (f & NCL_FPE_OVERFLOW) npy_set_floatstatus_overflow();
    if (f & NCL_FPE_UNDERFLOW) npy_set_floatstatus_underflow();
    if (f & NCL_FPE_INVALID) npy_set_floatstatus_invalid();
}

/* [lo, hi) bytes an operand of n elements of size sz at step touches. */
static void extent(const char *p, npy_intp n, npy_intp step, size_t sz, uintptr_t *lo,
                   uintptr_t *hi)
{
    intptr_t span = (intptr_t)(n - 1) * (intptr_t)step;
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)(p + span);
    if (span < 0) { uintptr_t t = a; a = b; b = t; }
    *lo = a;
    *hi = b + sz;
}

/* 1 when NCLib may run the call: every input either leaves each output's
   bytes alone or is exactly that output (same first element, step and
   item size), no output overlaps itself, and the outputs (divmod's,
   frexp's, modf's two) do not overlap each other. */
static int layout_ok(const Slot *s, char *const *args, npy_intp n, const npy_intp *steps)
{
    for (int o = s->nin; o < s->nin + s->nout; o++) {
        size_t osz = NclDTypeSize(s->sig[o]);
        if (n > 1 && (size_t)(steps[o] < 0 ? -steps[o] : steps[o]) < osz) return 0;
        uintptr_t olo, ohi;
        extent(args[o], n, steps[o], osz, &olo, &ohi);
        for (int i = 0; i < o; i++) {
            size_t isz = NclDTypeSize(s->sig[i]);
            if (i < s->nin && args[i] == args[o] && steps[i] == steps[o] && isz == osz) continue;
            uintptr_t lo, hi;
            extent(args[i], n, steps[i], isz, &lo, &hi);
            if (lo < ohi && olo < hi) return 0;
        }
    }
    return 1;
}

/* Runs the slot's (op, signature) through NCLib's level-2 chain: a user's
   kernel hook takes the call, which is split over NCLib's pool from its
   threading threshold. NCL_OK or NCLib's NCL_ERR_FLOATING_POINT (a RAISE
   mode the user set for this thread: the output is written) mean the
   output holds the result. */
static NclStatus run_ncl(const Slot *s, char *const *args, npy_intp n, const npy_intp *steps)
{
    int64_t st64[MAX_OPERANDS];
    for (int i = 0; i < s->nin + s->nout; i++) st64[i] = (int64_t)steps[i];
    return NclKernelRun(s->subsystem, s->op, s->sig, args, (int64_t)n, st64);
}

/* 1 when some exponent of a signed integer power is negative: NumPy's loop
   then raises its own ValueError. Checked here, before NCLib writes
   anything, because a split call could otherwise have written other
   chunks of an in-place output when NCLib's kernel refuses its chunk. */
static int negative_exponent(const Slot *s, char *const *args, npy_intp n, const npy_intp *steps)
{
    const char *p = args[1];
    for (npy_intp i = 0; i < n; i++, p += steps[1]) {
        switch (s->sig[1]) {
        case NCL_INT8: if (*(const int8_t *)p < 0) return 1; break;
        case NCL_INT16: { int16_t v; memcpy(&v, p, sizeof v); if (v < 0) return 1; break; }
        case NCL_INT32: { int32_t v; memcpy(&v, p, sizeof v); if (v < 0) return 1; break; }
        default: { int64_t v; memcpy(&v, p, sizeof v); if (v < 0) return 1; break; }
        }
    }
    return 0;
}

/* The length from which a cheap loop's calls go to NCLib. */
static long long loop_min_elements(void)
{
    long long m = atomic_load_explicit(&min_elements, memory_order_relaxed);
    return m == FOLLOW_THRESHOLD ? (long long)NclGetThreadingThreshold() : m;
}

/* Whether a user's kernel hook is on the slot's chain: asked of NCLib
   again only when its hook generation has moved. Threads racing here
   compute the same answer. */
static int slot_hooked(Slot *s)
{
    unsigned long long g = NclHooksGeneration();
    if (g != atomic_load_explicit(&s->hook_generation, memory_order_acquire)) {
        int hooked = 0;
        (void)NclKernelHooked(s->subsystem, s->op, s->sig, &hooked);
        atomic_store_explicit(&s->hooked, hooked, memory_order_relaxed);
        atomic_store_explicit(&s->hook_generation, g, memory_order_release);
        return hooked;
    }
    return atomic_load_explicit(&s->hooked, memory_order_relaxed);
}

static void run_slot(int k, char **args, npy_intp const *dims, npy_intp const *steps, void *data)
{
    Slot *s = &slots[k];
    npy_intp n = dims[0];
    if (n <= 0) return;
    if (atomic_load_explicit(&loops_active, memory_order_relaxed) &&
        (n >= (s->heavy ? atomic_load_explicit(&min_elements_heavy, memory_order_relaxed)
                        : loop_min_elements()) ||
         slot_hooked(s)) &&
        layout_ok(s, args, n, steps) &&
        !(s->signed_power && negative_exponent(s, args, n, steps))) {
        NclStatus st = run_ncl(s, args, n, steps);
        if (st == NCL_OK || st == NCL_ERR_FLOATING_POINT) {
            raise_flags(NclGetFPErrors());
            atomic_fetch_add_explicit(&s->ncl_calls, 1, memory_order_relaxed);
            return;
        }
    }
    atomic_fetch_add_explicit(&s->fallback_calls, 1, memory_order_relaxed);
    s->original(args, dims, steps, data);
}

/* One trampoline per slot: a replaced loop keeps NumPy's data pointer, so
   the function itself must say which slot it serves. Slot numbers are
   written in base 4, five digits (1024 slots). */
#define SLOT_NO(a, b, c, d, e) ((((a) * 4 + (b)) * 4 + (c)) * 4 + (d)) * 4 + (e)
#define L4(LEAF, a, b, c, d) LEAF(a, b, c, d, 0) LEAF(a, b, c, d, 1) LEAF(a, b, c, d, 2) LEAF(a, b, c, d, 3)
#define L3(LEAF, a, b, c) L4(LEAF, a, b, c, 0) L4(LEAF, a, b, c, 1) L4(LEAF, a, b, c, 2) L4(LEAF, a, b, c, 3)
#define L2(LEAF, a, b) L3(LEAF, a, b, 0) L3(LEAF, a, b, 1) L3(LEAF, a, b, 2) L3(LEAF, a, b, 3)
#define L1(LEAF, a) L2(LEAF, a, 0) L2(LEAF, a, 1) L2(LEAF, a, 2) L2(LEAF, a, 3)
#define ALL_SLOTS(LEAF) L1(LEAF, 0) L1(LEAF, 1) L1(LEAF, 2) L1(LEAF, 3)

#define DEFINE_TRAMPOLINE(a, b, c, d, e)                                                   \
    static void tramp_##a##b##c##d##e(char **args, npy_intp const *dims,                   \
                                      npy_intp const *steps, void *data)                   \
    {                                                                                      \
        run_slot(SLOT_NO(a, b, c, d, e), args, dims, steps, data);                         \
    }
ALL_SLOTS(DEFINE_TRAMPOLINE)
#define NAME_TRAMPOLINE(a, b, c, d, e) tramp_##a##b##c##d##e,
static const PyUFuncGenericFunction trampolines[MAX_SLOTS] = { ALL_SLOTS(NAME_TRAMPOLINE) };

/* ---- which loops ----------------------------------------------------------- */

typedef struct OpName {
    NclSubsystem subsystem;
    int op;
    const char *name;
    int nin;
} OpName;

static const OpName op_names[] = {
#define X_BIN(e, text) { NCL_SUBSYSTEM_BINARY, e, text, 2 },
    NCL_BINARY_OP_LIST(X_BIN)
#undef X_BIN
#define X_CMP(e, text) { NCL_SUBSYSTEM_COMPARE, e, text, 2 },
    NCL_COMPARE_OP_LIST(X_CMP)
#undef X_CMP
#define X_UN(e, text) { NCL_SUBSYSTEM_UNARY, e, text, 1 },
    NCL_UNARY_OP_LIST(X_UN)
#undef X_UN
#define X_IS(e, text) { NCL_SUBSYSTEM_ISUNARY, e, text, 1 },
    NCL_ISUNARY_OP_LIST(X_IS)
#undef X_IS
    /* NumPy's second ufuncs of the same functions (conj, mod and divide
       are the same objects as conjugate, remainder and true_divide) */
    { NCL_SUBSYSTEM_UNARY, NCL_DEG2RAD, "radians", 1 },
    { NCL_SUBSYSTEM_UNARY, NCL_RAD2DEG, "degrees", 1 },
};

/* 1 when NCLib has a level-2 kernel for (op, sig): an empty loop call
   checks exactly that. */
static int ncl_supports(NclSubsystem subsystem, int op, const NclDType *sig)
{
    return NclKernelRun(subsystem, op, sig, NULL, 0, NULL) == NCL_OK;
}

/* 0 for the loops whose element semantics NCLib defines differently from
   NumPy 1.24, which keep NumPy's loop: integer reciprocal (NumPy computes
   1.0 / x in double and casts back, so 1 / 0 gives the type's minimum and
   raises "invalid"; NCLib gives 0 and raises "divide"). */
static int same_semantics(const OpName *on, const NclDType *sig)
{
    if (on->subsystem == NCL_SUBSYSTEM_UNARY && on->op == NCL_RECIPROCAL &&
        sig[0] != NCL_FLOAT32 && sig[0] != NCL_FLOAT64)
        return 0;
    return 1;
}

/* Transcendental float functions: NCLib's kernels beat NumPy's from fewer
   elements. */
static int is_heavy(const OpName *on, const NclDType *sig)
{
    if (sig[0] != NCL_FLOAT32 && sig[0] != NCL_FLOAT64) return 0;
    if (on->subsystem == NCL_SUBSYSTEM_BINARY)
        return on->op == NCL_POWER || on->op == NCL_ARCTAN2 || on->op == NCL_HYPOT;
    if (on->subsystem != NCL_SUBSYSTEM_UNARY) return 0;
    switch (on->op) {
    case NCL_CBRT: case NCL_EXP: case NCL_EXP2: case NCL_EXPM1: case NCL_LOG: case NCL_LOG2:
    case NCL_LOG10: case NCL_LOG1P: case NCL_SIN: case NCL_COS: case NCL_TAN: case NCL_ARCSIN:
    case NCL_ARCCOS: case NCL_ARCTAN: case NCL_SINH: case NCL_COSH: case NCL_TANH:
    case NCL_ARCSINH: case NCL_ARCCOSH: case NCL_ARCTANH:
        return 1;
    default:
        return 0;
    }
}

static PyObject *umath_module(void)
{
    return PyImport_ImportModule("numpy.core.umath");
}

static void forget_slots(void)
{
    for (int k = 0; k < nslots; k++) Py_CLEAR(slots[k].ufunc);
    nslots = 0;
}

/* Fills slots[] with every (ufunc, signature) NCLib runs, once per process.
   The set depends on NumPy and NCLib only, so it is kept across
   install/uninstall. */
static int discover_slots(void)
{
    if (nslots > 0) return 0;
    PyObject *um = umath_module();
    if (um == NULL) return -1;
    for (size_t j = 0; j < sizeof op_names / sizeof op_names[0]; j++) {
        const OpName *on = &op_names[j];
        PyObject *obj = PyObject_GetAttrString(um, on->name);
        if (obj == NULL) { PyErr_Clear(); continue; }
        if (!PyObject_TypeCheck(obj, &PyUFunc_Type)) { Py_DECREF(obj); continue; }
        PyUFuncObject *uf = (PyUFuncObject *)obj;
        int nargs = uf->nin + uf->nout;
        if (uf->nin != on->nin || uf->nout != NclOpOutputs(on->subsystem, on->op) ||
            uf->core_enabled) {
            Py_DECREF(obj);
            continue;
        }
        for (int t = 0; t < uf->ntypes; t++) {
            int typenums[MAX_OPERANDS];
            NclDType sig[MAX_OPERANDS];
            int ok = 1, duplicate = 0;
            for (int i = 0; i < nargs; i++) {
                typenums[i] = (unsigned char)uf->types[t * nargs + i];
                int d = npy_to_ncl(typenums[i]);
                if (d < 0) { ok = 0; break; }
                sig[i] = (NclDType)d;
            }
            if (!ok) continue;
            /* NumPy lists a few signatures twice; the first is the one its
               selector takes and the one ReplaceLoopBySignature replaces. */
            for (int k = 0; k < nslots && !duplicate; k++)
                duplicate = slots[k].ufunc == uf &&
                            memcmp(slots[k].typenums, typenums, sizeof(int) * nargs) == 0;
            if (duplicate || !same_semantics(on, sig) ||
                !ncl_supports(on->subsystem, on->op, sig))
                continue;
            if (nslots == MAX_SLOTS) break;
            Slot *s = &slots[nslots++];
            memset(s, 0, sizeof *s);
            Py_INCREF(obj);
            s->ufunc = uf;
            s->type_index = t;
            memcpy(s->typenums, typenums, sizeof typenums);
            memcpy(s->sig, sig, sizeof sig);
            s->subsystem = on->subsystem;
            s->op = on->op;
            s->nin = on->nin;
            s->nout = uf->nout;
            s->heavy = is_heavy(on, sig);
            s->signed_power = on->subsystem == NCL_SUBSYSTEM_BINARY && on->op == NCL_POWER &&
                              (sig[1] == NCL_INT8 || sig[1] == NCL_INT16 ||
                               sig[1] == NCL_INT32 || sig[1] == NCL_INT64);
        }
        Py_DECREF(obj);
    }
    Py_DECREF(um);
    return 0;
}

static int install_loops(void)
{
    if (discover_slots() < 0) return -1;
    for (int k = 0; k < nslots; k++) {
        Slot *s = &slots[k];
        PyUFuncGenericFunction old = NULL;
        if (PyUFunc_ReplaceLoopBySignature(s->ufunc, trampolines[k], s->typenums, &old) < 0) {
            /* Undo what was replaced so far: all or nothing. */
            for (int j = 0; j < k; j++) {
                PyUFuncGenericFunction mine;
                PyUFunc_ReplaceLoopBySignature(slots[j].ufunc, slots[j].original,
                                               slots[j].typenums, &mine);
            }
            PyErr_Format(PyExc_RuntimeError, "ncl_numpy: NumPy refused to replace the loop %s "
                         "of %s", s->ufunc->types ? "" : "?", s->ufunc->name);
            return -1;
        }
        s->original = old;
    }
    atomic_store(&loops_active, 1);
    return 0;
}

static void uninstall_loops(void)
{
    atomic_store(&loops_active, 0);
    for (int k = 0; k < nslots; k++) {
        PyUFuncGenericFunction mine = NULL;
        PyUFunc_ReplaceLoopBySignature(slots[k].ufunc, slots[k].original, slots[k].typenums,
                                       &mine);
    }
}

/* ---- sort ------------------------------------------------------------------ */

/* NumPy type numbers whose ArrFuncs sort/argsort slots are replaced. */
static const int sort_types[] = {
    NPY_BOOL, NPY_BYTE, NPY_UBYTE, NPY_SHORT, NPY_USHORT, NPY_INT, NPY_UINT,
    NPY_LONG, NPY_ULONG, NPY_LONGLONG, NPY_ULONGLONG, NPY_FLOAT, NPY_DOUBLE,
};
#define NSORT_TYPES ((int)(sizeof sort_types / sizeof sort_types[0]))

static PyArray_SortFunc *orig_sort[NSORT_TYPES][NPY_NSORTS];
static PyArray_ArgSortFunc *orig_argsort[NSORT_TYPES][NPY_NSORTS];
static _Atomic unsigned long long sort_ncl_calls, sort_fallback_calls;

static int kind_of(int which)
{
    return which == NPY_MERGESORT ? NCL_SORT_STABLE : NCL_SORT_DEFAULT;
}

/* Sorts num contiguous elements at start in place. */
static int ncl_sort(int ti, int which, void *start, npy_intp num, void *arr)
{
    if (num < atomic_load_explicit(&min_elements_sort, memory_order_relaxed)) {
        atomic_fetch_add(&sort_fallback_calls, 1);
        return orig_sort[ti][which](start, num, arr);
    }
    if (num > 1) {
        NclDType d = (NclDType)npy_to_ncl(sort_types[ti]);
        int64_t n = num;
        NclArray *a = NULL;
        NclStatus st = NclFromData(d, 1, &n, NULL, start, NCL_ARRAY_WRITEABLE, NULL, NULL, &a);
        if (st == NCL_OK) {
            NclParams p = NCL_PARAMS_INIT;
            p.kind = kind_of(which);
            NclArray *out = a;
            st = NclSort(NCL_SORT, a, &out, &p);
        }
        NclArrayRelease(a);
        if (st != NCL_OK) {
            atomic_fetch_add(&sort_fallback_calls, 1);
            return orig_sort[ti][which](start, num, arr);
        }
    }
    atomic_fetch_add(&sort_ncl_calls, 1);
    return 0;
}

/* NumPy hands argsort the indices to permute; they are 0..num-1 for
   np.argsort, but lexsort passes the permutation of earlier keys, which only
   NumPy's own function honours. */
static int ncl_argsort(int ti, int which, void *vv, npy_intp *tosort, npy_intp num, void *arr)
{
    int identity = sizeof(npy_intp) == sizeof(int64_t) &&
                   num >= atomic_load_explicit(&min_elements_sort, memory_order_relaxed);
    for (npy_intp i = 0; i < num && identity; i++) identity = tosort[i] == i;
    if (!identity) {
        atomic_fetch_add(&sort_fallback_calls, 1);
        return orig_argsort[ti][which](vv, tosort, num, arr);
    }
    if (num > 1) {
        NclDType d = (NclDType)npy_to_ncl(sort_types[ti]);
        int64_t n = num;
        NclArray *a = NULL, *idx = NULL;
        NclStatus st = NclFromData(d, 1, &n, NULL, vv, 0, NULL, NULL, &a);
        if (st == NCL_OK)
            st = NclFromData(NCL_INT64, 1, &n, NULL, tosort, NCL_ARRAY_WRITEABLE, NULL, NULL, &idx);
        if (st == NCL_OK) {
            NclParams p = NCL_PARAMS_INIT;
            p.kind = kind_of(which);
            NclArray *out = idx;
            st = NclSort(NCL_ARGSORT, a, &out, &p);
        }
        NclArrayRelease(a);
        NclArrayRelease(idx);
        if (st != NCL_OK) {
            for (npy_intp i = 0; i < num; i++) tosort[i] = i;
            atomic_fetch_add(&sort_fallback_calls, 1);
            return orig_argsort[ti][which](vv, tosort, num, arr);
        }
    }
    atomic_fetch_add(&sort_ncl_calls, 1);
    return 0;
}

#define SORT_FUNCS(ti)                                                                     \
    static int sort_##ti##_0(void *s, npy_intp n, void *a) { return ncl_sort(ti, 0, s, n, a); } \
    static int sort_##ti##_1(void *s, npy_intp n, void *a) { return ncl_sort(ti, 1, s, n, a); } \
    static int sort_##ti##_2(void *s, npy_intp n, void *a) { return ncl_sort(ti, 2, s, n, a); } \
    static int asort_##ti##_0(void *v, npy_intp *t, npy_intp n, void *a)                   \
    { return ncl_argsort(ti, 0, v, t, n, a); }                                             \
    static int asort_##ti##_1(void *v, npy_intp *t, npy_intp n, void *a)                   \
    { return ncl_argsort(ti, 1, v, t, n, a); }                                             \
    static int asort_##ti##_2(void *v, npy_intp *t, npy_intp n, void *a)                   \
    { return ncl_argsort(ti, 2, v, t, n, a); }
#define SORT_TYPE_LIST(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12)
SORT_TYPE_LIST(SORT_FUNCS)
#define SORT_ROW(ti) { sort_##ti##_0, sort_##ti##_1, sort_##ti##_2 },
#define ASORT_ROW(ti) { asort_##ti##_0, asort_##ti##_1, asort_##ti##_2 },
static PyArray_SortFunc *const my_sort[NSORT_TYPES][NPY_NSORTS] = { SORT_TYPE_LIST(SORT_ROW) };
static PyArray_ArgSortFunc *const my_argsort[NSORT_TYPES][NPY_NSORTS] = {
    SORT_TYPE_LIST(ASORT_ROW)
};

static PyArray_ArrFuncs *arrfuncs_of(int typenum)
{
    PyArray_Descr *d = PyArray_DescrFromType(typenum);
    if (d == NULL) return NULL;
    PyArray_ArrFuncs *f = d->f; /* the builtin descriptors are immortal singletons */
    Py_DECREF(d);
    return f;
}

static int install_sort(void)
{
    for (int ti = 0; ti < NSORT_TYPES; ti++) {
        if (arrfuncs_of(sort_types[ti]) == NULL) return -1;
    }
    for (int ti = 0; ti < NSORT_TYPES; ti++) {
        PyArray_ArrFuncs *f = arrfuncs_of(sort_types[ti]);
        for (int w = 0; w < NPY_NSORTS; w++) {
            orig_sort[ti][w] = f->sort[w];
            orig_argsort[ti][w] = f->argsort[w];
            if (f->sort[w] != NULL) f->sort[w] = my_sort[ti][w];
            if (f->argsort[w] != NULL) f->argsort[w] = my_argsort[ti][w];
        }
    }
    return 0;
}

static void uninstall_sort(void)
{
    for (int ti = 0; ti < NSORT_TYPES; ti++) {
        PyArray_ArrFuncs *f = arrfuncs_of(sort_types[ti]);
        if (f == NULL) { PyErr_Clear(); continue; }
        for (int w = 0; w < NPY_NSORTS; w++) {
            f->sort[w] = orig_sort[ti][w];
            f->argsort[w] = orig_argsort[ti][w];
        }
    }
}

/* ---- NEP 49 memory ------------------------------------------------------------ */

/* NumPy keeps a pointer to the handler in every array it allocates, so the
   handler is static and never changes while an array made with it lives:
   it is filled once, from NCLib's handler current at the first install.

   In front of NCLib's allocator sits a cache of freed small blocks like
   NumPy's own default handler has (up to SMALL_CACHE_BLOCKS blocks of each
   size below SMALL_CACHE_BYTES): without it np.empty(100) measured 125-130 ns
   against 116-117 ns with it. NumPy calls a data handler only with the GIL
   held: its own default handler keeps such a cache without a lock (and its
   calloc releases the GIL around large allocations, which needs it held).
   This cache relies on the same rule, without checking it (PyGILState_Check
   is a thread-local lookup: 3.5 % of np.empty(8) in a profile). Every block in
   it came from NCLib's malloc with that size, so it goes back to NCLib's
   free with the size NCLib expects. */
#define SMALL_CACHE_BYTES 1024
#define SMALL_CACHE_BLOCKS 7
static PyDataMem_Handler ncl_mem_handler;
static PyObject *ncl_mem_capsule;
static NclMemAllocator ncl_inner;
static struct { int n; void *p[SMALL_CACHE_BLOCKS]; } small_cache[SMALL_CACHE_BYTES];

static void *cached_malloc(void *ctx, size_t size)
{
    (void)ctx;
    if (size > 0 && size < SMALL_CACHE_BYTES && small_cache[size].n > 0)
        return small_cache[size].p[--small_cache[size].n];
    return ncl_inner.malloc(ncl_inner.ctx, size);
}

static void *cached_calloc(void *ctx, size_t nelem, size_t elsize)
{
    (void)ctx;
    size_t size = nelem * elsize;
    if (elsize != 0 && size / elsize == nelem && size > 0 && size < SMALL_CACHE_BYTES &&
        small_cache[size].n > 0) {
        void *p = small_cache[size].p[--small_cache[size].n];
        memset(p, 0, size);
        return p;
    }
    return ncl_inner.calloc(ncl_inner.ctx, nelem, elsize);
}

static void *cached_realloc(void *ctx, void *ptr, size_t new_size)
{
    (void)ctx;
    return ncl_inner.realloc(ncl_inner.ctx, ptr, new_size);
}

static void cached_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    if (ptr != NULL && size > 0 && size < SMALL_CACHE_BYTES &&
        small_cache[size].n < SMALL_CACHE_BLOCKS) {
        small_cache[size].p[small_cache[size].n++] = ptr;
        return;
    }
    ncl_inner.free(ncl_inner.ctx, ptr, size);
}

static PyObject *mem_capsule(void)
{
    if (ncl_mem_capsule == NULL) {
        const NclMemHandler *h = NclDataMem_GetHandler();
        if (h == NULL) h = NclMemDefaultHandler();
        ncl_inner = h->allocator;
        memset(&ncl_mem_handler, 0, sizeof ncl_mem_handler);
        snprintf(ncl_mem_handler.name, sizeof ncl_mem_handler.name, "%s", h->name);
        ncl_mem_handler.version = 1;
        ncl_mem_handler.allocator.ctx = NULL;
        ncl_mem_handler.allocator.malloc = cached_malloc;
        ncl_mem_handler.allocator.calloc = cached_calloc;
        ncl_mem_handler.allocator.realloc = cached_realloc;
        ncl_mem_handler.allocator.free = cached_free;
        ncl_mem_capsule = PyCapsule_New(&ncl_mem_handler, "mem_handler", NULL);
    }
    return ncl_mem_capsule;
}

static int install_memory(void)
{
    PyObject *cap = mem_capsule();
    if (cap == NULL) return -1;
    PyObject *old = PyDataMem_SetHandler(cap);
    if (old == NULL) return -1;
    Py_XSETREF(saved_mem_handler, old);
    return 0;
}

static int uninstall_memory(void)
{
    if (saved_mem_handler == NULL) return 0;
    PyObject *mine = PyDataMem_SetHandler(saved_mem_handler);
    if (mine == NULL) return -1;
    Py_DECREF(mine);
    Py_CLEAR(saved_mem_handler);
    /* Give the cached blocks back to NCLib (the GIL is held). Arrays made
       with the handler may still free into the cache later: at most
       SMALL_CACHE_BLOCKS blocks of each size stay until the next install. */
    for (size_t size = 1; size < SMALL_CACHE_BYTES; size++) {
        while (small_cache[size].n > 0)
            ncl_inner.free(ncl_inner.ctx, small_cache[size].p[--small_cache[size].n], size);
    }
    return 0;
}

/* ---- module functions -------------------------------------------------------- */

static PyObject *raise_ncl(NclStatus st, const char *what)
{
    const char *msg = NclLastError();
    PyErr_Format(st == NCL_ERR_NO_MEMORY ? PyExc_MemoryError : PyExc_ValueError,
                 "%s: %s (%s)", what, NclStatusString(st), msg && *msg ? msg : "no detail");
    return NULL;
}

static PyObject *py_install(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = { "loops", "sort", "memory", "threads", NULL };
    int loops = 1, sort = 1, memory = 1, threads = 1;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|pppp:install", names, &loops, &sort, &memory,
                                     &threads))
        return NULL;
    if (loops && !atomic_load(&loops_active) && install_loops() < 0) return NULL;
    if (sort && !sort_installed) {
        if (install_sort() < 0) return NULL;
        sort_installed = 1;
    }
    if (memory && !memory_installed) {
        if (install_memory() < 0) return NULL;
        memory_installed = 1;
    }
    if (!threads && !threads_installed) {
        /* threads=False: NCLib runs every call on the calling thread. */
        saved_num_threads = NclGetNumThreads();
        NclStatus st = NclSetNumThreads(1);
        if (st != NCL_OK) return raise_ncl(st, "install(threads=False)");
        threads_installed = -1;
    } else if (threads && threads_installed == 0) {
        threads_installed = 1;
    }
    Py_RETURN_NONE;
}

static PyObject *py_uninstall(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    if (atomic_load(&loops_active)) uninstall_loops();
    if (sort_installed) {
        uninstall_sort();
        sort_installed = 0;
    }
    if (memory_installed) {
        if (uninstall_memory() < 0) return NULL;
        memory_installed = 0;
    }
    if (threads_installed < 0) {
        NclStatus st = NclSetNumThreads(saved_num_threads);
        if (st != NCL_OK) return raise_ncl(st, "uninstall");
    }
    threads_installed = 0;
    Py_RETURN_NONE;
}

static PyObject *py_status(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    unsigned long long ncl_calls = 0, fallback = 0;
    for (int k = 0; k < nslots; k++) {
        ncl_calls += atomic_load(&slots[k].ncl_calls);
        fallback += atomic_load(&slots[k].fallback_calls);
    }
    return Py_BuildValue(
        "{s:O,s:O,s:O,s:O,s:i,s:L,s:O,s:L,s:L,s:K,s:K,s:K,s:K,s:i,s:s}",
        "loops", atomic_load(&loops_active) ? Py_True : Py_False,
        "sort", sort_installed ? Py_True : Py_False,
        "memory", memory_installed ? Py_True : Py_False,
        "threads", threads_installed > 0 ? Py_True : Py_False,
        "replaced_loops", atomic_load(&loops_active) ? nslots : 0,
        "min_elements", loop_min_elements(),
        "min_elements_follows_threshold",
        atomic_load(&min_elements) == FOLLOW_THRESHOLD ? Py_True : Py_False,
        "min_elements_heavy", (long long)atomic_load(&min_elements_heavy),
        "min_elements_sort", (long long)atomic_load(&min_elements_sort),
        "loop_calls_ncl", ncl_calls, "loop_calls_numpy", fallback,
        "sort_calls_ncl", (unsigned long long)atomic_load(&sort_ncl_calls),
        "sort_calls_numpy", (unsigned long long)atomic_load(&sort_fallback_calls),
        "num_threads", NclGetNumThreads(),
        "memory_handler", memory_installed ? ncl_mem_handler.name : "");
}

/* Every replaceable loop: (ufunc name, NumPy type chars, NCLib subsystem). */
static PyObject *py_loops(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    if (discover_slots() < 0) return NULL;
    PyObject *list = PyList_New(0);
    if (list == NULL) return NULL;
    for (int k = 0; k < nslots; k++) {
        const Slot *s = &slots[k];
        char types[MAX_OPERANDS + 1] = { 0 };
        for (int i = 0; i < s->nin + s->nout; i++) {
            PyArray_Descr *d = PyArray_DescrFromType(s->typenums[i]);
            if (d == NULL) { Py_DECREF(list); return NULL; }
            types[i] = d->type;
            Py_DECREF(d);
        }
        PyObject *t = Py_BuildValue("(ss#sKK)", s->ufunc->name, types, (Py_ssize_t)(s->nin + s->nout),
                                    NclDTypeName(s->sig[0]),
                                    (unsigned long long)atomic_load(&s->ncl_calls),
                                    (unsigned long long)atomic_load(&s->fallback_calls));
        if (t == NULL || PyList_Append(list, t) < 0) { Py_XDECREF(t); Py_DECREF(list); return NULL; }
        Py_DECREF(t);
    }
    return list;
}

/* The address of every loop of every ufunc of numpy.core.umath and of every
   sort/argsort slot of the numeric dtypes, for checking that uninstall puts
   each one back. */
static PyObject *py_pointers(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    PyObject *um = umath_module(), *dict = PyDict_New(), *names = NULL;
    if (um == NULL || dict == NULL) goto fail;
    names = PyObject_Dir(um);
    if (names == NULL) goto fail;
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(names); j++) {
        PyObject *obj = PyObject_GetAttr(um, PyList_GET_ITEM(names, j));
        if (obj == NULL) goto fail;
        if (PyObject_TypeCheck(obj, &PyUFunc_Type)) {
            PyUFuncObject *uf = (PyUFuncObject *)obj;
            for (int t = 0; t < uf->ntypes; t++) {
                PyObject *key = Py_BuildValue("(sisi)", "loop", t, uf->name, uf->nargs);
                PyObject *val = PyLong_FromVoidPtr((void *)uf->functions[t]);
                int rc = (key && val) ? PyDict_SetItem(dict, key, val) : -1;
                Py_XDECREF(key);
                Py_XDECREF(val);
                if (rc < 0) { Py_DECREF(obj); goto fail; }
            }
        }
        Py_DECREF(obj);
    }
    for (int ti = 0; ti < NSORT_TYPES; ti++) {
        PyArray_ArrFuncs *f = arrfuncs_of(sort_types[ti]);
        if (f == NULL) goto fail;
        for (int w = 0; w < NPY_NSORTS; w++) {
            PyObject *k1 = Py_BuildValue("(sii)", "sort", sort_types[ti], w);
            PyObject *v1 = PyLong_FromVoidPtr((void *)f->sort[w]);
            PyObject *k2 = Py_BuildValue("(sii)", "argsort", sort_types[ti], w);
            PyObject *v2 = PyLong_FromVoidPtr((void *)f->argsort[w]);
            int rc = (k1 && v1 && k2 && v2 && PyDict_SetItem(dict, k1, v1) == 0 &&
                      PyDict_SetItem(dict, k2, v2) == 0) ? 0 : -1;
            Py_XDECREF(k1); Py_XDECREF(v1); Py_XDECREF(k2); Py_XDECREF(v2);
            if (rc < 0) goto fail;
        }
    }
    Py_DECREF(names);
    Py_DECREF(um);
    return dict;
fail:
    Py_XDECREF(names);
    Py_XDECREF(um);
    Py_XDECREF(dict);
    return NULL;
}

/* set_min_elements(n, heavy=n, sort=n): loop calls shorter than n
   (transcendental functions: heavy) and sorts of fewer than sort elements
   run NumPy's own code, unless a user's kernel hook is on the loop's
   chain; n = -1: NCLib's threading threshold, whatever it is set to.
   Returns the old (n, heavy, sort). */
static PyObject *py_set_min_elements(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = { "n", "heavy", "sort", NULL };
    const long long omitted = LLONG_MIN;
    long long n, heavy = omitted, sort = omitted;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "L|LL:set_min_elements", names, &n, &heavy, &sort))
        return NULL;
    if (n < FOLLOW_THRESHOLD) {
        PyErr_SetString(PyExc_ValueError,
                        "set_min_elements: n must be >= 0, or -1 to follow NCLib's threshold");
        return NULL;
    }
    const long long plain = n == FOLLOW_THRESHOLD ? (long long)NclGetThreadingThreshold() : n;
    if (heavy == omitted) heavy = plain;
    if (sort == omitted) sort = plain;
    if (heavy < 0 || sort < 0) {
        PyErr_SetString(PyExc_ValueError, "set_min_elements: heavy and sort must be >= 0");
        return NULL;
    }
    long long old = atomic_exchange(&min_elements, n);
    long long old_heavy = atomic_exchange(&min_elements_heavy, heavy);
    long long old_sort = atomic_exchange(&min_elements_sort, sort);
    return Py_BuildValue("(LLL)", old, old_heavy, old_sort);
}

static PyObject *py_set_num_threads(PyObject *self, PyObject *arg)
{
    (void)self;
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 0 || n > NCL_MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "set_num_threads: %ld is not in 0..%d", n, NCL_MAX_THREADS);
        return NULL;
    }
    NclStatus st;
    Py_BEGIN_ALLOW_THREADS
    st = NclSetNumThreads((int)n);
    Py_END_ALLOW_THREADS
    if (st != NCL_OK) return raise_ncl(st, "set_num_threads");
    return PyLong_FromLong(NclGetNumThreads());
}

static PyObject *py_get_num_threads(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    return PyLong_FromLong(NclGetNumThreads());
}

static PyObject *py_set_threading_threshold(PyObject *self, PyObject *arg)
{
    (void)self;
    long long n = PyLong_AsLongLong(arg);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 1) {
        PyErr_SetString(PyExc_ValueError, "set_threading_threshold: the threshold must be >= 1");
        return NULL;
    }
    NclStatus st = NclSetThreadingThreshold(n);
    if (st != NCL_OK) return raise_ncl(st, "set_threading_threshold");
    Py_RETURN_NONE;
}

static PyObject *py_set_accuracy(PyObject *self, PyObject *arg)
{
    (void)self;
    const char *s = PyUnicode_AsUTF8(arg);
    if (s == NULL) return NULL;
    NclAccuracy a;
    if (strcmp(s, "high") == 0) a = NCL_ACCURACY_HIGH;
    else if (strcmp(s, "fast") == 0) a = NCL_ACCURACY_FAST;
    else {
        PyErr_Format(PyExc_ValueError, "set_accuracy: '%s' is not 'high' or 'fast'", s);
        return NULL;
    }
    NclStatus st = NclSetAccuracy(a);
    if (st != NCL_OK) return raise_ncl(st, "set_accuracy");
    Py_RETURN_NONE;
}

static PyObject *py_get_accuracy(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    return PyUnicode_FromString(NclGetAccuracy() == NCL_ACCURACY_FAST ? "fast" : "high");
}

/* A text report of NCLib's (info JSON, ledger table) as a Python str. */
static PyObject *text_report(NclStatus (*fn)(char *, size_t, size_t *), const char *what)
{
    size_t need = 0;
    fn(NULL, 0, &need);
    for (int tries = 0; tries < 4; tries++) {
        char *buf = PyMem_Malloc(need + 256);
        if (buf == NULL) return PyErr_NoMemory();
        size_t again = 0;
        NclStatus st = fn(buf, need + 256, &again);
        if (st == NCL_OK) {
            PyObject *r = PyUnicode_FromString(buf);
            PyMem_Free(buf);
            return r;
        }
        PyMem_Free(buf);
        if (again <= need + 256) return raise_ncl(st, what);
        need = again;
    }
    PyErr_Format(PyExc_RuntimeError, "%s: the report kept growing", what);
    return NULL;
}

static PyObject *py_info_json(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    return text_report(NclInfo, "info");
}

static PyObject *py_ledger_text(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    return text_report(NclLedgerReport, "ledger");
}

static PyObject *py_ledger_enable(PyObject *self, PyObject *arg)
{
    (void)self;
    int on = PyObject_IsTrue(arg);
    if (on < 0) return NULL;
    NclStatus st = NclLedgerEnable(on);
    if (st != NCL_OK) return raise_ncl(st, "ledger_enable");
    Py_RETURN_NONE;
}

static PyObject *py_ledger_reset(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    NclLedgerReset();
    Py_RETURN_NONE;
}

static PyObject *py_use_memory_handler(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    if (!memory_installed) {
        PyErr_SetString(PyExc_RuntimeError,
                        "use_memory_handler: install(memory=True) has not been called");
        return NULL;
    }
    PyObject *old = PyDataMem_SetHandler(ncl_mem_capsule);
    if (old == NULL) return NULL;
    return old;
}

/* ---- NclArray <-> ndarray ---------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    NclArray *arr;
} PyNclArray;

static PyTypeObject PyNclArray_Type;

static void nclarray_dealloc(PyObject *o)
{
    PyNclArray *p = (PyNclArray *)o;
    NclArrayRelease(p->arr);
    Py_TYPE(o)->tp_free(o);
}

static PyObject *wrap_ncl(NclArray *a) /* steals a */
{
    PyNclArray *p = PyObject_New(PyNclArray, &PyNclArray_Type);
    if (p == NULL) { NclArrayRelease(a); return NULL; }
    p->arr = a;
    return (PyObject *)p;
}

/* The deleter of an NclArray made from an ndarray: drops the ndarray. NCLib
   may release its last view on any thread, so it takes the GIL. */
static void release_pyobject(void *ctx, void *data)
{
    (void)data;
    if (!Py_IsInitialized()) return;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF((PyObject *)ctx);
    PyGILState_Release(g);
}

static PyObject *py_to_ncl(PyObject *self, PyObject *obj)
{
    (void)self;
    if (!PyArray_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "to_ncl: expected a numpy.ndarray, got %s",
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    PyArrayObject *a = (PyArrayObject *)obj;
    int d = npy_to_ncl(PyArray_TYPE(a));
    if (d < 0 || !PyArray_ISNOTSWAPPED(a)) {
        PyErr_Format(PyExc_TypeError, "to_ncl: NCLib has no dtype for %R", PyArray_DESCR(a));
        return NULL;
    }
    if (!PyArray_ISALIGNED(a)) {
        PyErr_SetString(PyExc_ValueError, "to_ncl: the array is not aligned");
        return NULL;
    }
    int nd = PyArray_NDIM(a);
    int64_t shape[NPY_MAXDIMS], strides[NPY_MAXDIMS];
    for (int i = 0; i < nd; i++) {
        shape[i] = PyArray_DIM(a, i);
        strides[i] = PyArray_STRIDE(a, i);
    }
    NclArray *out = NULL;
    Py_INCREF(obj);
    NclStatus st = NclFromData((NclDType)d, nd, shape, strides, PyArray_DATA(a),
                               PyArray_ISWRITEABLE(a) ? NCL_ARRAY_WRITEABLE : 0,
                               release_pyobject, obj, &out);
    if (st != NCL_OK) {
        Py_DECREF(obj);
        return raise_ncl(st, "to_ncl");
    }
    return wrap_ncl(out);
}

static PyObject *nclarray_to_numpy(PyNclArray *p)
{
    NclArray *a = p->arr;
    int nd = NclArrayNDim(a);
    npy_intp dims[NPY_MAXDIMS], strides[NPY_MAXDIMS];
    if (nd > NPY_MAXDIMS) {
        PyErr_Format(PyExc_ValueError, "to_numpy: %d dimensions, NumPy takes %d", nd, NPY_MAXDIMS);
        return NULL;
    }
    for (int i = 0; i < nd; i++) {
        dims[i] = (npy_intp)NclArrayShape(a)[i];
        strides[i] = (npy_intp)NclArrayStrides(a)[i];
    }
    PyArray_Descr *descr = PyArray_DescrFromType(ncl_to_npy(NclArrayDType(a)));
    if (descr == NULL) return NULL;
    int flags = (NclArrayFlags(a) & NCL_ARRAY_WRITEABLE) ? NPY_ARRAY_WRITEABLE : 0;
    PyObject *r = PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, strides,
                                       NclArrayData(a), flags, NULL);
    if (r == NULL) return NULL;
    Py_INCREF(p);
    if (PyArray_SetBaseObject((PyArrayObject *)r, (PyObject *)p) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

static PyObject *py_to_numpy(PyObject *self, PyObject *obj)
{
    (void)self;
    if (!PyObject_TypeCheck(obj, &PyNclArray_Type)) {
        PyErr_Format(PyExc_TypeError, "to_numpy: expected an ncl_numpy.NclArray, got %s",
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return nclarray_to_numpy((PyNclArray *)obj);
}

static PyObject *nclarray_numpy(PyObject *self, PyObject *unused)
{
    (void)unused;
    return nclarray_to_numpy((PyNclArray *)self);
}

static PyObject *nclarray_repr(PyObject *self)
{
    NclArray *a = ((PyNclArray *)self)->arr;
    return PyUnicode_FromFormat("<NclArray %s, %d dims, %lld elements, handler %s>",
                                NclDTypeName(NclArrayDType(a)), NclArrayNDim(a),
                                (long long)NclArraySize(a),
                                NclArrayHandlerName(a) ? NclArrayHandlerName(a) : "foreign");
}

static PyMethodDef nclarray_methods[] = {
    { "numpy", nclarray_numpy, METH_NOARGS,
      "A NumPy array viewing this NclArray's memory (keeps it alive)." },
    { NULL, NULL, 0, NULL },
};

static PyTypeObject PyNclArray_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ncl_numpy.NclArray",
    .tp_basicsize = sizeof(PyNclArray),
    .tp_dealloc = nclarray_dealloc,
    .tp_repr = nclarray_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An NCLib array (opaque); to_numpy() or .numpy() views it without a copy.",
    .tp_methods = nclarray_methods,
};

/* Any NCLib elementwise call on NumPy arrays: ncl_call(kind, op, a[, b]).
   The result is allocated by NCLib and returned as an ndarray viewing it. */
static PyObject *py_call(PyObject *self, PyObject *args)
{
    (void)self;
    const char *kind, *opname;
    PyObject *x, *y = NULL;
    if (!PyArg_ParseTuple(args, "ssO|O:call", &kind, &opname, &x, &y)) return NULL;
    const OpName *on = NULL;
    for (size_t j = 0; j < sizeof op_names / sizeof op_names[0]; j++) {
        static const char *const kinds[] = { [NCL_SUBSYSTEM_BINARY] = "binary",
                                             [NCL_SUBSYSTEM_COMPARE] = "compare",
                                             [NCL_SUBSYSTEM_UNARY] = "unary",
                                             [NCL_SUBSYSTEM_ISUNARY] = "isunary" };
        if (strcmp(kinds[op_names[j].subsystem], kind) == 0 &&
            strcmp(op_names[j].name, opname) == 0)
            on = &op_names[j];
    }
    if (on == NULL) {
        PyErr_Format(PyExc_ValueError, "call: no %s op named '%s'", kind, opname);
        return NULL;
    }
    if ((on->nin == 2) != (y != NULL)) {
        PyErr_Format(PyExc_TypeError, "call: %s takes %d operand(s)", opname, on->nin);
        return NULL;
    }
    PyObject *wx = NULL, *wy = NULL, *ax = NULL, *ay = NULL, *res = NULL;
    ax = PyArray_FROM_OF(x, NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED);
    if (ax == NULL) goto done;
    wx = py_to_ncl(NULL, ax);
    if (wx == NULL) goto done;
    if (y != NULL) {
        ay = PyArray_FROM_OF(y, NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED);
        if (ay == NULL) goto done;
        wy = py_to_ncl(NULL, ay);
        if (wy == NULL) goto done;
    }
    {
        NclArray *a = ((PyNclArray *)wx)->arr, *b = wy ? ((PyNclArray *)wy)->arr : NULL;
        const int nout = NclOpOutputs(on->subsystem, on->op);
        NclArray *out[2] = { NULL, NULL };
        NclStatus st;
        Py_BEGIN_ALLOW_THREADS
        switch (on->subsystem) {
        case NCL_SUBSYSTEM_BINARY: st = NclBinaryN((NclBinaryOp)on->op, a, b, nout, out, NULL); break;
        case NCL_SUBSYSTEM_COMPARE: st = NclCompare((NclCompareOp)on->op, a, b, out, NULL); break;
        case NCL_SUBSYSTEM_UNARY: st = NclUnaryN((NclUnaryOp)on->op, a, nout, out, NULL); break;
        default: st = NclIsUnary((NclIsUnaryOp)on->op, a, out, NULL); break;
        }
        Py_END_ALLOW_THREADS
        if (st != NCL_OK) {
            raise_ncl(st, opname);
            goto done;
        }
        /* One ndarray, or a tuple of them for an op of two outputs (divmod,
           frexp, modf), as the ufunc returns. */
        PyObject *results[2] = { NULL, NULL };
        for (int k = 0; k < nout; k++) {
            PyObject *w = wrap_ncl(out[k]);
            out[k] = NULL;
            if (w != NULL) {
                results[k] = nclarray_to_numpy((PyNclArray *)w);
                Py_DECREF(w);
            }
            if (results[k] == NULL) {
                for (int j = k + 1; j < nout; j++) NclArrayRelease(out[j]);
                Py_XDECREF(results[0]);
                goto done;
            }
        }
        if (nout == 1) {
            res = results[0];
        } else {
            res = PyTuple_Pack(2, results[0], results[1]);
            Py_DECREF(results[0]);
            Py_DECREF(results[1]);
        }
    }
done:
    Py_XDECREF(wx); Py_XDECREF(wy); Py_XDECREF(ax); Py_XDECREF(ay);
    return res;
}

static PyMethodDef methods[] = {
    { "install", (PyCFunction)(void (*)(void))py_install, METH_VARARGS | METH_KEYWORDS,
      "install(loops=True, sort=True, memory=True, threads=True): put NCLib under NumPy." },
    { "uninstall", py_uninstall, METH_NOARGS, "Restore NumPy's loops, sorts and handler." },
    { "status", py_status, METH_NOARGS, "What is installed, and call counts." },
    { "loops", py_loops, METH_NOARGS, "Every (ufunc, signature) NCLib can replace." },
    { "_pointers", py_pointers, METH_NOARGS, "Every loop and sort pointer (for tests)." },
    { "set_min_elements", (PyCFunction)(void (*)(void))py_set_min_elements,
      METH_VARARGS | METH_KEYWORDS,
      "set_min_elements(n, heavy=n, sort=n): loop calls shorter than n (transcendental "
      "functions: heavy) and sorts shorter than sort run NumPy's own code unless a kernel "
      "hook is on the loop's chain; n=-1 follows NCLib's threading threshold; returns the "
      "old (n, heavy, sort)." },
    { "set_num_threads", py_set_num_threads, METH_O, "NclSetNumThreads." },
    { "get_num_threads", py_get_num_threads, METH_NOARGS, "NclGetNumThreads." },
    { "set_threading_threshold", py_set_threading_threshold, METH_O,
      "NclSetThreadingThreshold." },
    { "set_accuracy", py_set_accuracy, METH_O, "'high' or 'fast' (this thread)." },
    { "get_accuracy", py_get_accuracy, METH_NOARGS, "This thread's accuracy tier." },
    { "info_json", py_info_json, METH_NOARGS, "NclInfo's JSON text." },
    { "ledger_text", py_ledger_text, METH_NOARGS, "NclLedgerReport's text." },
    { "ledger_enable", py_ledger_enable, METH_O, "NclLedgerEnable." },
    { "ledger_reset", py_ledger_reset, METH_NOARGS, "NclLedgerReset." },
    { "use_memory_handler", py_use_memory_handler, METH_NOARGS,
      "Make NCLib's handler current in this thread's context; returns the previous one." },
    { "to_ncl", py_to_ncl, METH_O, "Zero-copy NclArray view of an ndarray (keeps it alive)." },
    { "to_numpy", py_to_numpy, METH_O, "Zero-copy ndarray view of an NclArray (keeps it alive)." },
    { "call", py_call, METH_VARARGS,
      "call(kind, op, a[, b]): NclBinary/NclCompare/NclUnary/NclIsUnary on ndarrays." },
    { NULL, NULL, 0, NULL },
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "ncl_numpy._core", "NCLib underneath NumPy.", -1, methods,
    NULL, NULL, NULL, NULL,
};

/* The loop-replacement API the adapter relies on exists from NumPy 1.22
   (NEP 49) and was retired with the legacy loop selector in 2.0. */
static int check_numpy_version(void)
{
    PyObject *np = PyImport_ImportModule("numpy");
    if (np == NULL) return -1;
    PyObject *v = PyObject_GetAttrString(np, "__version__");
    Py_DECREF(np);
    if (v == NULL) return -1;
    const char *s = PyUnicode_AsUTF8(v);
    int major = 0, minor = 0;
    int ok = s != NULL && sscanf(s, "%d.%d", &major, &minor) == 2 && major == 1 && minor >= 22;
    if (!ok) {
        PyErr_Format(PyExc_ImportError,
                     "ncl_numpy needs NumPy >= 1.22 and < 2.0 (its legacy ufunc loops and "
                     "NEP 49 handlers); this is NumPy %s",
                     s ? s : "of unknown version");
    }
    Py_DECREF(v);
    return ok ? 0 : -1;
}

PyMODINIT_FUNC PyInit__core(void)
{
    if (check_numpy_version() < 0) return NULL;
    import_array();
    import_umath();
    if (PyType_Ready(&PyNclArray_Type) < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL) return NULL;
    Py_INCREF(&PyNclArray_Type);
    if (PyModule_AddObject(m, "NclArray", (PyObject *)&PyNclArray_Type) < 0) {
        Py_DECREF(&PyNclArray_Type);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "NCL_ABI_VERSION", (long)NclGetApi()->abi_version);
    PyModule_AddStringConstant(m, "NCL_VERSION", NclGetApi()->version);
    (void)forget_slots;
    return m;
}
