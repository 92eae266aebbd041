#!/usr/bin/env bash
# tools/setup.sh: installs what building, testing and benchmarking NCLib
# needs on Debian 12, non-interactively. Idempotent: when every package is
# already installed it only says so (no apt-get update), so repeated runs
# cost nothing. Run as root (or with passwordless sudo) on a fresh system.
#
#   tools/setup.sh [--cross ARCH]...
#
# --cross aarch64 / --cross s390x also installs Debian's cross compiler and
# qemu-user for ARCH, and unpacks Debian's ARCH packages of the libraries
# NCLib needs into build/sysroot/ARCH, the tree the toolchain files in
# cmake/toolchains/ build against (unpacked, not installed: foreign packages
# installed with dpkg must match the host's versions exactly, which Debian's
# mirrors do not promise for every architecture at every moment).
set -euo pipefail
cd "$(dirname "$0")/.."

cross=()
while (($#)); do
  case $1 in
    --cross)
      case ${2:-} in
        aarch64 | s390x) cross+=("$2") ;;
        *) echo "setup: --cross takes aarch64 or s390x" >&2; exit 2 ;;
      esac
      shift 2 ;;
    *) echo "usage: tools/setup.sh [--cross aarch64|s390x]..." >&2; exit 2 ;;
  esac
done

# Debian's name of an architecture, and its GNU triple.
deb_arch() { case $1 in aarch64) echo arm64 ;; *) echo "$1" ;; esac; }
triple() { echo "$1-linux-gnu"; }

PACKAGES=(
  build-essential cmake pkg-config ninja-build   # toolchain (gcc 12, Ninja generator)
  clang libclang-rt-14-dev                       # the clang build and its sanitizer runtimes
  libhwloc-dev liburcu-dev                       # library dependencies (topology, RCU)
  libudev-dev                                    # named by hwloc.pc for static links (pkg-config --static)
  libsleef-dev                                   # vector math
  libopenblas-dev                                # matmul and dot of float dtypes (cblas)
  check libsubunit-dev                           # unit tests
  libbenchmark-dev                               # benchmarks
  python3 python3-numpy                          # the NumPy oracle for tests and benchmarks
  python3-dev                                    # the ncl_numpy adapter's headers (Python.h)
  python3-pytest python3-hypothesis              # NumPy's own test suites (its conftest imports hypothesis)
  abigail-tools                                  # the ABI baseline and its check (abidw, abidiff)
  doxygen                                        # the API reference and its check (ncl_api_docs)
  libopenmpi-dev openmpi-bin libmpich-dev mpich  # libncl_mpi, built and tested with both MPIs
  git
)
for a in "${cross[@]}"; do
  PACKAGES+=("gcc-$(triple "$a")" "libc6-dev-$(deb_arch "$a")-cross" qemu-user)
done

# The target's libraries unpacked for the toolchain files: headers, .pc files
# and libraries of hwloc, liburcu, SLEEF and Check, and what they need.
CROSS_PACKAGES=(libhwloc15 libhwloc-dev libudev1 libudev-dev liburcu8 liburcu-dev libsleef3 libsleef-dev
                check libsubunit0 libsubunit-dev)

missing=()
for p in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

SUDO=()
need_root() {
  if [[ $(id -u) -ne 0 && ${#SUDO[@]} -eq 0 ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      SUDO=(sudo -n)
    else
      echo "setup: $1 and not root; run tools/setup.sh as root" >&2
      exit 1
    fi
  fi
}
apt_get() { "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "$@" </dev/null; }

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#PACKAGES[@]} packages already installed"
else
  echo "setup: installing ${missing[*]}"
  need_root "missing packages (${missing[*]})"
  apt_get update
  apt_get install -y --no-install-recommends \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}"
  echo "setup: done"
fi

# build/sysroot/ARCH, unpacked again only when the package list changed.
for a in "${cross[@]}"; do
  da=$(deb_arch "$a")
  root=build/sysroot/$a
  want="${CROSS_PACKAGES[*]}"
  if [[ -f $root/.packages && $(<"$root/.packages") == "$want" ]]; then
    echo "setup: $root up to date"
    continue
  fi
  if ! dpkg --print-foreign-architectures | grep -qx "$da"; then
    need_root "architecture $da not configured"
    "${SUDO[@]}" dpkg --add-architecture "$da"
  fi
  if ! apt-cache show "libhwloc15:$da" >/dev/null 2>&1; then
    need_root "no package lists for $da"
    apt_get update
  fi
  debs=build/sysroot/.debs-$a
  rm -rf "$root" "$debs"
  mkdir -p "$root" "$debs"
  echo "setup: unpacking Debian's $da packages into $root"
  if ! (cd "$debs" && apt-get download "${CROSS_PACKAGES[@]/%/:$da}" </dev/null >download.log 2>&1); then
    cat "$debs/download.log" >&2
    echo "setup: downloading Debian's $da packages failed" >&2
    exit 1
  fi
  for deb in "$debs"/*.deb; do
    dpkg-deb -x "$deb" "$root"
  done
  rm -rf "$debs"
  echo "$want" >"$root/.packages"
done
