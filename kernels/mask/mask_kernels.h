/*
 * mask_kernels.h: the kernel ABI of the Mask subsystem, shared by the
 * built-in loops (mask_kernels.c) and the default implementation
 * (src/defaults/mask.c). Nothing else lives here.
 *
 * Every Mask kernel chain is keyed by (NCL_SUBSYSTEM_MASK, op, {in, out}):
 * two dtypes. The kernels receive NclKernelFn's arguments; what args, steps,
 * n and ctx->aux (always a const ncl_mask_aux *) mean depends on the op:
 *
 * COMPRESS {T, T}: args = {data, mask, out}, steps = {data, mask, out}.
 *   Copies the elements of data whose mask byte is non-zero to out, packed,
 *   in order, and stores how many in *aux->count. The kernel may write only
 *   out[0 .. count): a branch-free loop that writes every element and
 *   advances by the mask bit must stop after the last true element.
 *
 * PUT {T, T}: args = {values, mask, target}, steps = {values, mask, target};
 *   a values step of 0 means one value for every true element.
 *   For i in [0, n) with mask[i] non-zero: target[i] = values[j++], in
 *   order, using at most aux->avail values. Stores the values used in
 *   *aux->count and the target elements passed in *aux->done: n, or the
 *   first true element it had no value left for (it is not written).
 *
 * TAKE {T, T}: args = {src, indices, out}, steps = {src, indices, out}.
 *   indices are int64, already checked to lie in [0, extent) and made
 *   non-negative. For j in [0, n), moves aux->inner elements
 *   (aux->inner >= 1) from src + indices[j] * steps[0] to
 *   out + j * steps[2], element k of each at aux->src_inner_step and
 *   aux->out_inner_step bytes from the first.
 *
 * NONZERO {T, int64}: args = {a, out}, steps = {a, out}.
 *   Counts the elements of a that are true (non-zero; NaN is true, -0.0 is
 *   false) into *aux->count. When args[1] is not NULL it also writes
 *   aux->base + i as int64 for each true element i, packed, and (as for
 *   COMPRESS) nothing beyond the last of them. With args[1] NULL it is the
 *   count the other ops plan with; the framework uses the {bool, int64}
 *   chain so to count a mask.
 *
 * SEARCHSORTED {T, int64}: args = {a, keys, out}, steps = {a, keys, out}.
 *   a holds aux->alen elements in ascending order (NumPy's order: NaN
 *   last, -0.0 equal to 0.0), or, when aux->sorter is not NULL, a[sorter[i]]
 *   for i in [0, alen) is ascending (sorter: alen int64 entries, already
 *   checked to lie in [0, alen)). For j in [0, n): out[j] = the number of
 *   elements of a less than keys[j] (aux->side NCL_SIDE_LEFT), or less
 *   than or equal to it (NCL_SIDE_RIGHT), as int64. An a that is not
 *   sorted gives some index in [0, alen), never a read outside a.
 *
 * COMPRESS, PUT and TAKE move bytes only, so one loop per element size
 * serves every dtype of that size; the chains of each dtype are keyed
 * separately (a hook can take over one dtype) and point at the shared loop.
 * Operands may be misaligned and have any step; data never overlaps out.
 */
#ifndef NCL_MASK_KERNELS_H
#define NCL_MASK_KERNELS_H

#include <stdint.h>

/* What ctx->aux points at for every Mask kernel; fields an op does not use
   are ignored. The framework owns it: count and done point at its own
   variables. */
typedef struct ncl_mask_aux {
    int64_t *count;         /* out: COMPRESS, PUT, NONZERO (see above) */
    int64_t *done;          /* out: PUT */
    int64_t avail;          /* in: PUT, values available at args[0] */
    int64_t base;           /* in: NONZERO, index of a's first element */
    int64_t inner;          /* in: TAKE, elements moved per index (>= 1) */
    int64_t src_inner_step; /* in: TAKE */
    int64_t out_inner_step; /* in: TAKE */
    int64_t alen;           /* in: SEARCHSORTED, the length of a */
    int side;               /* in: SEARCHSORTED, NCL_SIDE_LEFT or NCL_SIDE_RIGHT */
    const int64_t *sorter;  /* in: SEARCHSORTED, NULL or alen indices that sort a */
} ncl_mask_aux;

#endif /* NCL_MASK_KERNELS_H */
