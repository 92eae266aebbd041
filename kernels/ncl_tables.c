/*
 * ncl_tables.c: one variant's kernel tables as one array, compiled once per
 * variant like every kernel source (its name takes the variant's suffix),
 * so the registry finds a variant's kernels by one name per level. The
 * tables of sources compiled once are the baseline's in every variant.
 */
#include "ncl_kernel.h"

const ncl_kernel_table ncl_k_tables[NCL_KERNEL_TABLE_COUNT] = {
#define NCL_X_(name) {ncl_k_##name##_table, &ncl_k_##name##_count},
    NCL_KERNEL_TABLE_LIST(NCL_X_)
    NCL_KERNEL_TABLE_ONCE_LIST(NCL_X_)
#undef NCL_X_
};
