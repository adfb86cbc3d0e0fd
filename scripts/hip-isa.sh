#!/bin/sh
# Prints the AMD GPU disassembly of one target held by a HIP object that tessera_hip_compile built
# (build/hip/<id>.o), so that CI can check which instructions a kernel really uses (v_mfma, no
# scratch_ loads or stores) without an AMD GPU.
#
#   scripts/hip-isa.sh <object.o> <gfx942|gfx90a>
#
# The host object carries the device code objects in a clang offload bundle in its .hip_fatbin
# section: cut that out, unbundle the one target, disassemble it for that processor. LLVM_BIN
# overrides where the LLVM 19 tools are looked for.
set -eu

usage() {
    echo "usage: $0 <object.o> <gfx942|gfx90a>" >&2
    exit 2
}
[ $# -eq 2 ] || usage
obj=$1
arch=$2
case $arch in
gfx[0-9]*) ;;
*) usage ;;
esac
[ -f "$obj" ] || {
    echo "$0: no such file: $obj" >&2
    exit 1
}

llvm_bin=${LLVM_BIN:-/usr/lib/llvm-19/bin}
bundler=$llvm_bin/clang-offload-bundler
objcopy=$llvm_bin/llvm-objcopy
objdump=$llvm_bin/llvm-objdump
for tool in "$bundler" "$objcopy" "$objdump"; do
    [ -x "$tool" ] || {
        echo "$0: $tool not found (Debian packages clang-tools-19 and llvm-19)" >&2
        exit 1
    }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# objcopy needs an output file, or it would rewrite the object in place.
if ! "$objcopy" --dump-section .hip_fatbin="$tmp/fatbin" "$obj" "$tmp/host.o" 2>/dev/null; then
    echo "$0: $obj has no .hip_fatbin section: not a HIP object" >&2
    exit 1
fi

# Bundle entries are named hipv4-amdgcn-amd-amdhsa--<processor>[:<features>].
entry=$("$bundler" --list --type=o --input="$tmp/fatbin" |
    grep -E -- "-amdgcn-amd-amdhsa--$arch(:|\$)" | head -n 1 || true)
if [ -z "$entry" ]; then
    echo "$0: $obj holds no code for $arch; it holds:" >&2
    "$bundler" --list --type=o --input="$tmp/fatbin" | grep amdgcn >&2 || true
    exit 1
fi

"$bundler" --unbundle --type=o --input="$tmp/fatbin" --targets="$entry" --output="$tmp/code.o"
"$objdump" -d --mcpu="$arch" "$tmp/code.o"
