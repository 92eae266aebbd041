#!/usr/bin/env bash
# tools/demo.sh: from a fresh checkout to the demonstration: installs the
# dependencies (tools/setup.sh), builds the release preset and runs
# examples/ncl_demo.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup.sh
cmake --preset release
cmake --build --preset release --target ncl_demo
echo
build/release/examples/ncl_demo

# The second demonstration: a distributed sum over two processes (MPICH),
# compared bit for bit with one process (mpi/examples/ncl_mpi_demo.c).
cmake --build --preset release --target ncl
cmake -S mpi -B build/mpi-demo -G Ninja -DNCL_BUILD_DIR="$PWD/build/release" \
  -DMPI_C_COMPILER=mpicc.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich >/dev/null
cmake --build build/mpi-demo --target ncl_mpi_demo
echo
echo "mpiexec -n 2 ncl_mpi_demo"
exec mpiexec.mpich -n 2 build/mpi-demo/ncl_mpi_demo
