# The HIP backend's build: kernel sources compiled by clang-19 as HIP for gfx942 (MI300X) and
# gfx90a (MI200) into one object each, and the HIP runtime linked into C targets. Installed with
# Tessera (TesseraKernels.cmake includes it for a HIP Tessera), so it works from the source tree
# and from an install alike: what it generates goes into the including project's build folder.
#
# CMake's own HIP language is not used: 3.25 insists on a ROCm install layout that Debian does not
# have. Instead each kernel source is one add_custom_command running clang directly. clang-19 is the
# only clang here that knows gfx942, and ROCm 5.2's device bitcode lacks the gfx942 ISA-version
# file, so configuration builds a copy of the bitcode folder (symlinks) with that one file added.
#
# This file is also a script: `cmake -DTS_HIP_LOG=<file> -DTS_HIP_ARCHS=<a,b> -P TesseraHip.cmake
# -- <clang command>` runs the compile, keeps clang's kernel-resource-usage remarks out of the
# build output and writes them, one line per kernel and target, to the log.

if(CMAKE_SCRIPT_MODE_FILE)
  # ---- script mode: run one compile, split diagnostics from resource remarks --------------------
  set(_cmd)
  set(_after FALSE)
  math(EXPR _last "${CMAKE_ARGC} - 1")
  foreach(_i RANGE ${_last})
    if(_after)
      list(APPEND _cmd "${CMAKE_ARGV${_i}}")
    elseif(CMAKE_ARGV${_i} STREQUAL "--")
      set(_after TRUE)
    endif()
  endforeach()
  if(NOT _cmd OR NOT TS_HIP_LOG)
    message(FATAL_ERROR "usage: cmake -DTS_HIP_LOG=<log> -DTS_HIP_ARCHS=<a,b> -P TesseraHip.cmake -- <command>")
  endif()
  execute_process(COMMAND ${_cmd} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)

  # List splitting in CMake treats ';' and unbalanced brackets specially: hide them while the
  # output is cut into lines.
  string(REPLACE ";" "<ts-semi>" _err "${_err}")
  string(REPLACE "[" "<ts-lb>" _err "${_err}")
  string(REPLACE "]" "<ts-rb>" _err "${_err}")
  string(REPLACE "\n" ";" _lines "${_err}")

  set(_diag "")             # everything but the remarks, for the build output
  set(_kernels)             # one entry per kernel and target, in clang's order
  set(_current "")
  set(_in_remark FALSE)
  set(_tag "<ts-lb>-Rpass-analysis=kernel-resource-usage<ts-rb>")
  foreach(_line IN LISTS _lines)
    # A remark is followed by its source excerpt ("   11 | ..." and "      | ^"): drop both.
    if(_in_remark AND _line MATCHES "^ *[0-9]* [|]")
      continue()
    endif()
    set(_in_remark FALSE)
    if(NOT (_line MATCHES ": remark: " AND _line MATCHES "${_tag}$"))
      string(APPEND _diag "${_line}\n")
      continue()
    endif()
    set(_in_remark TRUE)
    string(REGEX REPLACE " *${_tag}$" "" _body "${_line}")
    if(_body MATCHES "^(.*):([0-9]+):[0-9]+: remark: Function Name: (.*)$")
      if(NOT _current STREQUAL "")
        list(APPEND _kernels "${_current} source=${_where}")
      endif()
      get_filename_component(_file "${CMAKE_MATCH_1}" NAME)
      set(_where "${_file}:${CMAKE_MATCH_2}")
      set(_name "${CMAKE_MATCH_3}")
      # Kernels are static: clang mangles them as _ZL<length><name><parameter types>.
      if(_name MATCHES "^_ZL?([0-9]+)")
        string(LENGTH "${CMAKE_MATCH_0}" _skip)
        string(SUBSTRING "${_name}" ${_skip} ${CMAKE_MATCH_1} _name)
      endif()
      set(_current "${_name}")
    elseif(_body MATCHES "remark: +([^:]+): (.*)$")
      # "ScratchSize [bytes/lane]: 0" becomes "scratchsize=0"; the units are in the log's header.
      string(STRIP "${CMAKE_MATCH_1}" _key)
      set(_value "${CMAKE_MATCH_2}")
      string(REGEX REPLACE " *<ts-lb>.*<ts-rb>" "" _key "${_key}")
      string(TOLOWER "${_key}" _key)
      string(REPLACE " " "_" _key "${_key}")
      string(APPEND _current " ${_key}=${_value}")
    endif()
  endforeach()
  if(NOT _current STREQUAL "")
    list(APPEND _kernels "${_current} source=${_where}")
  endif()

  # clang runs the device compilations in the sorted order of the targets, one after another,
  # so the first N remarks are the first target's kernels, and so on.
  string(REPLACE "," ";" _archs "${TS_HIP_ARCHS}")
  list(SORT _archs)
  list(LENGTH _archs _narchs)
  list(LENGTH _kernels _nkernels)
  set(_log "# kernel-resource-usage per kernel and target: sgprs per wave, vgprs and agprs per lane,\n")
  string(APPEND _log "# scratchsize in bytes per lane, occupancy in waves per SIMD (at most 8),\n")
  string(APPEND _log "# lds_size in bytes per block (static LDS, padded to the dynamic region's alignment).\n")
  set(_per 0)
  if(_narchs GREATER 0)
    math(EXPR _per "${_nkernels} / ${_narchs}")
    math(EXPR _rest "${_nkernels} % ${_narchs}")
    if(NOT _rest EQUAL 0)
      set(_per 0)
      string(APPEND _log "# ${_nkernels} reports for targets ${TS_HIP_ARCHS}: not split by target\n")
    endif()
  endif()
  set(_k 0)
  foreach(_entry IN LISTS _kernels)
    set(_arch "?")
    if(_per GREATER 0)
      math(EXPR _a "${_k} / ${_per}")
      list(GET _archs ${_a} _arch)
    endif()
    string(APPEND _log "${_arch} ${_entry}\n")
    math(EXPR _k "${_k} + 1")
  endforeach()
  foreach(_text _log _diag)
    string(REPLACE "<ts-semi>" ";" ${_text} "${${_text}}")
    string(REPLACE "<ts-lb>" "[" ${_text} "${${_text}}")
    string(REPLACE "<ts-rb>" "]" ${_text} "${${_text}}")
  endforeach()
  file(WRITE "${TS_HIP_LOG}" "${_log}")

  string(STRIP "${_diag}" _diag)
  if(NOT _out STREQUAL "")
    message(NOTICE "${_out}")
  endif()
  if(NOT _diag STREQUAL "")
    message(NOTICE "${_diag}")
  endif()
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "HIP compilation failed (${_rc})")
  endif()
  return()
endif()

# ---- configuration: find the toolchain --------------------------------------------------------

# Once per build tree: the settings below are cache entries, the functions global.
include_guard(GLOBAL)

set(TESSERA_HIP_ARCHITECTURES "gfx942;gfx90a" CACHE STRING
    "AMD targets each HIP kernel object holds (clang --offload-arch)")
set(_ts_hip_llvm_bin /usr/lib/llvm-19/bin)

find_program(TESSERA_HIP_CLANG NAMES clang++ PATHS ${_ts_hip_llvm_bin} NO_DEFAULT_PATH)
find_program(TESSERA_HIP_CLANG NAMES clang++-19)
find_program(TESSERA_HIP_LLVM_AS NAMES llvm-as PATHS ${_ts_hip_llvm_bin} NO_DEFAULT_PATH)
find_program(TESSERA_HIP_LLVM_AS NAMES llvm-as-19)
find_program(TESSERA_HIP_LLD NAMES ld.lld PATHS ${_ts_hip_llvm_bin} NO_DEFAULT_PATH)
find_program(TESSERA_HIP_LLD NAMES ld.lld-19 ld.lld)
# clang bundles each kernel object's two targets with clang-offload-bundler, from its own folder
# or the PATH.
find_program(TESSERA_HIP_BUNDLER NAMES clang-offload-bundler PATHS ${_ts_hip_llvm_bin} NO_DEFAULT_PATH)
find_program(TESSERA_HIP_BUNDLER NAMES clang-offload-bundler)
find_path(TESSERA_HIP_BITCODE_DIR ocml.bc
          PATHS /usr/lib/x86_64-linux-gnu/amdgcn/bitcode /usr/lib/amdgcn/bitcode
                /opt/rocm/amdgcn/bitcode
          NO_DEFAULT_PATH)
find_path(TESSERA_HIP_INCLUDE_DIR hip/hip_runtime_api.h PATHS /usr/include /opt/rocm/include)
find_library(TESSERA_HIP_LIBRARY amdhip64
             PATHS /usr/lib/x86_64-linux-gnu /opt/rocm/lib)

set(_ts_hip_missing)
if(NOT TESSERA_HIP_CLANG)
  list(APPEND _ts_hip_missing "clang-19 (clang++ 19, the only clang here that builds gfx942)")
endif()
if(NOT TESSERA_HIP_LLVM_AS)
  list(APPEND _ts_hip_missing "llvm-19 (llvm-as-19, for the gfx942 ISA bitcode)")
endif()
if(NOT TESSERA_HIP_BUNDLER)
  list(APPEND _ts_hip_missing "clang-tools-19 (clang-offload-bundler, which packs a kernel object's targets)")
endif()
if(NOT TESSERA_HIP_LLD)
  list(APPEND _ts_hip_missing "lld-19 and lld (ld.lld, the AMDGPU device linker)")
endif()
if(NOT TESSERA_HIP_BITCODE_DIR)
  list(APPEND _ts_hip_missing "rocm-device-libs (the amdgcn/bitcode folder)")
endif()
if(NOT TESSERA_HIP_INCLUDE_DIR OR NOT TESSERA_HIP_LIBRARY)
  list(APPEND _ts_hip_missing "libamdhip64-dev (hip/hip_runtime_api.h and libamdhip64.so)")
endif()
if(_ts_hip_missing)
  list(JOIN _ts_hip_missing "\n  " _ts_hip_list)
  message(FATAL_ERROR "TESSERA_BACKEND=hip needs these Debian packages:\n  ${_ts_hip_list}\n"
          "Install them with: apt-get install hipcc libamdhip64-dev rocm-device-libs lld "
          "clang-19 clang-tools-19 lld-19 llvm-19")
endif()

# ---- the bitcode shim: ROCm's device libraries plus the gfx942 ISA version ---------------------

set(TESSERA_HIP_DEVICE_LIB_DIR ${PROJECT_BINARY_DIR}/hip-bitcode CACHE INTERNAL
    "ROCm's device bitcode with the gfx942 ISA version added")
file(MAKE_DIRECTORY ${TESSERA_HIP_DEVICE_LIB_DIR})
file(GLOB _ts_hip_bitcode ${TESSERA_HIP_BITCODE_DIR}/*.bc)
foreach(_ts_bc IN LISTS _ts_hip_bitcode)
  get_filename_component(_ts_bc_name ${_ts_bc} NAME)
  file(CREATE_LINK ${_ts_bc} ${TESSERA_HIP_DEVICE_LIB_DIR}/${_ts_bc_name} SYMBOLIC
       RESULT _ts_link_result)
  if(NOT _ts_link_result EQUAL 0)
    message(FATAL_ERROR "cannot link ${_ts_bc} into ${TESSERA_HIP_DEVICE_LIB_DIR}: ${_ts_link_result}")
  endif()
endforeach()

set(TESSERA_HIP_ISA_942_BC ${TESSERA_HIP_DEVICE_LIB_DIR}/oclc_isa_version_942.bc)
if(NOT EXISTS ${TESSERA_HIP_BITCODE_DIR}/oclc_isa_version_942.bc)
  # The file defines one constant. Its module must carry the data layout clang-19 gives amdgcn, or
  # the bitcode link warns about (and -Werror rejects) the mismatch: ask clang for it.
  set(_ts_empty ${PROJECT_BINARY_DIR}/hip-bitcode-src/empty.c)
  file(WRITE ${_ts_empty} "")
  execute_process(
    COMMAND ${TESSERA_HIP_CLANG} -x c --target=amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib -S
            -emit-llvm -o - ${_ts_empty}
    RESULT_VARIABLE _ts_rc OUTPUT_VARIABLE _ts_ir ERROR_VARIABLE _ts_err)
  string(REGEX MATCH "target datalayout = \"[^\"]*\"" _ts_layout "${_ts_ir}")
  if(NOT _ts_rc EQUAL 0 OR NOT _ts_layout)
    message(FATAL_ERROR "${TESSERA_HIP_CLANG} gave no amdgcn data layout: ${_ts_err}")
  endif()
  set(_ts_ll ${PROJECT_BINARY_DIR}/hip-bitcode-src/oclc_isa_version_942.ll)
  file(CONFIGURE OUTPUT ${_ts_ll} CONTENT
       "${_ts_layout}\ntarget triple = \"amdgcn-amd-amdhsa\"\n@__oclc_ISA_version = linkonce_odr protected local_unnamed_addr addrspace(4) constant i32 9402, align 4\n"
       @ONLY)
  if(IS_SYMLINK ${TESSERA_HIP_ISA_942_BC} OR ${_ts_ll} IS_NEWER_THAN ${TESSERA_HIP_ISA_942_BC})
    file(REMOVE ${TESSERA_HIP_ISA_942_BC})
    execute_process(COMMAND ${TESSERA_HIP_LLVM_AS} ${_ts_ll} -o ${TESSERA_HIP_ISA_942_BC}
                    RESULT_VARIABLE _ts_rc ERROR_VARIABLE _ts_err)
    if(NOT _ts_rc EQUAL 0)
      message(FATAL_ERROR "${TESSERA_HIP_LLVM_AS} failed on ${_ts_ll}: ${_ts_err}")
    endif()
  endif()
endif()

# clang finds the HIP headers under <rocm-path>/include.
get_filename_component(_ts_hip_rocm_path ${TESSERA_HIP_INCLUDE_DIR} DIRECTORY)
set(TESSERA_HIP_ROCM_PATH ${_ts_hip_rocm_path} CACHE INTERNAL "The root clang finds the HIP headers under")
message(STATUS "Tessera: HIP kernels with ${TESSERA_HIP_CLANG} for ${TESSERA_HIP_ARCHITECTURES}")

# ---- kernel sources ---------------------------------------------------------------------------

# tessera_hip_compile(<target> <absolute source> <id> <options>): compiles one kernel source as HIP
# for every target of TESSERA_HIP_ARCHITECTURES into ${PROJECT_BINARY_DIR}/hip/<id>.o, adds that
# object to <target>, and writes the kernels' register, scratch, occupancy and LDS report to
# ${PROJECT_BINARY_DIR}/hip/<id>.resource.txt. The include folders and definitions are
# tessera::kernels' and then the target's folders; warnings are errors where
# TESSERA_KERNELS_WERROR is set (the Tessera tree sets it). tessera_add_kernels() calls this.
function(tessera_hip_compile target src id options)
  set(dir ${PROJECT_BINARY_DIR}/hip)
  set(obj ${dir}/${id}.o)
  set(dep ${dir}/${id}.d)
  set(log ${dir}/${id}.resource.txt)
  file(MAKE_DIRECTORY ${dir})
  set(arch_flags)
  foreach(arch IN LISTS TESSERA_HIP_ARCHITECTURES)
    list(APPEND arch_flags --offload-arch=${arch})
  endforeach()
  string(REPLACE ";" "," archs "${TESSERA_HIP_ARCHITECTURES}")
  set(warnings -Wall)
  if(TESSERA_KERNELS_WERROR)
    list(APPEND warnings -Werror)
  endif()
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${src})
  set(defines "$<TARGET_PROPERTY:tessera::kernels,INTERFACE_COMPILE_DEFINITIONS>")
  set(includes "$<REMOVE_DUPLICATES:$<TARGET_PROPERTY:tessera::kernels,INTERFACE_INCLUDE_DIRECTORIES>;$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>>")
  add_custom_command(
    OUTPUT ${obj} ${log}
    COMMAND ${CMAKE_COMMAND} -DTS_HIP_LOG=${log} -DTS_HIP_ARCHS=${archs} -P ${CMAKE_CURRENT_FUNCTION_LIST_FILE} --
            ${TESSERA_HIP_CLANG} -x hip ${arch_flags} -O3 -std=c++17
            "$<$<BOOL:${defines}>:-D$<JOIN:${defines},;-D>>" -D__HIP_PLATFORM_AMD__ -fPIC
            "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>"
            --rocm-path=${TESSERA_HIP_ROCM_PATH} --rocm-device-lib-path=${TESSERA_HIP_DEVICE_LIB_DIR}
            ${warnings} -Rpass-analysis=kernel-resource-usage
            ${options} -MD -MF ${dep} -c ${src} -o ${obj}
    DEPENDS ${src} ${CMAKE_CURRENT_FUNCTION_LIST_FILE}
    DEPFILE ${dep}
    COMMENT "Building HIP object ${rel} (${archs})"
    COMMAND_EXPAND_LISTS
    VERBATIM)
  set_source_files_properties(${obj} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  target_sources(${target} PRIVATE ${obj})
endfunction()

# tessera_hip_link(<target>): links the HIP runtime and lets the target's C sources include
# hip/hip_runtime_api.h (backends/hip/runtime.c is C, compiled by the C compiler).
function(tessera_hip_link target)
  target_link_libraries(${target} PUBLIC ${TESSERA_HIP_LIBRARY})
  target_compile_definitions(${target} PRIVATE __HIP_PLATFORM_AMD__)
  if(NOT TESSERA_HIP_INCLUDE_DIR STREQUAL "/usr/include")
    target_include_directories(${target} SYSTEM PRIVATE ${TESSERA_HIP_INCLUDE_DIR})
  endif()
endfunction()
