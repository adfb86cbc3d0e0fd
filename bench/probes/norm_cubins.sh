#!/usr/bin/env bash
# Builds kernels/norm/norm.c as sm_90a cubins, one per variant of compile-time options, for
# bench/probes/norm_race.cu, which loads them and launches a bf16 whole-instance kernel:
# _Z18ts_norm_bf16_whole14ts_norm_params, or the one-slice rows' with a residual,
# _Z22ts_norm_bf16_whole_row14ts_norm_params. Needs only nvcc: no CMake tree, no GPU, so the
# variants can be built here and carried to the GPU machine.
#   usage: bench/probes/norm_cubins.sh OUTDIR NAME="FLAGS" ...
#   e.g.   bench/probes/norm_cubins.sh .ab-rev/cubins base= lineinfo=-lineinfo
#   (launch numbers are not options: an A/B of one edits kernels/norm/tuning.h in a copy of the tree)
# Prints the registers and spills of those two kernels in each variant (ptxas).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$1
shift
mkdir -p "$out"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
for spec in "$@"; do
  name=${spec%%=*} flags=${spec#*=}
  # shellcheck disable=SC2086
  report=$("$nvcc" -DTESSERA_BACKEND_CUDA -I. -Icore/include -O3 -DNDEBUG -arch=sm_90a -std=c++17 -Xptxas -v \
             -cubin $flags -x cu kernels/norm/norm.c -o "$out/$name.cubin" 2>&1)
  for kernel in _Z18ts_norm_bf16_whole14 _Z22ts_norm_bf16_whole_row14; do
    usage=$(echo "$report" | grep -A3 "entry function '$kernel" | grep -oE "Used [0-9]+ registers|[0-9]+ bytes spill stores" |
            tr '\n' ' ' || true)
    if [ -n "$usage" ]; then echo "$name ${kernel#_Z??}: $usage"; fi
  done
  echo "  -> $out/$name.cubin"
done
