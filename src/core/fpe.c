/*
 * fpe.c: floating-point error flags. Kernels report integer errors through
 * their context's flag sink; float errors come from the hardware status,
 * sampled around kernel execution. The caller's own hardware flags are saved
 * before and restored after, so a call never changes them. At the end of a
 * top-level call this thread's modes decide what the raised flags do.
 *
 * On x86-64 the status lives in MXCSR (all float math here is SSE); reading
 * it is cheap and it is written only when a flag bit must change, which
 * keeps the common no-flag call fast. Elsewhere <fenv.h> does the job.
 */
#include <stdio.h>
#include "core/ncl_core.h"

#if NCL_FPE_MXCSR
/* MXCSR exception flags: IE 0x01, DE 0x02, ZE 0x04, OE 0x08, UE 0x10, PE 0x20
   (ncl_fpe_begin and the unchanged case of ncl_fpe_end are in
   ncl_core.h). The reported flags were clear from the begin on, so any
   set now were raised by the call. */
int ncl_fpe_end_slow(const ncl_fpe_saved *saved, unsigned int csr)
{
    const unsigned int raised = csr & NCL_MXCSR_FLAGS;
    int flags = 0;
    if (raised & 0x01u) flags |= NCL_FPE_INVALID;
    if (raised & 0x04u) flags |= NCL_FPE_DIVIDE;
    if (raised & 0x08u) flags |= NCL_FPE_OVERFLOW;
    if (raised & 0x10u) flags |= NCL_FPE_UNDERFLOW;
    if (raised != saved->bits) __builtin_ia32_ldmxcsr((csr & ~NCL_MXCSR_FLAGS) | saved->bits);
    return flags;
}
#else
#  include <fenv.h>

void ncl_fpe_begin(ncl_fpe_saved *saved)
{
    saved->bits = (unsigned int)fetestexcept(FE_ALL_EXCEPT);
    feclearexcept(FE_ALL_EXCEPT);
}

int ncl_fpe_end(const ncl_fpe_saved *saved)
{
    int flags = 0;
    int raised = fetestexcept(FE_ALL_EXCEPT);
#  ifdef FE_INVALID
    if (raised & FE_INVALID) flags |= NCL_FPE_INVALID;
#  endif
#  ifdef FE_DIVBYZERO
    if (raised & FE_DIVBYZERO) flags |= NCL_FPE_DIVIDE;
#  endif
#  ifdef FE_OVERFLOW
    if (raised & FE_OVERFLOW) flags |= NCL_FPE_OVERFLOW;
#  endif
#  ifdef FE_UNDERFLOW
    if (raised & FE_UNDERFLOW) flags |= NCL_FPE_UNDERFLOW;
#  endif
    feclearexcept(FE_ALL_EXCEPT);
    if (saved->bits) feraiseexcept((int)saved->bits);
    return flags;
}
#endif

/* Category bit -> index into ncl_tls.errmode and a readable name. */
static int category_index(int category)
{
    switch (category) {
    case NCL_FPE_DIVIDE: return 0;
    case NCL_FPE_OVERFLOW: return 1;
    case NCL_FPE_UNDERFLOW: return 2;
    case NCL_FPE_INVALID: return 3;
    default: return -1;
    }
}

static const char *const category_text[4] = {
    "divide by zero", "overflow", "underflow", "invalid value"};

NclStatus NclSetErrMode(int categories, NclErrMode mode)
{
    if (categories & ~NCL_FPE_ALL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "NclSetErrMode: categories 0x%x has bits outside NCL_FPE_ALL (0x%x)",
                         (unsigned)categories, (unsigned)NCL_FPE_ALL);
    if (mode != NCL_ERRMODE_IGNORE && mode != NCL_ERRMODE_RAISE && mode != NCL_ERRMODE_CALL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclSetErrMode: unknown mode %d", (int)mode);
    for (int i = 0; i < 4; i++)
        if (categories & (1 << i)) ncl_tls.errmode[i] = (unsigned char)mode;
    return NCL_OK;
}

NclErrMode NclGetErrMode(int category)
{
    int i = category_index(category);
    return i < 0 ? NCL_ERRMODE_IGNORE : (NclErrMode)ncl_tls.errmode[i];
}

void NclSetErrCallback(NclErrCallback fn, void *user)
{
    ncl_tls.errcall = fn;
    ncl_tls.errcall_user = fn ? user : NULL;
}

int NclGetFPErrors(void) { return ncl_tls.fpe_last; }

NclStatus ncl_fpe_raise_status(int flags, NclSubsystem sub, int op)
{
    for (int i = 0; i < 4; i++) {
        if ((flags & (1 << i)) && ncl_tls.errmode[i] == NCL_ERRMODE_RAISE)
            return ncl_error(NCL_ERR_FLOATING_POINT, "%s(%s): floating-point error: %s encountered",
                             ncl_sub_fn_name(sub), ncl_op_name(sub, op), category_text[i]);
    }
    return NCL_OK;
}

NclStatus ncl_fpe_apply(NclStatus s, int flags, NclSubsystem sub, int op)
{
    if (NCL_LIKELY(flags == 0)) return s;
    if (ncl_tls.errcall) {
        char where[64];
        snprintf(where, sizeof where, "%s(%s)", ncl_sub_fn_name(sub), ncl_op_name(sub, op));
        for (int i = 0; i < 4; i++)
            if ((flags & (1 << i)) && ncl_tls.errmode[i] == NCL_ERRMODE_CALL)
                ncl_tls.errcall(1 << i, where, ncl_tls.errcall_user);
    }
    return s == NCL_OK ? ncl_fpe_raise_status(flags, sub, op) : s;
}
