#!/usr/bin/env bash
# The main job: configure, build and run tessera-bench on whatever this machine has. The build's
# backend is detected (cuda with an NVIDIA GPU, hip with an AMD GPU, otherwise host, where the
# benchmark runs on the CPU at small sizes and says so).
#   usage: scripts/bench.sh [bench] [tessera-bench options]   (default bench: puzzles)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${TESSERA_BUILD_DIR:-build/bench}
cmake -S . -B "$dir" -DTESSERA_BACKEND=auto -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_TESTS=OFF >/dev/null
cmake --build "$dir" -j "$(nproc)" --target tessera-bench >/dev/null
[ $# -gt 0 ] || set -- puzzles
exec "$dir/bench/tessera-bench" "$@"
