# linux-gnu-cross.cmake: the part shared by the cross toolchain files beside
# it; each sets NCL_CROSS_TRIPLE and NCL_CROSS_PROCESSOR and includes this.
#
# The compiler is Debian's gcc-<triple> (its C library in /usr/<triple>). The
# libraries NCLib needs (hwloc, liburcu, SLEEF, Check) come from Debian's
# packages for the target architecture, unpacked by `tools/setup.sh --cross
# <arch>` into build/sysroot/<arch> rather than installed with dpkg: the
# foreign packages then need no version lock-step with the host's. Tests run
# under qemu-user, named explicitly (no binfmt handler is assumed), with the
# C library from /usr/<triple> and the others from the unpacked tree.
#
#   NCL_CROSS_SYSROOT   the unpacked tree (default: build/sysroot/<arch>)

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${NCL_CROSS_PROCESSOR})
set(CMAKE_C_COMPILER ${NCL_CROSS_TRIPLE}-gcc)

get_filename_component(_ncl_src "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
if(NOT NCL_CROSS_SYSROOT)
  if(DEFINED ENV{NCL_CROSS_SYSROOT})
    set(NCL_CROSS_SYSROOT "$ENV{NCL_CROSS_SYSROOT}")
  else()
    set(NCL_CROSS_SYSROOT "${_ncl_src}/build/sysroot/${NCL_CROSS_PROCESSOR}")
  endif()
endif()
if(NOT EXISTS "${NCL_CROSS_SYSROOT}/usr/lib/${NCL_CROSS_TRIPLE}")
  message(FATAL_ERROR "No ${NCL_CROSS_PROCESSOR} libraries in ${NCL_CROSS_SYSROOT}: "
                      "run tools/setup.sh --cross ${NCL_CROSS_PROCESSOR} first")
endif()
# try_compile projects re-read this file; they need the same settings.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES NCL_CROSS_SYSROOT)

set(_ncl_lib "${NCL_CROSS_SYSROOT}/usr/lib/${NCL_CROSS_TRIPLE}")
set(CMAKE_C_FLAGS_INIT
    "-isystem ${NCL_CROSS_SYSROOT}/usr/include/${NCL_CROSS_TRIPLE} -isystem ${NCL_CROSS_SYSROOT}/usr/include")
foreach(_kind EXE SHARED MODULE)
  set(CMAKE_${_kind}_LINKER_FLAGS_INIT "-L${_ncl_lib} -Wl,-rpath-link,${_ncl_lib}")
endforeach()

# Headers and libraries from the target's trees only; programs from the host.
set(CMAKE_FIND_ROOT_PATH "/usr/${NCL_CROSS_TRIPLE}" "${NCL_CROSS_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config reads the target's .pc files and prefixes their paths.
set(ENV{PKG_CONFIG_LIBDIR} "${_ncl_lib}/pkgconfig:${NCL_CROSS_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${NCL_CROSS_SYSROOT}")
unset(ENV{PKG_CONFIG_PATH})

# qemu-user, explicitly: its -L gives the target's C library, and the
# unpacked libraries are found through LD_LIBRARY_PATH in the guest.
find_program(NCL_CROSS_QEMU qemu-${NCL_CROSS_PROCESSOR} qemu-${NCL_CROSS_PROCESSOR}-static)
if(NCL_CROSS_QEMU)
  set(CMAKE_CROSSCOMPILING_EMULATOR
      "${NCL_CROSS_QEMU};-L;/usr/${NCL_CROSS_TRIPLE};-E;LD_LIBRARY_PATH=${_ncl_lib}")
endif()
