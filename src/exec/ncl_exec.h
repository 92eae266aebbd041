/*
 * ncl_exec.h: what the subsystem defaults share beyond the elementwise
 * planner (plan.h) and type resolution (typeres.h): reading a call's
 * parameters (params.c) and assignment, the copy-with-cast every layer
 * above the arrays uses (assign.c).
 *
 * exec/ includes core/, memory/, array/, runtime/, hooks/ and the kernels'
 * headers; never defaults/ or api/.
 */
#ifndef NCL_SRC_EXEC_H
#define NCL_SRC_EXEC_H

#include "array/ncl_array.h"

/* ---- call parameters (params.c) ------------------------------------------- */

/* The caller's params (NULL = defaults), completed with defaults for the
   fields an older caller's struct lacks, with dtype and casting validated;
   messages name the call as "<NclXxx>(<op>)". */
NclStatus ncl_params_read(NclSubsystem sub, int op, const NclParams *params, NclParams *p);

/* ---- conversion and assignment (assign.c) -------------------------------- */

/* One conversion of a into the dtype `to` under casting, into *out (given
   or allocated), masked by where (may be NULL): the planner with the cast
   kernel as the loop. sub and op name the call for messages and the
   ledger. Inside a call bracket. */
NclStatus ncl_convert_run(NclSubsystem sub, int op, const NclArray *a, NclDType to,
                          NclArray **out, const NclArray *where, NclCasting casting);


/* Copies src, broadcast to dst's shape, into dst with dtype conversion
   under casting: the machinery of COPYTO, for framework users (Create's COPY,
   Reshape's copy). Runs the Convert kernels; planned before any write. */
NclStatus ncl_assign(const char *who, NclArray *dst, const NclArray *src, NclCasting casting);

#endif /* NCL_SRC_EXEC_H */
