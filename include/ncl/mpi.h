/**
 * @file
 * @brief Distributed arrays over MPI (`libncl_mpi`).
 * @defgroup ncl_mpi Distributed arrays (MPI)
 * @brief Arrays split across the processes of an MPI communicator, computed
 * by the same calls as local arrays, with the same bits.
 *
 * `libncl_mpi` is a library of its own beside `libncl` (which never links
 * MPI); this is the only NCLib header that includes `<mpi.h>`. A program
 * links both (CMake: `NCL::ncl_mpi`).
 *
 * A distributed array is an NclArray (an external one, NclArrayFromExt)
 * with a global shape, split along one axis: rank r holds the rows
 * [offsets[r], offsets[r] + counts[r]) of that axis, 64-bit counts, as an
 * ordinary C-ordered array allocated by that rank's current NEP 49 handler
 * (NclMpiLocal gives it). Every rank holds a handle of the same array.
 *
 * NclMpiAttach puts a hook in front of every subsystem chain. A hook takes
 * a call over only when one of its arrays is distributed; otherwise it
 * passes the call on after one test per array. Calls are SPMD: every rank
 * of the communicator makes the same call with its own handles (and the
 * same arrays that are not distributed, which are then replicated: each
 * rank passes an equal copy). The work of each rank goes through the rest
 * of the local chain, so the thread pool and the SIMD kernels apply inside
 * each process.
 *
 * What a distributed call does:
 * - Convert, Compare, IsUnary, Unary, Binary, Ternary: elementwise with
 *   broadcasting and casting; the result is split as the first distributed
 *   operand of the result's shape (or as a provided distributed output).
 *   A distributed operand split otherwise is moved to that layout first;
 *   one of another (broadcast) shape is gathered whole on every rank. An
 *   operand that is not distributed, and params->where, is sliced to each
 *   rank's rows. A provided output must be distributed.
 * - Reduce: SUM, PROD, MIN, MAX, ANY, ALL, COUNT_NONZERO over any axes,
 *   with keepdims, dtype and initial, MEAN, and ARGMIN, ARGMAX (64-bit
 *   global indices, the first extreme): over axes that keep the split axis
 *   the result stays distributed (no communication); over the split axis
 *   every rank gets the whole result as an ordinary array. Float SUM and
 *   PROD there follow the library's reduction tree (ncl/reduce.h): the
 *   rows are moved to chunk boundaries if they are not there, each rank
 *   reduces its chunks into the tree's aligned subtrees, and those are
 *   combined in the tree's order (NclReduceChunksLo), so the bits do not
 *   depend on the number of processes or threads, and a rank sends a few
 *   pairs whatever the size.
 * - Sort: SORT and ARGSORT along any axis; along the split axis of a 1-d
 *   array a sample sort keyed by (value, global index), so ARGSORT and the
 *   stable kind give the stable sort's order at any process count; the
 *   result keeps the input's layout.
 * - Mask: COMPRESS (a[mask], balanced), NONZERO, TAKE along any axis or of
 *   the flattened array, with ordinary or distributed indices (the result
 *   split as the indices are, or along its first axis, balanced), and PUT
 *   into a distributed target (each rank puts its run of the values).
 * - RNG: every distribution into a distributed output (or of the layout of
 *   a distributed parameter of the result's shape), with the values and the
 *   generator's final state of one process: the ranks' generators must be
 *   in the same state (checked). One 64-bit word per value from a
 *   generator that can skip (RAW, RANDOM and UNIFORM in float64 from PCG64,
 *   PCG64DXSM or Philox4x32): each rank draws its rows at once. The other
 *   ops draw rank after rank, each from where the one before ended (a
 *   stream's values depend on all those before them). INTEGERS of 8 and 16
 *   bits and bool are drawn whole on rank 0 and scattered (their values
 *   share 32-bit words within one call). SHUFFLE and PERMUTATION of a
 *   distributed array: rank 0 draws the permutation of the axis (the same
 *   words), and the array is taken with it.
 * - where= in reductions over the split axis: float SUM and PROD keep the
 *   tree (a masked element is the identity in its place, as in one call),
 *   the exact ops combine masked partials, MEAN divides the masked sum by
 *   the masked count; MIN and MAX under a mask without initial=, and
 *   ARGMIN and ARGMAX with where= or a provided output, reduce the
 *   gathered operand on every rank.
 * - An ordinary (not distributed) output for a distributed result: every
 *   rank's output receives the whole result, computed on every rank from
 *   the gathered operands. NclCopy and Create's COPY give a distributed
 *   copy of the source's layout (its partitions C ordered).
 * - CUMSUM and CUMPROD along any axis and of the flattened array: along
 *   the split axis integer accumulators (which wrap) carry every rank's
 *   start at once; float ones, which are sequential, go rank after rank,
 *   each from the last row of the one before.
 * - What is not distributed yet (PARTITION and ARGPARTITION) is refused on
 *   every rank with NCL_ERR_UNSUPPORTED. docs/DISTRIBUTED.md lists it.
 *   Linalg (matmul, dot) has no distributed form yet: a distributed
 *   operand reaches the local default, which refuses it as it refuses
 *   every external array (NCL_ERR_UNSUPPORTED).
 *
 * Errors: every rank returns the same status and message for a failed
 * call (the ranks agree before a result is committed), and a call whose
 * op, dtypes, shapes or layouts differ between ranks is refused on all of
 * them with NCL_ERR_INVALID_ARGUMENT. MPI failures are returned as
 * NCL_ERR_COMM with MPI's error string (the communicator's error
 * handler is MPI_ERRORS_RETURN). A process that dies ends the job
 * (mpiexec's behaviour; MPI 4.0 has no recovery).
 * @{
 */
#ifndef NCL_MPI_H
#define NCL_MPI_H

#include <mpi.h>
#include "../ncl.h"

NCL_BEGIN_DECLS

/** The library's own export mark (libncl_mpi.so). @hideinitializer */
#if defined(NCL_MPI_BUILDING)
#  define NCL_MPI_API __attribute__((visibility("default")))
#else
#  define NCL_MPI_API
#endif

/** A duplicated communicator the distributed arrays of a program use
    (opaque). */
typedef struct NclMpiComm NclMpiComm;

/** Which rank NclMpiGather sends the whole array to: every one. */
#define NCL_MPI_ALL (-1)

/**
 * Duplicates comm for NCLib's use and, the first time, hooks the
 * distributed implementation in front of every subsystem chain. MPI must
 * be initialised (MPI_THREAD_FUNNELED at least when NCLib's thread pool is
 * used: only the thread that calls NCLib calls MPI). Collective over comm.
 * @param comm  the communicator; NCLib works on its own duplicate.
 * @param out   receives the handle (free it with NclMpiDetach).
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  out NULL, comm MPI_COMM_NULL, or MPI
 *         not initialised.
 * @retval NCL_ERR_NO_MEMORY
 * @retval NCL_ERR_COMM  an MPI call failed (its message).
 */
NCL_MPI_API NclStatus NclMpiAttach(MPI_Comm comm, NclMpiComm **out);
/**
 * Drops the handle. The duplicate communicator is freed when the last
 * distributed array on it is released too; the hooks are removed with the
 * last handle. Collective over the communicator. NULL is ignored.
 * @param c  a handle from NclMpiAttach.
 */
NCL_MPI_API void NclMpiDetach(NclMpiComm *c);
/** The number of processes and this process's rank in c.
    @param c      a handle.
    @param size   receives the number of processes (may be NULL).
    @param rank   receives this process's rank (may be NULL).
    @retval NCL_OK
    @retval NCL_ERR_INVALID_ARGUMENT  c NULL. */
NCL_MPI_API NclStatus NclMpiCommInfo(const NclMpiComm *c, int *size, int *rank);

/** The layout of a distributed array (NclMpiLayout). */
typedef struct NclMpiLayoutInfo {
    int nranks;              ///< Processes of its communicator.
    int rank;                ///< This process's rank.
    int split;               ///< The split axis (0 for a 0-d array, which rank 0 holds).
    const int64_t *counts;   ///< nranks counts of rows of the split axis, owned by the array.
    const int64_t *offsets;  ///< nranks first rows, owned by the array.
} NclMpiLayoutInfo;

/**
 * Whether a is a distributed array of this library.
 * @param a  an array, or NULL.
 * @return 1 or 0.
 */
NCL_MPI_API int NclMpiIsDistributed(const NclArray *a);
/**
 * The layout of a distributed array; valid while the array lives.
 * @param a     a distributed array.
 * @param info  receives it.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  a not distributed, or info NULL.
 */
NCL_MPI_API NclStatus NclMpiLayout(const NclArray *a, NclMpiLayoutInfo *info);
/**
 * This rank's partition of a distributed array, as an ordinary array that
 * shares its memory (writes through it change the distributed array), and
 * the global index of its first row along the split axis.
 * @param a       a distributed array.
 * @param local   receives a new reference (release it).
 * @param offset  receives the first row (may be NULL).
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  a not distributed, or local NULL.
 */
NCL_MPI_API NclStatus NclMpiLocal(const NclArray *a, NclArray **local, int64_t *offset);

/**
 * A new distributed array with uninitialised elements, split along split
 * (counts NULL: balanced; else every rank's count, equal on all ranks and
 * summing to the extent). Balanced means in blocks of NCL_REDUCE_CHUNK rows
 * when every rank gets at least one (the last rank takes the rest), so
 * that a reduction over the split axis moves no rows; for fewer rows the
 * first extent % nranks ranks take one row more. Collective.
 * @param c       the communicator.
 * @param dtype   the element type.
 * @param ndim    0..NCL_MAXDIMS.
 * @param shape   the global extents (NULL when ndim is 0).
 * @param split   the split axis, 0..ndim-1 (negative counts from the end;
 *                0 for a 0-d array).
 * @param counts  NULL, or nranks row counts.
 * @param out     receives the array; untouched on failure.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  c, out NULL, dtype not a dtype,
 *         counts negative or not summing to the extent, or arguments that
 *         differ between ranks.
 * @retval NCL_ERR_AXIS   split out of range.
 * @retval NCL_ERR_SHAPE  as NclEmpty.
 * @retval NCL_ERR_NO_MEMORY
 * @retval NCL_ERR_COMM  an MPI call failed.
 */
NCL_MPI_API NclStatus NclMpiEmpty(NclMpiComm *c, NclDType dtype, int ndim, const int64_t *shape,
                                  int split, const int64_t *counts, NclArray **out);
/** As NclMpiEmpty, with every element zero.
    @param c       as NclMpiEmpty.
    @param dtype   as NclMpiEmpty.
    @param ndim    as NclMpiEmpty.
    @param shape   as NclMpiEmpty.
    @param split   as NclMpiEmpty.
    @param counts  as NclMpiEmpty.
    @param out     as NclMpiEmpty.
    @return as NclMpiEmpty. */
NCL_MPI_API NclStatus NclMpiZeros(NclMpiComm *c, NclDType dtype, int ndim, const int64_t *shape,
                                  int split, const int64_t *counts, NclArray **out);
/** As NclMpiEmpty, with every element value (one element of dtype).
    @param c       as NclMpiEmpty.
    @param dtype   as NclMpiEmpty.
    @param ndim    as NclMpiEmpty.
    @param shape   as NclMpiEmpty.
    @param split   as NclMpiEmpty.
    @param counts  as NclMpiEmpty.
    @param value   the element, in dtype's representation.
    @param out     as NclMpiEmpty.
    @return as NclMpiEmpty; NCL_ERR_INVALID_ARGUMENT for value NULL. */
NCL_MPI_API NclStatus NclMpiFull(NclMpiComm *c, NclDType dtype, int ndim, const int64_t *shape,
                                 int split, const int64_t *counts, const void *value,
                                 NclArray **out);
/**
 * NclArange's values (start + i * step, as NclArange computes them),
 * split in balance over the ranks. Collective.
 * @param c      the communicator.
 * @param dtype  as NclArange.
 * @param start  as NclArange.
 * @param stop   as NclArange.
 * @param step   as NclArange.
 * @param out    receives the 1-d distributed array.
 * @return as NclArange and NclMpiEmpty.
 */
NCL_MPI_API NclStatus NclMpiArange(NclMpiComm *c, NclDType dtype, double start, double stop,
                                   double step, NclArray **out);
/**
 * Splits an array that root holds into a distributed one (counts as
 * NclMpiEmpty). Collective; only root's a is read (the others pass NULL or
 * anything), and its dtype and shape are sent to the others.
 * @param c       the communicator.
 * @param root    the rank that holds a.
 * @param a       on root, the array (any strides); ignored elsewhere.
 * @param split   the split axis.
 * @param counts  NULL (balanced), or nranks counts.
 * @param out     receives the distributed array.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  c or out NULL, root out of range, a
 *         NULL or not an ordinary array on root (every rank returns it).
 * @retval NCL_ERR_AXIS  split out of range.
 * @retval NCL_ERR_NO_MEMORY
 * @retval NCL_ERR_COMM  an MPI call failed.
 */
NCL_MPI_API NclStatus NclMpiScatter(NclMpiComm *c, int root, const NclArray *a, int split,
                                    const int64_t *counts, NclArray **out);
/**
 * The whole of a distributed array as an ordinary C-ordered array, on root
 * or, with root NCL_MPI_ALL, on every rank. Collective; messages of any
 * size (the transfers are cut below 2^31 bytes).
 * @param a     a distributed array.
 * @param root  a rank, or NCL_MPI_ALL.
 * @param out   receives the array on the ranks that get it; set to NULL
 *              on the others.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  a not distributed, out NULL, or root
 *         out of range.
 * @retval NCL_ERR_NO_MEMORY
 * @retval NCL_ERR_COMM  an MPI call failed.
 */
NCL_MPI_API NclStatus NclMpiGather(const NclArray *a, int root, NclArray **out);
/**
 * The same global array split along another axis or with other counts
 * (counts NULL: balanced). Collective; rows move by one all-to-all.
 * @param a       a distributed array.
 * @param split   the new split axis.
 * @param counts  NULL, or nranks counts.
 * @param out     receives the new distributed array.
 * @return as NclMpiEmpty; NCL_ERR_INVALID_ARGUMENT for a not distributed.
 */
NCL_MPI_API NclStatus NclMpiRedistribute(const NclArray *a, int split, const int64_t *counts,
                                         NclArray **out);

/**
 * Saves a distributed array to the folder dir (created if missing; one
 * level): every rank writes its partition as `part-<rank>.npy` (NumPy's
 * format, NclSaveNpy), and rank 0 writes `manifest.txt` (dtype, shape,
 * split axis, and every part's rows). Collective; the same status on every
 * rank. Files of an earlier save with more parts are removed by rank 0.
 * @param a    a distributed array.
 * @param dir  the folder; the same path on every rank (a shared file
 *             system when the ranks are on several machines).
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  a not distributed, or dir NULL, or a
 *         file or folder that cannot be written (the message names it).
 * @retval NCL_ERR_NO_MEMORY
 * @retval NCL_ERR_COMM  an MPI call failed.
 */
NCL_MPI_API NclStatus NclMpiSave(const NclArray *a, const char *dir);
/**
 * Loads what NclMpiSave wrote, with any number of processes: the array is
 * split along the saved split axis, balanced over this communicator's
 * ranks, and each rank reads the rows of the parts that overlap its own.
 * Collective; the same status on every rank.
 * @param c    the communicator.
 * @param dir  the folder.
 * @param out  receives the distributed array.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  c, dir or out NULL; a missing or
 *         malformed manifest or part (the message names the file).
 * @retval NCL_ERR_NO_MEMORY
 * @retval NCL_ERR_COMM  an MPI call failed.
 */
NCL_MPI_API NclStatus NclMpiLoad(NclMpiComm *c, const char *dir, NclArray **out);

/**
 * Driver mode, the proposal's control process: rank 0 runs the program and
 * the other ranks serve it. Collective. On rank 0 it returns at once; from
 * then on every libncl_mpi function and every call on a distributed array
 * that rank 0 makes is sent to the others, which make it too with their
 * own handles (ordinary operands travel with the call), and a distributed
 * array rank 0's program releases is released there too. On the other
 * ranks it serves those calls and returns only when rank 0 calls
 * NclMpiDriverEnd. In driver mode NclMpiScatter's root is rank 0.
 * @code
 *   NclMpiDriverBegin(c);
 *   if (rank == 0) { ... the program ...; NclMpiDriverEnd(c); }
 * @endcode
 * @param c  the communicator.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  c NULL, or not every rank called it.
 * @retval NCL_ERR_COMM  an MPI call failed.
 */
NCL_MPI_API NclStatus NclMpiDriverBegin(NclMpiComm *c);
/**
 * Ends driver mode (rank 0 only, outside any call): the other ranks release
 * what they held for rank 0's program and return from NclMpiDriverBegin.
 * @param c  the communicator.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  c NULL, not rank 0, or not in driver
 *         mode.
 * @retval NCL_ERR_COMM  an MPI call failed.
 */
NCL_MPI_API NclStatus NclMpiDriverEnd(NclMpiComm *c);

NCL_END_DECLS

/** @} */

#endif /* NCL_MPI_H */
