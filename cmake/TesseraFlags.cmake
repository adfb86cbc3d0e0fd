# Warnings and sanitizers for every C target of the project.
add_compile_options($<$<COMPILE_LANGUAGE:C>:-Wall> $<$<COMPILE_LANGUAGE:C>:-Wextra>
                    $<$<COMPILE_LANGUAGE:C>:-Werror>)
add_compile_definitions($<$<COMPILE_LANGUAGE:C>:_POSIX_C_SOURCE=200809L>)
# The HIP kernel compiles are custom commands, out of reach of the options above.
set(TESSERA_KERNELS_WERROR ON)

if(TESSERA_SANITIZE)
  if(NOT TESSERA_BACKEND STREQUAL "host")
    message(FATAL_ERROR "TESSERA_SANITIZE is for the host backend")
  endif()
  set(_ts_san -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_compile_options(${_ts_san})
  add_link_options(${_ts_san})
endif()

find_package(Threads REQUIRED)
