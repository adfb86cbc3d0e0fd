# tessera_add_kernels(): compiles kernel sources (C files written in the tile language) for a
# backend and adds them to a target. Kernel sources compile for every backend: as C11 with the C
# compiler on host, as CUDA for sm_90a through a generated one-line .cu wrapper, as HIP for
# gfx942/gfx90a through TesseraHip.cmake's clang rule. libtessera's own kernels and the test
# kernels are built by this function, and it is installed with the library: find_package(tessera)
# loads it, so a user's kernel builds exactly as the library's do.
#
#   tessera_add_kernels(<target> [BACKEND host|cuda|hip] [OPTIONS <compile option>...]
#                       SOURCES <file.c>...)
#
# BACKEND defaults to the backend of the Tessera in use (a libtessera runs one backend's kernels,
# so any other is refused). The target is linked (PRIVATE) to tessera::kernels: the headers of
# backends/, tiles/, ops/ and templates/, the backend's define TESSERA_BACKEND_<X>, and libtessera.
# OPTIONS go to every source's compile. A source's own extra options may be given as the list
# TESSERA_KERNEL_FLAGS_<id>, id being its path from the project's source folder as a C identifier
# (e.g. kernels_norm_norm_c): A/B builds (scripts/gpu-ab.sh) change one kernel's options so that
# only its object rebuilds. On HIP a kernel source is a custom command, which sees the target's
# INCLUDE_DIRECTORIES and tessera::kernels' usage requirements, not those of other linked targets.
#
# Before this file is included, TESSERA_BACKEND names the backend and the target tessera::kernels
# exists or will exist by the time the build is generated. For CUDA the language must be enabled;
# this file enables it when included at file scope (as find_package(tessera) in a CMakeLists is).
# For HIP, TesseraHip.cmake (beside this file) finds clang-19 and builds the bitcode shim in the
# project's build folder on the first call.

if(NOT TESSERA_BACKEND MATCHES "^(host|cuda|hip)$")
  message(FATAL_ERROR "TesseraKernels.cmake: TESSERA_BACKEND must be host, cuda or hip, not '${TESSERA_BACKEND}'")
endif()
set_property(GLOBAL PROPERTY TESSERA_KERNELS_BACKEND ${TESSERA_BACKEND})

if(TESSERA_BACKEND STREQUAL "cuda")
  get_property(_ts_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "CUDA" IN_LIST _ts_languages)
    if(CMAKE_CURRENT_FUNCTION)
      message(FATAL_ERROR "Tessera's CUDA kernels need the CUDA language, which CMake enables only at "
              "file scope, not inside the function ${CMAKE_CURRENT_FUNCTION}(): add CUDA to project() "
              "(project(<name> LANGUAGES C CUDA)) or call enable_language(CUDA) before find_package(tessera)")
    endif()
    # sm_90a is the only CUDA target the backend builds (backends/cuda/backend.h refuses others);
    # a project that sets its own architectures keeps them for its other CUDA targets.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90a)
    endif()
    if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND TESSERA_CUDA_COMPILER
       AND EXISTS "${TESSERA_CUDA_COMPILER}")
      set(CMAKE_CUDA_COMPILER "${TESSERA_CUDA_COMPILER}")
    endif()
    enable_language(CUDA)
  endif()
endif()

function(tessera_add_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "BACKEND" "SOURCES;OPTIONS")
  get_property(installed GLOBAL PROPERTY TESSERA_KERNELS_BACKEND)
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tessera_add_kernels(${target}): unexpected arguments ${arg_UNPARSED_ARGUMENTS} "
            "(usage: tessera_add_kernels(<target> [BACKEND host|cuda|hip] [OPTIONS ...] SOURCES <file.c>...))")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tessera_add_kernels: no target '${target}' (create it with add_executable or add_library first)")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "tessera_add_kernels(${target}): no SOURCES")
  endif()
  set(backend ${installed})
  if(arg_BACKEND)
    if(NOT arg_BACKEND MATCHES "^(host|cuda|hip)$")
      message(FATAL_ERROR "tessera_add_kernels(${target}): BACKEND must be host, cuda or hip, not '${arg_BACKEND}'")
    endif()
    if(NOT arg_BACKEND STREQUAL installed)
      message(FATAL_ERROR "tessera_add_kernels(${target}): BACKEND ${arg_BACKEND}, but this Tessera is built "
              "for ${installed}, and its libtessera launches ${installed} kernels only. Build against a "
              "Tessera installed for ${arg_BACKEND} (cmake -DTESSERA_BACKEND=${arg_BACKEND}, then cmake "
              "--install) and point CMAKE_PREFIX_PATH at it.")
    endif()
    set(backend ${arg_BACKEND})
  endif()

  # The headers and the backend's define. libtessera itself takes them from tessera::kernels'
  # properties (linking it would make the library depend on itself); any other target links it.
  if(TARGET tessera::tessera)
    get_target_property(library tessera::tessera ALIASED_TARGET)
  endif()
  if(library AND target STREQUAL library)
    target_include_directories(${target} PRIVATE
      $<TARGET_PROPERTY:tessera::kernels,INTERFACE_INCLUDE_DIRECTORIES>)
    target_compile_definitions(${target} PRIVATE
      $<TARGET_PROPERTY:tessera::kernels,INTERFACE_COMPILE_DEFINITIONS>)
  else()
    target_link_libraries(${target} PRIVATE tessera::kernels)
  endif()
  if(backend STREQUAL "host")
    get_target_property(standard ${target} C_STANDARD)
    if(NOT standard)
      set_target_properties(${target} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
    endif()
  elseif(backend STREQUAL "cuda")
    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    if(NOT "CUDA" IN_LIST languages)
      message(FATAL_ERROR "tessera_add_kernels(${target}): the CUDA language is not enabled: add CUDA to "
              "project() or call enable_language(CUDA) at file scope before find_package(tessera)")
    endif()
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES 90a CUDA_STANDARD 17
                          CUDA_STANDARD_REQUIRED ON)
  else()
    # The clang toolchain is looked for on first use, so that a program that only calls
    # libtessera needs none of it.
    include(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/TesseraHip.cmake)
  endif()

  foreach(src IN LISTS arg_SOURCES)
    get_filename_component(abs ${src} ABSOLUTE)
    if(NOT EXISTS ${abs})
      message(FATAL_ERROR "tessera_add_kernels(${target}): no kernel source ${abs}")
    endif()
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${abs})
    string(MAKE_C_IDENTIFIER ${rel} id)
    set(options ${arg_OPTIONS} ${TESSERA_KERNEL_FLAGS_${id}})
    if(backend STREQUAL "host")
      set(built ${abs})
      target_sources(${target} PRIVATE ${abs})
      set_source_files_properties(${abs} PROPERTIES COMPILE_OPTIONS "${options}")
    elseif(backend STREQUAL "cuda")
      # nvcc compiles .cu files only: a wrapper that includes the source makes it one.
      set(built ${PROJECT_BINARY_DIR}/generated/${id}.cu)
      file(CONFIGURE OUTPUT ${built} CONTENT "#include \"${abs}\"\n")
      target_sources(${target} PRIVATE ${built})
      set_source_files_properties(${built} PROPERTIES COMPILE_OPTIONS "${options}")
    else()
      tessera_hip_compile(${target} ${abs} ${id} "${options}")
      set(built ${PROJECT_BINARY_DIR}/hip/${id}.o)
    endif()
    set_property(GLOBAL APPEND PROPERTY TESSERA_KERNELS_BUILT "${id}\t${target}\t${abs}\t${built}")
  endforeach()
endfunction()

# tessera_write_kernel_list(<file>): writes every kernel source built so far through
# tessera_add_kernels, one line each: id, target, source, and what the compiler is given (the
# source on host, its .cu wrapper on CUDA, its object on HIP). Scripts that check the build's
# kernels (scripts/gates.sh) read this list instead of keeping their own.
function(tessera_write_kernel_list file)
  get_property(built GLOBAL PROPERTY TESSERA_KERNELS_BUILT)
  get_property(backend GLOBAL PROPERTY TESSERA_KERNELS_BACKEND)
  set(text "# Kernel sources of this ${backend} build (tessera_add_kernels), tab-separated:\n")
  string(APPEND text "# id\ttarget\tsource\tcompiled as (source on host, .cu wrapper on cuda, object on hip)\n")
  foreach(line IN LISTS built)
    string(APPEND text "${line}\n")
  endforeach()
  file(CONFIGURE OUTPUT ${file} CONTENT "${text}")
endfunction()
