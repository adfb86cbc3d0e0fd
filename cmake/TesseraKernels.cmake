# Kernel sources are C files that compile for every backend: as C11 on host, as CUDA through a
# generated one-line .cu wrapper, as HIP through TesseraHip's tessera_hip_compile(). This file
# holds the one function the rest of the build uses for them.

# The compile definitions and include paths every translation unit that sees the macro layer needs.
function(tessera_backend_setup target)
  target_compile_definitions(${target} PRIVATE TESSERA_BACKEND_${TESSERA_BACKEND_UPPER})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}
                             ${PROJECT_SOURCE_DIR}/core/include)
endfunction()

# tessera_add_kernel_sources(<target> <file.c>...): adds kernel sources to a target for this
# build's backend. A source's extra compile options may be given as TESSERA_KERNEL_FLAGS_<id>
# (id: its path from the project root as a C identifier, e.g. kernels_norm_norm_c), a list; for
# A/B builds that change one kernel's options (scripts/gpu-ab.sh), so that only its object rebuilds.
function(tessera_add_kernel_sources target)
  foreach(src IN LISTS ARGN)
    get_filename_component(abs ${src} ABSOLUTE)
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${abs})
    string(MAKE_C_IDENTIFIER ${rel} id)
    if(TESSERA_BACKEND STREQUAL "host")
      target_sources(${target} PRIVATE ${abs})
      set_source_files_properties(${abs} PROPERTIES COMPILE_OPTIONS "${TESSERA_KERNEL_FLAGS_${id}}")
    elseif(TESSERA_BACKEND STREQUAL "cuda")
      set(wrapper ${PROJECT_BINARY_DIR}/generated/${id}.cu)
      file(CONFIGURE OUTPUT ${wrapper} CONTENT "#include \"${abs}\"\n")
      target_sources(${target} PRIVATE ${wrapper})
      set_source_files_properties(${wrapper} PROPERTIES COMPILE_OPTIONS "${TESSERA_KERNEL_FLAGS_${id}}")
    else()
      tessera_hip_compile(${target} ${abs} ${id})
    endif()
  endforeach()
endfunction()
