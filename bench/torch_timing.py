"""The timing protocol of tessera-bench for the Python drivers (compare_torch.py,
compare_torch_memory.py): warm-up, then rounds in which every implementation runs once, in
alternating order, each run after an L2 flush and timed with CUDA events; the median per
implementation, in milliseconds. The flush reads a buffer twice the L2's size, which leaves the
cache clean, as tessera-bench's does (bench/timing.c says why); TESSERA_BENCH_FLUSH=write zeroes it
instead, as both did before.

TESSERA_BENCH_CHARGE_WRITEBACK=1 (not the default; the targets are measured without it): each
timed span also holds a read of another buffer twice the L2's size after the run, which writes
back whatever dirty lines the run left in the L2, and the median of that read alone, timed in the
same rounds, is subtracted. The times are then each implementation's own, write-back included: the
plain protocol does not charge that write-back, and kernels that write as much as they read differ
there by a few MB (bench/results/nvidia-h200-2026-12-02-norm-writeback-race.txt)."""
import argparse
import ctypes
import datetime
import json
import os
import statistics

MIN_REPS = 20  # tessera-bench's TS_BENCH_MIN_REPS
# GPU clock cycles (about 1 ms on an H200) the stream spins before each timed run while Python issues
# the run, so that no host time is timed. A torch.compile'd function's call took 90-190 us of host
# time (median; up to 630 us) on the H200's host, against which the 200000 cycles used before did not
# always cover: its kernel then measured 2.3-4.27 TB/s between processes, and 4.24-4.26 in every
# process with this lead (bench/results/nvidia-h200-2026-12-02-driver-lead-time.txt).
LEAD_CYCLES = int(os.environ.get("TESSERA_BENCH_LEAD_CYCLES", "2000000"))


def driver_arguments(doc, reps, warmup):
    """The options every driver takes: the library, the repetitions, the host self-test."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--lib", default=os.environ.get("TESSERA_LIB", "build/gpu/core/libtessera.so"))
    parser.add_argument("--reps", type=int, default=reps, help=f"timed runs (at least {MIN_REPS})")
    parser.add_argument("--warmup", type=int, default=warmup)
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--commit", help="the commit to record in every line instead of the library's (for a "
                                         "library that does not know its own: ts_build_info says 'unknown')")
    return parser


def parse_driver_arguments(parser):
    args = parser.parse_args()
    args.reps = max(args.reps, MIN_REPS)
    return args


def build_record(lib, commit=None):
    """What every JSON line carries besides its measurement: {"commit": ..., "build": {...}}, from the
    loaded library's ts_build_info (the source tree's commit and the build's options). commit (--commit)
    replaces the library's; a library built before ts_build_info existed gives "unknown" and {}."""
    record = {"commit": "unknown", "build": {}}
    fn = getattr(lib, "ts_build_info", None)
    if fn is not None:
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p)]
        sha, options = ctypes.c_char_p(), ctypes.c_char_p()
        if fn(ctypes.byref(sha), ctypes.byref(options)) == 0:
            record = {"commit": sha.value.decode(), "build": json.loads(options.value.decode())}
    if commit:
        record["commit"] = commit
    return record


def self_test_build_record(lib, backend):
    """The library's record names a commit and the backend it was built for. Returns the failures."""
    record = build_record(lib)
    ok = record["commit"] != "" and record["build"].get("backend") == backend
    print(f"self-test build record: commit {record['commit']}, backend {record['build'].get('backend')}"
          f"{'' if ok else '  FAILED'}")
    return 0 if ok else 1


def start_driver(args, load_library):
    """What every driver's measuring run opens with: PyTorch, the library at --lib loaded by the
    driver's load_library, the record every JSON line carries (build_record) and bench_context's
    device properties, flush buffer and date."""
    import torch
    lib = load_library(args.lib)
    return torch, lib, build_record(lib, args.commit), *bench_context(torch)


def attention_sweep(quick):
    """The attention drivers' points (B, H, N, D, causal): B16 H16 N4096 D128 both ways, then
    (unless quick) the sequence-length sweep at 16K tokens (B = 16384 / N), as tessera-bench's."""
    shapes = [(16, 16, 4096, 128, c) for c in (0, 1)]
    if not quick:
        shapes += [(16384 // n, 16, n, d, c) for d in (64, 128) for n in (1024, 2048, 4096, 8192, 16384)
                   for c in (0, 1)]
    return shapes


def bench_context(torch):
    """The device's properties, a buffer twice the L2 to flush it with, and the date for the JSON."""
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    l2 = getattr(props, "L2_cache_size", 64 << 20) or (64 << 20)
    flush = torch.zeros(2 * l2 // 4, dtype=torch.float32, device="cuda")
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    return props, flush, date


def writeback_charged():
    """TESSERA_BENCH_CHARGE_WRITEBACK=1 (above); the drivers record it in each JSON line's params."""
    return os.environ.get("TESSERA_BENCH_CHARGE_WRITEBACK") == "1"


def time_interleaved(torch, runs, flush, reps, warmup, charge=None):
    """runs: name -> callable issuing one run on the current stream. flush: a tensor larger than the
    L2, read (or, with TESSERA_BENCH_FLUSH=write, zeroed) before every run. charge: charge each run
    its write-back (above); None takes TESSERA_BENCH_CHARGE_WRITEBACK."""
    write_flush = os.environ.get("TESSERA_BENCH_FLUSH") == "write"
    if charge is None:
        charge = writeback_charged()
    # The read that charges the write-back, apart from the flush buffer, which the flush has just
    # brought into the L2; and a run of nothing, whose span is that read alone.
    drain = torch.zeros_like(flush) if charge else None
    alone = "(write-back read alone)"
    runs = dict(runs, **{alone: lambda: None}) if charge else runs
    times = {name: [] for name in runs}
    for _ in range(warmup):
        for run in runs.values():
            run()
    torch.cuda.synchronize()
    names = list(runs)
    for rep in range(reps):
        for name in (names if rep % 2 == 0 else names[::-1]):
            if write_flush:
                flush.zero_()
            else:
                flush.sum()
            # Keep the GPU busy while Python issues the run (LEAD_CYCLES).
            torch.cuda._sleep(LEAD_CYCLES)
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            runs[name]()
            if charge:
                drain.sum()
            stop.record()
            stop.synchronize()
            times[name].append(start.elapsed_time(stop))
    medians = {name: statistics.median(t) for name, t in times.items()}
    if charge:
        read = medians.pop(alone)
        medians = {name: ms - read for name, ms in medians.items()}
    return medians


def self_test_timing():
    """time_interleaved on a simulated GPU clock (no GPU, no PyTorch): each run's cost is returned
    as it is, and with the write-back charged, plus the dirty lines it left, which only the read
    after it pays. Returns the number of failures."""
    import types
    state = {"clock": 0.0, "dirty": 0.0}

    class Buffer:
        def sum(self):
            state["clock"] += 10.0 + state["dirty"]
            state["dirty"] = 0.0

        zero_ = sum

    class Event:
        def __init__(self, enable_timing=True):
            self.at = None

        def record(self):
            self.at = state["clock"]

        def synchronize(self):
            pass

        def elapsed_time(self, other):
            return other.at - self.at

    def run(cost, dirty):
        def issue():
            state["clock"] += cost
            state["dirty"] += dirty
        return issue

    fake = types.SimpleNamespace(
        cuda=types.SimpleNamespace(_sleep=lambda cycles: None, Event=Event, synchronize=lambda: None),
        zeros_like=lambda t: Buffer())
    runs = {"a": run(3.0, 2.0), "b": run(5.0, 0.5)}
    failures = 0
    for charge, want in ((False, {"a": 3.0, "b": 5.0}), (True, {"a": 5.0, "b": 5.5})):
        got = time_interleaved(fake, runs, Buffer(), MIN_REPS, 2, charge=charge)
        ok = got == want and list(runs) == ["a", "b"]
        print(f"self-test timing (write-back {'charged' if charge else 'not charged'}): {got}{'' if ok else '  FAILED'}")
        failures += not ok
    return failures
