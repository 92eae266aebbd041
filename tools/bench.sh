#!/usr/bin/env bash
# tools/bench.sh: regenerates docs/PERFORMANCE.md, the side-by-side
# comparison of NCLib with NumPy for every row of BENCHMARKS.md.
#
#   tools/bench.sh [--head] [script arguments...]
#
# It builds a Release tree with the benchmarks in its own directory
# (build/bench, or $NCL_BENCH_BUILD_DIR), runs the google-benchmark cases of
# every row briefly (bench_rows; JSON and log in the build directory), then
# bench/numpy_side_by_side.py times NCLib and NumPy on the same buffers in
# one process (interleaved samples, medians), measures the streaming-store
# bandwidth limit in the same run and writes the report.
#
# --head measures the last commit instead of the working tree: HEAD is
# exported (git archive) to build/bench-head-src and built in
# build/bench-head, so uncommitted work elsewhere in the tree neither breaks
# nor colours the figures. Other arguments go to the script (e.g. --rows 1 2, --repeats 9,
# --min-time 0.05; --rows writes a partial report).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

build=${NCL_BENCH_BUILD_DIR:-build/bench}
src=.
commit_args=()
command="tools/bench.sh${*:+ $*}"
if [[ "${1:-}" == "--head" ]]; then
  shift
  # A build tree of its own: CMake refuses to switch a tree's source directory.
  src="$build-head-src"
  build="$build-head"
  # Only files that differ are replaced (and vanished ones removed), so
  # that the build after a new commit is incremental.
  export_dir=$(mktemp -d)
  trap 'rm -rf "$export_dir"' EXIT
  git archive HEAD | tar -x -C "$export_dir"
  mkdir -p "$src"
  (cd "$export_dir" && find . -type f -print0) |
    while IFS= read -r -d '' f; do
      if ! cmp -s "$export_dir/$f" "$src/$f"; then
        mkdir -p "$(dirname "$src/$f")"
        cp -p "$export_dir/$f" "$src/$f"
      fi
    done
  (cd "$src" && find . -type f -print0) |
    while IFS= read -r -d '' f; do
      [[ -e "$export_dir/$f" ]] || rm -f "$src/$f"
    done
  commit_args=(--commit "$(git rev-parse --short=12 HEAD) (HEAD, exported without the working tree's changes)")
fi
started=$(date +%s)

tools/setup.sh
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
  -DNCL_BUILD_BENCH=ON -DNCL_BUILD_TESTS=OFF -DNCL_BUILD_EXAMPLES=OFF >/dev/null
# Two jobs at most: the machine is shared.
cmake --build "$build" -j 2 --target ncl ncl_bench_helper bench_binary bench_ops3 bench_rows

echo "bench.sh: built in $(($(date +%s) - started)) s; brief google-benchmark run of bench_rows" >&2
NCL_NUM_THREADS=1 "$build/bench/bench_rows" --benchmark_min_time=0.01 \
  --benchmark_out="$build/bench_rows.json" --benchmark_out_format=json \
  >"$build/bench_rows.log" 2>&1 ||
  echo "bench.sh: bench_rows failed, see $build/bench_rows.log" >&2

echo "bench.sh: $(($(date +%s) - started)) s so far; side-by-side run (progress below)" >&2
/usr/bin/python3 "$repo/bench/numpy_side_by_side.py" \
  --build-dir "$build" \
  --gbench-json "$build/bench_rows.json" \
  --command "$command" "${commit_args[@]}" \
  --output docs/PERFORMANCE.md "$@" >/dev/null

echo "bench.sh: RNG side-by-side run" >&2
/usr/bin/python3 "$repo/bench/rng_side_by_side.py" --lib "$build/libncl.so" \
  --write docs/PERFORMANCE.md >/dev/null

echo "bench.sh: wrote docs/PERFORMANCE.md in $(($(date +%s) - started)) s" >&2
