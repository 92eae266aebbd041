#!/usr/bin/env python3
"""Runs NumPy's own shipped tests twice on this machine: plain, then with the
ncl_numpy adapter installed before collection (the ncl_numpy_plugin pytest
plugin), and gates: every test that fails with the adapter must also fail
without it. Prints both runs' counts and times; --report writes them as a
Markdown table.

Usage:
  run_numpy_suites.py --adapter <build>/python [--suites numpy.core numpy.lib numpy.random]
                      [--workers N] [--report FILE] [--python /usr/bin/python3]

NumPy's default selection is kept (its 'fast' label: -m "not slow"); nothing
else is deselected. pytest's exit status 5 (no tests collected) fails the
gate, as does a run that errors out (status 2-4) or a hooked run in which no
loop call reached NCLib.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SUITES = ["numpy.core", "numpy.lib", "numpy.random"]


def parse_junit(path):
    counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "xfailed": 0}
    failing = set()
    root = ET.parse(path).getroot()
    for tc in root.iter("testcase"):
        name = f"{tc.get('classname')}::{tc.get('name')}"
        kinds = {child.tag for child in tc}
        if "failure" in kinds:
            counts["failed"] += 1
            failing.add(name)
        elif "error" in kinds:
            counts["errors"] += 1
            failing.add(name)
        elif "skipped" in kinds:
            sk = tc.find("skipped")
            if sk is not None and (sk.get("type") == "pytest.xfail"):
                counts["xfailed"] += 1
            else:
                counts["skipped"] += 1
        else:
            counts["passed"] += 1
    return counts, failing


def run(label, args, work, hooked):
    xml = os.path.join(work, f"{label}.xml")
    log = os.path.join(work, f"{label}.log")
    env = dict(os.environ)
    env.pop("PYTHONSTARTUP", None)
    cmd = [args.python, "-m", "pytest", "--pyargs", *args.suites, "-m", "not slow",
           "-q", "-p", "no:cacheprovider", "-rfE", f"--junitxml={xml}"]
    if args.workers > 1:
        cmd += ["-n", str(args.workers)]
    if hooked:
        for stale in glob.glob(os.path.join(work, "status.*")):
            os.remove(stale)  # a previous run's counts must not count
        env["PYTHONPATH"] = os.pathsep.join([args.adapter, HERE] +
                                            ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        env["NCL_NUMPY_STATUS_FILE"] = os.path.join(work, "status")
        cmd[3:3] = ["-p", "ncl_numpy_plugin"]
    t0 = time.monotonic()
    with open(log, "w") as f:
        # A scratch working directory, so the installed NumPy is what runs.
        rc = subprocess.call(cmd, cwd=work, env=env, stdout=f, stderr=subprocess.STDOUT)
    secs = time.monotonic() - t0
    with open(log) as f:
        tail = f.read().splitlines()[-1:] or [""]
    print(f"numpy suites [{label}]: exit {rc} in {secs:.0f} s: {tail[0]}", flush=True)
    if rc == 5:
        print(f"numpy suites [{label}]: pytest collected no tests (exit 5): are NumPy's tests "
              "installed (Debian ships them in python3-numpy)?", file=sys.stderr)
        return None
    if rc not in (0, 1) or not os.path.exists(xml):
        print(f"numpy suites [{label}]: pytest did not complete (exit {rc}); see {log}",
              file=sys.stderr)
        return None
    counts, failing = parse_junit(xml)
    return {"counts": counts, "failing": failing, "seconds": secs, "rc": rc, "log": log}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--adapter", required=True, help="folder holding the ncl_numpy package")
    ap.add_argument("--suites", nargs="+", default=DEFAULT_SUITES)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--report", help="write the counts as Markdown to this file")
    ap.add_argument("--work", help="folder for logs and junit files (default: a new temp folder)")
    args = ap.parse_args()
    args.adapter = os.path.abspath(args.adapter)
    # Absolute: pytest runs inside it, and its junit and status paths are
    # read from here.
    work = os.path.abspath(args.work or tempfile.mkdtemp(prefix="ncl-numpy-suites-"))
    os.makedirs(work, exist_ok=True)
    print(f"numpy suites: {' '.join(args.suites)}; logs in {work}", flush=True)

    plain = run("plain", args, work, hooked=False)
    hooked = run("adapter", args, work, hooked=True)
    if plain is None or hooked is None:
        return 1

    ok = True
    new = sorted(hooked["failing"] - plain["failing"])
    statuses = [json.load(open(p)) for p in glob.glob(os.path.join(work, "status.*"))]
    ncl_calls = sum(s["loop_calls_ncl"] for s in statuses)
    sort_calls = sum(s["sort_calls_ncl"] for s in statuses)
    if not statuses or ncl_calls == 0:
        print("numpy suites: FAIL: the adapter run made no loop call through NCLib")
        ok = False
    header = "| run | passed | failed | errors | skipped | xfailed | time (s) |"
    rows = [header, "|---|---:|---:|---:|---:|---:|---:|"]
    for label, r in (("plain NumPy", plain), ("with ncl_numpy", hooked)):
        c = r["counts"]
        rows.append(f"| {label} | {c['passed']} | {c['failed']} | {c['errors']} | "
                    f"{c['skipped']} | {c['xfailed']} | {r['seconds']:.0f} |")
    table = "\n".join(rows)
    print(table)
    print(f"numpy suites: {ncl_calls} loop calls and {sort_calls} sorts ran in NCLib during "
          "the adapter run")
    if new:
        ok = False
        print(f"numpy suites: FAIL: {len(new)} test(s) fail only with the adapter:")
        for t in new:
            print("   ", t)
    fixed = sorted(plain["failing"] - hooked["failing"])
    if fixed:
        print(f"numpy suites: {len(fixed)} test(s) fail only without the adapter:")
        for t in fixed:
            print("   ", t)
    if args.report:
        with open(args.report, "w") as f:
            f.write(f"Suites: `{' '.join(args.suites)}`, NumPy's default selection "
                    f"(`-m \"not slow\"`), {args.workers} pytest worker(s).\n\n")
            f.write(table + "\n\n")
            f.write(f"Loop calls run by NCLib in the adapter run: {ncl_calls}; sorts: "
                    f"{sort_calls}. Failing only with the adapter: {len(new)}.\n")
            for t in sorted(hooked["failing"]):
                f.write(f"- fails in {'both runs' if t in plain['failing'] else 'the adapter run only'}: `{t}`\n")
    print("numpy suites:", "gate passed" if ok else "gate FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
