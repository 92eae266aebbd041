"""DLPack with an outside consumer and producer: NumPy 1.24 reads an NCLib
export (np.from_dlpack over a "dltensor" capsule) with the same bytes and
pointer, and NCLib imports NumPy's __dlpack__ export zero-copy; each side's
deleter runs exactly once. libncl.so is reached through ctypes, the capsules
through CPython's C API."""
import ctypes as C
import gc
import sys

import numpy as np
import pytest

import ncl_numpy  # noqa: F401  (loads the libncl.so the tests then open by soname)

lib = C.CDLL("libncl.so.0")
py = C.pythonapi
py.PyCapsule_New.restype = C.py_object
py.PyCapsule_New.argtypes = [C.c_void_p, C.c_char_p, C.c_void_p]
py.PyCapsule_GetPointer.restype = C.c_void_p
py.PyCapsule_GetPointer.argtypes = [C.py_object, C.c_char_p]
py.PyCapsule_SetName.argtypes = [C.py_object, C.c_char_p]
py.PyCapsule_IsValid.argtypes = [C.c_void_p, C.c_char_p]

DELETER = C.CFUNCTYPE(None, C.c_void_p, C.c_void_p)  # NclDeleter(ctx, data)
CAPSULE_DESTRUCTOR = C.CFUNCTYPE(None, C.c_void_p)


class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int), ("device_id", C.c_int32)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [("data", C.c_void_p), ("device", DLDevice), ("ndim", C.c_int32),
                ("dtype", DLDataType), ("shape", C.POINTER(C.c_int64)),
                ("strides", C.POINTER(C.c_int64)), ("byte_offset", C.c_uint64)]


class DLManagedTensor(C.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", C.c_void_p),
                ("deleter", C.CFUNCTYPE(None, C.c_void_p))]


NCL_FLOAT64, NCL_INT16, WRITEABLE = 10, 2, 16
lib.NclFromData.argtypes = [C.c_int, C.c_int, C.POINTER(C.c_int64), C.POINTER(C.c_int64),
                            C.c_void_p, C.c_uint32, DELETER, C.c_void_p, C.POINTER(C.c_void_p)]
lib.NclToDLPackLegacy.argtypes = [C.c_void_p, C.POINTER(C.POINTER(DLManagedTensor))]
lib.NclFromDLPackLegacy.argtypes = [C.c_void_p, C.POINTER(C.c_void_p)]
lib.NclArrayRelease.argtypes = [C.c_void_p]
lib.NclArrayData.argtypes = [C.c_void_p]
lib.NclArrayData.restype = C.c_void_p
lib.NclArrayStrides.argtypes = [C.c_void_p]
lib.NclArrayStrides.restype = C.POINTER(C.c_int64)
lib.NclArrayShape.argtypes = [C.c_void_p]
lib.NclArrayShape.restype = C.POINTER(C.c_int64)
lib.NclArrayFlags.argtypes = [C.c_void_p]
lib.NclArrayFlags.restype = C.c_uint32

DLTENSOR = b"dltensor"
USED = b"used_dltensor"


@CAPSULE_DESTRUCTOR
def _capsule_destructor(capsule):
    # An unconsumed capsule still owns the tensor: the producer's rule.
    if py.PyCapsule_IsValid(capsule, DLTENSOR):
        ptr = py.PyCapsule_GetPointer(C.cast(capsule, C.py_object), DLTENSOR)
        m = C.cast(ptr, C.POINTER(DLManagedTensor))
        m.contents.deleter(ptr)


class NclExport:
    """What np.from_dlpack asks for: __dlpack__ and __dlpack_device__."""

    def __init__(self, managed):
        self.managed = managed

    def __dlpack__(self, stream=None):
        return py.PyCapsule_New(C.cast(self.managed, C.c_void_p), DLTENSOR,
                                C.cast(_capsule_destructor, C.c_void_p))

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


def test_numpy_reads_ncl_export():
    freed = []
    deleter = DELETER(lambda ctx, data: freed.append(data))
    buf = (C.c_double * 12)(*[i * 1.5 - 4 for i in range(12)])
    shape = (C.c_int64 * 2)(3, 4)
    strides = (C.c_int64 * 2)(32, -8)  # rows forward, columns reversed
    arr = C.c_void_p()
    first = C.addressof(buf) + 3 * 8
    assert lib.NclFromData(NCL_FLOAT64, 2, shape, strides, first, WRITEABLE, deleter, None,
                           C.byref(arr)) == 0
    managed = C.POINTER(DLManagedTensor)()
    assert lib.NclToDLPackLegacy(arr, C.byref(managed)) == 0
    lib.NclArrayRelease(arr)  # the export holds the array now
    assert freed == []
    x = np.from_dlpack(NclExport(managed))
    expect = np.frombuffer(buf, dtype=np.float64).reshape(3, 4)[:, ::-1]
    assert x.ctypes.data == first
    assert x.strides == (32, -8)
    assert x.tobytes() == expect.tobytes()
    del x
    gc.collect()
    assert freed == [first]


def test_unconsumed_export_is_deleted_once():
    freed = []
    deleter = DELETER(lambda ctx, data: freed.append(data))
    buf = (C.c_int16 * 4)(1, 2, 3, 4)
    arr = C.c_void_p()
    assert lib.NclFromData(NCL_INT16, 1, (C.c_int64 * 1)(4), None, C.addressof(buf), WRITEABLE,
                           deleter, None, C.byref(arr)) == 0
    managed = C.POINTER(DLManagedTensor)()
    assert lib.NclToDLPackLegacy(arr, C.byref(managed)) == 0
    lib.NclArrayRelease(arr)
    cap = NclExport(managed).__dlpack__()
    del cap
    gc.collect()
    assert freed == [C.addressof(buf)]


def test_ncl_imports_numpy_export_zero_copy():
    base = np.arange(24.0).reshape(4, 6)
    a = base[1:, ::2]
    refs = sys.getrefcount(base)
    cap = a.__dlpack__()
    ptr = py.PyCapsule_GetPointer(cap, DLTENSOR)
    out = C.c_void_p()
    assert lib.NclFromDLPackLegacy(ptr, C.byref(out)) == 0
    py.PyCapsule_SetName(cap, USED)  # consumed: NumPy's capsule must not delete it
    del cap
    assert lib.NclArrayData(out) == a.ctypes.data
    assert [lib.NclArrayShape(out)[i] for i in range(2)] == [3, 3]
    assert [lib.NclArrayStrides(out)[i] for i in range(2)] == [48, 16]
    assert lib.NclArrayFlags(out) & WRITEABLE == 0  # legacy import: read-only
    view = np.ctypeslib.as_array(C.cast(lib.NclArrayData(out), C.POINTER(C.c_double)),
                                 shape=(18 - 2,))
    assert view[0] == a[0, 0] and view[2] == a[0, 1] and view[6] == a[1, 0]
    lib.NclArrayRelease(out)  # NumPy's deleter: its reference to the array goes
    del view
    gc.collect()
    assert sys.getrefcount(base) == refs


def test_refused_import_still_deletes():
    base = np.zeros((2, 2), dtype=np.float16)  # no NCLib dtype for float16
    cap = base.__dlpack__()
    refs_during = sys.getrefcount(base)
    ptr = py.PyCapsule_GetPointer(cap, DLTENSOR)
    out = C.c_void_p(1)
    assert lib.NclFromDLPackLegacy(ptr, C.byref(out)) != 0
    assert out.value is None
    py.PyCapsule_SetName(cap, USED)
    del cap
    gc.collect()
    assert sys.getrefcount(base) == refs_during - 1


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
