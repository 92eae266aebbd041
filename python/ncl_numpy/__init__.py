"""ncl_numpy: NumPy's front end on NCLib's loops.

    import ncl_numpy
    ncl_numpy.install()          # NumPy's ufunc loops, sorts and allocator are NCLib's
    ...
    ncl_numpy.uninstall()        # every pointer and the handler as they were

or ``with ncl_numpy.installed(): ...``. See docs/NUMPY.md in the NCLib
sources for what is replaced, what is kept, and the measured effect.
"""
import contextlib as _contextlib
import json as _json

from . import _core
from ._core import (NclArray, call, get_accuracy, get_num_threads, install, ledger_enable,
                    ledger_reset, loops, set_accuracy, set_min_elements, set_num_threads,
                    set_threading_threshold, status, to_ncl, to_numpy, uninstall,
                    use_memory_handler)

__all__ = [
    "install", "uninstall", "installed", "status", "loops", "info", "ledger",
    "ledger_enable", "ledger_reset", "set_num_threads", "get_num_threads",
    "set_threading_threshold", "set_min_elements", "set_accuracy", "get_accuracy",
    "use_memory_handler", "to_ncl", "to_numpy", "NclArray", "call",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
]


@_contextlib.contextmanager
def installed(**parts):
    """install(**parts) on entry; on exit, uninstall() unless NCLib was
    already installed on entry (then nothing changes)."""
    before = status()
    was = any(before[k] for k in ("loops", "sort", "memory"))
    install(**parts)
    try:
        yield
    finally:
        if not was:
            uninstall()


def info():
    """NclInfo's description of the running library, as a dict."""
    return _json.loads(_core.info_json())


def ledger():
    """NCLib's ledger rows (NclLedgerReport) as a list of dicts; empty until
    ledger_enable(True) and some calls."""
    lines = _core.ledger_text().splitlines()
    if not lines:
        return []
    names = lines[0].split()
    rows = []
    for line in lines[1:]:
        cells = line.split()
        if len(cells) != len(names):
            continue
        row = {}
        for k, v in zip(names, cells):
            if k in ("subsystem", "op", "kernel"):
                row[k] = v
            elif k in ("total_ms", "ns/call"):
                row[k] = float(v)
            else:
                row[k] = int(v)
        rows.append(row)
    return rows


def _compare(name):
    def f(a, b):
        return call("compare", name, a, b)
    f.__name__ = name
    f.__doc__ = (f"NclCompare({name}) on two arrays: exact for every mix of signed, "
                 "unsigned and float dtypes (int64 against uint64 compares the "
                 "mathematical values), broadcast as NumPy does; returns a bool ndarray.")
    return f


equal = _compare("equal")
not_equal = _compare("not_equal")
less = _compare("less")
less_equal = _compare("less_equal")
greater = _compare("greater")
greater_equal = _compare("greater_equal")
