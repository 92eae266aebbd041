/*
 * test_reduce_chunks.c: NclReduceChunks, the float SUM/PROD tree's last
 * step (ncl/reduce.h). A sequence cut at NCL_REDUCE_CHUNK, each chunk
 * reduced on its own by NclReduce and the chunk values combined, gives the
 * bits NclReduce gives for the whole sequence: over lengths around chunk
 * and power-of-two boundaries, both float dtypes, several rows at once,
 * with values so large that the tree adds plainly (where the order shows
 * in the bits); and cut at aligned power-of-two runs of chunks, of one
 * length or (at places' boundaries) of several, each run combined with its
 * low part (NclReduceChunksLo) and the runs combined again. Then what they
 * refuse.
 */
#include <math.h>
#include "ncl_test.h"

/* n values: ordinary ones, or +-(1 + fraction) * 2^1010 (2^113 in float32)
   whose sign flips every 1024, which the tree adds without compensation. */
static NclArray *values(NclDType dt, int64_t rows, int64_t n, int large, int prod)
{
    NclArray *a = NULL;
    NCL_CHECK_OK(NclEmpty(dt, 2, NCL_DIMS(rows, n), &a));
    uint64_t st = 0x243f6a8885a308d3u + (uint64_t)n;
    for (int64_t i = 0; i < rows * n; i++) {
        const double u = (double)(ncl_test_rand(&st) >> 11) / 9007199254740992.0;
        double v = large ? ldexp(((i % n) / 1024 % 2 ? -1.0 : 1.0) * (1.0 + u), dt == NCL_FLOAT64 ? 1010 : 113)
                 : prod ? 1.0 + (u - 0.5) * 1e-3
                        : (u - 0.5) * 1e3;
        if (dt == NCL_FLOAT64) ((double *)NclArrayData(a))[i] = v;
        else ((float *)NclArrayData(a))[i] = (float)v;
    }
    return a;
}

/* The chunk values vals (rows x K) cut into nr consecutive runs of len[]
   chunks: each run combined into its value and low part
   (NclReduceChunksLo), then the runs combined again, with their lengths
   when with_lengths (else as runs of one length). */
static NclArray *combine_runs(NclReduceOp rop, const NclArray *vals, const int64_t *len,
                              int64_t nr, int with_lengths)
{
    const NclDType dt = NclArrayDType(vals);
    const int64_t rows = NclArrayShape(vals)[0];
    const int sum = rop == NCL_SUM;
    NclArray *rh = NULL, *rl = NULL, *rn = NULL, *res = NULL;
    NCL_CHECK_OK(NclEmpty(dt, 2, NCL_DIMS(rows, nr), &rh));
    NCL_CHECK_OK(NclEmpty(dt, 2, NCL_DIMS(rows, nr), &rl));
    NCL_CHECK_OK(NclFromData(NCL_INT64, 1, NCL_DIMS(nr), NULL, (void *)len, 0, NULL, NULL, &rn));
    for (int64_t g = 0, pos = 0; g < nr; pos += len[g], g++) {
        NclArray *run = NULL, *hv = NULL, *lv = NULL, *dh = NULL, *dl = NULL, *h2 = NULL, *l2 = NULL;
        NCL_CHECK_OK(NclArraySlice(vals, NCL_DIMS(0, pos), NCL_DIMS(rows, pos + len[g]), NULL,
                                   &run));
        NCL_CHECK_OK(NclReduceChunksLo(rop, run, NULL, NULL, &hv, sum ? &lv : NULL));
        NCL_CHECK_OK(NclArraySlice(rh, NCL_DIMS(0, g), NCL_DIMS(rows, g + 1), NULL, &dh));
        NCL_CHECK_OK(NclArrayReshape(hv, 2, NCL_DIMS(rows, 1), &h2));
        NCL_CHECK_OK(NclConvert(NCL_CONVERT_COPYTO, h2, &dh, NULL));
        if (sum) {
            NCL_CHECK_OK(NclArraySlice(rl, NCL_DIMS(0, g), NCL_DIMS(rows, g + 1), NULL, &dl));
            NCL_CHECK_OK(NclArrayReshape(lv, 2, NCL_DIMS(rows, 1), &l2));
            NCL_CHECK_OK(NclConvert(NCL_CONVERT_COPYTO, l2, &dl, NULL));
        }
        NclArray *arrs[] = {run, hv, lv, dh, dl, h2, l2};
        for (size_t q = 0; q < sizeof arrs / sizeof *arrs; q++) NclArrayRelease(arrs[q]);
    }
    NCL_CHECK_OK(NclReduceChunksLo(rop, rh, sum ? rl : NULL, with_lengths ? rn : NULL, &res, NULL));
    NclArrayRelease(rh);
    NclArrayRelease(rl);
    NclArrayRelease(rn);
    return res;
}

START_TEST(t_chunks_give_the_whole)
{
    static const int64_t lens[] = {1, 2, 1023, 1024, 1025, 2048, 3000, 4097, 9 * 1024 + 5, 33000};
    for (int d = 0; d < 2; d++)
        for (int op = 0; op < 2; op++)
            for (int large = 0; large < 2; large++)
                for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
                    if (large && op) continue;
                    const NclDType dt = d ? NCL_FLOAT32 : NCL_FLOAT64;
                    const NclReduceOp rop = op ? NCL_PROD : NCL_SUM;
                    const int64_t n = lens[l], rows = 3, k = (n + 1023) / 1024;
                    NclArray *a = values(dt, rows, n, large, op), *whole = NULL, *vals = NULL;
                    NclParams p = NCL_PARAMS_INIT;
                    const int last = 1;
                    p.axes = &last;
                    p.naxes = 1;
                    NCL_CHECK_OK(NclReduce(rop, a, &whole, &p));
                    NCL_CHECK_OK(NclEmpty(dt, 2, NCL_DIMS(rows, k), &vals));
                    for (int64_t c = 0; c < k; c++) {
                        const int64_t hi = (c + 1) * 1024 < n ? (c + 1) * 1024 : n;
                        NclArray *piece = NULL, *v = NULL, *dst = NULL;
                        NCL_CHECK_OK(NclArraySlice(a, NCL_DIMS(0, c * 1024), NCL_DIMS(rows, hi),
                                                   NULL, &piece));
                        NCL_CHECK_OK(NclReduce(rop, piece, &v, &p));
                        NCL_CHECK_OK(NclArraySlice(vals, NCL_DIMS(0, c), NCL_DIMS(rows, c + 1),
                                                   NULL, &dst));
                        NclArray *v2 = NULL;
                        NCL_CHECK_OK(NclArrayReshape(v, 2, NCL_DIMS(rows, 1), &v2));
                        NCL_CHECK_OK(NclConvert(NCL_CONVERT_COPYTO, v2, &dst, NULL));
                        NclArrayRelease(v2);
                        NclArrayRelease(dst);
                        NclArrayRelease(v);
                        NclArrayRelease(piece);
                    }
                    NclArray *r = NULL;
                    NCL_CHECK_OK(NclReduceChunks(rop, vals, &r));
                    ck_assert_msg(ncl_test_hash(r) == ncl_test_hash(whole),
                                  "%s %s n=%lld%s: the chunks do not give the whole",
                                  op ? "prod" : "sum", d ? "float32" : "float64", (long long)n,
                                  large ? " (large)" : "");
                    /* cut at aligned power-of-two runs of G chunks: each run's value
                       and low part (NclReduceChunksLo), then the runs combined */
                    for (int64_t G = 1; G <= 8; G *= 2) {
                        int64_t nr = 0, len[128];
                        for (int64_t pos = 0; pos < k; pos += G) len[nr++] = k - pos < G ? k - pos : G;
                        NclArray *r2 = combine_runs(rop, vals, len, nr, 0);
                        ck_assert_msg(ncl_test_hash(r2) == ncl_test_hash(whole),
                                      "%s %s n=%lld%s: runs of %lld chunks do not give the whole",
                                      op ? "prod" : "sum", d ? "float32" : "float64",
                                      (long long)n, large ? " (large)" : "", (long long)G);
                        NclArrayRelease(r2);
                    }
                    /* cut at places (chunk ranges ending at 1/3 and 2/3 of the
                       chunks, like processes), each place's range cut greedily
                       into aligned power-of-two runs of different lengths */
                    {
                        int64_t nr = 0, len[128], cuts[4] = {0, k / 3, 2 * k / 3, k};
                        for (int pl = 0; pl < 3; pl++)
                            for (int64_t pos = cuts[pl]; pos < cuts[pl + 1];) {
                                int64_t g = 1;
                                while (pos % (2 * g) == 0 && pos + 2 * g <= cuts[pl + 1]) g *= 2;
                                len[nr++] = g;
                                pos += g;
                            }
                        NclArray *r2 = combine_runs(rop, vals, len, nr, 1);
                        ck_assert_msg(ncl_test_hash(r2) == ncl_test_hash(whole),
                                      "%s %s n=%lld%s: runs of mixed lengths do not give the "
                                      "whole", op ? "prod" : "sum", d ? "float32" : "float64",
                                      (long long)n, large ? " (large)" : "");
                        NclArrayRelease(r2);
                    }
                    /* into a provided output (a strided one) */
                    NclArray *big = NULL, *view = NULL;
                    NCL_CHECK_OK(NclZeros(dt, 1, NCL_DIMS(2 * rows), &big));
                    NCL_CHECK_OK(NclArraySlice(big, NCL_DIMS(0), NCL_DIMS(2 * rows),
                                               NCL_DIMS(2), &view));
                    NCL_CHECK_OK(NclReduceChunks(rop, vals, &view));
                    ck_assert_uint_eq(ncl_test_hash(view), ncl_test_hash(whole));
                    NclArrayRelease(view);
                    NclArrayRelease(big);
                    NclArrayRelease(r);
                    NclArrayRelease(vals);
                    NclArrayRelease(whole);
                    NclArrayRelease(a);
                }
}
END_TEST

START_TEST(t_refused)
{
    NclArray *v = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 1.0, 2.0), *o = NULL;
    NclArray *i = ncl_test_arr(NCL_INT32, 1, NCL_DIMS(2), 1, 2);
    NclArray *z = ncl_test_arr(NCL_FLOAT64, 0, NULL, 1.0);
    NclArray *e = NULL, *wrong = NULL;
    NCL_CHECK_OK(NclEmpty(NCL_FLOAT64, 1, NCL_DIMS(0), &e));
    NCL_CHECK_STATUS(NclReduceChunks(NCL_MIN, v, &o), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclReduceChunks(NCL_SUM, NULL, &o), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclReduceChunks(NCL_SUM, v, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclReduceChunks(NCL_SUM, i, &o), NCL_ERR_DTYPE);
    NCL_CHECK_STATUS(NclReduceChunks(NCL_SUM, z, &o), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclReduceChunks(NCL_SUM, e, &o), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("no chunk");
    ck_assert_ptr_null(o);
    wrong = ncl_test_arr(NCL_FLOAT32, 0, NULL, 0.0);
    NCL_CHECK_STATUS(NclReduceChunks(NCL_SUM, v, &wrong), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("the output is float32 ()");
    /* the low parts: not for products, and of values' shape and dtype */
    NclArray *lo2 = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 0.0, 0.0), *lo3 = NULL, *lout = NULL;
    NCL_CHECK_OK(NclZeros(NCL_FLOAT64, 1, NCL_DIMS(3), &lo3));
    NCL_CHECK_STATUS(NclReduceChunksLo(NCL_PROD, v, lo2, NULL, &o, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("no low parts");
    NCL_CHECK_STATUS(NclReduceChunksLo(NCL_PROD, v, NULL, NULL, &o, &lout), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclReduceChunksLo(NCL_SUM, v, lo3, NULL, &o, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("lo is float64 (3,)");
    ck_assert_ptr_null(o);
    ck_assert_ptr_null(lout);
    /* runs: int64 of shape (K,), powers of two, aligned */
    NclArray *r3 = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(2), (int64_t)1, (int64_t)3);
    NclArray *r12 = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(2), (int64_t)1, (int64_t)2);
    NclArray *rbad = ncl_test_arr(NCL_INT64, 1, NCL_DIMS(3), (int64_t)1, (int64_t)1, (int64_t)1);
    NCL_CHECK_STATUS(NclReduceChunksLo(NCL_SUM, v, NULL, r3, &o, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("power of two");
    NCL_CHECK_STATUS(NclReduceChunksLo(NCL_SUM, v, NULL, r12, &o, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("from chunk 1");
    NCL_CHECK_STATUS(NclReduceChunksLo(NCL_SUM, v, NULL, rbad, &o, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("one entry per value");
    ck_assert_ptr_null(o);
    NclArrayRelease(r3);
    NclArrayRelease(r12);
    NclArrayRelease(rbad);
    NCL_CHECK_OK(NclReduceChunksLo(NCL_SUM, v, lo2, NULL, &o, &lout));
    ck_assert(*(const double *)NclArrayData(o) == 3.0 && *(const double *)NclArrayData(lout) == 0.0);
    NclArray *arrs[] = {v, i, z, e, wrong, lo2, lo3, lout, o};
    for (size_t k = 0; k < sizeof arrs / sizeof *arrs; k++) NclArrayRelease(arrs[k]);
}
END_TEST

static Suite *chunks_suite(void)
{
    Suite *s = suite_create("reduce_chunks");
    TCase *tc = ncl_test_tcase(s, "chunks");
    tcase_add_test(tc, t_chunks_give_the_whole);
    tcase_add_test(tc, t_refused);
    return s;
}

NCL_TEST_MAIN(chunks_suite)
