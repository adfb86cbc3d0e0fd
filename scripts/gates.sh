#!/usr/bin/env bash
# Compile and ISA gates on a built tree: the hot kernels contain the matrix instructions they were
# written for, without register spills, scratch or serialized wgmma. scripts/test.sh runs this after
# a backend's tests.
#
#   scripts/gates.sh <cuda|hip|host> <build-dir>
#
# cuda: every kernel source (its generated .cu wrapper in <build>/generated) is compiled to PTX for
#       sm_90a; those with wgmma.mma_async go through ptxas -v, and each kernel that issues wgmma
#       must have 0 bytes of spill stores and loads; ptxas must not report serialized wgmma (C7510,
#       C7514, C7520, or any other "wgmma.mma_async instructions are serialized" message) or C7508
#       (setmaxnreg ignored), nor may the build log.
#       tests/kernels/wg_kernels.c must hold wgmma, TMA (cp.async.bulk.tensor) and setmaxnreg.
#       Where a disassembler is found (cuobjdump with nvdisasm: PATH, the CUDA install, or the
#       nvidia-cuda-cuobjdump / nvidia-cuda-nvdisasm wheels), the built objects' SASS must hold
#       HGMMA in the warpgroup test kernels and, kernel by kernel (sass_gate): HGMMA, UTMALDG and
#       USETMAXREG in every GEMM, attention, attention-backward and Based kernel (Based also HMMA),
#       LDG.E.128 in every GEMV kernel, HMMA and LDG.E.128 in decode attention's split kernels, and
#       no local memory (LDL/STL) in any of them; each attention kernel's softmax must lie ahead
#       of its wait for the last stage's P V, the D = 128 ones with a wait for S alone (their wgmma
#       not serialized; scripts/attention-overlap-gate.py). Without a disassembler these checks
#       are skipped, said so.
#       The kernels without wgmma (GEMV, decode attention) through ptxas -v: 0 bytes of spills for
#       every kernel, and for GEMV no stack frame either (local_memory_gate).
# hip:  the warpgroup and mma test kernels (and the gemm, attention, decode attention,
#       attention-backward and Based kernels, when built) hold v_mfma for
#       gfx942 and gfx90a, every warpgroup test kernel on its own; every kernel of every
#       <build>/hip/*.resource.txt has ScratchSize 0; every GEMV kernel holds global_load_dwordx4
#       and no scratch access for gfx942 and gfx90a; no kernel object holds flat_load_dwordx4.
# host: nothing more to check.
# all:  no warp-wide call (ts_warp_id, ts_shfl_*, ...) in a branch on the lane
#       (scripts/warp-collective-lint.py).
# Exits non-zero, naming what failed, when a gate fails.
set -uo pipefail
# ptxas's reports of wgmma serialized for the whole kernel: C7510 (registers of a wgmma touched
# between its start and end), C7514 (accumulators read there), C7520 (a trap on a divergent path),
# and any later code that words it the same way.
serialized='C7510|C7514|C7520|instructions are serialized'

usage() {
  echo "usage: $0 <cuda|hip|host> <build-dir>" >&2
  exit 2
}
[ $# -eq 2 ] || usage
backend=$1
build=$(cd "$2" 2>/dev/null && pwd) || { echo "$0: no build directory $2" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)

failures=0
fail() {
  echo "GATE FAILED: $*" >&2
  failures=$((failures + 1))
}
note() { echo "gates: $*"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- cuda --------------------------------------------------------------------------------------

find_disassembler() {
  local dirs=() d
  local cuda_bin
  cuda_bin=$(dirname "$nvcc")
  dirs+=("$cuda_bin")
  # The wheels put their tools under site-packages/nvidia/<cuXX or cuda_*>/bin.
  local py
  for py in python3 python; do
    command -v "$py" >/dev/null 2>&1 || continue
    while IFS= read -r d; do dirs+=("$d"); done < <("$py" - <<'EOF' 2>/dev/null
import glob, os
try:
    import nvidia
    for base in list(nvidia.__path__):
        for d in glob.glob(os.path.join(base, "*", "bin")):
            print(d)
except Exception:
    pass
EOF
)
  done
  local cuobjdump="" nvdisasm=""
  command -v cuobjdump >/dev/null 2>&1 && cuobjdump=$(command -v cuobjdump)
  command -v nvdisasm >/dev/null 2>&1 && nvdisasm=$(command -v nvdisasm)
  for d in "${dirs[@]}"; do
    [ -z "$cuobjdump" ] && [ -x "$d/cuobjdump" ] && cuobjdump=$d/cuobjdump
    [ -z "$nvdisasm" ] && [ -x "$d/nvdisasm" ] && nvdisasm=$d/nvdisasm
  done
  if [ -n "$cuobjdump" ] && [ -n "$nvdisasm" ]; then
    echo "$cuobjdump:$(dirname "$nvdisasm")"
  fi
}

cuda_gates() {
  nvcc=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null | head -n1)
  [ -n "$nvcc" ] && [ -x "$nvcc" ] || nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  [ -x "$nvcc" ] || { fail "nvcc not found"; return; }
  local ptxas
  ptxas=$(dirname "$nvcc")/ptxas
  [ -x "$ptxas" ] || ptxas=$(command -v ptxas || true)
  [ -n "$ptxas" ] || { fail "ptxas not found"; return; }

  local wrappers=("$build"/generated/*.cu)
  [ -e "${wrappers[0]}" ] || { fail "no generated kernel wrappers in $build/generated (not a cuda build?)"; return; }
  local wg_wrapper=$build/generated/tests_kernels_wg_kernels_c.cu
  [ -f "$wg_wrapper" ] || fail "tests/kernels/wg_kernels.c is not among the built kernel sources"

  # One kernel source (its generated wrapper), with any extra nvcc flags, through nvcc -ptx and
  # ptxas -v: the cuda checks of this file's header, reported under id.
  check_wrapper() {
    local w=$1 id=$2
    shift 2
    local ptx=$tmp/$id.ptx report
    if ! "$nvcc" -gencode=arch=compute_90a,code=sm_90a -ptx -std=c++17 -O3 -DTESSERA_BACKEND_CUDA "$@" \
        -I"$root" -I"$root/core/include" "$w" -o "$ptx" 2>"$tmp/$id.nvcc.log"; then
      cat "$tmp/$id.nvcc.log" >&2
      fail "$id: nvcc -ptx for sm_90a failed"
      return
    fi
    if [ "$w" = "$wg_wrapper" ]; then
      grep -q "wgmma.mma_async" "$ptx" || fail "$id: no wgmma.mma_async in the PTX"
      grep -q "cp.async.bulk.tensor" "$ptx" || fail "$id: no TMA copy (cp.async.bulk.tensor) in the PTX"
      grep -q "setmaxnreg" "$ptx" || fail "$id: no setmaxnreg in the PTX"
    fi
    grep -q "wgmma.mma_async" "$ptx" || return 0

    report=$tmp/$id.ptxas.log
    if ! "$ptxas" -arch=sm_90a -v "$ptx" -o "$tmp/$id.cubin" >"$report" 2>&1; then
      cat "$report" >&2
      fail "$id: ptxas failed"
      return
    fi
    if grep -qE "$serialized" "$report"; then
      grep -E "$serialized" "$report" | head -n 5 >&2
      fail "$id: ptxas serialized wgmma"
    fi
    if grep -q "C7508" "$report"; then
      grep "C7508" "$report" | head -n 5 >&2
      fail "$id: ptxas ignored setmaxnreg (C7508)"
    fi
    # Kernels that issue wgmma, from the PTX; then their registers and spills from ptxas.
    awk '/\.entry /{ name = $0; sub(/.*\.entry[ \t]+/, "", name); sub(/\(.*/, "", name) }
         /wgmma\.mma_async/ && name != "" { print name }' "$ptx" | sort -u >"$tmp/$id.wgmma"
    awk -v list="$tmp/$id.wgmma" -v id="$id" '
      BEGIN { while ((getline n < list) > 0) want[n] = 1 }
      /Compiling entry function/ { f = $0; sub(/.*function .\047?/, "", f); sub(/\047.*/, "", f) }
      /bytes spill stores/ { split($0, a, ","); st = a[2]; ld = a[3]; gsub(/[^0-9]/, "", st); gsub(/[^0-9]/, "", ld);
                             sp[f] = st + ld; frame[f] = $0 }
      /Used [0-9]+ registers/ { r = $0; sub(/.*Used /, "", r); sub(/ registers.*/, "", r); regs[f] = r }
      END {
        bad = 0
        for (f in want) {
          printf "gates: %s %s: %s registers, %d bytes spilled\n", id, f, regs[f], sp[f]
          if (sp[f] != 0) bad = 1
        }
        exit bad
      }' "$report" | sort || fail "$id: a wgmma kernel spills registers (see the lines above)"
  }

  local w
  for w in "${wrappers[@]}"; do check_wrapper "$w" "$(basename "$w" .cu)"; done


  # The memory-bound kernels hold no wgmma, so check_wrapper leaves them: GEMV counts its stack
  # too (an accumulator indexed at run time goes to local memory without a spill being reported).
  local_memory_gate kernels_gemv_gemv_c required stack
  local_memory_gate kernels_attention_decode_attention_decode_c optional spills

  # The build log, where scripts/test.sh keeps one beside the build folder.
  local log=${build%/}.build.log
  if [ -f "$log" ] && grep -qE "$serialized" "$log"; then
    grep -E "$serialized" "$log" | head -n 5 >&2
    fail "the build log reports serialized wgmma"
  fi

  # SASS: HGMMA in the object the build made.
  local tools
  tools=$(find_disassembler)
  if [ -z "$tools" ]; then
    note "no cuobjdump with nvdisasm here (pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm provides them): HGMMA check skipped"
  else
    local cuobjdump=${tools%%:*} nvdisasm_dir=${tools#*:}
    local obj
    obj=$(find "$build" -name "tests_kernels_wg_kernels_c.cu.o" | head -n 1)
    if [ -z "$obj" ]; then
      fail "the object of tests/kernels/wg_kernels.c is not in $build"
    elif ! PATH="$nvdisasm_dir:$PATH" "$cuobjdump" -sass "$obj" >"$tmp/wg.sass" 2>"$tmp/wg.sass.err"; then
      cat "$tmp/wg.sass.err" >&2
      fail "cuobjdump -sass failed on $obj"
    else
      local n
      n=$(grep -c "HGMMA" "$tmp/wg.sass" || true)
      if [ "$n" -gt 0 ]; then note "wg_kernels SASS: $n HGMMA"; else fail "wg_kernels SASS holds no HGMMA"; fi
    fi
    # Each kernel object's SASS against what its kernels were written for (sass_gate): the
    # warpgroup multiply (HGMMA), TMA loads (UTMALDG) and the warp roles' register budgets
    # (USETMAXREG) in every GEMM and attention kernel; Based's warp products of its denominator's
    # state (HMMA) beside those; the GEMV kernels' and decode attention's 16-byte loads
    # (LDG.E.128), decode's split kernels' HMMA; and in none of them local memory (LDL/STL): their
    # state lives in registers and shared memory.
    sass_gate gemm/gemm "HGMMA UTMALDG USETMAXREG" ""
    sass_gate gemm/gemm_skinny16 "HGMMA UTMALDG USETMAXREG" ""
    sass_gate gemm/gemm_skinny64 "HGMMA UTMALDG USETMAXREG" ""
    sass_gate gemm/gemm_skinny128 "HGMMA UTMALDG USETMAXREG" ""
    sass_gate attention/attention "HGMMA UTMALDG USETMAXREG" ""
    sass_gate attention_backward/attention_backward "HGMMA UTMALDG USETMAXREG" ""
    sass_gate based/based "HGMMA HMMA UTMALDG USETMAXREG" ""
    sass_gate gemv/gemv "LDG.E.128" "" required
    sass_gate attention_decode/attention_decode "HMMA LDG.E.128" "_kernel"
    # Attention's overlap: in each kernel the softmax's exponentials lie between the wait for a
    # stage's S (DEPBAR.LE gsb0, 0x1) and the wait for the last stage's P V (the last DEPBAR.LE
    # gsb0, 0x0 before the next WARPGROUP.ARRIVE), not after the second, where ptxas puts them
    # unless the kernel pins the softmax ahead of that wait (ts_rv_pin, ops/pin.h). The SASS is
    # the one disassembled above.
    if [ -s "$tmp/attention.sass" ]; then
      python3 "$root/scripts/attention-overlap-gate.py" "$tmp/attention.sass" --require d128 >"$tmp/attn.gate" 2>&1
      local rc=$?
      while IFS= read -r line; do note "attention overlap: $line"; done <"$tmp/attn.gate"
      [ "$rc" -eq 0 ] || fail "attention: the softmax does not run ahead of the wait for P V"
    fi
  fi
}

# One kernel source without wgmma (its generated wrapper), through nvcc -cubin with ptxas -v: the
# registers of every kernel, and none with local memory: "spills" counts spill stores and loads,
# "stack" the stack frame too. A source not built is a failure when "required", else skipped.
local_memory_gate() {
  local id=$1 need=$2 what=$3
  local w=$build/generated/$id.cu
  if [ ! -f "$w" ]; then
    [ "$need" = required ] && fail "$id: not among the built kernel sources"
    return 0
  fi
  if ! "$nvcc" -gencode=arch=compute_90a,code=sm_90a -cubin -std=c++17 -O3 -DTESSERA_BACKEND_CUDA -Xptxas -v \
      -I"$root" -I"$root/core/include" "$w" -o "$tmp/$id.cubin" >"$tmp/$id.ptxas.log" 2>&1; then
    cat "$tmp/$id.ptxas.log" >&2
    fail "$id: nvcc for sm_90a failed"
    return
  fi
  awk -v id="$id" -v stack=$([ "$what" = stack ] && echo 1 || echo 0) '
    /Compiling entry function/ { f = $0; sub(/.*function .\047?/, "", f); sub(/\047.*/, "", f); n++ }
    /bytes stack frame/ { split($0, a, ","); st = a[1]; sp = a[2]; ld = a[3]; gsub(/[^0-9]/, "", st);
                          gsub(/[^0-9]/, "", sp); gsub(/[^0-9]/, "", ld); bytes[f] = (stack ? st : 0) + sp + ld }
    /Used [0-9]+ registers/ { r = $0; sub(/.*Used /, "", r); sub(/ registers.*/, "", r); regs[f] = r }
    END {
      bad = n == 0
      if (n == 0) printf "gates: %s: no kernels in the ptxas report\n", id
      for (f in regs) {
        printf "gates: %s %s: %s registers, %d bytes of %s\n", id, f, regs[f], bytes[f],
               stack ? "stack and spills" : "spills"
        if (bytes[f] != 0) bad = 1
      }
      exit bad
    }' "$tmp/$id.ptxas.log" | sort || fail "$id: a kernel uses local memory (see the lines above)"
}

# One kernel object's SASS (the object the build made, disassembled with find_disassembler's
# tools, $cuobjdump and $nvdisasm_dir): each function whose name matches FILTER (all when empty)
# holds every instruction of NEED, and no function uses local memory (LDL/STL). An
# object not built is a failure when "required", else skipped.
#   sass_gate FAMILY/SOURCE "NEED ..." FILTER [required]
sass_gate() {
  local src=$1 need=$2 filter=$3 required=${4:-} obj name=${1#*/} bad
  obj=$(find "$build" -name "kernels_${src%%/*}_${src#*/}_c.cu.o" | head -n 1)
  if [ -z "$obj" ]; then
    [ "$required" = required ] && fail "the object of kernels/$src.c is not in $build"
    return 0
  fi
  if ! PATH="$nvdisasm_dir:$PATH" "$cuobjdump" -sass "$obj" >"$tmp/$name.sass" 2>/dev/null; then
    fail "cuobjdump -sass failed on $obj"
    return
  fi
  bad=$(awk -v need="$need" -v filter="$filter" '
    BEGIN { k = split(need, ins, " ") }
    function report(   i, miss) {
      if (f == "") return
      if (l) print f " (local memory)"
      if (filter != "" && index(f, filter) == 0) return
      miss = ""
      for (i = 1; i <= k; ++i) if (!(ins[i] in seen)) miss = miss " " ins[i]
      if (miss != "") print f " (no" miss ")"
    }
    /Function :/ { report(); f = $3; l = 0; delete seen }
    { for (i = 1; i <= k; ++i) if (index($0, ins[i]) > 0) seen[ins[i]] = 1 }
    /[^A-Z](LDL|STL)[. ]/ { l = 1 }
    END { report() }' "$tmp/$name.sass")
  if [ -n "$bad" ]; then
    fail "$name SASS: $(echo $bad)"
  else
    note "$name SASS: $(grep -c 'Function :' "$tmp/$name.sass") kernels$([ -n "$filter" ] && echo ", those named *$filter*,") each with $need, none with LDL/STL"
  fi
}

# ---- hip ---------------------------------------------------------------------------------------

hip_gates() {
  local dir=$build/hip
  [ -d "$dir" ] || { fail "no $dir (not a hip build?)"; return; }
  local wg=$dir/tests_kernels_wg_kernels_c.o
  [ -f "$wg" ] || fail "tests/kernels/wg_kernels.c is not among the built kernel sources"
  local obj arch id isa
  for obj in "$wg" "$dir/tests_kernels_mma_kernels_c.o" "$dir/kernels_gemm_gemm_c.o" \
             "$dir/kernels_gemm_gemm_skinny16_c.o" "$dir/kernels_gemm_gemm_skinny64_c.o" \
             "$dir/kernels_gemm_gemm_skinny128_c.o" \
             "$dir/kernels_attention_attention_c.o" "$dir/kernels_attention_decode_attention_decode_c.o" \
             "$dir/kernels_based_based_c.o" "$dir/kernels_attention_backward_attention_backward_c.o"; do
    [ -f "$obj" ] || continue
    id=$(basename "$obj" .o)
    for arch in gfx942 gfx90a; do
      isa=$tmp/$id.$arch.s
      if ! "$root/scripts/hip-isa.sh" "$obj" "$arch" >"$isa" 2>"$isa.err"; then
        cat "$isa.err" >&2
        fail "$id: no $arch disassembly"
        continue
      fi
      grep -q "v_mfma" "$isa" || fail "$id ($arch): no v_mfma"
      if [ "$obj" = "$wg" ]; then
        # Each warpgroup multiply kernel on its own.
        awk '/^[0-9a-f]+ <.*>:$/ { if (name ~ /ts_wgt_mma_/ && !seen) print name; name = $2; seen = 0 }
             /v_mfma/ { seen = 1 }
             END { if (name ~ /ts_wgt_mma_/ && !seen) print name }' "$isa" >"$isa.missing"
        if [ -s "$isa.missing" ]; then
          cat "$isa.missing" >&2
          fail "$id ($arch): warpgroup kernels without v_mfma (listed above)"
        fi
      fi
    done
    note "$id: v_mfma present for gfx942 and gfx90a"
  done
  # The GEMV kernels: each holds 16-byte loads (global_load_dwordx4) and touches no scratch.
  obj=$dir/kernels_gemv_gemv_c.o
  if [ ! -f "$obj" ]; then
    fail "kernels/gemv/gemv.c is not among the built kernel sources"
  else
    for arch in gfx942 gfx90a; do
      isa=$tmp/gemv.$arch.s
      if ! "$root/scripts/hip-isa.sh" "$obj" "$arch" >"$isa" 2>"$isa.err"; then
        cat "$isa.err" >&2
        fail "gemv: no $arch disassembly"
        continue
      fi
      awk 'function report() { if (name ~ /ts_gemv_/ && (!v || s)) print name }
           /^[0-9a-f]+ <.*>:$/ { report(); name = $2; v = s = 0 }
           /global_load_dwordx4/ { v = 1 } /scratch_/ { s = 1 }
           END { report() }' "$isa" >"$isa.bad"
      n=$(grep -c '^[0-9a-f]* <.*ts_gemv_.*>:$' "$isa" || true)
      if [ -s "$isa.bad" ] || [ "$n" -eq 0 ]; then
        cat "$isa.bad" >&2
        fail "gemv ($arch): kernels without global_load_dwordx4 or with scratch (listed above), or none found"
      else
        note "gemv ($arch): $n kernels, each with global_load_dwordx4 and no scratch"
      fi
    done
  fi
  # 16-byte loads of global memory (ts_load16) are global loads, never flat ones: a flat load
  # counts against the LDS counter too, so every wait on it is coarser (backends/vector_memory.h).
  local flat=""
  for obj in "$dir"/*.o; do
    [ -f "$obj" ] || continue
    for arch in gfx942 gfx90a; do
      isa=$tmp/flat.$arch.s
      "$root/scripts/hip-isa.sh" "$obj" "$arch" >"$isa" 2>/dev/null || continue
      grep -q 'flat_load_dwordx4' "$isa" && flat="$flat $(basename "$obj" .o) ($arch)"
    done
  done
  if [ -n "$flat" ]; then
    fail "flat_load_dwordx4 (16-byte loads not known global):$flat"
  else
    note "16-byte loads: no flat_load_dwordx4 in $(ls "$dir"/*.o 2>/dev/null | wc -l) kernel objects"
  fi
  local res bad
  for res in "$dir"/*.resource.txt; do
    [ -f "$res" ] || continue
    bad=$(grep -v '^#' "$res" | grep -v 'scratchsize=0 ' || true)
    if [ -n "$bad" ]; then
      echo "$bad" >&2
      fail "$(basename "$res"): kernels use scratch (listed above)"
    fi
  done
  note "scratch: checked $(ls "$dir"/*.resource.txt 2>/dev/null | wc -l) resource reports"
}

# Every backend: no warp-wide call in a branch on the lane, which the host backend's tests cannot
# see (scripts/warp-collective-lint.py).
source_gates() {
  local out
  if out=$(python3 "$root/scripts/warp-collective-lint.py" "$root" 2>&1); then
    note "warp-wide calls: none in lane branches"
  else
    echo "$out" >&2
    fail "warp-wide calls in lane branches (listed above)"
  fi
}

source_gates
case $backend in
cuda) cuda_gates ;;
hip) hip_gates ;;
host) note "host: no compile or ISA gates" ;;
*) usage ;;
esac

if [ "$failures" -gt 0 ]; then
  echo "gates: $failures gate(s) failed for $backend" >&2
  exit 1
fi
note "all $backend gates passed"
