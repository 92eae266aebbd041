/*
 * ncl_defaults.h: NCLib's own implementation of each subsystem, the last
 * node of its level-1 chain. Only the place that links the chains
 * (api/chains.c) names them.
 *
 * defaults/ may include every folder but api/.
 */
#ifndef NCL_SRC_DEFAULTS_H
#define NCL_SRC_DEFAULTS_H

#include "core/ncl_core.h"

NclStatus ncl_default_info(NclHook *self, NclInfoWriter *w);                          /* info.c */
NclStatus ncl_default_create(NclHook *self, NclCreateOp op, const NclCreateParams *p,
                             NclArray **out);                                         /* create.c */
NclStatus ncl_default_convert(NclHook *self, NclConvertOp op, const NclArray *a,
                              NclArray **out, const NclParams *params);              /* elementwise.c */
NclStatus ncl_default_compare(NclHook *self, NclCompareOp op, const NclArray *a,
                              const NclArray *b, NclArray **out, const NclParams *params);
NclStatus ncl_default_isunary(NclHook *self, NclIsUnaryOp op, const NclArray *a,
                              NclArray **out, const NclParams *params);
NclStatus ncl_default_unary(NclHook *self, NclUnaryOp op, const NclArray *a,
                            NclArray **out, const NclParams *params);
NclStatus ncl_default_binary(NclHook *self, NclBinaryOp op, const NclArray *a,
                             const NclArray *b, NclArray **out, const NclParams *params);

NclStatus ncl_default_ternary(NclHook *self, NclTernaryOp op, const NclArray *a,
                              const NclArray *b, const NclArray *c, NclArray **out,
                              const NclParams *params);                              /* elementwise.c */
NclStatus ncl_default_reduce(NclHook *self, NclReduceOp op, const NclArray *a, NclArray **out,
                             const NclParams *params);                               /* reduce.c */
NclStatus ncl_default_sort(NclHook *self, NclSortOp op, const NclArray *a, NclArray **out,
                           const NclParams *params);                                 /* sort.c */
NclStatus ncl_default_mask(NclHook *self, NclMaskOp op, const NclArray *a, const NclArray *b,
                           NclArray **out, const NclParams *params);                 /* mask.c */
NclStatus ncl_default_rng(NclHook *self, NclRngOp op, NclRngGen *gen, const NclArray *a,
                          const NclArray *b, NclArray **out, const NclParams *params);  /* rng.c */
NclStatus ncl_default_linalg(NclHook *self, NclLinalgOp op, const NclArray *a, const NclArray *b,
                             NclArray **out, const NclParams *params);             /* linalg.c */
NclStatus ncl_default_manip(NclHook *self, NclManipOp op, int nin, const NclArray *const *in,
                            NclArray **out, const NclParams *params);                /* manip.c */

#endif /* NCL_SRC_DEFAULTS_H */
