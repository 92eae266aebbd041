# NclCheckDocs.cmake: run as the CTest test ncl_api_docs (cmake -P). Runs
# doxygen with the API reference's configured Doxyfile, into WORK_DIR rather
# than over the reference the target ncl_docs writes, and fails on any
# warning (WARN_AS_ERROR = FAIL_ON_WARNINGS): an undocumented public
# function, type, field or macro, a parameter or return value without its
# @param / @return, a malformed doc comment.
#
# Doxygen 1.9.4 (Debian 12) does not warn about an undocumented enum value
# (WARN_IF_UNDOC_ENUM_VAL came in 1.9.6), so this run also writes doxygen's
# XML, and an enum value whose description is empty there fails the check
# too: the X-macro lists document each value with the comment in front of
# its entry.
#
# Variables: DOXYGEN, DOXYFILE (the configured Doxyfile), WORK_DIR.

cmake_minimum_required(VERSION 3.25)

if(NOT DOXYGEN OR NOT DOXYFILE OR NOT WORK_DIR)
  message(FATAL_ERROR "usage: cmake -DDOXYGEN=<doxygen> -DDOXYFILE=<Doxyfile> "
                      "-DWORK_DIR=<dir> -P NclCheckDocs.cmake")
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
# Later settings override what the included file says.
file(WRITE "${WORK_DIR}/Doxyfile"
     "@INCLUDE = ${DOXYFILE}\nOUTPUT_DIRECTORY = ${WORK_DIR}\nGENERATE_XML = YES\n")
execute_process(COMMAND "${DOXYGEN}" "${WORK_DIR}/Doxyfile"
                WORKING_DIRECTORY "${WORK_DIR}"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "doxygen (status ${rc}) reports problems in the API documentation:\n"
                      "${out}${err}"
                      "Every public declaration in include/ncl.h and include/ncl/*.h "
                      "carries a doc comment (/** ... */, ///< for fields and enum "
                      "values), with @param for each parameter and @return or @retval "
                      "for a result.")
endif()

file(GLOB xml_files "${WORK_DIR}/xml/*.xml")
if(NOT xml_files)
  message(FATAL_ERROR "doxygen wrote no XML under ${WORK_DIR}/xml: the enum check cannot run")
endif()
set(blank "[ \t\r\n]*")
set(undocumented "")
foreach(f IN LISTS xml_files)
  file(READ "${f}" text)
  string(REGEX MATCHALL
         "<enumvalue [^>]*>${blank}<name>[A-Za-z0-9_]+</name>${blank}(<initializer>[^\n]*</initializer>${blank})?<briefdescription>${blank}</briefdescription>${blank}<detaileddescription>${blank}</detaileddescription>"
         hits "${text}")
  foreach(h IN LISTS hits)
    string(REGEX MATCH "<name>([A-Za-z0-9_]+)</name>" name "${h}")
    list(APPEND undocumented "${CMAKE_MATCH_1}")
  endforeach()
endforeach()
list(REMOVE_DUPLICATES undocumented)
if(undocumented)
  list(JOIN undocumented "\n  " names)
  message(FATAL_ERROR "enum values without documentation (a ///< after the value, or a "
                      "/** ... */ in front of its entry in an X-macro list):\n  ${names}")
endif()
message(STATUS "API documentation: no doxygen warning, every enum value documented")
