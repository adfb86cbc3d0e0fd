#!/usr/bin/env python3
"""Several runs of one bench, as JSON lines (tessera-bench --json, bench/compare_torch.py,
bench/compare_torch_memory.py), into one markdown table for docs/results.md: per point the median
of each value over the runs and the range of the ratio to the baseline, so a claim such as ">= 1.0x
in every run" can be read off the table. Points are matched by bench and parameters (timings and
other per-run measurements left out); a point missing from a run is reported, not skipped.

    python3 scripts/results-table.py RUN1.jsonl RUN2.jsonl ...
"""
import json
import statistics
import sys

# Parameters that are measurements of the run, not part of the point's identity.
MEASURED = {"ms", "baseline_ms", "max_rel_diff", "copy_value", "copy_fraction", "eager_value",
            "ratio_eager", "max_abs_diff_vs_eager"}


def point_key(record):
    params = {k: v for k, v in record["params"].items() if k not in MEASURED}
    return (record["bench"],) + tuple(sorted(params.items()))


def label(key):
    return key[0] + " " + " ".join(f"{k}={v}" for k, v in key[1:])


def main():
    paths = sys.argv[1:]
    if not paths:
        sys.exit(__doc__)
    runs = []
    for path in paths:
        with open(path) as f:
            runs.append({point_key(r): r for r in (json.loads(line) for line in f if line.strip())})
    order = list(runs[0])
    for run in runs[1:]:
        order += [k for k in run if k not in order]
    first = next(iter(runs[0].values()))
    extra = [k for k in ("flash_value", "eager_value") if k in first or k in first["params"]]
    head = ["point", f"Tessera {first['metric']}", first["baseline"]] + [k.replace("_value", "") for k in extra]
    print("| " + " | ".join(head + [f"vs {first['baseline']} ({len(runs)} runs)", "median ratio"]) + " |")
    print("|" + " --- |" * (len(head) + 2))
    for key in order:
        recs = [run[key] for run in runs if key in run]
        def med(name):
            vals = [r[name] if name in r else r["params"][name] for r in recs]
            return statistics.median(vals)
        ratios = [r["ratio"] for r in recs]
        cells = [label(key), f"{med('value'):.4g}", f"{med('baseline_value'):.4g}"] + [f"{med(k):.4g}" for k in extra]
        span = f"{min(ratios):.3f}x" if f"{min(ratios):.3f}" == f"{max(ratios):.3f}" else f"{min(ratios):.3f}-{max(ratios):.3f}x"
        missing = len(runs) - len(recs)
        cells += [span + (f" ({missing} runs without it)" if missing else ""), f"{statistics.median(ratios):.3f}x"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
