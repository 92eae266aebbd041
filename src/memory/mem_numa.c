/*
 * mem_numa.c: "ncl_numa<N>", handlers whose memory is bound to one NUMA
 * node through hwloc. The topology is discovered once, on the first
 * NclMemNumaHandlerInit, and kept for the life of the process (handlers and
 * the arrays they allocated may outlive any caller's interest in it). A
 * handler's ctx is the hwloc object of its node, whose nodeset the topology
 * owns. Each block carries a 64-byte header with its length, which
 * hwloc_free needs and realloc is not told.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <hwloc.h>
#include "memory/ncl_memory.h"

#define HDR 64

static pthread_once_t topo_once = PTHREAD_ONCE_INIT;
static hwloc_topology_t topo;
static int topo_ok;

static void topo_load(void)
{
    if (hwloc_topology_init(&topo) != 0) return;
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return;
    }
    topo_ok = 1;
}

static size_t *len_slot(void *raw) { return (size_t *)raw; }

static void *numa_alloc(void *ctx, size_t size, int zero)
{
    hwloc_obj_t node = (hwloc_obj_t)ctx;
    if (size > SIZE_MAX - HDR) return NULL;
    size_t len = HDR + size;
    /* Not HWLOC_MEMBIND_STRICT: where the kernel refuses the binding (a
       sandbox filtering mbind, say) the memory is still usable, and on a
       one-node machine binding changes nothing anyway. */
    void *raw = hwloc_alloc_membind(topo, len, node->nodeset, HWLOC_MEMBIND_BIND,
                                    HWLOC_MEMBIND_BYNODESET);
    if (raw == NULL) return NULL;
    *len_slot(raw) = len;
    char *user = (char *)raw + HDR;
    /* hwloc may fall back to posix_memalign on some systems: zero it. */
    if (zero) memset(user, 0, size);
    return user;
}

static void *n_malloc(void *ctx, size_t size) { return numa_alloc(ctx, size, 0); }

static void *n_calloc(void *ctx, size_t nelem, size_t elsize)
{
    if (elsize != 0 && nelem > SIZE_MAX / elsize) return NULL;
    return numa_alloc(ctx, nelem * elsize, 1);
}

static void n_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size;
    if (ptr == NULL) return;
    void *raw = (char *)ptr - HDR;
    hwloc_free(topo, raw, *len_slot(raw));
}

static void *n_realloc(void *ctx, void *ptr, size_t new_size)
{
    void *p = numa_alloc(ctx, new_size, 0);
    if (p == NULL || ptr == NULL) return p;
    size_t old = *len_slot((char *)ptr - HDR) - HDR;
    memcpy(p, ptr, old < new_size ? old : new_size);
    n_free(ctx, ptr, old);
    return p;
}

NclStatus NclMemNumaHandlerInit(NclMemHandler *out, int numa_node)
{
    if (out == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT, "NclMemNumaHandlerInit: out is NULL");
    if (numa_node < 0)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "NclMemNumaHandlerInit: NUMA node %d is negative", numa_node);
    pthread_once(&topo_once, topo_load);
    if (!topo_ok)
        return ncl_error(NCL_ERR_UNSUPPORTED,
                         "NclMemNumaHandlerInit: hwloc could not discover the topology");
    const int nnodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(topo, (unsigned)numa_node);
    if (node == NULL)
        return ncl_error(NCL_ERR_INVALID_ARGUMENT,
                         "NclMemNumaHandlerInit: this machine has no NUMA node %d "
                         "(it has %d node%s)", numa_node, nnodes, nnodes == 1 ? "" : "s");
    const struct hwloc_topology_support *sup = hwloc_topology_get_support(topo);
    const int can_bind = sup != NULL && sup->membind != NULL && sup->membind->bind_membind &&
                         (sup->membind->alloc_membind || sup->membind->set_area_membind);
    if (!can_bind && nnodes > 1)
        return ncl_error(NCL_ERR_UNSUPPORTED,
                         "NclMemNumaHandlerInit: hwloc cannot bind memory to NUMA nodes "
                         "on this system");
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "ncl_numa%d", numa_node);
    out->version = 1;
    out->allocator.ctx = node;
    out->allocator.malloc = n_malloc;
    out->allocator.calloc = n_calloc;
    out->allocator.realloc = n_realloc;
    out->allocator.free = n_free;
    return NCL_OK;
}
