#!/usr/bin/env bash
# tools/abi.sh update <build-dir>: writes NCLib's ABI baseline from the
# libncl.so of a build with debug information (CMake's Debug or
# RelWithDebInfo, e.g. the asan preset's build/asan):
#   abi/libncl.abi      libabigail's abidw of the library (the exported
#                       functions and the types they reach), without
#                       source locations
#   abi/libncl.symbols  the exported symbols, one a line
# The build's CTest tests ncl_abi and ncl_exports_list compare every later
# build with them. Run it when an ABI change is meant, and commit both files
# with the change.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -ne 2 || $1 != update ]]; then
  echo "usage: tools/abi.sh update <build-dir>" >&2
  exit 2
fi
lib=$2/libncl.so
if [[ ! -e $lib ]]; then
  echo "abi: $lib not found: build the library first" >&2
  exit 1
fi
if ! readelf -S "$lib" | grep -q '\.debug_info'; then
  echo "abi: $lib has no debug information (build it as Debug or RelWithDebInfo)" >&2
  exit 1
fi
root=$(pwd -P)
mkdir -p abi
# Translation units are named by the absolute paths they were compiled
# with; the baseline keeps them relative to the source tree.
abidw --no-corpus-path --no-comp-dir-path --no-show-locs "$lib" |
  sed "s|path='$root/|path='|g" >abi/libncl.abi
cmake -DMODE=list -DUPDATE=1 -DLIST=abi/libncl.symbols -DLIB="$lib" -DNM=nm \
  -P cmake/NclCheckExports.cmake
echo "abi: wrote abi/libncl.abi and abi/libncl.symbols from $lib"
