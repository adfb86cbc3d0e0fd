#!/usr/bin/env bash
# Builds kernels/norm/norm.c as sm_90a cubins, one per variant of compile-time options, for
# bench/probes/norm_race.cu (which loads them and launches the bf16 whole instance,
# _Z18ts_norm_bf16_whole14ts_norm_params). Needs only nvcc: no CMake tree, no GPU, so the variants
# can be built here and carried to the GPU machine.
#   usage: bench/probes/norm_cubins.sh OUTDIR NAME="FLAGS" ...
#   e.g.   bench/probes/norm_cubins.sh .ab-rev/cubins base= \
#            first="-DTS_NORM_STATS_FIRST=1 -DTS_NORM_RSQRT=1 -DTS_NORM_SHORT_MIN_BLOCKS=2"
# Prints each variant's registers and spills of that kernel (ptxas).
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
  usage=$(echo "$report" | grep -A2 "_Z18ts_norm_bf16_whole" | grep -oE "Used [0-9]+ registers|[0-9]+ bytes spill stores" |
          tr '\n' ' ')
  echo "$name: $usage-> $out/$name.cubin"
done
