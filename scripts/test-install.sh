#!/usr/bin/env bash
# Installs a built Tessera and builds against the installed tree only, as a user would:
#   - every header the installed headers include is installed (nothing reaches back into the tree);
#   - examples/ (programs calling the library) through find_package(tessera), and one of them
#     through pkg-config (tessera.pc);
#   - examples/out-of-tree/, a kernel of the user's own, through find_package(tessera) and
#     tessera_add_kernels: run on host (checked against a double computation), compiled and linked
#     for cuda (sm_90a) and hip (gfx942 and gfx90a), and run there too, which skips without a GPU;
#   - the same kernel through pkg-config (tessera-kernels.pc): cc on host, nvcc on cuda;
#   - examples/porting/, two kernels ported from CUDA projects, each its own project built the same
#     way: run on host (under AddressSanitizer and UndefinedBehaviorSanitizer, checked against
#     double), compiled for cuda and hip, where examples/porting/check-isa.sh checks that their
#     kernels stream in 16-byte accesses without local memory, and run there too (skips without a GPU);
#   - the installed tree moved elsewhere: pkg-config and find_package still build the kernel;
#   - host: libtessera.so exports the API, and the Python drivers' self-tests run on it.
#   usage: scripts/test-install.sh <host|cuda|hip> <build-dir>    (scripts/test.sh runs it)
# Everything it makes stays under <build-dir>. Exits non-zero at the first failure.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 <host|cuda|hip> <build-dir>" >&2; exit 2; }
backend=$1
lib=$(cd "$2" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${TESSERA_JOBS:-$(nproc)}
oot=$root/examples/out-of-tree
say() { printf -- '-- %s\n' "$*"; }
fail() { echo "test-install: $*" >&2; exit 1; }

prefix=$lib/install
rm -rf "$prefix"
cmake --install "$lib" --prefix "$prefix" >/dev/null

# Every "..." include of an installed header names a file of the install (from include/tessera or
# beside the header); <tessera/tessera.h> is the one angle include of the project's own.
say "$backend: installed headers include only installed headers"
missing=$(cd "$prefix/include/tessera" && find . -name '*.h' | while read -r h; do
  sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1/p' "$h" | while read -r inc; do
    [ -f "$inc" ] || [ -f "$(dirname "$h")/$inc" ] || echo "$h includes \"$inc\""
  done
done)
[ -z "$missing" ] || fail "headers missing from the install:"$'\n'"$missing"
[ -f "$prefix/include/tessera/tessera.h" ] || fail "tessera.h not installed"

say "$backend: examples/ against the installed library (find_package)"
rm -rf "$lib/examples-out-of-tree"
cmake -S "$root/examples" -B "$lib/examples-out-of-tree" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$lib/examples-out-of-tree" -j "$jobs" >/dev/null
for e in device_query tile_add gemm decoder_block next_token decode_step; do
  "$lib/examples-out-of-tree/example_$e" >/dev/null || fail "example_$e failed"
done
pc_dir=$(dirname "$(find "$prefix" -name tessera.pc | head -n1)")
cc -std=c11 -o "$lib/example_device_query_pc" "$root/examples/device_query.c" \
  $(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags --libs --static tessera)
LD_LIBRARY_PATH="$(dirname "$pc_dir")" "$lib/example_device_query_pc" >/dev/null

# build_kernel_cmake PREFIX DIR: examples/out-of-tree built in DIR against the Tessera at PREFIX.
build_kernel_cmake() {
  rm -rf "$2"
  cmake -S "$oot" -B "$2" -DCMAKE_PREFIX_PATH="$1" >"$2.log" 2>&1 &&
    cmake --build "$2" -j "$jobs" >>"$2.log" 2>&1 || { tail -n 40 "$2.log" >&2; fail "examples/out-of-tree did not build against $1"; }
}
# build_kernel_pc PC_DIR OUT: the same kernel and program through pkg-config, outside CMake.
build_kernel_pc() {
  local flags libs
  flags=$(PKG_CONFIG_PATH=$1 pkg-config --cflags tessera-kernels)
  libs=$(PKG_CONFIG_PATH=$1 pkg-config --libs --static tessera-kernels)
  case $backend in
    host) cc -std=c11 -Wall -Wextra -Werror -o "$2" "$oot/center_rows.c" "$oot/main.c" $flags $libs ;;
    cuda)
      local nvcc
      nvcc=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$lib/CMakeCache.txt" | head -n1)
      "$nvcc" -x cu -gencode=arch=compute_90a,code=sm_90a $flags -c "$oot/center_rows.c" -o "$2.o" &&
        cc -std=c11 -Wall -Wextra -Werror -o "$2" "$oot/main.c" "$2.o" $flags $libs ;;
  esac
}
# run_kernel BINARY [LIBDIR]: the program checks every element; without a device it says so, exits 0.
run_kernel() { LD_LIBRARY_PATH=${2:-} "$1" || fail "$1 failed"; }

say "$backend: examples/out-of-tree (a user's kernel) with find_package(tessera) and tessera_add_kernels"
build_kernel_cmake "$prefix" "$lib/kernel-out-of-tree"
run_kernel "$lib/kernel-out-of-tree/center_rows"
if [ "$backend" = hip ]; then
  # One object for both targets: the kernel's resource report names each.
  report=$(find "$lib/kernel-out-of-tree/hip" -name '*center_rows_c.resource.txt' | head -n1)
  for arch in gfx942 gfx90a; do
    grep -q "^$arch center_rows_kernel " "$report" || fail "the out-of-tree kernel was not built for $arch ($report)"
  done
fi
if [ "$backend" != hip ]; then
  say "$backend: the same kernel through pkg-config (tessera-kernels.pc)"
  build_kernel_pc "$pc_dir" "$lib/kernel-pc"
  run_kernel "$lib/kernel-pc" "$(dirname "$pc_dir")"
fi

say "$backend: examples/porting (ports of ggml-cuda's GLU and llm.c's fused classifier) against the installed library"
port_builds=()
for port in gated-activation softmax-cross-entropy; do
  out=$lib/port-$port
  rm -rf "$out"
  cflags="-Wall -Wextra -Werror"
  # On host the kernel is C code of the port's own build: the sanitizers watch its every access.
  [ "$backend" = host ] && cflags="$cflags -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
  # Release: on a GPU the programs check real sizes against a reference computed on the CPU.
  cmake -S "$root/examples/porting/$port" -B "$out" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS="$cflags" >"$out.log" 2>&1 && cmake --build "$out" -j "$jobs" >>"$out.log" 2>&1 ||
    { tail -n 40 "$out.log" >&2; fail "examples/porting/$port did not build against $prefix"; }
  # A line per case; the last sums them up (or says there is no device).
  "$out/${port//-/_}" >"$out.run.log" 2>&1 || { cat "$out.run.log" >&2; fail "examples/porting/$port failed"; }
  tail -n 1 "$out.run.log"
  port_builds+=("$out")
done
if [ "$backend" != host ]; then
  "$root/examples/porting/check-isa.sh" "$backend" "${port_builds[@]}" >"$lib/port-isa.log" 2>&1 ||
    { cat "$lib/port-isa.log" >&2; fail "the ports' kernels do not stream in 16-byte accesses"; }
  tail -n 1 "$lib/port-isa.log"
fi

say "$backend: the installed tree moved elsewhere (relocatable package and .pc files)"
rm -rf "$lib/install-before-move" "$lib/install-moved"
cmake --install "$lib" --prefix "$lib/install-before-move" >/dev/null
mv "$lib/install-before-move" "$lib/install-moved"
! grep -rqs "$lib/install-before-move" "$lib/install-moved" || fail "the installed files name their first prefix"
moved_pc=$(dirname "$(find "$lib/install-moved" -name tessera.pc | head -n1)")
if [ "$backend" != hip ]; then
  build_kernel_pc "$moved_pc" "$lib/kernel-pc-moved"
  run_kernel "$lib/kernel-pc-moved" "$(dirname "$moved_pc")"
else
  case $(PKG_CONFIG_PATH=$moved_pc pkg-config --cflags tessera-kernels) in
    *"$lib/install-moved/"*) ;;
    *) fail "tessera-kernels.pc does not follow the moved prefix" ;;
  esac
fi
build_kernel_cmake "$lib/install-moved" "$lib/kernel-out-of-tree-moved"
run_kernel "$lib/kernel-out-of-tree-moved/center_rows"

if [ "$backend" = host ]; then
  # BUILD_SHARED_LIBS=ON installs libtessera.so beside libtessera.a, exporting the whole API.
  so=$(find "$prefix" -name 'libtessera.so' | head -n1)
  [ -n "$so" ] && nm -D --defined-only "$so" | grep ' T ts_gemm$' >/dev/null \
    || fail "libtessera.so missing or not exporting ts_gemm"
  # The Python benchmark driver's ctypes bindings, through the installed shared library.
  python3 -c 'import numpy' >/dev/null 2>&1 || python3 -m pip install --quiet --disable-pip-version-check numpy >/dev/null 2>&1 || true
  if python3 -c 'import numpy' >/dev/null 2>&1; then
    python3 "$root/bench/compare_torch.py" --self-test --lib "$so"
    python3 "$root/bench/compare_torch_memory.py" --self-test --lib "$so"
    python3 "$root/bench/compare_torch_decode.py" --self-test --lib "$so"
    python3 "$root/bench/compare_torch_based.py" --self-test --lib "$so"
    python3 "$root/bench/compare_torch_gemm.py" --self-test --lib "$so"
    python3 "$root/bench/compare_torch_backward.py" --self-test --lib "$so"
  else
    echo "note: numpy could not be installed; the Python driver's self-test was skipped"
  fi
fi
say "$backend: install checks passed"
