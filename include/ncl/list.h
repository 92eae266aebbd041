/**
 * @file
 * @brief The intrusive doubly-linked list node that every hook embeds
 * (Linux-kernel style list_head), and the forward declarations of the hook
 * node types so that each subsystem header can name them.
 *
 * @addtogroup ncl_hooks
 * @{
 */
#ifndef NCL_LIST_H
#define NCL_LIST_H

#include <stddef.h>
#include "export.h"

NCL_BEGIN_DECLS

/** A link of a circular doubly-linked list, embedded in each hook node
    (NclHook::list, NclKernelNode::list). The hook functions take and give
    these links; NCL_CONTAINER_OF gets the node back. A node's links belong
    to NCLib while it is in a chain: never write them. */
typedef struct NclListHead {
    /** @var next
        The following link: the next node, or the chain's head after the last.
        @var prev
        The preceding link. */
    struct NclListHead *next, *prev;
} NclListHead;

/** Level-1 hook node (one per inserted API hook); defined in ncl/hooks.h. */
typedef struct NclHook NclHook;
/** Level-2 kernel node (one per inserted inner-loop kernel); ncl/hooks.h. */
typedef struct NclKernelNode NclKernelNode;

/** The enclosing struct of an embedded member, as the Linux kernel's
    container_of: `NCL_CONTAINER_OF(node, NclHook, list)` is the NclHook
    whose `list` member node points at. */
#define NCL_CONTAINER_OF(ptr, type, member) \
    ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

NCL_END_DECLS

/** @} */

#endif /* NCL_LIST_H */
