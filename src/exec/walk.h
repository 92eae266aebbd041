/*
 * walk.h: C-order walks over up to NCL_WALK_MAXOP operands of one shape,
 * for the executors whose results depend on the order elements are visited
 * in (Mask packs and unpacks in C order; RNG draws its values in C order),
 * unlike the elementwise plan, which may reorder dimensions for memory
 * order.
 *
 *     ncl_walk_dims d;  ncl_walk w;
 *     ncl_walk_dims_init(&d, ndim, shape, nop, strides);
 *     ncl_walk_dims_merge(&d);                 (non-empty shapes only)
 *     ncl_walk_start(&d, &w, base);
 *     do { row of d.shape[d.nd - 1] elements at w.ptr[k], steps d.st[k][d.nd - 1] }
 *     while (ncl_walk_next(&d, d.nd - 1, &w));
 */
#ifndef NCL_WALK_H
#define NCL_WALK_H

#include <string.h>
#include "core/ncl_core.h"

#define NCL_WALK_MAXOP 3

/* Up to NCL_WALK_MAXOP operands over one shape, strides per operand. */
typedef struct ncl_walk_dims {
    int nd, nop;
    int64_t shape[NCL_MAXDIMS];
    int64_t st[NCL_WALK_MAXOP][NCL_MAXDIMS];
} ncl_walk_dims;

/* A 0-d shape becomes a row of one. */
static inline void ncl_walk_dims_init(ncl_walk_dims *d, int nd, const int64_t *shape, int nop,
                                      const int64_t *const *strides)
{
    d->nd = nd;
    d->nop = nop;
    for (int i = 0; i < nd; i++) {
        d->shape[i] = shape[i];
        for (int k = 0; k < nop; k++) d->st[k][i] = strides[k][i];
    }
    if (nd == 0) {
        d->nd = 1;
        d->shape[0] = 1;
        for (int k = 0; k < nop; k++) d->st[k][0] = 0;
    }
}

/* Drops unit dimensions and merges neighbours that every operand steps
   through as one, keeping C order. Leaves at least one dimension. Only for
   non-empty shapes. */
static inline void ncl_walk_dims_merge(ncl_walk_dims *d)
{
    int n = 0;
    for (int i = 0; i < d->nd; i++) {
        if (d->shape[i] == 1) continue;
        int merge = n > 0;
        for (int k = 0; k < d->nop && merge; k++)
            merge = d->st[k][n - 1] == d->st[k][i] * d->shape[i];
        if (merge) {
            d->shape[n - 1] *= d->shape[i];
            for (int k = 0; k < d->nop; k++) d->st[k][n - 1] = d->st[k][i];
            continue;
        }
        d->shape[n] = d->shape[i];
        for (int k = 0; k < d->nop; k++) d->st[k][n] = d->st[k][i];
        n++;
    }
    if (n == 0) {
        d->shape[0] = 1;
        for (int k = 0; k < d->nop; k++) d->st[k][0] = 0;
        n = 1;
    }
    d->nd = n;
}

/* An odometer over the first nwalk dimensions of d, carrying one pointer
   per operand. */
typedef struct ncl_walk {
    int64_t idx[NCL_MAXDIMS];
    char *ptr[NCL_WALK_MAXOP];
} ncl_walk;

static inline void ncl_walk_start(const ncl_walk_dims *d, ncl_walk *w, char *const *base)
{
    memset(w->idx, 0, sizeof w->idx);
    for (int k = 0; k < d->nop; k++) w->ptr[k] = base[k];
}

/* Steps to the next position; 0 once every position was visited. */
static inline int ncl_walk_next(const ncl_walk_dims *d, int nwalk, ncl_walk *w)
{
    for (int i = nwalk - 1; i >= 0; i--) {
        for (int k = 0; k < d->nop; k++) w->ptr[k] += d->st[k][i];
        if (++w->idx[i] < d->shape[i]) return 1;
        for (int k = 0; k < d->nop; k++) w->ptr[k] -= d->st[k][i] * d->shape[i];
        w->idx[i] = 0;
    }
    return 0;
}

#endif /* NCL_WALK_H */
