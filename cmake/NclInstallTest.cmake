# NclInstallTest.cmake: run as a CTest test (cmake -P). Installs the built
# tree into a fresh prefix and builds the consumer in tests/install/ against
# it three ways, running each program:
#   1. CMake: find_package(NCL) with NCL::ncl and NCL::ncl_static;
#   2. pkg-config --cflags --libs ncl (the shared library);
#   3. pkg-config --static --libs ncl, linked against libncl.a (checks that
#      Requires.private / Libs.private name every dependency).
#
# Variables: BUILD_DIR, SOURCE_DIR, WORK_DIR, LIBDIR (relative install
# libdir), C_COMPILER, CONFIG, SAN_FLAGS (";"-separated sanitizer flags the
# library was built with: consumers must use them too), GENERATOR.
# Cross builds add TOOLCHAIN (the toolchain file), EMULATOR (the command
# that runs the target's programs, "|"-separated), CROSS_FLAGS (the
# toolchain's compile and link flags, for the pkg-config consumers) and
# CROSS_PC_DIRS (where the target's .pc files are).

cmake_minimum_required(VERSION 3.25)

foreach(v BUILD_DIR SOURCE_DIR WORK_DIR LIBDIR C_COMPILER)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "NclInstallTest.cmake: ${v} is not set")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "${what} failed (${rc}):\n$ ${cmd}\n${out}\n${err}")
  endif()
  set(run_out "${out}" PARENT_SCOPE)
endfunction()

set(prefix "${WORK_DIR}/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

set(config_args "")
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()
run("install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}" ${config_args})

foreach(f include/ncl.h include/ncl/api.h "${LIBDIR}/libncl.a" "${LIBDIR}/pkgconfig/ncl.pc"
          "${LIBDIR}/cmake/NCL/NCLConfig.cmake" "${LIBDIR}/cmake/NCL/NCLConfigVersion.cmake")
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "install did not produce ${prefix}/${f}")
  endif()
endforeach()
file(GLOB sonames "${prefix}/${LIBDIR}/libncl.so.*")
if(NOT sonames)
  message(FATAL_ERROR "install did not produce ${prefix}/${LIBDIR}/libncl.so.<major>")
endif()

string(REPLACE ";" " " san_flags "${SAN_FLAGS}")
# Given only when there are some: set, even empty, they would replace a
# toolchain file's own flags.
set(san_args "")
if(san_flags)
  set(san_args "-DCMAKE_C_FLAGS=${san_flags}" "-DCMAKE_EXE_LINKER_FLAGS=${san_flags}")
endif()
string(REPLACE "|" ";" EMULATOR "${EMULATOR}")
set(cross_args "")
set(cross_flags "")
set(pc_dirs "${prefix}/${LIBDIR}/pkgconfig")
if(TOOLCHAIN)
  # The package is found through its own directory: the toolchain confines
  # find_package to the target's trees.
  set(cross_args "-DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN}" "-DNCL_DIR=${prefix}/${LIBDIR}/cmake/NCL")
  separate_arguments(cross_flags UNIX_COMMAND "${CROSS_FLAGS}")
  # The emulator sets the guest's library path itself: libncl by rpath.
  list(APPEND cross_flags "-Wl,-rpath,${prefix}/${LIBDIR}")
  set(pc_dirs "${pc_dirs}:${CROSS_PC_DIRS}")
endif()

# ---- 1. find_package(NCL) ----------------------------------------------------
set(gen_args "")
if(GENERATOR)
  set(gen_args -G "${GENERATOR}")
endif()
run("configure of the find_package consumer"
    "${CMAKE_COMMAND}" -S "${SOURCE_DIR}/tests/install" -B "${WORK_DIR}/cmake-build" ${gen_args}
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_C_COMPILER=${C_COMPILER}" ${cross_args}
    ${san_args}
    -DCMAKE_BUILD_TYPE=Release)
run("build of the find_package consumer" "${CMAKE_COMMAND}" --build "${WORK_DIR}/cmake-build")
run("consumer linked to NCL::ncl" ${EMULATOR} "${WORK_DIR}/cmake-build/ncl_consumer_shared")
message(STATUS "NCL::ncl: ${run_out}")
run("consumer linked to NCL::ncl_static" ${EMULATOR} "${WORK_DIR}/cmake-build/ncl_consumer_static")
message(STATUS "NCL::ncl_static: ${run_out}")

# ---- 2. and 3. pkg-config -----------------------------------------------------
find_program(PKG_CONFIG_EXE NAMES pkg-config pkgconf REQUIRED)
set(pc_env "PKG_CONFIG_PATH=${pc_dirs}")
if(TOOLCHAIN)
  set(pc_env "PKG_CONFIG_LIBDIR=${pc_dirs}")
endif()

run("pkg-config --cflags --libs ncl"
    "${CMAKE_COMMAND}" -E env "${pc_env}" "${PKG_CONFIG_EXE}" --cflags --libs ncl)
separate_arguments(pc_flags UNIX_COMMAND "${run_out}")
if(NOT pc_flags MATCHES "-lncl")
  message(FATAL_ERROR "pkg-config --libs ncl gives no -lncl: '${run_out}'")
endif()
run("compile with pkg-config flags"
    "${C_COMPILER}" -std=c11 ${SAN_FLAGS} ${cross_flags} "${SOURCE_DIR}/tests/install/consumer.c"
    ${pc_flags} -o "${WORK_DIR}/consumer_pc")
run("consumer built with pkg-config"
    "${CMAKE_COMMAND}" -E env "LD_LIBRARY_PATH=${prefix}/${LIBDIR}" ${EMULATOR} "${WORK_DIR}/consumer_pc")
message(STATUS "pkg-config (shared): ${run_out}")

run("pkg-config --static --cflags --libs ncl"
    "${CMAKE_COMMAND}" -E env "${pc_env}" "${PKG_CONFIG_EXE}" --static --cflags --libs ncl)
separate_arguments(pc_static_flags UNIX_COMMAND "${run_out}")
# Link the archive itself so that a missing private dependency cannot be
# papered over by the shared library.
list(TRANSFORM pc_static_flags REPLACE "^-lncl$" "${prefix}/${LIBDIR}/libncl.a")
run("compile with pkg-config --static flags"
    "${C_COMPILER}" -std=c11 ${SAN_FLAGS} ${cross_flags} "${SOURCE_DIR}/tests/install/consumer.c"
    ${pc_static_flags} -o "${WORK_DIR}/consumer_pc_static")
run("consumer built with pkg-config --static" ${EMULATOR} "${WORK_DIR}/consumer_pc_static")
message(STATUS "pkg-config (static): ${run_out}")
