#!/usr/bin/env bash
# tools/test.sh: the whole test suite, as CI runs it. Installs the
# dependencies (tools/setup.sh), then for each preset configures, builds and
# runs CTest:
#   release  gcc, optimised: every suite, the NumPy differential scripts
#            (also on 2 threads), every kernel variant the CPU can run
#   asan     clang, AddressSanitizer + UndefinedBehaviorSanitizer with no
#            suppressions and every report fatal, -O1 with assertions: every
#            suite, the replayed differential corpus, and the fuzz target over
#            its corpus plus a short bounded run
#   tsan     clang, ThreadSanitizer: every suite and the replayed corpus on
#            2 threads, but not the tests labelled "fork", which start
#            threads in the child of a multi-threaded fork, where
#            ThreadSanitizer refuses to (tests/CMakeLists.txt), nor those
#            labelled "values" (test_accuracy, ulp_sweep: the math
#            functions' values, no shared state); built with the portable kernels only, since
#            races live in the framework, not in which variant a loop runs;
#            the release and asan stages run all of these
#   tsan-gcc the same tests under gcc's ThreadSanitizer; not in the default
#            list (it would take CI past its time budget, docs/RELIABILITY.md):
#            NCL_TEST_STAGES=tsan-gcc tools/test.sh
#   numpy    NumPy's own shipped test suites (numpy.core, numpy.lib,
#            numpy.random) run twice, plain and with the ncl_numpy adapter
#            of the release build installed; fails when a test fails only
#            with the adapter (tests/python/run_numpy_suites.py)
#   mpi-openmpi, mpi-mpich
#            libncl_mpi and its tests only, built against the release
#            stage's libncl with Open MPI 4.1 and with MPICH 4.0, each in
#            its own build folder; the distributed cases under mpiexec
#            with 1-4 processes x 1 and 2 threads (MPICH, which busy-polls,
#            only up to one process more than the cores: mpi/CMakeLists.txt)
#   aarch64  cross builds with Debian's gcc-aarch64-linux-gnu and
#   s390x    gcc-s390x-linux-gnu (big-endian) against Debian's arm64 and
#            s390x packages (tools/setup.sh --cross), portable kernels
#            only, tests under qemu-user named explicitly: every suite but
#            the NumPy-based ones and those that fork a threaded process
#            (qemu-user aborts there) (docs/PORTABILITY.md)
# Every stage runs even when an earlier one failed, so one run shows every
# failure; the exit status is non-zero if any stage failed. The stages can be
# chosen with NCL_TEST_STAGES (e.g. "release asan"); NCL_TEST_JOBS sets how
# many tests run at once (default: the number of CPUs).
set -uo pipefail
cd "$(dirname "$0")/.."

stages=(${NCL_TEST_STAGES:-release mpi-openmpi mpi-mpich asan tsan numpy aarch64 s390x})
setup_args=()
for stage in "${stages[@]}"; do
  case $stage in aarch64 | s390x) setup_args+=(--cross "$stage") ;; esac
done
tools/setup.sh "${setup_args[@]}" || { echo "test: setup failed" >&2; exit 1; }
jobs=${NCL_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
declare -A result
declare -A summary
failed=0
t_all=$SECONDS

run_stage() {
  local preset=$1 t0=$SECONDS log
  echo
  echo "==== $preset: configure + build ===="
  if ! cmake --preset "$preset" || ! cmake --build --preset "$preset"; then
    result[$preset]="FAILED (configure/build) after $((SECONDS - t0)) s"
    return 1
  fi
  echo
  echo "==== $preset: ctest ===="
  log="build/$preset/ctest-summary.log"
  ctest --preset "$preset" --parallel "$jobs" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  # CTest's own summary: the pass count, the failures, the total time.
  summary[$preset]=$(grep -E "tests passed|tests failed|Total Test time|^\s+[0-9]+ - .*\((Failed|Timeout|Not Run|SEGFAULT|Subprocess)" "$log" || true)
  if ((rc != 0)); then
    result[$preset]="FAILED (tests) after $((SECONDS - t0)) s"
    return 1
  fi
  result[$preset]="ok in $((SECONDS - t0)) s"
}

# NumPy's suites with and without the adapter built by the release stage.
run_numpy_stage() {
  local t0=$SECONDS log=build/release/numpy-suites.log
  echo
  echo "==== numpy: NumPy's own suites, plain and with ncl_numpy ===="
  # Up to date after the release stage; built here when run alone.
  if ! cmake --preset release >/dev/null || ! cmake --build --preset release; then
    result[numpy]="FAILED (configure/build) after $((SECONDS - t0)) s"
    return 1
  fi
  if [[ ! -d build/release/python/ncl_numpy ]]; then
    result[numpy]="FAILED (the release build has no ncl_numpy adapter: python3-dev or NumPy headers missing?)"
    return 1
  fi
  /usr/bin/python3 tests/python/run_numpy_suites.py --adapter build/release/python \
    --work build/release/numpy-suites 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  summary[numpy]=$(grep -E "^\| |gate|only with" "$log" || true)
  if ((rc != 0)); then
    result[numpy]="FAILED after $((SECONDS - t0)) s"
    return 1
  fi
  result[numpy]="ok in $((SECONDS - t0)) s"
}

# libncl_mpi and its tests alone, against the release stage's libncl, in a
# build folder of its own per MPI (mpi/CMakeLists.txt); label mpi.
run_mpi_stage() {
  local stage=$1 t0=$SECONDS mpicc mpiexec
  case $stage in
    mpi-openmpi) mpicc=mpicc.openmpi mpiexec=/usr/bin/mpiexec.openmpi ;;
    mpi-mpich) mpicc=mpicc.mpich mpiexec=/usr/bin/mpiexec.mpich ;;
  esac
  echo
  echo "==== $stage: libncl_mpi against build/release, tests under $mpiexec ===="
  if ! cmake --preset release >/dev/null || ! cmake --build --preset release --target ncl ||
     ! cmake -S mpi -B "build/$stage" -G Ninja -DNCL_BUILD_DIR="$PWD/build/release" \
       -DMPI_C_COMPILER=$mpicc -DMPIEXEC_EXECUTABLE=$mpiexec ||
     ! cmake --build "build/$stage"; then
    result[$stage]="FAILED (configure/build) after $((SECONDS - t0)) s"
    return 1
  fi
  local log="build/$stage/ctest-summary.log"
  ctest --test-dir "build/$stage" --output-on-failure 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  summary[$stage]=$(grep -E "tests passed|tests failed|Total Test time" "$log" || true)
  if ((rc != 0)); then
    result[$stage]="FAILED (tests) after $((SECONDS - t0)) s"
    return 1
  fi
  result[$stage]="ok in $((SECONDS - t0)) s"
}

for preset in "${stages[@]}"; do
  if [[ $preset == numpy ]]; then
    run_numpy_stage || failed=1
  elif [[ $preset == mpi-* ]]; then
    run_mpi_stage "$preset" || failed=1
  else
    run_stage "$preset" || failed=1
  fi
done

echo
echo "==== summary ===="
for preset in "${stages[@]}"; do
  echo "$preset: ${result[$preset]}"
  if [[ -n "${summary[$preset]:-}" ]]; then
    sed 's/^/    /' <<<"${summary[$preset]}"
  fi
done
echo "total: $((SECONDS - t_all)) s"
if ((failed)); then
  echo "test: FAILED"
  exit 1
fi
echo "test: all stages passed"
