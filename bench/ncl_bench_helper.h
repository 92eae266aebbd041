/*
 * ncl_bench_helper.h: the benchmark helper library (libncl_bench_helper.so)
 * that bench/numpy_side_by_side.py drives through ctypes, and that the
 * google-benchmark cases share for the bandwidth-limit kernel. Not part of
 * NCLib's API; the script mirrors these structs, so NCLB_ABI_VERSION changes
 * with any layout change.
 */
#ifndef NCL_BENCH_HELPER_H
#define NCL_BENCH_HELPER_H

#include <stdint.h>

#include <ncl.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NCLB_ABI_VERSION 3

enum {
    NCLB_BINARY = 0, NCLB_COMPARE = 1, NCLB_UNARY = 2, NCLB_CONVERT = 3,
    NCLB_TERNARY = 4, NCLB_REDUCE = 5, NCLB_SORT = 6, NCLB_MASK = 7, NCLB_LINALG = 8,
    NCLB_SORTN = 9 /* NclSortN: every output allocated, the first one is the result */
};
enum { NCLB_CLOCK_CPU = 0, NCLB_CLOCK_WALL = 1 };

/* One NCLib call: kind and op select the function; a, b, c are its
   operands (unused ones NULL); out is the provided output, or NULL for a
   result allocated and released on every call. dtype, casting and sort_kind
   go into NclParams, and side (searchsorted); accuracy >= 0 is set (NclSetAccuracy) for the timed
   loop and restored afterwards. keep_outputs (with out NULL) keeps every
   allocated result until the loop ends, so no call can get a buffer that an
   earlier call of the loop released. */
typedef struct NclbCall {
    int32_t kind;
    int32_t op;
    NclArray *a;
    NclArray *b;
    NclArray *c;
    NclArray *out;
    int32_t dtype;
    int32_t casting;
    int32_t sort_kind;
    int32_t accuracy;
    int32_t keep_outputs;
    int32_t side;
} NclbCall;

typedef struct NclbResult {
    double ns_per_call;     /* mean over the k calls, on the clock asked for */
    double faults_per_call; /* minor page faults of the process per call */
} NclbResult;

int nclb_abi_version(void);

/* Runs the call k times; NCL_OK or the first failing call's status (the
   message is NclLastError's). clock_kind: NCLB_CLOCK_CPU (process CPU time)
   or NCLB_CLOCK_WALL (monotonic). */
int nclb_time(const NclbCall *call, int64_t k, int clock_kind, NclbResult *res);

/* reps passes of c = a + b over n doubles with non-temporal stores (or
   plain ones); *ns_per_pass is the mean time of one pass. */
int nclb_stream_add(const double *a, const double *b, double *c, int64_t n, int64_t reps,
                    int clock_kind, double *ns_per_pass);
int nclb_plain_add(const double *a, const double *b, double *c, int64_t n, int64_t reps,
                   int clock_kind, double *ns_per_pass);
/* nclb_stream_add split across two threads, as a two-thread NCLib call
   splits: the caller streams the first half of each pass and a thread of
   its own the second, both starting each pass together (n >= 2). Wall
   time. The limit of a DRAM-bound add on two threads (BENCHMARKS.md #17).
   NCL_ERR_INVALID_ARGUMENT for bad arguments, NCL_ERR_NO_MEMORY when the
   thread cannot be made. */
int nclb_stream_add2(const double *a, const double *b, double *c, int64_t n, int64_t reps,
                     double *ns_per_pass);
/* Width in bits of the streaming stores compiled in (256, 128), or 0 when
   this build has none and nclb_stream_add uses plain stores. */
int nclb_stream_has_nt_stores(void);

#ifdef __cplusplus
}
#endif

#endif /* NCL_BENCH_HELPER_H */
