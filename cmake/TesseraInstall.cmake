# cmake --install: libtessera, the public header (<prefix>/include/tessera/tessera.h), the tile
# language's headers (backends/, tiles/, ops/, templates/ under <prefix>/include/tessera, so that
# a kernel's #include "backends/backend.h" resolves with -I<prefix>/include/tessera), a CMake
# package (find_package(tessera): tessera::tessera, tessera::kernels and tessera_add_kernels()),
# and two pkg-config files: tessera.pc for programs that call the library, tessera-kernels.pc for
# kernel sources compiled outside CMake. Everything is relocatable: the prefix may move.
include(CMakePackageConfigHelpers)

set(_ts_install_targets tessera tessera_kernels)
if(BUILD_SHARED_LIBS)
  list(APPEND _ts_install_targets tessera_shared)
endif()
install(TARGETS ${_ts_install_targets} EXPORT tesseraTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/tessera DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# Whole folders by pattern: every header of the tile language, whatever a folder gains later.
# Only headers: the backends' .c files are compiled into libtessera.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/backends ${PROJECT_SOURCE_DIR}/tiles ${PROJECT_SOURCE_DIR}/ops
                  ${PROJECT_SOURCE_DIR}/templates
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tessera
        FILES_MATCHING PATTERN "*.h")
install(EXPORT tesseraTargets NAMESPACE tessera:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)

set(TESSERA_INSTALLED_BACKEND ${TESSERA_BACKEND})
set(TESSERA_INSTALLED_CUDA_COMPILER "")
if(TESSERA_BACKEND STREQUAL "cuda")
  set(TESSERA_INSTALLED_CUDA_COMPILER ${CMAKE_CUDA_COMPILER})
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tesseraConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tesseraConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tesseraConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tesseraConfig.cmake ${PROJECT_BINARY_DIR}/tesseraConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/TesseraKernels.cmake ${PROJECT_SOURCE_DIR}/cmake/TesseraHip.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)

# pkg-config: the prefix is found from the .pc file's own folder (<prefix>/<libdir>/pkgconfig), so
# the installed tree may move. An absolute libdir or includedir is kept as given.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(TESSERA_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(TESSERA_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(TESSERA_PC_PREFIX "\${pcfiledir}/..")
  string(REPLACE "/" ";" _ts_libdir_parts "${CMAKE_INSTALL_LIBDIR}")
  foreach(_ts_part IN LISTS _ts_libdir_parts)
    if(NOT _ts_part STREQUAL "" AND NOT _ts_part STREQUAL ".")
      string(APPEND TESSERA_PC_PREFIX "/..")
    endif()
  endforeach()
  set(TESSERA_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(TESSERA_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(TESSERA_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()

# What a static link needs beyond libtessera itself, per backend.
if(TESSERA_BACKEND STREQUAL "cuda")
  set(TESSERA_PC_LIBS_PRIVATE "-L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -lstdc++ -ldl -lrt -lpthread -lm")
elseif(TESSERA_BACKEND STREQUAL "hip")
  set(TESSERA_PC_LIBS_PRIVATE "-lamdhip64 -lstdc++ -lpthread -lm")
else()
  set(TESSERA_PC_LIBS_PRIVATE "-lpthread -lm")
endif()
string(TOUPPER ${TESSERA_BACKEND} _ts_upper)
set(TESSERA_PC_KERNEL_CFLAGS "-I\${includedir}/tessera -DTESSERA_BACKEND_${_ts_upper}")
foreach(_ts_pc tessera tessera-kernels)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${_ts_pc}.pc.in ${PROJECT_BINARY_DIR}/${_ts_pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${_ts_pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
