#!/usr/bin/env bash
# The test command: installs the Debian packages the builds need (when run as root), then
# configures, builds and tests every backend this machine can build:
#   host  - gcc, C11, under AddressSanitizer and UndefinedBehaviorSanitizer; then concurrent calls
#           under ThreadSanitizer (scripts/tsan.sh) and the results record's check
#           (scripts/results-table.py --check)
#   cuda  - nvcc for sm_90a (needs /usr/local/cuda; it is not a Debian package)
#   hip   - clang-19 for gfx942 and gfx90a
# and builds the examples and a user's kernel (examples/out-of-tree) against an installed Tessera,
# as a user would (scripts/test-install.sh). GPU tests skip where there is no GPU. Exits non-zero
# on any failure.
#   usage: scripts/test.sh [host|cuda|hip]...   (default: all three)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${TESSERA_BUILD_ROOT:-$root/build/test}
jobs=${TESSERA_JOBS:-$(nproc)}
backends=("$@")
[ ${#backends[@]} -gt 0 ] || backends=(host cuda hip)

say() { printf '\n== %s\n' "$*"; }

# ---- packages -------------------------------------------------------------------------------
packages="cmake pkg-config libcriterion-dev python3-torch hipcc libamdhip64-dev rocm-device-libs lld clang-19 clang-tools-19 lld-19 llvm-19"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
  else
    echo "missing Debian packages:$missing (run as root, or: sudo apt-get install$missing)" >&2
    exit 1
  fi
fi

# NVIDIA's disassemblers are not in this CUDA install; PyPI has them as wheels. With them the
# gates also check the SASS (HGMMA); without them (no network) that one check is skipped.
case " ${backends[*]} " in
  *" cuda "*)
    if ! python3 -c 'import nvidia.cu13' >/dev/null 2>&1 && command -v python3 >/dev/null; then
      python3 -m pip install --quiet --disable-pip-version-check nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm \
        >/dev/null 2>&1 || echo "note: could not install the CUDA disassembler wheels; the SASS gate will be skipped"
    fi ;;
esac

nvcc_path=$(command -v nvcc || true)
[ -n "$nvcc_path" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc_path=/usr/local/cuda/bin/nvcc; } || true

failures=()
run_backend() {
  local backend=$1 dir=$build/$1
  local extra=()
  case $backend in
    host) extra=(-DTESSERA_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
    cuda)
      if [ -z "$nvcc_path" ]; then
        echo "nvcc not found: the CUDA toolkit (/usr/local/cuda) is not a Debian package and must be installed by hand" >&2
        return 1
      fi
      extra=(-DCMAKE_CUDA_COMPILER="$nvcc_path") ;;
    hip) ;;
    *) echo "unknown backend $backend" >&2; return 1 ;;
  esac
  say "$backend: configure"
  cmake -S "$root" -B "$dir" -DTESSERA_BACKEND="$backend" -DCMAKE_INSTALL_PREFIX="$dir/install" "${extra[@]}" >"$dir.configure.log" 2>&1 \
    || { cat "$dir.configure.log"; return 1; }
  say "$backend: build"
  cmake --build "$dir" -j "$jobs" >"$dir.build.log" 2>&1 || { tail -n 60 "$dir.build.log"; return 1; }
  say "$backend: test"
  ( cd "$dir" && ctest --output-on-failure -j "$jobs" ) || return 1
  say "$backend: install, then build the examples and a user's kernel against the installed library"
  local lib=$dir
  if [ "$backend" = host ]; then
    # The sanitized build is for the tests; a user installs a plain one.
    lib=$build/host-release
    cmake -S "$root" -B "$lib" -DTESSERA_BACKEND=host -DTESSERA_BUILD_TESTS=OFF -DBUILD_SHARED_LIBS=ON \
      -DCMAKE_INSTALL_PREFIX="$lib/install" >/dev/null \
      && cmake --build "$lib" -j "$jobs" >/dev/null || return 1
  fi
  TESSERA_JOBS=$jobs "$root/scripts/test-install.sh" "$backend" "$lib" || return 1
  if [ "$backend" = host ]; then
    # Debian's python3-torch serves the system interpreter, which need not be the first python3.
    say "host: an attention layer's forward and backward through libtessera.so against PyTorch autograd"
    local py
    for py in python3 /usr/bin/python3; do "$py" -c 'import torch' >/dev/null 2>&1 && break; py=; done
    [ -n "$py" ] || { echo "no python3 with torch (Debian: python3-torch)" >&2; return 1; }
    "$py" "$root/examples/attention_layer_autograd.py" --lib "$lib/core/libtessera.so" || return 1
  fi
  if [ -x "$root/scripts/gates.sh" ]; then
    say "$backend: compile and ISA gates"
    "$root/scripts/gates.sh" "$backend" "$dir" || return 1
  fi
  if [ "$backend" = host ]; then
    # The concurrent calls under ThreadSanitizer (the device-properties cache, the host's handle
    # registry), and the results record: docs/results.md's table is current and
    # bench/results/INDEX.md lists every results file.
    say "host: ThreadSanitizer"
    TESSERA_JOBS=$jobs "$root/scripts/tsan.sh" "$build/host-tsan" || return 1
    say "host: results record"
    python3 "$root/scripts/results-table.py" --check || return 1
  fi
}

mkdir -p "$build"
for b in "${backends[@]}"; do
  if ! run_backend "$b"; then failures+=("$b"); fi
done

if [ ${#failures[@]} -gt 0 ]; then
  say "FAILED: ${failures[*]}"
  exit 1
fi
say "all backends passed: ${backends[*]}"
