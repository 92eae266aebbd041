/*
 * ncl_mpi_internal.h: what the files of libncl_mpi share. A distributed
 * array is an external NclArray (NclArrayFromExt) whose extension state is
 * an mpi_dist: the communicator, the split axis, every rank's rows, and
 * this rank's partition as an ordinary C-ordered array.
 *
 *   dist.c   the communicator handle, distributed arrays, moving rows
 *            between layouts (scatter, gather, redistribute), agreement
 *   hooks.c  the level-1 hooks: elementwise calls and reductions
 *   sort.c   sample sort along the split axis
 *   mask.c   a[mask], nonzero, take
 *   rng.c    random draws into distributed arrays
 *   cum.c    cumulative sums and products
 *   io.c     save to a folder, load with any process count
 *   driver.c driver mode: rank 0 runs the program, the others serve it
 */
#ifndef NCL_MPI_INTERNAL_H
#define NCL_MPI_INTERNAL_H

#define NCL_MPI_BUILDING 1
#include <stdatomic.h>
#include "ncl/mpi.h"

struct NclMpiComm {
    MPI_Comm comm;
    int size, rank;
    atomic_int refs;      /* the handle's own, plus one per array on it */
    int64_t next_id;      /* the id of the next distributed array made on it:
                             the same sequence on every rank */
    /* driver mode (driver.c) */
    int driver;           /* rank 0 sends its calls to the others */
    int depth;            /* rank 0: calls in progress (only the outermost
                             is sent) */
    int64_t *dead;        /* rank 0: ids released inside a call, sent with */
    int ndead, capdead;   /*   the next command */
};

typedef struct mpi_dist {
    NclArrayExt base;     /* name "mpi", release dist_release */
    NclMpiComm *c;
    int split;            /* 0 for a 0-d array */
    int64_t *counts;      /* c->size rows per rank along split */
    int64_t *offsets;     /* c->size first rows */
    NclArray *local;      /* this rank's rows, C order */
    int64_t id;           /* the same on every rank (NclMpiComm.next_id) */
    int exported;         /* driver mode: handed to rank 0's program, so the
                             workers keep theirs until rank 0 releases it */
} mpi_dist;

/* How many distributed arrays are alive in this process: while none is,
   the hooks pass every call on after this one load. */
extern atomic_long mpi_live;

/* The array's state when a is distributed by this library, else NULL. */
mpi_dist *mpi_dist_of(const NclArray *a);

/* A new distributed array over local (its reference is taken). counts
   has c->size entries, offsets are computed. */
NclStatus mpi_dist_wrap(const char *who, NclMpiComm *c, NclDType dtype, int ndim,
                        const int64_t *shape, int split, const int64_t *counts, NclArray *local,
                        NclArray **out);
/* A view of rows [lo, hi) of axis k of an ordinary array (the whole of
   the other axes); writeable when a is. */
NclStatus mpi_rows(const NclArray *a, int k, int64_t lo, int64_t hi, NclArray **out);
/* The same rows as a C-ordered copy. */
NclStatus mpi_rows_copy(const NclArray *a, int k, int64_t lo, int64_t hi, NclArray **out);
/* Whether t is a float dtype (the reduction tree's and the carry chain's). */
static inline int mpi_is_float(NclDType t) { return t == NCL_FLOAT32 || t == NCL_FLOAT64; }
/* Balanced counts of n rows over size ranks: in blocks of NCL_REDUCE_CHUNK
   rows when each rank gets one, else the first n % size take one more. */
void mpi_balanced(int64_t n, int size, int64_t *counts);
/* A new distributed array of a's global array split along split with
   counts (NULL: balanced): the rows moved by one all-to-all. */
NclStatus mpi_move(const char *who, const NclArray *a, int split, const int64_t *counts,
                   NclArray **out);
/* a's whole array on every rank (root NCL_MPI_ALL) or on root. */
NclStatus mpi_gather(const char *who, const NclArray *a, int root, NclArray **out);
/* A new distributed array of root's ordinary array a (ignored elsewhere),
   split along split with counts (NULL: balanced). */
NclStatus mpi_scatter(NclMpiComm *c, int root, const NclArray *a, int split,
                      const int64_t *counts, NclArray **out);

/* Broadcasts the shapes of n arrays (NULL ones skipped) into shape. */
NclStatus mpi_broadcast_shape(const char *who, const NclArray *const *arr, int n, int *nd,
                              int64_t *shape);
/* This rank's operand x for a call whose result (shape, nd) is split along
   split with counts (this rank's rows [off, off + cnt)): a distributed
   operand of the result's layout gives its partition; one of the result's
   shape split otherwise is moved first; one of another shape is gathered
   whole; an ordinary one is sliced to this rank's rows where it spans the
   split axis. *lx receives a reference (or NULL for x NULL). A collective
   step (move, gather) is taken by every rank alike, since the layouts are
   the same everywhere. */
NclStatus mpi_localize(const char *who, const NclArray *x, int nd, const int64_t *shape, int split,
                       const int64_t *counts, int64_t off, int64_t cnt, NclArray **lx);

/* The largest message: 1 GiB, well inside an int count of MPI_BYTE, so
   that both MPIs carry transfers of any size (Open MPI 4.1 has no
   large-count calls). */
#define MPI_PIECE ((int64_t)1 << 30)

/* One message of a transfer: bytes at buf to or from peer. */
typedef struct mpi_xfer {
    int peer;
    char *buf;
    int64_t bytes;
} mpi_xfer;
/* Posts every receive, then every send, each cut into pieces of at most
   1 GiB (tag: the piece's index, so messages of any size pass both MPIs),
   and waits for all. Not collective: only the peers named take part. */
NclStatus mpi_exchange(const char *who, MPI_Comm comm, const mpi_xfer *recv, int nrecv,
                       const mpi_xfer *send, int nsend);

/* Collective: every rank learns the first failing rank's status and
   message (rank order); NCL_OK when none failed. */
NclStatus mpi_agree(NclMpiComm *c, NclStatus st);
/* Collective: refuses (on every rank) a call whose description hash h
   differs between ranks. */
NclStatus mpi_same(NclMpiComm *c, const char *who, uint64_t h);
/* NCL_ERR_COMM with MPI's message for a failed MPI call. */
NclStatus mpi_failed(const char *who, const char *call, int err);
/* NclSetError with a formatted message. */
NclStatus mpi_error(NclStatus s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* FNV-1a over n bytes, continuing from h. */
static inline uint64_t mpi_hash(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}
#define MPI_HASH_INIT UINT64_C(0xcbf29ce484222325)
/* An array's description: kind, dtype, shape, and for a distributed one
   its layout. */
uint64_t mpi_hash_array(uint64_t h, const NclArray *a);

/* A distributed SORT or ARGSORT of a along axis (sort.c), of the sort kind
   kind, the local steps passed on to the rest of the chain through self. */
NclStatus mpi_sort(NclHook *self, const char *who, NclSortOp op, int kind, const NclArray *a,
                   int axis, NclArray **out);

/* NclRng into a distributed result (rng.c); h describes the call (its
   arrays and params), to which the generator's state and the RNG params
   are added before the ranks compare it. */
NclStatus mpi_rng(NclHook *self, const char *who, uint64_t h, NclRngOp op, NclRngGen *gen,
                  const NclArray *a, const NclArray *b, NclArray **out, const NclParams *p);

/* Reduce op of the distributed a (and params->where) gathered whole on
   every rank, into *out as one process would (hooks.c): the exact path
   where the distributed one would not give one process's result. */
NclStatus mpi_reduce_whole(NclHook *self, const char *who, NclReduceOp op, const NclArray *a,
                           NclArray **out, const NclParams *params);

/* A distributed CUMSUM or CUMPROD of a (cum.c). */
NclStatus mpi_cum(NclHook *self, const char *who, NclReduceOp op, const NclArray *a,
                  NclArray **out, const NclParams *p);

/* A distributed COMPRESS, NONZERO, TAKE or PUT (mask.c). */
NclStatus mpi_mask(NclHook *self, const char *who, NclMaskOp op, const NclArray *a,
                   const NclArray *b, NclArray **out, const NclParams *p);

/* Driver mode (driver.c): rank 0 runs the program, the others serve its
   calls. On rank 0 every entry (a hook taking a call over, a libncl_mpi
   function) opens the call with mpi_driver_open, which, for the outermost
   call in driver mode, sends it to the others; they make the same call
   with their handles (found by id). mpi_driver_close ends it and marks a
   distributed result handed to the program, whose release on rank 0 is
   then sent too (mpi_driver_released). Outside driver mode, and on the
   other ranks, both do nothing. */
enum {
    MPI_CMD_CALL = 1,     /* a subsystem call: sub, op, arr[0..4], params */
    MPI_CMD_EMPTY, MPI_CMD_ZEROS, MPI_CMD_FULL, MPI_CMD_ARANGE, MPI_CMD_SCATTER,
    MPI_CMD_GATHER, MPI_CMD_REDISTRIBUTE, MPI_CMD_SAVE, MPI_CMD_LOAD, MPI_CMD_END
};
typedef struct mpi_cmd {
    int kind;
    NclSubsystem sub;
    int op;
    const NclArray *arr[5];   /* CALL: a, b, c, *out, params->where; others: arr[0] */
    const NclParams *params;
    NclRngGen *gen;           /* CALL of NclRng: the generator (its state is sent) */
    NclDType dtype;
    int ndim, split, root;
    const int64_t *shape, *counts;
    const void *value;        /* FULL: one element of dtype */
    double range[3];          /* ARANGE */
    const char *path;         /* SAVE, LOAD */
} mpi_cmd;
/* Whether c is in driver mode and this is rank 0. */
int mpi_driver_active(const NclMpiComm *c);
NclStatus mpi_driver_open(NclMpiComm *c, const mpi_cmd *cmd, int *opened);
void mpi_driver_close(NclMpiComm *c, int opened, NclArray *result);
void mpi_driver_released(NclMpiComm *c, const mpi_dist *d);

/* The hooks (hooks.c): linked with the first handle, unlinked with the
   last. */
NclStatus mpi_hooks_link(void);
void mpi_hooks_unlink(void);

#endif /* NCL_MPI_INTERNAL_H */
