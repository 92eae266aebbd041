/**
 * @file
 * @brief NumPy `.npy` files: save an array, load one.
 *
 * @defgroup ncl_npy NumPy .npy files
 * @ingroup ncl_interop
 * @brief NclArray to and from NumPy's `.npy` file format (versions 1.0,
 * 2.0 and 3.0).
 *
 * A file holds one array: a magic string and version, a header that is a
 * Python dict literal `{'descr': '<f8', 'fortran_order': False, 'shape':
 * (3, 4), }`, then the elements in C order (or Fortran order when
 * fortran_order is True). NclSaveNpy writes what NumPy 1.24's `np.save`
 * writes for the same array, byte for byte; NclLoadNpy reads the files
 * NumPy writes whose descr is one of NCLib's dtypes, in either byte order.
 *
 * There is no status for input/output errors: a file that cannot be
 * opened, read, created or written, and a file that is not a well-formed
 * `.npy` file, give NCL_ERR_INVALID_ARGUMENT with the reason (the system's
 * for a failed open or write) in NclLastError(). Both functions are
 * thread-safe (calls on distinct paths; two saves to one path leave one
 * of the two files, whole).
 * @{
 */
#ifndef NCL_NPY_H
#define NCL_NPY_H

#include "export.h"
#include "status.h"
#include "array.h"

NCL_BEGIN_DECLS

/**
 * Writes a to the file at path in the `.npy` format, as NumPy 1.24's
 * `np.save(path, a)` does (without adding a `.npy` suffix): format 1.0
 * (2.0 only for a header beyond 65535 bytes), the header padded with
 * spaces and a final newline so that the elements start at a multiple of
 * 64 bytes, the descr in the host's byte order (`'<f8'` on a little-endian
 * host, `'>f8'` on a big-endian one, `'|'` for the 1-byte dtypes).
 * `fortran_order` is True only when a is Fortran-contiguous and not
 * C-contiguous, and the elements are then written in Fortran order;
 * otherwise they are written in C order, whatever a's strides (views,
 * negative and zero strides included). a is not changed.
 *
 * Nothing is ever half-written: the file is written under a temporary
 * name in path's directory and renamed to path only once it is complete,
 * so on any failure a file already at path is left as it was and no
 * temporary file is left behind. A path that is a symbolic link replaces
 * the file the link points to, as writing through it would; the new file
 * takes the permissions of the file it replaces, or the process's default
 * (0666 less the umask) for a new one.
 * @param a     the array, in host or shared memory.
 * @param path  the file's name.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  a or path NULL, path empty, a file
 *         that cannot be created, written or renamed into place (the
 *         system's reason in the message).
 * @retval NCL_ERR_DEVICE_MEMORY  a in device or unknown memory.
 * @retval NCL_ERR_SHAPE  a (a broadcast view) with more bytes than int64
 *                        can count.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclSaveNpy(const NclArray *a, const char *path);

/**
 * Reads the `.npy` file at path into a new array, as NumPy's `np.load`
 * does. Format versions 1.0, 2.0 and 3.0 are read; the header's keys may
 * come in any order, with any whitespace, as Python reads the dict. The
 * descr must be one of NCLib's dtypes, in either byte order (`'|b1'`,
 * `'|i1'`, `'|u1'`, `'<i2'`, `'>i2'`, ... `'<f8'`, `'>f8'`; `'='` and no
 * order character mean the host's order): elements in the other byte order
 * are swapped into the host's. A fortran_order of True gives a
 * Fortran-ordered array, False a C-ordered one. Bytes after the elements
 * are ignored, as NumPy ignores them. A bool element that is not 0 reads
 * as 1 (NCLib's bools hold 0 or 1).
 * @param path  the file's name.
 * @param out   receives a new, writeable array (reference count 1) whose
 *              memory comes from the current allocator handler
 *              (NclDataMem_SetHandler); left unchanged on failure.
 * @retval NCL_OK
 * @retval NCL_ERR_INVALID_ARGUMENT  path or out NULL, path empty, a file
 *         that cannot be opened or read, or that is not a well-formed
 *         `.npy` file: a wrong magic string, a header or data cut short (a
 *         shape with more elements than the bytes that follow), a header
 *         that is not the dict of exactly `descr`, `fortran_order` (True or
 *         False) and `shape` (a tuple of integers).
 * @retval NCL_ERR_UNSUPPORTED  a format version other than 1.0, 2.0 and
 *         3.0; a descr with no NCLib dtype (object, strings, structured,
 *         complex, float16, datetimes and the like), named in the message.
 * @retval NCL_ERR_SHAPE  a negative extent, more than NCL_MAXDIMS
 *         dimensions, an element count or byte size int64 cannot hold.
 * @retval NCL_ERR_NO_MEMORY
 */
NCL_API NclStatus NclLoadNpy(const char *path, NclArray **out);

NCL_END_DECLS

/** @} */

#endif /* NCL_NPY_H */
