#!/usr/bin/env bash
# Nsight Compute on the GPU machine: builds tessera-bench (CUDA backend, release) and profiles the
# kernels of one bench invocation whose names match a pattern, with the clocks left alone
# (--clock-control none). Reports go to $OUT (default: build/gpu-profile): the text of the chosen
# sections, and the raw .ncu-rep for a closer look.
#   usage: scripts/gpu-profile.sh PATTERN BENCH [bench options]
#          e.g. scripts/gpu-profile.sh 'gemm|xmma|cutlass' gemm --shape 4096x4096x4096
#   NCU_SECTIONS (default below) picks the sections; NCU_COUNT (default 4) how many launches.
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 PATTERN BENCH [options]" >&2; exit 2; }
pattern=$1; shift
results=${OUT:-$(pwd)/build/gpu-profile}
mkdir -p "$results"
dir=build/gpu-profile-build
cmake -S . -B "$dir" -DTESSERA_BACKEND=cuda -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_EXAMPLES=OFF >/dev/null &&
  cmake --build "$dir" -j "$(nproc)" --target tessera-bench >"$results/build.log" 2>&1 ||
  { tail -n 40 "$results/build.log"; exit 1; }
sections=${NCU_SECTIONS:-"SpeedOfLight MemoryWorkloadAnalysis WarpStateStats SchedulerStats Occupancy LaunchStats"}
args=()
for s in $sections; do args+=(--section "$s"); done
ncu --clock-control none "${args[@]}" -k "regex:$pattern" -c "${NCU_COUNT:-4}" -o "$results/profile" -f \
  "$dir/bench/tessera-bench" "$@" >"$results/ncu.log" 2>&1 || { tail -n 30 "$results/ncu.log"; exit 1; }
ncu --import "$results/profile.ncu-rep" --print-summary none >"$results/profile.txt" 2>&1
cat "$results/profile.txt"
