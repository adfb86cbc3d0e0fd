# cmake --install: headers, libtessera, a CMake package (find_package(tessera)) and a pkg-config
# file. A plain C program links the static library with the backend's runtime, which both the
# package and the .pc file name.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_ts_install_targets tessera)
if(BUILD_SHARED_LIBS)
  list(APPEND _ts_install_targets tessera_shared)
endif()
install(TARGETS ${_ts_install_targets} EXPORT tesseraTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/tessera DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT tesseraTargets NAMESPACE tessera:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)

set(TESSERA_INSTALLED_BACKEND ${TESSERA_BACKEND})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tesseraConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tesseraConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tesseraConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tesseraConfig.cmake ${PROJECT_BINARY_DIR}/tesseraConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)

# What a static link needs beyond libtessera itself, per backend.
if(TESSERA_BACKEND STREQUAL "cuda")
  set(TESSERA_PC_LIBS_PRIVATE "-L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -lstdc++ -ldl -lrt -lpthread")
elseif(TESSERA_BACKEND STREQUAL "hip")
  set(TESSERA_PC_LIBS_PRIVATE "-lamdhip64 -lstdc++ -lpthread")
else()
  set(TESSERA_PC_LIBS_PRIVATE "-lpthread -lm")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/tessera.pc.in ${PROJECT_BINARY_DIR}/tessera.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tessera.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
