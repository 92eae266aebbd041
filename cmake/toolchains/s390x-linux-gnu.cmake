# s390x-linux-gnu.cmake: cross build for IBM Z Linux (64-bit, big-endian),
# tests under qemu-s390x; see linux-gnu-cross.cmake.
set(NCL_CROSS_TRIPLE s390x-linux-gnu)
set(NCL_CROSS_PROCESSOR s390x)
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-cross.cmake)
