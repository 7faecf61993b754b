# `cmake --install`: public headers, libqjit.so and the static libraries, the
# qjit tool, a CMake package (find_package(qjit): qjit::qjit is the shared
# library, qjit::qjit_static the static runtime) and qjit.pc (the shared
# library).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(QJIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/qjit)

# The shared library is the package's face; the static runtime the other
# choice, with the rest as its link dependencies.
set_target_properties(qjit_shared PROPERTIES EXPORT_NAME qjit)
set_target_properties(qjit_runtime PROPERTIES EXPORT_NAME qjit_static)
set_target_properties(qjit_frontend PROPERTIES EXPORT_NAME frontend)
set_target_properties(qjit_jit PROPERTIES EXPORT_NAME jit)
set_target_properties(qjit_llvm PROPERTIES EXPORT_NAME llvm)
set_target_properties(qjit_plan PROPERTIES EXPORT_NAME plan)
add_library(qjit::qjit ALIAS qjit_shared)
add_library(qjit::qjit_static ALIAS qjit_runtime)

install(TARGETS qjit_shared qjit_runtime qjit_jit qjit_plan qjit_frontend qjit_llvm
  EXPORT qjitTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS qjit RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Public headers only: <lib>/include/qjit/*.h and the generated Version.h.
# Internal headers live in <lib>/src and <lib>/internal and are never
# installed (tests/consumer checks the installed list).
foreach(lib frontend jit runtime)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${lib}/include/qjit
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.h")
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/runtime/include/qjit/Version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/qjit)

install(EXPORT qjitTargets NAMESPACE qjit:: DESTINATION ${QJIT_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/qjitConfig.cmake.in
  ${PROJECT_BINARY_DIR}/qjitConfig.cmake INSTALL_DESTINATION ${QJIT_CMAKE_DIR})
# 0.x: minor versions may break the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/qjitConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/qjitConfig.cmake
  ${PROJECT_BINARY_DIR}/qjitConfigVersion.cmake DESTINATION ${QJIT_CMAKE_DIR})

file(RELATIVE_PATH QJIT_PC_INCLUDEDIR_FROM_LIBDIR
  /prefix/${CMAKE_INSTALL_LIBDIR} /prefix/${CMAKE_INSTALL_INCLUDEDIR})
configure_file(${CMAKE_CURRENT_LIST_DIR}/qjit.pc.in
  ${PROJECT_BINARY_DIR}/qjit.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/qjit.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
