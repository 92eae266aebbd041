#!/usr/bin/env bash
# tools/bench.sh: regenerates docs/PERFORMANCE.md, the side-by-side
# comparison of NCLib with NumPy for every row of BENCHMARKS.md.
#
# It builds a Release tree with the benchmarks in its own directory
# (build/bench, or $NCL_BENCH_BUILD_DIR), runs the google-benchmark cases of
# every row briefly (bench_rows; their JSON goes next to the build), then
# bench/numpy_side_by_side.py times NCLib and NumPy on the same buffers in
# one process (interleaved samples, medians), measures the streaming-store
# bandwidth limit in the same run and writes the report. Extra arguments go
# to the script (e.g. --rows 1 2, --repeats 9, --min-time 0.05; --rows
# writes a partial report).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${NCL_BENCH_BUILD_DIR:-build/bench}
started=$(date +%s)

tools/setup.sh
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
  -DNCL_BUILD_BENCH=ON -DNCL_BUILD_TESTS=OFF -DNCL_BUILD_EXAMPLES=OFF >/dev/null
# Two jobs at most: the machine is shared.
cmake --build "$build" -j 2 --target ncl ncl_bench_helper bench_binary bench_ops3 bench_rows

echo "bench.sh: brief google-benchmark run of bench_rows" >&2
NCL_NUM_THREADS=1 "$build/bench/bench_rows" --benchmark_min_time=0.01 \
  --benchmark_out="$build/bench_rows.json" --benchmark_out_format=json \
  >"$build/bench_rows.log" 2>&1 ||
  echo "bench.sh: bench_rows failed, see $build/bench_rows.log" >&2

/usr/bin/python3 bench/numpy_side_by_side.py \
  --build-dir "$build" \
  --gbench-json "$build/bench_rows.json" \
  --command "tools/bench.sh${*:+ $*}" \
  --output docs/PERFORMANCE.md "$@" >/dev/null

echo "bench.sh: wrote docs/PERFORMANCE.md in $(($(date +%s) - started)) s" >&2
