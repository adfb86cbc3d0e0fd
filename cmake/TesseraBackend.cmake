# Chooses the backend of this build tree: TESSERA_BACKEND = host | cuda | hip, or auto (the
# default), which takes cuda when an NVIDIA GPU answers nvidia-smi and nvcc is found, hip when an
# AMD GPU answers rocminfo, and host otherwise. CUDA's architecture is fixed here because CMake
# reads CMAKE_CUDA_ARCHITECTURES when the language is enabled.
set(TESSERA_BACKEND "auto" CACHE STRING "Backend: host, cuda, hip or auto")
set_property(CACHE TESSERA_BACKEND PROPERTY STRINGS auto host cuda hip)

if(TESSERA_BACKEND STREQUAL "auto")
  set(_ts_detected host)
  find_program(_ts_nvidia_smi nvidia-smi)
  find_program(_ts_nvcc nvcc HINTS /usr/local/cuda/bin)
  find_program(_ts_rocminfo rocminfo)
  if(_ts_nvidia_smi AND _ts_nvcc)
    execute_process(COMMAND ${_ts_nvidia_smi} -L OUTPUT_VARIABLE _ts_gpus RESULT_VARIABLE _ts_rc
                    ERROR_QUIET)
    if(_ts_rc EQUAL 0 AND _ts_gpus MATCHES "GPU 0")
      set(_ts_detected cuda)
    endif()
  endif()
  if(_ts_detected STREQUAL "host" AND _ts_rocminfo)
    execute_process(COMMAND ${_ts_rocminfo} OUTPUT_VARIABLE _ts_agents RESULT_VARIABLE _ts_rc
                    ERROR_QUIET)
    if(_ts_rc EQUAL 0 AND _ts_agents MATCHES "gfx9")
      set(_ts_detected hip)
    endif()
  endif()
  set(TESSERA_BACKEND ${_ts_detected} CACHE STRING "Backend: host, cuda, hip or auto" FORCE)
  message(STATUS "Tessera: backend detected: ${TESSERA_BACKEND}")
endif()

if(NOT TESSERA_BACKEND MATCHES "^(host|cuda|hip)$")
  message(FATAL_ERROR "TESSERA_BACKEND must be host, cuda, hip or auto, not '${TESSERA_BACKEND}'")
endif()

if(TESSERA_BACKEND STREQUAL "cuda")
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90a)
  endif()
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
endif()
string(TOUPPER ${TESSERA_BACKEND} TESSERA_BACKEND_UPPER)
