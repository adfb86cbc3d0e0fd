#!/usr/bin/env bash
# A/B builds on the GPU machine: builds tessera-bench once per variant (extra -D flags for the
# CUDA compiler), in parallel, then runs the quick form of one bench for each variant, twice in
# interleaved order (a b c a b c), so that a difference between variants can be told from the
# run-to-run spread. For tuning with little device time.
#   usage: scripts/gpu-ab.sh NAME=FLAGS [NAME=FLAGS ...]      e.g.  base=@.ab-rev/main new=
#   BENCH (default gemm) picks the bench, or several ("gemm rmsnorm"); TESSERA_BENCH_QUICK=1 is set for it
#   (QUICK=0: the whole sweep, e.g. attention's N = 1024 .. 16384). TESTS (test binary
#   names, e.g. "test_attention test_warpgroup") are built in every variant and run once each before
#   the benches, so a variant's speed is only read next to its correctness; a variant whose tests
#   do not pass (or hang) is not benchmarked.
#   A variant's flags may open with @DIR, a source tree to build instead of this one: an A/B of two
#   revisions of the code rather than of two flags. The GPU machine has no git history, so the
#   tree is exported beforehand, here, into .ab-rev/ (ignored by git; carry it with the call):
#     git archive REV | (mkdir -p .ab-rev/REV && tar -x -C .ab-rev/REV)
#     scripts/gpu-ab.sh base=@.ab-rev/REV new=          (carry .device-deps and .ab-rev)
#   A variant's flags may instead open with %ID, a kernel source's id (its path as a C identifier,
#   e.g. %kernels_norm_norm_c): the flags then apply to that source alone
#   (TESSERA_KERNEL_FLAGS_<ID>, cmake/TesseraKernels.cmake), and such variants build one after
#   another in one tree, build/ab-kernel, each rebuilding that one object: minutes fewer than a
#   whole build a variant. Their base is a %ID variant with no flags.
#   A variant's flags may instead be ^DIR: binaries built beforehand, DIR/bench/tessera-bench and
#   DIR/tests/<TESTS>, so that the GPU machine's time goes to running them. BUILD_ONLY=OUT builds the
#   variants named (on any machine with nvcc, no GPU needed), copies each one's binaries into
#   OUT/NAME and stops; carry OUT with the call:
#     BUILD_ONLY=.ab-rev/pre TESTS=test_norm scripts/gpu-ab.sh base=%kernels_norm_norm_c x="%kernels_norm_norm_c -DX=1"
#     TESTS=test_norm BENCH=rmsnorm scripts/gpu-ab.sh base=^.ab-rev/pre/base x=^.ab-rev/pre/x   (on the GPU machine)
# Every variant's commit is printed before the rounds (tessera-bench --version). The GPU machine's copy
# of this tree has no git history: give its commit as TESSERA_COMMIT=<sha> (cmake/TesseraBuildInfo.cmake),
# e.g. TESSERA_COMMIT=$(git rev-parse --short=12 HEAD) written into the command; @DIR trees exported by
# git archive carry their own (cmake/source-commit.txt), and TESSERA_COMMIT does not reach them.
# scripts/gpu-ab-table.py LOG summarises a saved log: each variant's mean over the rounds against the first.
set -uo pipefail
cd "$(dirname "$0")/.."
[ -f .device-deps/unpack.sh ] && source .device-deps/unpack.sh
bench=${BENCH:-gemm}
names=()
kernel_specs=()
kernel_ids=()
mkdir -p build
# configure_and_build SRC DIR NAME [cmake -D...]: tessera-bench (and TESTS) in DIR from the tree at
# SRC, its log build/ab-NAME.log.
configure_and_build() {
  local src=$1 dir=$2 name=$3
  shift 3
  # TESSERA_COMMIT names this tree; another tree records its own (or "unknown").
  [ "$src" = . ] || local -x TESSERA_COMMIT=
  cmake -S "$src" -B "$dir" -DTESSERA_BACKEND=cuda -DTESSERA_BUILD_TESTS="$([ -n "${TESTS:-}" ] && echo ON || echo OFF)" \
        -DTESSERA_BUILD_EXAMPLES=OFF -DTESSERA_PTXAS_VERBOSE=OFF "$@" >"build/ab-$name.log" 2>&1 &&
    cmake --build "$dir" -j "$(nproc)" --target tessera-bench ${TESTS:-} >>"build/ab-$name.log" 2>&1
}
# first_word FLAGS / rest_words FLAGS: a variant's @DIR or %ID, and the flags after it.
first_word() { echo "${1%% *}"; }
rest_words() { case $1 in *" "*) echo "${1#* }" ;; *) echo ;; esac; }
for spec in "$@"; do
  name=${spec%%=*} flags=${spec#*=} src=.
  names+=("$name")
  if [ "${flags#^}" != "$flags" ]; then
    [ -x "${flags#^}/bench/tessera-bench" ] || { echo "variant $name: no ${flags#^}/bench/tessera-bench"; exit 2; }
    rm -rf "build/ab-$name" && mkdir -p "build/ab-$name" && cp -r "${flags#^}"/* "build/ab-$name/"
    continue
  fi
  if [ "${flags#%}" != "$flags" ]; then
    kernel_specs+=("$spec")
    kernel_ids+=("$(first_word "${flags#%}")")
    continue
  fi
  if [ "${flags#@}" != "$flags" ]; then
    src=$(first_word "${flags#@}") flags=$(rest_words "$flags")
    [ -f "$src/CMakeLists.txt" ] || { echo "variant $name: no source tree at $src"; exit 2; }
  fi
  configure_and_build "$src" "build/ab-$name" "$name" -DCMAKE_CUDA_FLAGS="$flags" ||
    echo "variant $name: build failed (build/ab-$name.log)" &
done
# The %ID variants, in turn, in one tree; each one's bench binary (static) is copied out. Every
# other ID named in this run is reset, so that a variant carries only its own flags.
for spec in ${kernel_specs[@]+"${kernel_specs[@]}"}; do
  name=${spec%%=*} flags=${spec#*=%}
  id=$(first_word "$flags") flags=$(rest_words "$flags")
  resets=()
  for other in "${kernel_ids[@]}"; do resets+=("-DTESSERA_KERNEL_FLAGS_$other="); done
  mkdir -p "build/ab-$name/bench"
  rm -f "build/ab-$name/bench/tessera-bench"
  { configure_and_build . build/ab-kernel "$name" -DCMAKE_CUDA_FLAGS= "${resets[@]}" \
        "-DTESSERA_KERNEL_FLAGS_$id=$(echo $flags | tr ' ' ';')" &&
    cp build/ab-kernel/bench/tessera-bench "build/ab-$name/bench/" &&
    { [ -z "${TESTS:-}" ] || { mkdir -p "build/ab-$name/tests" && for t in $TESTS; do cp "build/ab-kernel/tests/$t" "build/ab-$name/tests/"; done; }; }; } ||
    echo "variant $name: build failed (build/ab-$name.log)"
done &
wait
if [ -n "${BUILD_ONLY:-}" ]; then
  for name in "${names[@]}"; do
    [ -x "build/ab-$name/bench/tessera-bench" ] || { echo "variant $name: build failed (build/ab-$name.log)"; exit 1; }
    rm -rf "$BUILD_ONLY/$name" && mkdir -p "$BUILD_ONLY/$name/bench" "$BUILD_ONLY/$name/tests" &&
      cp "build/ab-$name/bench/tessera-bench" "$BUILD_ONLY/$name/bench/"
    for t in ${TESTS:-}; do cp "build/ab-$name/tests/$t" "$BUILD_ONLY/$name/tests/"; done
    echo "$name -> $BUILD_ONLY/$name"
  done
  exit 0
fi
# A failed build shows its first errors here (its log stays on the GPU machine) and is not run.
declare -A broken=()
for name in "${names[@]}"; do
  if [ ! -x "build/ab-$name/bench/tessera-bench" ]; then
    echo "== $name: build failed; its first errors:"
    grep -m 12 -E "error|Error" "build/ab-$name.log" || tail -n 12 "build/ab-$name.log"
    broken[$name]=1
  fi
done
for name in "${names[@]}"; do
  [ -n "${broken[$name]:-}" ] ||
    echo "== $name: $("build/ab-$name/bench/tessera-bench" --version 2>/dev/null || echo '(a tessera-bench without --version: commit not recorded)')"
done
# A variant whose tests fail, crash or time out (a hang) is not benchmarked: its numbers would mean
# nothing, and a hanging kernel would spend the bench's timeouts too.
for name in "${names[@]}"; do
  [ -n "${broken[$name]:-}" ] && continue
  for t in ${TESTS:-}; do
    result=$( { timeout 150 "build/ab-$name/tests/$t" --jobs=1 2>&1; echo "exit $?"; } | grep -E 'Synthesis|FAIL|error|exit' | head -n 6 | tr '\n' ' ')
    echo "== $name $t: $result"
    case $result in *"exit 0 "*) ;; *) broken[$name]=1 ;; esac
  done
done
for b in $bench; do
  for round in 1 2; do
    for name in "${names[@]}"; do
      echo "== $name $b (round $round)"
      if [ -n "${broken[$name]:-}" ]; then echo "   skipped: its build or tests failed"; continue; fi
      TESSERA_BENCH_QUICK=${QUICK:-1} timeout 120 "build/ab-$name/bench/tessera-bench" "$b" 2>&1 | grep -E "=|error" | grep -v "^tessera-bench"
    done
  done
done
