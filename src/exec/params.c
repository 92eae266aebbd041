/*
 * params.c: reading a caller's NclParams, which every subsystem but Create
 * takes: defaults for what an older caller's struct lacks, then dtype and
 * casting validated, with messages in the caller's terms.
 */
#include <string.h>
#include "exec/ncl_exec.h"

NclStatus ncl_params_read(NclSubsystem sub, int op, const NclParams *params, NclParams *p)
{
    static const NclParams defaults = NCL_PARAMS_INIT;
    *p = defaults;
    if (!params) return NCL_OK;
    const size_t need = offsetof(NclParams, casting) + sizeof params->casting;
    if (params->size < need)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "%s(%s): params->size is %u; at least %zu is needed (use "
                         "NCL_PARAMS_INIT)",
                         ncl_sub_fn_name(sub), ncl_op_name(sub, op), (unsigned)params->size,
                         need);
    memcpy(p, params, params->size < sizeof *p ? params->size : sizeof *p);
    if (p->dtype != NCL_DTYPE_DEFAULT && !ncl_dtype_valid(p->dtype))
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "%s(%s): params->dtype %d is not a dtype",
                         ncl_sub_fn_name(sub), ncl_op_name(sub, op), (int)p->dtype);
    if ((unsigned)p->casting > (unsigned)NCL_CASTING_UNSAFE)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "%s(%s): params->casting %d is not a casting rule",
                         ncl_sub_fn_name(sub), ncl_op_name(sub, op), (int)p->casting);
    return NCL_OK;
}
