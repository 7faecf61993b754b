# Sanitizer and fuzzing builds (scripts/sanitize.sh, scripts/fuzz.sh,
# docs/hardening.md). Both need clang (clang-22, matching LLVM 22).
set(QJIT_SANITIZE "" CACHE STRING
  "Sanitizers for every qjit target: address,undefined or thread (clang)")
option(QJIT_FUZZ "Build the libFuzzer targets in tests/fuzz (clang)" OFF)

if(QJIT_SANITIZE)
  # Any report fails the test that triggered it.
  add_compile_options(-fsanitize=${QJIT_SANITIZE} -fno-sanitize-recover=all
    -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${QJIT_SANITIZE})
  if(QJIT_SANITIZE MATCHES "address")
    # libstdc++'s bounds checks (operator[], front() of an empty vector...):
    # a read past a vector's size but inside its capacity is no ASan report.
    # _GLIBCXX_SANITIZE_VECTOR would be, but it needs every vector's code
    # built with it, and Debian's libgtest.a is not.
    add_compile_definitions(_GLIBCXX_ASSERTIONS)
  endif()
  if(QJIT_SANITIZE MATCHES "undefined")
    # -fsanitize=function checks a signature stored in front of the callee
    # of every indirect call; JIT'd kernels have none, and the bytes in
    # front of a kernel at the start of its code block may be unmapped.
    add_compile_options(-fno-sanitize=function)
  endif()
endif()

if(QJIT_FUZZ AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "QJIT_FUZZ needs clang (libFuzzer): "
    "-DCMAKE_CXX_COMPILER=clang++-22")
endif()
