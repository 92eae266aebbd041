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

_Static_assert(NCL_VERSION_NUMBER ==
                   NCL_VERSION_MAJOR * 10000 + NCL_VERSION_MINOR * 100 + NCL_VERSION_PATCH,
               "NCL_VERSION_NUMBER agrees with its parts");

int NclVersionNumber(void) { return NCL_VERSION_NUMBER; }

NclStatus NclCheckVersion(int header_version, int header_abi)
{
    const int major = header_version / 10000, minor = header_version / 100 % 100;
    if (header_version < 0 || header_abi != NCL_ABI_VERSION || major != NCL_VERSION_MAJOR ||
        minor > NCL_VERSION_MINOR)
        return ncl_error(NCL_ERR_UNSUPPORTED,
                         "NclCheckVersion: the program was compiled with NCLib %d.%d.%d headers "
                         "(ABI %d) but runs with the library %s (ABI %d): %s",
                         major, minor, header_version % 100, header_abi, NCL_VERSION_STRING,
                         NCL_ABI_VERSION,
                         header_abi != NCL_ABI_VERSION || major != NCL_VERSION_MAJOR
                             ? "another ABI"
                             : "the library is older than the headers and lacks what they add");
    return NCL_OK;
}
