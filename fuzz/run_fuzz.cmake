# run_fuzz.cmake: what the fuzz_regression test runs. First every file of
# the seed corpus once (a crash there is a regression of a fixed bug), then
# a bounded fuzzing run with a fixed seed. Any non-zero exit fails the test;
# libFuzzer leaves the crashing input (crash-*, leak-*, timeout-*) in
# WORK_DIR/artifacts for the log to name.
foreach(v FUZZER CORPUS WORK_DIR SECONDS)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_fuzz.cmake: ${v} is not set")
  endif()
endforeach()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/new ${WORK_DIR}/artifacts)

execute_process(COMMAND ${FUZZER} -runs=0 -timeout=20 -rss_limit_mb=4096
                        -artifact_prefix=${WORK_DIR}/artifacts/ ${CORPUS}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ncl_fuzz failed on the seed corpus (exit ${rc})")
endif()

if(SECONDS GREATER 0)
  execute_process(COMMAND ${FUZZER} -seed=1 -max_total_time=${SECONDS} -timeout=20
                          -rss_limit_mb=4096 -max_len=512 -print_final_stats=1
                          -artifact_prefix=${WORK_DIR}/artifacts/
                          ${WORK_DIR}/new ${CORPUS}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ncl_fuzz found a failure in ${SECONDS} s of fuzzing (exit ${rc}); "
                        "the input is in ${WORK_DIR}/artifacts")
  endif()
endif()
