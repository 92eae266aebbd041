#!/usr/bin/env bash
# tools/setup.sh: installs what building, testing and benchmarking NCLib
# needs on Debian 12, non-interactively. Idempotent: when every package is
# already installed it only says so (no apt-get update), so repeated runs
# cost nothing. Run as root (or with passwordless sudo) on a fresh system.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config ninja-build   # toolchain (gcc 12, Ninja generator)
  clang libclang-rt-14-dev                       # the clang build and its sanitizer runtimes
  libhwloc-dev liburcu-dev                       # library dependencies (topology, RCU)
  libudev-dev                                    # named by hwloc.pc for static links (pkg-config --static)
  libsleef-dev                                   # vector math
  check libsubunit-dev                           # unit tests
  libbenchmark-dev                               # benchmarks
  python3 python3-numpy                          # the NumPy oracle for tests and benchmarks
  python3-dev                                    # the ncl_numpy adapter's headers (Python.h)
  python3-pytest python3-hypothesis              # NumPy's own test suites (its conftest imports hypothesis)
  abigail-tools                                  # the ABI baseline and its check (abidw, abidiff)
  git
)

missing=()
for p in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
  else
    echo "setup: missing packages (${missing[*]}) and not root; run tools/setup.sh as root" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update </dev/null
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
  -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}" </dev/null
echo "setup: done"
