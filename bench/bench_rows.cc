// bench_rows.cc: google-benchmark cases for rows 1, 2 and 4 to 18 of
// BENCHMARKS.md (row 3, the call overhead, is bench_binary), with items and
// bytes per second as counters. Case names start with the row number
// (row01_add_f64/64000). bench/numpy_side_by_side.py times the same calls
// next to NumPy for docs/PERFORMANCE.md; these cases are for profiling and
// for watching one kernel while it is being tuned.
//
// Single-threaded unless a case says otherwise: main() sets
// NCL_NUM_THREADS=1 when the environment does not choose. Row 17 switches
// the pool with NclSetNumThreads, looked up at run time so that this file
// builds against a library without a pool (those cases are then skipped).
#include <benchmark/benchmark.h>

#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <ncl.h>

#include "ncl_bench_helper.h"

namespace {

const int64_t kSizes[] = {64000, 1000000, 16000000};

// An NCLib-allocated 1-D array filled from a fixed seed, released on scope exit.
class Arr {
  public:
    Arr() = default;
    Arr(NclDType dt, int64_t n, double lo, double hi, unsigned seed) { make(dt, n, lo, hi, seed); }
    ~Arr() { NclArrayRelease(a_); }
    Arr(const Arr &) = delete;
    Arr &operator=(const Arr &) = delete;

    bool make(NclDType dt, int64_t n, double lo, double hi, unsigned seed)
    {
        if (NclEmpty(dt, 1, &n, &a_) != NCL_OK)
            return false;
        // splitmix64: filling 1.6e7 elements through <random>'s engines and
        // distributions costs more than the cases themselves.
        uint64_t state = 0x9e3779b97f4a7c15ull * (seed + 1u);
        auto next = [&state] {
            uint64_t z = (state += 0x9e3779b97f4a7c15ull);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            return z ^ (z >> 31);
        };
        auto uniform = [&] { return lo + (hi - lo) * ((double)(next() >> 11) * 0x1p-53); };
        char *p = static_cast<char *>(NclArrayData(a_));
        for (int64_t i = 0; i < n; i++) {
            switch (dt) {
            case NCL_BOOL: store<uint8_t>(p, i, (uint8_t)(next() & 1u)); break;
            case NCL_INT32: store<int32_t>(p, i, (int32_t)std::floor(uniform())); break;
            case NCL_INT64:
                store<int64_t>(p, i, lo == hi ? (int64_t)next() : (int64_t)std::floor(uniform()));
                break;
            case NCL_UINT64: store<uint64_t>(p, i, next()); break;
            case NCL_FLOAT32: store<float>(p, i, (float)uniform()); break;
            default: store<double>(p, i, uniform()); break;
            }
        }
        return true;
    }
    // An output, written once so that no timed call pays its first-touch
    // page faults.
    bool empty(NclDType dt, int ndim, const int64_t *shape)
    {
        if (NclZeros(dt, ndim, shape, &a_) != NCL_OK)
            return false;
        std::memset(NclArrayData(a_), 0, (size_t)bytes());
        return true;
    }
    NclArray *get() const { return a_; }
    NclArray **addr() { return &a_; }
    int64_t bytes() const { return a_ ? NclArraySize(a_) * (int64_t)NclDTypeSize(NclArrayDType(a_)) : 0; }

  private:
    template <typename T> static void store(char *p, int64_t i, T v)
    {
        std::memcpy(p + (size_t)i * sizeof(T), &v, sizeof v);
    }
    NclArray *a_ = nullptr;
};

const char *dname(NclDType t)
{
    switch (t) {
    case NCL_INT32: return "i32";
    case NCL_INT64: return "i64";
    case NCL_UINT64: return "u64";
    case NCL_FLOAT32: return "f32";
    case NCL_FLOAT64: return "f64";
    default: return "b";
    }
}

bool ok(benchmark::State &st, NclStatus s)
{
    if (s != NCL_OK) {
        st.SkipWithError(NclLastError());
        return false;
    }
    return true;
}

// Runs call() in the timing loop; items = n, bytes = bytes per call.
void loop(benchmark::State &st, int64_t n, int64_t bytes, const std::function<NclStatus()> &call)
{
    for (auto _ : st) {
        if (!ok(st, call()))
            return;
        benchmark::ClobberMemory();
    }
    st.SetItemsProcessed(st.iterations() * n);
    st.SetBytesProcessed(st.iterations() * bytes);
}

// The float ranges keep every op finite; the int ranges keep add in range.
double lo_of(NclDType t) { return t == NCL_FLOAT32 || t == NCL_FLOAT64 ? -1e3 : -1e6; }
double hi_of(NclDType t) { return -lo_of(t); }

// Rows 1, 7, 8, 9: a op b into a given output.
void binary_case(benchmark::State &st, int kind, int op, NclDType ta, NclDType tb, NclDType tout,
                 int64_t n)
{
    Arr a(ta, n, lo_of(ta), hi_of(ta), 1), b(tb, n, lo_of(tb), hi_of(tb), 2), out;
    if (!a.get() || !b.get() || !out.empty(tout, 1, &n))
        return (void)ok(st, NCL_ERR_NO_MEMORY);
    loop(st, n, a.bytes() + b.bytes() + out.bytes(), [&] {
        NclArray *o = out.get();
        return kind == NCLB_BINARY ? NclBinary((NclBinaryOp)op, a.get(), b.get(), &o, nullptr)
                                   : NclCompare((NclCompareOp)op, a.get(), b.get(), &o, nullptr);
    });
}

// Row 8 with the full int64 and uint64 ranges, so that the sign matters.
void compare_u64_case(benchmark::State &st, int op, NclDType tb, int64_t n)
{
    Arr a(NCL_INT64, n, 0, 0, 1), b(tb, n, 0, 0, 2), out;
    if (!a.get() || !b.get() || !out.empty(NCL_BOOL, 1, &n))
        return (void)ok(st, NCL_ERR_NO_MEMORY);
    loop(st, n, a.bytes() + b.bytes() + out.bytes(), [&] {
        NclArray *o = out.get();
        return NclCompare((NclCompareOp)op, a.get(), b.get(), &o, nullptr);
    });
}

// Row 2: the bandwidth limit, c = a + b over 16M doubles.
void stream_case(benchmark::State &st, bool streaming)
{
    const int64_t n = 16 * 1024 * 1024;
    std::vector<double> a((size_t)n, 1.0), b((size_t)n, 2.0), c((size_t)n, 0.0);
    for (auto _ : st) {
        double ns = 0;
        int s = streaming ? nclb_stream_add(a.data(), b.data(), c.data(), n, 1, NCLB_CLOCK_CPU, &ns)
                          : nclb_plain_add(a.data(), b.data(), c.data(), n, 1, NCLB_CLOCK_CPU, &ns);
        if (s != 0) {
            st.SkipWithError("bad arguments");
            return;
        }
        benchmark::DoNotOptimize(c.data());
    }
    st.SetItemsProcessed(st.iterations() * n);
    st.SetBytesProcessed(st.iterations() * n * 24);
}

// Row 4: the output allocated (and released) by every call.
void add_alloc_case(benchmark::State &st, NclDType t, int64_t n)
{
    Arr a(t, n, lo_of(t), hi_of(t), 1), b(t, n, lo_of(t), hi_of(t), 2);
    if (!a.get() || !b.get())
        return (void)ok(st, NCL_ERR_NO_MEMORY);
    loop(st, n, 3 * a.bytes(), [&] {
        NclArray *o = nullptr;
        NclStatus s = NclBinary(NCL_ADD, a.get(), b.get(), &o, nullptr);
        NclArrayRelease(o);
        return s;
    });
}

// Row 5: add(a[::2], b), f64, output given.
void strided_case(benchmark::State &st, int64_t n)
{
    Arr a2(NCL_FLOAT64, 2 * n, -1e3, 1e3, 1), b(NCL_FLOAT64, n, -1e3, 1e3, 2), out;
    NclArray *view = nullptr;
    const int64_t step = 2;
    if (!a2.get() || !b.get() || !out.empty(NCL_FLOAT64, 1, &n))
        return (void)ok(st, NCL_ERR_NO_MEMORY);
    if (!ok(st, NclArraySlice(a2.get(), nullptr, nullptr, &step, &view)))
        return;
    loop(st, n, 3 * b.bytes(), [&] {
        NclArray *o = out.get();
        return NclBinary(NCL_ADD, view, b.get(), &o, nullptr);
    });
    NclArrayRelease(view);
}

// Row 6: (n/1000, 1000) + (1000,) and (1000, n/1000) + (1000, 1).
void broadcast_case(benchmark::State &st, bool along_rows, int64_t n)
{
    const int64_t m = n / 1000;
    const int64_t big[2] = {along_rows ? m : 1000, along_rows ? 1000 : m};
    const int64_t small[2] = {along_rows ? 1000 : 1000, 1};
    Arr a(NCL_FLOAT64, n, -1e3, 1e3, 1), b(NCL_FLOAT64, 1000, -1e3, 1e3, 2), out;
    NclArray *av = nullptr, *bv = nullptr;
    if (!a.get() || !b.get() || !out.empty(NCL_FLOAT64, 2, big))
        return (void)ok(st, NCL_ERR_NO_MEMORY);
    if (!ok(st, NclArrayReshape(a.get(), 2, big, &av)) ||
        !ok(st, NclArrayReshape(b.get(), along_rows ? 1 : 2, small, &bv))) {
        NclArrayRelease(av);
        return;
    }
    loop(st, n, 2 * a.bytes() + b.bytes(), [&] {
        NclArray *o = out.get();
        return NclBinary(NCL_ADD, av, bv, &o, nullptr);
    });
    NclArrayRelease(bv);
    NclArrayRelease(av);
}

// Rows 10 and 19: a reduction of the whole array into a given 0-d result.
void reduce_case(benchmark::State &st, NclReduceOp op, NclDType t, int64_t n)
{
    const NclDType rt = (op == NCL_SUM && t == NCL_INT32) || op == NCL_NANARGMAX ? NCL_INT64 : t;
    Arr a(t, n, lo_of(t), hi_of(t), 1), out;
    if (!a.get() || !out.empty(rt, 0, nullptr))
        return (void)ok(st, NCL_ERR_NO_MEMORY);
    loop(st, n, a.bytes(), [&] {
        NclArray *o = out.get();
        return NclReduce(op, a.get(), &o, nullptr);
    });
}

// Rows 11 and 12: op(a) into a given output, at an accuracy tier.
void unary_case(benchmark::State &st, NclUnaryOp op, NclDType t, NclAccuracy acc, int64_t n)
{
    const double lo = op == NCL_LOG || op == NCL_SQRT ? 1e-3 : op == NCL_EXP ? -20.0 : -100.0;
    const double hi = op == NCL_EXP ? 20.0 : op == NCL_SIN ? 100.0 : 1e3;
    Arr a(t, n, lo, hi, 1), out;
    if (!a.get() || !out.empty(t, 1, &n))
        return (void)ok(st, NCL_ERR_NO_MEMORY);
    const NclAccuracy saved = NclGetAccuracy();
    if (!ok(st, NclSetAccuracy(acc)))
        return;
    loop(st, n, 2 * a.bytes(), [&] {
        NclArray *o = out.get();
        return NclUnary(op, a.get(), &o, nullptr);
    });
    (void)NclSetAccuracy(saved);
}

// Row 13: where(c, a, b) and a[mask], results allocated as NumPy's are.
void where_case(benchmark::State &st, int64_t n)
{
    Arr c(NCL_BOOL, n, 0, 1, 3), a(NCL_FLOAT64, n, -1e3, 1e3, 1), b(NCL_FLOAT64, n, -1e3, 1e3, 2);
    if (!c.get() || !a.get() || !b.get())
        return (void)ok(st, NCL_ERR_NO_MEMORY);
    loop(st, n, c.bytes() + 3 * a.bytes(), [&] {
        NclArray *o = nullptr;
        NclStatus s = NclTernary(NCL_WHERE, c.get(), a.get(), b.get(), &o, nullptr);
        NclArrayRelease(o);
        return s;
    });
}

void compress_case(benchmark::State &st, int64_t n)
{
    Arr m(NCL_BOOL, n, 0, 1, 3), a(NCL_FLOAT64, n, -1e3, 1e3, 1);
    if (!m.get() || !a.get())
        return (void)ok(st, NCL_ERR_NO_MEMORY);
    loop(st, n, m.bytes() + a.bytes() + a.bytes() / 2, [&] {
        NclArray *o = nullptr;
        NclStatus s = NclMask(NCL_MASK_COMPRESS, a.get(), m.get(), &o, nullptr);
        NclArrayRelease(o);
        return s;
    });
}

// Row 14: astype into a given output (unsafe casting, as a NumPy copyto).
void cast_case(benchmark::State &st, NclDType from, NclDType to, int64_t n)
{
    Arr a(from, n, -1e9, 1e9, 1), out;
    if (!a.get() || !out.empty(to, 1, &n))
        return (void)ok(st, NCL_ERR_NO_MEMORY);
    NclParams p = NCL_PARAMS_INIT;
    p.dtype = to;
    p.casting = NCL_CASTING_UNSAFE;
    loop(st, n, a.bytes() + out.bytes(), [&] {
        NclArray *o = out.get();
        return NclConvert(NCL_CONVERT_ASTYPE, a.get(), &o, &p);
    });
}

// Rows 15 and 16: sort / argsort (default or stable) of 1e6 random values.
void sort_case(benchmark::State &st, NclSortOp op, int kind, NclDType t)
{
    const int64_t n = 1000000;
    // Integers over their whole range (lo == hi == 0 means all 64 bits).
    const double lo = t == NCL_INT32 ? -2147483648.0 : t == NCL_INT64 ? 0.0 : -1e9;
    const double hi = t == NCL_INT32 ? 2147483647.0 : t == NCL_INT64 ? 0.0 : 1e9;
    Arr a(t, n, lo, hi, 1);
    if (!a.get())
        return (void)ok(st, NCL_ERR_NO_MEMORY);
    NclParams p = NCL_PARAMS_INIT;
    p.kind = kind;
    loop(st, n, a.bytes(), [&] {
        NclArray *o = nullptr;
        NclStatus s = NclSort(op, a.get(), &o, &p);
        NclArrayRelease(o);
        return s;
    });
}

// Row 18: unique_values / unique_all of 1e6 values with about ten repeats
// each, and searchsorted of 1e6 keys (random or sorted) in a sorted 1e6.
void unique_case(benchmark::State &st, NclSortOp op, NclDType t)
{
    const int64_t n = 1000000;
    Arr a(t, n, 0.0, 100000.0, 18);
    if (!a.get())
        return (void)ok(st, NCL_ERR_NO_MEMORY);
    if (t == NCL_FLOAT64) { // whole numbers, so that values repeat as the int64 ones do
        double *p = static_cast<double *>(NclArrayData(a.get()));
        for (int64_t i = 0; i < n; i++)
            p[i] = std::floor(p[i]);
    }
    const int nout = NclOpOutputs(NCL_SUBSYSTEM_SORT, op);
    loop(st, n, a.bytes(), [&] {
        NclArray *o[4] = {nullptr, nullptr, nullptr, nullptr};
        NclStatus s = NclSortN(op, a.get(), nout, o, nullptr);
        for (int k = 0; k < nout; k++)
            NclArrayRelease(o[k]);
        return s;
    });
}

void searchsorted_case(benchmark::State &st, NclDType t, bool sorted_keys)
{
    const int64_t n = 1000000;
    Arr a(t, n, -1e12, 1e12, 18), v(t, n, -1e12, 1e12, 19);
    if (!a.get() || !v.get())
        return (void)ok(st, NCL_ERR_NO_MEMORY);
    NclArray *sa = nullptr, *sv = nullptr;
    if (!ok(st, NclSort(NCL_SORT, a.get(), &sa, nullptr)))
        return;
    if (sorted_keys && !ok(st, NclSort(NCL_SORT, v.get(), &sv, nullptr)))
        return (void)NclArrayRelease(sa);
    NclArray *keys = sorted_keys ? sv : v.get();
    loop(st, n, a.bytes() + v.bytes(), [&] {
        NclArray *o = nullptr;
        NclStatus s = NclMask(NCL_MASK_SEARCHSORTED, sa, keys, &o, nullptr);
        NclArrayRelease(o);
        return s;
    });
    NclArrayRelease(sa);
    NclArrayRelease(sv);
}

// Row 17: the same calls with 1 or 2 pool threads (wall-clock time).
using SetThreadsFn = NclStatus (*)(int);
SetThreadsFn set_threads_fn()
{
    void *sym = dlsym(RTLD_DEFAULT, "NclSetNumThreads");
    SetThreadsFn fn = nullptr;
    static_assert(sizeof fn == sizeof sym, "function and object pointers differ in size");
    std::memcpy(&fn, &sym, sizeof fn);
    return fn;
}

void threads_case(benchmark::State &st, const std::string &what, int threads)
{
    SetThreadsFn set = set_threads_fn();
    if (set == nullptr) {
        st.SkipWithError("pool not built (no NclSetNumThreads in libncl)");
        return;
    }
    if (!ok(st, set(threads)))
        return;
    if (what == "exp_f64")
        unary_case(st, NCL_EXP, NCL_FLOAT64, NCL_ACCURACY_HIGH, 1000000);
    else if (what == "sin_f64")
        unary_case(st, NCL_SIN, NCL_FLOAT64, NCL_ACCURACY_HIGH, 1000000);
    else if (what == "sort_f64")
        sort_case(st, NCL_SORT, 0, NCL_FLOAT64);
    else if (what == "add_f64_1e6")
        binary_case(st, NCLB_BINARY, NCL_ADD, NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64, 1000000);
    else
        binary_case(st, NCLB_BINARY, NCL_ADD, NCL_FLOAT64, NCL_FLOAT64, NCL_FLOAT64, 16000000);
    (void)set(1);
}

template <typename F> void reg(const std::string &name, F fn)
{
    benchmark::RegisterBenchmark(name.c_str(), fn);
}

void register_all()
{
    const NclDType four[] = {NCL_FLOAT32, NCL_FLOAT64, NCL_INT32, NCL_INT64};
    const NclBinaryOp ops[] = {NCL_ADD, NCL_SUBTRACT, NCL_MULTIPLY};
    const char *op_names[] = {"add", "subtract", "multiply"};
    for (int k = 0; k < 3; k++)
        for (NclDType t : four)
            for (int64_t n : kSizes)
                reg(std::string("row01_") + op_names[k] + "_" + dname(t) + "/" + std::to_string(n),
                    [=](benchmark::State &st) { binary_case(st, NCLB_BINARY, ops[k], t, t, t, n); });
    reg("row02_stream_add_f64/16777216", [](benchmark::State &st) { stream_case(st, true); });
    reg("row02_plain_add_f64/16777216", [](benchmark::State &st) { stream_case(st, false); });
    for (NclDType t : four)
        reg(std::string("row04_add_alloc_") + dname(t) + "/16000000",
            [=](benchmark::State &st) { add_alloc_case(st, t, 16000000); });
    for (int64_t n : kSizes) {
        const std::string sz = "/" + std::to_string(n);
        reg("row05_add_strided_f64" + sz, [=](benchmark::State &st) { strided_case(st, n); });
        reg("row06_bcast_rows_f64" + sz, [=](benchmark::State &st) { broadcast_case(st, true, n); });
        reg("row06_bcast_cols_f64" + sz, [=](benchmark::State &st) { broadcast_case(st, false, n); });
        for (NclDType t : {NCL_FLOAT64, NCL_INT64})
            reg(std::string("row07_greater_") + dname(t) + sz, [=](benchmark::State &st) {
                binary_case(st, NCLB_COMPARE, NCL_CMP_GT, t, t, NCL_BOOL, n);
            });
        static const char *cmp[] = {"equal", "not_equal", "less", "less_equal", "greater",
                                    "greater_equal"};
        for (int op = 0; op < 6; op++) {
            reg(std::string("row08_") + cmp[op] + "_i64_u64" + sz,
                [=](benchmark::State &st) { compare_u64_case(st, op, NCL_UINT64, n); });
            reg(std::string("row08_") + cmp[op] + "_i64_i64" + sz,
                [=](benchmark::State &st) { compare_u64_case(st, op, NCL_INT64, n); });
        }
        reg("row09_add_i32_f64" + sz, [=](benchmark::State &st) {
            binary_case(st, NCLB_BINARY, NCL_ADD, NCL_INT32, NCL_FLOAT64, NCL_FLOAT64, n);
        });
        for (NclDType t : {NCL_FLOAT64, NCL_FLOAT32, NCL_INT64}) {
            reg(std::string("row10_sum_") + dname(t) + sz,
                [=](benchmark::State &st) { reduce_case(st, NCL_SUM, t, n); });
            reg(std::string("row10_min_") + dname(t) + sz,
                [=](benchmark::State &st) { reduce_case(st, NCL_MIN, t, n); });
            reg(std::string("row10_max_") + dname(t) + sz,
                [=](benchmark::State &st) { reduce_case(st, NCL_MAX, t, n); });
        }
        const NclReduceOp stats[] = {NCL_STD, NCL_VAR, NCL_NANSUM, NCL_NANMEAN,
                                     NCL_NANMIN, NCL_NANMAX, NCL_NANARGMAX, NCL_NANSTD};
        const char *stat_names[] = {"std", "var", "nansum", "nanmean",
                                    "nanmin", "nanmax", "nanargmax", "nanstd"};
        if (n == 1000000)
            for (NclDType t : {NCL_FLOAT64, NCL_FLOAT32})
                for (int k = 0; k < 8; k++) {
                    const NclReduceOp op = stats[k];
                    reg(std::string("row19_") + stat_names[k] + "_" + dname(t) + sz,
                        [=](benchmark::State &st) { reduce_case(st, op, t, n); });
                }
        const NclUnaryOp fns[] = {NCL_EXP, NCL_LOG, NCL_SIN};
        const char *fn_names[] = {"exp", "log", "sin"};
        for (int f = 0; f < 3; f++)
            for (NclDType t : {NCL_FLOAT32, NCL_FLOAT64})
                for (NclAccuracy acc : {NCL_ACCURACY_HIGH, NCL_ACCURACY_FAST})
                    reg(std::string("row11_") + fn_names[f] + "_" + dname(t) +
                            (acc == NCL_ACCURACY_HIGH ? "_high" : "_fast") + sz,
                        [=](benchmark::State &st) { unary_case(st, fns[f], t, acc, n); });
        for (NclDType t : {NCL_FLOAT32, NCL_FLOAT64})
            reg(std::string("row12_sqrt_") + dname(t) + sz,
                [=](benchmark::State &st) { unary_case(st, NCL_SQRT, t, NCL_ACCURACY_HIGH, n); });
        reg("row13_where_f64" + sz, [=](benchmark::State &st) { where_case(st, n); });
        reg("row13_compress_f64" + sz, [=](benchmark::State &st) { compress_case(st, n); });
        reg("row14_cast_f64_i32" + sz,
            [=](benchmark::State &st) { cast_case(st, NCL_FLOAT64, NCL_INT32, n); });
        reg("row14_cast_i64_f32" + sz,
            [=](benchmark::State &st) { cast_case(st, NCL_INT64, NCL_FLOAT32, n); });
    }
    for (NclDType t : four) {
        reg(std::string("row15_sort_") + dname(t) + "/1000000",
            [=](benchmark::State &st) { sort_case(st, NCL_SORT, 0, t); });
        reg(std::string("row16_argsort_") + dname(t) + "/1000000",
            [=](benchmark::State &st) { sort_case(st, NCL_ARGSORT, 0, t); });
        reg(std::string("row16_stable_sort_") + dname(t) + "/1000000",
            [=](benchmark::State &st) { sort_case(st, NCL_SORT, NCL_SORT_STABLE, t); });
    }
    for (NclDType t : {NCL_INT64, NCL_FLOAT64}) {
        reg(std::string("row20_unique_values_") + dname(t) + "/1000000",
            [=](benchmark::State &st) { unique_case(st, NCL_UNIQUE_VALUES, t); });
        reg(std::string("row20_unique_all_") + dname(t) + "/1000000",
            [=](benchmark::State &st) { unique_case(st, NCL_UNIQUE_ALL, t); });
        reg(std::string("row20_searchsorted_random_") + dname(t) + "/1000000",
            [=](benchmark::State &st) { searchsorted_case(st, t, false); });
        reg(std::string("row20_searchsorted_sorted_") + dname(t) + "/1000000",
            [=](benchmark::State &st) { searchsorted_case(st, t, true); });
    }
    for (const char *what : {"exp_f64", "sin_f64", "sort_f64", "add_f64_1e6", "add_f64_16e6"})
        for (int threads : {1, 2})
            benchmark::RegisterBenchmark(
                (std::string("row17_") + what + "/threads:" + std::to_string(threads)).c_str(),
                [=](benchmark::State &st) { threads_case(st, what, threads); })
                ->UseRealTime();
}

} // namespace

int main(int argc, char **argv)
{
    setenv("NCL_NUM_THREADS", "1", 0); // before the library's first call reads it
    register_all();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
