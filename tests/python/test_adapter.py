"""Tests of the ncl_numpy adapter itself (pytest): install and uninstall,
pointer by pointer; status; the installed() context; NumPy's exceptions and
FP warnings through NCLib's loops; threads; sort; the NEP 49 handler; the
Python-level helpers; bad input."""
import threading
import warnings

import numpy as np
import pytest

import ncl_numpy

POINTERS = ncl_numpy._core._pointers


@pytest.fixture(autouse=True)
def clean():
    ncl_numpy.uninstall()
    old = ncl_numpy.set_min_elements(0)
    yield
    ncl_numpy.uninstall()
    ncl_numpy.set_min_elements(*old)


def test_uninstall_restores_every_pointer():
    before = POINTERS()
    handler = np.core.multiarray.get_handler_name()
    ncl_numpy.install()
    during = POINTERS()
    changed = [k for k in before if before[k] != during[k]]
    assert len(changed) >= len(ncl_numpy.loops()), "install replaced fewer loops than it lists"
    assert any(k[0] == "sort" for k in changed) and any(k[0] == "argsort" for k in changed)
    assert np.core.multiarray.get_handler_name() != handler
    ncl_numpy.uninstall()
    after = POINTERS()
    assert after == before
    assert np.core.multiarray.get_handler_name() == handler


def test_install_twice_is_a_no_op():
    ncl_numpy.install()
    once = POINTERS()
    ncl_numpy.install()
    assert POINTERS() == once
    ncl_numpy.uninstall()
    ncl_numpy.uninstall()
    assert not any(ncl_numpy.status()[k] for k in ("loops", "sort", "memory"))


def test_parts_and_status():
    before = POINTERS()
    ncl_numpy.install(loops=False, sort=True, memory=False)
    st = ncl_numpy.status()
    assert st["sort"] and not st["loops"] and not st["memory"]
    changed = {k[0] for k in before if before[k] != POINTERS()[k]}
    assert changed == {"sort", "argsort"}
    ncl_numpy.uninstall()
    assert POINTERS() == before


def test_installed_context():
    before = POINTERS()
    with ncl_numpy.installed():
        assert ncl_numpy.status()["loops"]
        a = np.arange(10.0)
        np.testing.assert_array_equal(a + a, 2 * a)
    assert POINTERS() == before
    assert not ncl_numpy.status()["loops"]


def test_loops_run_ncl():
    ncl_numpy.install()
    st0 = ncl_numpy.status()["loop_calls_ncl"]
    a = np.linspace(-3, 3, 1001)
    np.add(a, a)
    np.sqrt(np.abs(a))
    a > 0.5
    assert ncl_numpy.status()["loop_calls_ncl"] >= st0 + 4


def test_min_elements_routes_short_calls_to_numpy():
    ncl_numpy.install()
    ncl_numpy.set_min_elements(100)
    st0 = ncl_numpy.status()
    np.add(np.ones(10), 1.0)
    st1 = ncl_numpy.status()
    assert st1["loop_calls_ncl"] == st0["loop_calls_ncl"]
    assert st1["loop_calls_numpy"] > st0["loop_calls_numpy"]


def test_user_kernel_hook_sees_short_calls():
    """A user's NclKernelHook takes NumPy's calls of its (op, signature)
    whatever their length, while other loops keep the length rule."""
    import ctypes as C
    lib = C.CDLL("libncl.so.0")  # the copy the adapter loaded
    KernelFn = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_void_p, C.c_void_p, C.c_int64, C.c_void_p)

    class Node(C.Structure):
        _fields_ = [("next", C.c_void_p), ("prev", C.c_void_p), ("fn", KernelFn),
                    ("name", C.c_char_p), ("user", C.c_void_p), ("priv", C.c_void_p * 6)]

    lib.NclKernelNext.argtypes = [C.c_void_p, C.c_void_p, C.c_void_p, C.c_int64, C.c_void_p]
    lib.NclKernelHook.argtypes = [C.c_int, C.c_int, C.c_void_p, C.c_void_p]
    lib.NclKernelUnhook.argtypes = [C.c_void_p]
    seen = []

    def kernel(self, ctx, args, n, steps):
        seen.append(n)
        return lib.NclKernelNext(self, ctx, args, n, steps)

    fn = KernelFn(kernel)
    node = Node(fn=fn, name=b"counter")
    f64 = (C.c_int * 3)(10, 10, 10)  # NCL_FLOAT64
    binary, add = 5, 0                # NCL_SUBSYSTEM_BINARY, NCL_ADD
    ncl_numpy.install()
    ncl_numpy.set_min_elements(10**9)  # every unhooked loop call: NumPy's own
    a = np.arange(10.0)
    st0 = ncl_numpy.status()["loop_calls_ncl"]
    np.add(a, a)
    assert ncl_numpy.status()["loop_calls_ncl"] == st0 and seen == []
    assert lib.NclKernelHook(binary, add, f64, C.byref(node)) == 0
    try:
        r = np.add(a, a)
        np.multiply(a, a)   # another chain: still NumPy's loop
        np.add(a[:3], 1.0)  # a broadcast scalar
    finally:
        assert lib.NclKernelUnhook(C.byref(node)) == 0
    assert seen == [10, 3]
    assert r.tobytes() == (a * 2).tobytes()
    st1 = ncl_numpy.status()["loop_calls_ncl"]
    np.add(a, a)
    assert ncl_numpy.status()["loop_calls_ncl"] == st1 and seen == [10, 3]


def test_min_elements_follows_ncl_threshold():
    ncl_numpy.set_min_elements(-1)
    st = ncl_numpy.status()
    assert st["min_elements_follows_threshold"]
    try:
        ncl_numpy.set_threading_threshold(1000)
        assert ncl_numpy.status()["min_elements"] == 1000
        ncl_numpy.install()
        c0 = ncl_numpy.status()["loop_calls_ncl"]
        np.add(np.ones(999), 1.0)
        c1 = ncl_numpy.status()["loop_calls_ncl"]
        np.add(np.ones(1000), 1.0)
        assert (c1, ncl_numpy.status()["loop_calls_ncl"]) == (c0, c0 + 1)
    finally:
        ncl_numpy.set_threading_threshold(st["min_elements"])
    assert ncl_numpy.set_min_elements(5)[0] == -1
    assert not ncl_numpy.status()["min_elements_follows_threshold"]
    with pytest.raises(ValueError):
        ncl_numpy.set_min_elements(-2)


def test_integer_power_negative_exponent_raises_numpys_error():
    ncl_numpy.install()
    with pytest.raises(ValueError, match="negative integer powers"):
        np.power(np.arange(5), -1)


@pytest.mark.parametrize("n", [10, 300_000])
def test_fp_flags_reach_numpy(n):
    ncl_numpy.install()
    a = np.zeros(n)
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            np.divide(1.0, a)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with np.errstate(all="warn"):
            np.divide(1.0, a)
            np.floor_divide(np.ones(n, dtype=np.int64), np.zeros(n, dtype=np.int64))
    assert sum("divide by zero" in str(x.message) for x in w) == 2
    with np.errstate(all="ignore"):
        np.divide(1.0, a)  # no warning, no raise


def test_threads_split_and_same_result():
    ncl_numpy.install()
    ncl_numpy.set_num_threads(2)
    a = np.random.default_rng(1).standard_normal(1 << 20)
    with ncl_numpy.installed():
        r1 = np.exp(a)
    ncl_numpy.set_num_threads(1)
    r2 = np.exp(a)
    ncl_numpy.set_num_threads(0)
    assert r1.tobytes() == r2.tobytes()


def test_fpu_control_unchanged():
    import ctypes
    ncl_numpy.install()
    # MXCSR's control bits (rounding, masks, FTZ/DAZ) after NCLib ran on threads.
    probe = np.core._multiarray_tests.get_fpu_mode
    m0 = probe()
    np.exp(np.random.default_rng(2).standard_normal(1 << 20))
    assert probe() == m0
    del ctypes


def test_sort_matches_numpy():
    rng = np.random.default_rng(3)
    data = {
        np.float64: np.concatenate([rng.standard_normal(5000), [np.nan, np.inf, -np.inf, -0.0, 0.0]]),
        np.float32: rng.standard_normal(3000).astype(np.float32),
        np.int64: rng.integers(-10**12, 10**12, 4000),
        np.uint64: rng.integers(0, 2**63, 4000, dtype=np.uint64) * 2,
        np.int8: rng.integers(-128, 128, 4000).astype(np.int8),
        np.bool_: rng.integers(0, 2, 1000).astype(bool),
    }
    expected = {}
    for t, x in data.items():
        expected[t] = {k: (np.sort(x, kind=k), np.argsort(x, kind="stable")) for k in
                       ("quicksort", "heapsort", "stable", "mergesort")}
    ncl_numpy.install()
    st0 = ncl_numpy.status()["sort_calls_ncl"]
    for t, x in data.items():
        for k, (s, a_stable) in expected[t].items():
            got = np.sort(x, kind=k)
            if k in ("stable", "mergesort"):
                assert got.tobytes() == s.tobytes()
            else:  # -0.0 and 0.0 are equal: an unstable sort may order them either way
                np.testing.assert_array_equal(got, s)
            ai = np.argsort(x, kind=k)
            np.testing.assert_array_equal(x[ai], s)
            if k in ("stable", "mergesort"):
                assert np.array_equal(ai, a_stable)
        y = x.copy()
        y.sort()
        np.testing.assert_array_equal(y, expected[t]["stable"][0])
    # lexsort hands argsort a permutation: still NumPy's answer.
    k1, k2 = rng.integers(0, 5, 100), rng.integers(0, 5, 100)
    ncl_numpy.uninstall()
    lex = np.lexsort((k1, k2))
    ncl_numpy.install()
    assert np.array_equal(np.lexsort((k1, k2)), lex)
    assert ncl_numpy.status()["sort_calls_ncl"] > st0


def test_memory_handler():
    old_arr = np.arange(1000.0)
    old_name = np.core.multiarray.get_handler_name()
    ncl_numpy.install()
    name = ncl_numpy.status()["memory_handler"]
    assert name.startswith("ncl")
    assert np.core.multiarray.get_handler_name() == name
    new = np.ones(1 << 16)
    assert np.core.multiarray.get_handler_name(new) == name
    assert new.ctypes.data % 64 == 0
    z = np.zeros(100, dtype=np.int32)
    assert not z.any()
    z.resize(10000, refcheck=False)
    assert np.core.multiarray.get_handler_name(old_arr) == old_name
    # A new thread starts with NumPy's default; use_memory_handler() opts in.
    seen = {}

    def worker():
        seen["before"] = np.core.multiarray.get_handler_name()
        ncl_numpy.use_memory_handler()
        seen["after"] = np.core.multiarray.get_handler_name(np.empty(10))

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen["before"] == "default_allocator" and seen["after"] == name
    ncl_numpy.uninstall()
    del old_arr, new, z  # freed by their own handlers after uninstall
    assert np.core.multiarray.get_handler_name() == old_name


def test_zero_copy_both_ways():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]
    n = ncl_numpy.to_ncl(a)
    del a  # the NclArray keeps the ndarray alive
    b = ncl_numpy.to_numpy(n)
    del n  # the ndarray keeps the NclArray alive
    np.testing.assert_array_equal(b, [[0, 2], [4, 6], [8, 10]])
    c = np.ones(5)
    v = ncl_numpy.to_numpy(ncl_numpy.to_ncl(c))
    v[0] = 7
    assert c[0] == 7
    with pytest.raises(TypeError):
        ncl_numpy.to_ncl(np.ones(3, dtype=np.complex128))
    with pytest.raises(TypeError):
        ncl_numpy.to_ncl([1, 2])
    with pytest.raises(TypeError):
        ncl_numpy.to_numpy(c)


def test_exact_comparisons():
    i = np.array([2**63 - 1, -1, 2**53 + 1], dtype=np.int64)
    u = np.array([2**63 - 1, 2**64 - 1, 2**53], dtype=np.uint64)
    np.testing.assert_array_equal(ncl_numpy.equal(i, u), [True, False, False])
    np.testing.assert_array_equal(ncl_numpy.less(i, u), [False, True, False])
    f = np.array([2.0**53, 2.0**53, 2.0**53])
    np.testing.assert_array_equal(ncl_numpy.greater(i, f), [True, False, True])
    with pytest.raises(ValueError):
        ncl_numpy.call("binary", "no_such_op", i, i)
    with pytest.raises(ValueError):
        ncl_numpy.less(np.ones(3), np.ones(4))


def test_info_ledger_settings():
    info = ncl_numpy.info()
    assert isinstance(info, dict) and info
    ncl_numpy.ledger_reset()
    ncl_numpy.ledger_enable(True)
    try:
        ncl_numpy.call("binary", "add", np.ones(100), np.ones(100))
        rows = ncl_numpy.ledger()
    finally:
        ncl_numpy.ledger_enable(False)
    assert any(r["subsystem"] == "binary" and r["op"] == "add" and r["calls"] >= 1 for r in rows)
    ncl_numpy.set_accuracy("fast")
    assert ncl_numpy.get_accuracy() == "fast"
    ncl_numpy.set_accuracy("high")
    with pytest.raises(ValueError):
        ncl_numpy.set_accuracy("medium")
    with pytest.raises(ValueError):
        ncl_numpy.set_threading_threshold(0)
    with pytest.raises(ValueError):
        ncl_numpy.set_num_threads(-1)
    with pytest.raises(TypeError):
        ncl_numpy.install(bogus=True)


def test_uninstall_leaves_ncl_hooks_alone():
    # The ledger is a level-1 hook on every chain: a user's hooks stay too.
    ncl_numpy.ledger_reset()
    ncl_numpy.ledger_enable(True)
    try:
        ncl_numpy.install()
        ncl_numpy.uninstall()
        ncl_numpy.call("unary", "sqrt", np.ones(10))
        rows = ncl_numpy.ledger()
    finally:
        ncl_numpy.ledger_enable(False)
    assert any(r["op"] == "sqrt" for r in rows)


def test_incompatible_numpy_is_refused():
    import subprocess
    import sys
    code = ("import numpy; numpy.__version__ = '2.0.0'\n"
            "try:\n    import ncl_numpy\nexcept ImportError as e:\n    print('refused:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "refused:" in out.stdout and "NumPy >= 1.22 and < 2.0" in out.stdout
