#!/usr/bin/env bash
# A/B of libtessera.so builds in the PyTorch driver (bench/compare_torch_memory.py): each build
# runs ROUNDS times (default 3), in an order that rotates each round, every run a fresh process and a
# fresh torch.compile, so that the spread between processes (about 0.5% for either side, since the
# driver's lead covers compile's host time: bench/torch_timing.py) can be told apart from a
# difference between the builds. Tessera's number,
# torch.compile's and their ratio are printed for every run, and a table of medians per build and
# point after the last; ONLY (default layernorm,rmsnorm) picks the driver's kernels. The shared
# libraries are built beforehand, e.g. off the GPU machine:
#   cmake -S . -B build/shared -DTESSERA_BACKEND=cuda -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
#         -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_EXAMPLES=OFF "-DTESSERA_KERNEL_FLAGS_kernels_norm_norm_c=-DX=1"
#   cmake --build build/shared --target tessera_shared && cp -L build/shared/core/libtessera.so .ab-rev/x.so
#   usage (on the GPU machine): scripts/gpu-driver-ab.sh NAME=LIB ...   [LOG=FILE: the driver's JSON lines too]
# A spec may carry driver options after the library, e.g. 'fixed=LIB --outputs fixed', to A/B the
# driver's protocol with one library; DRIVER_OPTIONS go to every run (e.g. '--dtype f32 --shapes 65536x768').
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-3}
log=${LOG:-/dev/null}
specs=("$@")
[ ${#specs[@]} -gt 0 ] || { echo "usage: $0 NAME=LIB ..."; exit 2; }
spec_lib() { local rest=${1#*=}; echo "${rest%% *}"; }
spec_options() { local rest=${1#*=}; [ "$rest" = "${rest#* }" ] || echo "${rest#* }"; }
for spec in "${specs[@]}"; do
  [ -f "$(spec_lib "$spec")" ] || { echo "no library $(spec_lib "$spec")"; exit 2; }
done
# Every run's numbers also go to a temporary file, tab-separated, for the table after the last round.
runs_file=$(mktemp)
trap 'rm -f "$runs_file"' EXIT
# The driver's JSON lines, one line each: build, round, kernel, shape, TB/s, compile's, ratio, copy.
read -r -d '' summarize <<'PY'
import json, sys
name, rnd, runs_file = sys.argv[1], sys.argv[2], sys.argv[3]
with open(runs_file, "a") as runs:
    for line in sys.stdin:
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        p = d["params"]
        shape = "%dx%d" % (p["rows"], p["cols"]) if "rows" in p else p.get("layout", "")
        if p.get("dtype", "bf16") != "bf16":
            shape += "/" + p["dtype"]
        print("%-10s round %s  %-10s %-12s tessera %.3f  compile %.3f  ratio %.3f  copy %.3f"
              % (name, rnd, d["bench"], shape, d["value"], d["baseline_value"], d["ratio"], p["copy_value"]))
        runs.write("\t".join([name, d["bench"], shape] + [repr(d[k]) for k in ("value", "baseline_value", "ratio")]) + "\n")
PY
for round in $(seq 1 "$rounds"); do
  n=${#specs[@]}
  for k in $(seq 0 $((n - 1))); do
    spec=${specs[$(( (k + round - 1) % n ))]}
    name=${spec%%=*} lib=$(spec_lib "$spec")
    read -r -a options <<<"${DRIVER_OPTIONS:-} $(spec_options "$spec")"
    echo "== $name round $round" >>"$log"
    python3 bench/compare_torch_memory.py --lib "$lib" --only "${ONLY:-layernorm,rmsnorm}" "${options[@]}" 2>&1 | tee -a "$log" |
      python3 -c "$summarize" "$name" "$round" "$runs_file"
  done
done
# Per build and point: the medians over the rounds, and the ratio in the round where torch.compile
# ran fastest (its best case; with a lead shorter than its host call its slow rounds were host time).
python3 - "$runs_file" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    runs.setdefault(tuple(f[:3]), []).append(tuple(float(v) for v in f[3:]))
print("# build      kernel     shape        runs  tessera median  compile median / best  ratio median  ratio at compile's best")
for (name, kernel, shape), r in runs.items():
    best = max(r, key=lambda x: x[1])
    print("%-10s   %-10s %-12s %4d  %14.3f  %14.3f / %.3f  %12.3f  %.3f" % (
        name, kernel, shape, len(r), statistics.median(x[0] for x in r), statistics.median(x[1] for x in r),
        best[1], statistics.median(x[2] for x in r), best[2]))
PY
