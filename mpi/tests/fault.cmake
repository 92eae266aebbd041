# Runs MPIEXEC -n 2 PROGRAM, expecting a non-zero status within 10 s (the
# job is killed after 60 s: a hang fails too).
string(TIMESTAMP t0 "%s")
execute_process(COMMAND ${MPIEXEC} -n 2 ${PROGRAM} RESULT_VARIABLE rc TIMEOUT 60
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(TIMESTAMP t1 "%s")
math(EXPR dt "${t1} - ${t0}")
message(STATUS "exit status ${rc} after ${dt} s")
if(rc EQUAL 0 OR rc MATCHES "timeout" OR dt GREATER 10)
  message(FATAL_ERROR "a dead rank must end the job non-zero within 10 s: status ${rc} after ${dt} s\n${out}${err}")
endif()
