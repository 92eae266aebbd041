/*
 * io.c: a distributed array saved as a folder, one NumPy .npy file per
 * partition and a manifest, and loaded with any number of processes.
 *
 * manifest.txt, plain text, one item a line:
 *   ncl-mpi-array 1
 *   dtype float64
 *   shape 7 6 5
 *   split 0
 *   parts 4
 *   rows 0 2          (first row and row count of part 0, ...)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "ncl_mpi_internal.h"

#define MANIFEST "manifest.txt"

static void part_path(char *buf, size_t cap, const char *dir, int r)
{
    snprintf(buf, cap, "%s/part-%d.npy", dir, r);
}

static NclStatus save_body(const NclArray *a, const char *dir);

NclStatus NclMpiSave(const NclArray *a, const char *dir)
{
    static const char who[] = "NclMpiSave";
    const mpi_dist *d = mpi_dist_of(a);
    if (d == NULL || dir == NULL)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s", who,
                         dir == NULL ? "dir is NULL" : "a is not a distributed array");
    NclMpiComm *c = d->c;
    mpi_cmd cmd = {.kind = MPI_CMD_SAVE, .arr = {a}, .path = dir};
    int opened = 0;
    NclStatus st = mpi_driver_open(c, &cmd, &opened);
    if (st == NCL_OK) st = save_body(a, dir);
    mpi_driver_close(c, opened, NULL);
    return st;
}

static NclStatus save_body(const NclArray *a, const char *dir)
{
    static const char who[] = "NclMpiSave";
    const mpi_dist *d = mpi_dist_of(a);
    NclMpiComm *c = d->c;
    NclStatus st = mpi_same(c, who, mpi_hash_array(mpi_hash(MPI_HASH_INIT, dir, strlen(dir)), a));
    if (st != NCL_OK) return st;
    /* rank 0 makes the folder and clears parts beyond this save's */
    if (c->rank == 0) {
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            st = mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: cannot make %s: %s", who, dir,
                           strerror(errno));
        char path[4096];
        for (int r = c->size; st == NCL_OK; r++) {
            part_path(path, sizeof path, dir, r);
            if (remove(path) != 0) break;
        }
    }
    if ((st = mpi_agree(c, st)) != NCL_OK) return st;
    char path[4096];
    part_path(path, sizeof path, dir, c->rank);
    st = NclSaveNpy(d->local, path);
    if (st == NCL_OK && c->rank == 0) {
        snprintf(path, sizeof path, "%s/%s", dir, MANIFEST);
        FILE *f = fopen(path, "w");
        if (f == NULL)
            st = mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: cannot write %s: %s", who, path,
                           strerror(errno));
        else {
            const int nd = NclArrayNDim(a);
            fprintf(f, "ncl-mpi-array 1\ndtype %s\nshape", NclDTypeName(NclArrayDType(a)));
            for (int i = 0; i < nd; i++) fprintf(f, " %lld", (long long)NclArrayShape(a)[i]);
            fprintf(f, "\nsplit %d\nparts %d\n", d->split, c->size);
            for (int r = 0; r < c->size; r++)
                fprintf(f, "rows %lld %lld\n", (long long)d->offsets[r], (long long)d->counts[r]);
            if (fclose(f) != 0)
                st = mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: cannot write %s", who, path);
        }
    }
    return mpi_agree(c, st);
}

/* The manifest's contents. */
typedef struct manifest {
    NclDType dtype;
    int ndim, split, parts;
    int64_t shape[NCL_MAXDIMS];
    int64_t *first, *rows;
} manifest;

static NclStatus read_manifest(const char *who, const char *dir, manifest *m)
{
    char path[4096], word[64];
    snprintf(path, sizeof path, "%s/%s", dir, MANIFEST);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: cannot read %s: %s", who, path,
                         strerror(errno));
    int version = 0, ok = fscanf(f, "ncl-mpi-array %d dtype %63s shape", &version, word) == 2 &&
                          version == 1;
    if (ok) ok = NclDTypeFromName(word, &m->dtype) == NCL_OK;
    m->ndim = 0;
    long long v;
    while (ok && m->ndim <= NCL_MAXDIMS && fscanf(f, " %lld", &v) == 1) m->shape[m->ndim++] = v;
    ok = ok && m->ndim <= NCL_MAXDIMS && fscanf(f, " split %d parts %d", &m->split, &m->parts) == 2 &&
         m->parts > 0 && m->parts < (1 << 24) &&
         (m->ndim == 0 ? m->split == 0 : m->split >= 0 && m->split < m->ndim);
    m->first = ok ? calloc(2 * (size_t)m->parts, sizeof *m->first) : NULL;
    m->rows = m->first ? m->first + m->parts : NULL;
    int64_t next = 0;
    for (int r = 0; ok && m->first && r < m->parts; r++) {
        long long a, b;
        ok = fscanf(f, " rows %lld %lld", &a, &b) == 2 && a == next && b >= 0;
        if (ok) {
            m->first[r] = a;
            m->rows[r] = b;
            next = a + b;
        }
    }
    fclose(f);
    for (int i = 0; ok && i < m->ndim; i++) ok = m->shape[i] >= 0;
    if (ok && m->first && (m->ndim == 0 ? next != 1 : next != m->shape[m->split])) ok = 0;
    if (!ok || m->first == NULL) {
        free(m->first);
        m->first = NULL;
        return mpi_error(ok ? NCL_ERR_NO_MEMORY : NCL_ERR_INVALID_ARGUMENT,
                         "%s: %s is not a manifest of a saved distributed array", who, path);
    }
    return NCL_OK;
}

static NclStatus load_body(NclMpiComm *c, const char *dir, NclArray **out);

NclStatus NclMpiLoad(NclMpiComm *c, const char *dir, NclArray **out)
{
    static const char who[] = "NclMpiLoad";
    if (c == NULL || dir == NULL || out == NULL)
        return mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who,
                         c == NULL ? "c" : dir == NULL ? "dir" : "out");
    mpi_cmd cmd = {.kind = MPI_CMD_LOAD, .path = dir};
    int opened = 0;
    NclStatus st = mpi_driver_open(c, &cmd, &opened);
    if (st == NCL_OK) st = load_body(c, dir, out);
    mpi_driver_close(c, opened, st == NCL_OK ? *out : NULL);
    return st;
}

static NclStatus load_body(NclMpiComm *c, const char *dir, NclArray **out)
{
    static const char who[] = "NclMpiLoad";
    manifest m;
    memset(&m, 0, sizeof m);
    NclStatus st = read_manifest(who, dir, &m);
    if ((st = mpi_agree(c, st)) != NCL_OK) {
        free(m.first);
        return st;
    }
    NclArray *made = NULL;
    st = NclMpiEmpty(c, m.dtype, m.ndim, m.shape, m.split, NULL, &made);
    if (st != NCL_OK) {
        free(m.first);
        return st;
    }
    const mpi_dist *d = mpi_dist_of(made);
    const int64_t lo = d->offsets[c->rank], hi = lo + d->counts[c->rank];
    for (int q = 0; q < m.parts && st == NCL_OK; q++) {
        const int64_t plo = m.first[q], phi = plo + m.rows[q];
        const int64_t a = plo > lo ? plo : lo, b = phi < hi ? phi : hi;
        if (m.ndim > 0 ? b <= a : (c->rank != 0 || q != 0)) continue;
        char path[4096];
        part_path(path, sizeof path, dir, q);
        NclArray *part = NULL, *src = NULL, *dst = NULL;
        st = NclLoadNpy(path, &part);
        /* the part must be what the manifest says */
        if (st == NCL_OK) {
            int fits = NclArrayDType(part) == m.dtype && NclArrayNDim(part) == m.ndim;
            for (int i = 0; fits && i < m.ndim; i++)
                fits = NclArrayShape(part)[i] == (i == m.split ? m.rows[q] : m.shape[i]);
            if (!fits)
                st = mpi_error(NCL_ERR_INVALID_ARGUMENT, "%s: %s does not hold the rows the "
                               "manifest gives it", who, path);
        }
        NclArray *local = d->local;
        if (st == NCL_OK && m.ndim == 0) st = NclConvert(NCL_CONVERT_COPYTO, part, &local, NULL);
        else if (st == NCL_OK) {
            if ((st = mpi_rows(part, m.split, a - plo, b - plo, &src)) == NCL_OK &&
                (st = mpi_rows(local, m.split, a - lo, b - lo, &dst)) == NCL_OK)
                st = NclConvert(NCL_CONVERT_COPYTO, src, &dst, NULL);
        }
        NclArrayRelease(dst);
        NclArrayRelease(src);
        NclArrayRelease(part);
    }
    free(m.first);
    if ((st = mpi_agree(c, st)) != NCL_OK) {
        NclArrayRelease(made);
        return st;
    }
    *out = made;
    return NCL_OK;
}
