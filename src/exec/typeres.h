/*
 * typeres.h: loop dtype resolution for the elementwise subsystems.
 */
#ifndef NCL_TYPERES_H
#define NCL_TYPERES_H

#include "hooks/ncl_hooks.h"

/* Resolves the loop dtypes of (sub, op) for the nin input dtypes in[]:
   loop[0 .. nin) are the kernel's input dtypes and loop[nin ..) its
   outputs (ncl_op_nout of them: loop has room for NCL_MAX_OPERANDS).
   dtype is params->dtype (NCL_DTYPE_DEFAULT: NumPy's resolution for array
   operands). *chain receives the loop's kernel chain when it is already
   known (a resolution without dtype=, worked out once), else NULL: the
   caller looks it up. NCL_ERR_DTYPE with a message when no loop fits. */
NclStatus ncl_resolve_loop(NclSubsystem sub, int op, int nin, const NclDType *in,
                           NclDType dtype, NclDType *loop, ncl_kchain **chain);

/* ---- weak scalars (NclWeakScalar, NEP 50) ------------------------------------
   A Binary or Ternary call with weak operands resolves as one whose weak
   operands have the dtypes they stand for: ncl_weak_inputs marks them (bit
   i: in[i]; none in other subsystems, nor where's condition),
   ncl_weak_dtypes replaces their entries in dtypes[] (the inputs' own on
   entry) by the strong operands' dtype (integers; int64 beside bools) or
   float dtype (floats; float64 beside integers and bools), all weak: left
   as they are. After resolution ncl_weak_check refuses, with
   NCL_ERR_CASTING, a weak integer that its loop dtype cannot hold. */
unsigned ncl_weak_inputs(NclSubsystem sub, int op, int nin, const NclArray *const *in);
void ncl_weak_dtypes(NclSubsystem sub, int op, int nin, const NclArray *const *in, unsigned weak,
                     NclDType *dtypes);
NclStatus ncl_weak_check(NclSubsystem sub, int op, int nin, const NclArray *const *in,
                         unsigned weak, const NclDType *loop);

/* ---- the resolved-loop cache (calls without dtype=) ------------------------- */

/* What a call without dtype= runs for one op and input dtypes: the loop
   dtype of its inputs (for Compare, the first input's: compare loops take
   every pair as it is), the loop's output dtype and its kernel chain (NULL
   only when the registry could not be built) and, where the inputs are
   cast to the loop, a fused kernel that reads them as they are. loop is
   NCL_NO_LOOP where NumPy refuses the dtypes. */
enum { NCL_NO_LOOP = 0xFF };
typedef struct ncl_resolved {
    uint8_t loop, out;
    uint8_t loop1; /* the second input's loop dtype: loop, but for ldexp */
    uint8_t out2;  /* a second output's dtype, or NCL_NO_LOOP when one output */
    ncl_kchain *chain; /* chains live as long as the library */
    ncl_kchain *fused; /* the fused kernel's chain for these exact input dtypes
                          (plan.h, ncl_ew_fused), or NULL */
} ncl_resolved;

extern ncl_resolved ncl_binary_cache[NCL_BINARY_NOPS][NCL_NTYPES][NCL_NTYPES];
extern ncl_resolved ncl_compare_cache[NCL_COMPARE_NOPS][NCL_NTYPES][NCL_NTYPES];
extern ncl_resolved ncl_unary_cache[NCL_UNARY_NOPS][NCL_NTYPES];
extern ncl_resolved ncl_isunary_cache[NCL_ISUNARY_NOPS][NCL_NTYPES];
/* Non-zero (acquire) once the tables are complete; ncl_typeres_init builds
   them once, whichever thread gets there first. */
extern int ncl_typeres_ready;
void ncl_typeres_init(void);

NCL_INLINE void ncl_typeres_need(void)
{
    if (NCL_UNLIKELY(!__atomic_load_n(&ncl_typeres_ready, __ATOMIC_ACQUIRE))) ncl_typeres_init();
}

/* op and the dtypes must be in range. */
NCL_INLINE const ncl_resolved *ncl_resolved_binary(int op, NclDType a, NclDType b)
{
    ncl_typeres_need();
    return &ncl_binary_cache[op][a][b];
}
NCL_INLINE const ncl_resolved *ncl_resolved_compare(int op, NclDType a, NclDType b)
{
    ncl_typeres_need();
    return &ncl_compare_cache[op][a][b];
}
NCL_INLINE const ncl_resolved *ncl_resolved_unary(int op, NclDType a)
{
    ncl_typeres_need();
    return &ncl_unary_cache[op][a];
}
NCL_INLINE const ncl_resolved *ncl_resolved_isunary(int op, NclDType a)
{
    ncl_typeres_need();
    return &ncl_isunary_cache[op][a];
}

#endif /* NCL_TYPERES_H */
