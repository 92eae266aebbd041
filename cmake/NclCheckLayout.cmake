# NclCheckLayout.cmake: the direction of dependencies inside src/, checked.
#
#   cmake -DSOURCE_DIR=<repository root> -P NclCheckLayout.cmake
#
# src/ is in folders by role, and each folder may include only the folders
# below it (docs/DESIGN.md, "Where things live"); the kernels' headers are
# reached only from the layers that run kernels. Every library include names
# its folder ("exec/plan.h"), which is what makes the rule checkable from the
# text alone. Also checked: no source sits in src/ itself, and no two files
# of src/, kernels/ and tests/ share a name. Fails with one line per breach.

cmake_minimum_required(VERSION 3.25)

set(NCL_LAYERS core memory array interop runtime hooks exec defaults api)
set(NCL_MAY_INCLUDE_core "")
set(NCL_MAY_INCLUDE_memory core)
set(NCL_MAY_INCLUDE_array core memory)
set(NCL_MAY_INCLUDE_interop core memory array)
set(NCL_MAY_INCLUDE_runtime core)
set(NCL_MAY_INCLUDE_hooks core runtime kernels)
set(NCL_MAY_INCLUDE_exec core memory array runtime hooks kernels)
set(NCL_MAY_INCLUDE_defaults core memory array runtime hooks exec kernels)
set(NCL_MAY_INCLUDE_api core memory array runtime hooks exec defaults kernels)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "NclCheckLayout: SOURCE_DIR is not set")
endif()

set(breaches "")
# The kernels' folders and their shared header: what "kernels" above means.
file(GLOB kernel_entries RELATIVE ${SOURCE_DIR}/kernels ${SOURCE_DIR}/kernels/*)

file(GLOB stray LIST_DIRECTORIES false RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/src/*)
foreach(f IN LISTS stray)
  list(APPEND breaches "${f}: a source outside the role folders")
endforeach()

file(GLOB dirs LIST_DIRECTORIES true RELATIVE ${SOURCE_DIR}/src ${SOURCE_DIR}/src/*)
foreach(dir IN LISTS dirs)
  if(NOT IS_DIRECTORY ${SOURCE_DIR}/src/${dir})
    continue()
  endif()
  if(NOT dir IN_LIST NCL_LAYERS)
    list(APPEND breaches "src/${dir}: not a folder the layering knows (cmake/NclCheckLayout.cmake)")
    continue()
  endif()
  set(allowed ${dir} ${NCL_MAY_INCLUDE_${dir}})
  list(JOIN allowed ", " allowed_text)
  file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/src/${dir}/*.c ${SOURCE_DIR}/src/${dir}/*.h)
  foreach(f IN LISTS files)
    file(STRINGS ${SOURCE_DIR}/${f} incs REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line IN LISTS incs)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*" "\\1" inc "${line}")
      if(inc MATCHES "^ncl(\\.h|/)")
        continue()   # the public contract: everyone may include it
      endif()
      string(REGEX REPLACE "/.*" "" top "${inc}")
      if(top STREQUAL inc AND NOT inc IN_LIST kernel_entries)
        list(APPEND breaches "${f}: #include \"${inc}\" does not name its folder")
        continue()
      endif()
      if(top IN_LIST kernel_entries)
        set(top kernels)
      endif()
      if(NOT top IN_LIST allowed)
        list(APPEND breaches "${f}: #include \"${inc}\": ${dir}/ may include only ${allowed_text}")
      endif()
    endforeach()
  endforeach()
endforeach()

# Unique file names: logs, debuggers and grep stay unambiguous.
file(GLOB_RECURSE all RELATIVE ${SOURCE_DIR}
     ${SOURCE_DIR}/src/*.[ch] ${SOURCE_DIR}/kernels/*.[ch] ${SOURCE_DIR}/tests/*.[ch])
set(seen "")
foreach(f IN LISTS all)
  get_filename_component(name ${f} NAME)
  string(MAKE_C_IDENTIFIER "${name}" key)
  if(DEFINED first_${key})
    list(APPEND breaches "${f}: same name as ${first_${key}}")
  else()
    set(first_${key} ${f})
  endif()
endforeach()

if(breaches)
  list(JOIN breaches "\n  " text)
  message(FATAL_ERROR "NclCheckLayout: the layering is broken:\n  ${text}")
endif()
message(STATUS "NclCheckLayout: src/ follows its layering")
