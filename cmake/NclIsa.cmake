# NclIsa.cmake: the instruction-set variants of the kernels.
#
# Every kernel source (kernels/**/*.c) is compiled once per variant: the
# baseline with the toolchain's default flags, and on x86-64 once more for
# each level below with that level's flags. Kernel code selects hand-written
# SIMD with the compiler's own macros (__AVX512F__, __AVX2__, __SSE2__), so a
# variant holds the same portable loops plus whatever its level enables, and
# a non-x86 build compiles only the portable code.
#
# A variant's objects define their kernel tables under suffixed names
# (ncl_k_binary_table_avx2, ...: kernels/ncl_kernel.h renames them from
# NCL_ISA_SUFFIX), so all variants live in one library. src/runtime/cpu.c
# picks one at load from cpuid + xgetbv; nothing compiled here runs on a CPU
# without its features. The library (src/) sees NCL_HAVE_ISA_<ISA>=1 for
# each variant built.
#
# Adding a level: append it to NCL_ISA_LIST with its NCL_ISA_FLAGS_<isa>, add
# it to src/runtime/cpu.h (its required features) and to the table list of
# src/hooks/kernel_registry.c.
#
#   ncl_isa_add_variants(<out_targets_var> <sources...>)
#       makes one OBJECT library ncl_kernels_<isa> per enabled level from the
#       kernel sources and returns their names.

include(CheckCCompilerFlag)

set(NCL_ISA_LIST "")
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  # x86-64-v3, without changing the tuning.
  set(NCL_ISA_FLAGS_avx2 -mavx2 -mfma -mbmi -mbmi2 -mlzcnt -mpopcnt -mf16c -mmovbe)
  # x86-64-v4: the AVX-512 subset common to Skylake-X and Zen 4.
  set(NCL_ISA_FLAGS_avx512 ${NCL_ISA_FLAGS_avx2}
      -mavx512f -mavx512cd -mavx512bw -mavx512dq -mavx512vl)
  set(NCL_ISA_LIST avx2 avx512)
endif()

option(NCL_ISA_VARIANTS "Build the x86-64 AVX2 and AVX-512 kernel variants" ON)

set(NCL_ISA_ENABLED "")
if(NCL_ISA_VARIANTS)
  foreach(_isa IN LISTS NCL_ISA_LIST)
    string(TOUPPER "${_isa}" _ISA)
    string(REPLACE ";" " " _flags "${NCL_ISA_FLAGS_${_isa}}")
    set(CMAKE_REQUIRED_QUIET ON)
    check_c_compiler_flag("${_flags}" NCL_CC_SUPPORTS_${_ISA})
    unset(CMAKE_REQUIRED_QUIET)
    if(NCL_CC_SUPPORTS_${_ISA})
      list(APPEND NCL_ISA_ENABLED ${_isa})
    endif()
  endforeach()
endif()

function(ncl_isa_add_variants out_targets)
  set(targets "")
  foreach(isa IN LISTS NCL_ISA_ENABLED)
    set(t ncl_kernels_${isa})
    add_library(${t} OBJECT ${ARGN})
    target_compile_options(${t} PRIVATE ${NCL_ISA_FLAGS_${isa}})
    target_compile_definitions(${t} PRIVATE NCL_ISA_SUFFIX=_${isa})
    list(APPEND targets ${t})
  endforeach()
  if(NCL_ISA_ENABLED)
    message(STATUS "NCL: kernel variants: baseline ${NCL_ISA_ENABLED}")
  else()
    message(STATUS "NCL: kernel variants: baseline only")
  endif()
  set(${out_targets} "${targets}" PARENT_SCOPE)
endfunction()

# What src/ (and the tests linking its objects) need to know: which variants exist.
function(ncl_isa_announce target)
  foreach(isa IN LISTS NCL_ISA_ENABLED)
    string(TOUPPER "${isa}" ISA)
    target_compile_definitions(${target} PUBLIC NCL_HAVE_ISA_${ISA}=1)
  endforeach()
endfunction()
