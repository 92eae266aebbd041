# aarch64-linux-gnu.cmake: cross build for 64-bit Arm Linux (little-endian),
# tests under qemu-aarch64; see linux-gnu-cross.cmake.
set(NCL_CROSS_TRIPLE aarch64-linux-gnu)
set(NCL_CROSS_PROCESSOR aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-cross.cmake)
