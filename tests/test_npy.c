/*
 * test_npy.c: NclSaveNpy and NclLoadNpy. Round trips of every dtype over
 * 0-d, empty, 1-d and 3-d shapes in every memory layout (C, Fortran,
 * sliced, reversed, misaligned, broadcast), bit for bit, with the order
 * the file records; the exact bytes of a saved header; hand-written files
 * in versions 1.0, 2.0 and 3.0, big-endian descrs, other key orders and
 * spellings; every refusal of a bad file with its status, *out untouched
 * and nothing leaked; saves that fail (mid-write too) leaving an existing
 * file as it was and no temporary file behind.
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ncl_test.h"

/* ---- files ------------------------------------------------------------------- */

static char dir[256];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/ncl_test_npy_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* Removes every entry of dir, then dir. */
static void remove_dir(void)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* Entries in dir. */
static int count_entries(void)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* dir/name, in one of 8 buffers used in turn. */
static const char *file_in_dir(const char *name)
{
    static char p[8][512];
    static int next;
    char *r = p[next++ % 8];
    snprintf(r, sizeof p[0], "%s/%s", dir, name);
    return r;
}

static void write_bytes(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

/* The whole file, malloc'd; its size in *n. */
static unsigned char *read_bytes(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    size_t cap = 1024, len = 0;
    unsigned char *b = malloc(cap);
    for (;;) {
        len += fread(b + len, 1, cap - len, f);
        if (len < cap) break;
        cap *= 2;
        b = realloc(b, cap);
        ck_assert_ptr_nonnull(b);
    }
    fclose(f);
    *n = len;
    return b;
}

/* A .npy file of version major.0 with the header text dict (no padding)
   and then n data bytes. */
static void write_npy(const char *path, int major, const char *dict, const void *data, size_t n)
{
    const size_t hl = strlen(dict), lb = major == 1 ? 2 : 4;
    unsigned char *b = malloc(8 + lb + hl + n + 1);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (unsigned char)major;
    b[7] = 0;
    for (size_t i = 0; i < lb; i++) b[8 + i] = (unsigned char)(hl >> (8 * i));
    memcpy(b + 8 + lb, dict, hl);
    if (n) memcpy(b + 8 + lb + hl, data, n);
    write_bytes(path, b, 8 + lb + hl + n);
    free(b);
}

static int host_big_endian(void)
{
    const uint16_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 0;
}

/* ---- comparisons ------------------------------------------------------------- */

/* Same dtype, shape and element bits (read in C order). */
static void check_same_bits(const NclArray *got, const NclArray *exp)
{
    ck_assert_int_eq(NclArrayDType(got), NclArrayDType(exp));
    ck_assert_int_eq(NclArrayNDim(got), NclArrayNDim(exp));
    for (int d = 0; d < NclArrayNDim(got); d++)
        ck_assert_int_eq(NclArrayShape(got)[d], NclArrayShape(exp)[d]);
    const size_t isz = NclDTypeSize(NclArrayDType(got));
    for (int64_t i = 0, n = NclArraySize(exp); i < n; i++)
        ck_assert_msg(memcmp(ncl_test_ptr(got, i), ncl_test_ptr(exp, i), isz) == 0,
                      "element %lld differs", (long long)i);
}

static int fortran_only(const NclArray *a)
{
    const uint32_t f = NclArrayFlags(a);
    return (f & NCL_ARRAY_F_CONTIGUOUS) && !(f & NCL_ARRAY_C_CONTIGUOUS);
}

/* Random values with NaNs (payloads, both signs), infinities and -0.0
   among the floats. */
static void fill(const NclArray *a, uint64_t *state)
{
    ncl_test_fill_random(a, state, 1e6);
    const NclDType t = NclArrayDType(a);
    if (t != NCL_FLOAT32 && t != NCL_FLOAT64) return;
    for (int64_t i = 0, n = NclArraySize(a); i < n; i += 3) {
        char *p = ncl_test_ptr(a, i);
        const uint64_t r = ncl_test_rand(state);
        if (t == NCL_FLOAT64) {
            const uint64_t special[4] = {0x7ff8000000000123u, 0xfff0000000000001u,
                                         0x8000000000000000u, 0x7ff0000000000000u};
            memcpy(p, &special[r % 4], 8);
        } else {
            const uint32_t special[4] = {0x7fc00123u, 0xff800001u, 0x80000000u, 0xff800000u};
            memcpy(p, &special[r % 4], 4);
        }
    }
}

/* ---- round trips ------------------------------------------------------------- */

START_TEST(test_round_trip_every_dtype_and_layout)
{
    make_dir();
    static const int64_t shapes[][3] = {{0}, {0}, {7}, {2, 3, 4}, {3, 0, 2}, {1, 5}, {4, 1}};
    static const int ndims[] = {0, 1, 1, 3, 3, 2, 2};
    uint64_t state = 42;
    const char *path = file_in_dir("a.npy");
    for (int t = 0; t < NCL_NTYPES; t++)
        for (size_t s = 0; s < sizeof ndims / sizeof ndims[0]; s++)
            for (int l = 0; l < NCL_TEST_NLAYOUTS; l++) {
                NclArray *src = ncl_test_new((NclDType)t, ndims[s], shapes[s]);
                fill(src, &state);
                NclArray *a = ncl_test_layout_of(src, (ncl_test_layout)l);
                NCL_CHECK_OK(NclSaveNpy(a, path));
                NclArray *b = NULL;
                NCL_CHECK_OK(NclLoadNpy(path, &b));
                check_same_bits(b, src);
                ck_assert_int_eq(fortran_only(b), fortran_only(a));
                ck_assert(NclArrayFlags(b) & (NCL_ARRAY_C_CONTIGUOUS | NCL_ARRAY_F_CONTIGUOUS));
                ck_assert(NclArrayFlags(b) & NCL_ARRAY_WRITEABLE);
                NclArrayRelease(a);
                NclArrayRelease(b);
                NclArrayRelease(src);
            }
    ck_assert_int_eq(count_entries(), 1);
    remove_dir();
}
END_TEST

START_TEST(test_round_trip_views)
{
    make_dir();
    const char *path = file_in_dir("v.npy");
    uint64_t state = 7;
    /* a broadcast view (zero strides) */
    NclArray *row = ncl_test_new(NCL_INT16, 1, NCL_DIMS(5));
    fill(row, &state);
    NclArray *bc = ncl_test_broadcast(row, 3, NCL_DIMS(2, 3, 5));
    NCL_CHECK_OK(NclSaveNpy(bc, path));
    NclArray *b = NULL;
    NCL_CHECK_OK(NclLoadNpy(path, &b));
    check_same_bits(b, bc);
    ck_assert(NclArrayFlags(b) & NCL_ARRAY_C_CONTIGUOUS);
    NclArrayRelease(b);
    /* a transposed slice: neither C nor F contiguous */
    NclArray *big = ncl_test_new(NCL_FLOAT64, 3, NCL_DIMS(4, 6, 5));
    fill(big, &state);
    NclArray *sl = NULL, *tr = NULL;
    NCL_CHECK_OK(NclArraySlice(big, NCL_DIMS(1, 0, 4), NCL_DIMS(4, 6, 0), NCL_DIMS(1, 2, -2), &sl));
    NCL_CHECK_OK(NclArrayTranspose(sl, (const int[]){2, 0, 1}, &tr));
    NCL_CHECK_OK(NclSaveNpy(tr, path));
    NCL_CHECK_OK(NclLoadNpy(path, &b));
    check_same_bits(b, tr);
    ck_assert(NclArrayFlags(b) & NCL_ARRAY_C_CONTIGUOUS);
    NclArrayRelease(b);
    /* a read-only array saves too */
    NCL_CHECK_OK(NclSaveNpy(bc, path));
    NclArrayRelease(sl);
    NclArrayRelease(tr);
    NclArrayRelease(big);
    NclArrayRelease(bc);
    NclArrayRelease(row);
    remove_dir();
}
END_TEST

START_TEST(test_saved_bytes)
{
    make_dir();
    const char *path = file_in_dir("h.npy");
    const char *o = host_big_endian() ? ">" : "<";
    char expect[256];
    size_t n;
    /* C order (2, 3) int32: the growth room follows the first extent */
    NclArray *a = ncl_test_arr(NCL_INT32, 2, NCL_DIMS(2, 3), 1, 2, 3, 4, 5, 6);
    NCL_CHECK_OK(NclSaveNpy(a, path));
    unsigned char *b = read_bytes(path, &n);
    snprintf(expect, sizeof expect, "{'descr': '%si4', 'fortran_order': False, 'shape': (2, 3), }",
             o);
    ck_assert_uint_eq(n, 128 + 24);
    ck_assert(memcmp(b, "\x93NUMPY\x01\x00\x76\x00", 10) == 0);
    ck_assert(memcmp(b + 10, expect, strlen(expect)) == 0);
    for (size_t i = 10 + strlen(expect); i < 127; i++) ck_assert_int_eq(b[i], ' ');
    ck_assert_int_eq(b[127], '\n');
    ck_assert(memcmp(b + 128, NclArrayData(a), 24) == 0);
    free(b);
    /* Fortran order: fortran_order True, the data in Fortran order */
    NclArray *t = NULL;
    NCL_CHECK_OK(NclArrayTranspose(a, NULL, &t));
    NCL_CHECK_OK(NclSaveNpy(t, path));
    b = read_bytes(path, &n);
    snprintf(expect, sizeof expect, "{'descr': '%si4', 'fortran_order': True, 'shape': (3, 2), }",
             o);
    ck_assert(memcmp(b + 10, expect, strlen(expect)) == 0);
    ck_assert(memcmp(b + 128, NclArrayData(a), 24) == 0);
    free(b);
    /* 0-d bool: '|b1', shape (), no growth room */
    NclArray *z = ncl_test_arr(NCL_BOOL, 0, NULL, 1);
    NCL_CHECK_OK(NclSaveNpy(z, path));
    b = read_bytes(path, &n);
    snprintf(expect, sizeof expect, "{'descr': '|b1', 'fortran_order': False, 'shape': (), }");
    ck_assert_uint_eq(n, 129);
    ck_assert(memcmp(b + 10, expect, strlen(expect)) == 0);
    ck_assert_int_eq(b[127], '\n');
    ck_assert_int_eq(b[128], 1);
    free(b);
    /* a header whose text ends at a multiple of 64 takes 64 more spaces,
       not none: the growth room (of the first extent) decides it here */
    NclArray *e = NULL;
    NCL_CHECK_OK(NclEmpty(NCL_UINT8, 11, NCL_DIMS(0, 1, 1, 1, 1, 1, 1, 333, 4444, 4444, 4444),
                          &e));
    NCL_CHECK_OK(NclSaveNpy(e, path));
    b = read_bytes(path, &n);
    ck_assert_uint_eq(n, 192);
    ck_assert_int_eq(b[191], '\n');
    free(b);
    /* ... and in Fortran order the last extent's room */
    NclArray *c = NULL, *f = NULL;
    NCL_CHECK_OK(NclZeros(NCL_UINT8, 14, NCL_DIMS(2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4444),
                          &c));
    NCL_CHECK_OK(NclArrayTranspose(c, NULL, &f));
    NCL_CHECK_OK(NclSaveNpy(f, path));
    b = read_bytes(path, &n);
    ck_assert_uint_eq(n, 192 + 8888);
    ck_assert_int_eq(b[191], '\n');
    ck_assert(strstr((const char *)b + 10, "'fortran_order': True") != NULL);
    free(b);
    NclArrayRelease(f);
    NclArrayRelease(c);
    NclArrayRelease(e);
    NclArrayRelease(z);
    NclArrayRelease(t);
    NclArrayRelease(a);
    remove_dir();
}
END_TEST

START_TEST(test_overwrite_keeps_mode_and_follows_links)
{
    make_dir();
    const char *path = file_in_dir("m.npy");
    write_bytes(path, "old", 3);
    ck_assert_int_eq(chmod(path, 0640), 0);
    NclArray *a = ncl_test_arr(NCL_UINT8, 1, NCL_DIMS(3), 7, 8, 9);
    NCL_CHECK_OK(NclSaveNpy(a, path));
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0640);
    NclArray *b = NULL;
    NCL_CHECK_OK(NclLoadNpy(path, &b));
    check_same_bits(b, a);
    NclArrayRelease(b);
    char link[512];
    snprintf(link, sizeof link, "%s", file_in_dir("link.npy"));
    ck_assert_int_eq(symlink("m.npy", link), 0);
    NclArray *c = ncl_test_arr(NCL_UINT8, 1, NCL_DIMS(2), 1, 2);
    NCL_CHECK_OK(NclSaveNpy(c, link));
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    NCL_CHECK_OK(NclLoadNpy(path, &b));
    check_same_bits(b, c);
    NclArrayRelease(b);
    ck_assert_int_eq(count_entries(), 2);
    NclArrayRelease(c);
    NclArrayRelease(a);
    remove_dir();
}
END_TEST

/* ---- hand-written files ------------------------------------------------------ */

START_TEST(test_load_versions_orders_and_spellings)
{
    make_dir();
    const char *path = file_in_dir("w.npy");
    const int big = host_big_endian();
    NclArray *a = NULL;
    const int32_t vals[6] = {1, -2, 3, -4, 5, 0x01020304};
    unsigned char le[24], be[24];
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 4; k++) {
            le[4 * i + k] = (unsigned char)((uint32_t)vals[i] >> (8 * k));
            be[4 * i + 3 - k] = le[4 * i + k];
        }
    NclArray *want = ncl_test_arr_int(NCL_INT32, 2, NCL_DIMS(2, 3), 1, -2, 3, -4, 5, 0x01020304);
    static const char *const dicts[] = {
        "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
        "{'shape': (2, 3), 'descr': '<i4', 'fortran_order': False}",
        "{\"fortran_order\":False,\"shape\":(2,3,),\"descr\":\"<i4\"}   \n",
        "  {'descr'  :  '<i4' ,\n\t'fortran_order' : False , 'shape' : ( 2 , 3 ) , }\n",
        "{'descr': '<i4', 'fortran_order': False, 'shape': (2L, 3L), }",
        "{'descr': u'<i4', 'fortran_order': False, 'shape': (0x2, 0b11)}",
        "{'descr': '<i4', # a comment\n 'fortran_order': False, 'shape': (+2, 3)}",
    };
    for (int major = 1; major <= 3; major++)
        for (size_t d = 0; d < sizeof dicts / sizeof dicts[0]; d++) {
            if (major == 3 && strstr(dicts[d], "L)")) continue; /* Python 2's only in 1.0/2.0 */
            write_npy(path, major, dicts[d], le, 24);
            NCL_CHECK_OK(NclLoadNpy(path, &a));
            check_same_bits(a, want);
            ck_assert(NclArrayFlags(a) & NCL_ARRAY_C_CONTIGUOUS);
            NclArrayRelease(a);
        }
    /* big-endian descr, '=' and no order character: the host's order */
    write_npy(path, 1, "{'descr': '>i4', 'fortran_order': False, 'shape': (2, 3), }", be, 24);
    NCL_CHECK_OK(NclLoadNpy(path, &a));
    check_same_bits(a, want);
    NclArrayRelease(a);
    write_npy(path, 1, "{'descr': '=i4', 'fortran_order': False, 'shape': (2, 3), }", big ? be : le,
              24);
    NCL_CHECK_OK(NclLoadNpy(path, &a));
    check_same_bits(a, want);
    NclArrayRelease(a);
    write_npy(path, 1, "{'descr': 'i4', 'fortran_order': False, 'shape': (2, 3), }", big ? be : le,
              24);
    NCL_CHECK_OK(NclLoadNpy(path, &a));
    check_same_bits(a, want);
    NclArrayRelease(a);
    /* fortran_order True: an F-ordered array, the file's data its memory */
    write_npy(path, 2, "{'descr': '<i4', 'fortran_order': True, 'shape': (3, 2), }", le, 24);
    NCL_CHECK_OK(NclLoadNpy(path, &a));
    ck_assert(fortran_only(a));
    NclArray *t = NULL;
    NCL_CHECK_OK(NclArrayTranspose(want, NULL, &t));
    check_same_bits(a, t);
    NclArrayRelease(t);
    NclArrayRelease(a);
    /* 0-d, and big-endian float64 */
    const unsigned char pi_be[8] = {0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18};
    write_npy(path, 1, "{'descr': '>f8', 'fortran_order': False, 'shape': (), }", pi_be, 8);
    NCL_CHECK_OK(NclLoadNpy(path, &a));
    ck_assert_int_eq(NclArrayNDim(a), 0);
    ck_assert(ncl_test_get_d(a, 0) == 3.141592653589793);
    NclArrayRelease(a);
    /* large extents of an empty array; trailing bytes ignored */
    write_npy(path, 1, "{'descr': '<u8', 'fortran_order': False, 'shape': (0, 1099511627776), }",
              "junk", 4);
    NCL_CHECK_OK(NclLoadNpy(path, &a));
    ck_assert_int_eq(NclArraySize(a), 0);
    ck_assert_int_eq(NclArrayShape(a)[1], (int64_t)1 << 40);
    ck_assert_int_eq(NclArrayDType(a), NCL_UINT64);
    NclArrayRelease(a);
    /* bools other than 0 and 1 read as 1 */
    write_npy(path, 1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", "\0\2\377", 3);
    NCL_CHECK_OK(NclLoadNpy(path, &a));
    ck_assert_int_eq(NclArrayDType(a), NCL_BOOL);
    ck_assert(memcmp(NclArrayData(a), "\0\1\1", 3) == 0);
    NclArrayRelease(a);
    /* every NCLib dtype's descr in the other byte order */
    static const char *const kinds[] = {"b1", "i1", "i2", "i4", "i8", "u1",
                                        "u2", "u4", "u8", "f4", "f8"};
    for (int d = 0; d < NCL_NTYPES; d++) {
        char dict[96];
        snprintf(dict, sizeof dict, "{'descr': '%c%s', 'fortran_order': False, 'shape': (1,), }",
                 big ? '<' : '>', kinds[d]);
        unsigned char one[8] = {0};
        one[big ? 0 : NclDTypeSize((NclDType)d) - 1] = 1; /* 1 in the file's order */
        write_npy(path, 1, dict, one, NclDTypeSize((NclDType)d));
        NCL_CHECK_OK(NclLoadNpy(path, &a));
        ck_assert_int_eq(NclArrayDType(a), d);
        if (d < NCL_FLOAT32) ck_assert_int_eq(ncl_test_get_i(a, 0), 1);
        NclArrayRelease(a);
    }
    NclArrayRelease(want);
    remove_dir();
}
END_TEST

/* ---- refusals ---------------------------------------------------------------- */

/* NclLoadNpy(path) must fail with status, leave *out alone, leak nothing
   and leave a message containing text (unless NULL). */
static void check_load_refused(const char *path, NclStatus status, const char *text)
{
    ncl_test_alloc t;
    ncl_test_alloc_install(&t, 0, 0);
    NclArray *sentinel = (NclArray *)(uintptr_t)0x1234, *a = sentinel;
    NclStatus s = NclLoadNpy(path, &a);
    ncl_test_alloc_uninstall(&t);
    ck_assert_msg(s == status, "%s: got %s, expected %s (%s)", path, NclStatusString(s),
                  NclStatusString(status), NclLastError());
    ck_assert_ptr_eq(a, sentinel);
    ck_assert_str_ne(NclLastError(), "");
    if (text) NCL_CHECK_MESSAGE_HAS(text);
    NCL_CHECK_NO_LEAK(&t);
}

static void check_dict_refused(int major, const char *dict, size_t ndata, NclStatus status,
                               const char *text)
{
    const char *path = file_in_dir("bad.npy");
    unsigned char data[64] = {0};
    write_npy(path, major, dict, data, ndata);
    check_load_refused(path, status, text);
}

START_TEST(test_load_refusals)
{
    make_dir();
    const char *path = file_in_dir("bad.npy");
    const NclStatus INV = NCL_ERR_INVALID_ARGUMENT, UNS = NCL_ERR_UNSUPPORTED,
                    SHP = NCL_ERR_SHAPE;
    NclArray *a = NULL;
    NCL_CHECK_STATUS(NclLoadNpy(NULL, &a), INV);
    NCL_CHECK_STATUS(NclLoadNpy(path, NULL), INV);
    NCL_CHECK_STATUS(NclLoadNpy("", &a), INV);
    check_load_refused(file_in_dir("missing.npy"), INV, "missing.npy");
    check_load_refused(dir, INV, "directory");
    /* magic and version */
    write_bytes(path, "", 0);
    check_load_refused(path, INV, "magic");
    write_bytes(path, "PK\x03\x04 not npy at all", 20);
    check_load_refused(path, INV, "magic");
    write_bytes(path, "\x93NUMPY\x01", 7);
    check_load_refused(path, INV, "cut short");
    write_bytes(path, "\x93NUMPY\x04\x00\x10\x00{}", 12);
    check_load_refused(path, UNS, "4.0");
    write_bytes(path, "\x93NUMPY\x01\x01\x10\x00{}", 12);
    check_load_refused(path, UNS, "1.1");
    write_bytes(path, "\x93NUMPY\x01\x00\x10", 9);
    check_load_refused(path, INV, "cut short");
    write_bytes(path, "\x93NUMPY\x02\x00\x10\x00\x00", 11);
    check_load_refused(path, INV, "cut short");
    /* a header longer than the file */
    write_bytes(path, "\x93NUMPY\x01\x00\xff\x00{'descr'", 17);
    check_load_refused(path, INV, "cut short");
    write_bytes(path, "\x93NUMPY\x03\x00\x00\x00\x00\x01{}", 14);
    check_load_refused(path, INV, "cut short");
    /* data cut short, and headers that lie about it */
    check_dict_refused(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", 16, INV,
                       "cut short");
    check_dict_refused(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 0, INV,
                       "cut short");
    check_dict_refused(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }",
                       64, INV, "cut short");
    check_dict_refused(1, "{'descr': '<u2', 'fortran_order': True, 'shape': (65536, 65536), }", 8,
                       INV, "cut short");
    /* negative and overflowing extents, too many dimensions */
    check_dict_refused(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }", 8, SHP,
                       "negative");
    check_dict_refused(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, -3), }", 8, SHP,
                       "negative");
#define F8_SHAPE(text) "{'descr': '<f8', 'fortran_order': False, 'shape': " text ", }"
    check_dict_refused(1, F8_SHAPE("(9223372036854775808,)"), 8, SHP, "int64");
    check_dict_refused(1, F8_SHAPE("(99999999999999999999999,)"), 8, SHP, "int64");
    check_dict_refused(1, F8_SHAPE("(4294967296, 4294967296)"), 8, SHP, NULL);
    check_dict_refused(1, F8_SHAPE("(1152921504606846976, 16)"), 8, SHP, NULL);
    check_dict_refused(1, F8_SHAPE("(2305843009213693952,)"), 8, SHP, "bytes");
#undef F8_SHAPE
    char many[1024];
    size_t n = (size_t)snprintf(many, sizeof many,
                                "{'descr': '|u1', 'fortran_order': False, 'shape': (");
    for (int i = 0; i < NCL_MAXDIMS + 1; i++)
        n += (size_t)snprintf(many + n, sizeof many - n, "1, ");
    snprintf(many + n, sizeof many - n, "), }");
    check_dict_refused(1, many, 8, SHP, "NCL_MAXDIMS");
    /* malformed dicts */
    static const char *const bad[] = {
        "",
        "[]",
        "{}",
        "{'descr': '<f8', 'fortran_order': False}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'extra': 1}",
        "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': 1}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': [1]}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1.0,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1,,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1 2)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (01,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1__0,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': ('1',)}",
        "{'descr': '<f8', 'fortran_order': 0, 'shape': (1,)}",
        "{'descr': '<f8', 'fortran_order': false, 'shape': (1,)}",
        "{'descr': '<f8', 'fortran_order': Falsey, 'shape': (1,)}",
        "{'descr': 8, 'fortran_order': False, 'shape': (1,)}",
        "{'descr': '<f8, 'fortran_order': False, 'shape': (1,)}",
        "{'descr' '<f8', 'fortran_order': False, 'shape': (1,)}",
        "{descr: '<f8', 'fortran_order': False, 'shape': (1,)}",
        "{'descr': '<f8' 'fortran_order': False, 'shape': (1,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)} x",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)}}",
        "{,}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        check_dict_refused(1, bad[i], 8, INV, "header");
    /* Python 2's long integers only in versions 1.0 and 2.0 */
    check_dict_refused(3, "{'descr': '<f8', 'fortran_order': False, 'shape': (1L,)}", 8, INV,
                       "header");
    /* a NUL byte inside the header */
    write_bytes(path, "\x93NUMPY\x01\x00\x05\x00{\0}  ", 15);
    check_load_refused(path, INV, "NUL");
    /* descrs without an NCLib dtype, named in the message */
    static const char *const unsupported[] = {"|O", "<U3", "|S5", "|V8", "<c16", "<c8", "<f2",
                                              ">f2", "<f16", "<M8[ns]", "<m8[s]", "<i16", "|b2",
                                              "<u3", "", "float64", "<f08", "<"};
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++) {
        char dict[128], name[32];
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (1,), }",
                 unsupported[i]);
        snprintf(name, sizeof name, "'%s'", unsupported[i]);
        check_dict_refused(1, dict, 64, UNS, name);
    }
    check_dict_refused(1, "{'descr': [('a', '<i4'), ('b', '<f8')], 'fortran_order': False, "
                          "'shape': (1,), }", 64, UNS, "structured");
    remove_dir();
}
END_TEST

/* Allocation k of a load fails: NCL_ERR_NO_MEMORY, nothing leaked. */
START_TEST(test_load_out_of_memory)
{
    make_dir();
    const char *path = file_in_dir("m.npy");
    NclArray *a = ncl_test_arr(NCL_FLOAT32, 2, NCL_DIMS(3, 4), 1);
    NCL_CHECK_OK(NclSaveNpy(a, path));
    NclArrayRelease(a);
    int failed_once = 0;
    for (long k = 1; k <= 4; k++) {
        ncl_test_alloc t;
        ncl_test_alloc_install(&t, k, 0);
        NclArray *b = NULL;
        NclStatus s = NclLoadNpy(path, &b);
        ncl_test_alloc_uninstall(&t);
        if (atomic_load(&t.failures) > 0) {
            failed_once = 1;
            ck_assert_int_eq(s, NCL_ERR_NO_MEMORY);
            ck_assert_ptr_null(b);
        } else {
            ck_assert_int_eq(s, NCL_OK);
            ck_assert_str_eq(NclArrayHandlerName(b), "ncl_test_alloc");
            NclArrayRelease(b);
        }
        NCL_CHECK_NO_LEAK(&t);
    }
    ck_assert(failed_once);
    remove_dir();
}
END_TEST

START_TEST(test_save_refusals_leave_the_file)
{
    make_dir();
    const char *path = file_in_dir("keep.npy");
    write_bytes(path, "precious", 8);
    NclArray *a = ncl_test_arr(NCL_FLOAT64, 1, NCL_DIMS(2), 1, 2);
    NCL_CHECK_STATUS(NclSaveNpy(NULL, path), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclSaveNpy(a, NULL), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclSaveNpy(a, ""), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_STATUS(NclSaveNpy(a, "/nonexistent-dir-ncl/x.npy"), NCL_ERR_INVALID_ARGUMENT);
    NCL_CHECK_MESSAGE_HAS("nonexistent-dir-ncl");
    /* device memory is never read */
    double host[2] = {1, 2};
    NclArray *dev = NULL;
    NCL_CHECK_OK(NclFromDataKind(NCL_FLOAT64, 1, NCL_DIMS(2), NULL, host, NCL_ARRAY_WRITEABLE,
                                 NULL, NULL, NCL_MEM_DEVICE, 0, &dev));
    NCL_CHECK_STATUS(NclSaveNpy(dev, path), NCL_ERR_DEVICE_MEMORY);
    NclArrayRelease(dev);
    /* a directory at path: the rename fails, the directory stays */
    const char *sub = file_in_dir("sub");
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    const char *inner = file_in_dir("sub/f");
    write_bytes(inner, "x", 1);
    NCL_CHECK_STATUS(NclSaveNpy(a, sub), NCL_ERR_INVALID_ARGUMENT);
    unlink(inner);
    rmdir(sub);
    /* a write that fails midway (the file size limit): the old file stays,
       no temporary file is left */
    NclArray *big = NULL;
    NCL_CHECK_OK(NclZeros(NCL_FLOAT64, 1, NCL_DIMS(100000), &big));
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, lim;
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = 4096;
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    NclStatus s = NclSaveNpy(big, path);
    NclArray *row = NULL;
    NCL_CHECK_OK(NclArraySlice(big, NCL_DIMS(0), NCL_DIMS(INT64_MIN), NCL_DIMS(3), &row));
    NclStatus s2 = NclSaveNpy(row, path); /* the strided writer fails too */
    setrlimit(RLIMIT_FSIZE, &old);
    ck_assert_msg(s == NCL_ERR_INVALID_ARGUMENT, "got %s: %s", NclStatusString(s), NclLastError());
    ck_assert_msg(s2 == NCL_ERR_INVALID_ARGUMENT, "got %s: %s", NclStatusString(s2),
                  NclLastError());
    size_t n;
    unsigned char *b = read_bytes(path, &n);
    ck_assert_uint_eq(n, 8);
    ck_assert(memcmp(b, "precious", 8) == 0);
    free(b);
    ck_assert_int_eq(count_entries(), 1);
    NclArrayRelease(row);
    NclArrayRelease(big);
    NclArrayRelease(a);
    remove_dir();
}
END_TEST

static Suite *npy_suite(void)
{
    Suite *s = suite_create("npy");
    TCase *tc = ncl_test_tcase(s, "round_trip");
    tcase_add_test(tc, test_round_trip_every_dtype_and_layout);
    tcase_add_test(tc, test_round_trip_views);
    tcase_add_test(tc, test_saved_bytes);
    tcase_add_test(tc, test_overwrite_keeps_mode_and_follows_links);
    tc = ncl_test_tcase(s, "load");
    tcase_add_test(tc, test_load_versions_orders_and_spellings);
    tcase_add_test(tc, test_load_refusals);
    tcase_add_test(tc, test_load_out_of_memory);
    tc = ncl_test_tcase(s, "save");
    tcase_add_test(tc, test_save_refusals_leave_the_file);
    return s;
}

NCL_TEST_MAIN(npy_suite)
