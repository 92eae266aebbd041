# NclCheckExports.cmake: run as a CTest test (cmake -P) against the built
# libncl.so. Two checks, chosen with MODE:
#
#   MODE=only_ncl   every defined dynamic symbol is an Ncl* name: nothing of
#                   the framework, the kernels or a dependency leaks into the
#                   ABI (and the library exports at least NclGetApi).
#   MODE=complete   every function a public header declares with NCL_API is
#                   exported: a declared but unimplemented function would
#                   otherwise only show up as a link error in a user's build.
#   MODE=list       the exported symbols are exactly those of the committed
#                   list LIST (abi/libncl.symbols, one name a line, sorted):
#                   an export added or removed fails until the list is
#                   changed with it, so every ABI change shows in a review.
#                   UPDATE=1 rewrites the list instead.
#
# Variables: LIB (path of libncl.so), NM (nm), INCLUDE_DIR (for complete),
# LIST and UPDATE (for list).

cmake_minimum_required(VERSION 3.25)

if(NOT LIB OR NOT NM OR NOT MODE)
  message(FATAL_ERROR "usage: cmake -DMODE=only_ncl|complete -DLIB=<libncl.so> -DNM=<nm> "
                      "[-DINCLUDE_DIR=<include>] -P NclCheckExports.cmake")
endif()

execute_process(COMMAND "${NM}" -D --defined-only "${LIB}"
                OUTPUT_VARIABLE nm_out ERROR_VARIABLE nm_err RESULT_VARIABLE nm_rc)
if(NOT nm_rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D --defined-only ${LIB} failed (${nm_rc}): ${nm_err}")
endif()

set(exported "")
set(foreign "")
string(REPLACE "\n" ";" nm_lines "${nm_out}")
foreach(line IN LISTS nm_lines)
  if(line MATCHES "^[0-9a-fA-F]* *[A-Za-z] ([^ @]+)")
    set(sym "${CMAKE_MATCH_1}")
    list(APPEND exported "${sym}")
    if(NOT sym MATCHES "^Ncl")
      list(APPEND foreign "${sym}")
    endif()
  endif()
endforeach()

if(MODE STREQUAL "only_ncl")
  list(LENGTH exported n_exported)
  if(foreign)
    list(JOIN foreign "\n  " foreign_text)
    message(FATAL_ERROR "${LIB} exports symbols outside the Ncl* API "
                        "(give them hidden visibility or make them static):\n  ${foreign_text}")
  endif()
  if(NOT "NclGetApi" IN_LIST exported)
    message(FATAL_ERROR "${LIB} does not export NclGetApi (it exports ${n_exported} symbols)")
  endif()
  message(STATUS "${LIB}: ${n_exported} exported symbols, all Ncl*")
elseif(MODE STREQUAL "complete")
  if(NOT INCLUDE_DIR)
    message(FATAL_ERROR "MODE=complete needs INCLUDE_DIR")
  endif()
  file(GLOB headers "${INCLUDE_DIR}/ncl.h" "${INCLUDE_DIR}/ncl/*.h")
  set(declared "")
  foreach(h IN LISTS headers)
    file(READ "${h}" text)
    # Each match runs from NCL_API to the first "(": the name is the last
    # identifier before it, whatever the return type spans.
    string(REGEX MATCHALL "NCL_API[^;(#]*\\(" decls "${text}")
    foreach(d IN LISTS decls)
      if(d MATCHES "(Ncl[A-Za-z0-9_]+)[ \t\r\n]*\\($")
        list(APPEND declared "${CMAKE_MATCH_1}")
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES declared)
  set(missing "")
  foreach(fn IN LISTS declared)
    if(NOT fn IN_LIST exported)
      list(APPEND missing "${fn}")
    endif()
  endforeach()
  list(LENGTH declared n_declared)
  if(n_declared LESS 10)
    message(FATAL_ERROR "found only ${n_declared} NCL_API declarations under ${INCLUDE_DIR}: "
                        "the header scan is broken")
  endif()
  if(missing)
    list(LENGTH missing n_missing)
    list(JOIN missing "\n  " missing_text)
    message(FATAL_ERROR "${n_missing} of ${n_declared} public functions declared in "
                        "${INCLUDE_DIR} are not exported by ${LIB}:\n  ${missing_text}")
  endif()
  message(STATUS "${LIB}: all ${n_declared} declared public functions are exported")
elseif(MODE STREQUAL "list")
  if(NOT LIST)
    message(FATAL_ERROR "MODE=list needs LIST")
  endif()
  list(SORT exported)
  list(REMOVE_DUPLICATES exported)
  if(UPDATE)
    list(JOIN exported "\n" text)
    file(WRITE "${LIST}" "${text}\n")
    list(LENGTH exported n)
    message(STATUS "${LIST}: ${n} symbols written")
    return()
  endif()
  if(NOT EXISTS "${LIST}")
    message(FATAL_ERROR "the committed symbol list ${LIST} is missing")
  endif()
  file(STRINGS "${LIST}" committed)
  set(added "")
  set(removed "")
  foreach(sym IN LISTS exported)
    if(NOT sym IN_LIST committed)
      list(APPEND added "${sym}")
    endif()
  endforeach()
  foreach(sym IN LISTS committed)
    if(NOT sym IN_LIST exported)
      list(APPEND removed "${sym}")
    endif()
  endforeach()
  if(added OR removed)
    list(JOIN added " " added_text)
    list(JOIN removed " " removed_text)
    message(FATAL_ERROR "${LIB} exports other symbols than ${LIST} lists:\n"
                        "  not in the list: ${added_text}\n"
                        "  listed but not exported: ${removed_text}\n"
                        "A removed export breaks the ABI (NCL_ABI_VERSION); an added one "
                        "is appended to NclApi too. Update the list with tools/abi.sh "
                        "update once the change is meant.")
  endif()
  list(LENGTH exported n)
  message(STATUS "${LIB}: its ${n} exported symbols are those of ${LIST}")
else()
  message(FATAL_ERROR "unknown MODE '${MODE}'")
endif()
