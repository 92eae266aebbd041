/*
 * api.c: the master head. NclGetApi returns one immutable, statically
 * initialised table: the ABI version, its own size, the version string, the
 * level-1 chain heads, and a pointer to every public function in the order
 * of NCL_API_FUNCTION_LIST. A binding that dlopen()s libncl.so and resolves
 * only "NclGetApi" reaches the whole library through it. Nothing here runs
 * at load time.
 */
#include "hooks/hook_chain.h"

static const NclApi api = {
    .abi_version = NCL_ABI_VERSION,
    .size = (uint32_t)sizeof(NclApi),
    .version = NCL_VERSION_STRING,
    /* Subsystems not built in this version stay NULL. */
    .heads = {
#define NCL_X_(S, f) [NCL_SUBSYSTEM_##S] = &ncl_hook_heads[NCL_SUBSYSTEM_##S],
        NCL_BUILT_SUBSYSTEMS(NCL_X_)
#undef NCL_X_
    },
#define NCL_X_(ret, name, params) .name = &Ncl##name,
    NCL_API_FUNCTION_LIST(NCL_X_)
#undef NCL_X_
};

const NclApi *NclGetApi(void) { return &api; }
