/*
 * chains.c: where the library is put together. Each level-1 chain is static
 * data, head -> threader -> default -> head (hooks/hooks.c defines the heads
 * and the threader); this is the one place that names every subsystem's
 * default implementation (defaults/), so the chains' own code never
 * includes what it calls.
 */
#include "defaults/ncl_defaults.h"
#include "hooks/hook_chain.h"

NclHook ncl_default_hooks[NCL_SUBSYSTEM_COUNT] = {
#define NCL_X_(S, f)                                                                           \
    [NCL_SUBSYSTEM_##S] = {                                                                    \
        .list = { &ncl_hook_heads[NCL_SUBSYSTEM_##S], &ncl_threader_hooks[NCL_SUBSYSTEM_##S].list },\
        .name = "ncl_default_" #f,                                                             \
        .user = NULL,                                                                          \
        .fn.f = ncl_default_##f,                                                               \
        .priv = { NCL_NODE_STATE_INIT(NCL_NODE_LINKED | NCL_NODE_BUILTIN, NCL_SUBSYSTEM_##S), \
                  &ncl_hook_heads[NCL_SUBSYSTEM_##S] },                                        \
    },
    NCL_BUILT_SUBSYSTEMS(NCL_X_)
#undef NCL_X_
};
