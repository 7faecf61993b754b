# cmake -DQJIT_SOURCE_DIR=.. -DQJIT_BINARY_DIR=.. -DWORK_DIR=.. -DGENERATOR=..
#       -P RunConsumer.cmake
# Installs an already built qjit into WORK_DIR/prefix (no rebuild), checks
# that only public headers were installed, then configures, builds and runs
# tests/consumer against that prefix alone.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed (${result}): ${ARGN}")
  endif()
endfunction()

run(${CMAKE_COMMAND} --install ${QJIT_BINARY_DIR} --prefix ${prefix})

# Every installed header is a public one (or the generated Version.h).
file(GLOB_RECURSE installed RELATIVE ${prefix}/include ${prefix}/include/*)
foreach(header IN LISTS installed)
  set(public FALSE)
  foreach(lib frontend jit runtime)
    if(EXISTS ${QJIT_SOURCE_DIR}/${lib}/include/${header})
      set(public TRUE)
    endif()
  endforeach()
  if(NOT public AND NOT header STREQUAL "qjit/Version.h")
    message(FATAL_ERROR "installed a non-public header: ${header}")
  endif()
endforeach()
if(NOT EXISTS ${prefix}/include/qjit/Version.h)
  message(FATAL_ERROR "qjit/Version.h was not installed")
endif()

run(${CMAKE_COMMAND} -S ${QJIT_SOURCE_DIR}/tests/consumer
  -B ${WORK_DIR}/build -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${CMAKE_CTEST_COMMAND} --test-dir ${WORK_DIR}/build --output-on-failure)
