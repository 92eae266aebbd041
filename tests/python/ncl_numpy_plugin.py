"""pytest plugin: NCLib under NumPy for a whole test run.

    PYTHONPATH=<build>/python:tests/python python3 -m pytest -p ncl_numpy_plugin --pyargs numpy.core

installs the adapter (loops, sorts, NEP 49 handler, threads) when pytest is
configured, before NumPy's test modules are collected, and routes every
replaced loop call through NCLib whatever its length (set_min_elements(0)),
so NumPy's own tests exercise NCLib on the small arrays they mostly use.
NCL_NUMPY_PARTS (e.g. "loops,sort") installs only the parts named, for
finding which part a failure or a slowdown comes from.
NCL_NUMPY_STATUS_FILE, when set, receives ncl_numpy.status() as JSON at the
end, so a runner can check that NCLib really ran.
"""
import json
import os

import ncl_numpy


def pytest_configure(config):
    parts = os.environ.get("NCL_NUMPY_PARTS")
    if parts is None:
        ncl_numpy.install()
    else:
        names = {p.strip() for p in parts.split(",") if p.strip()}
        ncl_numpy.install(**{k: k in names for k in ("loops", "sort", "memory", "threads")})
    ncl_numpy.set_min_elements(0)


def pytest_report_header(config):
    st = ncl_numpy.status()
    return (f"ncl_numpy: {st['replaced_loops']} loops, sort={st['sort']}, "
            f"memory={st['memory_handler'] or False}, threads={st['num_threads']}")


def pytest_unconfigure(config):
    path = os.environ.get("NCL_NUMPY_STATUS_FILE")
    st = ncl_numpy.status()
    if path:
        # One file per process (xdist workers each write theirs).
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(f"{path}.{worker}", "w") as f:
            json.dump(st, f)
