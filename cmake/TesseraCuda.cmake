# The CUDA backend: nvcc for sm_90a (compute_90a,sm_90a), the static cudart, no -lcuda (the driver
# entry points are fetched at run time through cudaGetDriverEntryPointByVersion).
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)

set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
set(CMAKE_CUDA_RUNTIME_LIBRARY Static)

option(TESSERA_PTXAS_VERBOSE "Print ptxas resource usage (registers, spills) for every kernel" ON)

# Warnings are errors in device code as in C; -Xptxas -v prints registers and spills, which the
# gates in scripts/ read from the build log.
add_compile_options($<$<COMPILE_LANGUAGE:CUDA>:--Werror=all-warnings>
                    "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-Xcompiler -Wall,-Wextra>")
if(TESSERA_PTXAS_VERBOSE)
  add_compile_options("$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-Xptxas -v>")
endif()

function(tessera_cuda_link target)
  target_link_libraries(${target} PUBLIC CUDA::cudart_static stdc++)
  target_include_directories(${target} PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
endfunction()
