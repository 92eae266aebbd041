# NclSanitizers.cmake: NCL_SANITIZE, the sanitizer a build is instrumented
# with. It must be set before any target is made: the flags go on the
# compile and link line of everything in the tree (library, tests, examples,
# benchmarks), because a sanitized library loaded by an unsanitized program
# (or the reverse) misses reports or fails to load.
#
#   NCL_SANITIZE=""                   none (default)
#   NCL_SANITIZE="address,undefined"  ASan + UBSan (any subset of the two)
#   NCL_SANITIZE="thread"             TSan
#
# Every report is fatal (-fno-sanitize-recover=all): a test that only prints
# a sanitizer warning would pass.

set(NCL_SANITIZE "" CACHE STRING
    "Sanitizers to build with: empty, address,undefined (or one of them), or thread")
set_property(CACHE NCL_SANITIZE PROPERTY STRINGS "" "address,undefined" "address" "undefined" "thread")

if(NCL_SANITIZE)
  string(REPLACE "," ";" _ncl_san_list "${NCL_SANITIZE}")
  foreach(_s IN LISTS _ncl_san_list)
    if(NOT _s MATCHES "^(address|undefined|thread)$")
      message(FATAL_ERROR "NCL_SANITIZE: unknown sanitizer '${_s}' in '${NCL_SANITIZE}' "
                          "(use address, undefined or thread)")
    endif()
  endforeach()
  if("thread" IN_LIST _ncl_san_list AND "address" IN_LIST _ncl_san_list)
    message(FATAL_ERROR "NCL_SANITIZE: thread and address cannot be combined")
  endif()

  set(NCL_SANITIZER_FLAGS -fsanitize=${NCL_SANITIZE})
  # gcc leaves float->int overflow out of "undefined"; the contract
  # promises none happens (casts saturate), so check it there too. clang
  # already includes it.
  if("undefined" IN_LIST _ncl_san_list AND CMAKE_C_COMPILER_ID STREQUAL "GNU")
    list(APPEND NCL_SANITIZER_FLAGS -fsanitize=float-cast-overflow)
  endif()
  list(APPEND NCL_SANITIZER_FLAGS -fno-sanitize-recover=all -fno-omit-frame-pointer)

  # liburcu-bp's inline read lock dereferences its reader struct, which the
  # library allocates with less than the struct's declared 128-byte
  # alignment: UBSan would report liburcu's bug in every call. Calling the
  # library's out-of-line read lock instead keeps that access inside
  # liburcu-bp itself (src/hooks/hooks.c honours NCL_URCU_NO_INLINE).
  set(NCL_SANITIZER_DEFINITIONS "")
  if("undefined" IN_LIST _ncl_san_list)
    set(NCL_SANITIZER_DEFINITIONS NCL_URCU_NO_INLINE)
  endif()

  add_compile_options(${NCL_SANITIZER_FLAGS})
  add_link_options(${NCL_SANITIZER_FLAGS})
  message(STATUS "NCL: sanitizers: ${NCL_SANITIZER_FLAGS}")
else()
  set(NCL_SANITIZER_FLAGS "")
  set(NCL_SANITIZER_DEFINITIONS "")
endif()
