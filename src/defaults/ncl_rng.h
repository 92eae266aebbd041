/*
 * ncl_rng.h: what the RNG default (rng.c) needs from the bit generators'
 * own file (rng_seed.c) beyond the public functions: whether a generator
 * is live, and skipping a generator's stream ahead by whole 64-bit words,
 * which is how a call split over threads gives each worker its start.
 *
 * defaults/ only; the state itself is kernels/rng/rng_state.h.
 */
#ifndef NCL_SRC_RNG_H
#define NCL_SRC_RNG_H

#include <stdint.h>
#include "core/ncl_core.h"
#include "rng/rng_state.h"

/* Non-zero when g is non-NULL and carries the live magic. */
int ncl_rng_gen_ok(const NclRngGen *g);

/* Non-zero for the kinds ncl_rng_skip_u64 can skip (PCG64, PCG64DXSM,
   Philox, Philox4x32); 0 for the others and for values outside NclBitGen. */
int ncl_rng_can_skip(int kind);

/* Leaves g exactly as n calls of its next_u64 would have left it: PCG64 and
   PCG64DXSM step their LCG n times (O(log n)); Philox uses up what its
   buffer holds, steps its counter by the blocks the rest needs and refills
   the buffer from the last of them, so the next word drawn is the (n+1)-th;
   Philox4x32 moves 2 n words on (O(1)).
   The buffered 32-bit half (has_u32, u32) is not touched: a caller that
   skips words a 32-bit draw would have split handles it itself. g must be
   live (ncl_rng_gen_ok). NCL_ERR_UNSUPPORTED, with a message, for SFC64
   and MT19937, g unchanged. */
NclStatus ncl_rng_skip_u64(NclRngGen *g, uint64_t n);

/* Leaves g as n calls of its next_u32 would: Philox4x32, whose 32-bit
   draws are its own words (no buffered half), moves n words on in O(1).
   NCL_ERR_UNSUPPORTED, with a message, for the others, g unchanged. */
NclStatus ncl_rng_skip_u32(NclRngGen *g, uint64_t n);

#endif /* NCL_SRC_RNG_H */
