# The build's record: the source tree's commit and the options that change the kernels, compiled
# into libtessera (core/build_info.c, ts_build_info()) so that every result line that tessera-bench
# and the Python drivers write names the code and the build it measured.
#
# The commit is taken again at every build (a target that always runs and rewrites the header only
# when the value changes), the first of:
#   1. git: when the source tree is the top of a git work tree, `git rev-parse --short=12 HEAD`,
#      with "-dirty" when a tracked file differs from HEAD;
#   2. the commit `git archive` writes into cmake/source-commit.txt (export-subst in
#      .gitattributes): the trees scripts/gpu-ab.sh builds as @DIR variants;
#   3. -DTESSERA_COMMIT=<sha>, for a tree without git history (a copy on a GPU machine);
#   4. the environment variable TESSERA_COMMIT at build time, the same;
#   5. "unknown".
# The options are fixed at configure time: backend, build type, targets, the compilers and their
# versions, CMAKE_C_FLAGS, CMAKE_CUDA_FLAGS and the per-kernel TESSERA_KERNEL_FLAGS_<id>.
#
# This file is also a script, the build-time step: cmake -DTS_SOURCE_DIR=<dir> -DTS_OUTPUT=<header>
# -DTS_GIT=<git> -DTS_COMMIT=<value> -P TesseraBuildInfo.cmake

# Writes content to path unless the file already holds exactly that, so that an unchanged value
# rebuilds nothing; through a temporary file and a rename, so that a compile running beside another
# target's run of this step never reads a half-written header.
function(_ts_write_if_changed path content)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  string(RANDOM LENGTH 12 suffix)
  file(WRITE "${path}.${suffix}.tmp" "${content}")
  file(RENAME "${path}.${suffix}.tmp" "${path}")
endfunction()

# A string as the body of a C or JSON string literal (both escape \ and " the same way).
function(_ts_escape out text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n" text "${text}")
  string(REPLACE "\t" "\\t" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# The commit of the tree at src (the order above).
function(_ts_source_commit out src git given)
  if(git)
    execute_process(COMMAND ${git} -C "${src}" rev-parse --show-toplevel
                    RESULT_VARIABLE rc OUTPUT_VARIABLE top ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    get_filename_component(src_real "${src}" REALPATH)
    if(rc EQUAL 0)
      get_filename_component(top "${top}" REALPATH)
    endif()
    if(rc EQUAL 0 AND top STREQUAL src_real)
      execute_process(COMMAND ${git} -C "${src}" rev-parse --short=12 HEAD
                      RESULT_VARIABLE rc OUTPUT_VARIABLE sha ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(rc EQUAL 0 AND sha)
        execute_process(COMMAND ${git} -C "${src}" status --porcelain --untracked-files=no
                        RESULT_VARIABLE rc OUTPUT_VARIABLE changes ERROR_QUIET)
        if(NOT rc EQUAL 0 OR NOT changes STREQUAL "")
          string(APPEND sha "-dirty")
        endif()
        set(${out} "${sha}" PARENT_SCOPE)
        return()
      endif()
    endif()
  endif()
  if(EXISTS "${src}/cmake/source-commit.txt")
    file(STRINGS "${src}/cmake/source-commit.txt" archived REGEX "^[0-9a-f]+$")
    if(archived)
      string(SUBSTRING "${archived}" 0 12 archived)
      set(${out} "${archived}" PARENT_SCOPE)
      return()
    endif()
  endif()
  if(NOT given STREQUAL "")
    set(${out} "${given}" PARENT_SCOPE)
  elseif(NOT "$ENV{TESSERA_COMMIT}" STREQUAL "")
    set(${out} "$ENV{TESSERA_COMMIT}" PARENT_SCOPE)
  else()
    set(${out} "unknown" PARENT_SCOPE)
  endif()
endfunction()

# Writes the header that defines TS_BUILD_COMMIT.
function(_ts_write_commit_header path src git given)
  _ts_source_commit(commit "${src}" "${git}" "${given}")
  _ts_escape(commit "${commit}")
  _ts_write_if_changed("${path}"
    "/* Generated at build time by cmake/TesseraBuildInfo.cmake: the commit this build compiled. */\n#define TS_BUILD_COMMIT \"${commit}\"\n")
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  if(NOT TS_SOURCE_DIR OR NOT TS_OUTPUT)
    message(FATAL_ERROR "usage: cmake -DTS_SOURCE_DIR=<dir> -DTS_OUTPUT=<header> [-DTS_GIT=<git>] "
                        "[-DTS_COMMIT=<value>] -P TesseraBuildInfo.cmake")
  endif()
  _ts_write_commit_header("${TS_OUTPUT}" "${TS_SOURCE_DIR}" "${TS_GIT}" "${TS_COMMIT}")
  return()
endif()

set(TESSERA_COMMIT "" CACHE STRING
    "The commit to record for a source tree without git history (cmake/TesseraBuildInfo.cmake); empty: detect")
find_package(Git QUIET)
set(_ts_build_info_module ${CMAKE_CURRENT_LIST_FILE})

# A JSON "key": "value" pair, appended to the list named out.
# A CMake list (e.g. of flags) becomes its items separated by spaces.
macro(_ts_json_pair out key value)
  string(REPLACE ";" " " _ts_v "${value}")
  _ts_escape(_ts_v "${_ts_v}")
  list(APPEND ${out} "\"${key}\": \"${_ts_v}\"")
endmacro()

# tessera_build_info(<target> <source>): generates the build's headers and lets <source> (a file of
# <target> that includes tessera_build_commit.h and tessera_build_options.h) see them.
function(tessera_build_info target source)
  set(dir ${PROJECT_BINARY_DIR}/generated/build_info)
  file(MAKE_DIRECTORY ${dir})

  # The options, as one JSON object.
  set(pairs)
  _ts_json_pair(pairs backend "${TESSERA_BACKEND}")
  _ts_json_pair(pairs build_type "${CMAKE_BUILD_TYPE}")
  _ts_json_pair(pairs c_compiler "${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION}")
  _ts_json_pair(pairs c_flags "${CMAKE_C_FLAGS}")
  if(TESSERA_BACKEND STREQUAL "cuda")
    string(REPLACE ";" "," targets "${CMAKE_CUDA_ARCHITECTURES}")
    _ts_json_pair(pairs targets "${targets}")
    _ts_json_pair(pairs device_compiler "${CMAKE_CUDA_COMPILER_ID} ${CMAKE_CUDA_COMPILER_VERSION}")
    _ts_json_pair(pairs device_flags "${CMAKE_CUDA_FLAGS}")
  elseif(TESSERA_BACKEND STREQUAL "hip")
    execute_process(COMMAND ${TESSERA_HIP_CLANG} --version OUTPUT_VARIABLE version ERROR_QUIET)
    string(REGEX MATCH "clang version [0-9.]+" version "${version}")
    string(REPLACE ";" "," targets "${TESSERA_HIP_ARCHITECTURES}")
    _ts_json_pair(pairs targets "${targets}")
    _ts_json_pair(pairs device_compiler "${version}")
    _ts_json_pair(pairs device_flags "")
  else()
    _ts_json_pair(pairs targets "host")
    _ts_json_pair(pairs device_compiler "${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION}")
    _ts_json_pair(pairs device_flags "${CMAKE_C_FLAGS}")
  endif()
  if(TESSERA_SANITIZE)
    list(APPEND pairs "\"sanitize\": true")
  else()
    list(APPEND pairs "\"sanitize\": false")
  endif()
  # Per-kernel flags (cmake/TesseraKernels.cmake), those set, in name order.
  get_cmake_property(names CACHE_VARIABLES)
  get_cmake_property(more VARIABLES)
  list(APPEND names ${more})
  list(FILTER names INCLUDE REGEX "^TESSERA_KERNEL_FLAGS_")
  list(REMOVE_DUPLICATES names)
  list(SORT names)
  set(kernel_pairs)
  foreach(name IN LISTS names)
    if(NOT "${${name}}" STREQUAL "")
      string(REGEX REPLACE "^TESSERA_KERNEL_FLAGS_" "" id "${name}")
      string(REPLACE ";" " " flags "${${name}}")
      _ts_json_pair(kernel_pairs "${id}" "${flags}")
    endif()
  endforeach()
  list(JOIN kernel_pairs ", " kernel_json)
  list(APPEND pairs "\"kernel_flags\": {${kernel_json}}")
  list(JOIN pairs ", " json)
  _ts_escape(json_c "{${json}}")
  _ts_write_if_changed(${dir}/tessera_build_options.h
    "/* Generated at configure time by cmake/TesseraBuildInfo.cmake: the build's options, a JSON object. */\n#define TS_BUILD_OPTIONS \"${json_c}\"\n")

  # The commit: now, so that the header exists, and again at every build.
  _ts_write_commit_header(${dir}/tessera_build_commit.h "${PROJECT_SOURCE_DIR}" "${GIT_EXECUTABLE}"
                          "${TESSERA_COMMIT}")
  add_custom_target(${target}_build_commit
    COMMAND ${CMAKE_COMMAND} -DTS_SOURCE_DIR=${PROJECT_SOURCE_DIR} -DTS_OUTPUT=${dir}/tessera_build_commit.h
            -DTS_GIT=${GIT_EXECUTABLE} -DTS_COMMIT=${TESSERA_COMMIT} -P ${_ts_build_info_module}
    BYPRODUCTS ${dir}/tessera_build_commit.h
    COMMENT "Recording the source tree's commit"
    VERBATIM)
  add_dependencies(${target} ${target}_build_commit)
  set_property(SOURCE ${source} APPEND PROPERTY INCLUDE_DIRECTORIES ${dir})
endfunction()
