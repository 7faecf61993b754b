# cmake -DQJIT_SOURCE_DIR=.. -DQJIT_BINARY_DIR=.. -DWORK_DIR=.. -DGENERATOR=..
#       -P RunConsumer.cmake
# Installs an already built qjit into WORK_DIR/prefix (no rebuild), checks
# that exactly the public headers were installed and that libqjit.so exports
# only qjit's API, then configures, builds and runs tests/consumer (C and C++,
# shared and static), tests/consumer/c_only (a C-only project) and a ctypes
# caller against that prefix alone.
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
  qjit/KernelSpec.h qjit/QuantType.h qjit/Runtime.h qjit/ThreadPool.h
  qjit/TypeParser.h qjit/Version.h qjit/qjit.h)
file(GLOB_RECURSE installed RELATIVE ${prefix}/include ${prefix}/include/*)
list(SORT installed)
if(NOT installed STREQUAL public_headers)
  message(FATAL_ERROR "installed headers: ${installed}\n"
    "expected exactly: ${public_headers}")
endif()

# Exported: the C API (qjit_*) and the C++ API (namespace qjit, mangled
# _ZN4qjit / _ZNK4qjit...); never asmjit or LLVM. The standard library's
# unique typeinfo objects (_ZTISt..., _ZTSSt...) and function-local statics
# are exported as GCC must, so that RTTI agrees across libraries.
set(library ${prefix}/lib/libqjit.so)
if(NOT EXISTS ${library})
  file(GLOB library ${prefix}/lib*/libqjit.so)
endif()
execute_process(COMMAND nm -D --defined-only --format=posix ${library}
  OUTPUT_VARIABLE symbols RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "nm failed on ${library}")
endif()
string(REGEX MATCHALL "[^\n]+" symbols "${symbols}")
set(foreign "")
foreach(line IN LISTS symbols)
  string(REGEX REPLACE " .*" "" name "${line}")
  if(NOT name MATCHES "^(qjit_|_ZN4qjit|_ZNK4qjit|_ZTISt|_ZTSSt|_ZZNSt)")
    list(APPEND foreign ${name})
  endif()
endforeach()
if(foreign)
  message(FATAL_ERROR "libqjit.so exports more than qjit's API: ${foreign}")
endif()

foreach(project consumer consumer/c_only)
  run(${CMAKE_COMMAND} -S ${QJIT_SOURCE_DIR}/tests/${project}
    -B ${WORK_DIR}/build/${project} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_PREFIX_PATH=${prefix})
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/build/${project})
  run(${CMAKE_CTEST_COMMAND} --test-dir ${WORK_DIR}/build/${project}
    --output-on-failure)
endforeach()
run(${QJIT_SOURCE_DIR}/tests/consumer/ctypes_consumer.py ${library})
