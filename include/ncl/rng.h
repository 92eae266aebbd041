/**
 * @file
 * @brief The RNG subsystem: seed sequences, bit generators and the
 * distributions drawn from them, bit-identical to NumPy 1.24's Generator.
 *
 * @defgroup ncl_rng RNG
 * @ingroup ncl_subsystems
 * @brief Random numbers: NumPy 1.24's SeedSequence, its five bit
 * generators and its Generator's distributions, value for value, at any
 * thread count.
 *
 * A program seeds an NclSeedSequence (NumPy's `SeedSequence`), makes a bit
 * generator from it (NclRngGenCreate: PCG64, PCG64DXSM, Philox, SFC64 or
 * MT19937, the same state NumPy's generator of that name gets from that
 * seed sequence), and draws with NclRng. Every draw from a generator gives
 * the values `numpy.random.Generator(<bit generator>(seed))` gives for the
 * same calls in the same order, and leaves the generator in the state
 * NumPy's is in afterwards, whatever the number of threads the call was
 * split over.
 *
 * One more generator is NCLib's own: Philox4x32-10 in counter mode
 * (NCL_BITGEN_PHILOX4X32, the engine of C++26's `std::philox4x32`, cuRAND and
 * oneMKL), whose every value is a function of (key, position), so any range
 * of a stream can be drawn on its own (NclRngGenFromKey), by any thread or
 * process, with nothing handed over. Its distributions are NumPy's
 * Generator's formulas over its 64-bit and 32-bit draws.
 *
 * A generator is not locked: calls that draw from one generator must not
 * run at the same time (NumPy's generators take a lock; here the caller
 * decides). Different generators may be used from different threads
 * freely.
 * @{
 */
#ifndef NCL_RNG_H
#define NCL_RNG_H

#include <stddef.h>
#include <stdint.h>
#include "export.h"
#include "status.h"
#include "dtype.h"
#include "array.h"
#include "params.h"
#include "list.h"

NCL_BEGIN_DECLS

/* ---- seed sequences --------------------------------------------------------- */

/** NumPy's `SeedSequence`: entropy and a spawn key hashed into a pool of
    four 32-bit words, from which bit generators take their initial state.
    Opaque; made by NclSeedSequenceCreate or NclSeedSequenceSpawn, freed by
    NclSeedSequenceFree. */
typedef struct NclSeedSequence NclSeedSequence;

/**
 * Makes a seed sequence from entropy words and a spawn key, as
 * `numpy.random.SeedSequence(entropy, spawn_key=spawn_key)`. NumPy turns
 * an integer seed into its little-endian 32-bit words (0 is one word 0; a
 * seed below 2^32 is one word; 2^64 + 7 is the three words 7, 0, 1), and a
 * sequence of integers into the concatenation of theirs: pass those words.
 * @param entropy   nentropy words, or NULL when nentropy is 0 (NumPy's
 *                  entropy 0, one word 0, is not the same as none: NumPy
 *                  draws fresh entropy from the OS for none, which this
 *                  function refuses, since a seed must be reproducible).
 * @param nentropy  the number of entropy words, at least 1.
 * @param spawn_key nkey words (NumPy's spawn_key tuple), or NULL.
 * @param nkey      the number of spawn-key words.
 * @param out       receives the new seed sequence.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  out NULL; nentropy 0 or entropy NULL;
 *         spawn_key NULL with nkey > 0; more words than memory can hold.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclSeedSequenceCreate(const uint32_t *entropy, size_t nentropy,
                                        const uint32_t *spawn_key, size_t nkey,
                                        NclSeedSequence **out);
/**
 * Fills words with the next n 32-bit words of the sequence's state, as
 * `SeedSequence.generate_state(n, numpy.uint32)` (always from the start:
 * the sequence does not advance). NumPy's uint64 form pairs them, the
 * first word low.
 * @param ss     the seed sequence.
 * @param words  n words are written.
 * @param n      how many.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  ss NULL, or words NULL with n > 0.
 */
NCL_API NclStatus NclSeedSequenceGenerateState(const NclSeedSequence *ss, uint32_t *words, size_t n);
/**
 * Makes n children, as `SeedSequence.spawn(n)`: child i has ss's entropy
 * and the spawn key ss's key + (k + i), where k counts the children ss has
 * spawned before (k + i appended as NumPy appends an integer: one word
 * below 2^32, else two, low first). On failure no child is made and the
 * count is unchanged.
 * @param ss        the parent; its count of children grows by n.
 * @param n         how many children.
 * @param children  n pointers receive the children, each freed with
 *                  NclSeedSequenceFree.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  ss NULL, or children NULL with n > 0;
 *         a count of children past 2^64 - 1.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclSeedSequenceSpawn(NclSeedSequence *ss, size_t n, NclSeedSequence **children);
/** Frees a seed sequence; NULL is ignored.
    @param ss  the seed sequence. */
NCL_API void NclSeedSequenceFree(NclSeedSequence *ss);

/* ---- bit generators ---------------------------------------------------------- */

/** X-macro list of the bit generators, `X(name, value, text)`, text
    NumPy's class name. @hideinitializer */
#define NCL_BITGEN_LIST(X)                                                        \
    /** O'Neill's PCG XSL-RR 128/64, NumPy's default (`PCG64`). */                \
    X(NCL_BITGEN_PCG64, 0, "PCG64")                                               \
    /** PCG with the DXSM output function and the cheap multiplier             \
        (`PCG64DXSM`). */                                                         \
    X(NCL_BITGEN_PCG64DXSM, 1, "PCG64DXSM")                                       \
    /** Philox 4x64 with 10 rounds, counter-based (`Philox`). */                 \
    X(NCL_BITGEN_PHILOX, 2, "Philox")                                             \
    /** Chris Doty-Humphrey's Small Fast Chaotic generator (`SFC64`). */         \
    X(NCL_BITGEN_SFC64, 3, "SFC64")                                               \
    /** The Mersenne Twister, seeded through a seed sequence (`MT19937`). */     \
    X(NCL_BITGEN_MT19937, 4, "MT19937")                                           \
    /** Philox4x32-10 in counter mode, not one of NumPy's: the 32-bit output     \
        sequence of C++26's `std::philox4x32` (and of Random123's, cuRAND's and  \
        oneMKL's Philox4x32-10 at the same key and counter). Word j of the       \
        stream is lane j mod 4 of Philox4x32-10(key, j / 4), the counter a       \
        128-bit integer whose four 32-bit words, least significant first, are    \
        the block's input words 0-3, starting at 0; the first word comes from     \
        block 0. A 64-bit draw is two consecutive words, the first the low half; \
        a 32-bit draw is one word (no buffered half), a float64 (53 bits of a    \
        64-bit draw) two, a float32 one. So every value is a function of the key \
        and its position only: NclRngGenFromKey starts a generator at any word,  \
        and a call split over threads gives the serial values. Seeded from a     \
        seed sequence, the key is its first two `generate_state` words. */       \
    X(NCL_BITGEN_PHILOX4X32, 5, "Philox4x32")

/** The bit generators, from NCL_BITGEN_LIST. */
typedef enum NclBitGen {
#define NCL_X_(name, value, text) name = value,
    NCL_BITGEN_LIST(NCL_X_)
#undef NCL_X_
    NCL_BITGEN_COUNT ///< How many bit generators there are; not one.
} NclBitGen;

/** A bit generator with its state, including the buffered upper half of a
    64-bit word that a 32-bit draw left (NumPy's `has_uint32`,
    `uinteger`). Opaque; made by NclRngGenCreate, NclRngGenCopy or
    NclRngGenJumped, freed by NclRngGenFree. */
typedef struct NclRngGen NclRngGen;

/**
 * Makes a bit generator seeded from a seed sequence, in the state NumPy's
 * `<kind>(seed_sequence)` starts in.
 * @param kind  which generator.
 * @param seed  the seed sequence (read, not kept).
 * @param out   receives the generator.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  kind not an NclBitGen, seed or out NULL.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclRngGenCreate(NclBitGen kind, const NclSeedSequence *seed, NclRngGen **out);
/**
 * Makes a counter-based generator from its key, at any position of its
 * stream: the state a generator of that key is in after w = word_hi * 2^64
 * + word_lo 32-bit draws, its next word lane w mod 4 of block (counter)
 * w / 4. NCL_BITGEN_PHILOX4X32 only; its key is two words, key[0] the
 * first key word of Philox4x32-10 (C++26's `std::philox4x32(s)` is key
 * {s, 0}, the default-constructed engine {20111115, 0}). On a fresh
 * stream, float64 value i starts at word 2 i and float32 value i at word
 * i, so a process or thread that draws elements [a, b) of a float64 array
 * starts at word 2 a. Positions past 2^128 words are reached with
 * NclRngGenAdvance or NclRngGenJumped. Cost: O(1), whatever the position.
 * @param kind     NCL_BITGEN_PHILOX4X32.
 * @param key      nkey words.
 * @param nkey     2.
 * @param word_lo  the low 64 bits of the position, in 32-bit words.
 * @param word_hi  the high 64 bits of the position.
 * @param out      receives the generator.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  kind not an NclBitGen; key or out NULL;
 *         nkey other than 2.
 * @retval NCL_ERR_UNSUPPORTED  a kind that is not counter-based in this
 *         sense (every NumPy generator; NumPy's Philox included, whose
 *         state NclRngGenSetState sets).
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclRngGenFromKey(NclBitGen kind, const uint32_t *key, size_t nkey, uint64_t word_lo,
                                   uint64_t word_hi, NclRngGen **out);
/**
 * Makes an independent generator in the same state as g.
 * @param g    the generator.
 * @param out  receives the copy.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  g or out NULL.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclRngGenCopy(const NclRngGen *g, NclRngGen **out);
/** Frees a generator; NULL is ignored.
    @param g  the generator. */
NCL_API void NclRngGenFree(NclRngGen *g);
/**
 * The kind of a generator.
 * @param g  the generator.
 * @return its NclBitGen, or -1 when g is NULL (or freed).
 */
NCL_API int NclRngGenKind(const NclRngGen *g);
/**
 * Advances the generator as NumPy's `advance(delta)` does, delta =
 * delta_hi * 2^64 + delta_lo: PCG64 and PCG64DXSM step their LCG delta
 * times (delta 64-bit draws; PCG64DXSM with its cheap multiplier); Philox
 * adds delta to its 256-bit counter (delta blocks of four 64-bit draws)
 * and empties its buffer, as NumPy does: the words left in the current
 * block are dropped, and the next draw starts the block after the new
 * counter. The buffered 32-bit half is dropped, as NumPy drops it.
 * Philox4x32 moves to where delta 64-bit draws would leave it (2 delta
 * words on, in O(1)), with nothing dropped.
 * @param g         the generator.
 * @param delta_lo  the low 64 bits of delta.
 * @param delta_hi  the high 64 bits of delta.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  g NULL.
 * @retval NCL_ERR_UNSUPPORTED  SFC64 or MT19937 (NumPy has no advance for
 *         them); g is unchanged.
 */
NCL_API NclStatus NclRngGenAdvance(NclRngGen *g, uint64_t delta_lo, uint64_t delta_hi);
/**
 * Makes a generator jumped ahead as NumPy's `jumped(jumps)`: PCG64 and
 * PCG64DXSM advance by jumps times 2^128 times the golden ratio's
 * fraction (modulo 2^128); Philox adds jumps * 2^128 to its counter and
 * empties its buffer (as NclRngGenAdvance); MT19937 applies NumPy's jump
 * polynomial (2^128 steps of its recurrence) jumps times, one at a time,
 * to the 624-word window that starts at its position, and ends at the
 * key and position NumPy's ends at (cost: about 20,000 steps of the
 * recurrence per jump). The new generator's buffered half is empty.
 * Philox4x32 adds jumps * 2^64 to its 128-bit counter (2^66 words, 2^65
 * 64-bit draws a jump, modulo its period of 2^130 words), its lane kept: a
 * jump is an advance by 2^65, and 2^64 jumps cover the period.
 * @param g      the generator (unchanged).
 * @param jumps  how many jumps.
 * @param out    receives the jumped generator.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  g or out NULL.
 * @retval NCL_ERR_UNSUPPORTED  SFC64 (NumPy has no jumped for it).
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclRngGenJumped(const NclRngGen *g, uint64_t jumps, NclRngGen **out);
/**
 * Writes the generator's whole state as a byte blob: a header (magic
 * "NCLRNG", format version, kind, length), the generator's words and its
 * buffered half, in a byte order independent of the machine's. With
 * buf NULL (or cap too small), only *size is set.
 * @param g     the generator.
 * @param buf   cap bytes, or NULL.
 * @param cap   the room in buf.
 * @param size  receives the blob's length; may be NULL when buf is given
 *              and big enough.
 * @retval NCL_OK  the blob was written (or buf NULL: *size set).
 * @retval NCL_ERR_INVALID_ARGUMENT  g NULL; buf and size both NULL; buf
 *         too small (*size, when given, says how big it must be).
 */
NCL_API NclStatus NclRngGenGetState(const NclRngGen *g, void *buf, size_t cap, size_t *size);
/**
 * Sets the generator's state from a blob NclRngGenGetState wrote, for a
 * generator of the same kind. A refused blob leaves g unchanged.
 * @param g     the generator.
 * @param buf   the blob.
 * @param size  its length.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  g or buf NULL; a blob without the
 *         magic, of an unknown format version, of the wrong length, of a
 *         kind outside NclBitGen, or of a state no generator can be in (an
 *         even PCG increment, a Mersenne Twister key whose 19937 state
 *         bits are all zero, a position past the buffer or the key, a
 *         buffered-half flag other than 0 or 1, a buffered half for
 *         MT19937 or Philox4x32, which have none, a Philox4x32 lane past
 *         3); the message says which.
 * @retval NCL_ERR_DTYPE  a blob of another kind of generator.
 */
NCL_API NclStatus NclRngGenSetState(NclRngGen *g, const void *buf, size_t size);

/* ---- distributions ------------------------------------------------------------ */

/** X-macro list of the RNG ops, `X(name, text)` in enum order, text the
    name of NumPy's Generator method. a and b are NclRng's parameter
    arrays; "default" is what NULL means. @hideinitializer */
#define NCL_RNG_OP_LIST(X)                                                         \
    /** The bit generator's raw 64-bit words, uint64 (`random_raw`); a, b        \
        NULL. */                                                                   \
    X(NCL_RNG_RAW, "random_raw")                                                   \
    /** Uniform on [0, 1), float64 or float32 (`random`); a, b NULL. */          \
    X(NCL_RNG_RANDOM, "random")                                                    \
    /** Integers from low (a, default 0) to high (b, required), high             \
        excluded unless NclParams::endpoint; any integer dtype or bool,          \
        default int64 (`integers`, Lemire's method). */                          \
    X(NCL_RNG_INTEGERS, "integers")                                                \
    /** Uniform on [low, high): a low (default 0), b high (default 1),          \
        float64 (`uniform`). */                                                   \
    X(NCL_RNG_UNIFORM, "uniform")                                                  \
    /** Standard normal, float64 or float32, ziggurat (`standard_normal`);      \
        a, b NULL. */                                                             \
    X(NCL_RNG_STANDARD_NORMAL, "standard_normal")                                  \
    /** Normal: a loc (default 0), b scale >= 0 (default 1), float64            \
        (`normal`). */                                                            \
    X(NCL_RNG_NORMAL, "normal")                                                    \
    /** Standard exponential, float64 or float32, ziggurat                     \
        (`standard_exponential`); a, b NULL. */                                   \
    X(NCL_RNG_STANDARD_EXPONENTIAL, "standard_exponential")                        \
    /** Exponential: a scale >= 0 (default 1), b NULL, float64                   \
        (`exponential`). */                                                       \
    X(NCL_RNG_EXPONENTIAL, "exponential")                                          \
    /** Standard gamma: a shape >= 0 (required; NaN passes, as in NumPy),      \
        float64 or float32 (`standard_gamma`; float32 computes in float from   \
        the shape rounded to float32). */                                        \
    X(NCL_RNG_STANDARD_GAMMA, "standard_gamma")                                    \
    /** Gamma: a shape >= 0 (required), b scale >= 0 (default 1), float64      \
        (`gamma`). */                                                             \
    X(NCL_RNG_GAMMA, "gamma")                                                      \
    /** Beta: a > 0 and b > 0 (both required; NaN passes), float64 (`beta`). */ \
    X(NCL_RNG_BETA, "beta")                                                        \
    /** Poisson: a lam, 0 <= lam <= 2^63 - 1 - 10 sqrt(2^63 - 1) (default 1),   \
        int64 (`poisson`); b NULL. */                                             \
    X(NCL_RNG_POISSON, "poisson")                                                  \
    /** Binomial: a n >= 0 (required, an integer or bool array, read as int64),\
        b p in [0, 1] (required), int64 (`binomial`). */                         \
    X(NCL_RNG_BINOMIAL, "binomial")                                                \
    /** Shuffles `*out` in place along the axis params->axes[0] (default 0;  \
        naxes 0 or 1), as `shuffle(x, axis)`: sub-arrays along the axis are   \
        swapped by Fisher-Yates from the last index down; a and b NULL, *out  \
        an array of at least one dimension, of any dtype. An empty array      \
        draws nothing. */                                                         \
    X(NCL_RNG_SHUFFLE, "shuffle")                                                  \
    /** A shuffled copy of a along params->axes[0] (default 0), as            \
        `permutation(x, axis)`: the same draws as NCL_RNG_SHUFFLE over the    \
        axis's extent (drawn even when another extent is 0), the result of    \
        a's shape and dtype; a 0-d integer or bool a is NumPy's integer x:    \
        the result is a shuffled arange(max(x, 0)), int64. b NULL. */           \
    X(NCL_RNG_PERMUTATION, "permutation")

/** The RNG ops, from NCL_RNG_OP_LIST, numbered from 0. */
typedef enum NclRngOp {
#define NCL_X_(name, text) name,
    NCL_RNG_OP_LIST(NCL_X_)
#undef NCL_X_
    NCL_RNG_NOPS ///< How many ops there are; not an op.
} NclRngOp;

/**
 * Draws from a distribution, as the NumPy Generator method the op names
 * (NCL_RNG_OP_LIST), value for value.
 *
 * The result's shape is params->shape when it is given (NumPy's `size`),
 * else `*out`'s when one is provided, else the broadcast shape of the
 * parameter arrays (0-d when there are none); the parameter arrays must
 * broadcast to it. Its dtype is params->dtype, else a provided output's,
 * else the op's default (float64; int64 for INTEGERS; uint64 for RAW), and
 * must be one the op produces: RAW uint64; RANDOM, STANDARD_NORMAL,
 * STANDARD_EXPONENTIAL and STANDARD_GAMMA float64 or float32; INTEGERS any
 * integer dtype or bool; POISSON and BINOMIAL int64; the others float64.
 * Values are drawn in C order of the result. SHUFFLE and PERMUTATION are
 * described in NCL_RNG_OP_LIST: they take params->axes (one axis) and no
 * params->shape, and draw their swaps with one kernel call.
 *
 * Parameter arrays may have any real dtype (INTEGERS and BINOMIAL's n: any
 * integer dtype or bool); they are read as float64 (INTEGERS: as int64, or
 * uint64 for an unsigned result; BINOMIAL's n as int64). Every parameter is
 * checked before anything is drawn: a refused call writes nothing and
 * leaves the generator's state as it was.
 *
 * A call of at least the threading threshold is split over the thread pool
 * where the op draws a fixed number of words per value from a generator
 * that can skip ahead (RAW, RANDOM and UNIFORM from PCG64, PCG64DXSM,
 * Philox and Philox4x32): each worker starts its block at its skipped
 * state, and the values and the final state are those of the serial draw.
 * The float64 STANDARD_NORMAL, NORMAL, STANDARD_EXPONENTIAL and EXPONENTIAL
 * with scalar parameters, from PCG64, PCG64DXSM and Philox, are split too,
 * by a speculative chain that gives the serial values and final state
 * (docs/DESIGN.md, Random numbers). The other ops, and SFC64 and MT19937,
 * run on the calling thread. A kernel hook at the head of the level-2
 * chain gets the whole call on the calling thread.
 *
 * @param op      the distribution.
 * @param gen     the bit generator drawn from; its state advances.
 * @param a       the first parameter array (see the op), or NULL.
 * @param b       the second parameter array (see the op), or NULL.
 * @param out     `*out` NULL receives a new array (reference count 1),
 *                else the array written into: writeable, of the result's
 *                dtype exactly (no cast), not overlapping itself.
 * @param params  NULL, or the options: dtype, shape and ndim (the size),
 *                endpoint (INTEGERS); a where mask and axes are refused.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  op out of range; gen or out NULL; a
 *         parameter array the op does not take, or a missing high for
 *         INTEGERS; params malformed, with a where mask or axes, or a
 *         negative ndim, an ndim above NCL_MAXDIMS, ndim > 0 with shape
 *         NULL, or a negative extent; an output that overlaps itself. A
 *         parameter out of its domain, with the parameter named: scale < 0
 *         or not finite (NaN) for NORMAL and EXPONENTIAL; low or high not
 *         finite, or high - low overflowing, for UNIFORM; low >= high
 *         (low > high with endpoint) or a bound outside the result
 *         dtype's range for INTEGERS; shape or scale < 0 (-0.0 too; NaN
 *         passes) for STANDARD_GAMMA and GAMMA; a or b <= 0 for BETA; lam
 *         < 0, NaN or above NumPy's limit (`lam value too large`) for
 *         POISSON; p outside [0, 1] or NaN, n < 0 or past int64 for
 *         BINOMIAL (NumPy's words, which differ for 0-d and n-d
 *         parameters as NumPy's scalar and array paths do); an axis out of
 *         range, or a 0-d array, for SHUFFLE and PERMUTATION.
 * @retval NCL_ERR_DTYPE  a result dtype the op does not produce, a
 *         provided output of another dtype than params->dtype, or a
 *         parameter array of a dtype the op cannot read.
 * @retval NCL_ERR_SHAPE  a provided output of another shape than
 *         params->shape; a result of more elements than int64 counts.
 * @retval NCL_ERR_BROADCAST  a parameter array that does not broadcast to
 *         the result's shape.
 * @retval NCL_ERR_READONLY  the output is not writeable.
 * @retval NCL_ERR_DEVICE_MEMORY  an operand or the output in
 *         NCL_MEM_DEVICE memory.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclRng(NclRngOp op, NclRngGen *gen, const NclArray *a, const NclArray *b, NclArray **out,
                         const NclParams *params);

/** The function of an RNG hook node (NclHook::fn.rng): NclRng's
    parameters with the node itself in front. It may handle the call,
    change the arguments, pass the call on with NclRngNext, or post-process
    what that returns; what it returns is what NclRng returns. */
typedef NclStatus (*NclRngHookFn)(NclHook *self, NclRngOp op, NclRngGen *gen, const NclArray *a,
                                  const NclArray *b, NclArray **out, const NclParams *params);
/**
 * Calls the node after self in the RNG chain with the given arguments.
 * @param self    the calling hook's node.
 * @param op      as NclRng.
 * @param gen     as NclRng.
 * @param a       as NclRng.
 * @param b       as NclRng.
 * @param out     as NclRng.
 * @param params  as NclRng.
 * @return what the next node returns, or:
 * @retval NCL_ERR_INVALID_ARGUMENT  self is NULL, or an array given
 *         (an input, a non-NULL *out, params->where) is not an array
 *         (ncl/array.h).
 * @retval NCL_ERR_HOOK  self is the default implementation, which nothing
 *                       follows.
 */
NCL_API NclStatus NclRngNext(NclHook *self, NclRngOp op, NclRngGen *gen, const NclArray *a, const NclArray *b,
                             NclArray **out, const NclParams *params);

/* ---- level 2 --------------------------------------------------------------------- */

/** The level-2 op of an RNG kernel chain: one chain per (distribution, bit
    generator, result dtype), the dtype in the signature. @hideinitializer */
#define NCL_RNG_KERNEL_OP(op, bitgen) ((int)(op) * 256 + (int)(bitgen))

/** What an RNG kernel gets as NclKernelCtx::aux. The kernel draws its n
    values in order from gen, whose state it leaves after the last word it
    used; its inputs are the op's parameter arrays (float64; INTEGERS:
    low and high as int64, or uint64 for an unsigned result; BINOMIAL: n
    int64, p float64), its one output the values. SHUFFLE's and
    PERMUTATION's kernel has no inputs: its n int64 values are the swaps of
    a Fisher-Yates shuffle of n + 1 positions, value k uniform on
    [0, n - k]. */
typedef struct NclRngKernelAux {
    NclRngGen *gen; ///< The generator this block draws from.
    int endpoint;   ///< INTEGERS: high is included.
} NclRngKernelAux;

NCL_END_DECLS

/** @} */

#endif /* NCL_RNG_H */
