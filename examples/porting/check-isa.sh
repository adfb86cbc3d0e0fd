#!/usr/bin/env bash
# Checks the machine code of the ports' kernels (examples/porting), built out of tree: each kernel
# streams its tensors in 16-byte (or wider) global accesses and uses no local memory.
#
#   examples/porting/check-isa.sh <cuda|hip> <port build dir>...
#
# For every kernel of each port found in the build folders, the count of wide global loads and
# stores must reach what one whole strip of the streamed tensors takes a lane: tensors x chunks
# of the lane x accesses a chunk (a chunk is 8 elements: one 16-byte access of a 16-bit dtype, two
# of fp32). The rest of a kernel (partial strips, unaligned rows) may go narrower.
#   cuda: cuobjdump -sass of the port's kernel object: LDG.E.128 / STG.E.128 (or .256), no LDL/STL.
#         Without cuobjdump (PATH, the CUDA install, or the nvidia-cuda-cuobjdump wheel) the check
#         is skipped, said so, and passes.
#   hip:  the gfx942 and gfx90a code (scripts/hip-isa.sh): global_load_dwordx4 /
#         global_store_dwordx4, no scratch_ instruction, and ScratchSize 0 in the resource report.
# Exits non-zero, naming each kernel that fails.
set -uo pipefail
usage() {
  echo "usage: $0 <cuda|hip> <port build dir>..." >&2
  exit 2
}
[ $# -ge 2 ] || usage
backend=$1
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
failures=0
fail() {
  echo "ISA CHECK FAILED: $*" >&2
  failures=$((failures + 1))
}

# The ports: kernel object id, kernel names, strip length E, tensors loaded and stored a strip.
ports=(
  "gated_activation_c|$(for t in bf16 fp16 f32; do printf 'swiglu_%s geglu_%s geglu_erf_%s ' $t $t $t; done)|512|2|1"
  "softmax_cross_entropy_c|xent_bf16 xent_fp16 xent_f32|1024|2|1"
)

# The wide accesses one whole strip takes a lane: tensors x E / (8 x lanes) x (2 for fp32, else 1).
need() { # tensors E lanes kernel
  local per=1
  case $4 in *_f32) per=2 ;; esac
  echo $(($1 * $2 / (8 * $3) * per))
}

# count FILE KERNEL PATTERN: the lines matching PATTERN inside KERNEL's block of a listing split
# into "function <name>" blocks (the mangled name holds the kernel's name after its length).
count() {
  awk -v k="$2" -v pat="$3" '
    /^function / { inside = ($2 ~ ("^_ZL?[0-9]+" k "[0-9]")) }
    inside && $0 ~ pat { n++ }
    END { print n + 0 }' "$1"
}
has_kernel() { grep -qE "^function _ZL?[0-9]+$2[0-9]" "$1"; }

find_cuobjdump() {
  command -v cuobjdump 2>/dev/null && return
  [ -x /usr/local/cuda/bin/cuobjdump ] && { echo /usr/local/cuda/bin/cuobjdump; return; }
  python3 - <<'EOF' 2>/dev/null
import glob, os
import nvidia
for base in nvidia.__path__:
    for tool in glob.glob(os.path.join(base, "*", "bin", "cuobjdump")):
        print(tool)
        raise SystemExit
EOF
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case $backend in
cuda)
  cuobjdump=$(find_cuobjdump | head -n 1)
  if [ -z "$cuobjdump" ]; then
    echo "check-isa: no cuobjdump (pip install nvidia-cuda-cuobjdump); the ports' SASS check is skipped"
    exit 0
  fi
  targets=(cuda)
  lanes=32
  ;;
hip)
  targets=(gfx942 gfx90a)
  lanes=64
  ;;
*) usage ;;
esac

checked=0
for dir in "$@"; do
  [ -d "$dir" ] || { fail "no build folder $dir"; continue; }
  for port in "${ports[@]}"; do
    IFS='|' read -r id kernels E loads stores <<<"$port"
    if [ "$backend" = cuda ]; then
      obj=$(find "$dir" -name "$id.cu.o" | head -n 1)
    else
      obj=$(find "$dir" -path "*/hip/$id.o" | head -n 1)
    fi
    [ -n "$obj" ] || continue
    for target in "${targets[@]}"; do
      listing=$tmp/$id.$target.txt
      if [ "$backend" = cuda ]; then
        # cuobjdump names each function on a "Function : <name>" line.
        "$cuobjdump" -sass "$obj" | sed -E 's/^[[:space:]]*Function : (.*)$/function \1/' >"$listing" ||
          { fail "cuobjdump -sass $obj"; continue; }
        wide_load='LDG\.E(\.[A-Z0-9]+)*\.(128|256)'
        wide_store='STG\.E(\.[A-Z0-9]+)*\.(128|256)'
        local_mem='[^A-Z](LDL|STL)[. ]'
      else
        # llvm-objdump opens each function with "<address> <name>:".
        "$root/scripts/hip-isa.sh" "$obj" "$target" | sed -E 's/^[0-9a-f]+ <([^>]+)>:$/function \1/' >"$listing" ||
          { fail "scripts/hip-isa.sh $obj $target"; continue; }
        wide_load='global_load_dwordx4'
        wide_store='global_store_dwordx4'
        local_mem='scratch_'
      fi
      for k in $kernels; do
        if ! has_kernel "$listing" "$k"; then
          fail "$target: kernel $k not found in $obj"
          continue
        fi
        nl=$(count "$listing" "$k" "$wide_load")
        ns=$(count "$listing" "$k" "$wide_store")
        nlocal=$(count "$listing" "$k" "$local_mem")
        want_l=$(need "$loads" "$E" "$lanes" "$k")
        want_s=$(need "$stores" "$E" "$lanes" "$k")
        if [ "$nl" -lt "$want_l" ] || [ "$ns" -lt "$want_s" ] || [ "$nlocal" -ne 0 ]; then
          fail "$target $k: $nl wide loads (at least $want_l), $ns wide stores (at least $want_s)," \
            "$nlocal local-memory accesses (none)"
        else
          echo "check-isa: $target $k: $nl wide loads, $ns wide stores, no local memory"
        fi
        checked=$((checked + 1))
      done
    done
    if [ "$backend" = hip ]; then
      report=${obj%.o}.resource.txt
      if [ ! -f "$report" ]; then
        fail "no resource report $report"
      elif grep -E ' scratchsize=[1-9]' "$report" >&2; then
        fail "scratch in $report"
      fi
    fi
  done
done
[ "$checked" -gt 0 ] || fail "no port kernel found in $*"
[ "$failures" -eq 0 ] || exit 1
echo "check-isa: $backend: $checked kernels of the ports stream in 16-byte accesses"
