# Saves with 4 processes, loads with 2 and with 3 (test_mpi_saveload.c).
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
foreach(step "4;save" "2;load" "3;load")
  list(GET step 0 np)
  list(GET step 1 what)
  execute_process(COMMAND ${MPIEXEC} -n ${np} ${PROGRAM} ${what} ${DIR} RESULT_VARIABLE rc
                  TIMEOUT 120)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} on ${np} processes: status ${rc}")
  endif()
endforeach()
