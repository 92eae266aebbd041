# NclCheckAbi.cmake: run as a CTest test (cmake -P) in builds with debug
# information. Compares the built libncl.so with the committed ABI baseline
# (abi/libncl.abi, libabigail's abidw of a debug build, written by
# tools/abi.sh update) using abidiff: the exported functions and every type
# they reach, NclApi's table and the structs behind its function pointers
# included. Any difference fails, with abidiff's report:
#   - a change that breaks the ABI (a function removed or its signature
#     changed, a struct's layout or an enum's values changed) needs a new
#     NCL_ABI_VERSION and soname, or the old layout kept;
#   - a change that keeps it (a function added; NclApi, NclParams or
#     NclCreateParams, which carry their size, grown at their end) is
#     recorded by updating the baseline in the same commit, so every ABI
#     change is visible in review.
# Variables: ABIDIFF, BASELINE, LIB.

cmake_minimum_required(VERSION 3.25)

if(NOT ABIDIFF OR NOT BASELINE OR NOT LIB)
  message(FATAL_ERROR "usage: cmake -DABIDIFF=<abidiff> -DBASELINE=<abi/libncl.abi> "
                      "-DLIB=<libncl.so> -P NclCheckAbi.cmake")
endif()
if(NOT EXISTS "${BASELINE}")
  message(FATAL_ERROR "the ABI baseline ${BASELINE} is missing (tools/abi.sh update writes it)")
endif()

execute_process(COMMAND "${ABIDIFF}" "${BASELINE}" "${LIB}"
                OUTPUT_VARIABLE report ERROR_VARIABLE err RESULT_VARIABLE rc)
# abidiff's status is a bit set: 1 error, 2 usage error, 4 an ABI change,
# 8 an incompatible ABI change.
if(NOT rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "${ABIDIFF} did not run: ${rc} ${err}")
endif()
math(EXPR failed "${rc} & 3")
math(EXPR incompatible "${rc} & 8")
math(EXPR changed "${rc} & 4")
if(failed)
  message(FATAL_ERROR "${ABIDIFF} failed (status ${rc}): ${err}${report}")
endif()
if(incompatible OR changed)
  set(kind "a change")
  if(incompatible)
    set(kind "an incompatible change")
  endif()
  message(FATAL_ERROR "${LIB} makes ${kind} to the ABI of ${BASELINE}:\n${report}\n"
                      "A change that breaks the ABI needs a new NCL_ABI_VERSION (and soname), "
                      "or the old layout and signatures kept. A change that keeps it (a "
                      "function added, a struct that carries its size grown at its end) is "
                      "recorded with tools/abi.sh update <debug build> in the same commit.")
endif()
message(STATUS "${LIB}: the ABI of ${BASELINE}")
