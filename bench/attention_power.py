"""Clocks and power under sustained load: Tessera's attention and PyTorch SDPA's cuDNN backend at
B16 H16 N4096 D128 (non-causal, then causal), each run back to back for a few seconds while
nvidia-smi samples the SM clock, the board power and the throttle reasons every 50 ms. It tells a
kernel that is slower per cycle from one that runs at lower clocks (both draw the board to its power
cap on an H200). Prints one JSON object per round of the two, with the keys of tessera-bench --json:
Tessera's steady TFLOP/s (median of the second half) as the value, cuDNN's as the baseline, and per
implementation the first TFLOP/s, the mean and lowest SM clock, the mean and highest power and the
throttle reasons seen (params, cuDNN's prefixed baseline_); commit and build from the library's
ts_build_info.

    python3 bench/attention_power.py --lib build/gpu/core/libtessera.so [--seconds 2.5]
"""
import argparse
import datetime
import json
import statistics
import subprocess
import sys
import tempfile
import time

from compare_torch import attention_runs, load_library
from torch_timing import build_record


def read_samples(path):
    samples = []
    for line in open(path):
        f = [x.strip() for x in line.split(",")]
        try:
            ts = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
            samples.append((ts, float(f[1].split()[0]), float(f[2].split()[0]), f[3]))
        except (ValueError, IndexError):
            pass
    return samples


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lib", default="build/gpu/core/libtessera.so")
    parser.add_argument("--seconds", type=float, default=2.5)
    parser.add_argument("--commit", help="the commit to record, for a library that does not know its own")
    args = parser.parse_args()

    import torch

    lib = load_library(args.lib)
    record = build_record(lib, args.commit)
    device = torch.cuda.get_device_properties(torch.cuda.current_device()).name
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    log = tempfile.NamedTemporaryFile(mode="w", suffix=".csv", delete=False)
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active",
                            "--format=csv,noheader", "-lms", "50"], stdout=log)
    time.sleep(1.0)
    phases = []
    b, h, n, d = 16, 16, 4096, 128
    for causal in (0, 1):
        runs, _ = attention_runs(torch, lib, b, h, n, d, causal)
        flops = 4.0 * b * h * n * n * d * (0.5 if causal else 1.0)
        for _ in range(2):
            for name in ("tessera", "cuDNN"):
                run = runs[name]
                for _ in range(5):
                    run()
                torch.cuda.synchronize()
                time.sleep(1.0)  # let the clocks recover between phases
                t0, ms = time.time(), []
                while time.time() - t0 < args.seconds:
                    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    start.record()
                    for _ in range(20):
                        run()
                    stop.record()
                    stop.synchronize()
                    ms.append(start.elapsed_time(stop) / 20)
                phases.append((causal, name, t0, time.time(), flops / (ms[0] * 1e9),
                               flops / (statistics.median(ms[len(ms) // 2:]) * 1e9)))
    smi.terminate()
    smi.wait()
    log.close()
    samples = read_samples(log.name)

    def phase_params(prefix, phase):
        """One phase's first TFLOP/s, SM clock, power and throttle reasons (None: no samples)."""
        _, _, t0, t1, first, _ = phase
        w = [x for x in samples if t0 + 0.5 <= x[0] <= t1]
        return {prefix + "first_value": first,
                prefix + "sm_clock_mhz": statistics.mean(x[1] for x in w) if w else None,
                prefix + "sm_clock_min_mhz": min(x[1] for x in w) if w else None,
                prefix + "power_w": statistics.mean(x[2] for x in w) if w else None,
                prefix + "power_max_w": max(x[2] for x in w) if w else None,
                prefix + "throttle": sorted(set(x[3] for x in w))}

    # The phases come in pairs, Tessera's then cuDNN's: one line a pair.
    for i in range(0, len(phases), 2):
        ours, theirs = phases[i], phases[i + 1]
        params = {"B": b, "H": h, "N": n, "D": d, "causal": ours[0], "dtype": "bf16", "round": i // 2 % 2 + 1,
                  "seconds": args.seconds, **phase_params("", ours), **phase_params("baseline_", theirs)}
        print(json.dumps({"bench": "attention-power", "backend": "cuda", "device": device, "params": params,
                          "metric": "TFLOP/s", "value": ours[5], "baseline": "cuDNN", "baseline_value": theirs[5],
                          "ratio": ours[5] / theirs[5], "date": date, **record}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
