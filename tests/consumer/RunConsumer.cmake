# cmake -DQJIT_SOURCE_DIR=.. -DQJIT_BINARY_DIR=.. -DWORK_DIR=.. -DGENERATOR=..
#       -P RunConsumer.cmake
# Installs an already built qjit into WORK_DIR/prefix (no rebuild), checks
# that exactly the public headers were installed, then configures, builds and runs
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

# Exactly the headers users include: the C API, the C++ runtime API and
# what it is written in. Everything else is internal (<lib>/internal).
set(public_headers qjit/Error.h qjit/Export.h qjit/Isa.h qjit/KernelCall.h
  qjit/KernelSpec.h qjit/QuantType.h qjit/Runtime.h qjit/TypeParser.h
  qjit/Version.h qjit/qjit.h)
file(GLOB_RECURSE installed RELATIVE ${prefix}/include ${prefix}/include/*)
list(SORT installed)
if(NOT installed STREQUAL public_headers)
  message(FATAL_ERROR "installed headers: ${installed}\n"
    "expected exactly: ${public_headers}")
endif()

run(${CMAKE_COMMAND} -S ${QJIT_SOURCE_DIR}/tests/consumer
  -B ${WORK_DIR}/build -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${CMAKE_CTEST_COMMAND} --test-dir ${WORK_DIR}/build --output-on-failure)
