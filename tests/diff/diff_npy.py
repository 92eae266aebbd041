"""diff_npy.py: NclSaveNpy and NclLoadNpy against NumPy's own .npy files.

- NumPy writes, NCLib reads: np.save of every NCLib dtype in both byte
  orders (dtype.newbyteorder()), C and Fortran order, non-contiguous views
  (NumPy writes them in C order), 0-d, empty and random shapes, and files in
  format versions 2.0 and 3.0; NclLoadNpy's array must hold the same bits
  in the host's byte order, with the file's shape, dtype and order
  (Fortran-ordered exactly when the file says fortran_order True).
- NCLib writes, NumPy reads: arrays in every layout (C, F, sliced,
  reversed, misaligned, broadcast, transposed slices) wrapped zero-copy and
  saved with NclSaveNpy; np.load must give the same bits, shape, dtype and
  order, and the file must equal, byte for byte, what np.save writes for
  the same array.
- NumPy's files of dtypes NCLib lacks (complex, float16, strings, objects,
  structured, datetimes) are refused with NCL_ERR_UNSUPPORTED naming the
  descr.

    /usr/bin/python3 tests/diff/diff_npy.py --lib build/libncl.so [--seed N] [--rounds N]
"""

import ctypes
import os
import shutil
import sys
import tempfile

import numpy as np

import ncl_diff as nd

C_CONTIGUOUS, F_CONTIGUOUS = 1, 2


def bind(ncl):
    lib = ncl.lib
    if getattr(lib, '_npy_bound', False):
        return lib
    lib.NclSaveNpy.restype = ctypes.c_int
    lib.NclSaveNpy.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.NclLoadNpy.restype = ctypes.c_int
    lib.NclLoadNpy.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.NclArrayFlags.restype = ctypes.c_uint32
    lib.NclArrayFlags.argtypes = [ctypes.c_void_p]
    lib._npy_bound = True
    return lib


def fortran_only(flags_c, flags_f):
    return bool(flags_f) and not bool(flags_c)


def native_bits(arr):
    """arr's elements in C order as bytes in the host's byte order."""
    c = np.array(arr, order='C', copy=True)
    if not c.dtype.isnative:
        c = c.byteswap().view(c.dtype.newbyteorder())
    return c.tobytes()


def values(dt, shape, rng):
    n = int(np.prod(shape)) if shape else 1
    v = nd.random_values(np.dtype(dt).newbyteorder('='), n, rng)
    return np.asarray(v).reshape(shape)


def layout_of(v, layout):
    """v (native dtype) in one of NCLib's test layouts, or a view NumPy
    writes in C order."""
    if layout == 'transposed-slice' and v.ndim >= 2:
        big = np.zeros((v.shape[1] * 2, v.shape[0] + 1) + v.shape[2:], v.dtype)
        r = big[::2, 1:].swapaxes(0, 1)
        r[...] = v
        return r
    if layout == 'broadcast' and v.ndim >= 1:
        return np.broadcast_to(v[:1], v.shape) if v.shape[0] else v
    if layout in ('transposed-slice', 'broadcast'):
        layout = 'C'
    return nd.place(v, layout)


SHAPES = [(), (0,), (1,), (7,), (3, 4), (2, 3, 4), (3, 0, 2), (1, 5), (4, 1), (2, 1, 3, 1)]
LAYOUTS = ['C', 'F', 'sliced', 'reversed', 'misaligned', 'transposed-slice', 'broadcast']


class Env:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix='ncl_diff_npy_')
        self.count = 0

    def path(self, tag):
        self.count += 1
        return os.path.join(self.dir, '%s_%d.npy' % (tag, self.count))


def load_check(env, arr, title, save=None):
    """A check: NumPy writes arr (save(path, arr), np.save by default),
    NclLoadNpy reads it."""
    def run(ncl):
        lib = bind(ncl)
        path = env.path('np')
        (save or np.save)(path, arr)
        h = ctypes.c_void_p()
        st = lib.NclLoadNpy(path.encode(), ctypes.byref(h))
        if st != nd.OK:
            return 'NclLoadNpy -> %s: %s' % (nd.status_name(st), ncl.last_error())
        try:
            got = ncl.to_numpy(h)
            flags = lib.NclArrayFlags(h)
            want_dt = arr.dtype.newbyteorder('=')
            if got.dtype != want_dt:
                return 'dtype %s, expected %s' % (got.dtype, want_dt)
            if got.shape != arr.shape:
                return 'shape %s, expected %s' % (got.shape, arr.shape)
            if native_bits(got) != native_bits(arr):
                return 'bits differ'
            ref = np.load(path)
            want_f = fortran_only(ref.flags.c_contiguous, ref.flags.f_contiguous)
            if fortran_only(flags & C_CONTIGUOUS, flags & F_CONTIGUOUS) != want_f:
                return 'order: flags 0x%x, file fortran_order %s' % (flags, want_f)
            if not flags & (C_CONTIGUOUS | F_CONTIGUOUS):
                return 'loaded array not contiguous (flags 0x%x)' % flags
        finally:
            ncl.release(h)
            os.unlink(path)
        return None
    return nd.Check('numpy writes, NCLib loads: %s' % title, run)


def save_check(env, arr, title):
    """A check: NclSaveNpy writes arr (wrapped zero-copy), np.load reads it
    and np.save's bytes for arr must equal NCLib's."""
    def run(ncl):
        lib = bind(ncl)
        path, ref_path = env.path('ncl'), env.path('ref')
        h = ncl.wrap(arr, writeable=arr.flags.writeable)
        try:
            st = lib.NclSaveNpy(h, path.encode())
        finally:
            ncl.release(h)
        if st != nd.OK:
            return 'NclSaveNpy -> %s: %s' % (nd.status_name(st), ncl.last_error())
        try:
            got = np.load(path)
            if got.dtype != arr.dtype or got.dtype.str != arr.dtype.str:
                return 'dtype %s, expected %s' % (got.dtype.str, arr.dtype.str)
            if got.shape != arr.shape:
                return 'shape %s, expected %s' % (got.shape, arr.shape)
            if native_bits(got) != native_bits(arr):
                return 'bits differ'
            want_f = fortran_only(arr.flags.c_contiguous, arr.flags.f_contiguous)
            if fortran_only(got.flags.c_contiguous, got.flags.f_contiguous) != want_f:
                return 'order: loaded F-only %s, expected %s' % (not want_f, want_f)
            np.save(ref_path, arr)
            with open(path, 'rb') as f:
                mine = f.read()
            with open(ref_path, 'rb') as f:
                ref = f.read()
            if mine != ref:
                k = next((i for i in range(min(len(mine), len(ref))) if mine[i] != ref[i]),
                         min(len(mine), len(ref)))
                return 'file differs from np.save\'s at byte %d (%d vs %d bytes): %r vs %r' % (
                    k, len(mine), len(ref), mine[max(0, k - 20):k + 20], ref[max(0, k - 20):k + 20])
        finally:
            for p in (path, ref_path):
                if os.path.exists(p):
                    os.unlink(p)
        return None
    return nd.Check('NCLib writes, numpy loads: %s' % title, run)


def refuse_check(env, arr, title, save=None):
    def run(ncl):
        lib = bind(ncl)
        path = env.path('bad')
        (save or np.save)(path, arr)
        descr = np.lib.format.dtype_to_descr(arr.dtype)
        h = ctypes.c_void_p(1234)
        st = lib.NclLoadNpy(path.encode(), ctypes.byref(h))
        os.unlink(path)
        if st != nd.UNSUPPORTED:
            if st == nd.OK:
                ncl.release(h)
            return 'NclLoadNpy -> %s, expected UNSUPPORTED' % nd.status_name(st)
        if h.value != 1234:
            return '*out changed on failure'
        msg = ncl.last_error()
        if isinstance(descr, str) and descr not in msg:
            return 'message does not name %r: %s' % (descr, msg)
        return None
    return nd.Check('NCLib refuses %s' % title, run)


def generate(rng, rounds):
    env = Env()
    try:
        # NumPy writes, NCLib reads
        for dt in nd.NP_DTYPES:
            orders = [dt] if dt.itemsize == 1 else [dt, dt.newbyteorder()]
            for t in orders:
                for shape in SHAPES:
                    v = values(dt, shape, rng).astype(t)
                    yield load_check(env, v, '%s%s C' % (t.str, list(shape)))
                    if v.ndim >= 2:
                        f = np.asfortranarray(v)
                        yield load_check(env, f, '%s%s F' % (t.str, list(shape)))
                        yield load_check(env, v[::-1, ::2], '%s%s strided' % (t.str, list(shape)))
                for _ in range(3 * rounds):
                    shape = nd.random_shape(rng, maxnd=4, maxext=6)
                    v = values(dt, shape, rng).astype(t)
                    if rng.random() < 0.5:
                        v = np.asfortranarray(v)
                    yield load_check(env, v, '%s%s random' % (t.str, list(shape)))
            # format versions 2.0 and 3.0
            v = values(dt, (3, 2), rng)
            for ver in ((1, 0), (2, 0), (3, 0)):
                def save(path, arr, ver=ver):
                    with open(path, 'wb') as f:
                        np.lib.format.write_array(f, arr, version=ver)
                yield load_check(env, np.asfortranarray(v), '%s version %d.%d' % (
                    dt.str, ver[0], ver[1]), save=save)
        # NCLib writes, NumPy reads; the bytes against np.save's
        for dt in nd.NP_DTYPES:
            for shape in SHAPES:
                for layout in LAYOUTS:
                    v = layout_of(values(dt, shape, rng), layout)
                    yield save_check(env, v, '%s%s %s strides %s' % (
                        dt.str, list(shape), layout, list(v.strides)))
            for _ in range(4 * rounds):
                shape = nd.random_shape(rng, maxnd=5, maxext=6)
                layout = LAYOUTS[int(rng.integers(0, len(LAYOUTS)))]
                v = layout_of(values(dt, shape, rng), layout)
                yield save_check(env, v, '%s%s %s strides %s' % (
                    dt.str, list(shape), layout, list(v.strides)))
        # headers of every length: empty arrays of many extents (only the
        # padding to 64 bytes tells the growth room's size apart), and
        # Fortran-ordered ones whose last extent has the room
        for _ in range(200 * rounds):
            nd_ = int(rng.integers(1, 12))
            shape = [int(10 ** rng.uniform(0, 3.5)) for _ in range(nd_)]
            shape[int(rng.integers(0, nd_))] = 0
            dt = nd.NP_DTYPES[int(rng.integers(0, len(nd.NP_DTYPES)))]
            if np.prod([float(x) for x in shape if x]) * dt.itemsize >= 2.0 ** 62:
                continue   # NumPy refuses such shapes, even empty
            yield save_check(env, np.zeros(shape, dt), '%s%s empty' % (dt.str, shape))
        for k in range(16):
            for first in (22, 4444):
                v = np.asfortranarray(np.zeros((first,) + (1,) * k + (2,), np.uint8))
                yield save_check(env, v, 'uint8 (%d, 1 x %d, 2) F' % (first, k))
        yield load_check(env, np.asfortranarray(np.zeros((4444,) + (1,) * 12 + (2,), np.uint8)),
                         'uint8 (4444, 1 x 12, 2) F')
        # dtypes NCLib lacks
        for t in ['<c16', '>c8', '<f2', '>f2', '<U3', '|S5', '<M8[ns]', '<m8[s]', '|V4']:
            yield refuse_check(env, np.zeros(3, t), t)
        yield refuse_check(env, np.zeros(2, [('a', '<i4'), ('b', '<f8')]), 'a structured dtype')
        yield refuse_check(env, np.array([1, 'x', None], object), 'an object array',
                           save=lambda p, a: np.save(p, a, allow_pickle=True))
    finally:
        shutil.rmtree(env.dir, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(nd.main('diff_npy', generate, __doc__))
