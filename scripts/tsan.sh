#!/usr/bin/env bash
# Builds the host backend under ThreadSanitizer and runs the concurrent calls (tests/concurrent_calls.c,
# the program form of tests/test_concurrency.c: Criterion cannot start under ThreadSanitizer):
# threads making their first calls at once, calls beside ts_device_set, handles made and destroyed
# on every thread. Any data race ThreadSanitizer reports fails the run. Exits non-zero on any failure.
#   usage: scripts/tsan.sh [build-dir] [program...]   (default: $TESSERA_BUILD_ROOT/host-tsan, or
#          build/test/host-tsan in the tree; concurrent_calls)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
dir=${1:-${TESSERA_BUILD_ROOT:-$root/build/test}/host-tsan}
shift || true
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(concurrent_calls)
jobs=${TESSERA_JOBS:-$(nproc)}

# gcc warns that ThreadSanitizer does not model atomic_thread_fence (the host backend's block fence,
# kept beside the mutexes that order its warps): not an error here.
flags="-fsanitize=thread -fno-omit-frame-pointer -Wno-tsan"
mkdir -p "$dir"
cmake -S "$root" -B "$dir" -DTESSERA_BACKEND=host -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTESSERA_BUILD_BENCH=OFF -DTESSERA_BUILD_EXAMPLES=OFF \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" >"$dir.configure.log" 2>&1 \
  || { cat "$dir.configure.log"; exit 1; }
cmake --build "$dir" -j "$jobs" --target "${tests[@]}" >"$dir.build.log" 2>&1 \
  || { tail -n 60 "$dir.build.log"; exit 1; }

# A report ends the process with exit code 66; the log is scanned as well.
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
status=0
for t in "${tests[@]}"; do
  log="$dir/$t.tsan.log"
  if ! "$dir/tests/$t" >"$log" 2>&1; then status=1; fi
  if grep -q "WARNING: ThreadSanitizer" "$log"; then status=1; fi
  tail -n 1 "$log"
  if [ $status -ne 0 ]; then
    grep -A 40 "WARNING: ThreadSanitizer" "$log" | head -n 80 || tail -n 40 "$log"
    echo "$t: failed under ThreadSanitizer (log: $log)" >&2
    exit 1
  fi
done
echo "ThreadSanitizer: ${tests[*]} passed"
